"""The eval report: one self-contained HTML page (and the JSON behind it) for a run.

`write_report(report, directory)` writes `report.json` (the `RunReport`, series included)
and `index.html` from `curator/templates/eval_report.html.j2`: the totals and how many steps a
model and the fallback decided, then per case its expectations with their reasons, its figures
(its steps by a model and by the fallback among them), and plots where people would rather look
than read: sentiment and bond over the turns per relationship, memories per tier over the
turns, the strength of memories over game time, which steps a model or a fallback
decided and, after `evolve` actions, attributes over the turns (small multiples per character)
and a table of the personality drifts with their reasons. Plots are SVG drawn by matplotlib
(the `report` extra) and inlined, so the page opens in a browser with no server and no
network. Without matplotlib the page still has every table, and says how to get the plots.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from curator import install_command
from curator.evals.runner import CaseResult, RunReport, Series, StepCounts

TEMPLATES = Path(__file__).parent / "templates"
MAX_LINES = 8  # relationships or characters per plot: more lines make a plot unreadable
MAX_ATTRIBUTE_PANELS = 6  # characters in the attributes plot (the ones whose attributes moved most)
MAX_STRENGTH_LINES = 60  # memories drawn in the strength plot (the most important first)
_SOURCES = {"model": 2, "fallback": 1}


def write_report(report: RunReport, directory: Path) -> Path:
    """Write index.html and report.json into `directory` (created); returns the HTML path."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "report.json").write_text(json.dumps(report.model_dump(mode="json"), indent=1) + "\n")
    html = render_report(report)
    path = directory / "index.html"
    path.write_text(html, encoding="utf-8")
    return path


def render_report(report: RunReport) -> str:
    plotting = _pyplot()
    cases = [{"result": case, "plots": _plots(case.series, plotting) if plotting and case.series else []}
             for case in report.cases]
    env = Environment(loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined,
                      autoescape=select_autoescape(["html", "j2"]), keep_trailing_newline=True)
    return env.get_template("eval_report.html.j2").render(
        report=report, totals=report.totals, cases=cases, plots_available=plotting is not None,
        anchor=case_anchor, steps_line=steps_line, install_report=install_command("report"))


def steps_line(steps: StepCounts) -> str:
    """`N by a model, M by the fallback (P% model)`; no share when no step ran."""
    share = steps.model_share
    return (f"{steps.model} by a model, {steps.fallback} by the fallback"
            + (f" ({100 * share:.1f}% model)" if share is not None else ""))


