/* memory.c - weights, KV cache and capacity per GPU (see llmroof/memory.h).
 *
 *   weights/GPU  = per layer of the fullest pipeline stage: sharded matrices / TP (experts
 *                  E/EP whole ones under EP) + replicated parts (norms, o/MLP-down biases,
 *                  KV projections copied when KV heads < TP, MLA's q_a/kv_a, router) + V/TP
 *                  embedding rows on the first stage + V/TP LM-head rows on the last unless
 *                  tied, at the weight dtype (routed experts at the expert dtype when set)
 *   KV/token     = layers * (2 * kv_heads * head_dim, or MLA kv_lora_rank + qk_rope_head_dim)
 *                  * kv_bytes, + a DSA indexer's fp8 key and scale (132 B a layer at a key of 128)
 *                  (whole model, every layer holding every token)
 *   KV/seq/GPU   = per layer of the stage: global layers context tokens, windowed layers
 *                  min(context, window), each 2 * kv_heads_per_rank * head_dim (MLA: the latent,
 *                  replicated on every TP rank) * kv_bytes
 *   KV/token/GPU = KV/seq/GPU / context (the mean over the sequence)
 *   usable       = memory * mem_util
 *   capacity     = (usable - weights - workspace - reserve) / KV per token per GPU, each stage's
 *                  own weights and K/V under PP, the fewest tokens of any stage (kv_stage)
 *   max batch    = floor(capacity / tokens per sequence) * attention replicas
 * int4 counts half a byte per weight; group scales enter through --weight-bits. */
#include "model/memory.h"

#include <math.h>
#include <string.h>

#include "model/arch.h"
#include "model/ckpt.h"
#include "model/estimate.h"
#include "model/layers.h"

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

/* MoE layers among layers [0, x): i >= first with (i+1) % step == 0. */
static double moe_layers_below(const struct llmroof_model *m, long x)
{
    if (m->moe_experts <= 0 || x <= m->moe_first_dense)
        return 0;
    const long step = m->moe_layer_step > 0 ? m->moe_layer_step : 1;
    const long n = x / step - m->moe_first_dense / step; /* whole multiples: floor division intended */
    return (double)n;
}

/* Global-attention layers among [0, x) (all of them without a window). */
static double global_layers_below(const struct llmroof_model *m, long x)
{
    if (m->window <= 0)
        return (double)x;
    if (m->window_global_every <= 0)
        return 0;
    const long n = x / m->window_global_every; /* floor division intended */
    return (double)n;
}

/* The GEMM matrices of one layer on one rank, in elements, by the checkpoint module that holds
 * them (a per-operator checkpoint stores each module at its own bits): the q/k/v projections (MLA:
 * q_a replicated, q_b sharded, kv_a replicated), MLA's kv_b, the output projection, and a MoE
 * layer's shared experts. */
struct layer_mats {
    double q, kvup, o, shared;
};

static struct layer_mats layer_matrices(const struct llmroof_model *m, const struct llmroof_shard *sh)
{
    const double h = (double)m->hidden, d = (double)m->head_dim;
    const double Hq = (double)sh->heads_per_rank, Kr = (double)sh->kv_heads_per_rank;
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    struct layer_mats x = { 0.0, 0.0, 0.0, 0.0 };
    if (arch_is_mla(m)) {
        const double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
        const double n = (double)m->qk_nope_dim, p = (double)m->qk_rope_dim, v = (double)m->v_head_dim;
        x.q = (rq > 0 ? h * rq + rq * Hq * (n + p) : h * Hq * (n + p)) + h * (rkv + p);
        x.kvup = rkv * Hq * (n + v);
        x.o = Hq * v * h;
    } else {
        x.q = h * (Hq + 2.0 * Kr) * d + (m->attn_gate ? h * Hq * d : 0.0); /* Qwen3-Next's output gate, in q_proj */
        x.o = Hq * d * h;
    }
    if (m->moe_experts > 0)
        x.shared = nmat * h * (double)m->moe_shared *
                   (sh->ep > 1 ? (sh->dp_attn ? (double)m->moe_intermediate : (double)m->moe_intermediate / (double)sh->tp)
                               : sh->shared_intermediate_per_rank);
    return x;
}

/* Weight elements of one rank: attention of one layer, dense MLP layer, MoE layer
 * (non-expert part in *moe_w, routed experts in *moe_e). */
static void layer_weights(const struct llmroof_model *m, const struct llmroof_shard *sh,
                          const struct llmroof_dtypes *dt, double *attn, double *dense, double *moe_w, double *moe_e)
{
    const double h = (double)m->hidden, d = (double)m->head_dim;
    const double Hq = (double)sh->heads_per_rank, Kr = (double)sh->kv_heads_per_rank;
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    const double norm_w = m->norm == LLMROOF_NORM_LAYER ? 2.0 * h : h;
    const struct layer_mats x = layer_matrices(m, sh);
    double a = x.q + x.kvup + x.o;
    if (arch_is_mla(m)) {
        a += (m->q_lora_rank > 0 ? (double)m->q_lora_rank : 0.0) + (double)m->kv_lora_rank; /* the latents' norms */
    } else {
        if (m->qkv_bias)
            a += (Hq + 2.0 * Kr) * d;
        if (m->qk_norm)
            a += 2.0 * d;
    }
    if (m->o_bias)
        a += h;                                     /* replicated */
    if (m->attention_sinks)
        a += Hq;                                    /* gpt-oss: one sink logit per head */
    a += arch_norms_per_layer(m) * norm_w;
    *attn = a;

    const double I = sh->intermediate_per_rank;
    *dense = nmat * h * I + (m->mlp_bias ? (nmat - 1.0) * I + h : 0.0);

    *moe_w = *moe_e = 0;
    if (m->moe_experts > 0) {
        const double E = (double)m->moe_experts;
        const double Ie = ops_expert_width(m, sh, dt); /* whole experts under EP; MXFP4's padded slice */
        const double local = sh->ep > 1 ? E / (double)sh->ep : E;
        *moe_e = local * nmat * h * Ie;
        /* shared experts + router, and the routed experts' biases: 16-bit beside MXFP4 weights
         * (gpt-oss ships them bf16; a review found them priced at 4.25 bits, 58 MB short) */
        *moe_w = x.shared + h * E + (m->mlp_bias ? local * ((nmat - 1.0) * Ie + h) + E : 0.0); /* + the router's bias */
    }
}

