#!/usr/bin/env python3
"""analyze_kernels.py - fit llmroof's physical constants to the CSVs of measure_kernels.py.

  python3 bench/gpu/analyze_kernels.py docs/validation/measured/h100-sxm5-80gb \
      --peak-bf16 989.4e12 --peak-fp8 1978.9e12 --bandwidth 3.35e12

Prints the tables of SUMMARY.md (markdown) and writes constants.json into the folder.
Standard library only (no numpy), so it runs wherever llmroof builds.

Fits (all in relative / log error, so small and large kernels weigh alike):
  GEMM   eff(M) = eff_max * M / (M + M_half), i.e. t = 2*N*K*(M + M_half) / (peak * eff_max):
         a weight-read floor at small M plus a compute slope; and the plain roofline
         t = max(2MNK / (peak*ce), bytes / (bw*me)) with ce, me from the asymptotes.
  linear t = t0 + bytes / bw for memory-bound kernels (small-M GEMM, decode attention,
         elementwise): t0 the fixed cost of one kernel in a CUDA graph, bw the streaming rate.
"""

import argparse
import csv
import json
import math
import os
import statistics


def rows(folder, name):
    """The CSV's rows; none where a run left the section out (e.g. the H200 run has no HF steps or ops)."""
    if not os.path.exists(os.path.join(folder, name)):
        return []
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def med(v):
    return statistics.median(v) if v else float("nan")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(q * (len(v) - 1))))] if v else float("nan")


def errs(pred, meas):
    return [abs(p / m - 1) for p, m in zip(pred, meas)]


def fit_saturating(data, peak):
    """data: (M, N, K, t). Best (eff_max, M_half) for t = 2NK(M+h)/(peak*e), log-error."""
    best = None
    h = 1.0
    while h < 20000:
        logs = [math.log(2 * N * K * (M + h) / peak) - math.log(t) for M, N, K, t in data]
        le = sum(logs) / len(logs)
        sse = sum((x - le) ** 2 for x in logs)
        if best is None or sse < best[0]:
            best = (sse, math.exp(le), h)
        h *= 1.02
    _, e, h = best
    pred = [2 * N * K * (M + h) / (peak * e) for M, N, K, t in data]
    ee = errs(pred, [d[3] for d in data])
    return {"eff_max": round(e, 4), "m_half": round(h, 1), "median_abs_err": round(med(ee), 4),
            "p90_abs_err": round(pct(ee, 0.9), 4), "max_abs_err": round(max(ee), 4), "n": len(data)}


def fit_smooth_roofline(data, peak, eb, ps=(4, 6, 8, 0), t0s=(1e-6, 2e-6, 3e-6, 4e-6, 5e-6, 6e-6),
                        bws=tuple(x * 1e9 for x in range(2500, 3101, 50)), ces=tuple(x / 100 for x in range(60, 81))):
    """data: (M, N, K, t). t = t0 + (tm^p + tc^p)^(1/p), tm = bytes / bw, tc = 2MNK / (peak * ce); p = inf is
    the plain max. Grid search minimising the median relative error; the default grids are the H100's (another
    GPU passes its own, e.g. --aiter below)."""
    best = None
    for p in ps:
        for t0 in t0s:
            for bw in bws:
                for ce in ces:
                    e = []
                    for M, N, K, t in data:
                        tm = (N * K * eb + M * K * eb + M * N * 2) / bw
                        tc = 2 * M * N * K / (peak * ce)
                        e.append(abs((t0 + ((tm ** p + tc ** p) ** (1 / p) if p else max(tm, tc))) / t - 1))
                    e.sort()
                    m = e[len(e) // 2]
                    if best is None or m < best[0]:
                        best = (m, e[int(0.9 * (len(e) - 1))], e[-1], p, t0, bw, ce)
    m, p90, mx, p, t0, bw, ce = best
    return {"p": p if p else "inf (max)", "t0_us": round(t0 * 1e6, 1), "bw_Bps": bw, "compute_eff": ce,
            "median_abs_err": round(m, 4), "p90_abs_err": round(p90, 4), "max_abs_err": round(mx, 4), "n": len(data)}


def fit_linear(xs, ts):
    """t = t0 + x / bw, least squares in relative error (weights 1/t^2)."""
    w = [1 / t ** 2 for t in ts]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs))
    st = sum(wi * t for wi, t in zip(w, ts))
    sxx = sum(wi * x * x for wi, x in zip(w, xs))
    sxt = sum(wi * x * t for wi, x, t in zip(w, xs, ts))
    slope = (sw * sxt - sx * st) / (sw * sxx - sx * sx)
    t0 = (st - slope * sx) / sw
    pred = [t0 + slope * x for x in xs]
    ee = errs(pred, ts)
    return {"t0_us": round(t0 * 1e6, 2), "bw_GBps": round(1 / slope / 1e9, 1), "median_abs_err": round(med(ee), 4),
            "p90_abs_err": round(pct(ee, 0.9), 4), "n": len(xs)}


