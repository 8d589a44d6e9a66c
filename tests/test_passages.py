"""Archival passages: storing with tags, listing newest first, keyword search that
ranks with bm25 and survives any text a user types, and deleting only one's own."""

from __future__ import annotations

import pytest

from curator import Curator, InvalidInput, Passage, UnknownCharacter, UnknownPassage
from curator.recall.passages import MAX_CONTENT, match_expression

LORE = {
    "oak": ("A storm flattened the old oak by the river.", ["lore", "storm"]),
    "storms": ("Storm after storm: the storm season is long.", ["lore"]),
    "fish": ("Wolf once stole my fish at the river.", ["episode"]),
    "honey": ("The bees keep honey in the hollow tree.", []),
    "berries": ("Berries ripen late on the north slope.", []),
}


@pytest.fixture
def cast(curator: Curator) -> Curator:
    for name in ("bear", "wolf"):
        curator.set_persona(name, f"A {name}.")
    return curator


@pytest.fixture
def lore(cast: Curator) -> dict[str, Passage]:
    """Bear's passages (stored in LORE's order) and one of wolf's that mentions storms too."""
    stored = {key: cast.passages.store("bear", text, tags) for key, (text, tags) in LORE.items()}
    stored["wolf"] = cast.passages.store("wolf", "Storm storm storm, says wolf.", ["storm"])
    return stored


def count(curator: Curator, table: str) -> int:
    return int(curator.world.conn.execute(f"select count(*) from {table}").fetchone()[0])


# -- storing and listing ------------------------------------------------------------------


def test_store_normalises_tags_and_list_is_newest_first(cast: Curator, lore: dict[str, Passage]) -> None:
    tagged = cast.passages.store("bear", "Winter is near.", [" Season ", "season", "WINTER_1"])
    assert tagged.tags == ["season", "winter_1"] and tagged.owner == "bear"
    listed = cast.passages.list("bear")
    assert [p.id for p in listed] == [tagged.id, *reversed([lore[k].id for k in LORE])]
    assert cast.passages.get("bear", tagged.id) == tagged
    assert cast.passages.store("bear", "One tag.", "solo").tags == ["solo"]  # a str is one tag


def test_list_by_tag_with_limit_and_offset(cast: Curator, lore: dict[str, Passage]) -> None:
    assert [p.id for p in cast.passages.list("bear", tag="LORE")] == [lore["storms"].id, lore["oak"].id]
    assert [p.id for p in cast.passages.list("bear", tag="storm")] == [lore["oak"].id]  # not wolf's
    assert cast.passages.list("bear", tag="nothing") == []
    assert [p.id for p in cast.passages.list("bear", limit=2, offset=1)] == [
        lore["honey"].id, lore["fish"].id]
    assert cast.passages.list("bear", offset=10) == []


@pytest.mark.parametrize(("content", "tags", "field"), [
    pytest.param("", (), "content", id="empty"),
    pytest.param("   \n", (), "content", id="blank"),
    pytest.param("x" * (MAX_CONTENT + 1), (), "content", id="too-long"),
    pytest.param("text", [f"t{i}" for i in range(17)], "tags", id="17-tags"),
    pytest.param("text", ["two words"], "tags", id="tag-with-space"),
    pytest.param("text", ["x" * 41], "tags", id="tag-too-long"),
    pytest.param("text", ["ok", "bad-tag"], "tags", id="one-bad-tag"),
])
def test_bad_passages_are_refused_and_nothing_is_stored(cast: Curator, content: str, tags: list[str],
                                                        field: str) -> None:
    with pytest.raises(InvalidInput, match=f"field '{field}'"):
        cast.passages.store("bear", content, tags)
    assert count(cast, "passages") == count(cast, "passage_fts") == 0


def test_the_largest_passage_and_the_most_tags_fit(cast: Curator) -> None:
    big = cast.passages.store("bear", "x" * MAX_CONTENT, [f"t{i}" for i in range(16)])
    assert len(big.content) == MAX_CONTENT and len(big.tags) == 16


def test_unknown_characters_and_bad_limits_are_refused(cast: Curator) -> None:
    with pytest.raises(UnknownCharacter):
        cast.passages.store("nobody", "text")
    with pytest.raises(UnknownCharacter):
        cast.passages.search("nobody", "text")
    for limit, offset, field in ((0, 0, "limit"), (1001, 0, "limit"), (10, -1, "offset")):
        with pytest.raises(InvalidInput, match=f"field '{field}'"):
            cast.passages.list("bear", limit=limit, offset=offset)
    with pytest.raises(InvalidInput, match="field 'limit'"):
        cast.passages.search("bear", "storm", limit=0)


