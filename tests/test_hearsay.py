"""Who knows what (issue #18): provenance of every memory, a turn's `tells`, hearsay memories
and the errors a tell can meet. Every turn here is hand-written test data (scripted)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from curator import Curator, InvalidTurn, NotKnown
from curator.domain.knowing import HEARSAY_FEELING, RETELLING, RUMOUR, confidence
from curator.turn.hearsay import WITNESS_SHIFT

T1 = {"id": "t1", "world_time": "2025-01-01T08:00:00Z", "actor": "wolf",
      "intent": {"action": "Steal the honey"},
      "reality": "You steal the honey from Bear's den while Bear sleeps.",
      "others": ["bear"], "observers": ["heron"]}


def turn(tid: str, hour: int, actor: str, reality: str, **extra: Any) -> dict[str, Any]:
    return {"id": tid, "world_time": f"2025-01-01T{hour:02d}:00:00Z", "actor": actor,
            "intent": {"action": "Talk"}, "reality": reality, **extra}


@pytest.fixture
def world(tmp_path: Path) -> Curator:
    curator = Curator(tmp_path / "w.db")
    curator.observe(T1)
    return curator


def memories_of(curator: Curator, owner: str) -> list[Any]:
    char = curator.character(owner)
    own = char.self_memories
    found = [*own.recent_events, *own.core_memories]
    for rel in char.relationships.values():
        found += [*rel.recent_memories, *rel.core_memories]
    return found + curator.archived(owner)


def test_perceivers_memories_say_they_did_or_witnessed_it(world: Curator) -> None:
    for owner, origin in (("wolf", "did"), ("heron", "witnessed")):
        mine = memories_of(world, owner)
        assert mine
        for memory in mine:
            source = world.provenance(memory.id)
            assert source is not None and source.origin == origin
            assert source.about == "t1" and source.confidence == 1.0 and source.hops == 0
    assert memories_of(world, "bear") == []  # asleep: it was not told, it does not know


def test_a_listener_forms_a_weaker_first_person_hearsay_memory(world: Curator) -> None:
    heron = max(memories_of(world, "heron"), key=lambda m: abs(m.valence))
    result = world.observe(turn("t2", 9, "heron", "You tell Bear what Wolf did.", others=["bear"],
                                tells=[{"to": ["bear"], "about": "t1"}]))
    heard = [f for f in result.formed if f.owner == "bear" and f.subject == "wolf"]
    assert len(heard) == 1 and heard[0].reason == "heard from Heron"
    memory = next(m for m in memories_of(world, "bear") if m.id == heard[0].memory_id)
    assert memory.content == "Heron told me that Wolf steals the honey from my den while I sleep."
    assert memory.importance == pytest.approx(heron.importance * RETELLING, abs=1e-4)
    assert memory.importance < heron.importance and memory.strength < 1.0
    assert abs(memory.valence) < abs(heron.valence)
    source = world.provenance(memory.id)
    assert source is not None
    assert (source.origin, source.hops, source.mouths, source.about, source.told_in) == (
        "told", 1, ["heron"], "t1", "t2")
    assert source.confidence == confidence("told", 1) == RETELLING


def test_hearsay_colours_feeling_less_than_witnessing(tmp_path: Path) -> None:
    # The same event seen by an observer (heron) and heard of by a listener (bear).
    curator = Curator(tmp_path / "w.db")
    curator.observe({**T1, "reality": "You bite Fox and steal the honey from Bear's den.",
                     "others": ["bear", "fox"]})
    seen = curator.character("heron").relationships["wolf"].current_sentiment
    curator.observe(turn("t2", 9, "heron", "You tell Bear.", others=["bear"],
                         tells=[{"to": ["bear"], "about": "t1"}]))
    heard = curator.character("bear").relationships["wolf"].current_sentiment
    assert heard < 0  # it thinks worse of wolf
    assert abs(heard) == pytest.approx(WITNESS_SHIFT * HEARSAY_FEELING * RETELLING)
    assert abs(heard) < abs(seen)


def test_a_story_loses_confidence_at_every_mouth(world: Curator) -> None:
    world.observe(turn("t2", 9, "heron", "You tell Bear.", others=["bear"],
                       tells=[{"to": ["bear"], "about": "t1"}]))
    world.observe(turn("t3", 10, "bear", "You tell Fox.", others=["fox"],
                       tells=[{"to": ["fox"], "about": "t1"}]))
    world.observe(turn("t4", 11, "fox", "You tell Owl.", others=["owl"],
                       tells=[{"to": ["owl"], "about": "t1"}]))
    known = world.who_knows("t1")
    assert {c: (p.origin, p.hops) for c, p in known.items()} == {
        "wolf": ("did", 0), "heron": ("witnessed", 0), "bear": ("told", 1), "fox": ("told", 2),
        "owl": ("told", 3)}
    assert known["owl"].mouths == ["heron", "bear", "fox"]
    confidences = [known[c].confidence for c in ("heron", "bear", "fox", "owl")]
    assert confidences == [1.0, RETELLING, round(RETELLING ** 2, 4), round(RETELLING ** 3, 4)]
    importance = {c: next(m for m in memories_of(world, c) if world.provenance(m.id) == known[c]).importance
                  for c in ("bear", "fox", "owl")}
    assert importance["bear"] > importance["fox"] > importance["owl"]


def test_a_memory_can_be_told_and_a_rumour_passed_on(world: Curator) -> None:
    heron = memories_of(world, "heron")[0]
    world.observe(turn("t2", 9, "heron", "You gossip.", others=["bear", "fox"],
                       tells=[{"to": ["bear"], "about": heron.id},
                              {"to": ["fox"], "says": "they say a poacher is coming"}]))
    bear = [m for m in memories_of(world, "bear") if world.provenance(m.id)]
    fox = memories_of(world, "fox")
    rumour = next(m for m in fox if (s := world.provenance(m.id)) and s.origin == "rumour")
    assert rumour.content == 'Heron passed on a rumour: "they say a poacher is coming".'
    source = world.provenance(rumour.id)
    assert source is not None and source.confidence == RUMOUR and source.mouths == ["heron"]
    told = [m for m in bear if world.provenance(m.id).origin == "told"]  # type: ignore[union-attr]
    assert len(told) == 1 and world.provenance(told[0].id).about == "t1"  # type: ignore[union-attr]


def test_says_is_what_the_listener_hears(world: Curator) -> None:
    world.observe(turn("t2", 9, "heron", "You lie to Bear.", others=["bear"],
                       tells=[{"to": ["bear"], "about": "t1", "says": "Fox took your honey"}]))
    told = [m for m in memories_of(world, "bear") if m.subject == "wolf"]
    assert [m.content for m in told] == ['Heron told me: "Fox took your honey".']


@pytest.mark.parametrize(("tell", "message"), [
    ({"to": ["fox"], "about": "t9"}, "no turn or memory has the id 't9'"),
    ({"to": ["fox"], "about": "t2"}, "a turn cannot tell about itself"),
])
def test_a_teller_cannot_tell_what_does_not_exist(world: Curator, tell: dict[str, Any],
                                                  message: str) -> None:
    with pytest.raises(NotKnown, match=message) as caught:
        world.observe(turn("t2", 9, "heron", "You talk.", tells=[tell]))
    assert caught.value.field == "tells.0.about"
    assert world.world.turn_count() == 1


def test_a_teller_can_only_tell_what_it_knows(world: Curator) -> None:
    before = json.dumps(world.export_world(), sort_keys=True)
    wolf_memory = memories_of(world, "wolf")[0]
    with pytest.raises(NotKnown, match="fox did not perceive turn 't1'"):
        world.observe(turn("t2", 9, "fox", "You talk.", tells=[{"to": ["owl"], "about": "t1"}]))
    with pytest.raises(NotKnown, match="can only tell its own memories"):
        world.observe(turn("t2", 9, "heron", "You talk.", tells=[
            {"to": ["owl"], "about": "t1"}, {"to": ["owl"], "about": wolf_memory.id}]))
    assert json.dumps(world.export_world(), sort_keys=True) == before  # nothing half-written
    assert "owl" not in world.world.character_ids()


@pytest.mark.parametrize(("tells", "field"), [
    ([{"to": ["bear"]}], "tells.0"),
    ([{"to": [], "about": "t1"}], "tells.0.to"),
    ([{"to": ["heron"], "about": "t1"}], "tells"),
    ([{"to": ["Not An Id!"], "about": "t1"}], "tells.0.to.0"),
    ([{"to": ["bear"], "about": "t1", "whisper": True}], "tells.0.whisper"),
    ([{"to": ["bear"], "about": "t1", "says": "x" * 4001}], "tells.0.says"),
    ("t1", "tells"),
])
def test_malformed_tells_are_refused_with_the_field(world: Curator, tells: Any, field: str) -> None:
    with pytest.raises(InvalidTurn) as caught:
        world.observe(turn("t2", 9, "heron", "You talk.", tells=tells))
    assert caught.value.field is not None and caught.value.field.startswith(field)


def test_a_turn_without_tells_is_stored_as_before(world: Curator) -> None:
    payload = world.world.conn.execute("select payload from turns where id = 't1'").fetchone()[0]
    assert "tells" not in json.loads(payload)


def test_a_retold_tell_changes_nothing_and_a_shorter_chain_wins(world: Curator) -> None:
    tell = turn("t2", 9, "heron", "You tell Bear.", others=["bear"], tells=[{"to": ["bear"], "about": "t1"}])
    world.observe(tell)
    before = json.dumps(world.export_world(), sort_keys=True)
    assert world.observe(tell).duplicate
    assert json.dumps(world.export_world(), sort_keys=True) == before
    # Fox hears it second-hand, then from the witness: one memory, the shorter chain.
    world.observe(turn("t3", 10, "bear", "You tell Fox.", tells=[{"to": ["fox"], "about": "t1"}]))
    world.observe(turn("t4", 11, "heron", "You tell Fox.", tells=[{"to": ["fox"], "about": "t1"}]))
    fox = memories_of(world, "fox")
    assert len(fox) == 1
    source = world.provenance(fox[0].id)
    assert source is not None and source.mouths == ["heron"] and source.hops == 1
    # A perceiver told of what it saw learns nothing new.
    world.observe(turn("t5", 12, "bear", "You tell Wolf.", tells=[{"to": ["wolf"], "about": "t1"}]))
    assert all(world.provenance(m.id).origin == "did" for m in memories_of(world, "wolf")
               )  # type: ignore[union-attr]


def test_the_migration_gives_existing_memories_their_origin(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with Curator(db) as curator:
        curator.observe(T1)
        ids = {m.id: m.owner for o in ("wolf", "heron") for m in memories_of(curator, o)}
    with sqlite3.connect(db) as conn:  # as a world before m012 would hold it: no source rows
        conn.execute("delete from memory_sources")
        conn.execute("delete from _sqlite_migrations where name = 'm012_who_knows_what'")
        for trigger in ("memory_sources_live_gone", "memory_sources_archived_gone",
                        "group_members_character_gone"):
            conn.execute(f"drop trigger {trigger}")
        for table in ("memory_sources", "group_members", "group_knowledge"):
            conn.execute(f"drop table {table}")
    conn.close()
    with Curator(db) as curator:
        found = {i: curator.provenance(i) for i in ids}
    assert {i: (p.origin if p else None) for i, p in found.items()} == {
        i: ("did" if owner == "wolf" else "witnessed") for i, owner in ids.items()}


def test_with_a_model_hearsay_waits_for_its_reviews(tmp_path: Path) -> None:
    """Twelve stories at one turn push the listener's window over: the fade reviews go to the
    model (a stub answering as the fallback would, scripted), and the listener holds the same
    stories as with no model: ten in its window, two archived by review."""
    from curator.model.llm import ModelSettings, release_connections
    from curator.model.stub_server import FallbackEcho, StubModelServer

    deeds = [turn(f"d{n:02d}", n, "wolf", f"You knock over beehive number {n} near Bear's den.",
                  others=["bear"], observers=["heron"]) for n in range(12)]
    gossip = turn("g1", 13, "heron", "You tell Bear everything.", others=["bear"],
                  tells=[{"to": ["bear"], "about": d["id"]} for d in deeds])

    def stories(curator: Curator) -> tuple[list[str], list[tuple[str, str | None]]]:
        rel = curator.character("bear").relationships["wolf"]
        return ([m.content for m in rel.recent_memories],
                [(m.content, m.archived_reason) for m in curator.archived("bear")])

    with Curator(tmp_path / "plain.db") as plain:
        plain.observe_many([*deeds, gossip])
        without = stories(plain)
    echo = FallbackEcho()
    with StubModelServer(echo) as stub, Curator(tmp_path / "model.db", model=ModelSettings(
            model="openai/stub", api_base=stub.url)) as world:
        assert world.gateway is not None
        world.gateway.before_call = echo.learn
        world.observe_many([*deeds, gossip])
        reviews = [c.step for c in world.calls(turn_id="g1", character="bear") if c.outcome == "model"]
        assert reviews == ["fade_review", "fade_review"]  # one per story pushed out, none wasted
        assert stories(world) == without
    release_connections()
    assert len(without[0]) == 10 and [r for _, r in without[1]] == ["faded_from_recent"] * 2
    assert without[1][0][0] == "Heron told me that Wolf knocks over beehive number 0 near my den."


def test_a_listener_is_a_perceiver_for_the_clock(world: Curator) -> None:
    from curator import TimeWentBackwards

    world.observe(turn("t2", 12, "bear", "You wake up hungry."))
    with pytest.raises(TimeWentBackwards, match="bear's last turn"):
        world.observe(turn("t3", 10, "heron", "You tell Bear.", tells=[{"to": ["bear"], "about": "t1"}]))
    world.observe(turn("t3", 13, "heron", "You tell Owl.", tells=[{"to": ["owl"], "about": "t1"}]))
    assert "owl" in world.world.character_ids()  # created on first sight
    assert world.world.character_clocks(["owl"])["owl"].hour == 13


def test_a_deleted_teller_is_someone_in_the_hearsay_it_passed_on(world: Curator) -> None:
    world.observe(turn("t2", 9, "heron", "You tell Bear.", others=["bear"],
                       tells=[{"to": ["bear"], "about": "t1"}]))
    world.observe(turn("t3", 10, "bear", "You tell Fox.", others=["fox"],
                       tells=[{"to": ["fox"], "about": "t1"}]))
    removed = world.delete_character("heron")
    assert removed["memory_sources.mouths"] == 2  # bear's and fox's stories named heron
    known = world.who_knows("t1")
    assert "heron" not in known
    assert (known["bear"].mouths, known["fox"].mouths) == (["?"], ["?", "bear"])
    assert (known["bear"].hops, known["fox"].hops) == (1, 2)  # the chain keeps its length
    assert known["fox"].phrase() == "heard from bear, via someone"
    exported = json.dumps(world.export_world())
    assert '"heron"' not in exported
