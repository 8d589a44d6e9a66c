"""Word lists the deterministic fallback reads a game master's text with.

Each list is a set of word stems; `stem_hits` matches a token that starts with a stem and
adds at most a short inflection ("block" → blocks, blocked, blocking). Short or ambiguous
words are listed in full in the `*_WORDS` sets and matched exactly.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


_STOPWORDS = frozenset({
    "the", "a", "an", "and", "or", "but", "to", "of", "in", "on", "at", "by", "for", "with", "from",
    "into", "as", "is", "it", "its", "was", "are", "be", "i", "me", "my", "you", "your", "he", "she",
    "his", "her", "him", "they", "them", "their", "this", "that", "then", "when", "while", "meant",
    "tried", "so", "up", "out", "off", "over", "all", "just", "not", "no", "too", "very", "again",
    "still", "one", "has", "have", "had", "did", "does", "do", "what", "who", "there", "here"})


def content_words(text: str) -> set[str]:
    """The words that carry an event: what dedup compares, so shared phrasing is not a repeat."""
    return {w for w in tokens(text) if len(w) > 2 and w not in _STOPWORDS}


@lru_cache(maxsize=8192)
def word_set(text: str) -> frozenset[str]:
    """`content_words`, read once per text: a memory's words are compared on every turn that
    touches its thread (dedup, links, repeated failures), and a text's words never change."""
    return frozenset(content_words(text))


@lru_cache(maxsize=256)
def _stem_pattern(stems: frozenset[str]) -> re.Pattern[str]:
    # One alternation per stem set: a word matches if it is a stem plus at most three letters.
    alternatives = "|".join(sorted((re.escape(s) for s in stems), key=len, reverse=True))
    return re.compile(rf"^(?:{alternatives})[a-z']{{0,3}}$")


def stem_hits(words: Iterable[str], stems: frozenset[str], exact: frozenset[str] = frozenset()) -> set[str]:
    """The stems (or exact words) that occur in `words`."""
    pattern = _stem_pattern(stems)
    found: set[str] = set()
    for word in words:
        if word in exact:
            found.add(word)
        elif pattern.match(word):
            found.update(stem for stem in stems if word.startswith(stem) and len(word) - len(stem) <= 3)
    return found


# Someone stood in the way, before the action could happen.
BLOCK = frozenset({"block", "claim", "guard", "refus", "forbid", "stop", "prevent",
                   "chase", "drive", "shove", "push", "threaten", "corner", "confront", "deny",
                   "growl", "snarl", "snap", "charg", "ambush", "attack", "lung", "pounc", "swat",
                   "mock", "jeer", "taunt", "sneer", "shoulder"})
BLOCK_WORDS = frozenset({"bares", "bared", "baring", "bars", "barred", "bit", "bite", "bites",
                         "biting", "hits", "hit", "strikes", "struck", "laugh", "laughs"})
# The action happened, then someone spoiled or took it.
THWART = frozenset({"steal", "snatch", "grab", "ruin", "spoil", "scare", "swip", "raid", "tramp"})
THWART_WORDS = frozenset({"stole", "stolen", "took"})
# Turning on someone who trusted you.
# "lie"/"lies" are left out: "Wolf lies beside the bushes" is no betrayal.
BETRAY = frozenset({"betray", "trick", "deceiv", "cheat", "fool", "mislead", "abandon", "lur"})
BETRAY_WORDS = frozenset({"lied", "misled", "duped"})
BETRAY_PHRASES = ("lies to you", "lying to you", "a lie", "lied to")
# Someone made it go better.
HELP = frozenset({"help", "save", "rescu", "protect", "defend", "warn", "share", "guid", "show",
                  "lead", "offer", "assist", "comfort", "shelter", "fetch", "point", "nudg",
                  "tend", "feed"})
HELP_WORDS = frozenset({"gave", "gives", "give", "giving", "led", "brings", "brought", "carry",
                        "carries"})
