/* layers.c - layer kinds: counts per kind, recurrent mixers and the sparse-attention indexer.
 *
 * Recurrent mixers keep, per sequence and layer, a state of heads x k x v elements (the
 * "matrix-valued hidden state" of linear attention) plus the short convolution's last
 * (kernel - 1) inputs, whatever the context length:
 *   gated DeltaNet (Yang, Kautz, Hatamizadeh, "Gated Delta Networks: Improving Mamba2 with
 *     Delta Rule", ICLR 2025, eq. 10; shapes of HF modeling_qwen3_next.py): Hv heads of a
 *     dk x dv state; in_proj_qkvz h x (2*Hk*dk + 2*Hv*dv), in_proj_ba h x 2*Hv, conv1d over
 *     2*Hk*dk + Hv*dv channels, A_log and dt_bias (Hv each), gated RMSNorm dv, out_proj Hv*dv x h.
 *   Mamba-2 (Dao and Gu, "Transformers are SSMs", ICML 2024, sections 6-7; HF
 *     modeling_nemotron_h.py / modeling_mamba2.py): H heads of head_dim P, d_state N, G groups;
 *     d_inner = H*P, conv over d_inner + 2*G*N channels (with bias); in_proj h x (2*d_inner +
 *     2*G*N + H), A_log, D, dt_bias (H each), gated RMSNorm d_inner, out_proj d_inner x h.
 *     State H x P x N.
 *   Mamba-1 (Jamba): d_inner channels of a d_state state each, see lin_shape.
 *   Lightning attention (Qin et al., "Lightning Attention-2", 2024; MiniMax-01 report, 2025,
 *     section 2.2): H heads of d; qkv h x 3Hd, output gate h x Hd, norm Hd, out_proj Hd x h;
 *     state H x d x d (no convolution).
 * FLOPs per token and head (a multiply-add = 2): a decode step passes over the dk x dv state
 * `passes` times (DeltaNet 3: S^T k for the delta, the rank-1 update, the read-out S^T q;
 * Mamba-2 and lightning 2: decayed update, read-out); the chunked prefill (chunk C = 64, the
 * FLA / mamba_ssm kernels' default) adds the intra-chunk quadratic part, 2*C*(dk + dv) (scores
 * over dk, weighted values over dv), plus 2*C*dk for DeltaNet's WY (UT) transform. Each step
 * reads and writes every sequence's state once. */
#include "model/layers.h"

#include <math.h>

#include "model/arch.h"

#include <string.h>

/* chunk length of the chunked scan kernels (FLA chunk_gated_delta_rule, mamba_chunk_scan: 64;
 * lightning attention's block: 64 in the MiniMax-01 report's kernels) */
#define LINEAR_CHUNK 64.0

struct llmroof_layer_counts layers_count(const struct llmroof_model *m, long start, long n)
{
    struct llmroof_layer_counts c = { 0 };
    if (start < 0)
        start = 0;
    if (start + n > m->layers)
        n = m->layers - start;
    if (n <= 0)
        return c;
    if (layers_patterned(m)) {
        for (long i = start; i < start + n; i++) {
            switch (m->mixers[i]) {
            case 'A': c.full += 1; break;
            case 'W': c.local += 1; break;
            case 'L': c.linear += 1; break;
            case 'P': c.full += 1; c.linear += 1; break; /* both mixers, side by side (Falcon-H1) */
            default: break;
            }
            if (m->ffns[i] == 'D') {
                c.dense += 1;
                c.dense_width += (double)(m->ffn_widths[i] > 0 ? m->ffn_widths[i] : m->intermediate);
            }
            else if (m->ffns[i] == 'E')
                c.moe += 1;
        }
        return c;
    }
    /* the model's rules: global iff (i+1) % every == 0; MoE iff i >= first and (i+1) % step == 0 */
    const long end = start + n;
    long glob = n;
    if (m->window > 0)
        glob = m->window_global_every > 0 ? end / m->window_global_every - start / m->window_global_every : 0;
    c.full = (double)glob;
    c.local = (double)(n - glob);
    long moe = 0;
    if (m->moe_experts > 0) {
        const long step = m->moe_layer_step > 0 ? m->moe_layer_step : 1;
        const long lo = start > m->moe_first_dense ? start : m->moe_first_dense;
        if (end > lo)
            moe = end / step - lo / step;
    }
    c.moe = (double)moe;
    c.dense = (double)(n - moe);
    c.dense_width = c.dense * (double)m->intermediate;
    return c;
}

