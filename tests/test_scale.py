"""Game scale (issue #17): work that grows with what changed, the write-lock timer, the game-scale
benchmark's turn stream and its report. No timed assertions: figures are the benchmark's."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from curator import Curator, time_writes
from curator.api import cycles
from evals.scale_floor import floor_ms, traced_writes
from evals.scale_world import copy_world, game_turns


def _turn(n: int, actor: str, *, observers: tuple[str, ...] = (), hour: int = 8) -> dict[str, Any]:
    return {"id": f"t{n}", "world_time": f"2025-03-0{n}T{hour:02d}:00:00Z", "actor": actor,
            "intent": {"thought": "Supper", "action": "Fish at the river"},
            "reality": "For the first time you discover a hidden path behind the waterfall.",
            "observers": list(observers)}


def test_a_cycle_evolves_only_the_characters_that_lived_something(tmp_path: Path) -> None:
    with Curator(tmp_path / "world.db") as curator:
        curator.observe(_turn(1, "bear"))
        curator.observe(_turn(2, "fox", observers=("bear",)))
        curator.observe(_turn(3, "owl"))
        # (A cycle at the time of a character's last turn evolves it again next time: a turn
        # at that very time may come after the cycle.)
        first = curator.evolve("2025-03-03T12:00:00Z")
        assert [c.character for c in first.characters] == ["bear", "fox", "owl"] and first.resting == 0
        curator.observe(_turn(4, "bear"))
        second = curator.evolve("2025-03-05T00:00:00Z")
        assert [c.character for c in second.characters] == ["bear"]
        assert second.resting == 2 and "2 other characters lived nothing new" in second.report
        # A goal the game moved is something lived: fox is evolved (and reviews the goal).
        curator.goals.set("fox", "den", "Dig a deeper den before winter", progress=0.5)
        third = curator.evolve("2025-03-06T00:00:00Z")
        assert [c.character for c in third.characters] == ["fox"]
        assert [g.label for g in third.characters[0].goals] == ["den"]
        assert curator.evolve("2025-03-07T00:00:00Z").characters == []  # nobody lived anything


def test_a_character_never_evolved_is_evolved_and_a_resting_one_keeps_its_snapshot(tmp_path: Path) -> None:
    with Curator(tmp_path / "world.db") as curator:
        curator.observe(_turn(1, "bear"))
        curator.evolve("2025-03-01T12:00:00Z")
        before = curator.personality("bear")
        curator.observe(_turn(2, "wolf"))
        report = curator.evolve("2025-03-03T00:00:00Z")
        assert [c.character for c in report.characters] == ["wolf"] and report.resting == 1
        assert curator.personality("bear") == before and curator.personality("wolf") is not None


def test_time_writes_reports_each_write_transaction_and_is_off_outside(tmp_path: Path) -> None:
    held: list[float] = []
    with Curator(tmp_path / "world.db") as curator:
        with time_writes(held.append):
            curator.observe(_turn(1, "bear"))
            with curator.world.transaction(commit=False):
                pass  # a dry run holds the lock too, and is reported
        assert len(held) == 2 and all(seconds >= 0 for seconds in held)
        curator.observe(_turn(2, "bear"))
        assert len(held) == 2


def test_game_turns_draw_from_an_active_set_that_goes_round_the_world() -> None:
    turns = list(game_turns(2_000, characters=200, active=30, seed=3))
    assert turns == list(game_turns(2_000, characters=200, active=30, seed=3))
    times = [t["world_time"] for t in turns]
    assert times == sorted(times)
    met = set()
    for turn in turns:
        assert turn["actor"] not in turn["others"] + turn["observers"]
        assert len(turn["others"]) <= 2 and len(turn["observers"]) <= 2
        met |= {turn["actor"], *turn["others"], *turn["observers"]}
    assert len(met) >= 190  # (nearly) every character is met over the stream
    # ... but only a few at a time: a window of 100 turns meets at most the active set and a swap.
    window = {c for t in turns[1_000:1_100] for c in (t["actor"], *t["others"], *t["observers"])}
    assert len(window) <= 30 + 30


def test_the_stored_report_has_sections_for_the_most_changed_and_counts_the_rest(
        tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr("curator.evolution.report.SECTIONS_SHOWN", 1)
    with Curator(tmp_path / "world.db") as curator:
        for n, who in enumerate(("bear", "fox", "owl"), start=1):
            curator.observe(_turn(n, who))
        report = curator.evolve("2025-03-03T12:00:00Z")
    assert len(report.characters) == 3  # the API's report holds every character
    sections = [line for line in report.report.splitlines()
                if line.startswith("## ") and line != "## Relationships"]
    assert len(sections) == 1 and "*2 more characters evolved less" in report.report


def test_play_shows_the_most_changed_characters_and_counts_the_rest(tmp_path: Path, monkeypatch: Any) -> None:
    from click.testing import CliRunner

    from curator.cli import cli

    transcript = Path(__file__).parent.parent / "fixtures" / "transcripts" / "two_animals.jsonl"
    monkeypatch.setattr("curator.cli.play.SHOWN", 2)
    db = str(tmp_path / "world.db")
    runner = CliRunner()
    result = runner.invoke(cli, ["play", str(transcript), "--db", db])
    assert result.exit_code == 0, result.output
    with Curator(db) as curator:
        everyone = curator.characters()
    headers = [line.split(" — ")[0] for line in result.stdout.splitlines() if " — " in line
               and "recent" in line and not line.startswith(" ")]
    assert headers == ["Bear", "Owl"]  # the two whose memories changed most, in the world's order
    assert f"… and {len(everyone) - 2} other characters" in result.stdout
    again = runner.invoke(cli, ["play", str(transcript), "--db", db, "--json"])
    assert list(json.loads(again.stdout)["characters"]) == everyone  # --json counts every one



def test_memories_read_at_once_are_the_ones_read_a_relationship_at_a_time(tmp_path: Path) -> None:
    from curator.domain.models import Tier

    transcript = Path(__file__).parent.parent / "fixtures" / "transcripts" / "two_animals.jsonl"
    with Curator(tmp_path / "world.db") as curator:
        curator.observe_many(transcript.read_text().splitlines())
        world = curator.world
        for owner in curator.characters():
            relationships, recent, core = world.all_live(owner)
            assert list(relationships) == world.relationship_others(owner)
            assert all(rel == world.relationship(owner, other) for other, rel in relationships.items())
            assert (recent, core) == (world.memories(owner, None, Tier.RECENT),
                                      world.memories(owner, None, Tier.CORE))


def test_the_garbage_collector_waits_while_a_write_transaction_is_open(tmp_path: Path) -> None:
    import gc

    assert gc.isenabled()
    with Curator(tmp_path / "world.db") as curator:
        with curator.world.transaction():
            assert not gc.isenabled()  # no collection pause holds the write lock
        assert gc.isenabled()
        try:
            with curator.world.transaction():
                raise RuntimeError("rolled back")
        except RuntimeError:
            pass
        assert gc.isenabled()
    gc.disable()
    try:  # a process that turned it off keeps it off
        with Curator(tmp_path / "other.db") as curator, curator.world.transaction():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def _faded_state(curator: Curator) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], str | None]:
    conn = curator.world.conn
    live = conn.execute("select id, tier, round(strength, 9), strength_at from memories "
                        "order by seq").fetchall()
    archived = conn.execute("select id, archived_reason from memory_archive order by seq").fetchall()
    return live, archived, curator.world.meta("clock")


def _many_memories(path: Path) -> None:
    with Curator(path) as curator:
        curator.observe_many(list(game_turns(150, characters=12, active=8, seed=7)))


def test_fading_writes_each_row_as_a_whole_row_update_would(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Fading writes only a memory's strength and when it was set (`World.set_strength`): every
    column of every row ends as it did when fading wrote the whole row (`update_memory`)."""
    from curator.store.world import World
    _many_memories(tmp_path / "lean.db")
    shutil.copyfile(tmp_path / "lean.db", tmp_path / "whole.db")
    until = "2025-03-01T00:00:00Z"
    rows = "select * from memories order by seq"
    with Curator(tmp_path / "lean.db") as lean:
        lean.fade(until)
        expected = lean.world.conn.execute(rows).fetchall()
    monkeypatch.setattr(World, "set_strength", World.update_memory)
    with Curator(tmp_path / "whole.db") as whole:
        before = whole.world.conn.execute(rows).fetchall()
        whole.fade(until)
        assert whole.world.conn.execute(rows).fetchall() == expected
    assert expected != before[:len(expected)]  # fading changed strengths (and archived some)


