"""The model-path benchmark: the shipped transcript against the stub model server on 127.0.0.1.

The stub answers each step with the fallback's decision (FallbackEcho), so the run takes the
path a model with the fallback's judgement would take, with real HTTP, litellm and
instructor in the way. It reports:

- model calls per character-turn (target ≤ 1.2 on ordinary turns; reviews are asked for
  only when triggered), and per step: over the shipped transcript (a dramatic one: a trap,
  a shooting, a rescue in 50 turns) and over the first 1,000 turns of the synthetic session
  of `python -m evals.bench observe` (everyday scenes, rare dangers);
- mean prompt tokens per call (target ≤ 1,000), as the stub counts them (cl100k over the
  messages), and apart from that the tokens of the response schema that json_schema mode
  sends beside the messages;
- curator's own overhead per call beyond the HTTP round trip (target ≤ 15 ms): the mean
  latency of a call through the gateway (rendering, litellm, instructor, validation, the
  call log record) minus the mean round trip of the same request bodies posted with httpx,
  one at a time, stub latency 0;
- the wall time of 50 characters' turns in one batch against a stub that takes 200 ms per
  answer (target ≤ 1 s), through `observe_many` (threads) and `aobserve_many` (asyncio).

    python -m evals.bench llm
    python -m evals.bench llm --json
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from curator import Curator, ModelSettings
from curator.testing import (
    ALL_STEPS,
    FallbackEcho,
    StubModelServer,
    arelease_connections,
    release_connections,
    schema_hash,
    token_counter,
)

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPT = ROOT / "fixtures" / "transcripts" / "two_animals.jsonl"


def _world(path: str | Path, stub: StubModelServer, echo: FallbackEcho, **settings: Any) -> Curator:
    world = Curator(path, model=ModelSettings(model="openai/stub", api_base=stub.url, **settings))
    assert world.gateway is not None
    world.gateway.before_call = echo.learn
    return world


def transcript_figures() -> dict[str, Any]:
    """Calls, tokens and overhead over the shipped transcript, one call at a time."""
    lines = [line for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    echo = FallbackEcho()
    with StubModelServer(echo) as stub, _world(":memory:", stub, echo, concurrency=1) as world:
        perceptions = 0
        for line in lines:
            turn = json.loads(line)
            world.observe(line)
            perceptions += 1 + len(turn.get("observers", []))
        calls = world.calls()
        bodies = list(stub.received)
        # the same request bodies, posted straight to the stub: the bare HTTP round trip
        with httpx.Client() as client:
            client.post(f"{stub.url}/chat/completions", json=bodies[0])  # warm up
            started = time.perf_counter()
            for body in bodies:
                client.post(f"{stub.url}/chat/completions", json=body).raise_for_status()
            round_trip_ms = (time.perf_counter() - started) * 1000 / len(bodies)
    release_connections()
    count = token_counter()
    schema_tokens = {s.name: count(json.dumps(s.asks.model_json_schema())) for s in ALL_STEPS}  # what is sent
    by_step: dict[str, int] = {}
    for call in calls:
        by_step[call.step] = by_step.get(call.step, 0) + 1
    prompt = [c.prompt_tokens or 0 for c in calls]
    latency = [c.latency_ms for c in calls[1:]]  # the first call pays one-off imports
    ordinary = sum(1 for c in calls if c.step == "interpret")
    return {
        "turns": len(lines), "character_turns": perceptions, "calls": len(calls),
        "calls_per_character_turn": round(len(calls) / perceptions, 3),
        "interpret_calls_per_character_turn": round(ordinary / perceptions, 3),
        "calls_by_step": by_step,
        "fallbacks": sum(1 for c in calls if c.outcome != "model"),
        "mean_prompt_tokens": round(statistics.mean(prompt), 1),
        "max_prompt_tokens": max(prompt),
        "mean_prompt_tokens_by_step": {
            step: round(statistics.mean(c.prompt_tokens or 0 for c in calls if c.step == step), 1)
            for step in by_step},
        "mean_schema_tokens_sent_beside": round(statistics.mean(schema_tokens[c.step] for c in calls), 1),
        "schema_hashes": {s.name: schema_hash(s.asks) for s in ALL_STEPS},
        "mean_call_ms": round(statistics.mean(latency), 3),
        "p95_call_ms": round(sorted(latency)[int(0.95 * (len(latency) - 1))], 3),
        "mean_round_trip_ms": round(round_trip_ms, 3),
        "overhead_ms": round(statistics.mean(latency) - round_trip_ms, 3),
    }


def ordinary_figures(turns: int = 1000, characters: int = 50) -> dict[str, Any]:
    """Calls per character-turn over everyday play: the observe benchmark's synthetic session."""
    from evals.synthetic import synthetic_turns

    session = synthetic_turns(turns, characters)
    echo = FallbackEcho()
    with StubModelServer(echo) as stub, _world(":memory:", stub, echo, concurrency=8) as world:
        world.observe_many(session)
        calls = world.calls()
    release_connections()
    perceptions = sum(1 + len(t["observers"]) for t in session)
    by_step: dict[str, int] = {}
    for call in calls:
        by_step[call.step] = by_step.get(call.step, 0) + 1
    return {"turns": turns, "characters": characters, "character_turns": perceptions,
            "calls": len(calls), "calls_per_character_turn": round(len(calls) / perceptions, 3),
            "calls_by_step": by_step,
            "mean_prompt_tokens": round(statistics.mean(c.prompt_tokens or 0 for c in calls), 1)}


