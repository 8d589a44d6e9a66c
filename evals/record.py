"""Make the scripted fixture set for the shipped transcript.

Plays fixtures/transcripts/two_animals.jsonl against the stub model server on 127.0.0.1,
answering every step with the fallback's decision in a marked voice (each memory it forms
starts with "[scripted] "), and records every HTTP response into
fixtures/llm/two_animals-scripted/ with `"kind": "scripted"`. tests/test_recorded.py
replays them through respx and checks that the world's memories are these answers.

    python -m evals.record scripted        # rewrite the set after a template change

Real-model fixtures come from scripts/smollm2_record.sh instead.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

from curator import Curator, ModelSettings
from curator.testing import FallbackEcho, FixtureStore, Recorder, StubModelServer, release_connections

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPT = ROOT / "fixtures" / "transcripts" / "two_animals.jsonl"
SCRIPTED = ROOT / "fixtures" / "llm" / "two_animals-scripted"
MARK = "[scripted] "
# The settings the set is recorded with; tests replay with the same ones.
SCRIPTED_SETTINGS = ModelSettings(model="openai/stub", api_base="http://127.0.0.1:9/v1", backoff=0.0)


def scripted_voice(step: str, decision: dict[str, Any]) -> dict[str, Any]:
    """Mark what the scripted 'model' wrote, so a test can see it came from the fixtures."""
    if step == "interpret":
        decision["memory"] = MARK + decision["memory"]
    return decision


def record_scripted(out: Path = SCRIPTED) -> dict[str, Any]:
    shutil.rmtree(out, ignore_errors=True)
    store = FixtureStore(out)
    echo = FallbackEcho(voice=scripted_voice)
    with StubModelServer(echo) as stub:
        settings = SCRIPTED_SETTINGS.model_copy(update={"api_base": stub.url})
        source = "curator.model.stub_server FallbackEcho, marked voice"
        with Recorder(store, kind="scripted", source=source), \
                Curator(":memory:", model=settings) as world:
            assert world.gateway is not None
            world.gateway.before_call = echo.learn
            turns = [line for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
            results = world.observe_many(turns)
            calls = world.calls()
    release_connections()
    return {"turns": len(results), "calls": len(calls), "fixtures": len(store.entries()), "dir": str(out)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.record", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", choices=["scripted"], help="which fixture set to write")
    args = parser.parse_args(argv)
    if args.set == "scripted":
        print(json.dumps(record_scripted()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
