"""Benchmark: context assembly latency for a character with many memories in a big world.

Builds (deterministically, seed 7) a world of C characters in which one character, `hero`,
holds M memories about the others and itself: one in fifty core, six in ten of the rest
recent (of its memories about itself only the last ten, as the recent window keeps them),
the rest archived, every one indexed by the same triggers a played world uses. Every
other character holds ten memories, and the hero has a relationship with a summary for
each. Then it times `Curator.context(...)` for S random situations (one to three
characters present, 1,000-token budget), each call timed with `time.perf_counter()`:
scoring, full-text search, rendering, token counting, and the recall refresh written in
its own transaction (`--peek` times the read alone).

    python -m evals.bench context                 # 10,000 memories, 1,000 characters
    python -m evals.bench context --peek --json
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from curator import Curator, Memory, MemoryKind, Relationship, Tier, display_name

_PLACES = [
    "river", "ford", "bridge", "meadow", "orchard", "quarry", "marsh", "ridge", "cave", "mill",
    "harbour", "forest"
]
_THINGS = [
    "fish", "berries", "honey", "rope", "lantern", "map", "knife", "bread", "cheese", "apples",
    "firewood", "salt", "arrows", "cloak", "boots", "coins", "letter", "key"
]
_DEEDS = [
    "{o} shared {t} with me by the {p}", "{o} stole my {t} near the {p}",
    "{o} warned me about wolves at the {p}", "{o} laughed when I dropped the {t} in the {p}",
    "I traded {t} with {o} at the {p}", "{o} helped me carry {t} across the {p}",
    "{o} blocked the path to the {p} and demanded {t}", "I found {t} hidden at the {p}",
    "{o} told me a story about the old {p}", "{o} lost the {t} and blamed me at the {p}",
]
_KINDS = [MemoryKind.KINDNESS, MemoryKind.CONFLICT, MemoryKind.ENCOUNTER, MemoryKind.DISCOVERY,
          MemoryKind.BETRAYAL, MemoryKind.WITNESSED]


def build_world(path: Path, memories: int, characters: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    names = ["hero"] + [f"npc{i:04d}" for i in range(1, characters)]
    with Curator(path) as curator, curator.world.transaction() as world:
        for name in names:
            world.ensure_character(name, start)
        seq = 1

        def remember(owner: str, subject: str | None, n: int, tier: Tier, at: datetime) -> None:
            nonlocal seq
            other = display_name(subject) if subject else "A stranger"
            text = rng.choice(_DEEDS).format(o=other, t=rng.choice(_THINGS), p=rng.choice(_PLACES))
            memory = Memory(id=f"m{seq:07d}", owner=owner, subject=subject, content=text + ".",
                            kind=rng.choice(_KINDS), emotional_impact="moved",
                            valence=round(rng.uniform(-1, 1), 2), importance=round(rng.random(), 2),
                            tier=Tier.CORE if tier is Tier.CORE else Tier.RECENT,
                            strength=round(rng.uniform(0.1, 1.0), 2), last_recalled=at, created_at=at,
                            source_turns=[f"t{n}"], place=rng.choice(_PLACES))
            world.insert_memory(memory, seq)
            if tier is Tier.ARCHIVED:
                world.archive_memory(memory, reason="overflow", at=at)
            seq += 1

        for n in range(memories):
            at = start + timedelta(minutes=10 * n)
            subject = names[1 + n % (characters - 1)] if n % 10 else None
            roll = rng.random()
            tier = Tier.CORE if roll < 0.02 else Tier.RECENT if roll < 0.62 else Tier.ARCHIVED
            if subject is None and tier is Tier.RECENT and n < memories - 100:
                tier = Tier.ARCHIVED  # the self's recent tier holds its last ten, as in play
            remember("hero", subject, n, tier, at)
        for i, name in enumerate(names[1:]):
            for n in range(10):
                remember(name, "hero" if n % 2 else names[1 + (i + n) % (characters - 1)], n,
                         Tier.RECENT, start + timedelta(minutes=n))
            world.save_relationship(Relationship(
                owner="hero", other=name, long_term_summary=f"{display_name(name)} is a neighbour "
                f"from the {rng.choice(_PLACES)} who once traded {rng.choice(_THINGS)} with me.",
                current_sentiment=round(rng.uniform(-1, 1), 2), overall_bond=round(rng.uniform(-1, 1), 2),
                interactions=10, immediate_context=f"{display_name(name)} waved at me."))
        world.set_meta("clock", (start + timedelta(minutes=10 * memories)).isoformat())


def bench_context(memories: int = 10_000, characters: int = 1_000, calls: int = 300,
                  max_tokens: int = 1_000, peek: bool = False) -> dict[str, Any]:
    rng = random.Random(11)
    with tempfile.TemporaryDirectory(prefix="curator-bench-context-") as scratch:
        path = Path(scratch) / "world.db"
        started = time.perf_counter()
        build_world(path, memories, characters)
        build_seconds = time.perf_counter() - started
        times: list[float] = []
        sizes: list[int] = []
        with Curator(path) as curator:
            for _ in range(calls):
                present = [f"npc{rng.randrange(1, characters):04d}" for _ in range(rng.randint(1, 3))]
                situation = (f"{display_name(present[0])} asks about the {rng.choice(_THINGS)} "
                             f"at the {rng.choice(_PLACES)}")
                t0 = time.perf_counter()
                ctx = curator.context("hero", situation, with_=present, max_tokens=max_tokens, peek=peek)
                times.append((time.perf_counter() - t0) * 1000)
                sizes.append(ctx.tokens)
        db_mb = path.stat().st_size / 1e6
    times_sorted = sorted(times)
    return {
        "memories": memories, "characters": characters, "calls": calls, "max_tokens": max_tokens,
        "peek": peek, "build_seconds": round(build_seconds, 1), "world_mb": round(db_mb, 1),
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times_sorted[int(0.95 * (len(times) - 1))], 2),
        "max_ms": round(times_sorted[-1], 2), "mean_tokens": round(statistics.mean(sizes)),
        "target": {"p95_ms": 10.0},
    }


def format_context_report(r: dict[str, Any]) -> str:
    ok = "met" if r["p95_ms"] <= r["target"]["p95_ms"] else "MISSED"
    return "\n".join([
        f"Context assembly: hero with {r['memories']:,} memories in a world of {r['characters']:,} "
        f"characters ({r['world_mb']} MB, built in {r['build_seconds']} s)",
        f"  {r['calls']} calls, budget {r['max_tokens']} tokens (mean used {r['mean_tokens']})"
        + (", peek (no recall refresh)" if r["peek"] else ", with the recall refresh"),
        f"  latency p50 {r['p50_ms']} ms, p95 {r['p95_ms']} ms, max {r['max_ms']} ms",
        f"  target p95 <= {r['target']['p95_ms']:.0f} ms: {ok}",
    ])
