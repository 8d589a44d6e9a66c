"""More general English rules of the fallback's reading: gifts passed toward someone, firsts,
repeats of the same event, deeds that bring danger into the world, and speech to a listener."""

from __future__ import annotations

from conftest import TurnFactory

from curator import MemoryKind, Turn
from curator.config import FORMATION_THRESHOLDS
from curator.fallback import interpret
from curator.inputs import InterpretInput, RelationView
from curator.models import Relationship
from curator.reading import read_turn


def _inputs(turn: dict, *, perceiver: str | None = None, interactions: int = 3) -> InterpretInput:
    t = Turn.model_validate(turn)
    perceiver = perceiver or t.actor
    role = "actor" if perceiver == t.actor else "observer"
    subjects = list(t.others) if role == "actor" else [c for c in [t.actor, *t.others] if c != perceiver]
    rels = {o: RelationView.of(Relationship(owner=perceiver, other=o, interactions=interactions))
            for o in subjects}
    return InterpretInput(perceiver=perceiver, role=role, persona="", turn=t, relationships=rels,
                          recent_self=[], allowed_subjects=subjects)


def _kept(inp: InterpretInput) -> list:  # type: ignore[type-arg]
    """The drafts that reach their kind's formation threshold (what the pipeline would keep)."""
    return [m for m in interpret(inp).memories if m.importance >= FORMATION_THRESHOLDS[m.kind]]


# -- gifts ----------------------------------------------------------------------------------

def test_food_moved_toward_you_is_a_kindness(make_turn: TurnFactory) -> None:
    turn = make_turn("Wolf takes the upper pool and you take the lower one; he noses a trout toward "
                     "you when it gets away from him.", action="Fish beside Wolf at the ford",
                     others=["wolf"])
    assert read_turn(Turn.model_validate(turn)).roles["wolf"] == "helper"
    (memory,) = _kept(_inputs(turn))
    assert memory.subject == "wolf" and memory.kind is MemoryKind.KINDNESS and memory.valence > 0


def test_something_thrown_toward_you_is_no_gift(make_turn: TurnFactory) -> None:
    reading = read_turn(Turn.model_validate(make_turn(
        "Wolf kicks a stone toward you and trots off.", others=["wolf"])))
    assert reading.roles["wolf"] != "helper"


def test_food_that_moves_by_itself_is_no_ones_gift(make_turn: TurnFactory) -> None:
    reading = read_turn(Turn.model_validate(make_turn(
        "Wolf watches from the bank while a trout swims toward you.", others=["wolf"])))
    assert reading.roles["wolf"] == "present"


# -- firsts ---------------------------------------------------------------------------------

def test_something_never_seen_before_is_remembered_as_a_discovery(make_turn: TurnFactory) -> None:
    turn = make_turn("A grey heron spears a frog in the shallows and flaps off. You have never seen "
                     "a bird eat a frog whole before.", action="Watch the heron in the shallows")
    (memory,) = _kept(_inputs(turn))
    assert memory.kind is MemoryKind.DISCOVERY and "never seen" in memory.content


def test_the_same_sight_without_a_first_is_not_kept(make_turn: TurnFactory) -> None:
    turn = make_turn("A grey heron spears a frog in the shallows and flaps off.",
                     action="Watch the heron in the shallows")
    assert _kept(_inputs(turn)) == []


# -- narration of an attempt ----------------------------------------------------------------

def test_an_action_that_is_an_attempt_is_not_tried_twice() -> None:
    from curator.narration import tried

    assert tried("try the slippery rocks at the falls") == "tried the slippery rocks at the falls"
    assert tried("Try to climb the oak") == "tried to climb the oak"
    assert tried("attempt to cross the ice") == "tried to cross the ice"
    assert tried("climb the oak") == "tried to climb the oak"
    assert tried("trap a rabbit") == "tried to trap a rabbit"  # a word that starts like 'try'


def test_a_failed_attempt_reads_as_one_attempt(make_turn: TurnFactory) -> None:
    turn = make_turn("Your feet shoot out from under you and the fish leap past untouched.",
                     action="Try the slippery rocks at the falls")
    (memory,) = interpret(_inputs(turn)).memories
    assert memory.content.startswith("I tried the slippery rocks at the falls, but")
