"""Perspective: a turn's text as the rule reader reads it, in the actor's second person and
split into clauses, each with the character acting in it.

Games write turns two ways: to the actor ("Wolf blocks your path") or about it, in the third
person ("Hugh folded her fingers back over the buckle", where Maud is the actor). The rule
reader's word lists look for what is done to "you", so a third-person turn is first put in the
second person for the reader: the actor's name becomes "you" ("Maud's" "your"), and, in a turn
that never says "you" outside quoted speech, an object pronoun in a clause where someone else
acts ("dragged her out", "hauls him back") is taken as the actor, the one the turn is about.
Characters go by other names than their ids: "Captain Ilse Varga, commander of the Halcyon" is
also "Ilse", "the captain" and "the commander" in a story's prose. `aliases_of` reads them from
a character's persona, and the reader takes them as the character wherever it is named.
This text is read, never stored: memories are retold from the game's own words (narration.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from curator.domain import lexicon as lx
from curator.domain.models import Turn, display_name

# Quoted speech is the speaker's own words: "you" inside it is not the game master's "you".
# Single quotes too ('I'm sorry, Delia.'): from a quote mark no letter precedes to a
# punctuation mark and a quote mark no letter follows, so "lady's" inside is no end.
QUOTED = re.compile(r'("[^"]*"|\u201c[^\u201d]*\u201d|(?<![A-Za-z])\'.+?[.,!?]\'(?![A-Za-z]))')
_YOU = re.compile(r"\byou(?:r|rs|rself)?\b", re.IGNORECASE)
# Object pronouns after a verb: "drags her out", "hauls him back", "pins him in the mud".
_OBJECT_PRONOUN = re.compile(r"\b([a-z]+)\s+(him|her)\b(?=\s+(?:out|clear|free|loose|back|aboard|up|"
                             r"away|across|off|under|onto|to|in|from|by|over|through|toward|towards)\b)")
_NOT_VERBS = frozenset({"to", "for", "with", "at", "of", "on", "from", "by", "and", "but", "that", "tells",
                        "told", "asks", "asked", "says", "said"})


Aliases = tuple[tuple[str, tuple[str, ...]], ...]  # (character, its aliases), hashable for caches
_TITLES = {"dr": "doctor", "doc": "doctor", "capt": "captain", "rev": "reverend", "mr": "", "mrs": "",
           "ms": "", "miss": "", "sir": "", "the": "", "of": "", "a": "", "an": ""}
# The head noun of a persona's first description: "the Halcyon's chief engineer", "a travelling
# tinker who comes in with the first snow", "the queen's spymaster for twenty years".
_DESCRIBED = re.compile(r"^(?:the|a|an)\s+(?:[\w'-]+\s+){0,4}?([a-z-]+)"
                        r"(?=\s*$|\s+(?:of|on|at|in|from|for|with|who|off|to|and)\b)")


@lru_cache(maxsize=4096)
def aliases_of(character: str, persona: str) -> tuple[str, ...]:
    """The other names a persona gives a character: its other names and titles ("ilse",
    "captain", "doctor"), and what it is ("the engineer", "the miller", "the tinker")."""
    name = display_name(character).lower()
    head, _, rest = persona.partition(",")
    found: list[str] = []
    own = re.sub(r"\s+the\s+([a-z-]+)\s*$", "", head.strip())  # "Osric the miller" → "Osric"
    if own != head.strip():
        found.append(f"the {head.strip().rsplit(' ', 1)[-1].lower()}")
    for word in re.findall(r"[A-Z][\w'-]*", own):
        alias = _TITLES.get(word.lower(), word.lower())
        if alias and alias != name and len(alias) > 2:
            found.append(alias)
    described = _DESCRIBED.match(rest.split(";")[0].split(",")[0].strip().lower())
    if described and described.group(1) != name:
        found.append(f"the {described.group(1)}")
    return tuple(dict.fromkeys(found))


def unambiguous(aliases: dict[str, tuple[str, ...]]) -> Aliases:
    """The aliases only one of these characters has, and that name none of the others."""
    names = {display_name(c).lower() for c in aliases}
    count: dict[str, int] = {}
    for own in aliases.values():
        for alias in own:
            count[alias] = count.get(alias, 0) + 1
    return tuple((c, tuple(a for a in own if count[a] == 1 and a not in names)) for c, own in aliases.items())


def second_person(text: str, actor: str, aliases: tuple[str, ...] = ()) -> str:
    """`text` with the actor named as "you"; unchanged when the actor is not named in it."""
    return _second_person(text, display_name(actor), aliases)


def _pattern(name: str, aliases: tuple[str, ...]) -> str:
    names = sorted((name.lower(), *aliases), key=len, reverse=True)  # "the engineer" before "engineer"
    return "(?:" + "|".join(re.escape(n) for n in names) + ")"


# A name's patterns, compiled once each: with thousands of characters re's own cache (512
# patterns) no longer held them, and compiling them again cost ~0.5 ms a turn (issue #17).
@lru_cache(maxsize=4096)
def _named(name: str, aliases: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str]]:
    who = _pattern(name, aliases)
    return re.compile(rf"\b{who}'s\b", re.IGNORECASE), re.compile(rf"\b{who}\b", re.IGNORECASE)


def mentions(text: str, character: str, aliases: Aliases = ()) -> bool:
    """Whether `text` names the character: by its display name or an alias the turn's personas
    give it ("the queen"), as a word ("wolfish" does not name Wolf); a pronoun does not count."""
    return _named(display_name(character), dict(aliases).get(character, ()))[1].search(text) is not None


@lru_cache(maxsize=4096)
def _actor_named(name: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)


_TWICE = re.compile(r"\byou (you|your)\b")


@lru_cache(maxsize=2048)
def _second_person(text: str, name: str, aliases: tuple[str, ...] = ()) -> str:
    owned, named = _named(name, aliases)
    if not named.search(text):
        return text
    told_about = not _spoken_to(text)
    text = named.sub("you", owned.sub("your", text))
    # "Father Aldous" is one name, not two: "you you" → "you", "Father Aldous's" → "your"
    text = _TWICE.sub(lambda m: m.group(1), text)
    # Told about the actor: "Bran dragged her out by the collar" is done to the actor.
    return _objects(text, "you") if told_about else text


def objects_as(text: str, actor: str, word: str) -> str:
    """In a turn told about the actor (named, never "you" outside quotes), the object pronouns
    where someone else acts ("drags him clear") as `word` ("me" in the actor's own memory)."""
    name = _actor_named(display_name(actor))
    if not name.search(text) or _spoken_to(text):
        return text
    return _objects(text, word)


def _spoken_to(text: str) -> bool:
    """True when the game says "you" outside quoted speech."""
    return any(_YOU.search(part) for part in QUOTED.split(text) if part and not QUOTED.fullmatch(part))


# "the man who dragged him out": the object of a relative clause about someone unnamed is the
# one the sentence is about, not the actor (who may well be that unnamed man).
_UNNAMED_WHO = re.compile(r"\b(?:the|a|an)\s+[a-z]+\s+who\s+$", re.IGNORECASE)


def _objects(text: str, word: str) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1).lower() in _NOT_VERBS or _UNNAMED_WHO.search(text[max(0, m.start() - 40):m.start()]):
            return m.group(0)
        return f"{m.group(1)} {word}"
    return _OBJECT_PRONOUN.sub(one, text)


