"""The steps a world is curated with: each a trio (template, decision model, fallback) with one name.

The turn's own steps are here with their fallbacks (fallback.py, appraisal.py); the identity
step is evolution's (`curator.evolution.identity`). `ALL_STEPS` is every step a model may be
asked, for tests, fixtures and benchmarks that go through them all.
"""

from __future__ import annotations

from typing import Any

from curator.evolution.identity import IDENTITY
from curator.model.steps import Step
from curator.turn import appraisal, fallback
from curator.turn.appraisal import Appraisal, AppraiseInput
from curator.turn.decisions import (
    CoreDecision,
    EpisodeConsolidation,
    FadeReview,
    Interpretation,
    Reconciliation,
)
from curator.turn.full_reading import interpretation_of_full
from curator.turn.inputs import (
    ConsolidateInput,
    CoreReviewInput,
    FadeReviewInput,
    InterpretInput,
    ReconcileInput,
)
from curator.turn.judgement import FullJudgementAnswer, Judgement, JudgementAnswer, answer_of, full_answer_of
from curator.turn.judging import interpretation_from


def _judgement(decision: Interpretation) -> Judgement:
    if decision.judgement is None:
        raise ValueError("this interpretation carries no judgement")
    return decision.judgement


def _answer_of(decision: Interpretation) -> JudgementAnswer:
    return answer_of(_judgement(decision))


def _interpretation_of(inp: InterpretInput, answer: JudgementAnswer) -> Interpretation:
    # The model rates the turn and words the memory; the rules read the deeds and file the
    # turn, on the same input (judgement.py says why), and the model's rating and words are
    # laid over that filing (judging.interpretation_from).
    rules = fallback.interpret(inp)
    return interpretation_from(inp, answer.over(_judgement(rules)), rules)


def _full_answer_of(decision: Interpretation) -> FullJudgementAnswer:
    return full_answer_of(_judgement(decision))


# A model reading in full (`ModelSettings.reading`) is asked for the deeds and the gap too.
INTERPRET_FULL: Step[InterpretInput, Interpretation] = Step(
    "interpret", "interpret_full.j2", Interpretation, fallback.interpret, answer=FullJudgementAnswer,
    from_answer=interpretation_of_full, to_answer=_full_answer_of)
# A model is asked for a small JudgementAnswer; the Interpretation is built from it by rules.
INTERPRET: Step[InterpretInput, Interpretation] = Step(
    "interpret", "interpret.j2", Interpretation, fallback.interpret, answer=JudgementAnswer,
    from_answer=_interpretation_of, to_answer=_answer_of, detailed=INTERPRET_FULL)
FADE_REVIEW: Step[FadeReviewInput, FadeReview] = Step(
    "fade_review", "fade_review.j2", FadeReview, fallback.fade_review)
CORE_REVIEW: Step[CoreReviewInput, CoreDecision] = Step(
    "core_review", "promote.j2", CoreDecision, fallback.core_review)
RECONCILE: Step[ReconcileInput, Reconciliation] = Step(
    "reconcile", "reconcile.j2", Reconciliation, fallback.reconcile)
CONSOLIDATE: Step[ConsolidateInput, EpisodeConsolidation] = Step(
    "consolidate", "consolidate.j2", EpisodeConsolidation, fallback.consolidate)
# Asked only when `AppraisalConfig.model` is on; otherwise the pipeline calls the fallback itself.
APPRAISE: Step[AppraiseInput, Appraisal] = Step(
    "appraise", "appraise.j2", Appraisal, appraisal.appraise)
ALL_STEPS: tuple[Step[Any, Any], ...] = (INTERPRET, FADE_REVIEW, CORE_REVIEW, RECONCILE, CONSOLIDATE,
                                         IDENTITY, APPRAISE)

__all__ = ["ALL_STEPS", "APPRAISE", "CONSOLIDATE", "CORE_REVIEW", "FADE_REVIEW", "IDENTITY", "INTERPRET",
           "INTERPRET_FULL", "RECONCILE"]
