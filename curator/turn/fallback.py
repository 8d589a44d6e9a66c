"""Deterministic decisions: every pipeline step answered by rules, with no model.

Each function takes a step's input (`inputs.py`) and returns the same pydantic decision a
model would (`decisions.py`). `interpret` reads the turn (`reading.py`), scores its
significance in the spirit of the evolution system's `_calculate_significance`, picks kind, valence
and a feeling word, and phrases the memory in the perceiver's voice (`narration.py`).
"""

from __future__ import annotations

from curator.domain.lexicon import word_set
from curator.domain.models import Gap, MemoryKind, Turn, display_name
from curator.domain.traits import trait_polarity
from curator.model.decision import MemoryView
from curator.turn import filing as fl
from curator.turn.decisions import (
    ContextNote,
    CoreDecision,
    EpisodeConsolidation,
    FadeReview,
    Interpretation,
    MemoryDraft,
    Reconciliation,
)
from curator.turn.inputs import (
    ConsolidateInput,
    CoreReviewInput,
    FadeReviewInput,
    InterpretInput,
    ReconcileInput,
)
from curator.turn.judging import judgement_of_rules, trusts
from curator.turn.narration import retell
from curator.turn.phrasing import intended, lower_first, sentence, tried
from curator.turn.reading import Reading, read_turn
from curator.turn.summaries import describe_relationship, summary_tone

_GAP_WEIGHT = {Gap.SUCCEEDED: 0.0, Gap.FAILED: 0.15, Gap.BLOCKED: 0.2, Gap.THWARTED: 0.2,
               Gap.HELPED: 0.15, Gap.SURPRISED: 0.1, Gap.MIXED: 0.2}
_DEFINING_KINDS = frozenset({"danger", "triumph", "betrayal", "personality_moment", "kindness"})


def _clamp(value: float, low: float = 0.0, high: float = 1.0) -> float:
    return max(low, min(high, value))


def _similar_failures(recent_self: list[MemoryView], turn: Turn) -> int:
    """How many recent failures this turn repeats: three shared content words make a repeat."""
    wanted = word_set(f"{turn.intent.action} {turn.reality}")
    return sum(1 for m in recent_self if m.kind in ("failure", "lesson_learned")
               and len(wanted & word_set(m.content)) >= 3)


def significance(inp: InterpretInput, reading: Reading) -> float:
    """How memorable this turn is for this perceiver, 0..1 (the evolution system, for game turns)."""
    turn = inp.turn
    if turn.outcome is not None and turn.outcome.importance is not None:
        return turn.outcome.importance
    actor = inp.role == "actor"
    harm, danger, lethal = _perils(inp, reading)
    score = 0.3 + _GAP_WEIGHT[reading.gap]
    if turn.others:
        score += 0.1 + (0.05 if len(turn.others) > 1 else 0.0)
    if actor and (reading.armed or any(act != "met" for act in reading.acts_on.values())):
        score += 0.1  # the actor did something to someone (or set something for them): remembered
    if actor and reading.armed:
        score += 0.25  # a danger set on purpose is made to hurt: weighed like harm, by its doer
    if "betrayer" in reading.roles.values():
        score += 0.15  # being turned on is remembered longer than being refused
    if harm:
        score += 0.25
    elif danger:
        score += 0.15
    if lethal:
        score += 0.2
    if reading.intense:
        score += 0.1
    if reading.concealed:
        score += 0.25  # a deed someone hid is a secret, whoever holds it
    if reading.novelty or _first_meeting(inp, reading):
        score += 0.15
    if actor:
        failures = _similar_failures(inp.recent_self, turn)
        if (reading.gap in (Gap.SUCCEEDED, Gap.HELPED) and reading.success and not reading.failure
                and (reading.triumph or failures)):
            score += 0.15 + (0.15 if reading.triumph and failures else 0.0)
        elif reading.failure and failures:
            score += 0.15  # the same thing went wrong again: a lesson
    if reading.quiet and reading.gap is Gap.SUCCEEDED:
        score -= 0.05
    if not actor and reading.acts_on.get(inp.perceiver) == "helped":
        score += 0.25  # helped by the actor, an observer lives the turn as one helped: weighed so
    elif not actor and not (harm or lethal):
        score -= 0.1  # seeing is weaker than living it
    return round(_clamp(score), 3)


