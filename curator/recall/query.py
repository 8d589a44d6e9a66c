"""Query: what a situation or a question asks for, read without a model.

A situation ("Wolf comes back to the river") or a question ("When did Caroline go to the
support group?") becomes: the content words to search for (function words and the verbs
that only frame a question, like "say" or "describe", left out), the characters it names
(in order: the first named is usually who it is about), the dates it mentions, and what
kind of answer it wants ("when" → a time, "how many" → a number). recall.py turns these
into a full-text query and score cues.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from curator.recall.when import Span, read_times

# Function words. Verbs that carry content in talk ("like", "feel", "get") are not among
# them: leaving them out of questions cost 0.6 @5 on LoCoMo.
STOPWORDS = frozenset([
    "don", "didn", "doesn", "isn", "wasn", "aren", "weren", "won", "wouldn", "couldn", "ve", "ll", "re",
    "a", "about", "above", "after", "again", "against", "all", "almost", "also", "am", "among", "an",
    "and", "any", "anyone", "anything", "are", "around", "as", "at", "be", "became", "because", "been",
    "before", "being", "below", "between", "both", "but", "by", "can", "cannot", "could", "did", "do",
    "does", "doing", "done", "down", "during", "each", "either", "else", "even", "ever", "every", "few",
    "for", "from", "further", "had", "has", "have", "having", "he", "her", "here",
    "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "least", "less", "let", "many", "may", "me", "might", "mine",
    "more", "most", "much", "must", "my", "myself", "neither", "no", "nor", "not", "now", "of", "off",
    "on", "once", "one", "only", "or", "other", "our", "ours", "ourselves", "out",
    "over", "own", "per", "quite", "rather", "really", "said", "same", "say", "says", "she", "should",
    "since", "so", "some", "something", "still", "such", "than", "that", "the", "their", "theirs",
    "them", "themselves", "then", "there", "these", "they", "this", "those", "though", "through",
    "thus", "to", "too", "toward", "towards", "under", "until", "up", "upon", "us", "very", "via",
    "was", "we", "well", "were", "what", "whatever", "when", "where", "whether", "which", "while",
    "who", "whom", "whose", "why", "will", "with", "within", "without", "would", "yet", "you", "your",
    "yours", "yourself", "yourselves"
])
# Verbs and nouns that frame a question about a conversation rather than name its content.
FRAME_WORDS = frozenset([
    "saying", "talking", "talks", "telling", "sort", "thing", "things", "anything", "asks",
    "ask", "asked", "asks", "describe", "described", "describes", "discuss", "discussed", "explain",
    "explained", "kind", "mention", "mentioned", "mentions", "share", "shared",
    "shares", "suggest", "suggested", "tell", "tells", "told", "talk", "talked", "think", "thinks",
    "thought", "type", "way", "ways"
])
_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u024f]+(?:'[A-Za-z]+)?")
_MONTHS = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
    "november", "december"
]
_DATE = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(" + "|".join(_MONTHS) + r"),?\s+(\d{4})\b"
                   r"|\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b",
                   re.IGNORECASE)
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r"),?\s+(\d{4})\b", re.IGNORECASE)
TIME_WORDS = re.compile(
    r"\b(yesterday|today|tonight|tomorrow|ago|last|next|recently|lately|since|weekend|"
    r"morning|evening|week|weeks|month|months|year|years|monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday|" + "|".join(_MONTHS) + r"|\d{4})\b", re.IGNORECASE)
DURATION_WORDS = re.compile(r"\b(\d+|a|an|one|two|three|four|five|six|few|several)\s+"
                            r"(minutes?|hours?|days?|weeks?|months?|years?)\b|\bfor (ages|years|months)\b",
                            re.IGNORECASE)
NUMBER_WORDS = re.compile(r"\b(\d+|once|twice|two|three|four|five|six|seven|eight|nine|ten)\b",
                          re.IGNORECASE)


@dataclass
class Query:
    """A situation or question read for recall."""

    text: str
    terms: list[str] = field(default_factory=list)  # content words, lower case, in order
    names: list[str] = field(default_factory=list)  # character ids named, first named first
    dates: list[tuple[date, date]] = field(default_factory=list)  # first and last day named
    wants_time: bool = False  # "when …"
    wants_duration: bool = False  # "how long …"
    wants_number: bool = False  # "how many / how often …"
    wants_list: bool = False  # several answers: "what activities …", "both", "in common"

    def times(self, today: date | None) -> tuple[Span, ...]:
        """The spans of days the text speaks of, relative phrases ("last week") read against
        `today`; without one, only the dates it names outright."""
        if today is None:
            return tuple(Span(first, last, "day" if first == last else "month") for first, last in self.dates)
        return read_times(self.text, today)

    def fts(self) -> str | None:
        """An FTS5 MATCH expression: any term in a memory's text, or a memory about a character
        the text names. Every token is quoted, so no user text is FTS syntax."""
        if not self.terms:
            return None
        match = "text : (" + " OR ".join(_quote(t) for t in self.terms) + ")"
        if self.names:
            about = " OR ".join(_quote(n.replace("_", " ")) for n in self.names)
            match = f"({match} OR about : ({about}))"
        return match


def _quote(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def name_candidates(text: str) -> list[str]:
    """Every id `text` could name (its words and adjacent pairs as `old_oak`): ask the world
    which of these are characters, rather than list all of them, and pass those to read_query."""
    words = [w.lower().removesuffix("'s") for w in _WORD.findall(text)]
    return list(dict.fromkeys([*words, *(f"{a}_{b}" for a, b in itertools.pairwise(words))]))


def read_query(text: str, characters: Iterable[str] = ()) -> Query:
    """Read `text` for recall; `characters` are character ids (all of the world's, or those
    among `name_candidates(text)`), to spot names."""
    ids = set(characters)
    words = [w.lower() for w in _WORD.findall(text)]
    query = Query(text=text)
    names: list[str] = []
    kept: list[str | None] = []  # content words, None where a gap breaks a phrase
    i = 0
    while i < len(words):
        word = words[i].removesuffix("'s")
        pair = f"{word}_{words[i + 1].removesuffix(chr(39) + 's')}" if i + 1 < len(words) else ""
        if pair in ids:  # two-word ids: "old oak" → old_oak
            names.append(pair)
            kept.append(None)
            i += 2
            continue
        if word in ids:
            names.append(word)
            kept.append(None)
        elif word in STOPWORDS or word in FRAME_WORDS or len(word) < 2:
            kept.append(None)
        else:
            kept.append(word)
        i += 1
    query.names = list(dict.fromkeys(names))
    query.terms = list(dict.fromkeys(w for w in kept if w))
    lower = text.lower()
    query.wants_time = bool(re.search(r"\bwhen\b|\bwhat (time|day|date|year|month)\b", lower))
    query.wants_duration = bool(re.search(r"\bhow long\b", lower))
    query.wants_number = bool(re.search(r"\bhow (many|often|much)\b", lower))
    query.dates = _dates(text)
    query.wants_list = _wants_list(lower)
    return query


# A question after several answers: "both", "in common", "how many", "ever", or a plural
# right after "what"/"which" ("what activities …", "which cities …", "what video games …").
_LIST = re.compile(r"\b(both|in common|how many|ever)\b")
_VERBS = frozenset(["is", "was", "does", "has", "his", "this", "its", "are", "were", "do", "did", "have"])


def _wants_list(lower: str) -> bool:
    if _LIST.search(lower):
        return True
    words = _WORD.findall(lower)
    if len(words) < 2 or words[0] not in ("what", "which"):
        return False
    for word in words[1:3]:
        if word in _VERBS:
            return False
        if word.endswith("s") and not word.endswith("ss"):
            return True
    return False


def _dates(text: str) -> list[tuple[date, date]]:
    """The days a text names: '7 May 2023', 'May 7, 2023' (one day) or 'May 2023' (the month)."""
    found = []
    for m in _DATE.finditer(text):
        day, month, year = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (
            m.group(5), m.group(4), m.group(6))
        try:
            one = datetime.strptime(f"{int(day)} {month.lower()} {year}", "%d %B %Y").date()
        except ValueError:
            continue
        found.append((one, one))
    if not found:
        for m in _MONTH.finditer(text):
            first = datetime.strptime(f"1 {m.group(1).lower()} {m.group(2)}", "%d %B %Y").date()
            last = (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)
            found.append((first, last))
    return found
