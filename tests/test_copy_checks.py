"""A model's answer that copies what its prompt showed it is sent back: a turn's memory that
retells how the perceiver saw someone before, and a new view of someone that retells one of
the memories shown, with no word of what they are like. The copies below are those the 1.5B
model made in the recorded eval answers (evals/cases/long_valley.yaml); model answers in the
retry test are scripted (tests/fixtures/scripted/copied_memory.json), served through respx."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import scripted
from pydantic import ValidationError
from test_answer_checks import retried_once
from test_prompts import reconcile_input

from curator.model.decision import MemoryView
from curator.model.llm import ModelSettings
from curator.turn import fallback
from curator.turn.copying import copied_run, retold, stems
from curator.turn.decisions import (
    EpisodeConsolidation,
    FadeReview,
    Reconciliation,
    reconcile_context,
    view_context,
)
from curator.turn.inputs import RelationView
from curator.turn.judgement import JudgementAnswer

OLD_VIEW = ("I was about to cross the river at the ford, but Wolf stepped out of the reeds, claimed my "
            "fishing spot as his own, and bared his teeth until I felt frustrated.")
SEEN = ("You burst out of the undergrowth and knock the poacher down; he drops his rifle and flees "
        "down the road. You dig out the trap stake and pry the jaws open until Wolf pulls his leg free.")
TOLD = "Roar and charge the human Nobody shoots a wolf in my valley " + SEEN
ANSWER = {"harm": True, "danger": True, "significance": "major", "emotion": "fierce"}


def _interpret(memory: str, shown: list[str], told: str = TOLD, seen: str = SEEN) -> str:
    context: dict[str, Any] = {"allowed_subjects": ["wolf", "poacher"], "told": told, "happened": seen,
                               "shown": shown, "perceiver": "bear", "actor": "bear"}
    return JudgementAnswer.model_validate({**ANSWER, "memory": memory}, context=context).memory


def test_a_copy_is_most_of_a_shown_sentence() -> None:
    assert retold(OLD_VIEW, [f"{OLD_VIEW} This contradicts my previous view."]) == OLD_VIEW
    assert retold("I was about to cross the river, but Wolf claimed my spot.", [OLD_VIEW]) is None
    assert retold("Wolf bared his teeth.", ["Wolf bared his teeth."]) is None  # too short to tell


def test_a_memory_that_retells_the_old_view_is_refused_with_what_happened() -> None:
    # The recorded answer: Bear's memory of freeing Wolf was its old view of Wolf, word for word.
    with pytest.raises(ValidationError) as refused:
        _interpret(OLD_VIEW, [OLD_VIEW])
    said = str(refused.value)
    assert "memory retells what you knew before" in said and "I was about to cross the river" in said
    # what to tell: the first sentence of what happened, in Bear's own voice
    assert ('as in: "I burst out of the undergrowth and knock the poacher down; he drops his rifle and '
            'flees down the road."') in said


def test_beside_a_sentence_of_this_turn_the_copy_is_dropped() -> None:
    memory = f"I knocked the poacher down and pried the trap open for Wolf. {OLD_VIEW}"
    assert _interpret(memory, [OLD_VIEW]) == "I knocked the poacher down and pried the trap open for Wolf."


def test_a_turn_that_repeats_an_old_one_may_be_told_in_its_words() -> None:
    again = ("Wolf steps out of the reeds at the ford, claims your fishing spot as his own and bares "
             "his teeth until you leave, frustrated.")
    memory = "Wolf stepped out of the reeds at the ford again and claimed my fishing spot as his own."
    assert _interpret(memory, [OLD_VIEW], told="Fish at the ford " + again, seen=again) == memory


# The recorded case (evals/cases/long_two_animals.yaml, t008): Bear's view of Wolf ended in a
# clause of its memory of the fishing spot, and its memory of the berry bushes kept that clause.
BERRY_VIEW = ("Wolf has been territorial at times. I will not forget this: I was about to head to my "
              "favorite fishing spot, but Wolf claimed it as his own. I backed off with an empty belly.")
BERRY_SEEN = ("Wolf is lying beside the berry bushes and growls low at you as you approach. You back "
              "away without a single berry.")
BERRY_TOLD = "Go to the berry bushes by the hollow Those berries by the hollow look ripe " + BERRY_SEEN


def test_a_run_of_words_copied_from_a_shown_sentence_is_found_in_the_sentences_case() -> None:
    grounded = stems(BERRY_TOLD)
    memory = "I was about to go to the berry bushes by the hollow, but Wolf claimed it as his own."
    assert copied_run(memory, [BERRY_VIEW], grounded) == "but Wolf claimed it as his own"
    # the same words, when this turn tells them, are no copy
    assert copied_run(memory, [BERRY_VIEW], stems(BERRY_TOLD + " Wolf claims it as his own")) is None
    # a shorter shared run ("the berry bushes") or a run of this turn's words is none either
    assert copied_run("Wolf growled at me by the berry bushes.", [BERRY_VIEW], grounded) is None
    assert copied_run("I backed away without a single berry.", ["You back away without a single berry."],
                      grounded) is None


def test_a_memory_that_keeps_a_clause_of_the_old_view_is_refused() -> None:
    memory = ("I was about to go to the berry bushes by the hollow, but Wolf claimed it as his own. "
              "I backed off with an empty belly.")
    with pytest.raises(ValidationError) as refused:
        _interpret(memory, [BERRY_VIEW], told=BERRY_TOLD, seen=BERRY_SEEN)
    said = str(refused.value)
    assert '"but Wolf claimed it as his own"' in said
    assert 'as in: "Wolf is lying beside the berry bushes and growls low at me as I approach."' in said


def test_beside_a_sentence_of_this_turn_a_sentence_keeping_a_clause_is_dropped() -> None:
    memory = ("Wolf growled at me by the berry bushes. "
              "I was about to eat the berries, but Wolf claimed it as his own.")
    assert _interpret(memory, [BERRY_VIEW], told=BERRY_TOLD, seen=BERRY_SEEN) == (
        "Wolf growled at me by the berry bushes.")


def _wolf(*recent: MemoryView) -> RelationView:
    return RelationView(other="wolf", summary="Wolf is mostly territorial.", sentiment=-0.8, bond=-0.4,
                        interactions=9, traits={"territorial": 5, "aggressive": 2}, recent=list(recent),
                        core=[])


def _memory(content: str) -> MemoryView:
    return MemoryView(id="m9", subject="wolf", kind="conflict", content=content,
                      emotional_impact="frustrated", valence=-0.6, importance=0.6, strength=1.0,
                      recall_count=0, created_at="2025-03-02T07:00:00Z", traits=["territorial"])


def test_a_revised_view_that_retells_a_memory_is_refused_with_a_view_to_write() -> None:
    # The recorded fade review whose "revised view" every later prompt showed as Bear's view of Wolf.
    context = view_context(_wolf(_memory(OLD_VIEW)), _memory("Wolf chased me out of the fern gully."))
    copy = {"reason": "It shows Wolf's aggression.", "outcome": "revise_summary",
            "summary": f"{OLD_VIEW} This contradicts my previous view of Wolf's actions."}
    with pytest.raises(ValidationError) as refused:
        FadeReview.model_validate(copy, context=context)
    said = str(refused.value)
    assert "summary retells a memory" in said and "does not say what Wolf is like" in said
    assert '"Wolf is territorial, …"' in said  # the trait the memories of Wolf showed most
    with pytest.raises(ValidationError):
        EpisodeConsolidation.model_validate({"summary": OLD_VIEW, "bond_shift": 0.0, "reason": "so"},
                                            context=context)


@pytest.mark.parametrize("summary", [
    f"Wolf is territorial: {OLD_VIEW}",  # a trait named, then the memory it stands on
    "Wolf keeps the ford and the gravel bar for himself and drives me off them.",  # his ways, in my words
    "Wolf drives me off my spot, but when I nearly drowned crossing the frozen river he was there.",
])
def test_a_view_in_its_own_words_or_naming_a_trait_passes(summary: str) -> None:
    context = view_context(_wolf(_memory(OLD_VIEW)), _memory("I nearly drowned crossing the frozen river, "
                                                             "but Wolf saved my life."))
    answer = {"reason": "It shows who Wolf is.", "outcome": "revise_summary", "summary": summary}
    assert FadeReview.model_validate(answer, context=context).summary == summary


def test_beside_a_trait_the_memories_a_view_retells_are_dropped_but_the_pinned_one() -> None:
    # The recorded fade review (evals/cases/long_two_animals.yaml): Bear's new view of Wolf was
    # its old view followed by every memory of Wolf the prompt showed, word for word.
    shown = ["I ate the deer Wolf left me, feeling grateful for the meal. Wolf watches from the ridge "
             "and leaves the moment I look up.",
             "I was about to thank Wolf for his kindness, but he told me not to get used to it."]
    context = view_context(_wolf(*map(_memory, shown)), _memory(OLD_VIEW))
    view = "Wolf is now territorial and aggressive, with signs of selfishness."
    answer = {"reason": "It changed.", "outcome": "revise_summary", "summary": " ".join([view, *shown])}
    assert FadeReview.model_validate(answer, context=context).summary == view
    # the defining memory a view holds as the rules write it stays, every sentence of it
    pinned = f"{view} I will not forget this: {shown[0]} {shown[1]}"
    assert FadeReview.model_validate({**answer, "summary": pinned}, context=context).summary == (
        f"{view} I will not forget this: {shown[0]}")


def test_a_new_view_that_drops_a_side_of_the_old_one_is_refused_with_the_word_to_keep() -> None:
    # The recorded fade review (evals/cases/long_two_animals.yaml, t049): one fading memory of
    # a kindness, and the model's new view of Wolf lost his keeping Bear off his spots.
    both = _wolf().model_copy(update={"summary": "Wolf is territorial, but he can be protective."})
    context = view_context(both, _memory("Wolf turns his back and does not chase me away."))
    answer = {"reason": "He let me stay.", "outcome": "revise_summary",
              "summary": "I still remember Wolf as protective, even though I felt frustrated earlier."}
    with pytest.raises(ValidationError) as refused:
        FadeReview.model_validate(answer, context=context)
    said = str(refused.value)
    assert "summary must keep what still holds of your old view of Wolf" in said
    assert "'territorial'" in said and '"Wolf is territorial, but …"' in said
    kept = "Wolf is territorial, but he can be protective, and lately he lets me be."
    assert FadeReview.model_validate({**answer, "summary": kept}, context=context).summary == kept
    # a side shown by a deed is kept as well as by a word; an old view of no side asks nothing
    deed = "Wolf drives me off my spots, but he can be protective."
    assert FadeReview.model_validate({**answer, "summary": deed}, context=context).summary == deed
    none = _wolf().model_copy(update={"summary": "I do not know Wolf well yet."})
    assert FadeReview.model_validate(answer, context=view_context(none)).summary == answer["summary"]


def test_a_view_carries_no_feeling_marks_of_the_memories_it_was_shown() -> None:
    # Recorded (evals/cases/long_valley.yaml): "Wolf is mostly helpful, but he can be territorial
    # and mean. (felt calm)", the mark the prompt puts after each memory it shows.
    context = view_context(_wolf(), _memory("Wolf fished beside me."))
    answer = {"conflict": True, "bond_shift": 0.1, "reason": "so",
              "summary": "Wolf is mostly helpful, but he can be territorial and mean. (felt calm)"}
    assert Reconciliation.model_validate(answer, context=context).summary == (
        "Wolf is mostly helpful, but he can be territorial and mean.")
    with pytest.raises(ValidationError, match="say in words"):
        FadeReview.model_validate({"reason": "so", "outcome": "revise_summary", "summary": "(felt calm)"},
                                  context=context)


def test_the_rules_own_views_pass_and_answers_read_back_are_never_refused() -> None:
    inputs = reconcile_input()
    summary = fallback.reconcile(inputs).summary
    assert Reconciliation.model_validate(
        {"conflict": True, "summary": summary, "bond_shift": 0.1, "reason": "so"},
        context=reconcile_context(inputs.memory, inputs.relationship)).summary == summary
    assert view_context(None, inputs.memory) == {}  # a memory about oneself: no view to check
    assert FadeReview.model_validate({"reason": "so", "outcome": "revise_summary", "summary": OLD_VIEW})


def test_a_copied_view_is_sent_back_and_the_second_answer_is_used(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    answers = scripted("copied_memory")
    answered, told = retried_once(tmp_path / "world.db", model_settings,
                                  answers["memory_as_view"], answers["a_view"])
    assert "dragged me out of the freezing water" in answered
    assert "summary retells a memory" in told and "does not say what Wolf is like" in told
