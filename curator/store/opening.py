"""Opening a world file: the connection (WAL, a busy timeout, foreign keys) and its schema
brought up to date by the numbered migrations, with a backup of the file first.

Opening is safe under concurrency: a world that needs creating or migrating is created or
migrated by one opener at a time, in the writers' queue (writelock.py), each opener checking
again once it is its turn, so four processes creating one new world all succeed and the
schema is made once. Opening refuses, without writing anything: a world whose schema has a
migration this curator does not know (written by a newer curator: `WorldTooNew`), an SQLite
database with tables of its own that is not a world (`ForeignDatabase`, unless `force`), and,
with `create=False` (the read commands), a file that does not exist (`WorldNotFound`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from curator.domain.errors import ForeignDatabase, WorldNotFound, WorldTooNew
from curator.store.checkpoint import WRITER_AUTOCHECKPOINT, Checkpointer
from curator.store.failures import translate
from curator.store.migrations import known_names, migrations
from curator.store.world import World
from curator.store.writelock import WriteLock

DEFAULT_BUSY_TIMEOUT_MS = 30_000
_SQLITE_OWN = ("sqlite_", "_sqlite_migrations")  # tables any SQLite file may hold


def open_world(path: str | Path, *, busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS, create: bool = True,
               force: bool = False) -> World:
    """Open (creating it if `create`) a world file and bring its schema up to date."""
    name = str(path)
    memory = name == ":memory:"
    if not memory:
        if not create and not Path(path).exists():
            raise WorldNotFound(f"no world at {name} (nothing was created; check --db)")
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise translate(error, name, doing="create") from error
    try:
        conn = sqlite3.connect(name, isolation_level=None, timeout=busy_timeout_ms / 1000,
                               check_same_thread=False)
    except sqlite3.Error as error:
        raise translate(error, name, doing="open") from error
    world = World(Database(conn), name, busy_timeout=busy_timeout_ms / 1000,
                  writelock=None if memory else WriteLock(name))
    try:
        conn.execute(f"pragma busy_timeout = {int(busy_timeout_ms)}")
        conn.execute("pragma synchronous = normal")
        conn.execute("pragma foreign_keys = on")
        if not memory:
            conn.execute(f"pragma wal_autocheckpoint = {WRITER_AUTOCHECKPOINT}")  # checkpoint.py
        if _needs_work(world, memory, force):
            _prepare(world, memory, force)
    except BaseException as error:
        world.close()
        if isinstance(error, sqlite3.Error | OSError):
            raise translate(error, name, doing="open") from error
        raise
    if not memory:
        world.checkpointer = Checkpointer(name, busy_timeout_ms=busy_timeout_ms)
    return world


def _needs_work(world: World, memory: bool, force: bool) -> bool:
    """Whether the file must be changed (WAL, migrations), read without taking any lock; a
    world that is too new or not a world is refused here."""
    if not memory and world.conn.execute("pragma journal_mode").fetchone()[0].lower() != "wal":
        return True
    return bool(_pending(world, force))


def _pending(world: World, force: bool) -> list[str]:
    """The migrations this world still needs; refuses a newer world and a foreign database."""
    applied = [m.name for m in migrations.applied(world.db)]
    known = known_names()
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise WorldTooNew(
            f"world {world.path} was written by a newer curator: its schema is at {applied[-1]}, "
            f"this curator knows up to {known[-1]}; it was not changed (open it with a newer curator)",
            found=applied[-1], known=known[-1])
    pending = [name for name in known if name not in applied]
    if pending and not applied and not force:
        own = [t for t in world.db.table_names() if not t.startswith(_SQLITE_OWN)]
        if own:
            shown = ", ".join(own[:5]) + (" …" if len(own) > 5 else "")
            raise ForeignDatabase(f"{world.path} is an SQLite database with tables of its own ({shown}), "
                                  "not a curator world; check --db, or pass --force (force=True) to "
                                  "add a world's tables to it")
    return pending


def _prepare(world: World, memory: bool, force: bool) -> None:
    """Switch to WAL and migrate, in the writers' queue: the state is read again once it is
    this opener's turn, since another may have done the work meanwhile.

    The backup before a migration is taken first, outside the queue: it copies one snapshot
    of the file, and a WAL file's writers go on meanwhile (at 10,000 characters the copy took
    1.6-2.7 s, and the game's turns waited all of it while the queue was held). A turn that
    commits between the copy and the migration is in the world, not in the copy, as is every
    turn played after the migration: the copy is the world as the old schema last held it,
    for a migration that went wrong."""
    backed_up = None
    if not memory and world.db.table_names():
        early = _pending(world, force)
        if early:
            _backup(world.conn, Path(world.path), early[0])
            backed_up = early[0]
    with world.writers_turn("while being created or migrated by another process"):
        if not memory:
            world.conn.execute("pragma journal_mode = wal")
        pending = _pending(world, force)
        if not pending:
            return
        # Taken again, in the queue, only if another curator migrated part way meanwhile.
        if not memory and world.db.table_names() and pending[0] != backed_up:
            _backup(world.conn, Path(world.path), pending[0])
        world.conn.execute("begin immediate")
        try:
            migrations.apply(world.db)  # each migration in a savepoint of this transaction
            world.conn.execute("commit")
        except BaseException:
            if world.conn.in_transaction:
                world.conn.execute("rollback")
            raise


def _backup(conn: sqlite3.Connection, path: Path, first_pending: str) -> Path:
    """Back up before a schema change: the copy sits beside the world file."""
    target = path.with_name(f"{path.name}.bak-before-{first_pending}")
    with sqlite3.connect(str(target)) as copy:
        conn.backup(copy)
    copy.close()
    return target
