"""A second reader for the judgement set: how far do two careful readers agree?

The judgement set's gold labels (`evals/judge/*.yaml`) are one reader's reading of each turn.
Some labels are matters of judgement (is a rescue the actor did not ask for `helped` or
`surprised`? is a bad night `low` or `medium`?), so no reader, human or model, can be expected
to match the gold on every field. This module measures that ceiling: a second reader labels
the same turns without seeing the gold, and the two readers' agreement per field is the most
that "accuracy against the gold" can mean. It also scores the rules and the model on the
fields where the two readers agree (the unambiguous labels) and against the second reader.

    python -m evals.second_reader blind OUT_DIR      # the stories with the gold taken out
    python -m evals.second_reader score [--labels evals/judge/second_reader] [--fixtures SET] [--json]

A label file (`evals/judge/second_reader/<story>.yaml`) holds `story`, `reader` (who labelled,
and what they saw) and `labels`: turn id -> perceiver -> the gold fields, as in a story file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from curator import CaseError, TurnReading
from curator.evals.judge import FIELDS, Gold, JudgeStory, load_stories, predicted, read_story, turn_of

JUDGE_DIR = Path(__file__).parent / "judge"
LABELS_DIR = JUDGE_DIR / "second_reader"


class SecondReading(BaseModel):
    """One story's labels from the second reader."""

    model_config = ConfigDict(extra="forbid")

    story: str
    reader: str
    labels: dict[str, dict[str, Gold]]


def blind_copy(story: JudgeStory) -> dict[str, Any]:
    """The story as a reader sees it: every turn without `gold` and `split`, with `label_for`
    naming each perceiver and the characters its valence must cover."""
    turns = []
    for item in story.turns:
        data = item.model_dump(exclude={"gold", "split"}, exclude_none=True)
        turn = turn_of(item)
        data["label_for"] = {p: [c for c in turn.characters if c != p] for p in turn.perceivers}
        turns.append(data)
    return {"genre": story.genre, "about": story.about, "characters": story.characters, "turns": turns}


def load_second(path: Path, story: JudgeStory) -> SecondReading:
    """Read one label file and check it covers exactly the story's perceivers and valences."""
    try:
        reading = SecondReading.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError) as error:
        raise CaseError(f"cannot read the labels: {error}", path=str(path)) from error
    except ValidationError as error:
        first = error.errors()[0]
        raise CaseError(first["msg"], path=str(path), field=".".join(map(str, first["loc"]))) from error
    for item in story.turns:
        got = reading.labels.get(item.id)
        if got is None or set(got) != set(item.gold):
            raise CaseError(f"labels must name exactly the perceivers {sorted(item.gold)}", path=str(path),
                            field=f"labels.{item.id}")
        for who, gold in item.gold.items():
            if set(got[who].valence) != set(gold.valence):
                raise CaseError(f"valence must cover exactly {sorted(gold.valence)}", path=str(path),
                                field=f"labels.{item.id}.{who}.valence")
    return reading


