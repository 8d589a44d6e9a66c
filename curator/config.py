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


class RecallWeights(BaseModel):
    """How much each part of a memory's score counts (each part is normalised to 0..1).

    In the spirit of Generative Agents (recency + importance + relevance) and seed 000's
    `calculate_memory_relevance`; `core` and `present` are bonuses for core memories and for
    memories about the characters in the scene."""

    relevance: float = Field(default=1.0, ge=0.0, le=10.0, description="match to the situation")
    recency: float = Field(default=0.3, ge=0.0, le=10.0, description="decay on game time")
    strength: float = Field(default=0.2, ge=0.0, le=10.0, description="how faded it is")
    importance: float = Field(default=0.3, ge=0.0, le=10.0)
    core: float = Field(default=0.3, ge=0.0, le=10.0, description="bonus for core memories")
    present: float = Field(default=0.3, ge=0.0, le=10.0,
                           description="bonus for memories about characters in the scene")


class RecallConfig(BaseModel):
    """Recall and context assembly: scoring weights, search shape and the context's parts."""

    weights: RecallWeights = Field(default_factory=RecallWeights)
    # `search()` ranks by what matches the words; the other parts only break near-ties.
    search_weights: RecallWeights = Field(default_factory=lambda: RecallWeights(
        relevance=1.0, recency=0.02, strength=0.02, importance=0.02, core=0.02, present=0.0))
    recency_half_life_hours: float = Field(default=72.0, gt=0.0,
                                           description="game hours for recency to halve")
    episode_gap_minutes: float = Field(default=60.0, gt=0.0,
                                       description="a longer gap in game time starts a new episode")
    short_term_minutes: float = Field(default=60.0, ge=0.0,
                                      description="the short-term window: the last stretch of game time")
    short_term_limit: int = Field(default=8, ge=0, le=100)
    candidates: int = Field(default=200, ge=10, le=2_000,
                            description="full-text matches scored, at most (4 per memory asked for)")
    max_memories: int = Field(default=12, ge=0, le=200, description="relevant memories at most")
    scene_per_tier: int = Field(default=10, ge=0, le=100,
                                description="newest recent and core memories of the self and of each "
                                            "character present that are always candidates")
    encoding: str = Field(default="cl100k_base", description="tiktoken encoding for budgets")
    default_max_tokens: int = Field(default=1_000, ge=50, le=1_000_000)


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
    recall: RecallConfig = Field(default_factory=RecallConfig)

    def threshold(self, kind: MemoryKind) -> float:
        return self.formation_thresholds.get(kind, 0.5)
