"""The turn commands: `observe` (one turn), `end-episode` and `fade`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from curator.cli.options import (
    db_option,
    json_option,
    model_options,
    one_line_errors,
    open_curator,
    print_json,
    settings_from_options,
)
from curator.domain.models import MAX_TURN_JSON, display_name
from curator.domain.results import ChangeSet


@click.command()
@click.option("--file", "file", type=click.File("rb"), default="-",
              help="Turn JSON file (default: standard input)")
@model_options
@db_option
@json_option
@one_line_errors
def observe(file: Any, model: str | None, api_base: str | None, mode: str | None,
            concurrency: int | None, record_dir: Path | None,
            reading: str | None, db: str, as_json: bool) -> None:
    """Observe one turn, given as a JSON object on stdin or in --file."""
    text = file.read(MAX_TURN_JSON + 1)  # a longer one is refused by its length, unread
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir, reading)
    with open_curator(db, model=settings) as curator:
        result = curator.observe(text)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    if result.duplicate:
        click.echo(f"Turn {result.turn_id} was already observed; nothing changed.")
        return
    click.echo(f"Turn {result.turn_id} at {result.world_time}: {len(result.formed)} formed, "
               f"{len(result.reinforced)} reinforced, {len(result.archived)} archived, "
               f"{len(result.promoted)} made core ({result.elapsed_ms:.1f} ms)")
    for change in result.formed:
        about = display_name(change.subject) if change.subject else "self"
        kept = f" ({change.reason})" if change.kept_by else ""  # kept by appraisal: a lens or a link
        click.echo(f"  {display_name(change.owner)} → {about}: {change.content}{kept}")


def _print_changes(changes: ChangeSet, as_json: bool, headline: str) -> None:
    if as_json:
        print_json(changes.model_dump(mode="json"))
        return
    click.echo(headline)
    for summary in changes.summaries_revised:
        click.echo(f"  {display_name(summary.owner)} on {display_name(summary.other)}: {summary.summary}")
    for change in changes.promoted:
        click.echo(f"  core: {change.content}")


@click.command(name="end-episode")
@click.argument("character")
@click.option("--with", "with_", help="Only the relationship with this character")
@model_options
@db_option
@json_option
@one_line_errors
def end_episode(character: str, with_: str | None, model: str | None, api_base: str | None,
                mode: str | None, concurrency: int | None, record_dir: Path | None,
                reading: str | None, db: str, as_json: bool) -> None:
    """End an episode for CHARACTER: fold recent memories into summaries, consider core."""
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir, reading)
    with open_curator(db, model=settings) as curator:
        changes = curator.end_episode(character, with_)
    _print_changes(changes, as_json, f"Episode ended: {len(changes.summaries_revised)} summaries "
                   f"revised, {len(changes.promoted)} made core, "
                   f"{len(changes.archived) + len(changes.forgotten)} archived")


@click.command()
@click.option("--until", "until", required=True, help="World time (ISO 8601) to fade memories to")
@db_option
@json_option
@one_line_errors
def fade(until: str, db: str, as_json: bool) -> None:
    """Let memories fade with game time up to --until; fully faded ones go to the archive."""
    with open_curator(db) as curator:
        changes = curator.fade(until)
    if as_json:
        print_json(changes.model_dump(mode="json"))
        return
    click.echo(f"Faded to {until}: {len(changes.forgotten)} memories forgotten (archived)")
    for change in changes.forgotten:
        click.echo(f"  {display_name(change.owner)}: {change.content}")
