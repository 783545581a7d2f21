#!/bin/sh
# Numerical robustness: extreme but valid configurations (a 405B model at TP 1 on a 24 GB
# L4, batch 1 and 4096, prompt and output 1 and 1,000,000 tokens) must give finite
# numbers everywhere - a JSON value is never null, NaN or Inf - and either a result or a
# clear "does not fit". Runs estimate, memory, roofline, sweep, report, simulate, plan.
#   extremes.sh BIN ROOT
set -u
bin=$1 root=$2
export LLMROOF_DATA="$root/data" LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0 runs=0

# JSON numbers are finite by construction in cJSON (it prints null for NaN/Inf), so a
# null value anywhere, or a bare nan/inf token, is the symptom to look for.
check() {
    runs=$((runs + 1))
    "$bin" "$@" >"$T/out" 2>"$T/err"
    rc=$?
    if [ $rc != 0 ] && ! { [ $rc = 2 ] && grep -q "fit" "$T/err"; }; then
        echo "FAIL (exit $rc): llmroof $*"; head -3 "$T/err"; fail=$((fail + 1)); return
    fi
    if grep -qiE '(:|,|\[) *(null|-?nan|-?inf(inity)?)( *[],}]|$)' "$T/out"; then
        echo "FAIL (non-finite value): llmroof $*"
        grep -oiE '"[a-z_]+": *(null|-?nan|-?inf)' "$T/out" | head -5
        fail=$((fail + 1))
    fi
}

for g in l4 h200; do
    for t in 1 8; do
        for b in 1 4096; do
            for p in 1 1000000; do
                for o in 1 1000000; do
                    check estimate -m llama-3.1-405b -g $g -t $t -b $b -p $p -o $o --format json
                done
            done
            check roofline -m llama-3.1-405b -g $g -t $t -b $b -p 1000000 -o 1000000 --format json
        done
        for c in 1 1000000; do
            check memory -m llama-3.1-405b -g $g -t $t -c $c --format json
            check memory -m qwen2.5-1.5b -g $g -t 1 -c $c --weight-dtype int4 --kv-dtype fp8 --format json
        done
    done
done
check sweep --models llama-3.1-405b,qwen2.5-1.5b,mixtral-8x7b --gpus l4,h200,v100 --tp 1,8 --batch 1,4096 \
    --prompt 1,1000000 --output 1,1000000 --weight-dtype fp16,int4 --format jsonl
check report -m llama-3.1-405b --gpus l4,h200 --tp 1,8 -b 4096 -p 1000000 -o 1000000 --format json
check report -m qwen2.5-1.5b --gpus l4,h200 --tp 1,2 -b 1 -p 1 -o 1 --format json
check simulate -m qwen2.5-1.5b -g h200 -w fixed:1:1 -c 1 -n 5 --format json
check simulate -m qwen2.5-1.5b -g l4 -w fixed:100000:2 -c 4 -n 4 --format json
check simulate -m llama-3.1-405b -g l4 -w fixed:1:1 -n 5 --format json
check plan -m qwen2.5-1.5b --gpus l4,h200 --users 1 --fast --format json
check plan -m llama-3.1-405b --gpus l4 --users 100000000 --fast --format json
echo "extremes: $runs runs, $fail failed"
[ "$fail" = 0 ]
