"""The turn flow (immediate, recent, summary, core) and the memory rules (formation, dedup,
fading), through the public API."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conftest import TurnFactory

from curator import Curator, CuratorConfig, MemoryKind, Tier
from curator.domain.fading import RECALL_REFRESH, daily_rate, faded_strength, refresh
from curator.domain.models import Memory

BLOCK = "Wolf emerges from the reeds and blocks your path to the river, growling."


HOSTILE = [
    "Wolf emerges from the reeds and claims your fishing spot, baring his teeth.",
    "Wolf snaps at your flank until you give up the sunny clearing.",
    "Wolf darts in and snatches the trout you just caught.",
    "Wolf plants himself on the ford and growls until you turn back.",
    "Wolf chases you off the ridge, snarling at your heels.",
    "Wolf guards the berry bushes and bares his teeth at you.",
    "Wolf steals the honeycomb you left by the hollow log.",
    "Wolf blocks the deer trail and refuses to let you pass.",
    "Wolf charges out of the ferns and drives you away from the pool.",
    "Wolf shoves you off the flat rock into the cold water.",
    "Wolf threatens you with a low snarl when you approach the falls.",
    "Wolf corners you against the cliff and attacks your shoulder.",
]


def _wolf_turns(make_turn: TurnFactory, n: int) -> list[dict]:
    return [make_turn(HOSTILE[i], others=["wolf"], action=f"Go about my day, part {i}")
            for i in range(n)]


def test_significant_event_forms_a_memory_and_creates_characters(curator, make_turn) -> None:
    result = curator.observe(make_turn(BLOCK, others=["wolf"], observers=["owl"]))
    assert sorted(result.created_characters) == ["bear", "owl", "wolf"]
    assert {(m.owner, m.subject, m.kind) for m in result.formed} >= {
        ("bear", "wolf", "conflict"), ("owl", "bear", "witnessed")}
    assert all(s.decided_by == "fallback" and s.reason == "no model configured" for s in result.steps)
    bear = curator.character("bear")
    assert bear.relationships["wolf"].recent_memories[0].content.startswith("I mean to head to the")
    assert bear.relationships["wolf"].immediate_context.startswith("Wolf emerges")


def test_insignificant_event_forms_no_memory_but_updates_immediate_context(curator, make_turn) -> None:
    result = curator.observe(make_turn("You doze on the flat rock. Nothing disturbs you.",
                                       action="Nap in the sun"))
    assert result.formed == []
    assert result.skipped and result.skipped[0].importance < result.skipped[0].threshold
    assert curator.character("bear").self_memories.immediate_context.startswith("I doze on the flat rock")


def test_a_repeat_reinforces_instead_of_duplicating(curator, make_turn) -> None:
    first = curator.observe(make_turn("Wolf growls low at you near the berry bushes.",
                                      others=["wolf"], day=1.0))
    curator.fade("2025-01-02T12:00:00Z")  # let it weaken a little first
    second = curator.observe(make_turn("Wolf growls low at you near the berry bushes again.",
                                       others=["wolf"], day=1.6))
    assert len(first.formed) == 1 and second.formed == []
    (reinforced,) = second.reinforced
    assert reinforced.memory_id == first.formed[0].memory_id
    memories = curator.character("bear").relationships["wolf"].recent_memories
    assert len(memories) == 1
    assert memories[0].recall_count == 1
    assert memories[0].source_turns == ["t0001", "t0002"]


def test_the_store_reads_back_what_a_turn_meant_and_what_happened(curator, make_turn) -> None:
    # (dedup compares the turns behind two memories: World.turn_texts)
    growl = "Wolf growls low at you near the berry bushes."
    curator.observe(make_turn(growl, action="Pick berries", others=["wolf"]))
    assert curator.world.turn_texts("t0001") == ("Pick berries", growl)
    assert curator.world.turn_texts("t9999") is None


def test_the_eleventh_memory_pushes_the_oldest_out_through_a_fade_review(curator, make_turn) -> None:
    results = [curator.observe(t) for t in _wolf_turns(make_turn, 11)]
    about_wolf = [[m for m in r.formed if m.subject == "wolf"] for r in results]
    assert all(len(formed) == 1 for formed in about_wolf)  # eleven different events
    last = results[-1]
    (archived,) = last.archived
    assert archived.memory_id == about_wolf[0][0].memory_id
    assert any(s.step == "fade_review" for s in last.steps)
    wolf = curator.character("bear").relationships["wolf"]
    assert len(wolf.recent_memories) == 10
    kept = curator.archived("bear")
    assert [m.id for m in kept] == [archived.memory_id]  # archived, never deleted
    assert kept[0].archived_reason == "faded_from_recent" and kept[0].tier is Tier.ARCHIVED
    # The pattern of eleven hostile turns is now the long-term summary.
    assert "aggressive" in wolf.long_term_summary or "territorial" in wolf.long_term_summary


def test_core_promotion_and_what_happens_at_the_cap(make_turn) -> None:
    with Curator(":memory:", config=CuratorConfig(core_cap=2)) as world:
        rescues = ["Wolf drags you out of the flood and saves your life.",
                   "Wolf fights off the bear-hunters' dogs and frees you from the net.",
                   "Wolf pulls you from the burning thicket and shelters you in his den."]

        def extreme(text: str, importance: float) -> dict:
            return make_turn(text, others=["wolf"], outcome={"importance": importance})
        def about_wolf(changes: list) -> list:
            return [c for c in changes if c.subject == "wolf"]
        promoted = [about_wolf(world.observe(extreme(t, i)).promoted)
                    for t, i in zip(rescues, (0.92, 0.95), strict=False)]
        assert all(len(p) == 1 for p in promoted)
        weaker = world.observe(extreme(rescues[2], 0.91))  # not above the weakest: stays recent
        assert about_wolf(weaker.promoted) == [] and about_wolf(weaker.demoted) == []
        stronger = world.observe(make_turn("Wolf shields you from the poacher's bullet and saves you.",
                                           others=["wolf"], outcome={"importance": 0.99}))
        assert len(about_wolf(stronger.promoted)) == 1
        (demoted,) = about_wolf(stronger.demoted)
        assert demoted.memory_id == promoted[0][0].memory_id
        wolf = world.character("bear").relationships["wolf"]
        assert sorted(m.importance for m in wolf.core_memories) == [0.95, 0.99]
        assert any(m.archived_reason == "superseded_core" for m in world.archived("bear"))


def test_contradiction_is_reconciled_and_the_bond_moves(curator, make_turn) -> None:
    for turn in _wolf_turns(make_turn, 11):
        curator.observe(turn)
    before = curator.character("bear").relationships["wolf"]
    rescue = curator.observe(make_turn(
        "A poacher's rifle cracks. Wolf leaps between you and the poacher and drives him off.",
        others=["wolf", "poacher"], outcome={"danger": True}))
    (conflict,) = [c for c in rescue.conflicts_resolved if c.other == "wolf"]
    after = curator.character("bear").relationships["wolf"]
    assert after.long_term_summary == conflict.summary
    assert after.long_term_summary.startswith("Wolf is complicated")
    assert "protective" in after.long_term_summary and "aggressive" in after.long_term_summary
    assert after.overall_bond > before.overall_bond
    assert after.current_sentiment > before.current_sentiment


def test_sentiment_moves_fast_and_bond_slow(curator, make_turn) -> None:
    curator.observe(make_turn("Fox leads you to a hidden blackberry patch and shares it.",
                              others=["fox"]))
    fox = curator.character("bear").relationships["fox"]
    assert fox.current_sentiment > 0.3
    assert 0 < fox.overall_bond < fox.current_sentiment / 3


def test_observers_remember_the_same_event_from_their_side(curator, make_turn) -> None:
    result = curator.observe(make_turn(BLOCK, others=["wolf"], observers=["owl", "fox"]))
    for observer in ("owl", "fox"):
        memory = next(m for m in result.formed if m.owner == observer and m.subject == "bear")
        assert memory.content.startswith("I watch Bear: Wolf emerges")
        assert "my path" not in memory.content and "Bear's path" in memory.content


def test_episode_end_consolidates_into_the_summary(make_turn) -> None:
    with Curator(":memory:", config=CuratorConfig(episode_keep_recent=3)) as world:
        for turn in _wolf_turns(make_turn, 6):
            world.observe(turn)
        world.observe(make_turn("Wolf shares his deer kill with you and guards you while you eat.",
                                others=["wolf"], outcome={"importance": 0.85}))
        changes = world.end_episode("bear", with_="wolf")
        (summary,) = changes.summaries_revised
        assert summary.step == "consolidate" and summary.other == "wolf"
        wolf = world.character("bear").relationships["wolf"]
        assert wolf.long_term_summary == summary.summary
        assert [m.importance for m in wolf.core_memories] == [0.85]  # chosen at episode end
        assert len(wolf.recent_memories) == 3
        reasons = {m.archived_reason for m in world.archived("bear")}
        assert reasons == {"consolidated"}


def _memory(kind: MemoryKind, importance: float = 0.5, recall_count: int = 0) -> Memory:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    return Memory(id="m", owner="bear", content="x", kind=kind, emotional_impact="calm", valence=0.0,
                  importance=importance, last_recalled=start, created_at=start,
                  recall_count=recall_count)


def test_fading_rates_follow_seed_000() -> None:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    later = start + timedelta(days=10)
    strength = {k: faded_strength(_memory(k), start, later) for k in MemoryKind}
    assert strength[MemoryKind.FAILURE] > strength[MemoryKind.RELATIONSHIP_EVENT]  # scars stick
    assert strength[MemoryKind.PERSONALITY_MOMENT] == max(strength.values())  # almost never fades
    assert faded_strength(_memory(MemoryKind.CONFLICT, importance=1.0), start, later) > \
        faded_strength(_memory(MemoryKind.CONFLICT, importance=0.0), start, later)
    assert faded_strength(_memory(MemoryKind.CONFLICT, recall_count=6), start, later) > \
        faded_strength(_memory(MemoryKind.CONFLICT), start, later)
    core = _memory(MemoryKind.CONFLICT)
    core.tier = Tier.CORE
    assert faded_strength(core, start, start + timedelta(days=1000)) == 1.0


def test_recall_refreshes_a_memory() -> None:
    memory = _memory(MemoryKind.CONFLICT)
    memory.strength = 0.5
    when = datetime(2025, 2, 1, tzinfo=UTC)
    refresh(memory, when)
    assert (memory.strength, memory.recall_count, memory.last_recalled) == (0.5 + RECALL_REFRESH, 1, when)


def test_time_fading_archives_forgotten_memories_and_spares_core(curator, make_turn) -> None:
    curator.observe(make_turn(BLOCK, others=["wolf"]))
    curator.observe(make_turn("Steel jaws snap shut on your leg; blood soaks the leaves.",
                              action="Walk the game trail"))
    wolf_memory = curator.character("bear").relationships["wolf"].recent_memories[0]
    days_to_faint = 0.9 / daily_rate(wolf_memory)  # strength 1.0 → 0.1
    faint_at = wolf_memory.created_at + timedelta(days=days_to_faint)
    mid = curator.fade(faint_at.isoformat())
    assert mid.forgotten == []
    faint = curator.character("bear").relationships["wolf"].recent_memories[0]
    assert 0.0 < faint.strength < 0.2 and not faint.is_active  # kept, but inactive
    gone = curator.fade((faint_at + timedelta(days=30)).isoformat())
    assert [m.memory_id for m in gone.forgotten] == [wolf_memory.id]
    assert curator.archived("bear")[0].archived_reason == "forgotten"
    assert [m.strength for m in curator.character("bear").self_memories.core_memories] == [1.0]
