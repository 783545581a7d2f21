#!/bin/sh
# The charts, checked as a reader would look at them (issue 14 item 4): every chart llmroof
# draws passes svgcheck (finite numbers, no overlapping labels, round tick values), and each
# carries what it must show: the report's latency bars, the SLO limits on a sweep's curves,
# validation errors per metric class with ms and tokens/s on separate axes, numbered roofline
# labels.
#   charts.sh BIN SVGCHECK SRC_DIR
set -u
bin=$1 svgcheck=$2 src=$3
fail=0
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1
export LLMROOF_DATA="$src/data"

# report: the default studies, every GPU of the catalog with a TP that does not divide the heads
"$bin" report --svg-dir "$tmp/r1" >/dev/null
"$bin" report -m llama-2-70b --gpus all --tp 1,2,3,4,8 --svg-dir "$tmp/r2" >/dev/null
"$bin" report -m mixtral-8x7b --gpus h100,l40s --tp 1,2,4,8 --svg-dir "$tmp/r3" >/dev/null
check "report --svg-dir writes the latency chart" test -s "$tmp/r1/internlm-20b-latency.svg"
check "the latency chart has TTFT, TPOT and throughput panels" sh -c \
    "grep -q '>TTFT (ms)' '$tmp/r1/internlm-20b-latency.svg' && grep -q '>TPOT (ms)' '$tmp/r1/internlm-20b-latency.svg' \
     && grep -q '>decode throughput (tokens/s)' '$tmp/r1/internlm-20b-latency.svg'"
