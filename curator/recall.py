"""Recall: which memories a character brings to mind for a situation, and why.

Candidates come from the full-text index over the character's live and archived memories
(FTS5, bm25), their neighbours (the memories formed just before and after, in the same
episode of game time), the core and recent memories about the characters present and about
the self, and the newest memories. Each candidate gets a score from normalised parts
(relevance, recency, strength, importance, core, present) weighted by `RecallWeights`:

- relevance: bm25 of the memory's words against the situation's, raised by what a memory
  system knows beyond the words: a neighbour that matches (a question and the answer that
  followed), an episode that matches as a whole, the character the situation names first,
  a date it names, and the kind of answer it wants (a time for "when").
- recency: halves every `recency_half_life_hours` of game time since last recalled.
- strength: faded strength at the world clock (fading.py); core memories do not fade.

`refresh` is the other half of seed 000's recall: what was used gets stronger.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from curator.config import RecallConfig, RecallWeights
from curator.fading import faded_strength, faded_value, refresh
from curator.index import Facts, facts_by_seq, memories_by_seq, neighbour_seqs, search_memories
from curator.models import Memory, Tier, iso
from curator.query import DURATION_WORDS, NUMBER_WORDS, TIME_WORDS, Query
from curator.store import World

# Relevance beyond the words; measured on LoCoMo (curator eval locomo), see the README.
NEIGHBOUR_WEIGHT = 0.7  # a neighbour's match lends this much to a memory
NEIGHBOUR_SPAN = 2  # memories each side that count as neighbours
NEIGHBOUR_SEEDS = 30  # the best matches whose neighbours are fetched
EPISODE_WEIGHT = 0.5  # the best match in the memory's episode lends this much
NAMED_WEIGHT = 0.3  # the memory is about the character the situation names first
DATE_WEIGHT = 0.5  # the memory was formed within a day of a date the situation names
CUE_WEIGHT = 0.5  # "when"/"how long"/"how many" and the memory holds a time/duration/number


@dataclass
class ScoreParts:
    """A memory's score, part by part (each 0..1) and the weighted total."""

    relevance: float = 0.0
    recency: float = 0.0
    strength: float = 0.0
    importance: float = 0.0
    core: float = 0.0
    present: float = 0.0
    total: float = 0.0
    matched: float = 0.0  # the memory's own bm25 share of relevance, before neighbours


@dataclass
class Recalled:
    """One memory brought to mind, with its score and what it came from."""

    seq: int
    memory: Memory
    parts: ScoreParts
    sources: list[str] = field(default_factory=list)  # "match", "neighbour", "core", "recent"…

    @property
    def score(self) -> float:
        return self.parts.total


def lexical_relevance(world: World, owner: str, query: Query, config: RecallConfig, wanted_count: int
                      ) -> tuple[dict[int, float], dict[int, Facts], set[int]]:
    """Relevance (0..1) by seq for the owner's memories that match or neighbour a match,
    their facts, and the seqs that matched the words themselves."""
    match = query.fts()
    if match is None:
        return {}, {}, set()
    hits = search_memories(world, owner, match, min(config.candidates, max(50, 4 * wanted_count)))
    if not hits:
        return {}, {}, set()
    top = max(score for _, score in hits)
    base = {seq: score / top for seq, score in hits}
    seeds = [seq for seq, _ in hits[:min(NEIGHBOUR_SEEDS, wanted_count)]]
    links = {seq: neighbour_seqs(world, owner, seq, NEIGHBOUR_SPAN) for seq in seeds}
    facts = facts_by_seq(world, sorted(set(base) | {n for ns in links.values() for n in ns}))
    gap = config.episode_gap_minutes * 60
    for seq, fact in facts.items():
        base[seq] = base.get(seq, 0.0) * (1.0 + _cue(query, fact.content))
        if query.dates and any(abs((fact.created_at.date() - d).days) <= 1 for d in query.dates):
            base[seq] += DATE_WEIGHT
    neighbour: dict[int, float] = defaultdict(float)
    for seq, others in links.items():
        for other in others:
            if other in facts and seq in facts and abs(
                    (facts[other].created_at - facts[seq].created_at).total_seconds()) <= gap:
                neighbour[other] = max(neighbour[other], base.get(seq, 0.0))
                neighbour[seq] = max(neighbour[seq], base.get(other, 0.0))
    episodes = _episodes(facts, gap)
    best_in_episode: dict[int, float] = defaultdict(float)
    for seq, episode in episodes.items():
        best_in_episode[episode] = max(best_in_episode[episode], base.get(seq, 0.0))
    top_episode = max(best_in_episode.values(), default=0.0) or 1.0
    named = query.names[0] if query.names else None
    raw = {seq: base.get(seq, 0.0) + NEIGHBOUR_WEIGHT * neighbour[seq]
           + EPISODE_WEIGHT * best_in_episode[episodes[seq]] / top_episode
           + (NAMED_WEIGHT if named is not None and fact.subject == named else 0.0)
           for seq, fact in facts.items()}
    top_raw = max(raw.values(), default=0.0) or 1.0
    return {seq: value / top_raw for seq, value in raw.items()}, facts, {s for s, _ in hits}


