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


# Words that start a noun phrase ("the overnight log", "my ration tray"): an intent that starts
# with one names no verb, and in an action what follows one is what it acts on.
DETERMINERS = frozenset({"the", "a", "an", "my", "your", "his", "her", "its", "their", "our",
                         "this", "that", "these", "those", "some"})


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


_STOPWORDS = frozenset({
    "the", "a", "an", "and", "or", "but", "to", "of", "in", "on", "at", "by", "for", "with", "from",
    "into", "as", "is", "it", "its", "was", "are", "be", "i", "me", "my", "you", "your", "he", "she",
    "his", "her", "him", "they", "them", "their", "this", "that", "then", "when", "while", "meant",
    "tried", "mean", "try", "so", "up", "out", "off", "over", "all", "just", "not", "no", "too",
    "very", "again", "still", "one", "has", "have", "had", "did", "does", "do", "what", "who", "there",
    "here"})


def unnegated(words: list[str]) -> tuple[list[str], list[str]]:
    """Split words into those said plainly and those a negator undoes: a word is negated when
    one of the two words before it is a negator, when it follows "out of", or when its object
    is nothing ("you find no honey", "catch nothing")."""
    plain: list[str] = []
    negated: list[str] = []
    for i, word in enumerate(words):
        before = words[max(0, i - 2):i]
        after = words[i + 1] if i + 1 < len(words) else ""
        if (any(b in NEGATORS for b in before) or before == ["out", "of"]
                or after in ("no", "nothing", "none")):
            negated.append(word)
        else:
            plain.append(word)
    return plain, negated


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


# Words that look like a stem and an ending but are words of their own: a shovel is no shove,
# a stranger no strange thing, the wind and the winter no win.
_NOT_INFLECTIONS = frozenset({"shovel", "shovels", "stranger", "strangers", "wind", "winds", "windy",
                              "window", "windows", "winter", "winters", "wink", "winks", "wince",
                              "winced", "winch", "tender", "tenders"})


@lru_cache(maxsize=65536)
def _stems_in(word: str, stems: frozenset[str]) -> frozenset[str]:
    """The stems of `stems` that `word` is (a stem plus at most three letters). Cached: the
    same words come back turn after turn, and a frozenset keeps its hash."""
    if word in _NOT_INFLECTIONS or not _stem_pattern(stems).match(word):
        return frozenset()
    return frozenset(stem for stem in stems if word.startswith(stem) and len(word) - len(stem) <= 3)


def stem_hits(words: Iterable[str], stems: frozenset[str], exact: frozenset[str] = frozenset()) -> set[str]:
    """The stems (or exact words) that occur in `words`."""
    found: set[str] = set()
    for word in words:
        if word in exact:
            found.add(word)
        elif hit := _stems_in(word, stems):
            found |= hit
    return found


# Someone stood in the way, before the action could happen.
BLOCK = frozenset({"block", "claim", "guard", "refus", "forbid", "stop", "prevent",
                   "chase", "drive", "shove", "push", "threaten", "corner", "confront", "deny",
                   "growl", "snarl", "snap", "charg", "ambush", "attack", "lung", "pounc", "swat",
                   "mock", "jeer", "taunt", "sneer", "shoulder", "knock"})
BLOCK_WORDS = frozenset({"bares", "bared", "baring", "bars", "barred", "bit", "bite", "bites",
                         "biting", "hits", "hit", "strikes", "struck", "laugh", "laughs",
                         # speaking against it: "rose at the back to object"
                         "object", "objects", "objected", "objecting", "protests", "protested"})
# The action happened, then someone spoiled or took it.
THWART = frozenset({"steal", "snatch", "grab", "ruin", "spoil", "scare", "swip", "raid", "tramp",
                    # undoing the work itself: "reverts your branch", "the severed cable"
                    "revert", "sever", "sabotag", "unplug", "disconnect", "undoes", "undid", "wreck"})
THWART_WORDS = frozenset({"stole", "stolen", "took"})
# Carrying off what the actor was after ("drags the carcass away", "plucks the letter from your
# hand"): spoiled under way, whatever the verb of carrying.
TAKES_AWAY = re.compile(r"\b(?:drags?|carr(?:y|ies)|pulls?|hauls?|plucks?|whisks?)\b[^.;:]{0,30}"
                        r"\b(?:away|off with|from your)\b")
