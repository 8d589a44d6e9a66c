"""Hands-on editing of memories (issue #18): a designer adds, edits, pins, unpins and forgets
memories by hand, and reads each memory's history of such changes. A mixin of `Curator`.

A memory a designer wrote is marked (`written_by`) and, like a pinned one, stands apart from
curation: it never fades and is never pushed out of the recent window, consolidated at an
episode end or superseded as core (store/world.py reads the curated memories without them).
Recall, search and context show it like any other. Forgetting archives a memory with the
reason `forgotten_by_designer`. Each change is one transaction: the memory, its entry in
`memory_edits` (who, wall time, world time) and its entry in the operations log, so a rewind
replays it.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from curator.api.reads import WorldReads
from curator.api.saves import designer
from curator.domain.errors import InvalidInput, UnknownMemory
from curator.domain.models import MAX_TEXT, Memory, MemoryKind, Relationship, Tier, iso
from curator.store.edits import (
    MemoryEdit,
    edit_history,
    log_edit,
    set_content,
    set_pinned,
)
from curator.store.oplog import log_operation
from curator.store.world import World

FORGOTTEN = "forgotten_by_designer"


class MemoryEditing(WorldReads):
    """`memory_add`, `memory_edit`, `memory_pin`, `memory_unpin`, `memory_forget`, `memory_history`."""

    def memory_add(self, character: str, text: str, *, about: str | None = None, core: bool = False,
                   importance: float | None = None, valence: float = 0.0,
                   by: str | None = None) -> Memory:
        """Write a memory for `character` by hand (about `about`, else about itself; in the core
        tier with `core`). The character (and `about`) are created if the world has not seen them."""
        owner = self._id(character)
        subject = None if about is None else self._id(about)
        if subject == owner:
            subject = None
        args = {"id": "d_" + uuid.uuid4().hex[:16], "character": owner, "about": subject,
                "text": _text(text), "core": bool(core),
                "importance": _unit(0.8 if core else 0.6, importance, "importance", 0.0),
                "valence": _unit(0.0, valence, "valence", -1.0)}
        return self._edit("memory.add", args, by)

    def memory_edit(self, memory_id: str, text: str, *, by: str | None = None) -> Memory:
        """Replace a memory's text (live or archived); its history keeps the old text."""
        return self._edit("memory.edit", {"id": memory_id, "text": _text(text)}, by)

    def memory_pin(self, memory_id: str, *, by: str | None = None) -> Memory:
        """Pin a memory: it never fades and never leaves the live tiers until unpinned or forgotten."""
        return self._edit("memory.pin", {"id": memory_id}, by)

    def memory_unpin(self, memory_id: str, *, by: str | None = None) -> Memory:
        """Unpin a memory: curation may fade and archive it again (unless a designer wrote it)."""
        return self._edit("memory.unpin", {"id": memory_id}, by)

    def memory_forget(self, memory_id: str, *, by: str | None = None) -> Memory:
        """Archive a live memory with the reason `forgotten_by_designer` (never deleted)."""
        return self._edit("memory.forget", {"id": memory_id}, by)

    def memory(self, memory_id: str) -> Memory:
        """One memory by id, live or archived (`UnknownMemory` if there is none)."""
        found = self.world.find_memory(_memory_id(memory_id))
        if found is None:
            raise UnknownMemory(memory_id)
        return found

    def memory_history(self, memory_id: str) -> list[MemoryEdit]:
        """The hand changes of one memory, oldest first."""
        key = _memory_id(memory_id)
        edits = edit_history(self.world, key)
        if not edits and self.world.find_memory(key) is None:
            raise UnknownMemory(memory_id)
        return edits

    def _edit(self, kind: str, args: dict[str, Any], by: str | None) -> Memory:
        who = designer() if by is None else by.strip()
        if not who or len(who) > 200:
            raise InvalidInput("a name of 1 to 200 characters", field="by")
        args["id"] = _memory_id(args["id"])
        return self._apply_memory_edit(kind, {**args, "by": who, "at": iso(datetime.now(UTC))})

    def _apply_memory_edit(self, kind: str, args: dict[str, Any]) -> Memory:
        """Make one logged edit (`kind`: memory.add, .edit, .pin, .unpin, .forget) with every
        argument given, who and when included: what a rewind replays."""
        with self.world.transaction() as world:
            memory = _apply(world, kind, args)
            log_operation(world, kind, args)
        return memory


