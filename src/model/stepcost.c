/* stepcost.c - a decode-only step re-timed at another context (see stepcost.h). */
#include "model/stepcost.h"

#include <string.h>

#include "base/dtype.h"
#include "model/arch.h"
#include "model/kernel.h"

/* The operators ops_set_context rebuilds: the only ones whose time moves with the context. */
static const int ctx_ops[] = { LLMROOF_OP_ATTENTION, LLMROOF_OP_ATTN_LOCAL, LLMROOF_OP_DSA_INDEX, LLMROOF_OP_MLA_KV_UP };
#define NCTX_OPS ((int)(sizeof ctx_ops / sizeof ctx_ops[0]))

/* roofline.c's rl_ctx_of for attention: its peak FLOP/s (16 bits unless the engine runs fp8
 * attention, at the attention kernel's efficiency), its bandwidth share, the kernel factor. */
static void attn_rates(const struct llmroof_setup *s, double *apeak, double *abw, double *kf)
{
    const struct llmroof_effs *eff = &s->eff;
    const struct llmroof_gpu *g = s->gpu;
    const enum llmroof_dtype act = s->dt.act;
    /* (fp8 attention with an 8-bit K/V cache only, as roofline.c's rl_apeak) */
    const enum llmroof_dtype adt = eff->fp8_attention && act == LLMROOF_FP8 && dtype_bytes(s->dt.kv) <= 1.0
                                       ? act
                                       : kernel_attention_dtype(g, act);
    /* the fp16-accumulate peak: eager attention's batched GEMMs only (roofline.c) */
    *apeak = g->peak_flops[adt] * (eff->attn_eff > 0 ? eff->attn_eff : eff->compute) *
             (eff->peak_scale > 1 && adt == LLMROOF_FP16 && eff->attn_eager ? eff->peak_scale : 1.0);
    *abw = g->mem_bw_Bps * (eff->attn_mem_eff > 0 ? eff->attn_mem_eff : eff->memory);
    /* FlashAttention-2's decode share where the engine runs FA2 here and the attention fits it (as
     * ops.c's fa2_unfit: no learned sinks, a 16-bit K/V cache) */
    if (eff->attn_mem_fa2_eff > 0 && !s->model->attention_sinks && dtype_bytes(s->dt.kv) == 2.0)
        *abw = g->mem_bw_Bps * eff->attn_mem_fa2_eff;
    *kf = eff->kernel_factor > 0 ? eff->kernel_factor : 1.0;
}

/* Plain global attention's time as roofline.c's per-operator pass computes it for a fused (not
 * eager) kernel without a dequantize copy: count x kernel_instance_s(flops / (attention peak x the
 * prefill ramp), bytes / attention bandwidth), with the repeated K/V reads of engines without
 * GQA-aware decode kernels. */
static double attention_s(const struct llmroof_oplist *o, const struct llmroof_effs *eff, double apeak, double abw,
                          double kf)
{
    const struct llmroof_op *op = &o->op[LLMROOF_OP_ATTENTION];
    /* prefill-type steps (several new tokens per sequence) run attention on the ramp */
    const double ramp = eff->attn_ramp_tokens > 0 && o->new_per_seq > 1.0
                            ? o->keys_per_seq / (o->keys_per_seq + eff->attn_ramp_tokens)
                            : 1.0;
    double bytes = op->bytes;
    bytes += roofline_attn_extra_kv_bytes(eff, o->attn_kv_bytes, o->q_per_kv, o->new_per_seq, o->longer_query, false,
                                          false, o->fa2_unfit, o->kv_8bit);
    const double c = op->flops / roofline_attn_peak(eff, apeak, ramp, o->new_per_seq), m = bytes / abw;
    return op->count * kernel_instance_s(c, m, eff->overlap, op->kernels * kf, eff->kernel_s, 0.0);
}

/* roofline_total's time_s of `p` with the attention operator's time replaced by `att` (the sum
 * in operator order, the hidden all-to-all, the CPU launch wait, the overhead). */
static double total_s(const struct llmroof_phase *p, double att)
{
    double t = 0;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        t += k == LLMROOF_OP_ATTENTION ? att : p->op[k].time_s;
    const double a2a = p->op[LLMROOF_OP_ALL_TO_ALL].time_s, rest = t - a2a;
    const double hidden = p->a2a_overlap ? (a2a < rest ? a2a : rest) : 0.0;
    const double gpu = t - hidden;
    return gpu + kernel_cpu_wait_s(gpu, p->launch_s) + p->overhead_s;
}

