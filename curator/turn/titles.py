"""Titles: the words a story puts before a name ("Lt. Decker", "Mother Ash", "the Court Mage
Maelis", "Her Majesty Queen Isolde"), which go with the name when narration.py retells it as
"I" or "me" for the perceiver it names ("Lt. I have the deck" was the retelling before), and
the two edits narration.py makes at the end of what it has written before a name: reading its
last word and taking an article off."""

from __future__ import annotations

# A name's titles and ranks ("Lt. Decker", "Mother Ash", "the Court Mage Maelis", "Her Majesty
# Queen Isolde"); those in _ABBREVIATIONS may end in a full stop ("Dr. Vance").
_TITLES = frozenset({"lieutenant", "doctor", "doc", "miss", "captain", "commander", "sergeant", "chief",
                     "nurse", "sister", "brother", "father", "mother", "mistress", "master", "sir", "dame",
                     "lady", "lord", "king", "queen", "prince", "princess", "sheriff", "deputy", "marshal",
                     "judge", "professor", "mage", "spymaster", "uncle", "aunt", "seaman", "private",
                     "corporal", "major", "colonel", "general", "admiral", "ensign", "officer", "agent",
                     "detective", "inspector", "constable", "reverend", "saint", "herr", "frau", "madame",
                     "monsieur", "court", "majesty", "highness"})
_ABBREVIATIONS = frozenset({"lt", "dr", "mr", "mrs", "ms", "capt", "cmdr", "sgt", "prof", "rev", "st"})


def drop_title(out: list[str], openers: frozenset[str]) -> bool:
    """Take a name's titles off the end of what is written ("Lt. ", "the Court Mage ", "Her
    Majesty Queen "), and a surname said before it after a comma ("…, Kuroda Sadamune": any
    capitalised word there but one of `openers`, the words that open a clause); True when any
    was taken."""
    dropped = ""  # the last word taken off
    while len(out) >= 2 and out[-2][:1].isupper() and out[-1] in (" ", ". "):
        word = out[-2].lower()
        abbreviated = out[-1] == ". " and word in _ABBREVIATIONS
        titled = out[-1] == " " and (word in _TITLES or (word in ("her", "his")
                                                         and dropped in ("majesty", "highness")))
        surname = (not dropped and out[-1] == " " and len(out) >= 3 and out[-3].strip() == ","
                   and word not in openers and word != "i")
        if not (abbreviated or titled or surname):
            break
        del out[-2:]
        dropped = word
    if dropped and last_word(out) == "the":
        drop_article(out)
    return dropped != ""


def last_word(out: list[str]) -> str:
    """The last word written so far, lowercased; "" after clause punctuation or at the start."""
    for part in reversed(out):
        if part[:1].isalpha():
            return part.lower()
        if any(ch in part for ch in ".;!?:,"):
            return ""
    return ""


def drop_article(out: list[str]) -> None:
    """Take the article (and the space after it) off the end of what is written."""
    while out and not out[-1][:1].isalpha():
        out.pop()
    if out:
        out.pop()
