"""The command line for the semantic-recall evals: `curator eval paraphrase`, and the embedder
that `eval paraphrase --embeddings` and `eval locomo --embeddings` ask for.

Added to the `eval` group by evals.py. Without the embedder's packages the eval still runs on
words alone, and says plainly that the embedding figures were not measured and why.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from curator.cli.options import json_option, one_line_errors, print_json
from curator.domain.errors import ModelUnavailable
from curator.model.embedders import SPEC_HELP, Embedder, embedder_from_spec

PARAPHRASE_FILE = Path("evals") / "paraphrase" / "questions.yaml"


def embeddings_option(fn: Any) -> Any:
    return click.option("--embeddings", "embeddings", is_flag=False, flag_value="local", default=None,
                        metavar="[SPEC]",
                        help=f"Also recall with embeddings (default local; {SPEC_HELP})")(fn)


def weight_option(fn: Any) -> Any:
    return click.option("--weight", type=click.FloatRange(0.0, 10.0),
                        help="Embedding weight in recall (default: recall.semantic_weight)")(fn)


def embedder_or_reason(spec: str | None) -> tuple[Embedder | None, str | None]:
    """The embedder `spec` names, or None and why not (its packages are not installed)."""
    if spec is None:
        return None, None
    try:
        return embedder_from_spec(spec), None
    except ModelUnavailable as error:
        return None, str(error)


def _table(result: dict[str, Any], modes: list[str]) -> list[str]:
    lines = []
    for mode in modes:
        values = result["recall"][mode]
        lines.append(f"  {mode:<11} " + "  ".join(f"@{k} {100 * v:5.1f}" for k, v in values.items()))
        for story, per in result["by_story"][mode].items():
            lines.append(f"    {story:<9} " + "  ".join(f"@{k} {100 * v:5.1f}" for k, v in per.items()))
    return lines


@click.command(name="paraphrase")
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@embeddings_option
@weight_option
@json_option
@one_line_errors
def paraphrase_command(path: Path | None, embeddings: str | None, weight: float | None,
                       as_json: bool) -> None:
    """Paraphrase recall@k: questions asked in other words than the memories' own.

    Plays the shipped stories of several genres (no model), asks each question of its owner
    with search, on words alone and, with --embeddings, with embeddings too."""
    from curator.evals.paraphrase import evaluate

    questions = path or PARAPHRASE_FILE
    if not questions.is_file():
        raise click.BadParameter(f"no {questions} here: run from curator's checkout or give PATH")
    embedder, reason = embedder_or_reason(embeddings)
    started = time.perf_counter()
    quiet = as_json or not sys.stderr.isatty()
    result = evaluate(questions, embedder, weight=weight,
                      progress=None if quiet else lambda line: click.echo(line, err=True))
    result["embeddings_not_run"] = reason
    if as_json:
        print_json(result)
        return
    modes = list(result["recall"])
    click.echo(f"Paraphrase recall, {result['questions']} questions "
               f"({len(result['unanswerable'])} left out: the owner formed no memory of the gold turn), "
               f"{time.perf_counter() - started:.1f} s")
    for line in _table(result, modes):
        click.echo(line)
    if embedder is not None:
        spent = result["embedding"]
        click.echo(f"  embedder {result['embedder']} at weight {result['weight']}: "
                   f"{spent['memories']} memories embedded in {spent['seconds']:.1f} s")
    if reason is not None:
        click.echo(f"  with embeddings: not measured: {reason}")


def locomo_embedding_lines(result: dict[str, Any], cutoffs: list[int], reason: str | None) -> list[str]:
    """`eval locomo --embeddings`' lines after the words-only table: the fused weight chosen
    leaving one conversation out (when there is a choice), then each weight on all of them."""
    if reason is not None:
        return [f"  with embeddings: not measured: {reason}"]
    fused = result.get("embeddings")
    if not fused:
        return []

    def row(label: str, values: dict[str, float]) -> str:
        return f"  {label:<12} " + "  ".join(f"@{k} {100 * values[str(k)]:5.1f}" for k in cutoffs)

    lines = [f"with embeddings ({fused['embedder']}; {fused['memories']} memories embedded in "
             f"{fused['embed_seconds']:.1f} s)"]
    if "recall" in fused:
        chosen = sorted(set(fused["weights"]["held_out"].values()))
        lines.append(f"  held out (weight chosen on the other conversations: {', '.join(map(str, chosen))})")
        lines.append(row("overall", fused["recall"]))
        lines += [row(name, values) for name, values in fused["by_category"].items()]
        lines.append(f"  fitted: weight {fused['fitted']['weight']}")
    for entry in fused["by_weight"]:
        lines.append(row(f"weight {entry['weight']}", entry["recall"]))
        lines += [row(f"  {name}", values) for name, values in entry["by_category"].items()]
    return lines
