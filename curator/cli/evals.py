"""The `curator eval` group: `eval run` (play eval cases and score their expectations, in a
mode, with an optional HTML report and a baseline to hold the run to), `eval diff` (two runs)
and `eval locomo` (retrieval recall on LoCoMo conversations).

Registered on the `curator` group by main.py. The eval runner lives in `curator.evals` (modes,
report, diffs and baselines), imported when a command runs, not for `curator --help`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from curator.cli.eval_semantic import (
    embedder_or_reason,
    embeddings_option,
    locomo_embedding_lines,
    paraphrase_command,
    weight_option,
)
from curator.cli.options import json_option, one_line_errors, print_json

if TYPE_CHECKING:  # the runner is imported when a run starts, not for `curator --help`
    from curator.evals.runner import CaseResult, RunReport

@click.group(name="eval")
def eval_group() -> None:
    """Evaluations: scored runs over eval cases and benchmark data."""


eval_group.add_command(paraphrase_command)
CASES_DIR = Path("evals") / "cases"


def _in_checkout(relative: Path) -> Path | None:
    """`relative` under the working directory, else in the checkout curator runs from."""
    for base in (Path.cwd(), Path(__file__).resolve().parents[2]):  # curator/cli/evals.py
        if (base / relative).is_dir():
            return base / relative
    return None


def default_cases() -> Path:
    """evals/cases/, found by `_in_checkout`."""
    found = _in_checkout(CASES_DIR)
    if found is None:
        raise click.UsageError("no CASES given and no evals/cases/ here: name case files or directories")
    return found


def shipped_baseline(mode: str) -> Path | None:
    """evals/baseline.json beside the shipped cases, if it holds an entry for `mode`."""
    from curator.evals.diff import read_baseline

    cases = _in_checkout(CASES_DIR)
    path = cases.parent / "baseline.json" if cases is not None else None
    if path is None or not path.is_file() or mode not in read_baseline(path):
        return None
    return path


def default_fixtures() -> Path:
    """The shipped fixture set (evals/fixtures/qwen1.5b/), found like the cases; if it is not
    there, the relative path, so that replay names what it looked for."""
    from curator.evals.modes import DEFAULT_FIXTURES

    return _in_checkout(DEFAULT_FIXTURES) or DEFAULT_FIXTURES


def model_source_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Where a run's answers come from: --model and --api-base (live), --fixtures (replay),
    --record and --prune (live, saving what it is told)."""
    for option in reversed([
        click.option("--model", help="--mode live: the model as litellm names it (else $CURATOR_MODEL)"),
        click.option("--api-base", help="--mode live: an OpenAI-compatible server (else $CURATOR_API_BASE)"),
        click.option("--fixtures", type=click.Path(file_okay=False, path_type=Path),
                     help="--mode replay: the fixture set (default evals/fixtures/qwen1.5b)"),
        click.option("--record", type=click.Path(file_okay=False, path_type=Path),
                     help="--mode live: save every response here as a fixture set for --mode replay; "
                          "answers already there are reused, so a stopped recording resumes"),
        click.option("--prune", is_flag=True,
                     help="With --record: afterwards delete what each case's run did not use"),
    ]):
        command = option(command)
    return command


def chosen_mode(mode: str, *, model: str | None, api_base: str | None, fixtures: Path | None,
                record: Path | None, prune: bool) -> Any:
    """The mode the options name, or a usage error for an option the mode does not take."""
    from curator.evals.modes import make_mode

    if (model or api_base) and mode != "live":
        raise click.UsageError("--model and --api-base are for --mode live")
    if record is not None and mode != "live":
        raise click.UsageError("--record is for --mode live")
    if prune and record is None:
        raise click.UsageError("--prune is for --record")
    if fixtures is not None and mode != "replay":
        raise click.UsageError("--fixtures is for --mode replay")
    return make_mode(mode, model=model, api_base=api_base, prune=prune, record=record,
                     fixtures=fixtures or (default_fixtures() if mode == "replay" else None))


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
    s, share = report.steps, report.steps.model_share
    steps = f"steps: {s.model} by the model, {s.fallback} by the fallback" + (
        f" ({100 * share:.1f}% model)" if share is not None else "")
    click.echo(f"Totals ({report.mode}): {t.cases_ok}/{t.cases} cases, {t.passed}/{t.checks} expectations "
               f"passed ({100 * t.pass_rate:.1f}%); model calls {t.model_calls}, tokens "
               f"{t.prompt_tokens}+{t.completion_tokens}{cost}; {steps}; fallbacks: {fallbacks}; "
               f"{t.wall_seconds:.2f}s")


@eval_group.command(name="run")
@click.argument("cases", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--mode", type=click.Choice(["fallback", "replay", "live"]), default="fallback",
              show_default=True,
              help="fallback: rules only; replay: recorded model responses; live: a configured model")
@model_source_options
@click.option("--series", is_flag=True,
              help="With --json: also each case's per-turn series (feelings, tiers, strengths, steps)")
