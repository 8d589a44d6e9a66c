"""Shared fixtures. No test reaches the network: a socket to, or a name lookup of, anything but
loopback fails at once. No test sees a model configured in the environment.

Model tests go through `model_settings` (a fake OpenAI-compatible endpoint at
http://model.test/v1 that only respx answers) and `chat(...)`, which builds a provider
response body. Every body those tests serve is scripted: written here or in
tests/fixtures/scripted/, never a real model's answer."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from curator import Curator

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPT = ROOT / "fixtures" / "transcripts" / "two_animals.jsonl"

_real_connect = socket.socket.connect
_real_getaddrinfo = socket.getaddrinfo
LOOPBACK = ("127.0.0.1", "localhost", "::1")
MODEL_BASE = "http://model.test/v1"
SCRIPTED = ROOT / "tests" / "fixtures" / "scripted"


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    host = address[0] if isinstance(address, tuple) else address
    if isinstance(host, str) and host not in ("127.0.0.1", "localhost", "::1") and not (
            self.family == socket.AF_UNIX):
        raise RuntimeError(f"tests must not reach the network (tried {address!r})")
    return _real_connect(self, address)


def _guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    if isinstance(host, bytes):
        host = host.decode()
    if host is not None and host not in LOOPBACK:
        raise socket.gaierror(f"tests must not look up {host!r}")
    return _real_getaddrinfo(host, *args, **kwargs)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setattr(socket, "getaddrinfo", _guarded_getaddrinfo)
    for name in ("CURATOR_MODEL", "CURATOR_API_BASE", "CURATOR_API_KEY", "CURATOR_RECORD",
                 "CURATOR_MODE", "CURATOR_CONCURRENCY", "CURATOR_TIMEOUT", "CURATOR_RETRIES",
                 "CURATOR_TEMPERATURE", "CURATOR_MAX_TOKENS", "CURATOR_DB"):
        monkeypatch.delenv(name, raising=False)


def chat(content: str | None, *, refusal: str | None = None, finish_reason: str = "stop",
         prompt_tokens: int = 100, completion_tokens: int = 20) -> dict[str, Any]:
    """An OpenAI chat completion body (scripted) whose answer is `content`."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if refusal is not None:
        message["refusal"] = refusal
    return {"id": "chatcmpl-scripted", "object": "chat.completion", "created": 0,
            "model": "test-model",
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def scripted(name: str) -> dict[str, Any]:
    """A scripted fixture file from tests/fixtures/scripted/ (each says it is scripted)."""
    document: dict[str, Any] = json.loads((SCRIPTED / f"{name}.json").read_text())
    assert document["kind"] == "scripted", name
    return document


@pytest.fixture
def model_settings() -> Any:
    from curator.model.llm import ModelSettings

    return ModelSettings(model="openai/test-model", api_base=MODEL_BASE, api_key="sk-test-secret",
                         backoff=0.0, timeout=5.0, retries=2, transport_retries=2)


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


def cli_commands() -> dict[str, Any]:
    """Every command a user can run, by the words after `curator`: "show", "block list", …
    (a group's subcommands, not the group)."""
    import click

    from curator.cli import cli

    ctx = click.Context(cli)
    for name in cli.list_commands(ctx):  # the group imports its commands when first asked (lazy.py)
        cli.get_command(ctx, name)
    found: dict[str, Any] = {}

    def walk(group: click.Group, prefix: str) -> None:
        for name, command in group.commands.items():
            if isinstance(command, click.Group):
                walk(command, f"{prefix}{name} ")
            else:
                found[prefix + name] = command

    walk(cli, "")
    return found


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


def interpret_input(turn: dict[str, Any], *, perceiver: str | None = None,
                    interactions: int = 3) -> Any:
    """The fallback's input for one perceiver of a turn, with a relationship of `interactions`
    to each other character it perceives (tests of the reading, not of the pipeline)."""
    from curator.domain.models import Relationship, Turn
    from curator.turn.inputs import InterpretInput, RelationView

    t = Turn.model_validate(turn)
    perceiver = perceiver or t.actor
    role = "actor" if perceiver == t.actor else "observer"
    subjects = list(t.others) if role == "actor" else [c for c in [t.actor, *t.others] if c != perceiver]
    rels = {o: RelationView.of(Relationship(owner=perceiver, other=o, interactions=interactions))
            for o in subjects}
    return InterpretInput(perceiver=perceiver, role=role, persona="", turn=t, relationships=rels,
                          recent_self=[], allowed_subjects=subjects)


class Gathering:
    """A stub answerer that holds requests until `expect` are in flight at once (or `patience`
    seconds pass), then answers with `answer`, and keeps the most seen at once. Concurrency is
    asserted by this count, not by wall time, so a loaded machine cannot fail a test that is
    right: asked together, the requests all arrive and the count reaches `expect`; asked one
    by one, the first waits out its patience and the count stays 1. Once `expect` were seen
    together, later requests (a smaller round) are only held for `linger` seconds, so that one
    more than allowed would still be seen at once."""

    def __init__(self, answer: Callable[..., Any], expect: int, patience: float = 5.0,
                 linger: float = 0.05) -> None:
        self.answer, self.expect, self.patience, self.linger = answer, expect, patience, linger
        self.now = self.most = 0
        self._changed = threading.Condition()

    def __call__(self, body: dict[str, Any], headers: Any) -> Any:
        with self._changed:
            self.now += 1
            self.most = max(self.most, self.now)
            self._changed.notify_all()
            if self.most >= self.expect and self.now < self.expect:
                self._changed.wait(timeout=self.linger)
            else:
                self._changed.wait_for(lambda: self.most >= self.expect, timeout=self.patience)
        try:
            return self.answer(body, headers)
        finally:
            with self._changed:
                self.now -= 1


@contextmanager
def mcp_over_http(world: Path, log: Path, env: dict[str, str] | None = None
                  ) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`curator mcp --db WORLD --transport http` on a free loopback port, its output in `log`:
    yields the process (to poll until it listens) and its URL, and stops it afterwards."""
    with socket.socket() as probe:  # a free port on loopback
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with log.open("w", encoding="utf-8") as out:
        server = subprocess.Popen([sys.executable, "-m", "curator", "mcp", "--db", str(world),
                                   "--transport", "http", "--port", str(port)],
                                  stdout=out, stderr=out, env=env)
        try:
            yield server, f"http://127.0.0.1:{port}/mcp"
        finally:
            server.terminate()
            server.wait(timeout=30)
