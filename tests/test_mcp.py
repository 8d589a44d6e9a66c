"""`curator mcp` (issue #19): a real session with the MCP SDK's own client over stdio.

The server is `curator mcp --db …` spawned as a subprocess, exactly as an MCP host starts it.
One session lists the resources and tools, reads every resource, calls every tool, and sees
refused calls come back as MCP errors carrying the typed error's message; meanwhile this test
process writes the same world as a game would, and the server sees it. Each session runs
under a deadline, so a server that does not start fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import mcp_over_http

# No skip when the SDK is missing: the test extra brings it, and CI must fail loudly without it.
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import INVALID_PARAMS

from curator import Curator
from curator.domain.errors import InvalidInput
from curator.model.extras import install_command

DEADLINE = 90.0  # seconds for a whole session: generous, the cores are shared; a hang fails here
TOOLS = {"observe_turn", "get_context", "search_memories", "add_passage", "show_character"}
TEMPLATES = {"curator://memory/{character}/recent", "curator://memory/{character}/core",
             "curator://relationships/{character}", "curator://context/{character}{?situation,max_tokens}"}

NEW_TURN = {"id": "mcp-1", "world_time": "2025-03-01T09:00:00Z", "actor": "bear",
            "intent": {"thought": "The ice is thin", "action": "Cross the frozen lake to the island"},
            "reality": "Halfway across, the ice cracks under you and you plunge into the freezing water. "
                       "Owl screeches until you claw your way out.",
            "others": ["owl"], "observers": [], "place": "frozen lake"}
LORE = "The lake freezes every winter; the ice is thinnest by the island."
GAME_TURN = {"id": "game-1", "world_time": "2025-03-01T10:00:00Z", "actor": "fox",
             "intent": {"thought": "Treasure", "action": "Dig under the old lantern"},
             "reality": "Wolf snatches the copper kettle you dug up and runs off with it.",
             "others": ["wolf"], "observers": []}


def run_session(db: Path, log: Path, body: Callable[[Client], Awaitable[None]]) -> None:
    """Spawn `curator mcp --db DB` and run `body` with a client connected to it, within DEADLINE."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "curator", "mcp", "--db", str(db)],
                                   env=dict(os.environ), cwd=str(db.parent))

    async def session() -> None:
        with anyio.fail_after(DEADLINE), log.open("w", encoding="utf-8") as errlog:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=DEADLINE) as client:
                await body(client)

    anyio.run(session)


def payload(result: Any) -> Any:
    """A tool result's JSON (the text block the SDK makes of what the tool returned)."""
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


async def resource(client: Client, uri: str) -> str:
    read = await client.read_resource(uri)
    return str(read.contents[0].text)


@pytest.fixture
def world(tmp_path: Path, transcript_turns: list[dict[str, Any]]) -> Path:
    path = tmp_path / "world.db"
    with Curator(path) as curator:
        curator.observe_many(transcript_turns)
    return path


