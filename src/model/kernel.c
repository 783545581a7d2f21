/* kernel.c - kernel-level cost terms (see llmroof/kernel.h; docs/model.md "Kernel-level terms"). */
#include "model/kernel.h"

double kernel_fixed_s(const struct llmroof_gpu *g)
{
    return g->kernel_s > 0 ? g->kernel_s : KERNEL_FIXED_S_DEFAULT;
}

double kernel_gemm_dtype_scale(const struct llmroof_gpu *g, enum llmroof_dtype act)
{
    if (act == LLMROOF_FP8 || act == LLMROOF_INT8 || act == LLMROOF_INT4)
        return g->gemm_8bit_eff > 0 ? g->gemm_8bit_eff : KERNEL_GEMM_8BIT_DEFAULT;
    return 1.0;
}

double kernel_fp16acc_peak_scale(const struct llmroof_gpu *g)
{
    if (!(g->fp16_acc_ratio > 1))
        return 1.0;
    return g->fp16_acc_ratio * (g->gemm_fp16acc_eff > 0 ? g->gemm_fp16acc_eff : KERNEL_GEMM_FP16ACC_DEFAULT);
}

enum llmroof_dtype kernel_attention_dtype(const struct llmroof_gpu *g, enum llmroof_dtype act)
{
    if (act == LLMROOF_BF16 && g->has_peak[LLMROOF_BF16])
        return LLMROOF_BF16;
    if (g->has_peak[LLMROOF_FP16])
        return LLMROOF_FP16;
    if (g->has_peak[LLMROOF_BF16])
        return LLMROOF_BF16;
    return LLMROOF_FP32;
}

double kernel_wo_routed_tile_padding(double rows)
{
    if (!(rows > 1.0 + 1e-9))
        return KERNEL_WO_TILE_ROWS; /* one row each expert hit: one whole tile */
    /* lambda from rows = lambda / (1 - e^-lambda), increasing in lambda: bisection on (0, rows] */
    double lo = 0.0, hi = rows;
    for (int i = 0; i < 100; i++) {
        const double mid = 0.5 * (lo + hi);
        if (mid / -expm1(-mid) < rows)
            lo = mid;
        else
            hi = mid;
    }
    const double lambda = 0.5 * (lo + hi);
    /* a spread wider than a tile leaves the fractional tile uniform: lambda / 16 + 1/2 tiles (the
     * expert is all but always hit) */
    if (lambda > 64.0)
        return KERNEL_WO_TILE_ROWS * (lambda / KERNEL_WO_TILE_ROWS + 0.5) / rows;
    /* E[ceil(X / 16)] = sum over j >= 0 of P(X > 16 j); X = 0 adds no tile, so dividing by
     * P(X >= 1) conditions on the expert being hit */
    double pmf = exp(-lambda), cdf = pmf, tiles = 0.0;
    for (int x = 1; x <= 400; x++) {
        if ((x - 1) % (int)KERNEL_WO_TILE_ROWS == 0)
            tiles += 1.0 - cdf; /* P(X > x - 1) with x - 1 = 16 j */
        pmf *= lambda / x;
        cdf += pmf;
    }
    return KERNEL_WO_TILE_ROWS * tiles / -expm1(-lambda) / rows;
}
