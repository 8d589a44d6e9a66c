"""Export and import carry everything a world holds: attributes and their change log,
personality snapshots, the evolution mark, evolution reports, trust and rapport, appraisals,
memory links and lens weights. A version 1 document still imports; a malformed one is
refused whole, naming its field."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from curator import Curator, MalformedExport, WorldFormatError

VALLEY = ROOT / "evals" / "cases" / "transcripts" / "long_valley.jsonl"
WEEK_ENDS = ("d07-8", "d14-8", "d21-8", "d28-8")  # long_valley.yaml evolves after these turns
TABLES = ("characters", "memories", "memory_archive", "relationships", "attributes", "attribute_changes",
          "personality_snapshots", "evolution_marks", "evolution_reports", "appraisals", "memory_links",
          "blocks", "block_links", "passages")


def valley_turns() -> list[dict[str, Any]]:
    return [json.loads(line) for line in VALLEY.read_text(encoding="utf-8").splitlines() if line.strip()]


def play(world: Curator, turns: list[dict[str, Any]]) -> None:
    """Observe `turns` in batches, with a weekly evolution cycle as long_valley.yaml has it."""
    batch: list[dict[str, Any]] = []
    for turn in turns:
        batch.append(turn)
        if turn["id"] in WEEK_ENDS:
            world.observe_many(batch)
            batch = []
            world.evolve()
    world.observe_many(batch)


@pytest.fixture
def valley() -> Iterator[Curator]:
    """The 244-turn valley, five cycles run, Owl minding wrongs, Bear with a block and a passage."""
    with Curator(":memory:") as world:
        world.set_lens_weights("owl", {"moral": 2.0})
        play(world, valley_turns())
        world.evolve()
        world.blocks.create("bear", "personality", "Gruff but fair.")
        world.passages.store("bear", "The valley floods every spring.", ["lore"])
        yield world


def rows(world: Curator) -> dict[str, int]:
    return {t: world.world.conn.execute(f"select count(*) from {t}").fetchone()[0] for t in TABLES}


def _character(document: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in document["characters"] if c["character"]["id"] == name)


# -- round trips -------------------------------------------------------------------------


def test_world_export_import_export_is_identical(valley: Curator) -> None:
    exported = valley.export_world()
    bear = _character(exported, "bear")
    # What the document must hold for the comparison to mean something.
    assert exported["format_version"] == 2
    assert len(exported["evolution_reports"]) == 5
    assert set(bear["attributes"]) >= {"caution", "collaboration"}
    assert bear["attributes"]["caution"]["value"] > 0.6
    assert len(bear["attribute_changes"]) > 50 and len(bear["personality_snapshots"]) >= 2
    assert bear["evolution_mark"] == {"world_time": "2025-03-30T20:00:00Z"}
    assert bear["appraisals"] and bear["memory_links"]
    assert bear["relationships"]["fox"]["trust"] != 0.5
    assert _character(exported, "owl")["lens_weights"] == {"moral": 2.0}
    with Curator(":memory:") as copy_:
        assert copy_.import_document(json.loads(json.dumps(exported))) == valley.characters()
        assert copy_.export_world() == exported
        assert rows(copy_) == rows(valley)
        assert copy_.config.appraisal.character_weights == {"owl": {"moral": 2.0}}
        # Row ids are each world's own (a snapshot's through_change is one).
        ids = {"id", "through_change"}
        mine, theirs = copy_.personality("bear"), valley.personality("bear")
        assert mine is not None and theirs is not None
        assert mine.model_dump(exclude=ids) == theirs.model_dump(exclude=ids)
        assert _network(copy_, "wolf") == _network(valley, "wolf")


def _network(world: Curator, name: str) -> dict[str, Any]:
    """What recall follows, by memory id: an import writes memories tier by tier, so the
    order of `links()` (by seq) is the importing world's own."""
    return {m["memory_id"]: (m["appraisal"], sorted((link["other_id"], link["strength"], link["by"])
                                                    for link in m["links"]))
            for m in world.links(name)}


def test_an_imported_world_goes_on_like_the_original(valley: Curator) -> None:
    """The mark is re-based on the importing world's turn log: a cycle right after the import
    finds nothing new, and the same later turns drift both worlds alike."""
    turns = valley_turns()
    cut = turns.index(next(t for t in turns if t["id"] == "d14-8")) + 1
    with Curator(":memory:") as original, Curator(":memory:") as imported:
        play(original, turns[:cut])
        imported.import_document(original.export_world())
        assert imported.evolve().unchanged
        for world in (original, imported):
            play(world, turns[cut:])
            world.evolve()
        one, two = original.export_world(), imported.export_world()
    assert one["evolution_reports"] == two["evolution_reports"]
    for a, b in zip(one["characters"], two["characters"], strict=True):
        for key in ("attributes", "attribute_changes", "personality_snapshots", "appraisals", "memory_links"):
            assert a[key] == b[key], (a["character"]["id"], key)
        # Feelings and strengths were exported to 4 decimals, so they go on within rounding.
        for other, rel in a["relationships"].items():
            assert rel["current_sentiment"] == pytest.approx(b["relationships"][other]["current_sentiment"],
                                                             abs=1e-3)


