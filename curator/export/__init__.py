"""Export and import: a character or a whole world as one JSON document.

It owns the document's shape and version (`documents`), the evolution and the memory
network's parts of it (`evolution`, `network`), the hand edits of its memories (`edits`),
and naming the field where an import went wrong (`fields`). A round trip of a world gives an
identical document.

May import: `curator.recall`, `curator.evolution`, `curator.store`, `curator.domain`. Never the
turn flow or the model gateway: an import stores what the document says, deciding nothing.
"""
