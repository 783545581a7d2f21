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
# layouts beyond TP: expert parallelism with the default routing (check must evaluate a row
# as sweep did), DP attention with a stated imbalance and two-batch overlap, pipeline stages
"$bin" sweep --models deepseek-v3,mixtral-8x7b,qwen3-30b-a3b --gpus h200,b200 --tp 8 --batch 1,64 \
    --prompt 1024 --output 256 --ep 8 --format jsonl > tests/baseline/sweep-layouts.jsonl
"$bin" sweep --models deepseek-v3,qwen3-235b-a22b --gpus h200,h100 --tp 1 --batch 8,256 --prompt 2048 \
    --output 256 --ep 8 --dp-attention --ep-imbalance 2 --two-batch-overlap --weight-dtype fp8 \
    --format jsonl >> tests/baseline/sweep-layouts.jsonl
"$bin" sweep --models llama-3.1-70b,llama-3.1-405b --gpus h100,a100 --tp 4,8 --pp 2 --batch 1,32 \
    --prompt 1024 --output 256 --format jsonl >> tests/baseline/sweep-layouts.jsonl
wc -l tests/baseline/*.jsonl
