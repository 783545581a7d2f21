#!/bin/sh
# Checks tests/cli/valgrind-skip.txt: every skipped case and every case said to cover it under
# valgrind is a golden case, and no covering case is itself skipped; every case of
# tests/cli/asan-skip.txt (left out of the sanitizers' stage) is one of valgrind-skip.txt's.
#   valgrind_skip.sh DIR   (DIR = tests/cli)
set -u
dir=$1 status=0
list="$dir/valgrind-skip.txt"
[ -f "$list" ] || { echo "missing $list"; exit 1; }
skipped=$(grep -v '^#' "$list" | awk 'NF { print $1 }')
n=0
for name in $skipped; do
    n=$((n + 1))
    [ -f "$dir/golden/$name.cmd" ] || { echo "valgrind-skip.txt: $name is not a golden case"; status=1; }
    covers=$(awk -v n="$name" '$1 == n { $1 = ""; print }' "$list" | tr ',' ' ')
    [ -n "$covers" ] || { echo "valgrind-skip.txt: $name names no covering case"; status=1; }
    for c in $covers; do
        [ -f "$dir/golden/$c.cmd" ] || { echo "valgrind-skip.txt: $name: covering case $c is not a golden case"; status=1; }
        for s in $skipped; do
            [ "$c" != "$s" ] || { echo "valgrind-skip.txt: $name: covering case $c is skipped too"; status=1; }
        done
    done
done
[ $n -gt 0 ] || { echo "valgrind-skip.txt lists no case"; status=1; }
asan="$dir/asan-skip.txt"
[ -f "$asan" ] || { echo "missing $asan"; exit 1; }
for name in $(grep -v '^#' "$asan" | awk 'NF { print $1 }'); do
    found=0
    for s in $skipped; do
        [ "$s" != "$name" ] || found=1
    done
    [ $found = 1 ] || { echo "asan-skip.txt: $name is not in valgrind-skip.txt (which names its covering cases)"; status=1; }
done
exit $status
