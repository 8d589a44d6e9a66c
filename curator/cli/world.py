"""The command line for reading and moving a world: `curator show`, `characters`, `export`,
`import`, `clock` and `calls`.

Registered on the `curator` group by main.py, with the conventions every command shares
(options.py): `--db` after the command's name, `--json` on the commands that show state,
errors as one line on stderr; how a character is put in words is show.py's.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Callable, Iterable
from itertools import chain
from pathlib import Path

import click

from curator.cli.options import (
    READ_ONLY,
    check_out,
    db_option,
    json_option,
    one_line_errors,
    open_curator,
    out_in_a_directory,
    print_json,
    write_out_chunks,
)
from curator.cli.show import print_character
from curator.domain.models import display_name, iso
from curator.export.evolution import evolution_document
from curator.model.calls import summarize_calls
from curator.store.clock import latest_turn_time

PROGRESS_BYTES = 10_000_000  # an import file this large shows its progress on a terminal


@click.command()
@click.argument("character")
@click.option("--about", "about", help="Only the relationship with this character")
@click.option("--links", "links", is_flag=True,
              help="List each memory's links to related memories, with its appraisal")
@db_option
@json_option
@one_line_errors
def show(character: str, about: str | None, links: bool, db: str, as_json: bool) -> None:
    """Show what CHARACTER remembers: self, relationships, summaries, core memories.

    Also its latest personality snapshot, its attributes with the last change of each and
    the memory that caused it, and trust and rapport in each character it knows (--json:
    the character's export document, with every snapshot and the whole change log).

    With --links: the memory network instead, each linked memory with its lens priorities
    and its links (strength, and whether by shared words or a shared subject)."""
    key = about.strip().casefold() if about else None
    if links:
        _show_links(character, key, db, as_json)
        return
    with open_curator(db, read=True) as curator:
        if as_json:  # export_character reads the character itself: read it once
            document = curator.export_character(character)
            name, others = document["character"]["name"], document["relationships"]
        else:
            char = curator.character(character)
            counts = curator.counts(character)
            name, others = char.name, char.relationships
            evolution = (evolution_document(curator.world, char.id), curator.config.evolution.attributes)
            known = {memory_id: f"{source.phrase(display_name)}, confidence {source.confidence:.2f}"
                     for memory_id, source in curator.sources(char.id).items() if source.phrase()}
    if key is not None and key not in others:
        raise click.ClickException(f"{name} has no memories about {about!r}")
    if as_json:
        if key is not None:
            print_json({"character": document["character"], "about": key,
                         "relationship": document["relationships"][key]})
        else:
            print_json(document)
        return
    print_character(char, counts, about=key, evolution=evolution, known=known)


def _show_links(character: str, about: str | None, db: str, as_json: bool) -> None:
    with open_curator(db, read=True) as curator:
        memories = curator.links(character)
        owner = curator.character(character).id
    if about is not None:
        memories = [m for m in memories if m["subject"] == about]
    if as_json:
        print_json({"character": owner, "about": about, "memories": memories})
        return
    click.secho(display_name(owner), bold=True, nl=False)
    click.echo(f" — {len(memories)} linked memories" + (f" about {display_name(about)}" if about else ""))
    for memory in memories:
        click.echo(f"  [{memory['memory_id']}] {memory['content']} ({memory['tier']})")
        lenses = sorted(memory["appraisal"].items(), key=lambda kv: -kv[1]["priority"])
        if lenses:
            click.echo("     appraisal: " + ", ".join(f"{name} {v['priority']:.2f}" for name, v in lenses))
        for link in memory["links"]:
            click.echo(f"     ↔ {link['strength']:.2f} by {link['by']}: "
                       f"[{link['other_id']}] {link['content']}")


@click.command(name="characters")
@db_option
@json_option
@one_line_errors
def characters_command(db: str, as_json: bool) -> None:
    """List the characters of the world with their memory counts."""
    with open_curator(db, read=True) as curator:
        rows = [{"id": c, **curator.counts(c)} for c in curator.characters()]
    if as_json:
        print_json(rows)
        return
    for row in rows:
        click.echo(f"{row['id']}: {row['recent']} recent, {row['core']} core, {row['archived']} archived")



@click.command(name="export")
@click.argument("characters", nargs=-1)
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path),
              callback=out_in_a_directory,
              help="Write to this file instead of stdout")
@db_option
@one_line_errors
def export_command(characters: tuple[str, ...], out: Path | None, db: str) -> None:
    """Export the world (or only CHARACTERS) as JSON: each character's self memories and
    relationships (immediate context, recent memories, summary, core memories)."""
    if out is not None:
        check_out(out, db=db)
    with open_curator(db, read=True) as curator:
        if len(characters) == 1:
            chunks: Iterable[str] = [json.dumps(curator.export_character(characters[0]), indent=2,
                                                ensure_ascii=False)]
        else:
            # A character at a time: a world of 10,000 characters is ~1 GB of text (issue #17).
            chunks = curator.export_world_chunks(
                indent=2, ensure_ascii=False,
                only={c.casefold() for c in characters} if characters else None)
        if out is None:
            # Spooled to a temporary file first: an error midway (a damaged page) then prints
            # one line on stderr and nothing on stdout, as before, in bounded memory.
            with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
                for chunk in chunks:
                    spool.write(chunk)
                spool.seek(0)
                for block in iter(lambda: spool.read(1 << 16), ""):
                    click.echo(block, nl=False)
            click.echo()
        else:
            write_out_chunks(out, chain(chunks, ["\n"]), db=db)
    if out is not None:
        click.echo(f"Wrote {out}", err=True)


@click.command(name="import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Overwrite characters that already exist")
@click.option("--clock", "clock", metavar="latest|WORLD_TIME",
              help="Read the document as of this time instead of its own clock: 'latest' (the "
                   "latest time it holds) or an ISO 8601 time; for a document whose clock runs "
                   "far ahead of what it holds")
@db_option
@one_line_errors
def import_command(file: Path, replace: bool, clock: str | None, db: str) -> None:
    """Import characters from an export file (one character or a whole world). A world's
    file is read a character at a time, so one of up to 2 GiB is taken."""
    size = file.stat().st_size
    with open_curator(db) as curator:
        imported = curator.import_file(file, replace=replace, clock=clock,
                                       progress=_import_progress(size))
    click.echo(f"Imported {len(imported)} characters: {', '.join(imported)}" if imported
               else "Imported 0 characters (the document holds none).")


def _import_progress(size: int) -> Callable[[int, int], None] | None:
    """A large file's import shows how far it got on a terminal's stderr (quiet when piped)."""
    err = sys.stderr
    if size < PROGRESS_BYTES or not err.isatty():
        return None

    def written_so_far(written: int, total: int) -> None:
        end = "\n" if written == total else ""
        err.write(f"\rimporting: {written:,} of {total:,} characters written{end}")
        err.flush()

    return written_so_far



@click.command(name="clock")
@click.option("--set", "world_time", metavar="WORLD_TIME",
              help="Set the clock to this ISO 8601 time (not before the latest observed turn)")
@db_option
@json_option
@one_line_errors
def clock_command(world_time: str | None, db: str, as_json: bool) -> None:
    """Show the world clock (the time a turn may not be earlier than), or set it with --set."""
    with open_curator(db, read=True, model=None, decider=READ_ONLY) as curator:
        old = curator.set_clock(world_time) if world_time is not None else None
        clock = curator.world.clock()
        latest = latest_turn_time(curator.world)
    shown = {"clock": iso(clock) if clock else None, "latest_turn": iso(latest) if latest else None}
    if as_json:
        print_json({**shown, **({"was": iso(old) if old else None} if world_time is not None else {})})
        return
    if world_time is not None:
        click.echo(f"Clock set to {shown['clock']} (was {iso(old) if old else 'unset'})")
    else:
        click.echo(f"Clock: {shown['clock'] or 'unset'}; latest turn: {shown['latest_turn'] or 'none'}")


@click.command(name="calls")
@click.option("--turn", "turn_id", help="Only the calls made for this turn id")
@click.option("--character", "character", help="Only the calls made for this character")
@click.option("--outcome", type=click.Choice(["model", "fallback"]),
              help="model: the decision was used; fallback: the fallback decided instead")
@click.option("--limit", type=click.IntRange(1), default=20, show_default=True,
              help="Show the last N calls")
@click.option("--full", is_flag=True, help="Also print the messages sent and the raw answer")
@db_option
@json_option
@one_line_errors
def calls_command(turn_id: str | None, character: str | None, outcome: str | None, limit: int,
                  full: bool, db: str, as_json: bool) -> None:
    """Show the model call log: step, template, model, outcome, tokens, latency, attempts."""
    with open_curator(db, read=True, model=None, decider=READ_ONLY) as curator:
        records = curator.calls(turn_id=turn_id, character=character, limit=limit,
                                outcome=outcome)  # type: ignore[arg-type]
        total = summarize_calls(curator.world)
    if as_json:
        print_json({"calls": [r.model_dump(mode="json") for r in records],
                     "totals": total.model_dump(mode="json")})
        return
    if not records:
        click.echo("No model calls logged" + (" that match" if turn_id or character or outcome else "")
                   + ".")
    for record in records:
        outcome_text = "model" if record.outcome == "model" else f"fallback ({record.reason})"
        tokens = (f"{record.prompt_tokens}+{record.completion_tokens} tokens"
                  if record.prompt_tokens is not None else "no tokens")
        click.echo(f"{record.started_at} turn {record.turn_id or '-'} {record.character} "
                   f"{record.step} [{record.template}@{record.template_hash[:8]}] {record.model}: "
                   f"{outcome_text}, {record.attempts} attempt(s), {tokens}, {record.latency_ms:.0f} ms")
        if full:
            for message in record.messages:
                click.echo(f"  --- {message.get('role')}:\n{message.get('content')}")
            click.echo(f"  --- answer:\n{record.response}")
            if record.error:
                click.echo(f"  --- error: {record.error}")
    if total.calls:
        click.echo(f"All calls: {total.calls}, {total.by_model} used, fallbacks: "
                   + (", ".join(f"{n} ({r})" for r, n in total.fallbacks_by_reason.items()) or "none")
                   + f"; {total.prompt_tokens} prompt + {total.completion_tokens} completion tokens")
