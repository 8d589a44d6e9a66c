"""Synthetic game sessions for benchmarks and tests: a deterministic stream of turns.

`synthetic_turns(n, characters, seed)` draws everyday scenes and rare dangers among C
characters in a handful of places (the same stream for the same arguments), as dicts the
game would send to `Curator.observe`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from curator import display_name

# One scene a line: how many others it names ("!" marks a rare danger) | action | reality.
# {a} and {b} are the others' display names (as the interpreter finds them), {place} the place.
_SCENES = """
0 | Rest by the {place} | You lie down by the {place}. All is quiet and nothing disturbs you.
0 | Drink from the stream | You lap at the cold water. Leaves drift past; nothing else happens.
0 | Fish in the shallows | You wade in, catch a fat trout on the first try and eat it on the bank.
0 | Hunt for a big catch | After a long wait you finally haul out the biggest fish you have seen.
0 | Climb to the ledge | Your feet slip on wet moss and you fall back into the mud, unable to climb.
0 | Search for berries | Every bush is stripped bare. You go to sleep with an empty belly.
0 | Explore the far bank | For the first time you discover a hidden path behind the waterfall.
0 | Chase a rabbit | The rabbit wriggles out from under your paws and escapes into the brambles.
0 | Gather firewood | You gather an armful of dry sticks near the {place}. Nothing much happens.
1 | Fish at the river | {a} claims your fishing spot and growls until you back off with nothing.
1 | Cross the bridge | {a} stands on the bridge, bares teeth and refuses to let you pass.
1 | Look for food | {a} shows you a hidden patch of blackberries and you eat your fill.
1 | Carry water to camp | {a} helps you carry the heavy buckets the last stretch to the {place}.
1 | Rest in the den | {a} drops a fish at your feet and leaves without a word.
1 | Eat your catch | You catch a trout, but {a} snatches it from your jaws and runs off.
1 | Store berries for winter | While you sleep {a} raids your store and takes half the berries.
1 | Walk the trail | You pass {a} on the trail. {a} nods and pays no attention; that is all.
1 | Practice climbing | You slip off the first branch and {a} laughs and mocks you from below.
1 | Follow the guide | {a} promised a safe path but lured you into the bog and abandoned you.
1 | Race to the ridge | You race {a} to the ridge but stumble on loose stones and lose badly.
1 | Share a meal | You and {a} feast on ripe apples under the old tree by the {place}.
1 | Drink at the pool | {a} warns you that the ice is thin, and you drink safely from the bank.
1 | Greet a neighbour | {a} glances at you, then ignores you and watches the river.
2 | Reach the orchard | {a} blocks the path to the orchard, but {b} shows you a way round.
2 | Guard your fish | {a} tries to steal your fish; {b} chases off {a} and gives it back to you.
2 | Sit by the fire | You sit by the fire with {a} and {b}. The evening is calm and nothing happens.
2 | Cross the rocks | {a} and {b} corner you by the rocks and threaten you until you flee.
2 | Clear the den | {a} and {b} help you drag the fallen log away from your den.
2 | Bring in the harvest | You, {a} and {b} gather the whole harvest at the {place} before the rain.
0! | Cross the clearing | A poacher's rifle cracks; a bullet grazes you and you run for your life.
0! | Dig for roots | Your paw snaps into a steel trap and you nearly die before you pull free.
1! | Cross the ravine | A rockslide thunders down; {a} pulls you clear before the boulders fall.
2! | Flee the smoke | A wildfire sweeps the hill; {a} leads you out while {b} is burned and limping.
"""
Scenes = dict[int, list[tuple[str, str]]]
SCENES: Scenes = {0: [], 1: [], 2: []}
DANGERS: Scenes = {0: [], 1: [], 2: []}  # rare: 2% of turns
for _line in _SCENES.strip().splitlines():
    _kind, _action, _reality = (part.strip() for part in _line.split("|"))
    (DANGERS if _kind.endswith("!") else SCENES)[int(_kind[0])].append((_action, _reality))
THOUGHTS = ("I'm starving", "Better be careful today", "This is my chance", "Just a normal day",
            "I hope nobody bothers me", "Maybe someone will help", "I have to get this right")
PLACES = ("river", "meadow", "forest edge", "old bridge", "stream", "ridge", "orchard", "camp")
REPEAT_SUFFIXES = (" Again.", " Just like before.", " Once more.")
Scene = tuple[str, str, list[str], str]  # action, reality, others, place


def draw_scene(rng: random.Random, actor: str, last: dict[str, Scene],
               draw_others: Callable[[], list[str]]) -> Scene:
    """The actor's scene for one turn: one time in ten a near-duplicate of its last one (dedup's
    work), else `draw_others()` and a scene for that many, a danger one time in fifty. The
    random draws keep their order, so a seed gives the same session as before."""
    if actor in last and rng.random() < 0.1:
        action, reality, others, place = last[actor]
        return action, reality + rng.choice(REPEAT_SUFFIXES), others, place
    others = draw_others()
    scenes = DANGERS if rng.random() < 0.02 else SCENES
    action, reality = rng.choice(scenes[len(others)])
    place = rng.choice(PLACES)
    names = [display_name(o) for o in others] + ["", ""]
    scene = (action.format(place=place), reality.format(a=names[0], b=names[1], place=place), others, place)
    last[actor] = scene
    return scene


def synthetic_turns(n: int, characters: int, seed: int = 42) -> list[dict[str, Any]]:
    """A deterministic session: random actors, 0-2 others, 0-2 observers, 5-60 minute steps."""
    rng = random.Random(seed)
    ids = [f"npc_{i:03d}" for i in range(1, characters + 1)]
    now = datetime(2025, 1, 2, 8, 0, tzinfo=UTC)
    last: dict[str, Scene] = {}  # actor -> its previous scene
    turns: list[dict[str, Any]] = []
    for i in range(1, n + 1):
        now += timedelta(minutes=rng.randint(5, 60))
        actor = rng.choice(ids)
        pool = [c for c in ids if c != actor]

        def drawn(pool: list[str] = pool) -> list[str]:
            return rng.sample(pool, min(rng.randint(0, 2), len(pool)))

        action, reality, others, place = draw_scene(rng, actor, last, drawn)
        pool = [c for c in ids if c != actor and c not in others]
        observers = rng.sample(pool, min(rng.randint(0, 2), len(pool)))
        turns.append({"id": f"t{i:06d}", "world_time": now.isoformat().replace("+00:00", "Z"),
                      "actor": actor, "intent": {"thought": rng.choice(THOUGHTS), "action": action},
                      "reality": reality, "others": list(others), "observers": observers,
                      "place": place})
    return turns