/* A per-operator checkpoint's bytes beyond `w` a weight on `La` attention layers, `Ld` dense MLP
 * layers (in whole dense widths) and `Lm` MoE layers of one rank: the modules it quantized (NVIDIA's
 * NVFP4 DeepSeek, compressed-tensors NVFP4 of every linear layer) are stored at their own bits, not
 * the weight dtype's (the routed experts are ops_expert_bytes' already). Negative where they are
 * narrower; 0 for any other checkpoint. */
static double ckpt_module_extra(const struct llmroof_model *m, const struct llmroof_shard *sh,
                                const struct llmroof_dtypes *dt, double La, double Ld, double Lm)
{
    if (!m->ckpt_per_op)
        return 0.0;
    const double w = ops_weight_bytes(dt);
    const double nmat = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    const struct layer_mats x = layer_matrices(m, sh);
    const double dense = nmat * (double)m->hidden * sh->intermediate_per_rank;
    const unsigned dense_mod = m->moe_experts > 0 ? LLMROOF_CKPT_DENSE_FFN : LLMROOF_CKPT_FFN;
#define MB(mod) (ops_module_weight_bytes(m, dt, (mod)) - w)
    return La * (x.q * MB(LLMROOF_CKPT_QKV_PROJ) + x.kvup * MB(LLMROOF_CKPT_MLA_KV_UP) + x.o * MB(LLMROOF_CKPT_O_PROJ)) +
           Ld * dense * MB(dense_mod) + Lm * x.shared * MB(LLMROOF_CKPT_FFN);
#undef MB
}

/* Weight bytes of pipeline stage `s` on one of its GPUs. */
static double stage_weights(const struct llmroof_model *m, const struct llmroof_shard *sh,
                            const struct llmroof_dtypes *dt, int s)
{
    const double w = ops_weight_bytes(dt), we = ops_expert_bytes(m, dt);
    const double wu = ops_unquantized_bytes(m, dt, false), wl = ops_unquantized_bytes(m, dt, true);
    const double h = (double)m->hidden;
    const double norm_w = m->norm == LLMROOF_NORM_LAYER ? 2.0 * h : h;
    const long L = m->layers, pp = sh->pp > 0 ? sh->pp : 1;
    /* the first L % pp stages take one layer more (Megatron/vLLM even split) */
    const long base = L / pp, extra = L % pp;
    const long start = s * base + (s < extra ? s : extra), n = base + (s < extra ? 1 : 0);
    double attn, dense, moe_w, moe_e;
    layer_weights(m, sh, dt, &attn, &dense, &moe_w, &moe_e);
    const double nm = moe_layers_below(m, start + n) - moe_layers_below(m, start);
    /* the router's h x E at wu, which a block-fp8 checkpoint keeps bf16 (ops_unquantized_bytes) */
    const double router = m->moe_experts > 0 ? h * (double)m->moe_experts * (wu - w) : 0.0;
    double bytes = ((double)n * attn + ((double)n - nm) * dense + nm * moe_w) * w + nm * moe_e * we + nm * router;
    double ck;
    if (layers_patterned(m)) {
        /* per layer kind (layers.h): attention layers carry attn (with the norms), recurrent
         * layers their mixer split over TP plus the norms, MLP-less layers only the norms */
        const struct llmroof_layer_counts c = layers_count(m, start, n);
        const double norms = arch_norms_per_layer(m) * norm_w;
        const double tp = sh->tp > 0 ? (double)sh->tp : 1.0;
        bytes = ((c.full + c.local) * (attn + layers_dsa_params(m)) + ((double)n - c.full - c.local) * norms +
                 c.linear * layers_linear_params_rank(m, (int)tp) + c.dense * dense * layers_dense_width(m, start, n) /
                 (double)m->intermediate + c.moe * moe_w) * w + c.moe * moe_e * we + c.moe * router; /* NAS: per-layer widths */
        ck = ckpt_module_extra(m, sh, dt, c.full + c.local,
                                  c.dense * layers_dense_width(m, start, n) / (double)m->intermediate, c.moe);
    } else {
        ck = ckpt_module_extra(m, sh, dt, (double)n, (double)n - nm, nm);
        if (m->dsa_top_k > 0)
            bytes += (double)n * layers_dsa_params(m) * w; /* the indexer, replicated on every rank */
    }
    bytes += ck;
    if (s == 0)
        bytes += (sh->vocab_per_rank * h + (double)m->learned_pos * h) * wu;
    if (s == pp - 1) {
        bytes += norm_w * w;                                  /* final norm */
        if (!m->tied_embeddings || pp > 1)                    /* a tied head is copied to the last stage */
            bytes += sh->lm_vocab_per_rank * h * wl;
    }
    return bytes;
}

double memory_weights_layout(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt)
{
    const int pp = sh->pp > 0 ? sh->pp : 1;
    double best = 0;
    for (int s = 0; s < pp; s++) {
        double b = stage_weights(m, sh, dt, s);
        if (b > best)
            best = b;
    }
    return best;
}

void memory_stage_shares(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                         bool head, double *share)
{
    const double w = ops_weight_bytes(dt);
    const double wu = ops_unquantized_bytes(m, dt, false), wl = ops_unquantized_bytes(m, dt, true);
    const int pp = sh->pp > 0 ? sh->pp : 1;
    /* the first stage's embedding is looked up, a row a token, not read: not its work */
    const double embed = (sh->vocab_per_rank + (double)m->learned_pos) * (double)m->hidden * wu;
    /* the LM head (and final norm) on the last stage, which a prompt runs on its last token only */
    const double hw = (double)m->hidden, norm_w = m->norm == LLMROOF_NORM_LAYER ? 2.0 * hw : hw;
    const double lm = norm_w * w + (!m->tied_embeddings || pp > 1 ? sh->lm_vocab_per_rank * hw * wl : 0.0);
    double tot = 0;
    for (int s = 0; s < pp; s++) {
        share[s] = stage_weights(m, sh, dt, s) - (s == 0 ? embed : 0.0) - (s == pp - 1 && !head ? lm : 0.0);
        tot += share[s];
    }
    for (int s = 0; s < pp; s++)
        share[s] = tot > 0 ? share[s] / tot : 1.0 / (double)pp;
}

