"""Fading and evolution cycles in short transactions: the world's turns go in between.

An evolution cycle on a world of 10,000 characters held the write lock for 11 minutes in one
transaction (issue #16), and every writer of the world waited. Here a cycle is many small
transactions, none of which holds the lock for long:

- fading, `FADE_BATCH` memories per transaction (each faded memory's strength is set at the
  cycle's time, so the next batch starts where the last one ended);
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

FADE_BATCH = 500  # memories faded per transaction: a few milliseconds of the write lock


def fade_in_batches(world: Callable[[], World], config: CuratorConfig, decider: Decider, when: datetime,
                    *, field: str) -> ChangeSet:
    """Fade every recent memory to `when`, in short transactions. The first refuses a `when`
    before the world clock (`field` names the argument); the changes of all of them."""
    changes = ChangeSet()
    first = True
    while True:
        with world().transaction() as store:
            if first:
                clock = store.clock()
                if clock is not None and when < clock:
                    raise InvalidInput(f"{iso(when)} is before the world clock {iso(clock)}", field=field)
                first = False
            curation = Curation(store, config, decider)
            faded = curation.fade_to(when, limit=FADE_BATCH)
        changes.forgotten.extend(curation.changes.forgotten)
        if faded < FADE_BATCH:
            return changes


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
