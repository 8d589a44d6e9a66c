"""The turn flow, dedup, fading and the gateway's error classification, as a mutation run
(scripts/mutation.sh) found them unpinned: what promotion and reconcile decide and say, how a
repeat refreshes a memory, and the reason every provider error falls back with."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from test_pinned import START, _invalid, _memory

from curator import Curator, CuratorConfig, MemoryKind, Tier
from curator.domain.fading import faded_strength
from curator.domain.lexicon import word_set
from curator.domain.models import Relationship
from curator.domain.results import StepRecord
from curator.model.steps import FallbackDecider, Step
from curator.turn import dedup
from curator.turn.decisions import MemoryDraft, Reconciliation
from curator.turn.pipeline import Curation
from curator.turn.threads import Thread

# -- fading ---------------------------------------------------------------------------------


def test_fading_runs_from_the_first_hour_not_from_the_first_day() -> None:
    memory = _memory("m", "x", importance=0.0)
    assert faded_strength(memory, START, START + timedelta(hours=12)) == pytest.approx(1.0 - 0.035 / 2)
    assert faded_strength(memory, START, START) == 1.0


# -- the turn flow --------------------------------------------------------------------------


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


# -- dedup ----------------------------------------------------------------------------------


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


def _repeats(held: str, told: str, *, kinds: tuple[MemoryKind, MemoryKind], valences: tuple[float, float],
             similarity: float = 0.55, share: float | None = None) -> bool:
    """Whether a draft told as `told` repeats a memory held as `held`; `share` is the Jaccard of
    their content words the case is built on (checked, so the case tests what it says)."""
    if share is not None:
        assert dedup._jaccard(word_set(held), word_set(told)) == pytest.approx(share)
    memory = _memory("held", held, kind=kinds[0], valence=valences[0])
    draft = MemoryDraft(subject="wolf", content=told, kind=kinds[1], emotional_impact="anger",
                        valence=valences[1], importance=0.6)
    return dedup.find_repeat([memory], draft, similarity=similarity) is memory


C, D = MemoryKind.CONFLICT, MemoryKind.DANGER
NEAR = "Wolf growls at me near the berry bushes."
FAR = "Wolf growls at me near the river."
OAK = "Wolf growls near the berry bushes by the old oak tree on the river bank."
OAK_HILL = "Wolf growls near the berry bushes by the old oak tree on the river hill slope."
OAK_SHORT = "Wolf growls near the berry bushes by the old oak tree on the river."


@pytest.mark.parametrize(("held", "told", "kinds", "valences", "share", "repeat"), [
    (NEAR, FAR, (C, C), (-0.5, -0.5), 0.5, True),  # the same kind, the world's similarity (0.5) reached
    (NEAR, FAR, (C, D), (-0.5, -0.5), 0.5, False),  # another kind needs the same words
    (OAK, OAK_SHORT, (C, D), (0.8, 0.2), 0.9, True),  # verbatim at 0.9, felt apart but not opposite
    (OAK, OAK_HILL, (C, D), (-0.5, -0.5), 0.75, True),  # retold: 9 of the shorter's 10 words
    (OAK, OAK_HILL, (C, D), (-0.5, 0.1), 0.75, False),  # retold, but felt 0.6 apart
    ("I am here.", "It is so.", (C, C), (-0.5, -0.5), 0.0, False),  # no content words: nothing alike
])
def test_a_draft_repeats_by_similar_words_of_its_kind_by_the_same_words_or_by_retelling(
        held: str, told: str, kinds: tuple[MemoryKind, MemoryKind], valences: tuple[float, float],
        share: float, repeat: bool) -> None:
    assert _repeats(held, told, kinds=kinds, valences=valences, similarity=0.5, share=share) is repeat


@pytest.mark.parametrize(("kind", "earlier", "repeat"), [
    (MemoryKind.FAILURE, "Try the slippery rocks at the falls", True),  # the rocks again
    (MemoryKind.FAILURE, "Climb the tall pine", False),  # another attempt
    (MemoryKind.DANGER, "Try the slippery rocks at the falls", False),  # not a failure
])
def test_failing_the_same_attempt_again_repeats_whatever_the_words(kind: MemoryKind, earlier: str,
                                                                   repeat: bool) -> None:
    memory = _memory("held", "I slip off the wet stones and bruise my hip.", kind=MemoryKind.FAILURE,
                     subject=None)
    draft = MemoryDraft(subject=None, content="I tumble into the cold pool, soaked to the bone.", kind=kind,
                        emotional_impact="annoyed", valence=-0.5, importance=0.6)
    found = dedup.find_repeat([memory], draft, similarity=0.55,
                              action="Wade onto the rocks and swipe for a trout",
                              action_of=lambda m: earlier if m is memory else None)
    assert (found is memory) is repeat


BERRIES = "Wolf is lying beside the berry bushes and growls low at you as you approach. You back away."
BERRIES_AGAIN = "Wolf is still lying beside the berry bushes and growls low at you as you come near."
GO = "Go to the berry bushes by the hollow"


@pytest.mark.parametrize(("kind", "before", "repeat"), [
    (C, (GO, BERRIES), True),  # the same happening again, told in other words each time
    (D, (GO, BERRIES), False),  # filed as another kind: not the same memory
    (C, (GO, "Wolf chases you off the gravel bar and you swim for the far bank."), False),  # not the same
    (C, ("Drink at the berry bushes", BERRIES), False),  # the same happening, another attempt
])
def test_the_same_thing_happening_again_repeats_however_it_was_told(kind: MemoryKind, before: tuple[str, str],
                                                                    repeat: bool) -> None:
    # the recorded model's two memories of t008 and t009 (long_two_animals) share two content words
    memory = _memory("held", "I was about to go to the berry bushes, but Wolf claimed them.", kind=C)
    draft = MemoryDraft(subject="wolf", content="Wolf is still there and snarls at me as I come near.",
                        kind=kind, emotional_impact="anger", valence=-0.5, importance=0.6)
    assert dedup._jaccard(word_set(BERRIES), word_set(BERRIES_AGAIN)) == pytest.approx(7 / 12)
    found = dedup.find_repeat([memory], draft, similarity=0.55,
                              happened=("Go back to the berry bushes by the hollow", BERRIES_AGAIN),
                              happened_of=lambda m: before if m is memory else None)
    assert (found is memory) is repeat
    assert dedup.find_repeat([memory], draft, similarity=0.55) is None  # the words alone: two memories


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


TAIL = "Beaver slaps his tail on the water right next to you and soaks you from nose to rump."
TAIL_AGAIN = "Beaver slaps his tail on the water right next to you again and soaks you from nose to rump."


@pytest.mark.parametrize(("kind", "valence", "repeat"), [
    (MemoryKind.RELATIONSHIP_EVENT, 0.05, True),  # the first meeting's happening again
    (MemoryKind.RELATIONSHIP_EVENT, -0.6, False),  # felt the other way: not the same memory
    (MemoryKind.CONFLICT, 0.05, False),  # another kind than a first meeting's and an event's
])
def test_a_first_meeting_happening_again_repeats_it(kind: MemoryKind, valence: float, repeat: bool) -> None:
    # evals/cases/long_valley.yaml d03-tail-1 and d03-tail-2: the rules file Bear's first visit to
    # the pond as an encounter and the same splash twenty minutes later as an event
    first = _memory("first", f"I meet Beaver for the first time. {TAIL}", kind=MemoryKind.ENCOUNTER,
                    valence=0.4, subject="beaver")  # a first meeting that went warmly
    draft = MemoryDraft(subject="beaver", content="I drank at the pond again, but Beaver slapped his tail.",
                        kind=kind, emotional_impact="wet", valence=valence, importance=0.6)
    found = dedup.find_repeat([first], draft, similarity=0.55,
                              happened=("Drink at the beaver pond again", TAIL_AGAIN),
                              happened_of=lambda m: ("Drink at the beaver pond", TAIL))
    assert (found is first) is repeat
