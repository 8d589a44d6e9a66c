"""Embeddings from any provider through litellm's `embedding` call (OpenAI, Ollama, a local
OpenAI-compatible server ...), behind the `Embedder` interface (embedders.py).

litellm is imported through the model gateway (llm.py), lazily and configured to stay
offline and quiet; this module imports neither litellm nor instructor itself. The endpoint
and key come from `$CURATOR_API_BASE` / `$CURATOR_API_KEY` (as for the decision model) or the
arguments. Failures become `ModelUnavailable` with the provider's message: a search that
needs the embedding says so at once rather than ranking without it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from curator.domain.errors import ModelUnavailable
from curator.model.extras import install_command
from curator.model.settings import endpoint_kwargs


class LiteLLMEmbedder:
    """`litellm.embedding(model=...)`; `dimensions` is learnt from the first answer."""

    def __init__(self, model: str, *, api_base: str | None = None, api_key: str | None = None,
                 timeout: float = 30.0):
        self.model = model
        self.api_base = api_base or os.environ.get("CURATOR_API_BASE") or None
        self.api_key = api_key or os.environ.get("CURATOR_API_KEY") or None
        self.timeout = timeout
        self._dimensions = 0

    @property
    def name(self) -> str:
        return f"litellm:{self.model}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            from curator.model.llm import _litellm

            litellm = _litellm()
        except ModuleNotFoundError as error:
            raise ModelUnavailable(f"the llm extra is not installed: {install_command('llm')}",
                                   model=self.name) from error
        kwargs: dict[str, Any] = {"model": self.model, "input": list(texts), "timeout": self.timeout,
                                  **endpoint_kwargs(self.api_base, self.api_key)}
        try:
            # In a thread of its own, as the gateway's calls are (llm.py, call_many): litellm's
            # sync error path calls asyncio.get_event_loop(), which on the main thread would
            # create and leave behind an event loop.
            with ThreadPoolExecutor(1, thread_name_prefix="curator-embed") as pool:
                response = pool.submit(litellm.embedding, **kwargs).result()
        except Exception as error:  # litellm raises its own types per provider: report them all
            raise ModelUnavailable(f"embedding failed: {type(error).__name__}: {error}"[:500],
                                   model=self.name) from error
        rows = sorted(response.data, key=lambda item: _field(item, "index"))
        vectors = [_unit([float(v) for v in _field(item, "embedding")]) for item in rows]
        if len(vectors) != len(texts) or not vectors or any(len(v) != len(vectors[0]) for v in vectors):
            raise ModelUnavailable(f"embedding answered {len(vectors)} vectors for {len(texts)} texts",
                                   model=self.name)
        self._dimensions = len(vectors[0])
        return vectors


def _field(item: Any, key: str) -> Any:
    return item[key] if isinstance(item, dict) else getattr(item, key)


def _unit(vector: list[float]) -> list[float]:
    """Providers differ on normalising; recall compares by cosine, so normalise here."""
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector] if norm else vector
