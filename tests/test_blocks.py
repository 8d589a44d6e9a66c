"""Core memory blocks: the size limit on every write, labels, shared blocks, and
what deleting a block, its owner or one of its consumers leaves behind."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from curator import (
    Block,
    BlockExists,
    BlockNotShared,
    Blocks,
    BlockTooLarge,
    Curator,
    InvalidInput,
    UnknownBlock,
    UnknownCharacter,
)

CAST = ("bear", "wolf", "fox", "owl")


@pytest.fixture
def cast(curator: Curator) -> Curator:
    """A fresh in-memory world where bear, wolf, fox and owl exist (and nothing else)."""
    for name in CAST:
        curator.set_persona(name, f"A {name}.")
    return curator


@pytest.fixture
def news(cast: Curator) -> Block:
    """Wolf's shared block `news`, attached to bear and fox."""
    cast.blocks.create("wolf", "news", "A storm flattened the old oak.", shared=True)
    return cast.blocks.attach("wolf", "news", "bear", "fox")


def table(curator: Curator, name: str) -> list[tuple[Any, ...]]:
    return curator.world.conn.execute(f"select * from {name} order by 1, 2").fetchall()


def own_blocks(curator: Curator) -> list[Block]:
    return [b for c in curator.characters() for b in curator.blocks.list(c) if b.owner == c]


# -- the size limit, on every write ----------------------------------------------------------

Write = Callable[[Blocks], Any]
TOO_LARGE: list[Any] = [
    pytest.param(lambda b: b.create("bear", "diary", "x" * 21, char_limit=20), "bear/diary", 20, 21,
                 id="create"),
    pytest.param(lambda b: b.create("bear", "lore", "x" * 20_001, char_limit=20_000), "bear/lore",
                 20_000, 20_001, id="create-at-the-maximum"),
    pytest.param(lambda b: b.set("bear", "notes", "y" * 21), "bear/notes", 20, 21, id="set"),
    # "12345678" + "\n" + 12 characters = 21
    pytest.param(lambda b: b.append("bear", "notes", "z" * 12), "bear/notes", 20, 21, id="append"),
]


@pytest.mark.parametrize(("write", "name", "limit", "size"), TOO_LARGE)
def test_every_write_over_the_limit_is_refused_and_writes_nothing(
        cast: Curator, write: Write, name: str, limit: int, size: int) -> None:
    cast.blocks.create("bear", "notes", "12345678", char_limit=20)
    before = table(cast, "blocks")
    with pytest.raises(BlockTooLarge) as caught:
        write(cast.blocks)
    error = caught.value
    assert (f"{error.owner}/{error.label}", error.limit, error.size) == (name, limit, size)
    assert name in str(error) and f"at most {limit}" in str(error) and f"make it {size}" in str(error)
    assert error.exit_code == 2 and error.field == "content"
    assert table(cast, "blocks") == before


@pytest.mark.parametrize("write", [
    pytest.param(lambda b: b.create("bear", "diary", "x" * 20, char_limit=20), id="create"),
    pytest.param(lambda b: b.set("bear", "notes", "y" * 20), id="set"),
    pytest.param(lambda b: b.append("bear", "notes", "z" * 11), id="append"),
])
def test_a_write_exactly_at_the_limit_is_fine(cast: Curator, write: Write) -> None:
    cast.blocks.create("bear", "notes", "12345678", char_limit=20)
    block = write(cast.blocks)
    assert len(block.content) == 20


@pytest.mark.parametrize("limit", [0, -1, 20_001, 10**9])
def test_char_limit_must_be_1_to_20000(cast: Curator, limit: int) -> None:
    with pytest.raises(InvalidInput, match="char_limit"):
        cast.blocks.create("bear", "notes", char_limit=limit)
    assert table(cast, "blocks") == []


# -- labels, characters, reading -----------------------------------------------------------


@pytest.mark.parametrize("label", ["", "two words", "dash-ed", "x" * 41, "ünï", "news!", "\n"])
def test_a_label_is_a_lower_case_word(cast: Curator, label: str) -> None:
    with pytest.raises(InvalidInput, match="field 'label'"):
        cast.blocks.create("bear", label)
    assert table(cast, "blocks") == []


