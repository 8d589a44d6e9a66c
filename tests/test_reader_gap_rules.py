"""The rule reader's gap, help and feelings by the judgement set's definitions (issue #14, the
rules' gap): a rescue of someone hurt is help, a refusal blocks, a thing undone is thwarted, a
forgotten errand is a surprise, harm after a "but" is mixed, a mishap with no one to blame is a
failure; and words that only look like deeds (a name given, one's own bag carried, a shovel, the
wind). Examples written here, not taken from the eval stories."""

from __future__ import annotations

from conftest import TurnFactory

from curator import Gap, Turn
from curator.turn.perspective import second_person
from curator.turn.reading import Reading, read_turn


def reading(make_turn: TurnFactory, reality: str, **kw: object) -> Reading:
    return read_turn(Turn.model_validate(make_turn(reality, **kw)))


def test_a_rescue_is_help_even_when_the_rescued_was_hurt(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The ladder gives way and you fall, gashing your arm on the rail. Tom "
                              "drags you clear of the rubble.", actor="ada", others=["tom"])
    assert read.actor_harm and read.gap is Gap.HELPED and read.roles["tom"] == "helper"


def test_a_mishap_with_no_one_to_blame_is_a_failure(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The rope frays and you drop onto the rocks, bleeding from the knee.",
                   actor="ada")
    assert read.actor_harm and read.gap is Gap.FAILED


def test_a_refusal_blocks_whoever_says_it(make_turn: TurnFactory) -> None:
    no = reading(make_turn, "Tom hears you out and will not let you past the gate.", actor="ada",
                 others=["tom"])
    assert no.gap is Gap.BLOCKED and no.roles["tom"] == "hostile"
    grind = reading(make_turn, "Through the hatch Tom says he will sell nothing of his to you.",
                    actor="ada", others=["tom"])
    assert grind.gap is Gap.BLOCKED
    # a stranger the story does not name: still a no
    guard = reading(make_turn, "At the gangway a sailor looks at your papers and shakes his head.",
                    actor="ada")
    assert guard.gap is Gap.BLOCKED
    doorway = reading(make_turn, "Tom fills the doorway and does not move.", actor="ada", others=["tom"])
    assert doorway.gap is Gap.BLOCKED


def test_undoing_the_work_under_way_thwarts_it(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Halfway through the upload Tom reverts your changes and logs off.",
                   actor="ada", others=["tom"])
    assert read.gap is Gap.THWARTED and read.roles["tom"] == "hostile"


def test_something_else_entirely_is_a_surprise(make_turn: TurnFactory) -> None:
    forgot = reading(make_turn, "On the way to the well you meet a fox kit in the lane and forget "
                                "all about the bucket.", actor="ada", action="fetch water")
    assert forgot.gap is Gap.SURPRISED
    own = reading(make_turn, "Before you touch it the old engine starts on its own.", actor="ada",
                  action="start the engine")
    assert own.gap is Gap.SURPRISED
    other = reading(make_turn, "The crowbar opens the crate onto a nest of kittens, not a cache.",
                    actor="ada", action="open the crate")
    assert other.gap is Gap.SURPRISED


def test_harm_after_a_but_in_a_turn_that_went_right_is_mixed(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The new pump primes and water flows to the tanks. The pressure spike, "
                              "though, burns out the old valve.", actor="ada", action="start the pump")
    assert read.gap is Gap.MIXED
    plain = reading(make_turn, "The new pump primes and water flows to the tanks.", actor="ada",
                    action="start the pump")
    assert plain.gap is Gap.SUCCEEDED


def test_a_name_a_nod_or_ones_own_bag_is_no_gift(make_turn: TurnFactory) -> None:
    name = reading(make_turn, "Tom gives you his name and walks off.", actor="ada", others=["tom"])
    assert name.roles["tom"] == "present" and name.gap is Gap.SUCCEEDED
    bag = reading(make_turn, "Tom carries his own bag up the stairs.", actor="ada", others=["tom"])
    assert bag.roles["tom"] == "present"
    fetched = reading(make_turn, "Tom, sent to fetch you for dinner, stares at the map.", actor="ada",
                      others=["tom"])
    assert fetched.roles["tom"] == "present"
    wave = reading(make_turn, "On the quay Tom lifts a hand as the boat pulls out.", actor="ada",
                   others=["tom"])
    assert wave.roles["tom"] == "present"
    # a real gift still is one
    gift = reading(make_turn, "Tom gives you his last biscuit.", actor="ada", others=["tom"])
    assert gift.roles["tom"] == "helper"
    lent = reading(make_turn, "Tom lends a hand with the nets.", actor="ada", others=["tom"])
    assert lent.roles["tom"] == "helper"