# Gifts and favours said without a helping verb ("drops a fish at your feet").
HELP_PHRASES = ("at your feet", "at your den", "drops it at", "drop it at", "leaves it for",
                "steps aside to let you", "lets you")
# Acts on the actor that protect it, whatever else the verbs say ("guards you" vs "guards the bushes").
RESCUE_PHRASES = ("frees you", "pulls you", "drags you", "saves you", "stands between", "guards you",
                  "shields you", "protects you", "defends you", "watches over you", "covers you")
# Acting against a third party on the actor's behalf: the agent helps, whatever the verbs say.
PROTECT_PHRASES = ("fights off", "fought off", "drives off", "drove off", "drives the", "chases off",
                   "chases away", "scares off", "scares away", "fends off", "stands between",
                   "frees you", "pulls you", "drags you", "leaps between", "saves you",
                   "tackles the", "lunges at the", "attacks the", "charges the", "bites the")
IGNORE = frozenset({"ignor", "pass", "nod", "glanc", "watch", "sniff"})
# Bodily harm, and danger to life.
# States of harm: they say someone got hurt, never who did it.
HARM = frozenset({"wound", "injur", "hurt", "bleed", "maul", "clamp", "crush", "gash", "sprain",
                  "burn", "snare", "trap"})
# Harm done by someone ("the poacher shoots"); "my feet shoot out" is no wound.
AGENT_HARM = frozenset({"shoot", "shot", "stab", "fires", "maul", "wound", "injur"})
HARM_WORDS = frozenset({"blood", "bloody", "bitten", "limp", "limping"})
DANGER = frozenset({"poacher", "hunter", "rifle", "gun", "trap", "snare", "fire", "flood",
                    "storm", "avalanche", "predator", "danger", "threat", "steel", "bullet",
                    "wildfire", "rockslide", "collaps", "drown"})
LETHAL = frozenset({"kill", "death", "dead", "dying", "die", "lethal", "bullet", "gunshot",
                    "shot", "rifle", "steel"})
LETHAL_PHRASES = ("nearly die", "almost die", "near death", "your life", "for your life",
                  "could have died", "bleeding out", "steel trap", "jaws of the trap")
FAIL = frozenset({"fail", "miss", "slip", "fall", "fell", "lose", "lost", "stumbl", "tumbl",
                  "escap", "empty", "vain", "useless", "sink", "untouch", "slid", "slide"})
FAIL_WORDS = frozenset({"can't", "cannot", "unable", "fled", "wriggles", "slips"})
FAIL_PHRASES = ("catch nothing", "caught nothing", "nothing to eat", "nothing in your",
                "without a single", "with no ", "empty belly", "out from under", "give up", "gives up")
SUCCESS = frozenset({"catch", "caught", "find", "found", "reach", "manag", "succeed", "enjoy",
                     "feast", "finish", "gather", "collect", "eat", "ate", "drink", "haul",
                     "rest", "slept", "sleep", "arriv", "win", "won", "grab", "pin"})
TRIUMPH_WORDS = frozenset({"huge", "biggest", "finally", "enormous", "giant", "record",
                           "proud", "triumph", "magnificent", "best", "perfect"})
SURPRISE = frozenset({"sudden", "unexpect", "surpris", "astonish", "startl", "instead",
                      "mysterious", "strange"})
DISCOVERY = frozenset({"discover", "hidden", "secret", "uncover", "new", "found", "find"})
NOVELTY_PHRASES = ("first time", "never before", "never seen", "for the first", "a stranger")
INTENSE = frozenset({"furious", "terrif", "scream", "roar", "howl", "desperat", "panic",
                     "agony", "rage", "fierce", "savage", "violent", "frantic", "wild"})
QUIET_PHRASES = ("nothing happens", "nothing else", "nothing much", "uneventful", "all is quiet",
                 "quiet", "peaceful", "undisturbed", "nothing disturbs", "calm", "that is all",
                 "pays no attention")

