"""Write transactions on a world: one `BEGIN IMMEDIATE` per unit of work, all of it or none.

A transaction waits its turn in the writers' queue (writelock.py) and then for SQLite's
lock, at most the busy timeout in all (`WorldLocked` after that); it rolls back on any
error, and an SQLite error becomes the typed error that names its cause (failures.py). The
threads that share one connection take turns too. What the transactions write is world.py's.

Python's cyclic garbage collector is paused while a write transaction is open (`_gc_paused`):
a full collection in a process holding much (an evolution cycle over 10,000 characters)
took up to 0.7 s, and when it fell inside a transaction it held the write lock that long
(issue #17). A collection that comes due meanwhile runs after the commit.

`time_writes(callback)` reports how long each write transaction of the process held the
write lock (from its BEGIN to its COMMIT or ROLLBACK, in seconds): the game-scale benchmark
uses it to find the longest hold. Off by default, it then costs one global read per
transaction.
"""

from __future__ import annotations

import gc
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Self

from sqlite_utils import Database

from curator.domain.errors import WorldLocked
from curator.store.checkpoint import Checkpointer
from curator.store.failures import about_the_file, is_locked, translate
from curator.store.writelock import LockTimeout, WriteLock

_write_timer: Callable[[float], None] | None = None  # see time_writes
_gc_lock = threading.Lock()
_gc_open = 0  # write transactions open in this process (any thread)
_gc_was_enabled = False


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic collector off while any write transaction of the process is open; back on
    (if it was) when the last one ends. Reference counting still frees memory meanwhile."""
    global _gc_open, _gc_was_enabled
    with _gc_lock:
        if _gc_open == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_open += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_open -= 1
            if _gc_open == 0 and _gc_was_enabled:
                gc.enable()


@contextmanager
def time_writes(callback: Callable[[float], None]) -> Iterator[None]:
    """Within this block, `callback(seconds)` after each write transaction of this process,
    with how long it held the write lock. Not nested: the previous timer comes back after."""
    global _write_timer
    previous, _write_timer = _write_timer, callback
    try:
        yield
    finally:
        _write_timer = previous


class Transactions:
    """One connection to a world and its write transactions.

    Its transactions are serialised between the threads that share it (a lock), and between
    connections and processes by the world's write lock (writelock.py), waited for at most
    `busy_timeout` seconds."""

    def __init__(self, db: Database, path: str, checkpointer: Checkpointer | None = None, *,
                 busy_timeout: float = 30.0, writelock: WriteLock | None = None):
        self.db = db
        self.conn: sqlite3.Connection = db.conn
        self.path = path
        self.checkpointer = checkpointer
        self.busy_timeout = busy_timeout
        self.writelock = writelock
        self._guard = threading.RLock()

    def close(self) -> None:
        if self.checkpointer is not None:
            self.checkpointer.close()
        if self.writelock is not None:
            self.writelock.close()
        self.conn.close()

    @contextmanager
    def transaction(self, *, commit: bool = True, wait: float | None = None) -> Iterator[Self]:
        """One write transaction: all of it commits, or none of it does. With commit=False it
        is a dry run: everything is rolled back at the end (rounds.py attempts units so).
        `wait`: seconds to wait for the write lock, when less than the busy timeout (a read's
        optional write, store/text_index.py, must not stall the read behind another writer).
        An SQLite error inside it becomes the typed error that names its cause (failures.py)."""
        with self._guard, _gc_paused():
            self._begin(self.busy_timeout if wait is None else min(wait, self.busy_timeout))
            timer = _write_timer
            held = time.perf_counter() if timer is not None else 0.0
            try:
                try:
                    yield self
                except sqlite3.Error as error:
                    self._rollback()
                    if about_the_file(error):
                        raise translate(error, self.path) from error
                    raise
                except BaseException:
                    self._rollback()
                    raise
                if not commit:
                    self._rollback()
                    return
                try:
                    self.conn.execute("commit")
                except sqlite3.Error as error:
                    self._rollback()
                    if about_the_file(error):
                        raise translate(error, self.path, doing="commit") from error
                    raise
            finally:
                if self.writelock is not None:
                    self.writelock.release()
                if timer is not None:
                    timer(time.perf_counter() - held)
        if self.checkpointer is not None:
            self.checkpointer.committed()

    def _queue(self, locked: str, wait: float | None = None) -> None:
        """Wait for this connection's turn in the writers' queue (when the world has one), at
        most `wait` seconds (the busy timeout); `WorldLocked` saying the world `locked` (how
        long, or while what) past the wait."""
        if self.writelock is None:
            return
        try:
            self.writelock.acquire(self.busy_timeout if wait is None else wait)
        except LockTimeout as error:
            raise WorldLocked(f"world {self.path} stayed locked {locked}") from error
        except OSError as error:  # the lock file went away or its folder turned read-only
            raise translate(error, self.path) from error

    @contextmanager
    def writers_turn(self, locked: str | None = None) -> Iterator[None]:
        """Hold this world's place in the writers' queue for work that is more than one
        transaction of this connection (migrating, swapping a rewound world in)."""
        self._queue(locked or f"by other writers for {self.busy_timeout:g} s")
        try:
            yield
        finally:
            if self.writelock is not None:
                self.writelock.release()

    def _begin(self, wait: float) -> None:
        """BEGIN IMMEDIATE once this connection's turn in the writers' queue has come, within
        `wait` seconds. SQLite's busy handler covers writers that do not queue (another
        program); a busy answer it gives back early (a log being recovered) is tried again
        with a growing pause."""
        deadline = time.monotonic() + wait
        self._queue(f"by other writers for {wait:g} s", wait)
        if wait < self.busy_timeout:  # SQLite's own handler would wait the whole busy timeout
            self.conn.execute(f"pragma busy_timeout = {int(wait * 1000)}")
        pause = 0.002
        try:
            while True:
                try:
                    self.conn.execute("begin immediate")
                    return
                except sqlite3.Error as error:
                    left = deadline - time.monotonic()
                    if not is_locked(error) or left <= 0:
                        if self.writelock is not None:
                            self.writelock.release()
                        if is_locked(error):
                            raise WorldLocked(f"world {self.path} stayed locked by another writer "
                                              f"for {wait:g} s") from error
                        raise translate(error, self.path) from error
                    time.sleep(min(left, pause * random.uniform(0.5, 1.5)))  # jitter: waiters apart
                    pause = min(pause * 2, 0.1)
        finally:
            if wait < self.busy_timeout:
                self.conn.execute(f"pragma busy_timeout = {int(self.busy_timeout * 1000)}")

    def _rollback(self) -> None:
        """Roll back what is left: SQLite may already have rolled the transaction back (a
        full disk does), and then ROLLBACK's own error ("no transaction is active") would
        hide the real cause."""
        if self.conn.in_transaction:
            with suppress(sqlite3.Error):
                self.conn.execute("rollback")
