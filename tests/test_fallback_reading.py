"""General English rules the fallback reads turns with: negation, records, who does harm,
and the outcomes they lead to."""

from __future__ import annotations

import pytest
from conftest import TurnFactory
from conftest import interpret_input as _inputs

from curator import Gap, MemoryKind, Turn
from curator.domain.config import AppraisalConfig
from curator.domain.lexicon import unnegated
from curator.turn.appraisal import AppraiseInput, appraise, lens_views
from curator.turn.fallback import interpret
from curator.turn.reading import Reading, read_turn


def _read(make_turn: TurnFactory, reality: str, **extra: object):  # type: ignore[no-untyped-def]
    return read_turn(Turn.model_validate(make_turn(reality, **extra)))


# -- negation -------------------------------------------------------------------------------

def test_unnegated_splits_words_a_negator_undoes() -> None:
    plain, negated = unnegated(["the", "hive", "stays", "out", "of", "reach", "and", "you", "get", "no",
                                 "honey"])
    assert "reach" in negated and "honey" in negated
    assert "hive" in plain and "get" in negated and "stays" in plain


def test_a_negated_success_is_a_failure_not_a_success(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "The branch snaps and the beehive stays out of reach; you find no honey.",
                    action="Climb the oak to the beehive")
    assert reading.failure and not reading.success
    assert reading.gap is Gap.FAILED


def test_a_plain_success_is_still_a_success(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "You reach the top of the oak and find the beehive full.",
                    action="Climb the oak to the beehive")
    assert reading.success and not reading.failure


def test_a_fall_short_of_the_goal_is_remembered_as_a_failure(make_turn: TurnFactory) -> None:
    turn = make_turn("Halfway up, the branch snaps and you tumble into the brambles. The beehive "
                     "stays out of reach.", action="Climb the old oak to reach the beehive")
    (memory,) = interpret(_inputs(turn)).memories
    assert memory.kind is MemoryKind.FAILURE


# -- records --------------------------------------------------------------------------------

def test_a_superlative_capped_by_ever_is_a_record(make_turn: TurnFactory) -> None:
    record = _read(make_turn, "You haul out the biggest salmon you have ever seen and eat it.",
                   action="Fish below the falls")
    plain = _read(make_turn, "You haul out a salmon and eat it in the forest, as happy as ever.",
                  action="Fish below the falls")
    assert record.novelty and not plain.novelty


def test_the_catch_of_a_lifetime_is_a_triumph_worth_remembering(make_turn: TurnFactory) -> None:
    turn = make_turn("After a long wait you haul out the biggest salmon you have ever seen, proud "
                     "and full.", action="Fish below the falls")
    (memory,) = interpret(_inputs(turn)).memories
    assert memory.kind is MemoryKind.TRIUMPH
    assert memory.importance >= 0.5  # over the triumph threshold


# -- who does harm --------------------------------------------------------------------------

def test_a_harm_word_used_as_a_noun_is_no_harm(make_turn: TurnFactory) -> None:
    turn = make_turn("Beaver shares the tender willow shoots with you.", others=["beaver"],
                     action="Drink at the pond")
    reading = read_turn(Turn.model_validate(turn))
    assert not reading.harm and reading.roles["beaver"] == "helper"
    (memory,) = interpret(_inputs(turn)).memories
    assert memory.kind is MemoryKind.KINDNESS


def test_a_harm_verb_after_its_doer_is_harm(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "The poacher steps out and shoots you in the shoulder.",
                    others=["poacher"])
    assert reading.harm and "poacher" in reading.harm_by
    assert reading.roles["poacher"] == "hostile"


def test_the_danger_lens_does_not_read_a_noun_as_violence(make_turn: TurnFactory) -> None:
    turn = make_turn("Beaver shares the tender willow shoots with you.", others=["beaver"],
                     action="Drink at the pond")
    inp = _inputs(turn)
    drafts = interpret(inp).memories
    judged = appraise(AppraiseInput(perceiver="bear", role="actor", persona="", turn=inp.turn,
                                    memories=drafts, lenses=lens_views(AppraisalConfig())))
    danger = judged.memories[0].lenses["danger"]
    assert danger.priority == 0.0


# -- the actor's own deeds ------------------------------------------------------------------

def test_what_follows_until_after_the_actors_deed_is_its_result(make_turn: TurnFactory) -> None:
    turn = make_turn("You dig out the trap stake and pry the jaws open until Wolf pulls his leg free.",
                     others=["wolf"], action="Free Wolf")
    reading = read_turn(Turn.model_validate(turn))
    assert reading.acts_on["wolf"] == "helped"
    (memory,) = [m for m in interpret(_inputs(turn)).memories if m.subject == "wolf"]
    assert "trap stake" in memory.content and "Wolf" in memory.content


def test_until_after_someone_elses_deed_still_splits(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "Wolf bares his teeth and growls until you back away.", others=["wolf"])
    assert reading.roles["wolf"] == "hostile"


def test_knocking_down_a_threat_is_hostile_to_it_and_brave(make_turn: TurnFactory) -> None:
    turn = make_turn("You knock the poacher down; he drops his rifle and flees.", others=["poacher"],
                     action="Charge the human")
    reading = read_turn(Turn.model_validate(turn))
    assert reading.acts_on["poacher"] == "hostile"
    assert reading.actor_traits == ["brave"]
    (feeling,) = interpret(_inputs(turn)).feelings
    assert feeling.toward == "poacher" and feeling.sentiment_shift < 0


