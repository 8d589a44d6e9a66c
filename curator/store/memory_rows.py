"""Memory rows: the reads and writes of live memories and the archive, for `World`.

A mixin of `World` (world.py), which is the one place a caller speaks to; it is apart only to
keep each module to one concept. It knows the memory tables and their indexes, nothing of the
turn that writes them.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from curator.domain.errors import WorldFormatError
from curator.domain.models import Memory, Tier, iso
from curator.store.rows import MEMORY_FIELDS, SELECT_MEMORY, archived_from_row, memory_from_row, memory_row
from curator.store.visibility import STAGED

# The live row as it is, but for its strength and tier as the caller has them now (faded).
_ARCHIVE = (f"insert into memory_archive ({', '.join(MEMORY_FIELDS)}, archived_at, archived_reason) select "
            + ", ".join(f":{f}" if f in ("strength", "tier") else f for f in MEMORY_FIELDS)
            + ", :at, :reason from memories where id = :id")
_CURATED = "pinned = 0 and written_by is null"  # what curation may fade, push out or consolidate


class MemoryRows:
    """The memory and archive tables of a world's connection."""

    conn: sqlite3.Connection

    def memories(self, owner: str, subject: str | None, tier: Tier) -> list[Memory]:
        """Memories of one tier about one subject (None: the self), oldest first."""
        rows = self.conn.execute(
            f"{SELECT_MEMORY} from memories where owner = ? and subject is ? and tier = ? "
            "order by seq", (owner, subject, tier.value)).fetchall()
        return [memory_from_row(row) for row in rows]

    def find_memory(self, memory_id: str) -> Memory | None:
        """A memory by id, live or archived (it keeps its id when archived)."""
        row = self.conn.execute(f"{SELECT_MEMORY} from memories where id = ?", (memory_id,)).fetchone()
        if row is not None:
            return memory_from_row(row)
        row = self.conn.execute(f"{SELECT_MEMORY}, archived_at, archived_reason from memory_archive "
                                "where id = ?", (memory_id,)).fetchone()
        return None if row is None else archived_from_row(row)

    def live_memories(self, owner: str, subject: str | None) -> tuple[list[Memory], list[Memory]]:
        """The recent and the core memories about one subject, oldest first: one statement
        where `memories` takes two (a turn loads these for every thread of every perceiver)."""
        recent: list[Memory] = []
        core: list[Memory] = []
        # "+seq": sort the few rows of (owner, subject) found by its index; the planner would
        # otherwise walk all the owner's memories in seq order to skip the sort (3x slower).
        # Pinned and designer-written memories (m011) stand apart from curation: a turn never
        # fades, pushes out, consolidates or supersedes them. Recall and export read them.
        for row in self.conn.execute(f"{SELECT_MEMORY} from memories where owner = ? and subject is ? "
                                     f"and {_CURATED} order by +seq", (owner, subject)):
            (recent if row[9] == "recent" else core).append(memory_from_row(row))
        return recent, core

    def recent_memories_before(self, until: datetime, *, after: int = 0,
                               limit: int | None = None) -> Iterator[tuple[int, Memory]]:
        """Every recent-tier memory whose strength was last set before `until` (for fading),
        with its seq, in seq order from the first after `after`; with `limit`, the first
        `limit` of them. Fading walks the memories a batch at a time from where the last
        batch ended: starting each batch over from the first seq skipped, row by row, every
        memory the batches before had faded (a batch took up to 440 ms at 200,000 memories)."""
        rows = self.conn.execute(
            f"{SELECT_MEMORY} from memories where seq > ? and tier = 'recent' and strength_at < ? "
            f"and {_CURATED} and owner not in {STAGED} order by seq limit ?",
            (after, iso(until), -1 if limit is None else limit)).fetchall()
        return ((row[1], memory_from_row(row)) for row in rows)

    def archived_memories(self, owner: str, subject: str | None = None, *,
                          any_subject: bool = False) -> list[Memory]:
        where = "owner = ?" if any_subject else "owner = ? and subject is ?"
        params: tuple[Any, ...] = (owner,) if any_subject else (owner, subject)
        rows = self.conn.execute(
            f"{SELECT_MEMORY}, archived_at, archived_reason from memory_archive where {where} "
            "order by seq", params).fetchall()
        return [archived_from_row(row) for row in rows]

    def count_memories(self, owner: str) -> dict[str, int]:
        counts = {t.value: 0 for t in Tier}
        for tier, n in self.conn.execute(
                "select tier, count(*) from memories where owner = ? group by tier", (owner,)):
            counts[tier] = n
        counts["archived"] = int(self.conn.execute(
            "select count(*) from memory_archive where owner = ?", (owner,)).fetchone()[0])
        return counts

    def insert_memory(self, memory: Memory, seq: int) -> None:
        self.conn.execute(
            f"insert into memories ({', '.join(MEMORY_FIELDS)}) values "
            f"({', '.join('?' * len(MEMORY_FIELDS))})", memory_row(memory, seq))

    def update_memory(self, memory: Memory) -> None:
        self.conn.execute(
            "update memories set content = ?, kind = ?, emotional_impact = ?, valence = ?, importance = ?, "
            "tier = ?, strength = ?, strength_at = ?, recall_count = ?, last_recalled = ?, source_turns = ?, "
            "traits = ? where id = ?",
            (memory.content, memory.kind.value, memory.emotional_impact, memory.valence,
             memory.importance, memory.tier.value, memory.strength,
             iso(memory.strength_at or memory.last_recalled), memory.recall_count,
             iso(memory.last_recalled), json.dumps(memory.source_turns), json.dumps(memory.traits),
             memory.id))

    def set_strength(self, memory: Memory) -> None:
        """Only what fading changes, for every recent memory of the world (`update_memory`: ~3x)."""
        self.conn.execute("update memories set strength = ?, strength_at = ? where id = ?",
                          (memory.strength, iso(memory.strength_at or memory.last_recalled), memory.id))

    def archive_memory(self, memory: Memory, *, reason: str, at: datetime) -> None:
        """Move a memory to the archive: never deleted, only out of the live tiers."""
        cur = self.conn.execute(_ARCHIVE, {"strength": memory.strength, "tier": memory.tier.value,
                                           "at": iso(at), "reason": reason, "id": memory.id})
        if cur.rowcount != 1:
            raise WorldFormatError(f"memory {memory.id} is not in the live tiers")
        self.conn.execute("delete from memories where id = ?", (memory.id,))
        memory.archived_at, memory.archived_reason = at, reason
        memory.tier = Tier.ARCHIVED

    def insert_archived(self, memory: Memory, seq: int) -> None:
        row = memory_row(memory, seq)
        self.conn.execute(
            f"insert into memory_archive ({', '.join(MEMORY_FIELDS)}, archived_at, archived_reason) "
            f"values ({', '.join('?' * (len(MEMORY_FIELDS) + 2))})",
            (*row, iso(memory.archived_at) if memory.archived_at else None, memory.archived_reason))

    def next_memory_seq(self) -> int:
        row = self.conn.execute(
            "select max(coalesce((select max(seq) from memories), 0), "
            "coalesce((select max(seq) from memory_archive), 0)) + 1").fetchone()
        return int(row[0])
