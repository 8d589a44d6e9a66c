"""Prompts: the Jinja environment, template loading, rendering and hashing for `prompts/*.j2`.

This module owns how a step's template becomes text: where the templates live (inside the
installed package, else the checkout's top-level `prompts/`), the strict environment that
renders them (a missing variable is an error, never an empty string), the filters they use,
each template's hash (recorded fixtures are keyed by it) and its header comment
(`purpose:`, `inputs:`, `output:`). A step's template has two blocks: `system` (its
instructions and examples, rendered with no inputs, so it is the same on every call and a
prompt cache reuses it) and `user` (the case at hand); a template may `{% extends %}` another
and keep its user block (interpret_full.j2 asks more of the same case). It knows nothing of
SQL and never talks to a model.
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

import jinja2
import jinja2.meta
from pydantic import BaseModel

from curator.domain.models import display_name, significance_band

# Game text (reality, thoughts, memories, summaries, personas) is shown to a model only
# inside <game_text>…</game_text>. A delimiter inside the text itself would let the game
# text end its own block early, so such tags are neutralised before rendering.
DATA_TAG = "game_text"
_DELIMITER = re.compile(r"<\s*/?\s*" + DATA_TAG + r"[^>]*>?", re.IGNORECASE)
_HEADER_LINE = re.compile(r"^\s*([a-z_]+)\s*:(.*)$", re.MULTILINE)
_EXTENDS = re.compile(r"{%-?\s*extends\s+[\"']([^\"']+)[\"']")


class TemplatesNotFound(RuntimeError):
    """Neither the installed package nor the source checkout holds a prompts directory."""


def templates_dir() -> Path:
    """The directory holding the *.j2 templates: the package's copy, else the checkout's."""
    package = Path(__file__).resolve().parent.parent  # curator/, this file is curator/model/prompts.py
    packaged = package / "prompts"  # the wheel carries the templates here (pyproject.toml)
    checkout = package.parent / "prompts"
    for candidate in (packaged, checkout):
        if candidate.is_dir():
            return candidate
    raise TemplatesNotFound(
        f"curator's prompt templates are missing: looked in {packaged} (installed package) "
        f"and {checkout} (source checkout); reinstall curator or restore prompts/"
    )


def data_text(value: object) -> str:
    """Filter `data`: game text made safe to place inside a <game_text> block."""
    return _DELIMITER.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), str(value))


def character_name(value: object) -> str:
    """Filter `name`: a character id as memory text names it, 'old_oak' → 'Old Oak'."""
    return display_name(str(value))  # str() makes a missing variable fail loudly


def quoted_ids(values: list[str]) -> str:
    """Filter `ids`: ["bear", "wolf"] → '"bear", "wolf"', the exact ids a model must use."""
    return ", ".join(f'"{v}"' for v in values)


def signed(value: float) -> str:
    """Filter `signed`: 0.4 → '+0.40', for sentiments, bonds and valences."""
    return f"{float(value):+.2f}"


def clip(value: object, limit: int = 200) -> str:
    """Filter `clip`: text cut to about `limit` characters at a word, with '…' when cut, so
    one long memory or summary cannot crowd a small model's prompt."""
    text = " ".join(str(value).split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"


# `render_marked` wraps every value a template prints between these two characters, so the
# template's own words (its instructions) can be told from the values filled into them.
VALUE_START, VALUE_END = "\x1e", "\x1f"


def _marked(value: object) -> str:
    text = str(value).replace(VALUE_START, "").replace(VALUE_END, "")
    return f"{VALUE_START}{text}{VALUE_END}"


@cache
def environment(marked: bool = False) -> jinja2.Environment:
    """The one strict Jinja environment; built once, on first use (and its marked twin)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_marked if marked else None,
    )
    env.filters["data"] = data_text
    env.filters["ids"] = quoted_ids
    env.filters["name"] = character_name
    env.filters["signed"] = signed
    env.filters["clip"] = clip
    env.filters["significance_band"] = significance_band
    return env


def _source(template_name: str) -> tuple[str, Path]:
    env = environment()
    assert env.loader is not None
    source, filename, _ = env.loader.get_source(env, template_name)
    return source, Path(filename or template_name)


def render(template_name: str, inputs: BaseModel) -> str:
    """Render a template with the step's input model, dumped to plain JSON-like values: the
    system part and the user part, one after the other."""
    return "\n\n".join(render_parts(template_name, inputs))


def render_parts(template_name: str, inputs: BaseModel, *, marked: bool = False) -> tuple[str, str]:
    """The template's two blocks: `system` (the step's instructions, rendered with no inputs
    at all, so it is the same on every call and a prompt cache can reuse it) and `user` (the
    case at hand, rendered with the step's inputs). With `marked`, as `render_marked` does."""
    env = environment(marked)
    parts = []
    for block, values in (("system", {}), ("user", inputs.model_dump(mode="json"))):
        name = template_name
        while block not in env.get_template(name).blocks:
            parent = parent_of(name)
            if parent is None:
                raise ValueError(f"{template_name}: no {{% block {block} %}}")
            name = parent
        template = env.get_template(name)
        parts.append("".join(template.blocks[block](template.new_context(values))).strip())
    return parts[0], parts[1]


def parent_of(template_name: str) -> str | None:
    """The template `template_name` extends, if it extends one."""
    path = templates_dir() / template_name
    return _parent(path, path.stat().st_mtime_ns)


@cache
def _parent(path: Path, mtime_ns: int) -> str | None:
    # Asked on every model call (template_hash): read a file once per version of it.
    found = _EXTENDS.search(path.read_text(encoding="utf-8"))
    return found.group(1) if found else None


def render_marked(template_name: str, inputs: BaseModel) -> str:
    """`render`, with every printed value between VALUE_START and VALUE_END (nested when a
    macro prints values): what is left outside them is the template's own wording."""
    return "\n\n".join(render_parts(template_name, inputs, marked=True))


def template_hash(template_name: str) -> str:
    """The first 16 hex digits of the sha256 of the template file's bytes (and, for a template
    that extends another, of that one's hash too: a change to either changes what is sent)."""
    path = templates_dir() / template_name
    mtime_ns = path.stat().st_mtime_ns
    own = _file_hash(path, mtime_ns)
    parent = _parent(path, mtime_ns)
    if parent is None:
        return own
    return hashlib.sha256(f"{own}:{template_hash(parent)}".encode()).hexdigest()[:16]


@cache
def _file_hash(path: Path, mtime_ns: int) -> str:
    # Every model call names its template's hash; hash a file once per version of it.
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def header(template_name: str) -> dict[str, str]:
    """The `key: value` lines of the leading `{# … #}` comment: purpose, inputs, output."""
    source, _ = _source(template_name)
    if not source.lstrip().startswith("{#") or "#}" not in source:
        raise ValueError(f"{template_name}: no header comment ({{# purpose: … inputs: … #}})")
    comment = source.lstrip()[2:].split("#}", 1)[0]
    return {key.strip(): value.strip() for key, value in _HEADER_LINE.findall(comment)}


def declared_inputs(template_name: str) -> set[str]:
    """The variable names the template's header comment declares on its `inputs:` line."""
    names = header(template_name).get("inputs")
    if names is None:
        raise ValueError(f"{template_name}: the header comment has no 'inputs:' line")
    return {name.strip() for name in names.split(",") if name.strip()}


def used_variables(template_name: str) -> set[str]:
    """The top-level variables the template reads, as Jinja's parser finds them (with those of
    the template it extends)."""
    source, _ = _source(template_name)
    used = set(jinja2.meta.find_undeclared_variables(environment().parse(source)))
    parent = parent_of(template_name)
    return used if parent is None else used | used_variables(parent)
