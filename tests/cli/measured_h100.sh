#!/bin/sh
# The measured H100 data (docs/validation/measured/h100-sxm5-80gb, issue #18) stays readable:
# every row of its ops.csv maps to an operator instance in validate --ops (296 rows, none
# skipped), and constants.json is valid JSON where python3 is present.
#   measured_h100.sh BIN ROOT
set -u
bin=$1 root=$2
export LLMROOF_DATA="$root/data" LC_ALL=C
d="$root/docs/validation/measured/h100-sxm5-80gb"
out=$("$bin" validate --ops "$d/ops.csv" -g h100-sxm5-80gb -m llama-3.1-8b) || { echo "validate --ops failed"; exit 1; }
n=$(printf '%s\n' "$out" | grep -c '^ *[0-9][0-9]*  *llama-3\.1-')
[ "$n" -eq 296 ] || { echo "expected 296 operator rows, got $n"; printf '%s\n' "$out" | tail -20; exit 1; }
if command -v python3 >/dev/null 2>&1; then
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); assert c["gemm"]["bf16"]["recommended"]["compute_eff"] > 0' \
        "$d/constants.json" || { echo "constants.json unreadable"; exit 1; }
fi
echo "measured_h100: $n rows map"
