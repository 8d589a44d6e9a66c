"""Hostile text past the turn's JSON: control characters (NUL, ESC, BEL, …) are not prose, so a
turn holding one is refused naming the field and the character, in the API and in the CLI (tabs
and line breaks stay welcome); eval case files are decoded like turns."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidTurn


def _turn(**changes: object) -> dict[str, object]:
    turn: dict[str, object] = {"id": "t1", "actor": "bear", "intent": {"thought": "", "action": "eat"},
                               "reality": "Bear eats berries", "world_time": "2026-01-01T00:00:00Z"}
    turn.update(changes)
    return turn


@pytest.mark.parametrize(("changes", "field", "code"), [
    ({"reality": "Bear\x00 eats"}, "reality", "U+0000"),
    ({"reality": "Bear \x1b[31meats"}, "reality", "U+001B"),
    ({"intent": {"thought": "a\x07b", "action": "eat"}}, "intent.thought", "U+0007"),
    ({"intent": {"action": "eat\x7f"}}, "intent.action", "U+007F"),
    ({"tags": ["food", "x\x01"]}, "tags", "U+0001"),
    ({"place": "ri\x0bver"}, "place", "U+000B"),
    ({"id": "t\x001"}, "id", "U+0000"),
])
def test_a_control_character_is_refused_naming_field_and_character(changes: dict[str, object], field: str,
                                                                   code: str) -> None:
    curator = Curator(":memory:")
    with pytest.raises(InvalidTurn) as caught:
        curator.observe(_turn(**changes))
    assert caught.value.field == field
    assert code in str(caught.value)
    assert curator.world.character_ids() == []  # nothing was written


def test_tabs_and_line_breaks_are_prose() -> None:
    curator = Curator(":memory:")
    result = curator.observe(_turn(reality="Bear eats.\n\tThen Bear sleeps.\r\n"))
    assert result.turn_id == "t1" and not result.duplicate


def test_the_cli_refuses_a_nul_escaped_in_json_with_exit_2(tmp_path: Path) -> None:
    line = json.dumps(_turn(reality="Bear\u0000 eats"))  # JSON's \\u0000 escape decodes to NUL
    assert "\\u0000" in line
    result = CliRunner().invoke(cli, ["observe", "--db", str(tmp_path / "w.db")], input=line + "\n")
    assert result.exit_code == 2
    assert "U+0000" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize(("text", "said"), [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"name": "x", "n": NaN}', "NaN is not a JSON number"),
    ('{"n": 1' + "0" * 5000 + "}", "out of range"),
    ("{x", "not valid JSON"),
])
def test_an_eval_case_file_of_hostile_json_is_a_case_error(tmp_path: Path, text: str, said: str) -> None:
    # eval case files are read like turns: deep nesting, NaN and huge numbers refused, typed
    from curator.domain.errors import CaseError
    from curator.evals.cases import load_case

    path = tmp_path / "case.json"
    path.write_text(text)
    with pytest.raises(CaseError, match=said):
        load_case(path)
