"""The turn pipeline: for each character who perceived a turn, interpret → appraise → remember
(kept or dropped by the appraisal, linked into the memory network) → promote → overflow →
reconcile → feel, all inside the caller's transaction. How the long-term view of another
changes (fade review at overflow, reconcile, first impression, episode end) is `views.py`'s.

Every judgement goes through a `Decider` (steps.py), so this module is indifferent to
whether a model or the fallback answered; the `ChangeSet` records which did. Promotion is
reviewed before overflow so that a memory that goes straight to core does not push an
older memory out of the recent window.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from curator.domain.config import CuratorConfig
from curator.domain.construct import trusted
from curator.domain.fading import faded_strength
from curator.domain.models import LIVE_UNMARKED, Memory, Tier, Turn
from curator.domain.results import ChangeSet, SkippedDraft
from curator.evolution import attributes, practice
from curator.model.decision import MemoryView
from curator.model.steps import Decider
from curator.recall import network
from curator.store.world import World
from curator.turn import appraisal, dedup, steps
from curator.turn.appraisal import AppraiseInput, MemoryAppraisal, lens_views
from curator.turn.cast import Cast
from curator.turn.decisions import MemoryDraft, interpret_context
from curator.turn.inputs import (
    CoreReviewInput,
    InterpretInput,
    RelationView,
)
from curator.turn.judging import turn_reading
from curator.turn.lenses import combine, lens_weights, retain
from curator.turn.narration import retell
from curator.turn.perspective import Aliases
from curator.turn.summaries import summary_tone
from curator.turn.threads import Thread, clamp, formed_memory_id, memory_change, unseen_intent
from curator.turn.views import Views


@dataclass
class Curation(Views):
    """One unit of work on a world: a turn, an episode end. Collects what changed."""

    world: World
    config: CuratorConfig
    decider: Decider
    changes: ChangeSet = field(default_factory=ChangeSet)
    seq: int = 0  # next memory sequence number

    def __post_init__(self) -> None:
        self.seq = self.world.next_memory_seq()
        self.cast = Cast(self.world)  # personas and other names, read once
        self._lens_weights: dict[str, dict[str, float]] = {}
        # The memories each perceiver has in mind this turn (its threads): what links are sought in.
        self._in_mind: dict[str, list[Thread]] = {}
        # The network rows of one perceiver's memories, written together when it is done.
        self._pending = network.Pending()
        self._observed: tuple[Turn, Turn] | None = None
        self._trust_log: list[tuple[object, ...]] = []  # trust and rapport moved at this turn
        self._told: dict[str, tuple[str, str] | None] = {}  # turn id -> (intent, reality): dedup
        self._lens_thresholds = {lens.name: lens.threshold for lens in self.config.appraisal.lenses}
        self._lens_views = lens_views(self.config.appraisal)

    # -- threads ------------------------------------------------------------------------

    def persona(self, character: str) -> str:
        return self.cast.persona(character)

    def aliases(self, turn: Turn) -> Aliases:
        return self.cast.aliases(turn)

    def relationship_thread(self, owner: str, other: str, now: datetime) -> Thread:
        rel = self.world.relationship(owner, other)
        thread = Thread(owner, other, rel.recent_memories, rel.core_memories, rel)
        self.fade_thread(thread, now)
        return thread

    def self_thread(self, owner: str, now: datetime) -> Thread:
        thread = Thread(owner, None, *self.world.live_memories(owner, None))
        self.fade_thread(thread, now)
        return thread

    def fade_memory(self, memory: Memory, now: datetime) -> bool:
        """Bring one memory's strength up to `now`; archive it as forgotten at zero (True)."""
        memory.strength = faded_strength(memory, memory.strength_at or memory.created_at, now)
        memory.strength_at = now
        if memory.strength > 0.0:
            return False
        self.world.archive_memory(memory, reason="forgotten", at=now)
        self.changes.forgotten.append(memory_change(memory, "strength faded to zero"))
        return True

    def fade_thread(self, thread: Thread, now: datetime) -> None:
        """Bring loaded strengths up to `now` (in memory only); archive what faded to nothing."""
        for memory in list(thread.recent):
            if self.fade_memory(memory, now):
                thread.recent.remove(memory)

    # -- one perceiver of one turn ---------------------------------------------------------

    def observed(self, turn: Turn) -> Turn:
        """The turn as observers see it, made once: every observer then shares one reading
        of it (reading.read_turn keeps the last turn object's)."""
        if self._observed is None or self._observed[0] is not turn:
            self._observed = (turn, turn.model_copy(update={"intent": unseen_intent()}))
        return self._observed[1]

    def perceive(self, turn: Turn, perceiver: str, role: Literal["actor", "observer"]) -> None:
        now = turn.world_time
        aliases = self.aliases(turn)
        subjects = list(turn.others) if role == "actor" else [
            c for c in [turn.actor, *turn.others] if c != perceiver]
        threads = {other: self.relationship_thread(perceiver, other, now) for other in subjects}
        own = self.self_thread(perceiver, now)
        seen = turn.reality if role == "actor" else retell(turn.reality, perceiver=perceiver,
                                                           actor=turn.actor)
        inputs = InterpretInput(
            perceiver=perceiver, role=role, persona=self.persona(perceiver),
            turn=turn if role == "actor" else self.observed(turn),
            relationships={o: RelationView.of(t.rel) for o, t in threads.items() if t.rel},
            recent_self=[MemoryView.of(m) for m in own.recent], allowed_subjects=subjects, seen=seen,
            aliases=aliases)
        interpretation, record = self.decider.decide(
            steps.INTERPRET, inputs, character=perceiver,
            context=interpret_context(inputs))
        self.changes.steps.append(record)
        if interpretation.judgement is not None:
            self.changes.readings.append(turn_reading(perceiver, interpretation.judgement, record.decided_by))

        self.world.set_character(perceiver, immediate_context=interpretation.immediate_context)
        if role == "actor":
            practice.record(self.world, turn, interpretation.gap)
        for note in interpretation.relationship_contexts:
            rel = threads[note.about].rel
            if rel is not None:
                rel.immediate_context = note.text
        for thread in threads.values():
            rel = thread.rel
            assert rel is not None
            rel.interactions += 1
            rel.first_met = rel.first_met or now
            rel.last_interaction = now
        judged = self.appraise(perceiver, role, inputs.turn, interpretation.memories)
        self._in_mind[perceiver] = [own, *threads.values()]
        for index, draft in enumerate(interpretation.memories):
            thread = threads[draft.subject] if draft.subject is not None else own
            self.remember(turn, thread, draft, index, judged[index])
        self._pending.flush(self.world)
        attributes.log_at_turn(self.world, self._trust_log)
        self._trust_log = []
        for feeling in interpretation.feelings:
            rel = threads[feeling.toward].rel
            assert rel is not None
            # Sentiment moves fast and relaxes toward the bond; the bond moves slowly. A strong
            # blow against the current feeling (a betrayal, a rescue) starts from the bond.
            shift = feeling.sentiment_shift
            base = rel.overall_bond + (rel.current_sentiment - rel.overall_bond) * 0.8
            if abs(shift) >= 0.5 and shift * rel.current_sentiment < 0:
                base = rel.overall_bond
            rel.current_sentiment = clamp(base + shift)
            rel.overall_bond = clamp(rel.overall_bond + 0.1 * feeling.sentiment_shift)
        for thread in threads.values():
            assert thread.rel is not None
            self.world.save_relationship(thread.rel)

    def appraise(self, perceiver: str, role: Literal["actor", "observer"], seen: Turn,
                 drafts: list[MemoryDraft]) -> list[MemoryAppraisal]:
        """The appraisal design: every draft through every lens, in one decision for the perceiver. The
        model is asked only when `appraisal.model` is on; otherwise the fallback answers here,
        outside the decider, so a world with a model makes no extra call and records no extra
        step for it (the recorded fixture sets replay unchanged)."""
        if not drafts:
            return []
        config = self.config.appraisal
        inputs = AppraiseInput(perceiver=perceiver, role=role, persona=self.persona(perceiver), turn=seen,
                               aliases=self.aliases(seen),
                               memories=drafts, lenses=self._lens_views)
        if not config.model:
            return appraisal.appraise(inputs).memories
        decision, record = self.decider.decide(
            steps.APPRAISE, inputs, character=perceiver,
            context={"lenses": config.lens_names, "memories": len(drafts)})
        self.changes.steps.append(record)
        return decision.memories

    def weights(self, character: str) -> dict[str, float]:
        if character not in self._lens_weights:
            self._lens_weights[character] = lens_weights(self.world, character, self.config.appraisal)
        return self._lens_weights[character]

    def remember(self, turn: Turn, thread: Thread, draft: MemoryDraft, index: int,
                 judged: MemoryAppraisal) -> None:
        """Form the drafted memory, or reinforce the one it repeats; then review what follows.

        The appraisal decides whether it is kept (lenses.py: its importance, any lens
        over its own threshold, or a strong link to a memory already held) and can lift its
        importance; a memory kept by a lens or a link says so in its change's reason."""
        config = self.config.appraisal
        threshold = config.overall_threshold
        threshold = self.config.threshold(draft.kind) if threshold is None else threshold
        scores = {name: score.priority for name, score in judged.lenses.items()}
        found: list[network.Link] | None = None

        def strongest() -> tuple[float, str | None]:
            nonlocal found
            in_mind = [m for t in self._in_mind.get(thread.owner, [thread]) for m in (*t.core, *t.recent)]
            found = network.related(self.world, draft.content, draft.subject, in_mind,
                                    floor=config.link_floor, limit=config.max_links)
            return (found[0].strength, found[0].other_id) if found else (0.0, None)

        kept = retain(draft.importance, threshold, scores, self._lens_thresholds,
                                combine(scores, self.weights(thread.owner)), strongest,
                                config.link_threshold)
        if not kept.keep:
            self.changes.skipped.append(SkippedDraft(owner=thread.owner, subject=draft.subject,
                                                     kind=draft.kind.value,
                                                     importance=draft.importance, threshold=threshold))
            return
        rel = thread.rel
        old_tone = summary_tone(rel.traits, rel.overall_bond) if rel else 0.0
        if rel is not None:
            for trait in draft.traits:
                rel.traits[trait] = rel.traits.get(trait, 0) + 1
        repeat = self.find_repeat(thread, draft, turn)
        if repeat is not None:
            dedup.reinforce(repeat, draft, turn_id=turn.id, at=turn.world_time, importance=kept.importance)
            self.world.update_memory(repeat)
            self.changes.reinforced.append(memory_change(repeat, "a repeat of this memory"))
            if rel is not None:  # a second betrayal hurts at its own turn too
                self._trust_log += attributes.at_turn(self.config.evolution, rel, repeat)
            return
        memory = trusted(Memory, {  # a draft's fields were validated; in the model's order
            "id": formed_memory_id(turn.world_time, turn.id, thread.owner, index), "owner": thread.owner,
            "subject": draft.subject,
            "content": draft.content, "kind": draft.kind, "emotional_impact": draft.emotional_impact,
            "valence": draft.valence, "importance": kept.importance, "tier": Tier.RECENT, "strength": 1.0,
            "recall_count": 0, "last_recalled": turn.world_time, "created_at": turn.world_time,
            "strength_at": turn.world_time, "source_turns": [turn.id], "traits": list(draft.traits),
            "place": turn.place, "domain": turn.domain, **LIVE_UNMARKED})
        if found is None:
            strongest()
        self.world.insert_memory(memory, self.seq)
        lenses = {name: (score.priority, score.justification) for name, score in judged.lenses.items()}
        self._pending.add(memory.id, self.seq, thread.owner, found or [], turn.world_time, lenses)
        self.seq += 1
        thread.recent.append(memory)
        change = memory_change(memory, kept.reason)
        if kept.by not in (None, "formation"):
            change.kept_by = kept.by
        self.changes.formed.append(change)
        if rel is not None:
            self._trust_log += attributes.at_turn(self.config.evolution, rel, memory)
        if memory.importance >= self.config.core_threshold:
            self.core_review(thread, memory)
        self.overflow(thread, turn.world_time)
        if rel is not None and memory.tier is not Tier.ARCHIVED:
            self.maybe_reconcile(thread, memory, old_tone)

    def find_repeat(self, thread: Thread, draft: MemoryDraft, turn: Turn) -> Memory | None:
        """The recent memory of the thread that `draft` repeats (dedup.py says when)."""

        def happened_of(memory: Memory) -> tuple[str, str] | None:
            if not memory.source_turns:
                return None
            first = memory.source_turns[0]
            if first not in self._told:  # a logged turn's texts never change: read once
                self._told[first] = self.world.turn_texts(first)
            return self._told[first]

        def action_of(memory: Memory) -> str | None:
            told = happened_of(memory)
            return told[0] if told else None

        action = turn.intent.action if turn.actor == thread.owner else None
        return dedup.find_repeat(thread.recent, draft, similarity=self.config.duplicate_similarity,
                                 action=action, action_of=action_of,
                                 happened=(turn.intent.action, turn.reality), happened_of=happened_of)

    # -- reviews -------------------------------------------------------------------------

    def core_review(self, thread: Thread, memory: Memory) -> bool:
        inputs = CoreReviewInput(
            owner=thread.owner, persona=self.persona(thread.owner), subject=thread.subject,
            memory=MemoryView.of(memory), relationship=RelationView.of(thread.rel) if thread.rel else None,
            core_memories=[MemoryView.of(m) for m in thread.core], core_cap=self.config.core_cap,
            core_threshold=self.config.core_threshold)
        decision, record = self.decider.decide(steps.CORE_REVIEW, inputs, character=thread.owner)
        self.changes.steps.append(record)
        if not decision.promote:
            return False
        return self.promote(thread, memory, decision.reason)

    def promote(self, thread: Thread, memory: Memory, reason: str) -> bool:
        """Make a memory core. At the cap, it must outweigh the weakest core memory, which is
        then archived (reason 'superseded_core'); otherwise it is not promoted."""
        if len(thread.core) >= self.config.core_cap:
            weakest = min(thread.core, key=lambda m: (m.importance, m.created_at))
            if memory.importance <= weakest.importance:
                return False
            thread.core.remove(weakest)
            self.world.archive_memory(weakest, reason="superseded_core", at=memory.last_recalled)
            self.changes.demoted.append(memory_change(weakest, f"superseded by {memory.id}"))
        if memory in thread.recent:
            thread.recent.remove(memory)
        memory.tier, memory.strength = Tier.CORE, 1.0
        memory.strength_at = memory.last_recalled
        self.world.update_memory(memory)
        thread.core.append(memory)
        self.changes.promoted.append(memory_change(memory, reason))
        return True
