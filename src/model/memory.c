/* memory.c - weights, KV cache and capacity per GPU (see llmroof/memory.h).
 *
 *   weights/GPU  = sharded matrices / TP + replicated parts (norms, o/MLP-down biases,
 *                  KV projections copied when KV heads < TP, router) + V/TP embedding
 *                  rows + V/TP LM-head rows unless tied, all at the weight dtype
 *   KV/token     = 2 * layers * kv_heads * head_dim * kv_bytes   (whole model)
 *   KV/token/GPU = 2 * layers * kv_heads_per_rank * head_dim * kv_bytes
 *   usable       = memory * mem_util
 *   capacity     = (usable - weights - workspace - reserve) / KV per token per GPU
 *   max batch    = floor(capacity / tokens per sequence)
 * int4 counts half a byte per weight; group scales are not modelled. */
#include "llmroof/memory.h"

#include <math.h>
#include <string.h>

struct llmroof_mem_opts memory_default_opts(void)
{
    struct llmroof_mem_opts o = { 0 };
    o.mem_util = 0.90;                    /* vLLM's gpu_memory_utilization default */
    o.reserve_bytes = 1073741824.0;       /* 1 GiB: CUDA context, CUDA graphs, NCCL buffers */
    o.workspace_set = false;
    o.max_batched_tokens = 2048;          /* vLLM's chunked-prefill max_num_batched_tokens */
    o.max_seqs = 256;                     /* vLLM's max_num_seqs */
    o.block_size = 0;
    return o;
}

double memory_weights_per_gpu(const struct llmroof_model *m, const struct llmroof_shard *sh, double w)
{
    const double h = (double)m->hidden, d = (double)m->head_dim, L = (double)m->layers;
    const double Hq = (double)sh->heads_per_rank, Kr = (double)sh->kv_heads_per_rank;
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    const double norm_w = m->norm == LLMROOF_NORM_LAYER ? 2.0 * h : h;

    double layer = h * (Hq + 2.0 * Kr) * d + Hq * d * h;   /* q, k, v, o shards */
    if (m->qkv_bias)
        layer += (Hq + 2.0 * Kr) * d;
    if (m->o_bias)
        layer += h;                                        /* replicated */
    if (m->moe_experts > 0) {
        double Ie = sh->moe_intermediate_per_rank;
        double experts = (double)m->moe_experts + (double)m->moe_shared;
        layer += experts * nmat * h * Ie + h * (double)m->moe_experts; /* experts + router */
        if (m->mlp_bias)
            layer += experts * ((nmat - 1.0) * Ie + h);
    } else {
        double I = sh->intermediate_per_rank;
        layer += nmat * h * I;
        if (m->mlp_bias)
            layer += (nmat - 1.0) * I + h;
    }
    layer += (m->parallel_attn ? 1.0 : 2.0) * norm_w;

    double total = L * layer + norm_w;                     /* + final norm */
    total += sh->vocab_per_rank * h + (double)m->learned_pos * h;
    if (!m->tied_embeddings)
        total += sh->vocab_per_rank * h;
    return total * w;
}

/* Activation workspace of the largest forward: T tokens of residual (2h), fused QKV and
 * the MLP intermediate (3 widths for gated, 2 for plain) at the activation dtype, plus
 * fp32 logits for S sequences. A deliberate round figure: serving engines measure it by
 * a profiling run, see docs/model.md. */
static double default_workspace(const struct llmroof_model *m, const struct llmroof_shard *sh,
                                const struct llmroof_dtypes *dt, const struct llmroof_mem_opts *o)
{
    const double a = dtype_bytes(dt->act), h = (double)m->hidden, d = (double)m->head_dim;
    double inter = m->moe_experts > 0 ? (double)m->moe_top_k * sh->moe_intermediate_per_rank
                                      : sh->intermediate_per_rank;
    double nw = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    double per_token = 2.0 * h + ((double)sh->heads_per_rank + 2.0 * (double)sh->kv_heads_per_rank) * d + nw * inter;
    return o->max_batched_tokens * per_token * a + o->max_seqs * (double)m->vocab * 4.0;
}

int memory_eval(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                struct llmroof_memory *out, struct llmroof_err *err)
{
    struct llmroof_shard sh;
    int rc = ops_shard(m, tp, &sh, err);
    if (rc)
        return rc;
    if (!dtype_is_storage(dt->weight) || !dtype_is_storage(dt->kv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "tf32 is a compute mode, not a storage dtype for weights or KV cache");
    if (!(o->mem_util > 0 && o->mem_util <= 1))
        return llmroof_err_set(err, LLMROOF_EINPUT, "memory utilisation %g must be in (0, 1]", o->mem_util);
    if (context_len < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "context length %ld must be at least 1", context_len);

    memset(out, 0, sizeof *out);
    const double w = ops_weight_bytes(dt), kvb = dtype_bytes(dt->kv);
    out->gpu_memory_bytes = g->memory_bytes;
    out->usable_bytes = g->memory_bytes * o->mem_util;
    out->weights_bytes_per_gpu = memory_weights_per_gpu(m, &sh, w);
    out->weights_bytes_total = out->weights_bytes_per_gpu * tp;
    out->workspace_bytes_per_gpu = o->workspace_set ? o->workspace_bytes : default_workspace(m, &sh, dt, o);
    out->reserve_bytes_per_gpu = o->reserve_bytes;
    out->free_bytes_per_gpu = out->usable_bytes - out->weights_bytes_per_gpu - out->workspace_bytes_per_gpu
                            - out->reserve_bytes_per_gpu;
    out->kv_capacity_bytes_per_gpu = out->free_bytes_per_gpu > 0 ? out->free_bytes_per_gpu : 0;
    out->kv_bytes_per_token = 2.0 * (double)m->layers * (double)m->kv_heads * (double)m->head_dim * kvb;
    out->kv_bytes_per_token_per_gpu = 2.0 * (double)m->layers * (double)sh.kv_heads_per_rank * (double)m->head_dim * kvb;
    out->context_len = context_len;

    double cap = floor(out->kv_capacity_bytes_per_gpu / out->kv_bytes_per_token_per_gpu);
    double per_seq = (double)context_len;
    if (o->block_size > 1) {
        double bs = (double)o->block_size;
        cap = floor(cap / bs) * bs;             /* whole blocks only */
        per_seq = ceil(per_seq / bs) * bs;      /* each sequence rounds up to a block */
    }
    out->kv_capacity_tokens = cap;
    out->tokens_per_seq = per_seq;
    out->max_batch = floor(cap / per_seq);
    if (out->free_bytes_per_gpu <= 0)
        out->fit = LLMROOF_FIT_WEIGHTS;
    else if (out->max_batch < 1)
        out->fit = LLMROOF_FIT_CONTEXT;
    else
        out->fit = LLMROOF_FITS;
    out->fits = out->fit == LLMROOF_FITS;

    /* smallest TP whose weights, workspace and reserve fit (same options) */
    out->min_tp_fit = 0;
    for (int t = 1; t <= 64; t *= 2) {
        struct llmroof_shard s2;
        if (ops_shard(m, t, &s2, NULL) != LLMROOF_OK)
            continue;
        double ws = o->workspace_set ? o->workspace_bytes : default_workspace(m, &s2, dt, o);
        if (memory_weights_per_gpu(m, &s2, w) + ws + o->reserve_bytes < out->usable_bytes) {
            out->min_tp_fit = t;
            break;
        }
    }
    return LLMROOF_OK;
}
