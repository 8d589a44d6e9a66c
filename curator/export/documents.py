"""Export and import: a character's memory as a JSON document in the shape of the two-animals memory flow.

    {"format": "curator.character", "format_version": 2,
     "character": {"id", "name", "persona", "created_at"},
     "self_memories": {"immediate_context", "recent_events", "core_memories", "archived"},
     "relationships": {"wolf": {"immediate_context", "recent_memories", "long_term_summary",
                                "core_memories", "current_sentiment", "overall_bond",
                                "trust", "rapport", …}},
     "blocks": {"own": [{"label", "content", "char_limit", "shared", "consumers", …}],
                "attached": [{"owner", "label"}]},
     "passages": [{"content", "tags", "created_at"}],
     "attributes", "attribute_changes", "personality_snapshots", "evolution_mark",
                                                          # exporting_evolution.py
     "appraisals", "memory_links", "lens_weights",        # exporting_network.py
     "memory_edits"}                                      # export/edits.py, when edited by hand

Links between a shared block and its consumers are written on both sides, so importing
the two characters in either order restores them.

A world export is {"format": "curator.world", "format_version": 2, "clock",
"characters": […], "evolution_reports": […]}. Memories carry the two-animals memory flow's `event` and
`timestamp` names beside curator's own fields.

Versions: 1 had no evolution or appraisal entries, no world `evolution_reports` and no
character `created_at`; such a document imports as characters whose cycles have not run
yet. Import is all or nothing: a malformed value raises `MalformedExport` naming its field
(export_fields.py), and the caller's transaction rolls back.

A memory a designer pinned or wrote carries `pinned: true` / `written_by` (left out
otherwise); hand edits are the character's `memory_edits` (export/edits.py).

Not carried: the turn log, the operations log, the rewinds' set-aside turns and the model
call log. They are the world's record of its input, not what its characters hold; an
imported character's evolution mark is re-based on the importing world's turns
(exporting_evolution.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from curator.domain.config import AppraisalConfig
from curator.domain.errors import MalformedExport, WorldFormatError
from curator.domain.models import (
    Character,
    Memory,
    Relationship,
    Tier,
    iso,
    normalize_character_id,
    parse_time,
)
from curator.export.edits import import_edits_section
from curator.export.evolution import clear_evolution, import_evolution, import_reports
from curator.export.fields import FieldError, at, items, join, mapping, section
from curator.export.knowing import import_groups, import_knowing
from curator.export.lazy import WorldText, character_key
from curator.export.limits import check_texts, clock_of, latest_time
from curator.export.network import clear_network, import_network, with_lens_weights
from curator.recall.blocks import import_blocks
from curator.recall.passages import import_passages
from curator.store.world import World

FORMAT_VERSION = 2  # the version of curator's export documents (the module docstring says what changed)
# A memory's fields as the document names them, where they differ from the model's.
_MEMORY_NAMES = {"content": "event", "created_at": "timestamp"}


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
    if memory.pinned:
        doc["pinned"] = True
    if memory.written_by is not None:
        doc["written_by"] = memory.written_by
    if memory.tier is Tier.ARCHIVED:
        doc["archived_at"] = iso(memory.archived_at) if memory.archived_at else None
        doc["archived_reason"] = memory.archived_reason
    return doc


def character_document(character: Character, archived: list[Memory], as_of: datetime | None, *,
                       blocks: dict[str, Any] | None = None,
                       passages: list[dict[str, Any]] | None = None,
                       sections: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`as_of` is the world clock the strengths were read at; an import fades on from there.
    `blocks` and `passages` come from blocks.blocks_document and passages.passages_document,
    `sections` from exporting_evolution.evolution_document and exporting_network.network_document."""
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
        "character": {"id": character.id, "name": character.name, "persona": character.persona,
                      "created_at": iso(character.created_at) if character.created_at else None},
        "self_memories": {
            "immediate_context": own.immediate_context,
            "recent_events": [memory_document(m) for m in own.recent_events],
            "core_memories": [memory_document(m) for m in own.core_memories],
            "archived": [memory_document(m) for m in archived if m.subject is None],
        },
        "relationships": relationships,
        "blocks": blocks or {"own": [], "attached": []},
        "passages": passages or [],
        **(sections or {}),
    }