def _perils(inp: InterpretInput, reading: Reading) -> tuple[bool, bool, bool]:
    """Harm, danger, mortal danger: to the actor itself, or (for an observer) to anyone seen."""
    if inp.role == "actor":
        return reading.actor_harm, reading.actor_danger, reading.actor_lethal
    return reading.harm, reading.danger, reading.lethal


def _first_meeting(inp: InterpretInput, reading: Reading) -> bool:
    return any((rel.interactions == 0 and reading.roles.get(other, "present") != "present")
               or (rel.interactions == 0 and other in inp.turn.others)
               for other, rel in inp.relationships.items())


def _flow(clause: str, inp: InterpretInput) -> str:
    """A retold clause that can follow 'but …' mid-sentence; names keep their capitals."""
    names = [display_name(c) for c in inp.turn.characters]
    if clause.startswith("I ") or any(clause.startswith(name) for name in names):
        return clause
    return lower_first(clause)


def _relationship_draft(inp: InterpretInput, reading: Reading, other: str, sig: float) -> MemoryDraft:
    turn, rel = inp.turn, inp.relationships[other]
    role = reading.roles.get(other, "present")
    act = reading.acts_on.get(other)
    clause = retell(reading.clause_of.get(other, turn.reality), perceiver=inp.perceiver, actor=turn.actor)
    action = intended(turn.intent.action)
    importance = sig if role != "present" or act in fl.DONE_BY_ACTOR else fl.ordinary_importance(sig)
    trusted = trusts(rel)
    if role == "betrayer" or (role == "hostile" and trusted and reading.thwart):
        kind, valence, feeling = MemoryKind.BETRAYAL, fl.BETRAYAL_VALENCE, "betrayed"
        content = f"I trust {display_name(other)}, but {_flow(clause, inp)}"
    elif role == "hostile" and (other in reading.harm_by or reading.actor_harm):
        kind, valence = MemoryKind.DANGER, fl.PERIL_VALENCE
        feeling = "terrified" if reading.actor_lethal else "hurt"
        content = f"I mean to {action}, but {_flow(clause, inp)}"
    elif role == "hostile":
        kind = MemoryKind.CONFLICT
        valence = fl.conflict_valence(importance) - (0.1 if reading.thwart else 0.0)
        grudges = sum(n for t, n in rel.traits.items() if t in ("territorial", "aggressive", "selfish"))
        if grudges >= 3:
            feeling = "resentful"
        elif reading.thwart:
            feeling = "furious" if importance >= 0.6 else "annoyed"
        else:
            feeling = "angry" if importance >= 0.6 else "frustrated"
        content = f"I mean to {action}, but {_flow(clause, inp)}"
    elif role == "mixed":
        kind, valence, feeling = MemoryKind.RELATIONSHIP_EVENT, 0.1, "conflicted"
        content = f"When I {tried(action)}, {_flow(clause, inp)}"
    elif role == "helper":
        hinted = turn.outcome is not None and turn.outcome.importance is not None
        if reading.actor_danger and not hinted:
            importance = _clamp(importance + 0.15)  # a rescue from danger is defining
        kind, valence = MemoryKind.KINDNESS, fl.kindness_valence(importance)
        if reading.actor_danger:
            feeling = "relieved"
        elif summary_tone(rel.traits, rel.bond) < -0.15:
            feeling = "surprised"
        else:
            feeling = "grateful"
        content = f"When I {tried(action)}, {_flow(clause, inp)}"
    elif rel.interactions == 0:
        kind, valence, feeling = MemoryKind.ENCOUNTER, 0.1, "curious"
        content = f"I meet {display_name(other)} for the first time. {clause}"
    elif act in fl.DONE_BY_ACTOR:
        (kind, valence), feeling = fl.DONE_BY_ACTOR[act], "warm" if act == "helped" else "defiant"
        content = f"I mean to {action}: {_flow(clause, inp)}"
    else:
        kind, valence = MemoryKind.RELATIONSHIP_EVENT, fl.ordinary_valence(reading.gap)
        feeling = "surprised" if reading.gap is Gap.SURPRISED else "calm"
        content = clause
    return MemoryDraft(subject=other, content=sentence(content), kind=kind, emotional_impact=feeling,
                       valence=round(_clamp(valence, -1.0, 1.0), 3), importance=importance,
                       traits=reading.traits.get(other, [])[:4])


