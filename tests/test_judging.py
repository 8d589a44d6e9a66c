"""A model's small answer to step interpret, and the rules that build the interpretation from it:
the gap composed from who helped or hindered and how it went, a harm by someone trusted as a
betrayal, the bands applied, feelings bounded however the model answers, the game's hints
winning, and a rule reading put the same way so the two can be compared."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from curator.domain.models import Gap, Relationship, Turn
from curator.model.decision import validation_scope
from curator.turn import fallback
from curator.turn.decisions import MemoryDraft
from curator.turn.dedup import find_repeat
from curator.turn.inputs import InterpretInput, RelationView
from curator.turn.judgement import JudgementAnswer, answer_of, first_sentences
from curator.turn.judging import interpretation_from, judgement_of_rules, turn_reading

TURN = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
        "intent": {"thought": "Fish", "action": "Fish at my spot"},
        "reality": "Wolf claims your fishing spot and bares his teeth until you leave.", "others": ["wolf"]}


def inputs(role: str = "actor", *, bond: float = 0.0, interactions: int = 2, **turn: Any) -> InterpretInput:
    t = Turn.model_validate({**TURN, **turn})
    perceiver = "bear" if role == "actor" else "owl"
    subjects = list(t.others) if role == "actor" else [c for c in [t.actor, *t.others] if c != perceiver]
    rels = {o: RelationView.of(Relationship(owner=perceiver, other=o, overall_bond=bond,
                                            interactions=interactions)) for o in subjects}
    return InterpretInput(perceiver=perceiver, role=role, persona="", turn=t,  # type: ignore[arg-type]
                          relationships=rels, recent_self=[], allowed_subjects=subjects, seen=t.reality)


def answer(**fields: Any) -> JudgementAnswer:
    base = {"others": [{"id": "wolf", "did": "harmed"}], "outcome": "spoiled", "significance": "notable",
            "harm": False, "danger": False, "emotion": "angry", "memory": "Wolf took my fishing spot."}
    return JudgementAnswer.model_validate({**base, **fields})


@pytest.mark.parametrize(("others", "outcome", "gap"), [
    ([{"id": "wolf", "did": "harmed"}], "spoiled", Gap.THWARTED),
    ([{"id": "wolf", "did": "harmed"}], "stopped", Gap.BLOCKED),
    ([{"id": "wolf", "did": "helped"}], "spoiled", Gap.HELPED),
    ([{"id": "wolf", "did": "kind"}], "as_meant", Gap.SUCCEEDED),
    ([{"id": "wolf", "did": "nothing"}], "spoiled", Gap.FAILED),
    ([{"id": "wolf", "did": "nothing"}], "partly", Gap.MIXED),
    ([{"id": "wolf", "did": "nothing"}], "unexpected", Gap.SURPRISED),
])
def test_the_gap_follows_who_helped_or_hindered_and_how_it_went(
        others: list[dict[str, str]], outcome: str, gap: Gap) -> None:
    assert answer(others=others, outcome=outcome).judgement("bear").gap is gap


def test_what_the_actor_did_is_no_gap_for_an_observer() -> None:
    # Owl saw Bear chase Wolf off: Bear harmed Wolf, and Bear's own plan went as meant.
    seen = answer(others=[{"id": "bear", "did": "harmed"}, {"id": "wolf", "did": "nothing"}],
                  outcome="as_meant")
    assert seen.judgement("bear").gap is Gap.SUCCEEDED


def test_a_harm_by_someone_trusted_is_a_betrayal_and_its_memory_says_so() -> None:
    trusting = interpretation_from(inputs(bond=0.6), answer())
    assert trusting.judgement is not None and trusting.judgement.others[0].did == "betrayed"
    assert trusting.memories[0].kind == "betrayal"
    wary = interpretation_from(inputs(bond=-0.2), answer())
    assert wary.memories[0].kind == "conflict"
    # a betrayal weighs more on the feeling than a harm from a stranger
    assert trusting.feelings[0].sentiment_shift < wary.feelings[0].sentiment_shift < 0


def test_feelings_are_bounded_however_the_model_answers() -> None:
    made = interpretation_from(inputs(bond=0.6), answer(significance="defining"))
    assert all(abs(f.sentiment_shift) <= 0.96 for f in made.feelings)
    assert all(-1 <= d.valence <= 1 and 0 <= d.importance <= 1 for d in made.memories)


def test_a_trivial_turn_forms_no_memory_and_a_near_death_is_defining() -> None:
    assert interpretation_from(inputs(), answer(significance="trivial")).memories == []
    near = interpretation_from(inputs(), answer(significance="major", harm=True, danger=True))
    assert near.judgement is not None and near.judgement.significance == "defining"
    assert near.significance == 0.95  # reaches core review
    seen = interpretation_from(inputs("observer"), answer(
        others=[{"id": "bear", "did": "nothing"}, {"id": "wolf", "did": "harmed"}],
        significance="major", harm=True, danger=True))
    assert seen.judgement is not None and seen.judgement.significance == "major"  # only the actor nearly died


def test_the_games_hints_win_over_the_answer() -> None:
    hinted = inputs(outcome={"result": "helped", "importance": 0.2, "danger": True})
    made = interpretation_from(hinted, answer())
    assert (made.gap, made.significance, made.danger) == (Gap.HELPED, 0.2, True)


def test_those_left_out_did_nothing_and_strangers_are_refused() -> None:
    with validation_scope({"allowed_subjects": ["wolf", "fox"]}):
        kept = answer()
        assert {o.id: o.did for o in kept.others} == {"wolf": "harmed", "fox": "nothing"}
        with pytest.raises(ValidationError, match=r"\['deer'\] were not in this turn"):
            answer(others=[{"id": "deer", "did": "helped"}])


def test_a_long_memory_keeps_its_first_sentences() -> None:
    assert first_sentences("Wolf came. " + "word " * 50) == "Wolf came."
    long = answer(memory="word " * 60)
    assert long.memory.endswith("…") and len(long.memory.split()) == 40


def test_the_rules_reading_put_as_a_judgement_and_back() -> None:
    inp = inputs()
    made = fallback.interpret(inp)
    assert made.judgement == judgement_of_rules(inp, made)
    assert made.judgement.gap is Gap.BLOCKED
    assert made.judgement.reading_of("wolf").did in ("blocked", "harmed")
    again = answer_of(made.judgement).judgement("bear")
    assert (again.gap, again.significance) == (made.judgement.gap, made.judgement.significance)
    reading = turn_reading("bear", made.judgement, "fallback")
    assert reading.harmed == ["wolf"] and reading.feelings["wolf"] == "negative"


def test_the_same_words_filed_differently_are_one_memory() -> None:
    from curator.domain.models import Memory

    told = "Wolf growls at me from behind the berry bushes and I back away without eating."
    first = Memory(id="m1", owner="bear", subject="wolf", content=told, kind="encounter",
                   emotional_impact="curious", valence=0.1, importance=0.55,
                   created_at="2025-01-02T08:00:00Z", last_recalled="2025-01-02T08:00:00Z")
    again = MemoryDraft(subject="wolf", content=told, kind="conflict", emotional_impact="angry",
                        valence=-0.62, importance=0.55)
    assert find_repeat([first], again, similarity=0.55) is first
