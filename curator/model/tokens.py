"""Tokens: counting text the way a model will, offline.

tiktoken fetches its encoding files from the internet on first use, which fails on a game
server without network. curator ships `cl100k_base` inside the package
(`curator/model/data/tiktoken/`, named as tiktoken's cache names it) and also finds the files
litellm ships (`o200k_base`, `p50k_base`) when the `llm` extra is installed, without
importing litellm. Any other encoding is looked up in `$TIKTOKEN_CACHE_DIR` as usual.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from curator.domain.errors import InvalidInput
from curator.model.extras import install_command

if TYPE_CHECKING:
    import tiktoken

DEFAULT_ENCODING = "cl100k_base"
_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "p50k_base": "https://openaipublic.blob.core.windows.net/encodings/p50k_base.tiktoken",
    "r50k_base": "https://openaipublic.blob.core.windows.net/encodings/r50k_base.tiktoken",
}
_lock = threading.Lock()


def _cache_dirs() -> list[Path]:
    """Where an encoding file may already be: curator's own copy, then litellm's."""
    dirs = [Path(__file__).parent / "data" / "tiktoken"]
    spec = importlib.util.find_spec("litellm")  # finds the package without importing it
    if spec is not None and spec.origin is not None:
        dirs.append(Path(spec.origin).parent / "litellm_core_utils" / "tokenizers")
    return dirs


@cache
def encoding(name: str = DEFAULT_ENCODING) -> tiktoken.Encoding:
    """The tiktoken encoding `name`, loaded from a local file when one is known."""
    import tiktoken

    url = _URLS.get(name)
    if url is None and name not in tiktoken.list_encoding_names():
        raise InvalidInput(f"unknown token encoding {name!r}; try one of {', '.join(_URLS)}",
                           field="encoding")
    local = None
    if url is not None:
        key = hashlib.sha1(url.encode()).hexdigest()
        local = next((d for d in _cache_dirs() if (d / key).is_file()), None)
    if local is None:
        try:
            return tiktoken.get_encoding(name)
        except Exception as error:  # offline and not cached: say how to fix it
            raise InvalidInput(f"token encoding {name!r} is not available offline ({error}); "
                               f"use cl100k_base, install the llm extra ({install_command('llm')}), "
                               "or set TIKTOKEN_CACHE_DIR to a directory holding it",
                               field="encoding") from error
    # tiktoken reads TIKTOKEN_CACHE_DIR when it loads, so point it at the local file for
    # that moment only, under a lock, and put the caller's setting back.
    with _lock:
        before = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(local)
        try:
            return tiktoken.get_encoding(name)
        finally:
            if before is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = before


@functools.lru_cache(maxsize=8192)
def count_tokens(text: str, name: str = DEFAULT_ENCODING) -> int:
    """How many tokens `text` is in encoding `name` (special tokens counted as text). Cached:
    a character's context is counted line by line, and the same lines come back turn after turn."""
    return len(encoding(name).encode(text, disallowed_special=()))
