"""Importing an export in short transactions: the game's turns go in between, and the import
is all or nothing (issue #17).

A world of 10,000 characters is an export of hundreds of MB; written in one transaction it held
the write lock for its whole length, and every turn meanwhile got `WorldLocked`. Here:

1. the document is checked (its header, texts and clock) before anything is written, and a
   character that exists and holds memories is refused unless `replace` (nothing written);
2. one short transaction records the import and reserves the characters it will create
   (store/staging.py): each is marked with the import's id, unseen by every other reader, and a
   turn that would create one meanwhile is refused (`CharacterImporting`) rather than share it;
3. the new characters are written in batches, each a transaction of at most about
   `IMPORT_BUDGET` seconds (a batch ends after the character that crosses it), under the mark;
   a large document kept for the operations log is written a part a batch;
4. one last short transaction, the import's commit, writes the world's parts (reports,
   groups), the clock and the operations log entry, and clears the marks: the new
   characters become visible at once;
5. characters the world already has (stubs known only by name, or those `replace`
   overwrites: old and new memories may share ids, so these cannot be written under a mark)
   are written in the commit when they are few (`WRITE_AT_COMMIT`). More are checked in the
   batches of step 3 (each written and undone inside a savepoint: the same errors as writing
   it), their documents kept in the world (store/staging.py), and written after the commit,
   a batch a transaction again; an import whose process dies there is finished by the next
   opening of the world (`clean_up_imports`): past its commit it is never undone.

Any error before the commit (a malformed character document, a conflict at the end) or an
interruption deletes what the batches wrote (`staging.clean_up`, in short transactions too)
and raises; a process killed before it leaves marked rows that nobody sees, and the next
import or the next opening of the world deletes them. The commit's length grows with the
import's character count (one statement over them), not with their memories.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from curator.domain.config import CuratorConfig
from curator.domain.decoding import decode_text, load_json
from curator.domain.errors import (
    CuratorError,
    ImportCancelled,
    InvalidInput,
    MalformedExport,
    WorldFormatError,
)
from curator.export.documents import (
    Imported,
    Reading,
    check_header,
    finish_reading,
    import_one,
    start_reading,
    write_one,
)
from curator.export.knowing import import_groups
from curator.export.lazy import WorldText, read_world
from curator.export.limits import MAX_DOCUMENT_BYTES, MAX_IMPORT_FILE_BYTES
from curator.store import staging
from curator.store.oplog import log_operation
from curator.store.world import World

IMPORT_BUDGET = 0.1  # a batch stops after the character that takes it past this (seconds)
RESERVE = 2_000  # characters reserved per transaction
IMPORT_SETTLE = 0.25  # at most this long waiting between batches for a checkpoint under way (seconds)
# Characters the world has, written in the commit itself up to this many (each ~10 ms in a world
# of 10,000 characters); more are written after it, in batches (step 5).
WRITE_AT_COMMIT = 10

log = logging.getLogger("curator.importing")


class Importing:
    """`Curator.import_document`, in batches."""

    config: CuratorConfig

    @property
    def world(self) -> World:
        raise NotImplementedError  # Curator's: this thread's connection

    def import_document(self, document: Mapping[str, Any] | WorldText, *, replace: bool = False,
                        clock: str | None = None,
                        progress: Callable[[int, int], None] | None = None) -> list[str]:
        """Load characters from an export (one character or a whole world); returns their ids.
        A malformed document raises `MalformedExport` naming the field, and nothing is written.
        The document's lens weights are laid over this Curator's config.

        The world's clock moves to the document's. A document clock more than a year past the
        latest time it holds is refused (it would refuse every turn until then) unless `clock`
        says what to read it as of: "latest" (the latest time it holds) or an ISO time.

        It is written in short transactions, so the game's turns go in between, and becomes
        visible in one last short one, all of it at once (api/importing.py says how).
        `progress(written, total)` is called after each of them with the characters written
        so far; whatever it raises stops the import, and nothing of it stays."""
        check_header(document.fields if isinstance(document, WorldText) else document)
        self.clean_up_imports()
        reading = start_reading(self.world, document, clock)
        keys = reading.keys
        existing = self._existing(keys, replace)
        # Outside any transaction: the operations log's copy of a large document is written
        # a part a batch; a document read as text is kept as its text.
        logged = _Logged(document, replace, clock)
        with self.world.transaction() as world:
            import_id = staging.begin_import(world)
        owners: dict[int, str] = {}
        try:
            try:
                done, later = self._write(import_id, reading, keys, existing, replace, logged, owners,
                                          progress)
            except BaseException:
                # If it cannot, the next import or opening of the world does (staging.abandoned).
                with suppress(CuratorError):
                    staging.clean_up(lambda: self.world, import_id)
                raise
            if later:
                self._publish(import_id, done, owners, len(keys), progress)
        finally:
            staging.ended(import_id)
        self.config.appraisal = done.appraisal  # only once the import has committed
        return [owners[n] for n in sorted(owners)]

    def import_file(self, path: str | Path, *, replace: bool = False, clock: str | None = None,
                    progress: Callable[[int, int], None] | None = None) -> list[str]:
        """Import an export file (one character or a whole world) as `import_document` does.
        A world's file is read a character at a time (export/lazy.py): it needs the memory
        of its text and of one character's values, not of the whole document's, so a file
        of up to MAX_IMPORT_FILE_BYTES is taken. Any other file is read whole, up to
        MAX_DOCUMENT_BYTES. A file that is not JSON, or not an export, raises InvalidInput
        or MalformedExport naming it, and nothing is written."""
        path = Path(path)
        what = str(path)
        try:
            size = path.stat().st_size
            if size > MAX_IMPORT_FILE_BYTES:
                raise InvalidInput(f"{what} is {size:,} bytes; an import file is at most "
                                   f"{MAX_IMPORT_FILE_BYTES:,}")
            text = decode_text(path.read_bytes(), what=what)
        except OSError as error:
            raise InvalidInput(f"{what} cannot be read ({error.strerror or error})") from error
        world = read_world(text, what=what)
        if world is not None:
            return self.import_document(world, replace=replace, clock=clock, progress=progress)
        if size > MAX_DOCUMENT_BYTES:
            raise InvalidInput(f"{what} is {size:,} bytes and no world export (read a character at "
                               f"a time); any other import file is at most {MAX_DOCUMENT_BYTES:,}")
        document = load_json(text, what=what)
        if not isinstance(document, dict):
            raise MalformedExport(f"{what} is not a curator export (not a JSON object)")
        return self.import_document(document, replace=replace, clock=clock, progress=progress)

    def clean_up_imports(self) -> int:
        """Delete what imports that died before their commit left, and finish writing those
        that died after it (short transactions both); the characters deleted. The next import
        and the opening of a world do this."""
        deleted = 0
        for import_id in staging.abandoned(self.world):
            if not staging.publishing(self.world, import_id):
                deleted += staging.clean_up(lambda: self.world, import_id)
                continue
            with self.world.transaction() as world:
                adopted = staging.adopt(world, import_id)
            if adopted:  # else another process took it first
                try:
                    done = Imported([], self.config.appraisal)
                    self._publish(import_id, done, {}, 0, None)
                    self.config.appraisal = done.appraisal
                finally:
                    staging.ended(import_id)
        return deleted

    def _existing(self, keys: list[str | None], replace: bool) -> set[str]:
        """The characters of the document the world has already; without `replace`, one that
        holds memories is refused here, before anything is written."""
        world = self.world
        present = world.characters_among([k for k in dict.fromkeys(keys) if k is not None])
        if not replace:
            for key in keys:
                if key in present and (any(world.count_memories(key).values())
                                       or world.relationship_others(key)):
                    raise WorldFormatError(f"character {key!r} already exists (use replace to overwrite)")
        return present

    def _write(self, import_id: str, reading: Reading, keys: list[str | None], existing: set[str],
               replace: bool, logged: _Logged, owners: dict[int, str],
               progress: Callable[[int, int], None] | None) -> tuple[Imported, bool]:
        """Steps 2 to 4 (and the checks of 5); whether characters are left to write after the commit."""
        done = Imported([], self.config.appraisal)
        state = _State()
        staged = [n for n, key in enumerate(keys) if key not in existing]
        held = [n for n, key in enumerate(keys) if key in existing]
        later = held if len(held) > WRITE_AT_COMMIT else []
        checking = list(later)
        # A small document is logged as it is; a large one in parts, a part a batch.
        parts = -(-logged.length // staging.PART) if logged.length > staging.PART else 0

        def one(world: World, n: int) -> None:
            import_one(world, reading, n, reading.docs[n], replace=replace, done=done)
            owners[n] = done.characters[-1]

        def check(world: World, n: int) -> None:
            # Written and undone: its document raises here what writing it would, and its
            # time is known; it is kept to be written after the commit.
            doc = reading.docs[n]
            world.conn.execute("savepoint import_check")
            try:
                as_of = import_one(world, reading, n, doc, replace=replace,
                                   done=Imported([], done.appraisal))
            finally:
                world.conn.execute("rollback to import_check")
                world.conn.execute("release import_check")
            text = json.dumps(doc, ensure_ascii=False, default=str)
            staging.keep_pending(world, import_id, staging.Pending(n, as_of, text))

        new = list(dict.fromkeys(k for k in keys if k is not None and k not in existing))
        for start in range(0, len(new), RESERVE):  # reserved: a turn may not create them now
            with self._staging(import_id, state) as world:
                world.ensure_characters(new[start:start + RESERVE], world.now())
        kept = 0
        while staged or checking or kept < parts:
            with self._staging(import_id, state) as world:
                staging.heartbeat(world, import_id)
                deadline = time.perf_counter() + IMPORT_BUDGET
                if kept < parts:
                    staging.store_parts(world, import_id, kept, logged.part(kept, staging.PART))
                    kept += 1
                while staged or checking:  # at least one a batch: one that crosses the budget ends it
                    if staged:
                        one(world, staged.pop(0))
                    else:
                        check(world, checking.pop(0))
                    if time.perf_counter() >= deadline:
                        break
            self._between_batches(len(owners), len(keys), progress)
        with self._staging(import_id, state) as world:  # the commit: all of it becomes visible
            if not later:  # few: written here, old and new swap at once
                for n in held:
                    one(world, n)
            finish_reading(world, reading, done)
            groups = reading.document.get("groups") if reading.kind == "curator.world" else None
            if later and groups:  # again once the characters written after the commit are in
                text = json.dumps({"groups": groups, "owners": [keys[n] for n in later]},
                                  ensure_ascii=False, default=str)
                staging.keep_pending(world, import_id, staging.Pending(staging.GROUPS, None, text))
            clock = world.staged_clock()
            world.staging = None
            staging.finish(world, import_id, publishing=bool(later))
            now = world.clock()
            if clock is not None and (now is None or datetime.fromisoformat(clock) > now):
                world.set_meta("clock", clock)
            if parts:
                log_operation(world, "import", staging.parts_reference(import_id))
            else:  # as dumped before the transaction began
                log_operation(world, "import", logged.text())
        return done, bool(later)

    def _publish(self, import_id: str, done: Imported, owners: dict[int, str], total: int,
                 progress: Callable[[int, int], None] | None) -> None:
        """Step 5: write the characters the import kept to write after its commit, a batch a
        transaction, then its groups again for them. A failure here leaves the rest kept, and
        the next opening of the world (or the next import) finishes it."""
        try:
            while True:
                with self.world.transaction() as world:
                    staging.heartbeat(world, import_id)
                    deadline = time.perf_counter() + IMPORT_BUDGET
                    while (pending := staging.next_pending(world, import_id)) is not None:
                        value = json.loads(pending.doc)
                        if pending.n == staging.GROUPS:  # checked as the commit wrote them
                            import_groups(world, value["groups"], value["owners"])
                        else:
                            write_one(world, value, pending.as_of, replace=True, done=done,
                                      where=f"characters.{pending.n}")
                            owners[pending.n] = done.characters[-1]
                        staging.written_pending(world, import_id, pending.n)
                        if time.perf_counter() >= deadline:
                            break
                    else:
                        staging.published(world, import_id)
                        return
                self._between_batches(len(owners), total, progress)
        except ImportCancelled:
            raise  # its record is gone (a rewind swapped the world in): nothing is left to finish
        except BaseException as error:
            log.warning("import %s committed, but writing the characters it holds stopped (%s); the "
                        "next import or opening of the world finishes it", import_id, error)
            raise

    def _between_batches(self, written: int, total: int, progress: Callable[[int, int], None] | None) -> None:
        checkpointer = self.world.checkpointer
        if checkpointer is not None:
            # The log copied before the next batch, as fading does (api/cycles.py).
            checkpointer.settle(IMPORT_SETTLE)
        if progress is not None:
            progress(written, total)

    @contextmanager
    def _staging(self, import_id: str, state: _State) -> Iterator[World]:
        """A transaction writing the import: its characters seen, the clock it has moved kept."""
        with self.world.transaction() as world:
            world.staging = import_id
            try:
                if state.clock is not None:
                    world.keep_clock(state.clock)
                yield world
                if world.staging is not None:
                    state.clock = world.staged_clock()
            finally:
                world.staging = None


@dataclass
class _State:
    clock: str | None = None  # the world clock as the import has moved it (iso)


class _Logged:
    """The operations log's arguments of an import, as JSON text: a document read as text is
    written as its own text between the other arguments, so no second copy of a large file
    is made; `part` cuts the whole into the parts staging keeps."""

    def __init__(self, document: Mapping[str, Any] | WorldText, replace: bool, clock: str | None):
        tail = json.dumps({"replace": replace, "clock": clock}, ensure_ascii=False)
        if isinstance(document, WorldText):
            self._pieces = ['{"document": ', document.text, ", " + tail[1:]]
        else:
            self._pieces = [json.dumps({"document": document, "replace": replace, "clock": clock},
                                       ensure_ascii=False, default=str)]
        self.length = sum(len(piece) for piece in self._pieces)

    def part(self, n: int, size: int) -> str:
        """The `n`th `size` characters of the text."""
        start, end, out, offset = n * size, (n + 1) * size, [], 0
        for piece in self._pieces:
            low, high = max(start - offset, 0), min(end - offset, len(piece))
            if low < high:
                out.append(piece[low:high])
            offset += len(piece)
        return "".join(out)

    def text(self) -> str:
        """The whole text (a small document's: the operations log keeps it in one row)."""
        return "".join(self._pieces)
