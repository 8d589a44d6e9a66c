"""Writers of one world take turns: a first-come lock file beside the world (`world.db-lock`).

SQLite serialises writers itself, but its busy handler polls: a waiting writer sleeps up to
100 ms between tries, so a writer that commits turn after turn wins the lock again and again
and the other one gives up after its busy timeout (issue #16: one of two writers under
sustained load lost its remaining turns). This lock is a queue instead. A writer that waits
blocks in the kernel and is woken when the lock is let go, and a turnstile makes the one that
let it go queue behind the ones already waiting:

    take the turnstile (byte 1), take the writer lock (byte 0), let the turnstile go

A writer that lets the writer lock go and wants it again must pass the turnstile, which the
writer already waiting holds, so it waits its turn. The locks are Linux open-file-description
locks (F_OFD_SETLK): they belong to one open file, not one process, so two threads with
connections of their own queue too, and closing the file lets them go (a process that dies
lets its lock go). Where they do not exist (not Linux) whole-file `flock` is used without the
turnstile, and where neither exists, or the lock file cannot be created (a read-only folder),
SQLite's busy handler alone serialises writers, as before.

Waiting has a deadline (the busy timeout): the blocking wait runs on a helper thread that
the caller waits for; a helper whose caller gave up lets the lock go as soon as it gets it.
"""

from __future__ import annotations

import os
import struct
import threading

try:
    import fcntl
except ImportError:  # not a Unix: SQLite's busy handler alone serialises writers
    fcntl = None  # type: ignore[assignment]

_OFD = fcntl is not None and hasattr(fcntl, "F_OFD_SETLKW")
_WRITER, _TURNSTILE = 0, 1  # the bytes locked in the lock file


class LockTimeout(Exception):
    """The writer lock was not free before the deadline."""


def _lock(fd: int, byte: int, *, wait: bool) -> None:
    """Take one byte's lock (OFD) or the whole file's (flock); BlockingIOError if taken and
    not `wait`."""
    assert fcntl is not None
    if _OFD:
        command = fcntl.F_OFD_SETLKW if wait else fcntl.F_OFD_SETLK
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks), padding
        fcntl.fcntl(fd, command, struct.pack("@hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, byte, 1, 0))
    elif byte == _WRITER:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))


def _unlock(fd: int, byte: int) -> None:
    assert fcntl is not None
    if _OFD:
        fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("@hhqqi4x", fcntl.F_UNLCK, os.SEEK_SET, byte, 1, 0))
    elif byte == _WRITER:
        fcntl.flock(fd, fcntl.LOCK_UN)


class WriteLock:
    """The queue of writers of the world at `path` (its lock file is `path + "-lock"`)."""

    def __init__(self, path: str):
        self.file = path + "-lock"
        self._fd: int | None = None  # kept open: the uncontended path costs three fcntl calls
        self._held: int | None = None  # the descriptor holding the writer lock now
        self.enabled = fcntl is not None
        self.waits = 0  # acquisitions that had to queue (tests read it)

    def acquire(self, timeout: float) -> None:
        """Take the writer lock, waiting in line at most `timeout` seconds (LockTimeout)."""
        if not self.enabled:
            return
        fd = self._descriptor()
        if fd is None:
            return
        try:
            _lock(fd, _TURNSTILE, wait=False)
        except BlockingIOError:
            pass  # someone is waiting: queue behind them
        else:
            try:
                _lock(fd, _WRITER, wait=False)
            except BlockingIOError:
                _unlock(fd, _TURNSTILE)
            else:
                _unlock(fd, _TURNSTILE)
                self._held = fd
                return
        self.waits += 1
        self._held = _Waiter(self.file).wait(timeout)

    def release(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        if held == self._fd:
            _unlock(held, _WRITER)
        else:
            os.close(held)  # a waiter's own descriptor: closing it lets its lock go

    def close(self) -> None:
        self.release()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _descriptor(self) -> int | None:
        if self._fd is None:
            try:
                self._fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                self.enabled = False  # a read-only folder: nobody can write here anyway
                return None
        return self._fd


class _Waiter:
    """One blocking wait in line, on a helper thread and a descriptor of its own, so that the
    caller can stop waiting at its deadline."""

    def __init__(self, file: str):
        self.file = file
        self.fd: int | None = None
        self.error: BaseException | None = None
        self.abandoned = False
        self.done = threading.Event()
        self.guard = threading.Lock()

    def wait(self, timeout: float) -> int:
        thread = threading.Thread(target=self._run, name=f"curator-write-lock {self.file}", daemon=True)
        thread.start()
        self.done.wait(timeout)
        with self.guard:
            if self.error is not None:
                raise self.error
            if self.fd is None:
                self.abandoned = True
                raise LockTimeout(f"{self.file}: still taken after {timeout:.1f} s")
            return self.fd

    def _run(self) -> None:
        fd = -1
        try:
            fd = os.open(self.file, os.O_RDWR | os.O_CREAT, 0o644)
            _lock(fd, _TURNSTILE, wait=True)
            _lock(fd, _WRITER, wait=True)
            _unlock(fd, _TURNSTILE)
        except BaseException as error:  # handed to the caller, never lost on this thread
            if fd >= 0:
                os.close(fd)
            with self.guard:
                self.error = error
            self.done.set()
            return
        with self.guard:
            if self.abandoned:
                os.close(fd)  # the caller gave up: let the lock go to the next in line
            else:
                self.fd = fd
        self.done.set()

