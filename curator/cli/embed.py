"""The command line for semantic recall: `curator embed` (the world's embedder and its vectors).

Registered on the `curator` group by lazy.py, with the shared conventions (options.py): `--db`
after the command's name, `--json` prints one JSON document, errors are one line on stderr.
"""

from __future__ import annotations

import sys
import time

import click

from curator.cli.options import db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.errors import InvalidInput
from curator.model.embedders import SPEC_HELP
from curator.model.steps import FallbackDecider
from curator.recall.semantic import CatchUp


@click.command(name="embed")
@click.option("--setup", "spec", help=f"Name the world's embedder: {SPEC_HELP}")
@click.option("--off", is_flag=True, help="Stop using embeddings (the vectors stay in the file)")
@click.option("--status", is_flag=True, help="Only show the embedder and how much of the world has vectors")
@click.option("--character", help="Only this character's memories and passages")
@click.option("--batch", type=click.IntRange(1, 1_024), default=64, show_default=True,
              help="Texts per model call and per transaction")
@db_option
@json_option
@one_line_errors
def embed_command(spec: str | None, off: bool, status: bool, character: str | None, batch: int, db: str,
                  as_json: bool) -> None:
    """Semantic recall: set the world's embedder, and embed the memories that lack a vector.

    Off by default. `--setup local` uses all-MiniLM-L6-v2 on this machine (see the README for
    its install line); then search and context fuse embedding similarity into recall, and
    this command catches the world up in batches, each committed at once."""
    if spec is not None and off:
        raise InvalidInput("--setup and --off exclude each other", field="setup")
    reader = FallbackDecider("embedding only")
    with open_curator(db, read=spec is None, model=None, decider=reader) as curator:
        if character is not None:
            character = curator.world.known_character(character)  # an unknown name: exit 1
        if off:
            curator.set_embedder(None)
        elif spec is not None:
            curator.set_embedder(spec)
        done = CatchUp()
        if not (off or status):
            if curator.embedder() is None:
                raise InvalidInput("this world has no embedder: name one with curator embed --setup "
                                   "local (or litellm:MODEL)", field="setup")
            quiet = as_json or not sys.stderr.isatty()
            started = time.perf_counter()
            def show(d: CatchUp) -> None:
                click.echo(f"\r{d.memories} memories, {d.passages} passages", err=True, nl=False)

            done = curator.embed_pending(character, batch=batch, progress=None if quiet else show)
            if not quiet and done.batches:
                click.echo(f" in {time.perf_counter() - started:.1f} s", err=True)
        state = curator.embedding_status()
    if as_json:
        print_json({**state, "embedded": {
            "memories": done.memories, "passages": done.passages, "batches": done.batches,
            "embed_seconds": round(done.embed_seconds, 3), "write_seconds": round(done.write_seconds, 3)}})
        return
    if state["embedder"] is None:
        click.echo("embeddings: off (recall uses words only)")
        return
    click.echo(f"embedder: {state['spec']} ({state['embedder']})")
    if done.batches:
        each = 1000 * done.embed_seconds / max(1, done.memories + done.passages)
        click.echo(f"embedded: {done.memories} memories, {done.passages} passages in {done.batches} batches "
                   f"({each:.1f} ms each)")
    click.echo(f"vectors: {state['memories_embedded']}/{state['memories']} memories, "
               f"{state['passages_embedded']}/{state['passages']} passages")
