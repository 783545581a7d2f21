#!/bin/sh
# The GPU measurement kit's CPU smoke test: bench/gpu/measure.py --smoke times tiny shapes
# on the CPU; its ops.csv must have the documented header and parse with
# `llmroof validate --ops`. Exit 77 (ctest: skipped) when python3 or PyTorch is absent.
#   gpu_kit_smoke.sh BIN ROOT
set -u
bin=$1 root=$2
export LLMROOF_DATA="$root/data" LC_ALL=C
# the first python3 that has PyTorch (a virtualenv's, else Debian's python3-torch)
py=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "import torch" 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "PyTorch absent: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$py" "$root/bench/gpu/measure.py" --smoke --model llama-2-7b --llmroof "$bin" --out-dir "$T" || exit 1
[ "$(head -1 "$T/ops.csv")" = "op,tokens,batch,context,dtype,measured_s,model,tp" ] || { echo "bad header"; exit 1; }
rows=$(($(wc -l <"$T/ops.csv") - 1))
# 2 token counts x 5 linear/norm ops + 1 prefill length + 1 decode batch x 1 context
[ "$rows" = 12 ] || { echo "expected 12 operator rows, got $rows"; exit 1; }
"$bin" validate --ops "$T/ops.csv" -g h100 --format csv >"$T/cmp.csv" || exit 1
[ "$(($(wc -l <"$T/cmp.csv") - 1))" -ge 12 ] || { echo "validate --ops printed too few rows"; exit 1; }
echo "gpu kit smoke: $rows rows parsed by validate --ops"
