"""Recall and context assembly: scoring, the token budget, the recall refresh, search."""

from __future__ import annotations

from typing import Any

import pytest

from curator import Curator, CuratorConfig, InvalidInput, Tier, UnknownCharacter
from curator.domain.config import RecallConfig, RecallWeights
from curator.model.tokens import count_tokens
from curator.recall.query import name_candidates, read_query


def _rows(curator: Curator) -> list[tuple[Any, ...]]:
    conn = curator.world.conn
    return (conn.execute("select * from memories order by seq").fetchall()
            + conn.execute("select * from memory_archive order by seq").fetchall())


def test_query_reading_finds_names_words_dates_and_what_is_wanted() -> None:
    q = read_query("When did Old Oak tell Wolf about the grand opening on 3 May, 2023?",
                   ["old_oak", "wolf"])
    assert q.names == ["old_oak", "wolf"]
    assert "grand" in q.terms and "opening" in q.terms and "tell" not in q.terms
    candidates = set(name_candidates("Old Oak told Wolf's grand opening"))
    assert {"old_oak", "wolf", "grand", "opening"} <= candidates
    assert q.wants_time and str(q.dates[0][0]) == str(q.dates[0][1]) == "2023-05-03"
    month = read_query("What did she do in May, 2023?").dates[0]
    assert [str(d) for d in month] == ["2023-05-01", "2023-05-31"]
    assert read_query("How many fish?").wants_number and read_query("how long ago").wants_duration
    # Hostile text is quoted into a safe FTS5 expression.
    assert read_query('AND( " * NEAR(x').fts() == 'text : ("near")'
    assert read_query("the of a").fts() is None


def test_a_memory_that_matches_the_situation_ranks_first(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    found = curator.search("bear", "steel trap chain", limit=3)
    assert "steel" in found[0].memory.content or "trap" in found[0].memory.content
    assert found[0].parts.matched == 1.0
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)


