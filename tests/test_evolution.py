"""Evolution: attributes that drift with experience, trust and rapport, personality
snapshots, drift with reasons, the identity narrative, the cycle's report, the context's
identity layer, and "week 1 vs week 8"."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import CliRunner
from conftest import MODEL_BASE, TRANSCRIPT, chat

from curator import Curator
from curator.cli import cli
from curator.domain.config import CuratorConfig, EvolutionConfig
from curator.domain.errors import InvalidInput
from curator.domain.models import Memory, MemoryKind, Tier
from curator.evolution.identity import IdentityInput, TrustView, identity_narrative
from curator.evolution.personality import (
    AttributeChange,
    PersonalitySnapshot,
    attribute_words,
    defining_memories,
    derive_traits,
    detect_drift,
)
from curator.model.decision import MemoryView
from curator.model.llm import ModelSettings

START = datetime(2025, 3, 3, 8, 0, tzinfo=UTC)  # a Monday


class Story:
    """Builds turns for Bear day by day; `week(n)` is the world time at the end of week n."""

    def __init__(self) -> None:
        self.n = 0

    def turn(self, day: float, reality: str, *, action: str = "Go about my day",
             others: list[str] | None = None,
             outcome: dict[str, Any] | None = None, actor: str = "bear") -> dict[str, Any]:
        self.n += 1
        when = (START + timedelta(days=day)).isoformat()
        turn: dict[str, Any] = {"id": f"s{self.n:04d}", "world_time": when,
                                "actor": actor, "intent": {"action": action}, "reality": reality,
                                "others": others or []}
        if outcome:
            turn["outcome"] = outcome
        return turn

    @staticmethod
    def week(n: int) -> str:
        return (START + timedelta(days=7 * n - 0.01)).isoformat()


FAILURES = ["You slip on the wet rock and the trout gets away.",
            "The branch snaps under your weight and you tumble into the brambles empty-pawed.",
            "You dig all morning at the wrong stump; the grubs are somewhere else.",
            "The ice on the pond cracks and you scramble back to shore without a single fish."]


def kindness(story: Story, day: float) -> dict[str, Any]:
    return story.turn(day, "Fox trots up and shares its berries with you, then helps you carry your "
                           "fish home.",
                      action="Look for food", others=["fox"])


def failure(story: Story, day: float, text: str) -> dict[str, Any]:
    return story.turn(day, text, action="Catch something to eat", outcome={"result": "failed"})


def danger(story: Story, day: float) -> dict[str, Any]:
    return story.turn(day, "A rockslide crashes down the slope and a boulder slams into your side.",
                      action="Climb the slope", outcome={"danger": True, "harm": True})


def betrayal(story: Story, day: float) -> dict[str, Any]:
    return story.turn(day, "Fox tricks you: it swears it will guard your honey, then steals all of it "
                           "and laughs at you as a fool.", action="Ask Fox to guard my honey", others=["fox"])


def eight_weeks() -> list[tuple[int, list[dict[str, Any]]]]:
    """Week 1: Fox is kind. Weeks 2-8: failure after failure, rockslides, and Fox betrays Bear twice."""
    story = Story()
    weeks = [(1, [kindness(story, 1), kindness(story, 3),
                  story.turn(5, "You drink from the cold stream; nothing else happens.", action="Drink")])]
    for w in range(2, 9):
        base = 7 * (w - 1)
        turns = [failure(story, base + 1 + i, FAILURES[(w + i) % len(FAILURES)]) for i in range(3)]
        turns.append(danger(story, base + 4.5))
        if w in (3, 5):
            turns.append(betrayal(story, base + 5))
        weeks.append((w, turns))
    return weeks


@pytest.fixture
def evolved() -> Iterator[tuple[Curator, dict[int, Any]]]:
    """The eight weeks played, with a cycle at the end of each; the context Bear gets each week."""
    with Curator(":memory:") as world:
        contexts: dict[int, Any] = {}
        for week, turns in eight_weeks():
            for turn in turns:
                world.observe(turn)
            world.evolve(Story.week(week))
            contexts[week] = world.context("bear", "Fox offers to help with the fishing", with_=["fox"],
                                           peek=True)
        yield world, contexts


# -- the derivation rules (a personality snapshot from attributes, trust and memories) ---------

@pytest.mark.parametrize(("attrs", "rapport", "trust", "failures", "lessons", "expected"), [
    ({}, 0.5, 0.5, 0, 0, {"work_style": "balanced", "risk_tolerance": "balanced",
                          "social_orientation": "team_player", "learning_style": "by_doing",
                          "stress_response": "adapts"}),
    ({"thoroughness": 0.75, "speed": 0.3}, 0.5, 0.5, 0, 0, {"work_style": "methodical"}),
    ({"speed": 0.8, "thoroughness": 0.3}, 0.5, 0.5, 0, 0, {"work_style": "rapid"}),
    ({"creativity": 0.72}, 0.5, 0.5, 0, 0, {"work_style": "creative"}),
    ({"thoroughness": 0.65}, 0.5, 0.5, 0, 0, {"work_style": "thorough"}),
    ({"caution": 0.72}, 0.5, 0.5, 0, 0, {"risk_tolerance": "conservative", "stress_response": "retreats"}),
    ({"independence": 0.75, "caution": 0.35}, 0.5, 0.5, 0, 0,
     {"risk_tolerance": "bold", "social_orientation": "independent"}),
    ({"collaboration": 0.75}, 0.65, 0.5, 0, 0,
     {"social_orientation": "collaborative", "stress_response": "delegates"}),
    ({"collaboration": 0.75}, 0.55, 0.5, 0, 0, {"social_orientation": "team_player"}),  # rapport too low
    ({"collaboration": 0.4}, 0.5, 0.3, 0, 0, {"social_orientation": "guarded"}),
    ({"curiosity": 0.71}, 0.5, 0.5, 5, 0, {"learning_style": "by_studying"}),
    ({}, 0.5, 0.5, 3, 1, {"learning_style": "from_mistakes"}),
    ({"resilience": 0.8, "caution": 0.8}, 0.5, 0.5, 0, 0, {"stress_response": "doubles_down"}),
])
def test_traits_follow_the_seed_rules(attrs: dict[str, float], rapport: float, trust: float, failures: int,
                                      lessons: int, expected: dict[str, str]) -> None:
    traits = derive_traits(attrs, avg_rapport=rapport, avg_trust=trust, failures=failures, lessons=lessons)
    assert {k: traits[k] for k in expected} == expected


def memory(mid: str, importance: float, *, recalls: int = 0, strength: float = 1.0,
           tier: Tier = Tier.RECENT, kind: MemoryKind = MemoryKind.FAILURE) -> Memory:
    at = datetime(2025, 1, 1, tzinfo=UTC)
    return Memory(id=mid, owner="bear", content=f"memory {mid}", kind=kind, emotional_impact="sad",
                  valence=-0.5, importance=importance, tier=tier, strength=strength, recall_count=recalls,
                  last_recalled=at, created_at=at)


def test_defining_memories_weigh_importance_recall_and_strength_and_skip_inactive() -> None:
    found = defining_memories([memory("low", 0.3), memory("core", 0.95, tier=Tier.CORE),
                               memory("recalled", 0.6, recalls=10), memory("faded", 1.0, strength=0.1),
                               memory("plain", 0.6)])
    assert [m.id for m in found] == ["core", "recalled", "plain"]


def test_attributes_in_words() -> None:
    assert attribute_words({"caution": 0.8, "curiosity": 0.62, "collaboration": 0.3, "speed": 0.15,
                            "resilience": 0.5}) == ["far from quick", "very cautious", "not very cooperative",
                                                     "curious"]


def snapshot(**changes: Any) -> PersonalitySnapshot:
    base: dict[str, Any] = {"character": "bear", "world_time": "2025-01-01T00:00:00Z",
                            "work_style": "balanced", "risk_tolerance": "balanced",
                            "social_orientation": "team_player", "learning_style": "by_doing",
                            "stress_response": "adapts", "attributes": {"caution": 0.55}}
    return PersonalitySnapshot.model_validate({**base, **changes})


def test_drift_names_the_attribute_changes_and_their_memories() -> None:
    changes = [AttributeChange(character="bear", attribute="caution", delta=0.03, value_after=0.6,
                               memory_id="m1", reason="caution +0.030: 'I slipped off the rock' (failure)",
                               world_time="2025-01-08T00:00:00Z"),
               AttributeChange(character="bear", attribute="caution", delta=0.02, value_after=0.72,
                               memory_id="m2", reason="caution +0.020: 'A boulder hit me' (danger)",
                               world_time="2025-01-08T00:00:00Z"),
               AttributeChange(character="bear", attribute="curiosity", delta=0.01, value_after=0.51,
                               memory_id="m3", reason="curiosity +0.010: 'x' (watched)",
                               world_time="2025-01-08T00:00:00Z")]
    new = snapshot(risk_tolerance="conservative", stress_response="retreats", attributes={"caution": 0.72})
    assert detect_drift(new, None, changes) == []
    drifts = {d.trait: d for d in detect_drift(new, snapshot(), changes)}
    assert set(drifts) == {"risk_tolerance", "stress_response"}
    risk = drifts["risk_tolerance"]
    assert (risk.old, risk.new) == ("balanced", "conservative")
    assert risk.reason.startswith("caution 0.55 → 0.72 (+0.17 over 2 memories, most of all "
                                  "'I slipped off the rock' (failure)")
    assert "curiosity" not in risk.reason


def test_drift_cites_the_memories_that_pushed_the_way_it_went() -> None:
    def change(delta: float, memory: str, why: str) -> AttributeChange:
        return AttributeChange(character="deer", attribute="caution", delta=delta, value_after=0.7,
                               memory_id=memory, reason=f"caution {delta:+.3f}: '{memory}' ({why})",
                               world_time="2025-01-08T00:00:00Z")

    changes = [change(0.03, "the flood", "danger"), change(-0.05, "a lazy sunny day", "triumph"),
               change(0.03, "the lynx", "danger"), change(0.03, "the thorns", "betrayal")]
    new = snapshot(risk_tolerance="conservative", attributes={"caution": 0.74})
    (risk,) = [d for d in detect_drift(new, snapshot(), changes) if d.trait == "risk_tolerance"]
    assert "most of all 'the flood' (danger), 'the lynx' (danger)" in risk.reason
    assert "lazy" not in risk.reason  # the biggest single push, but it pulled the other way


def test_drift_names_an_attribute_first_moved_since_the_last_snapshot() -> None:
    # Independence had never moved (no value in the old snapshot); its small step is what
    # crossed 0.7 and made Bear independent, so the reason must name it.
    changes = [AttributeChange(character="bear", attribute="independence", delta=0.004, value_after=0.704,
                               memory_id="m1", reason="independence +0.004: 'I went alone' (triumph)",
                               world_time="2025-01-08T00:00:00Z")]
    new = snapshot(social_orientation="independent", attributes={"caution": 0.55, "independence": 0.704})
    [drift] = detect_drift(new, snapshot(), changes)
    assert drift.trait == "social_orientation"
    assert drift.reason.startswith("independence 0.700 → 0.704 (+0.004 over 1 memory, most of all "
                                   "'I went alone' (triumph))")


def identity(**changes: Any) -> IdentityInput:
    rescue = MemoryView(id="m9", subject="wolf", kind="kindness", content="Wolf pulled me out of the trap.",
                        emotional_impact="grateful", valence=0.9, importance=1.0, strength=1.0,
                        recall_count=0, created_at="2025-01-01T00:00:00Z")
    base: dict[str, Any] = {
        "owner": "bear", "persona": "", "work_style": "methodical", "risk_tolerance": "conservative",
        "social_orientation": "guarded", "learning_style": "from_mistakes", "stress_response": "retreats",
        "attributes": {"caution": 0.8}, "attribute_words": ["very cautious"], "defining": [rescue],
        "relations": [TrustView(other="wolf", trust=0.78, rapport=0.6, summary=""),
                      TrustView(other="owl", trust=0.5, rapport=0.5, summary=""),
                      TrustView(other="fox", trust=0.12, rapport=0.3, summary="")],
        "drift": [], "previous": ""}
    return IdentityInput.model_validate({**base, **changes})


def test_the_narrative_says_who_the_character_became() -> None:
    text = identity_narrative(identity()).narrative
    assert text.startswith("Bear works methodically")
    assert "errs on the side of caution" in text and "slow to trust" in text
    assert "Under pressure, Bear backs away to safety." in text and "learns the hard way" in text
    assert "By now Bear is very cautious." in text
    assert 'A formative experience: "Wolf pulled me out of the trap."' in text
    assert text.endswith("Bear trusts Wolf most (78%) and Fox least (12%).")
    bare = identity_narrative(identity(defining=[], attribute_words=[], relations=[])).narrative
    assert "formative" not in bare and "trusts" not in bare and "By now" not in bare


# -- the cycle ----------------------------------------------------------------------------------

def rows(world: Curator, table: str) -> int:
    return int(world.world.conn.execute(f"select count(*) from {table}").fetchone()[0])


def test_a_cycle_is_idempotent_at_one_world_time(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    counts = {t: rows(world, t) for t in ("attribute_changes", "personality_snapshots", "evolution_reports")}
    before = (world.attributes("bear"), world.personality("bear"))
    again = world.evolve()
    assert again.unchanged and again.report.startswith("# Evolution report")
    assert {t: rows(world, t) for t in counts} == counts
    assert (world.attributes("bear"), world.personality("bear")) == before


def test_steps_caps_and_bounds_hold(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    cfg = world.config.evolution
    changes = world.world.conn.execute(
        "select attribute, other, delta, value_after, world_time from attribute_changes").fetchall()
    assert changes
    per_cycle: dict[tuple[str, str | None, str], float] = {}
    for attribute, other, delta, after, when in changes:
        if other is None:
            assert abs(delta) <= cfg.max_step + 1e-9 and cfg.low <= after <= cfg.high
        else:
            assert abs(delta) <= cfg.relation_step * 8 + 1e-9 and 0.0 <= after <= 1.0
        per_cycle[(attribute, other, when)] = per_cycle.get((attribute, other, when), 0.0) + delta
    for (_attribute, other, _when), net in per_cycle.items():
        assert abs(net) <= (cfg.relation_cycle_cap if other else cfg.cycle_cap) + 1e-9
    assert all(cfg.low <= v <= cfg.high for v in world.attributes("bear").values())


def test_an_attribute_stops_at_its_bound() -> None:
    config = CuratorConfig(evolution=EvolutionConfig(cycle_cap=1.0, max_step=0.3, high=0.9))
    story = Story()
    with Curator(":memory:", config=config) as world:
        for day in range(30):
            world.observe(failure(story, day, FAILURES[day % 4] + f" (day {day})"))
        world.evolve()
        caution = world.attributes("bear")["caution"]
    assert 0.85 < caution <= 0.9


def test_every_change_is_traceable_to_a_memory(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    conn = world.world.conn
    ids = {r[0] for r in conn.execute("select id from memories union select id from memory_archive")}
    logged = conn.execute(
        "select memory_id, reason from attribute_changes where character = 'bear'").fetchall()
    assert logged and {m for m, _ in logged} <= ids
    for memory_id, reason in logged:
        content = conn.execute("select content from memories where id = ?1 union "
                               "select content from memory_archive where id = ?1", (memory_id,)).fetchone()[0]
        assert content[:40] in reason  # the reason quotes the memory that caused it


def test_trust_and_rapport_move_the_right_way(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    rows = world.world.conn.execute(
        "select memory_id, delta, reason from attribute_changes where other = 'fox' and attribute = 'trust' "
        "order by id").fetchall()
    reasons = [r[2] for r in rows]
    # The first kindness moves trust at its own turn; the cycle applies the rest of its pull.
    assert reasons[0].startswith("trust in Fox +") and reasons[0].endswith("(kindness, at the turn)")
    assert any(r.endswith("(kindness)") for r in reasons)
    # Each of the two betrayals hits hard, half at its turn and the rest at the cycle.
    at_turn = [r[1] for r in rows if r[2].endswith("(betrayal, at the turn)")]
    in_cycle = [r[1] for r in rows if r[2].endswith("(betrayal)")]
    assert len(at_turn) == 2 and len(in_cycle) == 2 and sum(at_turn + in_cycle) <= -0.3
    assert max(r[1] for r in rows if "(kindness" in r[2]) < 0.06
    fox = world.character("bear").relationships["fox"]
    assert fox.trust < 0.25 and fox.rapport < 0.5


def test_a_betrayal_shows_in_trust_at_its_turn() -> None:
    """No cycle needed: the turn that earns it moves trust, and the log says so."""
    with Curator(":memory:") as world:
        world.observe({"id": "k1", "world_time": "2025-05-01T08:00:00Z", "actor": "bear", "others": ["fox"],
                       "intent": {"thought": "Hungry", "action": "Look for food"},
                       "reality": "Fox trots up and shares its berries with you, then helps you find more."})
        kind = world.character("bear").relationships["fox"].trust
        world.observe({"id": "b1", "world_time": "2025-05-02T08:00:00Z", "actor": "bear", "others": ["fox"],
                       "intent": {"thought": "Rest", "action": "Sleep by my trout"},
                       "reality": "Fox betrays you: it eats the trout it promised to guard while you sleep "
                                  "and lies about it."})
        fox = world.character("bear").relationships["fox"]
    assert kind > 0.5 and fox.trust < kind - 0.1 and fox.rapport < 0.5


def test_export_and_import_keep_trust_and_rapport(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    document = world.export_character("bear")
    trust = world.character("bear").relationships["fox"].trust
    assert document["relationships"]["fox"]["trust"] == round(trust, 4)
    with Curator(":memory:") as other:
        other.import_document(document)
        fox = other.character("bear").relationships["fox"]
    assert (fox.trust, fox.rapport) == (document["relationships"]["fox"]["trust"],
                                        document["relationships"]["fox"]["rapport"])
    assert fox.trust < 0.25


def test_the_report_says_what_changed_and_why(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    stored = [r[0] for r in world.world.conn.execute("select report from evolution_reports order by id")]
    assert len(stored) == 8  # one a week
    (turned,) = [r for r in stored if "risk_tolerance: balanced → conservative" in r]
    bear = turned.split("## Bear\n", 1)[1].split("\n## ", 1)[0]
    assert "**Personality:** thorough / conservative / team_player" in bear
    assert "**Identity** (written by the fallback): Bear is thorough" in bear
    assert "- **Drift:** risk_tolerance: balanced → conservative (caution 0.6" in bear
    drift_line = next(line for line in bear.splitlines() if "risk_tolerance" in line)
    assert "most of all '" in drift_line and ("(failure)" in drift_line or "(danger)" in drift_line
                                              or "(lesson learned)" in drift_line)
    assert "**Attribute changes:**" in bear and "- caution 0.6" in bear and "[memory m_" in bear
    assert "**Active memories:** " in bear and " vivid)" in bear
    assert "**Defining experiences:**\n- " in bear
    assert "## Relationships\n\n- Bear → Fox: trust " in turned
    first = stored[0].split("## Bear\n", 1)[1]
    assert "**Drift:**" not in first and "collaboration +0.0" in first and "(kindness from Fox)" in first


def test_a_cycle_before_the_clock_is_refused(curator: Curator) -> None:
    curator.observe(Story().turn(1, "You drink from the stream.", action="Drink"))
    with pytest.raises(InvalidInput, match="before the world clock"):
        curator.evolve("2020-01-01T00:00:00Z")


# -- week 1 vs week 8 -----------------------------------------------------------------------

def test_week_8_differs_from_week_1_in_the_ways_the_weeks_earned(
        evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, contexts = evolved
    week1, week8 = contexts[1].text, contexts[8].text
    assert week1 != week8
    assert "Bear has no marked way yet" in week1  # nothing earned yet: one sentence says so
    # Failure after failure and the rockslides made Bear cautious, and says so.
    assert "Bear errs on the side of caution" in week8 and "very cautious" in week8
    assert "Under pressure, Bear backs away to safety." in week8
    assert "By now Bear is very cautious and thorough." in week8  # "once again…": lessons learned
    # Fox was kind in week 1 and betrayed Bear twice since.
    assert "You trust Fox well" in week1 or "You trust Fox somewhat" in week1
    assert "You trust Fox not at all" in week8
    assert "Bear distrusts Fox (" in week8 and "distrusts" not in week1
    # A defining memory of the hard weeks is named in who Bear is now.
    assert "A formative experience: " in week8
    formative = week8.split("A formative experience: ", 1)[1]
    assert formative.startswith(('"I am in danger: a rockslide', '"I trust Fox, but Fox tricks me'))
    assert "formative" not in week1 or "Fox trots up" in week1
    # What Bear has tried since: every hunt and climb went wrong, and the abilities layer says so.
    assert "## What you have practised" not in week1
    assert "  - catch: 21 tries, 0 went as you meant, 21 went wrong; it mostly goes wrong for you" in week8
    assert "  - climb: 7 tries, 0 went as you meant, 7 went wrong; it mostly goes wrong for you" in week8
    snap = world.personality("bear")
    assert snap is not None and snap.risk_tolerance == "conservative"
    drift = [s for s in world.world.conn.execute(
        "select risk_tolerance from personality_snapshots where character = 'bear' order by id")]
    assert drift[0] == ("balanced",) and drift[-1] == ("conservative",)


def test_layers_switch_parts_of_the_context(evolved: tuple[Curator, dict[int, Any]]) -> None:
    world, _ = evolved
    full = world.context("bear", "fishing", with_=["fox"], peek=True)
    only = world.context("bear", "fishing", with_=["fox"], peek=True, layers={"identity", "present"})
    without = world.context("bear", "fishing", with_=["fox"], peek=True, layers={"present", "memories"})
    assert "## Who you are now" in full.text and "## What comes to mind" in full.text
    assert {i.section for i in only.items} == {"identity", "present"}
    assert "## Who you are now" not in without.text and "### Fox" in without.text
    with pytest.raises(InvalidInput, match="unknown layer"):
        world.context("bear", layers={"voice"})


# -- the model writes the narrative ------------------------------------------------------------

def test_a_model_writes_the_narrative_and_garbage_falls_back(tmp_path: Path,
                                                            model_settings: ModelSettings) -> None:
    path = tmp_path / "world.db"
    with Curator(path) as world:
        for line in TRANSCRIPT.read_text().splitlines():
            world.observe(line)
    written = "Bear has grown wary of the river and of Fox, and trusts Wolf a little more since the trap."

    def respond(request: httpx.Request) -> httpx.Response:
        assert request.headers["x-curator-template"].startswith("identity.j2@")
        user = next(m["content"] for m in json.loads(request.content)["messages"] if m["role"] == "user")
        if user.startswith("The character: Bear."):
            return httpx.Response(200, json=chat(json.dumps({"narrative": written})))
        return httpx.Response(200, json=chat("not json at all"))

    with respx.mock() as router, Curator(path, model=model_settings) as world:
        router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=respond)
        report = world.evolve()
        bear, fox = world.personality("bear"), world.personality("fox")
    assert bear is not None and fox is not None
    assert (bear.identity_summary, bear.narrative_by) == (written, "model")
    assert fox.narrative_by == "fallback" and fox.identity_summary.startswith("Fox ")
    assert f"**Identity** (written by a model): {written}" in report.report
    assert {(s.character, s.decided_by) for s in report.steps} >= {("bear", "model"), ("fox", "fallback")}


# -- the command line ---------------------------------------------------------------------------

def test_cli_evolve_and_reports(tmp_path: Path) -> None:
    db = str(tmp_path / "world.db")
    runner = CliRunner()
    assert runner.invoke(cli, ["play", str(TRANSCRIPT), "--db", db]).exit_code == 0
    result = runner.invoke(cli, ["evolve", "--db", db])
    assert result.exit_code == 0 and result.stdout.startswith("# Evolution report\n")
    assert "## Bear" in result.stdout and "## Relationships" in result.stdout
    out = tmp_path / "week.md"
    result = runner.invoke(cli, ["evolve", "--out", str(out), "--db", db])
    assert result.exit_code == 0 and "nothing new since the last cycle" in result.stdout
    assert out.read_text().startswith("# Evolution report")
    play = tmp_path / "more.jsonl"
    play.write_text(json.dumps(Story().turn(30, "You slip on the wet rock and the trout gets away.",
                                            outcome={"result": "failed"})) + "\n")
    assert runner.invoke(cli, ["play", str(play), "--db", db]).exit_code == 0
    result = runner.invoke(cli, ["evolve", "--world-time", "2025-05-01T00:00:00Z", "--json", "--db", db])
    document = json.loads(result.stdout)
    assert document["world_time"] == "2025-05-01T00:00:00Z" and document["report"].startswith("# Evolution")
    # Only those who perceived the new turn are evolved; fox and wolf rest, counted (issue #17).
    assert {c["character"] for c in document["characters"]} == {"bear", "owl"}
    assert document["resting"] >= 2 and f"{document['resting']} other characters lived nothing new" \
        in document["report"]
    assert not document["unchanged"] and "caution +" in document["report"]
    listed = json.loads(runner.invoke(cli, ["evolution", "reports", "--json", "--db", db]).stdout)
    assert len(listed) == 2
    latest = runner.invoke(cli, ["evolution", "reports", "--latest", "--db", db])
    assert latest.stdout == listed[-1]["report"]
    bad = runner.invoke(cli, ["evolve", "--world-time", "2020-01-01", "--db", db])
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1 and "before the world clock" in bad.stderr
    context = runner.invoke(cli, ["context", "bear", "--layers", "identity", "--peek", "--db", db])
    assert context.stdout.startswith("# You are Bear\n\n## Who you are now\nBear ")
    empty = tmp_path / "empty.db"
    Curator(empty).close()  # a world with no cycle yet (a missing file is WorldNotFound)
    none = runner.invoke(cli, ["evolution", "reports", "--db", str(empty)])
    assert none.exit_code == 1 and "no evolution report yet" in none.stderr
