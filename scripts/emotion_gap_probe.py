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
import urllib.request
from collections import Counter
from pathlib import Path

import yaml

BASE = "http://127.0.0.1:8767/v1/chat/completions"
FEELINGS = {"proud": "succeeded", "calm": "succeeded", "grateful": "helped", "angry": "thwarted",
            "disappointed": "failed", "surprised": "surprised", "torn": "mixed"}
OLD_LINE = '"emotion": one word for how you feel now.'
NEW_LINE = ('"emotion": how you feel about how it went, one of: "proud" (it went as you meant), "grateful" '
            '(someone helped you or was kind), "angry" (someone stopped or spoiled it), "disappointed" (it '
            'went wrong, and nobody is to blame), "surprised" (something else happened instead), "torn" '
            '(part went well, part badly), "calm" (nothing much happened).')
FRESH = {"pirates", "kitchen", "expedition", "heist", "dungeon", "hospital", "circus", "school", "rescue",
         "caravan", "castle", "submarine", "newsroom", "filmset", "farmstead"}


def schema() -> dict[str, object]:
    return {"type": "object", "additionalProperties": False, "required": [
        "harm", "danger", "significance", "emotion", "memory"], "properties": {
        "harm": {"type": "boolean"}, "danger": {"type": "boolean"},
        "significance": {"enum": ["trivial", "minor", "notable", "major", "defining"], "type": "string"},
        "emotion": {"enum": list(FEELINGS), "type": "string"},
        "memory": {"maxLength": 160, "type": "string"}}}


def requests(only: set[str]) -> list[dict[str, object]]:
    """The first interpret request of each actor reading, with its story, turn and gold gap."""
    out = []
    paths = sorted(Path("evals/judge").glob("*.yaml"), key=lambda p: (p.stem not in FRESH, p.stem))
    for path in paths:
        if only and path.stem not in only:
            continue
        story = yaml.safe_load(path.read_text())
        turns = story["turns"]
        for fixture in sorted(Path(f"evals/fixtures/qwen1.5b/judge_{path.stem}").glob("*.json")):
            recorded = json.loads(fixture.read_text())
            messages = recorded["request"]["messages"]
            if not recorded["request"]["template"].startswith("interpret.j2") or len(messages) != 2:
                continue
            user = messages[1]["content"]
            said = re.search(r'\(id "([a-z0-9_]+)"\)', user)
            if "You meant to:" not in user or said is None:
                continue
            for turn in turns:
                if turn["actor"] == said.group(1) and turn["intent"]["action"][:40] in user and \
                        turn["reality"][:60] in user:
                    out.append({"story": path.stem, "id": turn["id"], "fresh": path.stem in FRESH,
                                "gold": turn["gold"][turn["actor"]]["gap"], "messages": messages})
                    break
    return out


def ask(messages: list[dict[str, str]]) -> dict[str, object]:
    system = messages[0]["content"]
    assert OLD_LINE in system, "the recorded prompt's feeling line changed"
    changed = [{"role": "system", "content": system.replace(OLD_LINE, NEW_LINE)}, messages[1]]
    body = {"model": "qwen2.5-coder-1.5b", "temperature": 0, "max_tokens": 400, "messages": changed,
            "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema()}}}
    request = urllib.request.Request(BASE, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.load(response)
    return dict(json.loads(answer["choices"][0]["message"]["content"]))


def record(out: Path, only: set[str]) -> None:
    done = {json.loads(line)["key"] for line in out.read_text().splitlines()} if out.exists() else set()
    seen: set[str] = set()
    with out.open("a") as sink:
        for item in requests(only):
            key = f"{item['story']}/{item['id']}"
            if key in done or key in seen:
                continue
            seen.add(key)
            answer = ask(item["messages"])  # type: ignore[arg-type]
            row = {k: v for k, v in item.items() if k != "messages"}
            sink.write(json.dumps({"key": key, **row, "answer": answer}) + "\n")
            sink.flush()
            print(key, answer.get("emotion"), item["gold"], flush=True)


def score(out: Path, rules: Path | None) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    genres = {p.stem: yaml.safe_load(p.read_text())["genre"] for p in Path("evals/judge").glob("*.yaml")}
    ruled: dict[tuple[str, str], str] = {}
    if rules is not None:
        for r in json.loads(rules.read_text()):
            ruled[(r["story"], r["turn"], r["char"])] = r["read"]["gap"]
    actors = {(p.stem, t["id"]): t["actor"] for p in Path("evals/judge").glob("*.yaml")
              for t in yaml.safe_load(p.read_text())["turns"]}
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
