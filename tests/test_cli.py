"""The command line as a user sees it: help, play, observe, show, fade, export/import, errors.

Every test drives `curator.cli.cli` through click's CliRunner, which keeps stdout and stderr
apart, so "one JSON document on stdout" and "one line on stderr" are checked literally.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result
from conftest import TRANSCRIPT, cli_commands

from curator.cli import cli

CHARACTERS = ("bear", "fox", "owl", "poacher", "wolf")
NAMES = ("Bear", "Wolf", "Fox", "Owl", "Poacher")
# Commands that show state and so take --json (DESIGN.md "Command-line conventions").
JSON_COMMANDS = {"play", "observe", "show", "characters", "end-episode", "fade", "block list",
                 "block show", "block consumers", "passage list", "passage search"}
COMMANDS = cli_commands()  # "show", "block list", …: what a user runs, groups walked through
# Commands that never open a world file, and so take no --db.
NO_WORLD = {"eval locomo", "eval run", "eval diff", "eval judge", "eval paraphrase"}
MEMORY_FIELDS = ("event", "timestamp", "emotional_impact", "importance")


# -- helpers ------------------------------------------------------------------------------


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str, input: str | None = None,
           env: dict[str, str | None] | None = None) -> Result:
    return runner.invoke(cli, list(args), input=input, env=env)


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert result.exception is None
    return result


def as_json(result: Result) -> Any:
    """The whole of stdout is exactly one JSON document (json.loads rejects trailing text)."""
    ok(result)
    return json.loads(result.stdout)


def assert_one_line_error(result: Result, *needles: str, exit_code: int | None = None) -> str:
    """Non-zero exit, nothing on stdout, one 'Error: …' line on stderr, no traceback."""
    assert result.exit_code != 0, result.stdout
    if exit_code is not None:
        assert result.exit_code == exit_code, result.stderr
    # A traceback would mean an exception other than click's own exit escaped the command.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error:"), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def play(runner: CliRunner, db: Path, *extra: str) -> Result:
    return invoke(runner, "play", str(TRANSCRIPT), "--db", str(db), *extra)


def counts(runner: CliRunner, db: Path) -> list[dict[str, Any]]:
    return as_json(invoke(runner, "characters", "--json", "--db", str(db)))  # type: ignore[no-any-return]


def turn_count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        (n,) = conn.execute("select count(*) from turns").fetchone()
    return int(n)


def show(runner: CliRunner, db: Path, character: str = "bear", *extra: str) -> dict[str, Any]:
    return as_json(invoke(runner, "show", character, "--json", "--db", str(db), *extra))  # type: ignore[no-any-return]


@pytest.fixture
def world(runner: CliRunner, world_path: Path) -> Path:
    """The shipped transcript played into a fresh world file through the CLI."""
    ok(play(runner, world_path))
    return world_path


def a_turn(**changes: Any) -> dict[str, Any]:
    turn: dict[str, Any] = {
        "id": "cli-1", "world_time": "2025-02-01T08:00:00Z", "actor": "bear",
        "intent": {"thought": "I need fish", "action": "Head to the river"},
        "reality": "Wolf blocks your path at the river and growls.",
        "others": ["wolf"], "observers": ["owl"],
    }
    turn.update(changes)
    return turn


# -- 1. help and options ------------------------------------------------------------------


def _first_line(command: click.Command) -> str:
    assert command.help, f"{command.name} has no docstring"
    return " ".join(command.help.strip().splitlines()[0].split())


def test_group_help_shows_docstring_and_lists_every_command(runner: CliRunner) -> None:
    result = ok(invoke(runner, "--help"))
    text = " ".join(result.stdout.split())
    assert _first_line(cli) in text
    for name in cli.commands:
        assert name in text


@pytest.mark.parametrize("name", sorted(n for n, c in cli.commands.items() if isinstance(c, click.Group)))
def test_every_group_help_shows_docstring_and_lists_its_commands(runner: CliRunner, name: str) -> None:
    group = cli.commands[name]
    assert isinstance(group, click.Group)
    text = " ".join(ok(invoke(runner, name, "--help")).stdout.split())
    assert _first_line(group) in text
    for sub in group.commands:
        assert sub in text


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help_with_its_docstring(runner: CliRunner, name: str) -> None:
    result = ok(invoke(runner, *name.split(), "--help"))
    # click re-wraps long lines, so compare with whitespace normalised.
    assert _first_line(COMMANDS[name]) in " ".join(result.stdout.split())
    assert ("--db" in result.stdout) is (name not in NO_WORLD)
    assert result.stderr == ""


def test_every_command_takes_db_and_state_commands_take_json() -> None:
    assert set(COMMANDS) >= JSON_COMMANDS | {"export", "import"}
    for name, command in COMMANDS.items():
        options = {opt for param in command.params for opt in param.opts}
        assert ("--db" in options) is (name not in NO_WORLD), f"{name}: --db"
        if name in JSON_COMMANDS:
            assert "--json" in options, f"{name} does not take --json"


# -- 2./3. play ---------------------------------------------------------------------------


def test_play_reports_turns_characters_and_fallbacks(runner: CliRunner, world_path: Path) -> None:
    result = ok(play(runner, world_path))
    out = result.stdout
    assert "Played 50 turns" in out
    assert "50 new, 0 already seen" in out
    for name in NAMES:
        assert name in out
    assert "no model configured" in out
    assert "Traceback" not in out
    assert result.stderr == ""  # no progress bar when not on a terminal


def test_play_again_skips_every_turn_and_changes_nothing(runner: CliRunner, world: Path) -> None:
    before = counts(runner, world)
    result = ok(play(runner, world))
    assert "Played 50 turns" in result.stdout
    assert "0 new, 50 already seen" in result.stdout
    assert counts(runner, world) == before
    assert turn_count(world) == 50


def test_play_json_is_one_document(runner: CliRunner, world_path: Path) -> None:
    result = play(runner, world_path, "--json")
    document = as_json(result)
    assert result.stderr == ""
    assert {"turns", "new", "formed", "fallbacks_by_reason", "characters"} <= set(document)
    assert document["turns"] == 50
    assert document["new"] == 50
    assert document["formed"] > 0
    assert document["fallbacks_by_reason"].get("no model configured", 0) > 0
    assert sorted(document["characters"]) == list(CHARACTERS)
    again = as_json(play(runner, world_path, "--json"))
    assert (again["new"], again["already_seen"], again["formed"]) == (0, 50, 0)
    assert again["characters"] == document["characters"]


# -- 4. show ------------------------------------------------------------------------------


def _check_memory(memory: dict[str, Any]) -> None:
    for field in MEMORY_FIELDS:
        assert field in memory, (field, memory)
    assert isinstance(memory["event"], str) and memory["event"]
    datetime.fromisoformat(memory["timestamp"])
    assert 0.0 <= memory["importance"] <= 1.0


def test_show_json_has_the_seed_001_shape(runner: CliRunner, world: Path) -> None:
    doc = show(runner, world)
    assert doc["format"] == "curator.character"
    assert doc["format_version"] == 2
    assert doc["character"]["id"] == "bear"
    own = doc["self_memories"]
    assert {"immediate_context", "recent_events", "core_memories"} <= set(own)
    for memory in own["recent_events"] + own["core_memories"]:
        _check_memory(memory)
    assert own["core_memories"], "the poacher attack should be a core memory for bear"
    assert {"wolf", "fox", "owl", "poacher"} <= set(doc["relationships"])
    for other, rel in doc["relationships"].items():
        for key in ("immediate_context", "recent_memories", "long_term_summary", "core_memories",
                    "current_sentiment", "overall_bond"):
            assert key in rel, (other, key)
        assert len(rel["recent_memories"]) <= 10, other
        for memory in rel["recent_memories"] + rel["core_memories"]:
            _check_memory(memory)
        assert -1.0 <= rel["current_sentiment"] <= 1.0
        assert -1.0 <= rel["overall_bond"] <= 1.0
    wolf = doc["relationships"]["wolf"]
    assert wolf["immediate_context"]
    assert wolf["recent_memories"]
    assert wolf["long_term_summary"]


def test_show_about_returns_only_that_relationship(runner: CliRunner, world: Path) -> None:
    full = show(runner, world)
    doc = show(runner, world, "bear", "--about", "wolf")
    assert "relationships" not in doc and "self_memories" not in doc
    assert doc["about"] == "wolf"
    assert doc["character"]["id"] == "bear"
    assert doc["relationship"] == full["relationships"]["wolf"]
    # Names are case-insensitive.
    assert show(runner, world, "Bear", "--about", "Wolf")["relationship"] == doc["relationship"]


def test_show_human_output(runner: CliRunner, world: Path) -> None:
    about = ok(invoke(runner, "show", "bear", "--about", "wolf", "--db", str(world)))
    assert about.stdout.startswith("Bear")
    assert "Wolf" in about.stdout
    assert "Fox:" not in about.stdout  # only the relationship asked for
    assert about.stderr == ""
    everything = ok(invoke(runner, "show", "bear", "--db", str(world))).stdout
    for name in ("Wolf", "Fox", "Owl", "Poacher"):
        assert f"{name}:" in everything
    assert "core:" in everything


@pytest.fixture
def evolved(runner: CliRunner, world: Path) -> Path:
    """The played world after one evolution cycle at its clock."""
    ok(invoke(runner, "evolve", "--db", str(world), "--out", str(world.with_suffix(".md"))))
    return world


def test_show_before_any_cycle_says_so(runner: CliRunner, world: Path) -> None:
    text = ok(invoke(runner, "show", "bear", "--db", str(world))).stdout
    assert "evolution: no cycle yet" in text
    assert "attributes:" not in text and "personality" not in text
    assert "trusts somewhat (50%), rapport 50%" in text  # neutral until a cycle moves them


def test_show_human_output_has_personality_attributes_and_trust(runner: CliRunner, evolved: Path) -> None:
    text = ok(invoke(runner, "show", "bear", "--db", str(evolved))).stdout
    doc = show(runner, evolved)
    snapshot = doc["personality_snapshots"][-1]
    assert f"personality (snapshot 1, {snapshot['world_time']}):" in text
    for key, label in (("work_style", "work style"), ("risk_tolerance", "risk tolerance"),
                       ("social_orientation", "social orientation"), ("learning_style", "learning style"),
                       ("stress_response", "stress response")):
        assert f"{label}: {snapshot[key].replace('_', ' ')}" in text
    assert f"identity (the fallback): {snapshot['identity_summary']}" in text
    lines = text.splitlines()
    # Every attribute with its value, and the last change with the memory that caused it.
    for name, attribute in doc["attributes"].items():
        line = next(x for x in lines if x.strip().startswith(f"{name} {attribute['value']:.2f}"))
        changes = [c for c in doc["attribute_changes"] if c["attribute"] == name and c["other"] is None]
        if changes:
            last = changes[-1]
            assert f"(last {last['delta']:+.3f} at {last['world_time']}: " in line, line
            assert line.endswith(f"memory {last['memory_id']})"), line
            assert last["reason"].split(": ", 1)[1] in line
    assert any("(last " in x for x in lines)  # the fixture moved something
    for other, rel in doc["relationships"].items():
        line = next(x for x in lines if x.startswith(f"  {other.title()}: feels"))
        assert f"({rel['trust']:.0%}), rapport {rel['rapport']:.0%}" in line, line
    about = ok(invoke(runner, "show", "bear", "--about", "fox", "--db", str(evolved))).stdout
    assert "personality" not in about and "attributes:" not in about  # only the relationship
    assert f"rapport {doc['relationships']['fox']['rapport']:.0%}" in about


def test_show_json_has_what_the_human_output_shows(runner: CliRunner, evolved: Path) -> None:
    doc = show(runner, evolved)
    assert doc["format_version"] == 2
    [snapshot] = doc["personality_snapshots"]
    assert {"work_style", "risk_tolerance", "social_orientation", "learning_style", "stress_response",
            "identity_summary"} <= set(snapshot)
    assert doc["attributes"]["caution"]["value"] == snapshot["attributes"]["caution"]
    assert doc["attribute_changes"] and all(c["memory_id"].startswith("m_") for c in doc["attribute_changes"])
    moved = [rel for rel in doc["relationships"].values() if (rel["trust"], rel["rapport"]) != (0.5, 0.5)]
    assert moved
    about = show(runner, evolved, "bear", "--about", "fox")
    assert (about["relationship"]["trust"], about["relationship"]["rapport"]) == (
        doc["relationships"]["fox"]["trust"], doc["relationships"]["fox"]["rapport"])


# -- 5. errors ----------------------------------------------------------------------------


def test_show_unknown_character_is_one_line(runner: CliRunner, world: Path) -> None:
    assert_one_line_error(invoke(runner, "show", "nobody", "--db", str(world)), "'nobody'")
    assert_one_line_error(invoke(runner, "show", "nobody", "--json", "--db", str(world)),
                          "'nobody'")
    assert_one_line_error(invoke(runner, "show", "bear", "--about", "nobody", "--db", str(world)),
                          "'nobody'")


@pytest.mark.parametrize(("text", "needle"), [
    ('{"id": "x"', "JSON"),
    (json.dumps({k: v for k, v in a_turn().items() if k != "world_time"}), "world_time"),
    (json.dumps(a_turn(mood="x")), "mood"),
    ("[1, 2]", "object"),
    ("", "JSON"),
], ids=["malformed", "missing-world_time", "unknown-field", "not-an-object", "empty"])
def test_observe_bad_input_is_exit_2_and_changes_nothing(
        runner: CliRunner, world: Path, text: str, needle: str) -> None:
    before_counts, before_turns = counts(runner, world), turn_count(world)
    assert_one_line_error(invoke(runner, "observe", "--db", str(world), input=text), needle,
                          exit_code=2)
    assert_one_line_error(invoke(runner, "observe", "--json", "--db", str(world), input=text),
                          needle, exit_code=2)
    assert turn_count(world) == before_turns == 50
    assert counts(runner, world) == before_counts


def test_observe_same_id_different_content_is_refused(runner: CliRunner, world: Path) -> None:
    ok(invoke(runner, "observe", "--db", str(world), input=json.dumps(a_turn())))
    before = counts(runner, world)
    changed = json.dumps(a_turn(reality="Something else entirely happens."))
    assert_one_line_error(invoke(runner, "observe", "--db", str(world), input=changed), "cli-1",
                          exit_code=2)
    assert counts(runner, world) == before
    assert turn_count(world) == 51


def test_observe_turn_before_world_clock_is_refused(runner: CliRunner, world: Path) -> None:
    early = json.dumps(a_turn(world_time="2024-12-01T00:00:00Z"))
    before = counts(runner, world)
    assert_one_line_error(invoke(runner, "observe", "--db", str(world), input=early),
                          "world_time", exit_code=2)
    assert counts(runner, world) == before
    assert turn_count(world) == 50


# -- 6./7. observe ------------------------------------------------------------------------


def test_observe_stdin_prints_turn_id_and_dedupes(runner: CliRunner, world_path: Path) -> None:
    text = json.dumps(a_turn())
    first = ok(invoke(runner, "observe", "--db", str(world_path), input=text))
    assert "cli-1" in first.stdout
    assert "Bear" in first.stdout and "Wolf" in first.stdout
    assert first.stderr == ""
    again = ok(invoke(runner, "observe", "--db", str(world_path), input=text))
    assert "cli-1" in again.stdout
    assert "already observed" in again.stdout
    assert turn_count(world_path) == 1


def test_observe_json_is_a_turn_result(runner: CliRunner, world_path: Path) -> None:
    text = json.dumps(a_turn())
    result = invoke(runner, "observe", "--json", "--db", str(world_path), input=text)
    doc = as_json(result)
    assert result.stderr == ""
    assert doc["turn_id"] == "cli-1"
    assert doc["duplicate"] is False
    assert isinstance(doc["formed"], list) and doc["formed"]
    assert {change["owner"] for change in doc["formed"]} >= {"bear", "owl"}  # actor and observer
    assert doc["steps"]
    for step in doc["steps"]:
        assert step["decided_by"] == "fallback", step
        assert step["reason"] == "no model configured", step
    again = as_json(invoke(runner, "observe", "--json", "--db", str(world_path), input=text))
    assert again["duplicate"] is True
    assert again["turn_id"] == "cli-1"
    assert turn_count(world_path) == 1


def test_observe_file_works_like_stdin(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "turn.json"
    path.write_text(json.dumps(a_turn()), encoding="utf-8")
    via_file = tmp_path / "file.db"
    via_stdin = tmp_path / "stdin.db"
    from_file = as_json(invoke(runner, "observe", "--file", str(path), "--json",
                               "--db", str(via_file)))
    from_stdin = as_json(invoke(runner, "observe", "--json", "--db", str(via_stdin),
                                input=path.read_text(encoding="utf-8")))
    for doc in (from_file, from_stdin):
        doc.pop("elapsed_ms")
    assert from_file == from_stdin
    human = ok(invoke(runner, "observe", "--file", str(path), "--db", str(via_file)))
    assert "cli-1" in human.stdout and "already observed" in human.stdout
    assert show(runner, via_file) == show(runner, via_stdin)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(a_turn(id="cli-2", mood="x")), encoding="utf-8")
    assert_one_line_error(invoke(runner, "observe", "--file", str(bad), "--db", str(via_file)),
                          "mood", exit_code=2)
    assert turn_count(via_file) == 1


# -- 8. export / import -------------------------------------------------------------------


def _relationship_essentials(doc: dict[str, Any]) -> dict[str, Any]:
    return {other: {"events": [m["event"] for m in rel["recent_memories"]],
                    "core": [m["event"] for m in rel["core_memories"]],
                    "summary": rel["long_term_summary"],
                    "sentiment": rel["current_sentiment"], "bond": rel["overall_bond"]}
            for other, rel in doc["relationships"].items()}


def _export(runner: CliRunner, db: Path, out: Path) -> dict[str, Any]:
    result = ok(invoke(runner, "export", "--db", str(db), "--out", str(out)))
    assert result.stdout == ""
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _assert_same_characters(one: dict[str, Any], two: dict[str, Any]) -> None:
    assert one["format"] == two["format"] == "curator.world"
    assert one["clock"] == two["clock"]
    assert [c["character"]["id"] for c in one["characters"]] == list(CHARACTERS)
    assert [c["character"]["id"] for c in two["characters"]] == list(CHARACTERS)
    bear_one = next(c for c in one["characters"] if c["character"]["id"] == "bear")
    bear_two = next(c for c in two["characters"] if c["character"]["id"] == "bear")
    assert _relationship_essentials(bear_one) == _relationship_essentials(bear_two)
    assert one["characters"] == two["characters"]


def test_export_then_import_into_a_new_world(runner: CliRunner, world: Path,
                                             tmp_path: Path) -> None:
    exported = _export(runner, world, tmp_path / "world.json")
    copy = tmp_path / "copy.db"
    imported = ok(invoke(runner, "import", str(tmp_path / "world.json"), "--db", str(copy)))
    assert imported.stdout.startswith("Imported 5 characters")
    _assert_same_characters(exported, _export(runner, copy, tmp_path / "copy.json"))
    assert counts(runner, copy) == counts(runner, world)
    # Importing again would overwrite: refused without --replace, done with it.
    assert_one_line_error(invoke(runner, "import", str(tmp_path / "world.json"), "--db", str(copy)),
                          "already exists")
    assert counts(runner, copy) == counts(runner, world)
    ok(invoke(runner, "import", str(tmp_path / "world.json"), "--replace", "--db", str(copy)))
    assert counts(runner, copy) == counts(runner, world)
    _assert_same_characters(exported, _export(runner, copy, tmp_path / "again.json"))


def test_import_characters_one_by_one(runner: CliRunner, world: Path, tmp_path: Path) -> None:
    """Importing bear names wolf, fox, …; importing them afterwards is not an overwrite."""
    copy = tmp_path / "copy.db"
    for character in ("bear", "fox", "wolf"):
        out = tmp_path / f"{character}.json"
        ok(invoke(runner, "export", character, "--db", str(world), "--out", str(out)))
        ok(invoke(runner, "import", str(out), "--db", str(copy)))
        assert show(runner, copy, character) == show(runner, world, character)
    assert_one_line_error(invoke(runner, "import", str(tmp_path / "fox.json"), "--db", str(copy)),
                          "'fox'", "already exists")


def test_export_import_round_trip_with_replace(runner: CliRunner, world: Path,
                                               tmp_path: Path) -> None:
    exported = _export(runner, world, tmp_path / "world.json")
    stdout_doc = as_json(invoke(runner, "export", "--db", str(world)))
    assert stdout_doc == exported
    copy = tmp_path / "copy.db"
    imported = ok(invoke(runner, "import", str(tmp_path / "world.json"), "--replace",
                         "--db", str(copy)))
    assert "Imported 5 characters" in imported.stdout
    _assert_same_characters(exported, _export(runner, copy, tmp_path / "copy.json"))
    assert counts(runner, copy) == counts(runner, world)

    again = invoke(runner, "import", str(tmp_path / "world.json"), "--db", str(copy))
    assert_one_line_error(again, "already exists")
    assert counts(runner, copy) == counts(runner, world)
    ok(invoke(runner, "import", str(tmp_path / "world.json"), "--replace", "--db", str(copy)))
    assert counts(runner, copy) == counts(runner, world)
    _assert_same_characters(exported, _export(runner, copy, tmp_path / "again.json"))


def test_export_one_character(runner: CliRunner, world: Path, tmp_path: Path) -> None:
    doc = as_json(invoke(runner, "export", "bear", "--db", str(world)))
    assert doc == show(runner, world)
    assert_one_line_error(invoke(runner, "export", "nobody", "--db", str(world)), "'nobody'")


def test_imported_world_fades_like_the_original(runner: CliRunner, world: Path,
                                                tmp_path: Path) -> None:
    _export(runner, world, tmp_path / "world.json")
    copy = tmp_path / "copy.db"
    ok(invoke(runner, "import", str(tmp_path / "world.json"), "--db", str(copy)))
    for db in (world, copy):
        ok(invoke(runner, "fade", "--until", "2025-02-10T00:00:00Z", "--db", str(db)))
    original = show(runner, world)["relationships"]["wolf"]["recent_memories"]
    imported = show(runner, copy)["relationships"]["wolf"]["recent_memories"]
    # Same memories kept; strengths equal up to the export's 4-decimal rounding.
    assert [m["event"] for m in imported] == [m["event"] for m in original]
    assert [m["strength"] for m in imported] == \
        pytest.approx([m["strength"] for m in original], abs=1e-3)


@pytest.mark.parametrize(("content", "needle"), [
    ('{"format": "nope"}', "not a curator export"),
    ("[1, 2, 3]", "not a curator export"),
    ("{not json", "not JSON"),
    ('{"format": "curator.world", "format_version": 99, "characters": []}', "format_version"),
], ids=["wrong-format", "not-an-object", "not-json", "future-version"])
def test_import_rejects_non_curator_files(runner: CliRunner, world: Path, tmp_path: Path,
                                          content: str, needle: str) -> None:
    path = tmp_path / "other.json"
    path.write_text(content, encoding="utf-8")
    before = counts(runner, world)
    assert_one_line_error(invoke(runner, "import", str(path), "--db", str(world)), needle)
    assert_one_line_error(invoke(runner, "import", str(path), "--replace", "--db", str(world)),
                          needle)
    assert counts(runner, world) == before


def test_an_evolved_world_round_trips_through_export_and_import(runner: CliRunner, evolved: Path,
                                                                 tmp_path: Path) -> None:
    exported = _export(runner, evolved, tmp_path / "world.json")
    assert len(exported["evolution_reports"]) == 1
    copy = tmp_path / "copy.db"
    ok(invoke(runner, "import", str(tmp_path / "world.json"), "--db", str(copy)))
    assert _export(runner, copy, tmp_path / "copy.json") == exported
    assert ok(invoke(runner, "show", "bear", "--db", str(copy))).stdout == \
        ok(invoke(runner, "show", "bear", "--db", str(evolved))).stdout


def test_import_names_the_malformed_field_and_writes_nothing(runner: CliRunner, evolved: Path,
                                                            tmp_path: Path) -> None:
    document = _export(runner, evolved, tmp_path / "world.json")
    document["characters"][0]["personality_snapshots"][0]["risk_tolerance"] = None
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    before = ok(invoke(runner, "export", "--db", str(evolved))).stdout
    assert_one_line_error(invoke(runner, "import", str(path), "--replace", "--db", str(evolved)),
                          "'characters.0.personality_snapshots.0.risk_tolerance'", "'bear'")
    assert ok(invoke(runner, "export", "--db", str(evolved))).stdout == before


# -- 9. fade ------------------------------------------------------------------------------


def _core(doc: dict[str, Any]) -> dict[str, Any]:
    return {"self": doc["self_memories"]["core_memories"],
            **{other: rel["core_memories"] for other, rel in doc["relationships"].items()}}


def test_fade_forgets_into_the_archive(runner: CliRunner, world: Path,
                                       transcript_turns: list[dict[str, Any]]) -> None:
    last = max(datetime.fromisoformat(t["world_time"]) for t in transcript_turns)
    until = (last + timedelta(days=200)).isoformat()
    before = show(runner, world)
    result = ok(invoke(runner, "fade", "--until", until, "--db", str(world)))
    first = result.stdout.splitlines()[0]
    assert first.startswith("Faded to")
    forgotten = int(first.split(": ")[1].split()[0])
    assert forgotten > 0
    assert "forgotten" in first

    after = show(runner, world)
    recent_before = sum(len(r["recent_memories"]) for r in before["relationships"].values())
    recent_after = sum(len(r["recent_memories"]) for r in after["relationships"].values())
    assert recent_after < recent_before
    assert len(after["self_memories"]["recent_events"]) < \
        len(before["self_memories"]["recent_events"])
    for other, rel in before["relationships"].items():
        kept = {m["id"] for m in after["relationships"][other]["recent_memories"]}
        archived = {m["id"]: m for m in after["relationships"][other]["archived_memories"]}
        for memory in rel["recent_memories"]:
            if memory["id"] not in kept:
                assert memory["id"] in archived, (other, memory["event"])
                assert archived[memory["id"]]["archived_reason"] == "forgotten"
                assert archived[memory["id"]]["event"] == memory["event"]
    assert _core(after) == _core(before)

    # The world clock moved: fading to an earlier time is now refused.
    assert_one_line_error(invoke(runner, "fade", "--until", last.isoformat(), "--db", str(world)),
                          "before the world clock")


def test_fade_json(runner: CliRunner, world: Path) -> None:
    doc = as_json(invoke(runner, "fade", "--until", "2025-09-01T00:00:00Z", "--json",
                         "--db", str(world)))
    assert doc["forgotten"]
    assert all({"owner", "content"} <= set(change) for change in doc["forgotten"])
    archived = sum(row["archived"] for row in counts(runner, world))
    assert archived >= len(doc["forgotten"])


@pytest.mark.parametrize(("until", "needle"), [
    ("2025-01-01T00:00:00Z", "before the world clock"),
    ("not-a-date", "not-a-date"),
], ids=["before-clock", "not-a-date"])
def test_fade_bad_until_is_one_line(runner: CliRunner, world: Path, until: str,
                                    needle: str) -> None:
    before = counts(runner, world)
    assert_one_line_error(invoke(runner, "fade", "--until", until, "--db", str(world)), needle)
    assert counts(runner, world) == before


# -- 10. end-episode ----------------------------------------------------------------------


def test_end_episode_revises_the_summary(runner: CliRunner, world: Path) -> None:
    doc = as_json(invoke(runner, "end-episode", "bear", "--with", "wolf", "--json",
                         "--db", str(world)))
    revised = doc["summaries_revised"]
    assert any(s["owner"] == "bear" and s["other"] == "wolf" and s["summary"] for s in revised)
    assert all(s["other"] == "wolf" for s in revised)
    assert all(step["decided_by"] == "fallback" for step in doc["steps"])
    summary = next(s["summary"] for s in revised if s["other"] == "wolf")
    assert show(runner, world)["relationships"]["wolf"]["long_term_summary"] == summary


def test_end_episode_human_output(runner: CliRunner, world: Path) -> None:
    result = ok(invoke(runner, "end-episode", "bear", "--db", str(world)))
    assert result.stdout.startswith("Episode ended:")
    assert "Bear on Wolf:" in result.stdout


def test_end_episode_errors_are_one_line(runner: CliRunner, world: Path) -> None:
    before = counts(runner, world)
    assert_one_line_error(invoke(runner, "end-episode", "bear", "--with", "nobody",
                                 "--db", str(world)), "'nobody'")
    assert_one_line_error(invoke(runner, "end-episode", "nobody", "--db", str(world)), "'nobody'")
    assert counts(runner, world) == before


# -- 11. characters -----------------------------------------------------------------------


def test_characters_lists_the_cast_with_counts(runner: CliRunner, world: Path) -> None:
    rows = counts(runner, world)
    assert [row["id"] for row in rows] == list(CHARACTERS)
    for row in rows:
        assert {"recent", "core", "archived"} <= set(row)
        assert all(isinstance(row[k], int) and row[k] >= 0 for k in ("recent", "core", "archived"))
    by_id = {row["id"]: row for row in rows}
    assert by_id["bear"]["recent"] > 0 and by_id["bear"]["core"] > 0
    bear = show(runner, world)
    recent = len(bear["self_memories"]["recent_events"]) + sum(
        len(r["recent_memories"]) for r in bear["relationships"].values())
    assert by_id["bear"]["recent"] == recent
    human = ok(invoke(runner, "characters", "--db", str(world))).stdout.splitlines()
    assert [line.split(":")[0] for line in human] == list(CHARACTERS)
    assert human[0] == (f"bear: {by_id['bear']['recent']} recent, {by_id['bear']['core']} core, "
                        f"{by_id['bear']['archived']} archived")


# -- 12. where the world lives ------------------------------------------------------------


def test_curator_db_env_var_chooses_the_world(runner: CliRunner, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "elsewhere" / "from-env.db"
    target.parent.mkdir()
    env: dict[str, str | None] = {"CURATOR_DB": str(target)}
    result = ok(invoke(runner, "play", str(TRANSCRIPT), env=env))
    assert "Played 50 turns" in result.stdout
    assert str(target) in result.stdout  # "… into <db>"
    assert not (tmp_path / "curator.db").exists()
    assert turn_count(target) == 50
    assert [row["id"] for row in as_json(invoke(runner, "characters", "--json", env=env))] \
        == list(CHARACTERS)
    # --db wins over the environment.
    explicit = tmp_path / "explicit.db"
    ok(invoke(runner, "observe", "--db", str(explicit), input=json.dumps(a_turn()), env=env))
    assert turn_count(explicit) == 1
    assert turn_count(target) == 50


def test_default_world_is_curator_db_in_the_working_directory(
        runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    ok(invoke(runner, "observe", input=json.dumps(a_turn()), env={"CURATOR_DB": None}))
    assert turn_count(tmp_path / "curator.db") == 1


def test_play_stops_at_a_bad_line_keeps_what_came_before_and_resumes(tmp_path: Path) -> None:
    good = TRANSCRIPT.read_text().splitlines()
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join([*good[:3], '{"id": "oops"}', *good[3:5]]) + "\n")
    db = str(tmp_path / "w.db")
    result = CliRunner().invoke(cli, ["play", str(broken), "--db", db])
    assert result.exit_code == 2
    assert result.stderr.strip() == (f"Error: {broken}:4: invalid turn: turn 'oops': "
                                     "field 'world_time': Field required (3 turns before it are "
                                     "stored; fix that line and play again to resume)")
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*) from turns").fetchone()[0] == 3
    conn.close()
    broken.write_text("\n".join([*good[:3], *good[3:5]]) + "\n")
    again = CliRunner().invoke(cli, ["play", str(broken), "--db", db])
    assert again.exit_code == 0 and "(2 new, 3 already seen)" in again.stdout


# -- with a model (the stub server on 127.0.0.1; its answers are scripted) ---------------------

def _calm(body: dict[str, Any], headers: Any) -> dict[str, Any]:
    """A scripted model that finds nothing worth remembering in any turn. The rules still keep
    a clash the actor lived (at least notable), and a kept memory that meets a summary is
    reconciled: this model sees no conflict there."""
    template = headers["x-curator-template"]
    user = body["messages"][-1]["content"]
    happened = user.rsplit("<game_text>", 1)[1].split("</game_text>", 1)[0]
    words = " ".join(happened.split()[:12])  # in the game's (or the memory's) words
    if template.startswith("reconcile.j2@"):  # a view (a trait named) that holds the new memory
        memory = user.split("The new memory: <game_text>", 1)[1].split("</game_text>", 1)[0]
        old = user.split("until now: <game_text>", 1)[-1].split("</game_text>", 1)[0]  # kept whole
        told = " ".join(memory.split()[:12])
        return {"conflict": False, "summary": f"{old} Kind enough, as ever: {told}", "bond_shift": 0.0,
                "reason": told}
    assert template.startswith("interpret.j2@")
    return {"harm": False, "danger": False, "significance": "trivial", "emotion": "calm",
            "memory": words}


def test_play_with_a_model_reports_calls_tokens_and_fallbacks(runner: CliRunner, tmp_path: Path) -> None:
    from curator.model.llm import release_connections
    from curator.model.stub_server import StubModelServer

    db = tmp_path / "w.db"
    with StubModelServer(_calm) as stub:
        summary = as_json(ok(invoke(runner, "play", str(TRANSCRIPT), "--db", str(db), "--model",
                                    "openai/stub", "--api-base", stub.url, "--json")))
        text = ok(invoke(runner, "play", str(TRANSCRIPT), "--db", str(tmp_path / "again.db"),
                         "--model", "openai/stub", "--api-base", stub.url)).output
    release_connections()
    # One interpret call a character-turn (67), and a reconcile for each of the two clashes
    # the rules kept that met a summary.
    assert summary["model"] == "openai/stub" and summary["model_calls"] == 69
    assert summary["calls_per_character_turn"] == 1.03 and summary["decided_by_model"] == 69
    assert summary["fallbacks_by_reason"] == {} and summary["prompt_tokens_per_turn"] > 500
    assert "Model openai/stub: 69 calls (1.38/turn, 1.03/character-turn)" in text
    logged = as_json(ok(invoke(runner, "calls", "--db", str(db), "--limit", "1000", "--json")))
    assert len(logged["calls"]) == 69 and logged["totals"]["by_model"] == 69
    steps = [c["step"] for c in logged["calls"]]
    assert steps.count("interpret") == 67 and steps.count("reconcile") == 2
    lines = ok(invoke(runner, "calls", "--db", str(db), "--turn", "t001")).output.splitlines()
    assert lines[0].split()[1:4] == ["turn", "t001", "bear"] and "interpret" in lines[0]
    assert "No model calls logged that match." in ok(
        invoke(runner, "calls", "--db", str(db), "--outcome", "fallback")).output


def test_an_unreachable_model_falls_back_and_play_still_plays(runner: CliRunner, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CURATOR_MODEL", "openai/nobody")
    monkeypatch.setenv("CURATOR_API_BASE", "http://127.0.0.1:9/v1")  # the discard port: refused
    monkeypatch.setattr("curator.model.llm.time.sleep", lambda seconds: None)
    summary = as_json(ok(invoke(runner, "play", str(TRANSCRIPT), "--db", str(tmp_path / "w.db"),
                                "--json")))
    assert summary["new"] == 50 and summary["decided_by_model"] == 0
    # Refused once (the first turn's perceivers), then left alone for the cool-down, at no cost
    reasons = summary["fallbacks_by_reason"]
    assert 0 < reasons.pop("connection error") <= 2
    assert reasons and all(r.startswith("model unreachable (cooling down") for r in reasons)
