/* kernel.h - kernel-level cost terms beyond the roofline (docs/model.md "Kernel-level terms").
 *
 * A forward pass is a sequence of kernels. Each costs its roofline time plus a fixed GPU cost
 * (launch latency, ramp-up, tail: kernel_s), and cannot start before the CPU has launched it
 * (launch_s per kernel unless a CUDA graph replays the step; the CPU runs ahead of the GPU, so
 * the launches cost what they exceed the step's GPU time: kernel_cpu_wait_s). GEMMs in 8-bit formats reach a
 * smaller share of their doubled peak than 16-bit ones; attention runs at 16 bits unless the
 * engine runs fp8 attention. Pure functions; the defaults below are the published figures
 * that docs/model.md cites. */
#ifndef LLMROOF_KERNEL_H
#define LLMROOF_KERNEL_H

#include "data/catalog.h"
#include "base/dtype.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Prefill attention's ramp: a FlashAttention-class kernel over L keys per sequence reaches
 * L / (L + L0) of its long-sequence efficiency (tile fill, the causal diagonal, prologue and
 * epilogue per query block); L0 = 408 keys fitted to cuDNN SDPA on an H100 SXM5, 0.662 of the
 * bf16 peak asymptotically (docs/validation/measured/h100-sxm5-80gb/constants.json). */
#define KERNEL_ATTN_RAMP_TOKENS 408.0
/* Eager attention: the fp32 score matrix is written by QK^T, read and written by softmax and
 * read by PV - 4 accesses of 4 bytes per (query, key, head) (ggml's mul_mat/soft_max_ext, HF's
 * eager path); the matmul, scale-and-mask, softmax and PV kernels are 4 launches. */
#define KERNEL_EAGER_SCORE_BYTES 16.0
#define KERNEL_EAGER_KERNELS 4.0

/* Decode attention in FasterTransformer's masked multi-head attention and the kernels adapted from
 * it (engine cuda_core_decode: vLLM's paged attention v1/v2, csrc/attention, "Adapted from
 * FasterTransformer ... decoder_masked_multihead_attention_template.hpp"; QServe's
 * decoderMaskedMultiheadAttention, "Inspired by TRT-LLM"; TensorRT-LLM's before XQA; FasterTransformer's
 * single_query_attention that AutoAWQ's fused modules call) runs one thread
 * block per sequence and query head and computes q.k and p.v in fp32 on CUDA cores: its time is at
 * least its 4 d FLOPs per (query head, key) over this share of the GPU's fp32 peak. The share is
 * the kernel's measured rate where memory does not bound it: vLLM's paged attention v1 at batch
 * 256, 4096 keys, 56 query / 8 K/V heads, head size 128 on an A100-40GB PCIe (vllm-project/vllm
 * issue #1880, benchmark_paged_attention.py, 2024-01-23): 7878 us for 256 x 4096 x 56 = 58.7 M
 * (head, key) pairs, 7.45 G pairs/s x 512 FLOP = 3.81 TFLOP/s of 19.5 = 0.196 (its 8 K/V heads'
 * 4.3 GB at 545 GB/s, 0.35 of the bandwidth: the repeated per-head reads hit L2; at batch 16 and 64
 * the rate is 0.17 and 0.15). At 0.196 of the fp32 FMA rate the kernel is not FMA-bound but
 * bound by issuing its other instructions (conversions, shuffles, exponentials, address math), so
 * other GPUs are taken to scale with their SM count and clock: the fp32 peak where an SM has 64
 * FP32 lanes, as the A100 (6912 CUDA cores on 108 SMs; P100, V100 and T4 alike), half of it where
 * it has 128 (GA10x, Ada, Hopper, Blackwell: RTX 3090 10496 on 82, L40S 18176 on 142, H100 SXM 16896
 * on 132) or the catalog's peak counts packed FP32 (CDNA3/4: the MI300X's 163.4 TFLOPS):
 * kernel_fp32_issue_share. That scaling is an assumption (an L2- or latency-bound kernel would scale
 * about alike); the one measured point is the A100's. An MHA cache still streams from memory at the
 * attention bandwidth (512 B per pair at 16 bits, 2.6x the time of this rate on an A100); a GQA
 * group of 4 or more, or a 4-bit cache, makes the instruction rate the bound. Speculative
 * verification (several query tokens a sequence) is timed as the context kernel, and MLA's absorbed
 * decode, its own kernel family, keeps the attention peak. */