# Turning on someone who trusted you.
# "lie"/"lies" are left out: "Wolf lies beside the bushes" is no betrayal.
BETRAY = frozenset({"betray", "trick", "deceiv", "cheat", "fool", "mislead", "abandon", "lur"})
BETRAY_WORDS = frozenset({"lied", "misled", "duped"})
BETRAY_PHRASES = ("lies to you", "lying to you", "a lie", "lied to")
# Betrayal in other words: selling someone out, taking the credit for their work, claiming to
# have made what another made, losing what one was trusted with.
BETRAY_DEED = re.compile(
    r"\b(?:sell|sells|sold|selling)\s+(?:\w+\s+)?out\b|\bsold (?:\w+ )?(?:the |her |his |your |my )?"
    r"(?:secret|code|plan|location|hiding)|\b(?:tak|took|claim|steal|stole|grab)\w*\s+(?:all\s+)?"
    r"(?:the\s+)?credit\b|\bcredit for (?:your|you)\b|\btrusted (?:you|him|her|them) with\b"
    r"|\bgambl\w*\b.{0,30}\baway\b|\b(?:has not|hasn't|never) corrected\b"
    r"|\bthe (?:fix|idea|work|call|find|plan) was (?:his|hers|theirs)\b"
    r"|\b(?:he|she|they) had (?:\w+ )?(?:it|them) (?:himself|herself|themselves)\b"
    # claiming, in one's own words, to have done alone what was done together: "I found their
    # camp myself"
    r"|\bi (?:\w+ )?(?:found|made|built|wrote|fixed|caught|tracked|solved|did|saved)\b[^.,;]{0,30}\bmyself\b"
    # handing people over to someone else: "I don't care what you do with any of them"
    r"|\b(?:don't|do not|doesn't) care what (?:you|they) do (?:with|to)\b")
# A claim made to the actor ("tells you … that there is nothing", "swears he never touched it")
# that the next words, after a "but", show the actor otherwise ("But … you can see three vials"):
# a lie, told to the actor's face.
CLAIM_TO_YOU = re.compile(r"\b(?:tells?|told|says?|said|swears?|swore|assures?|assured|insists?|insisted)"
                          r"\s+you\b.*\b(?:nothing|never|none|no one|not)\b")
SHOWN_OTHERWISE = re.compile(r"^\W*(?:but\b)?.*\byou (?:can |could )?(?:see|spot|find|notice|read)\b")
# Making amends, thanks and forgiveness: good done to the actor, whatever else the words say
# ("says he lied and is ashamed of it, and asks your pardon" is no betrayal).
AMENDS = re.compile(
    r"\b(?:sorry|apolog\w*|pardon|forgiv\w*|ashamed|amends|thank(?:s|ed)?|grateful|was wrong|owned up"
    r"|confess\w*|i lied|repa(?:y|ys|id)|pays? (?:you |it |her |him )?back"
    r"|(?:gives?|gave|slides?|slid|hands?|handed|pushes|pushed|lays?|laid) (?:\w+ ){0,4}back"
    r"|strikes? off|struck off|the correction)\b")
# A lure: leading someone somewhere, then mocking or deserting them there ("leads you into a
# thicket and runs off laughing"). Guidance alone is help; with either of these it is a trick.
GUIDE = frozenset({"lead", "guid", "show", "take"})
GUIDE_WORDS = frozenset({"led", "took", "takes"})
MOCK = frozenset({"mock", "jeer", "taunt", "sneer", "laugh", "snicker", "cackl", "smirk"})
DESERT_PHRASES = ("runs off", "ran off", "run off", "runs away", "ran away", "leaves you", "left you",
                  "slips away", "vanishes", "disappears")
# Someone made it go better.
HELP = frozenset({"help", "save", "rescu", "protect", "defend", "warn", "share", "guid", "show",
                  "lead", "offer", "assist", "comfort", "shelter", "fetch", "point", "nudg",
                  "tend", "feed"})
HELP_WORDS = frozenset({"gave", "gives", "give", "giving", "led", "brings", "brought", "carry",
                        "carries", "free", "frees", "freed", "freeing"})
# Gifts and favours said without a helping verb ("drops a fish at your feet").
HELP_PHRASES = ("at your feet", "at your den", "drops it at", "drop it at", "leaves it for",
                "steps aside to let you", "lets you", "the other end", "pitches in",
                # lending a hand, not lifting one in greeting
                "lends a hand", "lend a hand", "lent a hand", "lending a hand", "a helping hand",
                "you a hand", "him a hand", "her a hand", "them a hand",
                "for no wages", "sits with you", "beside you", "says yes", "said yes", "by name",
                "stays until", "at your side", "by your side",
                "your name on", "in your name", "keep it", "keep your", "as paid", "pays for",
                "paid for", "pays off", "paid off")
