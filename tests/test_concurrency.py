"""Several writers on one world (issue #16, "Concurrency: no turn lost, ever"): processes under
sustained load, processes creating one new world at once, one `Curator` shared by a pool of
threads, writers whose game clocks interleave, and an evolution cycle that lets turns in.
Every test counts outcomes (every turn of every writer stored), never wall time."""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from curator import Curator, CuratorConfig, TimeWentBackwards, WorldLocked
from curator.store.migrations import known_names

START = datetime(2025, 1, 2, 8, 0, tzinfo=UTC)


def turn(turn_id: str, actor: str, at: datetime, *, observers: list[str] | None = None) -> dict[str, Any]:
    return {"id": turn_id, "world_time": at.isoformat(), "actor": actor,
            "intent": {"thought": "Fish", "action": "Head to the river"},
            "reality": f"Wolf blocks your path near stone {turn_id}.", "others": ["wolf"],
            "observers": observers or []}


def _writer(path: str, name: str, count: int, start: Any, busy_timeout_ms: int, apart: bool) -> None:
    """One process: `count` turns back to back, its own actor; with `apart`, its own game
    clock a day after the last writer's, else all at one time."""
    if start is not None:
        start.wait()
    base = START + timedelta(days=int(name[-1]) if apart else 0)
    with Curator(path, config=CuratorConfig(busy_timeout_ms=busy_timeout_ms)) as world:
        for i in range(count):
            world.observe(turn(f"{name}-{i}", name, base + timedelta(minutes=i if apart else 0)))


def _run(path: Path, names: list[str], count: int, *, together: bool, busy_timeout_ms: int,
         apart: bool = False) -> None:
    context = multiprocessing.get_context("spawn")
    start = context.Event() if together else None
    writers = [context.Process(target=_writer, args=(str(path), n, count, start, busy_timeout_ms, apart))
               for n in names]
    for writer in writers:
        writer.start()
    if start is not None:
        start.set()
    for writer in writers:
        writer.join(timeout=180)
    assert [w.exitcode for w in writers] == [0] * len(writers)


def _stored(path: Path) -> Counter[str]:
    conn = sqlite3.connect(path)
    ids = [r[0] for r in conn.execute("select id from turns")]
    conn.close()
    return Counter(i.split("-")[0] for i in ids)


def test_writers_under_sustained_load_all_get_their_turns(tmp_path: Path) -> None:
    """Three processes writing back to back, each willing to wait only 1 s: each waits its turn
    in the queue (the one that just wrote queues behind the ones waiting), so none gives up.
    Before the queue, SQLite's polling let one writer win again and again and another gave up
    with "database is locked" in about half of the runs of this test."""
    path = tmp_path / "world.db"
    Curator(path).close()
    _run(path, ["w1", "w2", "w3"], 100, together=True, busy_timeout_ms=1_000)
    assert _stored(path) == {"w1": 100, "w2": 100, "w3": 100}


def test_four_processes_creating_one_new_world_with_interleaving_clocks_all_succeed(tmp_path: Path) -> None:
    """No file yet: the four race to create it; one makes the schema, the others find it made.
    Their game clocks are a day apart, each with its own characters: the later clocks do not
    make the earlier writers' turns 'go back in time' (per-character clocks)."""
    path = tmp_path / "new.db"
    _run(path, ["w1", "w2", "w3", "w4"], 20, together=True, busy_timeout_ms=30_000, apart=True)
    assert _stored(path) == {"w1": 20, "w2": 20, "w3": 20, "w4": 20}
    conn = sqlite3.connect(path)
    applied = [r[0] for r in conn.execute("select name from _sqlite_migrations order by id")]
    conn.close()
    assert applied == known_names()  # each migration applied exactly once
    assert not list(tmp_path.glob("new.db.bak-*"))  # a new world has nothing to back up
    with Curator(path) as world:
        assert world.clock() == START + timedelta(days=4, minutes=19)  # the latest any reached


