/* plan_rate.c - rate plans: the fewest aggregated instances, or the smallest prefill and decode
 * pools, that meet the SLOs at an open-loop request rate (docs/planning.md). */
#include "serve/plan_internal.h"

#include "model/arch.h"
#include "base/par.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requests simulated at a rate: 30 s of arrivals, at least 1000 and at most 4000, enough for
 * stable p90/p99 tails and the overload check's window. */
/* The longest rerun of an evaluation the simulator judged overloaded over too short a window
 * (fewer than 3 request lives): 100,000 requests, enough for 200 requests/s of 4000-token outputs,
 * each living 48 s (57,600; at the 16,000 before, the fill read as overload and the plan bought 50%
 * more GPUs than long runs need) */
#define PLAN_SETTLE_MAX 100000L
/* preemptions per request from which a run that meets the SLOs is rerun longer (kv_bound_requests) */
#define PLAN_PREEMPT_SETTLE 0.01
#define PLAN_PREEMPT_RUNS 5.0
#define PLAN_PREEMPT_TOKENS 2e7
/* a disaggregated run within this share of an SLO is rerun as a preempting one is */
#define PLAN_EDGE 0.95
/* An aggregated run whose latency lies this near an SLO, from PLAN_EDGE of it (meeting) to
 * PLAN_EDGE_MISS of it (missing, not overloaded), is rerun over PLAN_EDGE_REQUESTS requests or more:
 * a p90 over 1,000-4,000 requests moves by several percent from one seed to the next, and the
 * count that decides it doubles a plan's GPUs (a review: 1 TP-8+EP-8 H200 instance of DeepSeek-V3
 * at 5 docqa requests/s read p90 TPOT 50.74 ms against a 50 ms SLO over 1,000 requests, 43.8-47.4
 * at other seeds and 47.1-48.3 over 20,000 and 50,000, so the plan took 2; and 1 DPA-8 instance
 * at 20/s read 49.85 ms where 40,000-request runs read 50.3-50.7 on five seeds). 20,000 requests
 * hold the p90 within about 1% there. */
#define PLAN_EDGE_MISS 1.10
#define PLAN_EDGE_REQUESTS 20000L
/* The steady state's time constant is taken this much above the rate (rate_eval): the model's
 * steady batch is a mean that the simulation's fluctuating batches exceed (2 x TP-4 Llama-3.1-70B
 * H200s at 50 requests/s: 218 an instance by the model, the 256-sequence limit in long runs) */
#define PLAN_KNEE_MARGIN 1.1

/* A disaggregated run one of whose decode instances held as many requests as its KV cache holds at
 * their mean length (PLAN_KV_FULL of it): no preemption yet, but the cache is the binding limit,
 * and a Poisson excess over it preempts a request, whose prompt the decode GPU then recomputes,
 * stalling the others' decodes, so the cliff comes late. A review: 12 TP-2 prefill + 3 TP-4 decode
 * H100s of Llama-3.1-70B at 10 requests/s of 8,000 + 500 tokens met 2 s / 50 ms over 1,000
 * requests, no preemption, a decode instance at 57 of its 57 requests; over 5,000 requests 534
 * preemptions, over 10,000 overloaded. The mean length is sim_stats.c's (capacity / ceiling). */
#define PLAN_KV_FULL 0.9
static bool disagg_kv_full(const struct sim_result *r)
{
    if (!(r->max_batch_at_mean_len > 0) || !r->inst || r->block_size <= 0)
        return false;
    const double blocks_per_request = ceil(r->kv_capacity_tokens / r->max_batch_at_mean_len / (double)r->block_size - 1e-9);
    for (int i = 0; i < r->ninst; i++) {
        const struct sim_instance *in = &r->inst[i];
        const double holds = (double)in->kv_blocks_total / (blocks_per_request + (double)in->state_blocks);
        if (in->pool == 1 && holds > 0 && (double)in->max_batch >= PLAN_KV_FULL * holds)
            return true;
    }
    return false;
}

long plan_rate_pool(double rate)
{
    double r = 30.0 * rate;
    return r < 1000 ? 1000 : r > 4000 ? 4000 : (long)r;
}

/* The pools of one evaluation: aggregated N x tp, or X prefill (tp_p) + Y decode (tp_d);
 * Y = 0 sizes the prefill pool alone (requests end at their first token). */
struct rate_eval {
    bool meets, overloaded, errors;
    bool floor;            /* smallest_pool gave up: more instances stopped helping */
    bool pruned;           /* smallest_pool stopped at its limit: more instances could not have won */
    bool by_bound;         /* pruned without a simulation: the limit is overloaded by the bound */
    long at;               /* instances of the searched pool at this evaluation */
    double ttft_s, tpot_s, goodput_qps;
    double preempt_per_request; /* preemptions / completed requests */
    double rejected_share;      /* requests rejected for their length / requests */
    enum plan_binding fails;
    long requests, warmup;      /* the simulated run whose figures these are (after any rerun) */
    /* at a meeting evaluation: one instance fewer of the searched pool, what it missed (a reviewer:
     * a rate row said "binding none" and nothing told why one TP-8 instance did not do) */
    long miss_at;               /* that count, 0 when the answer is 1 or it was never evaluated */
    enum plan_binding miss_fails;
    bool miss_by_bound;         /* ruled out by the capacity bound, not simulated */
    double miss_ttft_s, miss_tpot_s;
    long miss_requests, miss_warmup; /* its run's requests and skipped ones (simulate reproduces it) */
};

/* Keeps e, a missing evaluation at count `at`, as the miss of the count one below the answer where
 * it is the largest missing count seen (smallest_pool) */
static void note_miss(struct rate_eval *miss, const struct rate_eval *e, long at, bool by_bound)
{
    if (at <= miss->miss_at)
        return;
    miss->miss_at = at;
    miss->miss_fails = by_bound ? PLAN_BIND_LOAD : e->fails;
    miss->miss_by_bound = by_bound;
    miss->miss_ttft_s = by_bound ? 0.0 : e->ttft_s;
    miss->miss_tpot_s = by_bound ? 0.0 : e->tpot_s;
    miss->miss_requests = by_bound ? 0 : e->requests;
    miss->miss_warmup = by_bound ? 0 : e->warmup;
}

/* The requests of a rerun of a run that met the SLOs while preempting (plan_rate.c rate_eval): a
 * KV cache near full settles over many lives, so PLAN_SETTLE_MAX requests, as many as hold
 * PLAN_PREEMPT_TOKENS prompt and output tokens (a long-output workload's requests cost their
 * tokens: 100,000 of 3,500 had taken 27 s), and at least PLAN_PREEMPT_RUNS times the run's. */
static long kv_bound_requests(const struct plan_input *in, const struct sim_config *c)
{
    double P = in->mean_prompt, O = in->mean_output, H = 0;
    if (!(P > 0 && O > 0))
        plan_mean_lengths(c->workload, c->seed, &P, &O, &H);
    double want = P + O > 0 ? PLAN_PREEMPT_TOKENS / (P + O) : (double)PLAN_SETTLE_MAX;
    if (want < PLAN_PREEMPT_RUNS * (double)c->requests)
        want = PLAN_PREEMPT_RUNS * (double)c->requests;
    return want < (double)PLAN_SETTLE_MAX ? (long)ceil(want) : PLAN_SETTLE_MAX;
}

