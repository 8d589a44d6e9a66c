"""Migrations: the world database's schema, one numbered function per change (sqlite-utils Migrations).

Never edit a migration that has shipped; add the next one. `store.open_world` backs the
file up before applying any migration to a world that already has data.
"""

from __future__ import annotations

from typing import Any

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

FORMAT_VERSION = 1  # the version of curator's export documents
migrations = Migrations("curator")

_MEMORY_COLUMNS: dict[str, Any] = {
    "id": str, "seq": int, "owner": str, "subject": str, "content": str, "kind": str,
    "emotional_impact": str, "valence": float, "importance": float, "tier": str,
    "strength": float, "strength_at": str, "recall_count": int, "last_recalled": str,
    "created_at": str, "source_turns": str, "traits": str, "place": str, "domain": str,
}


@migrations()
def m001_initial(db: Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")
    db.table("characters").create(
        {"id": str, "name": str, "persona": str, "immediate_context": str, "created_at": str,
         "last_seen": str},
        pk="id", not_null={"name"}, defaults={"persona": "", "immediate_context": ""})
    db.table("relationships").create(
        {"owner": str, "other": str, "immediate_context": str, "long_term_summary": str,
         "current_sentiment": float, "overall_bond": float, "interactions": int, "traits": str,
         "first_met": str, "last_interaction": str},
        pk=("owner", "other"),
        foreign_keys=[("owner", "characters", "id"), ("other", "characters", "id")])
    db.table("memories").create(_MEMORY_COLUMNS, pk="id", not_null={"owner", "content", "kind", "tier"},
                          foreign_keys=[("owner", "characters", "id")])
    db.table("memories").create_index(["owner", "subject", "tier", "seq"])
    db.table("memory_archive").create({**_MEMORY_COLUMNS, "archived_at": str, "archived_reason": str},
                                pk="id", foreign_keys=[("owner", "characters", "id")])
    db.table("memory_archive").create_index(["owner", "subject", "seq"])
    db.table("turns").create(
        {"id": str, "seq": int, "world_time": str, "digest": str, "payload": str, "result": str,
         "received_at": str},
        pk="id", not_null={"seq", "world_time", "digest", "payload"})
    db.table("turns").create_index(["seq"], unique=True)


@migrations()
def m002_sequence_indexes(db: Database) -> None:
    # next_memory_seq() takes max(seq) on every turn; without these it scans a growing index.
    db.table("memories").create_index(["seq"])
    db.table("memory_archive").create_index(["seq"])


@migrations()
def m003_model_calls(db: Database) -> None:
    # One row per model call (a step asked of a model, its retries included), like llm's log.
    db.table("calls").create(
        {"id": str, "seq": int, "turn_id": str, "character": str, "step": str, "template": str,
         "template_hash": str, "model": str, "messages": str, "response": str, "decision": str,
         "error": str, "outcome": str, "reason": str, "attempts": int, "prompt_tokens": int,
         "completion_tokens": int, "cost": float, "latency_ms": float, "started_at": str},
        pk="id", not_null={"seq", "step", "model", "outcome"})
    db.table("calls").create_index(["seq"], unique=True)
    db.table("calls").create_index(["turn_id"])
