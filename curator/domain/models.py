"""Domain models: the turn a game sends, and the memories, relationships and characters curator keeps.

These are the nouns of `shared/DESIGN.md`. Validation of game input lives here (a bad turn
is refused with the field named); the rules for what a turn *means* live in `fallback.py`
and, later, in the model-backed pipeline.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from enum import StrEnum
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

# Limits on what one turn may carry. A game that sends a 5 MB reality text has a bug;
# refusing it with the field named beats storing it in every observer's memory.
MAX_TEXT = 4_000
MAX_REALITY = 20_000
MAX_NAMES = 32
# A persona is sent in every prompt and context of its character: a turn's text cap, not a book.
MAX_PERSONA = MAX_TEXT
# A turn's JSON text: every field at its cap, escaped as \uXXXX, fits with room to spare; a
# longer text is refused before it is parsed (a 1 GB line is a bug, not a turn).
MAX_TURN_JSON = 1_000_000

_CHARACTER_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


def normalize_character_id(value: str) -> str:
    """Character ids are case-insensitive words: ' Wolf ' and 'wolf' are the same character."""
    if not isinstance(value, str):
        raise ValueError(f"a character id is text, not {type(value).__name__}")
    key = value.strip().casefold()
    if not _CHARACTER_ID.match(key):
        raise ValueError(
            "a character id is 1-64 letters, digits, '_', '.' or '-', starting with a "
            f"letter or digit; got {value!r}"
        )
    return key


CharacterId = Annotated[str, AfterValidator(normalize_character_id)]

_LABEL = re.compile(r"^[a-z0-9_]{1,40}$")


def normalize_label(value: str) -> str:
    """Block labels and passage tags are lower-case words: ' Current_State ' → 'current_state'."""
    key = value.strip().casefold()
    if not _LABEL.match(key):
        raise ValueError(f"a label is 1-40 lower-case letters, digits or '_'; got {value!r}")
    return key


@lru_cache(maxsize=4096)
def display_name(character_id: str) -> str:
    """How a character is named in memory text: 'wolf' → 'Wolf', 'old_oak' → 'Old Oak'.
    Cached: a turn names the same few characters dozens of times."""
    return " ".join(part.capitalize() for part in re.split(r"[_.-]+", character_id) if part)


def to_utc(value: datetime) -> datetime:
    """Game time is compared across turns, so every timestamp is made timezone-aware UTC.
    A time whose zone puts it before year 1 or after 9999 in UTC is a ValueError (pydantic
    and every caller report those; an OverflowError would escape as a traceback)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError as error:
        raise ValueError(f"{value.isoformat()} is outside years 1-9999 in UTC") from error


