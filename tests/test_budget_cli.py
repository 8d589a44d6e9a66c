"""`curator budget` and `curator spend` as a designer uses them: budgets set on a world, a play
against a model that switches to the fallback where the budget says, the reason in `curator
calls` and in play's summary, and a spend table that adds up to the call log. The model is the
local stub server with a *scripted* answerer (nothing worth remembering in any turn)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from conftest import TRANSCRIPT

from curator.cli import cli


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.output, result.stderr)
    return result


def as_json(result: Result) -> Any:
    return json.loads(ok(result).stdout)


def one_line_error(result: Result, *needles: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: "), result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    return result.stderr


def calm(body: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any]:
    """Scripted: the model finds nothing worth remembering in any turn (interpret only)."""
    assert headers["x-curator-template"].startswith("interpret.j2@")
    user = body["messages"][-1]["content"]
    happened = user.rsplit("<game_text>", 1)[1].split("</game_text>", 1)[0]
    return {"harm": False, "danger": False, "significance": "trivial", "emotion": "calm",
            "memory": " ".join(happened.split()[:12])}


def test_budgets_are_set_shown_and_cleared(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    assert ok(run("budget", "set", "Bear", "--use", "significant", "--min-significance", "major",
                  "--tokens-per-day", "20000", "--usd-per-day", "0.05", "--db", db)).output == (
        "Budget for bear: significant (major and above), 20,000 tokens/day, $0.05/day\n")
    assert as_json(run("budget", "group", "birds", "owl", "Crow", "--db", db, "--json")) == {
        "group": "birds", "members": ["owl", "crow"]}
    ok(run("budget", "set", "--group", "birds", "--use", "never", "--db", db))
    shown = as_json(run("budget", "show", "--db", db, "--json"))
    assert shown["characters"]["bear"]["tokens_per_day"] == 20000
    assert shown["groups"] == [{"name": "birds", "members": ["crow", "owl"],
                                "setting": {"use": "never", "min_significance": "notable",
                                            "tokens_per_day": None, "usd_per_day": None}}]
    assert ok(run("budget", "show", "owl", "--db", db)).output == "owl: never (group birds)\n"
    assert as_json(run("budget", "show", "fox", "--db", db, "--json"))["source"] == "default"
    assert "cleared" in ok(run("budget", "clear", "--group", "birds", "--db", db)).output
    assert as_json(run("budget", "show", "owl", "--db", db, "--json"))["source"] == "default"
    text = ok(run("budget", "show", "--db", db)).output
    assert "group birds (crow, owl): no setting" in text and "Everyone else: always" in text


@pytest.mark.parametrize(("args", "needle"), [
    (("budget", "set", "bear", "--use", "sometimes"), "--use"),
    (("budget", "set", "bear", "--tokens-per-day", "0"), "--tokens-per-day"),
    (("budget", "set", "bear", "--tokens-per-day", "lots"), "--tokens-per-day"),
    (("budget", "set", "bear", "--usd-per-day", "-1"), "--usd-per-day"),
    (("budget", "set", "--use", "never"), "name a character or a group"),
    (("budget", "set", "bear", "--group", "birds"), "name a character or a group"),
    (("budget", "set", "--group", "two words"), "group name"),
    (("budget", "set", "bear", "--min-significance", "huge"), "--min-significance"),
    (("spend", "--day", "tomorrow"), "YYYY-MM-DD"),
])
def test_bad_settings_are_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...], needle: str) -> None:
    db = str(tmp_path / "w.db")
    assert "had no budget" in ok(run("budget", "clear", "nobody", "--db", db)).output  # makes the world
    one_line_error(run(*args, "--db", db), needle)
    assert as_json(run("budget", "show", "--db", db, "--json")) == {"characters": {}, "groups": []}


def test_a_character_in_two_groups_is_refused(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    ok(run("budget", "group", "birds", "owl", "--db", db))
    one_line_error(run("budget", "group", "night", "owl", "--db", db), "already in the budget group 'birds'")
    assert as_json(run("budget", "show", "--db", db, "--json"))["groups"][0]["members"] == ["owl"]


def test_play_spends_to_the_budget_and_the_spend_table_adds_up(tmp_path: Path) -> None:
    from curator.model.llm import release_connections
    from curator.model.stub_server import StubModelServer

    db = str(tmp_path / "w.db")
    ok(run("budget", "set", "bear", "--tokens-per-day", "1", "--db", db))  # one call a game day
    ok(run("budget", "group", "birds", "owl", "--db", db))
    ok(run("budget", "set", "--group", "birds", "--use", "never", "--db", db))
    again = str(tmp_path / "again.db")
    ok(run("budget", "set", "bear", "--tokens-per-day", "1", "--db", again))
    with StubModelServer(calm) as stub:
        model = ("--model", "openai/stub", "--api-base", stub.url)
        summary = as_json(run("play", str(TRANSCRIPT), "--db", db, *model, "--json"))
        received = len(stub.received)
        text = ok(run("play", str(TRANSCRIPT), "--db", again, *model)).output
    release_connections()
    reasons = summary["fallbacks_by_reason"]
    turns = [json.loads(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    bear_days = {t["world_time"][:10] for t in turns if "bear" in (t["actor"], *t.get("observers", []))}
    bear_turns = sum(1 for t in turns if "bear" in (t["actor"], *t.get("observers", [])))
    owl_turns = sum(1 for t in turns if "owl" in (t["actor"], *t.get("observers", [])))
    (decisions,) = [line for line in text.splitlines() if line.startswith("Decisions:")]
    assert f"{reasons['budget spent']} (budget spent)" in decisions and "budget: never" not in decisions
    logged = as_json(run("calls", "--db", db, "--limit", "1000", "--json"))
    calls = logged["calls"]

    def interprets(who: str, reason: str | None) -> int:
        return sum(1 for c in calls if c["character"] == who and c["step"] == "interpret"
                   and c["reason"] == reason)
    # Bear: the first interpret call of each game day, then the fallback until the next day
    assert interprets("bear", None) == len(bear_days)
    assert interprets("bear", "budget spent") == bear_turns - len(bear_days)
    assert interprets("owl", "budget: never") == owl_turns and interprets("owl", None) == 0
    # Play's summary counts every step the budget sent to the fallback (the rules' memories
    # that Bear formed instead trigger reviews of their own, held back as well)
    held_back = [c for c in calls if c["reason"] in ("budget spent", "budget: never")]
    assert reasons["budget spent"] + reasons["budget: never"] == len(held_back)
    assert reasons["budget spent"] >= bear_turns - len(bear_days)
    # Every perceiver's interpret step was either sent to the stub or held back by a budget
    perceptions = sum(len({t["actor"], *t.get("observers", [])}) for t in turns)
    assert received == perceptions - interprets("bear", "budget spent") - owl_turns
    # Play's model calls are the requests made; the held-back steps are counted beside them
    assert (summary["model_calls"], summary["held_by_budget"]) == (received, len(held_back))
    (line,) = [line for line in text.splitlines() if line.startswith("Model openai/stub:")]
    assert line.endswith("steps held back by budgets")
    held = ok(run("calls", "--db", db, "--character", "bear", "--outcome", "fallback", "--limit", "3")).output
    assert held.count("fallback (budget spent), 0 attempt(s), no tokens") == 3
    spend = as_json(run("spend", "--db", db, "--json"))
    assert spend["totals"]["prompt_tokens"] == logged["totals"]["prompt_tokens"]
    assert spend["totals"]["completion_tokens"] == logged["totals"]["completion_tokens"]
    assert spend["totals"]["calls"] + spend["totals"]["budget_fallbacks"] == len(calls)
    bear = [r for r in spend["rows"] if r["character"] == "bear"]
    assert {r["day"] for r in bear} == bear_days and all(r["calls"] == 1 for r in bear)
    day = sorted(bear_days)[0]
    table = ok(run("spend", "--db", db, "--day", day, "--character", "bear")).output.splitlines()
    assert table[0].split()[:3] == ["game", "day", "character"] and table[-1].startswith("total")
    (row,) = [r for r in bear if r["day"] == day]
    assert table[1].split() == [day, "bear", "1", "1", f"{row['prompt_tokens']:,}",
                                f"{row['completion_tokens']:,}", "-", "+", "1", "unpriced",
                                str(row["budget_fallbacks"])]
    # the stub has no price litellm knows: its call is said to be unpriced, not hidden in a $0
    assert row["unpriced"] == 1 and row["cost"] is None
    assert spend["totals"]["unpriced"] == sum(1 for c in calls if c["prompt_tokens"] is not None)


def test_the_readme_example_prints_what_its_comments_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import re

    from conftest import ROOT

    readme = (ROOT / "README.md").read_text()
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S) if "set_budget(" in b]
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    shown = [line.rsplit("  # ", 1)[1].split(":")[0].strip()
             for line in block.splitlines() if "print(" in line]
    assert capsys.readouterr().out.splitlines() == shown
