"""The gateway's limits: at most `concurrency` calls in flight, and the model path stays out of
`import curator` until a model is first called."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import ROOT, Gathering

from curator import Curator
from curator.model.llm import ModelSettings, release_connections
from curator.model.stub_server import FallbackEcho, StubModelServer


def test_no_more_than_concurrency_calls_are_in_flight(tmp_path: Path) -> None:
    echo = FallbackEcho()
    counting = Gathering(echo, expect=3)

    turns = [{"id": f"c{n}", "world_time": "2025-03-01T08:00:00Z", "actor": f"solo{n}",
              "intent": {"thought": "", "action": "Rest"}, "reality": "You rest.",
              "others": [], "observers": []} for n in range(8)]
    with StubModelServer(counting) as stub, Curator(tmp_path / "w.db", model=ModelSettings(
            model="openai/stub", api_base=stub.url, concurrency=3)) as world:
        assert world.gateway is not None
        world.gateway.before_call = echo.learn
        results = world.observe_many(turns)
    release_connections()
    assert len(results) == 8 and counting.most == 3  # three at once, never a fourth


def test_a_model_configured_does_not_import_litellm_until_it_is_called() -> None:
    code = ("import sys, curator\n"
            "from curator.model.settings import ModelSettings\n"
            "world = curator.Curator(':memory:', model=ModelSettings(model='openai/x'))\n"
            "assert world.gateway is not None\n"
            "print(sorted(m for m in ('litellm', 'instructor', 'openai') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"
