/* plan.c - capacity planner (see llmroof/plan.h). */
#include "serve/plan.h"
#include "base/par.h"
#include "model/arch.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *plan_binding_name(enum plan_binding b)
{
    switch (b) {
    case PLAN_BIND_NONE: return "none";
    case PLAN_BIND_TTFT: return "ttft";
    case PLAN_BIND_TPOT: return "tpot";
    case PLAN_BIND_CAP: return "search-limit";
    case PLAN_BIND_LOAD: return "overload";
    case PLAN_BIND_SEQS: return "max-seqs";
    case PLAN_BIND_REFUSED: return "max-concurrent-requests";
    case PLAN_BIND_REJECTED: return "rejected";
    }
    return "?";
}

/* Why the engine rejects some of the workload's requests whatever the count of instances, for a
 * row's reason: a prompt above the token budget of an engine that refuses one without chunked
 * prefill (TensorRT-LLM), or a request longer than an instance's KV cache or --max-model-len
 * (sim.c's rejections, which no instance count changes). share: the run's rejected share, < 0 when
 * not known. */
static void rejected_reason(const struct plan_input *in, const struct llmroof_gpu *g, double share, char *buf,
                            size_t size)
{
    const struct sim_config c = plan_sim_config(in, g);
    char part[48] = "some of ";
    if (share > 0)
        snprintf(part, sizeof part, "%.1f%% of ", 100.0 * share);
    if (c.prompt_within_budget && !c.chunked_prefill)
        snprintf(buf, size, "misses at any size: the engine rejects %sthe workload's requests, those whose prompt is "
                            "above its %ld-token budget, which it refuses without chunked prefill, or whose prompt + "
                            "output exceed an instance's KV cache; a larger --max-batched-tokens holds the first",
                 part, c.max_batched_tokens);
    else
        snprintf(buf, size, "misses at any size: the engine rejects %sthe workload's requests, those whose prompt + "
                            "output exceed an instance's KV cache%s",
                 part, c.max_model_len > 0 ? " or whose prompt exceeds --max-model-len" : "");
}

/* What a users search missed, for its reasons: an SLO, or the engine's concurrency limit */
static const char *binding_miss(enum plan_binding b)
{
    return b == PLAN_BIND_TPOT ? "TPOT SLO" : b == PLAN_BIND_REFUSED ? "engine's concurrency limit" : "TTFT SLO";
}

static double pick(const struct sim_stats *s, int p)
{
    return p == 50 ? s->p50 : p == 90 ? s->p90 : p == 95 ? s->p95 : s->p99;
}

/* Requests simulated at `users`: enough for stable tails (the studies used a pool of 250), and
 * for the statistics to leave out the start. A closed loop starts with every user sending at t = 0:
 * a burst the steady state never sees, and a batch still filling. Its first USERS_WARMUP x users
 * requests are left out (plan_meets), as rate plans leave out their fill (rate_eval). A review
 * found 4 x users without a warm-up deciding the answer both ways: 376 users per TP-4 70B
 * instance "ttft binds first" at a p90 TTFT of 1998 ms that a 20x run with a warm-up puts at 117
 * ms (too many GPUs), and 872 users per TP-8 13B instance meeting a 3 s TTFT that a long run misses
 * at 4.2 s (too few). */
#define USERS_POOL 8
#define USERS_WARMUP 2
static long pool_for(long users)
{
    long r = USERS_POOL * users;
    return r < 250 ? 250 : r > 40000 ? 40000 : r;
}

/* Mean lengths of the workload, by sampling (fixed seed, so plans are reproducible). */
/* Decimals for a value over its limit (ms): *dl, from `min` to 3, at which the limit prints as
 * given (an SLO of 3031.6 ms reads 3031.6, not 3032), and the returned count, from *dl to 3, at
 * which the value prints above it (a TTFT of 3000.379 ms over 3000 reads "3000.4", not "3000 ms,
 * over its 3000 ms"). */
static int over_decimals(double value, double limit, int min, int *dl)
{
    int l = min;
    while (l < 3 && fabs(round(limit * pow(10.0, l)) - limit * pow(10.0, l)) > 1e-6)
        l++;
    *dl = l;
    int d = l;
    while (d < 3 && round(value * pow(10.0, d)) <= round(limit * pow(10.0, d)))
        d++;
    return d;
}

static void mean_lengths(const struct workload *w, uint64_t seed, double *p, double *o)
{
    struct llmroof_rng r;
    rng_seed(&r, seed ^ 0x5eedull);
    double sp = 0, so = 0;
    const int n = w->kind == WORKLOAD_FIXED ? 1 : 20000;
    for (int i = 0; i < n; i++) {
        long a, b;
        workload_sample(w, &r, &a, &b);
        sp += (double)a;
        so += (double)b;
    }
    *p = sp / n;
    *o = so / n;
}

struct sim_config plan_sim_config(const struct plan_input *in, const struct llmroof_gpu *g)
{
    struct sim_config c = in->sim;
    c.setup.model = in->model; /* the engine's budget may follow the model's context */
    sim_config_engine(&c, in->eff.engine, g, in->keep_budget, in->keep_seqs);
    return c;
}

double plan_kv_link_Bps(const struct plan_input *in, const struct llmroof_gpu *g, int tp_p, int tp_d)
{
    if (!in->kv_link_nvlink)
        return in->sim.kv_link_Bps;
    /* a prefill and a decode instance in one NVLink domain hand over on it; a pair that cannot
     * share one (2 x TP 8 on 8-GPU HGX nodes) crosses the network: 400 Gb/s NDR per GPU */
    const int dom = g->domain_gpus > 0 ? g->domain_gpus : plan_node_gpus(in, g);
    return tp_p + tp_d <= dom ? g->link_bw_Bps : g->net_bw_Bps > 0 ? g->net_bw_Bps : 50e9;
}

void plan_instance_limits(const struct plan_input *in, const struct llmroof_gpu *g, int attn_dp, long *max_seqs,
                          long *max_batched_tokens)
{
    const struct sim_config c = plan_sim_config(in, g);
    /* each attention rank schedules alone with its share (sim.c engine_init): the instance holds
     * the ranks' shares together */
    const long n = attn_dp > 1 ? attn_dp : 1;
    *max_seqs = sim_rank_share(&c, (int)n, c.max_seqs) * n;
    *max_batched_tokens = sim_rank_share(&c, (int)n, c.max_batched_tokens) * n;
}

/* The running-sequence limit of a whole instance of layout `code` on g: each attention rank's
 * share times the ranks (sim.c), the limit without data-parallel attention. */
static struct llmroof_setup setup_for(const struct plan_input *in, const struct llmroof_gpu *g, int tp);
static long instance_max_seqs(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    const struct llmroof_setup s = setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    struct llmroof_shard sh;
    long seqs = 0, toks = 0;
    plan_instance_limits(in, g, ops_shard_layout(in->model, &lay, &sh, NULL) == 0 ? sh.attn_dp : 1, &seqs, &toks);
    return seqs;
}

/* Memory options of an instance on g (as sim.c sizes them): the workspace of the whole
 * instance's budget, which memory_eval_layout shares over its attention ranks. */
static struct llmroof_mem_opts mem_opts_for(const struct plan_input *in, const struct llmroof_gpu *g, int attn_dp)
{
    long seqs, toks;
    plan_instance_limits(in, g, attn_dp, &seqs, &toks);
    /* with the engine's KV pool rule (its mem_util, kv_of_free_memory), as the simulated rows */
    struct llmroof_mem_opts mo = plan_sim_config(in, g).mem;
    mo.max_batched_tokens = (double)toks;
    mo.max_seqs = (double)seqs;
    return mo;
}

/* One --fast step: B decodes at context ctx and q prompts of P tokens (those arriving during the
 * step), at most cap_tok prompt tokens on a replica. With data-parallel attention the replicas
 * meet at every MoE layer and the busiest sets the step (as the simulator's target_time): the q
 * prompts land on one replica while q <= 1 (it prefills q P tokens on average; linear costs make
 * the mean step the mean load's), on q replicas up to n, then q / n each; the experts see every
 * replica's tokens. A prefill-first engine (SGLang, vLLM before 0.6) runs the prompts in a
 * prompt-only iteration that stalls the decodes: the step is then a cycle, a decode iteration
 * plus, for q < 1 in a share q of the cycles, one prompt's iteration (q >= 1: all q of them). */
/* The engine's work beside a --fast step's GPU time, as estimate and the simulator take it: TGI
 * 0.8's copy of its contiguous K/V (B decodes at context ctx, roofline_kv_copy_s) and the CPU work
 * per scheduled sequence (roofline_cpu_step_s; the API server's streaming is left out, as
 * estimate leaves it). */
static double fast_engine_s(const struct llmroof_setup *s, const struct llmroof_shard *sh, double gpu_s, double B,
                            double ctx, double seqs)
{
    double t = gpu_s;
    if (s->eff.kv_copy && B >= 2) {
        double copy_s = 0.0;
        struct llmroof_err e2 = { 0 };
        estimate_kv_copy_s(s, B * ctx, &copy_s, &e2); /* a layout that does not build: checked before */
        t += copy_s;
    }
    const double workers = sh->gpus > 1 || s->eff.ray_workers ? (double)sh->gpus : 0.0;
    return roofline_cpu_step_s(&s->eff, t, seqs, workers, false, 0.0, 0.0, B * ctx);
}

static double fast_pass(const struct llmroof_setup *s, const struct llmroof_shard *sh, double B, double ctx, double P,
                        double q, double cap_tok, double past)
{
    /* the step's prompt tokens as one sequence (batch_add counts one, so none when there are none) */
    const double seqs = B + (q > 0 ? q : 0.0);
    if (sh->attn_dp <= 1) {
        struct llmroof_batch b = batch_decode(B, ctx);
        if (q > 0)
            batch_add(&b, fmin(q * P, cap_tok), past, &sh->few);
        return fast_engine_s(s, sh, sim_step_time(s, sh, &b), B, ctx, seqs);
    }
    const double n = (double)sh->attn_dp;
    const double busy = fmin(P * fmax(q / n, fmin(q, 1.0)), cap_tok);
    struct llmroof_batch hot = batch_decode(estimate_busiest_seqs(B, sh->attn_dp), ctx);
    struct llmroof_batch all = batch_decode(B, ctx);
    if (q > 0) {
        batch_add(&hot, busy, past, &sh->few);
        batch_add(&all, fmin(q * P, n * cap_tok), past, &sh->few);
    }
    const struct llmroof_batch least = batch_decode(floor(B / n), ctx);
    struct llmroof_oplist ops;
    struct llmroof_phase ph;
    estimate_ops_replicas(s->model, sh, &s->dt, &hot, &all, &least, &ops);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &ph);
    return fast_engine_s(s, sh, ph.time_s, B, ctx, seqs);
}

/* One plan_step_fixed_point solve. Its step f(t) at the prompts arriving in t (q of them): the
 * pass over the B decodes and q prompts, or for a prefill-first engine the decode iteration plus,
 * for q < 1 in a share q of the cycles, one prompt iteration (q >= 1: all q prompts in it), whose
 * decode pass (no prompts) is taken once a solve */
struct fp_solve {
    const struct llmroof_setup *s;
    const struct llmroof_shard *sh;
    bool prefill_first;
    double B, ctx, P, cap_tok;
    double t_dec; /* fast_pass of the B decodes alone */
};
/* f at q prompts */
static double fp_step(const struct fp_solve *fp, double q)
{
    if (!fp->prefill_first)
        return q > 0 ? fast_pass(fp->s, fp->sh, fp->B, fp->ctx, fp->P, q, fp->cap_tok, 0.0) : fp->t_dec;
    if (!(q > 0))
        return fp->t_dec;
    /* the prompt iteration holds prompts only (a batch of no decodes: B = 0) */
    return fp->t_dec + fmin(q, 1.0) * fast_pass(fp->s, fp->sh, 0.0, fp->ctx, fp->P, fmax(q, 1.0), fp->cap_tok, 0.0);
}

/* (plan.h) Fixed-point passes settle t when the prompts take a small share of a step; otherwise
 * it is bisected below the full step, which bounds it. Passes alone, unbounded, had failed: at
 * 198 users of Llama-65B on TP-4 A100s the first guess (X = 66 requests/s) has no fixed point, t
 * grew to 1e168 s, and 200 damped passes of the response time never came back, leaving the
 * answer at X ~ 0, a TPOT without its prompts (71.6 ms where the settled load gives 80). */
