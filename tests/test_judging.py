"""A model's small answer to step interpret, and the rules that build the interpretation from it:
the model's rating and words over the rules' reading of the deeds, a harm by someone trusted as
a betrayal, the bands applied, feelings bounded however the model answers, the game's hints
winning, and a rule reading put the same way so the two can be compared."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from curator.domain.config import FORMATION_THRESHOLDS
from curator.domain.models import Gap, Relationship, Turn
from curator.model.decision import validation_scope
from curator.turn import fallback
from curator.turn.decisions import Interpretation, MemoryDraft
from curator.turn.dedup import find_repeat
from curator.turn.inputs import InterpretInput, RelationView
from curator.turn.judgement import JudgementAnswer, answer_of, first_sentences
from curator.turn.judging import judgement_of_rules, turn_reading
from curator.turn.steps import INTERPRET

TURN = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
        "intent": {"thought": "Fish", "action": "Fish at my spot"},
        "reality": "Wolf claims your fishing spot and bares his teeth until you leave.", "others": ["wolf"]}


def inputs(role: str = "actor", *, bond: float = 0.0, interactions: int = 2, **turn: Any) -> InterpretInput:
    t = Turn.model_validate({**TURN, **turn})
    perceiver = "bear" if role == "actor" else "owl"
    subjects = list(t.others) if role == "actor" else [c for c in [t.actor, *t.others] if c != perceiver]
    rels = {o: RelationView.of(Relationship(owner=perceiver, other=o, overall_bond=bond,
                                            interactions=interactions)) for o in subjects}
    return InterpretInput(perceiver=perceiver, role=role, persona="", turn=t,  # type: ignore[arg-type]
                          relationships=rels, recent_self=[], allowed_subjects=subjects, seen=t.reality)


def answer(**fields: Any) -> JudgementAnswer:
    base = {"harm": False, "danger": False, "significance": "notable", "emotion": "angry",
            "memory": "Wolf took my fishing spot."}
    return JudgementAnswer.model_validate({**base, **fields})


def made(inp: InterpretInput, **fields: Any) -> Interpretation:
    """What step interpret builds from a model's answer to `inp`."""
    return INTERPRET.from_answer(inp, answer(**fields))


def test_the_model_rates_and_words_the_turn_and_the_rules_read_the_deeds() -> None:
    inp = inputs()
    rules = fallback.interpret(inp).judgement
    reading = made(inp, significance="major", emotion="furious", memory="Wolf drove me off my spot.")
    j = reading.judgement
    assert rules is not None and j is not None
    assert (j.gap, j.others) == (rules.gap, rules.others)  # who did what: the rules'
    assert (j.significance, j.emotion, j.memory) == ("major", "furious", "Wolf drove me off my spot.")
    assert reading.significance == 0.8 and reading.memories[0].content == "Wolf drove me off my spot."
    assert reading.memories[0].emotional_impact == "furious"


def test_a_harm_by_someone_trusted_is_a_betrayal_and_its_memory_says_so() -> None:
    spoiled = "Wolf laughs, calls you a slow fool, and slips off with your fish."
    trusting = made(inputs(bond=0.6, reality=spoiled))
    assert trusting.judgement is not None and trusting.judgement.others[0].did == "betrayed"
    assert trusting.memories[0].kind == "betrayal"
    wary = made(inputs(bond=-0.2))  # Wolf drives Bear off the spot: a clash
    assert wary.memories[0].kind == "conflict"
    # a betrayal weighs more on the feeling than a harm from a stranger
    assert trusting.feelings[0].sentiment_shift < wary.feelings[0].sentiment_shift < 0


def test_feelings_are_bounded_however_the_model_answers() -> None:
    reading = made(inputs(bond=0.6), significance="defining", harm=True, danger=True)
    assert all(abs(f.sentiment_shift) <= 0.96 for f in reading.feelings)
    assert all(-1 <= d.valence <= 1 and 0 <= d.importance <= 1 for d in reading.memories)


def test_a_trivial_turn_forms_no_memory_and_a_rescue_is_defining() -> None:
    # (a turn no one else did anything in: a clash the actor lived is at least notable)
    calm = inputs(reality="You fish at your spot and catch a trout.", others=[])
    assert made(calm, significance="trivial", memory="I caught a trout.").memories == []
    rescue = "You fall through the ice; Wolf drags you out of the freezing water by your scruff."
    saved = made(inputs(reality=rescue), significance="major", harm=True, danger=True)
    assert saved.judgement is not None and saved.judgement.significance == "defining"
    assert saved.significance == 0.95  # reaches core review
    # a fight in which it was hurt stays as major as the model rated it
    hurt = made(inputs(), significance="major", harm=True, danger=True)
    assert hurt.judgement is not None and hurt.judgement.significance == "major"
    seen = made(inputs("observer", reality=rescue), significance="major", harm=True, danger=True)
    assert seen.judgement is not None and seen.judgement.significance == "major"  # only the actor was saved


