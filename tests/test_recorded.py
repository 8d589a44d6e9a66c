"""The shipped transcript in model mode, replayed from fixture files through respx.

fixtures/llm/two_animals-scripted/ is scripted (python -m evals.record scripted): the stub
server answered each step with the fallback's decision, each memory marked "[scripted] ".
fixtures/llm/two_animals-qwen1.5b/ is recorded: Qwen2.5-Coder-1.5B-Instruct's real HTTP responses
(scripts/local_model_record.sh), replayed with the settings they were recorded with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, TRANSCRIPT

from curator import Curator, FixtureUnreadable
from curator.model.fixtures import FixtureStore, Replayer
from curator.model.llm import ModelSettings
from curator.turn.judgement import first_sentences
from curator.turn.perspective import mentions
from evals.record import MARK, SCRIPTED, SCRIPTED_SETTINGS

RECORDED = ROOT / "fixtures" / "llm" / "two_animals-qwen1.5b"
RECORDED_PLAY = ROOT / "fixtures" / "llm" / "two_animals-qwen1.5b.play.json"
RECORDED_SETTINGS = ModelSettings(model="openai/qwen2.5-coder-1.5b", api_base="http://127.0.0.1:8767/v1",
                                  retries=1, max_tokens=400, timeout=300, temperature=0, concurrency=1)


def turns(limit: int | None = None) -> list[str]:
    lines = [line for line in TRANSCRIPT.read_text().splitlines() if line.strip()]
    return lines[:limit]


def answers(store: FixtureStore) -> list[dict[str, Any]]:
    """The decisions inside the fixtures' response bodies."""
    found = []
    for entry in store.entries():
        content = entry["response"]["json"]["choices"][0]["message"]["content"]
        found.append({"template": entry["request"]["template"], "decision": json.loads(content)})
    return found


def test_every_fixture_file_says_what_it_is() -> None:
    for directory, kind in ((SCRIPTED, "scripted"), (RECORDED, "recorded")):
        entries = FixtureStore(directory).entries()
        assert entries, f"{directory} holds no fixtures"
        assert {e["kind"] for e in entries} == {kind}
        for entry in entries:
            assert entry["request"]["template"] and entry["request"]["messages"]
            assert "authorization" not in json.dumps(entry).lower()


def test_a_fixture_file_that_is_not_json_is_named_not_taken_for_a_server_error(tmp_path: Path) -> None:
    """Conflict markers a merge left in a fixture file made its replay a "server error"."""
    broken = tmp_path / "scripted"
    shutil.copytree(SCRIPTED, broken)
    for path in broken.glob("*.json"):
        path.write_text("<<<<<<<< HEAD\n" + path.read_text())
    first = turns(1)
    with Replayer(FixtureStore(broken)), Curator(":memory:", model=SCRIPTED_SETTINGS) as world, \
            pytest.raises(FixtureUnreadable, match=r"fixture file .*scripted/.*\.json cannot be read"):
        world.observe_many(first)
    with Replayer(FixtureStore(broken), strict=False) as lenient, \
            Curator(":memory:", model=SCRIPTED_SETTINGS) as world:
        (result,) = world.observe_many(first)
    assert lenient.missing and set(result.fallbacks_by_reason()) == {"not recorded"}


def test_the_transcript_in_model_mode_remembers_what_the_model_answered() -> None:
    store = FixtureStore(SCRIPTED)
    with Replayer(store) as replay, Curator(":memory:", model=SCRIPTED_SETTINGS) as world:
        results = world.observe_many(turns())
        calls = world.calls()
        characters = {c: world.character(c) for c in world.characters()}
    assert not replay.missing
    steps = [s for r in results for s in r.steps]
    assert len(steps) == len(calls) == len(store.entries())
    assert {s.decided_by for s in steps} == {"model"} and {c.outcome for c in calls} == {"model"}
    told = answers(store)
    contents = {first_sentences(a["decision"]["memory"]) for a in told
                if a["template"].startswith("interpret.j2@")}
    summaries = {a["decision"]["summary"] for a in told
                 if a["template"].startswith(("reconcile.j2@", "fade_review.j2@"))
                 and a["decision"].get("summary")}
    formed = [m for r in results for m in r.formed]
    # An actor's memory of a plan that went otherwise may have the plan put before the
    # model's sentence ("I meant to follow the trail, but [scripted] …": judging.with_intent).
    told_by_script = [m.content[m.content.find(MARK):] for m in formed if MARK in m.content]
    # A memory about someone the sentence does not name is in the rules' words (judging.about),
    # which name them: the scripted sentence is the rules' main memory, about one of the others.
    # So is one whose sentence tells their part the other way round from the rules' own sentence
    # (faithful.told_otherwise): the scripted sentence is about someone else, and the marker
    # before "I" makes the rule reader take the first name for the one acting (Bear's "[scripted]
    # I mean to … thank Wolf" reads as Wolf thanking).
    in_rules_words = [m for m in formed if MARK not in m.content]
    assert formed and len(in_rules_words) <= 3
    assert all(m.subject and mentions(m.content, m.subject) for m in in_rules_words)
    # (its first sentences only, when the plan made it longer than a memory's words)
    assert all(any(c.startswith(said.rstrip("…")) for c in contents) for said in told_by_script)
    assert sum(not m.content.startswith(MARK) for m in formed) <= len(formed) // 10
    bear_wolf = characters["bear"].relationships["wolf"]
    assert bear_wolf.long_term_summary in summaries
    rules_words = {m.content for m in in_rules_words}
    assert all(m.content.startswith(MARK) or m.content in rules_words
               for m in bear_wolf.recent_memories + bear_wolf.core_memories)


def test_a_real_local_model_decides_and_is_replayed_as_it_was(tmp_path: Path) -> None:
    played = json.loads(RECORDED_PLAY.read_text())
    store = FixtureStore(RECORDED)
    with Replayer(store) as replay, Curator(tmp_path / "w.db", model=RECORDED_SETTINGS) as world:
        results = world.observe_many(turns(played["turns"]))
        calls = world.calls()
        counted = world.world.turn_count()
    assert not replay.missing
    assert counted == played["turns"]  # no turn lost, whatever the model said
    fallbacks: dict[str, int] = {}
    for result in results:
        for reason, count in result.fallbacks_by_reason().items():
            fallbacks[reason] = fallbacks.get(reason, 0) + count
    assert fallbacks == played["fallbacks_by_reason"]  # the same outcome as the live run
    assert sum(1 for c in calls if c.outcome == "model") == played["decided_by_model"]
    assert all(c.model == "openai/qwen2.5-coder-1.5b" and c.attempts >= 1 for c in calls)
    # the model decided most steps itself
    assert sum(1 for c in calls if c.outcome == "model") >= 0.9 * len(calls)
    assert len(replay.served) == len(store.entries())