double layers_dense_width(const struct llmroof_model *m, long start, long n)
{
    const struct llmroof_layer_counts c = layers_count(m, start, n);
    return c.dense > 0 ? c.dense_width / c.dense : (double)m->intermediate;
}

/* Input and output projection widths of one recurrent layer (h x in, out x h), the
 * convolution's channels, the per-head vectors and the norm width. */
struct lin_shape {
    double in, out, conv_ch, conv_bias, vecs, norm, state, passes, wy;
    double mat;   /* matrices fed by the inner channels, not by h (Mamba-1's x_proj and dt_proj) */
    double in_rep;/* input projections every TP rank holds whole (KDA's low-rank gates' first halves) */
};

static struct lin_shape lin_shape(const struct llmroof_model *m)
{
    struct lin_shape s = { 0 };
    const double Hv = (double)m->lin_heads, Hk = (double)m->lin_k_heads;
    const double dk = (double)m->lin_k_dim, dv = (double)m->lin_v_dim, cv = (double)m->lin_conv;
    switch (m->linear_kind) {
    case LLMROOF_LINEAR_GDN:
        s.in = 2.0 * Hk * dk + 2.0 * Hv * dv + 2.0 * Hv;
        s.out = Hv * dv;
        s.conv_ch = 2.0 * Hk * dk + Hv * dv;
        s.vecs = 2.0 * Hv;          /* A_log, dt_bias */
        s.norm = dv;                /* one gated RMSNorm weight shared by the heads */
        s.passes = 3.0;
        s.wy = 1.0;
        break;
    case LLMROOF_LINEAR_KDA:
        /* Kimi-Linear's KimiDeltaAttention (HF modeling_kimi.py; vLLM kda.py): q, k, v of H x d each
         * and beta (b_proj, h x H) from h; the decay and output gates each low-rank, h x d then
         * d x H*d (f_a/f_b, g_a/g_b); conv over q, k and v without bias; A_log (H) and dt_bias (H*d);
         * o_norm's d weights; o_proj H*d x h. vLLM splits the heads and holds f_a and g_a whole
         * (ReplicatedLinear). Kimi-Linear-48B (h 2,304, H 32, d 128): 2,304 x 12,320 + 2,304 x 256
         * + 2 x 128 x 4,096 + 4,096 x 2,304 + 3 x 4,096 x 4 + 32 + 4,096 + 128 = 39,514,272 a layer */
        s.in = 2.0 * Hk * dk + Hv * dv + Hv;
        s.in_rep = 2.0 * dk;
        s.mat = 2.0 * dk * Hv * dk;
        s.out = Hv * dv;
        s.conv_ch = 2.0 * Hk * dk + Hv * dv;
        s.vecs = Hv + Hv * dk;
        s.norm = dv;
        s.passes = 3.0;
        s.wy = 1.0;
        break;
    case LLMROOF_LINEAR_MAMBA2: {
        const double di = Hv * dv, gn = Hk * dk;
        s.in = 2.0 * di + 2.0 * gn + Hv;
        s.out = di;
        s.conv_ch = di + 2.0 * gn;
        s.conv_bias = s.conv_ch;
        s.vecs = 3.0 * Hv;          /* A_log, D, dt_bias */
        s.norm = di;
        s.passes = 2.0;
        break;
    }
    case LLMROOF_LINEAR_LIGHTNING:
        s.in = 4.0 * Hv * dv;       /* q, k, v and the output gate */
        s.out = Hv * dv;
        s.norm = Hv * dv;
        s.passes = 2.0;
        break;
    case LLMROOF_LINEAR_MAMBA1: {
        /* Gu and Dao, "Mamba" (arXiv:2312.00752) Algorithm 2; HF modeling_jamba.py: in_proj
         * h x 2*d_inner, conv over d_inner (with bias), x_proj d_inner x (R + 2N), dt_proj
         * R x d_inner (with bias), A_log d_inner x N, D d_inner, the dt/B/C norms (R + 2N),
         * out_proj d_inner x h; state d_inner x N */
        const double di = Hv, R = Hk, N = dk;
        s.in = 2.0 * di;
        s.out = di;
        s.conv_ch = di;
        s.conv_bias = di;
        s.mat = di * (R + 2.0 * N) + R * di;
        s.vecs = di + di * N + di + R + 2.0 * N;
        s.passes = 2.0;
        break;
    }
    case LLMROOF_LINEAR_NONE:
        return s;
    }
    s.state = Hv * dk * dv + (cv > 1 ? (cv - 1.0) * s.conv_ch : 0.0);
    return s;
}