def test_replace_into_the_same_world_changes_nothing(valley: Curator) -> None:
    exported, before = valley.export_world(), rows(valley)
    valley.import_document(exported, replace=True)
    assert rows(valley) == before  # no report, change or link written twice
    assert valley.export_world() == exported
    # The mark came back at its world time: the turns the cycles drew on are not drawn on again.
    assert valley.evolve().unchanged
    assert rows(valley) == before


def test_replace_leaves_none_of_the_old_appraisals_and_links(valley: Curator, tmp_path: Path) -> None:
    """A replaced character's network is the document's: the links and appraisals its old
    memories had are gone, those of the others stay."""
    with Curator(tmp_path / "w.db") as world:
        world.import_document(valley.export_world())
        bare = world.export_character("bear")
        bare["memory_links"], bare["appraisals"] = [], {}
        count = ("select count(*) from memory_links where owner = ?", "select count(*) from appraisals "
                 "where memory_id in (select id from memories where owner = ?)")
        before = {who: [world.world.conn.execute(q, (who,)).fetchone()[0] for q in count]
                  for who in ("bear", "wolf")}
        assert all(before["bear"]) and all(before["wolf"])
        world.import_document(bare, replace=True)
        for who, expected in (("bear", [0, 0]), ("wolf", before["wolf"])):
            assert [world.world.conn.execute(q, (who,)).fetchone()[0] for q in count] == expected


def test_characters_one_by_one_keep_their_evolution(valley: Curator) -> None:
    with Curator(":memory:") as copy_:
        for name in ("wolf", "bear"):
            copy_.import_document(valley.export_character(name))
            assert copy_.export_character(name) == valley.export_character(name)
        # A character document holds no world reports.
        assert copy_.world.conn.execute("select count(*) from evolution_reports").fetchone()[0] == 0
        with pytest.raises(WorldFormatError, match="already exists"):
            copy_.import_document(valley.export_character("bear"))


# -- older documents -------------------------------------------------------------------------

V1 = {  # a document as curator wrote it before format_version 2
    "format": "curator.character", "format_version": 1, "as_of": "2025-01-03T08:00:00Z",
    "character": {"id": "bear", "name": "Bear", "persona": "A bear."},
    "self_memories": {"immediate_context": "Fishing.", "recent_events": [], "core_memories": [],
                      "archived": []},
    "relationships": {"wolf": {
        "immediate_context": "Wolf growls.", "long_term_summary": "Wolf is territorial.",
        "current_sentiment": -0.4, "overall_bond": -0.1, "trust": 0.41, "rapport": 0.45,
        "interactions": 2, "traits": {}, "first_met": "2025-01-02T08:00:00Z",
        "last_interaction": "2025-01-03T08:00:00Z", "core_memories": [], "archived_memories": [],
        "recent_memories": [{
            "id": "m_0123456789abcdef", "event": "Wolf blocked my path at the river.",
            "timestamp": "2025-01-02T08:00:00Z", "emotional_impact": "afraid", "importance": 0.6,
            "kind": "conflict", "valence": -0.5, "strength": 0.9, "recall_count": 0,
            "last_recalled": "2025-01-02T08:00:00Z", "source_turns": ["t1"], "traits": []}]}},
    "blocks": {"own": [], "attached": []}, "passages": [],
}


def test_a_version_1_document_imports_as_a_character_not_yet_evolved(curator: Curator) -> None:
    assert curator.import_document(copy.deepcopy(V1)) == ["bear"]
    wolf = curator.character("bear").relationships["wolf"]
    assert (wolf.trust, wolf.rapport) == (0.41, 0.45)
    assert [m.content for m in wolf.recent_memories] == ["Wolf blocked my path at the river."]
    assert curator.personality("bear") is None
    assert set(curator.attributes("bear").values()) == {0.5}
    again = curator.export_character("bear")
    assert again["format_version"] == 2
    assert (again["attributes"], again["attribute_changes"], again["personality_snapshots"],
            again["evolution_mark"], again["appraisals"], again["memory_links"]) == ({}, [], [], None, {}, [])
    assert curator.evolve().characters[0].snapshot.character == "bear"  # its first cycle runs


# -- malformed documents ---------------------------------------------------------------------

Breakage = Callable[[dict[str, Any]], Any]


def _bear(doc: dict[str, Any]) -> dict[str, Any]:
    return _character(doc, "bear")


