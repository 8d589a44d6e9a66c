"""Hostile import documents (issue #16): the text caps of a turn, bounded nesting and numbers,
and a clock far in the future refused (with `clock=` / `--clock` to accept the document and
`set_clock` / `curator clock --set` as the way back for a world an older import locked)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidInput, MalformedExport, TimeWentBackwards
from curator.domain.models import MAX_PERSONA
from curator.export import limits

TURNS = [{"id": f"t{n}", "world_time": f"2025-03-0{n + 1}T08:00:00Z", "actor": "wolf",
          "intent": {"action": "Steal the fish"}, "reality": "You snatch Bear's fish and run; Bear roars.",
          "others": ["bear"], "observers": ["bear"]} for n in range(3)]
LATER = {**TURNS[0], "id": "later", "world_time": "2025-06-01T08:00:00Z"}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """A world export with memories, a summary, traits, a block, a passage and a snapshot."""
    with Curator(":memory:") as world:
        world.set_persona("wolf", "A grey wolf of the northern woods.")
        for turn in TURNS:
            world.observe(turn)
        world.blocks.create("wolf", "personality", "Hungry.", char_limit=200)
        world.passages.store("wolf", "The river freezes in winter.")
        world.evolve()
        return world.export_world()


def wolf(doc: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in doc["characters"] if c["character"]["id"] == "wolf")


def refused(doc: dict[str, Any], *needles: str, **options: Any) -> MalformedExport:
    with Curator(":memory:") as world:
        with pytest.raises(MalformedExport) as caught:
            world.import_document(doc, **options)
        assert world.characters() == [] and world.world.clock() is None  # nothing written
    for needle in needles:
        assert needle in str(caught.value), (needle, str(caught.value))
    return caught.value


# Each free-text place of a character document, and how to put a text there.
def _memory(doc: dict[str, Any]) -> dict[str, Any]:
    return wolf(doc)["relationships"]["bear"]["recent_memories"][0]  # type: ignore[no-any-return]


PLACES: dict[str, tuple[Callable[[dict[str, Any], str], None], str]] = {
    "persona": (lambda d, t: wolf(d)["character"].__setitem__("persona", t), "character.persona"),
    "name": (lambda d, t: wolf(d)["character"].__setitem__("name", t), "character.name"),
    "immediate_context": (lambda d, t: wolf(d)["self_memories"].__setitem__("immediate_context", t),
                          "self_memories.immediate_context"),
    "summary": (lambda d, t: wolf(d)["relationships"]["bear"].__setitem__("long_term_summary", t),
                "relationships.bear.long_term_summary"),
    "memory": (lambda d, t: _memory(d).__setitem__("event", t), "recent_memories.0.event"),
    "memory trait": (lambda d, t: _memory(d).__setitem__("traits", [t]), "recent_memories.0.traits.0"),
    "relationship trait": (lambda d, t: wolf(d)["relationships"]["bear"].__setitem__("traits", {t: 1}),
                           "relationships.bear.traits"),
    "place": (lambda d, t: _memory(d).__setitem__("place", t), "recent_memories.0.place"),
    "passage": (lambda d, t: wolf(d)["passages"][0].__setitem__("content", t), "passages.0.content"),
    "block description": (lambda d, t: wolf(d)["blocks"]["own"][0].__setitem__("description", t),
                          "blocks.own.0.description"),
    "snapshot": (lambda d, t: wolf(d)["personality_snapshots"][0].__setitem__("work_style", t),
                 "personality_snapshots.0.work_style"),
    "world clock": (lambda d, t: d.__setitem__("clock", t), "clock"),
}


@pytest.mark.parametrize("place", list(PLACES))
def test_every_text_of_an_import_is_capped(document: dict[str, Any], place: str) -> None:
    put, path = PLACES[place]
    doc = copy.deepcopy(document)
    put(doc, "x" * 100_001)
    error = refused(doc, "100,001")
    assert error.field is not None and error.field.endswith(path), error.field


def test_a_50_mb_persona_is_refused_and_set_persona_has_the_same_cap(document: dict[str, Any]) -> None:
    doc = copy.deepcopy(document)
    wolf(doc)["character"]["persona"] = "x" * 50_000_000
    refused(doc, f"at most {MAX_PERSONA:,} characters")
    with Curator(":memory:") as world:
        with pytest.raises(InvalidInput, match="at most") as caught:
            world.set_persona("wolf", "x" * (MAX_PERSONA + 1))
        assert caught.value.field == "persona" and world.characters() == []
        world.set_persona("wolf", "x" * MAX_PERSONA)  # the cap itself is fine


def test_a_world_takes_back_the_report_of_a_wide_cycle(document: dict[str, Any]) -> None:
    """A stored evolution report is as long as its cycle was wide: one over 4,420 characters of
    the scale benchmark's world wrote 2.5 MB, and its export was refused on import ("at most
    2,000,000 characters"). What a world exports, it takes back."""
    doc = copy.deepcopy(document)
    wide = "\n".join(f"- character-{n}: drifted toward caution" for n in range(70_000))
    assert len(wide) > 2_500_000
    doc["evolution_reports"][0]["report"] = wide
    with Curator(":memory:") as world:
        world.import_document(doc)
        (stored,) = [r[0] for r in world.world.conn.execute("select report from evolution_reports")]
    assert stored == wide