static int rate_eval(const struct plan_input *in, const struct llmroof_gpu *g, bool disagg, int tp_p, long x, int tp_d,
                     long y, struct rate_eval *ev, struct llmroof_err *err)
{
    /* every field set here: smallest_pool's reasons read them all (a review found pruned and
     * by_bound left from the stack) */
    *ev = (struct rate_eval){ 0 };
    struct sim_config c = plan_sim_config(in, g);
    c.progress = NULL; /* the plan reports its rows, not each simulation */
    c.mode = SIM_RATE;
    c.rate_qps = in->rate_qps;
    c.requests = plan_rate_pool(in->rate_qps);
    c.record_iterations = false;
    c.router = SIM_ROUTE_LEAST_LOADED;
    c.setup = plan_setup_for(in, g, tp_p);
    c.ttft_slo_s = in->ttft_slo_s;
    c.tpot_slo_s = y == 0 && disagg ? 0 : in->tpot_slo_s;
    c.slo_percentile = in->percentile;
    if (disagg) {
        c.disaggregated = true;
        /* (both pools on g: the run's budget is theirs) */
        c.prefill = (struct sim_pool){ plan_setup_for(in, g, tp_p), (int)x, 0 };
        c.decode = (struct sim_pool){ plan_setup_for(in, g, tp_d), y > 0 ? (int)y : 1, 0 };
        c.kv_link_Bps = plan_kv_link_Bps(in, &c.prefill.setup, x, &c.decode.setup, y);
        c.first_token_only = y == 0;
    } else {
        c.instances = (int)x;
        /* a speculating pool's steady state, for the knee's rerun below (the --fast model has no
         * speculative step: the simulator's, sim_stats.c spec_settle_s) */
        if (in->sim.spec.kind != SIM_SPEC_NONE)
            c.spec_settle_rate_qps = PLAN_KNEE_MARGIN * in->rate_qps;
    }
    struct sim_result r;
    int rc = sim_run(&c, &r, err);
    if (rc)
        return rc;
    for (;;) {
        /* A window of fewer than 3 request lives holds a transient: the batch is still filling, so
         * each step is shorter than in the steady state, and an overloaded server and a filling one
         * look the same. Rerun until the window spans 3 lives of the run before (6 x rate x life
         * requests; a life measured while filling is short, so each rerun at least doubles the run,
         * and the runs stop at 3 lives or PLAN_SETTLE_MAX requests: at 800 requests/s of chat on
         * 32 TP-2 B200s, 4,000 then 9,600 then 19,200 requests all still filled, and two reruns
         * at most had left "overloaded" standing, so the plan bought 162 instances where 32 meet
         * the SLOs over 100,000; a review), so the plan neither buys instances for a transient (planner
         * review D2: 5 instances at 60 requests/s where 3 meet the SLOs in long runs) nor takes a
         * filling server's latencies for the steady state's (50 requests/s of 4000-token outputs:
         * each lives 40 s, longer than the 30 s of arrivals, and 25 H100s read a p90 TPOT of
         * 10.7 ms that a long run puts at 23 ms) */
        if (!(r.window_lives > 0 && r.window_lives < 3))
            break;
        /* an overload the bound or a growing queue of waiting requests shows stands however long
         * the run: only a verdict a fill could explain, or a kept-up run's latencies, need more */
        if (r.overloaded && !r.may_be_filling)
            break;
        const double life_s = r.window_s / r.window_lives;
        double want = ceil(6.0 * in->rate_qps * life_s);
        if (c.requests >= PLAN_SETTLE_MAX)
            break;
        if (want < 2.0 * (double)c.requests)
            want = 2.0 * (double)c.requests;
        c.requests = want < (double)PLAN_SETTLE_MAX ? (long)want : PLAN_SETTLE_MAX;
        /* and the latencies leave out the requests that arrive in the first life, while the batch
         * fills (its steps shorter than the steady state's: 24 TP-8 70B instances at 20/s of
         * 8000-token outputs read p90 TPOT 29.9 ms with them, above 30 in 60,000-request runs) */
        const double fill = ceil(in->rate_qps * life_s);
        const long half = c.requests / 2; /* at most half the run left out */
        c.warmup_requests = fill < (double)half ? (long)fill : half;
        sim_result_free(&r);
        if ((rc = sim_run(&c, &r, err)))
            return rc;
    }
    /* Near its knee a pool approaches its steady state slowly: a sequence more in service makes
     * every step longer, so each request lives longer and more run at once, and the lives the
     * loop above measures are the fill's. The --fast model's steady batch gives the time a
     * departure from it takes to decay, S / (1 - X dS/dB) (plan_fast_open_batch): about a life S
     * at light loads, where the lives test above suffices, many lives near the knee. It is taken
     * at PLAN_KNEE_MARGIN above the rate (the model's mean batch is below the simulation's
     * fluctuating one), and where the model has no steady state there the run is as long as
     * PLAN_SETTLE_MAX allows. A run that meets the SLOs over a window shorter than 3 of those
     * times is rerun with 6 x rate x that time requests, the first half left out of its latencies
     * (the fill), where that is more than half as many again as it had. The 3,134 requests that
     * had judged 2 x TP-4 Llama-3.1-70B H100s under vLLM at 50 requests/s (p90 TPOT 37.8 ms
     * against 50, 578 requests in service) are far from the steady state (a 100,000-request run:
     * 900 in service, p90 TPOT 68 ms); the plan now takes 3 (test_plan.c
     * rate_plans_run_near_the_knee_to_the_steady_state). A speculating pool takes the same model
     * with the speculative step from its run (sim_result.spec_settle_s: at 52 requests/s of
     * Llama-3.1-8B with EAGLE-3 at acceptance 0.7 one H100 had met a 15 ms p90 TPOT over 1,560
     * requests, 9.7 ms, where 40,000 read 15.4 ms and a growing queue; test_plan.c
     * spec_rate_plans_run_near_the_knee_to_the_steady_state). A disaggregated decode pool has no
     * such model here. */
    const bool spec = in->sim.spec.kind != SIM_SPEC_NONE;
    if (!disagg && (!spec || r.spec_settle_known)) {
        double steady = 0, settle_s = r.spec_settle_s;
        /* the simulator's own service-rate bound of the cluster rules too: where the rate with its
         * margin exceeds it, the pool has no steady state there whatever the --fast model says,
         * whose steady state can lie above the simulation's (a review: one H100 of Llama-3.1-8B at
         * 52 chat requests/s, bound 52.15, long-run ceiling about 51, had met 2 s / 50 ms over 5,335
         * requests, the model's 3 time constants at 57.2/s, and was overloaded over 20,000) */
        const bool past_bound = r.capacity_qps > 0 && PLAN_KNEE_MARGIN * in->rate_qps > r.capacity_qps;
        const bool settles = !past_bound &&
                             (spec ? r.spec_settles
                                   : plan_fast_open_batch(in, g, tp_p, PLAN_KNEE_MARGIN * in->rate_qps / (double)x,
                                                          &steady, &settle_s));
        const bool meets_now = !r.overloaded && r.errors == 0 && plan_pick(&r.ttft, in->percentile) <= in->ttft_slo_s &&
                               plan_pick(&r.tpot, in->percentile) <= in->tpot_slo_s;
        /* A run that met the SLOs while preempting (PLAN_PREEMPT_SETTLE per request or more) holds
         * a KV cache near full: the long requests that fill it accumulate over many lives, and a
         * preemption recomputes a prompt, lengthening the steps that let more accumulate, so the
         * cliff comes late. It runs much longer (kv_bound_requests): 10 TP-2 Llama-3.1-70B H100s at 50
         * requests/s met 2 s / 50 ms over 6,262 requests (0.14 preemptions a request) and are
         * overloaded over 30,000 (p90 TTFT 20 s), where 11 keep up (a review) */
        const bool kv_bound = c.requests > 0 && (double)r.preemptions >= PLAN_PREEMPT_SETTLE * (double)r.requests;
        double want = settles ? ceil(6.0 * in->rate_qps * settle_s) : (double)PLAN_SETTLE_MAX;
        if (kv_bound)
            want = fmax(want, (double)kv_bound_requests(in, &c));
        if (meets_now && want > 1.5 * (double)c.requests && c.requests < PLAN_SETTLE_MAX) {
            c.requests = want < (double)PLAN_SETTLE_MAX ? (long)want : PLAN_SETTLE_MAX;
            c.warmup_requests = c.requests / 2;
            sim_result_free(&r);
            if ((rc = sim_run(&c, &r, err)))
                return rc;
        }
        /* near an SLO, either side, a longer run decides (PLAN_EDGE_MISS); so near the engine's
         * concurrency limit (TGI's --max-concurrent-requests), whose refusals are a tail's: a run
         * that refused none with an instance's load (queued and running, as the limit counts them)
         * within PLAN_EDGE_MISS of the limit is an edge too (a review: 2 TGI H100 instances of
         * Llama-3.1-8B at 50 chat requests/s refused none over 3,139 requests at seed 42, a batch
         * of 124 of 128, and 17 and 30 at seeds 7 and 1; a second: the batch alone, capped by a KV
         * cache, can stay far below the limit while the queue reaches it) */
        const double rt = plan_pick(&r.ttft, in->percentile) / in->ttft_slo_s,
                     rp = plan_pick(&r.tpot, in->percentile) / in->tpot_slo_s, worst = fmax(rt, rp);
        const bool near_limit = c.max_concurrent > 0 && (double)r.max_load * PLAN_EDGE_MISS >= (double)c.max_concurrent;
        if (!r.overloaded && r.errors == 0 && ((worst >= PLAN_EDGE && worst <= PLAN_EDGE_MISS) || near_limit) &&
            c.requests < PLAN_EDGE_REQUESTS) {
            const double n = fmax((double)PLAN_EDGE_REQUESTS, PLAN_PREEMPT_RUNS * (double)c.requests);
            c.requests = n < (double)PLAN_SETTLE_MAX ? (long)n : PLAN_SETTLE_MAX;
            c.warmup_requests = c.requests / 2;
            sim_result_free(&r);
            if ((rc = sim_run(&c, &r, err)))
                return rc;
        }
    } else if (disagg && c.requests < PLAN_SETTLE_MAX && !r.overloaded && r.errors == 0 &&
               plan_pick(&r.ttft, in->percentile) <= in->ttft_slo_s &&
               (y == 0 || plan_pick(&r.tpot, in->percentile) <= in->tpot_slo_s)) {
        /* a decode pool that met the SLOs while preempting, as above: 1 + 9 TP-2 H100s at 50
         * requests/s of Llama-3.1-70B met them over 6,362 requests (0.58 preemptions a request)
         * and are overloaded over 30,000; or within 5% of an SLO, where a disaggregated pool has
         * no --fast model to say how far its steady state is (2 + 7 TP-1 MI300X pools of
         * Qwen2.5-72B under vLLM at 30/s read p90 TPOT 48.7 ms over 5,552 requests, 50.0-51.3
         * over 27,760 to 100,000 and at other seeds: a review). A cache full without a preemption
         * yet (disagg_kv_full), or a decode instance with a second, slower steady batch
         * (plan_fast_decode_bistable), runs as long as any: the avalanche, or the jump to the slow
         * state, starts at a rare Poisson excess, which 5,000 and 10,000 requests of a review's
         * 7 + 3 TP-4 pools did not meet and 20,000 did (17,486 preemptions, overloaded) */
        const bool kv_full = y > 0 && disagg_kv_full(&r);
        const bool two_states = y > 0 && plan_fast_decode_bistable(in, g, tp_d, in->rate_qps / (double)y);
        if ((double)r.preemptions >= PLAN_PREEMPT_SETTLE * (double)r.requests || kv_full || two_states ||
            plan_pick(&r.ttft, in->percentile) > PLAN_EDGE * in->ttft_slo_s ||
            (y > 0 && plan_pick(&r.tpot, in->percentile) > PLAN_EDGE * in->tpot_slo_s)) {
            c.requests = kv_full || two_states ? PLAN_SETTLE_MAX : kv_bound_requests(in, &c);
            c.warmup_requests = c.requests / 2;
            sim_result_free(&r);
            if ((rc = sim_run(&c, &r, err)))
                return rc;
        }
    }
    ev->requests = c.requests;
    ev->warmup = c.warmup_requests;
    ev->ttft_s = plan_pick(&r.ttft, in->percentile);
    ev->tpot_s = plan_pick(&r.tpot, in->percentile);
    /* goodput as the share of the offered rate served within the SLOs: completions / duration
     * would count the drain after the last arrival against the cluster */
    ev->goodput_qps = in->rate_qps * r.within_slo_share;
    ev->overloaded = r.overloaded;
    ev->errors = r.errors > 0;
    ev->preempt_per_request = r.completed > 0 ? (double)r.preemptions / (double)r.completed : 0;
    const long rejected = r.errors - r.refused_busy;
    ev->rejected_share = r.requests > 0 ? (double)rejected / (double)r.requests : 0;
    bool t1 = ev->ttft_s <= in->ttft_slo_s, t2 = (disagg && y == 0) || ev->tpot_s <= in->tpot_slo_s;
    ev->meets = t1 && t2 && !ev->overloaded && !ev->errors;
    /* an aggregated pool whose every sequence slot was taken while its KV cache stayed mostly free
     * (below PLAN_SEQ_KV_ROOM of its blocks, time-weighted): the sequence limit binds, not the
     * GPUs, and a larger --max-seqs would serve with fewer instances, as users plans say (a review:
     * DeepSeek-V3 on DPA-8 + EP-8 H200s at 50 requests/s needed 3 instances at the generic 256
     * sequences, 32 an attention rank, with 3% of the cache used; --max-seqs 2048 met the SLOs
     * with fewer GPUs, and the row read "overloaded") */
    const bool seq_capped = !disagg && !c.static_batching && r.max_batch >= plan_instance_max_seqs(in, g, tp_p) &&
                            r.kv_util_mean < PLAN_SEQ_KV_ROOM;
    /* a request rejected for its length is rejected at any count of instances (a TTFT miss had
     * been reported where TensorRT-LLM refused 3% of docqa's prompts above its budget); a
     * concurrency limit's refusals are the load's */
    ev->fails = rejected > 0                              ? PLAN_BIND_REJECTED
                : (ev->overloaded || !t1) && t2 && seq_capped ? PLAN_BIND_SEQS
                : ev->overloaded                          ? PLAN_BIND_LOAD
                : r.refused_busy > 0  ? PLAN_BIND_REFUSED
                : !t1                 ? PLAN_BIND_TTFT
                : !t2                 ? PLAN_BIND_TPOT
                                      : PLAN_BIND_NONE;
    sim_result_free(&r);
    return LLMROOF_OK;
}

