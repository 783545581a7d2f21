#!/usr/bin/env python3
"""measure_kernels.py - physical constants of one NVIDIA GPU for llmroof's kernel model.

Where bench/gpu/measure.py times one catalog model's operators (and needs the llmroof
binary for the shapes), this script sweeps the kernels that set llmroof's constants, with
the shapes built in, so it runs on a bare GPU machine with PyTorch alone:

  fixed    launch-to-launch cost of an (almost) empty kernel, eager PyTorch, raw CuPy
           launches, a chain of 100 tiny kernels eager vs replayed as one CUDA graph
  copy     device-to-device copy and read-only (sum) bandwidth, 64 MB ... 4 GB
  peak     best bf16 and fp8 matmul (4096^3, 8192^3, 16384^3 and published best shapes)
  gemm     the linear layers of llama-3.1-8b, llama-3.1-70b TP-4 and TP-8 slices,
           Qwen3-32B and the experts of Qwen3-30B-A3B / Qwen3-235B-A22B for M = 1 ... 8192
           tokens (powers of two and 96, 384, 1536, 3072), bf16 (F.linear -> cuBLAS) and fp8
           (torch._scaled_mm, e4m3 operands, per-tensor scales, bf16 out)
  prefill  causal attention (SDPA) 128 ... 16384 tokens, 32 query / 8 KV heads, head_dim 128,
           per backend (default, flash, cudnn, efficient); batch 1 and packed 16k tokens
  decode   one query token per sequence over a KV cache, batch 1 ... 256, context 512 ... 32k,
           GQA group 1, 4, 8 (32 query heads); as rows (group queries as query rows of their
           KV head), with enable_gqa, with expanded K/V; backends default, flash, cudnn
  elem     RMSNorm, residual add, SiLU*mul over tokens x hidden (memory-bound kernels)
  ops      llmroof's per-operator CSV (op,tokens,batch,context,dtype,measured_s,model,tp; see
           `llmroof validate --ops`) for llama-3.1-8b and the TP-8 slice of llama-3.1-70b
  kernels  which kernels SDPA runs (torch.profiler) for representative prefill/decode calls
  steps    whole forward steps of a random-weight HF transformers Llama with llama-3.1-8b
           shapes (bf16): prefill, eager decode and CUDA-graph decode with a static KV cache
  ministeps the same steps from a hand-written llama-3.1-8b forward (fused QKV / gate-up GEMMs,
           SDPA with native GQA, no K/V expansion), bf16 and fp8 weights, eager and CUDA graph

Timing: every kernel is warmed up, then N calls are captured into one CUDA graph and the
graph is replayed R times between CUDA events; the time per call is median(replay) / N, so
Python and launch overhead are excluded (the fixed-cost section measures those). Weights
and KV caches are rotated over enough copies (>= 200 MB) that L2 (50 MB on an H100) cannot
hold them between calls, as in a real model where every layer has its own. Inputs are
random (never zeros). Where capture fails the eager loop is used and the method column says so.

Output: one CSV per section in --out (written and flushed row by row, so a run cut short
keeps what it measured) and env.json (GPU, driver, clocks, power limit, torch, CUDA, date,
nvidia-smi readings before and after each section).

  python3 bench/gpu/measure_kernels.py --out results            # everything (~15 min on an H100)
  python3 bench/gpu/measure_kernels.py --out r --sections gemm,decode
  python3 bench/gpu/measure_kernels.py --out r --quick          # a few sizes per section

The H100 SXM data taken with it and the fitted constants are in
docs/validation/measured/h100-sxm5-80gb/.
"""

import argparse
import csv
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback

import torch
import torch.nn.functional as F

BF16 = torch.bfloat16
FP8 = getattr(torch, "float8_e4m3fn", None)
L2_DEFEAT_BYTES = 200 << 20

# (family, shape name, N = out features, K = in features); one TP rank's slice
GEMMS = [
    ("llama-3.1-8b", "qkv_proj", 6144, 4096),
    ("llama-3.1-8b", "o_proj", 4096, 4096),
    ("llama-3.1-8b", "gate_up", 28672, 4096),
    ("llama-3.1-8b", "down", 4096, 14336),
    ("llama-3.1-8b", "lm_head", 128256, 4096),
    ("llama-3.1-70b-tp4", "qkv_proj", 2560, 8192),
    ("llama-3.1-70b-tp4", "o_proj", 8192, 2048),
    ("llama-3.1-70b-tp4", "gate_up", 14336, 8192),
    ("llama-3.1-70b-tp4", "down", 8192, 7168),
    ("llama-3.1-70b-tp8", "qkv_proj", 1280, 8192),
    ("llama-3.1-70b-tp8", "o_proj", 8192, 1024),
    ("llama-3.1-70b-tp8", "gate_up", 7168, 8192),
    ("llama-3.1-70b-tp8", "down", 8192, 3584),
    ("llama-3.1-70b-tp8", "lm_head", 16032, 8192),
    ("qwen3-32b", "qkv_proj", 10240, 5120),
    ("qwen3-32b", "o_proj", 5120, 8192),
    ("qwen3-32b", "gate_up", 51200, 5120),
    ("qwen3-32b", "down", 5120, 25600),
    ("qwen3-30b-a3b-expert", "gate_up", 1536, 2048),
    ("qwen3-30b-a3b-expert", "down", 2048, 768),
    ("qwen3-235b-a22b-expert", "gate_up", 3072, 4096),
    ("qwen3-235b-a22b-expert", "down", 4096, 1536),
]
GEMM_M = [1, 2, 4, 8, 16, 32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096,
          6144, 8192]

# one rank's layer, as llmroof's ops_shard computes it (for the ops section)
OPS_MODELS = {
    "llama-3.1-8b": dict(tp=1, hidden=4096, heads=32, kv=8, hd=128, inter=14336, vocab=128256),
    "llama-3.1-70b": dict(tp=8, hidden=8192, heads=8, kv=1, hd=128, inter=3584, vocab=16032),
}


def log(*a):
    print(*a, flush=True)


