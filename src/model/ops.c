/* ops.c - model + step + TP -> operator list (see llmroof/ops.h).
 *
 * Notation per rank: T new tokens, S sequences, h hidden, d head_dim, Hq query heads,
 * Kr KV heads, I' MLP width, V' vocabulary rows; a, w, k = activation, weight and KV
 * bytes per element. FLOPs count a multiply-add as 2 (kipply, "Transformer inference
 * arithmetic", 2022). Attention FLOPs are 4*d per (query, key) pair and head: 2*d for
 * QK^T and 2*d for PV; causal prefill has P(P+1)/2 pairs (the "causal half").
 * Flash-style attention keeps scores on chip, so its HBM traffic is Q, O and the K/V
 * read once per sequence (Dao et al. 2022). Full derivation: docs/model.md. */
#include "model/ops.h"

#include "model/arch.h"
#include "model/comm.h"
#include "model/layers.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

static const char *const names[LLMROOF_OP_COUNT] = {
    "norm", "qkv_proj", "kv_write", "attention", "o_proj", "all_reduce",
    "router", "ffn", "final_norm", "lm_head", "all_gather",
    "attention_local", "mla_kv_up", "dense_ffn", "all_to_all", "pp_send", "linear_mix", "dsa_indexer",
    "mlp_gather"
};

/* memset(p, 0, n) in pieces of at most 64 bytes: gcc 12 inlines a constant memset of 96 bytes
 * or more as `rep stos`, slow to start on AMD Zen (4% of an estimate for the operator list), and
 * turns these pieces into plain vector stores. */
static inline void zero_bytes(void *p, size_t n)
{
    char *c = p;
    while (n > 64) {
        memset(c, 0, 64);
        c += 64;
        n -= 64;
    }
    memset(c, 0, n);
}

const char *op_name(enum llmroof_opkind k)
{
    return (k >= 0 && k < LLMROOF_OP_COUNT) ? names[k] : "?";
}

void batch_add(struct llmroof_batch *b, double new_tokens, double past_tokens, const struct ops_few_rule *few)
{
    const double pairs = new_tokens * past_tokens + new_tokens * (new_tokens + 1.0) / 2.0;
    b->tokens += new_tokens;
    b->seqs += 1.0;
    b->attn_pairs += pairs;
    b->kv_read_tokens += past_tokens + new_tokens;
    if (ops_few_query(few, new_tokens, past_tokens, pairs)) {
        b->few_tokens += new_tokens;
        b->few_seqs += 1.0;
        b->few_pairs += pairs;
        b->few_keys += past_tokens + new_tokens;
    }
}

struct ops_few_rule ops_few_rule_flops(const struct llmroof_model *m)
{
    if (!arch_is_mla(m) || m->dsa_top_k > 0)
        return *OPS_FEW_GENERIC;
    /* attention_op and set_context's FLOPs for one sequence of N new tokens after P cached ones,
     * per head (x 2 Hq): absorbed (2r + p) pairs + r (n + v) N (W_UK and W_UV per new token),
     * decompressed (n + p + v) pairs + r (n + v) (P + N) (kv_b per key). Their difference is
     * (2r - n - v) pairs - r (n + v) P: absorbed costs no more while pairs <= t P. */
    const double r = (double)m->kv_lora_rank, n = (double)m->qk_nope_dim, v = (double)m->v_head_dim;
    const double extra_per_pair = 2.0 * r - n - v;
    const double t = extra_per_pair > 0.0 ? r * (n + v) / extra_per_pair : DBL_MAX;
    return (struct ops_few_rule){ 1.0, t, 0.0, 0.0 };
}

int ops_shard(const struct llmroof_model *m, int tp, struct llmroof_shard *out, struct llmroof_err *err)
{
    zero_bytes(out, sizeof *out);
    if (tp < 1 || tp > 1024)
        return llmroof_err_set(err, LLMROOF_EINPUT, "tensor parallelism %d must be between 1 and 1024", tp);
    if (m->heads % tp != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "model '%s' has %ld attention heads, which TP %d does not divide", m->id, m->heads, tp);
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "model '%s' has %ld KV heads: TP %d must divide them or be a multiple of them",
                               m->id, m->kv_heads, tp);
    /* a linear / state-space mixer's heads split across the ranks as attention's do (vLLM's
     * divide() in each layer: a TP that leaves a fraction of a head is refused there); Mamba-2's
     * groups too, unless one group is copied to every rank; Mamba-1 splits its d_inner channels */
    const long lh = m->lin_heads, lk = m->lin_k_heads;
    switch (m->linear_kind) {
    case LLMROOF_LINEAR_GDN:
    case LLMROOF_LINEAR_KDA:
        if (lh % tp != 0 || lk % tp != 0 || (lk > 0 && lh % lk != 0))
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "model '%s' has %ld linear-attention value heads and %ld key heads: TP %d must "
                                   "divide both (and the key heads the value heads)", m->id, lh, lk, tp);
        break;
    case LLMROOF_LINEAR_MAMBA2:
        if (lh % tp != 0 || (lk > 1 && lk % tp != 0))
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "model '%s' has %ld Mamba-2 heads in %ld groups: TP %d must divide the heads and "
                                   "the groups (or there is one group)", m->id, lh, lk, tp);
        break;
    case LLMROOF_LINEAR_LIGHTNING:
    case LLMROOF_LINEAR_MAMBA1:
        if (lh % tp != 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "model '%s' has %ld %s, which TP %d does not divide", m->id,
                                   lh, m->linear_kind == LLMROOF_LINEAR_MAMBA1 ? "Mamba channels" : "linear-attention heads",
                                   tp);
        break;
    case LLMROOF_LINEAR_NONE:
        break;
    }
    out->tp = tp;
    out->pp = 1;
    out->ep = 1;
    out->attn_dp = 1;
    out->moe_tp = tp;
    out->mlp_gather = false;
    out->mlp_shared_local = false;
    out->gpus_per_stage = tp;
    out->gpus = tp;
    out->stage_layers_max = out->stage_layers_min = m->layers;
    out->ep_imbalance = 0.0; /* the busiest rank of uniform routing (ops_build) */
    out->heads_per_rank = m->heads / tp;
    if (m->kv_heads >= tp) {
        out->kv_heads_per_rank = m->kv_heads / tp;
        out->kv_replicated = false;
    } else {
        /* vLLM/Megatron: each KV head is copied to TP/KV ranks; a rank holds one. */
        out->kv_heads_per_rank = 1;
        out->kv_replicated = true;
    }
    out->intermediate_per_rank = (double)m->intermediate / tp;
    out->moe_intermediate_per_rank = (double)m->moe_intermediate / tp;
    out->shared_intermediate_per_rank = out->moe_intermediate_per_rank;
    out->vocab_per_rank = (double)m->vocab / tp;
    out->lm_vocab_per_rank = out->vocab_per_rank;
    out->few = ops_few_rule_flops(m);
    return LLMROOF_OK;
}

/* The expected largest of m independent standard normal draws, by Blom's plotting position
 * Phi^-1((m - 0.375) / (m + 0.25)) (m = 2: 0.59 against the exact 0.56; 8: 1.43 / 1.42; 64:
 * 2.33 / 2.34); Phi^-1 by Acklam's rational approximation (relative error below 1.2e-9). */
