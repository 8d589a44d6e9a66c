"""The call log: one row per model call in the world database, and the figures read from it.

Like simonw/llm's log, every call a step made is kept: the template and its hash, the
model, the messages sent, the raw answer, the parsed decision or the error, tokens, cost
where litellm knows it, latency, attempts and the outcome (`model` when the decision was
used, `fallback` with a reason when it was not). Secrets never reach this table: messages
are what the template rendered, and API keys travel only in HTTP headers.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from curator.model.spend import BUDGET_REASONS
from curator.store.world import World


class CallRecord(BaseModel):
    """One model call made for one step of one character."""

    id: str
    turn_id: str | None = None
    character: str
    step: str
    template: str
    template_hash: str
    model: str
    messages: list[dict[str, Any]] = Field(default_factory=list)
    response: str | None = None  # the raw text of the last answer
    decision: dict[str, Any] | None = None
    error: str | None = None
    outcome: Literal["model", "fallback"]
    reason: str | None = None  # why the fallback decided, when it did
    attempts: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None
    latency_ms: float = 0.0
    started_at: str
    game_day: str | None = None  # YYYY-MM-DD of game time: the day's budget it was charged to


_COLUMNS = tuple(CallRecord.model_fields)
_JSON_COLUMNS = {"messages", "decision"}


def log_calls(world: World, records: list[CallRecord]) -> None:
    """Append records to the log (inside the caller's transaction)."""
    if not records:
        return
    row = world.conn.execute("select coalesce(max(seq), 0) from calls").fetchone()
    seq = int(row[0])
    rows = []
    for record in records:
        seq += 1
        values = record.model_dump()
        rows.append((seq, *[json.dumps(values[c]) if c in _JSON_COLUMNS and values[c] is not None
                            else values[c] for c in _COLUMNS]))
    world.conn.executemany(
        f"insert or ignore into calls (seq, {', '.join(_COLUMNS)}) "
        f"values (?, {', '.join('?' for _ in _COLUMNS)})", rows)


def read_calls(world: World, *, turn_id: str | None = None, character: str | None = None,
               outcome: str | None = None, limit: int | None = None) -> list[CallRecord]:
    """Calls, newest last; filtered by turn, character or outcome; the last `limit` of them."""
    where, params = [], []
    for column, value in (("turn_id", turn_id), ("character", character), ("outcome", outcome)):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    sql = f"select {', '.join(_COLUMNS)} from calls"
    if where:
        sql += " where " + " and ".join(where)
    sql += " order by seq desc"
    if limit is not None:
        sql += f" limit {int(limit)}"
    records = []
    for row in world.conn.execute(sql, params).fetchall():
        values = dict(zip(_COLUMNS, row, strict=True))
        for column in _JSON_COLUMNS:
            if values[column] is not None:
                values[column] = json.loads(values[column])
        records.append(CallRecord.model_validate(values))
    return records[::-1]


class CallSummary(BaseModel):
    """Totals over a set of calls: what `curator play` and `curator calls` print."""

    calls: int = 0  # rows of the log, the steps a budget held back from the model included
    by_model: int = 0
    held_by_budget: int = 0  # steps a budget sent to the fallback: no request, no tokens
    fallbacks_by_reason: dict[str, int] = Field(default_factory=dict)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    attempts: int = 0
    mean_latency_ms: float = 0.0


def last_call_seq(world: World) -> int:
    return int(world.conn.execute("select coalesce(max(seq), 0) from calls").fetchone()[0])


def summarize_calls(world: World, *, after_seq: int = 0) -> CallSummary:
    """Totals of the calls logged after `after_seq`, in SQL (messages are never loaded)."""
    rows = world.conn.execute(
        "select outcome, reason, count(*), sum(coalesce(prompt_tokens, 0)), "
        "sum(coalesce(completion_tokens, 0)), sum(cost), sum(attempts), sum(latency_ms) "
        "from calls where seq > ? group by outcome, reason", (after_seq,)).fetchall()
    summary = CallSummary()
    latency = 0.0
    costs: list[float] = []
    for outcome, reason, count, prompt, completion, cost, attempts, total_latency in rows:
        summary.calls += count
        if reason in BUDGET_REASONS:
            summary.held_by_budget += count
        summary.prompt_tokens += int(prompt or 0)
        summary.completion_tokens += int(completion or 0)
        summary.attempts += int(attempts or 0)
        latency += float(total_latency or 0.0)
        if cost is not None:
            costs.append(float(cost))
        if outcome == "model":
            summary.by_model += count
        else:
            key = reason or "unknown"
            summary.fallbacks_by_reason[key] = summary.fallbacks_by_reason.get(key, 0) + count
    summary.cost = round(sum(costs), 6) if costs else None
    asked = summary.calls - summary.held_by_budget  # a held-back step took no time to answer
    summary.mean_latency_ms = round(latency / asked, 2) if asked else 0.0
    return summary
