"""A rewind replays what other parts of the API write between turns: budgets (issue #18's
model budget), groups and what they know (who knows what), so a reloaded save has the
settings it had at that turn, and an undo brings the later ones back."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import TRANSCRIPT

from curator import Curator

LINES = [line for line in TRANSCRIPT.read_text().splitlines() if line.strip()]


def _id(line: str) -> str:
    return str(json.loads(line)["id"])


def test_budgets_groups_and_group_knowledge_follow_a_rewind(tmp_path: Path) -> None:
    with Curator(tmp_path / "w.db") as world:
        for line in LINES[:10]:
            world.observe(line)
        world.set_budget("bear", use="significant", tokens_per_day=5_000)
        world.set_budget_group("animals", ["wolf", "fox"])
        world.join_group("valley", "bear", "wolf")
        world.add_group_knowledge("valley", "A great storm flooded the river last spring.")
        for line in LINES[10:20]:
            world.observe(line)
        world.clear_budget("bear")
        world.leave_group("valley", "wolf")
        world.join_group("valley", "fox")  # fox is given what the valley knows
        for line in LINES[20:30]:
            world.observe(line)
        then_budgets = world.budgets()
        then_groups = (world.group_members("valley"), world.export_world())

        world.rewind(_id(LINES[14]))  # after the first settings, before the second
        assert world.budget_of("bear").setting.use == "significant"
        assert world.group_members("valley") == ["bear", "wolf"]
        assert [k["content"] for k in world.group_knowledge("valley")] == \
            ["A great storm flooded the river last spring."]
        assert "storm" not in json.dumps(world.export_character("fox"))

        assert [g.name for g in world.budgets().groups] == ["animals"]

        world.rewind(undo=True)  # back to the end
        assert world.budgets() == then_budgets
        assert (world.group_members("valley"), world.export_world()) == then_groups

        world.rewind(_id(LINES[5]))  # before any of them
        assert world.groups() == []
        assert world.budget_of("bear").setting.use == "always"
        assert world.budgets().groups == []