def _self_draft(inp: InterpretInput, reading: Reading, sig: float) -> MemoryDraft | None:
    turn = inp.turn
    told = retell(turn.reality, perceiver=inp.perceiver, actor=turn.actor)
    action = intended(turn.intent.action)
    repeated = _similar_failures(inp.recent_self, turn)
    if reading.actor_harm or reading.actor_danger:
        kind, valence = MemoryKind.DANGER, fl.own_peril_valence(reading.actor_harm)
        feeling = "terrified" if reading.actor_lethal else ("hurt" if reading.actor_harm else "afraid")
        lead = "My life is in danger" if reading.actor_lethal else "I am in danger"
        content = f"{lead}: {_flow(told, inp)}"
    elif reading.failure and not reading.success and not turn.others:
        if repeated:
            kind, valence, feeling = MemoryKind.LESSON_LEARNED, -0.3, "discouraged"
            content = f"Once again I {tried(action)} and it goes wrong: {_flow(told, inp)}"
        else:
            kind, valence, feeling = MemoryKind.FAILURE, fl.FAILURE_VALENCE, "disappointed"
            content = f"I {tried(action)}, but {_flow(told, inp)}"
    elif reading.gap in (Gap.SUCCEEDED, Gap.HELPED) and reading.success and (
            reading.triumph or (repeated and not turn.others)):
        kind, valence, feeling = MemoryKind.TRIUMPH, fl.TRIUMPH_VALENCE, "proud"
        content = f"I mean to {action}, and I do it: {_flow(told, inp)}"
    elif turn.others:
        return None  # an ordinary turn with others is remembered through them
    elif reading.discovery and reading.success:
        kind, valence, feeling = MemoryKind.DISCOVERY, 0.5, "delighted"
        content = f"I find something new: {_flow(told, inp)}"
    elif reading.armed and not reading.failure:
        # Setting a trap or a fire is a choice whose danger outlives the turn: its doer's decision.
        kind, valence, feeling = MemoryKind.DECISION_RECORD, 0.0, "determined"
        content = f"I mean to {action}, and I do: {_flow(told, inp)}"
    elif reading.novelty and not reading.failure:
        # "You have never seen a bird eat a frog whole before": a first is a discovery even
        # when nothing was found, because it changes what the character knows of the world.
        kind, valence, feeling = MemoryKind.DISCOVERY, 0.3, "fascinated"
        content = f"A first for me: {_flow(told, inp)}"
    elif reading.surprise:
        kind, valence, feeling = MemoryKind.SYSTEM_KNOWLEDGE, 0.0, "surprised"
        content = told
    else:
        kind, valence, feeling = MemoryKind.PROCESS_NOTE, 0.1, "content"
        content = f"I mean to {action}. {told}"
    return MemoryDraft(subject=None, content=sentence(content), kind=kind, emotional_impact=feeling,
                       valence=valence, importance=sig)


