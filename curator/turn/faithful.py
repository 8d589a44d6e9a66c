"""Does a model's sentence tell the turn as it happened? The checks that decide, in model mode,
whether a memory keeps the model's words or the rules' (judging.about).

A 1.5B model's one sentence is shorter and livelier than the rules' retelling, and mostly right;
these catch the ways it goes wrong that matter to a memory. `told_otherwise`: it gives someone
the opposite part ("I was knocked down by Bear", of Bear freeing Wolf from the trap).
`leaves_out`: it drops what endangered the perceiver or what went wrong ("I nearly drowned at
the dam" of a flash flood; "the trout were gone" of a bear that slid off the rocks), so the
memory is not found when the character is asked about the flood, and a repeated fall is no
longer a fall. `overstates`: it says the perceiver nearly died in a turn where nobody's life
was at stake ("I nearly died trying to catch the salmon"), and every later prompt would show
a brush with death that never was. `misdirects`: it aims at the perceiver a deed the game aims
elsewhere ("Beaver slapped me" of a beaver that slapped his tail on the water beside Bear).
`invents_violence`: it says someone was shot or stabbed where nobody fired or drew a blade ("I
saw the poacher shoot at Wolf" of a poacher who raised his rifle).

`told_otherwise` and `leaves_out` read both sentences with the rule reader (reading.py), the
model's and the rules' own sentence of the same turn, and compare the two readings: the reader
is made for a game master's prose and reads a retold first-person scene less well, and comparing
it with its own reading of the rules' retelling cancels that out. The other three compare the
model's sentence with the game's own text. `falls_short` is all but `told_otherwise` in one.
"""

from __future__ import annotations

import re

from curator.domain import lexicon as lx
from curator.domain.models import Gap
from curator.turn.inputs import InterpretInput
from curator.turn.judgement import OtherReading
from curator.turn.perspective import second_person
from curator.turn.reading import Reading, read_turn

# A first-person sentence in the second person the rule reader reads a turn in ("I" is the actor).
_FIRST_PERSON = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
                 "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll"}
# "I was knocked down by Bear" → "Bear knocked down you": the rule reader reads a clause's first
# name as the one acting, so a passive is put in the active first.
_PASSIVE = re.compile(r"\bI (?:was|got|had been) ([a-z]+(?: (?:down|up|off|out|away|over|back|aside|free))?) "
                      r"by ((?:the )?[A-Za-z'-]+(?: [A-Z][A-Za-z'-]*)*)")
# ASCII only: under Unicode case folding "İ" is an "i" whose lower case is two characters.
_FIRST_WORD = re.compile(r"\b(?:i'm|i've|i'd|i'll|i|me|my|mine|myself)\b", re.IGNORECASE | re.ASCII)
# The parts a sentence may give someone that say the opposite of a deed the reading found.
_OPPOSITE: dict[str, frozenset[str]] = {
    "helped": frozenset({"hostile", "betrayer"}), "kind": frozenset({"hostile", "betrayer"}),
    "harmed": frozenset({"helper"}), "blocked": frozenset({"helper"}), "betrayed": frozenset({"helper"})}

# A turn that went wrong by itself (no one stood in the way): a memory of it says what went wrong.
_MISHAPS = frozenset({Gap.FAILED, Gap.MIXED})
_NO_DANGER_NAMED = frozenset({"danger", "threat"})


def read_told(text: str, inp: InterpretInput) -> Reading:
    """The rule reader's reading of the perceiver's first-person `text`, as if the game master
    had told it to the perceiver."""
    cast = [c for c in inp.allowed_subjects if c != inp.perceiver]
    active = _PASSIVE.sub(lambda m: f"{m.group(2)} {m.group(1)} me", text)
    yours = _FIRST_WORD.sub(lambda m: _FIRST_PERSON[m.group(0).lower()], active)
    told = inp.turn.model_copy(update={"actor": inp.perceiver, "reality": yours, "others": cast,
                                       "observers": [], "outcome": None})
    return read_turn(told, inp.aliases)