double memory_weights_per_gpu(const struct llmroof_model *m, const struct llmroof_shard *sh, double w)
{
    struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, w * 8.0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    return memory_weights_layout(m, sh, &dt);
}

/* One layer's K/V bytes a token at kvb bytes an element. */
static double kv_layer_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh, double kvb)
{
    return arch_is_mla(m) ? arch_kv_bytes_per_token_layer(m, kvb)
                          : 2.0 * (double)sh->kv_heads_per_rank * (double)m->head_dim * kvb;
}

/* Stage s's global (*g) and local (*l) attention layers. */
static void stage_layers(const struct llmroof_model *m, const struct llmroof_shard *sh, long s, double *g, double *l)
{
    const long L = m->layers, pp = sh->pp > 0 ? sh->pp : 1, base = L / pp, extra = L % pp;
    const long start = s * base + (s < extra ? s : extra), n = base + (s < extra ? 1 : 0);
    *g = global_layers_below(m, start + n) - global_layers_below(m, start);
    *l = (double)n - *g;
    if (layers_patterned(m)) { /* recurrent and mixer-less layers hold no KV */
        const struct llmroof_layer_counts c = layers_count(m, start, n);
        *g = c.full;
        *l = c.local;
    }
}

/* KV bytes one sequence of `ctx` tokens holds on one GPU of stage s, at kvb bytes per element
 * (a DSA indexer's keys at their own fp8 bytes) */
static double one_stage_kv_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh, long s, double ctx,
                                 double kvb)
{
    const double held = m->window > 0 && ctx > (double)m->window ? (double)m->window : ctx;
    double g, l;
    stage_layers(m, sh, s, &g, &l);
    return (g * ctx + l * held) * kv_layer_bytes(m, sh, kvb);
}

/* The same on one GPU of the fullest stage. memory_held_tokens computes it from the stages'
 * counts kept once. */
static double stage_kv_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh, double ctx, double kvb)
{
    const long pp = sh->pp > 0 ? sh->pp : 1;
    double best = 0;
    for (long s = 0; s < pp; s++) {
        const double e = one_stage_kv_bytes(m, sh, s, ctx, kvb);
        if (e > best)
            best = e;
    }
    return best;
}

/* memory_held's fullest stage at ctx tokens, as stage_kv_bytes computes it */
static double held_bytes(const struct memory_held *h, double ctx)
{
    const double held = h->window > 0 && ctx > h->window ? h->window : ctx;
    double best = 0;
    for (int s = 0; s < h->n; s++) {
        const double e = (h->g[s] * ctx + h->l[s] * held) * h->per_layer;
        if (e > best)
            best = e;
    }
    return best;
}

int memory_held_prepare(const struct llmroof_model *m, const struct llmroof_shard *sh, struct memory_held *h)
{
    memset(h, 0, sizeof *h);
    h->window = m->window > 0 ? (double)m->window : 0;
    h->per_layer = kv_layer_bytes(m, sh, 2.0);
    const long pp = sh->pp > 0 ? sh->pp : 1;
    for (long s = 0; s < pp; s++) {
        double g, l;
        stage_layers(m, sh, s, &g, &l);
        int j = 0; /* alike stages count once: the fullest is the same */
        while (j < h->n && !(h->g[j] == g && h->l[j] == l))
            j++;
        if (j < h->n)
            continue;
        if (h->n == MEMORY_HELD_MAX)
            return -1;
        h->g[h->n] = g;
        h->l[h->n] = l;
        h->n++;
    }
    h->one = held_bytes(h, 1.0);
    return 0;
}

double memory_held_tokens(const struct memory_held *h, double context)
{
    return h->one > 0 ? held_bytes(h, context) / h->one : context;
}

double memory_kv_tokens_held(const struct llmroof_model *m, const struct llmroof_shard *sh, double context)
{
    /* a ratio: every attention layer holds the same bytes per token, so any element size serves */
    const double one = stage_kv_bytes(m, sh, 1.0, 2.0);
    return one > 0 ? stage_kv_bytes(m, sh, context, 2.0) / one : context;
}

/* Recurrent state elements one sequence holds on one GPU of the fullest stage (TP splits the heads). */
/* Stage s's recurrent state elements of one sequence on one of its GPUs. */
static double one_stage_state_elems(const struct llmroof_model *m, const struct llmroof_shard *sh, long s)
{
    if (!layers_patterned(m))
        return 0;
    const long L = m->layers, pp = sh->pp > 0 ? sh->pp : 1, base = L / pp, extra = L % pp;
    const long start = s * base + (s < extra ? s : extra), n = base + (s < extra ? 1 : 0);
    return layers_count(m, start, n).linear * layers_state_elems_rank(m, sh->tp);
}

/* The most state elements one sequence keeps on a GPU of any stage. */
static double stage_state_elems(const struct llmroof_model *m, const struct llmroof_shard *sh)
{
    const long pp = sh->pp > 0 ? sh->pp : 1;
    double best = 0;
    for (long s = 0; s < pp; s++)
        best = fmax(best, one_stage_state_elems(m, sh, s));
    return best;
}

/* Activation workspace of the largest forward: T tokens of residual (2h), fused QKV and
 * the MLP intermediate (3 widths for gated, 2 for plain) at the activation dtype, plus
 * fp32 logits for S sequences. A deliberate round figure: serving engines measure it by
 * a profiling run, see docs/model.md. */
