"""The LoCoMo retrieval eval: does recall find the turns a question's answer rests on?

LoCoMo (Maharana et al., ACL 2024) holds long two-person conversations in dated sessions,
and questions whose evidence is a list of turn ids. Each conversation is played into a
fresh world as turns (`play`): every utterance is a turn whose actor is the speaker (image
captions included), at its session's date, observed by a character `listener` who forms
one memory per utterance (formation thresholds are set to 0 for this: a listener keeps
every utterance) and whose memories keep their source turn ids. For each question with
evidence, `Curator.search` brings the listener's top k memories to mind, and recall@k is
the share of the evidence turns among their sources (`score`). No model is involved; with an
embedder (`embed`, `score(embedder=...)`), each conversation's memories are embedded once and
its questions asked again with embeddings fused at a weight. locomo_tuning.py scores recall
so, leaving one conversation out.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from curator import CuratorConfig, Embedder, InvalidInput

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
LISTENER = "listener"
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")


def evidence_ids(raw: list[str]) -> list[str]:
    """Repair LoCoMo's evidence ids: 'D8:6; D9:17' is two ids, 'D:11:26' is 'D11:26', 'D30:05'
    is 'D30:5' (numbers without leading zeros, as turn ids are written); text that names no
    turn is skipped."""
    found = [turn_id(m.group(0)) for item in raw for m in _EVIDENCE.finditer(str(item))]
    return list(dict.fromkeys(found))


def turn_id(dia_id: str) -> str:
    """A LoCoMo turn id in one spelling: 'D30:05' and 'D:30:5' are 'D30:5' (any other text as it is)."""
    m = _EVIDENCE.fullmatch(dia_id.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else dia_id


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
            at = (start + timedelta(seconds=i)).isoformat() + "Z"
            yield {"id": turn_id(utterance["dia_id"]), "world_time": at, "actor": _character_id(speaker),
                   "intent": {"action": f"talk with {other}"},
                   "reality": f'You say to {other}: "{text}"', "others": [_character_id(other)],
                   "observers": [LISTENER]}


def _character_id(name: str) -> str:
    return re.sub(r"[^a-z0-9_.-]+", "_", name.strip().lower()).strip("_") or "speaker"


def listener_config() -> CuratorConfig:
    config = CuratorConfig()
    return config.model_copy(update={"formation_thresholds": {k: 0.0 for k in config.formation_thresholds}})


@dataclass
class Played:
    """A conversation played into a scratch world, and its questions with evidence."""

    name: str
    world: Path
    questions: list[tuple[str, str, set[str]]]  # (category, question, evidence turn ids)


def load(path: str | Path) -> list[dict[str, Any]]:
    """LoCoMo conversations from a JSON file; InvalidInput if it is not that."""
    try:
        samples = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise InvalidInput(f"cannot read LoCoMo file {path}: {error}", field="path") from error
    if not isinstance(samples, list) or not all(isinstance(s, dict) and "conversation" in s for s in samples):
        raise InvalidInput(f"{path} is not LoCoMo data (a list of conversations)", field="path")
    return samples


def play(samples: list[dict[str, Any]], scratch: Path) -> list[Played]:
    """Each conversation played into its own world under `scratch` (see the module docstring)."""
    from curator import Curator

    played = []
    for index, sample in enumerate(samples):
        world = scratch / f"conversation-{index}.db"
        with Curator(world, config=listener_config(), model=None) as curator:
            for turn in conversation_turns(sample):
                curator.observe(turn)
        questions = [(CATEGORIES.get(int(qa.get("category", 0)), "other"), str(qa["question"]), evidence)
                     for qa in sample.get("qa", [])
                     if (evidence := set(evidence_ids(qa.get("evidence", []))))]
        played.append(Played(str(sample.get("sample_id", index)), world, questions))
    return played


Scores = list[tuple[str, dict[int, float]]]  # per question: its category, recall by k


def embed(conversation: Played, embedder: Embedder) -> int:
    """Embed the listener's memories of a played conversation (kept in its world: the scores
    after reuse them); how many were embedded."""
    from curator import Curator

    with Curator(conversation.world, config=listener_config(), model=None) as curator:
        curator.use_embedder(embedder)
        return curator.embed_pending().memories


def score(conversation: Played, ks: list[int], relevance: dict[str, float] | None = None, *,
          embedder: Embedder | None = None, semantic_weight: float | None = None) -> Scores:
    """Recall@k of each of a played conversation's questions, with the listener's memories
    ranked under `relevance` (RelevanceWeights fields; the defaults where None), and with
    `embedder`'s similarities fused at `semantic_weight` (the default where None)."""
    from curator import Curator

    config = listener_config()
    recall = config.recall
    if relevance:
        recall = recall.model_copy(update={"relevance": recall.relevance.model_copy(update=relevance)})
    if semantic_weight is not None:
        recall = recall.model_copy(update={"semantic_weight": semantic_weight})
    config = config.model_copy(update={"recall": recall})
    out: Scores = []
    with Curator(conversation.world, config=config, model=None) as curator:
        curator.use_embedder(embedder)
        for category, question, evidence in conversation.questions:
            ranked = [r.memory.source_turns for r in curator.search(LISTENER, question, limit=max(ks))]
            out.append((category, {k: recall_at_k(evidence, ranked, k) for k in ks}))
    return out


def summary(scores: Scores, ks: list[int]) -> dict[str, Any]:
    """Mean recall@k overall and by category (in LoCoMo's order)."""
    by_category: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for category, values in scores:
        for k in ks:
            by_category[category][k].append(values[k])
    return {
        "recall": {str(k): _mean([values[k] for _, values in scores]) for k in ks},
        "by_category": {name: {str(k): _mean(by_category[name][k]) for k in ks}
                        for name in CATEGORIES.values() if name in by_category},
    }


def _mean(values: list[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0
