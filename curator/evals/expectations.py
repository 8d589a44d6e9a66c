"""Expectation checkers: each kind of eval check (kinds.py) read against a world mid-run.

`evaluate(index, check, state)` returns a `CheckResult`: passed or not, what a reader
expected in words, and what was found ("expected a core memory of bear matching 'trap',
found it in recent (strength 0.62)"). What a check may read is the `RunState` (state.py):
the Curator, the turns played and their results, every change set so far and the snapshots
the runner took at each point (for `above_at`). Checks only read: contexts are asked with `peek`.
"""

from __future__ import annotations

from collections.abc import Callable

from curator import CuratorError, Memory
from curator.evals.expectations_evolution import EVOLUTION_CHECKERS
from curator.evals.kinds import (
    SELF,
    ContextIncludes,
    ContextOmits,
    Expectation,
    FadeReviewCheck,
    MemoryAbsent,
    MemoryExists,
    MemoryMatch,
    MemoryStrength,
    MemoryTier,
    NoMemoryFormed,
    ObserverRemembers,
    ReinforcedNotDuplicated,
    RelationshipCheck,
    SummaryMentions,
    SummaryOmits,
    TierCounts,
)
from curator.evals.state import (
    CheckResult,
    RunState,
    hits,
    in_range,
    listed,
    matches,
    pair_in_range,
    range_words,
    said,
    shown,
)

Verdict = tuple[str, bool, str]  # what was expected (in words), passed, what was found


def evaluate(index: int, check: Expectation, state: RunState) -> CheckResult:
    checker = _CHECKERS[type(check)]
    try:
        expected, passed, found = checker(check, state)
    except CuratorError as error:
        expected, passed, found = _expected_of(check), False, f"could not check: {error}"
    return CheckResult(index=index, expect=check.expect, after=check.after, passed=passed,
                       expected=expected, found=found, note=check.note,
                       reason="" if passed else f"expected {expected}, {found}")


def _expected_of(check: Expectation) -> str:
    return f"{check.expect.replace('_', ' ')} ({check.model_dump_json(exclude_defaults=True)})"


def _about(subject: str | None) -> str:
    if subject is None:
        return ""
    return " about itself" if subject == SELF else f" about {subject}"


def _candidates(check: MemoryMatch, state: RunState, owner: str, tiers: tuple[str, ...] | None
                ) -> list[Memory]:
    subject = None if check.subject == SELF else check.subject
    return [m for m in state.memories(owner)
            if (check.subject is None or m.subject == subject)
            and (check.kind is None or m.kind is check.kind)
            and (tiers is None or m.tier.value in tiers)]


_TIERS: dict[str, tuple[str, ...] | None] = {"live": ("recent", "core"), "any": None, "recent": ("recent",),
                                            "core": ("core",), "archived": ("archived",)}


def _memory_words(check: MemoryMatch, tier: str = "") -> str:
    kind = f" ({check.kind.value})" if check.kind else ""
    where = f"{tier} " if tier and tier not in ("live", "any") else ""
    article = "an" if where[:1] in ("a", "e", "i", "o", "u") else "a"
    return (f"{article} {where}memory of {check.owner}{_about(check.subject)}{kind} "
            f"matching {said(check.words)}")


def _closest(pool: list[Memory], words: list[str]) -> str:
    if not pool:
        return "there are none"
    best = max(pool, key=lambda m: hits(m.content, words))
    return f"closest: {shown(best)}"


# -- the checkers ---------------------------------------------------------------------------


def _exists(check: MemoryExists, state: RunState) -> Verdict:
    expected = _memory_words(check, check.tier)
    found = [m for m in _candidates(check, state, check.owner, _TIERS[check.tier])
             if matches(m.content, check.words)]
    if found:
        return expected, True, f"found {listed(found)}"
    elsewhere = [m for m in _candidates(check, state, check.owner, None) if matches(m.content, check.words)]
    if elsewhere:
        return expected, False, f"found it only as {listed(elsewhere)}"
    pool = _candidates(check, state, check.owner, None)
    return expected, False, f"found none ({_closest(pool, check.words)})"


def _absent(check: MemoryAbsent, state: RunState) -> Verdict:
    expected = "no " + _memory_words(check, check.tier).split(" ", 1)[1]
    found = [m for m in _candidates(check, state, check.owner, _TIERS[check.tier])
             if matches(m.content, check.words)]
    return expected, not found, f"found {listed(found)}" if found else "found none"


def _tier(check: MemoryTier, state: RunState) -> Verdict:
    expected = _memory_words(check, check.tier.value)
    found = [m for m in _candidates(check, state, check.owner, None) if matches(m.content, check.words)]
    if not found:
        pool = _candidates(check, state, check.owner, None)
        return expected, False, f"found no such memory in any tier ({_closest(pool, check.words)})"
    right = [m for m in found if m.tier is check.tier]
    if right:
        return expected, True, f"found {listed(right)}"
    where = ", ".join(sorted({m.tier.value for m in found}))
    return expected, False, f"found it in {where}: {listed(found)}"


