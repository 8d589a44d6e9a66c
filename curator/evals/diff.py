"""Comparing two eval runs (`curator eval diff A.json B.json`), and a run against a baseline.

A run is the JSON that `curator eval run --json` prints (or `report.json` from `--report`).
Expectations are matched by case name and check index, so editing a case's checks shows as
flips, never as silence: a check present on one side only is listed as added or removed.
The figures compared are the pass rate, the model calls, tokens, cost, fallbacks by reason,
wall time and the model's share of the steps, in total and per case.

`below_baseline(run, baseline)` is what CI uses: the cases whose passed count fell below
the one recorded in `evals/baseline.json` for the same mode.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from curator import CaseError
from curator.evals.runner import CaseResult, RunReport

FIGURES = ("model_calls", "prompt_tokens", "completion_tokens", "cost", "wall_seconds")


class Flip(BaseModel):
    case: str
    index: int
    expect: str
    after: str
    was: str  # "pass", "fail" or "absent"
    now: str
    reason: str = ""  # why it fails now, when it does


class CaseDelta(BaseModel):
    case: str
    passed: tuple[int, int]
    checks: tuple[int, int]
    figures: dict[str, tuple[float | None, float | None]]


class RunDiff(BaseModel):
    modes: tuple[str, str]
    pass_rate: tuple[float, float]
    passed: tuple[int, int]
    checks: tuple[int, int]
    figures: dict[str, tuple[float | None, float | None]]
    fallbacks_by_reason: dict[str, tuple[int, int]]
    flips: list[Flip] = Field(default_factory=list)
    cases: list[CaseDelta] = Field(default_factory=list)
    only_in_a: list[str] = Field(default_factory=list)
    only_in_b: list[str] = Field(default_factory=list)


def load_run(path: Path) -> RunReport:
    """A run's JSON, or `CaseError` naming the file when it is not one."""
    try:
        return RunReport.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError) as error:
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CaseError(f"not an eval run (curator eval run --json): {first}", path=str(path)) from error


def diff_runs(a: RunReport, b: RunReport) -> RunDiff:
    ta, tb = a.totals, b.totals
    cases_a, cases_b = {c.name: c for c in a.cases}, {c.name: c for c in b.cases}
    reasons = sorted(set(ta.fallbacks_by_reason) | set(tb.fallbacks_by_reason))
    out = RunDiff(modes=(a.mode, b.mode), pass_rate=(ta.pass_rate, tb.pass_rate),
                  passed=(ta.passed, tb.passed), checks=(ta.checks, tb.checks),
                  figures={f: (getattr(ta, f), getattr(tb, f)) for f in FIGURES}
                  | {"model_share": (a.steps.model_share, b.steps.model_share)},
                  fallbacks_by_reason={r: (ta.fallbacks_by_reason.get(r, 0), tb.fallbacks_by_reason.get(r, 0))
                                       for r in reasons},
                  only_in_a=sorted(set(cases_a) - set(cases_b)),
                  only_in_b=sorted(set(cases_b) - set(cases_a)))
    for name in [c.name for c in b.cases if c.name in cases_a]:
        before, after = cases_a[name], cases_b[name]
        out.flips += _flips(before, after)
        out.cases.append(CaseDelta(
            case=name, passed=(before.passed, after.passed),
            checks=(before.passed + before.failed, after.passed + after.failed),
            figures={f: (getattr(before.metrics, f), getattr(after.metrics, f)) for f in FIGURES}
            | {"model_share": (before.steps.model_share, after.steps.model_share)}))
    return out


def _flips(before: CaseResult, after: CaseResult) -> list[Flip]:
    old, new = {c.index: c for c in before.checks}, {c.index: c for c in after.checks}
    flips = []
    for index in sorted(set(old) | set(new)):
        was, now = old.get(index), new.get(index)
        state_was = "absent" if was is None else "pass" if was.passed else "fail"
        state_now = "absent" if now is None else "pass" if now.passed else "fail"
        if state_was != state_now:
            check = now or was
            assert check is not None
            reason = now.reason if now is not None and not now.passed else ""
            flips.append(Flip(case=after.name, index=index, expect=check.expect, after=check.after,
                              was=state_was, now=state_now, reason=reason))
    return flips


