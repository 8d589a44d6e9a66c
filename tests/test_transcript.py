"""The shipped story (fixtures/transcripts/two_animals.jsonl) ends as a reader expects.

Numbers in the test names refer to the "What a reader expects" list in
fixtures/transcripts/README.md.
"""

from __future__ import annotations

from typing import Any

import pytest

from curator import Curator, MemoryKind


@pytest.fixture(scope="module")
def story() -> dict[str, Any]:
    """Play the story once; keep each turn's result and bear's feelings after every turn."""
    from conftest import TRANSCRIPT

    world = Curator(":memory:")
    results, feelings = {}, {}
    for line in TRANSCRIPT.read_text().splitlines():
        result = world.observe(line)
        results[result.turn_id] = result
        bear = world.character("bear")
        feelings[result.turn_id] = {o: (r.current_sentiment, r.overall_bond)
                                    for o, r in bear.relationships.items()}
    yield {"world": world, "results": results, "feelings": feelings}
    world.close()


def _about(world: Curator, owner: str, other: str) -> list:
    character = world.character(owner)
    rel = character.relationships[other]
    archived = [m for m in world.archived(owner) if m.subject == other]
    return rel.recent_memories + rel.core_memories + archived


def test_1_bears_memories_of_wolf_overflow_the_window_and_are_archived(story) -> None:
    world = story["world"]
    wolf = world.character("bear").relationships["wolf"]
    assert len(wolf.recent_memories) == 10
    archived = [m for m in world.archived("bear") if m.subject == "wolf"]
    assert archived and all(m.archived_reason == "faded_from_recent" for m in archived)
    assert len(_about(world, "bear", "wolf")) > 10
    assert any(s.step == "fade_review" for r in story["results"].values() for s in r.steps
               if s.character == "bear")


def test_2_3_4_wolf_is_hostile_before_and_complicated_after_the_rescue(story) -> None:
    feelings = story["feelings"]
    assert feelings["t025"]["wolf"][0] < -0.3  # sentiment before the trap
    assert feelings["t035"]["wolf"][0] > feelings["t025"]["wolf"][0] + 0.5  # the rescue
    summary = story["world"].character("bear").relationships["wolf"].long_term_summary
    assert summary.startswith("Wolf is complicated")
    assert "protective" in summary and ("aggressive" in summary or "territorial" in summary)
    (conflict,) = [c for c in story["results"]["t035"].conflicts_resolved if c.owner == "bear"]
    assert conflict.other == "wolf"


def test_6_8_the_attack_and_the_rescue_are_core_and_survive_the_rest(story) -> None:
    bear = story["world"].character("bear")
    own_core = bear.self_memories.core_memories
    assert any("steel jaws snap shut on my hind leg" in m.content for m in own_core)
    assert all(m.importance >= 0.9 and m.strength == 1.0 for m in own_core)
    (rescue,) = bear.relationships["wolf"].core_memories
    assert rescue.kind is MemoryKind.KINDNESS and "hits the poacher" in rescue.content
    assert rescue.source_turns == ["t035"]


def test_7_the_poacher_is_feared(story) -> None:
    poacher = story["world"].character("bear").relationships["poacher"]
    assert poacher.current_sentiment <= -0.9 and poacher.overall_bond < 0
    assert poacher.core_memories and poacher.core_memories[0].kind is MemoryKind.DANGER
    assert "dangerous" in poacher.long_term_summary


def test_9_owl_remembers_the_attack_and_the_rescue_from_its_own_side(story) -> None:
    owl = story["world"].character("owl")
    seen = [m.content for m in owl.relationships["bear"].core_memories]
    assert any(c.startswith("I watch Bear: Steel jaws snap shut on Bear's hind leg") for c in seen)
    wolf_core = [m.content for m in owl.relationships["wolf"].core_memories]
    assert any("Wolf bursts out of the undergrowth" in c for c in wolf_core)
    trap = [m for m in _about(story["world"], "owl", "poacher") if m.source_turns == ["t030"]]
    assert trap and trap[0].content.startswith("I watch Poacher: Poacher buries the steel jaws")


def test_11_13_fox_is_liked_then_distrusted_after_the_betrayal(story) -> None:
    feelings = story["feelings"]
    assert feelings["t020"]["fox"][0] > 0.3
    assert feelings["t027"]["fox"][0] < -0.3
    assert feelings["t050"]["fox"][0] < 0
    fox = story["world"].character("bear").relationships["fox"]
    assert "deceitful" in fox.long_term_summary and "helpful" in fox.long_term_summary
    betrayal = [m for m in fox.recent_memories if m.kind is MemoryKind.BETRAYAL]
    assert betrayal and betrayal[0].emotional_impact == "betrayed"


def test_16_bear_meets_owl_at_t017(story) -> None:
    (meeting,) = [m for m in story["results"]["t017"].formed if m.owner == "bear"]
    assert meeting.kind == "encounter" and meeting.content.startswith("I meet Owl for the first time")
    assert "owl" not in story["feelings"]["t016"]


def test_19_quiet_turns_form_no_memory(story) -> None:
    for turn_id in ("t002", "t011", "t013", "t028", "t047"):
        assert story["results"][turn_id].formed == [], turn_id


def test_20_the_near_duplicate_reinforces(story) -> None:
    first, second = story["results"]["t008"], story["results"]["t009"]
    (formed,) = [m for m in first.formed if m.owner == "bear"]
    assert second.formed == [] and [m.memory_id for m in second.reinforced] == [formed.memory_id]


def test_21_22_repeated_failure_teaches_and_the_salmon_is_a_triumph(story) -> None:
    (first,) = story["results"]["t006"].formed
    assert first.kind == "failure" and story["results"]["t007"].formed == []
    # The second slip on the rocks reinforces the first instead of duplicating it; it becomes a lesson.
    (again,) = story["results"]["t007"].reinforced
    assert again.memory_id == first.memory_id and again.kind == "lesson_learned"
    (salmon,) = story["results"]["t031"].formed
    assert salmon.kind == "triumph" and salmon.importance >= 0.5
    assert "biggest salmon I have ever seen" in salmon.content


def test_every_turn_was_decided_by_the_fallback_with_its_reason(story) -> None:
    steps = [s for r in story["results"].values() for s in r.steps]
    assert steps and {(s.decided_by, s.reason) for s in steps} == {("fallback", "no model configured")}
