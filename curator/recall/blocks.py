"""Core memory blocks: labelled text a character always carries in its prompt.

This module owns the `blocks` and `block_links` tables. A block belongs to one character
(its owner) and has a label (`personality`, `relationships`, `current_state` or a custom
word), content, a size limit and a description. A *shared* block (`office_news`) is
written by its owner and attached to other characters, who see it among their own blocks.

Rules, checked on every write path: a label is a lower-case word (`[a-z0-9_]{1,40}`); the
content never exceeds the block's `char_limit` (at most 20,000), on create, set and append
alike (`BlockTooLarge`, nothing written); only shared blocks can be attached; attaching a
block to a character that already has it changes nothing; attaching it to its owner is
refused. A character sees at most one block per label: its own block wins over an attached
shared one, and two shared blocks with one label cannot both be attached to it. Deleting a
block detaches it everywhere; deleting its owner deletes it (`World.delete_character`).
"""

from __future__ import annotations

import builtins
import sqlite3
from collections.abc import Callable
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from curator.domain.errors import BlockExists, BlockNotShared, BlockTooLarge, InvalidInput, UnknownBlock
from curator.domain.models import iso, normalize_label
from curator.store.visibility import STAGED
from curator.store.world import World

STANDARD_LABELS = ("personality", "relationships", "current_state")
MAX_CHAR_LIMIT = 20_000
DEFAULT_CHAR_LIMIT = 2_000
MAX_DESCRIPTION = 1_000

_COLUMNS = "id, owner, label, content, char_limit, description, shared, created_at, updated_at"


class Block(BaseModel):
    """One block as a character sees it. `consumers`: who a shared block is attached to."""

    id: int
    owner: str
    label: str
    content: str
    char_limit: int
    description: str = ""
    shared: bool = False
    created_at: datetime
    updated_at: datetime
    consumers: list[str] = Field(default_factory=list)


def label_order(label: str) -> tuple[int, str]:
    """The order blocks are listed in: the standard labels first, then the rest alphabetically."""
    if label in STANDARD_LABELS:
        return (STANDARD_LABELS.index(label), "")
    return (len(STANDARD_LABELS), label)


