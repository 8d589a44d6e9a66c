"""Eval expectation kinds: the checks a case file can hold, as pydantic models.

Every check has `after` (a turn id, or `end`: when it is read), an optional `note` (why a
reader expects it, shown on failure) and `expect`, the kind, on which the union
`Expectation` is discriminated. Matching words: each entry of `words` must appear in the
text, at the start of a word, case-insensitively ("trap" matches "trapped"); "steal|stole"
accepts either. Numbers are `Range`s. The evolution kinds (attribute, personality, drift,
trust) read what `evolve` actions changed. The checkers are in expectations.py and
expectations_evolution.py.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from curator import CharacterId, MemoryKind, Tier

SELF = "self"  # `subject: self`: a memory about the owner itself
# The context's sections (context.Section; not imported, so loading cases stays light).
Section = Literal["persona", "identity", "ability", "block", "state", "immediate", "present", "core",
                  "memory", "passage", "short_term", "goal"]


def _words(value: Any) -> Any:
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list) and (not value or not all(isinstance(w, str) and w.strip(" |")
                                                          for w in value)):
        raise ValueError("give one or more non-empty words ('steal|stole' for alternatives)")
    return value


def _subject(value: Any) -> Any:
    return value.strip().casefold() if isinstance(value, str) else value


Words = Annotated[list[str], BeforeValidator(_words)]
Subject = Annotated[str, BeforeValidator(_subject)]


class Range(BaseModel):
    """An expected number: exact (`3`), a sign (`negative`), bounds (`{min: -1, max: -0.2}`),
    or compared with its value at an earlier point (`{above_at: t030}`)."""

    model_config = ConfigDict(extra="forbid")

    min: float | None = None
    max: float | None = None
    sign: Literal["positive", "negative", "neutral"] | None = None
    above_at: str | None = None
    below_at: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return {"min": value, "max": value}
        if isinstance(value, str):
            return {"sign": value}
        return value

    @model_validator(mode="after")
    def _something(self) -> Range:
        if self.min is None and self.max is None and self.sign is None and not (
                self.above_at or self.below_at):
            raise ValueError("give a number, a sign (positive|negative|neutral), min/max, "
                             "above_at or below_at")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"min {self.min} is above max {self.max}")
        return self

    def points(self) -> list[str]:
        return [p for p in (self.above_at, self.below_at) if p]


class _Check(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    after: str = Field(default="end", description="a turn id, or end")
    note: str = Field(default="", description="why a reader expects this (shown on failure)")

    def points(self) -> list[str]:
        """Earlier points this check reads (turns it names, ranges it compares with)."""
        return []


class MemoryMatch(_Check):
    owner: CharacterId
    words: Words
    subject: Subject | None = None  # another character's id, or `self`
    kind: MemoryKind | None = None


class MemoryExists(MemoryMatch):
    expect: Literal["memory_exists"]
    tier: Literal["recent", "core", "archived", "live", "any"] = "live"


class MemoryAbsent(MemoryMatch):
    expect: Literal["memory_absent"]
    tier: Literal["recent", "core", "archived", "live", "any"] = "any"


class MemoryTier(MemoryMatch):
    expect: Literal["memory_tier"]
    tier: Tier


class MemoryStrength(MemoryMatch):
    expect: Literal["memory_strength"]
    strength: Range | None = None
    recall_count: Range | None = None

    def points(self) -> list[str]:
        return [*(self.strength.points() if self.strength else []),
                *(self.recall_count.points() if self.recall_count else [])]


class TierCounts(_Check):
    expect: Literal["tier_counts"]
    owner: CharacterId
    subject: Subject | None = None  # None: all of the owner's memories
    recent: Range | None = None
    core: Range | None = None
    archived: Range | None = None

    @model_validator(mode="after")
    def _plain(self) -> TierCounts:
        if any(r is not None and r.points() for r in (self.recent, self.core, self.archived)):
            raise ValueError("tier counts compare with numbers, not with earlier points")
        if self.recent is None and self.core is None and self.archived is None:
            raise ValueError("give at least one of recent, core, archived")
        return self


class RelationshipCheck(_Check):
    expect: Literal["relationship"]
    owner: CharacterId
    other: CharacterId
    sentiment: Range | None = None
    bond: Range | None = None

    def points(self) -> list[str]:
        return [*(self.sentiment.points() if self.sentiment else []),
                *(self.bond.points() if self.bond else [])]


class SummaryMentions(_Check):
    expect: Literal["summary_mentions"]
    owner: CharacterId
    other: CharacterId
    words: Words


class SummaryOmits(_Check):
    expect: Literal["summary_omits"]
    owner: CharacterId
    other: CharacterId
    words: Words


class FadeReviewCheck(_Check):
    expect: Literal["fade_review"]
    owner: CharacterId
    other: CharacterId
    outcome: Literal["changed", "kept"]
    since: str | None = None  # only reviews after this point

    def points(self) -> list[str]:
        return [self.since] if self.since else []


class NoMemoryFormed(_Check):
    expect: Literal["no_memory_formed"]
    turn: str
    owner: CharacterId | None = None  # None: nobody who perceived the turn

    def points(self) -> list[str]:
        return [self.turn]


class ReinforcedNotDuplicated(MemoryMatch):
    expect: Literal["reinforced_not_duplicated"]
    turns: list[str] = Field(default_factory=list)  # turns the one memory must hold
    min_reinforcements: int = Field(default=1, ge=1)

    def points(self) -> list[str]:
        return list(self.turns)


class ObserverRemembers(_Check):
    expect: Literal["observer_remembers"]
    observer: CharacterId
    words: Words
    turn: str | None = None  # the turn it saw
    subject: Subject | None = None

    def points(self) -> list[str]:
        return [self.turn] if self.turn else []


class _ContextCheck(_Check):
    character: CharacterId
    situation: str = ""
    with_: list[CharacterId] = Field(default_factory=list, alias="with")
    max_tokens: int = Field(default=1000, ge=50, le=1_000_000)
    words: Words
    section: Section | None = None


class ContextIncludes(_ContextCheck):
    expect: Literal["context_includes"]


class ContextOmits(_ContextCheck):
    expect: Literal["context_omits"]



# -- evolution: after `evolve` actions -------------------------------------------------------

Trait = Literal["work_style", "risk_tolerance", "social_orientation", "learning_style", "stress_response"]


class AttributeCheck(_Check):
    expect: Literal["attribute"]
    character: CharacterId
    name: str = Field(min_length=1)  # an attribute of the world's config: caution, collaboration …
    value: Range

    def points(self) -> list[str]:
        return self.value.points()


class PersonalityCheck(_Check):
    expect: Literal["personality"]
    character: CharacterId
    trait: Trait
    equals: str | None = None
    one_of: list[str] | None = None

    @model_validator(mode="after")
    def _one(self) -> PersonalityCheck:
        if (self.equals is None) == (self.one_of is None) or self.one_of == []:
            raise ValueError("give either equals (one value) or one_of (a list of values)")
        return self


class DriftCheck(_Check):
    expect: Literal["drift"]
    character: CharacterId
    trait: Trait
    from_: str | None = Field(default=None, alias="from")
    to: str | None = None


class TrustCheck(_Check):
    expect: Literal["trust"]
    owner: CharacterId
    other: CharacterId
    trust: Range | None = None
    rapport: Range | None = None

    @model_validator(mode="after")
    def _some(self) -> TrustCheck:
        if self.trust is None and self.rapport is None:
            raise ValueError("give trust, rapport or both")
        return self

    def points(self) -> list[str]:
        return [*(self.trust.points() if self.trust else []),
                *(self.rapport.points() if self.rapport else [])]

Expectation = Annotated[
    MemoryExists | MemoryAbsent | MemoryTier | MemoryStrength | TierCounts | RelationshipCheck
    | SummaryMentions | SummaryOmits | FadeReviewCheck | NoMemoryFormed | ReinforcedNotDuplicated
    | ObserverRemembers | ContextIncludes | ContextOmits | AttributeCheck | PersonalityCheck | DriftCheck
    | TrustCheck,
    Field(discriminator="expect")]
EXPECT_KINDS = ("memory_exists", "memory_absent", "memory_tier", "memory_strength", "tier_counts",
                "relationship", "summary_mentions", "summary_omits", "fade_review", "no_memory_formed",
                "reinforced_not_duplicated", "observer_remembers", "context_includes", "context_omits",
                "attribute", "personality", "drift", "trust")
