"""The evolution cycle (weekly, or whenever the game asks): fade, drift, snapshot, narrate, report.

The caller (`Curator.evolve`, api/cycles.py) first fades every recent memory to the cycle's
world time (fully faded ones go to the archive), then evolves each character in a transaction
of its own (`evolve_character`), so that a cycle over a large world never holds the write
lock for long and the game's turns go in between; a character's evolution reads and writes
only its own rows, so the result is the same as in one transaction. For each character with
memories: its attributes, trust and rapport drift with what it lived
through since its last cycle (attributes.py); a personality snapshot is derived
(personality.py); drift since the previous snapshot is detected with its reason; the identity
narrative is refreshed through step `identity` (identity.py: a model with prompts/identity.j2,
else the deterministic narrative). Last, one Markdown report for the world is stored in
`evolution_reports` (report.py, `draft_report` then `report_cycle`).
This module owns the `personality_snapshots` table.

A character with no new experience whose snapshot would read exactly as its last one gets
no new snapshot and no narrative call; a cycle in which nobody changed stores no new report
and returns the latest one, so running a cycle twice at one world time changes nothing.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from curator.domain.config import CuratorConfig
from curator.domain.models import iso
from curator.domain.results import MemoryChange
from curator.evolution import attributes, personality
from curator.evolution.goals import review_goals
from curator.evolution.identity import IDENTITY, IdentityInput, TrustView
from curator.evolution.personality import DefiningMemory, PersonalitySnapshot
from curator.evolution.report import CharacterEvolution, EvolutionReport, latest_report, render_report
from curator.model.decision import MemoryView
from curator.model.steps import Decider
from curator.store.rows import SELECT_MEMORY, memory_from_row
from curator.store.world import World

_SNAPSHOT_COLUMNS = ("id", "character", "world_time", "work_style", "risk_tolerance", "social_orientation",
                     "learning_style", "stress_response", "identity_summary", "narrative_by",
                     "defining_memories", "attributes", "avg_trust", "avg_rapport", "through_change")


class CycleInputs(BaseModel):
    """What a character's snapshot is derived from, read once per cycle."""

    relations: list[TrustView] = Field(default_factory=list)
    active: int = 0
    vivid: int = 0


def due_for_cycle(world: World) -> tuple[list[str], int]:
    """The characters a cycle evolves, in id order: those that lived something since their last
    cycle (a turn they perceived at or after it, or a goal of theirs that moved) and those never
    evolved; and how many others rest. A cycle's work grows with what changed, not with the
    world: a character with nothing new would only repeat its last snapshot."""
    due = [str(row[0]) for row in world.conn.execute(
        "select c.id from characters c left join evolution_marks m on m.character = c.id "
        "where c.import_id is null and (m.character is null or coalesce(c.clock, '') >= m.world_time "
        "or exists (select 1 from goal_history g where g.character = c.id and g.id > m.through_goal)) "
        "order by c.id")]
    # Not the characters of an import under way (store/visibility.py): not the world's yet.
    total = int(world.conn.execute("select count(*) from characters where import_id is null").fetchone()[0])
    return due, total - len(due)


def draft_report(evolved: list[CharacterEvolution], forgotten: list[MemoryChange], now: datetime, *,
                 resting: int = 0) -> EvolutionReport:
    """The cycle's report, rendered, once every character has evolved (`evolved`, in character
    order, each committed on its own); `forgotten` are the memories the cycle's fading archived.
    It reads nothing: rendering it holds no lock."""
    steps = [result.step for result in evolved if result.step is not None]
    report = EvolutionReport(world_time=iso(now), characters=evolved, forgotten=forgotten, steps=steps,
                             resting=resting)
    if forgotten or any(c.changed or any(g.moved for g in c.goals) for c in evolved):
        report.report = render_report(report)
    return report


def report_cycle(world: World, draft: EvolutionReport) -> EvolutionReport:
    """Store the drafted report (inside the caller's transaction), unless nothing changed: then
    the latest stored report comes back, marked `unchanged`."""
    if not draft.report:
        stored = latest_report(world)
        if stored is not None:
            return stored.model_copy(update={"characters": draft.characters, "unchanged": True,
                                             "resting": draft.resting})
        draft.report = render_report(draft)
    cur = world.conn.execute("insert into evolution_reports (world_time, report, created_at) "
                             "values (?, ?, ?)", (draft.world_time, draft.report, draft.world_time))
    draft.id = int(cur.lastrowid or 0)
    return draft


