"""Configuration: the thresholds and limits that shape how characters remember.

Defaults come from the seeds (seed 001: ten recent memories, core above 0.9; seed 000:
per-kind formation thresholds). A game changes them per world through `CuratorConfig`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from curator.models import MemoryKind

# Seed 000's MemoryFormation.SIGNIFICANCE_THRESHOLDS, plus the game kinds.
FORMATION_THRESHOLDS: dict[MemoryKind, float] = {
    MemoryKind.LESSON_LEARNED: 0.6,
    MemoryKind.PATTERN_RECOGNIZED: 0.5,
    MemoryKind.RELATIONSHIP_EVENT: 0.4,
    MemoryKind.FAILURE: 0.3,
    MemoryKind.TRIUMPH: 0.5,
    MemoryKind.USER_PREFERENCE: 0.2,
    MemoryKind.SYSTEM_KNOWLEDGE: 0.4,
    MemoryKind.DECISION_RECORD: 0.6,
    MemoryKind.PROCESS_NOTE: 0.5,
    MemoryKind.PERSONALITY_MOMENT: 0.8,
    MemoryKind.ENCOUNTER: 0.35,
    MemoryKind.CONFLICT: 0.4,
    MemoryKind.KINDNESS: 0.4,
    MemoryKind.DANGER: 0.3,
    MemoryKind.BETRAYAL: 0.4,
    MemoryKind.WITNESSED: 0.45,
    MemoryKind.DISCOVERY: 0.45,
}


class CuratorConfig(BaseModel):
    """Every knob of the memory flow, with the seeds' values as defaults."""

    recent_limit: int = Field(default=10, ge=1, le=100, description="recent memories per relationship")
    core_threshold: float = Field(default=0.9, ge=0.0, le=1.0, description="importance for core review")
    core_cap: int = Field(default=5, ge=1, le=50, description="core memories per relationship or self")
    formation_thresholds: dict[MemoryKind, float] = Field(
        default_factory=lambda: dict(FORMATION_THRESHOLDS))
    duplicate_similarity: float = Field(default=0.55, ge=0.0, le=1.0,
                                        description="word overlap that makes a memory a repeat")
    reconcile_min_importance: float = Field(default=0.5, ge=0.0, le=1.0)
    episode_core_threshold: float = Field(default=0.8, ge=0.0, le=1.0)
    episode_keep_recent: int = Field(default=3, ge=0, le=100,
                                     description="recent memories kept after an episode ends")
    busy_timeout_ms: int = Field(default=5_000, ge=0)

    def threshold(self, kind: MemoryKind) -> float:
        return self.formation_thresholds.get(kind, 0.5)
