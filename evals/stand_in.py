"""A stand-in for a capable model: curator's own prompts, answered one by one by a reader.

No model better than Qwen2.5-Coder-1.5B runs on these machines, so what curator does with a
model that reads a scene well cannot be recorded from one. This script lets a reader stand in
for it (an AI helper agent, or a person): a stub OpenAI-compatible server on 127.0.0.1 takes
each chat completion curator sends, writes it to a queue directory, and waits for the reader's
answer there; curator records every exchange as fixtures, which replay like any other set.
The answers are neither a served model's (`recorded`) nor written by the developers
(`scripted`): the set's files say `"kind": "stand-in"` and name the reader.

    # one judgement story, played live against the queue, recorded into OUT
    python -m evals.stand_in run evals/judge/submarine.yaml --queue /tmp/q/submarine \\
        --out evals/fixtures/stand-in-full --reading full
    # the reader, in a loop: the next prompt (waits for it), then its answer
    python -m evals.stand_in next /tmp/q/submarine
    python -m evals.stand_in answer /tmp/q/submarine 7 '{"gap": "helped", ...}'
    # at the end: label the set's files as a stand-in's
    python -m evals.stand_in label evals/fixtures/stand-in-full --reader "..."

`run` is resumable like every recording: answers already in OUT are reused, not asked again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

WAIT = 0.5  # seconds between looks at the queue


class QueueAnswerer:
    """The stub's answerer: each request becomes `queue/<n>.json`, its answer `answers/<n>.txt`."""

    def __init__(self, directory: Path, timeout: float):
        self.directory, self.timeout = directory, timeout
        (directory / "queue").mkdir(parents=True, exist_ok=True)
        (directory / "answers").mkdir(parents=True, exist_ok=True)
        self.count = len(list((directory / "queue").glob("*.json")))

    def answered_before(self, messages: Any) -> str | None:
        """The answer already given to the same messages (a run started again after a change
        that left the prompts alone, such as the order of the answer's schema)."""
        for path in sorted((self.directory / "queue").glob("*.json")):
            answer = self.directory / "answers" / f"{path.stem}.txt"
            if answer.exists() and json.loads(path.read_text(encoding="utf-8"))["messages"] == messages:
                return answer.read_text(encoding="utf-8").strip()
        return None

    def __call__(self, body: dict[str, Any], headers: Mapping[str, str]) -> str | Any:
        from curator.testing import StubReply

        again = self.answered_before(body.get("messages"))
        if again is not None:
            return again
        self.count += 1
        n = self.count
        request = {"n": n, "template": headers.get("x-curator-template", ""),
                   "messages": body.get("messages")}
        path = self.directory / "queue" / f"{n:04d}.json"
        path.write_text(json.dumps(request, indent=1), encoding="utf-8")
        answer = self.directory / "answers" / f"{n:04d}.txt"
        deadline = time.monotonic() + self.timeout
        while not answer.exists():
            if time.monotonic() > deadline:
                return StubReply(504, {"error": {"message": "the stand-in did not answer in time"}})
            time.sleep(WAIT)
        return answer.read_text(encoding="utf-8").strip()


def run(story: Path, queue: Path, out: Path, reading: str, timeout: float) -> int:
    """Play `story` live against a stub that hands every prompt to the queue, recording into
    `out` (what the story's directory there holds and no prompt asked for any more is dropped
    at the end); prints the judgement's figures for the story as JSON."""
    from curator import ModelSettings
    from curator.evals.judge import judge, load_stories
    from curator.evals.modes import LiveMode
    from curator.testing import StubModelServer

    (queue / "done").unlink(missing_ok=True)
    with StubModelServer(QueueAnswerer(queue, timeout), model="stand-in") as stub:
        settings = ModelSettings(model="openai/stand-in", api_base=stub.url, timeout=timeout, retries=1,
                                 concurrency=1, temperature=0.0, max_tokens=600,
                                 reading="full" if reading == "full" else "brief")
        try:
            report = judge(load_stories([story]), LiveMode(settings, record=out, prune=True))
        finally:
            (queue / "done").write_text("done\n", encoding="utf-8")
    print(json.dumps(report.summary(), indent=1))
    return 0


def next_prompt(queue: Path, wait: float, *, system: bool = False) -> int:
    """Print the oldest unanswered prompt (its system message only when it differs from the
    last one printed, or always with `system`: a reader taking over a queue has not seen it),
    waiting for one; "DONE" when the run has ended."""
    deadline = time.monotonic() + wait
    seen = queue / "systems_shown"
    while True:
        pending = sorted(p for p in (queue / "queue").glob("*.json")
                         if not (queue / "answers" / f"{p.stem}.txt").exists())
        if pending:
            request = json.loads(pending[0].read_text(encoding="utf-8"))
            print(f"=== prompt {request['n']} ({request['template']})")
            for message in request["messages"]:
                text = str(message.get("content") or "")
                if message["role"] == "system":
                    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
                    shown = seen.read_text().split() if seen.exists() else []
                    if digest in shown and not system:
                        print(f"--- system: the same as shown before ({digest})")
                        continue
                    if digest not in shown:
                        seen.write_text(" ".join([*shown, digest]))
                print(f"--- {message['role']}\n{text}")
            return 0
        if (queue / "done").exists():
            print("DONE")
            return 0
        if time.monotonic() > deadline:
            print("NOTHING YET (run `next` again)")
            return 0
        time.sleep(WAIT)


def answer(queue: Path, n: int, text: str) -> int:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        print(f"not JSON: {error}; nothing saved", file=sys.stderr)
        return 1
    (queue / "answers" / f"{n:04d}.txt").write_text(text, encoding="utf-8")
    print(f"answer {n} saved")
    return 0


def label(out: Path, reader: str) -> int:
    """Mark every fixture of the set as the stand-in's, naming the reader."""
    count = 0
    for path in sorted(out.glob("*/*.json")):
        entry = json.loads(path.read_text(encoding="utf-8"))
        entry.update({"kind": "stand-in", "source": reader})
        path.write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        count += 1
    print(f"{count} fixtures labelled")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.stand_in",
                                     description=(__doc__ or "").split("\n\n")[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    p = verbs.add_parser("run", help="play a judgement story live against the queue, recording")
    p.add_argument("story", type=Path)
    p.add_argument("--queue", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--reading", choices=["brief", "full"], default="full")
    p.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for one answer")
    p = verbs.add_parser("next", help="print the next prompt waiting for an answer")
    p.add_argument("queue", type=Path)
    p.add_argument("--wait", type=float, default=120.0)
    p.add_argument("--system", action="store_true", help="print the system message even if shown before")
    p = verbs.add_parser("answer", help="save the answer to prompt N")
    p.add_argument("queue", type=Path)
    p.add_argument("n", type=int)
    p.add_argument("text")
    p = verbs.add_parser("label", help="label a recorded set as a stand-in's")
    p.add_argument("out", type=Path)
    p.add_argument("--reader", required=True)
    args = parser.parse_args(argv)
    if args.verb == "run":
        return run(args.story, args.queue, args.out, args.reading, args.timeout)
    if args.verb == "next":
        return next_prompt(args.queue, args.wait, system=args.system)
    if args.verb == "answer":
        return answer(args.queue, args.n, args.text)
    return label(args.out, args.reader)


if __name__ == "__main__":
    sys.exit(main())
