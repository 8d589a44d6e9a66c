"""The game-scale benchmark (issue #17): a world of 10,000 characters grown by 100,000 turns.

The world is grown by every turn but the last 10,000 (evals/scale_world.py; `--keep PATH`
keeps it for the next run), then, on a fresh copy of it:

- observe: the last 10,000 turns, each timed around `Curator.observe` (p50/p95/p99), and a
  floor measured in the same run: the same turns' INSERT/UPDATE/DELETE statements with their
  parameters (recorded on another copy, untimed) replayed as bare SQLite transactions, one
  per turn, on a third copy, the log copied back between turns (untimed) as the store's
  checkpoint thread copies it beside them;
- context: `Curator.context` (with its recall refresh, as a game calls it) for the characters
  with the most memories and for characters with few;
- fading: every memory faded to the world clock (`fade`), its time and its longest batch;
- evolution: one cycle over the whole world at its clock, its total time (with that fading,
  which a cycle does first) and the longest any one of its write transactions held the write
  lock (store/transactions.py `time_writes`);
- export: `export_world_to` (streamed) into a file, its time and size, and how much it raised
  the process's peak memory; the world file's size;
- import: that file imported into a new world (`import_file`: read a character at a time,
  written in batches), its total time, how much it raised the process's peak memory, and the
  longest any one of its write transactions held the write lock;
- `curator --help` in a fresh process, the median of five;
- the process's peak memory (resource.getrusage) and the load average beside the figures.

    python -m evals.bench scale                     # full size
    python -m evals.bench scale --quick             # a small world, well under a minute
    python -m evals.bench scale --keep grown.db     # keep (or reuse) the grown world
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from curator import Curator, display_name, time_writes
from evals.scale_floor import floor_ms, traced_writes
from evals.scale_world import copy_world, grown_world, measured_turns, observe_all, remove_world

FULL = {"characters": 10_000, "turns": 100_000, "window": 10_000, "active": 300, "seed": 42}
QUICK = {"characters": 500, "turns": 3_000, "window": 1_000, "active": 60, "seed": 42}
REPLACED_EVERY = 100  # of the imported characters, these are imported again with replace=True
TARGETS = {"observe_p95_ms": 5.0, "observe_p99_ms": 15.0, "context_p95_ms": 10.0,
           "evolve_seconds": 60.0, "longest_write_ms": 250.0, "import_longest_write_ms": 250.0,
           "replace_longest_write_ms": 250.0, "help_ms": 300.0}


def pct(values: list[float], p: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return round(ordered[int(max(1, -(-len(ordered) * p // 100))) - 1], 3)


def _load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _mb(path: Path) -> float:
    return round(sum(Path(str(path) + s).stat().st_size for s in ("", "-wal")
                     if Path(str(path) + s).exists()) / 1e6, 1)


def context_ms(curator: Curator, who: list[str], calls: int, rng: random.Random) -> list[float]:
    """`calls` context calls, each for one of `who`, about one of the characters it knows."""
    times: list[float] = []
    for i in range(calls):
        character = who[i % len(who)]
        known = curator.world.relationship_others(character)[:20] or [character]
        other = rng.choice(known)
        started = time.perf_counter()
        curator.context(character, f"{display_name(other)} comes by the river", with_=[other],
                        max_tokens=1_000)
        times.append((time.perf_counter() - started) * 1000)
    return times


def help_ms(runs: int = 5) -> float:
    """`curator --help` in a fresh interpreter, the median of `runs` (ms)."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "curator", "--help"], check=True, capture_output=True)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def import_figures(scratch: Path, say: Any) -> dict[str, Any]:
    """Import the export (scratch/export.json) into a new world, as `curator import` does (a
    character at a time, `import_file`): its total time (reading the file included), how much
    it raised the process's peak memory, the longest any one of its write transactions held
    the write lock, how many there were, and the load average after it."""
    say("import of that export into a new world")
    writes: list[float] = []
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.perf_counter()
    with Curator(scratch / "imported.db") as curator:
        with time_writes(writes.append):
            imported = curator.import_file(scratch / "export.json")
        seconds = round(time.perf_counter() - started, 1)
        grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
        figures = {"import_seconds": seconds, "import_characters": len(imported),
                   "import_raised_peak_mb": round(max(0, grew) / 1024, 1),
                   "import_longest_write_ms": round(max(writes, default=0.0) * 1000, 1),
                   "import_transactions": len(writes), "load_import": _load()}
        say(f"  import {seconds} s, raised the peak by {figures['import_raised_peak_mb']} MB, "
            f"{len(writes):,} transactions, longest {figures['import_longest_write_ms']} ms, "
            f"load {figures['load_import']}")
        figures.update(replace_figures(curator, imported, say))
    (scratch / "imported.db").unlink()
    return figures


