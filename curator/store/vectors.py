"""Embedding vectors in the world file: which memories and passages lack one, saving and reading.

Tables of migration m014. A memory's vector is keyed by its seq (kept when it is archived,
so live and archived memories are searched together) and carries the memory's id: a vector
whose id no longer matches the memory at its seq is ignored and made again. Each row names
the embedder that made it; rows of another embedder count as missing, so a change of model
embeds again. Vectors are float32, little-endian, as bytes. Plain SQL; the embedding itself
is recall's (semantic.py), never inside a turn's transaction.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from typing import NamedTuple

from curator.store.visibility import STAGED
from curator.store.world import World

EMBEDDER_KEY = "embedder"  # meta: the world's embedder spec (model/embedders.py), absent: off


class Pending(NamedTuple):
    """A memory or passage without a vector of the current embedder."""

    key: int  # memory seq or passage id
    memory_id: str  # "" for a passage
    owner: str
    subject: str | None
    content: str


def pack(vector: Sequence[float]) -> bytes:
    values = array("f", vector)
    if sys.byteorder != "little":
        values.byteswap()
    return values.tobytes()


_MISSING = ("not exists (select 1 from memory_vectors v where v.seq = {alias}.seq "
            "and v.memory_id = {alias}.id and v.model = :model)")


def pending_memories(world: World, model: str, owner: str | None, limit: int) -> list[Pending]:
    """Up to `limit` memories (live or archived; of `owner`, or anyone's) lacking a vector of
    `model`, oldest first."""
    # Not the memories of an import under way (visibility.py): they are not the world's yet.
    where = f" and owner not in {STAGED}" if owner is None else " and owner = :owner"
    found: list[Pending] = []
    for table, alias in (("memories", "memories"), ("memory_archive", "memory_archive")):
        rows = world.conn.execute(
            f"select seq, id, owner, subject, content from {table} where "
            f"{_MISSING.format(alias=alias)}{where} order by seq limit :limit",
            {"model": model, "owner": owner, "limit": limit}).fetchall()
        found += [Pending(int(r[0]), r[1], r[2], r[3], r[4]) for r in rows]
    return sorted(found)[:limit]


def pending_passages(world: World, model: str, owner: str | None, limit: int) -> list[Pending]:
    """Up to `limit` passages lacking a vector of `model`, oldest first."""
    where = f" and p.owner not in {STAGED}" if owner is None else " and p.owner = :owner"
    rows = world.conn.execute(
        "select p.id, p.owner, p.content from passages p where not exists (select 1 from passage_vectors v "
        f"where v.passage_id = p.id and v.model = :model){where} order by p.id limit :limit",
        {"model": model, "owner": owner, "limit": limit}).fetchall()
    return [Pending(int(r[0]), "", r[1], None, r[2]) for r in rows]


def save_memory_vectors(world: World, model: str, rows: list[tuple[Pending, bytes]]) -> None:
    world.conn.executemany(
        "insert or replace into memory_vectors (seq, memory_id, owner, model, vector) values (?, ?, ?, ?, ?)",
        [(p.key, p.memory_id, p.owner, model, blob) for p, blob in rows])


def save_passage_vectors(world: World, model: str, rows: list[tuple[Pending, bytes]]) -> None:
    world.conn.executemany(
        "insert or replace into passage_vectors (passage_id, owner, model, vector) values (?, ?, ?, ?)",
        [(p.key, p.owner, model, blob) for p, blob in rows])


def memory_vectors(world: World, owner: str, model: str) -> list[tuple[int, bytes]]:
    """(seq, vector bytes) of the owner's memories, live or archived, embedded by `model`."""
    return [(int(r[0]), r[1]) for r in world.conn.execute(
        "select v.seq, v.vector from memory_vectors v where v.owner = ?1 and v.model = ?2 and ("
        "exists (select 1 from memories m where m.seq = v.seq and m.id = v.memory_id) or "
        "exists (select 1 from memory_archive a where a.seq = v.seq and a.id = v.memory_id))",
        (owner, model))]


def passage_vectors(world: World, owner: str, model: str) -> list[tuple[int, bytes]]:
    """(passage id, vector bytes) of the owner's passages embedded by `model`."""
    return [(int(r[0]), r[1]) for r in world.conn.execute(
        "select passage_id, vector from passage_vectors where owner = ? and model = ?", (owner, model))]


def prune(world: World) -> int:
    """Delete the vectors of memories that are gone (a deleted character's, an import's
    replaced ones); returns how many. Call inside a transaction."""
    cur = world.conn.execute(
        "delete from memory_vectors where not exists (select 1 from memories m where m.seq = "
        "memory_vectors.seq and m.id = memory_vectors.memory_id) and not exists (select 1 from "
        "memory_archive a where a.seq = memory_vectors.seq and a.id = memory_vectors.memory_id)")
    return int(cur.rowcount or 0)


def vector_counts(world: World, model: str | None) -> dict[str, int]:
    """How many memories and passages there are, and how many have a vector of `model`."""
    one = world.conn.execute
    memories = int(one(f"select (select count(*) from memories where owner not in {STAGED}) + "
                       f"(select count(*) from memory_archive where owner not in {STAGED})").fetchone()[0])
    passages = int(one(f"select count(*) from passages where owner not in {STAGED}").fetchone()[0])
    embedded = stored = 0
    if model is not None:
        embedded = int(one("select count(*) from memory_vectors where model = ?", (model,)).fetchone()[0])
        stored = int(one("select count(*) from passage_vectors where model = ?", (model,)).fetchone()[0])
    return {"memories": memories, "memories_embedded": embedded, "passages": passages,
            "passages_embedded": stored}
