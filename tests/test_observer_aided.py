"""An observer the actor's deed was done to is no bystander, with a model as without one: Wolf,
caught in a trap, watching Bear pry its jaws open, remembers a kindness from Bear and warms
to him as one who was helped (judging.interpretation_from, as fallback._observer_drafts).
The model's answers here are scripted, served through respx."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from conftest import MODEL_BASE, chat

from curator import Curator
from curator.model.llm import ModelSettings

RESCUE = {"id": "r1", "world_time": "2025-03-15T08:10:00Z", "actor": "bear", "others": ["poacher"],
          "observers": ["wolf"], "intent": {"thought": "", "action": "Roar and charge the human"},
          "reality": "You burst out of the undergrowth and knock the poacher down; he drops his rifle and "
                     "flees down the road. You dig out the trap stake and pry the jaws open until Wolf "
                     "pulls his leg free."}
# Scripted answers (written for this test): the wolf's in its own words, naming Bear.
ANSWERS = {"bear": {"harm": False, "danger": True, "significance": "major", "emotion": "fierce",
                    "memory": "I knocked the poacher down and freed Wolf from the trap."},
           "wolf": {"harm": True, "danger": True, "significance": "major", "emotion": "grateful",
                    "memory": "Bear knocked the poacher down and pried the trap open for me."}}


def _respond(request: httpx.Request) -> httpx.Response:
    if not request.headers["x-curator-template"].startswith("interpret.j2@"):
        return httpx.Response(200, json=chat(None, refusal="scripted: only interpret is answered here"))
    user = json.loads(request.content)["messages"][-1]["content"]
    who = "wolf" if user.startswith("You are Wolf") else "bear"
    return httpx.Response(200, json=chat(json.dumps(ANSWERS[who])))


def _wolf_after_the_rescue(path: Path, model: ModelSettings | None) -> tuple[Any, float, str]:
    with respx.mock(assert_all_called=False) as router, Curator(path, model=model) as world:
        router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=_respond)
        result = world.observe(RESCUE)
        feeling = world.character("wolf").relationships["bear"].current_sentiment
    (memory,) = [m for m in result.formed if m.owner == "wolf" and m.subject == "bear"]
    step = next(s for s in result.steps if s.character == "wolf")
    return memory, feeling, step.decided_by


def test_the_rescued_observer_remembers_a_kindness_and_warms_as_the_helped(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    memory, sentiment, by = _wolf_after_the_rescue(tmp_path / "model.db", model_settings)
    assert by == "model" and memory.content == ANSWERS["wolf"]["memory"]
    assert memory.kind == "kindness" and memory.importance == pytest.approx(0.8)
    assert sentiment == pytest.approx(0.15 + 0.45 * 0.8, abs=0.01)  # an actor's weight, not 0.1 + 0.2 × 0.8
    # the rules file it so too
    rules_memory, rules_sentiment, rules_by = _wolf_after_the_rescue(tmp_path / "rules.db", None)
    assert rules_by == "fallback" and rules_memory.kind == "kindness" and rules_sentiment > 0.3
