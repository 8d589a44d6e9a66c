#!/usr/bin/env bash
# Record the model fixture sets from the local model (scripts/local_model.sh): every eval case,
# the judgement stories, and the first turns of the shipped transcript for tests/test_recorded.py.
# Every answer is a real model's ("kind": "recorded").
#
# Resumable and safe to run in the background: answers already in a set are reused, not asked
# again, so a run that stopped (or a re-run after a prompt changed) asks the model only for what
# is missing, and at the end the answers no prompt asked for any more are dropped from each
# directory this run recorded into. Split by case: each case (and each story) has its own
# directory and its own log line. The genre worlds (evals/genres/) file their answers beside
# their story's (judge_<genre>/), which is why the pruning waits for the end of the whole run
# rather than each case's (a case's own --prune would drop the story's answers).
#
# Usage:
#   nohup scripts/local_model_record.sh > record.log 2>&1 &     # everything
#   CASES="evals/cases/001_conflict.yaml" STORIES=none scripts/local_model_record.sh
#
# On this project's 2-core machine one server with two threads records fastest (~79 ms a
# generated token); two servers of one thread each, given different cases (LOCAL_MODEL_PORT=8767
# and 8768, STARTED= one shared file), were no faster.
#
# Environment:
#   CASES       case files to record (default: evals/cases/*.yaml; "none" for no case)
#   STORIES     judgement stories (default: evals/judge/*.yaml; "none" for none)
#   GENRES      genre worlds (default: evals/genres/*.yaml; "none" for none)
#   PRUNE       1 (default) to drop, at the end, what this run's directories hold but no prompt asked
#   STARTED     a file whose time marks the start of the recording (default: now), so a run that
#               continues an earlier one (the stories first, then the genre worlds) keeps its answers
#   TRANSCRIPT  1 (default) to record the first 8 turns of fixtures/transcripts/two_animals.jsonl
#   OUT         the eval fixture set (default: evals/fixtures/qwen1.5b)
#   LOCAL_MODEL_PORT  where the server listens (default 8767)
#   CURATOR_READING   full to record interpret's full reading (README "With a model"); the set
#               evals/fixtures/qwen1.5b-full was recorded so, for the fourth fresh judgement set:
#               OUT=evals/fixtures/qwen1.5b-full CASES=none GENRES=none TRANSCRIPT=0 \
#               STORIES="evals/judge/submarine.yaml …" CURATOR_READING=full scripts/local_model_record.sh
# The request settings below shape every fixture's key: replay reads them back from OUT/settings.json.
set -euo pipefail
cd "$(dirname "$0")/.."

OUT="${OUT:-evals/fixtures/qwen1.5b}"
CASES="${CASES:-$(ls evals/cases/*.yaml)}"
STORIES="${STORIES:-$(ls evals/judge/*.yaml)}"
GENRES="${GENRES:-$(ls evals/genres/*.yaml)}"
PRUNE="${PRUNE:-1}"
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
# The file's mtime marks the run's start: an answer used since has a newer one.
if [ -n "${STARTED:-}" ]; then started="$STARTED"; else started="$(mktemp)"; fi
sleep 1

record_cases() {
    for case in "$@"; do
        name="$(basename "$case" .yaml)"
        echo "$(stamp) case $name"
        curator eval run "$case" --mode live --model "$MODEL" --api-base "$BASE" --record "$OUT" \
            --json > "$LOGS/case-$name.json" || true   # a failed expectation is not a failed recording
        python - "$LOGS/case-$name.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["totals"]
print(f"    {t['passed']}/{t['checks']} expectations, steps {d['steps']}, fallbacks {t['fallbacks_by_reason']}")
PY
    done
}

# shellcheck disable=SC2086  # the lists are word lists on purpose
[ "$CASES" != "none" ] && record_cases $CASES

if [ "$STORIES" != "none" ]; then
    echo "$(stamp) judgement stories"
    curator eval judge $STORIES --mode live --model "$MODEL" --api-base "$BASE" --record "$OUT" \
        --json > "$LOGS/judge.json"
    python - "$LOGS/judge.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, column in d.items():
    print(f"    {name}: {column['readings']} readings, {column['decided_by_model']} by a model, "
          f"overall {100 * column['accuracy']['overall']:.1f}%")
PY
fi

# shellcheck disable=SC2086
[ "$GENRES" != "none" ] && record_cases $GENRES

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
if [ "$PRUNE" = "1" ]; then
    # In each directory this run recorded into, an answer not used since the start is one no
    # prompt asks for any more (a directory it never reached is left as it is).
    for dir in "$OUT"/*/; do
        if [ -n "$(find "$dir" -name '*.json' -newer "$started" -print -quit)" ]; then
            gone="$(find "$dir" -name '*.json' ! -newer "$started" -print -delete | wc -l)"
            [ "$gone" -gt 0 ] && echo "    pruned $gone unused from $dir"
        fi
    done
fi
[ -n "${STARTED:-}" ] || rm -f "$started"
echo "$(stamp) done"
