#!/bin/sh
# data/uncertainty.json is what validate --cv source writes from the shipped rows: a change that
# moves a held-out prediction must regenerate the bands with it (an audit of session 71 found the
# serving bands two sessions stale: TTFT's top 2.39 where validate wrote 2.00, and simulate
# --range quoting the stale one).
#   sh tests/cli/uncertainty_fresh.sh BIN ROOT
set -u
bin=$1 root=$2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export LLMROOF_DATA="$root/data" LC_ALL=C
cd "$root" || exit 1
"$bin" validate tests/data/validation/measurements.csv --serving data/serving.csv --cv source -q \
    --uncertainty-out "$T/u.json" >/dev/null 2>"$T/err" || { echo "FAIL: validate failed:"; cat "$T/err"; exit 1; }
if ! cmp -s data/uncertainty.json "$T/u.json"; then
    echo "FAIL: data/uncertainty.json is not what validate writes now; regenerate it:"
    echo "  llmroof validate tests/data/validation/measurements.csv --serving data/serving.csv --cv source --uncertainty-out data/uncertainty.json"
    diff data/uncertainty.json "$T/u.json" | head -20
    exit 1
fi
echo "ok: data/uncertainty.json is what validate writes"
