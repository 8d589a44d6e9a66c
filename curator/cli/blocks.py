"""The command line for core memory blocks, archival passages and deleting a character.

`curator block …`, `curator passage …` and `curator delete`, registered on the `curator`
group by main.py. They share its conventions through options.py: `--db` after the command's
name, `--json` on the commands that show state, errors as one line on stderr (exit status 2
for bad input).
"""

from __future__ import annotations

from typing import Any

import click

from curator.api.curator import Curator
from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.models import display_name, iso, normalize_character_id
from curator.recall.blocks import DEFAULT_CHAR_LIMIT, Block
from curator.recall.passages import Passage, PassageHit


def _open(db: str, *, read: bool = False) -> Curator:
    """A world for reading and writing blocks and passages: no model is ever needed."""
    return open_curator(db, read=read, model=None, decider=READ_ONLY)


def _content(content: str | None, file: Any, *, required: bool) -> str:
    if content is not None and file is not None:
        raise click.UsageError("give --content or --file, not both")
    if file is not None:
        return str(file.read())
    if content is None and required:
        raise click.UsageError("give the new content with --content TEXT or --file F")
    return content or ""


def _size(block: Block) -> str:
    return f"{len(block.content)}/{block.char_limit} chars"


def _print_block(block: Block, viewer: str) -> None:
    where = ""
    if block.owner != viewer:
        where = f", shared by {block.owner}"
    elif block.shared:
        where = f", shared with {', '.join(block.consumers) or 'nobody yet'}"
    click.secho(block.label, bold=True, nl=False)
    click.echo(f" ({_size(block)}{where})" + (f" — {block.description}" if block.description else ""))
    for line in block.content.splitlines():
        click.echo(f"  {line}")


def _one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1] + "…"


def _print_passage(passage: Passage) -> None:
    tags = f" [{', '.join(passage.tags)}]" if passage.tags else ""
    if isinstance(passage, PassageHit):
        click.echo(f"#{passage.id} ({passage.score:.3f}){tags} {_one_line(passage.snippet)}")
    else:
        click.echo(f"#{passage.id} {iso(passage.created_at)}{tags} {_one_line(passage.content)}")


content_option = click.option("--content", "content", help="The block's text")
file_option = click.option("--file", "file", type=click.File("r", encoding="utf-8"),
                           help="Read the block's text from a file ('-': standard input)")


@click.group()
def block() -> None:
    """Core memory blocks: labelled text always in a character's prompt, own or shared.

    Standard labels are personality, relationships and current_state; any lower-case word
    works. Each block has a size limit (--limit, at most 20,000 characters), enforced on
    every write. A shared block is written by its owner and attached to other characters.
    """


@block.command(name="list")
@click.argument("character")
@db_option
@json_option
@one_line_errors
def block_list(character: str, db: str, as_json: bool) -> None:
    """List CHARACTER's blocks: its own and the shared ones attached to it, in prompt order."""
    with _open(db, read=True) as curator:
        blocks = curator.blocks.list(character)
        who = curator.world.known_character(character)
    if as_json:
        print_json([b.model_dump(mode="json") for b in blocks])
        return
    if not blocks:
        click.echo(f"{display_name(who)} has no blocks.")
    for one in blocks:
        _print_block(one, who)


@block.command(name="show")
@click.argument("character")
@click.argument("label")
@db_option
@json_option
@one_line_errors
def block_show(character: str, label: str, db: str, as_json: bool) -> None:
    """Show the block CHARACTER sees under LABEL (its own, else an attached shared one)."""
    with _open(db, read=True) as curator:
        found = curator.blocks.get(character, label)
        who = curator.world.known_character(character)
    if as_json:
        print_json(found.model_dump(mode="json"))
        return
    _print_block(found, who)


@block.command(name="create")
@click.argument("owner")
@click.argument("label")
@content_option
@file_option
@click.option("--limit", "char_limit", type=int, default=DEFAULT_CHAR_LIMIT, show_default=True,
              help="Size limit in characters (at most 20,000)")
@click.option("--description", default="", help="What the block is for")
@click.option("--shared", is_flag=True, help="Other characters can be attached to it")
@db_option
@one_line_errors
def block_create(owner: str, label: str, content: str | None, file: Any, char_limit: int,
                 description: str, shared: bool, db: str) -> None:
    """Create a block LABEL for OWNER, empty or with --content / --file."""
    text = _content(content, file, required=False)
    with _open(db) as curator:
        made = curator.blocks.create(owner, label, text, char_limit=char_limit,
                                     description=description, shared=shared)
    kind = "shared block" if made.shared else "block"
    click.echo(f"Created {kind} {made.owner}/{made.label} ({_size(made)})")


@block.command(name="set")
@click.argument("owner")
@click.argument("label")
@content_option
@file_option
@db_option
@one_line_errors
def block_set(owner: str, label: str, content: str | None, file: Any, db: str) -> None:
    """Replace the text of OWNER's block LABEL with --content or --file."""
    text = _content(content, file, required=True)
    with _open(db) as curator:
        changed = curator.blocks.set(owner, label, text)
    click.echo(f"Set {changed.owner}/{changed.label} ({_size(changed)})")


@block.command(name="append")
@click.argument("owner")
@click.argument("label")
@click.argument("text")
@db_option
@one_line_errors
def block_append(owner: str, label: str, text: str, db: str) -> None:
    """Append TEXT to OWNER's block LABEL, on a new line."""
    with _open(db) as curator:
        changed = curator.blocks.append(owner, label, text)
    click.echo(f"Appended to {changed.owner}/{changed.label} ({_size(changed)})")


