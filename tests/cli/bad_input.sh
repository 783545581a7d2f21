#!/bin/sh
# Bad-input matrix driver: runs every case of bad-input.tsv and checks the contract of
# docs/reliability.md - exit status 2, nothing on stdout, the offending flag, file or
# field named on stderr. Generates its bad files (including a 100 MB catalog and a
# 10,000-level nested one) in a temporary directory $T, removed afterwards.
#   bad_input.sh BIN ROOT
set -u
bin=$1 root=$2
export LLMROOF_DATA="$root/data" LC_ALL=C
cd "$root" || exit 1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export T

# --- the bad files ---
: >"$T/empty.json"
: >"$T/empty.csv"
head -c 700 data/gpus.json >"$T/truncated.json"
printf '{"gpus":[{"id":"x\377","name":"n"}]}' >"$T/nonutf8.json"
printf '{"gpus":[{"id":"x","name":"LLaMA\\u12G4"}]}' >"$T/bad-escape.json"
printf '{"gpus":[{"id":"x","name":"LLaMA\\u0000x"}]}' >"$T/nul-escape.json"
printf '{"gpus":[{"id":"x","name":"n","memory_bytes":080}]}' >"$T/leading-zero.json"
printf '{"gpus":[{"id":"x","name":"n","memory_bytes":80.}]}' >"$T/bare-point.json"
printf '{"hidden_size":4096,\n"model_type":"llama\300\257"}' >"$T/nonutf8-hf.json"
printf 'arrival_s,prompt_len,output_len\n0.5,12\377,4\n' >"$T/nonutf8.csv"
# a row of a GPU no catalog has: validate predicts no row, so --uncertainty-out has no band to write
printf 'id,model,gpu,num_gpus,tp,weight_dtype,kv_dtype,framework,batch,input_len,output_len,metric,value,unit,notes,source\nx1,Llama-2-7B,No Such GPU,1,1,fp16,fp16,vLLM,1,128,128,decode_tok_s_per_seq,50,tok/s,,test\n' >"$T/meas-none.csv"
# a quote opened on line 2 and never closed, the file ending on line 4: reported where it opened
printf 'id,model,gpu,num_gpus,tp,weight_dtype,kv_dtype,framework,batch,input_len,output_len,metric,value,unit,notes,source\nx1,"Llama\nmore\n' >"$T/open-quote.csv"
printf '{"model":{"nested":[1]}}\n' >"$T/nested.jsonl"
# kernel times in microseconds under the seconds column: validate --ops --out must write no entry
printf 'op,tokens,batch,context,dtype,measured_s,model,tp\nqkv_proj,1,1,0,bf16,65,llama-3-8b,1\nffn,512,1,0,bf16,900,llama-3-8b,1\n' >"$T/ops-us.csv"
mkdir "$T/dir"
awk 'BEGIN { s = "{\"model\":\""; for (i = 0; i < 70000; i++) s = s "x"; print s "\"}" }' >"$T/long.jsonl"
# 10,000 levels: {"gpus":[[[[...]]]]}  and  {"a":{"a":...1...}}
awk 'BEGIN { s = "{\"gpus\":"; for (i = 0; i < 10000; i++) s = s "["; for (i = 0; i < 10000; i++) s = s "]"; print s "}" }' >"$T/deep.json"
awk 'BEGIN { s = ""; for (i = 0; i < 10000; i++) s = s "{\"a\":"; s = s "1"; for (i = 0; i < 10000; i++) s = s "}"; print s }' >"$T/deep-hf.json"
# 100 MB: a valid document padded with whitespace, past the 64 MiB catalog limit
{ printf '{"models":[]'; head -c 100000000 /dev/zero | tr '\0' ' '; printf '}'; } >"$T/big.json"

