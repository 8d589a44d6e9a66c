"""Saves and reloads (issue #18): rewind to a past turn, undo it, branch a new save.

The round trip: play a transcript, rewind to its middle, play the rest again, and the world's
export is the same as the first time, without a model and with one (replayed fixtures: the
scripted set and the recorded Qwen set), and the rewind itself calls no model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import TRANSCRIPT, TurnFactory
from test_recorded import RECORDED, RECORDED_PLAY, RECORDED_SETTINGS

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidInput, RewindRefused, UnknownTurn
from curator.model.fixtures import FixtureStore, Replayer
from curator.model.steps import Step
from evals.record import SCRIPTED, SCRIPTED_SETTINGS

LINES = [line for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
MIDDLE = len(LINES) // 2


def exported(curator: Curator) -> str:
    return json.dumps(curator.export_world(), sort_keys=True)


def turn_id(line: str) -> str:
    return str(json.loads(line)["id"])


def test_rewind_to_the_middle_and_play_the_rest_again_without_a_model(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        for line in LINES:
            world.observe(line)
        original = exported(world)
        result = world.rewind(turn_id(LINES[MIDDLE - 1]), reason="player reloads", by="qa")
        assert (result.turns, result.set_aside_turns) == (MIDDLE, len(LINES) - MIDDLE)
        assert result.model_calls == 0 and result.decisions_from_call_log == 0
        assert world.world.turn_count() == MIDDLE
        assert exported(world) != original  # the later turns' memories are gone
        assert world.world.conn.execute("pragma journal_mode").fetchone()[0] == "wal"
        # the turns after it are no longer observed: the game can play them again
        assert world.observed([turn_id(LINES[MIDDLE])]) == set()
        for line in LINES[MIDDLE:]:
            assert not world.observe(line).duplicate
        assert exported(world) == original
        [record] = world.rewinds()
    assert (record.action, record.to_turn, record.reason, record.by) == ("rewind", turn_id(LINES[MIDDLE - 1]),
                                                                         "player reloads", "qa")
    assert [s.ref for s in record.set_aside] == [turn_id(line) for line in LINES[MIDDLE:]]
    assert record.world_time == json.loads(LINES[MIDDLE - 1])["world_time"].replace("+00:00", "Z")


def test_a_rewind_in_model_mode_reuses_the_call_log_and_calls_no_model() -> None:
    store = FixtureStore(SCRIPTED)  # scripted fixtures: the stub server's answers
    with Replayer(store) as replay, Curator(":memory:", model=SCRIPTED_SETTINGS) as world:
        world.observe_many(LINES)
        original = exported(world)
        kept_steps = sum(len(world.calls(turn_id=turn_id(line))) for line in LINES[:MIDDLE])
        served = len(replay.served)
        result = world.rewind(turn_id(LINES[MIDDLE - 1]))
        assert len(replay.served) == served  # not one request left curator during the rewind
        assert result.decisions_from_call_log == kept_steps > 0
        assert result.decisions_by_fallback == 0
        memories = [m for c in world.characters() for rel in world.character(c).relationships.values()
                    for m in rel.recent_memories]
        assert memories and all(m.content.startswith("[scripted] ") for m in memories)
        world.observe_many(LINES[MIDDLE:])
        assert exported(world) == original
    assert not replay.missing


def test_a_logged_answer_that_no_longer_makes_a_decision_falls_back_in_a_rewind(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # As a live answer does (llm.py): any failure turning it into a decision is a fallback,
    # not a rewind stopped half way.
    with Replayer(FixtureStore(SCRIPTED)), Curator(":memory:", model=SCRIPTED_SETTINGS) as world:
        world.observe_many(LINES[:MIDDLE + 2])

        def broken(self: Step[Any, Any], inputs: Any, answer: Any) -> Any:
            raise KeyError("a conversion this curator cannot make")

        monkeypatch.setattr(Step, "decided", broken)
        result = world.rewind(turn_id(LINES[MIDDLE - 1]))
        assert result.decisions_from_call_log == 0 and result.decisions_by_fallback > 0
        assert world.world.turn_count() == MIDDLE


def test_a_rewind_of_a_world_a_real_model_played_reuses_its_answers(tmp_path: Path) -> None:
    played = json.loads(RECORDED_PLAY.read_text())
    lines = LINES[: played["turns"]]
    middle = len(lines) // 2
    with Replayer(FixtureStore(RECORDED)) as replay, \
            Curator(tmp_path / "w.db", model=RECORDED_SETTINGS) as world:
        world.observe_many(lines)
        original = exported(world)
        kept = [c for line in lines[:middle] for c in world.calls(turn_id=turn_id(line))]
        served = len(replay.served)
        result = world.rewind(turn_id(lines[middle - 1]))
        assert len(replay.served) == served
        # what the model decided then comes back from the log; what fell back then falls back again
        assert result.decisions_from_call_log == sum(c.outcome == "model" for c in kept)
        assert result.decisions_by_fallback == sum(c.outcome == "fallback" for c in kept)
        world.observe_many(lines[middle:])
        assert exported(world) == original


def test_undo_brings_back_what_a_rewind_set_aside_and_an_undo_can_be_undone(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        first_results = [world.observe(line) for line in LINES]
        original = exported(world)
        world.rewind(turn_id(LINES[9]))
        rewound = exported(world)
        undone = world.rewind(undo=True)
        assert (undone.action, undone.restored, undone.set_aside_turns) == ("undo", len(LINES) - 10, 0)
        assert exported(world) == original and world.world.turn_count() == len(LINES)
        # a turn re-delivered gets back the result of its first delivery, not of the rebuild
        again = world.observe(LINES[-1])
        assert again.duplicate and again.steps == first_results[-1].steps
        assert again.elapsed_ms == first_results[-1].elapsed_ms
        world.rewind(undo=True)  # the undo undone: back to turn 10
        assert exported(world) == rewound
        records = world.rewinds()
    assert [(r.action, r.undone_by) for r in records] == [("rewind", 2), ("undo", 3), ("undo", None)]


def test_undo_sets_aside_what_was_played_after_the_rewind(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        for line in LINES[:20]:
            world.observe(line)
        world.rewind(turn_id(LINES[9]))
        for line in LINES[10:15]:  # the player goes on from the reloaded save
            world.observe(line)
        world.rewind(undo=True)
        assert world.world.turn_count() == 20
        last = world.rewinds()[-1]
        assert [s.ref for s in last.set_aside] == [turn_id(line) for line in LINES[10:15]]


def test_operations_between_turns_are_replayed(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "w.db") as world:
        world.set_persona("bear", "A patient old bear")
        first = make_turn("Wolf shares a fish with Bear.", others=["wolf"], observers=["wolf"])
        world.observe(first)
        world.blocks.create("bear", "current_state", "Hungry")
        world.goals.set("bear", "honey", "Find honey before winter")
        world.passages.store("bear", "The old oak holds a hive.", ["lore"])
        added = world.memory_add("bear", "Wolf once saved my cub", about="wolf", by="ana")
        for n in range(2, 8):
            world.observe(make_turn(f"Wolf steals Bear's fish again ({n}).", others=["wolf"]))
            world.context("bear", "the river", with_=["wolf"])
        world.end_episode("bear")
        world.goals.advance("bear", "honey", 0.5)
        world.memory_pin(world.character("bear").relationships["wolf"].recent_memories[-1].id)
        world.fade("2025-03-01T00:00:00Z")
        world.evolve()
        last = make_turn("Bear sleeps by the oak.", world_time="2025-03-02T00:00:00Z")
        world.observe(last)
        original = world.export_world()
        world.rewind(first["id"])
        early = world.export_world()
        bear = world.character("bear")
        assert bear.persona == "A patient old bear"
        assert world.blocks.list("bear") == []  # made after that turn
        with pytest.raises(Exception, match="no goal"):
            world.goals.get("bear", "honey")
        assert added.id not in json.dumps(early)
        world.rewind(undo=True)
        restored = world.export_world()
    for doc in (original, restored):  # evolution reports are stamped with the wall clock
        for report in doc.pop("evolution_reports"):
            report.pop("created_at", None)
    assert json.dumps(restored, sort_keys=True) == json.dumps(original, sort_keys=True)
    assert added.id in json.dumps(restored)


def test_an_import_a_deletion_and_a_clock_set_are_replayed(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "source.db") as source:
        source.observe(make_turn("Owl teaches Fox to read the stars.", actor="owl", others=["fox"],
                                 observers=["fox"], id="s1"))
        document = source.export_world()
    with Curator(tmp_path / "w.db") as world:
        world.import_document(document)
        world.observe(make_turn("Bear meets Owl at the oak.", others=["owl"], observers=["owl"], id="t1",
                                world_time="2025-02-01T00:00:00Z"))
        world.observe(make_turn("Bear meets Heron at the pond.", others=["heron"], id="t2",
                                world_time="2025-02-02T00:00:00Z"))
        world.delete_character("heron")
        world.set_clock("2025-02-03T00:00:00Z")
        world.observe(make_turn("Bear naps.", id="t3", world_time="2025-02-04T00:00:00Z"))
        original = exported(world)
        result = world.rewind("t1")
        assert (result.operations, result.set_aside_operations) == (1, 2)  # the import is kept
        assert "fox" in world.characters() and "heron" not in world.characters()
        owl_fox = world.character("owl").relationships["fox"].recent_memories
        assert [m.source_turns for m in owl_fox] == [["s1"]]
        world.rewind(undo=True)
        assert exported(world) == original and "heron" not in world.characters()


def test_a_method_logged_as_api_is_replayed_by_name(tmp_path: Path, make_turn: TurnFactory) -> None:
    from curator.store.oplog import log_operation

    with Curator(tmp_path / "w.db") as world:
        world.observe(make_turn("Bear fishes.", id="t1"))
        with world.world.transaction() as store:  # as a writing method logs itself
            world.world.set_character("bear", persona="A bear of few words")
            log_operation(store, "api.set_persona", {"args": ["bear", "A bear of few words"], "kwargs": {}})
        world.observe(make_turn("Bear naps.", id="t2"))
        world.rewind("t1")
        assert world.character("bear").persona == ""
        world.rewind(undo=True)
        assert world.character("bear").persona == "A bear of few words"


def test_an_operation_that_failed_is_not_logged(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        for line in LINES[:6]:
            world.observe(line)
        with pytest.raises(InvalidInput):
            world.fade("2000-01-01T00:00:00Z")  # before the world clock: refused, nothing done
        with pytest.raises(InvalidInput):
            world.evolve("2000-01-01T00:00:00Z")
        assert world.world.conn.execute("select count(*) from operations").fetchone()[0] == 0
        world.rewind(turn_id(LINES[2]))
        assert world.world.turn_count() == 3


def test_branch_makes_a_new_save_and_leaves_the_world_alone(tmp_path: Path) -> None:
    source, slot = tmp_path / "w.db", tmp_path / "slots" / "early.db"
    with Curator(source) as world:
        for line in LINES:
            world.observe(line)
        original = exported(world)
        result = world.branch(turn_id(LINES[9]), slot, reason="try the other path")
        assert exported(world) == original and world.world.turn_count() == len(LINES)
        assert world.rewinds() == []
        with pytest.raises(RewindRefused, match="exists"):
            world.branch(turn_id(LINES[19]), slot)
        world.branch(turn_id(LINES[19]), slot, force=True)
    assert (result.turns, result.set_aside_turns, result.path) == (10, len(LINES) - 10, str(slot))
    with Curator(slot, create=False) as branch:
        assert branch.world.turn_count() == 20
        assert branch.rewinds()[-1].action == "branch"
        for line in LINES[20:]:
            branch.observe(line)
        assert exported(branch) == original
    with Curator(tmp_path / "straight.db") as straight:  # the same as rewinding the world itself
        for line in LINES[:10]:
            straight.observe(line)
        ten = exported(straight)
    with Curator(tmp_path / "again.db") as again:
        for line in LINES:
            again.observe(line)
        again.branch(turn_id(LINES[9]), tmp_path / "ten.db")
    with Curator(tmp_path / "ten.db", create=False) as branched:
        assert exported(branched) == ten


def test_an_unknown_turn_is_a_typed_error_and_changes_nothing(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        for line in LINES[:5]:
            world.observe(line)
        before = exported(world)
        with pytest.raises(UnknownTurn, match="unknown turn 'nope'"):
            world.rewind("nope")
        with pytest.raises(UnknownTurn):
            world.branch("nope", tmp_path / "b.db")
        with pytest.raises(RewindRefused, match="nothing to undo"):
            world.rewind(undo=True)
        world.rewind(turn_id(LINES[1]))
        with pytest.raises(UnknownTurn, match="set aside by a rewind"):
            world.rewind(turn_id(LINES[3]))
        world.rewind(undo=True)
        assert exported(world) == before
    assert not (tmp_path / "b.db").exists()


def test_the_readme_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    from test_readme import python_example

    monkeypatch.chdir(tmp_path)
    with Curator("world.db") as world:
        for line in LINES:
            world.observe(line)
    exec(compile(python_example("curator.rewind("), "README.md", "exec"), {})
    assert capsys.readouterr().out.splitlines() == [f"{len(LINES) - 25} 0", "['rewind']"]
    with Curator("early.db", create=False) as early:
        assert early.world.turn_count() == 10


def run(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_the_cli_rewinds_lists_undoes_branches_and_refuses_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    assert run("play", str(TRANSCRIPT), "--db", db).exit_code == 0
    bad = run("rewind", "--to", "nope", "--db", db)
    assert bad.exit_code == 1 and "unknown turn 'nope'" in bad.output and "Traceback" not in bad.output
    assert len(bad.output.strip().splitlines()) == 1
    done = run("rewind", "--to", turn_id(LINES[9]), "--reason", "reload", "--by", "qa", "--db", db, "--json")
    assert done.exit_code == 0
    assert json.loads(done.output)["set_aside_turns"] == len(LINES) - 10
    listed = json.loads(run("rewind", "--list", "--db", db, "--json").output)["rewinds"]
    assert [(r["action"], r["reason"], r["by"]) for r in listed] == [("rewind", "reload", "qa")]
    assert "#1 rewind to t010" in run("rewind", "--list", "--db", db).output
    assert run("rewind", "--undo", "--db", db).exit_code == 0
    assert run("rewind", "--to", "t001", "--undo", "--db", db).exit_code == 2
    new = str(tmp_path / "new.db")
    assert run("branch", "--at", "t005", "--to", new, "--db", db).exit_code == 0
    again = run("branch", "--at", "t005", "--to", new, "--db", db)
    assert again.exit_code == 2 and "exists" in again.output
    assert run("branch", "--at", "t006", "--to", new, "--force", "--db", db).exit_code == 0
    with Curator(new, create=False) as branch:
        assert branch.world.turn_count() == 6
    missing = run("rewind", "--to", "t001", "--db", str(tmp_path / "none.db"))
    assert missing.exit_code == 2 and not (tmp_path / "none.db").exists()


def test_a_world_changed_before_the_operations_log_is_refused(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        for line in LINES[:5]:
            world.observe(line)
        # what m011 writes when it upgrades a world that has data
        with world.world.transaction() as store:
            store.conn.execute("insert into operations (after_turn, kind, args, at) "
                               "values (5, 'unlogged', '{}', '2026-01-01T00:00:00Z')")
        before = exported(world)
        with pytest.raises(RewindRefused, match="before curator logged its operations"):
            world.rewind(turn_id(LINES[2]))
        assert exported(world) == before and world.world.turn_count() == 5


def test_a_failed_rebuild_or_a_world_that_moved_meanwhile_leaves_the_world_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import curator.api.replay as replay
    import curator.api.saves as saves

    with Curator(tmp_path / "w.db") as world:
        for line in LINES[:10]:
            world.observe(line)
        world.set_persona("bear", "calm")  # an operation the rebuild replays
        for line in LINES[10:20]:
            world.observe(line)
        before = exported(world)
        real = replay.replay_operation

        def broken(curator: Any, kind: str, args: dict[str, Any]) -> None:
            raise OSError("disk pulled out mid-rebuild")

        monkeypatch.setattr(replay, "replay_operation", broken)
        with pytest.raises(OSError):
            world.rewind(turn_id(LINES[15]))
        monkeypatch.setattr(replay, "replay_operation", real)
        assert exported(world) == before and world.world.turn_count() == 20

        rebuild = saves.rebuild

        def meanwhile(source: Any, events: Any) -> Any:
            built = rebuild(source, events)
            with Curator(tmp_path / "w.db") as other:  # another writer's turn during the rebuild
                other.observe(LINES[20])
            return built

        monkeypatch.setattr(saves, "rebuild", meanwhile)
        with pytest.raises(RewindRefused, match="changed while the rewind was rebuilt"):
            world.rewind(turn_id(LINES[5]))
        assert world.world.turn_count() == 21 and world.rewinds() == []
