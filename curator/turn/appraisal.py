"""Appraisal: each memory a turn drafts, judged through several lenses at once.

This module owns the step `appraise`: what it is told (`AppraiseInput`), what it answers
(`Appraisal`: per drafted memory, per lens, a priority 0..1 and a short justification),
the deterministic fallback that answers it from lexicons and the turn's reading, how a
character's lens weights are found, and how the priorities combine into importance and a
retention decision. The pipeline (pipeline.py) asks it; the memory network (network.py)
stores what it said.

Retention, as the appraisal design's `should_retain`: a draft is kept when its importance reaches the
overall threshold, or any lens reaches its own threshold, or it is strongly linked to a
memory its owner already holds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from pydantic import BaseModel, Field, ValidationInfo, field_validator, model_validator

from curator.domain import lexicon as lx
from curator.domain.config import AppraisalConfig
from curator.domain.construct import trusted
from curator.domain.models import Gap, MemoryKind, Turn, display_name
from curator.model.decision import DecisionModel, ModelText, decision_context
from curator.turn.decisions import MAX_MEMORIES_PER_TURN, MemoryDraft
from curator.turn.judgement import first_sentences
from curator.turn.perspective import Aliases
from curator.turn.reading import Reading, read_turn

MAX_JUSTIFICATION = 200  # characters: a reason, not an essay (the model is told so)
MAX_JUSTIFICATION_WORDS = 30


class LensScore(DecisionModel):
    """One lens's judgement of one memory."""

    priority: float = Field(ge=0.0, le=1.0)
    justification: ModelText = Field(min_length=1, max_length=MAX_JUSTIFICATION,
                               description="one short sentence naming what drove the priority")

    @field_validator("justification")
    @classmethod
    def _short_words(cls, value: str) -> str:
        value = value.strip()
        if not any(ch.isalpha() for ch in value):
            raise ValueError("justification must say why in words, not be empty")
        # A small model often copies the whole memory here: keep its first sentences, since the
        # priority is the answer and the reason only explains it.
        value = first_sentences(value, MAX_JUSTIFICATION_WORDS)
        return value


class MemoryAppraisal(DecisionModel):
    """Every lens's judgement of one drafted memory, by lens name."""

    lenses: dict[str, LensScore]


class Appraisal(DecisionModel):
    """Step `appraise`: the drafted memories of one perceiver's turn, each through every lens,
    in the order the memories were given."""

    memories: list[MemoryAppraisal] = Field(max_length=MAX_MEMORIES_PER_TURN)

    @model_validator(mode="after")
    def _every_lens_for_every_memory(self, info: ValidationInfo) -> Appraisal:
        context = decision_context(info)
        count = context.get("memories")
        if count is not None and len(self.memories) != count:
            raise ValueError(f"appraise all {count} memories, in the order given; got {len(self.memories)}")
        lenses = context.get("lenses")
        if lenses is None:
            return self
        for i, memory in enumerate(self.memories):
            missing = [name for name in lenses if name not in memory.lenses]
            unknown = sorted(set(memory.lenses) - set(lenses))
            if missing:
                raise ValueError(f"memories[{i}] has no {', '.join(repr(n) for n in missing)} lens; "
                                 f"judge every lens: {', '.join(lenses)}")
            if unknown:
                raise ValueError(f"memories[{i}]: {', '.join(repr(n) for n in unknown)} is not a lens; "
                                 f"use only: {', '.join(lenses)}")
        return self


class LensView(BaseModel):
    """A lens as the step sees it: the model reads the description, the fallback the words."""

    name: str
    description: str
    words: list[str] = Field(default_factory=list)


class AppraiseInput(BaseModel):
    perceiver: str
    role: Literal["actor", "observer"]
    persona: str
    turn: Turn
    memories: list[MemoryDraft]
    lenses: list[LensView]
    aliases: Aliases = ()  # the turn's characters' other names (perspective.aliases_of)


def lens_views(config: AppraisalConfig) -> list[LensView]:
    return [LensView(name=lens.name, description=lens.description, words=list(lens.words))
            for lens in config.lenses]


# -- a character's weights -----------------------------------------------------------------


def _found(words: list[str], stems: frozenset[str], exact: frozenset[str] = frozenset()) -> list[str]:
    """The words of `words` (in order, once each) that match the stems or exact words."""
    return list(_found_in(tuple(words), stems, exact))


@lru_cache(maxsize=1024)
def _found_in(words: tuple[str, ...], stems: frozenset[str], exact: frozenset[str]) -> tuple[str, ...]:
    # Every perceiver of a turn reads the same reality: its lenses find the same words, once.
    hit = lx.stem_hits(words, stems, exact)  # one pass; most lenses find nothing
    if not hit:
        return ()
    out: list[str] = []
    for word in words:
        if word not in out and (word in hit or any(word.startswith(s) and len(word) - len(s) <= 3
                                                   for s in hit)):
            out.append(word)
    return tuple(out)


