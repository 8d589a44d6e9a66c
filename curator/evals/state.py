"""The state of an eval run as its checks read it, and the words matching they share.

`RunState` holds the Curator, the turns played and their results, every change set so far
(labelled by the point it happened at), the drifts evolution cycles detected and the
`Snapshot`s the runner took at each point;
it caches what checks read at one point (`forget()` after the world changes). `CheckResult`
is one check's verdict. `matches` is the `words` rule of the case format: every entry at the
start of a word, case-insensitively, "a|b" for alternatives. `in_range` and `range_words`
read and word a `Range` (the numbers of the case format).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel

from curator import ChangeSet, Character, Curator, Drift, Memory, Turn, TurnResult
from curator.evals.kinds import Range

SIGN_MARGIN = 0.05  # positive: above +0.05; negative: below -0.05
NEUTRAL_BAND = 0.15  # neutral: within ±0.15


@dataclass
class Snapshot:
    """What the runner read at one point: (sentiment, bond) and (trust, rapport) per (owner,
    other), memory strengths and recall counts by memory id, and the attributes of each
    character an evolution cycle has moved (one never moved reads as the configured start)."""

    feelings: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    strengths: dict[str, float] = field(default_factory=dict)
    recall_counts: dict[str, int] = field(default_factory=dict)
    trust: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    attributes: dict[str, dict[str, float]] = field(default_factory=dict)


@dataclass
class RunState:
    """A run so far, as checks see it. The runner calls `at(point)` as it reaches each point."""

    curator: Curator
    turns: dict[str, Turn] = field(default_factory=dict)
    results: dict[str, TurnResult] = field(default_factory=dict)
    changes: list[tuple[str, ChangeSet]] = field(default_factory=list)  # (point, change set)
    snapshots: dict[str, Snapshot] = field(default_factory=dict)
    drifts: list[tuple[str, str, Drift]] = field(default_factory=list)  # (point, character, drift)
    cycles: list[str] = field(default_factory=list)  # the points an evolution cycle ran at
    order: list[str] = field(default_factory=list)  # points reached, in order
    _characters: dict[str, Character] = field(default_factory=dict)
    _memories: dict[str, list[Memory]] = field(default_factory=dict)

    def at(self, point: str) -> None:
        self.order.append(point)
        self.forget()

    def forget(self) -> None:
        """Drop what was read: the world changed (a turn or an action)."""
        self._characters.clear()
        self._memories.clear()

    def character(self, owner: str) -> Character:
        if owner not in self._characters:
            self._characters[owner] = self.curator.character(owner)
        return self._characters[owner]

    def memories(self, owner: str) -> list[Memory]:
        """Every memory of `owner`, live (strength faded to the clock) and archived."""
        if owner not in self._memories:
            c = self.character(owner)
            found = [*c.self_memories.recent_events, *c.self_memories.core_memories]
            for rel in c.relationships.values():
                found += [*rel.recent_memories, *rel.core_memories]
            self._memories[owner] = found + list(self.curator.archived(owner))
        return self._memories[owner]

    def index(self, point: str) -> int:
        return self.order.index(point) if point in self.order else -1


class CheckResult(BaseModel):
    """One expectation's verdict. `reason` is set on failure: expected …, found …."""

    index: int
    expect: str
    after: str
    passed: bool
    expected: str
    found: str
    reason: str = ""
    note: str = ""


# -- words and memories ---------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _pattern(entry: str) -> re.Pattern[str]:
    """One entry of `words`: alternatives split on '|', each matched at the start of a word."""
    alternatives = [re.escape(a.strip().lower()) for a in entry.split("|") if a.strip()]
    return re.compile(r"(?<![a-z0-9])(?:" + "|".join(alternatives) + ")")


def matches(text: str, words: list[str]) -> bool:
    lower = text.lower()
    return all(_pattern(w).search(lower) for w in words)


def hits(text: str, words: list[str]) -> int:
    lower = text.lower()
    return sum(1 for w in words if _pattern(w).search(lower))


def said(words: list[str]) -> str:
    return " and ".join(f"'{w}'" for w in words)


def shown(memory: Memory) -> str:
    text = memory.content if len(memory.content) <= 90 else memory.content[:87] + "…"
    return f"[{memory.tier.value}] \"{text}\" (strength {memory.strength:.2f})"


def listed(memories: list[Memory], limit: int = 3) -> str:
    more = f" and {len(memories) - limit} more" if len(memories) > limit else ""
    return "; ".join(shown(m) for m in memories[:limit]) + more


# -- numbers ---------------------------------------------------------------------------------


def range_words(r: Range) -> str:
    parts: list[str] = []
    if r.sign:
        parts.append(r.sign)
    if r.min is not None and r.min == r.max:
        parts.append(f"exactly {r.min:g}")
    else:
        if r.min is not None:
            parts.append(f"at least {r.min:g}")
        if r.max is not None:
            parts.append(f"at most {r.max:g}")
    if r.above_at:
        parts.append(f"higher than after {r.above_at}")
    if r.below_at:
        parts.append(f"lower than after {r.below_at}")
    return ", ".join(parts)


def pair_in_range(state: RunState, key: tuple[str, str], kind: Literal["feelings", "trust"],
                  rows: list[tuple[str, float, Range | None]]) -> tuple[bool, list[str]]:
    """Check a relationship's two values (sentiment and bond, or trust and rapport: `rows` in
    that order, a None range skipped) against their ranges, an earlier point's value read
    from the snapshots' `kind`. Returns the verdict and each checked value in words."""
    ok, found = True, []
    for pick, (name, value, r) in enumerate(rows):
        if r is None:
            continue

        def before(point: str, pick: int = pick) -> float | None:
            pairs = getattr(state.snapshots.get(point), kind, None)
            return pairs[key][pick] if pairs is not None and key in pairs else None

        good, text = in_range(value, r, before)
        ok &= good
        found.append(f"{name} {text}")
    return ok, found


def in_range(value: float, r: Range, before: Callable[[str], float | None], *, whole: bool = False
              ) -> tuple[bool, str]:
    """Is `value` in range `r`? `before(point)`: the value at an earlier point (None: not there).
    Returns the verdict and the value in words (`whole`: a count, shown without decimals)."""
    def text(number: float) -> str:
        return f"{number:.0f}" if whole else f"{number:+.3f}"

    ok = True
    notes: list[str] = []
    if r.sign == "positive":
        ok &= value > SIGN_MARGIN
    elif r.sign == "negative":
        ok &= value < -SIGN_MARGIN
    elif r.sign == "neutral":
        ok &= abs(value) <= NEUTRAL_BAND
    if r.min is not None:
        ok &= value >= r.min - 1e-9
    if r.max is not None:
        ok &= value <= r.max + 1e-9
    for point, higher in ((r.above_at, True), (r.below_at, False)):
        if point is None:
            continue
        then = before(point)
        if then is None:
            ok = False
            notes.append(f"none after {point}")
            continue
        notes.append(f"{text(then)} after {point}")
        ok &= value > then + 1e-9 if higher else value < then - 1e-9
    return ok, text(value) + (f" ({', '.join(notes)})" if notes else "")