# GPU and model entries at and past the physical ranges of docs/catalog.md:
# gpu MEMORY BANDWIDTH PEAK LINK_BW EFF  writes one GPU entry 'tiny' to stdout
gpu() {
    printf '{"gpus":[{"id":"tiny","name":"t","memory_bytes":%s,"memory_bandwidth_Bps":%s,' "$1" "$2"
    printf '"peak_flops":{"fp16":%s},"interconnect":{"kind":"nvlink","bandwidth_Bps":%s,' "$3" "$4"
    printf '"latency_s":5e-6,"hop_latency_s":1e-6},"efficiency":{"compute":%s,"memory":0.8,"comm":0.8},' "$5"
    printf '"step_overhead_s":0.0002,"gpus_per_node":8,"source":"test"}]}\n'
}
gpu 8e10 1e-300 1e15 3e11 0.7 >"$T/gpu-bw-tiny.json"
gpu 1e-300 3e12 1e15 3e11 0.7 >"$T/gpu-mem-tiny.json"
gpu 8e10 3e12 1e-300 3e11 0.7 >"$T/gpu-peak-tiny.json"
gpu 8e10 3e12 1e15 1e-300 0.7 >"$T/gpu-link-tiny.json"
gpu 8e10 3e12 1e15 3e11 1e-300 >"$T/gpu-eff-tiny.json"
gpu 8e10 3e18 1e15 3e11 0.7 >"$T/gpu-bw-huge.json"
gpu 1.5 3e12 1e15 3e11 0.7 >"$T/gpu-mem-frac.json"
# the memory the runtime reports: more than the device holds, or under half of it (a unit slip)
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"memory_bandwidth_Bps"/"memory_visible_bytes":9e10,"memory_bandwidth_Bps"/' >"$T/gpu-visible-over.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"memory_bandwidth_Bps"/"memory_visible_bytes":3e10,"memory_bandwidth_Bps"/' >"$T/gpu-visible-tiny.json"
# the host CPU (docs/model.md "Host CPU"): a speed out of [0.25, 4], no speed, not an object
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":{"cpu":"c","cpu_speed":10},"source"/' >"$T/gpu-host-fast.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":{"cpu":"c"},"source"/' >"$T/gpu-host-nospeed.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":0.8,"source"/' >"$T/gpu-host-number.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":{"cpu":"c","cpu_speed":1,"speed":1},"source"/' >"$T/gpu-host-unknown.json"
# a nested object's members are named by their path: host.cpu, network.kind (not cpu, kind)
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":{"cpu":"","cpu_speed":1},"source"/' >"$T/gpu-host-empty-cpu.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":{"cpu_speed":1},"source"/' >"$T/gpu-host-no-cpu.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"host":{"cpu":"c","cpu_speed":"fast"},"source"/' >"$T/gpu-host-speed-text.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"network":{"bandwidth_Bps":1e10,"latency_s":1e-5},"source"/' >"$T/gpu-net-no-kind.json"
# the compute architecture (docs/catalog.md "GPU entry"): a vendor target name, not a word or a number
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"arch":"Ampere","source"/' >"$T/gpu-arch-word.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"arch":"sm8o","source"/' >"$T/gpu-arch-typo.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"arch":80,"source"/' >"$T/gpu-arch-number.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"source"/"arch":"","source"/' >"$T/gpu-arch-empty.json"
sed 's/"attention_sinks": true/"attention_sinks": "yes"/' data/models.json >"$T/models-sinks-yes.json"
# inputs an output option must not replace (a review: validate M.csv --svg M.csv replaced them)
cp tests/data/validation/small.csv "$T/meas.csv"
printf 'arrival_s,prompt_len,output_len\n0,10,2\n' >"$T/trace.csv"
gpu 8e10 3e12 1e15 3e11 0.7 >"$T/gin.json"
ln -f "$T/meas.csv" "$T/meas-link.csv"
# measurement files whose defects had passed (an audit of session 71): a value that is no
# positive number, a repeated id, a shifted row, a column named twice
sed '2s/,639.65,/,abc,/' tests/data/validation/small.csv >"$T/meas-value-word.csv"
sed '2s/,639.65,/,0,/' tests/data/validation/small.csv >"$T/meas-value-zero.csv"
sed '3s/^n109,/n108,/' tests/data/validation/small.csv >"$T/meas-dup-id.csv"
sed '2s/$/,extra/' tests/data/validation/small.csv >"$T/meas-long-row.csv"
sed '1s/,source$/,value/' tests/data/validation/small.csv >"$T/meas-dup-column.csv"
sed 's/,tpot_furlongs,8.4,/,tpot_ms,8.4 ms,/' tests/data/validation/calibrate-dropped-row.csv >"$T/cal-value-unit.csv"

