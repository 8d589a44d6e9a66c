"""The stand-in queue: each prompt curator sends waits in a directory for a reader's answer,
the reader sees each system message once, an answer already given to the same prompt is
reused, a set is labelled as a stand-in's, and a story plays through it and replays."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import ROOT
from test_eval_judge import STORY

from curator.evals.judge import judge, load_stories
from curator.evals.modes import ReplayMode
from curator.testing import FixtureStore, StubReply, release_connections
from evals.stand_in import QueueAnswerer, answer, label, main, next_prompt

SYSTEM = {"role": "system", "content": "Answer with one JSON object."}


def ask(answerer: QueueAnswerer, user: str, into: list[Any]) -> threading.Thread:
    body = {"messages": [SYSTEM, {"role": "user", "content": user}]}
    thread = threading.Thread(target=lambda: into.append(answerer(body, {"x-curator-template": "t.j2@1"})))
    thread.start()
    return thread


def waiting(queue: Path, n: int) -> None:
    deadline = time.monotonic() + 10
    while not (queue / "queue" / f"{n:04d}.json").exists():
        assert time.monotonic() < deadline, "the request never reached the queue"
        time.sleep(0.02)


def test_a_prompt_waits_for_its_answer_and_the_same_prompt_is_answered_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answerer = QueueAnswerer(tmp_path, timeout=10)
    got: list[Any] = []
    thread = ask(answerer, "You are Ada.", got)
    waiting(tmp_path, 1)
    assert next_prompt(tmp_path, wait=1) == 0
    shown = capsys.readouterr().out
    assert "=== prompt 1 (t.j2@1)" in shown and "Answer with one JSON object." in shown
    assert "You are Ada." in shown
    assert answer(tmp_path, 1, "not json") == 1 and not got  # refused, nothing saved
    assert answer(tmp_path, 1, '{"ok": true}') == 0
    thread.join(5)
    assert got == ['{"ok": true}']
    # The same messages again (a run started over): answered from the queue, not asked again.
    again: list[Any] = []
    ask(answerer, "You are Ada.", again).join(5)
    assert again == ['{"ok": true}'] and len(list((tmp_path / "queue").glob("*.json"))) == 1
    # A new prompt: the system message is not printed a second time.
    ask(answerer, "You are Bo.", got)
    waiting(tmp_path, 2)
    next_prompt(tmp_path, wait=1)
    shown = capsys.readouterr().out
    assert "the same as shown before" in shown and "Answer with one JSON object." not in shown
    # A reader taking the queue over asks for the system message again.
    assert main(["next", str(tmp_path), "--wait", "1", "--system"]) == 0
    assert "Answer with one JSON object." in capsys.readouterr().out
    answer(tmp_path, 2, "{}")
    capsys.readouterr()
    (tmp_path / "done").write_text("done\n")
    next_prompt(tmp_path, wait=1)
    assert capsys.readouterr().out.strip() == "DONE"


def test_no_answer_in_time_is_a_server_error(tmp_path: Path) -> None:
    got: list[Any] = []
    ask(QueueAnswerer(tmp_path, timeout=0.1), "You are Ada.", got).join(5)
    assert isinstance(got[0], StubReply) and got[0].status == 504


def test_a_story_plays_through_the_queue_records_and_replays(tmp_path: Path) -> None:
    story = tmp_path / "tavern.yaml"
    story.write_text(yaml.safe_dump(STORY))
    queue, out = tmp_path / "queue", tmp_path / "set"
    answers = {"Ada": {"gap": "thwarted", "others": [{"id": "bo", "did": "harmed", "feeling": "negative"}],
                       "harm": False, "danger": False, "significance": "notable", "emotion": "angry",
                       "memory": "Bo snatches the tray from my hands and throws it at the wall."},
               "Cy": {"gap": "thwarted", "others": [{"id": "ada", "did": "none", "feeling": "neutral"},
                                                    {"id": "bo", "did": "harmed", "feeling": "negative"}],
                      "harm": False, "danger": False, "significance": "minor", "emotion": "startled",
                      "memory": "Bo snatches the tray from Ada and throws it at the wall."}}

    def reader() -> None:  # a scripted reader: the answers above, by whom the prompt addresses
        answered: set[str] = set()
        while not (queue / "done").exists():
            for path in sorted((queue / "queue").glob("*.json")) if (queue / "queue").exists() else []:
                if path.stem in answered:
                    continue
                user = json.loads(path.read_text())["messages"][-1]["content"]
                name = "" if "Wipe the bar" in user else user.split(" ", 3)[2]
                reply = answers.get(name, {"gap": "succeeded", "others": [], "harm": False, "danger": False,
                                           "significance": "trivial", "emotion": "calm",
                                           "memory": "I wipe the bar as every night."})
                (queue / "answers" / f"{path.stem}.txt").write_text(json.dumps(reply))
                answered.add(path.stem)
            time.sleep(0.02)

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        assert main(["run", str(story), "--queue", str(queue), "--out", str(out), "--timeout", "20"]) == 0
    finally:
        (queue / "done").write_text("done\n")
        thread.join(5)
        release_connections()
    assert json.loads((out / "settings.json").read_text())["reading"] == "full"
    assert label(out, "a scripted reader in tests/test_stand_in.py") == 0
    entries = FixtureStore(out / "judge_tavern").entries()
    assert {e["kind"] for e in entries} == {"stand-in"}
    assert sum(e["request"]["template"].startswith("interpret_full.j2@") for e in entries) == 3
    report = judge(load_stories([story]), ReplayMode(out))
    assert report.decided_by_model == 3 and report.accuracy()["overall"] == 1.0


def test_the_shipped_stand_in_set_says_what_it_is() -> None:
    stand_in = ROOT / "evals" / "fixtures" / "stand-in-full"
    settings = json.loads((stand_in / "settings.json").read_text())
    assert settings["reading"] == "full" and settings["model"] == "openai/stand-in"
    stories = {p.stem for p in (ROOT / "evals" / "judge").glob("*.yaml")}
    assert {p.name for p in stand_in.iterdir() if p.is_dir()} == {f"judge_{s}" for s in stories}
    for directory in stand_in.iterdir():
        if directory.is_dir():
            entries = FixtureStore(directory).entries()
            assert entries and {e["kind"] for e in entries} == {"stand-in"}
            assert all("AI helper agent" in e["source"] for e in entries)
