"""The `curator` group, its one-line usage errors, and the turn commands: `play`, `observe`,
`end-episode` and `fade`. The other command groups live in their own modules, registered at
the end; all of them share their options through `options.py`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from curator.api.curator import parse_turn
from curator.cli.blocks import block, delete_command, passage
from curator.cli.evals import eval_group
from curator.cli.evolve import evolution_group, evolve_command
from curator.cli.goals import abilities_command, goal
from curator.cli.options import (
    db_option,
    json_option,
    model_options,
    one_line_errors,
    open_curator,
    print_json,
    settings_from_options,
)
from curator.cli.recall import context_command, search_command
from curator.cli.show import print_character
from curator.cli.world import (
    calls_command,
    characters_command,
    clock_command,
    export_command,
    import_command,
    show,
)
from curator.domain.decoding import text_lines
from curator.domain.errors import InvalidInput, InvalidTurn
from curator.domain.models import MAX_TURN_JSON, Turn, display_name
from curator.domain.results import ChangeSet, TurnResult
from curator.model.calls import CallSummary, last_call_seq, summarize_calls


class OneLineErrors(click.Group):
    """Click's usage errors as one line on stderr too ("Error: … (see curator play --help)")."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.UsageError as error:
            where = error.ctx.command_path if error.ctx else "curator"
            click.echo(f"Error: {error.format_message()} (see {where} --help)", err=True)
            sys.exit(error.exit_code)
        except click.ClickException as error:
            click.echo(f"Error: {error.format_message()}", err=True)
            sys.exit(error.exit_code)
        except click.Abort:
            click.echo("Aborted.", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=OneLineErrors)
@click.version_option(package_name="curator")
def cli() -> None:
    """curator: memories for game characters and agents.

    A game calls curator after every turn with what a character meant to do and what
    actually happened; curator keeps the memories (recent, long-term summary, core), lets
    them fade, and works with no language model at all.
    """


def _turn_lines(path: Path) -> Iterator[tuple[int, str | InvalidInput]]:
    """The transcript's turn lines (blank and '#' lines skipped); a line that is not text is
    its error, refused when play reaches it."""
    for number, line in text_lines(path.read_bytes(), what="line"):
        if isinstance(line, InvalidInput) or (line.strip() and not line.lstrip().startswith("#")):
            yield number, line


@cli.command()
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--batch", "batch", type=click.IntRange(1, 10_000), default=64, show_default=True,
              help="Turns handed to the model path at once (turns commit one by one, in order)")
@model_options
@db_option
@json_option
@one_line_errors
def play(transcript: Path, batch: int, model: str | None, api_base: str | None, mode: str | None,
         concurrency: int | None, record_dir: Path | None, db: str, as_json: bool) -> None:
    """Feed a transcript (JSONL, one turn a line) to the world, turn by turn, as a game would.

    Turns already in the world are skipped, so playing again after a crash resumes where it
    stopped. Ends with what each character now remembers and, with a model, the calls it
    made: calls and tokens per turn, and fallbacks by reason.
    """
    lines = list(_turn_lines(transcript))
    totals = ChangeSet()
    new = seen = perceptions = 0
    started = time.perf_counter()
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir)
    with open_curator(db, model=settings) as curator:
        first_call = last_call_seq(curator.world)
        show_bar = sys.stderr.isatty() and not as_json
        with click.progressbar(length=len(lines), label="Playing", file=sys.stderr, show_pos=True,
                               hidden=not show_bar) as bar:
            pending: list[tuple[int, Turn]] = []

            def flush() -> None:
                nonlocal new, seen, perceptions
                try:
                    results = curator.observe_many([t for _, t in pending])
                except InvalidTurn as error:
                    # Turns before this one are committed; fix the line and play again to resume.
                    number = next((n for n, t in pending if t.id == error.turn_id), None)
                    click.echo(f"Error: {transcript}:{number}: {error}", err=True)
                    sys.exit(error.exit_code)
                for (_, turn), result in zip(pending, results, strict=True):
                    if result.duplicate:
                        seen += 1
                        continue
                    new += 1
                    perceptions += 1 + len(turn.observers)
                    _add(totals, result)
                bar.update(len(pending))
                pending.clear()

            for number, line in lines:
                try:
                    if isinstance(line, InvalidInput):
                        raise InvalidTurn(str(line).removeprefix("invalid input: "))
                    pending.append((number, parse_turn(line)))
                except InvalidTurn as error:
                    pending_error = f"Error: {transcript}:{number}: {error}"
                    flush()
                    click.echo(pending_error, err=True)
                    sys.exit(error.exit_code)
                if len(pending) >= batch:
                    flush()
            flush()
        elapsed = time.perf_counter() - started
        calls = summarize_calls(curator.world, after_seq=first_call)
        characters = [curator.character(c) for c in curator.characters()]
        counts = {c.id: curator.counts(c.id) for c in characters}
    fallbacks = totals.fallbacks_by_reason()
    summary = {
        "transcript": str(transcript), "db": db, "turns": len(lines), "new": new,
        "already_seen": seen, "seconds": round(elapsed, 3),
        "formed": len(totals.formed), "reinforced": len(totals.reinforced),
        "archived": len(totals.archived), "forgotten": len(totals.forgotten),
        "promoted": len(totals.promoted), "summaries_revised": len(totals.summaries_revised),
        "conflicts_resolved": len(totals.conflicts_resolved),
        "steps": len(totals.steps), "model": settings.model if settings else None,
        "model_calls": calls.calls,
        "decided_by_model": sum(1 for s in totals.steps if s.decided_by == "model"),
        "calls_per_turn": round(calls.calls / new, 3) if new else 0.0,
        "calls_per_character_turn": round(calls.calls / perceptions, 3) if perceptions else 0.0,
        "prompt_tokens_per_turn": round(calls.prompt_tokens / new, 1) if new else 0.0,
        "completion_tokens_per_turn": round(calls.completion_tokens / new, 1) if new else 0.0,
        "cost": calls.cost, "fallbacks_by_reason": fallbacks,
        "characters": {c.id: counts[c.id] for c in characters},
    }
    if as_json:
        print_json(summary)
        return
    click.echo(f"Played {len(lines)} turns from {transcript} into {db} "
               f"({new} new, {seen} already seen) in {elapsed:.2f}s")
    click.echo(f"Memories: {len(totals.formed)} formed, {len(totals.reinforced)} reinforced, "
               f"{len(totals.archived)} archived, {len(totals.promoted)} made core; "
               f"{len(totals.summaries_revised)} summaries revised, "
               f"{len(totals.conflicts_resolved)} conflicts resolved")
    steps = len(totals.steps)
    per_turn = steps / new if new else 0.0
    click.echo(f"Decisions: {steps} steps ({per_turn:.1f}/turn), {summary['decided_by_model']} by the model; "
               "fallbacks: " + (", ".join(f"{n} ({r})" for r, n in fallbacks.items()) or "none"))
    if settings is not None:
        click.echo(_calls_line(settings.model, calls, new, perceptions))
    for character in characters:
        click.echo("")
        print_character(character, counts[character.id], brief=True)


