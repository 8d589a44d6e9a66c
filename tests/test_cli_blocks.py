"""`curator block`, `curator passage` and `curator delete` as a user sees them: round trips
through a world file, --json documents, and one-line errors that change nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_cli import a_turn, as_json, assert_one_line_error, invoke, ok


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def world(runner: CliRunner, world_path: Path) -> str:
    """A world file where bear, wolf and owl exist: one turn observed through the CLI."""
    ok(invoke(runner, "observe", "--db", str(world_path), input=json.dumps(a_turn())))
    return str(world_path)


def blocks(runner: CliRunner, db: str, character: str = "bear") -> list[dict[str, Any]]:
    return as_json(invoke(runner, "block", "list", character, "--json", "--db", db))  # type: ignore[no-any-return]


def test_block_round_trip(runner: CliRunner, world: str, tmp_path: Path) -> None:
    made = ok(invoke(runner, "block", "create", "bear", "personality", "--content", "Slow to anger.",
                     "--limit", "60", "--description", "How I see myself", "--db", world))
    assert made.stdout == "Created block bear/personality (14/60 chars)\n"
    ok(invoke(runner, "block", "create", "bear", "current_state", "--db", world))
    ok(invoke(runner, "block", "append", "bear", "personality", "Loves fish.", "--db", world))
    shown = as_json(invoke(runner, "block", "show", "Bear", "Personality", "--json", "--db", world))
    assert (shown["owner"], shown["label"], shown["content"], shown["char_limit"]) == (
        "bear", "personality", "Slow to anger.\nLoves fish.", 60)
    assert shown["description"] == "How I see myself" and shown["shared"] is False
    text = tmp_path / "state.txt"
    text.write_text("Hungry.\nSleepy.", encoding="utf-8")
    ok(invoke(runner, "block", "set", "bear", "current_state", "--file", str(text), "--db", world))
    ok(invoke(runner, "block", "set", "bear", "personality", "--file", "-", "--db", world,
              input="Calm now."))
    assert [(b["label"], b["content"]) for b in blocks(runner, world)] == [
        ("personality", "Calm now."), ("current_state", "Hungry.\nSleepy.")]
    human = ok(invoke(runner, "block", "list", "bear", "--db", world)).stdout
    assert human == ("personality (9/60 chars) — How I see myself\n  Calm now.\n"
                     "current_state (15/2000 chars)\n  Hungry.\n  Sleepy.\n")
    assert ok(invoke(runner, "block", "delete", "bear", "current_state", "--db", world)).stdout == (
        "Deleted block bear/current_state\n")
    assert [b["label"] for b in blocks(runner, world)] == ["personality"]


def test_shared_block_round_trip(runner: CliRunner, world: str) -> None:
    ok(invoke(runner, "block", "create", "wolf", "news", "--content", "Storm coming.", "--shared",
              "--db", world))
    attached = ok(invoke(runner, "block", "attach", "wolf", "news", "bear", "owl", "--db", world))
    assert attached.stdout == "wolf/news is attached to bear, owl\n"
    ok(invoke(runner, "block", "attach", "wolf", "news", "bear", "--db", world))  # again: unchanged
    assert as_json(invoke(runner, "block", "consumers", "wolf", "news", "--json", "--db", world)) == [
        "bear", "owl"]
    assert ok(invoke(runner, "block", "consumers", "wolf", "news", "--db", world)).stdout == "bear\nowl\n"
    assert "news (13/2000 chars, shared by wolf)" in ok(
        invoke(runner, "block", "list", "bear", "--db", world)).stdout
    owner_view = ok(invoke(runner, "block", "show", "wolf", "news", "--db", world)).stdout
    assert "shared with bear, owl" in owner_view
    assert ok(invoke(runner, "block", "detach", "wolf", "news", "bear", "--db", world)).stdout == (
        "wolf/news is attached to owl\n")
    assert blocks(runner, world) == []
    gone = ok(invoke(runner, "block", "delete", "wolf", "news", "--db", world))
    assert gone.stdout == "Deleted block wolf/news, detached from owl\n"
    assert blocks(runner, world, "owl") == []


@pytest.mark.parametrize(("args", "needles", "code"), [
    pytest.param(["block", "create", "bear", "notes", "--content", "x" * 11, "--limit", "10"],
                 ["bear/notes", "at most 10", "make it 11"], 2, id="create-too-large"),
    pytest.param(["block", "append", "bear", "personality", "x" * 50],
                 ["bear/personality", "at most 20", "make it 65"], 2, id="append-too-large"),
    pytest.param(["block", "set", "bear", "personality", "--content", "x" * 21],
                 ["bear/personality", "at most 20", "make it 21"], 2, id="set-too-large"),
    pytest.param(["block", "create", "bear", "notes", "--limit", "20001"], ["char_limit"], 2,
                 id="limit-too-large"),
    pytest.param(["block", "create", "bear", "Two Words"], ["field 'label'"], 2, id="bad-label"),
    pytest.param(["block", "create", "bear", "personality"], ["already has a block"], 2, id="exists"),
    pytest.param(["block", "set", "bear", "personality"], ["--content", "--file"], 2, id="set-nothing"),
    pytest.param(["block", "create", "bear", "notes", "--content", "a", "--file", "-"], ["not both"], 2,
                 id="content-and-file"),
    pytest.param(["block", "attach", "bear", "personality", "wolf"], ["not shared"], 2, id="not-shared"),
    pytest.param(["block", "attach", "bear", "personality"], ["CHARACTERS"], 2, id="attach-to-nobody"),
    pytest.param(["block", "show", "bear", "nothing"], ["bear has no block 'nothing'"], 1,
                 id="unknown-block"),
    pytest.param(["block", "list", "nobody"], ["unknown character 'nobody'"], 1, id="unknown-character"),
    pytest.param(["passage", "add", "bear", " "], ["field 'content'"], 2, id="blank-passage"),
    pytest.param(["passage", "add", "bear", "text", "--tag", "no way"], ["field 'tags'"], 2, id="bad-tag"),
    pytest.param(["passage", "delete", "bear", "99"], ["bear has no passage 99"], 1,
                 id="unknown-passage"),
    pytest.param(["passage", "delete", "bear", "one"], ["'one' is not a valid integer"], 2,
                 id="passage-id-not-a-number"),
    pytest.param(["passage", "list", "bear", "--limit", "0"], ["field 'limit'"], 2, id="bad-limit"),
    pytest.param(["delete", "bear"], ["cannot be undone", "--yes"], 2, id="delete-without-yes"),
    pytest.param(["delete", "nobody", "--yes"], ["unknown character 'nobody'"], 1, id="delete-unknown"),
])
def test_errors_are_one_line_and_change_nothing(runner: CliRunner, world: str, args: list[str],
                                                needles: list[str], code: int) -> None:
    ok(invoke(runner, "block", "create", "bear", "personality", "--content", "Slow to anger.",
              "--limit", "20", "--db", world))
    before = blocks(runner, world), as_json(invoke(runner, "passage", "list", "bear", "--json",
                                                   "--db", world))
    assert_one_line_error(invoke(runner, *args, "--db", world), *needles, exit_code=code)
    after = blocks(runner, world), as_json(invoke(runner, "passage", "list", "bear", "--json",
                                                  "--db", world))
    assert after == before


def test_passage_round_trip(runner: CliRunner, world: str) -> None:
    added = ok(invoke(runner, "passage", "add", "bear", "A storm flattened the old oak.", "--tag", "Lore",
                      "--tag", "storm", "--db", world))
    assert added.stdout == "Stored passage 1 for bear (tags: lore, storm)\n"
    ok(invoke(runner, "passage", "add", "bear", "Storm after storm after storm.", "--db", world))
    ok(invoke(runner, "passage", "add", "bear", "Wolf stole my fish.", "--tag", "episode", "--db", world))
    listed = as_json(invoke(runner, "passage", "list", "bear", "--json", "--db", world))
    assert [p["id"] for p in listed] == [3, 2, 1]
    assert set(listed[0]) == {"id", "owner", "content", "tags", "created_at"}
    assert [p["id"] for p in as_json(invoke(runner, "passage", "list", "bear", "--tag", "lore",
                                            "--json", "--db", world))] == [1]
    human = ok(invoke(runner, "passage", "list", "bear", "--limit", "1", "--db", world)).stdout
    assert human.startswith("#3 ") and human.endswith(" [episode] Wolf stole my fish.\n")
    hits = as_json(invoke(runner, "passage", "search", "bear", "storm", "--json", "--db", world))
    assert [h["id"] for h in hits] == [2, 1]
    assert hits[0]["score"] > hits[1]["score"] and "[storm]" in hits[1]["snippet"]
    assert ok(invoke(runner, "passage", "search", "bear", "fish", "--db", world)).stdout.startswith("#3 (")
    for hostile in ('"', "AND(", "*", ""):
        result = ok(invoke(runner, "passage", "search", "bear", hostile, "--db", world))
        assert result.stdout == "No passages match.\n" and result.stderr == ""
    assert ok(invoke(runner, "passage", "delete", "bear", "3", "--db", world)).stdout == (
        "Deleted passage 3 of bear\n")
    assert as_json(invoke(runner, "passage", "search", "bear", "fish", "--json", "--db", world)) == []


def test_delete_a_character(runner: CliRunner, world: str) -> None:
    ok(invoke(runner, "block", "create", "wolf", "news", "--content", "Storm.", "--shared", "--db", world))
    ok(invoke(runner, "block", "attach", "wolf", "news", "bear", "--db", world))
    ok(invoke(runner, "passage", "add", "wolf", "The river is mine.", "--db", world))
    result = ok(invoke(runner, "delete", "Wolf", "--yes", "--db", world))
    assert result.stdout.startswith("Deleted wolf (rows removed: memories ")
    assert "block_links 1, blocks 1, passages 1, calls 0, budgets 0, budget_members 0)" in result.stdout
    ids = [row["id"] for row in as_json(invoke(runner, "characters", "--json", "--db", world))]
    assert ids == ["bear", "owl"]
    assert blocks(runner, world) == []
    assert "wolf" not in as_json(invoke(runner, "show", "bear", "--json", "--db", world))["relationships"]