bool plan_step_fixed_point(const struct llmroof_setup *s, const struct llmroof_shard *sh, bool prefill_first,
                           double B, double ctx, double P, double rate_req, double cap_tok, double *t_out)
{
    const double n = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    struct fp_solve fp = { s, sh, prefill_first, B, ctx, P, cap_tok, fast_pass(s, sh, B, ctx, P, 0.0, cap_tok, 0.0) };
    /* every replica prefilling its whole room: the longest step, and the most prompt tokens one holds */
    const double t_full = fp_step(&fp, n * cap_tok / P);
    *t_out = t_full;
    if (!(rate_req * P * t_full < n * cap_tok))
        return false; /* the prompts arriving fill every step: no step holds them all */
    /* passes t = f(t) from the decode-only step rise to the least fixed point: f rises with t, but
     * f(t) - t need not fall (the roofline's thresholds, CUDA-graph sizes among them, make f jump),
     * so a root finder on [t_dec, t_full] could settle on a later one */
    const double t_dec = fp.t_dec;
    double t = t_dec;
    for (int k = 0; k < 20; k++) {
        const double tn = fp_step(&fp, rate_req * t);
        if (fabs(tn - t) <= 1e-9 * tn) {
            *t_out = tn;
            return true;
        }
        t = tn;
    }
    /* f(t) rises with t; f(t_dec) > t_dec and f(t_full) <= t_full (its prompts are fewer than the
     * cap's): the fixed point lies between */
    double lo = t_dec, hi = t_full;
    for (int k = 0; k < 60 && hi - lo > 1e-9 * hi; k++) {
        const double mid = 0.5 * (lo + hi);
        if (fp_step(&fp, rate_req * mid) <= mid)
            hi = mid;
        else
            lo = mid;
    }
    *t_out = hi;
    return true;
}

/* The --fast model: a closed loop of N users with mean think Z in steady state (the
 * interactive response-time law, X = N / (Z + R), and Little's law; Lazowska et al.,
 * "Quantitative System Performance", ch. 5, bottleneck analysis). With mean response time R:
 * - the sequences in service hold B = X * S, S = TTFT_service + (O - 1) t, capped by --max-seqs
 *   and the KV cache (cap_batch);
 * - an iteration holds those B decodes plus the prompt tokens arriving meanwhile, X P t, at most
 *   the budget's room: a chunked step's budget less its decodes (vLLM and SGLang schedule the
 *   running decodes first and fill the rest with prompt chunks), a whole-prompt engine's budget;
 *   its roofline time t (plan_step_fixed_point; a prefill-first engine's decode iteration with its
 *   share of prompt iterations, data-parallel attention's busiest replica) is TPOT, TTFT_service
 *   = t (prompt chunks + 1/2);
 * - two resources cap the throughput: the sequence slots, X <= cap / S, and the prompt room,
 *   X <= replicas x room / (P t_full) where the prompts fill every step; a closed loop beyond
 *   either waits: R = N / X_max - Z, the wait added to TTFT.
 * R = F(R) is solved by bisection (fast_latency). Means stand in for percentiles. Until session 33
 * the prompts were not held to the budget: Llama-3.1-70B at 2000-token prompts and a budget of
 * 256 read 149 users an instance, each step 565 prompt tokens, where the simulation serves 21-36. */
struct fast_solve {
    const struct llmroof_setup *s;
    const struct llmroof_shard *sh;
    double N, P, O, Z, cap, budget, chunks;
    bool chunked, prefill_first;
};

/* A prompt's time in service to its first token: t (chunks + 1/2), the mean step t for each of its
 * chunks and half a step's wait, but no less than the steps that carry its own chunks take: each
 * holds the chunk beside the B decodes (a prefill-first engine's prompt-only iterations hold the
 * chunk alone, the decodes stalled), plus the half-step wait. The mean step counts the arriving
 * prompts' mean share of a step, at a light load a sliver of one prompt: Llama-3.1-70B on 8 H200s,
 * one user of 24,500-token prompts in 2,048-token chunks, had read 12.5 decode steps (~0.2 s) where
 * its 12 chunks take 1.0 s (estimate's TTFT at batch 1: 1.04 s). */
static double fast_ttft_service(const struct fast_solve *f, double B, double room, double t)
{
    const double mean = t * (f->chunks + 0.5);
    /* an engine without chunked prefill runs the prompt whole in one pass, alone where it is above
     * the budget (sim_sched.c: "a whole prompt above the budget runs where nothing else does") */
    const double c = f->chunked ? fmin(f->P, room) : f->P, k = ceil(f->P / c), last = f->P - (k - 1.0) * c;
    const double Bo = f->prefill_first || (!f->chunked && f->P > f->budget) ? 0.0 : B;
    /* chunk i attends to the i c tokens cached before it: the full chunks at their mean past
     * ((k - 2) c / 2; attention's pairs and K/V reads are linear in it), the last after (k - 1) c */
    const double ctx = f->P + f->O / 2;
    const double full = k > 1.0 ? fast_pass(f->s, f->sh, Bo, ctx, c, 1.0, c, 0.5 * (k - 2.0) * c) : 0.0;
    const double tail = fast_pass(f->s, f->sh, Bo, ctx, last, 1.0, c, (k - 1.0) * c);
    const double own = (k - 1.0) * full + tail + 0.5 * t;
    return own > mean ? own : mean;
}

/* The response time the model gives when users see a response time R (the right side of the
 * closed loop's equation R = F(R)), with that load's TTFT and TPOT. The sequences in service are
 * those past any wait, B = X S (Little's law over the service time S), solved with S: the
 * waiting users hold no decode slot and take no step's room. */
static double fast_response(const struct fast_solve *f, double R, double *ttft, double *tpot)
{
    const double X = f->N / (f->Z + R);
    double S = R, t = 0, room = f->budget;
    bool fits = true;
    const double n = f->sh->attn_dp > 1 ? (double)f->sh->attn_dp : 1.0;
    for (int k = 0; k < 60; k++) {
        const double B = fmax(1.0, fmin(X * S, f->cap));
        /* a replica's room: its budget less its own decodes */
        const double Br = B / n;
        room = f->chunked && !f->prefill_first ? fmax(1.0, f->budget - fmin(Br, f->budget - 1.0)) : f->budget;
        fits = plan_step_fixed_point(f->s, f->sh, f->prefill_first, B, f->P + f->O / 2, f->P, X, room, &t);
        const double Sn = fast_ttft_service(f, B, room, t) + (f->O - 1) * t;
        if (fabs(Sn - S) <= 1e-9 * Sn) {
            S = Sn;
            break;
        }
        S = k < 20 ? Sn : 0.5 * (S + Sn);
    }
    double X_max = f->cap / S;
    if (!fits)
        X_max = fmin(X_max, n * room / (f->P * t));
    const double Rn = f->N / (f->Z + S) > X_max ? f->N / X_max - f->Z : S;
    *ttft = Rn - (f->O - 1) * t;
    *tpot = t;
    return Rn;
}

static void fast_latency(const struct plan_input *in, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                         long users, double P, double O, double cap_batch, double *ttft, double *tpot)
{
    const struct sim_config sc = plan_sim_config(in, s->gpu);
    /* a prompt runs on one rank: the per-rank budget (each rank's share, sim_rank_share, as the
     * simulator schedules it) sets its chunks and each step's room */
    const double rank_tok = (double)sim_rank_share(&sc, sh->attn_dp, sc.max_batched_tokens);
    const struct fast_solve f = { s, sh, (double)users, P, O, (in->sim.think_min_s + in->sim.think_max_s) / 2,
                                  cap_batch, rank_tok, ceil(P / rank_tok), sc.chunked_prefill, sc.prefill_first };
    /* F(R) - R is positive at R -> 0 (F >= the service time S > 0) and negative for R large
     * (the load X = N / (Z + R) vanishes and F tends to S): bisect for the root. Damped passes
     * had oscillated where the prompts' room binds (Llama-3.1-8B on an L4 at 14 users of code
     * completions: R swung between 2.1 and 10.4 s for 300 passes). F need not fall: it jumps
     * up as well as down (Granite-4.0-H-Tiny on an L4 as DPA-2+EP-2 under vLLM at 305 users: the
     * step rises by 0.3 ms as the load falls past R = 33.883 s), so F(R) - R can cross 0 more than
     * once, and which crossing a root finder settles on depends on the points it tries. The
     * bisection's midpoints choose the one plan has always printed; Brent's method (session 46,
     * 11 evaluations instead of 37) chose others there: R 33.968 against 33.865 s, TPOT 100.2
     * against 99.9 ms, 304 users an instance against 305 (test_plan.c
     * fast_plans_keep_the_bisections_root) */
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 60 && fast_response(&f, hi, ttft, tpot) > hi; k++)
        hi *= 2.0;
    for (int k = 0; k < 100 && hi - lo > 1e-9 * hi; k++) {
        const double mid = 0.5 * (lo + hi);
        if (fast_response(&f, mid, ttft, tpot) > mid)
            lo = mid;
        else
            hi = mid;
    }
    /* the loop settles at the root R; where a bottleneck binds only beyond it F jumps there (the
     * prompts' room fills: below R the load waits for it, above it nothing waits), and the
     * users' response time is the root itself, the wait its part before the first token */
    fast_response(&f, hi, ttft, tpot);
    *ttft = fmax(*ttft, hi - (O - 1) * *tpot);
}

static void lname(const struct plan_input *in, int n, int mode, char *buf, size_t size);

int plan_meets(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long users, bool *meets,
               double *ttft_s, double *tpot_s, enum plan_binding *fails, double *preempt_per_request,
               struct llmroof_err *err)
{
    if (preempt_per_request)
        *preempt_per_request = 0;
    struct sim_config c = plan_sim_config(in, g);
    bool slots_full = false; /* every sequence slot was taken at this load */
    c.progress = NULL; /* the plan reports its rows, not each simulation */
    c.setup = setup_for(in, g, tp);
    c.mode = SIM_CLOSED;
    c.concurrency = users;
    c.requests = pool_for(users);
    /* the start's burst and fill left out: at most a quarter of the run */
    c.warmup_requests = USERS_WARMUP * users < c.requests / 4 ? USERS_WARMUP * users : c.requests / 4;
    c.record_iterations = false;
    if (in->fast) {
        int rc = estimate_check(&c.setup, err);
        if (rc)
            return rc;
        struct llmroof_shard sh;
        const struct llmroof_layout lay = estimate_layout(&c.setup);
        ops_shard_layout(in->model, &lay, &sh, NULL);
        struct llmroof_mem_opts mo = mem_opts_for(in, g, sh.attn_dp);
        struct llmroof_memory mem;
        if ((rc = memory_eval_layout(in->model, g, &lay, &in->dt, 1, &mo, &mem, err)))
            return rc;
        double P = in->mean_prompt, O = in->mean_output;
        if (!(P > 0 && O > 0))
            mean_lengths(c.workload, c.seed, &P, &O);
        /* the sequences the KV cache holds: at their mean length (P + O / 2) where admission is
         * optimistic; a guaranteed-no-evict engine reserves each request's whole prompt and
         * output at admission (TensorRT-LLM; sim.h admit_no_evict), so it holds KV / (P + O) */
        double cap = fmin(mo.max_seqs, mem.kv_capacity_tokens / (c.admit_no_evict ? P + O : P + O / 2));
        if (cap < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s does not fit on %d x %s", in->model->id, mem.gpus,
                                   g->id); /* the layout's GPUs (tp is its code, LAY) */
        fast_latency(in, &c.setup, &sh, users, P, O, cap, ttft_s, tpot_s);
        /* users beyond the engine's concurrency limit (TGI's 128) are refused, as the simulated
         * plan finds: the analytic one cannot count on them */
        if (c.max_concurrent > 0 && users > c.max_concurrent) {
            *meets = false;
            *fails = PLAN_BIND_REFUSED;
            return LLMROOF_OK;
        }
        slots_full = (double)users > mo.max_seqs && mo.max_seqs <= mem.kv_capacity_tokens / (P + O / 2);
    } else {
        struct sim_result r;
        int rc = sim_run(&c, &r, err);
        if (rc)
            return rc;
        *ttft_s = pick(&r.ttft, in->percentile);
        *tpot_s = pick(&r.tpot, in->percentile);
        bool errors = r.errors > 0, refused = r.refused_busy > 0;
        slots_full = r.max_batch >= instance_max_seqs(in, g, tp); /* the whole instance's slots */
        if (preempt_per_request && r.completed > 0)
            *preempt_per_request = (double)r.preemptions / (double)r.completed;
        sim_result_free(&r);
        if (errors) {
            *meets = false;
            /* a refusal is the router's limit (TGI's --max-concurrent-requests), not a slow first token */
            *fails = refused ? PLAN_BIND_REFUSED : PLAN_BIND_REJECTED;
            return LLMROOF_OK;
        }
    }
    bool t1 = *ttft_s <= in->ttft_slo_s, t2 = *tpot_s <= in->tpot_slo_s;
    *meets = t1 && t2;
    /* a TTFT miss with every sequence slot taken and TPOT within its SLO is the sequence limit's:
     * users wait for a slot (--max-seqs), not for the GPU (planner review D4) */
    *fails = !t1 ? (t2 && slots_full ? PLAN_BIND_SEQS : PLAN_BIND_TTFT) : !t2 ? PLAN_BIND_TPOT : PLAN_BIND_NONE;
    return LLMROOF_OK;
}

