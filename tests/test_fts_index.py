"""The memory full-text index (memory_fts, m004 → m019) holds exactly one row per memory, live or
archived, with its current words, once each owner's index is brought up to date (as a search
does); before that it holds nothing wrong and misses only memories above their owner's mark.
Archiving an indexed memory writes nothing to it."""

from __future__ import annotations

from pathlib import Path

from conftest import TurnFactory

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

