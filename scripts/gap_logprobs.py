"""An experiment, not part of curator: can the local 1.5B model read a turn's gap from its
letter probabilities, where its written answers could not?

Asked to write the gap, Qwen2.5-Coder-1.5B answered "failed" for 88 of 94 readings (CHANGELOG
0.12.0). This asks it the same question as one letter (A-G, one per gap), takes the
log-probability of each letter from the server (`logprobs`, `top_logprobs`), and scores the
letter it finds most likely against the actor's gold gap of every judgement-set turn, raw and
calibrated (each letter's mean log-probability over three content-free turns subtracted:
"calibrate before use", Zhao et al. 2021). No label is used to calibrate.

With --as-meant it asks a yes/no question instead ("Did it go the way the character meant?")
and scores how well P(yes) ranks the turns that went well (gold succeeded or helped) above the
others (the area under the ROC curve; 0.5 is chance).

With --as-meant --json the yes/no is asked as a structured answer would be ({"went_as_meant":
true|false}, the server's json_schema grammar, greedy), as a field of the interpret answer
would be; its score is the share right (there is no probability to rank by).

Usage (the server of scripts/local_model.sh on 127.0.0.1:8767):
    python scripts/gap_logprobs.py OUT.jsonl [--as-meant]     # resumable: turns in OUT are kept
    python scripts/gap_logprobs.py OUT.jsonl --score [--as-meant]
"""

from __future__ import annotations

import json
import math
import sys
import urllib.request
from collections import Counter
from pathlib import Path

import yaml

BASE = "http://127.0.0.1:8767/v1/chat/completions"
LETTERS = {"A": "succeeded", "B": "failed", "C": "blocked", "D": "thwarted", "E": "helped",
           "F": "surprised", "G": "mixed"}
SYSTEM = """You read one turn of a game. A character meant to do something, and the game master \
tells what happened. Say how what happened compares with what the character meant, with one letter:
A: it went as meant
B: it went wrong, and it is nobody's fault (a slip, bad luck, the weather, clumsiness)
C: someone stopped it before it began (refused, barred the way, said no)
D: someone spoiled it while it was under way (sabotage, theft, interference)
E: someone helped it along, or did something kind for the character
F: something else entirely happened, neither help nor hindrance
G: part went well, part badly
Answer with the letter only."""
FRESH = {"pirates", "kitchen", "expedition", "heist", "dungeon", "hospital", "circus"}
AS_MEANT = ("You read one turn of a game. A character meant to do something, and the game master "
            "tells what happened. Did it go the way the character meant (or better)? Answer yes or no only.")
CONTENT_FREE = [("N/A", "N/A", "N/A"), ("", "", ""), ("someone", "something", "something happened")]


