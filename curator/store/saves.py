"""Saves: the record of rewinds (what each took out of the world, so it can be undone) and the
swap that puts a rebuilt world in place of a live one.

A rewind never edits the live world step by step: the world it wants is rebuilt in a file of
its own (api/saves.py), then copied over the live one with SQLite's backup API in one write
transaction, under the world's write lock (`swap_in`). A crash before the swap leaves the
live world as it was; the copy itself commits whole or not at all. The swap is refused if the
live world changed while the rebuild ran (`oplog.watermark`).
"""

from __future__ import annotations

import sqlite3
import time
from datetime import UTC, datetime

from pydantic import BaseModel

from curator.domain.errors import RewindRefused, WorldLocked
from curator.domain.models import iso
from curator.store.oplog import Event, watermark
from curator.store.world import World


class SetAside(BaseModel):
    """A turn or an operation a rewind took out of the world."""

    position: int
    kind: str
    ref: str
    payload: str
    received_at: str | None = None
    result: str | None = None


class RewindRecord(BaseModel):
    """One rewind (or undo, or branch): to which turn, when, why, by whom, and what it set aside."""

    id: int
    action: str  # "rewind", "undo" or "branch"
    to_turn: str | None
    kept_through: int  # the seq of the last turn kept
    reason: str
    by: str
    at: str  # wall time
    world_time: str | None
    undone_by: int | None = None
    set_aside: list[SetAside] = []


_RECORD = "id, action, to_turn, kept_through, reason, by, at, world_time, undone_by"


def rewind_records(world: World, *, with_set_aside: bool = True) -> list[RewindRecord]:
    """Every rewind of the world, oldest first."""
    records = [RewindRecord.model_validate(dict(zip(_RECORD.split(", "), row, strict=True)))
               for row in world.conn.execute(f"select {_RECORD} from rewinds order by id")]
    if with_set_aside:
        for record in records:
            record.set_aside = [SetAside(position=r[0], kind=r[1], ref=r[2], payload=r[3], received_at=r[4],
                                         result=r[5])
                                for r in world.conn.execute(
                                    "select position, kind, ref, payload, received_at, result from set_aside "
                                    "where rewind_id = ? order by position", (record.id,))]
    return records


def add_record(world: World, record: RewindRecord, set_aside: list[Event]) -> int:
    """Write a rewind record and what it set aside (inside the caller's transaction)."""
    cur = world.conn.execute(
        "insert into rewinds (action, to_turn, kept_through, reason, by, at, world_time) "
        "values (?, ?, ?, ?, ?, ?, ?)",
        (record.action, record.to_turn, record.kept_through, record.reason, record.by,
         record.at, record.world_time))
    rewind_id = int(cur.lastrowid or 0)
    world.conn.executemany(
        "insert into set_aside (rewind_id, position, kind, ref, payload, received_at, result) "
        "values (?, ?, ?, ?, ?, ?, ?)",
        [(rewind_id, n, e.kind, e.ref, e.payload, e.received_at, e.result) for n, e in enumerate(set_aside)])
    return rewind_id


def set_undone(world: World, rewind_id: int, by_id: int) -> None:
    world.conn.execute("update rewinds set undone_by = ? where id = ?", (by_id, rewind_id))


def copy_tables(source: World, target: World, tables: tuple[str, ...]) -> None:
    """Copy every row of `tables` from `source` into `target` (inside target's transaction):
    the call log and the rewinds' own record, which a rebuild keeps whole."""
    for table in tables:
        columns = [r[1] for r in source.conn.execute(f"pragma table_info({table})")]
        rows = source.conn.execute(f"select {', '.join(columns)} from {table}").fetchall()
        target.conn.executemany(f"insert into {table} ({', '.join(columns)}) values "
                                f"({', '.join('?' * len(columns))})", rows)


def restore_receipts(world: World, turns: list[Event]) -> None:
    """A rebuilt turn keeps the time the game first delivered it and the result it got then
    (what a re-delivery of it returns)."""
    world.conn.executemany(
        "update turns set received_at = coalesce(?, received_at), result = coalesce(?, result) where id = ?",
        [(e.received_at, e.result, e.ref) for e in turns if e.is_turn])


def swap_in(world: World, rebuilt: sqlite3.Connection, expected: tuple[int, int, int]) -> None:
    """Replace the live world's whole content with the rebuilt one's, in one write transaction
    under the world's write lock; refused if the live world moved past `expected`."""
    with world.writers_turn():
        if watermark(world) != expected:
            raise RewindRefused("the world changed while the rewind was rebuilt (a turn or an "
                                "edit came in); nothing was changed, try again")
        deadline = time.monotonic() + world.busy_timeout

        def waited(status: int, remaining: int, total: int) -> None:
            # SQLite's backup retries a busy world for ever; a writer that does not queue (another
            # program) holds it: give up as any write transaction does, nothing copied.
            if time.monotonic() > deadline:
                raise WorldLocked(f"world {world.path} stayed locked by another writer for "
                                  f"{world.busy_timeout:g} s")

        rebuilt.backup(world.conn, progress=waited, sleep=0.05)


def now_text() -> str:
    return iso(datetime.now(UTC))
