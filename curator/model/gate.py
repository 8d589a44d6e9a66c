"""The budget gate: which requests of a round go to the model, and the fallback for the rest.

Every round of requests (rounds.py) passes through a `BudgetGate` on its way to the gateway.
For each request it finds the budget of the character the request is for (budget.py) and the
game day it belongs to, then:

- `never`: the fallback decides, reason `budget: never`;
- `significant`: a turn's interpret step goes to the model only when the rules' own reading
  of the turn reaches the setting's `min_significance`; the later steps of that turn for that
  character (appraisal, core and fade reviews, reconciling) follow the interpret step's fate;
  otherwise the fallback decides, reason `budget: not significant`. Work outside a turn (an
  episode end, an evolution cycle) is not a turn to judge: it goes to the model;
- a daily limit (tokens, dollars) already reached by the calls charged to the character on
  that game day: the fallback decides, reason `budget spent`.

The fallback's call is logged like any other (no HTTP request, no tokens), so `curator calls`,
`curator spend` and `play`'s summary show it. A call is charged to the one character it is made
for: a turn with three perceivers makes one interpret call per perceiver, each charged to its
perceiver; no call is shared. Spend is read before each round, so the calls of the round that
crosses a limit all complete: a day's spend exceeds its limit by at most one round's calls.

Every call, gated or not, is stamped with its game day (`CallRecord.game_day`): a turn's game
time, else the character's clock, else the world clock, else today in UTC.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from pydantic import BaseModel

from curator.domain.models import SIGNIFICANCE, iso
from curator.domain.results import StepRecord
from curator.model import prompts
from curator.model.budget import AppliedBudget, any_budget, applied
from curator.model.calls import CallRecord
from curator.model.rounds import Answer, Request
from curator.model.spend import BUDGET_SPENT, NEVER, NOT_SIGNIFICANT, spent
from curator.store.world import World

if TYPE_CHECKING:
    from curator.model.llm import ModelGateway

log = logging.getLogger("curator.budget")
# Models whose unknown price was already told, once per process: a dollar limit cannot count
# their calls, and a game that set one must hear it, but not on every turn.
_UNPRICED_TOLD: set[str] = set()

# For a turn's first step: the rules' decision and how significant they find the turn (0..1);
# None for every other step. Given by the turn flow, which the gateway may not import.
Significance = Callable[[Request], tuple[BaseModel, float] | None]


class BudgetGate:
    """Screens the rounds of one drive (a batch of turns, an episode end, a cycle): remembers
    across its rounds which (turn, character) the model was let to interpret."""

    def __init__(self, world: Callable[[], World], gateway: ModelGateway, significance: Significance):
        self.world, self.gateway, self.significance = world, gateway, significance
        self.significant: dict[tuple[str, str], bool] = {}

    def call_many(self, requests: list[Request]) -> list[Answer]:
        held, days = self.screen(requests)
        sent = [r for r, a in zip(requests, held, strict=True) if a is None]
        return self._merged(held, days, self.gateway.call_many(sent) if sent else [])

    async def acall_many(self, requests: list[Request]) -> list[Answer]:
        held, days = self.screen(requests)
        sent = [r for r, a in zip(requests, held, strict=True) if a is None]
        return self._merged(held, days, await self.gateway.acall_many(sent) if sent else [])

    def _merged(self, held: list[Answer | None], days: list[str], sent: list[Answer]) -> list[Answer]:
        """The round's answers in its order: the gate's own, and the gateway's for the rest."""
        answers = iter(sent)
        return [self._dated(a if a is not None else next(answers), day)
                for a, day in zip(held, days, strict=True)]

    def screen(self, requests: list[Request]) -> tuple[list[Answer | None], list[str]]:
        """For each request: the fallback's answer when its budget keeps it from the model
        (None when it may go), and its game day."""
        world = self.world()
        days = self._days(world, requests)
        if not any_budget(world):
            return [None] * len(requests), days
        budgets = applied(world, {r.character for r in requests})
        spend: dict[tuple[str, str], tuple[int, float, int]] = {}
        held: list[Answer | None] = []
        for request, day in zip(requests, days, strict=True):
            budget = budgets[request.character]
            if budget.setting.unlimited:
                held.append(None)
                continue
            reason, decision = self._policy(request, budget)
            if reason is None and self._spent(world, budget, day, spend):
                reason = BUDGET_SPENT
            held.append(None if reason is None else self._fallback(request, reason, day, decision))
        return held, days

    def _policy(self, request: Request, budget: AppliedBudget) -> tuple[str | None, BaseModel | None]:
        """Why `use` keeps this request from the model (None: it does not), and the rules'
        decision when judging the turn already made it."""
        setting = budget.setting
        if setting.use == "never":
            return NEVER, None
        if setting.use == "always" or request.turn_id is None:
            return None, None
        key = (request.turn_id, request.character)
        judged = self.significance(request)
        decision = None
        if judged is not None:
            decision, score = judged
            self.significant[key] = score >= SIGNIFICANCE[setting.min_significance]
        # A later step of a turn whose interpret step was not seen in this drive: not let through.
        return (None, None) if self.significant.get(key, False) else (NOT_SIGNIFICANT, decision)

    def _spent(self, world: World, budget: AppliedBudget, day: str,
               spend: dict[tuple[str, str], tuple[int, float, int]]) -> bool:
        setting = budget.setting
        if setting.tokens_per_day is None and setting.usd_per_day is None:
            return False
        key = (budget.character, day)
        if key not in spend:
            spend[key] = spent(world, budget.character, day)
        tokens, dollars, unpriced = spend[key]
        model = self.gateway.settings.model or "?"
        if setting.usd_per_day is not None and unpriced and model not in _UNPRICED_TOLD:
            _UNPRICED_TOLD.add(model)
            log.warning("%s's limit of $%g a day cannot count the calls to %s: litellm knows no "
                        "price for it (%d call(s) today are not in the dollars); set "
                        "tokens_per_day to bound it", budget.character, setting.usd_per_day,
                        model, unpriced)
        return ((setting.tokens_per_day is not None and tokens >= setting.tokens_per_day)
                or (setting.usd_per_day is not None and dollars >= setting.usd_per_day))

    def _fallback(self, request: Request, reason: str, day: str, decision: BaseModel | None) -> Answer:
        step = request.step
        call = CallRecord(
            id=uuid.uuid4().hex, turn_id=request.turn_id, character=request.character, step=step.name,
            template=step.template, template_hash=prompts.template_hash(step.template),
            model=self.gateway.settings.model, outcome="fallback", reason=reason,
            started_at=iso(datetime.now(UTC)), game_day=day)
        record = StepRecord(character=request.character, step=step.name, template=step.template,
                            decided_by="fallback", reason=reason, call_id=call.id)
        return Answer(decision if decision is not None else step.fallback(request.inputs), record, call)

    @staticmethod
    def _days(world: World, requests: list[Request]) -> list[str]:
        untimed = {r.character for r in requests if r.world_time is None}
        clocks = world.character_clocks(list(untimed)) if untimed else {}
        fallback = world.clock() if untimed else None
        days = []
        for request in requests:
            when = request.world_time or clocks.get(request.character) or fallback or datetime.now(UTC)
            days.append(iso(when)[:10])
        return days

    @staticmethod
    def _dated(answer: Answer, day: str) -> Answer:
        if answer.call is None or answer.call.game_day == day:
            return answer
        return replace(answer, call=answer.call.model_copy(update={"game_day": day}))
