"""Steps and deciders: each judgement is a trio (template, decision model, fallback) with one name.

A `Step` names a judgement, its template in prompts/, the decision model it answers with and
its deterministic fallback. A `Decider` answers a step. `FallbackDecider` always uses the
fallback and says why; the gateway's decider (`llm.py`, driven through `rounds.py`) tries the
template with a model first and falls back, with the reason, when the model cannot answer.
The steps themselves are defined where their fallbacks live (`curator.turn.steps`,
`curator.evolution.identity`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from curator.domain.results import StepRecord

I = TypeVar("I", bound=BaseModel)  # noqa: E741 - the conventional name for an input type
D = TypeVar("D", bound=BaseModel)


@dataclass(frozen=True)
class Step(Generic[I, D]):
    """One judgement: its name, its template in prompts/, its output model and its fallback.

    A model is asked for `decision` itself, unless the step names a smaller `answer` to ask
    for (what a small model can give: enums, a sentence), with `from_answer` building the
    decision from it and `to_answer` putting a decision the same way (the stub server answers
    with the fallback's decision put so)."""

    name: str
    template: str
    decision: type[D]
    fallback: Callable[[I], D]
    answer: type[BaseModel] | None = None
    from_answer: Callable[[I, Any], D] | None = None
    to_answer: Callable[[D], BaseModel] | None = None
    # The step asked instead when the model reads in full (`ModelSettings.reading`): the same
    # judgement, a fuller answer (interpret: the gap and each other's deed too).
    detailed: Step[I, D] | None = None

    @property
    def asks(self) -> type[BaseModel]:
        """The model a model is asked to answer with."""
        return self.answer or self.decision

    def decided(self, inputs: I, answer: BaseModel) -> D:
        """The decision a model's answer makes."""
        if self.from_answer is None:
            return self.decision.model_validate(answer.model_dump())
        return self.from_answer(inputs, answer)

    def answer_of(self, decision: D) -> BaseModel:
        """A decision as the model would have answered it."""
        return decision if self.to_answer is None else self.to_answer(decision)


class Decider(Protocol):
    """Answers a step for a character; returns the decision and a record of how it was made."""

    def decide(self, step: Step[I, D], inputs: I, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[D, StepRecord]: ...


class FallbackDecider:
    """The embedded default: every step is decided by its deterministic fallback."""

    def __init__(self, reason: str = "no model configured"):
        self.reason = reason

    def decide(self, step: Step[I, D], inputs: I, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[D, StepRecord]:
        decision = step.fallback(inputs)
        record = StepRecord(character=character, step=step.name, template=step.template,
                            decided_by="fallback", reason=self.reason)
        return decision, record
