"""The world store: one SQLite file per world, spoken to in the domain's words.

It owns the reads and writes of characters, relationships and the turn log, and through
`MemoryRows` (memory_rows.py) those of memories and the archive; the per-turn transaction is
transactions.py's. It knows nothing of prompts or decisions. The hot path uses plain SQL on
sqlite-utils' connection for speed. Opening a file (pragmas, migrations with a backup first)
is opening.py's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from curator.domain.construct import trusted
from curator.domain.errors import InvalidInput, UnknownCharacter
from curator.domain.models import (
    Memory,
    Relationship,
    display_name,
    iso,
    normalize_character_id,
)
from curator.store.memory_rows import MemoryRows
from curator.store.rows import SELECT_MEMORY, memory_from_row
from curator.store.transactions import Transactions
from curator.store.visibility import SEEN, Visibility

_GONE = ("(not exists (select 1 from memories where id = {column}) "
         "and not exists (select 1 from memory_archive where id = {column}))")
_dt = datetime.fromisoformat


class World(MemoryRows, Visibility, Transactions):
    """A world database, spoken to in the domain's words. Every multi-row write happens
    inside `transaction()` (transactions.py)."""

    # -- the clock and the turn log ----------------------------------------------------

    def meta(self, key: str) -> str | None:
        if key == "clock" and (kept := self.staged_clock()) is not None:
            return kept  # an import's clock, until its last transaction (visibility.py)
        row = self.conn.execute("select value from meta where key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        if key == "clock" and self.keep_clock(value):
            return
        self.conn.execute("insert into meta (key, value) values (?, ?) on conflict(key) do update "
                          "set value = excluded.value", (key, value))

    def clock(self) -> datetime | None:
        value = self.meta("clock")
        return None if value is None else _dt(value)

    # A rebuild replaying an operation made before the first turn sets this to the wall time the
    # operation was made at (api/replay.py), so what it stamps is stamped as it was.
    wall: datetime | None = None

    def now(self) -> datetime:
        """What time it is for a write: the world clock once a turn has set it, else UTC now."""
        return self.clock() or self.wall or datetime.now(UTC)

    def character_clocks(self, ids: list[str]) -> dict[str, datetime]:
        """The clocks of those of `ids` that have one: the time of the last turn each perceived."""
        marks = ", ".join("?" * len(ids))
        return {r[0]: _dt(r[1]) for r in self.conn.execute(
            f"select id, clock from characters where id in ({marks}) and clock is not null", ids)}

    def advance_clocks(self, ids: list[str], to: datetime) -> None:
        """Set these characters' clocks, and the world's if `to` is later: the world clock is the
        latest time any writer has reached, and never goes back."""
        marks = ", ".join("?" * len(ids))
        self.conn.execute(f"update characters set clock = ? where id in ({marks})", (iso(to), *ids))
        clock = self.clock()
        if clock is None or to > clock:
            self.set_meta("clock", iso(to))

    def logged_turn(self, turn_id: str) -> tuple[str, str | None] | None:
        row = self.conn.execute("select digest, result from turns where id = ?", (turn_id,)).fetchone()
        return None if row is None else (row[0], row[1])

    def next_turn_seq(self) -> int:
        return int(self.conn.execute("select coalesce(max(seq), 0) + 1 from turns").fetchone()[0])

    def log_turn(self, *, turn_id: str, seq: int, world_time: datetime, digest: str, payload: str,
                 result: str, received_at: str) -> None:
        self.conn.execute(
            "insert into turns (id, seq, world_time, digest, payload, result, received_at) "
            "values (?, ?, ?, ?, ?, ?, ?)",
            (turn_id, seq, iso(world_time), digest, payload, result, received_at))

    def turn_count(self) -> int:
        return int(self.conn.execute("select count(*) from turns").fetchone()[0])

    def turn_texts(self, turn_id: str) -> tuple[str, str] | None:
        """What the actor of a logged turn meant to do and what actually happened, if it is logged."""
        # json_extract, not ->>: SQLite before 3.38 has no ->>
        row = self.conn.execute("select json_extract(payload, '$.intent.action'), json_extract(payload, "
                                "'$.reality') from turns where id = ?", (turn_id,)).fetchone()
        return (row[0] or "", row[1] or "") if row else None

    # -- characters --------------------------------------------------------------------

    def ensure_character(self, character_id: str, seen_at: datetime) -> bool:
        """Create the character on first sight; True if it is new."""
        return bool(self.ensure_characters([character_id], seen_at))

    def ensure_characters(self, ids: list[str], seen_at: datetime) -> list[str]:
        """Create those of `ids` seen for the first time and mark the others seen now; the new
        ones, in order. Two statements for a turn's characters (it was two for each)."""
        ids = list(dict.fromkeys(ids))
        known = self.characters_among(ids)
        new = [c for c in ids if c not in known]
        if new:
            self._refuse_staged(new)
        stamp = iso(seen_at)
        if known:
            marks = ", ".join("?" * len(known))
            self.conn.execute(f"update characters set last_seen = ? where id in ({marks})", (stamp, *known))
        self.conn.executemany(
            "insert into characters (id, name, persona, immediate_context, created_at, last_seen, import_id) "
            "values (?, ?, '', '', ?, ?, ?)", [(c, display_name(c), stamp, stamp, self.staging) for c in new])
        return new

    def character_row(self, character_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("select id, name, persona, immediate_context, created_at from characters "
                                f"where id = ? and {SEEN}", (character_id, self._seen())).fetchone()
        if row is None:
            return None
        return dict(zip(("id", "name", "persona", "immediate_context", "created_at"), row, strict=True))

    def personas(self, ids: list[str]) -> dict[str, str]:
        """The personas of those of `ids` that are characters of this world, in one query."""
        marks = ", ".join("?" * len(ids))
        return {r[0]: r[1] or "" for r in self.conn.execute(
            f"select id, persona from characters where id in ({marks})", ids)} if ids else {}

    def characters_among(self, ids: list[str]) -> set[str]:
        """Which of `ids` are characters of this world."""
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            found.update(r[0] for r in self.conn.execute(
                f"select id from characters where id in ({', '.join('?' * len(chunk))}) and {SEEN}",
                (*chunk, self._seen())))
        return found

    def character_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute(f"select id from characters where {SEEN} order by id",
                                                (self._seen(),))]

    def set_character(self, character_id: str, **fields: str) -> None:
        for name, value in fields.items():
            if name not in ("name", "persona", "immediate_context"):
                raise ValueError(f"not a character field: {name}")
            self.conn.execute(f"update characters set {name} = ? where id = ?", (value, character_id))

    def known_character(self, character: str) -> str:
        """The id of a character the world has seen (normalised: ' Wolf ' → 'wolf')."""
        try:
            key = normalize_character_id(character)
        except ValueError as error:
            raise InvalidInput(str(error), field="character") from error
        if self.character_row(key) is None:
            raise UnknownCharacter(key, known=self.character_ids())
        return key

    def delete_character_memories(self, character_id: str) -> None:
        for table in ("memories", "memory_archive"):
            self.conn.execute(f"delete from {table} where owner = ?", (character_id,))
        self.conn.execute("delete from relationships where owner = ?", (character_id,))

    def delete_character(self, character_id: str) -> dict[str, int]:
        """Remove a character and every row that refers to it; call inside `transaction()`.

        Gone: its memories and archive; its relationships and the others' relationships with
        it, with their memories about it (a relationship cannot outlive its character); the
        blocks it owns with their links; its links to others' shared blocks; its passages; its
        model calls; the appraisals and memory links of every memory that goes. The full-text
        indexes follow through their triggers. The turn log keeps the turns it took part in, so
        replaying one still changes nothing. Returns the rows removed per table.
        """
        statements = {
            "memories": "delete from memories where owner = ?1 or subject = ?1",
            "memory_archive": "delete from memory_archive where owner = ?1 or subject = ?1",
            # The memory network (m006): whatever points at a memory that is gone now (its own
            # and the others' memories about it). A scan, but deleting a character is rare.
            "appraisals": f"delete from appraisals where {_GONE.format(column='memory_id')}",
            "memory_links": f"delete from memory_links where owner = ?1 or "
                            f"{_GONE.format(column='memory_id')} or {_GONE.format(column='other_id')}",
            "relationships": "delete from relationships where owner = ?1 or other = ?1",
            # evolution (m005): attributes, their change log, snapshots, the cycle's mark
            "attribute_changes": "delete from attribute_changes where character = ?1 or other = ?1",
            "attributes": "delete from attributes where character = ?1",
            "personality_snapshots": "delete from personality_snapshots where character = ?1",
            "evolution_marks": "delete from evolution_marks where character = ?1",
            # goals and practice (m008)
            "goal_history": "delete from goal_history where character = ?1",
            "goals": "delete from goals where character = ?1",
            "practice": "delete from practice where character = ?1",
            # blocks and passages cascade from characters; deleting them here says so and
            # does not depend on the foreign_keys pragma.
            "block_links": "delete from block_links where character = ?1 "
                           "or block_id in (select id from blocks where owner = ?1)",
            "blocks": "delete from blocks where owner = ?1",
            "passages": "delete from passages where owner = ?1",
            "calls": "delete from calls where character = ?1",
            # model budgets (m013): its own setting and its place in a group
            "budgets": "delete from budgets where scope = 'character' and name = ?1",
            "budget_members": "delete from budget_members where character = ?1",
            "characters": "delete from characters where id = ?1",
        }
        return {table: self.conn.execute(sql, (character_id,) if "?1" in sql else ()).rowcount
                for table, sql in statements.items()}

    # -- relationships -----------------------------------------------------------------

    def relationship(self, owner: str, other: str, *, with_memories: bool = True) -> Relationship:
        """The owner's relationship with other, with its recent and core memories (new if none;
        `with_memories=False` leaves the memory lists empty, for readers that need only the
        summary and feelings)."""
        row = self.conn.execute(f"select {_RELATIONSHIP} from relationships where owner = ? and other = ?",
                                (owner, other)).fetchone()
        recent, core = self.live_memories(owner, other) if with_memories else ([], [])
        if row is None:
            row = ("", "", 0.0, 0.0, 0, None, None, None, 0.5, 0.5)
        return _relationship(owner, other, row, recent, core)

    def all_live(self, owner: str) -> tuple[dict[str, Relationship], list[Memory], list[Memory]]:
        """Every relationship of the owner with its memories (by other, in id order), and its own
        recent and core memories: two statements, where a relationship at a time takes two
        each (an export of 10,000 characters made some 200,000)."""
        by_subject: dict[str | None, tuple[list[Memory], list[Memory]]] = {}
        for row in self.conn.execute(f"{SELECT_MEMORY} from memories where owner = ? order by seq", (owner,)):
            recent, core = by_subject.setdefault(row[3], ([], []))
            (recent if row[9] == "recent" else core).append(memory_from_row(row))
        relationships = {}
        for row in self.conn.execute(f"select other, {_RELATIONSHIP} from relationships where owner = ? "
                                     "order by other", (owner,)):
            recent, core = by_subject.get(row[0], ([], []))
            relationships[row[0]] = _relationship(owner, row[0], row[1:], recent, core)
        own_recent, own_core = by_subject.get(None, ([], []))
        return relationships, own_recent, own_core

    def relationships_among(self, owner: str, others: list[str]) -> set[str]:
        """Which of `others` the owner has a relationship with."""
        marks = ", ".join("?" * len(others))
        return {r[0] for r in self.conn.execute(
            f"select other from relationships where owner = ? and other in ({marks})", (owner, *others))}

    def relationship_others(self, owner: str) -> list[str]:
        return [r[0] for r in self.conn.execute(
            "select other from relationships where owner = ? order by other", (owner,))]

    def save_relationship(self, rel: Relationship) -> None:
        self.conn.execute(
            "insert into relationships (owner, other, immediate_context, long_term_summary, "
            "current_sentiment, overall_bond, trust, rapport, interactions, traits, first_met, "
            "last_interaction) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "on conflict(owner, other) do update set "
            "immediate_context = excluded.immediate_context, "
            "long_term_summary = excluded.long_term_summary, "
            "current_sentiment = excluded.current_sentiment, overall_bond = excluded.overall_bond, "
            "trust = excluded.trust, rapport = excluded.rapport, "
            "interactions = excluded.interactions, traits = excluded.traits, "
            "first_met = excluded.first_met, last_interaction = excluded.last_interaction",
            (rel.owner, rel.other, rel.immediate_context, rel.long_term_summary,
             round(rel.current_sentiment, 6), round(rel.overall_bond, 6), round(rel.trust, 6),
             round(rel.rapport, 6), rel.interactions,
             json.dumps(rel.traits, sort_keys=True),
             iso(rel.first_met) if rel.first_met else None,
             iso(rel.last_interaction) if rel.last_interaction else None))


_RELATIONSHIP = ("immediate_context, long_term_summary, current_sentiment, overall_bond, interactions, "
                 "traits, first_met, last_interaction, trust, rapport")


def _relationship(owner: str, other: str, row: Sequence[Any], recent: list[Memory],
                  core: list[Memory]) -> Relationship:
    return trusted(Relationship, {  # in the model's field order (construct.trusted)
        "owner": owner, "other": other, "immediate_context": row[0] or "",
        "long_term_summary": row[1] or "", "current_sentiment": row[2], "overall_bond": row[3],
        "trust": row[8], "rapport": row[9], "interactions": row[4],
        "traits": json.loads(row[5]) if row[5] else {},
        "first_met": _dt(row[6]) if row[6] else None,
        "last_interaction": _dt(row[7]) if row[7] else None,
        "recent_memories": recent, "core_memories": core})
