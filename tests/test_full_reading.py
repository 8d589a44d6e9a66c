"""The full reading (`ModelSettings.reading = "full"`): a model that reads a scene well is asked
for the gap and each other character's deed and feeling too, and the world does what it read.
Every answer here is scripted (written in this file), served by the stub server on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from curator import Curator
from curator.model.decision import validation_scope
from curator.model.llm import ModelSettings, release_connections
from curator.model.stub_server import StubModelServer, StubReply
from curator.turn.judgement import FullJudgementAnswer, Judgement, OtherReading

# Bo leans in with a cloth: the rules read it as help (joining the actor's work unasked).
TOWEL = {"id": "t1", "world_time": "2025-03-01T20:00:00Z", "actor": "ada",
         "intent": {"thought": "Busy night", "action": "Wipe the spilled ale off the bar"},
         "reality": "Bo leans over the bar with a cloth of his own and the two of you have it dry "
                    "in a moment.",
         "others": ["bo"], "observers": ["cy"]}


@pytest.fixture(autouse=True)
def closed_connections() -> Any:
    yield
    release_connections()


MEMORY = "Bo leans over the bar with his cloth and we have the spilled ale dry."


def answer(gap: str, others: list[dict[str, str]], significance: str = "notable",
           memory: str = MEMORY) -> dict[str, Any]:
    return {"gap": gap, "others": others, "harm": False, "danger": False, "significance": significance,
            "emotion": "grateful", "memory": memory}


class Script:
    """Answers interpret_full prompts per perceiver; records the templates it was sent."""

    def __init__(self, answers: Mapping[str, dict[str, Any]]):
        self.answers, self.templates = answers, []  # type: ignore[var-annotated]

    def __call__(self, body: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any] | StubReply:
        self.templates.append(headers.get("x-curator-template", "").split("@")[0])
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        for who, reply in self.answers.items():
            if user.startswith(f"You are {who} "):
                return reply
        return StubReply(400, {"error": {"message": "no scripted answer"}})


def played(script: Script, reading: str) -> Any:
    with StubModelServer(script) as stub, Curator(":memory:", model=ModelSettings(
            model="openai/stub", api_base=stub.url, backoff=0.0, retries=0, reading=reading)) as world:
        result = world.observe(TOWEL)
        ada = world.character("ada")
        return result, ada.relationships["bo"], ada.relationships["bo"].recent_memories


def test_a_full_reading_is_asked_for_and_the_world_does_what_it_read() -> None:
    # The rules read Bo's cloth as help; this scripted model reads it as spoiling Ada's work.
    script = Script({"Ada": answer("thwarted", [{"id": "bo", "did": "harmed", "feeling": "negative"}]),
                     "Cy": answer("thwarted", [{"id": "Ada", "did": "none", "feeling": "neutral"},
                                               {"id": "Bo", "did": "harmed", "feeling": "negative"}], "minor",
                                  memory="I watch Bo lean over the bar with his cloth beside Ada.")})
    result, bond, memories = played(script, "full")
    assert set(script.templates) == {"interpret_full.j2"}
    ada, cy = (next(r for r in result.readings if r.character == c) for c in ("ada", "cy"))
    assert ada.decided_by == cy.decided_by == "model"
    assert ada.gap == "thwarted" and ada.harmed == ["bo"] and ada.helped == []
    assert ada.feelings == {"bo": "negative"}
    # The observer's answer named the others by name; they are read as ids.
    assert cy.feelings == {"ada": "neutral", "bo": "negative"} and cy.harmed == ["bo"]
    # The world does what the reading says: Ada cools toward Bo and remembers him for it.
    assert bond.current_sentiment < 0 and memories and memories[0].subject == "bo"


def test_the_brief_reading_leaves_the_deeds_to_the_rules() -> None:
    brief = {key: value for key, value in answer("thwarted", []).items() if key not in ("gap", "others")}
    script = Script({"Ada": brief, "Cy": {**brief, "memory": "I watch Bo lean over the bar with his cloth."}})
    result, bond, _ = played(script, "brief")
    assert set(script.templates) == {"interpret.j2"}
    ada = next(r for r in result.readings if r.character == "ada")
    assert ada.decided_by == "model" and ada.helped == ["bo"] and ada.harmed == []  # the rules' reading
    assert bond.current_sentiment > 0


def test_kind_words_are_no_deed_but_warm_the_feeling() -> None:
    kind = [{"id": "bo", "did": "kind", "feeling": "positive"}]
    script = Script({"Ada": answer("succeeded", kind, "minor"),
                     "Cy": answer("succeeded", [{"id": "ada", "did": "none", "feeling": "neutral"},
                                                {"id": "bo", "did": "none", "feeling": "neutral"}], "trivial",
                                  memory="I watch Bo lean over the bar with his cloth beside Ada.")})
    result, bond, _ = played(script, "full")
    ada, cy = (next(r for r in result.readings if r.character == c) for c in ("ada", "cy"))
    assert ada.gap == "succeeded" and ada.helped == ada.harmed == [] and ada.feelings == {"bo": "positive"}
    assert bond.current_sentiment > 0
    assert cy.significance == "trivial" and cy.feelings == {"ada": "neutral", "bo": "neutral"}


def test_the_answer_names_only_the_turns_others_once_each() -> None:
    context = {"allowed_subjects": ["bo", "old_oak"]}
    base = answer("succeeded", [])
    with validation_scope(context):
        ok = FullJudgementAnswer.model_validate({**base, "others": [
            {"id": "Old Oak", "did": "none", "feeling": "neutral"}]}, context=context)
        assert [o.id for o in ok.others] == ["old_oak"]
        refused = r"'wolf' not in this turn; one entry for each of 'bo', 'old_oak'"
        with pytest.raises(ValidationError, match=refused):
            FullJudgementAnswer.model_validate({**base, "others": [
                {"id": "wolf", "did": "harmed", "feeling": "negative"}]}, context=context)
        with pytest.raises(ValidationError, match="'bo' more than once"):
            FullJudgementAnswer.model_validate({**base, "others": [
                {"id": "bo", "did": "none", "feeling": "neutral"},
                {"id": "Bo", "did": "kind", "feeling": "positive"}]}, context=context)
    with pytest.raises(ValidationError):
        FullJudgementAnswer.model_validate({**base, "gap": "went fine"})


def test_an_other_left_out_did_nothing() -> None:
    rules = Judgement(memory="I wipe the bar.", emotion="calm", gap="succeeded", significance="minor",
                      others=[OtherReading(id="bo", did="helped", feeling="positive"),
                              OtherReading(id="cy", did="none", feeling="neutral")])
    full = FullJudgementAnswer.model_validate(answer("failed", [{"id": "cy", "did": "harmed",
                                                                  "feeling": "negative"}]))
    read = full.over(rules)
    assert read.gap.value == "failed" and read.significance == "notable"
    assert [(o.id, o.did, o.feeling) for o in read.others] == [("bo", "none", "neutral"),
                                                                ("cy", "harmed", "negative")]


def test_the_reading_is_a_setting_and_the_game_outcome_still_wins() -> None:
    assert ModelSettings.from_env({"CURATOR_MODEL": "openai/x", "CURATOR_READING": "full"}).reading == "full"
    assert ModelSettings(model="openai/x").reading == "brief"
    settled = {**TOWEL, "outcome": {"result": "failed"}}
    script = Script({"Ada": answer("helped", [{"id": "bo", "did": "helped", "feeling": "positive"}]),
                     "Cy": answer("helped", [{"id": "ada", "did": "none", "feeling": "neutral"},
                                             {"id": "bo", "did": "helped", "feeling": "positive"}])})
    with StubModelServer(script) as stub, Curator(":memory:", model=ModelSettings(
            model="openai/stub", api_base=stub.url, backoff=0.0, retries=0, reading="full")) as world:
        result = world.observe(settled)
        calls = world.calls()
    assert {r.gap for r in result.readings} == {"failed"}
    assert {c.template for c in calls} == {"interpret_full.j2"}
    assert json.dumps(calls[0].decision)  # the answer as the model gave it is logged


def test_the_recorded_full_reading_of_the_small_model_replays() -> None:
    """Qwen2.5-Coder-1.5B asked for the full reading of the fourth fresh judgement set: a real
    model's answers, replayed through the full reading (README, "What a capable model would
    make of it", says what they show)."""
    from conftest import ROOT

    from curator.evals.judge import judge, load_stories
    from curator.evals.modes import ReplayMode
    from curator.testing import FixtureStore

    recorded = ROOT / "evals" / "fixtures" / "qwen1.5b-full"
    settings = json.loads((recorded / "settings.json").read_text())
    assert settings["reading"] == "full" and settings["model"] == "openai/qwen2.5-coder-1.5b"
    names = ("submarine", "newsroom", "filmset", "farmstead")
    for name in names:
        entries = FixtureStore(recorded / f"judge_{name}").entries()
        assert entries and {e["kind"] for e in entries} == {"recorded"}
        assert any(e["request"]["template"].startswith("interpret_full.j2@") for e in entries)
    stories = load_stories([ROOT / "evals" / "judge" / f"{n}.yaml" for n in names])
    report = judge(stories, ReplayMode(recorded))
    assert report.readings == 104 and report.decided_by_model >= 100 and not report.errors