# A sentence ends after . ; ! or ? (or one closing a quote: '…I am so sorry." Brandt, at the
# foot of the bed'), but not after a title's abbreviation ("St. Brigid's", "Dr. Vance").
_SENTENCE_END = (r"(?:(?<!\bSt\.)(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<=[.;!?])"
                 r"|(?<=[.;!?][\"\u201d']))\s+")
# Clauses end at a sentence's end, before "but", "while", "whereupon" and "until", and before a
# relative clause about someone just named ("…to Jory, who told the priest he had forged it").
_CLAUSES = re.compile(_SENTENCE_END + r"|\s+(?:but|while|whereupon|until)\s+|,\s+(?=who\s)"
                      # "…and Wolf pulls you out", "…when Julian Vance drags a chair over": his or her clause
                      r"|,?\s+(?:and|when)\s+(?=[A-Z][a-z]+\s+(?:[A-Z][a-z]+\s+)?[a-z]+s\b)"
                      # "…halfway through the banns when Hugh rose": any verb after "when"
                      r"|,?\s+when\s+(?=[A-Z][a-z]+\s+(?:[A-Z][a-z]+\s+)?[a-z]+\b)")
# "You pry the jaws open until Wolf pulls his leg free": what follows "until" after the actor's
# own deed is that deed's result, so it stays in the actor's clause.
_RESULT = re.compile(r"\s+until\s+")
_PRONOUNS = frozenset({"he", "she", "it", "they", "his", "her", "its", "their"})


