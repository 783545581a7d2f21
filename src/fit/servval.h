/* servval.h - llmroof against published *serving* measurements (data/serving.csv): latency and
 * throughput under a stated load (a static batch, a closed loop of N users, a Poisson rate, every
 * request at once), predicted by the continuous-batching simulator with the setup a user would
 * choose for each row. The rows are read as published; how each one is set up in llmroof (model,
 * GPU, engine profile, layout, workload, load, metric conversion) is data/serving-map.csv, one row
 * per measurement, with the reason where a row cannot be expressed. Method: docs/validation.md,
 * "Serving rows". */
#ifndef LLMROOF_SERVVAL_H
#define LLMROOF_SERVVAL_H

#include <stdbool.h>
#include <stddef.h>

#include "data/catalog.h"
#include "fit/validate.h"
#include "serve/sim.h"
#include "serve/workload.h"

/* what a row measures, grouped as the summaries report it */
enum srv_class { SRV_CLASS_THROUGHPUT, SRV_CLASS_TTFT, SRV_CLASS_TPOT, SRV_CLASS_E2E, SRV_CLASS_SPEEDUP, SRV_CLASS_SLO,
                 SRV_CLASS_COUNT };
/* SRV_LOAD_SLO_CAPACITY: the best closed loop of load_lo..load_value users by goodput (requests within the
 * SLO per second), the "effective throughput" peak of a client sweep (DeepSpeed-FastGen's blog, section 4C) */
enum srv_load { SRV_LOAD_STATIC, SRV_LOAD_CONCURRENCY, SRV_LOAD_RATE, SRV_LOAD_OFFLINE, SRV_LOAD_SLO_CAPACITY,
                SRV_LOAD_COUNT };
enum srv_metric {
    SRV_TTFT,        /* ms, per request */
    SRV_TPOT,        /* ms, per request: (e2e - TTFT) / (output - 1) */
    SRV_E2E,         /* ms, per request */
    SRV_MAKESPAN,    /* ms, first arrival to last finish */
    SRV_REQ_S,       /* completed requests per second of the run */
    SRV_OUT_TOK_S,   /* output tokens per second */
    SRV_TOTAL_TOK_S, /* prompt + output tokens per second */
    SRV_PROMPT_TOK_S,/* prompt tokens per second */
    SRV_SLO_PCT,     /* % of requests within the TTFT and TPOT limits */
    SRV_SPEEDUP_TPUT,/* output tok/s of the row's setup over its baseline's (the map's `base`) */
    SRV_SPEEDUP_TPOT,/* mean TPOT of the baseline over the row's setup */
    SRV_SPEEDUP_E2E, /* mean e2e of the baseline over the row's setup */
    SRV_GOODPUT_REQ_S, /* requests within the TTFT and TPOT limits per second of the run */
    SRV_ITL,         /* ms, every gap between a request's consecutive streamed chunks, pooled
                        (ITL, TBT: vLLM's and SGLang's clients, Sarathi-Serve's TBT) */
    SRV_METRIC_COUNT
};
enum srv_stat { SRV_MEAN, SRV_P50, SRV_P90, SRV_P99 };

const char *srv_class_name(enum srv_class c);
const char *srv_load_name(enum srv_load l);
enum srv_class srv_metric_class(enum srv_metric m);
struct srv_case;
/* What llmroof compares the row with: the map's metric and statistic ("itl p99", "ttft mean"). */
void srv_compared(const struct srv_case *c, char *out, size_t n);

