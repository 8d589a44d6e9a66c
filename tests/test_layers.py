"""The full prompt assembly: goals, abilities (practice) and state (mood) as context
layers beside persona, identity, blocks, present, memories; the goal review in a cycle's
report; the `goal` and `abilities` commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, get_args

import pytest
from click.testing import CliRunner

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidInput, MalformedExport, UnknownCharacter, UnknownGoal
from curator.domain.models import Gap, Memory, MemoryKind, Turn
from curator.evals import kinds as evalkinds
from curator.evolution.goals import progress_bar
from curator.evolution.mood import mood_of
from curator.evolution.practice import Ability, skill_of
from curator.recall.context import LAYERS, Section

START = datetime(2025, 5, 1, 8, 0, tzinfo=UTC)


def turn(n: int, action: str, reality: str, *, minutes: float = 0, actor: str = "bear",
         others: list[str] | None = None, result: str | None = None, domain: str | None = None,
         danger: bool | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"id": f"t{n:03d}", "world_time": (START + timedelta(minutes=minutes)).isoformat(),
                            "actor": actor, "intent": {"action": action}, "reality": reality,
                            "others": others or []}
    outcome = {k: v for k, v in (("result", result), ("danger", danger)) if v is not None}
    if outcome:
        data["outcome"] = outcome
    if domain:
        data["domain"] = domain
    return data


@pytest.fixture
def bear() -> Iterator[Curator]:
    """Bear fishes (mostly well), climbs (badly), walks about and meets Fox; a last hour that
    goes wrong twice."""
    with Curator(":memory:") as world:
        world.set_persona("bear", "You are Bear, a big brown bear of the valley.")
        n = 0
        for i in range(6):
            n += 1
            ok = i != 2
            world.observe(turn(n, "Fish at the river", "You catch a fat trout." if ok else
                               "The trout slips out of your paws and gets away.", minutes=60 * n,
                               result="succeeded" if ok else "failed"))
        for _ in range(3):
            n += 1
            world.observe(turn(n, "Try to climb the old oak", "The branch snaps and you tumble into the "
                               "brambles.", minutes=60 * n, result="failed"))
        for _ in range(4):
            n += 1
            world.observe(turn(n, "Walk along the bank", "You walk along the bank.", minutes=60 * n))
        n += 1
        world.observe(turn(n, "Share berries with Fox", "Fox trots up and shares its berries with you.",
                           others=["fox"],
                           minutes=60 * n))
        n += 1
        world.observe(turn(n, "Cross the frozen river", "The ice cracks under you and you plunge into the "
                           "freezing water, barely dragging yourself out alive.", minutes=60 * n + 30,
                           result="failed", danger=True))
        yield world


# -- the nine layers ---------------------------------------------------------------------------

def test_the_full_assembly_holds_every_layer_in_seed_order(bear: Curator) -> None:
    bear.goals.set("bear", "honey", "Find a beehive Fox cannot reach", progress=0.4)
    bear.blocks.create("bear", "current_state", "Hungry after the long winter.")
    bear.evolve()
    ctx = bear.context("bear", "Fox offers to go fishing together", with_=["fox"], peek=True,
                       max_tokens=4000)
    headers = ["# You are Bear", "You are Bear, a big brown bear", "## Who you are now",
               "## What you have practised", "### current_state", "## How you feel", "## Right now",
               "## Who is here", "## What comes to mind", "## What you are working toward"]
    positions = [ctx.text.index(h) for h in headers]
    assert positions == sorted(positions), ctx.text
    sections = {i.section for i in ctx.items}
    assert {"persona", "identity", "ability", "block", "state", "immediate", "present", "memory",
            "goal"} <= sections
    assert set(LAYERS) == {"persona", "identity", "abilities", "blocks", "state", "immediate", "present",
                           "core", "memories", "short_term", "passages", "goals"}


def test_eval_checks_name_exactly_the_contexts_sections() -> None:
    # evalkinds keeps its own copy of the section names so loading a case stays light.
    assert get_args(evalkinds.Section) == get_args(Section)


def test_each_new_layer_is_switched_on_and_off(bear: Curator) -> None:
    bear.goals.set("bear", "honey", "Find a beehive Fox cannot reach")
    only = bear.context("bear", "What now?", peek=True, layers={"abilities", "state", "goals"})
    assert {i.section for i in only.items} == {"ability", "state", "goal"}
    without = bear.context("bear", "What now?", peek=True, layers={"memories", "present"})
    for header in ("## What you have practised", "## How you feel", "## What you are working toward"):
        assert header in only.text and header not in without.text


def test_a_short_budget_drops_memories_before_goals_state_and_abilities(bear: Curator) -> None:
    bear.goals.set("bear", "honey", "Find a beehive Fox cannot reach")
    ctx = bear.context("bear", "fishing", peek=True, max_tokens=200)
    kept = {i.section for i in ctx.items}
    assert {"goal", "state"} <= kept
    assert any(d.section == "memory" for d in ctx.dropped)


# -- abilities ----------------------------------------------------------------------------------

def test_abilities_come_from_what_the_character_tried(bear: Curator) -> None:
    found = {a.skill: a for a in bear.abilities("bear")}
    assert (found["fish"].attempts, found["fish"].went_as_meant, found["fish"].went_wrong) == (6, 5, 1)
    assert found["fish"].verdict == "you are good at it"
    assert (found["climb"].attempts, found["climb"].went_wrong) == (3, 3)  # "try to" skipped
    assert found["climb"].verdict == "it mostly goes wrong for you"
    assert "walk" not in found and "share" not in found  # an everyday act, and one that never went wrong
    assert "share" in {a.skill for a in bear.abilities("bear", habits=True)}
    ctx = bear.context("bear", "fishing", peek=True, layers={"abilities"})
    assert "  - fish: 6 tries, 5 went as you meant, 1 went wrong; you are good at it" in ctx.text
    assert "  - climb: 3 tries, 0 went as you meant, 3 went wrong; it mostly goes wrong for you" in ctx.text
    assert "cross" not in ctx.text  # one try is under min_attempts


def test_a_redelivered_turn_is_not_counted_twice(bear: Curator) -> None:
    before = {a.skill: a.attempts for a in bear.abilities("bear")}
    again = bear.observe(turn(1, "Fish at the river", "You catch a fat trout.", minutes=60,
                              result="succeeded"))
    assert again.duplicate
    assert {a.skill: a.attempts for a in bear.abilities("bear")} == before


def test_the_games_domain_names_the_skill_and_observers_practise_nothing() -> None:
    with Curator(":memory:") as world:
        data = turn(1, "Swing at the wolf", "Your paw sweeps the wolf off its feet.", domain=" Brawling ",
                    others=["wolf"], result="succeeded")
        data["observers"] = ["owl"]
        world.observe(data)
        assert [(a.skill, a.named) for a in world.abilities("bear")] == [("brawling", True)]
        assert world.abilities("owl") == []


@pytest.mark.parametrize(("action", "skill"), [
    ("Climb the old oak", "climb"), ("Try to climb the old oak", "climb"),
    ("carefully cross the ice", "cross"), ("Sleep in the den", None), ("Go back to the bushes", None),
    ("Look for food", None), ("Dig for roots", "dig"),
    # No verb, no skill (not "the"); a first-person intent names its verb.
    ("the overnight log", None), ("I'll swim the herd across", "swim")])
def test_skill_of_an_intent(action: str, skill: str | None) -> None:
    found = skill_of(Turn.model_validate(turn(1, action, "It happens.")))
    assert (found[0] if found else None) == skill


@pytest.mark.parametrize(("good", "bad", "tries", "verdict"), [
    (5, 0, 5, "you are good at it"), (2, 0, 2, "it has gone well so far"), (7, 3, 10, "it mostly goes well"),
    (0, 4, 5, "it mostly goes wrong for you"), (2, 2, 5, "it often goes wrong for you"),
    (0, 1, 7, "it seldom goes quite as you meant"), (2, 1, 5, "it goes either way")])
def test_the_verdict_of_a_record(good: int, bad: int, tries: int, verdict: str) -> None:
    ability = Ability(skill="fish", attempts=tries, went_as_meant=good, went_wrong=bad, last_at=START)
    assert ability.verdict == verdict


# -- state (mood) -------------------------------------------------------------------------------

def memory(n: int, valence: float, *, hours_ago: float, importance: float = 0.6,
           kind: MemoryKind = MemoryKind.ENCOUNTER) -> Memory:
    when = START - timedelta(hours=hours_ago)
    return Memory(id=f"m{n}", owner="bear", content=f"memory {n}", kind=kind, emotional_impact="",
                  valence=valence, importance=importance, last_recalled=when, created_at=when)


def test_mood_weighs_the_last_hours_and_names_what_went_well_and_badly() -> None:
    glad = mood_of([memory(1, 0.8, hours_ago=1), memory(2, 0.6, hours_ago=3)], START, 12)
    assert glad is not None and glad.word == "glad" and (glad.good, glad.bad) == (2, 0)
    assert glad.sentence() == "You feel glad: in the last 12 hours 2 things went well."
    uneasy = mood_of([memory(1, -0.5, hours_ago=1), memory(2, -0.4, hours_ago=2),
                      memory(3, 0.5, hours_ago=11), memory(4, 0.9, hours_ago=30)],  # the last: too old
                     START, 12)
    assert uneasy is not None and uneasy.word == "uneasy" and (uneasy.good, uneasy.bad) == (1, 2)
    assert uneasy.sentence() == "You feel uneasy: in the last 12 hours 2 things went badly and 1 went well."
    assert mood_of([memory(1, 0.9, hours_ago=13)], START, 12) is None
    assert mood_of([memory(1, 0.9, hours_ago=1)], START, 0) is None


def test_a_serious_danger_leaves_a_character_shaken() -> None:
    shaken = mood_of([memory(1, -0.3, hours_ago=1, kind=MemoryKind.DANGER), memory(2, 0.4, hours_ago=2)],
                     START, 12)
    assert shaken is not None and shaken.word == "shaken" and shaken.danger
    later = mood_of([memory(1, -0.3, hours_ago=5, kind=MemoryKind.DANGER), memory(2, 0.4, hours_ago=2)],
                    START, 12)  # five hours on, it is past
    assert later is not None and later.word == "steady" and not later.danger


def test_the_mood_in_the_context_follows_the_last_hours(bear: Curator) -> None:
    mood = bear.mood("bear")
    assert mood is not None and mood.word == "shaken"  # the ice cracked half an hour ago
    ctx = bear.context("bear", "What now?", peek=True, layers={"state"})
    assert f"## How you feel\n{mood.sentence()}" in ctx.text
    bear.observe(turn(99, "Rest in the den", "You rest.", minutes=60 * 40))  # a day and more later
    assert bear.mood("bear") is None


# -- goals --------------------------------------------------------------------------------------

def test_goals_are_set_moved_closed_and_logged(bear: Curator) -> None:
    goals = bear.goals
    goals.set("Bear", "honey", "Find a beehive Fox cannot reach", progress=0.2, priority=2)
    goals.set("bear", "winter", "Fatten up before the winter sleep")
    assert goals.advance("bear", "honey", 0.5, note="found the oak").progress == pytest.approx(0.7)
    assert goals.advance("bear", "honey", -1.0).progress == 0.0  # kept within 0..1
    assert [g.label for g in goals.list("bear")] == ["honey", "winter"]  # priority first
    done = goals.complete("bear", "winter")
    assert (done.status, done.progress, done.done_at is not None) == ("done", 1.0, True)
    assert [g.label for g in goals.list("bear")] == ["honey"]
    assert [g.label for g in goals.list("bear", include_closed=True)] == ["honey", "winter"]
    assert goals.abandon("bear", "honey").status == "abandoned"
    reopened = goals.set("bear", "honey", progress=0.1)
    assert reopened.status == "active"
    assert [(s.progress, s.note) for s in goals.history("bear", "honey")] == [
        (0.2, "set"), (0.7, "found the oak"), (0.0, ""), (0.0, "abandoned"), (0.1, "")]
    goals.delete("bear", "honey")
    with pytest.raises(UnknownGoal, match="its goals: winter"):
        goals.get("bear", "honey")


@pytest.mark.parametrize(("call", "field"), [
    (lambda g: g.set("bear", "honey", ""), "description"),
    (lambda g: g.set("bear", "honey", "x", progress=1.5), "progress"),
    (lambda g: g.set("bear", "honey", "x", priority=True), "priority"),
    (lambda g: g.set("bear", "Not A Label!", "x"), "label"),
    (lambda g: g.set("bear", "honey", "x", note="n" * 501), "note"),
])
def test_bad_goal_input_is_refused_with_its_field(bear: Curator, call: Any, field: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        call(bear.goals)
    assert caught.value.field == field
    assert bear.goals.list("bear", include_closed=True) == []  # nothing written


def test_a_goal_needs_a_known_character_and_a_description_to_start(bear: Curator) -> None:
    with pytest.raises(UnknownCharacter):
        bear.goals.set("badger", "dig", "Dig a new sett")
    with pytest.raises(UnknownGoal, match="create it with a description"):
        bear.goals.set("bear", "honey", progress=0.5)


def test_the_context_shows_the_active_goals_highest_priority_first(bear: Curator) -> None:
    for i, label in enumerate(["a", "b", "c", "d"]):
        bear.goals.set("bear", label, f"Goal {label}", progress=0.25 * i, priority=i)
    bear.goals.complete("bear", "d")
    ctx = bear.context("bear", "What now?", peek=True, layers={"goals"})
    assert ctx.text.split("## What you are working toward\n")[1] == (
        "  - Goal c (50% done)\n  - Goal b (25% done)\n  - Goal a (0% done)\n")


def test_a_cycle_reviews_goals_with_what_moved_and_what_bears_on_them(bear: Curator) -> None:
    bear.goals.set("bear", "fish", "Catch trout at the river", progress=0.2)
    bear.goals.set("bear", "ice", "Learn to cross the frozen river", progress=0.0)
    first = bear.evolve()
    bear_section = first.report.split("## Bear", 1)[1]
    assert "**Goal:** Catch trout at the river ██░░░░░░░░ 20% (new)" in bear_section
    assert "  - bears on it: I try to fish at the river, but the trout slips" in bear_section
    review = {g.label: g for g in next(c for c in first.characters if c.character == "bear").goals}
    assert review["ice"].evidence == []  # the ice memory does not say "cross" or "frozen river"
    bear.goals.advance("bear", "fish", 0.3)
    bear.goals.abandon("bear", "ice")
    second = bear.evolve()  # no new turns; the goals moved, so a new report is stored
    assert not second.unchanged
    assert "**Goal:** Catch trout at the river █████░░░░░ 50% (+30%)" in second.report
    assert "Learn to cross the frozen river ░░░░░░░░░░ 0% (+0%, abandoned)" in second.report
    third = bear.evolve()
    assert third.unchanged and third.id == second.id  # nothing moved since


def test_export_and_import_carry_goals_and_practice(bear: Curator) -> None:
    bear.goals.set("bear", "honey", "Find a beehive Fox cannot reach", progress=0.3, note="start")
    document = bear.export_world()
    with Curator(":memory:") as fresh:
        fresh.import_document(document)
        assert fresh.goals.history("bear", "honey") == bear.goals.history("bear", "honey")
        assert fresh.abilities("bear", habits=True) == bear.abilities("bear", habits=True)
        assert fresh.export_world()["characters"] == document["characters"]
        fresh.goals.advance("bear", "honey", 0.1)
        moved = fresh.evolve()  # the cycle the export carried reviewed nothing of this goal yet
        assert "Find a beehive Fox cannot reach ████░░░░░░ 40% (new)" in moved.report


def test_a_malformed_goal_or_tally_names_its_field(bear: Curator) -> None:
    bear.goals.set("bear", "honey", "Find a beehive")
    document = bear.export_character("bear")
    document["goals"][0]["progress"] = 4
    document["practice"][0]["went_wrong"] = 99
    with Curator(":memory:") as fresh, pytest.raises(MalformedExport) as caught:
        fresh.import_document(document)
    assert caught.value.field == "goals.0.progress"
    del document["goals"]
    with Curator(":memory:") as fresh, pytest.raises(MalformedExport) as caught:
        fresh.import_document(document)
    assert caught.value.field == "practice.0"


def test_deleting_a_character_deletes_its_goals_and_practice(bear: Curator) -> None:
    bear.goals.set("bear", "honey", "Find a beehive")
    removed = bear.delete_character("bear")
    assert removed["goals"] == 1 and removed["goal_history"] == 1 and removed["practice"] >= 3


def test_progress_bar() -> None:
    assert progress_bar(0.0) == "░" * 10 and progress_bar(1.0) == "█" * 10
    assert progress_bar(0.3) == "███░░░░░░░"


# -- the command line ---------------------------------------------------------------------------

def test_cli_goals_and_abilities(tmp_path: Path) -> None:
    db = str(tmp_path / "world.db")
    with Curator(db) as world:
        for n in range(1, 4):
            world.observe(turn(n, "Climb the oak", "The branch snaps.", minutes=n, result="failed"))
    runner = CliRunner()

    def run(*args: str) -> Any:
        result = runner.invoke(cli, [*args, "--db", db])
        return result

    made = run("goal", "set", "bear", "honey", "Find a beehive", "--progress", "0.2", "--priority", "1")
    assert made.exit_code == 0 and made.output == "honey: Find a beehive ██░░░░░░░░ 20% (priority 1)\n"
    assert run("goal", "advance", "bear", "honey", "0.3", "--note", "the oak").output.startswith(
        "honey: Find a beehive █████░░░░░ 50%")
    assert run("goal", "done", "bear", "honey").output.endswith("100% (priority 1) [done]\n")
    listed = run("goal", "list", "bear", "--all", "--json")
    assert json.loads(listed.output)[0]["status"] == "done"
    assert run("goal", "list", "bear").output == "Bear has no active goals.\n"
    history = run("goal", "history", "bear", "honey").output.splitlines()
    assert [line.split()[-1] for line in history] == ["set", "oak", "done"]
    bad = run("goal", "set", "bear", "honey", "--progress", "3")
    assert bad.exit_code == 2 and "progress" in bad.output
    missing = run("goal", "set", "bear", "nope")
    assert missing.exit_code == 1 and "has no goal 'nope'" in missing.output
    assert run("abilities", "bear").output == (
        "climb: 3 tries, 0 went as meant, 3 went wrong; it mostly goes wrong for you\n")
    assert json.loads(run("abilities", "bear", "--json").output)[0]["went_wrong"] == 3
    shown = run("show", "bear").output
    assert "  goal honey: Find a beehive ██████████ 100% [done]\n" in shown
    assert "  practised: climb 0/3 as meant, 3 wrong\n" in shown
    assert run("goal", "delete", "bear", "honey").exit_code == 0
    assert run("goal", "list", "bear", "--all").output == "Bear has no goals.\n"


def test_gap_readings_count_as_meant_wrong_or_neither() -> None:
    with Curator(":memory:") as world:
        for n, result in enumerate(["succeeded", "helped", "failed", "blocked", "thwarted", "mixed",
                                    "surprised"], start=1):
            assert Gap(result)
            world.observe(turn(n, "Dig for roots", "You dig.", minutes=n, result=result))
        (dig,) = world.abilities("bear")
        assert (dig.attempts, dig.went_as_meant, dig.went_wrong) == (7, 2, 3)