# What a deed says about the one who did it. Order matters: the first match names the trait.
TRAIT_OF_DEED: tuple[tuple[frozenset[str], str], ...] = (
    (frozenset({"betray", "trick", "deceiv", "lied", "cheat", "fool", "mislead", "misled",
                "duped", "lur"}), "deceitful"),
    (frozenset({"steal", "stole", "stolen", "snatch", "swip", "raid", "took", "take", "grab",
                "hoard"}), "selfish"),
    (frozenset({"claim", "block", "guard", "bars", "barred", "chase", "drive", "refus", "deny", "corner"}),
     "territorial"),
    (frozenset({"growl", "snarl", "snap", "bare", "threaten", "attack", "bite", "bit", "lung",
                "pounc", "charg", "swat", "shove", "push", "confront"}), "aggressive"),
    (frozenset({"shoot", "shot", "trap", "snare", "hunt", "gun", "rifle"}), "dangerous"),
    (frozenset({"mock", "laugh", "jeer", "taunt", "sneer"}), "mean"),
    (frozenset({"ignor"}), "aloof"),
    (frozenset({"save", "rescu", "protect", "defend", "fought", "fights", "free"}), "protective"),
    (frozenset({"share", "gave", "give", "gives", "offer", "feed", "brings", "brought"}),
     "generous"),
    (frozenset({"warn", "guid", "show", "lead", "led", "point", "help", "assist", "fetch"}),
     "helpful"),
    (frozenset({"comfort", "tend", "nudg", "shelter"}), "kind"),
)
POSITIVE_TRAITS = frozenset({"protective", "generous", "helpful", "kind", "loyal", "brave"})
NEGATIVE_TRAITS = frozenset({"deceitful", "selfish", "territorial", "aggressive", "dangerous",
                             "mean", "aloof"})


def traits_of(words: Iterable[str]) -> list[str]:
    """Traits a clause shows about the character it names, most telling first."""
    word_list = list(words)
    found: list[str] = []
    for stems, trait in TRAIT_OF_DEED:
        if trait not in found and stem_hits(word_list, stems):
            found.append(trait)
    return found


def trait_polarity(trait: str) -> int:
    if trait in POSITIVE_TRAITS:
        return 1
    if trait in NEGATIVE_TRAITS:
        return -1
    return 0



# Appraisal's practical lens (appraisal.py): what a character lives on and by. Short words
# are matched whole ("den" would take "denied", "map" "maple").
FOOD = frozenset({"fish", "trout", "salmon", "honey", "berr", "food", "meal", "prey", "meat",
                  "acorn", "fruit", "apple", "grain", "bread", "supper", "dinner", "breakfast",
                  "feast", "carcass", "rabbit", "deer", "mushroom", "stash", "cache"})
FOOD_WORDS = frozenset({"nut", "nuts", "egg", "eggs", "root", "roots", "catch", "seeds"})
# Not "hollow": more often a dip in the ground than a home.
SHELTER = frozenset({"shelter", "cave", "burrow", "home", "camp", "roof", "lair", "territor", "house"})
SHELTER_WORDS = frozenset({"den", "dens", "nest", "nests", "hut", "bed"})
GOODS = frozenset({"tool", "coin", "gold", "money", "weapon", "sword", "supplies", "boat", "rope",
                   "spot", "bridge", "water"})
GOODS_WORDS = frozenset({"map", "maps", "key", "keys", "bow", "path"})
# A wrong done to someone's goods (the moral lens): narrower than THWART, which also holds
# "grab" and "scare".
THEFT = frozenset({"steal", "stole", "snatch", "swip", "pilfer", "loot", "thie"})
THEFT_WORDS = frozenset({"stolen", "rob", "robs", "robbed", "robbing", "robber"})
THEFT_PHRASES = ("run off with", "runs off with", "ran off with", "made off with", "makes off with")