#define KERNEL_MMHA_FP32_SHARE 0.196
/* The share of a GPU's fp32 peak that one instruction per lane per clock on 64 lanes per SM gives:
 * 1 on Pascal GP100 (sm60), Volta (sm70, sm72), Turing (sm75), GA100 (sm80) and CDNA1/2 (gfx908,
 * gfx90a: their quoted fp32 peak is the unpacked vector rate), 0.5 on the other architectures
 * (GA10x, Ada, Hopper, Blackwell: 128 FP32 lanes per SM; CDNA3/4: packed FP32 in the peak); a GPU
 * entry without an `arch` takes 1, the measured A100's. */
static inline double kernel_fp32_issue_share(const char *arch)
{
    static const char *const lanes64[] = { "", "sm60", "sm70", "sm72", "sm75", "sm80", "gfx908", "gfx90a" };
    for (size_t i = 0; i < sizeof lanes64 / sizeof lanes64[0]; i++)
        if (strcmp(arch, lanes64[i]) == 0)
            return 1.0;
    return 0.5;
}

/* Rows a fused weight-only GEMM unpacks its weights for at once (engine wo_issue_per_flop): llm-awq's
 * gemm_forward_4bit_cuda_m16n128k32 / _m16n64k32 tile 16 rows, so every 16 rows (or fewer) of a step
 * unpack every weight again. */
#define KERNEL_WO_TILE_ROWS 16.0
/* llm-awq's kernel is 4-bit only: the cost applies to weights of about 4 bits (with group scales, up
 * to 5.33 bits: 16-bit activations at least 3 x their bytes), not to 8-bit weight-only formats */
#define KERNEL_WO_MIN_RATIO 3.0

/* The unpacking a step of `rows` rows pays over what its FLOPs alone would charge: whole tiles of
 * KERNEL_WO_TILE_ROWS rows over the rows (1 at any multiple of 16; 16 for one decode row). The
 * tolerance is relative: a routed expert's rows are a quotient (assignments over the expected
 * experts hit, ops_experts_hit), which at Mixtral's 64 decodes reads 16.00000016, one tile. */
static inline double kernel_wo_tile_padding(double rows)
{
    return KERNEL_WO_TILE_ROWS * ceil(rows / KERNEL_WO_TILE_ROWS * (1.0 - 1e-6)) / rows;
}

/* The same for a routed expert whose rows vary from step to step around a mean of `rows` per expert
 * hit (ops tokens_per_expert): routing spreads a step's assignments as a Poisson count X of mean
 * lambda, lambda / (1 - e^-lambda) = rows for the experts hit, and the expert unpacks
 * E[ceil(X / 16) | X >= 1] tiles, so the charge rises smoothly through a whole tile's worth of rows
 * instead of jumping at 16, 32, ... (kernel.c). */
double kernel_wo_routed_tile_padding(double rows);

/* Fixed GPU time per kernel when the catalog gives none, s: the t0 of the GEMM time fit measured
 * on an H100 SXM5 (3.0 us bf16, 4.0 fp8; decode attention 7.5, RMSNorm 5.5, a graph node 1.0:
 * docs/validation/measured/h100-sxm5-80gb/constants.json), taken for every GPU: launch latency,
 * ramp-up and tail are alike across NVIDIA generations (kernels.md: 3.0 us raw launch on GB200). */
#define KERNEL_FIXED_S_DEFAULT 3.0e-6
/* CPU time to launch one kernel from C++ when the engine profile gives none, s
 * (cuLaunchKernel of a no-op kernel: 3.0-3.3 us, kernels.md). */
#define KERNEL_LAUNCH_S_DEFAULT 4.0e-6
/* Share of the 16-bit compute efficiency an 8-bit GEMM reaches on its doubled peak when the
 * catalog gives none: H100 SXM maximum achievable matmul 70.9% (fp8) / 80.3% (bf16) = 0.883. */
