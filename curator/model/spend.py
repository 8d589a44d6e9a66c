"""Spend: what the model cost per character and per game day, read from the call log.

Each call is charged to the one character it was made for (`calls.character`) on the game day
it was made in (`calls.game_day`, m013). The budget gate reads `spent` before each round of
calls; `curator spend` prints `spend_rows`. Both are sums over the same rows of the call log,
so the table always adds up to the log.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from curator.store.world import World

# The reasons a budget sends a step to its fallback without asking the model (gate.py).
BUDGET_SPENT = "budget spent"
NEVER = "budget: never"
NOT_SIGNIFICANT = "budget: not significant"
BUDGET_REASONS = (BUDGET_SPENT, NEVER, NOT_SIGNIFICANT)


class SpendRow(BaseModel):
    """One character's model spend on one game day."""

    character: str
    day: str | None  # YYYY-MM-DD of game time; None for calls logged before budgets existed
    calls: int = 0  # calls a budget let through (a step it held back is not one)
    by_model: int = 0  # of which the model's answer decided the step
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # US dollars, where litellm knows the model's price
    unpriced: int = 0  # calls to a model whose price litellm does not know: not in `cost`
    budget_fallbacks: int = 0  # steps a budget sent to the fallback (any of BUDGET_REASONS)
    fallbacks_by_reason: dict[str, int] = Field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def spent(world: World, character: str, day: str) -> tuple[int, float, int]:
    """Tokens (prompt + completion) and dollars charged to `character` on game day `day`, and
    how many of its calls reached a model whose price litellm does not know (their dollars are
    not counted)."""
    row = world.conn.execute(
        "select coalesce(sum(coalesce(prompt_tokens, 0) + coalesce(completion_tokens, 0)), 0), "
        "coalesce(sum(cost), 0.0), coalesce(sum(prompt_tokens is not null and cost is null), 0) "
        "from calls where character = ? and game_day = ?",
        (character, day)).fetchone()
    return int(row[0]), float(row[1]), int(row[2])


def spend_rows(world: World, *, day: str | None = None, character: str | None = None) -> list[SpendRow]:
    """The spend per character and game day (filtered by either), by day then character."""
    where, params = [], []
    if day is not None:
        where.append("game_day = ?")
        params.append(day)
    if character is not None:
        where.append("character = ?")
        params.append(character)
    sql = ("select character, game_day, outcome, reason, count(*), sum(coalesce(prompt_tokens, 0)), "
           "sum(coalesce(completion_tokens, 0)), sum(cost), "
           "sum(prompt_tokens is not null and cost is null) from calls")
    if where:
        sql += " where " + " and ".join(where)
    sql += " group by character, game_day, outcome, reason"
    rows: dict[tuple[str, str | None], SpendRow] = {}
    for who, game_day, outcome, reason, count, prompt, completion, cost, unpriced in world.conn.execute(
            sql, params):
        row = rows.setdefault((who, game_day), SpendRow(character=who, day=game_day))
        row.prompt_tokens += int(prompt or 0)
        row.completion_tokens += int(completion or 0)
        if cost is not None:
            row.cost = round((row.cost or 0.0) + float(cost), 8)
        row.unpriced += int(unpriced or 0)
        if outcome == "model":
            row.calls += count
            row.by_model += count
            continue
        key = reason or "unknown"
        row.fallbacks_by_reason[key] = row.fallbacks_by_reason.get(key, 0) + count
        if key in BUDGET_REASONS:
            row.budget_fallbacks += count
        else:
            row.calls += count
    return sorted(rows.values(), key=lambda r: (r.day or "", r.character))
