#!/bin/sh
# Regenerates the regression baselines that CI checks with `llmroof check`. Run after a
# deliberate change to the model or the catalog, and review the diff of tests/baseline/.
#   sh scripts/update-baseline.sh [LLMROOF_BIN]
set -eu
cd "$(dirname "$0")/.."
bin=${1:-build/llmroof}
export LLMROOF_DATA="$PWD/data"
mkdir -p tests/baseline
"$bin" sweep --models all --gpus all --tp 1,2,4,8 --batch 1,32 --prompt 512 --output 256 --format jsonl \
    > tests/baseline/sweep-fp16.jsonl
"$bin" sweep --models llama-2-7b,mixtral-8x7b,llama-2-70b --gpus h100,a100,l4 --tp 1,2,4,8 --batch 8 \
    --prompt 1024 --output 128 --weight-dtype fp16,int8,int4 --kv-dtype fp16,fp8 --act-dtype fp16,bf16,fp8 \
    --format jsonl > tests/baseline/sweep-dtypes.jsonl
wc -l tests/baseline/*.jsonl