static double normal_expected_max(int m)
{
    if (m <= 1)
        return 0.0;
    const double q = ((double)m - 0.375) / ((double)m + 0.25);
    static const double a[] = { -3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00 };
    static const double b[] = { -5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                6.680131188771972e+01,  -1.328068155288572e+01 };
    static const double c[] = { -7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00 };
    static const double d[] = { 7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                3.754408661907416e+00 };
    if (q > 0.97575) { /* the upper tail (m >= 26) */
        const double t = sqrt(-2.0 * log(1.0 - q));
        return -(((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
               ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1.0);
    }
    const double u = q - 0.5, r = u * u;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* x^m for a whole m >= 0 by squaring (m is a rank count: 3 multiplications at EP 8, where pow was
 * a tenth of a DeepSeek DPA simulation) */
static double ipow(double x, int m)
{
    double r = 1.0;
    while (m > 0) {
        if (m & 1)
            r *= x;
        x *= x;
        m >>= 1;
    }
    return r;
}

double ops_binomial_expected_max(double n, double p, int m)
{
    if (!(n > 0) || !(p > 0))
        return 0.0;
    if (p >= 1.0)
        return n;
    const double mean = n * p, var = n * p * (1.0 - p);
    if (m <= 1)
        return mean;
    if (var > 25.0) { /* the normal form, within a fraction of a count at this spread */
        const double e = mean + sqrt(var) * normal_expected_max(m);
        return e < n ? e : n;
    }
    /* exactly, E[max] = sum over j of P(max > j) = sum (1 - F(j)^m), from the side of the smaller
     * probability (the max of X ~ B(N, p) is N minus the min of N - X ~ B(N, 1 - p), and
     * E[min] = sum (1 - F(j))^m) so (1 - q)^N cannot underflow (var <= 25: N q <= 50); the sum
     * stops where the terms left are below 1e-12 */
    const long N = (long)(n + 0.5);
    const bool upper = p > 0.5;
    const double q = upper ? 1.0 - p : p, odds = q / (1.0 - q);
    double pmf = pow(1.0 - q, (double)N), F = 0.0, e = 0.0;
    for (long j = 0; j < N; j++) {
        F += pmf;
        const double term = upper ? ipow(1.0 - F, m) : 1.0 - ipow(F, m);
        e += term;
        if (term < 1e-12) /* F only grows: every later term is smaller */
            break;
        pmf *= (double)(N - j) / (double)(j + 1) * odds;
    }
    return upper ? (double)N - e : e;
}

double ops_experts_hit(double experts, double top_k, double tokens)
{
    if (experts <= 0)
        return 0;
    if (top_k >= experts)
        return experts;
    /* Saturation without pow, to the bit: with q = 1 - k/E, q^n <= exp(-n k/E) (ln(1 - x) <= -x),
     * so n k/E >= 45 gives q^n <= e^-45 < 2^-64 (the double q differs from 1 - k/E by an ulp of
     * 1, far inside that margin), and 1 - q^n, within half an ulp (2^-54) of 1, rounds to 1:
     * the formula's value is E * 1 exactly. Every prefill and large decode batch of a MoE model
     * lands here (Mixtral: n >= 180 tokens; DeepSeek-V3: n >= 1440); pow was 2-6% of MoE runs. */
    if (tokens * top_k / experts >= 45.0)
        return experts;
    return experts * (1.0 - pow(1.0 - top_k / experts, tokens));
}

/* Block-scaled fp8 checkpoints (DeepSeek-V3/R1, Kimi-K2: e4m3 weights with one fp32 scale per
 * 128 x 128 block, checkpoint.bits 8.002) served at their fp8 weights run every linear layer as a
 * W8A8 GEMM whose activations are first quantized per token and group of 128 by a kernel of their
 * own: vLLM's apply_w8a8_block_fp8_linear and SGLang's (fp8_utils.py) call
 * per_token_group_quant_fp8 and then the block GEMM (DeepGEMM, CUTLASS, Triton, aiter's
 * gemm_a8w8_blockscale on ROCm), and the fused-MoE path quantizes its input before the gate_up
 * GEMM and the activated intermediate before the down GEMM (fused_moe.py). Per-tensor fp8
 * (--weight-dtype fp8 on a 16-bit checkpoint) is not this case. */
/* the modules such a checkpoint quantized: every GEMM but the LM head (and the router) */
#define BLOCK_FP8_MODULES                                                                                   \
    (LLMROOF_CKPT_QKV_PROJ | LLMROOF_CKPT_MLA_KV_UP | LLMROOF_CKPT_O_PROJ | LLMROOF_CKPT_FFN |                 \
     LLMROOF_CKPT_DENSE_FFN)
static bool block_fp8(const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    return dt->weight == LLMROOF_FP8 && !(dt->weight_bits > 0) && strcmp(m->ckpt_format, "fp8") == 0 &&
           m->ckpt_bits > 8.0 && m->ckpt_bits < 9.0; /* (16 with fp8 experts alone: not block-scaled) */
}

double ops_unquantized_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt, bool lm_head)
{
    if (block_fp8(m, dt))
        return 2.0; /* the checkpoint's own bf16 tensors (model.embed_tokens, lm_head, mlp.gate) */
    if (lm_head && ops_ckpt_quantized(m, dt, LLMROOF_CKPT_LM_HEAD))
        return m->ckpt_bits / 8.0; /* a per-operator checkpoint that quantized its head */
    const double w = ops_weight_bytes(dt);
    /* The quantizers a 16-bit checkpoint goes through leave the embedding, the LM head and the
     * MoE gate 16-bit: AutoAWQ and llm-awq quantize the decoder layers' linear modules only (and
     * list the gate in modules_to_not_convert), GPTQ the same, llm-compressor's FP8 and W4A16
     * recipes ignore lm_head, Model Optimizer excludes *lm_head*, and vLLM's on-the-fly fp8
     * (--quantization fp8) replaces LinearBase layers, not ParallelLMHead. The head is read whole
     * every decode step: Llama-3-8B's 525M-weight head at 16 bits is 1.05 GB beside 3.7 GB of
     * 4-bit layers. Engines whose own formats quantize it say so (quantized_head). */
    if (w < 2.0 && !dt->head_quantized)
        return 2.0;
    return w;
}

unsigned ops_ckpt_lowp_modules(const struct llmroof_model *m, const struct llmroof_dtypes *dt,
                               enum llmroof_dtype *compute)
{
    *compute = dt->act;
    /* Block-scaled fp8 served at its own weights: every linear layer the checkpoint quantized (all
     * but the embedding, the MoE router and the LM head, which DeepSeek-V3's and Kimi-K2's
     * checkpoints keep bf16) is a W8A8 GEMM on the fp8 tensor cores, over activations the
     * quantization kernels above made fp8, while attention and the activations between layers stay
     * 16-bit (vLLM's Fp8LinearMethod with weight_block_size and its fp8 fused MoE on compute
     * capability 8.9+, SGLang's fp8_utils.py; on an A100 both fall back to weight-only Marlin:
     * roofline.c runs them at the activation dtype where the GPU has no fp8 path) */
    if (block_fp8(m, dt) && dt->act != LLMROOF_FP8) {
        *compute = LLMROOF_FP8;
        return BLOCK_FP8_MODULES;
    }
    /* NVFP4 (Model Optimizer's NVFP4 config): the weights and the GEMMs' input activations both
     * quantized to e2m1, blocks of 16 with an e4m3 scale; vLLM's ModelOpt NVFP4 linear and MoE
     * methods run them as fp4 x fp4 GEMMs (CUTLASS / FlashInfer) on GPUs with that path */
    if (!m->ckpt_per_op || strcmp(m->ckpt_format, "nvfp4") != 0)
        return 0;
    unsigned mods = 0;
    for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
        if (ops_ckpt_quantized(m, dt, 1u << i))
            mods |= 1u << i;
    if (mods)
        *compute = LLMROOF_FP4;
    return mods;
}

double ops_norm_residual_bytes(const struct llmroof_model *m, double tokens, double stream_bytes)
{
    const double adds = m->parallel_attn ? 1.0 : 2.0; /* residual adds a layer */
    return 2.0 * adds / arch_norms_per_layer(m) * tokens * (double)m->hidden * stream_bytes;
}

unsigned ops_modules_to_ops(unsigned modules)
{
    static const enum llmroof_opkind kind[LLMROOF_CKPT_MODULES] = { LLMROOF_OP_QKV_PROJ, LLMROOF_OP_MLA_KV_UP,
                                                                    LLMROOF_OP_O_PROJ,   LLMROOF_OP_FFN,
                                                                    LLMROOF_OP_DENSE_FFN, LLMROOF_OP_LM_HEAD };
    unsigned ops = 0;
    for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
        if (modules >> i & 1u)
            ops |= 1u << kind[i];
    return ops;
}


/* HBM traffic of one per-tensor or per-token quantization kernel over `rows` x `width` 16-bit
 * activations: read at a, write at ag (vLLM's static scaled_fp8_quant and its dynamic per-token
 * kernel are one pass each; a per-token scale is 4 bytes a row, left out) */
static inline double quant8_bytes(double rows, double width, double a, double ag)
{
    return rows * width * (a + ag);
}

/* The block-fp8 kernel (per_token_group_quant_fp8): reads the 16-bit input, writes one fp8 byte an
 * element and one fp32 scale per 128 (the GEMM's own read stays charged at the activation dtype:
 * an upper bound by 1 byte per element) */
static inline double quant_bytes(double rows, double width, double a)
{
    return quant8_bytes(rows, width, a, 1.0 + 4.0 / 128.0);
}

/* HBM traffic of the MLP's intermediate activations per token of width `width`:
 * gated: gate_up writes 2w, the SiLU-and-multiply kernel reads 2w and writes w, down
 * reads w (6w); plain: up writes w, the activation reads and writes w, down reads w (4w). */
static double mlp_inter_elems(enum llmroof_mlp kind, double width)
{
    return kind == LLMROOF_MLP_GATED ? 6.0 * width : 4.0 * width;
}

double ops_stream_bytes(const struct llmroof_dtypes *dt)
{
    const double a = dtype_bytes(dt->act);
    return a < 2.0 ? 2.0 : a;
}

/* Whether a GEMM's 8-bit input (q8: per-tensor or per-token W8A8, not a block-fp8 checkpoint's
 * own path) is quantized by a kernel of its own, which reads the 16-bit activations and writes
 * the 8-bit copy, rather than by the kernel that produced it (engine act_quant, catalog.h).
 * `opaque`: the producer is a custom operator a compiler cannot fuse into (attention before the
 * O projection; the fused-MoE op, which quantizes its own input and intermediate: vLLM's
 * moe_kernel_quantize_input). */
static bool quant_own(const struct llmroof_dtypes *dt, bool q8, bool opaque)
{
    if (!q8)
        return false;
    return dt->act_quant == LLMROOF_ACT_QUANT_SEPARATE || (opaque && dt->act_quant == LLMROOF_ACT_QUANT_NORM_ACT);
}


/* The bytes of an attention output element: the stream's, or the GEMM's 8-bit input where the
 * engine's attention writes the O projection's quantized input itself (act_quant fused: TensorRT-
 * LLM's FP8 recipe, attention_output_orig_quant_scale); a block-fp8 checkpoint quantizes it in a
 * kernel of its own (per_token_group_quant_fp8), as norm-act and separate engines do. */
double ops_attn_out_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    const double a = ops_stream_bytes(dt), ag = dtype_bytes(dt->act);
    const bool q8 = ag < a && !block_fp8(m, dt);
    return q8 && !quant_own(dt, q8, true) ? ag : a;
}

/* An MLP's activation traffic for one token of hidden h through width `width`: gate_up reads its
 * input (at ag, an 8-bit GEMM's input, else a) and down writes h at a, beside mlp_inter_elems'
 * intermediate at a, of which down reads the last width at ag; `fused`: the activation kernel
 * writes that 8-bit copy itself (engine act_quant) instead of a 16-bit one. */
static double mlp_act_bytes(enum llmroof_mlp kind, double h, double width, double a, double ag, bool fused)
{
    return h * (ag + a) + mlp_inter_elems(kind, width) * a - width * (a - ag) * (fused ? 2.0 : 1.0);
}

/* Attention of one kind of layer: `pairs` (query, key) pairs and `keys` keys read, per rank.
 * Standard: 4*d FLOP per pair and head; Q (at a), O (at ao: ops_attn_out_bytes) and the K/V of each
 * key once.
 * MLA absorbed (decode, FlashMLA): scores over the latent and rope key, 2*(r_kv + p) per
 *   pair and head, output in the latent, 2*r_kv; one latent row of (r_kv + p) per key,
 *   shared by the heads. MLA decompressed (prefill): K of n+p and V of v per head. */
static inline void attention_op(const struct llmroof_model *m, double Hq, double Kr, double T, double pairs, double keys,
                                double a, double ao, double k, bool absorbed, double count, struct llmroof_op *o)
{
    /* written field by field into the list (a struct returned by value went through the stack and
     * back with wider loads than its stores, a store-forwarding stall on every step built) */
    const double d = (double)m->head_dim;
    o->count = count;
    o->comm_bytes = 0;
    o->kernels = 1;
    o->wbytes = 0;
    if (arch_is_mla(m)) {
        const double rkv = (double)m->kv_lora_rank, p = (double)m->qk_rope_dim;
        const double n = (double)m->qk_nope_dim, v = (double)m->v_head_dim;
        if (absorbed) {
            o->flops = 2.0 * Hq * (2.0 * rkv + p) * pairs;
            o->bytes = T * Hq * (rkv + p) * a + T * Hq * rkv * a + keys * (rkv + p) * k;
            return;
        }
        o->flops = 2.0 * Hq * (n + p + v) * pairs;
        o->bytes = T * Hq * (n + p) * a + T * Hq * v * a + keys * Hq * (n + p + v) * a;
        return;
    }
    o->flops = 4.0 * d * Hq * pairs;
    o->bytes = T * Hq * d * (a + ao) + 2.0 * keys * Kr * d * k;
}

/* MLA attention of a mixed step: the few-query sequences absorbed, the others decompressed,
 * one kernel each (vLLM's MLA backend splits the batch so; FlashMLA serves the first part). */
static void mla_attention_mixed(const struct llmroof_model *m, double Hq, double T, double pairs, double keys,
                                double fT, double fpairs, double fkeys, double a, double k, double count,
                                struct llmroof_op *out)
{
    struct llmroof_op o = { 0 };
    const double rT = T - fT > 0 ? T - fT : 0.0;
    if (fT > 0)
        attention_op(m, Hq, 0, fT, fpairs, fkeys, a, a, k, true, count, &o);
    if (rT > 0) {
        struct llmroof_op d;
        attention_op(m, Hq, 0, rT, pairs - fpairs, keys - fkeys, a, a, k, false, count, &d);
        o.count = count;
        o.flops += d.flops;
        o.bytes += d.bytes;
        o.kernels += d.kernels;
    }
    *out = o;
}

/* x / rep, and x itself without replicas: x / 1 == x, so the same value without the division
 * (six of them a call, on every step the simulator and an estimate build) */
static inline double per_replica(double x, double rep)
{
    return rep > 1.0 ? x / rep : x;
}

/* The operators that depend on the keys each new token attends to: attention (global and
 * windowed layers), the K/V part of its bytes, and MLA's decompressing up-projection.
 * ops_set_context with the layer counts and element sizes ops_build has already derived */
static void set_context(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_batch *b,
                        const struct arch_layer_kinds *kinds, double a, double ao, double w, double k_elem,
                        struct llmroof_oplist *out)
{
    /* the bytes a cached element reads as: a DSA model's 8-bit latent is FlashMLA's sparse fp8
     * layout, scales and a 16-bit rope key included (layers_mla_latent_bytes) */
    const double k = arch_is_mla(m) && m->dsa_top_k > 0
                         ? layers_mla_latent_bytes(m, k_elem) / ((double)m->kv_lora_rank + (double)m->qk_rope_dim)
                         : k_elem;
    const double rep = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    const double T = per_replica(b->tokens, rep), S = per_replica(b->seqs, rep);
    const double d = (double)m->head_dim, L = (double)kinds->attn; /* attention layers */
    const double Lloc = (double)kinds->local, Lglob = L - Lloc;
    const double Hq = (double)sh->heads_per_rank, Kr = (double)sh->kv_heads_per_rank;
    const bool mla = arch_is_mla(m);
    struct llmroof_op *op = out->op;

    /* MLA: each sequence its own way, as vLLM and SGLang split a step: the few-query sequences
     * absorbed (decodes, MTP/spec verification, and any chunk at or below the break-even of the
     * two forms at its context: the shard's ops_few_rule, applied as the batch was summed), the
     * others decompressed (docs/model.md "MLA").
     * DeepSeek Sparse Attention runs every sequence absorbed, prefill included: the V3.2-Exp
     * report (section 2.1, "Instantiate DSA under MLA") implements DSA in MLA's MQA mode, each
     * latent entry shared by all query heads, as FlashMLA's sparse prefill and decode kernels
     * (d_qk 576, d_v 512) that vLLM's and SGLang's DSA backends call. */
    const bool dsa = mla && m->dsa_top_k > 0;
    double pairs = per_replica(b->attn_pairs, rep), keys = per_replica(b->kv_read_tokens, rep);
    /* SGLang (shard dsa_dense_prefill) runs a step's prompts dense, the decompressed MLA of a
     * DeepSeek-V3 prefill without the indexer's scores, when they attend to at most top_k keys,
     * where top-k selection keeps every key anyway (its MHA_ONE_SHOT below
     * SGLANG_NSA_PREFILL_DENSE_ATTN_KV_LEN_THRESHOLD, which defaults to the model's index_topk;
     * the engine tests the step's longest prompt, this the prompts' mean); the decodes stay sparse */
    const double fS = per_replica(b->few_seqs, rep), rS = S - fS;
    const bool dense = dsa && sh->dsa_dense_prefill && rS > 0.5 &&
                       (keys - per_replica(b->few_keys, rep)) / rS <= (double)m->dsa_top_k;
    const bool sparse = dsa && !dense;
    const double fT = sparse ? T : per_replica(b->few_tokens, rep),
                 fpairs = sparse ? pairs : per_replica(b->few_pairs, rep),
                 fkeys = sparse ? keys : per_replica(b->few_keys, rep);
    const bool absorbed = mla && fT >= T * 0.9999999;
    out->mla_absorbed = absorbed;
    out->mla = mla;
    double fp = fpairs, fk = fkeys; /* the few-query sequences' share, for MLA's split */
    out->dsa_pairs = out->dsa_full_pairs = out->dsa_decode_tokens = out->dsa_decode_pairs = 0.0;
    if (dense) {
        /* the prompts' keys are all within top_k: only the sparse sequences' (the decodes', at their
         * mean) are capped and scored; the indexer still projects and caches every new token's key */
        const double kk = (double)m->dsa_top_k;
        op[LLMROOF_OP_DSA_INDEX] = layers_dsa_op(m, T, fpairs, fkeys, a, w);
        op[LLMROOF_OP_DSA_INDEX].count = L;
        if (fS > 0) {
            const double nn = fT / fS, past = fkeys / fS - nn > 0 ? fkeys / fS - nn : 0.0;
            fp = fS * arch_attn_pairs(nn, past, kk, false);
            fk = fS * (nn + past < nn * kk ? nn + past : nn * kk);
        }
        pairs += fp - fpairs;
        keys += fk - fkeys;
    } else if (m->dsa_top_k > 0 && S > 0) {
        /* DSA: the indexer scores every past key; attention reads only the top-k of each query
         * (sum of min(j, k) pairs, at most new * k distinct keys), model/layers.h. The few-query
         * sequences keep their share of the capped pairs and keys (proportional split). */
        const double nn = T / S, past = keys / S - nn > 0 ? keys / S - nn : 0.0, kk = (double)m->dsa_top_k;
        op[LLMROOF_OP_DSA_INDEX] = layers_dsa_op(m, T, pairs, keys, a, w);
        op[LLMROOF_OP_DSA_INDEX].count = L;
        const double npairs = S * arch_attn_pairs(nn, past, kk, false);
        const double nkeys = S * (nn + past < nn * kk ? nn + past : nn * kk);
        if (pairs > 0)
            fp = fpairs * npairs / pairs;
        if (keys > 0)
            fk = fkeys * nkeys / keys;
        pairs = npairs;
        keys = nkeys;
        out->dsa_pairs = npairs;
        out->dsa_full_pairs = T * kk;
        out->dsa_decode_tokens = per_replica(b->few_tokens, rep);
        const double dS = per_replica(b->few_seqs, rep);
        if (dS > 0) {
            const double dn = out->dsa_decode_tokens / dS, dk = per_replica(b->few_keys, rep) / dS;
            out->dsa_decode_pairs = dS * arch_attn_pairs(dn, dk - dn > 0 ? dk - dn : 0.0, kk, false);
        }
    }
    if (mla)
        mla_attention_mixed(m, Hq, T, pairs, keys, fT, fp, fk, a, k, Lglob, &op[LLMROOF_OP_ATTENTION]);
    else
        attention_op(m, Hq, Kr, T, pairs, keys, a, ao, k, false, Lglob, &op[LLMROOF_OP_ATTENTION]);
    /* K/V reads once per KV head (GQA-aware kernels: FlashAttention-2, XQA, FlashInfer); the
     * K/V part and the group size are kept so that roofline.c can charge engines whose kernels
     * loop over query heads (masked MHA before TensorRT-LLM's XQA, HF's repeat_kv) Hq/Kr reads */
    out->attn_kv_bytes = mla ? 0.0 : 2.0 * keys * Kr * d * k;
    out->longer_query = T > S;
    /* FA2 takes K/V of the queries' dtype only ("query and key must have the same dtype") and has
     * no sinks: vLLM then runs another backend (FlashInfer, Triton), which packs the group */
    out->fa2_unfit = m->attention_sinks || k != 2.0; /* k: the K/V element's bytes (fp16/bf16: 2) */
    out->kv_8bit = k < 2.0;
    out->q_per_kv = !mla && Kr > 0 ? Hq / Kr : 1.0;
    out->tokens = T;
    out->new_per_seq = S > 0 ? T / S : 0.0;
    out->keys_per_seq = S > 0 ? keys / S : 0.0;
    out->attn_heads = Hq;
    /* eager attention computes the masked half of a causal square too: new x keys pairs */
    out->attn_square = pairs > 0 && S > 0 ? T * (keys / S) / pairs : 1.0;
    if (Lloc > 0 && S > 0) {
        /* windowed layers: the batch's mean sequence (new = T/S after past = keys/S - T/S),
         * exact for the uniform batches of estimate, a mean for mixed simulator steps */
        const double nn = T / S, past = keys / S - nn > 0 ? keys / S - nn : 0.0;
        const double wnd = (double)m->window;
        const double lp = S * arch_attn_pairs(nn, past, wnd, m->window_chunked);
        const double lk = S * arch_attn_keys(nn, past, wnd, m->window_chunked);
        attention_op(m, Hq, Kr, T, lp, lk, a, ao, k, absorbed, Lloc, &op[LLMROOF_OP_ATTN_LOCAL]);
        out->attn_local_kv_bytes = mla ? 0.0 : 2.0 * lk * Kr * d * k;
        /* eager attention (llama.cpp's ggml graph, HF's eager path) scores every cached key and
         * masks those outside the window: a windowed layer costs it a global layer's square */
        struct llmroof_op full;
        attention_op(m, Hq, Kr, T, pairs, keys, a, ao, k, absorbed, Lloc, &full);
        out->attn_local_full_flops = full.flops;
        out->attn_local_full_bytes = full.bytes;
    } else {
        out->attn_local_kv_bytes = 0.0;
    }
    out->local_sliding = !m->window_chunked;
    if (mla) {
        /* kv_b (r_kv x Hq(n+v)): absorbed, q_nope x W_UK and latent x W_UV per new token;
         * decompressed, every key's latent expanded to per-head K_nope and V */
        const double rkv = (double)m->kv_lora_rank, n = (double)m->qk_nope_dim, v = (double)m->v_head_dim;
        const double wb = rkv * Hq * (n + v) * w;
        const double rT = T - fT > 0 ? T - fT : 0.0, rkeys = keys - fkeys > 0 ? keys - fkeys : 0.0;
        struct llmroof_op up = { L, 0, 0, 0, 0, 0 };
        if (fT > 0) { /* the absorbed sequences: per new token */
            up.flops += 2.0 * fT * Hq * rkv * (n + v);
            up.bytes += wb + fT * Hq * (n + 2.0 * rkv + v) * a;
            up.kernels += 2;
            up.wbytes += wb;
        }
        if (rT > 0) { /* the decompressed ones: per key */
            up.flops += 2.0 * rkeys * rkv * Hq * (n + v);
            up.bytes += wb + rkeys * rkv * k + rkeys * Hq * (n + v) * a;
            up.kernels += 1;
            up.wbytes += wb;
        }
        op[LLMROOF_OP_MLA_KV_UP] = up;
    }
}

void ops_set_context(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                     const struct llmroof_batch *b, struct llmroof_oplist *out)
{
    const struct arch_layer_kinds kinds = arch_layer_kinds(m);
    /* a list of two micro-batches (ops_build_split): each one's half of the batch, twice */
    const double n = out->micro_batches > 1.0 ? out->micro_batches : 1.0;
    const struct llmroof_batch part = n > 1.0 ? batch_scale(b, 1.0 / n) : *b;
    /* the counts back to one micro-batch's first, as set_context leaves an operator it does not
     * rewrite (windowed attention of an empty batch) */
    if (n > 1.0)
        for (int k = 0; k < LLMROOF_OP_COUNT; k++)
            if (OPS_CONTEXT_MASK >> k & 1u)
                out->op[k].count /= n;
    set_context(m, sh, &part, &kinds, ops_stream_bytes(dt), ops_attn_out_bytes(m, dt),
                ops_module_weight_bytes(m, dt, LLMROOF_CKPT_MLA_KV_UP), dtype_bytes(dt->kv), out);
    if (n > 1.0)
        for (int k = 0; k < LLMROOF_OP_COUNT; k++)
            if (OPS_CONTEXT_MASK >> k & 1u)
                out->op[k].count *= n;
}

void ops_copy_context(struct llmroof_oplist *dst, const struct llmroof_oplist *src)
{
    /* the step-wide fields follow the operator array */
    _Static_assert(offsetof(struct llmroof_oplist, op) == 0, "op[] must lead struct llmroof_oplist");
    const size_t ops_bytes = sizeof src->op;
    memcpy((char *)dst + ops_bytes, (const char *)src + ops_bytes, sizeof *src - ops_bytes);
    /* the operators of OPS_CONTEXT_MASK */
    dst->op[LLMROOF_OP_ATTENTION] = src->op[LLMROOF_OP_ATTENTION];
    dst->op[LLMROOF_OP_ATTN_LOCAL] = src->op[LLMROOF_OP_ATTN_LOCAL];
    dst->op[LLMROOF_OP_MLA_KV_UP] = src->op[LLMROOF_OP_MLA_KV_UP];
    dst->op[LLMROOF_OP_DSA_INDEX] = src->op[LLMROOF_OP_DSA_INDEX];
}

void ops_shared_expert_per_token(const struct llmroof_model *m, const struct llmroof_shard *sh,
                                 const struct llmroof_dtypes *dt, double *flops, double *bytes, double *gemm_out)
{
    *flops = *bytes = *gemm_out = 0.0;
    if (!((sh->ep > 1 && sh->dp_attn) || sh->mlp_shared_local) || m->moe_shared <= 0 || arch_moe_layers(m) <= 0)
        return;
    /* (with shared experts local to a replica under --moe-tp each rank of its attention TP runs all
     * its tokens at 1/tp of the width: the same FLOPs and nearly the same bytes as T/tp at the
     * whole width, which estimate_ops_replicas charges) */
    /* ops_build's shared terms at Tm = 1 (EP over data-parallel attention: the MLP whole) */
    const double h = (double)m->hidden, a = ops_stream_bytes(dt), ag = dtype_bytes(dt->act);
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    const double Ish = (double)m->moe_shared * (double)m->moe_intermediate;
    const bool bq = block_fp8(m, dt), q8 = ag < a && !bq;
    *flops = 2.0 * h * Ish * nmat;
    *bytes = mlp_act_bytes(m->mlp, h, Ish, a, ag, q8 && !quant_own(dt, q8, false));
    *gemm_out = (nmat - 1.0) * Ish + h;
    if (bq)
        *bytes += quant_bytes(1.0, h, a) + quant_bytes(1.0, Ish, a);
    else if (quant_own(dt, q8, false))
        *bytes += quant8_bytes(1.0, h, a, ag) + quant8_bytes(1.0, Ish, a, ag);
}

/* Dispatch and combine around each MoE layer (DeepEP README): each rank sends its T tokens' k
 * hidden vectors and receives them back weighted. Dispatch carries fp8 with one fp32 scale per
 * 128 values (1 + 4/128 bytes per element) when the experts compute in fp8, else the 16-bit
 * activations; combine carries bf16 (2 bytes; fp32 models 4). The op keeps their mean message,
 * count 2 per MoE layer. The busiest rank receives ep_imbalance times the mean. Prefill-type
 * steps run DeepEP's normal kernels (a token crosses the network once per destination node and
 * is forwarded over NVLink), decode steps its low-latency kernels (one RDMA write per expert
 * GPU): a2a_normal and a2a_topk tell comm_alltoall_nodes_s which. */
double ops_a2a_receive_factor(const struct llmroof_model *m, const struct llmroof_shard *sh, bool normal, double ep_busy)
{
    const double kk = (double)m->moe_top_k, n = (double)sh->ep;
    double imb = ep_busy > 1.0 ? ep_busy : 1.0;
    if (normal && n > 1.0 && kk > 0.0 && imb > 1.0) {
        /* The normal kernels send a token once to each GPU holding any of its k experts, so the
         * busiest GPU receives each other GPU's token at most once. At the mean a token reaches
         * P = fanout / n of the GPUs (comm_moe_fanout, the same count the collective charges:
         * 1 - (1 - 1/n)^k under uniform routing, fewer under group-limited routing, which packs a
         * token's experts into topk_groups groups). The busiest GPU (F = ep_busy, its share of
         * the assignments over the mean) is reached by 1 - (1 - F/Fmax)^k' of the tokens, with k'
         * the independent picks that give P at F = 1 (k' = ln(1 - P) / ln(1 - 1/Fmax): k itself
         * under uniform routing where Fmax = n), so every token at Fmax: the ceiling is 1 / P. DeepSeek-V3 at
         * EP 8 (4 of 8 groups): P = 3.5995 / 8 = 0.44994, k' = 4.476; F 2 gives 1.609 times the
         * mean, F 8 gives 2.2225. Until session 44 the uniform form (k 8, P 0.6564) multiplied the
         * grouped mean: 1.52 at F 8, where the busiest GPU then received 0.68 of the tokens, not
         * all. The low-latency kernels write each of a token's k copies to its expert's buffer,
         * so there the receive grows as F. */
        /* F reaches its most, min(n, E/k) (layout.c: the busiest rank then holds every token's
         * picks it can), when every token reaches the busiest GPU: the curve runs over F / Fmax,
         * so Mixtral at EP 8 (one expert a GPU, top 2: Fmax 4) reaches 1 / P = 4.27 at F 4,
         * where over F / n it stopped at 3.20 */
        const double E = (double)m->moe_experts, fmax = kk > 0 && E / kk < n ? E / kk : n;
        const double f = imb < fmax ? imb : fmax;
        const double P = comm_moe_fanout(n, kk, (double)m->moe_groups, (double)m->moe_topk_groups) / n;
        if (!(P < 1.0) || !(fmax > 1.0))
            return 1.0; /* every token reaches every GPU already */
        const double keff = log(1.0 - P) / log(1.0 - 1.0 / fmax);
        imb = (1.0 - pow(1.0 - f / fmax, keff)) / P;
    }
    return imb;
}

void ops_set_all_to_all(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                        double T, double S, struct llmroof_oplist *out)
{
    const double h = (double)m->hidden, kk = (double)m->moe_top_k;
    const double r = dt->act == LLMROOF_FP32 || dt->act == LLMROOF_TF32 ? 4.0 : 2.0;
    const double disp = dt->act == LLMROOF_FP8 ? 1.0 + 4.0 / 128.0 : dtype_bytes(dt->act);
    out->a2a_normal = T > S * 1.0000001;
    /* the busiest rank's share (ops_build set it for this step: --ep-imbalance, or uniform
     * routing's expected largest) */
    const double imb = ops_a2a_receive_factor(m, sh, out->a2a_normal, out->ep_busy);
    const double Lm = (double)arch_moe_layers(m);
    out->op[LLMROOF_OP_ALL_TO_ALL] = (struct llmroof_op){ 2.0 * Lm, 0, 0, T * kk * h * (disp + r) / 2.0 * imb, 1, 0 };
    /* a block-fp8 checkpoint's experts compute in fp8 at 16-bit activations (ops_ckpt_lowp_modules):
     * the dispatch then carries fp8 too, on GPUs with that path (roofline.c subtracts this) */
    if (block_fp8(m, dt) && dt->act != LLMROOF_FP8)
        out->a2a_lowp_save_bytes = T * kk * h * (disp - (1.0 + 4.0 / 128.0)) / 2.0 * imb;
    out->ep_ranks = sh->ep;
    out->a2a_topk = kk;
    out->a2a_groups = (double)m->moe_groups;
    out->a2a_topk_groups = (double)m->moe_topk_groups;
    out->a2a_recv_factor = imb;
    out->a2a_overlap = false; /* ops_build_split sets it where the step splits in two */
}

double ops_state_bytes(const struct llmroof_dtypes *dt)
{
    /* engines keep the SSM / linear-attention state at the model dtype by default and in fp32 on
     * request (vLLM CacheConfig mamba_cache_dtype / mamba_ssm_cache_dtype, "auto" = the model's,
     * whatever --kv-cache-dtype says: MambaStateDtypeCalculator never reads it), so an 8-bit KV
     * cache leaves the state 16-bit; the model dtype is the activations' (fp32 ones keep fp32) */
    if (dt->state_set)
        return dtype_bytes(dt->state);
    return dt->act == LLMROOF_FP32 ? 4.0 : 2.0;
}

double ops_conv_state_bytes(const struct llmroof_dtypes *dt)
{
    /* SGLang holds the window at its conv dtype, SGLANG_MAMBA_CONV_DTYPE (default bfloat16), and only
     * the SSM (temporal) state at float32 / the config's mamba_ssm_dtype / SGLANG_MAMBA_SSM_DTYPE
     * (python/sglang/srt/configs/mamba_utils.py mamba2_state_dtype; mamba_cache_per_req sums
     * conv_numel x conv.itemsize + ssm_numel x temporal.itemsize) */
    return dt->conv_state_bf16 ? 2.0 : ops_state_bytes(dt);
}

double ops_state_elem_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    return layers_state_elem_bytes(m, ops_state_bytes(dt), ops_conv_state_bytes(dt));
}

