"""What of the world a connection sees while imports are under way (m015, store/staging.py).

An import writes its characters in short batches, each under the mark of the import
(`characters.import_id`), and makes them part of the world in its last transaction. Until
then they are the import's: the connection that writes them sees them (its `staging` is the
import's id, for the thread that writes), every other reader does not, and a turn or write
that would create one of them is refused (`CharacterImporting`) rather than share it.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass

from curator.domain.errors import CharacterImporting

# The characters this connection sees: the world's, and those its own import is writing.
SEEN = "(import_id is null or import_id = ?)"
# The characters imports under way are writing: every reader that walks the whole world
# (fading, the clock, cycles, embedding, groups, shared blocks) leaves their rows alone.
STAGED = "(select id from characters where import_id is not null)"


@dataclass
class _Staging:
    thread: int
    import_id: str
    clock: str | None = None  # the world clock as the import has moved it, until its last transaction


class Visibility:
    """The import a world connection is writing, if any, and the check that keeps others out."""

    conn: sqlite3.Connection
    # A world in memory shares its one connection between threads, and only the thread that
    # writes the import sees it.
    _staging: _Staging | None = None

    @property
    def staging(self) -> str | None:
        """The id of the import this thread is writing through this connection (None: none)."""
        staging = self._staged()
        return None if staging is None else staging.import_id

    @staging.setter
    def staging(self, import_id: str | None) -> None:
        self._staging = None if import_id is None else _Staging(threading.get_ident(), import_id)

    def _staged(self) -> _Staging | None:
        staging = self._staging
        return staging if staging is not None and staging.thread == threading.get_ident() else None

    def staged_clock(self) -> str | None:
        """The world clock as this thread's import has moved it (None: it has not): an import
        moves the clock only in its last transaction, so until then it keeps it here."""
        staging = self._staged()
        return None if staging is None else staging.clock

    def keep_clock(self, value: str) -> bool:
        """Keep a new world clock for this thread's import (True), or say there is none (False)."""
        staging = self._staged()
        if staging is None:
            return False
        staging.clock = value
        return True

    def _seen(self) -> str:
        """The parameter of `SEEN`: an import id never matches ''."""
        return self.staging or ""

    def _refuse_staged(self, ids: list[str]) -> None:
        """`CharacterImporting` if an import under way (not this thread's) is writing one of `ids`."""
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            row = self.conn.execute(f"select id, import_id from characters where id in ({marks}) "
                                    "and import_id is not null and import_id != ? limit 1",
                                    (*chunk, self._seen())).fetchone()
            if row is not None:
                raise CharacterImporting(f"character {row[0]!r} is being imported (import {row[1]}); "
                                         "try again once the import is done")
