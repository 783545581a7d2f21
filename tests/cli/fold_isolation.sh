#!/bin/sh
# Held out means held out: scaling one publication's static rows must not move a single held-out
# prediction of that publication's serving rows (validate --cv source). LMDeploy's benchmark page
# gives both kinds, its static rows keyed "InternLM/lmdeploy" and its serving rows
# "github.com/InternLM/lmdeploy/blob/main/docs/...": as two folds, its serving rows had been
# predicted with engine fits that saw its static rows (an audit of session 71: b201 -31.6% ->
# -15.4% with those static values x 1.3).
#   sh tests/cli/fold_isolation.sh BIN ROOT
set -u
bin=$1 root=$2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export LLMROOF_DATA="$root/data" LC_ALL=C
m="$root/tests/data/validation/measurements.csv"
# the value column (13th) of every InternLM/lmdeploy static row, times 1.3 (fields quoted by the
# RFC 4180 rules: python's csv module reads and writes them)
python3 - "$m" "$T/scaled.csv" <<'PY' || exit 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
head = rows[0]
v, s = head.index('value'), head.index('source')
n = 0
for r in rows[1:]:
    if r[s].startswith('InternLM/lmdeploy'):
        r[v] = repr(float(r[v]) * 1.3)
        n += 1
assert n > 0, 'no InternLM/lmdeploy static rows'
csv.writer(open(sys.argv[2], 'w', newline=''), lineterminator='\n').writerows(rows)
PY
for f in "$m" "$T/scaled.csv"; do
    "$bin" validate "$f" --serving "$root/data/serving.csv" --cv source -q --format csv --table serving 2>/dev/null |
        awk -F, '$1 ~ /^b(19[0-9]|20[0-4])$/ { print $1, $10 }' >>"$T/$(basename "$f").out"
done
n=$(wc -l <"$T/measurements.csv.out")
if [ "$n" -lt 10 ]; then
    echo "FAIL: only $n of LMDeploy's serving rows b190-b204 were predicted"; exit 1
fi
if ! cmp -s "$T/measurements.csv.out" "$T/scaled.csv.out"; then
    echo "FAIL: LMDeploy's held-out serving predictions moved with its own static rows:"
    diff "$T/measurements.csv.out" "$T/scaled.csv.out" | head
    exit 1
fi
# A catalog memory share fitted to these rows (efficiency.memory_fitted) starts no fold: the RTX
# 4090's rows, held out with their GPU (--cv gpu), read the same whatever that fitted value is (it
# had kept its own fit: 0.9007 -> 0.85 had moved 127 of its 130 held-out predictions)
python3 - "$root/data/gpus.json" "$T/g.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
g = [x for x in d['gpus'] if x['id'] == 'rtx-4090'][0]
assert g['efficiency'].get('memory_fitted'), 'rtx-4090 memory share not marked fitted'
g['efficiency']['memory'] = 0.85
json.dump({'gpus': [g]}, open(sys.argv[2], 'w'))
PY
for gf in "" "--gpus-file $T/g.json"; do
    "$bin" $gf validate "$m" --cv gpu -q --format csv --table rows 2>/dev/null |
        awk -F, '$3 == "rtx-4090" { print $1, $10 }' >>"$T/logo$([ -n "$gf" ] && echo 2).out"
done
k=$(wc -l <"$T/logo.out")
if [ "$k" -lt 100 ] || ! cmp -s "$T/logo.out" "$T/logo2.out"; then
    echo "FAIL: the RTX 4090's $k held-out rows moved with its fitted memory share:"
    diff "$T/logo.out" "$T/logo2.out" | head -5
    exit 1
fi
echo "ok: $n held-out LMDeploy serving rows unmoved by its static rows; $k RTX 4090 rows unmoved by its fitted memory share"
