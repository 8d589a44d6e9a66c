"""Evals: the case format and its errors, every expectation kind passing and failing, the
runner and its figures, `curator eval run` (JSON shape, exit codes) and the shipped cases."""

from __future__ import annotations

import copy
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import ROOT

from curator.cli import cli
from curator.domain.errors import CaseError, InvalidInput
from curator.evals.cases import EvalCase, case_files, load_case, load_cases
from curator.evals.runner import CaseResult, fallback_curator, run_case

CASES = ROOT / "evals" / "cases"

# A tiny world: a growl (Owl watching), the same growl again, a drink of water, a stolen trout.
TURNS: list[dict[str, Any]] = [
    {"id": "t1", "world_time": "2025-03-02T08:00:00Z", "actor": "bear", "others": ["wolf"],
     "observers": ["owl"], "intent": {"thought": "Those berries look ripe", "action": "Eat the berries"},
     "reality": "Wolf growls at you from behind the berry bushes and you back away without eating."},
    {"id": "t2", "world_time": "2025-03-02T08:20:00Z", "actor": "bear", "others": ["wolf"],
     "intent": {"thought": "Maybe he has gone now", "action": "Eat the berries"},
     "reality": "Wolf growls at you again from behind the berry bushes and you back away without eating."},
    {"id": "t3", "world_time": "2025-03-02T09:00:00Z", "actor": "bear",
     "intent": {"thought": "Thirsty", "action": "Drink from the stream"},
     "reality": "You lap at the cold water. Leaves drift past; nothing else happens."},
    {"id": "t4", "world_time": "2025-03-02T15:00:00Z", "actor": "bear", "others": ["wolf"],
     "intent": {"thought": "Fish will do instead", "action": "Fish at the river"},
     "reality": "You catch a trout, but Wolf snatches it from your jaws and runs off into the reeds."},
]


def document(checks: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"name": "tiny", "about": "a tiny world", "seeds": ["000"], "turns": copy.deepcopy(TURNS),
            "checks": checks, **extra}


