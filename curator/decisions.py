"""Decisions: the structured answers each pipeline step returns, from a model or from the fallback.

Each decision is a pydantic model. Its validators carry the domain rules (ranges, a
memory's subject must be someone the turn involved, at most N memories a turn), so a
model that breaks them is told exactly what was wrong when it is asked again. The
fallback in `fallback.py` returns the same types, so nothing downstream knows or cares
which one decided.

Validation context may carry `allowed_subjects`: the characters a memory of this turn may
be about. It comes from `context=` of `model_validate`, or, when that is empty, from
`validation_scope()`: the model gateway uses the scope because instructor treats its own
`context=` as Jinja variables and would render game text inside the messages as a template.

It may also carry the prompt the model was shown (`answer_checks.ECHO_KEY`, set by the
gateway): then every free-text field (`ModelText`: memory content, contexts, summaries,
reasons, the identity narrative) is checked for what a weak model writes instead of an
answer: the prompt's own instructions, the schema, a placeholder, a loop (answer_checks.py).

The JSON schema a model is shown is compact (no titles, no class docstrings): the template
already explains each field, and every schema token is paid on every call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode

from curator.answer_checks import check_text
from curator.models import Gap, MemoryKind

MAX_MEMORIES_PER_TURN = 4


_SCOPE: ContextVar[dict[str, Any] | None] = ContextVar("curator_validation_scope", default=None)


@contextmanager
def validation_scope(context: dict[str, Any] | None) -> Iterator[None]:
    """Validate decisions made inside this block against `context` (per thread and per task)."""
    token = _SCOPE.set(context)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def _context(info: ValidationInfo) -> dict[str, Any]:
    return info.context or _SCOPE.get() or {}


def _model_text(value: str, info: ValidationInfo) -> str:
    return check_text(value, info.field_name or "text", _context(info))


# A free-text field a model writes: checked against the prompt when a model wrote it (the
# check adds nothing to the JSON schema, so schema hashes and recorded fixtures stay valid).
ModelText = Annotated[str, AfterValidator(_model_text)]


class _CompactSchema(GenerateJsonSchema):
    """Drops titles and model docstrings; keeps field descriptions, enums and ranges."""

    def generate(self, schema: Any, mode: JsonSchemaMode = "validation") -> Any:
        return _strip(super().generate(schema, mode), top=True)


def _strip(node: Any, *, top: bool = False) -> Any:
    if isinstance(node, dict):
        is_model = node.get("type") == "object" or "enum" in node
        return {key: _strip(value) for key, value in node.items()
                if key != "title" and not (key == "description" and (top or is_model))}
    if isinstance(node, list):
        return [_strip(value) for value in node]
    return node


class _Decision(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @classmethod
    def model_json_schema(cls, by_alias: bool | None = True, ref_template: str = DEFAULT_REF_TEMPLATE,
                          schema_generator: type[GenerateJsonSchema] = _CompactSchema,
                          mode: JsonSchemaMode = "validation", **kwargs: Any) -> dict[str, Any]:
        return super().model_json_schema(by_alias=by_alias, ref_template=ref_template,
                                         schema_generator=schema_generator, mode=mode, **kwargs)


class MemoryDraft(_Decision):
    """One memory the perceiver should form from this turn."""

    subject: str | None = Field(
        default=None, description="the character this memory is about, or null for a self memory"
    )
    content: ModelText = Field(min_length=3, max_length=600, description="first person, one or two sentences")
    kind: MemoryKind
    emotional_impact: str = Field(min_length=2, max_length=40, description="one feeling word")
    valence: float = Field(ge=-1.0, le=1.0)
    importance: float = Field(ge=0.0, le=1.0)
    traits: list[str] = Field(
        default_factory=list, max_length=4, description="what this shows about the subject"
    )

    @field_validator("content")
    @classmethod
    def _content_has_words(cls, value: str) -> str:
        if not any(ch.isalpha() for ch in value):
            raise ValueError("content must be words, not symbols")
        return value.strip()

    @field_validator("emotional_impact")
    @classmethod
    def _one_word(cls, value: str) -> str:
        value = value.strip().lower()
        if len(value.split()) > 3:
            raise ValueError("emotional_impact is a word or two, like 'frustrated'")
        return value

    @field_validator("traits")
    @classmethod
    def _trait_words(cls, value: list[str]) -> list[str]:
        return [t.strip().lower() for t in value if t.strip()]


class Feeling(_Decision):
    """How the perceiver's feeling toward one character moves because of this turn."""

    toward: str
    sentiment_shift: float = Field(ge=-1.0, le=1.0)


