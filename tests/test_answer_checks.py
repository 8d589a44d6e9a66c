"""Answer checks: a model's free-text answer that hands back the prompt's instructions, the
schema, a placeholder or a loop is refused with a message saying what to write instead; that
message reaches the model on retry, a good second answer is used, and a model that keeps
parroting ends in the fallback with the reason logged. Model answers here are scripted
(tests/fixtures/scripted/parroting.json), served through respx."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from conftest import MODEL_BASE, chat, scripted
from pydantic import BaseModel, ValidationError
from test_prompts import INPUTS, REALITY, SUMMARY, reconcile_input

from curator import Curator
from curator.model import prompts
from curator.model.answer_checks import ECHO_KEY, PromptEcho, check_text, checking, echo_of, instruction_text
from curator.model.llm import ModelSettings
from curator.model.steps import Step
from curator.turn.decisions import Reconciliation
from curator.turn.steps import ALL_STEPS

URL = f"{MODEL_BASE}/chat/completions"
QUOTED = re.compile(r'"([^"\n]*)"')
FEUD = [  # Wolf bullies Bear four times (decided by the fallback), then saves him from the ice
    ("k1", "2025-01-05T08:00:00Z", "Fish at my spot by the river",
     "Wolf claims your fishing spot and bares his teeth until you leave."),
    ("k2", "2025-01-06T09:00:00Z", "Lie down in the sunny clearing",
     "Wolf charges at you, snarling, and chases you out of the clearing."),
    ("k3", "2025-01-07T12:00:00Z", "Eat the salmon I caught",
     "Wolf snatches the salmon from under your paw and runs off with it."),
    ("k4", "2025-01-08T10:00:00Z", "Dig for roots on the ridge",
     "Wolf growls at you from the top of the ridge and drives you back down."),
]
RESCUE_TURN = {"id": "k5", "world_time": "2025-01-09T15:00:00Z", "actor": "bear", "others": ["wolf"],
               "intent": {"thought": "The ice looks thick enough", "action": "Cross the frozen river"},
               "reality": "The ice cracks under you and you plunge into the freezing water. Wolf races "
                          "onto the ice, grabs your scruff and drags you back onto the bank.",
               "outcome": {"danger": True}}


def echo_for(template: str, inputs: BaseModel) -> PromptEcho:
    """The echo the gateway checks a model's answer against: both messages, marked."""
    return echo_of(prompts.render_parts(template, inputs, marked=True))


def reconcile_echo() -> dict[str, Any]:
    return checking(None, echo_for("reconcile.j2", reconcile_input()))


# -- what counts as the instructions ----------------------------------------------------------

@pytest.mark.parametrize("step", ALL_STEPS, ids=[s.name for s in ALL_STEPS])
def test_the_marked_rendering_is_the_prompt_the_model_sees(step: Step[Any, Any]) -> None:
    inputs = INPUTS[step.template]()
    marked = prompts.render_parts(step.template, inputs, marked=True)
    plain = tuple(part.replace(prompts.VALUE_START, "").replace(prompts.VALUE_END, "") for part in marked)
    assert plain == prompts.render_parts(step.template, inputs)  # the system and user messages
    assert marked[0] == plain[0]  # the system part has no value filled in
    assert prompts.render_marked(step.template, inputs) == "\n\n".join(marked)


def test_the_instructions_leave_out_game_text_examples_and_long_values() -> None:
    for template in ("reconcile.j2", "interpret.j2"):
        inputs = INPUTS[template]()
        marked = prompts.render_parts(template, inputs, marked=True)
        system, user = (instruction_text(part) for part in marked)
        assert re.search(r"first[- ]person", system)  # the instructions themselves
        assert "Wolf" in user and "Bear" in user  # a short value (a name) is part of a sentence
        for text in (system, user):
            assert SUMMARY not in text and REALITY not in text  # game text is data
            assert "drove the poachers off" not in text and "Wolf took my fishing spot" not in text
        # A quoted example is what an answer may look like: "Tobin is mostly selfish, but …".
        quoted = QUOTED.findall(prompts.render_parts(template, inputs)[0])
        examples = [q for q in quoted if len(q.split()) >= 3]
        assert examples
        for example in examples:
            assert example not in system, example


