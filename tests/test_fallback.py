"""The deterministic interpreter: gap, significance, kind, feeling and first-person phrasing."""

from __future__ import annotations

import pytest
from conftest import TurnFactory

from curator import Gap, Intent, MemoryKind, Turn
from curator.domain.models import Relationship
from curator.turn.decisions import Interpretation
from curator.turn.fallback import interpret
from curator.turn.inputs import InterpretInput, RelationView
from curator.turn.narration import retell
from curator.turn.reading import read_turn
from curator.turn.summaries import describe_relationship


def _inputs(turn: dict, *, perceiver: str | None = None, bond: float = 0.0,
            traits: dict[str, int] | None = None, interactions: int = 3) -> InterpretInput:
    t = Turn.model_validate(turn)
    perceiver = perceiver or t.actor
    role = "actor" if perceiver == t.actor else "observer"
    subjects = list(t.others) if role == "actor" else [c for c in [t.actor, *t.others] if c != perceiver]
    rels = {o: RelationView.of(Relationship(owner=perceiver, other=o, overall_bond=bond,
                                            traits=traits or {}, interactions=interactions))
            for o in subjects}
    return InterpretInput(perceiver=perceiver, role=role, persona="", turn=t, relationships=rels,
                          recent_self=[], allowed_subjects=subjects)


@pytest.mark.parametrize(("reality", "gap"), [
    ("Wolf emerges from the reeds and claims your fishing spot, baring his teeth.", Gap.BLOCKED),
    ("You pin a trout, but Wolf darts in and snatches it off the bank.", Gap.THWARTED),
    ("Fox leads you to a hidden blackberry patch.", Gap.HELPED),
    ("Your paw slips on the moss and you slide into the water; every trout is gone.", Gap.FAILED),
    ("You catch a fat trout and eat it on the bank.", Gap.SUCCEEDED),
    # a rescue: the threat driven off, nothing gone badly for the actor ("helped", evals/judge)
    ("Wolf bursts out and hits the poacher from behind; the poacher flees.", Gap.HELPED),
])
def test_gap_between_intent_and_reality(make_turn: TurnFactory, reality: str, gap: Gap) -> None:
    others = [c for c in ("wolf", "fox", "poacher") if c in reality.lower()]
    assert read_turn(Turn.model_validate(make_turn(reality, others=others))).gap is gap


def test_blocked_intent_becomes_a_first_person_conflict_memory(make_turn: TurnFactory) -> None:
    turn = make_turn("Wolf emerges from the reeds and claims your fishing spot, baring his teeth.",
                     action="Head to my favorite fishing spot", others=["wolf"])
    result = interpret(_inputs(turn))
    (memory,) = [m for m in result.memories if m.subject == "wolf"]
    assert memory.kind is MemoryKind.CONFLICT
    assert memory.valence < -0.3
    assert memory.emotional_impact in {"frustrated", "angry"}
    assert memory.content.startswith("I mean to head to my favorite fishing spot, but Wolf")
    assert "my fishing spot" in memory.content and "your" not in memory.content
    assert "territorial" in memory.traits
    assert [f.toward for f in result.feelings] == ["wolf"] and result.feelings[0].sentiment_shift < 0


def test_help_in_danger_is_kindness_and_defining(make_turn: TurnFactory) -> None:
    turn = make_turn("Wolf bursts out of the undergrowth and hits the poacher from behind. "
                     "The poacher flees, bleeding.", others=["wolf", "poacher"],
                     outcome={"result": "helped", "danger": True})
    result = interpret(_inputs(turn, bond=-0.3, traits={"territorial": 3}))
    wolf = next(m for m in result.memories if m.subject == "wolf")
    assert wolf.kind is MemoryKind.KINDNESS and wolf.valence > 0.5
    assert wolf.importance >= 0.9  # a rescue from danger reaches the core threshold
    assert "protective" in wolf.traits
    assert next(f for f in result.feelings if f.toward == "wolf").sentiment_shift > 0.3


def test_betrayal_by_someone_trusted(make_turn: TurnFactory) -> None:
    turn = make_turn("Fox laughs, calls you a slow fool, and slips down its burrow with your honey.",
                     others=["fox"])
    result = interpret(_inputs(turn, bond=0.5, traits={"helpful": 3}))
    fox = next(m for m in result.memories if m.subject == "fox")
    assert fox.kind is MemoryKind.BETRAYAL and fox.emotional_impact == "betrayed"
    assert next(f for f in result.feelings if f.toward == "fox").sentiment_shift < -0.5


