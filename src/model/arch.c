/* arch.c - parameter and KV-cache counts from a model's shapes.
 *
 * Per layer (H heads, K KV heads, d head_dim, h hidden, I intermediate):
 *   attention  h*H*d (q) + 2*h*K*d (k, v) + H*d*h (o), plus H*d + 2*K*d for q/k/v
 *              biases and h for an o bias;
 *   MLP        gated 3*h*I, plain 2*h*I, plus biases (gated 2*I + h, plain I + h);
 *   MoE        experts * (MLP of width I_e) + a router of h*experts + shared experts;
 *   norms      h per RMSNorm, 2h per LayerNorm; 2 per layer, 1 with parallel attention.
 * Model: layers * layer + embedding V*h (+ learned positions) + LM head V*h unless tied
 * + final norm. This matches ../shared/reference/models.md section 6. */
#include "llmroof/arch.h"

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

struct llmroof_params arch_params(const struct llmroof_model *m)
{
    struct llmroof_params p = { 0 };
    double h = (double)m->hidden, L = (double)m->layers;
    double qw = (double)m->heads * (double)m->head_dim;
    double kvw = (double)m->kv_heads * (double)m->head_dim;

    double attn = h * qw + 2.0 * h * kvw + qw * h;
    if (m->qkv_bias)
        attn += qw + 2.0 * kvw;
    if (m->o_bias)
        attn += h;
    p.attention = L * attn;

    double mlp_total, mlp_active;
    if (m->moe_experts > 0) {
        double expert = mlp_params(m, (double)m->moe_intermediate);
        double shared = (double)m->moe_shared * expert;
        double router = h * (double)m->moe_experts;
        mlp_total = (double)m->moe_experts * expert + shared + router;
        mlp_active = (double)m->moe_top_k * expert + shared + router;
    } else {
        mlp_total = mlp_active = mlp_params(m, (double)m->intermediate);
    }
    p.mlp = L * mlp_total;

    double norms_per_layer = m->parallel_attn ? 1.0 : 2.0;
    p.norms = (L * norms_per_layer + 1.0) * norm_params(m);
    p.embedding = (double)m->vocab * h + (double)m->learned_pos * h;
    p.lm_head = m->tied_embeddings ? 0.0 : (double)m->vocab * h;
    p.total = p.attention + p.mlp + p.norms + p.embedding + p.lm_head;
    p.active = p.total - p.mlp + L * mlp_active;
    return p;
}

double arch_kv_elems_per_token(const struct llmroof_model *m)
{
    return 2.0 * (double)m->layers * (double)m->kv_heads * (double)m->head_dim;
}

double arch_q_width(const struct llmroof_model *m)
{
    return (double)m->heads * (double)m->head_dim;
}
