/* arch.c - parameter and KV-cache counts from a model's shapes.
 *
 * Per layer (H heads, K KV heads, d head_dim, h hidden, I intermediate):
 *   attention  h*H*d (q) + 2*h*K*d (k, v) + H*d*h (o), plus H*d + 2*K*d for q/k/v
 *              biases and h for an o bias; 2*d for per-head q/k norms (Qwen3, Gemma-3);
 *   MLA        (DeepSeek-V2 paper, section 2.1; HF modeling_deepseek.py shapes), with
 *              r_q, r_kv the q and kv LoRA ranks, n, p, v the nope, rope and value head widths:
 *              q: h*r_q + r_q + r_q*H*(n+p)   (or h*H*(n+p) without a q rank)
 *              kv: h*(r_kv+p) + r_kv + r_kv*H*(n+v);  o: H*v*h
 *   MLP        gated 3*h*I, plain 2*h*I, plus biases (gated 2*I + h, plain I + h);
 *   MoE        on arch_moe_layers() layers: experts * (MLP of width I_e) + a router of
 *              h*experts (+ experts with a bias) + shared experts of width I_e; the other
 *              layers are dense (I);
 *   norms      h per RMSNorm, 2h per LayerNorm; arch_norms_per_layer() per layer.
 * Model: layers * layer + embedding V*h (+ learned positions) + LM head V*h unless tied
 * + final norm; gpt-oss adds a sink logit per head and a bias of E to each router. These match
 * the shapes of each model's HuggingFace modeling code (docs/sources.md, "Models"). */
#include "model/arch.h"

#include "model/layers.h"

#include <math.h>

static double mlp_params(const struct llmroof_model *m, double width)
{
    double h = (double)m->hidden;
    if (m->mlp == LLMROOF_MLP_GATED)
        return 3.0 * h * width + (m->mlp_bias ? 2.0 * width + h : 0.0);
    return 2.0 * h * width + (m->mlp_bias ? width + h : 0.0);
}

static double norm_params(const struct llmroof_model *m)
{
    return m->norm == LLMROOF_NORM_LAYER ? 2.0 * (double)m->hidden : (double)m->hidden;
}

long arch_moe_layers(const struct llmroof_model *m)
{
    if (m->moe_experts <= 0)
        return 0;
    if (layers_patterned(m))
        return (long)layers_count(m, 0, m->layers).moe;
    long step = m->moe_layer_step > 0 ? m->moe_layer_step : 1;
    long first = m->moe_first_dense < m->layers ? m->moe_first_dense : m->layers;
    /* i in [first, L) with (i+1) % step == 0: multiples of step in [first+1, L] */
    return m->layers / step - first / step;
}

long arch_local_layers(const struct llmroof_model *m)
{
    if (layers_patterned(m))
        return (long)layers_count(m, 0, m->layers).local;
    if (m->window <= 0)
        return 0;
    if (m->window_global_every <= 0)
        return m->layers;
    return m->layers - m->layers / m->window_global_every; /* global iff (i+1) % n == 0 */
}

double arch_norms_per_layer(const struct llmroof_model *m)
{
    if (m->norms_per_layer > 0)
        return (double)m->norms_per_layer;
    return m->parallel_attn ? 1.0 : 2.0;
}

