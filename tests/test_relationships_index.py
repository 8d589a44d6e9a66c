"""Migration m017 indexes relationships by their other character (issue #17): deleting a
character (`curator delete`, the clean-up of an import cut short) checked every relationship
naming it by scanning the whole table; with the index it looks them up, and a world from
before m017 gains it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from curator import Curator

T1 = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
      "intent": {"action": "Fish at the river"}, "others": ["wolf"], "observers": ["heron"],
      "reality": "Wolf drags Bear out of the icy river when the ice breaks."}


def plan(conn: sqlite3.Connection, statement: str) -> list[str]:
    return [row[3] for row in conn.execute(f"explain query plan {statement}", ("wolf",))]


def test_deleting_a_character_looks_up_the_relationships_naming_it(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as curator:
        curator.observe(T1)
        conn = curator.world.conn
        for statement in ("delete from characters where id = ?",  # the foreign key's check
                          "delete from relationships where owner = ?1 or other = ?1"):
            steps = plan(conn, statement)
            assert not [s for s in steps if s.startswith("SCAN relationships")], steps
            assert any("relationships_other" in s for s in steps), steps
        curator.delete_character("wolf")
        assert conn.execute("select count(*) from relationships where other = 'wolf'").fetchone()[0] == 0


def test_a_world_from_before_m017_gains_the_index(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Curator(db) as curator:
        curator.observe(T1)
    with sqlite3.connect(db) as conn:  # as m016 left it
        conn.execute("drop index relationships_other")
        conn.execute("delete from _sqlite_migrations where name = 'm017_relationships_by_other'")
    conn.close()
    with Curator(db) as curator:  # migrates: m017 runs
        conn = curator.world.conn
        assert conn.execute("select count(*) from sqlite_master where name = 'relationships_other'"
                            ).fetchone()[0] == 1
        assert curator.world.relationship("bear", "wolf").interactions == 1