def _strength(check: MemoryStrength, state: RunState) -> Verdict:
    wants = [f"strength {range_words(check.strength)}" if check.strength else "",
             f"recall count {range_words(check.recall_count)}" if check.recall_count else ""]
    expected = _memory_words(check) + " with " + " and ".join(w for w in wants if w)
    found = [m for m in _candidates(check, state, check.owner, None) if matches(m.content, check.words)]
    if not found:
        return expected, False, "found no such memory"
    reports = []
    for memory in found:
        ok, parts = True, []
        if check.strength is not None:
            good, text = in_range(memory.strength, check.strength, _earlier(state, "strength", memory.id))
            ok &= good
            parts.append(f"strength {text}")
        if check.recall_count is not None:
            good, text = in_range(float(memory.recall_count), check.recall_count,
                                   _earlier(state, "recall_count", memory.id), whole=True)
            ok &= good
            parts.append(f"recall count {text}")
        line = f"{shown(memory)}: {', '.join(parts)}"
        if ok:
            return expected, True, f"found {line}"
        reports.append(line)
    return expected, False, "found " + "; ".join(reports[:3])


def _earlier(state: RunState, what: str, key: str) -> Callable[[str], float | None]:
    """The value of a memory's strength or recall count at an earlier point."""
    def at(point: str) -> float | None:
        snapshot = state.snapshots.get(point)
        if snapshot is None:
            return None
        value = (snapshot.strengths if what == "strength" else snapshot.recall_counts).get(key)
        return None if value is None else float(value)
    return at


def _nothing(point: str) -> float | None:
    return None


def _counts(check: TierCounts, state: RunState) -> Verdict:
    subject = None if check.subject == SELF else check.subject
    pool = [m for m in state.memories(check.owner) if check.subject is None or m.subject == subject]
    counts = {t: sum(1 for m in pool if m.tier.value == t) for t in ("recent", "core", "archived")}
    wanted = {t: r for t, r in (("recent", check.recent), ("core", check.core), ("archived", check.archived))
              if r is not None}
    expected = f"{check.owner}'s memories{_about(check.subject)} to number " + ", ".join(
        f"{range_words(r)} {t}" for t, r in wanted.items())
    ok = all(in_range(float(counts[t]), r, _nothing, whole=True)[0] for t, r in wanted.items())
    return expected, ok, "found " + ", ".join(f"{counts[t]} {t}" for t in ("recent", "core", "archived"))


def _relationship(check: RelationshipCheck, state: RunState) -> Verdict:
    parts = [f"sentiment {range_words(check.sentiment)}" if check.sentiment else "",
             f"bond {range_words(check.bond)}" if check.bond else ""]
    expected = f"{check.owner}'s feelings toward {check.other}: " + " and ".join(p for p in parts if p)
    rel = state.character(check.owner).relationships.get(check.other)
    if rel is None:
        return expected, False, f"{check.owner} has no relationship with {check.other}"
    ok, found = pair_in_range(state, (check.owner, check.other), "feelings",
                              [("sentiment", rel.current_sentiment, check.sentiment),
                               ("bond", rel.overall_bond, check.bond)])
    return expected, ok, "found " + ", ".join(found)


def _summary(check: SummaryMentions | SummaryOmits, state: RunState) -> Verdict:
    mentions = isinstance(check, SummaryMentions)
    expected = (f"{check.owner}'s summary of {check.other} to "
                + ("mention " + said(check.words) if mentions else "say none of " + " or ".join(
                    f"'{w}'" for w in check.words)))
    rel = state.character(check.owner).relationships.get(check.other)
    if rel is None:
        return expected, False, f"{check.owner} has no relationship with {check.other}"
    text = rel.long_term_summary
    ok = matches(text, check.words) if mentions else not any(
        hits(text, [w]) for w in check.words)
    return expected, ok, f"the summary is \"{text}\"" if text else "the summary is empty"


def _fade_review(check: FadeReviewCheck, state: RunState) -> Verdict:
    since = state.index(check.since) if check.since else -1
    verb = "change" if check.outcome == "changed" else "keep"
    expected = (f"a fade review to {verb} {check.owner}'s summary of {check.other}"
                + (f" after {check.since}" if check.since else ""))
    reviewed = revised = 0
    for point, changes in state.changes:
        if state.index(point) <= since:
            continue
        reviewed += sum(1 for m in changes.archived if m.owner == check.owner and m.subject == check.other)
        revised += sum(1 for s in changes.summaries_revised if s.step == "fade_review"
                       and s.owner == check.owner and s.other == check.other)
    found = f"found {reviewed} memor{'y' if reviewed == 1 else 'ies'} reviewed, {revised} revision(s)"
    if not reviewed:
        return expected, False, (f"found no memory about {check.other} leaving {check.owner}'s recent "
                                 "window, so nothing was reviewed")
    return expected, (revised > 0) == (check.outcome == "changed"), found


