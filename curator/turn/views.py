"""Views: how a character's lasting view of another changes (its long-term summary and bond).

A memory pushed out of the recent window is reviewed as it fades (it may revise the view or
become core); a significant memory that contradicts the view is reconciled with it; the
first significant memory of someone starts the view; and an episode's end folds the recent
memories into it. Each goes through the `Decider`, and a model's new view is checked against
the memories it was shown (`decisions.view_context`).

`Views` is a mixin of `pipeline.Curation`, which holds the world, the decider and what the
unit of work changed; `_Curating` says what these methods use of it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from curator.domain.config import CuratorConfig
from curator.domain.models import Memory
from curator.domain.results import ChangeSet, SummaryChange
from curator.model.decision import MemoryView
from curator.model.steps import Decider
from curator.store.world import World
from curator.turn import fallback, steps
from curator.turn.decisions import reconcile_context, view_context
from curator.turn.inputs import ConsolidateInput, FadeReviewInput, ReconcileInput, RelationView
from curator.turn.threads import Thread, clamp, memory_change


class _Curating(Protocol):
    world: World
    config: CuratorConfig
    decider: Decider
    changes: ChangeSet

    def persona(self, character: str) -> str: ...
    def relationship_thread(self, owner: str, other: str, now: datetime) -> Thread: ...
    def promote(self, thread: Thread, memory: Memory, reason: str) -> bool: ...
    def first_impression(self, thread: Thread, memory: Memory) -> None: ...


class Views:
    def overflow(self: _Curating, thread: Thread, now: datetime) -> None:
        """The 11th recent memory pushes the oldest out of the window, through a fade review."""
        while len(thread.recent) > self.config.recent_limit:
            oldest = thread.recent.pop(0)
            inputs = FadeReviewInput(
                owner=thread.owner, persona=self.persona(thread.owner), subject=thread.subject,
                memory=MemoryView.of(oldest),
                relationship=RelationView.of(thread.rel) if thread.rel else None,
                core_threshold=self.config.core_threshold)
            review, record = self.decider.decide(steps.FADE_REVIEW, inputs, character=thread.owner,
                                                  context=view_context(inputs.relationship, inputs.memory))
            self.changes.steps.append(record)
            if review.outcome == "core" and self.promote(thread, oldest, review.reason):
                continue
            if review.outcome == "revise_summary" and thread.rel is not None and review.summary:
                thread.rel.long_term_summary = review.summary
                self.changes.summaries_revised.append(SummaryChange(
                    owner=thread.owner, other=thread.rel.other, summary=review.summary,
                    step="fade_review", reason=review.reason))
            self.world.archive_memory(oldest, reason="faded_from_recent", at=now)
            self.changes.archived.append(memory_change(oldest, review.reason))

    def maybe_reconcile(self: _Curating, thread: Thread, memory: Memory, old_tone: float) -> None:
        rel = thread.rel
        assert rel is not None
        if memory.importance < self.config.reconcile_min_importance:
            return
        contradiction = (bool(rel.long_term_summary) and abs(memory.valence) >= 0.4
                         and abs(old_tone) >= 0.2 and old_tone * memory.valence < 0)
        if not contradiction:
            if not rel.long_term_summary and rel.traits:
                self.first_impression(thread, memory)
            return
        inputs = ReconcileInput(owner=thread.owner, persona=self.persona(thread.owner),
                                other=rel.other, memory=MemoryView.of(memory),
                                relationship=RelationView.of(rel), contradiction=True)
        decision, record = self.decider.decide(steps.RECONCILE, inputs, character=thread.owner,
                                               context=reconcile_context(inputs.memory, inputs.relationship))
        self.changes.steps.append(record)
        rel.long_term_summary = decision.summary
        rel.overall_bond = clamp(rel.overall_bond + decision.bond_shift)
        change = SummaryChange(owner=thread.owner, other=rel.other, summary=decision.summary,
                               step="reconcile", reason=decision.reason)
        self.changes.summaries_revised.append(change)
        if decision.conflict:
            self.changes.conflicts_resolved.append(change)

    def first_impression(self: _Curating, thread: Thread, memory: Memory) -> None:
        """The first significant memory of someone starts the summary. Nothing is contradicted,
        so nobody is asked: the words are the traits the memories showed, described."""
        rel = thread.rel
        assert rel is not None
        inputs = ReconcileInput(owner=thread.owner, persona=self.persona(thread.owner),
                                other=rel.other, memory=MemoryView.of(memory),
                                relationship=RelationView.of(rel), contradiction=False)
        summary = fallback.reconcile(inputs).summary
        rel.long_term_summary = summary
        self.changes.summaries_revised.append(SummaryChange(
            owner=thread.owner, other=rel.other, summary=summary, step="first_impression",
            reason="a significant memory shapes a first impression"))

    def end_episode(self: _Curating, owner: str, other: str, now: datetime) -> None:
        """When an episode ends: fold the recent memories about `other` into the summary,
        make the chosen ones core, archive all but the last few as consolidated."""
        thread = self.relationship_thread(owner, other, now)
        rel = thread.rel
        if rel is None or not thread.recent:
            return
        inputs = ConsolidateInput(owner=owner, persona=self.persona(owner), other=other,
                                  relationship=RelationView.of(rel),
                                  episode_core_threshold=self.config.episode_core_threshold)
        decision, record = self.decider.decide(steps.CONSOLIDATE, inputs, character=owner,
                                               context=view_context(inputs.relationship))
        self.changes.steps.append(record)
        rel.long_term_summary = decision.summary
        rel.overall_bond = clamp(rel.overall_bond + decision.bond_shift)
        self.changes.summaries_revised.append(SummaryChange(
            owner=owner, other=other, summary=decision.summary, step="consolidate",
            reason=decision.reason))
        chosen = set(decision.core_memory_ids)
        for memory in [m for m in thread.recent if m.id in chosen]:
            self.promote(thread, memory, "chosen at episode end")
        keep = self.config.episode_keep_recent
        for memory in thread.recent[: max(0, len(thread.recent) - keep)]:
            self.world.archive_memory(memory, reason="consolidated", at=now)
            thread.recent.remove(memory)
            # reported, as fading's archive is: `end-episode` said "0 archived" while archiving
            self.changes.archived.append(memory_change(memory, "consolidated at episode end"))
        self.world.save_relationship(rel)
