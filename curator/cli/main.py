"""The `curator` group, its one-line usage errors and exit statuses (signals.py: Ctrl-C 130,
SIGTERM 143). The commands live in their own modules (`turns` has `observe`, `end-episode`
and `fade`), imported only when one is run (lazy.py), so `curator --help` starts fast; all of
them share their options through `options.py`.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from typing import Any

import click

from curator.cli.lazy import LazyGroup
from curator.cli.signals import INTERRUPTED, TERMINATED, model_calls_running, sigterm_raises, stop_status
from curator.domain.errors import InvalidInput, WorldLocked


class OneLineErrors(LazyGroup):
    """Click's usage errors as one line on stderr too ("Error: … (see curator play --help)"),
    and a stop (Ctrl-C, SIGTERM) as "Interrupted." or "Terminated." with 130 or 143."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            with sigterm_raises():
                self._main(*args, **kwargs)
        except SystemExit as done:
            if done.code in (INTERRUPTED, TERMINATED) and model_calls_running():
                # A stop during a model call: the turn under way is rolled back and the
                # command has said where it stopped; the call left running would hold the
                # exit until it answered or timed out (Python joins its thread), so go now.
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(done.code)
            raise

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
