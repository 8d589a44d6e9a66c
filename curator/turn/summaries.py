"""Summaries: the fallback's long-term summary of a relationship, and which way one leans.

Summaries are written from trait counts (what a character has seen another be), so that a
summary holds both sides of a relationship once both exist, with the defining memory named.
"""

from __future__ import annotations

from curator.domain.models import display_name
from curator.domain.traits import NEGATIVE_TRAITS, POSITIVE_TRAITS

# How a summary holds its defining memory, word for word.
PINNED = "I will not forget this:"


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def describe_relationship(
    other: str,
    traits: dict[str, int],
    bond: float,
    defining: str | None = None,
) -> str:
    """A long-term summary from what a character has seen of another, holding both sides."""
    name = display_name(other)
    ranked = sorted(traits.items(), key=lambda kv: (-kv[1], kv[0]))
    negative = [t for t, n in ranked if t in NEGATIVE_TRAITS and n > 0]
    positive = [t for t, n in ranked if t in POSITIVE_TRAITS and n > 0]
    neg_weight = sum(traits.get(t, 0) for t in negative)
    pos_weight = sum(traits.get(t, 0) for t in positive)
    if negative and positive:
        if neg_weight >= pos_weight:
            parts = [f"{name} is complicated: mostly {_join(negative[:2])}, "
                     f"but capable of being {_join(positive[:2])} when it matters."]
        else:
            parts = [f"{name} is complicated: usually {_join(positive[:2])}, "
                     f"but I have seen {name} be {_join(negative[:2])}."]
    elif negative:
        often = "again and again" if neg_weight >= 3 else "at times"
        parts = [f"{name} has been {_join(negative[:3])} {often}."]
    elif positive:
        often = "time and again" if pos_weight >= 3 else "so far"
        parts = [f"{name} has been {_join(positive[:3])} {often}."]
    else:
        parts = [f"I do not know {name} well yet."]
    if defining:
        parts.append(f"{PINNED} {defining.rstrip('.')}.")
    if negative and bond > 0.15:
        parts.append("Despite our disputes, there is respect between us.")
    elif positive and bond < -0.15:
        parts.append("Even so, I am wary of them now.")
    elif bond > 0.5:
        parts.append("I trust them.")
    elif bond < -0.5:
        parts.append("I do not trust them.")
    return " ".join(parts)


def summary_tone(traits: dict[str, int], bond: float) -> float:
    """Which way a summary leans, −1..1: from traits if there are any, else from the bond."""
    pos = sum(n for t, n in traits.items() if t in POSITIVE_TRAITS)
    neg = sum(n for t, n in traits.items() if t in NEGATIVE_TRAITS)
    if pos + neg == 0:
        return bond
    return (pos - neg) / (pos + neg)
