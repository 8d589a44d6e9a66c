"""curator: memories for game characters and agents.

    from curator import Curator
    with Curator("world.db") as curator:
        curator.observe({"id": "t1", "world_time": "2025-01-02T08:00:00Z", "actor": "bear",
                         "intent": {"thought": "Just need fish", "action": "Head to the river"},
                         "reality": "Wolf blocks your path.", "others": ["wolf"]})
        print(curator.character("bear").relationships["wolf"].recent_memories[0].content)

Importing curator never imports a model client; the model path loads lazily.
"""

from curator.api import Curator, parse_turn
from curator.blocks import Block, Blocks
from curator.config import CuratorConfig
from curator.errors import (
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
from curator.models import Character, Gap, Intent, Memory, MemoryKind, Relationship, Tier, Turn
from curator.passages import Passage, PassageHit, Passages
from curator.results import ChangeSet, TurnResult

__version__ = "0.1.0"

__all__ = [
    "Block", "BlockExists", "BlockNotShared", "BlockTooLarge", "Blocks", "ChangeSet", "Character",
    "ConflictingTurn", "Curator", "CuratorConfig", "CuratorError", "Gap", "Intent", "InvalidInput",
    "InvalidTurn", "MalformedExport", "Memory", "MemoryKind", "Passage", "PassageHit", "Passages",
    "Relationship", "Tier", "TimeWentBackwards", "Turn", "TurnResult", "UnknownBlock", "UnknownCharacter",
    "UnknownPassage", "WorldFormatError", "WorldLocked", "parse_turn",
]
