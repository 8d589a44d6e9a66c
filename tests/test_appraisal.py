"""Appraisal: lenses from the fallback, their combination and each retention path,
the model's answer held to the domain rules (and told what was wrong), the model asked only
when the world says so, the memory network (links by text and by subject), recall's one hop
along it, and `curator show --links`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import CliRunner
from conftest import MODEL_BASE, TurnFactory, chat, scripted
from pydantic import ValidationError

from curator import Curator
from curator.cli import cli
from curator.domain.config import AppraisalConfig, CuratorConfig, Lens
from curator.domain.errors import InvalidInput
from curator.domain.models import Intent, Relationship, Turn
from curator.model.llm import ModelSettings
from curator.recall.network import text_similarity
from curator.recall.query import read_query
from curator.recall.ranking import HOP_SHARE, rank
from curator.turn.appraisal import Appraisal, AppraiseInput, appraise, lens_views
from curator.turn.fallback import interpret
from curator.turn.inputs import InterpretInput, RelationView
from curator.turn.lenses import combine, lens_weights, retain, weights_from_attributes

URL = f"{MODEL_BASE}/chat/completions"
LENSES = ["emotional", "practical", "social", "moral", "danger"]


# -- the fallback, lens by lens ---------------------------------------------------------------

def appraised(reality: str, *, role: str = "actor", actor: str = "bear", others: list[str] | None = None,
              action: str = "Head to the river", config: AppraisalConfig | None = None
              ) -> list[dict[str, tuple[float, str]]]:
    """The fallback's appraisal of the drafts the fallback interpretation makes of a turn."""
    others = others or []
    turn = Turn.model_validate({"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": actor,
                                "intent": {"thought": "", "action": action}, "reality": reality,
                                "others": others, "observers": ["owl"] if role == "observer" else []})
    perceiver = actor if role == "actor" else "owl"
    if role == "observer":
        turn = turn.model_copy(update={"intent": Intent(thought="", action="(unknown to you)")})
    subjects = others if role == "actor" else [actor, *others]
    rels = {o: RelationView.of(Relationship(owner=perceiver, other=o)) for o in subjects}
    drafts = interpret(InterpretInput(perceiver=perceiver, role=role, persona="", turn=turn,
                                      relationships=rels, recent_self=[],
                                      allowed_subjects=subjects)).memories
    assert drafts, "the turn drafted no memory"
    inp = AppraiseInput(perceiver=perceiver, role=role, persona="", turn=turn,
                        memories=drafts, lenses=lens_views(config or AppraisalConfig()))
    return [{n: (s.priority, s.justification) for n, s in m.lenses.items()}
            for m in appraise(inp).memories]


def best(memories: list[dict[str, tuple[float, str]]], lens: str) -> tuple[float, str]:
    return max((m[lens] for m in memories), key=lambda pw: pw[0])


# (reality, role, others, lens, at least, a word its justification names)
HIGH = [
    ("Steel jaws snap shut on your leg. Blood soaks the leaves.", "actor", [], "danger", 0.85, "blood"),
    ("A poacher raises his rifle and fires; the bullet grazes your shoulder.", "actor", ["poacher"],
     "danger", 0.85, "rifle"),
    ("You snatch Fox's fish from the bank and run off with it.", "observer", ["fox"], "moral", 0.6,
     "snatch"),
    ("Wolf lies to you about the berries and leads you into a snare, then laughs.", "actor", ["wolf"],
     "moral", 0.8, "lies to you"),
    ("Wolf lies to you about the berries and leads you into a snare, then laughs.", "actor", ["wolf"],
     "social", 0.8, "Wolf"),
    ("The flood sweeps you away until Wolf pulls you out onto the bank.", "actor", ["wolf"], "social",
     0.7, "rescue"),
    ("Raccoon steals the honey from your den while you sleep.", "actor", ["raccoon"], "practical", 0.6,
     "honey"),
    ("After a long wait you haul out the biggest salmon you have ever seen, proud and full.", "actor", [],
     "practical", 0.5, "salmon"),
    ("Steel jaws snap shut on your leg. Blood soaks the leaves.", "actor", [], "emotional", 0.8,
     "valence"),
]


