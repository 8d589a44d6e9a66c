"""A turn's new memories are indexed for search by words when their owner's memories are next
searched, not by the turn (m019, store/text_index.py; issue #17): a search still finds every
memory, the newest included, and a world that cannot be written is searched as it is indexed."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import pytest
from conftest import TurnFactory

from curator import Curator, Tier, WorldLocked
from curator.store import text_index
from curator.store.m004_recall import M004_SCRIPT
from curator.store.world import World


def _indexed(world: World) -> set[int]:
    return {r[0] for r in world.conn.execute("select rowid from memory_fts")}


def _seqs(world: World, owner: str) -> set[int]:
    rows = world.conn.execute("select seq from memories where owner = ?1 union all "
                              "select seq from memory_archive where owner = ?1", (owner,))
    return {r[0] for r in rows}


def test_a_turns_memories_wait_for_their_owners_search(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "w.db") as curator:
        curator.observe(make_turn("Wolf shows you a hidden patch of cloudberries.", others=["wolf"],
                                  observers=["owl"]))
        world = curator.world
        assert _indexed(world) == set()  # the turn wrote no index row
        assert text_index.unindexed(world, "bear") == len(_seqs(world, "bear")) > 0
        hits = curator.search("bear", "cloudberries")
        assert hits and "cloudberries" in hits[0].memory.content
        assert _indexed(world) == _seqs(world, "bear")  # bear's, and only bear's
        highest = max(_seqs(world, "bear") | _seqs(world, "owl") | _seqs(world, "wolf"))
        assert text_index.mark(world, "bear") == highest and text_index.mark(world, "owl") == 0
        # A search with nothing waiting is a read: no write transaction
        statements: list[str] = []
        world.conn.set_trace_callback(statements.append)
        curator.search("bear", "cloudberries")
        world.conn.set_trace_callback(None)
        assert not [s for s in statements if s.lower().startswith(("begin", "insert", "update"))]
        # The context a game asks for finds the newest memory by its words too, peeking or not
        for peek in (True, False):
            text = curator.context("owl", "cloudberries", peek=peek).text
            assert "cloudberries" in text
        assert text_index.unindexed(world, "owl") == 0


def test_a_memory_archived_before_its_owner_searched_is_found(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "w.db") as curator:
        curator.observe(make_turn("Wolf shows you a silver ring under the old stump.", others=["wolf"]))
        world = curator.world
        memory = world.memories("bear", "wolf", Tier.RECENT)[0]
        with world.transaction():
            world.archive_memory(memory, reason="faded_from_recent", at=memory.created_at)
        assert _indexed(world) == set()
        (hit,) = [h for h in curator.search("bear", "silver ring") if h.memory.id == memory.id]
        assert hit.memory.archived_reason == "faded_from_recent"


def test_a_world_that_cannot_be_written_is_searched_as_indexed(tmp_path: Path, make_turn: TurnFactory,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    with Curator(tmp_path / "w.db") as curator:
        curator.observe(make_turn("Wolf steals your trout.", others=["wolf"]))
        curator.search("bear", "trout")  # indexed
        curator.observe(make_turn("Heron steals your salmon.", others=["heron"]))

        def locked(*args: object, **kwargs: object) -> object:
            raise WorldLocked("world w.db stayed locked by another writer (test)")
        monkeypatch.setattr(curator.world, "transaction", locked)
        with caplog.at_level(logging.WARNING, logger="curator.recall"):
            hits = curator.search("bear", "trout salmon")
        assert [h.memory.content for h in hits if "trout" in h.memory.content]
        # not indexed yet: found at most as the trout memory's neighbour, not by its words
        assert not [h for h in hits if "salmon" in h.memory.content and "match" in h.sources]
        assert "bear's newest memories are not in the search index" in caplog.text
        assert "locked" in caplog.text
        monkeypatch.undo()
        found = curator.search("bear", "salmon")
        assert [h for h in found if "salmon" in h.memory.content and "match" in h.sources]


def test_a_world_from_before_m019_keeps_its_index_and_defers_what_comes_next(
        tmp_path: Path, make_turn: TurnFactory) -> None:
    db = tmp_path / "old.db"
    with Curator(db) as curator:
        curator.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"]))
    with sqlite3.connect(db) as conn:  # as m018 left it: every memory indexed by its trigger
        conn.execute("delete from _sqlite_migrations where name = 'm019_index_when_searched'")
        conn.execute("drop trigger memories_fts_insert")
        conn.execute("drop trigger archive_fts_insert")
        conn.execute("alter table characters drop column fts_through")
        insert = M004_SCRIPT[M004_SCRIPT.index("create trigger memories_fts_insert"):]
        conn.execute(insert[:insert.index("end;") + 3])
        conn.execute("insert into memory_fts (rowid, text, about, owner) select seq, content, '', owner "
                     "from memories")
    conn.close()
    with Curator(db) as curator:  # migrates: m019 runs
        world = curator.world
        before = _seqs(world, "bear") | _seqs(world, "wolf")
        assert _indexed(world) == before
        assert {text_index.mark(world, c) for c in ("bear", "wolf")} == {max(before)}
        curator.observe(make_turn("Wolf shares a honeycomb with you.", others=["wolf"], day=3))
        assert _indexed(world) == before  # the new memories wait
        assert text_index.unindexed(world, "bear") > 0
        assert "honeycomb" in curator.search("bear", "honeycomb")[0].memory.content


def test_a_search_waits_for_another_writer_a_moment_not_the_busy_timeout(
        tmp_path: Path, make_turn: TurnFactory, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "w.db"
    with Curator(db) as curator:  # the default busy timeout: 30 s
        curator.observe(make_turn("Heron steals your salmon.", others=["heron"]))
        holder = sqlite3.connect(db, isolation_level=None)  # another program's long write
        holder.execute("begin immediate")
        try:
            started = time.monotonic()
            with caplog.at_level(logging.WARNING, logger="curator.recall"):
                curator.search("bear", "salmon")
            waited = time.monotonic() - started
        finally:
            holder.execute("rollback")
            holder.close()
        assert text_index.WAIT <= waited < 2.0
        assert "stayed locked by another writer for 0.25 s" in caplog.text
        assert text_index.unindexed(curator.world, "bear") > 0
        # the busy timeout is the world's own again for every other write
        assert curator.world.conn.execute("pragma busy_timeout").fetchone()[0] == 30_000
        curator.search("bear", "salmon")
        assert text_index.unindexed(curator.world, "bear") == 0


def test_many_waiting_memories_are_indexed_a_batch_a_transaction(
        tmp_path: Path, make_turn: TurnFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # A character searched for the first time after years of turns: no one long write.
    from curator.store.transactions import time_writes

    with Curator(tmp_path / "w.db") as curator:
        for deed in ("steals your trout", "shares a honeycomb with you", "growls at you",
                     "pulls you out of the river", "shows you the ford"):
            curator.observe(make_turn(f"Wolf {deed}.", others=["wolf"]))
        world = curator.world
        waiting = text_index.unindexed(world, "bear")
        assert waiting > 3
        monkeypatch.setattr(text_index, "BATCH", 3)
        held: list[float] = []
        with time_writes(held.append):
            assert text_index.bring_up_to_date(world, "bear") == waiting
        assert len(held) == waiting // 3 + 1  # the last batch is the one with fewer than 3 (maybe 0)
        assert text_index.unindexed(world, "bear") == 0
        assert text_index.mark(world, "bear") == max(_seqs(world, "bear") | _seqs(world, "wolf"))
        assert _indexed(world) == _seqs(world, "bear")
