"""Importing curator (and running its CLI) never loads a model client.

Each check runs in a fresh interpreter, because this test process may already have imported
anything. Stub `litellm`, `instructor` and `openai` packages are put first on the path, so an
import of one would succeed (and be seen in sys.modules) even where the real package is not
installed, instead of failing quietly inside a `try: import …`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import curator

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("litellm", "instructor", "openai")
MARKER = "HEAVY-MODULES:"

REPORT = (
    "import json, sys\n"
    f"heavy = sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})\n"
    f"print({MARKER!r} + json.dumps(heavy))\n"
)


@pytest.fixture
def stub_path(tmp_path: Path) -> Path:
    for name in HEAVY:
        package = tmp_path / name
        package.mkdir()
        (package / "__init__.py").write_text("LOADED = True\n", encoding="utf-8")
    return tmp_path


def _run(code: str, stub_path: Path) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(stub_path), str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("CURATOR_DB", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=stub_path, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith(MARKER)]
    assert len(lines) == 1, (done.returncode, done.stdout, done.stderr)
    return done, json.loads(lines[0][len(MARKER):])


def test_stubs_are_importable(stub_path: Path) -> None:
    """Guard for the tests below: a real import of a stub does show up."""
    _, heavy = _run("import litellm, openai, instructor\n" + REPORT, stub_path)
    assert heavy == sorted(HEAVY)


def test_import_curator_loads_no_model_client(stub_path: Path) -> None:
    code = ("import curator, curator.cli\n"
            "from curator import Curator\n"
            "with Curator(':memory:') as world:\n"
            "    world.observe({'id': 't1', 'world_time': '2025-01-02T08:00:00Z', 'actor': 'bear',"
            " 'intent': {'thought': 'fish', 'action': 'Head to the river'},"
            " 'reality': 'Wolf blocks your path.', 'others': ['wolf'], 'observers': []})\n"
            + REPORT)
    done, heavy = _run(code, stub_path)
    assert done.returncode == 0, done.stderr
    assert heavy == []


def test_cli_help_loads_no_model_client(stub_path: Path) -> None:
    code = ("import sys\n"
            "from curator.cli import cli\n"
            "sys.argv = ['curator', '--help']\n"
            "try:\n"
            "    cli()\n"
            "except SystemExit as exit:\n"
            "    assert exit.code in (0, None), exit.code\n"
            + REPORT)
    done, heavy = _run(code, stub_path)
    assert done.returncode == 0, done.stderr
    assert heavy == []
    assert "Usage: curator" in done.stdout
    assert "memories for game characters" in done.stdout
    for command in ("play", "observe", "show", "fade", "export", "import"):
        assert command in done.stdout
    assert done.stderr == ""


def test_python_dash_m_curator_is_the_same_command_line() -> None:
    done = subprocess.run([sys.executable, "-m", "curator", "goal", "--help"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage: curator goal")


def test_installed_console_script_help() -> None:
    script = Path(sys.executable).with_name("curator")
    if not script.exists():
        pytest.skip("no curator console script next to this interpreter")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert "Usage: curator" in done.stdout


def test_version_and_py_typed() -> None:
    assert isinstance(curator.__version__, str) and curator.__version__
    assert curator.__version__[0].isdigit()
    package = Path(curator.__file__).resolve().parent
    assert (package / "py.typed").is_file()