/* plan_search from `from` users up: the count that must meet for the option to still win
 * (users plans' pruning, plan_run); 1 searches the whole range. A miss at `from` > 1 leaves
 * users_per_instance 0 and o->pruned set. */
static int search_from(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long from,
                       struct plan_option *o, struct llmroof_err *err)
{
    bool ok = false;
    double ttft = 0, tpot = 0, pre = 0;
    enum plan_binding fail = PLAN_BIND_NONE;
    if (from < 1)
        from = 1;
    o->next_users = 0;
    int rc = plan_meets(in, g, tp, from, &ok, &ttft, &tpot, &fail, &pre, err);
    o->evaluations = 1;
    if (rc)
        return rc;
    if (!ok) {
        o->users_per_instance = 0;
        o->ttft_s = ttft;
        o->tpot_s = tpot;
        o->binding = fail;
        o->pruned = from > 1;
        return LLMROOF_OK;
    }
    long lo = from, hi = 2 * from;
    double lo_ttft = ttft, lo_tpot = tpot, lo_pre = pre, hi_ttft = 0, hi_tpot = 0;
    enum plan_binding hi_fail = PLAN_BIND_CAP;
    for (;;) {
        if (hi > PLAN_USER_CAP) {
            hi = PLAN_USER_CAP + 1;
            break;
        }
        if ((rc = plan_meets(in, g, tp, hi, &ok, &ttft, &tpot, &fail, &pre, err)))
            return rc;
        o->evaluations++;
        if (!ok) {
            hi_fail = fail;
            hi_ttft = ttft;
            hi_tpot = tpot;
            break;
        }
        lo = hi;
        lo_ttft = ttft;
        lo_tpot = tpot;
        lo_pre = pre;
        hi *= 2;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if ((rc = plan_meets(in, g, tp, mid, &ok, &ttft, &tpot, &fail, &pre, err)))
            return rc;
        o->evaluations++;
        if (ok) {
            lo = mid;
            lo_ttft = ttft;
            lo_tpot = tpot;
            lo_pre = pre;
        } else {
            hi = mid;
            hi_fail = fail;
            hi_ttft = ttft;
            hi_tpot = tpot;
        }
    }
    o->users_per_instance = lo;
    o->ttft_s = lo_ttft;
    o->tpot_s = lo_tpot;
    o->preempt_per_request = lo_pre;
    o->binding = hi_fail;
    /* the failing load beside the answer: what "binds first" means in figures */
    if (hi_fail != PLAN_BIND_CAP) {
        o->next_users = hi;
        o->next_ttft_s = hi_ttft;
        o->next_tpot_s = hi_tpot;
    }
    return LLMROOF_OK;
}

void plan_stat_name(const struct plan_input *in, char *buf, size_t size)
{
    if (in->fast && !(in->rate_qps > 0))
        snprintf(buf, size, "mean"); /* --fast compares means, not percentiles (fast_latency) */
    else
        snprintf(buf, size, "p%d", in->percentile);
}

int plan_search(const struct plan_input *in, const struct llmroof_gpu *g, int tp, struct plan_option *o,
                struct llmroof_err *err)
{
    return search_from(in, g, tp, 1, o, err);
}


/* ------------------------------------------------------------------------ */
/* Rate plans: clusters sized for an open-loop request rate                 */
/* ------------------------------------------------------------------------ */

/* Requests simulated at a rate: 30 s of arrivals, at least 1000 and at most 4000, enough for
 * stable p90/p99 tails and the overload check's window. */
/* The longest rerun of an evaluation the simulator judged overloaded over too short a window
 * (fewer than 3 request lives): 100,000 requests, enough for 200 requests/s of 4000-token outputs,
 * each living 48 s (57,600; at the 16,000 before, the fill read as overload and the plan bought 50%
 * more GPUs than long runs need) */
#define PLAN_SETTLE_MAX 100000L

static long rate_pool(double rate)
{
    double r = 30.0 * rate;
    return r < 1000 ? 1000 : r > 4000 ? 4000 : (long)r;
}

/* Plans search layouts per n of the TP list in five modes (docs/planning.md): TP n; for MoE
 * models also TP n with the experts expert-parallel over the same n ranks (1), data-parallel
 * attention (n replicas of TP 1) with experts over n ranks (2, the DeepSeek serving layout),
 * TP n x PP 2 (3: 2n GPUs, consecutive halves of the layers), and data-parallel attention with
 * every expert split by width over the n GPUs (4: vLLM's --data-parallel-size without
 * --enable-expert-parallel, SGLang's --enable-dp-attention without --ep-size). Inside this
 * file a layout travels as one int, n | mode << 16. */
#define LAY(n, mode) ((n) | ((mode) << 16))
static int lay_n(int code)
{
    return code & 0xffff;
}
static int lay_mode(int code)
{
    return code >> 16;
}

/* Mode 0 is the plan's own layout (--pp/--ep/--dp-attention applied with every TP, or TP only);
 * modes 1 to 4 are tried for MoE models only when no layout was given. */
static struct llmroof_setup setup_for(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    int n = lay_n(code), mode = lay_mode(code);
    struct llmroof_layout lay = in->layout;
    if (mode >= 1) {
        memset(&lay, 0, sizeof lay);
        lay.ep = mode == 3 || mode == 4 ? 1 : n;
        lay.dp_attn = mode == 2 || mode == 4;
        lay.moe_tp = mode == 4 ? n : 0;
        lay.pp = mode == 3 ? 2 : 1;
    }
    lay.tp = mode == 2 || mode == 4 ? 1 : n;
    /* the engine's graph limit on this GPU at this TP (SGLang's cuda_graph_max_bs by GPU memory),
     * as simulate sets up its instances */
    return (struct llmroof_setup){ in->model, g, lay.tp, in->dt, roofline_effs_tp(g, &in->eff, lay.tp), lay };
}

/* GPUs of one instance of layout `code`: for the plan's own layout (ep when ep > 1, else tp) x pp;
 * the searched expert-parallel layouts use n. */
static int inst_gpus(const struct plan_input *in, int code)
{
    if (lay_mode(code) == 3)
        return 2 * lay_n(code);
    if (lay_mode(code) != 0)
        return lay_n(code);
    const int pp = in->layout.pp > 0 ? in->layout.pp : 1;
    return ops_layout_stage_gpus(&in->layout, lay_n(code)) * pp;
}

/* GPUs in one node of GPU g: --gpus-per-node where given, else the catalog's usual server for that
 * GPU (8 for an HGX H100, 4 for an A10G instance, 1 for a GH200 superchip). */
int plan_node_gpus(const struct plan_input *in, const struct llmroof_gpu *g)
{
    return in->node_set || !g || g->gpus_per_node < 1 ? in->gpus_per_node : g->gpus_per_node;
}

int plan_shared_node_gpus(const struct plan_input *in)
{
    const int gpn = plan_node_gpus(in, in->ngpus > 0 ? in->gpus[0] : NULL);
    for (int gi = 1; gi < in->ngpus; gi++)
        if (plan_node_gpus(in, in->gpus[gi]) != gpn)
            return 0;
    return gpn;
}

/* Whole nodes one instance of `ig` GPUs takes: 1 when it fits in a node (several may share
 * it), else ceil(ig / node): an instance beyond a node owns its nodes, and the model layer
 * costs its collectives beyond the NVLink domain on the network (docs/model.md section 10). */
static int node_span(const struct plan_input *in, const struct llmroof_gpu *g, int ig)
{
    const int gpn = plan_node_gpus(in, g);
    return ig > gpn ? (ig + gpn - 1) / gpn : 1;
}

/* Nodes and GPUs of `inst` instances of layout `code`, added to *packed_gpus (instances within
 * a node, packed into shared nodes later) or *nodes and *gpus (instances spanning whole nodes). */
static void pool_size(const struct plan_input *in, const struct llmroof_gpu *g, long inst, int code, long *packed_gpus,
                      long *nodes, long *gpus)
{
    const int ig = inst_gpus(in, code), span = node_span(in, g, ig);
    if (span > 1) {
        *nodes += inst * span;
        *gpus += inst * span * plan_node_gpus(in, g);
    } else {
        *packed_gpus += inst * ig;
    }
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
};

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
    c.requests = rate_pool(in->rate_qps);
    c.record_iterations = false;
    c.router = SIM_ROUTE_LEAST_LOADED;
    c.setup = setup_for(in, g, tp_p);
    c.ttft_slo_s = in->ttft_slo_s;
    c.tpot_slo_s = y == 0 && disagg ? 0 : in->tpot_slo_s;
    c.slo_percentile = in->percentile;
    if (disagg) {
        c.disaggregated = true;
        /* (both pools on g: the run's budget is theirs) */
        c.prefill = (struct sim_pool){ setup_for(in, g, tp_p), (int)x, 0 };
        c.decode = (struct sim_pool){ setup_for(in, g, tp_d), y > 0 ? (int)y : 1, 0 };
        c.kv_link_Bps = plan_kv_link_Bps(in, g, sim_setup_gpus(&c.prefill.setup), sim_setup_gpus(&c.decode.setup));
        c.first_token_only = y == 0;
    } else {
        c.instances = (int)x;
    }
    struct sim_result r;
    int rc = sim_run(&c, &r, err);
    if (rc)
        return rc;
    for (int again = 0; again < 2; again++) {
        /* A window of fewer than 3 request lives holds a transient: the batch is still filling, so
         * each step is shorter than in the steady state, and an overloaded server and a filling one
         * look the same. Rerun until the window spans 3 lives of the run before (6 x rate x life
         * requests, a life measured while filling: short, hence twice at most), at most
         * PLAN_SETTLE_MAX requests, so the plan neither buys instances for a transient (planner
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
        const double want = ceil(6.0 * in->rate_qps * life_s);
        if (!(want > (double)c.requests) || c.requests >= PLAN_SETTLE_MAX)
            break;
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
    ev->requests = c.requests;
    ev->warmup = c.warmup_requests;
    ev->ttft_s = pick(&r.ttft, in->percentile);
    ev->tpot_s = pick(&r.tpot, in->percentile);
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
    /* a request rejected for its length is rejected at any count of instances (a TTFT miss had
     * been reported where TensorRT-LLM refused 3% of docqa's prompts above its budget); a
     * concurrency limit's refusals are the load's */
    ev->fails = rejected > 0          ? PLAN_BIND_REJECTED
                : ev->overloaded      ? PLAN_BIND_LOAD
                : r.refused_busy > 0  ? PLAN_BIND_REFUSED
                : !t1                 ? PLAN_BIND_TTFT
                : !t2                 ? PLAN_BIND_TPOT
                                      : PLAN_BIND_NONE;
    sim_result_free(&r);
    return LLMROOF_OK;
}

/* The setup, layout and shard of layout `code`, shared by the pool bounds below: false when no
 * bound applies (speculative decoding emits several tokens per step) or the layout does not shard. */
static bool pool_shard(const struct plan_input *in, const struct llmroof_gpu *g, int code,
                       struct llmroof_setup *s, struct llmroof_layout *lay, struct llmroof_shard *sh,
                       struct llmroof_err *e)
{
    if (in->sim.spec.kind != SIM_SPEC_NONE)
        return false;
    *s = setup_for(in, g, code);
    *lay = estimate_layout(s);
    return ops_shard_layout(in->model, lay, sh, e) == 0;
}

/* The searched pool's steady-state service rate per instance (sim_instance_capacity_qps), 0 when
 * it cannot be bounded (speculative decoding, a layout that does not build). */
