/* plan_internal.h - what the planner's files share (plan.c, plan_layout.c, plan_fast.c,
 * plan_rate.c, plan_obs.c); not installed, not for callers outside src/serve/plan*.c.
 * Each function's comment is at its definition. */
#ifndef LLMROOF_PLAN_INTERNAL_H
#define LLMROOF_PLAN_INTERNAL_H

#include "serve/plan.h"
#include "base/par.h"

#include <stddef.h>
#include <stdint.h>

/* Plans search layouts per n of the TP list in five modes (docs/planning.md): TP n; for MoE
 * models also TP n with the experts expert-parallel over the same n ranks (1), data-parallel
 * attention (n replicas of TP 1) with experts over n ranks (2, the DeepSeek serving layout),
 * TP n x PP 2 (3: 2n GPUs, consecutive halves of the layers), and data-parallel attention with
 * every expert split by width over the n GPUs (4: vLLM's --data-parallel-size without
 * --enable-expert-parallel, SGLang's --enable-dp-attention without --ep-size). Inside the
 * planner a layout travels as one int, n | mode << 16. */
#define LAY(n, mode) ((n) | ((mode) << 16))
#define PLAN_MODE_PP 3 /* TP n x PP 2 */
static inline int lay_n(int code)
{
    return code & 0xffff;
}
static inline int lay_mode(int code)
{
    return code >> 16;
}

/* Whether layout `code` runs pipeline stages: the searched TP n x PP 2, or the plan's own --pp
 * (mode 0), which a disaggregated pool does not simulate as lanes (plan_rate.c) */
static inline bool plan_code_pipelined(const struct plan_input *in, int code)
{
    return lay_mode(code) == PLAN_MODE_PP || (lay_mode(code) == 0 && in->layout.pp > 1);
}

/* The best plan found so far, against which the rate planner prunes (docs/planning.md, "Pruning
 * against the best plan found"). */
struct plan_best {
    long gpus;       /* fewest GPUs of a feasible option; 0: none yet */
    bool has_cost;   /* a feasible priced option was found */
    double cost;     /* the lowest cost per hour among them */
    bool any_price;  /* some GPU of the plan is priced: the answer may go by cost */
};

/* One option of a plan still to search, and the fewest GPUs its capacity bound allows. */
struct rate_cand {
    int oi;         /* its row in out->options */
    int gi, code;   /* GPU, (decode) layout */
    bool disagg;
    int code_p;     /* disaggregated: the prefill pool's layout and instances */
    long x;
    long lb_gpus;   /* GPUs of the fewest instances the capacity bound does not rule out */
};

/* par_for's tick for a plan's rows (rate and users plans): the caller's progress, when it moves,
 * and stop, on the caller's thread */
struct plan_tick {
    const struct plan_input *in;
    long total; /* the progress scale: the rows, or twice them where a users plan's ranking comes first */
    struct par_stop *stop;
    int reported; /* the rows reported done (par_for ticks every millisecond while it waits) */
};

/* plan.c: the search, the best so far, reasons */
double plan_pick(const struct sim_stats *s, int p);
int plan_tick(void *ctx, int done, int n);
void plan_rejected_reason(const struct plan_input *in, const struct llmroof_gpu *g, double share, char *buf,
                          size_t size);
const char *plan_prune_what(const struct plan_input *in);
const char *plan_bound_text(long gpus, bool has_cost, double cost, char *buf, size_t n);
struct plan_best plan_best_start(const struct plan_input *in);
bool plan_could_win(const struct plan_input *in, const struct plan_best *b, int gi, long gpus);
void plan_best_update(const struct plan_input *in, struct plan_best *b, const struct plan_option *o);

/* plan_layout.c: layouts, an instance's setup and size */
struct llmroof_setup plan_setup_for(const struct plan_input *in, const struct llmroof_gpu *g, int code);
int plan_inst_gpus(const struct plan_input *in, int code);
int plan_node_span(const struct plan_input *in, const struct llmroof_gpu *g, int ig);
long plan_pools_gpus(const struct plan_input *in, const struct llmroof_gpu *g, int code_a, long a, int code_b, long b,
                     long *nodes_out);
long plan_instance_max_seqs(const struct plan_input *in, const struct llmroof_gpu *g, int code);
/* A rate row's sequence limit binds where its run took every slot while less than this share of
 * the KV blocks was in use (time-weighted): half the cache free holds as many sequences again, so
 * the slots, not the memory or the GPUs' speed, held the batch (plan_rate.c rate_eval) */
