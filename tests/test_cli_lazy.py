"""`curator --help` lists every command without importing it (curator/cli/lazy.py, issue #17)."""

from __future__ import annotations

import subprocess
import sys

import click
from click.testing import CliRunner

from curator.cli import cli
from curator.cli.lazy import COMMANDS


def test_the_kept_one_line_help_is_each_commands_own() -> None:
    ctx = click.Context(cli)
    for name, (_module, _attribute, kept) in COMMANDS.items():
        command = cli.get_command(ctx, name)
        assert command is not None and command.name == name
        assert command.get_short_help_str(limit=10_000) == kept, name


def test_help_lists_every_command_the_same_before_and_after_they_are_imported() -> None:
    listed = CliRunner().invoke(cli, ["--help"]).stdout
    ctx = click.Context(cli)
    for name in COMMANDS:
        cli.get_command(ctx, name)
    assert CliRunner().invoke(cli, ["--help"]).stdout == listed
    assert all(f"  {name} " in listed for name in COMMANDS)


def test_help_in_a_fresh_interpreter_imports_no_command_and_no_api() -> None:
    probe = ("import sys\nfrom curator.cli import cli\n"
             "try:\n    cli(['--help'], prog_name='curator')\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in sys.modules if m.startswith(('curator.api', 'curator.cli.play', "
             "'curator.cli.world', 'curator.store', 'sqlite_utils', 'pydantic', 'litellm'))))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
    assert "observe" in out.stdout
