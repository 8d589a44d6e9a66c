"""The judgement eval: stories load (or are refused naming the field), each perceiver's reading
is scored field by field against the gold, the fallback and a model are printed side by side,
and the shipped stories hold what their README promises."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT

from curator import CaseError, TurnReading
from curator.cli import cli
from curator.evals.judge import FIELDS, Gold, JudgeReport, judge, load_stories, load_story, predicted, score
from curator.evals.modes import FallbackMode

JUDGE = ROOT / "evals" / "judge"

STORY: dict[str, Any] = {
    "genre": "tavern", "about": "a test story",
    "characters": {"ada": "the innkeeper", "bo": "a regular", "cy": "a stranger"},
    "turns": [
        {"id": "tv1", "split": "dev", "world_time": "2025-03-01T20:00:00Z", "actor": "ada",
         "intent": {"thought": "Busy night", "action": "Carry the ale to the tables"},
         "reality": "Bo snatches the tray from your hands and throws it at the wall.",
         "others": ["bo"], "observers": ["cy"],
         "gold": {"ada": {"gap": "thwarted", "harmed": ["bo"], "valence": {"bo": "negative", "cy": "neutral"},
                          "significance": "medium"},
                  "cy": {"gap": "thwarted", "harmed": ["bo"], "valence": {"ada": "neutral", "bo": "negative"},
                         "significance": "low"}}},
        {"id": "tv2", "split": "test", "world_time": "2025-03-01T23:00:00Z", "actor": "ada",
         "intent": {"thought": "Nearly done", "action": "Wipe the bar"},
         "reality": "You wipe the bar as every night.",
         "gold": {"ada": {"gap": "succeeded", "significance": "low", "insignificant": True}}},
    ]}


def write(tmp_path: Path, story: dict[str, Any]) -> Path:
    path = tmp_path / "tavern.yaml"
    path.write_text(yaml.safe_dump(story))
    return path


def test_a_story_plays_and_every_reading_is_scored(tmp_path: Path) -> None:
    [story] = load_stories([write(tmp_path, STORY)])
    assert story.name == "judge_tavern"
    report = judge([story], FallbackMode())
    assert report.readings == 3 and report.decided_by_model == 0 and not report.errors
    counts = report.summary()["counts"]
    assert counts["gap"]["total"] == 3 and counts["valence"]["total"] == 4  # one per (perceiver, other)
    assert set(report.accuracy()) == {*FIELDS, "overall"}
    test_only = judge([story], FallbackMode(), split="test")
    assert test_only.readings == 1


def test_scoring_compares_each_field() -> None:
    gold = Gold.model_validate({"gap": "thwarted", "harmed": ["bo"], "significance": "high", "core": True,
                                "valence": {"bo": "negative", "cy": "neutral"}})
    right = TurnReading(character="ada", gap="thwarted", significance="defining", harmed=["bo"],
                        feelings={"bo": "negative"})
    report = JudgeReport(mode="t", split="all", stories=[])
    score(report, "s", "t1", gold, right)
    assert report.misses == [] and all(report.fields[f].right == report.fields[f].total for f in FIELDS)
    wrong = right.model_copy(update={"gap": "blocked", "significance": "notable", "harmed": [],
                                     "feelings": {"bo": "positive"}})
    score(report, "s", "t2", gold, wrong)
    missed = {m.field for m in report.misses}
    assert missed == {"gap", "harmed", "valence", "significance", "core"}
    assert predicted(wrong)["significance"] == "medium" and predicted(right)["core"] is True


@pytest.mark.parametrize(("change", "field"), [
    (lambda s: s["turns"][0].pop("gold"), "turns.0.gold"),
    (lambda s: s["turns"][0]["gold"].pop("cy"), "turns.0.gold"),
    (lambda s: s["turns"][0]["gold"]["ada"].update(gap="won"), "turns.0.gold.ada.gap"),
    (lambda s: s["turns"][1].update(world_time="yesterday"), "turns.1.world_time"),
])
def test_a_malformed_story_names_the_field(tmp_path: Path, change: Any, field: str) -> None:
    story = json.loads(json.dumps(STORY))
    change(story)
    with pytest.raises(CaseError) as raised:
        load_story(write(tmp_path, story))
    assert raised.value.field == field


def test_the_command_prints_the_fields_and_json(tmp_path: Path) -> None:
    path = write(tmp_path, STORY)
    runner = CliRunner()
    text = runner.invoke(cli, ["eval", "judge", str(path)])
    assert text.exit_code == 0, text.output
    assert "fallback" in text.output and all(f in text.output for f in FIELDS)
    as_json = runner.invoke(cli, ["eval", "judge", str(path), "--json", "--misses"])
    document = json.loads(as_json.output)
    assert set(document) == {"fallback"} and "misses" in document["fallback"]
    bad = runner.invoke(cli, ["eval", "judge", str(path), "--record", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "--record is for --mode live" in bad.output


def test_the_shipped_stories_are_what_their_readme_promises() -> None:
    stories = load_stories([JUDGE])
    readings = [(t, who, g) for s in stories for t in s.turns for who, g in t.gold.items()]
    assert len({t.id for t, _, _ in readings}) >= 120
    # the first six: tuned on their dev turns, about a third held out
    split = [s for s in stories if any(t.split == "dev" for t in s.turns)]
    assert len(split) >= 5 and all(len(s.turns) >= 25 for s in split)
    held_out = sum(t.split == "test" for s in split for t in s.turns)
    assert 0.25 <= held_out / sum(len(s.turns) for s in split) <= 0.4
    # the four fresh sets, written after all tuning: every turn held out
    fresh = {s.name for s in stories if s not in split}
    assert fresh == {"judge_pirates", "judge_kitchen", "judge_expedition", "judge_heist", "judge_dungeon",
                     "judge_hospital", "judge_circus", "judge_school", "judge_rescue", "judge_caravan",
                     "judge_castle", "judge_submarine", "judge_newsroom", "judge_filmset", "judge_farmstead"}
    assert sum(len(s.turns) for s in stories if s.name in fresh) >= 48 + 64 + 64 + 64
    for _, who, gold in readings:
        assert who not in gold.helped and who not in gold.harmed and who not in gold.valence
        assert not gold.core or gold.significance == "high"
        assert not gold.insignificant or (gold.significance == "low" and not gold.helped and not gold.harmed)
