"""Context assembly: the text a character's next prompt carries, fitted to a token budget.

`assemble` gathers the parts (persona, blocks, the immediate context, the characters
present with their summaries and feelings in words, core memories, the memories that come
to mind for the situation, matching archive passages, and the short-term window of the
last stretch of game time), gives each a value, keeps the most valuable that fit in
`max_tokens` (counted with tiktoken, tokens.py) and renders `prompts/context.j2`. Nothing
is ever cut in half: an item is in whole or dropped, and the manifest says which and why.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from curator.domain.config import RecallConfig
from curator.domain.errors import InvalidInput
from curator.domain.knowing import FORGOTTEN_TELLER
from curator.domain.models import Memory, Tier, display_name
from curator.evolution.cycle import latest_snapshot
from curator.evolution.goals import Goals
from curator.evolution.mood import mood_of
from curator.evolution.personality import attribute_words
from curator.evolution.practice import abilities
from curator.model import prompts
from curator.model.tokens import count_tokens
from curator.recall.blocks import Blocks
from curator.recall.index import latest_seqs, memories_by_seq, scene_seqs
from curator.recall.passages import Passages
from curator.recall.query import name_candidates, read_query
from curator.recall.ranking import Recalled, rank
from curator.recall.semantic import Semantic, semantic_passages
from curator.store import knowing
from curator.store.world import World

Section = Literal["persona", "identity", "ability", "block", "state", "immediate", "present", "core",
                  "memory", "passage", "short_term", "goal"]
# The evolution system's assembly order: role, identity, abilities, (blocks), current state, memories and
# the relationships of those present, goals last.
_ORDER: list[Section] = ["persona", "identity", "ability", "block", "state", "immediate", "present", "core",
                         "memory", "passage", "short_term", "goal"]
# The layers a game can switch on and off (`Curator.context(layers=...)`), by the section each fills.
LAYERS: dict[str, Section] = {
    "persona": "persona", "identity": "identity", "abilities": "ability", "blocks": "block",
    "state": "state", "immediate": "immediate", "present": "present", "core": "core", "memories": "memory",
    "short_term": "short_term", "passages": "passage", "goals": "goal"}
_HEADERS: dict[Section, str] = {
    "identity": "\n## Who you are now\n", "ability": "\n## What you have practised\n",
    "state": "\n## How you feel\n", "goal": "\n## What you are working toward\n",
    "immediate": "\n## Right now\n", "present": "\n## Who is here\n",
    "core": "\n## What defines you (core memories)\n",
    "memory": "\n## What comes to mind (✓ good, ✗ bad, · neutral; vivid, clear or faint)\n",
    "passage": "\n## From your archive\n", "short_term": "\n## Lately\n"}
MOOD_LOOKBACK = 12  # newest memories the mood reads (those of the last `mood_hours` among them)
# Values decide what is dropped first when the budget is short: lowest first.
_BASE: dict[Section, float] = {"persona": 1000, "identity": 950, "block": 900, "goal": 850, "immediate": 800,
                               "state": 750, "present": 700, "ability": 600, "core": 500, "short_term": 300,
                               "memory": 100, "passage": 90}


class ContextItem(BaseModel):
    """One part of a context: in it, or dropped, with the reason."""

    section: Section
    key: str  # a memory id, a block label, a character id, a passage id
    text: str
    tokens: int
    value: float
    reason: str
    score: dict[str, float] | None = None  # a memory's score parts (--explain)
    fields: dict[str, Any] = Field(default_factory=dict, exclude=True)  # what the template gets


class MemoryContext(BaseModel):
    """What `Curator.context` returns: the text and the manifest of what went in and why."""

    character: str
    situation: str
    present: list[str]
    text: str
    tokens: int
    max_tokens: int
    encoding: str
    items: list[ContextItem]
    dropped: list[ContextItem]
    recalled: list[str] = Field(default_factory=list)  # memory ids refreshed (none with peek)
    peek: bool = False


def _memory_fields(memory: Memory, owner: str, strength: float, how: str = "") -> dict[str, Any]:
    marker = "✓" if memory.valence > 0.15 else "✗" if memory.valence < -0.15 else "·"
    vividness = "vivid" if strength > 0.7 else "clear" if strength > 0.4 else "faint"
    about = display_name(memory.subject) if memory.subject and memory.subject != owner else ""
    content = f"{memory.content} ({how})" if how else memory.content
    return {"marker": marker, "vividness": vividness, "content": content, "about": about}


def known_how(world: World, memories: list[Memory]) -> dict[str, str]:
    """How each of these memories is known, where it matters to the words: '(heard from Heron)'
    for hearsay whose text does not name its teller ('via Crow' for the earlier mouths when it
    does), '(known to the valley)' for a group's knowledge; nothing for what one did or saw."""
    how: dict[str, str] = {}
    by_id = {m.id: m for m in memories}
    for memory_id, source in knowing.sources(world, by_id).items():
        phrase = source.phrase(display_name)
        teller = source.told_by
        if (phrase and teller is not None and teller != FORGOTTEN_TELLER
                and display_name(teller) in by_id[memory_id].content):
            earlier = source.mouths[:-1]
            phrase = f"via {', '.join(display_name(m) for m in earlier)}" if earlier else ""
        if phrase:
            how[memory_id] = phrase
    return how


