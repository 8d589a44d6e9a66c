"""The world clock, set back by hand: the way out of a clock that ran ahead of the world.

A world's clock (meta `clock`) only moves forward: each turn, `fade --until`, an evolution
cycle and an import move it to their time. Each character has a clock of its own too (m010: the
time of the last turn it perceived), and a turn earlier than its actor's or an observer's is
refused. An import of a document whose clock ran far ahead (older curators accepted one, and
m010 started every character at the world clock) would then refuse every turn until that time.
`set_clock` moves the world clock and every character clock past it back, but never before the
latest turn the world has observed, and re-dates memory strengths read as of a later time to
the new clock, so fading neither skips nor counts those days twice.
"""

from __future__ import annotations

from datetime import datetime

from curator.domain.errors import InvalidInput
from curator.domain.models import iso
from curator.store.visibility import STAGED
from curator.store.world import World


def latest_turn_time(world: World) -> datetime | None:
    """The world time of the latest turn the world has observed (None before the first)."""
    # Writers with clocks of their own log turns out of world-time order, so take the latest
    # time, compared as times: text sorts "08:00:00.5Z" before "08:00:00Z", so only the
    # whole-second prefix is compared as text.
    rows = world.conn.execute(
        "select world_time from turns where substr(world_time, 1, 19) = "
        "(select max(substr(world_time, 1, 19)) from turns)").fetchall()
    return max((datetime.fromisoformat(row[0]) for row in rows), default=None)


def set_clock(world: World, when: datetime) -> datetime | None:
    """Set the world clock to `when` (inside the caller's transaction); returns the old clock."""
    floor = latest_turn_time(world)
    if floor is not None and when < floor:
        raise InvalidInput(f"{iso(when)} is before the latest observed turn ({iso(floor)}); the clock "
                           "can go back only as far as that", field="clock")
    old = world.clock()
    # Compared as times, not text: "08:00:00.5Z" sorts before "08:00:00Z" as text.
    # Not the memories of an import under way (visibility.py): it sets the clock when it is done.
    rows = world.conn.execute("select id, strength_at from memories where strength_at >= ? "
                              f"and owner not in {STAGED}", (iso(when)[:19],)).fetchall()
    later = [(iso(when), memory_id) for memory_id, at in rows if datetime.fromisoformat(at) > when]
    world.conn.executemany("update memories set strength_at = ? where id = ?", later)
    ahead = [(iso(when), character) for character, clock in world.conn.execute(
        "select id, clock from characters where clock is not null").fetchall()
        if datetime.fromisoformat(clock) > when]
    world.conn.executemany("update characters set clock = ? where id = ?", ahead)
    world.set_meta("clock", iso(when))
    return old