# Money put down for something ("lays three silver dollars on the bar for the man's whiskey"):
# paying for it, as "pays for" says, whatever the verb of putting.
PAYS_FOR = re.compile(r"\b(?:lays?|laid|puts?|sets?|slaps?|drops?|counts? out|counted out|leaves|left)\s+"
                      r"(?:[\w']+\s+){0,3}?(?:dollars?|coins?|pennies|penny|money|silver|gold|shillings?|"
                      r"crowns?|credits|notes|bills)\b[^.;]{0,40}?\bfor\b"
                      # "counted the fine out onto the altar step": counting money out is paying it
                      r"|\bcount(?:s|ed)?\s+(?:the|a|his|her|their|every|each)\s+(?:[\w']+\s+){0,2}?out\b")
# Moving a thing toward someone ("noses a trout toward you", "rolls the last apple over to
# Wolf"): the noun before the direction is what was passed; `deeds.gives` counts it as a
# gift when that noun is food or goods (a thrown rock is no gift, a trout that swims toward
# you is no one's gift: its noun is not last before the direction).
PASSED_TOWARD = re.compile(r"\b(?:a|an|the|some|his|her|its|their|one|half)\s+(?:[a-z']+\s+)?"
                           r"([a-z']+)\s+(?:toward|towards|over to|across to|to)\s+([a-z']+)")
# Acts on the actor that protect it, whatever else the verbs say ("guards you" vs "guards the bushes").
RESCUE_PHRASES = ("frees you", "pulls you", "drags you", "saves you", "stands between", "guards you",
                  "shields you", "protects you", "defends you", "watches over you", "covers you",
                  # the same acts going on ("lies down outside, guarding you")
                  "freeing you", "saving you", "guarding you", "shielding you", "protecting you",
                  "defending you", "watching over you")
# Rescue done to the actor, whatever the verb of pulling or getting ("hooks you under the arms
# and drags you clear", "hauls you across a saddle", "talks you out row by row").
RESCUE = re.compile(r"\b(?:drag|pull|haul|hook|yank|heave|hoist|fish|lift|carr|tear|tore|talk|wrench"
                    r"|snatch|grab|get|got|lead|led|sav)\w*\s+(?:\w+\s+){0,2}?you\s+(?:out|clear|free|loose"
                    r"|back|aboard|up|away|across|off|onto|to safety|through|from|under the arms)\b")
# Said by someone the actor saved ("I'd be deleted without you", "I'm alive because of you").
SAVED_BY_YOU = re.compile(r"\b(?:without|because of) you\b")
# The actor pulling someone else out of it ("you drag Probe's state onto a spare node").
RESCUE_OTHER = re.compile(r"\b(?:drag|pull|haul|hook|yank|heave|hoist|lift|carr|wrench|snatch)\w*\s+"
                          r"(?:[\w']+\s+){0,3}?(?:out|clear|free|loose|back|aboard|to safety|onto|across"
                          r"|through)\b")
# Acting against a third party on the actor's behalf: the agent helps, whatever the verbs say.
PROTECT_PHRASES = ("fights off", "fought off", "drives off", "drove off", "drives the", "chases off",
                   "chases away", "scares off", "scares away", "fends off", "stands between",
                   "frees you", "pulls you", "drags you", "leaps between", "saves you",
                   "tackles the", "lunges at the", "attacks the", "charges the", "bites the")
# Hiding what one does ("sweeping your tracks away", "covers its trail"): a secret, and a sign
# the doer knows the deed is wrong.
CONCEAL = re.compile(r"\b(?:sweep|cover|hid|hide|brush|eras|conceal)\w*\s+(?:\w+\s+){0,2}?"
                     r"(?:tracks|trail|traces|footprints|prints)\b|\b(?:furtive|stealthi|sneak)\w*")
IGNORE = frozenset({"ignor", "pass", "nod", "glanc", "watch", "sniff"})
# Bodily harm, and danger to life.
# States of harm: they say someone got hurt, never who did it.
HARM = frozenset({"wound", "injur", "hurt", "bleed", "maul", "clamp", "crush", "gash", "sprain",
                  "burn", "snare", "trap"})
# Harm done by someone ("the poacher shoots"); "my feet shoot out" is no wound.
AGENT_HARM = frozenset({"shoot", "shot", "stab", "fires", "maul", "wound", "injur"})
HARM_WORDS = frozenset({"blood", "bloody", "bitten", "limp", "limping"})
# Tearing or cutting a body: "you tear your flank", "the thorns rip his ear" ("tears" alone can
# be crying, so the owner of the body must follow).
HARM_BODY = re.compile(r"\b(?:tear|tears|tore|torn|rip|rips|ripped|gash|gashes|gashed|cut|cuts)\s+"
                       r"(your|my|his|her|its|their)\b")
