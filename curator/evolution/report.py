"""Evolution reports (the evolution system's weekly report): what one cycle found, as Markdown for people.

This module owns the `evolution_reports` table and the report's shape. Per character: the
personality line, the identity narrative, each drift with its reason, the attribute changes
with the memories that caused them, the active memories (how many vivid), the defining
experiences and the goals (progress, how far it moved, the new memories that bear on it);
then trust and rapport between characters.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from curator.domain.models import display_name
from curator.domain.results import MemoryChange, StepRecord
from curator.evolution.goals import GoalReview, progress_bar
from curator.evolution.identity import TrustView
from curator.evolution.personality import AttributeChange, Drift, PersonalitySnapshot
from curator.store.world import World

CHANGES_SHOWN = 4  # per attribute; the rest are counted
# Characters with a section in a report: a cycle over a world of 10,000 characters wrote a
# report of some 30 MB, for people to read, in the write transaction (issue #17).
SECTIONS_SHOWN = 200
_BY = {"model": "a model", "fallback": "the fallback"}


class CharacterEvolution(BaseModel):
    """One character in one cycle: its snapshot, what drifted and why, what changed it."""

    character: str
    snapshot: PersonalitySnapshot
    previous: PersonalitySnapshot | None = None
    changed: bool = True  # False: nothing new since its last snapshot, which is repeated here
    drift: list[Drift] = Field(default_factory=list)
    changes: list[AttributeChange] = Field(default_factory=list)  # since the previous snapshot
    active: int = 0
    vivid: int = 0
    relations: list[TrustView] = Field(default_factory=list)
    goals: list[GoalReview] = Field(default_factory=list)
    step: StepRecord | None = None  # how the identity narrative was written


class EvolutionReport(BaseModel):
    """What `Curator.evolve` returns: the stored Markdown report and the parts it was made of."""

    id: int = 0
    world_time: str
    report: str = ""
    characters: list[CharacterEvolution] = Field(default_factory=list)
    forgotten: list[MemoryChange] = Field(default_factory=list)  # faded to nothing this cycle
    steps: list[StepRecord] = Field(default_factory=list)
    unchanged: bool = False  # True: nothing changed, the latest stored report is returned
    resting: int = 0  # characters not evolved: nothing new since their last cycle (cycle.py)


def render_report(report: EvolutionReport) -> str:
    """The Markdown report of one cycle: a section for each of the `SECTIONS_SHOWN` characters
    that changed most (in id order), and a count of the rest, which `report.characters` holds."""
    lines = ["# Evolution report", "", f"*World time {report.world_time}*", ""]
    if report.forgotten:
        lines += [f"{len(report.forgotten)} faded memories were moved to the archive.", ""]
    if report.resting:
        lines += [f"{report.resting} other characters lived nothing new since their last cycle.", ""]
    shown = _most_changed(report.characters, SECTIONS_SHOWN)
    for evo in shown:
        lines += _character_section(evo)
    if len(shown) < len(report.characters):
        lines += [f"*{len(report.characters) - len(shown)} more characters evolved less; each one's "
                  "snapshot is in its `curator evolution` history.*", ""]
    pairs = [(evo.character, rel) for evo in shown for rel in evo.relations]
    if pairs:
        lines += ["## Relationships", ""]
        for owner, rel in sorted(pairs, key=lambda p: (p[0], p[1].other)):
            moved = _relation_moves(report, owner, rel.other)
            lines.append(f"- {display_name(owner)} → {display_name(rel.other)}: trust {rel.trust:.0%}, "
                         f"rapport {rel.rapport:.0%}{moved}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _most_changed(evolved: list[CharacterEvolution], limit: int) -> list[CharacterEvolution]:
    """The `limit` characters with the most drift, attribute changes and goal moves, in id order."""
    if len(evolved) <= limit:
        return evolved
    ranked = sorted(evolved, key=lambda e: (-(len(e.drift) + len(e.changes) + int(e.changed)
                                              + sum(1 for g in e.goals if g.moved)), e.character))
    return sorted(ranked[:limit], key=lambda e: e.character)


def _character_section(evo: CharacterEvolution) -> list[str]:
    snap = evo.snapshot
    lines = [f"## {display_name(evo.character)}", "",
             f"**Personality:** {snap.work_style} / {snap.risk_tolerance} / {snap.social_orientation} "
             f"(learns {snap.learning_style.replace('_', ' ')}; under stress "
             f"{snap.stress_response.replace('_', ' ')})",
             "", f"**Identity** (written by {_BY[snap.narrative_by]}): {snap.identity_summary}", ""]
    if not evo.changed:
        lines += ["*No new experience since the last cycle.*", ""]
    for drift in evo.drift:
        lines.append(f"- **Drift:** {drift.trait}: {drift.old} → {drift.new} ({drift.reason})")
    if evo.drift:
        lines.append("")
    own = [c for c in evo.changes if c.other is None]
    if own:
        lines += ["**Attribute changes:**", ""]
        before = evo.previous.attributes if evo.previous is not None else {}
        for name in dict.fromkeys(c.attribute for c in own):
            mine = [c for c in own if c.attribute == name]
            start = before.get(name, round(mine[0].value_after - mine[0].delta, 4))
            end = evo.snapshot.attributes.get(name, mine[-1].value_after)
            # A memory reinforced several times pushes once per time: one line per memory.
            by_memory: dict[str, list[AttributeChange]] = {}
            for change in mine:
                by_memory.setdefault(change.memory_id, []).append(change)
            pushes = f", {len(mine)} pushes" if len(mine) > len(by_memory) else ""
            lines.append(f"- {name} {start:.2f} → {end:.2f} ({end - start:+.2f}, {len(by_memory)} "
                         f"memor{'y' if len(by_memory) == 1 else 'ies'}{pushes})")
            ranked = sorted(by_memory.values(), key=lambda cs: -abs(sum(c.delta for c in cs)))
            for group in ranked[:CHANGES_SHOWN]:
                total, why = sum(c.delta for c in group), group[0].reason.split(": ", 1)[-1]
                times = f", {len(group)} times" if len(group) > 1 else ""
                lines.append(f"  - {name} {total:+.3f}{times}: {why} [memory {group[0].memory_id}]")
            if len(ranked) > CHANGES_SHOWN:
                lines.append(f"  - … and {len(ranked) - CHANGES_SHOWN} more memor"
                             f"{'y' if len(ranked) - CHANGES_SHOWN == 1 else 'ies'}")
        lines.append("")
    lines += [f"**Active memories:** {evo.active} ({evo.vivid} vivid)", ""]
    if snap.defining_memories:
        lines.append("**Defining experiences:**")
        lines += [f"- {m.content}" for m in snap.defining_memories]
        lines.append("")
    return lines + _goal_lines(evo.goals)


def _goal_lines(goals: list[GoalReview]) -> list[str]:
    lines = []
    for goal in goals:
        since = "new" if goal.before is None else f"{goal.progress - goal.before:+.0%}"
        status = "" if goal.status == "active" else f", {goal.status}"
        lines.append(f"**Goal:** {goal.description} {progress_bar(goal.progress)} {goal.progress:.0%} "
                     f"({since}{status})")
        lines += [f"  - bears on it: {text}" for text in goal.evidence]
    return [*lines, ""] if lines else []


def _relation_moves(report: EvolutionReport, owner: str, other: str) -> str:
    evo = next(e for e in report.characters if e.character == owner)
    moves = []
    for which in ("trust", "rapport"):
        total = sum(c.delta for c in evo.changes if c.other == other and c.attribute == which)
        if abs(total) >= 0.005:
            moves.append(f"{which} {total:+.2f}")
    return f" ({', '.join(moves)} since the last snapshot)" if moves else ""


class StoredReport(BaseModel):
    id: int
    world_time: str
    report: str
    created_at: str


def reports(world: World, *, latest: bool = False) -> list[StoredReport]:
    """Stored reports, oldest first (only the newest with `latest`)."""
    sql = "select id, world_time, report, created_at from evolution_reports order by id"
    if latest:
        sql = sql.replace("order by id", "order by id desc limit 1")
    return [StoredReport(id=r[0], world_time=r[1], report=r[2], created_at=r[3])
            for r in world.conn.execute(sql)]


def latest_report(world: World) -> EvolutionReport | None:
    found = reports(world, latest=True)
    if not found:
        return None
    return EvolutionReport(id=found[0].id, world_time=found[0].world_time, report=found[0].report)
