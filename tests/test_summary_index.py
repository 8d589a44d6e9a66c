"""Migration m016 drops the full-text index over relationship summaries, which nothing searched
and every new relationship wrote to (issue #17): a world from before it loses the index and
its triggers, keeps every relationship and summary, and writes fewer statements a turn."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from curator import Curator

T1 = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
      "intent": {"action": "Fish at the river"}, "others": ["wolf"], "observers": ["heron"],
      "reality": "Wolf drags Bear out of the icy river when the ice breaks."}


def turn(n: int) -> dict[str, Any]:
    return {**T1, "id": f"t{n}", "world_time": f"2025-01-02T{8 + n:02d}:00:00Z",
            "others": [f"newcomer{n}"], "observers": [f"watcher{n}"],
            "reality": f"Newcomer{n} shares a fish with Bear on the bank."}


def statements(curator: Curator, n: int) -> int:
    seen: list[str] = []
    curator.world.conn.set_trace_callback(seen.append)
    curator.observe(turn(n))
    curator.world.conn.set_trace_callback(None)
    return len(seen)


def test_a_world_from_before_m016_loses_the_summary_index_and_keeps_its_summaries(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Curator(db) as curator:
        curator.observe(T1)
        curator.world.conn.execute("update relationships set long_term_summary = 'Wolf saved me.' "
                                   "where owner = 'bear' and other = 'wolf'")
        curator.world.conn.commit()
        after = statements(curator, 2)
    with sqlite3.connect(db) as conn:  # as m004 left it: the index and its three triggers
        conn.execute("delete from _sqlite_migrations where name = 'm016_no_summary_index'")
        conn.execute("create virtual table summary_fts using fts5(text, other, owner)")
        conn.execute("insert into summary_fts (rowid, text, other, owner) select rowid, "
                     "coalesce(long_term_summary, ''), other, owner from relationships")
        conn.execute("create trigger summary_fts_insert after insert on relationships begin "
                     "insert into summary_fts (rowid, text, other, owner) values (new.rowid, "
                     "coalesce(new.long_term_summary, ''), new.other, new.owner); end")
        conn.execute("create trigger summary_fts_update after update of long_term_summary on "
                     "relationships begin update summary_fts set text = "
                     "coalesce(new.long_term_summary, '') where rowid = new.rowid; end")
        conn.execute("create trigger summary_fts_delete after delete on relationships begin "
                     "delete from summary_fts where rowid = old.rowid; end")
    conn.close()
    with Curator(db) as curator:  # migrates: m016 runs
        names = {r[0] for r in curator.world.conn.execute("select name from sqlite_master")}
        assert not {n for n in names if n.startswith("summary_fts")}
        assert curator.world.relationship("bear", "wolf").long_term_summary == "Wolf saved me."
        before_drop = statements(curator, 3)
    # the same kind of turn (a new relationship for each perceiver) with the index back on a copy
    with sqlite3.connect(db) as conn:
        conn.execute("create virtual table summary_fts using fts5(text, other, owner)")
        conn.execute("create trigger summary_fts_insert after insert on relationships begin "
                     "insert into summary_fts (rowid, text, other, owner) values (new.rowid, "
                     "coalesce(new.long_term_summary, ''), new.other, new.owner); end")
    conn.close()
    with Curator(db) as curator:
        indexed = statements(curator, 4)
    assert max(after, before_drop) < indexed  # each new relationship wrote to the index