DANGER = frozenset({"poacher", "hunter", "rifle", "gun", "trap", "snare", "fire", "flood",
                    "storm", "avalanche", "predator", "danger", "threat", "bullet",
                    "wildfire", "rockslide", "collaps", "drown", "poison", "smoke", "flame",
                    "pistol", "explos"})
# Placing or making a danger: these verbs with a danger for their object ("you set the trap",
# "you bury the steel jaws", "you light a fire", "you load the rifle") bring danger into the
# world on purpose. "Poison" is a danger whatever it is done to.
ARM_WORDS = frozenset({"set", "sets", "setting", "lay", "lays", "laying", "laid", "bait", "baits",
                       "baited", "bury", "buries", "buried", "burying", "plant", "plants", "planted",
                       "light", "lights", "lit", "lighting", "kindle", "kindles", "kindled", "start",
                       "starts", "started", "load", "loads", "loaded", "rig", "rigs", "rigged",
                       "poison", "poisons", "poisoned"})
LETHAL = frozenset({"kill", "death", "dead", "dying", "die", "lethal", "bullet", "gunshot",
                    "shot", "rifle"})
# Steel is a danger as a trap's jaws, not as a pot or a door.
DANGER_PHRASES = ("steel jaws", "steel trap", "steel teeth")


def names_danger(words: list[str], text: str) -> bool:
    """A danger in `words` (the tokens of `text`, lowercased): a danger word or phrase."""
    return bool(stem_hits(words, DANGER)) or any(p in text for p in DANGER_PHRASES)
# Mortal danger in so many words: these say there was danger, whatever else the text does.
MORTAL_PHRASES = ("nearly die", "almost die", "near death", "could have died", "bleeding out",
                  "an inch from", "a finger's width from", "goes under", "went under", "down in the smoke",
                  "fills with smoke")
# Teeth, jaws or a blade at someone's throat ("its jaw working at the collar of her scrubs",
# "a knife at his neck"): mortal, whatever else the words say.
AT_THROAT = re.compile(r"\b(?:jaws?|teeth|fangs|mouth|blade|knife|razor)\b[^.;]{0,25}?"
                       r"\b(?:at|to|on|against)\s+(?:the\s+|your\s+|his\s+|her\s+|its\s+|their\s+|my\s+)?"
                       r"(?:throat|neck|collar|jugular)\b")
# Sending the others away while holding one's ground ("'Go,' you tell them … and you brace and do
# not move"): the actor stays in the danger so that they get out, a sacrifice for them.
SENDS_AWAY = re.compile(r"[\"\u201c'](?:go|run|get out|get clear|go on|leave me|get going)\W{0,3}"
                        r"[\"\u201d']\W{0,2}you (?:tell|shout|yell|say|order|roar|snap)")
HOLDS_GROUND = re.compile(r"\byou (?:brace|hold|stand your ground|set your back|do not move|don't move)")
# "your life" only says the danger was mortal when there was one ("saving your life this
# hungry winter" is a figure of speech).
LETHAL_PHRASES = (*MORTAL_PHRASES, "your life", "for your life", "steel trap", "steel jaws",
                  "jaws of the trap")
# A life saved or spared: it was at stake.
LIFE_SAVED = re.compile(r"\b(?:sav|spar)(?:e|es|ed|ing)\s+(?:your|my|his|her|its|their)\s+life\b")
# Joining the actor's work unasked, or sharing it out: help, whatever the verbs are ("takes the
# spare brush without being asked", "'You type, I'll find the edge cases'", "between the two of
# you", "shoulder to shoulder"), and taking the actor's side ("Vigil's right").
JOINS_IN = re.compile(
    r"\bunasked\b|\bwithout being asked\b|\b(?:between )?the two of you\b|\bshoulder to shoulder\b"
    r"|\bside by side\b|\byou \w+, i'll\b|\b(?:you're|you are|\w+'s) right\b"
    # "Vigil's right.", put in the actor's second person; not "on your right"
    r"|(?<!\bon )(?<!\bto )(?<!\bat )(?<!\bby )\byour right(?=[.!'\"\u2019\u201d])"
    r"|\b(?:pours?|hands?|passes|buys?|brews?|cooks?|fetch(?:es)?|lends?|saves?) you"
    r" (?:a|an|the|some|one|half)\b"
    r"|\bpromis(?:es|ed) (?:it|that|to keep|you)\b")
