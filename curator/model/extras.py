"""How to install one of curator's extras (`llm`, `report`) for the curator that is running.

"curator" on the package index is someone else's project, so asking pip for curator with an
extra by that name would install the wrong thing: an extra comes from curator's own source. Running from a
checkout (an editable install, or PYTHONPATH), the command names that checkout; installed
from one into site-packages, only its owner knows where the checkout is, so the command says
to run it there.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path


def checkout() -> Path | None:
    """The source checkout this curator runs from (its pyproject.toml names it), else None."""
    root = Path(__file__).resolve().parents[2]  # curator/model/extras.py
    try:
        text = (root / "pyproject.toml").read_text(encoding="utf-8")
    except OSError:
        return None
    return root if re.search(r'^name = "curator"$', text, flags=re.M) else None


def install_command(extra: str) -> str:
    """The pip command that installs `extra` for this curator, to put in a hint."""
    root = checkout()
    if root is None:
        return f"pip install '.[{extra}]' in curator's checkout"
    return f"pip install -e {shlex.quote(f'{root}[{extra}]')}"
