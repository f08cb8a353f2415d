#!/usr/bin/env bash
# Run every keyword benchmark in sequence at full size; results land in bench/results/.
# Usage: bench/run_all.sh [extra args passed to every script, e.g. --data DIR]
set -euo pipefail

cd "$(dirname "$0")/.."
PY="${PYTHON:-python}"
if [[ -z "${VIRTUAL_ENV:-}" && -x .venv/bin/python ]]; then
    PY=.venv/bin/python
fi

run() {
    local label="$1"
    shift
    echo "=== ${label}: $*"
    local start=$SECONDS
    "$PY" "$@"
    echo "=== ${label} done in $((SECONDS - start)) s"
    echo
}

total_start=$SECONDS
run scifact bench/scifact.py "$@"
run xquad-en bench/xquad.py --lang en "$@"
run xquad-zh bench/xquad.py --lang zh "$@"
run locomo-turns bench/locomo.py --view turns "$@"
run locomo-turns-nodate bench/locomo.py --view turns --turn-date none "$@"
run locomo-daily bench/locomo.py --view daily "$@"
run scale bench/scale.py "$@"
echo "all benchmarks done in $((SECONDS - total_start)) s"
echo
"$PY" bench/summarize.py
