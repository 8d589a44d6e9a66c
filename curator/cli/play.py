"""`curator play`: a transcript fed to the world turn by turn, and what it reports.

Turns commit one by one, so a play that stops (a bad line, Ctrl-C, SIGTERM) keeps every
turn before the stop, and playing the same transcript again resumes: turns already in the
world count as already seen. So every stop says how many turns are stored and how to go
on; a line is named by its number in the transcript, the line that is wrong and not an
earlier one with the same id.

The summary shows the `SHOWN` characters this play changed most (in the world's order) and
counts the rest: a world of 10,000 characters printed one of 9.75 MB (issue #17). `--json`
keeps every character's counts.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from curator.api.curator import Curator, parse_turn
from curator.cli.options import (
    db_option,
    json_option,
    model_options,
    one_line_errors,
    open_curator,
    print_json,
    settings_from_options,
)
from curator.cli.show import print_character
from curator.cli.signals import signals_held, stop_status
from curator.domain.decoding import text_lines
from curator.domain.errors import ConflictingTurn, CuratorError, InvalidInput, InvalidTurn
from curator.domain.models import Turn
from curator.domain.results import ChangeSet, TurnResult
from curator.model.calls import CallSummary, last_call_seq, summarize_calls
from curator.model.settings import ModelSettings

SHOWN = 10  # characters in play's summary; the rest are counted


def _turn_lines(path: Path) -> Iterator[tuple[int, str | InvalidInput]]:
    """The transcript's turn lines (blank and '#' lines skipped); a line that is not text is
    its error, refused when play reaches it (the lines before it are played)."""
    for number, line in text_lines(path.read_bytes(), what="line"):
        if isinstance(line, InvalidInput) or (line.strip() and not line.lstrip().startswith("#")):
            yield number, line


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _stored_lines(curator: Curator, lines: list[tuple[int, str | InvalidInput]]) -> int:
    """How many of these lines hold a turn the world has stored (a line that does not parse
    holds none)."""
    ids: list[str] = []
    for _, line in lines:
        if isinstance(line, InvalidInput):
            continue
        try:
            ids.append(parse_turn(line).id)
        except InvalidTurn:
            continue
    stored = curator.observed(ids)
    return sum(1 for turn_id in ids if turn_id in stored)


class BadLine(Exception):
    """A transcript line that cannot be played: its number and the error, for one line."""

    def __init__(self, number: int, error: InvalidTurn):
        super().__init__(str(error))
        self.number, self.error = number, error


class Playing:
    """One play's progress: the turns waiting for a batch, and the totals so far."""

    def __init__(self, curator: Curator) -> None:
        self.curator = curator
        self.pending: list[tuple[int, Turn]] = []
        self.first_line: dict[str, tuple[int, str]] = {}  # turn id → (its first line, its content)
        self.totals = ChangeSet()
        self.new = self.seen = self.perceptions = 0
        self.perceived: Counter[str] = Counter()  # character → the new turns it perceived

    def add(self, number: int, line: str | InvalidInput) -> None:
        """Parse a line and queue its turn; an id an earlier line used with other content is
        refused here, so the error names this line (the world would only know the id)."""
        if isinstance(line, InvalidInput):
            raise BadLine(number, InvalidTurn(str(line).removeprefix("invalid input: ")))
        try:
            turn = parse_turn(line)
        except InvalidTurn as error:
            raise BadLine(number, error) from error
        content = turn.model_dump_json(exclude_none=True)
        first, seen_content = self.first_line.setdefault(turn.id, (number, content))
        if seen_content != content:
            raise BadLine(number, ConflictingTurn(
                f"line {first} already has this id with different content", field="id", turn_id=turn.id))
        self.pending.append((number, turn))

    def flush(self) -> int:
        """Curate the pending turns (they commit one by one); returns how many there were."""
        try:
            results = self.curator.observe_many([t for _, t in self.pending])
        except InvalidTurn as error:
            # The first pending turn with this id failed: a repeat of an id within the
            # transcript carries the same content (add() saw to that), so it fails the same way.
            number = next((n for n, t in self.pending if t.id == error.turn_id), self.pending[0][0])
            raise BadLine(number, error) from error
        for (_, turn), result in zip(self.pending, results, strict=True):
            if result.duplicate:
                self.seen += 1
                continue
            self.new += 1
            self.perceptions += 1 + len(turn.observers)
            self.perceived.update(dict.fromkeys([turn.actor, *turn.observers], 1))
            _add(self.totals, result)
        done = len(self.pending)
        self.pending.clear()
        return done


