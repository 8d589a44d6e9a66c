"""Decisions from the call log: how a rebuilt world (a rewind, a branch) reuses the answers a
model already gave, so that rebuilding costs no model call.

`CallLogDecider` renders each step's messages exactly as the gateway would send them (the
template's system and user blocks) and looks them up among the world's logged calls that a
model answered, by template, template hash and messages: what was sent. Found, the logged
answer becomes the decision as it did then (`Step.decided`); not found (the world was played
without a model, the model failed and the fallback decided, or a template changed since), the
step's fallback decides, as it did then. It never calls a model.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from pydantic import ValidationError

from curator.domain.results import StepRecord
from curator.model import prompts
from curator.model.steps import D, I, Step
from curator.store.world import World

NOT_IN_LOG = "rebuilt: not in the call log"
log = logging.getLogger(__name__)


def _key(template: str, template_hash: str, messages: Any) -> str:
    text = json.dumps(messages, sort_keys=True, ensure_ascii=False)
    return f"{template}@{template_hash}\x1f{hashlib.sha256(text.encode()).hexdigest()}"


class CallLogDecider:
    """A `Decider` answering from the answers a model gave, as logged in a world's `calls`."""

    def __init__(self, world: World):
        self.answers: dict[str, tuple[str, dict[str, Any]]] = {}
        self.templates: set[str] = set()
        for call_id, template, template_hash, messages, decision in world.conn.execute(
                "select id, template, template_hash, messages, decision from calls "
                "where outcome = 'model' and decision is not null order by seq"):
            key = _key(template, template_hash, json.loads(messages))
            self.answers[key] = (call_id, json.loads(decision))
            self.templates.add(template)
        self.reused = 0
        self.fell_back = 0

    def decide(self, step: Step[I, D], inputs: I, *, character: str,
               context: dict[str, Any] | None = None) -> tuple[D, StepRecord]:
        # A world played with the full reading logged the step's detailed template.
        for asked in (step, step.detailed):
            if asked is None or asked.template not in self.templates:
                continue  # rendering costs; a world without a model skips it
            system, user = prompts.render_parts(asked.template, inputs)
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            found = self.answers.get(_key(asked.template, prompts.template_hash(asked.template), messages))
            if found is None:
                continue
            call_id, logged = found
            try:
                decision = asked.decided(inputs, asked.asks.model_validate(logged, context=context))
            except (ValidationError, ValueError):
                continue  # the checks changed since: the answer would be refused today
            except Exception:  # as the gateway does with a live answer (llm.py)
                # An answer a newer curator cannot turn into a decision falls back, as a live
                # one does, rather than stopping the rebuild half way.
                log.warning("%s for %s: the logged answer no longer makes a decision; the fallback "
                            "decided", step.name, character, exc_info=True)
                continue
            self.reused += 1
            return decision, StepRecord(character=character, step=step.name, template=asked.template,
                                        decided_by="model", call_id=call_id)
        self.fell_back += 1
        return step.fallback(inputs), StepRecord(character=character, step=step.name,
                                                 template=step.template, decided_by="fallback",
                                                 reason=NOT_IN_LOG)