#define KERNEL_GEMM_8BIT_DEFAULT 0.883
/* Share of the 16-bit compute efficiency an fp16-accumulate GEMM reaches on its doubled GeForce
 * peak when the catalog gives none: cuBLAS on an RTX 4090 at M = N = K = 4096, clocks locked,
 * cublasGemmEx with fp16 accumulation 264.2 TFLOP/s = 80.0% of 330.3, with fp32 accumulation
 * 153.6 = 93.0% of 165.2 (spatters.ca, "Improving FP16/16 matmul accuracy with two-stage
 * accumulation", 2025): 0.800 / 0.930 = 0.860, the doubled peak giving 1.72x, not 2x. */
#define KERNEL_GEMM_FP16ACC_DEFAULT 0.860
/* llama.cpp's quantized matrix products: up to this many tokens (activation columns) a step the
 * MMVQ vector kernels run, above it MMQ (ggml-cuda mmvq.cuh: MMVQ_MAX_BATCH_SIZE 8). */
#define KERNEL_MMVQ_MAX_TOKENS 8.0

/* MoE grouped GEMMs at a few tokens per expert stream their expert weights below the dense
 * GEMM's rate: DeepGEMM's masked grouped fp8 GEMM (n 4096, k 7168) at 16-64 tokens per group
 * streams 1665-2002 GB/s, median of the seven cases 1813 GB/s, on a 3350 GB/s H800
 * (deepseek-ai/DeepGEMM issue #114, test_core.py output; the README's masked table shows
 * 924-2064 GB/s at 256-1024 tokens per group, where compute bounds it): 0.541 of peak against
 * the 0.85 dense weight-streaming share measured on the H100 SXM5, 0.64 of the dense rate. Below
 * 16 tokens a tensor-core grouped GEMM pads each expert's rows to its tile (64 or more), so it
 * reads the same weights in the same time as at 16: its share at 16 holds at any count (roofline.c)
 * - DeepGEMM's measured one, taken too for the grouped kernels nothing here measures (TensorRT-LLM's,
 * AMD's aiter); the kernels measured at the dense rate (Triton's fused MoE; PyTorch's CUTLASS grouped
 * GEMM, below, which no engine profile runs) stream at it at any count. An engine whose experts run as matrix-vector
 * products at a few tokens (engine moe_gemv: calm, llama.cpp's MMVQ, AutoAWQ's GEMV; their Mixtral
 * decode rows in the validation set) streams one token's expert at the dense rate, and between 1
 * and 16 tokens the share falls linearly (kernel_grouped_bw_share, an interpolation between the
 * two measured ends). Charged on the routed experts' weight bytes (llmroof_oplist.expert_wbytes).
 * The share is the kernel's: PyTorch's CUTLASS grouped GEMM streams at the dense rate at 1-128
 * tokens per expert on our H100 (measured/h100-sxm5-80gb/moe_gemm.csv), while the engines in the
 * validation set run Triton/DeepGEMM MoE kernels; 1.0 made every held-out class equal or worse. */
#define KERNEL_GROUPED_GEMM_BW_SHARE 0.64
#define KERNEL_GROUPED_GEMM_FULL_TOKENS 16.0
/* Triton's fused-MoE kernel (vLLM's fused_moe, SGLang's fused_moe_triton, with the tuned
 * configurations they ship) times the whole expert MLP (both grouped GEMMs, the activation and the
 * weighted sum) in the engines' own benchmark_moe scripts, published in their pull requests:
 * - at 16 to 1,024 tokens its expert weights stream at the dense GEMM's rate, not at the grouped
 *   share above: Mixtral-8x7B at TP 2 on an H100 (E 8, N 7168, K 4096, bf16; vllm-project/vllm
 *   PR #24700) 483 us at 64 tokens (16 a hit expert) for 1.41 GB of weights, 2.9 TB/s; Gemma 4's
 *   MoE on an H200 (E 128, N 704, K 2816; PR #44818), E 64 N 1408 on an A100 (PR #40542) and
 *   Qwen3-30B-A3B fp8 on an L40S (PR #53710) within 0.85-1.08 of llmroof's dense streaming;
 * - from about 1,024 tokens on, where they compute, they reach less than the dense GEMM: Mixtral
 *   482 TFLOP/s at 1,536 tokens (0.49 of the H100's bf16 peak), Gemma 4 328 at 4,096 (0.33 of
 *   the H200's), the A100 shape 161 (0.52), 0.55-0.83 of this model's dense rate. 0.72, the
 *   median, is the share: its grid gathers each tile's rows through the sorted token ids (no
 *   TMA copy, no warp specialisation), where cuBLAS's and CUTLASS's dense kernels stream whole tiles.
 * Left: experts under about 2 MB (E 512 at N 128-256 in block fp8 on an H20, PR #45142, and an
 * H200, PR #36559) take 1.2-1.8x longer than this (2.7x at one H20 point), a cost per expert
 * that no published table sizes across GPUs. */
