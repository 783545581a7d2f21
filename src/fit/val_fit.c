/* val_fit.c - calibration: fitting GPU and engine efficiencies to measured cases (see fit/validate.h) */
#include "fit/validate.h"
#include "fit/val_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "model/memory.h"
#include "serve/sim.h"

/* ------------------------------------------------------------------------ */
/* Calibration                                                              */
/* ------------------------------------------------------------------------ */


static double loss(struct val_case *cases, size_t n, const struct llmroof_gpu *g, const struct llmroof_gpu *as,
                   long *used)
{
    double sum = 0;
    long k = 0;
    for (size_t i = 0; i < n; i++) {
        struct val_case *c = &cases[i];
        if (!c->mapped || c->gpu != g || c->serving)
            continue;
        if (val_predict(c, as, NULL, NULL) != LLMROOF_OK)
            continue;
        sum += fabs(log(c->predicted / c->measured));
        k++;
    }
    if (used)
        *used = k;
    return k ? sum / (double)k : 0;
}

double *val_gpu_param(struct llmroof_gpu *g, int i)
{
    switch (i) {
    case 0: return &g->compute_eff;
    case 1: return &g->memory_eff;
    case 2: return &g->comm_eff;
    case 3: return &g->step_overhead_s;
    default: return &g->link_latency_s;
    }
}

/* Physical bounds, so that a framework's slowness cannot pass for a property of the GPU:
 * compute 0.40-0.90 of the dense peak (the best measured matmuls reach 0.80-0.87, and cuBLAS
 * GEMMs of serving shapes rarely fall below 0.4); memory 0.50-0.95 of bandwidth (HBM copies
 * reach about 0.9); communication 0.50-1.0 of the link (NCCL ring busbw reaches 0.78-0.81);
 * a GPU step overhead of at most 2 ms (launches and scheduling take tens to hundreds of
 * microseconds; more is the framework's, fitted into its engine profile); a collective's fixed
 * latency of 2-30 us (measured small all-reduces: 10 us on 2 x A100, 34 us on 8 with one ring
 * channel, 42 us on 8 x RTX 4090). */
const double val_gpu_lo[5] = { 0.40, 0.50, 0.50, 0.0, 2e-6 }, val_gpu_hi[5] = { 0.90, 0.95, 1.0, 0.002, 30e-6 };
/* Engines, the load-time bounds of data/engines.json (docs/model.md "Engine profiles"): up to
 * 20 ms of CPU per step and 200 ms per first token; kernels 0.7-1.0 of the GPU's; up to 50 us
 * more per collective than the link's own latency (NCCL small-message all-reduce on 8 x A100
 * with one ring channel: 34 us against 6.6 + 14 x 0.6 = 15 us for the link model). */
const double val_eng_lo[4] = { 0.0, 0.0, 0.7, 0.0 }, val_eng_hi[4] = { 0.020, 0.200, 1.0, 50e-6 };
const char *const val_gpu_param_names[3] = { "compute_eff", "memory_eff", "comm_eff" };

void val_cv_priors(struct llmroof_gpu *gpus, int n)
{
    for (int k = 0; k < n; k++)
        if (gpus[k].memory_eff_fitted)
            gpus[k].memory_eff = VAL_MEMORY_PRIOR;
}
const char *const val_eng_param_names[4] = { "step_overhead_s", "first_token_s", "compute_scale",
                                                "collective_latency_s" };

#define VAL_FIT_ROUNDS 4

double *val_eng_param(struct llmroof_engine *e, int i)
{
    return i == 0 ? &e->step_overhead_s : i == 1 ? &e->first_token_s : i == 2 ? &e->compute_scale
                                                                        : &e->collective_latency_s;
}

/* Minimises f over one coordinate *x in [lo, hi]: a 25-point scan, refined three times around
 * the best point (a resolution of 1/25^4 of the range). */