@pytest.mark.parametrize(("batch", "budget"), [(4, 10.0), (500, 0.0), (1, 10.0)])
def test_fading_in_short_batches_fades_as_one_batch_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         batch: int, budget: float) -> None:
    """Fading walks on from where the last batch stopped, cut at FADE_BATCH memories or when
    its time (FADE_BUDGET) is up: every memory is faded once, as one big batch fades them,
    and with no time at all each transaction still fades one memory (it always moves on)."""
    _many_memories(tmp_path / "one.db")
    shutil.copyfile(tmp_path / "one.db", tmp_path / "many.db")
    until = "2025-03-01T00:00:00Z"  # far enough that some fade out and are archived
    with Curator(tmp_path / "one.db") as one:
        recent = one.world.conn.execute("select count(*) from memories where tier = 'recent'").fetchone()[0]
        whole = one.fade(until)
        expected = _faded_state(one)
    monkeypatch.setattr(cycles, "FADE_BATCH", batch)
    monkeypatch.setattr(cycles, "FADE_BUDGET", budget)
    held: list[float] = []
    with Curator(tmp_path / "many.db") as many, time_writes(held.append):
        parts = many.fade(until)
        assert _faded_state(many) == expected
    assert [m.memory_id for m in parts.forgotten] == [m.memory_id for m in whole.forgotten]
    assert whole.forgotten and recent > 100 and len(whole.forgotten) < recent
    per = 1 if budget == 0.0 else batch
    logged = 1  # the fade's entry in the operations log, written once it is done (saves, m011)
    assert len(held) == -(-recent // per) + (1 if recent % per == 0 else 0) + logged


def test_settle_waits_for_the_checkpoint_pass_under_way(tmp_path: Path) -> None:
    """A world that started no checkpoint has nothing to wait for; after a commit that wakes
    the thread, settle returns once its pass has run (the log then fully copied)."""
    path = tmp_path / "world.db"
    with Curator(path) as world:
        checkpointer = world.world.checkpointer
        assert checkpointer is not None and checkpointer.settle(0.0)
        checkpointer.pages = 1
        world.observe(_turn(1, "bear", observers=("fox",)))
        assert checkpointer.settle(10.0)
        assert checkpointer.runs >= 1 and checkpointer.last is not None
        busy, frames, copied = checkpointer.last
        assert busy == 0 and frames == copied


def test_turns_go_in_between_the_batches_of_a_fade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another writer of the world (a game server's turns) is not held up until fading ends:
    with batches of 5 memories, its turns commit while the fade is still under way, and the
    fade still reaches every memory the world held before it."""
    path = tmp_path / "world.db"
    _many_memories(path)
    monkeypatch.setattr(cycles, "FADE_BATCH", 5)
    until = "2025-02-01T00:00:00Z"
    with Curator(path) as fader, Curator(path) as game:
        before = {r[0] for r in fader.world.conn.execute("select id from memories where tier = 'recent'")}
        fading = threading.Event()
        turns_during: list[bool] = []
        original = cycles._fade_batch

        def slow_batch(*args: Any) -> int | None:
            fading.set()
            time.sleep(0.005)  # a batch's work, long enough for the game's turns to queue
            return original(*args)

        monkeypatch.setattr(cycles, "_fade_batch", slow_batch)
        done = threading.Event()

        def play() -> None:
            fading.wait(10)
            for n in range(1, 6):
                game.observe({**_turn(n, "heron"), "id": f"during-{n}",
                              "world_time": f"2025-02-0{n}T09:00:00Z"})
                turns_during.append(not done.is_set())

        player = threading.Thread(target=play)
        player.start()
        fader.fade(until)
        done.set()
        player.join(30)
        # Every turn was observed, and at least the first while the fade was still going.
        assert len(turns_during) == 5 and turns_during[0]
        stamps = {r[0]: r[1] for r in fader.world.conn.execute("select id, strength_at from memories")}
        archived = {r[0] for r in fader.world.conn.execute("select id from memory_archive")}
        assert all(m in archived or stamps[m] >= "2025-02-01T00:00:00" for m in before)


def _tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows, in order (the search index read through its own table)."""
    import sqlite3
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite%' "
        "and name not like '%fts_%' and sql not like 'create virtual%' collate nocase")]
    rows = {name: sorted(conn.execute(f"select * from [{name}]").fetchall(), key=repr) for name in names}
    rows["memory_fts"] = conn.execute("select rowid, * from memory_fts order by rowid").fetchall()
    conn.close()
    return rows


