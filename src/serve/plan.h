/* plan.h - capacity planner: how many nodes of which GPU, at which TP, serve N users under
 * TTFT and TPOT SLOs at a percentile. For each GPU x TP the planner finds the most closed-loop
 * users one instance serves within the SLOs (bracketing search over simulated runs, or the
 * --fast analytic model), then nodes = ceil(users / (instances per node x users per instance)),
 * or, for an instance of more GPUs than a node, ceil(users / users per instance) x the whole
 * nodes one instance takes.
 * docs/planning.md explains the method and its assumptions. */
#ifndef LLMROOF_PLAN_H
#define LLMROOF_PLAN_H

#include <stdbool.h>

#include "serve/sim.h"

#define PLAN_MAX_GPUS 64
#define PLAN_MAX_TPS 16
/* the layouts a plan searches per n of its TP list (plan_option.mode) */
#define PLAN_MODES 5
#define PLAN_MAX_OPTIONS (2 * PLAN_MODES * PLAN_MAX_GPUS * PLAN_MAX_TPS) /* aggregated and disaggregated, every layout per n */
#define PLAN_INSTANCE_CAP 256 /* instances of one pool the rate search never exceeds */
#define PLAN_MAX_OBS 48
#define PLAN_USER_CAP 100000 /* users per instance the search never exceeds */

struct plan_input {
    const struct llmroof_model *model;
    const struct llmroof_gpu *gpus[PLAN_MAX_GPUS];
    bool has_price[PLAN_MAX_GPUS];
    double price_per_gpu_hour[PLAN_MAX_GPUS]; /* USD per GPU-hour */
    int ngpus;
    int tps[PLAN_MAX_TPS];
    int ntps;
    long users;                    /* concurrent users to serve: closed-loop clients that send a
                                      request, wait for the whole answer, think 1-3 s, send the next */
    double rate_qps;               /* > 0: plan for this open-loop (Poisson) request rate instead
                                      of users; aggregated and disaggregated layouts are compared */
    double ttft_slo_s, tpot_slo_s; /* SLOs at the percentile */
    int percentile;                /* 50, 90, 95 or 99 */
    int gpus_per_node;             /* GPUs in a node with node_set; else a GPU without a catalog
                                      gpus_per_node (plan_node_gpus) */
    bool node_set;                 /* --gpus-per-node given: every GPU's nodes hold gpus_per_node;
                                      else each GPU's catalog value (8 for HGX, 1 for a GH200) */
    struct sim_config sim;         /* everything but setup, concurrency and requests: workload,
                                      think time, budget, max_seqs, chunking, mem, seed; an engine
                                      profile (eff.engine) sets its scheduler over it per GPU
                                      (plan_sim_config); its stop ends the whole plan
                                      (LLMROOF_ESTOPPED) */
    bool keep_budget, keep_seqs;   /* --max-batched-tokens / --max-seqs given: the engine
                                      profile's defaults do not replace them */
    enum sim_kv_link_kind kv_link_kind; /* --kv-link: the disaggregated hand-over's link (default
                                      SIM_KV_AUTO: each GPU's in-node link where the layout's
                                      instances fit one domain, its network beyond), taken per layout
                                      at its GPU's efficiency and placement (plan_kv_link_Bps) */
    double kv_link_rate_Bps;       /* with SIM_KV_RATE: the rate given */
    const char *kv_link;           /* the link as given: nvlink, node, ib, pcie or GB/s (NULL: the
                                      GPU's network) */
    const char *workload_name;     /* the workload as the caller named it ("chat", "fixed:2000:300"),
                                      rendered with the plan; NULL: not named */
    const char *rerun_args;        /* the plan's options that simulate takes too, as shell words
                                      ("--model llama-3.1-8b --seed 7"), for the rerun hints; NULL:
                                      the hints name them ("with the plan's model, GPU and options") */
    struct llmroof_dtypes dt;
    bool weight_given, act_given;  /* --weight-dtype / --act-dtype given: fp8 weights without a
                                      compute dtype run W8A8 on each GPU with fp8 (ckpt_gpu_dtypes) */
    struct llmroof_eff_override eff;
    bool fast;                     /* analytic steady state instead of simulation */
    /* Called after each row's search with (rows searched, rows to search); NULL: never. The
     * library prints nothing: the CLI reports it when stderr is a terminal. */
    void (*progress)(void *ctx, long done, long total);
    void *progress_ctx;
    int threads;                   /* users plans: threads for the analytic solves (the ranking, and
                                      every row under --fast); plans of one GPU (or exhaustive rate
                                      plans): the rows' simulated searches; base/par.h; 0 or 1: the caller's
                                      alone. The plan is the same at any count */
    bool exhaustive;               /* rate plans: search every option to the end, none pruned against
                                      the best found (docs/planning.md) */
    double mean_prompt, mean_output; /* --fast: the workload's mean lengths; 0 = sample them */
    double output_cv;              /* set by plan_run: the workload's output lengths' coefficient
                                      of variation (plan_output_cv); callers' value ignored */
    double output_mean;            /* set by plan_run: the workload's mean output length */
    double mean_held;              /* --fast: the KV tokens a running request holds, time-weighted,
                                      E[O (P + O / 2)] / E[O] (plan_mean_lengths); 0 = P + O / 2 */
    struct llmroof_layout layout;  /* --pp/--ep/--dp-attention applied with every TP (its tp unused);
                                      zero = TP only. An instance is gpus_per_stage x pp GPUs: a
                                      divisor of a node, or more than a node, when it takes whole
                                      nodes (docs/planning.md, "Instances beyond a node") */
};

