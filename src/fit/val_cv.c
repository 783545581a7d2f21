/* val_cv.c - leave-one-group-out cross-validation (see fit/validate.h) */
#include "fit/validate.h"
#include "fit/val_internal.h"
#include "base/par.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Cross-validation                                                         */
/* ------------------------------------------------------------------------ */

static void cv_key(const struct val_case *c, enum val_cv_by by, char *out, size_t cap)
{
    if (by == VAL_CV_GPU) {
        snprintf(out, cap, "%s", c->gpu->id);
    } else {
        char k[VAL_TEXT];
        val_source_key(c->row, k, sizeof k);
        val_publication(k, out, cap);
    }
}

#define CV_MAX_PARAMS 514
/* the slots of the overlap share every GPU shares (val_fit_all fits it once, after the others), at
 * its lower and its upper bound: after the GPUs' 256 and the engines' 256 */
#define CV_OVERLAP_LO 512
#define CV_OVERLAP_HI 513

int val_cross_validate(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                       struct llmroof_err *err)
{
    return val_cross_validate_progress(cases, n, by, out, NULL, NULL, 1, err);
}

/* One fold's results, written by the thread that ran it (par_for): its status and which
 * parameters it left at a bound, combined in fold order afterwards so that the report is the same
 * at any thread count. */
struct cv_fold {
    int rc;
    struct llmroof_err err;
    bool ran;
    unsigned char hit[CV_MAX_PARAMS]; /* the parameter moved and ended at a bound */
    unsigned char hi[CV_MAX_PARAMS];  /* at its upper bound */
};

struct cv_run {
    const struct val_case *cases; /* read only: each fold fits a copy (val_fit_all re-predicts its
                                     training rows in place) */
    size_t n;
    char (*keys)[VAL_TEXT], (*ck)[VAL_TEXT];
    struct llmroof_gpu *g0;       /* the priors, read only (val_gpu_param takes them unqualified) */
    struct llmroof_engine *e0;
    int ng, ne;
    double *hp, *he; /* held-out values: each row is held out by one fold alone */
    struct cv_fold *folds;
};