def test_the_clock_rule_per_character() -> None:
    with Curator(":memory:") as world:
        world.observe(turn("a", "bear", START + timedelta(hours=2)))
        world.observe(turn("b", "fox", START + timedelta(hours=1)))  # fox's own time: accepted
        with pytest.raises(TimeWentBackwards, match="bear's last turn"):
            world.observe(turn("c", "bear", START + timedelta(hours=1, minutes=30)))
        with pytest.raises(TimeWentBackwards, match="bear's last turn"):  # bear observes it
            world.observe(turn("d", "fox", START + timedelta(hours=1, minutes=30), observers=["bear"]))
        world.observe(turn("e", "fox", START + timedelta(hours=1, minutes=30)))
        assert world.clock() == START + timedelta(hours=2)  # never back
        assert world.world.turn_count() == 3


@pytest.mark.parametrize("where", ["file", "memory"])
def test_one_curator_shared_by_a_pool_of_threads(tmp_path: Path, where: str) -> None:
    """A game server's pool: observe, context and character from eight threads at once."""
    path: Path | str = tmp_path / "world.db" if where == "file" else ":memory:"
    with Curator(path) as world:
        world.observe(turn("seed", "bear", START))

        def work(i: int) -> str:
            actor = f"npc{i % 8}"
            world.observe(turn(f"t{i}", actor, START + timedelta(minutes=1)))  # in any order
            world.context(actor, "the river")
            return world.character(actor).id

        with ThreadPoolExecutor(max_workers=8) as pool:
            done = list(pool.map(work, range(64)))
        assert Counter(done) == {f"npc{k}": 8 for k in range(8)}
        assert world.world.turn_count() == 65
        opened = len(world.connections._opened)
    assert opened > 1 if where == "file" else opened == 1


def test_threads_of_one_curator_queue_like_processes(tmp_path: Path) -> None:
    """Eight threads writing back to back through one Curator, each on its own connection."""
    path = tmp_path / "world.db"
    with Curator(path, config=CuratorConfig(busy_timeout_ms=5_000)) as world:
        def writer(k: int) -> None:
            for i in range(20):
                world.observe(turn(f"w{k}-{i}", f"w{k}", START + timedelta(days=k, minutes=i)))

        threads = [threading.Thread(target=writer, args=(k,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert _stored(path) == {f"w{k}": 20 for k in range(8)}


def test_an_evolution_cycle_commits_character_by_character(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Each character's evolution is its own transaction: while one character evolves, the
    ones before it are already committed (another connection sees their snapshots), so the
    write lock is let go between characters and the game's turns go in."""
    import curator.api.cycles as cycles

    path = tmp_path / "world.db"
    with Curator(path) as world:
        for k in range(6):
            world.observe(turn(f"seed{k}", f"npc{k}", START + timedelta(minutes=k)))
        real = cycles.evolve_character
        seen: list[tuple[str, int, bool]] = []

        def evolve_one(store: Any, config: Any, decider: Any, character: str, now: Any) -> Any:
            other = sqlite3.connect(path)  # another process's view: only what is committed
            committed = other.execute("select count(*) from personality_snapshots").fetchone()[0]
            other.close()
            seen.append((character, committed, store.conn.in_transaction))
            return real(store, config, decider, character, now)

        monkeypatch.setattr(cycles, "evolve_character", evolve_one)
        report = world.evolve(START + timedelta(days=1))
    assert [c for c, _, _ in seen] == [f"npc{k}" for k in range(6)] + ["wolf"]
    assert [n for _, n, _ in seen] == [0, 1, 2, 3, 4, 5, 6]  # each one before it committed
    assert all(inside for _, _, inside in seen)
    assert [c.character for c in report.characters] == [f"npc{k}" for k in range(6)]
    assert report.id  # the report, stored last


def test_a_writer_held_up_past_its_wait_gets_worldlocked_and_loses_nothing(tmp_path: Path) -> None:
    """Another curator holds a transaction open: the waiting writer gives up at its deadline
    with WorldLocked (its place in the queue is let go), and writes once the lock is free."""
    path = tmp_path / "world.db"
    with Curator(path) as holder, Curator(path, config=CuratorConfig(busy_timeout_ms=100)) as waiter:
        with holder.world.transaction(), pytest.raises(WorldLocked):
            waiter.observe(turn("late", "bear", START))
        assert waiter.world.writelock is not None and waiter.world.writelock.waits == 1
        assert waiter.observe(turn("late", "bear", START)).duplicate is False
        assert holder.world.turn_count() == 1