@dataclass
class Clause:
    text: str
    words: list[str]
    agent: str | None  # the first non-actor character named in it (or carried by a pronoun)
    named: list[str]
    said: str = ""  # the game's own words (`text` is them in the actor's second person)
    opened: bool = False  # "Under the reactor loss you enter …": "you" acts after an opening phrase

    @property
    def by_actor(self) -> bool:
        """'You dig at the root…': the actor is the one acting in this clause."""
        return bool(self.words) and (self.words[0] in ("you", "your") or self.opened)

    @property
    def about_actor(self) -> bool:
        return "you" in self.words or "your" in self.words


@lru_cache(maxsize=4096)
def _name_pattern(character: str, aliases: tuple[str, ...] = ()) -> re.Pattern[str]:
    # "the engineer" is also "your engineer", "her engineer": the one the persona says it is
    owned = tuple(f"{d} {a[4:]}" for a in aliases if a.startswith("the ") for d in _OWNERS)
    return re.compile(rf"\b{_pattern(display_name(character), aliases + owned)}(?:'s)?\b")


_OWNERS = ("your", "my", "our", "his", "her", "their")
# Words that open a clause with a subordinate phrase before its subject: "Before the reeve could
# finish, Osric strode up": Osric acts, the reeve is only in the time phrase.
_SUBORDINATORS = frozenset({"before", "after", "when", "as", "once", "though", "although", "if", "since"})


def clauses(turn: Turn, reality: str, aliases: Aliases = ()) -> list[Clause]:
    """The clauses of `reality` (the turn's text in the actor's second person), each keeping
    the game's own words as its text when the two split alike."""
    cast = [c for c in turn.characters if c != turn.actor]
    other_names = dict(aliases)
    out: list[Clause] = []
    read = _split(reality)
    told = read if reality == turn.reality else _split(turn.reality)
    if len(read) != len(told):
        told = read
    for raw, own in zip(read, told, strict=True):
        text = raw.strip()
        if not text:
            continue
        lower = text.lower()
        positions = []
        for character in cast:
            match = _name_pattern(character, other_names.get(character, ())).search(lower)
            if match:
                positions.append((match.start(), character))
        named = [c for _, c in sorted(positions)]
        words = lx.tokens(text)
        comma = lower.find(",")
        if words[:1] and words[0] in _SUBORDINATORS and comma > 0:
            main = [c for at, c in sorted(positions) if at > comma]
            named = main + [c for c in named if c not in main]
        agent = named[0] if named else None
        before = next((c.agent for c in reversed(out) if c.agent), None)
        if words[:1] and words[0] in _SUBJECT_PRONOUNS - {"they"} and before and agent != before:
            # "He swears, in front of Father Aldous, …": he is the last one acting, not the
            # first one named after him
            agent = before
            named = [agent, *[c for c in named if c != agent]]
        elif words[:1] == ["who"] and out and out[-1].named:
            agent = out[-1].named[-1]  # "…to Jory, who told the priest": Jory
            named = [agent, *[c for c in named if c != agent]]
        elif agent is None and _pronoun_subject(words):
            # "He growls", "Then she writes the code down": the last one acting acts again; with
            # no one acting yet, the turn's only other character ("He hears all of it").
            only = cast[0] if len(cast) == 1 and set(words[:5]) & _SINGULAR else None  # not "They are three"
            agent = next((c.agent for c in reversed(out) if c.agent), only)
            named = [agent] if agent else []
        elif agent is None and _deed(lower, words):
            # "you are alive because of her", "the tinker lays every penny on the anvil and asks
            # your pardon": the deed is the last one acting's.
            agent = next((c.agent for c in reversed(out) if c.agent), None)
            named = [agent] if agent else []
        out.append(Clause(text=text, words=words, agent=agent, named=named, said=own.strip() or text,
                          opened=_opened(words, lower, [at for at, _ in positions])))
    return out