/* Attention weights of one layer (see the header comment). */
static double attn_layer_params(const struct llmroof_model *m)
{
    const double h = (double)m->hidden, H = (double)m->heads;
    double attn;
    if (arch_is_mla(m)) {
        const double rq = (double)m->q_lora_rank, rkv = (double)m->kv_lora_rank;
        const double n = (double)m->qk_nope_dim, p = (double)m->qk_rope_dim, v = (double)m->v_head_dim;
        attn = rq > 0 ? h * rq + rq + rq * H * (n + p) : h * H * (n + p);
        attn += h * (rkv + p) + rkv + rkv * H * (n + v) + H * v * h;
        if (m->o_bias)
            attn += h;
        return attn;
    }
    const double qw = H * (double)m->head_dim;
    const double kvw = (double)m->kv_heads * (double)m->head_dim;
    attn = h * qw + 2.0 * h * kvw + qw * h;
    if (m->attn_gate)
        attn += h * qw; /* Qwen3-Next: q_proj also yields the sigmoid output gate */
    if (m->qkv_bias)
        attn += qw + 2.0 * kvw;
    if (m->o_bias)
        attn += h;
    if (m->qk_norm)
        attn += 2.0 * (double)m->head_dim;
    if (m->attention_sinks)
        attn += H; /* gpt-oss: one learned sink logit per head */
    return attn;
}

struct llmroof_params arch_params(const struct llmroof_model *m)
{
    struct llmroof_params p = { 0 };
    const double h = (double)m->hidden, L = (double)m->layers;
    const double Lm = (double)arch_moe_layers(m), Ld = L - Lm;

    if (layers_patterned(m)) {
        /* one term per layer kind (docs/model.md "Layer kinds") */
        const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
        p.attention = (c.full + c.local) * (attn_layer_params(m) + layers_dsa_params(m)) +
                      c.linear * layers_linear_params(m);
        double expert = 0, moe_total = 0, moe_active = 0;
        if (c.moe > 0) {
            expert = mlp_params(m, (double)m->moe_intermediate);
            const double shared = (double)m->moe_shared * expert,
                         router = (h + (m->mlp_bias ? 1.0 : 0.0)) * (double)m->moe_experts;
            moe_total = (double)m->moe_experts * expert + shared + router;
            moe_active = (double)m->moe_top_k * expert + shared + router;
            p.experts = c.moe * (double)m->moe_experts * expert;
        }
        p.mlp = c.dense * mlp_params(m, layers_dense_width(m, 0, m->layers)) + c.moe * moe_total;
        p.norms = (L * arch_norms_per_layer(m) + 1.0) * norm_params(m);
        p.embedding = (double)m->vocab * h + (double)m->learned_pos * h;
        p.lm_head = m->tied_embeddings ? 0.0 : (double)m->vocab * h;
        p.total = p.attention + p.mlp + p.norms + p.embedding + p.lm_head;
        p.active = p.total - c.moe * (moe_total - moe_active);
        return p;
    }
    p.attention = L * (attn_layer_params(m) + layers_dsa_params(m));

    double dense = mlp_params(m, (double)m->intermediate);
    double moe_total = 0, moe_active = 0;
    if (Lm > 0) {
        double expert = mlp_params(m, (double)m->moe_intermediate);
        double shared = (double)m->moe_shared * expert;
        double router = (h + (m->mlp_bias ? 1.0 : 0.0)) * (double)m->moe_experts; /* gpt-oss's router has a bias */
        moe_total = (double)m->moe_experts * expert + shared + router;
        moe_active = (double)m->moe_top_k * expert + shared + router;
        p.experts = Lm * (double)m->moe_experts * expert;
    }
    p.mlp = Ld * dense + Lm * moe_total;

    p.norms = (L * arch_norms_per_layer(m) + 1.0) * norm_params(m);
    p.embedding = (double)m->vocab * h + (double)m->learned_pos * h;
    p.lm_head = m->tied_embeddings ? 0.0 : (double)m->vocab * h;
    p.total = p.attention + p.mlp + p.norms + p.embedding + p.lm_head;
    p.active = p.total - Lm * (moe_total - moe_active);
    return p;
}

double arch_kv_elems_per_token_layer(const struct llmroof_model *m)
{
    if (arch_is_mla(m))
        return (double)m->kv_lora_rank + (double)m->qk_rope_dim;
    return 2.0 * (double)m->kv_heads * (double)m->head_dim;
}

