"""Writing a large JSON document a piece at a time, byte for byte as `json.dumps` writes it whole.

A world export of 10,000 characters is a 500 MB document; built as one dict and dumped as
one string it took 4 GB of memory (issue #17). `object_chunks` writes a top-level object
whose values are either ordinary values or `Streamed` iterables (written as JSON arrays,
one item at a time), so only one item is ever held. Its text is what `json.dumps` gives
for the same object with the same `indent` and `ensure_ascii`: each item is dumped on its
own and indented by its depth, which is safe because JSON strings never hold a raw newline.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass
class Streamed:
    """A value written as a JSON array, its items drawn one by one from `items`."""

    items: Iterable[Any]


def object_chunks(fields: Iterable[tuple[str, Any]], *, indent: int | None = None,
                  ensure_ascii: bool = True) -> Iterator[str]:
    """The JSON text of the object made of `fields` (in order), in pieces; a `Streamed`
    value is written as an array, item by item."""
    def dump(value: Any, depth: int) -> str:
        text = json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)
        return text if indent is None else text.replace("\n", "\n" + " " * (indent * depth))

    pad1 = "" if indent is None else "\n" + " " * indent
    pad2 = "" if indent is None else "\n" + " " * (2 * indent)
    item_sep = ", " if indent is None else ","
    first = True
    yield "{"
    for key, value in fields:
        yield ("" if first else item_sep) + pad1 + json.dumps(key, ensure_ascii=ensure_ascii) + ": "
        first = False
        if not isinstance(value, Streamed):
            yield dump(value, 1)
            continue
        empty = True
        for item in value.items:
            yield ("[" if empty else item_sep) + pad2 + dump(item, 2)
            empty = False
        yield "[]" if empty else pad1 + "]"
    yield "}" if first else ("" if indent is None else "\n") + "}"