static double pool_capacity_qps(const struct plan_input *in, const struct llmroof_gpu *g, int code,
                                enum sim_capacity_kind kind)
{
    struct llmroof_setup s;
    struct llmroof_layout lay;
    struct llmroof_shard sh;
    struct llmroof_err e2 = { 0 };
    if (!pool_shard(in, g, code, &s, &lay, &sh, &e2) || estimate_check(&s, &e2))
        return 0;
    struct llmroof_mem_opts mo = mem_opts_for(in, g, sh.attn_dp);
    struct llmroof_memory mem;
    if (memory_eval_layout(in->model, g, &lay, &in->dt, 1, &mo, &mem, &e2))
        return 0;
    /* pipeline lanes (sim_pipeline_lanes) each bound with their share of the KV and of the
     * sequences, as the simulator's */
    const int lanes = sim_pipeline_lanes(&s, (long)mo.max_seqs, in->eff.engine && in->eff.engine->static_batching,
                                         kind != SIM_CAP_AGGREGATED);
    double q = 0;
    for (int j = 0; j < lanes; j++)
        q += sim_instance_capacity_qps(&s, &sh, mem.kv_capacity_tokens * (double)mem.attn_dp / lanes,
                                       sim_lane_seqs((long)mo.max_seqs, lanes, j), (long)mo.max_batched_tokens,
                                       in->mean_prompt, in->mean_output, kind);
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
    const double cap = pool_capacity_qps(in, g, code,
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
    struct rate_eval e, best = { 0 }, prev = { 0 };
    int rc;
    /* the largest count the bound rules out */
    const long ruled_out = pool_ruled_out(in, g, disagg, search_decode ? tp_d : tp_p, search_decode);
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
            /* requests rejected for their length are rejected by any count of instances */
            if (e.fails == PLAN_BIND_REJECTED) {
                e.floor = true;
                *n = 0;
                *ev = e;
                return LLMROOF_OK;
            }
            /* a pool that keeps up and whose failing latency no longer falls when it doubles has hit
             * the layout's floor (one sequence's step, or one prompt's prefill): more will not help */
            if (lo > 0 && !e.overloaded && !prev.overloaded && !e.errors && e.fails == prev.fails &&
                (e.fails == PLAN_BIND_TPOT ? e.tpot_s >= 0.98 * prev.tpot_s : e.ttft_s >= 0.98 * prev.ttft_s)) {
                e.floor = true;
                *n = 0;
                *ev = e;
                return LLMROOF_OK;
            }
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
            lo = mid;
        }
    }
    *n = hi;
    *ev = best;
    return LLMROOF_OK;
}

/* GPUs of a pool of a instances of layout code_a plus b of code_b (b = 0: none): instances
 * within a node pack into shared nodes (counted by their GPUs), instances beyond a node take
 * whole ones. The count rate_fill reports, and the planner's pruning compares. */
static long pools_gpus(const struct plan_input *in, const struct llmroof_gpu *g, int code_a, long a, int code_b, long b,
                       long *nodes_out)
{
    long packed = 0, nodes = 0, gpus = 0;
    pool_size(in, g, a, code_a, &packed, &nodes, &gpus);
    if (b > 0)
        pool_size(in, g, b, code_b, &packed, &nodes, &gpus);
    const long gpn = plan_node_gpus(in, g);
    if (nodes_out)
        *nodes_out = nodes + (packed + gpn - 1) / gpn;
    return gpus + packed;
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
        o->gpus = pools_gpus(in, o->gpu, LAY(o->prefill_tp, o->prefill_mode), o->prefill_instances, LAY(o->tp, o->mode),
                             o->decode_instances, &o->nodes);
    else
        o->gpus = pools_gpus(in, o->gpu, LAY(o->tp, o->mode), o->instances, 0, 0, &o->nodes);
    o->goodput_per_gpu = o->gpus ? o->goodput_qps / (double)o->gpus : 0;
    o->slo_use = fmax(ev->ttft_s / in->ttft_slo_s, ev->tpot_s / in->tpot_slo_s);
    o->binding = PLAN_BIND_NONE;
}

/* What a pruned row would need more of than the best plan found: GPUs, and cost where prices
 * may decide the answer (could_win). */
static const char *prune_what(const struct plan_input *in)
{
    for (int gi = 0; gi < in->ngpus; gi++)
        if (in->has_price[gi])
            return "more GPUs and cost more";
    return "more GPUs";
}

/* The bound a pruned row lost to, for its reason: the fewest GPUs found, and where prices may
 * decide, the lowest cost found (a reason had named only "9 GPUs" where a cost had pruned it). */
static const char *bound_text(long gpus, bool has_cost, double cost, char *buf, size_t n)
{
    /* two bounds, each the best of its own kind, perhaps of different plans: "22 GPUs, $126.00
     * per hour" had read as one plan that no row was (22 B200s cost $132, 36 H200s $126) */
    if (has_cost)
        snprintf(buf, n, "fewest %ld GPU%s; cheapest $%.2f per hour", gpus, gpus == 1 ? "" : "s", cost);
    else
        snprintf(buf, n, "%ld GPU%s", gpus, gpus == 1 ? "" : "s");
    return buf;
}

/* The rate search's name for what an evaluation missed */
static const char *rate_miss(enum plan_binding b)
{
    return b == PLAN_BIND_LOAD      ? "overloaded"
           : b == PLAN_BIND_TPOT    ? "TPOT"
           : b == PLAN_BIND_REFUSED ? "requests refused at the engine's concurrency limit"
                                    : "TTFT";
}

/* The best plan found so far, against which the rate planner prunes (docs/planning.md, "Pruning
 * against the best plan found"). */
struct plan_best {
    long gpus;       /* fewest GPUs of a feasible option; 0: none yet */
    bool has_cost;   /* a feasible priced option was found */
    double cost;     /* the lowest cost per hour among them */
    bool any_price;  /* some GPU of the plan is priced: the answer may go by cost */
};

static void rate_reason(const struct plan_input *in, struct plan_option *o, const char *pool, const struct rate_eval *ev,
                        const struct plan_best *best)
{
    char bound[64]; /* both bounds where prices may decide, as every pruning note gives them */
    bound_text(best ? best->gpus : 0, best && best->has_cost, best ? best->cost : 0.0, bound, sizeof bound);
    o->binding = ev->fails;
    if (ev->fails == PLAN_BIND_REJECTED) {
        rejected_reason(in, o->gpu, ev->rejected_share, o->reason, sizeof o->reason);
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
                     "plan found by then (%s)", ev->at, pool, prune_what(in), bound);
        else
            snprintf(o->reason, sizeof o->reason,
                     "not searched further: %ld %s instance%s miss%s (%s; p%d TTFT %.0f ms, TPOT %.1f ms) and more "
                     "would need %s than the best plan found by then (%s)", ev->at, pool, ev->at == 1 ? "" : "s",
                     ev->at == 1 ? "es" : "", rate_miss(ev->fails), in->percentile, ev->ttft_s * 1e3, ev->tpot_s * 1e3,
                     prune_what(in), bound);
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

/* No plan found yet; costs compare by price when any GPU has one. */
static struct plan_best best_start(const struct plan_input *in)
{
    struct plan_best b = { 0 };
    for (int gi = 0; gi < in->ngpus; gi++)
        b.any_price |= in->has_price[gi];
    return b;
}

/* Could an option on GPU gi with `gpus` GPUs beat (or tie) the best so far? better() ranks by
 * cost when every feasible option is priced, else by GPUs: an option with more GPUs than the
 * fewest found, and (when prices may decide) priced and dearer than the cheapest found, loses
 * either way. An unpriced option is never pruned when prices exist: whether it is feasible
 * decides whether the answer goes by cost. */
static bool could_win(const struct plan_input *in, const struct plan_best *b, int gi, long gpus)
{
    /* a plan of one GPU compares that GPU's layouts (the studies' 2 x TP-4 against 1 x TP-8):
     * each is searched to the end */
    if (in->exhaustive || in->ngpus < 2 || b->gpus == 0 || gpus <= b->gpus)
        return true;
    if (!b->any_price)
        return false;
    if (!in->has_price[gi] || !b->has_cost)
        return true;
    return (double)gpus * in->price_per_gpu_hour[gi] <= b->cost;
}

static void best_update(const struct plan_input *in, struct plan_best *b, const struct plan_option *o)
{
    if (!o->feasible)
        return;
    if (b->gpus == 0 || o->gpus < b->gpus)
        b->gpus = o->gpus;
    if (in->has_price[o->gpu_index]) {
        const double c = (double)o->gpus * in->price_per_gpu_hour[o->gpu_index];
        if (!b->has_cost || c < b->cost)
            b->cost = c;
        b->has_cost = true;
    }
}

/* The most instances of the searched pool (aggregated code_d, or decode pool code_d behind x
 * prefill instances of code_p) that could still win; PLAN_INSTANCE_CAP without a best. */
static long pool_limit(const struct plan_input *in, const struct plan_best *b, int gi, int code_p, long x, int code_d)
{
    if (in->exhaustive || in->ngpus < 2 || b->gpus == 0)
        return PLAN_INSTANCE_CAP;
    long n = 0;
    while (n < PLAN_INSTANCE_CAP &&
           could_win(in, b, gi,
                     x > 0 ? pools_gpus(in, in->gpus[gi], code_p, x, code_d, n + 1, NULL)
                           : pools_gpus(in, in->gpus[gi], code_d, n + 1, 0, 0, NULL)))
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
        const struct llmroof_setup sp = setup_for(in, g, tp_p), sd = setup_for(in, g, tp_d);
        o->kv_link_Bps = plan_kv_link_Bps(in, g, sim_setup_gpus(&sp), sim_setup_gpus(&sd));
    }
    o->prefill_tp = lay_n(tp_p);
    o->prefill_mode = lay_mode(tp_p);
    o->prefill_instances = x;
    lname(in, o->prefill_tp, o->prefill_mode, o->prefill_layout, sizeof o->prefill_layout);
    if (y == 0) {
        rate_reason(in, o, "decode", &ev, best);
        return LLMROOF_OK;
    }
    o->decode_instances = y;
    o->instances = x + y;
    rate_fill(in, o, &ev);
    return LLMROOF_OK;
}

/* Why model on tp x g cannot serve at all ("" when it can). */
static int layout_check(const struct plan_input *in, const struct llmroof_gpu *g, int code, char *reason, size_t n,
                        struct llmroof_err *err)
{
    struct llmroof_err e2 = { 0 };
    struct llmroof_shard sh;
    reason[0] = '\0';
    const int tp = lay_n(code), ig = inst_gpus(in, code);
    /* an instance beyond a node takes whole nodes (node_span); one within a node must divide it */
    const int gpn = plan_node_gpus(in, g);
    if (ig <= gpn && gpn % ig != 0) {
        if (ig != tp)
            snprintf(reason, n, "an instance of %d GPUs (layout beyond TP %d) does not divide the %d GPUs of a node",
                     ig, tp, gpn);
        else
            snprintf(reason, n, "TP %d does not divide the %d GPUs of a node", tp, gpn);
        return LLMROOF_OK;
    }
    struct llmroof_setup s = setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    if (ops_shard_layout(in->model, &lay, &sh, &e2)) {
        snprintf(reason, n, "%s", e2.msg);
        return LLMROOF_OK;
    }
    if (estimate_check(&s, &e2)) {
        snprintf(reason, n, "%s", e2.msg);
        return LLMROOF_OK;
    }
    struct llmroof_mem_opts mo = mem_opts_for(in, g, sh.attn_dp);
    struct llmroof_memory mem;
    int rc = memory_eval_layout(in->model, g, &lay, &in->dt, 1, &mo, &mem, err);
    if (rc)
        return rc;
    if (mem.fit == LLMROOF_FIT_WEIGHTS || mem.kv_capacity_tokens < 1)
        /* the sum the words name, as memory's "needs ... of weights + workspace + reserve": the
         * weights alone had read "15.0 GiB per GPU with workspace and reserve, 71.3 GiB usable"
         * under --reserve 100GiB */
        snprintf(reason, n, "the weights do not fit: %.1f GiB per GPU with workspace and reserve, %.1f GiB usable",
                 (mem.weights_bytes_per_gpu + mem.workspace_bytes_per_gpu + mem.reserve_bytes_per_gpu) / 1073741824.0,
                 mem.usable_bytes / 1073741824.0);
    return LLMROOF_OK;
}

