"""Hearsay: a turn's `tells`, checked against what the teller knows, and the memories its
listeners form of what they were told (the deterministic rule; no model is asked).

`resolve` runs before a turn writes anything: each tell's `about` must be a logged turn the
teller (the turn's actor) perceived or was told of, or a memory the teller owns; otherwise the
turn is refused with `NotKnown` naming the tell. `tell` then runs inside the turn's
transaction, after the perceivers: it stamps the perceivers' new memories 'did'/'witnessed'
and forms, for each listener, one memory in its own words ("Heron told me that Wolf takes the
honey"), with a source row saying who told it and through how many mouths
(domain/knowing.py has the confidence rule).

A hearsay memory is weaker than a witness's: its importance and strength are the teller's
memory's (a witness's) times the story's confidence, and it moves the listener's feeling
toward the one it concerns by `WITNESS_SHIFT × HEARSAY_FEELING × confidence` (0.035 for a
story told by a witness; an observer's judgement moves it 0.1). A listener who perceived the
turn itself learns nothing new; one who already heard it through fewer mouths keeps that
memory, and one who heard it through more has its source row shortened (no second memory).
Hearsay memories join the recent window (pushing the oldest through the usual fade review)
but not the memory network, and are never reviewed for core at formation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from curator.domain.construct import trusted
from curator.domain.errors import NotKnown
from curator.domain.knowing import HEARSAY_FEELING, Provenance, confidence
from curator.domain.models import Memory, MemoryKind, Tier, Turn, display_name
from curator.model.rounds import Pending, Request
from curator.store import knowing
from curator.store.world import World
from curator.turn.narration import retell
from curator.turn.phrasing import sentence
from curator.turn.pipeline import Curation
from curator.turn.threads import Thread, clamp, formed_memory_id, memory_change

WITNESS_SHIFT = 0.1  # what an observer's judgement of an actor moves its sentiment (fallback.py)
DEFAULT_IMPORTANCE = 0.3  # a story whose teller holds no memory of it ("minor")
_INDEX = 1000  # memory ids of hearsay: past any index a perceiver's own drafts use


@dataclass
class Story:
    """What one tell passes on, as resolved against the teller's knowledge."""

    index: int
    teller: str
    listeners: list[str]
    origin: str  # 'told' or 'rumour'
    hops: int  # mouths before the teller's (0: the teller perceived it)
    mouths: list[str] = field(default_factory=list)
    about: str | None = None  # the turn the story is of
    event: dict[str, Any] | None = None  # that turn's payload
    basis: Memory | None = None  # the teller's memory it tells from
    basis_trust: float = 1.0  # the teller's confidence in it (1.0: it perceived it)
    says: str | None = None


def resolve(world: World, turn: Turn) -> list[Story]:
    """Each tell of the turn, or NotKnown naming the first the teller cannot tell."""
    stories = []
    for n, tell in enumerate(turn.tells or []):
        story = Story(index=n, teller=turn.actor, listeners=list(tell.to), origin="told", hops=0,
                      says=tell.says)
        if tell.about is None:
            story.origin = "rumour"
        else:
            _ground(world, turn, story, tell.about, f"tells.{n}.about")
        stories.append(story)
    return stories


def _ground(world: World, turn: Turn, story: Story, about: str, where: str) -> None:
    teller = story.teller
    if about == turn.id:
        raise NotKnown("a turn cannot tell about itself", field=where, turn_id=turn.id)
    event = knowing.logged_payload(world, about)
    if event is not None:
        story.about, story.event = about, event
        if teller == event.get("actor") or teller in event.get("observers", []):
            own = knowing.perceived_memories(world, teller, about)
            story.basis = max(own, key=lambda m: (abs(m.valence), m.importance), default=None)
            return
        heard = knowing.hearsay_of(world, teller, about)
        if not heard:
            raise NotKnown(f"{teller} did not perceive turn {about!r} and was not told of it",
                           field=where, turn_id=turn.id)
        story.basis, source = heard[0]
        story.origin, story.hops, story.mouths = source.origin, source.hops, list(source.mouths)
        story.basis_trust = source.confidence
        return
    memory = world.find_memory(about)
    if memory is None:
        raise NotKnown(f"no turn or memory has the id {about!r}", field=where, turn_id=turn.id)
    if memory.owner != teller:
        raise NotKnown(f"memory {about!r} is {memory.owner}'s: {teller} can only tell its own memories",
                       field=where, turn_id=turn.id)
    story.basis = memory
    known = knowing.sources(world, [memory.id]).get(memory.id)
    if known is not None and known.origin in ("told", "rumour"):
        story.origin, story.hops, story.mouths = known.origin, known.hops, list(known.mouths)
        story.basis_trust = known.confidence
    story.about = known.about if known is not None else None
    if story.about is None and memory.source_turns:
        story.about = memory.source_turns[0] if knowing.logged_payload(
            world, memory.source_turns[0]) is not None else None
    story.event = knowing.logged_payload(world, story.about) if story.about else None


