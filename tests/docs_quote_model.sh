#!/bin/sh
# The figures docs/model.md and docs/metrics.md quote from a command are what that command prints
# now: a change to the model that moves them must update the page with it (session 66's review
# reproduced the pages' numbers by hand and found six stale by 0.1-11%: the DeepSeek-V3 phase
# sum at 8.374 ms where estimate printed 9.270, a TTFT at 131.1 ms where it printed 132.4).
#   sh tests/docs_quote_model.sh BIN
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export LLMROOF_DATA="$root/data" LC_ALL=C
fail=0
want() { # want DOC TEXT: the page holds TEXT exactly (a phrase within one line)
    grep -qF -- "$2" "$1" || { echo "FAIL: $1 lacks: $2"; fail=1; }
}
# metric FORMAT METRIC ARGS...: estimate's METRIC (csv, ms) printed with printf FORMAT
metric() {
    f=$1 m=$2
    shift 2
    "$bin" estimate "$@" --format csv 2>/dev/null | awk -F, -v m="$m" -v f="$f" '$1 == m { printf f, $2 }'
}

# model.md section 6: the worked example's command, then with the catalog and lmdeploy's profile
ttft=$(metric %.1f ttft -m llama-2-7b -g a100-sxm4-80gb --compute-eff 0.70 --memory-eff 0.80 -p 2048 -o 128)
tpot=$(metric %.2f tpot -m llama-2-7b -g a100-sxm4-80gb --compute-eff 0.70 --memory-eff 0.80 -p 2048 -o 128)
want docs/model.md "(\`-p 2048 -o 128\`) TTFT $ttft ms and TPOT $tpot ms"
ttft=$(metric %.1f ttft -m llama-2-7b -g a100-sxm4-80gb -e lmdeploy-0.1 -p 2048 -o 128)
tpot=$(metric %.2f tpot -m llama-2-7b -g a100-sxm4-80gb -e lmdeploy-0.1 -p 2048 -o 128)
want docs/model.md "section 5) TTFT $ttft ms and TPOT $tpot ms."

# model.md 3a: AutoAWQ's unpacking (golden estimate_autoawq_unpacking), TTFT and prompt tokens/s
ttft=$(metric %.1f ttft -m llama-2-7b -g a100-sxm4-80gb -e autoawq --weight-dtype int4 -p 2048 -o 2)
tok=$(awk -v t="$ttft" 'BEGIN { v = sprintf("%.0f", 2048 / (t / 1e3)); printf "%s,%s", substr(v, 1, length(v) - 3), substr(v, length(v) - 2) }')
want docs/model.md "TTFT $ttft ms, $tok prompt tokens/s"

# model.md 3a: vllm-0.6's fp8 cache read once per query head
f8=$(metric %.2f tpot -m llama-3.1-8b -g h100 -e vllm-0.6 -b 64 -p 16384 -o 2 --kv-dtype fp8)
f16=$(metric %.2f tpot -m llama-3.1-8b -g h100 -e vllm-0.6 -b 64 -p 16384 -o 2 --kv-dtype fp16)
want docs/model.md "TPOT $f16 ms with a 16-bit cache, $f8 ms with fp8"
f8=$(metric %.2f tpot -m llama-3-8b -g h100 -e vllm-0.6 -b 128 -p 2100 -o 2 --kv-dtype fp8)
f16=$(metric %.2f tpot -m llama-3-8b -g h100 -e vllm-0.6 -b 128 -p 2100 -o 2 --kv-dtype fp16)
want docs/model.md "prints $f8 ms today, $f16 with a 16-bit cache"

# model.md 5: Mixtral's decode without an engine, under TensorRT-LLM and under vLLM (Triton's MoE)
a=$(metric %.2f tpot -m mixtral-8x7b -g h100 -t 2) b=$(metric %.2f tpot -m mixtral-8x7b -g h100 -t 2 -e tensorrt-llm)
c=$(metric %.2f tpot -m mixtral-8x7b -g h100 -t 2 -e vllm)
want docs/model.md "decodes in $a ms without an"
want docs/model.md "engine, $b ms under \`-e tensorrt-llm\`"
want docs/model.md "\`-e vllm\` or \`-e sglang\`"
a=$(metric %.1f ttft -m mixtral-8x7b -g h100 -t 2) b=$(metric %.1f ttft -m mixtral-8x7b -g h100 -t 2 -e tensorrt-llm)
c2=$(metric %.1f ttft -m mixtral-8x7b -g h100 -t 2 -e vllm)
want docs/model.md "(TTFT $a, $b and $c2 ms)"
want docs/model.md "$c ms under"