# Words that may open a clause before its subject: "Then she writes", "For a long minute she says".
_SUBJECT_PRONOUNS = frozenset({"he", "she", "they"})
_SINGULAR = frozenset({"he", "she", "his", "her"})


def _pronoun_subject(words: list[str]) -> bool:
    """The clause opens with a pronoun ("He growls", "his jaws close"), or a subject pronoun
    comes within its first words with no "you" before it ("Then she writes the code down")."""
    if words[:1] and words[0] in _PRONOUNS:
        return True
    for word in words[:5]:
        if word in ("you", "your", "i", "we"):
            return False
        if word in _SUBJECT_PRONOUNS:
            return True
    return False


# Prepositions that open a phrase of place or time before a clause's subject.
_OPENERS = frozenset({"under", "in", "on", "at", "by", "from", "over", "across", "through", "inside",
                      "outside", "beside", "behind", "beneath", "above", "halfway", "for", "with"})


def _opened(words: list[str], lower: str, named_at: list[int]) -> bool:
    """A clause the actor acts in after an opening phrase: "Under the reactor loss you enter your
    engineer by name", "In the porch you wait" (not "In the porch Tom hauls you out": a name
    before the "you" is the subject)."""
    if not words or words[0] not in _OPENERS or "you" not in words[1:7]:
        return False
    at = re.search(r"\byou\b", lower)
    return at is not None and not any(n < at.start() for n in named_at)


def _deed(lower: str, words: list[str]) -> bool:
    """A deed done to the actor, said without naming who did it."""
    mine = words[:1] in (["you"], ["your"])  # "You drink it, shoulder to shoulder with him": the actor's
    return bool(lx.ALIVE_BECAUSE.search(lower) or lx.BETRAY_DEED.search(lower) or lx.RESCUE.search(lower)
                or lx.AMENDS.search(lower) or (_TOGETHER.search(lower) and not mine))


# "Working side by side, the two of them open the path": working together, said of no one by
# name, is the last one acting's deed too (it joined in).
_TOGETHER = re.compile(r"\b(?:side by side|shoulder to shoulder|the two of them)\b")


def _rejoin(parts: list[str]) -> list[str]:
    """A relative clause closed by a comma and "that" ("He swears, in front of Father Aldous, who
    has come to bless the wheel, that her debt is struck off") gives what follows back to the
    clause it interrupted: what he swears is his."""
    out: list[str] = []
    for part in parts:
        aside, sep, rest = part.partition(", that ")
        if out and part.startswith("who ") and sep:
            out[-1] = f"{out[-1]}, that {rest}"
            out.append(aside)
        else:
            out.append(part)
    return out


def _split(reality: str) -> list[str]:
    pieces: list[str] = []
    for sentence in re.split(_SENTENCE_END, reality):
        head, *results = _RESULT.split(sentence, maxsplit=1)
        parts = _rejoin(_CLAUSES.split(head))
        if results and lx.tokens(parts[-1])[:1] == ["you"]:
            parts[-1] = f"{parts[-1]} until {results[0]}"
            results = []
        pieces += parts + [p for r in results for p in _CLAUSES.split(r)]
    return pieces
