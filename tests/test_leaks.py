"""Nothing leaks (issue #18): over long transcripts, every memory of every character traces to a
turn it acted in, observed, or was told about (by one who knew it), or to a group it belongs
to; it holds a relationship (a summary, feelings) only with those such turns name; its context
and search results hold only its own memories.

The transcripts: the shipped forest story (fixtures/transcripts), the long valley session
(evals/cases/transcripts) and a synthetic session (evals/synthetic.py) into which gossip is
woven: every third turn, the actor tells one or two others about a turn it knows (seen or
heard), a memory it owns, or passes on a rumour; and a village shares what it knows.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from curator import Curator
from evals.synthetic import synthetic_turns

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = [ROOT / "fixtures" / "transcripts" / "two_animals.jsonl",
           ROOT / "evals" / "cases" / "transcripts" / "long_valley.jsonl"]


def all_memories(curator: Curator, owner: str) -> list[Any]:
    char = curator.character(owner)
    found = [*char.self_memories.recent_events, *char.self_memories.core_memories]
    for rel in char.relationships.values():
        found += [*rel.recent_memories, *rel.core_memories]
    return found + curator.archived(owner)


def every_memory(curator: Curator) -> int:
    """How many memories the world holds, live or archived (what a check must have covered)."""
    return sum(sum(curator.counts(c).values()) for c in curator.world.character_ids())


def gossiping_session(n: int = 240, characters: int = 8, seed: int = 7) -> list[dict[str, Any]]:
    """A synthetic session with tells; each tell names only what its teller can know at its turn."""
    rng = random.Random(seed)
    turns = synthetic_turns(n, characters, seed=seed)
    knows: dict[str, list[str]] = {}
    for number, turn in enumerate(turns):
        actor = turn["actor"]
        if number % 3 == 2 and knows.get(actor):
            pool = [c for c in {t["actor"] for t in turns} if c != actor]
            listeners = rng.sample(sorted(pool), rng.randint(1, 2))
            choice = rng.random()
            if choice < 0.15:
                turn["tells"] = [{"to": listeners, "says": "they say the old mill is haunted"}]
            else:
                turn["tells"] = [{"to": listeners, "about": rng.choice(knows[actor])}]
            for listener in listeners:
                if choice >= 0.15:
                    knows.setdefault(listener, []).append(turn["tells"][0]["about"])
        for who in [actor, *turn["observers"]]:
            knows.setdefault(who, []).append(turn["id"])
    return turns


def assert_nothing_leaks(curator: Curator, turns: list[dict[str, Any]],
                         members: dict[str, set[str]] | None = None) -> int:
    """Check every memory of every character; returns how many were checked."""
    by_id = {t["id"]: t for t in turns}
    perceived = {t["id"]: {t["actor"], *t.get("observers", [])} for t in turns}
    told: dict[str, set[str]] = {}  # turn id -> who was told something at it
    for t in turns:
        told[t["id"]] = {c for tell in t.get("tells") or [] for c in tell["to"]}
    known: dict[str, set[str]] = {}  # character -> turns it perceived or was told of, in order
    for t in turns:
        for who in perceived[t["id"]]:
            known.setdefault(who, set()).add(t["id"])
        for tell in t.get("tells") or []:
            about = tell.get("about")
            if about in by_id:
                assert about in known.get(t["actor"], set())  # the transcript is honest
                for listener in tell["to"]:
                    known.setdefault(listener, set()).add(about)
    for owner in curator.world.character_ids():  # nobody knows of one it never met nor heard of
        heard_at = [t["id"] for t in turns if owner in told[t["id"]]]
        named = {c for tid in [*known.get(owner, set()), *heard_at]
                 for c in (by_id[tid]["actor"], *by_id[tid].get("others", []),
                           *by_id[tid].get("observers", []))}
        named |= {str(i["subject"]) for g, who in (members or {}).items() if owner in who
                  for i in curator.group_knowledge(g) if i["subject"]}
        others = set(curator.character(owner).relationships)
        assert others <= named, (owner, others - named)
    checked = 0
    for owner in curator.world.character_ids():
        for memory in all_memories(curator, owner):
            checked += 1
            source = curator.provenance(memory.id)
            assert source is not None, (owner, memory.id, memory.content)
            where = (owner, memory.id, source)
            if source.origin == "shared":
                assert members is not None and owner in members[source.group or ""], where
                continue
            for turn_id in memory.source_turns:  # formed or reinforced at these turns
                assert owner in perceived[turn_id] or owner in told[turn_id], where
            if source.origin == "did":
                assert by_id[source.about or ""]["actor"] == owner, where
            elif source.origin == "witnessed":
                assert owner in by_id[source.about or ""].get("observers", []), where
            else:  # told or a rumour: at a turn it listened to, by that turn's actor
                assert source.told_in is not None and owner in told[source.told_in], where
                assert source.mouths[-1] == by_id[source.told_in]["actor"], where
                if source.about is not None:
                    assert source.about in known[owner], where
    return checked


def assert_recall_is_own(curator: Curator, situation: str) -> None:
    for owner in curator.world.character_ids():
        own = {m.id for m in all_memories(curator, owner)}
        context = curator.context(owner, situation, max_tokens=2000, peek=True)
        used = [i.key for i in [*context.items, *context.dropped]
                if i.section in ("core", "memory", "short_term")]
        assert set(used) <= own, owner
        for hit in curator.search(owner, situation, limit=20):
            assert hit.memory.owner == owner and hit.memory.id in own


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_shipped_transcripts_leak_nothing(tmp_path: Path, path: Path) -> None:
    turns = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    with Curator(tmp_path / "w.db") as curator:
        curator.observe_many(turns)
        assert assert_nothing_leaks(curator, turns) == every_memory(curator) > 50
        assert_recall_is_own(curator, "the wolf and the fox at the river")


def test_a_gossiping_session_leaks_nothing(tmp_path: Path) -> None:
    turns = gossiping_session()
    assert sum(1 for t in turns if t.get("tells")) > 50
    members = {"village": {"npc_001", "npc_002", "npc_003"}}
    with Curator(tmp_path / "w.db") as curator:
        curator.join_group("village", *sorted(members["village"]))
        curator.add_group_knowledge("village", "The great storm flooded the mill", importance=0.7)
        for turn in turns:
            curator.observe(turn)
        heard = [p for c in curator.world.character_ids() for p in curator.sources(c).values()
                 if p.origin in ("told", "rumour")]
        assert len(heard) > 50 and max(p.hops for p in heard) >= 2  # stories were retold
        assert assert_nothing_leaks(curator, turns, members) == every_memory(curator) > len(turns)
        assert_recall_is_own(curator, "the mill and the storm by the river")
        outsiders = set(curator.world.character_ids()) - members["village"]
        for owner in outsiders:  # the village's knowledge is the village's
            assert all("storm flooded" not in m.content for m in all_memories(curator, owner))
