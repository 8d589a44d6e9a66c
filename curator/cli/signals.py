"""How the command line stops when it is told to: Ctrl-C (SIGINT) and SIGTERM.

Both arrive as exceptions in the main thread, so every open transaction rolls back on its
way out (a turn is stored whole or not at all) and a command can say where it stopped. The
exit status is the shell's convention, 128 + the signal's number: 130 for Ctrl-C, 143 for
SIGTERM.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

INTERRUPTED = 130  # 128 + SIGINT
TERMINATED = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that whatever unwinds on Ctrl-C unwinds on it too."""


def model_calls_running() -> bool:
    """Whether a model call is still running on curator's call threads, as one a stop cut off
    is: Python joins such threads at exit, so the exit would wait for the call's answer (or its
    timeout, minutes with a slow local model). No gateway loaded, no call: nothing is imported."""
    gateway = sys.modules.get("curator.model.llm")
    if gateway is None:
        return False
    return any(t.name.startswith(gateway.CALL_THREADS) and t.is_alive() for t in threading.enumerate())


def stop_status(stop: BaseException) -> tuple[str, int]:
    """The word and the exit status for a stop: ("Terminated", 143) or ("Interrupted", 130)."""
    if isinstance(stop, Terminated):
        return "Terminated", TERMINATED
    return "Interrupted", INTERRUPTED


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated()


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """While a command runs, SIGTERM raises `Terminated`; the previous handler comes back after."""
    try:
        previous = signal.signal(signal.SIGTERM, _raise_terminated)
    except ValueError:  # not the main thread (curator run from a host's worker): leave signals be
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


@contextmanager
def signals_held() -> Iterator[None]:
    """Ignore Ctrl-C and SIGTERM for the moment a stopping command takes to say where it
    stopped: a second Ctrl-C should not cut that line into a traceback."""
    try:
        previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
