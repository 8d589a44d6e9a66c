"""Configuration: the thresholds and limits that shape how characters remember.

Defaults: ten recent memories per relationship and core above 0.9 (the two-animals memory
flow), per-kind formation thresholds (the evolution system). A game changes them per world
through `CuratorConfig`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, model_validator

from curator.domain.models import MemoryKind, normalize_label
from curator.domain.relevance import RelevanceWeights

# The evolution system's MemoryFormation.SIGNIFICANCE_THRESHOLDS, plus the game kinds.
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

    In the spirit of Generative Agents (recency + importance + relevance) and the evolution system's
    `calculate_memory_relevance`; `core` and `present` are bonuses for core memories and for
    memories about the characters in the scene."""

    relevance: float = Field(default=1.0, ge=0.0, le=10.0, description="match to the situation")
    recency: float = Field(default=0.3, ge=0.0, le=10.0, description="decay on game time")
    strength: float = Field(default=0.2, ge=0.0, le=10.0, description="how faded it is")
    importance: float = Field(default=0.3, ge=0.0, le=10.0)
    core: float = Field(default=0.3, ge=0.0, le=10.0, description="bonus for core memories")
    present: float = Field(default=0.3, ge=0.0, le=10.0,
                           description="bonus for memories about characters in the scene")
    # A domain match outranks an intent match (the evolution system weighs them +0.4 and +0.2): a memory
    # of the task's domain (`domain=`) counts as much as a memory whose words match the situation best.
    domain: float = Field(default=1.0, ge=0.0, le=10.0,
                          description="bonus for memories of the task's domain (when one is given)")


class RecallConfig(BaseModel):
    """Recall and context assembly: scoring weights, search shape and the context's parts."""

    weights: RecallWeights = Field(default_factory=RecallWeights)
    relevance: RelevanceWeights = Field(default_factory=RelevanceWeights)  # the cues beyond the words
    # `search()` ranks by what matches the words; the other parts only break near-ties.
    search_weights: RecallWeights = Field(default_factory=lambda: RecallWeights(
        relevance=1.0, recency=0.02, strength=0.02, importance=0.02, core=0.02, present=0.0, domain=1.0))
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
    mood_hours: float = Field(default=12.0, ge=0.0, le=24 * 30,
                              description="the mood reads the memories of this much game time (0: off)")
    max_goals: int = Field(default=3, ge=0, le=50, description="active goals in the context, at most")
    max_abilities: int = Field(default=4, ge=0, le=50, description="skills in the context, at most")
    min_attempts: int = Field(default=2, ge=1, le=1_000,
                              description="tries before a skill is shown in the context")
    encoding: str = Field(default="cl100k_base", description="tiktoken encoding for budgets")
    default_max_tokens: int = Field(default=1_000, ge=50, le=1_000_000)
    # Semantic recall (recall/semantic.py), used only once a world names an embedder.
    semantic_weight: float = Field(default=0.3, ge=0.0, le=10.0,
                                   description="an embedding match's share of relevance (0: words only)")
    semantic_candidates: int = Field(default=20, ge=0, le=500,
                                     description="best embedding matches added to the candidates")


DEFAULT_ATTRIBUTES = ("thoroughness", "speed", "creativity", "caution", "independence", "collaboration",
                      "curiosity", "resilience")


class EvolutionConfig(BaseModel):
    """Evolution cycles: which attributes characters have and how fast they drift.

    Attributes start at `start` and stay within [`low`, `high`]; one memory moves one
    attribute by at most `max_step` (less near the bounds), one cycle moves it by at most
    `cycle_cap`. Trust and rapport in another character move by at most `relation_step` per
    memory (a betrayal by up to eight times that) and `relation_cycle_cap` per cycle."""

    attributes: list[str] = Field(default_factory=lambda: list(DEFAULT_ATTRIBUTES), min_length=1,
                                  max_length=32)
    start: float = Field(default=0.5, ge=0.0, le=1.0)
    low: float = Field(default=0.05, ge=0.0, le=1.0)
    high: float = Field(default=0.95, ge=0.0, le=1.0)
    max_step: float = Field(default=0.03, gt=0.0, le=0.5, description="per memory")
    cycle_cap: float = Field(default=0.12, gt=0.0, le=1.0, description="per attribute per cycle")
    relation_step: float = Field(default=0.04, gt=0.0, le=0.5, description="trust/rapport per memory")
    relation_cycle_cap: float = Field(default=0.3, gt=0.0, le=1.0)
    vivid_above: float = Field(default=0.7, ge=0.0, le=1.0, description="strength of a vivid memory")

    @model_validator(mode="after")
    def _bounds(self) -> EvolutionConfig:
        if not self.low <= self.start <= self.high:
            raise ValueError("evolution needs low <= start <= high")
        names = [normalize_label(a) for a in self.attributes]
        if len(set(names)) != len(names):
            raise ValueError("attribute names must be unique")
        self.attributes = names
        return self


