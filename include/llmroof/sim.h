/* sim.h - continuous-batching serving simulator with chunked prefill (vLLM-like,
 * iteration-level scheduling; Yu et al. 2022 "Orca", Kwon et al. 2023 "vLLM", Agrawal et al.
 * 2024 "Sarathi-Serve"). Each engine iteration is costed with the same operators, roofline and
 * collectives as `estimate`. Metrics as the background studies define them: docs/metrics.md. */
#ifndef LLMROOF_SIM_H
#define LLMROOF_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llmroof/estimate.h"
#include "llmroof/memory.h"
#include "llmroof/workload.h"

enum sim_mode {
    SIM_CLOSED, /* N users drain a pool of requests, thinking between requests */
    SIM_RATE,   /* open loop, Poisson arrivals */
    SIM_TRACE   /* open loop, arrivals and lengths from a trace */
};

struct sim_config {
    struct llmroof_setup setup;      /* model, GPU, TP, dtypes, efficiencies */
    struct llmroof_mem_opts mem;     /* KV capacity (block_size > 1 = paged blocks) */
    long max_batched_tokens;         /* token budget of one iteration */
    long max_seqs;                   /* running sequences at most */
    bool chunked_prefill;            /* split prompts across iterations within the budget */
    enum sim_mode mode;
    long concurrency;                /* SIM_CLOSED: users */
    long requests;                   /* SIM_CLOSED, SIM_RATE: requests in the pool */
    double think_min_s, think_max_s; /* SIM_CLOSED: uniform pause between a user's requests */
    double rate_qps;                 /* SIM_RATE: mean arrivals per second */
    const struct trace_req *trace;   /* SIM_TRACE: sorted by arrival */
    size_t ntrace;
    const struct workload *workload; /* lengths for SIM_CLOSED and SIM_RATE */
    uint64_t seed;                   /* PRNG seed: same seed, same result */
    bool record_iterations;          /* keep per-iteration records (for a Chrome trace) */
};

/* Defaults: vLLM's max_num_batched_tokens 2048 and max_num_seqs 256, chunked prefill on,
 * block size 16, closed loop of 20 users over 250 requests with 1-3 s think time (the
 * background studies' setup), chat workload, seed 42. Caller sets setup and workload. */
void sim_default_config(struct sim_config *c);

struct sim_request {
    double arrival_s;        /* when the request reached the server */
    double first_sched_s;    /* first iteration that processed it (-1: never) */
    double first_token_s;    /* end of the iteration that emitted its first token */
    double finish_s;         /* end of the iteration that emitted its last token */
    long prompt, output;     /* lengths in tokens */
    int preemptions;         /* times it was preempted and recomputed */
    bool rejected;           /* can never fit the KV cache: counted as an error */
};

struct sim_iter {
    double start_s, dur_s;   /* iteration start and duration */
    int prefill_seqs;        /* sequences with a prefill chunk */
    int decode_seqs;         /* sequences decoding one token */
    long prefill_tokens;     /* prompt tokens processed */
    double kv_util;          /* used KV blocks / all blocks after the iteration */
};

struct sim_stats {
    double mean, p50, p90, p95, p99, max; /* seconds; percentiles interpolate linearly */
    long n;                                /* samples */
};

struct sim_result {
    long requests, completed, errors;      /* errors = rejected requests */
    double error_rate;                     /* errors / requests */
    double duration_s;                     /* first arrival to last finish */
    struct sim_stats ttft, tpot, e2e;      /* over completed requests (TPOT: output >= 2) */
    double output_tok_s, request_per_s;    /* over duration_s */
    double mean_batch;                     /* time-weighted mean of sequences per iteration */
    long max_batch;                        /* most sequences in one iteration */
    double kv_util_mean;                   /* time-weighted mean of used / all KV blocks */
    long preemptions;                      /* total preemptions (recompute) */
    long iterations;                       /* engine iterations */
    double busy_s;                         /* time spent in iterations */
    double mean_in_system;                 /* time-average requests in the system (Little's L) */
    long kv_blocks_total, block_size;      /* KV pool */
    double kv_capacity_tokens;             /* blocks * block_size */
    double max_batch_at_mean_len;          /* KV ceiling: capacity / mean (prompt + output) of completed requests */
    uint64_t seed;                         /* echoed */
    struct sim_request *reqs;              /* owned, `requests` entries in arrival order of creation */
    struct sim_iter *iters;                /* owned when recorded, `iterations` entries */
};

/* Cost of one engine iteration holding `b` (prefill chunks and decode tokens). */
double sim_step_time(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct llmroof_batch *b);

int sim_run(const struct sim_config *c, struct sim_result *out, struct llmroof_err *err);
void sim_result_free(struct sim_result *r);

#endif