def test_an_observer_sees_the_rescuer_as_brave_and_protective(make_turn: TurnFactory) -> None:
    turn = make_turn("You knock the poacher down. You pry the jaws open until Wolf pulls his leg free.",
                     others=["poacher", "wolf"], observers=["wolf"], action="Charge the human")
    (seen, *_) = interpret(_inputs(turn, perceiver="wolf")).memories
    assert seen.subject == "bear" and {"brave", "protective"} <= set(seen.traits)


def test_guarding_you_is_a_rescue_not_a_block(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "Bear lies down outside your den, guarding you while you sleep.",
                    others=["bear"], actor="wolf")
    assert reading.roles["bear"] == "helper"


@pytest.mark.parametrize("told", [
    "You slip into the icy river and Wolf pulls you out.",
    "You slip on the ice and go under, and Wolf grabs your scruff and drags you out.",
])
def test_a_rescue_after_and_in_the_actors_sentence_is_the_rescuers(make_turn: TurnFactory, told: str) -> None:
    reading = read_turn(Turn.model_validate(make_turn(told, others=["wolf"])))
    assert reading.roles["wolf"] == "helper" and reading.gap is Gap.HELPED


def test_you_and_a_companion_are_one_subject(make_turn: TurnFactory) -> None:
    reading = read_turn(Turn.model_validate(make_turn("You and Wolf haul the log ashore.", others=["wolf"])))
    assert reading.roles["wolf"] == "present"


# -- tricks ---------------------------------------------------------------------------------

def test_led_somewhere_and_laughed_at_is_a_betrayal(make_turn: TurnFactory) -> None:
    turn = make_turn("Fox leads you into a thorn thicket and runs off laughing; you tear your flank "
                     "getting out.", others=["fox"], actor="deer", action="Follow Fox to the sweet grass")
    reading = read_turn(Turn.model_validate(turn))
    assert reading.roles["fox"] == "betrayer" and reading.actor_harm
    result = interpret(_inputs(turn))
    (memory,) = [m for m in result.memories if m.subject == "fox"]
    assert memory.kind is MemoryKind.BETRAYAL and memory.valence < 0
    assert result.feelings[0].sentiment_shift < -0.5


def test_being_led_somewhere_good_is_still_help(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "Fox leads you into a hidden glade full of sweet grass.", others=["fox"])
    assert reading.roles["fox"] == "helper"


def test_a_torn_body_is_harm_but_tears_alone_are_not(make_turn: TurnFactory) -> None:
    assert _read(make_turn, "You tear your flank on the thorns.").actor_harm
    assert _read(make_turn, "You tear your flank on the thorns.").harm
    assert not _read(make_turn, "Tears run down the old man's face as he sings.").harm


# -- what observers see ---------------------------------------------------------------------

def test_an_observer_remembers_a_deed_hidden_and_thinks_less_of_the_doer(make_turn: TurnFactory) -> None:
    turn = make_turn("You drag the honeycomb out of the hollow log and carry it home, sweeping your "
                     "tracks away with your tail.", actor="fox", observers=["owl"], action="Raid the log")
    reading = read_turn(Turn.model_validate(turn))
    assert reading.concealed and "deceitful" in reading.actor_traits
    result = interpret(_inputs(turn, perceiver="owl"))
    (seen,) = result.memories
    assert seen.subject == "fox" and "honeycomb" in seen.content
    assert seen.importance >= 0.45 and seen.valence < 0  # over the witnessed threshold
    assert [(f.toward, f.sentiment_shift < 0) for f in result.feelings] == [("fox", True)]


def test_an_open_deed_shows_nothing_hidden(make_turn: TurnFactory) -> None:
    reading = _read(make_turn, "You carry the honeycomb home along the trail.", actor="fox")
    assert not reading.concealed and reading.actor_traits == []


def test_an_observer_forgets_a_plain_meeting(make_turn: TurnFactory) -> None:
    turn = make_turn("You walk past Bear on the path.", actor="wolf", others=["bear"],
                     observers=["owl"], action="Walk home")
    seen = interpret(_inputs(turn, perceiver="owl")).memories[0]
    assert seen.importance < 0.45


# -- one reading of the reality per turn ------------------------------------------------------

def _fresh(turn: Turn) -> Reading:
    import curator.turn.reading as reading_module
    reading_module._last = reading_module._last_reality = None
    return read_turn(turn)


def test_an_observer_shares_the_actors_reading_of_the_reality_but_not_of_the_intent(
        make_turn: TurnFactory) -> None:
    # No success word: only the action's own words in what happened say it was done, and an
    # observer does not know the action.
    actor = Turn.model_validate(make_turn("You drive the ewe down to the market and sell her to a drover.",
                                          action="Drive the ewe to market and sell her"))
    observer = actor.model_copy(update={"intent": actor.intent.model_copy(
        update={"action": "(unknown to you)", "thought": ""})})
    expected_actor, expected_observer = _fresh(actor), _fresh(observer)
    assert expected_actor != expected_observer  # the intent matters to this turn's reading
    _fresh(actor)
    assert read_turn(observer) == expected_observer  # read from the actor's reading of the reality
    assert read_turn(actor) == expected_actor


def test_a_turn_that_differs_in_more_than_its_intent_is_read_again(make_turn: TurnFactory) -> None:
    first = Turn.model_validate(make_turn("You find the beehive full.", action="Climb to the beehive"))
    other = first.model_copy(update={"reality": "The branch snaps and you fall.",
                                     "intent": first.intent.model_copy(update={"thought": "again"})})
    expected = _fresh(other)
    _fresh(first)
    assert read_turn(other) == expected and expected.failure