/* The setup, layout and shard of layout `code`, shared by the pool bounds below: false when no
 * bound applies (speculative decoding emits several tokens per step) or the layout does not shard. */
bool plan_pool_shard(const struct plan_input *in, const struct llmroof_gpu *g, int code,
                     struct llmroof_setup *s, struct llmroof_layout *lay, struct llmroof_shard *sh,
                     struct llmroof_err *e)
{
    if (in->sim.spec.kind != SIM_SPEC_NONE)
        return false;
    *s = plan_setup_for(in, g, code);
    *lay = estimate_layout(s);
    return ops_shard_layout(in->model, lay, sh, e) == 0;
}

/* The requests per second one instance of a disaggregated pool hands over its K/V links: each
 * attention replica's GPUs send (or take) one prompt's share at a time, latency + held tokens x
 * its K/V a token on one GPU / the link (sim_stats.c link_capacity_qps, the simulator's own
 * bound). The smallest deployment's link (in-node where the pools fit one node) and the held
 * tokens of the mean prompt: an upper bound. 0 when it cannot be told. */
static double pool_link_qps(const struct plan_input *in, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                            const struct llmroof_memory *mem)
{
    const double link_Bps = plan_kv_link_Bps(in, s, 1, s, 1);
    const double held = arch_kv_tokens_held(in->model, in->mean_prompt);
    const double t = in->sim.kv_link_latency_s + held * mem->kv_bytes_per_token_per_gpu / link_Bps;
    const double reps = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    return link_Bps > 0 && t > 0 ? reps / t : 0.0;
}

