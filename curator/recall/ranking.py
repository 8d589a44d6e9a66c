"""Recall: which memories a character brings to mind for a situation, and why.

Candidates come from the full-text index over the character's live and archived memories
(FTS5, bm25), their neighbours (the memories formed just before and after, in the same
episode of game time), the core and recent memories about the characters present and about
the self, and the newest memories. Each candidate gets a score from normalised parts
(relevance, recency, strength, importance, core, present, domain) weighted by `RecallWeights`:

- relevance: bm25 of the memory's words against the situation's, raised by what a memory
  system knows beyond the words (relevance.py).
- recency: halves every `recency_half_life_hours` of game time since last recalled.
- strength: faded strength at the world clock (fading.py); core memories do not fade.

`refresh` is the other half of the evolution system's recall: what was used gets stronger.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from curator.domain.config import RecallConfig, RecallWeights
from curator.domain.fading import faded_strength, faded_value, refresh
from curator.domain.models import Memory, Tier
from curator.recall.index import Facts, domain_seqs, facts_by_seq, memories_by_seq, set_recall_state
from curator.recall.network import linked
from curator.recall.query import Query
from curator.recall.relevance import lexical_relevance
from curator.recall.semantic import Semantic, fuse
from curator.store.world import World

# The memory network (network.py), followed one hop from the best matches: a linked memory
# becomes a candidate with this share of its match's relevance, times the link's strength.
# Measured on LoCoMo (curator.evals.locomo.evaluate at k 5 and 10): 0.5 cost 0.1 @10 and 0.7
# multi-hop @10 (there a linked memory's own words already match when it matters); 0.25
# leaves every figure of `python -m evals.bench locomo` as it was without links, and still
# brings a linked memory into a context that asks for its match.
HOP_SHARE = 0.25
HOP_SEEDS = 5  # the best matches whose links are followed


@dataclass
class ScoreParts:
    """A memory's score, part by part (each 0..1) and the weighted total."""

    relevance: float = 0.0
    recency: float = 0.0
    strength: float = 0.0
    importance: float = 0.0
    core: float = 0.0
    present: float = 0.0
    domain: float = 0.0  # of the task's domain (when one is asked for)
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


