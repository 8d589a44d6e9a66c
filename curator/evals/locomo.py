"""The LoCoMo retrieval eval: does recall find the turns a question's answer rests on?

LoCoMo (Maharana et al., ACL 2024) holds long two-person conversations in dated sessions,
and questions whose evidence is a list of turn ids. Each conversation is played into a
fresh world as turns: every utterance is a turn whose actor is the speaker (image captions
included), at its session's date, observed by a character `listener` who forms one memory
per utterance (formation thresholds are set to 0 for this: a listener keeps every
utterance) and whose memories keep their source turn ids. For each question with evidence,
`Curator.search` brings the listener's top k memories to mind, and recall@k is the share of
the evidence turns among their sources. No model is involved; with an embedder (`embedder=`,
`curator eval locomo --embeddings`), each conversation's memories are embedded once after it
is played, and every question is asked again with embeddings fused at each of `weights`,
reported beside the words-only figures.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from curator import CuratorConfig, Embedder, InvalidInput

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
LISTENER = "listener"
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")


def evidence_ids(raw: list[str]) -> list[str]:
    """Repair LoCoMo's evidence ids: 'D8:6; D9:17' is two ids, 'D:11:26' is 'D11:26'; text
    that names no turn is skipped."""
    found = [f"D{m.group(1)}:{m.group(2)}" for item in raw for m in _EVIDENCE.finditer(str(item))]
    return list(dict.fromkeys(found))


def recall_at_k(evidence: set[str], ranked_sources: list[list[str]], k: int) -> float:
    """The share of the evidence turns among the sources of the first k memories."""
    found = {turn for sources in ranked_sources[:k] for turn in sources}
    return len(evidence & found) / len(evidence)


def _session_time(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def conversation_turns(sample: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """A LoCoMo conversation as curator turns, session by session, a second apart."""
    conv = sample["conversation"]
    a, b = conv["speaker_a"], conv["speaker_b"]
    sessions = sorted(int(m.group(1)) for key in conv if (m := _SESSION.fullmatch(key)))
    for number in sessions:
        start = _session_time(conv[f"session_{number}_date_time"])
        for i, utterance in enumerate(conv[f"session_{number}"]):
            speaker = utterance["speaker"]
            other = b if speaker == a else a
            text = utterance["text"]
            if utterance.get("blip_caption"):
                text += f" [photo: {utterance['blip_caption']}]"
            yield {"id": utterance["dia_id"], "world_time": (start + timedelta(seconds=i)).isoformat() + "Z",
                   "actor": _character_id(speaker), "intent": {"action": f"talk with {other}"},
                   "reality": f'You say to {other}: "{text}"', "others": [_character_id(other)],
                   "observers": [LISTENER]}


def _character_id(name: str) -> str:
    return re.sub(r"[^a-z0-9_.-]+", "_", name.strip().lower()).strip("_") or "speaker"


def listener_config() -> CuratorConfig:
    config = CuratorConfig()
    return config.model_copy(update={"formation_thresholds": {k: 0.0 for k in config.formation_thresholds}})


def evaluate(path: str | Path, ks: list[int], *, progress: Callable[[str], None] | None = None,
             embedder: Embedder | None = None, weights: list[float] | None = None) -> dict[str, Any]:
    """Play every conversation in `path` and score recall@k; see the module docstring."""
    from curator import Curator

    try:
        samples = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise InvalidInput(f"cannot read LoCoMo file {path}: {error}", field="path") from error
    if not isinstance(samples, list) or not all(isinstance(s, dict) and "conversation" in s for s in samples):
        raise InvalidInput(f"{path} is not LoCoMo data (a list of conversations)", field="path")
    ks = sorted(set(ks))
    scores: dict[int, list[float]] = defaultdict(list)
    by_category: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    fused = _Fused(embedder, weights, ks)
    with tempfile.TemporaryDirectory(prefix="curator-locomo-") as scratch:
        for index, sample in enumerate(samples):
            world = Path(scratch) / f"conversation-{index}.db"
            with Curator(world, config=listener_config(), model=None) as curator:
                for turn in conversation_turns(sample):
                    curator.observe(turn)
                for qa in sample.get("qa", []):
                    evidence = set(evidence_ids(qa.get("evidence", [])))
                    if not evidence:
                        continue
                    found = curator.search(LISTENER, qa["question"], limit=ks[-1])
                    category = CATEGORIES.get(int(qa.get("category", 0)), "other")
                    ranked = [r.memory.source_turns for r in found]
                    for k in ks:
                        value = recall_at_k(evidence, ranked, k)
                        scores[k].append(value)
                        by_category[category][k].append(value)
                fused.score(curator, sample)
            if progress is not None:
                progress(f"{sample.get('sample_id', index)}: {len(scores[ks[0]])} questions so far")
    questions = len(scores[ks[0]]) if ks else 0
    return {
        "questions": questions,
        "recall": {str(k): _mean(scores[k]) for k in ks},
        "by_category": {name: {str(k): _mean(by_category[name][k]) for k in ks}
                        for name in CATEGORIES.values() if name in by_category},
        **fused.result(),
    }


class _Fused:
    """The same questions asked again with embeddings, at each weight (semantic recall)."""

    def __init__(self, embedder: Embedder | None, weights: list[float] | None, ks: list[int]):
        self.embedder, self.ks = embedder, ks
        self.weights = list(weights or [CuratorConfig().recall.semantic_weight])
        self.scores: dict[float, dict[str, dict[int, list[float]]]] = {
            w: defaultdict(lambda: defaultdict(list)) for w in self.weights}
        self.embed_seconds, self.memories = 0.0, 0

    def score(self, curator: Any, sample: dict[str, Any]) -> None:
        if self.embedder is None:
            return
        curator.use_embedder(self.embedder)
        started = time.perf_counter()
        self.memories += curator.embed_pending().memories
        self.embed_seconds += time.perf_counter() - started
        for weight in self.weights:
            curator.config.recall.semantic_weight = weight
            for qa in sample.get("qa", []):
                evidence = set(evidence_ids(qa.get("evidence", [])))
                if not evidence:
                    continue
                found = curator.search(LISTENER, qa["question"], limit=self.ks[-1])
                ranked = [r.memory.source_turns for r in found]
                category = CATEGORIES.get(int(qa.get("category", 0)), "other")
                for k in self.ks:
                    value = recall_at_k(evidence, ranked, k)
                    self.scores[weight]["overall"][k].append(value)
                    self.scores[weight][category][k].append(value)
        curator.use_embedder(None)

    def result(self) -> dict[str, Any]:
        if self.embedder is None:
            return {}
        return {"embeddings": {
            "embedder": self.embedder.name, "memories": self.memories,
            "embed_seconds": round(self.embed_seconds, 2),
            "by_weight": [{"weight": w,
                           "recall": {str(k): _mean(self.scores[w]["overall"][k]) for k in self.ks},
                           "by_category": {name: {str(k): _mean(self.scores[w][name][k]) for k in self.ks}
                                           for name in CATEGORIES.values() if name in self.scores[w]}}
                          for w in self.weights]}}


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0
