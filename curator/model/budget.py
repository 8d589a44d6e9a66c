"""Model budgets: when the model is used for a character, and how much it may spend per game day.

It owns `BudgetSetting` (`use`: `always`, `significant` or `never`; the least significance a
turn needs under `significant`; tokens and US dollars per game day), how settings are stored
(m013: `budgets` per character or group, `budget_members` with each character in at most one
group) and which setting applies to a character: its own, else its group's, else the default
(`always`, no limit: a world with no budget behaves as before budgets existed).

The gate that applies them to each round of requests is `gate.py`; the spend read back from the
call log is `spend.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from curator.domain.errors import InvalidInput
from curator.domain.models import Significance, iso, normalize_character_id
from curator.store.world import World

Use = Literal["always", "significant", "never"]
Scope = Literal["character", "group"]
USES: tuple[str, ...] = ("always", "significant", "never")


class BudgetSetting(BaseModel):
    """When the model is used for a character and how much it may spend per game day."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    use: Use = Field(default="always", description="always; significant: only turns the rules find "
                                                   "significant, and the reviews they trigger; never")
    min_significance: Significance = Field(
        default="notable", description="under `significant`, the least band the rules' reading of a "
                                       "turn must reach (minor, notable, major, defining)")
    tokens_per_day: StrictInt | None = Field(default=None, ge=1, le=10**12,
                                             description="prompt + completion tokens per game day")
    usd_per_day: float | None = Field(default=None, gt=0, le=10**6, allow_inf_nan=False,
                                      description="US dollars per game day, where litellm knows the "
                                                  "model's price")

    @property
    def unlimited(self) -> bool:
        """The default: the model for every step, no limit (nothing to check)."""
        return self.use == "always" and self.tokens_per_day is None and self.usd_per_day is None


DEFAULT = BudgetSetting()


class AppliedBudget(BaseModel):
    """The setting that applies to one character, and where it comes from."""

    character: str
    setting: BudgetSetting
    source: str  # "character", "group NAME" or "default"


class GroupBudget(BaseModel):
    """A named set of characters and the setting each of its members gets."""

    name: str
    members: list[str] = Field(default_factory=list)
    setting: BudgetSetting | None = None


class Budgets(BaseModel):
    """Every budget a world holds: per character, and per group with its members."""

    characters: dict[str, BudgetSetting] = Field(default_factory=dict)
    groups: list[GroupBudget] = Field(default_factory=list)


def make_setting(**values: object) -> BudgetSetting:
    """A setting from loose values (API or CLI), or `InvalidInput` naming the first bad field."""
    try:
        return BudgetSetting.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(map(str, first["loc"])) or "budget"
        raise InvalidInput(f"{first['msg']} (got {first.get('input')!r})", field=field) from error


def name_of(value: object, what: str) -> str:
    """A character id or group name: the same 1-64 letters, digits, '_', '.' or '-'."""
    if not isinstance(value, str):
        raise InvalidInput(f"a {what} name is text, not {type(value).__name__}", field=what)
    try:
        return normalize_character_id(value)
    except ValueError as error:
        raise InvalidInput(str(error).replace("character id", f"{what} name"), field=what) from error


def save_setting(world: World, scope: Scope, name: str, setting: BudgetSetting) -> None:
    world.conn.execute(
        "insert or replace into budgets (scope, name, use, min_significance, tokens_per_day, "
        "usd_per_day, updated_at) values (?, ?, ?, ?, ?, ?, ?)",
        (scope, name, setting.use, setting.min_significance, setting.tokens_per_day,
         setting.usd_per_day, iso(datetime.now(UTC))))


def delete_setting(world: World, scope: Scope, name: str) -> bool:
    return world.conn.execute("delete from budgets where scope = ? and name = ?",
                              (scope, name)).rowcount > 0


def set_members(world: World, group: str, members: Iterable[str]) -> list[str]:
    """Make `members` the group's members (replacing the ones it had). A character already in
    another group is refused: one character, one group, so its budget is never ambiguous."""
    wanted = list(dict.fromkeys(members))
    if wanted:
        marks = ", ".join("?" for _ in wanted)
        taken = world.conn.execute(
            f"select character, grp from budget_members where grp != ? and character in ({marks}) "
            "order by character", (group, *wanted)).fetchall()
        if taken:
            who, other = taken[0]
            raise InvalidInput(f"{who} is already in the budget group {other!r}; take it out of that "
                               "group first", field="members")
    world.conn.execute("delete from budget_members where grp = ?", (group,))
    world.conn.executemany("insert into budget_members (character, grp) values (?, ?)",
                           [(who, group) for who in wanted])
    return wanted


def _setting(row: tuple[object, ...]) -> BudgetSetting:
    use, band, tokens, usd = row
    return BudgetSetting.model_validate({"use": use, "min_significance": band,
                                         "tokens_per_day": tokens, "usd_per_day": usd})


def any_budget(world: World) -> bool:
    """Whether the world holds any setting at all (most don't: then nothing is checked)."""
    return bool(world.conn.execute("select exists (select 1 from budgets)").fetchone()[0])


def applied(world: World, characters: Iterable[str]) -> dict[str, AppliedBudget]:
    """The setting that applies to each character: its own, else its group's, else the default."""
    who = list(dict.fromkeys(characters))
    if not who:
        return {}
    marks = ", ".join("?" for _ in who)
    own = {row[0]: _setting(row[1:]) for row in world.conn.execute(
        f"select name, use, min_significance, tokens_per_day, usd_per_day from budgets "
        f"where scope = 'character' and name in ({marks})", who)}
    grouped = {row[0]: (row[1], None if row[2] is None else _setting(row[2:])) for row in world.conn.execute(
        f"select m.character, m.grp, b.use, b.min_significance, b.tokens_per_day, b.usd_per_day "
        f"from budget_members m left join budgets b on b.scope = 'group' and b.name = m.grp "
        f"where m.character in ({marks})", who)}
    result = {}
    for character in who:
        if character in own:
            result[character] = AppliedBudget(character=character, setting=own[character],
                                              source="character")
            continue
        group, setting = grouped.get(character, (None, None))
        if setting is not None:
            result[character] = AppliedBudget(character=character, setting=setting, source=f"group {group}")
        else:
            result[character] = AppliedBudget(character=character, setting=DEFAULT, source="default")
    return result


def all_budgets(world: World) -> Budgets:
    budgets = Budgets()
    groups: dict[str, GroupBudget] = {}
    for scope, name, *rest in world.conn.execute(
            "select scope, name, use, min_significance, tokens_per_day, usd_per_day from budgets "
            "order by scope, name"):
        if scope == "character":
            budgets.characters[name] = _setting(tuple(rest))
        else:
            groups[name] = GroupBudget(name=name, setting=_setting(tuple(rest)))
    for character, group in world.conn.execute(
            "select character, grp from budget_members order by grp, character"):
        groups.setdefault(group, GroupBudget(name=group)).members.append(character)
    budgets.groups = [groups[name] for name in sorted(groups)]
    return budgets