def format_diff(diff: RunDiff) -> str:
    """The diff as lines for a terminal."""
    (ra, rb), (pa, pb), (ca, cb) = diff.pass_rate, diff.passed, diff.checks
    lines = [f"A ({diff.modes[0]}) → B ({diff.modes[1]}): expectations {pa}/{ca} → {pb}/{cb} "
             f"({100 * ra:.1f}% → {100 * rb:.1f}%)"]
    for figure, (x, y) in diff.figures.items():
        if x != y:
            lines.append(f"  {figure}: {_num(x)} → {_num(y)}")
    for reason, (x, y) in diff.fallbacks_by_reason.items():
        if x != y:
            lines.append(f"  fallbacks ({reason}): {x} → {y}")
    if diff.flips:
        lines.append(f"{len(diff.flips)} expectation(s) flipped:")
        for flip in diff.flips:
            why = f": {flip.reason}" if flip.reason else ""
            lines.append(f"  {flip.case} #{flip.index} after {flip.after}, {flip.expect}: "
                         f"{flip.was} → {flip.now}{why}")
    else:
        lines.append("No expectation flipped.")
    for name in diff.only_in_a:
        lines.append(f"  case only in A: {name}")
    for name in diff.only_in_b:
        lines.append(f"  case only in B: {name}")
    return "\n".join(lines)


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.4f}".rstrip("0").rstrip(".") if isinstance(value, float) else str(value)


# -- the baseline CI holds runs to ------------------------------------------------------------

def baseline_entry(run: RunReport) -> dict[str, Any]:
    """What `evals/baseline.json` records of a run, per mode: passed and checks per case, and
    how many steps a model decided (held too: a replay whose recorded answers went missing
    falls back and can pass as many expectations, but it no longer measures the model)."""
    return {"pass_rate": round(run.totals.pass_rate, 4),
            "cases": {c.name: {"passed": c.passed, "checks": c.passed + c.failed,
                               "model_steps": c.steps.model} for c in run.cases}}


def below_baseline(run: RunReport, baseline: dict[str, Any]) -> list[str]:
    """Why `run` falls short of the baseline for its mode (empty: it does not). A case that
    passes more than its baseline is fine; one missing from the run, or whose model decided
    fewer steps than the baseline's, is a shortfall."""
    entry = baseline.get(run.mode)
    if entry is None:
        return [f"the baseline has no entry for mode {run.mode!r}"]
    got = {c.name: c for c in run.cases}
    short = []
    for name, want in sorted(entry.get("cases", {}).items()):
        case = got.get(name)
        if case is None:
            short.append(f"{name}: in the baseline but not run")
        elif case.passed < want["passed"]:
            failed = [f"#{c.index} {c.expect}: {c.reason}" for c in case.checks if not c.passed]
            short.append(f"{name}: {case.passed} passed, baseline {want['passed']} "
                         f"({'; '.join(failed)})")
        elif case.steps.model < want.get("model_steps", 0):
            short.append(f"{name}: {case.steps.model} steps decided by the model, baseline "
                         f"{want['model_steps']} (answers not recorded or refused: "
                         f"scripts/local_model_record.sh asks for what is missing)")
    return short


def read_baseline(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise CaseError(f"not a baseline file: {error}", path=str(path)) from error
    if not isinstance(data, dict):
        raise CaseError("not a baseline file: expected an object of modes", path=str(path))
    return data


def update_baseline(path: Path, run: RunReport) -> None:
    """Record `run` as the baseline for its mode, keeping the other modes' entries."""
    data = read_baseline(path) if path.exists() else {}
    data[run.mode] = baseline_entry(run)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
