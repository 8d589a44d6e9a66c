"""The memory full-text index (memory_fts, m004 → m019) holds exactly one row per memory, live or
archived, with its current words, once each owner's index is brought up to date (as a search
does); before that it holds nothing wrong and misses only memories above their owner's mark.
Archiving an indexed memory writes nothing to it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from conftest import TurnFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from curator import Curator, Tier
from curator.store import text_index
from curator.store.world import World
from evals.synthetic import synthetic_turns


def _expected(world: World) -> dict[int, tuple[str, str, str]]:
    rows = world.conn.execute(
        "select seq, content, trim(coalesce(subject, '') || ' ' || coalesce(place, '') || ' ' || "
        "coalesce(domain, '')), owner from memories union all "
        "select seq, content, trim(coalesce(subject, '') || ' ' || coalesce(place, '') || ' ' || "
        "coalesce(domain, '')), owner from memory_archive").fetchall()
    return {int(r[0]): (r[1], r[2], r[3]) for r in rows}


def _indexed(world: World) -> dict[int, tuple[str, str, str]]:
    rows = world.conn.execute("select rowid, text, about, owner from memory_fts").fetchall()
    return {int(r[0]): (r[1], r[2], r[3]) for r in rows}


def _up_to_date(world: World) -> None:
    for (owner,) in world.conn.execute("select id from characters").fetchall():
        text_index.bring_up_to_date(world, owner)


def _holds_nothing_wrong(world: World) -> dict[int, tuple[str, str, str]]:
    """Every indexed row is its memory's as it is now, and every memory missing from the index
    is above its owner's mark (waiting for a search); the index's rows."""
    indexed, expected = _indexed(world), _expected(world)
    assert {seq: row for seq, row in indexed.items() if expected.get(seq) != row} == {}
    marks = dict(world.conn.execute("select id, fts_through from characters").fetchall())
    missing = [(seq, row[2]) for seq, row in expected.items() if seq not in indexed]
    assert [(seq, owner) for seq, owner in missing if seq <= marks[owner]] == []
    return indexed


def test_the_index_matches_live_and_archived_memories_after_a_long_session(tmp_path: Path) -> None:
    with Curator(tmp_path / "world.db") as curator:
        for turn in synthetic_turns(400, 8):
            curator.observe(turn)
        world = curator.world
        archived = world.conn.execute("select count(*) from memory_archive").fetchone()[0]
        assert archived > 20  # the session faded and pushed out plenty
        assert len(_holds_nothing_wrong(world)) < len(_expected(world))  # new memories wait
        assert text_index.unindexed(world, "npc_001") > 0
        curator.search("npc_001", "river")  # npc_001's own wait no more
        assert text_index.unindexed(world, "npc_001") == 0
        _holds_nothing_wrong(world)
        _up_to_date(world)
        expected = _expected(world)
        assert _indexed(world) == expected
        # Every archived memory is still found by its words.
        seq, content, owner = world.conn.execute(
            "select seq, content, owner from memory_archive order by seq desc limit 1").fetchone()
        word = max(content.split(), key=len).strip(".,:;!?'\"")
        found = world.conn.execute("select rowid from memory_fts where memory_fts match ?",
                                   (f'text : "{word}"',)).fetchall()
        assert seq in {r[0] for r in found}, owner


def test_archiving_leaves_the_index_alone(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "world.db") as curator:
        curator.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"]))
        world = curator.world
        memory = world.memories("bear", "wolf", Tier.RECENT)[0]
        _up_to_date(world)
        before = world.conn.execute("select id, block from memory_fts_data order by id").fetchall()
        with world.transaction():
            world.archive_memory(memory, reason="faded_from_recent", at=memory.created_at)
        after = world.conn.execute("select id, block from memory_fts_data order by id").fetchall()
        assert after == before  # no FTS5 segment written: the row keyed by seq stayed as it was
        assert _indexed(world) == _expected(world)


def test_an_archived_memory_written_directly_is_indexed(tmp_path: Path, make_turn: TurnFactory) -> None:
    # An import writes archive rows with no live row behind them: those are indexed at once at
    # or below their owner's mark (an old memory brought back), at its next search above it.
    with Curator(tmp_path / "world.db") as curator:
        curator.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"]))
        world = curator.world
        memory = world.memories("bear", "wolf", Tier.RECENT)[0]
        _up_to_date(world)
        seq = world.conn.execute("select seq from memories where id = ?", (memory.id,)).fetchone()[0]
        with world.transaction():
            world.conn.execute("delete from memories where id = ?", (memory.id,))
            assert memory.id not in {r[0] for r in world.conn.execute("select id from memories")}
            memory.content = "Wolf shared the blackberries with me."
            memory.archived_at, memory.archived_reason = memory.created_at, "consolidated"
            world.insert_archived(memory, seq)
            memory.content, memory.id = "Wolf shared the honey with me.", "m_later"
            world.insert_archived(memory, 99)
        indexed = _holds_nothing_wrong(world)
        assert indexed[seq][0] == "Wolf shared the blackberries with me."  # below the mark: at once
        assert 99 not in indexed
        assert curator.search("bear", "honey")[0].memory.content == "Wolf shared the honey with me."
        assert _indexed(world) == _expected(world)



CAST = ["bear", "wolf", "owl", "heron"]
DEEDS = ["shows you a hidden patch of berries", "steals your trout", "pulls you out of the icy river",
         "growls at you over the carcass", "shares a honeycomb with you"]
STEPS = st.lists(st.one_of(
    st.tuples(st.just("observe"), st.integers(0, 3), st.integers(0, 3), st.integers(0, 3), st.integers(0, 4)),
    st.tuples(st.just("search"), st.integers(0, 3)),
    st.tuples(st.just("fade"), st.integers(1, 400)),
    st.tuples(st.just("edit"), st.integers(0, 50)),
    st.tuples(st.just("forget"), st.integers(0, 50)),
    st.tuples(st.just("delete"), st.integers(0, 3))), min_size=1, max_size=14)


@settings(max_examples=30, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(steps=STEPS)
def test_whatever_a_session_does_the_index_holds_nothing_wrong(tmp_path_factory: pytest.TempPathFactory,
                                                                steps: list[tuple[Any, ...]]) -> None:
    """Turns, fading, searches, a designer's edits and forgets, a character deleted, in any
    order: after each, every indexed row is its memory's as it is now and every memory missing
    is above its owner's mark; a searched character has none missing; all brought up to date,
    the index is exactly the memories."""
    now = datetime(2025, 1, 1, 8, tzinfo=UTC)
    with Curator(tmp_path_factory.mktemp("w") / "w.db") as curator:
        world = curator.world
        for n, (verb, *args) in enumerate(steps):
            if verb == "observe":
                actor, other, observer, deed = args
                now += timedelta(hours=1)
                curator.observe({"id": f"t{n}", "world_time": now.isoformat(), "actor": CAST[actor],
                                 "intent": {"action": "Head to the river"}, "others": [CAST[other]],
                                 "observers": [CAST[observer]],
                                 "reality": f"{CAST[other].title()} {DEEDS[deed]}."})
            elif verb == "search" and world.character_row(CAST[args[0]]) is not None:
                curator.search(CAST[args[0]], "trout berries river honeycomb carcass")
                assert text_index.unindexed(world, CAST[args[0]]) == 0
            elif verb == "fade":
                now += timedelta(hours=args[0])
                curator.fade(now)
            elif verb in ("edit", "forget"):
                ids = [r[0] for r in world.conn.execute("select id from memories order by seq")]
                if ids and verb == "edit":
                    curator.memory_edit(ids[args[0] % len(ids)], f"A new thought, number {n}, of salmon.")
                elif ids:
                    curator.memory_forget(ids[args[0] % len(ids)])
            elif verb == "delete" and world.character_row(CAST[args[0]]) is not None:
                curator.delete_character(CAST[args[0]])
            _holds_nothing_wrong(world)
        _up_to_date(world)
        assert _indexed(world) == _expected(world)


def test_a_memory_written_again_at_its_owners_mark_is_indexed_at_once(tmp_path: Path,
                                                                       make_turn: TurnFactory) -> None:
    # A memory brought back with a seq the owner's index has passed (a restore, an import of
    # old memories) would never be indexed by a search, which takes what is above the mark.
    with Curator(tmp_path / "world.db") as curator:
        curator.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"]))
        world = curator.world
        _up_to_date(world)
        seq, memory_id, owner = world.conn.execute(
            "select seq, id, owner from memories order by seq desc limit 1").fetchone()
        assert text_index.mark(world, owner) == seq
        memory = world.find_memory(memory_id)
        assert memory is not None
        with world.transaction():
            world.conn.execute("delete from memories where id = ?", (memory_id,))
            memory.content = "Wolf and I ate the cloudberries together."
            world.insert_memory(memory, seq)
        assert _indexed(world)[seq][0] == "Wolf and I ate the cloudberries together."
