"""Evolution: attributes that drift with experience, and trust and rapport in others.

This module owns the `attributes`, `attribute_changes` and `evolution_marks` tables and the
`trust` and `rapport` columns of relationships. A character's attributes (configurable,
`EvolutionConfig`) start at 0.5 and move only because of what it lived through: each
memory a turn formed or reinforced since the character's last cycle (its mark is the last
turn drawn on) pushes some attributes a little, by the rules in `effects`. Pushes shrink
near the bounds, one memory moves one attribute by at most `max_step`, one cycle by at most
`cycle_cap`, and every change is logged with the memory that caused it and why. Running a
cycle again with no new turns changes nothing.

Trust and rapport in another character also move at the turn that earns them: a memory
formed about someone applies `TURN_SHARE` of its pull at once (`at_turn`), so a betrayal
shows in trust the moment it happens; the next cycle applies the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from curator.domain.config import EvolutionConfig
from curator.domain.models import Memory, MemoryKind, Relationship, display_name, iso
from curator.evolution.personality import AttributeChange
from curator.store.rows import SELECT_MEMORY, memory_from_row
from curator.store.world import World

K = MemoryKind
_MIN_DELTA = 0.0005  # smaller moves are not worth a line in the log
# The share of a memory's pull on trust and rapport applied when the memory forms; a cycle
# applies the rest, so a turn and a cycle together move them as a cycle alone did before.
TURN_SHARE = 0.5
_CHUNK = 500  # turn ids per lookup (SQLite binds at most 32,766 parameters)


def effects(memory: Memory) -> list[tuple[str, float, str]]:
    """What one experience pushes: (attribute, weight, why). A weight of 1 is a full step."""
    about = memory.subject if memory.subject and memory.subject != memory.owner else None
    who = display_name(about) if about else ""
    v, kind = memory.valence, memory.kind
    if kind is K.FAILURE:
        return [("caution", 1.0, "failure"), ("thoroughness", 0.5, "failure"), ("speed", -0.4, "failure")]
    if kind is K.LESSON_LEARNED:
        return [("thoroughness", 0.8, "lesson learned"), ("caution", 0.6, "lesson learned"),
                ("curiosity", 0.3, "lesson learned")]
    if kind is K.PATTERN_RECOGNIZED:
        return [("thoroughness", 0.5, "pattern recognised"), ("curiosity", 0.4, "pattern recognised")]
    if kind is K.DANGER:
        pushes = [("caution", 1.0, f"danger from {who}" if who else "danger")]
        if v <= -0.6:
            pushes.append(("resilience", 0.6, "survived harm"))
        return pushes
    if kind is K.TRIUMPH:
        if about:
            return [("collaboration", 1.0, f"shared triumph with {who}"),
                    ("resilience", 0.3, f"shared triumph with {who}")]
        return [("independence", 0.7, "triumph"), ("curiosity", 0.4, "triumph"),
                ("resilience", 0.3, "triumph"), ("caution", -0.3, "triumph")]
    if kind is K.DISCOVERY:
        return [("curiosity", 1.0, "discovery"), ("creativity", 0.6, "discovery")]
    if kind is K.KINDNESS:
        return [("collaboration", 0.8, f"kindness from {who}" if who else "kindness")] if v > 0 else []
    if kind is K.BETRAYAL:
        why = f"betrayal by {who}" if who else "betrayal"
        return [("collaboration", -1.0, why), ("caution", 0.8, why), ("independence", 0.6, why)]
    if kind is K.CONFLICT:
        why = f"clash with {who}" if who else "clash"
        if v >= -0.35:  # a clash it started or shrugged off
            return [("independence", 0.4, why)]
        return [("caution", 0.4, why), ("independence", 0.3, why)]
    if kind is K.ENCOUNTER:
        return [("curiosity", 0.4, "new encounter")] + (
            [("collaboration", 0.2, "friendly encounter")] if v > 0.15 else [])
    if kind is K.RELATIONSHIP_EVENT:
        if v > 0.15:
            return [("collaboration", 0.5, f"good time with {who}" if who else "good time")]
        return [("caution", 0.3, f"bad time with {who}" if who else "bad time")] if v < -0.15 else []
    if kind is K.WITNESSED:
        if v <= -0.5:
            return [("caution", 0.4, "witnessed harm")]
        return [("collaboration", 0.2, "witnessed kindness")] if v >= 0.3 else [
            ("curiosity", 0.15, "watched")]
    if kind is K.DECISION_RECORD:
        return [("independence", 0.6, "own decision"), ("thoroughness", 0.3, "own decision")]
    if kind is K.PROCESS_NOTE:
        return [("thoroughness", 0.5, "routine")]
    if kind is K.PERSONALITY_MOMENT:
        return [("resilience", 0.6, "defining moment")]
    if kind is K.USER_PREFERENCE:
        return [("collaboration", 0.3, "learned a preference")]
    if kind is K.SYSTEM_KNOWLEDGE:
        why = "learned how things work"
        return [("curiosity", 0.4, why), ("thoroughness", 0.2, why)]
    return []


def relation_effects(memory: Memory) -> list[tuple[str, float, str]]:
    """What one memory about another character does to trust and rapport: (which, weight, why)."""
    if not memory.subject or memory.subject == memory.owner:
        return []
    v, kind = memory.valence, memory.kind
    if kind is K.BETRAYAL:
        return [("trust", -8.0, "betrayal"), ("rapport", -2.0, "betrayal")]
    if kind is K.KINDNESS and v > 0:
        return [("trust", 1.5, "kindness"), ("rapport", 0.8, "kindness")]
    if kind is K.TRIUMPH:
        return [("rapport", 1.0, "shared triumph"), ("trust", 0.5, "shared triumph")]
    if kind is K.DANGER:
        return [("trust", -2.0, "danger"), ("rapport", -1.0, "danger")]
    if kind is K.CONFLICT:
        return [("trust", -0.4, "clash"), ("rapport", -0.8, "clash")]
    if kind is K.WITNESSED:
        return [("trust", 0.4 * v, "what I saw them do")] if v < -0.15 or v > 0.3 else []
    if abs(v) > 0.15:  # encounters, shared moments and the rest: how it felt
        label = "good moment" if v > 0 else "bad moment"
        return [("rapport", 0.8 * v, label), ("trust", 0.3 * v, label)]
    return []


def at_turn(config: EvolutionConfig, rel: Relationship, memory: Memory) -> list[tuple[object, ...]]:
    """Move the owner's trust and rapport in `memory`'s subject by `TURN_SHARE` of the memory's
    pull, as it forms; `rel` is changed in place (its caller saves it). Returns the log rows
    (`log_at_turn` writes them, a turn's together)."""
    rows: list[tuple[object, ...]] = []
    for name, weight, why in relation_effects(memory):
        value = rel.trust if name == "trust" else rel.rapport
        raw = _pull(weight, config.relation_step, config.relation_step * 8, memory)
        after = round(max(0.0, min(1.0, value + dampen(value, raw * TURN_SHARE, config.start, 0.0, 1.0))), 4)
        delta = round(after - value, 4)
        if abs(delta) < _MIN_DELTA:
            continue
        if name == "trust":
            rel.trust = after
        else:
            rel.rapport = after
        label = f"{name} in {display_name(rel.other)}"
        rows.append((rel.owner, name, rel.other, delta, after, memory.id,
                     f"{label} {delta:+.3f}: {quote(memory.content, 48)} ({why}, at the turn)",
                     iso(memory.created_at)))
    return rows


def log_at_turn(world: World, rows: list[tuple[object, ...]]) -> None:
    """Write the trust and rapport moves of a turn (`at_turn`) to the change log."""
    if rows:
        world.conn.executemany(
            "insert into attribute_changes (character, attribute, other, delta, value_after, memory_id, "
            "reason, world_time) values (?, ?, ?, ?, ?, ?, ?, ?)", rows)


def _pull(weight: float, step: float, limit: float, memory: Memory) -> float:
    """How far one memory pushes a value before the bounds damp it: its weight in steps, more
    for an important memory, at most `limit` either way."""
    return max(-limit, min(limit, weight * step * (0.5 + memory.importance / 2)))


def dampen(value: float, push: float, start: float, low: float, high: float) -> float:
    """Diminishing returns: past `start`, a push toward a bound shrinks with the room left."""
    if push > 0 and value > start:
        room = (high - value) / max(high - start, 1e-9)
    elif push < 0 and value < start:
        room = (value - low) / max(start - low, 1e-9)
    else:
        room = 1.0
    return push * max(0.0, min(1.0, room))


def quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[:limit - 1].rstrip() + '…'}'"


