"""A model that cannot be asked: said once, in one line, and never paid for on every call.

The model extra missing and an API key missing are `ModelUnavailable`, raised before any
request (the CLI prints one line); a server that refuses connections is asked once, then left
alone for a cool-down while the fallback decides, and asked again after it."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import CliRunner
from conftest import MODEL_BASE, ROOT, TRANSCRIPT

from curator import Curator, ModelUnavailable
from curator.cli import cli
from curator.model import health
from curator.model.llm import ModelSettings

URL = f"{MODEL_BASE}/chat/completions"
TURNS = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines()[:6]]


def _without_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name in ("litellm", "instructor") else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_a_model_without_the_extra_is_one_clear_error(monkeypatch: pytest.MonkeyPatch,
                                                       model_settings: ModelSettings) -> None:
    _without_extra(monkeypatch)
    # the checkout's extra, not `curator[llm]` (that name on the package index is another project)
    with pytest.raises(ModelUnavailable, match=re.escape(f"pip install -e '{ROOT}[llm]'")):
        Curator(":memory:", model=model_settings)


def test_the_cli_says_so_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _without_extra(monkeypatch)
    monkeypatch.setenv("CURATOR_MODEL", "gpt-4o-mini")
    result = CliRunner().invoke(cli, ["play", str(TRANSCRIPT), "--db", str(tmp_path / "w.db")])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in result.output
    assert f"pip install -e '{ROOT}[llm]'" in lines[0]


def test_a_missing_api_key_names_the_variable_before_any_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    settings = ModelSettings(model="gpt-4o-mini", backoff=0.0)
    with respx.mock(assert_all_called=False) as router:
        route = router.route().mock(return_value=httpx.Response(500))
        with Curator(":memory:", model=settings) as world:
            with pytest.raises(ModelUnavailable, match="OPENAI_API_KEY"):
                world.observe(TURNS[0])
            turns = world.world.turn_count()
    assert route.call_count == 0
    assert turns == 0  # nothing half-written: the turn was refused before it began


def test_the_cli_names_the_missing_key_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("CURATOR_MODEL", "anthropic/claude-3-5-haiku-20241022")
    with respx.mock(assert_all_called=False) as router:
        route = router.route().mock(return_value=httpx.Response(500))
        result = CliRunner().invoke(cli, ["play", str(TRANSCRIPT), "--db", str(tmp_path / "w.db")])
    assert result.exit_code != 0 and route.call_count == 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "ANTHROPIC_API_KEY" in lines[0]


def test_a_local_server_needs_no_key(model_settings: ModelSettings, monkeypatch: pytest.MonkeyPatch) -> None:
    from curator.model.llm import _litellm

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert health.missing_key(_litellm(), "openai/qwen", "http://127.0.0.1:8767/v1", None) is None
    assert health.missing_key(_litellm(), "gpt-4o-mini", None, "sk-given") is None
    assert health.missing_key(_litellm(), "gpt-4o-mini", None, None) == "OPENAI_API_KEY"


def test_a_refusing_server_is_asked_once_then_left_alone(model_settings: ModelSettings) -> None:
    settings = model_settings.model_copy(update={"transport_retries": 1})
    with respx.mock() as router, Curator(":memory:", model=settings) as world:
        route = router.post(URL).mock(side_effect=httpx.ConnectError("scripted: connection refused"))
        results = [world.observe(turn) for turn in TURNS]
        reasons = [step.reason for r in results for step in r.steps]
    # The first turn's two perceivers are asked together, each once and once again; nothing after.
    assert route.call_count == 4
    first = len(results[0].steps)
    assert reasons[:first] == ["connection error"] * first
    assert reasons[first:] and all(r is not None and r.startswith("model unreachable (cooling down")
                                   for r in reasons[first:])
    assert all(step.decided_by == "fallback" for r in results for step in r.steps)


def test_after_the_cooldown_the_server_is_tried_again() -> None:
    now = [0.0]
    cooldown = health.Cooldown("http://127.0.0.1:9/v1", seconds=60, clock=lambda: now[0])
    assert cooldown.blocked() is None
    cooldown.failed("connection error")
    assert cooldown.blocked() == "model unreachable (cooling down, 60 s left)"
    now[0] = 59.0
    assert cooldown.blocked() is not None
    now[0] = 60.5
    assert cooldown.blocked() is None  # try again
    cooldown.failed("invalid answer")  # the server answered: no cool-down for a bad answer
    assert cooldown.blocked() is None


def test_timeouts_in_a_row_start_a_cooldown_and_an_answer_resets_them() -> None:
    cooldown = health.Cooldown("srv", seconds=30, clock=lambda: 0.0)
    for _ in range(health.TIMEOUTS_BEFORE_COOLDOWN - 1):
        cooldown.failed("timeout")
    assert cooldown.blocked() is None
    cooldown.succeeded()
    for _ in range(health.TIMEOUTS_BEFORE_COOLDOWN - 1):
        cooldown.failed("timeout")
    assert cooldown.blocked() is None
    cooldown.failed("timeout")
    assert cooldown.blocked() is not None
