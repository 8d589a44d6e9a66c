"""Narration: how the fallback phrases memories in a character's own voice.

A game master writes to the actor in the second person ("Wolf blocks your path"). The
actor remembers it in the first person ("Wolf blocks my path"); an observer remembers the
same words with the actor named ("Wolf blocks Bear's path"). Long-term summaries are
summaries.py's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from curator.domain.models import display_name
from curator.turn.perspective import QUOTED, objects_as
from curator.turn.titles import drop_article as _drop_article
from curator.turn.titles import drop_title as _drop_title
from curator.turn.titles import last_word as _last_word
from curator.turn.verbs import AUXILIARIES as _AUXILIARIES
from curator.turn.verbs import NOT_VERBS as _NOT_VERBS
from curator.turn.verbs import NUMBERS as _NUMBERS
from curator.turn.verbs import PLACE_WORDS as _PLACE_WORDS
from curator.turn.verbs import first_person as _first_person
from curator.turn.verbs import third_person as _third_person
from curator.turn.verbs import unthird as _unthird

# Words after which a bare "you" is the subject of a new clause ("as you reach" → "as I reach").
_CLAUSE_OPENERS = frozenset({"and", "but", "as", "when", "while", "so", "then", "until", "because",
                             "before", "after", "if", "though", "although", "once", "since", "where",
                             "that", "whilst", "or", "yet"})
# After these, a bare "you" is an object ("blocks you", "at you", "bit you").
_OBJECT_AFTER = frozenset({"at", "to", "with", "for", "from", "past", "behind", "toward", "towards",
                           "around", "near", "of", "about", "on", "upon", "into", "over", "under",
                           "beside", "by", "against", "onto", "than", "like",
                           "between", "let", "bit", "hit", "caught", "left", "told", "gave", "saw",
                           "made", "took", "brought", "found", "kept", "held", "led", "met", "sent",
                           "put", "set", "shot", "struck", "threw", "drove", "give", "tell", "show",
                           "help", "see", "watch", "leave", "make", "bring", "send", "follow",
                           "beat", "cut", "knocks", "ignore", "warn", "save", "join", "keep"})
_WORD = re.compile(r"[A-Za-z']+|[^A-Za-z']+")
_CLAUSE_ENDS = frozenset(".;!?:,")  # punctuation after which a clause starts afresh


def _cap_like(word: str, template: str) -> str:
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


@lru_cache(maxsize=1024)
def retell(text: str, *, perceiver: str, actor: str) -> str:
    """Rewrite a game master's second-person text from the perceiver's point of view.

    If the perceiver is the actor, "you" becomes "I/me" and "your" "my". Otherwise "you"
    becomes the actor's name. Either way the perceiver's own name becomes "I/me/my".
    Quoted speech is kept word for word.

    Cached: one interpretation retells the same reality or clause for its self memory, its
    relationship memories, the immediate context and the relationship notes (3-4 calls per
    perceiver, half of them repeats), and the answer depends on the three strings alone.
    """
    if perceiver == actor:  # "Corliss hooks him under the arms", told about Jody, in Jody's memory
        text = objects_as(text, actor, "me")
    if '"' in text or "\u201c" in text or "'" in text:
        return "".join(part if QUOTED.fullmatch(part) else _retell_words(part, perceiver, actor)
                       for part in QUOTED.split(text))
    return _retell_words(text, perceiver, actor)


def _retell_words(text: str, perceiver: str, actor: str) -> str:
    is_actor = perceiver == actor
    own_name = display_name(perceiver).lower()
    lowered = text.lower()
    # Only "you…" words and (for an observer) its own name are rewritten: text with neither
    # comes back as it is, and the words around a rewrite are read only where there is one.
    if "you" not in lowered and own_name not in lowered:
        return text
    actor_name = display_name(actor)
    parts = _WORD.findall(text)
    out: list[str] = []
    prev_word = ""  # last word seen, lowercased; "" at the start of a clause
    for i, part in enumerate(parts):
        if not part[:1].isalpha():
            out.append(part)
            if not _CLAUSE_ENDS.isdisjoint(part):
                prev_word = ""
            continue
        lower = part.lower()
        if not lower.startswith("you") and not lower.startswith(own_name):
            out.append(part)
            prev_word = lower
            continue
        # A bare "you" is an object after a preposition or a verb that looks like one
        # ("blocks you", "warned you"); anywhere else it starts a clause ("as you reach").
        after = _next_word(parts, i)
        following = after[1].lower() if after else ""
        # "limps after you." ends the clause: an object even after a word that opens clauses.
        object_slot = prev_word != "" and (prev_word not in _CLAUSE_OPENERS or following == ""
                                           or _ends_clause(parts, i)) and (
            prev_word in _OBJECT_AFTER
            or (_verb_like(prev_word) and len(prev_word) > 3)
            or following in _NOT_VERBS or following in _NUMBERS or following in _PLACE_WORDS
            or following == "" or _ends_clause(parts, i)) and following not in _AUXILIARIES
        subject_slot = prev_word == "" or not object_slot or _aside_then_verb(parts, i, prev_word)
        if lower in (own_name, own_name + "'s") and _drop_title(out, _CLAUSE_OPENERS):
            # "Lt. Decker has the deck" → "I have the deck", "walking with Lord Derrow" → "with
            # me": the perceiver named with its title is "I" all the same, subject or object as
            # read again with the word before the title ("you tell Captain Ilse that" → "me",
            # "He is Lord Derrow" → "me") and the verb after it ("At eight bells Mistress Vane
            # turns" → "I turn").
            prev_word = _last_word(out)
            subject_slot = (prev_word == "" or prev_word in _CLAUSE_OPENERS or _verb_next(parts, i)
                            or not (prev_word in _OBJECT_AFTER or prev_word in _TAKES_OBJECT
                                    or (_verb_like(prev_word) and len(prev_word) > 3)))
        elif (prev_word in _ARTICLES or prev_word in _EPITHETS) and lower in (own_name, own_name + "'s"):
            # "the smith accepts" → "I accept", "young Jody lets out" → "I let out": the
            # perceiver named by its role, article (or epithet) and all.
            _drop_article(out)
            prev_word = _last_word(out)
            subject_slot = prev_word == "" or prev_word in _CLAUSE_OPENERS
        replacement: str | None = None
        if lower in ("you're", "you've", "you'd", "you'll"):
            if is_actor:
                replacement = {"you're": "I'm", "you've": "I've", "you'd": "I'd", "you'll": "I'll"}[lower]
            else:
                replacement = actor_name + {"you're": " is", "you've": " has", "you'd": " would",
                                            "you'll": " will"}[lower]
        elif lower == "yourself":
            replacement = "myself" if is_actor else "themselves"
        elif lower in ("your", "yours"):
            replacement = ("my" if lower == "your" else "mine") if is_actor else actor_name + "'s"
        elif lower == "you" and prev_word == "of" and _quantifier(out):
            # "neither of you" / "both of you": the actor and the others with it.
            replacement = "us" if is_actor else "them"
        elif lower == "you":
            if is_actor and subject_slot and _and_name(parts, i):
                # "You and Kell haul" → "Kell and I haul".
                parts[i + 4], replacement = "I", parts[i + 4]
            elif is_actor and _and_name(parts, i):
                parts[i + 4], replacement = "me", parts[i + 4]  # "leaves you and Jody" → "Jody and me"
            elif is_actor:
                replacement = "I" if subject_slot else "me"
                nxt = _verb_of(parts, i) if subject_slot else None
                if nxt is not None and nxt[1].lower() in _BE_1P:  # "you are going" → "I am going"
                    parts[nxt[0]] = _cap_like(_BE_1P[nxt[1].lower()], nxt[1])
                elif nxt is not None:  # "you shoulders" (the actor's name made "you"): "I shoulder"
                    parts[nxt[0]] = _unthird(nxt[1])
                    _agree_coordinated(parts, nxt[0], _unthird)
            else:
                replacement = actor_name
                if subject_slot:
                    nxt = _verb_of(parts, i)
                    if nxt is not None:
                        j, verb = nxt
                        parts[j] = _third_person(verb)
                        _agree_coordinated(parts, j, _third_person)
        elif lower == own_name and _and_name(parts, i) and _pair_is_subject(parts, i, prev_word):
            parts[i + 4], replacement = "I", parts[i + 4]  # "Delia and Jody let go" → "Jody and I"
        elif lower == own_name and _and_name(parts, i) and not subject_slot:
            parts[i + 4], replacement = "me", parts[i + 4]  # "leaves Delia and Jody" → "Jody and me"
        elif lower == own_name:  # told in the third person, the perceiver's name is "I" to it
            replacement = "I" if subject_slot else "me"
            nxt = _verb_of(parts, i) if subject_slot else None
            if nxt is not None:
                j, verb = nxt
                parts[j] = _first_person(verb)
                _agree_coordinated(parts, j, _first_person)
                _own_possessives(parts, i)  # from the name: an aside ("warming her hands") too
            if subject_slot:
                _own_relative(parts, i)  # "Wren, who has watched" → "I, who have watched"
        elif lower == own_name + "'s":
            replacement = "my"
        if replacement is not None:
            # "Your path" → "My path", but "Fox shows me", not "Fox shows Me": a capital only
            # where a sentence starts; "I" and names keep their own.
            starts = _sentence_starts(out)
            out.append(replacement if not replacement[:1].islower()
                       else _cap_like(replacement, "X" if starts else "x"))
        else:
            out.append(part)
        prev_word = lower
    return "".join(out)


# Before a name, these make it an object: "He is Lord Derrow", "raised him Sir Pip".
_TAKES_OBJECT = frozenset({"is", "was", "him", "her", "them"})


def _verb_next(parts: list[str], i: int) -> bool:
    """True when a verb follows the word at i ("Vane turns", "Vane has", "Vane will")."""
    after = _next_word(parts, i)
    if after is None or (i + 1 < len(parts) and "," in parts[i + 1]):
        return False
    word = after[1].lower()
    return word in _AUXILIARIES or word in _BARE_VERBS or (
        word not in _NOT_VERBS and word.endswith(("s", "ed")) and not word.endswith(("ss", "us", "'s")))


def _verb_like(word: str) -> bool:
    """A word that may be a verb taking "you" for its object ("blocks you", "warned you"); a
    noun in -ss, -us or -is is none ("Under the reactor loss you enter": "you" is the subject)."""
    return word.endswith(("s", "ed")) and not word.endswith(("ss", "us", "is"))


_ARTICLES = frozenset({"the", "a", "an", "this", "that", "our"})
_EPITHETS = frozenset({"young", "old", "little", "poor", "brave", "dear"})
_QUANTIFIERS = frozenset({"neither", "either", "both", "all", "each", "none", "one", "two", "three",
                          "some", "any", "most", "few", "many", "several"})


def _own_relative(parts: list[str], i: int) -> None:
    """The verb of a relative clause on the perceiver's name ("Wren, who has watched the whole
    thing, turns") in the first person: "I, who have watched"."""
    after = _next_word(parts, i)
    if (after is not None and after[1].lower() == "who" and "," in parts[i + 1]
            and (verb := _next_word(parts, after[0])) is not None):
        parts[verb[0]] = _cap_like(_first_person(verb[1]), verb[1])


