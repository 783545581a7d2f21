/* stepcost.c - a decode-only step re-timed at another context (see stepcost.h). */
#include "model/stepcost.h"

#include <string.h>

#include "model/kernel.h"

/* The operators ops_set_context rebuilds: the only ones whose time moves with the context. */
static const int ctx_ops[] = { LLMROOF_OP_ATTENTION, LLMROOF_OP_ATTN_LOCAL, LLMROOF_OP_DSA_INDEX, LLMROOF_OP_MLA_KV_UP };
#define NCTX_OPS ((int)(sizeof ctx_ops / sizeof ctx_ops[0]))

/* Plain global attention's time in a decode step, as roofline.c's per-operator pass computes it
 * for a fused (not eager) kernel at one new token per sequence (no prefill ramp, no dequantize
 * copy): count x kernel_instance_s(flops / attention peak, bytes / attention bandwidth) with the
 * per-query-head K/V reads of engines without GQA-aware decode kernels. */
static double attention_s(const struct stepcost *sc, const struct llmroof_effs *eff)
{
    const struct llmroof_oplist *o = &sc->part;
    const struct llmroof_op *op = &o->op[LLMROOF_OP_ATTENTION];
    double bytes = op->bytes;
    if (eff->kv_per_query_head && o->q_per_kv > 1)
        bytes += o->attn_kv_bytes * (o->q_per_kv - 1.0);
    const double c = op->flops / (sc->apeak * 1.0), m = bytes / sc->abw;
    return op->count * kernel_instance_s(c, m, eff->overlap, op->kernels * sc->kf, eff->kernel_s, 0.0);
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

double stepcost_build(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                      const struct llmroof_batch *b)
{
    ops_build(s->model, sh, &s->dt, b, &sc->part);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &sc->part, &sc->whole);
    sc->seqs = b->seqs;
    const struct llmroof_effs *eff = &s->eff;
    const struct llmroof_gpu *g = s->gpu;
    /* roofline.c's rl_ctx_of: attention at 16 bits unless the engine runs fp8 attention, at the
     * attention kernel's efficiency and bandwidth share */
    const enum llmroof_dtype act = s->dt.act;
    const enum llmroof_dtype adt = eff->fp8_attention && act == LLMROOF_FP8 ? act : kernel_attention_dtype(g, act);
    sc->apeak = g->peak_flops[adt] * (eff->attn_eff > 0 ? eff->attn_eff : eff->compute) *
                (eff->peak_scale > 1 && adt == LLMROOF_FP16 ? eff->peak_scale : 1.0);
    sc->abw = g->mem_bw_Bps * (eff->attn_mem_eff > 0 ? eff->attn_mem_eff : eff->memory);
    sc->kf = eff->kernel_factor > 0 ? eff->kernel_factor : 1.0;
    const struct llmroof_op *att = &sc->part.op[LLMROOF_OP_ATTENTION];
    sc->fast = b->tokens == b->seqs && att->count > 0 && att->wbytes == 0 && !eff->attn_eager &&
               sc->part.op[LLMROOF_OP_ATTN_LOCAL].count <= 0 && sc->part.op[LLMROOF_OP_DSA_INDEX].count <= 0 &&
               sc->part.op[LLMROOF_OP_MLA_KV_UP].count <= 0;
    /* the shortcut must give roofline_eval's very numbers here, or it is not used */
    if (sc->fast)
        sc->fast = attention_s(sc, eff) == sc->whole.op[LLMROOF_OP_ATTENTION].time_s &&
                   total_s(&sc->whole, sc->whole.op[LLMROOF_OP_ATTENTION].time_s) == sc->whole.time_s;
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
    ops_set_context(s->model, sh, &s->dt, b, &sc->part);
    if (sc->fast)
        return total_s(&sc->whole, attention_s(sc, &s->eff));
    struct llmroof_phase p;
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &sc->part, &p);
    for (int j = 0; j < NCTX_OPS; j++)
        sc->whole.op[ctx_ops[j]] = p.op[ctx_ops[j]];
    roofline_total(&sc->whole);
    return sc->whole.time_s;
}