def _observer_drafts(inp: InterpretInput, reading: Reading, sig: float) -> list[MemoryDraft]:
    turn = inp.turn
    told = retell(turn.reality, perceiver=inp.perceiver, actor=turn.actor)
    roles = set(reading.roles.values())
    acts = set(reading.acts_on.values())
    if reading.harm:
        feeling, valence = "shaken", -0.6
    elif roles & {"hostile", "betrayer"} or "hostile" in acts:
        feeling, valence = "uneasy", -0.3
    elif "helper" in roles:
        feeling, valence = "impressed", 0.3
    elif any(trait_polarity(t) < 0 for t in reading.actor_traits):
        feeling, valence = "uneasy", -0.3
    else:
        feeling, valence = "curious", 0.0
    watched = sentence(f"I watch {display_name(turn.actor)}: {told}")
    kind = MemoryKind.WITNESSED
    # An observer the actor's deed was done to is no bystander: helped, it was a kindness to
    # it (a wolf watching the bear free its leg), attacked, a clash with it.
    done_to_me = reading.acts_on.get(inp.perceiver)
    if done_to_me == "helped":
        (kind, valence), feeling = fl.DONE_TO_OBSERVER["helped"], "grateful"
        watched = sentence(f"{display_name(turn.actor)} comes to my aid: {told}")
    elif done_to_me == "hostile":
        (kind, valence), feeling = fl.DONE_TO_OBSERVER["hostile"], "angry"
        watched = sentence(f"{display_name(turn.actor)} turns on me: {told}")
    drafts = [MemoryDraft(subject=turn.actor, content=watched,
                          kind=kind, emotional_impact=feeling, valence=valence,
                          importance=sig, traits=reading.actor_traits[:4])]
    for other, role in reading.roles.items():
        if other not in inp.allowed_subjects or role == "present" or sig < 0.5 or len(drafts) >= 4:
            continue
        clause = retell(reading.clause_of.get(other, turn.reality), perceiver=inp.perceiver,
                        actor=turn.actor)
        drafts.append(MemoryDraft(
            subject=other, content=sentence(f"I see what {display_name(other)} does: {_flow(clause, inp)}"),
            kind=MemoryKind.WITNESSED, emotional_impact="impressed" if role == "helper" else "wary",
            valence=0.5 if role == "helper" else -0.5, importance=round(max(0.0, sig - 0.05), 3),
            traits=reading.traits.get(other, [])[:4]))
    return drafts


def interpret(inp: InterpretInput, reading: Reading | None = None) -> Interpretation:
    """Intent vs reality → memories, immediate context and feelings, by rules: on the rules'
    reading of the turn, or on `reading` (a model's, full_reading.py)."""
    turn = inp.turn
    reading = reading or read_turn(turn, inp.aliases)
    sig = significance(inp, reading)
    drafts: list[MemoryDraft] = []
    if inp.role == "actor":
        for other in turn.others:
            if other in inp.relationships and len(drafts) < 3:
                drafts.append(_relationship_draft(inp, reading, other, sig))
        own = _self_draft(inp, reading, sig)
        if own is not None:
            drafts.append(own)
    else:
        drafts = _observer_drafts(inp, reading, sig)
    told = retell(turn.reality, perceiver=inp.perceiver, actor=turn.actor)
    main = max(drafts, key=lambda d: d.importance, default=None)
    if inp.role == "actor":
        feeling = f" I feel {main.emotional_impact}." if main else ""
        now = sentence(told + feeling, limit=700)
    else:
        now = sentence(f"I just saw this: {told}", limit=700)
    notes = [ContextNote(about=other, text=sentence(retell(clause, perceiver=inp.perceiver,
                                                           actor=turn.actor)))
             for other, clause in reading.clause_of.items() if other in inp.allowed_subjects]
    if inp.role == "observer" and turn.actor not in reading.clause_of:
        notes.append(ContextNote(about=turn.actor, text=sentence(told)))
    feelings = fl.feelings(inp, reading, sig)
    decision = Interpretation(gap=reading.gap, significance=sig, harm=reading.harm, danger=reading.danger,
                              immediate_context=now, relationship_contexts=notes, memories=drafts,
                              feelings=feelings)
    decision.judgement = judgement_of_rules(inp, decision)
    return decision


