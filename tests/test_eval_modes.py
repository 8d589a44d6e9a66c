"""Eval modes (live with recording, replay), the HTML report, `eval diff` and the baseline.

The live run here talks to the stub model server on 127.0.0.1, which answers each step with
the fallback's decision in a marked voice: its fixtures are *scripted*, written to a temporary
set, and replayed through respx in the same test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT

from curator.cli import cli
from curator.domain.config import CuratorConfig
from curator.domain.errors import InvalidInput
from curator.evals.cases import EvalCase, load_case
from curator.evals.diff import baseline_entry, below_baseline, diff_runs, format_diff, update_baseline
from curator.evals.modes import FallbackMode, LiveMode, ReplayMode, make_mode
from curator.evals.report import render_report, write_report
from curator.evals.runner import CuratorFactory, RunReport, run_cases
from curator.model.llm import ModelSettings, release_connections
from curator.model.stub_server import FallbackEcho, StubModelServer

CASES = ROOT / "evals" / "cases"
SMALL = [CASES / "001_intent_vs_reality.yaml", CASES / "000_dedup_reinforce.yaml"]
MARK = "[stub] "


def marked(step: str, decision: dict[str, Any]) -> dict[str, Any]:
    if step == "interpret":
        decision["memory"] = MARK + decision["memory"]
    return decision


class StubLive(LiveMode):
    """Live mode whose worlds tell the stub's FallbackEcho each prompt before it is sent."""

    def __init__(self, settings: ModelSettings, record: Path, echo: FallbackEcho):
        super().__init__(settings, record)
        self.echo = echo

    @contextmanager
    def session(self, case: EvalCase) -> Iterator[CuratorFactory]:
        with super().session(case) as factory:
            def hooked(config: CuratorConfig) -> Any:
                curator = factory(config)
                assert curator.gateway is not None
                curator.gateway.before_call = self.echo.learn
                return curator
            yield hooked


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, RunReport]:
    """Two small cases played live against the stub server, recorded into a fixture set."""
    out = tmp_path_factory.mktemp("fixtures") / "stub"
    echo = FallbackEcho(voice=marked)
    cases = [load_case(path) for path in SMALL]
    with StubModelServer(echo) as stub:
        settings = ModelSettings(model="openai/stub", api_base=stub.url, backoff=0.0)
        report = run_cases(cases, StubLive(settings, out, echo))
    release_connections()
    return out, report


def test_live_mode_records_a_fixture_set_per_case(recorded: tuple[Path, RunReport]) -> None:
    out, live = recorded
    saved = json.loads((out / "settings.json").read_text())
    assert saved["model"] == "openai/stub" and "api_key" not in saved and "record_dir" not in saved
    for case in live.cases:
        files = list((out / case.name).glob("*.json"))
        assert len(files) == case.metrics.model_calls > 0
        assert case.metrics.decided_by_model == case.metrics.steps  # the stub answered every step
    assert live.mode == "live" and live.model == "openai/stub"


def test_replay_gives_the_live_run_back_without_a_server(recorded: tuple[Path, RunReport]) -> None:
    out, live = recorded
    replay = run_cases([load_case(path) for path in SMALL], ReplayMode(out))
    assert replay.mode == "replay" and replay.not_recorded == []
    for before, after in zip(live.cases, replay.cases, strict=True):
        assert [c.passed for c in after.checks] == [c.passed for c in before.checks]
        assert after.metrics.model_calls == before.metrics.model_calls
        assert after.metrics.fallbacks_by_reason == {}
    assert replay.cases[0].series is not None
    contents = [m.content for m in replay.cases[0].series.memories]
    assert contents and all(c.startswith(MARK) for c in contents)  # the memories are the answers