/* Layout `code`'s setup, shard, memory options and memory on g, for the pool bounds below: false
 * when no bound applies (plan_pool_shard) or it does not build. */
static bool pool_memory(const struct plan_input *in, const struct llmroof_gpu *g, int code, struct llmroof_setup *s,
                        struct llmroof_shard *sh, struct llmroof_mem_opts *mo, struct llmroof_memory *mem)
{
    struct llmroof_layout lay;
    struct llmroof_err e2 = { 0 };
    if (!plan_pool_shard(in, g, code, s, &lay, sh, &e2) || estimate_check(s, &e2))
        return false;
    *mo = plan_mem_opts(in, g, sh->attn_dp);
    return memory_eval_layout(in->model, g, &lay, &in->dt, 1, mo, mem, &e2) == 0;
}

double plan_pool_link_qps(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    struct llmroof_setup s;
    struct llmroof_shard sh;
    struct llmroof_mem_opts mo;
    struct llmroof_memory mem;
    return pool_memory(in, g, code, &s, &sh, &mo, &mem) ? pool_link_qps(in, &s, &sh, &mem) : 0.0;
}

/* The searched pool's steady-state service rate per instance (sim_instance_capacity_qps), 0 when
 * it cannot be bounded (speculative decoding, a layout that does not build). */
double plan_pool_capacity_qps(const struct plan_input *in, const struct llmroof_gpu *g, int code,
                              enum sim_capacity_kind kind)
{
    struct llmroof_setup s;
    struct llmroof_shard sh;
    struct llmroof_mem_opts mo;
    struct llmroof_memory mem;
    if (!pool_memory(in, g, code, &s, &sh, &mo, &mem))
        return 0;
    /* pipeline lanes (sim_pipeline_lanes) each bound with their share of the KV and of the
     * sequences, as the simulator's. kv_capacity_tokens is the instance's, every attention
     * replica's blocks together (memory.h), as the simulator's total_blocks; it had been multiplied
     * by the replicas once more, so a DP-attention pool's KV bound read n times its pool (a
     * reviewer's finding) */
    const int lanes = sim_pipeline_lanes(&s, (long)mo.max_seqs, in->eff.engine && in->eff.engine->static_batching,
                                         kind != SIM_CAP_AGGREGATED);
    double q = 0;
    for (int j = 0; j < lanes; j++)
        q += sim_instance_capacity_qps(&s, &sh, mem.kv_capacity_tokens / lanes,
                                       sim_lane_seqs((long)mo.max_seqs, lanes, j), (long)mo.max_batched_tokens,
                                       in->mean_prompt, in->mean_output, kind);
    /* a pool of a disaggregated deployment also hands every request's K/V over its links
     * (plan_pool_link_qps) */
    if (kind == SIM_CAP_PREFILL || kind == SIM_CAP_DECODE) {
        const double link = pool_link_qps(in, &s, &sh, &mem);
        if (link > 0 && link < q)
            q = link;
    }
    return q;
}

/* Pools of n instances whose bound serves less than 1 / PLAN_BOUND_MARGIN of the rate are
 * overloaded in any run (the simulator compares the offered rate with the same bound); they are
 * not simulated. The margin covers the Poisson noise of the measured offered rate (a few % over
 * 500+ arrivals) and the sampled mean lengths against a run's own (docs/planning.md). */
#define PLAN_BOUND_MARGIN 1.5

/* The largest count of the searched pool that the capacity bound rules out (0: none). */
static long pool_ruled_out(const struct plan_input *in, const struct llmroof_gpu *g, bool disagg, int code,
                           bool search_decode)
{
    const double cap = plan_pool_capacity_qps(in, g, code,
                                         !disagg ? SIM_CAP_AGGREGATED : search_decode ? SIM_CAP_DECODE : SIM_CAP_PREFILL);
    if (!(cap > 0))
        return 0;
    const double n = floor(in->rate_qps / (PLAN_BOUND_MARGIN * cap));
    return n >= PLAN_INSTANCE_CAP ? PLAN_INSTANCE_CAP : (long)n;
}

/* Smallest count n in [1, limit] of the searched pool that meets (limit <= PLAN_INSTANCE_CAP:
 * the most instances that could still beat the best plan found so far). Counts the capacity
 * bound rules out are not simulated. Without a limit: doubling, then bisection; with one,
 * bisection between the bounds, the limit first (meeting is monotone in the count up to
 * simulation noise). 0 when even the limit misses (ev->pruned when the limit is below
 * PLAN_INSTANCE_CAP); *ev holds the evaluation at the answer (or at the limit). */