def _nothing_formed(check: NoMemoryFormed, state: RunState) -> Verdict:
    who = check.owner or "anyone"
    expected = f"turn {check.turn} to form no memory for {who}"
    result = state.results[check.turn]
    formed = [m for m in result.formed if check.owner is None or m.owner == check.owner]
    if formed:
        return expected, False, "it formed " + "; ".join(
            f"{m.owner}: \"{m.content[:80]}\" ({m.kind}, importance {m.importance:.2f})" for m in formed[:3])
    skipped = [s for s in result.skipped if check.owner is None or s.owner == check.owner]
    return expected, True, "nothing formed" + (
        "; under threshold: " + ", ".join(f"{s.kind} {s.importance:.2f} < {s.threshold:.2f}"
                                          for s in skipped) if skipped else "")


def _reinforced(check: ReinforcedNotDuplicated, state: RunState) -> Verdict:
    expected = (f"exactly one {_memory_words(check).split(' ', 1)[1]}, reinforced at least "
                f"{check.min_reinforcements} time(s)"
                + (f" and holding {', '.join(check.turns)}" if check.turns else ""))
    found = [m for m in _candidates(check, state, check.owner, ("recent", "core"))
             if matches(m.content, check.words)]
    if len(found) != 1:
        return expected, False, f"found {len(found)}" + (f": {listed(found)}" if found else "")
    memory = found[0]
    missing = [t for t in check.turns if t not in memory.source_turns]
    facts = (f"{shown(memory)}, recall count {memory.recall_count}, "
             f"from {', '.join(memory.source_turns)}")
    ok = memory.recall_count >= check.min_reinforcements and len(memory.source_turns) > 1 and not missing
    return expected, ok, f"found {facts}"


def _observer(check: ObserverRemembers, state: RunState) -> Verdict:
    expected = (f"{check.observer} to remember{_about(check.subject)} {said(check.words)} from its own "
                "side" + (f" (it saw {check.turn})" if check.turn else ""))
    subject = None if check.subject == SELF else check.subject
    pool = [m for m in state.memories(check.observer) if m.tier.value != "archived"
            and (check.subject is None or m.subject == subject)
            and (check.turn is None or check.turn in m.source_turns)]
    found = [m for m in pool if matches(m.content, check.words)]
    if not found:
        if not pool:
            return expected, False, f"found no live memory of {check.observer}" + (
                f" from {check.turn}" if check.turn else _about(check.subject))
        return expected, False, f"found none ({_closest(pool, check.words)})"
    for memory in found:
        leaked = [text for t in memory.source_turns if (turn := state.turns.get(t)) is not None
                  and turn.actor != check.observer
                  for text in (turn.intent.thought, turn.intent.action)
                  if len(text) >= 12 and text.lower().rstrip(".!") in memory.content.lower()]
        if not leaked:
            return expected, True, f"found {shown(memory)}"
    return expected, False, f"found it, but it tells the actor's intent, which an observer never sees: " \
                            f"{shown(found[0])}"


def _context(check: ContextIncludes | ContextOmits, state: RunState) -> Verdict:
    includes = isinstance(check, ContextIncludes)
    where = f" in its {check.section} section" if check.section else ""
    expected = (f"{check.character}'s context for \"{check.situation}\" within {check.max_tokens} tokens "
                f"to {'hold' if includes else 'leave out'} {said(check.words)}{where}")
    ctx = state.curator.context(check.character, check.situation, with_=check.with_,
                                max_tokens=check.max_tokens, peek=True)
    items = [i for i in ctx.items if check.section is None or i.section == check.section]
    text = ctx.text if check.section is None else "\n".join(i.text for i in items)
    held = matches(text, check.words)
    size = f"{ctx.tokens}/{ctx.max_tokens} tokens"
    if includes:
        if held:
            return expected, True, f"found it{where} ({size})"
        dropped = [i for i in ctx.dropped if matches(i.text, check.words)]
        if dropped:
            text = dropped[0].text.strip()[:90]
            return expected, False, f"found it dropped for the budget ({size}): {text}"
        other = [i for i in ctx.items if matches(i.text, check.words)]
        if other:
            return expected, False, f"found it in the {other[0].section} section instead ({size})"
        return expected, False, f"found it nowhere ({size}, sections: " + ", ".join(
            sorted({i.section for i in ctx.items})) + ")"
    if not held:
        return expected, True, f"left out ({size})"
    hit = next((i for i in items if matches(i.text, check.words)), None)
    return expected, False, "found it" + (f" in {hit.section}: {hit.text.strip()[:90]}" if hit else "")


_CHECKERS: dict[type, Callable[..., Verdict]] = {
    MemoryExists: _exists, MemoryAbsent: _absent, MemoryTier: _tier, MemoryStrength: _strength,
    TierCounts: _counts, RelationshipCheck: _relationship, SummaryMentions: _summary,
    SummaryOmits: _summary, FadeReviewCheck: _fade_review, NoMemoryFormed: _nothing_formed,
    ReinforcedNotDuplicated: _reinforced, ObserverRemembers: _observer, ContextIncludes: _context,
    ContextOmits: _context, **EVOLUTION_CHECKERS,
}
