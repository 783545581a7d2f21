#!/bin/sh
# calibrate --cv source holds out by publication: each publication's rows of the GPU are predicted
# by a fit to the others' alone. Built from small.csv's six calm rows (one publication, RTX 4090)
# and a copy of them under another source:
#   - the copy's values as they are: a fit to either publication is a fit to the same rows, so the
#     held-out median equals the in-sample one (1.257%);
#   - the copy's rates halved: each publication is predicted by the other's fit, twice as slow or
#     twice as fast (+100% or -50% in time), where --holdout's alternate rows mix the two in both
#     halves: held out by source above 60%, by alternate rows below 40% (70.7 and 28.0 today);
#   - the calm rows alone: nothing to fit without them, no held-out figure (JSON null) and a note.
#   sh tests/cli/calibrate_cv.sh BIN ROOT
set -u
bin=$1 root=$2
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export LLMROOF_DATA="$root/data" LC_ALL=C
python3 - "$root/tests/data/validation/small.csv" "$T" <<'PY' || exit 1
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
h = rows[0]
v, s, i = h.index('value'), h.index('source'), h.index('id')
calm = [r for r in rows[1:] if 'zeux/calm' in r[s]]
assert len(calm) == 6, 'small.csv: expected 6 calm rows'
def write(name, scale, copy=True):
    out = [h] + calm
    for r in calm if copy else []:
        c = list(r)
        c[i], c[s], c[v] = 'x' + r[i], 'github.com/example/copy', repr(float(r[v]) * scale)
        out.append(c)
    csv.writer(open(sys.argv[2] + '/' + name, 'w', newline=''), lineterminator='\n').writerows(out)
write('same.csv', 1.0)
write('half.csv', 0.5)
write('one.csv', 1.0, copy=False)
PY
# prints "in-sample held-out note" of a calibrate --format json answer
errors() {
    "$bin" calibrate "$1" -g rtx-4090 $2 --format json 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
p = {r["parameter"]: r for r in d["parameters"]}
h = p["held_out_median_abs_error_pct"]
print(d["cv"], p["median_abs_error_pct"]["fitted"], h["fitted"], h["note"].replace(" ", "_"))'
}
fail=0
set -- $(errors "$T/same.csv" "--cv source")
if [ "$1" != source ] || ! awk -v a="$2" -v b="$3" 'BEGIN { exit !(b != "None" && (a - b < 1e-9 && b - a < 1e-9)) }'; then
    echo "FAIL: identical publications: held out $3 != in sample $2 (cv $1)"; fail=1
fi
set -- $(errors "$T/half.csv" "--cv source")
src=$3
set -- $(errors "$T/half.csv" "--holdout")
alt=$3
if ! awk -v s="$src" -v a="$alt" 'BEGIN { exit !(s > 60 && a < 40) }'; then
    echo "FAIL: halved copy: held out by source $src (want > 60), by alternate rows $alt (want < 40)"; fail=1
fi
set -- $(errors "$T/one.csv" "--cv source")
if [ "$3" != None ] || [ "$4" != "0_rows_held_out_by_publication_(1_publication;_6_rows_not_predicted:_the_GPU's_only_publication)" ]; then
    echo "FAIL: one publication: held out $3, note $4"; fail=1
fi
[ "$fail" = 0 ] && echo "ok: calibrate --cv source holds out by publication"
exit "$fail"