def test_replay_names_unrecorded_cases_and_missing_fixtures(recorded: tuple[Path, RunReport],
                                                            tmp_path: Path) -> None:
    out, _ = recorded
    other = load_case(CASES / "001_conflict.yaml")
    report = run_cases([other], ReplayMode(out))
    assert report.cases == [] and report.not_recorded == ["conflict"]
    # A fixture set that lost one response (a prompt changed since it was recorded): that one
    # step falls back as "not recorded" and the rest of the case replays as recorded.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "settings.json").write_text((out / "settings.json").read_text())
    case = load_case(SMALL[0])
    files = sorted((out / case.name).glob("*.json"))
    (broken / case.name).mkdir()
    for path in files[:-1]:
        (broken / case.name / path.name).write_text(path.read_text())
    [full] = run_cases([case], ReplayMode(out)).cases
    [result] = run_cases([case], ReplayMode(broken)).cases
    assert result.error is None
    assert result.metrics.fallbacks_by_reason == {"not recorded": 1}
    assert (result.steps.model, result.steps.fallback) == (full.steps.model - 1, 1)


def test_modes_say_what_they_need(tmp_path: Path) -> None:
    assert isinstance(make_mode("fallback"), FallbackMode)
    with pytest.raises(InvalidInput, match="needs a model"):
        make_mode("live", environ={})
    with pytest.raises(InvalidInput, match="no fixture set here"):
        make_mode("replay", fixtures=tmp_path)
    live = make_mode("live", model="openai/x", api_base="http://127.0.0.1:9/v1", environ={})
    assert isinstance(live, LiveMode) and live.model == "openai/x"


# -- the report --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fallback_run(tmp_path_factory: pytest.TempPathFactory) -> RunReport:
    # The report must show failed expectations: formation_threshold with one check added that
    # no reading can pass, so the test does not depend on what the fallback still gets wrong.
    failing = tmp_path_factory.mktemp("cases") / "000_formation_threshold.yaml"
    failing.write_text((CASES / "000_formation_threshold.yaml").read_text().rstrip("\n") + "\n"
                       '  - {after: f5, expect: memory_exists, owner: bear, words: ["unicorn"], '
                       'note: "no turn mentions one: fails on purpose"}\n')
    return run_cases([load_case(CASES / "001_observers.yaml"), load_case(CASES / "001_conflict.yaml"),
                      load_case(failing)],
                     FallbackMode())


def test_the_report_is_one_page_with_its_plots_and_the_json(fallback_run: RunReport, tmp_path: Path) -> None:
    page = write_report(fallback_run, tmp_path / "report")
    html = page.read_text()
    assert RunReport.model_validate_json((tmp_path / "report" / "report.json").read_text()) == fallback_run
    for case in fallback_run.cases:
        assert case.name in html and case.about in html
    failed = [c for case in fallback_run.cases for c in case.checks if not c.passed]
    assert failed and all(c.reason.split("'")[0] in html for c in failed)
    # feelings, tiers, strengths, deciders; attributes only after evolve actions
    expected = 0
    for case in fallback_run.cases:
        s = case.series
        assert s is not None
        expected += sum([any(v is not None for r in s.relationships for v in r.sentiment), bool(s.tiers),
                         any(len(m.times) > 1 for m in s.memories), bool(s.steps), bool(s.attributes)])
    assert expected >= 11 and html.count("<svg") == expected
    assert "<script" not in html and 'src="http' not in html and 'href="http' not in html


