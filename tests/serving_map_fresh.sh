#!/bin/sh
# tests/serving_map_fresh.sh ROOT SCRATCH - data/serving-map.csv is what scripts/serving-map.py
# writes from data/serving.csv: rerun the script on a scratch copy of data/ and compare, so a rule
# changed in one place and not the other fails here (a rerun would silently undo the CSV's edit).
set -eu
root=$1
scratch=$2
rm -rf "$scratch"
mkdir -p "$scratch"
cp -R "$root/data" "$root/scripts" "$scratch/"
(cd "$scratch" && python3 scripts/serving-map.py >/dev/null)
if ! cmp -s "$root/data/serving-map.csv" "$scratch/data/serving-map.csv"; then
    echo "serving_map_fresh: data/serving-map.csv differs from what scripts/serving-map.py writes:" >&2
    diff "$root/data/serving-map.csv" "$scratch/data/serving-map.csv" | head -20 >&2
    exit 1
fi
echo "serving_map_fresh: data/serving-map.csv is the script's output"
