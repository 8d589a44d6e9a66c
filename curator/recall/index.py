"""The recall indexes: full-text search over a character's memories and their neighbours.

The FTS5 tables and the triggers that keep them in step with `memories`, `memory_archive`,
`relationships` and `passages` are created by migration m004; since m019 a character's new
memories are indexed when its memories are next searched (store/text_index.py). An indexed
memory's rowid is its `seq`, which it keeps when it is archived, so live and archived memories
are searched together. Plain SQL, like store.py; nothing here knows how scores are combined
(recall.py).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, NamedTuple

from curator.domain.models import Memory, MemoryKind, Tier, iso
from curator.store import text_index
from curator.store.rows import SELECT_MEMORY, archived_from_row, memory_from_row
from curator.store.world import World

_dt = datetime.fromisoformat
_MARKED = re.compile("\x01(.*?)\x02", re.S)



_ALL_MEMORIES = (f"{SELECT_MEMORY}, 0, null, null from memories where {{where}} union all "
                 f"{SELECT_MEMORY}, 1, archived_at, archived_reason from memory_archive where {{where}}")
_FACT_COLUMNS = ("seq, subject, content, kind, valence, importance, tier, strength, strength_at, "
                 "recall_count, last_recalled, created_at, pinned or written_by is not null")


class Facts(NamedTuple):
    """What scoring needs of a memory, read without building a `Memory` (recall is hot)."""

    seq: int
    subject: str | None
    content: str
    kind: MemoryKind
    valence: float
    importance: float
    tier: Tier
    strength: float
    strength_at: datetime
    recall_count: int
    last_recalled: datetime
    created_at: datetime
    protected: bool = False  # pinned or written by a designer (m011): it does not fade


def _facts(row: tuple[Any, ...], archived: bool) -> Facts:
    return Facts(int(row[0]), row[1], row[2], MemoryKind(row[3]), row[4], row[5],
                 Tier.ARCHIVED if archived else Tier(row[6]), row[7], _dt(row[8] or row[11]), row[9],
                 _dt(row[10]), _dt(row[11]), bool(row[12]))


def search_memories(world: World, owner: str, match: str, limit: int
                    ) -> list[tuple[int, float, list[str]]]:
    """(seq, score, matched words) of the owner's memories, live or archived, matching an FTS5
    expression, best first; score is bm25 made positive (bigger is better), matched words
    the text's tokens that matched, as written."""
    text_index.bring_up_to_date(world, owner)  # memories formed since its last search
    # FTS5's own rank (bm25 over the text column only): ordering by it skips SQL's sorter.
    rows = world.conn.execute(
        "select rowid, -rank, highlight(memory_fts, 0, char(1), char(2)) from memory_fts "
        "where memory_fts match ? and owner = ? and rank match 'bm25(1.0, 0.0, 0.0)' "
        "order by rank limit ?",
        (f"owner : {_phrase(owner)} AND ({match})", owner, limit)).fetchall()
    return [(int(r[0]), float(r[1]), _MARKED.findall(r[2])) for r in rows]


def memory_count(world: World, owner: str) -> int:
    return int(world.conn.execute(
        "select (select count(*) from memories where owner = ?) + "
        "(select count(*) from memory_archive where owner = ?)", (owner, owner)).fetchone()[0])