@dataclass
class Drifting:
    """One character's values during a cycle, with the per-cycle budget each has left."""

    config: EvolutionConfig
    character: str
    world_time: str
    attributes: dict[str, float]
    trust: dict[str, tuple[float, float]]  # other → (trust, rapport)
    changes: list[AttributeChange] = field(default_factory=list)
    _origin: dict[tuple[str, str | None], float] = field(default_factory=dict)  # value at cycle start

    def push(self, name: str, other: str | None, weight: float, memory: Memory, why: str) -> None:
        cfg = self.config
        relational = other is not None
        if relational:
            assert other is not None
            trust, rapport = self.trust[other]
            value = trust if name == "trust" else rapport
            step, cap, low, high = cfg.relation_step, cfg.relation_cycle_cap, 0.0, 1.0
            limit = step * 8  # a betrayal moves trust by up to eight steps
        else:
            value = self.attributes[name]
            step, cap, low, high = cfg.max_step, cfg.cycle_cap, cfg.low, cfg.high
            limit = step
        raw = _pull(weight, step, limit, memory)
        origin = self._origin.setdefault((name, other), value)
        delta = dampen(value, raw, cfg.start, low, high)
        # The cycle cap bounds how far a value ends from where the cycle found it.
        after = max(origin - cap, min(origin + cap, value + delta))
        after = round(max(low, min(high, after)), 4)
        delta = round(after - value, 4)
        if abs(delta) < _MIN_DELTA:
            return
        if relational:
            assert other is not None
            self.trust[other] = (after, rapport) if name == "trust" else (trust, after)
            label = f"{name} in {display_name(other)}"
        else:
            self.attributes[name] = after
            label = name
        self.changes.append(AttributeChange(
            character=self.character, attribute=name, other=other, delta=delta, value_after=after,
            memory_id=memory.id, reason=f"{label} {delta:+.3f}: {quote(memory.content)} ({why})",
            world_time=self.world_time))