class Blocks:
    """The blocks of one world: `Curator(...).blocks`, or `Blocks(world)` on an open `World`."""

    def __init__(self, world: World):
        self.world = world

    # -- reading ---------------------------------------------------------------------------

    def get(self, character: str, label: str) -> Block:
        """The block a character sees under `label`: its own, else a shared one attached to it."""
        who, key = self.world.known_character(character), _label(label)
        for block in self._visible(who):
            if block.label == key:
                return block
        raise UnknownBlock(who, key, known=[b.label for b in self.list(who)])

    def list(self, character: str) -> builtins.list[Block]:
        """A character's own blocks and the shared blocks attached to it, in prompt order."""
        return sorted(self._visible(self.world.known_character(character)),
                      key=lambda b: label_order(b.label))

    def consumers(self, owner: str, label: str) -> builtins.list[str]:
        """The characters a block is attached to (not its owner), by id."""
        return self._own(self.world.known_character(owner), _label(label)).consumers

    # -- writing ---------------------------------------------------------------------------

    def create(self, owner: str, label: str, content: str = "", *, char_limit: int = DEFAULT_CHAR_LIMIT,
               description: str = "", shared: bool = False) -> Block:
        """Create a block for `owner`; `BlockExists` if it already has one with this label."""
        if isinstance(char_limit, bool) or not isinstance(char_limit, int) \
                or not 1 <= char_limit <= MAX_CHAR_LIMIT:
            raise InvalidInput(f"must be 1..{MAX_CHAR_LIMIT} characters, got {char_limit!r}",
                               field="char_limit")
        if len(description) > MAX_DESCRIPTION:
            raise InvalidInput(f"at most {MAX_DESCRIPTION} characters, got {len(description)}",
                               field="description")
        with self.world.transaction() as world:
            who, key = world.known_character(owner), _label(label)
            _check_size(who, key, char_limit, content)
            now = iso(world.now())
            try:
                cur = world.conn.execute(
                    "insert into blocks (owner, label, content, char_limit, description, shared, "
                    "created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
                    (who, key, content, char_limit, description, int(shared), now, now))
            except sqlite3.IntegrityError as error:
                raise BlockExists(who, key) from error
            block_id = cur.lastrowid
        return self._by_id(int(block_id or 0))

    def set(self, owner: str, label: str, content: str) -> Block:
        """Replace the content of one of `owner`'s blocks."""
        return self._write(owner, label, lambda old: content)

    def append(self, owner: str, label: str, text: str) -> Block:
        """Add `text` to the end of one of `owner`'s blocks, on a new line if it has content."""
        if not text:
            raise InvalidInput("nothing to append", field="text")
        return self._write(owner, label, lambda old: f"{old}\n{text}" if old else text)

    def attach(self, owner: str, label: str, *characters: str) -> Block:
        """Attach `owner`'s shared block to characters; already attached ones are left as they are."""
        with self.world.transaction() as world:
            block = self._own(world.known_character(owner), _label(label))
            if not block.shared:
                raise BlockNotShared(block.owner, block.label)
            now = iso(world.now())
            for character in characters:
                who = self._consumer(block, character)
                if who in block.consumers:
                    continue
                clash = world.conn.execute(
                    "select b.owner from blocks b join block_links l on l.block_id = b.id "
                    f"where l.character = ? and b.label = ? and b.owner not in {STAGED}",
                    (who, block.label)).fetchone()
                if clash is not None:
                    raise InvalidInput(f"{who} already has the shared block {clash[0]}/{block.label} "
                                       "attached; detach it first", field="character")
                world.conn.execute("insert into block_links (block_id, character, attached_at) "
                                   "values (?, ?, ?)", (block.id, who, now))
                block.consumers.append(who)
        return self._by_id(block.id)

    def detach(self, owner: str, label: str, *characters: str) -> Block:
        """Detach `owner`'s block from characters; ones it is not attached to are left alone."""
        with self.world.transaction() as world:
            block = self._own(world.known_character(owner), _label(label))
            for character in characters:
                world.conn.execute("delete from block_links where block_id = ? and character = ?",
                                   (block.id, self._consumer(block, character)))
        return self._by_id(block.id)

    def delete(self, owner: str, label: str) -> Block:
        """Delete one of `owner`'s blocks, detaching it everywhere; returns it as it was."""
        with self.world.transaction() as world:
            block = self._own(world.known_character(owner), _label(label))
            world.conn.execute("delete from block_links where block_id = ?", (block.id,))
            world.conn.execute("delete from blocks where id = ?", (block.id,))
        return block

    # -- helpers ---------------------------------------------------------------------------

    def _write(self, owner: str, label: str, change: Callable[[str], str]) -> Block:
        with self.world.transaction() as world:
            block = self._own(world.known_character(owner), _label(label))
            content = change(block.content)
            _check_size(block.owner, block.label, block.char_limit, content)
            world.conn.execute("update blocks set content = ?, updated_at = ? where id = ?",
                               (content, iso(world.now()), block.id))
        return self._by_id(block.id)

    def _consumer(self, block: Block, character: str) -> str:
        who = self.world.known_character(character)
        if who == block.owner:
            raise InvalidInput(f"{who} owns the block {block.owner}/{block.label}; a block is "
                               "attached to other characters", field="character")
        return who

    def _own(self, owner: str, label: str) -> Block:
        row = self.world.conn.execute(f"select {_COLUMNS} from blocks where owner = ? and label = ?",
                                      (owner, label)).fetchone()
        if row is None:
            known = [r[0] for r in self.world.conn.execute(
                "select label from blocks where owner = ? order by label", (owner,))]
            raise UnknownBlock(owner, label, known=known)
        return self._with_consumers([row])[0]

    def _by_id(self, block_id: int) -> Block:
        row = self.world.conn.execute(f"select {_COLUMNS} from blocks where id = ?", (block_id,)).fetchone()
        return self._with_consumers([row])[0]

    def _visible(self, who: str) -> builtins.list[Block]:
        """One block per label: the character's own, else the shared one attached to it."""
        own = self.world.conn.execute(f"select {_COLUMNS} from blocks where owner = ?", (who,)).fetchall()
        attached = self.world.conn.execute(
            f"select {', '.join('b.' + c for c in _COLUMNS.split(', '))} from blocks b "
            f"join block_links l on l.block_id = b.id where l.character = ? and b.owner not in {STAGED} "
            "order by b.owner",
            (who,)).fetchall()
        seen: dict[str, tuple[Any, ...]] = {}
        for row in own + attached:
            seen.setdefault(row[2], row)
        return self._with_consumers(builtins.list(seen.values()))

    def _with_consumers(self, rows: builtins.list[Any]) -> builtins.list[Block]:
        blocks = [_block(row) for row in rows]
        shared = {b.id: b for b in blocks if b.shared}
        if shared:
            marks = ", ".join("?" * len(shared))
            for block_id, character in self.world.conn.execute(
                    f"select block_id, character from block_links where block_id in ({marks}) "
                    "order by character", tuple(shared)):
                shared[block_id].consumers.append(character)
        return blocks