static double default_workspace(const struct llmroof_model *m, const struct llmroof_shard *sh,
                                const struct llmroof_dtypes *dt, const struct llmroof_mem_opts *o)
{
    const double a = ops_stream_bytes(dt), h = (double)m->hidden, d = (double)m->head_dim;
    double inter = m->moe_experts > 0 ? (double)m->moe_top_k * sh->moe_intermediate_per_rank
                                      : sh->intermediate_per_rank;
    double nw = m->mlp == LLMROOF_MLP_GATED ? 3.0 : 2.0;
    double per_token = 2.0 * h + ((double)sh->heads_per_rank + 2.0 * (double)sh->kv_heads_per_rank) * d + nw * inter;
    /* data-parallel attention: the instance's token budget and sequences spread over attn_dp
     * replicas, each GPU forwarding its replica's share (SGLang sizes DP-attention buffers per DP
     * rank), so a GPU's workspace follows its rank's share of the budget (memory_rank_share, the
     * share the simulator schedules), not the whole instance's budget */
    const int rep = sh->attn_dp > 1 ? sh->attn_dp : 1;
    const double rank_tokens = memory_rank_share(o->max_batched_tokens, rep);
    const double rank_seqs = memory_rank_share(o->max_seqs, rep);
    /* the logits buffer (fp32): the replica's rows, or with the LM head split over the stage
     * (shard lm_ranks: SGLang) every replica's, gathered whole to each GPU */
    const double logits = (sh->lm_ranks > 0 ? rank_seqs * rep : rank_seqs) * (double)m->vocab * 4.0;
    if (sh->mlp_gather) {
        /* --moe-tp: the MLPs run on every replica's tokens, gathered (h each) with their
         * intermediate, on every GPU; attention and the logits on the replica's share */
        const double mlp = nw * inter + h;
        return rank_tokens * (per_token - nw * inter) * a + rank_tokens * rep * mlp * a + logits;
    }
    return rank_tokens * per_token * a + logits;
}

double memory_spec_states(double draft_positions, bool per_token)
{
    /* SGLang reserves speculative_num_draft_tokens states a running request: a chain's k drafts and
     * the target's own token (k + 1), a tree's tokens; vLLM one block per speculative token, k */
    if (!(draft_positions > 0))
        return 0.0;
    return draft_positions + (per_token ? 1.0 : 0.0);
}

double memory_rank_share(double limit, int ranks)
{
    if (ranks <= 1)
        return limit;
    /* whole tokens and sequences: floor, as SGLang divides them (chunked_prefill_size //= dp_size,
     * max_running_requests // dp_size); a rank holds at least one */
    const double q = floor(limit / (double)ranks);
    return q >= 1.0 ? q : 1.0;
}

int memory_eval(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                struct llmroof_memory *out, struct llmroof_err *err)
{
    const struct llmroof_layout lay = { .tp = tp, .pp = 1, .ep = 1, .ep_imbalance = 1.0 };
    return memory_eval_layout(m, g, &lay, dt, context_len, o, out, err);
}

