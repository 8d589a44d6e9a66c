"""Goals (the evolution system's ninth layer): what a character is working toward, set by the game.

This module owns the `goals` and `goal_history` tables. A goal belongs to one character and
has a label (a lower-case word, like a block's), a description, a progress from 0 to 1, a
priority (higher first) and a status: active, done (progress reached 1, or `complete`) or
abandoned. Progress is the game's fact, never guessed: curator only keeps it, logs each
change with the world time and an optional note, shows the active goals in the context
(`goals` layer) and, in an evolution cycle's report, how far each moved since the last
cycle and which new memories bear on it (`review_goals`).
"""

from __future__ import annotations

import builtins
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from curator.domain.errors import InvalidInput, UnknownGoal
from curator.domain.lexicon import content_words
from curator.domain.models import Memory, iso, normalize_label
from curator.store.world import World

MAX_DESCRIPTION = 500
MAX_NOTE = 500
Status = Literal["active", "done", "abandoned"]
_COLUMNS = "character, label, description, progress, priority, active, set_at, updated_at, done_at"


class Goal(BaseModel):
    """One goal as the game set it and curator keeps it."""

    character: str
    label: str
    description: str = Field(min_length=1, max_length=MAX_DESCRIPTION)
    progress: float = Field(ge=0.0, le=1.0)
    priority: int = 0
    status: Status = "active"
    set_at: datetime
    updated_at: datetime
    done_at: datetime | None = None


class GoalStep(BaseModel):
    """One logged change of a goal: its progress after it, the note and when."""

    progress: float = Field(ge=0.0, le=1.0)
    note: str = Field(default="", max_length=MAX_NOTE)
    world_time: datetime


