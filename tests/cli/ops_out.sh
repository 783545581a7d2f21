#!/bin/sh
# validate --ops --out writes a GPU entry that loads as --gpus-file and carries the measured
# asymptotes (p90 of achieved fractions of the checked-in sample: compute 0.709, memory 0.970).
#   ops_out.sh BIN ROOT
set -u
bin=$1 root=$2
export LLMROOF_DATA="$root/data" LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$root" || exit 1
"$bin" validate --ops tests/data/ops/sample-synthetic.csv -g h100 --out "$T/gpu.json" >/dev/null || exit 1
"$bin" show gpu h100 --gpus-file "$T/gpu.json" >"$T/show.txt" || exit 1
grep -q "compute_eff *0.709" "$T/show.txt" || { echo "compute_eff not 0.709:"; cat "$T/show.txt"; exit 1; }
grep -q "memory_eff *0.970" "$T/show.txt" || { echo "memory_eff not 0.970:"; cat "$T/show.txt"; exit 1; }
echo "ops_out: calibrated entry loads"
