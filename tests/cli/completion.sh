#!/bin/bash
# Drives the bash completion function as bash would and checks what it offers.
#   completion.sh LLMROOF_BIN SRC_DIR
set -u
bin=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
ln -s "$bin" "$dir/llmroof"
export PATH="$dir:$PATH"
# shellcheck source=/dev/null
source "$src/completion/llmroof.bash"
fail=0
offers() { # offers "WORDS..." EXPECTED: completes the last word
    local line=$1 want=$2
    read -r -a COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _llmroof
    if printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$want"; then
        echo "ok: '$line' offers $want"
    else
        echo "FAIL: '$line' should offer $want, got: ${COMPREPLY[*]}"; fail=1
    fi
}
offers "llmroof rep" report
offers "llmroof validate x.csv --cv g" gpu
offers "llmroof calibrate x.csv --cv s" source
offers "llmroof he" help
offers "llmroof help si" simulate
offers "llmroof " sweep
offers "llmroof estimate --mod" --model
offers "llmroof estimate -m llama-2-7" llama-2-70b
offers "llmroof estimate -g a1" a100-sxm4-80gb
offers "llmroof estimate -g " h100
offers "llmroof report --gpus a40,a1" a40,a100
offers "llmroof sweep --models " all
offers "llmroof estimate --weight-dtype in" int4
offers "llmroof report --format " html
offers "llmroof show " model
offers "llmroof show gpu mi" mi300x
offers "llmroof check --rt" --rtol
offers "llmroof estimate --format csv --table " ops
offers "llmroof plan --spec-ac" --spec-accept
offers "llmroof plan --spec " eagle3
offers "llmroof simulate --work" --workload
offers "llmroof simulate --workload d" docqa
offers "llmroof simulate --workload open" openorca
offers "llmroof simulate --workload sh" sharegpt
offers "llmroof simulate --router l" least-loaded
offers "llmroof simulate --spec ea" eagle
offers "llmroof simulate --spec eagle" eagle3
offers "llmroof simulate --pref" --prefix-cache
offers "llmroof plan --slo-percentile p9" p95
offers "llmroof estimate --engine vl" vllm-0.6
offers "llmroof list e" engines
offers "llmroof show " engine
offers "llmroof show engine vl" vllm
offers "llmroof show engine sg" sglang
offers "llmroof estimate --host" --host-cpu-speed
offers "llmroof plan --host" --host-cpu-speed
offers "llmroof simulate --max-s" --max-seqs
offers "llmroof simulate --no-a" --no-api-server
offers "llmroof simulate --admission no" no-evict
offers "llmroof simulate --workload log" lognormal:
offers "llmroof estimate --weight-dtype fp" fp4
offers "llmroof validate --serving-" --serving-map
offers "llmroof plan -e sg" sglang
offers "llmroof simulate --workload ra" random:
offers "llmroof plan -w " random:
offers "llmroof sweep --format " jsonl
offers "llmroof check --format " json
offers "llmroof import-hf --format " json
offers "llmroof --format " table
offers "llmroof simulate --workload csv:$src/tests/data/trace." "csv:$src/tests/data/trace.csv"
offers "llmroof validate --ops $src/tests/data/trace." "$src/tests/data/trace.csv"
lacks() { # lacks "WORDS..." UNWANTED: the completion of the last word must not offer it
    local line=$1 bad=$2
    read -r -a COMP_WORDS <<<"$line"
    [[ $line == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _llmroof
    if printf '%s\n' "${COMPREPLY[@]}" | grep -qxF -- "$bad"; then
        echo "FAIL: '$line' should not offer $bad, got: ${COMPREPLY[*]}"; fail=1
    else
        echo "ok: '$line' does not offer $bad"
    fi
}
# options come from the option list of --help, not from every --word of its prose
lacks "llmroof list --" --engine
lacks "llmroof roofline --" --ops
lacks "llmroof validate --" --range
lacks "llmroof memory --" --host-cpu-speed
# --format: only what the command prints (sweep refused table, check csv, import-hf all but json)
lacks "llmroof sweep --format " table
lacks "llmroof check --format " csv
lacks "llmroof import-hf --format " table
lacks "llmroof estimate --format " jsonl
# estimate's --ops is a flag: no file names after it
lacks "llmroof estimate --ops $src/tests/data/trace." "$src/tests/data/trace.csv"
exit $fail