@pytest.mark.parametrize(("reality", "role", "others", "lens", "least", "word"), HIGH)
def test_the_fallback_raises_the_lens_the_turn_speaks_to(reality: str, role: str, others: list[str],
                                                         lens: str, least: float, word: str) -> None:
    actor = "fox" if role == "observer" else "bear"
    priority, why = best(appraised(reality, role=role, actor=actor, others=[o for o in others if o != actor]),
                         lens)
    assert priority >= least, (lens, priority, why)
    assert word in why  # the justification names what drove it


QUIET = ["You lap at the cold water. Leaves drift past; nothing else happens.",
         "You rub your back against the rough bark of a pine. It feels good. Nothing else happens."]


@pytest.mark.parametrize("reality", QUIET)
def test_an_everyday_turn_is_low_through_every_lens(reality: str) -> None:
    (memory,) = appraised(reality)
    assert all(priority <= 0.3 for priority, _ in memory.values()), memory
    assert all(why.strip() for _, why in memory.values())


def test_seeing_is_weaker_than_living_it() -> None:
    reality = "Steel jaws snap shut on your leg. Blood soaks the leaves."
    lived = best(appraised(reality), "danger")[0]
    seen = best(appraised(reality, role="observer", actor="bear"), "danger")[0]
    assert lived > seen > 0.5


def test_a_lens_of_the_games_own_is_judged_by_its_words() -> None:
    config = AppraisalConfig(lenses=[*AppraisalConfig().lenses,
                                     Lens(name="magic", threshold=0.6, words=["spell", "rune", "wand"])])
    (memory,) = appraised("You trace a rune in the dust and the spell flares blue.", config=config)
    assert memory["magic"][0] >= 0.6 and "rune" in memory["magic"][1]
    (plain,) = appraised(QUIET[0], config=config)
    assert plain["magic"][0] < 0.2


# -- combination and retention ------------------------------------------------------------------

def test_priorities_combine_weighted_by_the_character() -> None:
    scores = {"danger": 0.9, "moral": 0.1, "social": 0.2}
    assert combine(scores, {}) == pytest.approx(0.4)
    assert combine(scores, {"danger": 3.0}) == pytest.approx((2.7 + 0.1 + 0.2) / 5)
    assert combine(scores, {"danger": 0.0, "moral": 0.0, "social": 0.0}) == pytest.approx(0.4)


def test_weights_come_from_config_then_the_characters_own() -> None:
    config = AppraisalConfig(weights={"danger": 2.0}, character_weights={"owl": {"moral": 3.0}})
    assert config.weights_for("bear") == {"emotional": 1.0, "practical": 1.0, "social": 1.0, "moral": 1.0,
                                          "danger": 2.0}
    assert config.weights_for("owl")["moral"] == 3.0 and config.weights_for("owl")["danger"] == 2.0
    with pytest.raises(ValidationError, match="'courage' is not a lens"):
        AppraisalConfig(character_weights={"owl": {"courage": 1.0}})
    # the hook for personality: a cautious character's danger lens counts more
    assert weights_from_attributes({"caution": 0.9, "resilience": 0.9}) == {"danger": 1.4, "emotional": 0.6}


def test_a_characters_evolved_attributes_weigh_its_lenses() -> None:
    config = AppraisalConfig(character_weights={"owl": {"danger": 0.5}})
    with Curator(":memory:", config=CuratorConfig(appraisal=config)) as world:
        for who in ("bear", "owl", "fox"):
            world.set_persona(who, "")
        # what evolution cycles leave behind: Bear grew cautious, Owl too, Fox never had a cycle
        world.world.conn.executemany(
            "insert into attributes (character, name, value, updated_at) values (?, ?, ?, '2025-01-01')",
            [("bear", "caution", 0.8), ("bear", "resilience", 0.7), ("owl", "caution", 0.9)])
        bear = lens_weights(world.world, "bear", config)
        assert bear["danger"] == 1.3 and bear["emotional"] == 0.8 and bear["moral"] == 1.0
        assert lens_weights(world.world, "owl", config)["danger"] == 0.5  # the game's own weight stands
        assert set(lens_weights(world.world, "fox", config).values()) == {1.0}


