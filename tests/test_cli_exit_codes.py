"""Every command's exit status, as README.md's "Exit status" table says: 2 for bad input, 3 for a
locked world, 1 for a name the world does not know (and anything else), each one line on
stderr with no traceback, nothing on stdout.

The table below has a row per command (a test fails when a command is added without one): its
bad input, its unknown name where it takes one, and what it does while another process holds
the world's write lock (3 when it writes; 0 when it only reads: SQLite's WAL lets readers read).
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import ROOT, TRANSCRIPT, cli_commands

from curator import Curator
from curator.cli import cli

A = "a b!"  # not a character id, nor a label
MEMORY = "m_0edf16ba504b470a27fd46"  # bear's core memory of the poacher's trap (turn t034)
TURN = {"id": "new-1", "world_time": "2026-01-01T00:00:00Z", "actor": "bear",
        "intent": {"action": "Sleep"}, "reality": "You sleep."}

# command → (bad input → 2, unknown name → 1 (None: it takes no name), locked → 3 or 0).
# Words in capitals are filled in: DB the world, DIR a scratch directory, files written there.
TABLE: dict[str, tuple[list[str], list[str] | None, tuple[list[str], int]]] = {
    "abilities": (["abilities", A], ["abilities", "nobody"], (["abilities", "bear"], 0)),
    "block append": (["block", "append", "bear", "mood", "x" * 80],
                     ["block", "append", "bear", "nothing", "x"],
                     (["block", "append", "bear", "mood", "!"], 3)),
    "block attach": (["block", "attach", "bear", "mood", "wolf"],
                     ["block", "attach", "bear", "nothing", "wolf"],
                     (["block", "attach", "bear", "storm", "owl"], 3)),
    "block consumers": (["block", "consumers", A, "storm"], ["block", "consumers", "bear", "nothing"],
                        (["block", "consumers", "bear", "storm"], 0)),
    "block create": (["block", "create", "bear", "x", "--content", "toolong", "--limit", "3"],
                     ["block", "create", "nobody", "x", "--content", "hi"],
                     (["block", "create", "bear", "newone", "--content", "hi"], 3)),
    "block delete": (["block", "delete", "bear", A], ["block", "delete", "bear", "nothing"],
                     (["block", "delete", "bear", "mood"], 3)),
    "block detach": (["block", "detach", "bear", "storm", A], ["block", "detach", "bear", "nothing", "wolf"],
                     (["block", "detach", "bear", "storm", "wolf"], 3)),
    "block list": (["block", "list", A], ["block", "list", "nobody"], (["block", "list", "bear"], 0)),
    "block set": (["block", "set", "bear", "mood", "--content", "x" * 80],
                  ["block", "set", "bear", "nothing", "--content", "x"],
                  (["block", "set", "bear", "mood", "--content", "calm"], 3)),
    "block show": (["block", "show", A, "mood"], ["block", "show", "bear", "nothing"],
                   (["block", "show", "bear", "mood"], 0)),
    "budget clear": (["budget", "clear", A], None, (["budget", "clear", "bear"], 3)),
    "budget group": (["budget", "group", A, "bear"], None, (["budget", "group", "animals", "bear"], 3)),
    "budget set": (["budget", "set", "bear", "--use", "sometimes"], None,
                   (["budget", "set", "bear", "--use", "never"], 3)),
    "budget show": (["budget", "show", A], None, (["budget", "show"], 0)),
    "branch": (["branch", "--at", "t001", "--to", "DB"], None,
               (["branch", "--at", "t005", "--to", "DIR/b.db"], 0)),
    "calls": (["calls", "--outcome", "bogus"], None, (["calls"], 0)),
    "characters": (["characters", "--db", "DIR"], None, (["characters"], 0)),
    "clock": (["clock", "--set", "nope"], None, (["clock", "--set", "2030-01-01T00:00:00Z"], 3)),
    "context": (["context", "bear", "--layers", "bogus"], ["context", "nobody"], (["context", "bear"], 3)),
    "delete": (["delete", "bear"], ["delete", "nobody", "--yes"], (["delete", "owl", "--yes"], 3)),
    "end-episode": (["end-episode", A], ["end-episode", "nobody"], (["end-episode", "bear"], 3)),
    "embed": (["embed", "--setup", "nope"], ["embed", "--character", "nobody"],
              (["embed", "--setup", "hashing"], 3)),
    "eval diff": (["eval", "diff", "OBJ", "OBJ"], None, ([], 0)),
    "eval judge": (["eval", "judge", "OBJ"], None, ([], 0)),
    "eval locomo": (["eval", "locomo", "OBJ"], None, ([], 0)),
    "eval paraphrase": (["eval", "paraphrase", "OBJ"], None, ([], 0)),
    "eval run": (["eval", "run", "OBJ"], None, ([], 0)),
    "evolution reports": (["evolution", "reports", "extra"], ["evolution", "reports"],
                          (["evolution", "reports"], 1)),  # no report yet: 1, the lock does not matter
    "evolve": (["evolve", "--world-time", "nope"], None, (["evolve"], 3)),
    "export": (["export", "bear", "--out", "DIR/no/such/dir.json"], ["export", "nobody"], (["export"], 0)),
    "fade": (["fade", "--until", "nope"], None, (["fade", "--until", "2030-01-01T00:00:00Z"], 3)),
    "goal abandon": (["goal", "abandon", A, "den"], ["goal", "abandon", "bear", "nothing"],
                     (["goal", "abandon", "bear", "den"], 3)),
    "goal advance": (["goal", "advance", "bear", "den", "lots"],
                     ["goal", "advance", "bear", "nothing", "0.1"],
                     (["goal", "advance", "bear", "den", "0.1"], 3)),
    "goal delete": (["goal", "delete", A, "den"], ["goal", "delete", "bear", "nothing"],
                    (["goal", "delete", "bear", "den"], 3)),
    "goal done": (["goal", "done", A, "den"], ["goal", "done", "bear", "nothing"],
                  (["goal", "done", "bear", "den"], 3)),
    "goal history": (["goal", "history", A, "den"], ["goal", "history", "bear", "nothing"],
                     (["goal", "history", "bear", "den"], 0)),
    "goal list": (["goal", "list", A], ["goal", "list", "nobody"], (["goal", "list", "bear"], 0)),
    "goal set": (["goal", "set", "bear", "den", "--progress", "2"], ["goal", "set", "bear", "nothing"],
                 (["goal", "set", "bear", "river", "Catch a fish"], 3)),
    "group join": (["group", "join", A, "bear"], None, (["group", "join", "valley", "wolf"], 3)),
    "group know": (["group", "know", "valley", ""], None, (["group", "know", "valley", "storm"], 3)),
    "group knowledge": (["group", "knowledge", A], ["group", "knowledge", "nothing"],
                        (["group", "knowledge", "valley"], 0)),
    "group leave": (["group", "leave", A, "bear"], ["group", "leave", "nothing", "bear"],
                    (["group", "leave", "valley", "bear"], 3)),
    "group list": (["group", "list", "--character", A], ["group", "list", "--character", "nobody"],
                   (["group", "list"], 0)),
    "import": (["import", "NOTJSON"], None, (["import", "EXPORT", "--replace"], 3)),
    # The server (stdio; its input here is empty, so it stops at once) opens the world as a reader.
    "mcp": (["mcp", "--port", "0"], None, (["mcp"], 0)),
    "memory add": (["memory", "add", "bear", ""], None, (["memory", "add", "bear", "hello"], 3)),
    "memory edit": (["memory", "edit", MEMORY, ""], ["memory", "edit", "m_nothing", "x"],
                    (["memory", "edit", MEMORY, "x"], 3)),
    "memory forget": (["memory", "forget", " "], ["memory", "forget", "m_nothing"],
                      (["memory", "forget", MEMORY], 3)),
    "memory history": (["memory", "history", " "], ["memory", "history", "m_nothing"],
                       (["memory", "history", MEMORY], 0)),
    "memory pin": (["memory", "pin", " "], ["memory", "pin", "m_nothing"], (["memory", "pin", MEMORY], 3)),
    "memory unpin": (["memory", "unpin", " "], ["memory", "unpin", "m_nothing"],
                     (["memory", "unpin", MEMORY], 3)),
    "observe": (["observe", "--file", "OBJ"], None, (["observe", "--file", "TURN"], 3)),
    "passage add": (["passage", "add", "bear", ""], ["passage", "add", "nobody", "hello"],
                    (["passage", "add", "bear", "hello"], 3)),
    "passage delete": (["passage", "delete", "bear", "one"], ["passage", "delete", "bear", "99"],
                       (["passage", "delete", "bear", "1"], 3)),
    "passage list": (["passage", "list", "bear", "--limit", "0"], ["passage", "list", "nobody"],
                     (["passage", "list", "bear"], 0)),
    "passage search": (["passage", "search", "bear", "river", "--limit", "0"],
                       ["passage", "search", "nobody", "river"], (["passage", "search", "bear", "river"], 0)),
    "play": (["play", "NOTJSON"], None, (["play", "TRANSCRIPT"], 3)),
    "rewind": (["rewind", "--to", "t005", "--undo"], ["rewind", "--to", "nothing"],
               (["rewind", "--to", "t005"], 3)),
    "search": (["search", "bear", "wolf", "--limit", "0"], ["search", "nobody", "wolf"],
               (["search", "bear", "wolf"], 0)),
    "show": (["show", A], ["show", "nobody"], (["show", "bear"], 0)),
    "spend": (["spend", "--day", "nope"], None, (["spend"], 0)),
    "who-knows": (["who-knows", "x" * 200], ["who-knows", "nothing"], (["who-knows", "t001"], 0)),
}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A played world with a block, a shared block attached to wolf, a goal and a passage."""
    db = tmp_path_factory.mktemp("world") / "w.db"
    with Curator(db) as world:
        world.observe_many(TRANSCRIPT.read_text().splitlines())
        world.blocks.create("bear", "mood", "wary", char_limit=50)
        world.blocks.create("bear", "storm", "The great storm", shared=True)
        world.blocks.attach("bear", "storm", "wolf")
        world.goals.set("bear", "den", "Find a dry den")
        world.passages.store("bear", "The river runs cold in spring")
        world.join_group("valley", "bear")
    return db


