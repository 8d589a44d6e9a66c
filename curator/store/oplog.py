"""The operations log (m011): whatever changes a world besides a turn, in the order it happened.

A rewind rebuilds a world from its history: the turn log and this log, interleaved. Each row
names the last turn logged when it ran (`after_turn`, a turn seq; 0 before any turn), what ran
(`kind`: `end_episode`, `fade`, `evolve`, `persona`, `clock`, `import`, `delete_character`,
`context`, `memory.add`, `blocks.create`, …) and its arguments as JSON, which the API knows
how to run again (api/replay.py). An `unlogged` row stands for changes made before this log
existed (a world migrated to m011 with data in it): those cannot be replayed.

It also owns the reads a rebuild needs: the turn log in order, and the history's positions.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from curator.domain.models import iso
from curator.store import staging
from curator.store.world import World

UNLOGGED = "unlogged"


@dataclass(frozen=True)
class Event:
    """One step of a world's history: a logged turn or an operation.

    `order` sorts the history: a turn by its seq, an operation just after the turn it followed."""

    kind: str  # "turn" or "operation"
    order: tuple[int, int, int]
    ref: str  # the turn id, or the operation's kind
    payload: str  # the turn as the game sent it, or the operation's arguments (JSON)
    received_at: str | None = None  # a turn's delivery, an operation's wall time
    result: str | None = None  # a turn's result as first stored (a re-delivered turn gets it back)

    @property
    def is_turn(self) -> bool:
        return self.kind == "turn"

    def args(self) -> dict[str, Any]:
        value: dict[str, Any] = json.loads(self.payload)
        return value


def last_turn(world: World) -> int:
    """The seq of the last logged turn (0: none)."""
    return int(world.conn.execute("select coalesce(max(seq), 0) from turns").fetchone()[0])


def log_operation(world: World, kind: str, args: dict[str, Any] | str, *, at: datetime | None = None,
                  after_turn: int | None = None) -> None:
    """Log an operation inside the caller's transaction (the one that makes its change); `at`
    is the wall time it stamped what it made with, if it did; `after_turn` the turn it follows
    (default: the last logged). `args` may be their JSON text already (an import's document,
    dumped before its transaction began)."""
    after = last_turn(world) if after_turn is None else after_turn
    text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False, default=str)
    world.conn.execute("insert into operations (after_turn, kind, args, at) values (?, ?, ?, ?)",
                       (after, kind, text,
                        iso(at or world.wall or datetime.now(UTC))))


def history(world: World) -> list[Event]:
    """Every turn and operation of the world, in the order they happened."""
    events = [Event("turn", (int(seq), 0, 0), turn_id, payload, received_at, result)
              for turn_id, seq, payload, received_at, result in world.conn.execute(
                  "select id, seq, payload, received_at, result from turns order by seq")]
    # A large import's document is kept in parts (staging.py), put back here.
    events += [Event("operation", (int(after), 1, int(seq)), kind,
                     staging.with_document(world, args) if kind == "import" else args, at)
               for seq, after, kind, args, at in world.conn.execute(
                   "select seq, after_turn, kind, args, at from operations order by seq")]
    return sorted(events, key=lambda e: e.order)


def turn_seq(world: World, turn_id: str) -> int | None:
    row = world.conn.execute("select seq from turns where id = ?", (turn_id,)).fetchone()
    return None if row is None else int(row[0])


def split(events: list[Event], through: int) -> tuple[list[Event], list[Event]]:
    """The history up to right after turn seq `through` (no operation after it), and the rest."""
    kept: list[Event] = []
    rest: list[Event] = []
    for event in events:
        before = event.order[0] <= through if event.is_turn else event.order[0] < through
        (kept if before else rest).append(event)
    return kept, rest


def watermark(world: World) -> tuple[int, int, int]:
    """What a rebuild started from: the last turn, operation and call. A rewind swaps its rebuilt
    world in only if these are unchanged (nothing was written meanwhile)."""
    row = world.conn.execute(
        "select (select coalesce(max(seq), 0) from turns), (select coalesce(max(seq), 0) from "
        "operations), (select coalesce(max(seq), 0) from calls)").fetchone()
    return int(row[0]), int(row[1]), int(row[2])
