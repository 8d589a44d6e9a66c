"""Filing: what a memory of each kind weighs, and how far one turn moves a feeling.

The rules (`fallback.py`) pick a memory's kind from the deeds, and the numbers below give its
valence and the feeling's shift from that kind and the turn's significance (0..1). A model's
judgement is laid over that filing (`judging.interpretation_from`) and moves the feelings by
the same weights, so a model that rated a rescue as the rules do leaves the rescued as warm
as the rules would.
"""

from __future__ import annotations

from curator.domain.models import Gap, MemoryKind

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
