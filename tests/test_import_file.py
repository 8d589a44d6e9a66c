"""Importing a file a character at a time (issue #17, export/lazy.py): a world's export is
read as text, its characters parsed one by one, and what it imports is what importing the
parsed document imports; a file that is not JSON is refused as the whole reader refuses it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from curator import Curator
from curator.api import importing
from curator.cli import cli
from curator.domain.decoding import load_json
from curator.domain.errors import InvalidInput, MalformedExport
from curator.export.lazy import read_world, read_world_text
from curator.store import staging
from curator.store.oplog import history

NAMES = ["ash", "birch", "cedar", "dogwood", "elm"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A world of five characters who saw each other's turns, exported by the CLI."""
    folder = tmp_path_factory.mktemp("source")
    with Curator(folder / "source.db") as world:
        for n in range(15):
            actor, other = NAMES[n % 5], NAMES[(n + 1) % 5]
            world.observe({"id": f"t{n}", "world_time": f"2025-03-01T{n:02d}:00:00Z", "actor": actor,
                           "intent": {"thought": "I want the fish", "action": "Share my fish"},
                           "reality": f'{actor} shared the fish with {other}, who said "thanks".',
                           "others": [other], "observers": [NAMES[(n + 2) % 5]]})
    out = folder / "world.json"
    result = CliRunner().invoke(cli, ["export", "--db", str(folder / "source.db"), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    return out


def test_a_world_file_imports_what_its_parsed_document_imports(exported: Path, tmp_path: Path) -> None:
    with Curator(tmp_path / "from_file.db") as by_file, Curator(tmp_path / "from_values.db") as by_values:
        assert by_file.import_file(exported) == by_values.import_document(json.loads(exported.read_text()))
        assert by_file.export_world() == by_values.export_world()
        assert sorted(by_file.characters()) == NAMES


def test_the_cli_imports_a_world_file_larger_than_a_document_read_whole(
        exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importing, "MAX_DOCUMENT_BYTES", 100)
    db = str(tmp_path / "w.db")
    result = CliRunner().invoke(cli, ["import", str(exported), "--db", db])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("Imported 5 characters")
    one = tmp_path / "one.json"  # a character's export is read whole: its cap still holds
    with Curator(db) as world:
        one.write_text(json.dumps(world.export_character("ash")))
    result = CliRunner().invoke(cli, ["import", str(one), "--db", str(tmp_path / "other.db")])
    assert result.exit_code != 0 and "any other import file is at most 100" in result.stderr


@pytest.mark.parametrize("text", [
    '{"characters": [{"a": [1, "]"]}, {"b": "},{"}], "format": "x", "n": [1.5, null]}',
    ' \n{ "format" : "x" , "characters" : [ ] , "z" : { "characters": [1] } }\n ',
    '{"format": "x", "characters": [{"a": 1}], "characters": [{"b": "\\u00e9\\"q"}]}',
])
def test_the_top_level_walk_reads_what_json_reads(text: str) -> None:
    whole = json.loads(text)
    seen: list[tuple[int, Any]] = []
    document = read_world_text(text, each=lambda n, doc: seen.append((n, doc)))
    assert document is not None
    assert document.fields == {k: v for k, v in whole.items() if k != "characters"}
    assert list(document.characters) == whole["characters"] == document.characters[:]
    # each character handed over as it was read; of two arrays, the last one's are kept
    assert [doc for _, doc in seen][len(seen) - len(whole["characters"]):] == whole["characters"]


@pytest.mark.parametrize("text", ['{"format": "x"}', "[1, 2]", '{"characters": 5}', "{}", '"text"'])
def test_a_text_without_a_characters_array_is_left_to_the_whole_reader(text: str) -> None:
    assert read_world_text(text) is None


@pytest.mark.parametrize("text", [
    '{"format": "curator.world", "characters": [{"a": 1}, ',
    '{"format": "curator.world", "characters": [{"a": 1} {"b": 2}]}',
    '{"format": "curator.world", "characters": [{"a": 1}]} trailing',
    '{"format": "curator.world" "characters": []}',
    '{"format": "curator.world", "characters": [{"a": NaN}]}',
    '{"format": "curator.world", 5: []}',
    '{"format": "curator.world", "characters": [' + "[" * 50_000 + "]" * 50_000 + "]}",
])
def test_a_file_that_is_not_json_is_refused_as_the_whole_reader_refuses_it(text: str) -> None:
    with pytest.raises(InvalidInput) as whole:
        load_json(text, what="world.json")
    with pytest.raises(InvalidInput) as walked:
        read_world(text, what="world.json")
    assert str(walked.value) == str(whole.value)


def test_a_character_over_a_cap_is_refused_by_its_path_and_nothing_is_written(
        exported: Path, tmp_path: Path) -> None:
    document = json.loads(exported.read_text())
    document["characters"][3]["character"]["persona"] = "p" * 100_000
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(document))
    with Curator(tmp_path / "w.db") as world:
        with pytest.raises(MalformedExport) as caught:
            world.import_file(bad)
        assert caught.value.field == "characters.3.character.persona"
        assert world.characters() == []


def test_a_world_file_logged_in_parts_replays_as_its_document(
        exported: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The operations log keeps the file's own text, cut into parts, and gives back its values."""
    monkeypatch.setattr(staging, "PART", 1_000)
    with Curator(tmp_path / "w.db") as world:
        world.import_file(exported, clock="latest")
        assert world.world.conn.execute("select count(*) from import_parts").fetchone()[0] > 3
        (logged,) = [e for e in history(world.world) if e.ref == "import"]
        assert logged.args() == {"document": json.loads(exported.read_text()), "replace": False,
                                 "clock": "latest"}


def test_a_small_world_file_is_logged_whole(exported: Path, tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        world.import_file(exported)
        (logged,) = [e for e in history(world.world) if e.ref == "import"]
        assert logged.args()["document"] == json.loads(exported.read_text())


def test_a_world_file_with_no_characters_says_so(tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('\ufeff{"format": "curator.world", "format_version": 2, "characters": []}',
                     encoding="utf-8")
    result = CliRunner().invoke(cli, ["import", str(empty), "--db", str(tmp_path / "w.db")])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.strip() == "Imported 0 characters (the document holds none)."
