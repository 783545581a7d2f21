#!/bin/sh
# The interfaces people script against and read (issue 14 item 3): tables fit a 100-column
# terminal, --svg-dir creates its directory, plan and report take --gpus all, every catalog
# source cites docs/, and the HTML report's tables scroll instead of being cut.
#   interfaces.sh BIN SRC_DIR
set -u
bin=$1 src=$2
fail=0
check() { # check DESCRIPTION COMMAND...
    d=$1; shift
    if "$@"; then echo "ok: $d"; else echo "FAIL: $d"; fail=1; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1
export LLMROOF_DATA="$src/data"

# widest line of a file
widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }

# tables fit 100 columns: show (every GPU and model of the catalog), report (default, with bands,
# with a bad TP, with MoE), estimate --ops; --wide brings every column back in one table
for g in $("$bin" list gpus --format csv | tail -n +2 | cut -d, -f1); do
    "$bin" show gpu "$g" >>"$tmp/show"
done
for m in $("$bin" list models --format csv | tail -n +2 | cut -d, -f1); do
    "$bin" show model "$m" >>"$tmp/show"
done
check "show fits 100 columns for every catalog entry (widest $(widest "$tmp/show"))" [ "$(widest "$tmp/show")" -le 100 ]
check "show puts the source under the table" grep -q '^source: ' "$tmp/show"
"$bin" report >"$tmp/r1"
"$bin" report --range >"$tmp/r2"
"$bin" report -m mixtral-8x7b --gpus h100,l40s --tp 1,2,4,8 >"$tmp/r3"
"$bin" report --tp 2,3,4 >"$tmp/r4"
for f in r1 r2 r3 r4; do
    sed '/^Observations/,$d' "$tmp/$f" >"$tmp/$f.tables" # observations are prose lines
    check "report tables fit 100 columns ($f: widest $(widest "$tmp/$f.tables"))" [ "$(widest "$tmp/$f.tables")" -le 100 ]
done
check "report --range adds Table 1d" grep -q '^Table 1d' "$tmp/r2"
"$bin" report --wide >"$tmp/wide"
check "report --wide prints Table 1 with every column in one table" \
    grep -q '^gpu .*weights_GiB_per_gpu.*ttft_ms.*tp_scaling_pct' "$tmp/wide"
"$bin" estimate -m internlm-20b -g a40 -t 8 -b 16 --ops | grep -e '  ' -e '^--' >"$tmp/est" # table lines
check "estimate --ops tables fit 100 columns (widest $(widest "$tmp/est"))" [ "$(widest "$tmp/est")" -le 100 ]
"$bin" validate tests/data/validation/measurements.csv | grep -e '  ' -e '^--' >"$tmp/val"
check "validate tables fit 100 columns (widest $(widest "$tmp/val"))" [ "$(widest "$tmp/val")" -le 100 ]
# --cv: the rows and the summary after the held-out table carry held-out predictions; say so
"$bin" validate tests/data/validation/one-row.csv --cv source >"$tmp/cv" 2>/dev/null
check "validate --cv labels its row summary held out" grep -q '^summary (overall, by class, by metric), held out$' "$tmp/cv"
"$bin" validate tests/data/validation/one-row.csv >"$tmp/cv" 2>/dev/null
check "validate without --cv labels nothing held out" sh -c "! grep -q 'held out' '$tmp/cv'"
# JSON says so too: the held-out groups, folds and bounds with --cv, nothing without it; a group
# with no row has null statistics, not a perfect 0 (a review)
"$bin" validate tests/data/validation/one-row.csv --cv source --format json >"$tmp/cv.json" 2>/dev/null
check "validate --cv --format json carries the held-out groups" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
cv = d['cross_validation']
assert cv['by'] == 'source' and cv['folds'] == 1 and cv['bounds'], cv
assert cv['groups'][0]['by'] == 'all' and cv['groups'][0]['n'] == 1, cv['groups'][0]
assert any(g['by'] == 'source' for g in cv['groups'])
p = d['summary']['by_class']['prefill']
assert p['n'] == 0 and p['median_abs_error'] is None and p['bias'] is None, p
" "$tmp/cv.json"
"$bin" validate tests/data/validation/one-row.csv --format json >"$tmp/in.json" 2>/dev/null
check "validate --format json without --cv has no cross_validation" python3 -c "
import json, sys
assert 'cross_validation' not in json.load(open(sys.argv[1]))
" "$tmp/in.json"

# a TP that does not divide the heads: a marked row, not an abort
"$bin" report --tp 2,3,4 >"$tmp/bad" 2>"$tmp/err"; rc=$?
check "report with a TP that does not divide the heads exits 0" [ "$rc" = 0 ]
check "that TP's rows are marked bad-tp" grep -q '^a40  *3  bad-tp' "$tmp/bad"
"$bin" report --tp 3 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "report with no usable TP exits 2 and says why" sh -c "[ $rc = 2 ] && grep -q 'no TP in the list suits' '$tmp/err'"

# --svg-dir creates its directory (and missing parents)
"$bin" report --svg-dir "$tmp/charts/deep" >/dev/null; rc=$?
check "report --svg-dir creates a missing directory" sh -c "[ $rc = 0 ] && [ -f '$tmp/charts/deep/internlm-20b-decode-shares.svg' ]"
: >"$tmp/plainfile"
"$bin" report --svg-dir "$tmp/plainfile/x" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "report --svg-dir under a file is refused before the work (exit 2) with a message, nothing on stdout" \
    sh -c "[ $rc = 2 ] && [ ! -s '$tmp/out' ] && grep -q 'cannot create directory' '$tmp/err'"
