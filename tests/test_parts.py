"""A model's memory must name who took part in the turn (curator/turn/parts.py): the recorded
1.5B answers at times left out the one who acted, or gave their deed to someone else, and the
memory was then filed about a character it never named. Such a memory is sent back with the
sentence of what happened that names them, in the perceiver's own voice. Model answers in the
retry test are scripted (tests/fixtures/scripted/unnamed_part.json), served through respx."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from conftest import MODEL_BASE, chat, scripted
from pydantic import ValidationError
from test_answer_checks import FEUD, RESCUE_TURN

from curator import Curator
from curator.model.llm import ModelSettings
from curator.turn import steps
from curator.turn.judgement import JudgementAnswer
from curator.turn.parts import naming_sentence, parts_of, unnamed

SEEN = ("You burst out of the undergrowth and knock the poacher down; he drops his rifle and flees "
        "down the road. You dig out the trap stake and pry the jaws open until Wolf pulls his leg free.")
TOLD = "Roar and charge the human Nobody shoots a wolf in my valley " + SEEN
# The recorded answer (evals/fixtures/qwen1.5b/long_valley): the rescue, without the rescued.
RECORDED = ("I burst out of the undergrowth and knocked the poacher down; he drops his rifle and flees "
            "down the road.")


def _bear_reads(memory: str, others: list[tuple[str, str]], calls: list[int] | None = None) -> str:
    def parts() -> Any:
        if calls is not None:
            calls.append(1)
        return parts_of(others, "bear")
    context: dict[str, Any] = {"allowed_subjects": ["wolf", "poacher"], "told": TOLD, "happened": SEEN,
                               "shown": [], "perceiver": "bear", "actor": "bear", "parts": parts}
    answer = {"harm": True, "danger": True, "significance": "major", "emotion": "fierce", "memory": memory}
    return JudgementAnswer.model_validate(answer, context=context).memory


def test_who_took_part_and_the_names_they_go_by() -> None:
    parts = parts_of([("wolf", "helped"), ("poacher", "none"), ("bear", "harmed"), ("isolde", "kind")],
                     "bear", aliases=(("isolde", ("the queen",)),))
    assert parts == [("Wolf", ("wolf",)), ("Isolde", ("isolde", "the queen"))]
    # "wolfish" is a word, not Wolf
    assert unnamed("The queen thanked me; wolfish grins all round.", parts) == [parts[0]]
    assert unnamed("Wolf bowed to Isolde.", parts) == []
    assert parts_of([("old_oak", "helped")], "bear") == [("Old Oak", ("old oak",))]


def test_the_sentence_to_show_is_the_first_naming_them_in_the_perceivers_voice() -> None:
    wolf = parts_of([("wolf", "helped")], "bear")[0]
    assert naming_sentence(SEEN, wolf, perceiver="bear", actor="bear") == (
        "I dig out the trap stake and pry the jaws open until Wolf pulls his leg free.")
    # Wolf saw it: Bear is named, and Wolf is "I"
    bear = parts_of([("bear", "helped")], "wolf")[0]
    assert naming_sentence(SEEN, bear, perceiver="wolf", actor="bear") == (
        "Bear bursts out of the undergrowth and knocks the poacher down; he drops his rifle and flees "
        "down the road.")
    assert naming_sentence("He waves. She nods.", wolf, perceiver="bear", actor="bear") is None


def test_a_memory_that_leaves_out_who_took_part_is_refused_with_the_sentence_naming_them() -> None:
    with pytest.raises(ValidationError) as refused:
        _bear_reads(RECORDED, [("wolf", "helped"), ("poacher", "none")])
    said = str(refused.value)
    assert "memory does not name Wolf, who took part in what happened" in said
    assert 'as in: "I dig out the trap stake and pry the jaws open until Wolf pulls his leg free."' in said
    named = "I knocked the poacher down and pried the trap open until Wolf pulled his leg free."
    assert _bear_reads(named, [("wolf", "helped"), ("poacher", "none")]) == named


def test_naming_one_of_two_who_took_part_is_enough() -> None:
    # A memory of forty words may not hold both; the rules' own memory names at least one.
    assert _bear_reads(RECORDED, [("wolf", "helped"), ("poacher", "harmed")]) == RECORDED


def test_only_those_who_did_something_and_that_what_happened_names_are_asked_for() -> None:
    assert _bear_reads(RECORDED, [("wolf", "none"), ("poacher", "harmed")]) == RECORDED
    assert _bear_reads(RECORDED, [("owl", "helped")]) == RECORDED  # not named in what happened


def test_who_took_part_is_read_once_and_only_when_a_model_answered(tmp_path: Path) -> None:
    calls: list[int] = []
    named = "I pried the trap open until Wolf pulled his leg free."
    assert _bear_reads(named, [("wolf", "helped")], calls) == named
    assert calls == [1]
    with Curator(tmp_path / "world.db") as world:  # no model: the rules never read it twice
        original = steps.parts_in
        steps.parts_in = _never  # type: ignore[assignment]
        try:
            world.observe(RESCUE_TURN)
        finally:
            steps.parts_in = original


def _never(*_: Any) -> Any:
    raise AssertionError("who took part was read with no model answer to check")


def test_the_rules_read_of_who_took_part_in_the_rescue() -> None:
    from test_prompts import INPUTS
    inputs = INPUTS["interpret.j2"]()
    assert all(name != inputs.perceiver for name, _ in steps.parts_in(inputs))


def test_a_memory_leaving_out_the_rescuer_is_sent_back_and_the_second_answer_is_used(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    answers = scripted("unnamed_part")
    path = tmp_path / "world.db"
    with Curator(path) as world:
        for turn_id, when, action, reality in FEUD:
            world.observe({"id": turn_id, "world_time": when, "actor": "bear", "others": ["wolf"],
                           "intent": {"thought": "", "action": action}, "reality": reality})
    queue = [answers["leaves_out_wolf"], answers["names_wolf"]]

    def respond(request: httpx.Request) -> httpx.Response:
        template = request.headers["x-curator-template"].split("@")[0]
        if template == "interpret.j2":
            return httpx.Response(200, json=chat(json.dumps(queue.pop(0))))
        return httpx.Response(200, json=chat(None, refusal="scripted: only interpret is answered here"))

    with respx.mock() as router, Curator(path, model=model_settings) as world:
        route = router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=respond)
        result = world.observe(RESCUE_TURN)
    memories = [m.content for m in result.formed if m.owner == "bear"]
    asks = [json.loads(c.request.content)["messages"] for c in route.calls
            if c.request.headers["x-curator-template"].startswith("interpret.j2@")]
    assert len(asks) == 2  # the answer and its one retry
    answered, told = asks[1][-2], asks[1][-1]
    assert "nearly drowned" in answered["content"]
    assert "memory does not name Wolf, who took part in what happened" in told["content"]
    assert "Wolf races onto the ice, grabs my scruff and drags me back onto the bank." in told["content"]
    interpret = next(s for s in result.steps if s.step == "interpret")
    assert interpret.decided_by == "model"
    assert answers["names_wolf"]["memory"] in memories
