#!/bin/sh
# One command for a GPU you own: measure it, compare llmroof operator by operator and step by
# step, and write a catalog entry calibrated to it (docs/validation.md).
#   sh bench/gpu/run.sh MODEL GPU OUT_DIR [measure.py options]
# MODEL, GPU: catalog ids (llmroof list models / gpus), e.g. llama-2-7b h100-sxm5-80gb.
# Writes OUT_DIR/ops.csv, steps.csv, env.json (measure.py), comparison.txt (the tables) and
# gpu.json (the GPU's entry with the kernels' measured efficiencies; use it with
# llmroof --gpus-file OUT_DIR/gpu.json).
# A GPU the catalog lacks: write its entry (docs/catalog.md, GPU fields) and name the file in
# LLMROOF_GPUS_FILE; every llmroof call here then reads it (--gpus-file).
set -eu
[ $# -ge 3 ] || { echo "usage: sh bench/gpu/run.sh MODEL GPU OUT_DIR [measure.py options]" >&2; exit 2; }
model=$1 gpu=$2 out=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${LLMROOF:-$root/build/llmroof}
[ -x "$bin" ] || { echo "run.sh: build llmroof first (cmake -S . -B build && cmake --build build)" >&2; exit 2; }
# llmroof with the user's GPU file where one is named (measure.py reads only the model's entry)
lr() {
    if [ -n "${LLMROOF_GPUS_FILE:-}" ]; then "$bin" --gpus-file "$LLMROOF_GPUS_FILE" "$@"; else "$bin" "$@"; fi
}
lr show gpu "$gpu" >/dev/null
python3 "$root/bench/gpu/measure.py" --model "$model" --gpu "$gpu" --out-dir "$out" --llmroof "$bin" "$@"
# (a pipeline's status is its last command's, tee's, so each validate's own status is kept in a
# file: a failed one had been followed by "calibrated catalog entry" for a file never written)
rm -f "$out/gpu.json" "$out/.status"
{
    lr validate --ops "$out/ops.csv" -g "$gpu" --out "$out/gpu.json" || echo "ops $?" >>"$out/.status"
    if [ "$(wc -l <"$out/steps.csv")" -gt 1 ]; then
        echo
        lr validate "$out/steps.csv" || echo "steps $?" >>"$out/.status"
    fi
} | tee "$out/comparison.txt"
if [ -s "$out/.status" ] || [ ! -s "$out/gpu.json" ]; then
    echo "run.sh: validate failed ($(tr '\n' ' ' <"$out/.status" 2>/dev/null)); no calibrated entry: see the messages above" >&2
    rm -f "$out/.status"
    exit 1
fi
rm -f "$out/.status"
echo "calibrated catalog entry: $out/gpu.json (llmroof --gpus-file $out/gpu.json estimate -m $model -g $gpu)"
