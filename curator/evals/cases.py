"""Eval cases: the file format (YAML or JSON) and its loading, with a clear error when malformed.

A case is a small game session about one behaviour of curator's design: turns (a JSONL transcript
beside it, inline `turns:`, or the turns and personas of a judgement story, `story:`), optional
`config` overrides, `actions` at chosen points
(fade, episode end, a recalling context, personas, blocks, an evolution cycle) and `checks`, expectations read
at a turn (`after: t005`) or at the `end`. This module owns the pydantic models of that
format (the expectation kinds are a union discriminated on `expect`) and `load_case`, which
returns an `EvalCase` ready to run or raises `CaseError` naming the file and the field
(`checks.2.owner`). The kinds of checks are in kinds.py, the checkers in expectations.py, the runner in
runner.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from curator import (
    CaseError,
    CharacterId,
    CuratorConfig,
    InvalidInput,
    InvalidTurn,
    Turn,
    load_json,
    parse_turn,
)
from curator.evals.judge import load_story
from curator.evals.kinds import EXPECT_KINDS, Expectation

# The design documents a case checks (`seeds:` in a case file), by number or file name.
SEEDS = {"000": "000_c491fa3314b54f7a.txt", "001": "001_2369f0d84f045f0e.txt",
         "002": "002_30c363cf2d4e5a13.txt", "003": "003_b283906ede68e61c.txt",
         "004": "004_2a854f71315ae6ff.txt"}
CASE_SUFFIXES = (".yaml", ".yml", ".json")
_TURN_PREFIX = re.compile(r"^invalid turn: (turn '[^']*': )?(field '[^']*': )?")

# -- actions ---------------------------------------------------------------------------------


class _Act(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class FadeAction(_Act):
    until: datetime


class EndEpisodeAction(_Act):
    character: CharacterId
    with_: CharacterId | None = Field(default=None, alias="with")


class ContextAction(_Act):
    """Ask for a context (it recalls: the memories used get stronger)."""

    character: CharacterId
    situation: str = ""
    with_: list[CharacterId] = Field(default_factory=list, alias="with")
    max_tokens: int = Field(default=1000, ge=50, le=1_000_000)


class PersonaAction(_Act):
    character: CharacterId
    text: str


class BlockAction(_Act):
    op: Literal["create", "set", "append", "attach", "detach"]
    owner: CharacterId
    label: str
    content: str = ""
    shared: bool = False
    characters: list[CharacterId] = Field(default_factory=list)


class EvolveAction(_Act):
    """Run an evolution cycle at `world_time` (default: the world clock)."""

    world_time: datetime | None = None


class GoalAction(_Act):
    """Set or move a goal the way a game does (`Goals.set`): a description creates it."""

    character: CharacterId
    label: str
    description: str | None = None
    progress: float | None = Field(default=None, ge=0.0, le=1.0)
    priority: int | None = None
    note: str = ""


_ACTIONS = ("fade", "end_episode", "context", "persona", "block", "evolve", "goal")


class Action(_Act):
    """One thing done to the world at a point (`start`, a turn id, or `end`), before the
    checks of that point: exactly one of fade, end_episode, context, persona, block, evolve, goal."""

    after: str
    fade: FadeAction | None = None
    end_episode: EndEpisodeAction | None = None
    context: ContextAction | None = None
    persona: PersonaAction | None = None
    block: BlockAction | None = None
    evolve: EvolveAction | None = None
    goal: GoalAction | None = None

    @model_validator(mode="after")
    def _one(self) -> Action:
        given = [n for n in _ACTIONS if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(f"an action is exactly one of {', '.join(_ACTIONS)}"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self


class CaseDocument(BaseModel):
    """A case file as written."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=100)
    about: str = Field(min_length=1, max_length=300)
    seeds: list[str] = Field(min_length=1)
    config: dict[str, Any] = Field(default_factory=dict)
    transcript: str | None = None
    turns: list[dict[str, Any]] | None = None
    story: str | None = None  # a judgement story (judge.py): its turns, and its characters' personas
    actions: list[Action] = Field(default_factory=list)
    checks: list[Expectation] = Field(min_length=1)

    @model_validator(mode="after")
    def _turns(self) -> CaseDocument:
        given = [s for s in (self.transcript, self.turns, self.story) if s is not None]
        if len(given) != 1:
            raise ValueError("give one of transcript (a JSONL path), turns (a list) or story "
                             "(a judgement story's path)")
        return self


