"""The command line for goals and practice: `curator goal …` and `curator abilities`.

Registered on the `curator` group by main.py, with the shared conventions (options.py): `--db` after
the command's name, `--json` on the commands that show state, errors as one line on stderr
(exit status 2 for bad input). Goals are the game's to set; curator keeps them, logs their
progress and shows the active ones in the context (the `goals` layer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from curator.api.curator import Curator
from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.models import display_name, iso
from curator.evolution.goals import Goal, progress_bar


def _open(db: str, *, read: bool = False) -> Curator:
    return open_curator(db, read=read, model=None, decider=READ_ONLY)


def _print_goal(goal: Goal) -> None:
    status = "" if goal.status == "active" else f" [{goal.status}]"
    priority = f" (priority {goal.priority})" if goal.priority else ""
    click.echo(f"{goal.label}: {goal.description} {progress_bar(goal.progress)} {goal.progress:.0%}"
               f"{priority}{status}")


note_option = click.option("--note", default="", help="Why it changed (kept in the goal's history)")
F = TypeVar("F", bound=Callable[..., Any])


def goal_target(fn: F) -> F:
    """CHARACTER LABEL, the two arguments of every command about one goal."""
    return click.argument("character")(click.argument("label")(fn))


@click.group()
def goal() -> None:
    """Goals: what a character is working toward, with progress the game sets (0 to 1).

    Active goals appear in the character's context (the goals layer, highest priority
    first); every change of progress is kept with the world time and a note, and an
    evolution cycle's report shows how far each goal moved since the last cycle.
    """


@goal.command(name="list")
@click.argument("character")
@click.option("--all", "include_closed", is_flag=True, help="Also goals that are done or abandoned")
@db_option
@json_option
@one_line_errors
def goal_list(character: str, include_closed: bool, db: str, as_json: bool) -> None:
    """List CHARACTER's active goals (with --all, the closed ones too)."""
    with _open(db, read=True) as curator:
        goals = curator.goals.list(character, include_closed=include_closed)
        who = curator.world.known_character(character)
    if as_json:
        print_json([g.model_dump(mode="json") for g in goals])
        return
    if not goals:
        click.echo(f"{display_name(who)} has no {'' if include_closed else 'active '}goals.")
    for one in goals:
        _print_goal(one)


@goal.command(name="set")
@goal_target
@click.argument("description", required=False)
@click.option("--progress", type=float, help="How far along, 0 to 1 (1 marks it done)")
@click.option("--priority", type=int, help="Higher comes first in the context")
@note_option
@db_option
@one_line_errors
def goal_set(character: str, label: str, description: str | None, progress: float | None,
             priority: int | None, note: str, db: str) -> None:
    """Create goal LABEL for CHARACTER (a DESCRIPTION is needed), or change its description,
    --progress or --priority."""
    with _open(db) as curator:
        _print_goal(curator.goals.set(character, label, description, progress=progress, priority=priority,
                                      note=note))


@goal.command(name="advance")
@goal_target
@click.argument("by", type=float)
@note_option
@db_option
@one_line_errors
def goal_advance(character: str, label: str, by: float, note: str, db: str) -> None:
    """Move goal LABEL's progress by BY (e.g. 0.1, or -0.2 for a setback)."""
    with _open(db) as curator:
        _print_goal(curator.goals.advance(character, label, by, note=note))


@goal.command(name="done")
@goal_target
@note_option
@db_option
@one_line_errors
def goal_done(character: str, label: str, note: str, db: str) -> None:
    """Mark goal LABEL of CHARACTER done."""
    with _open(db) as curator:
        _print_goal(curator.goals.complete(character, label, note=note))


@goal.command(name="abandon")
@goal_target
@note_option
@db_option
@one_line_errors
def goal_abandon(character: str, label: str, note: str, db: str) -> None:
    """Close goal LABEL of CHARACTER without reaching it."""
    with _open(db) as curator:
        _print_goal(curator.goals.abandon(character, label, note=note))


@goal.command(name="delete")
@goal_target
@db_option
@one_line_errors
def goal_delete(character: str, label: str, db: str) -> None:
    """Forget goal LABEL of CHARACTER and its history."""
    with _open(db, read=True) as curator:
        curator.goals.delete(character, label)
    click.echo(f"Deleted goal {label}")


@goal.command(name="history")
@goal_target
@db_option
@json_option
@one_line_errors
def goal_history(character: str, label: str, db: str, as_json: bool) -> None:
    """Every change of goal LABEL's progress, oldest first."""
    with _open(db, read=True) as curator:
        steps = curator.goals.history(character, label)
    if as_json:
        print_json([s.model_dump(mode="json") for s in steps])
        return
    for step in steps:
        click.echo(f"{iso(step.world_time)} {progress_bar(step.progress)} {step.progress:.0%}"
                   + (f"  {step.note}" if step.note else ""))


@click.command(name="abilities")
@click.argument("character")
@click.option("--habits", is_flag=True, help="Also verbs that have never gone wrong")
@db_option
@json_option
@one_line_errors
def abilities_command(character: str, habits: bool, db: str, as_json: bool) -> None:
    """What CHARACTER has tried, by skill, and how it went (the context's abilities layer).

    A skill is a turn's domain when the game sends one, else the verb of the intent
    ("Climb the old oak" → climb); everyday acts (walk, eat, sleep…) are not counted.
    """
    with _open(db, read=True) as curator:
        who = curator.world.known_character(character)
        found = curator.abilities(who, habits=habits)
    if as_json:
        print_json([{"skill": a.skill, "attempts": a.attempts, "went_as_meant": a.went_as_meant,
                      "went_wrong": a.went_wrong, "named": a.named, "verdict": a.verdict,
                      "last_at": iso(a.last_at)} for a in found])
        return
    if not found:
        click.echo(f"{display_name(who)} has no practised skills yet.")
    for a in found:
        click.echo(f"{a.skill}: {a.attempts} tries, {a.went_as_meant} went as meant, {a.went_wrong} went "
                   f"wrong; {a.verdict}")
