"""Decoding: the bytes and JSON text a caller hands curator, made into Python values or refused.

Turns (`Curator.observe`, `curator observe`, a transcript line) and import documents arrive
as bytes or text from outside. Everything that can go wrong on the way to a Python value is
refused here with `InvalidInput`, one message naming the place: bytes that are not UTF-8 (or
UTF-16/32 with a byte order mark) name the line and column, JSON nested deeper than Python's
parser can follow, integers of thousands of digits (Python refuses to convert them at all)
or outside SQLite's 64 bits, and NaN or Infinity (not JSON, though Python's parser takes
them). What the values mean is checked later, by the models that read them.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from typing import Any

from curator.domain.errors import InvalidInput

# SQLite stores integers in 64 bits; a larger one would fail at the write, far from the input.
INT_RANGE = (-(2**63), 2**63 - 1)
INT_DIGITS = 20  # no integer in range has more; longer ones are refused before int() is tried

# The line breaks a text file splits on (as bytes.splitlines and universal newlines do): not
# str.splitlines, which also splits on U+2028 and friends that JSON text holds inside strings.
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def encoding_of(data: bytes) -> str:
    """UTF-8 unless a byte order mark says UTF-16 or UTF-32 (UTF-32 LE starts like UTF-16 LE,
    so it is tried first)."""
    return next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8")


def decode_text(data: bytes, *, what: str = "text", field: str | None = None) -> str:
    """`data` as text; bytes that are not in its encoding are refused naming line and column."""
    encoding = encoding_of(data)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        good = data[:error.start].decode(encoding, errors="replace")
        line = good.count("\n") + 1
        column = len(good) - (good.rfind("\n") + 1) + 1
        label = "UTF-8" if encoding.startswith("utf-8") else encoding.upper()
        raise InvalidInput(f"{what} is not valid {label} (byte 0x{data[error.start]:02x} at line "
                           f"{line} column {column})", field=field) from error


def _int(digits: str) -> int:
    if len(digits.lstrip("-")) > INT_DIGITS:
        raise _Refused(f"a number of {len(digits.lstrip('-'))} digits is out of range")
    value = int(digits)
    if not INT_RANGE[0] <= value <= INT_RANGE[1]:
        raise _Refused(f"the number {value} is out of range (64-bit integers)")
    return value


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:20]}{'…' if len(text) > 20 else ''} is out of range")
    return value


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number")


class _Refused(ValueError):
    """A value the JSON parser's hooks refused (the message says which)."""


def load_json(data: str | bytes, *, what: str = "text", field: str | None = None) -> Any:
    """Parse JSON text (bytes are decoded first, see `decode_text`) or raise InvalidInput."""
    text = decode_text(data, what=what, field=field) if isinstance(data, bytes) else data
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except (json.JSONDecodeError, _Refused, RecursionError) as error:
        raise _refusal(error, what, field) from error


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=_constant)


def json_value_at(text: str, index: int, *, what: str = "text") -> tuple[Any, int]:
    """The JSON value that starts at `index` of `text` and the index just past it, refused as
    `load_json` refuses (a large document is read a value at a time: export/lazy.py)."""
    try:
        return _DECODER.raw_decode(text, index)
    except (json.JSONDecodeError, _Refused, RecursionError) as error:
        raise _refusal(error, what, None) from error
    except StopIteration as error:  # the C scanner's word for "no value starts here"
        raise _refusal(json.JSONDecodeError("Expecting value", text, index), what, None) from error


def json_syntax_error(text: str, index: int, expected: str, *, what: str = "text") -> InvalidInput:
    """What `load_json` says of `text` when `expected` is missing at `index`."""
    return _refusal(json.JSONDecodeError(expected, text, index), what, None)


def _refusal(error: Exception, what: str, field: str | None) -> InvalidInput:
    if isinstance(error, json.JSONDecodeError):
        return InvalidInput(f"{what} is not JSON ({error.msg} at line {error.lineno} "
                            f"column {error.colno})", field=field)
    if isinstance(error, RecursionError):
        return InvalidInput(f"{what} is nested too deeply to read", field=field)
    return InvalidInput(f"{what}: {error}", field=field)


def text_lines(data: bytes, *, what: str = "line") -> list[tuple[int, str | InvalidInput]]:
    """The lines of a text file (a JSONL transcript), numbered from 1, each its text or the
    InvalidInput that says why it is not text: a game can play the lines before a bad one and
    be told which line to fix. A file with a UTF-16/32 byte order mark is decoded whole; the
    lines after its first bad byte are not read."""
    encoding = encoding_of(data)
    if encoding.startswith("utf-8"):
        lines: list[tuple[int, str | InvalidInput]] = []
        body = data.removeprefix(codecs.BOM_UTF8)
        for number, raw in enumerate(body.splitlines(keepends=False), start=1):
            try:
                lines.append((number, raw.decode("utf-8")))
            except UnicodeDecodeError as error:
                column = len(raw[:error.start].decode("utf-8", errors="replace")) + 1
                lines.append((number, InvalidInput(f"{what} {number} is not valid UTF-8 (byte "
                                                   f"0x{raw[error.start]:02x} at column {column})")))
        return lines
    try:
        return list(enumerate(_LINE_BREAK.split(data.decode(encoding).removesuffix("\n")), start=1))
    except UnicodeDecodeError as error:
        good = _LINE_BREAK.split(data[:error.start].decode(encoding, errors="replace"))
        numbered: list[tuple[int, str | InvalidInput]] = list(enumerate(good[:-1], start=1))
        bad = len(good)
        numbered.append((bad, InvalidInput(f"{what} {bad} is not valid {encoding.upper()} "
                                           f"(byte 0x{data[error.start]:02x})")))
        return numbered