def _quantifier(out: list[str]) -> bool:
    """True when the written text ends "<quantifier> of" ("neither of", "both of")."""
    words = [p.lower() for p in out if p[:1].isalpha()][-2:]
    return len(words) == 2 and words[0] in _QUANTIFIERS


def _and_name(parts: list[str], i: int) -> bool:
    """True when "you" at i is followed by "and <Name>" ("you and Kell")."""
    return (i + 4 < len(parts) and parts[i + 1] == " " and parts[i + 2].lower() == "and"
            and parts[i + 3] == " " and parts[i + 4][:1].isupper() and parts[i + 4].isalpha())


def _pair_is_subject(parts: list[str], i: int, prev_word: str) -> bool:
    """True when "<name> and <Name>" at i is a subject: nothing before it takes an object
    (a clause's start, an opener, a place: "on the porch Delia and Jody let go") and a verb
    follows ("let"), not a particle or an article ("leaves Delia and Jody behind")."""
    if prev_word and (prev_word in _OBJECT_AFTER or prev_word.endswith(("s", "ed"))):
        return prev_word in _CLAUSE_OPENERS
    after = _next_word(parts, i + 4)
    return (after is not None and after[1].islower()
            and after[1] not in _NOT_VERBS | _PARTICLES | _ARTICLES | _OBJECT_START)


