"""`curator context` and `curator search` from the command line, and offline token counting."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TRANSCRIPT

from curator import InvalidInput
from curator.cli import cli
from curator.model.tokens import count_tokens, encoding


@pytest.fixture
def world(tmp_path: Path) -> Path:
    db = tmp_path / "world.db"
    out = CliRunner().invoke(cli, ["play", str(TRANSCRIPT), "--db", str(db)])
    assert out.exit_code == 0, out.output
    return db


def test_context_prints_the_text_and_explains_it(world: Path) -> None:
    out = CliRunner().invoke(cli, ["context", "bear", "--situation", "Wolf is at the river", "--with", "wolf",
                                   "--max-tokens", "400", "--explain", "--peek", "--db", str(world)])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith("# You are Bear")
    assert "tokens (cl100k_base)" in out.stdout and "peek: nothing recalled" in out.stdout
    assert "[score " in out.stdout and "relevance" in out.stdout
    assert "- memory" in out.stdout  # what was dropped to fit 400 tokens


def test_context_json_is_the_manifest_and_recalls(world: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["context", "bear", "--situation", "fish", "--json", "--db", str(world)])
    doc = json.loads(out.stdout)
    assert doc["tokens"] <= doc["max_tokens"] == 1000 and doc["recalled"]
    assert {"section", "key", "tokens", "value", "reason", "score"} <= set(doc["items"][0])
    assert "fields" not in doc["items"][0]
    again = json.loads(runner.invoke(cli, ["search", "bear", "fish", "--json", "--db", str(world)]).stdout)
    recalled = {hit["id"]: hit for hit in again}
    assert any(recalled.get(i) for i in doc["recalled"])


def test_search_lists_matches(world: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["search", "bear", "poacher rifle", "--limit", "2", "--db", str(world)])
    assert out.exit_code == 0 and out.stdout.count("\n") == 2 and "poacher" in out.stdout
    out = runner.invoke(cli, ["search", "bear", "zzzz qqqq", "--db", str(world)])
    assert out.stdout == "No memory matches.\n"
    out = runner.invoke(cli, ["search", "dragon", "x", "--db", str(world)])
    assert out.exit_code == 1 and "unknown character" in out.stderr
    out = runner.invoke(cli, ["context", "bear", "--max-tokens", "0", "--db", str(world)])
    assert out.exit_code == 2


def test_tokens_are_counted_offline_without_a_cache_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    encoding.cache_clear()
    assert count_tokens("The wolf blocks my path.") == 6
    assert "TIKTOKEN_CACHE_DIR" not in os.environ  # put back as it was
    with pytest.raises(InvalidInput, match="unknown token encoding"):
        encoding("no_such_encoding")
