#!/bin/sh
# bench_table.sh - the figures of issue 24's table (docs/performance.md): wall and user CPU
# seconds and peak memory of each command, the median of N runs (default 3).
#   LLMROOF_DATA=data bench/bench_table.sh BUILD/llmroof [N] [ROW...]
# ROW: sim1m sim10m cluster plan70b plan8x22b plan8x7b simwin planwin planfast planusers estimate start (default: all but sim10m).
# simwin and planwin: a sliding-window model (gpt-oss-20b: lazy windowed decoders, docs/performance.md).
# start is `llmroof --version`: the process start alone (the shared libraries it loads).
# The simulate rows also print the peak bytes per request (peak / requests).
# Needs GNU time (/usr/bin/time). User CPU is the figure to compare on a shared machine.
set -eu
bin=$1
n=${2:-3}
shift $(( $# >= 2 ? 2 : 1 ))
rows=${*:-"sim1m cluster plan70b plan8x22b plan8x7b simwin planwin planfast planusers estimate"}
cmd_of() {
    case $1 in
    sim1m) echo "simulate -m llama-2-7b -g a100-sxm4-80gb -w chat --rate 10 -n 1000000" ;;
    sim10m) echo "simulate -m llama-2-7b -g a100-sxm4-80gb -w chat --rate 10 -n 10000000" ;;
    cluster) echo "simulate -m llama-2-7b -g a100-sxm4-80gb -w chat --rate 160 -n 100000 --instances 16 --router least-loaded" ;;
    plan70b) echo "plan -m llama-3.1-70b --gpus all --rate 50 --ttft-slo 2s --tpot-slo 50ms" ;;
    plan8x22b) echo "plan -m mixtral-8x22b --gpus all --rate 20" ;;
    plan8x7b) echo "plan -m mixtral-8x7b --gpus h100,h200,mi300x" ;;
    simwin) echo "simulate -m gpt-oss-20b -g h100 --rate 40 -n 100000" ;;
    planwin) echo "plan -m gpt-oss-20b --gpus h100 --users 20000 --ttft-slo 2s --tpot-slo 50ms" ;;
    planfast) echo "plan -m llama-3.1-70b --gpus all --fast" ;;
    planusers) echo "plan -m llama-3.1-8b --gpus all --users 200" ;;
    estimate) echo "estimate -m llama-2-7b -g a100" ;;
    start) echo "--version" ;;
    esac
}
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for row in $rows; do
    c=$(cmd_of "$row")
    if { [ "$row" = estimate ] || [ "$row" = start ]; } && command -v perf >/dev/null 2>&1; then
        # one process is ~2 ms: perf stat's mean task-clock over 300 runs
        # shellcheck disable=SC2086
        perf stat -r 300 "$bin" $c 2>&1 >/dev/null | awk -v r="$row" -v c="$c" '/task-clock/ {printf "%-10s task-clock %s ms (mean of 300)  llmroof %s\n", r, $1, c}'
        continue
    fi
    reps=$n
    { [ "$row" = estimate ] || [ "$row" = start ]; } && reps=$((n * 100))
    tmp=$(mktemp)
    i=0
    while [ "$i" -lt "$reps" ]; do
        # shellcheck disable=SC2086
        /usr/bin/time -f "%e %U %M" -a -o "$tmp" "$bin" $c >/dev/null 2>&1 || true
        i=$((i + 1))
    done
    wall=$(cut -d' ' -f1 "$tmp" | median)
    user=$(cut -d' ' -f2 "$tmp" | median)
    mem=$(cut -d' ' -f3 "$tmp" | median)
    per=""
    case $c in simulate*) # peak bytes per request: peak KB x 1024 / the -n count
        nreq=$(echo "$c" | awk '{for (i = 1; i < NF; i++) if ($i == "-n") print $(i + 1)}')
        per=$(awk -v m="$mem" -v n="$nreq" 'BEGIN {printf "  %.1f B/request", m * 1024 / n}') ;;
    esac
    printf '%-10s wall %8ss  user %8ss  peak %8s KB%s  (median of %d)  llmroof %s\n' "$row" "$wall" "$user" "$mem" "$per" "$reps" "$c"
    rm -f "$tmp"
done
