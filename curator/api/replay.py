"""Replaying a world's history: the operations a rewind runs again, and the rebuild itself.

`rebuild` makes a new world (in memory) from a list of history events (store/oplog.py): each
turn is observed again through the turn flow, each operation run again through the API, one
write transaction each, with decisions taken from the source world's call log
(model/replay.py: no model is ever called). The source's call log is copied whole.

`Logged` wraps the blocks, goals and passages of a `Curator` so that each change made through
them is logged as an operation once it has committed (their modules own their transactions,
so the log row follows in a transaction of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from curator.domain.errors import CuratorError, RewindRefused
from curator.model.replay import CallLogDecider
from curator.store.oplog import UNLOGGED, Event, log_operation
from curator.store.saves import copy_tables, restore_receipts
from curator.store.world import World

# A `Curator` (api/curator.py imports this module, so it is named here only in words).
Curator = Any

# The methods of `Curator.blocks`, `.goals` and `.passages` that change the world.
WRITERS = {"blocks": {"create", "set", "append", "attach", "detach", "delete"},
           "goals": {"set", "advance", "complete", "abandon", "delete"},
           "passages": {"store", "delete"}}


class Logged:
    """A blocks, goals or passages object whose changes are logged as operations."""

    def __init__(self, inner: Any, name: str, world: Callable[[], World]):
        self._inner, self._name, self._world = inner, name, world

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._inner, attribute)
        if attribute not in WRITERS[self._name] or not callable(value):
            return value

        def logged(*args: Any, **kwargs: Any) -> Any:
            # What it stamps before the first turn is stamped with the wall time it is logged
            # with, so a rebuild stamps it the same (World.wall).
            inner: World = self._inner.world
            pinned = inner.wall is None
            if pinned:
                inner.wall = datetime.now(UTC)
            stamp = inner.wall
            try:
                result = value(*args, **kwargs)
            finally:
                if pinned:
                    inner.wall = None
            with self._world().transaction() as world:
                log_operation(world, f"{self._name}.{attribute}",
                              {"args": [_plain(a) for a in args],
                               "kwargs": {k: _plain(v) for k, v in kwargs.items()}}, at=stamp)
            return result

        return logged


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple | set | frozenset) else value


def replay_operation(curator: Curator, kind: str, args: dict[str, Any]) -> None:
    """Run one logged operation again on `curator` (which logs it again, in its own history)."""
    if kind == "end_episode":
        curator.end_episode(args["character"], args.get("with"))
    elif kind == "fade":
        curator.fade(args["until"])
    elif kind == "evolve":
        curator.evolve(args["world_time"])
    elif kind == "persona":
        curator.set_persona(args["character"], args["persona"])
    elif kind == "clock":
        curator.set_clock(args["world_time"])
    elif kind == "import":
        curator.import_document(args["document"], replace=args.get("replace", False), clock=args.get("clock"))
    elif kind == "delete_character":
        curator.delete_character(args["character"])
    elif kind == "context":
        curator.context(args["character"], args.get("situation", ""), with_=args.get("with", ()),
                        max_tokens=args.get("max_tokens"), layers=args.get("layers"),
                        domain=args.get("domain"))
    elif kind.startswith("memory."):
        curator._apply_memory_edit(kind, args)
    elif kind.split(".")[0] in WRITERS:
        group, method = kind.split(".", 1)
        getattr(getattr(curator, group), method)(*args.get("args", []), **args.get("kwargs", {}))
    elif kind.startswith("api.") and not kind.removeprefix("api.").startswith("_"):
        # Any other public method of `Curator` that logs itself as "api.NAME" with its arguments
        # ({"args": [...], "kwargs": {...}}): a new writing method needs no entry here.
        getattr(curator, kind.removeprefix("api."))(*args.get("args", []), **args.get("kwargs", {}))
    else:
        raise RewindRefused(f"cannot replay the operation {kind!r}")


def refuse_unlogged(events: list[Event]) -> None:
    """A world changed before its operations were logged cannot be rebuilt: what changed then
    (at any time before m011) is unknown, whatever part of its history a rebuild keeps."""
    if any(e.ref == UNLOGGED and not e.is_turn for e in events):
        raise RewindRefused("this world was changed before curator logged its operations (made "
                            "before schema m011): what was done then besides turns cannot be "
                            "replayed, so it cannot be rebuilt")


@dataclass
class Rebuilt:
    """A rebuilt world (open, in memory) and how its decisions were made."""

    curator: Curator
    turns: int = 0
    operations: int = 0
    from_call_log: int = 0
    by_fallback: int = 0


def rebuild(source: Curator, events: list[Event]) -> Rebuilt:
    """A new in-memory world holding `source`'s call log and `events` replayed in order.
    Refused (`RewindRefused`) if an event cannot be replayed; the source is never written."""
    refuse_unlogged(events)
    decider = CallLogDecider(source.world)
    rebuilt = Rebuilt(type(source)(":memory:", config=source.config.model_copy(deep=True), decider=decider))
    try:
        with rebuilt.curator.world.transaction() as world:
            copy_tables(source.world, world, ("calls",))
        for event in events:
            try:
                if event.is_turn:
                    rebuilt.curator.observe(event.payload)
                    rebuilt.turns += 1
                else:
                    world = rebuilt.curator.world
                    world.wall = datetime.fromisoformat(event.received_at) if event.received_at else None
                    try:
                        replay_operation(rebuilt.curator, event.ref, event.args())
                    finally:
                        world.wall = None
                    rebuilt.operations += 1
            except CuratorError as error:
                what = f"turn {event.ref!r}" if event.is_turn else f"the operation {event.ref!r}"
                raise RewindRefused(f"replaying {what} failed: {error}") from error
        with rebuilt.curator.world.transaction() as world:
            restore_receipts(world, events)
    except BaseException:
        rebuilt.curator.close()
        raise
    rebuilt.from_call_log, rebuilt.by_fallback = decider.reused, decider.fell_back
    return rebuilt
