#!/bin/sh
# Runs a libFuzzer campaign on one llmroof fuzz target (docs/reliability.md).
#   sh scripts/fuzz.sh TARGET [RUNS] [JOBS]
# TARGET: catalog, hf, parse, baseline, csv, cli, api, server or all; RUNS: executions per target
# (default 5000000). Builds build-fuzz/ with clang (-DLLMROOF_FUZZ=ON: ASan+UBSan+libFuzzer)
# when needed. New interesting inputs go to build-fuzz/corpus/TARGET (not checked in); a
# crash leaves build-fuzz/artifacts/crash-* : fix it, then copy the file into
# tests/fuzz/corpus/TARGET/ so the normal test suite replays it for ever.
set -eu
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET [RUNS]}
runs=${2:-5000000}
if [ "$target" = all ]; then
    for t in catalog hf parse baseline csv cli api server; do sh scripts/fuzz.sh "$t" "$runs"; done
    exit 0
fi
if [ ! -x build-fuzz/tests/fuzz/fuzz_"$target" ]; then
    CC=clang cmake -S . -B build-fuzz -DLLMROOF_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build build-fuzz -j "$(nproc)" --target fuzz_"$target" >/dev/null
mkdir -p build-fuzz/corpus/"$target" build-fuzz/artifacts
dict=
[ -f tests/fuzz/"$target".dict ] && dict=-dict=tests/fuzz/"$target".dict
# -close_fd_mask=3: the CLI target prints an error per bad command line; keep the log readable
# -rss_limit_mb / -timeout: a run over 2 GB or 10 s counts as a finding (bounded memory and time)
exec build-fuzz/tests/fuzz/fuzz_"$target" $dict -runs="$runs" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/ \
    build-fuzz/corpus/"$target" tests/fuzz/corpus/"$target"