#define KERNEL_TRITON_MOE_COMPUTE_SHARE 0.72
/* SMs DeepEP's normal (prefill) kernels hold while they run: deep_ep/buffer.py Buffer.num_sms, 20 by
 * default, which SGLang's DeepEPConfig keeps unless --deepep-config sets one; under two-batch overlap
 * the other micro-batch's GEMMs run on the rest (roofline.c rl_tbo_sm_factor) */
#define KERNEL_DEEPEP_NORMAL_SMS 20

/* Blackwell's grouped fp4 MoE kernels (TensorRT-LLM-gen's NVFP4 MoE, which FlashInfer carries and
 * vLLM, SGLang and TensorRT-LLM call) compute their expert GEMMs far below the dense fp4 GEMM's
 * rate. FlashInfer's benchmark of a DeepSeek EP 8 shard on a B300 (flashinfer-ai/flashinfer PR
 * #5301, the corrected NVFP4 table: 32 local experts, N 2048, K 7168, routing, activation
 * quantization and the final combine included) takes 622.6 us at 16,384 tokens (512 an expert),
 * its most compute-bound point, and 25.7 us at 1 token (the fixed part): 1.443 TFLOP in 596.9 us,
 * 2.418 PFLOP/s. This model's dense fp4 rate at that shape is 13.5 PFLOP/s x 0.695 (compute) x
 * 0.948 (8-bit share) = 8.895 PFLOP/s, 8.762 with the short-K terms of K 7168 and 2048 (164.7 us
 * a layer), so the share is 2.418 / 8.762 = 0.28. Below about 512 tokens the kernel streams its
 * weights and the share does not bind; its 1,024-4,096-token plateau (294-312 us) has no cause in
 * the table and is left. */
#define KERNEL_FP4_MOE_COMPUTE_SHARE 0.28
static inline double kernel_grouped_bw_share(double tokens_per_expert)
{
    if (!(tokens_per_expert > 1.0))
        return 1.0;
    double f = (tokens_per_expert - 1.0) / (KERNEL_GROUPED_GEMM_FULL_TOKENS - 1.0);
    if (f > 1.0)
        f = 1.0;
    return 1.0 - (1.0 - KERNEL_GROUPED_GEMM_BW_SHARE) * f;
}

/* The CPU launch wait of a whole step (docs/model.md 3a): launches are asynchronous - the CPU
 * enqueues kernels ahead while the GPU drains its queue - so a step of GPU time gpu_s whose kernels
 * take launch_s of CPU to launch lasts about max(gpu_s, launch_s): the GPU waits
 * max(0, launch_s - gpu_s). (Exactly, max over k of C_k + the GPU time of kernels k..n, C_k the
 * CPU time to launch kernel k; the step-level max is its value when launches are spread evenly.)
 * The per-operator max of kernel_instance_s charges an operator's launch even when the GPU is
 * still busy with an earlier one; it stays right for one kernel alone (opval). */
static inline double kernel_cpu_wait_s(double gpu_s, double launch_s)
{
    return launch_s > gpu_s ? launch_s - gpu_s : 0.0;
}

/* Per-kernel GPU cost of g (catalog value or the default), s. */
double kernel_fixed_s(const struct llmroof_gpu *g);

/* Share of the 16-bit compute efficiency that GEMMs computing in `act` reach: 1 for 16/32-bit,
 * the GPU's gemm_8bit for fp8, int8 and int4 compute. */
double kernel_gemm_dtype_scale(const struct llmroof_gpu *g, enum llmroof_dtype act);