@pytest.mark.parametrize("step", ALL_STEPS, ids=[s.name for s in ALL_STEPS])
def test_the_fallbacks_own_answer_passes_the_checks(step: Step[Any, Any]) -> None:
    """The fallback writes in its own words: served as a model's answer (put as the model is
    asked for it, as the stub server does), it is not refused."""
    inputs = INPUTS[step.template]()
    answer = step.answer_of(step.fallback(inputs))
    assert isinstance(answer, step.asks)
    context = checking({}, echo_for(step.template, inputs))
    step.asks.model_validate(answer.model_dump(), context=context)


# -- what is refused, and what the model is told ---------------------------------------------

@pytest.mark.parametrize(("field", "text", "problem", "told"), [
    # reconcile.j2's instructions handed back: from its system part, then a label of its user part
    ("summary", "How you see them now: two or three sentences, first person, naming them.",
     "copies the prompt's instructions", "your own view of the other character"),
    ("summary", "How you see them now: he bites.", "(\"How you see them now\")", "sentences of your own"),
    ("summary", "How you have seen Wolf until now: he bites.", "(\"How you have seen Wolf until now\")",
     "sentences of your own"),
    ("reason", "One event moves it a little, usually 0.05 to 0.2 either way.",
     "(\"One event moves it a little, usually 0.05 to 0.2 either way\")", "one short sentence"),
    ("reason", "string", "is a placeholder ('string')", "saying why"),
    ("summary", "<summary>", "is a placeholder", "your own view"),
    ("summary", "...", "empty or only symbols", "your own view"),
    ("summary", "   ", "empty or only symbols", "your own view"),
    ("summary", "summary", "is a placeholder", "your own view"),
    ("summary", '{"type": "string", "description": "how you see Wolf"}', "holds JSON or the schema",
     "never inside it"),
    ("summary", 'Wolf is {"conflict": true, "bond_shift": 0.2}', "holds JSON or the schema", "your own view"),
    ("summary", "## How to answer\nWolf bites.", "holds a heading", "plain sentences"),
    ("summary", "Wolf is kind. Wolf is kind. Wolf is kind and good to me.", "repeats itself",
     "say each thing once"),
    ("summary", "The wolf is now my new home. The wolf is now my new home.", "repeats itself", "once"),
    ("reason", "no no no no", "repeats itself", "saying why"),
])
def test_garbage_is_refused_with_what_to_write_instead(field: str, text: str, problem: str,
                                                      told: str) -> None:
    with pytest.raises(ValueError) as refused:
        check_text(text, field, reconcile_echo())
    assert problem in str(refused.value) and told in str(refused.value)


@pytest.mark.parametrize("text", [
    SUMMARY,  # the old summary is game text: keeping what still holds is the point
    "Wolf is complicated: selfish mostly, but capable of surprising loyalty.",  # the design's own example
    "Wolf is mostly selfish, but he can surprise me with loyalty.",  # reconcile.j2's example, for Wolf
    "Wolf is territorial and often annoying, but he dragged me out of the river. I owe him my life.",
    "What happened at the river changed how I see Wolf.",
    "I do not know what to think of Wolf any more.",
])
def test_an_answer_in_its_own_words_passes(text: str) -> None:
    assert check_text(f"  {text} ", "summary", reconcile_echo()) == text


def test_without_the_prompt_nothing_is_checked() -> None:
    """Decisions built by the fallback, by tests or read back carry no prompt: never refused."""
    parrot = scripted("parroting")["parroting_reconciliation"]
    assert Reconciliation.model_validate(parrot).summary == parrot["summary"]
    assert Reconciliation.model_validate({**parrot, "summary": "string"}, context={}).summary == "string"
    assert check_text("string", "reason", {ECHO_KEY: None}) == "string"
    with pytest.raises(ValidationError, match="copies the prompt's instructions"):
        Reconciliation.model_validate(parrot, context=reconcile_echo())


# -- through the model path --------------------------------------------------------------------