@dataclass(frozen=True)
class EvalCase:
    """A loaded, validated case: what the runner plays."""

    path: Path
    name: str
    about: str
    seeds: list[str]
    config: CuratorConfig
    turns: list[Turn]
    actions: list[Action]
    checks: list[Expectation]
    # Where a fixture set files this case's recorded answers: its name, or for a case that
    # plays a judgement story the story's (the same world, the same prompts).
    filed_as: str = ""

    def __post_init__(self) -> None:
        if not self.filed_as:
            object.__setattr__(self, "filed_as", self.name)


# -- loading ---------------------------------------------------------------------------------


def case_files(paths: list[Path]) -> list[Path]:
    """The case files named, a directory standing for the case files directly in it."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.iterdir() if p.suffix in CASE_SUFFIXES and p.is_file()))
        else:
            found.append(path)
    return found


def load_case(path: Path) -> EvalCase:
    """Read and validate one case file; `CaseError` names the file and the field."""
    where = str(path)
    raw = _read_document(path)
    try:
        doc = CaseDocument.model_validate(raw)
    except ValidationError as error:
        raise _from_validation(error, where) from error
    seeds = []
    for n, seed in enumerate(doc.seeds):
        name = SEEDS.get(seed, seed)
        if name not in SEEDS.values():
            raise CaseError(f"unknown seed {seed!r} (known: {', '.join(SEEDS)} or their file names)",
                            path=where, field=f"seeds.{n}")
        seeds.append(name)
    try:
        config = CuratorConfig.model_validate(doc.config)
    except ValidationError as error:
        raise _from_validation(error, where, prefix="config") from error
    actions, filed_as = doc.actions, doc.name
    if doc.story is not None:
        story = load_story(path.parent / doc.story)
        filed_as = story.name
        raws: list[tuple[str, str, Any]] = [("story", f"{doc.story} turn {item.id}: ",
                                             item.model_dump(exclude={"split", "gold"}))
                                            for item in story.turns]
        # The story's characters are who its personas say, before the first turn.
        actions = [Action.model_validate({"after": "start", "persona": {"character": c, "text": text}})
                   for c, text in story.characters.items()] + actions
    else:
        raws = _raw_turns(doc, path)
    turns = _turns(raws, where, field="turns" if doc.turns is not None else "transcript")
    _check_points(doc, turns, where)
    return EvalCase(path=path, name=doc.name, about=doc.about, seeds=seeds, config=config, turns=turns,
                    actions=actions, checks=doc.checks, filed_as=filed_as)


def load_cases(paths: list[Path]) -> list[EvalCase]:
    cases = [load_case(p) for p in case_files(paths)]
    seen: dict[str, Path] = {}
    for case in cases:
        if case.name in seen:
            raise CaseError(f"another case has this name ({seen[case.name]})", path=str(case.path),
                            field="name")
        seen[case.name] = case.path
    return cases


def _read_document(path: Path) -> dict[str, Any]:
    where = str(path)
    if path.suffix not in CASE_SUFFIXES:
        raise CaseError(f"a case file ends in {', '.join(CASE_SUFFIXES)}", path=where)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CaseError(f"cannot read it ({error})", path=where) from error
    raw: Any
    if path.suffix == ".json":
        try:
            raw = load_json(text, what="the case")  # deep nesting, NaN, huge numbers: refused, typed
        except InvalidInput as error:
            said = str(error).removeprefix("invalid input: the case").lstrip(": ")
            raise CaseError(said.replace("is not JSON", "not valid JSON", 1), path=where) from error
    else:
        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError as error:
            mark = getattr(error, "problem_mark", None)
            at = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
            problem = getattr(error, "problem", None) or "unreadable"
            raise CaseError(f"not valid YAML ({problem}{at})", path=where) from error
    if not isinstance(raw, dict):
        raise CaseError(f"a case is a mapping (name, about, seeds, turns, checks …), "
                        f"not {type(raw).__name__}", path=where)
    return raw


def _from_validation(error: ValidationError, where: str, prefix: str | None = None) -> CaseError:
    """The first problem of a pydantic error, its loc as a dotted field path (the tag of a
    discriminated union left out: `checks.2.owner`, not `checks.2.memory_exists.owner`)."""
    problems = error.errors()
    first = problems[0]
    loc = [str(p) for p in first["loc"] if str(p) not in EXPECT_KINDS and not str(p).startswith(
        "function-")]
    field = ".".join([prefix, *loc] if prefix else loc) or None
    message = first["msg"]
    if first["type"] == "union_tag_invalid":
        message = f"unknown expect kind {first['input'].get('expect')!r} (known: {', '.join(EXPECT_KINDS)})" \
            if isinstance(first["input"], dict) else message
    elif first["type"] == "union_tag_not_found":
        message = f"a check needs `expect:`, one of {', '.join(EXPECT_KINDS)}"
    elif first["type"] == "extra_forbidden":
        message = "unknown field"
    more = f" (and {len(problems) - 1} more problem{'s' if len(problems) > 2 else ''})" \
        if len(problems) > 1 else ""
    return CaseError(message + more, path=where, field=field)


def _raw_turns(doc: CaseDocument, path: Path) -> list[tuple[str, str, Any]]:
    """The turns as written, each with its field and where in the transcript it is."""
    where = str(path)
    raws: list[tuple[str, str, Any]]  # (field, where in the transcript, the turn)
    if doc.turns is not None:
        raws = [(f"turns.{n}", "", t) for n, t in enumerate(doc.turns)]
    else:
        assert doc.transcript is not None
        source = path.parent / doc.transcript
        try:
            lines = source.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as error:
            raise CaseError(f"cannot read the transcript {source} ({error})", path=where,
                            field="transcript") from error
        raws = [("transcript", f"{doc.transcript} line {n}: ", line) for n, line in enumerate(lines, 1)
                if line.strip() and not line.lstrip().startswith("#")]
    return raws


def _turns(raws: list[tuple[str, str, Any]], where: str, *, field: str) -> list[Turn]:
    """Validate the turns; an error names `turns.N.field`, or `transcript` and the line."""
    turns: list[Turn] = []
    seen: set[str] = set()
    for at, line, raw in raws:
        try:
            turn = parse_turn(raw)
        except InvalidTurn as error:
            if line:
                raise CaseError(line + str(error), path=where, field=at) from error
            message = _TURN_PREFIX.sub("", str(error))
            raise CaseError(message, path=where,
                            field=f"{at}.{error.field}" if error.field else at) from error
        problem = None
        if turn.id in ("start", "end"):
            problem = "'start' and 'end' name points of a case, not turns"
        elif turn.id in seen:
            problem = f"turn id {turn.id!r} appears twice"
        elif turns and turn.world_time < turns[-1].world_time:
            problem = f"turn {turn.id!r} is earlier than the turn before it"
        if problem:
            raise CaseError(line + problem, path=where, field=at)
        seen.add(turn.id)
        turns.append(turn)
    if not turns:
        raise CaseError("the case has no turns", path=where, field=field)
    return turns


def _check_points(doc: CaseDocument, turns: list[Turn], where: str) -> None:
    """Every point named exists, and a check reads only points at or before its own."""
    order = {"start": -1, **{t.id: n for n, t in enumerate(turns)}, "end": len(turns)}
    for n, action in enumerate(doc.actions):
        if action.after not in order:
            raise CaseError(f"no turn {action.after!r} in this case (or start, end)", path=where,
                            field=f"actions.{n}.after")
    for n, check in enumerate(doc.checks):
        if check.after not in order or check.after == "start":
            raise CaseError(f"no turn {check.after!r} in this case (or end)", path=where,
                            field=f"checks.{n}.after")
        for point in check.points():
            if point not in order or point == "start":
                raise CaseError(f"no turn {point!r} in this case", path=where, field=f"checks.{n}")
            if order[point] > order[check.after]:
                raise CaseError(f"reads {point!r}, which comes after the check's point "
                                f"{check.after!r}", path=where, field=f"checks.{n}")
