"""The semantic-recall half of the API: choosing a world's embedder and keeping its vectors.

`Curator` inherits `SemanticRecall`. A world names its embedder once (`set_embedder("local")`,
kept in the world file: `curator embed --setup local`); a process may instead hand one in
(`use_embedder(obj)`, any object with the `Embedder` interface; not stored). With neither,
recall is what it always was. With one, `search` and `context` first embed the character's
memories that lack a vector (in batches, each its own short transaction, never inside a
turn's), then fuse the situation's similarity into ranking (recall/semantic.py);
`embed_pending` catches a whole world up ahead of time. A search whose embedder fails (a
provider down) ranks by words alone and logs a warning, as a model step falls back; one
that cannot write (a locked or read-only world) ranks with the vectors already there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from curator.domain.config import CuratorConfig
from curator.domain.errors import ModelUnavailable, WorldLocked, WorldStorageError
from curator.model.embedders import Embedder, embedder_from_spec
from curator.recall.semantic import CatchUp, Semantic, catch_up, passage_similarities, similarities
from curator.store.vectors import EMBEDDER_KEY, prune, vector_counts
from curator.store.world import World

log = logging.getLogger("curator.embeddings")


class SemanticRecall:
    """Embedder choice, catch-up and the similarities `search`/`context` fuse (see above)."""

    config: CuratorConfig

    @property
    def world(self) -> World:
        raise NotImplementedError  # Curator's: this thread's connection

    def set_embedder(self, spec: str | None) -> Embedder | None:
        """Name this world's embedder (`local`, `litellm:MODEL`, `hashing[:DIMS]`; None: off),
        kept in the world file. The spec is checked (its packages must be installed) before it
        is saved; vectors of another embedder stay, unused, until `prune`d or used again."""
        embedder = embedder_from_spec(spec) if spec is not None else None
        with self.world.transaction() as world:
            if spec is None:
                world.conn.execute("delete from meta where key = ?", (EMBEDDER_KEY,))
            else:
                world.set_meta(EMBEDDER_KEY, spec.strip())
        self._embedders()[spec.strip() if spec else ""] = embedder
        return embedder

    def use_embedder(self, embedder: Embedder | None) -> None:
        """Use `embedder` in this process whatever the world names (None: the world's again)."""
        self.__dict__["_embedder_override"] = embedder

    def embedder(self) -> Embedder | None:
        """The embedder recall uses: the one handed to `use_embedder`, else the world's."""
        override: Embedder | None = self.__dict__.get("_embedder_override")
        if override is not None:
            return override
        spec = self.world.meta(EMBEDDER_KEY)
        if spec is None:
            return None
        cache = self._embedders()
        if spec not in cache:
            cache[spec] = embedder_from_spec(spec)
        return cache[spec]

    def embed_pending(self, character: str | None = None, *, batch: int = 64, limit: int | None = None,
                      progress: Callable[[CatchUp], None] | None = None) -> CatchUp:
        """Embed the memories and passages (of `character`, or all) that lack a vector of the
        current embedder, `batch` at a time; nothing to do without an embedder."""
        embedder = self.embedder()
        if embedder is None:
            return CatchUp()
        owner = self.world.known_character(character) if character is not None else None
        if owner is None:
            with self.world.transaction() as world:
                prune(world)
        return catch_up(self.world, embedder, owner=owner, batch=batch, limit=limit, progress=progress)

    def embedding_status(self) -> dict[str, Any]:
        """The embedder in use (spec and name) and how much of the world has vectors of it."""
        embedder = self.embedder()
        name = embedder.name if embedder is not None else None
        return {"spec": self.world.meta(EMBEDDER_KEY), "embedder": name,
                **vector_counts(self.world, name)}

    def _semantic(self, owner: str, text: str) -> Semantic | None:
        recall = self.config.recall
        if recall.semantic_weight <= 0.0 or not text.strip():
            return None
        try:
            embedder = self.embedder()
        except ModelUnavailable as error:  # the world names an embedder this install lacks
            log.warning("semantic recall off for this search: %s", error)
            return None
        if embedder is None:
            return None
        try:
            catch_up(self.world, embedder, owner=owner)
            (query,) = embedder.embed([text])
        except (WorldLocked, WorldStorageError) as error:
            # A read never fails for want of a write: rank with the vectors there are.
            log.warning("semantic recall: vectors not brought up to date: %s", error)
            try:
                (query,) = embedder.embed([text])
            except ModelUnavailable as again:
                log.warning("semantic recall off for this search: %s", again)
                return None
        except ModelUnavailable as error:  # degrade to words, as a model step falls back
            log.warning("semantic recall off for this search: %s", error)
            return None
        world, name = self.world, embedder.name
        return Semantic(similarities(world, owner, name, query), recall.semantic_weight,
                        recall.semantic_candidates, passage_similarities(world, owner, name, query))

    def _embedders(self) -> dict[str, Embedder | None]:
        cache: dict[str, Embedder | None] = self.__dict__.setdefault("_embedder_cache", {})
        return cache
