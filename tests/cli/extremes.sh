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
    # exit 1 with "no configuration meets" is plan's verdict when nothing is feasible (issue 14)
    if [ $rc != 0 ] && ! { [ $rc = 2 ] && grep -q "fit" "$T/err"; } &&
        ! { [ $rc = 1 ] && grep -q "no configuration meets" "$T/err"; }; then
        echo "FAIL (exit $rc): llmroof $*"; head -3 "$T/err"; fail=$((fail + 1)); return
    fi
    # cJSON's formatted output puts a tab after ':'. Fields whose null means "absent" by
    # contract (docs/json.md): min_tp_fit (no TP fits), cost_per_hour (no price given),
    # plan's best and best_per_gpu entries (nothing feasible), simulate's latency statistics
    # (no request measured them: all rejected, or no decode step with one output token), and a
    # --fast users plan's preemptions_per_request (the analytic model has no scheduler); estimate's
    # tpot_s, decode_tok_s and decode phase with one output token (no decode step); plan's engine
    # without -e (the generic scheduler), an infeasible disaggregated row's pool sizes (never sized).
    if sed '/"best_per_gpu":/,/}/d' "$T/out" | grep -vE '"(min_tp_fit|cost_per_hour|best|ttft_s|tpot_s|itl_s|e2e_s|decode_tok_s|decode|preemptions_per_request|engine|prefill_tp|prefill_instances|decode_instances)":[[:space:]]*null' |
        grep -qiE '(:|,|\[|=|")[[:space:]]*(null|-?nan|-?inf(inity)?)([[:space:]]*[],}"]|$)' ||
        grep -qiwE 'nan|inf|infinity' "$T/out"; then
        echo "FAIL (non-finite value): llmroof $*"
        grep -oiE '.{30}(null|-?nan|-?inf)' "$T/out" | head -5
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
    --prompt 1,1000000 --output 2,1000000 --weight-dtype fp16,int4 --format jsonl
