"""Hands-on editing (issue #18): a designer adds, edits, pins, unpins and forgets memories; every
change is logged with who and when; designer and pinned memories survive curation; export and
import carry it all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import TurnFactory

from curator import Curator, MalformedExport
from curator.cli import cli
from curator.domain.errors import InvalidInput, UnknownMemory
from curator.domain.models import Tier


def live(world: Curator, character: str) -> dict[str, Any]:
    """The character's live memories by id."""
    c = world.character(character)
    found = {m.id: m for m in c.self_memories.recent_events + c.self_memories.core_memories}
    for rel in c.relationships.values():
        found.update({m.id: m for m in rel.recent_memories + rel.core_memories})
    return found


def test_each_verb_changes_the_memory_and_is_logged_with_who_and_when(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"]))
        added = world.memory_add("bear", "Wolf once saved my cub from the river", about="wolf", by="ana")
        assert (added.owner, added.subject, added.tier, added.written_by) == ("bear", "wolf", Tier.RECENT,
                                                                              "ana")
        assert added.id in live(world, "bear")
        core = world.memory_add("bear", "I am the keeper of the old oak", core=True, by="ana")
        assert core.tier is Tier.CORE and core.subject is None
        assert world.character("bear").self_memories.core_memories[-1].content == core.content

        edited = world.memory_edit(added.id, "Wolf once saved my cub from the flood", by="ben")
        assert edited.content == "Wolf once saved my cub from the flood"
        assert live(world, "bear")[added.id].content == edited.content

        formed = next(m for m in live(world, "bear").values() if m.written_by is None)
        assert world.memory_pin(formed.id, by="ana").pinned
        assert live(world, "bear")[formed.id].pinned
        assert not world.memory_unpin(formed.id).pinned

        forgotten = world.memory_forget(formed.id, by="ben")
        assert forgotten.tier is Tier.ARCHIVED and forgotten.archived_reason == "forgotten_by_designer"
        assert formed.id not in live(world, "bear")
        reasons = [m.archived_reason for m in world.archived("bear") if m.id == formed.id]
        assert reasons == ["forgotten_by_designer"]
        with pytest.raises(InvalidInput, match="already archived"):
            world.memory_forget(formed.id)
        with pytest.raises(InvalidInput, match="only a live memory can be pinned"):
            world.memory_pin(formed.id)

        history = world.memory_history(added.id)
        assert [(e.action, e.by) for e in history] == [("add", "ana"), ("edit", "ben")]
        assert (history[1].before, history[1].after) == ("Wolf once saved my cub from the river",
                                                        "Wolf once saved my cub from the flood")
        clock = world.clock()
        assert clock is not None and all(e.world_time == clock.isoformat().replace("+00:00", "Z")
                                         for e in history)
        assert all(e.at.endswith("Z") for e in history)  # the wall time, in UTC
        assert [e.action for e in world.memory_history(formed.id)] == ["pin", "unpin", "forget"]
        assert world.memory_history(formed.id)[1].by not in ("", None)  # the OS user, else "designer"


def test_bad_edits_are_typed_errors_and_change_nothing(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Bear fishes.", others=[]))
        before = json.dumps(world.export_world(), sort_keys=True)
        with pytest.raises(UnknownMemory):
            world.memory_edit("m_nope", "text")
        with pytest.raises(UnknownMemory):
            world.memory_history("m_nope")
        with pytest.raises(UnknownMemory):
            world.memory_pin("m_nope")
        with pytest.raises(InvalidInput, match="needs some text"):
            world.memory_add("bear", "   ")
        with pytest.raises(InvalidInput, match="at most"):
            world.memory_add("bear", "x" * 5000)
        with pytest.raises(InvalidInput, match="importance"):
            world.memory_add("bear", "ok", importance=2.0)
        with pytest.raises(InvalidInput, match="by"):
            world.memory_add("bear", "ok", by=" ")
        assert json.dumps(world.export_world(), sort_keys=True) == before


def test_designer_and_pinned_memories_survive_overflow_episode_ends_fading_and_evolution(
        make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        first = world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"], day=0.1))
        pinned = next(m for m in first.formed if m.owner == "bear")
        world.memory_pin(pinned.memory_id)
        written = world.memory_add("bear", "Wolf owes me a salmon", about="wolf", by="ana")
        strength = {m: live(world, "bear")[m].strength for m in (pinned.memory_id, written.id)}
        second = world.observe(make_turn("Wolf shares a fish with Bear at the pool.", others=["wolf"],
                                         day=0.2))
        plain = [m for m in second.formed if m.owner == "bear"]
        deeds = ["Wolf chases Bear away from the pool.", "Wolf steals Bear's honey.",
                 "Wolf growls at Bear's cub.", "Wolf shows Bear a hidden patch of berries.",
                 "Wolf howls all night near Bear's den.", "Wolf trips Bear on the ice.",
                 "Wolf brings Bear a salmon.", "Wolf warns Bear of hunters.", "Wolf bites Bear's paw.",
                 "Wolf digs up Bear's cache of nuts.", "Wolf guards Bear's den in the storm.",
                 "Wolf mocks Bear in front of the deer.", "Wolf helps Bear free a trapped fox.",
                 "Wolf leads Bear to the frozen lake."]
        for n, deed in enumerate(deeds):  # past the recent window of 10
            world.observe(make_turn(deed, others=["wolf"], day=1 + n / 10))
        world.end_episode("bear")
        world.fade("2025-12-01T00:00:00Z")  # a year: every plain recent memory fades out
        world.evolve()
        kept = live(world, "bear")
        assert pinned.memory_id in kept and written.id in kept
        assert {m: kept[m].strength for m in strength} == strength  # they never faded
        archived = {m.id: m.archived_reason for m in world.archived("bear")}
        assert plain and all(m.memory_id in archived for m in plain)  # curation did run
        # the window overflowed, the episode end consolidated, the fading forgot
        assert {"faded_from_recent", "consolidated", "forgotten"} <= set(archived.values())
        # unpinned, the memory is curation's again: the next fading takes it
        world.memory_unpin(pinned.memory_id)
        world.fade("2026-12-01T00:00:00Z")
        assert pinned.memory_id not in live(world, "bear") and written.id in live(world, "bear")


def test_recall_search_and_context_show_designer_memories_and_follow_edits(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"]))
        added = world.memory_add("bear", "Wolf hid the golden acorn under the waterfall", about="wolf")
        found = world.search("bear", "golden acorn")
        assert found and found[0].memory.id == added.id
        context = world.context("bear", "Where is the golden acorn?", with_=["wolf"])
        assert "golden acorn" in context.text and added.id in context.recalled
        world.memory_edit(added.id, "Wolf hid the silver key under the waterfall")
        assert not [r for r in world.search("bear", "golden acorn") if r.memory.id == added.id]
        assert world.search("bear", "silver key")[0].memory.id == added.id
        world.memory_forget(added.id)
        again = world.search("bear", "silver key")  # archived memories stay searchable
        assert again[0].memory.id == added.id and again[0].memory.tier is Tier.ARCHIVED
        assert "silver key" not in world.context("bear", "the silver key", peek=True).text


def test_export_and_import_carry_pins_marks_and_the_edit_history(tmp_path: Path,
                                                                 make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "a.db") as world:
        result = world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"],
                                         observers=["wolf"]))
        formed = next(m for m in result.formed if m.owner == "bear")
        world.memory_pin(formed.memory_id, by="ana")
        added = world.memory_add("bear", "Wolf owes me a salmon", about="wolf", by="ana")
        world.memory_edit(added.id, "Wolf owes me two salmon", by="ben")
        gone = world.memory_add("wolf", "Bear snores", by="ana")
        world.memory_forget(gone.id, by="ana")
        document = world.export_world()
    bear = next(c for c in document["characters"] if c["character"]["id"] == "bear")
    memories = {m["id"]: m for m in bear["relationships"]["wolf"]["recent_memories"]}
    assert memories[formed.memory_id]["pinned"] is True and "written_by" not in memories[formed.memory_id]
    assert memories[added.id]["written_by"] == "ana" and "pinned" not in memories[added.id]
    assert [(e["action"], e["by"]) for e in bear["memory_edits"]] == [("pin", "ana"), ("add", "ana"),
                                                                      ("edit", "ben")]
    with Curator(tmp_path / "b.db") as other:
        other.import_document(document)
        assert json.dumps(other.export_world(), sort_keys=True) == json.dumps(document, sort_keys=True)
        assert [e.action for e in other.memory_history(gone.id)] == ["add", "forget"]
        assert other.memory(formed.memory_id).pinned
        other.import_document(document, replace=True)  # replacing does not double the history
        assert len(other.memory_history(added.id)) == 2


def test_an_untouched_world_exports_as_before(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"]))
        text = json.dumps(world.export_world())
    assert "memory_edits" not in text and "pinned" not in text and "written_by" not in text


@pytest.mark.parametrize(("entry", "field"), [
    ({"action": "pin", "by": "x" * 201}, "by"),
    ({"action": "edit", "before": "x" * 5000}, "before"),
    ({"action": "teleport"}, "action"),
    ({"action": "pin", "at": "yesterday"}, "at"),
])
def test_the_import_limits_apply_to_the_edit_history(entry: dict[str, Any], field: str,
                                                     make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"]))
        added = world.memory_add("bear", "Wolf owes me a salmon", about="wolf", by="ana")
        document = world.export_character("bear")
    document["memory_edits"] = [{"memory_id": added.id, "by": "ana", "at": "2026-01-01T00:00:00Z",
                                 **entry}]
    with Curator(":memory:") as other:
        with pytest.raises(MalformedExport) as caught:
            other.import_document(document)
        assert caught.value.field is not None and caught.value.field.startswith("memory_edits.0")
        assert field in caught.value.field or field in str(caught.value)
        assert other.characters() == []  # all or nothing


def test_the_cli_verbs(tmp_path: Path, make_turn: TurnFactory) -> None:
    db = str(tmp_path / "w.db")
    with Curator(db) as world:
        world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"]))

    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, [*args, "--db", db], catch_exceptions=False)

    added = run("memory", "add", "bear", "Wolf owes me a salmon", "--about", "wolf", "--by", "ana", "--json")
    assert added.exit_code == 0, added.output
    memory = json.loads(added.output)
    assert (memory["written_by"], memory["subject"]) == ("ana", "wolf")
    core = run("memory", "add", "bear", "I guard the oak", "--core")
    assert core.exit_code == 0 and "core" in core.output
    assert run("memory", "edit", memory["id"], "Wolf owes me two salmon", "--by", "ben").exit_code == 0
    assert "Pinned" in run("memory", "pin", memory["id"]).output
    assert "Unpinned" in run("memory", "unpin", memory["id"]).output
    forgot = run("memory", "forget", memory["id"], "--json")
    assert json.loads(forgot.output)["archived_reason"] == "forgotten_by_designer"
    history = json.loads(run("memory", "history", memory["id"], "--json").output)["edits"]
    assert [e["action"] for e in history] == ["add", "edit", "pin", "unpin", "forget"]
    assert history[1]["by"] == "ben"
    text = run("memory", "history", memory["id"]).output
    assert "'Wolf owes me a salmon' → 'Wolf owes me two salmon'" in text
    bad = run("memory", "edit", "m_nope", "text")
    assert bad.exit_code == 1 and bad.output.count("\n") == 1 and "no memory 'm_nope'" in bad.output
    assert run("memory", "add", "bear", "").exit_code == 2


def test_a_rewind_replays_hand_edits_as_they_were(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "w.db") as world:
        world.observe(make_turn("Wolf shares a fish with Bear.", others=["wolf"], id="t1"))
        added = world.memory_add("bear", "Wolf owes me a salmon", about="wolf", by="ana")
        world.observe(make_turn("Bear naps.", id="t2"))
        world.memory_edit(added.id, "Wolf owes me two salmon", by="ben")
        world.memory_pin(added.id, by="ben")
        world.observe(make_turn("Bear wakes.", id="t3"))
        history = world.memory_history(added.id)
        world.rewind("t2")
        assert [e.action for e in world.memory_history(added.id)] == ["add"]
        assert world.memory(added.id).content == "Wolf owes me a salmon"
        world.rewind(undo=True)
        assert world.memory_history(added.id) == history
        assert world.memory(added.id).pinned