class Out:
    """A CSV written and flushed row by row."""

    def __init__(self, path, columns):
        self.columns = columns
        self.f = open(path, "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=columns, lineterminator="\n", extrasaction="ignore")
        self.w.writeheader()
        self.f.flush()

    def row(self, **kv):
        for k, v in kv.items():
            if isinstance(v, float):
                kv[k] = "%.6g" % v
        self.w.writerow(kv)
        self.f.flush()


def ev():
    return torch.cuda.Event(enable_timing=True)


def time_calls(call, target_s=4e-3, reps=10, min_inner=1, max_inner=64, graph=True):
    """Seconds per call(i): median over `reps` replays of a CUDA graph of `inner` calls.
    Returns (seconds, method)."""
    for i in range(3):
        call(i)
    torch.cuda.synchronize()
    e0, e1 = ev(), ev()
    e0.record()
    call(0)
    e1.record()
    e1.synchronize()
    est = max(e0.elapsed_time(e1) / 1e3, 2e-6)
    inner = int(max(min_inner, min(max_inner, target_s / est)))
    if graph:
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for i in range(2):
                    call(i)
            torch.cuda.current_stream().wait_stream(s)
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for i in range(inner):
                    call(i)
            g.replay()
            torch.cuda.synchronize()
            ts = []
            for _ in range(reps):
                e0.record()
                g.replay()
                e1.record()
                e1.synchronize()
                ts.append(e0.elapsed_time(e1) / 1e3 / inner)
            del g
            return statistics.median(ts), "graph%d" % inner
        except Exception as e:  # fall back to the eager loop
            log("  graph capture failed (%s): eager" % str(e).split("\n")[0][:120])
            torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0.record()
        for i in range(inner):
            call(i)
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) / 1e3 / inner)
    return statistics.median(ts), "eager%d" % inner


def t_events(fn, reps=10, warm=2):
    """Median seconds of fn() between CUDA events, eager (launch costs included)."""
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    e0, e1 = ev(), ev()
    ts = []
    for _ in range(reps):
        e0.record()
        fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) / 1e3)
    return statistics.median(ts)


def copies_for(nbytes, cap=64):
    return int(max(1, min(cap, math.ceil(L2_DEFEAT_BYTES / max(nbytes, 1)))))


def smi():
    keys = ("name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,"
            "power.default_limit,power.max_limit,power.draw,temperature.gpu,clocks_throttle_reasons.active,"
            "pstate,persistence_mode,compute_mode,mig.mode.current,ecc.mode.current")
    try:
        q = subprocess.run(["nvidia-smi", "--query-gpu=" + keys, "--format=csv,noheader"], capture_output=True,
                           text=True, timeout=20)
        vals = [v.strip() for v in q.stdout.strip().split("\n")[0].split(",")]
        return dict(zip(keys.split(","), vals), time=time.strftime("%H:%M:%S"))
    except Exception as e:
        return {"error": str(e)}


# ---------------------------------------------------------------- fixed costs
def sec_fixed(out, args):
    o = Out(os.path.join(out, "fixed.csv"), ["what", "method", "n", "measured_s", "per_item_us", "notes"])
    x = torch.zeros(1, device="cuda")
    x.normal_()
    n = 2000
    torch.cuda.synchronize()
    e0, e1 = ev(), ev()

    def eager(fn, label, note):
        for _ in range(100):
            fn()
        torch.cuda.synchronize()
        ts, walls = [], []
        for _ in range(5):
            w0 = time.perf_counter()
            e0.record()
            for _ in range(n):
                fn()
            e1.record()
            w1 = time.perf_counter()
            e1.synchronize()
            ts.append(e0.elapsed_time(e1) / 1e3)
            walls.append(w1 - w0)
        t = statistics.median(ts)
        o.row(what=label, method="eager", n=n, measured_s=t, per_item_us=t / n * 1e6, notes=note)
        w = statistics.median(walls)
        o.row(what=label, method="eager-cpu-enqueue", n=n, measured_s=w, per_item_us=w / n * 1e6,
              notes="host time to enqueue (no sync)")
        log("  %-28s eager %.2f us/launch (cpu enqueue %.2f us)" % (label, t / n * 1e6, w / n * 1e6))

    eager(lambda: torch.cuda._sleep(0), "empty_kernel(_sleep0)", "torch.cuda._sleep(0): spin kernel of 0 cycles")
    eager(lambda: x.add_(1.0), "tiny_add(1 elem)", "x.add_(1) on one float")
    # raw driver launches (CuPy RawKernel): the floor without PyTorch's dispatcher
    try:
        import cupy as cp
        k = cp.RawKernel(r'extern "C" __global__ void empty() {}', "empty")
        st = cp.cuda.Stream(non_blocking=True)
        with st:
            for _ in range(100):
                k((1,), (32,), ())
            st.synchronize()
            c0, c1 = cp.cuda.Event(), cp.cuda.Event()
            ts, walls = [], []
            for _ in range(5):
                w0 = time.perf_counter()
                c0.record(st)
                for _ in range(n):
                    k((1,), (32,), ())
                c1.record(st)
                w1 = time.perf_counter()
                c1.synchronize()
                ts.append(cp.cuda.get_elapsed_time(c0, c1) / 1e3)
                walls.append(w1 - w0)
        t, w = statistics.median(ts), statistics.median(walls)
        o.row(what="empty_kernel(cupy raw)", method="eager", n=n, measured_s=t, per_item_us=t / n * 1e6,
              notes="cupy RawKernel empty<<<1,32>>>")
        o.row(what="empty_kernel(cupy raw)", method="eager-cpu-enqueue", n=n, measured_s=w, per_item_us=w / n * 1e6,
              notes="host time to enqueue")
        log("  cupy empty kernel %.2f us/launch (enqueue %.2f)" % (t / n * 1e6, w / n * 1e6))
        # round trip: launch + synchronize
        rt = []
        for _ in range(200):
            w0 = time.perf_counter()
            k((1,), (32,), ())
            cp.cuda.Device().synchronize()
            rt.append(time.perf_counter() - w0)
        t = statistics.median(rt)
        o.row(what="empty_kernel(cupy raw)", method="launch+sync-roundtrip", n=1, measured_s=t, per_item_us=t * 1e6,
              notes="wall clock")
    except Exception as e:
        log("  cupy: %s" % e)
    # sync round trip in torch
    rt = []
    for _ in range(200):
        w0 = time.perf_counter()
        x.add_(1.0)
        torch.cuda.synchronize()
        rt.append(time.perf_counter() - w0)
    t = statistics.median(rt)
    o.row(what="tiny_add(1 elem)", method="launch+sync-roundtrip", n=1, measured_s=t, per_item_us=t * 1e6,
          notes="wall clock")
    # chains eager vs CUDA graph
    for what, fn in (("tiny_add(1 elem)", lambda: x.add_(1.0)), ("empty_kernel(_sleep0)", lambda: torch.cuda._sleep(0)),
                     ("add(1M elem)", None)):
        if fn is None:
            y = torch.randn(1 << 20, device="cuda")
            fn = lambda: y.add_(1.0)  # noqa: E731
        for chain in (1, 10, 100, 1000):
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                fn()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(chain):
                    fn()
            for _ in range(5):
                g.replay()
            torch.cuda.synchronize()
            ts, tse, walls = [], [], []
            for _ in range(20):
                e0.record()
                g.replay()
                e1.record()
                e1.synchronize()
                ts.append(e0.elapsed_time(e1) / 1e3)
                e0.record()
                for _ in range(chain):
                    fn()
                e1.record()
                e1.synchronize()
                tse.append(e0.elapsed_time(e1) / 1e3)
                w0 = time.perf_counter()
                g.replay()
                torch.cuda.synchronize()
                walls.append(time.perf_counter() - w0)
            t, te, w = statistics.median(ts), statistics.median(tse), statistics.median(walls)
            o.row(what=what, method="graph-chain", n=chain, measured_s=t, per_item_us=t / chain * 1e6,
                  notes="one graph of n kernels, events around replay")
            o.row(what=what, method="eager-chain", n=chain, measured_s=te, per_item_us=te / chain * 1e6,
                  notes="n eager launches, events around")
            o.row(what=what, method="graph-chain-wall", n=chain, measured_s=w, per_item_us=w / chain * 1e6,
                  notes="wall clock replay + synchronize")
            log("  %-22s chain %4d: graph %.2f us/kernel, eager %.2f us/kernel" % (what, chain, t / chain * 1e6,
                                                                                 te / chain * 1e6))
            del g