def _label(value: str) -> str:
    try:
        return normalize_label(value)
    except ValueError as error:
        raise InvalidInput(str(error), field="label") from error


def _check_size(owner: str, label: str, limit: int, content: str) -> None:
    if len(content) > limit:
        raise BlockTooLarge(owner, label, limit=limit, size=len(content))


def _block(row: tuple[Any, ...]) -> Block:
    return Block(id=row[0], owner=row[1], label=row[2], content=row[3], char_limit=row[4],
                 description=row[5], shared=bool(row[6]), created_at=datetime.fromisoformat(row[7]),
                 updated_at=datetime.fromisoformat(row[8]))


# -- export and import (exporting.py), inside the caller's transaction ---------------------

def blocks_document(world: World, owner: str) -> dict[str, Any]:
    """The owner's blocks (with the characters its shared ones are attached to) and the
    shared blocks of others attached to it, as an export's `blocks` entry."""
    own = Blocks(world)._with_consumers(world.conn.execute(
        f"select {_COLUMNS} from blocks where owner = ? order by label", (owner,)).fetchall())
    attached = world.conn.execute(
        "select b.owner, b.label from blocks b join block_links l on l.block_id = b.id "
        f"where l.character = ? and b.owner not in {STAGED} order by b.owner, b.label", (owner,)).fetchall()
    return {"own": [{"label": b.label, "content": b.content, "char_limit": b.char_limit,
                     "description": b.description, "shared": b.shared, "consumers": b.consumers,
                     "created_at": iso(b.created_at), "updated_at": iso(b.updated_at)} for b in own],
            "attached": [{"owner": row[0], "label": row[1]} for row in attached]}


def import_blocks(world: World, owner: str, document: dict[str, Any], at: datetime) -> None:
    """Write an export's blocks for `owner` (replacing any it owns), then restore the links
    whose other end is already in the world: to consumers of its shared blocks, and to the
    shared blocks of others it was attached to. Importing both ends restores every link."""
    world.conn.execute("delete from block_links where block_id in (select id from blocks where owner = ?)",
                       (owner,))
    world.conn.execute("delete from blocks where owner = ?", (owner,))
    links: list[tuple[str, str, str]] = []  # (block owner, label, consumer)
    for doc in document.get("own", []):
        label, content = _label(doc["label"]), str(doc.get("content", ""))
        limit = int(doc.get("char_limit", DEFAULT_CHAR_LIMIT))
        if not 1 <= limit <= MAX_CHAR_LIMIT:
            raise InvalidInput(f"must be 1..{MAX_CHAR_LIMIT} characters, got {limit}", field="char_limit")
        _check_size(owner, label, limit, content)
        world.conn.execute(
            "insert into blocks (owner, label, content, char_limit, description, shared, created_at, "
            "updated_at) values (?, ?, ?, ?, ?, ?, ?, ?)",
            (owner, label, content, limit, str(doc.get("description", "")), int(bool(doc.get("shared"))),
             doc.get("created_at") or iso(at), doc.get("updated_at") or iso(at)))
        links += [(owner, label, str(c)) for c in doc.get("consumers", [])]
    links += [(str(d["owner"]), _label(d["label"]), owner) for d in document.get("attached", [])]
    for block_owner, label, consumer in links:
        world.conn.execute(
            "insert or ignore into block_links (block_id, character, attached_at) "
            "select b.id, c.id, ? from blocks b join characters c on c.id = ? "
            "where b.owner = ? and b.label = ? and b.shared = 1 and c.id != b.owner",
            (iso(at), consumer, block_owner, label))
