#!/usr/bin/env bash
# Record the model fixture sets from the local model (scripts/local_model.sh): every eval case,
# the judgement stories, and the first turns of the shipped transcript for tests/test_recorded.py.
# Every answer is a real model's ("kind": "recorded").
#
# Resumable and safe to run in the background: answers already in a set are reused, not asked
# again, so a run that stopped (or a re-run after a prompt changed) asks the model only for what
# is missing, and --prune then drops what no prompt asks for any more. Split by case: each case
# (and each story) has its own directory and its own log line.
#
# Usage:
#   nohup scripts/local_model_record.sh > record.log 2>&1 &     # everything
#   CASES="evals/cases/001_conflict.yaml" STORIES=none scripts/local_model_record.sh
#
# Environment:
#   CASES       case files to record (default: evals/cases/*.yaml; "none" for no case)
#   STORIES     judgement stories (default: evals/judge/*.yaml; "none" for none)
#   TRANSCRIPT  1 (default) to record the first 8 turns of fixtures/transcripts/two_animals.jsonl
#   OUT         the eval fixture set (default: evals/fixtures/qwen1.5b)
#   LOCAL_MODEL_PORT  where the server listens (default 8767)
# The request settings below shape every fixture's key: replay reads them back from OUT/settings.json.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="${OUT:-evals/fixtures/qwen1.5b}"
CASES="${CASES:-$(ls evals/cases/*.yaml)}"
STORIES="${STORIES:-$(ls evals/judge/*.yaml)}"
TRANSCRIPT="${TRANSCRIPT:-1}"
TURNS=8
LOGS="${OUT}.logs"
PORT="${LOCAL_MODEL_PORT:-8767}"
BASE="http://127.0.0.1:$PORT/v1"
# A server already answering there is used as it is; else scripts/local_model.sh starts one.
curl -sf "http://127.0.0.1:$PORT/health" > /dev/null || bash scripts/local_model.sh start > /dev/null
MODEL="openai/qwen2.5-coder-1.5b"
export CURATOR_TEMPERATURE=0 CURATOR_MAX_TOKENS=400 CURATOR_RETRIES=1 CURATOR_TIMEOUT=300 \
    CURATOR_CONCURRENCY=1
mkdir -p "$LOGS"
stamp() { date -u +%H:%M:%S; }

if [ "$CASES" != "none" ]; then
    for case in $CASES; do
        name="$(basename "$case" .yaml)"
        echo "$(stamp) case $name"
        curator eval run "$case" --mode live --model "$MODEL" --api-base "$BASE" --record "$OUT" \
            --prune --json > "$LOGS/case-$name.json" || true   # a failed expectation is not a failed recording
        python - "$LOGS/case-$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
print(f"    {t['passed']}/{t['checks']} expectations, steps {d['steps']}, fallbacks {t['fallbacks_by_reason']}")
PY
    done
fi

if [ "$STORIES" != "none" ]; then
    echo "$(stamp) judgement stories"
    curator eval judge $STORIES --mode live --model "$MODEL" --api-base "$BASE" --record "$OUT" \
        --prune --json > "$LOGS/judge.json"
    python - "$LOGS/judge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, column in d.items():
    print(f"    {name}: {column['readings']} readings, {column['decided_by_model']} by a model, "
          f"overall {100 * column['accuracy']['overall']:.1f}%")
PY
fi

if [ "$TRANSCRIPT" = "1" ]; then
    echo "$(stamp) transcript, first $TURNS turns"
    dir="fixtures/llm/two_animals-qwen1.5b"
    work="$(mktemp -d)"
    head -n "$TURNS" fixtures/transcripts/two_animals.jsonl > "$work/turns.jsonl"
    # play has no --prune: the set is recorded afresh (a dozen calls), so none is left unused
    rm -f "$dir"/*.json
    curator play "$work/turns.jsonl" --db "$work/world.db" --model "$MODEL" --api-base "$BASE" \
        --record "$dir" --json > "$dir.play.json"
    echo "    $(ls "$dir" | wc -l) responses in $dir"
fi
echo "$(stamp) done"
