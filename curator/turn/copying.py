"""What a small model copies instead of answering: a text the prompt showed it.

Asked for this turn's memory, the 1.5B model sometimes hands back how it saw someone before
(the relationship's summary, shown in the prompt) word for word; asked for its new view of
someone, it sometimes hands back one of the memories it was shown. In the recorded eval
answers, Bear's memory of freeing Wolf from a trap was "I was about to cross the river at
the ford, but Wolf stepped out of the reeds…", his view of Wolf copied from a fade review
that had itself copied a memory. Both passed the older checks: the copy shares a name and a
word or two with the turn, and a summary may use a memory's words. `retold` finds the
copies, so that the validators (judgement.py, decisions.py) refuse them and show the model
what to write instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.domain.lexicon import word_set

# A sentence holding this share of a shown sentence's content words retells it; a shown
# sentence with fewer content words is too short to tell a copy from a shared phrase.
COPY_SHARE = 0.85
COPY_WORDS = 6
QUOTE_WORDS = 12  # how much of the copied text a refusal quotes

SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def stems(text: str) -> set[str]:
    """Content words by their first three letters: "curled"/"curl", "slept"/"sleep" match."""
    return {word[:3] for word in word_set(text)}


def sentences(text: str) -> list[str]:
    return [part for part in SENTENCE_END.split(text.strip()) if part]


def retold(sentence: str, shown: Iterable[str]) -> str | None:
    """The sentence of a `shown` text that `sentence` retells (holds at least COPY_SHARE of
    its content words), or None."""
    words = stems(sentence)
    for text in shown:
        for part in sentences(text):
            theirs = stems(part)
            if len(theirs) >= COPY_WORDS and len(words & theirs) >= COPY_SHARE * len(theirs):
                return part
    return None


def quote(text: str, words: int = QUOTE_WORDS) -> str:
    """The start of `text`, for a refusal to show what was copied."""
    cut = text.split()
    return " ".join(cut) if len(cut) <= words else " ".join(cut[:words]).rstrip(",;:") + "…"
