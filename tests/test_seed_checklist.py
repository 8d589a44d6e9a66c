"""The evolution system's testing checklist, item by item: where each is tested, and the items no other
file covers (relevance by domain, the memory count over a long session)."""

from __future__ import annotations

import importlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from curator import Curator

ROOT = Path(__file__).resolve().parent.parent
LONG_VALLEY = ROOT / "evals" / "cases" / "transcripts" / "long_valley.jsonl"

# The checklist's items, each with the tests that hold it (module::function).
CHECKLIST: dict[str, list[str]] = {
    "Significant events form memories (above threshold)":
        ["test_pipeline::test_significant_event_forms_a_memory_and_creates_characters"],
    "Insignificant events don't form memories":
        ["test_pipeline::test_insignificant_event_forms_no_memory_but_updates_immediate_context",
         "test_fallback::test_quiet_turn_is_not_significant"],
    "Duplicate events reinforce existing memories instead of duplicating":
        ["test_pipeline::test_a_repeat_reinforces_instead_of_duplicating",
         "test_transcript::test_20_the_near_duplicate_reinforces"],
    "Memories fade over time (daily decay rate)": ["test_pipeline::test_fading_rates_follow_seed_000"],
    "Recalled memories refresh (fading increases)":
        ["test_pipeline::test_recall_refreshes_a_memory",
         "test_recall::test_recall_refresh_adds_strength_to_a_faded_memory"],
    "Forgotten memories (fading <= 0) get archived":
        ["test_pipeline::test_time_fading_archives_forgotten_memories_and_spares_core"],
    "Failure memories fade slowest, personality moments almost never fade":
        ["test_pipeline::test_fading_rates_follow_seed_000"],
    "Memory injection: top 10 most relevant selected for current task":
        ["test_recall::test_a_memory_that_matches_the_situation_ranks_first",
         "test_recall::test_context_is_never_over_budget_and_keeps_the_most_valuable"],
    "Relevance scoring: domain match > intent match > recency":
        ["test_seed_checklist::test_a_domain_match_outranks_an_intent_match_which_outranks_recency"],
    "Personality snapshot computed correctly from skills + attributes + memories":
        ["test_evolution::test_traits_follow_the_seed_rules",
         "test_evolution::test_defining_memories_weigh_importance_recall_and_strength_and_skip_inactive"],
    "Personality drift detected when traits change between snapshots":
        ["test_evolution::test_drift_names_the_attribute_changes_and_their_memories",
         "test_evolution::test_drift_names_an_attribute_first_moved_since_the_last_snapshot"],
    "Identity narrative generates readable, accurate self-description":
        ["test_evolution::test_the_narrative_says_who_the_character_became",
         "test_evolution::test_a_model_writes_the_narrative_and_garbage_falls_back"],
    "Full prompt assembly includes all 9 layers":
        ["test_layers::test_the_full_assembly_holds_every_layer_in_seed_order",
         "test_layers::test_each_new_layer_is_switched_on_and_off"],
    "Weekly evolution report accurate and readable":
        ["test_evolution::test_the_report_says_what_changed_and_why",
         "test_layers::test_a_cycle_reviews_goals_with_what_moved_and_what_bears_on_them"],
    "Week 1 agent prompt != Week 8 agent prompt (growth visible)":
        ["test_evolution::test_week_8_differs_from_week_1_in_the_ways_the_weeks_earned"],
    "Memory count manageable (<100 active per agent)":
        ["test_seed_checklist::test_active_memories_stay_under_100_per_character_over_a_long_session"],
    "Archive preserves forgotten memories for analysis":
        ["test_recall::test_archived_memories_stay_searchable",
         "test_transcript::test_1_bears_memories_of_wolf_overflow_the_window_and_are_archived"],
}


@pytest.mark.parametrize("item", sorted(CHECKLIST))
def test_every_checklist_item_names_tests_that_exist(item: str) -> None:
    for name in CHECKLIST[item]:
        module, function = name.split("::")
        assert callable(getattr(importlib.import_module(module), function, None)), f"{item}: {name} is gone"


def test_a_domain_match_outranks_an_intent_match_which_outranks_recency() -> None:
    start = datetime(2025, 6, 1, 8, 0, tzinfo=UTC)

    def turn(n: int, hours: float, action: str, reality: str, domain: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"id": f"t{n}", "world_time": (start + timedelta(hours=hours)).isoformat(),
                                "actor": "bear", "intent": {"action": action}, "reality": reality,
                                "outcome": {"result": "failed", "importance": 0.7}}
        if domain:
            data["domain"] = domain
        return data

    with Curator(":memory:") as world:
        world.observe(turn(1, 0, "Go about my day", "The old log bridge gives way under me.", "Crossing"))
        world.observe(turn(2, 1, "Cross the stream", "The stones wobble and I turn back, wet to the knees."))
        world.observe(turn(3, 2, "Dig for grubs", "The ground is frozen hard and I find nothing."))
        task = "cross the stream"

        def first(**kwargs: Any) -> list[str]:
            return [r.memory.source_turns[0] for r in world.search("bear", task, limit=3, **kwargs)]

        assert first()[0] == "t2"  # the intent's words beat the newest memory (t3)
        assert first(domain="crossing")[0] == "t1"  # the task's domain, as the game filed it, beats both
        found = world.search("bear", "cross the stream", limit=3, domain="crossing")
        assert [r.parts.domain for r in found] == [1.0, 0.0, 0.0] and "domain" in found[0].sources
        ctx = world.context("bear", task, domain="crossing", peek=True)
        memories = [i for i in ctx.items if i.section in ("memory", "short_term")]
        assert "log bridge" in ctx.text and memories


def test_active_memories_stay_under_100_per_character_over_a_long_session() -> None:
    turns = [json.loads(line) for line in LONG_VALLEY.read_text().splitlines() if line.strip()]
    assert len(turns) >= 200
    with Curator(":memory:") as world:
        for i, data in enumerate(turns, start=1):
            world.observe(data)
            if i % 60 == 0:
                world.evolve()
        world.evolve()
        active: dict[str, int] = {}
        for character in world.characters():
            whole = world.character(character)
            memories = [*whole.self_memories.recent_events, *whole.self_memories.core_memories]
            for rel in whole.relationships.values():
                assert len(rel.recent_memories) <= world.config.recent_limit
                memories += [*rel.recent_memories, *rel.core_memories]
            active[character] = sum(1 for m in memories if m.is_active)
        assert max(active.values()) < 100, active
        assert active["bear"] >= 15  # a busy character: the bound is not met by having nothing