# -- search -------------------------------------------------------------------------------


def test_search_ranks_by_bm25_within_the_owners_passages(cast: Curator, lore: dict[str, Passage]) -> None:
    hits = cast.passages.search("bear", "storm")
    # Three storms in a short passage beat one in a longer one; wolf's passage is not bear's.
    assert [h.id for h in hits] == [lore["storms"].id, lore["oak"].id]
    assert hits[0].score > hits[1].score > 0
    assert "[Storm]" in hits[0].snippet and "[storm]" in hits[1].snippet
    assert hits[1].content == LORE["oak"][0] and hits[1].tags == ["lore", "storm"]
    assert [h.owner for h in cast.passages.search("wolf", "storm")] == ["wolf"]


def test_search_words_are_or_ed_and_stemmed(cast: Curator, lore: dict[str, Passage]) -> None:
    assert {h.id for h in cast.passages.search("bear", "who stole the honey?")} >= {
        lore["fish"].id, lore["honey"].id}
    assert [h.id for h in cast.passages.search("bear", "storms")] == [lore["storms"].id, lore["oak"].id]
    assert [h.id for h in cast.passages.search("bear", "berries", limit=1)] == [lore["berries"].id]


def test_search_matches_tags_but_not_the_owner(cast: Curator, lore: dict[str, Passage]) -> None:
    assert [h.id for h in cast.passages.search("bear", "episode")] == [lore["fish"].id]
    assert cast.passages.search("bear", "bear") == []  # the owner column only filters


def test_search_with_a_tag(cast: Curator, lore: dict[str, Passage]) -> None:
    assert [h.id for h in cast.passages.search("bear", "river", tag="episode")] == [lore["fish"].id]


@pytest.mark.parametrize("query", ['"', '""', "AND", "AND(", "OR", "NOT", "*", "storm*", "", "   ",
                                   'storm"', "NEAR(storm oak", "text:storm", "{text}: storm", "^storm",
                                   "storm AND", "(storm", "-storm", "+", "owner:bear", "'; drop table x"])
def test_no_query_text_raises(cast: Curator, lore: dict[str, Passage], query: str) -> None:
    hits = cast.passages.search("bear", query)
    if "storm" in query:
        assert lore["storms"].id in [h.id for h in hits]
    if not any(c.isalnum() for c in query):
        assert hits == []
    expression = match_expression(query)
    assert expression is None or expression.startswith("{text tags} : (")


def test_match_expression_quotes_every_word() -> None:
    assert match_expression('Who stole "the" FISH? fish') == (
        '{text tags} : ("who" OR "stole" OR "the" OR "fish")')
    assert match_expression("?!* ") is None


# -- deleting -----------------------------------------------------------------------------


def test_delete_removes_the_passage_and_its_index_entry(cast: Curator, lore: dict[str, Passage]) -> None:
    gone = cast.passages.delete("bear", lore["fish"].id)
    assert gone == lore["fish"]
    assert lore["fish"].id not in [p.id for p in cast.passages.list("bear")]
    assert cast.passages.search("bear", "stole") == []
    assert count(cast, "passage_fts") == count(cast, "passages") == len(LORE)


def test_delete_refuses_another_characters_passage(cast: Curator, lore: dict[str, Passage]) -> None:
    with pytest.raises(UnknownPassage, match=f"bear has no passage {lore['wolf'].id}"):
        cast.passages.delete("bear", lore["wolf"].id)
    assert cast.passages.list("wolf") == [lore["wolf"]]
    with pytest.raises(UnknownPassage):
        cast.passages.delete("bear", 999)
    cast.passages.delete("bear", lore["oak"].id)
    with pytest.raises(UnknownPassage):
        cast.passages.delete("bear", lore["oak"].id)


def test_deleting_the_owner_deletes_its_passages_and_their_index(cast: Curator,
                                                                 lore: dict[str, Passage]) -> None:
    assert cast.delete_character("bear")["passages"] == len(LORE)
    assert count(cast, "passages") == count(cast, "passage_fts") == 1
    assert cast.passages.list("wolf") == [lore["wolf"]]
