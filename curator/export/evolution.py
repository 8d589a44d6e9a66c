"""Export and import of evolution: attributes, their change log, personality
snapshots, a character's evolution mark, and the world's evolution reports.

A character document (format_version ≥ 2) carries

    "attributes": {"caution": {"value", "updated_at"}, …},
    "attribute_changes": [{"attribute", "other", "delta", "value_after", "memory_id",
                           "reason", "world_time"}, …],          # oldest first
    "personality_snapshots": [{"world_time", "work_style", …, "through_change"}, …],
    "evolution_mark": {"world_time"} | null,
    "goals": [{"label", "description", "progress", "priority", "status", …, "history"}, …],
    "practice": [{"skill", "attempts", "went_as_meant", "went_wrong", "named", …}, …],

and a world document "evolution_reports": [{"world_time", "report", "created_at"}, …].

Row ids are the world's own, so the document says none of them. A snapshot's
`through_change` is a count: the snapshot reflects the first N entries of the character's
`attribute_changes`; import maps it back to the id of the N-th change it writes. The
evolution mark keeps only its world time: the turn log is not exported, so import marks the
character as having drawn on the importing world's turns up to that time, the way a cycle
at that time would have (evolution.drift). Trust and rapport travel with relationships
(exporting.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from curator.domain.models import iso, parse_time
from curator.evolution.cycle import save_snapshot, snapshots
from curator.evolution.goals import export_goals, import_goal
from curator.evolution.personality import PersonalitySnapshot
from curator.evolution.practice import export_practice, import_practice
from curator.evolution.report import reports
from curator.export.fields import FieldError, IsoTime, at, items, mapping
from curator.store.world import World


class AttributeDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: float = Field(ge=0.0, le=1.0)
    updated_at: IsoTime


class ChangeDocument(BaseModel):
    """One logged change, as exported: an AttributeChange without the world's row id."""

    model_config = ConfigDict(extra="forbid")

    attribute: str = Field(min_length=1)
    other: str | None = None
    delta: float
    value_after: float
    memory_id: str = Field(min_length=1)
    reason: str
    world_time: IsoTime


class ReportDocument(BaseModel):
    model_config = ConfigDict(extra="forbid")

    world_time: IsoTime
    report: str
    created_at: IsoTime


_CHANGE_COLUMNS = "attribute, other, delta, value_after, memory_id, reason, world_time"


def evolution_document(world: World, owner: str) -> dict[str, Any]:
    """The owner's attributes, change log, snapshots and mark, as an export's entries (also
    what `curator show` renders: the human output is this document in words)."""
    attributes = {name: {"value": value, "updated_at": at} for name, value, at in world.conn.execute(
        "select name, value, updated_at from attributes where character = ? order by name", (owner,))}
    rows = world.conn.execute(f"select id, {_CHANGE_COLUMNS} from attribute_changes "
                              "where character = ? order by id", (owner,)).fetchall()
    change_ids = [row[0] for row in rows]
    changes = [dict(zip(ChangeDocument.model_fields, row[1:], strict=True)) for row in rows]
    taken = []
    for snapshot in snapshots(world, owner):
        doc = snapshot.model_dump(exclude={"id", "character"})
        doc["through_change"] = sum(1 for i in change_ids if i <= snapshot.through_change)
        taken.append(doc)
    mark = world.conn.execute("select world_time from evolution_marks where character = ?",
                              (owner,)).fetchone()
    return {"attributes": attributes, "attribute_changes": changes, "personality_snapshots": taken,
            "evolution_mark": {"world_time": mark[0]} if mark else None,
            "goals": export_goals(world, owner), "practice": export_practice(world, owner)}


def reports_document(world: World) -> list[dict[str, Any]]:
    """The world's evolution reports, oldest first, as a world export's entry."""
    return [r.model_dump(exclude={"id"}) for r in reports(world)]


