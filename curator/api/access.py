"""How a `Curator` reaches its world file: one connection per thread, and every failure of the
file as a typed error.

A game server calls one `Curator` from a pool of threads. One SQLite connection cannot hold
two transactions at once ("cannot start a transaction within a transaction"), so each thread
gets a connection of its own, opened the first time it asks (`Connections.world`); their
writes take turns in the world's writers' queue like those of separate processes, and their
reads run side by side (WAL). A world in memory (":memory:") exists only in its one
connection, which the threads then share, one transaction at a time.

`translated` wraps the public methods of a class so that an SQLite error that escapes them
(a damaged page met while reading, say) arrives as the typed error that names its
cause (store/failures.py), never as a raw `sqlite3` error, and so that their arguments are
held to their type hints first (arguments.py).
"""

from __future__ import annotations

import functools
import inspect
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from curator.api.arguments import checked
from curator.store.failures import about_the_file, translate
from curator.store.opening import open_world
from curator.store.world import World

C = TypeVar("C", bound=type)


class Connections:
    """The connections of one `Curator` to its world, one per thread that used it."""

    def __init__(self, path: str | Path, *, busy_timeout_ms: int, create: bool, force: bool):
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self.home = open_world(path, busy_timeout_ms=busy_timeout_ms, create=create, force=force)
        self.shared = str(path) == ":memory:"
        self._local = threading.local()
        self._local.world = self.home
        self._opened: list[World] = [self.home]
        self._lock = threading.Lock()

    def world(self) -> World:
        """This thread's connection (the first thread's was opened, and checked, by __init__)."""
        world: World | None = getattr(self._local, "world", None)
        if world is None:
            if self.shared:
                return self.home
            # The file was checked (created, migrated, refused) when the Curator was made.
            world = open_world(self.path, busy_timeout_ms=self.busy_timeout_ms, create=False, force=True)
            self._local.world = world
            with self._lock:
                self._opened.append(world)
        return world

    def close(self) -> None:
        with self._lock:
            opened, self._opened = self._opened, []
        for world in opened:
            world.close()


def translated(cls: C) -> C:
    """Wrap the public methods `cls` defines or inherits (not properties, not dunders) so that
    SQLite errors become typed errors naming the world's path."""
    for klass in reversed(cls.__mro__[:-1]):
        for name, member in list(vars(klass).items()):
            if name.startswith("_") or not inspect.isfunction(member):
                continue
            setattr(cls, name, _wrap(member))
    return cls


def _wrap(method: Callable[..., Any]) -> Callable[..., Any]:
    if getattr(method, "__translated__", False):
        return method
    method = checked(method)
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def guarded_async(self: Any, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except sqlite3.Error as error:
                if not about_the_file(error):
                    raise
                raise translate(error, _path(self), doing=method.__name__) from error
        guarded_async.__translated__ = True  # type: ignore[attr-defined]
        return guarded_async

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as error:
            if not about_the_file(error):
                raise
            raise translate(error, _path(self), doing=method.__name__) from error
    guarded.__translated__ = True  # type: ignore[attr-defined]
    return guarded


def _path(curator: Any) -> str:
    connections = getattr(curator, "connections", None)
    return str(connections.path) if connections is not None else "?"