static int smallest_pool(const struct plan_input *in, const struct llmroof_gpu *g, bool disagg, int tp_p, long x,
                         int tp_d, bool search_decode, long limit, long *n, struct rate_eval *ev, int *evals,
                         struct llmroof_err *err)
{
    long lo = 0, hi = 1;
    struct rate_eval e, best = { 0 }, prev = { 0 }, miss = { 0 };
    int rc;
    /* the largest count the bound rules out */
    const long ruled_out = pool_ruled_out(in, g, disagg, search_decode ? tp_d : tp_p, search_decode);
    if (ruled_out > 0)
        note_miss(&miss, &e, ruled_out, true);
    if (limit < PLAN_INSTANCE_CAP) {
        memset(&e, 0, sizeof e);
        e.pruned = true;
        e.at = limit;
        if (limit <= ruled_out) {
            /* even the most instances that could win are overloaded by the bound */
            e.overloaded = true;
            e.by_bound = true;
            e.fails = PLAN_BIND_LOAD;
            *n = 0;
            *ev = e;
            return LLMROOF_OK;
        }
        long px = search_decode ? x : limit, py = search_decode ? limit : 0;
        if ((rc = rate_eval(in, g, disagg, tp_p, disagg ? px : limit, tp_d, disagg ? py : 0, &e, err)))
            return rc;
        (*evals)++;
        e.at = limit;
        if (!e.meets) {
            if (e.fails == PLAN_BIND_REJECTED)
                e.floor = true; /* rejected at any count: not the limit's doing */
            else
                e.pruned = true;
            *n = 0;
            *ev = e;
            return LLMROOF_OK;
        }
        best = e;
        lo = ruled_out;
        hi = limit;
    } else {
        long lo2 = 0; /* the count before prev's, and its evaluation (prev2) */
        struct rate_eval prev2 = { 0 };
        for (;;) {
            long px = search_decode ? x : hi, py = search_decode ? hi : 0;
            if (hi <= ruled_out && hi < PLAN_INSTANCE_CAP) {
                memset(&e, 0, sizeof e);
                e.overloaded = true;
                e.fails = PLAN_BIND_LOAD;
            } else {
                if ((rc = rate_eval(in, g, disagg, tp_p, disagg ? px : hi, tp_d, disagg ? py : 0, &e, err)))
                    return rc;
                (*evals)++;
            }
            e.at = hi;
            if (e.meets) {
                best = e;
                break;
            }
            note_miss(&miss, &e, hi, hi <= ruled_out && hi < PLAN_INSTANCE_CAP);
            /* requests rejected for their length are rejected by any count of instances */
            if (e.fails == PLAN_BIND_REJECTED) {
                e.floor = true;
                *n = 0;
                *ev = e;
                return LLMROOF_OK;
            }
            /* a pool that keeps up and whose failing latency no longer falls when it doubles, after a
             * doubling that cut it by less than 10%, has hit the layout's floor (one sequence's step,
             * or one prompt's prefill): more will not help. One flat doubling is not enough: a
             * prefill-first engine's TPOT holds the other
             * requests' prefill stalls, flat while every step has one and falling fast once few do
             * (a review: DeepSeek-V3 on TP-8 B200s under SGLang at 100/s, p90 TPOT 143 ms at 2
             * and 4 instances, 64 at 6, 45 at 8, had read "misses the TPOT SLO at any size") */
            const bool tpot = e.fails == PLAN_BIND_TPOT;
            const bool flat = lo > 0 && !e.overloaded && !prev.overloaded && !e.errors && e.fails == prev.fails &&
                              (tpot ? e.tpot_s >= 0.98 * prev.tpot_s : e.ttft_s >= 0.98 * prev.ttft_s);
            /* and the doubling before fell by less than 10% (a latency that had been falling fast
             * is on a plateau of its load, not at its floor) */
            const bool was_flat = lo2 > 0 && !prev2.overloaded && !prev2.errors && prev2.fails == prev.fails &&
                                  (tpot ? prev.tpot_s >= 0.9 * prev2.tpot_s : prev.ttft_s >= 0.9 * prev2.ttft_s);
            if (flat && was_flat) {
                e.floor = true;
                *n = 0;
                *ev = e;
                return LLMROOF_OK;
            }
            prev2 = prev;
            lo2 = lo;
            prev = e;
            lo = hi;
            if (hi == PLAN_INSTANCE_CAP) {
                *n = 0;
                *ev = e;
                return LLMROOF_OK;
            }
            hi = hi * 2 > PLAN_INSTANCE_CAP ? PLAN_INSTANCE_CAP : hi * 2;
        }
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        long px = search_decode ? x : mid, py = search_decode ? mid : 0;
        if (mid <= ruled_out) {
            note_miss(&miss, &e, mid, true);
            lo = mid;
            continue;
        }
        if ((rc = rate_eval(in, g, disagg, tp_p, disagg ? px : mid, tp_d, disagg ? py : 0, &e, err)))
            return rc;
        (*evals)++;
        if (e.meets) {
            hi = mid;
            best = e;
        } else {
            note_miss(&miss, &e, mid, false);
            lo = mid;
        }
    }
    *n = hi;
    *ev = best;
    if (miss.miss_at == hi - 1 && hi > 1) { /* the count just below the answer, as evaluated */
        ev->miss_at = miss.miss_at;
        ev->miss_fails = miss.miss_fails;
        ev->miss_by_bound = miss.miss_by_bound;
        ev->miss_ttft_s = miss.miss_ttft_s;
        ev->miss_tpot_s = miss.miss_tpot_s;
        ev->miss_requests = miss.miss_requests;
        ev->miss_warmup = miss.miss_warmup;
    }
    return LLMROOF_OK;
}

static void rate_fill(const struct plan_input *in, struct plan_option *o, const struct rate_eval *ev)
{
    o->feasible = true;
    o->ttft_s = ev->ttft_s;
    o->tpot_s = ev->tpot_s;
    o->goodput_qps = ev->goodput_qps;
    o->preempt_per_request = ev->preempt_per_request;
    o->sim_requests = ev->requests;
    o->sim_warmup = ev->warmup;
    if (o->disagg)
        o->gpus = plan_pools_gpus(in, o->gpu, LAY(o->prefill_tp, o->prefill_mode), o->prefill_instances, LAY(o->tp, o->mode),
                                  o->decode_instances, &o->nodes);
    else
        o->gpus = plan_pools_gpus(in, o->gpu, LAY(o->tp, o->mode), o->instances, 0, 0, &o->nodes);
    o->goodput_per_gpu = o->gpus ? o->goodput_qps / (double)o->gpus : 0;
    o->slo_use = fmax(ev->ttft_s / in->ttft_slo_s, ev->tpot_s / in->tpot_slo_s);
    /* what one instance fewer of the searched pool missed: the binding of a rate row */
    o->binding = ev->miss_at > 0 ? ev->miss_fails : PLAN_BIND_NONE;
    o->fewer_instances = ev->miss_at;
    o->fewer_by_bound = ev->miss_by_bound;
    o->fewer_ttft_s = ev->miss_ttft_s;
    o->fewer_tpot_s = ev->miss_tpot_s;
    o->fewer_sim_requests = ev->miss_requests;
    o->fewer_sim_warmup = ev->miss_warmup;
}

/* The rate search's name for what an evaluation missed */
static const char *rate_miss(enum plan_binding b)
{
    return b == PLAN_BIND_LOAD      ? "overloaded"
           : b == PLAN_BIND_SEQS    ? "every sequence slot taken with the KV cache mostly free: --max-seqs binds"
           : b == PLAN_BIND_TPOT    ? "TPOT"
           : b == PLAN_BIND_REFUSED ? "requests refused at the engine's concurrency limit"
                                    : "TTFT";
}