def clear_evolution(world: World, owner: str) -> None:
    """Remove what a character's cycles wrote (before its import writes the document's).
    Changes other characters logged about it stay: they are theirs."""
    for table in ("attributes", "attribute_changes", "personality_snapshots", "evolution_marks", "goals",
                  "goal_history", "practice"):
        world.conn.execute(f"delete from {table} where character = ?", (owner,))


def import_evolution(world: World, owner: str, doc: Mapping[str, Any]) -> None:
    """Write a character document's evolution entries for `owner` (inside the caller's
    transaction, after `clear_evolution`). Absent entries (a format_version 1 document)
    leave the character as one whose cycles have not run yet."""
    with at("attributes"):
        attributes = mapping(doc.get("attributes") or {})
    for name, value in attributes.items():
        with at(f"attributes.{name}"):
            row = AttributeDocument.model_validate(value)
        world.conn.execute("insert into attributes (character, name, value, updated_at) values (?, ?, ?, ?)",
                           (owner, str(name), row.value, row.updated_at))
    change_ids = [0]  # change_ids[n]: the id of the n-th change written; 0 for none
    for n, item in enumerate(items(doc, "attribute_changes")):
        with at(f"attribute_changes.{n}"):
            change = ChangeDocument.model_validate(item)
        cur = world.conn.execute(
            f"insert into attribute_changes (character, {_CHANGE_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?)",
            (owner, change.attribute, change.other, change.delta, change.value_after, change.memory_id,
             change.reason, change.world_time))
        change_ids.append(int(cur.lastrowid or 0))
    for n, item in enumerate(items(doc, "personality_snapshots")):
        with at(f"personality_snapshots.{n}"):
            snapshot = PersonalitySnapshot.model_validate({**mapping(item), "character": owner, "id": None})
            with at("world_time"):
                parse_time(snapshot.world_time)
            if not 0 <= snapshot.through_change < len(change_ids):
                raise FieldError("through_change", "counts the character's attribute_changes: "
                                 f"0..{len(change_ids) - 1}, got {snapshot.through_change}")
        snapshot.through_change = change_ids[snapshot.through_change]
        save_snapshot(world, snapshot)
    for n, item in enumerate(items(doc, "goals")):
        with at(f"goals.{n}"):
            import_goal(world, owner, mapping(item))
    for n, item in enumerate(items(doc, "practice")):
        with at(f"practice.{n}"):
            import_practice(world, owner, dict(mapping(item)))
    mark = doc.get("evolution_mark")
    if mark is not None:
        with at("evolution_mark"):
            raw = mapping(mark)["world_time"]
            with at("world_time"):
                when = iso(parse_time(raw))
        # The turns of the importing world up to the mark are treated as drawn on, like
        # evolution.drift's own mark; later turns are the character's next experiences.
        through = world.conn.execute("select coalesce(max(seq), 0) from turns where world_time <= ?",
                                     (when,)).fetchone()[0]
        # Goal changes up to the mark were reviewed by the cycle that set it (goals.review_goals).
        reviewed = world.conn.execute("select coalesce(max(id), 0) from goal_history where character = ? "
                                      "and world_time <= ?", (owner, when)).fetchone()[0]
        world.conn.execute("insert into evolution_marks (character, through_seq, world_time, through_goal) "
                           "values (?, ?, ?, ?)", (owner, int(through), when, int(reviewed)))


def import_reports(world: World, documents: Sequence[Any]) -> None:
    """Append a world document's reports; one the world already holds is not written twice
    (importing a world again with replace keeps one copy of each)."""
    for n, item in enumerate(documents):
        with at(f"evolution_reports.{n}"):
            report = ReportDocument.model_validate(item)
        world.conn.execute(
            "insert into evolution_reports (world_time, report, created_at) select ?1, ?2, ?3 "
            "where not exists (select 1 from evolution_reports where world_time = ?1 and report = ?2 "
            "and created_at = ?3)", (report.world_time, report.report, report.created_at))
