"""What a new user meets first: `curator eval run` on a fresh checkout, and the install hints.

"curator" on the package index is someone else's project, so a hint that says
`pip install 'curator[report]'` installs the wrong thing; every hint names the checkout.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import ROOT

from curator import install_command
from curator.cli import cli
from curator.model import extras


@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_eval_run_with_no_arguments_exits_0_held_to_the_shipped_baseline(
        where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT if where == "checkout" else tmp_path)
    result = CliRunner().invoke(cli, ["eval", "run", "--json"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    shipped = json.loads((ROOT / "evals" / "baseline.json").read_text())["fallback"]["cases"]
    assert {c["name"] for c in report["cases"]} == set(shipped)
    for case in report["cases"]:  # at or above the baseline, so exit 0 is earned
        assert case["passed"] >= shipped[case["name"]]["passed"], case["name"]
    assert result.stderr.splitlines()[-1] == (
        f"baseline {ROOT / 'evals' / 'baseline.json'} (fallback): no case below it")


def test_eval_run_no_baseline_asks_every_expectation_to_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["eval", "run", "--json", "--no-baseline"])
    report = json.loads(result.stdout)
    assert result.exit_code == (1 if report["totals"]["failed"] else 0)
    assert "baseline" not in result.stderr


def test_eval_run_no_baseline_is_only_for_the_shipped_cases() -> None:
    case = str(ROOT / "evals" / "cases" / "001_conflict.yaml")
    result = CliRunner().invoke(cli, ["eval", "run", case, "--no-baseline"])
    assert result.exit_code == 2 and result.stderr.startswith("Error: --no-baseline is for")


def test_a_mode_the_baseline_has_no_entry_for_is_held_to_every_expectation(tmp_path: Path) -> None:
    from curator.cli.evals import shipped_baseline

    assert shipped_baseline("fallback") == ROOT / "evals" / "baseline.json"
    assert shipped_baseline("live") is None


def test_the_install_hint_names_this_checkout_and_its_extra() -> None:
    for extra in ("llm", "report"):
        command = install_command(extra)
        assert command == f"pip install -e '{ROOT}[{extra}]'"
        path = re.fullmatch(r"pip install -e '(.+)\[(\w+)\]'", command)
        assert path is not None
        project = tomllib.loads((Path(path.group(1)) / "pyproject.toml").read_text())["project"]
        assert project["name"] == "curator" and path.group(2) in project["optional-dependencies"]


def test_installed_away_from_a_checkout_the_hint_says_to_run_it_in_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(extras, "checkout", lambda: None)
    assert install_command("report") == "pip install '.[report]' in curator's checkout"


def test_no_hint_anywhere_says_curator_with_an_extra() -> None:
    """`curator[llm]` and `curator[report]` would come from the package index: the wrong project."""
    wrong = re.compile(r"install\s+'?curator\[")
    files = [ROOT / "README.md", *(ROOT / "curator").rglob("*.py"), *(ROOT / "curator").rglob("*.j2"),
             *(ROOT / "evals").glob("*.md"), *(ROOT / "scripts").glob("*")]
    found = [str(f.relative_to(ROOT)) for f in files if f.is_file() and wrong.search(f.read_text())]
    assert found == []