def _cue(query: Query, content: str) -> float:
    """How well a memory holds the kind of answer the question wants."""
    if query.wants_time and TIME_WORDS.search(content):
        return CUE_WEIGHT
    if query.wants_duration and DURATION_WORDS.search(content):
        return CUE_WEIGHT
    if query.wants_number and NUMBER_WORDS.search(content):
        return CUE_WEIGHT
    return 0.0


def _episodes(facts: dict[int, Facts], gap_seconds: float) -> dict[int, int]:
    """Episode number by seq: memories in game-time order, a new episode after a long gap."""
    episode, last, out = 0, None, {}
    for seq, fact in sorted(facts.items(), key=lambda kv: (kv[1].created_at, kv[0])):
        if last is not None and (fact.created_at - last).total_seconds() > gap_seconds:
            episode += 1
        out[seq], last = episode, fact.created_at
    return out


def rank(world: World, owner: str, query: Query, *, config: RecallConfig, weights: RecallWeights,
         present: list[str], now: datetime | None, limit: int, extra: dict[int, str] | None = None,
         depth: int | None = None) -> list[Recalled]:
    """The owner's memories best suited to `query`, best first, at most `limit`.

    `extra` adds candidates by seq that need not match (the scene's core and recent
    memories), each with the reason it is one. `depth`: how many matching memories the
    caller wants at most (default `limit`), which bounds the search."""
    relevance, facts, matched = lexical_relevance(world, owner, query, config, depth or limit)
    sources: dict[int, list[str]] = {seq: ["match" if seq in matched else "neighbour"] for seq in facts}
    missing = [seq for seq in (extra or {}) if seq not in facts]
    facts.update(facts_by_seq(world, missing))
    for seq, why in (extra or {}).items():
        sources.setdefault(seq, []).append(why)
    half_life = config.recency_half_life_hours * 3600
    scored: list[tuple[int, ScoreParts]] = []
    faded: dict[int, float] = {}
    for seq, f in facts.items():
        strength = f.strength
        if now is not None and f.tier is Tier.RECENT:
            strength = faded[seq] = faded_value(f.kind, f.importance, f.recall_count, f.tier, f.strength,
                                                f.strength_at, now)
        age = max(0.0, (now - f.last_recalled).total_seconds()) if now is not None else 0.0
        parts = ScoreParts(
            relevance=round(relevance.get(seq, 0.0), 4), recency=round(0.5 ** (age / half_life), 4),
            strength=round(1.0 if f.tier is Tier.CORE else strength, 4), importance=f.importance,
            core=1.0 if f.tier is Tier.CORE else 0.0,
            present=1.0 if f.subject is not None and f.subject in present else 0.0,
            matched=1.0 if seq in matched else 0.0)
        parts.total = round(weights.relevance * parts.relevance + weights.recency * parts.recency
                            + weights.strength * parts.strength + weights.importance * parts.importance
                            + weights.core * parts.core + weights.present * parts.present, 4)
        scored.append((seq, parts))
    scored.sort(key=lambda sp: (-sp[1].total, -sp[0]))
    scored = scored[:limit]
    memories = memories_by_seq(world, [seq for seq, _ in scored])
    out = []
    for seq, parts in scored:
        memory = memories[seq]
        if seq in faded and now is not None:  # its strength as of the world clock
            memory.strength, memory.strength_at = faded[seq], now
        out.append(Recalled(seq=seq, memory=memory, parts=parts, sources=sources.get(seq, [])))
    return out


def refresh_recalled(world: World, recalled: list[Memory], now: datetime) -> None:
    """Seed 000's recall refresh for each memory used: strength +0.15 (from its faded
    strength), recall count +1, last recalled now; archived memories are refreshed where
    they lie. Only those four columns are written, none indexed. Call inside a transaction."""
    rows: dict[str, list[tuple[float, str, int, str, str]]] = {"memories": [], "memory_archive": []}
    for memory in recalled:
        if memory.tier is Tier.RECENT:
            memory.strength = faded_strength(memory, memory.strength_at or memory.created_at, now)
        refresh(memory, now)
        memory.strength_at = now
        table = "memory_archive" if memory.tier is Tier.ARCHIVED else "memories"
        rows[table].append((memory.strength, iso(now), memory.recall_count, iso(now), memory.id))
    for table, values in rows.items():
        if values:
            world.conn.executemany(f"update {table} set strength = ?, strength_at = ?, recall_count = ?, "
                                   "last_recalled = ? where id = ?", values)
