"""Relevance: how well a memory matches a situation or question, read without a model.

bm25 of the memory's words against the query's (FTS5, Porter stemming), raised by what a
memory system knows beyond a bag of words: the share of the query's words it holds, the
memory read together with its neighbours, a neighbour that matches (a question and the
answer that followed), an episode that matches as a whole, the character the query names
first, a time the query names (the memory formed then, or speaking of it: "last week" read
against the day it was formed, see when.py), the kind of answer it wants (a time for
"when"), and quoted speech in which the speaker tells of themselves. The cues' weights are
`RecallConfig.relevance` (RelevanceWeights); ranking.py combines relevance with the other
parts of a score.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from datetime import date
from functools import lru_cache

from curator.domain.config import RecallConfig
from curator.recall.forms import lemma
from curator.recall.index import Facts, facts_by_seq, memory_count, neighbours_of, search_memories
from curator.recall.query import DURATION_WORDS, NUMBER_WORDS, STOPWORDS, TIME_WORDS, Query
from curator.recall.when import Span, read_times
from curator.store.world import World

# The weights of most cues are RelevanceWeights (chosen on LoCoMo leaving conversations out:
# `curator eval locomo`); these are the shape of the cues, kept as they were measured.
WINDOW_K1, WINDOW_B = 0.6, 0.75
NEIGHBOUR_WEIGHTS = {-2: 0.6, -1: 0.5, 1: 0.9, 2: 0.6}  # best neighbour's match, by offset
NEIGHBOUR_SPAN = 2  # memories each side that count as neighbours
# A question that wants several answers ("what activities …", "both", "how many") finds
# them in different episodes: the context that lifts one answer's episode as a whole is
# turned down, and an episode's memories past its best two (a question and its answer)
# give way to other episodes'. Measured on LoCoMo multi-hop, by leaving one conversation out.
LIST_NEIGHBOUR_SHARE = 0.25  # the neighbour weight for such questions
LIST_EPISODE_WEIGHT = 0.0  # the episode weight for such questions
EPISODE_DECAY = 0.75  # × this for each better memory of the same episode beyond one
# What people say of themselves is what questions about them ask after: a memory whose quoted
# speech is in the first person ("I painted…", "my kids…") gains; speech to the hearer
# ("you …", "how are your…") is more often a question or a reply than a fact, and loses a
# little. Measured on LoCoMo by leaving one conversation out (all categories gain @5).
SELF_WEIGHT = 0.1
ADDRESS_WEIGHT = 0.05
_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|[Mm]y|[Mm]e|[Mm]ine|[Ww]e|[Oo]ur|[Uu]s)\b")
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
_WORDS = re.compile(r"\w+")


def lexical_relevance(world: World, owner: str, query: Query, config: RecallConfig, wanted_count: int,
                      today: date | None = None) -> tuple[dict[int, float], dict[int, Facts], set[int]]:
    """Relevance (0..1) by seq for the owner's memories that match or neighbour a match,
    their facts, and the seqs that matched the words themselves. `today` is the day the
    query's relative times ("last week") are read against."""
    cues = config.relevance
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
            found[max(query.terms, key=lambda t: (lemma(t) == lemma(token), _prefix(t, token),
                                                  -abs(len(t) - len(token))))] += 1
        matched[seq] = found
    total = max(memory_count(world, owner), len(facts))
    df = Counter(term for found in matched.values() for term in found)
    idf = {t: math.log(1 + (total - df[t] + 0.5) / (df[t] + 0.5)) for t in query.terms}
    all_idf = sum(idf.values()) or 1.0
    top = hits[0][1] or 1.0
    base: dict[int, float] = defaultdict(float)
    for seq, score, _ in hits:
        base[seq] = score / top + cues.coverage * sum(idf[t] for t in matched[seq]) / all_idf
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
    spans = query.times(today)
    for seq, fact in facts.items():
        base[seq] += cues.window * window[seq] / top_window
        if spans and _of_time(spans, fact):
            base[seq] += cues.date
        if query.wants_time and (_holds(TIME_WORDS, fact.content) or _speaks_of_time(fact)):
            base[seq] *= 1.0 + cues.when
        base[seq] *= 1.0 + _cue(query, fact.content, cues.cue)
    top_base = max(base.values(), default=0.0) or 1.0
    norm = {seq: base[seq] / top_base for seq in facts}
    best_in_episode: dict[int, float] = defaultdict(float)
    for seq, episode in episodes.items():
        best_in_episode[episode] = max(best_in_episode[episode], norm[seq])
    named = query.names[0] if query.names else None
    share, episode_weight = ((LIST_NEIGHBOUR_SHARE, LIST_EPISODE_WEIGHT) if query.wants_list
                             else (cues.neighbour, cues.episode))
    raw = {}
    for seq, fact in facts.items():
        near = [w * norm[other] for d, w in NEIGHBOUR_WEIGHTS.items()
                if (other := chain.get((seq, d))) is not None]
        previous = chain.get((seq, -1))
        asked = previous is not None and "?" in facts[previous].content
        if previous is not None and asked and facts[previous].subject != fact.subject:
            near.append(cues.answer * norm[previous])
        raw[seq] = max(0.0, norm[seq] + share * max(near, default=0.0)
                    + episode_weight * best_in_episode[episodes[seq]]
                    + (cues.named if named is not None and fact.subject == named else 0.0)
                    + _speech(fact.content))
    if query.wants_list:
        raw = _spread(raw, episodes)
    top_raw = max(raw.values(), default=0.0) or 1.0
    return {seq: value / top_raw for seq, value in raw.items()}, facts, {s for s, _, _ in hits}


def _of_time(spans: tuple[Span, ...], fact: Facts) -> bool:
    """Whether a memory is of a time the query names: formed then (give or take a day), or
    speaking of it ("last week", read against the day it was formed)."""
    day = fact.created_at.date()
    formed = Span(day, day, "day")
    return (any(span.overlaps(formed, slack=1) for span in spans)
            or any(span.overlaps(told) for told in read_times(fact.content, day) for span in spans))


def _speaks_of_time(fact: Facts) -> bool:
    return bool(read_times(fact.content, fact.created_at.date()))


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


def _cue(query: Query, content: str, weight: float) -> float:
    """How well a memory holds the kind of answer a "how long"/"how many" question wants."""
    if query.wants_duration and _holds(DURATION_WORDS, content):
        return weight
    if query.wants_number and _holds(NUMBER_WORDS, content):
        return weight
    return 0.0


def _episodes(facts: dict[int, Facts], gap_seconds: float) -> dict[int, int]:
    """Episode number by seq: memories in game-time order, a new episode after a long gap."""
    episode, last, out = 0, None, {}
    for seq, fact in sorted(facts.items(), key=lambda kv: (kv[1].created_at, kv[0])):
        if last is not None and (fact.created_at - last).total_seconds() > gap_seconds:
            episode += 1
        out[seq], last = episode, fact.created_at
    return out
