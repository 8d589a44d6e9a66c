#!/usr/bin/env bash
# Record fixtures from a real model: SmolLM2-135M-Instruct served by llama.cpp on 127.0.0.1
# (scripts/smollm2_server.sh starts it: scripts/local_model.sh with LOCAL_MODEL=smollm2, the
# prebuilt xllamacpp wheel; a first run installs it in well under a minute).
# Plays the first $TURNS turns of the shipped transcript and saves every provider response in
# fixtures/llm/two_animals-smollm2/ ("kind": "recorded"). tests/test_recorded.py replays them.
#
# A 135M model writes weak answers, and slowly on 2 cores (~20 s a call): the point is the
# real path, and that validation and fallbacks carry a weak model without losing a turn.
set -euo pipefail
cd "$(dirname "$0")/.."
TURNS="${TURNS:-8}"
OUT="fixtures/llm/two_animals-smollm2"
PORT="${SMOLLM2_PORT:-8766}"

bash scripts/smollm2_server.sh
work="$(mktemp -d)"
head -n "$TURNS" fixtures/transcripts/two_animals.jsonl > "$work/turns.jsonl"
rm -rf "$OUT"
mkdir -p "$OUT"
# The settings below shape the requests, so tests/test_recorded.py replays with the same ones.
CURATOR_MAX_TOKENS=400 CURATOR_RETRIES=1 CURATOR_TIMEOUT=180 \
curator play "$work/turns.jsonl" --db "$work/world.db" --model openai/smollm2 \
    --api-base "http://127.0.0.1:$PORT/v1" --mode json_object_schema --concurrency 1 \
    --record "$OUT" --json > "fixtures/llm/two_animals-smollm2.play.json"
echo "recorded $(ls "$OUT" | wc -l) responses in $OUT"
curator calls --db "$work/world.db" --limit 1000 | tail -n 1