def _apply(world: World, kind: str, args: dict[str, Any]) -> Memory:
    now = world.clock()
    when = iso(now) if now is not None else None
    action = kind.removeprefix("memory.")
    if action == "add":
        memory = _added(world, args, now or datetime.fromisoformat(args["at"]))
        world.insert_memory(memory, world.next_memory_seq())
        log_edit(world, MemoryEdit(memory_id=memory.id, owner=memory.owner, action="add",
                                   after=memory.content, by=args["by"], at=args["at"], world_time=when))
        return memory
    found = world.find_memory(args["id"])
    if found is None:
        raise UnknownMemory(args["id"])
    memory = found
    before: str | None = None
    after: str | None = None
    if action == "edit":
        before, after = memory.content, args["text"]
        set_content(world, memory.id, after)
        memory.content = after
    elif action in ("pin", "unpin"):
        if action == "pin" and memory.tier is Tier.ARCHIVED:
            raise InvalidInput(f"memory {memory.id} is archived ({memory.archived_reason}); only a "
                               "live memory can be pinned", field="id")
        memory.pinned = action == "pin"
        set_pinned(world, memory.id, memory.pinned)
    elif action == "forget":
        if memory.tier is Tier.ARCHIVED:
            raise InvalidInput(f"memory {memory.id} is already archived ({memory.archived_reason})",
                               field="id")
        world.archive_memory(memory, reason=FORGOTTEN, at=now or datetime.fromisoformat(args["at"]))
    else:
        raise InvalidInput(f"not a memory edit: {kind!r}", field="kind")
    log_edit(world, MemoryEdit(memory_id=memory.id, owner=memory.owner, action=action, before=before,
                               after=after, by=args["by"], at=args["at"], world_time=when))
    return memory


def _added(world: World, args: dict[str, Any], now: datetime) -> Memory:
    owner, subject = args["character"], args["about"]
    world.ensure_characters([owner] + ([subject] if subject else []), now)
    if subject is not None and not world.relationships_among(owner, [subject]):
        world.save_relationship(Relationship(owner=owner, other=subject))
    kind = MemoryKind.RELATIONSHIP_EVENT if subject else MemoryKind.PERSONALITY_MOMENT
    valence = float(args["valence"])
    return Memory(id=args["id"], owner=owner, subject=subject, content=args["text"], kind=kind,
                  emotional_impact="positive" if valence > 0.15 else "negative" if valence < -0.15
                  else "neutral", valence=valence, importance=float(args["importance"]),
                  tier=Tier.CORE if args["core"] else Tier.RECENT, last_recalled=now, created_at=now,
                  strength_at=now, written_by=args["by"])


def _text(text: Any) -> str:
    if not isinstance(text, str) or not text.strip():
        raise InvalidInput("a memory needs some text", field="text")
    if len(text) > MAX_TEXT:
        raise InvalidInput(f"at most {MAX_TEXT:,} characters, got {len(text):,}", field="text")
    return text.strip()


def _unit(default: float, value: float | None, field: str, low: float) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= 1.0:
        raise InvalidInput(f"a number from {low:g} to 1, got {value!r}", field=field)
    return float(value)


def _memory_id(memory_id: Any) -> str:
    if not isinstance(memory_id, str) or not memory_id.strip() or len(memory_id) > 200:
        raise InvalidInput("a memory id (text, at most 200 characters)", field="id")
    return memory_id.strip()
