/* servval_cv.c - serving rows held out by publication: refit without the row's source, then
 * predict it (see fit/servval.h; docs/validation.md). */
#include "fit/servval.h"
#include "fit/val_internal.h"
#include "base/par.h"
#include "serve/sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Held out by publication                                                  */
/* ------------------------------------------------------------------------ */

#define SRV_CV_MAX 64

/* One serving fold, run by par_for: the static rows' fit without the publication (its own copy of
 * them: val_fit_all re-predicts its training rows in place), then the publication's serving rows
 * simulated with it (keep), each row written by its own fold alone. */
struct srv_fold {
    bool *train; /* static rows it fits on */
    bool *keep;  /* serving rows it predicts */
    int rc;
    struct llmroof_err err;
};

struct srv_cv_run {
    struct srv_case *cases;
    size_t n;
    const struct val_case *st;
    size_t nst;
    const struct llmroof_gpu *g0;
    const struct llmroof_engine *e0;
    int ng, ne;
    struct srv_fold *folds;
    int sim_threads; /* threads for a fold's simulations: all of them when there is one fold */
};

static void srv_fold_run(void *ctx, int f)
{
    const struct srv_cv_run *r = ctx;
    struct srv_fold *o = &r->folds[f];
    struct val_case *st = malloc(sizeof *st * (r->nst ? r->nst : 1));
    struct llmroof_gpu *gf = calloc(SRV_CV_MAX, sizeof *gf);
    struct llmroof_engine *ef = calloc(SRV_CV_MAX, sizeof *ef);
    if (!st || !gf || !ef) {
        o->rc = llmroof_err_set(&o->err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    memcpy(st, r->st, sizeof *st * r->nst);
    memcpy(gf, r->g0, sizeof *gf * (size_t)(r->ng ? r->ng : 1));
    memcpy(ef, r->e0, sizeof *ef * (size_t)(r->ne ? r->ne : 1));
    double l0, l1;
    if ((o->rc = val_fit_all(st, r->nst, o->train, gf, r->ng, ef, r->ne, &l0, &l1, &o->err)))
        goto out;
    o->rc = srv_predict_jobs(r->cases, r->n, o->keep, gf, r->ng, ef, r->ne, r->sim_threads, &o->err);
out:
    free(st);
    free(gf);
    free(ef);
}

/* a serving row's publication as the folds compare it with the static rows' (val_publication) */
static void srv_fold_key(const struct srv_case *c, char *out, size_t cap)
{
    char k[VAL_TEXT];
    srv_source_key(c, k, sizeof k);
    val_publication(k, out, cap);
}

int srv_cross_validate(struct srv_case *cases, size_t n, struct val_case *st, size_t nst, int *folds,
                       int threads, struct llmroof_err *err)
{
    int rc = LLMROOF_OK, ng = 0, ne = 0, nf = 0;
    *folds = 0;
    struct llmroof_gpu *g0 = calloc(SRV_CV_MAX, sizeof *g0);
    struct llmroof_engine *e0 = calloc(SRV_CV_MAX, sizeof *e0);
    bool *done = calloc(n ? n : 1, sizeof *done);
    char (*skey)[VAL_TEXT] = calloc(nst ? nst : 1, sizeof *skey);
    struct srv_fold *fl = calloc(n ? n : 1, sizeof *fl); /* at most a fold per serving row */
    if (!g0 || !e0 || !done || !skey || !fl) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nst; i++) {
        if (!st[i].mapped)
            continue;
        char k0[VAL_TEXT];
        val_source_key(st[i].row, k0, sizeof k0);
        val_publication(k0, skey[i], sizeof skey[i]);
        bool have = false;
        for (int k = 0; k < ng && !have; k++)
            have = strcmp(g0[k].id, st[i].gpu->id) == 0;
        if (!have && ng < SRV_CV_MAX)
            g0[ng++] = *st[i].gpu;
        have = !st[i].engine;
        for (int k = 0; k < ne && !have; k++)
            have = strcmp(e0[k].id, st[i].engine->id) == 0;
        if (!have && ne < SRV_CV_MAX)
            e0[ne++] = *st[i].engine;
    }
    val_cv_priors(g0, ng); /* no fold starts from a fit to the rows it predicts */
    /* one fold per publication; publications without static rows share the fit on all of them.
     * The folds are laid out first, in the order of their first serving row, then run on
     * `threads` threads (base/par.h): the rows are the same at any count */
    bool have_all = false;
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped || done[i])
            continue;
        char key[VAL_TEXT], k2[VAL_TEXT];
        srv_fold_key(&cases[i], key, sizeof key);
        bool *train = calloc(nst ? nst : 1, sizeof *train), *keep = calloc(n ? n : 1, sizeof *keep);
        if (!train || !keep) {
            free(train);
            free(keep);
            rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
            goto out;
        }
        bool shares = false;
        for (size_t j = 0; j < nst; j++) {
            train[j] = st[j].mapped && strcmp(skey[j], key) != 0;
            shares |= st[j].mapped && !train[j];
        }
        for (size_t j = 0; j < n; j++) {
            if (!cases[j].mapped || done[j])
                continue;
            srv_fold_key(&cases[j], k2, sizeof k2);
            if (shares) {
                keep[j] = strcmp(k2, key) == 0;
            } else {
                /* every publication without static rows: the same training set */
                bool sh = false;
                for (size_t m = 0; m < nst && !sh; m++)
                    sh = st[m].mapped && strcmp(skey[m], k2) == 0;
                keep[j] = !sh;
            }
        }
        if (!shares && have_all) {
            free(train);
            free(keep);
            continue;
        }
        have_all |= !shares;
        for (size_t j = 0; j < n; j++)
            done[j] |= keep[j];
        fl[nf++] = (struct srv_fold){ train, keep, LLMROOF_OK, { 0 } };
    }
    /* one fold (the shipped data: no serving publication has static rows of its own) spreads its
     * simulations over the threads; several folds take a thread each */
    const struct srv_cv_run run = { cases, n, st, nst, g0, e0, ng, ne, fl, nf == 1 ? threads : 1 };
    par_for(nf, nf == 1 ? 1 : threads, srv_fold_run, (void *)&run, NULL, NULL);
    for (int f = 0; f < nf; f++) {
        if (fl[f].rc) { /* the first failing fold's error, as one thread meets it */
            rc = fl[f].rc;
            *err = fl[f].err;
            break;
        }
        (*folds)++;
    }
out:
    for (int f = 0; f < nf; f++) {
        free(fl[f].train);
        free(fl[f].keep);
    }
    free(fl);
    free(g0);
    free(e0);
    free(done);
    free(skey);
    return rc;
}