def replace_figures(curator: Curator, imported: list[str], say: Any) -> dict[str, Any]:
    """Import every REPLACED_EVERY-th imported character again, over itself (`replace=True`),
    from the world's own export of them: characters the world has cannot be staged beside
    their old rows (they may share ids), so they are checked in the import's batches and
    written after its commit, a batch a transaction (api/importing.py). Its longest write and
    the characters it wrote."""
    chosen = set(imported[::REPLACED_EVERY])
    part = json.loads("".join(curator.export_world_chunks(only=chosen)))
    writes: list[float] = []
    started = time.perf_counter()
    with time_writes(writes.append):
        replaced = curator.import_document(part, replace=True)
    figures = {"replace_characters": len(replaced),
               "replace_seconds": round(time.perf_counter() - started, 1),
               "replace_longest_write_ms": round(max(writes, default=0.0) * 1000, 1)}
    say(f"  the same import over {len(replaced):,} of its characters (replace): "
        f"{figures['replace_seconds']} s, longest write {figures['replace_longest_write_ms']} ms")
    return figures


def bench_replace(world: Path, log: Any = None) -> dict[str, Any]:
    """The replacing import alone (`python -m evals.bench replace WORLD`), on a copy of a world
    file (a grown world kept by `scale --keep`): every REPLACED_EVERY-th character imported
    again over itself. The file itself is not touched."""
    say = log or (lambda _line: None)
    with tempfile.TemporaryDirectory(prefix="curator-replace-") as tmp:
        copy = copy_world(world, Path(tmp) / "world.db")
        with Curator(copy) as curator:
            load = _load()
            figures = replace_figures(curator, curator.characters(), say)
    return {**figures, "load": load}


