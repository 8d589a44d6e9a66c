"""The eval runner: play one case into a fresh world, check its expectations where they stand,
and collect the figures of the run.

`run_case(case, factory)` asks `factory(case.config)` for a fresh `Curator` (the mode lives in the
factory; `run_cases` gets one per case from a `CaseMode`, see modes.py), runs the case's `start`
actions, then each turn followed by the actions and checks at that turn, then the `end` actions and
checks. It returns a `CaseResult`: each check's verdict, metrics (model calls, tokens, cost from the
call log; steps and fallbacks by reason from the turns' `StepRecord`s; wall time), the steps a model and
the fallback decided (`steps`; over the run, `RunReport.steps`) and, for the report, per-point series:
sentiment and bond per relationship (and trust, which evolution cycles move), memories per tier per
character, the strength of each live memory over game time, which steps a model or a fallback decided,
the attributes of each character a cycle has moved and the drifts `evolve` actions found.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Protocol

from pydantic import BaseModel, Field

from curator import ChangeSet, Curator, CuratorConfig, CuratorError, FallbackDecider
from curator.evals.cases import Action, EvalCase, EvolveAction
from curator.evals.expectations import evaluate
from curator.evals.state import CheckResult, RunState, Snapshot

CuratorFactory = Callable[[CuratorConfig], Curator]


def fallback_curator(config: CuratorConfig) -> Curator:
    """Every step decided by its deterministic fallback, in a world that lives in memory."""
    return Curator(":memory:", config=config, decider=FallbackDecider())


class CaseMode(Protocol):
    """How a run decides its steps (modes.py: fallback, replay, live)."""

    name: str
    model: str | None

    def runs(self, case: EvalCase) -> bool:
        """False when this mode cannot run the case (replay: nothing recorded for it)."""

    def session(self, case: EvalCase) -> AbstractContextManager[CuratorFactory]:
        """Fresh worlds for one case, while whatever serves its answers is active."""


class Metrics(BaseModel):
    turns: int = 0
    steps: int = 0
    decided_by_model: int = 0
    fallbacks_by_reason: dict[str, int] = Field(default_factory=dict)
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    wall_seconds: float = 0.0


class StepCounts(BaseModel):
    """How many steps a model decided and how many its fallback (runs saved before: 0 and 0)."""

    model: int = 0
    fallback: int = 0

    @property
    def model_share(self) -> float | None:
        """The model's share of the steps, 0 to 1 (None when no step ran)."""
        return round(self.model / (self.model + self.fallback), 4) if self.model + self.fallback else None


class RelationshipSeries(BaseModel):
    owner: str
    other: str
    sentiment: list[float | None]  # one per point; None before they met
    bond: list[float | None]
    trust: list[float | None] = Field(default_factory=list)  # moved by evolution cycles only


class MemorySeries(BaseModel):
    """One memory's strength at each point it was live (recent or core)."""

    id: str
    owner: str
    subject: str | None
    kind: str
    content: str
    times: list[str] = Field(default_factory=list)  # world time of each sample
    strength: list[float] = Field(default_factory=list)
    tier: list[str] = Field(default_factory=list)


class StepUse(BaseModel):
    point: str
    character: str
    step: str
    decided_by: str
    reason: str | None = None


class DriftLine(BaseModel):
    """A personality trait an evolution cycle found changed, and why."""

    point: str
    character: str
    trait: str
    old: str
    new: str
    reason: str


class Series(BaseModel):
    """What changed over the run, point by point (a point: a turn id, or `end` after actions)."""

    points: list[str] = Field(default_factory=list)
    world_times: list[str | None] = Field(default_factory=list)
    relationships: list[RelationshipSeries] = Field(default_factory=list)
    tiers: dict[str, dict[str, list[int]]] = Field(default_factory=dict)  # character → tier → counts
    memories: list[MemorySeries] = Field(default_factory=list)
    steps: list[StepUse] = Field(default_factory=list)
    # character → attribute → value per point (None before a cycle first moved the character)
    attributes: dict[str, dict[str, list[float | None]]] = Field(default_factory=dict)
    drifts: list[DriftLine] = Field(default_factory=list)