bool ops_two_batches(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_batch *b)
{
    if (!(sh->two_batch_overlap && sh->ep > 1 && sh->dp_attn && arch_moe_layers(m) > 0))
        return false;
    const double rep = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    const double T = per_replica(b->tokens, rep), S = per_replica(b->seqs, rep);
    /* two non-empty micro-batches: a decode or verification step splits its sequences (at least
     * 2: a replica verifying one sequence's k + 1 positions runs one batch), a step with prompt
     * work its tokens; with fewer the engines run one batch (vLLM's dual-batch overlap falls back
     * when any rank's second micro-batch would be empty, docs/design/dbo.md) */
    return batch_decodes_only(b) ? S >= 2.0 : T >= 2.0;
}

void ops_build(const struct llmroof_model *m, const struct llmroof_shard *sh,
               const struct llmroof_dtypes *dt, const struct llmroof_batch *b, struct llmroof_oplist *out)
{
    ops_build_split(m, sh, dt, b, ops_two_batches(m, sh, b), out);
}

/* Two-batch overlap's split (DeepSeek's profile-data README, "Inference": two micro-batches in
 * prefill and in decode; SGLang's --enable-two-batch-overlap, vLLM's --enable-dbo): the engine
 * runs the decoder layers once per micro-batch, one after the other, so each micro-batch's
 * operators are a whole pass over its half of the batch: every weight it touches is read again
 * (the dense projections twice, the routed experts its own tokens hit, counted for its half of
 * the tokens by ops_experts_hit), while the K/V cache is read once in all (each sequence is in
 * one micro-batch). vLLM's UBatchWrapper runs the model twice, once per micro-batch, and samples
 * from the merged hidden states (docs/design/dbo.md); SGLang splits the layers after the
 * leading dense ones (deepseek_v2.py: model_forward_maybe_tbo from first_k_dense_replace) and
 * also runs the final norm and the LM head once over the merged batch. Here every decoder layer
 * runs per micro-batch (vLLM's; SGLang runs DeepSeek-V3's 3 dense layers of 61 once) and the
 * final norm, the LM head and the logits' gather once. The step's all-to-all then hides under
 * the other micro-batch's operators (roofline_total). */
