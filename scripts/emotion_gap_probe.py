"""An experiment, not part of curator: does the 1.5B model tell how a turn went through the
feeling it names, when the feelings offered are one per way a plan can go?

Asked for the gap itself, the model answered "failed" for most turns (CHANGELOG 0.12.0); asked
for a free feeling word it answers "calm" or "frustrated", and "frustrated" where the rules read
success is right about a plan gone wrong (`judging.went_wrong`). This resends the recorded
interpret requests of the judgement stories' actors (`evals/fixtures/qwen1.5b/judge_*`: the
first attempt of each, as recorded, cached system part and all) with one change: the feeling is
one of seven words, each named with the way of going it stands for, under the server's
json_schema grammar (an enum). The word is then read as a gap and scored against the gold.

Usage (the server of scripts/local_model.sh on 127.0.0.1:8767):
    python scripts/emotion_gap_probe.py OUT.jsonl [STORY ...]   # resumable
    python scripts/emotion_gap_probe.py OUT.jsonl --score [RULES.json]

RULES: the rules' readings of the same turns, a JSON list of {"story" (the genre), "turn",
"char", "read": {"gap"}}, for the rules' gap of the same actors beside the model's.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import judge_probe as jp

FEELINGS = {"proud": "succeeded", "calm": "succeeded", "grateful": "helped", "angry": "thwarted",
            "disappointed": "failed", "surprised": "surprised", "torn": "mixed"}
OLD_LINE = '"emotion": one word for how you feel now.'
NEW_LINE = ('"emotion": how you feel about how it went, one of: "proud" (it went as you meant), "grateful" '
            '(someone helped you or was kind), "angry" (someone stopped or spoiled it), "disappointed" (it '
            'went wrong, and nobody is to blame), "surprised" (something else happened instead), "torn" '
            '(part went well, part badly), "calm" (nothing much happened).')
SCHEMA = jp.interpret_schema(emotion={"enum": list(FEELINGS), "type": "string"})


def requests(only: set[str]) -> list[dict[str, Any]]:
    """The first interpret request of each actor reading, with its story, turn and gold gap."""
    out = []
    for stem, story in jp.stories(only):
        for _, messages in jp.first_interprets(stem):
            user = messages[1]["content"]
            said = re.search(r'\(id "([a-z0-9_]+)"\)', user)
            if "You meant to:" not in user or said is None:
                continue
            for turn in story["turns"]:
                if turn["actor"] == said.group(1) and turn["intent"]["action"][:40] in user and \
                        turn["reality"][:60] in user:
                    out.append({"key": f"{stem}/{turn['id']}", "story": stem, "id": turn["id"],
                                "fresh": jp.fresh(story), "gold": turn["gold"][turn["actor"]]["gap"],
                                "messages": messages})
                    break
    return out


def ask(item: dict[str, Any]) -> dict[str, Any]:
    system, user = item["messages"]
    assert OLD_LINE in system["content"], "the recorded prompt's feeling line changed"
    changed = [{"role": "system", "content": system["content"].replace(OLD_LINE, NEW_LINE)}, user]
    return jp.ask_json({"temperature": 0, "max_tokens": 400, "messages": changed}, SCHEMA)


def record(out: Path, only: set[str]) -> None:
    jp.record(out, requests(only), ask, said=lambda answer: answer.get("emotion"))


def score(out: Path, rules: Path | None) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    ruled = jp.rules_gaps(rules)
    genres, actors = {}, {}
    for stem, story in jp.stories():
        genres[stem] = story["genre"]
        actors.update({(stem, t["id"]): t["actor"] for t in story["turns"]})
    tallies: dict[str, Counter[str]] = {}
    for row in rows:
        read = FEELINGS[str(row["answer"]["emotion"])]
        gold = row["gold"]
        theirs = ruled.get((genres[row["story"]], row["id"], actors[(row["story"], row["id"])]))
        for group in ("fresh" if row["fresh"] else "first", "all"):
            tally = tallies.setdefault(group, Counter())
            tally["n"] += 1
            tally["rules"] += theirs == gold
            tally["right"] += read == gold or (gold == "blocked" and read == "thwarted")
            tally["went well right"] += (read in ("succeeded", "helped")) == (gold in ("succeeded", "helped"))
            tally[f"{row['answer']['emotion']}->{gold}"] += 1
    for group, tally in sorted(tallies.items()):
        n = tally["n"]
        print(f"{group:6} n={n:3} gap right {100 * tally['right'] / n:.1f}% (angry counts for blocked "
              f"too; the rules {100 * tally['rules'] / n:.1f}%)  went well or not "
              f"{100 * tally['went well right'] / n:.1f}%")
        print("   ", " ".join(f"{k}:{v}" for k, v in sorted(tally.items()) if "->" in k))


if __name__ == "__main__":
    target = Path(sys.argv[1])
    named = {a for a in sys.argv[2:] if not a.startswith("-")}
    if "--score" in sys.argv:
        score(target, Path(sorted(named)[0]) if named else None)
    else:
        record(target, named)