def test_the_games_hints_win_over_the_answer() -> None:
    hinted = inputs(outcome={"result": "helped", "importance": 0.2, "danger": True})
    reading = made(hinted)
    assert (reading.gap, reading.significance, reading.danger) == (Gap.HELPED, 0.2, True)


def test_an_answer_that_breaks_the_rules_is_refused_with_the_reason() -> None:
    with pytest.raises(ValidationError, match="emotion is one word"):
        answer(emotion="very very angry indeed")
    with pytest.raises(ValidationError, match="memory must be words"):
        answer(memory="!!! ...")
    with pytest.raises(ValidationError, match="significance"):
        answer(significance="huge")


def test_a_memory_of_another_turn_is_refused_with_the_reason() -> None:
    # A small model hands back an earlier memory ("Lately: …") or an example's as this turn's.
    told = "Head to my fishing spot Wolf claims your fishing spot and bares his teeth."
    with validation_scope({"told": told}):
        assert answer(memory="Wolf bared his teeth over my fishing spot.").memory.startswith("Wolf")
        with pytest.raises(ValidationError, match="memory must tell what happened in this turn"):
            answer(memory="Tobin pulled me out of the river when I was drowning.")
    assert answer(memory="Tobin pulled me out of the river.").memory  # no turn told: not checked
    # the same words in another form count: "curled"/"curl", "slept"/"sleep"
    with validation_scope({"told": "Sleep in the den Full at last You curl up in your den and sleep."}):
        assert answer(memory="I curled up in my den and slept, feeling full at last.").memory


def test_a_long_memory_keeps_its_first_sentences() -> None:
    assert first_sentences("Wolf came. " + "word " * 50) == "Wolf came."
    # the schema's cap ends a copied scene mid-sentence: the unfinished part is left out
    assert first_sentences("Wolf came. He sniffed the air and") == "Wolf came."
    assert first_sentences('Wolf came. "Go," he said.') == 'Wolf came. "Go," he said.'
    assert first_sentences("Wolf came and sniffed the") == "Wolf came and sniffed the"
    long = answer(memory="word " * 60)
    assert long.memory.endswith("…") and len(long.memory.split()) == 40


def test_the_rules_reading_put_as_an_answer_and_back() -> None:
    inp = inputs()
    rules = fallback.interpret(inp)
    assert rules.judgement == judgement_of_rules(inp, rules)
    assert rules.judgement.gap is Gap.BLOCKED
    assert rules.judgement.reading_of("wolf").did in ("blocked", "harmed")
    assert answer_of(rules.judgement).over(rules.judgement) == rules.judgement
    reading = turn_reading("bear", rules.judgement, "fallback")
    assert reading.harmed == ["wolf"] and reading.feelings["wolf"] == "negative"


def test_the_same_words_filed_differently_are_one_memory() -> None:
    from curator.domain.models import Memory

    told = "Wolf growls at me from behind the berry bushes and I back away without eating."
    first = Memory(id="m1", owner="bear", subject="wolf", content=told, kind="encounter",
                   emotional_impact="curious", valence=0.1, importance=0.55,
                   created_at="2025-01-02T08:00:00Z", last_recalled="2025-01-02T08:00:00Z")
    again = MemoryDraft(subject="wolf", content=told, kind="conflict", emotional_impact="angry",
                        valence=-0.62, importance=0.55)
    assert find_repeat([first], again, similarity=0.55) is first


def test_a_plan_that_went_otherwise_is_remembered_with_what_was_meant() -> None:
    # The rules read this turn as blocked; the model's sentence tells only what Wolf did, so
    # what Bear meant is put before it (the seed's memory is intent against reality).
    inp = inputs()
    assert fallback.interpret(inp).gap is not Gap.SUCCEEDED
    j = made(inp, memory="Wolf bared his teeth at me.").judgement
    assert j is not None and j.memory == "I meant to fish at my spot, but Wolf bared his teeth at me."
    # a sentence that already says the plan is the model's as it is
    assert made(inp, memory="Wolf drove me off my fishing spot.").judgement.memory == (  # type: ignore[union-attr]
        "Wolf drove me off my fishing spot.")
    # a common first word loses its capital; a name keeps it
    j = made(inp, memory="The wolf bared his teeth.").judgement
    assert j is not None and j.memory == "I meant to fish at my spot, but the wolf bared his teeth."
    # an observer never knew the plan; a plan that went as meant needs no "but"
    assert made(inputs("observer"), memory="Wolf bared his teeth at Bear.").judgement.memory == (  # type: ignore[union-attr]
        "Wolf bared his teeth at Bear.")
    calm = inputs(reality="You fish at your spot and catch a trout.", others=[])
    assert fallback.interpret(calm).gap is Gap.SUCCEEDED
    assert made(calm, memory="I caught a trout.").judgement.memory == "I caught a trout."  # type: ignore[union-attr]


