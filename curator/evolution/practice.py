"""Practice (the abilities layer of the context): what each character has tried, by skill, and how it went.

This module owns the `practice` table. Every turn a character acts in adds one attempt to a
skill: the turn's `domain` when the game names one, else the verb of the intent ("Climb the
old oak" → climb), skipping "try to" and the like. Everyday acts (walk, sleep, eat, look…)
are not skills and are not tallied unless the game names them as a domain. The turn's
reading (the model's or the fallback's `gap`) says whether it went as meant, went wrong
(failed, blocked, thwarted) or neither (mixed, surprised). A re-delivered turn is not
counted twice: the turn log stops it before the pipeline runs.

`abilities` turns the tallies into the lines of the context's abilities layer, the most
telling first: a skill tried often, that mostly goes well or mostly goes wrong. A verb the
game did not name as a domain is shown only once something has gone wrong with it: an act
that has never once failed ("ignore Fox", "scratch my back") is a habit, not a skill learned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from curator.domain.lexicon import DETERMINERS
from curator.domain.models import Gap, Turn, iso, parse_time
from curator.store.world import World

MAX_SKILL = 40
# Words before the verb that say how or whether, not what: "try to", "carefully", "go and".
_LEAD = frozenset({"try", "tries", "tried", "attempt", "attempts", "attempted", "to", "and", "i", "we",
                   "then", "again", "once", "more", "carefully", "quickly", "slowly", "quietly",
                   "finally", "just", "still", "also", "first", "now", "i'll", "i'm", "i'd", "we'll",
                   "let", "me", "will", "shall", "must", "should"})
# Everyday acts every creature does all day: tallying them would bury the skills it has.
ROUTINE = frozenset({
    "be", "go", "come", "walk", "wander", "head", "move", "return", "leave", "stay", "wait", "rest",
    "sleep", "nap", "doze", "wake", "sit", "lie", "stand", "stretch", "eat", "drink", "look", "watch",
    "think", "listen", "see", "say", "tell", "ask", "talk", "call", "greet", "nod", "keep", "let",
    "get", "take", "make", "do", "have", "use", "give", "put", "turn"})
_FIELDS = ("skill", "attempts", "went_as_meant", "went_wrong", "named", "last_turn", "last_at")
_WORD = re.compile(r"[a-z][a-z'-]*")
_WENT_AS_MEANT = frozenset({Gap.SUCCEEDED, Gap.HELPED})
_WENT_WRONG = frozenset({Gap.FAILED, Gap.BLOCKED, Gap.THWARTED})


@dataclass(frozen=True)
class Ability:
    """One skill's record: tries, how many went as meant and how many went wrong."""

    skill: str
    attempts: int
    went_as_meant: int
    went_wrong: int
    last_at: datetime
    named: bool = False  # the game named it as a turn's domain

    @property
    def verdict(self) -> str:
        """The record in a few words, as the character would put it to itself."""
        rate = self.went_as_meant / self.attempts
        wrong = self.went_wrong / self.attempts
        if rate >= 0.75:
            return "you are good at it" if self.attempts >= 5 else "it has gone well so far"
        if rate >= 0.6:
            return "it mostly goes well"
        if rate <= 0.25 and wrong < 0.35:
            return "it seldom goes quite as you meant"
        if wrong >= 0.6:
            return "it mostly goes wrong for you"
        if wrong >= 0.35:
            return "it often goes wrong for you"
        return "it goes either way"

    @property
    def telling(self) -> float:
        """How much the record says: many tries, far from a coin toss."""
        rate = self.went_as_meant / self.attempts
        return self.attempts * (0.5 + abs(rate - 0.5))


def skill_of(turn: Turn) -> tuple[str, bool] | None:
    """The skill a turn exercises and whether the game named it: its domain, else the intent's
    verb; None for an everyday act."""
    if turn.domain and (skill := " ".join(turn.domain.casefold().split())[:MAX_SKILL]):
        return skill, True
    for word in _WORD.findall(turn.intent.action.casefold()):
        if word in _LEAD:
            continue
        return None if word in ROUTINE or word in DETERMINERS or len(word) < 3 else (word[:MAX_SKILL], False)
    return None


def record(world: World, turn: Turn, gap: Gap) -> str | None:
    """Tally the actor's attempt at the turn's skill; returns the skill (None if not one)."""
    found = skill_of(turn)
    if found is None:
        return None
    skill, named = found
    good, bad = int(gap in _WENT_AS_MEANT), int(gap in _WENT_WRONG)
    world.conn.execute(
        "insert into practice (character, skill, attempts, went_as_meant, went_wrong, named, last_turn, "
        "last_at) values (?, ?, 1, ?, ?, ?, ?, ?) on conflict (character, skill) do update set "
        "attempts = attempts + 1, went_as_meant = went_as_meant + excluded.went_as_meant, "
        "went_wrong = went_wrong + excluded.went_wrong, named = max(named, excluded.named), "
        "last_turn = excluded.last_turn, last_at = max(last_at, excluded.last_at)",
        (turn.actor, skill, good, bad, int(named), turn.id, iso(turn.world_time)))
    return skill


def abilities(world: World, character: str, *, limit: int | None = None, min_attempts: int = 1,
              habits: bool = False) -> list[Ability]:
    """A character's skills, the most telling record first (all of them for limit None);
    `habits=True` also lists verbs that have never gone wrong."""
    rows = world.conn.execute(
        "select skill, attempts, went_as_meant, went_wrong, last_at, named from practice "
        "where character = ? and attempts >= ?", (character, min_attempts)).fetchall()
    found = [Ability(skill=r[0], attempts=r[1], went_as_meant=r[2], went_wrong=r[3],
                     last_at=datetime.fromisoformat(r[4]), named=bool(r[5]))
             for r in rows if habits or r[5] or r[3]]
    found.sort(key=lambda a: (-a.telling, -a.last_at.timestamp(), a.skill))
    return found if limit is None else found[:limit]


def export_practice(world: World, character: str) -> list[dict[str, object]]:
    """A character's tallies as plain JSON values (export documents)."""
    rows = world.conn.execute(
        "select skill, attempts, went_as_meant, went_wrong, named, last_turn, last_at from practice "
        "where character = ? order by skill", (character,)).fetchall()
    return [dict(zip(_FIELDS, r, strict=True)) | {"named": bool(r[4])} for r in rows]


def import_practice(world: World, character: str, doc: dict[str, object]) -> None:
    """Write one tally of an export document (inside the caller's transaction, after the
    character's tallies were cleared); a malformed one raises KeyError or ValueError."""
    attempts, good, bad = (int(str(doc[k])) for k in ("attempts", "went_as_meant", "went_wrong"))
    if not 0 <= good + bad <= attempts:
        raise ValueError(f"went_as_meant + went_wrong ({good} + {bad}) is more than attempts ({attempts})")
    world.conn.execute(
        "insert into practice (character, skill, attempts, went_as_meant, went_wrong, named, last_turn, "
        "last_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
        (character, str(doc["skill"])[:MAX_SKILL], attempts, good, bad, int(bool(doc.get("named"))),
         str(doc["last_turn"]), iso(parse_time(str(doc["last_at"])))))
