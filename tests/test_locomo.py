"""The LoCoMo retrieval eval, scored on a tiny hand-made conversation in LoCoMo's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator.cli import cli
from curator.domain.errors import InvalidInput
from curator.evals.locomo import conversation_turns, evaluate, evidence_ids, recall_at_k

TINY = Path(__file__).parent / "fixtures" / "locomo_tiny.json"


@pytest.mark.parametrize(("raw", "ids"), [
    (["D1:3"], ["D1:3"]),
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),  # two ids in one string
    (["D:11:26"], ["D11:26"]),  # a stray colon
    (["D1:3", "D1:3"], ["D1:3"]),
    (["no turn", ""], []),  # names no turn: skipped
])
def test_malformed_evidence_ids_are_repaired(raw: list[str], ids: list[str]) -> None:
    assert evidence_ids(raw) == ids


def test_recall_at_k_is_the_share_of_evidence_among_the_sources() -> None:
    ranked = [["D1:1"], ["D2:5", "D2:6"], ["D3:1"]]
    assert recall_at_k({"D1:1", "D2:6"}, ranked, 1) == 0.5
    assert recall_at_k({"D1:1", "D2:6"}, ranked, 2) == 1.0
    assert recall_at_k({"D9:9"}, ranked, 3) == 0.0


def test_each_utterance_is_a_turn_at_its_session_date_with_captions() -> None:
    sample = json.loads(TINY.read_text())[0]
    turns = list(conversation_turns(sample))
    assert [t["id"] for t in turns][:2] == ["D1:1", "D1:2"] and len(turns) == 7
    assert turns[0]["actor"] == "ann" and turns[0]["observers"] == ["listener"]
    assert turns[0]["world_time"] == "2023-05-08T13:56:00Z"
    assert turns[4]["world_time"] == "2023-06-20T10:00:00Z"
    assert "[photo: a photo of a clay bowl on a wheel]" in turns[3]["reality"]


def test_eval_scores_the_tiny_conversation() -> None:
    result = evaluate(TINY, [1, 3, 10])
    assert set(result) == {"questions", "recall", "by_category"}
    assert result["questions"] == 4  # the question whose evidence names no turn is skipped
    # @1: the kitten's name (D1:1) and the marathon (D2:3) are found whole, the bowl half (D2:1
    # of D2:1 + D1:4), and "what does the kitten eat" brings up the turn that names the kitten
    # (D1:1), not the answer: (1 + 1 + .5 + 0) / 4. @3 finds every evidence turn.
    assert result["recall"] == {"1": 0.625, "3": 1.0, "10": 1.0}
    assert result["by_category"]["temporal"] == {"1": 1.0, "3": 1.0, "10": 1.0}
    assert result["by_category"]["multi-hop"]["1"] == 0.5
    assert "adversarial" not in result["by_category"]


def test_eval_cli_prints_exactly_the_documented_json() -> None:
    out = CliRunner().invoke(cli, ["eval", "locomo", str(TINY), "--k", "5,10", "--json"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert list(doc) == ["questions", "recall", "by_category"]
    assert list(doc["recall"]) == ["5", "10"]
    assert all(0.0 <= v <= 1.0 for cat in doc["by_category"].values() for v in cat.values())


def test_eval_cli_human_report_and_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["eval", "locomo", str(TINY), "--k", "1"])
    assert out.exit_code == 0 and "overall" in out.stdout and "@1  62.5" in out.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "locomo"}')
    out = runner.invoke(cli, ["eval", "locomo", str(bad)])
    assert out.exit_code == 2 and "not LoCoMo data" in out.stderr
    out = runner.invoke(cli, ["eval", "locomo", str(TINY), "--k", "five"])
    assert out.exit_code == 2
    with pytest.raises(InvalidInput):
        evaluate(bad, [5])
