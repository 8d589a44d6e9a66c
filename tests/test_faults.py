"""Bad input, crashes and contention: a clear typed error, and the world is never half-written."""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, TRANSCRIPT, TurnFactory

from curator import (
    ConflictingTurn,
    Curator,
    InvalidTurn,
    TimeWentBackwards,
    WorldLocked,
)
from curator.model.steps import FallbackDecider
from curator.store.migrations import known_names

GOOD = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
        "intent": {"thought": "Fish", "action": "Head to the river"},
        "reality": "Wolf blocks your path and growls.", "others": ["wolf"], "observers": ["owl"]}


def world_digest(path: Path) -> str:
    """A digest of every row of every table: equal digests mean nothing was written."""
    conn = sqlite3.connect(path)
    rows = []
    for (table,) in conn.execute("select name from sqlite_master where type = 'table' order by name"):
        rows.append(table)
        rows.extend(repr(r) for r in conn.execute(f"select * from [{table}] order by 1"))
    conn.close()
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def _with(**changes: Any) -> dict[str, Any]:
    turn = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            turn.pop(key)
        else:
            turn[key] = value
    return turn


@pytest.mark.parametrize(("turn", "field"), [
    (_with(world_time=None), "world_time"),
    (_with(intent={"thought": "x"}), "intent.action"),
    (_with(others="wolf"), "others"),
    (_with(world_time="yesterday"), "world_time"),
    (_with(mood="grumpy"), "mood"),
    (_with(reality="x" * 5_000_000), "reality"),
    (_with(actor="a bear with spaces"), "actor"),
    (_with(id=""), "id"),
    (_with(outcome={"importance": 3}), "outcome.importance"),
])
def test_malformed_turn_names_the_field_and_writes_nothing(world_path: Path, turn: dict,
                                                           field: str) -> None:
    with Curator(world_path) as world:
        world.observe(_with(id="t0", world_time="2025-01-01T08:00:00Z"))
    before = world_digest(world_path)
    with Curator(world_path) as world, pytest.raises(InvalidTurn) as caught:
        world.observe(turn)
    assert caught.value.field == field
    assert field in str(caught.value)
    assert world_digest(world_path) == before


@pytest.mark.parametrize("text", ['{"id": "t1"', "[1, 2]", "", "null"])
def test_text_that_is_not_a_turn_object(curator: Curator, text: str) -> None:
    with pytest.raises(InvalidTurn, match="JSON"):
        curator.observe(text)


def test_time_going_backwards_is_refused(world_path: Path) -> None:
    with Curator(world_path) as world:
        world.observe(GOOD)
        before = world_digest(world_path)
        with pytest.raises(TimeWentBackwards) as caught:
            world.observe(_with(id="t2", world_time="2025-01-01T08:00:00Z"))
        assert caught.value.field == "world_time"
    assert world_digest(world_path) == before


def test_redelivery_is_idempotent_and_a_changed_redelivery_is_refused(world_path: Path) -> None:
    with Curator(world_path) as world:
        first = world.observe(GOOD)
        before = world_digest(world_path)
        again = world.observe(json.dumps(GOOD))
        assert again.duplicate and not first.duplicate
        assert [m.memory_id for m in again.formed] == [m.memory_id for m in first.formed]
        assert world_digest(world_path) == before
        with pytest.raises(ConflictingTurn):
            world.observe(_with(reality="Wolf shares a fish with you."))
    assert world_digest(world_path) == before


class CrashingDecider(FallbackDecider):
    """Fails on the n-th decision, after earlier steps of the same turn have written rows."""

    def __init__(self, fail_at: int):
        super().__init__()
        self.calls, self.fail_at = 0, fail_at

    def decide(self, step: Any, inputs: Any, *, character: str, context: Any = None) -> Any:
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("the process died here")
        return super().decide(step, inputs, character=character, context=context)


def test_a_crash_inside_a_turn_leaves_no_partial_effects(world_path: Path) -> None:
    with Curator(world_path) as world:
        world.observe(_with(id="t0", world_time="2025-01-01T08:00:00Z"))
    before = world_digest(world_path)
    # The actor is curated (and written) before the observer's interpretation crashes.
    with Curator(world_path, decider=CrashingDecider(fail_at=3)) as world, \
            pytest.raises(RuntimeError, match="died"):
        world.observe(_with(id="t1", others=["wolf", "fox"], observers=["owl", "newcomer"]))
    assert world_digest(world_path) == before
    with Curator(world_path) as world:  # and the same turn goes through afterwards
        assert not world.observe(_with(id="t1", others=["wolf", "fox"],
                                       observers=["owl", "newcomer"])).duplicate
        assert "newcomer" in world.characters()


def _finish(process: subprocess.Popen[bytes]) -> int:
    _, err = process.communicate(timeout=180)
    assert process.returncode == 0 or process.returncode == -signal.SIGKILL, err.decode()
    return process.returncode


def _play(transcript: Path, db: Path) -> subprocess.Popen[bytes]:
    code = ("import sys; from curator.cli import cli; "
            f"sys.argv = ['curator', 'play', {str(transcript)!r}, '--db', {str(db)!r}]; cli()")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)


