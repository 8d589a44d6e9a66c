"""The model budget half of the API: `BudgetMixin`, which `Curator` inherits.

    curator.set_budget("rabbit", use="significant", tokens_per_day=20_000)
    curator.set_budget_group("townsfolk", ["baker", "smith"])
    curator.set_budget(group="townsfolk", use="never")
    curator.spend(day="2025-03-01")              # per character and game day, from the call log

It owns setting, clearing and listing budgets (stored in the world: model/budget.py), the spend
table (model/spend.py), and the gate every round of model calls passes through (model/gate.py),
told here how significant the rules find a turn (the gateway may not import the turn flow).
With no model configured, budgets are kept but change nothing: every step is the fallback's.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from typing import TYPE_CHECKING

from pydantic import BaseModel

from curator.api.reads import WorldReads
from curator.domain.errors import InvalidInput
from curator.domain.models import SIGNIFICANCE
from curator.model.budget import (
    AppliedBudget,
    Budgets,
    BudgetSetting,
    Scope,
    all_budgets,
    applied,
    delete_setting,
    make_setting,
    name_of,
    save_setting,
    set_members,
)
from curator.model.gate import BudgetGate
from curator.model.rounds import Request
from curator.model.spend import SpendRow, spend_rows
from curator.store.oplog import log_operation
from curator.turn.steps import INTERPRET

if TYPE_CHECKING:
    from curator.model.llm import ModelGateway


def rules_significance(request: Request) -> tuple[BaseModel, float] | None:
    """For a turn's interpret step: the rules' interpretation and how significant their reading
    of the turn is (its band: "trivial" when the rules would keep no memory of it)."""
    if request.step is not INTERPRET:
        return None
    decision = INTERPRET.fallback(request.inputs)  # type: ignore[arg-type]
    band = decision.judgement.significance if decision.judgement is not None else None
    return decision, SIGNIFICANCE[band] if band is not None else decision.significance


class BudgetMixin(WorldReads):
    """Model budgets per character or group, and the spend per character and game day."""

    gateway: ModelGateway | None

    def set_budget(self, character: str | None = None, *, group: str | None = None, use: str = "always",
                   tokens_per_day: int | None = None, usd_per_day: float | None = None,
                   min_significance: str = "notable") -> BudgetSetting:
        """Set when the model is used for `character` (or every member of `group`) and what it
        may spend per game day; replaces the setting it had. `use`: "always", "significant" (only
        turns the rules find at least `min_significance`, and the reviews they trigger) or
        "never". A character's own setting wins over its group's. Bad values: `InvalidInput`."""
        scope, name = self._scope(character, group)
        setting = make_setting(use=use, tokens_per_day=tokens_per_day, usd_per_day=usd_per_day,
                               min_significance=min_significance)
        with self.world.transaction() as world:
            save_setting(world, scope, name, setting)
            log_operation(world, "api.set_budget", {"args": [], "kwargs": {
                "character": character, "group": group, "use": use, "tokens_per_day": tokens_per_day,
                "usd_per_day": usd_per_day, "min_significance": min_significance}})
        return setting

    def clear_budget(self, character: str | None = None, *, group: str | None = None) -> bool:
        """Remove a character's (or a group's) own setting; False when it had none."""
        scope, name = self._scope(character, group)
        with self.world.transaction() as world:
            log_operation(world, "api.clear_budget", {"args": [], "kwargs": {"character": character,
                                                                            "group": group}})
            return delete_setting(world, scope, name)

    def set_budget_group(self, group: str, members: Iterable[str]) -> list[str]:
        """Make `members` the members of budget group `group` (an empty list empties it). A
        character is in at most one group: one already in another is `InvalidInput`."""
        name = name_of(group, "group")
        if isinstance(members, str):
            raise InvalidInput("members is a list of character ids, not one string", field="members")
        ids = [self._id(m) if isinstance(m, str) else name_of(m, "character") for m in members]
        with self.world.transaction() as world:
            log_operation(world, "api.set_budget_group", {"args": [name, ids], "kwargs": {}})
            return set_members(world, name, ids)

    def budgets(self) -> Budgets:
        """Every budget setting the world holds, per character and per group with its members."""
        return all_budgets(self.world)

    def budget_of(self, character: str) -> AppliedBudget:
        """The setting that applies to `character`, and where it comes from."""
        who = self._id(character)
        return applied(self.world, [who])[who]

    def spend(self, *, day: str | date | None = None, character: str | None = None) -> list[SpendRow]:
        """The model spend per character and game day (calls, tokens, cost, fallbacks for
        budget), from the call log; `day` is a game day, YYYY-MM-DD."""
        text = day.isoformat() if isinstance(day, date) else day
        if text is not None:
            try:
                text = date.fromisoformat(text).isoformat()
            except (TypeError, ValueError) as error:
                raise InvalidInput(f"a game day is YYYY-MM-DD, got {day!r}", field="day") from error
        who = self._id(character) if character is not None else None
        return spend_rows(self.world, day=text, character=who)

    def _gate(self) -> BudgetGate:
        """The gate of one drive (Curator._drive): each round of requests passes through it."""
        assert self.gateway is not None
        return BudgetGate(lambda: self.world, self.gateway, rules_significance)

    def _scope(self, character: str | None, group: str | None) -> tuple[Scope, str]:
        if (character is None) == (group is None):
            raise InvalidInput("name a character or a group (one of them)", field="character")
        if group is not None:
            return "group", name_of(group, "group")
        assert character is not None
        if not isinstance(character, str):
            raise InvalidInput(f"a character id is text, not {type(character).__name__}", field="character")
        return "character", self._id(character)
