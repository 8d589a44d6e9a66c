"""The world file under hostile conditions (issue #16, "The world file"): `--out` at the world,
a missing folder, a full disk, a read-only world, a path through a file, a damaged page, a
world from a newer curator, an unrelated SQLite database, a `--db` typo. Each is one typed
error (one line on the command line, no traceback) and the world stays as it was."""

from __future__ import annotations

import errno
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import TRANSCRIPT

from curator import (
    Curator,
    CuratorError,
    DiskFull,
    ForeignDatabase,
    WorldCorrupt,
    WorldNotFound,
    WorldReadOnly,
    WorldStorageError,
    WorldTooNew,
)
from curator.cli import cli
from curator.store.migrations import known_names
from curator.store.world import World

TURN = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
        "intent": {"thought": "Fish", "action": "Head to the river"},
        "reality": "Wolf blocks your path and growls.", "others": ["wolf"], "observers": ["owl"]}


def turn(n: int, **changes: Any) -> dict[str, Any]:
    return {**TURN, "id": f"t{n}", "world_time": f"2025-01-02T08:{n:02d}:00Z", **changes}


def digest(path: Path) -> str:
    """Every row of every table: equal digests mean nothing was written."""
    conn = sqlite3.connect(path)
    rows = []
    for (table,) in conn.execute("select name from sqlite_master where type = 'table' order by name"):
        rows.append(table)
        rows.extend(repr(r) for r in conn.execute(f"select * from [{table}] order by 1"))
    conn.close()
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def one_line_error(result: Result, exit_code: int, *needles: str) -> str:
    assert result.exit_code == exit_code, (result.exit_code, result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.stdout + result.stderr
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    return result.stderr


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "world.db"
    with Curator(path) as curator:
        for n in range(1, 4):
            curator.observe(turn(n))
    return path


# -- export --out ----------------------------------------------------------------------

@pytest.mark.parametrize("tail", ["", "-wal"])
def test_export_out_at_the_world_itself_is_refused(world: Path, tail: str) -> None:
    before = digest(world)
    one_line_error(run("export", "--out", str(world) + tail, "--db", str(world)), 2, "world file itself")
    assert digest(world) == before
    with Curator(world) as curator:
        assert curator.world.turn_count() == 3


def test_evolve_out_at_the_world_is_refused_before_the_cycle(world: Path) -> None:
    before = digest(world)
    one_line_error(run("evolve", "--out", str(world), "--db", str(world)), 2, "world file itself")
    assert digest(world) == before  # the cycle did not run either


def test_export_out_into_a_missing_folder_is_one_line(world: Path, tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "folder" / "export.json"
    # refused before any work, as bad input (cli/options.py: out_in_a_directory)
    one_line_error(run("export", "--out", str(out), "--db", str(world)), 2, str(out.parent),
                   "is not a directory")
    assert not out.parent.exists()


def test_export_out_on_a_full_disk_is_one_line_and_leaves_no_file(world: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = Path.open

    class FullDevice:
        """A file opened for writing on a device that fills up at the first write."""

        def __init__(self, path: Path) -> None:
            self.path = path
            self.file = real_open(path, "w", encoding="utf-8")

        def __enter__(self) -> FullDevice:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

        def write(self, text: str) -> int:
            self.file.write("{\"half")  # what a full device leaves: the start of the document
            self.file.flush()
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))

    def full(self: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        # The export is written as it is read (a streamed file), so the device fills mid-write.
        return FullDevice(self) if "w" in mode else real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", full)
    out = tmp_path / "export.json"
    one_line_error(run("export", "--out", str(out), "--db", str(world)), 1, "disk is full")
    assert sorted(p.name for p in tmp_path.iterdir() if "export" in p.name) == []


def test_export_out_writes_the_document(world: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.json"
    result = run("export", "--out", str(out), "--db", str(world))
    assert result.exit_code == 0, result.stderr
    document = json.loads(out.read_text())
    assert {c["character"]["id"] for c in document["characters"]} == {"bear", "owl", "wolf"}


# -- a --db that is not there, not a world, or newer -------------------------------------

@pytest.mark.parametrize("command", [["show", "bear"], ["context", "bear"], ["search", "bear", "river"],
                                     ["export"], ["characters"], ["calls"], ["block", "list", "bear"],
                                     ["goal", "list", "bear"]])
def test_a_read_command_on_a_missing_world_creates_nothing(tmp_path: Path, command: list[str]) -> None:
    typo = tmp_path / "wrold.db"
    one_line_error(run(*command, "--db", str(typo)), 2, "no world at", str(typo))
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(WorldNotFound):
        Curator(typo, create=False)
    assert list(tmp_path.iterdir()) == []


def test_an_unrelated_database_is_refused_unless_forced(tmp_path: Path) -> None:
    other = tmp_path / "inventory.db"
    with sqlite3.connect(other) as conn:
        conn.execute("create table items (name text)")
        conn.execute("insert into items values ('lantern')")
    conn.close()
    before = digest(other)
    with pytest.raises(ForeignDatabase, match="items"):
        Curator(other)
    one_line_error(run("observe", "--db", str(other)), 2, "tables of its own", "--force")
    one_line_error(run("characters", "--db", str(other)), 2, "not a curator world")
    assert digest(other) == before
    result = CliRunner().invoke(cli, ["observe", "--db", str(other), "--force"], input=json.dumps(TURN))
    assert result.exit_code == 0, result.stderr
    with Curator(other) as curator:  # a world now, with the items kept
        assert curator.world.turn_count() == 1
        assert curator.world.conn.execute("select name from items").fetchall() == [("lantern",)]


def test_a_world_from_a_newer_curator_is_refused_and_not_written(world: Path) -> None:
    with sqlite3.connect(world) as conn:
        conn.execute("insert into _sqlite_migrations (migration_set, name, applied_at) "
                     "values ('curator', 'm042_from_the_future', '2030-01-01')")
    conn.close()
    before = digest(world)
    with pytest.raises(WorldTooNew) as caught:
        Curator(world)
    assert caught.value.found == "m042_from_the_future"
    newest = known_names()[-1]  # this curator's newest migration, whichever was added last
    assert caught.value.known == newest and newest.startswith("m0")
    line = one_line_error(run("show", "bear", "--db", str(world)), 1, "newer curator")
    assert "m042_from_the_future" in line and newest in line
    one_line_error(run("observe", "--db", str(world)), 1, "newer curator")
    assert digest(world) == before


# -- the file system refuses ----------------------------------------------------------------

def test_a_path_through_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder")
    path = tmp_path / "notes.txt" / "world.db"
    with pytest.raises(WorldStorageError, match="not a folder"):
        Curator(path)
    one_line_error(run("observe", "--db", str(path)), 1, "not a folder")


def test_a_full_disk_names_the_cause_and_keeps_the_world_consistent(world: Path) -> None:
    with Curator(world) as curator:
        conn = curator.world.conn
        conn.execute("vacuum")  # no free pages left (a migration's dropped table leaves some)
        pages = conn.execute("pragma page_count").fetchone()[0]
        conn.execute(f"pragma max_page_count = {pages}")  # the disk is full from here
        before = digest(world)
        big = turn(10, reality="Wolf blocks your path and growls at the river. " * 60)
        with pytest.raises(DiskFull) as caught:
            curator.observe(big)
        assert "disk is full" in str(caught.value)
        assert "cannot rollback" not in str(caught.value)
        assert caught.value.cause == "disk is full"
        assert not conn.in_transaction
        assert digest(world) == before
        conn.execute(f"pragma max_page_count = {pages * 100}")  # room again: the same turn goes in
        assert curator.observe(big).duplicate is False
        assert curator.world.turn_count() == 4


def test_a_read_only_world_names_the_cause_and_is_unchanged(world: Path) -> None:
    before = digest(world)
    with Curator(world) as curator:
        curator.world.conn.execute("pragma query_only = on")
        with pytest.raises(WorldReadOnly, match="read-only"):
            curator.observe(turn(10))
        with pytest.raises(WorldReadOnly):
            curator.set_persona("bear", "A bear.")
        assert curator.character("bear").id == "bear"  # reading still works
    ro = sqlite3.connect(f"file:{world}?mode=ro", uri=True, isolation_level=None, check_same_thread=False)
    from sqlite_utils import Database

    store = World(Database(ro), str(world))
    with pytest.raises(WorldReadOnly, match="read-only"), store.transaction() as open_store:
        open_store.set_meta("clock", "2030-01-01T00:00:00Z")
    store.close()
    assert digest(world) == before


def _damage(path: Path, table: str) -> None:
    """Overwrite the middle of `table`'s root page with garbage (the world is closed and its
    log folded in)."""
    conn = sqlite3.connect(path)
    conn.execute("pragma wal_checkpoint(truncate)")
    page_size = conn.execute("pragma page_size").fetchone()[0]
    (root,) = conn.execute("select rootpage from sqlite_master where name = ?", (table,)).fetchone()
    conn.close()
    with path.open("r+b") as handle:
        handle.seek((root - 1) * page_size)
        handle.write(b"\xff" * page_size)


def test_a_damaged_page_is_named_and_never_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "world.db"
    run("play", str(TRANSCRIPT), "--db", str(path))
    _damage(path, "memories")
    with Curator(path) as curator, pytest.raises(WorldCorrupt, match="damaged"):
        curator.character("bear")
    one_line_error(run("show", "bear", "--db", str(path)), 1, "damaged", "restore it")
    one_line_error(run("export", "--db", str(path)), 1, "damaged")


def test_every_world_file_error_is_a_curator_error() -> None:
    for error in (DiskFull("x"), WorldReadOnly("x"), WorldCorrupt("x"), WorldNotFound("x"),
                  ForeignDatabase("x"), WorldTooNew("x", found="a", known="b"), WorldStorageError("x")):
        assert isinstance(error, CuratorError)
    assert (WorldNotFound.exit_code, ForeignDatabase.exit_code, DiskFull.exit_code) == (2, 2, 1)