class ContextNote(_Decision):
    """The immediate context of a relationship: what is going on with this character right now."""

    about: str
    text: ModelText = Field(min_length=1, max_length=600)


class Interpretation(_Decision):
    """Step `interpret`: intent vs reality → memories, immediate context and feelings."""

    gap: Gap
    significance: float = Field(ge=0.0, le=1.0)
    harm: bool = False
    danger: bool = False
    immediate_context: ModelText = Field(min_length=1, max_length=800)
    relationship_contexts: list[ContextNote] = Field(default_factory=list)
    memories: list[MemoryDraft] = Field(default_factory=list, max_length=MAX_MEMORIES_PER_TURN)
    feelings: list[Feeling] = Field(default_factory=list)

    @model_validator(mode="after")
    def _subjects_were_involved(self, info: ValidationInfo) -> Interpretation:
        allowed = _context(info).get("allowed_subjects")
        if allowed is None:
            return self
        allowed_set = set(allowed)
        for i, draft in enumerate(self.memories):
            if draft.subject is not None and draft.subject not in allowed_set:
                raise ValueError(
                    f"memories[{i}].subject {draft.subject!r} was not involved in this turn; "
                    f"use one of {sorted(allowed_set)} or null for a self memory"
                )
        for note in self.relationship_contexts:
            if note.about not in allowed_set:
                raise ValueError(f"relationship_contexts: {note.about!r} was not involved")
        for feeling in self.feelings:
            if feeling.toward not in allowed_set:
                raise ValueError(f"feelings: {feeling.toward!r} was not involved in this turn")
        return self


FadeOutcome = Literal["no_impact", "revise_summary", "core"]


class FadeReview(_Decision):
    """Step `fade_review`: a memory leaves the recent window; does it change the long-term view?"""

    outcome: FadeOutcome
    summary: ModelText | None = Field(default=None, max_length=1200)
    reason: ModelText = Field(min_length=1, max_length=400)

    @model_validator(mode="after")
    def _summary_when_revising(self) -> FadeReview:
        if self.outcome == "revise_summary" and not (self.summary and self.summary.strip()):
            raise ValueError("outcome 'revise_summary' needs the revised summary text")
        return self


class CoreDecision(_Decision):
    """Step `core_review` (template promote.j2): does a highly significant memory become core?"""

    promote: bool
    reason: ModelText = Field(min_length=1, max_length=400)


class Reconciliation(_Decision):
    """Step `reconcile`: a new memory contradicts (or first shapes) the long-term summary."""

    conflict: bool = Field(description="true when the new memory contradicts the old summary")
    summary: ModelText = Field(min_length=1, max_length=1200)
    bond_shift: float = Field(ge=-0.5, le=0.5)
    reason: ModelText = Field(min_length=1, max_length=400)


class EpisodeConsolidation(_Decision):
    """Step `consolidate` (episode end): fold recent memories into the summary, pick core ones."""

    summary: ModelText = Field(min_length=1, max_length=1200)
    core_memory_ids: list[str] = Field(default_factory=list, max_length=5)
    bond_shift: float = Field(ge=-0.5, le=0.5)
    reason: ModelText = Field(min_length=1, max_length=400)


class IdentityNarrative(_Decision):
    """Step `identity` (evolution cycle): a paragraph saying who the character has become."""

    narrative: ModelText = Field(min_length=20, max_length=1200,
                           description="third person, naming the character, three to six sentences")

    @field_validator("narrative")
    @classmethod
    def _narrative_has_words(cls, value: str) -> str:
        value = " ".join(value.split())
        if sum(ch.isalpha() for ch in value) < 20:
            raise ValueError("narrative must be sentences about the character")
        return value