def facts_by_seq(world: World, seqs: list[int]) -> dict[int, Facts]:
    """Scoring facts of memories, live or archived, by seq."""
    out: dict[int, Facts] = {}
    for start in range(0, len(seqs), 500):
        chunk = seqs[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        for archived, table in ((False, "memories"), (True, "memory_archive")):
            for row in world.conn.execute(f"select {_FACT_COLUMNS} from {table} where seq in ({marks})",
                                          chunk):
                out[int(row[0])] = _facts(row, archived)
    return out


def memories_by_seq(world: World, seqs: list[int]) -> dict[int, Memory]:
    """Memories (live or archived) by seq; archived ones carry tier ARCHIVED."""
    out: dict[int, Memory] = {}
    for start in range(0, len(seqs), 500):
        chunk = seqs[start:start + 500]
        marks = ", ".join("?" * len(chunk))
        sql = _ALL_MEMORIES.format(where=f"seq in ({marks})")
        for row in world.conn.execute(sql, (*chunk, *chunk)):
            out[int(row[1])] = _with_archive(row)
    return out


def neighbours_of(world: World, owner: str, seqs: list[int], count: int) -> dict[int, list[int]]:
    """The seqs of the owner's `count` memories (live or archived) just before and just after
    each of `seqs`, in seq order: one statement for all of them (recall asks for a few dozen)."""
    if not seqs:
        return {}
    around = " ".join(
        f", (select group_concat(seq) from (select seq from {table} where owner = :owner "
        f"and seq {op} seeds.seq order by seq {order} limit :count))"
        for table in ("memories", "memory_archive") for op, order in (("<", "desc"), (">", "asc")))
    rows = world.conn.execute(
        f"with seeds(seq) as (select value from json_each(:seeds)) select seeds.seq {around} from seeds",
        {"owner": owner, "count": count, "seeds": json.dumps(seqs)}).fetchall()
    out: dict[int, list[int]] = {}
    for seq, *lists in rows:
        found = [int(s) for joined in lists if joined for s in joined.split(",")]
        before = sorted((s for s in found if s < seq), reverse=True)[:count]
        after = sorted(s for s in found if s > seq)[:count]
        out[int(seq)] = sorted(before + after)
    return out


def domain_seqs(world: World, owner: str, domain: str, limit: int) -> list[int]:
    """The seqs of the owner's newest memories, live or archived, that the game filed under
    `domain` (compared without case), newest first."""
    found: list[int] = []
    for table in ("memories", "memory_archive"):
        found += [r[0] for r in world.conn.execute(
            f"select seq from {table} where owner = ? and domain = ? collate nocase "
            "order by seq desc limit ?",
            (owner, domain.strip(), limit))]
    return sorted(found, reverse=True)[:limit]


def latest_seqs(world: World, owner: str, limit: int) -> list[int]:
    """The seqs of the owner's newest memories, live or archived, newest first; not those a
    designer forgot (api/editing.py)."""
    found: list[int] = []
    for table, kept in (("memories", ""),
                        ("memory_archive", "and archived_reason is not 'forgotten_by_designer'")):
        found += [r[0] for r in world.conn.execute(
            f"select seq from {table} where owner = ? {kept} order by seq desc limit ?", (owner, limit))]
    return sorted(found, reverse=True)[:limit]


def scene_seqs(world: World, owner: str, subjects: list[str | None], per_tier: int) -> dict[int, str]:
    """The owner's newest `per_tier` recent and core memories about each subject (None: the
    self): seq → "core" or "recent"."""
    out: dict[int, str] = {}
    for subject in subjects:
        for tier in (Tier.CORE, Tier.RECENT):
            for row in world.conn.execute(
                    "select seq from memories where owner = ? and subject is ? and tier = ? "
                    "order by seq desc limit ?", (owner, subject, tier.value, per_tier)):
                out[int(row[0])] = tier.value
    return out


def _with_archive(row: tuple[Any, ...]) -> Memory:
    """A row of _ALL_MEMORIES: the memory's columns, an archived flag, archived_at and reason."""
    return archived_from_row(row[:-3] + row[-2:]) if row[-3] else memory_from_row(row[:-3])


def set_recall_state(world: World, memories: list[Memory]) -> None:
    """Write the four columns a recall changes (none indexed), live or archived."""
    for table, archived in (("memories", False), ("memory_archive", True)):
        rows = [(m.strength, iso(m.strength_at or m.last_recalled), m.recall_count, iso(m.last_recalled),
                 m.id) for m in memories if (m.tier is Tier.ARCHIVED) == archived]
        if rows:
            world.conn.executemany(f"update {table} set strength = ?, strength_at = ?, recall_count = ?, "
                                   "last_recalled = ? where id = ?", rows)


def _phrase(text: str) -> str:
    """Text as one quoted FTS5 phrase (quotes doubled), safe whatever it holds."""
    return '"' + text.replace('"', '""') + '"'
