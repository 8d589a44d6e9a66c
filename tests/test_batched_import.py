"""Imports in short batches (issue #17, api/importing.py): turns go in between, nothing of an
import is seen before its last transaction, all of it is seen after, and an import cut short
(an error, an exception between batches, a killed process) leaves nothing seen and nothing
behind once the next import or opening of the world has cleaned up."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from curator import Curator
from curator.api import importing
from curator.domain.errors import (
    CharacterImporting,
    ImportCancelled,
    MalformedExport,
    UnknownCharacter,
    WorldLocked,
)
from curator.store import staging
from curator.store.oplog import history

N = 30  # characters in the source world
EARLY = "2025-02-01T00:00:00Z"  # before the source world's turns: the import's clock is the later


def _turn(n: int, actor: str, observers: list[str]) -> dict[str, Any]:
    """A turn that leaves memories: the actor shares fish with the first observer (or steals)."""
    when = f"2025-03-{1 + (n // 96) % 28:02d}T{(n // 4) % 24:02d}:{n % 4 * 15:02d}:00Z"
    other = observers[0] if observers else "the heron"
    if n % 2:
        action = f"Share my fish with {other}"
        reality = f"{actor} shared the fish with {other}, who thanked {actor} warmly."
    else:
        action, reality = "Take the fish", f"{actor} stole the fish from {other} and ran off."
    return {"id": f"s{n:04d}", "world_time": when, "actor": actor,
            "intent": {"thought": "I want the fish", "action": action}, "reality": reality,
            "others": observers[:1], "observers": observers}


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An export of a world of N characters who saw each other's turns (with a block and a
    passage), and its character ids."""
    path = tmp_path_factory.mktemp("source") / "source.db"
    names = [f"c{i:02d}" for i in range(N)]
    with Curator(path) as world:
        for n in range(3 * N):
            world.observe(_turn(n, names[n % N], [names[(n + 1) % N], names[(n + 7) % N]]))
        world.blocks.create("c00", "personality", "Slow to trust.")
        world.passages.store("c01", "The ford freezes in winter.", ["lore"])
        return {"document": world.export_world(), "names": names}


