"""Who knows what, in the world file: each memory's source row (`memory_sources`), the groups
characters belong to (`group_members`) and what each group holds (`group_knowledge`), all made
by m012 (m012_knowing.py). The words and the confidence rule are domain/knowing.py's; telling
is turn/hearsay.py's; this module only reads and writes rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from curator.domain.knowing import FORGOTTEN_TELLER, Provenance
from curator.domain.models import Memory, iso
from curator.store.visibility import STAGED
from curator.store.world import World

_SOURCE = "select memory_id, origin, confidence, hops, mouths, about, told_in, held_by from memory_sources"


def _provenance(row: tuple[Any, ...]) -> Provenance:
    return Provenance(origin=row[1], confidence=row[2], hops=row[3], mouths=json.loads(row[4] or "[]"),
                      about=row[5], told_in=row[6], group=row[7])


def stamp_perceived(world: World, *, turn_id: str, actor: str, since_seq: int) -> None:
    """Give every memory formed at this turn (seq ≥ `since_seq`, live or already archived) that
    has no source row one: 'did' for the actor's, 'witnessed' for an observer's."""
    world.conn.execute(
        "insert or ignore into memory_sources (memory_id, owner, origin, confidence, hops, mouths, about) "
        "select id, owner, case when owner = ?1 then 'did' else 'witnessed' end, 1.0, 0, '[]', ?2 "
        "from (select id, owner from memories where seq >= ?3 "
        "union all select id, owner from memory_archive where seq >= ?3)",
        (actor, turn_id, since_seq))


def record(world: World, memory_id: str, owner: str, source: Provenance) -> None:
    """Write (or replace) one memory's source row."""
    world.conn.execute(
        "insert or replace into memory_sources (memory_id, owner, origin, confidence, hops, mouths, "
        "about, told_in, held_by) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (memory_id, owner, source.origin, source.confidence, source.hops, json.dumps(source.mouths),
         source.about, source.told_in, source.group))


def sources(world: World, memory_ids: Iterable[str]) -> dict[str, Provenance]:
    """The source rows of these memories (those that have one), by memory id."""
    ids = list(dict.fromkeys(memory_ids))
    found: dict[str, Provenance] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        for row in world.conn.execute(f"{_SOURCE} where memory_id in ({', '.join('?' * len(chunk))})",
                                      chunk):
            found[row[0]] = _provenance(row)
    return found


def sources_of(world: World, owner: str) -> dict[str, Provenance]:
    """Every source row of one character's memories, by memory id, in id order."""
    return {row[0]: _provenance(row) for row in world.conn.execute(
        f"{_SOURCE} where owner = ? order by memory_id", (owner,))}



def logged_payload(world: World, turn_id: str) -> dict[str, Any] | None:
    """A logged turn's payload (the turn as the game sent it), if it is logged."""
    row = world.conn.execute("select payload from turns where id = ?", (turn_id,)).fetchone()
    return json.loads(row[0]) if row else None


def hearsay_of(world: World, owner: str, turn_id: str) -> list[tuple[Memory, Provenance]]:
    """The owner's memories of a turn it was told about (or heard a rumour of), fewest mouths first."""
    rows = world.conn.execute(f"{_SOURCE} where owner = ? and about = ? and origin in ('told', 'rumour') "
                              "order by hops, memory_id", (owner, turn_id)).fetchall()
    found = []
    for row in rows:
        memory = world.find_memory(row[0])
        if memory is not None:
            found.append((memory, _provenance(row)))
    return found


def perceived_memories(world: World, owner: str, turn_id: str) -> list[Memory]:
    """The owner's own memories formed at a turn it perceived (did or witnessed)."""
    ids = [r[0] for r in world.conn.execute(
        "select memory_id from memory_sources where owner = ? and about = ? and origin in "
        "('did', 'witnessed') order by memory_id", (owner, turn_id))]
    return [m for m in (world.find_memory(i) for i in ids) if m is not None]


# -- groups ---------------------------------------------------------------------------------

def join_group(world: World, group: str, characters: list[str], at: datetime) -> list[str]:
    """Add characters to a group; the ones that were not in it yet, in order."""
    new = [c for c in characters if world.conn.execute(
        "select 1 from group_members where grp = ? and character = ?", (group, c)).fetchone() is None]
    world.conn.executemany("insert into group_members (grp, character, since) values (?, ?, ?)",
                           [(group, c, iso(at)) for c in new])
    return new


def leave_group(world: World, group: str, characters: list[str]) -> int:
    marks = ", ".join("?" * len(characters))
    return world.conn.execute(f"delete from group_members where grp = ? and character in ({marks})",
                              (group, *characters)).rowcount


def members(world: World, group: str) -> list[str]:
    return [r[0] for r in world.conn.execute(
        f"select character from group_members where grp = ? and character not in {STAGED} "
        "order by character", (group,))]


def groups_of(world: World, character: str) -> list[str]:
    return [r[0] for r in world.conn.execute(
        "select grp from group_members where character = ? order by grp", (character,))]


def group_names(world: World) -> list[str]:
    return [r[0] for r in world.conn.execute(
        f"select grp from group_members where character not in {STAGED} "
        "union select grp from group_knowledge order by 1")]


def add_knowledge(world: World, group: str, content: str, *, subject: str | None, kind: str,
                  importance: float, at: datetime) -> int:
    cur = world.conn.execute(
        "insert into group_knowledge (grp, content, subject, kind, importance, added_at) "
        "values (?, ?, ?, ?, ?, ?)", (group, content, subject, kind, importance, iso(at)))
    assert cur.lastrowid is not None
    return cur.lastrowid


def knowledge(world: World, group: str) -> list[dict[str, Any]]:
    """What a group holds, oldest first: id, content, subject, kind, importance, added_at."""
    keys = ("id", "content", "subject", "kind", "importance", "added_at")
    return [dict(zip(keys, row, strict=True)) for row in world.conn.execute(
        "select id, content, subject, kind, importance, added_at from group_knowledge where grp = ? "
        "order by id", (group,))]


def holders(world: World, group: str, knowledge_id: int) -> list[str]:
    """Who holds one piece of a group's knowledge as a memory of its own."""
    return [r[0] for r in world.conn.execute(
        "select owner from memory_sources where held_by = ? and told_in = ? order by owner",
        (group, f"group:{group}:{knowledge_id}"))]


def forget_teller(world: World, character: str) -> int:
    """A character is deleted: the others' hearsay keeps the chain of who told it (its length
    is the hops, and the confidence), with the character's place in it said as "someone"
    (`FORGOTTEN_TELLER`). Returns the sources rewritten; call inside the deletion's transaction."""
    rows = world.conn.execute("select rowid, mouths from memory_sources where mouths like ?",
                              (f'%"{character}"%',)).fetchall()
    changed = 0
    for rowid, mouths in rows:
        chain = json.loads(mouths)
        if character in chain:
            chain = [FORGOTTEN_TELLER if m == character else m for m in chain]
            world.conn.execute("update memory_sources set mouths = ? where rowid = ?",
                               (json.dumps(chain), rowid))
            changed += 1
    return changed