class CaseResult(BaseModel):
    name: str
    about: str
    path: str
    seeds: list[str]
    mode: str
    ok: bool  # every check passed and the run completed
    passed: int
    failed: int
    error: str | None = None  # the run stopped early (the checks after it count as failed)
    checks: list[CheckResult]
    metrics: Metrics
    steps: StepCounts = Field(default_factory=StepCounts)
    series: Series | None = None


class Totals(BaseModel):
    cases: int = 0
    cases_ok: int = 0
    checks: int = 0
    passed: int = 0
    failed: int = 0
    pass_rate: float = 0.0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    fallbacks_by_reason: dict[str, int] = Field(default_factory=dict)
    wall_seconds: float = 0.0


class RunReport(BaseModel):
    mode: str
    model: str | None = None
    cases: list[CaseResult]
    totals: Totals
    steps: StepCounts = Field(default_factory=StepCounts)  # over every case run
    not_recorded: list[str] = Field(default_factory=list)  # replay: cases with no fixtures, not run


class _Recorder:
    """Builds the series as the run reaches each point."""

    def __init__(self) -> None:
        self.series = Series()
        self._rels: dict[tuple[str, str], RelationshipSeries] = {}
        self._memories: dict[str, MemorySeries] = {}

    def sample(self, point: str, state: RunState, changes: list[ChangeSet]) -> Snapshot:
        curator, n = state.curator, len(self.series.points)
        clock = curator.clock()
        when = clock.isoformat().replace("+00:00", "Z") if clock is not None else None
        self.series.points.append(point)
        self.series.world_times.append(when)
        snapshot = Snapshot()
        for cid in curator.characters():
            character = state.character(cid)
            tiers = self.series.tiers.setdefault(cid, {"recent": [0] * n, "core": [0] * n,
                                                       "archived": [0] * n})
            for tier, count in curator.counts(cid).items():
                tiers.setdefault(tier, [0] * n).append(count)
            for other, rel in character.relationships.items():
                snapshot.feelings[(cid, other)] = (rel.current_sentiment, rel.overall_bond)
                snapshot.trust[(cid, other)] = (rel.trust, rel.rapport)
            for memory in state.memories(cid):
                if memory.tier.value == "archived":
                    continue
                snapshot.strengths[memory.id] = memory.strength
                snapshot.recall_counts[memory.id] = memory.recall_count
                line = self._memories.get(memory.id)
                if line is None:
                    line = self._memories[memory.id] = MemorySeries(
                        id=memory.id, owner=memory.owner, subject=memory.subject, kind=memory.kind.value,
                        content=memory.content)
                    self.series.memories.append(line)
                line.times.append(when or "")
                line.strength.append(round(memory.strength, 4))
                line.tier.append(memory.tier.value)
        for key, (sentiment, bond) in snapshot.feelings.items():
            rel_line = self._rels.get(key)
            if rel_line is None:
                rel_line = self._rels[key] = RelationshipSeries(
                    owner=key[0], other=key[1], sentiment=[None] * n, bond=[None] * n, trust=[None] * n)
                self.series.relationships.append(rel_line)
            rel_line.sentiment.append(round(sentiment, 4))
            rel_line.bond.append(round(bond, 4))
            rel_line.trust.append(round(snapshot.trust[key][0], 4))
        for rel_line in self._rels.values():  # a relationship gone (its character deleted)
            if len(rel_line.sentiment) == n:
                rel_line.sentiment.append(None)
                rel_line.bond.append(None)
                rel_line.trust.append(None)
        self._attributes(curator, snapshot, n)
        for counts in self.series.tiers.values():
            for values in counts.values():
                values.extend([0] * (n + 1 - len(values)))
        self.series.steps.extend(StepUse(point=point, character=s.character, step=s.step,
                                         decided_by=s.decided_by, reason=s.reason)
                                 for c in changes for s in c.steps)
        return snapshot

    def _attributes(self, curator: Curator, snapshot: Snapshot, n: int) -> None:
        """The attributes of the characters a cycle has moved (one cheap read of the table)."""
        names, start = curator.config.evolution.attributes, curator.config.evolution.start
        rows = curator.world.conn.execute("select character, name, value from attributes").fetchall()
        for character, name, value in rows:
            snapshot.attributes.setdefault(str(character), dict.fromkeys(names, start))[str(name)] = \
                float(value)
        for character, values in snapshot.attributes.items():
            lines = self.series.attributes.setdefault(character, {})
            for name, value in values.items():
                lines.setdefault(name, [None] * n).append(round(value, 4))
        for lines in self.series.attributes.values():
            for line in lines.values():
                line.extend([None] * (n + 1 - len(line)))