static void rate_reason(const struct plan_input *in, struct plan_option *o, const char *pool, const struct rate_eval *ev,
                        const struct plan_best *best)
{
    char bound[64]; /* both bounds where prices may decide, as every pruning note gives them */
    plan_bound_text(best ? best->gpus : 0, best && best->has_cost, best ? best->cost : 0.0, bound, sizeof bound);
    o->binding = ev->fails;
    if (ev->fails == PLAN_BIND_REJECTED) {
        plan_rejected_reason(in, o->gpu, ev->rejected_share, o->reason, sizeof o->reason);
        return;
    }
    if (ev->pruned) {
        o->pruned = true;
        /* the search stopped where more instances would need more GPUs (or cost more) than the
         * best plan found: whatever count meets, the option could not have won */
        o->binding = PLAN_BIND_NONE;
        if (ev->by_bound)
            snprintf(o->reason, sizeof o->reason,
                     "not simulated: by the capacity bound it needs more than %ld %s instances, %s than the best "
                     "plan found by then (%s)", ev->at, pool, plan_prune_what(in), bound);
        else
            snprintf(o->reason, sizeof o->reason,
                     "not searched further: %ld %s instance%s miss%s (%s; p%d TTFT %.0f ms, TPOT %.1f ms) and more "
                     "would need %s than the best plan found by then (%s)", ev->at, pool, ev->at == 1 ? "" : "s",
                     ev->at == 1 ? "es" : "", rate_miss(ev->fails), in->percentile, ev->ttft_s * 1e3, ev->tpot_s * 1e3,
                     plan_prune_what(in), bound);
    } else if (ev->floor)
        snprintf(o->reason, sizeof o->reason,
                 "misses the %s SLO at any size: with %ld %s instances, not overloaded, p%d TTFT %.0f ms and TPOT %.1f ms "
                 "stopped falling",
                 ev->fails == PLAN_BIND_TPOT ? "TPOT" : "TTFT", ev->at, pool, in->percentile, ev->ttft_s * 1e3,
                 ev->tpot_s * 1e3);
    else
        snprintf(o->reason, sizeof o->reason,
                 "search limit: even %d %s instances miss (%s; p%d TTFT %.0f ms, TPOT %.1f ms)", PLAN_INSTANCE_CAP, pool,
                 rate_miss(ev->fails), in->percentile, ev->ttft_s * 1e3, ev->tpot_s * 1e3);
}

/* An option whose TPOT floor (one sequence's decode step) is above the SLO: no size helps, and it
 * is not simulated (docs/planning.md, "Bounds before simulating"). */
static void tpot_floor_miss(const struct plan_input *in, struct plan_option *o, double floor_s)
{
    o->binding = PLAN_BIND_TPOT;
    snprintf(o->reason, sizeof o->reason,
             "misses the TPOT SLO at any size: one sequence's decode step alone takes %.1f ms (> %.8g ms)",
             floor_s * 1e3, in->tpot_slo_s * 1e3);
}

/* The most instances of the searched pool (aggregated code_d, or decode pool code_d behind x
 * prefill instances of code_p) that could still win; PLAN_INSTANCE_CAP without a best. */
static long pool_limit(const struct plan_input *in, const struct plan_best *b, int gi, int code_p, long x, int code_d)
{
    if (in->exhaustive || in->ngpus < 2 || b->gpus == 0)
        return PLAN_INSTANCE_CAP;
    long n = 0;
    while (n < PLAN_INSTANCE_CAP &&
           plan_could_win(in, b, gi,
                          x > 0 ? plan_pools_gpus(in, in->gpus[gi], code_p, x, code_d, n + 1, NULL)
                                : plan_pools_gpus(in, in->gpus[gi], code_d, n + 1, 0, 0, NULL)))
        n++;
    return n;
}

static int rate_aggregated(const struct plan_input *in, int gi, int tp, long limit, const struct plan_best *best,
                           struct plan_option *o, struct llmroof_err *err)
{
    const struct llmroof_gpu *g = in->gpus[gi];
    struct rate_eval ev;
    long n = 0;
    int rc = smallest_pool(in, g, false, tp, 0, tp, false, limit, &n, &ev, &o->evaluations, err);
    if (rc)
        return rc;
    if (n == 0) {
        rate_reason(in, o, "aggregated", &ev, best);
        return LLMROOF_OK;
    }
    o->instances = n;
    rate_fill(in, o, &ev);
    return LLMROOF_OK;
}

int plan_rate_aggregated(const struct plan_input *in, int gi, int tp, struct plan_option *o, struct llmroof_err *err)
{
    return rate_aggregated(in, gi, tp, PLAN_INSTANCE_CAP, NULL, o, err);
}

/* More prefill instances a disaggregated row tries, one at a time, where its decode search misses
 * TTFT behind a decode pool that keeps up (plan_rate_disagg) */
#define PLAN_PREFILL_MORE 4
/* The share of its KV links' transfers a prefill pool may be sized to carry (plan_rate_disagg) */
#define PLAN_LINK_LOAD 0.9

/* The prefill pool is sized alone (TTFT ends at the first token, whatever the decode side
 * does); the decode pool is then sized behind it with the whole request measured. That run is
 * longer than the prefill pool's own (its requests live to their last token, and a window of
 * three lives takes more of them), and a prefill pool sized at its knee by a 30 s run of first
 * tokens queues more over it: where the decode search then misses TTFT with its pool keeping up
 * (its TTFT stopped falling, or the most instances that could win miss it), more decode instances
 * cannot help and one more prefill instance is tried, up to PLAN_PREFILL_MORE while the TTFT
 * falls and the row could still win. Qwen3-235B-A22B on A100-80GB at 50 requests/s of
 * 2000-token prompts had taken 5 DPA-8+EP-8 prefill instances (p90 TTFT 1.55 s alone, 2.5 s in
 * the whole run), called every TP-8 decode row "misses the TTFT SLO at any size" and answered
 * 32 x TP-8 aggregated (256 GPUs), where 6 prefill + 18 TP-8 decode instances (192 GPUs) meet. */
static int plan_rate_disagg(const struct plan_input *in, int gi, int tp_p, long x, int tp_d, long limit,
                            const struct plan_best *best, struct plan_option *o, struct llmroof_err *err)
{
    const struct llmroof_gpu *g = in->gpus[gi];
    struct rate_eval ev = { 0 }; /* read as the last pass's from the second pass on */
    long y = 0;
    int rc;
    /* the prefill pool sized by its first tokens alone must also send every request's K/V: at
     * most PLAN_LINK_LOAD of its links' transfers (a pool sized below that queues its hand-overs
     * without end, and no decode pool behind it meets: Llama-3.1-8B at 20 requests/s of 4,000-token
     * prompts over 1 GB/s, 0.52 s a transfer, took 7 prefill instances where 12 send them) */
    {
        const double link = plan_pool_link_qps(in, g, tp_p);
        if (link > 0) {
            const double need = ceil(in->rate_qps / (PLAN_LINK_LOAD * link) - 1e-9);
            if (need > (double)x && need <= (double)PLAN_INSTANCE_CAP) {
                const long nx = (long)need, next = pool_limit(in, best, gi, tp_p, nx, tp_d);
                if (next < 1) { /* that many prefill instances cannot beat the best plan */
                    o->disagg = true;
                    o->prefill_tp = lay_n(tp_p);
                    o->prefill_mode = lay_mode(tp_p);
                    o->prefill_instances = nx;
                    snprintf(o->reason, sizeof o->reason,
                             "its KV links need %ld prefill instances to send %.3g requests/s: more GPUs than the "
                             "best plan", nx, in->rate_qps);
                    return LLMROOF_OK;
                }
                x = nx;
                limit = next;
            }
        }
    }
    for (int more = 0;; more++) {
        const double prev_ttft = more > 0 ? ev.ttft_s : 0;
        if ((rc = smallest_pool(in, g, true, tp_p, x, tp_d, true, limit, &y, &ev, &o->evaluations, err)))
            return rc;
        if (y > 0 || more == PLAN_PREFILL_MORE || ev.fails != PLAN_BIND_TTFT || ev.overloaded || ev.by_bound ||
            ev.errors || (more > 0 && !(ev.ttft_s < 0.98 * prev_ttft)))
            break;
        const long next = pool_limit(in, best, gi, tp_p, x + 1, tp_d);
        if (next < 1)
            break;
        x++;
        limit = next;
    }
    o->disagg = true;
    {
        const struct llmroof_setup sp = plan_setup_for(in, g, tp_p), sd = plan_setup_for(in, g, tp_d);
        o->kv_link_Bps = plan_kv_link_Bps(in, &sp, x, &sd, y);
    }
    o->prefill_tp = lay_n(tp_p);
    o->prefill_mode = lay_mode(tp_p);
    o->prefill_instances = x;
    plan_layout_label(in, o->prefill_tp, o->prefill_mode, o->prefill_layout, sizeof o->prefill_layout);
    if (y == 0) {
        rate_reason(in, o, "decode", &ev, best);
        return LLMROOF_OK;
    }
    o->decode_instances = y;
    o->instances = x + y;
    rate_fill(in, o, &ev);
    return LLMROOF_OK;
}