/* The simulator configuration the plan runs on GPU g: in->sim with the engine profile's
 * scheduler, budget and sequence limit for that GPU (sim_config_engine: vLLM's larger defaults
 * on GPUs of 70 GiB or more), as `simulate -e` sets them. setup is left to the caller. */
struct sim_config plan_sim_config(const struct plan_input *in, const struct llmroof_gpu *g);

/* The prefill-to-decode KV link of a disaggregated layout of n_p prefill instances of setup sp and
 * n_d decode instances of sd, bytes/s per GPU pair, what a hand-over reaches (sim_kv_link_Bps):
 * with --kv-link nvlink or node the GPU's own link where every instance fits one NVLink domain (the
 * catalog's domain_gpus, else the node), else its network. */
double plan_kv_link_Bps(const struct plan_input *in, const struct llmroof_setup *sp, long n_p,
                        const struct llmroof_setup *sd, long n_d);

/* The token budget and sequence limit of a whole instance of `attn_dp` attention ranks on g:
 * each rank's share (sim_rank_share: the profile's per-rank limits for an engine that states
 * them so, else the instance's divided over the ranks) times the ranks. */
void plan_instance_limits(const struct plan_input *in, const struct llmroof_gpu *g, int attn_dp, long *max_seqs,
                          long *max_batched_tokens);

/* What stops more load: an SLO, the instance's sequence limit (TTFT misses while every slot is
 * taken and TPOT has room: requests queue for a slot, not for the GPU), the search's user cap, or
 * overload */
enum plan_binding { PLAN_BIND_NONE, PLAN_BIND_TTFT, PLAN_BIND_TPOT, PLAN_BIND_CAP, PLAN_BIND_LOAD, PLAN_BIND_SEQS,
                    PLAN_BIND_REFUSED, /* the engine's concurrency limit refused requests (TGI's 429s) */
                    PLAN_BIND_REJECTED /* the engine rejected requests for their length, at any size */ };
const char *plan_binding_name(enum plan_binding b);

/* A feasible row whose run preempted at least this many times per request is noted as KV-starved. */
#define PLAN_STARVED_PREEMPTIONS 0.1