def units(first: dict[str, Any], second: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """The scored units of one perceiver's reading as (field, first's answer, second's):
    valence once per other character (a missing feeling counting as neutral), every other
    field once, as `curator eval judge` scores them."""
    out: list[tuple[str, Any, Any]] = [(f, first[f], second[f]) for f in FIELDS if f != "valence"]
    out += [("valence", feeling, second["valence"].get(other, "neutral"))
            for other, feeling in sorted(first["valence"].items())]
    return out


class Tally(BaseModel):
    """Right and total per field, and the overall mean of the field accuracies."""

    right: dict[str, int] = {f: 0 for f in FIELDS}
    total: dict[str, int] = {f: 0 for f in FIELDS}

    def add(self, field: str, right: bool) -> None:
        self.total[field] += 1
        self.right[field] += right

    def total_units(self) -> int:
        return sum(self.total.values())

    def accuracy(self) -> dict[str, float]:
        scores = {f: round(self.right[f] / self.total[f], 4) if self.total[f] else 0.0 for f in FIELDS}
        scores["overall"] = round(sum(scores[f] for f in FIELDS) / len(FIELDS), 4)
        return scores


class Comparison(BaseModel):
    """What the second reader's labels say about the gold and about one mode's readings."""

    mode: str
    stories: list[str] = []
    readings: int = 0
    decided_by_model: int = 0
    readers: Tally = Tally()     # the second reader against the gold
    vs_gold: Tally = Tally()     # the mode against the gold (as `curator eval judge` scores it)
    on_agreed: Tally = Tally()   # the mode against the gold, only where the two readers agree
    vs_second: Tally = Tally()   # the mode against the second reader
    either: Tally = Tally()      # the mode matching either reader's label
    errors: list[str] = []

    def summary(self) -> dict[str, Any]:
        return {"mode": self.mode, "stories": self.stories, "readings": self.readings,
                "decided_by_model": self.decided_by_model,
                "readers_agree": self.readers.accuracy(), "vs_gold": self.vs_gold.accuracy(),
                "on_agreed": self.on_agreed.accuracy(), "agreed_units": self.on_agreed.total_units(),
                "vs_second": self.vs_second.accuracy(), "either": self.either.accuracy(),
                "errors": self.errors}


def compare_reading(result: Comparison, gold: Gold, second: Gold, reading: TurnReading) -> None:
    """Count one perceiver's reading of one turn against both readers."""
    mine, theirs, read = gold.answers(), second.answers(), predicted(reading)
    result.readings += 1
    result.decided_by_model += reading.decided_by == "model"
    for (field, want, other), (_, _, got) in zip(units(mine, theirs), units(mine, read), strict=True):
        result.readers.add(field, want == other)
        result.vs_gold.add(field, want == got)
        result.either.add(field, got in (want, other))
        if want == other:
            result.on_agreed.add(field, want == got)
    for field, other, got in units(theirs, read):
        result.vs_second.add(field, other == got)


def compare(stories: list[JudgeStory], seconds: dict[str, SecondReading], mode: Any) -> Comparison:
    """Play every story that has second-reader labels in `mode` and count its readings."""
    result = Comparison(mode=mode.name)
    for story in stories:
        second = seconds.get(story.name.removeprefix("judge_"))
        if second is None:
            continue
        if not mode.runs(story):
            result.errors.append(f"{story.genre}: not recorded")
            continue
        result.stories.append(story.genre)
        with mode.session(story) as factory:
            by_turn = read_story(story, factory, result.errors)
        for item in story.turns:
            for who, gold in item.gold.items():
                reading = by_turn[item.id].get(who)
                if reading is not None:
                    compare_reading(result, gold, second.labels[item.id][who], reading)
    return result


def load_seconds(labels: Path, stories: list[JudgeStory]) -> dict[str, SecondReading]:
    """Every story's label file found in `labels`, checked against the story."""
    found = {}
    for story in stories:
        name = story.name.removeprefix("judge_")
        path = labels / f"{name}.yaml"
        if path.exists():
            found[name] = load_second(path, story)
    return found


_SHOWN_AS = {"fallback": "rules", "replay": "model"}


def table(results: list[Comparison]) -> list[str]:
    """The agreement of the two readers, then per mode: against the gold, on the agreed labels,
    against the second reader, and matching either reader."""
    first = results[0]
    head = f"  {'field':<15}{'readers':>9}"
    for r in results:
        head += f"  {_SHOWN_AS.get(r.mode, r.mode) + ': gold':>15}{'agreed':>8}{'second':>8}{'either':>8}"
    lines = [head]
    for field in (*FIELDS, "overall"):
        line = f"  {field:<15}{first.readers.accuracy()[field]:>9.1%}"
        for r in results:
            line += "".join(f"{t.accuracy()[field]:>{w}.1%}" for t, w in
                            ((r.vs_gold, 17), (r.on_agreed, 8), (r.vs_second, 8), (r.either, 8)))
        lines.append(line)
    return lines


def write_blind(out: Path, stories: list[JudgeStory]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for story in stories:
        path = out / f"{story.name.removeprefix('judge_')}.yaml"
        path.write_text(yaml.safe_dump(blind_copy(story), sort_keys=False, allow_unicode=True, width=100),
                        encoding="utf-8")
        written.append(path)
    return written


def score_command(labels: Path, mode: str, as_json: bool, fixtures: Path | None = None) -> int:
    from curator.evals.modes import DEFAULT_FIXTURES, FallbackMode, ReplayMode

    stories = load_stories([JUDGE_DIR])
    seconds = load_seconds(labels, stories)
    if not seconds:
        raise SystemExit(f"no second-reader labels in {labels}")
    modes: list[Any] = [FallbackMode()]
    if mode == "replay":
        modes.append(ReplayMode(fixtures or JUDGE_DIR.parent.parent / DEFAULT_FIXTURES))
    results = [compare(stories, seconds, m) for m in modes]
    if as_json:
        print(json.dumps({r.mode: r.summary() for r in results}, indent=2))
        return 0
    last = results[-1]
    print(f"Second reader against the gold: {len(last.stories)} stories, {last.readings} readings "
          f"({last.decided_by_model} read by a model), {last.on_agreed.total_units()} of "
          f"{last.readers.total_units()} scored labels agreed by both readers")
    for r in results:
        if r.errors:
            print(f"  {r.mode}: {len(r.errors)} error(s): {'; '.join(r.errors[:3])}")
    for line in table(results):
        print(line)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.second_reader",
                                     description=(__doc__ or "").split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    blind = verbs.add_parser("blind", help="write the stories with the gold taken out")
    blind.add_argument("out", type=Path)
    blind.add_argument("stories", nargs="*", type=Path, default=[JUDGE_DIR])
    check = verbs.add_parser("check", help="check label files cover every perceiver and valence")
    check.add_argument("labels", nargs="+", type=Path)
    scoring = verbs.add_parser("score", help="compare the readers, and score the modes against both")
    scoring.add_argument("--labels", type=Path, default=LABELS_DIR, help="the second reader's label files")
    scoring.add_argument("--mode", choices=["fallback", "replay"], default="replay",
                         help="replay: the recorded model's readings beside the fallback's")
    scoring.add_argument("--fixtures", type=Path, default=None,
                         help="the recorded set to replay (default evals/fixtures/qwen1.5b)")
    scoring.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.verb == "score":
        return score_command(args.labels, args.mode, args.json, args.fixtures)
    if args.verb == "check":
        stories = {s.name.removeprefix("judge_"): s for s in load_stories([JUDGE_DIR])}
        for path in args.labels:
            name = path.stem
            if name not in stories:
                raise SystemExit(f"{path}: no story {name!r} in {JUDGE_DIR}")
            try:
                load_second(path, stories[name])
            except CaseError as error:
                raise SystemExit(f"{path}: {error}") from error
            print(f"{path}: ok")
        return 0
    if args.verb == "blind":
        for path in write_blind(args.out, load_stories(args.stories)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
