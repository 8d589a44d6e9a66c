"""Saves and reloads: `rewind` a world to right after one of its turns, undo a rewind, and
`branch` a new save from a point in the past (issue #18). A mixin of `Curator`.

A world's history is its turn log and its operations log (store/oplog.py). A rewind rebuilds
the world from the part of that history it keeps (api/replay.py: every turn through the turn
flow again, every operation through the API again, decisions from the call log, no model
call), then swaps the rebuilt world in whole (store/saves.py). What it did not keep is set
aside in the world's `rewinds` record, with when, why and by whom; `rewind(undo=True)` brings
it back (and sets aside what was played since, so an undo can be undone too).
"""

from __future__ import annotations

import getpass
import os
import sqlite3
import uuid
from pathlib import Path

from pydantic import BaseModel

from curator.api.reads import WorldReads
from curator.api.replay import Rebuilt, rebuild, refuse_unlogged
from curator.domain.errors import InvalidInput, RewindRefused, UnknownTurn
from curator.domain.models import iso
from curator.store.oplog import Event, history, split, turn_seq, watermark
from curator.store.saves import (
    RewindRecord,
    add_record,
    copy_tables,
    now_text,
    rewind_records,
    set_undone,
    swap_in,
)
from curator.store.world import World

MAX_REASON = 2_000


class RewindResult(BaseModel):
    """What a rewind, an undo or a branch did."""

    action: str
    rewind_id: int
    to_turn: str | None
    path: str
    turns: int  # turns the world now holds
    operations: int  # operations replayed
    set_aside_turns: int
    set_aside_operations: int
    restored: int = 0  # undo: set-aside turns and operations brought back
    decisions_from_call_log: int
    decisions_by_fallback: int
    model_calls: int = 0  # a rebuild never calls a model


def designer() -> str:
    """Who makes a change when the caller does not say: the OS user, else "designer"."""
    try:
        return getpass.getuser() or "designer"
    except (KeyError, OSError):
        return "designer"


