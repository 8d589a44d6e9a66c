"""The README's examples run as written, and every command is documented there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

from curator.cli import cli

README = (ROOT / "README.md").read_text()


def test_python_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (block,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("[('bear', 'conflict')")
    assert printed[1].startswith("I meant to head to my favorite fishing spot, but Wolf")
    sentiment, bond = (float(x) for x in printed[2].split())
    assert sentiment < bond < 0  # as the comment says: sentiment fast, bond slow
    assert (tmp_path / "world.db").exists()


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_every_command_is_in_the_readme(name: str) -> None:
    assert f"curator {name}" in README