check "one bar per GPU x TP (9) in each of the 3 panels" \
    [ "$(grep -c '<rect x=[^>]*fill="#[0-9A-F]*"[^>]*><title>' "$tmp/r1/internlm-20b-latency.svg")" = 27 ]
"$bin" report --format html >"$tmp/r.html"
check "the HTML report shows the latency chart first" sh -c \
    "grep -n '<svg' '$tmp/r.html' | head -1 | grep -q . && \
     [ \"\$(grep -o '<title>[^<]*</title>' '$tmp/r.html' | sed -n 2p)\" = '<title>internlm-20b: latency and throughput per GPU and TP</title>' ]"

# simulate: a token-budget sweep (the chart that used to smear its labels) with SLOs, a rate sweep
"$bin" simulate -m llama-2-7b -g a100 --rate 4 --requests 200 \
    --sweep-batched-tokens 256,512,1024,2048,4096,8192,16384 --ttft-slo 100ms --tpot-slo 25ms --svg "$tmp/s1.svg" >/dev/null
"$bin" simulate -m llama-2-7b -g a100 --requests 100 --sweep-concurrency 1,2,4,8,16,32 --svg "$tmp/s2.svg" >/dev/null
# the ridge marked is the one the GEMMs compute on: DeepSeek-V3's block-fp8 GEMMs on an H200 at the
# fp8 ceiling (it had said "fp16 ridge" under points above the fp16 ceiling: a review of session 65)
"$bin" roofline -m deepseek-v3 -g h200 -t 8 -b 64 --svg "$tmp/rf8.svg" >/dev/null 2>&1
"$bin" roofline -m llama-3.1-8b -g h100 --svg "$tmp/rf16.svg" >/dev/null 2>&1
check "an fp8 model's roofline marks the fp8 ridge" grep -q '>fp8 ridge' "$tmp/rf8.svg"
check "a 16-bit model's marks the fp16 ridge" grep -q '>fp16 ridge' "$tmp/rf16.svg"
# overloaded runs shaded (their points under an SLO line had read as meeting it), and a sweep whose
# every request was rejected says so in its empty latency panel (reviews of session 65)
"$bin" simulate -m llama-3.1-8b -g h100 --sweep-rate 1,10,160 -n 200 --ttft-slo 2s --tpot-slo 100ms \
    --svg "$tmp/over.svg" >/dev/null 2>&1
"$bin" simulate -m llama-3.1-8b -g l4 -w fixed:1000000:10 --sweep-rate 0.01,1 -n 10 --svg "$tmp/rej.svg" >/dev/null 2>&1
check "an overloaded sweep point is shaded" grep -q 'class="overload"' "$tmp/over.svg"
check "a sweep of rejected requests says why its latency panel is empty" grep -q 'no run completed a request' "$tmp/rej.svg"
# a bar that does not fit (faded) no longer sets the scale: Llama-3.1-70B's TP-1 and TP-2 TPOT on an
# A100-40GB and an L40S run past the top of a scale the fitting bars set, cut with a white break
# (116 no-fit bars of 148 had squashed the 32 that fit near zero: a review of session 65)
"$bin" report -m llama-3.1-70b --gpus h100,a100,l40s --tp 1,2,4,8 --svg-dir "$tmp/rcut" >/dev/null 2>&1
check "a faded bar past the fitting bars' scale is cut, not the scale stretched" \
    grep -q 'stroke="#ffffff" stroke-width="3"' "$tmp/rcut/llama-3.1-70b-latency.svg"
# a long model id and a long GPU id: the title within the chart's width, the first turned GPU label
# within its left edge (both had been cut: a review of session 65); boxes at 0.6 em a character
"$bin" --models-file tests/data/long-id-model.json --gpus-file tests/data/long-id-gpu.json report \
    -m meta-llama-llama-3.1-8b-instruct-extremely-long-finetune-v2 \
    --gpus nvidia-h100-sxm5-80gb-hbm3-custom-cloud-instance-v2,a100-pcie-80gb-nvl,l4 --tp 1,2,4,8 \
    --svg-dir "$tmp/long" >/dev/null 2>&1
check "a long model id's title and a long GPU id's label stay inside the chart" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
w = float(re.search(r"<svg[^>]* width=\"([0-9.]+)\"", s).group(1))
t = re.search(r"<text x=\"10\" y=\"22\" font-size=\"15\"[^>]*>([^<]*)</text>", s).group(1)
x, txt = re.search(r"<text x=\"([0-9.]+)\" y=\"[0-9]+\" font-size=\"11\" text-anchor=\"end\" transform=[^>]*>([^<]*)</text>", s).groups()
sys.exit(not (10 + 0.6 * 15 * len(t) <= w and float(x) - 0.6 * 11 * len(txt) * 0.866 >= 0))
' "$tmp/long/meta-llama-llama-3.1-8b-instruct-extremely-long-finetune-v2-latency.svg"
check "the sweep chart draws both SLO limits" sh -c "grep -q 'TTFT SLO 100 ms' '$tmp/s1.svg' && grep -q 'TPOT SLO 25 ms' '$tmp/s1.svg'"
check "without SLOs it draws none" sh -c "! grep -q ' SLO ' '$tmp/s2.svg'"
check "the sweep chart's x axis names the swept setting" grep -q '>max_batched_tokens: token budget per iteration' "$tmp/s1.svg"

# validate: errors per metric class; ms and tokens/s on separate axes
"$bin" validate tests/data/validation/measurements.csv --svg "$tmp/v.svg" >/dev/null
check "the validation chart has an error strip per metric class" sh -c \
    "grep -q '>decode (n=' '$tmp/v.svg' && grep -q '>prefill (n=' '$tmp/v.svg' && grep -q '>e2e (n=' '$tmp/v.svg'"
check "ms and tokens/s have separate axes" sh -c \
    "grep -q '>predicted (ms, ' '$tmp/v.svg' && grep -q '>predicted (tokens/s, ' '$tmp/v.svg' && ! grep -q 'ms or tokens/s' '$tmp/v.svg'"

# roofline: numbered points and a list of names, for a dense model, an MoE and an MLA model
"$bin" roofline -m llama-2-70b -g h100 -t 4 -b 64 --svg "$tmp/f1.svg" >/dev/null
"$bin" roofline -m mixtral-8x7b -g a100 -t 2 -b 8 --svg "$tmp/f2.svg" >/dev/null
"$bin" roofline -m deepseek-v3 -g h200 -t 8 -b 32 --svg "$tmp/f3.svg" >/dev/null 2>&1 || \
    "$bin" roofline -m qwen2.5-72b -g h200 -t 8 -b 32 --svg "$tmp/f3.svg" >/dev/null
check "roofline labels are numbers with a list of operator names" grep -q '<tspan font-weight="bold"[^>]*>1</tspan> prefill' "$tmp/f1.svg"
# the 8-bit ceiling is the rate estimate charges: 1979 TFLOP/s x 0.71 x gemm_8bit 0.93 = 1307 on an H100
# (a review: it sat at 1979 x 0.71 = 1405, 7.5% above); the 16-bit one 989.5 x 0.71 = 703
check "roofline 8-bit ceiling at the 8-bit GEMMs' share" grep -q 'fp8 / int8 1307 TFLOP/s' "$tmp/f1.svg"
check "roofline 16-bit ceiling unscaled" grep -q 'fp16 / bf16 703 TFLOP/s' "$tmp/f1.svg"
# a point's number keeps off the bandwidth slope (a review: Mixtral's prefill norm "1" sat on it):
# no label's box (11 px high, its width) is crossed by the line
"$bin" roofline -m mixtral-8x7b -g h100 -t 2 --svg "$tmp/f4.svg" >/dev/null
check "roofline point numbers keep off the bandwidth slope" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
x1, y1, x2, y2 = map(float, re.search(r"<line x1=\"([-\d.]+)\" y1=\"([-\d.]+)\" x2=\"([-\d.]+)\" y2=\"([-\d.]+)\" "
                                      r"stroke=\"#333333\" stroke-width=\"2\"", s).groups())
labels = re.findall(r"<text x=\"([-\d.]+)\" y=\"([-\d.]+)\" font-size=\"11\" font-weight=\"bold\" fill=\"[^\"]+\">(\d+)</text>", s)
assert labels
for lx, ly, num in labels:
    lx, ly = float(lx), float(ly)
    w = 7.0 * len(num)
    for k in range(101):  # the line inside the label box [lx, lx + w] x [ly - 11, ly]?
        x = x1 + (x2 - x1) * k / 100.0
        y = y1 + (y2 - y1) * k / 100.0
        assert not (lx <= x <= lx + w and ly - 11 <= y <= ly), (num, lx, ly, x, y)
' "$tmp/f4.svg"
# every GPU of the catalog: the latency chart widens to 24 px a group, so that the GPU names,
# turned 30 degrees, clear each other (37 names had overlapped in 800 px)
check "a latency chart of every GPU gives each group 24 px or more" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
w = int(re.search(r"<svg[^>]* width=\"([0-9]+)\"", s).group(1))
n = int(sys.argv[2])
sys.exit(0 if (w - 78 - 16) / n >= 24 else 1)' "$tmp/r2/llama-2-70b-latency.svg" "$("$bin" list gpus --format csv | tail -n +2 | wc -l)"

# one colour per operator in every share chart: DeepSeek-V3's router had shifted the palette, so
# all_reduce was yellow in one report and black in the next
"$bin" report -m deepseek-v3 --gpus h200 --tp 8 --svg-dir "$tmp/r4" >/dev/null
check "an operator keeps its colour from report to report" python3 -c '
import re, sys
def legend(p):
    s = open(p).read()
    return dict((n, c) for c, n in re.findall(r"fill=\"(#[0-9A-Fa-f]{6})\"/>\n<text x=\"[0-9]+\" y=\"[0-9]+\">([a-z_]+)</text>", s))
a, b = legend(sys.argv[1]), legend(sys.argv[2])
shared = set(a) & set(b)
sys.exit(0 if len(shared) >= 5 and all(a[k] == b[k] for k in shared) and "router" in b else 1)' \
    "$tmp/r1/internlm-20b-decode-shares.svg" "$tmp/r4/deepseek-v3-decode-shares.svg"

# a point more intense than the default 1e4 FLOP/B widens the axis: a 120,000-token prompt's
# attention (48,000 FLOP/B) had been drawn past the frame's right edge, over the roof labels
"$bin" roofline -m llama-3.1-8b -g h100 -b 1 -p 120000 -o 10 --svg "$tmp/f4.svg" >/dev/null
check "roofline points stay inside the frame" python3 -c '
import re, sys
s = open(sys.argv[1]).read()
right = 80 + 570  # the plot frame (svg.c: left 80, width 570)
cx = [float(v) for v in re.findall(r"<circle cx=\"([0-9.]+)\"", s)]
sys.exit(0 if cx and max(cx) <= right else 1)' "$tmp/f4.svg"

for f in "$tmp"/r1/*.svg "$tmp"/r2/*.svg "$tmp"/r3/*.svg "$tmp"/s1.svg "$tmp"/s2.svg "$tmp"/v.svg "$tmp"/f1.svg \
         "$tmp"/f2.svg "$tmp"/f3.svg "$tmp"/f4.svg; do
    check "svgcheck $(basename "$(dirname "$f")")/$(basename "$f"): finite, no overlapping labels, round ticks" \
        "$svgcheck" "$f"
done
exit $fail
