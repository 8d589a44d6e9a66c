"""Reading a turn without a model: who did what to whom, and how reality compared with intent.

The game master's text is split into clauses; in each clause the first character named is
taken as the one acting, and the clause's words (from `lexicon.py`) say whether they
helped, stood in the way, betrayed, or hurt. Whole-text features (harm, danger, failure,
success, surprise, novelty) and the game's own outcome hints decide the gap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from curator.domain import lexicon as lx
from curator.domain import outcomes as oc
from curator.domain import traits as tr
from curator.domain.models import Gap, Turn
from curator.turn import deeds as dd
from curator.turn.perspective import Aliases, Clause, clauses, second_person

_STOP = frozenset({"the", "a", "an", "to", "my", "your", "of", "and", "for", "some", "at", "in", "on",
                   "with", "from", "into", "this", "that", "try", "go", "head", "get", "out", "up"})


@dataclass
class Reading:
    """What a turn says, independent of who perceived it."""

    gap: Gap
    roles: dict[str, str] = field(default_factory=dict)  # hostile|helper|mixed|betrayer|present
    clause_of: dict[str, str] = field(default_factory=dict)  # other -> the clause naming them
    traits: dict[str, list[str]] = field(default_factory=dict)
    harm_by: set[str] = field(default_factory=set)
    acts_on: dict[str, str] = field(default_factory=dict)  # what the actor did: helped|hostile|met
    actor_traits: list[str] = field(default_factory=list)  # what the actor's deeds show of it
    actor_harm: bool = False  # harm, danger and mortal danger to the actor itself
    actor_danger: bool = False
    actor_lethal: bool = False
    harm: bool = False
    danger: bool = False
    lethal: bool = False
    failure: bool = False
    success: bool = False
    triumph: bool = False
    surprise: bool = False
    discovery: bool = False
    quiet: bool = False
    intense: bool = False
    novelty: bool = False
    thwart: bool = False
    concealed: bool = False  # someone hid what they did
    refused: bool = False  # someone said no or barred the way: stopped before it began
    setback: bool = False  # harm after a "but" or "though": the part that went badly
    did_it: bool = False  # the action's own words, inflected or not, are in what happened
    last_role: str = "present"  # the role of the last one who did something: who had the last word
    amends_by: set[str] = field(default_factory=set)  # who made amends, thanked or forgave
    armed: bool = False  # the actor set or made a danger (a trap, a fire, poison) on purpose


def action_words(action: str) -> set[str]:
    return {w for w in lx.tokens(action) if len(w) > 3 and w not in _STOP}


# The last turn read and its reading: interpret and appraise read the same turn object one
# after the other (per perceiver). Keyed by identity and the aliases, and holding the turn, so
# it cannot be mistaken for another; a Reading is never changed once made.
_last: tuple[Turn, Aliases, Reading] | None = None
# The last reality read: the actor and each observer read the same turn but for the intent
# (an observer's is unseen), and only whether the action was done depends on it; the rest of
# the reading is shared (issue #17: the second read was a tenth of a busy turn's time).
_last_reality: tuple[Turn, Aliases, _RealityRead] | None = None


@dataclass(frozen=True)
class _RealityRead:
    """A turn's reality read without its intent: the reading (its success, did_it, triumph and
    gap not yet decided) and the words those are decided from."""

    reading: Reading
    words: list[str]
    word_set: frozenset[str]
    said_success: bool  # a success word no negator undoes


def read_turn(turn: Turn, aliases: Aliases = ()) -> Reading:
    """Read the turn's reality once; every perceiver's interpretation starts from this.
    `aliases` are the other names of the turn's characters (perspective.aliases_of)."""
    global _last, _last_reality
    last = _last
    if last is not None and last[0] is turn and last[1] == aliases:
        return last[2]
    base = _last_reality
    if base is None or base[1] != aliases or not _same_but_intent(base[0], turn):
        base = (turn, aliases, _read_reality(turn, aliases))
        _last_reality = base
    reading = _with_intent(base[2], turn)
    _last = (turn, aliases, reading)
    return reading


