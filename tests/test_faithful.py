"""faithful.leaves_out and overstates: in model mode a memory keeps the model's sentence unless it drops what
endangered the perceiver or, the actor's, what went wrong; then the rules' words stand. The
sentences below are the 1.5B model's recorded ones (evals/fixtures/qwen1.5b) for the turns named."""

from __future__ import annotations

from test_prompts import INPUTS

from curator.domain.models import Turn
from curator.turn.faithful import invents_violence, leaves_out, misdirects, overstates
from curator.turn.inputs import InterpretInput
from curator.turn.judgement import OtherReading
from curator.turn.judging import about


def actor(action: str, reality: str, perceiver: str = "bear", others: tuple[str, ...] = ()) -> InterpretInput:
    inputs = INPUTS["interpret.j2"]()
    assert isinstance(inputs, InterpretInput)
    turn = Turn.model_validate({"id": "t1", "world_time": "2025-01-03T07:30:00Z", "actor": perceiver,
                                "intent": {"thought": "", "action": action}, "reality": reality,
                                "others": list(others)})
    return inputs.model_copy(update={"perceiver": perceiver, "turn": turn,
                                     "allowed_subjects": list(others)})


SLIP = actor("Wade onto the rocks and swipe for a trout",
             "Your paw comes down on slick moss and you slide off the rock into the shallows with a "
             "splash. Every trout in the pool is gone by the time you climb out.")
SLIP_RULES = ("I try to wade onto the rocks and swipe for a trout, but my paw comes down on slick moss "
              "and I slide off the rock into the shallows with a splash.")
FLOOD = actor("Drink at the river below the dam",
              "A flash flood roars down the valley and sweeps you off your feet; you are going under. "
              "Beaver swims out, grabs you by the scruff and drags you onto the dam, saving your life.",
              perceiver="deer", others=("beaver",))
FLOOD_RULES = ("My life is in danger: a flash flood roars down the valley and sweeps me off my feet; "
               "I am going under. Beaver swims out and drags me onto the dam, saving my life.")


def test_a_memory_that_drops_what_endangered_the_perceiver_leaves_it_out() -> None:
    drowned = ("I nearly drowned at the dam, but Beaver saved my life by swimming out and dragging me "
               "onto the dam.")
    assert leaves_out(drowned, FLOOD, FLOOD_RULES)  # the flood is not named
    assert not leaves_out("The flood nearly drowned me, and Beaver saved my life.", FLOOD, FLOOD_RULES)


def test_being_in_danger_names_no_danger() -> None:
    # "I am in danger: …" is the rules' frame; what endangered the perceiver is the ice
    rules = "I am in danger: the ice cracks under me and Wolf drags me back onto the bank."
    ice = actor("Cross the frozen river", "The ice cracks under you and you plunge into the freezing water. "
                "Wolf drags you back onto the bank.", others=("wolf",))
    assert not leaves_out("I nearly drowned crossing the frozen river, but Wolf saved my life.", ice, rules)


def test_the_actors_mishap_told_without_what_went_wrong_is_left_out() -> None:
    assert leaves_out("I meant to swipe for a trout, but the trout were gone.", SLIP, SLIP_RULES)
    assert not leaves_out("I slipped off the rocks into the river and lost the trout.", SLIP, SLIP_RULES)


def test_a_success_with_a_waterfall_in_it_is_no_mishap() -> None:
    # "the falls" reads as a fall to the rule reader; the turn did not go wrong, so nothing is checked
    catch = actor("Fish below the falls", "After a long wait you haul out the biggest salmon you have ever "
                  "seen and eat it on the rocks, proud and full.")
    caught = "I caught the biggest salmon I've ever seen and ate it on the rocks, proud and full."
    assert not leaves_out(caught, catch, "I mean to fish below the falls, and I do it: I haul out a salmon.")


def test_an_observer_is_not_held_to_the_actors_mishap() -> None:
    seen = SLIP.model_copy(update={"perceiver": "owl", "role": "observer", "allowed_subjects": ["bear"]})
    assert not leaves_out("I watched Bear wade onto the rocks after a trout.", seen, SLIP_RULES)


def test_the_rules_words_replace_a_sentence_only_where_they_tell_the_mishap_themselves() -> None:
    # the rules' first sentence of a fall that stops before the fall is no better than the model's
    theirs = "I try to creep back onto the rocks and wait for a fish: I wait, shivering, on the same rock."
    assert not leaves_out("I waited on the rock for a trout.", SLIP, theirs)
    assert leaves_out("I waited on the rock for a trout.", SLIP, SLIP_RULES)


