#!/bin/sh
# llmroof's iteration cost against the whole Llama-3.1-8B iterations measured on an H100
# (docs/validation/measured/h100-sxm5-80gb/iterations.csv, bench/gpu/measure_serving.py): the
# comparison table must equal the committed one, so a model change that moves an iteration's cost
# is seen and the table regenerated on purpose (bench/gpu/analyze_serving.py --md).
#   measured_serving_h100.sh BIN ROOT
set -eu
bin=$1 root=$2
command -v python3 >/dev/null 2>&1 || { echo "measured_serving_h100: python3 missing"; exit 77; }
d=$root/docs/validation/measured/h100-sxm5-80gb
python3 "$root/bench/gpu/analyze_serving.py" "$d" --llmroof "$bin" --check "$d/iterations-vs-llmroof.md" >/dev/null
# the same iterations under an engine profile of the harness itself (FlashAttention-2 varlen calls:
# decodes beside a chunk unpacked), which brings the mixed iterations to the decode and prefill ones'
python3 "$root/bench/gpu/analyze_serving.py" "$d" --llmroof "$bin" --harness \
    --check "$d/iterations-vs-llmroof-harness.md" >/dev/null
mixed=$(sed -n 's/^mixed: .*median error \(-*[0-9.]*\)%.*/\1/p' "$d/iterations-vs-llmroof-harness.md")
decode=$(sed -n 's/^decode: .*median error \(-*[0-9.]*\)%.*/\1/p' "$d/iterations-vs-llmroof-harness.md")
# the varlen rule must close the mixed iterations' extra gap: within 5 points of the decodes'
awk -v m="$mixed" -v d="$decode" 'BEGIN { x = m - d; if (x < 0) x = -x; exit !(x <= 5) }' || {
    echo "measured_serving_h100: mixed median $mixed% against decode $decode% under the harness profile"
    exit 1
}
echo "measured_serving_h100: $(grep -c '^| [dpm]' "$d/iterations-vs-llmroof.md") iterations as committed (harness: mixed $mixed%, decode $decode%)"