struct srv_case {
    char id[32];
    long line, map_line;       /* its lines in the serving file and in the map (0: none yet) */
    char source[VAL_TEXT];     /* the source column (its first word keys --cv source) */
    char framework[VAL_TEXT];
    char metric_text[64];      /* the measured metric as published */
    char note[256];            /* what the map assumed */
    char reason[256];          /* why the row is not predicted (mapped false) */
    bool mapped;
    double measured;           /* in the published unit */
    /* the setup */
    const struct llmroof_model *model;
    const struct llmroof_gpu *gpu;
    const struct llmroof_engine *engine; /* NULL: the GPU's efficiencies alone */
    struct llmroof_dtypes dt;
    int tp, ep, instances;     /* ep > 1: expert parallel (tp 1); instances: replicas behind a router */
    bool dp_attn;
    int moe_tp;                /* > 1: with dp_attn, the experts split by width over moe_tp GPUs (map column
                                  moe_tp; --moe-tp), tp the attention's per replica */
    bool disagg;               /* one prefill pool and one decode pool */
    int pre_n, pre_tp, dec_n, dec_tp;
    bool scaled_chat;          /* sharegpt: at the prompt/output means (0: the tokenizer's) */
    bool quantiles;            /* lognormal:... (median and P90 per dimension): prompt/output are the
                                * medians, the P90s and the cap below */
    long prompt_p90, output_p90, max_total;
    long prompt, output;       /* fixed lengths, or the means of the scaled distribution */
    bool chat;                 /* the simulator's chat (ShareGPT-like) distribution as it is */
    bool random;               /* random:P:O[:R]: uniform lengths up to prompt/output (workload.c) */
    double range_ratio;        /* its R: the shortest a length draws, as a share of the longest */
    int spec_kind;             /* enum sim_spec_kind (0: none), with spec_k proposals accepted at spec_alpha */
    int spec_k;
    double spec_alpha;
    bool has_base;             /* speedup rows: the baseline is this setup with base_engine, or without spec */
    const struct llmroof_engine *base_engine;
    int base_tp;               /* > 0: the baseline runs TP base_tp alone (no EP, DP attention, MoE TP) */
    enum srv_load load;
    double load_value;         /* batch, users or requests per second (slo-capacity: the most users) */
    double load_lo;            /* slo-capacity: the fewest users of the sweep */
    long requests;             /* simulated */
    long source_requests;      /* in the published run (num_requests; 0: not stated) */
    enum srv_metric metric;
    enum srv_stat stat;
    double divide;             /* per-GPU or per-node figures: the simulated total over this */
    double slo_ttft_s, slo_tpot_s;
    /* the engine's settings the row states (the map's optional columns); 0: the engine profile's */
    long max_seqs;             /* --max-num-seqs */
    long max_batched_tokens;   /* --max-num-batched-tokens */
    int chunked;               /* chunked prefill: 1 beside the decodes, 0 off (whole prompts first),
                                  2 chunks in prompt-only iterations alternating with decode-only
                                  ones (sim_config.alternate_turns), -1 the simulator's default */
    int sched_steps;           /* vLLM --num-scheduler-steps (multi-step scheduling), 0 or 1: none */
    int recv_interval;         /* SGLang --scheduler-recv-interval (map column recv_interval), 0 or 1: none */
    bool engine_use_ray;       /* vLLM --engine-use-ray: the engine a Ray actor, its step a remote call */
    bool no_api_server;        /* the run went through the engine's own API (vLLM's LLM class,
                                  benchmark_throughput.py), not its HTTP server (map column api_server 0) */
    long max_paddings;         /* vLLM 0.2-0.3's --max-paddings for padded prompt batches; 0: packed
                                  prompts (vLLM 0.1, before PR #1381); -1: the engine profile's */
    long kv_blocks;            /* the KV blocks the source logged for its engine (map column kv_blocks,
                                  simulate --kv-blocks); 0: sized from memory */
    long max_concurrent;       /* TGI's --max-concurrent-requests as the row states it (map column
                                  max_concurrent); 0: the engine profile's */
    bool span_fixed;           /* map column arrivals = fixed-span: a rate row's Poisson arrivals scaled
                                  to span exactly requests / rate, as the row's benchmark client
                                  (DistServe's) sends them (simulate --fixed-span) */
    /* the prediction */
    double predicted;
    double err;                /* predicted / measured time - 1 (rates inverted): > 0 = llmroof slower */
};

