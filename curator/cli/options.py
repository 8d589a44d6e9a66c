"""What every command shares: `--db`, `--json`, the model options, one-line errors, JSON output.

Every command that touches a world takes `--db PATH` (default `$CURATOR_DB`, else
`./curator.db`). Commands that show state take `--json` and then print one JSON document
and nothing else. Errors are one line on stderr and a non-zero exit status. The command
modules import these from here; this module imports none of them.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterable
from contextlib import suppress
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from curator.api.curator import Curator
from curator.domain.errors import CuratorError, InvalidInput, OutputError
from curator.model.settings import ModelSettings
from curator.model.steps import FallbackDecider
from curator.store.failures import translate

F = TypeVar("F", bound=Callable[..., Any])


_FORCE = "curator.force"  # ctx.meta key: --force was given


def _remember_force(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_FORCE] = True


def db_option(fn: F) -> F:
    """`--db PATH`, and `--force` to accept an SQLite file of another program as the world."""
    fn = click.option("--force", is_flag=True, expose_value=False, callback=_remember_force,
                      help="Use --db even if it is an SQLite database with tables of its own "
                           "(a world's tables are added to it)")(fn)
    return click.option("--db", "db", type=click.Path(dir_okay=False), envvar="CURATOR_DB",
                        default="curator.db", show_default=True,
                        help="World file (SQLite); default $CURATOR_DB, else ./curator.db")(fn)


def open_curator(db: str, *, read: bool = False, **options: Any) -> Curator:
    """The command's `Curator` on `--db`. A command that only reads (`read=True`) never creates
    a world: a missing file is `WorldNotFound` (exit 2), not a new empty world to report on."""
    ctx = click.get_current_context(silent=True)
    force = bool(ctx is not None and ctx.meta.get(_FORCE))
    return Curator(db, create=not read, force=force, **options)


def write_out(out: Path, text: str, *, db: str) -> None:
    """Write a command's `--out` file whole or not at all (a temporary file beside it, then
    renamed): never the world itself, and a missing folder or a full disk is one line."""
    write_out_chunks(out, [text], db=db)


def write_out_chunks(out: Path, chunks: Iterable[str], *, db: str) -> None:
    """`write_out` for text that comes in pieces (a streamed export), written as they come;
    the file appears whole or not at all, as with `write_out`."""
    check_out(out, db=db)
    partial = out.with_name(f".{out.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as file:
            for chunk in chunks:
                file.write(chunk)
        os.replace(partial, out)
    except OSError as error:
        with suppress(OSError):
            partial.unlink()
        full = error.errno in (errno.ENOSPC, errno.EDQUOT)
        reason = "disk is full" if full else error.strerror or str(error)
        raise OutputError(f"cannot write {out}: {reason}") from error
    except BaseException:
        with suppress(OSError):  # the pieces stopped coming (an error reading the world)
            partial.unlink()
        raise


def check_out(out: Path, *, db: str) -> None:
    """Refuse an `--out` that is the world file (or its log): writing it would destroy the world."""
    if any(_same_file(out, Path(db + tail)) for tail in ("", "-wal", "-shm", "-lock")):
        raise InvalidInput(f"--out {out} is the world file itself; choose another file", field="out")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def out_in_a_directory(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """An --out FILE whose directory exists, checked before the command does any work (an
    evolution cycle committed and then no file to write its report to helps no one)."""
    if value is not None and not value.resolve().parent.is_dir():
        raise click.BadParameter(f"{value.parent} is not a directory", ctx=ctx, param=param)
    return value


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document")(fn)


def model_options(fn: F) -> F:
    """--model and friends; without --model (or $CURATOR_MODEL) every step uses its fallback."""
    options = [
        click.option("--model", "model", envvar="CURATOR_MODEL",
                     help="Model as litellm names it (gpt-4o-mini, ollama/llama3.1, openai/NAME "
                          "with --api-base); default $CURATOR_MODEL, else no model"),
        click.option("--api-base", "api_base", envvar="CURATOR_API_BASE",
                     help="Base URL of the model's API, e.g. http://127.0.0.1:11434 for Ollama"),
        click.option("--mode", "mode", envvar="CURATOR_MODE",
                     type=click.Choice(["json_schema", "json_object_schema", "json", "md_json", "tools"]),
                     help="How JSON is asked for (default json_schema; json_object_schema for "
                          "llama.cpp's server; json for servers without structured outputs)"),
        click.option("--concurrency", "concurrency", type=click.IntRange(1, 256),
                     envvar="CURATOR_CONCURRENCY", help="Model calls in flight at once (default 8)"),
        click.option("--record", "record_dir", type=click.Path(file_okay=False, path_type=Path),
                     envvar="CURATOR_RECORD", help="Save every provider response as a fixture in DIR"),
        click.option("--reading", "reading", envvar="CURATOR_READING", type=click.Choice(["brief", "full"]),
                     help="brief (default): the model rates each turn and the rules read who did what; "
                          "full: the model reads the deeds too, for a model that reads a scene well"),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def settings_from_options(model: str | None, api_base: str | None, mode: str | None, concurrency: int | None,
              record_dir: Path | None, reading: str | None = None) -> ModelSettings | None:
    return ModelSettings.from_env(model=model, api_base=api_base, mode=mode, concurrency=concurrency,
                                  record_dir=record_dir, reading=reading)


def one_line_errors(fn: F) -> F:
    """A CuratorError becomes one line on stderr and its exit code, never a traceback."""
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            try:
                return fn(*args, **kwargs)
            except sqlite3.Error as error:  # met outside the API's methods: the same typed error
                raise translate(error, str(kwargs.get("db", "the world"))) from error
        except CuratorError as error:
            click.echo(f"Error: {error}", err=True)
            sys.exit(error.exit_code)
    return wrapper  # type: ignore[return-value]


# Commands that only read a world never ask a model.
READ_ONLY = FallbackDecider("reading only")


def print_json(document: Any) -> None:
    click.echo(json.dumps(document, indent=2, ensure_ascii=False))
