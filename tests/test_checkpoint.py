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
from curator.store.checkpoint import PAGES, WRITER_AUTOCHECKPOINT, Checkpointer


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
        assert checkpointer is not None and checkpointer.pages == PAGES
        assert world.world.conn.execute("pragma wal_autocheckpoint").fetchone()[0] == WRITER_AUTOCHECKPOINT
        checkpointer.pages = 40  # a few turns' frames, not SQLite's 1,000
        for n in range(16):
            world.observe(make_turn(f"Wolf growls at you by the river, time {n}.", others=["wolf"]))
        assert _wait_for(lambda: checkpointer.runs >= 1), "no checkpoint ran"
        # What is left uncopied is under the threshold: the commits since the last pass began.
        assert _wait_for(lambda: (checkpointer.backlog() or 0) < checkpointer.pages)
        assert checkpointer.last is not None and checkpointer.last[2] > checkpointer.pages
        assert checkpointer.errors == 0
    assert not _threads()  # close() stopped it
    assert not (tmp_path / "world.db-wal").exists()  # the last connection folded the log in
    conn = sqlite3.connect(path)
    assert conn.execute("select count(*) from turns").fetchone()[0] == 16
    conn.close()


def test_after_a_pause_the_log_starts_over(tmp_path: Path, make_turn: TurnFactory) -> None:
    # Once this thread has copied every frame, the writer's next commit rewinds the log
    # instead of growing it: it then holds that one commit's frames.
    with Curator(tmp_path / "world.db") as world:
        checkpointer = world.world.checkpointer
        assert checkpointer is not None
        for n in range(16):  # well under PAGES: nothing copied yet
            world.observe(make_turn(f"Wolf growls at you by the river, time {n}.", others=["wolf"]))
        assert checkpointer.runs == 0
        checkpointer.pages = 1
        checkpointer.committed()  # as after a commit: one pass copies the 16 turns' frames
        checkpointer.pages = PAGES
        assert _wait_for(lambda: checkpointer.runs >= 1)
        assert checkpointer.last is not None
        _, frames_before, copied = checkpointer.last
        assert copied == frames_before > 0
        world.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"]))
        _, frames_after, _ = world.world.conn.execute("pragma wal_checkpoint(PASSIVE)").fetchone()
        assert 0 < frames_after < frames_before


def test_the_backlog_is_read_from_the_log_index(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "world.db") as world:
        checkpointer = world.world.checkpointer
        assert checkpointer is not None
        for n in range(5):
            world.observe(make_turn(f"Wolf growls at you, time {n}.", others=["wolf"]))
        backlog = checkpointer.backlog()
        assert backlog is not None and 0 < backlog < PAGES and checkpointer.runs == 0
        # What SQLite itself counts: the frames in the log, none copied yet.
        _, frames, copied = world.world.conn.execute("pragma wal_checkpoint(PASSIVE)").fetchone()
        assert (frames, copied) == (backlog, backlog)
        assert checkpointer.backlog() == 0


def test_without_the_log_index_it_counts_commits(tmp_path: Path) -> None:
    checkpointer = Checkpointer(str(tmp_path / "no-such.db"), every=3)
    assert checkpointer.backlog() is None
    checkpointer.committed()
    checkpointer.committed()
    assert not _threads()
    checkpointer.committed()  # the third: a thread starts (its checkpoint fails: no world)
    assert _wait_for(lambda: checkpointer.errors + checkpointer.runs >= 1)
    checkpointer.close()
    assert not _threads()


def test_a_few_commits_start_no_thread(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "world.db") as world:
        world.observe(make_turn("Wolf growls at you.", others=["wolf"]))
        assert world.world.checkpointer is not None and world.world.checkpointer.runs == 0
        assert not _threads()


def test_a_world_in_memory_has_no_checkpointer(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        assert world.world.checkpointer is None
        for n in range(20):
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
