"""An experiment, not part of curator: does the 1.5B model rate how much a turn matters better
when it first writes its memory and feeling, and rates the turn last?

The interpret answer's keys come in the order harm, danger, significance, emotion, memory, and
under the server's json_schema grammar the model writes them in that order: it rates the turn
before it has put the turn in words, and it answers "notable" for most turns (the raw band is
right for about half the judgement readings). This resends the recorded first interpret
request of each judgement reading (`evals/fixtures/qwen1.5b/judge_*`) with the keys in the
order memory, emotion, harm, danger, significance (the instructions, the examples and the
schema alike; nothing else changed) and scores the raw band (before the floors judging.py
applies) against the gold, beside the band the model recorded for the same request.

Usage (the server of scripts/local_model.sh on 127.0.0.1:8767):
    python scripts/significance_order_probe.py OUT.jsonl [STORY ...]   # resumable
    python scripts/significance_order_probe.py OUT.jsonl --score
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import judge_probe as jp

from curator.evals.judge import GOLD_BAND as BANDS

ORDER = ("memory", "emotion", "harm", "danger", "significance")
_KEY_LINE = re.compile(r'^"(harm|danger|significance|emotion|memory)":')


def reordered(system: str) -> str:
    """The system part with each key's instruction (a key's line and the lines under it) and
    each example's JSON in ORDER."""
    head, _, rest = system.partition("Answer with one JSON object, keys in this order:\n")
    keys_text, _, examples = rest.partition("\nExamples:\n")
    blocks: dict[str, list[str]] = {}
    current = ""
    for line in keys_text.strip("\n").split("\n"):
        found = _KEY_LINE.match(line)
        current = found.group(1) if found else current
        blocks.setdefault(current, []).append(line)
    lines = []
    for line in examples.strip("\n").split("\n"):
        if line.startswith("{"):
            answer = json.loads(line)
            line = json.dumps({key: answer[key] for key in ORDER})
        lines.append(line)
    return (head + "Answer with one JSON object, keys in this order:\n"
            + "\n".join(line for key in ORDER for line in blocks[key]) + "\n\nExamples:\n" + "\n".join(lines))


SCHEMA = jp.interpret_schema(ORDER)


def requests(only: set[str]) -> list[dict[str, Any]]:
    """The first interpret request of each judgement reading, its gold band and recorded band."""
    out = []
    for stem, story in jp.stories(only):
        for recorded, messages in jp.first_interprets(stem):
            user = messages[1]["content"]
            who = re.search(r'\(id "([a-z0-9_]+)"\)', user)
            if who is None:
                continue
            for turn in story["turns"]:
                if turn["reality"][:60] in user and who.group(1) in turn["gold"]:
                    content = recorded["response"]["json"]["choices"][0]["message"]["content"]
                    try:
                        was = json.loads(content).get("significance")
                    except json.JSONDecodeError:
                        was = None
                    out.append({"key": f"{stem}/{turn['id']}/{who.group(1)}", "story": stem,
                                "role": "actor" if who.group(1) == turn["actor"] else "observer",
                                "gold": turn["gold"][who.group(1)]["significance"], "was": was,
                                "messages": messages})
                    break
    return out


def ask(item: dict[str, Any]) -> dict[str, Any]:
    system, user = item["messages"]
    changed = [{"role": "system", "content": reordered(system["content"])}, user]
    return jp.ask_json({"temperature": 0, "max_tokens": 400, "messages": changed}, SCHEMA)


def record(out: Path, only: set[str]) -> None:
    jp.record(out, requests(only), ask, said=lambda answer: answer.get("significance"))


def score(out: Path) -> None:
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    tally: Counter[str] = Counter()
    for row in rows:
        now = BANDS.get(str(row["answer"].get("significance")))
        was = BANDS.get(str(row["was"]))
        for group in (row["role"], "all"):
            tally[f"{group} n"] += 1
            tally[f"{group} was"] += was == row["gold"]
            tally[f"{group} now"] += now == row["gold"]
        tally[f"now {row['answer'].get('significance')}"] += 1
        tally[f"was {row['was']}"] += 1
    for group in ("actor", "observer", "all"):
        n = tally[f"{group} n"] or 1
        print(f"{group:8} n={tally[f'{group} n']:3}  raw band right: recorded order "
              f"{100 * tally[f'{group} was'] / n:.1f}%, memory first {100 * tally[f'{group} now'] / n:.1f}%")
    print("bands:", " ".join(f"{k}:{v}" for k, v in sorted(tally.items()) if k.startswith(("now ", "was "))))


if __name__ == "__main__":
    target = Path(sys.argv[1])
    named = {a for a in sys.argv[2:] if not a.startswith("-")}
    score(target) if "--score" in sys.argv else record(target, named)
