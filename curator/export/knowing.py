"""Export and import of who knows what: how a character knows each of its memories, and the
groups (places, factions) it belongs to. A character document carries

    "known": {memory_id: {"origin", "confidence", "hops", "mouths", "about", "told_in", "group"}, …},
    "groups": [group, …],

(each provenance entry without the fields at their defaults). Every id in `known` must be one
of the character's memories in the document; an entry is checked like any (`Provenance`, the
import limits of limits.py). A memory without an entry imports with an unknown origin. The
groups' own knowledge lists are not carried: a member's copy of what its group knows is one of
its memories, with its source entry naming the group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from curator.domain.knowing import Provenance
from curator.domain.models import normalize_label
from curator.export.fields import FieldError, at, items, mapping
from curator.store import knowing
from curator.store.world import World

_OWN = "select id from memories where owner = ?1 union all select id from memory_archive where owner = ?1"


def knowing_document(world: World, owner: str) -> dict[str, Any]:
    """The owner's provenance entries (by memory id) and groups, as an export's entries."""
    known = {memory_id: source.model_dump(exclude_defaults=True, exclude_none=True) | {
        "origin": source.origin, "confidence": source.confidence}
        for memory_id, source in knowing.sources_of(world, owner).items()}
    return {"known": known, "groups": knowing.groups_of(world, owner)}


def import_knowing(world: World, owner: str, doc: Mapping[str, Any]) -> None:
    """Write a character document's provenance and groups for `owner`, whose memories are
    already written (inside the caller's transaction)."""
    own = {r[0] for r in world.conn.execute(_OWN, (owner,))}
    with at("known"):
        known = mapping(doc.get("known") or {})
    for memory_id, entry in known.items():
        with at(f"known.{memory_id}"):
            if memory_id not in own:
                raise FieldError("", "not one of the character's memories")
            source = Provenance.model_validate(mapping(entry))
        knowing.record(world, str(memory_id), owner, source)
    groups = []
    for n, name in enumerate(items(doc, "groups")):
        with at(f"groups.{n}"):
            if not isinstance(name, str):
                raise FieldError("", f"a group name is text, not {type(name).__name__}")
            groups.append(normalize_label(name))
    world.conn.execute("delete from group_members where character = ?", (owner,))
    for group in dict.fromkeys(groups):
        knowing.join_group(world, group, [owner], world.now())