@click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write DIR/index.html (self-contained, with plots) and DIR/report.json")
@click.option("--baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Fail (exit 1) only when a case passes fewer expectations than this baseline")
@click.option("--no-baseline", is_flag=True,
              help="With no CASES: every expectation must pass, not only the shipped baseline's")
@click.option("--write-baseline", type=click.Path(dir_okay=False, path_type=Path),
              help="Record this run as the baseline for its mode in FILE (other modes kept)")
@json_option
@one_line_errors
def run_command(cases: tuple[Path, ...], mode: str, model: str | None, api_base: str | None,
                fixtures: Path | None, record: Path | None, prune: bool, series: bool,
                report_dir: Path | None, baseline: Path | None, no_baseline: bool,
                write_baseline: Path | None, as_json: bool) -> None:
    """Run eval CASES (case files, or directories of them; default: evals/cases/).

    Each case plays its turns into a fresh world and checks its expectations at the turns
    they name. Prints a line per case, the failed expectations with their reasons and the
    totals; --json prints one document: {"mode", "model", "cases": [...], "totals": {...},
    "not_recorded": [...]}. In replay mode, cases with no recorded fixtures are not run and
    are listed as not recorded.

    With no CASES the run is held to the shipped evals/baseline.json when it has an entry for
    the mode (as CI holds it; --no-baseline asks every expectation to pass instead).

    Exit status: 0 when every expectation passed (with a baseline: when no case fell below
    it); 1 when any failed (or a run stopped early); 2 when a case file is malformed or the
    arguments are wrong.
    """
    from curator.evals.cases import load_cases
    from curator.evals.diff import below_baseline, read_baseline, update_baseline
    from curator.evals.runner import run_cases

    chosen = chosen_mode(mode, model=model, api_base=api_base, fixtures=fixtures, record=record,
                         prune=prune)
    if no_baseline and (baseline is not None or cases):
        raise click.UsageError("--no-baseline is for a run of the shipped cases without --baseline")
    if baseline is None and not cases and not no_baseline:
        baseline = shipped_baseline(mode)
    held_to = read_baseline(baseline) if baseline is not None else None
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

        report = run_cases(loaded, chosen, series=(series and as_json) or report_dir is not None,
                           on_case=done)
    if report_dir is not None:
        from curator.evals.report import write_report

        page = write_report(report, report_dir)
        click.echo(f"report: {page}", err=True)
        if not (series and as_json):
            for case in report.cases:
                case.series = None
    if as_json:
        print_json(report.model_dump(mode="json", exclude_none=False))
    else:
        if report.not_recorded:
            names = ", ".join(report.not_recorded)
            click.echo(f"not recorded ({len(report.not_recorded)}, not run): {names}")
        _print_totals(report)
    if write_baseline is not None:
        update_baseline(write_baseline, report)
        click.echo(f"baseline for {report.mode} written to {write_baseline}", err=True)
    if held_to is not None:
        short = below_baseline(report, held_to)
        for line in short:
            click.echo(f"below baseline: {line}", err=True)
        if not short:
            click.echo(f"baseline {baseline} ({report.mode}): no case below it", err=True)
        sys.exit(1 if short else 0)
    if report.totals.failed:
        sys.exit(1)


