"""Export and import: a character's memory as a JSON document in the shape of seed 001.

    {"format": "curator.character", "format_version": 1,
     "character": {"id", "name", "persona"},
     "self_memories": {"immediate_context", "recent_events", "core_memories", "archived"},
     "relationships": {"wolf": {"immediate_context", "recent_memories", "long_term_summary",
                                "core_memories", "current_sentiment", "overall_bond", …}},
     "blocks": {"own": [{"label", "content", "char_limit", "shared", "consumers", …}],
                "attached": [{"owner", "label"}]},
     "passages": [{"content", "tags", "created_at"}]}

Links between a shared block and its consumers are written on both sides, so importing
the two characters in either order restores them.

A world export is {"format": "curator.world", "format_version": 1, "clock", "characters": […]}.
Memories carry seed 001's `event` and `timestamp` names beside curator's own fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from curator.blocks import import_blocks
from curator.errors import InvalidInput, WorldFormatError
from curator.migrations import FORMAT_VERSION
from curator.models import (
    Character,
    Memory,
    MemoryKind,
    Relationship,
    Tier,
    iso,
    normalize_character_id,
)
from curator.passages import import_passages
from curator.store import World


def memory_document(memory: Memory) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "id": memory.id, "event": memory.content, "timestamp": iso(memory.created_at),
        "emotional_impact": memory.emotional_impact, "importance": round(memory.importance, 4),
        "kind": memory.kind.value, "valence": round(memory.valence, 4),
        "strength": round(memory.strength, 4), "recall_count": memory.recall_count,
        "last_recalled": iso(memory.last_recalled), "source_turns": memory.source_turns,
        "traits": memory.traits,
    }
    if memory.place:
        doc["place"] = memory.place
    if memory.domain:
        doc["domain"] = memory.domain
    if memory.tier is Tier.ARCHIVED:
        doc["archived_at"] = iso(memory.archived_at) if memory.archived_at else None
        doc["archived_reason"] = memory.archived_reason
    return doc


def character_document(character: Character, archived: list[Memory], as_of: datetime | None, *,
                       blocks: dict[str, Any] | None = None,
                       passages: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """`as_of` is the world clock the strengths were read at; an import fades on from there.
    `blocks` and `passages` come from blocks.blocks_document and passages.passages_document."""
    own = character.self_memories
    relationships: dict[str, Any] = {}
    for other, rel in sorted(character.relationships.items()):
        relationships[other] = {
            "immediate_context": rel.immediate_context,
            "recent_memories": [memory_document(m) for m in rel.recent_memories],
            "long_term_summary": rel.long_term_summary,
            "core_memories": [memory_document(m) for m in rel.core_memories],
            "current_sentiment": round(rel.current_sentiment, 4),
            "overall_bond": round(rel.overall_bond, 4),
            "trust": round(rel.trust, 4),
            "rapport": round(rel.rapport, 4),
            "interactions": rel.interactions,
            "traits": rel.traits,
            "first_met": iso(rel.first_met) if rel.first_met else None,
            "last_interaction": iso(rel.last_interaction) if rel.last_interaction else None,
            "archived_memories": [memory_document(m) for m in archived if m.subject == other],
        }
    return {
        "format": "curator.character",
        "format_version": FORMAT_VERSION,
        "as_of": iso(as_of) if as_of else None,
        "character": {"id": character.id, "name": character.name, "persona": character.persona},
        "self_memories": {
            "immediate_context": own.immediate_context,
            "recent_events": [memory_document(m) for m in own.recent_events],
            "core_memories": [memory_document(m) for m in own.core_memories],
            "archived": [memory_document(m) for m in archived if m.subject is None],
        },
        "relationships": relationships,
        "blocks": blocks or {"own": [], "attached": []},
        "passages": passages or [],
    }


def world_document(characters: list[dict[str, Any]], clock: datetime | None) -> dict[str, Any]:
    return {"format": "curator.world", "format_version": FORMAT_VERSION,
            "clock": iso(clock) if clock else None, "characters": characters}


def _memory_from(doc: Mapping[str, Any], owner: str, subject: str | None, tier: Tier,
                 as_of: str | None) -> Memory:
    created = doc.get("timestamp") or doc.get("created_at")
    return Memory.model_validate({
        "id": doc["id"], "owner": owner, "subject": subject, "content": doc["event"],
        "kind": MemoryKind(doc.get("kind", "relationship_event" if subject else "process_note")),
        "emotional_impact": doc.get("emotional_impact", "neutral"),
        "valence": doc.get("valence", 0.0), "importance": doc.get("importance", 0.5), "tier": tier,
        "strength": doc.get("strength", 1.0), "recall_count": doc.get("recall_count", 0),
        "last_recalled": doc.get("last_recalled") or created, "created_at": created,
        "strength_at": as_of or doc.get("last_recalled") or created,
        "source_turns": doc.get("source_turns", []), "traits": doc.get("traits", []),
        "place": doc.get("place"), "domain": doc.get("domain"),
        "archived_at": doc.get("archived_at"), "archived_reason": doc.get("archived_reason"),
    })


def import_document(world: World, document: Mapping[str, Any], *, replace: bool = False) -> list[str]:
    """Write the characters of an export into `world` (inside the caller's transaction)."""
    kind = document.get("format")
    if kind == "curator.world":
        docs = list(document.get("characters") or [])
    elif kind == "curator.character":
        docs = [document]
    else:
        raise WorldFormatError(f"not a curator export (format {kind!r})")
    version = document.get("format_version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise WorldFormatError(f"export format_version {version!r} is not one this curator reads "
                               f"(≤ {FORMAT_VERSION})")
    imported = []
    for doc in docs:
        try:
            as_of = doc.get("as_of") or document.get("clock")
            imported.append(_import_character(world, doc, replace=replace, as_of=as_of))
            _advance_clock(world, as_of)
        except (KeyError, TypeError, ValueError, ValidationError, InvalidInput) as error:
            name = (doc.get("character") or {}).get("id", "?") if isinstance(doc, Mapping) else "?"
            raise WorldFormatError(f"character {name!r} in the export is malformed: {error}") from error
    return imported


def _advance_clock(world: World, as_of: str | None) -> None:
    """The imported strengths are as of the export's clock; the world's clock must not lag it."""
    if not as_of:
        return
    clock = world.clock()
    when = datetime.fromisoformat(as_of)
    if clock is None or when > clock:
        world.set_meta("clock", iso(when))


def _import_character(world: World, doc: Mapping[str, Any], *, replace: bool,
                      as_of: str | None) -> str:
    info = doc["character"]
    owner = normalize_character_id(info["id"])
    # A character known only by name (created when another character's memories named it)
    # holds nothing to overwrite.
    holds_memories = world.character_row(owner) is not None and (
        any(world.count_memories(owner).values()) or world.relationship_others(owner))
    if holds_memories:
        if not replace:
            raise WorldFormatError(f"character {owner!r} already exists (use replace to overwrite)")
        world.delete_character_memories(owner)
    seq = world.next_memory_seq()
    seen = datetime.fromisoformat(world.meta("clock") or "1970-01-01T00:00:00+00:00")
    world.ensure_character(owner, seen)
    world.set_character(owner, name=info.get("name") or owner, persona=info.get("persona") or "")
    own = doc["self_memories"]
    world.set_character(owner, immediate_context=own.get("immediate_context", ""))
    batches: list[tuple[Any, str | None, Tier]] = [
        (own.get("recent_events", []), None, Tier.RECENT), (own.get("core_memories", []), None, Tier.CORE),
        (own.get("archived", []), None, Tier.ARCHIVED)]
    for other_raw, rel_doc in (doc.get("relationships") or {}).items():
        other = normalize_character_id(other_raw)
        world.ensure_character(other, seen)
        rel = Relationship.model_validate({
            "owner": owner, "other": other, "immediate_context": rel_doc.get("immediate_context", ""),
            "long_term_summary": rel_doc.get("long_term_summary", ""),
            "current_sentiment": rel_doc.get("current_sentiment", 0.0),
            "overall_bond": rel_doc.get("overall_bond", 0.0),
            "trust": rel_doc.get("trust", 0.5), "rapport": rel_doc.get("rapport", 0.5),
            "interactions": rel_doc.get("interactions", 0), "traits": rel_doc.get("traits", {}),
            "first_met": rel_doc.get("first_met"), "last_interaction": rel_doc.get("last_interaction")})
        world.save_relationship(rel)
        batches += [(rel_doc.get("recent_memories", []), other, Tier.RECENT),
                    (rel_doc.get("core_memories", []), other, Tier.CORE),
                    (rel_doc.get("archived_memories", []), other, Tier.ARCHIVED)]
    for items, subject, tier in batches:
        for item in items:
            memory = _memory_from(item, owner, subject, tier, as_of)
            if tier is Tier.ARCHIVED:
                world.insert_archived(memory, seq)
            else:
                world.insert_memory(memory, seq)
            seq += 1
    at = datetime.fromisoformat(as_of) if as_of else seen
    import_blocks(world, owner, doc.get("blocks") or {}, at)
    import_passages(world, owner, list(doc.get("passages") or []), at)
    return owner