def by_m(data):
    """Row counts by M range (decode, small batch, mid, prefill-sized)."""
    bins = ((1, 16), (17, 256), (257, 2048), (2049, 1 << 40))
    return {("%d-%d" % (lo, hi) if hi < 1 << 40 else ">%d" % (lo - 1)): sum(1 for d in data if lo <= d[0] <= hi)
            for lo, hi in bins}


def main_aiter(a):
    """--aiter: fit the smooth roofline to an AMD aiter tuned-table extract (gemm.csv with dtype bf16 / int8 / fp8:
    the tuner's best kernel per shape, measured by AMD) and write constants.json beside it."""
    F = a.folder
    g = rows(F, "gemm.csv")
    peak = {"bf16": a.peak_bf16, "fp8": a.peak_fp8, "int8": a.peak_fp8}
    C = {"gpu": a.gpu, "source": F + " (aiter tuned-GEMM tables, see README.md; fitted by bench/gpu/analyze_kernels.py"
         " --aiter)", "datasheet": {"peak_bf16_dense": a.peak_bf16, "peak_fp8_dense": a.peak_fp8,
                                     "memory_bandwidth_Bps": a.bandwidth},
         "gemm": {"form": "t = t0 + (tm^p + tc^p)^(1/p); tm = (weights + in + out bytes) / bw; "
                          "tc = 2MNK / (dense peak * compute_eff)"}}
    t0s = tuple(x * 0.5e-6 for x in range(1, 13))
    bws = tuple(x * 1e9 for x in range(3000, 5301, 50))
    for dt in sorted({r["dtype"] for r in g}):
        data = [(int(r["M"]), int(r["N"]), int(r["K"]), float(r["measured_s"])) for r in g if r["dtype"] == dt]
        eb = 2 if dt == "bf16" else 1
        big = [d for d in data if d[0] >= 2048]
        # compute_eff can only be fitted where some rows are compute bound; otherwise it is left out
        ces = tuple(x / 200 for x in range(40, 181)) if big else (0.5,)
        fits = {}
        for p in ((4, 6, 8, 0) if a.all_p else (6,)):
            f = fit_smooth_roofline(data, peak[dt], eb, ps=(p,), t0s=t0s, bws=bws, ces=ces)
            f["bw_over_datasheet"] = round(f["bw_Bps"] / a.bandwidth, 3)
            if not big:
                del f["compute_eff"]
            fits[str(f["p"])] = f
        small = [d for d in data if d[0] <= 16]
        lin = fit_linear([d[1] * d[2] * eb for d in small], [d[3] for d in small]) if len(small) > 2 else None
        C["gemm"][dt] = {"recommended": fits["6"], "by_p": fits, "rows_by_M": by_m(data),
                         "compute_eff_M_ge_2048_median": round(med([2 * M * N * K / t / peak[dt]
                                                                    for M, N, K, t in big]), 3) if big else None,
                         "compute_eff_best": round(max(2 * M * N * K / t / peak[dt] for M, N, K, t in data), 3),
                         "small_M_linear_fit": lin}
        print(dt, json.dumps(C["gemm"][dt], indent=1))
    # the catalog's gemm_8bit: the 8-bit fit's compute_eff over the bf16 one (the fitted one, else the
    # catalog's own bf16 figure given with --bf16-compute-eff when no bf16 row is compute bound)
    ce16 = C["gemm"].get("bf16", {}).get("recommended", {}).get("compute_eff", a.bf16_compute_eff)
    for dt in ("fp8", "int8"):
        ce8 = C["gemm"].get(dt, {}).get("recommended", {}).get("compute_eff")
        if ce8 and ce16:
            C["gemm_8bit"] = {"value": round(ce8 / ce16, 2), "from": "%s compute_eff %.3g / bf16 compute_eff %.3g%s" % (
                dt, ce8, ce16, "" if "compute_eff" in C["gemm"].get("bf16", {}).get("recommended", {}) else
                " (catalog's, no compute-bound bf16 row)")}
            print("gemm_8bit", C["gemm_8bit"])
            break
    with open(os.path.join(F, "constants.json"), "w") as f:
        json.dump(C, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--aiter", action="store_true", help="fit an aiter tuned-table extract (gemm.csv only)")
    ap.add_argument("--gpu", default="mi300x")
    ap.add_argument("--all-p", action="store_true", help="with --aiter: also fit p = 4, 8 and inf")
    ap.add_argument("--bf16-compute-eff", type=float, default=None,
                    help="with --aiter: the bf16 compute efficiency gemm_8bit is taken against when no bf16 row is "
                         "compute bound (mi300x: 0.455)")
    ap.add_argument("--peak-bf16", type=float, default=989.4e12)
    ap.add_argument("--peak-fp8", type=float, default=1978.9e12)
    ap.add_argument("--bandwidth", type=float, default=3.35e12)
    a = ap.parse_args()
    if a.aiter:
        main_aiter(a)
        return
    F = a.folder
    peak = {"bf16": a.peak_bf16, "fp8": a.peak_fp8}
    C = {"gpu": "h100-sxm5-80gb", "source": "docs/validation/measured/h100-sxm5-80gb (bench/gpu/measure_kernels.py, "
         "fitted by bench/gpu/analyze_kernels.py)", "datasheet": {"peak_bf16_dense": a.peak_bf16,
                                                                    "peak_fp8_dense": a.peak_fp8,
                                                                    "memory_bandwidth_Bps": a.bandwidth}}
    env = json.load(open(os.path.join(F, "env.json")))
    C["conditions"] = {k: env.get(k) for k in ("gpu", "torch", "cuda", "cudnn", "transformers", "date")}
    C["conditions"].update({k: env["nvidia_smi"][0].get(k) for k in ("driver_version", "power.limit", "clocks.max.sm",
                                                                     "clocks.max.mem")})
    out = []
    P = out.append

    # ---------------- copy
    cp = rows(F, "copy.csv")
    big = [r for r in cp if int(r["bytes_each"]) >= 1 << 30]
    copy_bw = max(float(r["GBps"]) for r in big if r["what"] == "d2d_copy") * 1e9
    read_bw = max(float(r["GBps"]) for r in big if r["what"] == "read_sum") * 1e9
    C["memory"] = {"copy_bw_Bps": round(copy_bw, -9), "copy_eff": round(copy_bw / a.bandwidth, 3),
                   "read_bw_Bps": round(read_bw, -9), "read_eff": round(read_bw / a.bandwidth, 3),
                   "note": "device-to-device copy counts bytes read + written; read = torch.sum"}
    P("### Copy bandwidth\n\n| what | size each side | GB/s | of %.0f GB/s |\n|---|---:|---:|---:|" % (a.bandwidth / 1e9))
    for r in cp:
        P("| %s | %d MiB | %.0f | %.1f%% |" % (r["what"], int(r["bytes_each"]) >> 20, float(r["GBps"]),
                                              100 * float(r["GBps"]) * 1e9 / a.bandwidth))

    # ---------------- peak matmul
    pk = rows(F, "peak.csv")
    P("\n### Best matmul (square and published best shapes)\n\n| dtype | M x N x K | data | TFLOP/s | of dense peak |\n"
      "|---|---|---|---:|---:|")
    for r in pk:
        P("| %s | %sx%sx%s | %s | %.0f | %.1f%% |" % (r["dtype"], r["M"], r["N"], r["K"], r["data"], float(r["tflops"]),
                                                   100 * float(r["eff_dense_peak"])))
    C["matmul_best"] = {}
    for dt in ("bf16", "fp8"):
        rr = [r for r in pk if r["dtype"] == dt and r["data"] == "randn"]
        b = max(rr, key=lambda r: float(r["tflops"]))
        C["matmul_best"][dt] = {"tflops": round(float(b["tflops"]), 1), "eff": round(float(b["eff_dense_peak"]), 3),
                                "shape": "%sx%sx%s" % (b["M"], b["N"], b["K"]),
                                "8192cubed_tflops": round(float([r for r in rr if r["M"] == r["N"] == r["K"] == "8192"]
                                                                [0]["tflops"]), 1)}

    if os.path.exists(os.path.join(F, "burst.csv")):
        C["matmul_burst_vs_sustained_8192cubed"] = [
            {"dtype": r["dtype"], "what": r["what"], "tflops": float(r["median_tflops"]),
             "sm_clock_after": r["sm_clock_after"], "power_draw_after": r["power_draw_after"],
             "throttle_reasons_after": r["throttle_reasons_after"]} for r in rows(F, "burst.csv")]

    # ---------------- GEMM vs M
    g = rows(F, "gemm.csv")
    Ms = sorted({int(r["M"]) for r in g})
    P("\n### GEMM efficiency vs M (achieved / dense peak; median over the 22 shapes; min-max)\n")
    P("| M | bf16 median | bf16 min-max | fp8 median | fp8 min-max |\n|---:|---:|---:|---:|---:|")
    for M in Ms:
        cells = []
        for dt in ("bf16", "fp8"):
            e = [float(r["eff_dense_peak"]) for r in g if r["dtype"] == dt and int(r["M"]) == M]
            cells += ["%.3f" % med(e), "%.3f-%.3f" % (min(e), max(e))]
        P("| %d | %s |" % (M, " | ".join(cells)))
    C["gemm"] = {"form": "eff(M) = eff_max * M / (M + M_half) of the dtype's dense peak; "
                 "equivalently t = 2*N*K*(M + M_half) / (peak * eff_max)"}
    P("\n### GEMM fits\n\n| dtype | shapes | eff_max | M_half | median abs err | p90 | max |\n|---|---|---:|---:|---:|---:|---:|")
    dense_fams = ("llama-3.1-8b", "llama-3.1-70b-tp4", "llama-3.1-70b-tp8", "qwen3-32b")
    for dt in ("bf16", "fp8"):
        data_all = [(int(r["M"]), int(r["N"]), int(r["K"]), float(r["measured_s"])) for r in g if r["dtype"] == dt]
        data_dense = [(int(r["M"]), int(r["N"]), int(r["K"]), float(r["measured_s"])) for r in g
                      if r["dtype"] == dt and r["family"] in dense_fams]
        data_moe = [(int(r["M"]), int(r["N"]), int(r["K"]), float(r["measured_s"])) for r in g
                    if r["dtype"] == dt and r["family"] not in dense_fams]
        fa, fd, fm = fit_saturating(data_all, peak[dt]), fit_saturating(data_dense, peak[dt]), \
            fit_saturating(data_moe, peak[dt])
        for lab, f in (("all 22", fa), ("dense (18)", fd), ("MoE experts (4)", fm)):
            P("| %s | %s | %.3f | %.0f | %.1f%% | %.1f%% | %.1f%% |" % (dt, lab, f["eff_max"], f["m_half"],
                                                                     100 * f["median_abs_err"],
                                                                     100 * f["p90_abs_err"], 100 * f["max_abs_err"]))
        # asymptotes: compute-bound efficiency at M >= 2048, weight bandwidth at M <= 16
        ce = med([float(r["eff_dense_peak"]) for r in g if r["dtype"] == dt and int(r["M"]) >= 2048])
        ce_max = max(float(r["eff_dense_peak"]) for r in g if r["dtype"] == dt)
        small = [r for r in g if r["dtype"] == dt and int(r["M"]) <= 16]
        wbw = [float(r["weight_GBps"]) * 1e9 for r in small]
        lin = fit_linear([int(r["N"]) * int(r["K"]) * (2 if dt == "bf16" else 1) for r in small],
                         [float(r["measured_s"]) for r in small])
        me = med(wbw) / a.bandwidth
        # roofline with these asymptotes
        pred, meas = [], []
        for r in g:
            if r["dtype"] != dt:
                continue
            M, N, K = int(r["M"]), int(r["N"]), int(r["K"])
            by = N * K * (2 if dt == "bf16" else 1) + M * K * (2 if dt == "bf16" else 1) + M * N * 2
            pred.append(max(2 * M * N * K / (peak[dt] * ce), by / (a.bandwidth * me)))
            meas.append(float(r["measured_s"]))
        ee = errs(pred, meas)
        eb = 2 if dt == "bf16" else 1
        sm = fit_smooth_roofline(data_all, peak[dt], eb)
        smd = fit_smooth_roofline(data_dense, peak[dt], eb)
        P("| %s | all 22: smooth roofline t0 + (tm^p + tc^p)^(1/p): t0 %.1f us, bw %.0f GB/s, compute eff %.2f, p %s |"
          " | | %.1f%% | %.1f%% | %.1f%% |" % (dt, sm["t0_us"], sm["bw_Bps"] / 1e9, sm["compute_eff"], sm["p"],
                                             100 * sm["median_abs_err"], 100 * sm["p90_abs_err"],
                                             100 * sm["max_abs_err"]))
        P("| %s | dense 18: smooth roofline: t0 %.1f us, bw %.0f GB/s, compute eff %.2f, p %s | | | %.1f%% | %.1f%% |"
          " %.1f%% |" % (dt, smd["t0_us"], smd["bw_Bps"] / 1e9, smd["compute_eff"], smd["p"],
                         100 * smd["median_abs_err"], 100 * smd["p90_abs_err"], 100 * smd["max_abs_err"]))
        P("| %s | all 22: plain roofline max(bytes/(%.0f GB/s x %.3f), flops/(peak x %.3f)) | | | %.1f%% | %.1f%% |"
          " %.1f%% |" % (dt, a.bandwidth / 1e9, me, ce, 100 * med(ee), 100 * pct(ee, .9), 100 * max(ee)))
        C["gemm"][dt] = {"recommended": dict(sm, form="t = t0 + (tm^p + tc^p)^(1/p); tm = (weights + in + out "
                                             "bytes) / bw; tc = 2MNK / (dense peak * compute_eff)"),
                         "recommended_dense_only": smd,"eff_max": fa["eff_max"], "m_half": fa["m_half"], "fit_all_shapes": fa,
                         "fit_dense_shapes": fd, "fit_moe_expert_shapes": fm,
                         "compute_eff_M_ge_2048_median": round(ce, 3), "compute_eff_best": round(ce_max, 3),
                         "weight_bw_M_le_16_median_Bps": round(med(wbw), -9),
                         "weight_bw_M_le_16_min_Bps": round(min(wbw), -9),
                         "weight_bw_M_le_16_max_Bps": round(max(wbw), -9),
                         "memory_eff_M_le_16_median": round(me, 3),
                         "small_M_linear_fit": lin,
                         "plain_roofline_fit": {"compute_eff": round(ce, 3), "memory_eff": round(me, 3),
                                                "median_abs_err": round(med(ee), 4), "p90_abs_err": round(pct(ee, .9), 4),
                                                "max_abs_err": round(max(ee), 4)}}
    P("\n### Memory-bound GEMM regime (M = 1 ... 16): weight bytes / time\n\n| dtype | shape (family) | N x K | weight MB |"
      " GB/s M=1 | M=4 | M=16 |\n|---|---|---|---:|---:|---:|---:|")
    for dt in ("bf16", "fp8"):
        seen = []
        for r in g:
            if r["dtype"] == dt and (r["family"], r["shape"]) not in seen:
                seen.append((r["family"], r["shape"]))
        for fam, sh in seen:
            v = {int(r["M"]): float(r["weight_GBps"]) for r in g if r["dtype"] == dt and r["family"] == fam
                 and r["shape"] == sh}
            N, K = [(int(r["N"]), int(r["K"])) for r in g if r["family"] == fam and r["shape"] == sh][0]
            P("| %s | %s (%s) | %dx%d | %.0f | %.0f | %.0f | %.0f |" % (dt, sh, fam, N, K,
                                                                       N * K * (2 if dt == "bf16" else 1) / 1e6,
                                                                       v[1], v[4], v[16]))

    # ---------------- fixed costs
    fx = rows(F, "fixed.csv")

    def fxv(what, method, n):
        return [float(r["per_item_us"]) for r in fx if r["what"] == what and r["method"] == method
                and int(r["n"]) == n][0]
    C["launch"] = {
        "eager_torch_empty_kernel_us": round(fxv("empty_kernel(_sleep0)", "eager", 2000), 2),
        "eager_torch_tiny_op_us": round(fxv("tiny_add(1 elem)", "eager", 2000), 2),
        "eager_raw_launch_cupy_us": round(fxv("empty_kernel(cupy raw)", "eager", 2000), 2),
        "graph_per_kernel_empty_us": round(fxv("empty_kernel(_sleep0)", "graph-chain", 1000), 2),
        "graph_per_kernel_tiny_op_us": round(fxv("tiny_add(1 elem)", "graph-chain", 1000), 2),
        "graph_launch_1node_us": round(fxv("empty_kernel(_sleep0)", "graph-chain", 1), 2),
        "launch_sync_roundtrip_us": round(fxv("empty_kernel(cupy raw)", "launch+sync-roundtrip", 1), 2),
        "note": "eager = launch-to-launch rate of back-to-back launches from Python (host bound); graph = "
                "per node of a 1000-node CUDA graph (GPU-side gap between dependent kernels)"}
    P("\n### Fixed costs per kernel (µs)\n\n| kernel | eager chain of 1000 | graph chain of 1000 | graph chain of 100 |"
      " graph of 1 (incl. graph launch) |\n|---|---:|---:|---:|---:|")
    for what in ("empty_kernel(_sleep0)", "tiny_add(1 elem)", "add(1M elem)"):
        P("| %s | %.2f | %.2f | %.2f | %.2f |" % (what, fxv(what, "eager-chain", 1000), fxv(what, "graph-chain", 1000),
                                                 fxv(what, "graph-chain", 100), fxv(what, "graph-chain", 1)))

    # ---------------- prefill attention
    pa = rows(F, "attention_prefill.csv")
    P("\n### Prefill attention (causal, 32 q / 8 KV heads, d=128): TFLOP/s (causal FLOPs = 2·B·H·L²·d)\n")
    P("| L | default B=1 | cudnn B=1 | flash (FA2) B=1 | default packed 16k tok | flash packed 16k tok |\n"
      "|---:|---:|---:|---:|---:|---:|")
    Ls = sorted({int(r["seq"]) for r in pa})

    def pav(be, L, packed, gqa="enable_gqa"):
        rr = [float(r["tflops"]) for r in pa if r["backend"] == be and int(r["seq"]) == L and r["gqa"] == gqa and
              (int(r["batch"]) == (max(1, 16384 // L) if packed else 1))]
        return rr[0] if rr else float("nan")
    for L in Ls:
        P("| %d | %.0f | %.0f | %.0f | %.0f | %.0f |" % (L, pav("default", L, 0), pav("cudnn", L, 0), pav("flash", L, 0),
                                                        pav("default", L, 1), pav("flash", L, 1)))
    att = {}
    for be in ("default", "flash"):
        for packed in (0, 1):
            data = [(L, pav(be, L, packed)) for L in Ls]
            data = [(L, v) for L, v in data if v == v]
            best = None
            h = 8.0
            while h < 50000:
                # eff(L) = e * L / (L + h): log fit
                lg = [math.log(v * 1e12 / peak["bf16"]) - math.log(L / (L + h)) for L, v in data]
                le = sum(lg) / len(lg)
                sse = sum((x - le) ** 2 for x in lg)
                if best is None or sse < best[0]:
                    best = (sse, math.exp(le), h)
                h *= 1.03
            pr = [best[1] * L / (L + best[2]) * peak["bf16"] / 1e12 for L, v in data]
            ee = errs(pr, [v for L, v in data])
            att["%s_%s" % (be, "packed16k" if packed else "batch1")] = {
                "eff_max": round(best[1], 3), "L_half": round(best[2]), "median_abs_err": round(med(ee), 3),
                "max_abs_err": round(max(ee), 3), "best_tflops": round(max(v for L, v in data), 1)}
    C["attention_prefill"] = dict(att, form="eff(L) = eff_max * L / (L + L_half) of dense bf16 peak, causal FLOPs; "
                                  "default = cuDNN (sm90 wgmma flash kernel), flash = PyTorch's FlashAttention-2")
    P("\nFits eff(L) = eff_max·L/(L+L_half): " + "; ".join("%s: eff_max %.3f, L_half %d (median err %.1f%%)" % (
        k, v["eff_max"], v["L_half"], 100 * v["median_abs_err"]) for k, v in att.items()))

    # ---------------- decode attention
    da = rows(F, "attention_decode.csv")
    P("\n### Decode attention: achieved GB/s (K+V bytes read / time), SDPA enable_gqa, default backend (cuDNN)\n")
    Bs = sorted({int(r["batch"]) for r in da})
    Cs = sorted({int(r["context"]) for r in da})
    for grp in (1, 4, 8):
        P("\nGQA group %d (32 q heads, %d KV heads):\n\n| batch \\ context | %s |\n|---:|%s" % (
            grp, 32 // grp, " | ".join(str(c) for c in Cs), "---:|" * len(Cs)))
        for B in Bs:
            cells = []
            for c in Cs:
                rr = [float(r["GBps"]) for r in da if r["form"] == "enable_gqa" and r["backend"] == "default" and
                      int(r["batch"]) == B and int(r["context"]) == c and int(r["group"]) == grp]
                cells.append("%.0f" % rr[0] if rr else "-")
            P("| %d | %s |" % (B, " | ".join(cells)))
    dec = {}
    P("\nFits t = t0 + KV bytes / bw per form and backend (all batches, contexts, groups):\n\n| form | backend | t0 µs |"
      " bw GB/s | median abs err | p90 |\n|---|---|---:|---:|---:|---:|")
    for form in ("enable_gqa", "rows", "expanded"):
        for be in ("default", "flash", "cudnn"):
            rr = [r for r in da if r["form"] == form and r["backend"] == be]
            if len(rr) < 5:
                continue
            f = fit_linear([float(r["kv_bytes"]) for r in rr], [float(r["measured_s"]) for r in rr])
            dec["%s_%s" % (form, be)] = f
            P("| %s | %s | %.1f | %.0f | %.1f%% | %.1f%% |" % (form, be, f["t0_us"], f["bw_GBps"],
                                                              100 * f["median_abs_err"], 100 * f["p90_abs_err"]))
    big = [float(r["GBps"]) for r in da if r["form"] == "enable_gqa" and r["backend"] == "default" and
           float(r["kv_bytes"]) >= 1e9]
    C["attention_decode"] = dict(dec, best_large_median_GBps=round(med(big), 1), best_large_max_GBps=round(max(big), 1),
                                 form="t = t0 + KV bytes / bw; enable_gqa_default = cuDNN kernel with native GQA "
                                      "(what an engine's paged decode kernel does); rows = GQA queries as rows of their "
                                      "KV head; expanded = K/V repeated to the query heads (bytes counted x group)")
    # ---------------- elementwise
    el = rows(F, "elementwise.csv")
    C["elementwise"] = {}
    P("\n### Memory-bound elementwise kernels: GB/s (bytes read + written)\n\n| kernel | hidden | %s |\n|---|---:|%s" % (
        " | ".join("T=%s" % t for t in sorted({int(r["tokens"]) for r in el})), "---:|" * len({r["tokens"] for r in el})))
    for k in ("rms_norm", "rms_norm_hf_eager", "residual_add", "silu_mul"):
        for hdim in ("4096", "8192"):
            rr = sorted([r for r in el if r["kernel"] == k and r["hidden"] == hdim], key=lambda r: int(r["tokens"]))
            P("| %s | %s | %s |" % (k, hdim, " | ".join("%.0f" % float(r["GBps"]) for r in rr)))
        rr = [r for r in el if r["kernel"] == k]
        C["elementwise"][k] = fit_linear([float(r["bytes"]) for r in rr], [float(r["measured_s"]) for r in rr])
    P("\nFits t = t0 + bytes/bw: " + "; ".join("%s t0 %.1f µs, bw %.0f GB/s (median err %.1f%%)" % (
        k, v["t0_us"], v["bw_GBps"], 100 * v["median_abs_err"]) for k, v in C["elementwise"].items()))

    # ---------------- steps
    ms = rows(F, "ministeps.csv")
    hf = rows(F, "steps.csv")
    ops = rows(F, "ops.csv")
    P("\n### Whole steps, llama-3.1-8b (ms)\n\nDecode, hand-written forward (`ministeps.csv`), eager / CUDA graph, and the "
      "HF transformers model (`steps.csv`, bf16) eager / CUDA graph:\n")
    P("| batch | context | bf16 eager | bf16 graph | fp8 eager | fp8 graph | HF eager | HF graph | kernels/step (bf16) |"
      "\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def msv(w, mode, B, c, phase="decode"):
        rr = [r for r in ms if r["weights"] == w and r["mode"] == mode and r["phase"] == phase and int(r["batch"]) == B
              and int(r["prompt_or_context"]) == c]
        return (float(rr[0]["measured_s"]) * 1e3, rr[0]["kernels_per_step"]) if rr else (float("nan"), "")

    def hfv(mode, B, c, phase="decode"):
        rr = [r for r in hf if r["mode"] == mode and r["phase"] == phase and int(r["batch"]) == B and
              int(r["prompt_or_context"]) == c]
        return float(rr[0]["scaled_to_full_s"]) * 1e3 if rr else float("nan")
    combos = sorted({(int(r["prompt_or_context"]), int(r["batch"])) for r in ms if r["phase"] == "decode"})
    for c, B in combos:
        P("| %d | %d | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %s |" % (
            B, c, msv("bf16", "eager", B, c)[0], msv("bf16", "cudagraph", B, c)[0], msv("fp8", "eager", B, c)[0],
            msv("fp8", "cudagraph", B, c)[0], hfv("eager", B, c), hfv("cudagraph", B, c), msv("bf16", "eager", B, c)[1]))
    P("\nPrefill (eager; one forward, logits of the last token), ms and achieved TFLOP/s of the linear + attention FLOPs:\n")
    P("| batch | prompt | bf16 | bf16 TFLOP/s | fp8 | fp8 TFLOP/s | HF bf16 |\n|---:|---:|---:|---:|---:|---:|---:|")
    lin_params = 32 * (6144 * 4096 + 4096 * 4096 + 28672 * 4096 + 4096 * 14336)
    pre = sorted({(int(r["batch"]), int(r["prompt_or_context"])) for r in ms if r["phase"] == "prefill"},
                 key=lambda x: (x[0] * x[1], x[0]))
    C["steps"] = {"prefill": [], "decode": []}
    for B, L in pre:
        fl = 2 * lin_params * B * L + 32 * 2 * B * 32 * L * L * 128 + 2 * 4096 * 128256 * B
        tb, tf = msv("bf16", "eager", B, L, "prefill")[0], msv("fp8", "eager", B, L, "prefill")[0]
        P("| %d | %d | %.1f | %.0f | %.1f | %.0f | %.1f |" % (B, L, tb, fl / tb / 1e9, tf, fl / tf / 1e9,
                                                              hfv("eager", B, L, "prefill")))
        C["steps"]["prefill"].append({"batch": B, "prompt": L, "bf16_ms": round(tb, 2), "fp8_ms": round(tf, 2),
                                      "hf_bf16_ms": round(hfv("eager", B, L, "prefill"), 2),
                                      "bf16_tflops": round(fl / tb / 1e9, 1)})
    # graphed decode minus the sum of its kernels (measured alone) = per-kernel gap in a graph
    P("\nGraphed decode step vs the sum of its big kernels measured alone (ops.csv GEMMs and norms, "
      "attention_decode.csv enable_gqa/default, lm_head); the rest divided by the kernels per step:\n")
    P("| weights | batch | context | graph step ms | sum of big kernels ms | rest ms | rest per kernel µs |"
      "\n|---|---:|---:|---:|---:|---:|---:|")
    gaps = {"bf16": [], "fp8": []}

    def opv(op, T, dt, B=None, c=0):
        rr = [float(r["measured_s"]) for r in ops if r["model"] == "llama-3.1-8b" and r["op"] == op and
              int(r["tokens"]) == T and r["dtype"] == dt and int(r["context"]) == c]
        return rr[0] if rr else None
    for w in ("bf16", "fp8"):
        for c, B in combos:
            tg, nk = msv(w, "cudagraph", B, c)
            ks = [opv(o, B, w) for o in ("qkv_proj", "o_proj", "ffn")]
            nrm = opv("norm", B, "bf16")
            head = opv("lm_head", B, w)
            at = [float(r["measured_s"]) for r in da if r["form"] == "enable_gqa" and r["backend"] == "default" and
                  int(r["batch"]) == B and int(r["context"]) == c and int(r["group"]) == 4]
            if None in ks or nrm is None or head is None or not at or tg != tg:
                continue
            s = (32 * (sum(ks) + 2 * nrm + at[0]) + head) * 1e3
            rest = tg - s
            per = rest * 1e3 / int(nk)
            gaps[w].append(per)
            P("| %s | %d | %d | %.2f | %.2f | %.2f | %.2f |" % (w, B, c, tg, s, rest, per))
            C["steps"]["decode"].append({"weights": w, "batch": B, "context": c, "graph_ms": round(tg, 3),
                                         "eager_ms": round(msv(w, "eager", B, c)[0], 3),
                                         "sum_big_kernels_ms": round(s, 3), "kernels": int(nk)})
    C["steps"]["graph_rest_per_kernel_us_median"] = {w: round(med(v), 2) for w, v in gaps.items() if v}
    C["steps"]["note"] = ("hand-written llama-3.1-8b forward (bench/gpu/measure_kernels.py ministeps); HF transformers "
                          "5.17 steps in steps.csv expand K/V for GQA (repeat_kv) because its static-cache mask is not "
                          "None, so its decode steps read the cache 4x: an HF artifact, not a GPU constant")
    C["not_measured"] = ["collectives (all-reduce / all-gather over NVLink) and anything across GPUs: one GPU only",
                         "fp8 KV cache attention, paged-KV kernels (FlashInfer, vLLM), FlashAttention-3 (not in torch)",
                         "activation quantisation cost of fp8 GEMMs (GEMM rows use pre-quantised operands; the ffn op "
                         "and ministeps fp8 include the casts)"]
    with open(os.path.join(F, "constants.json"), "w") as f:
        json.dump(C, f, indent=1)
    print("\n".join(out))


if __name__ == "__main__":
    main()