def _never() -> tuple[float, str | None]:
    raise AssertionError("the link was looked up although something else kept the draft")


THRESHOLDS = {"emotional": 0.8, "practical": 0.7, "social": 0.7, "moral": 0.6, "danger": 0.65}
LOW = {"emotional": 0.2, "practical": 0.1, "social": 0.3, "moral": 0.1, "danger": 0.0}


def test_each_retention_path() -> None:
    # its own importance reaches the kind's threshold: kept as before, importance unchanged
    kept = retain(0.5, 0.45, LOW, THRESHOLDS, 0.14, _never, 0.8)
    assert kept.keep and kept.by == "formation" and kept.importance == 0.5 and kept.reason is None
    # the combined priority lifts it over
    kept = retain(0.3, 0.45, LOW, THRESHOLDS, 0.5, _never, 0.8)
    assert kept.keep and kept.by == "overall" and kept.importance == 0.5
    assert kept.reason == "kept: overall 0.50 ≥ 0.45"
    # one lens over its own threshold
    kept = retain(0.3, 0.45, {**LOW, "moral": 0.72}, THRESHOLDS, 0.3, _never, 0.8)
    assert kept.keep and kept.by == "moral" and kept.reason == "kept: moral 0.72 ≥ 0.60"
    assert kept.importance == 0.3  # never lowered
    # a strong link to a memory already held
    kept = retain(0.3, 0.45, LOW, THRESHOLDS, 0.14, lambda: (0.85, "m_1"), 0.8)
    assert kept.keep and kept.by == "link" and kept.reason == "kept: link 0.85 ≥ 0.80 to m_1"
    # none of them
    assert not retain(0.3, 0.45, LOW, THRESHOLDS, 0.14, lambda: (0.5, "m_1"), 0.8).keep
    assert not retain(0.3, 0.45, LOW, THRESHOLDS, 0.14, lambda: (0.0, None), 0.8).keep


