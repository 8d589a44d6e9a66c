"""Steps and deciders: each judgement is a trio (template, decision model, fallback) with one name.

A `Decider` answers a step. `FallbackDecider` always uses the deterministic fallback and
says why; the model-backed decider (curator/llm.py, a later issue) tries the template with
a model first and falls back, with the reason, when the model cannot answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from curator import appraisal, fallback, personality
from curator.appraisal import Appraisal, AppraiseInput
from curator.decisions import (
    CoreDecision,
    EpisodeConsolidation,
    FadeReview,
    IdentityNarrative,
    Interpretation,
    Reconciliation,
)
from curator.inputs import (
    ConsolidateInput,
    CoreReviewInput,
    FadeReviewInput,
    IdentityInput,
    InterpretInput,
    ReconcileInput,
)
from curator.results import StepRecord

I = TypeVar("I", bound=BaseModel)  # noqa: E741 - the conventional name for an input type
D = TypeVar("D", bound=BaseModel)


@dataclass(frozen=True)
class Step(Generic[I, D]):
    """One judgement: its name, its template in prompts/, its output model and its fallback."""

    name: str
    template: str
    decision: type[D]
    fallback: Callable[[I], D]


INTERPRET: Step[InterpretInput, Interpretation] = Step(
    "interpret", "interpret.j2", Interpretation, fallback.interpret)
FADE_REVIEW: Step[FadeReviewInput, FadeReview] = Step(
    "fade_review", "fade_review.j2", FadeReview, fallback.fade_review)
CORE_REVIEW: Step[CoreReviewInput, CoreDecision] = Step(
    "core_review", "promote.j2", CoreDecision, fallback.core_review)
RECONCILE: Step[ReconcileInput, Reconciliation] = Step(
    "reconcile", "reconcile.j2", Reconciliation, fallback.reconcile)
CONSOLIDATE: Step[ConsolidateInput, EpisodeConsolidation] = Step(
    "consolidate", "consolidate.j2", EpisodeConsolidation, fallback.consolidate)
IDENTITY: Step[IdentityInput, IdentityNarrative] = Step(
    "identity", "identity.j2", IdentityNarrative, personality.identity_narrative)
# Asked only when `AppraisalConfig.model` is on; otherwise the pipeline calls the fallback itself.
APPRAISE: Step[AppraiseInput, Appraisal] = Step(
    "appraise", "appraise.j2", Appraisal, appraisal.appraise)
ALL_STEPS: tuple[Step[Any, Any], ...] = (INTERPRET, FADE_REVIEW, CORE_REVIEW, RECONCILE, CONSOLIDATE,
                                         IDENTITY, APPRAISE)


class Decider(Protocol):
    """Answers a step for a character; returns the decision and a record of how it was made."""

    def decide(self, step: Step[I, D], inputs: I, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[D, StepRecord]: ...


class FallbackDecider:
    """The embedded default: every step is decided by its deterministic fallback."""

    def __init__(self, reason: str = "no model configured"):
        self.reason = reason

    def decide(self, step: Step[I, D], inputs: I, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[D, StepRecord]:
        decision = step.fallback(inputs)
        record = StepRecord(character=character, step=step.name, template=step.template,
                            decided_by="fallback", reason=self.reason)
        return decision, record
