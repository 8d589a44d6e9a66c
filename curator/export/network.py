"""Export and import of appraisal: each memory's lens priorities, the links
between a character's memories, and the character's own lens weights.

A character document (format_version ≥ 2) carries

    "appraisals": {memory_id: {lens: {"priority", "justification"}}, …},
    "memory_links": [{"memory_id", "other_id", "strength", "by", "created_at"}, …],
    "lens_weights": {lens: weight, …},

Both ends of a link are the character's own memories (live or archived) and are named by
id: import finds the seqs recall works by (network.py) from the memories it wrote. Entries
are ordered by id, not by seq: an import writes a character's memories tier by tier, so
their seqs are not the exporting world's, and a document exported again reads the same.

Lens weights are not stored in the world: a game sets them on its `Curator` for the
session (`Curator.set_lens_weights`, `AppraisalConfig.character_weights`). An export
writes the character's own weights from the exporting Curator's configuration, and an
import lays them over the importing Curator's (checked against its lenses).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from curator.domain.config import AppraisalConfig
from curator.export.fields import FieldError, IsoTime, at, items, mapping
from curator.store.world import World

_OWN = ("select id, seq from memories where owner = ?1 union all "
        "select id, seq from memory_archive where owner = ?1")


class LensDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    priority: float = Field(ge=0.0, le=1.0)
    justification: str


class LinkDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    memory_id: str
    other_id: str
    strength: float = Field(ge=0.0, le=1.0)
    by: Literal["text", "subject"]
    created_at: IsoTime


def network_document(world: World, owner: str, lens_weights: Mapping[str, float]) -> dict[str, Any]:
    """The owner's appraisals, memory links and own lens weights, as an export's entries."""
    appraisals = {
        memory_id: {lens: {"priority": p, "justification": why} for lens, (p, why) in
                    sorted(json.loads(lenses).items())}
        for memory_id, lenses in world.conn.execute(
            f"with own(id, seq) as ({_OWN}) select a.memory_id, a.lenses from appraisals a "
            "join own on own.id = a.memory_id order by a.memory_id", (owner,))}
    # Only links whose both ends the document holds: one to a memory that is gone could not
    # be imported (its seq is unknown), and recall could not follow it either.
    links = [dict(zip(LinkDocument.model_fields, row, strict=True)) for row in world.conn.execute(
        f"with own(id, seq) as ({_OWN}) select l.memory_id, l.other_id, l.strength, l.by, l.created_at "
        "from memory_links l join own a on a.id = l.memory_id join own b on b.id = l.other_id "
        "where l.owner = ?1 order by l.memory_id, l.other_id", (owner,))]
    return {"appraisals": appraisals, "memory_links": links,
            "lens_weights": dict(sorted(lens_weights.items()))}


def clear_network(world: World, owner: str) -> None:
    """Remove the appraisals and links of the owner's memories (before its memories are
    deleted for a replacing import: appraisals know their memory only by id)."""
    world.conn.execute(f"with own(id, seq) as ({_OWN}) delete from appraisals "
                       "where memory_id in (select id from own)", (owner,))
    # By the owner's memories, not `owner = ?`: memory_links has no index on its owner, and that
    # scan of every link (120,000 at 10,000 characters) was ~20 ms of each replaced character
    # in an import's last transaction. A link joins two memories of its owner (a memory's links
    # go with it when it is deleted), so these are the same rows (issue #17).
    world.conn.execute(f"with own(id, seq) as ({_OWN}) delete from memory_links "
                       "where memory_id in (select id from own)", (owner,))


def import_network(world: World, owner: str, doc: Mapping[str, Any]) -> None:
    """Write a character document's appraisals and links for `owner`, whose memories are
    already written (inside the caller's transaction, after `clear_network`)."""
    seqs = {memory_id: int(seq) for memory_id, seq in world.conn.execute(_OWN, (owner,))}
    with at("appraisals"):
        appraisals = mapping(doc.get("appraisals") or {})
    for memory_id, lenses in appraisals.items():
        with at(f"appraisals.{memory_id}"):
            if memory_id not in seqs:
                raise FieldError("", "not one of the character's memories")
            stored = {}
            for lens, score in mapping(lenses).items():
                with at(str(lens)):
                    checked = LensDocument.model_validate(score)
                stored[str(lens)] = [checked.priority, checked.justification]
        world.conn.execute("insert or replace into appraisals (memory_id, lenses) values (?, ?)",
                           (memory_id, json.dumps(stored)))
    for n, item in enumerate(items(doc, "memory_links")):
        with at(f"memory_links.{n}"):
            link = LinkDocument.model_validate(item)
            for end in ("memory_id", "other_id"):
                if getattr(link, end) not in seqs:
                    raise FieldError(end, "not one of the character's memories")
        world.conn.execute(
            "insert or replace into memory_links (memory_id, other_id, memory_seq, other_seq, owner, "
            "strength, by, created_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
            (link.memory_id, link.other_id, seqs[link.memory_id], seqs[link.other_id], owner,
             link.strength, link.by, link.created_at))


def with_lens_weights(config: AppraisalConfig, owner: str, doc: Mapping[str, Any]) -> AppraisalConfig:
    """`config` with the document's lens weights for `owner` laid over its own: a lens the
    config does not have, or a weight outside 0..10, names the field."""
    with at("lens_weights"):
        weights = dict(mapping(doc.get("lens_weights") or {}))
    if not weights:
        return config
    merged = {**config.character_weights, owner: {**config.character_weights.get(owner, {}), **weights}}
    try:
        return AppraisalConfig.model_validate({**config.model_dump(), "character_weights": merged})
    except ValidationError as error:
        first = error.errors()[0]
        loc = [str(p) for p in first["loc"]]
        # The config's own check names the lens in its message; its loc is the config's.
        lens = next((name for name in weights if repr(name) in first["msg"]), None)
        where = lens if lens is not None else ".".join(loc[2:])
        message = first["msg"].removeprefix("Value error, ")
        raise FieldError(f"lens_weights.{where}" if where else "lens_weights", message) from error