def write(tmp_path: Path, doc: dict[str, Any], name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def run(tmp_path: Path, checks: list[dict[str, Any]], **extra: Any) -> CaseResult:
    return run_case(load_case(write(tmp_path, document(checks, **extra))), fallback_curator)


# -- loading -----------------------------------------------------------------------------------


def test_every_shipped_case_loads() -> None:
    cases = load_cases([CASES])
    assert len(cases) >= 14
    small = [c for c in cases if not c.name.startswith("long_")]
    assert len(small) >= 12 and all(5 <= len(c.turns) <= 20 for c in small)
    assert max(len(c.turns) for c in cases) >= 200 and len(cases) - len(small) >= 2
    assert {s[:3] for c in cases for s in c.seeds} >= {"000", "001", "002", "004"}
    assert len({c.name for c in cases}) == len(cases)


def test_a_valid_case_loads_with_its_config_and_turns(tmp_path: Path) -> None:
    case = load_case(write(tmp_path, document([{"expect": "memory_exists", "owner": "Bear", "words": "wolf"}],
                                              config={"recent_limit": 3})))
    assert isinstance(case, EvalCase) and case.config.recent_limit == 3
    assert [t.id for t in case.turns] == ["t1", "t2", "t3", "t4"]
    assert case.seeds == ["000_c491fa3314b54f7a.txt"]
    check = case.checks[0]
    assert check.after == "end" and check.owner == "bear" and check.words == ["wolf"]  # type: ignore[union-attr]


def test_json_case_and_transcript_path(tmp_path: Path) -> None:
    (tmp_path / "t.jsonl").write_text("\n".join(json.dumps(t) for t in TURNS) + "\n", encoding="utf-8")
    doc = {"name": "j", "about": "json", "seeds": ["001_2369f0d84f045f0e.txt"], "transcript": "t.jsonl",
           "checks": [{"expect": "no_memory_formed", "turn": "t3", "after": "t3"}]}
    (tmp_path / "c.json").write_text(json.dumps(doc), encoding="utf-8")
    assert len(load_case(tmp_path / "c.json").turns) == 4
    assert case_files([tmp_path]) == [tmp_path / "c.json"]


def test_a_case_can_play_a_judgement_story(tmp_path: Path) -> None:
    """`story:` plays a judgement story's turns, its characters' personas set at the start."""
    story = {"genre": "harbour", "characters": {"mara": "Mara, the harbour pilot", "jon": "Jon, a deckhand"},
             "turns": [{"id": "h1", "split": "dev", "world_time": "2031-05-01T06:00:00Z", "actor": "mara",
                        "others": ["jon"], "observers": ["jon"],
                        "intent": {"thought": "Tide's turning", "action": "Cast off"},
                        "reality": "Jon slips on the wet deck and you haul him back aboard by his collar.",
                        "gold": {"mara": {"gap": "succeeded", "significance": "medium"},
                                 "jon": {"gap": "helped", "helped": ["mara"], "significance": "high"}}}]}
    (tmp_path / "harbour.yaml").write_text(yaml.safe_dump(story, sort_keys=False), encoding="utf-8")
    doc = {"name": "harbour", "about": "a judgement story as a case", "seeds": ["001"],
           "story": "harbour.yaml",
           "checks": [{"expect": "memory_exists", "owner": "jon", "subject": "mara", "words": ["haul"]}]}
    case = load_case(write(tmp_path, doc))
    assert [t.id for t in case.turns] == ["h1"]
    assert [(a.after, a.persona.character) for a in case.actions if a.persona] == [("start", "mara"),
                                                                                  ("start", "jon")]
    result = run_case(case, fallback_curator)
    assert result.passed == 1, result.checks


@pytest.mark.parametrize(("change", "field", "words"), [
    (lambda d: d["checks"][0].pop("owner"), "checks.0.owner", "Field required"),
    (lambda d: d["checks"][0].update(expect="memory_vibes"), "checks.0",
     "unknown expect kind 'memory_vibes'"),
    (lambda d: d["checks"][0].pop("expect"), "checks.0", "needs `expect:`"),
    (lambda d: d["checks"][0].update(after="t99"), "checks.0.after", "no turn 't99'"),
    (lambda d: d["checks"][0].update(tier="frozen"), "checks.0.tier", "Input should be"),
    (lambda d: d["checks"][0].update(colour="red"), "checks.0.colour", "unknown field"),
    (lambda d: d.update(seeds=["999"]), "seeds.0", "unknown seed '999'"),
    (lambda d: d.update(config={"recent_limit": 0}), "config.recent_limit", "greater than or equal to 1"),
    (lambda d: d["turns"][1].pop("reality"), "turns.1.reality", "Field required"),
    (lambda d: d["turns"][2].update(id="t1"), "turns.2", "appears twice"),
    (lambda d: d["turns"][3].update(world_time="2025-01-01T00:00:00Z"), "turns.3", "earlier than"),
    (lambda d: d.update(transcript="x.jsonl"), None, "one of transcript"),
    (lambda d: d.update(story="story.yaml"), None, "one of transcript"),
    (lambda d: d.update(actions=[{"after": "t1"}]), "actions.0", "exactly one of"),
    (lambda d: d.update(actions=[{"after": "t7", "fade": {"until": "2026-01-01"}}]), "actions.0.after", "t7"),
    (lambda d: d["checks"].append({"expect": "relationship", "owner": "bear", "other": "wolf", "after": "t1",
                                   "sentiment": {"above_at": "t4"}}), "checks.1", "comes after"),
    (lambda d: d["checks"].append({"expect": "tier_counts", "owner": "bear"}), "checks.1",
     "at least one of recent"),
])
def test_a_malformed_case_names_the_file_and_the_field(tmp_path: Path, change: Any, field: str | None,
                                                       words: str) -> None:
    doc = document([{"expect": "memory_exists", "owner": "bear", "words": ["wolf"]}])
    change(doc)
    path = write(tmp_path, doc)
    with pytest.raises(CaseError) as caught:
        load_case(path)
    error = caught.value
    assert isinstance(error, InvalidInput) and error.exit_code == 2
    assert error.path == str(path) and str(error).startswith(f"invalid case {path}: ")
    assert error.field == field and words in str(error), str(error)


def test_unreadable_documents(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nchecks: [\n  - oops: {\n", encoding="utf-8")
    with pytest.raises(CaseError, match=r"not valid YAML .* at line \d+ column \d+"):
        load_case(bad)
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n", encoding="utf-8")
    with pytest.raises(CaseError, match="a case is a mapping"):
        load_case(tmp_path / "list.yaml")
    (tmp_path / "c.json").write_text("{nope", encoding="utf-8")
    with pytest.raises(CaseError, match="not valid JSON"):
        load_case(tmp_path / "c.json")
    with pytest.raises(CaseError, match="ends in"):
        load_case(tmp_path / "case.txt")


# -- every expectation kind, passing and failing --------------------------------------------

PAIRS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"expect": "memory_exists", "owner": "bear", "subject": "wolf", "words": ["growl", "berr"]},
     {"expect": "memory_exists", "owner": "bear", "subject": "wolf", "words": ["dragon"]}),
    ({"expect": "memory_absent", "owner": "bear", "words": ["dragon"]},
     {"expect": "memory_absent", "owner": "bear", "words": ["snatch"]}),
    ({"expect": "memory_tier", "owner": "bear", "words": ["snatch"], "tier": "recent"},
     {"expect": "memory_tier", "owner": "bear", "words": ["snatch"], "tier": "core"}),
    ({"expect": "memory_strength", "owner": "bear", "words": ["snatch"], "strength": {"min": 0.9},
      "recall_count": 0},
     {"expect": "memory_strength", "owner": "bear", "words": ["snatch"], "strength": {"max": 0.5}}),
    ({"expect": "tier_counts", "owner": "bear", "subject": "wolf", "recent": {"min": 1}, "core": 0},
     {"expect": "tier_counts", "owner": "bear", "subject": "wolf", "recent": 0}),
    ({"expect": "relationship", "owner": "bear", "other": "wolf", "sentiment": "negative",
      "bond": {"max": 0}},
     {"expect": "relationship", "owner": "bear", "other": "wolf", "sentiment": "positive"}),
    ({"expect": "summary_mentions", "owner": "bear", "other": "wolf", "words": ["wolf"]},
     {"expect": "summary_mentions", "owner": "bear", "other": "wolf", "words": ["dragon"]}),
    ({"expect": "summary_omits", "owner": "bear", "other": "wolf", "words": ["dragon", "unicorn"]},
     {"expect": "summary_omits", "owner": "bear", "other": "wolf", "words": ["dragon", "wolf"]}),
    ({"expect": "no_memory_formed", "turn": "t3", "owner": "bear"},
     {"expect": "no_memory_formed", "turn": "t1"}),
    ({"expect": "reinforced_not_duplicated", "owner": "bear", "words": ["growl"], "turns": ["t1", "t2"]},
     {"expect": "reinforced_not_duplicated", "owner": "bear", "words": ["snatch"]}),
    ({"expect": "observer_remembers", "observer": "owl", "words": ["wolf", "growl"], "turn": "t1"},
     {"expect": "observer_remembers", "observer": "owl", "words": ["snatch"]}),
    ({"expect": "context_includes", "character": "bear", "situation": "the river", "with": ["wolf"],
      "max_tokens": 300, "words": ["snatch"]},
     {"expect": "context_includes", "character": "bear", "situation": "the river", "words": ["dragon"]}),
    ({"expect": "context_omits", "character": "bear", "words": ["dragon"]},
     {"expect": "context_omits", "character": "bear", "words": ["snatch"]}),
]


@pytest.mark.parametrize(("passing", "failing"), PAIRS, ids=[p[0]["expect"] for p in PAIRS])
def test_each_kind_passes_and_fails(tmp_path: Path, passing: dict[str, Any], failing: dict[str, Any]) -> None:
    result = run(tmp_path, [passing, failing])
    good, bad = result.checks
    assert good.passed and not good.reason, good
    assert not bad.passed and bad.reason.startswith(f"expected {bad.expected}, "), bad
    assert bad.found and bad.found in bad.reason
    assert result.passed == 1 and result.failed == 1 and not result.ok and result.error is None


def test_fade_review_changed_or_kept(tmp_path: Path) -> None:
    review = {"expect": "fade_review", "owner": "bear", "other": "wolf"}
    checks = [{**review, "outcome": "changed"}, {**review, "outcome": "kept"},
              {**review, "outcome": "changed", "after": "t3"}]
    result = run(tmp_path, checks, config={"recent_limit": 1})
    changed, kept, early = result.checks
    assert changed.passed != kept.passed  # one review of the growl, which changed the summary or not
    assert "1 memory reviewed" in changed.found
    assert not early.passed and "nothing was reviewed" in early.reason  # the window had not overflowed


def test_ranges_compare_with_earlier_points(tmp_path: Path) -> None:
    checks = [{"expect": "relationship", "owner": "bear", "other": "wolf", "after": "t4",
               "sentiment": {"below_at": "t1"}},
              {"expect": "relationship", "owner": "bear", "other": "wolf", "after": "t4",
               "sentiment": {"above_at": "t1"}},
              {"expect": "memory_strength", "owner": "bear", "words": ["growl"], "after": "t4",
               "recall_count": {"above_at": "t1"}},
              {"expect": "memory_strength", "owner": "bear", "words": ["snatch"], "after": "t4",
               "strength": {"above_at": "t3"}}]
    below, above, reinforced, missing = run(tmp_path, checks).checks
    assert below.passed and not above.passed and "after t1" in above.reason
    assert reinforced.passed
    assert not missing.passed and "none after t3" in missing.reason  # the trout memory was not there yet


def test_observer_memory_must_not_tell_the_actors_intent(tmp_path: Path) -> None:
    from curator.domain.models import Tier
    from curator.evals.expectations import evaluate
    from curator.evals.kinds import ObserverRemembers
    from curator.evals.state import RunState

    with fallback_curator(load_case(write(tmp_path, document([{"expect": "memory_exists", "owner": "bear",
                                                                     "words": "x"}]))).config) as curator:
        curator.observe(TURNS[0])
        state = RunState(curator)
        state.turns["t1"] = load_case(tmp_path / "case.yaml").turns[0]
        check = ObserverRemembers(expect="observer_remembers", observer="owl", words=["growl"], turn="t1")
        assert evaluate(0, check, state).passed
        with curator.world.transaction() as world:
            for other in ("bear", "wolf"):
                for memory in world.memories("owl", other, Tier.RECENT):
                    memory.content += " Those berries look ripe, Bear thought."
                    world.update_memory(memory)
        state.forget()
        verdict = evaluate(0, check, state)
        assert not verdict.passed and "intent" in verdict.reason


def test_context_section_and_budget(tmp_path: Path) -> None:
    lately = {"expect": "context_includes", "character": "bear", "section": "short_term"}
    checks = [{**lately, "words": ["snatch"]}, {**lately, "words": ["growl"]},
              {"expect": "context_omits", "character": "bear", "section": "block", "words": ["snatch"]},
              {"expect": "context_includes", "character": "dragon", "words": ["x"]}]
    recent, morning, no_blocks, unknown = run(tmp_path, checks).checks
    assert recent.passed, recent  # t4 is the last hour
    assert not morning.passed and "section" in morning.reason  # the growl was hours before
    assert no_blocks.passed
    assert not unknown.passed and "unknown character 'dragon'" in unknown.reason


# -- the runner ------------------------------------------------------------------------------


def test_runner_metrics_and_series(tmp_path: Path) -> None:
    actions = [{"after": "t4", "context": {"character": "bear", "situation": "Wolf snatches my fish"}},
               {"after": "end", "fade": {"until": "2025-03-12T00:00:00Z"}}]
    result = run(tmp_path, [{"expect": "memory_strength", "owner": "bear", "words": ["snatch"], "after": "t4",
                             "recall_count": {"min": 1}},
                            {"expect": "memory_strength", "owner": "bear", "words": ["snatch"],
                             "strength": {"below_at": "t4"}}], actions=actions)
    assert result.ok, [c.reason for c in result.checks]
    m = result.metrics
    assert m.turns == 4 and m.steps >= 5 and m.model_calls == 0 and m.decided_by_model == 0
    assert m.fallbacks_by_reason == {"no model configured": m.steps} and m.wall_seconds > 0
    s = result.series
    assert s is not None and s.points == ["t1", "t2", "t3", "t4", "end"]
    assert s.world_times[0] == "2025-03-02T08:00:00Z" and s.world_times[-1] == "2025-03-12T00:00:00Z"
    (bear_wolf,) = [r for r in s.relationships if (r.owner, r.other) == ("bear", "wolf")]
    assert len(bear_wolf.sentiment) == 5 and bear_wolf.sentiment[0] is not None and bear_wolf.sentiment[0] < 0
    owl_bear = next(r for r in s.relationships if (r.owner, r.other) == ("owl", "bear"))
    assert owl_bear.sentiment[0] is not None
    assert all(len(v) == 5 for tiers in s.tiers.values() for v in tiers.values())
    assert s.tiers["bear"]["recent"][0] == 1 and s.tiers["wolf"]["recent"] == [0] * 5
    trout = next(line for line in s.memories if "snatch" in line.content)
    assert len(trout.times) == 2 and trout.strength[1] < trout.strength[0]  # faded by the end
    assert {u.point for u in s.steps} == {"t1", "t2", "t3", "t4"}
    assert all(u.decided_by == "fallback" for u in s.steps)


def test_a_run_that_stops_fails_the_checks_it_did_not_reach(tmp_path: Path) -> None:
    result = run(tmp_path, [{"expect": "memory_exists", "owner": "bear", "words": ["growl"], "after": "t1"},
                            {"expect": "memory_exists", "owner": "bear", "words": ["growl"]}],
                 actions=[{"after": "t2", "end_episode": {"character": "dragon"}}])
    first, last = result.checks
    assert first.passed and not last.passed and not result.ok
    assert result.error is not None and "stopped at t2" in result.error and "dragon" in result.error
    assert last.reason.startswith("not checked: the run stopped at t2")


def test_the_long_session_script_is_deterministic() -> None:
    spec = importlib.util.spec_from_file_location("make_long_session", CASES / "make_long_session.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.render()
    written = (CASES / "transcripts" / "long_valley.jsonl").read_text(encoding="utf-8")
    assert text == module.render() == written
    lines = text.splitlines()
    assert len(lines) >= 200 and len({json.loads(line)["reality"] for line in lines}) >= 80


# -- the command line -------------------------------------------------------------------------


def test_cli_json_shape_and_exit_codes(tmp_path: Path) -> None:
    exists = {"expect": "memory_exists", "owner": "bear"}
    passing = write(tmp_path, document([{**exists, "words": ["snatch"]}]), "pass.yaml")
    failing = write(tmp_path, {**document([{**exists, "words": ["dragon"]}]), "name": "tiny2"}, "fail.yaml")
    runner = CliRunner()
    out = runner.invoke(cli, ["eval", "run", str(passing), "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert set(doc) >= {"cases", "totals", "mode"} and doc["mode"] == "fallback"
    (case,) = doc["cases"]
    assert {"name", "passed", "failed", "checks", "metrics"} <= set(case) and case["series"] is None
    assert case["name"] == "tiny" and case["passed"] == 1 and case["failed"] == 0
    assert {"expect", "passed", "reason", "expected", "found"} <= set(case["checks"][0])
    assert doc["totals"]["checks"] == 1 and doc["totals"]["pass_rate"] == 1.0
    out = runner.invoke(cli, ["eval", "run", str(passing), str(failing)])
    assert out.exit_code == 1
    assert "✓ tiny" in out.stdout and "✗ tiny2" in out.stdout and "expected a memory of bear" in out.stdout
    assert "Totals (fallback): 1/2 cases, 1/2 expectations" in out.stdout
    out = runner.invoke(cli, ["eval", "run", str(passing), "--json", "--series"])
    assert json.loads(out.stdout)["cases"][0]["series"]["points"] == ["t1", "t2", "t3", "t4"]


def test_cli_errors_are_one_line(tmp_path: Path) -> None:
    doc = document([{"expect": "memory_exists", "words": ["snatch"]}])
    bad = write(tmp_path, doc, "bad.yaml")
    runner = CliRunner()
    out = runner.invoke(cli, ["eval", "run", str(bad)])
    assert out.exit_code == 2 and out.stdout == ""
    assert out.stderr.strip() == f"Error: invalid case {bad}: field 'checks.0.owner': Field required"
    for args, says in ((["--mode", "replay", "--fixtures", str(tmp_path)], "no fixture set here"),
                       (["--mode", "live"], "--mode live needs a model")):
        out = runner.invoke(cli, ["eval", "run", str(bad), *args])
        assert out.exit_code == 2 and says in out.stderr and "Traceback" not in out.output
    out = runner.invoke(cli, ["eval", "run", "--model", "gpt-4o-mini", str(bad)])
    assert out.exit_code == 2 and "--model and --api-base are for --mode live" in out.stderr


def test_cli_runs_every_shipped_case_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    out = CliRunner().invoke(cli, ["eval", "run", "--json"])
    assert out.exit_code in (0, 1), out.output
    doc = json.loads(out.stdout)
    assert len(doc["cases"]) == len(case_files([CASES])) >= 14
    assert doc["totals"]["checks"] == sum(c["passed"] + c["failed"] for c in doc["cases"])
    assert all(c["error"] is None for c in doc["cases"])  # every case runs to its end