def _first_appraisal(doc: dict[str, Any]) -> dict[str, Any]:
    appraisals: dict[str, Any] = _bear(doc)["appraisals"]
    return next(iter(appraisals.values()))  # type: ignore[no-any-return]


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda d: _bear(d)["personality_snapshots"][0].update(work_style=3),
     "personality_snapshots.0.work_style"),
    (lambda d: _bear(d)["personality_snapshots"][1].update(through_change=10**6),
     "personality_snapshots.1.through_change"),
    (lambda d: _bear(d)["attribute_changes"][2].pop("memory_id"), "attribute_changes.2.memory_id"),
    (lambda d: _bear(d)["attributes"]["caution"].update(value=1.5), "attributes.caution.value"),
    (lambda d: _bear(d)["memory_links"][0].update(other_id="m_nobody"), "memory_links.0.other_id"),
    (lambda d: _first_appraisal(d)["moral"].update(priority="high"), None),  # id varies: checked below
    (lambda d: _bear(d).update(lens_weights={"courage": 1.0}), "lens_weights.courage"),
    (lambda d: _bear(d)["relationships"]["fox"].update(trust=2), "relationships.fox.trust"),
    (lambda d: _bear(d)["relationships"]["wolf"]["recent_memories"][0].pop("event"),
     "relationships.wolf.recent_memories.0.event"),
    (lambda d: _bear(d)["evolution_mark"].update(world_time="last week"), "evolution_mark.world_time"),
], ids=["snapshot-trait", "snapshot-through", "change-memory", "attribute-value", "link-end",
        "appraisal-priority", "lens-weight", "trust", "memory-event", "mark-time"])
def test_a_malformed_character_part_names_its_field_and_writes_nothing(
        valley: Curator, breakage: Breakage, field: str | None) -> None:
    document = valley.export_world()
    index = [c["character"]["id"] for c in document["characters"]].index("bear")
    broken = copy.deepcopy(document)
    breakage(broken)
    before, weights = rows(valley), dict(valley.config.appraisal.character_weights)
    with pytest.raises(MalformedExport) as raised:
        valley.import_document(broken, replace=True)  # over the world it came from
    error = raised.value
    assert error.character == "bear" and "'bear'" in str(error)
    assert error.field is not None and error.field.startswith(f"characters.{index}.")
    if field is not None:
        assert error.field == f"characters.{index}.{field}", str(error)
    else:
        assert error.field.endswith(".moral.priority"), str(error)
    assert isinstance(error, WorldFormatError)  # what callers of earlier versions catch
    # One transaction: the replaced characters, reports and weights are as they were.
    assert rows(valley) == before
    assert valley.export_world() == document
    assert valley.config.appraisal.character_weights == weights


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda d: d.update(format_version=3), "format_version"),
    (lambda d: d.update(clock="soon"), "clock"),
    (lambda d: d.update(characters={"bear": {}}), "characters"),
    (lambda d: d["evolution_reports"][0].update(created_at=None), "evolution_reports.0.created_at"),
], ids=["future-version", "clock", "characters-not-a-list", "report"])
def test_a_malformed_world_part_names_its_field(valley: Curator, breakage: Breakage, field: str) -> None:
    document = valley.export_world()
    breakage(document)
    with Curator(":memory:") as fresh:
        with pytest.raises(MalformedExport) as raised:
            fresh.import_document(document)
        assert raised.value.field == field
        assert set(rows(fresh).values()) == {0}


@pytest.mark.parametrize(("breakage", "field"), [
    (lambda d: d.pop("self_memories"), "self_memories"),
    (lambda d: d["character"].pop("id"), "character.id"),
    (lambda d: d.update(character=[]), "character"),
    (lambda d: d["self_memories"].update(recent_events="many"), "self_memories.recent_events"),
    (lambda d: d.update(personality_snapshots={}), "personality_snapshots"),
], ids=["no-self", "no-id", "character-not-an-object", "memories-not-a-list", "snapshots-not-a-list"])
def test_a_malformed_character_document_names_its_field(curator: Curator, breakage: Breakage,
                                                         field: str) -> None:
    document = copy.deepcopy(V1) | {"format_version": 2}
    breakage(document)
    with pytest.raises(MalformedExport) as raised:
        curator.import_document(document)
    assert raised.value.field == field
    assert curator.characters() == []


def test_export_import_through_files_keeps_the_document(valley: Curator, tmp_path: Path) -> None:
    """The world file path: a document written to disk, imported into a new world file."""
    path = tmp_path / "valley.json"
    path.write_text(json.dumps(valley.export_world()), encoding="utf-8")
    with Curator(tmp_path / "copy.db") as copy_:
        copy_.import_document(json.loads(path.read_text(encoding="utf-8")))
    with Curator(tmp_path / "copy.db") as reopened:
        reopened.set_lens_weights("owl", {"moral": 2.0})  # weights are the game's, per session
        assert reopened.export_world() == valley.export_world()
