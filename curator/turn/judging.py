"""Judging: a perceiver's `Judgement` of a turn, and the `Interpretation` built from it.

A model is asked for a small answer (harm, danger, how much the turn matters, a feeling word,
a first-person sentence) and the rules read the deeds (`JudgementAnswer.over`); a 1.5B model
answers in seconds. `interpretation_from` lays the judgement over the rules' filing of the
same turn (`fallback.interpret`: which memories, of what kind, about whom): the model's rating
moves their importance and how far the feelings move (a model cannot push a bond from 0 to +1
in one turn however it answers), and its sentence and feeling word are the memories'. Its
feeling word also tells a plan gone wrong that the rules' words missed (`went_wrong`).
The game's own outcome hints (`turn.outcome`) win over the model's reading, as they do over
the fallback's.

`judgement_of_rules` puts the rule-based reading the same way, so the fallback's reading and a
model's can be compared field by field (`curator eval judge`), and the stub server can answer
with the fallback's judgement.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from curator.domain.config import FORMATION_THRESHOLDS
from curator.domain.models import SIGNIFICANCE, Gap, MemoryKind, significance_band
from curator.domain.results import TurnReading
from curator.turn import filing as fl
from curator.turn.copying import stems
from curator.turn.decisions import ContextNote, Interpretation, MemoryDraft
from curator.turn.faithful import falls_short, told_otherwise
from curator.turn.inputs import InterpretInput, RelationView
from curator.turn.judgement import (
    HINDRANCES,
    MEMORY_CHARS,
    Deed,
    Judgement,
    OtherReading,
    Valence,
    first_sentences,
)
from curator.turn.perspective import mentions
from curator.turn.phrasing import intended, sentence
from curator.turn.reading import Reading, read_turn
from curator.turn.summaries import summary_tone

_DEED_OF_KIND: dict[MemoryKind, Deed] = {MemoryKind.KINDNESS: "helped", MemoryKind.BETRAYAL: "betrayed",
                                         MemoryKind.CONFLICT: "harmed", MemoryKind.DANGER: "harmed"}
_DEED_OF_ROLE: dict[str, Deed] = {"helper": "helped", "hostile": "harmed", "betrayer": "betrayed"}


def settled(inp: InterpretInput, judgement: Judgement) -> Judgement:
    """The judgement with what the game settled (`turn.outcome`) put over the model's reading."""
    hint = inp.turn.outcome
    if hint is None:
        return judgement
    update: dict[str, object] = {}
    if hint.result is not None:
        update["gap"] = hint.result
    if hint.harm is not None:
        update["harm"] = hint.harm
    if hint.danger is not None:
        update["danger"] = hint.danger
    if hint.importance is not None:
        update["significance"] = significance_band(hint.importance)
    return judgement.model_copy(update=update)


def defining_floor(inp: InterpretInput, j: Judgement) -> Judgement:
    """The bands' own words applied to the facts of a reading: an actor in danger whom someone
    helped, in a turn it rated major, was saved: "defining" (a small model rates its own rescue
    "major" as often as not). Harm and danger alone do not lift it: a 1.5B model answers both
    for most fights, and over the judgement set's 255 readings lifting those made 17 false
    core memories for 3 true ones (evals/judge). Read after `peril_floor`: a turn the model
    rated "notable" where the rules read the actor's life at stake is "major" by then, and
    someone saved that life (Jody, hooves an inch from his skull, dragged clear by Corliss:
    evals/genres western)."""
    helped = any(o.did == "helped" for o in j.others)
    if (inp.role == "actor" and j.significance == "major" and j.danger and helped
            and not _game_rated(inp)):
        return j.model_copy(update={"significance": "defining"})
    return j


# Gaps where what happened is not what was meant: a memory of one says what the plan was.
_OTHERWISE = frozenset({Gap.FAILED, Gap.BLOCKED, Gap.THWARTED, Gap.MIXED, Gap.SURPRISED})
_SENTENCE_OPENERS = frozenset({"the", "a", "an", "my", "it", "they", "he", "she", "we", "then", "when",
                               "there", "this", "that", "his", "her", "their", "our", "someone",
                               "something", "nobody", "no", "all", "before", "after", "instead"})


