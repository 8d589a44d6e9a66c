"""The paraphrase recall eval: does recall find a memory asked for in other words?

Game memories are made by playing stories into fresh worlds with no model (the shipped
transcript and the judgement stories of several genres); the questions
(evals/paraphrase/questions.yaml, written before any tuning) are what a player or an NPC would
ask in words other than the memory's own ("Who saved my life?" for "Wolf bursts out of the
undergrowth and hits the poacher from behind"). Each question is asked of its owner with
`Curator.search`, once on words alone and, when an embedder is given, once with it; recall@k
is the share of the question's gold turns among the source turns of the first k memories.
A question whose owner formed no memory of any gold turn cannot be answered by any recall:
it is counted apart and left out of the scores.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from curator import CaseError, Curator, CuratorConfig, Embedder

KS = (1, 3, 5, 10)


def load_questions(path: Path) -> tuple[dict[str, Path], list[dict[str, Any]]]:
    """The stories (name → file, relative to the checkout) and questions of a questions file."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise CaseError(f"cannot read {path}: {error}", path=str(path)) from error
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise CaseError("a paraphrase file has `stories` and a `questions` list", path=str(path))
    root = path.resolve().parents[2]  # evals/paraphrase/questions.yaml → the checkout
    stories = {name: root / file for name, file in data.get("stories", {}).items()}
    for n, q in enumerate(data["questions"]):
        if not isinstance(q, dict) or q.get("story") not in stories or not q.get("gold") or not q.get("ask"):
            raise CaseError("a question needs story (one of stories), owner, ask and gold", path=str(path),
                            field=f"questions.{n}")
    return stories, data["questions"]


def story_turns(path: Path) -> list[dict[str, Any]]:
    """A story's turns: a JSONL transcript, or a judgement story's turns without their labels."""
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [{k: v for k, v in turn.items() if k not in ("split", "gold")} for turn in data["turns"]]


def evaluate(path: Path, embedder: Embedder | None, *, weight: float | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Recall@k of every question on words alone and (with `embedder`) with embeddings, fused
    at `weight` (default: the configured `recall.semantic_weight`)."""
    config = CuratorConfig()
    if weight is not None:
        config.recall.semantic_weight = weight
    stories, questions = load_questions(path)
    modes = ["words"] + (["embeddings"] if embedder is not None else [])
    scores: dict[str, dict[int, list[float]]] = {m: defaultdict(list) for m in modes}
    by_story: dict[str, dict[str, dict[int, list[float]]]] = {
        m: defaultdict(lambda: defaultdict(list)) for m in modes}
    rows: list[dict[str, Any]] = []
    unanswerable: list[str] = []
    timing = {"embed_seconds": 0.0, "memories": 0}
    with tempfile.TemporaryDirectory(prefix="curator-paraphrase-") as scratch:
        for name, file in stories.items():
            with Curator(Path(scratch) / f"{name}.db", config=config, model=None) as curator:
                for turn in story_turns(file):
                    curator.observe(turn)
                if embedder is not None:
                    curator.use_embedder(embedder)
                    started = time.perf_counter()
                    done = curator.embed_pending()
                    timing["embed_seconds"] += time.perf_counter() - started
                    timing["memories"] += done.memories
                for q in (q for q in questions if q["story"] == name):
                    gold = set(q["gold"])
                    formed = {t for m in _memories(curator, q["owner"]) for t in m.source_turns}
                    if not gold & formed:
                        unanswerable.append(f"{q['owner']}: {q['ask']}")
                        continue
                    row: dict[str, Any] = {"story": name, "owner": q["owner"], "ask": q["ask"],
                                           "gold": sorted(gold)}
                    for mode in modes:
                        curator.use_embedder(embedder if mode == "embeddings" else None)
                        found = curator.search(q["owner"], q["ask"], limit=max(KS))
                        ranked = [r.memory.source_turns for r in found]
                        row[mode] = {}
                        for k in KS:
                            value = len(gold & {t for s in ranked[:k] for t in s}) / len(gold)
                            scores[mode][k].append(value)
                            by_story[mode][name][k].append(value)
                            row[mode][str(k)] = value
                    rows.append(row)
            if progress is not None:
                progress(f"{name}: {len(rows)} questions so far")
    return {"questions": len(rows), "unanswerable": unanswerable,
            "embedder": embedder.name if embedder is not None else None,
            "weight": config.recall.semantic_weight,
            "recall": {m: {str(k): _mean(scores[m][k]) for k in KS} for m in modes},
            "by_story": {m: {s: {str(k): _mean(v[k]) for k in KS} for s, v in by_story[m].items()}
                         for m in modes},
            "embedding": {"memories": timing["memories"], "seconds": round(timing["embed_seconds"], 3)},
            "rows": rows}


def _memories(curator: Curator, owner: str) -> list[Any]:
    character = curator.character(owner)
    live = [*character.self_memories.recent_events, *character.self_memories.core_memories]
    for relationship in character.relationships.values():
        live += [*relationship.recent_memories, *relationship.core_memories]
    return live + curator.archived(owner)


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0