def test_quiet_turn_is_not_significant(make_turn: TurnFactory) -> None:
    result = interpret(_inputs(make_turn("You lap at the cold stream. Nothing else happens.",
                                         action="Drink from the stream")))
    assert result.significance < 0.4
    assert all(m.importance < 0.4 for m in result.memories)
    assert result.immediate_context.startswith("I lap at the cold stream")


def test_harm_raises_significance_and_forms_a_self_danger_memory(make_turn: TurnFactory) -> None:
    turn = make_turn("Steel jaws snap shut on your hind leg. Blood soaks the leaves.",
                     action="Walk the game trail")
    result = interpret(_inputs(turn))
    (memory,) = result.memories
    assert memory.subject is None and memory.kind is MemoryKind.DANGER
    assert memory.importance >= 0.9 and memory.emotional_impact == "terrified"
    assert memory.content.startswith("My life is in danger: steel jaws snap shut on my hind leg")


def test_setting_a_trap_is_no_danger_to_the_one_who_sets_it(make_turn: TurnFactory) -> None:
    turn = make_turn("You bury the steel jaws under leaf litter on the game trail.", actor="poacher")
    assert all(m.kind is not MemoryKind.DANGER for m in interpret(_inputs(turn)).memories)


def test_observer_remembers_from_its_own_side_and_never_sees_intent(make_turn: TurnFactory) -> None:
    turn = make_turn("Wolf blocks your path and growls at you.", others=["wolf"], observers=["owl"],
                     thought="I am so hungry", action="Sneak to the berries")
    inputs = _inputs(turn, perceiver="owl")
    assert inputs.role == "observer"
    unseen = Intent(thought="", action="(unknown to you)")
    result = interpret(inputs.model_copy(update={"turn": inputs.turn.model_copy(
        update={"intent": unseen})}))
    about_bear = next(m for m in result.memories if m.subject == "bear")
    assert about_bear.kind is MemoryKind.WITNESSED
    assert about_bear.content == "I watch Bear: Wolf blocks Bear's path and growls at Bear."
    assert "hungry" not in about_bear.content and "berries" not in about_bear.content


def test_repeated_failure_becomes_a_lesson(curator, make_turn: TurnFactory) -> None:
    first = curator.observe(make_turn("Your paw slips on the wet rocks and the trout escapes.",
                                      action="Swipe for a trout from the rocks"))
    second = curator.observe(make_turn("You slip off the wet rocks again and the trout escapes.",
                                       action="Swipe for a trout from the rocks"))
    assert [m.kind for m in first.formed] == ["failure"]
    # The repeat reinforces the memory of the failure instead of duplicating it; it becomes the lesson.
    assert not second.formed and [m.kind for m in second.reinforced] == ["lesson_learned"]
    assert second.reinforced[0].memory_id == first.formed[0].memory_id
    assert second.reinforced[0].importance > first.formed[0].importance
    (memory,) = curator.character("bear").self_memories.recent_events
    assert memory.kind == "lesson_learned" and memory.source_turns == [t.turn_id for t in (first, second)]


