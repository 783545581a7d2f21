#!/bin/sh
# The whole test suite: dependencies, a normal build and an ASan+UBSan build, ctest in both.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$jobs"
cmake -S . -B build-asan -DLLMROOF_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j "$jobs"
echo "== tests (release build) =="
(cd build && ctest --output-on-failure -j "$jobs")
echo "== tests (AddressSanitizer + UndefinedBehaviorSanitizer) =="
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --output-on-failure -j "$jobs")