def _same_but_intent(read: Turn, turn: Turn) -> bool:
    """`turn` is `read` but for its intent (an observer's copy of the actor's turn)."""
    if read is turn:
        return True
    mine, theirs = read.__dict__, turn.__dict__
    return mine.keys() == theirs.keys() and all(
        mine[key] == theirs[key] for key in mine if key != "intent")


def _with_intent(base: _RealityRead, turn: Turn) -> Reading:
    """The reading of `turn` from its reality's: whether what was meant was done, and the gap."""
    reading = replace(base.reading)  # shallow: a Reading's collections are never changed once made
    action = action_words(turn.intent.action)
    # The action's own words in the outcome ("swipe for a trout" … "a trout") mean success only
    # when nothing in the text says it went wrong.
    reading.success = base.said_success or (not reading.failure and len(action & base.word_set) >= 2)
    # the action's own verbs done ("drive the ewe … and sell her" … "drives", "sells")
    reading.did_it = len(lx.stem_hits(base.words, frozenset(action))) >= 2
    reading.triumph = reading.success and bool(base.word_set & lx.TRIUMPH_WORDS)
    reading.gap = _gap(turn, reading)
    return reading


def _read_reality(turn: Turn, aliases: Aliases = ()) -> _RealityRead:
    reality = second_person(turn.reality, turn.actor, dict(aliases).get(turn.actor, ()))
    read = clauses(turn, reality, aliases)
    words = lx.tokens(reality)
    lower = reality.lower()
    reading = Reading(gap=Gap.SUCCEEDED)
    reading.quiet = any(p in lower for p in lx.QUIET_PHRASES) or bool(lx.ROUTINE.search(lower))
    torn = [m.group(1) for m in lx.HARM_BODY.finditer(lower)]
    reading.harm = bool(lx.stem_hits(words, lx.HARM, lx.HARM_WORDS)) or bool(torn)
    # "You tear your flank": whoever tears it, a torn "your" body is the actor's.
    reading.actor_harm = reading.actor_danger = "your" in torn
    at_throat = bool(lx.AT_THROAT.search(lower))
    reading.danger = reading.harm or at_throat or lx.names_danger(words, lower)
    reading.lethal = at_throat or (reading.danger and (
        bool(lx.stem_hits(words, lx.LETHAL)) or any(p in lower for p in lx.LETHAL_PHRASES)))
    # "Out of reach", "you get no honey": a success word a negator undoes says it went wrong.
    # A negator reaches no further than its sentence: "sniff the wind. Nothing much happens."
    plain, negated = [], []
    for said in re.split(r"[.;!?]+", lower):
        sentence_plain, sentence_negated = lx.unnegated(_no_mishaps(lx.tokens(said)))
        plain += sentence_plain
        negated += sentence_negated
    # A failure word a negator undoes is none: "forty tickets, nothing missing".
    reading.failure = bool(lx.stem_hits(plain, lx.FAIL, lx.FAIL_WORDS)) or any(
        p in lower for p in lx.FAIL_PHRASES) or bool(lx.stem_hits(negated, lx.SUCCESS))
    reading.surprise = bool(lx.stem_hits(words, lx.SURPRISE)) or bool(oc.OTHERWISE.search(lower))
    reading.discovery = bool(lx.stem_hits(words, lx.DISCOVERY))
    reading.intense = bool(lx.stem_hits(words, lx.INTENSE))
    reading.novelty = any(p in lower for p in lx.NOVELTY_PHRASES) or bool(lx.RECORD.search(lower))
    reading.concealed = bool(lx.CONCEAL.search(lower))
    reading.refused = bool(oc.REFUSES.search(lower))
    # "The coupling holds. The startup surge, though, burns out the aft array": harm after a
    # "but" or "though", when nothing else went wrong, is the part that went badly
    turn_at = re.search(r"\b(?:but|though|however|yet)\b", lower)
    after = lx.tokens(lower[turn_at.end():]) if turn_at else []
    reading.setback = bool(lx.stem_hits(after, lx.HARM, lx.HARM_WORDS)) or bool(lx.HARM_BODY.search(
        " ".join(after)))
    # "She sells the ewe for a fair price. But snow closes the road…": a sentence that opens
    # with "But" after the thing was done tells what went badly
    reading.setback = reading.setback or bool(re.search(r"[.;!?]\s+but\b|,\s+though,|\bhowever\b", lower))

    for n, clause in enumerate(read):
        _read_clause(clause, reading, aliases)
        if n + 1 < len(read) and dd.lie(clause, read[n + 1], lower):
            _set_role(reading, clause.agent or "", "betrayer")
            known = reading.traits.setdefault(clause.agent or "", [])
            known.extend(t for t in ("deceitful",) if t not in known)
        if clause.by_actor and dd.arms(clause.words):
            reading.armed = True
        hides = clause.by_actor and bool(lx.CONCEAL.search(clause.text.lower()))
        if hides and "deceitful" not in reading.actor_traits:
            reading.actor_traits.append("deceitful")  # hiding one's deed shows one knows it is wrong
        if clause.about_actor and not clause.by_actor:
            # Danger to the actor is danger in what happens *to* it, not in what it does.
            text = clause.text.lower()
            harmed = bool(lx.stem_hits(clause.words, lx.HARM, lx.HARM_WORDS | lx.AGENT_HARM))
            # "you go under twice", "teeth at your throat"
            lethal_words = any(p in text for p in lx.MORTAL_PHRASES) or bool(lx.AT_THROAT.search(text))
            danger = harmed or lethal_words or lx.names_danger(clause.words, text)
            reading.actor_harm = reading.actor_harm or harmed
            reading.actor_danger = reading.actor_danger or danger
            reading.actor_lethal = reading.actor_lethal or (danger and (
                bool(lx.stem_hits(clause.words, lx.LETHAL)) or bool(lx.AT_THROAT.search(text))
                or any(p in text for p in lx.LETHAL_PHRASES)))
    # "Steel jaws snap shut on your leg. Blood soaks the leaves.": when the actor is in danger
    # and nobody else is said to be hurt, the blood is the actor's.
    if reading.harm and reading.actor_danger and not reading.harm_by:
        reading.actor_harm = True
    # "A flash flood sweeps you off your feet … saving your life": a danger the text shows, from
    # which the actor's life had to be saved (or was spared), was mortal. Read before the game's
    # hints: the text's own danger, not a declared one, is what the saved life qualifies.
    if reading.actor_danger and lx.LIFE_SAVED.search(lower):
        reading.actor_lethal = True
    saved = lx.ALIVE_BECAUSE.search(lower)
    if saved and not lx.SAVED_BY_YOU.search(lower):  # "you are alive because of her": it was at stake
        reading.actor_danger = reading.actor_lethal = True
    elif saved:  # "I'd be deleted without you": the speaker's life was, and an observer sees it
        reading.danger = reading.lethal = True
    if lx.SENDS_AWAY.search(lower) and lx.HOLDS_GROUND.search(lower):
        # "'Go,' you tell them, … and you brace and do not move": those sent off are shielded,
        # and the one who stays behind is in mortal danger
        for other in reading.clause_of:
            reading.acts_on[other] = "helped"
        reading.danger = reading.lethal = reading.actor_danger = reading.actor_lethal = True
    for other in turn.others:
        reading.roles.setdefault(other, "present")
    _apply_hints(turn, reading)
    said_success = bool(lx.stem_hits(plain, lx.SUCCESS))
    return _RealityRead(reading, words, frozenset(words), said_success)


