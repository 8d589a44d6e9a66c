"""The command line for who knows what: `curator group …` (places and factions whose members hold
their knowledge) and `curator who-knows TURN_ID` (who holds a memory of a turn, and how).

Registered lazily (lazy.py), with the shared conventions (options.py): `--db` after the
command's name, `--json` on the commands that show state, errors as one line on stderr.
"""

from __future__ import annotations

from typing import Any

import click

from curator.api.curator import Curator
from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.models import display_name


def _open(db: str, *, read: bool = False) -> Curator:
    return open_curator(db, read=read, model=None, decider=READ_ONLY)


def _print_item(item: dict[str, Any]) -> None:
    about = f" (about {display_name(item['subject'])})" if item["subject"] else ""
    holders = ", ".join(display_name(h) for h in item["holders"]) or "nobody yet"
    click.echo(f"{item['id']}. {item['content']}{about} [importance {item['importance']:.2f}; "
               f"held by {holders}]")


@click.group()
def group() -> None:
    """Groups: a place or faction whose members all hold what it knows.

    Each member holds the group's knowledge as a core memory of its own (nobody else sees
    it); a character that joins later is given what the group already knows, and one that
    leaves keeps what it learnt.
    """


@group.command(name="join")
@click.argument("name")
@click.argument("characters", nargs=-1, required=True)
@db_option
@json_option
@one_line_errors
def group_join(name: str, characters: tuple[str, ...], db: str, as_json: bool) -> None:
    """Make CHARACTERS members of the group NAME (made by its first member)."""
    with _open(db) as curator:
        new = curator.join_group(name, *characters)
        members = curator.group_members(name)
    if as_json:
        print_json({"group": name.strip().casefold(), "joined": new, "members": members})
        return
    click.echo(f"{len(new)} joined; members: {', '.join(display_name(m) for m in members)}")


@group.command(name="leave")
@click.argument("name")
@click.argument("characters", nargs=-1, required=True)
@db_option
@one_line_errors
def group_leave(name: str, characters: tuple[str, ...], db: str) -> None:
    """CHARACTERS leave the group NAME (they keep what they learnt in it)."""
    with _open(db) as curator:
        gone = curator.leave_group(name, *characters)
    click.echo(f"{gone} left")


@group.command(name="list")
@click.option("--character", default=None, help="Only the groups this character belongs to")
@db_option
@json_option
@one_line_errors
def group_list(character: str | None, db: str, as_json: bool) -> None:
    """List the groups of the world, each with its members."""
    with _open(db, read=True) as curator:
        names = curator.groups(character)
        found = {name: curator.group_members(name) for name in names}
    if as_json:
        print_json({"groups": [{"group": n, "members": m} for n, m in found.items()]})
        return
    if not found:
        click.echo("no groups")
    for name, members in found.items():
        click.echo(f"{name}: {', '.join(display_name(m) for m in members) or 'no members'}")


@group.command(name="know")
@click.argument("name")
@click.argument("text")
@click.option("--about", default=None, help="The character it concerns")
@click.option("--importance", type=float, default=0.6, show_default=True, help="0 to 1")
@db_option
@json_option
@one_line_errors
def group_know(name: str, text: str, about: str | None, importance: float, db: str,
               as_json: bool) -> None:
    """Add TEXT to what the group NAME knows: every member, now and later, holds it."""
    with _open(db) as curator:
        item = curator.add_group_knowledge(name, text, about=about, importance=importance)
    if as_json:
        print_json(item)
        return
    _print_item(item)


@group.command(name="knowledge")
@click.argument("name")
@db_option
@json_option
@one_line_errors
def group_knowledge(name: str, db: str, as_json: bool) -> None:
    """What the group NAME knows, oldest first, with who holds each piece."""
    with _open(db, read=True) as curator:
        items = curator.group_knowledge(name)
    if as_json:
        print_json({"group": name.strip().casefold(), "knowledge": items})
        return
    if not items:
        click.echo("it knows nothing yet")
    for item in items:
        _print_item(item)


@click.command(name="who-knows")
@click.argument("turn_id")
@db_option
@json_option
@one_line_errors
def who_knows_command(turn_id: str, db: str, as_json: bool) -> None:
    """Who holds a memory of TURN_ID, and how: did it, witnessed it, was told (by whom)."""
    with _open(db, read=True) as curator:
        found = curator.who_knows(turn_id)
    if as_json:
        print_json({"turn": turn_id, "known_by": {c: p.model_dump() for c, p in found.items()}})
        return
    if not found:
        click.echo(f"nobody holds a memory of {turn_id}")
    for character, source in found.items():
        how = source.phrase(display_name) or source.origin
        click.echo(f"{display_name(character)}: {how} (confidence {source.confidence:.2f})")