def ask(name: str, thought: str, action: str, reality: str) -> dict[str, float]:
    as_meant = "--as-meant" in sys.argv
    user = (f"Character: {name}\nWhat they meant to do: {action}\nWhat they were thinking: {thought}\n"
            f"What happened: {reality}\n" + ("Yes or no:" if as_meant else "Letter:"))
    if as_meant and "--json" in sys.argv:
        user = user.replace("Yes or no:", 'Answer {"went_as_meant": true or false}:')
    messages = [{"role": "system", "content": AS_MEANT if as_meant else SYSTEM},
                {"role": "user", "content": user}]
    body: dict[str, object] = {"model": "qwen2.5-coder-1.5b", "temperature": 0, "max_tokens": 1,
                               "logprobs": True, "top_logprobs": 20, "messages": messages}
    if as_meant and "--json" in sys.argv:
        schema = {"type": "object", "properties": {"went_as_meant": {"type": "boolean"}},
                  "required": ["went_as_meant"]}
        body.update(max_tokens=20, logprobs=False, response_format={
            "type": "json_schema", "json_schema": {"name": "answer", "schema": schema}})
        body.pop("top_logprobs")
    request = urllib.request.Request(BASE, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.load(response)
    if as_meant and "--json" in sys.argv:
        went = json.loads(answer["choices"][0]["message"]["content"])["went_as_meant"]
        return {"YES": 0.0 if went else -30.0, "NO": -30.0 if went else 0.0}
    top = answer["choices"][0]["logprobs"]["content"][0]["top_logprobs"]
    scores = {letter: -30.0 for letter in (("YES", "NO") if as_meant else LETTERS)}
    for entry in top:
        letter = entry["token"].strip().upper()
        if letter in scores:
            scores[letter] = max(scores[letter], entry["logprob"])
    return scores


def turns() -> list[dict[str, object]]:
    out = []
    for path in sorted(Path("evals/judge").glob("*.yaml")):
        story = yaml.safe_load(path.read_text())
        for turn in story["turns"]:
            actor = turn["actor"]
            group = "fresh" if path.stem in FRESH else turn.get("split", "dev")
            out.append({"story": path.stem, "id": turn["id"], "group": group, "actor": actor,
                        "thought": turn["intent"].get("thought", ""), "action": turn["intent"]["action"],
                        "reality": turn["reality"], "gold": turn["gold"][actor]["gap"]})
    return out


def record(out: Path) -> None:
    done = {json.loads(line)["key"] for line in out.read_text().splitlines()} if out.exists() else set()
    with out.open("a") as sink:
        for n, (thought, action, reality) in enumerate(CONTENT_FREE):
            key = f"content-free-{n}"
            if key not in done:
                scores = ask("someone", thought, action, reality)
                sink.write(json.dumps({"key": key, "scores": scores}) + "\n")
                sink.flush()
        for turn in turns():
            key = f"{turn['story']}/{turn['id']}"
            if key in done:
                continue
            name = str(turn["actor"]).replace("_", " ").title()
            scores = ask(name, str(turn["thought"]), str(turn["action"]), str(turn["reality"]))
            sink.write(json.dumps({"key": key, **turn, "scores": scores}) + "\n")
            sink.flush()
            print(key, max(scores, key=scores.__getitem__), turn["gold"], flush=True)


def auc(rows: list[dict[str, object]]) -> float:
    """How often a turn that went well gets a higher P(yes) than one that did not."""
    def margin(row: dict[str, object]) -> float:
        scores = row["scores"]
        assert isinstance(scores, dict)
        return float(scores["YES"]) - float(scores["NO"])
    good = [margin(r) for r in rows if r["gold"] in ("succeeded", "helped")]
    bad = [margin(r) for r in rows if r["gold"] not in ("succeeded", "helped")]
    pairs = [(g > b) + 0.5 * (g == b) for g in good for b in bad]
    return sum(pairs) / len(pairs) if pairs else float("nan")


def score(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    if "--as-meant" in sys.argv:
        for group in ("dev", "test", "fresh", "all"):
            chosen = [r for r in rows if "gold" in r and group in (r["group"], "all")]
            right = sum((r["scores"]["YES"] > r["scores"]["NO"]) == (r["gold"] in ("succeeded", "helped"))
                        for r in chosen)
            print(f"{group:6} n={len(chosen):3}  AUC of P(yes) for went well: {auc(chosen):.3f}  "
                  f"yes/no right {100 * right / len(chosen):.1f}%")
        return
    free = [r["scores"] for r in rows if r["key"].startswith("content-free")]
    prior = {k: sum(s[k] for s in free) / len(free) for k in LETTERS}
    groups: dict[str, Counter[str]] = {}
    picked: Counter[str] = Counter()
    for row in rows:
        if "gold" not in row:
            continue
        raw = max(row["scores"], key=row["scores"].__getitem__)
        calibrated = max(LETTERS, key=lambda k: row["scores"][k] - prior[k])
        picked[LETTERS[calibrated]] += 1
        for group in (row["group"], "all"):
            tally = groups.setdefault(group, Counter())
            tally["n"] += 1
            tally["raw"] += LETTERS[raw] == row["gold"]
            tally["calibrated"] += LETTERS[calibrated] == row["gold"]
    for group, tally in sorted(groups.items()):
        print(f"{group:6} n={tally['n']:3}  raw {100 * tally['raw'] / tally['n']:5.1f}%  "
              f"calibrated {100 * tally['calibrated'] / tally['n']:5.1f}%")
    print("calibrated picks:", dict(picked.most_common()))
    print("prior:", {k: round(v, 2) for k, v in prior.items()}, "(log-probabilities; e^x:",
          {k: round(math.exp(v), 3) for k, v in prior.items()}, ")")


if __name__ == "__main__":
    target = Path(sys.argv[1])
    score(target) if "--score" in sys.argv else record(target)
