"""Migration m013's schema: model budgets per character or group (issue #18; a character is in
at most one group, so its budget is never ambiguous), and the game day each model call is
charged to (calls logged before get their turn's day). Kept out of migrations.py for its size."""

from __future__ import annotations

from sqlite_utils import Database


def create_budgets(db: Database) -> None:
    """The `budgets` and `budget_members` tables and `calls.game_day`."""
    db.table("budgets").create({"scope": str, "name": str, "use": str, "min_significance": str,
                                "tokens_per_day": int, "usd_per_day": float, "updated_at": str},
                               pk=("scope", "name"), not_null={"use", "min_significance"})
    db.table("budget_members").create({"character": str, "grp": str}, pk="character", not_null={"grp"})
    db.table("calls").add_column("game_day", str)
    db.conn.execute("update calls set game_day = (select substr(t.world_time, 1, 10) from turns t "
                    "where t.id = calls.turn_id) where turn_id is not null")
    db.table("calls").create_index(["character", "game_day"])
