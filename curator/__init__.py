"""curator: memories for game characters and agents.

    from curator import Curator
    with Curator("world.db") as curator:
        curator.observe({"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
                         "intent": {"thought": "Just need fish", "action": "Head to the river"},
                         "reality": "Wolf blocks your path.", "others": ["wolf"]})
        print(curator.character("bear").relationships["wolf"].recent_memories[0].content)

Importing curator never imports a model client; the model path loads lazily.
"""

from curator.api.curator import Curator, parse_turn
from curator.domain.config import AppraisalConfig, CuratorConfig, EvolutionConfig, Lens, RecallConfig
from curator.domain.errors import (
    BlockExists,
    BlockNotShared,
    BlockTooLarge,
    CaseError,
    ConflictingTurn,
    CuratorError,
    DiskFull,
    FixtureMissing,
    ForeignDatabase,
    InvalidInput,
    InvalidTurn,
    MalformedExport,
    ModelUnavailable,
    OutputError,
    TimeWentBackwards,
    UnknownBlock,
    UnknownCharacter,
    UnknownGoal,
    UnknownPassage,
    WorldCorrupt,
    WorldFormatError,
    WorldLocked,
    WorldNotFound,
    WorldReadOnly,
    WorldStorageError,
    WorldTooNew,
)
from curator.domain.models import (
    Character,
    CharacterId,
    Gap,
    Intent,
    Memory,
    MemoryKind,
    Relationship,
    Tier,
    Turn,
    display_name,
)
from curator.domain.results import ChangeSet, StepRecord, TurnReading, TurnResult
from curator.evolution.personality import AttributeChange, Drift, PersonalitySnapshot
from curator.evolution.report import EvolutionReport
from curator.model.calls import CallRecord, CallSummary
from curator.model.extras import install_command
from curator.model.settings import ModelSettings
from curator.model.steps import FallbackDecider
from curator.recall.blocks import Block, Blocks
from curator.recall.context import MemoryContext
from curator.recall.passages import Passage, PassageHit, Passages
from curator.recall.ranking import Recalled

__version__ = "0.1.0"

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
    "ConflictingTurn",
    "Curator",
    "CuratorConfig",
    "CuratorError",
    "DiskFull",
    "Drift",
    "EvolutionConfig",
    "EvolutionReport",
    "FallbackDecider",
    "FixtureMissing",
    "ForeignDatabase",
    "Gap",
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
    "OutputError",
    "Passage",
    "PassageHit",
    "Passages",
    "PersonalitySnapshot",
    "RecallConfig",
    "Recalled",
    "Relationship",
    "StepRecord",
    "Tier",
    "TimeWentBackwards",
    "Turn",
    "TurnReading",
    "TurnResult",
    "UnknownBlock",
    "UnknownCharacter",
    "UnknownGoal",
    "UnknownPassage",
    "WorldCorrupt",
    "WorldFormatError",
    "WorldLocked",
    "WorldNotFound",
    "WorldReadOnly",
    "WorldStorageError",
    "WorldTooNew",
    "display_name",
    "install_command",
    "parse_turn",
]