def world_document(characters: list[dict[str, Any]], clock: datetime | None,
                   reports: list[dict[str, Any]] | None = None,
                   groups: dict[str, list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """`reports` come from exporting_evolution.reports_document, `groups` from
    export/knowing.groups_document."""
    return dict(world_fields(characters, clock, reports, groups))


def world_fields(characters: Any, clock: datetime | None, reports: Any = None,
                 groups: dict[str, list[dict[str, Any]]] | None = None) -> list[tuple[str, Any]]:
    """A world document's fields in order; `characters` and `reports` may be
    streaming.Streamed (export/streaming.py writes the document a character at a time)."""
    return [("format", "curator.world"), ("format_version", FORMAT_VERSION),
            ("clock", iso(clock) if clock else None), ("characters", characters),
            ("evolution_reports", reports or []), ("groups", groups or {})]


def _memory_from(doc: Mapping[str, Any], owner: str, subject: str | None, tier: Tier,
                 as_of: str | None) -> Memory:
    created = doc.get("timestamp") or doc.get("created_at")
    return Memory.model_validate({
        "id": doc["id"], "owner": owner, "subject": subject, "content": doc["event"],
        "kind": doc.get("kind", "relationship_event" if subject else "process_note"),
        "emotional_impact": doc.get("emotional_impact", "neutral"),
        "valence": doc.get("valence", 0.0), "importance": doc.get("importance", 0.5), "tier": tier,
        "strength": doc.get("strength", 1.0), "recall_count": doc.get("recall_count", 0),
        "last_recalled": doc.get("last_recalled") or created, "created_at": created,
        "strength_at": as_of or doc.get("last_recalled") or created,
        "source_turns": doc.get("source_turns", []), "traits": doc.get("traits", []),
        "place": doc.get("place"), "domain": doc.get("domain"),
        "archived_at": doc.get("archived_at"), "archived_reason": doc.get("archived_reason"),
        "pinned": doc.get("pinned", False), "written_by": doc.get("written_by"),
    })


@dataclass
class Imported:
    """What an import wrote: the characters, and the appraisal configuration with the
    document's lens weights laid over it (the caller keeps it once the import commits)."""

    characters: list[str]
    appraisal: AppraisalConfig


def import_document(world: World, document: Mapping[str, Any], *, replace: bool = False,
                    appraisal: AppraisalConfig | None = None, clock: str | None = None) -> Imported:
    """Write the characters of an export into `world` (inside the caller's transaction: on
    any error nothing of it may be committed). `appraisal` is the importing configuration;
    `clock` the clock to read the document as of, when not its own (limits.clock_of).
    api/importing.py writes a document in batches with the same steps."""
    reading = start_reading(world, document, clock)
    done = Imported([], appraisal or AppraisalConfig())
    for n, doc in enumerate(reading.docs):
        import_one(world, reading, n, doc, replace=replace, done=done)
    finish_reading(world, reading, done)
    return done


def check_header(document: Any) -> str:
    """The document's kind ("curator.world" or "curator.character"), or `MalformedExport`."""
    kind = document.get("format") if isinstance(document, Mapping) else None
    if kind not in ("curator.world", "curator.character"):
        raise MalformedExport(f"not a curator export (format {kind!r})", field="format")
    version = document.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= FORMAT_VERSION:
        raise MalformedExport(f"export format_version {version!r} is not one this curator reads "
                              f"(1..{FORMAT_VERSION})", field="format_version")
    return str(kind)


@dataclass
class Reading:
    """A document as this world reads it: its kind, its character documents and their ids,
    the clocks. `document` is its top-level fields (a WorldText's without its characters)."""

    document: Mapping[str, Any]
    kind: str
    docs: Sequence[Any]
    keys: list[str | None]
    world_clock: datetime | None
    documents_clock: str | None
    clock: str | None


def start_reading(world: World, document: Mapping[str, Any] | WorldText, clock: str | None) -> Reading:
    """Check the document's header, texts and clock against `world` (writing nothing). A
    WorldText's characters were checked as it was read (lazy.read_world)."""
    fields = document.fields if isinstance(document, WorldText) else document
    kind = check_header(fields)
    try:
        check_texts(fields)
        world_clock = world.clock()
        with at("clock"):
            stated = _time(fields.get("clock"))
        latest = latest_time(fields)
        if isinstance(document, WorldText):
            if kind != "curator.world":
                raise FieldError("format", "a document with a characters array is a curator.world")
            docs: Sequence[Any] = document.characters
            keys = document.keys
            latest = max((t for t in (latest, document.latest) if t is not None), default=None)
        else:
            docs = list(items(document, "characters")) if kind == "curator.world" else [document]
            keys = [character_key(doc) for doc in docs]
        documents_clock = clock_of(stated, latest, world_clock, clock, field="clock")
    except FieldError as error:
        raise MalformedExport(error.message, field=error.path or None) from error
    return Reading(fields, kind, docs, keys, world_clock, documents_clock, clock)


def import_one(world: World, reading: Reading, n: int, doc: Any, *, replace: bool,
               done: Imported) -> str | None:
    """Write the `n`th character document of `reading` (inside the caller's transaction);
    returns the time its strengths are as of (`write_one` writes it again with that time)."""
    name: str | None = None
    try:
        with at(where := f"characters.{n}" if reading.kind == "curator.world" else ""):
            doc = mapping(doc)
            name = _name(doc)
            with at("as_of"):
                own = _time(doc.get("as_of"))
            as_of = (clock_of(own, latest_time(doc), _floor(reading), reading.clock, field="as_of")
                     if own is not None or reading.kind == "curator.character" else reading.documents_clock)
    except FieldError as error:
        raise MalformedExport(error.message, field=error.path or None, character=name) from error
    write_one(world, doc, as_of, replace=replace, done=done, where=where)
    return as_of


def write_one(world: World, doc: Mapping[str, Any], as_of: str | None, *, replace: bool, done: Imported,
              where: str = "") -> None:
    """Write one character document whose strengths are as of `as_of` (inside the caller's
    transaction); `where` is its place in the document, for the errors."""
    try:
        with at(where):
            owner = _import_character(world, doc, replace=replace, as_of=as_of)
            done.appraisal = with_lens_weights(done.appraisal, owner, doc)
        done.characters.append(owner)
        _advance_clock(world, as_of)
    except FieldError as error:
        raise MalformedExport(error.message, field=error.path or None, character=_name(doc)) from error


def _name(doc: Mapping[str, Any]) -> str | None:
    info = doc.get("character")
    return str(info.get("id")) if isinstance(info, Mapping) and info.get("id") else None


def finish_reading(world: World, reading: Reading, done: Imported) -> None:
    """The world's parts of a world document (reports, groups), once its characters are in."""
    if reading.kind != "curator.world":
        return
    try:
        import_reports(world, items(reading.document, "evolution_reports"))
        import_groups(world, reading.document.get("groups"), done.characters)
    except FieldError as error:
        raise MalformedExport(error.message, field=error.path or None) from error


def _floor(reading: Reading) -> datetime | None:
    """What a character's `as_of` may not lead by more than a year, besides the times its own
    part holds: the importing world's clock and, in a world document, the document's clock
    (checked against the whole document). A character dormant for more than a year of the
    world's time holds nothing that recent, and its world's own export must import back."""
    floors = [reading.world_clock]
    if reading.kind == "curator.world" and reading.documents_clock:
        floors.append(parse_time(reading.documents_clock))
    return max((f for f in floors if f is not None), default=None)


def _time(value: Any) -> str | None:
    """A document's time as curator writes it (None stays None); a bad one is a ValueError."""
    if value is None:
        return None
    return iso(parse_time(value if isinstance(value, datetime) else str(value)))


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
    info = section(doc, "character")
    with at("character"):
        raw_id = info["id"]
        with at("id"):
            owner = normalize_character_id(str(raw_id))
        with at("created_at"):
            created = _time(info.get("created_at"))
    # A character known only by name (created when another character's memories named it)
    # holds nothing to overwrite.
    holds_memories = world.character_row(owner) is not None and (
        any(world.count_memories(owner).values()) or world.relationship_others(owner))
    if holds_memories and not replace:
        raise WorldFormatError(f"character {owner!r} already exists (use replace to overwrite)")
    # Before the memories go: appraisals know their memory only by id.
    clear_network(world, owner)
    clear_evolution(world, owner)
    if holds_memories:
        world.delete_character_memories(owner)
    seq = world.next_memory_seq()
    seen = datetime.fromisoformat(world.meta("clock") or "1970-01-01T00:00:00+00:00")
    world.ensure_character(owner, seen)
    with at("character"):
        world.set_character(owner, name=str(info.get("name") or owner),
                            persona=str(info.get("persona") or ""))
    if created is not None:
        world.conn.execute("update characters set created_at = ? where id = ?", (created, owner))
    own = section(doc, "self_memories")
    with at("self_memories"):
        world.set_character(owner, immediate_context=str(own.get("immediate_context") or ""))
    batches: list[tuple[str, list[Any], str | None, Tier]] = []
    for key, tier in (("recent_events", Tier.RECENT), ("core_memories", Tier.CORE),
                      ("archived", Tier.ARCHIVED)):
        with at("self_memories"):
            batches.append((f"self_memories.{key}", items(own, key), None, tier))
    with at("relationships"):
        relationships = mapping(doc.get("relationships") or {})
    for other_raw, rel_doc in relationships.items():
        with at(f"relationships.{other_raw}"):
            other = normalize_character_id(str(other_raw))
            rel_doc = mapping(rel_doc)
            world.ensure_character(other, seen)
            world.save_relationship(Relationship.model_validate({
                "owner": owner, "other": other, "immediate_context": rel_doc.get("immediate_context", ""),
                "long_term_summary": rel_doc.get("long_term_summary", ""),
                "current_sentiment": rel_doc.get("current_sentiment", 0.0),
                "overall_bond": rel_doc.get("overall_bond", 0.0),
                "trust": rel_doc.get("trust", 0.5), "rapport": rel_doc.get("rapport", 0.5),
                "interactions": rel_doc.get("interactions", 0), "traits": rel_doc.get("traits", {}),
                "first_met": rel_doc.get("first_met"), "last_interaction": rel_doc.get("last_interaction")}))
            for key, tier in (("recent_memories", Tier.RECENT), ("core_memories", Tier.CORE),
                              ("archived_memories", Tier.ARCHIVED)):
                batches.append((f"relationships.{other_raw}.{key}", items(rel_doc, key), other, tier))
    for path, entries, subject, tier in batches:
        for n, item in enumerate(entries):
            with at(join(path, str(n)), renames=_MEMORY_NAMES):
                memory = _memory_from(mapping(item), owner, subject, tier, as_of)
                if tier is Tier.ARCHIVED:
                    world.insert_archived(memory, seq)
                else:
                    world.insert_memory(memory, seq)
            seq += 1
    at_time = datetime.fromisoformat(as_of) if as_of else seen
    with at("blocks"):
        import_blocks(world, owner, dict(mapping(doc.get("blocks") or {})), at_time)
    passages = items(doc, "passages")
    with at("passages"):
        import_passages(world, owner, passages, at_time)
    import_evolution(world, owner, doc)
    import_network(world, owner, doc)
    import_knowing(world, owner, doc)
    import_edits_section(world, owner, doc)
    return owner
