"""The `memory` group: a designer's hands-on edits (add, edit, pin, unpin, forget) and a memory's
history of them, over the API's `memory_*` methods (api/editing.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.models import Memory, display_name

_BY = click.option("--by", "by", help="Who makes the change (default: the OS user, else 'designer')")


@click.group(name="memory")
def memory_group() -> None:
    """Edit memories by hand: add, edit, pin, unpin, forget; and a memory's history."""


def _shown(memory: Memory, as_json: bool, verb: str) -> None:
    if as_json:
        print_json(memory.model_dump(mode="json"))
        return
    about = display_name(memory.subject) if memory.subject else "self"
    marks = [m for m in (("pinned" if memory.pinned else ""),
                         (f"written by {memory.written_by}" if memory.written_by else ""),
                         (f"archived: {memory.archived_reason}" if memory.archived_reason else "")) if m]
    click.echo(f"{verb} {memory.id} ({display_name(memory.owner)} → {about}, {memory.tier.value}"
               f"{'; ' + ', '.join(marks) if marks else ''}): {memory.content}")


def _run(db: str, action: Callable[[Any], Memory], as_json: bool, verb: str, *, read: bool = True) -> None:
    with open_curator(db, read=read, model=None, decider=READ_ONLY) as curator:
        memory = action(curator)
    _shown(memory, as_json, verb)


@memory_group.command(name="add")
@click.argument("character")
@click.argument("text")
@click.option("--about", "about", metavar="OTHER", help="The character the memory is about (default: itself)")
@click.option("--core", is_flag=True, help="Put it in the core tier (permanent, always in context first)")
@click.option("--importance", type=click.FloatRange(0, 1), help="0..1 (default 0.6, core 0.8)")
@_BY
@db_option
@json_option
@one_line_errors
def add_command(character: str, text: str, about: str | None, core: bool, importance: float | None,
                by: str | None, db: str, as_json: bool) -> None:
    """Write a memory for CHARACTER by hand (it never fades and is never consolidated away)."""
    _run(db, lambda c: c.memory_add(character, text, about=about, core=core, importance=importance, by=by),
         as_json, "Added", read=False)


@memory_group.command(name="edit")
@click.argument("memory_id", metavar="ID")
@click.argument("text")
@_BY
@db_option
@json_option
@one_line_errors
def edit_command(memory_id: str, text: str, by: str | None, db: str, as_json: bool) -> None:
    """Replace the text of memory ID (its history keeps the old text)."""
    _run(db, lambda c: c.memory_edit(memory_id, text, by=by), as_json, "Edited")


@memory_group.command(name="pin")
@click.argument("memory_id", metavar="ID")
@_BY
@db_option
@json_option
@one_line_errors
def pin_command(memory_id: str, by: str | None, db: str, as_json: bool) -> None:
    """Pin memory ID: it never fades and is never consolidated away."""
    _run(db, lambda c: c.memory_pin(memory_id, by=by), as_json, "Pinned")


@memory_group.command(name="unpin")
@click.argument("memory_id", metavar="ID")
@_BY
@db_option
@json_option
@one_line_errors
def unpin_command(memory_id: str, by: str | None, db: str, as_json: bool) -> None:
    """Unpin memory ID: it fades and leaves the recent tier like the others again."""
    _run(db, lambda c: c.memory_unpin(memory_id, by=by), as_json, "Unpinned")


@memory_group.command(name="forget")
@click.argument("memory_id", metavar="ID")
@_BY
@db_option
@json_option
@one_line_errors
def forget_command(memory_id: str, by: str | None, db: str, as_json: bool) -> None:
    """Archive memory ID with the reason forgotten_by_designer (never deleted)."""
    _run(db, lambda c: c.memory_forget(memory_id, by=by), as_json, "Forgot")


@memory_group.command(name="history")
@click.argument("memory_id", metavar="ID")
@db_option
@json_option
@one_line_errors
def history_command(memory_id: str, db: str, as_json: bool) -> None:
    """The hand changes of memory ID: what, before and after, who, and when."""
    with open_curator(db, read=True, model=None, decider=READ_ONLY) as curator:
        edits = curator.memory_history(memory_id)
    if as_json:
        print_json({"memory_id": memory_id, "edits": [e.model_dump() for e in edits]})
        return
    if not edits:
        click.echo(f"{memory_id} was never edited by hand.")
    for edit in edits:
        change = {"add": f"added: {edit.after}", "edit": f"{edit.before!r} → {edit.after!r}"}.get(
            edit.action, edit.action)
        click.echo(f"{edit.at} (world {edit.world_time or 'before any turn'}) {edit.by}: {change}")