def test_without_matplotlib_the_report_keeps_its_tables(fallback_run: RunReport,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("curator.evals.report._pyplot", lambda: None)
    html = render_report(fallback_run)
    assert "<svg" not in html and f"<code>pip install -e &#39;{ROOT}[report]&#39;</code>" in html
    assert all(case.name in html for case in fallback_run.cases)


# -- diff and baseline ---------------------------------------------------------------------------


def test_diff_lists_flipped_expectations_and_moved_figures(fallback_run: RunReport) -> None:
    after = fallback_run.model_copy(deep=True)
    flipped = next(c for c in after.cases[0].checks if c.passed)
    flipped.passed, flipped.reason = False, "expected something, found nothing"
    after.cases[0].passed -= 1
    after.cases[0].failed += 1
    after.totals.passed -= 1
    after.totals.model_calls = 7
    diff = diff_runs(fallback_run, after)
    [flip] = diff.flips
    assert (flip.case, flip.index, flip.was, flip.now) == (after.cases[0].name, flipped.index, "pass", "fail")
    assert diff.figures["model_calls"] == (0, 7)
    text = format_diff(diff)
    assert "pass → fail: expected something, found nothing" in text and "model_calls: 0 → 7" in text
    assert diff_runs(fallback_run, fallback_run).flips == []


def test_a_case_below_its_baseline_is_named(fallback_run: RunReport, tmp_path: Path) -> None:
    path = tmp_path / "baseline.json"
    update_baseline(path, fallback_run)
    baseline = json.loads(path.read_text())
    assert below_baseline(fallback_run, baseline) == []
    worse = fallback_run.model_copy(deep=True)
    worse.cases[1].passed -= 1
    [short] = below_baseline(worse, baseline)
    assert short.startswith(f"{worse.cases[1].name}: ")
    assert below_baseline(worse.model_copy(update={"mode": "replay"}), baseline) == [
        "the baseline has no entry for mode 'replay'"]


def test_a_replay_whose_model_decided_fewer_steps_is_below_its_baseline(fallback_run: RunReport) -> None:
    decided = fallback_run.model_copy(deep=True)
    decided.cases[0].steps.model, decided.cases[0].steps.fallback = 5, 0
    baseline = {decided.mode: baseline_entry(decided)}
    assert baseline[decided.mode]["cases"][decided.cases[0].name]["model_steps"] == 5
    assert below_baseline(decided, baseline) == []
    missing = decided.model_copy(deep=True)  # the same expectations pass, but two answers fell back
    missing.cases[0].steps.model, missing.cases[0].steps.fallback = 3, 2
    [short] = below_baseline(missing, baseline)
    assert short.startswith(f"{missing.cases[0].name}: 3 steps decided by the model, baseline 5")


def test_cli_report_baseline_and_diff(tmp_path: Path) -> None:
    runner = CliRunner()
    case = str(CASES / "001_conflict.yaml")
    first = runner.invoke(cli, ["eval", "run", case, "--json", "--report", str(tmp_path / "r"),
                                "--write-baseline", str(tmp_path / "b.json")])
    assert first.exit_code == 0, first.output
    assert (tmp_path / "r" / "index.html").is_file()
    held = runner.invoke(cli, ["eval", "run", case, "--baseline", str(tmp_path / "b.json")])
    assert held.exit_code == 0, held.output
    (tmp_path / "a.json").write_text(first.stdout)
    diff = runner.invoke(cli, ["eval", "diff", str(tmp_path / "a.json"), str(tmp_path / "r" / "report.json")])
    assert diff.exit_code == 0 and "No expectation flipped." in diff.output
    bad = runner.invoke(cli, ["eval", "diff", case, str(tmp_path / "a.json")])
    assert bad.exit_code == 2 and "not an eval run" in bad.output
    wrong = runner.invoke(cli, ["eval", "run", case, "--record", str(tmp_path / "x")])
    assert wrong.exit_code == 2 and "--record is for --mode live" in wrong.output


def test_the_shipped_baseline_holds_for_fallback() -> None:
    baseline = json.loads((ROOT / "evals" / "baseline.json").read_text())
    from curator.evals.cases import load_cases
    report = run_cases(load_cases([CASES]), FallbackMode(), series=False)
    assert below_baseline(report, baseline) == []


def test_the_readme_case_runs_and_passes(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("name: dedup_reinforce\n")
    path = tmp_path / "readme_case.yaml"
    path.write_text(readme[start:readme.index("```", start)])
    [result] = run_cases([load_case(path)], FallbackMode()).cases
    assert result.ok and result.passed == 2


def test_a_case_that_plays_a_judgement_story_replays_the_storys_answers() -> None:
    """`story:` cases play the same world as the story, so a fixture set files them under the
    story's name: the genres dev set replays the recorded judgement answers."""
    case = load_case(ROOT / "evals" / "genres" / "western.yaml")
    assert (case.name, case.filed_as) == ("genre_western", "judge_western")
    mode = ReplayMode(ROOT / "evals" / "fixtures" / "qwen1.5b")
    assert mode.runs(case)
    report = run_cases([case], mode)
    (result,) = report.cases
    assert result.steps.model > 0 and "not recorded" not in result.metrics.fallbacks_by_reason
