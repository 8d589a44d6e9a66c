"""What model calls cost, read from a recorded fixture set: seconds per call with the server's
prompt cache warm and cold, tokens per call and per step, and prompt tokens per character-turn
on the shipped transcript.

    python -m evals.bench calls                        # evals/fixtures/qwen1.5b
    python -m evals.bench calls --fixtures DIR --json

llama.cpp's server reports, in every response it sends, how many prompt tokens it took from its
cache (`timings.cache_n`), how many it evaluated (`prompt_n`) and the milliseconds for each part;
the recorded responses keep them, so these figures are what the recording measured, on the
machine and under the load it ran with. A call is *warm* when the cache held at least half its
prompt (the step's unchanging system block, at least), *cold* otherwise. The schema a hosted
provider would also count (sent beside the messages, in `response_format`) is counted with
tiktoken's cl100k_base and added where the figure says "with the schema".
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from curator import Turn
from curator.testing import ALL_STEPS, token_counter

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "evals" / "fixtures" / "qwen1.5b"
TRANSCRIPT = ROOT / "fixtures" / "transcripts" / "two_animals.jsonl"
TRANSCRIPT_CASE = "long_two_animals"  # the case that plays the shipped transcript


def _calls(directory: Path) -> list[dict[str, Any]]:
    found = []
    for path in sorted(directory.glob("*/*.json")):
        entry = json.loads(path.read_text())
        body = entry.get("response", {}).get("json") or {}
        timings, usage = body.get("timings"), body.get("usage") or {}
        if not timings:
            continue
        prompt_total = timings.get("prompt_n", 0) + timings.get("cache_n", 0)
        found.append({
            "case": path.parent.name, "template": entry["request"]["template"].split("@")[0],
            "seconds": (timings.get("prompt_ms", 0.0) + timings.get("predicted_ms", 0.0)) / 1000,
            "prompt_tokens": usage.get("prompt_tokens", prompt_total),
            "completion_tokens": usage.get("completion_tokens", timings.get("predicted_n", 0)),
            "warm": prompt_total > 0 and timings.get("cache_n", 0) >= prompt_total / 2})
    return found


def _mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 2) if values else None


def schema_tokens() -> dict[str, int]:
    count = token_counter()
    return {step.template: count(json.dumps(step.asks.model_json_schema())) for step in ALL_STEPS}


def character_turns() -> int:
    turns = [Turn.model_validate_json(line) for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    return sum(len(t.perceivers) for t in turns)


def bench_calls(directory: Path = DEFAULT) -> dict[str, Any]:
    calls = _calls(directory)
    if not calls:
        raise SystemExit(f"no recorded llama.cpp responses (with timings) under {directory}")
    schemas = schema_tokens()
    by_step: dict[str, Any] = {}
    for template in sorted({c["template"] for c in calls}):
        mine = [c for c in calls if c["template"] == template]
        by_step[template] = {
            "calls": len(mine),
            "warm_seconds": _mean([c["seconds"] for c in mine if c["warm"]]),
            "cold_seconds": _mean([c["seconds"] for c in mine if not c["warm"]]),
            "prompt_tokens": _mean([c["prompt_tokens"] for c in mine]),
            "completion_tokens": _mean([c["completion_tokens"] for c in mine]),
            "schema_tokens": schemas.get(template)}
    shipped = [c for c in calls if c["case"] == TRANSCRIPT_CASE]
    perceived = character_turns()
    prompt = sum(c["prompt_tokens"] for c in shipped)
    with_schema = prompt + sum(schemas.get(c["template"], 0) for c in shipped)
    return {
        "fixtures": str(directory), "calls": len(calls),
        "warm": {"calls": sum(c["warm"] for c in calls),
                 "mean_seconds": _mean([c["seconds"] for c in calls if c["warm"]])},
        "cold": {"calls": sum(not c["warm"] for c in calls),
                 "mean_seconds": _mean([c["seconds"] for c in calls if not c["warm"]])},
        "by_step": by_step,
        "transcript": {"calls": len(shipped), "character_turns": perceived,
                       "prompt_tokens_per_character_turn": round(prompt / perceived, 1) if shipped else None,
                       "with_schema": round(with_schema / perceived, 1) if shipped else None,
                       "target": 1000}}


def format_calls(r: dict[str, Any]) -> str:
    t = r["transcript"]
    lines = [f"model calls recorded in {r['fixtures']}: {r['calls']}",
             f"  warm (prompt cache held >= half the prompt): {r['warm']['calls']} calls, "
             f"mean {r['warm']['mean_seconds']} s",
             f"  cold: {r['cold']['calls']} calls, mean {r['cold']['mean_seconds']} s",
             "  step             calls  warm s  cold s  prompt  completion  schema"]
    for template, s in r["by_step"].items():
        lines.append(f"  {template:<16} {s['calls']:>5}  {s['warm_seconds'] or '-':>6}  "
                     f"{s['cold_seconds'] or '-':>6}  {s['prompt_tokens']:>6}  {s['completion_tokens']:>10}  "
                     f"{s['schema_tokens'] or '-':>6}")
    lines.append(f"shipped transcript ({TRANSCRIPT_CASE}): {t['calls']} calls over {t['character_turns']} "
                 f"character-turns: {t['prompt_tokens_per_character_turn']} prompt tokens per "
                 f"character-turn, {t['with_schema']} with the schema (target <= {t['target']})")
    return "\n".join(lines)
