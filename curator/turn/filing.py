"""Filing: what a memory of each kind weighs, and how far one turn moves a feeling.

The rules (`fallback.py`) pick a memory's kind from the deeds, and the numbers below give its
valence from that kind and the turn's significance (0..1); `feelings` says how far the turn
moves the perceiver's feeling toward each other one. A model's judgement is laid over that
filing (`judging.interpretation_from`) and its feelings are `feelings` at the model's rating,
so a model that rated a rescue as the rules do leaves the rescued as warm as the rules would.
"""

from __future__ import annotations

from curator.domain.models import Gap, MemoryKind
from curator.domain.traits import trait_polarity
from curator.turn.decisions import Feeling
from curator.turn.inputs import InterpretInput
from curator.turn.reading import Reading

# What the actor did to an observer perceiving: a kindness to it, or a clash with it (a wolf
# in a trap watching the bear pry its jaws open is no bystander).
DONE_TO_OBSERVER: dict[str, tuple[MemoryKind, float]] = {
    "helped": (MemoryKind.KINDNESS, 0.75), "hostile": (MemoryKind.CONFLICT, -0.6)}
# What an actor perceiving did for someone, or against them, when they did nothing themselves.
DONE_BY_ACTOR: dict[str, tuple[MemoryKind, float]] = {
    "helped": (MemoryKind.RELATIONSHIP_EVENT, 0.3), "hostile": (MemoryKind.CONFLICT, -0.3)}
BETRAYAL_VALENCE = -0.85
PERIL_VALENCE = -0.9  # hurt, or in danger, by someone
# Of oneself: a failure, a triumph.
FAILURE_VALENCE = -0.45
TRIUMPH_VALENCE = 0.8
# An ordinary turn with someone who did nothing to speak of is remembered through them, a
# little less than what someone did.
ORDINARY_DISCOUNT = 0.15
# Feelings: a betrayal, and amends for a wrong, move a feeling this much more than a harm or a help.
BETRAYAL_WEIGHT = 1.6


def kindness_valence(significance: float) -> float:
    return 0.4 + 0.5 * significance


def conflict_valence(significance: float) -> float:
    return -(0.4 + 0.4 * significance)


def ordinary_valence(gap: Gap) -> float:
    """An ordinary turn with someone: a little warmer when it went as meant."""
    return 0.05 if gap is Gap.SUCCEEDED else -0.1


def ordinary_importance(significance: float) -> float:
    return max(0.0, significance - ORDINARY_DISCOUNT)


def own_peril_valence(hurt: bool) -> float:
    """A danger one lived oneself: worse when one was hurt."""
    return PERIL_VALENCE if hurt else -0.6


def lived_weight(significance: float) -> float:
    """How far a turn lived (by the actor, or by an observer it was done to) moves a feeling."""
    return 0.15 + 0.45 * significance


def feelings(inp: InterpretInput, reading: Reading, significance: float) -> list[Feeling]:
    """How far the turn, read so and mattering so much, moves the perceiver's feeling toward
    each other character: by how much it mattered for what was done to the perceiver, a little
    for what it only saw."""
    turn, out = inp.turn, []
    shown = sum(trait_polarity(t) for t in reading.actor_traits)
    done_to_me = reading.acts_on.get(inp.perceiver) if inp.role == "observer" else None
    if done_to_me in ("helped", "hostile") and turn.actor in inp.allowed_subjects:
        # What was done to the observer moves it as it moves an actor: by how much it mattered.
        sign = 1.0 if done_to_me == "helped" else -1.0
        out.append(Feeling(toward=turn.actor, sentiment_shift=round(sign * lived_weight(significance), 3)))
    elif inp.role == "observer" and shown and turn.actor in inp.allowed_subjects:
        # An observer judges the actor by what its deeds showed (kept a secret, stood up to a threat).
        out.append(Feeling(toward=turn.actor, sentiment_shift=0.1 if shown > 0 else -0.1))
    for other, role in reading.roles.items():
        act = reading.acts_on.get(other) if inp.role == "actor" else None
        if other not in inp.allowed_subjects or (role == "present" and act in (None, "met")):
            continue
        if role == "present":
            weight, sign = 0.1, (1.0 if act == "helped" else -1.0)
            out.append(Feeling(toward=other, sentiment_shift=sign * weight))
            continue
        weight = lived_weight(significance) if inp.role == "actor" else 0.1
        sign = {"helper": 1.0, "mixed": 0.2}.get(role, -1.0)
        if role == "betrayer":
            weight *= BETRAYAL_WEIGHT
        elif other in reading.amends_by and inp.relationships[other].sentiment < 0:
            weight *= BETRAYAL_WEIGHT  # amends for a wrong weigh as much as a betrayal: they answer one
        out.append(Feeling(toward=other, sentiment_shift=round(max(-1.0, min(1.0, sign * weight)), 3)))
    return out