def _add(totals: ChangeSet, result: TurnResult) -> None:
    for name in ("formed", "reinforced", "archived", "forgotten", "promoted",
                 "summaries_revised", "conflicts_resolved", "steps"):
        getattr(totals, name).extend(getattr(result, name))


def _calls_line(model: str, calls: CallSummary, turns: int, perceptions: int) -> str:
    def per(n: float, d: int) -> float:
        return n / d if d else 0.0

    cost = f", cost ${calls.cost:.4f}" if calls.cost is not None else ""
    return (f"Model {model}: {calls.calls} calls ({per(calls.calls, turns):.2f}/turn, "
            f"{per(calls.calls, perceptions):.2f}/character-turn), "
            f"{per(calls.prompt_tokens, turns):.0f} prompt + {per(calls.completion_tokens, turns):.0f} "
            f"completion tokens/turn, {calls.mean_latency_ms:.0f} ms/call{cost}")


@cli.command()
@click.option("--file", "file", type=click.File("rb"), default="-",
              help="Turn JSON file (default: standard input)")
@model_options
@db_option
@json_option
@one_line_errors
def observe(file: Any, model: str | None, api_base: str | None, mode: str | None,
            concurrency: int | None, record_dir: Path | None, db: str, as_json: bool) -> None:
    """Observe one turn, given as a JSON object on stdin or in --file."""
    text = file.read(MAX_TURN_JSON + 1)  # a longer one is refused by its length, unread
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir)
    with open_curator(db, model=settings) as curator:
        result = curator.observe(text)
    if as_json:
        print_json(result.model_dump(mode="json"))
        return
    if result.duplicate:
        click.echo(f"Turn {result.turn_id} was already observed; nothing changed.")
        return
    click.echo(f"Turn {result.turn_id} at {result.world_time}: {len(result.formed)} formed, "
               f"{len(result.reinforced)} reinforced, {len(result.archived)} archived, "
               f"{len(result.promoted)} made core ({result.elapsed_ms:.1f} ms)")
    for change in result.formed:
        about = display_name(change.subject) if change.subject else "self"
        kept = f" ({change.reason})" if change.kept_by else ""  # kept by appraisal: a lens or a link
        click.echo(f"  {display_name(change.owner)} → {about}: {change.content}{kept}")


def _print_changes(changes: ChangeSet, as_json: bool, headline: str) -> None:
    if as_json:
        print_json(changes.model_dump(mode="json"))
        return
    click.echo(headline)
    for summary in changes.summaries_revised:
        click.echo(f"  {display_name(summary.owner)} on {display_name(summary.other)}: {summary.summary}")
    for change in changes.promoted:
        click.echo(f"  core: {change.content}")


@cli.command(name="end-episode")
@click.argument("character")
@click.option("--with", "with_", help="Only the relationship with this character")
@model_options
@db_option
@json_option
@one_line_errors
def end_episode(character: str, with_: str | None, model: str | None, api_base: str | None,
                mode: str | None, concurrency: int | None, record_dir: Path | None, db: str,
                as_json: bool) -> None:
    """End an episode for CHARACTER: fold recent memories into summaries, consider core."""
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir)
    with open_curator(db, model=settings) as curator:
        changes = curator.end_episode(character, with_)
    _print_changes(changes, as_json, f"Episode ended: {len(changes.summaries_revised)} summaries "
                   f"revised, {len(changes.promoted)} made core, "
                   f"{len(changes.archived) + len(changes.forgotten)} archived")


@cli.command()
@click.option("--until", "until", required=True, help="World time (ISO 8601) to fade memories to")
@db_option
@json_option
@one_line_errors
def fade(until: str, db: str, as_json: bool) -> None:
    """Let memories fade with game time up to --until; fully faded ones go to the archive."""
    with open_curator(db) as curator:
        changes = curator.fade(until)
    if as_json:
        print_json(changes.model_dump(mode="json"))
        return
    click.echo(f"Faded to {until}: {len(changes.forgotten)} memories forgotten (archived)")
    for change in changes.forgotten:
        click.echo(f"  {display_name(change.owner)}: {change.content}")


for _command in (block, passage, delete_command, context_command, search_command, eval_group,
                 evolve_command, evolution_group, goal, abilities_command, show, characters_command,
                 export_command, import_command, clock_command, calls_command):
    cli.add_command(_command)