def drift(world: World, config: EvolutionConfig, character: str, now: datetime) -> Drifting:
    """Apply every experience since the character's mark to its attributes, trust and rapport,
    write them and their change log, and move the mark (inside the caller's transaction)."""
    state = Drifting(config, character, iso(now), load_attributes(world, config, character),
                     load_trust(world, character))
    through, _ = mark(world, character)
    last = through
    for turn_seq, memory in experiences(world, character, through, now):
        last = max(last, turn_seq)
        for name, weight, why in effects(memory):
            if name in state.attributes:
                state.push(name, None, weight, memory, why)
        if memory.subject in state.trust:
            for name, weight, why in relation_effects(memory):
                state.push(name, memory.subject, weight * (1 - TURN_SHARE), memory, why)
    save(world, state, now)
    last = max(last, _last_turn_seq(world, now))
    world.conn.execute(
        "insert into evolution_marks (character, through_seq, world_time) values (?, ?, ?) "
        "on conflict(character) do update set through_seq = excluded.through_seq, "
        "world_time = excluded.world_time", (character, last, iso(now)))
    return state


def experiences(world: World, character: str, after_seq: int, now: datetime
                ) -> Iterator[tuple[int, Memory]]:
    """(turn seq, memory) for each turn after `after_seq` (up to `now`) that formed or
    reinforced one of the character's memories, live or archived, in turn order: a failure
    repeated three times (one memory, reinforced twice) counts three times."""
    # The character's own memories first, then only the turns they name (by id): reading
    # every turn after the mark costs the whole turn log per character on a large world.
    memories: list[tuple[int, Memory]] = []
    for table in ("memories", "memory_archive"):
        for row in world.conn.execute(f"{SELECT_MEMORY} from {table} where owner = ?", (character,)):
            memories.append((row[1], memory_from_row(row)))
    named = sorted({turn_id for _seq, memory in memories for turn_id in memory.source_turns})
    turns: dict[str, int] = {}
    for start in range(0, len(named), _CHUNK):
        chunk = named[start:start + _CHUNK]
        turns.update((row[0], row[1]) for row in world.conn.execute(
            f"select id, seq from turns where id in ({', '.join('?' * len(chunk))}) "
            "and seq > ? and world_time <= ?", (*chunk, after_seq, iso(now))))
    found: list[tuple[int, int, Memory]] = []
    for seq, memory in memories:
        for turn_id in memory.source_turns:
            if turn_id in turns:
                found.append((turns[turn_id], seq, memory))
    for turn_seq, _seq, memory in sorted(found, key=lambda f: (f[0], f[1])):
        yield turn_seq, memory