def _evolve(state: RunState, point: str, action: EvolveAction) -> ChangeSet:
    """Run a cycle; its drifts go to the state (for `drift` checks) and the series."""
    report = state.curator.evolve(action.world_time)
    state.cycles.append(point)
    for evolved in report.characters:
        state.drifts.extend((point, evolved.character, d) for d in evolved.drift)
    return ChangeSet(forgotten=list(report.forgotten), steps=list(report.steps))


def _act(curator: Curator, action: Action) -> ChangeSet | None:
    if action.fade is not None:
        return curator.fade(until=action.fade.until)
    if action.end_episode is not None:
        return curator.end_episode(action.end_episode.character, with_=action.end_episode.with_)
    if action.context is not None:
        a = action.context
        curator.context(a.character, a.situation, with_=a.with_, max_tokens=a.max_tokens)
        return None
    if action.persona is not None:
        curator.set_persona(action.persona.character, action.persona.text)
        return None
    if (g := action.goal) is not None:
        curator.goals.set(g.character, g.label, g.description, progress=g.progress, priority=g.priority,
                          note=g.note)
        return None
    b = action.block
    assert b is not None
    if b.op == "create":
        curator.blocks.create(b.owner, b.label, b.content, shared=b.shared)
        if b.characters:
            curator.blocks.attach(b.owner, b.label, *b.characters)
    elif b.op == "set":
        curator.blocks.set(b.owner, b.label, b.content)
    elif b.op == "append":
        curator.blocks.append(b.owner, b.label, b.content)
    elif b.op == "attach":
        curator.blocks.attach(b.owner, b.label, *b.characters)
    else:
        curator.blocks.detach(b.owner, b.label, *b.characters)
    return None