int plan_check_gpus(const struct plan_input *in, struct llmroof_err *err)
{
    /* the plain TP-1 row of each GPU, the layout flags aside: those are checked as flags */
    struct plan_input one = *in;
    memset(&one.layout, 0, sizeof one.layout);
    char first[sizeof err->msg] = "";
    for (int i = 0; i < in->ngpus; i++) {
        const struct llmroof_setup s = setup_for(&one, in->gpus[i], LAY(1, 0));
        struct llmroof_err e = { 0 };
        if (!estimate_check(&s, &e)) {
            /* a reserve (--reserve, per GPU) past what the GPU's pool may use leaves nothing at
             * any TP: "the weights do not fit" on every row had exited 1 */
            const struct llmroof_layout lay = estimate_layout(&s);
            const struct llmroof_mem_opts mo = mem_opts_for(&one, in->gpus[i], 1);
            struct llmroof_memory mem;
            if (!in->sim.user_reserve || memory_eval_layout(in->model, in->gpus[i], &lay, &in->dt, 1, &mo, &mem, &e) ||
                mem.reserve_bytes_per_gpu < mem.usable_bytes)
                return LLMROOF_OK; /* a default reserve past a small GPU: that GPU is too small (exit 1) */
            snprintf(e.msg, sizeof e.msg, "option '--reserve': %.1f GiB per GPU is not below the %.1f GiB that %s's "
                                          "pool may use at this memory utilization; nothing is left for weights at "
                                          "any TP",
                     mem.reserve_bytes_per_gpu / 1073741824.0, mem.usable_bytes / 1073741824.0, in->gpus[i]->id);
        }
        if (i == 0)
            snprintf(first, sizeof first, "%s", e.msg);
    }
    if (in->ngpus > 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s; and none of the other %d GPU%s given runs it either",
                               first, in->ngpus - 1, in->ngpus == 2 ? "" : "s");
    return llmroof_err_set(err, LLMROOF_EINPUT, "%s", first);
}

static struct plan_option *new_option(struct plan_result *out, const struct plan_input *in, int gi, int code)
{
    struct plan_option *o = &out->options[out->noptions++];
    memset(o, 0, sizeof *o);
    o->gpu = in->gpus[gi];
    o->gpu_index = gi;
    o->tp = lay_n(code);
    o->mode = lay_mode(code);
    o->binding = PLAN_BIND_NONE;
    const int ig = inst_gpus(in, code);
    o->gpus_per_node = plan_node_gpus(in, o->gpu);
    o->nodes_per_instance = node_span(in, o->gpu, ig);
    o->instances_per_node = ig <= o->gpus_per_node && o->gpus_per_node % ig == 0 ? o->gpus_per_node / ig : 0;
    lname(in, o->tp, o->mode, o->layout, sizeof o->layout);
    return o;
}

/* Whether n GPUs split every expert's width, and the dense MLP's where the model has dense
 * layers, into equal slices: the layouts --moe-tp accepts. */
static bool moe_tp_divides(const struct llmroof_model *m, int n)
{
    return n > 1 && m->moe_intermediate > 0 && m->moe_intermediate % n == 0 &&
           (arch_dense_layers(m) == 0 || m->intermediate % n == 0);
}

/* The layouts a plan searches: every n of the TP list as given (mode 0); for an MoE model
 * without a layout of its own also TP+EP, DP-attention+EP and DP-attention with the experts
 * split by width over n ranks, and TP n x PP 2 where the layers split into two equal stages.
 * Returns the count. */
static int plan_codes(const struct plan_input *in, int *codes)
{
    int ncodes = 0;
    const bool own = in->layout.ep > 1 || in->layout.pp > 1 || in->layout.dp_attn || in->layout.moe_tp > 1;
    const bool search = in->model->moe_experts > 0 && !own;
    for (int ti = 0; ti < in->ntps; ti++) {
        codes[ncodes++] = LAY(in->tps[ti], 0);
        if (search && in->tps[ti] > 1) {
            codes[ncodes++] = LAY(in->tps[ti], 1);
            /* data-parallel attention only where the engine runs it */
            if (!in->eff.engine || in->eff.engine->dp_attention) {
                codes[ncodes++] = LAY(in->tps[ti], 2);
                /* the experts split by width: only where n divides every MLP's width, as
                 * --moe-tp requires (ops_shard_layout) */
                if (moe_tp_divides(in->model, in->tps[ti]))
                    codes[ncodes++] = LAY(in->tps[ti], 4);
            }
        }
        if (search && in->model->layers % 2 == 0)
            codes[ncodes++] = LAY(in->tps[ti], 3);
    }
    return ncodes;
}

/* Weights and KV per GPU of a feasible option, and the communication share of a decode step at
 * a batch of the instance's users (batch; 0 for a rate plan: the instance's sequence limit),
 * capped at its KV-cache limit: the figures the observations give
 * for why one layout serves more per GPU than another. */
static int option_figures(const struct plan_input *in, int code, long batch, struct plan_option *o,
                          struct llmroof_err *err)
{
    struct llmroof_setup s = setup_for(in, o->gpu, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    struct llmroof_shard sh;
    int rc = ops_shard_layout(in->model, &lay, &sh, err);
    if (rc)
        return rc;
    struct llmroof_mem_opts mo = mem_opts_for(in, o->gpu, sh.attn_dp);
    struct llmroof_memory mem;
    double P = in->mean_prompt, O = in->mean_output;
    if (!(P > 0 && O > 0))
        mean_lengths(in->sim.workload, in->sim.seed, &P, &O);
    long ctx = (long)(P + O);
    if ((rc = memory_eval_layout(in->model, o->gpu, &lay, &in->dt, ctx > 0 ? ctx : 1, &mo, &mem, err)))
        return rc;
    const int ig = inst_gpus(in, code);
    o->weights_bytes_per_gpu = mem.weights_bytes_per_gpu;
    o->kv_tokens_per_gpu = mem.kv_capacity_tokens / ig;
    long b = batch < 1 ? (long)mo.max_seqs : batch; /* 0: the instance's sequence limit */
    if (mem.max_batch >= 1 && (double)b > mem.max_batch)
        b = (long)mem.max_batch;
    struct llmroof_request req = { b, P > 1 ? (long)P : 1, O > 2 ? (long)O : 2 };
    struct llmroof_estimate e;
    if ((rc = estimate_run(&s, &req, &e, err)))
        return rc;
    o->decode_comm_share = estimate_comm_share(&e.decode);
    return LLMROOF_OK;
}

/* A floor on any request's TPOT on layout `code`: one sequence's decode step alone at a context
 * of one token (every decode step of a request costs at least that: more sequences and longer
 * contexts only add work; TPOT is the mean of a request's steps). Speculative decoding emits
 * several tokens per step: no floor (0). */
static double tpot_floor_s(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    struct llmroof_setup s;
    struct llmroof_layout lay;
    struct llmroof_shard sh;
    struct llmroof_err e2 = { 0 };
    if (!pool_shard(in, g, code, &s, &lay, &sh, &e2))
        return 0;
    struct llmroof_batch b = batch_decode(1, 1);
    return sim_step_time(&s, &sh, &b);
}

/* One option of a rate plan still to search, and the fewest GPUs its capacity bound allows. */
struct rate_cand {
    int oi;         /* its row in out->options */
    int gi, code;   /* GPU, (decode) layout */
    bool disagg;
    int code_p;     /* disaggregated: the prefill pool's layout and instances */
    long x;
    long lb_gpus;   /* GPUs of the fewest instances the capacity bound does not rule out */
};

static int cand_cmp(const void *a, const void *b)
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
/* Rate plans of one GPU, or --exhaustive: no row is pruned against another (could_win and
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
    const struct plan_best none = best_start(r->in); /* read only by the pruning this mode skips */
    int rc = k->disagg ? plan_rate_disagg(r->in, k->gi, k->code_p, k->x, k->code, PLAN_INSTANCE_CAP, &none, o,
                                          &r->err[ci])
                       : rate_aggregated(r->in, k->gi, k->code, PLAN_INSTANCE_CAP, &none, o, &r->err[ci]);
    if (rc == LLMROOF_OK && o->feasible && !k->disagg)
        rc = option_figures(r->in, k->code, 0, o, &r->err[ci]);
    r->rc[ci] = rc;
    r->ran[ci] = true;
}

/* par_for's tick for a plan's rows (rate and users plans): the caller's progress, when it moves,
 * and stop, on the caller's thread */
struct plan_tick {
    const struct plan_input *in;
    long total; /* the progress scale: the rows, or twice them where a users plan's ranking comes first */
    struct par_stop *stop;
    int reported; /* the rows reported done (par_for ticks every millisecond while it waits) */
};

static int plan_tick(void *ctx, int done, int n)
{
    (void)n;
    struct plan_tick *t = ctx;
    if (t->in->progress && done > t->reported)
        t->in->progress(t->in->progress_ctx, done, t->total);
    t->reported = done > t->reported ? done : t->reported;
    return par_stop_asked(t->stop);
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

static int plan_rate(const struct plan_input *in, struct plan_result *out, struct llmroof_err *err)
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
            struct plan_option *o = new_option(out, in, gi, codes[li]);
            if ((rc = layout_check(in, g, codes[li], o->reason, sizeof o->reason, err)))
                goto done;
            memcpy(why[li], o->reason, sizeof why[li]);
            if (o->reason[0])
                continue;
            usable[li] = true;
            floor_s[li] = tpot_floor_s(in, g, codes[li]);
            if (floor_s[li] > in->tpot_slo_s) {
                /* no count can help: not simulated (docs/planning.md, "Bounds before simulating") */
                tpot_floor_miss(in, o, floor_s[li]);
                continue;
            }
            const long lb = pool_ruled_out(in, g, false, codes[li], false) + 1;
            cands[ncands++] = (struct rate_cand){ oi, gi, codes[li], false, 0, 0,
                                                  pools_gpus(in, g, codes[li], lb, 0, 0, NULL) };
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
            if (!usable[li] || static_eng || no_pd)
                continue;
            long x = 0;
            struct rate_eval ev;
            if ((rc = smallest_pool(in, g, true, codes[li], 0, codes[li], false, PLAN_INSTANCE_CAP, &x, &ev, &evals,
                                    err)))
                goto done;
            if (x > 0 && (best_x == 0 || x * inst_gpus(in, codes[li]) < best_x * inst_gpus(in, best_code))) {
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
            struct plan_option *o = new_option(out, in, gi, codes[li]);
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
            if (best_x == 0) {
                char ml[32];
                lname(in, lay_n(miss_code), lay_mode(miss_code), ml, sizeof ml);
                if (miss.fails == PLAN_BIND_REJECTED)
                    rejected_reason(in, g, miss.rejected_share, o->reason, sizeof o->reason);
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
                lname(in, o->prefill_tp, o->prefill_mode, o->prefill_layout, sizeof o->prefill_layout);
                tpot_floor_miss(in, o, floor_s[li]);
                continue;
            }
            const long lb = pool_ruled_out(in, g, true, codes[li], true) + 1;
            cands[ncands++] = (struct rate_cand){ oi, gi, codes[li], true, best_code, best_x,
                                                  pools_gpus(in, g, best_code, best_x, codes[li], lb, NULL) };
        }
    }
    /* the searches, most promising first */
    qsort(cands, (size_t)ncands, sizeof *cands, cand_cmp);
    if (in->exhaustive || in->ngpus < 2) { /* nothing pruned: every row on the threads */
        rc = rate_rows_parallel(in, out, cands, ncands, err);
        goto done;
    }
    struct plan_best best = best_start(in);
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
        if (!could_win(in, &best, k->gi, k->lb_gpus)) {
            /* the fewest instances the capacity bound allows already need more GPUs than the best */
            if (k->disagg) {
                o->prefill_tp = lay_n(k->code_p);
                o->prefill_mode = lay_mode(k->code_p);
                o->prefill_instances = k->x;
                lname(in, o->prefill_tp, o->prefill_mode, o->prefill_layout, sizeof o->prefill_layout);
            }
            o->pruned = true;
            snprintf(o->reason, sizeof o->reason,
                     "not simulated: its capacity bound needs at least %ld GPUs: %s than the best plan found by then "
                     "(%s)", k->lb_gpus, prune_what(in), bound_text(best.gpus, best.has_cost, best.cost, (char[64]){ 0 }, 64));
            continue;
        }
        if (k->disagg)
            rc = plan_rate_disagg(in, k->gi, k->code_p, k->x, k->code, limit, &best, o, err);
        else
            rc = rate_aggregated(in, k->gi, k->code, limit, &best, o, err);
        if (rc)
            goto done;
        if (o->feasible && !k->disagg && (rc = option_figures(in, k->code, 0, o, err)))
            goto done;
        best_update(in, &best, o);
    }
    if (in->progress)
        in->progress(in->progress_ctx, ncands, ncands);
    rc = LLMROOF_OK;
done:
    free(cands);
    return rc;
}