int plan_cand_cmp(const void *a, const void *b)
{
    const struct rate_cand *p = a, *q = b;
    if (p->lb_gpus != q->lb_gpus)
        return p->lb_gpus < q->lb_gpus ? -1 : 1;
    return p->oi < q->oi ? -1 : p->oi > q->oi;
}

/* Rate plans: every aggregated GPU x TP, then per GPU a disaggregated layout per decode TP behind
 * the prefill pool of fewest GPUs. The rows are laid out in that order first, each unusable one
 * with its reason; the searches then run in the order of the fewest GPUs their capacity bound
 * allows, each limited to the instances that could still beat the best plan found so far
 * (docs/planning.md, "Pruning against the best plan found"). */
/* Rate plans of one GPU, or --exhaustive: no row is pruned against another (plan_could_win and
 * pool_limit let every row search to PLAN_INSTANCE_CAP), so each row's search is its own task on
 * par_for's threads, writing only its row; the plan is the same at any thread count. The caller's
 * stop reaches the simulations through par_stop (asked on the caller's thread alone), its
 * progress through the tick. */
struct rate_solve {
    const struct plan_input *in; /* the caller's, its stop shared (par_stop_shared) */
    struct plan_result *out;
    const struct rate_cand *cands;
    int *rc;                 /* each task's status, by its index in cands */
    struct llmroof_err *err; /* and its message */
    bool *ran;
};

static void rate_solve_one(void *ctx, int ci)
{
    const struct rate_solve *r = ctx;
    const struct rate_cand *k = &r->cands[ci];
    struct plan_option *o = &r->out->options[k->oi];
    const struct plan_best none = plan_best_start(r->in); /* read only by the pruning this mode skips */
    int rc = k->disagg ? plan_rate_disagg(r->in, k->gi, k->code_p, k->x, k->code, PLAN_INSTANCE_CAP, &none, o,
                                          &r->err[ci])
                       : rate_aggregated(r->in, k->gi, k->code, PLAN_INSTANCE_CAP, &none, o, &r->err[ci]);
    if (rc == LLMROOF_OK && o->feasible && !k->disagg)
        rc = plan_option_figures(r->in, k->code, 0, o, &r->err[ci]);
    r->rc[ci] = rc;
    r->ran[ci] = true;
}

static int rate_rows_parallel(const struct plan_input *in, struct plan_result *out, const struct rate_cand *cands,
                              int n, struct llmroof_err *err)
{
    const size_t m = n > 0 ? (size_t)n : 1;
    int *rcs = calloc(m, sizeof *rcs);
    bool *ran = calloc(m, sizeof *ran);
    struct llmroof_err *errs = calloc(m, sizeof *errs);
    int rc = LLMROOF_OK;
    if (!rcs || !ran || !errs) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto done;
    }
    struct par_stop stop;
    par_stop_init(&stop, in->sim.stop);
    struct plan_input shared = *in;
    shared.sim.stop = par_stop_shared(&stop);
    const struct rate_solve r = { &shared, out, cands, rcs, errs, ran };
    struct plan_tick t = { in, n, &stop, 0 }; /* 0 of n reported above */
    if (in->progress)
        in->progress(in->progress_ctx, 0, n);
    par_for(n, in->threads, rate_solve_one, (void *)&r, plan_tick, &t);
    /* errors in the rows' order, as the serial search met them; a stop ends the plan */
    int finished = 0;
    for (int ci = 0; ci < n; ci++) {
        if (!ran[ci] || rcs[ci] == LLMROOF_ESTOPPED) {
            rc = llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after %d of %d options", finished, n);
            goto done;
        }
        if (rcs[ci]) {
            *err = errs[ci];
            rc = rcs[ci];
            goto done;
        }
        finished++;
    }
    if (in->progress)
        in->progress(in->progress_ctx, n, n);
done:
    free(rcs);
    free(ran);
    free(errs);
    return rc;
}

