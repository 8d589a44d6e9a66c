"""Personality: snapshots derived from attributes, memories and relationships; drift
between snapshots with its reason (the identity narrative is identity.py's).

Everything here is pure: it reads values it is given and returns new ones. The evolution
cycle (evolution_cycle.py) gathers those values from the world and stores the results.
The derivation rules are the evolution system's `compute_personality_snapshot`, with the skill-based
parts replaced by what a game character has (trust in others, failures and lessons).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from curator.domain.models import Memory, MemoryKind, Tier

TRAITS = ("work_style", "risk_tolerance", "social_orientation", "learning_style", "stress_response")
# Which attributes each trait is derived from: a drift's reason names their changes.
TRAIT_SOURCES: dict[str, tuple[str, ...]] = {
    "work_style": ("thoroughness", "speed", "creativity"),
    "risk_tolerance": ("caution", "independence"),
    "social_orientation": ("collaboration", "independence"),
    "learning_style": ("curiosity",),
    "stress_response": ("resilience", "caution", "collaboration"),
}
# How an attribute reads as an adjective ("very cautious", "not very cooperative").
ADJECTIVES: dict[str, str] = {
    "thoroughness": "thorough", "speed": "quick", "creativity": "inventive", "caution": "cautious",
    "independence": "independent", "collaboration": "cooperative", "curiosity": "curious",
    "resilience": "resilient",
}


class DefiningMemory(BaseModel):
    """One of the (at most three) memories that shaped a personality the most."""

    id: str
    content: str
    kind: str
    subject: str | None = None
    importance: float


class PersonalitySnapshot(BaseModel):
    """The evolution system's PersonalitySnapshot for a game character, at one world time."""

    character: str
    world_time: str
    work_style: str
    risk_tolerance: str
    social_orientation: str
    learning_style: str
    stress_response: str
    identity_summary: str = ""
    narrative_by: Literal["model", "fallback"] = "fallback"
    defining_memories: list[DefiningMemory] = Field(default_factory=list)
    attributes: dict[str, float] = Field(default_factory=dict)
    avg_trust: float = 0.5
    avg_rapport: float = 0.5
    failures: int = 0
    lessons: int = 0
    through_change: int = 0  # the last attribute change this snapshot reflects
    id: int | None = None


class AttributeChange(BaseModel):
    """One logged drift: an attribute (other is None) or trust/rapport in `other`."""

    id: int = 0
    character: str
    attribute: str
    other: str | None = None
    delta: float
    value_after: float
    memory_id: str
    reason: str
    world_time: str


class Drift(BaseModel):
    """A trait that changed between two snapshots, and why."""

    trait: str
    old: str
    new: str
    reason: str


def derive_traits(attrs: dict[str, float], *, avg_rapport: float, avg_trust: float, failures: int,
                  lessons: int, start: float = 0.5) -> dict[str, str]:
    """The evolution system's derivation rules; an attribute the world does not track reads as `start`."""
    def a(name: str) -> float:
        return attrs.get(name, start)

    if a("thoroughness") > 0.7 and a("speed") < 0.4:
        work_style = "methodical"
    elif a("speed") > 0.7 and a("thoroughness") < 0.4:
        work_style = "rapid"
    elif a("creativity") > 0.7:
        work_style = "creative"
    elif a("thoroughness") > 0.6:
        work_style = "thorough"
    else:
        work_style = "balanced"
    if a("caution") > 0.7:
        risk = "conservative"
    elif a("independence") > 0.7 and a("caution") < 0.4:
        risk = "bold"
    else:
        risk = "balanced"
    if a("collaboration") > 0.7 and avg_rapport > 0.6:
        social = "collaborative"
    elif a("independence") > 0.7:
        social = "independent"
    elif avg_trust < 0.4 and a("collaboration") < 0.45:
        social = "guarded"  # the game's stand-in for the evolution system's skill-based "mentoring"
    else:
        social = "team_player"
    if a("curiosity") > 0.7:
        learning = "by_studying"
    elif failures > lessons:
        learning = "from_mistakes"
    else:
        learning = "by_doing"
    if a("resilience") > 0.7:
        stress = "doubles_down"
    elif a("caution") > 0.7:
        stress = "retreats"
    elif a("collaboration") > 0.6:
        stress = "delegates"
    else:
        stress = "adapts"
    return {"work_style": work_style, "risk_tolerance": risk, "social_orientation": social,
            "learning_style": learning, "stress_response": stress}


