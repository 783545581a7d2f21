#!/bin/sh
# The H100 entry of data/gpus.json against the kernel constants measured on an H100 SXM5
# (docs/validation/measured/h100-sxm5-80gb/constants.json, bench/gpu/analyze_kernels.py):
#   compute    = GEMM fit (bf16) compute_eff                      0.71
#   memory     = GEMM fit (bf16) bw_Bps / 3350e9 datasheet         2850 / 3350 = 0.851 -> 0.85
#   gemm_8bit  = GEMM fit compute_eff fp8 / bf16                   0.66 / 0.71 = 0.930 -> 0.93
#   kernel_s   = GEMM fit (bf16) t0                                3.0 us
# Skipped (77) where the measured folder or python3 is absent.
src=$1
c="$src/docs/validation/measured/h100-sxm5-80gb/constants.json"
[ -f "$c" ] || { echo "skip: $c not in this tree"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "skip: no python3"; exit 77; }
python3 - "$c" "$src/data/gpus.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
g = {x["id"]: x for x in json.load(open(sys.argv[2]))["gpus"]}["h100-sxm5-80gb"]["efficiency"]
bf, f8 = c["gemm"]["bf16"]["recommended"], c["gemm"]["fp8"]["recommended"]
bw = c["datasheet"]["memory_bandwidth_Bps"]
want = {"compute": bf["compute_eff"], "memory": round(bf["bw_Bps"] / bw, 2),
        "gemm_8bit": round(f8["compute_eff"] / bf["compute_eff"], 2), "kernel_s": bf["t0_us"] * 1e-6}
bad = [k for k, v in want.items() if abs(g.get(k, -1) - v) > 1e-9 * max(1, abs(v))]
for k in bad:
    print("FAIL: h100-sxm5-80gb efficiency.%s = %s, measured constants give %s" % (k, g.get(k), want[k]))
sys.exit(1 if bad else 0)
PY
