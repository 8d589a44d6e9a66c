"""Retelling a turn from a perceiver's side (narration.retell): a perceiver named with a title
is "I" (title and all), a past or an -ing form takes no third-person -s, an aside or a relative
clause on the perceiver keeps the first person. The observer's prompt and memories are told in
these words. Examples written here, not taken from the eval stories."""

from __future__ import annotations

import pytest

from curator.turn.narration import retell
from curator.turn.verbs import first_person, third_person


@pytest.mark.parametrize(("told", "perceiver", "retold"), [
    ("Lt. Rook has the watch tonight.", "rook", "I have the watch tonight."),
    ("Sister Agnes, lighting the candles, hums a psalm.", "agnes", "I, lighting the candles, hum a psalm."),
    ("Ada walks in arm in arm with Lord Fenwick.", "fenwick", "Ada walks in arm in arm with me."),
    ("Ada breaks the Court Mage Orin's seal.", "orin", "Ada breaks my seal."),
    ("Up on the tower, Oda Kenji waits for the signal.", "kenji", "Up on the tower, I wait for the signal."),
    ("Then His Highness Prince Tam rides out.", "tam", "Then I ride out."),
    ("Ada thanks Captain Hale and Rook.", "rook", "Ada thanks Captain Hale and me."),
    ("Yesterday Rook went home.", "rook", "Yesterday I went home."),
])
def test_a_perceiver_named_with_a_title_is_i(told: str, perceiver: str, retold: str) -> None:
    assert retell(told, perceiver=perceiver, actor="ada") == retold


@pytest.mark.parametrize(("told", "retold"), [
    ("You swam out and drew him in.", "Mara swam out and drew him in."),
    ("You flew the skiff home before dark.", "Mara flew the skiff home before dark."),
    ("You bring the boat in.", "Mara brings the boat in."),
    ("You wade in, laughing.", "Mara wades in, laughing."),
    ("You, behind the bar, pour the ale.", "Mara, behind the bar, pours the ale."),
])
def test_an_observer_tells_the_actors_verbs_in_the_third_person(told: str, retold: str) -> None:
    assert retell(told, perceiver="rook", actor="mara") == retold


def test_an_aside_or_a_relative_clause_on_the_perceiver_stays_first_person() -> None:
    assert retell("Rook, who has seen it all, shrugs.", perceiver="rook", actor="mara") == \
        "I, who have seen it all, shrug."
    assert retell("Rook, by the door, doesn't move.", perceiver="rook", actor="mara") == \
        "I, by the door, don't move."


def test_verb_forms() -> None:
    assert [third_person(v) for v in ("flew", "stood", "shouting", "sing", "reach", "lay", "behind")] == \
        ["flew", "stood", "shouting", "sings", "reaches", "lays", "behind"]
    assert [first_person(v) for v in ("doesn't", "isn't", "hasn't", "watches")] == \
        ["don't", "am not", "haven't", "watch"]


# Written from what a user's own game showed (a town RPG, a user trial);
# each line failed before: "charge I two silver", "trapping I inside", "I pour my a free
# cider", "everies pair", "says Ilse are sorry", "Rowan tells I that", "He is I", "haul me out".
@pytest.mark.parametrize(("told", "perceiver", "actor", "retold"), [
    ("You try to charge Rowan two silver.", "rowan", "goran", "Goran tries to charge me two silver."),
    ("A beam falls across the door, trapping you inside.", "goran", "goran",
     "A beam falls across the door, trapping me inside."),
    ("Rowan tosses a coin and Marta pours her a free cider.", "marta", "elodie",
     "Rowan tosses a coin and I pour her a free cider."),
    ("You tell the jailer the forge is burning and every pair of hands is needed.", "rowan", "aldous",
     "Aldous tells the jailer the forge is burning and every pair of hands is needed."),
    ("You say you are sorry for the cell.", "rowan", "ilse", "Ilse says Ilse is sorry for the cell."),
    ("You tell Captain Ilse that Nim stole your purse.", "ilse", "rowan",
     "Rowan tells me that Nim stole Rowan's purse."),
    ("At the gate, he is Lord Derrow, envoy of Ostmark.", "derrow", "ada",
     "At the gate, he is me, envoy of Ostmark."),
    ("At eight bells Mistress Vane turns to the sun.", "vane", "ada", "At eight bells I turn to the sun."),
    ("Jody slips and Corliss hooks him under the arms and hauls him out.", "jody", "jody",
     "I slip and Corliss hooks me under the arms and hauls me out."),
    ("Eli says you will have to wait.", "eli", "mara", "I say Mara will have to wait."),
])
def test_objects_subjects_and_the_verbs_of_others(told: str, perceiver: str, actor: str, retold: str) -> None:
    assert retell(told, perceiver=perceiver, actor=actor) == retold