def evolve_character(world: World, config: CuratorConfig, decider: Decider, character: str,
                     now: datetime) -> CharacterEvolution | None:
    """Drift, snapshot, drift detection and narrative for one character; None when it has no
    memories and never had a snapshot (a name others mentioned, say)."""
    rows = world.conn.execute(f"{SELECT_MEMORY} from memories where owner = ? order by seq",
                              (character,)).fetchall()
    previous = latest_snapshot(world, character)
    if not rows and previous is None:
        return None
    state = attributes.drift(world, config.evolution, character, now)
    memories = [memory_from_row(row) for row in rows]
    relations = [TrustView(other=r[0], trust=r[1], rapport=r[2], summary=r[3] or "")
                 for r in world.conn.execute(
                     "select other, trust, rapport, long_term_summary from relationships where owner = ? "
                     "order by trust desc, other", (character,))]
    avg_trust = sum(r.trust for r in relations) / len(relations) if relations else 0.5
    avg_rapport = sum(r.rapport for r in relations) / len(relations) if relations else 0.5
    failures, lessons = personality.count_kinds(memories)
    attrs = dict(state.attributes)
    traits = personality.derive_traits(attrs, avg_rapport=avg_rapport, avg_trust=avg_trust,
                                       failures=failures, lessons=lessons, start=config.evolution.start)
    defining = personality.defining_memories(memories)
    last_change = state.changes[-1].id if state.changes else (previous.through_change if previous else 0)
    snapshot = PersonalitySnapshot(
        character=character, world_time=iso(now), **traits,
        defining_memories=[DefiningMemory(id=m.id, content=m.content, kind=m.kind.value, subject=m.subject,
                                          importance=round(m.importance, 4)) for m in defining],
        attributes=attrs, avg_trust=round(avg_trust, 4), avg_rapport=round(avg_rapport, 4),
        failures=failures, lessons=lessons, through_change=last_change)
    active = [m for m in memories if m.is_active]
    vivid = sum(1 for m in active if m.tier.value == "core" or m.strength > config.evolution.vivid_above)
    last_cycle = datetime.fromisoformat(previous.world_time) if previous is not None else None
    goals = review_goals(world, character, last_cycle, memories)
    if previous is not None and not state.changes and _same(previous, snapshot):
        return CharacterEvolution(character=character, snapshot=previous, changed=False,
                                  active=len(active), vivid=vivid, relations=relations, goals=goals)
    since = previous.through_change if previous is not None else 0
    changes = attributes.changes_after(world, character, since)
    drift = personality.detect_drift(snapshot, previous, changes)
    inputs = IdentityInput(
        owner=character, persona=_persona(world, character), **traits, attributes=attrs,
        attribute_words=personality.attribute_words(attrs), defining=[MemoryView.of(m) for m in defining],
        relations=relations, drift=[f"{d.trait}: {d.old} → {d.new} ({d.reason})" for d in drift],
        previous=previous.identity_summary if previous is not None else "")
    decision, record = decider.decide(IDENTITY, inputs, character=character)
    snapshot.identity_summary, snapshot.narrative_by = decision.narrative, record.decided_by
    snapshot.id = save_snapshot(world, snapshot)
    return CharacterEvolution(character=character, snapshot=snapshot, previous=previous, drift=drift,
                              changes=changes, active=len(active), vivid=vivid, relations=relations,
                              goals=goals, step=record)


def _same(previous: PersonalitySnapshot, current: PersonalitySnapshot) -> bool:
    fields = {"defining_memories", "attributes", "avg_trust", "avg_rapport", "failures", "lessons",
              *personality.TRAITS}
    return previous.model_dump(include=fields) == current.model_dump(include=fields)


def _persona(world: World, character: str) -> str:
    row = world.character_row(character)
    return row["persona"] if row else ""


def save_snapshot(world: World, snapshot: PersonalitySnapshot) -> int:
    extra = {"failures": snapshot.failures, "lessons": snapshot.lessons}
    cur = world.conn.execute(
        f"insert into personality_snapshots ({', '.join(_SNAPSHOT_COLUMNS[1:])}) values "
        f"({', '.join('?' * (len(_SNAPSHOT_COLUMNS) - 1))})",
        (snapshot.character, snapshot.world_time, snapshot.work_style, snapshot.risk_tolerance,
         snapshot.social_orientation, snapshot.learning_style, snapshot.stress_response,
         snapshot.identity_summary, snapshot.narrative_by,
         json.dumps([d.model_dump() for d in snapshot.defining_memories]),
         json.dumps({"values": snapshot.attributes, **extra}), snapshot.avg_trust, snapshot.avg_rapport,
         snapshot.through_change))
    return int(cur.lastrowid or 0)


def _snapshot_from_row(row: tuple[Any, ...]) -> PersonalitySnapshot:
    data = dict(zip(_SNAPSHOT_COLUMNS, row, strict=True))
    attrs = json.loads(data.pop("attributes"))
    data["defining_memories"] = json.loads(data["defining_memories"])
    return PersonalitySnapshot.model_validate({**data, "attributes": attrs.get("values", {}),
                                               "failures": attrs.get("failures", 0),
                                               "lessons": attrs.get("lessons", 0)})


def latest_snapshot(world: World, character: str) -> PersonalitySnapshot | None:
    """The character's newest snapshot (one indexed read: context() calls this per prompt)."""
    row = world.conn.execute(
        f"select {', '.join(_SNAPSHOT_COLUMNS)} from personality_snapshots where character = ? "
        "order by id desc limit 1", (character,)).fetchone()
    return None if row is None else _snapshot_from_row(row)


def snapshots(world: World, character: str) -> list[PersonalitySnapshot]:
    """Every snapshot of the character, oldest first."""
    rows = world.conn.execute(
        f"select {', '.join(_SNAPSHOT_COLUMNS)} from personality_snapshots where character = ? "
        "order by id", (character,)).fetchall()
    return [_snapshot_from_row(row) for row in rows]
