"""Rows back to memories (curator/rows.py) without re-validation: the same Memory that
model_construct builds, field for field and byte for byte when dumped."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conftest import TurnFactory

from curator import Curator
from curator.domain.construct import trusted
from curator.domain.models import Memory, MemoryKind, Relationship, Tier
from curator.store.rows import SELECT_MEMORY, memory_from_row


def _values() -> dict[str, Any]:
    now = datetime(2025, 1, 2, 8, tzinfo=UTC)
    return {"id": "m_1", "owner": "bear", "subject": "wolf", "content": "Wolf blocks my path.",
            "kind": MemoryKind.CONFLICT, "emotional_impact": "angry", "valence": -0.5, "importance": 0.5,
            "tier": Tier.RECENT, "strength": 1.0, "recall_count": 0, "last_recalled": now,
            "created_at": now, "strength_at": now, "source_turns": ["t1"], "traits": ["hostile"],
            "place": "river", "domain": None, "archived_at": None, "archived_reason": None}


def test_trusted_builds_what_model_construct_builds() -> None:
    built, constructed = trusted(Memory, _values()), Memory.model_construct(**_values())
    assert built == constructed and repr(built) == repr(constructed)
    assert built.model_dump_json() == constructed.model_dump_json()
    assert built.model_fields_set == constructed.model_fields_set
    built.strength = 0.4  # an ordinary model afterwards: assignment and fields_set as usual
    assert built.strength == 0.4 and "strength" in built.model_fields_set


def test_trusted_falls_back_when_values_are_partial_or_out_of_order() -> None:
    partial = {k: v for k, v in _values().items() if k not in ("place", "domain", "archived_at")}
    assert trusted(Memory, dict(partial)) == Memory.model_construct(**partial)  # defaults filled
    backwards = dict(reversed(list(_values().items())))
    expected = Memory.model_construct(**_values()).model_dump_json()
    assert trusted(Memory, backwards).model_dump_json() == expected
    rel = trusted(Relationship, {"owner": "bear", "other": "wolf"})
    assert rel.trust == 0.5 and rel.recent_memories == []


def test_a_stored_memory_reads_back_as_it_was_formed(tmp_path: Path, make_turn: TurnFactory) -> None:
    with Curator(tmp_path / "world.db") as curator:
        result = curator.observe(make_turn("Wolf blocks your path and growls.", others=["wolf"]))
        world = curator.world
        memory_id = result.formed[0].memory_id
        row = world.conn.execute(f"{SELECT_MEMORY} from memories where id = ?", (memory_id,)).fetchone()
        memory = memory_from_row(row)
        validated = Memory.model_validate(memory.model_dump())
        assert memory == validated and memory.model_dump_json() == validated.model_dump_json()
        recent, core = world.live_memories("bear", "wolf")
        assert [m.id for m in recent] == [memory_id] and core == []
        assert recent == world.memories("bear", "wolf", Tier.RECENT)


def test_a_turn_builds_its_memories_relationships_and_lens_scores_directly(
        monkeypatch: Any, make_turn: TurnFactory) -> None:
    # Every trusted() call on the turn's path names the fields in the model's order; one that
    # did not would still be right, through model_construct, only slower: this says which.
    from curator.turn.appraisal import LensScore

    def refuse(cls: type, *args: Any, **kwargs: Any) -> None:
        raise AssertionError(f"{cls.__name__}.model_construct on the turn's path")

    with Curator(":memory:") as curator:
        curator.observe(make_turn("Wolf blocks your path and growls.", others=["wolf"], observers=["owl"]))
        for model in (Memory, Relationship, LensScore):
            monkeypatch.setattr(model, "model_construct", classmethod(refuse))
        curator.observe(make_turn("Wolf shows you a hidden patch of berries.", others=["wolf"],
                                  observers=["owl"]))
        curator.observe(make_turn("Wolf blocks your path again and growls.", others=["wolf"]))
        monkeypatch.undo()
        assert curator.world.relationship("bear", "wolf").interactions == 3


def test_a_memorys_view_is_what_validating_its_values_builds() -> None:
    from curator.model.decision import MemoryView

    memory = trusted(Memory, _values())
    view = MemoryView.of(memory)
    validated = MemoryView.model_validate(view.model_dump())
    assert view == validated and view.model_dump_json() == validated.model_dump_json()
    assert view.kind == "conflict" and view.created_at.startswith("2025-01-02T08:00:00")
    view.traits.append("brave")  # the view's lists are its own
    assert memory.traits == ["hostile"]
