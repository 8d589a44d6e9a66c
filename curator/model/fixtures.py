"""Fixtures: provider responses saved as JSON files, recorded from a live endpoint and replayed
through respx, so litellm, instructor and the HTTP layer all run for real in tests.

A fixture is keyed by a hash of (the model as the provider was asked for it, the template's
name and hash, the response schema's hash, the messages exactly as sent). The template and
schema come from the `X-Curator-Template` and `X-Curator-Schema` headers the gateway sends;
the model and messages from the request body. A change to a template, a schema or an input
therefore changes the key, and replay fails naming the key it looked for.

Each file says what it is: `"kind": "recorded"` is a real model's response, saved by running
with recording on (`--record DIR`, `CURATOR_RECORD`); `"kind": "scripted"` was written by
hand or by a script (the stub server) to make a test case; `"kind": "stand-in"` is a reader's
answer to curator's own prompt, given through a local stub server where no capable model runs
(`scripts/stand_in_model.py`, its `source` naming the reader). Only the request's path, model,
messages and the two curator headers are kept, and of the response its status, content type
and body: API keys live in headers and query strings, which are never written.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import urllib.error
import urllib.request
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import httpx
import respx

from curator.domain.errors import FixtureMissing, FixtureUnreadable

Kind = Literal["recorded", "scripted", "stand-in"]


def fixture_key(model: str, template: str, schema: str, messages: Any) -> str:
    payload = json.dumps({"model": model, "template": template, "schema": schema, "messages": messages},
                         sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def request_identity(request: httpx.Request) -> dict[str, Any]:
    """What a fixture is keyed on, read from an outgoing HTTP request."""
    try:
        body = json.loads(request.content or b"{}")
    except json.JSONDecodeError:
        body = {}
    messages: Any = body.get("messages")
    if "system" in body:  # providers that take the system prompt beside the messages
        messages = {"system": body["system"], "messages": messages}
    return {"path": request.url.path, "model": str(body.get("model", "")),
            "template": request.headers.get("x-curator-template", ""),
            "schema": request.headers.get("x-curator-schema", ""), "messages": messages}


def key_of(identity: dict[str, Any]) -> str:
    return fixture_key(identity["model"], identity["template"], identity["schema"], identity["messages"])


class FixtureStore:
    """A directory of fixture files, one per key."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        return self.directory / f"{key[:24]}.json"

    def load(self, key: str) -> dict[str, Any] | None:
        path = self.path(key)
        if not path.exists():
            return None
        try:
            entry: dict[str, Any] = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise FixtureUnreadable(str(path), str(error)) from error
        return entry if isinstance(entry, dict) and entry.get("key") == key else None

    def save(self, entry: dict[str, Any]) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.path(entry["key"])
        path.write_text(json.dumps(entry, indent=1, ensure_ascii=False) + "\n")
        return path

    def prune_unused(self, since: float) -> int:
        """Delete the fixtures no request has used since `since` (a time.time()): after a run
        that recorded into this store, what is left untouched belongs to prompts that are gone.
        Returns how many were deleted."""
        stale = [p for p in self.directory.glob("*.json") if p.stat().st_mtime < since]
        for path in stale:
            path.unlink()
        return len(stale)

    def entries(self) -> list[dict[str, Any]]:
        return [json.loads(p.read_text()) for p in sorted(self.directory.glob("*.json"))]


def _entry(kind: Kind, source: str, identity: dict[str, Any], status: int, content_type: str,
           body: bytes) -> dict[str, Any]:
    response: dict[str, Any] = {"status": status, "content_type": content_type}
    try:
        response["json"] = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        response["text"] = body.decode("utf-8", "replace")
    return {"kind": kind, "source": source, "key": key_of(identity),
            "saved_at": datetime.now(UTC).isoformat(timespec="seconds"), "request": identity,
            "response": response}


def response_of(entry: dict[str, Any]) -> httpx.Response:
    saved = entry["response"]
    if "json" in saved:
        return httpx.Response(saved["status"], json=saved["json"])
    return httpx.Response(saved["status"], text=saved.get("text", ""),
                          headers={"content-type": saved.get("content_type") or "text/plain"})


