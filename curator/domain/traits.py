"""Traits: what a deed shows of the one who did it, and the traits a text names.

A relationship counts the traits the other's deeds showed ("claimed my spot": territorial;
"pulled me out": protective); a summary's tone and a contradiction's two sides are read from
them. The words of deeds are stems, matched as `lexicon.stem_hits` matches them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from curator.domain.lexicon import stem_hits, tokens, unnegated

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


# A trait named in any of its forms ("loyalty", "aggression", "kindness"); "kind" and "mean"
# only as words of their own ("kindly", not "kindle"; "meanness", not "meant").
_TRAIT_WORDS = re.compile(
    r"^(?:(?P<protective>protect)|(?P<generous>generos)|(?P<helpful>helpful)"
    r"|(?P<kind>kind(?:ness|ly|er|est)?$)|(?P<loyal>loyal)|(?P<brave>brave)"
    r"|(?P<deceitful>decei|decept)|(?P<selfish>selfish)|(?P<territorial>territor)"
    r"|(?P<aggressive>aggress)|(?P<dangerous>danger)|(?P<mean>mean(?:ness|er|est)?$)|(?P<aloof>aloof))")


def named_traits(text: str) -> list[str]:
    """The traits a text names in their own forms ("loyalty", "territorial", "kindness")."""
    return [found.lastgroup for found in map(_TRAIT_WORDS.match, tokens(text)) if found and found.lastgroup]


_SHOW_WORDS = frozenset({"show", "shows", "showed", "shown", "showing"})


def _deed_words(text: str) -> list[str]:
    """`text`'s words said plainly ("he does not chase me away" shows no chasing), less a
    "show" that shows a trait ("he shows signs of aggression", "shows his loyalty"), which is
    no guiding deed ("showed me the ford")."""
    words = unnegated(tokens(text))[0]
    return [word for i, word in enumerate(words) if word not in _SHOW_WORDS or not any(
        after in ("sign", "signs") or _TRAIT_WORDS.match(after) for after in words[i + 1:i + 4])]


def trait_sides(text: str) -> set[int]:
    """The sides a text takes of someone, +1 and -1: the traits it names ("loyalty",
    "territorial", "kindness") or shows by a deed ("he lied to me", "saved me")."""
    return {trait_polarity(trait) for trait in (*named_traits(text), *traits_of(_deed_words(text)))} - {0}


def trait_polarity(trait: str) -> int:
    if trait in POSITIVE_TRAITS:
        return 1
    if trait in NEGATIVE_TRAITS:
        return -1
    return 0
