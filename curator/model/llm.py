"""The model gateway: the one module that imports litellm and instructor, and only on first use.

A `ModelGateway` answers `Request`s (rounds.py): it renders the step's template (its system
block, the same on every call, then its user block), asks the model through litellm for what
the step asks (`Step.asks`: the decision itself, or a smaller answer the step builds its
decision from) with instructor (a validation error is sent back to the model, `retries`
times), and returns an `Answer`. When the model cannot answer (no model, timeout, connection
error, rate limit or server error after retries, invalid answers after retries, a refusal, an
empty answer, a server cooling down after refusing connections) the step's deterministic
fallback decides and the answer says why. It never returns an empty decision. A missing API
key is `ModelUnavailable`, before any request (health.py).

Settings come from `ModelSettings` (settings.py) or the `CURATOR_*` environment.

Every request carries two headers, `X-Curator-Template` (name@hash) and `X-Curator-Schema`
(the answer schema's hash): recorded fixtures are keyed by them (fixtures.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib.util
import json
import logging
import os
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from curator.domain.errors import FixtureMissing as FixtureMissing  # raised through the gateway
from curator.domain.errors import ModelUnavailable
from curator.domain.models import iso
from curator.domain.results import StepRecord
from curator.model import answer_checks, health, prompts
from curator.model.calls import CallRecord
from curator.model.decision import validation_scope
from curator.model.extras import install_command
from curator.model.responses import answer_text, refused, schema_in_json_object, usage_count
from curator.model.rounds import Answer, Request
from curator.model.settings import ModelSettings as ModelSettings  # public as curator.model.llm.ModelSettings
from curator.model.settings import endpoint_kwargs

log = logging.getLogger("curator.model.llm")

CALL_THREADS = "curator-llm"  # the name of the threads model calls run on (cli/signals.py looks)
NOT_RECORDED = "not recorded"  # replay found no answer for this request (a lenient replay)
# Worth asking again after a pause; a timeout is not retried: each one already cost `timeout`.
TRANSIENT = frozenset({"rate limited", "server error", "connection error"})

_SCHEMA_HASHES: dict[type[BaseModel], str] = {}


def schema_hash(decision: type[BaseModel]) -> str:
    # A decision's schema is fixed for the process, and generating it takes milliseconds.
    if decision not in _SCHEMA_HASHES:
        text = json.dumps(decision.model_json_schema(), sort_keys=True)
        _SCHEMA_HASHES[decision] = hashlib.sha256(text.encode()).hexdigest()[:16]
    return _SCHEMA_HASHES[decision]


def messages_for(request: Request) -> list[dict[str, str]]:
    """The step's unchanging instructions first (the system message, the same on every call of
    the step, so a server's prompt cache reuses it), then the case at hand."""
    system, user = prompts.render_parts(request.step.template, request.inputs)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


_prepared = False


def _litellm() -> Any:
    """Import litellm once, configured to stay offline and quiet."""
    global _prepared
    if not _prepared:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # never fetch the price list
        os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")  # async calls go through httpx
        spec = importlib.util.find_spec("litellm")
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(f"the model path needs litellm: {install_command('llm')}")
        tokenizers = Path(spec.origin).parent / "litellm_core_utils" / "tokenizers"
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tokenizers))  # tiktoken's files, offline
        for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "instructor"):
            logging.getLogger(name).addHandler(logging.NullHandler())
    import litellm

    if not _prepared:
        litellm.disable_hf_tokenizer_download = True
        litellm.suppress_debug_info = True
        litellm.telemetry = False
        litellm.drop_params = True  # a provider that lacks a parameter ignores it
        _prepared = True
    return litellm


