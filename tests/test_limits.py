"""The gateway's limits: at most `concurrency` calls in flight, and the model path stays out of
`import curator` until a model is first called."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from conftest import ROOT

from curator import Curator
from curator.model.llm import ModelSettings, release_connections
from curator.model.stub_server import FallbackEcho, StubModelServer


def test_no_more_than_concurrency_calls_are_in_flight(tmp_path: Path) -> None:
    echo = FallbackEcho()
    lock = threading.Lock()
    in_flight = [0, 0]  # now, most

    def counting(body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return echo(body, headers)

    turns = [{"id": f"c{n}", "world_time": "2025-03-01T08:00:00Z", "actor": f"solo{n}",
              "intent": {"thought": "", "action": "Rest"}, "reality": "You rest.",
              "others": [], "observers": []} for n in range(8)]
    with StubModelServer(counting) as stub, Curator(tmp_path / "w.db", model=ModelSettings(
            model="openai/stub", api_base=stub.url, concurrency=3)) as world:
        assert world.gateway is not None
        world.gateway.before_call = echo.learn
        results = world.observe_many(turns)
    release_connections()
    assert len(results) == 8 and in_flight[1] == 3


def test_a_model_configured_does_not_import_litellm_until_it_is_called() -> None:
    code = ("import sys, curator\n"
            "from curator.model.settings import ModelSettings\n"
            "world = curator.Curator(':memory:', model=ModelSettings(model='openai/x'))\n"
            "assert world.gateway is not None\n"
            "print(sorted(m for m in ('litellm', 'instructor', 'openai') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"