# Verbs of harm (AGENT_HARM) count only when the reading found someone doing harm: "the tender
# willow shoots" is talk of food, not of danger.
_DANGER_STEMS = lx.HARM | lx.DANGER | lx.LETHAL


def _named(words: list[str], limit: int = 3) -> str:
    return ", ".join(f"'{w}'" for w in words[:limit])


def _clip(value: float) -> float:
    return round(max(0.0, min(1.0, value)), 3)


@dataclass
class _Scene:
    """What the fallback reads once per appraisal: the turn's reading and its words."""

    inp: AppraiseInput
    reading: Reading
    words: list[str]
    lower: str
    seen: dict[str, list[str]] = field(default_factory=dict)

    def find(self, key: str, stems: frozenset[str], exact: frozenset[str] = frozenset()) -> list[str]:
        """The turn's words of one lexicon list; read once per turn, however many drafts."""
        if key not in self.seen:
            self.seen[key] = _found(self.words, stems, exact)
        return self.seen[key]


def _danger(scene: _Scene, draft: MemoryDraft) -> tuple[float, str]:
    r, actor = scene.reading, scene.inp.role == "actor"
    harm, danger, lethal = ((r.actor_harm, r.actor_danger, r.actor_lethal) if actor
                            else (r.harm, r.danger, r.lethal))
    if actor and draft.subject is not None and draft.subject in r.harm_by:
        harm = danger = True
    words = scene.find("danger", _DANGER_STEMS, lx.HARM_WORDS)
    if r.harm_by:
        words = words + [w for w in scene.find("violence", lx.AGENT_HARM) if w not in words]
    seen = "" if actor else " (seen, not lived)"
    # Living it counts more than seeing it, as in significance().
    if lethal:
        p, what = (0.95 if actor else 0.8), "a threat to life"
    elif harm:
        p, what = (0.85 if actor else 0.7), "harm"
    elif danger:
        p, what = (0.65 if actor else 0.55), "danger"
    elif words:
        p, what = 0.3, "talk of danger"
    else:
        p, what = 0.0, ""
    if draft.kind is MemoryKind.DANGER and p < 0.75:
        p, what = 0.75, what or "a dangerous moment"
    if p == 0.0:
        return 0.0, "nothing harmful or threatening happened"
    return _clip(p), f"{what}{seen}" + (f": {_named(words)}" if words else "")


_BAD = {"deceitful": 0.8, "selfish": 0.6, "mean": 0.45, "aggressive": 0.4, "dangerous": 0.5}
_GOOD = {"protective": 0.6, "generous": 0.5, "kind": 0.5, "helpful": 0.45, "loyal": 0.5, "brave": 0.45}


def _moral(scene: _Scene, draft: MemoryDraft) -> tuple[float, str]:
    lower = scene.lower
    betrayal = scene.find("betray", lx.BETRAY, lx.BETRAY_WORDS) + [p for p in lx.BETRAY_PHRASES if p in lower]
    theft = scene.find("theft", lx.THEFT, lx.THEFT_WORDS) + [p for p in lx.THEFT_PHRASES if p in lower]
    violence = scene.find("violence", lx.AGENT_HARM) if scene.reading.harm_by or scene.reading.harm else []
    help_ = scene.find("help", lx.HELP, lx.HELP_WORDS) + [p for p in lx.RESCUE_PHRASES if p in lower]
    rough = scene.find("rough", lx.BLOCK, lx.BLOCK_WORDS)
    options = [(0.85, "a betrayal", betrayal), (0.7, "a theft", theft), (0.65, "harm done", violence),
               (0.6 if scene.reading.actor_danger else 0.5, "a kindness", help_),
               (0.3, "a rough act", rough)]
    best = max(((p, what, found) for p, what, found in options if found), default=None,
               key=lambda o: o[0])
    traits = [(v, t) for t in draft.traits for v in [_BAD.get(t, _GOOD.get(t, 0.0))] if v]
    trait = max(traits, default=None)
    if trait is not None and (best is None or trait[0] > best[0]):
        good = trait[1] in _GOOD
        return _clip(trait[0]), f"{'a good' if good else 'a wrong'} deed: it showed '{trait[1]}'"
    if best is None:
        return 0.0, "no right or wrong was done"
    p, what, found = best
    return _clip(p), f"{what}: {_named(found)}"


_ROLE_SOCIAL = {"betrayer": (0.85, "turned on me"), "helper": (0.6, "helped"),
                "hostile": (0.5, "stood against"), "mixed": (0.45, "both helped and hindered")}


