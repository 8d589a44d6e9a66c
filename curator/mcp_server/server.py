"""The MCP server over one world: resources to read a character's memories, tools to write and search.

Resources (JSON unless said):
    curator://characters                              the characters, with memory counts
    curator://memory/{character}/recent               its recent memories (self and about others)
    curator://memory/{character}/core                 its core memories
    curator://relationships/{character}               its relationships: summary, feelings, trust
    curator://context/{character}{?situation,max_tokens}   its memory context (text), as a peek

Tools: `observe_turn`, `get_context`, `search_memories`, `add_passage`, `show_character`.

Everything goes through the `Curator` API, so the server validates exactly what the API and
the CLI validate, and a refusal is an MCP error carrying the typed error's message
(documents.py). Each write is one transaction in the world's writers' queue (store/writelock.py,
through api/access.py's connection per thread): the server and a game writing the same world
take turns, and a write that waits longer than the busy timeout is `WorldLocked`.
Reading a resource never writes (the context resource is a peek); `get_context` marks what
it used as recalled, as `Curator.context` does, unless `peek` is true.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer

from curator.api.curator import Curator
from curator.domain.errors import CuratorError, InvalidInput, UnknownCharacter
from curator.mcp_server.bearer import RequireBearer
from curator.mcp_server.documents import (
    character_document,
    context_document,
    hit_document,
    mcp_error,
    relationships_document,
    tier_document,
)

F = TypeVar("F", bound=Callable[..., Any])

INSTRUCTIONS = (
    "curator keeps the memories of game characters and agents. Read a character's memories with the "
    "curator:// resources; after each turn of the game, call observe_turn with what the actor meant to do "
    "(intent) and what actually happened (reality); before a character speaks or acts, call get_context "
    "for the text to put in its prompt; search_memories finds what it remembers, with filters.")


def typed_errors(fn: F) -> F:
    """A `CuratorError` raised by the API becomes an MCP error with its message."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except CuratorError as error:
            raise mcp_error(error) from error
    return wrapper  # type: ignore[return-value]


def build_server(curator: Curator) -> MCPServer:
    """The MCP server for `curator`'s world (the caller closes the Curator)."""
    server: MCPServer = MCPServer("curator", instructions=INSTRUCTIONS, log_level="WARNING")
    _resources(server, curator)
    _tools(server, curator)
    return server


def _resources(server: MCPServer, curator: Curator) -> None:
    @server.resource("curator://characters", name="characters", mime_type="application/json",
                     description="The characters of the world, with their memory counts")
    @typed_errors
    def characters() -> dict[str, Any]:
        return {"characters": [{"id": c, "counts": curator.counts(c)} for c in curator.characters()]}

    @server.resource("curator://memory/{character}/recent", name="recent memories",
                     mime_type="application/json",
                     description="A character's recent memories, of itself and about others, oldest first")
    @typed_errors
    def recent(character: str) -> dict[str, Any]:
        return tier_document(curator.character(character), "recent")

    @server.resource("curator://memory/{character}/core", name="core memories", mime_type="application/json",
                     description="A character's core memories: the permanent, defining ones")
    @typed_errors
    def core(character: str) -> dict[str, Any]:
        return tier_document(curator.character(character), "core")

    @server.resource("curator://relationships/{character}", name="relationships",
                     mime_type="application/json",
                     description="A character's relationships: summary, sentiment, bond, trust, rapport")
    @typed_errors
    def relationships(character: str) -> dict[str, Any]:
        return relationships_document(curator.character(character))

    @server.resource("curator://context/{character}{?situation,max_tokens}", name="memory context",
                     mime_type="text/plain",
                     description="A character's memory context for a situation, fitted to max_tokens "
                                 "(reading it recalls nothing; the get_context tool does)")
    @typed_errors
    def context(character: str, situation: str = "", max_tokens: str = "") -> str:
        budget = _int(max_tokens, "max_tokens") if max_tokens else None
        return curator.context(character, situation, max_tokens=budget, peek=True).text


def _tools(server: MCPServer, curator: Curator) -> None:
    @server.tool()
    @typed_errors
    def observe_turn(turn: dict[str, Any] | str) -> dict[str, Any]:
        """Observe one turn of the game, after it happened: curator forms the memories of the actor
        and every observer, in one transaction. `turn` is the object `curator observe` reads (or
        its JSON text): id, actor, intent {thought, action}, reality, world_time (ISO 8601), and
        optionally others, observers, place, tags, domain. The same id sent again changes nothing."""
        return curator.observe(turn).model_dump(mode="json")

    @server.tool()
    @typed_errors
    def get_context(character: str, situation: str = "", max_tokens: int | None = None,
                    present: list[str] | None = None, peek: bool = False) -> dict[str, Any]:
        """The memory context for a character's next prompt: the text (within max_tokens) and what
        went into it. `present` names the characters present. The memories used are marked as
        recalled (they grow stronger) unless `peek` is true."""
        return context_document(curator.context(character, situation, with_=present or (),
                                                max_tokens=max_tokens, peek=peek))

    @server.tool()
    @typed_errors
    def search_memories(character: str, query: str, limit: int = 10, kinds: list[str] | None = None,
                        min_importance: float | None = None, since: str | None = None,
                        until: str | None = None, about: list[str] | None = None,
                        tiers: list[str] | None = None) -> dict[str, Any]:
        """A character's memories, live or archived, that best match `query`, best first (nothing
        is recalled). Filters: `kinds` (e.g. danger, kindness, betrayal, failure, triumph),
        `min_importance` (0..1), `since`/`until` (world time, ISO 8601, inclusive), `about`
        (characters; the character's own id for its self memories), `tiers` (recent, core,
        archived). With a filter, an empty query lists what passes."""
        found = curator.search(character, query, limit=limit, kinds=kinds, min_importance=min_importance,
                               since=since, until=until, about=about, tiers=tiers)
        return {"character": character, "query": query, "memories": [hit_document(h) for h in found]}

    @server.tool()
    @typed_errors
    def add_passage(character: str, content: str, tags: list[str] | None = None) -> dict[str, Any]:
        """Save an archival passage (lore, a past episode) for a known character: long-term text
        its context searches by keyword."""
        passage = curator.passages.store(character, content, tags or ())
        return passage.model_dump(mode="json")

    @server.tool()
    @typed_errors
    def show_character(character: str, about: str | None = None) -> dict[str, Any]:
        """What a character remembers: persona, self memories, and each relationship (summary,
        feelings, recent and core memories); `about` keeps only the relationship with one."""
        char = curator.character(character)
        other = None
        if about is not None:
            other = about.strip().casefold()
            if other not in char.relationships:
                raise UnknownCharacter(other, known=sorted(char.relationships))
        return character_document(char, curator.counts(character), other)


def _int(text: str, field: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InvalidInput(f"a whole number, not {text[:40]!r}", field=field) from None


def serve(curator: Curator, transport: Literal["stdio", "http"], *, host: str, port: int,
          token: str | None = None) -> None:
    """Run the server until its client goes (stdio) or it is stopped (HTTP, at /mcp; with
    `token`, only for clients that send it as a bearer token: bearer.py)."""
    server = build_server(curator)
    if transport == "stdio":
        server.run("stdio")
        return
    import uvicorn  # the SDK's own dependency: its server.run("streamable-http") runs the same

    app = server.streamable_http_app(host=host)
    uvicorn.run(app if token is None else RequireBearer(app, token), host=host, port=port,
                log_level="warning")
