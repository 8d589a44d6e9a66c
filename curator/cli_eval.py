"""`curator eval run`: play eval cases (evals/cases/) and score their expectations.

Registered on the `eval` group of cli_recall.py (imported at the end of cli.py). The modes
are the runner's factories (evalrun.FACTORIES): `fallback` today; `replay` and `live` answer
"not implemented yet" until their factories are added there.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from curator.cli import _print_json, json_option, one_line_errors
from curator.cli_recall import eval_group

if TYPE_CHECKING:  # the runner is imported when a run starts, not for `curator --help`
    from curator.evalrun import CaseResult, RunReport

CASES_DIR = Path("evals") / "cases"


def default_cases() -> Path:
    """evals/cases/ under the working directory, else in the checkout curator runs from."""
    for base in (Path.cwd(), Path(__file__).resolve().parent.parent):
        if (base / CASES_DIR).is_dir():
            return base / CASES_DIR
    raise click.UsageError("no CASES given and no evals/cases/ here: name case files or directories")


def _case_line(result: CaseResult) -> str:
    mark = "✓" if result.ok else "✗"
    total = result.passed + result.failed
    return (f"{mark} {result.name:<28} {result.passed:>3}/{total:<3} {result.metrics.wall_seconds:6.2f}s  "
            f"{result.about}")


def _print_case(result: CaseResult) -> None:
    click.echo(_case_line(result))
    if result.error:
        click.echo(f"    ! {result.error}")
    for check in result.checks:
        if not check.passed:
            click.echo(f"    ✗ #{check.index} after {check.after}, {check.expect}: {check.reason}")
            if check.note:
                click.echo(f"      ({check.note})")


def _print_totals(report: RunReport) -> None:
    t = report.totals
    fallbacks = ", ".join(f"{n} ({reason})" for reason, n in sorted(t.fallbacks_by_reason.items())) or "none"
    cost = f", cost ${t.cost:.4f}" if t.cost is not None else ""
    click.echo(f"Totals ({report.mode}): {t.cases_ok}/{t.cases} cases, {t.passed}/{t.checks} expectations "
               f"passed ({100 * t.pass_rate:.1f}%); model calls {t.model_calls}, tokens "
               f"{t.prompt_tokens}+{t.completion_tokens}{cost}; fallbacks: {fallbacks}; "
               f"{t.wall_seconds:.2f}s")


@click.command(name="run")
@click.argument("cases", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--mode", type=click.Choice(["fallback", "replay", "live"]), default="fallback",
              show_default=True,
              help="fallback: rules only; replay: recorded model responses; live: a configured model")
@click.option("--model", help="The model for --mode live, as litellm names it")
@click.option("--series", is_flag=True,
              help="With --json: also each case's per-turn series (feelings, tiers, strengths, steps)")
@json_option
@one_line_errors
def run_command(cases: tuple[Path, ...], mode: str, model: str | None, series: bool, as_json: bool) -> None:
    """Run eval CASES (case files, or directories of them; default: evals/cases/).

    Each case plays its turns into a fresh world and checks its expectations at the turns
    they name. Prints a line per case, the failed expectations with their reasons and the
    totals; --json prints one document: {"mode", "cases": [...], "totals": {...}}.

    Exit status: 0 when every expectation passed; 1 when any failed (or a run stopped early);
    2 when a case file is malformed or the arguments are wrong.
    """
    from curator.evalcases import load_cases
    from curator.evalrun import FACTORIES, run_cases

    if mode not in FACTORIES:
        raise click.UsageError(f"--mode {mode} is not implemented yet (available: {', '.join(FACTORIES)})")
    if model is not None and mode != "live":
        raise click.UsageError("--model is for --mode live")
    loaded = load_cases(list(cases) or [default_cases()])
    if not loaded:
        raise click.UsageError("no case files (*.yaml, *.yml, *.json) found")
    show_bar = as_json and sys.stderr.isatty()
    with click.progressbar(length=len(loaded), label="Running cases", file=sys.stderr,
                           hidden=not show_bar) as bar:
        def done(result: CaseResult) -> None:
            if as_json:
                bar.update(1)
            else:
                _print_case(result)

        report = run_cases(loaded, FACTORIES[mode], mode=mode, model=model, series=series and as_json,
                           on_case=done)
    if as_json:
        _print_json(report.model_dump(mode="json", exclude_none=False))
    else:
        _print_totals(report)
    if report.totals.failed:
        sys.exit(1)


eval_group.add_command(run_command)