def _part_told(text: str, other: str, inp: InterpretInput) -> str | None:
    """The part the rule reader gives `other` in the perceiver's first-person `text`."""
    return read_told(text, inp).roles.get(other)


def told_otherwise(memory: str, other: OtherReading, inp: InterpretInput, theirs: str) -> bool:
    """Whether the perceiver's first-person sentence gives `other` the opposite part to the deed
    the reading of the turn found, where the rules' own sentence about them (`theirs`), read the
    same way, does not: Wolf, freed from the trap by Bear, remembered "I was knocked down by
    Bear and dropped my rifle" (the poacher's part, and Bear as the one who hurt him). The rule
    reader is made for a game master's prose, and reads a retold scene ("I watch Bear: …") less
    well; comparing with its reading of the rules' sentence of the same turn cancels that out.
    Read only in model mode, where a model's call outweighs it."""
    opposite = _OPPOSITE.get(other.did)
    return opposite is not None and _part_told(memory, other.id, inp) in opposite and (
        _part_told(theirs, other.id, inp) not in opposite)


def leaves_out(memory: str, inp: InterpretInput, theirs: str) -> bool:
    """Whether the perceiver's sentence `memory` leaves out what endangered them (in a turn the
    rules read as dangerous to the actor, or, for an observer, to anyone, the rules' sentence
    of the same turn, `theirs`, names a danger, "the flood", "the trap", and `memory` names
    none of its dangers) or, the actor's, what went wrong: a turn the rules read as a
    mishap (failed, or done and hurt), which their sentence tells, told with no failure, hurt
    or danger in it."""
    turn = read_turn(inp.turn, inp.aliases)
    # the danger the perceiver lived (the actor's own, or the one an observer saw): a word
    # of danger in passing ("the lamp smoked", "a rifle across his knees") is none
    endangered = turn.actor_danger if inp.role == "actor" else turn.danger
    dangers = _dangers(theirs) if endangered else set()
    if dangers and not dangers & _dangers(memory):
        return True
    if inp.role != "actor":
        return False
    if turn.gap not in _MISHAPS or not (turn.failure or turn.actor_harm):
        return False
    rules = read_told(theirs, inp)  # the rules' words must say it, or they are no better
    if not (rules.failure or rules.actor_harm):
        return False
    mine = read_told(memory, inp)
    return not (mine.failure or mine.harm or mine.actor_harm or mine.danger)


def _dangers(text: str) -> set[str]:
    """The dangers `text` names; "danger" itself names none ("I am in danger: the ice cracks")."""
    lower = text.lower()
    named = lx.stem_hits(lx.tokens(lower), lx.DANGER) - _NO_DANGER_NAMED
    return named | {p for p in lx.DANGER_PHRASES if p in lower}


# The perceiver's own brush with death, as a model tells it. Not lexicon.MORTAL_PHRASES: those
# are the game's words for mortal danger ("goes under", "an inch from"), read by the rules; these
# are only a first-person claim, which the turn must bear out.
_NEARLY_DIED = re.compile(r"\b(?:nearly|almost|could have|was nearly|was almost)\s+"
                          r"(?:die[sd]?|drown(?:s|ed)?|been killed|killed|lost my life)\b|\bnear death\b",
                          re.IGNORECASE)


def overstates(memory: str, inp: InterpretInput) -> bool:
    """Whether the perceiver's sentence `memory` says it nearly died ("I nearly died", "I
    nearly drowned") in a turn that does not say so and that the rules read as no danger to
    it at all (to the actor, for the actor; to anyone, for an observer). Of the recorded
    forest answers: "I nearly died trying to catch the salmon" (a salmon caught), "I nearly
    died trying to take Bear's salmon, but Bear roared at me" (a roar), "I nearly died trying
    to break open the beehive" (the bees chased Bear)."""
    if not _NEARLY_DIED.search(memory) or _NEARLY_DIED.search(f"{inp.turn.reality} {inp.seen or ''}"):
        return False  # "You nearly drown and crawl out coughing": the game says so
    turn = read_turn(inp.turn, inp.aliases)
    return not (turn.actor_danger if inp.role == "actor" else turn.danger)


