"""Phrasing: an intended action put as a verb phrase, and a memory's text made one clean sentence.

The fallback says what a character means in its own voice, in the present as the game tells
the turn ("I mean to pawn my gold watch", "When I try to climb the oak"), whatever form the
game gave the intent in: "I'll fish", "Fish at the bend", "pawning my watch", "the overnight
log". `sentence` trims, caps and ends
the text a memory keeps.
"""

from __future__ import annotations

import re

from curator.domain.lexicon import DETERMINERS

# An intended action that is itself an attempt ("Try the slippery rocks", "Attempt to climb").
_ATTEMPT = re.compile(r"(?:try|attempt)(?:\s+(to|and)\b)?\s+", re.IGNORECASE)


def tried(action: str) -> str:
    """'try to …' for an intended action, without trying twice: 'climb the oak' → 'try to climb
    the oak', 'try to climb' → 'try to climb', 'attempt the slippery rocks' → 'try the slippery
    rocks'. In the present, as the game tells what happened ("When I try to roar, Wolf bursts
    out"): a memory keeps one tense."""
    match = _ATTEMPT.match(action)
    if match is None:
        return f"try to {action}"
    rest = action[match.end():]
    return f"try to {rest}" if match.group(1) else f"try {rest}"


_FIRST_PERSON_START = re.compile(r"^(?:i(?:'ll| will| am going to|'m going to| want to| mean to)?|let me)\s+",
                                 re.IGNORECASE)


def intended(action: str) -> str:
    """An intent's action as a verb phrase to follow "I mean to": "I collect my strongbox" →
    "collect my strongbox", "the overnight log" → "see to the overnight log"."""
    action = _FIRST_PERSON_START.sub("", action.strip().rstrip(". "))
    first, _, rest = action.partition(" ")
    if first.lower() in DETERMINERS:
        action = f"see to {action}"
    elif _gerund(first.lower()):
        action = f"{_base_of_gerund(first.lower())} {rest}".rstrip()
    return lower_first(action)


# Nouns in -ing an intent may begin with; any other first word in -ing is a verb's gerund.
_ING_NOUNS = frozenset({"morning", "evening", "nothing", "something", "anything", "everything",
                        "ceiling", "during", "wedding", "offering", "building", "feeling"})
_SILENT_E = re.compile(r"(?:^|[^aeiou])[aeiou][^aeiouwxy]$")  # mak(e), giv(e), rid(e), clos(e)


def _gerund(word: str) -> bool:
    """'pawning', 'covering': a verb's -ing form ('sing', 'bring', 'morning' are not)."""
    stem = word[:-3]
    return (word.endswith("ing") and len(stem) >= 2 and any(ch in "aeiou" for ch in stem)
            and word not in _ING_NOUNS)


def _base_of_gerund(word: str) -> str:
    """'pawning' → 'pawn', 'stopping' → 'stop', 'making' → 'make', 'covering' → 'cover'."""
    stem = word[:-3]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]  # stopp → stop, winn → win
    if len(stem) <= 4 and _SILENT_E.search(stem) and stem not in ("open", "visit", "enter"):
        return stem + "e"
    return stem


def lower_first(text: str) -> str:
    """'Head to the river' → 'head to the river' (not 'i' for 'I')."""
    if not text:
        return text
    first = text.split(" ", 1)[0]
    if first == "I" or first.startswith("I'") or (len(first) > 1 and first.isupper()):
        return text
    return text[:1].lower() + text[1:]


def sentence(text: str, limit: int = 590) -> str:
    """One clean sentence: trimmed, capitalised, ending with a full stop, never cut mid-word."""
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    text = text.rstrip(",;: ")
    if text and text[-1] not in ".!?…":
        text += "."
    return text[:1].upper() + text[1:]