@eval_group.command(name="diff")
@click.argument("a", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("b", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@json_option
@one_line_errors
def diff_command(a: Path, b: Path, as_json: bool) -> None:
    """Compare two eval runs (the JSON of `curator eval run --json`, or a report's report.json).

    Lists the expectations that flipped (pass to fail, fail to pass, added, removed) with the
    reason each fails now, and how the pass rate, model calls, tokens, cost, fallbacks by
    reason and wall time moved. --json prints the comparison as one document.
    """
    from curator.evals.diff import diff_runs, format_diff, load_run

    diff = diff_runs(load_run(a), load_run(b))
    if as_json:
        print_json(diff.model_dump(mode="json"))
    else:
        click.echo(format_diff(diff))


@eval_group.command(name="locomo")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--k", "ks", default="5,10,25,50", show_default=True,
              help="Comma-separated cut-offs for recall@k")
@click.option("--tune/--no-tune", default=True, show_default=True,
              help="Score leaving one conversation out (minutes); --no-tune: the shipped weights alone")
@embeddings_option
@weight_option
@json_option
@one_line_errors
def locomo_command(path: Path, ks: str, tune: bool, embeddings: str | None, weight: float | None,
                   as_json: bool) -> None:
    """Retrieval recall@k on LoCoMo conversations (no model; embeddings with --embeddings).

    Plays each conversation into a scratch world (every utterance a turn, observed by a
    listener), then asks recall for each question's evidence turns. The headline figure
    leaves one conversation out: relevance's weights chosen on the others, scored on it;
    the fitted figure (chosen on all) and the shipped weights' are beside it."""
    from curator.evals.locomo_tuning import evaluate

    try:
        cutoffs = sorted({int(k) for k in ks.split(",") if k.strip()})
    except ValueError as error:
        raise click.BadParameter(f"--k takes numbers like 5,10,25: {error}") from error
    if not cutoffs or min(cutoffs) < 1:
        raise click.BadParameter("--k takes positive numbers like 5,10,25")
    started = time.perf_counter()
    quiet = as_json or not sys.stderr.isatty()
    embedder, reason = embedder_or_reason(embeddings)
    result = evaluate(path, cutoffs, tune=tune, embedder=embedder,
                      weights=None if weight is None else [weight],
                      progress=None if quiet else lambda line: click.echo(line, err=True))
    if as_json:
        print_json({**result, "embeddings_not_run": reason} if embeddings else result)
        return
    seconds = time.perf_counter() - started
    click.echo(f"LoCoMo retrieval, {result['questions']} questions, {seconds:.1f} s")
    click.echo("\n".join(locomo_table(result, cutoffs)))
    for line in locomo_embedding_lines(result, cutoffs, reason):
        click.echo(line)


def locomo_table(result: dict[str, Any], cutoffs: list[int]) -> list[str]:
    """Recall@k overall and by category: held out, and beside it fitted and shipped when tuned."""
    columns = [("held-out" if "fitted" in result else "", result)]
    if "fitted" in result:
        columns += [("fitted", result["fitted"]), ("shipped", result["shipped"])]
    rows = [("overall", [c["recall"] for _, c in columns])]
    rows += [(name, [c["by_category"].get(name, {}) for _, c in columns]) for name in result["by_category"]]
    table = [(name, ["  ".join(f"@{k} {100 * v.get(str(k), 0.0):5.1f}" for k in cutoffs) for v in values])
             for name, values in rows]
    widths = [len(cell) for cell in table[0][1]]
    head = "  ".join(f"{name:<{w}}" for (name, _), w in zip(columns, widths, strict=True))
    lines = ["  " + " " * 12 + head.rstrip()]
    lines += [f"  {name:<12}" + "  ".join(cells) for name, cells in table]
    return lines if "fitted" in result else lines[1:]


JUDGE_DIR = Path("evals") / "judge"


def _judge_table(columns: dict[str, dict[str, Any]]) -> list[str]:
    names = list(columns)
    lines = [f"  {'field':<14}" + "".join(f"{n:>12}" for n in names)]
    for name in (*JUDGE_FIELDS, "overall"):
        row = "".join(f"{100 * columns[n]['accuracy'][name]:11.1f}%" for n in names)
        lines.append(f"  {name:<14}{row}")
    return lines


JUDGE_FIELDS = ("gap", "helped", "harmed", "valence", "significance", "core", "insignificant")


@eval_group.command(name="judge")
@click.argument("stories", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--mode", type=click.Choice(["fallback", "replay", "live"]), default="fallback",
              show_default=True,
              help="replay or live: score the model's readings beside the fallback's")
@click.option("--split", type=click.Choice(["dev", "test", "all"]), default="all", show_default=True,
              help="Score the dev turns, the held-out test turns, or all")
@model_source_options
@click.option("--misses", is_flag=True, help="Also list every field read wrong")
@json_option
@one_line_errors
def judge_command(stories: tuple[Path, ...], mode: str, split: str, model: str | None,
                  api_base: str | None, fixtures: Path | None, record: Path | None, prune: bool,
                  misses: bool, as_json: bool) -> None:
    """Score how turns are read, against a careful reader's gold labels (STORIES: judgement
    story files or directories; default evals/judge/).

    Each story is played into a fresh world; each perceiver's reading of each turn (the gap,
    who helped, who harmed, its feelings, the significance, core, insignificant) is compared
    with the gold. Prints each field's accuracy, the fallback's and, with --mode replay or
    live, the model's beside it; --json prints {"fallback": {...}, "model": {...}} with the
    accuracies, counts and (with --misses) the misses.
    """
    from curator.evals.judge import judge, load_stories
    from curator.evals.modes import FallbackMode

    chosen = chosen_mode(mode, model=model, api_base=api_base, fixtures=fixtures, record=record,
                         prune=prune)
    default = _in_checkout(JUDGE_DIR)
    if not stories and default is None:
        raise click.UsageError("no STORIES given and no evals/judge/ here")
    loaded = load_stories(list(stories) or [default])  # type: ignore[list-item]
    reports = {"fallback": judge(loaded, FallbackMode(), split=split)}
    if mode != "fallback":
        reports["model"] = judge(loaded, chosen, split=split)
    columns = {name: r.summary() for name, r in reports.items()}
    if as_json:
        if misses:
            for name, r in reports.items():
                columns[name]["misses"] = [m.model_dump(mode="json") for m in r.misses]
        print_json(columns)
        return
    click.echo(f"Judgement, {split} turns, {', '.join(s.genre for s in loaded)}")
    for name, column in columns.items():
        click.echo(f"  {name}: {column['readings']} readings, {column['decided_by_model']} by a model"
                   + (f"; {len(column['errors'])} error(s): {'; '.join(column['errors'][:3])}"
                      if column["errors"] else ""))
    for line in _judge_table(columns):
        click.echo(line)
    if misses:
        for name, r in reports.items():
            for m in r.misses:
                click.echo(f"  [{name}] {m.story} {m.turn} {m.character} {m.field}: "
                           f"gold {m.gold}, read {m.read}")