# ---------------------------------------------------------------- copy / bandwidth
def sec_copy(out, args):
    o = Out(os.path.join(out, "copy.csv"), ["what", "bytes_each", "measured_s", "bytes_moved", "GBps"])
    sizes = [64 << 20, 256 << 20, 1 << 30, 4 << 30] if not args.quick else [256 << 20, 1 << 30]
    for nb in sizes:
        a = torch.randn(nb // 2, device="cuda", dtype=BF16)
        b = torch.empty_like(a)
        t, _ = time_calls(lambda i: b.copy_(a), target_s=20e-3, graph=False, reps=20)
        o.row(what="d2d_copy", bytes_each=nb, measured_s=t, bytes_moved=2 * nb, GBps=2 * nb / t / 1e9)
        log("  copy %5d MB: %.0f GB/s (read+write)" % (nb >> 20, 2 * nb / t / 1e9))
        t, _ = time_calls(lambda i: a.sum(), target_s=20e-3, graph=False, reps=20)
        o.row(what="read_sum", bytes_each=nb, measured_s=t, bytes_moved=nb, GBps=nb / t / 1e9)
        log("  sum  %5d MB: %.0f GB/s (read)" % (nb >> 20, nb / t / 1e9))
        del a, b
    torch.cuda.empty_cache()


# ---------------------------------------------------------------- GEMM
def fp8_quant(t):
    return (t * 1.0).to(FP8)


def gemm_call(dtype, M, N, K, weights_bytes=None):
    """A call(i) running an M x N x K GEMM on weight copy i, and the number of copies."""
    if dtype == "bf16":
        nb = N * K * 2
        nc = copies_for(nb)
        ws = [torch.randn(N, K, device="cuda", dtype=BF16) * 0.02 for _ in range(nc)]
        x = torch.randn(M, K, device="cuda", dtype=BF16)
        return (lambda i: F.linear(x, ws[i % nc])), nc, ws
    nb = N * K
    nc = copies_for(nb)
    ws = [fp8_quant(torch.randn(N, K, device="cuda", dtype=BF16) * 0.02).t() for _ in range(nc)]  # K x N col-major
    x = fp8_quant(torch.randn(M, K, device="cuda", dtype=BF16))
    sa = torch.ones((), device="cuda", dtype=torch.float32) * 0.5
    sb = torch.ones((), device="cuda", dtype=torch.float32) * 0.25
    return (lambda i: torch._scaled_mm(x, ws[i % nc], scale_a=sa, scale_b=sb, out_dtype=BF16)), nc, ws


PEAK = {"bf16": 989.4e12, "fp8": 1978.9e12}


def sec_gemm(out, args):
    o = Out(os.path.join(out, "gemm.csv"), ["family", "shape", "dtype", "M", "N", "K", "measured_s", "tflops",
                                            "eff_dense_peak", "weight_GBps", "io_GBps", "method"])
    ms = GEMM_M if not args.quick else [1, 16, 128, 1024, 4096]
    gemms = GEMMS if not args.quick else GEMMS[:2] + GEMMS[-2:]
    for dtype in ("bf16", "fp8"):
        if dtype == "fp8" and FP8 is None:
            continue
        for fam, shape, N, K in gemms:
            wb = N * K * (2 if dtype == "bf16" else 1)
            for M in ms:
                try:
                    call, nc, keep = gemm_call(dtype, M, N, K)
                    t, meth = time_calls(call, min_inner=nc)
                except Exception as e:
                    log("  gemm %s %s %s M=%d failed: %s" % (dtype, fam, shape, M, str(e).split("\n")[0][:150]))
                    continue
                fl = 2.0 * M * N * K
                ab = M * K * (2 if dtype == "bf16" else 1) + M * N * 2
                o.row(family=fam, shape=shape, dtype=dtype, M=M, N=N, K=K, measured_s=t, tflops=fl / t / 1e12,
                      eff_dense_peak=fl / t / PEAK[dtype], weight_GBps=wb / t / 1e9, io_GBps=(wb + ab) / t / 1e9,
                      method=meth)
                del call, keep
            log("  gemm %s %-22s %-8s done (last M: %.1f TFLOPS)" % (dtype, fam, shape, fl / t / 1e12))
            torch.cuda.empty_cache()


def sec_peak(out, args):
    o = Out(os.path.join(out, "peak.csv"), ["dtype", "M", "N", "K", "measured_s", "tflops", "eff_dense_peak", "data"])
    shapes = [(4096, 4096, 4096), (8192, 8192, 8192), (16384, 16384, 16384), (2048, 2048, 13312),
              (1024, 9216, 14336), (8192, 8192, 16384), (4096, 14336, 8192)]
    if args.quick:
        shapes = shapes[1:2]
    for dtype in ("bf16", "fp8"):
        for M, N, K in shapes:
            for data in ("randn",) + (("zeros",) if (M, N, K) == (8192, 8192, 8192) else ()):
                call, nc, keep = gemm_call(dtype, M, N, K)
                if data == "zeros":
                    try:
                        for w in keep:
                            w.zero_()
                    except Exception as e:
                        log("  zeros: %s" % e)
                        continue
                t, meth = time_calls(call, target_s=20e-3, min_inner=min(nc, 4), reps=20)
                fl = 2.0 * M * N * K
                o.row(dtype=dtype, M=M, N=N, K=K, measured_s=t, tflops=fl / t / 1e12,
                      eff_dense_peak=fl / t / PEAK[dtype], data=data)
                log("  peak %s %dx%dx%d %s: %.0f TFLOPS" % (dtype, M, N, K, data, fl / t / 1e12))
                del call, keep
    torch.cuda.empty_cache()


# ---------------------------------------------------------------- attention
try:
    from torch.nn.attention import SDPBackend, sdpa_kernel
    BACKENDS = {"flash": SDPBackend.FLASH_ATTENTION, "efficient": SDPBackend.EFFICIENT_ATTENTION,
                "cudnn": SDPBackend.CUDNN_ATTENTION}
except Exception:  # old torch
    BACKENDS, sdpa_kernel = {}, None


def with_backend(name, fn):
    if name == "default":
        return fn
    be = BACKENDS[name]

    def f(i):
        with sdpa_kernel([be]):
            return fn(i)
    return f


def sec_prefill(out, args):
    o = Out(os.path.join(out, "attention_prefill.csv"),
            ["backend", "gqa", "batch", "seq", "q_heads", "kv_heads", "head_dim", "measured_s", "flops_causal",
             "tflops", "eff_dense_peak", "method"])
    Hq, Hk, d = 32, 8, 128
    lens = [128, 256, 512, 1024, 2048, 4096, 8192, 16384] if not args.quick else [512, 4096]
    for L in lens:
        for B in sorted({1, max(1, 16384 // L)}):
            q = torch.randn(B, Hq, L, d, device="cuda", dtype=BF16)
            k = torch.randn(B, Hk, L, d, device="cuda", dtype=BF16)
            v = torch.randn(B, Hk, L, d, device="cuda", dtype=BF16)
            ke, ve = k.repeat_interleave(Hq // Hk, 1), v.repeat_interleave(Hq // Hk, 1)
            fl = 4.0 * B * Hq * L * L * d / 2  # causal: half of QK^T and PV
            for be in ["default"] + list(BACKENDS):
                for gqa in ("enable_gqa", "expanded"):
                    if gqa == "enable_gqa":
                        fn = lambda i: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)  # noqa
                    else:
                        fn = lambda i: F.scaled_dot_product_attention(q, ke, ve, is_causal=True)  # noqa
                    try:
                        t, meth = time_calls(with_backend(be, fn))
                    except Exception as e:
                        log("  prefill %s %s L=%d B=%d: %s" % (be, gqa, L, B, str(e).split("\n")[0][:100]))
                        continue
                    o.row(backend=be, gqa=gqa, batch=B, seq=L, q_heads=Hq, kv_heads=Hk, head_dim=d, measured_s=t,
                          flops_causal=fl, tflops=fl / t / 1e12, eff_dense_peak=fl / t / PEAK["bf16"], method=meth)
            log("  prefill L=%5d B=%2d done" % (L, B))
            del q, k, v, ke, ve
    torch.cuda.empty_cache()


def sec_decode(out, args):
    o = Out(os.path.join(out, "attention_decode.csv"),
            ["form", "backend", "batch", "context", "q_heads", "kv_heads", "group", "head_dim", "measured_s",
             "kv_bytes", "GBps", "method"])
    Hq, d = 32, 128
    batches = [1, 2, 4, 8, 16, 32, 64, 128, 256] if not args.quick else [1, 64]
    ctxs = [512, 1024, 2048, 4096, 8192, 16384, 32768] if not args.quick else [2048]
    cap = 18 << 30
    for g in (1, 4, 8):
        Hk = Hq // g
        for B in batches:
            for C in ctxs:
                kvb = B * Hk * C * d * 2 * 2
                if kvb > cap:
                    continue
                nc = copies_for(kvb)
                ks = [torch.randn(B, Hk, C, d, device="cuda", dtype=BF16) for _ in range(nc)]
                vs = [torch.randn(B, Hk, C, d, device="cuda", dtype=BF16) for _ in range(nc)]
                qr = torch.randn(B, Hk, g, d, device="cuda", dtype=BF16)
                q1 = torch.randn(B, Hq, 1, d, device="cuda", dtype=BF16)
                forms = {
                    "rows": lambda i: F.scaled_dot_product_attention(qr, ks[i % nc], vs[i % nc]),
                    "enable_gqa": lambda i: F.scaled_dot_product_attention(q1, ks[i % nc], vs[i % nc],
                                                                           enable_gqa=(g > 1)),
                }
                ke = ve = None
                if g > 1 and kvb * g * nc <= cap // 2:
                    ke = [k.repeat_interleave(g, 1) for k in ks]
                    ve = [v.repeat_interleave(g, 1) for v in vs]
                    forms["expanded"] = lambda i: F.scaled_dot_product_attention(q1, ke[i % nc], ve[i % nc])
                for form, fn in forms.items():
                    for be in ["default", "flash", "cudnn"]:  # efficient: 3-4x slower at decode (quick run)
                        if form == "expanded" and be != "default" or be not in BACKENDS and be != "default":
                            continue
                        try:
                            t, meth = time_calls(with_backend(be, fn), min_inner=nc)
                        except Exception as e:
                            log("  decode %s %s g=%d B=%d C=%d: %s" % (form, be, g, B, C,
                                                                       str(e).split("\n")[0][:100]))
                            continue
                        bytes_read = kvb * (g if form == "expanded" else 1)
                        o.row(form=form, backend=be, batch=B, context=C, q_heads=Hq, kv_heads=Hk, group=g, head_dim=d,
                              measured_s=t, kv_bytes=bytes_read, GBps=bytes_read / t / 1e9, method=meth)
                del ks, vs, ke, ve, forms
                torch.cuda.empty_cache()
            log("  decode g=%d B=%d done" % (g, B))


# ---------------------------------------------------------------- elementwise
def sec_elem(out, args):
    o = Out(os.path.join(out, "elementwise.csv"), ["kernel", "tokens", "hidden", "measured_s", "bytes", "GBps",
                                                   "method"])
    toks = [1, 16, 128, 1024, 4096, 16384] if not args.quick else [16, 4096]
    for h in (4096, 8192):
        for T in toks:
            nbase = T * h * 2
            nc = copies_for(3 * nbase, cap=32)
            xs = [torch.randn(T, h, device="cuda", dtype=BF16) for _ in range(nc)]
            ys = [torch.randn(T, h, device="cuda", dtype=BF16) for _ in range(nc)]
            w = torch.randn(h, device="cuda", dtype=BF16)
            I = int(h * 3.5)
            nc2 = copies_for(3 * T * I * 2, cap=32)
            gu = [torch.randn(T, 2 * I, device="cuda", dtype=BF16) for _ in range(nc2)]

            def silu_mul(i):
                a, b = gu[i % nc2].chunk(2, dim=-1)
                return F.silu(a) * b

            def rms_manual(i):
                x = xs[i % nc]
                return (x.float() * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-5)).to(BF16) * w

            kern = {
                "rms_norm": (lambda i: F.rms_norm(xs[i % nc], (h,), w, 1e-5), 2 * nbase),
                "rms_norm_hf_eager": (rms_manual, 2 * nbase),
                "residual_add": (lambda i: xs[i % nc] + ys[i % nc], 3 * nbase),
                "silu_mul": (silu_mul, 3 * T * I * 2),
            }
            for name, (fn, nb) in kern.items():
                try:
                    t, meth = time_calls(fn, min_inner=nc)
                except Exception as e:
                    log("  elem %s: %s" % (name, e))
                    continue
                o.row(kernel=name, tokens=T, hidden=h, measured_s=t, bytes=nb, GBps=nb / t / 1e9, method=meth)
            del xs, ys, gu
        log("  elementwise h=%d done" % h)
    torch.cuda.empty_cache()


# ---------------------------------------------------------------- llmroof ops.csv
def sec_ops(out, args):
    o = Out(os.path.join(out, "ops.csv"), ["op", "tokens", "batch", "context", "dtype", "measured_s", "model", "tp"])
    toks = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192] if not args.quick else [1, 1024]
    for mid, s in OPS_MODELS.items():
        h, d, H, Hk, I, V = s["hidden"], s["hd"], s["heads"], s["kv"], s["inter"], s["vocab"]
        for dtype in ("bf16", "fp8"):
            def add(op, T, B, C, t):
                o.row(op=op, tokens=T, batch=B, context=C, dtype=dtype, measured_s="%.6g" % t, model=mid, tp=s["tp"])

            for T in toks:
                c_qkv, n1, k1 = gemm_call(dtype, T, (H + 2 * Hk) * d, h)
                c_o, n2, k2 = gemm_call(dtype, T, h, H * d)
                c_head, n3, k3 = gemm_call(dtype, T, V, h)
                add("qkv_proj", T, 1, 0, time_calls(c_qkv, min_inner=n1)[0])
                add("o_proj", T, 1, 0, time_calls(c_o, min_inner=n2)[0])
                add("lm_head", T, T, 0, time_calls(c_head, min_inner=n3)[0])
                del c_qkv, c_o, c_head, k1, k2, k3
                # ffn = gate/up GEMM, SiLU * up, down GEMM (fp8: the activation is re-quantised)
                cu, nu, ku = gemm_call(dtype, T, 2 * I, h)
                nd = copies_for(h * I * (2 if dtype == "bf16" else 1))
                if dtype == "bf16":
                    wd = [torch.randn(h, I, device="cuda", dtype=BF16) * 0.02 for _ in range(nd)]

                    def ffn(i):
                        a, b = cu(i).chunk(2, dim=-1)
                        return F.linear(F.silu(a) * b, wd[i % nd])
                else:
                    wd = [fp8_quant(torch.randn(h, I, device="cuda", dtype=BF16) * 0.02).t() for _ in range(nd)]
                    one = torch.ones((), device="cuda", dtype=torch.float32)

                    def ffn(i):
                        a, b = cu(i).chunk(2, dim=-1)
                        act = (F.silu(a) * b).to(FP8)
                        return torch._scaled_mm(act, wd[i % nd], scale_a=one, scale_b=one, out_dtype=BF16)
                add("ffn", T, 1, 0, time_calls(ffn, min_inner=max(nu, nd))[0])
                del cu, ku, wd, ffn
                if dtype == "bf16":
                    nn = copies_for(T * h * 4, cap=32)
                    xs = [torch.randn(T, h, device="cuda", dtype=BF16) for _ in range(nn)]
                    w = torch.randn(h, device="cuda", dtype=BF16)
                    add("norm", T, 1, 0, time_calls(lambda i: F.rms_norm(xs[i % nn], (h,), w, 1e-5), min_inner=nn)[0])
                    del xs
                torch.cuda.empty_cache()
            if dtype != "bf16":
                continue
            for L in [128, 512, 1024, 2048, 4096, 8192] if not args.quick else [1024]:
                q = torch.randn(1, H, L, d, device="cuda", dtype=BF16)
                k = torch.randn(1, Hk, L, d, device="cuda", dtype=BF16)
                v = torch.randn(1, Hk, L, d, device="cuda", dtype=BF16)
                add("attention", L, 1, 0, time_calls(
                    lambda i: F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=H != Hk))[0])
            g = H // Hk
            for B in [1, 8, 32, 128] if not args.quick else [8]:
                for C in [512, 2048, 8192, 32768] if not args.quick else [2048]:
                    kvb = B * Hk * C * d * 4
                    if kvb > 16 << 30:
                        continue
                    nc = copies_for(kvb)
                    ks = [torch.randn(B, Hk, C, d, device="cuda", dtype=BF16) for _ in range(nc)]
                    vs = [torch.randn(B, Hk, C, d, device="cuda", dtype=BF16) for _ in range(nc)]
                    # native GQA (enable_gqa): what an engine's decode kernel does. The "rows" form of
                    # measure.py (group queries as rows of their KV head) makes SDPA's default (cuDNN)
                    # kernel 3-10x slower at small batch (attention_decode.csv)
                    q1 = torch.randn(B, H, 1, d, device="cuda", dtype=BF16)
                    add("attention", B, B, C, time_calls(
                        lambda i: F.scaled_dot_product_attention(q1, ks[i % nc], vs[i % nc], enable_gqa=g > 1),
                        min_inner=nc)[0])
                    del ks, vs
                    torch.cuda.empty_cache()
        log("  ops %s done" % mid)


# ---------------------------------------------------------------- which kernels SDPA runs
def sec_kernels(out, args):
    from torch.profiler import ProfilerActivity, profile
    res = []
    Hq, d = 32, 128

    def names(fn):
        fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            fn()
            torch.cuda.synchronize()
        return sorted({e.name for e in p.events() if "CUDA" in str(getattr(e, "device_type", ""))})[:8]

    q = torch.randn(1, Hq, 4096, d, device="cuda", dtype=BF16)
    k = torch.randn(1, 8, 4096, d, device="cuda", dtype=BF16)
    for be in ["default"] + list(BACKENDS):
        try:
            fn = with_backend(be, lambda i: F.scaled_dot_product_attention(q, k, k, is_causal=True, enable_gqa=True))
            res.append({"case": "prefill L=4096 gqa 32/8 enable_gqa", "backend": be, "kernels": names(lambda: fn(0))})
        except Exception as e:
            res.append({"case": "prefill L=4096 gqa 32/8 enable_gqa", "backend": be, "error": str(e)[:200]})
    kk = torch.randn(16, 8, 4096, d, device="cuda", dtype=BF16)
    qr = torch.randn(16, 8, 4, d, device="cuda", dtype=BF16)
    q1 = torch.randn(16, Hq, 1, d, device="cuda", dtype=BF16)
    ke = kk.repeat_interleave(4, 1)
    cases = {"decode B=16 C=4096 g=4 rows": lambda i: F.scaled_dot_product_attention(qr, kk, kk),
             "decode B=16 C=4096 g=4 enable_gqa": lambda i: F.scaled_dot_product_attention(q1, kk, kk, enable_gqa=True),
             "decode B=16 C=4096 g=4 expanded": lambda i: F.scaled_dot_product_attention(q1, ke, ke)}
    for case, f in cases.items():
        for be in ["default"] + list(BACKENDS):
            try:
                fn = with_backend(be, f)
                res.append({"case": case, "backend": be, "kernels": names(lambda: fn(0))})
            except Exception as e:
                res.append({"case": case, "backend": be, "error": str(e).split("\n")[0][:200]})
    x = torch.randn(64, 4096, device="cuda", dtype=BF16)
    w = torch.randn(4096, 4096, device="cuda", dtype=BF16)
    res.append({"case": "F.linear bf16 M=64 4096x4096", "backend": "cublas", "kernels": names(lambda: F.linear(x, w))})
    c, _, keep = gemm_call("fp8", 64, 4096, 4096)
    res.append({"case": "_scaled_mm fp8 M=64 4096x4096", "backend": "cublaslt", "kernels": names(lambda: c(0))})
    c, _, keep = gemm_call("fp8", 4096, 4096, 4096)
    res.append({"case": "_scaled_mm fp8 M=4096 4096x4096", "backend": "cublaslt", "kernels": names(lambda: c(0))})
    with open(os.path.join(out, "kernels.json"), "w") as f:
        json.dump(res, f, indent=1)
    for r in res:
        log("  %s [%s]: %s" % (r["case"], r["backend"], r.get("kernels", r.get("error"))))


# ---------------------------------------------------------------- whole steps (HF transformers)
def sec_steps(out, args):
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM
    o = Out(os.path.join(out, "steps.csv"), ["model", "layers", "phase", "mode", "batch", "prompt_or_context",
                                             "measured_s", "scaled_to_full_s", "notes"])
    full_layers = 32
    layers = args.step_layers or full_layers
    cfg = LlamaConfig(hidden_size=4096, intermediate_size=14336, num_hidden_layers=layers, num_attention_heads=32,
                      num_key_value_heads=8, head_dim=128, vocab_size=128256, max_position_embeddings=131072,
                      rope_theta=500000.0, tie_word_embeddings=False)
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:
        pass
    torch.manual_seed(0)
    old = torch.get_default_dtype()
    torch.set_default_dtype(BF16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    torch.set_default_dtype(old)
    model.eval()
    scale = full_layers / layers
    note = "HF transformers %s, random weights, llama-3.1-8b shapes (default rope), sdpa" % transformers.__version__
    log("  model built: %.2f GB" % (sum(p.numel() for p in model.parameters()) * 2 / 1e9))

    prompts = [128, 512, 1024, 2048, 4096, 8192] if not args.quick else [512]
    with torch.inference_mode():
        for B, P in [(1, p) for p in prompts] + ([(4, 1024), (16, 512), (8, 2048)] if not args.quick else []):
            ids = torch.randint(0, cfg.vocab_size, (B, P), device="cuda")
            try:
                t = t_events(lambda: model(ids, use_cache=False, logits_to_keep=1), reps=5)
            except TypeError:
                t = t_events(lambda: model(ids, use_cache=False), reps=5)
            o.row(model="llama-3.1-8b", layers=layers, phase="prefill", mode="eager", batch=B, prompt_or_context=P,
                  measured_s=t, scaled_to_full_s=t * scale, notes=note + "; logits of the last token only")
            log("  prefill B=%d P=%d: %.2f ms" % (B, P, t * scale * 1e3))
        torch.cuda.empty_cache()

        from transformers import StaticCache
        combos = []
        for C in ([512, 2048, 8192] if not args.quick else [1024]):
            for B in ([1, 4, 16, 64, 128, 256] if not args.quick else [1, 16]):
                if B * C <= (args.max_step_tokens if not args.quick else 65536):
                    combos.append((B, C))
        for B, C in combos:
            try:
                try:
                    cache = StaticCache(config=cfg, max_cache_len=C)
                except TypeError:
                    cache = StaticCache(config=cfg, max_batch_size=B, max_cache_len=C, device="cuda", dtype=BF16)
                ids = torch.randint(0, cfg.vocab_size, (B, 1), device="cuda")
                pos = torch.full((B, 1), C - 1, device="cuda", dtype=torch.long)
                cp_ = torch.tensor([C - 1], device="cuda", dtype=torch.long)

                def step():
                    return model(ids, past_key_values=cache, cache_position=cp_, position_ids=pos, use_cache=True,
                                 logits_to_keep=1)
                step()
                for lay in getattr(cache, "layers", []):
                    for tname in ("keys", "values"):
                        tt = getattr(lay, tname, None)
                        if tt is not None:
                            tt.normal_()
                te = t_events(step)
                o.row(model="llama-3.1-8b", layers=layers, phase="decode", mode="eager", batch=B, prompt_or_context=C,
                      measured_s=te, scaled_to_full_s=te * scale, notes=note + "; StaticCache (attends over C)")
                tg = float("nan")
                try:
                    s = torch.cuda.Stream()
                    s.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(s):
                        for _ in range(2):
                            step()
                    torch.cuda.current_stream().wait_stream(s)
                    g = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(g):
                        step()
                    tg = t_events(lambda: g.replay(), reps=15)
                    o.row(model="llama-3.1-8b", layers=layers, phase="decode", mode="cudagraph", batch=B,
                          prompt_or_context=C, measured_s=tg, scaled_to_full_s=tg * scale,
                          notes=note + "; StaticCache; one torch.cuda.graph of the whole forward")
                    del g
                except Exception as e:
                    log("  graph decode B=%d C=%d failed: %s" % (B, C, str(e).split("\n")[0][:200]))
                log("  decode B=%3d C=%5d: eager %.2f ms, graph %.2f ms" % (B, C, te * scale * 1e3, tg * scale * 1e3))
                del cache
            except torch.cuda.OutOfMemoryError:
                log("  decode B=%d C=%d: OOM" % (B, C))
            except Exception as e:
                log("  decode B=%d C=%d failed: %s" % (B, C, str(e).split("\n")[0][:200]))
                traceback.print_exc()
            torch.cuda.empty_cache()


# ---------------------------------------------------------------- whole steps, hand-written (an engine's kernels)
def sec_ministeps(out, args):
    """A Llama-3.1-8B forward written directly in PyTorch, as a serving engine runs it: fused QKV and
    gate/up GEMMs, rotary embedding, KV written into a static cache, SDPA with native GQA (no K/V
    expansion), logits of the last token only; eager and replayed as one CUDA graph; bf16 weights and
    fp8 weights (torch._scaled_mm, activations cast to e4m3 before each GEMM)."""
    o = Out(os.path.join(out, "ministeps.csv"), ["model", "weights", "phase", "mode", "batch", "prompt_or_context",
                                                 "measured_s", "kernels_per_step", "notes"])
    h, H, Hk, d, I, V, nl = 4096, 32, 8, 128, 14336, 128256, 32
    if args.quick:
        nl = 4
    torch.manual_seed(0)

    def wt(n, k):
        return torch.randn(n, k, device="cuda", dtype=BF16) * 0.02

    layers = [dict(qkv=wt((H + 2 * Hk) * d, h), o=wt(h, H * d), gu=wt(2 * I, h), dn=wt(h, I),
                   n1=torch.ones(h, device="cuda", dtype=BF16), n2=torch.ones(h, device="cuda", dtype=BF16))
              for _ in range(nl)]
    emb = wt(V, h)
    head = wt(V, h)
    fnorm = torch.ones(h, device="cuda", dtype=BF16)
    inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device="cuda", dtype=torch.float32) / d))
    one = torch.ones((), device="cuda", dtype=torch.float32)

    def to_fp8(w):
        return w.to(FP8).t()  # K x N column-major for _scaled_mm

    def lin_bf16(x, w):
        return F.linear(x, w)

    def lin_fp8(x, w):
        return torch._scaled_mm(x.to(FP8), w, scale_a=one, scale_b=one, out_dtype=BF16)

    def rope(x, cos, sin):  # x [B, heads, T, d]
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
        return x * cos + torch.cat((-x2, x1), dim=-1) * sin

    def forward(W, lin, ids, pos, kc, vc, decode):
        B, T = ids.shape
        x = F.embedding(ids, emb).view(B * T, h)
        fr = pos.float()[:, None] * inv[None, :]  # [T, d/2]
        cos = torch.cat((fr.cos(), fr.cos()), -1).to(BF16)
        sin = torch.cat((fr.sin(), fr.sin()), -1).to(BF16)
        for li, L in enumerate(W):
            a = F.rms_norm(x, (h,), L["n1"], 1e-5)
            qkv = lin(a, L["qkv"]).view(B, T, H + 2 * Hk, d).transpose(1, 2)
            q, k, v = qkv.split([H, Hk, Hk], dim=1)
            q, k = rope(q, cos, sin), rope(k, cos, sin)
            if decode:
                kc[li].index_copy_(2, pos, k)
                vc[li].index_copy_(2, pos, v)
                att = F.scaled_dot_product_attention(q, kc[li], vc[li], enable_gqa=True)
            else:
                att = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            x = x + lin(att.transpose(1, 2).reshape(B * T, H * d), L["o"])
            a = F.rms_norm(x, (h,), L["n2"], 1e-5)
            g, u = lin(a, L["gu"]).chunk(2, dim=-1)
            x = x + lin(F.silu(g) * u, L["dn"])
        last = x.view(B, T, h)[:, -1]
        return lin(F.rms_norm(last, (h,), fnorm, 1e-5), Wh)

    def kernels_in(fn):
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            fn()
            torch.cuda.synchronize()
        return sum(1 for e in p.events() if "CUDA" in str(getattr(e, "device_type", "")))


    note = "hand-written llama-3.1-8b forward, random weights; %d layers" % nl
    for wname in ("bf16", "fp8"):
        if wname == "fp8":
            for L in layers:
                for key in ("qkv", "o", "gu", "dn"):
                    L[key] = to_fp8(L[key])
            Wh = to_fp8(head)
            lin = lin_fp8
        else:
            Wh = head
            lin = lin_bf16
        with torch.inference_mode():
            for B, P in ([(1, p) for p in (128, 512, 1024, 2048, 4096, 8192, 16384)] + [(8, 1024), (32, 512)]
                         if not args.quick else [(1, 1024)]):
                ids = torch.randint(0, V, (B, P), device="cuda")
                pos = torch.arange(P, device="cuda")
                try:
                    t = t_events(lambda: forward(layers, lin, ids, pos, None, None, False), 5)
                except Exception as e:
                    log("  ministep prefill %s B=%d P=%d: %s" % (wname, B, P, str(e).split("\n")[0][:150]))
                    continue
                o.row(model="llama-3.1-8b", weights=wname, phase="prefill", mode="eager", batch=B,
                      prompt_or_context=P, measured_s=t, notes=note + "; logits of the last token")
                log("  ministep prefill %s B=%d P=%d: %.2f ms" % (wname, B, P, t * 1e3))
            torch.cuda.empty_cache()
            combos = [(B, C) for C in (512, 2048, 8192, 32768) for B in (1, 2, 4, 8, 16, 32, 64, 128, 256)
                      if B * C <= args.max_step_tokens]
            if args.quick:
                combos = [(1, 2048), (64, 2048)]
            for B, C in combos:
                try:
                    kc = [torch.randn(B, Hk, C, d, device="cuda", dtype=BF16) for _ in range(nl)]
                    vc = [torch.randn(B, Hk, C, d, device="cuda", dtype=BF16) for _ in range(nl)]
                    ids = torch.randint(0, V, (B, 1), device="cuda")
                    pos = torch.tensor([C - 1], device="cuda")
                    step = lambda: forward(layers, lin, ids, pos, kc, vc, True)  # noqa: E731
                    te = t_events(step, 10)
                    nk = kernels_in(step)
                    o.row(model="llama-3.1-8b", weights=wname, phase="decode", mode="eager", batch=B,
                          prompt_or_context=C, measured_s=te, kernels_per_step=nk,
                          notes=note + "; static KV cache, SDPA enable_gqa over the whole cache")
                    s = torch.cuda.Stream()
                    s.wait_stream(torch.cuda.current_stream())
                    with torch.cuda.stream(s):
                        step()
                    torch.cuda.current_stream().wait_stream(s)
                    g = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(g):
                        step()
                    tg = t_events(g.replay, 20)
                    o.row(model="llama-3.1-8b", weights=wname, phase="decode", mode="cudagraph", batch=B,
                          prompt_or_context=C, measured_s=tg, kernels_per_step=nk,
                          notes=note + "; the same step captured as one CUDA graph")
                    log("  ministep decode %s B=%3d C=%5d: eager %.2f ms, graph %.2f ms, %d kernels"
                        % (wname, B, C, te * 1e3, tg * 1e3, nk))
                    del g, kc, vc
                except Exception as e:
                    log("  ministep decode %s B=%d C=%d: %s" % (wname, B, C, str(e).split("\n")[0][:150]))
                torch.cuda.empty_cache()


