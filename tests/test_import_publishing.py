"""An import over many characters the world has writes them after its commit (issue #17,
api/importing.py step 5): a batch a transaction, the same world as writing them in the commit,
a malformed one refused before the commit, and an import whose process died after its commit
finished by the next opening of the world rather than undone."""

from __future__ import annotations

import json
import logging
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from curator import Curator
from curator.api import importing
from curator.domain.errors import MalformedExport
from curator.store import staging

N = 16  # characters in the source world
HELD = 8  # of them, the world that imports holds these before (c00..c07)


def _turn(n: int, actor: str, other: str) -> dict[str, Any]:
    when = f"2025-03-{1 + n // 24:02d}T{n % 24:02d}:00:00Z"
    reality = (f"{actor} shared the fish with {other}, who thanked {actor}." if n % 2
               else f"{actor} stole the fish from {other} and ran off.")
    return {"id": f"s{n:03d}", "world_time": when, "actor": actor,
            "intent": {"action": "Take the fish"}, "reality": reality, "others": [other]}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """An export of a world of N characters, with a group and what it knows."""
    names = [f"c{i:02d}" for i in range(N)]
    with Curator(tmp_path_factory.mktemp("source") / "source.db") as world:
        for n in range(3 * N):
            world.observe(_turn(n, names[n % N], names[(n + 5) % N]))
        world.join_group("valley", "c00", "c01", "c09")
        world.add_group_knowledge("valley", "the great storm flooded the mill")
        world.blocks.create("c02", "personality", "Slow to trust.")
        return world.export_world()


@pytest.fixture
def write_after_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every held character written after the commit, one a transaction."""
    monkeypatch.setattr(importing, "WRITE_AT_COMMIT", 0)
    monkeypatch.setattr(importing, "IMPORT_BUDGET", 0.0)


def _held_world(path: Path, document: dict[str, Any]) -> None:
    """A world holding HELD of the document's characters, one with a turn of its own since."""
    with Curator(path) as world:
        world.import_document({**document, "characters": document["characters"][:HELD]})
        world.observe({**_turn(999, "c03", "xan"), "id": "mine", "world_time": "2025-06-01T00:00:00Z"})


