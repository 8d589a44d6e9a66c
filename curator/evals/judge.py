"""The judgement eval: does curator read a turn the way a careful reader would?

A judgement story (`evals/judge/*.yaml`, format in its README) is a game session in one genre
with gold labels per turn and per perceiver: the gap, who helped, who harmed, the perceiver's
feeling toward each other character, a significance band (low, medium, high), whether it is a
defining (core) moment and whether it is insignificant. The story is played in order into one
world (earlier turns build the trust a later betrayal needs), and each perceiver's reading of
each turn (`TurnResult.readings`) is scored against the gold, field by field.

A reading's significance band (trivial, minor, notable, major, defining) is scored as: low =
trivial or minor, medium = notable, high = major or defining; core = defining; insignificant
= trivial. Valence is scored per (perceiver, other character) pair, a missing feeling counting
as neutral; every other field once per perceiver. Overall accuracy is the mean of the seven
fields' accuracies, so that no field outweighs another.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from curator import CaseError, CuratorConfig, CuratorError, Gap, Turn, TurnReading

FIELDS = ("gap", "helped", "harmed", "valence", "significance", "core", "insignificant")
Band = Literal["low", "medium", "high"]
Feeling = Literal["positive", "neutral", "negative"]
# A reading's significance band as the gold's (low, medium, high).
GOLD_BAND = {"trivial": "low", "minor": "low", "notable": "medium", "major": "high", "defining": "high"}


class Gold(BaseModel):
    """What a careful reader says one perceiver made of one turn."""

    model_config = ConfigDict(extra="forbid")

    gap: Gap
    helped: list[str] = Field(default_factory=list)
    harmed: list[str] = Field(default_factory=list)
    valence: dict[str, Feeling] = Field(default_factory=dict)
    significance: Band
    core: bool = False
    insignificant: bool = False

    def answers(self) -> dict[str, Any]:
        """The label's answer to each field, in the form `predicted` gives a reading's."""
        return {"gap": self.gap.value, "helped": sorted(self.helped), "harmed": sorted(self.harmed),
                "valence": dict(self.valence), "significance": self.significance, "core": self.core,
                "insignificant": self.insignificant}


class JudgeTurn(BaseModel):
    model_config = ConfigDict(extra="allow")  # the turn's own fields, checked by Turn

    id: str
    split: Literal["dev", "test"] = "dev"
    gold: dict[str, Gold]


class JudgeStory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    genre: str
    about: str = ""
    characters: dict[str, str] = Field(default_factory=dict)
    turns: list[JudgeTurn] = Field(min_length=1)
    _stem: str = PrivateAttr(default="")

    @property
    def name(self) -> str:
        """The story's name as fixture sets file it: judge_<file name without .yaml>."""
        return f"judge_{self._stem or self.genre}"

    @property
    def filed_as(self) -> str:
        return self.name


def turn_of(item: JudgeTurn) -> Turn:
    data = item.model_dump(exclude={"split", "gold"})
    return Turn.model_validate(data)