SECTIONS = {"fixed": sec_fixed, "copy": sec_copy, "peak": sec_peak, "kernels": sec_kernels, "gemm": sec_gemm,
            "prefill": sec_prefill, "decode": sec_decode, "elem": sec_elem, "ops": sec_ops, "steps": sec_steps,
            "ministeps": sec_ministeps}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--sections", default=",".join(SECTIONS))
    ap.add_argument("--quick", action="store_true", help="a few sizes per section (a check of the machine)")
    ap.add_argument("--step-layers", type=int, default=0, help="whole steps with fewer layers (times scaled)")
    ap.add_argument("--max-step-tokens", type=int, default=262144, help="batch x context cap for decode steps")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("measure_kernels.py: no CUDA device")
    os.makedirs(args.out, exist_ok=True)
    env = machine_env("bench/gpu/measure_kernels.py", args)
    env["timing"] = ("CUDA graph of N calls replayed between CUDA events, median of 10 replays / N; "
                     "weights/KV rotated over >= 200 MB of copies")
    try:
        import transformers
        env["transformers"] = transformers.__version__
    except Exception:
        pass
    try:
        env["cublas_workspace_config"] = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
        env["nvidia_smi_header"] = subprocess.run(["nvidia-smi"], capture_output=True, text=True).stdout[:2000]
    except Exception:
        pass
    run_sections(SECTIONS, args, env, os.path.join(args.out, "env.json"))


