"""Parsing turns: what a caller hands `observe` and `observe_many`, made into `Turn`s or refused.

Everything a caller can send is either a valid turn or an `InvalidTurn` naming the first bad
field: None, a list or a number where a turn belongs, JSON text or bytes that do not decode
(domain/decoding.py), a field of the wrong type or past its cap (domain/models.py). Never a
raw TypeError, ValueError or RecursionError.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import ValidationError

from curator.domain.decoding import load_json
from curator.domain.errors import InvalidInput, InvalidTurn
from curator.domain.models import MAX_TURN_JSON, Turn


def parse_turn(data: Turn | Mapping[str, Any] | str | bytes) -> Turn:
    """Validate a turn from a dict or JSON text (bytes: UTF-8, or UTF-16/32 with a byte order
    mark); InvalidTurn names the first bad field. Whatever else a caller passes (None, a list, a
    number, undecodable bytes, JSON nested 100,000 deep) is an InvalidTurn too, never a raw
    TypeError, ValueError or RecursionError."""
    if isinstance(data, Turn):
        return data
    turn_id = None
    try:
        if isinstance(data, str | bytes):
            if len(data) > MAX_TURN_JSON:
                raise InvalidTurn(f"a turn's JSON text is at most {MAX_TURN_JSON:,} characters, "
                                  f"got {len(data):,}")
            try:
                raw = load_json(data, what="a turn")
            except InvalidInput as error:
                raise InvalidTurn(str(error).removeprefix("invalid input: ")) from error
        elif isinstance(data, Mapping):
            raw = dict(data)
        else:
            raw = data
        if not isinstance(raw, dict):
            raise InvalidTurn(f"a turn is a JSON object (a mapping), not {kind_of(raw)}")
        turn_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        return Turn.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = "unknown field (a turn has: " + ", ".join(Turn.model_fields) + ")"
        raise InvalidTurn(message, field=field, turn_id=turn_id) from error


def parse_turns(turns: Iterable[Turn | Mapping[str, Any] | str | bytes]) -> list[Turn]:
    """Validate a batch; a batch that is not a list of turns (None, one turn, text) is an InvalidTurn."""
    if isinstance(turns, str | bytes | Mapping) or not isinstance(turns, Iterable):
        raise InvalidTurn(f"a batch is a list of turns, not {kind_of(turns)}")
    return [parse_turn(t) for t in turns]


def kind_of(value: Any) -> str:
    """What a value is, in JSON's words ('null', 'a list'), for an error message."""
    names = {dict: "an object", list: "a list", str: "text", int: "a number", float: "a number",
             bool: "a boolean", type(None): "null"}
    return names.get(type(value), type(value).__name__)
