"""The save commands: `rewind` (to a past turn, `--undo`, `--list`) and `branch` (a new save from a
past turn), over `Curator.rewind` and `Curator.branch` (api/saves.py)."""

from __future__ import annotations

from typing import Any

import click

from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.errors import InvalidInput


def _summary(result: Any) -> str:
    aside = f"{result.set_aside_turns} turn(s) and {result.set_aside_operations} operation(s) set aside"
    back = f", {result.restored} brought back" if result.restored else ""
    return (f"{result.turns} turn(s) and {result.operations} operation(s) replayed, {aside}{back}; "
            f"decisions: {result.decisions_from_call_log} from the call log, "
            f"{result.decisions_by_fallback} by fallbacks, no model call (record #{result.rewind_id})")


@click.command(name="rewind")
@click.option("--to", "to", metavar="TURN_ID", help="The turn to go back to (the world as right after it)")
@click.option("--undo", is_flag=True, help="Undo the latest rewind (or undo)")
@click.option("--list", "listing", is_flag=True, help="List the rewinds and what each set aside")
@click.option("--reason", default="", help="Why (kept in the rewind's record)")
@click.option("--by", "by", help="Who rewinds (default: the OS user, else 'designer')")
@db_option
@json_option
@one_line_errors
def rewind_command(to: str | None, undo: bool, listing: bool, reason: str, by: str | None, db: str,
                   as_json: bool) -> None:
    """Rewind the world to right after turn --to, as when a player reloads a save (--undo, --list)."""
    if sum((to is not None, undo, listing)) != 1:
        raise InvalidInput("give one of --to TURN_ID, --undo or --list", field="to")
    with open_curator(db, read=True, model=None, decider=READ_ONLY) as curator:
        if listing:
            records = curator.rewinds()
            if as_json:
                print_json({"rewinds": [r.model_dump() for r in records]})
                return
            for r in records:
                turns = sum(s.kind == "turn" for s in r.set_aside)
                undone = f", undone by #{r.undone_by}" if r.undone_by else ""
                click.echo(f"#{r.id} {r.action} to {r.to_turn} at {r.at} by {r.by}: {turns} turn(s) and "
                           f"{len(r.set_aside) - turns} operation(s) set aside{undone}"
                           + (f" ({r.reason})" if r.reason else ""))
            if not records:
                click.echo("No rewinds.")
            return
        result = curator.rewind(to, undo=undo, reason=reason, by=by)
    if as_json:
        print_json(result.model_dump())
        return
    what = "Undone" if undo else f"Rewound to {to}"
    click.echo(f"{what}: {_summary(result)}")


@click.command(name="branch")
@click.option("--at", "at", metavar="TURN_ID", required=True, help="The turn the new save starts right after")
@click.option("--to", "to", metavar="NEW.db", required=True, type=click.Path(dir_okay=False),
              help="The new world file")
@click.option("--force", is_flag=True, help="Replace NEW.db if it exists (no process may have it open)")
@click.option("--reason", default="", help="Why (kept in the new save's record)")
@click.option("--by", "by", help="Who branches (default: the OS user, else 'designer')")
@click.option("--db", "db", type=click.Path(dir_okay=False), envvar="CURATOR_DB", default="curator.db",
              show_default=True, help="World file (SQLite); default $CURATOR_DB, else ./curator.db")
@json_option
@one_line_errors
def branch_command(at: str, to: str, force: bool, reason: str, by: str | None, db: str,
                   as_json: bool) -> None:
    """A new save slot NEW.db from a point in the past (this world is not changed)."""
    with open_curator(db, read=True, model=None, decider=READ_ONLY) as curator:
        result = curator.branch(at, to, force=force, reason=reason, by=by)
    if as_json:
        print_json(result.model_dump())
        return
    click.echo(f"Branched {to} at {at}: {_summary(result)}")