int plan_rate(const struct plan_input *in, struct plan_result *out, struct llmroof_err *err)
{
    int rc;
    /* the layouts: every n of the TP list, and for MoE models the searched forms */
    int codes[PLAN_MODES * PLAN_MAX_TPS];
    const int ncodes = plan_codes(in, codes);
    static const int max_cands = PLAN_MAX_OPTIONS;
    struct rate_cand *cands = calloc((size_t)max_cands, sizeof *cands);
    if (!cands)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    int ncands = 0;
    for (int gi = 0; gi < in->ngpus; gi++) {
        const struct llmroof_gpu *g = in->gpus[gi];
        bool usable[PLAN_MODES * PLAN_MAX_TPS] = { false };
        double floor_s[PLAN_MODES * PLAN_MAX_TPS] = { 0 };
        char why[PLAN_MODES * PLAN_MAX_TPS][sizeof out->options[0].reason];
        for (int li = 0; li < ncodes; li++) {
            const int oi = out->noptions;
            struct plan_option *o = plan_new_option(out, in, gi, codes[li]);
            if ((rc = plan_layout_check(in, g, codes[li], o->reason, sizeof o->reason, err)))
                goto done;
            memcpy(why[li], o->reason, sizeof why[li]);
            if (o->reason[0])
                continue;
            usable[li] = true;
            floor_s[li] = plan_tpot_floor_s(in, g, codes[li]);
            if (floor_s[li] > in->tpot_slo_s) {
                /* no count can help: not simulated (docs/planning.md, "Bounds before simulating") */
                tpot_floor_miss(in, o, floor_s[li]);
                continue;
            }
            const long lb = pool_ruled_out(in, g, false, codes[li], false) + 1;
            cands[ncands++] = (struct rate_cand){ oi, gi, codes[li], false, 0, 0,
                                                  plan_pools_gpus(in, g, codes[li], lb, 0, 0, NULL) };
        }
        /* the prefill pool: fewest GPUs over the usable layouts; an engine that batches statically
         * (HF generate()) serves whole requests and has none */
        const bool static_eng = in->eff.engine && in->eff.engine->static_batching;
        /* an engine that runs no prefill and decode pools (TGI, vLLM before 0.6, LMDeploy 0.1-0.5)
         * has no disaggregated layout either */
        const bool no_pd = in->eff.engine && !in->eff.engine->static_batching && !in->eff.engine->disaggregation;
        long best_x = 0;
        int best_code = 0, evals = 0;
        /* where no prefill pool meets: the searched layout that came closest (its first token
         * soonest), or one whose requests the engine rejects, for the rows' reason */
        struct rate_eval miss = { 0 };
        int miss_code = 0;
        for (int li = 0; li < ncodes; li++) {
            if (!usable[li] || static_eng || no_pd || plan_code_pipelined(in, codes[li]))
                continue;
            long x = 0;
            struct rate_eval ev;
            if ((rc = smallest_pool(in, g, true, codes[li], 0, codes[li], false, PLAN_INSTANCE_CAP, &x, &ev, &evals,
                                    err)))
                goto done;
            if (x > 0 && (best_x == 0 || x * plan_inst_gpus(in, codes[li]) < best_x * plan_inst_gpus(in, best_code))) {
                best_x = x;
                best_code = codes[li];
            }
            if (x == 0 && miss.fails != PLAN_BIND_REJECTED &&
                (miss_code == 0 || ev.fails == PLAN_BIND_REJECTED || ev.ttft_s < miss.ttft_s)) {
                miss = ev;
                miss_code = codes[li];
            }
        }
        for (int li = 0; li < ncodes; li++) {
            const int oi = out->noptions;
            struct plan_option *o = plan_new_option(out, in, gi, codes[li]);
            o->disagg = true;
            o->evaluations = evals;
            if (!usable[li]) {
                memcpy(o->reason, why[li], sizeof o->reason);
                continue;
            }
            if (static_eng) {
                snprintf(o->reason, sizeof o->reason, "engine %s batches statically (whole requests in one instance): "
                         "no disaggregated serving", in->eff.engine->id);
                continue;
            }
            if (no_pd) {
                snprintf(o->reason, sizeof o->reason, "engine %s serves no disaggregated prefill and decode pools",
                         in->eff.engine->id);
                continue;
            }
            /* a disaggregated pool's pipeline stages run as one batch in the simulation (no lanes,
             * sim_pipeline_lanes): a TP-2+PP-2 decode pool read TPOT 63.5 ms at 30 sequences where
             * its two lanes take 50.0, so the plan bought 17 decode instances (a review); the
             * prefill pool searches no pipelined layout either */
            if (plan_code_pipelined(in, codes[li])) {
                snprintf(o->reason, sizeof o->reason, "a disaggregated pool's pipeline stages are not simulated as "
                         "lanes: plan this layout aggregated");
                continue;
            }
            if (best_x == 0) {
                char ml[32];
                plan_layout_label(in, lay_n(miss_code), lay_mode(miss_code), ml, sizeof ml);
                if (miss.fails == PLAN_BIND_REJECTED)
                    plan_rejected_reason(in, g, miss.rejected_share, o->reason, sizeof o->reason);
                else
                    /* a TTFT that stopped falling ends the search before the cap: "of up to 256
                     * instances" had headed a search that stopped at 2 */
                    if (miss.floor && !miss.overloaded)
                        snprintf(o->reason, sizeof o->reason, "no prefill pool meets p%d TTFT <= %.8g ms: at %ld x %s "
                                 "prefill instances p%d TTFT is %.0f ms and no longer falls with more",
                                 in->percentile, in->ttft_slo_s * 1e3, miss.at, ml, in->percentile, miss.ttft_s * 1e3);
                    else
                        snprintf(o->reason, sizeof o->reason, "no prefill pool of up to %d instances meets p%d TTFT <= "
                                 "%.8g ms (closest: %ld x %s prefill instances, %s, p%d TTFT %.0f ms)", PLAN_INSTANCE_CAP,
                                 in->percentile, in->ttft_slo_s * 1e3, miss.at, ml,
                                 miss.overloaded ? "overloaded" : "at the search limit", in->percentile,
                                 miss.ttft_s * 1e3);
                continue;
            }
            if (floor_s[li] > in->tpot_slo_s) {
                o->prefill_tp = lay_n(best_code);
                o->prefill_mode = lay_mode(best_code);
                o->prefill_instances = best_x;
                plan_layout_label(in, o->prefill_tp, o->prefill_mode, o->prefill_layout, sizeof o->prefill_layout);
                tpot_floor_miss(in, o, floor_s[li]);
                continue;
            }
            const long lb = pool_ruled_out(in, g, true, codes[li], true) + 1;
            cands[ncands++] = (struct rate_cand){ oi, gi, codes[li], true, best_code, best_x,
                                                  plan_pools_gpus(in, g, best_code, best_x, codes[li], lb, NULL) };
        }
    }
    /* the searches, most promising first */
    qsort(cands, (size_t)ncands, sizeof *cands, plan_cand_cmp);
    if (in->exhaustive || in->ngpus < 2) { /* nothing pruned: every row on the threads */
        rc = rate_rows_parallel(in, out, cands, ncands, err);
        goto done;
    }
    struct plan_best best = plan_best_start(in);
    for (int ci = 0; ci < ncands; ci++) {
        const struct rate_cand *k = &cands[ci];
        struct plan_option *o = &out->options[k->oi];
        if (in->progress)
            in->progress(in->progress_ctx, ci, ncands);
        if (stop_asked(&in->sim.stop)) { /* the simulations ask it too; --fast runs none */
            rc = llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after %d of %d options", ci, ncands);
            goto done;
        }
        const long limit = pool_limit(in, &best, k->gi, k->code_p, k->x, k->code);
        if (!plan_could_win(in, &best, k->gi, k->lb_gpus)) {
            /* the fewest instances the capacity bound allows already need more GPUs than the best */
            if (k->disagg) {
                o->prefill_tp = lay_n(k->code_p);
                o->prefill_mode = lay_mode(k->code_p);
                o->prefill_instances = k->x;
                plan_layout_label(in, o->prefill_tp, o->prefill_mode, o->prefill_layout, sizeof o->prefill_layout);
            }
            o->pruned = true;
            snprintf(o->reason, sizeof o->reason,
                     "not simulated: its capacity bound needs at least %ld GPUs: %s than the best plan found by then "
                     "(%s)", k->lb_gpus, plan_prune_what(in), plan_bound_text(best.gpus, best.has_cost, best.cost, (char[64]){ 0 }, 64));
            continue;
        }
        if (k->disagg)
            rc = plan_rate_disagg(in, k->gi, k->code_p, k->x, k->code, limit, &best, o, err);
        else
            rc = rate_aggregated(in, k->gi, k->code, limit, &best, o, err);
        if (rc)
            goto done;
        if (o->feasible && !k->disagg && (rc = plan_option_figures(in, k->code, 0, o, err)))
            goto done;
        plan_best_update(in, &best, o);
    }
    if (in->progress)
        in->progress(in->progress_ctx, ncands, ncands);
    rc = LLMROOF_OK;
done:
    free(cands);
    return rc;
}
