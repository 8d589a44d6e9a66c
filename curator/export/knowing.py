"""Export and import of who knows what: how a character knows each of its memories, and the
groups (places, factions) it belongs to. A character document carries

    "known": {memory_id: {"origin", "confidence", "hops", "mouths", "about", "told_in", "group"}, …},
    "groups": [group, …],

(each provenance entry without the fields at their defaults). Every id in `known` must be one
of the character's memories in the document; an entry is checked like any (`Provenance`, the
import limits of limits.py). A memory without an entry imports with an unknown origin.

A world document carries what each group knows, `"groups": {group: [{"id", "content",
"subject", "kind", "importance", "added_at"}, …]}`. On import a piece the world's group
already holds (the same text) is not written twice, and the imported members' copies are
pointed at the piece's id in this world (a member's copy names it in its source's `told_in`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from curator.domain.knowing import Provenance
from curator.domain.models import MAX_TEXT, CharacterId, MemoryKind, normalize_label, parse_time
from curator.export.fields import FieldError, IsoTime, at, items, mapping
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


class KnowledgeDocument(BaseModel):
    """One piece of a group's knowledge in a world document."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(ge=1)
    content: str = Field(min_length=1, max_length=MAX_TEXT)
    subject: CharacterId | None = None
    kind: MemoryKind
    importance: float = Field(ge=0.0, le=1.0)
    added_at: IsoTime


def groups_document(world: World) -> dict[str, list[dict[str, Any]]]:
    """What every group knows, by group, oldest first (a world export's entry)."""
    return {group: found for group in knowing.group_names(world)
            if (found := knowing.knowledge(world, group))}


def import_groups(world: World, groups: Any, owners: list[str]) -> None:
    """Write a world document's group knowledge and point the imported members' copies at it."""
    renamed: dict[str, str] = {}
    with at("groups"):
        by_group = mapping(groups or {})
    for raw, entries in by_group.items():
        with at(f"groups.{raw}"):
            group = normalize_label(str(raw))
            if not isinstance(entries, list):
                raise FieldError("", f"must be a list, not {type(entries).__name__}")
        held = {item["content"]: item["id"] for item in knowing.knowledge(world, group)}
        for n, entry in enumerate(entries):
            with at(f"groups.{raw}.{n}"):
                piece = KnowledgeDocument.model_validate(entry)
            new = held.get(piece.content)
            if new is None:
                new = knowing.add_knowledge(world, group, piece.content, subject=piece.subject,
                                            kind=piece.kind.value, importance=piece.importance,
                                            at=parse_time(piece.added_at))
                held[piece.content] = new
            renamed[f"group:{group}:{piece.id}"] = f"group:{group}:{new}"
    if not renamed or not owners:
        return
    marks = ", ".join("?" * len(owners))
    rows = world.conn.execute(f"select memory_id, told_in from memory_sources where owner in ({marks}) "
                              "and origin = 'shared'", owners).fetchall()
    # Row by row from the ids read first: renaming 1→2 then 2→3 in place would rename twice.
    world.conn.executemany("update memory_sources set told_in = ? where memory_id = ?",
                           [(renamed[told], memory_id) for memory_id, told in rows if told in renamed])