static void add_obs(struct plan_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_obs(struct plan_result *r, const char *fmt, ...)
{
    if (r->nobs >= PLAN_MAX_OBS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->obs[r->nobs++], sizeof r->obs[0], fmt, ap);
    va_end(ap);
}

/* Is a better than b? Fewer GPUs (or lower cost when by_cost), then more users per node (rate
 * plans: more goodput per GPU), then the simpler (aggregated) layout. */
static bool better(const struct plan_option *a, const struct plan_option *b, bool by_cost)
{
    if (by_cost && a->cost_per_hour != b->cost_per_hour)
        return a->cost_per_hour < b->cost_per_hour;
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus;
    if (a->users_per_node != b->users_per_node)
        return a->users_per_node > b->users_per_node;
    if (a->goodput_per_gpu != b->goodput_per_gpu)
        return a->goodput_per_gpu > b->goodput_per_gpu;
    if (a->slo_use != b->slo_use)
        return a->slo_use < b->slo_use;
    return !a->disagg && b->disagg;
}

void plan_layout_name(int n, int mode, char *buf, size_t size)
{
    if (mode == 3)
        snprintf(buf, size, "TP-%d+PP-2", n);
    else if (mode == 1)
        snprintf(buf, size, "TP-%d+EP-%d", n, n);
    else if (mode == 2)
        snprintf(buf, size, "DPA-%d+EP-%d", n, n);
    else if (mode == 4)
        snprintf(buf, size, "DPA-%d+MoETP-%d", n, n);
    else
        snprintf(buf, size, "TP-%d", n);
}

/* A layout's name as the plan runs it: mode 0 is the plan's own layout, named from it
 * (`--ep 8 --dp-attention` is "DPA-8+EP-8", `--pp 2` with TP 4 "TP-4+PP-2", issue 22 item 3:
 * it was "TP-1" for an 8-GPU instance); the searched modes as plan_layout_name. */
static void lname(const struct plan_input *in, int n, int mode, char *buf, size_t size)
{
    const struct llmroof_layout *l = &in->layout;
    if (mode != 0 || !(l->ep > 1 || l->pp > 1 || l->dp_attn || l->moe_tp > 1)) {
        plan_layout_name(n, mode, buf, size);
        return;
    }
    char pp[16] = "";
    if (l->pp > 1)
        snprintf(pp, sizeof pp, "+PP-%d", l->pp);
    if (l->dp_attn && l->moe_tp > 1 && n > 0)
        snprintf(buf, size, "DPA-%d+MoETP-%d%s", l->moe_tp / n, l->moe_tp, pp);
    else if (l->dp_attn && l->ep > 1 && n > 0) /* the replicas (vLLM's --data-parallel-size), then the experts' GPUs */
        snprintf(buf, size, "DPA-%d+EP-%d%s", l->ep / n, l->ep, pp);
    else if (l->dp_attn)
        snprintf(buf, size, "DPA-%d+EP-%d%s", n, n, pp);
    else if (l->ep > 1)
        snprintf(buf, size, "TP-%d+EP-%d%s", n, l->ep, pp);
    else
        snprintf(buf, size, "TP-%d%s", n, pp);
}

static void describe(const struct plan_input *in, const struct plan_option *o, char *buf, size_t n)
{
    char a[32], b[32];
    lname(in, o->prefill_tp, o->prefill_mode, a, sizeof a);
    lname(in, o->tp, o->mode, b, sizeof b);
    if (o->disagg)
        snprintf(buf, n, "disaggregated %ld x %s prefill + %ld x %s decode on %s (%ld:%ld, %ld GPU%s)",
                 o->prefill_instances, a, o->decode_instances, b, o->gpu->id, o->prefill_instances, o->decode_instances,
                 o->gpus, o->gpus == 1 ? "" : "s");
    else
        snprintf(buf, n, "aggregated %ld x %s on %s (%ld GPU%s)", o->instances, b, o->gpu->id, o->gpus,
                 o->gpus == 1 ? "" : "s");
}

/* v with `decimals` places, or two significant digits where those places would print a nonzero
 * value as zero (--rate 0.000001: "goodput 0.00 requests/s" read as none) */
static const char *fixed_or_sig(char *buf, size_t n, double v, int decimals)
{
    if (v != 0.0 && fabs(v) < 0.5 * pow(10.0, -decimals))
        snprintf(buf, n, "%.2g", v);
    else
        snprintf(buf, n, "%.*f", decimals, v);
    return buf;
}

/* Per GPU (or requests/s of goodput per GPU, in rate plans) of an aggregated option; an
 * instance beyond a node counts the GPUs of its whole nodes. */
static double per_gpu(const struct plan_input *in, const struct plan_option *o)
{
    if (in->rate_qps > 0)
        return o->goodput_per_gpu;
    if (o->nodes_per_instance > 1)
        return (double)o->users_per_instance / ((double)o->nodes_per_instance * o->gpus_per_node);
    return (double)o->users_per_node / (double)o->gpus_per_node;
}

/* More per GPU; on a tie, the planner's own order (better()), so the answer and this agree. */
static bool ahead(const struct plan_input *in, const struct plan_option *a, const struct plan_option *b, bool by_cost)
{
    if (per_gpu(in, a) != per_gpu(in, b))
        return per_gpu(in, a) > per_gpu(in, b);
    return better(a, b, by_cost);
}

/* When the plan searched layouts beyond TP (an MoE model without --pp/--ep): per GPU, the best
 * aggregated option of each kind of layout, which serves the most per GPU, and why, in the
 * figures that decide it: weights per GPU, the KV-cache tokens they leave per GPU, and the
 * communication share of a decode step (docs/planning.md). */
static void layout_observations(const struct plan_input *in, struct plan_result *out)
{
    bool searched = false;
    for (int i = 0; i < out->noptions; i++)
        searched |= out->options[i].mode != 0;
    if (!searched)
        return;
    const char *unit = in->rate_qps > 0 ? "requests/s of goodput" : "users";
    for (int gi = 0; gi < in->ngpus; gi++) {
        int best[PLAN_MODES] = { -1, -1, -1, -1, -1 };
        for (int i = 0; i < out->noptions; i++) {
            const struct plan_option *o = &out->options[i];
            if (o->gpu_index != gi || !o->feasible || o->disagg || o->mode < 0 || o->mode >= PLAN_MODES)
                continue;
            if (best[o->mode] < 0 || ahead(in, o, &out->options[best[o->mode]], out->by_cost))
                best[o->mode] = i;
        }
        char list[400] = "", item[96], name[32];
        int top = -1;
        /* in the rows' order (plan_codes: the DP-attention forms side by side, PP last) */
        static const int row_order[PLAN_MODES] = { 0, 1, 2, 4, 3 };
        for (int mi = 0; mi < PLAN_MODES; mi++) {
            const int m = row_order[mi];
            if (best[m] < 0)
                continue;
            const struct plan_option *o = &out->options[best[m]];
            lname(in, o->tp, o->mode, name, sizeof name);
            snprintf(item, sizeof item, "%s%s %.*f", list[0] ? ", " : "", name, in->rate_qps > 0 ? 3 : 1, per_gpu(in, o));
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s", item);
            if (top < 0 || ahead(in, o, &out->options[top], out->by_cost))
                top = best[m];
        }
        if (top < 0)
            continue;
        add_obs(out, "%s, %s per GPU by kind of layout (best of each): %s.", in->gpus[gi]->id, unit, list);
        const struct plan_option *t = &out->options[top];
        lname(in, t->tp, t->mode, name, sizeof name);
        const struct plan_option *r = best[0] >= 0 && best[0] != top ? &out->options[best[0]] : NULL;
        if (!r) {
            add_obs(out, "%s: %s serves the most %s per GPU: %.1f GiB of weights per GPU leave %.0f KV-cache tokens "
                         "per GPU; communication is %.0f%% of a decode step.",
                    in->gpus[gi]->id, name, unit, t->weights_bytes_per_gpu / 1073741824.0, t->kv_tokens_per_gpu,
                    100 * t->decode_comm_share);
            continue;
        }
        char rn[32];
        lname(in, r->tp, r->mode, rn, sizeof rn);
        char ratio[96];
        if (per_gpu(in, t) == per_gpu(in, r))
            snprintf(ratio, sizeof ratio, "as many %s per GPU as", unit);
        else
            snprintf(ratio, sizeof ratio, "%.3fx the %s per GPU of", per_gpu(in, t) / per_gpu(in, r), unit);
        add_obs(out, "%s: %s serves %s the best TP layout %s: %.1f against %.1f GiB of weights "
                     "per GPU leave %.0f against %.0f KV-cache tokens per GPU, and communication is %.0f%% against "
                     "%.0f%% of a decode step.",
                in->gpus[gi]->id, name, ratio, rn,
                t->weights_bytes_per_gpu / 1073741824.0, r->weights_bytes_per_gpu / 1073741824.0, t->kv_tokens_per_gpu,
                r->kv_tokens_per_gpu, 100 * t->decode_comm_share, 100 * r->decode_comm_share);
    }
}

/* A GPU the engine does not run on (CUDA only; an AMD GPU): said as such in its observation, where
 * "cannot serve under these SLOs" would blame the hardware. True when it was. */
static bool obs_engine_absent(const struct plan_input *in, struct plan_result *out, int gi)
{
    if (catalog_engine_runs_on(in->eff.engine, in->gpus[gi]))
        return false;
    add_obs(out, "%s: engine '%s' does not run on it (CUDA only; an AMD GPU).", in->gpus[gi]->id, in->eff.engine->id);
    return true;
}

/* Where no option is feasible and every row of a GPU failed on its weights: the smallest plain TP
 * beyond the list (up to 64) that holds them, instances beyond a node included, so that the
 * answer names the way out (docs/planning.md). `plan -m deepseek-v3 --gpus h100` had said only
 * "No layout serves ...; see the reasons", every row "the weights do not fit", where TP 16 (two
 * nodes) serves; memory says "smallest TP that fits: 16". */
static void weights_hints(const struct plan_input *in, struct plan_result *out)
{
    static const char nofit[] = "the weights do not fit";
    int max_tp = 1;
    for (int ti = 0; ti < in->ntps; ti++)
        max_tp = in->tps[ti] > max_tp ? in->tps[ti] : max_tp;
    for (int gi = 0; gi < in->ngpus; gi++) {
        bool any = false, all = true;
        for (int i = 0; i < out->noptions && all; i++) {
            const struct plan_option *o = &out->options[i];
            if (o->gpu_index != gi)
                continue;
            any = true;
            all = !o->feasible && strncmp(o->reason, nofit, sizeof nofit - 1) == 0;
        }
        if (!any || !all)
            continue;
        const struct llmroof_gpu *g = in->gpus[gi];
        for (int t = 2 * max_tp; t <= 64; t *= 2) {
            char reason[sizeof out->options[0].reason];
            struct llmroof_err e2 = { 0 };
            if (layout_check(in, g, LAY(t, 0), reason, sizeof reason, &e2) || reason[0])
                continue;
            const int gpn = plan_node_gpus(in, g);
            const int span = node_span(in, g, inst_gpus(in, LAY(t, 0)));
            char nodes[48] = "";
            if (span > 1)
                snprintf(nodes, sizeof nodes, ", an instance of %d nodes of %d", span, gpn);
            add_obs(out, "%s: the weights fit no layout of --tp up to %d; TP %d holds them%s: add it to --tp.", g->id,
                    max_tp, t, nodes);
            break;
        }
    }
}

/* Rate plans' observations: the answer, the best of the other kind of layout, each GPU's best. */
static void rate_observations(const struct plan_input *in, struct plan_result *out)
{
    char a[200], b[200];
    if (out->best < 0) {
        add_obs(out, "No layout serves %g requests/s with p%d TTFT <= %.8g ms and TPOT <= %.8g ms; see the reasons.",
                in->rate_qps, in->percentile, in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3);
        weights_hints(in, out);
        return;
    }
    const struct plan_option *best = &out->options[out->best];
    describe(in, best, a, sizeof a);
    char g1[32], g2[32];
    add_obs(out, "%s: %s serves %g requests/s with p%d TTFT %.0f ms (<= %.8g) and TPOT %.1f ms (<= %.8g); goodput "
                 "%s requests/s within both SLOs, %s per GPU.",
            out->by_cost ? "Cheapest" : "Fewest GPUs", a, in->rate_qps, in->percentile, best->ttft_s * 1e3,
            in->ttft_slo_s * 1e3, best->tpot_s * 1e3, in->tpot_slo_s * 1e3, fixed_or_sig(g1, sizeof g1, best->goodput_qps, 2),
            fixed_or_sig(g2, sizeof g2, best->goodput_per_gpu, 3));
    /* the other kind of layout, for the comparison the choice rests on */
    int other = -1;
    for (int i = 0; i < out->noptions; i++) {
        const struct plan_option *o = &out->options[i];
        if (o->feasible && o->disagg != best->disagg && (other < 0 || better(o, &out->options[other], out->by_cost)))
            other = i;
    }
    if (other >= 0) {
        const struct plan_option *o = &out->options[other];
        describe(in, o, b, sizeof b);
        /* priced, the comparison is in dollars (GPU counts across GPU types had read "-2 more
         * GPUs (-20%)", and equal costs "wins on cost"; a review) */
        if (out->by_cost && o->cost_per_hour > best->cost_per_hour)
            add_obs(out, "The best %s layout costs $%.2f per hour more (%.0f%%): %s.", o->disagg ? "disaggregated" : "aggregated",
                    o->cost_per_hour - best->cost_per_hour,
                    100.0 * (o->cost_per_hour - best->cost_per_hour) / best->cost_per_hour, b);
        else if (o->gpus == best->gpus)
            add_obs(out, "The best %s layout needs as many GPUs%s: %s; %s wins on %s.", o->disagg ? "disaggregated" : "aggregated",
                    out->by_cost ? " at the same cost" : "", b, best->disagg ? "disaggregated" : "aggregated",
                    best->goodput_per_gpu > o->goodput_per_gpu ? "goodput per GPU"
                    : best->slo_use < o->slo_use               ? "headroom to the SLOs"
                                                               : "simplicity");
        else
            add_obs(out, "The best %s layout needs %ld more GPU%s (%.0f%%): %s.", o->disagg ? "disaggregated" : "aggregated",
                    o->gpus - best->gpus, o->gpus - best->gpus == 1 ? "" : "s",
                    100.0 * (double)(o->gpus - best->gpus) / (double)best->gpus, b);
    } else {
        bool pruned = false;
        for (int i = 0; i < out->noptions; i++)
            pruned |= out->options[i].pruned && out->options[i].disagg != best->disagg;
        if (!best->disagg && in->eff.engine && in->eff.engine->static_batching) /* plan_rate: none searched */
            add_obs(out, "No disaggregated layout: engine %s batches statically.", in->eff.engine->id);
        else if (!best->disagg && in->eff.engine && !in->eff.engine->disaggregation)
            add_obs(out, "No disaggregated layout: engine %s serves no prefill and decode pools.", in->eff.engine->id);
        else if (pruned)
            add_obs(out, "No %s layout was searched to the end: those that might meet the SLOs need %s than "
                         "the answer.", best->disagg ? "aggregated" : "disaggregated", prune_what(in));
        else
            add_obs(out, "No %s layout meets the SLOs at this rate.", best->disagg ? "aggregated" : "disaggregated");
    }
    for (int gi = 0; gi < in->ngpus; gi++) {
        int bi = out->best_per_gpu[gi];
        bool pruned = false;
        for (int i = 0; i < out->noptions; i++)
            pruned |= out->options[i].gpu_index == gi && out->options[i].pruned;
        if (bi < 0 && pruned) {
            add_obs(out, "%s: no layout searched to the end; those that might serve need %s than the answer "
                         "(%s).", in->gpus[gi]->id, prune_what(in),
                    bound_text(best->gpus, best->has_cost, best->cost_per_hour, (char[64]){ 0 }, 64));
            continue;
        }
        if (bi < 0 && obs_engine_absent(in, out, gi))
            continue;
        if (bi < 0) {
            add_obs(out, "%s cannot serve this rate under these SLOs in any layout tried.", in->gpus[gi]->id);
            continue;
        }
        describe(in, &out->options[bi], a, sizeof a);
        char g[32];
        add_obs(out, "%s: best as %s, %s requests/s of goodput per GPU.", in->gpus[gi]->id, a,
                fixed_or_sig(g, sizeof g, out->options[bi].goodput_per_gpu, 3));
    }
    if (in->rate_qps > 0)
        add_obs(out, "Each layout is the smallest pool(s) whose simulated run at %g requests/s (Poisson, %ld requests, "
                     "longer where so short a run could not tell a filling server from an overloaded one, then without "
                     "the first requests' latencies while the batch fills: a row's JSON sim_requests and "
                     "sim_warmup_requests; least-loaded router) meets both SLOs without overload; disaggregated "
                     "layouts size the prefill pool alone for TTFT, then the decode pool behind it.",
                in->rate_qps, rate_pool(in->rate_qps));
    int npruned = 0;
    for (int i = 0; i < out->noptions; i++)
        npruned += out->options[i].pruned;
    if (npruned)
        add_obs(out, "%d layout%s not searched to the end: more instances would need %s than the best plan "
                     "found, so %s could not have won (docs/planning.md, \"Pruning against the best plan found\").",
                npruned, npruned == 1 ? " was" : "s were", prune_what(in), npruned == 1 ? "it" : "they");
    layout_observations(in, out);
}

/* Nodes and GPUs of a users plan's option from its users per instance. */
static void users_size(const struct plan_input *in, struct plan_option *o)
{
    if (o->nodes_per_instance > 1) {
        /* an instance takes whole nodes: instances = ceil(users / users per instance),
           each of nodes_per_instance nodes; users per node is its share (rounded down) */
        o->instances = (in->users + o->users_per_instance - 1) / o->users_per_instance;
        o->nodes = o->instances * o->nodes_per_instance;
        o->users_per_node = o->users_per_instance / o->nodes_per_instance;
        o->gpus = o->nodes * o->gpus_per_node;
    } else {
        /* instances within a node: the plan counts the GPUs its instances take (packed into
         * nodes), as a rate plan does, so a GPU sold one per node (a GH200) and one sold eight to
         * an HGX board compare by the GPUs they need, not by their node size */
        o->users_per_node = o->users_per_instance * o->instances_per_node;
        o->instances = o->users_per_instance > 0 ? (in->users + o->users_per_instance - 1) / o->users_per_instance : 0;
        const long ig = o->instances_per_node > 0 ? o->gpus_per_node / o->instances_per_node : o->gpus_per_node;
        o->gpus = o->instances * ig;
        o->nodes = (o->gpus + o->gpus_per_node - 1) / o->gpus_per_node;
    }
}

/* Users plans' pruning: the fewest users per instance with which option o could still beat the
 * best found (could_win on its nodes' GPUs); 1 without a best, 0 when no count can. */
static long users_needed(const struct plan_input *in, const struct plan_best *b, const struct plan_option *o)
{
    const long gpn = o->gpus_per_node, top = 1L << 40;
    /* --fast solves are cheap: every row is solved to the end */
    if (in->exhaustive || in->fast || in->ngpus < 2 || b->gpus == 0 || could_win(in, b, o->gpu_index, top))
        return 1;
    /* the most GPUs that could win (could_win(lo), not hi), counted as users_size counts them: whole
     * nodes for an instance beyond a node, the instances' own GPUs within one */
    long lo = 0, hi = top;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (could_win(in, b, o->gpu_index, mid))
            lo = mid;
        else
            hi = mid;
    }
    if (o->nodes_per_instance > 1) {
        const long inst = lo / (o->nodes_per_instance * gpn);
        return inst > 0 ? (in->users + inst - 1) / inst : 0;
    }
    const long ig = o->instances_per_node > 0 ? gpn / o->instances_per_node : gpn;
    const long per = lo / ig; /* instances that could win */
    return per > 0 ? (in->users + per - 1) / per : 0;
}

