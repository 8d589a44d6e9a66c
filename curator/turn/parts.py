"""Who a memory names: a character by its display name, its id or an alias the personas give it.

A memory is filed about the characters who did something in the turn (the rules read who), and
recall finds it by them. A model is asked for one sentence a turn, and in the recorded eval
answers the 1.5B model at times left the one who acted out of it, or gave their deed to
someone else: Bear's memory of freeing Wolf from a trap was "I burst out of the undergrowth
and knocked the poacher down" (filed about Wolf, never naming him); the fox that saw Wolf
take Bear's fishing spot remembered "I saw Bear emerge from the reeds and claim my fishing
spot". `judging.about` puts such a memory in the rules' words, which name who it is about.

A pronoun does not count as naming: "he" may be anyone in the scene.
"""

from __future__ import annotations

import re
from functools import lru_cache

from curator.domain.models import display_name
from curator.turn.perspective import Aliases

# (how the character is called, every name it goes by in lower case)
Part = tuple[str, tuple[str, ...]]


def part(character: str, aliases: Aliases = ()) -> Part:
    """A character with the names it goes by: its display name, its id read as words, and the
    aliases the turn's personas give it ("the queen")."""
    own = dict(aliases).get(character, ())
    names = (display_name(character).lower(), character.lower().replace("_", " "),
             *(alias.lower() for alias in own))
    return display_name(character), tuple(dict.fromkeys(names))


@lru_cache(maxsize=4096)
def _naming(names: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(names, key=len, reverse=True)  # "the engineer" before "engineer"
    return re.compile(r"\b(?:" + "|".join(re.escape(name) for name in ordered) + r")\b", re.IGNORECASE)


def names(text: str, who: Part) -> bool:
    """Whether `text` names the character by any of its names ("wolfish" does not name Wolf)."""
    return _naming(who[1]).search(text) is not None