_MODIFIER_AFTER = lx.DETERMINERS | {"between", "among", "of", "with", "past", "through", "over", "under"}
_OBJECTS = lx.DETERMINERS | {"it", "them", "him", "one"}


def _no_mishaps(words: list[str]) -> list[str]:
    """The words without those failure words that name no mishap: a participle describing a
    thing ("rolling between tumbling slabs of ice", "the fallen tree"), and a slide or slip
    done to something ("slides it across the tray", "slips the note under the door")."""
    out = []
    for i, word in enumerate(words):
        before = words[i - 1] if i else ""
        after = words[i + 1] if i + 1 < len(words) else ""
        if word.endswith(("ing", "en")) and before in _MODIFIER_AFTER and lx.stem_hits([word], lx.FAIL):
            continue
        if word in ("slide", "slides", "slid", "slip", "slips", "slipped") and after in _OBJECTS:
            continue
        out.append(word)
    return out


def _threat(character: str, reading: Reading) -> bool:
    return character in reading.harm_by or bool(lx.stem_hits([character], lx.DANGER))


def _read_clause(clause: Clause, reading: Reading, aliases: Aliases = ()) -> None:
    lower = clause.text.lower()
    for character in clause.named:
        said = clause.said or clause.text
        reading.clause_of[character] = (reading.clause_of[character] + " " + said
                                        if character in reading.clause_of else said)
    agent = clause.agent
    if agent is None:
        return
    w = clause.words
    verbs = dd.verbs(w)
    thwart = bool(lx.stem_hits(verbs, lx.THWART, lx.THWART_WORDS)) or bool(lx.TAKES_AWAY.search(lower))
    harm_done = dd.harm_done(w, clause.named)
    hostile = thwart or harm_done or bool(lx.stem_hits(verbs, lx.BLOCK, lx.BLOCK_WORDS)) or bool(
        oc.REFUSES.search(lower))
    amends = bool(lx.AMENDS.search(lower))
    helps = dd.helps(w) or bool(lx.JOINS_IN.search(lower)) or any(
        p in lower for p in lx.HELP_PHRASES) or dd.gives(lower, clause.named, aliases) or amends or bool(
        lx.PAYS_FOR.search(lower))
    saved = lx.ALIVE_BECAUSE.search(lower)
    if saved and lx.SAVED_BY_YOU.search(lower):
        # "I'd be deleted without you", says the one the actor saved.
        reading.acts_on[agent] = "helped"
        _set_role(reading, agent, "present")
        return
    if clause.by_actor and not saved:  # "you are alive because of him": his deed
        # The actor's own deed says nothing about the others' character.
        rescues = bool(lx.RESCUE_OTHER.search(lower)) and not harm_done
        helps = helps or rescues
        # "grab her by the collar and haul her through the doorway": the grab is the rescue's
        act = "helped" if rescues else "hostile" if hostile else "helped" if helps else "met"
        if clause.named and act != "met":
            sign = 1 if act == "helped" else -1
            shown = [t for t in tr.traits_of(w) if tr.trait_polarity(t) * sign > 0]
            if act == "hostile" and any(_threat(c, reading) for c in clause.named):
                shown = ["brave"]  # standing up to a threat (a poacher, an attacker) is brave
            reading.actor_traits.extend(t for t in shown if t not in reading.actor_traits)
        for character in clause.named:
            # a later deed outweighs an earlier meeting: "You hear the window go … You haul her
            # through the doorway"
            if reading.acts_on.get(character, "met") == "met":
                reading.acts_on[character] = act
            _set_role(reading, character, "present")
        return
    betray = (bool(lx.stem_hits(w, lx.BETRAY, lx.BETRAY_WORDS)) or any(
        p in lower for p in lx.BETRAY_PHRASES) or dd.lure(w, lower) or bool(lx.BETRAY_DEED.search(lower))
    ) and not amends
    targets = [c for c in clause.named[1:] if c != agent]
    protect = (any(p in lower for p in lx.PROTECT_PHRASES) and bool(targets)) or any(
        p in lower for p in lx.RESCUE_PHRASES) or bool(lx.RESCUE.search(lower)) or bool(saved) or (
        hostile and any(_threat(t, reading) for t in targets) and not _threat(agent, reading))
    traits = tr.traits_of(w)
    if protect:
        role = "helper"
        traits = [t for t in traits if tr.trait_polarity(t) > 0] or ["protective"]
        if "protective" not in traits:
            traits.append("protective")
        for target in targets:
            _set_role(reading, target, "hostile")
    elif betray:
        role = "betrayer"
        traits = [t for t in traits if tr.trait_polarity(t) < 0] or ["deceitful"]
    elif amends and not (thwart or harm_done):
        # "swears that your debt is struck off": the amends are what the words do, whatever verbs
        # of striking or pushing back they use
        role = "helper"
        traits = [t for t in traits if tr.trait_polarity(t) >= 0]
    elif hostile and helps and not (thwart or harm_done):
        role = "mixed"  # gruff but generous: "shoulders you off, then drops a fish at your feet"
    elif hostile:
        role = "hostile"
        traits = [t for t in traits if tr.trait_polarity(t) <= 0]
    elif helps:
        role = "helper"
        traits = [t for t in traits if tr.trait_polarity(t) >= 0]
    else:
        role = "present"
        traits = []
    if role == "helper" and amends:
        reading.amends_by.add(agent)
    if role == "hostile" and harm_done:
        reading.harm_by.add(agent)
        reading.harm = reading.danger = True
    if role == "hostile" and thwart:
        reading.thwart = True
    _set_role(reading, agent, role)
    if role != "present":
        reading.last_role = role
    known = reading.traits.setdefault(agent, [])
    known.extend(t for t in traits if t not in known)