static double scan(double *x, double lo, double hi, double (*f)(void *), void *ctx, double best)
{
    double a = lo, b = hi;
    for (int level = 0; level < 4; level++) {
        double step = (b - a) / 24.0, arg = *x;
        for (int k = 0; k <= 24; k++) {
            double keep = *x;
            *x = a + step * k;
            double l = f(ctx);
            if (l < best - 1e-12) {
                best = l;
                arg = *x;
            }
            *x = keep;
        }
        *x = arg;
        a = fmax(lo, arg - step);
        b = fmin(hi, arg + step);
    }
    return best;
}

/* The pattern move: from x0 (a round's start) to the GPU's parameters now, continued while the
 * loss falls: a scan of s in [1, s_max] of x0 + s (x - x0), s_max where a parameter meets its
 * bound, keeping the best point (the current one at s = 1). */
static double pattern_scan(struct llmroof_gpu *g, const double x0[4], double (*f)(void *), void *ctx, double best)
{
    double x1[4], smax = 8.0;
    bool moved = false;
    for (int p = 0; p < 4; p++) {
        x1[p] = *val_gpu_param(g, p);
        const double d = x1[p] - x0[p];
        if (d > 0)
            smax = fmin(smax, 1.0 + (val_gpu_hi[p] - x1[p]) / d);
        else if (d < 0)
            smax = fmin(smax, 1.0 + (val_gpu_lo[p] - x1[p]) / d);
        moved = moved || d != 0;
    }
    if (!moved || !(smax > 1.0))
        return best;
    double a = 1.0, b = smax, arg = 1.0;
    for (int level = 0; level < 4; level++) {
        const double step = (b - a) / 24.0;
        for (int k = 0; k <= 24; k++) {
            const double sc = a + step * k;
            for (int p = 0; p < 4; p++)
                *val_gpu_param(g, p) = x0[p] + sc * (x1[p] - x0[p]);
            const double l = f(ctx);
            if (l < best - 1e-12) {
                best = l;
                arg = sc;
            }
        }
        a = fmax(1.0, arg - step);
        b = fmin(smax, arg + step);
    }
    for (int p = 0; p < 4; p++)
        *val_gpu_param(g, p) = x0[p] + arg * (x1[p] - x0[p]);
    return best;
}

/* Does moving *x across [lo, hi] change f? Parameters the data cannot see keep their value. */
static bool identifiable(double *x, double lo, double hi, double (*f)(void *), void *ctx)
{
    double keep = *x;
    *x = lo;
    double a = f(ctx);
    *x = hi;
    double b = f(ctx);
    *x = keep;
    return fabs(a - b) > 1e-9;
}

struct single {
    struct val_case *cases;
    size_t n;
    const struct llmroof_gpu *g;
    const struct llmroof_gpu *as;
};

static double single_loss(void *v)
{
    struct single *s = v;
    return loss(s->cases, s->n, s->g, s->as, NULL);
}

int val_calibrate(struct val_case *cases, size_t n, const struct llmroof_gpu *g, struct val_fit *out,
                  struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    out->before = roofline_default_effs(g);
    struct llmroof_gpu t = *g;
    struct single ctx = { cases, n, g, &t };
    out->loss_before = loss(cases, n, g, &t, &out->n);
    if (out->n == 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "no usable measurement maps to GPU '%s'", g->id);
    bool *fitted[4] = { &out->fitted_compute, &out->fitted_memory, &out->fitted_comm, &out->fitted_overhead };
    for (int p = 0; p < 4; p++)
        *fitted[p] = identifiable(val_gpu_param(&t, p), val_gpu_lo[p], val_gpu_hi[p], single_loss, &ctx);
    double best = out->loss_before;
    /* coordinate descent; correlated parameters (memory efficiency and step overhead) trade along a
     * valley across the axes, which rounds of axis scans descend in small steps: after each round a
     * scan along the round's own move (Hooke and Jeeves' pattern move) follows the valley */
    for (int round = 0; round < 60; round++) {
        const double start = best;
        double x0[4];
        for (int p = 0; p < 4; p++)
            x0[p] = *val_gpu_param(&t, p);
        for (int p = 0; p < 4; p++)
            if (*fitted[p])
                best = scan(val_gpu_param(&t, p), val_gpu_lo[p], val_gpu_hi[p], single_loss, &ctx, best);
        best = pattern_scan(&t, x0, single_loss, &ctx, best);
        if (!(best < start - 1e-12))
            break; /* a round that moved nothing: every later one would repeat it */
    }
    out->after = roofline_default_effs(&t);
    out->loss_after = loss(cases, n, g, &t, NULL);
    return LLMROOF_OK;
}

