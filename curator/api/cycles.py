"""Fading and evolution cycles in short transactions: the world's turns go in between.

An evolution cycle on a world of 10,000 characters held the write lock for 11 minutes in one
transaction (issue #16), and every writer of the world waited. Here a cycle is many small
transactions, none of which holds the lock for long:

- fading, at most `FADE_BATCH` memories or `FADE_BUDGET` seconds per transaction, each batch
  walking on in seq order from where the last one ended;
- each character's evolution (evolution/cycle.py `evolve_character`), one transaction each, for
  the characters that lived something since their last cycle (`due_for_cycle`), as
  a unit of work (model/rounds.py): with a model, the identity narratives of every character
  are asked for in one round, as before, and each character commits once its answer is in;
- the report, last: rendered outside any transaction, stored in one of its own.

A character's evolution reads and writes only its own rows, so the cycle's result is the
one a single transaction gave. Interrupted midway (the process killed), a cycle leaves the
characters it finished evolved; running it again at the same time evolves the rest, and
the report it stores then lists only the memories that second run's fading archived.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from curator.domain.config import CuratorConfig
from curator.domain.errors import InvalidInput
from curator.domain.models import iso
from curator.domain.results import ChangeSet
from curator.evolution.cycle import draft_report, due_for_cycle, evolve_character, report_cycle
from curator.evolution.report import CharacterEvolution, EvolutionReport
from curator.model.rounds import BookDecider, Unit
from curator.model.steps import Decider
from curator.store.world import World
from curator.turn.pipeline import Curation

FADE_BATCH = 500  # at most this many memories faded per transaction ...
FADE_BUDGET = 0.05  # ... and none more once it has held the write lock this long (seconds)
FADE_READ = 100  # memories read per statement within a batch
FADE_SETTLE = 0.25  # at most this long waiting between batches for a checkpoint under way (seconds)


def fade_in_batches(world: Callable[[], World], config: CuratorConfig, decider: Decider, when: datetime,
                    *, field: str) -> ChangeSet:
    """Fade every recent memory to `when`, in short transactions, each walking on from the
    seq where the last one stopped and stopping at `FADE_BATCH` memories or once it has
    held the write lock for `FADE_BUDGET`, whichever comes first: under load a fixed count
    of 500 took 177-440 ms a batch at 10,000 characters. Between batches it lets a background
    checkpoint under way finish (at most `FADE_SETTLE`). The first refuses a `when` before
    the world clock (`field` names the argument); the changes of all of them."""
    changes = ChangeSet()
    first = True
    after: int | None = 0
    while after is not None:
        with world().transaction() as store:
            deadline = time.perf_counter() + FADE_BUDGET
            if first:
                clock = store.clock()
                if clock is not None and when < clock:
                    raise InvalidInput(f"{iso(when)} is before the world clock {iso(clock)}", field=field)
                first = False
            curation = Curation(store, config, decider)
            after = _fade_batch(curation, when, after, deadline)
        changes.forgotten.extend(curation.changes.forgotten)
        checkpointer = world().checkpointer
        if after is not None and checkpointer is not None:
            checkpointer.settle(FADE_SETTLE)  # the log copied before the next batch (checkpoint.py)
    return changes


def _fade_batch(curation: Curation, when: datetime, after: int, deadline: float) -> int | None:
    """One batch: recent memories faded to `when` (archived when faded out) in seq order from
    the first after `after`, read a few at a time (a batch its deadline cuts short read few
    it left), until FADE_BATCH of them or the deadline; the world clock set to `when`.
    Returns the seq to go on from, None when none is left."""
    world, done = curation.world, 0
    world.set_meta("clock", iso(when))
    while done < FADE_BATCH:
        asked = min(FADE_READ, FADE_BATCH - done)
        read = 0
        for seq, memory in world.recent_memories_before(when, after=after, limit=asked):
            read, after = read + 1, seq
            if not curation.fade_memory(memory, when):
                world.set_strength(memory)
            if time.perf_counter() > deadline:
                return after
        if read < asked:
            return None
        done += read
    return after


def cycle_units(world: Callable[[], World], config: CuratorConfig, when: datetime,
                changes: ChangeSet) -> list[Unit[EvolutionReport | CharacterEvolution | None]]:
    """The units of an evolution cycle at `when` after its fading (`changes`): one per character
    that lived something since its last cycle (cycle.py `due_for_cycle`), in id order, then
    the report's. The last unit's result is the report."""
    evolved: dict[str, CharacterEvolution | None] = {}
    characters, resting = due_for_cycle(world())

    def character_unit(character: str) -> Unit[EvolutionReport | CharacterEvolution | None]:
        def attempt(decider: BookDecider | Decider, commit: bool) -> CharacterEvolution | None:
            with world().transaction(commit=commit) as store:
                result = evolve_character(store, config, decider, character, when)
            if commit:
                evolved[character] = result
            return result
        return Unit(attempt)

    def report(decider: BookDecider | Decider, commit: bool) -> EvolutionReport:
        done = [r for r in (evolved.get(c) for c in characters) if r is not None]
        draft = draft_report(done, changes.forgotten, when, resting=resting)  # outside the lock
        with world().transaction(commit=commit) as store:
            return report_cycle(store, draft)

    return [*(character_unit(c) for c in characters), Unit(report)]