# HuggingFace configs the importer must refuse with the loader's bounds
printf '{"model_type":"llama","hidden_size":8,"num_hidden_layers":2,"num_attention_heads":64,"head_dim":null,"intermediate_size":16,"vocab_size":100,"max_position_embeddings":128}' >"$T/hf-headdim-null.json"
printf '{"model_type":"opt","hidden_size":768,"num_hidden_layers":12,"num_attention_heads":12,"ffn_dim":3072,"vocab_size":50272,"max_position_embeddings":1000000000}' >"$T/hf-opt-pos.json"
printf '{"model_type":"llama","hidden_size":4096,"num_hidden_layers":2,"num_attention_heads":32,"intermediate_size":16,"vocab_size":100,"max_position_embeddings":128,"tie_word_embeddings":"yes"}' >"$T/hf-tie-yes.json"
# not a decoder-only LLM: an encoder-decoder (T5) and a masked-language encoder (BERT)
printf '{"architectures":["T5ForConditionalGeneration"],"d_ff":2048,"d_kv":64,"d_model":512,"is_encoder_decoder":true,"model_type":"t5","num_heads":8,"num_layers":6,"vocab_size":32128}' >"$T/hf-t5.json"
printf '{"architectures":["BertForMaskedLM"],"hidden_size":768,"intermediate_size":3072,"max_position_embeddings":512,"model_type":"bert","num_attention_heads":12,"num_hidden_layers":12,"vocab_size":30522}' >"$T/hf-bert.json"
# a multimodal config whose text_config lacks a field the root has: the message names the path
printf '{"model_type":"llava","max_position_embeddings":4096,"text_config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"intermediate_size":11008,"vocab_size":32000}}' >"$T/hf-text-config-ctx.json"
printf '{"model_type":"llava","text_config":{"model_type":"llama","hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"intermediate_size":11008.5,"vocab_size":32000,"max_position_embeddings":4096}}' >"$T/hf-text-config-frac.json"

# control characters in names: JSON escapes that decode to ESC and to a newline
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"name":"t"/"name":"x\\u001b[2Jy"/' >"$T/ctl-name.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"name":"t"/"name":"t","aliases":["a\\nb"]/' >"$T/ctl-alias.json"
# trace and workload CSVs without a header: a first row starting with a sign or a space is
# data (checked), never a header (dropped)
printf -- '-1,10,10\n0.5,10,10\n' >"$T/trace-neg-first.csv"
# a header naming the columns in another order: the rows are read by position
printf 'arrival_s,output_len,prompt_len\n0,10,20\n' >"$T/trace-swapped-header.csv"
printf 'output_len,prompt_len\n10,20\n' >"$T/pairs-swapped-header.csv"
printf -- '0.5,10,10\n-0,10,10\n' >"$T/trace-neg-zero.csv"
printf ' 0.5,10,10\n1,10,10\n' >"$T/trace-space-first.csv"
printf -- '-5,10\n10,10\n' >"$T/pairs-neg-first.csv"
sed '1s/^{/{"tie_word_embeddings":"yes",/' tests/data/hf/gemma-3-27b.json >"$T/hf-root-tie-yes.json"
# duplicate keys and NUL bytes
printf '{"models":[],"models":[]}\n' >"$T/dup-top.json"
printf '{"schema":"llmroof.sweep/1","gpus":[]}\n' >"$T/schema-sweep.json"
gpu 8e10 3e12 1e15 3e11 0.7 | sed 's/"name":"t"/"name":"t","name":"u"/' >"$T/dup-gpu.json"
printf '{"model_type":"llama","hidden_size":4096,"hidden_size":8,"num_hidden_layers":2,"num_attention_heads":32,"intermediate_size":16,"vocab_size":100,"max_position_embeddings":128}' >"$T/hf-dup.json"
"$bin" sweep --models llama-2-7b --gpus a100 -t 1 -b 1 -p 1 -o 2 --format jsonl | sed 's/"tp":1,/"tp":1,"tp":2,/' >"$T/dup-base.jsonl"
"$bin" sweep --models deepseek-v3 --gpus h200 -t 8 --ep 8 -b 1 -p 1 -o 2 --format jsonl | sed 's/"dp_attention":false,/"dp_attention":false,"ep_imbalance":0.5,/' >"$T/imb-base.jsonl"
"$bin" sweep --models llama-2-7b --gpus a100 -t 1 -b 1,2 -p 1 -o 2 --format jsonl >"$T/nul-base.jsonl"
printf '\000' | dd of="$T/nul-base.jsonl" bs=1 seek=10 conv=notrunc 2>/dev/null
# a sweep written as CSV (sweep's default format) given to check
"$bin" sweep --models llama-2-7b --gpus a100 -t 1 -b 1 -p 1 -o 2 --format csv >"$T/csv-base.jsonl"

