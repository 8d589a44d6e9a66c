"""With a model the turn is filed as the rules file it; only the rating and the sentence are the
model's (judging.interpretation_from). An observer the actor's deed was done to is no bystander:
Wolf, caught in a trap, watching Bear pry its jaws open, remembers a kindness from Bear and warms
to him as one who was helped (as fallback._observer_drafts). An actor in danger itself remembers
that of itself too, beside what the others did (as fallback._self_draft). The model's answers
here are scripted, served through respx."""

from __future__ import annotations

import json
from collections.abc import Callable
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


def interpret_only(answer: Callable[[str], dict[str, Any]]) -> Callable[[httpx.Request], httpx.Response]:
    """A scripted model: interpret gets `answer(the user message)`; every other step is refused."""
    def respond(request: httpx.Request) -> httpx.Response:
        if not request.headers["x-curator-template"].startswith("interpret.j2@"):
            return httpx.Response(200, json=chat(None, refusal="scripted: only interpret is answered here"))
        user = json.loads(request.content)["messages"][-1]["content"]
        return httpx.Response(200, json=chat(json.dumps(answer(user))))
    return respond


def played(path: Path, model: ModelSettings | None, respond: Callable[[httpx.Request], httpx.Response],
           *turns: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """Play `turns` into a world at `path`, with `model` answered by `respond` (or the rules);
    the last turn's result, and each character as the world then holds it."""
    with respx.mock(assert_all_called=False) as router, Curator(path, model=model) as world:
        router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=respond)
        results = [world.observe(turn) for turn in turns]
        characters = {c: world.character(c) for c in world.characters()}
    return results[-1], characters


def _wolf_after_the_rescue(path: Path, model: ModelSettings | None,
                           wolf: dict[str, Any] = ANSWERS["wolf"]) -> tuple[Any, float, str]:
    respond = interpret_only(lambda user: wolf if user.startswith("You are Wolf") else ANSWERS["bear"])
    with respx.mock(assert_all_called=False) as router, Curator(path, model=model) as world:
        router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=respond)
        result = world.observe(RESCUE)
        feeling = world.character("wolf").relationships["bear"].current_sentiment
    (memory,) = [m for m in result.formed if m.owner == "wolf" and m.subject == "bear"]
    step = next(s for s in result.steps if s.character == "wolf")
    return memory, feeling, step.decided_by


