"""Knowing: how a character came to know what a memory holds (its provenance), and how far to trust it.

Every memory records one origin:

- `did`: its owner was the turn's actor;
- `witnessed`: its owner observed the turn;
- `told`: another character told it (a turn's `tells`), through `hops` mouths: told by a
  witness is 1 hop, told by one who was told is 2, and so on (`mouths` names them, first
  teller first, the one who told this owner last);
- `rumour`: it heard talk with nothing behind it (a tell with `says` and no `about`);
- `shared`: it is knowledge its group holds (a place or faction, `group`), not an event it lived.

A memory with no record (one imported from an older export, say) is of unknown origin.

Confidence (0..1) is how far the owner can trust it. The rule: what one did or witnessed is
1.0; a story loses `RETELLING` of its weight at every mouth it passes through, so told by a
witness is 0.7, retold once 0.49, twice 0.343; a rumour is `RUMOUR` (0.3); what the whole
group knows is `SHARED` (0.8). Hearsay memories are formed at this fraction of a witness's
importance and strength, and move feelings by `HEARSAY_FEELING` × confidence of what a
witness's memory would (hearsay.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Origin = Literal["did", "witnessed", "told", "rumour", "shared"]
ORIGINS: tuple[str, ...] = ("did", "witnessed", "told", "rumour", "shared")

RETELLING = 0.7  # the weight a story keeps at each mouth it passes through
RUMOUR = 0.3
SHARED = 0.8
HEARSAY_FEELING = 0.5  # hearsay moves feelings half as much as seeing it would, times its confidence
# A teller deleted from the world (`Curator.delete_character`): the chain keeps its length
# (hops and confidence stay true) and says "someone" where the name was. Not a character id:
# ids are lower-case letters, digits and underscores.
FORGOTTEN_TELLER = "?"
MAX_HOPS = 64  # a chain of mouths longer than this is a game bug (a loop of retellings)


def confidence(origin: str, hops: int = 0) -> float:
    """The documented rule above, rounded to 4 places so it reads the same everywhere."""
    if origin in ("did", "witnessed"):
        return 1.0
    if origin == "rumour":
        return RUMOUR
    if origin == "shared":
        return SHARED
    return round(RETELLING ** max(1, hops), 4)


class Provenance(BaseModel):
    """How a memory's owner knows it. `about`: the turn the story is of (told, rumour: the
    turn it was told in when there is no event behind it); `mouths`: who passed it on, first
    teller first; `group`: for shared knowledge, the group that holds it."""

    model_config = ConfigDict(extra="forbid")

    origin: Origin
    confidence: float = Field(ge=0.0, le=1.0)
    hops: int = Field(default=0, ge=0, le=MAX_HOPS)
    mouths: list[str] = Field(default_factory=list, max_length=MAX_HOPS)
    about: str | None = Field(default=None, max_length=200)
    told_in: str | None = Field(default=None, max_length=200)
    group: str | None = Field(default=None, max_length=64)

    @property
    def told_by(self) -> str | None:
        """The one who told the owner (the last mouth), if it was told."""
        return self.mouths[-1] if self.mouths else None

    def phrase(self, name: Callable[[str], str] | None = None) -> str:
        """How `curator show` and the context say it: '' for what one did or saw,
        'heard from Heron', 'heard from Heron, via Crow', 'a rumour from Heron', 'known to
        the village'. `name` turns an id into a display name (the caller's)."""
        named: Callable[[str], str] = name or str

        def show(teller: str) -> str:
            return "someone" if teller == FORGOTTEN_TELLER else named(teller)
        if self.origin == "told" and self.mouths:
            via = [show(m) for m in self.mouths[:-1]]
            return f"heard from {show(self.mouths[-1])}" + (f", via {', '.join(via)}" if via else "")
        if self.origin == "rumour":
            return f"a rumour from {show(self.mouths[-1])}" if self.mouths else "a rumour"
        if self.origin == "shared" and self.group:
            return f"known to the {self.group.replace('_', ' ')}"
        return ""