static bool attn_plain(const struct llmroof_setup *s, const struct llmroof_oplist *ops)
{
    return ops->op[LLMROOF_OP_ATTENTION].count > 0 && ops->op[LLMROOF_OP_ATTENTION].wbytes == 0 && !s->eff.attn_eager &&
           ops->op[LLMROOF_OP_ATTN_LOCAL].count <= 0 && ops->op[LLMROOF_OP_DSA_INDEX].count <= 0 &&
           ops->op[LLMROOF_OP_MLA_KV_UP].count <= 0 && !arch_is_mla(s->model) && s->model->dsa_top_k <= 0;
}

void stepcost_attn_init(struct stepcost_attn *sa, const struct llmroof_setup *s, const struct llmroof_shard *sh)
{
    const struct llmroof_model *m = s->model;
    attn_rates(s, &sa->apeak, &sa->abw, &sa->kf);
    sa->count = (double)arch_attn_layers(m) - (double)arch_local_layers(m); /* ops.c's Lglob */
    sa->d = (double)m->head_dim;
    sa->hq = (double)sh->heads_per_rank;
    sa->kr = (double)sh->kv_heads_per_rank;
    sa->a = ops_stream_bytes(&s->dt); /* as ops.c's attention: 16-bit Q, O at ao */
    sa->ao = ops_attn_out_bytes(m, &s->dt);
    sa->kv_elem_bytes = dtype_bytes(s->dt.kv);
    sa->fa2_unfit = m->attention_sinks || sa->kv_elem_bytes != 2.0; /* as ops.c's fa2_unfit */
    /* plain attention, one kernel, no replicas: checked on a two-sequence step */
    struct llmroof_batch b = { 0 };
    batch_add(&b, 1.0, 100.0, &sh->few);
    batch_add(&b, 100.0, 0.0, &sh->few);
    struct llmroof_oplist ops;
    ops_build(m, sh, &s->dt, &b, &ops);
    sa->ok = sh->attn_dp <= 1 && attn_plain(s, &ops) && ops.op[LLMROOF_OP_ATTENTION].count == sa->count &&
             ops.op[LLMROOF_OP_ATTENTION].kernels == 1.0;
}

double stepcost_attn_s(const struct stepcost_attn *sa, const struct llmroof_effs *eff, const struct llmroof_batch *b,
                       bool beside_longer)
{
    /* ops_set_context at one replica: T, S, pairs and keys as the batch has them */
    const double T = b->tokens, S = b->seqs, pairs = b->attn_pairs, keys = b->kv_read_tokens;
    const double flops = 4.0 * sa->d * sa->hq * pairs;
    const double kv = 2.0 * keys * sa->kr * sa->d * sa->kv_elem_bytes;
    double bytes = T * sa->hq * sa->d * (sa->a + sa->ao) + kv;
    const double q_per_kv = sa->kr > 0 ? sa->hq / sa->kr : 1.0;
    const double new_per_seq = S > 0 ? T / S : 0.0, keys_per_seq = S > 0 ? keys / S : 0.0;
    /* roofline.c: prefill-type steps (several new tokens per sequence) run attention on the ramp;
     * engines without GQA-aware decode kernels read K/V more than once per group */
    const double ramp =
        eff->attn_ramp_tokens > 0 && new_per_seq > 1.0 ? keys_per_seq / (keys_per_seq + eff->attn_ramp_tokens) : 1.0;
    bytes += roofline_attn_extra_kv_bytes(eff, kv, q_per_kv, new_per_seq, beside_longer || T > S, false, false,
                                          sa->fa2_unfit, sa->kv_elem_bytes < 2.0);
    const double c = flops / roofline_attn_peak(eff, sa->apeak, ramp, new_per_seq), m = bytes / sa->abw;
    return sa->count * kernel_instance_s(c, m, eff->overlap, 1.0 * sa->kf, eff->kernel_s, 0.0);
}

/* The fast path's step time at batch b: ops.c's attention operator for plain global attention
 * (FLOPs 4 d Hq per pair; bytes the new tokens' Q and output plus 2 keys Kr d of K/V, in its
 * order of operations) timed by attention_s's formula at one new token per sequence (no ramp),
 * and total_s from the sums kept. */
