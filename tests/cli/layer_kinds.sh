#!/bin/sh
# layer_kinds.sh BIN SRC - issue 25's models (hybrid linear attention, state-space layers, sparse
# attention) through every command that costs a model: estimate, memory, simulate with the prefix
# cache, plan; and import-hf on every real config.json fixture of the new families.
bin=$1
src=$2
cd "$src" || exit 1
export LLMROOF_DATA="$src/data"
status=0
check() { msg=$1; shift; if "$@"; then echo "ok: $msg"; else echo "FAIL: $msg"; status=1; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for m in qwen3-next-80b-a3b nemotron-nano-9b-v2 deepseek-v3.2-exp glm-4.5 minimax-m2 minimax-text-01 granite-4.0-h-tiny \
         falcon-h1-3b llama-3.3-nemotron-super-49b llama-3.1-nemotron-ultra-253b; do
    case $m in
    nemotron-nano-9b-v2|granite-4.0-h-tiny|falcon-h1-3b) tp=1 ;;
    qwen3-next-80b-a3b|llama-3.3-nemotron-super-49b) tp=2 ;;
    *) tp=8 ;;
    esac
    "$bin" estimate -m "$m" -g h200 -t $tp --weight-dtype fp8 >"$tmp/e" 2>&1
    check "estimate $m" grep -q '^tpot ' "$tmp/e"
    "$bin" memory -m "$m" -g h200 -t $tp --weight-dtype fp8 >"$tmp/m" 2>&1
    check "memory $m fits" grep -q '^max_batch  *[1-9]' "$tmp/m"
    "$bin" simulate -m "$m" -g h200 -t $tp --weight-dtype fp8 -n 30 --block-size 16 --prefix-cache \
        --shared-prefix 512:2 >"$tmp/s" 2>&1
    check "simulate $m with the prefix cache hits it" grep -q '^prefix_hit_rate  *0\.[1-9]' "$tmp/s"
    "$bin" plan -m "$m" --gpus h200 --users 8 --fast --weight-dtype fp8 >"$tmp/p" 2>&1
    check "plan $m" grep -q 'h200' "$tmp/p"
done
# recurrent layers: a state per sequence, shown by memory
"$bin" memory -m nemotron-nano-9b-v2 -g h100 >"$tmp/m" 2>&1
check "memory shows the state per sequence (Nemotron-H: 69.40 MiB)" grep -q '^state_per_seq  *69.40 MiB' "$tmp/m"
"$bin" memory -m nemotron-nano-9b-v2 -g h100 --state-dtype fp32 >"$tmp/m" 2>&1
check "an fp32 state doubles it (138.80 MiB)" grep -q '^state_per_seq  *138.80 MiB' "$tmp/m"
# Qwen3-Next ships one MTP layer (catalog mtp_layers 1): --spec mtp is accepted (was refused)
"$bin" simulate -m qwen3-next-80b-a3b -g h200 -t 2 --weight-dtype fp8 -n 30 --spec mtp --spec-k 2 \
    --spec-accept 0.7 >"$tmp/s" 2>&1
check "simulate --spec mtp on Qwen3-Next" grep -q '^spec_tokens_per_step  *2\.' "$tmp/s"

for f in qwen3-next-80b-a3b nemotron-nano-9b-v2 deepseek-v3.2-exp glm-4.5 minimax-m2 olmo-2-7b phi-4 phi-3.5-moe \
         command-a ernie-4.5-21b-a3b seed-oss-36b dots-llm1 qwen2.5-vl-7b qwen3-vl-8b mistral-small-3.1-24b \
         hunyuan-a13b ling-lite-1.5 granite-4.0-h-tiny minimax-text-01 kimi-linear-48b-a3b jamba-v0.1 \
         falcon-h1-3b llama-3.3-nemotron-super-49b llama-3.1-nemotron-ultra-253b; do
    "$bin" import-hf "tests/data/hf/$f.json" --name "$f" >"$tmp/$f.json" 2>"$tmp/err"
    check "import-hf $f" grep -q "note: $f: .* B parameters" "$tmp/err"
done
# every imported family through every command that costs a model (issue 25's "done when"), at the
# fewest H200s that hold its fp8 weights (found by memory, then the same TP for the other three)
for f in qwen3-next-80b-a3b nemotron-nano-9b-v2 deepseek-v3.2-exp glm-4.5 minimax-m2 olmo-2-7b phi-4 phi-3.5-moe \
         command-a ernie-4.5-21b-a3b seed-oss-36b dots-llm1 qwen2.5-vl-7b qwen3-vl-8b mistral-small-3.1-24b \
         hunyuan-a13b ling-lite-1.5 granite-4.0-h-tiny minimax-text-01 kimi-linear-48b-a3b jamba-v0.1 \
         falcon-h1-3b llama-3.3-nemotron-super-49b llama-3.1-nemotron-ultra-253b; do
    run() { "$bin" --models-file "$tmp/$f.json" "$@" -m "$f" --weight-dtype fp8; }
    tp=
    for t in 1 2 4 8; do
        if run memory -g h200 -t $t >"$tmp/m" 2>&1 && grep -q '^max_batch  *[1-9]' "$tmp/m"; then tp=$t; break; fi
    done
    check "memory of imported $f fits on at most 8 x h200" test -n "$tp"
    [ -n "$tp" ] || continue
    run estimate -g h200 -t $tp >"$tmp/e" 2>&1
    check "estimate imported $f" grep -q '^tpot ' "$tmp/e"
    run simulate -g h200 -t $tp -n 20 --block-size 16 --prefix-cache --shared-prefix 512:2 >"$tmp/s" 2>&1
    check "simulate imported $f with the prefix cache hits it" grep -q '^prefix_hit_rate  *0\.[1-9]' "$tmp/s"
    run plan --gpus h200 --tp $tp --users 8 --fast >"$tmp/p" 2>&1
    check "plan imported $f" grep -q '^- Fewest GPUs: ' "$tmp/p"
done
exit $status
