"""The `curator` group, its one-line usage errors and exit statuses (signals.py: Ctrl-C 130,
SIGTERM 143), and the turn commands `observe`, `end-episode` and `fade`. `play` and the other
command groups live in their own modules, registered at the end; all of them share their
options through `options.py`.
"""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path
from typing import Any

import click

from curator.cli.blocks import block, delete_command, passage
from curator.cli.evals import eval_group
from curator.cli.evolve import evolution_group, evolve_command
from curator.cli.goals import abilities_command, goal
from curator.cli.options import (
    db_option,
    json_option,
    model_options,
    one_line_errors,
    open_curator,
    print_json,
    settings_from_options,
)
from curator.cli.play import play
from curator.cli.recall import context_command, search_command
from curator.cli.signals import sigterm_raises, stop_status
from curator.cli.world import (
    calls_command,
    characters_command,
    clock_command,
    export_command,
    import_command,
    show,
)
from curator.domain.errors import InvalidInput, WorldLocked
from curator.domain.models import MAX_TURN_JSON, display_name
from curator.domain.results import ChangeSet


class OneLineErrors(click.Group):
    """Click's usage errors as one line on stderr too ("Error: … (see curator play --help)"),
    and a stop (Ctrl-C, SIGTERM) as "Interrupted." or "Terminated." with 130 or 143."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        with sigterm_raises():
            self._main(*args, **kwargs)

    def _main(self, *args: Any, **kwargs: Any) -> None:
        try:
            code = super().main(*args, **kwargs)
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx else "curator"
            click.echo(f"Error: {error.format_message()} (see {where} --help)", err=True)
            sys.exit(error.exit_code)
        except click.ClickException as error:
            click.echo(f"Error: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except click.Abort as error:
            # click turns KeyboardInterrupt (and so signals.Terminated) into Abort
            if isinstance(error.__cause__, KeyboardInterrupt):
                word, status = stop_status(error.__cause__)
                click.echo(f"{word}.", err=True)
                sys.exit(status)
            click.echo("Aborted.", err=True)
            sys.exit(1)
        # The last net, so that no error is a traceback: what the commands do not turn into a
        # CuratorError themselves (a binary file named where text belongs, an --out directory
        # that does not exist, a world file SQLite cannot open).
        except UnicodeDecodeError as error:
            click.echo(f"Error: invalid input: not UTF-8 text ({error.reason} at byte {error.start})",
                       err=True)
            sys.exit(InvalidInput.exit_code)
        except OSError as error:
            where = f": {error.filename}" if error.filename else ""
            click.echo(f"Error: {error.strerror or error}{where}", err=True)
            sys.exit(1)
        except sqlite3.Error as error:
            click.echo(f"Error: world file: {error}", err=True)
            sys.exit(WorldLocked.exit_code if "locked" in str(error) else 1)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=OneLineErrors)
@click.version_option(package_name="curator")
def cli() -> None:
    """curator: memories for game characters and agents.

    A game calls curator after every turn with what a character meant to do and what
    actually happened; curator keeps the memories (recent, long-term summary, core), lets
    them fade, and works with no language model at all.
    """


@cli.command()
@click.option("--file", "file", type=click.File("rb"), default="-",
              help="Turn JSON file (default: standard input)")
@model_options
@db_option
@json_option
@one_line_errors
def observe(file: Any, model: str | None, api_base: str | None, mode: str | None,
            concurrency: int | None, record_dir: Path | None, db: str, as_json: bool) -> None:
    """Observe one turn, given as a JSON object on stdin or in --file."""
    text = file.read(MAX_TURN_JSON + 1)  # a longer one is refused by its length, unread
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir)
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


@cli.command(name="end-episode")
@click.argument("character")
@click.option("--with", "with_", help="Only the relationship with this character")
@model_options
@db_option
@json_option
@one_line_errors
def end_episode(character: str, with_: str | None, model: str | None, api_base: str | None,
                mode: str | None, concurrency: int | None, record_dir: Path | None, db: str,
                as_json: bool) -> None:
    """End an episode for CHARACTER: fold recent memories into summaries, consider core."""
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir)
    with open_curator(db, model=settings) as curator:
        changes = curator.end_episode(character, with_)
    _print_changes(changes, as_json, f"Episode ended: {len(changes.summaries_revised)} summaries "
                   f"revised, {len(changes.promoted)} made core, "
                   f"{len(changes.archived) + len(changes.forgotten)} archived")


@cli.command()
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


for _command in (play, block, passage, delete_command, context_command, search_command, eval_group,
                 evolve_command, evolution_group, goal, abilities_command, show, characters_command,
                 export_command, import_command, clock_command, calls_command):
    cli.add_command(_command)