def fade_review(inp: FadeReviewInput) -> FadeReview:
    """A memory leaves the recent window: rarely core, sometimes a revised summary, else no impact."""
    m = inp.memory
    if m.importance >= inp.core_threshold and (abs(m.valence) >= 0.5 or m.kind in _DEFINING_KINDS):
        return FadeReview(outcome="core", reason=f"importance {m.importance:.2f} reaches the core "
                          f"threshold {inp.core_threshold:.2f}; too defining to let fade")
    rel = inp.relationship
    if rel is None:
        return FadeReview(outcome="no_impact", reason="a self memory has no long-term summary to revise")
    defining = max(rel.core, key=lambda c: c.importance).content if rel.core else None
    revised = describe_relationship(rel.other, rel.traits, rel.bond, defining)
    if revised != rel.summary and (m.importance >= 0.4 or not rel.summary):
        shown = ", ".join(m.traits) or m.kind
        return FadeReview(outcome="revise_summary", summary=revised,
                          reason=f"the fading memory ({shown}) is part of a pattern the summary "
                          "did not yet say")
    return FadeReview(outcome="no_impact", reason="my view already holds what this memory showed")


def core_review(inp: CoreReviewInput) -> CoreDecision:
    """Promote a memory to core only if it is both important enough and emotionally defining."""
    m = inp.memory
    if m.importance < inp.core_threshold:
        return CoreDecision(promote=False, reason=f"importance {m.importance:.2f} is under "
                            f"{inp.core_threshold:.2f}")
    if abs(m.valence) < 0.5 and m.kind not in _DEFINING_KINDS:
        return CoreDecision(promote=False, reason="important but not emotionally defining")
    return CoreDecision(promote=True, reason=f"a defining {m.kind.replace('_', ' ')} "
                        f"(importance {m.importance:.2f}, valence {m.valence:+.2f})")


def reconcile(inp: ReconcileInput) -> Reconciliation:
    """Hold both the old view and the new memory in one summary; move the bond toward the new."""
    m, rel = inp.memory, inp.relationship
    conflict = inp.contradiction
    # Only a contradiction moves the bond here; a first impression is already in the feelings.
    shift = round(_clamp(m.valence * 0.3 * m.importance, -0.5, 0.5), 3) if conflict else 0.0
    core = [c for c in rel.core if c.importance >= m.importance]
    defining = core[0].content if core else (m.content if m.importance >= 0.85 else None)
    summary = describe_relationship(rel.other, rel.traits, _clamp(rel.bond + shift, -1, 1), defining)
    reason = ("the new memory contradicts the summary, so the summary now holds both"
              if conflict else "a significant memory shapes a first impression")
    return Reconciliation(conflict=conflict, summary=summary, bond_shift=shift, reason=reason)


def consolidate(inp: ConsolidateInput) -> EpisodeConsolidation:
    """Episode end: fold the recent memories into the summary and pick the defining ones as core."""
    rel = inp.relationship
    recent = rel.recent
    candidates = sorted((m for m in recent if m.importance >= inp.episode_core_threshold
                         and abs(m.valence) >= 0.5), key=lambda m: -m.importance)[:2]
    weights = [m.valence * m.importance for m in recent]
    shift = round(_clamp(0.2 * sum(weights) / len(weights), -0.5, 0.5), 3) if weights else 0.0
    pool = [*rel.core, *candidates]
    defining = max(pool, key=lambda m: m.importance).content if pool else None
    summary = describe_relationship(rel.other, rel.traits, _clamp(rel.bond + shift, -1, 1), defining)
    return EpisodeConsolidation(summary=summary, core_memory_ids=[m.id for m in candidates],
                                bond_shift=shift, reason=f"consolidated {len(recent)} recent memories")
