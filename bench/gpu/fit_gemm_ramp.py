#!/usr/bin/env python3
"""Fits the GEMM fill ramp (docs/model.md "GEMM fill ramp") to a table of tuned GEMM times.

    python3 bench/gpu/fit_gemm_ramp.py docs/validation/measured/mi300x/gemm_fp8_aiter.csv
    python3 bench/gpu/fit_gemm_ramp.py --cus 256 docs/validation/measured/mi355x/gemm_bf16_aiter.csv

For each (N, K) shape a least-squares line t = a + b M through its times at M 512-8192 gives the
large-M rate (2 N K / b) and the ramp M0 = (a - t0) / b, t0 the 5 us per kernel of the mi300x
entry; then the least-squares line in logs through the shapes with K >= 2048, M0 = M0ref (4096 /
N)^e, and M0ref with the exponent held at the model's 0.43 (kernel.h KERNEL_GEMM_RAMP_N_EXP).
Reads aiter's columns (cu_num, M, N, K, ..., us); rows of other CU counts than --cus (304, the
MI300X; 256, the MI355X) are skipped.
--check also times every K >= 2048 row as llmroof times one fp8 GEMM on the mi300x entry (the rate
0.40 x 0.90 of 2614.9 TFLOPS, 0.72 of 5.3 TB/s, the short-K term at K0 450, the smooth ridge p = 6,
5 us a kernel) without and with the ramp, and prints the median error by band of M.
"""
import csv
import math
import statistics
import sys

T0_US = 5.0
N_EXP = 0.43


def main(path, cus):
    shapes = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["cu_num"].strip() != cus:
                continue
            key = (int(row["N"]), int(row["K"]))
            shapes.setdefault(key, []).append((int(row["M"]), float(row["us"])))
    fits = []
    print("N,K,rate_TFLOPS,M0")
    for (n, k), pts in sorted(shapes.items()):
        pts = [p for p in pts if 512 <= p[0] <= 8192]
        if len(pts) < 3:
            continue
        xb = sum(p[0] for p in pts) / len(pts)
        yb = sum(p[1] for p in pts) / len(pts)
        b = sum((p[0] - xb) * (p[1] - yb) for p in pts) / sum((p[0] - xb) ** 2 for p in pts)
        a = yb - b * xb
        m0 = (a - T0_US) / b
        print(f"{n},{k},{2 * n * k / (b * 1e-6) / 1e12:.0f},{m0:.0f}")
        if k >= 2048 and m0 > 0:
            fits.append((math.log(n), math.log(m0)))
    xb = sum(x for x, _ in fits) / len(fits)
    yb = sum(y for _, y in fits) / len(fits)
    e = sum((x - xb) * (y - yb) for x, y in fits) / sum((x - xb) ** 2 for x, _ in fits)
    ref = math.exp(yb + e * (math.log(4096) - xb))
    print(f"M0 = {ref:.0f} x (4096 / N)^{-e:.2f} over {len(fits)} shapes with K >= 2048")
    held = math.exp(sum(y + N_EXP * (x - math.log(4096)) for x, y in fits) / len(fits))
    print(f"M0 = {held:.0f} x (4096 / N)^{N_EXP} with the exponent held")


def gemm_s(m, n, k, m0ref):
    """One fp8 GEMM on the mi300x entry as roofline.c times it (kernel.h terms)."""
    rate, bw, k0 = 0.40 * 0.90 * 2614.9e12, 0.72 * 5.3e12, 450.0
    f, out = 2.0 * m * n * k, m * n
    f = max(f, (f + 2.0 * k0 * out) / (1.0 + k0 / 4096.0))
    c, mem = f / rate, (n * k + m * k + 2.0 * m * n) / bw
    if m0ref > 0:
        m0 = m0ref * (4096.0 / n) ** 0.43
        c *= 1.0 + m0 / (m * max(1.0, mem / c))
    return (c ** 6 + mem ** 6) ** (1.0 / 6.0) + T0_US * 1e-6


def check(path, cus):
    bands = [(1, 64), (65, 384), (385, 2048), (2049, 16384)]
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["cu_num"].strip() == cus and int(r["K"]) >= 2048]
    print("M band,rows,median error without the ramp %,with it %,median |error| without %,with %")
    for lo, hi in bands:
        sel = [r for r in rows if lo <= int(r["M"]) <= hi]
        e0 = [gemm_s(int(r["M"]), int(r["N"]), int(r["K"]), 0) / (float(r["us"]) * 1e-6) - 1 for r in sel]
        e1 = [gemm_s(int(r["M"]), int(r["N"]), int(r["K"]), 250) / (float(r["us"]) * 1e-6) - 1 for r in sel]
        print(f"{lo}-{hi},{len(sel)},{100 * statistics.median(e0):+.1f},{100 * statistics.median(e1):+.1f},"
              f"{100 * statistics.median(abs(x) for x in e0):.1f},{100 * statistics.median(abs(x) for x in e1):.1f}")


if __name__ == "__main__":
    argv = sys.argv[1:]
    cus = "304"
    if "--cus" in argv:
        i = argv.index("--cus")
        cus = argv[i + 1]
        del argv[i:i + 2]
    args = [a for a in argv if a != "--check"]
    path = args[0] if args else "docs/validation/measured/mi300x/gemm_fp8_aiter.csv"
    check(path, cus) if "--check" in argv else main(path, cus)
