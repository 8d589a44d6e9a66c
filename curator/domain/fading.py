"""Fading: memory strength decays with game time and is refreshed by recall (the evolution
system's memory fading).

Strength runs 1.0 (vivid) → 0.0 (forgotten). Each kind decays at its own daily rate,
slowed by importance and by how often the memory was recalled. Decay is measured from
`strength_at`, the game time the strength was last set, so applying it twice never
counts the same days twice. Core memories never fade.
"""

from __future__ import annotations

from datetime import datetime

from curator.domain.models import Memory, MemoryKind, Tier

DECAY_RATES: dict[MemoryKind, float] = {
    MemoryKind.LESSON_LEARNED: 0.02,
    MemoryKind.PATTERN_RECOGNIZED: 0.03,
    MemoryKind.RELATIONSHIP_EVENT: 0.04,
    MemoryKind.FAILURE: 0.015,  # scars stick
    MemoryKind.TRIUMPH: 0.025,
    MemoryKind.USER_PREFERENCE: 0.01,
    MemoryKind.SYSTEM_KNOWLEDGE: 0.02,
    MemoryKind.DECISION_RECORD: 0.01,
    MemoryKind.PROCESS_NOTE: 0.03,
    MemoryKind.PERSONALITY_MOMENT: 0.005,  # almost permanent
    MemoryKind.ENCOUNTER: 0.03,
    MemoryKind.CONFLICT: 0.035,
    MemoryKind.KINDNESS: 0.03,
    MemoryKind.DANGER: 0.01,
    MemoryKind.BETRAYAL: 0.015,
    MemoryKind.WITNESSED: 0.04,
    MemoryKind.DISCOVERY: 0.02,
}
RECALL_REFRESH = 0.15  # the evolution system: each recall adds this much strength
REINFORCE_REFRESH = 0.1  # the evolution system: a repeated event refreshes its memory by this much
INACTIVE_BELOW = 0.2  # the evolution system: weaker memories are kept but not injected


def daily_rate(memory: Memory) -> float:
    return kind_rate(memory.kind, memory.importance, memory.recall_count)


def kind_rate(kind: MemoryKind, importance: float, recall_count: int) -> float:
    rate = DECAY_RATES.get(kind, 0.03) * (1.0 - importance * 0.5)
    if recall_count > 5:
        rate *= 0.5
    if recall_count > 20:
        rate *= 0.3
    return rate


def faded_strength(memory: Memory, strength_at: datetime, now: datetime) -> float:
    """The strength `memory` has at game time `now`, having been set at `strength_at`. A pinned or
    designer-written memory keeps its strength."""
    if memory.protected:
        return memory.strength
    return faded_value(memory.kind, memory.importance, memory.recall_count, memory.tier,
                       memory.strength, strength_at, now)


def faded_value(kind: MemoryKind, importance: float, recall_count: int, tier: Tier, strength: float,
                strength_at: datetime, now: datetime) -> float:
    """faded_strength from a memory's fields (recall.py scores rows without building Memory)."""
    if tier is Tier.CORE:
        return strength
    days = (now - strength_at).total_seconds() / 86_400.0
    if days <= 0:
        return strength
    return round(max(0.0, strength - kind_rate(kind, importance, recall_count) * days), 6)


def refresh(memory: Memory, now: datetime, amount: float = RECALL_REFRESH) -> None:
    """Recall or reinforcement: strength up, recall count up, last recalled now."""
    memory.strength = min(1.0, memory.strength + amount)
    memory.recall_count += 1
    memory.last_recalled = now