def _rows(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return {table: conn.execute(f"select count(*) from {table}").fetchone()[0]
                for table in ("imports", "import_pending")}
    finally:
        conn.close()


@pytest.fixture
def reference(document: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The world the import makes when it writes the held characters in its commit."""
    path = tmp_path_factory.mktemp("reference") / "world.db"
    _held_world(path, document)
    with Curator(path) as world:
        assert len(world.characters()) <= importing.WRITE_AT_COMMIT + HELD  # stubs and the held
        world.import_document(document, replace=True)
        return world.export_world()


def test_written_after_the_commit_the_world_is_the_same(document: dict[str, Any], reference: dict[str, Any],
                                                        tmp_path: Path, write_after_commit: None) -> None:
    path = tmp_path / "world.db"
    _held_world(path, document)
    with Curator(path) as world:
        new = sorted({f"c{i:02d}" for i in range(N)} - set(world.characters()))
    assert new  # some characters the world has not even as stubs
    seen: list[tuple[bool, bool]] = []

    def between(written: int, total: int) -> None:
        with Curator(path) as reader:  # another reader, between two transactions
            seen.append((new[0] in reader.characters(), _rows(path)["import_pending"] > 0))

    with Curator(path) as world:
        ids = world.import_document(document, replace=True, progress=between)
        assert ids == [f"c{i:02d}" for i in range(N)]
        assert world.export_world() == reference
        assert world.group_members("valley") == ["c00", "c01", "c09"]
    assert _rows(path) == {"imports": 0, "import_pending": 0}
    # The held characters checked and kept before the commit, the new ones unseen; written after
    # it, the new ones seen; one a transaction.
    assert seen.count((False, True)) >= 1 and seen.count((True, True)) >= N - len(new) - 1


def test_a_malformed_held_character_is_refused_before_the_commit(
        document: dict[str, Any], tmp_path: Path, write_after_commit: None) -> None:
    path = tmp_path / "world.db"
    _held_world(path, document)
    broken = json.loads(json.dumps(document))
    broken["characters"][5]["character"]["created_at"] = "the day of the flood"  # one the world holds
    with Curator(path) as world:
        before = world.export_world()
        with pytest.raises(MalformedExport) as caught:
            world.import_document(broken, replace=True)
        assert caught.value.field == "characters.5.character.created_at"
        assert world.export_world() == before
    assert _rows(path) == {"imports": 0, "import_pending": 0}


_KILLED = """
import os, sys, json
from curator import Curator
from curator.api import importing
from curator.store import staging
importing.WRITE_AT_COMMIT, importing.IMPORT_BUDGET = 0, 0.0
written = staging.written_pending
def die_on_third(world, import_id, n, count=[0]):
    written(world, import_id, n)
    count[0] += 1
    if count[0] == 3:
        os._exit(9)  # killed inside the transaction writing the third: it is rolled back
staging.written_pending = die_on_third
with Curator(sys.argv[1]) as world:
    world.import_document(json.load(open(sys.argv[2])), replace=True)
"""


def test_an_import_killed_after_its_commit_is_finished_by_the_next_opening(
        document: dict[str, Any], reference: dict[str, Any], tmp_path: Path) -> None:
    path, doc = tmp_path / "world.db", tmp_path / "export.json"
    _held_world(path, document)
    with Curator(path) as world:  # the held characters and the stubs of those they know
        held = len({f"c{i:02d}" for i in range(N)} & set(world.characters()))
    doc.write_text(json.dumps(document))
    run = subprocess.run([sys.executable, "-c", _KILLED, str(path), str(doc)], capture_output=True)
    assert run.returncode == 9, run.stderr
    assert _rows(path) == {"imports": 1, "import_pending": held - 2 + 1}  # two were written; the groups
    conn = sqlite3.connect(path)
    try:  # committed: the new characters are seen, the held ones not written yet are the old
        seen = "select count(*) from characters where id = 'c15' and import_id is null"
        assert conn.execute(seen).fetchone()[0]
    finally:
        conn.close()
    with Curator(path) as world:  # opening it finishes the import
        assert _rows(path) == {"imports": 0, "import_pending": 0}
        assert world.export_world() == reference


def test_an_error_after_the_commit_leaves_it_to_be_finished(
        document: dict[str, Any], reference: dict[str, Any], tmp_path: Path, write_after_commit: None,
        caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "world.db"
    _held_world(path, document)

    class Interrupted(Exception):
        pass

    after_commit: list[int] = []

    def between(written: int, total: int) -> None:
        conn = sqlite3.connect(path)
        try:
            after_commit.extend(n for (n,) in conn.execute("select publishing from imports") if n)
        finally:
            conn.close()
        if len(after_commit) == 2:  # a character written after the commit, the next not yet
            raise Interrupted

    with Curator(path) as world:
        with caplog.at_level(logging.WARNING, logger="curator.importing"), pytest.raises(Interrupted):
            world.import_document(document, replace=True, progress=between)
        assert "the next import or opening of the world finishes it" in caplog.text
        (import_id,) = world.world.conn.execute("select id from imports").fetchone()
        assert staging.publishing(world.world, import_id)
        assert world.clean_up_imports() == 0  # nothing deleted: finished
        assert _rows(path) == {"imports": 0, "import_pending": 0}
        assert world.export_world() == reference


def test_an_import_under_way_in_a_live_process_is_left_to_it(
        document: dict[str, Any], tmp_path: Path, write_after_commit: None) -> None:
    """Another Curator of the same process opening the world meanwhile takes nothing over."""
    path = tmp_path / "world.db"
    _held_world(path, document)
    opened: list[dict[str, int]] = []

    def between(written: int, total: int) -> None:
        if _rows(path)["import_pending"] and not opened:
            with Curator(path):
                opened.append(_rows(path))

    with Curator(path) as world:
        world.import_document(document, replace=True, progress=between)
    assert opened and opened[0]["imports"] == 1 and opened[0]["import_pending"] > 0
    assert _rows(path) == {"imports": 0, "import_pending": 0}
