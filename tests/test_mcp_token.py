"""`curator mcp --transport http --token`: only clients that send the token reach the world;
a server listening beyond loopback must have one (curator/mcp_server/bearer.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner
from conftest import mcp_over_http
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from curator import Curator
from curator.cli import cli
from curator.mcp_server.bearer import RequireBearer, needs_token

DEADLINE = 90.0  # seconds for a whole session: generous, the cores are shared; a hang fails here
TOKEN = "s3cret-token-for-tests"
TURN = {"id": "tok-1", "world_time": "2025-03-01T09:00:00Z", "actor": "bear",
        "intent": {"action": "Cross the frozen lake"}, "reality": "The ice holds; you reach the island.",
        "others": [], "observers": []}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "world.db"
    with Curator(path) as curator:
        curator.observe(TURN)
    return path


def test_http_with_a_token_answers_only_clients_that_send_it(world: Path, tmp_path: Path) -> None:
    statuses: dict[str, int] = {}
    tools: list[str] = []
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "test", "version": "0"}}}
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    env = {**os.environ, "CURATOR_MCP_TOKEN": TOKEN}
    with mcp_over_http(world, tmp_path / "server.log", env) as (server, url):

        async def session() -> None:
            with anyio.fail_after(DEADLINE):
                async with httpx.AsyncClient(timeout=10) as raw:
                    while server.poll() is None:  # until it listens (or dies)
                        try:
                            first = await raw.post(url, json=initialize, headers=headers)
                            statuses["none"] = first.status_code
                            break
                        except httpx.TransportError:
                            await anyio.sleep(0.2)
                    wrong = await raw.post(url, json=initialize,
                                           headers={**headers, "authorization": "Bearer nope"})
                    statuses["wrong"] = wrong.status_code
                    challenge = wrong.headers.get("www-authenticate", "")
                    statuses["challenge"] = int(challenge.startswith("Bearer"))
                import httpx2  # the SDK's own HTTP client, which its transport takes

                async with httpx2.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}) as authed, \
                        Client(streamable_http_client(url, http_client=authed)) as client:
                    tools.extend(t.name for t in (await client.list_tools()).tools)
                    await client.call_tool("observe_turn", {"turn": {**TURN, "id": "tok-2"}})

        anyio.run(session)
    assert statuses == {"none": 401, "wrong": 401, "challenge": 1}, (tmp_path / "server.log").read_text()
    assert "observe_turn" in tools
    with Curator(world) as api:
        assert api.world.logged_turn("tok-2") is not None


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "game-server.lan"])
def test_a_host_beyond_loopback_without_a_token_is_refused_before_the_world_opens(
        tmp_path: Path, host: str) -> None:
    db = tmp_path / "w.db"
    result = CliRunner().invoke(cli, ["mcp", "--db", str(db), "--transport", "http", "--host", host],
                                env={"CURATOR_MCP_TOKEN": None})
    assert result.exit_code == 2
    assert f"{host} listens beyond this machine" in result.output and "token" in result.output
    assert not db.exists()


def test_a_token_on_stdio_is_a_usage_error_and_an_empty_token_too(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    stdio = CliRunner().invoke(cli, ["mcp", "--db", str(db), "--token", TOKEN])
    assert stdio.exit_code == 2 and "a token is for --transport http" in stdio.output
    empty = CliRunner().invoke(cli, ["mcp", "--db", str(db), "--transport", "http", "--token", " "])
    assert empty.exit_code == 2 and "the token is empty" in empty.output
    assert not db.exists()


def test_a_token_in_the_environment_does_not_stop_a_stdio_host(world: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "curator", "mcp", "--db", str(world)],
                                   env={**os.environ, "CURATOR_MCP_TOKEN": TOKEN}, cwd=str(tmp_path))
    names: list[str] = []

    async def session() -> None:
        with anyio.fail_after(DEADLINE), (tmp_path / "server.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=DEADLINE) as client:
                names.extend(t.name for t in (await client.list_tools()).tools)

    anyio.run(session)
    assert "get_context" in names


@pytest.mark.parametrize(("host", "needed"), [
    ("127.0.0.1", False), ("127.0.0.2", False), ("::1", False), ("[::1]", False), ("localhost", False),
    ("LOCALHOST", False), ("0.0.0.0", True), ("::", True), ("10.0.0.5", True), ("game.example", True)])
def test_which_hosts_need_a_token(host: str, needed: bool) -> None:
    assert needs_token(host) is needed


def test_the_bearer_check_lets_lifespan_through_and_compares_the_whole_token() -> None:
    seen: list[str] = []

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])
        if scope["type"] == "http":
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

    guarded = RequireBearer(app, "abc")

    async def run() -> list[int]:
        await guarded({"type": "lifespan"}, None, None)
        codes = []
        transport = httpx.ASGITransport(app=guarded)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            for header in (None, "Bearer abc", "Bearer abcd", "Bearer ab", "bearer abc", "abc", "Basic abc"):
                sent = {"authorization": header} if header else {}
                codes.append((await client.get("/mcp", headers=sent)).status_code)
        return codes

    assert anyio.run(run) == [401, 200, 401, 401, 200, 401, 401]
    assert seen == ["lifespan", "http", "http"]  # only the two with the token reached the app
    with pytest.raises(ValueError, match="empty"):
        RequireBearer(app, "")