/* Users plans' analytic solves, one task per row on par_for's threads: the ranking's answer (the
 * GPUs of the analytic plan, the row's rank) or, under --fast, the row's own search from one user.
 * Each writes only its row's slots, so the plan is the same at any thread count; neither calls
 * the caller's stop or progress, which par_for's tick asks on the caller's thread. */
struct users_solve {
    const struct plan_input *in, *quick;
    struct plan_result *out;
    struct rate_cand *cands;
    bool ranking;
    int *rc;                 /* --fast: each row's search status, by its index in out->options */
    struct llmroof_err *err; /* and its message */
    bool *ran;               /* the task ran (par_for skips the rest once the caller stops) */
};

static void users_solve_one(void *ctx, int ci)
{
    const struct users_solve *u = ctx;
    struct rate_cand *k = &u->cands[ci];
    struct plan_option *o = &u->out->options[k->oi];
    if (u->ranking) {
        /* the order only: the analytic answer's GPUs (unranked last when it has none) */
        struct plan_option q = *o;
        struct llmroof_err e2 = { 0 };
        if (plan_search(u->quick, u->in->gpus[k->gi], k->code, &q, &e2) == 0 && q.users_per_instance > 0 &&
            q.binding != PLAN_BIND_CAP) {
            users_size(u->in, &q);
            k->lb_gpus = q.gpus;
        }
    } else {
        u->rc[k->oi] = search_from(u->in, u->in->gpus[k->gi], k->code, 1, o, &u->err[k->oi]);
    }
    u->ran[k->oi] = true;
}


/* Users plans: every GPU x layout, searched in the order of the nodes the analytic model (--fast)
 * gives it, each from the users per instance it needs to beat the best found so far
 * (docs/planning.md, "Pruning against the best plan found"). The analytic solves run on
 * in->threads threads (the ranking, or every row under --fast); the simulated searches, each
 * pruned against the best found before it, one after another. */
