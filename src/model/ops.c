/* ops.c - model + step + TP -> operator list (see llmroof/ops.h).
 *
 * Notation per rank: T new tokens, S sequences, h hidden, d head_dim, Hq query heads,
 * Kr KV heads, I' MLP width, V' vocabulary rows; a, w, k = activation, weight and KV
 * bytes per element. FLOPs count a multiply-add as 2 (kipply, "Transformer inference
 * arithmetic", 2022). Attention FLOPs are 4*d per (query, key) pair and head: 2*d for
 * QK^T and 2*d for PV; causal prefill has P(P+1)/2 pairs (the "causal half").
 * Flash-style attention keeps scores on chip, so its HBM traffic is Q, O and the K/V
 * read once per sequence (Dao et al. 2022). Full derivation: docs/model.md. */
#include "llmroof/ops.h"

#include <math.h>
#include <string.h>

static const char *const names[LLMROOF_OP_COUNT] = {
    "norm", "qkv_proj", "kv_write", "attention", "o_proj", "all_reduce",
    "router", "ffn", "final_norm", "lm_head", "all_gather"
};

const char *op_name(enum llmroof_opkind k)
{
    return (k >= 0 && k < LLMROOF_OP_COUNT) ? names[k] : "?";
}

bool op_is_collective(enum llmroof_opkind k)
{
    return k == LLMROOF_OP_ALL_REDUCE || k == LLMROOF_OP_ALL_GATHER;
}

void batch_add(struct llmroof_batch *b, double new_tokens, double past_tokens)
{
    b->tokens += new_tokens;
    b->seqs += 1.0;
    b->attn_pairs += new_tokens * past_tokens + new_tokens * (new_tokens + 1.0) / 2.0;
    b->kv_read_tokens += past_tokens + new_tokens;
}

struct llmroof_batch batch_prefill(double batch, double prompt)
{
    struct llmroof_batch b = { 0 };
    b.tokens = batch * prompt;
    b.seqs = batch;
    b.attn_pairs = batch * prompt * (prompt + 1.0) / 2.0;
    b.kv_read_tokens = batch * prompt;
    return b;
}

struct llmroof_batch batch_decode(double batch, double context)
{
    /* one new token after context-1 cached ones: pairs = (context-1) + 1 = context */
    struct llmroof_batch b = { 0 };
    b.tokens = batch;
    b.seqs = batch;
    b.attn_pairs = batch * context;
    b.kv_read_tokens = batch * context;
    return b;
}

int ops_shard(const struct llmroof_model *m, int tp, struct llmroof_shard *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    if (tp < 1 || tp > 1024)
        return llmroof_err_set(err, LLMROOF_EINPUT, "tensor parallelism %d must be between 1 and 1024", tp);
    if (m->heads % tp != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "model '%s' has %ld attention heads, which TP %d does not divide", m->id, m->heads, tp);
    if (m->kv_heads % tp != 0 && tp % m->kv_heads != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "model '%s' has %ld KV heads: TP %d must divide them or be a multiple of them",
                               m->id, m->kv_heads, tp);
    out->tp = tp;
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
    out->vocab_per_rank = (double)m->vocab / tp;
    return LLMROOF_OK;
}

double ops_experts_hit(double experts, double top_k, double tokens)
{
    if (experts <= 0)
        return 0;
    if (top_k >= experts)
        return experts;
    return experts * (1.0 - pow(1.0 - top_k / experts, tokens));
}

/* HBM traffic of the MLP's intermediate activations per token of width `width`:
 * gated: gate_up writes 2w, the SiLU-and-multiply kernel reads 2w and writes w, down
 * reads w (6w); plain: up writes w, the activation reads and writes w, down reads w (4w). */
static double mlp_inter_elems(enum llmroof_mlp kind, double width)
{
    return kind == LLMROOF_MLP_GATED ? 6.0 * width : 4.0 * width;
}

double ops_weight_bytes(const struct llmroof_dtypes *dt)
{
    return dt->weight_bits > 0 ? dt->weight_bits / 8.0 : dtype_bytes(dt->weight);
}

