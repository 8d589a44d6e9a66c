#!/usr/bin/env bash
# Mutation testing (issue #16) of the behaviour that matters most: the turn flow, recall's
# scoring, fading, dedup and the gateway's error classification. Slow (tens of minutes on two
# cores), so never in CI; run it in the background and read the summary at the end:
#
#   pip install 'mutmut>=3.8,<4'
#   nohup scripts/mutation.sh > mutation.log 2>&1 &
#
# mutmut's settings (which files, which tests) are [tool.mutmut] in pyproject.toml; the
# functions mutated are FUNCTIONS below. Everything mutmut writes is in mutants/ (ignored by git).
#
#   scripts/mutation.sh            run the mutants not run yet (all of them the first time;
#                                  after an interruption, only what is left: resumable)
#   scripts/mutation.sh --recheck  run again the mutants that survived or had no test (after
#                                  adding tests: a mutant killed before stays killed)
#   scripts/mutation.sh --fresh    forget every result (rm -rf mutants/) and run all
#   scripts/mutation.sh --summary  print the score per module, and the survivors
#
# CHILDREN (default 2) is how many mutants run at once. SAMPLE=N runs and scores only the
# mutants whose number is divisible by N (a deterministic 1-in-N sample, N times faster).
set -euo pipefail
cd "$(dirname "$0")/.."

FUNCTIONS=(
    # the turn flow: what happens to a memory once formed (perceive and remember, 400 mutants
    # at several seconds each, are left out to keep a run under an hour on two shared cores)
    "curator.turn.pipeline.xǁCurationǁobserved__mutmut_*"
    "curator.turn.pipeline.xǁCurationǁfind_repeat__mutmut_*"
    "curator.turn.pipeline.xǁCurationǁpromote__mutmut_*"
    "curator.turn.pipeline.xǁCurationǁmaybe_reconcile__mutmut_*"
    # recall: the score (lexical_relevance's weights are measured on LoCoMo by `evals.bench`)
    "curator.recall.ranking.x_rank__mutmut_*"
    "curator.recall.ranking.x_refresh_recalled__mutmut_*"
    "curator.recall.relevance.x__spread__mutmut_*"
    "curator.recall.relevance.x__episodes__mutmut_*"
    "curator.recall.relevance.x__cue__mutmut_*"
    # fading, whole; dedup's rules (not its word helpers attempt_objects and _singular)
    "curator.domain.fading.*"
    "curator.turn.dedup.x_find_repeat__mutmut_*"
    "curator.turn.dedup.x_reinforce__mutmut_*"
    "curator.turn.dedup.x__opposite__mutmut_*"
    "curator.turn.dedup.x__retold__mutmut_*"
    "curator.turn.dedup.x__jaccard__mutmut_*"
    # the gateway's error classification
    "curator.model.llm.x_classify__mutmut_*"
    "curator.model.responses.x_refused__mutmut_*"
)
export CHILDREN="${CHILDREN:-2}"
export SAMPLE="${SAMPLE:-1}"
SEED="curator.domain.fading.x_daily_rate__mutmut_6"  # one cheap mutant: the first run makes them all

# The mutants in scope whose result is one of the given statuses ("not checked", "survived", …),
# one name a line; "summary" prints the score per module instead.
report() {
    python - "$@" "${FUNCTIONS[@]}" <<'PY'
import fnmatch, json, os, sys
from collections import Counter, defaultdict
from pathlib import Path
from mutmut.stats import status_by_exit_code

args = sys.argv[1:]
patterns = [a for a in args if "*" in a]
wanted = [a for a in args if "*" not in a]
results = {}
for meta in Path("mutants").rglob("*.py.meta"):
    for name, code in json.loads(meta.read_text())["exit_code_by_key"].items():
        sampled = int(name.rsplit("_", 1)[1]) % int(os.environ["SAMPLE"]) == 0
        if sampled and any(fnmatch.fnmatch(name, p) for p in patterns):
            results[name] = status_by_exit_code[code]
if wanted != ["summary"]:
    print("\n".join(sorted(n for n, s in results.items() if s in wanted)))
    sys.exit(0)
by_module = defaultdict(Counter)
for name, status in results.items():
    by_module[name.split(".x")[0]][status] += 1
print(f"sample: 1 in {os.environ['SAMPLE']}")
print(f"{'module':28} {'killed':>7} {'survived':>9} {'no tests':>9} {'other':>6} {'total':>6} {'score':>6}")
for module, c in sorted(by_module.items()):
    other = sum(c.values()) - c["killed"] - c["survived"] - c["no tests"]
    total = sum(c.values())
    print(f"{module:28} {c['killed']:7} {c['survived']:9} {c['no tests']:9} {other:6} {total:6} "
          f"{100 * c['killed'] / total:5.1f}%")
print("\nsurvived / no tests / other (mutmut show NAME prints the diff):")
for name, status in sorted(results.items()):
    if status != "killed":
        print(f"  {status:10} {name}")
PY
}

case "${1:-}" in
    --summary) report summary; exit 0 ;;
    --fresh) rm -rf mutants ;;
    --recheck)
        mapfile -t names < <(report survived "no tests" timeout suspicious)
        if [ "${#names[@]}" -eq 0 ]; then echo "nothing to recheck"; report summary; exit 0; fi
        mutmut run --max-children "$CHILDREN" "${names[@]}"
        report summary; exit 0 ;;
    "") ;;
    *) echo "usage: scripts/mutation.sh [--fresh|--recheck|--summary]" >&2; exit 2 ;;
esac

if [ -d mutants ] && ls mutants/curator >/dev/null 2>&1; then
    mapfile -t names < <(report "not checked" "check was interrupted by user")
    if [ "${#names[@]}" -eq 0 ]; then echo "every mutant in scope has a result"; report summary; exit 0; fi
    mutmut run --max-children "$CHILDREN" "${names[@]}"
elif [ "$SAMPLE" = 1 ]; then
    mutmut run --max-children "$CHILDREN" "${FUNCTIONS[@]}"
else
    mutmut run --max-children "$CHILDREN" "$SEED"
    exec "$0"
fi
report summary