def rank(world: World, owner: str, query: Query, *, config: RecallConfig, weights: RecallWeights,
         present: list[str], now: datetime | None, limit: int, extra: dict[int, str] | None = None,
         depth: int | None = None, exclude: frozenset[int] = frozenset(), core_beyond_limit: bool = False,
         hop: float | None = None, domain: str | None = None, semantic: Semantic | None = None
         ) -> list[Recalled]:
    """The owner's memories best suited to `query`, best first, at most `limit`.

    `extra` adds candidates by seq that need not match (the scene's core and recent
    memories), each with the reason it is one. `depth`: how many matching memories the
    caller wants at most (default `limit`), which bounds the search. `exclude`: seqs the
    caller has already; `core_beyond_limit`: core memories come on top of `limit` (context
    keeps every core memory it can fit); `hop`: the share of a top match's relevance its
    linked memories get (default HOP_SHARE; 0: links are not followed); `domain`: the
    memories the game filed under it (the newest `candidates` of them are candidates without
    a match) get the `domain` part; `semantic`: embedding similarities fused into relevance
    (semantic.py). Only what is returned is read in full."""
    relevance, facts, matched = lexical_relevance(world, owner, query, config, depth or limit,
                                                  None if now is None else now.date())
    sources: dict[int, list[str]] = {seq: ["match" if seq in matched else "neighbour"] for seq in facts}
    if semantic is not None:
        fuse(world, semantic, relevance, facts, sources)
    hop = HOP_SHARE if hop is None else hop
    if hop > 0.0:
        _follow_links(world, relevance, facts, sources, hop)
    extra = dict(extra or {})
    of_domain = domain_seqs(world, owner, domain, config.candidates) if domain and domain.strip() else []
    for seq in of_domain:
        extra.setdefault(seq, "domain")
    missing = [seq for seq in extra if seq not in facts]
    facts.update(facts_by_seq(world, missing))
    for seq, why in extra.items():
        sources.setdefault(seq, []).append(why)
    in_domain = frozenset(of_domain)
    half_life = config.recency_half_life_hours * 3600
    # Each part rounded as ScoreParts shows it, the total from the rounded parts (so ties
    # break the same way whatever reads them); the dataclass is built only for what is kept.
    scored: list[tuple[float, int, tuple[float, ...]]] = []
    faded: dict[int, float] = {}
    w = weights
    for seq, f in facts.items():
        strength = f.strength
        if now is not None and f.tier is Tier.RECENT and not f.protected:
            strength = faded[seq] = faded_value(f.kind, f.importance, f.recall_count, f.tier, f.strength,
                                                f.strength_at, now)
        age = max(0.0, (now - f.last_recalled).total_seconds()) if now is not None else 0.0
        core = 1.0 if f.tier is Tier.CORE else 0.0
        values: tuple[float, ...] = (round(relevance.get(seq, 0.0), 4), round(0.5 ** (age / half_life), 4),
                  round(1.0 if core else strength, 4), f.importance, core,
                  1.0 if f.subject is not None and f.subject in present else 0.0,
                  1.0 if seq in in_domain else 0.0)
        total = round(w.relevance * values[0] + w.recency * values[1] + w.strength * values[2]
                      + w.importance * values[3] + w.core * values[4] + w.present * values[5]
                      + w.domain * values[6], 4)
        scored.append((total, seq, values))
    scored.sort(key=lambda t: (-t[0], -t[1]))
    kept: list[tuple[int, ScoreParts]] = []
    others = 0
    for total, seq, values in scored:
        if seq in exclude:
            continue
        if not (core_beyond_limit and values[4]):
            if others == limit:
                continue
            others += 1
        kept.append((seq, ScoreParts(relevance=values[0], recency=values[1], strength=values[2],
                                     importance=values[3], core=values[4], present=values[5],
                                     domain=values[6], total=total,
                                     matched=1.0 if seq in matched else 0.0)))
    scored_parts = kept
    memories = memories_by_seq(world, [seq for seq, _ in scored_parts])
    out = []
    for seq, parts in scored_parts:
        memory = memories[seq]
        if seq in faded and now is not None:  # its strength as of the world clock
            memory.strength, memory.strength_at = faded[seq], now
        out.append(Recalled(seq=seq, memory=memory, parts=parts, sources=sources.get(seq, [])))
    return out


def _follow_links(world: World, relevance: dict[int, float], facts: dict[int, Facts],
                  sources: dict[int, list[str]], share: float) -> None:
    """One hop through the memory network: a memory linked to one of the best matches gets
    `share` × that match's relevance × the link's strength, when that is more than it has."""
    seeds = sorted(relevance, key=lambda seq: (-relevance[seq], seq))[:HOP_SEEDS]
    lent: dict[int, float] = {}
    for seed, others in linked(world, seeds).items():
        for other, strength in others:
            value = share * relevance[seed] * strength
            if value > relevance.get(other, 0.0) and value > lent.get(other, 0.0):
                lent[other] = value
    if not lent:
        return
    facts.update(facts_by_seq(world, [seq for seq in lent if seq not in facts]))
    for seq, value in lent.items():
        if seq in facts:
            relevance[seq] = value
            sources.setdefault(seq, []).append("link")


def refresh_recalled(world: World, recalled: list[Memory], now: datetime) -> None:
    """The evolution system's recall refresh for each memory used: strength +0.15 (from its faded
    strength), recall count +1, last recalled now; archived memories are refreshed where
    they lie. Call inside a transaction."""
    for memory in recalled:
        if memory.tier is Tier.RECENT:
            memory.strength = faded_strength(memory, memory.strength_at or memory.created_at, now)
        refresh(memory, now)
        memory.strength_at = now
    set_recall_state(world, recalled)