class Goals:
    """The goals of one world: `Curator(...).goals`, or `Goals(world)` on an open `World`."""

    def __init__(self, world: World):
        self.world = world

    def list(self, character: str, *, include_closed: bool = False) -> builtins.list[Goal]:
        """A character's goals, active ones first by priority, then the most recently changed."""
        who = self.world.known_character(character)
        where = "" if include_closed else " and active = 1"
        rows = self.world.conn.execute(
            f"select {_COLUMNS} from goals where character = ?{where} "
            "order by active desc, priority desc, updated_at desc, label", (who,)).fetchall()
        return [_goal(row) for row in rows]

    def get(self, character: str, label: str) -> Goal:
        who = self.world.known_character(character)
        return self._get(who, _label(label))

    def history(self, character: str, label: str) -> builtins.list[GoalStep]:
        """Every logged change of one goal, oldest first."""
        goal = self.get(character, label)
        rows = self.world.conn.execute(
            "select progress, note, world_time from goal_history where character = ? and label = ? "
            "order by id", (goal.character, goal.label)).fetchall()
        return [GoalStep(progress=r[0], note=r[1], world_time=r[2]) for r in rows]

    def set(self, character: str, label: str, description: str | None = None, *,
            progress: float | None = None, priority: int | None = None, note: str = "") -> Goal:
        """Create a goal (a description is needed) or change what is given of an existing one.
        Progress 1 marks it done; setting progress below 1 on a closed goal reopens it."""
        key = _label(label)
        if description is not None and not 1 <= len(description.strip()) <= MAX_DESCRIPTION:
            raise InvalidInput(f"a goal's description is 1-{MAX_DESCRIPTION} characters", field="description")
        if progress is not None and (isinstance(progress, bool) or not 0.0 <= float(progress) <= 1.0):
            raise InvalidInput(f"progress is 0..1, got {progress!r}", field="progress")
        if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
            raise InvalidInput(f"priority is a whole number, got {priority!r}", field="priority")
        _check_note(note)
        with self.world.transaction() as world:
            who = world.known_character(character)
            now = iso(world.now())
            old = _find(world, who, key)
            if old is None:
                if description is None:
                    raise UnknownGoal(who, key, known=[g.label for g in self.list(who, include_closed=True)])
                start = 0.0 if progress is None else float(progress)
                world.conn.execute(
                    f"insert into goals ({_COLUMNS}) values (?, ?, ?, ?, ?, 1, ?, ?, null)",
                    (who, key, description.strip(), start, priority or 0, now, now))
                _log(world, who, key, start, note or "set", now)
                if start >= 1.0:
                    _close(world, who, key, now, done=True)
            else:
                world.conn.execute(
                    "update goals set description = ?, priority = ?, updated_at = ? "
                    "where character = ? and label = ?",
                    (description.strip() if description is not None else old.description,
                     old.priority if priority is None else priority, now, who, key))
                if progress is not None and float(progress) != old.progress:
                    world.conn.execute(
                        "update goals set progress = ?, active = 1, done_at = null "
                        "where character = ? and label = ?", (float(progress), who, key))
                    _log(world, who, key, float(progress), note, now)
                    if float(progress) >= 1.0:
                        _close(world, who, key, now, done=True)
        return self._get(who, key)

    def advance(self, character: str, label: str, by: float, *, note: str = "") -> Goal:
        """Move a goal's progress by `by` (negative for a setback), kept within 0..1."""
        if isinstance(by, bool) or not -1.0 <= float(by) <= 1.0:
            raise InvalidInput(f"by is -1..1, got {by!r}", field="by")
        goal = self.get(character, label)
        return self.set(goal.character, goal.label, progress=round(min(1.0, max(0.0, goal.progress + by)), 4),
                        note=note)

    def complete(self, character: str, label: str, *, note: str = "") -> Goal:
        """Mark a goal done (progress 1)."""
        return self.set(character, label, progress=1.0, note=note or "done")

    def abandon(self, character: str, label: str, *, note: str = "") -> Goal:
        """Close a goal without reaching it; its progress stays as it was."""
        _check_note(note)
        with self.world.transaction() as world:
            who, key = world.known_character(character), _label(label)
            goal = self._get(who, key)
            now = iso(world.now())
            _log(world, who, key, goal.progress, note or "abandoned", now)
            _close(world, who, key, now, done=False)
        return self._get(who, key)

    def delete(self, character: str, label: str) -> None:
        """Forget a goal and its history."""
        with self.world.transaction() as world:
            who, key = world.known_character(character), _label(label)
            self._get(who, key)
            for table in ("goals", "goal_history"):
                world.conn.execute(f"delete from {table} where character = ? and label = ?", (who, key))

    def _get(self, who: str, key: str) -> Goal:
        goal = _find(self.world, who, key)
        if goal is None:
            raise UnknownGoal(who, key, known=[g.label for g in self.list(who, include_closed=True)])
        return goal


def export_goals(world: World, character: str) -> builtins.list[dict[str, Any]]:
    """A character's goals with their history, as plain JSON values (export documents)."""
    goals = Goals(world)
    return [goal.model_dump(mode="json", exclude={"character"})
            | {"history": [s.model_dump(mode="json") for s in goals.history(character, goal.label)]}
            for goal in goals.list(character, include_closed=True)]


def import_goal(world: World, character: str, doc: Any) -> None:
    """Write one goal of an export document, with its history (inside the caller's
    transaction, after the character's goals were cleared); a malformed one raises."""
    goal = Goal.model_validate({**doc, "character": character})
    history = [GoalStep.model_validate(step) for step in doc.get("history", [])]
    key = _label(goal.label)
    world.conn.execute(
        f"insert into goals ({_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (character, key, goal.description, goal.progress, goal.priority, int(goal.status == "active"),
         iso(goal.set_at), iso(goal.updated_at), iso(goal.done_at) if goal.done_at else None))
    for step in history:
        _log(world, character, key, step.progress, step.note, iso(step.world_time))


