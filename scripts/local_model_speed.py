"""Seconds a model call takes on the local server (scripts/local_model.sh), warm and cold.

Posts recorded interpret prompts of one judgement story (evals/fixtures/qwen1.5b/judge_<story>/,
in the order they were recorded) to the running server exactly as curator sends them
(json_schema mode, the answer's schema, temperature 0, max_tokens 400):

- warm: N prompts one after another, the shared system block cached from the call before;
- cold: with --cold K, K times: the server restarted (scripts/local_model.sh stop, start),
  then one prompt, whose whole prefix is new to it.

    python scripts/local_model_speed.py                 # warm, 10 prompts of the pirates story
    python scripts/local_model_speed.py --cold 3 --json

Run it on an idle machine: the server uses both cores, and anything else running slows it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from curator.turn.judgement import JudgementAnswer  # noqa: E402  (the checkout's curator)


def prompts(story: str) -> list[dict[str, Any]]:
    folder = ROOT / "evals" / "fixtures" / "qwen1.5b" / f"judge_{story}"
    recorded = [json.loads(path.read_text()) for path in folder.glob("*.json")]
    recorded.sort(key=lambda fixture: fixture["saved_at"])
    return [f["request"] for f in recorded if f["request"]["template"].startswith("interpret.j2")]


def ask(client: httpx.Client, base: str, request: dict[str, Any]) -> dict[str, Any]:
    body = {"model": request["model"], "messages": request["messages"], "temperature": 0,
            "max_tokens": 400, "response_format": {"type": "json_schema", "json_schema": {
                "name": "JudgementAnswer", "schema": JudgementAnswer.model_json_schema()}}}
    started = time.perf_counter()
    reply = client.post(f"{base}/chat/completions", json=body)
    reply.raise_for_status()
    usage = reply.json()["usage"]
    return {"seconds": round(time.perf_counter() - started, 2), "prompt_tokens": usage["prompt_tokens"],
            "cached_tokens": reply.json().get("timings", {}).get("cache_n"),
            "completion_tokens": usage["completion_tokens"]}


def restart() -> None:
    script = ROOT / "scripts" / "local_model.sh"
    subprocess.run(["bash", str(script), "stop"], check=True, capture_output=True)
    subprocess.run(["bash", str(script), "start"], check=True, capture_output=True)


def summary(calls: list[dict[str, Any]]) -> dict[str, Any]:
    seconds = [c["seconds"] for c in calls]
    return {"calls": len(calls), "mean": round(statistics.mean(seconds), 2),
            "median": round(statistics.median(seconds), 2)} if calls else {"calls": 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--story", default="pirates")
    parser.add_argument("--warm", type=int, default=10, help="warm calls (default 10)")
    parser.add_argument("--cold", type=int, default=0, help="cold calls, each after a restart (default 0)")
    parser.add_argument("--base", default="http://127.0.0.1:8767/v1")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    asked = prompts(args.story)
    if len(asked) < args.warm + args.cold + 1:
        sys.exit(f"judge_{args.story} holds {len(asked)} interpret prompts; fewer are needed")
    with httpx.Client(timeout=600) as client:
        cold = []
        for n in range(args.cold):
            restart()
            cold.append(ask(client, args.base, asked[n]))
        ask(client, args.base, asked[args.cold])  # caches the shared system block
        warm = [ask(client, args.base, request) for request in asked[args.cold + 1:][:args.warm]]
    result = {"story": args.story, "warm": summary(warm), "cold": summary(cold),
              "calls": {"warm": warm, "cold": cold}}
    if args.json:
        print(json.dumps(result, indent=1))
        return
    for name in ("cold", "warm"):
        figures = result[name]
        if figures["calls"]:
            print(f"{name}: {figures['calls']} calls, mean {figures['mean']} s, median {figures['median']} s")


if __name__ == "__main__":
    main()
