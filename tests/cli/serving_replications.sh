#!/bin/sh
# serving_replications.sh - a serving row whose run is random is predicted as the median of its
# replications (src/fit/servval.c, replications(); docs/validation.md "Serving rows"): 700
# requests at a Poisson rate run ceil(2000 / 700) = 3 times, with seeds 42, 43 and 44, and each
# statistic is the middle one of the three simulate runs with those seeds. A row of fixed lengths
# with every request at t = 0 has nothing random and runs once: seed 42's figure.
# usage: serving_replications.sh LLMROOF_BIN SOURCE_DIR
set -eu
bin=$1
export LLMROOF_DATA="$2/data"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
head='id,model,gpu,num_gpus,tp,pp,weight_dtype,kv_dtype,framework,load,workload,input_len,output_len,num_requests,metric,percentile,value,unit,notes,source'
mhead='id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,divide,slo,spec,base,notes,skip'
run='llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128'
cat >"$T/rows.csv" <<E
$head
r1,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,rate:4,fixed:512:128,512,128,700,ttft_ms,mean,100,ms,,pubA
r2,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,rate:4,fixed:512:128,512,128,700,tpot_ms,p90,100,ms,,pubA
r3,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,700,ttft_ms,mean,100,ms,,pubA
E
cat >"$T/map.csv" <<E
$mhead
r1,$run,rate:4,700,ttft,mean,1,,,,,
r2,$run,rate:4,700,tpot,p90,1,,,,,
r3,$run,offline,700,ttft,mean,1,,,,,
E
"$bin" validate --serving "$T/rows.csv" --serving-map "$T/map.csv" --format csv --table serving -q >"$T/pred.csv"
pred() { awk -F, -v id="$1" '$1 == id { print $10 }' "$T/pred.csv"; }
# simulate's csv: metric,mean,p50,p90,...  field 2 = mean, 4 = p90
sim() { "$bin" simulate -m llama-2-7b -g a100-sxm4-80gb -e vllm -w fixed:512:128 --requests 700 "$@" --format csv -q; }
for s in 42 43 44; do sim --rate 4 --seed "$s" >"$T/sim$s.csv"; done
mid() { # the middle of three numbers
    printf '%s\n%s\n%s\n' "$1" "$2" "$3" | sort -g | sed -n 2p
}
col() { awk -F, -v m="$2" -v f="$3" '$1 == m { print $f }' "$T/sim$1.csv"; }
fail=0
check() { # name got want: equal to the csv's rounding (0.01 ms)
    if awk -v g="$2" -v w="$3" 'BEGIN { d = g - w; exit !(d < 0.006 && d > -0.006) }'; then
        echo "ok $1: $2"
    else
        echo "FAIL $1: validate predicts $2, the median of the seeds' runs is $3" >&2
        fail=1
    fi
}
check "rate row, mean TTFT = the middle of 3 seeds" "$(pred r1)" "$(mid "$(col 42 ttft_ms 2)" "$(col 43 ttft_ms 2)" "$(col 44 ttft_ms 2)")"
check "rate row, p90 TPOT = the middle of 3 seeds" "$(pred r2)" "$(mid "$(col 42 tpot_ms 4)" "$(col 43 tpot_ms 4)" "$(col 44 tpot_ms 4)")"
sim --scenario offline --seed 42 >"$T/off.csv"
check "offline fixed row, one run" "$(pred r3)" "$(awk -F, '$1 == "ttft_ms" { print $2 }' "$T/off.csv")"
# the three seeds differ, or the median would be untested
if [ "$(col 42 ttft_ms 2)" = "$(col 43 ttft_ms 2)" ]; then
    echo "FAIL the seeds give the same run" >&2
    fail=1
fi
exit $fail