double layers_linear_params(const struct llmroof_model *m)
{
    const struct lin_shape s = lin_shape(m);
    const double h = (double)m->hidden;
    return h * (s.in + s.in_rep) + s.out * h + s.mat + s.conv_ch * (double)m->lin_conv + s.conv_bias + s.vecs + s.norm;
}

/* Of B and C's channels (one group's d_state each), what a rank holds beyond the groups' share:
 * vLLM's MambaMixer2 copies the groups to every rank where tp does not divide them
 * (extra_groups_for_head_shards: n_groups 1 at TP 4 becomes 4, one a rank), so each rank holds
 * one group, N channels of B and of C, not N / tp. Granite-4.0-H-Tiny at TP 4: a rank's window
 * is 3 x (768 + 2 x 128) channels, not 3 x (768 + 2 x 32). 0 where the groups split. */
static double lin_group_copy(const struct llmroof_model *m, double tp)
{
    if (m->linear_kind != LLMROOF_LINEAR_MAMBA2 || !(tp > 1) || m->lin_k_heads <= 0 ||
        m->lin_k_heads % (long)tp == 0)
        return 0;
    return (double)m->lin_k_dim * (1.0 - (double)m->lin_k_heads / tp); /* one group, less its share */
}

double layers_linear_params_rank(const struct llmroof_model *m, int tp)
{
    const struct lin_shape s = lin_shape(m);
    const double t = tp > 0 ? (double)tp : 1.0, h = (double)m->hidden, gx = lin_group_copy(m, t);
    const double k = (double)m->lin_conv, rep = h * s.in_rep;
    /* the copied group: its B and C rows of in_proj, their conv weights and biases */
    return (layers_linear_params(m) - rep) / t + rep + 2.0 * gx * (h + k + (s.conv_bias > 0 ? 1.0 : 0.0));
}

double layers_state_elems(const struct llmroof_model *m)
{
    return lin_shape(m).state;
}

double layers_state_elems_rank(const struct llmroof_model *m, int tp)
{
    const double t = tp > 0 ? (double)tp : 1.0, k = (double)m->lin_conv;
    return lin_shape(m).state / t + (k > 1 ? (k - 1.0) * 2.0 * lin_group_copy(m, t) : 0.0);
}

double layers_conv_state_elems(const struct llmroof_model *m)
{
    const struct lin_shape s = lin_shape(m);
    return m->lin_conv > 1 ? (double)(m->lin_conv - 1) * s.conv_ch : 0.0;
}

double layers_state_elem_bytes(const struct llmroof_model *m, double s, double sc)
{
    const double all = layers_state_elems(m), conv = layers_conv_state_elems(m);
    return all > 0 ? ((all - conv) * s + conv * sc) / all : s;
}

double layers_state_elems_per_seq(const struct llmroof_model *m)
{
    const struct llmroof_layer_counts c = layers_count(m, 0, m->layers);
    return c.linear * layers_state_elems(m);
}

