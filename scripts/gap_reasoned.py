"""An experiment, not part of curator: does the local 1.5B model read a turn's gap better when
it first says, in a few words, what was meant, what became of it and who else acted?

Asked for the gap alone (CHANGELOG 0.12.0) or as one letter (`scripts/gap_logprobs.py`), the
model answered "failed" for most turns. Here the answer is a small JSON object whose first
fields restate the turn (`meant`, `outcome`, `others`) and whose last is the gap, under the
server's json_schema grammar, greedy, with one made-up example of each gap in the system part
(none from the judgement stories). The gap is scored against the actor's gold gap of every
turn of the judgement stories, by group (the first six stories, the fresh ones).

Usage (the server of scripts/local_model.sh on 127.0.0.1:8767):
    python scripts/gap_reasoned.py OUT.jsonl [STORY ...]    # resumable: turns in OUT are kept
    python scripts/gap_reasoned.py OUT.jsonl --score [RULES.json]
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import judge_probe as jp

GAPS = ("succeeded", "failed", "blocked", "thwarted", "helped", "surprised", "mixed")
_EXAMPLES = [  # made up, none from the judgement stories: (meant, happened, meant, outcome, others, gap)
    ("sell the horse at the fair", "You lead the mare round the ring and a dealer pays your price.",
     "sell the horse", "sold at the asking price", "a dealer paid", "succeeded"),
    ("cross the pass before dark", "A rockslide buries the track; Ana turns back.",
     "cross the pass", "the track was buried, she turned back", "nobody", "failed"),
    ("see the governor", "The clerk looks at your boots and says the governor sees nobody today.",
     "see the governor", "never got in", "the clerk turned him away", "blocked"),
    ("finish the bridge", "Halfway through the work Rook cuts the ropes in the night.",
     "finish the bridge", "ruined halfway", "Rook cut the ropes", "thwarted"),
    ("carry the sacks up the hill",
     "Mo takes the heavier half without a word and you reach the top together.",
     "carry the sacks", "done, with help", "Mo carried half", "helped"),
    ("fish at the lake", "The lake is gone; where it was, a circus has set up its tents.",
     "fish", "something else was there", "nobody", "surprised"),
    ("bake bread for the feast", "The loaves rise well, but the oven scorches half of them.",
     "bake bread", "half good, half burnt", "nobody", "mixed"),
]
SYSTEM = """You read one turn of a game. A character meant to do something; the game master tells \
what happened. First say in a few words what the character meant, what became of it, and who else \
did something that mattered; then say how what happened compares with what was meant:
succeeded: it went as meant
failed: it went wrong and it is nobody's fault (a slip, bad luck, the weather, a breakdown)
blocked: someone stopped it before it began (said no, turned them away, barred the way)
thwarted: someone spoiled it while it was under way (sabotage, theft, interference)
helped: someone helped it along or did something kind for the character
surprised: something else entirely happened, neither help nor hindrance
mixed: part went well, part went badly

Examples:
""" + "\n".join(
    f'Meant: {m}. Happened: "{h}" -> ' + json.dumps({"meant": mm, "outcome": o, "others": w, "gap": g})
    for m, h, mm, o, w, g in _EXAMPLES)
SCHEMA = {"type": "object", "properties": {
    "meant": {"type": "string", "maxLength": 80}, "outcome": {"type": "string", "maxLength": 100},
    "others": {"type": "string", "maxLength": 100}, "gap": {"type": "string", "enum": list(GAPS)}},
    "required": ["meant", "outcome", "others", "gap"]}


def ask(turn: dict[str, str]) -> dict[str, Any]:
    name = turn["actor"].replace("_", " ").title()
    user = (f"Character: {name} (\"you\" in what happened is {name})\nMeant: {turn['action']}\n"
            f"Happened: \"{turn['reality']}\"\n->")
    return jp.ask_json({"temperature": 0, "max_tokens": 160, "messages": [
        {"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]}, SCHEMA)


def turns(only: set[str]) -> list[dict[str, str]]:
    out = []
    for stem, story in jp.stories(only):
        for turn in story["turns"]:
            out.append({"key": f"{stem}/{turn['id']}", "story": stem, "genre": story["genre"],
                        "id": turn["id"], "group": "fresh" if jp.fresh(story) else "first",
                        "actor": turn["actor"], "action": turn["intent"]["action"],
                        "reality": turn["reality"], "gold": turn["gold"][turn["actor"]]["gap"]})
    return out


def record(out: Path, only: set[str]) -> None:
    jp.record(out, turns(only), ask, said=lambda answer: answer.get("gap"))


def score(out: Path, rules: Path | None) -> None:
    """The model's gap right per group; with RULES (rows of the rules' readings, as
    {story, turn, char, read: {gap}}), the rules' gap of the same actors beside it."""
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    ruled = jp.rules_gaps(rules)
    tallies: dict[str, Counter[str]] = {}
    for row in rows:
        for group in (row["group"], "all"):
            tally = tallies.setdefault(group, Counter())
            tally["n"] += 1
            tally["model"] += row["answer"].get("gap") == row["gold"]
            tally["rules"] += ruled.get((row["genre"], row["id"], row["actor"])) == row["gold"]
            tally[f"said {row['answer'].get('gap')}"] += 1
    for group, tally in sorted(tallies.items()):
        print(f"{group:6} n={tally['n']:3} model {100 * tally['model'] / tally['n']:.1f}%  rules "
              f"{100 * tally['rules'] / tally['n']:.1f}%  " + " ".join(
                  f"{k[5:]}:{v}" for k, v in sorted(tally.items()) if k.startswith("said")))


if __name__ == "__main__":
    target = Path(sys.argv[1])
    if "--score" in sys.argv:
        extra = [a for a in sys.argv[2:] if not a.startswith("-")]
        score(target, Path(extra[0]) if extra else None)
    else:
        record(target, {a for a in sys.argv[2:] if not a.startswith("-")})