def defining_memories(memories: Sequence[Memory], limit: int = 3) -> list[Memory]:
    """The evolution system: highest significance, most recalled, least faded (core memories included)."""
    active = [m for m in memories if m.tier is Tier.CORE or m.strength > 0.2]
    return sorted(active, key=lambda m: (-(m.importance * 0.5 + min(m.recall_count, 50) * 0.01
                                           + m.strength * 0.3), m.created_at, m.id))[:limit]


def count_kinds(memories: Sequence[Memory]) -> tuple[int, int]:
    """(failures, lessons learned) among the memories, for the learning style."""
    failures = sum(1 for m in memories if m.kind is MemoryKind.FAILURE)
    lessons = sum(1 for m in memories if m.kind is MemoryKind.LESSON_LEARNED)
    return failures, lessons


def attribute_words(attrs: dict[str, float]) -> list[str]:
    """The attributes far from the middle, in words, the most marked first."""
    words: list[tuple[float, str]] = []
    for name, value in attrs.items():
        adjective = ADJECTIVES.get(name, f"high in {name}")
        low = ADJECTIVES.get(name, f"low in {name}")
        if value >= 0.75:
            words.append((value - 0.5, f"very {adjective}"))
        elif value >= 0.6:
            words.append((value - 0.5, adjective))
        elif value <= 0.25:
            words.append((0.5 - value, f"far from {low}" if name in ADJECTIVES else low))
        elif value <= 0.4:
            words.append((0.5 - value, f"not very {low}" if name in ADJECTIVES else low))
    return [w for _, w in sorted(words, key=lambda pair: -pair[0])]


def quote(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[:limit - 1].rstrip() + '…'}'"


def detect_drift(current: PersonalitySnapshot, previous: PersonalitySnapshot | None,
                 changes: Sequence[AttributeChange]) -> list[Drift]:
    """The traits that changed since `previous`, each with a reason naming the attribute
    changes (and their memories) that moved it: `changes` are those logged in between."""
    if previous is None:
        return []
    drifts = []
    for trait in TRAITS:
        old, new = getattr(previous, trait), getattr(current, trait)
        if old != new:
            drifts.append(Drift(trait=trait, old=old, new=new,
                                reason=_drift_reason(trait, current, previous, changes)))
    return drifts


def _drift_reason(trait: str, current: PersonalitySnapshot, previous: PersonalitySnapshot,
                  changes: Sequence[AttributeChange]) -> str:
    parts = []
    for name in TRAIT_SOURCES.get(trait, ()):
        moved = [c for c in changes if c.attribute == name and c.other is None]
        before, after = previous.attributes.get(name), current.attributes.get(name)
        if before is None and after is not None and moved:  # first moved since: back out its steps
            before = after - sum(c.delta for c in moved)
        if not moved or before is None or after is None or after == before:
            continue
        # The memories that pushed the way it went: a betrayal that pulled collaboration down
        # is no reason it rose.
        with_it = [c for c in moved if (c.delta > 0) == (after > before)] or moved
        top = sorted(with_it, key=lambda c: -abs(c.delta))[:2]
        chief = ", ".join(dict.fromkeys(c.reason.split(": ", 1)[-1] for c in top))  # a memory once
        # A small step can be the one that crosses a rule's threshold (independence 0.700 →
        # 0.704 makes a character "independent"): show it, with the digits that tell.
        digits = 2 if abs(after - before) >= 0.01 else 3
        parts.append(f"{name} {before:.{digits}f} → {after:.{digits}f} ({after - before:+.{digits}f} over "
                     f"{len(moved)} memor{'y' if len(moved) == 1 else 'ies'}, most of all {chief})")
    if trait == "social_orientation":
        for label, old, new in (("average trust", previous.avg_trust, current.avg_trust),
                                ("average rapport", previous.avg_rapport, current.avg_rapport)):
            if abs(new - old) >= 0.01:
                parts.append(f"{label} {old:.2f} → {new:.2f}")
    if trait == "learning_style" and (current.failures, current.lessons) != (
            previous.failures, previous.lessons):
        parts.append(f"failures {previous.failures} → {current.failures}, lessons learned "
                     f"{previous.lessons} → {current.lessons}")
    return "; ".join(parts) or "accumulated experience"
