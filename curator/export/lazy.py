"""Reading a world export a character at a time (issue #17).

A world of 10,000 characters exports as a 500 MB file. Parsed whole, its Python values took
about 5 GB of memory, and the file was refused beyond 256 MB for that reason. Here the text
is kept as it is and only its top level is walked: every field but `characters` is parsed,
and each character document is parsed on its own, checked, and dropped; what is kept of it
is where it lies in the text, to be parsed again when the import writes it. So the memory
an import needs is the file's text and one character's values at a time.

`read_world_text` says None for a text that is not a JSON object with a `characters` array
(a character's export, or something that is not an export at all): that is read whole, and
its refusal is the whole reader's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

from curator.domain.decoding import json_syntax_error, json_value_at
from curator.domain.errors import MalformedExport
from curator.domain.models import normalize_character_id
from curator.export.fields import FieldError
from curator.export.limits import check_texts, latest_time

_SPACE = re.compile(r"[ \t\n\r]*")


class CharacterTexts(Sequence[Any]):
    """The character documents of a world document's text, each parsed when it is asked for."""

    def __init__(self, text: str, spans: list[tuple[int, int]], *, what: str):
        self._text, self._spans, self._what = text, spans, what

    def __len__(self) -> int:
        return len(self._spans)

    @overload
    def __getitem__(self, n: int) -> Any: ...

    @overload
    def __getitem__(self, n: slice) -> list[Any]: ...

    def __getitem__(self, n: int | slice) -> Any:
        if isinstance(n, slice):
            return [self[i] for i in range(*n.indices(len(self)))]
        return json_value_at(self._text, self._spans[n][0], what=self._what)[0]

    def __iter__(self) -> Iterator[Any]:
        return (self[n] for n in range(len(self)))


@dataclass
class WorldText:
    """A world document as text: its top-level fields but `characters`, parsed, and its
    character documents, parsed one at a time (`characters`), with what reading them once
    found: their ids (`keys`) and the latest world time they hold."""

    text: str
    fields: dict[str, Any]
    characters: CharacterTexts
    keys: list[str | None] = field(default_factory=list)
    latest: datetime | None = None


def character_key(doc: Any) -> str | None:
    """The id of the character a character document writes, if it names a sound one."""
    info = doc.get("character") if isinstance(doc, Mapping) else None
    if not isinstance(info, Mapping) or not info.get("id"):
        return None
    try:
        return normalize_character_id(str(info["id"]))
    except ValueError:
        return None


def read_world(text: str, *, what: str = "text") -> WorldText | None:
    """`read_world_text` with each character document checked as `check_texts` checks a whole
    document (`MalformedExport` naming its path), its id and latest time kept."""
    keys: list[str | None] = []
    latest: datetime | None = None

    def check(n: int, doc: Any) -> None:
        nonlocal latest
        try:
            check_texts(doc, path=f"characters.{n}", depth=2)
        except FieldError as error:
            raise MalformedExport(error.message, field=error.path or None) from error
        keys.append(character_key(doc))
        when = latest_time(doc)
        if when is not None and (latest is None or when > latest):
            latest = when

    document = read_world_text(text, what=what, each=check)
    if document is not None:
        # A later "characters" array replaces an earlier one (as in json.loads): keep its keys.
        document.keys = keys[len(keys) - len(document.characters):]
        document.latest = latest
    return document


def read_world_text(text: str, *, what: str = "text",
                    each: Callable[[int, Any], None] | None = None) -> WorldText | None:
    """Walk `text`'s top level: its fields parsed, its character documents located, each
    handed to `each(n, document)` as it is read (to check it: what it raises stops the walk).
    None if `text` is not a JSON object whose `characters` is an array; InvalidInput, as
    `load_json` says it, if the text is not JSON."""
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return None
    fields: dict[str, Any] = {}
    spans: list[tuple[int, int]] | None = None
    at = _skip(text, at + 1)
    if text.startswith("}", at):
        return None
    while True:
        if not text.startswith('"', at):
            raise json_syntax_error(text, at, "Expecting property name enclosed in double quotes",
                                    what=what)
        key, at = json_value_at(text, at, what=what)
        at = _expect(text, _skip(text, at), ":", "Expecting ':' delimiter", what)
        if key == "characters" and text.startswith("[", at):
            spans = []
            at = _read_array(text, at, spans, what, each)
        else:
            fields[key], at = json_value_at(text, at, what=what)
            if key == "characters":
                spans = None  # a later "characters" wins, as in json.loads, and is no array
        at = _skip(text, at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
            continue
        at = _expect(text, at, "}", "Expecting ',' delimiter", what)
        break
    if _skip(text, at) != len(text):
        raise json_syntax_error(text, _skip(text, at), "Extra data", what=what)
    if spans is None:
        return None
    return WorldText(text, fields, CharacterTexts(text, spans, what=what))


def _read_array(text: str, at: int, spans: list[tuple[int, int]], what: str,
                each: Callable[[int, Any], None] | None) -> int:
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        return at + 1
    while True:
        start = at
        value, at = json_value_at(text, at, what=what)
        if each is not None:
            each(len(spans), value)
        spans.append((start, at))
        at = _skip(text, at)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
            continue
        return _expect(text, at, "]", "Expecting ',' delimiter", what)


def _skip(text: str, at: int) -> int:
    match = _SPACE.match(text, at)
    return match.end() if match else at


def _expect(text: str, at: int, mark: str, message: str, what: str) -> int:
    if not text.startswith(mark, at):
        raise json_syntax_error(text, at, message, what=what)
    return _skip(text, at + 1)
