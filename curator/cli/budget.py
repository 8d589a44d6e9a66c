"""The command line for model budgets: `curator budget …` and `curator spend`.

Registered on the `curator` group through lazy.py, with the shared conventions (options.py):
`--db` after the command's name, `--json` on the commands that show state, errors as one line
on stderr (exit status 2 for bad input). The budgets themselves are the API's (api/budget.py).
"""

from __future__ import annotations

from typing import Any

import click

from curator.api.curator import Curator
from curator.cli.options import READ_ONLY, db_option, json_option, one_line_errors, open_curator, print_json
from curator.domain.models import normalize_character_id
from curator.model.budget import USES, BudgetSetting
from curator.model.spend import SpendRow

BANDS = ("minor", "notable", "major", "defining")


def _open(db: str, *, read: bool = False) -> Curator:
    return open_curator(db, read=read, model=None, decider=READ_ONLY)


def _who(character: str | None, group: str | None) -> str:
    """As the world stores it (called once the API has accepted the name)."""
    return f"group {normalize_character_id(group)}" if group is not None else normalize_character_id(
        character or "")


def describe(setting: BudgetSetting) -> str:
    """A setting in a designer's words: 'significant (notable and above), 20,000 tokens/day'."""
    parts = [setting.use if setting.use != "significant"
             else f"significant ({setting.min_significance} and above)"]
    if setting.tokens_per_day is not None:
        parts.append(f"{setting.tokens_per_day:,} tokens/day")
    if setting.usd_per_day is not None:
        parts.append(f"${setting.usd_per_day:g}/day")
    if len(parts) == 1 and setting.use != "never":
        parts.append("no limit")
    return ", ".join(parts)


@click.group(name="budget")
def budget_group() -> None:
    """Model budgets: when the model is used for a character or group, and what it may spend.

    `use`: always (the default), significant (only the turns the rules find significant, and
    the reviews they trigger) or never. A daily limit in tokens, or in US dollars where
    litellm knows the model's price, counts the calls charged to the character on each game
    day; once it is reached, its steps go to the fallback with reason `budget spent` until
    the next game day. A character's own setting wins over its group's.
    """


@budget_group.command(name="set")
@click.argument("character", required=False)
@click.option("--group", help="Set it for every member of this budget group instead")
@click.option("--use", type=click.Choice(USES), default="always", show_default=True,
              help="When the model is used")
@click.option("--min-significance", type=click.Choice(BANDS), default="notable", show_default=True,
              help="With --use significant: the least significance a turn needs")
@click.option("--tokens-per-day", type=click.IntRange(1), help="Prompt + completion tokens per game day")
@click.option("--usd-per-day", type=click.FloatRange(min=0, min_open=True),
              help="US dollars per game day (where litellm knows the model's price)")
@db_option
@json_option
@one_line_errors
def budget_set(character: str | None, group: str | None, use: str, min_significance: str,
               tokens_per_day: int | None, usd_per_day: float | None, db: str, as_json: bool) -> None:
    """Set CHARACTER's (or --group's) model budget; replaces the setting it had."""
    with _open(db) as curator:
        setting = curator.set_budget(character, group=group, use=use, tokens_per_day=tokens_per_day,
                                     usd_per_day=usd_per_day, min_significance=min_significance)
    who = _who(character, group)
    if as_json:
        print_json({"for": who, **setting.model_dump(mode="json")})
        return
    click.echo(f"Budget for {who}: {describe(setting)}")


@budget_group.command(name="group")
@click.argument("name")
@click.argument("characters", nargs=-1)
@db_option
@json_option
@one_line_errors
def budget_group_command(name: str, characters: tuple[str, ...], db: str, as_json: bool) -> None:
    """Make CHARACTERS the members of budget group NAME (none: empty it)."""
    with _open(db) as curator:
        members = curator.set_budget_group(name, list(characters))
    if as_json:
        print_json({"group": name.strip().casefold(), "members": members})
        return
    click.echo(f"Budget group {name.strip().casefold()}: " + (", ".join(members) or "no members"))


