"""Deeds in a clause's words: what the rule reader (reading.py) takes someone to have done.

Each function reads one kind of deed from a clause's words by its structure (who does it, to
whom, with what object): a harm done by someone, a danger set on purpose, a lure, a gift, a
lie the next clause shows false, and which words can be deeds at all.
"""

from __future__ import annotations

import re

from curator.domain import lexicon as lx
from curator.domain.models import display_name
from curator.turn.perspective import Aliases, Clause


def lie(claim: Clause, then: Clause, lower: str) -> bool:
    """Someone tells the actor a thing, and the next clause, after a "but", shows the actor it is
    not so: "he tells you … that there is nothing. But … you can see three amber vials"."""
    if claim.agent is None or claim.by_actor or not lx.CLAIM_TO_YOU.search(claim.text.lower()):
        return False
    shown = then.text.lower()
    if not lx.SHOWN_OTHERWISE.search(shown):
        return False
    start = lower.find(claim.text.lower())
    between = lower[start + len(claim.text):lower.find(shown, start)] if start >= 0 else ""
    return shown.startswith("but") or "but" in lx.tokens(between)


# Who can stand before a verb of harm: someone, not something ("the tender willow shoots").
_SUBJECTS = frozenset({"he", "she", "it", "they", "who", "and", "then", "you", "i", "also"})


def harm_done(words: list[str], named: list[str]) -> bool:
    """A verb of harm done by someone: the word before it (past an adverb) is a character, a
    pronoun, a danger ("the hunter", "the rifle") or a verb it is coordinated with ("and")."""
    names = {part for c in named for part in lx.tokens(display_name(c))}
    for i, word in enumerate(words):
        if not lx.stem_hits([word], lx.AGENT_HARM):
            continue
        j = i - 1
        while j >= 0 and words[j].endswith("ly"):
            j -= 1
        before = words[j] if j >= 0 else ""
        if (before == "" or before in _SUBJECTS or before in names
                or before.removesuffix("'s") in names or lx.stem_hits([before], lx.DANGER)):
            return True
    return False


# Words that end a verb's object: what comes after them is where or how, not what.
_OBJECT_ENDS = frozenset({"and", "or", "but", "to", "at", "in", "on", "onto", "into", "of", "for", "with",
                          "from", "by", "under", "over", "across", "through", "toward", "towards", "near",
                          "beside", "below", "above", "behind", "past", "down", "up", "out", "off",
                          "back", "aside", "away", "while", "then"})


def arms(words: list[str]) -> bool:
    """The actor sets or makes a danger: a verb of placing or making whose object (the words up
    to a preposition) names one ("bury the steel jaws under leaf litter", "light a fire"), or
    poisoning, whatever is poisoned."""
    for i, word in enumerate(words):
        if word not in lx.ARM_WORDS:
            continue
        if word.startswith("poison"):
            return True
        thing = []
        for following in words[i + 1:i + 5]:
            if following in _OBJECT_ENDS:
                break
            thing.append(following)
        if lx.names_danger(thing, " ".join(thing)) or lx.stem_hits(thing, lx.HARM):
            return True
    return False


def lure(words: list[str], lower: str) -> bool:
    """Led somewhere, then mocked or deserted there: a trick, however helpful the verb."""
    return bool(lx.stem_hits(words, lx.GUIDE, lx.GUIDE_WORDS)) and (
        bool(lx.stem_hits(words, lx.MOCK)) or any(p in lower for p in lx.DESERT_PHRASES))


# Food or goods set down where someone is ("sets the pot on the sheriff's desk", "puts a cup
# into your hands").
_SET_BEFORE = re.compile(r"\b(?:a|an|the|some|his|her|its|their|one|half)\s+(?:[a-z']+\s+){0,2}?([a-z']+)\s+"
                         r"(?:on|onto|into|in)\s+(?:the\s+)?([a-z]+)(?:'s|\s+(?:hands?|palms?|fist|lap|desk|table|plate))\b")


def gives(lower: str, named: list[str], aliases: Aliases = ()) -> bool:
    """Food or goods moved toward you or someone named ("noses a trout toward you"), or set
    down where they are ("sets the pot on the sheriff's desk"): a gift, whatever the verb."""
    other_names = dict(aliases)
    names = {display_name(c).lower() for c in named} | {
        a.removeprefix("the ") for c in named for a in other_names.get(c, ())}
    for match in [*lx.PASSED_TOWARD.finditer(lower), *_SET_BEFORE.finditer(lower)]:
        # the thing and the words before it: "half a squashed chocolate bar" is food
        thing, target = lx.tokens(match.string[match.start():match.end(1)]), match.group(2)
        valued = lx.stem_hits(thing, lx.FOOD, lx.FOOD_WORDS) or lx.stem_hits(thing, lx.GOODS, lx.GOODS_WORDS)
        if valued and (target in ("you", "your") or target in names):
            return True
    return False


# After a verb of standing in the way, these say it was done somewhere, not to someone: "stops
# on the landing", "pushes through the crowd", "stops to take it in".
_INTRANSITIVE = frozenset({"on", "in", "into", "onto", "through", "across", "along", "for", "beside",
                           "by", "under", "near", "inside", "outside", "around", "short", "dead"})


def verbs(words: list[str]) -> list[str]:
    """The clause's words that can be its deeds: a word after a determiner is a thing ("her good
    shoulder", "your claims", "the guard"), and one followed by a preposition of place was done
    somewhere, not to someone ("stops on the landing")."""
    return [word for i, word in enumerate(words) if _verb_at(words, i)]


def _verb_at(words: list[str], i: int) -> bool:
    if i + 2 < len(words) and words[i + 2] == words[i] and words[i + 1] in ("to", "by"):
        return False  # "shoulder to shoulder", "side by side": a manner, not a shove
    if i + 1 == len(words) and words[i] in ("stop", "stops", "stopped"):
        return False  # "takes one slow step into the room and stops": stopping, not stopping anyone
    return not ((i and words[i - 1] in lx.DETERMINERS)
                or (i + 1 < len(words) and words[i + 1] in _INTRANSITIVE))


# What is given that is no gift: "gives you his name", "gives a nod", "gives the order".
_NOT_GIFTS = frozenset({"name", "names", "nod", "look", "glance", "shrug", "order", "orders", "sign",
                        "signal", "chase", "way"})
_PERSONS = frozenset({"you", "him", "her", "them", "me", "us"})


def helps(words: list[str]) -> bool:
    """A verb of helping that is one: not a name or a nod given ("gives you his name"), not
    one's own things carried ("carries his own valise"), not a person fetched ("sent down to
    fetch you for supper": summoned, not served)."""
    for i, word in enumerate(words):
        if not _verb_at(words, i) or not lx.stem_hits([word], lx.HELP, lx.HELP_WORDS):
            continue
        after = words[i + 1:i + 4]
        if word.startswith(("giv", "gave")) and any(a in _NOT_GIFTS for a in after):
            continue
        if word.startswith(("carr", "bring", "brought", "fetch")) and "own" in after[:2]:
            continue
        if word.startswith("fetch") and after[:1] and after[0] in _PERSONS and (
                len(after) < 2 or after[1] not in lx.DETERMINERS):
            continue
        return True
    return False
