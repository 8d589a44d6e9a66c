"""curator: memories for game characters and agents.

    from curator import Curator
    with Curator("world.db") as curator:
        curator.observe({"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
                         "intent": {"thought": "Just need fish", "action": "Head to the river"},
                         "reality": "Wolf blocks your path.", "others": ["wolf"]})
        print(curator.character("bear").relationships["wolf"].recent_memories[0].content)

Importing curator never imports a model client; the model path loads lazily. Nor does it
import the rest: each name below is imported when first used (PEP 562), so that
`curator --help`, which imports this package first, starts fast (issue #17).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from curator.api.curator import Curator, parse_turn
    from curator.domain.config import AppraisalConfig, CuratorConfig, EvolutionConfig, Lens, RecallConfig
    from curator.domain.decoding import load_json
    from curator.domain.errors import (
        BlockExists,
        BlockNotShared,
        BlockTooLarge,
        CaseError,
        CharacterImporting,
        ConflictingTurn,
        CuratorError,
        DiskFull,
        FixtureMissing,
        FixtureUnreadable,
        ForeignDatabase,
        ImportCancelled,
        InvalidInput,
        InvalidTurn,
        MalformedExport,
        ModelUnavailable,
        NotKnown,
        OutputError,
        RewindRefused,
        TimeWentBackwards,
        UnknownBlock,
        UnknownCharacter,
        UnknownGoal,
        UnknownGroup,
        UnknownMemory,
        UnknownPassage,
        UnknownTurn,
        WorldCorrupt,
        WorldFormatError,
        WorldLocked,
        WorldNotFound,
        WorldReadOnly,
        WorldStorageError,
        WorldTooNew,
    )
    from curator.domain.knowing import Provenance
    from curator.domain.models import (
        Character,
        CharacterId,
        Gap,
        Intent,
        Memory,
        MemoryKind,
        Relationship,
        Tell,
        Tier,
        Turn,
        display_name,
    )
    from curator.domain.relevance import RelevanceWeights
    from curator.domain.results import ChangeSet, StepRecord, TurnReading, TurnResult
    from curator.evolution.personality import AttributeChange, Drift, PersonalitySnapshot
    from curator.evolution.report import EvolutionReport
    from curator.model.calls import CallRecord, CallSummary
    from curator.model.embedders import Embedder, HashingEmbedder, embedder_from_spec
    from curator.model.extras import install_command
    from curator.model.settings import ModelSettings
    from curator.model.steps import FallbackDecider
    from curator.recall.blocks import Block, Blocks
    from curator.recall.context import MemoryContext
    from curator.recall.passages import Passage, PassageHit, Passages
    from curator.recall.ranking import Recalled
    from curator.store.transactions import time_writes

_EXPORTS = {
    "Curator": "curator.api.curator",
    "parse_turn": "curator.api.curator",
    "load_json": "curator.domain.decoding",
    "AppraisalConfig": "curator.domain.config",
    "CuratorConfig": "curator.domain.config",
    "EvolutionConfig": "curator.domain.config",
    "Lens": "curator.domain.config",
    "RecallConfig": "curator.domain.config",
    "RelevanceWeights": "curator.domain.relevance",
    "BlockExists": "curator.domain.errors",
    "BlockNotShared": "curator.domain.errors",
    "BlockTooLarge": "curator.domain.errors",
    "CaseError": "curator.domain.errors",
    "CharacterImporting": "curator.domain.errors",
    "ConflictingTurn": "curator.domain.errors",
    "CuratorError": "curator.domain.errors",
    "DiskFull": "curator.domain.errors",
    "FixtureMissing": "curator.domain.errors",
    "FixtureUnreadable": "curator.domain.errors",
    "ForeignDatabase": "curator.domain.errors",
    "ImportCancelled": "curator.domain.errors",
    "InvalidInput": "curator.domain.errors",
    "InvalidTurn": "curator.domain.errors",
    "MalformedExport": "curator.domain.errors",
    "ModelUnavailable": "curator.domain.errors",
    "NotKnown": "curator.domain.errors",
    "OutputError": "curator.domain.errors",
    "RewindRefused": "curator.domain.errors",
    "TimeWentBackwards": "curator.domain.errors",
    "UnknownBlock": "curator.domain.errors",
    "UnknownCharacter": "curator.domain.errors",
    "UnknownGoal": "curator.domain.errors",
    "UnknownGroup": "curator.domain.errors",
    "UnknownMemory": "curator.domain.errors",
    "UnknownPassage": "curator.domain.errors",
    "UnknownTurn": "curator.domain.errors",
    "WorldCorrupt": "curator.domain.errors",
    "WorldFormatError": "curator.domain.errors",
    "WorldLocked": "curator.domain.errors",
    "WorldNotFound": "curator.domain.errors",
    "WorldReadOnly": "curator.domain.errors",
    "WorldStorageError": "curator.domain.errors",
    "WorldTooNew": "curator.domain.errors",
    "Character": "curator.domain.models",
    "CharacterId": "curator.domain.models",
    "Gap": "curator.domain.models",
    "Intent": "curator.domain.models",
    "Memory": "curator.domain.models",
    "MemoryKind": "curator.domain.models",
    "Relationship": "curator.domain.models",
    "Tell": "curator.domain.models",
    "Tier": "curator.domain.models",
    "Provenance": "curator.domain.knowing",
    "Turn": "curator.domain.models",
    "display_name": "curator.domain.models",
    "ChangeSet": "curator.domain.results",
    "StepRecord": "curator.domain.results",
    "TurnReading": "curator.domain.results",
    "TurnResult": "curator.domain.results",
    "AttributeChange": "curator.evolution.personality",
    "Drift": "curator.evolution.personality",
    "PersonalitySnapshot": "curator.evolution.personality",
    "EvolutionReport": "curator.evolution.report",
    "CallRecord": "curator.model.calls",
    "CallSummary": "curator.model.calls",
    "install_command": "curator.model.extras",
    "Embedder": "curator.model.embedders",
    "HashingEmbedder": "curator.model.embedders",
    "embedder_from_spec": "curator.model.embedders",
    "ModelSettings": "curator.model.settings",
    "FallbackDecider": "curator.model.steps",
    "Block": "curator.recall.blocks",
    "Blocks": "curator.recall.blocks",
    "MemoryContext": "curator.recall.context",
    "Passage": "curator.recall.passages",
    "PassageHit": "curator.recall.passages",
    "Passages": "curator.recall.passages",
    "Recalled": "curator.recall.ranking",
    "time_writes": "curator.store.transactions",
}


def __getattr__(name: str) -> Any:
    """Import an exported name from its module the first time it is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'curator' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__version__ = "0.13.0.dev0"