def _social(scene: _Scene, draft: MemoryDraft) -> tuple[float, str]:
    r, turn = scene.reading, scene.inp.turn
    if draft.subject is None:
        others = len(turn.others)
        if not others:
            return 0.05, "nobody else was involved"
        return _clip(0.1 + 0.1 * min(others, 2)), f"{others} other(s) were there"
    role, act = r.roles.get(draft.subject), r.acts_on.get(draft.subject)
    name = display_name(draft.subject)
    p, why = 0.2, f"{name} was there"
    if role in _ROLE_SOCIAL:
        p, verb = _ROLE_SOCIAL[role]
        if role == "helper" and r.actor_danger:
            p, verb = 0.75, "came to the rescue"
        why = f"{name} {verb}"
    elif act in ("helped", "hostile"):
        p, why = 0.4, f"what was done to {name}: {act}"
    first = draft.kind is MemoryKind.ENCOUNTER or any(ph in scene.lower for ph in lx.NOVELTY_PHRASES)
    if first and p < 0.45:
        p, why = 0.45, f"a first meeting with {name}"
    traits = [(v, t) for t in draft.traits for v in [_BAD.get(t, _GOOD.get(t, 0.0))] if v]
    if traits:
        v, trait = max(traits)
        if v > p:
            p, why = v, f"it showed {name} is '{trait}'"
    if scene.inp.role == "observer":
        p *= 0.85  # between others: it says who they are, it changed less between us
    return _clip(p), why


def _practical(scene: _Scene, draft: MemoryDraft) -> tuple[float, str]:
    r = scene.reading
    own = [w for w in lx.tokens(draft.content) if w not in scene.words]  # the memory's own words too
    things: list[str] = []
    shelter: list[str] = []
    for key, stems, exact in (("shelter", lx.SHELTER, lx.SHELTER_WORDS), ("food", lx.FOOD, lx.FOOD_WORDS),
                              ("goods", lx.GOODS, lx.GOODS_WORDS)):
        found = scene.find(key, stems, exact) + _found(own, stems, exact)
        if key == "shelter":
            shelter = found
        things += found
    lost = r.thwart or bool(scene.find("theft", lx.THEFT, lx.THEFT_WORDS)) or (
        r.failure and r.gap in (Gap.FAILED, Gap.BLOCKED, Gap.THWARTED, Gap.MIXED))
    gained = r.success and not r.failure
    if things:
        if lost:
            p, how = (0.7 if shelter else 0.6), "lost"
        elif gained:
            p, how = (0.55 if r.triumph else 0.35), "gained"
        else:
            p, how = 0.2, "at stake"
        why = f"{how}: {_named(things)}"
    elif lost:
        p, why = 0.3, "a goal missed"
    elif gained:
        p, why = (0.45, "a goal reached, and a big one") if r.triumph else (0.15, "a goal reached")
    else:
        p, why = 0.05, "nothing gained or lost"
    if r.discovery and gained:
        p, why = p + 0.15, why + "; something new found"
    if r.actor_harm and scene.inp.role == "actor":
        p, why = p + 0.1, why + "; hurt, and slower for it"
    if scene.inp.role == "observer" and p > 0.05:
        p, why = p * 0.5, why + " (someone else's)"
    return _clip(p), why


def _emotional(scene: _Scene, draft: MemoryDraft) -> tuple[float, str]:
    intense = scene.find("intense", lx.INTENSE)
    p = 0.1 + 0.8 * abs(draft.valence) + (0.1 if intense else 0.0)
    why = f"felt {draft.emotional_impact} (valence {draft.valence:+.2f})"
    return _clip(p), why + (f": {_named(intense)}" if intense else "")


_RULES: dict[str, Callable[[_Scene, MemoryDraft], tuple[float, str]]] = {
    "danger": _danger, "moral": _moral, "social": _social, "practical": _practical,
    "emotional": _emotional}


def _custom(scene: _Scene, draft: MemoryDraft, lens: LensView) -> tuple[float, str]:
    """A lens of the game's own: its words in the turn or the memory."""
    stems = frozenset(w.lower() for w in lens.words)
    words = _found(scene.words + lx.tokens(draft.content), stems) if stems else []
    if not words:
        return 0.05, f"none of the {lens.name} words" if stems else f"no rule for {lens.name}"
    return _clip(0.3 + 0.2 * len(words)), f"{lens.name}: {_named(words)}"


def appraise(inp: AppraiseInput) -> Appraisal:
    """Every drafted memory through every lens, by rules: the five default lenses read the
    turn (reading.py) and lexicon words, a game's own lens its configured words. Each
    justification names what drove it."""
    scene = _Scene(inp, read_turn(inp.turn, inp.aliases), lx.tokens(inp.turn.reality),
                   inp.turn.reality.lower())
    memories = []
    for draft in inp.memories:
        scores: dict[str, LensScore] = {}
        for lens in inp.lenses:
            rule = _RULES.get(lens.name)
            p, why = rule(scene, draft) if rule is not None else _custom(scene, draft, lens)
            # The rules keep the decision's domain rules (0..1, short reasons in words), so the
            # models are built without validating again: appraisal runs on every turn.
            scores[lens.name] = trusted(LensScore, {"priority": p, "justification": why[:MAX_JUSTIFICATION]})
        memories.append(MemoryAppraisal.model_construct(lenses=scores))
    return Appraisal.model_construct(memories=memories)