check report -m llama-3.1-405b --gpus l4,h200 --tp 1,8 -b 4096 -p 1000000 -o 1000000 --format json
check report -m qwen2.5-1.5b --gpus l4,h200 --tp 1,2 -b 1 -p 1 -o 2 --format json
check simulate -m qwen2.5-1.5b -g h200 -w fixed:1:1 -c 1 -n 5 --format json
check simulate -m qwen2.5-1.5b -g l4 -w fixed:100000:2 -c 4 -n 4 --format json
check simulate -m llama-3.1-405b -g l4 -w fixed:1:1 -n 5 --format json
check plan -m qwen2.5-1.5b --gpus l4,h200 --users 1 --fast --format json
check plan -m llama-3.1-405b --gpus l4 --users 100000000 --fast --format json
# Catalog entries at the floor and the ceiling of every physical range (docs/catalog.md):
# whatever the inputs inside the ranges, no command prints a non-finite number.
cat >"$T/gpus.json" <<'END'
{"gpus":[
{"id":"gpu-min","name":"floor of every range","memory_bytes":1e8,"memory_bandwidth_Bps":1e9,
 "peak_flops":{"fp32":1e9,"fp16":1e9,"int4":1e9},
 "interconnect":{"kind":"pcie","bandwidth_Bps":1e8,"latency_s":0.01,"hop_latency_s":0.01},
 "efficiency":{"compute":0.01,"memory":0.01,"comm":0.01},"step_overhead_s":1,"gpus_per_node":1,"source":"test"},
{"id":"gpu-max","name":"ceiling of every range","memory_bytes":1e13,"memory_bandwidth_Bps":1e14,
 "peak_flops":{"fp32":1e17,"tf32":1e17,"fp16":1e17,"bf16":1e17,"fp8":1e17,"int8":1e17,"int4":1e17},
 "interconnect":{"kind":"nvlink","bandwidth_Bps":1e13,"latency_s":0,"hop_latency_s":0},
 "efficiency":{"compute":1,"memory":1,"comm":1},"step_overhead_s":0,"gpus_per_node":1024,"source":"test"}
]}
END
cat >"$T/models.json" <<'END'
{"models":[
{"id":"model-min","name":"floor","hidden_size":1,"num_layers":1,"num_heads":1,"num_kv_heads":1,
 "intermediate_size":1,"vocab_size":1,"max_context":1,"tie_embeddings":true,"mlp":"plain","norm":"layernorm",
 "source":"test"},
{"id":"model-max","name":"ceiling","hidden_size":1048576,"num_layers":10000,"num_heads":65536,
 "num_kv_heads":65536,"head_dim":65536,"intermediate_size":16777216,"vocab_size":100000000,
 "max_context":1000000000,"learned_pos":1000000000,"tie_embeddings":false,"mlp":"gated","norm":"rmsnorm",
 "qkv_bias":true,"o_bias":true,"mlp_bias":true,"params_published":1e14,
 "moe":{"experts":65536,"experts_per_token":65536,"expert_intermediate_size":16777216,"shared_experts":65536},
 "source":"test"}
]}
END
F="--gpus-file $T/gpus.json --models-file $T/models.json"
for m in model-min model-max qwen2.5-1.5b; do
    for g in gpu-min gpu-max; do
        for r in "-b 1 -p 1 -o 1" "-b 1000000 -p 1000000000 -o 1000000000"; do
            check $F estimate -m $m -g $g $r --format json --ops
            check $F estimate -m $m -g $g $r --ops
            check $F roofline -m $m -g $g $r --format json
        done
        check $F memory -m $m -g $g -c 1000000000 -b 1000000 --format json
        check $F memory -m $m -g $g -c 1 --format json
        check $F show model $m --format json
        check $F simulate -m $m -g $g -w fixed:1:1 -c 1 -n 3 --format json
        check $F plan -m $m --gpus $g --users 1 --fast --format json
    done
    check $F report -m $m --gpus gpu-min,gpu-max --tp 1 -b 1000000 -p 1000000000 -o 1000000000 --format json
    check $F report -m $m --gpus gpu-min,gpu-max --tp 1 -b 1 -p 1 -o 2 --format html
done
check $F show gpu gpu-min --format json
check $F show gpu gpu-max --format json
# sweep at the extremes: every JSONL line is valid JSON (check reads it back) with finite numbers
check $F sweep --models model-min,model-max,qwen2.5-1.5b --gpus gpu-min,gpu-max --tp 1,1024 --batch 1,1000000 \
    --prompt 1,1000000000 --output 2,1000000000 --format jsonl
cp "$T/out" "$T/sweep.jsonl"
runs=$((runs + 1))
if ! "$bin" $F check "$T/sweep.jsonl" >"$T/out" 2>"$T/err"; then
    echo "FAIL: check does not read back the extreme sweep's JSONL"; head -3 "$T/err"; fail=$((fail + 1))
fi
check $F sweep --models model-min,model-max --gpus gpu-min,gpu-max --tp 1,1024 --batch 1,1000000 \
    --prompt 1,1000000000 --output 2,1000000000 --format csv
# charts at the extremes: no nan/inf in any SVG attribute
for m in model-min model-max; do
    for g in gpu-min gpu-max; do
        runs=$((runs + 1))
        "$bin" $F roofline -m $m -g $g -b 1000000 -p 1000000000 -o 1000000000 --svg "$T/roof.svg" >/dev/null 2>&1
        "$bin" $F report -m $m --gpus $g --tp 1 --svg-dir "$T" >/dev/null 2>&1
        if cat "$T"/*.svg 2>/dev/null | grep -qiwE 'nan|inf|infinity'; then
            echo "FAIL (non-finite value in a chart): $m on $g"; fail=$((fail + 1))
        fi
        rm -f "$T"/*.svg
    done
done
echo "extremes: $runs runs, $fail failed"
[ "$fail" = 0 ]
