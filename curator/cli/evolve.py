"""The command line for evolution: `curator evolve` and `curator evolution reports`.

Registered on the `curator` group by main.py, with the shared conventions (options.py): `--db` after
the command's name, `--json` prints one JSON document, errors are one line on stderr.
"""

from __future__ import annotations

from pathlib import Path

import click

from curator.cli.options import (
    check_out,
    db_option,
    json_option,
    model_options,
    one_line_errors,
    open_curator,
    out_in_a_directory,
    print_json,
    settings_from_options,
    write_out,
)
from curator.evolution.report import reports


@click.command(name="evolve")
@click.option("--world-time", "world_time",
              help="World time (ISO 8601) of the cycle; default the world clock")
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              callback=out_in_a_directory,
              help="Write the Markdown report to this file instead of stdout")
@model_options
@db_option
@json_option
@one_line_errors
def evolve_command(world_time: str | None, out: Path | None, model: str | None, api_base: str | None,
                   mode: str | None, concurrency: int | None, record_dir: Path | None,
                   reading: str | None, db: str, as_json: bool) -> None:
    """Run an evolution cycle and print its Markdown report.

    Fades memories to the cycle's time (fully faded ones go to the archive), drifts each
    character's attributes, trust and rapport with what it lived through since its last
    cycle, takes personality snapshots, detects drift and refreshes identity narratives (a
    model's with --model, else the fallback's). The report is stored in the world; running
    the cycle again at the same time changes nothing."""
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir, reading)
    if out is not None:
        check_out(out, db=db)
    with open_curator(db, model=settings) as curator:
        report = curator.evolve(world_time)
    if out is not None:
        write_out(out, report.report, db=db)
    if as_json:
        print_json(report.model_dump(mode="json"))
    elif out is not None:
        click.echo(f"Wrote the evolution report for {report.world_time} to {out} "
                   f"({len(report.characters)} characters"
                   + (", nothing new since the last cycle)" if report.unchanged else ")"))
    else:
        click.echo(report.report, nl=False)


@click.group(name="evolution")
def evolution_group() -> None:
    """Evolution: the stored reports of past cycles."""


@evolution_group.command(name="reports")
@click.option("--latest", is_flag=True, help="Only the newest report")
@db_option
@json_option
@one_line_errors
def reports_command(latest: bool, db: str, as_json: bool) -> None:
    """Print the stored evolution reports, oldest first (or only the newest with --latest)."""
    with open_curator(db, read=True, model=None) as curator:
        found = reports(curator.world, latest=latest)
    if as_json:
        print_json([r.model_dump(mode="json") for r in found])
        return
    if not found:
        raise click.ClickException("no evolution report yet (run `curator evolve` first)")
    click.echo("\n".join(r.report for r in found), nl=False)
