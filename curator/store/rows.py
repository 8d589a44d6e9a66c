"""A memory as a row of `memories` or `memory_archive`, and back (store.py writes them, index.py
and evolution read them directly).

Rows were validated when they were written, so a row becomes a `Memory` without being
validated again (`construct.trusted`): a turn loads every memory of every thread it touches.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from curator.domain.construct import trusted
from curator.domain.models import Memory, MemoryKind, Tier, iso

MEMORY_FIELDS = ("id", "seq", "owner", "subject", "content", "kind", "emotional_impact", "valence",
                 "importance", "tier", "strength", "strength_at", "recall_count", "last_recalled",
                 "created_at", "source_turns", "traits", "place", "domain", "pinned", "written_by")
SELECT_MEMORY = "select " + ", ".join(MEMORY_FIELDS)
_dt = datetime.fromisoformat


def memory_row(memory: Memory, seq: int) -> tuple[Any, ...]:
    return (memory.id, seq, memory.owner, memory.subject, memory.content, memory.kind.value,
            memory.emotional_impact, memory.valence, memory.importance, memory.tier.value,
            memory.strength, iso(memory.strength_at or memory.created_at), memory.recall_count,
            iso(memory.last_recalled), iso(memory.created_at), json.dumps(memory.source_turns),
            json.dumps(memory.traits), memory.place, memory.domain, int(memory.pinned), memory.written_by)


def archived_from_row(row: tuple[Any, ...]) -> Memory:
    """An archive row: the memory's columns, then archived_at and archived_reason."""
    memory = memory_from_row(row[:-2])
    memory.tier = Tier.ARCHIVED
    memory.archived_at = _dt(row[-2]) if row[-2] else None
    memory.archived_reason = row[-1]
    return memory


def memory_from_row(row: tuple[Any, ...]) -> Memory:
    return trusted(Memory, {  # in the model's field order, as model_construct would
        "id": row[0], "owner": row[2], "subject": row[3], "content": row[4], "kind": MemoryKind(row[5]),
        "emotional_impact": row[6], "valence": row[7], "importance": row[8], "tier": Tier(row[9]),
        "strength": row[10], "recall_count": row[12], "last_recalled": _dt(row[13]),
        "created_at": _dt(row[14]), "strength_at": _dt(row[11]) if row[11] else None,
        "source_turns": _list(row[15]), "traits": _list(row[16]), "place": row[17], "domain": row[18],
        "archived_at": None, "archived_reason": None, "pinned": bool(row[19]), "written_by": row[20]})


def _list(text: str | None) -> list[Any]:
    # Most memories have no traits and one source turn: '[]' needs no JSON parser.
    return json.loads(text) if text and text != "[]" else []

