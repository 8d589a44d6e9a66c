"""Semantic recall: embedding vectors made off the turn, searched brute-force, fused at a weight.

Optional and off by default: a world uses it once it names an embedder (`EMBEDDER_KEY` in its
meta; model/embedders.py makes it). Then:

- `catch_up` embeds the memories and passages that lack a vector of the world's embedder, in
  batches, each saved in its own short transaction. The model runs outside any transaction,
  so a turn never waits for it; the API calls it before a search (for that character) and
  `curator embed` for the whole world.
- A memory is embedded as "<who it is about>: <content>" (the subject's name, or the owner's
  for a memory about itself): questions name people.
- `similarities` compares a situation's vector with every vector of the character (numpy,
  one matrix product: a character holds thousands of memories, not millions).
- `fuse` is ranking's hook: the best `candidates` by cosine join the candidates the words
  found, and each candidate's relevance becomes lexical + weight × its cosine scaled from the
  character's average memory (0) to its best (1), then all scaled back so the best is 1.
  With weight 0 (or no embedder) ranking is as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from curator.domain.models import display_name
from curator.model.embedders import Embedder
from curator.recall.index import Facts, facts_by_seq
from curator.recall.passages import Passage, Passages, match_expression
from curator.store.vectors import (
    Pending,
    memory_vectors,
    pack,
    passage_vectors,
    pending_memories,
    pending_passages,
    save_memory_vectors,
    save_passage_vectors,
)
from curator.store.world import World


@dataclass
class Semantic:
    """A situation's cosine similarity with each of a character's memories (by seq), and how
    much it counts in ranking."""

    similarities: dict[int, float]
    weight: float
    candidates: int
    passages: dict[int, float] = field(default_factory=dict)  # cosine by passage id


@dataclass
class CatchUp:
    """What one catch-up embedded, in how many batches, and how long the model took."""

    memories: int = 0
    passages: int = 0
    batches: int = 0
    embed_seconds: float = 0.0
    write_seconds: float = 0.0

    def add(self, other: CatchUp) -> None:
        for name in ("memories", "passages", "batches", "embed_seconds", "write_seconds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def memory_text(pending: Pending, names: Callable[[str], str]) -> str:
    """The text a memory is embedded as: who it is about, then what happened."""
    return f"{names(pending.subject or pending.owner)}: {pending.content}"


def catch_up(world: World, embedder: Embedder, *, owner: str | None = None, batch: int = 64,
             limit: int | None = None, progress: Callable[[CatchUp], None] | None = None) -> CatchUp:
    """Embed what lacks a vector of `embedder` (the owner's, or the whole world's), `batch`
    texts a model call and a transaction, at most `limit` texts (None: all)."""
    done = CatchUp()
    cache: dict[str, str] = {}

    def names(character: str) -> str:
        if character not in cache:
            row = world.character_row(character)
            cache[character] = row["name"] if row is not None else display_name(character)
        return cache[character]

    for kind in ("memories", "passages"):
        while limit is None or done.memories + done.passages < limit:
            size = batch if limit is None else min(batch, limit - done.memories - done.passages)
            finder = pending_memories if kind == "memories" else pending_passages
            pending = finder(world, embedder.name, owner, size)
            if not pending:
                break
            texts = [memory_text(p, names) if kind == "memories" else p.content for p in pending]
            started = time.perf_counter()
            vectors = embedder.embed(texts)
            written = time.perf_counter()
            rows = [(p, pack(v)) for p, v in zip(pending, vectors, strict=True)]
            with world.transaction() as tx:
                (save_memory_vectors if kind == "memories" else save_passage_vectors)(tx, embedder.name, rows)
            setattr(done, kind, getattr(done, kind) + len(rows))
            done.batches += 1
            done.embed_seconds += written - started
            done.write_seconds += time.perf_counter() - written
            if progress is not None:
                progress(done)
            if len(pending) < size:
                break
    return done


def _cosines(rows: list[tuple[int, bytes]], query: list[float]) -> dict[int, float]:
    if not rows:
        return {}
    import numpy as np

    matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f4").reshape(len(rows), -1)
    vector = np.asarray(query, dtype=np.float32)
    if matrix.shape[1] != vector.shape[0]:
        return {}  # vectors of another size under the same name: treat as none
    scores: Any = matrix @ vector
    return {key: float(score) for (key, _), score in zip(rows, scores.tolist(), strict=True)}


def similarities(world: World, owner: str, model: str, query: list[float]) -> dict[int, float]:
    """Cosine of `query` with each of the owner's memory vectors of `model`, by seq."""
    return _cosines(memory_vectors(world, owner, model), query)


def passage_similarities(world: World, owner: str, model: str, query: list[float]) -> dict[int, float]:
    """Cosine of `query` with each of the owner's passage vectors of `model`, by passage id."""
    return _cosines(passage_vectors(world, owner, model), query)


def fuse(world: World, semantic: Semantic, relevance: dict[int, float], facts: dict[int, Facts],
         sources: dict[int, list[str]]) -> None:
    """Ranking's hook (see the module docstring): adds the best semantic matches to `facts`
    and `sources` ("semantic") and fuses every candidate's relevance in place."""
    sims = semantic.similarities
    # Cosines of one model crowd together (unrelated sentences still score 0.1-0.3): measured
    # from the character's average memory, the best match is 1 and an average one 0.
    scaled = _scaled(sims)
    if semantic.weight <= 0.0 or not scaled:
        return
    top = sorted(sims, key=lambda seq: (-sims[seq], seq))[:semantic.candidates]
    missing = [seq for seq in top if seq not in facts]
    facts.update(facts_by_seq(world, missing))
    for seq in missing:
        if seq in facts:
            sources[seq] = ["semantic"]
    fused = {seq: relevance.get(seq, 0.0) + semantic.weight * scaled.get(seq, 0.0) for seq in facts}
    scale = max(fused.values(), default=0.0) or 1.0
    relevance.clear()
    relevance.update({seq: value / scale for seq, value in fused.items() if value > 0.0})


def _scaled(sims: dict[int, float]) -> dict[int, float]:
    """Cosines scaled from the average (0) to the best (1), as `fuse` does; {} if all tie."""
    if not sims:
        return {}
    best, floor = max(sims.values()), sum(sims.values()) / len(sims)
    if best <= floor:
        return {}
    return {key: max(0.0, value - floor) / (best - floor) for key, value in sims.items()}


def semantic_passages(world: World, owner: str, situation: str, semantic: Semantic, limit: int
                      ) -> list[tuple[Passage, str]] | None:
    """The context's passages with embeddings: bm25 (scaled so the best is 1) + weight × the
    scaled cosine, over the word matches and the best embedding matches. None when the
    owner's passages have no vectors (the caller searches by words alone)."""
    scaled = _scaled(semantic.passages)
    if not scaled or semantic.weight <= 0.0:
        return None
    store = Passages(world)
    hits = store.search(owner, situation, limit=4 * limit) if match_expression(situation) else []
    top = max((h.score for h in hits), default=0.0) or 1.0
    lexical = {h.id: h.score / top for h in hits}
    near = sorted(scaled, key=lambda key: (-scaled[key], key))[:4 * limit]
    score = {key: lexical.get(key, 0.0) + semantic.weight * scaled.get(key, 0.0) for key in {*lexical, *near}}
    chosen = sorted((key for key in score if score[key] > 0.0), key=lambda key: (-score[key], key))[:limit]
    return [(store.get(owner, key), "archive passage matching the situation" if key in lexical
             else "archive passage close in meaning to the situation") for key in chosen]