int memory_eval_layout(const struct llmroof_model *m, const struct llmroof_gpu *g, const struct llmroof_layout *lay,
                       const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                       struct llmroof_memory *out, struct llmroof_err *err)
{
    struct llmroof_shard sh;
    int rc = ops_shard_layout(m, lay, &sh, err);
    if (rc)
        return rc;
    if (!dtype_is_storage(dt->weight) || !dtype_is_storage(dt->kv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "tf32 is a compute mode, not a storage dtype for weights or KV cache");
    if (!(o->mem_util > 0 && o->mem_util <= 1))
        return llmroof_err_set(err, LLMROOF_EINPUT, "memory utilisation %g must be in (0, 1]", o->mem_util);
    /* a DSA model's cache is 16-bit or fp8 in vLLM's fp8_ds_mla layout (layers_mla_latent_bytes):
     * a narrower dtype would be costed as fp8 while its header said otherwise */
    if (m->dsa_top_k > 0 && dtype_bytes(dt->kv) < 1.0)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--kv-dtype %s: %s's DeepSeek Sparse Attention keeps a 16-bit or fp8 KV cache "
                               "(vLLM's fp8_ds_mla layout); a narrower one is not modelled",
                               dtype_name(dt->kv), m->id);
    if (context_len < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "context length %ld must be at least 1", context_len);

    memset(out, 0, sizeof *out);
    const double kvb = dtype_bytes(dt->kv);
    out->gpus = sh.gpus;
    out->attn_dp = sh.attn_dp;
    out->gpu_memory_bytes = g->memory_bytes;
    /* engines size their share from the total the runtime reports (vLLM: mem_get_info's total x
     * gpu_memory_utilization; SGLang's mem_fraction_static and TensorRT-LLM's
     * free_gpu_memory_fraction of what is free), not the marketed capacity: ECC and the driver
     * keep about 1% of an HBM part (H100 SXM5: 79.18 of 80 GiB), more of a GDDR one with ECC on.
     * An engine whose fraction is of the free memory (util_of_free) may use all of it, the KV
     * cache that share of what the rest leaves (below) */
    out->visible_bytes = g->memory_visible_bytes > 0 ? g->memory_visible_bytes : g->memory_bytes;
    /* SGLang's default mem_fraction_static follows the GPU's memory band and the instance's
     * world size (tp x pp), which only the layout knows: catalog_engine_mem_util */
    double util = o->mem_util;
    if (o->util_engine) {
        /* (the DP-attention reserve where attention runs in replicas: one replica, -t 8 --ep 8
         * --dp-attention, is SGLang's TP attention with a DeepEP all-to-all, no --enable-dp-attention) */
        const double u = catalog_engine_mem_util(o->util_engine, g, sh.gpus, o->speculative, sh.attn_dp > 1);
        if (u > 0)
            util = u;
    }
    out->mem_util = util;
    out->usable_bytes = o->util_of_free ? out->visible_bytes : out->visible_bytes * util;
    out->util_of_free = o->util_of_free;
    out->weights_bytes_per_gpu = memory_weights_layout(m, &sh, dt);
    {
        double tot = 0;
        for (int s = 0; s < sh.pp; s++)
            tot += stage_weights(m, &sh, dt, s) * sh.gpus_per_stage;
        out->weights_bytes_total = tot;
    }
    /* SGLang's static fraction leaves activations, graphs and the runtime outside it
     * (model_runner.py profile_max_num_token: rest = available - total x (1 - fraction)) */
    out->workspace_bytes_per_gpu = o->util_static ? 0.0
                                   : o->workspace_set ? o->workspace_bytes
                                                      : default_workspace(m, &sh, dt, o);
    out->reserve_bytes_per_gpu = o->util_static ? 0.0 : o->reserve_bytes;
    out->drafter_bytes_per_gpu = o->drafter_bytes > 0 ? o->drafter_bytes : 0.0;
    out->free_bytes_per_gpu = out->usable_bytes - out->weights_bytes_per_gpu - out->workspace_bytes_per_gpu
                            - out->reserve_bytes_per_gpu - out->drafter_bytes_per_gpu;
    /* TensorRT-LLM sizes its KV pool once the engine is loaded: free_gpu_memory_fraction (0.9) of
     * the free memory (KvCacheConfig); LMDeploy's cache_max_entry_count (0.8 since v0.2.1) likewise.
     * Llama-3.1-70B fp8 on one H100: 0.9 x (79.18 - 65.71 - 0.55 - 1) = 10.7 GiB, where vLLM's
     * 0.9 x 79.18 - 67.26 = 4.0 GiB */
    if (o->util_of_free && out->free_bytes_per_gpu > 0)
        out->free_bytes_per_gpu *= o->mem_util;
    out->kv_copy = o->kv_copy;
    out->kv_bytes_per_token = arch_kv_bytes_per_token(m, kvb);
    /* a drafter's cache beside the target's: every token the target holds (serve/sim.c holds it so) */
    const double dkv = o->drafter_kv_bytes > 0 ? o->drafter_kv_bytes : 0.0;
    out->kv_bytes_per_seq_per_gpu = stage_kv_bytes(m, &sh, (double)context_len, kvb) + dkv * (double)context_len;
    out->kv_bytes_per_token_per_gpu = out->kv_bytes_per_seq_per_gpu / (double)context_len;
    out->context_len = context_len;
    /* Each pipeline stage's GPUs hold its own weights and its own layers' K/V of every sequence in
     * flight, so each stage's pool holds pool_s / block_s blocks, and the engine gives every stage
     * the fewest of them (vLLM: each worker profiles its own memory and layers, then every rank takes
     * the minimum, v1/core/kv_cache_utils.py get_kv_cache_configs; TensorRT-LLM and SGLang likewise
     * size one pool of token slots for all ranks). The stage that sets the count, kv_stage, need be
     * neither the one of the most weights nor of the most K/V: DeepSeek-V3 at PP 2 has 31 layers
     * (3 dense) on the first stage, 30 MoE layers and the LM head on the second, and the figure of
     * the one's weights over the other's K/V had counted 3.3% fewer blocks than either holds. The
     * stages are compared by whole tokens of every layer (a block's worth, whatever the context) */
    const long npp = sh.pp > 0 ? sh.pp : 1;
    double best = 0, stage_w = out->weights_bytes_per_gpu, stage_pool = -1, stage_full = 0;
    int bind = -1;
    /* A hybrid model's stages hold different mixes of attention and recurrent layers, so the one
     * that binds holds the fewest sequences at the context, each its own layers' K/V and states
     * (and speculation's copies), not the fewest tokens: Nemotron-Nano-9B-v2 at PP 4 had taken the
     * first stage's 8 Mamba layers' states beside the second's K/V, 2,400 sequences where the
     * second stage's own 2 attention and 6 Mamba layers hold 2,932 (a review of session 64).
     * A stage of recurrent layers alone holds states only: its sequences cap the batch too. */
    const double sb = ops_state_elem_bytes(m, dt);
    const double copies = memory_spec_states(o->spec_states, o->spec_state_per_token);
    const bool states = sb > 0 && stage_state_elems(m, &sh) > 0;
    double state_only_seqs = -1; /* the fewest sequences of a stage without K/V (-1: none) */
    for (long s = 0; s < npp; s++) {
        const double ws_s = stage_weights(m, &sh, dt, (int)s);
        double fr = out->usable_bytes - ws_s - out->workspace_bytes_per_gpu - out->reserve_bytes_per_gpu -
                    out->drafter_bytes_per_gpu;
        /* TensorRT-LLM sizes its KV pool once the engine is loaded (util_of_free, as above) */
        if (o->util_of_free && fr > 0)
            fr *= o->mem_util;
        double pool = fr > 0 ? fr : 0;
        /* TGI 0.8 (kv_copy) reallocates the batch's contiguous K/V every decode step and copies the
         * old tensor into the new one, both alive until the copy ends (flash_causal_lm.py
         * generate_token): the batch's K/V may fill at most half of what is free */
        if (o->kv_copy)
            pool *= 0.5;
        const double full = one_stage_kv_bytes(m, &sh, s, 1.0, kvb) + dkv;
        if (stage_pool < 0 && ws_s == out->weights_bytes_per_gpu)
            stage_pool = pool; /* the fullest stage's: the figure where no stage holds K/V */
        const double st = states ? one_stage_state_elems(m, &sh, s) * sb * (1.0 + copies) : 0.0;
        if (!(full > 0)) { /* recurrent layers only: no K/V blocks here, its states alone */
            if (st > 0 && (state_only_seqs < 0 || pool / st < state_only_seqs))
                state_only_seqs = pool / st;
            continue;
        }
        const double fit = states ? pool / (one_stage_kv_bytes(m, &sh, s, (double)context_len, kvb) +
                                            dkv * (double)context_len + st)
                                  : pool / full;
        if (bind < 0 || fit < best) {
            bind = (int)s;
            best = fit;
            stage_w = ws_s;
            stage_pool = pool;
            stage_full = full;
        }
    }
    out->kv_stage = bind > 0 ? bind : 0;
    out->kv_stage_weights_bytes_per_gpu = stage_w;
    out->kv_capacity_bytes_per_gpu = stage_pool > 0 ? stage_pool : 0;
    out->kv_stage_bytes_per_token_per_gpu =
        bind >= 0 ? (one_stage_kv_bytes(m, &sh, bind, (double)context_len, kvb) + dkv * (double)context_len) /
                        (double)context_len
                  : out->kv_bytes_per_token_per_gpu;
    /* recurrent layers: one state per sequence, whatever its length (layers.h) */
    /* at the state dtype (--state-dtype, default the model's: ops_state_bytes), the convolution
     * window at its own where the engine holds it apart (ops_state_elem_bytes) */
    out->state_bytes_per_seq = arch_state_elems_per_seq(m) * sb;
    /* the binding stage's states, as its pool holds them beside its K/V (without K/V anywhere, the
     * fullest stage's) */
    out->state_bytes_per_seq_per_gpu = (bind >= 0 ? one_stage_state_elems(m, &sh, bind) : stage_state_elems(m, &sh)) * sb;

    double cap = floor(out->kv_capacity_bytes_per_gpu / out->kv_stage_bytes_per_token_per_gpu);
    double per_seq = (double)context_len;
    if (o->block_size > 1) {
        double bs = (double)o->block_size;
        cap = floor(cap / bs) * bs;             /* whole blocks only */
        per_seq = ceil(per_seq / bs) * bs;      /* each sequence rounds up to a block */
    }
    /* data-parallel attention: each replica holds its own sequences in its own GPUs' KV; the
     * instance's capacity is the replicas' together, a sequence must fit within one */
    out->kv_capacity_tokens_replica = cap;
    out->kv_capacity_tokens = cap * (double)sh.attn_dp;
    out->tokens_per_seq = per_seq;
    out->max_batch = floor(cap / per_seq) * (double)sh.attn_dp;
    if (o->block_size > 1 && arch_local_layers(m) > 0 && !(out->state_bytes_per_seq_per_gpu > 0)) {
        /* windowed layers: a block is block_size tokens of every layer's K/V (and a drafter's),
         * and a sequence holds the whole blocks of its held tokens' worth, as the simulator
         * allocates them (serve/sim_internal.h seq_blocks): gpt-oss-120b on an H100 at 2,000
         * tokens holds (2,000 + 128) / 2 = 1,064 tokens' worth, 67 blocks of 8,358: 124
         * sequences, where rounding the context (125 blocks) before the layers' mean gave 125
         * beside simulate's 124 */
        const double bs = (double)o->block_size;
        const double full = stage_full; /* the stage that sets the blocks (kv_stage) */
        if (full > 0) {
            const double blocks = floor(out->kv_capacity_bytes_per_gpu / (full * bs) + 1e-9);
            /* the tokens' worth a sequence holds, as the simulator counts them: the fullest stage's
             * share held of the target's layers (memory_kv_tokens_held), every token of a drafter's */
            const double held = ((full - dkv) * memory_kv_tokens_held(m, &sh, (double)context_len) +
                                 dkv * (double)context_len) / full;
            const double per_blocks = ceil(held / bs - 1e-9);
            out->max_batch = per_blocks > 0 ? floor(blocks / per_blocks) * (double)sh.attn_dp : 0.0;
        }
    }
    /* a sequence's states: its own, and under speculative decoding one per draft position, or one per
     * verified token (memory_spec_states), each with its convolution window (layers_state_elems) */
    out->state_copies = out->state_bytes_per_seq_per_gpu > 0 ? copies : 0.0;
    const double seq_state = out->state_bytes_per_seq_per_gpu * (1.0 + out->state_copies);
    if (out->state_bytes_per_seq_per_gpu > 0 && o->block_size > 1 && out->kv_stage_bytes_per_token_per_gpu > 0) {
        /* each sequence holds its state beside its KV, in whole blocks of the pool as the simulator
         * gives them (serve/sim.c state_blocks; vLLM's hybrid allocator pages the state too):
         * Jamba at TP 2 on H100s, 1,000 tokens: 63 + 33 blocks a sequence, 1,854, where the state's
         * bytes unrounded gave 1,869 beside simulate's 1,854 */
        const double bs = (double)o->block_size;
        const double state_blocks = ceil(seq_state / (out->kv_stage_bytes_per_token_per_gpu * bs));
        out->max_batch = floor((cap / bs) / (per_seq / bs + state_blocks) + 1e-9) * (double)sh.attn_dp;
    } else if (out->state_bytes_per_seq_per_gpu > 0) { /* each sequence holds its state beside its KV */
        out->max_batch = floor(out->kv_capacity_bytes_per_gpu /
                               (per_seq * out->kv_stage_bytes_per_token_per_gpu + seq_state)) *
                         (double)sh.attn_dp;
    }
    /* a stage of recurrent layers alone caps the sequences by its states */
    if (state_only_seqs >= 0 && out->max_batch > floor(state_only_seqs + 1e-9) * (double)sh.attn_dp)
        out->max_batch = floor(state_only_seqs + 1e-9) * (double)sh.attn_dp;
    /* the pool's K/V tokens count no state: the simulator takes a sequence's states (its own and
     * speculation's copies) from the same blocks, in whole blocks where the pool is paged (sim.c
     * state_blocks), as vLLM's hybrid allocator does, so a reader needs them in tokens to see how
     * many sequences the tokens hold (a review: Qwen3-Next's 4.4 M tokens at TP 2 read as 1,074
     * sequences of 4,096 where 771 fit; the diff's review: copies and blocks left out, 1,114
     * against 493 with MTP) */
    out->state_tokens_per_seq = 0;
    if (seq_state > 0 && out->kv_stage_bytes_per_token_per_gpu > 0) {
        const double t = seq_state / out->kv_stage_bytes_per_token_per_gpu;
        const double bs = o->block_size > 1 ? (double)o->block_size : 1.0;
        out->state_tokens_per_seq = ceil(t / bs - 1e-9) * bs;
    }
    if (out->free_bytes_per_gpu <= 0)
        out->fit = LLMROOF_FIT_WEIGHTS;
    else if (out->max_batch < 1)
        out->fit = LLMROOF_FIT_CONTEXT;
    else
        out->fit = LLMROOF_FITS;
    out->fits = out->fit == LLMROOF_FITS;

    /* smallest TP whose weights, workspace and reserve fit (same options, no PP/EP); an engine
     * whose default fraction follows the instance's GPUs (SGLang) takes it at each TP, and a
     * static fraction (weights and KV only) leaves the workspace and reserve outside. A drafter
     * (--spec) splits over the TP ranks as its target does: its bytes at the layout's TP, scaled
     * (memory --spec had said "smallest TP that fits: 2" where TP 2 left a draft model no room) */
    /* a plain-TP layout's drafter scales with TP; under EP, PP or data-parallel attention the head's
     * attention sits whole on each replica, so its bytes are taken as they are at the layout (a
     * bound, not a scaling: DeepSeek-V3's MTP head is 1.54 GiB a GPU at -t 1 --ep 8 DPA, 1.30 at
     * TP 8) */
    const bool plain = (lay->pp <= 1) && (lay->ep <= 1) && !lay->dp_attn;
    const double dtp = lay->tp > 0 ? (double)lay->tp : 1.0;
    out->min_tp_fit = 0;
    for (int t = 1; t <= 64; t *= 2) {
        struct llmroof_shard s2;
        if (ops_shard(m, t, &s2, NULL) != LLMROOF_OK)
            continue;
        double usable = out->usable_bytes;
        if (o->util_engine && !o->util_of_free) {
            const double u = catalog_engine_mem_util(o->util_engine, g, t, o->speculative, false);
            if (u > 0)
                usable = out->visible_bytes * u;
        }
        const double ws = o->util_static ? 0.0 : o->workspace_set ? o->workspace_bytes : default_workspace(m, &s2, dt, o);
        const double rs = o->util_static ? 0.0 : o->reserve_bytes;
        const double dr = o->drafter_bytes > 0 ? (plain ? o->drafter_bytes * dtp / (double)t : o->drafter_bytes) : 0.0;
        if (memory_weights_layout(m, &s2, dt) + ws + rs + dr < usable) {
            out->min_tp_fit = t;
            break;
        }
    }
    return LLMROOF_OK;
}

