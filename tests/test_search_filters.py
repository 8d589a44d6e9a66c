"""Search with filters (issue #19): kinds, minimum importance, a span of world time, subject, tier.

Each filter is checked against the memories themselves: every hit passes it, and nothing the
unfiltered search finds that passes it goes missing. Bad values are typed errors (exit 2)."""

from __future__ import annotations

import json
import math
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from curator import Curator
from curator.cli import cli
from curator.domain.errors import InvalidInput, UnknownCharacter
from curator.domain.models import Memory

QUERIES = ["poacher rifle trap", "fish river salmon", "honey berries", "teeth growl"]


def everything(curator: Curator, owner: str) -> list[Memory]:
    """Every memory `owner` has, live or archived."""
    char = curator.character(owner)
    live = [*char.self_memories.recent_events, *char.self_memories.core_memories]
    for rel in char.relationships.values():
        live += [*rel.recent_memories, *rel.core_memories]
    return live + curator.archived(owner)


def check(curator: Curator, passes: Any, **filters: Any) -> None:
    total = 0
    for query in QUERIES:
        unfiltered = curator.search("bear", query, limit=1_000)
        found = curator.search("bear", query, limit=1_000, **filters)
        assert all(passes(r.memory) for r in found), (query, filters)
        expected = {r.memory.id for r in unfiltered if passes(r.memory)}
        assert expected <= {r.memory.id for r in found}, (query, filters)
        total += len(found)
        # The filter applies before the limit: the best that passes, not the best that passes
        # among the unfiltered top.
        best = [r.memory.id for r in unfiltered if passes(r.memory)][:1]
        assert [r.memory.id for r in curator.search("bear", query, limit=1, **filters)] == best
    assert total, filters  # not vacuous: the filter let something through