@block.command(name="attach")
@click.argument("owner")
@click.argument("label")
@click.argument("characters", nargs=-1, required=True)
@db_option
@one_line_errors
def block_attach(owner: str, label: str, characters: tuple[str, ...], db: str) -> None:
    """Attach OWNER's shared block LABEL to CHARACTERS (already attached: unchanged)."""
    with _open(db) as curator:
        changed = curator.blocks.attach(owner, label, *characters)
    click.echo(f"{changed.owner}/{changed.label} is attached to {', '.join(changed.consumers)}")


@block.command(name="detach")
@click.argument("owner")
@click.argument("label")
@click.argument("characters", nargs=-1, required=True)
@db_option
@one_line_errors
def block_detach(owner: str, label: str, characters: tuple[str, ...], db: str) -> None:
    """Detach OWNER's block LABEL from CHARACTERS."""
    with _open(db) as curator:
        changed = curator.blocks.detach(owner, label, *characters)
    click.echo(f"{changed.owner}/{changed.label} is attached to "
               f"{', '.join(changed.consumers) or 'nobody'}")


@block.command(name="consumers")
@click.argument("owner")
@click.argument("label")
@db_option
@json_option
@one_line_errors
def block_consumers(owner: str, label: str, db: str, as_json: bool) -> None:
    """List the characters OWNER's block LABEL is attached to."""
    with _open(db, read=True) as curator:
        who = curator.blocks.consumers(owner, label)
    if as_json:
        print_json(who)
        return
    for character in who:
        click.echo(character)


@block.command(name="delete")
@click.argument("owner")
@click.argument("label")
@db_option
@one_line_errors
def block_delete(owner: str, label: str, db: str) -> None:
    """Delete OWNER's block LABEL, detaching it from every character."""
    with _open(db, read=True) as curator:
        gone = curator.blocks.delete(owner, label)
    detached = f", detached from {', '.join(gone.consumers)}" if gone.consumers else ""
    click.echo(f"Deleted block {gone.owner}/{gone.label}{detached}")


@click.group()
def passage() -> None:
    """Archival passages: a character's long-term text (lore, past episodes), searchable.

    Each passage holds up to 20,000 characters and up to 16 tags (lower-case words).
    """


@passage.command(name="add")
@click.argument("character")
@click.argument("text")
@click.option("--tag", "tags", multiple=True, help="A tag (repeat for more)")
@db_option
@one_line_errors
def passage_add(character: str, text: str, tags: tuple[str, ...], db: str) -> None:
    """Store TEXT as a passage of CHARACTER."""
    with _open(db) as curator:
        stored = curator.passages.store(character, text, tags)
    tagged = f" (tags: {', '.join(stored.tags)})" if stored.tags else ""
    click.echo(f"Stored passage {stored.id} for {stored.owner}{tagged}")


@passage.command(name="list")
@click.argument("character")
@click.option("--tag", help="Only passages with this tag")
@click.option("--limit", type=int, default=50, show_default=True, help="At most N passages")
@click.option("--offset", type=int, default=0, help="Skip the N newest first")
@db_option
@json_option
@one_line_errors
def passage_list(character: str, tag: str | None, limit: int, offset: int, db: str,
                 as_json: bool) -> None:
    """List CHARACTER's passages, newest first."""
    with _open(db, read=True) as curator:
        found = curator.passages.list(character, tag=tag, limit=limit, offset=offset)
    if as_json:
        print_json([p.model_dump(mode="json") for p in found])
        return
    for one in found:
        _print_passage(one)


@passage.command(name="search")
@click.argument("character")
@click.argument("query")
@click.option("--tag", help="Only passages with this tag")
@click.option("--limit", type=int, default=10, show_default=True, help="At most N passages")
@db_option
@json_option
@one_line_errors
def passage_search(character: str, query: str, tag: str | None, limit: int, db: str,
                   as_json: bool) -> None:
    """Search CHARACTER's passages for the words of QUERY, best match first."""
    with _open(db, read=True) as curator:
        hits = curator.passages.search(character, query, limit=limit, tag=tag)
    if as_json:
        print_json([h.model_dump(mode="json") for h in hits])
        return
    if not hits:
        click.echo("No passages match.")
    for hit in hits:
        _print_passage(hit)


@passage.command(name="delete")
@click.argument("character")
@click.argument("passage_id", metavar="ID", type=int)
@db_option
@one_line_errors
def passage_delete(character: str, passage_id: int, db: str) -> None:
    """Delete CHARACTER's passage ID."""
    with _open(db, read=True) as curator:
        gone = curator.passages.delete(character, passage_id)
    click.echo(f"Deleted passage {gone.id} of {gone.owner}")


@click.command(name="delete")
@click.argument("character")
@click.option("--yes", is_flag=True, help="Really delete: there is no undo")
@db_option
@one_line_errors
def delete_command(character: str, yes: bool, db: str) -> None:
    """Delete CHARACTER and everything that refers to it (needs --yes).

    Gone: its memories, relationships, blocks, passages and model calls, the others'
    relationships with it and their memories about it, its links to shared blocks. What
    it told others stays theirs, told by "someone". The turn log keeps the turns it took
    part in.
    """
    if not yes:
        raise click.UsageError(f"deleting {character!r} cannot be undone; add --yes")
    with _open(db, read=True) as curator:
        removed = curator.delete_character(character)
    retold = removed.pop("memory_sources.mouths", 0)
    rows = ", ".join(f"{table} {n}" for table, n in removed.items() if table != "characters")
    also = f"; {retold} stories it passed on now say someone told them" if retold else ""
    click.echo(f"Deleted {normalize_character_id(character)} (rows removed: {rows}{also})")