# Said of a life that was at stake, danger or not in the words ("you are alive because of her",
# "I'd be deleted without you"): these need no danger in the text to be mortal.
ALIVE_BECAUSE = re.compile(
    r"\balive because of\b|\bowe (?:you|him|her|them) (?:my|your|his|her) life\b"
    r"|\bbut for (?:you|him|her|them|\w+),? (?:you|i|he|she|they)(?:'d| would)\b"
    r"|\b(?:i|you|he|she|they)(?:'d| would) (?:be|have been) (?:dead|deleted|drowned|killed|gone)\b.{0,20}"
    r"\bwithout\b")
FAIL = frozenset({"fail", "miss", "slip", "fall", "fell", "lose", "lost", "stumbl", "tumbl",
                  "escap", "vain", "useless", "sink", "untouch", "slid", "slide"})
FAIL_WORDS = frozenset({"can't", "cannot", "unable", "fled", "wriggles", "slips",
                        # things that break under the work: "the flange cracks under the wrench"
                        "cracks", "frays", "frayed", "jams", "jammed", "shatters", "shattered"})
FAIL_PHRASES = ("catch nothing", "caught nothing", "nothing to eat", "nothing in your",
                "without a single", "with no ", "empty belly", "empty-handed", "comes up empty",
                "came up empty", "empty paws", "out from under", "you give up", "gives up",
                "goes dead", "went dead")
SUCCESS = frozenset({"catch", "caught", "find", "found", "reach", "manag", "succeed", "enjoy",
                     "feast", "finish", "gather", "collect", "eat", "ate", "drink", "haul",
                     "rest", "slept", "sleep", "arriv", "win", "won", "grab", "pin"})
# Words that undo the success word right after them ("stays out of reach", "you get no honey",
# "never finds"): a negated success is a failure.
NEGATORS = frozenset({"no", "not", "never", "without", "nothing", "cannot", "can't", "don't",
                      "doesn't", "didn't", "won't", "unable", "fail", "fails", "failed", "nor"})
TRIUMPH_WORDS = frozenset({"huge", "biggest", "finally", "enormous", "giant", "record",
                           "proud", "triumph", "magnificent", "best", "perfect"})
SURPRISE = frozenset({"sudden", "unexpect", "surpris", "astonish", "startl", "instead",
                      "mysterious", "strange"})
DISCOVERY = frozenset({"discover", "hidden", "secret", "uncover", "new", "found", "find"})
# A superlative capped by "ever" ("the biggest salmon you have ever seen", "the best night of
# your life") marks a record: a first of its kind, remembered as such.
_NOT_SUPERLATIVE = "forest|nest|west|rest|chest|guest|quest|crest|interest|harvest|request|contest|honest"
RECORD = re.compile(rf"\b(?!(?:{_NOT_SUPERLATIVE})\b)(?:\w+est|best|worst|most|least)\b(?:\W+\w+){{0,6}}?"
                    r"\W+(?:ever|of (?:your|my|his|her|its|their) life)\b")
NOVELTY_PHRASES = ("first time", "never before", "never seen", "for the first", "a stranger")
INTENSE = frozenset({"furious", "terrif", "scream", "roar", "howl", "desperat", "panic",
                     "agony", "rage", "fierce", "savage", "violent", "frantic", "wild"})
QUIET_PHRASES = ("nothing happens", "nothing else", "nothing much", "uneventful", "all is quiet",
                 "quiet", "peaceful", "undisturbed", "nothing disturbs", "calm", "that is all",
                 "pays no attention", "yawn", "as ever", "as always", "as usual", "routine",
                 "nothing to report", "has moved an inch", "stay empty", "stays empty")
# A routine told as one: "as it did most clear nights", "as it has every working morning",
# "as every morning".
ROUTINE = re.compile(r"\bas (?:it|he|she|they|you|we|i) (?:does|did|do|has|have|had) (?:on )?"
                     r"(?:most|every|each)\b|\bas (?:every|each) (?:morning|night|evening|day)\b")

# Appraisal's practical lens (appraisal.py): what a character lives on and by. Short words
# are matched whole ("den" would take "denied", "map" "maple").
FOOD = frozenset({"fish", "trout", "salmon", "honey", "berr", "food", "meal", "prey", "meat",
                  "acorn", "fruit", "apple", "grain", "bread", "supper", "dinner", "breakfast",
                  "feast", "carcass", "rabbit", "deer", "mushroom", "stash", "cache", "stew", "soup",
                  "broth", "chocolate", "coffee", "biscuit", "ration"})
FOOD_WORDS = frozenset({"nut", "nuts", "egg", "eggs", "root", "roots", "catch", "seeds", "pot", "bowl"})
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