def with_intent(inp: InterpretInput, j: Judgement) -> Judgement:
    """An actor's memory of a turn that went otherwise than meant, with what it meant when the
    model's sentence leaves that out ("Wolf dragged me to the reeds" → "I meant to fish by the
    river, but Wolf dragged me to the reeds"): the seed's memory is intent against reality, and
    a 1.5B model asked for it words only what happened about half the time (evals/cases
    intent_vs_reality). The sentence stays the model's; only the plan is put before it."""
    if inp.role != "actor" or j.gap not in _OTHERWISE or not inp.turn.intent.action.strip():
        return j
    action = intended(inp.turn.intent.action)
    if stems(j.memory) & stems(action):
        return j
    first, _, rest = j.memory.partition(" ")
    # "The ice broke" → "but the ice broke"; a name ("Wolf") and "I" keep their capital
    memory = f"{first.lower()} {rest}" if first.lower() in _SENTENCE_OPENERS else j.memory
    joined = first_sentences(f"I meant to {action.rstrip('.!?')}, but {memory}")
    return j.model_copy(update={"memory": joined[:MEMORY_CHARS]})


# The feelings of a plan gone wrong, as a model words the actor's feeling about its own turn.
_WENT_WRONG = frozenset({"frustrated", "disappointed", "defeated", "discouraged", "dejected", "thwarted",
                         "upset", "annoyed", "helpless", "sad"})


def went_wrong(inp: InterpretInput, j: Judgement) -> Judgement:
    """An actor the model finds frustrated (or disappointed, defeated…) by a turn the rules read
    as gone as meant, with nobody helping or hindering, failed: the plan went wrong and nobody is
    to blame, which is the gap's own definition of "failed". The rules read "succeeded" wherever
    their words find nothing amiss, and a game master's prose tells a plan gone wrong in words
    no list holds ("nobody goes home", "Full circle", "every cup holds nothing but grit"); the
    model's feeling word reads the turn whole. Actors only: an observer's frustration may be at
    the actor's success."""
    if (inp.role != "actor" or j.gap is not Gap.SUCCEEDED or j.emotion not in _WENT_WRONG
            or (inp.turn.outcome is not None and inp.turn.outcome.result is not None)):
        return j
    return j.model_copy(update={"gap": Gap.FAILED})


def clash_floor(inp: InterpretInput, j: Judgement) -> Judgement:
    """An actor whose turn someone helped or hindered (by the rules' reading of the deeds)
    lived at least a "notable" turn: the bands' own words ("notable": a clash, a kindness),
    and a "minor" one would form no memory of the other at all (a conflict needs importance
    0.4), so nine thefts in a row by the same wolf left no trace (evals/cases recent_window)."""
    deeds = {o.did for o in j.others}
    if (inp.role == "actor" and j.significance in ("trivial", "minor")
            and deeds & {"helped", "harmed", "blocked", "betrayed"} and not _game_rated(inp)):
        return j.model_copy(update={"significance": "notable"})
    return j


def peril_floor(inp: InterpretInput, j: Judgement) -> Judgement:
    """An actor whose life the rules read as at stake, or whom someone betrayed, lived at least a
    "major" turn: the bands' own words ("major": danger, an injury, a rescue, a betrayal). The
    1.5B model rated such turns "notable" as often as not; on the judgement set's recorded
    answers the floor raised significance on dev and held-out test alike (59.6 → 65.1%,
    52.8 → 57.3%) and changed no core reading."""
    if inp.role != "actor" or j.significance not in ("trivial", "minor", "notable") or _game_rated(inp):
        return j
    betrayed = any(o.did == "betrayed" for o in j.others)
    if betrayed or read_turn(inp.turn, inp.aliases).actor_lethal:
        return j.model_copy(update={"significance": "major"})
    return j


def routine_ceiling(inp: InterpretInput, j: Judgement) -> Judgement:
    """An actor alone in a turn the rules read as quiet or routine, where nothing went wrong,
    surprised or endangered anyone (by the rules' reading and the model's), idled: "trivial",
    the bands' own words ("nothing to remember: idling, routine as always"). The 1.5B model
    rated a night counting stars "notable" (evals/genres: Eli, Jory and Ezra), and every such
    night formed a memory."""
    if inp.role != "actor" or j.significance == "trivial" or j.harm or j.danger or _game_rated(inp):
        return j
    turn = inp.turn
    if turn.others or turn.observers:
        return j
    reading = read_turn(turn, inp.aliases)
    if not reading.quiet or any((reading.harm, reading.danger, reading.failure, reading.surprise,
                                 reading.discovery, reading.novelty, reading.triumph, reading.intense)):
        return j
    return j.model_copy(update={"significance": "trivial"})


