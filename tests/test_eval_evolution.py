"""Eval cases with evolution: the `evolve` action, the attribute, personality, drift and trust
kinds (passing and failing), the series' attributes and trust, and the report's plot and table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from curator.domain.errors import CaseError
from curator.evals.cases import load_case
from curator.evals.report import render_report
from curator.evals.runner import CaseResult, RunReport, fallback_curator, run_case, totals

START = "2025-03-03"


def _turns() -> list[dict[str, Any]]:
    """Week 1: Fox helps Bear; week 2: Fox steals from Bear and Bear keeps failing."""
    turns: list[dict[str, Any]] = []
    for day in range(1, 4):
        turns.append({"id": f"k{day}", "world_time": f"2025-03-0{day + 2}T08:00:00Z", "actor": "bear",
                      "others": ["fox"], "intent": {"action": "Look for food"},
                      "reality": "Fox trots up and shares its berries with you, then helps you carry "
                                 "your fish home."})
    turns.append({"id": "b1", "world_time": "2025-03-11T08:00:00Z", "actor": "bear", "others": ["fox"],
                  "intent": {"action": "Eat the honey I hid"},
                  "reality": "The honey you trusted Fox to guard is gone. Fox betrayed you: it stole the "
                             "honeycomb and lied that Wolf took it."})
    for n, text in enumerate(["You slip on the wet rock and the trout gets away.",
                              "The branch snaps under your weight and you tumble into the brambles.",
                              "The ice on the pond cracks and you scramble back to shore with no fish.",
                              "You dig all morning at the wrong stump; the grubs are somewhere else."], 1):
        turns.append({"id": f"f{n}", "world_time": f"2025-03-1{n + 1}T10:00:00Z", "actor": "bear",
                      "intent": {"action": "Catch something to eat"}, "reality": text,
                      "outcome": {"result": "failed"}})
    return turns


def _case(tmp_path: Path, checks: list[dict[str, Any]], name: str = "evo") -> Path:
    # attributes start just under 0.7: a few failures tip caution over it (risk_tolerance conservative)
    doc = {"name": name, "about": "evolution in a case", "seeds": ["000"],
           "config": {"evolution": {"start": 0.69}}, "turns": _turns(),
           "actions": [{"after": "k3", "evolve": {"world_time": "2025-03-09T00:00:00Z"}},
                       {"after": "end", "evolve": {}}],
           "checks": checks}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


def _run(tmp_path: Path, checks: list[dict[str, Any]]) -> CaseResult:
    return run_case(load_case(_case(tmp_path, checks)), fallback_curator)


def test_each_evolution_kind_passes_on_the_story(tmp_path: Path) -> None:
    result = _run(tmp_path, [
        {"expect": "attribute", "character": "bear", "name": "caution", "value": {"above_at": "k3"}},
        {"after": "k3", "expect": "attribute", "character": "bear", "name": "collaboration",
         "value": {"min": 0.51}},
        {"expect": "trust", "owner": "bear", "other": "fox", "trust": {"below_at": "k3"}},
        {"after": "k3", "expect": "trust", "owner": "bear", "other": "fox", "trust": {"min": 0.5},
         "rapport": "positive"},
        {"expect": "personality", "character": "bear", "trait": "risk_tolerance", "equals": "conservative"},
        {"after": "k3", "expect": "personality", "character": "bear", "trait": "risk_tolerance",
         "one_of": ["balanced", "bold"]},
        {"expect": "drift", "character": "bear", "trait": "risk_tolerance", "to": "conservative"},
    ])
    assert result.error is None
    assert [c.passed for c in result.checks] == [True] * 7, [c.reason for c in result.checks]
    drift = result.checks[6]
    assert "at end: caution 0.69 → 0.7" in drift.found and "failure" in drift.found  # the reason
    assert "failure" in result.checks[0].found  # what moved it


def test_each_evolution_kind_fails_with_expected_and_found(tmp_path: Path) -> None:
    result = _run(tmp_path, [
        {"expect": "attribute", "character": "bear", "name": "caution", "value": {"max": 0.4}},
        {"expect": "attribute", "character": "bear", "name": "bravery", "value": 0.5},
        {"expect": "trust", "owner": "bear", "other": "fox", "trust": {"above_at": "k3"}},
        {"expect": "trust", "owner": "bear", "other": "wolf", "trust": "positive"},
        {"expect": "personality", "character": "bear", "trait": "risk_tolerance", "equals": "bold"},
        {"after": "k1", "expect": "personality", "character": "bear", "trait": "work_style",
         "equals": "balanced"},
        {"expect": "drift", "character": "bear", "trait": "risk_tolerance", "from": "bold"},
        {"after": "k3", "expect": "drift", "character": "bear", "trait": "risk_tolerance"},
    ])
    assert not any(c.passed for c in result.checks)
    reasons = [c.reason for c in result.checks]
    assert reasons[0].startswith("expected bear's caution at most 0.4, found +0.")
    assert "no attribute 'bravery'" in reasons[1]
    assert reasons[2].startswith("expected bear's trust in fox: trust higher than after k3, found trust")
    assert "no relationship with wolf" in reasons[3]
    assert reasons[4].startswith("expected bear's risk_tolerance to be bold, found conservative")
    assert "no personality snapshot" in reasons[5]
    assert "found only balanced → conservative at end" in reasons[6]
    assert "found no drift of it in 1 evolution cycle(s)" in reasons[7]


def test_the_series_has_attributes_trust_and_drifts(tmp_path: Path) -> None:
    result = _run(tmp_path, [{"expect": "trust", "owner": "bear", "other": "fox", "trust": {"max": 1}}])
    series = result.series
    assert series is not None
    points = series.points
    caution = series.attributes["bear"]["caution"]
    assert len(caution) == len(points) and caution[points.index("k2")] is None
    assert caution[points.index("k3")] is not None and caution[-1] is not None and caution[-1] > 0.7
    fox = next(r for r in series.relationships if (r.owner, r.other) == ("bear", "fox"))
    assert len(fox.trust) == len(points) and fox.trust[-1] is not None and fox.trust[-1] < 0.5
    assert any(d.trait == "risk_tolerance" and d.point == "end" and d.reason for d in series.drifts)


def test_the_report_plots_attributes_and_lists_drifts(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    result = _run(tmp_path, [{"expect": "trust", "owner": "bear", "other": "fox", "trust": {"max": 1}}])
    html = render_report(RunReport(mode="fallback", cases=[result], totals=totals([result])))
    assert "Attributes over the turns" in html and "Personality drift" in html
    assert "balanced → conservative" in html


def test_a_malformed_evolution_check_names_its_field(tmp_path: Path) -> None:
    path = _case(tmp_path, [{"expect": "personality", "character": "bear", "trait": "risk_tolerance"}])
    with pytest.raises(CaseError, match="equals"):
        load_case(path)
    path = _case(tmp_path, [{"expect": "trust", "owner": "bear", "other": "fox"}], name="evo2")
    with pytest.raises(CaseError, match="trust, rapport"):
        load_case(path)
    path = _case(tmp_path, [{"expect": "drift", "character": "bear", "trait": "mood"}], name="evo3")
    with pytest.raises(CaseError, match=r"checks\.0\.trait"):
        load_case(path)
