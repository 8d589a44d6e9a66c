"""Rounds: model calls happen outside the write transaction, and a turn commits once every
decision it needs is known.

A unit of work (a turn, an episode end) is attempted inside a transaction with a
`BookDecider`: each step it reaches is answered from the `AnswerBook`, or, when the book has
no answer yet, the step is recorded as a `Request` and the attempt is rolled back. The
requests of one round are sent to the model together (concurrently, under the gateway's
limit), their answers go into the book, and the unit is attempted again. The pipeline is
deterministic given its decisions, so each attempt reaches the same steps with the same
inputs, answered this time, until one attempt needs nothing new and commits. A turn
usually takes two short attempts around one round of calls: the write lock is held for
milliseconds, never while a model thinks.

Answers are keyed by (character, step, a digest of the step's inputs), so a decision is
only ever reused for exactly the inputs it was made for.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

from pydantic import BaseModel

from curator.domain.results import StepRecord
from curator.model.calls import CallRecord
from curator.model.steps import D, I, Step

R = TypeVar("R")
MAX_ROUNDS = 32  # a unit needs a handful; more means something keeps changing its inputs


@dataclass(frozen=True)
class Request:
    """A step a unit of work reached and the book could not answer."""

    key: str
    step: Step[Any, Any]
    inputs: BaseModel
    character: str
    context: dict[str, Any] | None
    turn_id: str | None
    world_time: datetime | None = None  # the game time of the unit (a turn's), when it has one


@dataclass(frozen=True)
class Answer:
    """A decision for one request: from the model, or from the fallback with the reason."""

    decision: BaseModel
    record: StepRecord
    call: CallRecord | None = None


class Pending(Exception):
    """Raised out of an attempt that reached steps the book cannot answer yet."""

    def __init__(self, requests: list[Request]):
        super().__init__(f"{len(requests)} decision(s) pending")
        self.requests = requests


class RoundsExhausted(RuntimeError):
    """A unit of work kept asking for new decisions; its inputs never settled."""


def request_key(step: Step[Any, Any], inputs: BaseModel, character: str) -> str:
    digest = hashlib.sha256(inputs.model_dump_json().encode()).hexdigest()[:24]
    return f"{character}\x1f{step.name}\x1f{digest}"


@dataclass
class AnswerBook:
    answers: dict[str, Answer] = field(default_factory=dict)

    def add(self, request: Request, answer: Answer) -> None:
        self.answers[request.key] = answer


class BookDecider:
    """A `Decider` that answers from the book, and records a `Request` for the rest."""

    def __init__(self, book: AnswerBook, turn_id: str | None = None,
                 world_time: datetime | None = None):
        self.book = book
        self.turn_id = turn_id
        self.world_time = world_time

    def decide(self, step: Step[I, D], inputs: I, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[D, StepRecord]:
        key = request_key(step, inputs, character)
        answer = self.book.answers.get(key)
        if answer is None:
            request = Request(key, step, inputs, character, context, self.turn_id, self.world_time)
            raise Pending([request])
        decision = answer.decision
        assert isinstance(decision, step.decision)
        return decision, answer.record


@dataclass
class Unit(Generic[R]):
    """One unit of work: `attempt(decider, commit)` runs it in a transaction; with
    commit=False it always rolls back (a dry run that only gathers requests)."""

    attempt: Callable[[BookDecider, bool], R]
    turn_id: str | None = None
    world_time: datetime | None = None  # a turn's game time: the game day its calls are charged to


def run_rounds(units: Sequence[Unit[R]], book: AnswerBook | None = None
               ) -> Generator[list[Request], list[Answer], list[R]]:
    """Drive units in order. Yields each round's requests and expects their answers back.

    Units commit in their given order: once one is waiting for answers, the later ones only
    dry-run, so a round gathers every request the batch can already know of. A dry run that
    fails (a turn whose time went backwards, say) stops the dry runs there; that unit is
    attempted for real, and raises, only after every unit before it has committed.
    """
    book = book or AnswerBook()
    results: list[R | None] = [None] * len(units)
    done = [False] * len(units)
    barrier = len(units)
    for _ in range(MAX_ROUNDS):
        requests: dict[str, Request] = {}
        blocked = False
        for index, unit in enumerate(units):
            if done[index]:
                continue
            if blocked and index >= barrier:
                break
            decider = BookDecider(book, unit.turn_id, unit.world_time)
            try:
                result = unit.attempt(decider, not blocked)
            except Pending as pending:
                for request in pending.requests:
                    requests.setdefault(request.key, request)
                blocked = True
                continue
            except Exception:
                if not blocked:
                    raise  # everything before this unit has committed
                barrier = index
                break
            if not blocked:
                results[index], done[index] = result, True
        if all(done):
            return cast(list[R], results)
        if not requests:
            continue  # nothing to ask: the next pass commits in order
        batch = list(requests.values())
        answers = yield batch
        for request, answer in zip(batch, answers, strict=True):
            book.add(request, answer)
    raise RoundsExhausted(f"gave up after {MAX_ROUNDS} rounds of model calls")