def rescue_floor(inp: InterpretInput, j: Judgement) -> Judgement:
    """One the actor helped in a turn of danger was rescued: at least "major" (the bands' own
    words: "a rescue"), and "defining" when the danger was mortal ("its life saved"), as the
    rules rate it (fallback: an observer the actor helped lives the turn as one helped). The
    1.5B model rated Wolf's turn freed from the poacher's trap "notable", and the judgement
    set's rescued ones (agents ag08, horror hr23) "notable" where a careful reader says core."""
    if inp.role != "observer" or j.significance == "defining" or _game_rated(inp):
        return j
    reading = read_turn(inp.turn, inp.aliases)
    if reading.acts_on.get(inp.perceiver) != "helped" or not reading.danger:
        return j
    band = "defining" if reading.lethal else "major"
    if SIGNIFICANCE[j.significance] >= SIGNIFICANCE[band]:
        return j
    return j.model_copy(update={"significance": band})


# The rules laid over a model's answer, in this order: the ceiling before the floors, the
# peril floor before the defining one (a life at stake rated "notable" is "major" by then),
# the gap before the memory that says what was meant.
_OVER_THE_ANSWER: tuple[Callable[[InterpretInput, Judgement], Judgement], ...] = (
    routine_ceiling, peril_floor, defining_floor, rescue_floor, clash_floor, went_wrong, with_intent)


def _game_rated(inp: InterpretInput) -> bool:
    """The game said how much the turn matters (`outcome.importance`): no floor moves it."""
    return inp.turn.outcome is not None and inp.turn.outcome.importance is not None


def _importance(inp: InterpretInput, judgement: Judgement) -> float:
    hint = inp.turn.outcome
    if hint is not None and hint.importance is not None:
        return hint.importance
    return SIGNIFICANCE[judgement.significance]


def trusts(rel: RelationView) -> bool:
    """Whether the perceiver trusts the other (a bond above 0.25, or a summary that speaks
    well of them): a harm from them is a betrayal."""
    return rel.bond > 0.25 or summary_tone(rel.traits, rel.bond) > 0.3


def about(other: OtherReading, memory: str, inp: InterpretInput, rules_words: Mapping[str, str]) -> str:
    """A memory about `other`: the model's sentence when it names them, does not tell their
    part the other way round (`told_otherwise`) and is true to the turn (`falls_short`: it
    leaves out no danger or mishap, and overstates, invents or misdirects nothing), else the
    rules' sentence about them
    (`rules_words`, when it names them). A memory is filed about who did something in the turn
    and recalled by them; in the recorded eval answers the 1.5B model's one sentence at times
    left that one out, or gave their deed to someone else: Bear's memory of freeing Wolf, filed
    about Wolf, was "I burst out of the undergrowth and knocked the poacher down"."""
    theirs = rules_words.get(other.id)
    if theirs is None or not mentions(theirs, other.id, inp.aliases):
        return memory
    if (mentions(memory, other.id, inp.aliases) and not told_otherwise(memory, other, inp, theirs)
            and not falls_short(memory, inp, theirs)):
        return memory
    return theirs


def interpretation_from(inp: InterpretInput, judgement: Judgement, rules: Interpretation, *,
                        reading: Reading | None = None,
                        over: tuple[Callable[[InterpretInput, Judgement], Judgement], ...] = _OVER_THE_ANSWER,
                        ) -> Interpretation:
    """The rules' filing of the turn (`rules`, fallback.interpret: which memories, of what
    kind, about whom, how good or bad, with which traits) with the model's rating and words
    laid over it: each memory's importance moves by as much as the model's rating of the turn
    differs from the rules' (not at all where the rules' number is in the model's band), and
    its sentence and feeling word are the model's (a memory about
    someone in the rules' words where the model's sentence leaves them out or tells their part
    the other way round: `about`). One filing for both modes: before, the model path filed the
    turn again by rules of its own, which had to be kept alike with the fallback's by hand.
    The feelings move as the rules move them (`filing.feelings`), at the model's rating, on
    `reading` (the rules' reading of the turn unless a model read it in full: full_reading.py),
    and the rules `over` are laid over the answer (all of them for a brief answer)."""
    j = settled(inp, judgement)
    for rule in over:
        j = rule(inp, j)
    sig = _importance(inp, j)
    # A band is all a model's rating says: where the rules' finer number falls in the band
    # the model chose, it stands (the poacher's trap, 0.65 by the rules, "notable" by the
    # model, is not moved down to 0.55 and below what a decision record needs).
    felt = rules.significance if significance_band(rules.significance) == j.significance else sig
    drafts: list[MemoryDraft] = []
    if j.significance != "trivial":
        rated = felt - rules.significance
        for draft in rules.memories:
            if draft.subject is not None:
                content = about(j.reading_of(draft.subject), j.memory, inp, {draft.subject: draft.content})
            else:
                content = draft.content if falls_short(j.memory, inp, draft.content) else j.memory
            importance = draft.importance + rated
            # Only "trivial" is "nothing to remember" (the prompt's words): rated lower than the
            # rules rate it, a memory the rules keep is kept, at the edge of keeping (so it fades
            # the sooner). Fox yipping outside the den all night, "minor" by the model (a small
            # annoyance), moved Bear's first memory of Fox from 0.4 to 0.15, and none was formed.
            edge = _edge(draft)
            if draft.importance >= edge:
                importance = max(importance, edge)
            drafts.append(draft.model_copy(update={
                "content": content, "emotional_impact": j.emotion,
                "importance": round(max(0.0, min(1.0, importance)), 3)}))
    notes = [ContextNote(about=d.subject, text=d.content) for d in drafts if d.subject is not None]
    # The feelings move as the rules move them, as far as the turn mattered by the model's rating.
    feelings = fl.feelings(inp, reading or read_turn(inp.turn, inp.aliases), felt)
    now = sentence(f"{j.memory.rstrip('.!?')}. I feel {j.emotion}.", limit=700)
    # The reading says what the world does, as the rules' does (`judgement_of_rules`): a turn
    # of which no memory would be kept was read as not worth remembering, whatever its band.
    if not _kept(drafts):
        j = j.model_copy(update={"significance": "trivial"})
    return Interpretation(gap=j.gap, significance=sig, harm=j.harm, danger=j.danger,
                          immediate_context=now, relationship_contexts=notes, memories=drafts,
                          feelings=feelings, judgement=j)