def test_a_rewind_reuses_the_full_readings_the_model_gave() -> None:
    """A world played with the full reading logged interpret_full.j2; rebuilding it (a rewind)
    finds those answers and calls no model."""
    script = Script({"Ada": answer("thwarted", [{"id": "bo", "did": "harmed", "feeling": "negative"}]),
                     "Cy": answer("thwarted", [{"id": "ada", "did": "none", "feeling": "neutral"},
                                               {"id": "bo", "did": "harmed", "feeling": "negative"}], "minor",
                                  memory="I watch Bo lean over the bar with his cloth beside Ada.")})
    later = {**TOWEL, "id": "t2", "world_time": "2025-03-01T21:00:00Z"}
    with StubModelServer(script) as stub, Curator(":memory:", model=ModelSettings(
            model="openai/stub", api_base=stub.url, backoff=0.0, retries=0, reading="full")) as world:
        world.observe(TOWEL)
        world.observe(later)
        bond = world.character("ada").relationships["bo"].current_sentiment
        asked = len(script.templates)
        result = world.rewind("t2")
        assert len(script.templates) == asked  # no model was asked
        assert result.decisions_from_call_log == 4 and result.decisions_by_fallback == 0
        assert world.character("ada").relationships["bo"].current_sentiment == bond


def test_the_command_line_asks_for_the_full_reading(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from curator.cli import cli

    script = Script({"Ada": answer("thwarted", [{"id": "bo", "did": "harmed", "feeling": "negative"}]),
                     "Cy": answer("thwarted", [{"id": "ada", "did": "none", "feeling": "neutral"},
                                               {"id": "bo", "did": "harmed", "feeling": "negative"}], "minor",
                                  memory="I watch Bo lean over the bar with his cloth beside Ada.")})
    with StubModelServer(script) as stub:
        result = CliRunner().invoke(cli, ["observe", "--db", str(tmp_path / "w.db"), "--model", "openai/stub",
                                          "--api-base", stub.url, "--reading", "full", "--json"],
                                    input=json.dumps(TOWEL))
    assert result.exit_code == 0, result.output
    assert set(script.templates) == {"interpret_full.j2"}
    readings = {r["character"]: r for r in json.loads(result.stdout)["readings"]}
    assert readings["ada"]["harmed"] == ["bo"] and readings["ada"]["decided_by"] == "model"
