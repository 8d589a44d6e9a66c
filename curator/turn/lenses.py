"""Weighing the lenses: how a memory's lens scores combine into its importance and whether it is
kept, with each character's weights drawn from its evolved attributes (a cautious character
weighs danger more, a collaborative one the social lens).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from curator.domain.config import AppraisalConfig
from curator.evolution.attributes import stored_attributes
from curator.store.world import World

# Which attribute turns which lens up; a negative sign turns it down.
ATTRIBUTE_LENSES: dict[str, tuple[str, float]] = {
    "caution": ("danger", 1.0), "collaboration": ("social", 1.0),
    "thoroughness": ("practical", 1.0), "resilience": ("emotional", -1.0)}


def weights_from_attributes(attributes: Mapping[str, float]) -> dict[str, float]:
    """Lens multipliers from attributes on 0..1: 0.5 (the start) leaves a lens as it is, 1.0
    makes it count 1.5 times, 0.0 half as much (the other way round for a negative sign)."""
    out: dict[str, float] = {}
    for attribute, (lens, sign) in ATTRIBUTE_LENSES.items():
        if attribute in attributes:
            out[lens] = round(1.0 + sign * (float(attributes[attribute]) - 0.5), 4)
    return out


def lens_weights(world: World, character: str, config: AppraisalConfig) -> dict[str, float]:
    """The character's weight per lens (the appraisal design: weighted per character's personality): the
    world's weights (1.0 unless configured), times what its attributes say once evolution
    cycles have moved them (`weights_from_attributes`: a cautious character weighs danger
    more), unless the game set the character's own weights (`character_weights`), which stand
    as given."""
    weights = config.weights_for(character)
    own = config.character_weights.get(character, {})
    for lens, factor in weights_from_attributes(stored_attributes(world, character)).items():
        if lens in weights and lens not in own:
            weights[lens] = round(max(0.0, weights[lens] * factor), 4)
    return weights


# -- combination and retention -------------------------------------------------------------

def combine(scores: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The appraisal design's `calculate_priority`: the lens priorities' mean, weighted by the character."""
    total = sum(weights.get(name, 1.0) for name in scores)
    if total <= 0.0:
        return round(sum(scores.values()) / len(scores), 4) if scores else 0.0
    return round(sum(p * weights.get(name, 1.0) for name, p in scores.items()) / total, 4)


@dataclass(frozen=True)
class Retention:
    """Whether a draft is kept, the importance it is kept with, and which path kept it:
    "formation" (its own importance reached the threshold, as before appraisal), "overall"
    (the combined priority lifted it over), a lens name, or "link"."""

    keep: bool
    importance: float
    by: str | None = None
    reason: str | None = None


def retain(draft_importance: float, threshold: float, scores: Mapping[str, float],
           lens_thresholds: Mapping[str, float], combined: float,
           link: Callable[[], tuple[float, str | None]], link_threshold: float) -> Retention:
    """The appraisal design's `should_retain`. The importance is the draft's, lifted to the combined
    priority when that is higher: the interpretation's significance is the scale the
    formation, core and reconcile thresholds were set on, and a mean over lenses is lower
    than it for most memories, so ordinary memories keep their importance; a memory that
    matters in several ways at once is lifted. `link` is asked only when nothing else kept
    the draft (it costs a query) and returns the strongest link and the memory it goes to."""
    importance = draft_importance if draft_importance >= combined else combined  # as given: no rounding
    if draft_importance >= threshold:
        return Retention(True, importance, "formation")
    if importance >= threshold:
        return Retention(True, importance, "overall", f"kept: overall {combined:.2f} ≥ {threshold:.2f}")
    over = [(p - lens_thresholds[n], n) for n, p in scores.items() if n in lens_thresholds
            and p >= lens_thresholds[n]]
    if over:
        _, name = max(over)
        return Retention(True, importance, name,
                         f"kept: {name} {scores[name]:.2f} ≥ {lens_thresholds[name]:.2f}")
    strength, other = link()
    if other is not None and strength >= link_threshold:
        return Retention(True, importance, "link",
                         f"kept: link {strength:.2f} ≥ {link_threshold:.2f} to {other}")
    return Retention(False, importance)


# -- the fallback ----------------------------------------------------------------------------
