"""Hands-on edits of memories (m011): the rows a designer's add, edit, pin, unpin and forget
write, and the log of every such change (`memory_edits`: what, before and after, who, and
when in wall time and world time).

The full-text index follows edits through m004/m007's triggers (content is indexed by seq,
live or archived). What the API checks and logs around these is api/editing.py's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from curator.domain.models import parse_time
from curator.store.world import World


class MemoryEdit(BaseModel):
    """One hand change of one memory."""

    memory_id: str
    owner: str
    action: Literal["add", "edit", "pin", "unpin", "forget"]
    before: str | None = None
    after: str | None = None
    by: str
    at: str  # wall time
    world_time: str | None = None

    @field_validator("at", "world_time")
    @classmethod
    def _time(cls, value: str | None) -> str | None:
        if value is not None:
            parse_time(value)  # a ValueError names the field in an import
        return value


_EDIT = ("memory_id", "owner", "action", "before", "after", "by", "at", "world_time")



def set_content(world: World, memory_id: str, content: str) -> None:
    for table in ("memories", "memory_archive"):
        world.conn.execute(f"update {table} set content = ? where id = ?", (content, memory_id))


def set_pinned(world: World, memory_id: str, pinned: bool) -> None:
    for table in ("memories", "memory_archive"):
        world.conn.execute(f"update {table} set pinned = ? where id = ?", (int(pinned), memory_id))


def log_edit(world: World, edit: MemoryEdit) -> None:
    values = edit.model_dump()
    world.conn.execute(f"insert into memory_edits ({', '.join(_EDIT)}) values "
                       f"({', '.join('?' * len(_EDIT))})", [values[c] for c in _EDIT])


def edit_history(world: World, memory_id: str) -> list[MemoryEdit]:
    """The changes of one memory, oldest first."""
    return _edits(world, "memory_id = ?", memory_id)


def edits_of(world: World, owner: str) -> list[MemoryEdit]:
    """Every hand change of the owner's memories, oldest first (what an export carries)."""
    return _edits(world, "owner = ?", owner)


def _edits(world: World, where: str, value: str) -> list[MemoryEdit]:
    rows = world.conn.execute(f"select {', '.join(_EDIT)} from memory_edits where {where} order by id",
                              (value,))
    return [MemoryEdit.model_validate(dict(zip(_EDIT, row, strict=True))) for row in rows]


def clear_edits(world: World, owner: str) -> None:
    world.conn.execute("delete from memory_edits where owner = ?", (owner,))


def import_edits(world: World, owner: str, entries: Iterable[Mapping[str, Any]]) -> None:
    """Write an export's edit history for `owner` (its entries are checked by the model)."""
    for entry in entries:
        log_edit(world, MemoryEdit.model_validate({**entry, "owner": owner}))
