"""Where an import went wrong: the path of the offending field in an export document.

Import reads a document piece by piece inside `with at("relationships.fox"):` blocks; an
error raised inside one (pydantic's, a missing key, a wrong type, curator's InvalidInput)
becomes a `FieldError` whose path is the blocks' paths joined with the error's own place,
dotted like pydantic's loc: `relationships.fox.recent_memories.3.importance`. exporting.py
turns it into the public `MalformedExport`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Annotated, Any

from pydantic import AfterValidator, ValidationError

from curator.domain.errors import InvalidInput
from curator.domain.models import parse_time


def _iso_time(value: str) -> str:
    parse_time(value)  # raises ValueError: not an ISO 8601 time, or outside years 1-9999 in UTC
    return value  # kept as written, so a document exported again reads the same


# A time in a document: checked, then stored as the text it was.
IsoTime = Annotated[str, AfterValidator(_iso_time)]


class FieldError(Exception):
    """A malformed value at `path` (relative to the innermost `at` that has not seen it yet)."""

    def __init__(self, path: str, message: str):
        super().__init__(message)
        self.path, self.message = path, message


def join(*parts: str | None) -> str:
    return ".".join(p for p in parts if p)


@contextmanager
def at(path: str, *, renames: Mapping[str, str] | None = None) -> Iterator[None]:
    """Name `path` in any error raised inside. `renames` maps a model's field names back to
    the document's (a memory's `content` is its `event` in the document)."""
    try:
        yield
    except FieldError as error:
        raise FieldError(join(path, error.path), error.message) from error
    except ValidationError as error:
        first = error.errors()[0]
        loc = [str(p) for p in first["loc"]]
        if loc and renames:
            loc[0] = renames.get(loc[0], loc[0])
        raise FieldError(join(path, *loc), first["msg"].removeprefix("Value error, ")) from error
    except KeyError as error:
        raise FieldError(join(path, str(error.args[0])), "missing") from error
    except InvalidInput as error:
        message = str(error).split(": ", 2)[-1] if error.field else str(error)
        raise FieldError(join(path, error.field), message) from error
    except (TypeError, ValueError, AttributeError, OverflowError, sqlite3.IntegrityError,
            sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.DataError) as error:
        # IntegrityError: the document names one memory twice, say; OverflowError: an integer
        # from a Python caller too large for SQLite; Programming/Interface/DataError: a value of
        # a type SQLite cannot bind (a list where a time belongs). Not OperationalError: a busy
        # or broken world file is not the document's fault.
        raise FieldError(path, str(error)) from error


def mapping(value: Any, what: str = "an object") -> Mapping[str, Any]:
    """`value` if it is a JSON object (a document's section), else a FieldError here."""
    if not isinstance(value, Mapping):
        raise FieldError("", f"must be {what}, not {type(value).__name__}")
    return value


def section(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    """A required object entry of a document, else a FieldError naming it."""
    if key not in doc:
        raise FieldError(key, "missing")
    with at(key):
        return mapping(doc[key])


def items(doc: Mapping[str, Any], key: str) -> list[Any]:
    """A list entry of a document (absent: empty), else a FieldError naming it."""
    value = doc.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise FieldError(key, f"must be a list, not {type(value).__name__}")
    return value
