#!/bin/sh
# The layer rules of docs/architecture.md, checked on every #include under src/: a file may
# include its own layer's headers and those of the layers before it in this order, never a
# later one; compute layers (model, serve, fit) open no file and print nothing (snprintf into
# an error message is all they may do with stdio), and only data/ and fit/baseline.c (whose
# rows are their own documents) read JSON below the renderers; only
# include/llmroof/api.h is installed, so no source reaches "llmroof/..." but the API layer.
set -eu
src=${1:-.}/src
order="base data model serve fit render cli api"
# rank LAYER sets r to the layer's place in $order (99: none); a variable, not a command
# substitution, so that the check forks per file, not per #include
rank() { r=99 i=0; for l in $order; do [ "$l" = "$1" ] && { r=$i; return; }; i=$((i+1)); done; }
bad=0
for f in "$src"/*/*.c "$src"/*/*.h; do
    d=${f%/*}
    layer=${d##*/}
    rank "$layer"
    me=$r
    [ "$me" = 99 ] && { echo "layers.sh: $f: folder '$layer' is not a layer of docs/architecture.md" >&2; bad=1; continue; }
    for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        case "$inc" in
        llmroof/api.h) [ "$layer" = api ] || { echo "layers.sh: $f includes the public API header; only src/api/ may" >&2; bad=1; }; continue ;;
        */*) to=${inc%%/*} ;;
        *) echo "layers.sh: $f: #include \"$inc\" names no layer folder (write \"$layer/$inc\")" >&2; bad=1; continue ;;
        esac
        rank "$to"
        them=$r
        if [ "$them" -gt "$me" ]; then
            echo "layers.sh: $f ($layer) includes $inc from the later layer '$to'" >&2; bad=1
        fi
    done
    case "$layer" in model|serve|fit)
        if grep -nE 'fopen|FILE[[:space:]]*\*|(^|[^sn_a-z])printf[[:space:]]*\(|(^|[^a-z_])(puts|exit)[[:space:]]*\(' "$f" >&2; then
            echo "layers.sh: $f: compute layer '$layer' does I/O or exits (lines above)" >&2; bad=1
        fi
        case "$f" in */fit/baseline.c) ;; *)
            if grep -qE '#[[:space:]]*include[[:space:]]*<cjson/cJSON\.h>' "$f"; then
                echo "layers.sh: $f: compute layer '$layer' reads JSON (only src/data/ does)" >&2; bad=1
            fi ;;
        esac ;;
    esac
done
[ "$bad" = 0 ] && echo "layers: every #include under src/ keeps the layer order ($order)"
exit $bad
