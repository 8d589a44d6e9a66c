"""A model's answer is bounded (issue #16): no decision holds a string, list or object larger
than the bounds of `DecisionModel`, a trait is a word or two, and one turn moves a feeling
toward a character once; an answer past a bound is refused (sent back to the model, then
the fallback decides), so nothing unbounded is stored and sent in every later prompt."""

from __future__ import annotations

import json
import typing
from typing import Any

import httpx
import pytest
import respx
from conftest import MODEL_BASE, chat, scripted
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from curator import Curator
from curator.model.decision import (
    MAX_MODEL_ITEMS,
    MAX_MODEL_STRING,
    DecisionModel,
    _first_refusal,
    _within_bounds,
)
from curator.model.llm import ModelSettings
from curator.turn.decisions import MAX_TRAIT, Feeling, Interpretation, MemoryDraft
from curator.turn.judgement import MEMORY_CHARS, Judgement, JudgementAnswer, OtherReading
from curator.turn.steps import ALL_STEPS

LONG = "x" * 100_000


def decision_models() -> list[type[DecisionModel]]:
    """Every decision a step answers with or asks a model for, and every model nested in one."""
    found: dict[str, type[DecisionModel]] = {}
    todo: list[Any] = [t for s in ALL_STEPS for t in (s.decision, s.asks)]
    while todo:
        kind = todo.pop()
        if isinstance(kind, type) and issubclass(kind, DecisionModel):
            if kind.__name__ not in found:
                found[kind.__name__] = kind
                todo.extend(f.annotation for f in kind.model_fields.values())
        else:
            todo.extend(typing.get_args(kind))
    return list(found.values())


MODELS = decision_models()


def holds_text(annotation: Any) -> bool:
    if annotation is str:
        return True
    return any(holds_text(a) for a in typing.get_args(annotation))


def test_the_walk_finds_every_step_answer() -> None:
    names = {m.__name__ for m in MODELS}
    assert {"Interpretation", "MemoryDraft", "Feeling", "ContextNote", "Judgement", "OtherReading",
            "JudgementAnswer", "FadeReview", "CoreDecision", "Reconciliation", "EpisodeConsolidation",
            "Appraisal", "MemoryAppraisal", "LensScore", "IdentityNarrative"} <= names


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_no_field_of_any_decision_holds_an_unbounded_value(model: type[BaseModel]) -> None:
    """A 100,000-character value in any field, as a string, a list item or an object key, is
    refused by the bound, whatever the field's own type and caps say."""
    for name in model.model_fields:
        for value in (LONG, [LONG], {LONG: 1}, {"k": LONG}, list(range(MAX_MODEL_ITEMS + 1))):
            with pytest.raises(ValidationError) as caught:
                model.model_validate({name: value})
            message = str(caught.value)
            assert f"at most {MAX_MODEL_STRING:,}" in message or f"at most {MAX_MODEL_ITEMS}" in message, \
                (model.__name__, name, message[:300])


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_every_text_field_has_a_cap_of_its_own_or_the_bound(model: type[BaseModel]) -> None:
    """The bound holds for text just over it too, not only for the absurd case."""
    for name, field in model.model_fields.items():
        if holds_text(field.annotation):
            with pytest.raises(ValidationError):
                model.model_validate({name: "y" * (MAX_MODEL_STRING + 1)})


def test_a_trait_is_a_word_or_two() -> None:
    draft = {"subject": "wolf", "content": "Wolf took my fish.", "kind": "conflict",
             "emotional_impact": "angry", "valence": -0.6, "importance": 0.5}
    assert MemoryDraft.model_validate({**draft, "traits": ["Greedy "]}).traits == ["greedy"]
    with pytest.raises(ValidationError, match="a trait is a word or two"):
        MemoryDraft.model_validate({**draft, "traits": ["g" * (MAX_TRAIT + 1)]})