def machine_env(script, args):
    """What the results were taken on: the device, the software, the arguments."""
    p = torch.cuda.get_device_properties(0)
    return {"gpu": p.name, "sm_count": p.multi_processor_count, "memory_bytes": p.total_memory,
            "l2_bytes": getattr(p, "L2_cache_size", None), "capability": "%d.%d" % (p.major, p.minor),
            "torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "script": script, "args": vars(args), "nvidia_smi": []}


def run_sections(sections, args, env, env_path):
    """Run the named sections in order; a failing one is logged and the rest go on. nvidia-smi is read
    before the first and after each, and env is rewritten after each, so a cut-off run keeps its record."""

    def save_env():
        with open(env_path, "w") as f:
            json.dump(env, f, indent=1)

    env["nvidia_smi"].append(dict(smi(), when="start"))
    save_env()
    for name in args.sections.split(","):
        t0 = time.time()
        log("== %s" % name)
        try:
            sections[name](args.out, args)
        except Exception:
            traceback.print_exc()
            log("== %s FAILED" % name)
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        env["nvidia_smi"].append(dict(smi(), when="after " + name, section_s=round(time.time() - t0, 1)))
        save_env()
        log("== %s: %.1f s" % (name, time.time() - t0))


if __name__ == "__main__":
    main()
