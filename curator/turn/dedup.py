"""Is a new memory a repeat of one its owner already holds? The evolution system: a duplicate event
reinforces the memory it repeats instead of forming another.

A draft repeats a recent memory of the same thread (owner and subject) when it is

- the same kind told in nearly the same words: the Jaccard of their content words reaches the
  world's `duplicate_similarity`; or any kind told in the same words (`VERBATIM`): a model
  that tells two turns alike may still file them differently, but the memory is one (unless
  one was felt as plainly good and the other as plainly painful);
- the same event retold under another heading: almost every content word of the shorter is
  in the longer, and both are felt about the same way. A first meeting ("I met Beaver for the
  first time. Beaver slaps his tail …") is filed as an encounter and the same splash twenty
  minutes later ("Beaver slaps his tail … again") as a relationship event; the event is one;
- the same thing happening again, however it was told: the same kind of memory (or a first
  meeting's encounter and the event of its repeat, not felt the opposite way) of two turns whose intents and
  game texts both share the world's `duplicate_similarity` of their content
  words ("Go to the berry bushes by the hollow": "Wolf is lying beside the berry bushes and
  growls low at you"; "Go back to the berry bushes by the hollow": "Wolf is still lying beside
  the berry bushes and growls low at you"). A model words each memory of its own, and its
  second telling of a repeat often keeps other details than the first. Both texts: fishing at
  the river bend and drinking there, each time with Wolf growling, are two memories;
- the same attempt failing again: two of the owner's own failures whose intended actions act
  on the same thing ("wade onto the rocks …", "try the slippery rocks …"). Each telling of a
  fall differs in its words, but what was attempted, and that it went wrong, is the pattern
  the character remembers.

The rules read the drafts, the memories and the game's texts of their turns, never who worded
them, so a model's drafts and the fallback's are deduplicated alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime

from curator.domain.fading import REINFORCE_REFRESH, refresh
from curator.domain.lexicon import DETERMINERS, tokens, word_set
from curator.domain.models import Memory, MemoryKind
from curator.turn.decisions import MemoryDraft

VERBATIM = 0.9  # content words shared: the same telling, whatever kind or feeling it was filed under
OPPOSITE = 0.3  # the same words, one felt at least this good and the other this painful: two memories
RETOLD_SHARE = 0.9  # of the shorter memory's words, found in the longer: the same event retold
RETOLD_MIN_WORDS = 6  # a shorter memory than this says too little to be called the same event
RETOLD_VALENCE = 0.5  # told the same, but felt this differently: not the same memory
_FAILURES = frozenset({MemoryKind.FAILURE, MemoryKind.LESSON_LEARNED})
# Words that end a noun phrase: prepositions and conjunctions after the object.
_PHRASE_ENDS = frozenset({"and", "or", "but", "to", "at", "in", "on", "onto", "into", "of", "for",
                          "with", "from", "by", "under", "over", "across", "through", "toward",
                          "towards", "near", "beside", "below", "above", "behind", "past", "again"})


def find_repeat(recent: Sequence[Memory], draft: MemoryDraft, *, similarity: float,
                action: str | None = None,
                action_of: Callable[[Memory], str | None] | None = None,
                happened: tuple[str, str] | None = None,
                happened_of: Callable[[Memory], tuple[str, str] | None] | None = None) -> Memory | None:
    """The recent memory (newest first) that `draft` repeats, or None. `action` is what the
    draft's turn meant to do and `action_of` what an earlier memory's turn meant to do: given
    both, a failure of the owner's own is matched to an earlier failure of the same attempt.
    `happened` is the intent and the reality of the draft's turn and `happened_of` those of an
    earlier memory's: given both, the same kind of memory of the same happening is a repeat."""
    words = word_set(draft.content)  # read once per text: compared on every turn
    texts = (word_set(happened[0]), word_set(happened[1])) if happened and happened_of else None
    attempted = attempt_objects(action) if action and draft.subject is None else set()
    for memory in reversed(recent):
        theirs = word_set(memory.content)
        overlap = _jaccard(words, theirs)
        if memory.kind is draft.kind and overlap >= similarity:
            return memory
        if overlap >= VERBATIM and not _opposite(memory.valence, draft.valence):
            return memory
        if _retold(words, theirs) and abs(memory.valence - draft.valence) <= RETOLD_VALENCE:
            return memory
        if texts and happened_of is not None and _same_kind_of_event(memory, draft):
            before = happened_of(memory)
            if before and all(_jaccard(now, word_set(then)) >= similarity
                              for now, then in zip(texts, before, strict=True)):
                return memory
        if (attempted and action_of is not None and draft.kind in _FAILURES
                and memory.kind in _FAILURES and memory.subject is None):
            earlier = action_of(memory)
            if earlier and attempted & attempt_objects(earlier):
                return memory
    return None


# A first meeting is filed as an encounter, the same happening again as an ordinary event: the
# kind is what the world made of it then, not what happened.
_FIRST_AND_AGAIN = frozenset({MemoryKind.ENCOUNTER, MemoryKind.RELATIONSHIP_EVENT})


def _same_kind_of_event(memory: Memory, draft: MemoryDraft) -> bool:
    """Whether `draft` can repeat `memory` by kind: the same kind, or a first meeting and the
    same again (Beaver's tail-slap on the water, at Bear's first visit to the pond and twenty
    minutes later), felt alike."""
    if memory.kind is draft.kind:
        return True
    return {memory.kind, draft.kind} == _FIRST_AND_AGAIN and not _opposite(memory.valence, draft.valence)


def _opposite(a: float, b: float) -> bool:
    """Felt the opposite way: one plainly good, the other plainly painful."""
    return a * b < 0 and min(abs(a), abs(b)) >= OPPOSITE


def reinforce(memory: Memory, draft: MemoryDraft, *, turn_id: str, at: datetime, importance: float) -> None:
    """Fold a repeat into the memory it repeats: refreshed, as important as the more important
    of the two, holding both turns. A lesson is what a repeated failure turns into, so a lesson
    that repeats a failure makes it one (its kind and feeling). The words stay the first
    telling's: what was logged about the memory (evolution's reasons) still quotes it."""
    refresh(memory, at, REINFORCE_REFRESH)
    memory.strength_at = at
    memory.importance = max(memory.importance, importance)
    if turn_id not in memory.source_turns:
        memory.source_turns.append(turn_id)
    if draft.kind is MemoryKind.LESSON_LEARNED and memory.kind is MemoryKind.FAILURE:
        memory.kind, memory.emotional_impact = draft.kind, draft.emotional_impact
        memory.valence = draft.valence


def attempt_objects(action: str) -> set[str]:
    """What an intended action acts on: the last word of each noun phrase ("Wade onto the rocks
    and swipe for a trout" → rock, trout; "Try the slippery rocks at the falls" → rock, fall),
    in the singular so that "the rock" and "the rocks" are one thing."""
    words = tokens(action)
    found: set[str] = set()
    for i, word in enumerate(words):
        if word not in DETERMINERS:
            continue
        phrase = []
        for following in words[i + 1:i + 4]:
            if following in _PHRASE_ENDS or following in DETERMINERS:
                break
            phrase.append(following)
        if phrase and len(phrase[-1]) > 2:
            found.add(_singular(phrase[-1]))
    return found


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _jaccard(a: AbstractSet[str], b: AbstractSet[str]) -> float:
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def _retold(a: AbstractSet[str], b: AbstractSet[str]) -> bool:
    shorter = min(len(a), len(b))
    return shorter >= RETOLD_MIN_WORDS and len(a & b) / shorter >= RETOLD_SHARE
