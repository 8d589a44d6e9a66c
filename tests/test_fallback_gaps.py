"""More general English rules of the fallback's reading: gifts passed toward someone, firsts,
repeats of the same event, deeds that bring danger into the world, and speech to a listener."""

from __future__ import annotations

from conftest import TurnFactory
from conftest import interpret_input as _inputs

from curator import MemoryKind, Turn
from curator.domain.config import FORMATION_THRESHOLDS
from curator.turn.fallback import interpret
from curator.turn.inputs import InterpretInput
from curator.turn.reading import read_turn


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
    from curator.turn.phrasing import tried

    assert tried("try the slippery rocks at the falls") == "try the slippery rocks at the falls"
    assert tried("Try to climb the oak") == "try to climb the oak"
    assert tried("attempt to cross the ice") == "try to cross the ice"
    assert tried("climb the oak") == "try to climb the oak"
    assert tried("trap a rabbit") == "try to trap a rabbit"  # a word that starts like 'try'


def test_a_failed_attempt_reads_as_one_attempt(make_turn: TurnFactory) -> None:
    turn = make_turn("Your feet shoot out from under you and the fish leap past untouched.",
                     action="Try the slippery rocks at the falls")
    (memory,) = interpret(_inputs(turn)).memories
    assert memory.content.startswith("I try the slippery rocks at the falls, but")


# -- repeats (dedup.py): shared by the model's drafts and the fallback's ----------------------

def test_the_same_event_retold_under_another_heading_reinforces(curator, make_turn) -> None:  # type: ignore[no-untyped-def]
    splash = "Beaver slaps his tail on the water right next to you{} and soaks you from nose to rump."
    curator.observe(make_turn(splash.format(""), others=["beaver"], action="Drink at the beaver pond"))
    second = curator.observe(make_turn(splash.format(" again"), others=["beaver"],
                                       action="Drink at the beaver pond again"))
    assert [c.subject for c in second.reinforced] == ["beaver"] and not second.formed
    (memory,) = curator.character("bear").relationships["beaver"].recent_memories
    assert memory.content.startswith("I meet Beaver for the first time") and len(memory.source_turns) == 2


def test_the_same_words_felt_the_opposite_way_are_two_memories() -> None:
    from curator.domain.models import Memory, Tier
    from curator.turn.decisions import MemoryDraft
    from curator.turn.dedup import find_repeat

    told = "Wolf drops a fat trout on the bank right beside my den at dawn"
    old = Memory.model_construct(id="m1", owner="bear", subject="wolf", content=f"{told}.",
                                 kind=MemoryKind.KINDNESS, valence=0.7, tier=Tier.RECENT)
    draft = MemoryDraft(subject="wolf", content=f"I met Wolf again. {told}.", kind=MemoryKind.BETRAYAL,
                        emotional_impact="betrayed", valence=-0.8, importance=0.6)
    assert find_repeat([old], draft, similarity=0.55) is None
    warm = draft.model_copy(update={"kind": MemoryKind.RELATIONSHIP_EVENT, "valence": 0.4})
    assert find_repeat([old], warm, similarity=0.55) is old


def test_the_same_attempt_failing_again_reinforces_the_first_failure(curator, make_turn) -> None:  # type: ignore[no-untyped-def]
    curator.observe(make_turn("Your paw comes down on slick moss and you slide off the rock into the "
                              "shallows. Every trout is gone.", action="Wade onto the rocks and swipe "
                              "for a trout", outcome={"result": "failed"}))
    again = curator.observe(make_turn("The spray has glazed the rocks with ice. Your feet shoot out from "
                                      "under you and the fish leap past untouched.",
                                      action="Try the slippery rocks at the falls",
                                      outcome={"result": "failed"}))
    assert len(again.reinforced) == 1 and not again.formed
    (memory,) = curator.character("bear").self_memories.recent_events
    assert len(memory.source_turns) == 2


def test_failures_at_different_things_stay_apart(curator, make_turn) -> None:  # type: ignore[no-untyped-def]
    failed = {"result": "failed"}
    curator.observe(make_turn("Your paw slides off the rock and every trout is gone.",
                              action="Wade onto the rocks and swipe for a trout", outcome=failed))
    other = curator.observe(make_turn("The branch snaps and you tumble into the brambles; no honey.",
                                      action="Climb the old oak to the beehive", outcome=failed))
    assert len(other.formed) == 1 and not other.reinforced


def test_what_an_attempt_acts_on() -> None:
    from curator.turn.dedup import attempt_objects

    assert attempt_objects("Wade onto the rocks and swipe for a trout") == {"rock", "trout"}
    assert attempt_objects("Try the slippery rocks at the falls") == {"rock", "fall"}
    assert attempt_objects("Head out") == set()


