"""Imports under way (m015, m018): their record, their commit, the characters they write after
it, and what is left of one that died.

An import writes its characters in short transactions (api/importing.py), each row under a
character marked with the import's id (`characters.import_id`; visibility.py keeps them
out of every other reader's sight), and makes them part of the world in one short
transaction, its commit (`finish`: the marks cleared, whatever the number of rows).

Characters the world already has cannot be written under a mark (their old and new memories
may share ids). A few are written in the commit itself; more would make it long, so the import
keeps their documents (`keep_pending`) while its batches run and writes them after its commit,
a few a transaction (`next_pending`, `written_pending`, `published`): the import is then
`publishing`, and one whose process died there is finished by the next opening of the world
(api/importing.py), never undone, since the rest of it is already seen.

An import whose process died before its commit, or that failed and could not clean up after
itself, leaves marked rows behind: `abandoned` finds them (its process is gone, or it is this
process's and no longer running) and `clean_up` deletes them, a few characters a
transaction, each transaction held at most about `budget` seconds. The next import and the
next opening of the world do so.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from curator.domain.errors import ImportCancelled
from curator.domain.models import iso
from curator.store.world import World

PART = 4_000_000  # characters of a document's JSON kept per row of import_parts
STALE = timedelta(minutes=10)  # an import of another host silent this long is dead
_running: set[str] = set()  # the imports this process is running


def begin_import(world: World) -> str:
    """Record a new import (inside the caller's transaction); its id."""
    import_id = uuid.uuid4().hex[:16]
    now = iso(datetime.now(UTC))
    world.conn.execute("insert into imports (id, pid, host, started_at, heartbeat) values (?, ?, ?, ?, ?)",
                       (import_id, os.getpid(), socket.gethostname(), now, now))
    _running.add(import_id)
    return import_id


def heartbeat(world: World, import_id: str) -> None:
    """The import is alive: called in each of its batches. `ImportCancelled` if its record is
    gone (a rewind swapped the world in, or it was taken for dead and cleaned up)."""
    if not world.conn.execute("update imports set heartbeat = ? where id = ?",
                              (iso(datetime.now(UTC)), import_id)).rowcount:
        raise ImportCancelled(f"import {import_id} was cancelled while it ran (a rewind, or a "
                              "clean-up that took it for dead); nothing of it was kept")


def ended(import_id: str) -> None:
    """This process runs the import no more (done, or failed and cleaned up, or not)."""
    _running.discard(import_id)


def finish(world: World, import_id: str, *, publishing: bool = False) -> list[str]:
    """Make the import's characters part of the world (inside its commit): one statement over
    the characters it wrote, none over their rows. `publishing`: it still has characters to
    write after this (`keep_pending`), and keeps its record until `published`. Returns the ids."""
    heartbeat(world, import_id)
    ids = [r[0] for r in world.conn.execute("select id from characters where import_id = ?", (import_id,))]
    world.conn.execute("update characters set import_id = null where import_id = ?", (import_id,))
    if publishing:
        world.conn.execute("update imports set publishing = 1 where id = ?", (import_id,))
    else:
        world.conn.execute("delete from imports where id = ?", (import_id,))
    return ids


@dataclass(frozen=True)
class Pending:
    """A document the import writes after its commit: the `n`th character's (n >= 0, `as_of`
    the time its strengths are as of), or the world's groups (n = -1), last."""

    n: int
    as_of: str | None
    doc: str  # JSON text


GROUPS = -1  # the pending row of a world document's groups, written after its characters


def keep_pending(world: World, import_id: str, pending: Pending) -> None:
    world.conn.execute("insert into import_pending (import_id, n, as_of, doc) values (?, ?, ?, ?)",
                       (import_id, pending.n, pending.as_of, pending.doc))


def next_pending(world: World, import_id: str) -> Pending | None:
    """What the import writes next after its commit: its characters in document order, then its groups."""
    row = world.conn.execute("select n, as_of, doc from import_pending where import_id = ? "
                             "order by n < 0, n limit 1", (import_id,)).fetchone()
    return None if row is None else Pending(int(row[0]), row[1], row[2])


def written_pending(world: World, import_id: str, n: int) -> None:
    """The `n`th pending document is written (in the transaction that wrote it)."""
    world.conn.execute("delete from import_pending where import_id = ? and n = ?", (import_id, n))


def publishing(world: World, import_id: str) -> bool:
    """The import has committed and has documents left to write (`finish(publishing=True)`)."""
    row = world.conn.execute("select publishing from imports where id = ?", (import_id,)).fetchone()
    return row is not None and bool(row[0])


def published(world: World, import_id: str) -> None:
    """All of the import is written: its record goes (inside its last transaction)."""
    heartbeat(world, import_id)
    world.conn.execute("delete from import_pending where import_id = ?", (import_id,))
    world.conn.execute("delete from imports where id = ?", (import_id,))


def adopt(world: World, import_id: str) -> bool:
    """This process takes over an import whose process died after its commit, to finish it
    (inside a transaction, so that two processes opening the world cannot both take it): its
    record names this process from now on. False if it is not abandoned any more."""
    row = world.conn.execute("select pid, host, heartbeat from imports where id = ?", (import_id,)).fetchone()
    if row is None or not _gone(import_id, *row):
        return False
    world.conn.execute("update imports set pid = ?, host = ?, heartbeat = ? where id = ?",
                       (os.getpid(), socket.gethostname(), iso(datetime.now(UTC)), import_id))
    _running.add(import_id)
    return True


def store_parts(world: World, import_id: str, part: int, text: str) -> None:
    world.conn.execute("insert into import_parts (import_id, part, text) values (?, ?, ?)",
                       (import_id, part, text))


def joined_document(world: World, import_id: str) -> str:
    """A document kept in parts, whole again (its JSON text)."""
    return "".join(r[0] for r in world.conn.execute(
        "select text from import_parts where import_id = ? order by part", (import_id,)))


def parts_reference(import_id: str) -> dict[str, object]:
    """The operations log's arguments of an import whose arguments are kept in parts (oplog.py
    reads them whole)."""
    return {"document_parts": import_id}


def with_document(world: World, args: str) -> str:
    """An import's logged arguments, whole again if they were kept in parts (the parts hold
    the JSON text of all of them, the document with its `replace` and `clock`)."""
    if '"document_parts"' not in args[:200]:
        return args
    parsed = json.loads(args)
    return joined_document(world, parsed["document_parts"]) if "document_parts" in parsed else args


def abandoned(world: World) -> list[str]:
    """The imports under way whose process is gone (or is this one, no longer running them)."""
    dead = [str(row[0]) for row in world.conn.execute("select id, pid, host, heartbeat from imports")
            if _gone(*row)]
    # Marked characters whose import has no record (it was removed under it): nobody finishes them.
    dead += [str(r[0]) for r in world.conn.execute(
        "select distinct import_id from characters where import_id is not null "
        "and import_id not in (select id from imports)")]
    return dead


def _gone(import_id: str, pid: int, host: str, beat: object) -> bool:
    """The process that runs an import is gone: on this host, it has exited (or it is this one
    and runs it no more); on another, it has been silent for `STALE`."""
    if host == socket.gethostname():
        return (import_id not in _running) if pid == os.getpid() else not _alive(pid)
    return datetime.now(UTC) - _beat(beat) > STALE


def _beat(text: object) -> datetime:
    """An import's last heartbeat; one that is no time (a damaged or hand-made row) is long past,
    so the import counts as dead; one without a zone is read as UTC, as curator writes them."""
    try:
        when = datetime.fromisoformat(str(text))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


# Every row an import writes belongs to one of its characters; ?1 is the character.
_MEMORY_IDS = ("(select id from memories where owner = ?1 "
               "union all select id from memory_archive where owner = ?1)")
_LEFTOVERS = (
    f"delete from appraisals where memory_id in {_MEMORY_IDS}",
    # by its memories: memory_links has no index on owner (export/network.py clear_network)
    f"delete from memory_links where memory_id in {_MEMORY_IDS}",
    "delete from memory_sources where owner = ?1",
    "delete from memory_edits where owner = ?1",
    "delete from memories where owner = ?1",
    "delete from memory_archive where owner = ?1",
    "delete from relationships where owner = ?1 or other = ?1",  # other: a stub the import made
    "delete from attribute_changes where character = ?1",
    "delete from attributes where character = ?1",
    "delete from personality_snapshots where character = ?1",
    "delete from evolution_marks where character = ?1",
    "delete from goal_history where character = ?1",
    "delete from goals where character = ?1",
    "delete from practice where character = ?1",
    "delete from group_members where character = ?1",
    "delete from block_links where character = ?1 or block_id in (select id from blocks where owner = ?1)",
    "delete from blocks where owner = ?1",
    "delete from passages where owner = ?1",
    "delete from characters where id = ?1",
)


def clean_up(world: Callable[[], World], import_id: str, *, budget: float = 0.1) -> int:
    """Delete what the import wrote, its characters a few at a time, each transaction stopping
    once it has held the write lock `budget` seconds; then its record. Nothing of it was
    visible, so each transaction may stop anywhere. Returns the characters deleted."""
    deleted = 0
    while True:
        with world().transaction() as store:
            if publishing(store, import_id):
                return deleted  # past its commit: finished (api/importing.py), never undone
            deadline = time.perf_counter() + budget
            ids = [r[0] for r in store.conn.execute(
                "select id from characters where import_id = ? limit 100", (import_id,))]
            for character in ids:
                for statement in _LEFTOVERS:
                    store.conn.execute(statement, (character,))
                deleted += 1
                if time.perf_counter() > deadline:
                    break
            else:
                if not ids:
                    store.conn.execute("delete from import_parts where import_id = ?", (import_id,))
                    store.conn.execute("delete from import_pending where import_id = ?", (import_id,))
                    store.conn.execute("delete from imports where id = ?", (import_id,))
                    ended(import_id)
                    return deleted
