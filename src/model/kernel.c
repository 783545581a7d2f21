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
