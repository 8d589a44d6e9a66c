"""A thread of memory: what one character holds about one other (or about itself), loaded
once per unit of work, and the small rules the pipeline names memories and reports them by.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from curator.domain.models import Intent, Memory, Relationship
from curator.domain.results import MemoryChange


@dataclass
class Thread:
    """One line of memory: an owner's memories about one subject (or about itself)."""

    owner: str
    subject: str | None
    recent: list[Memory]
    core: list[Memory]
    rel: Relationship | None = None



def unseen_intent() -> Intent:
    # An observer sees what happened, never what the actor meant or thought.
    return Intent(thought="", action="(unknown to you)")


def memory_id(turn_id: str, owner: str, index: int) -> str:
    """A memory's id from what it is of alone, for memories looked up by it again (a group's
    knowledge given to a member: api/knowing.py asks whether the member still holds it)."""
    return "m_" + _digest(turn_id, owner, index)[:16]


def formed_memory_id(at: datetime, turn_id: str, owner: str, index: int) -> str:
    """The id of a memory a turn forms: the turn's game time in seconds (fixed-width hex, so
    ids sort by it), then a digest of its turn, owner and index. Deterministic, so replaying
    a transcript after a crash yields the same world; the same in every attempt of a turn
    (a model's answers are keyed by inputs that hold these ids: rounds.py), where the memory's
    seq is not. The time comes first so that the new memories of a turn, and of the turns
    around it, sit together in every index keyed by memory id (the memories' own, appraisals,
    sources, links): a digest alone put each new memory on a page of its own in each of them,
    ~30 of the ~100 pages a busy turn writes (issue #17). The digest keeps ids apart within a
    second and across worlds (an import brings another world's memories)."""
    utc = at.astimezone(UTC).replace(tzinfo=None) if at.tzinfo is not None else at
    seconds = utc.toordinal() * 86_400 + utc.hour * 3_600 + utc.minute * 60 + utc.second
    return f"m_{seconds:010x}" + _digest(turn_id, owner, index)[:12]


def _digest(turn_id: str, owner: str, index: int) -> str:
    return hashlib.sha1(f"{turn_id}\x1f{owner}\x1f{index}".encode()).hexdigest()


def clamp(value: float, low: float = -1.0, high: float = 1.0) -> float:
    return max(low, min(high, value))


def memory_change(memory: Memory, reason: str | None = None) -> MemoryChange:
    return MemoryChange(memory_id=memory.id, owner=memory.owner, subject=memory.subject,
                        kind=memory.kind.value, content=memory.content, importance=memory.importance,
                        strength=round(memory.strength, 4), reason=reason)