def _last_turn_seq(world: World, now: datetime) -> int:
    clock = world.clock()
    if clock is not None and now >= clock:
        # No turn is later than the world clock: the last one logged (an indexed read; the
        # filter below reads the whole turn log).
        return int(world.conn.execute("select coalesce(max(seq), 0) from turns").fetchone()[0])
    row = world.conn.execute("select coalesce(max(seq), 0) from turns where world_time <= ?",
                             (iso(now),)).fetchone()
    return int(row[0])


def mark(world: World, character: str) -> tuple[int, str | None]:
    """(the last turn seq the character's cycles drew on, the world time of its last cycle)."""
    row = world.conn.execute("select through_seq, world_time from evolution_marks where character = ?",
                             (character,)).fetchone()
    return (0, None) if row is None else (int(row[0]), str(row[1]))


def stored_attributes(world: World, character: str) -> dict[str, float]:
    """The attributes a cycle has set for the character (none before its first cycle)."""
    return {str(name): float(value) for name, value in world.conn.execute(
        "select name, value from attributes where character = ?", (character,))}


def load_attributes(world: World, config: EvolutionConfig, character: str) -> dict[str, float]:
    """The configured attributes of a character; one never moved reads as `config.start`."""
    stored = stored_attributes(world, character)
    return {name: float(stored.get(name, config.start)) for name in config.attributes}


def load_trust(world: World, character: str) -> dict[str, tuple[float, float]]:
    return {row[0]: (float(row[1]), float(row[2])) for row in world.conn.execute(
        "select other, trust, rapport from relationships where owner = ? order by other", (character,))}


def save(world: World, state: Drifting, now: datetime) -> None:
    for name, value in state.attributes.items():
        world.conn.execute(
            "insert into attributes (character, name, value, updated_at) values (?, ?, ?, ?) "
            "on conflict(character, name) do update set value = excluded.value, "
            "updated_at = excluded.updated_at", (state.character, name, value, iso(now)))
    for other, (trust, rapport) in state.trust.items():
        world.conn.execute("update relationships set trust = ?, rapport = ? where owner = ? and other = ?",
                           (trust, rapport, state.character, other))
    for change in state.changes:
        cur = world.conn.execute(
            "insert into attribute_changes (character, attribute, other, delta, value_after, memory_id, "
            "reason, world_time) values (?, ?, ?, ?, ?, ?, ?, ?)",
            (change.character, change.attribute, change.other, change.delta, change.value_after,
             change.memory_id, change.reason, change.world_time))
        change.id = int(cur.lastrowid or 0)


def changes_after(world: World, character: str, after_id: int) -> list[AttributeChange]:
    """The character's logged changes with ids after `after_id`, oldest first."""
    rows = world.conn.execute(
        "select id, character, attribute, other, delta, value_after, memory_id, reason, world_time "
        "from attribute_changes where character = ? and id > ? order by id", (character, after_id))
    keys = ("id", "character", "attribute", "other", "delta", "value_after", "memory_id", "reason",
            "world_time")
    return [AttributeChange.model_validate(dict(zip(keys, row, strict=True))) for row in rows]
