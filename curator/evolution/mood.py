"""Mood (the evolution system's current-state layer): how a character feels now, from what it just lived.

That layer was designed around a needs model (energy, focus) that curator does not have; what curator
does have is the character's newest memories. Their valence, weighed by importance and by
how recent they are within `RecallConfig.mood_hours` of world time, gives one number and a
word for it, with how many things went well and badly; a danger in the newest quarter of
the window leaves the character shaken unless far more went well. Nothing is stored: the mood is
read whenever a context is assembled, so it fades as the memories age out of the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from curator.domain.models import Memory, MemoryKind

# The words for a mood, from the weighed valence: (upper bound, word).
_WORDS = ((-0.45, "shaken"), (-0.15, "uneasy"), (0.15, "steady"), (0.45, "content"))
_TOP = "glad"
_FELT = 0.15  # a memory this far from neutral counts as something that went well or badly


@dataclass(frozen=True)
class Mood:
    """A character's mood: the word, the weighed valence (-1..1) and what went well and badly."""

    word: str
    valence: float
    good: int
    bad: int
    danger: bool  # a danger lately: the mood is shaken unless much more went well
    hours: float

    def sentence(self) -> str:
        """'You feel uneasy: in the last 12 hours 2 things went badly and 1 went well.'"""
        def things(count: int) -> str:
            return f"{count} thing{'s' if count != 1 else ''}"

        counts = [f"{things(self.bad)} went badly"] if self.bad else []
        if self.good:
            counts.append(f"{self.good if counts else things(self.good)} went well")
        hours = f"{self.hours:g} hour{'s' if self.hours != 1 else ''}"
        tail = f": in the last {hours} " + " and ".join(counts) if counts else ""
        return f"You feel {self.word}{tail}."


def mood_of(memories: list[Memory], now: datetime, hours: float) -> Mood | None:
    """The mood the memories formed in the last `hours` before `now` leave; None if there are none."""
    if hours <= 0:
        return None
    window = hours * 3600.0
    weighed = total = 0.0
    good = bad = 0
    danger = False
    for memory in memories:
        age = (now - memory.created_at).total_seconds()
        if not 0 <= age <= window:
            continue
        weight = max(memory.importance, 0.1) * (1.0 - 0.7 * age / window)  # newer counts more
        weighed += weight * memory.valence
        total += weight
        good += memory.valence > _FELT
        bad += memory.valence < -_FELT
        # A danger lived through in the last quarter of the window leaves the character shaken.
        danger = danger or (memory.kind is MemoryKind.DANGER and age <= window / 4)
    if total == 0:
        return None
    valence = weighed / total
    word = next((w for bound, w in _WORDS if valence < bound), _TOP)
    if danger and valence < _WORDS[-1][0]:  # only a day of joy outweighs a brush with death
        word = "shaken"
    return Mood(word=word, valence=round(valence, 3), good=good, bad=bad, danger=danger, hours=hours)