fail=0 count=0
tab=$(printf '\t')
# one process a case (forks dominate this matrix's time): the expected texts' $T substituted by
# one sed over the whole table, stderr captured by the case's own command substitution and
# matched by the shell
sed "s|\\\$T|$T|g" "$root/tests/cli/bad-input.tsv" >"$T/cases.tsv"
while IFS="$tab" read -r name want args; do
    case $name in '#'* | '') continue ;; esac
    count=$((count + 1))
    eval "set -- $args"
    err=$("$bin" "$@" 2>&1 >"$T/out")
    rc=$?
    problems=
    [ "$rc" = 2 ] || problems="$problems exit status $rc (expected 2);"
    [ -s "$T/out" ] && problems="$problems stdout not empty;"
    case $err in *"$want"*) ;; *) problems="$problems stderr lacks '$want';" ;; esac
    if [ -n "$problems" ]; then
        echo "FAIL $name:$problems"
        echo "  stderr: $(printf '%s' "$err" | head -c 400)"
        fail=$((fail + 1))
    fi
done <"$T/cases.tsv"
# an unreadable file: only meaningful when not root (root reads mode-000 files)
if [ "$(id -u)" != 0 ]; then
    count=$((count + 1))
    printf '{"gpus":[]}' >"$T/locked.json"
    chmod 000 "$T/locked.json"
    "$bin" list gpus --gpus-file "$T/locked.json" >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 2 ] || [ -s "$T/out" ] || ! grep -qF "option '--gpus-file': $T/locked.json: cannot read file: Permission denied" "$T/err"; then
        echo "FAIL file_unreadable: exit $rc, stderr: $(cat "$T/err")"
        fail=$((fail + 1))
    fi
fi
# engine profiles with bad CUDA-graph fields (docs/catalog.md "Engines"): a data directory of
# the shipped GPUs and models and one bad engines.json each; the message names file and field
mkdir "$T/eng"
cp data/gpus.json data/models.json "$T/eng/"
for c in 'graph_max_batch:"cuda_graphs": false, "graph_max_batch": 256' \
    'graph_max_batch:"cuda_graphs": true, "graph_max_batch": 0' \
    'graph_max_batch:"cuda_graphs": true, "graph_max_batch": 1.5' \
    'graph_piecewise:"cuda_graphs": true, "graph_piecewise": true' \
    'graph_piecewise:"cuda_graphs": true, "graph_max_batch": 512, "graph_piecewise": 1' \
    'varlen_fa2_archs:"varlen_fa2_archs": "sm80"' \
    'varlen_fa2_archs:"varlen_fa2_archs": ["SM80"]' \
    'varlen_fa2_archs:"varlen_fa2_archs": [80]' \
    'varlen_fa2_archs:"varlen_fa2_archs": ["sm80", "sm86", "sm80"]' \
    'varlen_fa2_archs:"varlen_fa2_archs": ["sm80000000000000000000"]' \
    'fa2_archs:"fa2_archs": ["sm80", 90]' \
    'kv_block_tokens:"kv_block_tokens": 0' \
    'mem_util:"mem_util": 0.3' \
    'admission:"admission": "waiting"' \
    'offline_sizing:"offline_sizing": "trtllm"' \
    'offline_sizing:"offline_sizing": 1' \
    'aliases:"aliases": "e-1"' \
    'aliases:"aliases": ["e 1"]' \
    'spec_methods:"spec_methods": "eagle"' \
    'spec_methods:"spec_methods": ["eagle4"]' \
    'spec_methods:"spec_methods": [3]' \
    'spec_methods:"spec_methods": ["mtp", "draft", "mtp"]'; do
    count=$((count + 1))
    field=${c%%:*}
    printf '{"engines":[{"id":"e","name":"E","step_overhead_s":0.001,"first_token_s":0,"compute_scale":1,%s,"source":"s"}]}\n' \
        "${c#*:}" >"$T/eng/engines.json"
    LLMROOF_DATA="$T/eng" "$bin" list engines >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 2 ] || [ -s "$T/out" ] || ! grep -q "engines.json:1:[0-9]*: 'e': field '$field'" "$T/err"; then
        echo "FAIL engine_$field: exit $rc, stderr: $(cat "$T/err")"
        fail=$((fail + 1))
    fi