def test_a_real_stdio_session_reads_every_resource_and_calls_every_tool(world: Path, tmp_path: Path) -> None:
    with Curator(world) as api:
        bear = api.character("bear")
        core_ids = [m.id for m in bear.self_memories.core_memories]
        core_ids += [m.id for r in bear.relationships.values() for m in r.core_memories]
        context_text = api.context("bear", "Wolf is back at the river", max_tokens=300, peek=True).text
        turns_before = api.world.conn.execute("select count(*) from turns").fetchone()[0]
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        assert {r.uri for r in (await client.list_resources()).resources} == {"curator://characters"}
        templates = (await client.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == TEMPLATES
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS

        # Resources: what the API says, as JSON (the context as its text).
        listed = json.loads(await resource(client, "curator://characters"))
        assert {c["id"] for c in listed["characters"]} == {"bear", "fox", "owl", "poacher", "wolf"}
        core = json.loads(await resource(client, "curator://memory/bear/core"))
        assert sorted(m["id"] for m in core["memories"]) == sorted(core_ids)
        recent = json.loads(await resource(client, "curator://memory/bear/recent"))
        assert recent["memories"] and all(m["tier"] == "recent" for m in recent["memories"])
        rels = json.loads(await resource(client, "curator://relationships/bear"))
        assert {r["other"] for r in rels["relationships"]} == set(bear.relationships)
        text = await resource(client, "curator://context/bear?situation=Wolf%20is%20back%20at%20the%20river"
                                      "&max_tokens=300")
        assert text == context_text

        # Tools.
        observed = payload(await client.call_tool("observe_turn", {"turn": NEW_TURN}))
        assert observed["turn_id"] == "mcp-1" and observed["formed"] and not observed["duplicate"]
        again = payload(await client.call_tool("observe_turn", {"turn": NEW_TURN}))
        assert again["duplicate"]
        mine = [f for f in observed["formed"] if f["owner"] == "bear"]
        assert mine
        formed = mine[0]
        context = payload(await client.call_tool("get_context", {
            "character": "bear", "situation": formed["content"], "max_tokens": 400, "present": ["owl"]}))
        assert 0 < context["tokens"] <= 400 and formed["content"] in context["text"]
        assert formed["memory_id"] in context["recalled"]
        found = payload(await client.call_tool("search_memories", {
            "character": "bear", "query": formed["content"], "kinds": [formed["kind"], "failure"],
            "min_importance": 0.1, "since": "2025-03-01T00:00:00Z"}))
        assert formed["memory_id"] in [hit["id"] for hit in found["memories"]]
        for hit in found["memories"]:
            assert hit["kind"] in (formed["kind"], "failure") and hit["importance"] >= 0.1
            assert hit["created_at"] >= "2025-03-01"
        passage = payload(await client.call_tool("add_passage", {
            "character": "bear", "content": LORE, "tags": ["lore"]}))
        assert passage["owner"] == "bear" and passage["tags"] == ["lore"]
        shown = payload(await client.call_tool("show_character", {"character": "bear", "about": "owl"}))
        assert [r["other"] for r in shown["relationships"]] == ["owl"]
        assert formed["memory_id"] in [m["id"] for m in shown["relationships"][0]["recent"]]

        # Refused: a turn the API refuses is an MCP error with the typed error's message.
        bad = {**NEW_TURN, "id": "mcp-2", "reality": ""}
        with pytest.raises(MCPError) as refused:
            await client.call_tool("observe_turn", {"turn": bad})
        seen["refused"] = refused.value
        with pytest.raises(MCPError) as unknown:
            await client.read_resource("curator://memory/nobody/core")
        seen["unknown"] = unknown.value
        with pytest.raises(MCPError) as bad_filter:
            await client.call_tool("search_memories", {"character": "bear", "query": "ice",
                                                       "min_importance": 3})
        seen["bad_filter"] = bad_filter.value

        # A game writes the same world meanwhile (its own writer, in this process): both take
        # turns in the world's writers' queue, and the server reads what the game wrote.
        with Curator(world) as game:
            game.observe(GAME_TURN)
        kettle = payload(await client.call_tool("search_memories", {"character": "fox", "query": "kettle"}))
        assert any("kettle" in m["content"] for m in kettle["memories"])

    run_session(world, tmp_path / "server.log", body)

    with pytest.raises(InvalidInput) as expected:
        Curator(":memory:").observe({**NEW_TURN, "id": "mcp-2", "reality": ""})
    refused = seen["refused"]
    assert refused.code == INVALID_PARAMS and refused.message == str(expected.value)
    assert refused.data == {"error": "InvalidTurn", "exit_code": 2, "field": "reality"}
    assert seen["unknown"].code == INVALID_PARAMS and "unknown character 'nobody'" in seen["unknown"].message
    assert seen["bad_filter"].data["field"] == "min_importance"
    with Curator(world) as api:
        # The refused turn wrote nothing; the observed one, the duplicate and the game's are one each.
        assert api.world.conn.execute("select count(*) from turns").fetchone()[0] == turns_before + 2
        assert api.world.logged_turn("mcp-2") is None
        assert [p.content for p in api.passages.list("bear")] == [LORE]


def test_a_server_that_cannot_start_fails_the_session_at_once(tmp_path: Path) -> None:
    broken = tmp_path / "not-a-world.db"
    broken.write_text("not an SQLite file\n", encoding="utf-8")

    async def body(client: Client) -> None:
        raise AssertionError("connected to a server that should not have started")

    with pytest.raises(BaseExceptionGroup) as failed:  # the SDK's task groups wrap what went wrong
        run_session(broken, tmp_path / "server.log", body)
    errors = leaves(failed.value)
    assert not any(isinstance(e, TimeoutError) for e in errors), "the client waited out its deadline"
    assert any(isinstance(e, MCPError) and "Connection closed" in e.message for e in errors), errors
    assert "not a curator world" in (tmp_path / "server.log").read_text(encoding="utf-8")


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def _fresh(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          check=False)


def test_without_the_extra_curator_mcp_says_how_to_install_it(tmp_path: Path) -> None:
    # sys.modules['mcp'] = None makes `import mcp` fail as if the package were not installed.
    done = _fresh("import sys\nsys.modules['mcp'] = None\nfrom curator.cli import cli\n"
                  f"cli(['mcp', '--db', {str(tmp_path / 'w.db')!r}], prog_name='curator')\n")
    assert done.returncode == 1
    assert done.stdout == ""
    hint = f"Error: curator mcp needs the MCP SDK: {install_command('mcp')}"
    assert done.stderr.strip().splitlines() == [hint]
    assert "[mcp]" in install_command("mcp")
    assert not (tmp_path / "w.db").exists()


def test_import_curator_and_help_do_not_import_the_sdk() -> None:
    done = _fresh("import sys\nimport curator, curator.cli\nfrom curator import Curator\n"
                  "from curator.cli import cli\n"
                  "try:\n    cli(['--help'], prog_name='curator')\nexcept SystemExit:\n    pass\n"
                  "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')"
                  " or m.startswith('curator.mcp_server')))\n")
    assert done.returncode == 0, done.stderr
    assert "  mcp " in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


# -- in process (the SDK's in-memory transport): every tool refuses what the API refuses ----------

REFUSED = [
    ("observe_turn", {"turn": {**NEW_TURN, "world_time": "yesterday"}}, "world_time"),
    ("observe_turn", {"turn": {**NEW_TURN, "actor": "not an id!"}}, "actor"),
    ("observe_turn", {"turn": "not json"}, None),
    ("observe_turn", {"turn": json.dumps({**NEW_TURN, "intent": {"action": ""}})}, "intent.action"),
    ("get_context", {"character": "bear", "max_tokens": 0}, "max_tokens"),
    ("get_context", {"character": "nobody"}, None),
    ("search_memories", {"character": "bear", "query": "ice", "kinds": ["nope"]}, "kind"),
    ("search_memories", {"character": "bear", "query": "ice", "since": "2025-02-01",
                         "until": "2025-01-01"}, "until"),
    ("search_memories", {"character": "bear", "query": "ice", "about": ["nobody"]}, None),
    ("add_passage", {"character": "bear", "content": "   "}, "content"),
    ("add_passage", {"character": "nobody", "content": "Lore."}, None),
    ("show_character", {"character": "bear", "about": "nobody"}, None),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), REFUSED, ids=[f"{t}-{i}" for i, (t, _, _) in
                                                                     enumerate(REFUSED)])
