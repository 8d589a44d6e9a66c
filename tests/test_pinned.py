"""Behaviours a mutation run (issue #16) showed could change with every other test passing: each
test here fails if its behaviour changes (checked by hand-mutating the code it names).

- recall: the bonus for memories about characters present, the recency half-life;
- fading: the extra slowdown after twenty recalls;
- the turn flow: a tie at the core cap, the thresholds at which a new memory contradicts the
  summary, an observer's turn without the actor's intent;
- dedup: a draft that repeats several memories reinforces the newest;
- the gateway: a `content_filter` finish is a refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from conftest import TurnFactory
from pydantic import BaseModel, ValidationError

from curator import Curator, CuratorConfig, MemoryKind, Tier
from curator.domain.config import RecallConfig
from curator.domain.fading import faded_strength, kind_rate
from curator.domain.models import Memory, Relationship
from curator.domain.results import StepRecord
from curator.model.steps import FallbackDecider, Step
from curator.recall.index import Facts
from curator.recall.query import read_query
from curator.recall.ranking import Recalled, _cue, _episodes, _spread, rank, refresh_recalled
from curator.turn import dedup
from curator.turn.decisions import MemoryDraft, Reconciliation
from curator.turn.inputs import InterpretInput
from curator.turn.pipeline import Curation
from curator.turn.threads import Thread, unseen_intent

START = datetime(2025, 1, 1, 8, 0, tzinfo=UTC)


def _memory(id: str, content: str, *, kind: MemoryKind = MemoryKind.CONFLICT, valence: float = -0.5,
            importance: float = 0.6, recall_count: int = 0, subject: str | None = "wolf",
            at: datetime = START) -> Memory:
    return Memory(id=id, owner="bear", subject=subject, content=content, kind=kind,
                  emotional_impact="anger", valence=valence, importance=importance,
                  last_recalled=at, created_at=at, strength_at=at, recall_count=recall_count)


# -- recall ---------------------------------------------------------------------------------

def _ranked(world: Curator, present: list[str], now: datetime) -> dict[str | None, Recalled]:
    """Bear's memories ranked for a situation both match alike, by subject."""
    recall = world.config.recall
    found = rank(world.world, "bear", read_query("the river bank"), config=recall, weights=recall.weights,
                 present=present, now=now, limit=10)
    return {r.memory.subject: r for r in found}