double arch_kv_bytes_per_token_layer(const struct llmroof_model *m, double kv_bytes)
{
    if (arch_is_mla(m))
        return layers_mla_latent_bytes(m, kv_bytes) + layers_dsa_key_bytes(m);
    return arch_kv_elems_per_token_layer(m) * kv_bytes;
}

double arch_kv_bytes_per_token(const struct llmroof_model *m, double kv_bytes)
{
    return (double)arch_attn_layers(m) * arch_kv_bytes_per_token_layer(m, kv_bytes);
}

double arch_kv_elems_per_token(const struct llmroof_model *m)
{
    if (layers_patterned(m)) {
        const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
        return (c.full + c.local) * arch_kv_elems_per_token_layer(m);
    }
    return (double)m->layers * arch_kv_elems_per_token_layer(m);
}

long arch_attn_layers(const struct llmroof_model *m)
{
    if (!layers_patterned(m))
        return m->layers;
    const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
    return (long)(c.full + c.local);
}

long arch_linear_layers(const struct llmroof_model *m)
{
    return layers_patterned(m) ? (long)layers_count(m, 0, m->layers).linear : 0;
}

long arch_dense_layers(const struct llmroof_model *m)
{
    if (!layers_patterned(m))
        return m->layers - arch_moe_layers(m);
    return (long)layers_count(m, 0, m->layers).dense;
}

struct arch_layer_kinds arch_layer_kinds(const struct llmroof_model *m)
{
    struct arch_layer_kinds k;
    if (layers_patterned(m)) {
        /* the casts and sums of the single-count functions above, from one count */
        const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
        k.attn = (long)(c.full + c.local);
        k.local = (long)c.local;
        k.linear = (long)c.linear;
        k.moe = m->moe_experts <= 0 ? 0 : (long)c.moe;
        k.dense = (long)c.dense;
        return k;
    }
    k.attn = m->layers;
    k.local = arch_local_layers(m);
    k.linear = 0;
    k.moe = arch_moe_layers(m);
    k.dense = m->layers - k.moe;
    return k;
}

double arch_state_elems_per_seq(const struct llmroof_model *m)
{
    return layers_state_elems_per_seq(m);
}

double arch_kv_elems_per_seq(const struct llmroof_model *m, double context)
{
    const double local = (double)arch_local_layers(m), global = (double)arch_attn_layers(m) - local;
    const double w = (double)m->window;
    const double held = local > 0 && context > w ? w : context;
    return (global * context + local * held) * arch_kv_elems_per_token_layer(m);
}

double arch_kv_tokens_held(const struct llmroof_model *m, double context)
{
    const double per_token = arch_kv_elems_per_token(m);
    return per_token > 0 ? arch_kv_elems_per_seq(m, context) / per_token : context;
}

/* G(n) = sum over positions j = 1..n of the keys the query at j attends to. */
static double pairs_upto(double n, double w, bool chunked)
{
    if (n <= 0)
        return 0;
    if (w <= 0)
        return n * (n + 1.0) / 2.0;
    if (chunked) {
        double q = floor(n / w), r = n - q * w;
        return q * w * (w + 1.0) / 2.0 + r * (r + 1.0) / 2.0;
    }
    if (n <= w)
        return n * (n + 1.0) / 2.0;
    return w * (w + 1.0) / 2.0 + (n - w) * w;
}

double arch_attn_pairs(double new_tokens, double past_tokens, double window, bool chunked)
{
    return pairs_upto(past_tokens + new_tokens, window, chunked) - pairs_upto(past_tokens, window, chunked);
}

double arch_attn_keys(double new_tokens, double past_tokens, double window, bool chunked)
{
    const double end = past_tokens + new_tokens;
    if (window <= 0)
        return end;
    if (chunked)
        return end - floor(past_tokens / window) * window;  /* from the first query's chunk start */
    return end < new_tokens + window - 1.0 ? end : new_tokens + window - 1.0;
}

double arch_q_width(const struct llmroof_model *m)
{
    return (double)m->heads * (double)m->head_dim;
}