def test_forty_copies_of_one_feeling_are_refused() -> None:
    base = {"gap": "blocked", "significance": 0.5, "immediate_context": "Wolf took my spot."}
    one = Interpretation.model_validate({**base, "feelings": [{"toward": "wolf", "sentiment_shift": 0.5}]})
    assert [f.toward for f in one.feelings] == ["wolf"]
    with pytest.raises(ValidationError, match="one entry per character; 'wolf' more than once"):
        Interpretation(**base, feelings=[Feeling(toward="wolf", sentiment_shift=1.0)] * 40)
    with pytest.raises(ValidationError, match="'wolf' more than once"):
        Interpretation.model_validate({**base, "relationship_contexts": [{"about": "wolf", "text": "a"}] * 2})
    reading = OtherReading(id="wolf", did="helped", feeling="positive")
    with pytest.raises(ValidationError, match="one reading per character"):
        Judgement(memory="Wolf helped.", emotion="glad", gap="helped", significance="minor",
                  others=[reading] * 40)


def test_a_judgement_memory_of_one_endless_word_is_refused() -> None:
    answer = {"harm": False, "danger": False, "significance": "minor", "emotion": "calm"}
    assert JudgementAnswer.model_validate({**answer, "memory": "I rest by the river."}).memory
    with pytest.raises(ValidationError, match=f"at most {MEMORY_CHARS} characters"):
        JudgementAnswer.model_validate({**answer, "memory": "I " + "a" * MEMORY_CHARS})


FISHING = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
           "intent": {"thought": "Just need to catch some fish", "action": "Head to my fishing spot"},
           "reality": "Wolf emerges and claims your fishing spot as his own, baring his teeth.",
           "others": ["wolf"]}


def test_an_overlong_model_answer_falls_back_and_nothing_long_is_stored(
        model_settings: ModelSettings) -> None:
    good = scripted("fishing_spot")["bear"]
    overlong = {**good, "memory": "Wolf took my fishing spot " + "and growled " * 10_000}
    with respx.mock() as router, Curator(":memory:", model=model_settings) as world:
        route = router.post(f"{MODEL_BASE}/chat/completions").mock(
            return_value=httpx.Response(200, json=chat(json.dumps(overlong))))
        result = world.observe(FISHING)
        bear = world.character("bear")
    assert route.call_count == 1 + model_settings.retries  # told, then asked again, then fallback
    assert result.steps[0].decided_by == "fallback" and result.steps[0].reason == "invalid answer"
    retry = json.loads(route.calls[1].request.content)["messages"][-1]["content"]
    assert f"at most {MAX_MODEL_STRING:,}" in retry
    stored = [m.content for m in bear.relationships["wolf"].recent_memories]
    assert stored and all(len(text) <= MEMORY_CHARS for text in stored)


class _Nested(DecisionModel):
    notes: list[dict[str, str]]


def test_the_refusal_names_where_the_value_is() -> None:
    """The model is told which value to shorten: the path to it, not only that one was long."""
    over = "y" * (MAX_MODEL_STRING + 1)
    with pytest.raises(ValidationError, match=rf"notes\.1\.b is {MAX_MODEL_STRING + 1:,} characters"):
        _Nested.model_validate({"notes": [{"a": "fine"}, {"c": "fine", "b": over}]})
    with pytest.raises(ValidationError, match=rf"notes\.0 has {MAX_MODEL_ITEMS + 1} entries"):
        _Nested.model_validate({"notes": [{str(n): "x" for n in range(MAX_MODEL_ITEMS + 1)}]})
    assert _Nested.model_validate({"notes": [{"a": "y" * MAX_MODEL_STRING}]}).notes[0]["a"]


_VALUES = st.recursive(
    st.none() | st.integers() | st.text(max_size=3)
    | st.sampled_from(["y" * (MAX_MODEL_STRING + 1), "y" * MAX_MODEL_STRING]),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.just("k" * (MAX_MODEL_STRING + 1)), inner, max_size=4)
    | st.just(list(range(MAX_MODEL_ITEMS + 1))) | st.just({str(n): 1 for n in range(MAX_MODEL_ITEMS)}),
    max_leaves=30)


@given(_VALUES)
@example([["x"]])
@example(({"a": [1]},))
@example({"k" * (MAX_MODEL_STRING + 1): 1})
@settings(max_examples=300, deadline=None)
def test_the_quick_walk_passes_exactly_what_the_naming_walk_passes(value: Any) -> None:
    """The check first walks without naming places, and walks again to name one only on a
    refusal: both must agree on what is within bounds."""
    deep: Any = value
    for _ in range(8):  # as deep as a decision may nest, with what is nested inside it
        deep = [deep]
    for data in (value, deep, {"a": value}):
        assert (_first_refusal(data, "") is None) is _within_bounds(data, 0)
