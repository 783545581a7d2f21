/* opval.h - llmroof's operator times against kernel measurements.
 *
 * bench/gpu/measure.py times single operators (one layer's GEMMs, attention, norms) on a
 * real GPU and writes one CSV row per kernel and size. This module reads those rows and
 * computes the roofline time of the same operator instance, so `llmroof validate --ops`
 * can show operator by operator where the roofline holds and where efficiency falls
 * below its asymptote (small GEMMs, short attention). Method: docs/validation.md. */
#ifndef LLMROOF_OPVAL_H
#define LLMROOF_OPVAL_H

#include <stddef.h>

#include "data/catalog.h"
#include "model/ops.h"
#include "model/roofline.h"
#include "fit/validate.h"

/* One measured kernel. Columns: op, tokens, batch, context, dtype, measured_s (required);
 * model, tp (optional: empty or absent means the CLI's --model / --tp). */
struct opval_row {
    char model[VAL_TEXT];       /* catalog id, "" = not given */
    int tp;                     /* tensor-parallel slice the shapes come from, 0 = not given */
    enum llmroof_opkind op;     /* a local operator (no collectives) */
    long tokens;                /* tokens in the kernel (GEMM rows; B*L for prefill attention) */
    long batch;                 /* sequences */
    long context;               /* keys per sequence for decode attention, 0 otherwise */
    enum llmroof_dtype dtype;   /* weights and compute */
    double measured_s;          /* median kernel time, s */
    long line;                  /* 1-based line in the file */
};

/* Parses the per-operator CSV. Caller frees *rows. At most 1,000,000 rows. */
int opval_parse_csv(const char *text, size_t len, const char *fname, struct opval_row **rows, size_t *n,
                    struct llmroof_err *err);

struct opval_pred {
    double predicted_s;        /* roofline time of one instance (one layer), s */
    double compute_s;          /* its compute term: flops / (peak * compute_eff), s */
    double memory_s;           /* its memory term: bytes / (bandwidth * memory_eff), s */
    enum llmroof_bound bound;  /* the larger term */
    double flops, bytes;       /* per instance on one rank */
    double achieved_flops_frac;/* flops / (measured_s * dense peak): the compute efficiency measured */
    double achieved_bw_frac;   /* bytes / (measured_s * peak bandwidth): the memory efficiency measured */
    bool attention;            /* an attention kernel: its own efficiency family, not the GEMMs' asymptotes */
};

/* Roofline time of row r's operator for model m sliced at TP `tp` on g. Fails (EINPUT,
 * message naming the row's line) when the op is absent from the model (a router on a dense
 * model), TP does not fit the model, or the GPU lacks the dtype. */
int opval_predict(const struct opval_row *r, const struct llmroof_model *m, int tp, const struct llmroof_gpu *g,
                  const struct llmroof_effs *eff, const char *fname, struct opval_pred *out,
                  struct llmroof_err *err);

#endif
