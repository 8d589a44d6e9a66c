"""The cast: the personas of a unit of work's characters and the other names they go by.

A turn's steps ask for the perceiver's persona many times (interpret, appraise, reviews) and
the reader needs every character's other names (perspective.aliases_of). The cast reads the
turn's personas in one query and keeps them for the unit of work (a `Curation`); a persona a
later step asks for that the turn did not name is read on its own.
"""

from __future__ import annotations

from curator.domain.models import Turn
from curator.store.world import World
from curator.turn.perspective import Aliases, aliases_of, unambiguous


class Cast:
    def __init__(self, world: World):
        self.world = world
        self._personas: dict[str, str] = {}
        self._aliases: tuple[str, Aliases] | None = None  # (turn id, its aliases)

    def persona(self, character: str) -> str:
        if character not in self._personas:
            row = self.world.character_row(character)
            self._personas[character] = row["persona"] if row else ""
        return self._personas[character]

    def aliases(self, turn: Turn) -> Aliases:
        """The other names of the turn's characters, read from their personas (once a turn);
        a name two of them share is left out."""
        if self._aliases is None or self._aliases[0] != turn.id:
            missing = [c for c in turn.characters if c not in self._personas]
            found = self.world.personas(missing)
            self._personas.update({c: found.get(c, "") for c in missing})
            named = {c: aliases_of(c, self._personas[c]) for c in turn.characters}
            self._aliases = (turn.id, unambiguous(named))
        return self._aliases[1]