def parse_time(value: datetime | str) -> datetime:
    """A world time from a datetime or ISO 8601 text, in UTC; anything else is a ValueError.
    The one reader of times a caller gives (turns, `fade --until`, `evolve --world-time`,
    import documents)."""
    if isinstance(value, datetime):
        return to_utc(value)
    if not isinstance(value, str):
        raise ValueError(f"a world time is ISO 8601 text, not {type(value).__name__}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as error:
        raise ValueError(f"not an ISO 8601 time: {value[:64]!r}") from error
    return to_utc(parsed)


@lru_cache(maxsize=4096)
def iso(value: datetime) -> str:
    """The one text form of a world time: ISO 8601 in UTC with a 'Z'. Cached: a turn writes
    its own time on every memory, relationship and log row it touches."""
    text = to_utc(value).isoformat()
    return text.replace("+00:00", "Z")


class Gap(StrEnum):
    """How reality compared with what the character meant to do."""

    SUCCEEDED = "succeeded"  # it went as intended
    FAILED = "failed"  # it did not work, nobody's fault
    BLOCKED = "blocked"  # someone or something stopped it from happening
    THWARTED = "thwarted"  # it started, then someone spoiled it
    HELPED = "helped"  # someone made it go better than it would have
    SURPRISED = "surprised"  # something unexpected happened instead
    MIXED = "mixed"  # some of each


# How much a turn matters to one who perceived it, in words a small model can choose from.
Significance = Literal["trivial", "minor", "notable", "major", "defining"]
# What each band means as a number (the importance of the memories it forms): "trivial" falls
# under every formation threshold, "defining" reaches core review (0.9).
SIGNIFICANCE: dict[str, float] = {"trivial": 0.1, "minor": 0.3, "notable": 0.55, "major": 0.8,
                                  "defining": 0.95}


def significance_band(significance: float) -> Significance:
    """The band a number falls in."""
    if significance >= 0.9:
        return "defining"
    if significance >= 0.7:
        return "major"
    if significance >= 0.45:
        return "notable"
    if significance >= 0.2:
        return "minor"
    return "trivial"


class MemoryKind(StrEnum):
    """What sort of memory this is: the ten kinds of the evolution system plus what game turns need."""

    LESSON_LEARNED = "lesson_learned"
    PATTERN_RECOGNIZED = "pattern_recognized"
    RELATIONSHIP_EVENT = "relationship_event"
    FAILURE = "failure"
    TRIUMPH = "triumph"
    USER_PREFERENCE = "user_preference"
    SYSTEM_KNOWLEDGE = "system_knowledge"
    DECISION_RECORD = "decision_record"
    PROCESS_NOTE = "process_note"
    PERSONALITY_MOMENT = "personality_moment"
    # Game turns: meeting, clashing, kindness, danger, betrayal, seeing, finding.
    ENCOUNTER = "encounter"
    CONFLICT = "conflict"
    KINDNESS = "kindness"
    DANGER = "danger"
    BETRAYAL = "betrayal"
    WITNESSED = "witnessed"
    DISCOVERY = "discovery"


class Tier(StrEnum):
    RECENT = "recent"
    CORE = "core"
    ARCHIVED = "archived"


# C0 control characters but tab and line breaks, and DEL: NUL cut texts short in terminals and
# in tools that read the world file as C strings, and none of them belongs in a game's prose.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def no_control_characters(value: Any) -> Any:
    """Refuse text (or a list of texts) holding a control character, naming it and where."""
    for text in value if isinstance(value, list) else [value]:
        found = _CONTROL.search(text) if isinstance(text, str) else None
        if found is not None:
            raise ValueError(f"holds the control character U+{ord(found.group()):04X} at "
                             f"character {found.start() + 1}")
    return value


class Intent(BaseModel):
    """What the actor meant: what it was thinking and what it tried to do."""

    model_config = ConfigDict(extra="forbid")

    thought: str = Field(default="", max_length=MAX_TEXT)
    action: str = Field(min_length=1, max_length=MAX_TEXT)

    _plain = field_validator("thought", "action")(no_control_characters)


class OutcomeHint(BaseModel):
    """What the game already knows about the outcome; every field is optional and overrides a guess."""

    model_config = ConfigDict(extra="forbid")

    result: Gap | None = None
    harm: bool | None = None
    danger: bool | None = None
    importance: float | None = Field(default=None, ge=0.0, le=1.0)


MAX_TELLS = 16


class Tell(BaseModel):
    """The turn's actor tells `to` about `about`: a turn it perceived (its id) or a memory it
    owns (its id), optionally in its own words (`says`). With `says` and no `about` it passes on
    a rumour. Whether the actor knows `about` is checked against the world (hearsay.py)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    to: list[CharacterId] = Field(min_length=1, max_length=MAX_NAMES)
    about: str | None = Field(default=None, min_length=1, max_length=128)
    says: str | None = Field(default=None, min_length=1, max_length=MAX_TEXT)

    @model_validator(mode="after")
    def _something(self) -> Tell:
        if self.about is None and self.says is None:
            raise ValueError("a tell needs `about` (a turn or memory id), `says` (words), or both")
        self.to = list(dict.fromkeys(self.to))
        return self


class Turn(BaseModel):
    """One turn of the game, as the game reports it to curator."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    id: str = Field(min_length=1, max_length=128)
    world_time: datetime
    actor: CharacterId
    intent: Intent
    reality: str = Field(min_length=1, max_length=MAX_REALITY)
    others: list[CharacterId] = Field(default_factory=list, max_length=MAX_NAMES)
    observers: list[CharacterId] = Field(default_factory=list, max_length=MAX_NAMES)
    place: str | None = Field(default=None, max_length=200)
    domain: str | None = Field(default=None, max_length=100)
    tags: list[Annotated[str, Field(max_length=64)]] = Field(default_factory=list, max_length=32)
    outcome: OutcomeHint | None = None
    # None, not [], when absent: a turn's stored payload (and so its digest) stays as it was.
    tells: list[Tell] | None = Field(default=None, max_length=MAX_TELLS)

    _plain = field_validator("id", "reality", "place", "domain", "tags")(no_control_characters)

    @field_validator("world_time")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return to_utc(value)

    @model_validator(mode="after")
    def _people(self) -> Turn:
        # Duplicates and the actor listed as its own witness are game bugs we can fix
        # without losing anything, so they are cleaned rather than refused.
        self.others = [o for o in dict.fromkeys(self.others) if o != self.actor]
        self.observers = [o for o in dict.fromkeys(self.observers) if o != self.actor]
        return self

    @field_validator("tells")
    @classmethod
    def _listeners(cls, tells: list[Tell] | None, info: ValidationInfo) -> list[Tell] | None:
        actor = info.data.get("actor")
        for n, tell in enumerate(tells or []):
            # The teller is not its own listener; a tell to nobody else is a bug we cannot guess.
            tell.to = [c for c in tell.to if c != actor]
            if not tell.to:
                raise ValueError(f"tells.{n}.to: a tell needs a listener other than the actor")
        return tells or None

    @property
    def perceivers(self) -> list[str]:
        """Who forms a memory of this turn: the actor, then each observer."""
        return [self.actor, *self.observers]

    @property
    def listeners(self) -> list[str]:
        """Who is told something at this turn (its `tells`), in order."""
        return list(dict.fromkeys(c for tell in self.tells or [] for c in tell.to))

    @property
    def characters(self) -> list[str]:
        """Everyone the turn names; unknown ones are created on first sight. (Not its listeners:
        the reader reads the turn's cast from this; curating the tells creates those.)"""
        return list(dict.fromkeys([self.actor, *self.others, *self.observers]))


# The last fields of a live memory a turn forms (in the model's order, for `trusted`): not
# archived, not pinned, not written by a designer.
LIVE_UNMARKED: dict[str, Any] = {"archived_at": None, "archived_reason": None, "pinned": False,
                                 "written_by": None}


class Memory(BaseModel):
    """One remembered event, first person, owned by one character."""

    id: str
    owner: str
    subject: str | None = None  # another character, or None for a self memory
    content: str
    kind: MemoryKind
    emotional_impact: str
    valence: float = Field(ge=-1.0, le=1.0)
    importance: float = Field(ge=0.0, le=1.0)
    tier: Tier = Tier.RECENT
    strength: float = Field(default=1.0, ge=0.0, le=1.0)
    recall_count: int = 0
    last_recalled: datetime
    created_at: datetime
    strength_at: datetime | None = None  # game time the strength was last set (fading.py)
    source_turns: list[str] = Field(default_factory=list)
    traits: list[str] = Field(default_factory=list)  # what it says about the subject
    place: str | None = None
    domain: str | None = None
    archived_at: datetime | None = None
    archived_reason: str | None = None
    # Hands-on editing (issue #18): a pinned memory, or one a designer wrote (`written_by` names
    # who), never fades and never leaves the live tiers unless a designer forgets it.
    pinned: bool = False
    written_by: str | None = None

    @property
    def protected(self) -> bool:
        return self.pinned or self.written_by is not None

    @field_validator("last_recalled", "created_at", "strength_at", "archived_at")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        # Checked here, so a time whose zone leaves the calendar is refused with its field.
        return None if value is None else to_utc(value)

    @property
    def valence_label(self) -> str:
        if self.valence > 0.15:
            return "positive"
        if self.valence < -0.15:
            return "negative"
        return "neutral"

    @property
    def is_active(self) -> bool:
        """The evolution system: a memory under 0.2 strength is still kept but no longer shapes behaviour."""
        return self.tier is Tier.CORE or self.strength > 0.2


class Relationship(BaseModel):
    """What one character (owner) holds about another (other)."""

    owner: str
    other: str
    immediate_context: str = ""
    long_term_summary: str = ""
    current_sentiment: float = Field(default=0.0, ge=-1.0, le=1.0)
    overall_bond: float = Field(default=0.0, ge=-1.0, le=1.0)
    trust: float = Field(default=0.5, ge=0.0, le=1.0)  # the evolution system: moved by evolution cycles
    rapport: float = Field(default=0.5, ge=0.0, le=1.0)
    interactions: int = 0
    traits: dict[str, int] = Field(default_factory=dict)
    first_met: datetime | None = None
    last_interaction: datetime | None = None
    recent_memories: list[Memory] = Field(default_factory=list)
    core_memories: list[Memory] = Field(default_factory=list)

    @field_validator("first_met", "last_interaction")
    @classmethod
    def _utc(cls, value: datetime | None) -> datetime | None:
        return None if value is None else to_utc(value)


class SelfState(BaseModel):
    """A character's memories of itself: what it is doing now, recent events, core memories."""

    immediate_context: str = ""
    recent_events: list[Memory] = Field(default_factory=list)
    core_memories: list[Memory] = Field(default_factory=list)


class Character(BaseModel):
    """An NPC or agent: its name, persona and its whole memory."""

    id: str
    name: str
    persona: str = ""
    created_at: datetime | None = None
    self_memories: SelfState = Field(default_factory=SelfState)
    relationships: dict[str, Relationship] = Field(default_factory=dict)