static void split_counts(struct llmroof_oplist *out, double n)
{
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        struct llmroof_op *op = &out->op[k];
        if (k == LLMROOF_OP_FINAL_NORM || k == LLMROOF_OP_LM_HEAD || k == LLMROOF_OP_ALL_GATHER || !(op->count > 0))
            continue;
        /* the vocabulary-parallel embedding's all-reduce (the last of the count) runs once, before
         * the split, at the micro-batch's message here (a few microseconds of latency either way) */
        op->count = k == LLMROOF_OP_ALL_REDUCE ? n * (op->count - 1.0) + 1.0 : n * op->count;
    }
    out->micro_batches = n;
}

void ops_build_split(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                     const struct llmroof_batch *b, bool two, struct llmroof_oplist *out)
{
    /* Not the whole 1 KB list zeroed first (two builds an estimate, one a simulated step): the
     * step-wide fields after the operators are, and the operators that only some models or
     * layouts have; every other operator is written on every path below. A new operator kind
     * must be listed here unless it is set on every path (the assertion counts them; the unit
     * test ops_build_writes_every_byte builds over garbage and compares). */
    _Static_assert(offsetof(struct llmroof_oplist, op) == 0, "op[] must lead struct llmroof_oplist");
    _Static_assert(LLMROOF_OP_COUNT == 19, "a new operator kind: list it below unless ops_build always sets it");
    zero_bytes((char *)out + sizeof out->op, sizeof *out - sizeof out->op);
    {
        struct llmroof_op *const o = out->op;
        const struct llmroof_op none = { 0, 0, 0, 0, 0, 0 };
        o[LLMROOF_OP_ALL_REDUCE] = o[LLMROOF_OP_ROUTER] = o[LLMROOF_OP_ALL_GATHER] = none;
        o[LLMROOF_OP_ATTN_LOCAL] = o[LLMROOF_OP_MLA_KV_UP] = o[LLMROOF_OP_DENSE_FFN] = none;
        o[LLMROOF_OP_ALL_TO_ALL] = o[LLMROOF_OP_PP_SEND] = o[LLMROOF_OP_LINEAR_MIX] = none;
        o[LLMROOF_OP_DSA_INDEX] = o[LLMROOF_OP_MLP_GATHER] = none;
    }
    /* a: the activations between kernels; ag: what an 8-bit GEMM reads (stream_bytes) */
    const double a = ops_stream_bytes(dt), ag = dtype_bytes(dt->act), w = ops_weight_bytes(dt), k = dtype_bytes(dt->kv);
    const double we = ops_expert_bytes(m, dt);
    /* per-operator weight bytes: a per-operator checkpoint (NVFP4 DeepSeek-R1) stores some GEMMs
     * narrower than the others (docs/model.md "Mixed-precision checkpoints"); otherwise each is w */
    const double wq = ops_module_weight_bytes(m, dt, LLMROOF_CKPT_QKV_PROJ);
    const double wo = ops_module_weight_bytes(m, dt, LLMROOF_CKPT_O_PROJ);
    const double wl = ops_unquantized_bytes(m, dt, true), wr = ops_unquantized_bytes(m, dt, false);
    const double wf = ops_module_weight_bytes(m, dt, LLMROOF_CKPT_FFN); /* shared experts, a dense model's MLP */
    /* With data-parallel attention each of the attn_dp replicas holds 1/attn_dp of the
     * sequences; the operators below are those of one rank (the mean replica). */
    const double rep = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    const bool a2a = sh->ep > 1 && sh->dp_attn;
    /* --moe-tp: every MLP (experts, shared experts, dense layers) runs on the whole stage's tokens,
     * all-gathered from the replicas before it and reduce-scattered back after it */
    const bool gather = sh->mlp_gather;
    /* ... the routed experts alone where the engine keeps the shared experts and the dense layers
     * on each replica's own tokens (vLLM: SharedFusedMoE runs them on the rank's hidden states,
     * all-reduced over its attention TP; DeepseekV2MLP is TP over that group) */
    const bool local = sh->mlp_shared_local;
    /* two-batch overlap: the layers' operators are one micro-batch's, half the batch (split_counts
     * doubles their counts); the final norm and the LM head see the whole batch */
    two = two && a2a && arch_moe_layers(m) > 0;
    const struct llmroof_batch half = batch_scale(b, 0.5);
    const struct llmroof_batch *const mb = two ? &half : b;
    const double Ttot = mb->tokens, T = per_replica(mb->tokens, rep), S = per_replica(mb->seqs, rep);
    const double Tw = per_replica(b->tokens, rep); /* the whole step's tokens on a rank */
    const double Sl = per_replica(batch_logits_rows(b), rep); /* logits rows: S, or every verified position */
    const double h = (double)m->hidden, d = (double)m->head_dim;
    const struct arch_layer_kinds kinds = arch_layer_kinds(m); /* layer kinds */
    const double L = (double)m->layers, Lm = (double)kinds.moe, Ld = (double)kinds.dense;
    const double La = (double)kinds.attn, Ll = (double)kinds.linear;
    const double Hq = (double)sh->heads_per_rank, Kr = (double)sh->kv_heads_per_rank;
    const double norm_w = m->norm == LLMROOF_NORM_LAYER ? 2.0 * h : h;
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    const bool mla = arch_is_mla(m);
    const bool bq = block_fp8(m, dt); /* per-token-group fp8 quantization before each GEMM */
    /* W8A8 at per-tensor or per-token scales: 8-bit GEMM inputs quantized from the 16-bit stream,
     * by kernels of their own or by the kernels that produce them (quant_own) */
    const bool q8 = ag < a && !bq;
    const bool qn = quant_own(dt, q8, false), qo = quant_own(dt, q8, true); /* after a norm or SiLU; after an opaque op */
    struct llmroof_op *op = out->op;

    /* Kernels per instance (the last field) in an engine that fuses the residual add into the
     * norm and RoPE into one kernel after the QKV GEMM (vLLM, TensorRT-LLM, lmdeploy): norm 1,
     * QKV GEMM + RoPE 2, cache write 1, attention 1, O GEMM 1, MLP gate_up GEMM + activation +
     * down GEMM 3, MoE MLP 5, router GEMM + top-k 2, LM head GEMM + sampling 3, each collective
     * 1. Unfused engines launch more: the engine profile's kernel_factor (docs/model.md 3a).
     * Collective messages carry the residual stream, 16-bit whatever the GEMMs compute in (fp8
     * and int8 GEMMs write bf16/fp16 back): r bytes per element (4 for fp32 models). */
    const double r = dt->act == LLMROOF_FP32 || dt->act == LLMROOF_TF32 ? 4.0 : 2.0;
    /* RMSNorm/LayerNorm: ~4 FLOP per element (square, sum, scale, weight); read x, write y. Each
     * residual add is fused into the norm after it (vLLM's fused_add_rms_norm, TensorRT-LLM's and
     * SGLang's add-norm kernels), which fusing saves a launch, not traffic: it also reads the
     * residual stream and writes it back, 2 T h a more per add. A layer adds twice (after attention
     * and after the MLP; the last add is fused into the final norm), once with a parallel block
     * (GPT-J, Falcon: x + attn + mlp); Gemma's post-norms add none of their own. The norms are not
     * sharded: every TP rank normalizes all T tokens, so at TP 8 a prefill's norms are a few
     * percent of it (a review of session 56: docs/model.md section 2 had called the adds negligible) */
    const double npl = arch_norms_per_layer(m);
    op[LLMROOF_OP_NORM] = (struct llmroof_op){ L * npl, 4.0 * T * h, 2.0 * T * h * a + ops_norm_residual_bytes(m, T, a) + norm_w * w,
                                               0, 1, 0 };
    if (q8 && !qn) {
        /* the norms before the QKV and gate_up GEMMs write their 8-bit copy (of a layer's
         * arch_norms_per_layer, at most two feed a GEMM: Gemma's post-norms feed the residual); a
         * MoE layer's second norm feeds the 16-bit router and the MoE op, which quantizes its own
         * input, so only a dense layer's counts */
        const double feed = 1.0 + (L - Lm) / L;
        const double nq = npl < feed ? npl : feed;
        op[LLMROOF_OP_NORM].bytes -= nq / npl * T * h * (a - ag);
    }

    double qo_w; /* query width entering attention (o_proj input width below) */
    if (mla) {
        /* q_a (h x r_q, replicated) + q_b (r_q x Hq(n+p)) or q (h x Hq(n+p)); kv_a (h x (r_kv+p),
         * replicated on every rank, as vLLM's ReplicatedLinear) */
        const double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank, p = (double)m->qk_rope_dim;
        const double qh = Hq * ((double)m->qk_nope_dim + p);
        const double wts = (rq > 0 ? h * rq + rq * qh : h * qh) + h * (rkv + p);
        const double outw = (rq > 0 ? rq : 0.0) + qh + rkv + p;
        /* the latent RMSNorms (q_a_layernorm over r_q, kv_a_layernorm over r_kv): 4 FLOP per
         * element, read and write; kernels: the q_a|kv_a GEMM (fused by vLLM's fused_qkv_a_proj
         * and SGLang's fused_qkv_a_proj_with_mqa), the two latent norms, q_b GEMM and RoPE (5);
         * without q compression q and kv_a are two GEMMs beside kv_a's norm and RoPE (4) */
        const double lat = (rq > 0 ? rq : 0.0) + rkv;
        op[LLMROOF_OP_QKV_PROJ] = (struct llmroof_op){ La, 2.0 * T * wts + 4.0 * T * lat,
                                                       wts * wq + T * h * ag + T * outw * a + 2.0 * T * lat * a, 0,
                                                       rq > 0 ? 5 : 4, wts * wq };
        out->gemm_out[LLMROOF_OP_QKV_PROJ] = T * outw;
        if (bq) { /* one quantization of h before q_a|kv_a (or q and kv_a) and one before q_b */
            op[LLMROOF_OP_QKV_PROJ].kernels += 2;
            op[LLMROOF_OP_QKV_PROJ].bytes += quant_bytes(T, h, a) + quant_bytes(T, rq > 0 ? rq : h, a);
        } else if (qn) { /* the same two, per tensor or per token */
            op[LLMROOF_OP_QKV_PROJ].kernels += 2;
            op[LLMROOF_OP_QKV_PROJ].bytes += quant8_bytes(T, h, a, ag) + quant8_bytes(T, rq > 0 ? rq : h, a, ag);
        }
        /* the cache holds the latent and the rope key: (r_kv + p) per token, replicated per TP rank */
        op[LLMROOF_OP_KV_WRITE] = (struct llmroof_op){ La, 0.0, T * (rkv + p) * (a + k), 0, 1, 0 };
        qo_w = Hq * (double)m->v_head_dim;
    } else {
        const double qkvw = (Hq * (m->attn_gate ? 2.0 : 1.0) + 2.0 * Kr) * d; /* a gate doubles q */
        op[LLMROOF_OP_QKV_PROJ] = (struct llmroof_op){
            La, 2.0 * T * h * qkvw,
            h * qkvw * wq + (m->qkv_bias ? qkvw * w : 0.0) + T * h * ag + T * qkvw * a, 0, 2, h * qkvw * wq };
        out->gemm_out[LLMROOF_OP_QKV_PROJ] = T * qkvw;
        if (qn) {
            op[LLMROOF_OP_QKV_PROJ].kernels += 1;
            op[LLMROOF_OP_QKV_PROJ].bytes += quant8_bytes(T, h, a, ag);
        }
        /* read the new K/V (activation dtype), write them into the cache (KV dtype) */
        op[LLMROOF_OP_KV_WRITE] = (struct llmroof_op){ La, 0.0, 2.0 * T * Kr * d * (a + k), 0, 1, 0 };
        qo_w = Hq * d;
    }

    set_context(m, sh, mb, &kinds, a, ops_attn_out_bytes(m, dt), ops_module_weight_bytes(m, dt, LLMROOF_CKPT_MLA_KV_UP), k,
                out);

    if (Ll > 0) {
        /* recurrent layers: a constant state per sequence instead of a KV cache (layers.c) */
        op[LLMROOF_OP_LINEAR_MIX] = layers_linear_op(m, sh, T, S, a, w, ops_state_elem_bytes(m, dt));
        op[LLMROOF_OP_LINEAR_MIX].count = Ll;
    }
    op[LLMROOF_OP_O_PROJ] = (struct llmroof_op){
        La, 2.0 * T * qo_w * h, qo_w * h * wo + (m->o_bias ? h * w : 0.0) + T * qo_w * ag + T * h * a, 0, 1, qo_w * h * wo };
    out->gemm_out[LLMROOF_OP_O_PROJ] = T * h;
    if (bq) {
        op[LLMROOF_OP_O_PROJ].kernels += 1;
        op[LLMROOF_OP_O_PROJ].bytes += quant_bytes(T, qo_w, a);
    } else if (qo) {
        op[LLMROOF_OP_O_PROJ].kernels += 1;
        op[LLMROOF_OP_O_PROJ].bytes += quant8_bytes(T, qo_w, a, ag);
    }

    if (sh->tp > 1) {
        /* one after attention and one after each MLP that TP shards or EP combines over the TP
         * group (one per layer when both run in parallel off one norm), plus one after the
         * vocabulary-parallel embedding; MoE layers behind an all-to-all need none after the MLP,
         * nor any MLP whose reduce-scatter returns each replica its tokens (--moe-tp) */
        double n_ar = m->parallel_attn ? L : La + Ll + (gather && !local ? 0.0 : Ld + (a2a ? 0.0 : Lm));
        op[LLMROOF_OP_ALL_REDUCE] = (struct llmroof_op){ n_ar + 1.0, 0, 0, T * h * r, 1, 0 };
        /* gather the Sl rows of V' logits from every rank: message = Sl * V elements */
        op[LLMROOF_OP_ALL_GATHER] = (struct llmroof_op){ 1.0, 0, 0, Sl * (double)m->vocab * r, 1, 0 };
    }

    /* NAS models list a width per layer: the mean over the dense layers (FLOPs and bytes are
     * linear in it, so Ld x the mean-width operator is the per-layer sum) */
    const double I = sh->intermediate_per_rank *
                     (layers_patterned(m) ? layers_dense_width(m, 0, m->layers) / (double)m->intermediate : 1.0);
    const double dense_bias = m->mlp_bias ? ((nmat - 1.0) * I + h) * w : 0.0;
    /* the dense MLP's matrices: a MoE model's dense layers, or a dense model's MLP */
    const double wd = Lm > 0 ? ops_module_weight_bytes(m, dt, LLMROOF_CKPT_DENSE_FFN) : wf;
    /* the dense MLP's tokens on a rank: its replica's, or the whole stage's (--moe-tp) */
    const double Td = gather && !local ? Ttot : T;
    /* block fp8: the MLP input and the activated intermediate quantized before their GEMMs */
    const struct llmroof_op dense = {
        1.0, 2.0 * Td * h * I * nmat,
        nmat * h * I * wd + dense_bias + Td * mlp_act_bytes(m->mlp, h, I, a, ag, q8 && !qn) +
            (bq ? quant_bytes(Td, h, a) + quant_bytes(Td, I, a) : 0.0) +
            (qn ? quant8_bytes(Td, h, a, ag) + quant8_bytes(Td, I, a, ag) : 0.0),
        0, bq || qn ? 5 : 3, nmat * h * I * wd };
    /* gate_up writes (nmat - 1) I per token, down h */
    out->gemm_out[Lm > 0 ? LLMROOF_OP_DENSE_FFN : LLMROOF_OP_FFN] = Td * ((nmat - 1.0) * I + h);
    if (Lm > 0) {
        const double E = (double)m->moe_experts, kk = (double)m->moe_top_k;
        double flops, bytes, hit, wb;
        /* Tokens each rank feeds the MoE block. Behind an all-to-all (EP with data-parallel
         * attention) a replica's attention-TP ranks split its T tokens before the router and the
         * dispatch, and gather them back after the combine (SGLang's LayerCommunicator: the MoE
         * input SCATTERED over the attention-TP group with DeepEP; vLLM's sequence-parallel MoE
         * likewise), so each rank routes, dispatches and runs the shared expert on T / tp; a rank
         * holding all T would send every token tp times. Without the all-to-all, all T; under
         * --moe-tp every replica's, gathered (SGLang 0.4's DP attention: all_gather, then the
         * TP-sharded MoE over the gathered tokens). */
        const double Tm = a2a ? T / (double)sh->tp : gather ? Ttot : T;
        /* the router and the shared experts: the gathered tokens, or with local shared experts
         * the replica's own (vLLM routes before the dispatch) */
        const double Tr = local ? T : Tm;
        op[LLMROOF_OP_ROUTER] = (struct llmroof_op){ Lm, 2.0 * Tr * h * E, h * E * wr + Tr * h * a + Tr * E * a, 0, 2, 0 };
        if (sh->ep > 1) {
            /* EP: E/ep whole experts per rank; the instance's Ttot*k assignments spread over the
             * ranks, the busiest holding ep_imbalance times the mean, and so touching the experts
             * that imbalance times the tokens would touch: its FLOPs, activations and the expert
             * weights it streams all scale (the busiest rank sets the step). Shared experts:
             * TP-sharded over the attention group, or replicated with data-parallel attention. */
            const double Ie = (double)m->moe_intermediate;
            const double mean = Ttot * kk / (double)sh->ep, per = E / (double)sh->ep;
            double asg;
            if (sh->ep_imbalance >= 1.0) { /* --ep-imbalance: a measured routing skew */
                asg = mean * sh->ep_imbalance;
                hit = ops_experts_hit(E, kk, Ttot * sh->ep_imbalance) / (double)sh->ep;
            } else {
                /* uniform routing still loads the ranks unevenly: each of the Ttot k assignments
                 * lands on a given rank with probability 1/ep and each expert is hit with
                 * probability hit(E, k, Ttot) / E, so the busiest rank holds the expected largest
                 * of ep draws of each (ops_binomial_expected_max). Mixtral at EP 8, one token: two
                 * ranks each stream a whole expert, where the mean rank streams a quarter of one;
                 * DeepSeek-V3 at EP 8, one token: 2.56 experts on the busiest rank, not 1. */
                asg = ops_binomial_expected_max(Ttot * kk, 1.0 / (double)sh->ep, sh->ep);
                hit = ops_binomial_expected_max(per, ops_experts_hit(E, kk, Ttot) / E, sh->ep);
                if (asg < mean)
                    asg = mean;
            }
            if (hit > per)
                hit = per;
            out->ep_busy = mean > 0 ? asg / mean : 1.0;
            const double Ish = (double)m->moe_shared * (sh->dp_attn ? Ie : Ie / (double)sh->tp);
            flops = 2.0 * asg * h * Ie * nmat + 2.0 * Tm * h * Ish * nmat;
            out->expert_flops = 2.0 * asg * h * Ie * nmat;
            out->gemm_out[LLMROOF_OP_FFN] = asg * ((nmat - 1.0) * Ie + h) + Tm * ((nmat - 1.0) * Ish + h);
            wb = hit * Ie * nmat * h * we + Ish * nmat * h * wf;
            bytes = wb + asg * mlp_act_bytes(m->mlp, h, Ie, a, ag, q8 && !qo)
                  + (Ish > 0 ? Tm * mlp_act_bytes(m->mlp, h, Ish, a, ag, q8 && !qn) : 0.0);
        } else {
            /* TP (or --moe-tp): every expert on every rank at 1/moe_tp of its width, over the
             * rank's Tm tokens (its replica's, or the gathered stage's) */
            const double Ie = ops_expert_width(m, sh, dt); /* MXFP4's padded slice (ops.h) */
            const double Ish = (double)m->moe_shared * sh->shared_intermediate_per_rank;
            hit = ops_experts_hit(E, kk, Tm);
            flops = 2.0 * Tm * kk * h * Ie * nmat + 2.0 * Tr * h * Ish * nmat;
            out->expert_flops = 2.0 * Tm * kk * h * Ie * nmat;
            out->gemm_out[LLMROOF_OP_FFN] = Tm * kk * ((nmat - 1.0) * Ie + h) + Tr * ((nmat - 1.0) * Ish + h);
            wb = hit * Ie * nmat * h * we + Ish * nmat * h * wf;
            bytes = wb
                  + Tm * kk * mlp_act_bytes(m->mlp, h, Ie, a, ag, q8 && !qo)
                  + (Ish > 0 ? Tr * mlp_act_bytes(m->mlp, h, Ish, a, ag, q8 && !qn) : 0.0);
        }
        out->experts_hit = hit;
        /* the shared experts' rows (the FFN's FLOPs beyond the routed experts'): a rank's tokens
         * under EP, the router's otherwise (roofline.c tiles them apart from the experts') */
        out->shared_rows = m->moe_shared > 0 ? (sh->ep > 1 ? Tm : Tr) : 0.0;
        /* fp4 and int4 experts go to other kernels (FlashInfer's and CUTLASS's fp4 MoE, Marlin), and
         * data-parallel attention's DeepEP dispatch to DeepGEMM's grouped GEMMs */
        out->expert_triton_ok = we >= 1.0 && !a2a;
        enum llmroof_dtype ckc;
        out->expert_fp8 = we < 2.0 && (dt->weight == LLMROOF_FP8 || ((ops_ckpt_lowp_modules(m, dt, &ckc) & LLMROOF_CKPT_FFN) &&
                                                                     ckc == LLMROOF_FP8));
        out->expert_wbytes = hit * ops_expert_width(m, sh, dt) * nmat * h * we;
        out->tokens_per_expert = hit > 0 ? (sh->ep > 1 ? Ttot * kk / (double)sh->ep * out->ep_busy : Tm * kk) / hit : 0.0;
        /* permute, grouped gate_up, activation, grouped down, un-permute and weighted sum (5);
         * shared experts run as a dense MLP of their own beside them: gate_up GEMM, activation,
         * down GEMM (+3; vLLM's DeepseekV2MoE shared_experts MLP; SGLang fuses a DeepSeek
         * shared expert into the routed kernels as a 257th expert only on CUDA GPUs in 0.4.x,
         * on MI300-class GPUs from 0.5: determine_num_fused_shared_experts). Block fp8: the
         * routed experts quantize their input and their intermediate (T*k rows, or the busiest
         * rank's assignments), the shared MLP its own input and intermediate (+2 each). */
        double fk = 5.0 + (m->moe_shared > 0 ? 3.0 : 0.0);
        /* the routed rows this rank computes (T k, or the busiest rank's assignments) and their
         * width; the shared MLP's width on this rank, as above: whole with data-parallel attention */
        const double rows = sh->ep > 1 ? Ttot * kk / (double)sh->ep * out->ep_busy : Tm * kk;
        const double Ier = ops_expert_width(m, sh, dt);
        const double Ishr = (double)m->moe_shared * (sh->ep > 1 && sh->dp_attn ? (double)m->moe_intermediate
                                                     : sh->ep > 1                ? sh->moe_intermediate_per_rank
                                                                                 : sh->shared_intermediate_per_rank);
        /* quantization kernels of their own: block fp8 before both; per tensor or per token the
         * fused-MoE op quantizes its input and intermediate itself unless the engine's producers
         * emit 8-bit (quant_own opaque), the shared MLP as a dense one. Bytes written an element:
         * fp8 with a scale per 128, or the GEMM's 8-bit input alone */
        const bool qr = bq || qo, qs = bq || qn;
        const double qw = bq ? 1.0 + 4.0 / 128.0 : ag;
        if (qr) {
            fk += 2.0;
            bytes += quant8_bytes(Tm, h, a, qw) + quant8_bytes(rows, Ier, a, qw);
        }
        if (Ishr > 0 && qs) {
            fk += 2.0;
            bytes += quant8_bytes(Tr, h, a, qw) + quant8_bytes(Tr, Ishr, a, qw);
        }
        op[LLMROOF_OP_FFN] = (struct llmroof_op){ Lm, flops, bytes, 0, fk, wb };
        enum llmroof_dtype low;
        if ((ops_ckpt_lowp_modules(m, dt, &low) & LLMROOF_CKPT_FFN) && low == LLMROOF_FP4) {
            /* W4A4 routed experts (vLLM's FlashInfer CUTLASS NVFP4 MoE): the tokens are quantized
             * once (read 16-bit, write fp4: T h (a + q)), the grouped gate_up GEMM reads each
             * assignment's row at q bytes, the activation kernel writes the intermediate at q and
             * the down GEMM reads it so: per assignment (h + 2 Ie)(a - q) less than charged above.
             * The shared expert and dense MLPs keep 16-bit activations (their per-token
             * quantization kernels about cancel the narrower reads) */
            const double q = dtype_bytes(low);
            const double save = rows * (h + 2.0 * Ier) * (a - q) - Tm * h * (a + q);
            out->lowp_save_bytes = save > 0 ? save : 0.0;
        }
        if (Ld > 0) {
            op[LLMROOF_OP_DENSE_FFN] = dense;
            op[LLMROOF_OP_DENSE_FFN].count = Ld;
        }
        if (gather) {
            /* before each MLP, dense or MoE, an all-gather of every replica's tokens (T h at the
             * residual's r bytes each, Ttot in all) over the stage's moe_tp GPUs, and after it a
             * reduce-scatter of the partial sums back to their replicas: two ring collectives of
             * the gathered message (rl_comm_s). SGLang 0.4 reduced with an all-reduce and kept
             * its slice (twice a reduce-scatter's bytes); vLLM's DP MoE all-gathers and
             * reduce-scatters (its allgather_reducescatter backend). */
            op[LLMROOF_OP_MLP_GATHER] = (struct llmroof_op){ Lm + (local ? 0.0 : Ld), 0, 0, Ttot * h * r, 2, 0 };
            out->mlp_ranks = sh->moe_tp;
        }
        if (a2a) {
            ops_set_all_to_all(m, sh, dt, Tm, S / (double)sh->tp, out);
            /* the all-to-all hides only between two micro-batches (ops_two_batches) */
            out->a2a_overlap = two;
        }
    } else {
        op[LLMROOF_OP_FFN] = dense;
        op[LLMROOF_OP_FFN].count = Ld;
    }

    if (sh->pp > 1) {
        /* activations (T x h) cross each of the pp-1 stage boundaries once per step */
        op[LLMROOF_OP_PP_SEND] = (struct llmroof_op){ (double)(sh->pp - 1), 0, 0, T * h * r, 1, 0 };
        out->stage_gpus = sh->gpus_per_stage;
    }

    op[LLMROOF_OP_FINAL_NORM] = (struct llmroof_op){ 1.0, 4.0 * Tw * h, 2.0 * Tw * h * a + norm_w * w, 0, 1, 0 };

    /* logits only where the engine samples: the last position of each sequence, and every
     * position a speculative verification pass checks (the target's distribution at each drafted
     * token decides its acceptance: Leviathan et al. 2023; vLLM's and SGLang's verifiers compute
     * the logits of all k + 1 or tree positions) */
    const double Vr = sh->lm_vocab_per_rank;
    /* a head split over the stage's GPUs (shard lm_ranks: SGLang's under data-parallel attention)
     * computes every replica's logits rows at its vocabulary slice: the rows are the stage's, all
     * gathered to each GPU (T h at a bytes) and the logits gathered back (T V at r), two all-gathers
     * over lm_ranks GPUs: count 2 of their mean message (the ring's time is linear in the bytes) */
    const double Sh = sh->lm_ranks > 0 ? Sl * (double)rep : Sl;
    op[LLMROOF_OP_LM_HEAD] = (struct llmroof_op){ 1.0, 2.0 * Sh * h * Vr, h * Vr * wl + Sh * h * a + Sh * Vr * a, 0, 3, 0 };
    out->lm_ranks = 0;
    if (sh->lm_ranks > 1) {
        op[LLMROOF_OP_ALL_GATHER] = (struct llmroof_op){ 2.0, 0, 0, 0.5 * (Sh * h * a + Sh * (double)m->vocab * r), 1, 0 };
        out->lm_ranks = sh->lm_ranks;
    }
    if (!(Sl > 0)) {
        /* a pass that samples nothing (a prompt's pass before its last, llama.cpp computing
         * outputs only where logits are asked: estimate.c prefill_in_passes) runs no head */
        op[LLMROOF_OP_LM_HEAD].count = 0.0;
        op[LLMROOF_OP_FINAL_NORM].count = 0.0;
        op[LLMROOF_OP_ALL_GATHER].count = 0.0;
    }

    out->dequant_ratio = ops_dequant_ratio(dt);
    /* a W4A4 checkpoint's quantized GEMMs run at their own tensor-core path (roofline.c) */
    out->lowp_ops = ops_modules_to_ops(ops_ckpt_lowp_modules(m, dt, &out->lowp_dtype));
    /* NVFP4's GEMMs (ops_ckpt_lowp_modules' second rule), which need NVIDIA's fp4 (roofline.c rl_lowp) */
    out->lowp_nvfp4 = out->lowp_ops && out->lowp_dtype == LLMROOF_FP4 && m->ckpt_per_op && !strcmp(m->ckpt_format, "nvfp4");
    out->block_fp8_ops = bq ? ops_modules_to_ops(BLOCK_FP8_MODULES) : 0u;
    out->micro_batches = 1.0;
    if (two)
        split_counts(out, 2.0);
}

