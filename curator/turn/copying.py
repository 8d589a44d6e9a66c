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
from difflib import SequenceMatcher

from curator.domain.lexicon import word_set

# A sentence holding this share of a shown sentence's content words retells it; a shown
# sentence with fewer content words is too short to tell a copy from a shared phrase.
COPY_SHARE = 0.85
COPY_WORDS = 6
QUOTE_WORDS = 12  # how much of the copied text a refusal quotes
# A run of this many words copied word for word from a shown sentence, holding at least
# RUN_NEW content words that this turn's text does not have, tells something from before.
RUN_WORDS = 5
RUN_NEW = 2

_WORD = re.compile(r"[a-z']+", re.IGNORECASE)

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


def copied_run(sentence: str, shown: Iterable[str], grounded: set[str]) -> str | None:
    """The words `sentence` copies, word for word, from a `shown` sentence, telling what this
    turn does not (`grounded`: the stems of its text), or None. The 1.5B model keeps a clause
    of how it saw someone inside a sentence of this turn: at the berry bushes, where Wolf lay
    and growled, Bear remembered "I was about to go to the berry bushes by the hollow, but Wolf
    claimed it as his own", the end of its memory of the fishing spot. The whole sentence is
    no copy (`retold`); the clause is, and the memory lost the growl."""
    spans = list(_WORD.finditer(sentence))
    mine = [span.group(0).lower() for span in spans]
    for text in shown:
        for part in sentences(text):
            theirs = _WORD.findall(part.lower())
            match = SequenceMatcher(None, mine, theirs, autojunk=False).find_longest_match(
                0, len(mine), 0, len(theirs))
            if match.size < RUN_WORDS:
                continue
            run = sentence[spans[match.a].start():spans[match.a + match.size - 1].end()]
            if len(stems(run) - grounded) >= RUN_NEW:
                return run
    return None


def quote(text: str, words: int = QUOTE_WORDS) -> str:
    """The start of `text`, for a refusal to show what was copied."""
    cut = text.split()
    return " ".join(cut) if len(cut) <= words else " ".join(cut[:words]).rstrip(",;:") + "…"
