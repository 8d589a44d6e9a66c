"""Moving the write-ahead log into the world file, off the turn's path.

In WAL mode a commit appends pages to the `-wal` file; now and then those pages must be
copied back into the database file (a checkpoint), and with `synchronous = normal` that copy
ends in two fsyncs. SQLite does it inside whichever commit pushes the log past
`wal_autocheckpoint` pages, so one turn in twenty or so waited for the disk: on the observe
benchmark those commits *were* the 95th percentile (a commit's p95 was 8.6 ms, 0.95 ms with
no checkpoints).

A `Checkpointer` runs the checkpoint from a thread with a connection of its own, woken every
`every` commits. A PASSIVE checkpoint never waits for the writer and the writer never waits
for it (they take different locks), and sqlite3 releases the GIL while it runs, so the
copy and the fsyncs overlap with the next turns instead of delaying one. Durability does
not change: a commit is in the log before `commit` returns, as before; the checkpoint only
decides when the log is folded in.

The writer keeps a `wal_autocheckpoint`, larger than SQLite's 1,000 pages, because only it
can let the log start over: SQLite rewinds the log at a commit whose transaction began with
every frame already copied, and when turns come back to back the writer begins the next one
before this thread's pass ends. So the log grows until the writer's own checkpoint copies
the last few frames (two fsyncs inside one commit, ~10 ms here) and rewinds it. At 10,000
pages (a log of up to ~40 MB) that is one turn in ~200 of the benchmark (p99 9.7 -> 6.3 ms
against 4,000 pages); with a pause between turns this thread's pass lets it rewind first.
"""

from __future__ import annotations

import sqlite3
import threading

WRITER_AUTOCHECKPOINT = 10_000  # pages: the writer's own checkpoint, which rewinds the log
EVERY_COMMITS = 16  # a busy turn writes ~50 pages: a checkpoint per ~800 (SQLite's default: 1000)


class Checkpointer:
    """A background PASSIVE checkpoint of one world file every `every` commits. The thread
    and its connection start on the `every`-th commit, so a short-lived world (a CLI
    command) never starts one."""

    def __init__(self, path: str, *, every: int = EVERY_COMMITS, busy_timeout_ms: int = 5_000):
        self.path = path
        self.every = every
        self.busy_timeout_ms = busy_timeout_ms
        self.runs = 0  # checkpoints done (tests and benchmarks read it)
        self.errors = 0  # checkpoints that failed; the writer's autocheckpoint covers them
        self.last: tuple[int, int, int] | None = None  # the last one's (busy, log frames, copied)
        self._commits = 0
        self._wake = threading.Event()
        self._stop = False
        self._thread: threading.Thread | None = None

    def committed(self) -> None:
        """Count a commit; every `every`-th wakes the thread (starting it the first time)."""
        self._commits += 1
        if self._commits < self.every:
            return
        self._commits = 0
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"curator-checkpoint {self.path}",
                                            daemon=True)
            self._thread.start()
        self._wake.set()

    def close(self) -> None:
        """Stop the thread, letting a checkpoint under way finish; its connection closes with it."""
        if self._thread is None:
            return
        self._stop = True
        self._wake.set()
        self._thread.join()
        self._thread = None

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
        finally:
            conn.close()
