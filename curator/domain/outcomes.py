"""Words for how a turn turned out that no single verb says: a no, in so many words, and
something else than what was meant. The rule reader (curator/turn/reading.py) reads them beside
the word lists of `lexicon.py`."""

from __future__ import annotations

import re

# Saying no, in so many words, or standing where the actor would pass: stopped before it began
# ("will not let him over the threshold", "will grind nothing of hers", "shakes his head",
# "fills the medbay doorway"), whatever the verbs.
REFUSES = re.compile(
    r"\b(?:will|would|does|did|do)(?: not|n't) let\b|\bwon't let\b|\brefus\w*"
    r"|\b(?:will|would)(?: not|n't)? \w+ (?:nothing|none) of\b"
    r"|\b(?:shakes|shook|shaking) (?:his|her|their) head\b|\b(?:turns?|turned) (?:you|him|her|them) away\b"
    r"|\b(?:fills?|filled|blocks?|blocked|bars?|barred) (?:the |your )?(?:\w+ )?"
    r"(?:door|doorway|gateway|way|entrance|exit|hatch)\b"
    r"|\b(?:door|gate|way)s? (?:is |was |stands? )?(?:barred|bolted)\b")
# Something else happened than what was meant, in so many words: the errand forgotten, a thing
# that happens on its own, one thing found where another was looked for ("a cryo bay, not a
# vault").
OTHERWISE = re.compile(r"\bforg(?:et|ets|etting|ot|otten)\b|\b(?:on|of) (?:its|their) own(?: accord)?\b"
                       r"|\b(?:a|an) [a-z]+(?: [a-z]+){0,2}, not (?:a|an|the) [a-z]+\b")
