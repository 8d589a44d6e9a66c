"""Benchmarks for curator.

`observe` measures the latency of `Curator.observe` over a long synthetic session: a
deterministic (seed 42) run of N turns among C characters, written to a fresh SQLite world
file. Each call is timed with `time.perf_counter()` around `observe()`, so the figure is the
wall time a game server waits: validation, the rule-based pipeline and the SQLite commit. The
report gives the latency percentiles over the whole run and over its first and last 1,000
turns (does a turn get slower as the world fills up?), throughput, the size of the world file
and how many memories were formed and archived, with the targets p50 ≤ 2 ms, p95 ≤ 5 ms and
p95(last 1,000) ≤ 1.5 × p95(first 1,000).

    python -m evals.bench observe                      # 10,000 turns, 50 characters
    python -m evals.bench observe --turns 2000 --json  # one JSON object instead
    python -m evals.bench observe --db world.db        # keep the world file

`llm` measures the model path against the stub server (see evals/bench_llm.py):

    python -m evals.bench llm

`context` measures context assembly for a character with 10,000 memories in a world of
1,000 characters (evals/bench_context.py); `locomo` prints LoCoMo retrieval recall@k by
category and its run time, left one conversation out with the fitted and shipped figures
beside it (curator/evals/locomo_tuning.py; --no-tune: the shipped weights alone):

    python -m evals.bench context
    python -m evals.bench locomo ../shared/data/locomo/locomo-dev.json

`embed` measures semantic recall's cost with the local embedding model (evals/bench_embed.py):

    python -m evals.bench embed

`scale` grows a world of 10,000 characters by 100,000 turns and measures observe, context,
an evolution cycle, the longest write transaction, export, `curator --help` and peak memory
against their targets (evals/bench_scale.py; `--quick` is a small world for CI, `--keep PATH`
keeps the grown world for the next run):

    python -m evals.bench scale --keep /tmp/grown.db
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from curator import Curator
from evals.synthetic import synthetic_turns

WINDOW = 1_000
TARGETS = {"p50_ms": 2.0, "p95_ms": 5.0, "growth_ratio": 1.5}


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile of `values` (need not be sorted)."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return ordered[int(rank) - 1]


def _file_mb(db: Path) -> float:
    files = [db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")]
    return sum(f.stat().st_size for f in files if f.exists()) / 1_000_000


def bench_observe(turns: int = 10_000, characters: int = 50,
                  db: str | None = None) -> dict[str, Any]:
    """Run the observe benchmark and return its figures (latencies in milliseconds)."""
    session = synthetic_turns(turns, characters)
    with tempfile.TemporaryDirectory(prefix="curator-bench-") as tmp:
        path = Path(db) if db else Path(tmp) / "world.db"
        latencies: list[float] = []
        formed = archived = forgotten = 0
        curator = Curator(path)
        try:
            for turn in session:
                started = time.perf_counter()
                result = curator.observe(turn)
                latencies.append((time.perf_counter() - started) * 1000)
                formed += len(result.formed)
                archived += len(result.archived)
                forgotten += len(result.forgotten)
            curator.world.conn.execute("pragma wal_checkpoint(TRUNCATE)")
        finally:
            curator.close()
        size_mb = _file_mb(path)
    window = min(WINDOW, max(1, turns // 2))  # short runs: two halves, so they don't overlap
    first, last = latencies[:window], latencies[-window:]
    report: dict[str, Any] = {
        "turns": turns, "characters": characters, "window": window,
        "p50_ms": percentile(latencies, 50), "p95_ms": percentile(latencies, 95),
        "p99_ms": percentile(latencies, 99), "max_ms": max(latencies),
        "first_p50_ms": percentile(first, 50), "first_p95_ms": percentile(first, 95),
        "last_p50_ms": percentile(last, 50), "last_p95_ms": percentile(last, 95),
        "throughput_tps": turns / (sum(latencies) / 1000), "db_mb": size_mb,
        "memories_formed": formed, "memories_archived": archived,
        "memories_forgotten": forgotten, "db": db,
    }
    report["growth_ratio"] = report["last_p95_ms"] / report["first_p95_ms"]
    report["targets"] = {key: {"target": limit, "met": report[key] <= limit}
                         for key, limit in TARGETS.items()}
    return report


def format_report(r: dict[str, Any]) -> str:
    """The report as readable text."""
    w, n = r["window"], r["turns"]
    lines = [
        f"curator observe benchmark: {n:,} turns, {r['characters']} characters",
        f"  latency (ms)      p50 {r['p50_ms']:.3f}  p95 {r['p95_ms']:.3f}  "
        f"p99 {r['p99_ms']:.3f}  max {r['max_ms']:.3f}",
        f"  turns 1-{w:,}  p50 {r['first_p50_ms']:.3f}  p95 {r['first_p95_ms']:.3f}",
        f"  turns {n - w + 1:,}-{n:,}  p50 {r['last_p50_ms']:.3f}  p95 {r['last_p95_ms']:.3f}",
        f"  p95 growth (last/first {w:,}): {r['growth_ratio']:.2f}x",
        f"  throughput        {r['throughput_tps']:,.0f} turns/s (observe time only)",
        f"  database          {r['db_mb']:.2f} MB" + (f" ({r['db']})" if r["db"] else ""),
        f"  memories          {r['memories_formed']:,} formed, {r['memories_archived']:,} archived "
        f"(overflow), {r['memories_forgotten']:,} faded to zero",
        "targets:",
    ]
    labels = {"p50_ms": "p50 <= {:g} ms", "p95_ms": "p95 <= {:g} ms",
              "growth_ratio": "p95 last <= {:g}x p95 first"}
    for key, target in r["targets"].items():
        status = "met" if target["met"] else "NOT met"
        lines.append(f"  {labels[key].format(target['target']):<30} {status}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    observe = commands.add_parser("observe", help="latency of Curator.observe over a long session")
    observe.add_argument("--turns", type=int, default=10_000, help="turns (default 10000)")
    observe.add_argument("--characters", type=int, default=50, help="characters (default 50)")
    observe.add_argument("--db", help="world file to create and keep (default: a temporary file)")
    observe.add_argument("--json", action="store_true", help="print one JSON object")
    llm = commands.add_parser("llm", help="the model path against the stub server (evals/bench_llm.py)")
    llm.add_argument("--characters", type=int, default=50, help="characters in the batch (default 50)")
    llm.add_argument("--latency", type=float, default=0.2, help="stub answer time, s (default 0.2)")
    llm.add_argument("--json", action="store_true", help="print one JSON object")
    context = commands.add_parser("context", help="context assembly latency (evals/bench_context.py)")
    context.add_argument("--memories", type=int, default=10_000, help="the hero's memories (default 10000)")
    context.add_argument("--characters", type=int, default=1_000, help="characters (default 1000)")
    context.add_argument("--calls", type=int, default=300, help="context calls timed (default 300)")
    context.add_argument("--max-tokens", type=int, default=1_000, help="budget (default 1000)")
    context.add_argument("--peek", action="store_true", help="time the read alone, no recall refresh")
    context.add_argument("--json", action="store_true", help="print one JSON object")
    calls = commands.add_parser("calls", help="seconds and tokens per model call, from a recorded set "
                                              "(evals/bench_calls.py)")
    calls.add_argument("--fixtures", default=None, help="the fixture set (default evals/fixtures/qwen1.5b)")
    calls.add_argument("--json", action="store_true", help="print one JSON object")
    scale = commands.add_parser("scale", help="a world of 10,000 characters (evals/bench_scale.py)")
    scale.add_argument("--quick", action="store_true", help="a small world (CI), under a minute")
    scale.add_argument("--keep", type=Path, help="keep the grown world here, or reuse the one kept")
    scale.add_argument("--json", action="store_true", help="print one JSON object")
    replace = commands.add_parser("replace", help="an import over every 100th character of a world file "
                                                  "(replace=True), on a copy (evals/bench_scale.py)")
    replace.add_argument("world", type=Path, help="the world file (e.g. one kept by scale --keep)")
    replace.add_argument("--json", action="store_true", help="print one JSON object")
    locomo = commands.add_parser("locomo", help="LoCoMo retrieval recall@k and its run time")
    locomo.add_argument("path", nargs="?", default="../shared/data/locomo/locomo-dev.json")
    locomo.add_argument("--json", action="store_true", help="print one JSON object")
    locomo.add_argument("--no-tune", action="store_true",
                        help="the shipped weights alone (no leave-one-conversation-out)")
    embed = commands.add_parser("embed", help="semantic recall's cost: embedding per memory and turn, lag, "
                                              "observe and context with embeddings (evals/bench_embed.py)")
    embed.add_argument("--spec", default="local", help="the embedder (default local)")
    embed.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.command == "embed":
        from evals.bench_embed import bench_embed, format_embed

        measured = bench_embed(args.spec)
        print(json.dumps(measured, indent=2) if args.json else format_embed(measured))
        return 0
    if args.command == "context":
        from evals.bench_context import bench_context, format_context_report

        if args.memories < 10 or args.characters < 2 or args.calls < 1:
            parser.error("need --memories >= 10, --characters >= 2 and --calls >= 1")
        result = bench_context(args.memories, args.characters, args.calls, args.max_tokens, args.peek)
        print(json.dumps(result, indent=2) if args.json else format_context_report(result))
        return 0
    if args.command == "scale":
        from evals.bench_scale import bench_scale, format_scale

        def log(line: str) -> None:
            print(line, file=sys.stderr, flush=True)

        measured = bench_scale(args.quick, args.keep, log)
        print(json.dumps(measured, indent=2) if args.json else format_scale(measured))
        return 0
    if args.command == "replace":
        from evals.bench_scale import bench_replace

        measured = bench_replace(args.world)
        print(json.dumps(measured, indent=2) if args.json else
              f"replaced {measured['replace_characters']:,} characters in {measured['replace_seconds']} s, "
              f"longest write {measured['replace_longest_write_ms']} ms (target 250; "
              f"load {measured['load']})")
        return 0
    if args.command == "calls":
        from evals.bench_calls import DEFAULT, bench_calls, format_calls

        measured = bench_calls(Path(args.fixtures) if args.fixtures else DEFAULT)
        print(json.dumps(measured, indent=2) if args.json else format_calls(measured))
        return 0
    if args.command == "locomo":
        from curator.evals.locomo_tuning import evaluate

        started = time.perf_counter()
        scores = evaluate(args.path, [5, 10, 25, 50], tune=not args.no_tune)
        seconds = round(time.perf_counter() - started, 1)
        if args.json:
            print(json.dumps({**scores, "seconds": seconds}, indent=2))
        else:
            print(f"LoCoMo retrieval: {scores['questions']} questions in {seconds} s")
            figures = [("", scores)] if args.no_tune else [
                ("held out", scores), ("fitted", scores["fitted"]), ("shipped", scores["shipped"])]
            for label, result in figures:
                if label:
                    print(f" {label}")
                for name, values in [("overall", result["recall"]), *result["by_category"].items()]:
                    print(f"  {name:<12} " + "  ".join(f"@{k} {100 * v:5.1f}" for k, v in values.items()))
        return 0
    if args.command == "llm":
        from evals.bench_llm import bench_llm, format_llm_report

        result = bench_llm(args.characters, args.latency)
        print(json.dumps(result, indent=2) if args.json else format_llm_report(result))
        return 0
    if args.turns < 1 or args.characters < 2:
        parser.error("need --turns >= 1 and --characters >= 2")
    if args.db and Path(args.db).exists():
        parser.error(f"{args.db} exists; the benchmark needs a fresh world file")
    report = bench_observe(args.turns, args.characters, args.db)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
