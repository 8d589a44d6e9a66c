"""Opening a world file: the connection (WAL, a busy timeout, foreign keys) and its schema
brought up to date by the numbered migrations, with a backup of the file first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from curator.domain.errors import WorldFormatError, WorldLocked
from curator.store.checkpoint import WRITER_AUTOCHECKPOINT, Checkpointer
from curator.store.migrations import migrations
from curator.store.world import World, is_locked


def open_world(path: str | Path, *, busy_timeout_ms: int = 5_000) -> World:
    """Open (creating if needed) a world file and bring its schema up to date."""
    memory = str(path) == ":memory:"
    if not memory:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, timeout=busy_timeout_ms / 1000,
                               check_same_thread=False)
        conn.execute(f"pragma busy_timeout = {int(busy_timeout_ms)}")
        if not memory:
            conn.execute("pragma journal_mode = wal")
            conn.execute(f"pragma wal_autocheckpoint = {WRITER_AUTOCHECKPOINT}")  # checkpoint.py
        conn.execute("pragma synchronous = normal")
        conn.execute("pragma foreign_keys = on")
        db = Database(conn)
        pending = migrations.pending(db)
        if pending:
            if not memory and db.table_names():
                _backup(conn, Path(path), pending[0].name)
            migrations.apply(db)
    except sqlite3.OperationalError as error:
        if is_locked(error):
            raise WorldLocked(f"world {path} is locked by another process") from error
        raise
    except sqlite3.DatabaseError as error:
        raise WorldFormatError(f"{path} is not a curator world: {error}") from error
    checkpointer = None if memory else Checkpointer(str(path), busy_timeout_ms=busy_timeout_ms)
    return World(db, str(path), checkpointer)


def _backup(conn: sqlite3.Connection, path: Path, first_pending: str) -> Path:
    """Back up before a schema change: the copy sits beside the world file."""
    target = path.with_name(f"{path.name}.bak-before-{first_pending}")
    with sqlite3.connect(str(target)) as copy:
        conn.backup(copy)
    copy.close()
    return target