def bench_scale(quick: bool = False, keep: Path | None = None, log: Any = None) -> dict[str, Any]:
    """Run the game-scale benchmark; its figures (times in ms unless named seconds)."""
    sizes = dict(QUICK if quick else FULL)
    say = log or (lambda _line: None)
    r: dict[str, Any] = {"sizes": sizes, "load_start": _load()}
    with tempfile.TemporaryDirectory(prefix="curator-scale-") as tmp:
        scratch = Path(tmp)
        grown, growth = grown_world(keep, scratch, sizes, say)
        r["growth"] = growth
        window = measured_turns(sizes)
        say("tracing the measured turns' writes (untimed)")
        ran: list[int] = []
        writes, autocheckpoint = traced_writes(copy_world(grown, scratch / "trace.db"), window, ran)
        r["statements_mean"] = round(sum(ran) / max(len(ran), 1), 1)
        r["statements_p95"] = pct([float(n) for n in ran], 95)
        say("replaying them as bare transactions (the floor)")
        floor = floor_ms(copy_world(grown, scratch / "trace.db"), writes, autocheckpoint)
        remove_world(scratch / "trace.db")  # with the floor's log (up to ~40 MB)
        r["floor_p50_ms"], r["floor_p95_ms"] = pct(floor, 50), pct(floor, 95)
        say(f"observing the last {len(window):,} turns")
        world = copy_world(grown, scratch / "world.db")
        observed: list[float] = []
        longest = observe_all(world, window, on_turn=observed.append)
        r.update(observe_p50_ms=pct(observed, 50), observe_p95_ms=pct(observed, 95),
                 observe_p99_ms=pct(observed, 99), observe_max_ms=round(max(observed), 1),
                 observe_longest_write_ms=round(longest * 1000, 1), load_observe=_load())
        r["observe_p95_over_floor"] = round(r["observe_p95_ms"] / max(r["floor_p95_ms"], 1e-6), 1)
        say(f"  observe p50/p95/p99 {r['observe_p50_ms']}/{r['observe_p95_ms']}/{r['observe_p99_ms']} ms, "
            f"floor p95 {r['floor_p95_ms']} ms, load {r['load_observe']}")
        with Curator(world) as curator:
            counts = curator.world.conn.execute(
                "select owner, count(*) n from memories group by owner order by n desc, owner").fetchall()
            r["characters"], r["memories"] = len(counts), sum(n for _o, n in counts)
            many = [o for o, _n in counts[:20]]
            few = [o for o, _n in counts[-len(counts) // 10:]][:20]  # from the tenth with the fewest
            r["many_memories"], r["few_memories"] = counts[0][1], counts[-1][1]
            rng = random.Random(5)
            say("context for characters with many and few memories")
            calls = 100 if quick else 300
            hold = 0.0

            def held(seconds: float) -> None:
                nonlocal hold
                hold = max(hold, seconds)

            with time_writes(held):
                for name, who in (("many", many), ("few", few)):
                    times = context_ms(curator, who, calls, rng)
                    r[f"context_{name}_p50_ms"] = pct(times, 50)
                    r[f"context_{name}_p95_ms"] = pct(times, 95)
                r["context_p95_ms"] = max(r["context_many_p95_ms"], r["context_few_p95_ms"])
                r["context_longest_write_ms"] = round(hold * 1000, 1)
                say(f"  context many p50/p95 {r['context_many_p50_ms']}/{r['context_many_p95_ms']} ms, "
                    f"few {r['context_few_p50_ms']}/{r['context_few_p95_ms']} ms, load {_load()}")
                say("fading every memory to the world clock")
                hold, started = 0.0, time.perf_counter()
                curator.fade()
                r["fade_seconds"] = round(time.perf_counter() - started, 1)
                r["fade_longest_write_ms"] = round(hold * 1000, 1)
                say(f"  fade {r['fade_seconds']} s, longest batch {r['fade_longest_write_ms']} ms, "
                    f"load {_load()}")
                say("an evolution cycle over the world")
                hold, started = 0.0, time.perf_counter()
                report = curator.evolve()
                # The cycle fades first; here fading was done (and timed) just before.
                r["evolve_seconds"] = round(time.perf_counter() - started + r["fade_seconds"], 1)
                r["evolve_longest_write_ms"] = round(hold * 1000, 1)
                r["evolve_characters"] = len(report.characters)
                r["load_evolve"] = _load()
                say(f"  evolve {r['evolve_seconds']} s over {r['evolve_characters']} characters, longest "
                    f"write {r['evolve_longest_write_ms']} ms, load {r['load_evolve']}")
                hold, started = 0.0, time.perf_counter()
                again = curator.evolve()
                r["evolve_again_seconds"] = round(time.perf_counter() - started, 1)
                r["evolve_again_characters"] = len(again.characters)
            say("export")
            rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            started = time.perf_counter()
            # Streamed a character at a time: the bytes of json.dumps(export_world()), written
            # as they are read (the whole document held at once took 4 GB at full size).
            with open(scratch / "export.json", "w", encoding="utf-8") as out:
                curator.export_world_to(out)
            r["export_seconds"] = round(time.perf_counter() - started, 1)
            r["export_mb"] = round((scratch / "export.json").stat().st_size / 1e6, 1)
            grew = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
            r["export_raised_peak_mb"] = round(max(0, grew) / 1024, 1)
            say(f"  export {r['export_seconds']} s, {r['export_mb']} MB, raised the peak by "
                f"{r['export_raised_peak_mb']} MB, load {_load()}")
            r.update(import_figures(scratch, say))
            (scratch / "export.json").unlink()
            curator.world.conn.execute("pragma wal_checkpoint(TRUNCATE)")
        r["world_mb"] = _mb(world)
    r["longest_write_ms"] = max(r["observe_longest_write_ms"], r["context_longest_write_ms"],
                                r["fade_longest_write_ms"], r["evolve_longest_write_ms"],
                                r["import_longest_write_ms"])
    r["help_ms"] = help_ms()
    r["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    r["load_end"] = _load()
    r["targets"] = {key: {"target": limit, "met": r[key] <= limit} for key, limit in TARGETS.items()}
    return r


def format_scale(r: dict[str, Any]) -> str:
    """The report as readable text, each figure beside its target."""
    s, g = r["sizes"], r["growth"]

    def mark(key: str) -> str:
        t = r["targets"][key]
        return f"(target <= {t['target']:g}: {'met' if t['met'] else 'NOT met'})"

    return "\n".join([
        f"curator game-scale benchmark: {s['characters']:,} characters, {s['turns']:,} turns "
        f"({s['active']} active at a time, seed {s['seed']})",
        f"  load average (1/5/15 min) at start {r['load_start']}, end {r['load_end']}",
        f"  growth of the first {s['turns'] - s['window']:,} turns: {g['grow_seconds']} s, "
        f"longest write {g['grow_longest_write_ms']} ms",
        f"  world: {r['characters']:,} characters with memories, {r['memories']:,} memories, "
        f"{r['world_mb']} MB",
        f"observe, last {s['window']:,} turns (load {r['load_observe']}):",
        f"  p50 {r['observe_p50_ms']} ms  p95 {r['observe_p95_ms']} ms {mark('observe_p95_ms')}",
        f"  p99 {r['observe_p99_ms']} ms {mark('observe_p99_ms')}  max {r['observe_max_ms']} ms",
        f"  floor (the same rows in bare SQLite transactions) p50 {r['floor_p50_ms']} ms "
        f"p95 {r['floor_p95_ms']} ms; observe p95 = {r['observe_p95_over_floor']}x the floor",
        f"  SQL statements a turn (reads, writes, the search index's own): mean "
        f"{r['statements_mean']}, p95 {r['statements_p95']}",
        "context (1,000 tokens, with recall refresh):",
        f"  many memories (up to {r['many_memories']:,}): p50 {r['context_many_p50_ms']} ms "
        f"p95 {r['context_many_p95_ms']} ms",
        f"  few memories (down to {r['few_memories']}): p50 {r['context_few_p50_ms']} ms "
        f"p95 {r['context_few_p95_ms']} ms",
        f"  p95 {r['context_p95_ms']} ms {mark('context_p95_ms')}",
        f"fading every memory to the clock: {r['fade_seconds']} s, longest batch "
        f"{r['fade_longest_write_ms']} ms",
        f"evolution cycle with its fading (load {r['load_evolve']}): {r['evolve_seconds']} s over "
        f"{r['evolve_characters']:,} characters {mark('evolve_seconds')}",
        f"  longest write transaction {r['evolve_longest_write_ms']} ms; a second cycle at once: "
        f"{r['evolve_again_seconds']} s, {r['evolve_again_characters']:,} characters",
        "longest write transaction (observe, context, fading, evolution, import): "
        f"{r['longest_write_ms']} ms "
        f"{mark('longest_write_ms')}",
        f"export (streamed): {r['export_seconds']} s, {r['export_mb']} MB of JSON; it raised the "
        f"process's peak memory by {r['export_raised_peak_mb']} MB",
        f"import of the export into a new world (load {r['load_import']}): {r['import_seconds']} s, "
        f"raising the peak memory by {r['import_raised_peak_mb']} MB, for "
        f"{r['import_characters']:,} characters in {r['import_transactions']:,} transactions, longest "
        f"{r['import_longest_write_ms']} ms {mark('import_longest_write_ms')}",
        f"  again over {r['replace_characters']:,} of its characters (replace=True, written after the "
        f"import's commit): {r['replace_seconds']} s, longest write "
        f"{r['replace_longest_write_ms']} ms {mark('replace_longest_write_ms')}",
        f"curator --help: {r['help_ms']} ms (median of 5) {mark('help_ms')}",
        f"peak memory of the process: {r['peak_rss_mb']} MB",
    ])
