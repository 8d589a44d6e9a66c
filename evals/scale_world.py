"""The game-scale world: a deterministic stream of turns among many characters, and its growth.

A game does not draw its actors uniformly from 10,000 characters: a few hundred are where the
player is, the rest are dormant. `game_turns(n, characters, active, seed)` keeps an active
set of `active` characters; actors, the others they meet and the observers are drawn from it,
and every so often a sixth of it goes dormant and as many come in from the dormant queue, so
that over the whole stream every character is met (and some come back). Scenes, thoughts and
places are evals/synthetic.py's.

Growing the world (observing every turn) is the slow part of the scale benchmark, so the
grown world can be kept (`grown_world`): a file with a sidecar `PATH.bench.json` naming the
seed and sizes it was grown with; a later run with the same ones reuses it.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from collections import deque
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from curator import Curator, time_writes
from evals.synthetic import THOUGHTS, Scene, draw_scene


def game_turns(n: int, characters: int, active: int, seed: int = 42) -> Iterator[dict[str, Any]]:
    """`n` turns among `characters` characters, `active` of them in play at a time."""
    rng = random.Random(seed)
    ids = [f"npc_{i:05d}" for i in range(1, characters + 1)]
    in_play = ids[:active]
    dormant = deque(ids[active:])
    swap = max(1, active // 6)
    # Rotate often enough that the dormant queue is gone through once over the stream.
    every = max(1, n * swap // max(1, characters - active)) if characters > active else n + 1
    now = datetime(2025, 1, 2, 8, 0, tzinfo=UTC)
    last: dict[str, Scene] = {}
    for i in range(1, n + 1):
        if i % every == 0 and dormant:
            for leaving in rng.sample(range(len(in_play)), min(swap, len(dormant))):
                dormant.append(in_play[leaving])
                in_play[leaving] = dormant.popleft()
        now += timedelta(minutes=rng.randint(1, 10))
        actor = rng.choice(in_play)

        def drawn(actor: str = actor) -> list[str]:
            return [c for c in rng.sample(in_play, 3) if c != actor][:rng.randint(0, 2)]

        action, reality, others, place = draw_scene(rng, actor, last, drawn)
        observers = [c for c in rng.sample(in_play, 4) if c != actor and c not in others]
        yield {"id": f"t{i:07d}", "world_time": now.isoformat().replace("+00:00", "Z"),
               "actor": actor, "intent": {"thought": rng.choice(THOUGHTS), "action": action},
               "reality": reality, "others": others, "observers": observers[:rng.randint(0, 2)],
               "place": place}


def observe_all(path: Path, turns: list[dict[str, Any]], *,
                on_turn: Callable[[float], None] | None = None) -> float:
    """Observe `turns` into the world at `path`; the longest write-lock hold, in seconds.
    `on_turn(ms)` gets each observe's wall time."""
    longest = 0.0

    def held(seconds: float) -> None:
        nonlocal longest
        longest = max(longest, seconds)

    with Curator(path) as curator, time_writes(held):
        for turn in turns:
            started = time.perf_counter()
            curator.observe(turn)
            if on_turn is not None:
                on_turn((time.perf_counter() - started) * 1000)
    return longest


def grown_world(keep: Path | None, scratch: Path, sizes: dict[str, int],
                log: Callable[[str], None]) -> tuple[Path, dict[str, Any]]:
    """The world grown by every turn but the last `window` (those are measured), and what its
    growth cost. With `keep`, reused when its sidecar names the same sizes, else grown there."""
    target = keep if keep is not None else scratch / "grown.db"
    sidecar = target.with_name(target.name + ".bench.json")
    if keep is not None and keep.exists() and sidecar.exists():
        grown: dict[str, Any] = json.loads(sidecar.read_text())
        if grown.get("sizes") == sizes:
            log(f"reusing the world grown at {keep}")
            # A world grown by an older curator is brought to this one's schema first (it backs
            # the file up): the floor replays this curator's writes on a copy of it as it is.
            Curator(target).close()
            return target, grown
        raise SystemExit(f"{keep} was grown with {grown.get('sizes')}, not {sizes}: "
                         "give another --keep path or delete it")
    if target.exists():
        raise SystemExit(f"{target} exists but has no {sidecar.name}: not a grown world")
    grow = sizes["turns"] - sizes["window"]
    stream = game_turns(grow, sizes["characters"], sizes["active"], sizes["seed"])
    log(f"growing {sizes['characters']:,} characters by {grow:,} turns into {target}")
    started = time.perf_counter()
    done = 0

    def tick(_ms: float) -> None:
        nonlocal done
        done += 1
        if done % 10_000 == 0:
            log(f"  {done:,} turns, {time.perf_counter() - started:.0f} s")

    longest = observe_all(target, list(stream), on_turn=tick)
    with Curator(target) as curator:
        curator.world.conn.execute("pragma wal_checkpoint(TRUNCATE)")
    grown = {"sizes": sizes, "grow_seconds": round(time.perf_counter() - started, 1),
             "grow_longest_write_ms": round(longest * 1000, 1)}
    sidecar.write_text(json.dumps(grown, indent=2))
    return target, grown


def remove_world(path: Path) -> None:
    """A world file gone with its log, log index and lock beside it (a log left behind would be
    applied to the next file copied to the same path)."""
    for suffix in ("", "-wal", "-shm", "-lock"):
        Path(str(path) + suffix).unlink(missing_ok=True)


def copy_world(source: Path, to: Path) -> Path:
    """A fresh copy of a world file (checkpointed: no -wal beside it)."""
    remove_world(to)
    shutil.copyfile(source, to)
    return to


def measured_turns(sizes: dict[str, int]) -> list[dict[str, Any]]:
    """The last `window` turns of the stream: the ones the benchmark times."""
    stream = game_turns(sizes["turns"], sizes["characters"], sizes["active"], sizes["seed"])
    skip = sizes["turns"] - sizes["window"]
    return [turn for i, turn in enumerate(stream) if i >= skip]
