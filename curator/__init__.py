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
from curator.domain.config import CuratorConfig
from curator.domain.errors import (
    BlockExists,
    BlockNotShared,
    BlockTooLarge,
    ConflictingTurn,
    CuratorError,
    InvalidInput,
    InvalidTurn,
    MalformedExport,
    TimeWentBackwards,
    UnknownBlock,
    UnknownCharacter,
    UnknownPassage,
    WorldFormatError,
    WorldLocked,
)
from curator.domain.models import Character, Gap, Intent, Memory, MemoryKind, Relationship, Tier, Turn
from curator.domain.results import ChangeSet, TurnResult
from curator.recall.blocks import Block, Blocks
from curator.recall.passages import Passage, PassageHit, Passages

__version__ = "0.1.0"

__all__ = [
    "Block", "BlockExists", "BlockNotShared", "BlockTooLarge", "Blocks", "ChangeSet", "Character",
    "ConflictingTurn", "Curator", "CuratorConfig", "CuratorError", "Gap", "Intent", "InvalidInput",
    "InvalidTurn", "MalformedExport", "Memory", "MemoryKind", "Passage", "PassageHit", "Passages",
    "Relationship", "Tier", "TimeWentBackwards", "Turn", "TurnResult", "UnknownBlock", "UnknownCharacter",
    "UnknownPassage", "WorldFormatError", "WorldLocked", "parse_turn",
]