def test_the_floor_writes_the_rows_observe_wrote(tmp_path: Path) -> None:
    """The benchmark's floor replays what observe wrote, statement for statement with the same
    parameters: two copies of one world, one observed and one replayed, end up the same."""
    turns = list(game_turns(260, characters=40, active=12, seed=5))
    base = tmp_path / "base.db"
    with Curator(base) as curator:
        for turn in turns[:200]:
            curator.observe(turn)
    counted: list[int] = []
    writes, autocheckpoint = traced_writes(copy_world(base, tmp_path / "observed.db"), turns[200:], counted)
    assert autocheckpoint > 1_000  # the writer's own, larger than SQLite's default (checkpoint.py)
    assert len(writes) == len(counted) == 60 and all(counted)
    assert sum(len(w) for w in writes) > 60 and any(many for w in writes for _, _, many in w)
    times = floor_ms(copy_world(base, tmp_path / "replayed.db"), writes, autocheckpoint)
    assert len(times) == 60 and all(t > 0 for t in times)
    observed, replayed = _tables(tmp_path / "observed.db"), _tables(tmp_path / "replayed.db")
    assert observed.keys() == replayed.keys() and len(observed["memories"]) > len(_tables(base)["memories"])
    for name in observed:
        assert observed[name] == replayed[name], name
