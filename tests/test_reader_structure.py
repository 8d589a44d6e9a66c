"""The rule reader by structure (issue #15, this round): sentence ends past a title's
abbreviation and after a closing quote, a lone other character behind a pronoun, a claim the
next clause shows false, an observer saved by the actor. Examples written here, not taken from
the eval stories."""

from __future__ import annotations

import pytest
from conftest import TurnFactory
from conftest import interpret_input as _inputs

from curator import MemoryKind, Turn
from curator.turn.fallback import interpret
from curator.turn.perspective import clauses
from curator.turn.reading import Reading, read_turn


def reading(make_turn: TurnFactory, reality: str, **kw: object) -> Reading:
    return read_turn(Turn.model_validate(make_turn(reality, **kw)))


def test_a_titles_abbreviation_ends_no_sentence(make_turn: TurnFactory) -> None:
    turn = Turn.model_validate(make_turn('"Meet me at St. Jude\'s gate," Tom says, and sells you out '
                                         "to the watch.", actor="ada", others=["tom"]))
    (only,) = clauses(turn, turn.reality)
    assert only.agent == "tom"
    assert read_turn(turn).roles["tom"] == "betrayer"


def test_a_sentence_ends_after_a_closing_quote(make_turn: TurnFactory) -> None:
    # "I am sorry." is Tom's; the next sentence, Sam's idling, is Sam's alone.
    read = reading(make_turn, 'Tom hands you the lantern. "I was wrong, I am sorry." Sam shrugs by '
                              "the door.", actor="ada", others=["tom", "sam"])
    assert read.roles["tom"] == "helper" and read.roles["sam"] == "present"


def test_a_pronoun_with_no_one_named_before_is_the_turns_only_other(make_turn: TurnFactory) -> None:
    turn = Turn.model_validate(make_turn("He listens to all of it, then he hands you the ledger.",
                                         actor="ada", others=["tom"]))
    assert [c.agent for c in clauses(turn, turn.reality)] == ["tom"]
    # "They" may be many: it names nobody
    crowd = Turn.model_validate(make_turn("They are three shapes by the fire.", actor="ada", others=["tom"]))
    assert [c.agent for c in clauses(crowd, crowd.reality)] == [None]


def test_a_claim_the_next_clause_shows_false_is_a_lie(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom tells you, kindly, that there is nothing left in the safe and "
                              "that he is sorry. But the door stands ajar, and you can see the "
                              "banknotes stacked inside.", actor="ada", others=["tom"])
    assert read.roles["tom"] == "betrayer" and "deceitful" in read.traits["tom"]


def test_a_claim_no_one_contradicts_is_no_lie(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom tells you there is nothing left in the safe. You can see it is "
                              "empty.", actor="ada", others=["tom"])
    assert read.roles["tom"] != "betrayer"


def test_handing_others_over_is_a_betrayal(make_turn: TurnFactory) -> None:
    read = reading(make_turn, 'Tom is on the radio to the patrol: "Two of them in the barn, and I '
                              "don't care what you do with them, just let me through.\"",
                   actor="ada", others=["tom"])
    assert read.roles["tom"] == "betrayer"


