#!/bin/sh
# Every JSON document a command prints names its schema first ("schema": "llmroof.<command>/1"),
# the schema is documented in docs/json.md, and the document is valid JSON (python3's parser,
# when python3 is installed). JSON Lines: every row. Catalog documents name llmroof.catalog/1
# and load back through --models-file.
#   json_schema.sh BIN SRC_DIR
set -u
bin=$1 src=$2
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$src" || exit 1
export LLMROOF_DATA="$src/data"
have_py=0
ndoc=0
command -v python3 >/dev/null 2>&1 && have_py=1

# expect SCHEMA EXIT COMMAND...: the command exits EXIT and prints one JSON document whose first
# key is "schema" with the value SCHEMA
expect() {
    schema=$1 want_rc=$2
    shift 2
    "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    first=$(sed -n 2p "$tmp/out" | tr -d '\t')
    if [ "$rc" != "$want_rc" ]; then
        echo "FAIL: llmroof $* exits $rc (expected $want_rc): $(head -c 300 "$tmp/err")"
        fail=1
    elif [ "$(head -c 1 "$tmp/out")" != "{" ] || [ "$first" != "\"schema\":\"$schema\"," ]; then
        echo "FAIL: llmroof $*: the first key is not \"schema\": \"$schema\" (line 2: $first)"
        fail=1
    else
        # validity and documented fields are checked for every document at once, at the end
        ndoc=$((ndoc + 1))
        cp "$tmp/out" "$tmp/doc_$ndoc.json"
        printf '%s\n' "$*" >"$tmp/doc_$ndoc.cmd"
        echo "ok: llmroof $* names $schema"
    fi
    if ! grep -q "\`$schema\`" docs/json.md; then
        echo "FAIL: docs/json.md does not document \`$schema\`"
        fail=1
    fi
}

expect llmroof.list/1 0 list gpus --format json
expect llmroof.list/1 0 list models --format json
expect llmroof.list/1 0 list engines --format json
expect llmroof.show/1 0 show gpu h100 --format json
expect llmroof.show/1 0 show model llama-2-7b --format json
expect llmroof.show/1 0 show model mixtral-8x7b --format json
# every shipped engine profile: show engine prints each field the profile sets (a field added to
# the catalog and not to docs/catalog.md fails here; reserve_bytes and from_tp had)
for e in $("$bin" list engines --format csv | tail -n +2 | cut -d, -f1); do
    expect llmroof.catalog/1 0 show engine "$e" --format json
done
expect llmroof.catalog/1 0 import-hf tests/data/hf/llama-2-7b.json --name my-llama
expect llmroof.estimate/1 0 estimate -m llama-2-7b -g a100 --format json
expect llmroof.estimate/1 0 estimate -m llama-2-7b -g a100 --range --format json
expect llmroof.memory/1 0 memory -m llama-2-7b -g a100 --format json
expect llmroof.report/1 0 report --format json
expect llmroof.roofline/1 0 roofline -m llama-2-7b -g a100 --format json
expect llmroof.simulate/1 0 simulate -m llama-2-7b -g a100 --requests 40 --concurrency 4 --format json
expect llmroof.simulate/1 0 simulate -m llama-2-7b -g a100 --requests 40 --concurrency 4 --ttft-slo 1s --tpot-slo 100ms --format json
expect llmroof.simulate/1 0 simulate -m llama-2-7b -g a100 --requests 40 --concurrency 4 --capacity-band 10 --warmup 4 --format json
expect llmroof.simulate/1 0 simulate -m llama-2-7b -g a100 --requests 40 --rate 2 --fixed-span --format json
expect llmroof.simulate-sweep/1 0 simulate -m llama-2-7b -g a100 --requests 40 --sweep-concurrency 2,4 --format json
expect llmroof.plan/1 0 plan -m llama-2-7b --gpus a100 --tp 1 --users 100 --fast --format json
expect llmroof.validate/1 0 validate tests/data/validation/measurements.csv --format json
expect llmroof.validate/1 0 validate tests/data/validation/measurements.csv --by gpu --format json
expect llmroof.validate-ops/1 0 validate --ops tests/data/ops/sample-synthetic.csv -g h100 --format json
expect llmroof.validate-fit/1 0 validate tests/data/validation/measurements.csv --fit --format json
expect llmroof.calibrate/1 0 calibrate tests/data/validation/measurements.csv -g rtx-4090 --format json
"$bin" sweep --models llama-2-7b --gpus a100 --tp 1,2 --batch 1 --prompt 128 --output 128 --format jsonl >"$tmp/base.jsonl"
expect llmroof.check/1 0 check "$tmp/base.jsonl" --format json
expect llmroof.check/1 1 check tests/data/baseline-drift.jsonl --format json

