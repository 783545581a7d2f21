/* report.h - the GPU x TP comparison of the background studies: per configuration the
 * memory fit, latencies, bounds, communication shares, operator time shares, TP scaling,
 * and observations computed from those numbers. Pure: no I/O. */
#ifndef LLMROOF_REPORT_H
#define LLMROOF_REPORT_H

#include <stdbool.h>

#include "model/estimate.h"
#include "model/memory.h"

#define REPORT_MAX_GPUS 64
#define REPORT_MAX_TPS 16
#define REPORT_MAX_ROWS (REPORT_MAX_GPUS * REPORT_MAX_TPS)
#define REPORT_MAX_OBS 32

/* Operator categories of the share tables (norm and final_norm fold into "norm"). */
enum report_cat {
    REPORT_QKV, REPORT_ATTENTION, REPORT_KV_WRITE, REPORT_O_PROJ, REPORT_FFN, REPORT_ROUTER, REPORT_NORM,
    REPORT_ALL_REDUCE, REPORT_ALL_TO_ALL, REPORT_PP_SEND, REPORT_LM_HEAD, REPORT_ALL_GATHER, REPORT_MLP_GATHER,
    REPORT_OVERHEAD,
    REPORT_CAT_COUNT
};
const char *report_cat_name(enum report_cat c);
struct llmroof_report;
/* Whether a report shows category c: router only for MoE models, all_to_all only with expert
 * parallelism, pp_send only with pipeline parallelism (so a TP-only report keeps its columns). */
bool report_cat_shown(const struct llmroof_report *r, enum report_cat c);

enum report_status {
    REPORT_OK,        /* estimated, fits */
    REPORT_NO_FIT,    /* estimated, but the weights or one sequence do not fit */
    REPORT_BAD_TP,    /* TP does not divide the heads, or the layout does not suit this TP: not estimated */
    REPORT_BAD_DTYPE, /* the GPU lacks the compute dtype: not estimated */
    REPORT_NO_ENGINE  /* the engine does not run on the GPU (CUDA-only on an AMD one) or not this layout (its
                         max_gpus): not estimated */
};

struct report_row {
    const struct llmroof_gpu *gpu;   /* catalog entry */
    int tp;                          /* tensor-parallel GPUs */
    int gpus;                        /* GPUs of one instance under the layout (tp x pp, or ep x pp) */
    enum report_status status;
    char reason[520];                /* why a row is not OK, "" otherwise */
    enum llmroof_dtype act;          /* the compute dtype this GPU runs (ckpt_gpu_dtypes: fp8 weights run
                                        W8A8 where the GPU has fp8, W8A16 elsewhere) */
    char compute[200];               /* as estimate's header says it (ckpt_compute_desc): "fp8 compute" */
    bool has_mem;                    /* mem is valid (TP divides the heads) */
    struct llmroof_memory mem;       /* at context prompt + output */
    bool has_est;                    /* est is valid (OK or NO_FIT) */
    struct llmroof_estimate est;
    double prefill_share[REPORT_CAT_COUNT]; /* fraction of TTFT per category, sums to 1 */
    double decode_share[REPORT_CAT_COUNT];  /* fraction of mean TPOT per category */
    bool has_scaling;                /* a smaller estimated TP of the same GPU exists */
    double tp_scaling_eff;           /* (TPOT_ref * GPUs_ref) / (TPOT * GPUs), ref = smallest estimated TP */
    int scaling_ref_tp;              /* TP of the reference row */
    double scaling_ref_tpot_s;       /* TPOT of the reference row, s */
};

struct report_input {
    const struct llmroof_model *model;
    const struct llmroof_gpu *gpus[REPORT_MAX_GPUS];
    int ngpus;
    int tps[REPORT_MAX_TPS];
    int ntps;
    struct llmroof_request req;
    struct llmroof_dtypes dt;
    bool weight_given, act_given;     /* --weight-dtype / --act-dtype given: fp8 weights without a
                                         compute dtype run W8A8 on each GPU with fp8 (ckpt_gpu_dtypes) */
    struct llmroof_eff_override eff;  /* applied to every GPU's catalog defaults */
    struct llmroof_mem_opts mem;
    struct llmroof_mem_opts gpu_mem[REPORT_MAX_GPUS][REPORT_MAX_TPS]; /* per GPU and TP of the lists:
                                       * mem with the engine profile's pool rules on it (its mem_util,
                                       * reserve, halved pool, budget, by TP); used where has_gpu_mem */
    bool has_gpu_mem;
    struct llmroof_layout layout;     /* --pp/--ep/--dp-attention applied with every TP (its tp unused);
                                       * all zero = TP only */
};

struct llmroof_report {
    const struct llmroof_model *model;
    bool has_bands;                     /* show low-high bands (--range) */
    struct llmroof_uncertainty bands;   /* from data/uncertainty.json */
    struct llmroof_request req;
    struct llmroof_dtypes dt;
    bool moe;                           /* the router column is meaningful */
    bool has_layout;                    /* a layout beyond TP was given: the header and a gpus column show it */
    struct llmroof_eff_override eff;    /* as given: the engine profile and host speed the header names */
    struct llmroof_layout layout;       /* as given (its tp unused) */
    struct report_row rows[REPORT_MAX_ROWS];
    int nrows;                          /* ngpus * ntps, GPU-major */
    char obs[REPORT_MAX_OBS][640];      /* observations, each with its figures */
    int nobs;
};

/* Thresholds of the observations, documented in docs/report.md. */
#define REPORT_SCALING_POOR 0.60  /* TP scaling efficiency below this: adding GPUs stops paying */
#define REPORT_COMM_HEAVY 0.30    /* communication share above this: communication-dominated */


int report_build(const struct report_input *in, struct llmroof_report *out, struct llmroof_err *err);

#endif
