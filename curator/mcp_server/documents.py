"""What the MCP server answers with: JSON documents of the API's results, and MCP errors.

Every resource and tool answers with a JSON object (a list is wrapped in one: a tool's
structured output must be an object). `mcp_error` turns a `CuratorError` into the SDK's
`MCPError`: bad input and unknown names are `INVALID_PARAMS` (-32602), anything else
`INTERNAL_ERROR` (-32603); the message is the typed error's own, and `data` names its type,
the CLI's exit status for it (2 bad input, 3 locked world, 1 other) and the offending field.
"""

from __future__ import annotations

from typing import Any

from mcp import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from curator.domain.errors import CuratorError, InvalidInput
from curator.domain.models import Character, Memory, Relationship
from curator.recall.context import MemoryContext
from curator.recall.ranking import Recalled


def mcp_error(error: CuratorError) -> MCPError:
    """The MCP error for a typed error, carrying its message."""
    refused = isinstance(error, InvalidInput) or error.exit_code == 2 or type(error).__name__.startswith(
        "Unknown")
    data: dict[str, Any] = {"error": type(error).__name__, "exit_code": error.exit_code}
    field = getattr(error, "field", None)
    if field is not None:
        data["field"] = field
    return MCPError(code=INVALID_PARAMS if refused else INTERNAL_ERROR, message=str(error), data=data)


def memory_document(memory: Memory) -> dict[str, Any]:
    return {"id": memory.id, "subject": memory.subject, "content": memory.content,
            "kind": memory.kind.value, "tier": memory.tier.value, "importance": memory.importance,
            "valence": memory.valence, "strength": round(memory.strength, 4),
            "created_at": memory.created_at.isoformat(), "source_turns": memory.source_turns}


def hit_document(hit: Recalled) -> dict[str, Any]:
    return {**memory_document(hit.memory), "score": hit.score, "found_by": hit.sources}


def _relationship(rel: Relationship) -> dict[str, Any]:
    return {"other": rel.other, "summary": rel.long_term_summary, "immediate_context": rel.immediate_context,
            "sentiment": rel.current_sentiment, "bond": rel.overall_bond, "trust": rel.trust,
            "rapport": rel.rapport, "interactions": rel.interactions, "traits": rel.traits,
            "first_met": rel.first_met.isoformat() if rel.first_met else None,
            "last_interaction": rel.last_interaction.isoformat() if rel.last_interaction else None,
            "recent_count": len(rel.recent_memories), "core_count": len(rel.core_memories)}


def relationships_document(character: Character) -> dict[str, Any]:
    return {"character": character.id,
            "relationships": [_relationship(r) for r in character.relationships.values()]}


def tier_document(character: Character, tier: str) -> dict[str, Any]:
    """The character's recent (or core) memories: of itself, then about each other character."""
    own = character.self_memories
    memories = list(own.recent_events if tier == "recent" else own.core_memories)
    for rel in character.relationships.values():
        memories.extend(rel.recent_memories if tier == "recent" else rel.core_memories)
    memories.sort(key=lambda m: m.created_at)
    return {"character": character.id, "tier": tier, "memories": [memory_document(m) for m in memories]}


def character_document(character: Character, counts: dict[str, int], about: str | None) -> dict[str, Any]:
    """What `curator show` shows: persona, self, relationships with their memories."""
    rels = [r for r in character.relationships.values() if about is None or r.other == about]
    own = character.self_memories
    return {"character": character.id, "name": character.name, "persona": character.persona,
            "counts": counts,
            "self": {"immediate_context": own.immediate_context,
                     "recent": [memory_document(m) for m in own.recent_events],
                     "core": [memory_document(m) for m in own.core_memories]},
            "relationships": [{**_relationship(r), "recent": [memory_document(m) for m in r.recent_memories],
                               "core": [memory_document(m) for m in r.core_memories]} for r in rels]}


def context_document(ctx: MemoryContext) -> dict[str, Any]:
    return {"character": ctx.character, "situation": ctx.situation, "text": ctx.text, "tokens": ctx.tokens,
            "max_tokens": ctx.max_tokens, "items": [f"{i.section}:{i.key}" for i in ctx.items],
            "dropped": len(ctx.dropped), "recalled": ctx.recalled, "peek": ctx.peek}
