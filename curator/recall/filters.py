"""Search filters: which of a character's memories a search may return (issue #19).

A `MemoryFilter` narrows `Curator.search` to memories of some kinds, of at least some
importance, formed within a span of world time, about some characters (the owner's own id
means its self memories), or in some tiers (recent, core, archived). `memory_filter` builds one
from what a caller sends (the API, the CLI, the MCP server) and refuses a bad value with
`InvalidInput` naming the field, so every front end refuses the same things the same way.

Ranking is not changed by a filter (ranking.py stays as it is): the filter says which seqs
ranking must leave out (`excluded_seqs`), and, for a query without a searchable word, which
memories are candidates at all (`newest_passing`). This module reads the memory tables; it
knows nothing of scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from curator.domain.errors import InvalidInput
from curator.domain.models import MemoryKind, Tier, normalize_character_id, parse_time
from curator.store.world import World

KINDS = tuple(kind.value for kind in MemoryKind)
TIERS = tuple(tier.value for tier in Tier)


@dataclass(frozen=True)
class MemoryFilter:
    """What a memory must be to pass; None (or empty) means any. Times are world time,
    both ends inclusive; `about` holds character ids, None standing for a self memory."""

    kinds: frozenset[MemoryKind] | None = None
    min_importance: float | None = None
    since: datetime | None = None
    until: datetime | None = None
    about: frozenset[str | None] | None = None
    tiers: frozenset[Tier] | None = None

    @property
    def active(self) -> bool:
        return any(v is not None for v in (self.kinds, self.min_importance, self.since, self.until,
                                           self.about, self.tiers))

    def passes(self, subject: str | None, kind: str, importance: float, tier: str,
               created_at: datetime) -> bool:
        return ((self.kinds is None or kind in self.kinds)
                and (self.min_importance is None or importance >= self.min_importance)
                and (self.since is None or created_at >= self.since)
                and (self.until is None or created_at <= self.until)
                and (self.about is None or subject in self.about)
                and (self.tiers is None or tier in self.tiers))


def memory_filter(owner: str, *, kinds: Iterable[str] | str | None = None,
                  min_importance: float | None = None, since: datetime | str | None = None,
                  until: datetime | str | None = None, about: Iterable[str] | str | None = None,
                  tiers: Iterable[str] | str | None = None) -> MemoryFilter:
    """A filter for `owner`'s memories from a caller's values, or `InvalidInput` naming the
    field of the first bad one. `about` names characters by id; `owner` itself stands for its
    self memories."""
    start = _time(since, "since")
    return MemoryFilter(
        kinds=_choices(kinds, "kind", KINDS, MemoryKind),
        min_importance=_importance(min_importance),
        since=start,
        until=_checked_span(start, _time(until, "until")),
        about=_subjects(owner, about),
        tiers=_choices(tiers, "tier", TIERS, Tier),
    )


def _values(value: Iterable[str] | str | None, field: str) -> list[str] | None:
    if value is None:
        return None
    items = [value] if isinstance(value, str) else value
    try:
        listed = list(items)
    except TypeError:
        raise InvalidInput(f"a name or a list of names, not {type(value).__name__}", field=field) from None
    if not listed:
        return None
    for item in listed:
        if not isinstance(item, str):
            raise InvalidInput(f"a name is text, not {type(item).__name__}", field=field)
    return listed


def _choices(value: Iterable[str] | str | None, field: str, known: tuple[str, ...], enum: Any) -> Any:
    listed = _values(value, field)
    if listed is None:
        return None
    chosen = set()
    for item in listed:
        key = item.strip().casefold()
        if key not in known:
            raise InvalidInput(f"unknown {field} {item[:40]!r} (one of: {', '.join(known)})", field=field)
        chosen.add(enum(key))
    return frozenset(chosen)


def _importance(value: float | None) -> float | None:
    if value is None:
        return None
    # bool is an int: True is not an importance.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput(f"a number 0..1, not {value!r}"[:80], field="min_importance")
    if not 0.0 <= value <= 1.0:
        raise InvalidInput(f"must be 0..1, got {value}", field="min_importance")
    return float(value)


def _time(value: datetime | str | None, field: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError as error:
        raise InvalidInput(str(error), field=field) from error


def _checked_span(since: datetime | None, until: datetime | None) -> datetime | None:
    if since is not None and until is not None and until < since:
        raise InvalidInput(f"{until.isoformat()} is before since {since.isoformat()}", field="until")
    return until


def _subjects(owner: str, value: Iterable[str] | str | None) -> frozenset[str | None] | None:
    listed = _values(value, "about")
    if listed is None:
        return None
    subjects: set[str | None] = set()
    for item in listed:
        try:
            key = normalize_character_id(item)
        except ValueError as error:
            raise InvalidInput(str(error), field="about") from error
        # The owner's own id is its self memories (stored with no subject).
        subjects.add(None if key == owner else key)
    return frozenset(subjects)


_COLUMNS = "seq, subject, kind, importance, tier, created_at"


def _scan(world: World, owner: str, wanted: MemoryFilter) -> list[tuple[int, datetime, bool]]:
    """(seq, formed at, passes?) for every memory of the owner, live or archived."""
    out: list[tuple[int, datetime, bool]] = []
    for table, archived in (("memories", False), ("memory_archive", True)):
        for seq, subject, kind, importance, tier, created in world.conn.execute(
                f"select {_COLUMNS} from {table} where owner = ?", (owner,)):
            # Times compared as datetimes: ISO text with and without fractions sorts wrongly.
            formed = datetime.fromisoformat(created)
            ok = wanted.passes(subject, kind, importance, Tier.ARCHIVED.value if archived else tier, formed)
            out.append((int(seq), formed, ok))
    return out


def partition(world: World, owner: str, wanted: MemoryFilter, newest: int
              ) -> tuple[frozenset[int], list[int]]:
    """The seqs of the owner's memories the filter leaves out (ranking's `exclude`), and the
    seqs of its `newest` memories (by world time) that pass, newest first."""
    scanned = _scan(world, owner, wanted)
    passing = sorted(((formed, seq) for seq, formed, ok in scanned if ok), reverse=True)
    return frozenset(seq for seq, _, ok in scanned if not ok), [seq for _, seq in passing[:newest]]
