"""Embedders: the one small interface behind semantic recall, and the makers of each kind.

An `Embedder` has a `name` (stored beside every vector it makes, so a world whose embedder
changes embeds again), `dimensions`, and `embed(texts)`, one L2-normalised vector per text.
A world names its embedder by a spec (`curator embed --setup SPEC`), made here:

- `local`: all-MiniLM-L6-v2 as an int8 ONNX file, on this machine, no network
  (local_embedder.py; needs the `embed` extra and the two model packages);
- `litellm:MODEL`: any provider's embedding model through litellm (embed_gateway.py; needs
  the `llm` extra, and the provider's key or `$CURATOR_API_BASE` for a local server);
- `hashing` / `hashing:DIMS`: hashed words, no model at all. It finds only shared words (as
  the full-text index already does), so it adds nothing to recall: it is the deterministic
  embedder the tests and a first try of the pipeline use.

Nothing here imports numpy, onnxruntime or litellm: each maker imports its own, lazily.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from curator.domain.errors import InvalidInput

SPEC_HELP = "local, litellm:MODEL (e.g. litellm:ollama/nomic-embed-text) or hashing[:DIMS]"
_WORD = re.compile(r"\w+")


@runtime_checkable
class Embedder(Protocol):
    """What semantic recall needs of a model: a stable name, a size, and vectors for texts."""

    @property
    def name(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit-length vector of `dimensions` floats per text, in order."""
        ...


class HashingEmbedder:
    """Hashed bag of lower-cased words (signed feature hashing), L2-normalised. Deterministic
    and free; it knows no synonyms, so it is for tests and for trying the pipeline."""

    def __init__(self, dimensions: int = 256):
        if not 8 <= dimensions <= 4_096:
            raise InvalidInput(f"hashing embedder dimensions must be 8..4096, got {dimensions}",
                               field="embedder")
        self._dimensions = dimensions

    @property
    def name(self) -> str:
        return f"hashing:{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._one(text) for text in texts]

    def _one(self, text: str) -> list[float]:
        vector = [0.0] * self._dimensions
        for word in _WORD.findall(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            index = int.from_bytes(digest[:4], "little") % self._dimensions
            vector[index] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else vector


def embedder_from_spec(spec: str) -> Embedder:
    """The embedder a spec names (see the module docstring); `InvalidInput` for a spec that
    names none, `ModelUnavailable` when its packages are not installed."""
    text = spec.strip()
    kind, _, rest = text.partition(":")
    if kind == "local" and not rest:
        from curator.model.local_embedder import LocalMiniLM

        return LocalMiniLM()
    if kind == "litellm" and rest.strip():
        from curator.model.embed_gateway import LiteLLMEmbedder

        return LiteLLMEmbedder(rest.strip())
    if kind == "hashing":
        if not rest:
            return HashingEmbedder()
        if rest.isdigit():
            return HashingEmbedder(int(rest))
    raise InvalidInput(f"unknown embedder {spec!r}: use {SPEC_HELP}", field="embedder")