/* The MLP weights of the mean layer on one rank of `sh` (stage_weights' MLP terms over every
 * layer: the dense layers' MLPs, the MoE layers' shared part, experts and router), the part of
 * target weights / layers an EAGLE head of a MoE target does not hold. */
static double mean_mlp_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh,
                             const struct llmroof_dtypes *dt)
{
    const double w = ops_weight_bytes(dt), we = ops_expert_bytes(m, dt), wu = ops_unquantized_bytes(m, dt, false);
    double attn, dense, moe_w, moe_e;
    layer_weights(m, sh, dt, &attn, &dense, &moe_w, &moe_e);
    const double L = (double)m->layers, router = m->moe_experts > 0 ? (double)m->hidden * (double)m->moe_experts * (wu - w) : 0.0;
    double nm = moe_layers_below(m, m->layers), nd = L - nm;
    if (layers_patterned(m)) { /* per layer kind, as stage_weights counts them (NAS widths included) */
        const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
        nm = c.moe;
        nd = c.dense * layers_dense_width(m, 0, m->layers) / (double)m->intermediate;
    }
    return (nd * dense * w + nm * (moe_w * w + moe_e * we + router)) / L;
}

/* The attention weights of the mean layer on one rank of `sh` (stage_weights' attention terms over
 * every layer: the attention layers' projections and norms, a DSA indexer, the recurrent layers'
 * mixers and the other layers' norms), the part of target weights / layers that a head with its
 * own layer shape (--spec-draft-config) holds in its own shape instead. */