def test_a_theft_seen_is_kept_by_the_moral_lens_and_says_so(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        result = world.observe(make_turn("You snatch Bear's honeycomb from the hollow log and run off "
                                         "with it into the dusk.", actor="fox", observers=["owl"],
                                         action="Steal the honeycomb"))
    (seen,) = [m for m in result.formed if m.owner == "owl"]
    assert seen.kept_by == "moral" and seen.reason is not None
    assert seen.reason.startswith("kept: moral 0.70 ≥ 0.60")
    # with the old rule alone (no lens may keep it) the same draft is dropped
    config = CuratorConfig(appraisal=AppraisalConfig(lenses=[Lens(name=n, threshold=1.0) for n in LENSES]))
    with Curator(":memory:", config=config) as world:
        result = world.observe(make_turn("You snatch Bear's honeycomb from the hollow log and run off "
                                         "with it into the dusk.", actor="fox", observers=["owl"],
                                         action="Steal the honeycomb"))
    assert not [m for m in result.formed if m.owner == "owl"]
    assert [s.owner for s in result.skipped] == ["fox", "owl"]


def test_an_everyday_turn_still_forms_nothing(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        result = world.observe(make_turn(QUIET[0], action="Drink from the stream"))
        stored = world.world.conn.execute("select count(*) from appraisals").fetchone()[0]
    assert not result.formed and result.skipped and stored == 0


def test_every_formed_memory_keeps_its_appraisal(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        result = world.observe(make_turn("Steel jaws snap shut on your leg. Blood soaks the leaves."))
        stored = world.world.conn.execute("select memory_id, lenses from appraisals").fetchall()
    rows = [(memory_id, lens, p, why) for memory_id, lenses in stored
            for lens, (p, why) in sorted(json.loads(lenses).items())]
    (memory,) = result.formed
    assert [r[1] for r in rows] == sorted(LENSES) and {r[0] for r in rows} == {memory.memory_id}
    assert dict((r[1], r[2]) for r in rows)["danger"] >= 0.85 and all(r[3] for r in rows)


def test_set_lens_weights_through_the_api() -> None:
    with Curator(":memory:") as world:
        weights = world.set_lens_weights("Owl", {"moral": 2.5})
        assert weights["moral"] == 2.5 and weights["danger"] == 1.0
        assert world.config.appraisal.character_weights == {"owl": {"moral": 2.5}}
        with pytest.raises(InvalidInput, match="not a lens"):
            world.set_lens_weights("owl", {"courage": 1.0})
        with pytest.raises(InvalidInput, match=r"0\.\.10"):
            world.set_lens_weights("owl", {"danger": 11.0})
        assert world.config.appraisal.character_weights == {"owl": {"moral": 2.5}}


# -- the model's answer ---------------------------------------------------------------------

def one_memory(**lenses: Any) -> dict[str, Any]:
    return {"memories": [{"lenses": lenses}]}


GOOD = one_memory(**{n: {"priority": p, "justification": f"I judged the {n} side."}
                     for n, p in zip(LENSES, (0.7, 0.4, 0.6, 0.3, 0.1), strict=True)})
CONTEXT = {"lenses": LENSES, "memories": 1}


def test_validators_hold_the_model_to_the_lenses() -> None:
    assert Appraisal.model_validate(GOOD, context=CONTEXT).memories[0].lenses["emotional"].priority == 0.7
    missing = one_memory(**{n: v for n, v in GOOD["memories"][0]["lenses"].items() if n != "danger"})
    with pytest.raises(ValidationError, match="memories\\[0\\] has no 'danger' lens"):
        Appraisal.model_validate(missing, context=CONTEXT)
    extra = one_memory(**GOOD["memories"][0]["lenses"], courage={"priority": 0.5, "justification": "x y"})
    with pytest.raises(ValidationError, match="'courage' is not a lens"):
        Appraisal.model_validate(extra, context=CONTEXT)
    with pytest.raises(ValidationError, match="appraise all 2 memories"):
        Appraisal.model_validate(GOOD, context={**CONTEXT, "memories": 2})
    for bad, message in (({"priority": 1.5, "justification": "too much"}, "less than or equal to 1"),
                         ({"priority": 0.5, "justification": "   "}, "justification must say why")):
        lenses = {**GOOD["memories"][0]["lenses"], "moral": bad}
        with pytest.raises(ValidationError, match=message):
            Appraisal.model_validate(one_memory(**lenses), context=CONTEXT)


FISHING = {"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
           "intent": {"thought": "Just need to catch some fish", "action": "Head to my fishing spot"},
           "reality": "Wolf emerges and claims your fishing spot as his own, baring his teeth.",
           "others": ["wolf"]}


def _by_template(appraise: list[dict[str, Any]]) -> Any:
    answers = scripted("fishing_spot")

    def respond(request: httpx.Request) -> httpx.Response:
        template = request.headers["x-curator-template"]
        if template.startswith("interpret.j2@"):
            return httpx.Response(200, json=chat(json.dumps(answers["bear"])))
        assert template.startswith("appraise.j2@")
        reply = appraise.pop(0) if len(appraise) > 1 else appraise[0]
        return httpx.Response(200, json=chat(json.dumps(reply)))
    return respond


def test_a_long_justification_keeps_its_first_sentences() -> None:
    long = "It hurt. " + "word " * 35
    lenses = {**GOOD["memories"][0]["lenses"], "moral": {"priority": 0.5, "justification": long}}
    kept = Appraisal.model_validate(one_memory(**lenses), context=CONTEXT)
    assert kept.memories[0].lenses["moral"].justification == "It hurt."


def test_a_bad_appraisal_is_sent_back_with_its_error(model_settings: ModelSettings) -> None:
    missing = one_memory(**{n: v for n, v in GOOD["memories"][0]["lenses"].items() if n != "danger"})
    config = CuratorConfig(appraisal=AppraisalConfig(model=True))
    with respx.mock() as router, Curator(":memory:", model=model_settings, config=config) as world:
        route = router.post(URL).mock(side_effect=_by_template([missing, GOOD]))
        result = world.observe(FISHING)
        calls = world.calls()
        [(lenses,)] = world.world.conn.execute("select lenses from appraisals").fetchall()
        stored = {lens: p for lens, (p, _) in json.loads(lenses).items()}
    assert route.call_count == 3  # interpret, appraise, its one retry
    asked = json.loads(route.calls[1].request.content)["messages"]
    assert '"lenses"' in asked[0]["content"] and "Wolf took my fishing spot" in asked[-1]["content"]
    retry = json.loads(route.calls[2].request.content)["messages"]
    assert retry[-2]["role"] == "assistant" and "I judged the moral side." in retry[-2]["content"]
    assert retry[-1]["role"] == "user" and "memories[0] has no 'danger' lens" in retry[-1]["content"]
    appraise = [c for c in calls if c.step == "appraise"]
    assert len(appraise) == 1 and appraise[0].outcome == "model" and appraise[0].attempts == 2
    assert [(s.step, s.decided_by) for s in result.steps] == [("interpret", "model"), ("appraise", "model")]
    assert stored == {n: p for n, p in zip(LENSES, (0.7, 0.4, 0.6, 0.3, 0.1), strict=True)}


def test_an_appraisal_the_model_cannot_give_falls_back(model_settings: ModelSettings) -> None:
    config = CuratorConfig(appraisal=AppraisalConfig(model=True))
    with respx.mock() as router, Curator(":memory:", model=model_settings, config=config) as world:
        router.post(URL).mock(side_effect=_by_template([{"memories": []}]))
        result = world.observe(FISHING)
    assert [(s.step, s.decided_by) for s in result.steps] == [("interpret", "model"),
                                                              ("appraise", "fallback")]
    assert result.formed  # the turn commits, appraised by rules


def test_the_model_is_not_asked_to_appraise_by_default(model_settings: ModelSettings) -> None:
    assert CuratorConfig().appraisal.model is False
    with respx.mock() as router, Curator(":memory:", model=model_settings) as world:
        route = router.post(URL).mock(side_effect=_by_template([GOOD]))
        result = world.observe({**FISHING, "observers": ["owl"]})
        stored = world.world.conn.execute("select count(distinct memory_id) from appraisals").fetchone()[0]
    templates = [c.request.headers["x-curator-template"].split("@")[0] for c in route.calls]
    assert templates == ["interpret.j2", "interpret.j2"]  # no appraise call, for either perceiver
    assert [s.step for s in result.steps] == ["interpret", "interpret"]
    assert stored == len(result.formed) > 0  # the fallback appraised them


# -- the memory network -------------------------------------------------------------------------

def test_text_similarity_is_a_cosine_of_content_words() -> None:
    assert text_similarity({"wolf", "fish"}, {"wolf", "fish"}) == pytest.approx(1.0)
    assert text_similarity({"wolf"}, {"wolf", "fish", "river", "spot"}) == pytest.approx(0.5)
    assert text_similarity(set(), {"wolf"}) == 0.0


def links(world: Curator) -> list[tuple[str, str, float, str]]:
    return world.world.conn.execute(
        "select memory_id, other_id, strength, by from memory_links order by memory_seq, created_at"
    ).fetchall()


def test_memories_link_by_text_and_by_subject(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        first = world.observe(make_turn("Wolf claims your fishing spot at the river bend and growls.",
                                        others=["wolf"], action="Fish at the river bend"))
        second = world.observe(make_turn("Wolf shoves you off the fishing spot at the river bend, snarling.",
                                         others=["wolf"], action="Drink at the river bend"))
        third = world.observe(make_turn("Wolf drops a hare at your feet and trots off.", others=["wolf"],
                                        action="Rest in the den"))
        found = links(world)
    a, b, c = (r.formed[0].memory_id for r in (first, second, third))
    by_pair = {(m, o): (s, by) for m, o, s, by in found}
    strength, by = by_pair[(b, a)]
    assert by == "text" and strength >= 0.6  # the same words about the same wolf
    assert by_pair[(c, b)] == (0.3, "subject") and by_pair[(c, a)] == (0.3, "subject")  # only Wolf shared
    assert all(0.25 <= s <= 1.0 for _, _, s, _ in found)


def test_recall_follows_a_link_one_hop(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        world.observe(make_turn("Wolf growls at you beside the blackberry thicket.", others=["wolf"],
                                action="Look for berries", day=1))
        hare = world.observe(make_turn("Wolf drops a hare at your feet and trots off.", others=["wolf"],
                                       action="Rest in the den", day=3)).formed[0]
        query = read_query("blackberry thicket", ["bear", "wolf"])
        recall = world.config.recall
        kwargs: dict[str, Any] = {"config": recall, "weights": recall.search_weights, "present": [],
                                  "now": None, "limit": 10}
        followed = {r.memory.id: r for r in rank(world.world, "bear", query, **kwargs)}
        plain = {r.memory.id: r for r in rank(world.world, "bear", query, hop=0.0, **kwargs)}
        searched = [r.memory.id for r in world.search("bear", "blackberry thicket")]
    assert hare.memory_id in followed and "link" in followed[hare.memory_id].sources
    # HOP_SHARE × the match's relevance (the best: 1.0) × the link's strength (by subject: 0.3)
    assert followed[hare.memory_id].parts.relevance == pytest.approx(HOP_SHARE * 1.0 * 0.3)
    assert hare.memory_id not in plain or plain[hare.memory_id].parts.relevance == 0.0
    assert hare.memory_id in searched and searched.index(hare.memory_id) == 1  # after the match itself


def test_deleting_a_character_takes_its_network_along(make_turn: TurnFactory) -> None:
    with Curator(":memory:") as world:
        for text, action in (("Wolf growls at you by the river.", "Fish"),
                             ("Wolf drops a hare at your feet and trots off.", "Rest in the den")):
            world.observe(make_turn(text, others=["wolf"], action=action))
        assert links(world)
        world.delete_character("wolf")
        conn = world.world.conn
        assert links(world) == [] and conn.execute("select count(*) from appraisals").fetchone()[0] == 0


def test_show_links(tmp_path: Path, make_turn: TurnFactory) -> None:
    db = tmp_path / "w.db"
    with Curator(db) as world:
        for text, action in (("Wolf claims your fishing spot at the river bend and growls.", "Fish"),
                             ("Wolf shoves you off the fishing spot at the river bend, snarling.", "Drink")):
            world.observe(make_turn(text, others=["wolf"], action=action))
    runner = CliRunner()
    shown = runner.invoke(cli, ["show", "bear", "--links", "--db", str(db), "--json"])
    assert shown.exit_code == 0, shown.stderr
    document = json.loads(shown.stdout)
    assert document["character"] == "bear" and len(document["memories"]) == 2
    newer = document["memories"][1]
    assert newer["links"][0]["by"] == "text" and "fishing spot" in newer["links"][0]["content"]
    assert set(newer["appraisal"]) == set(LENSES)
    text = runner.invoke(cli, ["show", "bear", "--links", "--about", "wolf", "--db", str(db)])
    assert text.exit_code == 0 and "↔" in text.stdout and "by text" in text.stdout
    assert "appraisal: " in text.stdout
    missing = runner.invoke(cli, ["show", "nobody", "--links", "--db", str(db)])
    assert missing.exit_code != 0 and "Traceback" not in missing.stderr


def test_observe_says_what_kept_a_memory(tmp_path: Path, make_turn: TurnFactory) -> None:
    turn = make_turn("You snatch Bear's honeycomb from the hollow log and run off with it into the dusk.",
                     actor="fox", observers=["owl"], action="Steal the honeycomb")
    shown = CliRunner().invoke(cli, ["observe", "--db", str(tmp_path / "w.db")], input=json.dumps(turn))
    assert shown.exit_code == 0, shown.stderr
    assert "Owl → Fox: I watch Fox" in shown.stdout and "(kept: moral 0.70 ≥ 0.60)" in shown.stdout