def test_a_defining_answer_needs_the_rules_to_find_the_turn_major() -> None:
    inp = inputs(reality="You fish at your spot and catch a trout.", others=[])
    rules = fallback.interpret(inp).judgement
    assert rules is not None and rules.significance not in ("major", "defining")
    assert answer(significance="defining", memory="I caught a trout.").over(rules).significance == "major"
    grave = inputs(reality="The ice breaks; you go under and Wolf drags you out, half drowned.")
    rules = fallback.interpret(grave).judgement
    assert rules is not None and rules.significance in ("major", "defining")
    kept = answer(significance="defining", memory="Wolf dragged me out of the ice.").over(rules)
    assert kept.significance == "defining"


def test_an_earlier_memory_copied_before_this_turns_sentence_is_left_out() -> None:
    told = "Dig for roots near the logging road. Steel jaws snap shut on your hind leg; the poacher fires."
    with validation_scope({"told": told}):
        kept = answer(memory="I caught a small trout and ate it on the bank. "
                             "Steel jaws snapped shut on my leg and the poacher fired.").memory
        assert kept == "Steel jaws snapped shut on my leg and the poacher fired."
        assert answer(memory=kept).memory == kept  # the kept answer validates the same
        with pytest.raises(ValidationError, match="memory must tell what happened in this turn"):
            answer(memory="I caught a small trout and ate it on the bank.")


def test_a_sentence_naming_someone_in_the_turn_is_kept() -> None:
    # "I meet Bear for the first time" shares one word with the turn, but names who is in it:
    # not a copied memory. At least one sentence must still share the turn's words.
    told = "Fish in the river. Bear watches from the treeline and keeps well away from your line."
    with validation_scope({"told": told, "allowed_subjects": ["bear"]}):
        memory = "I meet Bear for the first time. Bear watches from the treeline and keeps away."
        assert answer(memory=memory).memory == memory
        with pytest.raises(ValidationError, match="memory must tell what happened in this turn"):
            answer(memory="I meet Bear for the first time.")
        assert answer(memory="Tobin pulled me out. Bear watches from the treeline.").memory == (
            "Bear watches from the treeline.")


def test_a_clash_the_actor_lived_is_at_least_notable() -> None:
    # Wolf drives Bear off its spot (the rules read a hindrance): a "minor" answer would form
    # no memory of Wolf at all, so it is read as notable, as the bands' own words say.
    j = made(inputs(), significance="minor", memory="Wolf took my fishing spot.").judgement
    assert j is not None and j.significance == "notable"
    # an observer's reading, or a turn with no deed by another, keeps the model's band
    assert made(inputs("observer"), significance="minor",
                memory="Wolf took Bear's fishing spot.").judgement.significance == "minor"  # type: ignore[union-attr]
    calm = inputs(reality="You fish at your spot and catch a trout.", others=[])
    routine = made(calm, significance="minor", memory="I caught a trout.")
    # not lifted; and since the rules keep no memory of a routine catch, the reading says what
    # the world does: nothing to remember
    assert routine.judgement is not None and routine.judgement.significance == "trivial"
    assert not any(d.importance >= FORMATION_THRESHOLDS[d.kind] for d in routine.memories)


def test_a_turn_that_put_the_actors_life_at_stake_or_betrayed_it_is_at_least_major() -> None:
    # The rules read mortal danger to Bear (teeth at its throat) and a betrayal by Fox: the
    # bands' own words make both "major", whatever lower band the model chose.
    lethal = inputs(reality="Wolf lunges, and his teeth close at your throat before you shake him off.")
    j = made(lethal, significance="notable", memory="Wolf lunged at my throat.").judgement
    assert j is not None and j.significance == "major"
    betrayed = inputs(reality="Fox promised to guard your honey, then ate it and lied about it.",
                      others=["fox"])
    j = made(betrayed, significance="minor", memory="Fox ate my honey and lied.").judgement
    assert j is not None and [o.did for o in j.others] == ["betrayed"] and j.significance == "major"
    # a higher band stays; an observer of the same turn keeps the model's band
    assert made(lethal, significance="defining",
                memory="Wolf lunged at my throat.").judgement.significance == "defining"  # type: ignore[union-attr]
    assert made(inputs("observer", reality=lethal.turn.reality), significance="notable",
                memory="Wolf lunged at Bear's throat.").judgement.significance == "notable"  # type: ignore[union-attr]
    # a plain clash keeps notable
    assert made(inputs(), significance="notable",
                memory="Wolf took my fishing spot.").judgement.significance == "notable"  # type: ignore[union-attr]


