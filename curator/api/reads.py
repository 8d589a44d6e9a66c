"""The reading half of the Python API: what a game asks of a world between turns.

`Curator` (api.py) inherits these: a character's memories, its export, recall (`search`,
`context`), its personality, attributes, abilities, mood and goals, the memory network, and
the blocks and passages. None of them writes, except `context`, which marks the memories it
used as recalled (one transaction; `peek=True` changes nothing), and the `blocks`,
`passages` and `goals` objects, whose verbs write.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from datetime import datetime
from functools import cached_property
from typing import Any, cast

from curator.api.replay import Logged
from curator.domain.config import CuratorConfig
from curator.domain.errors import InvalidInput, UnknownCharacter
from curator.domain.fading import faded_strength
from curator.domain.models import (
    MAX_REALITY,
    Character,
    SelfState,
    display_name,
    normalize_character_id,
)
from curator.evolution.attributes import changes_after, load_attributes
from curator.evolution.cycle import latest_snapshot
from curator.evolution.goals import Goals
from curator.evolution.mood import Mood, mood_of
from curator.evolution.personality import AttributeChange, PersonalitySnapshot
from curator.evolution.practice import Ability, abilities
from curator.export.documents import character_document, world_document
from curator.export.edits import edits_document
from curator.export.evolution import evolution_document, reports_document
from curator.export.knowing import groups_document, knowing_document
from curator.export.network import network_document
from curator.model.calls import CallSummary, summarize_calls
from curator.recall.blocks import Blocks, blocks_document
from curator.recall.context import MOOD_LOOKBACK, MemoryContext, fit, gather, sections
from curator.recall.filters import memory_filter, partition
from curator.recall.index import latest_seqs, memories_by_seq
from curator.recall.network import network_of
from curator.recall.passages import Passages, passages_document
from curator.recall.query import name_candidates, read_query
from curator.recall.ranking import Recalled, rank, refresh_recalled
from curator.recall.semantic import Semantic
from curator.store.oplog import log_operation
from curator.store.world import World


class WorldReads:
    """What `Curator` answers about a world: memories, recall, evolution, goals, network."""

    config: CuratorConfig

    @property
    def world(self) -> World:
        raise NotImplementedError  # Curator's: this thread's connection

    def personality(self, character: str) -> PersonalitySnapshot | None:
        """The character's latest personality snapshot (None before its first cycle)."""
        return latest_snapshot(self.world, self._known(character))

    def attributes(self, character: str) -> dict[str, float]:
        """The character's attributes now (each starts at the configured start value)."""
        return load_attributes(self.world, self.config.evolution, self._known(character))

    def attribute_changes(self, character: str, *, after: int = 0) -> list[AttributeChange]:
        """Every logged change to the character's attributes, trust and rapport, oldest first,
        each with the memory that caused it (only those with ids after `after`)."""
        return changes_after(self.world, self._known(character), after)

    def call_summary(self, *, after_seq: int = 0) -> CallSummary:
        """Totals of the model call log: calls, model answers, fallbacks by reason, tokens, cost."""
        return summarize_calls(self.world, after_seq=after_seq)

    # -- reading -------------------------------------------------------------------------

    def characters(self) -> list[str]:
        return self.world.character_ids()

    def clock(self) -> datetime | None:
        return self.world.clock()

    def observed(self, turn_ids: Iterable[str]) -> set[str]:
        """Which of these turn ids the world has already observed (a game, or `curator play`,
        saying how far a session got before it stopped)."""
        return {turn_id for turn_id in turn_ids if self.world.logged_turn(turn_id) is not None}

    def character(self, character: str) -> Character:
        """Everything a character remembers, with strengths as of the world clock."""
        owner = self._known(character)
        world = self.world
        row = world.character_row(owner)
        assert row is not None
        now = world.clock()
        relationships, own_recent, own_core = world.all_live(owner)
        own = SelfState(immediate_context=row["immediate_context"], recent_events=own_recent,
                        core_memories=own_core)
        if now is not None:
            lists = [own.recent_events] + [r.recent_memories for r in relationships.values()]
            for memories in lists:
                for memory in memories:
                    memory.strength = faded_strength(memory, memory.strength_at or memory.created_at, now)
        return Character(id=owner, name=row["name"], persona=row["persona"],
                         created_at=datetime.fromisoformat(row["created_at"]), self_memories=own,
                         relationships=relationships)

    def archived(self, character: str) -> list[Any]:
        return self.world.archived_memories(self._known(character), any_subject=True)

    def export_character(self, character: str) -> dict[str, Any]:
        """Everything the world holds of one character (exporting.py has the shape); the lens
        weights are this Curator's own for it (`set_lens_weights`)."""
        owner = self._known(character)
        own_weights = self.config.appraisal.character_weights.get(owner, {})
        return character_document(self.character(owner),
                                  self.world.archived_memories(owner, any_subject=True),
                                  self.world.clock(), blocks=blocks_document(self.world, owner),
                                  passages=passages_document(self.world, owner),
                                  sections={**evolution_document(self.world, owner),
                                            **network_document(self.world, owner, own_weights),
                                            **knowing_document(self.world, owner),
                                            **edits_document(self.world, owner)})

    def export_world(self) -> dict[str, Any]:
        """Every character, and the world's evolution reports."""
        return world_document([self.export_character(c) for c in self.characters()], self.world.clock(),
                              reports_document(self.world), groups_document(self.world))

    # -- reading: recall ------------------------------------------------------------------

    def search(self, character: str, query: str, *, limit: int = 10,
               with_: Sequence[str] = (), domain: str | None = None,
               kinds: Iterable[str] | str | None = None, min_importance: float | None = None,
               since: datetime | str | None = None, until: datetime | str | None = None,
               about: Iterable[str] | str | None = None, tiers: Iterable[str] | str | None = None
               ) -> list[Recalled]:
        """The character's memories (live or archived) that best match `query`, best first.

        An inspection: nothing is marked as recalled (`context()` is the read that recalls).
        `with_` names characters present, whose memories count a little more; `domain` the
        task's domain, whose memories (the turns the game filed under it) count more.

        Filters (recall/filters.py) keep only memories of these `kinds`, of at least
        `min_importance`, formed between `since` and `until` (world time, inclusive), `about`
        these characters (the character's own id: its self memories) or in these `tiers`
        (recent, core, archived). With a filter, a query with no searchable word ("") lists
        the memories that pass, ranked by recency, strength and importance."""
        owner = self._known(character)
        if not 1 <= limit <= 1_000:
            raise InvalidInput("limit must be 1..1000", field="limit")
        wanted = memory_filter(owner, kinds=kinds, min_importance=min_importance, since=since,
                               until=until, about=about, tiers=tiers)
        for other in wanted.about or ():
            if other is not None and self.world.character_row(other) is None:
                raise UnknownCharacter(other, known=self.world.character_ids())
        present = [self._id(c) for c in with_]
        recall = self.config.recall
        read = read_query(query, self.world.characters_among(name_candidates(query)))
        if not wanted.active:
            return rank(self.world, owner, read, config=recall, weights=recall.search_weights,
                        present=present, now=self.world.clock(), limit=limit, domain=domain,
                        semantic=self._semantic(owner, query))
        excluded, newest = partition(self.world, owner, wanted, recall.candidates)
        # Matches are searched deeper than `limit` (ranking's depth), since the filter may
        # leave most of them out; a query with no words has the newest passing as candidates.
        extra = {seq: "filter" for seq in newest} if read.fts() is None else None
        return rank(self.world, owner, read, config=recall, weights=recall.search_weights,
                    present=present, now=self.world.clock(), limit=limit, domain=domain,
                    extra=extra, depth=max(limit, recall.candidates // 4), exclude=excluded,
                    semantic=self._semantic(owner, query))

    def context(self, character: str, situation: str = "", *, with_: Sequence[str] = (),
                max_tokens: int | None = None, peek: bool = False,
                layers: Collection[str] | None = None, domain: str | None = None) -> MemoryContext:
        """The text for the character's next prompt, fitted to `max_tokens`, with a manifest.

        Scores memories against `situation` (with `with_` the characters present and `domain`
        the task's domain, as the turns' `domain` names it: the evolution system's domain match), renders
        prompts/context.j2 and marks what it used as recalled (strength +0.15, recall count +1,
        last recalled = the world clock), in one transaction. `peek=True` changes nothing.
        `layers` names the parts to include (default all), in the evolution system's order: persona,
        identity (the latest evolution snapshot's narrative and attributes in words), abilities
        (what it has practised and how it went), blocks, state (its mood), immediate, present
        (with feelings, trust and summaries), core, memories, passages, short_term, goals."""
        owner = self._known(character)
        on = sections(layers)
        recall = self.config.recall
        budget = recall.default_max_tokens if max_tokens is None else max_tokens
        if not 1 <= budget <= 1_000_000:
            raise InvalidInput("max_tokens must be 1..1000000", field="max_tokens")
        if len(situation) > MAX_REALITY:
            raise InvalidInput(f"at most {MAX_REALITY} characters", field="situation")
        present = list(dict.fromkeys(p for p in (self._id(c) for c in with_) if p != owner))
        now = self.world.clock()
        semantic = self._semantic(owner, situation) if situation.strip() else None
        items, memories = gather(self.world, owner, situation, present, recall, now, on, domain, semantic)
        name = display_name(owner) if (row := self.world.character_row(owner)) is None else row["name"]
        text, tokens, kept, dropped = fit(name, items, budget, recall.encoding)
        used = [memories[i.key] for i in kept if i.section in ("core", "memory", "short_term")]
        if not peek and now is not None and used:
            with self.world.transaction() as world:
                refresh_recalled(world, used, now)
                # Recall changes strengths: a rewind replays it (api/replay.py).
                log_operation(world, "context", {"character": owner, "situation": situation,
                                                 "with": present, "max_tokens": max_tokens,
                                                 "layers": None if layers is None else sorted(layers),
                                                 "domain": domain})
        return MemoryContext(character=owner, situation=situation, present=present, text=text,
                             tokens=tokens, max_tokens=budget, encoding=recall.encoding, items=kept,
                             dropped=dropped, recalled=[] if peek or now is None else [m.id for m in used],
                             peek=peek)

    def counts(self, character: str) -> dict[str, int]:
        return self.world.count_memories(self._known(character))

    def links(self, character: str) -> list[dict[str, Any]]:
        """The character's memory network: each linked memory with its appraisal and its links
        (other memory, strength, by 'text' or 'subject'), oldest memory first."""
        return network_of(self.world, self._known(character))

    @cached_property
    def blocks(self) -> Blocks:
        """Core memory blocks, own and shared: `curator.blocks.create("bear", ...)`."""
        return cast(Blocks, Logged(Blocks(self.world), "blocks", lambda: self.world))

    @cached_property
    def goals(self) -> Goals:
        """What each character is working toward (the evolution system's goals layer): the game sets them and
        their progress, `curator.goals.set("bear", "honey", "Find honey before winter")`."""
        return cast(Goals, Logged(Goals(self.world), "goals", lambda: self.world))

    def abilities(self, character: str, *, habits: bool = False) -> list[Ability]:
        """What the character has tried, by skill, the most telling record first (practice.py);
        `habits=True` also lists verbs that have never gone wrong."""
        return abilities(self.world, self._known(character), habits=habits)

    def mood(self, character: str) -> Mood | None:
        """How the character feels now, from its memories of the last `recall.mood_hours` of game
        time (None when nothing happened to it in that window, or before the first turn)."""
        owner, now = self._known(character), self.world.clock()
        if now is None:
            return None
        newest = memories_by_seq(self.world, latest_seqs(self.world, owner, MOOD_LOOKBACK))
        return mood_of(list(newest.values()), now, self.config.recall.mood_hours)

    @cached_property
    def passages(self) -> Passages:
        """Archival passages, searchable by keyword."""
        return cast(Passages, Logged(Passages(self.world), "passages", lambda: self.world))

    # -- helpers -------------------------------------------------------------------------

    def _semantic(self, owner: str, text: str) -> Semantic | None:
        """Embedding similarities of `text` for recall; None without an embedder (embeddings.py
        overrides this)."""
        return None

    @staticmethod
    def _id(character: str) -> str:
        try:
            return normalize_character_id(character)
        except ValueError as error:
            raise InvalidInput(str(error), field="character") from error

    def _known(self, character: str) -> str:
        key = self._id(character)
        if self.world.character_row(key) is None:
            raise UnknownCharacter(key, known=self.world.character_ids())
        return key
