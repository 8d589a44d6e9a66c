"""Exercising the model path with no model: fixtures, replay, recording and a stub server.

For a game's own tests, curator's evals and its benchmarks. Everything here is public:

    from curator.testing import FixtureStore, Replayer
    with Replayer(FixtureStore("tests/fixtures/llm")):
        ...  # every model call is answered from the saved responses, offline

- `FixtureStore`, `Recorder`, `Replayer`: provider responses saved as JSON files (`"kind":
  "recorded"` from a real model, `"kind": "scripted"` written by hand), recorded from a live
  endpoint and replayed through respx, so litellm, instructor and HTTP all run for real.
- `StubModelServer`, `FallbackEcho`, `StubReply`: an OpenAI-compatible server on 127.0.0.1 that
  answers each step with what its rule-based fallback would decide (or what a test scripts, an
  HTTP error included).
- `ALL_STEPS`, `schema_hash`, `token_counter`, `release_connections` (and its async twin): what benchmarks and
  fixture tools need to go through every step.

Needs the `llm` extra (`pip install -e '.[llm]'` in curator's checkout; `curator` on the package
index is another project): respx and httpx are imported here.
"""

from curator.model.fixtures import FixtureStore, Recorder, Replayer
from curator.model.llm import arelease_connections, release_connections, schema_hash
from curator.model.stub_server import FallbackEcho, StubModelServer, StubReply, token_counter
from curator.turn.steps import ALL_STEPS

__all__ = ["ALL_STEPS", "FallbackEcho", "FixtureStore", "Recorder", "Replayer", "StubModelServer",
           "StubReply", "arelease_connections", "release_connections", "schema_hash", "token_counter"]
