"""Benchmark: what semantic recall costs (issue #19). `python -m evals.bench embed [--spec local]`.

Plays the long valley transcript (244 turns) and the shipped two-animals one into a fresh
world, then measures, with the world's embedder set:

- embedding cost per memory in batches (`embed_pending`, 64 a call) and one at a time, and
  per turn (memories formed per turn × the batch cost);
- observe latency with embeddings on against the same turns with them off (observe never
  embeds: the two should match);
- the lag before a new memory is searchable: a turn is observed, then the first search for
  its perceiver embeds what is new (and the question) before it ranks; that search's time
  against the same search with nothing pending;
- context latency (peek) with embeddings on and off.

Every figure is measured here, on this machine, under whatever load it has: the report
prints the load average beside them.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from curator import Curator, Embedder, embedder_from_spec

ROOT = Path(__file__).resolve().parent.parent
TRANSCRIPTS = [ROOT / "evals" / "cases" / "transcripts" / "long_valley.jsonl",
               ROOT / "fixtures" / "transcripts" / "two_animals.jsonl"]
SITUATIONS = ["Who saved my life?", "Someone is at the river again", "Who can I trust with food?",
              "A stranger with a rifle is near", "Who took what was mine?"]


def _pct(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(pct / 100 * len(ordered)) - 1))]


def _ms(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(1000 * _pct(values, 50), 2), "p95_ms": round(1000 * _pct(values, 95), 2),
            "n": len(values)}


def _turns() -> list[dict[str, Any]]:
    turns = []
    for path in TRANSCRIPTS:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                turn = json.loads(line)
                turn["id"] = f"{path.stem}-{turn['id']}"
                turns.append(turn)
    turns.sort(key=lambda t: t["world_time"])
    return turns


def bench_embed(spec: str = "local", single: int = 50) -> dict[str, Any]:
    embedder = embedder_from_spec(spec)
    turns = _turns()
    out: dict[str, Any] = {"embedder": embedder.name, "turns": len(turns), "load": list(os.getloadavg())}
    with tempfile.TemporaryDirectory(prefix="curator-bench-embed-") as scratch, \
            Curator(Path(scratch) / "world.db", model=None) as curator:
        _observe_and_catch_up(curator, spec, embedder, turns, out)
        texts = [row[0] for row in curator.world.conn.execute("select content from memories limit ?",
                                                               (single,))]
        one = []
        for text in texts:
            started = time.perf_counter()
            embedder.embed([text])
            one.append(time.perf_counter() - started)
        out["single"] = _ms(one)
        out["ms_per_turn_batched"] = round(out["memories_per_turn"] * out["catch_up"]["ms_per_memory"], 2)
        out["ms_per_turn_single"] = round(out["memories_per_turn"] * out["single"]["p50_ms"], 2)
        _lag(curator, turns, out)
        _context(curator, spec, embedder, out)
    out["load_after"] = list(os.getloadavg())
    return out


def _observe_and_catch_up(curator: Curator, spec: str, embedder: Embedder, turns: list[dict[str, Any]],
                          out: dict[str, Any]) -> None:
    """Observe the first half of the turns with embeddings off, catch up, the rest with them on."""
    half, off, on = len(turns) // 2, [], []
    for turn in turns[:half]:
        started = time.perf_counter()
        curator.observe(turn)
        off.append(time.perf_counter() - started)
    curator.set_embedder(spec)
    curator.use_embedder(embedder)
    embedder.embed(["warm up"])  # the model loads (and its file is checked) once
    started = time.perf_counter()
    done = curator.embed_pending(batch=64)
    seconds = time.perf_counter() - started
    for turn in turns[half:]:
        started = time.perf_counter()
        curator.observe(turn)
        on.append(time.perf_counter() - started)
    out["observe_off"], out["observe_on"] = _ms(off), _ms(on)
    out["memories_per_turn"] = round(curator.embedding_status()["memories"] / len(turns), 2)
    out["catch_up"] = {"memories": done.memories, "batches": done.batches, "seconds": round(seconds, 2),
                       "ms_per_memory": round(1000 * done.embed_seconds / max(1, done.memories), 2),
                       "write_ms_per_batch": round(1000 * done.write_seconds / max(1, done.batches), 2)}


def _lag(curator: Curator, turns: list[dict[str, Any]], out: dict[str, Any]) -> None:
    """A turn is observed; its actor's first search embeds the new memories, then ranks."""
    curator.embed_pending()
    lag: list[float] = []
    settled: list[float] = []
    for n, turn in enumerate(turns[-20:]):
        again = dict(turn, id=f"again-{n}", world_time=turns[-1]["world_time"])
        curator.observe(again)
        for into in (lag, settled):
            started = time.perf_counter()
            curator.search(again["actor"], SITUATIONS[n % len(SITUATIONS)])
            into.append(time.perf_counter() - started)
    out["search_after_a_turn"], out["search_settled"] = _ms(lag), _ms(settled)


def _context(curator: Curator, spec: str, embedder: Embedder, out: dict[str, Any]) -> None:
    """Context (peek) for the busiest characters, embeddings off and on, twice each in turn."""
    busiest = [row[0] for row in curator.world.conn.execute(
        "select owner from memories group by owner order by count(*) desc limit 3")]
    timings: dict[str, list[float]] = {"on": [], "off": []}
    for mode in ("off", "on", "off", "on"):
        curator.set_embedder(spec if mode == "on" else None)
        curator.use_embedder(embedder if mode == "on" else None)
        for who in busiest:
            for situation in SITUATIONS:
                started = time.perf_counter()
                curator.context(who, situation, peek=True)
                timings[mode].append(time.perf_counter() - started)
    out["context_off"], out["context_on"] = _ms(timings["off"]), _ms(timings["on"])


def format_embed(result: dict[str, Any]) -> str:
    r = result
    lines = [f"semantic recall cost, embedder {r['embedder']}, {r['turns']} turns "
             f"(load {r['load'][0]:.2f} before, {r['load_after'][0]:.2f} after)",
             f"  catch-up: {r['catch_up']['memories']} memories in {r['catch_up']['batches']} batches, "
             f"{r['catch_up']['ms_per_memory']} ms a memory, {r['catch_up']['write_ms_per_batch']} ms "
             "to save a batch",
             f"  one at a time: p50 {r['single']['p50_ms']} ms, p95 {r['single']['p95_ms']} ms a memory",
             f"  per turn ({r['memories_per_turn']} memories): {r['ms_per_turn_batched']} ms batched, "
             f"{r['ms_per_turn_single']} ms one at a time",
             f"  observe: off p50 {r['observe_off']['p50_ms']} / p95 {r['observe_off']['p95_ms']} ms; "
             f"on p50 {r['observe_on']['p50_ms']} / p95 {r['observe_on']['p95_ms']} ms",
             f"  lag (first search after a turn, embeds the new memories and the question): "
             f"p50 {r['search_after_a_turn']['p50_ms']} / p95 {r['search_after_a_turn']['p95_ms']} ms; "
             f"the same search with nothing new: p50 {r['search_settled']['p50_ms']} / "
             f"p95 {r['search_settled']['p95_ms']} ms",
             f"  context (peek): off p50 {r['context_off']['p50_ms']} / p95 {r['context_off']['p95_ms']} ms; "
             f"on p50 {r['context_on']['p50_ms']} / p95 {r['context_on']['p95_ms']} ms"]
    return "\n".join(lines)