# -- negation stays in its sentence ---------------------------------------------------------

def test_a_negator_does_not_reach_into_the_sentence_before(make_turn: TurnFactory) -> None:
    reading = read_turn(Turn.model_validate(make_turn(
        "You walk the ridge and sniff the wind. Nothing much happens.", action="Walk the ridge")))
    assert not reading.failure


# -- a danger set on purpose ----------------------------------------------------------------

def test_setting_a_trap_is_a_decision_its_doer_remembers(make_turn: TurnFactory) -> None:
    turn = make_turn("You bury the steel jaws under leaf litter on the game trail and stake the chain "
                     "to a root.", actor="poacher", action="Set a steel leg-hold trap on the game trail")
    (memory,) = _kept(_inputs(turn))
    assert memory.subject is None and memory.kind is MemoryKind.DECISION_RECORD
    assert "steel jaws" in memory.content


def test_lighting_a_fire_and_poisoning_are_dangers_set_on_purpose(make_turn: TurnFactory) -> None:
    for reality in ("You light a fire in the dry grass below the ridge.", "You poison the well."):
        assert read_turn(Turn.model_validate(make_turn(reality, actor="poacher"))).armed, reality


def test_the_same_verbs_without_a_danger_for_object_set_nothing(make_turn: TurnFactory) -> None:
    for reality in ("You set off through the storm toward the ridge.", "You lay the fish by the fire.",
                    "The poacher sets a trap by the river."):  # the last is someone else's deed
        assert not read_turn(Turn.model_validate(make_turn(reality))).armed, reality
    turn = make_turn("You set the fish down by the fire and eat.", actor="bear")
    assert all(m.kind is not MemoryKind.DECISION_RECORD for m in interpret(_inputs(turn)).memories)


# -- a life saved ---------------------------------------------------------------------------

def test_a_danger_from_which_your_life_was_saved_was_mortal(make_turn: TurnFactory) -> None:
    turn = make_turn("A flash flood roars down the valley and sweeps you off your feet; you are going "
                     "under. Beaver swims out and drags you onto the dam, saving your life.",
                     actor="deer", others=["beaver"], action="Drink at the river")
    assert read_turn(Turn.model_validate(turn)).actor_lethal
    own = [m for m in interpret(_inputs(turn)).memories if m.subject is None]
    assert own[0].kind is MemoryKind.DANGER and own[0].content.startswith("My life is in danger")
    assert own[0].importance >= 0.9  # reaches core review: a life-threatening event is core


def test_a_life_saved_without_a_danger_in_the_text_is_a_figure_of_speech(make_turn: TurnFactory) -> None:
    reading = read_turn(Turn.model_validate(make_turn(
        "Fox shares her berries with you, saving your life this hungry winter.", others=["fox"])))
    assert not reading.actor_lethal and not reading.actor_danger


RESCUE = {"id": "r1", "world_time": "2025-03-15T08:10:00Z", "actor": "bear",
          "intent": {"action": "Charge the hunter"}, "others": ["wolf", "poacher"],
          "observers": ["wolf", "owl"], "outcome": {"danger": True},
          "reality": "You knock the poacher down and he flees. You pry the jaws open until Wolf pulls "
                     "his leg free."}


def test_an_observer_the_actor_helped_remembers_a_kindness_not_a_sight() -> None:
    saved = interpret(_inputs(RESCUE, perceiver="wolf"))
    (memory,) = [m for m in saved.memories if m.subject == "bear"]
    assert memory.kind is MemoryKind.KINDNESS and memory.valence > 0.5
    assert memory.content.startswith("Bear comes to my aid: ") and "I pull my leg free" in memory.content
    (toward_bear,) = [f for f in saved.feelings if f.toward == "bear"]
    assert toward_bear.sentiment_shift >= 0.3
    # a bystander saw the same turn: a sight, not a kindness to itself
    seen = interpret(_inputs(RESCUE, perceiver="owl"))
    assert [m.kind for m in seen.memories if m.subject == "bear"] == [MemoryKind.WITNESSED]


def test_an_observer_the_actor_attacked_remembers_a_clash() -> None:
    attack = {**RESCUE, "others": ["wolf"], "observers": ["wolf"], "outcome": None,
              "reality": "You charge Wolf and knock him into the river."}
    hit = interpret(_inputs(attack, perceiver="wolf"))
    (memory,) = [m for m in hit.memories if m.subject == "bear"]
    assert memory.kind is MemoryKind.CONFLICT and memory.valence < 0
    assert [f.sentiment_shift < 0 for f in hit.feelings if f.toward == "bear"] == [True]
