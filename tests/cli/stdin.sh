#!/bin/sh
# stdin.sh - '-' as a file name (docs/llmroof.1, end of COMMAND OPTIONS): an input named '-' reads standard
# input, once, and gives what the same file named gives; an output named '-' is refused (stdout
# holds the command's result) and writes no file named '-'; './-' is the file named '-'.
#   stdin.sh LLMROOF_BIN SRC_DIR
set -u
bin=$1 src=$2
export LLMROOF_DATA="$src/data" LC_ALL=C
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# same NAME FILE ARGS...: the command line with FILE in the place of each '@' and the one with
# '-' there and FILE on standard input print the same stdout (where the result names the
# input, FILE and '<stdin>' alike; csv:- is the workload as given) and exit status 0
same() {
    name=$1 file=$2
    shift 2
    with_file=
    with_dash=
    for a in "$@"; do
        with_file="$with_file '$(printf '%s' "$a" | sed "s|@|$file|")'"
        with_dash="$with_dash '$(printf '%s' "$a" | sed 's|@|-|')'"
    done
    eval "\"\$bin\" $with_file" >file.out 2>file.err
    rc1=$?
    eval "\"\$bin\" $with_dash" <"$file" >dash.out 2>dash.err
    rc2=$?
    sed "s|$file|FILE|g" file.out >file.norm
    sed -e 's|<stdin>|FILE|g' -e 's|csv:-|csv:FILE|g' dash.out >dash.norm
    if [ "$rc1" = 0 ] && [ "$rc2" = 0 ] && cmp -s file.norm dash.norm && [ -s dash.out ]; then
        echo "ok: $name"
    else
        echo "FAIL: $name: exit $rc1 with the file, $rc2 with '-'"; diff file.norm dash.norm | head -5
        cat dash.err; fail=1
    fi
}

# refused NAME TEXT ARGS...: exit 2, nothing on stdout, TEXT on stderr, no file named '-' left
refused() {
    name=$1 want=$2
    shift 2
    "$bin" "$@" </dev/null >out 2>err
    rc=$?
    if [ "$rc" = 2 ] && [ ! -s out ] && grep -qF -- "$want" err && [ ! -e ./- ]; then
        echo "ok: $name"
    else
        echo "FAIL: $name: exit $rc, stderr: $(cat err)"; [ -e ./- ] && echo "  a file named '-' was written"
        fail=1
    fi
    rm -f ./-
}

d=$src/tests/data
# --- inputs: '-' is standard input ---
same "simulate --trace -" "$d/trace.csv" simulate -m llama-2-7b -g a100 --trace @ --format json
printf 'prompt_len,output_len\n512,128\n2048,64\n100,300\n' >pairs.csv
same "simulate --workload csv:-" pairs.csv simulate -m llama-2-7b -g a100 --rate 2 -n 20 --workload csv:@ --format json
same "plan --workload csv:-" pairs.csv plan -m llama-2-7b --gpus a100 --tp 1 --users 4 --workload csv:@ --fast \
    --format json