# a failed run leaves no new file, nor the directories it made for them (docs/reliability.md):
# a stdout that cannot be written had left the new, empty $tmp/gone/deep behind
"$bin" report --svg-dir "$tmp/gone/deep" >/dev/full 2>"$tmp/err"; rc=$?
check "report --svg-dir that fails on stdout exits 1 and removes the directories it made" \
    sh -c "[ $rc = 1 ] && [ ! -e '$tmp/gone' ] && grep -q 'cannot write to stdout' '$tmp/err'"
mkdir "$tmp/kept"
"$bin" report --svg-dir "$tmp/kept/new" >/dev/full 2>/dev/null
check "... but not a directory that was there before" sh -c "[ -d '$tmp/kept' ] && [ ! -e '$tmp/kept/new' ]"

# --gpus all, as sweep has it
n=$("$bin" list gpus --format csv | tail -n +2 | wc -l)
rows=$("$bin" plan -m llama-2-7b --gpus all --tp 1 --users 100 --fast --format csv | tail -n +2 | wc -l)
check "plan --gpus all plans every catalog GPU ($rows of $n)" [ "$rows" = "$n" ]
rows=$("$bin" report -m llama-2-7b --gpus all --tp 1 --format csv | tail -n +2 | wc -l)
check "report --gpus all compares every catalog GPU ($rows of $n)" [ "$rows" = "$n" ]

# HTML tables scroll sideways instead of being cut
"$bin" report --format html >"$tmp/r.html"
check "HTML tables sit in a box that scrolls (overflow-x)" grep -q 'div.scroll{overflow-x:auto' "$tmp/r.html"
# ... and so do the charts, each at least 640 px wide (at 420 px they had shrunk to 3-px text: a
# review of session 65), with the page at the screen's width (viewport)
t=$(grep -c '<table>' "$tmp/r.html"); g=$(grep -c '^<svg' "$tmp/r.html"); s=$(grep -c '<div class="scroll">' "$tmp/r.html")
check "every HTML table and chart is inside one ($s of $t + $g)" [ "$((t + g))" = "$s" ]
check "the charts keep 640 px and the page the screen's width" sh -c \
    "grep -q 'div.scroll svg{min-width:640px}' '$tmp/r.html' && grep -q 'name=\"viewport\"' '$tmp/r.html'"

# sweep's help lists only the formats sweep writes
"$bin" sweep --help >"$tmp/h"
check "sweep --help lists csv and jsonl only" grep -q -- '--format FMT  *output format: csv or jsonl (default csv)' "$tmp/h"
"$bin" check --help >"$tmp/h"
check "check --help lists table and json" grep -q -- 'output format: table or json' "$tmp/h"

# catalog sources cite docs/sources.md, never a path no clone has, and every key they cite is there
check "no catalog source cites ../shared" sh -c "! grep -q 'shared/' data/*.json"
keys=$(grep -ho '"source": *"[^"]*"' data/gpus.json data/models.json | grep -o '\[[A-Za-z0-9.+-]\{1,\}\]' | sort -u)
missing=""
for k in $keys; do
    grep -qF -- "$k" docs/sources.md || missing="$missing $k"
done
check "every key a catalog source cites is defined in docs/sources.md${missing:+ (missing:$missing)}" [ -z "$missing" ]
# no source points outside the repository (a relative path such as ../shared/... that no clone has)
bad=$(grep -ho '"source": *"[^"]*"' data/*.json | grep -e '\.\./' | head -3)
check "no catalog source cites a path outside the repository${bad:+ (not: $bad)}" [ -z "$bad" ]

# llmroof serve reads its options before it runs llmroof-serve: --help and a usage error need no
# server binary (a copy of llmroof alone, with no llmroof-serve beside it or on PATH, had said
# "cannot run llmroof-serve", exit 1, to both)
mkdir "$tmp/alone" && cp "$bin" "$tmp/alone/llmroof"
PATH=/usr/bin:/bin "$tmp/alone/llmroof" serve --help >"$tmp/out" 2>"$tmp/err"; rc=$?
check "serve --help without llmroof-serve prints the help, exit 0" sh -c "[ $rc = 0 ] && grep -q '^usage: llmroof serve' '$tmp/out' && [ ! -s '$tmp/err' ]"
# "llmroof help serve" is the same help (review of session 66: it said 'serve' must be the first word)
PATH=/usr/bin:/bin "$tmp/alone/llmroof" help serve >"$tmp/out" 2>"$tmp/err"; rc=$?
check "help serve prints serve's help, exit 0" sh -c "[ $rc = 0 ] && grep -q '^usage: llmroof serve' '$tmp/out' && [ ! -s '$tmp/err' ]"
PATH=/usr/bin:/bin "$tmp/alone/llmroof" serve --port 99999 >"$tmp/out" 2>"$tmp/err"; rc=$?
check "serve --port 99999 without llmroof-serve is a usage error, exit 2" sh -c "[ $rc = 2 ] && [ ! -s '$tmp/out' ] && grep -q \"option '--port': '99999' is not a port number\" '$tmp/err'"

exit $fail