def test_a_memory_about_someone_present_scores_the_present_weight_more(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"]))
        world.observe(make_turn("Fox snaps at you and drives you off the river bank.", others=["fox"]))
        now = world.world.clock()
        assert now is not None
        alone, with_wolf = _ranked(world, [], now), _ranked(world, ["wolf"], now)
    # README: a bonus for memories about the characters present, 0.3 by default.
    assert world.config.recall.weights.present == 0.3
    assert (alone["wolf"].parts.present, with_wolf["wolf"].parts.present) == (0.0, 1.0)
    assert with_wolf["wolf"].score - alone["wolf"].score == pytest.approx(0.3, abs=1e-4)
    assert with_wolf["fox"].parts.present == 0.0 and with_wolf["fox"].score == alone["fox"].score


def test_recency_halves_every_72_game_hours_since_last_recalled(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"]))
        formed = world.character("bear").relationships["wolf"].recent_memories[0].last_recalled
        at = {h: _ranked(world, [], formed + timedelta(hours=h))["wolf"].parts.recency
              for h in (0, 36, 72, 144)}
    assert at == {0: 1.0, 36: pytest.approx(0.7071, abs=1e-4), 72: 0.5, 144: 0.25}


def test_recency_half_life_is_the_configured_game_hours(make_turn: TurnFactory) -> None:
    config = CuratorConfig(recall=RecallConfig(recency_half_life_hours=10.0))
    with Curator(":memory:", config=config) as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"]))
        formed = world.character("bear").relationships["wolf"].recent_memories[0].last_recalled
        assert _ranked(world, [], formed + timedelta(hours=10))["wolf"].parts.recency == 0.5


def test_recall_scores_a_recent_memory_by_its_strength_faded_to_now(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"]))
        held = world.character("bear").relationships["wolf"].recent_memories[0]
        later = held.created_at + timedelta(days=10)
        found = _ranked(world, [], later)["wolf"]
    faded = faded_strength(held, held.created_at, later)
    assert faded < 0.9
    assert (found.parts.strength, found.parts.core) == (round(faded, 4), 0.0)
    assert (found.memory.strength, found.memory.strength_at) == (faded, later)


def test_memories_of_the_tasks_domain_are_candidates_and_score_the_domain_weight(
        make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"],
                                domain="fishing"))
        world.observe(make_turn("Fox snaps at you and drives you off the river bank.", others=["fox"]))
        recall, now = world.config.recall, world.world.clock()

        def ranked(domain: str | None) -> dict[str | None, Recalled]:
            found = rank(world.world, "bear", read_query("a quiet evening"), config=recall,
                         weights=recall.weights, present=[], now=now, limit=10, domain=domain)
            return {r.memory.subject: r for r in found}

        fishing, blank = ranked("Fishing"), ranked("  ")
    assert list(fishing) == ["wolf"] and fishing["wolf"].sources == ["domain"]
    assert fishing["wolf"].parts.domain == 1.0 and blank == {}


# -- fading ---------------------------------------------------------------------------------

def test_fading_slows_to_three_tenths_after_twenty_recalls() -> None:
    """The evolution system: more than five recalls halve the rate; more than twenty take it to 0.3
    of that again (twenty itself is not more than twenty)."""
    for kind in (MemoryKind.CONFLICT, MemoryKind.FAILURE):
        five, six = kind_rate(kind, 0.4, 5), kind_rate(kind, 0.4, 6)
        twenty, twenty_one = kind_rate(kind, 0.4, 20), kind_rate(kind, 0.4, 21)
        assert six == pytest.approx(five * 0.5)
        assert twenty == six
        assert twenty_one == pytest.approx(twenty * 0.3)
    later = START + timedelta(days=10)
    often = faded_strength(_memory("m", "x", recall_count=21, importance=0.0), START, later)
    assert often == pytest.approx(1.0 - 0.035 * 0.5 * 0.3 * 10)  # a conflict fades 0.035 a day


def test_fading_runs_from_the_first_hour_not_from_the_first_day() -> None:
    memory = _memory("m", "x", importance=0.0)
    assert faded_strength(memory, START, START + timedelta(hours=12)) == pytest.approx(1.0 - 0.035 / 2)
    assert faded_strength(memory, START, START) == 1.0


# -- the turn flow --------------------------------------------------------------------------

def _rescue(make_turn: TurnFactory, text: str, importance: float) -> dict[str, Any]:
    return make_turn(text, others=["wolf"], outcome={"importance": importance})


def test_a_tie_at_the_core_cap_keeps_the_core_memory_already_held(make_turn: TurnFactory) -> None:
    """At the cap a memory must outweigh the weakest core memory: as important is not enough."""
    with Curator(":memory:", config=CuratorConfig(core_cap=1)) as world:
        first = world.observe(_rescue(make_turn, "Wolf drags you out of the flood and saves your life.",
                                      0.93))
        (held,) = [c for c in first.promoted if c.subject == "wolf"]
        tie = world.observe(_rescue(make_turn, "Wolf pulls you from the burning thicket and shelters you.",
                                    0.93))
        assert [c for c in tie.promoted if c.subject == "wolf"] == []
        assert [c for c in tie.demoted if c.subject == "wolf"] == []
        wolf = world.character("bear").relationships["wolf"]
        assert [m.id for m in wolf.core_memories] == [held.memory_id]
        assert [m.importance for m in wolf.recent_memories] == [0.93]
        above = world.observe(_rescue(make_turn, "Wolf shields you from the poacher's bullet.", 0.94))
        (promoted,) = [c for c in above.promoted if c.subject == "wolf"]
        assert promoted.reason  # the core review's words
        assert [(c.memory_id, c.reason) for c in above.demoted if c.subject == "wolf"] == [
            (held.memory_id, f"superseded by {promoted.memory_id}")]
        assert [(m.id, m.archived_reason) for m in world.archived("bear") if m.subject == "wolf"] == [
            (held.memory_id, "superseded_core")]


@pytest.mark.parametrize("importance", [0.9, 0.95])  # below and as important as the weakest core
def test_promotion_refused_at_the_cap_says_so_and_leaves_the_memory_recent(importance: float) -> None:
    """What the caller (the fade review at overflow) relies on to archive it instead."""
    with Curator(":memory:", config=CuratorConfig(core_cap=1)) as world:
        curation = Curation(world.world, world.config, FallbackDecider())
        held = _memory("held", "Wolf saves me from the flood.", valence=0.9, importance=0.95)
        held.tier = Tier.CORE
        memory = _memory("new", "Wolf pulls me from the fire.", valence=0.9, importance=importance)
        thread = Thread("bear", "wolf", [memory], [held], None)
        assert curation.promote(thread, memory, "a rescue") is False
    assert (thread.recent, thread.core, memory.tier) == ([memory], [held], Tier.RECENT)
    assert curation.changes.promoted == [] and curation.changes.demoted == []


def test_a_promotion_at_the_cap_says_so_and_supersedes_the_weakest_core_memory() -> None:
    with Curator(":memory:", config=CuratorConfig(core_cap=2)) as world:
        curation = Curation(world.world, world.config, FallbackDecider())
        weak = _memory("weak", "Wolf warns me of the hunters.", valence=0.8, importance=0.91)
        strong = _memory("strong", "Wolf saves me from the flood.", valence=0.9, importance=0.97)
        memory = _memory("new", "Wolf pulls me from the fire.", valence=0.9, importance=0.95,
                         at=START + timedelta(days=1))
        world.world.ensure_characters(["bear", "wolf"], START)
        for seq, m in enumerate((weak, strong, memory)):
            m.tier = Tier.CORE if m is not memory else Tier.RECENT
            world.world.insert_memory(m, seq)
        thread = Thread("bear", "wolf", [memory], [weak, strong], None)
        assert curation.promote(thread, memory, "a rescue") is True
        archived = world.archived("bear")
    assert (thread.recent, thread.core) == ([], [strong, memory])
    assert (memory.tier, memory.strength, memory.strength_at) == (Tier.CORE, 1.0, memory.last_recalled)
    assert [(c.memory_id, c.reason) for c in curation.changes.promoted] == [("new", "a rescue")]
    assert [(m.id, m.archived_reason, m.archived_at) for m in archived] == [
        ("weak", "superseded_core", memory.last_recalled)]


def _reconciles(valence: float, old_tone: float) -> bool:
    """Whether a new memory of `valence`, about someone whose summary reads `old_tone`, is sent
    to the reconcile step."""
    with Curator(":memory:") as world:
        curation = Curation(world.world, world.config, FallbackDecider())
        rel = Relationship(owner="bear", other="wolf", long_term_summary="Wolf is kind to me.",
                           traits={"kind": 2})
        thread = Thread("bear", "wolf", [], [], rel)
        memory = _memory("m1", "Wolf bites my shoulder by the river.", valence=valence, importance=0.8)
        curation.maybe_reconcile(thread, memory, old_tone)
        return [s.step for s in curation.changes.steps] == ["reconcile"]


@pytest.mark.parametrize(("valence", "old_tone", "contradicts"), [
    (-0.4, 0.2, True),  # both at their thresholds
    (-0.39, 0.2, False),  # felt too mildly to contradict
    (-0.4, 0.19, False),  # the summary too mild to be contradicted
    (0.4, -0.2, True),  # a kindness against a hostile summary
    (0.4, 0.2, False),  # agrees with the summary
    (-0.4, -0.2, False),
])
def test_a_memory_contradicts_the_summary_at_valence_04_against_tone_02(
        valence: float, old_tone: float, contradicts: bool) -> None:
    assert _reconciles(valence, old_tone) is contradicts


class _Reconciling(FallbackDecider):
    """The fallback, but reconcile answers with `decision` (a scripted decision)."""

    def __init__(self, decision: Reconciliation) -> None:
        super().__init__()
        self.decision = decision

    def decide(self, step: Step[Any, Any], inputs: Any, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[Any, StepRecord]:
        decision, record = super().decide(step, inputs, character=character, context=context)
        return (self.decision if step.name == "reconcile" else decision), record


@pytest.mark.parametrize("conflict", [True, False])
def test_a_reconcile_decision_sets_the_summary_and_moves_the_bond(conflict: bool) -> None:
    decision = Reconciliation(conflict=conflict, summary="Wolf is kind, but he bit me once.",
                              bond_shift=-0.2, reason="a bite against a kind summary")
    with Curator(":memory:") as world:
        curation = Curation(world.world, world.config, _Reconciling(decision))
        rel = Relationship(owner="bear", other="wolf", long_term_summary="Wolf is kind to me.",
                           overall_bond=0.5, traits={"kind": 2})
        memory = _memory("m1", "Wolf bites my shoulder by the river.", valence=-0.6, importance=0.5)
        curation.maybe_reconcile(Thread("bear", "wolf", [], [], rel), memory, 0.4)
        changes = curation.changes
    assert (rel.long_term_summary, rel.overall_bond) == (decision.summary, pytest.approx(0.3))
    (change,) = changes.summaries_revised
    assert (change.owner, change.other, change.step, change.reason) == (
        "bear", "wolf", "reconcile", decision.reason)
    assert changes.conflicts_resolved == ([change] if conflict else [])


@pytest.mark.parametrize(("summary", "traits", "importance", "first"), [
    ("", {"kind": 1}, 0.5, True),
    ("", {}, 0.5, False),  # nothing shown yet to describe
    ("", {"kind": 1}, 0.49, False),  # not significant enough to shape an impression
])
def test_a_first_significant_memory_starts_the_summary(summary: str, traits: dict[str, int],
                                                       importance: float, first: bool) -> None:
    with Curator(":memory:") as world:
        curation = Curation(world.world, world.config, FallbackDecider())
        rel = Relationship(owner="bear", other="wolf", long_term_summary=summary, traits=traits)
        memory = _memory("m1", "Wolf shares his fish with me.", valence=0.6, importance=importance)
        curation.maybe_reconcile(Thread("bear", "wolf", [], [], rel), memory, 0.0)
        revised = curation.changes.summaries_revised
    assert [c.step for c in revised] == (["first_impression"] if first else [])
    assert bool(rel.long_term_summary) is first and curation.changes.steps == []
    if first:
        assert revised[0].summary == rel.long_term_summary and "Wolf" in rel.long_term_summary


class _Recording(FallbackDecider):
    """The fallback, keeping every interpret input it was asked with."""

    def __init__(self) -> None:
        super().__init__()
        self.interpreted: dict[str, InterpretInput] = {}

    def decide(self, step: Step[Any, Any], inputs: Any, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[Any, StepRecord]:
        if isinstance(inputs, InterpretInput):
            self.interpreted[character] = inputs
        return super().decide(step, inputs, character=character, context=context)


def test_the_pipeline_hides_the_actors_intent_from_observers(make_turn: TurnFactory) -> None:
    """Observers are asked (model or fallback alike) with the turn minus what the actor meant."""
    decider = _Recording()
    with Curator(":memory:", decider=decider) as world:
        world.observe(make_turn("Wolf blocks your path to the river, growling.", others=["wolf"],
                                observers=["owl", "fox"], thought="I will ambush the salmon run",
                                action="Sneak past Wolf to the secret pool"))
    actor, owl, fox = (decider.interpreted[c] for c in ("bear", "owl", "fox"))
    assert actor.turn.intent.thought == "I will ambush the salmon run"
    assert actor.turn.intent.action == "Sneak past Wolf to the secret pool"
    for observer in (owl, fox):
        assert observer.turn.intent == unseen_intent()
        assert observer.turn.reality == actor.turn.reality
    assert owl.turn is fox.turn  # one reading of the turn shared by every observer


# -- dedup ----------------------------------------------------------------------------------

def test_a_draft_repeating_several_memories_reinforces_the_newest() -> None:
    older = _memory("older", "Wolf growls low at me near the berry bushes.")
    newer = _memory("newer", "Wolf growls low at me near the berry bushes.", at=START + timedelta(hours=1))
    draft = MemoryDraft(subject="wolf", content="Wolf growls low at me near the berry bushes.",
                        kind=MemoryKind.CONFLICT, emotional_impact="anger", valence=-0.5, importance=0.6)
    assert dedup.find_repeat([older, newer], draft, similarity=0.6) is newer
    assert dedup.find_repeat([newer, older], draft, similarity=0.6) is older  # recent is oldest first


@pytest.mark.parametrize(("theirs", "mine", "repeat"), [
    (0.5, -0.5, False),  # the same words, one felt good and the other painful: two memories
    (0.3, -0.3, False),  # both just plainly felt
    (0.5, -0.29, True),  # one hardly painful: the same telling
    (-0.29, 0.5, True),
    (0.5, 0.2, True),  # felt alike
])
def test_the_same_words_felt_oppositely_are_two_memories(theirs: float, mine: float, repeat: bool) -> None:
    """Verbatim dedup across kinds, unless one was felt as plainly good and the other as plainly painful."""
    words = "Wolf drops a fish at my feet by the river."
    held = _memory("held", words, kind=MemoryKind.KINDNESS, valence=theirs)
    draft = MemoryDraft(subject="wolf", content=words, kind=MemoryKind.CONFLICT, emotional_impact="anger",
                        valence=mine, importance=0.6)
    assert (dedup.find_repeat([held], draft, similarity=0.55) is held) is repeat


def _draft(kind: MemoryKind, valence: float) -> MemoryDraft:
    return MemoryDraft(subject=None, content="I slip off the wet rocks again.", kind=kind,
                       emotional_impact="wiser", valence=valence, importance=0.7)


@pytest.mark.parametrize(("held", "draft", "becomes"), [
    (MemoryKind.FAILURE, MemoryKind.LESSON_LEARNED, MemoryKind.LESSON_LEARNED),  # a failure learnt from
    (MemoryKind.FAILURE, MemoryKind.FAILURE, MemoryKind.FAILURE),
    (MemoryKind.FAILURE, MemoryKind.DANGER, MemoryKind.FAILURE),
    (MemoryKind.CONFLICT, MemoryKind.LESSON_LEARNED, MemoryKind.CONFLICT),
])
def test_a_repeat_refreshes_the_memory_and_a_lesson_turns_a_failure_into_one(
        held: MemoryKind, draft: MemoryKind, becomes: MemoryKind) -> None:
    memory = _memory("m", "I slip off the wet rocks.", kind=held, valence=-0.6, importance=0.5, subject=None)
    memory.strength, memory.source_turns = 0.5, ["t1"]
    later = START + timedelta(days=2)
    dedup.reinforce(memory, _draft(draft, 0.3), turn_id="t2", at=later, importance=0.7)
    dedup.reinforce(memory, _draft(draft, 0.3), turn_id="t2", at=later, importance=0.4)  # redelivered
    assert memory.strength == pytest.approx(0.7)  # +0.1 a repeat, not a recall's 0.15
    assert (memory.recall_count, memory.last_recalled, memory.strength_at) == (2, later, later)
    assert (memory.importance, memory.source_turns) == (0.7, ["t1", "t2"])
    learnt = becomes is not held
    assert memory.kind is becomes
    assert (memory.valence, memory.emotional_impact) == ((0.3, "wiser") if learnt else (-0.6, "anger"))


# -- the gateway ----------------------------------------------------------------------------

def _response(content: str | None, finish_reason: str) -> Any:
    message = SimpleNamespace(content=content, refusal=None, tool_calls=None, provider_specific_fields=None)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason=finish_reason)])


class _Answer(BaseModel):
    gap: str


def _invalid() -> ValidationError:
    try:
        _Answer.model_validate({})
    except ValidationError as error:
        return error
    raise AssertionError("unreachable")


@pytest.mark.parametrize(("content", "finish_reason", "reason"), [
    ("", "content_filter", "refusal"),
    ('{"gap": "the river', "content_filter", "refusal"),  # cut short by the filter, not invalid
    ("", "stop", "empty answer"),
    ('{"gap": "the river', "stop", "invalid answer"),
])
def test_a_content_filter_finish_is_classified_as_a_refusal(content: str, finish_reason: str,
                                                            reason: str) -> None:
    from curator.model.llm import classify
    from curator.model.responses import refused

    response = _response(content, finish_reason)
    assert refused(response) is (finish_reason == "content_filter")
    assert classify(_invalid(), [response]) == reason


@pytest.mark.parametrize(("message", "finish_reason", "refusal"), [
    (SimpleNamespace(content=None, refusal="I can't help with that."), "stop", True),  # the OpenAI field
    (SimpleNamespace(content=None, provider_specific_fields={"refusal": "No."}), "stop", True),  # litellm's
    (SimpleNamespace(content="{}"), "stop", False),  # neither field: not a refusal, and no error
    (None, "stop", False),
])
def test_a_refusal_is_read_from_the_message_or_from_litellms_fields(message: Any, finish_reason: str,
                                                                     refusal: bool) -> None:
    from curator.model.responses import refused

    choice = SimpleNamespace(finish_reason=finish_reason) if message is None else SimpleNamespace(
        message=message, finish_reason=finish_reason)
    assert refused(SimpleNamespace(choices=[choice])) is refusal
    assert refused(SimpleNamespace(choices=[])) is False and refused(object()) is False


# -- recall's parts beyond the words --------------------------------------------------------

def _facts(seq: int, minutes: float, content: str = "I fished at the river.") -> Facts:
    at = START + timedelta(minutes=minutes)
    return Facts(seq=seq, subject=None, content=content, kind=MemoryKind.ENCOUNTER, valence=0.0,
                 importance=0.5, tier=Tier.RECENT, strength=1.0, strength_at=at, recall_count=0,
                 last_recalled=at, created_at=at)


def test_an_episode_ends_after_a_gap_longer_than_the_episode_gap() -> None:
    gap = 60 * 60.0
    # Out of seq order in game time; a gap of exactly an hour is still the same episode.
    facts = {5: _facts(5, 0), 3: _facts(3, 60), 9: _facts(9, 121), 7: _facts(7, 121), 8: _facts(8, 300)}
    assert _episodes(facts, gap) == {5: 0, 3: 0, 7: 1, 9: 1, 8: 2}


def test_a_list_question_keeps_an_episodes_best_two_and_turns_down_the_rest() -> None:
    raw = {1: 0.5, 2: 0.9, 3: 0.7, 4: 0.6, 5: 0.2}
    spread = _spread(raw, {1: 0, 2: 0, 3: 0, 4: 0, 5: 1})
    assert spread == {2: 0.9, 3: 0.7, 4: pytest.approx(0.6 * 0.75), 1: pytest.approx(0.5 * 0.75 ** 2),
                      5: 0.2}


@pytest.mark.parametrize(("question", "content", "cue"), [
    ("How long did Bear stay at the river?", "I stayed at the river for two hours.", 0.5),
    ("How long did Bear stay at the river?", "I stayed at the river with Wolf.", 0.0),
    ("How many fish did Bear catch?", "I caught three fish.", 0.5),
    ("How many fish did Bear catch?", "I caught fish.", 0.0),
    ("Where did Bear fish?", "I fished for two hours, three times.", 0.0),
])
def test_a_how_long_or_how_many_question_lifts_a_memory_holding_its_answer(question: str, content: str,
                                                                            cue: float) -> None:
    assert _cue(read_query(question), content) == cue


def test_recall_refreshes_a_recent_memory_from_its_faded_strength(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf steals your fish at the river.", others=["wolf"],
                                world_time="2025-01-01T08:00:00Z"))
        memory = world.character("bear").relationships["wolf"].recent_memories[0]
        later = memory.created_at + timedelta(days=7)
        faded = faded_strength(memory, memory.created_at, later)
        with world.world.transaction() as tx:
            refresh_recalled(tx, [memory], later)
        after = world.character("bear").relationships["wolf"].recent_memories[0]
    assert faded < 0.9
    assert after.strength == pytest.approx(faded + 0.15, abs=1e-6)
    assert (after.strength_at, after.last_recalled, after.recall_count) == (later, later, 1)