def _aside_then_verb(parts: list[str], i: int, prev_word: str) -> bool:
    """True when the word at i opens a clause and its verb follows an aside: "…, and Eli,
    waiting his turn, lets out a breath" (the comma does not make Eli an object)."""
    if prev_word not in _CLAUSE_OPENERS:
        return False
    verb = _verb_of(parts, i) if i + 1 < len(parts) and "," in parts[i + 1] else None
    return verb is not None and (verb[1].lower() in _BARE_VERBS or verb[1].lower() in _BE_1P
                                 or (verb[1].lower().endswith("s") and verb[1].lower() not in _NOT_VERBS))


def _verb_of(parts: list[str], i: int) -> tuple[int, str] | None:
    """The verb of the subject at i, past an aside set off by commas ("Delia, behind the
    bar, is trying"); None when the comma opens a list or the clause ends first."""
    if i + 1 < len(parts) and parts[i + 1].lstrip().startswith(",") and "," in parts[i + 1]:
        for k in range(i + 2, min(i + 30, len(parts))):
            if any(ch in parts[k] for ch in ".;!?:"):
                return None
            if "," in parts[k]:
                return _next_word(parts, k)
        return None
    return _next_word(parts, i)


_OTHER_ONE = frozenset({"him", "he", "she", "they", "them", "the", "a", "an"})
_POSSESSIVE_OF = {"she": "her", "he": "his"}  # a subject of its own, whose things may follow