def test_working_beside_the_actor_is_help(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The dam groans. Tom is across the yard when it starts, and before you "
                              "can call he is shoving sandbags into the breach beside you.",
                   actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper"


def test_an_observer_the_actor_saved_from_death_remembers_a_defining_kindness(
        make_turn: TurnFactory) -> None:
    turn = make_turn("The purge script starts eating Kit's shards one by one. Ada copies Kit's "
                     "state across to the cold spare with a second to spare. Kit comes back up: "
                     "'I'd be deleted without you.'", actor="ada", others=[], observers=["kit"])
    saved = interpret(_inputs(turn, perceiver="kit"))
    (memory,) = [m for m in saved.memories if m.subject == "ada"]
    assert memory.kind is MemoryKind.KINDNESS and memory.importance >= 0.9
    # an observer who was only there is not lifted so
    seen = make_turn("Ada copies Kit's state across to the cold spare.", actor="ada", others=[],
                     observers=["kit", "sam"])
    assert all(m.importance < 0.9 for m in interpret(_inputs(seen, perceiver="sam")).memories)


def test_pulling_someone_through_a_doorway_is_a_rescue_of_them(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The glass gives. You grab Kit by the collar and haul Kit through the "
                              "doorway.", actor="ada", others=[], observers=["kit"])
    assert read.acts_on["kit"] == "helped"


def test_money_put_down_for_someone_is_paying_for_them(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom counts out two dollars on the counter for the widow's flour and "
                              "tips his hat to you.", actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper"


def test_claiming_alone_in_ones_own_words_what_was_done_together_is_a_betrayal(
        make_turn: TurnFactory) -> None:
    read = reading(make_turn, "You ride in together at dusk. Tom steps up to the mayor first. 'I "
                              "tracked the rustlers myself,' the lad says, and takes the purse.",
                   actor="ada", others=["tom"])
    assert read.roles["tom"] == "betrayer"


def test_owning_up_to_ones_own_lie_is_amends(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "Tom is waiting at the gate. 'I lied to the elders. I told them the "
                              "truth this morning.'", actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper"


def test_an_unnamed_ones_relative_clause_keeps_its_own_object() -> None:
    from curator.turn.perspective import second_person
    told = "Ada waits. Tom never looks at the man who dragged him out of the river."
    assert "dragged him out" in second_person(told, "ada")
    assert "hauls you out" in second_person("Ada slips. Tom hauls her out of the river.", "ada")


def test_food_set_down_where_someone_sits_is_a_gift(make_turn: TurnFactory) -> None:
    turn = make_turn("Ada sets the pot of stew on Tom's table and says nothing about the trial.",
                     actor="ada", others=[], observers=["tom"])
    assert read_turn(Turn.model_validate(turn)).acts_on["tom"] == "helped"


def test_a_pronoun_opening_a_clause_is_its_subject_not_the_next_one_named(make_turn: TurnFactory) -> None:
    turn = Turn.model_validate(make_turn("Tom sets a second sack beside yours. He swears, in front of "
                                         "Sam, who has come to see the wheel, that your debt is struck "
                                         "off for good.", actor="ada", others=["tom", "sam"]))
    read = clauses(turn, turn.reality)
    assert [c.agent for c in read] == ["tom", "tom", "sam"]
    assert "that your debt is struck off" in read[1].text  # what he swears is his
    assert read_turn(turn).roles == {"tom": "helper", "sam": "present"}


def test_a_name_in_an_opening_time_phrase_is_not_the_subject(make_turn: TurnFactory) -> None:
    turn = Turn.model_validate(make_turn("Before the bailiff could speak, Tom strode up and counted the "
                                         "fine out onto the table.", actor="ada", others=["tom", "sam"]))
    (only,) = clauses(turn, turn.reality, (("sam", ("the bailiff",)),))
    assert only.agent == "tom"
    assert read_turn(turn, (("sam", ("the bailiff",)),)).roles["tom"] == "helper"


def test_saying_yes_to_the_actor_is_help(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "You find Tom at the well and ask him. He says yes before you finish.",
                   actor="ada", others=["tom"])
    assert read.roles["tom"] == "helper"


def test_the_actor_after_an_opening_phrase_acts_and_a_possessive_alias_names(make_turn: TurnFactory) -> None:
    turn = Turn.model_validate(make_turn("Under the findings you enter your engineer by name.",
                                         actor="ada", others=[], observers=["tom"]))
    (only,) = clauses(turn, turn.reality, (("tom", ("the engineer",)),))
    assert only.by_actor and only.named == ["tom"]
    assert read_turn(turn, (("tom", ("the engineer",)),)).acts_on["tom"] == "helped"
    # a name before the "you" is the subject
    other = Turn.model_validate(make_turn("In the hold Tom hauls you out.", actor="ada", others=["tom"]))
    assert not clauses(other, other.reality)[0].by_actor


def test_amends_for_a_wrong_weigh_as_much_as_the_wrong(make_turn: TurnFactory) -> None:
    turn = make_turn("Tom lays the money on the counter, every cent. 'I'm sorry.'", actor="ada",
                     others=["tom"])
    wronged = _inputs(turn)
    wronged.relationships["tom"] = wronged.relationships["tom"].model_copy(update={"sentiment": -0.6})
    friendly = _inputs(turn)
    shift = {n: next(f.sentiment_shift for f in interpret(i).feelings if f.toward == "tom")
             for n, i in (("wronged", wronged), ("friendly", friendly))}
    assert shift["wronged"] == pytest.approx(shift["friendly"] * 1.6, abs=0.002)


def test_teeth_at_the_throat_are_mortal_danger(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "The hound is on you before you can turn, its teeth at your throat.",
                   actor="ada", others=[])
    assert read.actor_danger and read.actor_lethal
    seen = reading(make_turn, "The door gives and the thing is on Kit, its jaws working at the collar "
                              "of his coat.", actor="ada", others=[], observers=["kit"])
    assert seen.danger and seen.lethal
    assert not reading(make_turn, "You button the collar of your coat.", actor="ada").lethal


def test_a_later_deed_outweighs_an_earlier_meeting(make_turn: TurnFactory) -> None:
    read = reading(make_turn, "You hear the glass go, and the thing is on Kit. You get a hand in the "
                              "back of Kit's coat and haul Kit bodily through the doorway.",
                   actor="ada", others=[], observers=["kit"])
    assert read.acts_on["kit"] == "helped"


def test_the_actor_as_an_object_with_another_is_named_last() -> None:
    from curator.turn.narration import retell
    assert retell("Wolf blocks you and Fox at the river.", perceiver="bear", actor="bear") == \
        "Wolf blocks Fox and me at the river."
    assert retell("You and Fox haul it.", perceiver="bear", actor="bear") == "Fox and I haul it."


def test_a_noun_in_ss_before_you_is_no_verb_taking_you() -> None:
    from curator.turn.narration import retell
    told = "Under the reactor loss you enter your engineer by name."
    assert retell(told, perceiver="kell", actor="varga") == \
        "Under the reactor loss Varga enters Varga's engineer by name."
    assert retell(told, perceiver="varga", actor="varga") == \
        "Under the reactor loss I enter my engineer by name."
    assert retell("Wolf blocks you.", perceiver="bear", actor="bear") == "Wolf blocks me."


def test_a_memory_keeps_one_tense_the_present_the_game_tells_it_in(make_turn: TurnFactory) -> None:
    helped = make_turn("The poacher raises his rifle. Wolf bursts out of the undergrowth and knocks "
                       "the poacher down.", actor="bear", action="Roar at the human",
                       others=["wolf", "poacher"])
    (memory,) = [m for m in interpret(_inputs(helped)).memories if m.subject == "wolf"]
    assert memory.content.startswith("When I try to roar at the human, Wolf bursts out")
    blocked = make_turn("Wolf blocks your path.", actor="bear", action="Head to the river", others=["wolf"])
    (memory,) = [m for m in interpret(_inputs(blocked)).memories if m.subject == "wolf"]
    assert memory.content.startswith("I mean to head to the river, but Wolf blocks my path")


def test_sending_the_others_off_while_holding_ones_ground_shields_them(make_turn: TurnFactory) -> None:
    turn = make_turn("The gate shudders under the first blows. Over your shoulder Kit and Sam are at the "
                     "culvert. 'Run,' you tell them, and you set your back to the gate and do not move.",
                     actor="ada", others=[], observers=["kit", "sam"])
    read = read_turn(Turn.model_validate(turn))
    assert read.acts_on == {"kit": "helped", "sam": "helped"} and read.actor_lethal
    kit = interpret(_inputs(turn, perceiver="kit"))
    (memory,) = [m for m in kit.memories if m.subject == "ada"]
    assert memory.kind is MemoryKind.KINDNESS and memory.importance >= 0.9
    # telling them to go, with no ground held, is no sacrifice
    calm = read_turn(Turn.model_validate(make_turn("Kit and Sam yawn. 'Go,' you tell them, 'get some sleep.'",
                                                   actor="ada", others=[], observers=["kit", "sam"])))
    assert not calm.actor_danger and "helped" not in calm.acts_on.values()
