"""The LoCoMo retrieval eval, scored on a tiny hand-made conversation in LoCoMo's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from curator.cli import cli
from curator.domain.errors import InvalidInput
from curator.evals.locomo import conversation_turns, evidence_ids, recall_at_k, turn_id
from curator.evals.locomo_tuning import TUNED, evaluate

TINY = Path(__file__).parent / "fixtures" / "locomo_tiny.json"


@pytest.mark.parametrize(("raw", "ids"), [
    (["D1:3"], ["D1:3"]),
    (["D8:6; D9:17"], ["D8:6", "D9:17"]),  # two ids in one string
    (["D:11:26"], ["D11:26"]),  # a stray colon
    (["D1:3", "D1:3"], ["D1:3"]),
    (["D30:05"], ["D30:5"]),  # a leading zero: turn ids have none
    (["D30:05", "D30:5", "D:030:5"], ["D30:5"]),
    (["no turn", ""], []),  # names no turn: skipped
])
def test_malformed_evidence_ids_are_repaired(raw: list[str], ids: list[str]) -> None:
    assert evidence_ids(raw) == ids


def test_turn_ids_are_spelled_one_way() -> None:
    assert turn_id("D30:05") == turn_id("D30:5") == turn_id("D:30:5") == "D30:5"
    assert turn_id("x") == "x"


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
    result = evaluate(TINY, [1, 3, 10], tune=False)
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
    out = CliRunner().invoke(cli, ["eval", "locomo", str(TINY), "--k", "5,10", "--json", "--no-tune"])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert list(doc) == ["questions", "recall", "by_category"]
    assert list(doc["recall"]) == ["5", "10"]
    assert all(0.0 <= v <= 1.0 for cat in doc["by_category"].values() for v in cat.values())


def test_eval_cli_human_report_and_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["eval", "locomo", str(TINY), "--k", "1", "--no-tune"])
    assert out.exit_code == 0 and "overall" in out.stdout and "@1  62.5" in out.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "locomo"}')
    out = runner.invoke(cli, ["eval", "locomo", str(bad)])
    assert out.exit_code == 2 and "not LoCoMo data" in out.stderr
    out = runner.invoke(cli, ["eval", "locomo", str(TINY), "--k", "five"])
    assert out.exit_code == 2
    with pytest.raises(InvalidInput):
        evaluate(bad, [5])


def _two_conversations(tmp_path: Path) -> Path:
    """The tiny conversation and a second one in its shape (other people, other words)."""
    first = json.loads(TINY.read_text())[0]
    second = json.loads(json.dumps(first).replace("Ann", "Cy").replace("Bo", "Di")
                        .replace("Pebble", "Mochi").replace("marathon", "triathlon"))
    second["sample_id"] = "tiny-2"
    path = tmp_path / "two.json"
    path.write_text(json.dumps([first, second]))
    return path


def test_the_headline_leaves_one_conversation_out_with_fitted_and_shipped_beside_it(tmp_path: Path) -> None:
    path = _two_conversations(tmp_path)
    result = evaluate(path, [1, 3])
    assert list(result) == ["questions", "recall", "by_category", "fitted", "shipped", "weights"]
    assert result["questions"] == 8
    shipped = evaluate(path, [1, 3], tune=False)
    assert result["shipped"] == {"recall": shipped["recall"], "by_category": shipped["by_category"]}
    weights = result["weights"]
    assert set(weights["held_out"]) == {"tiny-1", "tiny-2"} and set(weights["fitted"]) == set(TUNED)
    for chosen in (weights["fitted"], *weights["held_out"].values()):
        for name, value in chosen.items():  # each weight: off, as shipped, or doubled
            assert value in (0.0, weights["shipped"][name], round(2 * weights["shipped"][name], 4))
    # Where each held-out choice keeps the shipped weights, held-out and shipped agree.
    if all(chosen == weights["shipped"] for chosen in weights["held_out"].values()):
        assert result["recall"] == result["shipped"]["recall"]


def test_one_conversation_has_nothing_to_choose_on_so_held_out_is_shipped() -> None:
    result = evaluate(TINY, [1, 3])
    assert result["weights"]["held_out"]["tiny-1"] == result["weights"]["shipped"]
    assert result["recall"] == result["shipped"]["recall"] == {"1": 0.625, "3": 1.0}


def test_eval_cli_reports_held_out_fitted_and_shipped(tmp_path: Path) -> None:
    out = CliRunner().invoke(cli, ["eval", "locomo", str(_two_conversations(tmp_path)), "--k", "1,3"])
    assert out.exit_code == 0, out.output
    header, overall = out.stdout.splitlines()[1:3]
    assert header.split() == ["held-out", "fitted", "shipped"]
    assert overall.split()[0] == "overall" and overall.count("@1") == 3


def test_each_weight_is_chosen_on_the_other_conversations_and_a_tie_keeps_the_default() -> None:
    from curator.evals.locomo_tuning import _choose

    defaults = {name: 1.0 for name in TUNED}

    def run(value: float) -> list[tuple[str, dict[int, float]]]:
        return [("temporal", {5: value, 10: value})]

    # Doubling `date` helps conversation 0 and hurts 1; turning `named` off helps both; the
    # rest score the same whatever their value.
    trials = {(name, value): [run(0.5), run(0.5)] for name in TUNED for value in (0.0, 1.0, 2.0)}
    trials[("date", 2.0)] = [run(0.9), run(0.1)]
    trials[("named", 0.0)] = [run(0.6), run(0.7)]
    on_0, on_1 = _choose(trials, defaults, [0]), _choose(trials, defaults, [1])
    assert (on_0["date"], on_1["date"]) == (2.0, 1.0)
    assert on_0["named"] == on_1["named"] == 0.0
    assert all(on_0[n] == 1.0 for n in TUNED if n not in ("date", "named"))
    assert _choose(trials, defaults, []) == defaults