def test_deep_nesting_and_numbers_sqlite_cannot_hold_name_the_field(document: dict[str, Any]) -> None:
    doc = copy.deepcopy(document)
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(100_000):  # deeper than Python's recursion limit
        node["a"] = node = {}
    wolf(doc)["passages"][0]["extra"] = deep
    refused(doc, f"nested more than {limits.MAX_DEPTH} deep")
    doc = copy.deepcopy(document)
    _memory(doc)["recall_count"] = 10**30
    refused(doc, "too large")
    doc = copy.deepcopy(document)
    wolf(doc)["relationships"]["bear"]["trust"] = float("nan")
    assert refused(doc).field == "characters.1.relationships.bear.trust"


@pytest.mark.parametrize("when", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00"])
def test_a_time_past_the_calendar_in_an_import_names_its_field(document: dict[str, Any], when: str) -> None:
    doc = copy.deepcopy(document)
    _memory(doc)["timestamp"] = when
    assert refused(doc, "outside years 1-9999").field.endswith("recent_memories.0.timestamp")  # type: ignore[union-attr]


FUTURE = "2400-01-01T00:00:00Z"


@pytest.mark.parametrize("where", ["clock", "as_of"])
def test_a_clock_far_past_what_the_document_holds_is_refused(document: dict[str, Any], where: str) -> None:
    doc = copy.deepcopy(document)
    if where == "clock":
        doc["clock"] = FUTURE
    else:
        wolf(doc)["as_of"] = FUTURE
    error = refused(doc, "days past the latest time the document holds", "clock='latest'", "--clock latest")
    assert error.field is not None and error.field.endswith(where)


def test_clock_latest_or_a_time_accepts_the_document_and_turns_go_on(document: dict[str, Any]) -> None:
    doc = copy.deepcopy(document)
    doc["clock"] = FUTURE
    with Curator(":memory:") as world:
        world.import_document(doc, clock="latest")
        latest = world.world.clock()
        assert latest is not None and latest < datetime(2025, 3, 10, tzinfo=UTC)
        assert world.observe(LATER).turn_id == "later"
    with Curator(":memory:") as world:
        world.import_document(doc, clock="2025-05-01T00:00:00Z")
        assert world.world.clock() == datetime(2025, 5, 1, tzinfo=UTC)
        with pytest.raises(MalformedExport, match="clock option"):
            world.import_document(doc, clock="soon", replace=True)


def test_a_clock_within_a_year_of_what_it_holds_is_kept(document: dict[str, Any]) -> None:
    doc = copy.deepcopy(document)
    doc["clock"] = wolf(doc)["as_of"] = "2025-12-01T00:00:00Z"
    with Curator(":memory:") as world:
        world.import_document(doc)
        assert world.world.clock() == datetime(2025, 12, 1, tzinfo=UTC)


def test_a_world_with_a_character_dormant_for_over_a_year_takes_its_export_back() -> None:
    """Each character's `as_of` is the world's clock; a character that lived nothing for more
    than a year of the world's time holds no time that recent, and the scale benchmark's own
    export was refused ("381 days past the latest time the document holds"). In a world
    document the document's clock, checked against the whole document, dates it too."""
    with Curator(":memory:") as world:
        world.observe(TURNS[0])  # wolf and bear, March 2025
        world.observe({**TURNS[0], "id": "later", "actor": "owl", "others": [], "observers": [],
                       "reality": "Owl hoots at the moon.", "world_time": "2026-06-01T08:00:00Z"})
        exported = world.export_world()
    assert wolf(exported)["as_of"] == exported["clock"] == "2026-06-01T08:00:00Z"
    with Curator(":memory:") as copy_:
        copy_.import_document(exported)
        assert copy_.export_world()["characters"] == exported["characters"]
    # A character document alone is still held to the times it holds.
    refused(wolf(exported), "past the latest time the document holds")


def test_set_clock_is_the_way_back_for_a_locked_world(tmp_path: Path, document: dict[str, Any]) -> None:
    db = tmp_path / "w.db"
    with Curator(db) as world:
        world.import_document(document)
        world.observe(LATER)
        # What an older curator's import of a far-future document left behind (m010 then
        # started every character's clock at the world clock):
        with world.world.transaction() as w:
            w.set_meta("clock", FUTURE)
            w.conn.execute("update characters set clock = ?", (FUTURE,))
            w.conn.execute("update memories set strength_at = ?", (FUTURE,))
        with pytest.raises(TimeWentBackwards):
            world.observe({**LATER, "id": "next", "world_time": "2025-06-02T08:00:00Z"})
        with pytest.raises(InvalidInput, match="before the latest observed turn"):
            world.set_clock("2025-05-01T00:00:00Z")
    result = CliRunner().invoke(cli, ["clock", "--set", "2025-06-01T08:00:00Z", "--db", str(db), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == {"clock": "2025-06-01T08:00:00Z",
                                         "latest_turn": "2025-06-01T08:00:00Z", "was": FUTURE}
    with Curator(db) as world:
        assert world.observe({**LATER, "id": "next", "world_time": "2025-06-02T08:00:00Z"}).turn_id == "next"
        dated = {row[0] for row in world.world.conn.execute("select strength_at from memories")}
        assert FUTURE not in dated  # strengths re-dated: fading counts from the clock again


def test_cli_import_refuses_undecodable_deep_and_oversized_files(tmp_path: Path, document: dict[str, Any],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    db, path = str(tmp_path / "w.db"), tmp_path / "doc.json"

    def run(*extra: str) -> str:
        result = CliRunner().invoke(cli, ["import", str(path), "--db", db, *extra])
        assert result.exit_code != 0, result.stdout
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error:"), result.stderr
        return lines[0]

    path.write_bytes(b'{"format": "curator.world",\n "clock": "\xff"}')
    assert "not valid UTF-8 (byte 0xff at line 2 column 12)" in run()
    path.write_text("[" * 100_000 + "]" * 100_000)
    assert "nested too deeply" in run()
    path.write_text('{"format": "curator.world", "format_version": ' + "9" * 5000 + "}")
    assert "5000 digits" in run()
    doc = copy.deepcopy(document)
    doc["clock"] = FUTURE
    path.write_text(json.dumps(doc))
    assert "--clock latest" in run()
    result = CliRunner().invoke(cli, ["import", str(path), "--db", db, "--clock", "latest"])
    assert result.exit_code == 0, result.stderr
    monkeypatch.setattr("curator.api.importing.MAX_IMPORT_FILE_BYTES", 100)
    assert "an import file is at most 100" in run("--replace")
    with Curator(db) as world:  # the import read as of its latest time: later turns go on
        assert world.observe(LATER).turn_id == "later"