def _ago(then: datetime, now: datetime) -> str:
    minutes = int((now - then).total_seconds() // 60)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''} ago"
    hours = minutes // 60
    return f"{hours} hour{'s' if hours != 1 else ''} ago"


def sections(layers: Collection[str] | None) -> frozenset[Section]:
    """The sections the named layers fill (all of them for None); an unknown name is an error."""
    if layers is None:
        return frozenset(_ORDER)
    unknown = sorted(set(layers) - set(LAYERS))
    if unknown:
        raise InvalidInput(f"unknown layer(s) {', '.join(unknown)}; the layers are "
                           f"{', '.join(LAYERS)}", field="layers")
    return frozenset(LAYERS[name] for name in layers)


def feeling_words(value: float, *, slow: bool = False) -> str:
    """Sentiment or bond in words (the context's present section and `curator show`)."""
    scale = [(-0.6, "hostile" if slow else "furious"), (-0.25, "distrustful" if slow else "upset"),
             (-0.05, "wary" if slow else "uneasy"), (0.05, "neutral"),
             (0.25, "friendly" if slow else "pleased"), (0.6, "close" if slow else "warm")]
    for limit, word in scale:
        if value < limit:
            return word
    return "devoted" if slow else "delighted"


def trust_words(trust: float) -> str:
    for limit, word in ((0.25, "not at all"), (0.45, "little"), (0.6, "somewhat"), (0.8, "well")):
        if trust < limit:
            return word
    return "completely"


def gather(world: World, owner: str, situation: str, present: list[str], config: RecallConfig,
           now: datetime | None, on: frozenset[Section] = frozenset(_ORDER), domain: str | None = None,
           semantic: Semantic | None = None) -> tuple[list[ContextItem], dict[str, Memory]]:
    """Every candidate item with its value, and the memories behind memory items by id
    (only for the sections in `on`)."""
    row = world.character_row(owner)
    assert row is not None
    module = prompts.environment().get_template("context_lines.j2").module

    def line(macro: str, fields: dict[str, Any]) -> str:  # one item, rendered by its macro
        return str(getattr(module, macro)(fields))

    items: list[ContextItem] = []
    memories: dict[str, Memory] = {}

    def add(section: Section, key: str, text: str, value: float, reason: str,
            fields: dict[str, Any], score: dict[str, float] | None = None) -> None:
        items.append(ContextItem(section=section, key=key, text=text,
                                 tokens=count_tokens(text, config.encoding), value=round(value, 4),
                                 reason=reason, score=score, fields=fields))

    fields: dict[str, Any]
    if row["persona"] and "persona" in on:
        add("persona", owner, row["persona"] + "\n", _BASE["persona"], "persona", {"text": row["persona"]})
    if "identity" in on and (snapshot := latest_snapshot(world, owner)) is not None:
        fields = {"narrative": snapshot.identity_summary,
                  "words": [w for w in attribute_words(snapshot.attributes)
                            if w not in snapshot.identity_summary]}
        add("identity", owner, line("identity_section", fields), _BASE["identity"],
            f"identity as of {snapshot.world_time}", fields)
    for i, ability in enumerate(abilities(world, owner, limit=config.max_abilities,
                                          min_attempts=config.min_attempts) if "ability" in on else []):
        fields = {"skill": ability.skill, "attempts": ability.attempts, "good": ability.went_as_meant,
                  "bad": ability.went_wrong, "verdict": ability.verdict}
        add("ability", ability.skill, line("ability_line", fields), _BASE["ability"] - i,
            f"practised {ability.attempts} times", fields)
    goals = Goals(world).list(owner)[:config.max_goals] if "goal" in on else []
    for i, goal in enumerate(goals):
        fields = {"description": goal.description, "progress": f"{goal.progress:.0%}"}
        add("goal", goal.label, line("goal_line", fields), _BASE["goal"] - i,
            f"active goal, priority {goal.priority}", fields)
    for i, block in enumerate(Blocks(world).list(owner) if "block" in on else []):
        fields = {"label": block.label, "content": block.content}
        add("block", block.label, line("block_section", fields), _BASE["block"] - i,
            "shared block" if block.owner != owner else "block", fields)
    if row["immediate_context"] and "immediate" in on:
        add("immediate", owner, row["immediate_context"] + "\n", _BASE["immediate"], "immediate context",
            {"text": row["immediate_context"]})
    known = world.relationships_among(owner, present) if "present" in on else set()
    for i, other in enumerate(present if "present" in on else []):
        rel = world.relationship(owner, other, with_memories=False) if other in known else None
        fields = {"name": display_name(other), "met": rel is not None}
        if rel is not None:
            fields.update(feeling=feeling_words(rel.current_sentiment),
                          sentiment=f"{rel.current_sentiment:+.2f}",
                          bond_words=feeling_words(rel.overall_bond, slow=True),
                          bond=f"{rel.overall_bond:+.2f}", interactions=rel.interactions,
                          summary=rel.long_term_summary, latest=rel.immediate_context)
            if (rel.trust, rel.rapport) != (0.5, 0.5):  # an evolution cycle has moved them
                fields.update(trust=f"{rel.trust:.0%}", trust_words=trust_words(rel.trust),
                              rapport=f"{rel.rapport:.0%}")
        add("present", other, line("present_section", fields), _BASE["present"] - i,
            "present" if rel is not None else "present, never met", fields)
    # The newest memories feed both the mood and the short-term window: read them once.
    newest: dict[int, Memory] = {}
    lookback = max(config.short_term_limit if "short_term" in on else 0,
                   MOOD_LOOKBACK if "state" in on and config.mood_hours else 0)
    if now is not None and lookback:
        newest = memories_by_seq(world, latest_seqs(world, owner, lookback))
    if "state" in on and now is not None and (mood := mood_of(list(newest.values()), now, config.mood_hours)):
        fields = {"text": mood.sentence()}
        add("state", owner, line("state_section", fields), _BASE["state"], f"mood {mood.valence:+.2f}",
            fields)
    read = read_query(situation, world.characters_among(name_candidates(situation)))
    if not on & {"core", "memory", "short_term"}:
        return _passages(world, owner, situation, read.terms, on, items, add, line, semantic), memories
    # Core memories of the self and of those present are always candidates.
    extra = scene_seqs(world, owner, [None, *present], config.scene_per_tier)
    for seq in latest_seqs(world, owner, config.max_memories):  # recency counts without a match
        extra.setdefault(seq, "newest")
    window: dict[int, Memory] = {}
    if now is not None and "short_term" in on:
        for seq in sorted(newest, reverse=True)[:config.short_term_limit]:
            if (now - newest[seq].created_at).total_seconds() <= config.short_term_minutes * 60:
                window[seq] = newest[seq]
    ranked = rank(world, owner, read, config=config, weights=config.weights, present=present, now=now,
                  limit=config.max_memories, extra=extra, depth=config.max_memories,
                  exclude=frozenset(window), core_beyond_limit=True, domain=domain, semantic=semantic)
    chosen = 0
    how = known_how(world, [r.memory for r in ranked] + list(window.values()))
    for r in ranked:
        if r.memory.archived_reason == "forgotten_by_designer":  # taken out of mind by hand
            continue
        memories[r.memory.id] = r.memory
        fields = _memory_fields(r.memory, owner, r.parts.strength, how.get(r.memory.id, ""))
        score = {k: v for k, v in vars(r.parts).items()}
        if r.seq in window:
            continue
        if r.memory.tier is Tier.CORE:
            if "core" not in on:
                continue
            add("core", r.memory.id, line("memory_line", fields), _BASE["core"] + r.score, "core memory",
                fields, score)
        elif chosen < config.max_memories and "memory" in on:
            chosen += 1
            add("memory", r.memory.id, line("memory_line", fields), _BASE["memory"] + 50 * r.score,
                _why(r), fields, score)
    shown = sorted(window.items(), key=lambda kv: -kv[0]) if "short_term" in on else []
    for rank_no, (_seq, memory) in enumerate(shown):
        assert now is not None
        memories[memory.id] = memory
        fields = _memory_fields(memory, owner, memory.strength, how.get(memory.id, "")) | {
            "when": _ago(memory.created_at, now)}
        add("short_term", memory.id, line("short_term_line", fields), _BASE["short_term"] - rank_no,
            "in the short-term window", fields)
    return _passages(world, owner, situation, read.terms, on, items, add, line, semantic), memories


def _passages(world: World, owner: str, situation: str, terms: list[str], on: frozenset[Section],
              items: list[ContextItem], add: Callable[..., None], line: Callable[[str, dict[str, Any]], str],
              semantic: Semantic | None = None) -> list[ContextItem]:
    if "passage" not in on:
        return items
    found = semantic_passages(world, owner, situation, semantic, 3) if semantic is not None else None
    if found is None:
        found = [(hit, "archive passage matching the situation")
                 for hit in (Passages(world).search(owner, situation, limit=3) if terms else [])]
    for i, (hit, why) in enumerate(found):
        fields = {"content": hit.content, "tags": list(hit.tags)}
        add("passage", str(hit.id), line("passage_line", fields), _BASE["passage"] - i, why, fields)
    return items


def _why(recalled: Recalled) -> str:
    parts = recalled.parts
    if "match" in recalled.sources:
        return "matches the situation"
    if "neighbour" in recalled.sources:
        return "next to a memory that matches"
    if parts.present:
        return "about someone present"
    return "recent and important"


def render(name: str, chosen: list[ContextItem]) -> str:
    by: dict[str, list[dict[str, Any]]] = {s: [i.fields for i in chosen if i.section == s] for s in _ORDER}
    persona = by["persona"][0]["text"] if by["persona"] else ""
    identity = by["identity"][0] if by["identity"] else None
    state = by["state"][0]["text"] if by["state"] else ""
    immediate = by["immediate"][0]["text"] if by["immediate"] else ""
    return prompts.environment().get_template("context.j2").render(
        name=name, persona=persona, identity=identity, abilities=by["ability"], blocks=by["block"],
        state=state, immediate=immediate, goals=by["goal"],
        present=by["present"],
        core=by["core"], memories=by["memory"], short_term=list(reversed(by["short_term"])),
        passages=by["passage"]).strip() + "\n"


def fit(name: str, items: list[ContextItem], max_tokens: int, encoding: str
        ) -> tuple[str, int, list[ContextItem], list[ContextItem]]:
    """Keep the most valuable items that fit; returns text, tokens, kept and dropped."""
    empty = render(name, [])
    used = count_tokens(empty, encoding)
    if used > max_tokens:
        raise InvalidInput(f"max_tokens {max_tokens} is too small: the header alone takes {used}",
                           field="max_tokens")
    kept: list[ContextItem] = []
    dropped: list[ContextItem] = []
    opened: set[str] = set()
    for item in sorted(items, key=lambda i: -i.value):
        header = count_tokens(_HEADERS[item.section], encoding) if (
            item.section in _HEADERS and item.section not in opened) else 0
        if used + item.tokens + header <= max_tokens:
            kept.append(item)
            used += item.tokens + header
            opened.add(item.section)
        else:
            dropped.append(item.model_copy(update={"reason": f"dropped: over budget ({item.reason})"}))
    text = render(name, kept)
    tokens = count_tokens(text, encoding)
    while tokens > max_tokens and kept:  # joins may count differently from the parts
        last = min(kept, key=lambda i: i.value)
        kept.remove(last)
        dropped.append(last.model_copy(update={"reason": f"dropped: over budget ({last.reason})"}))
        text = render(name, kept)
        tokens = count_tokens(text, encoding)
    order = {s: n for n, s in enumerate(_ORDER)}
    kept.sort(key=lambda i: (order[i.section], -i.value))
    return text, tokens, kept, dropped
