"""The world clock, set back by hand: the way out of a clock that ran ahead of the world.

A world's clock (meta `clock`) only moves forward: each turn, `fade --until`, an evolution
cycle and an import move it to their time, and a turn before it is refused. An import of a
document whose clock ran far ahead (older curators accepted one) would then refuse every turn
until that time. `set_clock` moves it back, but never before the latest turn the world has
observed (turns stay in order), and re-dates memory strengths read as of a later time to the
new clock, so fading neither skips nor counts those days twice.
"""

from __future__ import annotations

from datetime import datetime

from curator.domain.errors import InvalidInput
from curator.domain.models import iso
from curator.store.world import World


def latest_turn_time(world: World) -> datetime | None:
    """The world time of the latest turn the world has observed (None before the first)."""
    # Turns are logged in world-time order (an earlier one is refused), so the last is the latest.
    row = world.conn.execute("select world_time from turns order by seq desc limit 1").fetchone()
    return None if row is None else datetime.fromisoformat(row[0])


def set_clock(world: World, when: datetime) -> datetime | None:
    """Set the world clock to `when` (inside the caller's transaction); returns the old clock."""
    floor = latest_turn_time(world)
    if floor is not None and when < floor:
        raise InvalidInput(f"{iso(when)} is before the latest observed turn ({iso(floor)}); the clock "
                           "can go back only as far as that", field="clock")
    old = world.clock()
    # Compared as times, not text: "08:00:00.5Z" sorts before "08:00:00Z" as text.
    rows = world.conn.execute("select id, strength_at from memories where strength_at >= ?",
                              (iso(when)[:19],)).fetchall()
    later = [(iso(when), memory_id) for memory_id, at in rows if datetime.fromisoformat(at) > when]
    world.conn.executemany("update memories set strength_at = ? where id = ?", later)
    world.set_meta("clock", iso(when))
    return old
