"""The Python API: `Curator` is what a game server holds, one per world file.

    with Curator("world.db") as curator:
        result = curator.observe(turn_dict)   # after every turn
        bear = curator.character("bear")      # what bear remembers

Every write is one transaction. A turn is validated before anything is written; a turn id
seen before returns the stored result (marked `duplicate`) and changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from curator.config import CuratorConfig
from curator.errors import (
    ConflictingTurn,
    CuratorError,
    InvalidInput,
    InvalidTurn,
    TimeWentBackwards,
    UnknownCharacter,
)
from curator.exporting import character_document, import_document, world_document
from curator.fading import faded_strength
from curator.models import (
    Character,
    Relationship,
    SelfState,
    Tier,
    Turn,
    iso,
    normalize_character_id,
    to_utc,
)
from curator.pipeline import Curation
from curator.results import ChangeSet, TurnResult
from curator.steps import Decider, FallbackDecider
from curator.store import World, open_world


def parse_turn(data: Turn | Mapping[str, Any] | str | bytes) -> Turn:
    """Validate a turn from a dict or JSON text; InvalidTurn names the first bad field."""
    if isinstance(data, Turn):
        return data
    turn_id = None
    try:
        if isinstance(data, str | bytes):
            try:
                raw = json.loads(data)
            except json.JSONDecodeError as error:
                raise InvalidTurn(f"not valid JSON ({error.msg} at line {error.lineno} "
                                  f"column {error.colno})") from error
        else:
            raw = dict(data)
        if not isinstance(raw, dict):
            raise InvalidTurn(f"a turn is a JSON object, not {type(raw).__name__}")
        turn_id = str(raw.get("id")) if raw.get("id") is not None else None
        return Turn.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or None
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            message = "unknown field (a turn has: " + ", ".join(Turn.model_fields) + ")"
        raise InvalidTurn(message, field=field, turn_id=turn_id) from error


class Curator:
    """Memories for the characters of one world (one SQLite file)."""

    def __init__(self, db: str | Path = "curator.db", *, config: CuratorConfig | None = None,
                 decider: Decider | None = None):
        self.config = config or CuratorConfig()
        self.decider: Decider = decider or FallbackDecider()
        self.world: World = open_world(db, busy_timeout_ms=self.config.busy_timeout_ms)

    def close(self) -> None:
        self.world.close()

    def __enter__(self) -> Curator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------

    def observe(self, data: Turn | Mapping[str, Any] | str | bytes) -> TurnResult:
        """Curate one turn for the actor and every observer, in one transaction."""
        started = time.perf_counter()
        turn = parse_turn(data)
        payload = turn.model_dump_json(exclude_none=True)
        digest = hashlib.sha256(payload.encode()).hexdigest()
        with self.world.transaction() as world:
            logged = world.logged_turn(turn.id)
            if logged is not None:
                if logged[0] != digest:
                    raise ConflictingTurn("this id was already observed with different content",
                                          field="id", turn_id=turn.id)
                previous = TurnResult.model_validate_json(logged[1] or "{}")
                return previous.model_copy(update={"duplicate": True})
            clock = world.clock()
            if clock is not None and turn.world_time < clock:
                raise TimeWentBackwards(f"{iso(turn.world_time)} is before the world clock "
                                        f"{iso(clock)}", field="world_time", turn_id=turn.id)
            curation = Curation(world, self.config, self.decider)
            for character in turn.characters:
                if world.ensure_character(character, turn.world_time):
                    curation.changes.created_characters.append(character)
            curation.perceive(turn, turn.actor, "actor")
            for observer in turn.observers:
                curation.perceive(turn, observer, "observer")
            result = TurnResult(turn_id=turn.id, world_time=iso(turn.world_time),
                                **curation.changes.model_dump())
            result.elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
            world.log_turn(turn_id=turn.id, seq=world.next_turn_seq(), world_time=turn.world_time,
                           digest=digest, payload=payload, result=result.model_dump_json(),
                           received_at=iso(datetime.now(UTC)))
            world.set_meta("clock", iso(turn.world_time))
        return result

    def end_episode(self, character: str, with_: str | None = None) -> ChangeSet:
        """Seed 001 'after contracts end': fold recent memories into summaries, consider core."""
        owner = self._known(character)
        with self.world.transaction() as world:
            now = world.clock() or datetime.now(UTC)
            others = world.relationship_others(owner)
            if with_ is not None:
                other = with_.strip().casefold()
                if other not in others:
                    raise UnknownCharacter(other, known=others)
                others = [other]
            curation = Curation(world, self.config, self.decider)
            for other in others:
                curation.end_episode(owner, other, now)
        return curation.changes

    def fade(self, until: datetime | str | None = None) -> ChangeSet:
        """Apply time fading to every recent memory up to `until` (default: the world clock)."""
        with self.world.transaction() as world:
            clock = world.clock()
            when = _parse_time(until, "until") if until is not None else clock
            if when is None:
                return ChangeSet()
            if clock is not None and when < clock:
                raise InvalidInput(f"{iso(when)} is before the world clock {iso(clock)}", field="until")
            curation = Curation(world, self.config, self.decider)
            for memory in world.recent_memories_before(when):
                if not curation.fade_memory(memory, when):
                    world.update_memory(memory)
            world.set_meta("clock", iso(when))
        return curation.changes

    def set_persona(self, character: str, persona: str) -> None:
        with self.world.transaction() as world:
            world.ensure_character(self._id(character), world.clock() or datetime.now(UTC))
            world.set_character(self._id(character), persona=persona)

    def import_document(self, document: Mapping[str, Any], *, replace: bool = False) -> list[str]:
        """Load characters from an export (one character or a whole world); returns their ids."""
        with self.world.transaction() as world:
            return import_document(world, document, replace=replace)

    # -- reading -------------------------------------------------------------------------

    def characters(self) -> list[str]:
        return self.world.character_ids()

    def clock(self) -> datetime | None:
        return self.world.clock()

    def character(self, character: str) -> Character:
        """Everything a character remembers, with strengths as of the world clock."""
        owner = self._known(character)
        world = self.world
        row = world.character_row(owner)
        assert row is not None
        now = world.clock()
        own = SelfState(immediate_context=row["immediate_context"],
                        recent_events=world.memories(owner, None, Tier.RECENT),
                        core_memories=world.memories(owner, None, Tier.CORE))
        relationships: dict[str, Relationship] = {}
        for other in world.relationship_others(owner):
            relationships[other] = world.relationship(owner, other)
        if now is not None:
            lists = [own.recent_events] + [r.recent_memories for r in relationships.values()]
            for memories in lists:
                for memory in memories:
                    memory.strength = faded_strength(memory, memory.strength_at or memory.created_at, now)
        return Character(id=owner, name=row["name"], persona=row["persona"],
                         created_at=datetime.fromisoformat(row["created_at"]), self_memories=own,
                         relationships=relationships)

    def archived(self, character: str) -> list[Any]:
        return self.world.archived_memories(self._known(character), any_subject=True)

    def export_character(self, character: str) -> dict[str, Any]:
        owner = self._known(character)
        return character_document(self.character(owner),
                                  self.world.archived_memories(owner, any_subject=True),
                                  self.world.clock())

    def export_world(self) -> dict[str, Any]:
        return world_document([self.export_character(c) for c in self.characters()], self.world.clock())

    def counts(self, character: str) -> dict[str, int]:
        return self.world.count_memories(self._known(character))

    # -- helpers -------------------------------------------------------------------------

    @staticmethod
    def _id(character: str) -> str:
        try:
            return normalize_character_id(character)
        except ValueError as error:
            raise InvalidInput(str(error), field="character") from error

    def _known(self, character: str) -> str:
        key = self._id(character)
        if self.world.character_row(key) is None:
            raise UnknownCharacter(key, known=self.world.character_ids())
        return key


def _parse_time(value: datetime | str, field: str) -> datetime:
    if isinstance(value, datetime):
        return to_utc(value)
    try:
        return to_utc(datetime.fromisoformat(value))
    except ValueError as error:
        raise InvalidInput(f"not an ISO 8601 time: {value!r}", field=field) from error


__all__ = ["Curator", "CuratorError", "parse_turn"]
