"""Results: what a turn (or an episode end, or a fading pass) changed, and who decided each step.

A `TurnResult` is what `Curator.observe` returns and what the turn log stores, so that a
re-delivered turn gets back exactly the result of its first delivery.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class MemoryChange(BaseModel):
    """One memory that was formed, reinforced, archived, promoted or forgotten."""

    memory_id: str
    owner: str
    subject: str | None
    kind: str
    content: str
    importance: float
    strength: float
    reason: str | None = None
    # Formed memories the old formation threshold would have dropped: what kept them
    # ("overall", a lens name, or "link"); the reason says by how much ("kept: moral 0.72 ≥ 0.60").
    kept_by: str | None = None


class SummaryChange(BaseModel):
    owner: str
    other: str
    summary: str
    step: str
    reason: str


class SkippedDraft(BaseModel):
    """A memory the interpretation proposed that fell under its kind's formation threshold."""

    owner: str
    subject: str | None
    kind: str
    importance: float
    threshold: float


class StepRecord(BaseModel):
    """Which decider answered one step for one character, and why."""

    character: str
    step: str
    template: str
    decided_by: Literal["model", "fallback"]
    call_id: str | None = None  # the row in the call log, when a model was asked
    reason: str | None = None


class TurnReading(BaseModel):
    """How one perceiver read a turn: the gap, who helped and who harmed, how its feelings
    moved and how much the turn mattered (`significance`, a band: trivial, minor, notable,
    major or defining), whether a model or the rules read it."""

    character: str
    gap: str
    significance: str
    helped: list[str] = Field(default_factory=list)
    harmed: list[str] = Field(default_factory=list)
    betrayed_by: list[str] = Field(default_factory=list)
    feelings: dict[str, Literal["positive", "neutral", "negative"]] = Field(default_factory=dict)
    harm: bool = False
    danger: bool = False
    decided_by: Literal["model", "fallback"] = "fallback"


class ChangeSet(BaseModel):
    """Everything a unit of work changed. A `TurnResult` is a ChangeSet for one turn."""

    created_characters: list[str] = Field(default_factory=list)
    formed: list[MemoryChange] = Field(default_factory=list)
    reinforced: list[MemoryChange] = Field(default_factory=list)
    skipped: list[SkippedDraft] = Field(default_factory=list)
    archived: list[MemoryChange] = Field(default_factory=list)
    forgotten: list[MemoryChange] = Field(default_factory=list)
    promoted: list[MemoryChange] = Field(default_factory=list)
    demoted: list[MemoryChange] = Field(default_factory=list)
    summaries_revised: list[SummaryChange] = Field(default_factory=list)
    conflicts_resolved: list[SummaryChange] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list)
    readings: list[TurnReading] = Field(default_factory=list)  # a turn's: one per perceiver

    def fallbacks_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for step in self.steps:
            if step.decided_by == "fallback":
                key = step.reason or "unknown"
                counts[key] = counts.get(key, 0) + 1
        return counts


class TurnResult(ChangeSet):
    turn_id: str
    world_time: str
    duplicate: bool = False  # True when this turn id had already been observed
    elapsed_ms: float = 0.0
