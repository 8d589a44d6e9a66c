"""Smoke test of the observe benchmark (evals/bench.py): it runs and reports sane figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator import Curator
from evals.bench import bench_observe, main
from evals.synthetic import synthetic_turns

KEYS = {"turns", "characters", "window", "p50_ms", "p95_ms", "p99_ms", "max_ms", "first_p50_ms",
        "first_p95_ms", "last_p50_ms", "last_p95_ms", "growth_ratio", "throughput_tps", "db_mb",
        "memories_formed", "memories_archived", "memories_forgotten", "targets"}


def test_bench_observe_reports_sane_figures() -> None:
    report = bench_observe(turns=200, characters=10)
    assert report.keys() >= KEYS
    assert report["turns"] == 200
    assert report["characters"] == 10
    assert 0 < report["p50_ms"] <= report["p95_ms"] <= report["p99_ms"] <= report["max_ms"]
    assert report["db_mb"] > 0
    assert report["throughput_tps"] > 0
    assert report["memories_formed"] > 0
    assert report["memories_archived"] >= 0
    assert set(report["targets"]) == {"p50_ms", "p95_ms", "growth_ratio"}
    assert all(isinstance(t["met"], bool) for t in report["targets"].values())


def test_synthetic_session_is_deterministic_and_valid() -> None:
    first, second = synthetic_turns(300, 10), synthetic_turns(300, 10)
    assert first == second
    times = [t["world_time"] for t in first]
    assert times == sorted(times)
    for turn in first:
        assert turn["actor"] not in turn["others"] + turn["observers"]
        assert len(set(turn["observers"])) == len(turn["observers"]) <= 2
        assert len(turn["others"]) <= 2


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["observe", "--turns", "50", "--characters", "5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report.keys() >= KEYS
    assert report["turns"] == 50


def test_bench_llm_pieces_report_sane_figures() -> None:
    from evals.bench_llm import batch_figures, transcript_figures

    figures = transcript_figures()
    assert figures["turns"] == 50 and figures["character_turns"] == 67
    assert figures["calls"] >= figures["character_turns"] and figures["fallbacks"] == 0
    assert figures["interpret_calls_per_character_turn"] == 1.0
    assert 0 < figures["mean_round_trip_ms"] < figures["mean_call_ms"]
    assert 100 < figures["mean_prompt_tokens"] <= figures["max_prompt_tokens"]
    batch = batch_figures(latency=0.05, characters=10)
    assert batch["sync_calls"] == batch["async_calls"] == 10 == batch["sync_by_model"]
    assert batch["sync_wall_s"] >= 0.05 and batch["async_wall_s"] >= 0.05


def test_bench_replace_runs_on_a_copy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    world = tmp_path / "world.db"
    with Curator(world) as curator:
        curator.observe_many(synthetic_turns(300, 30))
        before = curator.export_world()
    assert main(["replace", str(world), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["replace_characters"] == 1  # every 100th of 30: the first
    assert report["replace_longest_write_ms"] > 0 and len(report["load"]) == 3
    with Curator(world) as curator:
        assert curator.export_world() == before  # the copy was replaced, not the file
