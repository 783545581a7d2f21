/* validate.h - llmroof against published measurements: read rows in the format of
 * data/measurements.csv, map them to catalog entries, predict each row's metric,
 * summarise the errors, and fit a GPU's efficiencies to measurements (calibration).
 * Method: docs/validation.md. */
#ifndef LLMROOF_VALIDATE_H
#define LLMROOF_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "data/catalog.h"
#include "model/estimate.h"

enum val_metric {
    VAL_TPOT_MS, VAL_TTFT_MS, VAL_DECODE_TOK_S_PER_SEQ, VAL_DECODE_TOK_S_TOTAL, VAL_PREFILL_TOK_S,
    VAL_E2E_LATENCY_MS, VAL_THROUGHPUT_OUT_TOK_S, VAL_SERVING_THROUGHPUT_OUT_TOK_S, VAL_METRIC_COUNT
};
/* serving throughput is in the e2e class; a row measured under a load is `serving` (val_case) */
enum val_class { VAL_CLASS_DECODE, VAL_CLASS_PREFILL, VAL_CLASS_E2E };

const char *val_metric_name(enum val_metric m);
enum val_class val_metric_class(enum val_metric m);
const char *val_class_name(enum val_class c);

#define VAL_TEXT 128

/* One CSV row, as written (strings kept for mapping and messages). */
struct val_row {
    char id[32], model[VAL_TEXT], gpu[VAL_TEXT], weight_dtype[VAL_TEXT], kv_dtype[VAL_TEXT], framework[VAL_TEXT];
    char num_gpus[32], tp[VAL_TEXT], batch[VAL_TEXT], input_len[VAL_TEXT], output_len[VAL_TEXT], metric[64], value[64];
    char source[VAL_TEXT]; /* the publication (optional column; its first word keys --cv source) */
    char notes[VAL_TEXT];  /* the notes column's first 127 bytes (the load of a serving row) */
    long line; /* 1-based line of the row in the file */
    bool source_column; /* the file has a source column (the reserved sources need it) */
};

/* The publication a row comes from: the first word of its source column without "https://"
 * ("github.com/zeux/calm"), or its framework when the file has no source column. */
void val_source_key(const struct val_row *r, char *out, size_t cap);
/* The publication a source key names, as the folds compare them: a file or folder of a GitHub
 * repository (github.com/O/R/blob/..., github.com/O/R, or O/R as a source's first word) is the
 * repository O/R, so that one page keyed two ways is one publication (LMDeploy's benchmark page:
 * "InternLM/lmdeploy" in the static file, "github.com/InternLM/lmdeploy/blob/main/docs/..." in the
 * serving file, had been two folds, a review); an issue, pull request or discussion stays its own. */
void val_publication(const char *key, char *out, size_t cap);

/* One RFC 4180 record (quoted fields, doubled quotes, CRLF) from text[*pos..len): at most
 * VAL_MAX_FIELDS fields, each truncated to VAL_TEXT - 1 bytes (bit i of *over set when field i
 * was cut: val_csv_read refuses a cut column it reads); *line counts lines for messages.
 * Shared by every CSV reader of measurements (this module, opval.c). */
#define VAL_MAX_FIELDS 40 /* at most 64: *over holds a bit a field */
int val_csv_record(const char *t, size_t len, size_t *pos, long *line, char f[][VAL_TEXT], int *nf,
                   uint64_t *over, const char *fname, struct llmroof_err *err);

/* LLMROOF_EINPUT naming the later line where two of rows[0..n) share an id (id_of, line_of) */
int val_ids_unique(const char *fname, size_t n, const char *(*id_of)(const void *rows, size_t i),
                   long (*line_of)(const void *rows, size_t i), const void *rows, struct llmroof_err *err);

/* Reads a CSV with a header line (UTF-8 checked): finds the columns `names` - the first
 * `nrequired` must be present, the others give col[k] = -1 when absent - and calls `row` for
 * every non-empty record with its fields, the column map and the record's first line. A
 * record that does not reach the last column found is an error. Shared by the readers of
 * measurements (val_parse_csv) and kernel times (opval_parse_csv). */
typedef int (*val_csv_row_fn)(void *ctx, char f[][VAL_TEXT], const int *col, long line, struct llmroof_err *err);
int val_csv_read(const char *text, size_t len, const char *fname, const char *const *names, int ncols, int nrequired,
                 val_csv_row_fn row, void *ctx, struct llmroof_err *err);
/* Makes room for row n of an array of `elem`-byte rows, doubling; at most 1,000,000 rows. */
int val_csv_reserve(void **rows, size_t *cap, size_t n, size_t elem, const char *fname, struct llmroof_err *err);

/* Parses CSV text (RFC 4180: quoted fields, doubled quotes, CRLF) with a header naming at least
 * id, model, gpu, num_gpus, tp, weight_dtype, kv_dtype, batch, input_len, output_len, metric, value
 * (framework optional). Caller frees *rows. At most 1,000,000 rows. */
int val_parse_csv(const char *text, size_t len, const char *fname, struct val_row **rows, size_t *n,
                  struct llmroof_err *err);

