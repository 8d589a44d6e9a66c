"""What every decision model shares: a compact JSON schema, checked model text, a validation scope.

A decision is a pydantic model (`DecisionModel`) whose validators carry the domain rules, so a
model that breaks them is told exactly what was wrong when it is asked again; the step's
fallback returns the same type. This module holds what all of them share:

- `ModelText`: a free-text field a model writes (memory content, contexts, summaries, reasons,
  the identity narrative). When the validation context carries the prompt the model was shown
  (`answer_checks.ECHO_KEY`, set by the gateway), it is checked for what a weak model writes
  instead of an answer: the prompt's own instructions, the schema, a placeholder, a loop.
- `validation_scope()` and `decision_context()`: the validation context comes from `context=` of
  `model_validate`, or, when that is empty, from the scope. The gateway uses the scope because
  instructor treats its own `context=` as Jinja variables and would render game text inside the
  messages as a template. Decisions read e.g. `allowed_subjects` from it.
- The JSON schema a model is shown is compact (no titles, no class docstrings): the template
  already explains each field, and every schema token is paid on every call.
- `MemoryView`: a memory as a decision is shown it.
- Bounds: whatever a decision declares, no string in it is longer than `MAX_MODEL_STRING` and
  no list or object has more than `MAX_MODEL_ITEMS` entries (`DecisionModel` checks its input
  before anything else). A model's answer is stored and then sent in later prompts; a
  100,000-character trait or reason would be paid for on every call after it. The check adds
  nothing to the schema (recorded fixtures are keyed by it); the fields' own caps are tighter.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, model_validator
from pydantic.json_schema import DEFAULT_REF_TEMPLATE, GenerateJsonSchema, JsonSchemaMode

from curator.domain.construct import trusted
from curator.domain.models import Memory, iso
from curator.model.answer_checks import check_text

# The longest text any decision holds is a summary or a narrative (1,200 characters).
MAX_MODEL_STRING = 2_000
MAX_MODEL_ITEMS = 128  # a turn names at most 64 characters besides the perceiver
# What the bounds walk enters. Tuples, not `str | dict`: isinstance against a union type
# costs several times as much, and every decision of a turn is walked.
_SEQUENCES = (list, tuple)
_WALKED = (str, dict, list, tuple)

_SCOPE: ContextVar[dict[str, Any] | None] = ContextVar("curator_validation_scope", default=None)


@contextmanager
def validation_scope(context: dict[str, Any] | None) -> Iterator[None]:
    """Validate decisions made inside this block against `context` (per thread and per task)."""
    token = _SCOPE.set(context)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def decision_context(info: ValidationInfo) -> dict[str, Any]:
    return info.context or _SCOPE.get() or {}


def _model_text(value: str, info: ValidationInfo) -> str:
    return check_text(value, info.field_name or "text", decision_context(info))


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


class DecisionModel(BaseModel):
    """A step's answer: extra fields forbidden, every string and list bounded, a compact schema."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _bounded(cls, data: Any) -> Any:
        _check_bounds(data, "")
        return data

    @classmethod
    def model_json_schema(cls, by_alias: bool | None = True, ref_template: str = DEFAULT_REF_TEMPLATE,
                          schema_generator: type[GenerateJsonSchema] = _CompactSchema,
                          mode: JsonSchemaMode = "validation", **kwargs: Any) -> dict[str, Any]:
        return super().model_json_schema(by_alias=by_alias, ref_template=ref_template,
                                         schema_generator=schema_generator, mode=mode, **kwargs)


def _check_bounds(data: Any, path: str) -> None:
    """Refuse the first string longer than MAX_MODEL_STRING or collection longer than
    MAX_MODEL_ITEMS, naming where (the message goes back to the model on a retry)."""
    # Every decision of every turn passes here, the rules' own too (~30 a turn at game
    # scale), and nearly all are within bounds: a plain walk says so in 1.5 µs where the
    # naming walk takes 4.1 (it spells every path), and only a refusal walks again to name
    # the place.
    if not _within_bounds(data, 0):
        raise ValueError(_first_refusal(data, path) or f"{path or 'the answer'} is out of bounds")


def _first_refusal(data: Any, path: str) -> str | None:
    """What `_check_bounds` says of the first value past a bound, naming where; None if none is."""
    stack: list[tuple[Any, str, int]] = [(data, path, 0)]
    while stack:
        value, where, depth = stack.pop()
        if isinstance(value, str):
            if len(value) > MAX_MODEL_STRING:
                return (f"{where or 'text'} is {len(value):,} characters; at most "
                        f"{MAX_MODEL_STRING:,}: write it shorter")
        elif isinstance(value, dict | list | tuple):
            if len(value) > MAX_MODEL_ITEMS:
                return f"{where or 'the answer'} has {len(value):,} entries; at most {MAX_MODEL_ITEMS}"
            if depth > 8:  # no decision nests deeper than 4
                return f"{where or 'the answer'} is nested too deeply"
            pairs = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in pairs:
                if isinstance(key, str) and len(key) > MAX_MODEL_STRING:
                    return (f"{where or 'the answer'} has a key of {len(key):,} characters; "
                            f"at most {MAX_MODEL_STRING:,}")
                stack.append((item, f"{where}.{key}" if where else str(key), depth + 1))
    return None


def _within_bounds(value: Any, depth: int) -> bool:
    """Whether `value` is within the bounds `_first_refusal` names (the same bounds, nothing named)."""
    if isinstance(value, str):
        return len(value) <= MAX_MODEL_STRING
    if isinstance(value, dict):
        if len(value) > MAX_MODEL_ITEMS or depth > 8:
            return False
        for key, item in value.items():
            if isinstance(key, str) and len(key) > MAX_MODEL_STRING:
                return False
            if isinstance(item, _WALKED) and not _within_bounds(item, depth + 1):
                return False
        return True
    if isinstance(value, _SEQUENCES):
        if len(value) > MAX_MODEL_ITEMS or depth > 8:
            return False
        for item in value:
            if isinstance(item, _WALKED) and not _within_bounds(item, depth + 1):
                return False
    return True


class MemoryView(BaseModel):
    """A memory as a decision sees it."""

    id: str
    subject: str | None
    kind: str
    content: str
    emotional_impact: str
    valence: float
    importance: float
    strength: float
    recall_count: int
    created_at: str
    traits: list[str] = Field(default_factory=list)

    @classmethod
    def of(cls, memory: Memory) -> MemoryView:
        # A valid memory's values, so not validated again: a turn shows each perceiver's
        # memories this way, a dozen views a busy turn (issue #17).
        return trusted(cls, {
            "id": memory.id, "subject": memory.subject, "kind": memory.kind.value,
            "content": memory.content, "emotional_impact": memory.emotional_impact,
            "valence": memory.valence, "importance": memory.importance, "strength": memory.strength,
            "recall_count": memory.recall_count, "created_at": iso(memory.created_at),
            "traits": list(memory.traits)})