def classify(error: BaseException, responses: list[Any]) -> str:
    """The fallback reason for a failed call, from the error and the answers received."""
    litellm = _litellm()
    import httpx
    from instructor.core.exceptions import IncompleteOutputException, InstructorRetryException

    chain: list[BaseException] = []
    seen: BaseException | None = error
    while seen is not None and seen not in chain:
        if isinstance(seen, FixtureMissing):
            if seen.strict:
                raise seen
            return NOT_RECORDED
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    # litellm reports a refused or dropped connection as a server error; the chain knows better.
    if any(isinstance(e, httpx.TimeoutException) for e in chain):
        return "timeout"
    if any(isinstance(e, httpx.TransportError) for e in chain):
        return "connection error"
    cause: BaseException = error
    if isinstance(error, InstructorRetryException) and error.__cause__ is not None and not isinstance(
            error.__cause__, ValidationError | json.JSONDecodeError | ValueError):
        cause = error.__cause__
    checks: list[tuple[Any, str]] = [
        (litellm.Timeout, "timeout"),
        (litellm.RateLimitError, "rate limited"),
        (litellm.ContentPolicyViolationError, "refusal"),
        (litellm.ContextWindowExceededError, "prompt too long"),
        ((litellm.InternalServerError, litellm.ServiceUnavailableError, litellm.BadGatewayError),
         "server error"),
        (litellm.APIConnectionError, "connection error"),
        ((litellm.AuthenticationError, litellm.PermissionDeniedError), "not authorised"),
        ((litellm.BadRequestError, litellm.NotFoundError, litellm.UnprocessableEntityError),
         "rejected by the provider"),
        (litellm.APIError, "provider error"),
        (IncompleteOutputException, "answer cut off"),
    ]
    for kinds, reason in checks:
        if isinstance(cause, kinds):
            return reason
    if isinstance(cause, InstructorRetryException | ValidationError):  # (or the kept answer re-checked)
        last = responses[-1] if responses else None
        if last is not None and refused(last):
            return "refusal"
        if last is not None and not (answer_text(last) or "").strip():
            return "empty answer"
        return "invalid answer"
    return f"error ({type(cause).__name__})"


class _Call:
    """The bookkeeping of one request: attempts, answers received, the record it becomes."""

    def __init__(self, gateway: ModelGateway, request: Request):
        from instructor.core.hooks import Hooks

        self.gateway, self.request = gateway, request
        self.started = time.perf_counter()
        self.started_at = iso(datetime.now(UTC))
        self.messages = messages_for(request)
        # Validation sees the request's context and the prompt's own wording, so an answer
        # that hands the instructions back is refused and the model told (answer_checks.py).
        self.context = answer_checks.checking(request.context, answer_checks.echo_of(
            list(prompts.render_parts(request.step.template, request.inputs, marked=True))))
        if gateway.before_call is not None:
            gateway.before_call(request, self.messages)
        self.responses: list[Any] = []
        self.attempts = 0
        self.hooks = Hooks()
        self.hooks.on("completion:kwargs", self._attempted)
        self.hooks.on("completion:response", self._received)
        self.usage: list[tuple[int, int]] = []

    def _received(self, response: Any) -> None:
        # Read the usage now: instructor later folds the running total into the response.
        self.responses.append(response)
        self.usage.append((usage_count(response, "prompt_tokens"),
                           usage_count(response, "completion_tokens")))

    def _attempted(self, *args: Any, **kwargs: Any) -> None:
        self.attempts += 1

    def kwargs(self) -> dict[str, Any]:
        settings, step = self.gateway.settings, self.request.step
        kwargs: dict[str, Any] = {
            "model": settings.model, "messages": self.messages, "response_model": step.asks,
            "max_retries": settings.retries, "strict": False, "hooks": self.hooks,
            "timeout": settings.timeout, "temperature": settings.temperature,
            "max_tokens": settings.max_tokens, "num_retries": 0,
            "extra_headers": {"X-Curator-Template": f"{step.template}@{prompts.template_hash(step.template)}",
                              "X-Curator-Schema": schema_hash(step.asks)}}
        return {**kwargs, **endpoint_kwargs(settings.api_base, settings.api_key)}

    def answered(self, answer: BaseModel) -> Answer:
        step = self.request.step
        clean = step.asks.model_validate(answer.model_dump(), context=self.context)
        decision = step.decided(self.request.inputs, clean)
        call = self._record("model", None, None, clean.model_dump(mode="json"))
        record = StepRecord(character=self.request.character, step=step.name, template=step.template,
                            decided_by="model", call_id=call.id)
        return Answer(decision, record, call)

    def fell_back(self, reason: str, error: BaseException | None) -> Answer:
        step = self.request.step
        log.warning("%s for %s: %s; the fallback decided", step.name, self.request.character, reason)
        call = self._record("fallback", reason, error, None)
        record = StepRecord(character=self.request.character, step=step.name, template=step.template,
                            decided_by="fallback", reason=reason, call_id=call.id)
        return Answer(step.fallback(self.request.inputs), record, call)

    def _record(self, outcome: Literal["model", "fallback"], reason: str | None,
                error: BaseException | None, decision: dict[str, Any] | None) -> CallRecord:
        request, settings = self.request, self.gateway.settings
        prompt = sum(p for p, _ in self.usage)
        completion = sum(c for _, c in self.usage)
        # instructor folds the running usage into each response, so the last one prices them all
        costs = [c for c in (_cost(r) for r in self.responses[-1:]) if c is not None]
        return CallRecord(
            id=uuid.uuid4().hex, turn_id=request.turn_id, character=request.character,
            step=request.step.name, template=request.step.template,
            template_hash=prompts.template_hash(request.step.template), model=settings.model,
            messages=self.messages, response=answer_text(self.responses[-1]) if self.responses else None,
            decision=decision, error=None if error is None else f"{type(error).__name__}: {error}"[:2000],
            outcome=outcome, reason=reason, attempts=self.attempts,
            prompt_tokens=prompt if self.responses else None,
            completion_tokens=completion if self.responses else None,
            cost=round(sum(costs), 8) if costs else None,
            latency_ms=round((time.perf_counter() - self.started) * 1000, 3),
            started_at=self.started_at)


