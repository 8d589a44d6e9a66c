"""Recall: which memories a character brings to mind for a situation, and why.

Candidates come from the full-text index over the character's live and archived memories
(FTS5, bm25), their neighbours (the memories formed just before and after, in the same
episode of game time), the core and recent memories about the characters present and about
the self, and the newest memories. Each candidate gets a score from normalised parts
(relevance, recency, strength, importance, core, present, domain) weighted by `RecallWeights`:

- relevance: bm25 of the memory's words against the situation's, raised by what a memory
  system knows beyond the words: a neighbour that matches (a question and the answer that
  followed), an episode that matches as a whole, the character the situation names first,
  a date it names, the kind of answer it wants (a time for "when"), and quoted speech in
  which the speaker tells of themselves ("I …", "my …") rather than addresses the hearer
  ("you …"); a question after several answers spreads them over episodes.
- recency: halves every `recency_half_life_hours` of game time since last recalled.
- strength: faded strength at the world clock (fading.py); core memories do not fade.

`refresh` is the other half of the evolution system's recall: what was used gets stronger.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache

from curator.domain.config import RecallConfig, RecallWeights
from curator.domain.fading import faded_strength, faded_value, refresh
from curator.domain.models import Memory, Tier
from curator.recall.index import (
    Facts,
    domain_seqs,
    facts_by_seq,
    memories_by_seq,
    memory_count,
    neighbours_of,
    search_memories,
    set_recall_state,
)
from curator.recall.network import linked
from curator.recall.query import DURATION_WORDS, NUMBER_WORDS, STOPWORDS, TIME_WORDS, Query
from curator.recall.semantic import Semantic, fuse
from curator.store.world import World

# Relevance beyond the words. Each was measured on LoCoMo (curator eval locomo) by leaving
# it out; the README gives the method and the figures.
COVERAGE_WEIGHT = 0.6  # share of the query's words (by idf) the memory holds
WINDOW_WEIGHT = 0.8  # bm25 of the memory with its two neighbours, as one text
WINDOW_K1, WINDOW_B = 0.6, 0.75
DATE_WEIGHT = 1.0  # formed within a day of a date (or in a month) the situation names
WHEN_WEIGHT = 1.0  # "when …?" and the memory holds a time: relevance × (1 + this)
NEIGHBOUR_WEIGHTS = {-2: 0.6, -1: 0.5, 1: 0.9, 2: 0.6}  # best neighbour's match, by offset
ANSWER_WEIGHT = 2.0  # the memory answers a question someone else asked just before it
NEIGHBOUR_SHARE = 0.5  # how much the best neighbour lends
EPISODE_WEIGHT = 0.7  # the best match in the memory's episode lends this much
NAMED_WEIGHT = 0.35  # the memory is about the character the situation names first
NEIGHBOUR_SPAN = 2  # memories each side that count as neighbours
# A question that wants several answers ("what activities …", "both", "how many") finds
# them in different episodes: the context that lifts one answer's episode as a whole is
# turned down, and an episode's memories past its best two (a question and its answer)
# give way to other episodes'. Measured on LoCoMo multi-hop, by leaving one conversation out.
LIST_NEIGHBOUR_SHARE = 0.25  # NEIGHBOUR_SHARE for such questions
LIST_EPISODE_WEIGHT = 0.0  # EPISODE_WEIGHT for such questions
EPISODE_DECAY = 0.75  # × this for each better memory of the same episode beyond one
CUE_WEIGHT = 0.5  # "how long"/"how many" and the memory holds a duration/number
# The memory network (network.py), followed one hop from the best matches: a linked memory
# becomes a candidate with this share of its match's relevance, times the link's strength.
# Measured on LoCoMo (curator.evals.locomo.evaluate at k 5 and 10): 0.5 cost 0.1 @10 and 0.7
# multi-hop @10 (there a linked memory's own words already match when it matters); 0.25
# leaves every figure of `python -m evals.bench locomo` as it was without links, and still
# brings a linked memory into a context that asks for its match.
HOP_SHARE = 0.25
HOP_SEEDS = 5  # the best matches whose links are followed
# What people say of themselves is what questions about them ask after: a memory whose quoted
# speech is in the first person ("I painted…", "my kids…") gains; speech to the hearer
# ("you …", "how are your…") is more often a question or a reply than a fact, and loses a
# little. Measured on LoCoMo by leaving one conversation out (all categories gain @5).
SELF_WEIGHT = 0.1
ADDRESS_WEIGHT = 0.05
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Mm]ine|[Ww]e|[Oo]ur|[Uu]s)\b")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
_WORDS = re.compile(r"\w+")


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
    seeds = [seq for seq, _, _ in hits[:max(2 * wanted_count, 12)]]
    links = neighbours_of(world, owner, seeds, NEIGHBOUR_SPAN)
    facts = facts_by_seq(world, sorted({s for s, _, _ in hits} | {n for ns in links.values() for n in ns}))
    gap = config.episode_gap_minutes * 60
    episodes = _episodes(facts, gap)
    chain: dict[tuple[int, int], int] = {}  # (seq, offset) → the neighbour's seq, same episode only
    for seq, others in links.items():
        before = [o for o in others if o < seq][::-1]
        after = [o for o in others if o > seq]
        row = [*before[::-1], seq, *after]
        for i, a in enumerate(row):
            for j, b in enumerate(row):
                if a != b and abs(i - j) <= NEIGHBOUR_SPAN and episodes.get(a) == episodes.get(b):
                    chain[(a, j - i)] = b
    # Which query words each match holds (highlighted tokens, mapped to the nearest query
    # word by common prefix: the index stems, the query does not), weighted by idf.
    matched: dict[int, Counter[str]] = {}
    for seq, _, words in hits:
        found: Counter[str] = Counter()
        for token in (t.lower() for segment in words for t in _WORDS.findall(segment)):
            found[max(query.terms, key=lambda t: (_prefix(t, token), -abs(len(t) - len(token))))] += 1
        matched[seq] = found
    total = max(memory_count(world, owner), len(facts))
    df = Counter(term for found in matched.values() for term in found)
    idf = {t: math.log(1 + (total - df[t] + 0.5) / (df[t] + 0.5)) for t in query.terms}
    all_idf = sum(idf.values()) or 1.0
    top = hits[0][1] or 1.0
    base: dict[int, float] = defaultdict(float)
    for seq, score, _ in hits:
        base[seq] = score / top + COVERAGE_WEIGHT * sum(idf[t] for t in matched[seq]) / all_idf
    lengths = {seq: _length(f.content) for seq, f in facts.items()}
    average = 3 * (sum(lengths.values()) / len(lengths) if lengths else 1.0) or 1.0
    window: dict[int, float] = {}
    for seq in facts:
        tf: Counter[str] = Counter(matched.get(seq, {}))
        size = lengths[seq]
        for offset in (-1, 1):
            other = chain.get((seq, offset))
            if other is not None:
                tf.update(matched.get(other, {}))
                size += lengths[other]
        norm_size = 1 - WINDOW_B + WINDOW_B * size / average
        window[seq] = sum(idf[t] * c * (WINDOW_K1 + 1) / (c + WINDOW_K1 * norm_size) for t, c in tf.items())
    top_window = max(window.values(), default=0.0) or 1.0
    for seq, fact in facts.items():
        base[seq] += WINDOW_WEIGHT * window[seq] / top_window
        day = fact.created_at.date()
        if any(first - timedelta(days=1) <= day <= last + timedelta(days=1) for first, last in query.dates):
            base[seq] += DATE_WEIGHT
        if query.wants_time and _holds(TIME_WORDS, fact.content):
            base[seq] *= 1.0 + WHEN_WEIGHT
        base[seq] *= 1.0 + _cue(query, fact.content)
    top_base = max(base.values(), default=0.0) or 1.0
    norm = {seq: base[seq] / top_base for seq in facts}
    best_in_episode: dict[int, float] = defaultdict(float)
    for seq, episode in episodes.items():
        best_in_episode[episode] = max(best_in_episode[episode], norm[seq])
    named = query.names[0] if query.names else None
    share, episode_weight = ((LIST_NEIGHBOUR_SHARE, LIST_EPISODE_WEIGHT) if query.wants_list
                             else (NEIGHBOUR_SHARE, EPISODE_WEIGHT))
    raw = {}
    for seq, fact in facts.items():
        near = [w * norm[other] for d, w in NEIGHBOUR_WEIGHTS.items()
                if (other := chain.get((seq, d))) is not None]
        previous = chain.get((seq, -1))
        asked = previous is not None and "?" in facts[previous].content
        if previous is not None and asked and facts[previous].subject != fact.subject:
            near.append(ANSWER_WEIGHT * norm[previous])
        raw[seq] = max(0.0, norm[seq] + share * max(near, default=0.0)
                    + episode_weight * best_in_episode[episodes[seq]]
                    + (NAMED_WEIGHT if named is not None and fact.subject == named else 0.0)
                    + _speech(fact.content))
    if query.wants_list:
        raw = _spread(raw, episodes)
    top_raw = max(raw.values(), default=0.0) or 1.0
    return {seq: value / top_raw for seq, value in raw.items()}, facts, {s for s, _, _ in hits}


def _spread(raw: dict[int, float], episodes: dict[int, int]) -> dict[int, float]:
    """Scores spread over episodes: the n-th best memory of an episode × EPISODE_DECAY^(n-2),
    the best two kept as they are."""
    seen: Counter[int] = Counter()
    out = {}
    for seq in sorted(raw, key=lambda s: (-raw[s], s)):
        out[seq] = raw[seq] * EPISODE_DECAY ** max(0, seen[episodes[seq]] - 1)
        seen[episodes[seq]] += 1
    return out


# Per-memory features read from the text alone. Recall asks them of the same memories call
# after call (a character's context, turn after turn), so each text is read once.
_FEATURE_CACHE = 16_384


@lru_cache(maxsize=_FEATURE_CACHE)
def _length(content: str) -> int:
    return len([w for w in _WORDS.findall(content.lower()) if w not in STOPWORDS])


@lru_cache(maxsize=_FEATURE_CACHE)
def _holds(pattern: re.Pattern[str], content: str) -> bool:
    return pattern.search(content) is not None


@lru_cache(maxsize=_FEATURE_CACHE)
def _speech(content: str) -> float:
    """What a memory's quoted speech (from its first quote mark on) lends: SELF_WEIGHT if the
    speaker speaks of themselves, less ADDRESS_WEIGHT if they address the hearer; 0 without
    quoted speech (the memory's own "I" is its owner's, not a speaker's)."""
    start = min((i for i in (content.find('"'), content.find("\u201c")) if i >= 0), default=-1)
    if start < 0:
        return 0.0
    speech = content[start:]
    return ((SELF_WEIGHT if _FIRST_PERSON.search(speech) else 0.0)
            - (ADDRESS_WEIGHT if _SECOND_PERSON.search(speech) else 0.0))


def _prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _cue(query: Query, content: str) -> float:
    """How well a memory holds the kind of answer a "how long"/"how many" question wants."""
    if query.wants_duration and _holds(DURATION_WORDS, content):
        return CUE_WEIGHT
    if query.wants_number and _holds(NUMBER_WORDS, content):
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
    relevance, facts, matched = lexical_relevance(world, owner, query, config, depth or limit)
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
        if now is not None and f.tier is Tier.RECENT:
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
