"""Who had a part in a turn, and whether a model's memory of it names them.

A memory is filed about the characters who did something in the turn (the rules read who:
`Judgement.others`), and recall finds it by them. In the recorded eval answers the 1.5B model
at times left the one who acted out of its sentence, or gave their deed to someone else:
Bear's memory of freeing Wolf from a trap was "I burst out of the undergrowth and knocked the
poacher down" (filed about Wolf, never naming him); the fox that saw Wolf take Bear's fishing
spot remembered "I saw Bear emerge from the reeds and claim my fishing spot". `unnamed` finds
who such a sentence leaves out, and `naming_sentence` the sentence of what happened that names
them, in the perceiver's own voice, for the refusal to show (judgement.py).

A character is named by its display name, its id or an alias the personas give it ("the
queen"); a pronoun does not count, but a character that what happened names only by pronoun
is not asked for (there is no sentence to show).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from curator.domain.models import display_name
from curator.turn.copying import sentences
from curator.turn.narration import retell
from curator.turn.perspective import Aliases

# (how the character is called, every name it goes by in lower case)
Part = tuple[str, tuple[str, ...]]


def parts_of(others: Iterable[tuple[str, str]], perceiver: str, aliases: Aliases = ()) -> list[Part]:
    """The characters of `others` ((id, what they did) pairs, as `Judgement.others` reads
    them) who did something, other than the perceiver, each with the names it goes by."""
    known = dict(aliases)
    return [(display_name(other), _names(other, known.get(other, ())))
            for other, did in others if did != "none" and other != perceiver]


def _names(character: str, aliases: tuple[str, ...]) -> tuple[str, ...]:
    own = (display_name(character).lower(), character.lower().replace("_", " "))
    return tuple(dict.fromkeys((*own, *(alias.lower() for alias in aliases))))


@lru_cache(maxsize=4096)
def _naming(names: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(names, key=len, reverse=True)  # "the engineer" before "engineer"
    return re.compile(r"\b(?:" + "|".join(re.escape(name) for name in ordered) + r")\b", re.IGNORECASE)


def names(text: str, part: Part) -> bool:
    """Whether `text` names the character by any of its names."""
    return _naming(part[1]).search(text) is not None


def unnamed(memory: str, parts: Iterable[Part]) -> list[Part]:
    """The parts `memory` does not name."""
    return [part for part in parts if not names(memory, part)]


def naming_sentence(happened: str, part: Part, *, perceiver: str, actor: str) -> str | None:
    """The first sentence of `happened` that names the character, retold in the perceiver's
    own voice ("I dig out the trap stake … until Wolf pulls his leg free"); None when no
    sentence names it."""
    told = retell(happened, perceiver=perceiver, actor=actor)
    return next((sentence for sentence in sentences(told) if names(sentence, part)), None)