def test_recall_says_where_each_memory_came_from(played: tuple[Curator, Any]) -> None:
    """A memory whose words match is a "match", one formed beside a match a "neighbour", one
    linked to a match in the memory network a "link"; `hop=0` follows no links."""
    world, _ = played
    recall = world.config.recall

    def ranked(hop: float | None) -> list[Recalled]:
        return rank(world.world, "bear", read_query("steel trap"), config=recall, weights=recall.weights,
                    present=[], now=world.world.clock(), limit=30, hop=hop)

    found = ranked(None)
    by_source = {s: [r for r in found if s in r.sources] for s in ("match", "neighbour", "link")}
    assert all(by_source.values())
    for r in found:
        assert ("match" in r.sources) == (r.parts.matched == 1.0)
    assert all(any(w in r.memory.content.lower() for w in ("steel", "trap")) for r in by_source["match"])
    assert not [r for r in ranked(0.0) if "link" in r.sources]


def test_search_counts_core_memories_within_its_limit(played: tuple[Curator, Any]) -> None:
    world, _ = played
    found = world.search("bear", "steel trap", limit=2)
    assert len(found) == 2 and all(r.memory.tier is Tier.CORE for r in found)


def _classified(make: Any) -> str:
    from curator.model import llm

    litellm = llm._litellm()  # imported offline, as the gateway does
    return llm.classify(make(litellm), [])