static int plan_users(const struct plan_input *in, struct plan_result *out, struct llmroof_err *err)
{
    char st[16];
    plan_stat_name(in, st, sizeof st);
    int codes[PLAN_MODES * PLAN_MAX_TPS];
    const int ncodes = plan_codes(in, codes);
    struct rate_cand *cands = calloc((size_t)PLAN_MAX_OPTIONS, sizeof *cands);
    int *rcs = calloc((size_t)PLAN_MAX_OPTIONS, sizeof *rcs);
    bool *ran = calloc((size_t)PLAN_MAX_OPTIONS, sizeof *ran);
    /* a plan of one GPU (or exhaustive) prunes no row against another: every row's simulated
     * search from one user is its own task on the threads, as --fast's solves are */
    const bool single = !in->fast && (in->exhaustive || in->ngpus < 2);
    struct llmroof_err *errs = in->fast || single ? calloc((size_t)PLAN_MAX_OPTIONS, sizeof *errs) : NULL;
    int ncands = 0, rc = LLMROOF_OK;
    if (!cands || !rcs || !ran || ((in->fast || single) && !errs)) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto done;
    }
    struct plan_input quick = *in;
    quick.fast = true;
    /* the analytic solves read the workload's mean lengths: sampled once here, not per solve */
    if (!(quick.mean_prompt > 0 && quick.mean_output > 0))
        mean_lengths(quick.sim.workload, quick.sim.seed, &quick.mean_prompt, &quick.mean_output);
    for (int gi = 0; gi < in->ngpus; gi++) {
        for (int li = 0; li < ncodes; li++) {
            const int oi = out->noptions;
            struct plan_option *o = new_option(out, in, gi, codes[li]);
            if ((rc = layout_check(in, in->gpus[gi], codes[li], o->reason, sizeof o->reason, err)))
                goto done;
            if (o->reason[0])
                continue;
            cands[ncands++] = (struct rate_cand){ oi, gi, codes[li], false, 0, 0, LONG_MAX };
        }
    }
    /* the analytic ranking takes seconds over many layouts and users: a caller's stop is asked
     * after each row (review of session 36: 6 s unasked) */
    const bool ranking = !in->fast && !in->exhaustive && in->ngpus > 1;
    if (ranking || in->fast || single) {
        /* the simulations of a one-GPU plan's rows ask the caller's stop through par_stop: on the
         * caller's thread alone */
        struct par_stop stop;
        par_stop_init(&stop, in->sim.stop);
        struct plan_input shared = *in;
        shared.sim.stop = par_stop_shared(&stop);
        const struct users_solve u = { &shared, &quick, out, cands, ranking, rcs, errs, ran };
        /* progress: a ranking is the first half of the scale, its rows' simulations the second
         * (a plan over every GPU ranks for seconds: the line had stayed silent through it) */
        struct plan_tick t = { in, ranking ? 2L * ncands : ncands, &stop, -1 };
        par_for(ncands, in->threads, users_solve_one, (void *)&u, plan_tick, &t);
        for (int ci = 0; ci < ncands; ci++)
            if (!ran[cands[ci].oi]) {
                rc = ranking ? llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller while ranking the options")
                             : llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after %d of %d options",
                                               ci, ncands);
                goto done;
            }
    }
    qsort(cands, (size_t)ncands, sizeof *cands, cand_cmp);
    struct plan_best best = best_start(in);
    for (int ci = 0; ci < ncands; ci++) {
        const struct rate_cand *k = &cands[ci];
        struct plan_option *o = &out->options[k->oi];
        /* --fast rows were reported as par_for solved them (plan_tick): this loop only sizes
         * them, and reporting it from 0 again had run the progress line twice; after a ranking
         * the simulations take the scale's second half */
        if (in->progress && !in->fast && !single)
            in->progress(in->progress_ctx, ranking ? ncands + ci : ci, ranking ? 2L * ncands : ncands);
        if (stop_asked(&in->sim.stop)) { /* the simulations ask it too; --fast runs none */
            rc = llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after %d of %d options", ci, ncands);
            goto done;
        }
        const long from = users_needed(in, &best, o);
        if (from == 0 || from > PLAN_USER_CAP) {
            o->pruned = true;
            snprintf(o->reason, sizeof o->reason, "not simulated: any count of its instances needs %s than the best "
                     "plan found by then (%s)", prune_what(in), bound_text(best.gpus, best.has_cost, best.cost, (char[64]){ 0 }, 64));
            continue;
        }
        if (in->fast || single) { /* searched already on the threads, from one user (users_needed) */
            if ((rc = rcs[k->oi])) {
                *err = errs[k->oi];
                goto done;
            }
        } else if ((rc = search_from(in, in->gpus[k->gi], k->code, from, o, err)))
            goto done;
        if (o->binding == PLAN_BIND_REJECTED && (o->pruned || o->users_per_instance == 0)) {
            rejected_reason(in, in->gpus[k->gi], -1.0, o->reason, sizeof o->reason);
            o->pruned = false;
            continue;
        }
        if (o->pruned) {
            snprintf(o->reason, sizeof o->reason, "not searched further: %ld users per instance miss the %s (%s "
                     "TTFT %.0f ms, TPOT %.1f ms) and fewer would need %s than the best plan found by then (%s)",
                     from, binding_miss(o->binding), st, o->ttft_s * 1e3, o->tpot_s * 1e3, prune_what(in),
                     bound_text(best.gpus, best.has_cost, best.cost, (char[64]){ 0 }, 64));
            o->binding = PLAN_BIND_NONE;
            continue;
        }
        if (o->users_per_instance == 0) {
            snprintf(o->reason, sizeof o->reason, "a single user already misses the %s (%s TTFT %.0f ms, TPOT %.1f ms)",
                     binding_miss(o->binding), st, o->ttft_s * 1e3, o->tpot_s * 1e3);
            continue;
        }
        if (o->binding == PLAN_BIND_CAP && in->users > PLAN_USER_CAP) {
            /* issue 14: a search that never found the limit is not an answer for more users than
             * it verified; for at most that many, one instance verified to serve them is (review
             * of session 33: 100 users under SLOs of 1000 s exited 1 with "search limit") */
            snprintf(o->reason, sizeof o->reason, "search limit: one instance still meets the SLOs at %d users "
                     "(%s TTFT %.0f ms, TPOT %.1f ms); the load that breaks it was not found",
                     PLAN_USER_CAP, st, o->ttft_s * 1e3, o->tpot_s * 1e3);
            continue;
        }
        users_size(in, o);
        if (o->users_per_node < 1)
            continue; /* cannot happen: layout_check admits only instances that divide the node */
        o->feasible = true;
        if ((rc = option_figures(in, k->code, o->users_per_instance, o, err)))
            goto done;
        if (in->has_price[o->gpu_index]) {
            o->has_cost = true;
            o->cost_per_hour = (double)o->gpus * in->price_per_gpu_hour[o->gpu_index];
        }
        best_update(in, &best, o);
    }
    if (in->progress)
        in->progress(in->progress_ctx, ranking ? 2L * ncands : ncands, ranking ? 2L * ncands : ncands);
done:
    free(cands);
    free(rcs);
    free(ran);
    free(errs);
    return rc;
}

int plan_run(const struct plan_input *in_, struct plan_result *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    struct plan_input local = *in_;
    const struct plan_input *in = &local;
    if ((local.fast || local.rate_qps > 0) && !(local.mean_prompt > 0 && local.mean_output > 0))
        mean_lengths(local.sim.workload, local.sim.seed, &local.mean_prompt, &local.mean_output);
    out->best = -1;
    if (in->ngpus < 1 || in->ngpus > PLAN_MAX_GPUS || in->ntps < 1 || in->ntps > PLAN_MAX_TPS)
        return llmroof_err_set(err, LLMROOF_EINPUT, "a plan needs 1-%d GPUs and 1-%d TP values", PLAN_MAX_GPUS, PLAN_MAX_TPS);
    if ((in->rate_qps > 0 ? !(in->rate_qps >= SIM_MIN_RATE_QPS && in->rate_qps <= 1e6) : in->users < 1) || !(in->ttft_slo_s > 0) || !(in->tpot_slo_s > 0) ||
        in->gpus_per_node < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "users (or a rate), SLOs and GPUs per node must be positive");
    for (int gi = 0; gi < in->ngpus; gi++)
        out->best_per_gpu[gi] = -1;
    int rc;
    if (in->rate_qps > 0) {
        if ((rc = plan_rate(in, out, err)))
            return rc;
    } else if ((rc = plan_users(in, out, err))) {
        return rc;
    }
    /* prices, then the best overall and per GPU */
    bool all_priced = true, any_price = false;
    for (int gi = 0; gi < in->ngpus; gi++)
        any_price |= in->has_price[gi];
    for (int i = 0; i < out->noptions; i++) {
        struct plan_option *o = &out->options[i];
        if (!o->feasible)
            continue;
        o->has_cost = in->has_price[o->gpu_index];
        if (o->has_cost)
            o->cost_per_hour = (double)o->gpus * in->price_per_gpu_hour[o->gpu_index];
        else
            all_priced = false;
    }
    out->by_cost = any_price && all_priced;
    for (int i = 0; i < out->noptions; i++) {
        const struct plan_option *o = &out->options[i];
        if (!o->feasible)
            continue;
        int gi = o->gpu_index;
        if (out->best_per_gpu[gi] < 0 || better(o, &out->options[out->best_per_gpu[gi]], out->by_cost))
            out->best_per_gpu[gi] = i;
        if (out->best < 0 || better(o, &out->options[out->best], out->by_cost))
            out->best = i;
    }

    /* observations */
    if (in->rate_qps > 0) {
        rate_observations(in, out);
        return LLMROOF_OK;
    }
    char st[16];
    plan_stat_name(in, st, sizeof st);
    if (out->best < 0) {
        add_obs(out, "No option meets %s TTFT <= %.8g ms and TPOT <= %.8g ms; see the reasons.", st,
                in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3);
        weights_hints(in, out);
    } else {
        const struct plan_option *b = &out->options[out->best];
        char bn[32];
        lname(in, b->tp, b->mode, bn, sizeof bn);
        char as[96];
        if (b->nodes_per_instance > 1)
            snprintf(as, sizeof as, "%ld x %s instance%s of %d nodes%s", b->instances, bn, b->instances == 1 ? "" : "s",
                     b->nodes_per_instance, b->instances == 1 ? "" : " each");
        else /* instances within a node: the GPUs they take, in nodes of the GPU's size */
            snprintf(as, sizeof as, "%ld x %s instance%s", b->instances, bn, b->instances == 1 ? "" : "s");
        if (out->by_cost)
            add_obs(out, "Cheapest: %s on %ld node%s of %d x %s, %ld GPU%s, $%.2f per hour, for %ld users.", as, b->nodes,
                    b->nodes == 1 ? "" : "s", b->gpus_per_node, b->gpu->id, b->gpus, b->gpus == 1 ? "" : "s",
                    b->cost_per_hour, in->users);
        else
            add_obs(out, "Fewest GPUs: %s on %ld node%s of %d x %s (%ld GPU%s) serve%s %ld users, %ld per instance.", as,
                    b->nodes, b->nodes == 1 ? "" : "s", b->gpus_per_node, b->gpu->id, b->gpus, b->gpus == 1 ? "" : "s",
                    b->instances == 1 ? "s" : "", in->users, b->users_per_instance);
    }
    for (int gi = 0; gi < in->ngpus; gi++) {
        int bi = out->best_per_gpu[gi];
        bool pruned = false;
        for (int i = 0; i < out->noptions; i++)
            pruned |= out->options[i].gpu_index == gi && out->options[i].pruned;
        if (bi < 0 && pruned && out->best >= 0) {
            const struct plan_option *ob = &out->options[out->best];
            add_obs(out, "%s: no layout searched to the end; those that might serve need %s than the answer "
                         "(%s).", in->gpus[gi]->id, prune_what(in),
                    bound_text(ob->gpus, ob->has_cost, ob->cost_per_hour, (char[64]){ 0 }, 64));
            continue;
        }
        if (bi < 0 && obs_engine_absent(in, out, gi))
            continue;
        if (bi < 0) {
            add_obs(out, "%s cannot serve this model under these SLOs at any TP tried.", in->gpus[gi]->id);
            continue;
        }
        const struct plan_option *b = &out->options[bi];
        char nb[32], no[32], nf[32];
        lname(in, b->tp, b->mode, nb, sizeof nb);
        char per[96];
        if (b->nodes_per_instance > 1)
            snprintf(per, sizeof per, "%s instances of %d nodes each", nb, b->nodes_per_instance);
        else
            snprintf(per, sizeof per, "%d x %s per node", b->instances_per_node, nb);
        char next[160] = "";
        if (b->next_users > 0 && (b->binding == PLAN_BIND_TTFT || b->binding == PLAN_BIND_SEQS)) {
            int dl;
            const int d = over_decimals(b->next_ttft_s * 1e3, in->ttft_slo_s * 1e3, 0, &dl);
            snprintf(next, sizeof next, ": at %ld users per instance %s TTFT is %.*f ms, over its %.8g ms", b->next_users,
                     st, d, b->next_ttft_s * 1e3, in->ttft_slo_s * 1e3);
        } else if (b->next_users > 0 && b->binding == PLAN_BIND_TPOT) {
            int dl;
            const int d = over_decimals(b->next_tpot_s * 1e3, in->tpot_slo_s * 1e3, 1, &dl);
            snprintf(next, sizeof next, ": at %ld users per instance %s TPOT is %.*f ms, over its %.8g ms", b->next_users,
                     st, d, b->next_tpot_s * 1e3, in->tpot_slo_s * 1e3);
        }
        if (b->next_users > 0 && b->binding == PLAN_BIND_REFUSED)
            snprintf(next, sizeof next, ": at %ld users per instance the engine refuses requests past its concurrency "
                     "limit (TGI's --max-concurrent-requests, HTTP 429)", b->next_users);
        if (b->binding == PLAN_BIND_CAP)
            snprintf(next, sizeof next, ": the search stopped there, within both SLOs, so one instance serves at "
                     "least that many");
        add_obs(out, "%s: best as %s, %ld users per instance, %ld node%s (%s TTFT %.0f ms, TPOT %.1f ms); %s binds "
                     "first%s.",
                b->gpu->id, per, b->users_per_instance, b->nodes, b->nodes == 1 ? "" : "s", st,
                b->ttft_s * 1e3, b->tpot_s * 1e3, plan_binding_name(b->binding), next);
        if (b->binding == PLAN_BIND_SEQS) {
            const long seqs = instance_max_seqs(in, b->gpu, LAY(b->tp, b->mode));
            add_obs(out, "%s: the next users wait for one of the instance's %ld sequence slots, not for the GPUs "
                         "(TPOT has room): a larger --max-seqs admits more and may change which layout wins.",
                    b->gpu->id, seqs);
        }
        /* one big TP instance against several smaller ones on the same node */
        const struct plan_option *full = NULL;
        for (int i = 0; i < out->noptions; i++) {
            const struct plan_option *o = &out->options[i];
            if (o->gpu_index == gi && o->mode == 0 && o->feasible && o->instances_per_node == 1)
                full = o;
        }
        for (int i = 0; full && i < out->noptions; i++) {
            const struct plan_option *o = &out->options[i];
            if (o->gpu_index != gi || o->mode != 0 || !o->feasible || o == full || o->instances_per_node < 1)
                continue; /* instances beyond a node are not "per node" */
            lname(in, o->tp, o->mode, no, sizeof no);
            lname(in, full->tp, full->mode, nf, sizeof nf);
            add_obs(out, "On %s, %d x %s instances serve %.2fx the users of 1 x %s per node (%ld against %ld).",
                    o->gpu->id, o->instances_per_node, no, (double)o->users_per_node / (double)full->users_per_node,
                    nf, o->users_per_node, full->users_per_node);
        }
    }
    layout_observations(in, out);
    return LLMROOF_OK;
}