def test_food_pressed_into_a_palm_is_a_gift(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom presses a squashed chocolate bar into your palm.", actor="ada",
                   others=["tom"])
    assert read.roles["tom"] == "helper" and read.gap is Gap.HELPED


def test_working_side_by_side_is_the_last_ones_help(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom comes up from the forge and picks up the spare shovel. Working side "
                              "by side, the two of them clear the yard.", actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper" and read.gap is Gap.HELPED
    # the actor's own "shoulder to shoulder" is no shove, and not someone else's deed
    mine = reading(make_turn, "Tom pours you a cup of tea. You drink it shoulder to shoulder with him.",
                   actor="ada", others=["tom"])
    assert mine.roles["tom"] == "helper" and mine.acts_on.get("tom") != "hostile"


def test_taking_the_actors_side_survives_the_second_person(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom speaks up first: 'Ada's right. We do it her way.'", actor="ada",
                   others=["tom"])
    assert read.roles["tom"] == "helper"
    left = reading(make_turn, "Tom waits on your right.", actor="ada", others=["tom"])
    assert left.roles["tom"] == "present"


def test_a_clause_opens_at_when_and_a_full_name(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "You have barely sat down when Tom Reed pours you a mug of coffee.",
                   actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper"


def test_words_that_only_look_like_deeds(make_turn: TurnFactory) -> None:
    wind = reading(make_turn, "You row hard, but the wind never drops and the buoy drifts out of reach.",
                   actor="ada", action="reach the buoy")
    assert not wind.success and wind.gap is Gap.FAILED
    stranger = reading(make_turn, "Tom nods to you and looks the stranger over.", actor="ada", others=["tom"])
    assert not stranger.surprise
    tumbling = reading(make_turn, "You steer the skiff between tumbling blocks of ice. The hull stays dry.",
                       actor="ada", action="steer through the ice")
    assert not tumbling.failure and tumbling.gap is Gap.SUCCEEDED
    slides = reading(make_turn, "Tom writes the code on a scrap of paper and slides it across the desk.",
                     actor="ada", others=["tom"])
    assert not slides.failure
    stops = reading(make_turn, "Tom walks into the room and stops.", actor="ada", others=["tom"])
    assert stops.roles["tom"] == "present"
    rest = reading(make_turn, "Two of the raiders run and the rest give up.", actor="ada",
                   action="hold the gate")
    assert not rest.failure


def test_a_but_after_the_thing_was_done_is_mixed(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "You haul the cart to the market and sell the apples by noon. But the "
                              "axle gives out on the road home, and you walk the last mile.",
                   actor="ada", action="haul the cart to market and sell the apples")
    assert read.gap is Gap.MIXED
    # a "but" with nothing done before it is no part gone well
    none = reading(make_turn, "You wait by the road. But nobody comes.", actor="ada",
                   action="sell the apples at the market")
    assert none.gap is not Gap.MIXED


def test_help_that_comes_last_carries_it_through(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "You were halfway through the reading when Tom rose to object that the fee "
                              "was unpaid. Before he could finish, Sam strode up and counted the fee out "
                              "onto the table, and you read on to the end.",
                   actor="ada", others=["tom", "sam"])
    assert read.roles["tom"] == "hostile" and read.roles["sam"] == "helper"
    assert read.gap is Gap.HELPED
    # help first, then the harm: part went well, part badly
    after = reading(make_turn, "Sam holds the ladder for you, and then Tom kicks it out from under you.",
                    actor="ada", others=["tom", "sam"])
    assert after.gap is not Gap.HELPED


def test_a_title_and_a_name_are_one_name(make_turn: TurnFactory) -> None:
    turn = Turn.model_validate(make_turn("Father Tom was halfway through the sermon when Sam rose to object.",
                                         actor="tom", others=["sam"]))
    assert second_person(turn.reality, "tom", ("father",)).startswith("you was halfway")