@pytest.fixture
def place(template: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    """Each test's own copy of the world, and the files the table names."""
    db = tmp_path / "w.db"
    with sqlite3.connect(template) as source, sqlite3.connect(db) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    with Curator(db) as world:
        export = world.export_world()
    files = {"OBJ": ('{"a": 1}', "obj.json"), "NOTJSON": ("not json", "bad.jsonl"),
             "TURN": (json.dumps(TURN), "turn.json"), "EXPORT": (json.dumps(export), "export.json"),
             "TRANSCRIPT": (json.dumps(TURN) + "\n", "t.jsonl")}
    names = {"DB": str(db), "DIR": str(tmp_path)}
    for key, (text, name) in files.items():
        (tmp_path / name).write_text(text)
        names[key] = str(tmp_path / name)
    yield names


def run(args: list[str], place: dict[str, str], command: str) -> Result:
    filled = [re.sub(r"\b(DB|DIR|OBJ|NOTJSON|TURN|EXPORT|TRANSCRIPT)\b", lambda m: place[m.group(1)], a)
              for a in args]
    if command not in NO_WORLD and "--db" not in filled:
        filled += ["--db", place["DB"]]
    return CliRunner().invoke(cli, filled)


NO_WORLD = {"eval diff", "eval judge", "eval locomo", "eval paraphrase", "eval run"}


def assert_one_line(result: Result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.stdout, result.stderr, result.exc_info)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: ")
    return line


def test_the_table_has_every_command() -> None:
    assert set(TABLE) == set(cli_commands())


@pytest.mark.parametrize("command", sorted(TABLE))
def test_bad_input_is_exit_2_in_one_line(command: str, place: dict[str, str]) -> None:
    assert_one_line(run(TABLE[command][0], place, command), 2)


@pytest.mark.parametrize("command", sorted(c for c, row in TABLE.items() if row[1] is not None))
def test_an_unknown_name_is_exit_1_in_one_line(command: str, place: dict[str, str]) -> None:
    args = TABLE[command][1]
    assert args is not None
    line = assert_one_line(run(args, place, command), 1)
    assert any(name in line for name in ("nobody", "nothing", "no passage 99", "no evolution report")), line


@pytest.fixture
def locked(place: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Another process's write transaction on the world, and a short busy timeout, so that
    a writer gives up in a tenth of a second instead of five."""
    import curator.api.access as access

    real = access.open_world
    monkeypatch.setattr(access, "open_world",
                        lambda db, busy_timeout_ms, **options: real(db, busy_timeout_ms=100, **options))
    holder = sqlite3.connect(place["DB"], isolation_level=None)
    holder.execute("begin immediate")
    try:
        yield place
    finally:
        holder.execute("rollback")
        holder.close()


@pytest.mark.parametrize("command", sorted(c for c in TABLE if c not in NO_WORLD))
def test_a_locked_world_is_exit_3_for_writers_and_no_matter_to_readers(command: str,
                                                                       locked: dict[str, str]) -> None:
    args, code = TABLE[command][2]
    before = _turns_and_memories(locked["DB"])
    result = run(args, locked, command)
    if code == 3:
        assert "locked" in assert_one_line(result, 3)
    elif code == 1:
        assert_one_line(result, 1)
    else:
        assert result.exit_code == 0, (result.stderr, result.exc_info)
    assert _turns_and_memories(locked["DB"]) == before


def _turns_and_memories(db: str) -> Any:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        found = [conn.execute(f"select count(*) from {t}").fetchone()[0]
                 for t in ("turns", "memories", "blocks", "goals", "passages")]
    conn.close()
    return found


def test_the_readme_states_the_exit_statuses() -> None:
    readme = (ROOT / "README.md").read_text()
    table = readme[readme.index("| exit status |"):]
    table = table[:table.index("\n\n")]
    for code in ("`0`", "`1`", "`2`", "`3`", "`130`", "`143`"):
        assert f"| {code} |" in table, code