__all__ = [
    "AppraisalConfig",
    "AttributeChange",
    "Block",
    "BlockExists",
    "BlockNotShared",
    "BlockTooLarge",
    "Blocks",
    "CallRecord",
    "CallSummary",
    "CaseError",
    "ChangeSet",
    "Character",
    "CharacterId",
    "CharacterImporting",
    "ConflictingTurn",
    "Curator",
    "CuratorConfig",
    "CuratorError",
    "DiskFull",
    "Drift",
    "Embedder",
    "EvolutionConfig",
    "EvolutionReport",
    "FallbackDecider",
    "FixtureMissing",
    "FixtureUnreadable",
    "ForeignDatabase",
    "Gap",
    "HashingEmbedder",
    "ImportCancelled",
    "Intent",
    "InvalidInput",
    "InvalidTurn",
    "Lens",
    "MalformedExport",
    "Memory",
    "MemoryContext",
    "MemoryKind",
    "ModelSettings",
    "ModelUnavailable",
    "NotKnown",
    "OutputError",
    "Passage",
    "PassageHit",
    "Passages",
    "PersonalitySnapshot",
    "Provenance",
    "RecallConfig",
    "Recalled",
    "Relationship",
    "RelevanceWeights",
    "RewindRefused",
    "StepRecord",
    "Tell",
    "Tier",
    "TimeWentBackwards",
    "Turn",
    "TurnReading",
    "TurnResult",
    "UnknownBlock",
    "UnknownCharacter",
    "UnknownGoal",
    "UnknownGroup",
    "UnknownMemory",
    "UnknownPassage",
    "UnknownTurn",
    "WorldCorrupt",
    "WorldFormatError",
    "WorldLocked",
    "WorldNotFound",
    "WorldReadOnly",
    "WorldStorageError",
    "WorldTooNew",
    "display_name",
    "embedder_from_spec",
    "install_command",
    "load_json",
    "parse_turn",
    "time_writes",
]