def test_killed_mid_play_then_replayed_equals_a_clean_run(tmp_path: Path) -> None:
    # A long transcript: the shipped one, ten times over with fresh ids and later times.
    turns = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    long = tmp_path / "long.jsonl"
    with long.open("w") as handle:
        for round_ in range(10):
            for turn in turns:
                turn = dict(turn, id=f"r{round_}-{turn['id']}",
                            world_time=turn["world_time"].replace("2025-", f"{2025 + round_}-"))
                handle.write(json.dumps(turn) + "\n")
    clean, crashed = tmp_path / "clean.db", tmp_path / "crashed.db"
    assert _finish(_play(long, clean)) == 0
    process = _play(long, crashed)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:  # kill it once it is part-way through
        if crashed.exists():
            try:
                with sqlite3.connect(crashed, timeout=0.1) as conn:
                    if conn.execute("select count(*) from turns").fetchone()[0] > 40:
                        break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    assert _finish(process) == -signal.SIGKILL
    with sqlite3.connect(crashed) as conn:
        partial = conn.execute("select count(*) from turns").fetchone()[0]
    assert 0 < partial < 500, "the kill should land part-way through the play"
    assert _finish(_play(long, crashed)) == 0
    with Curator(clean) as a, Curator(crashed) as b:
        assert a.export_world() == b.export_world()
        assert a.world.turn_count() == b.world.turn_count() == 500


def _writer(path: str, prefix: str, count: int) -> None:
    with Curator(path) as world:
        for i in range(count):
            world.observe(_with(id=f"{prefix}{i}", world_time="2025-01-02T08:00:00Z",
                                reality=f"Wolf blocks your path near stone {prefix}{i}."))


def test_two_processes_writing_one_world_lose_no_turns(world_path: Path) -> None:
    Curator(world_path).close()
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_writer, args=(str(world_path), p, 60)) for p in "ab"]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(timeout=120)
        assert writer.exitcode == 0
    with Curator(world_path) as world:
        assert world.world.turn_count() == 120
        logged = {r[0] for r in world.world.conn.execute("select id from turns")}
        assert logged == {f"{p}{i}" for p in "ab" for i in range(60)}


def test_a_world_held_locked_gives_a_typed_error_and_loses_nothing(world_path: Path,
                                                                     make_turn: TurnFactory) -> None:
    from curator import CuratorConfig

    Curator(world_path).close()
    holder = sqlite3.connect(world_path, isolation_level=None)
    holder.execute("begin immediate")
    try:
        with Curator(world_path, config=CuratorConfig(busy_timeout_ms=100)) as world, \
                pytest.raises(WorldLocked):
            world.observe(GOOD)
    finally:
        holder.execute("rollback")
        holder.close()
    with Curator(world_path) as world:
        assert world.observe(GOOD).duplicate is False  # nothing of the failed attempt remained


def test_migrations_are_recorded_and_an_existing_file_is_backed_up(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.db"
    with Curator(fresh) as world:
        applied = [r[0] for r in world.world.conn.execute(
            "select name from _sqlite_migrations where migration_set = 'curator'")]
        columns = {r[1] for r in world.world.conn.execute("pragma table_info(memories)")}
        mode = world.world.conn.execute("pragma journal_mode").fetchone()[0]
    # Every migration this curator knows, in order, the shipped ones first as they shipped.
    assert applied == known_names()
    assert applied[:10] == ["m001_initial", "m002_sequence_indexes", "m003_model_calls", "m004_recall",
                            "m005_evolution", "m006_appraisal",
                            "m007_quiet_fts_triggers", "m008_goals_and_practice",
                            "m009_archive_keeps_its_index_row", "m010_character_clocks"]
    assert {"owner", "subject", "tier", "strength", "strength_at", "source_turns"} <= columns
    assert mode == "wal"
    assert not list(tmp_path.glob("fresh.db.bak-*"))  # nothing to back up in a new file
    older = tmp_path / "older.db"
    with sqlite3.connect(older) as conn:
        conn.execute("create table notes (text)")
        conn.execute("insert into notes values ('keep me')")
    conn.close()
    Curator(older, force=True).close()  # a database with tables of its own: only when asked
    (backup,) = tmp_path.glob("older.db.bak-before-m001_initial")
    with sqlite3.connect(backup) as conn:
        assert conn.execute("select text from notes").fetchall() == [("keep me",)]
    conn.close()


def test_the_backup_before_a_migration_leaves_the_writers_queue_free(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_turn: TurnFactory) -> None:
    """The copy taken before a migration reads one snapshot of the file, so the game's turns
    go on while it is made (1.6-2.7 s at 10,000 characters, issue #17); only the migration
    itself holds the writers' queue."""
    from curator.store import opening
    from curator.store.writelock import WriteLock

    path = tmp_path / "world.db"
    with Curator(path) as world:
        world.observe(make_turn("Wolf smells rain coming.", actor="wolf", action="Sniff the air"))
        world.world.conn.execute("delete from _sqlite_migrations where name = ?", (known_names()[-1],))
    real, free = opening._backup, []

    def backup(conn: sqlite3.Connection, target: Path, first_pending: str) -> Path:
        other = WriteLock(str(path))
        other.acquire(timeout=0.5)  # LockTimeout if the opener held the queue
        other.release()
        other.close()
        free.append(first_pending)
        return real(conn, target, first_pending)

    monkeypatch.setattr(opening, "_backup", backup)
    with Curator(path) as world:
        assert world.character("wolf") is not None
    assert free == [known_names()[-1]]  # one copy, taken with the queue free
    (copy_,) = tmp_path.glob(f"world.db.bak-before-{known_names()[-1]}")
    with sqlite3.connect(copy_) as conn:
        assert conn.execute("select count(*) from turns").fetchone()[0] == 1
    conn.close()


def test_a_file_that_is_not_a_world(tmp_path: Path) -> None:
    from curator import WorldFormatError

    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(WorldFormatError):
        Curator(junk)