def _caused(error: BaseException, cause: BaseException) -> BaseException:
    error.__cause__ = cause
    return error


def _status(code: int) -> httpx.Response:
    return httpx.Response(code, request=httpx.Request("POST", "http://model.test/v1/chat/completions"))


@pytest.mark.parametrize(("make", "reason"), [
    (lambda m: m.Timeout("slow", "m", "openai"), "timeout"),  # before its base, a connection error
    (lambda m: m.RateLimitError("slow down", "openai", "m"), "rate limited"),
    (lambda m: m.ContentPolicyViolationError("no", "m", "openai"), "refusal"),  # before bad request
    (lambda m: m.ContextWindowExceededError("long", "m", "openai"), "prompt too long"),
    (lambda m: m.InternalServerError("boom", "openai", "m"), "server error"),
    (lambda m: m.ServiceUnavailableError("down", "openai", "m"), "server error"),
    (lambda m: m.BadGatewayError("gw", "openai", "m"), "server error"),
    (lambda m: m.APIConnectionError("gone", "openai", "m"), "connection error"),
    (lambda m: m.AuthenticationError("key", "openai", "m"), "not authorised"),
    (lambda m: m.PermissionDeniedError("no", "openai", "m", _status(403)), "not authorised"),
    (lambda m: m.BadRequestError("bad", "m", "openai"), "rejected by the provider"),
    (lambda m: m.NotFoundError("none", "m", "openai"), "rejected by the provider"),
    (lambda m: m.UnprocessableEntityError("422", "m", "openai", _status(422)), "rejected by the provider"),
    (lambda m: m.APIError(418, "teapot", "openai", "m"), "provider error"),
    (lambda m: _caused(m.APIConnectionError("x", "openai", "m"), httpx.ReadTimeout("t")), "timeout"),
    (lambda m: _caused(m.InternalServerError("x", "openai", "m"), httpx.ConnectError("c")),
     "connection error"),
    (lambda m: _caused(m.RateLimitError("slow", "openai", "m"), RuntimeError("inner")), "rate limited"),
    (lambda m: RuntimeError("odd"), "error (RuntimeError)"),
])
def test_each_provider_error_falls_back_with_its_own_reason(make: Any, reason: str) -> None:
    assert _classified(make) == reason


