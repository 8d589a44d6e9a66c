"""What the judgement-set experiments in scripts/ share (deeds_probe, gap_reasoned,
emotion_gap_probe, significance_order_probe); not part of curator.

The local server they ask (scripts/local_model.sh), the judgement stories in the order they are
asked (the fresh ones first: written after all tuning, every turn held out, as
tests/test_eval_judge.py tells them), the recorded first interpret request of each reading, the
interpret answer's schema as curator sends it, and the resumable JSON-lines file each writes (a
stopped run picks up where it stopped).
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from curator.turn.judgement import JudgementAnswer

BASE = "http://127.0.0.1:8767/v1/chat/completions"
MODEL = "qwen2.5-coder-1.5b"
JUDGE = Path("evals/judge")
FIXTURES = Path("evals/fixtures/qwen1.5b")


def fresh(story: dict[str, Any]) -> bool:
    """A story written after all tuning: every turn held out."""
    return all(turn.get("split") == "test" for turn in story["turns"])


def stories(only: Iterable[str] = ()) -> Iterator[tuple[str, dict[str, Any]]]:
    """(file stem, story) of each judgement story (those named in `only`, if any), fresh first."""
    named = set(only)
    loaded = [(p.stem, yaml.safe_load(p.read_text())) for p in sorted(JUDGE.glob("*.yaml"))
              if not named or p.stem in named]
    yield from sorted(loaded, key=lambda pair: not fresh(pair[1]))


def ask(body: dict[str, Any]) -> dict[str, Any]:
    """The server's answer to one chat completion request."""
    request = urllib.request.Request(BASE, json.dumps({"model": MODEL, **body}).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return dict(json.load(response))


def ask_json(body: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The JSON object the server answers to `body` under its json_schema grammar for `schema`."""
    answer = ask({**body, "response_format": {"type": "json_schema",
                                              "json_schema": {"name": "answer", "schema": schema}}})
    return dict(json.loads(answer["choices"][0]["message"]["content"]))


def first_interprets(stem: str) -> Iterator[tuple[dict[str, Any], list[dict[str, str]]]]:
    """Each recorded interpret request of a story asked the first time (not a re-ask), with the
    answer recorded for it: (the fixture, its messages)."""
    for fixture in sorted((FIXTURES / f"judge_{stem}").glob("*.json")):
        recorded = json.loads(fixture.read_text())
        messages = recorded["request"]["messages"]
        if recorded["request"]["template"].startswith("interpret.j2") and len(messages) == 2:
            yield recorded, messages


def interpret_schema(order: Iterable[str] | None = None, **changed: dict[str, Any]) -> dict[str, Any]:
    """The interpret answer's JSON schema as curator sends it, with the properties in `changed`
    put in place of its own and, given `order`, its keys in that order."""
    schema = JudgementAnswer.model_json_schema()
    properties = {**schema["properties"], **changed}
    keys = list(order) if order is not None else list(properties)
    return {**schema, "properties": {key: properties[key] for key in keys}, "required": keys}


def rules_gaps(rows: Path | None) -> dict[tuple[str, str, str], str]:
    """The rules' gap of each reading, from a JSON list of the rules' readings ({"story": the
    genre, "turn", "char", "read": {"gap"}}), keyed by (genre, turn, perceiver); none without one."""
    if rows is None:
        return {}
    return {(r["story"], r["turn"], r["char"]): r["read"]["gap"] for r in json.loads(rows.read_text())}


def record(out: Path, items: Iterable[dict[str, Any]], answer_of: Callable[[dict[str, Any]], Any], *,
           field: str = "answer", said: Callable[[Any], Any] = lambda answer: answer) -> None:
    """Append to `out` one line per item (its "key" unique): the item but its "messages", and
    `answer_of(item)` as `field`. Keys already in `out` are not asked again."""
    done = {json.loads(line)["key"] for line in out.read_text().splitlines()} if out.exists() else set()
    with out.open("a") as sink:
        for item in items:
            if item["key"] in done:
                continue
            done.add(item["key"])
            answer = answer_of(item)
            row = {k: v for k, v in item.items() if k != "messages"}
            sink.write(json.dumps({**row, field: answer}) + "\n")
            sink.flush()
            print(item["key"], said(answer), "gold", item["gold"], flush=True)
