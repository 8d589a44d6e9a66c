"""Health: whether a configured model can be asked at all, and a cool-down when it cannot.

Three things go wrong before a model ever answers, and each is said once, plainly:
- curator's model extra (litellm, instructor) is not installed: `require_extra` raises
  `ModelUnavailable` naming the install command, when the gateway is made;
- the provider's API key is missing: `missing_key` (litellm's own `validate_environment`)
  names the variable, and the gateway raises `ModelUnavailable` before the first call;
- the server refuses connections (or keeps timing out): a `Cooldown` stops asking it for a
  while, logging it once, and every step meanwhile falls back at no cost instead of paying a
  connection attempt or a timeout each; after the pause the server is tried again.

It imports no model client itself; `missing_key` takes litellm from the gateway.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from curator.domain.errors import ModelUnavailable
from curator.model.extras import install_command

log = logging.getLogger("curator.model.health")

EXTRA = ("litellm", "instructor")
COOLDOWN_SECONDS = 60.0
TIMEOUTS_BEFORE_COOLDOWN = 3  # timeouts in a row; one refused connection is enough
UNREACHABLE = "model unreachable"


def require_extra(model: str) -> None:
    """ModelUnavailable unless litellm and instructor can be imported (without importing them)."""
    missing = [name for name in EXTRA if importlib.util.find_spec(name) is None]
    if missing:
        raise ModelUnavailable(f"curator's model extra is not installed ({', '.join(missing)} missing): "
                               f"{install_command('llm')}, or unset CURATOR_MODEL to run without a model",
                               model=model)


def missing_key(litellm: Any, model: str, api_base: str | None, api_key: str | None) -> str | None:
    """The environment variable the provider needs and does not have, else None. A local
    server (`api_base`) or a key given in the settings needs none."""
    if api_key or api_base:
        return None
    try:
        found = litellm.validate_environment(model=model)
    except Exception:  # a model litellm cannot place: let the call itself say what is wrong
        return None
    missing = [k for k in found.get("missing_keys", []) if k]
    return missing[0] if missing and not found.get("keys_in_environment", True) else None


class Cooldown:
    """Stops asking an unreachable server for `seconds`; thread-safe (calls run in a pool)."""

    def __init__(self, target: str, seconds: float = COOLDOWN_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.target, self.seconds, self.clock = target, seconds, clock
        self._until = 0.0
        self._timeouts = 0
        self._lock = threading.Lock()

    def blocked(self) -> str | None:
        """The fallback reason while cooling down, else None (the server may be asked)."""
        with self._lock:
            left = self._until - self.clock()
        return f"{UNREACHABLE} (cooling down, {left:.0f} s left)" if left > 0 else None

    def failed(self, reason: str) -> None:
        """A call ended with `reason` (llm.classify's words)."""
        with self._lock:
            if reason == "timeout":
                self._timeouts += 1
                if self._timeouts < TIMEOUTS_BEFORE_COOLDOWN:
                    return
            elif reason != "connection error":
                return
            already = self._until > self.clock()
            self._until = self.clock() + self.seconds
            self._timeouts = 0
        if not already:
            log.warning("the model server %s is unreachable (%s); the fallback decides every step "
                        "for the next %.0f s, then it is tried again", self.target, reason, self.seconds)

    def succeeded(self) -> None:
        with self._lock:
            self._timeouts = 0
            self._until = 0.0