static double mean_attn_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh,
                              const struct llmroof_dtypes *dt)
{
    const double w = ops_weight_bytes(dt), L = (double)m->layers, h = (double)m->hidden;
    double attn, dense, moe_w, moe_e;
    layer_weights(m, sh, dt, &attn, &dense, &moe_w, &moe_e);
    if (layers_patterned(m)) {
        const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
        const double norms = arch_norms_per_layer(m) * (m->norm == LLMROOF_NORM_LAYER ? 2.0 * h : h);
        const double tp = sh->tp > 0 ? (double)sh->tp : 1.0;
        return ((c.full + c.local) * (attn + layers_dsa_params(m)) + (L - c.full - c.local) * norms +
                c.linear * layers_linear_params_rank(m, (int)tp)) * w / L;
    }
    return (attn + (m->dsa_top_k > 0 ? layers_dsa_params(m) : 0.0)) * w;
}

void memory_head_drafter(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                         const struct llmroof_memory *target, int medusa_heads, long eagle3_vocab, bool eagle,
                         double *bytes_per_gpu, double *kv_bytes_per_token_per_gpu)
{
    memory_head_drafter_own(m, sh, dt, target, medusa_heads, eagle3_vocab, eagle, NULL, bytes_per_gpu,
                            kv_bytes_per_token_per_gpu);
}

