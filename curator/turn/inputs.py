"""Inputs: what each decision step is told, as the template renders it and the fallback reads it.

An input holds only what the deciding character could know: its own persona, its own
memories and summaries, and the turn as it perceived it (an observer never sees the
actor's intent). The pipeline builds these from the store; templates and fallbacks never
touch the store themselves.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from curator.domain.models import Relationship, Turn
from curator.model.decision import MemoryView
from curator.turn.perspective import Aliases


class RelationView(BaseModel):
    """A relationship as a decision sees it: the summary, the feelings, the latest memories."""

    other: str
    summary: str
    sentiment: float
    bond: float
    interactions: int
    traits: dict[str, int]
    recent: list[MemoryView]
    core: list[MemoryView]

    @classmethod
    def of(cls, rel: Relationship, *, recent_limit: int = 10) -> RelationView:
        return cls(
            other=rel.other, summary=rel.long_term_summary, sentiment=rel.current_sentiment,
            bond=rel.overall_bond, interactions=rel.interactions, traits=dict(rel.traits),
            recent=[MemoryView.of(m) for m in rel.recent_memories[-recent_limit:]],
            core=[MemoryView.of(m) for m in rel.core_memories],
        )


class InterpretInput(BaseModel):
    perceiver: str
    role: Literal["actor", "observer"]
    persona: str
    turn: Turn
    relationships: dict[str, RelationView]
    recent_self: list[MemoryView]
    allowed_subjects: list[str]
    # The reality as this perceiver saw it: the game's words to the actor, retold for an
    # observer with the actor named where the game says "you" (a small model mixes them up).
    seen: str = ""
    # The other names of the turn's characters, from their personas ("the tinker", "Ilse"):
    # the rule reader takes them as the character (perspective.aliases_of).
    aliases: Aliases = ()


class FadeReviewInput(BaseModel):
    owner: str
    persona: str
    subject: str | None
    memory: MemoryView
    relationship: RelationView | None
    core_threshold: float


class CoreReviewInput(BaseModel):
    owner: str
    persona: str
    subject: str | None
    memory: MemoryView
    relationship: RelationView | None
    core_memories: list[MemoryView]
    core_cap: int
    core_threshold: float


class ReconcileInput(BaseModel):
    owner: str
    persona: str
    other: str
    memory: MemoryView
    relationship: RelationView
    contradiction: bool  # False: the summary is empty and this memory forms a first impression


class ConsolidateInput(BaseModel):
    owner: str
    persona: str
    other: str
    relationship: RelationView
    episode_core_threshold: float