def test_labels_and_characters_are_case_insensitive(cast: Curator) -> None:
    made = cast.blocks.create(" Bear ", " Current_State ", "Hungry.")
    assert (made.owner, made.label) == ("bear", "current_state")
    assert cast.blocks.get("BEAR", "CURRENT_STATE") == made


def test_unknown_characters_are_refused(cast: Curator) -> None:
    with pytest.raises(UnknownCharacter, match="'nobody'"):
        cast.blocks.create("nobody", "personality")
    with pytest.raises(UnknownCharacter):
        cast.blocks.list("nobody")
    with pytest.raises(InvalidInput, match="field 'character'"):
        cast.blocks.list("not a name!")


def test_create_get_set_append_delete(cast: Curator) -> None:
    made = cast.blocks.create("bear", "personality", "Slow to anger.", char_limit=100,
                              description="How I see myself")
    assert (made.content, made.char_limit, made.description, made.shared) == (
        "Slow to anger.", 100, "How I see myself", False)
    assert made.created_at == made.updated_at and made.consumers == []
    assert cast.blocks.get("bear", "personality") == made
    assert cast.blocks.set("bear", "personality", "Calm.").content == "Calm."
    appended = cast.blocks.append("bear", "personality", "Loves fish.")
    assert appended.content == "Calm.\nLoves fish."
    assert appended.updated_at >= made.updated_at and appended.created_at == made.created_at
    empty = cast.blocks.create("bear", "current_state")
    assert cast.blocks.append("bear", "current_state", "Hungry.").content == "Hungry."
    assert empty.content == ""
    with pytest.raises(InvalidInput, match="nothing to append"):
        cast.blocks.append("bear", "current_state", "")
    assert cast.blocks.delete("bear", "personality").content == "Calm.\nLoves fish."
    with pytest.raises(UnknownBlock, match="bear has no block 'personality' \\(its blocks: current_state\\)"):
        cast.blocks.get("bear", "personality")


def test_a_label_is_created_once_per_owner(cast: Curator) -> None:
    cast.blocks.create("bear", "personality", "Slow to anger.")
    with pytest.raises(BlockExists, match="bear already has a block 'personality'"):
        cast.blocks.create("bear", "personality", "Something else.")
    assert cast.blocks.get("bear", "personality").content == "Slow to anger."
    assert cast.blocks.create("wolf", "personality").owner == "wolf"  # other owners may


def test_list_puts_the_standard_labels_first_then_the_rest_alphabetically(
        cast: Curator, news: Block) -> None:
    for label in ("zeal", "current_state", "alpha", "relationships", "personality"):
        cast.blocks.create("bear", label)
    assert [b.label for b in cast.blocks.list("bear")] == [
        "personality", "relationships", "current_state", "alpha", "news", "zeal"]
    assert [b.owner for b in cast.blocks.list("bear")].count("wolf") == 1
    assert cast.blocks.list("owl") == []


def test_timestamps_follow_the_world_clock(curator: Curator) -> None:
    curator.observe({"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
                     "intent": {"action": "Fish"}, "reality": "You catch a fish."})
    made = curator.blocks.create("bear", "current_state", "Fed.")
    assert made.created_at == datetime(2025, 1, 2, 8, tzinfo=UTC)


def test_timestamps_without_a_clock_are_now_in_utc(cast: Curator) -> None:
    made = cast.blocks.create("bear", "current_state")
    assert abs(made.created_at - datetime.now(UTC)) < timedelta(minutes=1)


def test_the_api_caches_its_blocks(curator: Curator) -> None:
    assert curator.blocks is curator.blocks and curator.passages is curator.passages


# -- shared blocks -------------------------------------------------------------------------


def test_attach_consumers_and_detach(cast: Curator, news: Block) -> None:
    assert news.consumers == ["bear", "fox"]
    assert cast.blocks.consumers("wolf", "news") == ["bear", "fox"]
    seen = cast.blocks.get("bear", "news")
    assert (seen.owner, seen.content, seen.shared) == ("wolf", "A storm flattened the old oak.", True)
    # The owner writes; every consumer sees the new text.
    cast.blocks.append("wolf", "news", "The river flooded.")
    assert cast.blocks.get("fox", "news").content.endswith("The river flooded.")
    # A consumer cannot write another's block: it has no block of its own by that label.
    with pytest.raises(UnknownBlock):
        cast.blocks.set("bear", "news", "Lies.")
    assert cast.blocks.detach("wolf", "news", "bear").consumers == ["fox"]
    with pytest.raises(UnknownBlock):
        cast.blocks.get("bear", "news")
    assert cast.blocks.detach("wolf", "news", "bear").consumers == ["fox"]  # not attached: no-op


