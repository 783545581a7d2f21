#!/bin/sh
# Golden CLI test driver (jq's shtest / curl's testNNNN in spirit).
#   run_golden.sh BIN DIR NAME      run case NAME: DIR/NAME.cmd holds the arguments (shell
#                                   words), NAME.out the exact stdout, NAME.rc the exit status,
#                                   NAME.err (optional) a line stderr must contain.
# LLMROOF_VALGRIND=1 runs every case under valgrind memcheck (errors and leaks fail it), except
#   the slow cases listed in tests/cli/valgrind-skip.txt: those exit 77 (ctest: skipped), a
#   small case named there covering their code under valgrind instead.
#   run_golden.sh --update BIN DIR  rewrite every NAME.out and NAME.rc from the current binary
#                                   (after a deliberate change of the model; review the diff).
# Cases run from the repository root with LLMROOF_DATA pointing at data/.
set -u
update=0
if [ "$1" = "--update" ]; then update=1; shift; fi
bin=$1 dir=$2
root=$(cd "$dir/../../.." && pwd)
export LLMROOF_DATA="$root/data" LC_ALL=C
cd "$root" || exit 1

run_case() {
    name=$1
    eval "set -- $(cat "$dir/$name.cmd")"
    out=$(mktemp) err=$(mktemp)
    # LLMROOF_VALGRIND=1 (scripts/test.sh): run under memcheck; any error or leak exits 99,
    # which no case expects
    if [ -n "${LLMROOF_VALGRIND:-}" ]; then
        valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all \
            "$bin" "$@" >"$out" 2>"$err"
    else
        "$bin" "$@" >"$out" 2>"$err"
    fi
    rc=$?
    if [ $update = 1 ]; then
        cp "$out" "$dir/$name.out"
        echo "$rc" >"$dir/$name.rc"
        rm -f "$out" "$err"
        return 0
    fi
    status=0
    want_rc=$(cat "$dir/$name.rc")
    if [ "$rc" != "$want_rc" ]; then
        echo "$name: exit status $rc, expected $want_rc"; status=1
    fi
    if ! cmp -s "$out" "$dir/$name.out"; then
        echo "$name: stdout differs from $name.out:"; diff "$dir/$name.out" "$out" | head -40; status=1
    fi
    if [ -f "$dir/$name.err" ] && ! grep -qF -- "$(cat "$dir/$name.err")" "$err"; then
        echo "$name: stderr lacks: $(cat "$dir/$name.err")"; echo "stderr was:"; cat "$err"; status=1
    fi
    if [ "$want_rc" = 2 ] && [ ! -s "$err" ]; then
        echo "$name: failed without a message on stderr"; status=1
    fi
    rm -f "$out" "$err"
    return $status
}

if [ $update = 1 ]; then
    for f in "$dir"/*.cmd; do run_case "$(basename "$f" .cmd)"; done
    exit 0
fi
if [ -n "${LLMROOF_VALGRIND:-}" ]; then
    cover=$(awk -v n="$3" '$1 == n { $1 = ""; sub(/^ +/, ""); print }' "$dir/../valgrind-skip.txt")
    if [ -n "$cover" ]; then
        echo "$3: not run under valgrind (tests/cli/valgrind-skip.txt): covered there by $cover"
        exit 77
    fi
fi
run_case "$3"
