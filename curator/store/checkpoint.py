"""Moving the write-ahead log into the world file, off the turn's path.

In WAL mode a commit appends pages to the `-wal` file; now and then those pages must be
copied back into the database file (a checkpoint), and with `synchronous = normal` that copy
ends in two fsyncs. SQLite does it inside whichever commit pushes the log past
`wal_autocheckpoint` pages, so one turn in twenty or so waited for the disk: on the observe
benchmark those commits *were* the 95th percentile (a commit's p95 was 8.6 ms, 0.95 ms with
no checkpoints).

A `Checkpointer` runs the checkpoint from a thread with a connection of its own, woken when
the log holds `pages` frames not yet copied (SQLite's own default, 1,000), as read from the
log's index after each commit; a world that writes little per commit (context's recall
refresh) is checkpointed as rarely as before. A PASSIVE checkpoint never waits for the
writer and the writer never waits for it (they take different locks), and sqlite3 releases
the GIL while it runs, so the copy and the fsyncs overlap with the next turns instead of
delaying one. Durability does not change: a commit is in the log before `commit` returns,
as before; the checkpoint only decides when the log is folded in.

The writer keeps a `wal_autocheckpoint`, larger than SQLite's 1,000 pages, because only it
can let the log start over: SQLite rewinds the log at a commit whose transaction began with
every frame already copied, and when turns come back to back the writer begins the next one
before this thread's pass ends. So the log grows until the writer's own checkpoint copies
the last few frames (two fsyncs inside one commit, ~10 ms here) and rewinds it. At 10,000
pages (a log of up to ~40 MB) that is one turn in ~200 of the benchmark (p99 9.7 -> 6.3 ms
against 4,000 pages); with a pause between turns this thread's pass lets it rewind first.
"""

from __future__ import annotations

import os
import sqlite3
import struct
import threading

WRITER_AUTOCHECKPOINT = 10_000  # pages: the writer's own checkpoint, which rewinds the log
PAGES = 1_000  # frames written and not yet copied that wake the thread (SQLite's default)
EVERY_COMMITS = 16  # if the log's index cannot be read: a busy turn writes ~50 pages
# The WAL index (the -shm file) starts with a header whose layout SQLite keeps stable, since
# processes of different versions share it (walformat.html): mxFrame, the frames in the log,
# at byte 16; nBackfill, the frames already copied into the database, at byte 96. Native order.
_FRAMES_AT, _COPIED_AT, _HEADER = 16, 96, 100


class Checkpointer:
    """A background PASSIVE checkpoint of one world file whenever its log holds `pages`
    frames not yet copied (or, where the log's index cannot be read, every `every` commits).
    The thread and its connection start the first time, so a short-lived world (a CLI
    command) never starts one."""

    def __init__(self, path: str, *, pages: int = PAGES, every: int = EVERY_COMMITS,
                 busy_timeout_ms: int = 5_000):
        self.path = path
        self.pages = pages
        self.every = every
        self.busy_timeout_ms = busy_timeout_ms
        self.runs = 0  # checkpoints done (tests and benchmarks read it)
        self.errors = 0  # checkpoints that failed; the writer's autocheckpoint covers them
        self.last: tuple[int, int, int] | None = None  # the last one's (busy, log frames, copied)
        self._commits = 0
        self._index: int | None = None  # the -shm file, opened on first need; -1: unreadable
        self._wake = threading.Event()
        self._idle = threading.Event()  # set while no pass is due or under way (settle)
        self._idle.set()
        self._stop = False
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        """After a commit: wake the thread (starting it the first time) if the log is due."""
        backlog = self.backlog()
        if backlog is not None:
            if backlog < self.pages:
                return
        else:
            self._commits += 1
            if self._commits < self.every:
                return
            self._commits = 0
        self._idle.clear()
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"curator-checkpoint {self.path}",
                                            daemon=True)
            self._thread.start()
        self._wake.set()

    def settle(self, timeout: float) -> bool:
        """Wait (at most `timeout` seconds) for a pass that is due or under way to end; True if
        none is left. Bulk work (fading) waits so between its transactions: its next one then
        begins with the log copied, so SQLite rewinds the log instead of the writer's own
        checkpoint copying it inside a commit (110-154 ms commits measured while fading
        10,000 characters' memories under load)."""
        return self._thread is None or self._idle.wait(timeout)

    def backlog(self) -> int | None:
        """Frames in the log not yet copied into the world file (one 100-byte read of the
        log's index); None where it cannot be read (no -shm file, no os.pread)."""
        if self._index is None:
            try:
                self._index = os.open(self.path + "-shm", os.O_RDONLY) if hasattr(os, "pread") else -1
            except OSError:
                self._index = -1
        if self._index < 0:
            return None
        try:
            header = os.pread(self._index, _HEADER, 0)
        except OSError:
            return None
        if len(header) < _HEADER:
            return None
        (frames,) = struct.unpack_from("=I", header, _FRAMES_AT)
        (copied,) = struct.unpack_from("=I", header, _COPIED_AT)
        return frames - copied if frames >= copied else None

    def close(self) -> None:
        """Stop the thread, letting a checkpoint under way finish; its connection closes with it."""
        if self._index is not None and self._index >= 0:
            os.close(self._index)
        self._index = None
        if self._thread is None:
            return
        self._stop = True
        self._wake.set()
        self._thread.join()
        self._thread = None
        self._idle.set()

    def _run(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=self.busy_timeout_ms / 1000)
        try:
            while True:
                self._wake.wait()
                self._wake.clear()
                if self._stop:
                    return
                try:
                    self.last = conn.execute("pragma wal_checkpoint(PASSIVE)").fetchone()
                    self.runs += 1
                except sqlite3.Error:
                    self.errors += 1
                if not self._wake.is_set():  # no commit asked for another pass meanwhile
                    self._idle.set()
        finally:
            conn.close()