@click.command()
@click.argument("transcript", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--batch", "batch", type=click.IntRange(1, 10_000), default=64, show_default=True,
              help="Turns handed to the model path at once (turns commit one by one, in order)")
@model_options
@db_option
@json_option
@one_line_errors
def play(transcript: Path, batch: int, model: str | None, api_base: str | None, mode: str | None,
         concurrency: int | None, record_dir: Path | None,
         reading: str | None, db: str, as_json: bool) -> None:
    """Feed a transcript (JSONL, one turn a line) to the world, turn by turn, as a game would.

    Turns already in the world are skipped, so playing again after a crash, a bad line,
    Ctrl-C or SIGTERM resumes where it stopped. Ends with what each character now remembers
    and, with a model, the calls it made: calls and tokens per turn, and fallbacks by reason.

    Exit status: 0 played; 2 a bad line (named with its number; the turns before it are
    stored); 3 the world is locked; 130 Ctrl-C, 143 SIGTERM (saying how many turns are stored).
    """
    lines = list(_turn_lines(transcript))
    settings = settings_from_options(model, api_base, mode, concurrency, record_dir, reading)
    try:
        _play(transcript, lines, batch, settings, db, as_json)
    except KeyboardInterrupt as stop:  # Ctrl-C, or SIGTERM (signals.Terminated)
        with signals_held():
            word, status = stop_status(stop)
            with open_curator(db) as curator:  # afresh: the interrupted connection is closed
                stored = _stored_lines(curator, lines)
            if sys.stderr.isatty():
                click.echo("", err=True)  # past the terminal's "^C"
            click.echo(f"{word}: {stored} of the {len(lines)} turns in {transcript} are stored in {db}; "
                       "run the same command again to resume", err=True)
        sys.exit(status)


def _play(transcript: Path, lines: list[tuple[int, str | InvalidInput]], batch: int,
          settings: ModelSettings | None, db: str, as_json: bool) -> None:
    started = time.perf_counter()
    with open_curator(db, model=settings) as curator:
        first_call = last_call_seq(curator.world)
        playing = Playing(curator)
        show_bar = sys.stderr.isatty() and not as_json
        with click.progressbar(length=len(lines), label="Playing", file=sys.stderr, show_pos=True,
                               hidden=not show_bar) as bar:
            try:
                for number, line in lines:
                    try:
                        playing.add(number, line)
                    except BadLine:
                        playing.flush()  # the lines before a bad one are played, as a game would
                        raise
                    if len(playing.pending) >= batch:
                        bar.update(playing.flush())
                bar.update(playing.flush())
            except BadLine as bad:
                before = _stored_lines(curator, [(n, s) for n, s in lines if n < bad.number])
                stored = f"{_plural(before, 'turn')} before it {'is' if before == 1 else 'are'} stored"
                click.echo(f"Error: {transcript}:{bad.number}: {bad.error} ({stored}; fix that line "
                           "and play again to resume)", err=True)
                sys.exit(bad.error.exit_code)
            except CuratorError as error:  # a locked world, say: the turns before it are kept
                kept = _stored_lines(curator, lines)
                click.echo(f"Error: {error} ({kept} of the {len(lines)} turns in {transcript} are "
                           "stored; play again to resume)", err=True)
                sys.exit(error.exit_code)
        elapsed = time.perf_counter() - started
        calls = summarize_calls(curator.world, after_seq=first_call)
        everyone = curator.characters()
        shown = everyone if as_json else _most_changed(playing, everyone, SHOWN)
        characters = [curator.character(c) for c in shown]
        counts = {c: curator.counts(c) for c in (everyone if as_json else shown)}
    _report(transcript, db, len(lines), playing, elapsed, settings, calls, characters, counts, as_json,
            rest=len(everyone) - len(characters))


