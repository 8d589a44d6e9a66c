"""Eval runs count the steps a model decided and the steps the fallback decided, per case
(`CaseResult.steps`) and over the run (`RunReport.steps`): in `curator eval run --json`, the
totals line, the HTML report and `curator eval diff` (runs saved before the counts still load).

The run with model steps uses a decider that records every other step as a model's (the
fallback's decisions, so the figures do not depend on a prompt or a recorded fixture); a run
against the stub model server on 127.0.0.1 checks that whatever a model world decides, by a
model or by a fallback after an invalid answer, is what the counts say."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import ROOT

from curator import Curator, CuratorConfig, FallbackDecider
from curator.cli import cli
from curator.cli.evals import _print_totals
from curator.evals.cases import EvalCase, load_case
from curator.evals.diff import diff_runs, format_diff, load_run
from curator.evals.modes import FallbackMode
from curator.evals.report import render_report, steps_line
from curator.evals.runner import CuratorFactory, RunReport, StepCounts, run_cases
from curator.model.llm import ModelSettings, release_connections
from curator.model.stub_server import FallbackEcho, StubModelServer

CASES = ROOT / "evals" / "cases"
SMALL = [CASES / "001_intent_vs_reality.yaml", CASES / "000_dedup_reinforce.yaml"]


class EveryOtherByModel(FallbackDecider):
    """The fallback's decisions, with the 1st, 3rd, 5th... step recorded as decided by a model."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def decide(self, step: Any, inputs: Any, *, character: str, context: Any = None) -> Any:
        decision, record = super().decide(step, inputs, character=character, context=context)
        self.calls += 1
        if self.calls % 2:
            record = record.model_copy(update={"decided_by": "model", "reason": None})
        return decision, record


class FactoryMode:
    """A mode whose worlds come from one factory."""

    def __init__(self, name: str, model: str | None, factory: CuratorFactory):
        self.name, self.model, self.factory = name, model, factory

    def runs(self, case: EvalCase) -> bool:
        return True

    @contextmanager
    def session(self, case: EvalCase) -> Iterator[CuratorFactory]:
        yield self.factory


def step_records(case: EvalCase) -> list[Any]:
    """The step records of playing the case's turns on their own (the cases here have no actions)."""
    assert not case.actions
    with Curator(":memory:", config=case.config, decider=FallbackDecider()) as world:
        return [s for turn in case.turns for s in world.observe(turn).steps]


@pytest.fixture(scope="module")
def fallback_run() -> RunReport:
    return run_cases([load_case(path) for path in SMALL], FallbackMode())


@pytest.fixture(scope="module")
def mixed_run() -> RunReport:
    def factory(config: CuratorConfig) -> Curator:
        return Curator(":memory:", config=config, decider=EveryOtherByModel())
    return run_cases([load_case(path) for path in SMALL], FactoryMode("mixed", None, factory))


def test_a_fallback_run_counts_every_step_record_as_the_fallbacks(fallback_run: RunReport) -> None:
    for path, case in zip(SMALL, fallback_run.cases, strict=True):
        records = step_records(load_case(path))
        assert records and case.steps == StepCounts(model=0, fallback=len(records))
        assert case.steps.fallback == case.metrics.steps and case.steps.model_share == 0.0
        assert case.series is not None and len(case.series.steps) == len(records)
    in_all = sum(c.steps.fallback for c in fallback_run.cases)
    assert fallback_run.steps == StepCounts(model=0, fallback=in_all)
    assert fallback_run.totals.fallbacks_by_reason == {"no model configured": fallback_run.steps.fallback}