def test_attaching_twice_changes_nothing(cast: Curator, news: Block) -> None:
    links = table(cast, "block_links")
    assert cast.blocks.attach("wolf", "news", "bear", "Fox").consumers == ["bear", "fox"]
    assert table(cast, "block_links") == links  # attached_at kept


def test_only_shared_blocks_attach_and_never_to_their_owner(cast: Curator, news: Block) -> None:
    cast.blocks.create("wolf", "personality", "Hungry, always.")
    with pytest.raises(BlockNotShared, match="wolf/personality is not shared"):
        cast.blocks.attach("wolf", "personality", "bear")
    with pytest.raises(InvalidInput, match="wolf owns the block wolf/news"):
        cast.blocks.attach("wolf", "news", "wolf")
    with pytest.raises(InvalidInput, match="wolf owns the block"):
        cast.blocks.detach("wolf", "news", "wolf")
    assert cast.blocks.consumers("wolf", "personality") == []


def test_attach_is_all_or_nothing(cast: Curator, news: Block) -> None:
    with pytest.raises(UnknownCharacter, match="'nobody'"):
        cast.blocks.attach("wolf", "news", "owl", "nobody")
    assert cast.blocks.consumers("wolf", "news") == ["bear", "fox"]


def test_an_own_block_wins_over_an_attached_shared_one(cast: Curator, news: Block) -> None:
    own = cast.blocks.create("bear", "news", "Nothing happens by my river.")
    assert cast.blocks.get("bear", "news") == own
    assert [(b.label, b.owner) for b in cast.blocks.list("bear")] == [("news", "bear")]
    assert cast.blocks.get("fox", "news").owner == "wolf"  # fox has no news of its own
    cast.blocks.delete("bear", "news")
    assert cast.blocks.get("bear", "news").owner == "wolf"  # still attached underneath


def test_two_shared_blocks_with_one_label_cannot_both_be_attached(cast: Curator, news: Block) -> None:
    cast.blocks.create("owl", "news", "The moon is full.", shared=True)
    with pytest.raises(InvalidInput, match="bear already has the shared block wolf/news attached"):
        cast.blocks.attach("owl", "news", "bear")
    cast.blocks.detach("wolf", "news", "bear")
    assert cast.blocks.attach("owl", "news", "bear").consumers == ["bear"]
    assert cast.blocks.get("bear", "news").owner == "owl"


def test_deleting_a_block_detaches_it_everywhere(cast: Curator, news: Block) -> None:
    gone = cast.blocks.delete("wolf", "news")
    assert gone.consumers == ["bear", "fox"]
    assert table(cast, "block_links") == []
    assert cast.blocks.list("bear") == cast.blocks.list("fox") == []


def test_deleting_the_owner_deletes_its_blocks_and_their_links(cast: Curator, news: Block) -> None:
    cast.blocks.create("bear", "personality", "Slow to anger.")
    removed = cast.delete_character("wolf")
    assert (removed["blocks"], removed["block_links"], removed["characters"]) == (1, 2, 1)
    assert [b.owner for b in own_blocks(cast)] == ["bear"]
    assert table(cast, "block_links") == []
    assert [b.label for b in cast.blocks.list("bear")] == ["personality"]
    with pytest.raises(UnknownCharacter):
        cast.blocks.list("wolf")


def test_deleting_a_consumer_removes_only_its_link(cast: Curator, news: Block) -> None:
    cast.delete_character("bear")
    assert cast.blocks.consumers("wolf", "news") == ["fox"]
    assert cast.blocks.get("fox", "news").content == "A storm flattened the old oak."


def test_the_schema_cascades_too(cast: Curator, news: Block) -> None:
    """blocks and block_links declare ON DELETE CASCADE: a bare delete of the owner is enough."""
    with cast.world.transaction() as world:
        world.conn.execute("delete from characters where id = 'wolf'")
    assert table(cast, "blocks") == [] and table(cast, "block_links") == []