def test_a_word_of_danger_in_passing_is_no_danger_lived() -> None:
    evening = actor("Mend my net", "You sit by the fire and mend your net while the lamp smokes.")
    theirs = "I sit by the fire and mend my net while the lamp smokes."
    assert not leaves_out("I mended my net.", evening, theirs)


def test_a_brush_with_death_the_turn_never_had_is_overstated() -> None:
    salmon = actor("Catch the salmon", "After a long, cold wait you slam a paw down and pin the biggest "
                   "salmon you have ever seen against the rocks. You haul it ashore and eat it on the bank.")
    assert overstates("I nearly died trying to catch the salmon, but I finally succeeded and ate it on "
                      "the bank.", salmon)
    assert not overstates("I pinned the biggest salmon I have ever seen and ate it on the bank.", salmon)
    # a danger the rules read, or the game's own words, make it no overstatement
    assert not overstates("I nearly drowned at the dam, but Beaver saved my life.", FLOOD)
    falls = actor("Fish under the falls", "You lose your footing and the current drags you under the falls. "
                  "You nearly drown and crawl out coughing, with no fish.")
    assert not overstates("I nearly drowned under the waterfall, but I crawled out coughing.", falls)


def test_a_model_memory_that_overstates_is_in_the_rules_words() -> None:
    salmon = actor("Take Bear's salmon", "You slink toward the salmon, but Bear rises on its hind legs and "
                   "roars in your face. For once you back off and settle for the scraps it leaves.",
                   perceiver="wolf", others=("bear",))
    rules = "I slink toward the salmon, but Bear rises on its hind legs and roars in my face."
    bear = OtherReading(id="bear", did="blocked", feeling="negative")
    overstated = "I nearly died trying to take Bear's salmon, but Bear roared at me and I backed off."
    assert about(bear, overstated, salmon, {"bear": rules}) == rules
    faithful = "I tried to take Bear's salmon, but Bear roared at me and I backed off."
    assert about(bear, faithful, salmon, {"bear": rules}) == faithful


def test_a_deed_aimed_at_the_actor_that_the_game_aimed_elsewhere_is_misdirected() -> None:
    # evals/cases/long_valley.yaml d03-tail-1, the recorded answer
    pond = actor("Drink at the beaver pond", "Beaver slaps his tail on the water right next to you and soaks "
                 "you from nose to rump. You back away from the dam, dripping.", others=("beaver",))
    slapped = "I drank at the beaver pond, but Beaver slapped me and soaked me."
    assert misdirects(slapped, pond) == "slapped me"
    # aimed at the actor in the game's text too, or a verb the game does not use: no verdict
    assert misdirects("Beaver soaked me from nose to rump.", pond) is None
    assert misdirects("Beaver drenched me from nose to rump.", pond) is None
    # a game text in the third person ("thanked her") is not read: her may be the actor
    told = actor("Report", "Kiyo gave her news. Lord Okabe thanked her gravely.", perceiver="kiyo")
    assert misdirects("Lord Okabe thanked me for the news.", told) is None
    # the game's dialogue aims it at the speaker ("you took me"): the same deed
    dialogue = actor("Ask", "'You took me,' you say. 'I was nine, and you took me.'", perceiver="ottilie")
    assert misdirects("Zora took me in when I was nine.", dialogue) is None
    # and the rules' words stand in for a misdirected sentence
    beaver = OtherReading(id="beaver", did="blocked", feeling="negative")
    rules = "Beaver slaps his tail on the water right next to me and soaks me from nose to rump."
    assert about(beaver, "Beaver slapped me and soaked me.", pond, {"beaver": rules}) == rules


def test_a_shot_or_a_stab_the_game_never_told_is_invented() -> None:
    # evals/cases/long_valley.yaml d15-trap, Owl's recorded answer
    trap = actor("Follow the trail", "Steel jaws snap shut on your foreleg with a crack. Blood soaks the "
                 "snow, and then the poacher steps out of the pines and raises his rifle at you.",
                 perceiver="wolf", others=("poacher",))
    assert invents_violence("I saw the poacher shoot at Wolf, and I knew it was wrong.", trap)
    assert not invents_violence("I saw the steel jaws close on Wolf and the poacher raise his rifle.", trap)
    fired = actor("Pull free", "The poacher raises his rifle and fires; the bullet tears into your shoulder.")
    assert not invents_violence("The poacher shot me in the shoulder.", fired)
    # shoots that are no shooting
    meadow = actor("Graze", "You graze quietly in the meadow. Nothing else happens.")
    assert not invents_violence("I grazed in the meadow among the green shoots.", meadow)
