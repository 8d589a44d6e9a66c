"""LoCoMo recall scored as it would be on conversations recall was not tuned on.

Relevance's cue weights (RelevanceWeights) could be fitted to the very conversations that
score them. So each is chosen by a rule, and the rule is scored leaving one conversation
out: for each conversation, every tuned weight is set, one at a time with the others at
their defaults, to the value among {off, default, double} that scores best (the mean of
recall@5 and recall@10) on the *other* conversations (a tie keeps the default), and the
weights so chosen are scored on the held-out conversation. That is the headline figure.
Beside it: the *fitted* figure (the same rule choosing on all conversations, scored on all)
and the *shipped* one (the defaults as they are). A weight whose fitted and held-out
figures part is one fitted to these conversations.

With an embedder, the questions are asked again with embeddings fused into relevance, and
the fused weight is chosen the same way among {off, half the default, the default, double}
(`embeddings`: held out, fitted, and every weight scored on all conversations); relevance's
cue weights stay at their defaults there.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from curator import CuratorConfig, Embedder, RelevanceWeights
from curator.evals.locomo import Played, Scores, embed, load, play, score, summary

TUNED = ("coverage", "window", "date", "when", "neighbour", "answer", "episode", "named", "cue")
OBJECTIVE_KS = (5, 10)  # what the choice maximises: the mean of recall@5 and recall@10
Progress = Callable[[str], None] | None


def evaluate(path: str | Path, ks: list[int], *, tune: bool = True, progress: Progress = None,
             embedder: Embedder | None = None, weights: list[float] | None = None) -> dict[str, Any]:
    """Play every conversation in `path` and score recall@k: with `tune`, the headline
    leave-one-conversation-out, the fitted and shipped figures beside it (module docstring);
    without, the shipped weights alone. With `embedder`, also with embeddings (`embeddings`),
    at each of `weights` (default: the candidates of the module docstring)."""
    samples = load(path)
    ks = sorted(set(ks))
    wanted = sorted({*ks, *OBJECTIVE_KS}) if tune else ks
    with tempfile.TemporaryDirectory(prefix="curator-locomo-") as scratch:
        played = play(samples, Path(scratch))
        _say(progress, f"played {len(played)} conversations")
        shipped = [score(c, wanted) for c in played]
        questions = sum(len(s) for s in shipped)
        result = ({"questions": questions, **summary(_flat(shipped), ks)} if not tune
                  else {"questions": questions, **_tuned(played, shipped, wanted, ks, progress)})
        if embedder is not None:
            result["embeddings"] = _with_embeddings(played, shipped, wanted, ks, embedder, weights, progress)
        return result


def _with_embeddings(played: list[Played], shipped: list[Scores], wanted: list[int], ks: list[int],
                     embedder: Embedder, weights: list[float] | None, progress: Progress) -> dict[str, Any]:
    """Recall with embeddings fused at each candidate weight, and the weight chosen leaving one
    conversation out (weight 0 is words alone: the shipped scores)."""
    started = time.perf_counter()
    memories = sum(embed(c, embedder) for c in played)
    seconds = time.perf_counter() - started
    _say(progress, f"embedded {memories} memories in {seconds:.1f} s")
    default = CuratorConfig().recall.semantic_weight
    candidates = sorted(set(weights)) if weights else sorted({0.0, default / 2, default, 2 * default})
    trials = {w: shipped if w == 0 else [score(c, wanted, embedder=embedder, semantic_weight=w)
                                         for c in played]
              for w in candidates}
    out: dict[str, Any] = {
        "embedder": embedder.name, "memories": memories, "embed_seconds": round(seconds, 2),
        "by_weight": [{"weight": w, **summary(_flat(trials[w]), ks)} for w in candidates]}
    if len(candidates) > 1 and len(played) > 1:
        keep = default if default in trials else candidates[0]
        everyone = list(range(len(played)))
        chosen = {c.name: _best_weight(trials, keep, [j for j in everyone if j != i])
                  for i, c in enumerate(played)}
        held_out = [item for i, c in enumerate(played) for item in trials[chosen[c.name]][i]]
        fitted = _best_weight(trials, keep, everyone)
        out.update({**summary(held_out, ks),
                    "fitted": {"weight": fitted, **summary(_flat(trials[fitted]), ks)},
                    "weights": {"held_out": chosen}})
    return out


def _best_weight(trials: dict[float, list[Scores]], keep: float, conversations: list[int]) -> float:
    """The weight that scores best on `conversations`; a tie keeps `keep`."""
    best, best_weight = _objective([trials[keep][j] for j in conversations]), keep
    for weight, runs in trials.items():
        got = _objective([runs[j] for j in conversations])
        if got > best + 1e-9:
            best, best_weight = got, weight
    return best_weight


def _tuned(played: list[Played], shipped: list[Scores], wanted: list[int], ks: list[int],
           progress: Progress) -> dict[str, Any]:
    defaults = RelevanceWeights().model_dump()
    # Every candidate value of every tuned weight, scored on every conversation.
    trials: dict[tuple[str, float], list[Scores]] = {}
    for name in TUNED:
        for value in _candidates(defaults[name]):
            trials[(name, value)] = ([score(c, wanted, {name: value}) for c in played]
                                     if value != defaults[name] else shipped)
        _say(progress, f"tried {name}")
    everyone = list(range(len(played)))
    held_out: dict[str, dict[str, float]] = {}
    loo: Scores = []
    for i, conversation in enumerate(played):
        chosen = _choose(trials, defaults, [j for j in everyone if j != i])
        held_out[conversation.name] = chosen
        loo += _score_with(conversation, i, chosen, defaults, shipped, wanted)
        _say(progress, f"held out {conversation.name}")
    fitted_weights = _choose(trials, defaults, everyone)
    fitted: Scores = []
    for i, conversation in enumerate(played):
        fitted += _score_with(conversation, i, fitted_weights, defaults, shipped, wanted)
    return {**summary(loo, ks),
            "fitted": summary(fitted, ks),
            "shipped": summary(_flat(shipped), ks),
            "weights": {"shipped": {n: defaults[n] for n in TUNED}, "fitted": fitted_weights,
                        "held_out": held_out}}


def _candidates(default: float) -> list[float]:
    """Off, the default, double it."""
    return sorted({0.0, default, round(2 * default, 4)})


def _choose(trials: dict[tuple[str, float], list[Scores]], defaults: dict[str, Any],
            conversations: list[int]) -> dict[str, float]:
    """Each tuned weight's best value on `conversations` (others at their defaults); a tie,
    or no conversation to choose on, keeps the default."""
    chosen = {}
    for name in TUNED:
        best_value = defaults[name]
        best = _objective([trials[(name, best_value)][j] for j in conversations])
        for (trial, value), runs in trials.items():
            if trial == name and value != defaults[name]:
                got = _objective([runs[j] for j in conversations])
                if got > best + 1e-9:
                    best, best_value = got, value
        chosen[name] = float(best_value)
    return chosen


def _objective(runs: list[Scores]) -> float:
    values = [sum(v[k] for k in OBJECTIVE_KS) / len(OBJECTIVE_KS) for run in runs for _, v in run]
    return sum(values) / len(values) if values else 0.0


def _score_with(conversation: Played, index: int, chosen: dict[str, float], defaults: dict[str, Any],
                shipped: list[Scores], wanted: list[int]) -> Scores:
    changed = {n: v for n, v in chosen.items() if v != defaults[n]}
    return score(conversation, wanted, changed) if changed else shipped[index]


def _flat(runs: list[Scores]) -> Scores:
    return [item for run in runs for item in run]


def _say(progress: Progress, line: str) -> None:
    if progress is not None:
        progress(line)
