"""Verb forms for retelling (narration.py): a verb made third person for an observer ("you
bypass" → "Kell bypasses") or first person for the perceiver ("Owl watches" → "I watch")."""

from __future__ import annotations

# Words that are never a verb, whatever they end in.
NOT_VERBS = frozenset({"and", "but", "as", "when", "while", "so", "then", "the", "a", "an", "to",
                       "too", "both", "all", "alone", "again", "now", "still", "just", "only",
                       "also", "never", "always", "here", "there", "of", "in", "on", "at", "with",
                       "by", "from", "off", "away", "into", "onto", "out", "up", "down",
                       "over", "until", "for", "before", "after", "around", "toward", "towards",
                       # determiners and pronouns that open a noun phrase ("and every pair of hands")
                       "every", "each", "any", "some", "no", "nobody", "nothing", "everyone",
                       "everybody", "someone", "somebody", "anyone", "everything", "something"})
# Number words and the indefinite article: "charge you two silver", "pour her a cider", an
# object before them.
NUMBERS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                     "eleven", "twelve", "twenty", "fifty", "hundred", "thousand", "half", "a", "an"})
_MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "must", "might", "may",
                     "did", "had", "was", "were", "cannot", "can't", "won't", "didn't", "don't"})
# Words only a subject goes before: "say you are sorry" (you: the one sorry).
AUXILIARIES = (_MODALS - {"was"}) | {"are", "am", "have", "do", "aren't", "weren't", "haven't", "hadn't",
                                     "wouldn't", "couldn't", "shouldn't"}
_IRREGULAR_3P = {"are": "is", "have": "has", "do": "does", "go": "goes", "were": "was",
                 "don't": "doesn't", "aren't": "isn't", "haven't": "hasn't"}
# Past forms that take no -s for the third person ("you flew" → "Seven flew", not "flews").
PAST_FORMS = frozenset({
    "ate", "began", "bent", "bit", "bled", "blew", "bore", "bought", "broke", "brought", "built",
    "burnt", "came", "caught", "chose", "clung", "crept", "dealt", "drank", "drew", "drove", "dug", "fed",
    "fell", "felt", "fled", "flew", "flung", "forgave", "forgot", "fought", "found", "froze", "gave", "got",
    "grew", "heard", "held", "hid", "hung", "kept", "knelt", "knew", "laid", "leapt", "led", "left",
    "lent", "lit", "lost", "made", "meant", "met", "paid", "ran", "rang", "rode", "rose", "sang", "sank",
    "sat", "saw", "said", "sent", "shook", "shot", "slept", "slid", "sold", "sought", "spent", "spoke",
    "sprang", "stood", "stole", "struck", "stuck", "stung", "swam", "swept", "swore", "swung", "taught",
    "thought", "threw", "told", "took", "tore", "understood", "went", "wept", "woke", "won", "wore", "wrote",
    "been", "done", "gone", "seen", "taken", "given", "known", "shown", "thrown", "drawn",
    "grown", "flown", "driven", "written", "ridden", "risen", "eaten", "fallen", "broken", "spoken",
    "chosen", "frozen", "stolen", "forgotten", "hidden", "bitten", "beaten"})
# Prepositions and adverbs an aside opens with ("you, behind him, turn"): never a verb.
PLACE_WORDS = frozenset({"behind", "beside", "beneath", "below", "above", "across", "along", "among",
                         "against", "through", "without", "within", "upon", "under", "near", "past",
                         "inside", "outside", "between", "beyond"})
# Verbs that end in -ing themselves ("you bring" → "Sable brings"); any other -ing is a participle.
_ING_VERBS = frozenset({"bring", "sing", "ring", "sting", "swing", "cling", "fling", "sling", "spring",
                        "string", "wring", "ping", "wing"})


def third_person(verb: str) -> str:
    """'you reach' → 'Bear reaches': a verb after the actor's name in an observer's memory."""
    lower = verb.lower()
    if lower in _IRREGULAR_3P:
        return _IRREGULAR_3P[lower]
    if lower.endswith("ss") and lower not in NOT_VERBS:  # "you bypass" → "Kell bypasses"
        return verb + "es"
    if (lower in _MODALS or lower in NOT_VERBS or lower in PAST_FORMS or lower in PLACE_WORDS
            or lower.endswith(("ed", "ly", "s")) or (lower.endswith("ing") and lower not in _ING_VERBS)):
        return verb
    if lower.endswith(("ch", "sh", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 2 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


_IRREGULAR_1P = {"is": "am", "has": "have", "does": "do", "goes": "go", "was": "was",
                 "doesn't": "don't", "isn't": "am not", "hasn't": "haven't"}


def unthird(verb: str) -> str:
    """A third-person verb after "I" made first person, any other word left alone: "shoulders"
    → "shoulder", but "focus", "pass" and "bus" are no third persons."""
    lower = verb.lower()
    if lower in _IRREGULAR_1P or (lower.endswith("s") and not lower.endswith(("ss", "us", "is", "as", "os"))):
        return first_person(verb)
    return verb


def first_person(verb: str) -> str:
    """'Owl watches' → 'I watch'."""
    lower = verb.lower()
    if lower in _IRREGULAR_1P:
        return _IRREGULAR_1P[lower]
    if lower.endswith("ies") and len(lower) > 4:
        return verb[:-3] + "y"
    if lower.endswith(("ches", "shes", "xes", "sses", "zzes", "oes")):
        return verb[:-2]
    if lower.endswith("s") and not lower.endswith("ss") and len(lower) > 3:
        return verb[:-1]
    return verb
