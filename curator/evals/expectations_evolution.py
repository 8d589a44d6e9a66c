"""Checkers of the evolution kinds: attributes, personality traits, drift between
personality snapshots and trust in others, read after a case's `evolve` actions.

Like every checker (expectations.py, which merges `EVOLUTION_CHECKERS` into its table), each
returns what was expected in words, whether it passed, and what was found: "expected bear's
caution at least 0.6, found +0.560 (last moved by: +0.030 failure …)". An earlier value
(`above_at`) is the one the runner's snapshot holds for that point; an attribute of a
character no cycle has moved yet reads as the configured start, as `Curator.attributes` does.
"""

from __future__ import annotations

from collections.abc import Callable

from curator.evals.kinds import AttributeCheck, DriftCheck, PersonalityCheck, TrustCheck
from curator.evals.state import RunState, in_range, pair_in_range, range_words

Verdict = tuple[str, bool, str]


def _attribute(check: AttributeCheck, state: RunState) -> Verdict:
    expected = f"{check.character}'s {check.name} {range_words(check.value)}"
    values = state.curator.attributes(check.character)
    if check.name not in values:
        return expected, False, (f"found no attribute {check.name!r} (the world's attributes: "
                                 f"{', '.join(values)})")
    start = state.curator.config.evolution.start

    def before(point: str) -> float | None:
        snapshot = state.snapshots.get(point)
        if snapshot is None:
            return None
        return snapshot.attributes.get(check.character, {}).get(check.name, start)

    ok, text = in_range(values[check.name], check.value, before)
    moved = [c for c in state.curator.attribute_changes(check.character)
             if c.attribute == check.name and c.other is None]
    if not state.cycles:
        text += "; no evolution cycle has run"
    elif moved:
        last = sorted(moved[-8:], key=lambda c: -abs(c.delta))[:2]
        text += (f"; moved {len(moved)} time(s), lately most by: "
                 + "; ".join(c.reason for c in last))
    else:
        text += "; never moved"
    return expected, ok, "found " + text


def _personality(check: PersonalityCheck, state: RunState) -> Verdict:
    wanted = [check.equals] if check.equals is not None else list(check.one_of or [])
    expected = f"{check.character}'s {check.trait} to be " + " or ".join(wanted)
    snapshot = state.curator.personality(check.character)
    if snapshot is None:
        return expected, False, f"found no personality snapshot of {check.character} (no evolve yet)"
    value = getattr(snapshot, check.trait)
    attrs = ", ".join(f"{k} {v:.2f}" for k, v in sorted(snapshot.attributes.items()))
    return expected, value in wanted, f"found {value} (snapshot at {snapshot.world_time}; {attrs})"


def _drift(check: DriftCheck, state: RunState) -> Verdict:
    ends = " ".join(p for p in (f"from {check.from_}" if check.from_ else "",
                                f"to {check.to}" if check.to else "") if p)
    expected = f"{check.character}'s {check.trait} to drift" + (f" {ends}" if ends else "")
    limit = state.index(check.after)
    seen = [(point, d) for point, who, d in state.drifts
            if who == check.character and d.trait == check.trait and state.index(point) <= limit]
    hit = next(((point, d) for point, d in seen if (check.from_ is None or d.old == check.from_)
                and (check.to is None or d.new == check.to)), None)
    if hit is not None:
        point, d = hit
        return expected, True, f"found {d.old} → {d.new} at {point}: {d.reason}"
    if seen:
        return expected, False, "found only " + "; ".join(f"{d.old} → {d.new} at {p}" for p, d in seen[:4])
    snapshot = state.curator.personality(check.character)
    now = f" (it is {getattr(snapshot, check.trait)})" if snapshot is not None else ""
    return expected, False, (f"found no drift of it in {len(state.cycles)} evolution cycle(s){now}")


def _trust(check: TrustCheck, state: RunState) -> Verdict:
    parts = [f"trust {range_words(check.trust)}" if check.trust else "",
             f"rapport {range_words(check.rapport)}" if check.rapport else ""]
    expected = f"{check.owner}'s trust in {check.other}: " + " and ".join(p for p in parts if p)
    rel = state.character(check.owner).relationships.get(check.other)
    if rel is None:
        return expected, False, f"{check.owner} has no relationship with {check.other}"
    ok, found = pair_in_range(state, (check.owner, check.other), "trust",
                              [("trust", rel.trust, check.trust), ("rapport", rel.rapport, check.rapport)])
    cycles = "" if state.cycles else " (no evolution cycle has run)"
    return expected, ok, "found " + ", ".join(found) + cycles


EVOLUTION_CHECKERS: dict[type, Callable[..., Verdict]] = {
    AttributeCheck: _attribute, PersonalityCheck: _personality, DriftCheck: _drift, TrustCheck: _trust,
}