def _most_changed(playing: Playing, everyone: list[str], limit: int) -> list[str]:
    """The `limit` characters whose memories this play changed most (then: who perceived the
    most of its turns), in the world's order."""
    if len(everyone) <= limit:
        return everyone
    changed: Counter[str] = Counter()
    totals = playing.totals
    for memory in (*totals.formed, *totals.reinforced, *totals.archived, *totals.forgotten,
                   *totals.promoted):
        changed[memory.owner] += 1
    for summary in (*totals.summaries_revised, *totals.conflicts_resolved):
        changed[summary.owner] += 1
    ranked = sorted(everyone, key=lambda c: (-changed[c], -playing.perceived[c], c))[:limit]
    chosen = set(ranked)
    return [c for c in everyone if c in chosen]


def _report(transcript: Path, db: str, turns: int, playing: Playing, elapsed: float,
            settings: ModelSettings | None, calls: CallSummary, characters: list[Any],
            counts: dict[str, dict[str, int]], as_json: bool, *, rest: int = 0) -> None:
    totals, new, seen, perceptions = playing.totals, playing.new, playing.seen, playing.perceptions
    fallbacks = totals.fallbacks_by_reason()
    asked = calls.calls - calls.held_by_budget  # the steps a budget held back made no call
    summary = {
        "transcript": str(transcript), "db": db, "turns": turns, "new": new,
        "already_seen": seen, "seconds": round(elapsed, 3),
        "formed": len(totals.formed), "reinforced": len(totals.reinforced),
        "archived": len(totals.archived), "forgotten": len(totals.forgotten),
        "promoted": len(totals.promoted), "summaries_revised": len(totals.summaries_revised),
        "conflicts_resolved": len(totals.conflicts_resolved),
        "steps": len(totals.steps), "model": settings.model if settings else None,
        "model_calls": asked, "held_by_budget": calls.held_by_budget,
        "decided_by_model": sum(1 for s in totals.steps if s.decided_by == "model"),
        "calls_per_turn": round(asked / new, 3) if new else 0.0,
        "calls_per_character_turn": round(asked / perceptions, 3) if perceptions else 0.0,
        "prompt_tokens_per_turn": round(calls.prompt_tokens / new, 1) if new else 0.0,
        "completion_tokens_per_turn": round(calls.completion_tokens / new, 1) if new else 0.0,
        "cost": calls.cost, "fallbacks_by_reason": fallbacks,
        "characters": counts,
    }
    if as_json:
        print_json(summary)
        return
    click.echo(f"Played {turns} turn{'' if turns == 1 else 's'} from {transcript} into {db} "
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
    if rest:
        click.echo(f"\n… and {_plural(rest, 'other character')} (this play changed them less; "
                   "`curator characters` lists them, `--json` counts every one)")


def _add(totals: ChangeSet, result: TurnResult) -> None:
    for name in ("formed", "reinforced", "archived", "forgotten", "promoted",
                 "summaries_revised", "conflicts_resolved", "steps"):
        getattr(totals, name).extend(getattr(result, name))


def _calls_line(model: str, calls: CallSummary, turns: int, perceptions: int) -> str:
    def per(n: float, d: int) -> float:
        return n / d if d else 0.0

    cost = f", cost ${calls.cost:.4f}" if calls.cost is not None else ""
    held = f"; {calls.held_by_budget} steps held back by budgets" if calls.held_by_budget else ""
    asked = calls.calls - calls.held_by_budget
    return (f"Model {model}: {asked} calls ({per(asked, turns):.2f}/turn, "
            f"{per(asked, perceptions):.2f}/character-turn), "
            f"{per(calls.prompt_tokens, turns):.0f} prompt + {per(calls.completion_tokens, turns):.0f} "
            f"completion tokens/turn, {calls.mean_latency_ms:.0f} ms/call{cost}{held}")