void ops_build(const struct llmroof_model *m, const struct llmroof_shard *sh,
               const struct llmroof_dtypes *dt, const struct llmroof_batch *b, struct llmroof_oplist *out)
{
    memset(out, 0, sizeof *out);
    const double a = dtype_bytes(dt->act), w = ops_weight_bytes(dt), k = dtype_bytes(dt->kv);
    const double T = b->tokens, S = b->seqs, h = (double)m->hidden, d = (double)m->head_dim;
    const double L = (double)m->layers;
    const double Hq = (double)sh->heads_per_rank, Kr = (double)sh->kv_heads_per_rank;
    const double qw = Hq * d;                    /* query width on this rank */
    const double qkvw = (Hq + 2.0 * Kr) * d;     /* fused q/k/v output width */
    const double norm_w = m->norm == LLMROOF_NORM_LAYER ? 2.0 * h : h;
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    const double norms_per_layer = m->parallel_attn ? 1.0 : 2.0;
    struct llmroof_op *op = out->op;

    /* RMSNorm/LayerNorm: ~4 FLOP per element (square, sum, scale, weight); read x, write y. */
    /* Kernels per instance (the last field) in an engine that fuses the residual add into the
     * norm and RoPE into one kernel after the QKV GEMM (vLLM, TensorRT-LLM, lmdeploy): norm 1,
     * QKV GEMM + RoPE 2, cache write 1, attention 1, O GEMM 1, MLP gate_up GEMM + activation +
     * down GEMM 3, router GEMM + top-k 2, LM head GEMM + sampling 3. Unfused engines launch more:
     * the engine profile's kernel_factor (docs/model.md "Kernel-level terms"). */
    op[LLMROOF_OP_NORM] = (struct llmroof_op){ L * norms_per_layer, 4.0 * T * h, 2.0 * T * h * a + norm_w * w, 0, 1 };

    op[LLMROOF_OP_QKV_PROJ] = (struct llmroof_op){
        L, 2.0 * T * h * qkvw,
        h * qkvw * w + (m->qkv_bias ? qkvw * w : 0.0) + T * h * a + T * qkvw * a, 0, 2 };

    /* read the new K/V (activation dtype), write them into the cache (KV dtype) */
    op[LLMROOF_OP_KV_WRITE] = (struct llmroof_op){ L, 0.0, 2.0 * T * Kr * d * (a + k), 0, 1 };

    /* K/V reads once per KV head (GQA-aware kernels: FlashAttention-2, XQA, FlashInfer); the
     * K/V part and the group size are kept so that roofline.c can charge engines whose kernels
     * loop over query heads (masked MHA before TensorRT-LLM's XQA, HF's repeat_kv) Hq/Kr reads */
    out->attn_kv_bytes = 2.0 * b->kv_read_tokens * Kr * d * k;
    out->q_per_kv = Kr > 0 ? Hq / Kr : 1.0;
    op[LLMROOF_OP_ATTENTION] = (struct llmroof_op){
        L, 4.0 * d * Hq * b->attn_pairs, 2.0 * T * qw * a + out->attn_kv_bytes, 0, 1 };

    op[LLMROOF_OP_O_PROJ] = (struct llmroof_op){
        L, 2.0 * T * qw * h, qw * h * w + (m->o_bias ? h * w : 0.0) + T * qw * a + T * h * a, 0, 1 };

    if (sh->tp > 1) {
        /* Messages carry the residual stream, which stays 16-bit whatever the GEMMs compute in
         * (fp8 and int8 GEMMs write back bf16/fp16): r = 2 bytes (4 for fp32 models). */
        const double r = dt->act == LLMROOF_FP32 || dt->act == LLMROOF_TF32 ? 4.0 : 2.0;
        /* one after attention and one after the MLP (one per layer when both run in
         * parallel off one norm), plus one after the vocabulary-parallel embedding */
        op[LLMROOF_OP_ALL_REDUCE] = (struct llmroof_op){ L * (m->parallel_attn ? 1.0 : 2.0) + 1.0, 0, 0, T * h * r, 1 };
        /* gather the S rows of V' logits from every rank: message = S * V elements */
        op[LLMROOF_OP_ALL_GATHER] = (struct llmroof_op){ 1.0, 0, 0, S * (double)m->vocab * r, 1 };
    }

    if (m->moe_experts > 0) {
        const double E = (double)m->moe_experts, kk = (double)m->moe_top_k;
        const double Ie = sh->moe_intermediate_per_rank;
        const double Ish = (double)m->moe_shared * Ie;
        const double hit = ops_experts_hit(E, kk, T);
        out->experts_hit = hit;
        op[LLMROOF_OP_ROUTER] = (struct llmroof_op){ L, 2.0 * T * h * E, h * E * w + T * h * a + T * E * a, 0, 2 };
        double flops = 2.0 * T * kk * h * Ie * nmat + 2.0 * T * h * Ish * nmat;
        double bytes = (hit * Ie + Ish) * nmat * h * w
                     + T * kk * (2.0 * h + mlp_inter_elems(m->mlp, Ie)) * a
                     + (Ish > 0 ? T * (2.0 * h + mlp_inter_elems(m->mlp, Ish)) * a : 0.0);
        /* permute, grouped gate_up, activation, grouped down, un-permute and weighted sum */
        op[LLMROOF_OP_FFN] = (struct llmroof_op){ L, flops, bytes, 0, 5 };
    } else {
        const double I = sh->intermediate_per_rank;
        double bias = m->mlp_bias ? ((nmat - 1.0) * I + h) * w : 0.0;
        op[LLMROOF_OP_FFN] = (struct llmroof_op){
            L, 2.0 * T * h * I * nmat,
            nmat * h * I * w + bias + 2.0 * T * h * a + T * mlp_inter_elems(m->mlp, I) * a, 0, 3 };
    }

    op[LLMROOF_OP_FINAL_NORM] = (struct llmroof_op){ 1.0, 4.0 * T * h, 2.0 * T * h * a + norm_w * w, 0, 1 };

    /* logits only for the last position of each sequence */
    const double Vr = sh->vocab_per_rank;
    op[LLMROOF_OP_LM_HEAD] = (struct llmroof_op){ 1.0, 2.0 * S * h * Vr, h * Vr * w + S * h * a + S * Vr * a, 0, 3 };
}
