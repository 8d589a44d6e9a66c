"""The rule reader beyond the forest: third-person turns, rescues, betrayals and amends in
other words, routine moments. Each example is written here, not taken from the eval stories."""

from __future__ import annotations

import pytest
from conftest import TurnFactory

from curator import Turn
from curator.turn.narration import retell
from curator.turn.perspective import second_person
from curator.turn.phrasing import intended
from curator.turn.reading import read_turn


def reading(make_turn: TurnFactory, reality: str, **kw: object):  # type: ignore[no-untyped-def]
    return read_turn(Turn.model_validate(make_turn(reality, **kw)))


@pytest.mark.parametrize(("text", "actor", "expected"), [
    ("Ada checks Ada's rope.", "ada", "you checks your rope."),
    # Told about the actor: an object pronoun where someone else acts is the actor.
    ("Ada slips. Tom hauls her back onto the ledge.", "ada", "you slips. Tom hauls you back onto the ledge."),
    # Spoken to the actor: pronouns are left alone.
    ("You slip. Tom hauls her back onto the ledge.", "ada", "You slip. Tom hauls her back onto the ledge."),
    # The actor not named: nothing changes.
    ("Tom hauls her back.", "ada", "Tom hauls her back."),
])
def test_a_turn_told_in_the_third_person_is_read_in_the_second(text: str, actor: str, expected: str) -> None:
    assert second_person(text, actor) == expected


def test_a_rescue_told_in_the_third_person(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The boat capsizes and Ada goes under twice. Tom grabs her collar and "
                              "drags her out onto the shingle.", actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper" and read.actor_danger and read.actor_lethal


def test_alive_because_of_someone_names_the_rescuer_and_the_danger(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The ice gives way under the sled. You wake by Tom's stove with his coat "
                              "around you; you are alive because of him.", actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper" and read.actor_lethal


@pytest.mark.parametrize("reality", [
    "Tom sells you out to the magistrate before the hearing.",
    "Tom stands before the guild and takes the credit for your design.",
    "Tom tells the abbot he had carved it himself.",
    "Every coin you trusted him with is gone. Tom gambled it all away in one night.",
])
def test_betrayals_in_other_words(make_turn: TurnFactory, reality: str) -> None:
    assert reading(make_turn, reality, actor="ada", others=["tom"]).roles["tom"] == "betrayer"


@pytest.mark.parametrize("reality", [
    "Tom comes back with the money, says he lied and is ashamed of it, and asks your pardon.",
    "Tom thanks you for the night watch.",
    "Tom slides your keys back across the desk.",
    "Tom takes the other end of the crate without a word.",
])
def test_amends_thanks_and_a_hand_are_help(make_turn: TurnFactory, reality: str) -> None:
    assert reading(make_turn, reality, actor="ada", others=["tom"]).roles["tom"] == "helper"


@pytest.mark.parametrize("reality", [
    "You read the overnight log. Hull green, scopes empty; you yawn twice.",
    "The morning round, as always: the pumps, the hay, the broom.",
])
def test_a_routine_is_quiet_and_no_failure(make_turn: TurnFactory, reality: str) -> None:
    read = reading(make_turn, reality, actor="ada")
    assert read.quiet and not read.failure


def test_a_verb_left_third_person_after_you_is_mine_and_a_real_second_person_is_kept() -> None:
    # the actor's name made "you" leaves "you shoulders … and finds": the actor's memory agrees
    assert retell("you shoulders through the doors and finds no brawl.", perceiver="jody", actor="jody") == \
        "I shoulder through the doors and find no brawl."
    assert retell("You focus on the trail and pass the rocks.", perceiver="jody", actor="jody") == \
        "I focus on the trail and pass the rocks."


@pytest.mark.parametrize(("told", "perceiver", "expected"), [
    # its possessives are its own until someone else may own them ("when Tom…", "the boy")
    ("Ada has her hat in her hands and is half out of her chair when Tom speaks.", "ada",
     "I have my hat in my hands and am half out of my chair when Tom speaks."),
    ("Ada takes the boy by his collar.", "ada", "I take the boy by his collar."),
    # a verb coordinated past its object, and one that needs no object
    ("Jody shoulders through the doors and finds no brawl at all.", "jody",
     "I shoulder through the doors and find no brawl at all."),
    ("Brennan wheezes that the fizz buzzes.", "brennan", "I wheeze that the fizz buzzes."),
    # an aside between the name and its verb
    ("Delia, behind the bar, is trying hard not to laugh.", "delia",
     "I, behind the bar, am trying hard not to laugh."),
    ("Ezra, brought along to cool tempers, never has to open his mouth.", "ezra",
     "I, brought along to cool tempers, never have to open my mouth."),
    # a pair as a subject, an epithet before the name
    ("On the porch Delia and Jody let go of the rail.", "delia",
     "On the porch Jody and I let go of the rail."),
    ("Fox leaves Delia and Jody behind.", "delia", "Fox leaves Jody and me behind."),  # me last
    ("'Clean,' she writes, and Vigil reads it over her shoulder.", "vigil",
     "'Clean,' she writes, and I read it over her shoulder."),  # hers: she was named first
    ("Beside her Corliss touches two fingers to his hat brim.", "corliss",
     "Beside her I touch two fingers to my hat brim."),
    ("She tugs her shirt down, and Eli, waiting his turn, lets out a breath.", "eli",
     "She tugs her shirt down, and I, waiting my turn, let out a breath."),
    ("Kell reads it over Varga's shoulder, says nothing, and stays for coffee.", "kell",
     "I read it over Varga's shoulder, say nothing, and stay for coffee."),
    ("Then young Jody, sent to keep the peace, lets out a breath.", "jody",
     "Then I, sent to keep the peace, let out a breath."),
])
def test_the_perceivers_own_name_in_its_memory_is_i(told: str, perceiver: str, expected: str) -> None:
    assert retell(told, perceiver=perceiver, actor="tom") == expected


@pytest.mark.parametrize(("action", "expected"), [
    ("I collect my strongbox from the hotel.", "collect my strongbox from the hotel"),
    ("I'll swim the herd across the creek", "swim the herd across the creek"),
    ("the overnight log", "see to the overnight log"),
    ("Head to the river", "head to the river"),
    ("pawning my gold watch to Delia", "pawn my gold watch to Delia"),  # a gerund: its verb
    ("covering the back shaft", "cover the back shaft"),
    ("stopping the cart", "stop the cart"),
    ("making bread", "make bread"),
    ("telling the sheriff", "tell the sheriff"),
    ("bring the lamp", "bring the lamp"),  # not a gerund
])
def test_an_intent_reads_after_i_meant_to(action: str, expected: str) -> None:
    assert intended(action) == expected


def test_told_about_the_actor_its_memory_says_me() -> None:
    text = "Ada loses her footing. Tom hooks her under the arms and drags her clear."
    assert retell(text, perceiver="ada", actor="ada") == \
        "I lose my footing. Tom hooks me under the arms and drags me clear."
    # A pronoun before "under", "clear", … is the object, not a possessive to make "my".
    assert retell(text, perceiver="tom", actor="ada") == \
        "Ada loses her footing. I hook her under the arms and drag her clear."