done
# ids and aliases are one namespace: a profile's alias that is another's id, or another's alias,
# is refused naming the file, the entry and the name, by every command that reads the file (the
# one-engine load of estimate too, whichever name -e gives)
S='{"id":"sglang","name":"S","step_overhead_s":0,"first_token_s":0,"compute_scale":1,"source":"s"}'
V='{"id":"vllm","name":"V","step_overhead_s":0,"first_token_s":0,"compute_scale":1,"source":"s","aliases":["sglang"]}'
E1='{"id":"e","name":"E","step_overhead_s":0,"first_token_s":0,"compute_scale":1,"source":"s","aliases":["x"]}'
F1='{"id":"f","name":"F","step_overhead_s":0,"first_token_s":0,"compute_scale":1,"source":"s","aliases":["X"]}'
for c in "$V,$S|'sglang': field 'id' names 'sglang', already the id or an alias of entry 'vllm' in this file" \
    "$E1,$F1|'f': field 'aliases' names 'X', already the id or an alias of entry 'e' in this file"; do
    printf '{"engines":[%s]}\n' "${c%%|*}" >"$T/eng/engines.json"
    for cmd in 'list engines' 'estimate -m llama-2-7b -g a100 -e vllm' 'estimate -m llama-2-7b -g a100 -e x'; do
        count=$((count + 1))
        # shellcheck disable=SC2086 # the words of $cmd are the arguments
        LLMROOF_DATA="$T/eng" "$bin" $cmd >"$T/out" 2>"$T/err"
        rc=$?
        if [ "$rc" != 2 ] || [ -s "$T/out" ] || ! grep -qF "engines.json:1:" "$T/err" || ! grep -qF "${c#*|}" "$T/err"; then
            echo "FAIL engine_alias ($cmd: ${c#*|}): exit $rc, stderr: $(cat "$T/err")"
            fail=$((fail + 1))
        fi
    done
done
# a data directory without engines.json: commands that name no engine run; those that list,
# show or use one say the file is missing (not "unknown engine", not an empty list)
mkdir "$T/noeng"
cp data/gpus.json data/models.json "$T/noeng/"
for c in 'list engines' 'show engine vllm' 'estimate -m llama-2-7b -g a100 -e vllm' 'simulate -m llama-2-7b -g a100 -e sglang -n 4'; do
    count=$((count + 1))
    # shellcheck disable=SC2086 # the words of $c are the arguments
    LLMROOF_DATA="$T/noeng" "$bin" $c >"$T/out" 2>"$T/err"
    rc=$?
    if [ "$rc" != 2 ] || [ -s "$T/out" ] || ! grep -qF "no engine catalog: $T/noeng/engines.json not found" "$T/err"; then
        echo "FAIL no_engines ($c): exit $rc, stderr: $(cat "$T/err")"
        fail=$((fail + 1))
    fi
done
if ! LLMROOF_DATA="$T/noeng" "$bin" estimate -m llama-2-7b -g a100 >"$T/out" 2>"$T/err" || [ -s "$T/err" ]; then
    echo "FAIL no_engines (estimate without -e): stderr: $(cat "$T/err")"
    fail=$((fail + 1))
fi
echo "bad-input matrix: $count cases, $fail failed"
[ "$count" -ge 40 ] || { echo "fewer than 40 cases"; exit 1; }
[ "$fail" = 0 ]