def test_each_tool_refuses_bad_input_with_an_mcp_error(world: Path, tool: str, arguments: dict[str, Any],
                                                       field: str | None) -> None:
    from curator.mcp_server.server import build_server

    with Curator(world) as curator:
        before = curator.world.conn.execute("select count(*) from turns").fetchone()[0]
        passages = len(curator.passages.list("bear"))

        async def call() -> MCPError:
            with anyio.fail_after(DEADLINE):
                async with Client(build_server(curator)) as client:
                    with pytest.raises(MCPError) as refused:
                        await client.call_tool(tool, arguments)
            return refused.value

        error = anyio.run(call)
        assert error.code == INVALID_PARAMS
        assert error.data.get("field") == field, error.data
        assert error.message.startswith(("invalid ", "unknown character", "bear has no")), error.message
        assert curator.world.conn.execute("select count(*) from turns").fetchone()[0] == before
        assert len(curator.passages.list("bear")) == passages


def test_a_locked_world_is_an_mcp_error_naming_exit_status_3(world: Path) -> None:
    from curator.domain.config import CuratorConfig
    from curator.mcp_server.server import build_server

    # Another writer holds the world's write lock for longer than this server's busy timeout.
    with Curator(world) as holder, Curator(world, config=CuratorConfig(busy_timeout_ms=200)) as curator:
        async def call() -> MCPError:
            with anyio.fail_after(DEADLINE):
                async with Client(build_server(curator)) as client:
                    with pytest.raises(MCPError) as refused:
                        await client.call_tool("observe_turn", {"turn": NEW_TURN})
            return refused.value

        with holder.world.transaction():
            error = anyio.run(call)
        assert error.data["error"] == "WorldLocked" and error.data["exit_code"] == 3
        assert holder.world.logged_turn(NEW_TURN["id"]) is None


def test_http_transport_serves_the_same_tools(world: Path, tmp_path: Path) -> None:
    names: list[str] = []
    with mcp_over_http(world, tmp_path / "server.log") as (server, url):

        async def session() -> None:
            with anyio.fail_after(DEADLINE):
                while server.poll() is None:  # until it listens (or dies: then the deadline is not waited)
                    try:
                        async with Client(url) as client:
                            names.extend(t.name for t in (await client.list_tools()).tools)
                            return
                    except Exception:  # not listening yet
                        await anyio.sleep(0.2)

        anyio.run(session)
    assert set(names) == TOOLS, (tmp_path / "server.log").read_text(encoding="utf-8")