struct joint {
    struct val_case *cases;
    size_t n;
    const bool *train;
    struct llmroof_gpu *gpus;
    struct llmroof_engine *engines;
    int *gi, *ei; /* per case: index of its GPU / engine copy, -1 for none */
    int only_g, only_e; /* restrict the loss to the rows of one GPU / engine (-1: no restriction) */
    bool only_prefill;  /* restrict it to the prefill class (an engine's compute_scale) */
    int ngpus;
};

/* Mean |log ratio| over the training rows; a parameter of GPU k or engine k moves only that
 * GPU's or engine's rows, so its scan sums those alone (same minimiser, a fraction of the work). */
static double joint_loss(void *v)
{
    struct joint *j = v;
    double sum = 0;
    long k = 0;
    for (size_t i = 0; i < j->n; i++) {
        struct val_case *c = &j->cases[i];
        /* serving rows are predicted, not fitted: a simulation per loss evaluation is too slow */
        if (!c->mapped || !j->train[i] || c->serving || (j->only_g >= 0 && j->gi[i] != j->only_g) ||
            (j->only_e >= 0 && j->ei[i] != j->only_e) ||
            (j->only_prefill && val_metric_class(c->metric) != VAL_CLASS_PREFILL))
            continue;
        if (val_predict(c, &j->gpus[j->gi[i]], j->ei[i] >= 0 ? &j->engines[j->ei[i]] : NULL, NULL) != LLMROOF_OK)
            continue;
        sum += fabs(log(c->predicted / c->measured));
        k++;
    }
    return k ? sum / (double)k : 0;
}

struct shared_overlap {
    struct joint *j;
    double x;
};

static double overlap_loss(void *v)
{
    struct shared_overlap *s = v;
    for (int k = 0; k < s->j->ngpus; k++)
        s->j->gpus[k].overlap = s->x;
    return joint_loss(s->j);
}

