"""How `curator show` (and `curator play`'s summary) put a character in words: its memories,
feelings and summaries (`print_character`), and its evolution: its goals and what it has
practised, its attributes with their last change and the memory that caused it, its latest
personality snapshot, and trust and rapport in each character it knows.

The words are read from the same entries `curator show --json` prints (the export
document's `goals`, `practice`, `attributes`, `attribute_changes` and `personality_snapshots`, built by
exporting_evolution.evolution_document), so the two outputs say the same things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import click

from curator.domain.models import Character, Memory, Relationship, display_name
from curator.evolution.goals import progress_bar
from curator.recall.context import feeling_words, trust_words

TRAIT_LABELS = (("work_style", "work style"), ("risk_tolerance", "risk tolerance"),
                ("social_orientation", "social orientation"), ("learning_style", "learning style"),
                ("stress_response", "stress response"))
_BY = {"model": "a model", "fallback": "the fallback"}
# What `show` prints of a character's evolution: (exporting_evolution.evolution_document,
# the world's configured attributes).
EvolutionView = tuple[dict[str, Any], list[str]]


def print_evolution(evolution: Mapping[str, Any], order: Sequence[str]) -> None:
    """The personality and attribute lines of `curator show` (under the persona). `order` is
    the world's configured attributes, shown first and in that order."""
    snapshots: list[dict[str, Any]] = evolution["personality_snapshots"]
    attributes: dict[str, dict[str, Any]] = evolution["attributes"]
    _print_goals_and_skills(evolution.get("goals") or [], evolution.get("practice") or [])
    if not snapshots and not attributes:
        click.echo("  evolution: no cycle yet (`curator evolve` runs one)")
        return
    if snapshots:
        _print_snapshot(snapshots[-1], len(snapshots))
    if attributes:
        last = last_changes(evolution["attribute_changes"])
        click.echo("  attributes:")
        names = [n for n in order if n in attributes] + sorted(set(attributes) - set(order))
        for name in names:
            click.echo(f"     {name} {attributes[name]['value']:.2f}{_change_words(last.get(name))}")


def _print_goals_and_skills(goals: Sequence[Mapping[str, Any]],
                            practice: Sequence[Mapping[str, Any]]) -> None:
    for goal in goals:
        status = "" if goal["status"] == "active" else f" [{goal['status']}]"
        click.echo(f"  goal {goal['label']}: {goal['description']} {progress_bar(goal['progress'])} "
                   f"{goal['progress']:.0%}{status}")
    if practice:
        tallies = sorted(practice, key=lambda t: (-int(t["attempts"]), str(t["skill"])))
        click.echo("  practised: " + "; ".join(
            f"{t['skill']} {t['went_as_meant']}/{t['attempts']} as meant, {t['went_wrong']} wrong"
            for t in tallies))


def last_changes(changes: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Each attribute's latest logged change (trust and rapport in others are not attributes)."""
    return {c["attribute"]: c for c in changes if c["other"] is None}


def _print_snapshot(snapshot: Mapping[str, Any], count: int) -> None:
    click.echo(f"  personality (snapshot {count}, {snapshot['world_time']}):")
    click.echo("     " + ", ".join(f"{label}: {str(snapshot[key]).replace('_', ' ')}"
                                   for key, label in TRAIT_LABELS))
    if snapshot["identity_summary"]:
        click.echo(f"     identity ({_BY.get(snapshot['narrative_by'], snapshot['narrative_by'])}): "
                   f"{snapshot['identity_summary']}")


def _change_words(change: Mapping[str, Any] | None) -> str:
    if change is None:
        return ""
    # A change's reason reads "caution +0.021: 'the memory…' (why)": the part after the
    # name and delta is the cause, which this line gives its own delta and time.
    cause = str(change["reason"]).split(": ", 1)[-1]
    return (f" (last {change['delta']:+.3f} at {change['world_time']}: {cause}, "
            f"memory {change['memory_id']})")


def trust_phrase(rel: Relationship) -> str:
    """', trusts little (31%), rapport 40%' for a relationship's line."""
    return f", trusts {trust_words(rel.trust)} ({rel.trust:.0%}), rapport {rel.rapport:.0%}"


def _strength_word(memory: Memory) -> str:
    if memory.tier.value == "core":
        return "core"
    return "vivid" if memory.strength > 0.7 else "clear" if memory.strength > 0.4 else "faint"


def _marker(memory: Memory) -> str:
    return {"positive": "+", "negative": "-", "neutral": "·"}[memory.valence_label]


def print_character(character: Character, counts: dict[str, int], *, brief: bool = False,
                     about: str | None = None, evolution: EvolutionView | None = None,
                     known: Mapping[str, str] | None = None) -> None:
    """`evolution`: (exporting_evolution.evolution_document, the configured attributes);
    `known`: how a memory is known, by id, for those that were not lived ('heard from Heron')."""
    how = known or {}

    def said(memory: Memory) -> str:
        return f"{memory.content} [{how[memory.id]}]" if memory.id in how else memory.content

    own = character.self_memories
    click.secho(f"{character.name}", bold=True, nl=False)
    click.echo(f" — {counts['recent']} recent, {counts['core']} core, {counts['archived']} archived")
    if character.persona:
        click.echo(f"  persona: {character.persona}")
    if about is None and evolution is not None:
        print_evolution(*evolution)
    if about is None:
        if own.immediate_context:
            click.echo(f"  now: {own.immediate_context}")
        for memory in own.core_memories:
            click.echo(f"  core: {said(memory)}")
        if not brief:
            for memory in own.recent_events:
                click.echo(f"  {_marker(memory)} [{_strength_word(memory)}] {said(memory)} "
                           f"({memory.emotional_impact}, {memory.importance:.2f})")
    for other, rel in sorted(character.relationships.items()):
        if about is not None and other != about:
            continue
        times = f"{rel.interactions} interaction{'' if rel.interactions == 1 else 's'}"
        click.echo(f"  {display_name(other)}: feels {feeling_words(rel.current_sentiment)} "
                   f"({rel.current_sentiment:+.2f}), bond {feeling_words(rel.overall_bond, slow=True)} "
                   f"({rel.overall_bond:+.2f}){trust_phrase(rel)}, {times}")
        if rel.long_term_summary:
            click.echo(f"     {rel.long_term_summary}")
        for memory in rel.core_memories:
            click.echo(f"     core: {said(memory)}")
        if not brief:
            if rel.immediate_context:
                click.echo(f"     now: {rel.immediate_context}")
            for memory in rel.recent_memories:
                click.echo(f"     {_marker(memory)} [{_strength_word(memory)}] {said(memory)} "
                           f"({memory.emotional_impact}, {memory.importance:.2f})")
