#!/bin/sh
# The whole test suite (docs/reliability.md), as CI runs it on a clean clone:
#   1. gcc build, -Werror, ctest (unit, golden CLI, bad-input matrix, extremes, fuzz
#      corpus replay, baselines, validation guard)
#   2. clang build, -Werror, the same suite under AddressSanitizer + UndefinedBehaviorSanitizer
#      (but for the slowest plan searches of tests/cli/asan-skip.txt)
#   3. the golden CLI cases under valgrind memcheck: zero errors, zero leaks (the slow cases of
#      tests/cli/valgrind-skip.txt are covered there by small ones; they run in full in 1-2)
#   4. cppcheck and clang-tidy (check set in .clang-tidy): zero findings
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)
t0=$(date +%s)
took() { t1=$(date +%s); echo "-- $1: $((t1 - t0)) s"; t0=$t1; }

echo "== 1. gcc build and tests =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
# cli_golden_inproc (every golden case again in one process, about 33 s of CPU here) is left to
# stage 3, which runs the same gcc-built program over the same cases under memcheck
(cd build && ctest --output-on-failure -j "$jobs" -E '^cli_golden_inproc$')
took "stage 1 (gcc)"

echo "== 2. clang build, tests under AddressSanitizer + UndefinedBehaviorSanitizer =="
# clang compiles this stage, so one build gives clang's warnings (-Werror), the sanitizers' run
# and clang-tidy's compile commands. -O1, as the sanitizers' documentation advises: assertions
# stay on (Debug defines no NDEBUG) and the suite runs about a third faster than at -O0
CC=clang cmake -S . -B build-asan -DLLMROOF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cmake --build build-asan -j "$jobs"
# the two cross-validation guards (and the documents' quote of one) repeat validate's code once per publication (about 160 s each
# under ASan): here validate_in_sample runs that code once; stage 1 runs the guards. docs/planning.md's
# quote of plan reruns code the golden plan cases run here already. cli_golden_inproc runs every
# golden case again in one process (about 140 s of CPU here): each case runs under the sanitizers
# as its own cli_* test, and stage 3 runs that same in-process program under memcheck
# unit_validate's published-rows guard (the same two cross-validations) skips itself there too.
# The golden cases of tests/cli/asan-skip.txt (slow plan searches, covered there by small ones)
# run natively in stage 1 only
asan_skip=$(grep -v '^#' tests/cli/asan-skip.txt | awk 'NF { printf "|cli_%s", $1 }')
(cd build-asan && LLMROOF_SKIP_CV_GUARDS=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs" \
    -E "^(validate_published|validate_serving|validate_fold_isolation|validate_uncertainty_fresh|docs_quote_validation|docs_quote_planning|cli_golden_inproc$asan_skip)\$")
took "stage 2 (clang, ASan/UBSan)"

echo "== 3. valgrind memcheck over the golden CLI cases =="
# memcheck's start-up (about 0.5 s) is most of a small case's cost under it, so the cases run
# in-process (tests/cli/golden_inproc.c, through cli_run as main() calls it), one process per
# core; three cases go through the real executable too, for main() and its closing of stdout
vg="valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=all --errors-for-leak-kinds=all"
pids=
i=0
while [ "$i" -lt "$jobs" ]; do
    LLMROOF_DATA="$PWD/data" LC_ALL=C $vg build/tests/golden_inproc tests/cli/golden --shard "$i/$jobs" \
        --skip-list tests/cli/valgrind-skip.txt >"build/valgrind-$i.log" 2>&1 &
    pids="$pids $!"
    i=$((i + 1))
done
failed=0
for p in $pids; do wait "$p" || failed=1; done
if [ "$failed" != 0 ]; then
    grep -v '^ok \|^skip ' build/valgrind-*.log
    exit 1
fi
tail -q -n 1 build/valgrind-*.log
(cd build && LLMROOF_VALGRIND=1 ctest --output-on-failure -R '^cli_(version|estimate_a40_ops|bad_batch_zero)$')
took "stage 3 (valgrind)"

echo "== 4. static analysis =="
# cppcheck (one thread) runs beside clang-tidy's processes; its status is collected after them
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --inline-suppr \
    --suppress=missingIncludeSystem -I include -I src src &
cppcheck_pid=$!
# clang-tidy reads the clang build's compile commands (stage 2) (with gcc's, clang-analyzer 14 reports
# false va_list findings, and so it does when one process analyses several files: one file per
# process); WarningsAsErrors in .clang-tidy makes any finding a failure
ls src/*/*.c | xargs -P "$jobs" -n 1 clang-tidy --quiet -p build-asan 2>/dev/null
wait "$cppcheck_pid"
took "stage 4 (static analysis)"
echo "== all checks passed =="
