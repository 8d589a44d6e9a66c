"""What users trying curator on their own games hit (a trial of 2026-11-27): `end-episode`
said "0 archived" while archiving, and text with a lone surrogate (player text cut inside an
emoji by a UTF-16 client; a non-UTF-8 terminal's bytes) ended in a raw UnicodeEncodeError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidInput

TURN = {"id": "t1", "world_time": "2025-01-01T08:00:00Z", "actor": "mira",
        "intent": {"action": "Serve the ale"}, "reality": "You serve ale to Tom, who thanks you.",
        "others": ["tom"], "observers": ["tom"]}


def test_end_episode_reports_every_memory_it_archives(transcript_turns: list[dict[str, Any]]) -> None:
    with Curator(":memory:") as curator:
        curator.observe_many(transcript_turns)
        before = curator.counts("bear")
        changes = curator.end_episode("bear")
        after = curator.counts("bear")
    archived_now = after["archived"] - before["archived"]
    assert archived_now > 0
    assert len(changes.archived) == archived_now
    assert {c.reason for c in changes.archived} == {"consolidated at episode end"}


def test_the_cli_says_how_many_an_episode_archived(tmp_path: Path,
                                                   transcript_turns: list[dict[str, Any]]) -> None:
    db = tmp_path / "w.db"
    with Curator(db) as curator:
        curator.observe_many(transcript_turns)
        before = curator.counts("bear")["archived"]
    result = CliRunner().invoke(cli, ["end-episode", "bear", "--db", str(db)])
    with Curator(db) as curator:
        archived = curator.counts("bear")["archived"] - before
    assert result.exit_code == 0 and archived > 0
    assert f"made core, {archived} archived" in result.output


LONE = "caf\udce9"  # what a Latin-1 terminal's "café" becomes in sys.argv


@pytest.mark.parametrize(("call", "field"), [
    (lambda c: c.context("mira", situation=LONE), "situation"),
    (lambda c: c.set_persona("mira", "A barmaid \ud83d"), "persona"),
    (lambda c: c.memory_add("mira", LONE), "text"),
    (lambda c: c.memory_add("mira", "Tom owes me", by=LONE), "by"),
    (lambda c: c.search("mira", LONE), "query"),
    (lambda c: c.context("mira", with_=[LONE]), "with"),
])
def test_a_lone_surrogate_is_invalid_input_and_nothing_is_written(call: Any, field: str) -> None:
    with Curator(":memory:") as curator:
        curator.observe(TURN)
        memories = curator.counts("mira")
        with pytest.raises(InvalidInput, match="lone surrogate") as refused:
            call(curator)
        assert refused.value.field == field
        assert curator.counts("mira") == memories
        assert curator.world.personas(["mira"]).get("mira") in (None, "")


def test_the_cli_refuses_a_non_utf8_argument_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with Curator(db) as curator:
        curator.observe(TURN)
    result = CliRunner().invoke(cli, ["memory", "add", "mira", LONE, "--db", str(db)])
    assert result.exit_code == 2
    assert "lone surrogate" in result.output and "Traceback" not in result.output