@pytest.mark.parametrize(("text", "perceiver", "expected"), [
    ("Wolf blocks you as you reach the river.", "bear", "Wolf blocks me as I reach the river."),
    ("You slip and your paw gets wet.", "bear", "I slip and my paw gets wet."),
    ("After a long wait you catch a fish.", "bear", "After a long wait I catch a fish."),
    ("You slip and your paw gets wet.", "owl", "Bear slips and Bear's paw gets wet."),
    ("Owl watches every move you make.", "owl", "I watch every move Bear makes."),
    ("Wolf and Fox corner you by the rocks.", "bear", "Wolf and Fox corner me by the rocks."),
    ("Wolf and Fox corner you by the rocks.", "owl", "Wolf and Fox corner Bear by the rocks."),
    ("Wolf blocks you, then you back off.", "bear", "Wolf blocks me, then I back off."),
    # Quoted speech is the speaker's own words, kept as said.
    ('You tell Wolf: "I saw you at the river." Then you leave.', "owl",
     'Bear tells Wolf: "I saw you at the river." Then Bear leaves.'),
    ('You tell Wolf: "I saw you at the river."', "bear", 'I tell Wolf: "I saw you at the river."'),
    ("Wolf growls: 'Bear, you are late.' You back away.", "bear",
     "Wolf growls: 'Bear, you are late.' I back away."),
    # The possessive straight after the observer's own verb is its own; later ones are not.
    ("You pry the jaws open until Wolf pulls his leg free.", "wolf",
     "Bear pries the jaws open until I pull my leg free."),
    ("Wolf grabs Fox by his ear.", "wolf", "I grab Fox by his ear."),
    # The perceiver named by a role with its article: the article goes with the name.
    ("The wolf growls and you back away.", "wolf", "I growl and Bear backs away."),
    ("You catch the wolf by the scruff.", "wolf", "Bear catches me by the scruff."),
    ("The wolf's den is empty.", "wolf", "My den is empty."),
    # A quantifier's "of you" is the actor with the others, not the actor alone.
    ("Neither of you moves.", "bear", "Neither of us moves."),
    ("Both of you run.", "owl", "Both of them run."),
    # "you" that ends a clause is an object even after a word that opens clauses.
    ("Wolf limps after you.", "bear", "Wolf limps after me."),
    ("After you leave, Wolf eats.", "bear", "After I leave, Wolf eats."),
    # The actor and another as one subject, the other named first.
    ("You and Fox haul the log free.", "bear", "Fox and I haul the log free."),
    # A capital only where a sentence starts.
    ("Fox shows Owl a patch. Owl's den is near.", "owl", "Fox shows me a patch. My den is near."),
    # "-ss" verbs, and adverbs between a subject and its verb.
    ("You bypass every lock you ever installed.", "owl", "Bear bypasses every lock Bear ever installed."),
    ("You never reach the bank.", "owl", "Bear never reaches the bank."),
])
def test_retelling_in_the_perceivers_voice(text: str, perceiver: str, expected: str) -> None:
    assert retell(text, perceiver=perceiver, actor="bear") == expected


def test_summary_holds_both_sides_of_a_relationship() -> None:
    summary = describe_relationship("wolf", {"territorial": 4, "aggressive": 2, "protective": 1},
                                    bond=0.2, defining="Wolf fought off the poacher")
    assert summary.startswith("Wolf is complicated: mostly territorial and aggressive")
    assert "protective" in summary and "Wolf fought off the poacher" in summary
    assert describe_relationship("fox", {"helpful": 3}, bond=0.6).startswith("Fox has been helpful")


def test_fallback_decisions_pass_their_own_validators(played) -> None:
    # Every interpretation the fallback produced for the transcript is a valid decision for the
    # step, with the subject rule enforced as it would be for a model's answer.
    world, _ = played
    turns = world.world.conn.execute("select payload from turns order by seq").fetchall()
    for (payload,) in turns:
        turn = Turn.model_validate_json(payload)
        inputs = _inputs(turn.model_dump(mode="json"))
        decision = interpret(inputs)
        Interpretation.model_validate(decision.model_dump(),
                                      context={"allowed_subjects": inputs.allowed_subjects})


def test_validator_rejects_a_subject_who_was_not_there() -> None:
    bad = {"gap": "blocked", "significance": 0.5, "immediate_context": "Wolf blocked me.",
           "memories": [{"subject": "dragon", "content": "The dragon is my best friend.",
                         "kind": "kindness", "emotional_impact": "happy", "valence": 1.0,
                         "importance": 1.0}]}
    with pytest.raises(ValueError, match="'dragon' was not involved"):
        Interpretation.model_validate(bad, context={"allowed_subjects": ["wolf"]})


def test_the_first_person_rewrite_keeps_the_verb_in_agreement() -> None:
    text = ("A flood sweeps you off your feet; you are going under. Beaver swims out, grabs you and "
            "drags you out.")
    assert "I am going under" in retell(text, perceiver="deer", actor="deer")
    assert "I swim out, grab Deer and drag Deer out" in retell(text, perceiver="beaver", actor="deer")


def test_coordinated_verbs_follow_the_subject_into_the_third_person() -> None:
    text = "You burst out and knock the poacher down, then pry the jaws open. You eat fish and bread."
    told = retell(text, perceiver="wolf", actor="bear")
    assert "Bear bursts out and knocks the poacher down, then pries the jaws open" in told
    assert "Bear eats fish and bread." in told  # nouns after "and" are left alone
