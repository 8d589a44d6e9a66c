"""An import under way on another host is taken for dead once its heartbeat is older than
staging.STALE, and the opening of the world deletes what it wrote; a heartbeat that is no time
(a damaged row) counts as long past instead of stopping the opening with a TypeError."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from curator import Curator

T1 = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
      "intent": {"action": "Fish at the river"}, "others": ["wolf"], "observers": ["heron"],
      "reality": "Wolf drags Bear out of the icy river when the ice breaks."}


def test_an_import_left_by_another_host_is_cleaned_once_its_heartbeat_is_stale(tmp_path: Path) -> None:
    """Whatever the heartbeat says: a time with or without a zone, or no time at all (a damaged
    row) is judged by its age, and a recent one keeps the import alive."""
    from datetime import UTC, datetime

    db = tmp_path / "w.db"
    with Curator(db) as curator:
        curator.observe(T1)
    recent = datetime.now(UTC).isoformat()
    beats = {"aware": "2025-01-01T00:00:00+00:00", "naive": "2025-01-01T00:00:00", "garbage": "soon",
             "recent": recent}
    with sqlite3.connect(db) as conn:
        for n, (name, beat) in enumerate(beats.items()):
            conn.execute("insert into imports (id, pid, host, started_at, heartbeat) values (?, 1, "
                         "'another-host', ?, ?)", (name, beat, beat))
            conn.execute("insert into characters (id, name, import_id) values (?, ?, ?)",
                         (f"staged{n}", f"Staged{n}", name))
    conn.close()
    with Curator(db) as curator:
        left = dict(curator.world.conn.execute("select id, import_id from characters "
                                                "where import_id is not null").fetchall())
        assert left == {"staged3": "recent"}
        assert sorted(curator.characters()) == ["bear", "heron", "wolf"]
