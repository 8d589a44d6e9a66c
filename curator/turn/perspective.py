"""Perspective: a turn's text as the rule reader reads it, in the actor's second person and
split into clauses, each with the character acting in it.

Games write turns two ways: to the actor ("Wolf blocks your path") or about it, in the third
person ("Hugh folded her fingers back over the buckle", where Maud is the actor). The rule
reader's word lists look for what is done to "you", so a third-person turn is first put in the
second person for the reader: the actor's name becomes "you" ("Maud's" "your"), and, in a turn
that never says "you" outside quoted speech, an object pronoun in a clause where someone else
acts ("dragged her out", "hauls him back") is taken as the actor, the one the turn is about.
This text is read, never stored: memories are retold from the game's own words (narration.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from curator.domain import lexicon as lx
from curator.domain.models import Turn, display_name

_QUOTED = re.compile(r'("[^"]*"|\u201c[^\u201d]*\u201d|(?<![a-z])\'[^\']*[.,!?]\'(?![a-z]))',
                     re.IGNORECASE)
_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)
# Object pronouns after a verb: "drags her out", "hauls him back", "pins him in the mud".
_OBJECT_PRONOUN = re.compile(r"\b([a-z]+)\s+(him|her)\b(?=\s+(?:out|clear|free|loose|back|aboard|up|"
                             r"away|across|off|under|onto|to|in|from|by|over|through|toward|towards)\b)")
_NOT_VERBS = frozenset({"to", "for", "with", "at", "of", "on", "from", "by", "and", "but", "that", "tells",
                        "told", "asks", "asked", "says", "said"})


def second_person(text: str, actor: str) -> str:
    """`text` with the actor named as "you"; unchanged when the actor is not named in it."""
    return _second_person(text, display_name(actor))


@lru_cache(maxsize=2048)
def _second_person(text: str, name: str) -> str:
    owned = re.compile(rf"\b{re.escape(name)}'s\b", re.IGNORECASE)
    named = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
    if not named.search(text):
        return text
    spoken_to = any(_YOU.search(part) for part in _unquoted(text))
    text = named.sub("you", owned.sub("your", text))
    if spoken_to:
        return text
    # Told about the actor: "Bran dragged her out by the collar" is done to the actor.
    return _OBJECT_PRONOUN.sub(lambda m: m.group(0) if m.group(1).lower() in _NOT_VERBS
                               else f"{m.group(1)} you", text)


def _unquoted(text: str) -> list[str]:
    return [part for part in _QUOTED.split(text) if part and not _QUOTED.fullmatch(part)]


_CLAUSES = re.compile(r"(?<=[.;!?])\s+|\s+(?:but|while|whereupon|until)\s+")
# "You pry the jaws open until Wolf pulls his leg free": what follows "until" after the actor's
# own deed is that deed's result, so it stays in the actor's clause.
_RESULT = re.compile(r"\s+until\s+")
_PRONOUNS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their"})

@dataclass
class Clause:
    text: str
    words: list[str]
    agent: str | None  # the first non-actor character named in it (or carried by a pronoun)
    named: list[str]
    said: str = ""  # the game's own words (`text` is them in the actor's second person)

    @property
    def by_actor(self) -> bool:
        """'You dig at the root…': the actor is the one acting in this clause."""
        return bool(self.words) and self.words[0] in ("you", "your")

    @property
    def about_actor(self) -> bool:
        return "you" in self.words or "your" in self.words


@lru_cache(maxsize=4096)
def _name_pattern(character: str) -> re.Pattern[str]:
    name = re.escape(display_name(character).lower())
    return re.compile(rf"\b{name}(?:'s)?\b")


def clauses(turn: Turn, reality: str) -> list[Clause]:
    """The clauses of `reality` (the turn's text in the actor's second person), each keeping
    the game's own words as its text when the two split alike."""
    cast = [c for c in turn.characters if c != turn.actor]
    out: list[Clause] = []
    read, told = _split(reality), _split(turn.reality)
    if len(read) != len(told):
        told = read
    for raw, own in zip(read, told, strict=True):
        text = raw.strip()
        if not text:
            continue
        lower = text.lower()
        positions = []
        for character in cast:
            match = _name_pattern(character).search(lower)
            if match:
                positions.append((match.start(), character))
        named = [c for _, c in sorted(positions)]
        words = lx.tokens(text)
        agent = named[0] if named else None
        if agent is None and out and out[-1].agent and (
                (words and words[0] in _PRONOUNS) or lx.ALIVE_BECAUSE.search(lower)
                or lx.BETRAY_DEED.search(lower) or lx.RESCUE.search(lower)):
            # "He growls": the last one acting acts again; "you are alive because of her": she did.
            agent = out[-1].agent
            named = [agent]
        out.append(Clause(text=text, words=words, agent=agent, named=named, said=own.strip() or text))
    return out


def _split(reality: str) -> list[str]:
    pieces: list[str] = []
    for sentence in re.split(r"(?<=[.;!?])\s+", reality):
        head, *results = _RESULT.split(sentence, maxsplit=1)
        parts = _CLAUSES.split(head)
        if results and lx.tokens(parts[-1])[:1] == ["you"]:
            parts[-1] = f"{parts[-1]} until {results[0]}"
            results = []
        pieces += parts + [p for r in results for p in _CLAUSES.split(r)]
    return pieces
