#!/bin/sh
# The whole test suite (docs/reliability.md), as CI runs it on a clean clone:
#   1. gcc build, -Werror, ctest (unit, golden CLI, bad-input matrix, extremes, fuzz
#      corpus replay, baselines, validation guard)
#   2. the same suite under AddressSanitizer + UndefinedBehaviorSanitizer (gcc)
#   3. clang build, -Werror, ctest
#   4. the golden CLI cases under valgrind memcheck: zero errors, zero leaks (the slow cases of
#      tests/cli/valgrind-skip.txt are covered there by small ones; they run in full in 1-3)
#   5. cppcheck and clang-tidy (check set in .clang-tidy): zero findings
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh --test
jobs=$(nproc 2>/dev/null || echo 2)
t0=$(date +%s)
took() { t1=$(date +%s); echo "-- $1: $((t1 - t0)) s"; t0=$t1; }

echo "== 1. gcc build and tests =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
(cd build && ctest --output-on-failure -j "$jobs")
took "stage 1 (gcc)"

echo "== 2. AddressSanitizer + UndefinedBehaviorSanitizer =="
# -O1, as the sanitizers' documentation advises: assertions stay on (Debug defines no NDEBUG)
# and the suite runs about a third faster than at -O0
cmake -S . -B build-asan -DLLMROOF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" >/dev/null
cmake --build build-asan -j "$jobs"
# the two cross-validation guards repeat validate's code once per publication (about 160 s each
# under ASan): here validate_in_sample runs that code once; stages 1 and 3 run the guards
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs" -E '^(validate_published|validate_serving)$')
took "stage 2 (ASan/UBSan)"

echo "== 3. clang build and tests =="
CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cmake --build build-clang -j "$jobs"
(cd build-clang && ctest --output-on-failure -j "$jobs")
took "stage 3 (clang)"

echo "== 4. valgrind memcheck over the golden CLI cases =="
# the golden cases only (label golden): the script tests (bad input, extremes, properties, ...)
# run their commands natively, so here they would only repeat stage 1
(cd build && LLMROOF_VALGRIND=1 ctest --output-on-failure -j "$jobs" -L '^golden$')
took "stage 4 (valgrind)"

echo "== 5. static analysis =="
# cppcheck (one thread) runs beside clang-tidy's processes; its status is collected after them
cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability --inline-suppr \
    --suppress=missingIncludeSystem -I include -I src src &
cppcheck_pid=$!
# clang-tidy reads the clang build's compile commands (with gcc's, clang-analyzer 14 reports
# false va_list findings, and so it does when one process analyses several files: one file per
# process); WarningsAsErrors in .clang-tidy makes any finding a failure
ls src/*/*.c | xargs -P "$jobs" -n 1 clang-tidy --quiet -p build-clang 2>/dev/null
wait "$cppcheck_pid"
took "stage 5 (static analysis)"
echo "== all checks passed =="
