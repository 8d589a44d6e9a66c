"""Who knows what, in the API: how each memory is known (`provenance`, `sources`, `who_knows`)
and groups, a place or a faction whose members hold its knowledge (`join_group`,
`add_group_knowledge`, …). `Curator` inherits `Knowing`.

A group's knowledge ("the great storm flooded the mill") is held by each member as a core
memory of its own (so context, search, show and export treat it like any memory and nobody
else sees it), with a source row naming the group (origin 'shared', confidence 0.8). A
character that joins later is given what the group already holds; one that leaves keeps what
it learnt but is given nothing new. Telling is a turn's (`tells`, turn/hearsay.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from curator.domain.construct import trusted
from curator.domain.errors import InvalidInput, UnknownGroup, UnknownTurn
from curator.domain.knowing import Provenance, confidence
from curator.domain.models import (
    MAX_TEXT,
    Memory,
    MemoryKind,
    Tier,
    normalize_character_id,
    normalize_label,
)
from curator.store import knowing
from curator.store.oplog import log_operation
from curator.store.visibility import STAGED
from curator.store.world import World
from curator.turn.phrasing import sentence
from curator.turn.threads import memory_id


class Knowing:
    """Provenance and groups; mixed into `Curator` (which gives `world`, `_known`)."""

    @property
    def world(self) -> World:  # Curator's (this thread's connection)
        raise NotImplementedError

    def _known(self, character: str) -> str:  # WorldReads's
        raise NotImplementedError

    # -- how a memory is known ------------------------------------------------------------

    def provenance(self, memory_id: str) -> Provenance | None:
        """How the owner of a memory came to know it (None: unknown, e.g. an old import)."""
        return knowing.sources(self.world, [memory_id]).get(memory_id)

    def sources(self, character: str) -> dict[str, Provenance]:
        """How a character knows each of its memories (live or archived), by memory id."""
        return knowing.sources_of(self.world, self._known(character))

    def who_knows(self, turn_id: str) -> dict[str, Provenance]:
        """Who holds a memory of a turn, and how (did, witnessed, told through N mouths); a turn
        neither logged nor remembered by anyone is `UnknownTurn`."""
        if not isinstance(turn_id, str) or not 1 <= len(turn_id) <= 128:
            raise InvalidInput("a turn id is 1-128 characters", field="turn_id")
        best: dict[str, Provenance] = {}
        rows = self.world.conn.execute(
            f"select owner, memory_id from memory_sources where about = ? and owner not in {STAGED} "
            "order by owner, hops, memory_id",
            (turn_id,)).fetchall()
        if not rows and self.world.logged_turn(turn_id) is None:  # an import holds no turn log
            raise UnknownTurn(turn_id)
        found = knowing.sources(self.world, [r[1] for r in rows])
        for owner, memory in rows:
            best.setdefault(owner, found[memory])
        return best

    # -- groups -------------------------------------------------------------------------------

    def join_group(self, group: str, *characters: str) -> list[str]:
        """Make characters members of a group (created by its first member); each new member is
        given what the group holds. Returns those that were not members yet."""
        key = _group(group)
        with self.world.transaction() as world:
            ids = [_character(c) for c in characters]
            if not ids:
                raise InvalidInput("name at least one character", field="characters")
            now = world.now()
            world.ensure_characters(ids, now)
            new = knowing.join_group(world, key, ids, now)
            for item in knowing.knowledge(world, key):
                _share(world, key, item, new, now)
            log_operation(world, "api.join_group", {"args": [key, *ids], "kwargs": {}})
        return new

    def leave_group(self, group: str, *characters: str) -> int:
        """Characters leave a group (they keep what they learnt); how many were members."""
        key = self._group_known(group)
        with self.world.transaction() as world:
            ids = [_character(c) for c in characters]
            log_operation(world, "api.leave_group", {"args": [key, *ids], "kwargs": {}})
            return knowing.leave_group(world, key, ids)

    def groups(self, character: str | None = None) -> list[str]:
        """Every group of the world, or the groups a character belongs to."""
        if character is None:
            return knowing.group_names(self.world)
        return knowing.groups_of(self.world, self._known(character))

    def group_members(self, group: str) -> list[str]:
        return knowing.members(self.world, self._group_known(group))

    def add_group_knowledge(self, group: str, text: str, *, about: str | None = None,
                            importance: float = 0.6) -> dict[str, Any]:
        """Something a whole group knows: every member (now and later) holds it as a core memory.
        `about`: the character it concerns, if any. Returns the entry with its holders."""
        key = _group(group)
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("the knowledge is non-empty text", field="text")
        if len(text) > MAX_TEXT:
            raise InvalidInput(f"at most {MAX_TEXT:,} characters, got {len(text):,}", field="text")
        if isinstance(importance, bool) or not isinstance(importance, int | float) \
                or not 0.0 <= importance <= 1.0:
            raise InvalidInput("importance is a number from 0 to 1", field="importance")
        subject = _character(about) if about is not None else None
        with self.world.transaction() as world:
            now = world.now()
            if subject is not None:
                world.ensure_character(subject, now)
            kid = knowing.add_knowledge(world, key, sentence(text), subject=subject,
                                        kind=MemoryKind.SYSTEM_KNOWLEDGE.value,
                                        importance=float(importance), at=now)
            item = knowing.knowledge(world, key)[-1]
            _share(world, key, item, knowing.members(world, key), now)
            log_operation(world, "api.add_group_knowledge", {"args": [key, text], "kwargs": {
                "about": subject, "importance": float(importance)}})
            return {**item, "holders": knowing.holders(world, key, kid)}

    def group_knowledge(self, group: str) -> list[dict[str, Any]]:
        """What a group holds, oldest first, each with who holds it."""
        key = self._group_known(group)
        return [{**item, "holders": knowing.holders(self.world, key, item["id"])}
                for item in knowing.knowledge(self.world, key)]

    def _group_known(self, group: str) -> str:
        key = _group(group)
        known = knowing.group_names(self.world)
        if key not in known:
            raise UnknownGroup(key, known=known)
        return key


def _group(value: str) -> str:
    try:
        return normalize_label(value) if isinstance(value, str) else normalize_label(str(value))
    except ValueError as error:
        raise InvalidInput(str(error).replace("a label", "a group name"), field="group") from error


def _character(value: str) -> str:
    try:
        return normalize_character_id(value)
    except ValueError as error:
        raise InvalidInput(str(error), field="character") from error


def _share(world: World, group: str, item: dict[str, Any], owners: Iterable[str], now: datetime) -> None:
    """Give each owner the group's knowledge `item` as a core memory of its own (once)."""
    told_in = f"group:{group}:{item['id']}"
    seq = world.next_memory_seq()
    for owner in owners:
        mid = memory_id(told_in, owner, 0)
        if world.find_memory(mid) is not None:
            continue  # it rejoined: it still holds it
        subject = item["subject"] if item["subject"] != owner else None
        if subject is not None and subject not in world.relationship_others(owner):
            world.save_relationship(world.relationship(owner, subject, with_memories=False))
        memory = trusted(Memory, {  # in the model's field order (construct.trusted)
            "id": mid, "owner": owner, "subject": subject, "content": item["content"],
            "kind": MemoryKind(item["kind"]), "emotional_impact": "informed", "valence": 0.0,
            "importance": item["importance"], "tier": Tier.CORE, "strength": 1.0, "recall_count": 0,
            "last_recalled": now, "created_at": now, "strength_at": now, "source_turns": [],
            "traits": [], "place": None, "domain": None, "archived_at": None, "archived_reason": None})
        world.insert_memory(memory, seq)
        seq += 1
        knowing.record(world, mid, owner, Provenance(origin="shared", confidence=confidence("shared"),
                                                     told_in=told_in, group=group))