/* ------------------------------------------------------------------------ */
/* Speculative draft heads                                                  */
/* ------------------------------------------------------------------------ */

double ops_medusa_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                        int heads)
{
    const double h = (double)m->hidden;
    return (double)heads * (h * h * ops_weight_bytes(dt) + h * sh->vocab_per_rank * ops_unquantized_bytes(m, dt, true));
}

struct ops_head ops_head_shape(const struct llmroof_model *m, long eagle3_vocab, bool first, bool eagle)
{
    const double mw = eagle ? ops_eagle_mlp_width(m) : 0.0;
    if (eagle3_vocab <= 0)
        return (struct ops_head){ 2.0, 1.0, (double)m->vocab, mw, NULL, eagle };
    const double v = (double)eagle3_vocab < (double)m->vocab ? (double)eagle3_vocab : (double)m->vocab;
    return (struct ops_head){ first ? 3.0 : 0.0, 2.0, v, mw, NULL, eagle };
}

struct llmroof_dtypes ops_head_dtypes(const struct llmroof_dtypes *dt, const struct llmroof_draft_head *own)
{
    struct llmroof_dtypes d = *dt;
    const bool act16 = dt->act == LLMROOF_FP16 || dt->act == LLMROOF_BF16;
    const bool act32 = dt->act == LLMROOF_FP32 || dt->act == LLMROOF_TF32;
    /* vLLM loads a draft at its target's model dtype: fp32 beside an fp32 model, a 16-bit target's
     * own 16 bits (gpt-oss's bf16), else the activations' */
    const bool w16 = (dt->weight == LLMROOF_FP16 || dt->weight == LLMROOF_BF16) && !(dt->weight_bits > 0);
    if (act32)
        d.weight = LLMROOF_FP32;
    else if (own && own->dtype_set)
        d.weight = own->dtype;
    else if (w16)
        d.weight = dt->weight;
    else
        d.weight = act16 ? dt->act : LLMROOF_BF16;
    d.weight_bits = 0.0;
    d.head_quantized = false;
    if (!act16 && !act32)
        d.act = d.weight; /* 8-bit activations are the target's W8A8 GEMMs', not the head's */
    return d;
}