# every document above is one valid JSON document (python3's parser) whose fields are all
# documented, and so are the golden JSON outputs of other command lines: one python3 process
if [ "$have_py" = 1 ]; then
    if python3 tests/cli/json_fields.py docs "$tmp"/doc_*.json tests/cli/golden/*_json.out >"$tmp/fields"; then
        echo "ok: $ndoc documents and the golden JSON outputs parse and document every field"
    else
        # name the command line beside each failing document
        while IFS= read -r line; do
            f=${line%%: *}
            case $f in
            "$tmp"/doc_*.json) echo "FAIL: llmroof $(cat "${f%.json}.cmd"): ${line#*: }" ;;
            *) echo "FAIL: $(basename "$f"): ${line#*: }" ;;
            esac
        done <"$tmp/fields"
        fail=1
    fi
fi

# sweep's JSON Lines: every row names the schema, and check reads such rows back
n=$(grep -c . "$tmp/base.jsonl")
m=$(grep -c '^{"schema":"llmroof.sweep/1",' "$tmp/base.jsonl")
if [ "$n" -gt 0 ] && [ "$n" = "$m" ]; then echo "ok: every sweep row names llmroof.sweep/1"; else
    echo "FAIL: $m of $n sweep rows name llmroof.sweep/1"; fail=1; fi
grep -q '`llmroof.sweep/1`' docs/json.md || { echo "FAIL: docs/json.md does not document llmroof.sweep/1"; fail=1; }
sed 's/llmroof.sweep\/1/llmroof.sweep\/9/' "$tmp/base.jsonl" >"$tmp/other.jsonl"
"$bin" check "$tmp/other.jsonl" >/dev/null 2>"$tmp/err"
if [ $? = 2 ] && grep -q "schema" "$tmp/err"; then echo "ok: check rejects another schema"; else
    echo "FAIL: check accepts a row of another schema"; fail=1; fi

# check --format json: the verdict and one entry per drifted field
"$bin" check tests/data/baseline-drift.jsonl --format json >"$tmp/drift.json"
if grep -q '"agree":	false' "$tmp/drift.json" && grep -q '"field":	"tpot_s"' "$tmp/drift.json"; then
    echo "ok: check --format json names the drifted field"; else echo "FAIL: check --format json lacks the diff"; fail=1; fi

# a catalog document llmroof writes loads back
"$bin" import-hf tests/data/hf/llama-2-7b.json --name my-llama >"$tmp/my.json"
if "$bin" --models-file "$tmp/my.json" show model my-llama >/dev/null 2>"$tmp/err"; then
    echo "ok: an imported catalog document (with its schema) loads"; else
    echo "FAIL: an imported catalog document does not load: $(cat "$tmp/err")"; fail=1; fi
printf '{"schema": "llmroof.catalog/2", "models": []}\n' >"$tmp/bad.json"
if "$bin" --models-file "$tmp/bad.json" list models >/dev/null 2>&1; then
    echo "FAIL: a catalog file of another schema loads"; fail=1; else echo "ok: a catalog file of another schema is rejected"; fi

exit $fail
