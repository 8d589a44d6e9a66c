"""Exporting a whole world as a stream: the JSON text a character at a time, in bounded memory.

`export_world()` builds the world's document as one dict; at 10,000 characters that and its
text took 4 GB (issue #17). `export_world_chunks` gives the same text as
`json.dumps(export_world(), indent=..., ensure_ascii=...)`, byte for byte, holding one
character's document at a time (export/streaming.py); `export_world_to` writes it to a file.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import TextIO

from curator.api.reads import WorldReads
from curator.export.documents import world_fields
from curator.export.evolution import reports_document
from curator.export.knowing import groups_document
from curator.export.streaming import Streamed, object_chunks


class WorldExport(WorldReads):
    """The streamed export of a world (a mixin of `Curator`)."""

    def export_world_chunks(self, *, indent: int | None = None, ensure_ascii: bool = True,
                            only: Collection[str] | None = None) -> Iterator[str]:
        """The world's export document as JSON text, in pieces (one per character and a few
        more). `only` keeps the characters whose id it names (ids as `characters()` gives
        them); the others are neither read nor written."""
        ids = self.characters()
        if only is not None:
            wanted = set(only)
            ids = [c for c in ids if c in wanted]
        documents = (self.export_character(c) for c in ids)
        fields = world_fields(Streamed(documents), self.world.clock(), reports_document(self.world),
                              groups_document(self.world))
        yield from object_chunks(fields, indent=indent, ensure_ascii=ensure_ascii)

    def export_world_to(self, out: TextIO, *, indent: int | None = None, ensure_ascii: bool = True,
                        only: Collection[str] | None = None) -> int:
        """Write the world's export document to `out` as it is read; returns the characters
        (of the text) written."""
        written = 0
        for chunk in self.export_world_chunks(indent=indent, ensure_ascii=ensure_ascii, only=only):
            written += out.write(chunk)
        return written