def tell(curation: Curation, turn: Turn, stories: list[Story], since_seq: int) -> list[Request]:
    """Stamp the perceivers' memories of this turn, then let every listener hear every story;
    the model requests the listeners' fade reviews are waiting for (Pending), if any."""
    knowing.stamp_perceived(curation.world, turn_id=turn.id, actor=turn.actor, since_seq=since_seq)
    pending: list[Request] = []
    waiting: set[str] = set()
    for story in stories:
        for listener in story.listeners:
            if listener in waiting:
                continue  # its later stories depend on the review it waits for: asked next round
            try:
                hear(curation, turn, story, listener)
            except Pending as asked:
                pending.extend(asked.requests)
                waiting.add(listener)
    return pending


def concerns(story: Story, listener: str) -> list[str]:
    """Whom the story is about, from the listener's side (never the listener itself)."""
    if story.event is not None:
        names = [story.event.get("actor"), *story.event.get("others", [])]
    elif story.basis is not None:
        names = [story.basis.subject or story.basis.owner]
    else:
        names = []
    return [n for n in dict.fromkeys(names) if isinstance(n, str) and n != listener]


def words(story: Story, listener: str) -> str:
    """The hearsay memory's text, in the listener's first person."""
    teller = display_name(story.teller)
    if story.says is not None:
        verb = "passed on a rumour" if story.origin == "rumour" else "told me"
        return sentence(f'{teller} {verb}: "{story.says}"')
    if story.event is not None:
        told = retell(str(story.event.get("reality", "")), perceiver=listener,
                      actor=str(story.event.get("actor", "")))
        return sentence(f"{teller} told me that {told}")
    assert story.basis is not None
    return sentence(f'{teller} told me: "{story.basis.content}"')


def hear(curation: Curation, turn: Turn, story: Story, listener: str) -> None:
    """One listener hears one story: a hearsay memory and a nudge to its feeling."""
    world, now = curation.world, turn.world_time
    if story.event is not None and (listener == story.event.get("actor")
                                    or listener in story.event.get("observers", [])):
        return  # it was there: being told adds nothing it does not hold
    hops = story.hops + 1
    trust = confidence(story.origin, hops)
    source = Provenance(origin=story.origin, confidence=trust, hops=hops,
                        mouths=[*story.mouths, story.teller], about=story.about, told_in=turn.id)
    if story.about is not None:
        heard = knowing.hearsay_of(world, listener, story.about)
        if heard:
            held, known = heard[0]
            if hops < known.hops:  # heard closer to the source now: trust it more
                knowing.record(world, held.id, listener, source)
            return
    about = concerns(story, listener)
    subject = about[0] if about else None
    thread = (curation.relationship_thread(listener, subject, now) if subject is not None
              else curation.self_thread(listener, now))
    basis = story.basis
    # The teller's memory, at a witness's weight (hearsay it holds was already discounted), times
    # this story's confidence: told by a witness 0.7, retold 0.49, never discounted twice.
    scale = trust / story.basis_trust if story.basis_trust > 0 else trust
    valence = clamp(round(basis.valence * scale, 4)) if basis is not None else 0.0
    importance = min(1.0, basis.importance * scale) if basis is not None else DEFAULT_IMPORTANCE * trust
    memory = trusted(Memory, {  # in the model's field order (construct.trusted)
        "id": formed_memory_id(turn.world_time, turn.id, listener, _INDEX + story.index), "owner": listener,
        "subject": subject,
        "content": words(story, listener),
        "kind": basis.kind if basis is not None else MemoryKind.DISCOVERY,
        "emotional_impact": basis.emotional_impact if basis is not None else "curious",
        "valence": valence, "importance": round(importance, 4), "tier": Tier.RECENT,
        "strength": trust, "recall_count": 0, "last_recalled": now, "created_at": now,
        "strength_at": now, "source_turns": [turn.id], "traits": [], "place": turn.place,
        "domain": turn.domain, "archived_at": None, "archived_reason": None})
    world.insert_memory(memory, curation.seq)
    curation.seq += 1
    knowing.record(world, memory.id, listener, source)
    thread.recent.append(memory)
    curation.changes.formed.append(memory_change(memory, source.phrase(display_name)))
    _colour(thread, memory, trust)
    curation.overflow(thread, now)
    if thread.rel is not None:
        world.save_relationship(thread.rel)


def _colour(thread: Thread, memory: Memory, trust: float) -> None:
    """Hearsay moves the feeling toward whom it concerns, less than witnessing would."""
    rel = thread.rel
    if rel is None or abs(memory.valence) < 0.15:
        return
    shift = (1.0 if memory.valence > 0 else -1.0) * WITNESS_SHIFT * HEARSAY_FEELING * trust
    rel.current_sentiment = clamp(rel.current_sentiment + shift)
    rel.overall_bond = clamp(rel.overall_bond + 0.1 * shift)