def test_retried_answers_are_classified_by_what_ended_the_retries() -> None:
    from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException

    def retried(cause: BaseException) -> Any:
        return lambda m: _caused(InstructorRetryException("gave up", n_attempts=3, total_usage=0), cause)

    assert _classified(lambda m: IncompleteOutputException()) == "answer cut off"
    assert _classified(retried(RuntimeError("x"))) == "error (RuntimeError)"
    assert _classified(lambda m: retried(m.RateLimitError("slow", "openai", "m"))(m)) == "rate limited"
    assert _classified(retried(_invalid())) == "invalid answer"  # the model's mistake, not its cause
    assert _classified(retried(ValueError("bad"))) == "invalid answer"


def test_a_replay_without_the_answer_is_not_recorded_or_raised_when_strict() -> None:
    from curator.domain.errors import FixtureMissing

    loose = FixtureMissing("interpret@abc", "fixtures/x", strict=False)
    assert _classified(lambda m: loose) == "not recorded"
    wrapped = RuntimeError("litellm wrapped it")
    wrapped.__context__ = loose
    assert _classified(lambda m: wrapped) == "not recorded"
    with pytest.raises(FixtureMissing):
        _classified(lambda m: FixtureMissing("interpret@abc", "fixtures/x", strict=True))
    a, b = RuntimeError("a"), RuntimeError("b")
    a.__context__, b.__context__ = b, a  # a cycle ends the walk
    assert _classified(lambda m: a) == "error (RuntimeError)"
