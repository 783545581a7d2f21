#!/bin/sh
# streams.sh - the command code writes only through its struct cli: the result to c->out
# (then c->outf), errors and warnings to c->errf. The library API (src/api/api.c) runs the
# same code inside other programs with both streams in memory, so a direct stdout/stderr,
# printf/puts/perror or exit() in src/cli would print into, or end, the host process.
# main.c (the binary) and cli_main's default streams in run.c are the only exceptions.
# usage: streams.sh SOURCE_DIR
bad=""
for f in "$1"/src/cli/*.c; do
    [ "$(basename "$f")" = main.c ] && continue
    # string literals and comment lines removed, then the forbidden names
    hits=$(sed -E 's/"([^"\\]|\\.)*"/""/g' "$f" |
           grep -nE '(^|[^A-Za-z0-9_>.])(stdout|stderr)([^A-Za-z0-9_]|$)|(^|[^A-Za-z0-9_])(printf|puts|putchar|perror|exit)[[:space:]]*\(' |
           grep -vE '^[0-9]+:[[:space:]]*(/\*|\*|//)' |
           grep -vE 'struct cli_io io = \{ stdout, stderr')
    [ -n "$hits" ] && bad="$bad$f: $hits
"
done
if [ -n "$bad" ]; then
    printf '%s\n' "streams.sh: src/cli writes to the process's stdout/stderr (use c->errf, or render into c->out):" >&2
    printf '%s' "$bad" >&2
    exit 1
fi
echo "src/cli writes only through struct cli"
