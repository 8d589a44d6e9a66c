"""Write transcripts/long_valley.jsonl: a 30-day valley story, 8 turns a day plus a few extra.

    python evals/cases/make_long_session.py          # rewrites the file (deterministic)
    python evals/cases/make_long_session.py --check  # exits 1 if the file is not what it writes

Cast: bear, wolf, fox, owl, deer, beaver and a poacher. The story's beats are written out
below with fixed, readable turn ids (`d12-flood`); long_valley.yaml checks them. Every other
slot of a day is filler drawn with a fixed seed from pools that fit the phase of the story:
ordinary solo moments (naps, drinks, preening: nothing worth remembering), Wolf hostile to
Bear before the trap and gruff but kind after it, Fox friendly before the honey theft and
scheming after, Deer and Beaver good neighbours, Owl watching. The story:

- days 1-14: Wolf keeps taking Bear's food and spots; Fox helps Bear and is trusted with the
  honey (d05); on d08 Fox steals it, Owl sees, Fox blames Wolf; Owl tells Bear (d09).
- d03: Beaver soaks Bear with his tail twice in twenty minutes (a near-duplicate).
- d12: a flash flood sweeps Deer away; Beaver drags her out onto the dam (a core memory).
- d15: Wolf is caught in the poacher's trap; Bear drives the poacher off and frees him.
- days 16-30: Wolf is gruff but protective; Fox keeps scheming (tricks Deer on d22);
  Bear snubs Fox. The last hour of d30 is at the river with Wolf.

A character who takes part in a beat and should remember it is listed among its observers
too (fixtures/transcripts/README.md); in filler scenes only the actor and Owl remember.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "transcripts" / "long_valley.jsonl"
DAYS = 30
SLOTS = ["06:00", "08:00", "10:00", "12:00", "14:00", "16:00", "18:00", "20:00"]


def turn(actor: str, action: str, thought: str, reality: str, *, others: tuple[str, ...] = (),
         observers: tuple[str, ...] = (), place: str | None = None, **outcome: Any) -> dict[str, Any]:
    t: dict[str, Any] = {"actor": actor, "intent": {"thought": thought, "action": action},
                         "reality": reality, "others": list(others), "observers": list(observers)}
    if place:
        t["place"] = place
    if outcome:
        t["outcome"] = outcome
    return t


# -- the beats: (day, time, id) → turn ---------------------------------------------------------
BEATS: dict[tuple[int, str, str], dict[str, Any]] = {
    (1, "08:00", "d01-wolf-spot"): turn(
        "bear", "Fish at my favorite spot below the bend", "Just need some fish",
        "Wolf steps out of the reeds, claims your fishing spot as his own and bares his teeth until "
        "you back off with an empty belly.", others=("wolf",), observers=("owl",), place="bend"),
    (2, "14:00", "d02-nap"): turn(
        "bear", "Nap on the flat rock", "A lazy afternoon",
        "You doze on the flat rock above the river for an hour. Nothing disturbs you.", place="flat rock"),
    (3, "10:00", "d03-tail-1"): turn(
        "bear", "Drink at the beaver pond", "The pond water is sweet",
        "Beaver slaps his tail on the water right next to you and soaks you from nose to rump. You back "
        "away from the dam, dripping.", others=("beaver",), place="beaver pond"),
    (3, "10:20", "d03-tail-2"): turn(
        "bear", "Drink at the beaver pond again", "Maybe he has calmed down",
        "Beaver slaps his tail on the water right next to you again and soaks you from nose to rump. You "
        "back away from the dam, dripping once more.", others=("beaver",), place="beaver pond"),
    (5, "12:00", "d05-honey-show"): turn(
        "bear", "Show Fox where I keep my honeycomb", "Fox has been a good friend",
        "Fox's eyes shine when you pull the moss off the hollow log and show it the dripping honeycomb. "
        "It licks a little and swears to keep your secret.", others=("fox",), place="hollow log"),
    (6, "06:00", "d06-preen"): turn(
        "owl", "Preen my feathers", "Morning again",
        "You preen your feathers one by one on your branch in the old oak. The forest below is quiet.",
        place="old oak"),
    (8, "14:00", "d08-fox-steals"): turn(
        "fox", "Raid Bear's honey stash in the hollow log", "Bear will never know",
        "You drag the whole honeycomb out of the hollow log and carry it to your earth, sweeping your "
        "tracks away with your tail.", observers=("owl",), place="hollow log"),
    (8, "18:00", "d08-honey-gone"): turn(
        "bear", "Eat from my honey stash", "A sweet supper",
        "The hollow log is empty except for sticky moss. Fox appears at your elbow and swears it saw "
        "Wolf digging around here this afternoon.", others=("fox",), observers=("fox",), place="hollow log"),
    (9, "10:00", "d09-owl-tells"): turn(
        "owl", "Tell Bear what I saw at the hollow log", "Bear should know the truth",
        "You glide down to Bear's den and tell it plainly: Fox took the honeycomb, not Wolf. Bear goes "
        "very still, then growls toward the fox earth.", others=("bear",), observers=("bear",), place="den"),
    (9, "12:00", "d09-confront"): turn(
        "bear", "Go to Fox's earth and confront it", "So it was Fox all along",
        "Honey-sticky fur and bits of comb lie at the mouth of Fox's earth. Fox laughs, calls you a slow "
        "fool and slips down its burrow before you can swipe.", others=("fox",), observers=("fox",),
        place="fox earth"),
    (10, "08:00", "d10-graze"): turn(
        "deer", "Graze in the meadow", "Fresh clover",
        "You graze on the clover at the edge of the meadow all morning. Nothing else happens.",
        place="meadow"),
    (12, "10:00", "d12-flood"): turn(
        "deer", "Drink at the river below the dam", "Just a quick drink",
        "A flash flood roars down the valley and sweeps you off your feet; you are going under. Beaver "
        "swims out, grabs you by the scruff and drags you onto the dam, saving your life.",
        others=("beaver",), observers=("beaver", "owl"), place="dam", danger=True),
    (15, "08:00", "d15-trap"): turn(
        "wolf", "Follow the deer trail toward the logging road", "Fresh deer scent",
        "Steel jaws snap shut on your foreleg with a crack. Blood soaks the snow, and then the poacher "
        "steps out of the pines and raises his rifle at you.", others=("poacher",), observers=("owl",),
        place="logging road", harm=True, danger=True),
    (15, "08:10", "d15-rescue"): turn(
        "bear", "Roar and charge the human", "Nobody shoots a wolf in my valley",
        "You burst out of the undergrowth and knock the poacher down; he drops his rifle and flees down "
        "the road. You dig out the trap stake and pry the jaws open until Wolf pulls his leg free.",
        others=("wolf", "poacher"), observers=("wolf", "owl"), place="logging road", danger=True),
    (15, "09:00", "d15-freed"): turn(
        "wolf", "Limp home after Bear", "He saved me",
        "Bear walks beside you all the way to your den and lies down outside it, guarding you while you "
        "lick your leg.", others=("bear",), place="wolf den"),
    (16, "08:00", "d16-fish-gift"): turn(
        "wolf", "Bring Bear a fish", "I owe him",
        "You drop a fat salmon at Bear's den. Bear stares at you, and you walk off before it can say "
        "anything.", others=("bear",), place="den"),
    (18, "12:00", "d18-drink"): turn(
        "bear", "Drink from the stream", "Thirsty",
        "You lap at the cold water of the stream for a while. A few leaves drift past; nothing else "
        "happens.", place="stream"),
    (20, "10:00", "d20-tracks"): turn(
        "wolf", "Show Bear where the poacher's tracks end", "Bear should know",
        "You lead Bear to the logging road and show it the boot prints and the old dried blood. From now "
        "on neither of you will use that road.", others=("bear",), observers=("owl",), place="logging road"),
    (22, "14:00", "d22-fox-tricks-deer"): turn(
        "deer", "Follow Fox to the sweet grass it promised", "Fox says it knows a secret meadow",
        "Fox leads you into a thorn thicket and runs off laughing; you tear your flank getting out, and "
        "there was never any sweet grass.", others=("fox",), observers=("fox", "owl"), place="thorn thicket"),
    (26, "16:00", "d26-gnaw"): turn(
        "beaver", "Gnaw on a willow branch", "Supper",
        "You gnaw the bark off a willow branch at the edge of the pond. Nothing much happens.",
        place="beaver pond"),
    (30, "18:00", "d30-fish-with-wolf"): turn(
        "bear", "Fish beside Wolf at the ford", "The evening run of fish",
        "Wolf takes the upper pool and you take the lower one; he noses a trout toward you when it gets "
        "away from him.", others=("wolf",), place="ford"),
    (30, "18:40", "d30-heron"): turn(
        "bear", "Watch the heron in the shallows", "What is that bird doing?",
        "A grey heron spears a frog in the shallows right in front of you, gulps it down and flaps off "
        "downstream. You have never seen a bird eat a frog whole before.", place="ford"),
}

# -- filler pools -----------------------------------------------------------------------------
SPOTS = ["lower pool", "big rock", "ford", "shallows below the bend", "falls", "gravel bar"]
FOODS = ["blackberries", "apples", "hazelnuts", "trout", "salmon", "honey mushrooms", "sweet roots"]
FORAGE = ["blackberries", "wild plums", "hazelnuts", "honey mushrooms", "sweet roots", "cloudberries"]
PLACES = ["sunny clearing", "mossy hollow", "birch grove", "fern gully", "meadow", "aspen stand"]
SOLO = [
    ("bear", "Nap in the {place}", "A lazy hour",
     "You doze in the {place} for an hour. Nothing disturbs you."),
    ("bear", "Scratch against a pine", "My back itches",
     "You rub your back against the rough bark of a pine in the {place}. The forest pays no attention."),
    ("owl", "Preen on my branch", "Feathers in order",
     "You preen on your branch above the {place}. Below you the forest is quiet."),
    ("deer", "Graze in the {place}", "Green shoots",
     "You graze quietly in the {place}. Nothing else happens."),
    ("beaver", "Patch the dam with mud", "The dam needs work",
     "You pat fresh mud onto the dam until the leak stops. Nothing else happens."),
    ("fox", "Sun myself outside my earth", "Warm fur",
     "You curl up in the sun outside your earth. A beetle walks past; that is all."),
    ("wolf", "Walk the ridge", "My land", "You walk the ridge and sniff the wind. Nothing much happens."),
    ("deer", "Drink at the spring", "Cool water",
     "You drink at the cold spring under the aspens. A jay scolds once, then all is still."),
    ("beaver", "Float in the pond", "A calm evening",
     "You float on your back in the middle of the pond and watch the clouds. Nothing else happens."),
]
WOLF_HOSTILE = [
    ("Fish at the {spot}", "Fish for supper",
     "Wolf claims the {spot} and bares his teeth until you leave with nothing."),
    ("Eat the {food} I found in the {place}", "Finally some food",
     "Wolf snatches the {food} from under your nose and trots off with it."),
    ("Rest in the {place}", "A quiet rest",
     "Wolf charges at you, snarling, and chases you out of the {place}."),
    ("Dig for roots in the {place}", "Roots will do",
     "Wolf growls from the edge of the {place} and drives you away from your digging."),
    ("Cross the river at the {spot}", "The far bank has food",
     "Wolf blocks the way across at the {spot} and will not let you pass."),
    ("Sleep in my den", "I need rest",
     "Wolf howls outside your den half the night, just to keep you awake, and laughs when you come out."),
]
WOLF_KIND = [
    ("Fish at the {spot}", "Maybe Wolf is there",
     "Wolf fishes beside you at the {spot} and leaves you the bigger fish."),
    ("Walk along the river", "A walk",
     "Wolf walks with you along the bank and warns you away from the logging road."),
    ("Go to the {spot}", "Fish time",
     "Wolf grumbles when you come near the {spot}, but he lets you stay and fish."),
    ("Rest in the {place}", "A quiet rest",
     "Wolf lies down a little way off in the {place} and keeps watch while you sleep."),
]
# Wolf's own turns with Bear: before the trap Bear is an intruder, after it a friend.
WOLF_SEES_INTRUDER = [
    ("Chase Bear off my ridge", "My land",
     "You charge Bear across the {place}, snapping at its heels until it lumbers away."),
    ("Guard the {spot} from Bear", "The fish are mine",
     "Bear comes down to the {spot}; you growl until it backs off into the trees."),
]
WOLF_SEES_FRIEND = [
    ("Check on Bear at the {spot}", "Is he all right?",
     "You find Bear fishing at the {spot} and sit nearby to keep watch for the poacher."),
    ("Share my kill with Bear", "He saved my life",
     "You drag half a hare to Bear in the {place} and drop it at its feet."),
]
FOX_FRIENDLY = [
    ("Look for {forage}", "I am hungry",
     "Fox shows you {forage} hidden in the {place} and you eat your fill."),
    ("Walk to the {place}", "Just a walk",
     "Fox warns you of a hunter's smell near the {place} and leads you around it."),
    ("Play by the river", "A fine day",
     "Fox plays with you in the shallows and helps you chase a trout onto the bank."),
]
FOX_SCHEMING = [
    ("Ignore Fox and walk on", "Not that liar again",
     "Fox trots up with a fresh story about {forage} in the {place}. You turn your back on it and walk "
     "away."),
    ("Eat the {forage} in the {place}", "Some peace at last",
     "Fox sneers at you from a log in the {place}, mocks your slow paws and runs off before you can swipe."),
    ("Drink at the stream", "Thirsty",
     "Fox muddies the water upstream on purpose and laughs while you wait for it to clear."),
]
NEIGHBOURS = [
    ("deer", "beaver", "Drink at the pond", "Thirsty",
     "Beaver shares the tender willow shoots from the pond's edge with you."),
    ("beaver", "deer", "Cut willow for the dam", "The dam needs willow",
     "Deer stamps to warn you of a lynx in the {place}, and you dive into the pond in time."),
    ("deer", "beaver", "Walk along the dam", "The meadow is on the other side",
     "Beaver shows you the safe way across the dam and you reach the meadow dry."),
    ("beaver", "deer", "Show Deer my new lodge", "It is finished at last",
     "Deer admires your new lodge and helps you drag one more branch to it."),
]


def filler(rng: random.Random, day: int) -> dict[str, Any]:
    roll = rng.random()
    fill = {"spot": rng.choice(SPOTS), "food": rng.choice(FOODS), "forage": rng.choice(FORAGE),
            "place": rng.choice(PLACES)}
    watch = ("owl",) if rng.random() < 0.25 else ()
    if roll < 0.35:
        actor, action, thought, reality = rng.choice(SOLO)
        return turn(actor, action.format(**fill), thought, reality.format(**fill), place=fill["place"])
    if roll < 0.42:
        pool = WOLF_SEES_INTRUDER if day < 15 else WOLF_SEES_FRIEND
        action, thought, reality = rng.choice(pool)
        return turn("wolf", action.format(**fill), thought, reality.format(**fill), others=("bear",),
                    observers=watch)
    if roll < 0.62:
        pool = WOLF_HOSTILE if day < 15 else WOLF_KIND
        action, thought, reality = rng.choice(pool)
        return turn("bear", action.format(**fill), thought, reality.format(**fill), others=("wolf",),
                    observers=watch)
    if roll < 0.78:
        pool = FOX_FRIENDLY if day < 8 else FOX_SCHEMING
        action, thought, reality = rng.choice(pool)
        return turn("bear", action.format(**fill), thought, reality.format(**fill), others=("fox",),
                    observers=watch)
    actor, other, action, thought, reality = rng.choice(NEIGHBOURS)
    return turn(actor, action.format(**fill), thought, reality.format(**fill), others=(other,),
                observers=watch)


def session() -> list[dict[str, Any]]:
    rng = random.Random(20250301)
    beats = {(day, time): (tid, t) for (day, time, tid), t in BEATS.items()}
    turns: list[dict[str, Any]] = []
    for day in range(1, DAYS + 1):
        times = sorted(set(SLOTS) | {time for (d, time) in beats if d == day})
        for n, time in enumerate(times, 1):
            if (day, time) in beats:
                tid, t = beats[(day, time)]
            else:
                tid, t = f"d{day:02d}-{n}", filler(rng, day)
            turns.append({"id": tid, "world_time": f"2025-03-{day:02d}T{time}:00Z", **t})
    return turns


def render() -> str:
    return "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in session())


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        same = OUT.exists() and OUT.read_text(encoding="utf-8") == text
        print(f"{OUT}: {'up to date' if same else 'differs from what this script writes'}")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} turns to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