class Saves(WorldReads):
    """Rewind, undo and branch. Needs the `Curator` it is mixed into (rebuilds make a new one)."""

    def rewinds(self) -> list[RewindRecord]:
        """Every rewind, undo and branch this world has seen, oldest first, with what each set aside."""
        return rewind_records(self.world)

    def rewind(self, to: str | None = None, *, undo: bool = False, reason: str = "",
               by: str | None = None) -> RewindResult:
        """The world as it was right after turn `to`, as when a player reloads a save; the
        turns and operations after it are set aside (see `rewinds()`). `undo=True` (and no
        `to`) undoes the latest rewind instead. Unknown turn: `UnknownTurn`; a history that
        cannot be replayed, or a world that changed during the rebuild: `RewindRefused`."""
        who, why = _who(by), _reason(reason)
        if undo == (to is not None):
            raise InvalidInput("give a turn id to rewind to, or undo=True, not both", field="to")
        source = self.world
        expected = watermark(source)
        events = history(source)
        refuse_unlogged(events)
        if undo:
            records = rewind_records(source)
            if not records:
                raise RewindRefused("nothing to undo: this world has never been rewound")
            last = records[-1]
            kept, since = split(events, last.kept_through)
            restored = [Event(s.kind, (0, 0, s.position), s.ref, s.payload, s.received_at, s.result)
                        for s in last.set_aside]
            record = RewindRecord(id=0, action="undo", to_turn=last.to_turn, kept_through=last.kept_through,
                                  reason=why or f"undo of #{last.id}", by=who, at=now_text(),
                                  world_time=None)
            rebuilt = self._rebuilt(kept + restored, record, since, undoes=last.id)
        else:
            assert to is not None
            seq = _seq(source, to)
            kept, since = split(events, seq)
            restored = []
            record = RewindRecord(id=0, action="rewind", to_turn=to, kept_through=seq, reason=why,
                                  by=who, at=now_text(), world_time=None)
            rebuilt = self._rebuilt(kept, record, since)
        try:
            swap_in(source, rebuilt.curator.world.conn, expected)
        finally:
            rebuilt.curator.close()
        return _result(record, rebuilt, since, str(source.path), restored=len(restored))

    def branch(self, at: str, to: str | Path, *, force: bool = False, reason: str = "",
               by: str | None = None) -> RewindResult:
        """A new save at `to`: this world as it was right after turn `at` (this world is not
        changed). An existing `to` is refused unless `force` (then no process may have it open).
        The branch's record sets aside the later turns, so `rewind(undo=True)` there brings
        them back."""
        who, why = _who(by), _reason(reason)
        target = Path(to)
        if str(to) == ":memory:" or target.resolve() == Path(str(self.world.path)).resolve():
            raise RewindRefused("a branch needs a file of its own", field="to")
        if target.exists() and not force:
            raise RewindRefused(f"{target} exists (use force / --force to replace it)", field="to")
        source = self.world
        seq = _seq(source, at)
        events = history(source)
        refuse_unlogged(events)
        kept, since = split(events, seq)
        record = RewindRecord(id=0, action="branch", to_turn=at, kept_through=seq, reason=why, by=who,
                              at=now_text(), world_time=None)
        rebuilt = self._rebuilt(kept, record, since)
        temporary = target.with_name(f".{target.name}.branch-{uuid.uuid4().hex[:8]}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            out = sqlite3.connect(temporary)
            try:
                rebuilt.curator.world.conn.backup(out)
            finally:
                out.close()
            for stale in (Path(f"{target}-wal"), Path(f"{target}-shm")):
                stale.unlink(missing_ok=True)  # they belong to the file being replaced
            os.replace(temporary, target)
        except OSError as error:
            raise RewindRefused(f"cannot write {target}: {error}", field="to") from error
        finally:
            temporary.unlink(missing_ok=True)
            rebuilt.curator.close()
        return _result(record, rebuilt, since, str(target), restored=0)

    def _rebuilt(self, events: list[Event], record: RewindRecord, set_aside: list[Event], *,
                 undoes: int | None = None) -> Rebuilt:
        """The rebuilt world, with this world's rewind records and the new one."""
        rebuilt = rebuild(self, events)
        try:
            with rebuilt.curator.world.transaction() as world:
                copy_tables(self.world, world, ("rewinds", "set_aside"))
                clock = world.clock()
                record.world_time = iso(clock) if clock else None
                record.id = add_record(world, record, set_aside)
                if undoes is not None:
                    set_undone(world, undoes, record.id)
        except BaseException:
            rebuilt.curator.close()
            raise
        return rebuilt


def _seq(world: World, turn_id: str) -> int:
    if not isinstance(turn_id, str) or not turn_id.strip():
        raise InvalidInput("a turn id is needed", field="to")
    seq = turn_seq(world, turn_id)
    if seq is None:
        aside = [s.ref for r in rewind_records(world) for s in r.set_aside if s.kind == "turn"]
        hint = (" (it was set aside by a rewind: undo that rewind to bring it back)"
                if turn_id in aside else "")
        raise UnknownTurn(turn_id, hint=hint)
    return seq


def _who(by: str | None) -> str:
    who = designer() if by is None else by.strip()
    if not who or len(who) > 200:
        raise InvalidInput("a name of 1 to 200 characters", field="by")
    return who


def _reason(reason: str) -> str:
    if not isinstance(reason, str) or len(reason) > MAX_REASON:
        raise InvalidInput(f"a reason is text of at most {MAX_REASON} characters", field="reason")
    return reason.strip()


def _result(record: RewindRecord, rebuilt: Rebuilt, since: list[Event], path: str, *,
            restored: int) -> RewindResult:
    return RewindResult(
        action=record.action, rewind_id=record.id, to_turn=record.to_turn, path=path,
        turns=rebuilt.turns, operations=rebuilt.operations,
        set_aside_turns=sum(e.is_turn for e in since),
        set_aside_operations=sum(not e.is_turn for e in since), restored=restored,
        decisions_from_call_log=rebuilt.from_call_log, decisions_by_fallback=rebuilt.by_fallback)
