"""The background checkpoint (curator/checkpoint.py): the log is folded into the world file
off the turn's path, nothing is lost, and a world with few commits starts no thread."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from conftest import TurnFactory

from curator import Curator
from curator.checkpoint import EVERY_COMMITS, WRITER_AUTOCHECKPOINT, Checkpointer


def _threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("curator-checkpoint")]


def _wait_for(predicate: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_a_busy_world_is_checkpointed_in_the_background(tmp_path: Path, make_turn: TurnFactory) -> None:
    path = tmp_path / "world.db"
    with Curator(path) as world:
        checkpointer = world.world.checkpointer
        assert checkpointer is not None
        assert world.world.conn.execute("pragma wal_autocheckpoint").fetchone()[0] == WRITER_AUTOCHECKPOINT
        for n in range(EVERY_COMMITS):
            world.observe(make_turn(f"Wolf growls at you by the river, time {n}.", others=["wolf"]))
        assert _wait_for(lambda: checkpointer.runs >= 1), "no checkpoint ran"
        assert checkpointer.errors == 0
        # Everything the log held is in the world file now: a second checkpoint finds no
        # frame left to copy (busy 0, every frame of the log already checkpointed).
        busy, frames, done = world.world.conn.execute("pragma wal_checkpoint(PASSIVE)").fetchone()
        assert busy == 0 and frames == done
    assert not _threads()  # close() stopped it
    assert not (tmp_path / "world.db-wal").exists()  # the last connection folded the log in
    conn = sqlite3.connect(path)
    assert conn.execute("select count(*) from turns").fetchone()[0] == EVERY_COMMITS
    conn.close()


def test_after_a_pause_the_log_starts_over(tmp_path: Path, make_turn: TurnFactory) -> None:
    # Once this thread has copied every frame, the writer's next commit rewinds the log
    # instead of growing it: it then holds that one commit's frames.
    with Curator(tmp_path / "world.db") as world:
        checkpointer = world.world.checkpointer
        assert checkpointer is not None
        for n in range(EVERY_COMMITS):
            world.observe(make_turn(f"Wolf growls at you by the river, time {n}.", others=["wolf"]))
        assert _wait_for(lambda: checkpointer.runs >= 1)
        assert checkpointer.last is not None
        _, frames_before, copied = checkpointer.last
        assert copied == frames_before > 0
        world.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"]))
        _, frames_after, _ = world.world.conn.execute("pragma wal_checkpoint(PASSIVE)").fetchone()
        assert 0 < frames_after < frames_before


def test_a_few_commits_start_no_thread(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "world.db") as world:
        world.observe(make_turn("Wolf growls at you.", others=["wolf"]))
        assert world.world.checkpointer is not None and world.world.checkpointer.runs == 0
        assert not _threads()


def test_a_world_in_memory_has_no_checkpointer(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        assert world.world.checkpointer is None
        for n in range(EVERY_COMMITS + 1):
            world.observe(make_turn(f"Wolf growls at you, time {n}.", others=["wolf"]))
        assert not _threads()


def test_a_failed_checkpoint_is_counted_and_harmless(tmp_path: Path) -> None:
    # Not a world at all: the checkpoint fails, the thread carries on and stops on close.
    bogus = tmp_path / "not-a-world.db"
    bogus.write_bytes(b"this is not a database" * 100)
    checkpointer = Checkpointer(str(bogus), every=1)
    checkpointer.committed()
    assert _wait_for(lambda: checkpointer.errors >= 1)
    checkpointer.committed()
    checkpointer.close()
    assert checkpointer.runs == 0 and not _threads()