def load_story(path: Path) -> JudgeStory:
    """Read and check one story file; CaseError names the file and the field."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        story = JudgeStory.model_validate(doc)
        story._stem = path.stem
    except (OSError, yaml.YAMLError) as error:
        raise CaseError(f"cannot read the story: {error}", path=str(path)) from error
    except ValidationError as error:
        first = error.errors()[0]
        raise CaseError(first["msg"], path=str(path), field=".".join(map(str, first["loc"]))) from error
    for n, item in enumerate(story.turns):
        try:
            turn = turn_of(item)
        except ValidationError as error:
            first = error.errors()[0]
            raise CaseError(first["msg"], path=str(path),
                            field=f"turns.{n}." + ".".join(map(str, first["loc"]))) from error
        if set(item.gold) != set(turn.perceivers):
            raise CaseError(f"gold must name exactly the perceivers {turn.perceivers}", path=str(path),
                            field=f"turns.{n}.gold")
    return story


def load_stories(paths: list[Path]) -> list[JudgeStory]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.glob("*.yaml")) if path.is_dir() else [path])
    if not files:
        raise CaseError("no judgement stories (*.yaml) found", path=", ".join(map(str, paths)))
    return [load_story(f) for f in files]


class FieldScore(BaseModel):
    right: int = 0
    total: int = 0

    @property
    def accuracy(self) -> float:
        return self.right / self.total if self.total else 0.0


class Miss(BaseModel):
    """One field a reading got wrong."""

    story: str
    turn: str
    character: str
    field: str
    gold: Any
    read: Any
    decided_by: str


class JudgeReport(BaseModel):
    mode: str
    split: str
    stories: list[str]
    readings: int = 0
    decided_by_model: int = 0
    fields: dict[str, FieldScore] = Field(default_factory=lambda: {f: FieldScore() for f in FIELDS})
    misses: list[Miss] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)

    def accuracy(self) -> dict[str, float]:
        scores = {f: round(s.accuracy, 4) for f, s in self.fields.items()}
        scores["overall"] = round(sum(scores[f] for f in FIELDS) / len(FIELDS), 4)
        return scores

    def summary(self) -> dict[str, Any]:
        return {"mode": self.mode, "split": self.split, "stories": self.stories, "readings": self.readings,
                "decided_by_model": self.decided_by_model, "accuracy": self.accuracy(),
                "counts": {f: s.model_dump() for f, s in self.fields.items()}, "errors": self.errors}


def predicted(reading: TurnReading) -> dict[str, Any]:
    """A reading's answer to each gold field."""
    return {"gap": reading.gap, "helped": sorted(reading.helped), "harmed": sorted(reading.harmed),
            "valence": dict(reading.feelings), "significance": GOLD_BAND[reading.significance],
            "core": reading.significance == "defining", "insignificant": reading.significance == "trivial"}


def score(report: JudgeReport, story: str, turn: str, gold: Gold, reading: TurnReading) -> None:
    read = predicted(reading)
    wanted = gold.answers()
    del wanted["valence"]  # scored once per other character, below
    for name, value in wanted.items():
        _count(report, name, value == read[name], story, turn, reading, value, read[name])
    for other, feeling in gold.valence.items():
        got = read["valence"].get(other, "neutral")
        _count(report, "valence", got == feeling, story, turn, reading, {other: feeling}, {other: got})


def _count(report: JudgeReport, name: str, right: bool, story: str, turn: str, reading: TurnReading,
           gold: Any, read: Any) -> None:
    report.fields[name].total += 1
    if right:
        report.fields[name].right += 1
    else:
        report.misses.append(Miss(story=story, turn=turn, character=reading.character, field=name,
                                  gold=gold, read=read, decided_by=reading.decided_by))


def read_story(story: JudgeStory, factory: Any, errors: list[str]) -> dict[str, dict[str, TurnReading]]:
    """Play `story` into a fresh world from `factory`: each turn's readings by perceiver. A turn
    curator refuses is named in `errors`, and the story goes on."""
    by_turn: dict[str, dict[str, TurnReading]] = defaultdict(dict)
    with factory(CuratorConfig()) as world:
        for character, persona in story.characters.items():
            world.set_persona(character, persona)
        for item in story.turns:
            try:
                result = world.observe(turn_of(item))
            except CuratorError as error:
                errors.append(f"{story.genre} {item.id}: {error}")
                continue
            for reading in result.readings:
                by_turn[item.id][reading.character] = reading
    return by_turn


def judge_story(story: JudgeStory, factory: Any, report: JudgeReport, *, split: str = "all") -> None:
    """Play `story` into a fresh world from `factory` and score the readings of the turns in
    `split` (dev, test or all); a turn curator refuses is an error, and the run goes on."""
    by_turn = read_story(story, factory, report.errors)
    for item in story.turns:
        if split != "all" and item.split != split:
            continue
        for character, gold in item.gold.items():
            reading = by_turn[item.id].get(character)
            if reading is None:
                continue
            report.readings += 1
            report.decided_by_model += reading.decided_by == "model"
            score(report, story.genre, item.id, gold, reading)


def judge(stories: list[JudgeStory], mode: Any, *, split: str = "all") -> JudgeReport:
    """Score every story's readings in `mode` (modes.py); stories the mode cannot run (replay
    with nothing recorded for them) are named in the errors."""
    report = JudgeReport(mode=mode.name, split=split, stories=[s.genre for s in stories])
    for story in stories:
        if not mode.runs(story):
            report.errors.append(f"{story.genre}: not recorded")
            continue
        with mode.session(story) as factory:
            judge_story(story, factory, report, split=split)
    return report
