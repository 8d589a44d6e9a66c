"""Shared fixtures. No test reaches the network: any socket to a non-loopback address fails."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from curator import Curator

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPT = ROOT / "fixtures" / "transcripts" / "two_animals.jsonl"

_real_connect = socket.socket.connect


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "localhost", "::1") and not (
            self.family == socket.AF_UNIX):
        raise RuntimeError(f"tests must not reach the network (tried {address!r})")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)


@pytest.fixture
def curator() -> Iterator[Curator]:
    """A fresh in-memory world."""
    with Curator(":memory:") as world:
        yield world


@pytest.fixture
def world_path(tmp_path: Path) -> Path:
    return tmp_path / "world.db"


@pytest.fixture
def transcript_turns() -> list[dict[str, Any]]:
    return [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]


@pytest.fixture
def played(transcript_turns: list[dict[str, Any]]) -> Iterator[tuple[Curator, dict[str, Any]]]:
    """The shipped transcript played into a fresh world; also returns each turn's result."""
    with Curator(":memory:") as world:
        results = {t["id"]: world.observe(t) for t in transcript_turns}
        yield world, results


TurnFactory = Callable[..., dict[str, Any]]


@pytest.fixture
def make_turn() -> TurnFactory:
    """Build a turn dict; ids and times advance by themselves unless given."""
    counter = {"n": 0}

    def build(reality: str, *, actor: str = "bear", action: str = "Head to the river",
              thought: str = "I need fish", others: list[str] | None = None,
              observers: list[str] | None = None, day: float | None = None,
              **extra: Any) -> dict[str, Any]:
        counter["n"] += 1
        n = counter["n"]
        minutes = int((day if day is not None else n / 24) * 24 * 60)
        turn: dict[str, Any] = {
            "id": extra.pop("id", f"t{n:04d}"),
            "world_time": extra.pop("world_time", f"2025-01-{1 + minutes // 1440:02d}T"
                                    f"{(minutes % 1440) // 60:02d}:{minutes % 60:02d}:00Z"),
            "actor": actor, "intent": {"thought": thought, "action": action},
            "reality": reality, "others": others or [], "observers": observers or [],
        }
        turn.update(extra)
        return turn

    return build
