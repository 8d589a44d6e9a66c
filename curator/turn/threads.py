"""A thread of memory: what one character holds about one other (or about itself), loaded
once per unit of work, and the small rules the pipeline names memories and reports them by.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

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
    # Deterministic, so replaying a transcript after a crash yields the same world.
    return "m_" + hashlib.sha1(f"{turn_id}\x1f{owner}\x1f{index}".encode()).hexdigest()[:16]


def clamp(value: float, low: float = -1.0, high: float = 1.0) -> float:
    return max(low, min(high, value))


def memory_change(memory: Memory, reason: str | None = None) -> MemoryChange:
    return MemoryChange(memory_id=memory.id, owner=memory.owner, subject=memory.subject,
                        kind=memory.kind.value, content=memory.content, importance=memory.importance,
                        strength=round(memory.strength, 4), reason=reason)