class Recorder:
    """While started, every HTTP request curator's model calls make goes to the real endpoint
    (outside httpx, through urllib) and its response is saved. Process-wide, like respx.

    With `reuse` (the default), a request whose answer is already in the store is answered
    from it and not sent: a recording that stopped part-way picks up where it stopped, and
    re-recording after a change asks the model only what changed (`reused` counts them)."""

    def __init__(self, store: FixtureStore, *, kind: Kind = "recorded", source: str = "",
                 timeout: float = 120.0, reuse: bool = True):
        self.store, self.kind, self.source, self.timeout = store, kind, source, timeout
        self.reuse = reuse
        self.reused = 0
        self.saved: list[Path] = []
        self._lock = threading.Lock()
        self._router: respx.MockRouter | None = None

    def start(self) -> None:
        self._router = respx.mock(assert_all_called=False)
        self._router.route().mock(side_effect=self._forward)
        self._router.start()

    def stop(self) -> None:
        if self._router is not None:
            self._router.stop()
            self._router = None

    def __enter__(self) -> Recorder:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _forward(self, request: httpx.Request) -> httpx.Response:
        identity = request_identity(request)
        if self.reuse and identity["template"]:
            try:
                entry = self.store.load(key_of(identity))
            except FixtureUnreadable:
                entry = None  # asked again, and the file written afresh
            # An error the server gave (a 5xx, a timeout's 408) is asked again, not kept.
            if entry is not None and entry.get("kind") == self.kind and entry["response"]["status"] == 200:
                with self._lock:
                    self.reused += 1
                os.utime(self.store.path(entry["key"]))  # used by this run: `prune_unused` keeps it
                return response_of(entry)
        skip = {"content-length", "host", "accept-encoding", "connection", "transfer-encoding"}
        headers = {k: v for k, v in request.headers.items() if k.lower() not in skip}
        outgoing = urllib.request.Request(str(request.url), data=request.content or None,
                                          method=request.method, headers=headers)
        try:
            with urllib.request.urlopen(outgoing, timeout=self.timeout) as reply:
                status, body = reply.status, reply.read()
                content_type = reply.headers.get("content-type", "")
        except urllib.error.HTTPError as error:
            status, body = error.code, error.read()
            content_type = error.headers.get("content-type", "")
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise httpx.ConnectError(f"recording: {error}", request=request) from error
        if identity["template"]:  # only curator's own model calls become fixtures
            entry = _entry(self.kind, self.source, identity, status, content_type, body)
            with self._lock:
                self.saved.append(self.store.save(entry))
        return httpx.Response(status, content=body, headers={"content-type": content_type})


class Replayer:
    """While active, every HTTP request is answered from fixtures; a miss raises FixtureMissing
    and is listed in `missing`. A strict replayer's miss stops the work (the gateway re-raises
    it); a lenient one's (`strict=False`) is a fallback with the reason "not recorded", so one
    changed prompt costs one step, not the whole run."""

    def __init__(self, *stores: FixtureStore, strict: bool = True):
        self.stores = stores
        self.strict = strict
        self.missing: list[str] = []
        self.served: list[dict[str, Any]] = []
        self._router: respx.MockRouter | None = None

    def __enter__(self) -> Replayer:
        self._router = respx.mock(assert_all_called=False)
        self._router.route().mock(side_effect=self._replay)
        self._router.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._router is not None:
            self._router.stop()
            self._router = None

    def _replay(self, request: httpx.Request) -> httpx.Response:
        key = key_of(request_identity(request))
        for store in self.stores:
            try:
                entry = store.load(key)
            except FixtureUnreadable as error:
                self.missing.append(key)
                error.strict = self.strict
                raise
            if entry is not None:
                self.served.append(entry)
                return response_of(entry)
        self.missing.append(key)
        raise FixtureMissing(key, ", ".join(str(s.directory) for s in self.stores), strict=self.strict)
