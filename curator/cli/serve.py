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
from click.core import ParameterSource

from curator.cli.options import db_option, model_options, one_line_errors, open_curator, settings_from_options
from curator.model.extras import install_command


@click.command(name="mcp")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
              help="stdio for a host that starts the server; http serves streamable HTTP at /mcp")
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: the address to listen on")
@click.option("--port", type=click.IntRange(1, 65_535), default=8000, show_default=True,
              help="HTTP: the port to listen on")
@click.option("--token", envvar="CURATOR_MCP_TOKEN", default=None,
              help="HTTP: answer only clients sending 'Authorization: Bearer TOKEN' "
                   "(else $CURATOR_MCP_TOKEN); needed when --host is not loopback")
@model_options
@db_option
@one_line_errors
def mcp_command(transport: Literal["stdio", "http"], host: str, port: int, token: str | None,
                model: str | None, api_base: str | None, mode: str | None, concurrency: int | None,
                record_dir: Path | None, reading: str | None, db: str) -> None:
    """Serve the world to MCP hosts: memories as resources; observe, context and search as tools."""
    token = _checked_token(transport, host, port, token)
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
        serve(curator, transport, host=host, port=port, token=token)


def _checked_token(transport: Literal["stdio", "http"], host: str, port: int,
                   token: str | None) -> str | None:
    """The token the HTTP server asks for, or a usage error: an empty token, `--token` on
    stdio, or a host beyond loopback without one."""
    from curator.mcp_server.bearer import needs_token  # no SDK in it: the checks need no extra

    if transport == "stdio":
        # $CURATOR_MCP_TOKEN set for an HTTP server must not stop a host starting one on stdio
        given = click.get_current_context().get_parameter_source("token")
        if token is not None and given is ParameterSource.COMMANDLINE:
            raise click.BadParameter("a token is for --transport http (a stdio host starts the server "
                                     "itself)", param_hint="--token")
        return None
    if token is not None and not token.strip():
        raise click.BadParameter("the token is empty", param_hint="--token")
    if token is None and needs_token(host):
        raise click.BadParameter(
            f"{host} listens beyond this machine, where anyone reaching port {port} could read and "
            "write every memory; give a token (or $CURATOR_MCP_TOKEN) for clients to send",
            param_hint="--host")
    return token
