#!/usr/bin/env python3
"""Fits the GEMM fill ramp (docs/model.md "GEMM fill ramp") to a table of tuned GEMM times.

    python3 bench/gpu/fit_gemm_ramp.py docs/validation/measured/mi300x/gemm_fp8_aiter.csv

For each (N, K) shape a least-squares line t = a + b M through its times at M 512-8192 gives the
large-M rate (2 N K / b) and the ramp M0 = (a - t0) / b, t0 the 5 us per kernel of the mi300x
entry; then the least-squares line in logs through the shapes with K >= 2048, M0 = M0ref (4096 /
N)^e. Reads aiter's columns (cu_num, M, N, K, ..., us); rows of other CU counts are skipped.
"""
import csv
import math
import sys

T0_US = 5.0
CUS = "304"


def main(path):
    shapes = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["cu_num"].strip() != CUS:
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
        if k >= 2048:
            fits.append((math.log(n), math.log(m0)))
    xb = sum(x for x, _ in fits) / len(fits)
    yb = sum(y for _, y in fits) / len(fits)
    e = sum((x - xb) * (y - yb) for x, y in fits) / sum((x - xb) ** 2 for x, _ in fits)
    ref = math.exp(yb + e * (math.log(4096) - xb))
    print(f"M0 = {ref:.0f} x (4096 / N)^{-e:.2f} over {len(fits)} shapes with K >= 2048")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/validation/measured/mi300x/gemm_fp8_aiter.csv")