/* A weighted sample's statistics: the weighted mean, and percentiles interpolated linearly
 * between the sorted values, value i standing at the cumulative weight up to its middle, scaled
 * so that the smallest is at 0 and the largest at 1 (equal weights: numpy's default, as the
 * simulator's own statistics). Sorts s. Used to weigh a closed loop's t = 0 burst as the
 * published run does (docs/validation.md, "Serving rows"). */
struct srv_wval {
    double v, w;
};
struct sim_stats srv_weighted_stats(struct srv_wval *s, long n);

/* Reads the published rows (CSV text, the serving.csv columns) and their map (serving-map.csv),
 * resolving catalog ids; a row without a map entry, or whose map entry names a reason, is kept
 * unmapped with that reason. Caller frees *out. */
int srv_load_cases(const struct llmroof_catalog *cat, const char *rows_text, size_t rows_len, const char *rows_name,
                   const char *map_text, size_t map_len, const char *map_name, struct srv_case **out, size_t *n,
                   struct llmroof_err *err);

/* Simulates every mapped case once (cases with the same setup, workload and load share one run)
 * with GPU and engine parameters taken from gpus[]/engines[] where an entry of the same id is
 * there (fitted copies), else from the catalog. A run that fails unmaps its cases with the reason.
 * keep[i] false (keep may be NULL) leaves case i alone. */
int srv_predict(struct srv_case *cases, size_t n, const bool *keep, const struct llmroof_gpu *gpus, int ngpus,
                const struct llmroof_engine *engines, int nengines, struct llmroof_err *err);
/* srv_predict with its simulations (one per distinct setup, then the rows' baselines) on `threads`
 * threads (base/par.h; 0 or 1: the caller's alone); each writes only its own run, and the rows
 * are then filled in order, so the result is the same at any count. */
int srv_predict_jobs(struct srv_case *cases, size_t n, const bool *keep, const struct llmroof_gpu *gpus, int ngpus,
                     const struct llmroof_engine *engines, int nengines, int threads, struct llmroof_err *err);

/* Holds out each publication of the serving rows in turn: every GPU's and engine's parameters
 * start from the catalog and are fitted (val_fit_all) on the static cases of every *other*
 * publication; that publication's serving rows are then predicted with them. The static rows are
 * never fitted to serving rows, so a serving row's held-out prediction differs from its in-sample
 * one only through the static rows its own publication contributed. The folds run on `threads`
 * threads (base/par.h; 0 or 1: the caller's alone), each on its own copy of the static rows and
 * writing only its own serving rows: the rows are the same at any count. */
int srv_cross_validate(struct srv_case *cases, size_t n, struct val_case *stat, size_t nstat, int *folds,
                       int threads, struct llmroof_err *err);

/* median, p90 and bias of err over mapped cases of a class (cls < 0: all) and load (load < 0: all) */
struct val_stats srv_stats(const struct srv_case *cases, size_t n, int cls, int load);
/* The publication a serving row belongs to, as --cv source holds it out: the first word of its
 * source column (val_source_key), else its framework. */
void srv_source_key(const struct srv_case *c, char *out, size_t cap);
/* The serving rows' bands (u->serving_ttft, serving_tpot, serving_e2e; the rest untouched): the 10th
 * and 90th percentiles of measured / predicted latency over the mapped rows of each latency class
 * (throughput, speedup and SLO rows are not latencies), each publication weighing the same (its
 * rows 1/count each; srv_weighted_stats' percentiles), n the rows behind the band. */
void srv_bands(const struct srv_case *cases, size_t n, struct llmroof_uncertainty *u);
/* srv_stats over the mapped rows of one publication (srv_source_key equal to key). */
struct val_stats srv_stats_source(const struct srv_case *cases, size_t n, const char *key);

#endif