# A deed done to the one remembering: "Beaver slapped me", "Wolf hit me from behind".
_DONE_TO_ME = re.compile(r"\b([a-z]+ed|hit|bit|took|shot|threw|struck|held|caught)\s+me\b", re.IGNORECASE)
# ... and the same verb in the game's text, aimed at the actor ("slaps you", "took me" in its dialogue).
_SECOND_PERSON = re.compile(r"\byou(?:r)?\b", re.IGNORECASE)
_AT_YOU = re.compile(r"\s+(?:[a-z']+\s+)?(?:you|your|yourself|me|my)\b")


def misdirects(memory: str, inp: InterpretInput) -> str | None:
    """The deed the actor's sentence `memory` says was done to it ("slapped me") when the
    game's text has the same verb done to someone or something else, and never to the actor:
    "Beaver slapped me and soaked me" of "Beaver slaps his tail on the water right next to
    you and soaks you", "Wolf burst out of the undergrowth and hit me from behind" of Wolf
    hitting the poacher. A verb the game's text does not use is a retelling, not checked; nor
    is a text told in the third person, whose "her" or "him" may be the actor ("Lord Okabe
    thanked her gravely")."""
    if inp.role != "actor" or not _SECOND_PERSON.search(inp.turn.reality):
        return None
    told = second_person(inp.turn.reality, inp.turn.actor, dict(inp.aliases).get(inp.turn.actor, ())).lower()
    for done in _DONE_TO_ME.finditer(memory):
        verb = done.group(1).lower()
        stem = (verb[:-2] if verb.endswith("ed") else verb)[:4]
        uses = list(re.finditer(rf"\b{re.escape(stem)}[a-z]*", told))
        if uses and not any(_AT_YOU.match(told, use.end()) for use in uses):
            return done.group(0)
    return None


# Someone shot or stabbed, as a sentence tells it: "the poacher shoot at Wolf", "shot me",
# "stabbed him" (not "green shoots", "a letter shot over the wall").
_VIOLENCE_TOLD = re.compile(r"\b(?:shoot(?:s|ing)?|shot|stab(?:s|bed|bing)?)\s+(?:at\s+)?"
                            r"(?:me|him|her|them|us|[A-Z][a-z'-]+)\b")
# ... and the game's own words for it having happened.
_VIOLENCE_DONE = re.compile(r"\b(?:shoot\w*|shot|shots|fire[sd]?|firing|bullets?|gunshots?|stab\w*|"
                            r"knife|knives|blade|dagger)\b", re.IGNORECASE)


def invents_violence(memory: str, inp: InterpretInput) -> bool:
    """Whether the perceiver's sentence `memory` says someone was shot or stabbed in a turn
    whose text has no shot fired and no blade: Owl, who saw the steel jaws close on Wolf and
    the poacher raise his rifle, remembered "I saw the poacher shoot at Wolf"."""
    return bool(_VIOLENCE_TOLD.search(memory)) and not _VIOLENCE_DONE.search(
        f"{inp.turn.reality} {inp.seen or ''}")


def falls_short(memory: str, inp: InterpretInput, theirs: str) -> bool:
    """Whether the perceiver's sentence `memory` leaves out what the rules' sentence of the
    same turn (`theirs`) tells of danger or a mishap, overstates it, invents a shot or a stab,
    or aims a deed at the perceiver that the game aims elsewhere: the rules' words are kept
    instead."""
    return (leaves_out(memory, inp, theirs) or overstates(memory, inp) or invents_violence(memory, inp)
            or misdirects(memory, inp) is not None)