/* The fp16 peak multiplier of GEMMs that accumulate in fp16 (engine fp16_accumulate) on g: the
 * catalog's fp16_accumulate_ratio (GeForce: 2) times the share of the compute efficiency such
 * GEMMs reach on that doubled peak (gemm_fp16_accumulate, or the default); 1 where the GPU has no
 * faster fp16-accumulate path. */
double kernel_fp16acc_peak_scale(const struct llmroof_gpu *g);

/* Block-scaled fp8 GEMMs (DeepSeek-V3's format: one scale per 128 of K, promoted on the CUDA cores
 * every 128 of K on Hopper) reach the per-tensor fp8 rate at long K but lose it at short K: a
 * GEMM of M x N x K takes 2 M N (K + K0) FLOP at that rate. K0 = 520, the median of
 * K (rate / measured - 1) over DeepGEMM's dense table (deepseek-ai/DeepGEMM README, February
 * 2025, H800, M 4096: K 512 590 TFLOP/s, 1536 990, 2048 1025, 7168 1058 and 1304, 16384 1358;
 * rate 1306 TFLOP/s = 1979 x 0.71 x 0.93, this model's per-tensor fp8 GEMM on an H100-class SM):
 * 626, 485, 561, 1680, 11 and 0. Its grouped MoE rows at K 2048 give 390-844. A TP-8 DeepSeek
 * expert's down projection (K 256) runs at 256 / 776 = 0.33 of the rate. Per-tensor GEMMs take
 * the smaller term below (docs/model.md "Mixed-precision checkpoints"). */
#define KERNEL_BLOCK_FP8_K0 520.0

/* Per-tensor GEMMs lose rate at short K too, less: a GEMM of M x N x K computes as 2 M N (K + K0)
 * FLOP at the rate that 2 M N (Kref + K0) / (2 M N Kref) times the catalog's would give, so that a
 * GEMM at K = Kref takes the catalog's rate (its compute efficiency was measured on LLM shapes,
 * K 4,096-8,192 mostly) and a shorter K less. K0 from the repository's own H100 SXM5 cuBLAS
 * measurements where they are compute-bound (docs/validation/measured/h100-sxm5-80gb/gemm.csv,
 * M >= 2,048, the LM head left out: 120 rows a dtype, K 768 to 25,600): the least-squares fit of
 * share = e K / (K + K0) gives e 0.733, K0 150 at bf16 and e 0.700, K0 450 at fp8 (fitting the
 * logarithm: 155 and 505). Median shares per K, bf16: 0.592 at 768, 0.662 at 1,024, 0.702 at
 * 2,048, 0.714 at 4,096, 0.723 at 8,192; fp8: 0.364, 0.531, 0.574, 0.641, 0.659. DeepSeek's
 * block-scaled fp8 keeps its own K0 (above). */
#define KERNEL_GEMM_K0_16BIT 150.0
#define KERNEL_GEMM_K0_8BIT 450.0
#define KERNEL_GEMM_KREF 4096.0

/* f FLOPs of GEMMs writing `out` output elements, as the short-K rule charges them (above):
 * (f + 2 K0 out) / (1 + K0 / Kref); f / (2 out) is their mean K. */
static inline double kernel_gemm_short_k_flops(double f, double out, bool eight_bit)
{
    const double k0 = eight_bit ? KERNEL_GEMM_K0_8BIT : KERNEL_GEMM_K0_16BIT;
    const double g = (f + 2.0 * k0 * out) / (1.0 + k0 / KERNEL_GEMM_KREF);
    return g > f ? g : f;
}

/* A compute-bound GEMM of `rows` rows fills the GPU only gradually: on the MI300X (304 CUs) AMD's
 * own tuned fp8 GEMMs take, past their ridge, about the time of rows + M0 rows at their large-M
 * rate, M0 fitted per shape 171-842 (K >= 2,048), larger the narrower the output: M0 = M0ref x
 * (4096 / N)^0.43, M0ref the GPU's gemm_ramp_rows at N 4,096 (250 on the MI300X; docs/model.md
 * "GEMM fill ramp"), where the H100's cuBLAS GEMMs, which its compute efficiency was measured on,
 * reach their rate within a few hundred rows. Below the ridge the libraries' split-K and GEMV
 * kernels fill the chip from the weights' side, so the ramp applies in proportion to how
 * compute-bound the GEMM is:
 *   c' = c (1 + M0 / (rows max(1, m / c)))
 * c and m the GEMM's compute and memory times. At M0 250 a decode of 1,024 rows computes 1.24x as
 * long, one of 4,096 1.06x; at one row (m / c in the hundreds) the added compute is c^2 M0 / m, a
 * fraction of a percent of the weights' read. */
