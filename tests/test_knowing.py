"""Who knows what (issue #18): groups and their shared knowledge, provenance in export and
import, `curator show`/context saying how a memory is known, and the CLI (`curator group`,
`curator who-knows`, `curator observe` with `tells`). Turns here are scripted test data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from curator import Curator, InvalidInput, MalformedExport, UnknownGroup
from curator.cli import cli
from curator.domain.knowing import SHARED

T1 = {"id": "t1", "world_time": "2025-01-01T08:00:00Z", "actor": "wolf",
      "intent": {"action": "Steal the honey"},
      "reality": "You steal the honey from Bear's den while Bear sleeps.",
      "others": ["bear"], "observers": ["heron"]}
T2 = {"id": "t2", "world_time": "2025-01-01T09:00:00Z", "actor": "heron",
      "intent": {"action": "Warn Bear"}, "reality": "You tell Bear what you saw.", "others": ["bear"],
      "tells": [{"to": ["bear"], "about": "t1"}]}
T3 = {"id": "t3", "world_time": "2025-01-01T10:00:00Z", "actor": "bear",
      "intent": {"action": "Grumble"}, "reality": "You grumble to Fox about your honey.", "others": ["fox"],
      "tells": [{"to": ["fox"], "about": "t1"}]}


def run(*args: str, input: str | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input)


def ok(result: Result) -> str:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr)
    return result.stdout


def one_line(result: Result, code: int, needle: str) -> None:
    assert result.exit_code == code, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1
    assert needle in result.stderr


@pytest.fixture
def world(tmp_path: Path) -> Curator:
    curator = Curator(tmp_path / "w.db")
    curator.observe_many([T1, T2, T3])
    return curator


def own(curator: Curator, owner: str) -> list[Any]:
    char = curator.character(owner)
    found = [*char.self_memories.recent_events, *char.self_memories.core_memories]
    for rel in char.relationships.values():
        found += [*rel.recent_memories, *rel.core_memories]
    return found


def test_a_groups_knowledge_is_held_by_its_members_only(world: Curator) -> None:
    assert world.join_group("Valley", "bear", "fox") == ["bear", "fox"]
    item = world.add_group_knowledge("valley", "the great storm flooded the mill", importance=0.7)
    assert item["holders"] == ["bear", "fox"] and item["content"] == "The great storm flooded the mill."
    assert world.join_group("valley", "heron", "bear") == ["heron"]  # a newcomer is told what it knows
    assert world.group_knowledge("valley")[0]["holders"] == ["bear", "fox", "heron"]
    for member in ("bear", "fox", "heron"):
        held = [m for m in own(world, member) if "great storm" in m.content]
        assert len(held) == 1 and held[0].tier.value == "core"
        source = world.provenance(held[0].id)
        assert source is not None and (source.origin, source.group, source.confidence) == (
            "shared", "valley", SHARED)
        assert "(known to the valley)" in world.context(member, "the storm and the mill", peek=True).text
    assert not any("great storm" in m.content for m in own(world, "wolf"))
    assert "great storm" not in world.context("wolf", "the storm and the mill", peek=True).text
    assert world.leave_group("valley", "heron") == 1
    world.add_group_knowledge("valley", "a poacher sets snares by the river", about="poacher")
    assert not any("poacher" in m.content for m in own(world, "heron"))  # left: told nothing new
    assert any("great storm" in m.content for m in own(world, "heron"))  # kept what it learnt
    poacher = [m for m in own(world, "bear") if "poacher" in m.content]
    assert [m.subject for m in poacher] == ["poacher"]
    assert world.groups() == ["valley"] and world.groups("bear") == ["valley"]
    assert world.group_members("valley") == ["bear", "fox"]


@pytest.mark.parametrize(("call", "error"), [
    (lambda c: c.join_group("no way!", "bear"), InvalidInput),
    (lambda c: c.join_group("valley"), InvalidInput),
    (lambda c: c.add_group_knowledge("valley", ""), InvalidInput),
    (lambda c: c.add_group_knowledge("valley", "x", importance=2.0), InvalidInput),
    (lambda c: c.add_group_knowledge("valley", "x" * 5000), InvalidInput),
    (lambda c: c.group_members("nowhere"), UnknownGroup),
    (lambda c: c.group_knowledge("nowhere"), UnknownGroup),
])
def test_bad_group_input_is_a_typed_error(world: Curator, call: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        call(world)


def test_export_and_import_carry_provenance_and_groups(world: Curator, tmp_path: Path) -> None:
    world.join_group("valley", "bear", "fox")
    world.add_group_knowledge("valley", "the great storm flooded the mill")
    document = world.export_world()
    bear = next(c for c in document["characters"] if c["character"]["id"] == "bear")
    assert {e["origin"] for e in bear["known"].values()} == {"told", "did", "shared"}
    assert bear["groups"] == ["valley"]
    with Curator(tmp_path / "copy.db") as copy:
        copy.import_document(document)
        assert copy.export_world() == document
        assert copy.who_knows("t1") == world.who_knows("t1")
        assert copy.group_members("valley") == ["bear", "fox"]
        assert copy.group_knowledge("valley") == world.group_knowledge("valley")


def test_an_imported_groups_knowledge_is_renumbered_and_not_doubled(world: Curator,
                                                                     tmp_path: Path) -> None:
    world.join_group("valley", "bear", "fox")
    world.add_group_knowledge("valley", "the great storm flooded the mill")
    world.add_group_knowledge("valley", "a poacher sets snares", about="poacher")
    document = world.export_world()
    assert [i["id"] for i in document["groups"]["valley"]] == [1, 2]
    with Curator(tmp_path / "other.db") as other:
        other.join_group("valley", "owl")
        other.add_group_knowledge("valley", "a poacher sets snares", about="poacher")  # id 1 there
        other.import_document(document)
        pieces = {i["content"]: (i["id"], i["holders"]) for i in other.group_knowledge("valley")}
        assert pieces == {"A poacher sets snares.": (1, ["bear", "fox", "owl"]),
                          "The great storm flooded the mill.": (2, ["bear", "fox"])}
        other.import_document(document, replace=True)  # again: nothing doubled
        assert len(other.group_knowledge("valley")) == 2


@pytest.mark.parametrize(("change", "field"), [
    (lambda k: k.update({"m_nope": {"origin": "did", "confidence": 1.0}}), "known.m_nope"),
    (lambda k: next(iter(k.values())).update({"origin": "dreamt"}), "origin"),
    (lambda k: next(iter(k.values())).update({"confidence": 7}), "confidence"),
    (lambda k: next(iter(k.values())).update({"mouths": ["x"] * 65}), "mouths"),
])
def test_a_malformed_provenance_entry_is_refused(world: Curator, tmp_path: Path, change: Any,
                                                 field: str) -> None:
    document = world.export_character("bear")
    change(document["known"])
    with Curator(tmp_path / "copy.db") as copy:
        with pytest.raises(MalformedExport, match=field):
            copy.import_document(document)
        assert copy.world.character_ids() == []  # nothing written


def test_show_and_context_say_how_a_memory_is_known(world: Curator) -> None:
    db = str(world.world.path)
    shown = ok(run("show", "fox", "--db", db))
    assert "[heard from Bear, via Heron, confidence 0.49]" in shown
    assert "[heard from Heron, confidence 0.70]" in ok(run("show", "bear", "--db", db))
    assert "heard from" not in ok(run("show", "wolf", "--db", db))  # it did it
    context = world.context("fox", "wolf honey", peek=True).text
    # The memory's own words name its teller; the context adds the earlier mouth.
    assert "Bear told me that Wolf steals the honey from Bear's den while Bear sleeps. (via Heron)" in context


def test_the_cli_tells_groups_and_who_knows(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    for turn in (T1, T2):
        ok(run("observe", "--db", db, input=json.dumps(turn)))
    bad = {**T3, "tells": [{"to": ["fox"], "about": "t9"}]}
    one_line(run("observe", "--db", db, input=json.dumps(bad)), 2, "no turn or memory has the id 't9'")
    ok(run("observe", "--db", db, input=json.dumps(T3)))
    known = json.loads(ok(run("who-knows", "t1", "--db", db, "--json")))["known_by"]
    assert {c: p["hops"] for c, p in known.items()} == {"bear": 1, "fox": 2, "heron": 0, "wolf": 0}
    assert "Fox: heard from Bear, via Heron (confidence 0.49)" in ok(run("who-knows", "t1", "--db", db))
    ok(run("group", "join", "valley", "bear", "fox", "--db", db))
    shown = ok(run("group", "know", "valley", "The great storm flooded the mill", "--db", db))
    assert "held by Bear, Fox" in shown
    listed = json.loads(ok(run("group", "list", "--db", db, "--json")))
    assert listed == {"groups": [{"group": "valley", "members": ["bear", "fox"]}]}
    items = json.loads(ok(run("group", "knowledge", "valley", "--db", db, "--json")))["knowledge"]
    assert [i["holders"] for i in items] == [["bear", "fox"]]
    one_line(run("group", "knowledge", "nowhere", "--db", db), 1, "unknown group 'nowhere'")
    one_line(run("who-knows", "t9", "--db", db), 1, "unknown turn 't9'")
    one_line(run("group", "join", "Bad Name!", "bear", "--db", db), 2, "group")


def test_the_readme_example_prints_what_its_comments_say(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "tells" in b]
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    shown = [line.strip()[2:] for line in block.splitlines() if line.strip().startswith("# ")]
    assert capsys.readouterr().out.splitlines() == shown


def test_the_readme_turn_with_tells_is_what_it_says(tmp_path: Path) -> None:
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```json\n(.*?)```", readme, flags=re.S) if "tells" in b]
    transcript = Path(__file__).resolve().parent.parent / "fixtures" / "transcripts" / "two_animals.jsonl"
    with Curator(tmp_path / "w.db") as curator:
        curator.observe_many(transcript.read_text().splitlines())
        result = curator.observe(json.loads(block))
        heard = {f.owner: f.content for f in result.formed if f.reason and "Owl" in f.reason}
    assert heard["bear"].startswith("Owl told me that Fox drags the whole honeycomb out of the hollow "
                                    "log and carries it to Fox's earth, ")
    assert heard["wolf"] == 'Owl passed on a rumour: "they say the poacher is back".'


@pytest.mark.parametrize(("groups", "field"), [
    ({"valley": [{"id": 1, "content": "", "subject": None, "kind": "system_knowledge",
                  "importance": 0.5, "added_at": "2025-01-01T00:00:00Z"}]}, "groups.valley.0.content"),
    ({"valley": [{"id": 1, "content": "x", "kind": "gossip", "importance": 0.5,
                  "added_at": "2025-01-01T00:00:00Z"}]}, "groups.valley.0.kind"),
    ({"valley": "the storm"}, "groups.valley"),
    ({"Not A Group!": []}, "groups.Not A Group!"),
])
def test_a_malformed_group_section_is_refused(world: Curator, tmp_path: Path, groups: Any,
                                              field: str) -> None:
    document = world.export_world() | {"groups": groups}
    with Curator(tmp_path / "copy.db") as copy:
        with pytest.raises(MalformedExport) as caught:
            copy.import_document(document)
        assert caught.value.field == field
        assert copy.world.character_ids() == []
