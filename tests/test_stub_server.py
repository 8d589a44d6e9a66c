"""Real HTTP round trips against the stub model server on 127.0.0.1 (sync and async): rounds
of calls run concurrently and outside the write lock, batches keep their order, recording
writes fixtures that replay to the same world without the server."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from conftest import Gathering

from curator import Curator, TimeWentBackwards
from curator.model.fixtures import FixtureStore, Recorder, Replayer
from curator.model.llm import FixtureMissing, ModelSettings, arelease_connections, release_connections
from curator.model.stub_server import FallbackEcho, StubModelServer, StubReply


@pytest.fixture(autouse=True)
def closed_connections() -> Any:
    # litellm pools connections across calls; each test's stub server is gone after it, so
    # close the pool before its sockets are collected (and warned about) in a later test.
    yield
    release_connections()


def turn(n: int, actor: str, *, observers: list[str] | None = None, others: list[str] | None = None,
         minute: int | None = None) -> dict[str, Any]:
    return {"id": f"s{n:03d}", "world_time": f"2025-03-01T08:{minute if minute is not None else n:02d}:00Z",
            "actor": actor, "intent": {"thought": "I am hungry", "action": "Look for food by the river"},
            "reality": f"{actor.title()} finds a few berries and eats them quietly.",
            "others": others or [], "observers": observers or []}


def settings(url: str, **changes: Any) -> ModelSettings:
    return ModelSettings(model="openai/stub", api_base=url, backoff=0.0, **changes)


def echo_world(path: str | Path, stub: StubModelServer, echo: FallbackEcho, **changes: Any) -> Curator:
    world = Curator(path, model=settings(stub.url, **changes))
    assert world.gateway is not None
    world.gateway.before_call = echo.learn
    return world


def test_a_sync_round_trip_uses_the_models_decisions(transcript_turns: list[dict[str, Any]]) -> None:
    echo = FallbackEcho()
    with StubModelServer(echo) as stub, echo_world(":memory:", stub, echo) as world:
        results = [world.observe(t) for t in transcript_turns[:6]]
        calls = world.calls()
    steps = [s for r in results for s in r.steps]
    assert steps and {s.decided_by for s in steps} == {"model"}
    assert len(stub.received) == len(calls) == len(steps)
    assert all(c.prompt_tokens and c.prompt_tokens > 100 for c in calls)  # counted by the stub
    assert all(c.outcome == "model" and c.attempts == 1 for c in calls)


def test_an_async_round_trip_matches_the_sync_one(transcript_turns: list[dict[str, Any]]) -> None:
    echo = FallbackEcho()
    with StubModelServer(echo) as stub:
        with echo_world(":memory:", stub, echo) as sync_world:
            for t in transcript_turns[:8]:
                sync_world.observe(t)
            expected = sync_world.export_world()
        with echo_world(":memory:", stub, echo) as async_world:
            async def observe_all() -> list[Any]:
                try:
                    return await async_world.aobserve_many(transcript_turns[:8])
                finally:
                    await arelease_connections()  # close the async pool in its own loop
            results = asyncio.run(observe_all())
            got = async_world.export_world()
    assert {s.decided_by for r in results for s in r.steps} == {"model"}
    assert got == expected


def test_the_perceivers_of_a_turn_are_asked_at_once(tmp_path: Path) -> None:
    echo = FallbackEcho()
    watchers = ["owl", "fox", "deer", "heron"]
    gathering = Gathering(echo, expect=5)
    with StubModelServer(gathering) as stub, echo_world(tmp_path / "w.db", stub, echo) as world:
        result = world.observe(turn(1, "bear", observers=watchers))
    interprets = [s for s in result.steps if s.step == "interpret"]
    assert len(interprets) == 5 and {s.decided_by for s in interprets} == {"model"}
    assert gathering.most == 5  # all five in flight at once, not one after another


def test_the_write_lock_is_free_while_the_model_thinks(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    echo = FallbackEcho()
    wrote: list[bool] = []

    def answer_after_writing(body: dict[str, Any], headers: Mapping[str, str]) -> Any:
        # Another writer takes the lock while curator waits for this answer.
        other = sqlite3.connect(path, timeout=0.5, isolation_level=None)
        try:
            other.execute("begin immediate")
            other.execute("insert into meta (key, value) values ('probe', 'x') "
                          "on conflict(key) do update set value = 'x'")
            other.execute("commit")
            wrote.append(True)
        finally:
            other.close()
        return echo(body, headers)

    with StubModelServer(answer_after_writing) as stub, echo_world(path, stub, echo) as world:
        world.observe(turn(1, "bear", others=["wolf"]))
    assert wrote and all(wrote)


def test_fifty_characters_turns_in_one_batch_are_asked_at_once(tmp_path: Path) -> None:
    # How long a batch takes is python -m evals.bench llm's; here, that its calls overlap.
    echo = FallbackEcho()
    turns = [turn(n, f"animal{n:02d}", minute=0) for n in range(50)]
    gathering = Gathering(echo, expect=50)
    with StubModelServer(gathering) as stub, echo_world(
            tmp_path / "w.db", stub, echo, concurrency=50) as world:
        results = world.observe_many(turns)
    assert [r.turn_id for r in results] == [t["id"] for t in turns]
    assert {s.decided_by for r in results for s in r.steps} == {"model"}
    assert gathering.most == 50


def test_a_batch_stops_at_a_bad_turn_and_keeps_the_turns_before_it(tmp_path: Path) -> None:
    echo = FallbackEcho()
    late = turn(1, "bear", minute=30)
    early = turn(2, "bear", minute=10)  # earlier than bear's turn before it: time went backwards
    with StubModelServer(echo) as stub, echo_world(tmp_path / "w.db", stub, echo) as world:
        with pytest.raises(TimeWentBackwards):
            world.observe_many([late, early, turn(3, "fox", minute=40)])
        assert world.world.turn_count() == 1
        assert world.characters() == ["bear"]


def test_a_failing_model_still_commits_every_turn(tmp_path: Path) -> None:
    def overloaded(body: dict[str, Any], headers: Mapping[str, str]) -> StubReply:
        return StubReply(503, {"error": {"message": "overloaded"}})

    with StubModelServer(overloaded) as stub, Curator(
            tmp_path / "w.db", model=settings(stub.url, transport_retries=1)) as world:
        results = world.observe_many([turn(1, "bear", others=["wolf"]), turn(2, "wolf")])
        calls = world.calls()
    assert world_turns(tmp_path / "w.db") == 2
    assert {s.reason for r in results for s in r.steps} == {"server error"}
    assert len(stub.received) == 2 * len(calls)  # each call tried twice
    assert {c.reason for c in calls} == {"server error"}


def world_turns(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("select count(*) from turns").fetchone()[0])


def test_recorded_fixtures_replay_to_the_same_world(tmp_path: Path,
                                                    transcript_turns: list[dict[str, Any]]) -> None:
    store = FixtureStore(tmp_path / "fixtures")
    echo = FallbackEcho()
    turns = transcript_turns[:10]
    with StubModelServer(echo) as stub:
        url = stub.url
        with Recorder(store, kind="scripted", source="stub server, FallbackEcho"), echo_world(
                ":memory:", stub, echo) as world:
            for t in turns:
                world.observe(t)
            recorded = world.export_world()
    entries = store.entries()
    assert entries and {e["kind"] for e in entries} == {"scripted"}
    assert all(e["request"]["template"] and e["response"]["status"] == 200 for e in entries)
    assert all("authorization" not in json.dumps(e).lower() for e in entries)
    # The server is gone: only the fixtures can answer now.
    with Replayer(store) as replay, Curator(":memory:", model=settings(url)) as world:
        for t in turns:
            world.observe(t)
        assert world.export_world() == recorded
        assert not replay.missing and len(replay.served) == len(entries)


def test_a_missing_fixture_fails_with_the_key_it_looked_for(tmp_path: Path) -> None:
    store = FixtureStore(tmp_path / "empty")
    with Replayer(store) as replay, Curator(":memory:", model=settings("http://127.0.0.1:9/v1")) as world:
        with pytest.raises(FixtureMissing, match=r"no recorded fixture for key [0-9a-f]{64}"):
            world.observe(turn(1, "bear"))
        assert world.world.turn_count() == 0
    assert len(replay.missing) == 1


def test_the_gateway_records_when_asked(tmp_path: Path) -> None:
    echo = FallbackEcho()
    with StubModelServer(echo) as stub, echo_world(":memory:", stub, echo,
                                                   record_dir=tmp_path / "rec") as world:
        world.observe(turn(1, "bear"))
    entries = FixtureStore(tmp_path / "rec").entries()
    assert len(entries) == 1 and entries[0]["kind"] == "recorded"


def test_threads_share_the_stub_without_mixing_answers() -> None:
    echo = FallbackEcho()
    errors: list[BaseException] = []
    with StubModelServer(echo, latency=0.05) as stub:
        def run(n: int) -> None:
            try:
                with echo_world(":memory:", stub, echo) as world:
                    result = world.observe(turn(n, f"solo{n}"))
                    assert {s.decided_by for s in result.steps} == {"model"}
            except BaseException as error:  # collected: a thread cannot fail the test itself
                errors.append(error)
        threads = [threading.Thread(target=run, args=(n,)) for n in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors


def test_an_episode_end_is_consolidated_by_the_model(transcript_turns: list[dict[str, Any]]) -> None:
    echo = FallbackEcho()
    with StubModelServer(echo) as stub, echo_world(":memory:", stub, echo) as world:
        world.observe_many(transcript_turns[:12])
        before = len(world.calls())
        changes = world.end_episode("bear", "wolf")
        calls = world.calls()[before:]
        wolf = world.character("bear").relationships["wolf"]
    assert [(c.step, c.outcome) for c in calls] == [("consolidate", "model")]
    assert [(s.step, s.decided_by) for s in changes.steps] == [("consolidate", "model")]
    assert wolf.long_term_summary == changes.summaries_revised[0].summary
    assert len(wolf.recent_memories) <= 3  # all but the last three were consolidated


def test_a_recording_resumes_from_what_it_saved_and_prunes_what_it_no_longer_uses(
        tmp_path: Path, transcript_turns: list[dict[str, Any]]) -> None:
    store = FixtureStore(tmp_path / "fixtures")
    echo = FallbackEcho()
    turns = transcript_turns[:6]
    with StubModelServer(echo) as stub:
        with Recorder(store, kind="recorded", source="stub"), echo_world(":memory:", stub, echo) as world:
            for t in turns[:3]:  # a recording that stopped part-way
                world.observe(t)
        first = len(stub.received)
        stale = store.directory / "0000stale000000000000000.json"
        stale.write_text(json.dumps({"key": "stale"}))
        time.sleep(0.01)
        started = time.time()
        recorder = Recorder(store, kind="recorded", source="stub")
        with recorder, echo_world(":memory:", stub, echo) as world:
            for t in turns:  # resumed: the first three turns' answers come from disk
                world.observe(t)
        asked_again = len(stub.received) - first
    assert recorder.reused == first  # nothing already saved was asked again
    assert asked_again == len(recorder.saved)
    assert store.prune_unused(started) == 1 and not stale.exists()
    assert len(store.entries()) == first + asked_again
    # A file that is not JSON (a merge's conflict markers) is asked again and written afresh.
    spoiled = sorted(store.directory.glob("*.json"))[0]
    spoiled.write_text("<<<<<<<< HEAD\n" + spoiled.read_text())
    with StubModelServer(echo) as stub:
        again = Recorder(store, kind="recorded", source="stub")
        with again, echo_world(":memory:", stub, echo) as world:
            for t in turns:
                world.observe(t)
        assert len(stub.received) == 1 and len(again.saved) == 1
    assert json.loads(spoiled.read_text())["kind"] == "recorded"
