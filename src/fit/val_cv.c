/* val_cv.c - leave-one-group-out cross-validation (see fit/validate.h) */
#include "fit/validate.h"
#include "fit/val_internal.h"

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
    if (by == VAL_CV_GPU)
        snprintf(out, cap, "%s", c->gpu->id);
    else
        val_source_key(c->row, out, cap);
}

#define CV_MAX_PARAMS 512

int val_cross_validate(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                       struct llmroof_err *err)
{
    return val_cross_validate_progress(cases, n, by, out, NULL, NULL, err);
}

int val_cross_validate_progress(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                                void (*progress)(void *ctx, long done, long total), void *progress_ctx,
                                struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    int ng = 0, ne = 0, nk = 0, rc = LLMROOF_OK;
    struct llmroof_gpu *g0 = calloc(64, sizeof *g0), *gf = calloc(64, sizeof *gf);
    struct llmroof_engine *e0 = calloc(64, sizeof *e0), *ef = calloc(64, sizeof *ef);
    char (*keys)[VAL_TEXT] = calloc(n ? n : 1, sizeof *keys), (*ck)[VAL_TEXT] = calloc(n ? n : 1, sizeof *ck);
    bool *train = calloc(n ? n : 1, sizeof *train);
    int *hits = calloc(CV_MAX_PARAMS, sizeof *hits); /* folds in which parameter p ended at a bound */
    /* the fit re-predicts its training rows: held-out values are kept apart until the end */
    double *hp = calloc(n ? n : 1, sizeof *hp), *he = calloc(n ? n : 1, sizeof *he);
    bool *at_hi = calloc(CV_MAX_PARAMS, sizeof *at_hi);
    if (!g0 || !gf || !e0 || !ef || !keys || !ck || !train || !hits || !at_hi || !hp || !he) {
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
    for (int f = 0; f < nk && rc == LLMROOF_OK; f++) {
        if (progress)
            progress(progress_ctx, f, nk);
        for (size_t i = 0; i < n; i++)
            train[i] = cases[i].mapped && strcmp(ck[i], keys[f]) != 0;
        memcpy(gf, g0, sizeof *gf * (size_t)(ng ? ng : 1));
        memcpy(ef, e0, sizeof *ef * (size_t)(ne ? ne : 1));
        double l0, l1;
        if ((rc = val_fit_all(cases, n, train, gf, ng, ef, ne, &l0, &l1, err)))
            break;
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].mapped || train[i])
                continue;
            const struct llmroof_gpu *g = NULL;
            const struct llmroof_engine *e = NULL;
            for (int k = 0; k < ng; k++)
                if (strcmp(gf[k].id, cases[i].gpu->id) == 0)
                    g = &gf[k];
            for (int k = 0; k < ne && cases[i].engine; k++)
                if (strcmp(ef[k].id, cases[i].engine->id) == 0)
                    e = &ef[k];
            val_predict(&cases[i], g, e, NULL);
            hp[i] = cases[i].predicted;
            he[i] = cases[i].err;
        }
        /* parameters that moved and ended at a bound */
        for (int k = 0; k < ng; k++)
            for (int p = 0; p < 3; p++) {
                double v = *val_gpu_param(&gf[k], p), v0 = *val_gpu_param(&g0[k], p);
                int idx = k * 8 + p;
                if (v != v0 && (v <= val_gpu_lo[p] + 1e-12 || v >= val_gpu_hi[p] - 1e-12) && idx < CV_MAX_PARAMS) {
                    hits[idx]++;
                    at_hi[idx] = v >= val_gpu_hi[p] - 1e-12;
                }
            }
        for (int k = 0; k < ne; k++)
            for (int p = 0; p < 4; p++) {
                double v = *val_eng_param(&ef[k], p), v0 = *val_eng_param(&e0[k], p);
                int idx = 64 * 8 + k * 4 + p - 256; /* engines after the GPUs' 256 slots */
                if (v != v0 && (v <= val_eng_lo[p] + 1e-15 || v >= val_eng_hi[p] - 1e-15) && idx < CV_MAX_PARAMS) {
                    hits[idx]++;
                    at_hi[idx] = v >= val_eng_hi[p] - 1e-15;
                }
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
done:
    free(g0);
    free(gf);
    free(e0);
    free(ef);
    free(keys);
    free(ck);
    free(train);
    free(hits);
    free(at_hi);
    free(hp);
    free(he);
    return rc;
}
