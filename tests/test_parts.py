"""A memory about someone names them (judging.about, perspective.mentions): where a model's
one sentence for the turn leaves out the one a memory is about, that memory is put in the
rules' words, which name them; the model's rating of the turn stands. The recorded 1.5B
answers at times left out the one who acted, or gave their deed to someone else. The model
answer in the end-to-end test is scripted (tests/fixtures/scripted/unnamed_part.json),
served through respx."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import respx
from conftest import MODEL_BASE, chat, scripted
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_answer_checks import FEUD, RESCUE_TURN
from test_prompts import INPUTS

from curator import Curator
from curator.domain.models import SIGNIFICANCE
from curator.model.llm import ModelSettings
from curator.turn.faithful import told_otherwise
from curator.turn.judgement import OtherReading
from curator.turn.judging import about
from curator.turn.perspective import mentions

# The recorded answer (evals/fixtures/qwen1.5b/long_valley): the rescue, without the rescued.
RECORDED = ("I burst out of the undergrowth and knocked the poacher down; he drops his rifle and flees "
            "down the road.")
RULES = "I mean to roar and charge the human, and I dig out the trap stake until Wolf pulls his leg free."


def test_a_character_is_named_by_name_or_alias_and_not_by_a_word_that_holds_it() -> None:
    aliases = (("isolde", ("the queen",)), ("wolf", ("the grey",)))
    assert mentions("The queen thanked me.", "isolde", aliases)
    assert mentions("ISOLDE bowed.", "isolde", aliases)
    assert not mentions("The grey thanked me.", "isolde", aliases)  # another one's alias
    assert not mentions("She thanked me.", "isolde", aliases)  # a pronoun may be anyone
    assert not mentions("Wolfish grins all round; a wolfhound barked.", "wolf")
    assert mentions("I slept under Old Oak.", "old_oak")


def test_a_memory_about_someone_the_sentence_leaves_out_is_in_the_rules_words() -> None:
    inputs = INPUTS["interpret.j2"]()  # Bear, with Wolf
    wolf = OtherReading(id="wolf", did="none", feeling="neutral")
    assert about(wolf, RECORDED, inputs, {"wolf": RULES}) == RULES
    named = "I freed Wolf from the trap."
    assert about(wolf, named, inputs, {"wolf": RULES}) == named  # the model's, when it names him
    assert about(wolf, RECORDED, inputs, {}) == RECORDED  # no rules' memory of him: the model's
    assert about(wolf, RECORDED, inputs, {"wolf": "I dig out the stake."}) == RECORDED  # nor naming him


def test_the_model_rates_the_turn_and_the_memory_about_wolf_names_him(
        tmp_path: Path, model_settings: ModelSettings) -> None:
    answer = scripted("unnamed_part")["leaves_out_wolf"]
    path = tmp_path / "world.db"
    with Curator(path) as world:  # no model: the feud is decided by the fallback
        for turn_id, when, action, reality in FEUD:
            world.observe({"id": turn_id, "world_time": when, "actor": "bear", "others": ["wolf"],
                           "intent": {"thought": "", "action": action}, "reality": reality})

    def respond(request: httpx.Request) -> httpx.Response:
        if request.headers["x-curator-template"].startswith("interpret.j2@"):
            return httpx.Response(200, json=chat(json.dumps(answer)))
        return httpx.Response(200, json=chat(None, refusal="scripted: only interpret is answered here"))

    with respx.mock() as router, Curator(path, model=model_settings) as world:
        route = router.post(f"{MODEL_BASE}/chat/completions").mock(side_effect=respond)
        result = world.observe(RESCUE_TURN)
        now = world.character("bear").relationships["wolf"].immediate_context
    interprets = [c for c in route.calls if c.request.headers["x-curator-template"].startswith("interpret")]
    assert len(interprets) == 1  # nothing sent back: the answer is used as it is
    step = next(s for s in result.steps if s.step == "interpret")
    reading = next(r for r in result.readings if r.character == "bear")
    assert step.decided_by == "model" and reading.decided_by == "model"
    assert reading.significance == "defining"  # the model's rating stands
    (memory,) = [m for m in result.formed if m.owner == "bear" and m.subject == "wolf"]
    assert mentions(memory.content, "wolf") and "scruff" in memory.content  # the rules' words
    # defining, and a rescue from danger weighs 0.15 more still, as the rules file it
    assert memory.content != answer["memory"]
    assert memory.importance == min(1.0, SIGNIFICANCE["defining"] + 0.15)
    assert mentions(now, "wolf")  # what is going on with Wolf, too


# Sentences a model may send: anything, and the shapes the reading of a sentence rewrites
# (a passive, the first person, names and aliases, punctuation the clause splitter cuts at).
_PIECES = st.sampled_from(["I was knocked down by Bear", "I got pulled free by Wolf", "Wolf", "Bear",
                           "the grey", "me", "my", "I'm", "myself", "snatched", "saved", "thanked",
                           "; ", ", but ", ". ", "!", "…", "«", "\u200b", "\n", "by", "was"])
_SENTENCES = st.one_of(st.text(max_size=200), st.lists(_PIECES, max_size=12).map(" ".join))


@settings(max_examples=300, deadline=None)
# found by this test in CI: "İ".lower() is two letters
@example(said="İ was knocked down by Wolf", did="helped")
@given(said=_SENTENCES, did=st.sampled_from(["helped", "kind", "harmed", "blocked", "betrayed", "none"]))
def test_reading_any_sentence_for_the_part_it_tells_never_fails(said: str, did: str) -> None:
    inputs = INPUTS["interpret.j2"]()  # Bear, with Wolf
    wolf = OtherReading(id="wolf", did=did, feeling="neutral")  # type: ignore[arg-type]
    assert told_otherwise(said, wolf, inputs, RULES) in (True, False)
    assert about(wolf, said, inputs, {"wolf": RULES}) in (said, RULES)