void ops_head_model(const struct llmroof_model *m, struct llmroof_model *hm)
{
    *hm = *m;
    hm->ckpt_format[0] = '\0';
    hm->ckpt_bits = hm->ckpt_expert_bits = 0.0;
    hm->ckpt_per_op = false;
    hm->ckpt_excluded = 0;
}

enum llmroof_dtype ops_draft_act(const struct llmroof_dtypes *dt, int medusa_heads, const struct ops_head *head)
{
    const bool apart = medusa_heads > 0 || !head || head->apart;
    return apart ? ops_head_dtypes(dt, head ? head->own : NULL).act : dt->act;
}

struct ops_head ops_head_shape_own(const struct llmroof_model *m, const struct llmroof_draft_head *own,
                                   long eagle3_vocab, bool first, bool eagle)
{
    struct ops_head hd = ops_head_shape(m, eagle3_vocab, first, eagle);
    if (!eagle || !own || own->heads <= 0)
        return hd;
    hd.own = own;
    /* the config's MLP width; on a dense target whose plain MLP is that wide the mean layer's
     * MLP already is the head's (a Llama-3.1-8B head of its target's shape costs as before) */
    const bool same = m->moe_experts <= 0 && !layers_patterned(m) && own->intermediate == m->intermediate &&
                      m->mlp == LLMROOF_MLP_GATED && !m->mlp_bias;
    hd.mlp_width = same ? 0.0 : (double)own->intermediate;
    return hd;
}

