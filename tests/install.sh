#!/bin/sh
# install.sh - `cmake --install` into a temporary prefix, then use the installed library the
# three ways docs/api.md shows: a C program built with pkg-config, one built by a CMake project
# through find_package(llmroof CONFIG), and the installed Python package. Each must find the
# installed catalog on its own (LLMROOF_DATA unset) and answer an estimate request; and the
# executables: `llmroof serve` runs the installed llmroof-serve, and only that one links
# libmicrohttpd.
# usage: install.sh BUILD_DIR [CC]
set -eu
build=$1
cc=${2:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
unset LLMROOF_DATA LLMROOF_LIB
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

so=$(find "$prefix" -name 'libllmroof.so.0' | head -n 1)
[ -n "$so" ] || { echo "install.sh: no libllmroof.so.0 under $prefix" >&2; exit 1; }
libdir=$(dirname "$so")
for f in include/llmroof/api.h share/llmroof/gpus.json share/llmroof/python/llmroof/__init__.py; do
    [ -f "$prefix/$f" ] || { echo "install.sh: $f not installed" >&2; exit 1; }
done
# only the stable API is installed: one header, no module internals
headers=$(find "$prefix/include" -type f | sed "s#^$prefix/##" | sort | tr '\n' ' ')
[ "$headers" = "include/llmroof/api.h " ] || { echo "install.sh: installed headers are '$headers', expected only include/llmroof/api.h" >&2; exit 1; }
for f in pkgconfig/llmroof.pc cmake/llmroof/llmroofConfig.cmake cmake/llmroof/llmroofConfigVersion.cmake cmake/llmroof/llmroofTargets.cmake; do
    [ -f "$libdir/$f" ] || { echo "install.sh: $libdir/$f not installed" >&2; exit 1; }
done

cat > "$tmp/app.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <llmroof/api.h>

int main(void)
{
    char *msg = NULL, *resp = NULL;
    llmroof_ctx *ctx = llmroof_ctx_new(NULL, &msg); /* the catalog installed beside the library */
    if (!ctx) {
        fprintf(stderr, "ctx: %s", msg ? msg : "?\n");
        return 1;
    }
    int rc = llmroof_ctx_call(ctx, "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":8}",
                              &resp, &msg);
    int ok = rc == LLMROOF_API_OK && resp && strstr(resp, "\"gpu\":\t\"a100-sxm4-40gb\"");
    printf("llmroof %s (API %d): rc %d, %s\n", llmroof_version(), LLMROOF_API_VERSION, rc, ok ? "estimate ok" : "BAD");
    if (!ok && msg)
        fputs(msg, stderr);
    llmroof_free(resp);
    llmroof_free(msg);
    llmroof_ctx_free(ctx);
    return ok ? 0 : 1;
}
EOF

# 1. pkg-config
# (the prefix's .pc alone: the library needs no other package's, cJSON's being private to it, and a
# "Requires.private: libcjson" had failed where libcjson-dev was not installed)
flags=$(PKG_CONFIG_LIBDIR="$libdir/pkgconfig" PKG_CONFIG_PATH= pkg-config --cflags --libs llmroof)
case "$flags" in *"$prefix"*) ;; *) echo "install.sh: pkg-config flags do not point into the prefix: $flags" >&2; exit 1;; esac
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror "$tmp/app.c" $flags -o "$tmp/app_pc"
LD_LIBRARY_PATH="$libdir" "$tmp/app_pc"
# ... and docs/api.md's first C example, as printed: it compiles and answers what the installed
# CLI prints (it had used msg before declaring it)
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' "$(dirname "$0")/../docs/api.md" >"$tmp/doc.c"
# shellcheck disable=SC2086
$cc -std=c11 -Wall -Wextra -Werror "$tmp/doc.c" $flags -o "$tmp/doc_pc"
LD_LIBRARY_PATH="$libdir" "$tmp/doc_pc" >"$tmp/doc.out"
"$prefix/bin/llmroof" estimate -m llama-2-7b -g a100 -t 1 -b 8 --format json >"$tmp/doc.cli"
cmp -s "$tmp/doc.out" "$tmp/doc.cli" || { echo "install.sh: docs/api.md's C example does not print the CLI's JSON" >&2; exit 1; }

# 2. CMake package
mkdir "$tmp/proj"
cp "$tmp/app.c" "$tmp/proj/app.c"
cat > "$tmp/proj/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(app C)
find_package(llmroof 0.1 CONFIG REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE llmroof::llmroof)
EOF
CC=$cc cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$tmp/proj/build" >/dev/null
"$tmp/proj/build/app"

# 3. the installed Python package finds the installed library
if command -v python3 >/dev/null 2>&1; then
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$prefix/share/llmroof/python" python3 - "$prefix" <<'EOF'
import sys
import llmroof
prefix = sys.argv[1]
assert llmroof.__file__.startswith(prefix), llmroof.__file__
assert llmroof._lib._name.startswith(prefix), llmroof._lib._name
r = llmroof.estimate(model="llama-2-7b", gpu="a100", batch=8)
assert r["gpu"] == "a100-sxm4-40gb" and r["batch"] == 8, r
print("python: llmroof %s from %s, estimate ok" % (llmroof.version(), llmroof._lib._name))
EOF
fi
# 4. the executables: llmroof runs `serve` through llmroof-serve installed beside it, and only
# llmroof-serve links libmicrohttpd (docs/performance.md: it costs every process its start)
for f in bin/llmroof bin/llmroof-serve; do
    [ -x "$prefix/$f" ] || { echo "install.sh: $f not installed" >&2; exit 1; }
done
if command -v readelf >/dev/null 2>&1; then
    for f in "$prefix/bin/llmroof" "$so"; do
        if readelf -d "$f" | grep -q 'libmicrohttpd'; then
            echo "install.sh: $f links libmicrohttpd; only llmroof-serve may" >&2; exit 1
        fi
    done
    readelf -d "$prefix/bin/llmroof-serve" | grep -q 'libmicrohttpd' ||
        { echo "install.sh: bin/llmroof-serve does not link libmicrohttpd" >&2; exit 1; }
fi
"$prefix/bin/llmroof" serve --help | grep -q '^usage: llmroof serve' ||
    { echo "install.sh: the installed 'llmroof serve --help' does not print its usage" >&2; exit 1; }
PATH=/nonexistent "$prefix/bin/llmroof" serve --help >/dev/null ||
    { echo "install.sh: 'llmroof serve' does not find llmroof-serve beside it" >&2; exit 1; }
echo "install.sh: pkg-config, find_package and Python all work from $prefix"
