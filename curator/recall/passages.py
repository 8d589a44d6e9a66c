"""Archival passages: a character's long-term, searchable text (lore, past episodes).

This module owns the `passages` table and searches its full-text index `passage_fts`, which
triggers keep in step (migration m004). A passage belongs to one character, holds 1-20,000
characters and up to 16 tags (lower-case words). Search is keyword search ranked by bm25
over the text and the tags, never across owners. A user's query is turned into words, each
quoted and OR-ed together, so no text (`"`, `AND(`, `*`, nothing at all) is an FTS5
syntax error.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from curator.domain.errors import InvalidInput, UnknownPassage
from curator.domain.models import iso, normalize_label
from curator.store.world import World

MAX_CONTENT = 20_000
MAX_TAGS = 16
MAX_LIMIT = 1_000
MAX_QUERY_WORDS = 32
# bm25 weights per passage_fts column: text, tags, owner (owner only filters).
_WEIGHTS = "1.0, 0.5, 0.0"
_COLUMNS = "p.id, p.owner, p.content, p.tags, p.created_at"
_WORD = re.compile(r"\w+")


class Passage(BaseModel):
    """One archival passage."""

    id: int
    owner: str
    content: str
    tags: list[str] = Field(default_factory=list)
    created_at: datetime


class PassageHit(Passage):
    """A passage found by `Passages.search`: `score` is bm25 (higher is better), `snippet`
    the best-matching stretch of its text with the matched words in [brackets]."""

    score: float
    snippet: str


def match_expression(query: str) -> str | None:
    """A safe FTS5 query for free text: its words, each quoted, OR-ed, on text and tags.

    None when the text has no words (nothing can match)."""
    words: dict[str, None] = {}
    for word in _WORD.findall(query):
        words.setdefault(word.casefold(), None)
    if not words:
        return None
    quoted = " OR ".join('"' + w.replace('"', '""') + '"' for w in list(words)[:MAX_QUERY_WORDS])
    return f"{{text tags}} : ({quoted})"


class Passages:
    """The passages of one world: `Curator(...).passages`, or `Passages(world)` on a `World`."""

    def __init__(self, world: World):
        self.world = world

    def store(self, owner: str, content: str, tags: Iterable[str] = ()) -> Passage:
        """Save a passage for `owner` with optional tags; returns it with its id."""
        if not content.strip():
            raise InvalidInput("a passage needs some text", field="content")
        if len(content) > MAX_CONTENT:
            raise InvalidInput(f"at most {MAX_CONTENT} characters, got {len(content)}", field="content")
        keys = _tags([tags] if isinstance(tags, str) else tags)
        with self.world.transaction() as world:
            who = world.known_character(owner)
            cur = world.conn.execute(
                "insert into passages (owner, content, tags, created_at) values (?, ?, ?, ?)",
                (who, content, json.dumps(keys), iso(world.now())))
            passage_id = int(cur.lastrowid or 0)
        return self.get(who, passage_id)

    def get(self, owner: str, passage_id: int) -> Passage:
        """One of `owner`'s passages; `UnknownPassage` if it has none with this id."""
        who = self.world.known_character(owner)
        row = self.world.conn.execute(f"select {_COLUMNS} from passages p where p.id = ? and p.owner = ?",
                                      (passage_id, who)).fetchone()
        if row is None:
            raise UnknownPassage(who, passage_id)
        return _passage(row)

    def list(self, owner: str, *, tag: str | None = None, limit: int = 50,
             offset: int = 0) -> builtins.list[Passage]:
        """`owner`'s passages, newest first; with `tag`, only those tagged so."""
        who = self.world.known_character(owner)
        _check_limit(limit)
        if offset < 0:
            raise InvalidInput(f"must be 0 or more, got {offset}", field="offset")
        where, params = _tag_filter(tag)
        rows = self.world.conn.execute(
            f"select {_COLUMNS} from passages p where p.owner = ?{where} order by p.id desc "
            "limit ? offset ?", (who, *params, limit, offset)).fetchall()
        return [_passage(row) for row in rows]

    def search(self, owner: str, query: str, *, limit: int = 10,
               tag: str | None = None) -> builtins.list[PassageHit]:
        """`owner`'s passages that share a word with `query`, best first (bm25)."""
        who = self.world.known_character(owner)
        _check_limit(limit)
        where, params = _tag_filter(tag)
        expression = match_expression(query)
        if expression is None:
            return []
        rows = self.world.conn.execute(
            f"select {_COLUMNS}, bm25(passage_fts, {_WEIGHTS}) as rank, "
            "snippet(passage_fts, 0, '[', ']', '…', 16) from passage_fts "
            "join passages p on p.id = passage_fts.rowid "
            f"where passage_fts match ? and p.owner = ?{where} order by rank, p.id desc limit ?",
            (expression, who, *params, limit)).fetchall()
        return [PassageHit(**_passage(row[:5]).model_dump(), score=round(-row[5], 6), snippet=row[6])
                for row in rows]

    def delete(self, owner: str, passage_id: int) -> Passage:
        """Delete one of `owner`'s passages; returns it as it was."""
        with self.world.transaction() as world:
            passage = self.get(owner, passage_id)
            world.conn.execute("delete from passages where id = ?", (passage.id,))
        return passage


def _tags(values: Iterable[str], field: str = "tags") -> list[str]:
    keys: dict[str, None] = {}
    for value in values:
        try:
            keys.setdefault(normalize_label(value), None)
        except ValueError as error:
            raise InvalidInput(str(error).replace("a label", "a tag"), field=field) from error
    if len(keys) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags, got {len(keys)}", field=field)
    return list(keys)


def _tag_filter(tag: str | None) -> tuple[str, tuple[str, ...]]:
    if tag is None:
        return "", ()
    (key,) = _tags([tag], "tag")
    return " and exists (select 1 from json_each(p.tags) where json_each.value = ?)", (key,)


def _check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"must be 1..{MAX_LIMIT}, got {limit}", field="limit")


def _passage(row: tuple[Any, ...]) -> Passage:
    return Passage(id=row[0], owner=row[1], content=row[2], tags=json.loads(row[3]),
                   created_at=datetime.fromisoformat(row[4]))


# -- export and import (exporting.py), inside the caller's transaction ---------------------

def passages_document(world: World, owner: str) -> list[dict[str, Any]]:
    """The owner's passages, oldest first, as an export's `passages` entry."""
    rows = world.conn.execute(f"select {_COLUMNS} from passages p where p.owner = ? order by p.id",
                              (owner,)).fetchall()
    return [{"content": p.content, "tags": p.tags, "created_at": iso(p.created_at)}
            for p in map(_passage, rows)]


def import_passages(world: World, owner: str, documents: list[dict[str, Any]], at: datetime) -> None:
    """Write an export's passages for `owner`, replacing any it has."""
    world.conn.execute("delete from passages where owner = ?", (owner,))
    for doc in documents:
        content = str(doc["content"])
        if not content.strip() or len(content) > MAX_CONTENT:
            raise InvalidInput(f"a passage needs 1..{MAX_CONTENT} characters", field="content")
        world.conn.execute("insert into passages (owner, content, tags, created_at) values (?, ?, ?, ?)",
                           (owner, content, json.dumps(_tags(doc.get("tags", []))),
                            doc.get("created_at") or iso(at)))