def test_score_parts_add_up_with_the_configured_weights(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    weights = curator.config.recall.search_weights
    for r in curator.search("bear", "wolf river fish", limit=10, with_=["wolf"]):
        p = r.parts
        total = (weights.relevance * p.relevance + weights.recency * p.recency + weights.strength * p.strength
                 + weights.importance * p.importance + weights.core * p.core + weights.present * p.present)
        assert r.score == pytest.approx(total, abs=1e-3)
        assert 0.0 <= p.relevance <= 1.0 and 0.0 <= p.recency <= 1.0


def test_weights_are_configuration(transcript_turns: list[dict[str, Any]]) -> None:
    """Importance alone ranks by importance; relevance alone by the match."""
    def top(weights: RecallWeights) -> list[float]:
        config = CuratorConfig(recall=RecallConfig(search_weights=weights))
        with Curator(":memory:", config=config) as curator:
            for turn in transcript_turns:
                curator.observe(turn)
            return [r.memory.importance for r in curator.search("bear", "fish rock river", limit=8)]
    only_importance = top(RecallWeights(relevance=0, recency=0, strength=0, importance=1, core=0, present=0))
    assert only_importance == sorted(only_importance, reverse=True)
    only_relevance = top(RecallWeights(relevance=1, recency=0, strength=0, importance=0, core=0, present=0))
    assert only_relevance != only_importance


def test_archived_memories_stay_searchable(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    archived = curator.archived("bear")
    assert archived
    words = " ".join(archived[0].content.split()[3:9])
    found = curator.search("bear", words, limit=5)
    assert archived[0].id in [r.memory.id for r in found]
    assert next(r for r in found if r.memory.id == archived[0].id).memory.tier is Tier.ARCHIVED


@pytest.mark.parametrize("query", ['"', "AND(", "*", "", "   ", "NEAR(a b)", "wolf OR", "ü ö ä",
                                   "'; drop table"])
def test_search_takes_any_text(played: tuple[Curator, Any], query: str) -> None:
    curator, _ = played
    assert isinstance(curator.search("bear", query), list)


def test_core_and_present_characters_are_weighted_up(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    ctx = curator.context("bear", "a quiet morning", with_=["wolf"], max_tokens=4000, peek=True)
    core = [i for i in ctx.items if i.section == "core"]
    assert core and all(i.score and i.score["core"] == 1.0 for i in core)
    memories = [i for i in ctx.items if i.section == "memory"]
    assert memories and any(i.score and i.score["present"] == 1.0 for i in memories)
    assert "## Who is here" in ctx.text and "### Wolf" in ctx.text


BUDGETS = [40, 60, 120, 250, 500, 1000, 4000]


@pytest.mark.parametrize("budget", BUDGETS)
def test_context_is_never_over_budget_and_keeps_the_most_valuable(played: tuple[Curator, Any],
                                                                  budget: int) -> None:
    curator, _ = played
    curator.set_persona("bear", "A big brown bear who fishes the river and trusts nobody.")
    ctx = curator.context("bear", "Wolf is at the river again", with_=["wolf", "owl"], max_tokens=budget,
                          peek=True)
    assert ctx.tokens == count_tokens(ctx.text) <= budget
    assert {i.key for i in ctx.items}.isdisjoint(i.key for i in ctx.dropped if i.section == "memory")
    kept_values = [i.value for i in ctx.items]
    for dropped in ctx.dropped:  # dropped for value, or because it did not fit what was left
        assert not kept_values or dropped.value <= max(kept_values)
        assert dropped.reason.startswith("dropped: over budget")
        if dropped.section in ("memory", "core", "short_term"):
            # Never half a memory either (a summary may quote one, so look for its line).
            assert "] " + dropped.fields["content"] not in ctx.text
    for item in ctx.items:
        if item.section in ("memory", "core"):
            assert "] " + item.fields["content"] in ctx.text
    if any(i.section == "persona" for i in ctx.dropped):
        assert not [i for i in ctx.items if i.value < 1000]  # the persona goes last


def test_budget_priorities_persona_then_scene_then_memories(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    curator.set_persona("bear", "A big brown bear.")
    small = curator.context("bear", "the river", with_=["wolf"], max_tokens=200, peek=True)
    large = curator.context("bear", "the river", with_=["wolf"], max_tokens=3000, peek=True)
    assert [i.section for i in small.items][:1] == ["persona"]
    assert (len(large.items) > len(small.items) and not large.dropped) or large.tokens > small.tokens
    small_keys = {i.key for i in small.items}
    assert small_keys <= {i.key for i in large.items}  # more budget only adds


def test_a_budget_smaller_than_the_header_is_refused(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    with pytest.raises(InvalidInput, match="max_tokens"):
        curator.context("bear", "x", max_tokens=2)


def test_context_recalls_what_it_used_and_peek_changes_nothing(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    before = _rows(curator)
    peeked = curator.context("bear", "wolf river fish", with_=["wolf"], peek=True)
    assert _rows(curator) == before and peeked.recalled == [] and peeked.peek
    ctx = curator.context("bear", "wolf river fish", with_=["wolf"])
    assert ctx.recalled and set(ctx.recalled) == {i.key for i in ctx.items
                                                  if i.section in ("core", "memory", "short_term")}
    clock = curator.clock()
    old = {row[0]: row for row in before}
    conn = curator.world.conn
    for memory_id in ctx.recalled:
        row = conn.execute("select recall_count, last_recalled, strength, tier from memories where id = ? "
                           "union all select recall_count, last_recalled, strength, tier from memory_archive "
                           "where id = ?", (memory_id, memory_id)).fetchone()
        was = old[memory_id]
        assert row[0] == was[12] + 1  # recall count
        assert row[1] == clock.isoformat().replace("+00:00", "Z")  # game time, not the wall clock
        assert row[2] >= min(1.0, was[10]) - 0.5 and row[2] <= 1.0


def test_recall_refresh_adds_strength_to_a_faded_memory(make_turn: Any) -> None:
    with Curator(":memory:") as curator:
        curator.observe(make_turn("Wolf steals your fish at the river.", others=["wolf"],
                                  world_time="2025-01-01T08:00:00Z"))
        curator.fade(until="2025-01-08T08:00:00Z")
        memory = curator.character("bear").relationships["wolf"].recent_memories[0]
        ctx = curator.context("bear", "fish stolen at the river", with_=["wolf"])
        assert memory.id in ctx.recalled
        after = curator.character("bear").relationships["wolf"].recent_memories[0]
        assert after.recall_count == memory.recall_count + 1
        assert after.strength == pytest.approx(min(1.0, memory.strength + 0.15), abs=1e-6)


def test_unknown_characters(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    with pytest.raises(UnknownCharacter):
        curator.context("dragon", "hello")
    with pytest.raises(UnknownCharacter):
        curator.search("dragon", "hello")
    ctx = curator.context("bear", "a stranger arrives", with_=["dragon"], peek=True)
    assert "You have not met Dragon before." in ctx.text


def test_context_of_a_character_with_no_memories(curator: Curator, make_turn: Any) -> None:
    curator.observe(make_turn("You wake up by the river.", actor="fox"))
    ctx = curator.context("fox", "", max_tokens=300)
    assert ctx.text.startswith("# You are Fox") and ctx.tokens <= 300


def test_short_term_window_holds_the_last_stretch_of_game_time(make_turn: Any) -> None:
    with Curator(":memory:") as curator:
        curator.observe(make_turn("Wolf growls at you by the river.", others=["wolf"],
                                  world_time="2025-01-01T08:00:00Z"))
        curator.observe(make_turn("Wolf chases you off the rock and bites your paw.", others=["wolf"],
                                  world_time="2025-01-03T08:00:00Z"))
        curator.observe(make_turn("Wolf steals your fish and laughs at you.", others=["wolf"],
                                  world_time="2025-01-03T08:20:00Z"))
        ctx = curator.context("bear", "", max_tokens=2000, peek=True)
        window = [i for i in ctx.items if i.section == "short_term"]
        assert len(window) == 2  # the two turns of the last hour, not the one of two days ago
        assert "## Lately" in ctx.text and "20 minutes ago" in ctx.text


@pytest.mark.parametrize(("question", "wants_list"), [
    ("What activities does Melanie do with her family?", True),
    ("Which cities has Jon visited?", True),
    ("What do Caroline and Melanie both like?", True),
    ("What do they have in common?", True),
    ("How many children does she have?", True),
    ("What is Caroline's identity?", False),
    ("What was the name of the dog?", False),
    ("When did she go camping?", False),
    ("What class does he take?", False),
])
def test_a_question_after_several_answers_is_read_as_a_list(question: str, wants_list: bool) -> None:
    assert read_query(question).wants_list is wants_list


def test_list_questions_spread_the_top_over_episodes() -> None:
    from curator.recall.relevance import EPISODE_DECAY, _spread

    # Episode 0 holds the four best matches, episode 1 a weaker one.
    raw = {1: 1.0, 2: 0.95, 3: 0.9, 4: 0.85, 10: 0.7}
    episodes = {1: 0, 2: 0, 3: 0, 4: 0, 10: 1}
    spread = _spread(raw, episodes)
    assert spread[1] == 1.0 and spread[2] == 0.95  # an episode's best two keep their scores
    assert spread[3] == pytest.approx(0.9 * EPISODE_DECAY)
    assert spread[4] == pytest.approx(0.85 * EPISODE_DECAY ** 2)
    assert sorted(spread, key=lambda s: -spread[s])[:3] == [1, 2, 10]  # the other episode moves up


def test_quoted_speech_about_the_speaker_lends_and_speech_to_the_hearer_costs() -> None:
    from curator.recall.relevance import ADDRESS_WEIGHT, SELF_WEIGHT, _speech

    assert _speech('I watched Mel: Mel says to Caro: "I painted a horse last week."') == SELF_WEIGHT
    assert _speech('Mel says to Caro: \u201cMy kids loved the beach.\u201d') == SELF_WEIGHT
    assert _speech('Mel says to Caro: "How was your trip?"') == -ADDRESS_WEIGHT
    assert _speech('Mel says to Caro: "I hope you liked it."') == pytest.approx(SELF_WEIGHT - ADDRESS_WEIGHT)
    # The memory's own "I" is its owner's: without quoted speech nothing is lent.
    assert _speech("I saw Mel paint a horse by the lake.") == 0.0
    assert _speech('Mel says: "The US team won."') == 0.0  # "US" the country is not "us"