def _feud_world(path: Path) -> None:
    with Curator(path) as world:  # no model: the feud is decided by the fallback
        for turn_id, when, action, reality in FEUD:
            world.observe({"id": turn_id, "world_time": when, "actor": "bear", "others": ["wolf"],
                           "intent": {"thought": "", "action": action}, "reality": reality})


def _respond(reconcile: list[dict[str, Any]]) -> Any:
    """Interpret gets the scripted rescue; reconcile gets the next of `reconcile` (the last repeats)."""
    answers = scripted("parroting")

    def respond(request: httpx.Request) -> httpx.Response:
        template = request.headers["x-curator-template"].split("@")[0]
        if template == "interpret.j2":
            return httpx.Response(200, json=chat(json.dumps(answers["rescue"])))
        assert template == "reconcile.j2", template
        reply = reconcile.pop(0) if len(reconcile) > 1 else reconcile[0]
        return httpx.Response(200, json=chat(json.dumps(reply)))
    return respond


def _rescue(path: Path, settings: ModelSettings, reconcile: list[dict[str, Any]]) -> tuple[Any, ...]:
    _feud_world(path)
    with respx.mock() as router, Curator(path, model=settings) as world:
        route = router.post(URL).mock(side_effect=_respond(reconcile))
        result = world.observe(RESCUE_TURN)
        wolf = world.character("bear").relationships["wolf"]
        calls = [c for c in world.calls() if c.step == "reconcile"]
    asks = [json.loads(c.request.content)["messages"] for c in route.calls
            if c.request.headers["x-curator-template"].startswith("reconcile.j2@")]
    step = next(s for s in result.steps if s.step == "reconcile")
    return step, wolf, calls, asks


def retried_once(path: Path, settings: ModelSettings, refused: dict[str, Any],
                 good: dict[str, Any]) -> tuple[str, str]:
    """The rescue's reconcile answered `refused`, then `good`: checks the retry was asked once,
    with the refused answer before what the model was told, and that `good` decided the
    summary; returns (the refused answer as sent back, what the model was told)."""
    step, wolf, calls, asks = _rescue(path, settings, [refused, good])
    assert len(asks) == 2  # the reconcile and its one retry
    answered, told = asks[1][-2], asks[1][-1]
    assert answered["role"] == "assistant" and told["role"] == "user"
    assert step.decided_by == "model"
    assert calls[0].outcome == "model" and calls[0].attempts == 2
    assert wolf.long_term_summary == good["summary"]
    return answered["content"], told["content"]


def test_a_parroting_summary_is_sent_back_and_the_good_answer_is_used(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    answers = scripted("parroting")
    answered, told = retried_once(tmp_path / "world.db", model_settings,
                                  answers["parroting_reconciliation"], answers["good_reconciliation"])
    assert "How you see them now" in answered
    assert "summary copies the prompt's instructions" in told and "How you see them now" in told
    assert "write your own view of the other character" in told
    assert "reason copies the prompt's instructions" in told


def test_a_model_that_keeps_parroting_ends_in_the_fallback_with_the_reason_logged(
        tmp_path: Path, model_settings: ModelSettings, caplog: pytest.LogCaptureFixture) -> None:
    answers = scripted("parroting")
    with caplog.at_level(logging.WARNING, logger="curator.model.llm"):
        step, wolf, calls, asks = _rescue(tmp_path / "world.db", model_settings,
                                          [answers["parroting_reconciliation"]])
    assert len(asks) == 3  # the ask and model_settings.retries (2) re-asks, each told why
    assert all("summary copies the prompt's instructions" in ask[-1]["content"] for ask in asks[1:])
    assert step.decided_by == "fallback" and step.reason == "invalid answer"
    assert [(c.outcome, c.reason, c.attempts) for c in calls] == [("fallback", "invalid answer", 3)]
    assert "copies the prompt's instructions" in (calls[0].error or "")
    assert "reconcile for bear: invalid answer; the fallback decided" in caplog.text
    assert "How you see" not in wolf.long_term_summary and "first person" not in wolf.long_term_summary
    assert "Wolf" in wolf.long_term_summary  # the fallback's own summary holds the feud and the rescue
