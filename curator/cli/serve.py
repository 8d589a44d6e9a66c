"""`curator mcp`: serve a world to MCP hosts (Claude Desktop, IDE agents) over stdio or HTTP.

The server itself is curator/mcp_server/, built on the `mcp` SDK, the optional extra `mcp`
(`pip install '.[mcp]'` in the checkout); it is imported only here, when the command runs, so
`curator --help` and `import curator` never load the SDK. Without it the command says how to
install it (exit 1).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Literal

import click

from curator.cli.options import db_option, model_options, one_line_errors, open_curator, settings_from_options
from curator.model.extras import install_command


@click.command(name="mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for a host that starts the server; http serves streamable HTTP at /mcp")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to listen on")
@click.option("--port", type=click.IntRange(1, 65_535), default=8000, show_default=True,
              help="HTTP: the port to listen on")
@model_options
@db_option
@one_line_errors
def mcp_command(transport: Literal["stdio", "http"], host: str, port: int, model: str | None,
                api_base: str | None, mode: str | None, concurrency: int | None, record_dir: Path | None,
                reading: str | None, db: str) -> None:
    """Serve the world to MCP hosts: memories as resources, observe and search as tools."""
    try:
        from curator.mcp_server.server import serve
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in ("mcp", "mcp_types"):
            raise
        click.echo(f"Error: curator mcp needs the MCP SDK: {install_command('mcp')}", err=True)
        sys.exit(1)
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir, reading)
    # The world is opened (created, migrated, or refused with a one-line error) before the
    # server starts, so a host sees a bad --db as the process's exit, not a broken session.
    with open_curator(db, model=settings) as curator:
        serve(curator, transport, host=host, port=port)