def run_case(case: EvalCase, factory: CuratorFactory, *, mode: str = "fallback",
             series: bool = True) -> CaseResult:
    """Play `case` into a fresh world from `factory` and check it; never raises for a
    CuratorError in the run (it is the case's `error`, and the unchecked checks fail)."""
    started = time.perf_counter()
    actions: dict[str, list[Action]] = defaultdict(list)
    for action in case.actions:
        actions[action.after].append(action)
    checks: dict[str, list[int]] = defaultdict(list)
    for n, check in enumerate(case.checks):
        checks[check.after].append(n)
    verdicts: dict[int, CheckResult] = {}
    recorder = _Recorder()
    error: str | None = None
    all_changes: list[ChangeSet] = []
    curator = factory(case.config)
    try:
        state = RunState(curator)

        def reach(point: str, turn_changes: list[ChangeSet]) -> None:
            state.at(point)
            changes = list(turn_changes)
            for action in actions.get(point, []):
                done = _evolve(state, point, action.evolve) if action.evolve is not None \
                    else _act(curator, action)
                state.forget()
                if done is not None:
                    changes.append(done)
                    state.changes.append((point, done))
            all_changes.extend(changes)
            if point != "start" and (point != "end" or actions.get("end")):
                state.snapshots[point] = recorder.sample(point, state, changes)
                recorder.series.drifts.extend(
                    DriftLine(point=p, character=c, trait=d.trait, old=d.old, new=d.new, reason=d.reason)
                    for p, c, d in state.drifts if p == point)
            for n in checks.get(point, []):
                verdicts[n] = evaluate(n, case.checks[n], state)

        where = "start"
        try:
            reach("start", [])
            for turn in case.turns:
                where = turn.id
                result = curator.observe(turn)
                state.turns[turn.id] = turn
                state.results[turn.id] = result
                state.changes.append((turn.id, result))
                reach(turn.id, [result])
            where = "end"
            reach("end", [])
        except CuratorError as failure:  # a missing fixture: re-record the case
            error = f"the run stopped at {where}: {failure}"
        calls = curator.call_summary()
    finally:
        curator.close()
    for n, check in enumerate(case.checks):
        if n not in verdicts:
            verdicts[n] = CheckResult(index=n, expect=check.expect, after=check.after, passed=False,
                                      expected=check.expect.replace("_", " "), found="not checked",
                                      reason=f"not checked: {error}", note=check.note)
    steps = [s for c in all_changes for s in c.steps]
    fallbacks = Counter(s.reason or "unknown" for s in steps if s.decided_by == "fallback")
    decided = StepCounts(model=len(steps) - fallbacks.total(), fallback=fallbacks.total())
    metrics = Metrics(turns=len(case.turns), steps=len(steps), decided_by_model=decided.model,
                      fallbacks_by_reason=dict(fallbacks), model_calls=calls.calls,
                      prompt_tokens=calls.prompt_tokens, completion_tokens=calls.completion_tokens,
                      cost=calls.cost, wall_seconds=round(time.perf_counter() - started, 3))
    results = [verdicts[n] for n in range(len(case.checks))]
    passed = sum(1 for r in results if r.passed)
    return CaseResult(name=case.name, about=case.about, path=str(case.path), seeds=case.seeds, mode=mode,
                      ok=error is None and passed == len(results), passed=passed,
                      failed=len(results) - passed, error=error, checks=results, metrics=metrics,
                      steps=decided, series=recorder.series if series else None)


def run_cases(cases: list[EvalCase], mode: CaseMode, *, series: bool = True,
              on_case: Callable[[CaseResult], None] | None = None) -> RunReport:
    """Run every case the mode can run (each in its own fresh world) and total the results."""
    results: list[CaseResult] = []
    skipped = [case.name for case in cases if not mode.runs(case)]
    for case in cases:
        if case.name in skipped:
            continue
        with mode.session(case) as factory:
            result = run_case(case, factory, mode=mode.name, series=series)
        results.append(result)
        if on_case is not None:
            on_case(result)
    steps = StepCounts(model=sum(r.steps.model for r in results),
                       fallback=sum(r.steps.fallback for r in results))
    return RunReport(mode=mode.name, model=mode.model, cases=results, totals=totals(results), steps=steps,
                     not_recorded=skipped)


def totals(results: list[CaseResult]) -> Totals:
    t = Totals(cases=len(results), cases_ok=sum(1 for r in results if r.ok))
    fallbacks: Counter[str] = Counter()
    costs = [r.metrics.cost for r in results if r.metrics.cost is not None]
    for r in results:
        t.passed += r.passed
        t.failed += r.failed
        t.model_calls += r.metrics.model_calls
        t.prompt_tokens += r.metrics.prompt_tokens
        t.completion_tokens += r.metrics.completion_tokens
        t.wall_seconds += r.metrics.wall_seconds
        fallbacks.update(r.metrics.fallbacks_by_reason)
    t.checks = t.passed + t.failed
    t.pass_rate = round(t.passed / t.checks, 4) if t.checks else 0.0
    t.cost = round(sum(costs), 6) if costs else None
    t.fallbacks_by_reason = dict(fallbacks)
    t.wall_seconds = round(t.wall_seconds, 3)
    return t
