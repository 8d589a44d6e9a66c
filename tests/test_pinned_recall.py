"""Recall's score, part by part, as a mutation run (scripts/mutation.sh) found it unpinned: a
recent memory's strength faded to now, the task's domain, episodes, list questions, "how long"
and "how many" cues, the recall refresh, where each memory came from, search's limit."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from conftest import TurnFactory
from test_pinned import START, _ranked

from curator import Curator, MemoryKind, Tier
from curator.domain.fading import faded_strength
from curator.recall.index import Facts
from curator.recall.query import read_query
from curator.recall.ranking import Recalled, rank, refresh_recalled
from curator.recall.relevance import _cue, _episodes, _spread


def test_recall_scores_a_recent_memory_by_its_strength_faded_to_now(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"]))
        held = world.character("bear").relationships["wolf"].recent_memories[0]
        later = held.created_at + timedelta(days=10)
        found = _ranked(world, [], later)["wolf"]
    faded = faded_strength(held, held.created_at, later)
    assert faded < 0.9
    assert (found.parts.strength, found.parts.core) == (round(faded, 4), 0.0)
    assert (found.memory.strength, found.memory.strength_at) == (faded, later)


def test_memories_of_the_tasks_domain_are_candidates_and_score_the_domain_weight(
        make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf snaps at you and drives you off the river bank.", others=["wolf"],
                                domain="fishing"))
        world.observe(make_turn("Fox snaps at you and drives you off the river bank.", others=["fox"]))
        recall, now = world.config.recall, world.world.clock()

        def ranked(domain: str | None) -> dict[str | None, Recalled]:
            found = rank(world.world, "bear", read_query("a quiet evening"), config=recall,
                         weights=recall.weights, present=[], now=now, limit=10, domain=domain)
            return {r.memory.subject: r for r in found}

        fishing, blank = ranked("Fishing"), ranked("  ")
    assert list(fishing) == ["wolf"] and fishing["wolf"].sources == ["domain"]
    assert fishing["wolf"].parts.domain == 1.0 and blank == {}
    w, p = recall.weights, fishing["wolf"].parts
    assert fishing["wolf"].score == pytest.approx(
        w.relevance * p.relevance + w.recency * p.recency + w.strength * p.strength
        + w.importance * p.importance + w.core * p.core + w.present * p.present + w.domain * p.domain,
        abs=1e-4)


def _facts(seq: int, minutes: float, content: str = "I fished at the river.") -> Facts:
    at = START + timedelta(minutes=minutes)
    return Facts(seq=seq, subject=None, content=content, kind=MemoryKind.ENCOUNTER, valence=0.0,
                 importance=0.5, tier=Tier.RECENT, strength=1.0, strength_at=at, recall_count=0,
                 last_recalled=at, created_at=at)


def test_an_episode_ends_after_a_gap_longer_than_the_episode_gap() -> None:
    gap = 60 * 60.0
    # Out of seq order in game time; a gap of exactly an hour is still the same episode.
    facts = {5: _facts(5, 0), 3: _facts(3, 60), 9: _facts(9, 121), 7: _facts(7, 121), 8: _facts(8, 300)}
    assert _episodes(facts, gap) == {5: 0, 3: 0, 7: 1, 9: 1, 8: 2}


def test_a_list_question_keeps_an_episodes_best_two_and_turns_down_the_rest() -> None:
    raw = {1: 0.5, 2: 0.9, 3: 0.7, 4: 0.6, 5: 0.2}
    spread = _spread(raw, {1: 0, 2: 0, 3: 0, 4: 0, 5: 1})
    assert spread == {2: 0.9, 3: 0.7, 4: pytest.approx(0.6 * 0.75), 1: pytest.approx(0.5 * 0.75 ** 2),
                      5: 0.2}


@pytest.mark.parametrize(("question", "content", "cue"), [
    ("How long did Bear stay at the river?", "I stayed at the river for two hours.", 0.5),
    ("How long did Bear stay at the river?", "I stayed at the river with Wolf.", 0.0),
    ("How many fish did Bear catch?", "I caught three fish.", 0.5),
    ("How many fish did Bear catch?", "I caught fish.", 0.0),
    ("Where did Bear fish?", "I fished for two hours, three times.", 0.0),
])
def test_a_how_long_or_how_many_question_lifts_a_memory_holding_its_answer(question: str, content: str,
                                                                            cue: float) -> None:
    assert _cue(read_query(question), content, 0.5) == cue


def test_recall_refreshes_a_recent_memory_from_its_faded_strength(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf steals your fish at the river.", others=["wolf"],
                                world_time="2025-01-01T08:00:00Z"))
        memory = world.character("bear").relationships["wolf"].recent_memories[0]
        later = memory.created_at + timedelta(days=7)
        faded = faded_strength(memory, memory.created_at, later)
        with world.world.transaction() as tx:
            refresh_recalled(tx, [memory], later)
        after = world.character("bear").relationships["wolf"].recent_memories[0]
    assert faded < 0.9
    assert after.strength == pytest.approx(faded + 0.15, abs=1e-6)
    assert (after.strength_at, after.last_recalled, after.recall_count) == (later, later, 1)


def test_recall_says_where_each_memory_came_from(played: tuple[Curator, Any]) -> None:
    """A memory whose words match is a "match", one formed beside a match a "neighbour", one
    linked to a match in the memory network a "link"; `hop=0` follows no links."""
    world, _ = played
    recall = world.config.recall

    def ranked(hop: float | None) -> list[Recalled]:
        return rank(world.world, "bear", read_query("steel trap"), config=recall, weights=recall.weights,
                    present=[], now=world.world.clock(), limit=30, hop=hop)

    found = ranked(None)
    by_source = {s: [r for r in found if s in r.sources] for s in ("match", "neighbour", "link")}
    assert all(by_source.values())
    for r in found:
        assert ("match" in r.sources) == (r.parts.matched == 1.0)
    assert all(any(w in r.memory.content.lower() for w in ("steel", "trap")) for r in by_source["match"])
    assert not [r for r in ranked(0.0) if "link" in r.sources]


def test_search_counts_core_memories_within_its_limit(played: tuple[Curator, Any]) -> None:
    world, _ = played
    found = world.search("bear", "steel trap", limit=2)
    assert len(found) == 2 and all(r.memory.tier is Tier.CORE for r in found)