same "--gpus-file - (global)" "$d/my-gpu.json" --gpus-file @ list gpus --format csv
same "--gpus-file - (command)" "$d/my-gpu.json" estimate -m llama-2-7b -g my-accel --gpus-file @ --format json
"$bin" import-hf "$d/hf/llama-2-7b.json" --name my-llama >my-models.json 2>/dev/null
same "--models-file -" my-models.json estimate -m my-llama -g a100 --models-file @ --format json
same "import-hf -" "$d/hf/qwen2.5-1.5b.json" import-hf @ --name q
same "validate -" "$d/validation/small.csv" validate @ --format json
same "validate --map -" "$src/data/validation-map.json" validate "$d/validation/small.csv" --map @ --format csv
same "validate --ops -" "$d/ops/sample-synthetic.csv" validate --ops @ -g h100 -m llama-3.1-8b --format json
same "calibrate -" "$d/validation/small.csv" calibrate @ -g rtx-4090 --format json
"$bin" sweep --models llama-2-7b --gpus a100 -t 1 -b 1,2 -p 1 -o 2 --format jsonl >base.jsonl
same "check -" base.jsonl check @ --format json
# a bad row is located on <stdin>, as a file's on its name
printf 'arrival_s,prompt_len,output_len\n0,abc,10\n' | "$bin" simulate -m llama-2-7b -g a100 --trace - >out 2>err
if [ $? = 2 ] && [ ! -s out ] && grep -qF '<stdin>:2:' err; then echo "ok: a bad row of stdin is located"
else echo "FAIL: a bad row of stdin: $(cat err)"; fail=1; fi
# too much on stdin names <stdin>, as the empty case does, not the usage's CONFIG.json placeholder
head -c 17000000 /dev/zero | "$bin" import-hf - --name x >out 2>err
if [ $? = 2 ] && [ ! -s out ] && grep -qF '<stdin>: standard input is larger than the 16777216-byte limit' err
then echo "ok: import-hf: too large a config on stdin names <stdin>"
else echo "FAIL: import-hf: too large a config on stdin: $(cat err)"; fail=1; fi
# a file named '-' is './-'; '-' alone never reads it
cp "$d/trace.csv" ./-
"$bin" simulate -m llama-2-7b -g a100 --trace ./- --format csv --table latency >a.out 2>/dev/null &&
    "$bin" simulate -m llama-2-7b -g a100 --trace - --format csv --table latency <"$d/trace.csv" >b.out 2>/dev/null
if [ -s a.out ] && cmp -s a.out b.out; then echo "ok: ./- is the file named '-'"; else echo "FAIL: ./-"; fail=1; fi
printf 'arrival_s,prompt_len,output_len\n' | "$bin" simulate -m llama-2-7b -g a100 --trace - >out 2>err
if [ $? = 2 ] && ! cmp -s out a.out; then echo "ok: '-' reads stdin, not the file named '-'"
else echo "FAIL: '-' read the file named '-'"; fail=1; fi
rm -f ./-

# --- standard input once: a second input '-' is refused, naming both ---
refused "two inputs '-'" "option '--models-file': '-' reads standard input, which option '--gpus-file' reads already" \
    list gpus --gpus-file - --models-file -
refused "the same option twice" "option '--gpus-file': '-' reads standard input, which option '--gpus-file' reads already" \
    list gpus --gpus-file - --gpus-file -
refused "FILE.csv and --map" "FILE.csv: '-' reads standard input, which option '--map' reads already" \
    validate - --map -

# --- outputs: '-' is refused, no file named '-' written ---
refused "roofline --svg -" "option '--svg': '-' would be standard output, which holds the command's result" \
    roofline -m llama-2-7b -g a100 --svg -
refused "report --svg-dir -" "option '--svg-dir': '-' would be standard output" report --gpus a100 --svg-dir -
refused "simulate --requests-out -" "option '--requests-out': '-' would be standard output" \
    simulate -m llama-2-7b -g a100 --rate 1 -n 5 --requests-out -
refused "simulate --trace-out -" "option '--trace-out': '-' would be standard output" \
    simulate -m llama-2-7b -g a100 --rate 1 -n 5 --trace-out -
refused "simulate --svg -" "option '--svg': '-' would be standard output" \
    simulate -m llama-2-7b -g a100 -n 5 --sweep-rate 1,2 --svg -
refused "validate --svg -" "option '--svg': '-' would be standard output" validate --svg -
refused "validate --uncertainty-out -" "option '--uncertainty-out': '-' would be standard output" \
    validate --uncertainty-out -
refused "validate --fit-gpus -" "option '--fit-gpus': '-' would be standard output" validate --fit --fit-gpus -
refused "validate --fit-engines -" "option '--fit-engines': '-' would be standard output" validate --fit --fit-engines -
refused "validate --ops --out -" "option '--out': '-' would be standard output" \
    validate --ops "$d/ops/sample-synthetic.csv" -g h100 --out -
refused "calibrate --out -" "option '--out': '-' would be standard output" calibrate "$d/validation/small.csv" -g h100 \
    --out -
exit $fail
