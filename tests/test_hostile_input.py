"""Hostile turns (issue #16): whatever a caller sends `observe` (Python API or CLI) is a stored
turn or a typed error, never a raw TypeError/ValueError/RecursionError/OverflowError, and a
refused turn writes nothing. Every option that takes a world time refuses a zone that pushes
it past year 1 or 9999 the same way."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidInput, InvalidTurn
from curator.domain.models import MAX_TURN_JSON

TURN = {"id": "t1", "world_time": "2025-03-01T08:00:00Z", "actor": "wolf",
        "intent": {"action": "Howl at the moon"}, "reality": "You howl and Bear wakes up.",
        "others": ["bear"]}


def text(**changes: Any) -> str:
    return json.dumps({**TURN, **changes})


def refused(world: Curator, data: Any, *needles: str) -> InvalidTurn:
    with pytest.raises(InvalidTurn) as caught:
        world.observe(data)
    for needle in needles:
        assert needle in str(caught.value), (needle, str(caught.value))
    assert world.world.turn_count() == 0 and world.characters() == []  # nothing written
    return caught.value


@pytest.mark.parametrize("data", [None, [], [TURN], 5, 1.5, True, object(), {1, 2}],
                         ids=["None", "empty-list", "list", "int", "float", "bool", "object", "set"])
def test_observe_refuses_what_is_not_a_turn_with_a_typed_error(curator: Curator, data: Any) -> None:
    refused(curator, data, "a turn is a JSON object")


@pytest.mark.parametrize(("data", "needle"), [
    ('{"id": "t1", "n": ' + "9" * 5000 + "}", "5000 digits"),
    ('{"id": "t1", "n": ' + str(2**64) + "}", "out of range"),
    ('{"id": "t1", "n": 1e999}', "out of range"),
    ('{"id": "t1", "n": NaN}', "NaN is not a JSON number"),
    ('{"id": "t1", "n": -Infinity}', "-Infinity is not a JSON number"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ('{"id": "t1",', "not JSON"),
    (b'{"id": "t\xff1"}', "not valid UTF-8 (byte 0xff at line 1 column 10)"),
    (b'{\n"id":\n "\xc3"}', "at line 3 column 3"),
    ('{"id": "t1"}'.encode("utf-16")[:-1], "not valid UTF-16"),
    ("x" * (MAX_TURN_JSON + 1), "at most 1,000,000 characters"),
], ids=["5000-digits", "int-past-64-bits", "float-overflow", "nan", "infinity", "deep-list",
        "deep-object", "truncated", "bad-utf8", "bad-utf8-line-3", "bad-utf16", "too-long"])
def test_json_text_hazards_are_invalid_turns(curator: Curator, data: str | bytes, needle: str) -> None:
    refused(curator, data, needle)


def test_utf16_and_bom_texts_are_turns(curator: Curator) -> None:
    assert curator.observe(text().encode("utf-16")).turn_id == "t1"
    assert curator.observe(("\ufeff" + text(id="t2")).encode("utf-8")).turn_id == "t2"
    assert curator.observe(text(id="t3").encode("utf-32")).turn_id == "t3"


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"])
def test_a_zone_that_pushes_world_time_past_the_calendar_is_an_invalid_turn(curator: Curator,
                                                                              when: str) -> None:
    error = refused(curator, text(world_time=when), "outside years 1-9999 in UTC")
    assert error.field == "world_time"


def test_the_calendars_edges_themselves_are_turns(curator: Curator) -> None:
    curator.observe(text(world_time="0001-01-01T00:00:00Z"))
    curator.observe(text(id="t2", world_time="9999-12-31T23:59:59.999999Z"))
    curator.fade("9999-12-31T23:59:59.999999Z")
    curator.evolve("9999-12-31T23:59:59.999999Z")
    assert curator.world.turn_count() == 2


@pytest.mark.parametrize("field", ["id", "actor", "reality", "place"])
def test_lone_surrogates_and_wrong_types_name_the_field(curator: Curator, field: str) -> None:
    assert refused(curator, {**TURN, field: "a\ud800b"}).field == field
    assert refused(curator, {**TURN, field: ["x"]}).field == field


def test_a_bad_turn_in_a_batch_writes_nothing_of_the_batch(curator: Curator) -> None:
    with pytest.raises(InvalidTurn):
        curator.observe_many([TURN, None])  # type: ignore[list-item]
    assert curator.world.turn_count() == 0


# Every entry that takes a world time: (Python call, CLI arguments after `curator`).
TIME_TAKERS: dict[str, tuple[Callable[[Curator, str], Any], list[str]]] = {
    "fade --until": (lambda w, t: w.fade(t), ["fade", "--until"]),
    "evolve --world-time": (lambda w, t: w.evolve(t), ["evolve", "--world-time"]),
    "clock --set": (lambda w, t: w.set_clock(t), ["clock", "--set"]),
}
BAD_TIMES = {"past-year-9999": "9999-12-31T23:00:00-05:00", "before-year-1": "0001-01-01T00:00:00+05:00",
             "not-a-time": "next tuesday"}


@pytest.mark.parametrize("taker", list(TIME_TAKERS))
@pytest.mark.parametrize("bad", list(BAD_TIMES))
def test_every_time_taking_option_refuses_an_impossible_time(tmp_path: Path, taker: str, bad: str) -> None:
    call, args = TIME_TAKERS[taker]
    db = tmp_path / "w.db"
    with Curator(db) as world:
        world.observe(TURN)
        with pytest.raises(InvalidInput) as caught:
            call(world, BAD_TIMES[bad])
        assert not isinstance(caught.value, InvalidTurn)
        clock = world.world.clock()
    result = CliRunner().invoke(cli, [*args, BAD_TIMES[bad], "--db", str(db)])
    one_line(result, 2, "outside years 1-9999" if bad != "not-a-time" else "not an ISO 8601 time")
    with Curator(db) as world:
        assert world.world.clock() == clock  # nothing moved


def test_time_options_refuse_what_is_not_text(curator: Curator) -> None:
    for call, _ in TIME_TAKERS.values():
        with pytest.raises(InvalidInput, match=r"was given int 5; expected datetime(, str or None| or str)$"):
            call(curator, 5)  # type: ignore[arg-type]


def one_line(result: Result, code: int, *needles: str) -> str:
    assert result.exit_code == code, (result.exit_code, result.stderr, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


@pytest.mark.parametrize(("stdin", "needle"), [
    (b'{"id": "\xff"}', "not valid UTF-8 (byte 0xff at line 1 column 9)"),
    (("[" * 100_000 + "]" * 100_000).encode(), "nested too deeply"),
    (('{"id": ' + "1" * 5000 + "}").encode(), "5000 digits"),
    (b"null", "a turn is a JSON object"),
    (text(world_time="9999-12-31T23:00:00-05:00").encode(), "outside years 1-9999"),
])
def test_observe_on_stdin_refuses_hostile_input_in_one_line(tmp_path: Path, stdin: bytes,
                                                            needle: str) -> None:
    result = CliRunner().invoke(cli, ["observe", "--db", str(tmp_path / "w.db")], input=stdin)
    one_line(result, 2, needle)
    with Curator(tmp_path / "w.db") as world:
        assert world.world.turn_count() == 0


@pytest.mark.parametrize(("encoding", "needle"), [("utf-8", "line 3 is not valid UTF-8"),
                                                  ("utf-16", "line 3 is not valid UTF-16")])
def test_play_names_the_line_that_is_not_text_after_playing_those_before(
        tmp_path: Path, encoding: str, needle: str) -> None:
    good = (text() + "\n# a comment\n").encode(encoding)
    # utf-16: a lone low surrogate (0xdc00, little-endian as the byte order mark says)
    bad = b"\xff\xfe\xff\n" if encoding == "utf-8" else b"\x00\xdc" + "\n".encode("utf-16-le")
    transcript = tmp_path / "t.jsonl"
    transcript.write_bytes(good + bad)
    result = CliRunner().invoke(cli, ["play", str(transcript), "--db", str(tmp_path / "w.db")])
    one_line(result, 2, f"{transcript}:3:", needle)
    with Curator(tmp_path / "w.db") as world:
        assert world.world.turn_count() == 1  # the line before it was played


def test_a_utf16_transcript_plays(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(text() + "\n" + text(id="t2", world_time="2025-03-01T09:00:00Z") + "\n",
                          encoding="utf-16")
    result = CliRunner().invoke(cli, ["play", str(transcript), "--db", str(tmp_path / "w.db"), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["new"] == 2



@pytest.mark.parametrize("batch", [None, TURN, json.dumps(TURN), 5], ids=["None", "one-turn", "text", "int"])
def test_observe_many_refuses_what_is_not_a_batch(curator: Curator, batch: Any) -> None:
    with pytest.raises(InvalidTurn, match="a batch is a list of turns"):
        curator.observe_many(batch)
    assert curator.world.turn_count() == 0


@pytest.mark.parametrize("character", [None, 5, ["wolf"], "x" * 100_000])
def test_a_character_argument_that_is_not_an_id_is_invalid_input(curator: Curator, character: Any) -> None:
    curator.observe(TURN)
    for call in (curator.character, curator.end_episode, lambda c: curator.set_persona(c, "A wolf.")):
        with pytest.raises(InvalidInput) as caught:
            call(character)
        assert caught.value.field == "character"