double stepcost_fast_time(const struct stepcost_fast *f, const struct llmroof_effs *eff, const struct llmroof_batch *b)
{
    const double pairs = b->attn_pairs / f->rep, keys = b->kv_read_tokens / f->rep;
    const double kv = 2.0 * keys * f->kr * f->d * f->kv_elem_bytes;
    double bytes = f->qo_bytes + kv;
    bytes += kv * (roofline_attn_kv_reads(eff, f->q_per_kv, 1.0) - 1.0); /* a decode step */
    const double c = f->flops_per_pair * pairs / roofline_attn_peak(eff, f->apeak, 1.0, 1.0), m = bytes / f->abw;
    return stepcost_total_s(f, f->count * kernel_instance_s(c, m, eff->overlap, f->kernels * f->kf, eff->kernel_s, 0.0));
}

double stepcost_total_s(const struct stepcost_fast *f, double att)
{
    double t = f->before_s + att;
    for (int j = 0; j < f->nafter; j++)
        t += f->after_s[j];
    const double rest = t - f->a2a_s;
    const double hidden = f->a2a_overlap ? (f->a2a_s < rest ? f->a2a_s : rest) : 0.0;
    const double gpu = t - hidden;
    return gpu + kernel_cpu_wait_s(gpu, f->launch_s) + f->overhead_s;
}

void stepcost_sums(struct stepcost_fast *f, const struct llmroof_phase *p)
{
    f->before_s = 0;
    f->nafter = 0;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const double t = p->op[k].time_s;
        if (k < LLMROOF_OP_ATTENTION)
            f->before_s += t;
        else if (k > LLMROOF_OP_ATTENTION && t != 0)
            f->after_s[f->nafter++] = t;
    }
    f->a2a_s = p->op[LLMROOF_OP_ALL_TO_ALL].time_s;
    f->a2a_overlap = p->a2a_overlap;
    f->launch_s = p->launch_s;
    f->overhead_s = p->overhead_s;
}

double stepcost_build(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                      const struct llmroof_batch *b)
{
    ops_build(s->model, sh, &s->dt, b, &sc->part);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &sc->part, &sc->whole);
    struct stepcost_fast *f = &sc->f;
    f->seqs = b->seqs;
    attn_rates(s, &f->apeak, &f->abw, &f->kf);
    const double att = sc->whole.op[LLMROOF_OP_ATTENTION].time_s;
    /* ops.c's ops_set_context and attention_op for plain attention, the factors in its order */
    const struct llmroof_model *m = s->model;
    const struct llmroof_op *op = &sc->part.op[LLMROOF_OP_ATTENTION];
    const double a = ops_stream_bytes(&s->dt), Hq = (double)sh->heads_per_rank;
    f->rep = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    f->d = (double)m->head_dim;
    f->kr = (double)sh->kv_heads_per_rank;
    f->kv_elem_bytes = dtype_bytes(s->dt.kv);
    f->count = op->count;
    f->kernels = op->kernels;
    f->flops_per_pair = 4.0 * f->d * Hq;
    f->qo_bytes = (b->tokens / f->rep) * Hq * f->d * (a + ops_attn_out_bytes(m, &s->dt));
    f->q_per_kv = sc->part.q_per_kv;
    stepcost_sums(f, &sc->whole);
    const double pairs = b->attn_pairs / f->rep, keys = b->kv_read_tokens / f->rep;
    const double kv = 2.0 * keys * f->kr * f->d * f->kv_elem_bytes;
    /* the shortcut must give ops_build's and roofline_eval's very numbers here, or it is not used */
    sc->fast = b->tokens == b->seqs && attn_plain(s, &sc->part) && f->flops_per_pair * pairs == op->flops &&
               f->qo_bytes + kv == op->bytes && kv == sc->part.attn_kv_bytes && sc->part.new_per_seq == 1.0 &&
               attention_s(&sc->part, &s->eff, f->apeak, f->abw, f->kf) == att &&
               total_s(&sc->whole, att) == sc->whole.time_s && stepcost_fast_time(f, &s->eff, b) == sc->whole.time_s;
    /* the context operators alone: the others' counts to 0 (roofline_eval skips them) */
    bool ctx[LLMROOF_OP_COUNT] = { false };
    for (int j = 0; j < NCTX_OPS; j++)
        ctx[ctx_ops[j]] = true;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        if (!ctx[k])
            sc->part.op[k].count = 0;
    return sc->whole.time_s;
}

double stepcost_time(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                     const struct llmroof_batch *b)
{
    if (sc->fast)
        return stepcost_fast_time(&sc->f, &s->eff, b);
    ops_set_context(s->model, sh, &s->dt, b, &sc->part);
    struct llmroof_phase p;
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &sc->part, &p);
    for (int j = 0; j < NCTX_OPS; j++)
        sc->whole.op[ctx_ops[j]] = p.op[ctx_ops[j]];
    roofline_total(&sc->whole);
    return sc->whole.time_s;
}