static void cv_fold_run(void *ctx, int f)
{
    const struct cv_run *r = ctx;
    struct cv_fold *o = &r->folds[f];
    const size_t n = r->n;
    struct val_case *cs = malloc(sizeof *cs * (n ? n : 1));
    bool *train = calloc(n ? n : 1, sizeof *train);
    struct llmroof_gpu *gf = calloc(64, sizeof *gf);
    struct llmroof_engine *ef = calloc(64, sizeof *ef);
    if (!cs || !train || !gf || !ef) {
        o->rc = llmroof_err_set(&o->err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    memcpy(cs, r->cases, sizeof *cs * n);
    for (size_t i = 0; i < n; i++)
        train[i] = cs[i].mapped && strcmp(r->ck[i], r->keys[f]) != 0;
    memcpy(gf, r->g0, sizeof *gf * (size_t)(r->ng ? r->ng : 1));
    memcpy(ef, r->e0, sizeof *ef * (size_t)(r->ne ? r->ne : 1));
    double l0, l1;
    if ((o->rc = val_fit_all(cs, n, train, gf, r->ng, ef, r->ne, &l0, &l1, &o->err)))
        goto out;
    for (size_t i = 0; i < n; i++) {
        if (!cs[i].mapped || train[i])
            continue;
        const struct llmroof_gpu *g = NULL;
        const struct llmroof_engine *e = NULL;
        for (int k = 0; k < r->ng; k++)
            if (strcmp(gf[k].id, cs[i].gpu->id) == 0)
                g = &gf[k];
        for (int k = 0; k < r->ne && cs[i].engine; k++)
            if (strcmp(ef[k].id, cs[i].engine->id) == 0)
                e = &ef[k];
        val_predict(&cs[i], g, e, NULL);
        r->hp[i] = cs[i].predicted;
        r->he[i] = cs[i].err;
    }
    /* parameters that moved and ended at a bound */
    for (int k = 0; k < r->ng; k++)
        for (int p = 0; p < 3; p++) {
            const double v = *val_gpu_param(&gf[k], p), v0 = *val_gpu_param(&r->g0[k], p);
            const int idx = k * 8 + p;
            if (v != v0 && (v <= val_gpu_lo[p] + 1e-12 || v >= val_gpu_hi[p] - 1e-12) && idx < CV_MAX_PARAMS) {
                o->hit[idx] = 1;
                o->hi[idx] = v >= val_gpu_hi[p] - 1e-12;
            }
        }
    /* the shared overlap share: scanned in every fold over its whole range, so ending at either end
     * says the training rows pushed it there (it sits at its catalog 0 only where they did) */
    if (r->ng > 0 && gf[0].overlap <= 1e-12)
        o->hit[CV_OVERLAP_LO] = 1;
    if (r->ng > 0 && gf[0].overlap >= VAL_OVERLAP_HI - 1e-12)
        o->hit[CV_OVERLAP_HI] = 1;
    for (int k = 0; k < r->ne; k++)
        for (int p = 0; p < 4; p++) {
            const double v = *val_eng_param(&ef[k], p), v0 = *val_eng_param(&r->e0[k], p);
            const int idx = 64 * 8 + k * 4 + p - 256; /* engines after the GPUs' 256 slots */
            if (v != v0 && (v <= val_eng_lo[p] + 1e-15 || v >= val_eng_hi[p] - 1e-15) && idx < CV_MAX_PARAMS) {
                o->hit[idx] = 1;
                o->hi[idx] = v >= val_eng_hi[p] - 1e-15;
            }
        }
out:
    free(cs);
    free(train);
    free(gf);
    free(ef);
    o->ran = true;
}

/* par_for's tick: the caller's progress, on its own thread */
struct cv_tick {
    void (*progress)(void *ctx, long done, long total);
    void *ctx;
    int reported; /* the folds reported done (par_for ticks every millisecond while it waits) */
};

static int cv_tick(void *ctx, int done, int n)
{
    struct cv_tick *t = ctx;
    if (t->progress && done > t->reported)
        t->progress(t->ctx, done, n);
    t->reported = done > t->reported ? done : t->reported;
    return 0;
}

int val_cross_validate_progress(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                                void (*progress)(void *ctx, long done, long total), void *progress_ctx,
                                int threads, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    int ng = 0, ne = 0, nk = 0, rc = LLMROOF_OK;
    struct llmroof_gpu *g0 = calloc(64, sizeof *g0);
    struct llmroof_engine *e0 = calloc(64, sizeof *e0);
    char (*keys)[VAL_TEXT] = calloc(n ? n : 1, sizeof *keys), (*ck)[VAL_TEXT] = calloc(n ? n : 1, sizeof *ck);
    int *hits = calloc(CV_MAX_PARAMS, sizeof *hits); /* folds in which parameter p ended at a bound */
    /* the fit re-predicts its training rows: held-out values are kept apart until the end */
    double *hp = calloc(n ? n : 1, sizeof *hp), *he = calloc(n ? n : 1, sizeof *he);
    bool *at_hi = calloc(CV_MAX_PARAMS, sizeof *at_hi);
    struct cv_fold *folds = calloc(n ? n : 1, sizeof *folds);
    if (!g0 || !e0 || !keys || !ck || !hits || !at_hi || !hp || !he || !folds) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        cv_key(&cases[i], by, ck[i], sizeof ck[i]);
        bool have = false;
        for (int k = 0; k < nk && !have; k++)
            have = strcmp(keys[k], ck[i]) == 0;
        if (!have)
            snprintf(keys[nk++], sizeof keys[0], "%s", ck[i]);
        have = false;
        for (int k = 0; k < ng && !have; k++)
            have = strcmp(g0[k].id, cases[i].gpu->id) == 0;
        if (!have && ng < 64)
            g0[ng++] = *cases[i].gpu;
        have = !cases[i].engine;
        for (int k = 0; k < ne && !have; k++)
            have = strcmp(e0[k].id, cases[i].engine->id) == 0;
        if (!have && ne < 64)
            e0[ne++] = *cases[i].engine;
    }
    val_cv_priors(g0, ng); /* no fold starts from a fit to the rows it predicts */
    /* the folds on `threads` threads, each on its own copy of the cases; their results combined in
     * fold order, as one thread would have met them (the first failing fold's error, the last
     * fold's side of a bound) */
    const struct cv_run run = { cases, n, keys, ck, g0, e0, ng, ne, hp, he, folds };
    struct cv_tick tick = { progress, progress_ctx, 0 };
    if (progress && nk > 0)
        progress(progress_ctx, 0, nk);
    par_for(nk, threads, cv_fold_run, (void *)&run, cv_tick, (void *)&tick);
    for (int f = 0; f < nk; f++) {
        if (folds[f].rc) {
            rc = folds[f].rc;
            *err = folds[f].err;
            break;
        }
        for (int idx = 0; idx < CV_MAX_PARAMS; idx++)
            if (folds[f].hit[idx]) {
                hits[idx]++;
                at_hi[idx] = folds[f].hi[idx];
            }
    }
    out->folds = nk;
    if (progress && rc == LLMROOF_OK)
        progress(progress_ctx, nk, nk);
    for (size_t i = 0; i < n && rc == LLMROOF_OK; i++)
        if (cases[i].mapped) {
            cases[i].predicted = hp[i];
            cases[i].err = he[i];
        }
    for (int k = 0; k < ng; k++)
        for (int p = 0; p < 3; p++) {
            int idx = k * 8 + p;
            size_t len = strlen(out->bounds);
            if (idx < CV_MAX_PARAMS && hits[idx])
                snprintf(out->bounds + len, sizeof out->bounds - len, "%s%s %s at its %s bound %g in %d of %d folds",
                         len ? "; " : "", g0[k].id, val_gpu_param_names[p], at_hi[idx] ? "upper" : "lower",
                         at_hi[idx] ? val_gpu_hi[p] : val_gpu_lo[p], hits[idx], nk);
        }
    for (int k = 0; k < ne; k++)
        for (int p = 0; p < 4; p++) {
            int idx = 64 * 8 + k * 4 + p - 256;
            size_t len = strlen(out->bounds);
            if (idx < CV_MAX_PARAMS && hits[idx])
                snprintf(out->bounds + len, sizeof out->bounds - len, "%s%s %s at its %s bound %g in %d of %d folds",
                         len ? "; " : "", e0[k].id, val_eng_param_names[p], at_hi[idx] ? "upper" : "lower",
                         at_hi[idx] ? val_eng_hi[p] : val_eng_lo[p], hits[idx], nk);
        }
    for (int s = CV_OVERLAP_LO; s <= CV_OVERLAP_HI; s++)
        if (hits[s]) {
            size_t len = strlen(out->bounds);
            snprintf(out->bounds + len, sizeof out->bounds - len,
                     "%sthe overlap share all GPUs share at its %s bound %g in %d of %d folds", len ? "; " : "",
                     s == CV_OVERLAP_HI ? "upper" : "lower", s == CV_OVERLAP_HI ? VAL_OVERLAP_HI : 0.0, hits[s], nk);
        }
done:
    free(g0);
    free(e0);
    free(keys);
    free(ck);
    free(hits);
    free(at_hi);
    free(hp);
    free(he);
    free(folds);
    return rc;
}