int ops_head_attn(const struct llmroof_model *m, const struct llmroof_draft_head *own, const struct llmroof_shard *sh,
                  struct llmroof_model *am, struct llmroof_shard *ash, struct llmroof_err *err)
{
    /* m's identity, hidden size, vocabulary, norm kind and checkpoint fields (callers pass the
     * head's model, ops_head_model, so that its GEMMs run at the head's dtypes as its mean layer
     * does); a Llama decoder layer's attention and MLP (transformers' LlamaDecoderLayer: RMSNorm,
     * GQA with RoPE, SwiGLU) */
    *am = *m;
    am->layers = 1;
    am->heads = own->heads;
    am->kv_heads = own->kv_heads;
    am->head_dim = own->head_dim;
    am->intermediate = own->intermediate;
    am->mlp = LLMROOF_MLP_GATED;
    am->qkv_bias = am->o_bias = own->attn_bias;
    am->mlp_bias = am->parallel_attn = am->attn_gate = am->qk_norm = am->attention_sinks = false;
    am->norms_per_layer = 0;
    am->moe_experts = am->moe_top_k = am->moe_intermediate = am->moe_shared = 0;
    am->moe_first_dense = am->moe_layer_step = am->moe_groups = am->moe_topk_groups = 0;
    am->q_lora_rank = am->kv_lora_rank = am->qk_nope_dim = am->qk_rope_dim = am->v_head_dim = 0;
    am->window = am->window_global_every = 0;
    am->window_chunked = false;
    am->mixers[0] = am->ffns[0] = '\0';
    am->linear_kind = LLMROOF_LINEAR_NONE;
    am->lin_heads = am->lin_k_heads = am->lin_k_dim = am->lin_v_dim = am->lin_conv = 0;
    am->dsa_top_k = am->dsa_heads = am->dsa_head_dim = 0;
    am->mtp_layers = 0;
    *ash = *sh;
    const long tp = sh->tp > 0 ? sh->tp : 1;
    /* per rank as ops_shard splits a model's heads; rounded up where TP does not divide them */
    ash->heads_per_rank = (own->heads + tp - 1) / tp;
    ash->kv_replicated = own->kv_heads < tp;
    ash->kv_heads_per_rank = own->kv_heads >= tp ? (own->kv_heads + tp - 1) / tp : 1;
    ash->intermediate_per_rank = (double)own->intermediate / (double)tp;
    ash->stage_layers_max = ash->stage_layers_min = 1;
    ash->few = ops_few_rule_flops(am);
    if (own->heads % tp != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the draft head's config (--spec-draft-config): field "
                               "'num_attention_heads' (%ld) is not divisible by TP %ld, the target's attention TP "
                               "its layer is split over", own->heads, tp);
    if (own->kv_heads % tp != 0 && tp % own->kv_heads != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the draft head's config (--spec-draft-config): field "
                               "'num_key_value_heads' (%ld) and TP %ld must divide one another, the target's "
                               "attention TP its layer is split over", own->kv_heads, tp);
    return LLMROOF_OK;
}

double ops_eagle_mlp_width(const struct llmroof_model *m)
{
    if (m->moe_experts <= 0)
        return 0.0;
    return (double)(m->moe_top_k + m->moe_shared) * (double)m->moe_intermediate;
}

/* the head's MLP width on one rank: split over the attention-TP group (its layer's TP) */
static double eagle_mlp_per_rank(double width, const struct llmroof_shard *sh)
{
    const double tp = sh->tp > 0 ? (double)sh->tp : 1.0;
    return width / tp;
}

double ops_eagle_mlp_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh,
                           const struct llmroof_dtypes *dt)
{
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    return nmat * (double)m->hidden * eagle_mlp_per_rank(ops_eagle_mlp_width(m), sh) * ops_weight_bytes(dt);
}

/* the q/k/v output width of one rank of the head's layer: a Llama layer with the target's heads
 * (EAGLE-3's drafts are LlamaForCausalLMEagle3 layers, whatever the target's attention) */
static double head_qkv_width(const struct llmroof_model *m, const struct llmroof_shard *sh)
{
    return ((double)sh->heads_per_rank * (m->attn_gate ? 2.0 : 1.0) + 2.0 * (double)sh->kv_heads_per_rank) *
           (double)m->head_dim;
}

double ops_eagle3_extra_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh,
                              const struct llmroof_dtypes *dt, long eagle3_vocab)
{
    return ops_eagle3_extra_bytes_own(m, NULL, sh, dt, eagle3_vocab);
}

double ops_eagle3_extra_bytes_own(const struct llmroof_model *m, const struct llmroof_draft_head *own,
                                  const struct llmroof_shard *sh, const struct llmroof_dtypes *dt, long eagle3_vocab)
{
    if (eagle3_vocab <= 0)
        return 0.0;
    double qw;
    if (own && own->heads > 0) {
        struct llmroof_model am;
        struct llmroof_shard ash;
        (void)ops_head_attn(m, own, sh, &am, &ash, NULL); /* the caller has checked its TP */
        qw = head_qkv_width(&am, &ash);
    } else {
        qw = head_qkv_width(m, sh);
    }
    const struct ops_head hd = ops_head_shape(m, eagle3_vocab, true, true);
    const double h = (double)m->hidden, w = ops_weight_bytes(dt);
    /* beyond the head's decoder layer (the mean layer's attention and MLP) and its fusing
     * projection (ops_eagle_fc_bytes): the q/k/v projection's second h of inputs, split as the
     * projection (QKVParallelLinear(2 * hidden_size, ...) in both engines' llama_eagle3.py), and
     * the head's own LM head, vocabulary-parallel as the target's (shard lm_vocab_per_rank: over
     * the attention TP, or over the stage where SGLang splits the head under data-parallel
     * attention), as ops_build_draft reads it */
    const double lm_share = m->vocab > 0 ? sh->lm_vocab_per_rank / (double)m->vocab : 1.0 / (double)sh->tp;
    return h * qw * w + h * hd.vocab * lm_share * ops_unquantized_bytes(m, dt, true);
}

double ops_eagle_fc_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt, long eagle3_vocab)
{
    /* the fusing projection's input widths as ops_build_draft runs it: EAGLE-1/2's concat of the
     * token embedding and the target's feature (2h), EAGLE-3's three target layers (3h; its first
     * pass, ops_head_shape). A plain Linear on every rank, never split over TP: vLLM's
     * llama_eagle.py LlamaModel (torch.nn.Linear(hidden_size * 2, hidden_size)) and
     * llama_eagle3.py LlamaModel (ReplicatedLinear(hidden_size * 3, hidden_size)), SGLang's
     * llama_eagle.py and llama_eagle3.py LlamaModel (torch.nn.Linear) */
    const struct ops_head hd = ops_head_shape(m, eagle3_vocab, true, true);
    const double h = (double)m->hidden;
    return hd.fc_in * h * h * ops_weight_bytes(dt);
}

