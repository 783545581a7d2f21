#!/bin/sh
# bench/gpu/run.sh's own logic without a GPU: measure.py stood in for by a script that writes the
# files it would (python3 first on PATH), so the kit's exit status and its last line are checked:
# a failed validate exits non-zero and names no calibrated entry (a review of session 64 found
# "calibrated catalog entry: .../gpu.json" printed, exit 0, for a file never written), and a good
# run writes the entry and says so.
#   gpu_kit_run.sh BIN ROOT
set -u
bin=$1 root=$2
export LLMROOF_DATA="$root/data" LC_ALL=C
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir "$T/bin"
cat >"$T/bin/python3" <<'PY'
#!/bin/sh
# measure.py's stand-in: the ops.csv of $KIT_OPS and a steps.csv with its header alone
while [ $# -gt 0 ]; do case "$1" in --out-dir) out=$2; shift ;; esac; shift; done
mkdir -p "$out"
cp "$KIT_OPS" "$out/ops.csv"
printf 'id\n' >"$out/steps.csv"
PY
chmod +x "$T/bin/python3"
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }
hdr='op,tokens,batch,context,dtype,measured_s,model,tp'
printf '%s\nqkv_proj,1,1,0,bf16,65us,llama-3.2-3b,1\n' "$hdr" >"$T/bad.csv"
printf '%s\nqkv_proj,1,1,0,bf16,2.2e-05,llama-3.2-3b,1\nffn,512,1,0,bf16,0.0011,llama-3.2-3b,1\n' "$hdr" >"$T/good.csv"
KIT_OPS=$T/bad.csv PATH="$T/bin:$PATH" LLMROOF=$bin sh "$root/bench/gpu/run.sh" llama-3.2-3b l40s "$T/bad" >"$T/out" 2>"$T/err"
rc=$?
check "a failed validate fails the kit (exit $rc)" '[ $rc -ne 0 ]'
check "and names no calibrated entry" '! grep -q "calibrated catalog entry" "$T/out"'
check "and says why" 'grep -q "validate failed" "$T/err"'
check "and leaves no gpu.json" '[ ! -e "$T/bad/gpu.json" ]'
KIT_OPS=$T/good.csv PATH="$T/bin:$PATH" LLMROOF=$bin sh "$root/bench/gpu/run.sh" llama-3.2-3b l40s "$T/good" >"$T/out" 2>"$T/err"
rc=$?
check "a good run succeeds (exit $rc)" '[ $rc -eq 0 ]'
check "and writes the entry it names" '[ -s "$T/good/gpu.json" ] && grep -q "calibrated catalog entry: $T/good/gpu.json" "$T/out"'
check "which the catalog loads" '"$bin" --gpus-file "$T/good/gpu.json" show gpu l40s >/dev/null'
# a GPU the catalog lacks, named in LLMROOF_GPUS_FILE: every call of the kit reads the file
sed 's/"id":\([[:space:]]*\)"l40s"/"id":\1"my-gpu"/' "$T/good/gpu.json" >"$T/my-gpu.json"
KIT_OPS=$T/good.csv LLMROOF_GPUS_FILE=$T/my-gpu.json PATH="$T/bin:$PATH" LLMROOF=$bin \
    sh "$root/bench/gpu/run.sh" llama-3.2-3b my-gpu "$T/mine" >"$T/out" 2>"$T/err"
rc=$?
check "a GPU from LLMROOF_GPUS_FILE is measured (exit $rc)" '[ $rc -eq 0 ] && grep -q "my-gpu" "$T/mine/gpu.json"'
exit $fail
