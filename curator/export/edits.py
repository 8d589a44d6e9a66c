"""The hands-on edits of an export (m011): a character's `memory_edits` section, written and read.

Pins and designer marks travel on the memories themselves (`pinned`, `written_by`: documents.py
writes them only when set, so an export of a world nobody edited is as it was). The section is
left out when a character's memories were never edited by hand. Importing a character replaces
its edit history with the document's; each entry is checked (action, times, lengths) and a bad
one is refused naming its path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator.export.fields import at, items, mapping
from curator.store.edits import clear_edits, edits_of, import_edits
from curator.store.world import World

SECTION = "memory_edits"


def edits_document(world: World, owner: str) -> dict[str, Any]:
    """{"memory_edits": [...]} with the owner's hand edits, oldest first; {} when there are none."""
    edits = edits_of(world, owner)
    if not edits:
        return {}
    return {SECTION: [e.model_dump(exclude={"owner"}, exclude_none=True) for e in edits]}


def import_edits_section(world: World, owner: str, doc: Mapping[str, Any]) -> None:
    """Replace the owner's edit history with the document's (inside the import's transaction)."""
    clear_edits(world, owner)
    for n, entry in enumerate(items(doc, SECTION)):
        with at(f"{SECTION}.{n}"):
            import_edits(world, owner, [mapping(entry)])