void ops_build_draft(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                     const struct llmroof_batch *b, int medusa_heads, const struct ops_head *head,
                     struct llmroof_oplist *out)
{
    if (medusa_heads > 0 && sh->lm_ranks > 0) {
        /* Medusa's heads are projections of their own on each replica, over its attention TP
         * (ops_medusa_bytes holds them so): the target's head split over the stage (lm_ranks)
         * is not theirs. Built on it, a head had read V / stage-GPUs rows for every replica's
         * logits where memory held V / TP a GPU (Qwen3-30B-A3B, SGLang, -t 1 --ep 4
         * --dp-attention, 4 heads, 64 sequences: a draft step read 0.68 GB of the 2.52 GB held) */
        struct llmroof_shard own = *sh;
        own.lm_ranks = 0;
        own.lm_vocab_per_rank = own.vocab_per_rank;
        ops_build_draft(m, &own, dt, b, medusa_heads, head, out);
        return;
    }
    const struct ops_head hd = head ? *head : ops_head_shape(m, 0, true, true);
    /* a head whose weights ship apart from the target (Medusa's, EAGLE's) is costed on the target
     * without its checkpoint's formats at the head's own 16 bits (ops_head_dtypes): an fp8
     * DeepSeek-V3 checkpoint had halved an EAGLE-3 head's bytes and run its GEMMs on the block-fp8
     * path; an MTP module is a layer of the target's own checkpoint and keeps dt */
    const struct llmroof_model *tm = m; /* the target's: the LM head an EAGLE-1/2 head reads */
    const struct llmroof_dtypes *tdt = dt;
    struct llmroof_model hm;
    struct llmroof_dtypes hdt;
    if (medusa_heads > 0 || hd.apart) {
        ops_head_model(m, &hm);
        hdt = ops_head_dtypes(dt, hd.own);
        m = &hm;
        dt = &hdt;
    }
    /* one batch: SGLang's draft worker never splits (TboForwardBatchPreparer.prepare returns for
     * is_draft_worker), so its all-to-all hides under nothing */
    ops_build_split(m, sh, dt, b, false, out);
    /* an EAGLE or Medusa head runs module code of its own (SGLang's llama_eagle3.py, a Llama
     * layer), not the MLA target's: its eager kernels at the engine's launch_s, where an MTP module,
     * a layer of the target's code, keeps launch_mla_s (a review) */
    if (medusa_heads > 0 || hd.apart)
        out->mla = false;
    struct llmroof_op *op = out->op;
    const double a = ops_stream_bytes(dt), w = ops_weight_bytes(dt);
    const double h = (double)m->hidden, L = (double)m->layers;
    const double rep = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    const double T = b->tokens / rep;
    op[LLMROOF_OP_PP_SEND].count = 0; /* the head sits with the last stage */
    /* the drafter runs at the activation dtype: NVIDIA's NVFP4 DeepSeek-R1 leaves its MTP layer
     * unquantized (Model Optimizer's examples/deepseek/ptq.py excludes layers.{n_layers}*) */
    out->lowp_ops = 0;
    if (medusa_heads > 0) {
        /* only the heads: a residual block each, and each head's vocabulary projection (the
         * LM head operator, counted once per head) */
        const struct llmroof_op lm = op[LLMROOF_OP_LM_HEAD], ag = op[LLMROOF_OP_ALL_GATHER];
        memset(op, 0, sizeof out->op);
        op[LLMROOF_OP_FFN] = (struct llmroof_op){ (double)medusa_heads, 2.0 * T * h * h, h * h * w + 2.0 * T * h * a,
                                                  0, 2, h * h * w };
        op[LLMROOF_OP_LM_HEAD] = lm;
        op[LLMROOF_OP_LM_HEAD].count = (double)medusa_heads;
        op[LLMROOF_OP_ALL_GATHER] = ag;
        op[LLMROOF_OP_ALL_GATHER].count = ag.count > 0 ? (double)medusa_heads : 0.0;
        out->ep_ranks = 0;
        out->expert_wbytes = 0.0;
        out->expert_flops = 0.0;
        memset(out->gemm_out, 0, sizeof out->gemm_out);
        out->gemm_out[LLMROOF_OP_FFN] = T * h; /* a head's h x h block: K = h */
        out->block_fp8_ops = 0;
        return;
    }
    /* one mean decoder layer: every per-layer count over the layers (the embedding's all-reduce
     * and the logits' gather stay whole) */
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        if (k == LLMROOF_OP_FINAL_NORM || k == LLMROOF_OP_LM_HEAD || k == LLMROOF_OP_ALL_GATHER)
            continue;
        if (k == LLMROOF_OP_ALL_REDUCE && op[k].count > 0) {
            op[k].count = (op[k].count - 1.0) / L + 1.0;
            continue;
        }
        op[k].count /= L;
    }
    if (m != tm && hd.attn_in <= 1.0) {
        /* EAGLE-1/2 draft over the target's own LM head (their checkpoints hold none; EAGLE and
         * DeepSeek-V3's MTP reuse the target's head for each draft token, above): its rows at the
         * target's bytes, not the head's 16 bits (a quantized head under quantized_head engines) */
        op[LLMROOF_OP_LM_HEAD].bytes += h * sh->lm_vocab_per_rank *
                                        (ops_unquantized_bytes(tm, tdt, true) - ops_unquantized_bytes(m, dt, true));
    }
    /* the q/k/v width the head's extra inputs feed: the target's, or its own layer's */
    double qw = head_qkv_width(m, sh);
    if (hd.own && hd.own->heads > 0) {
        /* a head with its own layer shape (--spec-draft-config): its norms, q/k/v, K/V append,
         * attention and o_proj are those of a one-layer Llama of that shape on the same ranks
         * (ops_head_attn), in place of the target's mean layer's (DeepSeek-V3's MLA, a hybrid's
         * recurrent mixers, a windowed model's local layers: none of them the head's). The MLP,
         * the LM head and the collectives stay as built above. */
        struct llmroof_model am;
        struct llmroof_shard ash;
        struct llmroof_oplist lo;
        (void)ops_head_attn(m, hd.own, sh, &am, &ash, NULL); /* the caller has checked its TP */
        ops_build_split(&am, &ash, dt, b, false, &lo);
        static const enum llmroof_opkind own_ops[] = { LLMROOF_OP_NORM, LLMROOF_OP_QKV_PROJ, LLMROOF_OP_KV_WRITE,
                                                       LLMROOF_OP_ATTENTION, LLMROOF_OP_O_PROJ };
        for (size_t i = 0; i < sizeof own_ops / sizeof own_ops[0]; i++) {
            op[own_ops[i]] = lo.op[own_ops[i]];
            out->gemm_out[own_ops[i]] = lo.gemm_out[own_ops[i]];
        }
        op[LLMROOF_OP_ATTN_LOCAL] = op[LLMROOF_OP_MLA_KV_UP] = op[LLMROOF_OP_DSA_INDEX] = op[LLMROOF_OP_LINEAR_MIX] =
            (struct llmroof_op){ 0 };
        out->gemm_out[LLMROOF_OP_MLA_KV_UP] = 0.0;
        /* what the roofline reads of the attention (set_context's step-wide fields) */
        out->mla_absorbed = false;
        out->mla = false;
        out->attn_kv_bytes = lo.attn_kv_bytes;
        out->attn_local_kv_bytes = out->attn_local_full_flops = out->attn_local_full_bytes = 0.0;
        out->local_sliding = lo.local_sliding;
        out->longer_query = lo.longer_query;
        out->kv_8bit = lo.kv_8bit;
        out->fa2_unfit = lo.fa2_unfit;
        out->q_per_kv = lo.q_per_kv;
        out->new_per_seq = lo.new_per_seq;
        out->keys_per_seq = lo.keys_per_seq;
        out->attn_heads = lo.attn_heads;
        out->attn_square = lo.attn_square;
        qw = head_qkv_width(&am, &ash);
    }
    struct llmroof_op *qkv = &op[LLMROOF_OP_QKV_PROJ];
    const double n = qkv->count; /* the head has one of each: per instance, over the mean layer's count */
    if (hd.fc_in > 0) {
        /* EAGLE's fc: the target's feature and the token embedding (2h; EAGLE-3's three target
         * layers, 3h) projected to h (K fc_in x h): reads the inputs, writes h */
        /* its weights whole on every rank (replicated in both engines: ops_eagle_fc_bytes, the
         * bytes memory_head_drafter_own holds for an EAGLE head) */
        out->gemm_out[LLMROOF_OP_QKV_PROJ] += T * h / n;
        qkv->flops += 2.0 * T * hd.fc_in * h * h / n;
        qkv->bytes += (hd.fc_in * h * h * w + (hd.fc_in + 1.0) * T * h * a) / n;
        /* an EAGLE head's 16-bit weights among the GEMM's stored weights (no dequantization
         * follows at its dtypes: ops_head_dtypes); an MTP module's eh_proj as before */
        if (hd.apart)
            qkv->wbytes += hd.fc_in * h * h * w / n;
    }
    if (hd.attn_in > 1.0) {
        /* EAGLE-3: the embedding beside the hidden state into q/k/v (K (attn_in) h): the
         * projection's further inputs, weights and activations */
        const double more = (hd.attn_in - 1.0) * h;
        qkv->flops += 2.0 * T * more * qw / n;
        qkv->bytes += (more * qw * w + T * more * a) / n;
        qkv->wbytes += more * qw * w / n;
    }
    if (hd.mlp_width > 0) {
        /* an EAGLE head on a MoE target: its layer's MLP is a dense one of its own, not the
         * target's experts (ops_eagle_mlp_width): no router, no expert dispatch or gather, one
         * dense SwiGLU split over the attention-TP group, and after it the TP all-reduce a dense
         * layer has (one after attention, one after the MLP, one for the embedding) */
        /* a config's head is a Llama layer: a SwiGLU (three matrices) whatever the target's MLP */
        const double nmat = hd.own || m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
        const double I = eagle_mlp_per_rank(hd.mlp_width, sh);
        const enum llmroof_mlp kind = hd.own ? LLMROOF_MLP_GATED : m->mlp;
        op[LLMROOF_OP_FFN] = op[LLMROOF_OP_ROUTER] = op[LLMROOF_OP_ALL_TO_ALL] = op[LLMROOF_OP_MLP_GATHER] =
            (struct llmroof_op){ 0 };
        op[LLMROOF_OP_DENSE_FFN] = (struct llmroof_op){ n, 2.0 * T * h * I * nmat / n,
                                                        (nmat * h * I * w + T * mlp_act_bytes(kind, h, I, a, a, false)) / n,
                                                        0, 3, nmat * h * I * w / n };
        out->gemm_out[LLMROOF_OP_FFN] = 0.0;
        out->gemm_out[LLMROOF_OP_DENSE_FFN] = T * ((nmat - 1.0) * I + h) / n;
        out->ep_ranks = 0;
        out->expert_wbytes = out->expert_flops = out->lowp_save_bytes = 0.0;
        out->tokens_per_expert = out->experts_hit = out->shared_rows = 0.0;
        out->block_fp8_ops &= ~((1u << LLMROOF_OP_FFN) | (1u << LLMROOF_OP_DENSE_FFN));
        if (sh->tp > 1)
            op[LLMROOF_OP_ALL_REDUCE].count = 3.0;
    }
    const double f = m->vocab > 0 ? hd.vocab / (double)m->vocab : 1.0;
    if (f < 1.0) {
        /* a head over its own, smaller vocabulary: the weights and the logits shrink with it, the
         * hidden rows it reads do not (Sl h a of h Vr w + Sl h a + Sl Vr a; flops 2 Sl h Vr) */
        struct llmroof_op *lm = &op[LLMROOF_OP_LM_HEAD];
        const double rows = sh->lm_vocab_per_rank > 0 ? lm->flops * a / (2.0 * sh->lm_vocab_per_rank) : 0.0;
        lm->flops *= f;
        lm->bytes = rows + f * (lm->bytes - rows);
        lm->wbytes *= f;
        /* the logits gathered shrink with it; under a head split over the stage (lm_ranks) the
         * hidden rows gathered to it do not: its message is the mean of the rows' gather (Sh h a,
         * = rows) and the logits' (Sh V r) */
        struct llmroof_op *ag = &op[LLMROOF_OP_ALL_GATHER];
        if (out->lm_ranks > 0)
            ag->comm_bytes = 0.5 * rows + f * (ag->comm_bytes - 0.5 * rows);
        else
            ag->comm_bytes *= f;
    }
}

double ops_dequant_ratio(const struct llmroof_dtypes *dt)
{
    const double a = ops_stream_bytes(dt), w = ops_weight_bytes(dt);
    const bool act16 = dt->act == LLMROOF_FP16 || dt->act == LLMROOF_BF16 || dt->act == LLMROOF_FP32 ||
                       dt->act == LLMROOF_TF32;
    return act16 && w < a ? a / w : 0.0;
}