/* A row mapped to the model. */
struct val_case {
    const struct val_row *row;
    bool mapped;                     /* false: see reason */
    char reason[600];
    char assumptions[256];           /* what was assumed to map it ("prompt 300 assumed") */
    const struct llmroof_model *model;
    const struct llmroof_gpu *gpu;
    const struct llmroof_engine *engine; /* the row's framework as an engine profile, or NULL */
    int tp;
    bool layer_split;                /* several GPUs without TP (llama.cpp): modelled as one GPU */
    struct llmroof_dtypes dt;
    long batch, prompt, output;
    enum val_metric metric;
    double measured;                 /* in the metric's unit */
    double predicted;                /* in the metric's unit, when mapped */
    double err;                      /* in time: predicted / measured latency - 1 (rates inverted);
                                        > 0 means llmroof predicts slower than measured */
    bool serving;                    /* measured under a load (batch "dynamic"): predicted by the simulator */
    long concurrency;                /* serving: users of a closed loop; 0 = every request at once */
    long requests;                   /* serving: requests in the run */
    bool median;                     /* serving: the row states a median (else a mean) */
    double spread;                   /* serving: lengths drawn within +-spread of the stated ones, as
                                        the notes say "(+-15%)" (vLLM's benchmark random-range-ratio);
                                        0 = fixed lengths */
};

void val_map_row(const struct llmroof_catalog *cat, const struct llmroof_valmap *map, const struct val_row *row,
                 struct val_case *out);

/* Predicts a mapped case with the efficiencies of GPU g and engine e (NULL: the case's own). */
int val_predict(struct val_case *c, const struct llmroof_gpu *g, const struct llmroof_engine *e,
                struct llmroof_err *err);

/* measured / predicted latency (rates inverted): > 1 when the real system was slower */
double val_latency_ratio(const struct val_case *c);

/* The 10th and 90th percentiles of val_latency_ratio per metric class (fewer than 2 rows:
 * absent): the uncertainty band of llmroof's latencies. */
void val_bands(const struct val_case *cases, size_t n, struct llmroof_uncertainty *out);

struct val_stats {
    long n;
    double median_abs;   /* median of |err| */
    double p90_abs;      /* 90th percentile of |err| */
    double bias;         /* median of err: > 0 means llmroof predicts slower than measured */
};

/* Over mapped cases for which keep(case, ctx) is true (keep NULL: all). */
struct val_stats val_stats_of(const struct val_case *cases, size_t n,
                              bool (*keep)(const struct val_case *c, const void *ctx), const void *ctx);

/* The statistics of n errors given twice, as |err| in abs_err and as err (both sorted in place):
 * the one computation behind val_stats_of and srv_stats. */
struct val_stats val_stats_errs(double *abs_err, double *err, long n);

/* A band from n measured / predicted ratios (sorted in place): their 10th and 90th percentiles;
 * absent below 2 ratios. The one computation behind val_bands and srv_bands. */
struct llmroof_band val_band_of(double *ratios, long n);

/* The physical bounds a GPU's calibration keeps its parameters within (val_fit.c gives their
 * sources): 0 compute_eff, 1 memory_eff, 2 comm_eff, 3 step_overhead_s, 4 link_latency_s */
extern const double val_gpu_lo[5], val_gpu_hi[5];

/* Fits compute, memory and communication efficiency and the per-step overhead of `gpu` to the
 * mapped cases on that GPU (their engines as mapped) by minimising the mean
 * |log(predicted / measured)|, coordinate by coordinate, within physical bounds. A parameter the
 * cases do not constrain (no prefill rows: compute; no TP > 1 rows: comm) keeps its value. */
struct val_fit {
    struct llmroof_effs before, after;
    bool fitted_compute, fitted_memory, fitted_comm, fitted_overhead;
    double loss_before, loss_after;  /* mean |log ratio| */
    long n;                          /* cases used */
};
int val_calibrate(struct val_case *cases, size_t n, const struct llmroof_gpu *gpu, struct val_fit *out,
                  struct llmroof_err *err);

/* Joint fit of every GPU's compute, memory and communication efficiency and collective latency,
 * and every engine's step overhead, first-token overhead and compute scale, on the cases with
 * train[i] true. A GPU whose training rows all come from one engine keeps its values.
 * gpus[] and engines[] are modifiable copies of the catalog entries the cases point at (matched
 * by id); they receive the fitted values. Returns the mean |log ratio| before and after. */
int val_fit_all(struct val_case *cases, size_t n, const bool *train, struct llmroof_gpu *gpus, int ngpus,
                struct llmroof_engine *engines, int nengines, double *loss_before, double *loss_after,
                struct llmroof_err *err);

/* Leave-one-group-out cross-validation (docs/validation.md "Cross-validation"): for every group of
 * mapped cases - a publication (val_source_key) or a GPU - each GPU's and engine's parameters start
 * from their catalog values (physical priors) and are fitted by val_fit_all on the other groups'
 * rows only; the group's rows are then predicted with those values. On return every mapped case's
 * `predicted` and `err` are its held-out values. An engine or GPU seen only in the held-out group
 * keeps its prior: that is the transfer the check measures. */
enum val_cv_by { VAL_CV_NONE, VAL_CV_SOURCE, VAL_CV_GPU };
struct val_cv_report {
    int folds;            /* groups held out */
    char bounds[4096];    /* parameters that ended a fold at a bound, with the number of folds */
};
int val_cross_validate(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                       struct llmroof_err *err);
/* The same, calling progress(ctx, folds done, folds) at the start, as folds finish and once at
 * the end (issue 24: the command line shows it on a terminal), on the caller's thread; progress
 * may be NULL. The folds run on `threads` threads (base/par.h; 0 or 1: the caller's alone), each
 * fitting its own copy of the cases: the report is the same at any count. */
int val_cross_validate_progress(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                                void (*progress)(void *ctx, long done, long total), void *progress_ctx,
                                int threads, struct llmroof_err *err);

#endif
