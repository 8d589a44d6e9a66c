"""The house: packages by concept, layers kept by import-linter, no import cycles, small modules.

These guard the architecture the README's "Layout" section describes, so that a change which
imports across layers, closes an import cycle or grows a module past the guide fails here and
in CI (which also runs `lint-imports` on its own).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "curator"
MAX_MODULE_LINES = 400


def test_the_layer_contracts_hold() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    done = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def test_no_module_is_part_of_an_import_cycle() -> None:
    """Independent of import-linter: every import between curator's and the evals' modules,
    function-level imports included, forms no cycle."""
    graph = grimp.build_graph("curator", "evals")
    cycles = [(a, b) for a in graph.modules for b in graph.find_modules_directly_imported_by(a)
              if graph.find_shortest_chain(importer=b, imported=a) is not None]
    assert cycles == []


def test_the_folder_listing_is_the_architecture() -> None:
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    assert len(entries - {"__init__.py", "__main__.py", "py.typed"}) <= 12, sorted(entries)
    for package in (p for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()):
        doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text(encoding="utf-8")))
        assert doc and "May import" in doc, f"{package.name}/__init__.py must say what it owns and may import"


@pytest.mark.parametrize("module", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_module_owns_one_concept_and_stays_small(module: Path) -> None:
    text = module.read_text(encoding="utf-8")
    assert ast.get_docstring(ast.parse(text)), "each module starts with a docstring saying what it owns"
    assert len(text.splitlines()) <= MAX_MODULE_LINES


def test_the_public_api_is_importable_from_the_package() -> None:
    import curator

    missing = [name for name in curator.__all__ if not hasattr(curator, name)]
    assert missing == []
    assert {"Curator", "CuratorConfig", "CuratorError", "Turn", "TurnResult", "ModelSettings"} <= set(
        curator.__all__)
