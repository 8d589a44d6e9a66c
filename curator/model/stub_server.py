"""A stub model server: an OpenAI-compatible `/v1/chat/completions` on 127.0.0.1, for tests,
benchmarks and for games that want to exercise the model path with no model.

Its answers are *scripted*: a Python callable decides each one. `FallbackEcho` answers every
prompt with the decision curator's own fallback makes for the same inputs (it learns the
inputs from the gateway's `before_call` hook, in the same process), so a run against it
follows the path a real model with the fallback's judgement would take.

    with StubModelServer(lambda body, headers: {"promote": True, "reason": "why not"}) as stub:
        curator = Curator("w.db", model=ModelSettings(model="openai/stub", api_base=stub.url))
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from curator.model.rounds import Request


@dataclass
class StubReply:
    """A whole HTTP reply, for scripting errors: StubReply(429, {"error": {...}})."""

    status: int
    body: Any


Answerer = Callable[[dict[str, Any], Mapping[str, str]], "dict[str, Any] | str | StubReply"]


def token_counter() -> Callable[[str], int]:
    """Counts prompt tokens with cl100k_base, as a provider would (curator/tokens.py, offline)."""
    from curator.model.tokens import count_tokens

    return count_tokens


class StubModelServer:
    """Serves chat completions from `answer(body, headers)`, after `latency` seconds."""

    def __init__(self, answer: Answerer, *, latency: float = 0.0, model: str = "stub"):
        self.answer, self.latency, self.model = answer, latency, model
        self.received: list[dict[str, Any]] = []
        self._count = token_counter()
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.url = ""

    def start(self) -> StubModelServer:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # or each reply waits ~40 ms for a delayed ACK

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._send(200, {"object": "list", "data": [{"id": stub.model, "object": "model"}]})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.received.append(body)
                if stub.latency:
                    time.sleep(stub.latency)
                status, reply = stub._reply(body, {k.lower(): v for k, v in self.headers.items()})
                self._send(status, reply)

            def _send(self, status: int, payload: Any) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                # One request a connection: a client never pools a socket to a stub that may
                # be gone by its next call (pooled sockets of stopped stubs leak in tests).
                self.send_header("connection", "close")
                self.close_connection = True
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 256  # 50 callers at once must not overflow the listen backlog

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> StubModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _reply(self, body: dict[str, Any], headers: Mapping[str, str]) -> tuple[int, Any]:
        try:
            answer = self.answer(body, headers)  # headers' names are lower case
        except Exception as error:  # a broken script is a 500 the caller can see, not a hang
            return 500, {"error": {"message": f"the stub's answerer failed: {error!r}"}}
        if isinstance(answer, StubReply):
            return answer.status, answer.body
        content = answer if isinstance(answer, str) else json.dumps(answer)
        prompt = sum(self._count(str(m.get("content") or "")) + 4 for m in body.get("messages", []))
        completion = self._count(content)
        return 200, {
            "id": "stub-" + hashlib.sha1(content.encode()).hexdigest()[:12], "object": "chat.completion",
            "created": 0, "model": body.get("model", self.model),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                      "total_tokens": prompt + completion}}


def prompt_digest(messages: list[dict[str, Any]]) -> str:
    """The first user message (the rendered template) identifies a request across re-asks."""
    user = next((m for m in messages if m.get("role") == "user"), {"content": ""})
    return hashlib.sha256(str(user.get("content")).encode()).hexdigest()


class FallbackEcho:
    """A scripted answerer: each prompt gets the fallback's decision for the same inputs.

    Install with `gateway.before_call = echo.learn`; use it as the stub's `answer`. A `voice`
    rewrites each decision (step name, decision as JSON) so that a test can tell the stub's
    answers from the fallback's own.
    """

    def __init__(self, voice: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None) -> None:
        self.decisions: dict[str, dict[str, Any]] = {}
        self.voice = voice

    def learn(self, request: Request, messages: list[dict[str, Any]]) -> None:
        step = request.step
        decision = step.answer_of(step.fallback(request.inputs)).model_dump(mode="json")
        if self.voice is not None:
            decision = self.voice(request.step.name, decision)
        self.decisions[prompt_digest(messages)] = decision

    def __call__(self, body: dict[str, Any], headers: Mapping[str, str]) -> dict[str, Any] | StubReply:
        decision = self.decisions.get(prompt_digest(body.get("messages", [])))
        if decision is None:
            return StubReply(400, {"error": {"message": "the stub was never told this prompt"}})
        return decision
