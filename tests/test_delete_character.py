"""Deleting a character: one transaction, and afterwards no row in any table refers to it."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest

from curator import Curator, UnknownCharacter
from curator.store import text_index


@pytest.fixture
def world(played: tuple[Curator, dict[str, Any]]) -> Curator:
    """The shipped transcript played, plus blocks and passages around bear: bear's own block,
    bear's shared block attached to wolf and fox, wolf's shared block attached to bear."""
    curator, _ = played
    curator.blocks.create("bear", "personality", "Slow to anger.")
    curator.blocks.create("bear", "den_rules", "No fish in the den.", shared=True)
    curator.blocks.attach("bear", "den_rules", "wolf", "fox")
    curator.blocks.create("wolf", "pack_news", "The poacher is back.", shared=True)
    curator.blocks.attach("wolf", "pack_news", "bear", "owl")
    curator.passages.store("bear", "The poacher's trap nearly took my leg.", ["episode"])
    curator.passages.store("wolf", "Bear guards the river like a king.", ["lore"])
    return curator


def references(curator: Curator, character: str) -> dict[str, int]:
    """Rows, per table and column, whose value is the character's id; and index entries that
    name it (who a memory is about, whom a summary is of)."""
    conn = curator.world.conn
    found: dict[str, int] = {}
    tables = [r[0] for r in conn.execute("select name from sqlite_master where type = 'table'")]
    for table in tables:
        for column in [r[1] for r in conn.execute(f"pragma table_info('{table}')")]:
            sql = f'select count(*) from "{table}" where "{column}" = ?'
            n = conn.execute(sql, (character,)).fetchone()[0]
            if n:
                found[f"{table}.{column}"] = n
    for fts, column in (("memory_fts", "about"),):
        n = conn.execute(f"select count(*) from {fts} where {fts} match ?",
                         (f'{column} : "{character}"',)).fetchone()[0]
        if n:
            found[f"{fts}.{column}"] = n
    return found


def test_nothing_refers_to_a_deleted_character(world: Curator) -> None:
    for character in world.characters():  # as a search of each would: the index then names bear
        text_index.bring_up_to_date(world.world, character)
    before = references(world, "bear")
    # The check sees bear everywhere it should be, so an empty result below means something.
    for where in ("characters.id", "memories.owner", "memories.subject", "memory_archive.owner",
                  "relationships.owner", "relationships.other", "blocks.owner", "block_links.character",
                  "passages.owner", "memory_fts.owner", "memory_fts.about", "passage_fts.owner"):
        assert before.get(where), where
    wolf_recent = world.counts("wolf")["recent"]
    removed = world.delete_character("Bear")
    assert references(world, "bear") == {}
    assert removed["characters"] == 1 and removed["blocks"] == 2 and removed["passages"] == 1
    assert removed["block_links"] == 3  # den_rules → wolf, fox; pack_news → bear
    # The others lose their relationship with bear and their memories of it, and nothing else.
    assert world.characters() == ["fox", "owl", "poacher", "wolf"]
    assert "bear" not in world.character("wolf").relationships
    assert 0 < world.counts("wolf")["recent"] < wolf_recent
    assert world.blocks.consumers("wolf", "pack_news") == ["owl"]
    assert [p.content for p in world.passages.list("wolf")] == ["Bear guards the river like a king."]
    assert world.export_world()["characters"]
    with pytest.raises(UnknownCharacter):
        world.character("bear")


def test_the_turn_log_stays_and_a_new_turn_brings_the_character_back(world: Curator) -> None:
    turns = world.world.turn_count()
    world.delete_character("bear")
    assert world.world.turn_count() == turns
    result = world.observe({"id": "after", "world_time": "2025-06-01T08:00:00Z", "actor": "bear",
                            "intent": {"action": "Wake up"}, "reality": "Wolf howls at you.",
                            "others": ["wolf"]})
    assert "bear" in result.created_characters
    assert list(world.character("bear").relationships) == ["wolf"]
    assert world.blocks.list("bear") == []  # a new character: the old blocks stay gone


def test_unknown_characters_are_refused(world: Curator) -> None:
    with pytest.raises(UnknownCharacter, match="'nobody'"):
        world.delete_character("nobody")


def test_a_failed_delete_changes_nothing(world: Curator) -> None:
    with world.world.transaction() as w:
        w.conn.execute("create trigger keep_bear before delete on characters begin "
                       "select raise(abort, 'bear stays'); end")
    before = references(world, "bear")
    with pytest.raises(sqlite3.IntegrityError, match="bear stays"):
        world.delete_character("bear")
    assert references(world, "bear") == before