def test_kinds_keep_only_memories_of_those_kinds(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    kinds = {m.kind.value for m in everything(curator, "bear")}
    assert len(kinds) >= 3  # the transcript gives bear memories of several kinds
    for kind in sorted(kinds):
        check(curator, lambda m, k=kind: m.kind.value == k, kinds=[kind])
    check(curator, lambda m: m.kind.value in ("danger", "kindness"), kinds=["danger", "Kindness "])


def test_min_importance_keeps_memories_at_least_that_important(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    for floor in (0.0, 0.5, 0.8, 1.0):
        check(curator, lambda m, f=floor: m.importance >= f, min_importance=floor)


def test_a_span_of_world_time_includes_both_ends(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    times = sorted({m.created_at for m in everything(curator, "bear")})
    since, until = times[len(times) // 4], times[3 * len(times) // 4]
    check(curator, lambda m: since <= m.created_at <= until, since=since.isoformat(), until=until)
    check(curator, lambda m: m.created_at >= since, since=since)
    # An exact bound is included: the memories formed at that very time are found.
    at = curator.search("bear", "", since=until, until=until, limit=1_000)
    assert at and {r.memory.created_at for r in at} == {until}


def test_about_keeps_memories_about_those_characters_and_the_owner_means_self(
        played: tuple[Curator, Any]) -> None:
    curator, _ = played
    check(curator, lambda m: m.subject == "wolf", about="wolf")
    check(curator, lambda m: m.subject in ("wolf", "fox"), about=["Wolf", "fox"])
    check(curator, lambda m: m.subject is None, about="bear")
    assert curator.search("bear", "", about="bear", limit=1_000)


def test_tiers_keep_memories_in_those_tiers(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    tiers = {m.tier.value for m in everything(curator, "bear")}
    assert tiers == {"recent", "core", "archived"}
    for tier in sorted(tiers):
        check(curator, lambda m, t=tier: m.tier.value == t, tiers=[tier])


def test_filters_combine(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    check(curator, lambda m: m.subject is None and m.importance >= 0.5 and m.tier.value != "archived",
          about="bear", min_importance=0.5, tiers=["recent", "core"])


def test_an_empty_query_with_a_filter_lists_every_memory_that_passes(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    assert curator.search("bear", "") == []  # no filter, no words: nothing, as before
    for kind in ("danger", "kindness"):
        expected = {m.id for m in everything(curator, "bear") if m.kind.value == kind}
        found = curator.search("bear", "", kinds=kind, limit=1_000)
        assert expected and {r.memory.id for r in found} == expected
        assert all("filter" in r.sources for r in found)
    # A limit keeps the best of them.
    assert len(curator.search("bear", "", kinds="danger", limit=1)) == 1


@pytest.mark.parametrize(("filters", "field"), [
    ({"kinds": ["nope"]}, "kind"),
    ({"kinds": [3]}, "kind"),
    ({"kinds": 3}, "kinds"),  # a wrong type: refused by the API's argument check (api/arguments.py)
    ({"min_importance": 1.5}, "min_importance"),
    ({"min_importance": -0.1}, "min_importance"),
    ({"min_importance": math.nan}, "min_importance"),
    ({"min_importance": True}, "min_importance"),
    ({"min_importance": "high"}, "min_importance"),
    ({"since": "yesterday"}, "since"),
    ({"until": "2025-13-01"}, "until"),
    ({"since": "2025-01-10T00:00:00Z", "until": "2025-01-09T00:00:00Z"}, "until"),
    ({"about": "not an id!"}, "about"),
    ({"tiers": ["immediate"]}, "tier"),
])
def test_bad_filter_values_are_refused_naming_the_field(played: tuple[Curator, Any], filters: dict[str, Any],
                                                         field: str) -> None:
    curator, _ = played
    with pytest.raises(InvalidInput) as refused:
        curator.search("bear", "wolf", **filters)
    assert refused.value.field == field
    assert refused.value.exit_code == 2


def test_about_an_unknown_character_is_refused(played: tuple[Curator, Any]) -> None:
    curator, _ = played
    with pytest.raises(UnknownCharacter, match="nobody"):
        curator.search("bear", "wolf", about="nobody")


@pytest.fixture
def world_file(tmp_path: Path, transcript_turns: list[dict[str, Any]]) -> str:
    path = str(tmp_path / "world.db")
    with Curator(path) as curator:
        curator.observe_many(transcript_turns)
    return path


def test_cli_search_filters(world_file: str) -> None:
    runner = CliRunner()
    done = runner.invoke(cli, ["search", "bear", "", "--kind", "danger", "--kind", "kindness",
                               "--min-importance", "0.5", "--since", "2025-01-05T00:00:00Z",
                               "--tier", "core", "--tier", "recent", "--db", world_file, "--json"])
    assert done.exit_code == 0, done.stderr
    hits = json.loads(done.stdout)
    assert hits
    for hit in hits:
        assert hit["kind"] in ("danger", "kindness") and hit["importance"] >= 0.5
        assert hit["tier"] in ("core", "recent")
        assert datetime.fromisoformat(hit["created_at"]) >= datetime.fromisoformat("2025-01-05T00:00Z")
    about = json.loads(runner.invoke(cli, ["search", "bear", "", "--about", "bear", "--db", world_file,
                                           "--json"]).stdout)
    assert about and all(hit["subject"] is None for hit in about)


@pytest.mark.parametrize(("args", "says"), [
    (["--min-importance", "2"], "min_importance"),
    (["--min-importance", "lots"], "--min-importance"),
    (["--since", "yesterday"], "since"),
    (["--since", "2025-01-10", "--until", "2025-01-09"], "until"),
    (["--kind", "nope"], "--kind"),
    (["--tier", "immediate"], "--tier"),
    (["--about", "bad id!"], "about"),
])
def test_cli_bad_filters_are_one_line_and_exit_2(world_file: str, args: list[str], says: str) -> None:
    done = CliRunner().invoke(cli, ["search", "bear", "wolf", *args, "--db", world_file])
    assert done.exit_code == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and says in lines[0]
