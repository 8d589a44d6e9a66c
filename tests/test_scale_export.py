"""The streamed world export (issue #17): the same bytes as the whole document dumped at once,
from the API and the CLI, written a character at a time in bounded memory."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_export_evolution import play, valley_turns

from curator import Curator
from curator.cli import cli
from curator.export.streaming import Streamed, object_chunks


@pytest.fixture(scope="module")
def valley_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The valley played into a file, with evolution reports, a block, a passage and a persona
    that is not ASCII (ensure_ascii matters)."""
    path = tmp_path_factory.mktemp("valley") / "world.db"
    with Curator(path) as world:
        play(world, valley_turns())
        world.evolve()
        world.blocks.create("bear", "personality", "Gruff but fair, «old» and slow.")
        world.passages.store("bear", "The valley floods every spring.", ["lore"])
        world.set_persona("heron", "Zoë, a heron who fishes at dawn.")
    return path


@pytest.mark.parametrize(("indent", "ensure_ascii"), [(None, True), (2, False), (2, True), (None, False)])
def test_the_streamed_export_is_the_whole_document_byte_for_byte(valley_file: Path, indent: int | None,
                                                                 ensure_ascii: bool) -> None:
    with Curator(valley_file) as world:
        whole = json.dumps(world.export_world(), indent=indent, ensure_ascii=ensure_ascii)
        assert json.loads(whole)["evolution_reports"]
        assert "Zoë" in world.export_character("heron")["character"]["persona"]
        streamed = "".join(world.export_world_chunks(indent=indent, ensure_ascii=ensure_ascii))
        out = io.StringIO()
        written = world.export_world_to(out, indent=indent, ensure_ascii=ensure_ascii)
    assert streamed == whole
    assert out.getvalue() == whole and written == len(whole)


def test_only_keeps_the_named_characters_and_an_empty_world_streams_too(valley_file: Path,
                                                                       tmp_path: Path) -> None:
    with Curator(valley_file) as world:
        document = world.export_world()
        document["characters"] = [d for d in document["characters"]
                                  if d["character"]["id"] in ("owl", "bear")]
        assert len(document["characters"]) == 2
        assert "".join(world.export_world_chunks(only={"owl", "bear", "nobody"})) == json.dumps(document)
    with Curator(tmp_path / "empty.db") as empty:
        for indent in (None, 2):
            assert "".join(empty.export_world_chunks(indent=indent)) == json.dumps(empty.export_world(),
                                                                                   indent=indent)


def test_cli_export_writes_what_it_wrote_before(valley_file: Path, tmp_path: Path) -> None:
    """`curator export` wrote json.dumps(export_world(), indent=2, ensure_ascii=False) and a
    newline, to stdout or --out; it still does, now a character at a time."""
    with Curator(valley_file) as world:
        whole = json.dumps(world.export_world(), indent=2, ensure_ascii=False) + "\n"
        some = world.export_world()
        some["characters"] = [d for d in some["characters"] if d["character"]["id"] in ("owl", "fox")]
        some_text = json.dumps(some, indent=2, ensure_ascii=False) + "\n"
    runner = CliRunner()
    printed = runner.invoke(cli, ["export", "--db", str(valley_file)])
    assert printed.exit_code == 0 and printed.stdout == whole
    out = tmp_path / "world.json"
    written = runner.invoke(cli, ["export", "--db", str(valley_file), "--out", str(out)])
    assert written.exit_code == 0 and out.read_text(encoding="utf-8") == whole
    assert not list(tmp_path.glob(".*.partial"))
    two = runner.invoke(cli, ["export", "Owl", "fox", "--db", str(valley_file)])
    assert two.exit_code == 0 and two.stdout == some_text


def test_a_failed_streamed_out_leaves_no_file(valley_file: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """An error midway (here: reading the third character) leaves neither the file nor its
    partial copy, and is one line on stderr."""
    calls = {"n": 0}
    original = Curator.export_character

    def failing(self: Curator, character: str) -> dict[str, object]:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(5, "Input/output error")
        return original(self, character)

    monkeypatch.setattr(Curator, "export_character", failing)
    out = tmp_path / "world.json"
    result = CliRunner().invoke(cli, ["export", "--db", str(valley_file), "--out", str(out)])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert not out.exists() and not list(tmp_path.glob(".*.partial"))


def test_the_stream_holds_one_character_at_a_time() -> None:
    """Peak Python memory while streaming 200 large items stays near one item's size, not
    the document's (a whole-document dump holds all of them)."""
    item = {"memories": [{"event": "x" * 200, "n": n} for n in range(100)]}  # ~25 KB as JSON

    def items() -> object:
        for _ in range(200):
            yield json.loads(json.dumps(item))  # a fresh copy each time, as a read would be

    tracemalloc.start()
    size = 0
    for chunk in object_chunks([("characters", Streamed(items()))], indent=2):  # type: ignore[arg-type]
        size += len(chunk)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert size > 4_000_000
    assert peak < size / 10, (peak, size)