def _pyplot() -> Any | None:
    """matplotlib's pyplot on a file-only backend, or None when the extra is not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "figure.dpi": 96})
    return plt


def _plots(series: Series, plt: Any) -> list[dict[str, str]]:
    makers: list[tuple[str, Callable[[Series, Any], Any | None]]] = [
        ("Sentiment (solid) and bond (dashed) over the turns", _feelings),
        ("Memories per tier over the turns", _tiers),
        ("Strength of memories over game time", _strengths),
        ("Which steps a model or a fallback decided", _deciders),
        ("Attributes over the turns", _attributes),
    ]
    out = []
    for title, make in makers:
        figure = make(series, plt)
        if figure is not None:
            out.append({"title": title, "svg": _svg(figure, plt)})
    return out


def _svg(figure: Any, plt: Any) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight")
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # drop the XML prolog and doctype: the SVG sits inside HTML


def _ticks(ax: Any, points: list[str], most: int = 12) -> None:
    step = max(1, -(-len(points) // most))
    ax.set_xticks(range(0, len(points), step))
    ax.set_xticklabels(points[::step], rotation=45, ha="right")
    ax.grid(alpha=0.3)


def _feelings(series: Series, plt: Any) -> Any | None:
    lines = [r for r in series.relationships if any(v is not None for v in r.sentiment)]
    if not lines:
        return None
    # The relationships that moved most are the ones worth a line.
    def spread(values: list[float | None]) -> float:
        known = [v for v in values if v is not None]
        return max(known) - min(known) if known else 0.0
    lines.sort(key=lambda r: -(spread(r.sentiment) + spread(r.bond)))
    figure, ax = plt.subplots(figsize=(9, 3.4))
    x = list(range(len(series.points)))
    for i, rel in enumerate(lines[:MAX_LINES]):
        colour = f"C{i % 10}"
        ax.plot(x, [float("nan") if v is None else v for v in rel.sentiment], color=colour,
                label=f"{rel.owner} → {rel.other}")
        ax.plot(x, [float("nan") if v is None else v for v in rel.bond], color=colour, linestyle="--")
    ax.set_ylim(-1.05, 1.05)
    ax.axhline(0, color="grey", linewidth=0.6)
    _ticks(ax, series.points)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    return figure


def _tiers(series: Series, plt: Any) -> Any | None:
    if not series.tiers:
        return None
    busiest = sorted(series.tiers, key=lambda c: -sum(sum(v) for v in series.tiers[c].values()))
    shown = busiest[:MAX_LINES]
    figure, axes = plt.subplots(1, len(shown), figsize=(min(2.6 * len(shown) + 1, 13), 2.8),
                                sharey=True, squeeze=False)
    x = list(range(len(series.points)))
    for ax, character in zip(axes[0], shown, strict=True):
        counts = series.tiers[character]
        tiers = [t for t in ("recent", "core", "archived") if t in counts]
        ax.stackplot(x, *[counts[t] for t in tiers], labels=tiers, alpha=0.8)
        ax.set_title(character)
        _ticks(ax, series.points, most=3 if len(shown) > 2 else 8)
    axes[0][0].legend(loc="upper left", fontsize=8, frameon=False)
    return figure


def _strengths(series: Series, plt: Any) -> Any | None:
    memories = [m for m in series.memories if len(m.times) > 1]
    if not memories:
        return None
    memories = memories[:MAX_STRENGTH_LINES]
    figure, ax = plt.subplots(figsize=(9, 3.4))
    for memory in memories:
        times = [datetime.fromisoformat(t) for t in memory.times]
        core = memory.tier and memory.tier[-1] == "core"
        ax.plot(times, memory.strength, color="C3" if core else "C0", alpha=0.8 if core else 0.35,
                linewidth=1.4 if core else 0.9)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("strength")
    ax.grid(alpha=0.3)
    figure.autofmt_xdate()
    ax.plot([], [], color="C3", label="ends core")
    ax.plot([], [], color="C0", alpha=0.5, label="recent or archived")
    ax.legend(loc="lower left", fontsize=8, frameon=False)
    return figure


def _deciders(series: Series, plt: Any) -> Any | None:
    if not series.steps:
        return None
    steps = sorted({s.step for s in series.steps})
    index = {point: i for i, point in enumerate(series.points)}
    grid = [[0] * len(series.points) for _ in steps]
    for use in series.steps:  # a model answer wins the cell over a fallback in the same turn
        row, col = steps.index(use.step), index.get(use.point)
        if col is not None:
            grid[row][col] = max(grid[row][col], _SOURCES.get(use.decided_by, 0))
    from matplotlib.colors import ListedColormap

    figure, ax = plt.subplots(figsize=(9, 0.45 * len(steps) + 1.2))
    ax.imshow(grid, aspect="auto", interpolation="nearest", vmin=0, vmax=2,
              cmap=ListedColormap(["#f4f4f4", "#f0a35e", "#3b7dd8"]))
    ax.set_yticks(range(len(steps)))
    ax.set_yticklabels(steps)
    _ticks(ax, series.points)
    ax.grid(False)
    for label, colour in (("model", "#3b7dd8"), ("fallback", "#f0a35e"), ("not run", "#f4f4f4")):
        ax.bar([0], [0], color=colour, label=label)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    return figure


def _attributes(series: Series, plt: Any) -> Any | None:
    """Small multiples: one panel per character (the busiest), a line per attribute."""
    def moved(character: str) -> float:
        total = 0.0
        for values in series.attributes[character].values():
            known = [v for v in values if v is not None]
            total += max(known) - min(known) if known else 0.0
        return total

    shown = sorted(series.attributes, key=lambda c: (-moved(c), c))[:MAX_ATTRIBUTE_PANELS]
    if not shown:
        return None
    columns = min(3, len(shown))
    rows = -(-len(shown) // columns)
    figure, axes = plt.subplots(rows, columns, figsize=(3.2 * columns + 1.6, 2.6 * rows), sharey=True,
                                squeeze=False)
    x = list(range(len(series.points)))
    names = sorted({name for c in shown for name in series.attributes[c]})
    for n, ax in enumerate(ax for row in axes for ax in row):
        if n >= len(shown):
            ax.set_visible(False)
            continue
        character = shown[n]
        for i, name in enumerate(names):
            values = series.attributes[character].get(name)
            if values is not None:
                ax.plot(x, [float("nan") if v is None else v for v in values], color=f"C{i % 10}",
                        label=name, linewidth=1.1)
        ax.set_title(character)
        ax.set_ylim(0, 1)
        _ticks(ax, series.points, most=4)
    axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    return figure


def case_anchor(case: CaseResult) -> str:
    return "case-" + "".join(c if c.isalnum() else "-" for c in case.name)
