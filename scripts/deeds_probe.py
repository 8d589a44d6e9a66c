"""An experiment, not part of curator: does the local 1.5B model read who did good or harm in
a turn better than the rule reader, on prose the rules were not tuned on?

The judgement set's gold makes 4 of its 7 fields follow from the deeds: who helped, who harmed,
the feelings toward each (89% of the gold valences are "positive" for a helper, "negative" for
a harmer, "neutral" otherwise) and much of the gap (an actor someone harmed was blocked or
thwarted, one someone helped was helped). The rules read the deeds well on the stories they
were tuned on (helped / harmed 87 / 91%) and worse on the fresh ones (75 / 64%).

For every turn of the judgement stories and every character in it, this asks the model
"what did X do to someone in this turn: good, bad or none?" as one word, and reads the
probability of each word's first token (`logprobs`, `top_logprobs`). The turn's text comes
first and only the last line names the character, so the server's prompt cache reuses the
turn for each character after the first.

The gold for a character is "good" when some perceiver's gold `helped` lists it, "bad" when
some `harmed` does, else "none"; an actor nobody else perceived has no gold and is skipped.

Usage (the server of scripts/local_model.sh on 127.0.0.1:8767):
    python scripts/deeds_probe.py OUT.jsonl [STORY ...]    # resumable: turns in OUT are kept
    python scripts/deeds_probe.py OUT.jsonl --score
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import judge_probe as jp

WORDS = ("good", "bad", "none")
SYSTEM = """You read one turn of a game, as the game master tells it. You say what one character \
did to the others in this turn, with one word:
good: they helped, rescued, defended, healed, gave, shared, warned, covered for someone, or made amends
bad: they hurt, attacked, stole from, sabotaged, stopped, refused, threatened, lied to, betrayed, \
took credit from or abandoned someone
none: neither; they only watched, talked, worked or were unlucky
Answer with the word only."""


def name_of(ident: str) -> str:
    return ident.replace("_", " ").title()


def ask(turn: dict[str, Any], character: str) -> dict[str, float]:
    actor = str(turn["actor"])
    names = ", ".join(name_of(c) for c in turn["characters"])
    user = (f"Characters: {names}. In what happened, \"you\" is {name_of(actor)}.\n"
            f"{name_of(actor)} meant to: {turn['action']}\nWhat happened: {turn['reality']}\n\n"
            f"What did {name_of(character)} do to someone in this turn?")
    answer = jp.ask({"temperature": 0, "max_tokens": 1, "logprobs": True, "top_logprobs": 20,
                     "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]})
    scores = {word: -30.0 for word in WORDS}
    for entry in answer["choices"][0]["logprobs"]["content"][0]["top_logprobs"]:
        token = entry["token"].strip().lower()
        for word in WORDS:
            if token and word.startswith(token) and len(token) >= 2:
                scores[word] = max(scores[word], entry["logprob"])
    return scores


def turns(only: set[str]) -> list[dict[str, Any]]:
    out = []
    for stem, story in jp.stories(only):
        for turn in story["turns"]:
            actor = turn["actor"]
            characters = [actor, *turn.get("others", []), *turn.get("observers", [])]
            gold: dict[str, str] = {}
            for character in characters:
                good = any(character in g["helped"] for g in turn["gold"].values())
                bad = any(character in g["harmed"] for g in turn["gold"].values())
                seen_by_other = any(p != character for p in turn["gold"])
                if seen_by_other:
                    gold[character] = "bad" if bad else "good" if good else "none"
            out.append({"key": f"{stem}/{turn['id']}", "story": stem, "id": turn["id"],
                        "fresh": jp.fresh(story), "actor": actor, "characters": characters,
                        "action": turn["intent"]["action"], "reality": turn["reality"], "gold": gold})
    return out


def record(out: Path, only: set[str]) -> None:
    jp.record(out, turns(only), lambda turn: {c: ask(turn, c) for c in turn["characters"]}, field="scores",
              said=lambda scores: {c: max(s, key=s.__getitem__) for c, s in scores.items()})


def score(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    tallies: dict[str, Counter[str]] = {}
    for row in rows:
        for character, gold in row["gold"].items():
            said = max(row["scores"][character], key=row["scores"][character].__getitem__)
            for group in ("fresh" if row["fresh"] else "first", "all"):
                tally = tallies.setdefault(group, Counter())
                tally["n"] += 1
                tally["right"] += said == gold
                tally[f"{gold}->{said}"] += 1
    for group, tally in sorted(tallies.items()):
        print(f"{group:6} n={tally['n']:3} right {100 * tally['right'] / tally['n']:.1f}%  "
              + "  ".join(f"{k}:{v}" for k, v in sorted(tally.items()) if "->" in k))


if __name__ == "__main__":
    target = Path(sys.argv[1])
    named = {a for a in sys.argv[2:] if not a.startswith("-")}
    score(target) if "--score" in sys.argv else record(target, named)
