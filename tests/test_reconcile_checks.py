"""A contradiction's summary holds the new memory beside the old view: a model's summary that
keeps only the old one ("Wolf is mostly territorial, but he can surprise me with fear", just
after Wolf saved Bear's life) is sent back saying what the memory shows, and the second answer
is used. Model answers are scripted (tests/fixtures/scripted/one_sided.json), served through
respx by test_answer_checks' feud world."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import scripted
from pydantic import ValidationError
from test_answer_checks import retried_once

from curator.domain.traits import trait_sides
from curator.model.decision import MemoryView
from curator.model.llm import ModelSettings
from curator.turn.decisions import Reconciliation, reconcile_context
from curator.turn.inputs import RelationView

RESCUE = MemoryView(id="m1", subject="wolf", kind="kindness", content="I nearly drowned crossing the "
                    "frozen river, but Wolf saved my life.", emotional_impact="grateful", valence=0.8,
                    importance=0.9, strength=1.0, recall_count=0, created_at="2025-01-09T15:00:00Z",
                    traits=["protective"])
ANSWER = {"conflict": True, "bond_shift": 0.1, "reason": "He saved me."}
WOLF = RelationView(other="wolf", summary="Wolf is mostly territorial.", sentiment=-0.6, bond=-0.3,
                    interactions=4, traits={"territorial": 3}, recent=[], core=[])


@pytest.mark.parametrize(("text", "sides"), [
    ("Wolf is mostly territorial, but he can surprise me with loyalty.", {1, -1}),  # named traits
    ("Fox is kind to me.", {1}),
    ("Fox lied to me again.", {-1}),  # a deed of one side
    ("Wolf saved me from the ice.", {1}),
    ("Wolf is mostly territorial, but he can surprise me with fear.", {-1}),
    ("I do not know what to make of him.", set()),
    ("I meant to thank him; he is himself again, a decent sort.", set()),  # no trait in "meant", "decent"
    ("His aggression scares me, but his bravery and kindness are real.", {1, -1}),
    ("Wolf is territorial, but he also shows signs of aggression and selfishness.", {-1}),  # no guiding
    ("Wolf showed me the ford.", {1}),
    ("I remember Wolf as protective. He turns his back and does not chase me away.", {1}),  # no chase
])
def test_the_sides_a_text_takes(text: str, sides: set[int]) -> None:
    assert trait_sides(text) == sides


def _checked(summary: str, memory: MemoryView = RESCUE) -> Reconciliation:
    return Reconciliation.model_validate({**ANSWER, "summary": summary},
                                         context=reconcile_context(memory, WOLF))


@pytest.mark.parametrize("summary", [
    "Wolf is mostly territorial, but he can surprise me with fear.",  # the old side twice
    "Wolf is mostly selfish, but he can surprise me with aggression.",
    "I now see Wolf as more cautious. I do not know what to make of him.",  # neither side, nor the memory
])
def test_a_summary_that_keeps_only_the_old_view_is_refused_with_what_to_say(summary: str) -> None:
    with pytest.raises(ValidationError) as refused:
        _checked(summary)
    assert "summary must hold the new memory beside the old view" in str(refused.value)
    assert "'protective'" in str(refused.value)


@pytest.mark.parametrize("summary", [
    "Wolf is mostly territorial, but he can surprise me with loyalty.",  # reconcile.j2's own example
    "Wolf is territorial, yet he risked himself for me. I owe him my life: he saved me.",
    "Wolf drives me off my spot, but when I nearly drowned crossing the frozen river he was there.",
])
def test_a_summary_that_holds_the_new_memory_passes(summary: str) -> None:
    assert _checked(summary).summary == summary


def test_a_memory_of_both_sides_is_checked_for_the_side_the_old_view_lacks() -> None:
    # The recorded case (evals/cases/long_two_animals.yaml, t035): Wolf bit the poacher to save
    # Bear, a memory of both sides; the old view was of one, and the model's new view kept it.
    mixed = RESCUE.model_copy(update={"traits": ["protective", "aggressive"]})
    assert reconcile_context(mixed, WOLF)["shows"] == ["protective"]
    with pytest.raises(ValidationError) as refused:
        _checked("Wolf is territorial, but he also shows signs of aggression and selfishness.", mixed)
    assert "'protective'" in str(refused.value)
    # a view that already takes both sides, or a memory of no side, is not checked for them
    both = WOLF.model_copy(update={"summary": "Wolf is territorial, but he can be loyal."})
    assert "shows" not in reconcile_context(mixed, both)
    assert "shows" not in reconcile_context(RESCUE.model_copy(update={"traits": ["curious"]}), WOLF)
    # the fallback and decisions read back carry no context: never refused
    assert Reconciliation.model_validate({**ANSWER, "summary": "Wolf is territorial."}).summary


def test_a_one_sided_summary_is_sent_back_and_the_second_answer_is_used(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    answers = scripted("one_sided")
    answered, told = retried_once(tmp_path / "world.db", model_settings,
                                  answers["old_view_only"], answers["both_views"])
    assert "surprise me with fear" in answered
    assert "summary must hold the new memory beside the old view" in told and "'protective'" in told


def test_the_rules_own_summary_of_a_contradiction_holds_the_new_memory() -> None:
    """The fallback's summary, put as a model's answer, passes the check it stands in for."""
    from test_prompts import reconcile_input

    from curator.turn import fallback

    inputs = reconcile_input()
    summary = fallback.reconcile(inputs).summary
    assert reconcile_context(inputs.memory, inputs.relationship)["shows"] == ["loyal", "brave"]
    assert _checked(summary, inputs.memory).summary == summary