def _others_possessives(parts: list[str], j: int) -> set[str]:
    """The possessives that may be someone else's: a "she" or "he" earlier in the sentence
    owns a later "her" or "his" ("beside her I touch my hat brim" keeps "my")."""
    found: set[str] = set()
    for k in range(j - 1, -1, -1):
        part = parts[k]
        if not part[:1].isalpha():
            if any(ch in part for ch in ".!?"):
                break
            continue
        if part.lower() in _POSSESSIVE_OF:
            found.add(_POSSESSIVE_OF[part.lower()])
    return found


def _own_possessives(parts: list[str], j: int) -> None:
    """After "I <verb>" told from the perceiver's third person, its "his"/"her" are "my" until
    someone else may own them: "I have my hat in my hands and am half out of my chair when…".
    Stops at the clause's end, an opener, a name, another person or a noun phrase of its own
    (the boy, a man), and leaves an object "her" ("hooks her under the arms")."""
    theirs: set[str] | None = None  # read once, at the first possessive
    for k in range(j + 1, min(j + 40, len(parts))):
        part = parts[k]
        if not part[:1].isalpha():
            if any(ch in part for ch in ".;!?:"):
                return
            continue
        lower = part.lower()
        if part[:1].isupper() or lower in _OTHER_ONE or (lower in _CLAUSE_OPENERS and lower != "and"):
            return
        if lower in ("his", "her", "its"):
            owned = _next_word(parts, k)
            # an object "her": "hooks her under the arms", "pours her a cider"
            if lower == "her" and (owned is None or owned[1].lower() in _PARTICLES | _NUMBERS):
                return
            theirs = _others_possessives(parts, j) if theirs is None else theirs
            if lower in theirs:
                return  # "'Clean,' she writes, and I read it over her shoulder": hers
            parts[k] = _cap_like("my", part)