@pytest.fixture
def one_per_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each batch ends after one character: many batches from a small document (and its
    characters reserved a few at a time)."""
    monkeypatch.setattr(importing, "IMPORT_BUDGET", 0.0)
    monkeypatch.setattr(importing, "RESERVE", 7)


def _staged_rows(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {"characters": conn.execute("select count(*) from characters where import_id is not null")
                .fetchone()[0],
                "memories": conn.execute("select count(*) from memories").fetchone()[0],
                "imports": conn.execute("select count(*) from imports").fetchone()[0],
                "parts": conn.execute("select count(*) from import_parts").fetchone()[0]}
    finally:
        conn.close()


def test_turns_go_in_between_and_the_import_is_seen_all_at_once(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None) -> None:
    path = tmp_path / "world.db"
    names = set(source["names"])
    with Curator(path) as game:
        game.observe({**_turn(0, "xan", ["yul"]), "id": "g0000", "world_time": EARLY})
    batches: list[int] = []
    seen_during: list[set[str]] = []
    observed_during = threading.Event()
    done = threading.Event()
    errors: list[BaseException] = []
    sightings: list[int] = []

    def player() -> None:
        # A game server's thread with its own connection: turns of characters the import does not
        # write, and reads, all through the import. Every reading sees none or all of it.
        try:
            with Curator(path) as game:
                n = 1
                while not done.is_set():
                    game.observe({**_turn(n, "xan", ["yul"]), "id": f"g{n:04d}", "world_time": EARLY})
                    sightings.append(len(set(game.characters()) & names))
                    if batches:
                        observed_during.set()
                    n += 1
                    if n > 2000:
                        break
        except BaseException as error:  # reported by the test below
            errors.append(error)

    def between(written: int, total: int) -> None:
        batches.append(written)
        assert total == N
        if len(batches) == 3:
            # The game went on between batches, and saw none of the import.
            assert observed_during.wait(10)
            with Curator(path) as reader:
                seen_during.append(set(reader.characters()))
                with pytest.raises(UnknownCharacter):
                    reader.context("c00", "the ford")
                with pytest.raises(UnknownCharacter):
                    reader.search("c00", "ford")
                assert {d["character"]["id"] for d in reader.export_world()["characters"]} == {"xan", "yul"}

    thread = threading.Thread(target=player)
    with Curator(path) as importer:
        thread.start()
        try:
            imported = importer.import_document(source["document"], progress=between)
        finally:
            done.set()
            thread.join(30)
        assert not errors, errors
        assert set(imported) == names
        assert batches == list(range(1, N + 1))  # one character a batch
        assert seen_during == [{"xan", "yul"}]
        assert set(sightings) <= {0, N} and 0 in sightings  # none, or all of it: never a part
        # What went in is what came out.
        again = importer.export_world()
        assert [d for d in again["characters"] if d["character"]["id"] in names] == \
            [d for d in source["document"]["characters"]]
        with Curator(path) as game:
            assert game.context("c00", "the ford").text
            game.observe({**_turn(5000, "c00", ["xan"]), "id": "after-import",
                          "world_time": "2025-04-01T00:00:00Z"})
    assert _staged_rows(path) == {"characters": 0, "memories": _staged_rows(path)["memories"], "imports": 0,
                                  "parts": 0}


def test_a_turn_naming_a_character_being_imported_waits_for_the_import(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None) -> None:
    path = tmp_path / "world.db"
    refused: list[CuratorErrorLike] = []

    def between(written: int, total: int) -> None:
        if written == 2:
            with Curator(path) as game:
                with pytest.raises(CharacterImporting) as caught:
                    game.observe({**_turn(9000, "c20", []), "id": "too-soon"})
                refused.append(caught.value)
                with pytest.raises(CharacterImporting):
                    game.set_persona("c05", "A ferryman.")
                # Fading and the clock leave the import's memories alone.
                game.observe({**_turn(9001, "xan", ["yul"]), "id": "elsewhere",
                              "world_time": "2025-09-01T00:00:00Z"})
                game.fade()
                assert game.characters() == ["xan", "yul"]

    with Curator(path) as importer:
        importer.import_document(source["document"], progress=between)
        assert isinstance(refused[0], WorldLocked) and refused[0].exit_code == 3
        assert "c20" in str(refused[0])
        importer.observe({**_turn(9002, "c20", []), "id": "after", "world_time": "2025-09-02T00:00:00Z"})
    # Fading to the later clock during the import faded the game's memories, not the import's.
    conn = sqlite3.connect(path)
    faded = dict(conn.execute("select owner, max(strength_at) from memories where owner in ('xan', 'c07') "
                              "group by owner"))
    conn.close()
    assert faded["xan"].startswith("2025-09-01") and faded["c07"] < "2025-09"


CuratorErrorLike = Any


def test_an_exception_between_batches_leaves_nothing(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None) -> None:
    path = tmp_path / "world.db"

    class Interrupted(Exception):
        pass

    def between(written: int, total: int) -> None:
        if written == 5:
            assert _staged_rows(path)["characters"] > 0  # written, unseen
            raise Interrupted

    with Curator(path) as world:
        with pytest.raises(Interrupted):
            world.import_document(source["document"], progress=between)
        assert world.characters() == [] and world.clock() is None
    assert _staged_rows(path) == {"characters": 0, "memories": 0, "imports": 0, "parts": 0}


def test_a_malformed_character_late_in_the_document_leaves_nothing(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None) -> None:
    document = json.loads(json.dumps(source["document"]))
    document["characters"][N - 2]["character"]["created_at"] = "the day of the flood"
    path = tmp_path / "world.db"
    with Curator(path) as world:
        with pytest.raises(MalformedExport) as caught:
            world.import_document(document)
        assert caught.value.field == f"characters.{N - 2}.character.created_at"
        assert world.characters() == [] and world.clock() is None
    assert _staged_rows(path) == {"characters": 0, "memories": 0, "imports": 0, "parts": 0}


_KILLED = """
import os, sys
from curator import Curator
from curator.api import importing
import json
importing.IMPORT_BUDGET = 0.0
def die(written, total):
    if written == 4:
        os._exit(9)  # the process killed between batches: nothing cleans up
with Curator(sys.argv[1]) as world:
    world.import_document(json.load(open(sys.argv[2])), progress=die)
