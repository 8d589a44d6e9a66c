"""The floor beside observe's times in the game-scale benchmark: the same rows written by bare
SQLite transactions, one per turn.

`traced_writes` runs the measured turns through `Curator.observe` on one copy of the grown
world, untimed, keeping each write statement with its parameters (and counting every
statement SQLite ran, the search index's triggers too). `floor_ms` replays them on another
copy as the store writes a world: the same statements with the same parameters (SQLite's
statement cache serves them as it serves curator's), the same pragmas, the log copied back
between turns. What observe takes beyond the floor is curator's own work: reading the turn,
deciding, appraising, and the reads.

Before 0.13.0 the floor replayed each statement with its values spelled out in the SQL text
(each compiled afresh) and let SQLite checkpoint inside its commits, which the store moves to
a thread of its own: it measured more than the rows cost (on the grown world, p95 4.4-5.3 ms
against 1.2 replayed this way; README, "Benchmark").
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

from curator import Curator

WRITES = ("insert", "update", "delete", "replace")
# A busy turn writes ~50 pages; the store's checkpoint thread wakes at 1,000 not yet copied.
FLOOR_CHECKPOINT_EVERY = 20

Write = tuple[str, Any, bool]  # a write statement, its parameters, and whether it ran as executemany


class _Recording:
    """The world's connection, keeping each write statement with its parameters as it runs it
    (the search index's triggers are not kept: running the statement again fires them)."""

    def __init__(self, conn: sqlite3.Connection, into: list[Write]):
        self._conn, self._into = conn, into

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def execute(self, sql: str, params: Any = ()) -> sqlite3.Cursor:
        if sql.lstrip()[:7].lower().startswith(WRITES):
            self._into.append((sql, params, False))
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, seq: Any) -> sqlite3.Cursor:
        rows = list(seq)
        if sql.lstrip()[:7].lower().startswith(WRITES):
            self._into.append((sql, rows, True))
        return self._conn.executemany(sql, rows)


def traced_writes(path: Path, turns: list[dict[str, Any]],
                  counted: list[int] | None = None) -> tuple[list[list[Write]], int]:
    """Each turn's write statements with their parameters, as `observe` ran them, and the
    writer's `wal_autocheckpoint`; with `counted`, each turn's count of every statement SQLite
    ran for it (reads, writes and the search index's own), a figure the load does not move."""
    per_turn: list[list[Write]] = []
    with Curator(path) as curator:
        current: list[Write] = []
        ran = 0

        def trace(_sql: str) -> None:
            nonlocal ran
            ran += 1

        raw = curator.world.conn
        autocheckpoint = int(raw.execute("pragma wal_autocheckpoint").fetchone()[0])
        raw.set_trace_callback(trace)
        curator.world.conn = _Recording(raw, current)  # type: ignore[assignment]
        try:
            for turn in turns:
                curator.observe(turn)
                per_turn.append(list(current))
                current.clear()
                if counted is not None:
                    counted.append(ran)
                ran = 0
        finally:
            curator.world.conn = raw
            raw.set_trace_callback(None)
    return per_turn, autocheckpoint


def floor_ms(path: Path, writes: list[list[Write]], autocheckpoint: int) -> list[float]:
    """Replay each turn's writes as one bare transaction, as the store writes a world: the
    same statements with the same parameters (so SQLite's statement cache serves them as it
    serves curator's), the same pragmas (`autocheckpoint` as read from curator's writer), and
    the log copied back between turns, untimed, where the store's checkpoint thread copies
    it beside the turns (store/checkpoint.py): no turn here pays a checkpoint that observe's
    turns do not pay either."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma journal_mode = wal")
    conn.execute("pragma synchronous = normal")
    conn.execute("pragma foreign_keys = on")
    conn.execute(f"pragma wal_autocheckpoint = {int(autocheckpoint)}")
    copier = sqlite3.connect(path, isolation_level=None)
    times: list[float] = []
    try:
        for n, statements in enumerate(writes, 1):
            started = time.perf_counter()
            conn.execute("begin immediate")
            for sql, params, many in statements:
                if many:
                    conn.executemany(sql, params)
                else:
                    conn.execute(sql, params)
            conn.execute("commit")
            times.append((time.perf_counter() - started) * 1000)
            if n % FLOOR_CHECKPOINT_EVERY == 0:
                copier.execute("pragma wal_checkpoint(passive)")
    finally:
        copier.close()
        conn.close()
    return times
