"""Export and import carry blocks (own and shared, with their links) and passages."""

from __future__ import annotations

from typing import Any

import pytest

from curator import Curator, WorldFormatError


@pytest.fixture
def source(curator: Curator) -> Curator:
    """Bear with a block and a passage; owl's shared `news` attached to bear and wolf."""
    for name in ("bear", "wolf", "owl"):
        curator.set_persona(name, f"A {name}.")
    curator.blocks.create("bear", "personality", "Gruff but fair.", char_limit=100,
                          description="who bear is")
    curator.blocks.create("owl", "news", "The river is high.", shared=True)
    curator.blocks.attach("owl", "news", "bear", "wolf")
    curator.passages.store("bear", "The old mill burned in the great fire.", ["lore", "mill"])
    return curator


def _character(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in document["characters"] if c["character"]["id"] == name)


def test_world_round_trip_keeps_blocks_links_and_passages(source: Curator) -> None:
    copy = Curator(":memory:")
    copy.import_document(source.export_world())
    own = copy.blocks.get("bear", "personality")
    assert (own.content, own.char_limit, own.description) == ("Gruff but fair.", 100, "who bear is")
    assert copy.blocks.consumers("owl", "news") == ["bear", "wolf"]
    assert copy.blocks.get("wolf", "news").content == "The river is high."
    [passage] = copy.passages.list("bear")
    assert (passage.content, passage.tags) == ("The old mill burned in the great fire.", ["lore", "mill"])
    assert [hit.content for hit in copy.passages.search("bear", "mill fire")] == [passage.content]


@pytest.mark.parametrize("order", [("bear", "owl"), ("owl", "bear")])
def test_links_come_back_whichever_end_is_imported_first(source: Curator, order: tuple[str, str]) -> None:
    exported = {name: source.export_character(name) for name in order}
    copy = Curator(":memory:")
    for name in order:
        copy.import_document(exported[name])
    assert copy.blocks.consumers("owl", "news") == ["bear"]  # wolf was never imported
    assert [b.label for b in copy.blocks.list("bear")] == ["personality", "news"]


def test_replace_overwrites_blocks_and_passages(source: Curator) -> None:
    document = source.export_character("bear")
    source.blocks.set("bear", "personality", "Soft now.")
    source.passages.store("bear", "A second passage.")
    source.import_document(document, replace=True)
    assert source.blocks.get("bear", "personality").content == "Gruff but fair."
    assert [p.content for p in source.passages.list("bear")] == ["The old mill burned in the great fire."]
    assert source.blocks.consumers("owl", "news") == ["bear", "wolf"]


@pytest.mark.parametrize("breakage", [
    lambda doc: doc["blocks"]["own"][0].update(content="x" * 101),  # over its char_limit
    lambda doc: doc["blocks"]["own"][0].update(label="Not A Label!"),
    lambda doc: doc["passages"][0].update(content="   "),
    lambda doc: doc["passages"][0].update(tags=["bad tag!"]),
])
def test_a_malformed_block_or_passage_fails_the_whole_import(source: Curator, breakage: Any) -> None:
    document = source.export_character("bear")
    breakage(document)
    copy = Curator(":memory:")
    with pytest.raises(WorldFormatError, match="'bear'"):
        copy.import_document(document)
    assert copy.characters() == []  # one transaction: nothing half-written