struct plan_option {
    const struct llmroof_gpu *gpu;
    int gpu_index;                 /* index into plan_input.gpus */
    int tp;                        /* aggregated TP; disaggregated: the decode pool's */
    bool disagg;                   /* rate plans: a prefill pool and a decode pool */
    int mode;                      /* 0 TP (or the plan's own layout); searched for MoE models
                                      without one: 1 TP + EP over the same ranks, 2 data-parallel
                                      attention + EP (tp then counts the GPUs), 3 TP + PP 2,
                                      4 data-parallel attention + experts split by width over
                                      the tp GPUs (--moe-tp) */
    int prefill_tp;                /* disaggregated: the prefill pool's GPUs per instance */
    int prefill_mode;              /* disaggregated: the prefill pool's mode */
    char layout[32];               /* the (decode) layout's name: "TP-4", "DPA-8+EP-8", "TP-4+PP-2" */
    char prefill_layout[32];       /* disaggregated: the prefill pool's layout name */
    long prefill_instances, decode_instances; /* disaggregated pool sizes */
    double kv_link_Bps;            /* disaggregated: the hand-over's link per GPU pair (plan_kv_link_Bps) */
    long instances;                /* rate plans: instances in all (aggregated: N; disaggregated: X + Y) */
    double goodput_qps;            /* rate plans: requests/s within both SLOs */
    double goodput_per_gpu;        /* goodput / gpus */
    double preempt_per_request;    /* rate plans: preemptions over completed requests in its run (a
                                      preempted request recomputes its prompt and context) */
    double slo_use;                /* rate plans: max(TTFT / its SLO, TPOT / its SLO) at the percentile;
                                      lower = more headroom (the tie-break) */
    int gpus_per_node;             /* GPUs in one node of this row's GPU (plan_node_gpus) */
    int instances_per_node;        /* 0 when an instance spans nodes */
    int nodes_per_instance;        /* 1, or the whole nodes an instance of more GPUs than a node
                                      takes: ceil(its GPUs / gpus_per_node) */
    bool feasible;
    bool pruned;                   /* rate plans: not searched to the end, it could not have won
                                      (more GPUs or cost than the best found; docs/planning.md) */
    char reason[520];              /* why not, "" when feasible */
    long users_per_instance, users_per_node, nodes, gpus;
    double ttft_s, tpot_s;         /* at the percentile, at users_per_instance */
    enum plan_binding binding;     /* the SLO that fails one user later */
    long searched_users;           /* users plans: the search's users per instance where the load its
                                      instances carry missed and more instances were taken
                                      (verify_deployed_load); 0 otherwise */
    long next_users;               /* users plans: the load that fails (users_per_instance + 1 when
                                      the search found it; 0 when it did not) */
    double next_ttft_s, next_tpot_s; /* at the percentile, at next_users */
    long fewer_instances;          /* rate plans: the searched pool's count one below the answer
                                      (aggregated instances, or decode instances behind the prefill
                                      pool), whose run missed (binding); 0 when the answer is 1 or
                                      that count was not evaluated */
    bool fewer_by_bound;           /* ... ruled out by the capacity bound (overloaded), not simulated */
    double fewer_ttft_s, fewer_tpot_s; /* its run's latencies at the percentile (simulated only) */
    long fewer_sim_requests, fewer_sim_warmup; /* that run's requests and the first ones its
                                      statistics skip (simulated only) */
    bool has_cost;
    double cost_per_hour;          /* USD */
    int evaluations;               /* simulations (or analytic solves) run */
    long sim_requests, sim_warmup; /* rate plans' feasible rows: the requests of the run whose
                                      latencies they report, and those its statistics skip
                                      (simulate --requests, --warmup reproduce it) */
    /* feasible aggregated options: what explains users (goodput) per GPU across layouts */
    double weights_bytes_per_gpu;  /* fullest GPU of one instance */
    double kv_tokens_per_gpu;      /* KV-cache tokens one instance holds, per GPU of it */
    double decode_comm_share;      /* communication / decode step at the instance's batch */
    bool attn_dp;                  /* its attention runs in data-parallel replicas */
};