def _edge(draft: MemoryDraft) -> float:
    """The importance a draft of its kind needs to be kept (the default thresholds: the world's
    own, and its lenses, are applied when it is remembered)."""
    return FORMATION_THRESHOLDS.get(draft.kind, 0.0)


def _kept(drafts: list[MemoryDraft]) -> bool:
    """Whether any of a turn's drafts would be kept: else the turn was not worth remembering."""
    return any(d.importance >= _edge(d) for d in drafts)


def _short(text: str, words: int = 40, limit: int = 290) -> str:
    cut = " ".join(text.split()[:words])
    return cut if len(cut) <= limit else cut[:limit].rsplit(" ", 1)[0] + "…"


def judgement_of_rules(inp: InterpretInput, interpretation: Interpretation) -> Judgement:
    """The fallback's interpretation put as a judgement: what it took each character to have
    done (from the memory it drafted about them, else the rule reader's roles), how its
    feelings moved, and how much the turn mattered (trivial when no draft would be kept)."""
    reading = read_turn(inp.turn, inp.aliases)
    kinds = {d.subject: d.kind for d in interpretation.memories if d.subject is not None}
    shifts = {f.toward: f.sentiment_shift for f in interpretation.feelings}
    others = []
    for other in inp.allowed_subjects:
        kind = kinds.get(other)
        did: Deed | None = _DEED_OF_KIND.get(kind) if kind is not None else None
        if did is None:
            did = _DEED_OF_ROLE.get(reading.roles.get(other, "present"), "none")
        if did == "none" and other == inp.turn.actor:  # the actor's deeds, as an observer saw them
            acts = set(reading.acts_on.values())
            did = "harmed" if "hostile" in acts else "helped" if "helped" in acts else "none"
        if did == "harmed" and interpretation.gap is Gap.BLOCKED and other != inp.turn.actor:
            did = "blocked"
        shift = shifts.get(other, 0.0)
        feeling: Valence = "positive" if shift >= 0.05 else "negative" if shift <= -0.05 else "neutral"
        if did == "none" and feeling == "positive":
            did = "kind"
        others.append(OtherReading(id=other, did=did, feeling=feeling))
    kept = _kept(interpretation.memories)
    significance = significance_band(interpretation.significance) if kept else "trivial"
    main = max(interpretation.memories, key=lambda d: d.importance, default=None)
    return Judgement(memory=_short(main.content if main else interpretation.immediate_context),
                     emotion=main.emotional_impact if main else "calm", gap=interpretation.gap,
                     others=others, significance=significance, harm=interpretation.harm,
                     danger=interpretation.danger)


def turn_reading(perceiver: str, j: Judgement, decided_by: Literal["model", "fallback"]) -> TurnReading:
    """A judgement as a turn's result reports it to the game."""
    return TurnReading(
        character=perceiver, gap=j.gap.value, significance=j.significance,
        helped=[o.id for o in j.others if o.did == "helped"],
        harmed=[o.id for o in j.others if o.did in HINDRANCES],
        betrayed_by=[o.id for o in j.others if o.did == "betrayed"],
        feelings={o.id: o.feeling for o in j.others}, harm=j.harm, danger=j.danger, decided_by=decided_by)