def _sentence_starts(out: list[str]) -> bool:
    """True when the next word written starts a sentence."""
    for part in reversed(out):
        if part[:1].isalpha():
            return False
        if any(ch in part for ch in ".!?"):
            return True
    return True


# After an object pronoun, not a possessive's noun: "hooks her under the arms", "pulls him clear".
_PARTICLES = frozenset({"under", "out", "clear", "free", "back", "across", "through", "behind", "aside",
                        "loose", "up", "down", "off", "away", "onto", "into", "over", "to", "by", "from",
                        "in", "on", "at", "with", "and", "toward", "towards"})


_BE_1P = {"are": "am", "were": "was", "aren't": "am not", "weren't": "wasn't"}
# Words that open a verb's object or particle: "…and knock *the* poacher *down*".
_OBJECT_START = frozenset({"the", "a", "an", "his", "her", "its", "their", "my", "your", "our", "you",
                           "me", "him", "them", "it", "us", "down", "up", "out", "off", "away", "back",
                           "onto", "into", "over", "across", "along", "toward", "towards", "through",
                           "no", "every", "some", "nothing"})
# Verbs that need no object to be known as verbs after "and": "…and is half out of his chair".
_BARE_VERBS = frozenset({"is", "has", "does", "goes", "are", "have", "do", "go", "was"})
_NEW_SUBJECT = frozenset({"he", "she", "it", "they", "i", "you", "we", "who", "which", "that"})


def _agree_coordinated(parts: list[str], j: int, change: Callable[[str], str]) -> None:
    """Give the verbs coordinated with the one at j the same person: "Bear bursts out and
    knock*s* the poacher down", "I swim out, grab him and drag him". A word after "and" or a
    comma is taken as a verb when an object or particle follows it; the scan stops at the end
    of the clause or at a new subject."""
    joined = changed = False
    for k in range(j + 1, min(j + 30, len(parts))):
        part = parts[k]
        if not part[:1].isalpha():
            if any(ch in part for ch in ".;!?:"):
                return
            joined = joined or "," in part
            continue
        lower = part.lower()
        # a new subject: "I slip and Corliss hooks me … and hauls me out" (his verbs, not mine)
        if joined and (lower in _NEW_SUBJECT or (part[:1].isupper() and lower != "i")):
            return
        if lower in ("and", "then", "or"):
            joined = True
            continue
        if joined:
            after = _next_word(parts, k)
            # a verb for certain, or one more in a list of them ("…, say nothing, and stay")
            if lower in _BARE_VERBS or (lower not in _NOT_VERBS and (
                    (after is not None and after[1].lower() in _OBJECT_START)
                    or (changed and change(part) != part))):
                parts[k] = change(part)
                changed = True
        joined = False


def _ends_clause(parts: list[str], i: int) -> bool:
    """True when punctuation follows the word at i ('blocks you.', 'corner you, then')."""
    return i + 1 < len(parts) and any(ch in parts[i + 1] for ch in ".;!?:,")


_ADVERBS = frozenset({"ever", "never", "always", "just", "still", "also", "often", "already", "even",
                      "almost", "soon", "once", "again", "now", "then", "only", "rarely", "seldom"})


def _next_word(parts: list[str], i: int) -> tuple[int, str] | None:
    """The verb after a subject, skipping adverbs ('you barely reach', 'you ever installed')."""
    for j in range(i + 1, min(i + 7, len(parts))):
        lower = parts[j].lower()
        if parts[j][:1].isalpha() and not lower.endswith("ly") and lower not in _ADVERBS:
            return j, parts[j]
    return None