"""


def test_a_killed_import_leaves_nothing_seen_and_the_next_import_or_opening_cleans_up(
        source: dict[str, Any], tmp_path: Path) -> None:
    path, doc = tmp_path / "world.db", tmp_path / "export.json"
    doc.write_text(json.dumps(source["document"]))
    with Curator(path) as world:
        world.observe({**_turn(0, "xan", []), "id": "g0"})
        run = subprocess.run([sys.executable, "-c", _KILLED, str(path), str(doc)], capture_output=True)
        assert run.returncode == 9, run.stderr
        left = _staged_rows(path)
        assert left["characters"] >= 4 and left["memories"] > 0 and left["imports"] == 1
        # Nothing of it is seen meanwhile, by this world or a reader of the file.
        assert world.characters() == ["xan"]
        # The next import cleans up first (its process is gone), then imports.
        world.import_document(source["document"]["characters"][0])
        present = world.characters()
        assert "c00" in present and "c05" not in present  # c05: one the killed import had written
        assert _staged_rows(path)["imports"] == 0 and _staged_rows(path)["characters"] == 0
        # Killed again (importing the others): the next opening of the world cleans up.
        doc.write_text(json.dumps({**source["document"], "characters": source["document"]["characters"][5:]}))
        run = subprocess.run([sys.executable, "-c", _KILLED, str(path), str(doc)], capture_output=True)
        assert run.returncode == 9, run.stderr
    assert _staged_rows(path)["characters"] >= 4
    with Curator(path) as world:
        assert _staged_rows(path)["characters"] == 0 and _staged_rows(path)["imports"] == 0
        assert world.characters() == present


def test_replace_swaps_old_for_new_in_the_last_transaction(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None) -> None:
    path = tmp_path / "world.db"
    document = json.loads(json.dumps(source["document"]))
    with Curator(path) as world:
        world.import_document(document["characters"][3])  # c03 is in the world before
        world.observe({**_turn(9000, "c03", [], ), "id": "mine", "world_time": "2025-06-01T00:00:00Z"})
        before = world.export_character("c03")
        present = world.characters()  # c03 and the stubs of those it knows
    assert before != document["characters"][3]
    during: list[dict[str, Any]] = []

    def between(written: int, total: int) -> None:
        if written == 6:
            with Curator(path) as reader:
                during.append(reader.export_character("c03"))
                assert reader.characters() == present

    with Curator(path) as world:
        with pytest.raises(Exception, match="already exists"):
            world.import_document(document)
        assert _staged_rows(path)["characters"] == 0  # refused before anything was written
        world.import_document(document, replace=True, progress=between)
        after = world.export_character("c03")
        assert set(world.characters()) == set(source["names"])
    assert during == [before]  # the old one, whole, until the end
    assert _memory_ids(after) == _memory_ids(document["characters"][3]) != _memory_ids(before)


def _memory_ids(doc: dict[str, Any]) -> list[str]:
    own = doc["self_memories"]
    lists = [own["recent_events"], own["core_memories"], own["archived"]]
    for rel in doc["relationships"].values():
        lists += [rel["recent_memories"], rel["core_memories"], rel["archived_memories"]]
    return sorted(m["id"] for memories in lists for m in memories)


def test_a_large_document_is_logged_in_parts_and_a_rewind_replays_it(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(staging, "PART", 5_000)
    path = tmp_path / "world.db"
    with Curator(path) as world:
        world.observe({**_turn(0, "xan", []), "id": "first", "world_time": "2025-01-01T00:00:00Z"})
        world.import_document(source["document"])
        raw = world.world.conn.execute("select args from operations where kind = 'import'").fetchone()[0]
        assert len(raw) < 200 and "document_parts" in raw
        assert world.world.conn.execute("select count(*) from import_parts").fetchone()[0] > 2
        logged = [e for e in history(world.world) if e.ref == "import"]
        assert logged[0].args()["document"] == json.loads(json.dumps(source["document"]))
        world.observe({**_turn(1, "xan", []), "id": "second", "world_time": "2025-02-01T00:00:00Z"})
        exported = world.export_world()
        world.observe({**_turn(2, "xan", []), "id": "third", "world_time": "2025-09-01T00:00:00Z"})
        world.rewind("second")
        assert world.export_world() == exported


def test_an_import_whose_record_went_away_midway_keeps_nothing(
        source: dict[str, Any], tmp_path: Path, one_per_batch: None) -> None:
    """What a rewind swapping the world in meanwhile does to an import: its record is gone."""
    path = tmp_path / "world.db"

    def between(written: int, total: int) -> None:
        if written == 3:
            conn = sqlite3.connect(path)
            with conn:
                conn.execute("delete from imports")
            conn.close()

    with Curator(path) as world:
        with pytest.raises(ImportCancelled):
            world.import_document(source["document"], progress=between)
        assert world.characters() == []
    assert _staged_rows(path) == {"characters": 0, "memories": 0, "imports": 0, "parts": 0}