def test_a_night_alone_as_every_night_is_trivial_whatever_band_the_model_gives() -> None:
    # evals/genres village vl17: the 1.5B model rated it "notable", and it formed a memory
    night = inputs(reality="Jory sat on the lychgate wall and counted the stars of the Plough until the cold "
                   "drove him indoors, as it did most clear nights.", others=[],
                   intent={"thought": "Clear sky tonight.", "action": "watch the stars"})
    made_night = made(night, significance="notable", memory="I counted the stars of the Plough.")
    assert made_night.judgement is not None and made_night.judgement.significance == "trivial"
    assert made_night.memories == []
    # the same night with someone in it, or with anything that went wrong, keeps the model's band
    met = inputs(reality=f"{night.turn.reality} Bran sat beside him.", others=["bran"])
    with_bran = made(met, significance="notable", memory="I watched the stars with Bran.").judgement
    assert with_bran is not None and with_bran.significance == "notable"
    fell = inputs(reality="He counted the stars as he did most nights, then slipped and fell off the wall.",
                  others=[])
    assert made(fell, significance="notable", memory="I fell off the wall.").judgement.significance == (  # type: ignore[union-attr]
        "notable")
    # and a quiet night the model says endangered someone is left to the model
    assert made(night, significance="notable", danger=True,
                memory="I counted the stars of the Plough.").judgement.significance == "notable"  # type: ignore[union-attr]


def test_a_rescue_from_mortal_danger_rated_notable_is_defining() -> None:
    # evals/genres western wt08: hooves an inch from Jody's skull, Corliss dragged him clear; the
    # 1.5B model said "notable". The rules read his life at stake (major, peril_floor) and
    # Corliss as his helper: someone saved his life, the bands' words for "defining".
    beam = "The loft roars around you and a burning beam crashes down an inch from your skull."
    fire = inputs(reality=f"{beam} Bran plunges through the doorway and drags you out by the collar.",
                  others=["bran"], intent={"thought": "The seed", "action": "run into the burning byre"})
    j = made(fire, significance="notable", harm=True, danger=True,
             memory="I ran into the burning byre, but Bran dragged me out by the collar.").judgement
    assert j is not None and [o.did for o in j.others] == ["helped"] and j.significance == "defining"
    # mortal danger nobody saved him from stays major
    alone = inputs(reality=f"{beam} You crawl out through the doorway on your own.", others=[])
    j = made(alone, significance="notable", harm=True, danger=True,
             memory="I went down in the smoke and crawled out.").judgement
    assert j is not None and j.significance == "major"


def test_a_plan_the_model_finds_frustrating_where_the_rules_see_nothing_amiss_failed() -> None:
    # evals/judge caravan cv15: the stills filled with sand, told in words no rule list holds; the
    # rules read "succeeded", the 1.5B model's feeling word was "frustrated"
    sand = inputs(reality="You dig the pits, lay the plastic and set the cups. Then the wind turns; when it "
                  "has passed, the pits are full of sand and every cup holds nothing but grit.", others=[],
                  intent={"thought": "Water", "action": "set up the solar stills"})
    assert fallback.interpret(sand).gap is Gap.SUCCEEDED
    j = made(sand, emotion="frustrated",
             memory="I set up the stills, and the wind filled them with sand.").judgement
    assert j is not None and j.gap is Gap.FAILED
    # a calm actor, an observer's frustration and a result the game settled keep their gap
    assert made(sand, emotion="calm", memory="I set up the stills.").judgement.gap is Gap.SUCCEEDED  # type: ignore[union-attr]
    watched = inputs("observer", reality=sand.turn.reality.replace("You dig", "Bear digs"), others=[])
    assert made(watched, emotion="frustrated", memory="Bear set up stills.").judgement.gap is Gap.SUCCEEDED  # type: ignore[union-attr]
    settled = inputs(reality=sand.turn.reality, others=[], intent=sand.turn.intent.model_dump(),
                     outcome={"result": "succeeded"})
    assert made(settled, emotion="frustrated", memory="I set up the stills.").judgement.gap is Gap.SUCCEEDED  # type: ignore[union-attr]
    # nor does a turn the rules read otherwise: Wolf's claim on the fishing spot is his doing
    assert made(inputs(), emotion="frustrated").judgement.gap is fallback.interpret(inputs()).gap  # type: ignore[union-attr]
