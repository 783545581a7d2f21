#!/bin/sh
# Progress of long runs (issue 24): on stderr when it is a terminal, never when piped or with
# --quiet, never on stdout. A pseudo-terminal comes from util-linux's script(1); without it the
# test is skipped (77). LLMROOF_PROGRESS_DELAY_S=0 shows the line from the start.
#   progress.sh LLMROOF_BIN SRC_DIR
set -u
bin=$1 src=$2
export LLMROOF_DATA="$src/data" LC_ALL=C LLMROOF_PROGRESS_DELAY_S=0
command -v script >/dev/null 2>&1 || { echo "skip: no script(1)"; exit 77; }
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sim="simulate -m llama-2-7b -g a100-sxm4-80gb -w chat --rate 10 -n 3000"
plan="plan -m llama-2-7b --gpus a10,l4 --tp 1 --rate 2 --ttft-slo 2s --tpot-slo 50ms --workload fixed:128:32"
# validate --cv over the catalog's first 29 measured rows (two publications: two folds)
head -n 30 "$src/data/measurements.csv" >"$tmp/rows.csv"
cv="validate $tmp/rows.csv --cv source"
for cmd in "$sim" "$plan" "$cv"; do
    name=${cmd%% *}
    # on a terminal: the line is there
    script -qec "$bin $cmd" /dev/null >"$tmp/tty" 2>&1
    if grep -q "llmroof $name: " "$tmp/tty"; then echo "ok: $name shows progress on a terminal"
    else echo "FAIL: $name shows no progress on a terminal"; fail=1; fi
    # --quiet on a terminal: none
    script -qec "$bin $cmd --quiet" /dev/null >"$tmp/quiet" 2>&1
    if grep -q "llmroof $name: " "$tmp/quiet"; then echo "FAIL: $name --quiet shows progress"; fail=1
    else echo "ok: $name --quiet is silent"; fi
    # piped: stderr empty, stdout the same as with --quiet
    # shellcheck disable=SC2086
    "$bin" $cmd >"$tmp/out" 2>"$tmp/err"
    # shellcheck disable=SC2086
    "$bin" $cmd --quiet >"$tmp/out2" 2>/dev/null
    if [ -s "$tmp/err" ]; then echo "FAIL: $name writes to a piped stderr:"; cat "$tmp/err"; fail=1
    else echo "ok: $name is silent when piped"; fi
    if cmp -s "$tmp/out" "$tmp/out2"; then echo "ok: $name --quiet leaves stdout alone"
    else echo "FAIL: $name stdout differs with --quiet"; fail=1; fi
done
exit $fail