#define PLAN_SEQ_KV_ROOM 0.5
/* The simulate flags of one instance of layout `code` (LAY) on GPU g: "-t 8 --ep 8 --dp-attention"
 * (its TP, then the parallelism its mode names: --ep, --dp-attention, --moe-tp, --pp). */
void plan_layout_flags(const struct plan_input *in, const struct llmroof_gpu *g, int code, char *buf, size_t len);
/* A rate row's run as a simulate command line: whole, with the plan's own options and the row's GPU
 * (true), or without them where plan_input.rerun_args is NULL or would not fit (false) */
bool plan_rate_sim_command(const struct plan_input *in, const struct plan_option *o, char *buf, size_t len);
struct llmroof_mem_opts plan_mem_opts(const struct plan_input *in, const struct llmroof_gpu *g, int attn_dp);
int plan_instance_memory(const struct plan_input *in, const struct llmroof_gpu *g, int code, long ctx,
                         struct llmroof_memory *mem, double *drafter_bytes, struct llmroof_err *err);
void plan_mean_lengths(const struct workload *w, uint64_t seed, double *p, double *o, double *held);
/* The coefficient of variation of w's output lengths (their standard deviation over their mean),
 * from the draws plan_mean_lengths takes: 0 for one length; their mean into *mean (NULL: not
 * wanted). Closed-loop users whose outputs spread less than PLAN_IN_STEP_CV stay in step (plan.c
 * plan_users_ramp_s). */
double plan_output_cv(const struct workload *w, uint64_t seed, double *mean);
#define PLAN_IN_STEP_CV 0.2
int plan_layout_check(const struct plan_input *in, const struct llmroof_gpu *g, int code, char *reason, size_t n,
                      struct llmroof_err *err);
struct plan_option *plan_new_option(struct plan_result *out, const struct plan_input *in, int gi, int code);
int plan_codes(const struct plan_input *in, int *codes);
int plan_option_figures(const struct plan_input *in, int code, long batch, struct plan_option *o,
                        struct llmroof_err *err);
double plan_tpot_floor_s(const struct plan_input *in, const struct llmroof_gpu *g, int code);
void plan_layout_label(const struct plan_input *in, int n, int mode, char *buf, size_t size);
void plan_describe(const struct plan_input *in, const struct plan_option *o, char *buf, size_t n);

/* plan_fast.c: the analytic model */
void plan_fast_latency(const struct plan_input *in, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                       long users, double P, double O, double cap_batch, double *ttft, double *tpot);
double plan_fast_cap(double max_seqs, double kv_tokens, double P, double O, double H, bool no_evict);
/* Whether a disaggregated decode instance of layout `code` on g at X requests a second has a
 * second, slower steady batch above its lowest one (plan_fast.c). */
bool plan_fast_decode_bistable(const struct plan_input *in, const struct llmroof_gpu *g, int code, double X);
bool plan_fast_open_batch(const struct plan_input *in, const struct llmroof_gpu *g, int code, double X, double *batch,
                          double *settle_s);

/* plan_rate.c: rate plans */
long plan_rate_pool(double rate);
/* The steady-state service rate bound of one instance of `code` on `g` (sim_instance_capacity_qps
 * with the instance's KV pool and limits, as the simulator bounds its own pools), 0 when it cannot
 * be bounded; the rate planner skips pools whose bound cannot carry the rate. */
/* The requests per second one instance of layout `code` hands over its K/V links in a
 * disaggregated deployment (an upper bound; 0 when it cannot be told). */
double plan_pool_link_qps(const struct plan_input *in, const struct llmroof_gpu *g, int code);
double plan_pool_capacity_qps(const struct plan_input *in, const struct llmroof_gpu *g, int code,
                              enum sim_capacity_kind kind);
bool plan_pool_shard(const struct plan_input *in, const struct llmroof_gpu *g, int code, struct llmroof_setup *s,
                     struct llmroof_layout *lay, struct llmroof_shard *sh, struct llmroof_err *e);
int plan_cand_cmp(const void *a, const void *b);
int plan_rate(const struct plan_input *in, struct plan_result *out, struct llmroof_err *err);

/* plan_obs.c: observations */
void plan_obs_add(struct plan_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool plan_better(const struct plan_option *a, const struct plan_option *b, bool by_cost);
void plan_layout_observations(const struct plan_input *in, struct plan_result *out);
bool plan_obs_engine_absent(const struct plan_input *in, struct plan_result *out, int gi);
bool plan_weights_hint(const struct plan_input *in, struct plan_result *out, int gi);
void plan_weights_hints(const struct plan_input *in, struct plan_result *out);
void plan_rate_observations(const struct plan_input *in, struct plan_result *out);
void plan_spec_observation(const struct plan_input *in, struct plan_result *out);

#endif