def _fifty_turns() -> list[dict[str, Any]]:
    return [{"id": f"b{n:02d}", "world_time": "2025-03-01T08:00:00Z", "actor": f"animal{n:02d}",
             "intent": {"thought": "I am hungry", "action": "Look for food by the river"},
             "reality": "You find a few berries under the brambles and eat them quietly.",
             "others": [], "observers": []} for n in range(50)]


def batch_figures(latency: float = 0.2, characters: int = 50) -> dict[str, Any]:
    """Wall time of one turn each for `characters` characters, in one batch."""
    turns = _fifty_turns()[:characters]
    echo = FallbackEcho()
    figures: dict[str, Any] = {"characters": characters, "stub_latency_ms": latency * 1000}
    with StubModelServer(echo, latency=latency) as stub, tempfile.TemporaryDirectory() as tmp:
        with _world(Path(tmp) / "sync.db", stub, echo, concurrency=characters) as world:
            started = time.perf_counter()
            results = world.observe_many(turns)
            figures["sync_wall_s"] = round(time.perf_counter() - started, 3)
            figures["sync_calls"] = len(world.calls())
            figures["sync_by_model"] = sum(1 for r in results for s in r.steps if s.decided_by == "model")
        release_connections()
        with _world(Path(tmp) / "async.db", stub, echo, concurrency=characters) as world:
            async def run() -> float:
                started = time.perf_counter()
                await world.aobserve_many(turns)
                elapsed = time.perf_counter() - started
                await arelease_connections()
                return elapsed
            figures["async_wall_s"] = round(asyncio.run(run()), 3)
            figures["async_calls"] = len(world.calls())
    figures["one_at_a_time_s"] = round(figures["sync_calls"] * latency, 3)  # what serial calls would cost
    return figures


def bench_llm(characters: int = 50, latency: float = 0.2) -> dict[str, Any]:
    report = {"transcript": transcript_figures(), "ordinary": ordinary_figures(),
              "batch": batch_figures(latency, characters)}
    t, o, b = report["transcript"], report["ordinary"], report["batch"]
    report["targets"] = {
        "calls_per_character_turn": {"value": o["calls_per_character_turn"], "target": 1.2,
                                     "met": o["calls_per_character_turn"] <= 1.2},
        "mean_prompt_tokens": {"value": t["mean_prompt_tokens"], "target": 1000,
                               "met": t["mean_prompt_tokens"] <= 1000},
        "overhead_ms": {"value": t["overhead_ms"], "target": 15, "met": t["overhead_ms"] <= 15},
        "batch_wall_s": {"value": max(b["sync_wall_s"], b["async_wall_s"]), "target": 1.0,
                         "met": max(b["sync_wall_s"], b["async_wall_s"]) <= 1.0},
    }
    return report


def format_llm_report(r: dict[str, Any]) -> str:
    t, o, b = r["transcript"], r["ordinary"], r["batch"]
    mark = {True: "met", False: "NOT met"}
    targets = r["targets"]
    steps = ", ".join(f"{k} {v}" for k, v in t["calls_by_step"].items())
    tokens = ", ".join(f"{k} {v:.0f}" for k, v in t["mean_prompt_tokens_by_step"].items())
    return "\n".join([
        f"Shipped transcript against the stub server: {t['turns']} turns, {t['character_turns']} "
        f"character-turns, {t['calls']} calls ({t['fallbacks']} fell back)",
        f"  calls per character-turn: {t['calls_per_character_turn']:.2f} "
        f"(interpret {t['interpret_calls_per_character_turn']:.2f}; {steps})",
        f"  mean prompt tokens per call: {t['mean_prompt_tokens']:.0f} (max {t['max_prompt_tokens']}; "
        f"{tokens}) — target ≤ 1,000: {mark[targets['mean_prompt_tokens']['met']]}",
        f"    plus a response schema of {t['mean_schema_tokens_sent_beside']:.0f} tokens on average, "
        "sent in response_format (json_schema mode), not in the messages",
        f"  a call through curator: mean {t['mean_call_ms']:.2f} ms (p95 {t['p95_call_ms']:.2f}); "
        f"the bare HTTP round trip: {t['mean_round_trip_ms']:.2f} ms",
        f"  curator's overhead per call: {t['overhead_ms']:.2f} ms — target ≤ 15 ms: "
        f"{mark[targets['overhead_ms']['met']]}",
        f"Ordinary play (synthetic session, {o['turns']} turns, {o['characters']} characters): "
        f"{o['calls_per_character_turn']:.2f} calls per character-turn "
        f"({', '.join(f'{k} {v}' for k, v in o['calls_by_step'].items())}), "
        f"{o['mean_prompt_tokens']:.0f} prompt tokens per call — target ≤ 1.2: "
        f"{mark[targets['calls_per_character_turn']['met']]}",
        f"{b['characters']} characters' turns in one batch, stub answering in {b['stub_latency_ms']:.0f} ms:",
        f"  observe_many (threads): {b['sync_wall_s']:.2f} s, {b['sync_calls']} calls; "
        f"aobserve_many (asyncio): {b['async_wall_s']:.2f} s — target ≤ 1 s: "
        f"{mark[targets['batch_wall_s']['met']]} (one call at a time: {b['one_at_a_time_s']:.1f} s)",
    ])