def test_the_rescued_observer_remembers_a_kindness_and_warms_as_the_helped(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    memory, sentiment, by = _wolf_after_the_rescue(tmp_path / "model.db", model_settings)
    assert by == "model" and memory.content == ANSWERS["wolf"]["memory"]
    # the model said "major"; a rescue from mortal danger is "defining" (judging.rescue_floor)
    # the rules file it so too, and their number stands: it is in the model's band
    rules_memory, rules_sentiment, rules_by = _wolf_after_the_rescue(tmp_path / "rules.db", None)
    assert rules_by == "fallback" and rules_memory.kind == "kindness" and rules_sentiment > 0.3
    assert memory.kind == "kindness" and memory.importance == rules_memory.importance >= 0.95
    # an actor's weight at that number, not a bystander's 0.1 + 0.2 × it
    assert sentiment == pytest.approx(0.15 + 0.45 * rules_memory.importance, abs=0.01)
    assert sentiment == pytest.approx(rules_sentiment)


@pytest.mark.parametrize("rated", ["minor", "notable", "major", "defining"])
def test_a_rescue_from_mortal_danger_is_defining_to_the_rescued_however_the_model_rates_it(
        tmp_path: Path, model_settings: ModelSettings, rated: str) -> None:
    # Qwen2.5-Coder-1.5B rated Wolf's rescue "notable" (evals/fixtures/qwen1.5b/long_valley)
    wolf = {**ANSWERS["wolf"], "significance": rated}
    result, _ = played(tmp_path / "w.db", model_settings, interpret_only(
        lambda user: wolf if user.startswith("You are Wolf") else ANSWERS["bear"]), RESCUE)
    reading = next(r for r in result.readings if r.character == "wolf")
    assert reading.decided_by == "model" and reading.significance == "defining"


def test_a_watched_rescue_is_not_lifted_for_a_bystander(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    owl = {**ANSWERS["wolf"], "significance": "notable", "memory": "Bear freed Wolf from the poacher's trap."}
    watched = {**RESCUE, "observers": ["wolf", "owl"]}
    result, _ = played(tmp_path / "w.db", model_settings, interpret_only(
        lambda user: owl if user.startswith("You are Owl") else ANSWERS["bear"]), watched)
    assert next(r for r in result.readings if r.character == "owl").significance == "notable"


def test_a_sentence_that_tells_the_rescuer_as_the_one_who_hurt_is_put_in_the_rules_words(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    # Scripted: a copy of Qwen2.5-Coder-1.5B's answer for Wolf (evals/fixtures/qwen1.5b/long_valley),
    # which gives Wolf the poacher's part and Bear the poacher's blow.
    recorded = {**ANSWERS["wolf"], "memory": "I was knocked down by Bear and dropped my rifle. I had to pull "
                                             "my leg free to escape."}
    memory, sentiment, by = _wolf_after_the_rescue(tmp_path / "w.db", model_settings, recorded)
    assert by == "model" and memory.kind == "kindness" and sentiment > 0.5
    assert "rifle" in memory.content and "knocked down by" not in memory.content  # the rules' words
    assert memory.content.startswith("Bear") and "poacher" in memory.content


def test_a_sentence_that_tells_the_rescuer_as_the_rescuer_stands(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    told = {**ANSWERS["wolf"], "memory": "Bear saved me from the poacher and pried the jaws open."}
    memory, _, _ = _wolf_after_the_rescue(tmp_path / "w.db", model_settings, told)
    assert memory.content == told["memory"]


FLOOD = {"id": "d12", "world_time": "2025-03-12T10:00:00Z", "actor": "deer", "others": ["beaver"],
         "intent": {"thought": "Just a quick drink", "action": "Drink at the river below the dam"},
         "reality": "A flash flood roars down the valley and sweeps you off your feet; you are going "
                    "under. Beaver swims out, grabs you by the scruff and drags you onto the dam, saving "
                    "your life."}


# Scripted: a copy of Qwen2.5-Coder-1.5B's answer to this turn (evals/fixtures/qwen1.5b/long_valley)
_flood_respond = interpret_only(lambda user: {
    "harm": True, "danger": True, "significance": "defining", "emotion": "grateful",
    "memory": "I nearly drowned at the dam, but Beaver saved my life by swimming out and dragging me "
              "onto the dam."})


@pytest.mark.parametrize("with_model", [True, False])
def test_an_actor_in_danger_remembers_it_of_itself_beside_the_rescuer(
        tmp_path: Path, model_settings: ModelSettings, with_model: bool) -> None:
    result, _ = played(tmp_path / "w.db", model_settings if with_model else None, _flood_respond, FLOOD)
    kinds = {(m.subject, m.kind) for m in result.formed if m.owner == "deer"}
    assert kinds == {("beaver", "kindness"), (None, "danger")}, kinds
    deciders = {s.decided_by for s in result.steps if s.step == "interpret"}
    assert deciders == {"model" if with_model else "fallback"}


MET = {"id": "s1", "world_time": "2025-01-10T09:00:00Z", "actor": "wolf", "others": ["bear"],
       "intent": {"thought": "", "action": "Walk the bank"}, "reality": "You pass Bear at the deep pool."}
SALMON = {"id": "s2", "world_time": "2025-01-10T17:00:00Z", "actor": "wolf", "others": ["bear"],
          "intent": {"thought": "That fish is far too big for a clumsy bear", "action": "Take Bear's salmon"},
          "reality": "You slink toward the salmon, but Bear rises on its hind legs and roars in your face. "
                     "For once you back off and settle for the scraps it leaves."}


_salmon_respond = interpret_only(lambda user: {
    "harm": False, "danger": False, "significance": "notable", "emotion": "annoyed",
    "memory": ("I tried to take Bear's salmon, but Bear roared at me." if "salmon" in user
               else "I passed Bear at the deep pool.")})


def test_an_ordinary_turn_with_another_is_remembered_through_them(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    """Bear's roar is no deed the rules read against Wolf; the turn is still Wolf's with Bear,
    and its memory is drafted about Bear, 0.15 below the turn, with a model as by the rules.
    The rules rate the turn 0.5 and the model "notable", the band 0.5 is in, so the rules'
    number stands and the draft (0.35) is too slight to keep, in both modes alike."""
    with respx.mock() as router, Curator(tmp_path / "w.db", model=model_settings) as world:
        router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=_salmon_respond)
        world.observe(MET)
        result = world.observe(SALMON)
    with Curator(tmp_path / "rules.db") as world:
        world.observe(MET)
        rules = world.observe(SALMON)
    drafted = [(d.subject, d.kind, d.importance) for d in result.skipped]
    assert drafted == [(d.subject, d.kind, d.importance) for d in rules.skipped]
    assert drafted == [("bear", "relationship_event", pytest.approx(0.35))]
    assert not result.formed and not rules.formed
    assert next(r for r in result.readings if r.character == "wolf").decided_by == "model"


RIDGE = {"id": "t016", "world_time": "2025-01-05T12:00:00Z", "actor": "wolf", "others": ["bear"],
         "observers": ["owl"], "intent": {"thought": "The bear is on my ridge again",
                                          "action": "Chase Bear off the ridge"},
         "reality": "You charge Bear across the ridge, snapping at its heels until it lumbers downhill and "
                    "out of your land. It looks back once, but does not return."}


_ridge_respond = interpret_only(lambda user: {
    "harm": False, "danger": False, "significance": "notable", "emotion": "uneasy",
    "memory": ("I saw Wolf chase Bear off the ridge, snapping at his heels." if user.startswith("You are Owl")
               else "I chased Bear off my ridge.")})


@pytest.mark.parametrize("with_model", [True, False])
def test_what_the_actors_deeds_showed_is_in_the_observers_memory_of_it(
        tmp_path: Path, model_settings: ModelSettings, with_model: bool) -> None:
    model = model_settings if with_model else None
    result, characters = played(tmp_path / "w.db", model, _ridge_respond, RIDGE)
    owl = characters["owl"].relationships["wolf"]
    assert [(m.owner, m.subject) for m in result.formed if m.owner == "owl"] == [("owl", "wolf")]
    (memory,) = owl.recent_memories
    assert memory.traits == ["aggressive"] and owl.traits == {"aggressive": 1}
    deciders = {s.decided_by for s in result.steps if s.character == "owl"}
    assert deciders == {"model" if with_model else "fallback"}


SHARED = {"id": "d19", "world_time": "2025-03-19T08:00:00Z", "actor": "bear", "others": ["wolf"],
          "intent": {"thought": "", "action": "Fish at the lower pool"},
          "reality": "Wolf fishes beside you at the lower pool and leaves you the bigger fish."}
# Scripted: copies of Qwen2.5-Coder-1.5B's answers to this turn (evals/fixtures/qwen1.5b/long_valley,
# d19-1) and a faithful one.
_INVERTED = ("I was fishing at the lower pool, but Wolf snatched the bigger fish and left me with the "
             "smaller one.")
_FAITHFUL = "I fished at the lower pool, and Wolf left me the bigger fish."


@pytest.mark.parametrize("said", [_INVERTED, _FAITHFUL])
def test_a_gift_told_as_a_theft_is_put_in_the_rules_words(
        tmp_path: Path, model_settings: ModelSettings, said: str) -> None:
    answer = {"harm": False, "danger": False, "significance": "notable", "emotion": "grateful",
              "memory": said}
    result, _ = played(tmp_path / "w.db", model_settings, interpret_only(lambda user: answer), MET, SHARED)
    (memory,) = [m for m in result.formed if m.owner == "bear" and m.subject == "wolf"]
    assert memory.kind == "kindness"
    if said == _FAITHFUL:
        assert memory.content == said
    else:  # the rules' words: Wolf leaves the bigger fish
        assert "snatched" not in memory.content and "leaves me the bigger fish" in memory.content


TRAP = {"id": "t030", "world_time": "2025-01-10T11:00:00Z", "actor": "poacher", "others": [],
        "intent": {"thought": "A pelt that size would pay for the whole winter",
                   "action": "Set a steel leg-hold trap on the game trail by the logging road"},
        "reality": "You bury the steel jaws under leaf litter on the game trail and stake the chain "
                   "to a root."}


@pytest.mark.parametrize(("rated", "importance"), [("notable", None), ("major", 0.8), ("minor", 0.6)])
def test_a_band_moves_the_rules_number_only_where_they_differ(
        tmp_path: Path, model_settings: ModelSettings, rated: str, importance: float | None) -> None:
    # Qwen2.5-Coder-1.5B rated this turn "notable" (evals/fixtures/qwen1.5b/long_two_animals);
    # the rest of the answer is scripted.
    answer = {"harm": False, "danger": True, "significance": rated, "emotion": "determined",
              "memory": "I buried the steel jaws on the game trail and staked the chain."}
    with Curator(tmp_path / "rules.db") as world:
        (rules,) = [m for m in world.observe(TRAP).formed if m.owner == "poacher"]
    assert rules.kind == "decision_record" and 0.6 <= rules.importance < 0.7  # notable, kept
    result, _ = played(tmp_path / "w.db", model_settings, interpret_only(lambda user: answer), TRAP)
    kept = [m for m in result.formed if m.owner == "poacher"]
    # "minor" (0.3) is below the rules' number, but only "trivial" is nothing to remember: the
    # memory the rules keep stays, at the 0.6 a decision record needs
    (memory,) = kept
    assert memory.kind == "decision_record" and memory.content == answer["memory"]
    assert memory.importance == pytest.approx(importance if importance is not None else rules.importance)