# The appraisal design's archetype evaluations, as lenses a game can rename, add to or drop. Each lens's
# threshold keeps a memory by itself (the appraisal design `should_retain`); they are set so that only
# an event that plainly matters in that way clears one: a wrong seen done (moral), harm or a
# threat to life (danger), a betrayal or a rescue (social), an intense feeling (emotional).
DEFAULT_LENSES: dict[str, tuple[float, str]] = {
    "emotional": (0.8, "how strongly it was felt"),
    "practical": (0.7, "what it means for food, shelter, tools and goals"),
    "social": (0.7, "what it says about someone and changes between you"),
    "moral": (0.6, "right and wrong: a wrong done, a kindness, a betrayal"),
    "danger": (0.65, "harm, threats to life, what to fear next time"),
}


class Lens(BaseModel):
    """One way of judging a memory (the appraisal design's archetypes): its name, the priority at which
    it keeps a memory by itself, and what it asks (the model is shown this). `words` drive
    the fallback for a lens of the game's own (stems, like lexicon.py's); the five default
    lenses have their own rules (appraisal.py)."""

    name: str = Field(min_length=1, max_length=40)
    threshold: float = Field(default=0.7, ge=0.0, le=1.0, description="keeps a memory by itself")
    description: str = Field(default="", max_length=200)
    words: list[str] = Field(default_factory=list, max_length=200)


class AppraisalConfig(BaseModel):
    """Appraisal: each drafted memory judged through several lenses.

    The lens priorities combine, weighted by the character (`weights_for`), into a
    priority that can lift the memory's importance; a memory is kept when its importance
    reaches the overall threshold (by default each kind's formation threshold, so ordinary
    memories keep the meaning the evolution system gives them), or any lens reaches its own threshold,
    or it is strongly linked (`link_threshold`) to a memory its owner already holds.
    `model`: ask a model for the appraisal (one call per perceiver with drafts, per turn);
    off by default, and then the fallback appraises and nothing is asked."""

    lenses: list[Lens] = Field(default_factory=lambda: [
        Lens(name=name, threshold=threshold, description=about)
        for name, (threshold, about) in DEFAULT_LENSES.items()], min_length=1, max_length=12)
    overall_threshold: float | None = Field(
        default=None, ge=0.0, le=1.0,
        description="importance that keeps a memory; None: its kind's formation threshold")
    link_threshold: float = Field(default=0.8, ge=0.0, le=1.0,
                                  description="a link this strong keeps a memory by itself")
    link_floor: float = Field(default=0.25, ge=0.0, le=1.0, description="weaker links are not kept")
    max_links: int = Field(default=4, ge=0, le=20, description="links kept per memory, strongest first")
    model: bool = Field(default=False, description="ask the model (else the fallback appraises)")
    weights: dict[str, float] = Field(default_factory=dict,
                                      description="lens weights for every character (default 1.0)")
    character_weights: dict[str, dict[str, float]] = Field(
        default_factory=dict, description="per-character lens weights, over `weights`")

    @model_validator(mode="after")
    def _known_lenses(self) -> AppraisalConfig:
        for lens in self.lenses:
            lens.name = normalize_label(lens.name)
        names = [lens.name for lens in self.lenses]
        if len(set(names)) != len(names):
            raise ValueError("lens names must be unique")
        for who, weights in [("weights", self.weights), *self.character_weights.items()]:
            for name, weight in weights.items():
                if name not in names:
                    raise ValueError(f"{who}: {name!r} is not a lens (lenses: {', '.join(names)})")
                if not 0.0 <= weight <= 10.0:
                    raise ValueError(f"{who}: the weight of {name!r} must be within 0..10")
        return self

    @property
    def lens_names(self) -> list[str]:
        return [lens.name for lens in self.lenses]

    def weights_for(self, character: str) -> dict[str, float]:
        """The character's weight for each lens: 1.0, over which the world's `weights`, then
        the character's own (`character_weights`) are laid."""
        own = self.character_weights.get(character, {})
        return {name: own.get(name, self.weights.get(name, 1.0)) for name in self.lens_names}


class CuratorConfig(BaseModel):
    """Every knob of the memory flow, with the design's values as defaults."""

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
    busy_timeout_ms: int = Field(default=30_000, ge=0,
                                 description="how long a write waits its turn before WorldLocked")
    recall: RecallConfig = Field(default_factory=RecallConfig)
    evolution: EvolutionConfig = Field(default_factory=EvolutionConfig)
    appraisal: AppraisalConfig = Field(default_factory=AppraisalConfig)

    def threshold(self, kind: MemoryKind) -> float:
        return self.formation_thresholds.get(kind, 0.5)