# model.md "Engine CPU work": SGLang's EAGLE-3 speedup at batch 2 and 64 (chain of 3, acceptance 0.7)
speedup() {
    base=$(metric %.9f tpot -m llama-3.1-8b -g h100 -e sglang -b "$1" -p 512 -o 256)
    spec=$(metric %.9f tpot -m llama-3.1-8b -g h100 -e sglang -b "$1" -p 512 -o 256 --spec eagle3 --spec-accept 0.7)
    awk -v b="$base" -v s="$spec" 'BEGIN { printf "%.2f", b / s }'
}
want docs/model.md "falls from $(speedup 2)× at"
want docs/model.md "batch 2 to $(speedup 64)× at 64 (Llama-3.1-8B on an H100"

# metrics.md's eagle3 row: the three draft steps and TPOT under SGLang, EAGLE-3 against EAGLE
for sp in eagle3 eagle; do
    "$bin" estimate -m llama-3.1-8b -g h100 -e sglang -b 1 -p 1024 -o 256 --spec $sp --spec-accept 0.7 --format json \
        2>/dev/null >"${TMPDIR:-/tmp}/docs_quote_model.$$.$sp"
done
j() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print('%.2f %.2f' % (d['spec']['draft_step']['time_s'] * 1e3, d['tpot_s'] * 1e3))" "$1"; }
set -- $(j "${TMPDIR:-/tmp}/docs_quote_model.$$.eagle3") $(j "${TMPDIR:-/tmp}/docs_quote_model.$$.eagle")
rm -f "${TMPDIR:-/tmp}/docs_quote_model.$$.eagle3" "${TMPDIR:-/tmp}/docs_quote_model.$$.eagle"
want docs/metrics.md "three draft steps take $1 ms against EAGLE's $3 at batch 1 and TPOT is $2 against $4 ms"

# metrics.md "estimate's phase table": DeepSeek-V3's decode step and its parts
line=$("$bin" estimate -m deepseek-v3 -g h200 -t 8 --ep 8 -b 1 -p 1024 -o 256 --format csv --table phases 2>/dev/null |
    awk -F, '$1 == "decode_step_mean" { printf "%.3f %.3f %.3f %.3f %.3f %.3f %.3f", $2, $3, $4, $5, $6, $7, $8 }')
set -- $line
want docs/metrics.md "decodes a step in $1 ms = compute"
want docs/metrics.md "$2 + memory $3 − overlapped $4 + comm $5 + kernel $6 + overhead $7"
# model.md "A drafter's own config": DeepSeek-V3's EAGLE-3 TPOT with and without the head's
# config, and without speculation (a review of session 70 found them 12% stale)
dsv3="-m deepseek-v3 -g h200 -t 8 --spec eagle3 --spec-k 3 --spec-accept 0.7"
# shellcheck disable=SC2086
cfg=$(metric %.3f tpot $dsv3 --spec-draft-config tests/data/draft/deepseek-v3-eagle3.json)
# shellcheck disable=SC2086
rule=$(metric %.3f tpot $dsv3)
none=$(metric %.3f tpot -m deepseek-v3 -g h200 -t 8)
want docs/model.md "TPOT $cfg ms against $rule ($none without speculation:"

# metrics.md's chain against tree: the tree's throughput gain at B 2, 8, 24 and 64
gain() {
    base=$(metric %.9f tpot -m llama-3.1-8b -g h100 -e sglang -p 256 -o 512 -b "$1")
    tree=$(metric %.9f tpot -m llama-3.1-8b -g h100 -e sglang -p 256 -o 512 -b "$1" --spec eagle --spec-k 5 \
        --spec-accept 0.7 --spec-tree 8:32)
    awk -v b="$base" -v s="$tree" 'BEGIN { printf "%.2f", b / s }'
}
want docs/metrics.md "a $(gain 2)x throughput gain at B 2 and $(gain 8)x at B 8,"
want docs/metrics.md "but $(gain 24)x at B 24 and $(gain 64)x at B 64, where"
exit $fail