struct llmroof_op layers_linear_op(const struct llmroof_model *m, const struct llmroof_shard *sh, double T, double S,
                                   double a, double w, double s)
{
    const struct lin_shape ls = lin_shape(m);
    const double tp = sh->tp > 0 ? (double)sh->tp : 1.0, h = (double)m->hidden;
    const double dk = (double)m->lin_k_dim, dv = (double)m->lin_v_dim;
    const double heads = (double)m->lin_heads / tp;
    const double gx = lin_group_copy(m, tp); /* a copied Mamba-2 group's B and C channels */
    const double in = ls.in / tp + ls.in_rep + 2.0 * gx, out = ls.out / tp, conv = ls.conv_ch / tp + 2.0 * gx;
    const double wts = h * in + out * h + ls.mat / tp + conv * (double)m->lin_conv;
    /* tokens per sequence: a decode step runs the recurrence, a longer chunk the chunked scan */
    const double per_seq = S > 0 ? T / S : 0.0;
    double scan = 2.0 * ls.passes * dk * dv;
    if (per_seq > 1.0000001) {
        const double C = per_seq < LINEAR_CHUNK ? per_seq : LINEAR_CHUNK;
        scan += 2.0 * C * (dk + dv) + ls.wy * 2.0 * C * dk;
    }
    /* 2 FLOP per weight and token: projections and the depthwise convolution alike */
    const double flops = 2.0 * T * wts + T * heads * scan;
    const double state = layers_state_elems_rank(m, sh->tp);
    const double bytes = wts * w + T * h * a + T * in * a + T * out * a + T * h * a + 2.0 * S * state * s;
    /* in_proj, convolution, scan, gated norm, out_proj */
    return (struct llmroof_op){ 1.0, flops, bytes, 0, 5, wts * w };
}

double layers_dsa_params(const struct llmroof_model *m)
{
    if (m->dsa_top_k <= 0)
        return 0;
    /* DeepSeek-V3.2-Exp inference/model.py Indexer: wq_b (q_lora_rank x Hi*di), wk (h x di),
     * k_norm LayerNorm (di weight + di bias), weights_proj (h x Hi) */
    const double h = (double)m->hidden, Hi = (double)m->dsa_heads, di = (double)m->dsa_head_dim;
    const double rq = m->q_lora_rank > 0 ? (double)m->q_lora_rank : h;
    return rq * Hi * di + h * di + 2.0 * di + h * Hi;
}

double layers_dsa_key_bytes(const struct llmroof_model *m)
{
    if (m->dsa_top_k <= 0)
        return 0;
    /* the indexer's cache is uint8 whatever the KV dtype: fp8 keys with one fp32 scale per block of
     * 128 (vLLM's DeepSeek-V3.2 indexer cache, head size index_head_dim + index_head_dim / 128 * 4;
     * SGLang's DSATokenToKVPool index_k_with_scale_buffer, alike) */
    const double di = (double)m->dsa_head_dim;
    return di + ceil(di / 128.0) * 4.0;
}

double layers_mla_latent_bytes(const struct llmroof_model *m, double kv_bytes)
{
    const double r = (double)m->kv_lora_rank, p = (double)m->qk_rope_dim;
    /* vLLM's FlashMLASparse backend turns an fp8 cache into "fp8_ds_mla", 656 bytes a token (its
     * get_kv_cache_shape; the layout FlashMLA's sparse kernels read): 512 fp8 values, 4 fp32
     * scales, 64 bf16 rope values */
    if (m->dsa_top_k > 0 && kv_bytes < 2.0)
        return r + ceil(r / 128.0) * 4.0 + 2.0 * p;
    return (r + p) * kv_bytes;
}

struct llmroof_op layers_dsa_op(const struct llmroof_model *m, double T, double pairs, double keys, double a, double w)
{
    const double h = (double)m->hidden, Hi = (double)m->dsa_heads, di = (double)m->dsa_head_dim;
    const double rq = m->q_lora_rank > 0 ? (double)m->q_lora_rank : h;
    const double wts = rq * Hi * di + h * di + h * Hi;
    /* projections; a ReLU score of di multiply-adds per (query, key) pair and indexer head, weighted
     * over the heads (DeepSeek-V3.2 report, eq. 1); the indexer cache (one fp8 key and its scale per
     * token) read once and the new keys written */
    const double flops = 2.0 * T * wts + 2.0 * Hi * di * pairs + 2.0 * Hi * pairs;
    const double bytes = wts * w + T * (rq + h) * a + T * (Hi * di + di + Hi) * a + (keys + T) * layers_dsa_key_bytes(m);
    /* projections, cache write, score + top-k */
    return (struct llmroof_op){ 1.0, flops, bytes, 0, 3, wts * w };
}