void memory_head_drafter_own(const struct llmroof_model *m, const struct llmroof_shard *sh,
                             const struct llmroof_dtypes *dt, const struct llmroof_memory *target, int medusa_heads,
                             long eagle3_vocab, bool eagle, const struct llmroof_draft_head *own,
                             double *bytes_per_gpu, double *kv_bytes_per_token_per_gpu)
{
    if (medusa_heads > 0 || !eagle || (own && own->heads <= 0))
        own = NULL; /* only an EAGLE-family head has a config of its own */
    /* a head whose weights ship apart from the target (Medusa's, EAGLE's) holds them at its own 16
     * bits on the target without its checkpoint's formats (ops_head_dtypes, ops_head_model), as
     * ops_build_draft reads them. An MTP module is a layer of the target's checkpoint, the target's
     * figure over its layers */
    const bool apart = medusa_heads > 0 || eagle;
    struct llmroof_model hm;
    struct llmroof_dtypes hdt;
    if (apart) {
        ops_head_model(m, &hm);
        hdt = ops_head_dtypes(dt, own);
        m = &hm;
        dt = &hdt;
    }
    /* the attention layers of the stage whose K/V per token the target's figure is (the fullest:
     * all of them without PP; under PP the last stage, which holds the head, may hold fewer, and
     * dividing its K/V by every layer had charged the head's layer 273 B a token where it holds
     * 512: Qwen3-Next-style MTP at TP 4 x PP 2, a reviewer's finding) */
    const double per_layer = kv_layer_bytes(m, sh, 2.0);
    const double layers = per_layer > 0 ? stage_kv_bytes(m, sh, 1.0, 2.0) / per_layer : (double)arch_attn_layers(m);
    if (medusa_heads > 0) {
        /* Medusa's heads: what their draft step reads (each its own vocabulary projection) */
        *bytes_per_gpu = ops_medusa_bytes(m, sh, dt, medusa_heads);
    } else if (eagle) {
        /* an EAGLE head's weights as ops_build_draft reads them: one decoder layer, the target's
         * mean layer's attention and MLP split by TP (not its embedding's and LM head's share of
         * every layer: the head looks up the target's embedding, and EAGLE-1/2 draft over its LM
         * head), its fusing projection whole on every rank (ops_eagle_fc_bytes) and EAGLE-3's
         * further q/k/v inputs and own LM head (ops_eagle3_extra_bytes_own). Its layer's shares
         * are replaced below where the head's layer is not the target's */
        *bytes_per_gpu = mean_attn_bytes(m, sh, dt) + mean_mlp_bytes(m, sh, dt) +
                         ops_eagle_fc_bytes(m, dt, eagle3_vocab) + ops_eagle3_extra_bytes_own(m, own, sh, dt, eagle3_vocab);
    } else {
        /* an MTP module: the target's weights over the layers of the stage that holds it */
        *bytes_per_gpu = target->weights_bytes_per_gpu / (double)(sh->pp > 1 ? sh->stage_layers_max : m->layers) +
                         ops_eagle3_extra_bytes_own(m, own, sh, dt, eagle3_vocab);
    }
    if (own) {
        /* its own layer (ops_head_attn): the mean layer's attention share out, the head's q/k/v/o
         * and norms in; its own MLP width where ops_head_shape_own gives it one (a dense target's
         * MLP of that width stays the mean layer's) */
        struct llmroof_model am;
        struct llmroof_shard ash;
        (void)ops_head_attn(m, own, sh, &am, &ash, NULL); /* the caller has checked its TP */
        double attn, dense, moe_w, moe_e;
        layer_weights(&am, &ash, dt, &attn, &dense, &moe_w, &moe_e);
        *bytes_per_gpu += attn * ops_weight_bytes(dt) - mean_attn_bytes(m, sh, dt);
        const struct ops_head hd = ops_head_shape_own(m, own, eagle3_vocab, true, true);
        if (hd.mlp_width > 0) {
            const double tp = sh->tp > 0 ? (double)sh->tp : 1.0;
            *bytes_per_gpu += 3.0 * (double)m->hidden * (hd.mlp_width / tp) * ops_weight_bytes(dt) -
                              mean_mlp_bytes(m, sh, dt);
        }
        /* one Llama layer's K/V a token at the cache's dtype: its KV heads on this rank (one
         * where TP copies them), each a key and a value of head_dim */
        *kv_bytes_per_token_per_gpu = kv_layer_bytes(&am, &ash, dtype_bytes(dt->kv));
        return;
    }
    if (medusa_heads == 0 && eagle && m->moe_experts > 0) {
        /* the mean layer's MLP share (its experts, router, shared experts and the dense layers'
         * MLPs over every layer) out, the head's own dense MLP in */
        *bytes_per_gpu += ops_eagle_mlp_bytes(m, sh, dt) - mean_mlp_bytes(m, sh, dt);
    }
    /* one full-attention layer's K/V per token: for a windowed model the target's per-token
     * figure at its context is the layers' held mean (memory_kv_tokens_held), which would give
     * the head a window's share (gpt-oss-120b at 2,048 tokens: 1,088 B where its layer holds
     * 2,048 B a token, so estimate's max batch said 97 beside simulate's 94) */
    const double ctx = (double)target->context_len;
    const double held = ctx > 0 ? memory_kv_tokens_held(m, sh, ctx) : 0.0;
    const double full = held > 0 ? target->kv_bytes_per_token_per_gpu * ctx / held : target->kv_bytes_per_token_per_gpu;
    *kv_bytes_per_token_per_gpu = medusa_heads == 0 && layers > 0 ? full / layers : 0.0;
}

int memory_drafter(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct llmroof_memory *target,
                   const struct llmroof_mem_opts *o, const struct llmroof_spec_decode *spec, bool prefill_only,
                   double *bytes_per_gpu, double *kv_bytes_per_token_per_gpu, struct llmroof_err *err)
{
    *bytes_per_gpu = 0.0;
    *kv_bytes_per_token_per_gpu = 0.0;
    if (spec->drafter == LLMROOF_DRAFTER_MODEL) {
        struct llmroof_memory dm;
        const long ctx = target->context_len > 0 ? target->context_len : 1;
        const struct llmroof_dtypes ddt = ckpt_draft_dtypes(spec->draft, &s->dt); /* its own checkpoint's */
        const int rc = memory_eval(spec->draft, s->gpu, s->tp, &ddt, ctx, o, &dm, err);
        if (rc)
            return rc;
        *bytes_per_gpu = dm.weights_bytes_per_gpu;
        *kv_bytes_per_token_per_gpu = dm.kv_bytes_per_token_per_gpu;
        return LLMROOF_OK;
    }
    const bool medusa = spec->drafter == LLMROOF_DRAFTER_MEDUSA;
    if (medusa && prefill_only)
        return LLMROOF_OK;
    const struct llmroof_draft_head *own = spec->eagle && !medusa && spec->head.heads > 0 ? &spec->head : NULL;
    if (own) {
        /* a head of its own shape splits over this instance's attention TP (ops_head_attn) */
        struct llmroof_model am;
        struct llmroof_shard ash;
        const int rc = ops_head_attn(s->model, own, sh, &am, &ash, err);
        if (rc)
            return rc;
    }
    memory_head_drafter_own(s->model, sh, &s->dt, target, medusa ? spec->steps : 0, spec->eagle3_vocab, spec->eagle,
                            own, bytes_per_gpu, kv_bytes_per_token_per_gpu);
    return LLMROOF_OK;
}