#define KERNEL_GEMM_RAMP_NREF 4096.0
#define KERNEL_GEMM_RAMP_N_EXP 0.43

/* M0 for GEMMs of N output columns (mean over an operator's GEMMs; 0 = not known: M0ref). */
static inline double kernel_gemm_ramp_rows(double ramp_rows, double n)
{
    return n > 0 ? ramp_rows * pow(KERNEL_GEMM_RAMP_NREF / n, KERNEL_GEMM_RAMP_N_EXP) : ramp_rows;
}

static inline double kernel_gemm_ramp_compute_s(double c, double m, double rows, double ramp_rows)
{
    if (!(ramp_rows > 0 && rows > 0 && c > 0))
        return c;
    const double fill = rows * (m > c ? m / c : 1.0);
    return c * (1.0 + ramp_rows / fill);
}

/* The 16-bit dtype attention computes in for activations `act` (bf16 stays bf16, all else fp16
 * where the GPU has it). */
enum llmroof_dtype kernel_attention_dtype(const struct llmroof_gpu *g, enum llmroof_dtype act);

/* Time of one instance of an operator of `kernels` kernels whose roofline terms are compute_s and
 * memory_s, a share `overlap` of the shorter term not hidden under the longer (0: the perfect
 * roofline max):
 *   max(max(c + overlap*m, m + overlap*c) + kernels * fixed_s, kernels * launch_s)
 * (max(c + o*m, m + o*c) = max(c, m) + o*min(c, m) for o <= 1: linear pieces, so sums over a
 * decode's contexts stay exact). */
static inline double kernel_instance_s(double compute_s, double memory_s, double overlap, double kernels,
                                       double fixed_s, double launch_s)
{
    double a = compute_s + overlap * memory_s, b = memory_s + overlap * compute_s;
    double gpu = (a > b ? a : b) + kernels * fixed_s;
    double cpu = kernels * launch_s;
    return gpu > cpu ? gpu : cpu;
}

/* A GEMM-type kernel near its ridge point: time = (c^p + m^p)^(1/p), the smooth maximum the
 * H100 GEMM measurements fit best (p = 6, 528 bf16 shapes, median |error| 3.4%:
 * docs/validation/measured/h100-sxm5-80gb/constants.json) - 12% above max(c, m) where the two
 * terms are equal, within 0.3% of it once one term is twice the other. */
#define KERNEL_RIDGE_P 6
static inline double kernel_ridge_max(double compute_s, double memory_s)
{
    double hi = compute_s > memory_s ? compute_s : memory_s, lo = compute_s > memory_s ? memory_s : compute_s;
    if (!(hi > 0))
        return 0.0;
    double r = lo / hi, r2 = r * r, r6 = r2 * r2 * r2;
    /* far from the ridge (most decode GEMMs) two terms of (1 + x)^(1/6) = 1 + x/6 - 5x^2/72 + ...
     * are exact to 1e-13 for x < 1e-4 and keep bench_engine fast; near it, the roots */
    if (r6 < 1e-4)
        return hi * (1.0 + r6 * (1.0 / 6.0 - r6 * (5.0 / 72.0)));
    return hi * cbrt(sqrt(1.0 + r6));
}

/* One instance of a GEMM-type operator (projections, MLP, norms: everything but attention):
 *   max(ridge_max(c, m) + kernels * fixed_s, kernels * launch_s) */
static inline double kernel_gemm_instance_s(double compute_s, double memory_s, double kernels, double fixed_s,
                                            double launch_s)
{
    double gpu = kernel_ridge_max(compute_s, memory_s) + kernels * fixed_s;
    double cpu = kernels * launch_s;
    return gpu > cpu ? gpu : cpu;
}

#endif
