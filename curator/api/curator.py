"""The Python API: `Curator` is what a game server holds, one per world file.

    with Curator("world.db") as curator:
        result = curator.observe(turn_dict)   # after every turn
        bear = curator.character("bear")      # what bear remembers

Every write is one transaction. A turn is validated before anything is written; a turn id
seen before returns the stored result (marked `duplicate`) and changes nothing.

With a model (`model=` or `$CURATOR_MODEL`), decisions are asked of it outside the
transaction, in rounds (rounds.py): the characters who perceived a turn are curated
concurrently, `observe_many` and `aobserve_many` take whole batches, and every call is
logged in the world's `calls` table.

This module holds the writing half (turns, episodes, fading, evolution, personas, imports,
lens weights, deleting a character); the reading half (memories, recall, personality, goals,
abilities, mood, the network, exports) is `WorldReads` in reads.py, which `Curator` inherits.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Mapping, Sequence
from contextlib import suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import ValidationError

from curator.api.access import Connections, translated
from curator.api.budget import BudgetMixin
from curator.api.cycles import cycle_units, fade_in_batches
from curator.api.editing import MemoryEditing
from curator.api.embeddings import SemanticRecall
from curator.api.exporting import WorldExport
from curator.api.importing import Importing
from curator.api.knowing import Knowing
from curator.api.parsing import kind_of, parse_turn, parse_turns
from curator.api.reads import WorldReads
from curator.api.saves import Saves
from curator.domain.config import AppraisalConfig, CuratorConfig
from curator.domain.errors import (
    ConflictingTurn,
    CuratorError,
    InvalidInput,
    TimeWentBackwards,
    UnknownCharacter,
)
from curator.domain.models import (
    MAX_PERSONA,
    Turn,
    iso,
    parse_time,
)
from curator.domain.results import ChangeSet, TurnResult
from curator.evolution.report import EvolutionReport
from curator.model.calls import CallRecord, log_calls, read_calls
from curator.model.llm import ModelGateway, ModelSettings
from curator.model.rounds import Answer, BookDecider, Pending, Request, Unit, run_rounds
from curator.model.steps import Decider, FallbackDecider
from curator.store import knowing as knowing_store
from curator.store.clock import set_clock
from curator.store.oplog import last_turn, log_operation
from curator.store.world import World
from curator.turn import hearsay
from curator.turn.pipeline import Curation

R = TypeVar("R")


@translated
class Curator(Importing, MemoryEditing, Saves, BudgetMixin, SemanticRecall, WorldExport, WorldReads, Knowing):
    """Memories for the characters of one world (one SQLite file). Safe to share between
    threads: each thread that uses it gets a connection of its own (access.py)."""

    def __init__(self, db: str | Path = "curator.db", *, config: CuratorConfig | None = None,
                 model: ModelSettings | str | None = None, decider: Decider | None = None,
                 create: bool = True, force: bool = False):
        """`model`: a litellm model name or `ModelSettings`; None reads `$CURATOR_MODEL`, and
        with neither every step is decided by its fallback. `decider` replaces both.

        `create=False` refuses a file that does not exist (`WorldNotFound`) instead of making
        a new world; `force=True` adds a world's tables to an SQLite database that has tables
        of its own (refused with `ForeignDatabase` otherwise)."""
        self.config = config or CuratorConfig()
        self.decider: Decider = decider or FallbackDecider()
        settings = None
        if decider is None:
            settings = model if isinstance(model, ModelSettings) else ModelSettings.from_env(model=model)
        self.gateway: ModelGateway | None = ModelGateway(settings) if settings is not None else None
        self.connections = Connections(db, busy_timeout_ms=self.config.busy_timeout_ms,
                                       create=create, force=force)
        with suppress(CuratorError):  # a read-only world keeps them, unseen
            self.clean_up_imports()  # what an import that died midway left (api/importing.py)

    @property
    def world(self) -> World:
        """The world as this thread's connection sees it."""
        return self.connections.world()

    def close(self) -> None:
        if self.gateway is not None:
            self.gateway.close()
        self.connections.close()

    def __enter__(self) -> Curator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------

    def observe(self, data: Turn | Mapping[str, Any] | str | bytes) -> TurnResult:
        """Curate one turn for the actor and every observer, in one transaction."""
        started = time.perf_counter()
        turn = parse_turn(data)
        if self.gateway is None:
            return self._attempt_turn(turn, self.decider, commit=True, started=started)
        return self._drive([self._turn_unit(turn, started)])[0]

    def observe_many(self, turns: Iterable[Turn | Mapping[str, Any] | str | bytes]) -> list[TurnResult]:
        """Curate a batch of turns in order, asking the model for many at once.

        Every turn is validated before any is curated. Turns commit one by one, in order; if
        one fails (its time went backwards, say), the turns before it stay committed."""
        parsed = parse_turns(turns)
        if self.gateway is None:
            return [self.observe(turn) for turn in parsed]
        results: list[TurnResult] = []
        for wave in _waves(parsed):
            results.extend(self._drive([self._turn_unit(t, time.perf_counter()) for t in wave]))
        return results

    async def aobserve(self, data: Turn | Mapping[str, Any] | str | bytes) -> TurnResult:
        """`observe` for asyncio: model calls are awaited, the database work is brief."""
        return (await self.aobserve_many([data]))[0]

    async def aobserve_many(self, turns: Iterable[Turn | Mapping[str, Any] | str | bytes]
                            ) -> list[TurnResult]:
        """`observe_many` for asyncio, with at most `concurrency` model calls in flight."""
        parsed = parse_turns(turns)
        if self.gateway is None:
            return [self.observe(turn) for turn in parsed]
        results: list[TurnResult] = []
        for wave in _waves(parsed):
            results.extend(await self._adrive([self._turn_unit(t, time.perf_counter()) for t in wave]))
        return results

    def calls(self, *, turn_id: str | None = None, character: str | None = None,
              outcome: Literal["model", "fallback"] | None = None, limit: int | None = None
              ) -> list[CallRecord]:
        """The model call log, oldest first (the last `limit` calls when given)."""
        who = self._id(character) if character is not None else None
        return read_calls(self.world, turn_id=turn_id, character=who, outcome=outcome, limit=limit)

    def _turn_unit(self, turn: Turn, started: float) -> Unit[TurnResult]:
        def attempt(decider: BookDecider, commit: bool) -> TurnResult:
            return self._attempt_turn(turn, decider, commit=commit, started=started)
        return Unit(attempt, turn_id=turn.id, world_time=turn.world_time)

    def _attempt_turn(self, turn: Turn, decider: Decider, *, commit: bool, started: float) -> TurnResult:
        payload = turn.model_dump_json(exclude_none=True)
        digest = hashlib.sha256(payload.encode()).hexdigest()
        with self.world.transaction(commit=commit) as world:
            logged = world.logged_turn(turn.id)
            if logged is not None:
                if logged[0] != digest:
                    raise ConflictingTurn("this id was already observed with different content",
                                          field="id", turn_id=turn.id)
                previous = TurnResult.model_validate_json(logged[1] or "{}")
                return previous.model_copy(update={"duplicate": True})
            perceiver_ids = list(dict.fromkeys([turn.actor, *turn.observers, *turn.listeners]))
            # Each character has its own clock (m010): several writers whose game clocks
            # interleave, each with its own characters, are all accepted.
            for who, clock in world.character_clocks(perceiver_ids).items():
                if turn.world_time < clock:
                    raise TimeWentBackwards(f"{iso(turn.world_time)} is before {who}'s last turn at "
                                            f"{iso(clock)}", field="world_time", turn_id=turn.id)
            stories = hearsay.resolve(world, turn)  # NotKnown before anything is written
            curation = Curation(world, self.config, decider)
            since = curation.seq
            created = world.ensure_characters([*turn.characters, *turn.listeners], turn.world_time)
            curation.changes.created_characters.extend(created)
            pending: list[Request] = []
            perceivers: list[tuple[str, Literal["actor", "observer"]]] = [(turn.actor, "actor")]
            perceivers += [(observer, "observer") for observer in turn.observers]
            for character, role in perceivers:
                # A character waiting for a decision does not stop the others from asking
                # for theirs: each perceiver reads and writes only its own memories.
                try:
                    curation.perceive(turn, character, role)
                except Pending as waiting:
                    pending.extend(waiting.requests)
            pending.extend(hearsay.tell(curation, turn, stories, since))  # after the perceivers
            if pending:
                raise Pending(pending)
            # The changes were validated as they were made: dumping and validating them again
            # took ~45 µs of a busy turn.
            result = TurnResult.model_construct(turn_id=turn.id, world_time=iso(turn.world_time),
                                                **dict(curation.changes))
            result.elapsed_ms = round((time.perf_counter() - started) * 1000, 3)
            world.log_turn(turn_id=turn.id, seq=world.next_turn_seq(), world_time=turn.world_time,
                           digest=digest, payload=payload, result=result.model_dump_json(),
                           received_at=iso(datetime.now(UTC)))
            world.advance_clocks(perceiver_ids, turn.world_time)
        return result

    def _drive(self, units: Sequence[Unit[R]]) -> list[R]:
        """Run units to completion, each round of model calls in the gateway's thread pool."""
        assert self.gateway is not None
        rounds, gate = run_rounds(units), self._gate()  # budgets (api/budget.py)
        try:
            requests = next(rounds)
            while True:
                answers = gate.call_many(requests)
                self._log(answers)
                requests = rounds.send(answers)
        except StopIteration as finished:
            return finished.value  # type: ignore[no-any-return]

    async def _adrive(self, units: Sequence[Unit[R]]) -> list[R]:
        assert self.gateway is not None
        rounds, gate = run_rounds(units), self._gate()
        try:
            requests = next(rounds)
            while True:
                answers = await gate.acall_many(requests)
                self._log(answers)
                requests = rounds.send(answers)
        except StopIteration as finished:
            return finished.value  # type: ignore[no-any-return]

    def _log(self, answers: list[Answer]) -> None:
        with self.world.transaction() as world:
            log_calls(world, [a.call for a in answers if a.call is not None])

    def end_episode(self, character: str, with_: str | None = None) -> ChangeSet:
        """When an episode ends: fold recent memories into summaries, consider core."""
        owner = self._known(character)
        only = with_.strip().casefold() if with_ is not None else None
        if only is not None:
            known = self.world.relationship_others(owner)
            if only not in known:
                raise UnknownCharacter(only, known=known)

        def attempt(decider: Decider, commit: bool) -> ChangeSet:
            with self.world.transaction(commit=commit) as world:
                now = world.clock() or datetime.now(UTC)
                curation = Curation(world, self.config, decider)
                for other in [only] if only is not None else world.relationship_others(owner):
                    curation.end_episode(owner, other, now)
                log_operation(world, "end_episode", {"character": owner, "with": only})
            return curation.changes

        if self.gateway is None:
            return attempt(self.decider, True)
        return self._drive([Unit(attempt)])[0]

    def fade(self, until: datetime | str | None = None) -> ChangeSet:
        """Apply time fading to every recent memory up to `until` (default: the world clock),
        in short transactions (cycles.py)."""
        clock = self.world.clock()
        when = _parse_time(until, "until") if until is not None else clock
        if when is None:
            return ChangeSet()
        after = last_turn(self.world)
        changes = fade_in_batches(lambda: self.world, self.config, self.decider, when, field="until")
        self._log_operation("fade", {"until": iso(when)}, after)
        return changes

    def evolve(self, world_time: datetime | str | None = None) -> EvolutionReport:
        """An evolution cycle at `world_time` (default: the world clock): fade memories, drift
        attributes, trust and rapport with what each character lived through since its last
        cycle, take personality snapshots, detect drift, refresh identity narratives (a
        model's, else the fallback's) and store a Markdown report (evolution/cycle.py). Each
        character commits on its own (cycles.py), so the game's turns go in between. Running
        it twice at one time changes nothing."""
        when = _parse_time(world_time, "world_time") if world_time is not None else None
        when = when or self.world.clock() or datetime.now(UTC)
        after = last_turn(self.world)
        changes = fade_in_batches(lambda: self.world, self.config, self.decider, when, field="world_time")
        units = cycle_units(lambda: self.world, self.config, when, changes)
        if self.gateway is None:
            results = [unit.attempt(self.decider, True) for unit in units]  # type: ignore[arg-type]
        else:
            results = self._drive(units)
        report = results[-1]
        assert isinstance(report, EvolutionReport)
        self._log_operation("evolve", {"world_time": iso(when)}, after)
        return report

    def set_persona(self, character: str, persona: str) -> None:
        """Set a character's persona (at most MAX_PERSONA characters: it goes into every prompt)."""
        if not isinstance(persona, str):
            raise InvalidInput(f"a persona is text, not {kind_of(persona)}", field="persona")
        if len(persona) > MAX_PERSONA:
            raise InvalidInput(f"at most {MAX_PERSONA:,} characters, got {len(persona):,}", field="persona")
        with self.world.transaction() as world:
            seen = world.now()
            world.ensure_character(self._id(character), seen)
            world.set_character(self._id(character), persona=persona)
            log_operation(world, "persona", {"character": self._id(character), "persona": persona}, at=seen)

    def set_clock(self, world_time: datetime | str) -> datetime | None:
        """Set the world clock back (or forward) to `world_time`, never before the latest
        observed turn: the way back from a clock an import moved far ahead (store/clock.py).
        Returns the clock it replaced."""
        when = _parse_time(world_time, "clock")
        with self.world.transaction() as world:
            log_operation(world, "clock", {"world_time": iso(when)})
            return set_clock(world, when)

    # -- appraisal and the memory network ----------------------------------------

    def set_lens_weights(self, character: str, weights: Mapping[str, float]) -> dict[str, float]:
        """Weigh the appraisal lenses for one character from now on (for this Curator: like the
        rest of `config`, it is the game's to set when it opens a world), e.g.
        `{"danger": 2.0}` for a cautious one; lenses not named keep the world's weight.
        Returns the character's weights; an unknown lens or a weight outside 0..10 is an error."""
        key = self._id(character)
        appraisal = self.config.appraisal
        merged = {**appraisal.character_weights, key: {**appraisal.character_weights.get(key, {}),
                                                      **dict(weights)}}
        try:
            checked = AppraisalConfig.model_validate({**appraisal.model_dump(), "character_weights": merged})
        except ValidationError as error:
            raise InvalidInput(error.errors()[0]["msg"], field="weights") from error
        self.config.appraisal = checked
        return checked.weights_for(key)

    def delete_character(self, character: str) -> dict[str, int]:
        """Delete a character and everything that refers to it, in one transaction; returns the
        rows removed per table (see `World.delete_character`), and under
        `memory_sources.mouths` the others' hearsay it had passed on, which now says "someone"
        told it."""
        with self.world.transaction() as world:
            log_operation(world, "delete_character", {"character": world.known_character(character)})
            who = world.known_character(character)
            retold = knowing_store.forget_teller(world, who)
            return {**world.delete_character(who), "memory_sources.mouths": retold}

    def _log_operation(self, kind: str, args: dict[str, Any], after: int) -> None:
        """Log an operation that commits in several transactions (fading, evolution) once it has
        run, placed after the turn that was the last when it began (`after`): one that failed
        is not logged, and one cut short is done again whole when a rewind replays it."""
        with self.world.transaction() as world:
            log_operation(world, kind, args, after_turn=after)


def _waves(turns: list[Turn]) -> list[list[Turn]]:
    """Split a batch, in order, into runs of turns that share no perceiver: the turns of one
    run can ask for their decisions together, since none changes what another will be asked."""
    waves: list[list[Turn]] = []
    seen: set[str] = set()
    for turn in turns:
        perceivers = {turn.actor, *turn.observers, *turn.listeners}
        if not waves or perceivers & seen:
            waves.append([])
            seen = set()
        waves[-1].append(turn)
        seen |= perceivers
    return waves


def _parse_time(value: datetime | str, field: str) -> datetime:
    try:
        return parse_time(value)
    except ValueError as error:
        raise InvalidInput(str(error), field=field) from error


__all__ = ["Curator", "CuratorError", "parse_turn"]
