"""Behaviours a mutation run (issue #16) showed could change with every other test passing: each
test here fails if its behaviour changes (checked by hand-mutating the code it names).

- recall: the bonus for memories about characters present, the recency half-life;
- fading: the extra slowdown after twenty recalls;
- the turn flow: a tie at the core cap, the thresholds at which a new memory contradicts the
  summary, an observer's turn without the actor's intent;
- dedup: a draft that repeats several memories reinforces the newest;
- the gateway: a `content_filter` finish is a refusal.

test_pinned_recall.py and test_pinned_flow.py hold the tests that kill the mutants a run of
scripts/mutation.sh left alive beyond these."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import TurnFactory
from pydantic import BaseModel, ValidationError

from curator import Curator, CuratorConfig, MemoryKind
from curator.domain.config import RecallConfig
from curator.domain.fading import faded_strength, kind_rate
from curator.domain.models import Memory, Relationship
from curator.domain.results import StepRecord
from curator.model.steps import FallbackDecider, Step
from curator.recall.query import read_query
from curator.recall.ranking import Recalled, rank
from curator.turn import dedup
from curator.turn.decisions import MemoryDraft
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