_ROLE_RANK = {"present": 0, "helper": 1, "mixed": 2, "hostile": 3, "betrayer": 4}


def _set_role(reading: Reading, character: str, role: str) -> None:
    current = reading.roles.get(character)
    if current is None or _ROLE_RANK[role] > _ROLE_RANK[current]:
        reading.roles[character] = role
    # Someone who both helped and stood in the way in one turn is remembered as helping
    # only if the help came with a protective act; the rank above keeps the harsher role.


def _apply_hints(turn: Turn, reading: Reading) -> None:
    hint = turn.outcome
    if hint is None:
        return
    if hint.harm is not None:
        reading.harm = reading.actor_harm = hint.harm
        if hint.harm:
            reading.danger = reading.actor_danger = True
    if hint.danger is not None:
        reading.danger = hint.danger or reading.harm
        reading.actor_danger = hint.danger or reading.actor_harm


def _gap(turn: Turn, reading: Reading) -> Gap:
    if turn.outcome is not None and turn.outcome.result is not None:
        return turn.outcome.result
    roles = set(reading.roles.values())
    hostile = bool(roles & {"hostile", "betrayer"})
    helped = "helper" in roles
    if hostile and helped and reading.last_role == "helper" and not (
            reading.failure or reading.actor_harm or reading.thwart or "betrayer" in roles):
        # "Hugh rose to object … Osric counted the fine out, and the priest read on": the help
        # came last and carried it through
        return Gap.HELPED
    if (hostile and helped) or "mixed" in roles:
        return Gap.MIXED
    if hostile:
        if reading.thwart or "betrayer" in roles:
            return Gap.THWARTED
        if reading.refused:
            return Gap.BLOCKED
        if reading.success and not reading.failure and not reading.actor_harm:
            return Gap.MIXED
        return Gap.BLOCKED
    if reading.refused and not helped:
        return Gap.BLOCKED  # "a soldier … shakes his head": a no from someone the story names not
    if helped:
        # "dragged her out by the collar": hurt or not, the one pulled out was helped
        return Gap.HELPED
    if reading.actor_harm:
        # hurt with no one to blame: a mishap ("the cord snaps, and you sit down hard")
        return Gap.MIXED if reading.success and not reading.failure else Gap.FAILED
    if reading.failure:
        return Gap.MIXED if reading.success else Gap.FAILED
    if reading.setback and (reading.success or reading.harm or reading.did_it):
        return Gap.MIXED
    if reading.surprise:
        return Gap.SURPRISED
    return Gap.SUCCEEDED
