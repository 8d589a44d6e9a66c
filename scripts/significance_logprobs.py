"""An experiment, not part of curator: does the local 1.5B model's probability over the five
significance bands read how much a turn matters better than the band it writes?

Written greedily, Qwen2.5-Coder-1.5B answers "notable" for most turns (on the judgement set it
rates turns a careful reader calls low or high "notable" 150 times in 539 readings). This takes
each recorded first interpret request of the judgement stories (evals/fixtures/qwen1.5b/
judge_*), puts the model's own recorded answer up to `"significance": "` after the prompt (the
Qwen chat template, as the server applies it), and asks llama.cpp's native `/completion` for the
probabilities of the next token: the first token of each band. It scores three readings against
the gold band (low = trivial or minor, medium = notable, high = major or defining):

- greedy: the band the model wrote (its most likely first token);
- expected: the band of the probability-weighted mean of the bands' numbers (0.1 … 0.95);
- calibrated: the most likely band after each band's mean log-probability over all readings
  is subtracted (no label is used: the model's own average leaning is taken out).

Usage (the server of scripts/local_model.sh on 127.0.0.1:8767):
    python scripts/significance_logprobs.py OUT.jsonl [STORY ...]   # resumable
    python scripts/significance_logprobs.py OUT.jsonl --score
"""

from __future__ import annotations

import json
import math
import re
import sys
import urllib.request
from collections import Counter, defaultdict
from datetime import UTC, datetime
from pathlib import Path

import yaml

BASE = "http://127.0.0.1:8767/completion"
FIXTURES = Path("evals/fixtures/qwen1.5b")
BANDS = {"trivial": 0.1, "minor": 0.3, "notable": 0.55, "major": 0.8, "defining": 0.95}
GOLD_OF = {"trivial": "low", "minor": "low", "notable": "medium", "major": "high", "defining": "high"}
PREFIX = '"significance": "'


def chat_prompt(messages: list[dict[str, str]]) -> str:
    parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
    return "".join(parts) + "<|im_start|>assistant\n"


def band_of_token(token: str) -> str | None:
    token = token.strip().lower()
    if not token:
        return None
    found = [band for band in BANDS if band.startswith(token) or token.startswith(band)]
    return found[0] if len(found) == 1 else None


def ask(prompt: str) -> dict[str, float]:
    body = json.dumps({"prompt": prompt, "n_predict": 1, "n_probs": 40, "temperature": 0,
                       "cache_prompt": True}).encode()
    request = urllib.request.Request(BASE, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        answer = json.load(response)
    probs: dict[str, float] = defaultdict(float)
    for step in answer.get("completion_probabilities", [])[:1]:
        for alt in step.get("probs") or step.get("top_logprobs") or []:
            token = alt.get("tok_str", alt.get("token", ""))
            p = alt["prob"] if "prob" in alt else math.exp(alt["logprob"])
            band = band_of_token(token)
            if band:
                probs[band] += p
    return dict(probs)


def gold_readings(story: str) -> dict[tuple[str, str], str]:
    doc = yaml.safe_load(Path(f"evals/judge/{story}.yaml").read_text())
    gold = {}
    for turn in doc["turns"]:
        when = datetime.fromisoformat(turn["world_time"].replace("Z", "+00:00"))
        for stamp in {when.strftime("%Y-%m-%d %H:%M"), when.astimezone(UTC).strftime("%Y-%m-%d %H:%M")}:
            for who, labels in turn["gold"].items():
                gold[(who, stamp)] = labels["significance"]
    return gold


def record(out: Path, stories: list[str]) -> None:
    done = {json.loads(line)["fixture"] for line in out.read_text().splitlines()} if out.exists() else set()
    with out.open("a") as sink:
        for story in stories:
            gold = gold_readings(story)
            for path in sorted((FIXTURES / f"judge_{story}").glob("*.json")):
                fixture = json.loads(path.read_text())
                request = fixture["request"]
                first_ask = len(request["messages"]) == 2
                if not request.get("template", "").startswith("interpret.j2") or not first_ask:
                    continue  # first asks only: a retry's prompt carries the error it was told
                if path.name in done:
                    continue
                user = request["messages"][-1]["content"]
                who = re.search(r'\(id "([^"]+)"\)', user)
                when = re.search(r"What happened \(([^)]*)\)", user)
                content = fixture["response"]["json"]["choices"][0]["message"]["content"]
                if not who or not when or PREFIX not in content:
                    continue
                label = gold.get((who.group(1), when.group(1)))
                if label is None:
                    continue
                written = json.loads(content).get("significance") if content.strip().startswith("{") else None
                prompt = chat_prompt(request["messages"]) + content[:content.index(PREFIX) + len(PREFIX)]
                probs = ask(prompt)
                row = {"fixture": path.name, "story": story, "who": who.group(1), "when": when.group(1),
                       "gold": label, "written": written, "probs": probs}
                sink.write(json.dumps(row) + "\n")
                sink.flush()
                print(story, who.group(1), when.group(1), label, written,
                      {b: round(p, 2) for b, p in probs.items()}, flush=True)


def score(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    rows = [r for r in rows if r["probs"]]
    mean_log = {b: sum(math.log(max(r["probs"].get(b, 0), 1e-6)) for r in rows) / len(rows) for b in BANDS}
    by_group: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        p = {b: r["probs"].get(b, 0.0) for b in BANDS}
        total = sum(p.values()) or 1.0
        greedy = max(p, key=lambda b: p[b])
        mean = sum(BANDS[b] * p[b] / total for b in BANDS)
        expected = min(BANDS, key=lambda b: abs(BANDS[b] - mean))
        calibrated = max(BANDS, key=lambda b: math.log(max(p[b], 1e-6)) - mean_log[b])
        for group in ("all", r["story"]):
            c = by_group[group]
            c["n"] += 1
            c["written"] += GOLD_OF.get(r["written"] or "", "") == r["gold"]
            c["greedy"] += GOLD_OF[greedy] == r["gold"]
            c["expected"] += GOLD_OF[expected] == r["gold"]
            c["calibrated"] += GOLD_OF[calibrated] == r["gold"]
    for group, c in sorted(by_group.items()):
        n = c["n"]
        print(f"{group:12} n={n:4}  " + "  ".join(f"{k} {100 * c[k] / n:5.1f}%"
                                               for k in ("written", "greedy", "expected", "calibrated")))


if __name__ == "__main__":
    target = Path(sys.argv[1])
    if "--score" in sys.argv:
        score(target)
    else:
        record(target, sys.argv[2:] or [p.stem for p in sorted(Path("evals/judge").glob("*.yaml"))])