struct plan_result {
    struct plan_option options[PLAN_MAX_OPTIONS];
    int noptions;
    int best;                      /* index of the best option, -1 if none is feasible */
    int best_per_gpu[PLAN_MAX_GPUS]; /* index per input GPU, -1 if none */
    bool by_cost;                  /* best chosen by cost (every feasible option priced) */
    char obs[PLAN_MAX_OBS][1536]; /* the longest: a rerun hint with the plan's options (at most about 1,400
                                     characters, else it names them), the rate plan's method (about 480) */
    int nobs;
};

/* "TP-4", "TP-4+EP-4", "DPA-4+EP-4", "TP-4+PP-2" or "DPA-4+MoETP-4": a plan's layout in mode
 * 0, 1, 2, 3 or 4. */
void plan_layout_name(int n, int mode, char *buf, size_t size);

/* Rate plans: the smallest cluster of `tp` x `g` instances (or, disaggregated, of prefill and
 * decode pools) whose simulated run at in->rate_qps meets both SLOs at the percentile without
 * overload or errors. Fills o (gpus, latencies, goodput, or the reason it is infeasible). */
int plan_rate_aggregated(const struct plan_input *in, int gi, int tp, struct plan_option *o, struct llmroof_err *err);
/* (tp above is a TP width; expert-parallel layouts are searched by plan_run) */

/* Does one instance (model on tp x gpu) meet both SLOs with `users` closed-loop users?
 * Fills the percentile latencies at that load and, when preempt_per_request is not NULL, the
 * run's preemptions over its completed requests (0 for --fast, which has no scheduler). */
int plan_meets(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long users, bool *meets,
               double *ttft_s, double *tpot_s, enum plan_binding *fails, double *preempt_per_request,
               struct llmroof_err *err);

/* --fast's step time: a decode batch of B sequences at context ctx that also holds the prompts
 * (P tokens each) arriving at rate_req (requests/s) during the step's t, at most cap_tok prompt
 * tokens on a replica (the budget's room; with data-parallel attention the busiest replica sets
 * the step). Returns true with *t_out the least t with step(t) <= t (step increases with t);
 * false when the prompts arriving fill every step, with *t_out that full step's time.
 * prefill_first: the prompts run in prompt-only iterations, which stall the decodes, one whenever
 * a prompt waits, so a decode iteration is followed by a chain of them (plan_fast.c pf_solve);
 * *t_out is then the cycle a sequence sees between its tokens (TPOT), and false means the prompts
 * arriving fill every prompt iteration, *t_out that full iteration's time. */
bool plan_step_fixed_point(const struct llmroof_setup *s, const struct llmroof_shard *sh, bool prefill_first,
                           double B, double ctx, double P, double rate_req, double cap_tok, double *t_out);

/* The statistic a plan's latencies are: "p90" (the percentile), or "mean" for --fast users plans,
 * whose analytic model gives means. */
void plan_stat_name(const struct plan_input *in, char *buf, size_t size);

/* Largest users per instance meeting the SLOs (0 if even one user fails), by exponential
 * bracketing then bisection. */
int plan_search(const struct plan_input *in, const struct llmroof_gpu *g, int tp, struct plan_option *out,
                struct llmroof_err *err);

int plan_run(const struct plan_input *in, struct plan_result *out, struct llmroof_err *err);

/* LLMROOF_EINPUT when the model and dtypes run on none of the GPUs at one GPU of plain TP
 * (estimate_check: no compute path for the activation dtype, bf16 on a V100, ...; or a --reserve
 * past what the pool may use): every row would
 * say the same, which reads as "no hardware is enough" (exit 1) where the input is at fault. The
 * message is the first GPU's, with how many share it. */
int plan_check_gpus(const struct plan_input *in, struct llmroof_err *err);

/* GPUs in one node of GPU g: in->gpus_per_node with in->node_set, else the catalog's usual server. */
int plan_node_gpus(const struct plan_input *in, const struct llmroof_gpu *g);
/* The node size every planned GPU shares (--gpus-per-node, or their common catalog value); 0 when
 * they differ. */
int plan_shared_node_gpus(const struct plan_input *in);

#endif