def test_model_steps_are_counted_per_case_and_in_all(mixed_run: RunReport) -> None:
    for case in mixed_run.cases:
        assert case.series is not None
        records = len(case.series.steps)
        assert records >= 3 and case.steps == StepCounts(model=(records + 1) // 2, fallback=records // 2)
        assert case.steps.model == case.metrics.decided_by_model
        assert case.steps.fallback == sum(case.metrics.fallbacks_by_reason.values())
    model = sum(c.steps.model for c in mixed_run.cases)
    fallback = sum(c.steps.fallback for c in mixed_run.cases)
    assert mixed_run.steps == StepCounts(model=model, fallback=fallback)
    assert mixed_run.steps.model_share == round(model / (model + fallback), 4)
    doc = mixed_run.model_dump(mode="json")
    assert doc["steps"] == {"model": model, "fallback": fallback}
    assert [c["steps"] for c in doc["cases"]] == [c.steps.model_dump() for c in mixed_run.cases]


def test_a_world_that_asks_a_model_counts_what_it_decided() -> None:
    echo = FallbackEcho()
    with StubModelServer(echo) as stub:
        settings = ModelSettings(model="openai/stub", api_base=stub.url, backoff=0.0)

        def factory(config: CuratorConfig) -> Curator:
            world = Curator(":memory:", config=config, model=settings)
            assert world.gateway is not None
            world.gateway.before_call = echo.learn
            return world
        report = run_cases([load_case(SMALL[1])], FactoryMode("live", "openai/stub", factory))
    release_connections()
    [case] = report.cases
    assert case.error is None and case.metrics.model_calls > 0 and case.series is not None
    assert case.steps.model == sum(1 for use in case.series.steps if use.decided_by == "model")
    assert case.steps.fallback == sum(1 for use in case.series.steps if use.decided_by == "fallback")
    assert case.steps.fallback == sum(case.metrics.fallbacks_by_reason.values())
    assert case.steps.model + case.steps.fallback == case.metrics.steps > 0
    assert report.steps == case.steps


def test_the_cli_prints_the_counts(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   mixed_run: RunReport) -> None:
    out = CliRunner().invoke(cli, ["eval", "run", *map(str, SMALL), "--mode", "fallback", "--json"])
    assert out.exit_code in (0, 1), out.output
    doc = json.loads(out.stdout)
    per_case = [c["steps"] for c in doc["cases"]]
    assert all(s["model"] == 0 and s["fallback"] > 0 for s in per_case)
    assert doc["steps"] == {"model": 0, "fallback": sum(s["fallback"] for s in per_case)}
    assert "steps" not in doc["totals"]
    text = CliRunner().invoke(cli, ["eval", "run", *map(str, SMALL)]).stdout
    assert f"steps: 0 by the model, {doc['steps']['fallback']} by the fallback (0.0% model)" in text
    _print_totals(mixed_run)
    s = mixed_run.steps
    assert (f"steps: {s.model} by the model, {s.fallback} by the fallback "
            f"({100 * s.model / (s.model + s.fallback):.1f}% model)") in capsys.readouterr().out
    _print_totals(mixed_run.model_copy(update={"cases": [], "steps": StepCounts()}))
    assert "steps: 0 by the model, 0 by the fallback;" in capsys.readouterr().out


def test_the_html_report_shows_the_counts(mixed_run: RunReport, fallback_run: RunReport) -> None:
    html = render_report(mixed_run)
    s = mixed_run.steps
    share = f"{100 * s.model / (s.model + s.fallback):.1f}% model"
    assert f"steps: {s.model} by a model, {s.fallback} by the fallback ({share})" in html
    for case in mixed_run.cases:
        assert f"{case.metrics.steps} steps ({steps_line(case.steps)})" in html
        assert f'<td class="num">{case.steps.model}</td><td class="num">{case.steps.fallback}</td>' in html
    assert f"steps: 0 by a model, {fallback_run.steps.fallback} by the fallback (0.0% model)" \
        in render_report(fallback_run)
    assert steps_line(StepCounts()) == "0 by a model, 0 by the fallback"


def test_runs_saved_without_the_counts_still_load_and_diff(tmp_path: Path, fallback_run: RunReport,
                                                           mixed_run: RunReport) -> None:
    old = fallback_run.model_dump(mode="json")
    del old["steps"]
    for case in old["cases"]:
        del case["steps"]
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(mixed_run.model_dump_json())
    loaded = load_run(tmp_path / "old.json")
    assert loaded.steps == StepCounts() and all(c.steps == StepCounts() for c in loaded.cases)
    diff = diff_runs(loaded, mixed_run)
    assert diff.figures["model_share"] == (None, mixed_run.steps.model_share)
    assert diff.cases[0].figures["model_share"] == (None, mixed_run.cases[0].steps.model_share)
    assert diff_runs(fallback_run, mixed_run).figures["model_share"] == (0.0, mixed_run.steps.model_share)
    assert "model_share: - → 0." in format_diff(diff)
    out = CliRunner().invoke(cli, ["eval", "diff", str(tmp_path / "old.json"), str(tmp_path / "new.json")])
    assert out.exit_code == 0, out.output
    assert "model_share: - →" in out.output