@budget_group.command(name="clear")
@click.argument("character", required=False)
@click.option("--group", help="Clear this budget group's setting instead (its members stay)")
@db_option
@one_line_errors
def budget_clear(character: str | None, group: str | None, db: str) -> None:
    """Remove CHARACTER's (or --group's) own setting: its group's, else the default, applies."""
    with _open(db) as curator:
        removed = curator.clear_budget(character, group=group)
    who = _who(character, group)
    click.echo(f"Budget for {who} cleared" if removed else f"{who} had no budget of its own")


@budget_group.command(name="show")
@click.argument("character", required=False)
@db_option
@json_option
@one_line_errors
def budget_show(character: str | None, db: str, as_json: bool) -> None:
    """Show every budget the world holds, or the one that applies to CHARACTER."""
    with _open(db, read=True) as curator:
        if character is not None:
            applied = curator.budget_of(character)
            if as_json:
                print_json(applied.model_dump(mode="json"))
                return
            source = {"character": "its own setting", "default": "the default"}.get(
                applied.source, applied.source)
            click.echo(f"{applied.character}: {describe(applied.setting)} ({source})")
            return
        budgets = curator.budgets()
    if as_json:
        print_json(budgets.model_dump(mode="json"))
        return
    for name, setting in budgets.characters.items():
        click.echo(f"{name}: {describe(setting)}")
    for group in budgets.groups:
        members = ", ".join(group.members) or "no members"
        click.echo(f"group {group.name} ({members}): "
                   + (describe(group.setting) if group.setting is not None else "no setting"))
    click.echo("Everyone else: always, no limit")


def _cost(dollars: float | None, unpriced: int) -> str:
    """Dollars where litellm priced the calls; the calls it could not price, said, not hidden
    in a $0."""
    shown = "-" if dollars is None else f"${dollars:.4f}"
    return shown if not unpriced else f"{shown} + {unpriced} unpriced"


def spend_table(rows: list[SpendRow]) -> list[str]:
    """The spend as aligned columns, a total line under them."""
    header = ("game day", "character", "calls", "by model", "prompt", "completion", "cost",
              "budget fallbacks")
    body = [(r.day or "-", r.character, str(r.calls), str(r.by_model), f"{r.prompt_tokens:,}",
             f"{r.completion_tokens:,}", _cost(r.cost, r.unpriced), str(r.budget_fallbacks))
            for r in rows]
    costs = [r.cost for r in rows if r.cost is not None]
    total = ("total", "", str(sum(r.calls for r in rows)), str(sum(r.by_model for r in rows)),
             f"{sum(r.prompt_tokens for r in rows):,}", f"{sum(r.completion_tokens for r in rows):,}",
             _cost(sum(costs) if costs else None, sum(r.unpriced for r in rows)),
             str(sum(r.budget_fallbacks for r in rows)))
    table = [header, *body, total]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) if i < 2 else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()
    return [line(cells) for cells in table]


@click.command(name="spend")
@click.option("--day", help="Only this game day (YYYY-MM-DD)")
@click.option("--character", help="Only this character")
@db_option
@json_option
@one_line_errors
def spend_command(day: str | None, character: str | None, db: str, as_json: bool) -> None:
    """The model spend per character and game day: calls, tokens, cost, fallbacks for budget."""
    with _open(db, read=True) as curator:
        rows = curator.spend(day=day, character=character)
    if as_json:
        document: dict[str, Any] = {"rows": [{**r.model_dump(mode="json"), "tokens": r.tokens} for r in rows]}
        costs = [r.cost for r in rows if r.cost is not None]
        document["totals"] = {
            "calls": sum(r.calls for r in rows), "by_model": sum(r.by_model for r in rows),
            "prompt_tokens": sum(r.prompt_tokens for r in rows),
            "completion_tokens": sum(r.completion_tokens for r in rows),
            "cost": round(sum(costs), 8) if costs else None,
            "unpriced": sum(r.unpriced for r in rows),
            "budget_fallbacks": sum(r.budget_fallbacks for r in rows)}
        print_json(document)
        return
    if not rows:
        click.echo("No model calls logged" + (" that match." if day or character else "."))
        return
    for text in spend_table(rows):
        click.echo(text)
