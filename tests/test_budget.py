"""A model budget per character (issue #18): `never` asks nothing, `significant` asks only for
the turns the rules find significant, a daily token budget switches to the fallback at the
limit with reason `budget spent` and resumes on the next game day, and the spend table adds
up to the call log.

Model HTTP is mocked with respx. Every answer is *scripted*: the decision the rule-based
fallback makes for the same prompt (FallbackEcho), in a chat completion that reports 100
prompt and 20 completion tokens."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import respx
from conftest import MODEL_BASE, chat

from curator import Curator, InvalidInput
from curator.cli.budget import spend_table
from curator.model import gate
from curator.model.llm import ModelSettings
from curator.model.stub_server import FallbackEcho

URL = f"{MODEL_BASE}/chat/completions"
PER_CALL = 120  # 100 prompt + 20 completion tokens, as every scripted answer reports


def turn(n: int, reality: str, *, day: int = 1, actor: str = "bear", others: list[str] | None = None,
         observers: list[str] | None = None, action: str = "Look for food by the river") -> dict[str, Any]:
    return {"id": f"b{n:03d}", "world_time": f"2025-03-{day:02d}T{8 + n // 60:02d}:{n % 60:02d}:00Z",
            "actor": actor, "intent": {"thought": "I am hungry", "action": action},
            "reality": reality, "others": others or [], "observers": observers or []}


# The rules' reading of these (curator/turn/fallback.py): trivial, notable and major for the actor.
BERRIES = "Bear finds a few berries and eats them quietly."
WOLF = "Wolf emerges and claims the fishing spot as his own, baring his teeth."
ICE = "The ice breaks and Bear nearly drowns; Wolf drags Bear out of the freezing water."


class Model:
    """The mocked model: answers as the fallback would (scripted), and counts requests per
    perceiver (from the rendered prompt: 'You are Bear (id "bear")')."""

    def __init__(self, world: Curator, router: respx.MockRouter, name: str = "test-model") -> None:
        self.echo, self.name = FallbackEcho(), name
        assert world.gateway is not None
        world.gateway.before_call = self.echo.learn
        self.asked: list[tuple[str, str]] = []  # (perceiver, template)
        self.route = router.post(URL).mock(side_effect=self.respond)

    def respond(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        who = user.split('(id "', 1)[1].split('"', 1)[0] if '(id "' in user else "?"
        self.asked.append((who, request.headers["x-curator-template"].split("@")[0]))
        decision = self.echo(body, dict(request.headers))
        assert isinstance(decision, dict), decision
        return httpx.Response(200, json={**chat(json.dumps(decision)), "model": self.name})

    def of(self, who: str) -> int:
        return sum(1 for perceiver, _ in self.asked if perceiver == who)

    def step(self, template: str) -> int:
        return sum(1 for _, asked in self.asked if asked == template)


@pytest.fixture
def world(model_settings: ModelSettings) -> Iterator[tuple[Curator, Model]]:
    with respx.mock() as router, Curator(":memory:", model=model_settings) as curator:
        yield curator, Model(curator, router)


def reasons(result: Any, who: str) -> set[str | None]:
    return {s.reason for s in result.steps if s.character == who}


def test_no_budget_changes_nothing(world: tuple[Curator, Model]) -> None:
    curator, model = world
    result = curator.observe(turn(1, WOLF, others=["wolf"], observers=["owl"]))
    assert {s.decided_by for s in result.steps} == {"model"}
    assert model.of("bear") == model.of("owl") == 1
    assert [c.game_day for c in curator.calls()] == ["2025-03-01", "2025-03-01"]


def test_never_makes_no_request_for_that_character(world: tuple[Curator, Model]) -> None:
    curator, model = world
    curator.set_budget("Bear", use="never")
    result = curator.observe(turn(1, WOLF, others=["wolf"], observers=["owl"]))
    assert model.of("bear") == 0 and model.of("owl") == 1  # Owl has no budget: asked as before
    assert reasons(result, "bear") == {"budget: never"}
    assert {s.decided_by for s in result.steps if s.character == "bear"} == {"fallback"}
    # The fallback decided Bear's memory of the turn, and the call log says why
    assert curator.character("bear").relationships["wolf"].recent_memories
    bear_calls = curator.calls(character="bear")
    assert [(c.outcome, c.reason, c.prompt_tokens, c.attempts) for c in bear_calls] == [
        ("fallback", "budget: never", None, 0)]


def test_a_group_setting_applies_to_its_members_and_a_characters_own_wins(
        world: tuple[Curator, Model]) -> None:
    curator, model = world
    assert curator.set_budget_group("animals", ["bear", "owl"]) == ["bear", "owl"]
    curator.set_budget(group="animals", use="never")
    curator.set_budget("owl", use="always")
    assert curator.budget_of("bear").source == "group animals"
    assert curator.budget_of("owl").source == "character"
    assert curator.budget_of("wolf").source == "default"
    curator.observe(turn(1, WOLF, others=["wolf"], observers=["owl"]))
    assert model.of("bear") == 0 and model.of("owl") == 1
    assert curator.clear_budget("owl") and not curator.clear_budget("owl")
    curator.observe(turn(2, WOLF, others=["wolf"], observers=["owl"]))
    assert model.of("owl") == 1  # back to the group's `never`


def test_significant_asks_only_for_turns_the_rules_find_significant(world: tuple[Curator, Model]) -> None:
    curator, model = world
    curator.set_budget("bear", use="significant")
    trivial = curator.observe(turn(1, BERRIES))
    assert model.of("bear") == 0 and reasons(trivial, "bear") == {"budget: not significant"}
    notable = curator.observe(turn(2, WOLF, others=["wolf"]))
    assert model.of("bear") == 1 and reasons(notable, "bear") == {None}
    curator.set_budget("bear", use="significant", min_significance="major")
    curator.observe(turn(3, WOLF, others=["wolf"]))
    assert model.of("bear") == 1  # notable is under "major" now
    curator.observe(turn(4, ICE, others=["wolf"]))
    assert model.of("bear") >= 2
    calls = curator.calls(character="bear")
    assert [c.reason for c in calls if c.turn_id == "b003"] == ["budget: not significant"]
    assert {c.outcome for c in calls if c.turn_id == "b004"} == {"model"}


def test_a_token_budget_switches_to_the_fallback_at_the_limit_and_resumes_the_next_day(
        world: tuple[Curator, Model]) -> None:
    curator, model = world
    curator.set_budget("bear", tokens_per_day=3 * PER_CALL - 10)
    asked = []
    for n in range(1, 6):
        before = model.of("bear")
        result = curator.observe(turn(n, BERRIES))
        asked.append(model.of("bear") - before)
        if n >= 4:
            assert reasons(result, "bear") == {"budget spent"}
    # One interpret call a turn: 120, 240, 360 tokens spent; 360 >= 350, so turns 4 and 5 ask nothing
    assert asked == [1, 1, 1, 0, 0]
    (day1,) = curator.spend(day="2025-03-01", character="bear")
    assert (day1.calls, day1.prompt_tokens, day1.completion_tokens, day1.budget_fallbacks) == (3, 300, 60, 2)
    assert day1.fallbacks_by_reason == {"budget spent": 2}
    resumed = curator.observe(turn(6, BERRIES, day=2))
    assert model.of("bear") == 4 and reasons(resumed, "bear") == {None}
    assert [r.day for r in curator.spend(character="bear")] == ["2025-03-01", "2025-03-02"]


def test_each_perceiver_is_charged_for_its_own_call(world: tuple[Curator, Model]) -> None:
    curator, model = world
    curator.set_budget("bear", tokens_per_day=PER_CALL)
    curator.observe(turn(1, WOLF, others=["wolf"], observers=["owl"]))
    curator.observe(turn(2, WOLF, others=["wolf"], observers=["owl"]))
    # Bear's first call spent its day; Owl (no budget) was asked both times
    assert model.of("bear") == 1 and model.of("owl") == 2
    rows = {r.character: r for r in curator.spend(day="2025-03-01")}
    assert rows["bear"].tokens == PER_CALL and rows["bear"].budget_fallbacks >= 1
    assert rows["owl"].tokens == 2 * PER_CALL and rows["owl"].budget_fallbacks == 0


def test_the_spend_table_adds_up_to_the_call_log(world: tuple[Curator, Model]) -> None:
    curator, _ = world
    curator.set_budget("bear", tokens_per_day=2 * PER_CALL)
    curator.set_budget("owl", use="significant")
    for n in range(1, 5):
        curator.observe(turn(n, WOLF if n % 2 else BERRIES, others=["wolf"], observers=["owl"],
                             day=1 + n // 3))
    calls = curator.calls()
    rows = curator.spend()
    assert sum(r.prompt_tokens for r in rows) == sum(c.prompt_tokens or 0 for c in calls)
    assert sum(r.completion_tokens for r in rows) == sum(c.completion_tokens or 0 for c in calls)
    assert sum(r.calls + r.budget_fallbacks for r in rows) == len(calls)
    held = sum(1 for c in calls if (c.reason or "").startswith("budget"))
    assert sum(r.budget_fallbacks for r in rows) == held
    for row in rows:
        mine = [c for c in calls if c.character == row.character and c.game_day == row.day]
        assert row.by_model == sum(1 for c in mine if c.outcome == "model")
        assert row.tokens == sum((c.prompt_tokens or 0) + (c.completion_tokens or 0) for c in mine)
    assert {r.day for r in rows} == {"2025-03-01", "2025-03-02"}


def test_the_async_path_keeps_budgets_too(world: tuple[Curator, Model]) -> None:
    curator, model = world
    curator.set_budget("bear", use="never")

    async def play() -> list[Any]:
        from curator.model.llm import arelease_connections
        try:
            return await curator.aobserve_many([turn(1, WOLF, others=["wolf"], observers=["owl"])])
        finally:
            await arelease_connections()

    (result,) = asyncio.run(play())
    assert model.of("bear") == 0 and model.of("owl") == 1
    assert reasons(result, "bear") == {"budget: never"}


def test_budgets_without_a_model_change_nothing() -> None:
    with Curator(":memory:") as curator:
        curator.set_budget("bear", use="never", tokens_per_day=10)
        result = curator.observe(turn(1, WOLF, others=["wolf"]))
        assert {s.reason for s in result.steps} == {"no model configured"}
        assert curator.calls() == [] and curator.spend() == []


@pytest.mark.parametrize(("kwargs", "field"), [
    ({"use": "sometimes"}, "use"),
    ({"tokens_per_day": 0}, "tokens_per_day"),
    ({"tokens_per_day": -5}, "tokens_per_day"),
    ({"tokens_per_day": True}, "tokens_per_day"),
    ({"tokens_per_day": 2.5}, "tokens_per_day"),
    ({"usd_per_day": 0}, "usd_per_day"),
    ({"usd_per_day": float("nan")}, "usd_per_day"),
    ({"min_significance": "huge"}, "min_significance"),
])
def test_bad_settings_are_typed_errors_and_write_nothing(kwargs: dict[str, Any], field: str) -> None:
    with Curator(":memory:") as curator:
        with pytest.raises(InvalidInput) as caught:
            curator.set_budget("bear", **kwargs)
        assert caught.value.field == field
        assert curator.budgets().characters == {}


def test_bad_names_and_a_second_group_are_refused() -> None:
    with Curator(":memory:") as curator:
        with pytest.raises(InvalidInput):
            curator.set_budget(use="never")  # neither a character nor a group
        with pytest.raises(InvalidInput):
            curator.set_budget("bear", group="animals")
        with pytest.raises(InvalidInput):
            curator.set_budget(group="not a name!")
        with pytest.raises(InvalidInput):
            curator.set_budget_group("animals", "bear")  # a string, not a list
        with pytest.raises(InvalidInput):
            curator.spend(day="yesterday")
        curator.set_budget_group("animals", ["bear"])
        with pytest.raises(InvalidInput) as caught:
            curator.set_budget_group("birds", ["owl", "bear"])
        assert "animals" in str(caught.value)
        assert [(g.name, g.members) for g in curator.budgets().groups] == [("animals", ["bear"])]


def test_a_dollar_budget_counts_what_litellm_prices(model_settings: ModelSettings) -> None:
    # gpt-4o-mini is in litellm's local price list: $0.15 and $0.60 per million prompt and
    # completion tokens, so each scripted answer (100 + 20 tokens) costs $0.000027.
    priced = model_settings.model_copy(update={"model": "openai/gpt-4o-mini"})
    with respx.mock() as router, Curator(":memory:", model=priced) as curator:
        model = Model(curator, router, name="gpt-4o-mini")
        curator.set_budget("bear", usd_per_day=0.00006)
        asked = []
        for n in range(1, 5):
            before = model.of("bear")
            curator.observe(turn(n, BERRIES))
            asked.append(model.of("bear") - before)
        (day,) = curator.spend(character="bear")
    assert asked == [1, 1, 1, 0]  # $0.000054 spent after two calls is under the limit; 3 are over
    assert day.cost == pytest.approx(3 * 0.000027)
    assert day.fallbacks_by_reason == {"budget spent": 1}


def test_a_dollar_budget_on_a_model_litellm_cannot_price_is_told_once_and_shown(
        world: tuple[Curator, Model], caplog: pytest.LogCaptureFixture) -> None:
    # openai/test-model has no price in litellm's list: its calls cost nothing it can count, so
    # a dollar limit never trips; the game is told once, and the spend says how many calls
    # are not in the dollars, instead of a silent $0.
    curator, model = world
    gate._UNPRICED_TOLD.clear()
    curator.set_budget("bear", usd_per_day=0.01)
    with caplog.at_level("WARNING", logger="curator.budget"):
        for n in range(1, 4):
            curator.observe(turn(n, BERRIES))
    told = [r.getMessage() for r in caplog.records if r.name == "curator.budget"]
    assert len(told) == 1 and "openai/test-model" in told[0] and "tokens_per_day" in told[0]
    assert model.of("bear") == 3  # not held back: the limit cannot count them
    (day,) = curator.spend(character="bear")
    assert day.cost is None and day.unpriced == 3
    assert "- + 3 unpriced" in spend_table([day])[1]


def test_an_episode_end_follows_the_characters_budget(world: tuple[Curator, Model]) -> None:
    curator, model = world
    for n in range(1, 4):
        curator.observe(turn(n, WOLF, others=["wolf"]))
    curator.set_budget("bear", use="significant")
    curator.end_episode("bear")  # not a turn: `significant` lets it ask the model
    assert model.step("consolidate.j2") == 1
    curator.observe(turn(4, WOLF, others=["wolf"]))
    curator.set_budget("bear", use="never")
    curator.end_episode("bear")
    assert model.step("consolidate.j2") == 1
    last = curator.calls(character="bear")[-1]
    assert (last.step, last.reason, last.turn_id, last.game_day) == (
        "consolidate", "budget: never", None, "2025-03-01")  # Bear's clock is on that game day


def test_deleting_a_character_deletes_its_budget_and_membership() -> None:
    with Curator(":memory:") as curator:
        curator.observe(turn(1, WOLF, others=["wolf"]))
        curator.set_budget("bear", use="never")
        curator.set_budget_group("animals", ["bear", "wolf"])
        counts = curator.delete_character("bear")
        assert (counts["budgets"], counts["budget_members"]) == (1, 1)
        budgets = curator.budgets()
        assert budgets.characters == {} and [g.members for g in budgets.groups] == [["wolf"]]


def test_a_world_from_before_budgets_gets_each_calls_game_day(tmp_path: Any,
                                                              model_settings: ModelSettings) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    with respx.mock() as router, Curator(path, model=model_settings) as curator:
        Model(curator, router)
        curator.observe(turn(1, WOLF, others=["wolf"], observers=["owl"]))
        curator.observe(turn(2, BERRIES, day=2))
    # Back to the schema before m013: no budget tables, no game_day on the call log
    with sqlite3.connect(path) as conn:
        conn.executescript("drop index idx_calls_character_game_day; alter table calls drop column game_day; "
                           "drop table budgets; drop table budget_members; delete from _sqlite_migrations "
                           "where name = 'm013_model_budgets';")
    conn.close()
    with Curator(path) as curator:
        assert [(c.turn_id, c.game_day) for c in curator.calls()] == [
            ("b001", "2025-03-01"), ("b001", "2025-03-01"), ("b002", "2025-03-02")]
        assert [(r.day, r.character, r.calls) for r in curator.spend()] == [
            ("2025-03-01", "bear", 1), ("2025-03-01", "owl", 1), ("2025-03-02", "bear", 1)]
