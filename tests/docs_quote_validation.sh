#!/bin/sh
# The held-out figures docs/validation.md's table "The errors to quote now" and README.md quote
# are what `llmroof validate --cv source` prints on the shipped rows: a change that moves them
# must update the documents with it (a review found the serving-load row quoted at 20.0 / 31.1 /
# -20.0 where validate printed 19.9 / 31.0 / -19.9).
#   sh tests/docs_quote_validation.sh BIN
set -u
bin=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export LLMROOF_DATA="$root/data" LC_ALL=C
sum=$("$bin" validate tests/data/validation/measurements.csv --cv source -q --format csv --table summary | tr -d '\r') || {
    echo "FAIL: validate --cv source failed"; exit 1; }
fail=0
# row: group in the CSV, label in the table; the table prints n, median, p90 and bias (Unicode minus)
check_row() {
    # (CSV prints 15 significant digits; the table quotes one decimal, as the text table does)
    line=$(printf '%s\n' "$sum" | awk -F, -v g="$1" '$1 == g { printf "%s %.1f %.1f %.1f\n", $2, $3, $4, $5 }')
    [ -n "$line" ] || { echo "FAIL: validate printed no group '$1'"; fail=1; return; }
    set -- "$2" $line
    bias=$(printf '%s' "$5" | sed 's/^-/−/')
    want="| $1 | $2 | $3 | $4 | $bias |"
    # the decode median is bold in the table
    if ! grep -qF -- "$want" docs/validation.md &&
        ! grep -qF -- "| $1 | $2 | **$3** | $4 | $bias |" docs/validation.md; then
        echo "FAIL: docs/validation.md lacks the row: $want"; fail=1
    fi
}
check_row all "all"
check_row "class decode" "decode"
check_row "class prefill" "prefill / TTFT"
check_row "class e2e" "e2e and static throughput"
check_row "load serving" "serving rows of this file (load = serving)"
# README's sentence: decode, TTFT/prefill, end to end, and the serving rows
med() { printf '%s\n' "$sum" | awk -F, -v g="$1" '$1 == g { printf "%.1f", $3 }'; }
want="held-out median error $(med 'class decode')% for decode, $(med 'class prefill')% for TTFT/prefill, $(med 'class e2e')%"
tr '\n' ' ' <README.md | sed 's/  */ /g' | grep -qF -- "$want" || { echo "FAIL: README.md does not say: $want"; fail=1; }
want="end to end and $(med 'load serving')% for those 14 serving rows"
tr '\n' ' ' <README.md | sed 's/  */ /g' | grep -qF -- "$want" || { echo "FAIL: README.md does not say: $want"; fail=1; }
# README's leave-one-GPU-out figures (an audit of session 71 found them in sample: the held-out
# GPU had kept a memory share fitted to its own rows)
logo=$("$bin" validate tests/data/validation/measurements.csv --cv gpu -q --format csv --table summary | tr -d '\r') || {
    echo "FAIL: validate --cv gpu failed"; exit 1; }
lmed() { printf '%s\n' "$logo" | awk -F, -v g="$1" '$1 == g { printf "%.1f", $3 }'; }
want="(leave one GPU out: $(lmed 'class decode'), $(lmed 'class prefill'), $(lmed 'class e2e');"
tr '\n' ' ' <README.md | sed 's/  */ /g' | grep -qF -- "$want" || { echo "FAIL: README.md does not say: $want"; fail=1; }
# README's serving sentence: the serving rows' classes (data/serving.csv, held out by publication)
serv=$("$bin" validate --cv source -q --format csv --table serving-summary | tr -d '\r') || {
    echo "FAIL: validate --cv source (serving) failed"; exit 1; }
smed() { printf '%s\n' "$serv" | awk -F, -v g="$1" '$1 == g { printf "%.1f", $3 }'; }
want="$(smed 'class throughput')% on throughput, $(smed 'class ttft')% on TTFT, $(smed 'class tpot')% on TPOT and inter-token latency, $(smed 'class e2e')% end to end"
tr '\n' ' ' <README.md | sed 's/  */ /g' | grep -qF -- "$want" || { echo "FAIL: README.md does not say: $want"; fail=1; }
[ $fail = 0 ] && echo "ok: docs/validation.md and README.md quote validate --cv source"
exit $fail