class GoalReview(BaseModel):
    """One goal in an evolution cycle (the evolution system's goal progress review): where it stands, where
    it stood at the previous cycle, and the new memories that bear on it."""

    label: str
    description: str
    progress: float
    before: float | None = None  # None: set since the previous cycle
    status: Status = "active"
    evidence: builtins.list[str] = Field(default_factory=builtins.list)  # memory contents

    @property
    def moved(self) -> bool:
        return self.before is None or abs(self.progress - self.before) >= 0.005


def review_goals(world: World, character: str, since: datetime | None, memories: builtins.list[Memory],
                 *, evidence: int = 2) -> builtins.list[GoalReview]:
    """The character's goals that are active or changed since its last review, each with its
    progress then and now and up to `evidence` memories formed after `since` (the last cycle)
    that share its words (two of them, or every one for a goal of one or two words). Marks the
    goal log as reviewed (the `through_goal` column of `evolution_marks`, which the cycle has
    already written for this character); call inside the cycle's transaction."""
    row = world.conn.execute("select through_goal from evolution_marks where character = ?",
                             (character,)).fetchone()
    mark = int(row[0]) if row else 0
    then: dict[str, float] = {}
    touched: set[str] = set()
    for label, progress, history_id in world.conn.execute(
            "select label, progress, id from goal_history where character = ? order by id", (character,)):
        if history_id <= mark:
            then[label] = progress  # the last row per label at the mark wins
        else:
            touched.add(label)
    fresh = [m for m in memories if since is None or m.created_at > since]
    out = []
    for goal in Goals(world).list(character, include_closed=True):
        if goal.status != "active" and goal.label not in touched:
            continue
        wanted = _stems(goal.description)
        need = min(2, len(wanted))
        scored = sorted(((len(wanted & _stems(m.content)), -m.created_at.timestamp(), m.content)
                         for m in fresh), reverse=True)
        out.append(GoalReview(label=goal.label, description=goal.description, progress=goal.progress,
                              before=then.get(goal.label), status=goal.status,
                              evidence=[text for hits, _, text in scored[:evidence]
                                        if need and hits >= need]))
    world.conn.execute("update evolution_marks set through_goal = (select coalesce(max(id), 0) from "
                       "goal_history) where character = ?", (character,))
    return out


def _stems(text: str) -> set[str]:
    # A crude stem (the first five letters) so "beehive" finds "beehives" and "fishing" "fished".
    return {w[:5] for w in content_words(text)}


def progress_bar(progress: float, width: int = 10) -> str:
    """The evolution system's bar: 0.3 → '███░░░░░░░'."""
    filled = int(round(progress * width, 6))
    return "█" * filled + "░" * (width - filled)


def _find(world: World, who: str, key: str) -> Goal | None:
    row = world.conn.execute(f"select {_COLUMNS} from goals where character = ? and label = ?",
                             (who, key)).fetchone()
    return None if row is None else _goal(row)


def _goal(row: Any) -> Goal:
    character, label, description, progress, priority, active, set_at, updated_at, done_at = row
    status: Status = "active" if active else "done" if done_at else "abandoned"
    return Goal(character=character, label=label, description=description, progress=progress,
                priority=priority, status=status, set_at=set_at, updated_at=updated_at, done_at=done_at)


def _log(world: World, who: str, key: str, progress: float, note: str, when: str) -> None:
    world.conn.execute("insert into goal_history (character, label, progress, note, world_time) "
                       "values (?, ?, ?, ?, ?)", (who, key, progress, note, when))


def _close(world: World, who: str, key: str, when: str, *, done: bool) -> None:
    world.conn.execute("update goals set active = 0, done_at = ?, updated_at = ? where character = ? "
                       "and label = ?", (when if done else None, when, who, key))


def _check_note(note: str) -> None:
    if len(note) > MAX_NOTE:
        raise InvalidInput(f"a note is at most {MAX_NOTE} characters", field="note")


def _label(label: str) -> str:
    try:
        return normalize_label(label)
    except ValueError as error:
        raise InvalidInput(str(error), field="label") from error
