/* estimate.c - TTFT, TPOT, e2e and throughput of a static batch (see llmroof/estimate.h). */
#include "llmroof/estimate.h"

#include <math.h>
#include <string.h>

struct llmroof_layout estimate_layout(const struct llmroof_setup *s)
{
    struct llmroof_layout l = s->layout;
    l.tp = s->tp;
    return l;
}

int estimate_check(const struct llmroof_setup *s, struct llmroof_err *err)
{
    struct llmroof_shard sh;
    const struct llmroof_layout lay = estimate_layout(s);
    int rc = ops_shard_layout(s->model, &lay, &sh, err);
    if (rc)
        return rc;
    if (!dtype_is_storage(s->dt.weight))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--weight-dtype tf32 is a compute mode, not a storage format");
    if (!dtype_is_storage(s->dt.kv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--kv-dtype tf32 is a compute mode, not a storage format");
    if (!(s->eff.compute > 0 && s->eff.compute <= 1) || !(s->eff.memory > 0 && s->eff.memory <= 1) ||
        !(s->eff.comm > 0 && s->eff.comm <= 1) || !(s->eff.overhead_s >= 0 && s->eff.overhead_s <= 1) ||
        !(s->eff.first_token_s >= 0 && s->eff.first_token_s <= 60))
        return llmroof_err_set(err, LLMROOF_EINPUT, "efficiencies must be in (0, 1] and the overheads in [0, 1] s (first token: [0, 60] s)");
    return roofline_check(s->gpu, s->dt.act, err);
}

/* Sum of a + b*c over integer c in [p, q]. */
static double sum_linear(double a, double b, double p, double q)
{
    if (q < p)
        return 0.0;
    double n = q - p + 1.0;
    return n * a + b * (p + q) * n / 2.0;
}

double estimate_sum_max_linear(double a1, double b1, double a2, double b2, double c1, double c2,
                               double *first_part)
{
    /* f - g = (a1 - a2) + (b1 - b2) c changes sign at most once. */
    double da = a1 - a2, db = b1 - b2;
    double s1 = 0, s2 = 0;
    if (db == 0) {
        if (da >= 0)
            s1 = sum_linear(a1, b1, c1, c2);
        else
            s2 = sum_linear(a2, b2, c1, c2);
    } else {
        double x = -da / db; /* crossing point */
        if (db > 0) {
            /* f >= g for c >= x */
            double lo = ceil(x);
            if (lo < c1) lo = c1;
            if (lo > c2 + 1) lo = c2 + 1;
            s2 = sum_linear(a2, b2, c1, lo - 1);
            s1 = sum_linear(a1, b1, lo, c2);
        } else {
            /* f >= g for c <= x */
            double hi = floor(x);
            if (hi > c2) hi = c2;
            if (hi < c1 - 1) hi = c1 - 1;
            s1 = sum_linear(a1, b1, c1, hi);
            s2 = sum_linear(a2, b2, hi + 1, c2);
        }
    }
    if (first_part)
        *first_part = s1;
    return s1 + s2;
}

int estimate_run(const struct llmroof_setup *s, const struct llmroof_request *r,
                 struct llmroof_estimate *out, struct llmroof_err *err)
{
    int rc = estimate_check(s, err);
    if (rc)
        return rc;
    if (r->batch < 1 || r->prompt < 1 || r->output < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "batch, prompt and output must each be at least 1");
    memset(out, 0, sizeof *out);
    const struct llmroof_layout lay = estimate_layout(s);
    ops_shard_layout(s->model, &lay, &out->shard, NULL);

    /* Pipeline parallelism (docs/model.md "Layouts"): the batch splits into n = min(pp, B)
     * micro-batches of B/n sequences. One micro-batch's pass is the sum of the stages plus the
     * sends (the operator list of all layers); prefill ends when the last micro-batch leaves the
     * last stage, n-1 largest-stage times later (the bubble); decode advances every micro-batch
     * one token per pass, so TPOT is one pass of B/n and throughput B / TPOT. */
    const double Ball = (double)r->batch, P = (double)r->prompt, O = (double)r->output;
    const double nmb = out->shard.pp > 1 ? (Ball < out->shard.pp ? Ball : (double)out->shard.pp) : 1.0;
    const double B = Ball / nmb;
    out->micro_batches = nmb;
    struct llmroof_batch pb = batch_prefill(B, P);
    ops_build(s->model, &out->shard, &s->dt, &pb, &out->prefill_ops);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &out->prefill_ops, &out->prefill);
    if (nmb > 1) {
        const double stage = (out->prefill.time_s - out->prefill.op[LLMROOF_OP_PP_SEND].time_s)
                           * (double)out->shard.stage_layers_max / (double)s->model->layers;
        out->pp_bubble_s = (nmb - 1.0) * stage;
    }
    /* the engine's first-token overhead (tokenisation, admission, first sampling) adds to TTFT
     * but occupies no GPU time */
    out->ttft_s = out->prefill.time_s + out->pp_bubble_s + s->eff.first_token_s;

    out->decode_steps = O - 1.0;
    if (O >= 2) {
        /* Decode step for output token j (j = 2..O) attends to c = P + j - 1 keys. */
        const double c1 = P + 1.0, c2 = P + O - 1.0, cm = (c1 + c2) / 2.0;
        struct llmroof_batch b1 = batch_decode(B, c1), b2 = batch_decode(B, c2), bm = batch_decode(B, cm);
        struct llmroof_oplist o1, o2;
        struct llmroof_phase p1, p2;
        ops_build(s->model, &out->shard, &s->dt, &b1, &o1);
        ops_build(s->model, &out->shard, &s->dt, &b2, &o2);
        ops_build(s->model, &out->shard, &s->dt, &bm, &out->decode_ops);
        roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &o1, &p1);
        roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &o2, &p2);
        /* flops, bytes and the compute/memory sums are linear in c: their mean over
         * the steps is their value at the mean context. */
        roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &out->decode_ops, &out->decode);
        double steps = c2 - c1 + 1.0;
        for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
            struct llmroof_optime *t = &out->decode.op[k];
            if (op_is_collective((enum llmroof_opkind)k) || out->decode_ops.op[k].count <= 0)
                continue;
            /* time(c) = max(compute(c), memory(c)), both linear: sum exactly */
            double bc = steps > 1 ? (p2.op[k].compute_s - p1.op[k].compute_s) / (c2 - c1) : 0.0;
            double bmem = steps > 1 ? (p2.op[k].memory_s - p1.op[k].memory_s) / (c2 - c1) : 0.0;
            double ac = p1.op[k].compute_s - bc * c1, am = p1.op[k].memory_s - bmem * c1;
            double comp_part;
            double sum = estimate_sum_max_linear(ac, bc, am, bmem, c1, c2, &comp_part);
            t->time_s = sum / steps;
            t->bound = comp_part >= sum - comp_part ? LLMROOF_BOUND_COMPUTE : LLMROOF_BOUND_MEMORY;
        }
        roofline_total(&out->decode);
        out->tpot_s = out->decode.time_s;
        out->decode_tok_s = Ball / out->tpot_s;
    }
    out->e2e_s = out->ttft_s + out->decode_steps * out->tpot_s;
    out->output_tok_s = Ball * O / out->e2e_s;
    return LLMROOF_OK;
}
