"""The full-text index over memories (`memory_fts`, m004) is written when it is read.

A turn does not index the memories it forms: writing an FTS5 row costs ~60 µs, ~0.45 ms of a
busy turn's ~5.5 on a world of 10,000 characters, and most of those memories belong to
characters whose memories are rarely or never searched by words (issue #17). Each character
has a mark, `characters.fts_through` (m019): its memories up to that seq are indexed. m019's
insert triggers index at once only a memory at or below its owner's mark (one brought back
from the archive, an import of old memories); any newer one waits.

Recall calls `bring_up_to_date` for a character before it reads the index for that character:
its memories above the mark, live or archived, are indexed, up to `BATCH` a transaction (the
mark moving with each), and the mark moves to the world's highest seq. Nothing else reads the
index, so a search always sees every memory. Writing needs the write lock for a moment: inside
a write transaction the rows join it; outside one they take short ones of their own, waiting
at most `WAIT` for another writer. A world that cannot be written then (read-only, or another
writer's transaction longer than that) is searched as it is indexed, with a warning naming
whose newest memories were not searched.
"""

from __future__ import annotations

import logging
import sqlite3

from curator.domain.errors import WorldLocked, WorldStorageError
from curator.store.world import World

log = logging.getLogger("curator.recall")
# How long a search waits for another writer before it reads the index as it is: a write
# transaction is meant to end within 250 ms (issue #17), and a read must not wait out the
# busy timeout (30 s by default) behind a longer one.
WAIT = 0.25
BATCH = 2_000  # memories indexed a transaction: ~60 ms (~30 µs a row, batched, on the scale world)

_ABOUT = "trim(coalesce(subject, '') || ' ' || coalesce(place, '') || ' ' || coalesce(domain, ''))"
# An archived memory is indexed from the archive only when no live row holds its seq (it is
# being moved back: the live row is the one to index).
_UNINDEXED = (f"select seq, content, {_ABOUT}, owner from memories where owner = :owner and seq > :mark "
              f"union all select seq, content, {_ABOUT}, owner from memory_archive a "
              "where owner = :owner and seq > :mark "
              "and not exists (select 1 from memories m where m.seq = a.seq)")
_WAITING = ("select exists (select 1 from memories where owner = :owner and seq > :mark) "
            "or exists (select 1 from memory_archive where owner = :owner and seq > :mark)")


def mark(world: World, owner: str) -> int | None:
    """The seq up to which the owner's memories are indexed (None: no such character)."""
    row = world.conn.execute("select fts_through from characters where id = ?", (owner,)).fetchone()
    return None if row is None else int(row[0])


def unindexed(world: World, owner: str) -> int:
    """How many of the owner's memories, live or archived, wait to be indexed."""
    through = mark(world, owner)
    if through is None:
        return 0
    row = world.conn.execute(f"select count(*) from ({_UNINDEXED})", {"owner": owner, "mark": through})
    return int(row.fetchone()[0])


def bring_up_to_date(world: World, owner: str) -> int:
    """Index the owner's memories above its mark and move the mark to the world's highest seq;
    how many were indexed. A world that cannot be written is left as it is (a warning)."""
    through = mark(world, owner)
    if through is None or not world.conn.execute(_WAITING, {"owner": owner, "mark": through}).fetchone()[0]:
        return 0  # the common case, and a read only: no write transaction for nothing
    if world.conn.in_transaction:
        return _index(world, owner, through, None)[0]
    indexed = 0
    try:
        while True:  # a batch a transaction: a character searched after years of turns
            with world.transaction(wait=WAIT):
                count, done = _index(world, owner, mark(world, owner) or 0, BATCH)
            indexed += count
            if done:
                return indexed
    except (WorldLocked, WorldStorageError, sqlite3.Error) as error:
        log.warning("%s's newest memories are not in the search index, so a search by words will "
                    "not find them this time: %s", owner, error)
        return indexed


def _index(world: World, owner: str, through: int, limit: int | None) -> tuple[int, bool]:
    """Index the owner's first `limit` memories above `through` (all: None) and move its mark
    past them, to the world's highest seq once none is left; (how many, none left)."""
    rows = world.conn.execute(f"{_UNINDEXED} order by 1 limit :limit", {
        "owner": owner, "mark": through, "limit": -1 if limit is None else limit}).fetchall()
    world.conn.executemany("insert or replace into memory_fts (rowid, text, about, owner) "
                           "values (?, ?, ?, ?)", rows)
    done = limit is None or len(rows) < limit
    world.conn.execute("update characters set fts_through = ? where id = ?",
                       (world.next_memory_seq() - 1 if done else rows[-1][0], owner))
    return len(rows), done
