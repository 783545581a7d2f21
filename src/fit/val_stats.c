/* val_stats.c - error statistics and uncertainty bands of validated cases (see fit/validate.h) */
#include "fit/validate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, long n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    double pos = q * (double)(n - 1);
    long lo = (long)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

struct llmroof_band val_band_of(double *ratios, long n)
{
    struct llmroof_band b = { false, 0.0, 0.0, 0 };
    if (n < 2)
        return b;
    b.present = true;
    b.n = n;
    b.low = quantile(ratios, n, 0.1);
    b.high = quantile(ratios, n, 0.9);
    return b;
}

struct val_stats val_stats_errs(double *abs_err, double *err, long n)
{
    struct val_stats s = { 0 };
    s.n = n;
    if (n) {
        s.median_abs = quantile(abs_err, n, 0.5);
        s.p90_abs = quantile(abs_err, n, 0.9);
        s.bias = quantile(err, n, 0.5);
    }
    return s;
}

struct val_stats val_stats_of(const struct val_case *cases, size_t n,
                              bool (*keep)(const struct val_case *c, const void *ctx), const void *ctx)
{
    struct val_stats s = { 0 };
    double *a = malloc(sizeof(double) * (n ? n : 1)), *b = malloc(sizeof(double) * (n ? n : 1));
    if (!a || !b) {
        free(a);
        free(b);
        return s;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped || (keep && !keep(&cases[i], ctx)))
            continue;
        a[s.n] = fabs(cases[i].err);
        b[s.n++] = cases[i].err;
    }
    s = val_stats_errs(a, b, s.n);
    free(a);
    free(b);
    return s;
}

double val_latency_ratio(const struct val_case *c)
{
    bool rate = c->metric == VAL_DECODE_TOK_S_PER_SEQ || c->metric == VAL_DECODE_TOK_S_TOTAL ||
                c->metric == VAL_PREFILL_TOK_S || c->metric == VAL_THROUGHPUT_OUT_TOK_S ||
                c->metric == VAL_SERVING_THROUGHPUT_OUT_TOK_S;
    return rate ? c->predicted / c->measured : c->measured / c->predicted;
}

void val_bands(const struct val_case *cases, size_t n, struct llmroof_uncertainty *out)
{
    memset(out, 0, sizeof *out);
    struct llmroof_band *b[3] = { &out->tpot, &out->ttft, &out->e2e }; /* decode, prefill, e2e */
    double *v = malloc(sizeof(double) * (n ? n : 1));
    if (!v)
        return;
    for (int cls = 0; cls < 3; cls++) {
        long k = 0;
        for (size_t i = 0; i < n; i++)
            if (cases[i].mapped && (int)val_metric_class(cases[i].metric) == cls)
                v[k++] = val_latency_ratio(&cases[i]);
        *b[cls] = val_band_of(v, k);
    }
    free(v);
}