int val_fit_all(struct val_case *cases, size_t n, const bool *train, struct llmroof_gpu *gpus, int ngpus,
                struct llmroof_engine *engines, int nengines, double *loss_before, double *loss_after,
                struct llmroof_err *err)
{
    int *gi = malloc(sizeof(int) * (n ? n : 1)), *ei = malloc(sizeof(int) * (n ? n : 1));
    int rc = LLMROOF_OK;
    if (!gi || !ei) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        gi[i] = ei[i] = -1;
        if (!cases[i].mapped)
            continue;
        for (int k = 0; k < ngpus; k++)
            if (strcmp(gpus[k].id, cases[i].gpu->id) == 0)
                gi[i] = k;
        for (int k = 0; k < nengines && cases[i].engine; k++)
            if (strcmp(engines[k].id, cases[i].engine->id) == 0)
                ei[i] = k;
        if (gi[i] < 0) {
            rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "GPU '%s' has no copy to fit", cases[i].gpu->id);
            goto out;
        }
    }
    struct joint j = { cases, n, train, gpus, engines, gi, ei, -1, -1, false, ngpus };
    *loss_before = joint_loss(&j);
    /* a GPU whose training rows all come from one engine cannot be told apart from that
     * engine: its hardware values stay as catalogued and the engine absorbs the difference */
    bool *fit_gpu = calloc((size_t)ngpus + 1, sizeof *fit_gpu);
    if (!fit_gpu) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    for (int k = 0; k < ngpus; k++) {
        int first = -2;
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].mapped || !train[i] || gi[i] != k)
                continue;
            if (first == -2)
                first = ei[i];
            else if (ei[i] != first)
                fit_gpu[k] = true;
        }
    }
    /* first_token_s is a time added to every first token: only rows that measure the first token
     * (the prefill class) tell it from the per-step time, which an end-to-end time sums with it; an
     * engine without such a row keeps its prior (fitting it to e2e rows alone ran it to a bound
     * on one fold and near 0 on the next). compute_scale, the engine's kernels' share of the GPU's
     * compute rate, is fitted on those rows alone: a prefill's time is its compute term, while an
     * end-to-end or decode time sums it with per-step costs and memory streams and, for "the most
     * that fits" rows, a batch llmroof had to assume. Fitted on every row, TensorRT-LLM's scale
     * went to its 0.7 floor on the QServe README's end-to-end rows and its held-out TTFT on an
     * RTX 4090 read +43% where the prior gives +2% (docs/validation.md, session 29). */
    bool *ttft_rows = calloc((size_t)nengines + 1, sizeof *ttft_rows);
    if (!ttft_rows) {
        free(fit_gpu);
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (cases[i].mapped && train[i] && !cases[i].serving && ei[i] >= 0 &&
            val_metric_class(cases[i].metric) == VAL_CLASS_PREFILL) /* rows the loss reads */
            ttft_rows[ei[i]] = true;
    /* the GPU's own step overhead stays at its catalog value: engines carry the rest */
    for (int round = 0; round < VAL_FIT_ROUNDS; round++) {
        for (int k = 0; k < ngpus; k++) {
            j.only_g = k;
            j.only_e = -1;
            for (int p = 1; p < 3 && fit_gpu[k]; p++) /* compute stays at its measured prior (MAMF);
                                                        the link latency is the engine's to explain */
                if (identifiable(val_gpu_param(&gpus[k], p), val_gpu_lo[p], val_gpu_hi[p], joint_loss, &j))
                    scan(val_gpu_param(&gpus[k], p), val_gpu_lo[p], val_gpu_hi[p], joint_loss, &j, joint_loss(&j));
        }
        for (int k = 0; k < nengines; k++) {
            j.only_g = -1;
            j.only_e = k;
            for (int p = 0; p < 4; p++) {
                j.only_prefill = p == 2;
                if (((p != 1 && p != 2) || ttft_rows[k]) &&
                    identifiable(val_eng_param(&engines[k], p), val_eng_lo[p], val_eng_hi[p], joint_loss, &j))
                    scan(val_eng_param(&engines[k], p), val_eng_lo[p], val_eng_hi[p], joint_loss, &j, joint_loss(&j));
            }
            j.only_prefill = false;
        }
    }
    j.only_g = j.only_e = -1;
    if (ngpus > 0) {
        /* one overlap share for every GPU: how much of the shorter roofline term pipelining fails
         * to hide is a property of how kernels stream tiles, not of one card (docs/model.md) */
        struct shared_overlap so = { &j, gpus[0].overlap };
        for (int round = 0; round < 2; round++)
            if (identifiable(&so.x, 0.0, VAL_OVERLAP_HI, overlap_loss, &so))
                scan(&so.x, 0.0, VAL_OVERLAP_HI, overlap_loss, &so, overlap_loss(&so));
        for (int k = 0; k < ngpus; k++)
            gpus[k].overlap = so.x;
    }
    *loss_after = joint_loss(&j);
    free(fit_gpu);
    free(ttft_rows);
out:
    free(gi);
    free(ei);
    return rc;
}
