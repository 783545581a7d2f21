#!/bin/sh
# One command for a GPU you own: measure it, compare llmroof operator by operator and step by
# step, and write a catalog entry calibrated to it (docs/validation.md).
#   sh bench/gpu/run.sh MODEL GPU OUT_DIR [measure.py options]
# MODEL, GPU: catalog ids (llmroof list models / gpus), e.g. llama-2-7b h100-sxm5-80gb.
# Writes OUT_DIR/ops.csv, steps.csv, env.json (measure.py), comparison.txt (the tables) and
# gpu.json (the GPU's entry with the kernels' measured efficiencies; use it with
# llmroof --gpus-file OUT_DIR/gpu.json).
set -eu
[ $# -ge 3 ] || { echo "usage: sh bench/gpu/run.sh MODEL GPU OUT_DIR [measure.py options]" >&2; exit 2; }
model=$1 gpu=$2 out=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${LLMROOF:-$root/build/llmroof}
[ -x "$bin" ] || { echo "run.sh: build llmroof first (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
"$bin" show gpu "$gpu" >/dev/null
python3 "$root/bench/gpu/measure.py" --model "$model" --gpu "$gpu" --out-dir "$out" --llmroof "$bin" "$@"
{
    "$bin" validate --ops "$out/ops.csv" -g "$gpu" --out "$out/gpu.json"
    if [ "$(wc -l <"$out/steps.csv")" -gt 1 ]; then
        echo
        "$bin" validate "$out/steps.csv"
    fi
} | tee "$out/comparison.txt"
echo "calibrated catalog entry: $out/gpu.json (llmroof estimate -m $model -g $gpu --gpus-file $out/gpu.json)"