def _cost(response: Any) -> float | None:
    try:
        return float(_litellm().completion_cost(completion_response=response))
    except Exception:  # litellm knows no price for this model (local servers, new models)
        return None


class ModelGateway:
    """Answers requests with a model; sync calls run in a thread pool, async ones in tasks."""

    def __init__(self, settings: ModelSettings):
        health.require_extra(settings.model)
        self.settings = settings
        self.cooldown = health.Cooldown(settings.api_base or settings.model)
        self._key_checked = False
        # Told of each request and its messages before it is sent (the stub server's FallbackEcho).
        self.before_call: Callable[[Request, list[dict[str, str]]], None] | None = None
        self._clients: dict[bool, Any] = {}
        self._pool: ThreadPoolExecutor | None = None
        self._recorder: Any = None
        if settings.record_dir is not None:
            from curator.model.fixtures import FixtureStore, Recorder

            _litellm()
            self._recorder = Recorder(FixtureStore(settings.record_dir), kind="recorded",
                                      source=settings.model)
            self._recorder.start()

    def close(self) -> None:
        if self._pool is not None:
            # Not waiting: a round's calls are over when it returns, so a call still running
            # here is one a stop (Ctrl-C, SIGTERM) cut off, whose answer nobody wants; waiting
            # for it held the stop up to the call's timeout (cli/main.py lets it go at exit).
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
        if self._recorder is not None:
            self._recorder.stop()
            self._recorder = None

    def _client(self, is_async: bool) -> Any:
        if is_async not in self._clients:
            litellm = _litellm()
            import instructor

            modes = {"json_schema": instructor.Mode.JSON_SCHEMA, "json": instructor.Mode.JSON,
                     "json_object_schema": instructor.Mode.JSON_SCHEMA,
                     "md_json": instructor.Mode.MD_JSON, "tools": instructor.Mode.TOOLS}
            completion = litellm.acompletion if is_async else litellm.completion
            if self.settings.mode == "json_object_schema":
                completion = schema_in_json_object(completion, is_async)
            self._clients[is_async] = instructor.from_litellm(completion, mode=modes[self.settings.mode])
        return self._clients[is_async]

    def check_ready(self) -> None:
        """ModelUnavailable when the provider's API key is missing (checked once)."""
        if self._key_checked:
            return
        settings = self.settings
        missing = health.missing_key(_litellm(), settings.model, settings.api_base, settings.api_key)
        if missing is not None:
            raise ModelUnavailable(f"no API key: set {missing} (or CURATOR_API_KEY), or unset "
                                   "CURATOR_MODEL to run without a model", model=settings.model)
        self._key_checked = True

    def _failed(self, call: _Call, reason: str, error: BaseException | None) -> Answer:
        self.cooldown.failed(reason)
        return call.fell_back(reason, error)

    def _begin(self, request: Request) -> tuple[_Call, Answer | None]:
        """The call for `request` (read in full if so set), and its fallback when cooling down."""
        self.check_ready()
        if self.settings.reading == "full" and request.step.detailed:
            request = replace(request, step=request.step.detailed)
        call = _Call(self, request)
        blocked = self.cooldown.blocked()
        return call, (call.fell_back(blocked, None) if blocked is not None else None)

    def call(self, request: Request) -> Answer:
        call, cooled = self._begin(request)
        if cooled is not None:
            return cooled
        client = self._client(False)
        for attempt in range(self.settings.transport_retries + 1):
            try:
                with validation_scope(call.context):
                    decision = client.create(**call.kwargs())
                self.cooldown.succeeded()
                return call.answered(decision)
            except Exception as error:
                reason = classify(error, call.responses)
                if reason not in TRANSIENT or attempt == self.settings.transport_retries:
                    return self._failed(call, reason, error)
                time.sleep(self.settings.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

    async def acall(self, request: Request) -> Answer:
        call, cooled = self._begin(request)
        if cooled is not None:
            return cooled
        client = self._client(True)
        for attempt in range(self.settings.transport_retries + 1):
            try:
                with validation_scope(call.context):
                    decision = await client.create(**call.kwargs())
                self.cooldown.succeeded()
                return call.answered(decision)
            except Exception as error:
                reason = classify(error, call.responses)
                if reason not in TRANSIENT or attempt == self.settings.transport_retries:
                    return self._failed(call, reason, error)
                await asyncio.sleep(self.settings.backoff * 2 ** attempt)
        raise AssertionError("unreachable")

    def call_many(self, requests: list[Request]) -> list[Answer]:
        """Answer a round of requests, at most `concurrency` at a time, in their order.

        Always in pool threads, even one request: litellm's sync error path calls
        asyncio.get_event_loop(), which on the caller's main thread would create and leave
        behind an event loop that is not curator's to leave."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix=CALL_THREADS)
        return list(self._pool.map(self.call, requests))

    async def acall_many(self, requests: list[Request]) -> list[Answer]:
        limit = asyncio.Semaphore(self.settings.concurrency)

        async def limited(request: Request) -> Answer:
            async with limit:
                return await self.acall(request)

        return list(await asyncio.gather(*(limited(r) for r in requests)))


def _cached_clients() -> list[Any]:
    if not _prepared:
        return []
    cache = _litellm().in_memory_llm_clients_cache
    clients = list(cache.cache_dict.values())
    cache.flush_cache()
    return clients


def release_connections() -> None:
    """Close the HTTP clients litellm keeps between calls (all of them, for every gateway in
    the process): for shutdown, or between tests that start and stop servers. Calls made
    afterwards open new connections. Async clients are best closed by `arelease_connections`
    inside the event loop that used them."""
    pending = [outcome for outcome in (_close(c) for c in _cached_clients()) if outcome is not None]
    if pending:
        async def close_all() -> None:
            await asyncio.gather(*pending, return_exceptions=True)
        asyncio.run(close_all())


async def arelease_connections() -> None:
    """`release_connections` from inside the event loop whose async clients should close."""
    pending = [outcome for outcome in (_close(c) for c in _cached_clients()) if outcome is not None]
    await asyncio.gather(*pending, return_exceptions=True)


def _close(client: Any) -> Any:
    close = getattr(client, "close", None) or getattr(client, "aclose", None)
    if close is None:
        return None
    outcome = close()
    return outcome if asyncio.iscoroutine(outcome) else None
