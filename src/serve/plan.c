/* plan.c - capacity planner: users plans, the search for one row, and plan_run (see plan.h;
 * the layouts in plan_layout.c, the analytic model in plan_fast.c, rate plans in plan_rate.c,
 * observations in plan_obs.c). */
#include "serve/plan_internal.h"
#include "base/par.h"

#include <limits.h>
#include <math.h>
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
void plan_rejected_reason(const struct plan_input *in, const struct llmroof_gpu *g, double share, char *buf,
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

double plan_pick(const struct sim_stats *s, int p)
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
#define USERS_POOL_MAX 40000L
/* preemptions per request from which a run that meets the SLOs is rerun over USERS_PREEMPT_RUNS
 * times its requests, 40 x users (plan_meets) */
#define USERS_PREEMPT_SETTLE 0.01
#define USERS_PREEMPT_RUNS 5.0
/* users in step (plan_output_cv below PLAN_IN_STEP_CV) whose run meets the SLOs are rerun over
 * 200 cycles a user (200 x users requests): their waves form at a random cycle, not at once (80
 * Llama-3.1-8B users of fixed:2000:300 on an H100: p90 TTFT 624 ms over 40 cycles at seed 1, 1,528
 * at seed 42, 1,504-1,555 over 200 at seeds 1, 7 and 42); a run of 16,000 requests takes about
 * 20 ms (lazy decoders, sim.c) */
#define USERS_IN_STEP_CYCLES 200.0
#define USERS_IN_STEP_TOKENS 5e6

/* The --fast means at `users` of layout `code` (plan_fast_latency: the users' requests arriving
 * independently, at the loop's rate), with the KV cache and the slots that bound them; *slots_full
 * (may be NULL): the users fill every sequence slot before the KV cache. Returns 0, or an error
 * (the layout does not run, or the model does not fit). */
static int fast_means(const struct plan_input *in, const struct llmroof_gpu *g, int code, long users, double *ttft_s,
                      double *tpot_s, bool *slots_full, struct llmroof_err *err)
{
    const struct sim_config c = plan_sim_config(in, g);
    const struct llmroof_setup setup = plan_setup_for(in, g, code);
    int rc = estimate_check(&setup, err);
    if (rc)
        return rc;
    struct llmroof_shard sh;
    const struct llmroof_layout lay = estimate_layout(&setup);
    ops_shard_layout(in->model, &lay, &sh, NULL);
    struct llmroof_mem_opts mo = plan_mem_opts(in, g, sh.attn_dp);
    struct llmroof_memory mem;
    if ((rc = memory_eval_layout(in->model, g, &lay, &in->dt, 1, &mo, &mem, err)))
        return rc;
    double P = in->mean_prompt, O = in->mean_output, H = in->mean_held;
    if (!(P > 0 && O > 0))
        plan_mean_lengths(c.workload, c.seed, &P, &O, &H);
    /* the sequences the KV cache holds (plan_fast_cap) */
    const double cap = plan_fast_cap(mo.max_seqs, mem.kv_capacity_tokens, P, O, H, c.admit_no_evict);
    if (cap < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s does not fit on %d x %s", in->model->id, mem.gpus,
                               g->id); /* the layout's GPUs (tp is its code, LAY) */
    plan_fast_latency(in, &setup, &sh, users, P, O, cap, ttft_s, tpot_s);
    if (slots_full)
        *slots_full = (double)users > mo.max_seqs && mo.max_seqs <= mem.kv_capacity_tokens / (P + O / 2);
    return 0;
}

/* The users join over one cycle of a user at this load (sim_config.ramp_s): the mean pause plus a
 * request's estimated time in the system, its TTFT alone plus (O - 1) x the TPOT of a batch of all
 * the users (or the instance's sequence limit), and at most the cycle at the SLOs (the longest
 * pause, the TTFT SLO and (O - 1) x the TPOT SLO), as a deployment's users come and go at their
 * own times. Started within one pause of each other, users whose requests all have the same
 * lengths stay in step for hundreds of cycles: their prompts arrive in waves and the decode steps
 * between waves run without prefill chunks. DeepSeek-V3 on 8 H200s (DPA-8+EP-8), fixed:2000:500,
 * 2 s / 50 ms: 203 users an instance met a p90 TPOT of 49.9 ms over the plan's 1,624 requests,
 * 51.7 ms after 12,000, 55.0 ms joining over 30 s (and 53.5 ms with random lengths, which leave
 * step within a few cycles); 120 users still read 52.7 ms (review of session 67: the plan took 40
 * GPUs where random lengths take 80). The cycle at the SLOs alone over-admitted where it is far
 * longer than the real one (a 1 s TPOT SLO over 2,000-token outputs: a 2,005 s ramp that the
 * run's 8 x users requests ended within, its instance never fully loaded, 467 users an instance
 * where 221 meet the SLOs; a second review). An estimate, not a bound (the decode estimate leaves
 * out the prompts' chunks: 3.7 s where a 200-user loop cycles in 5.7), which dephases them all the
 * same; --fast's own solve, tried first, cost more than a short run's simulation (an A10 plan of
 * 128-token prompts: 0.01 -> 0.39 s, 17 s under valgrind). */
static double plan_users_ramp_s(const struct plan_input *in, const struct llmroof_gpu *g, int code, long users)
{
    /* every workload: nearly one length stays in step as one length does (a review: Llama-3-70B
     * TP-4, random:1024:256:0.999 took 212 GPUs without the ramp where fixed:1024:256 took 152);
     * a wide spread (random:2000:500 above) reads the same either way */
    double P = in->mean_prompt, O = in->mean_output, H = in->mean_held;
    if (!(P > 0 && O > 0))
        plan_mean_lengths(in->sim.workload, in->sim.seed, &P, &O, &H);
    const double think = (in->sim.think_min_s + in->sim.think_max_s) / 2.0;
    double cycle = in->sim.think_max_s + fmax(in->ttft_slo_s, 0.0) + fmax(O - 1.0, 0.0) * fmax(in->tpot_slo_s, 0.0);
    const struct llmroof_setup s = plan_setup_for(in, g, code);
    const long seqs = plan_instance_max_seqs(in, g, code);
    const long b = seqs > 0 && seqs < users ? seqs : users;
    const struct llmroof_request one = { 1, (long)llround(P), (long)llround(O) }, all = { b, one.prompt, one.output };
    struct llmroof_estimate e1, eb;
    struct llmroof_err e = { 0 };
    if (b >= 1 && one.prompt >= 1 && one.output >= 1 && estimate_run(&s, &one, &e1, &e) == 0 &&
        estimate_run(&s, &all, &eb, &e) == 0 && isfinite(e1.ttft_s) && isfinite(eb.tpot_s)) {
        const double bound = think + e1.ttft_s + fmax(O - 1.0, 0.0) * eb.tpot_s;
        cycle = bound < cycle ? bound : cycle;
    }
    /* to the hundredth of a second, so that the rerun command's "--ramp-up X.XXs" reads back the
     * same double (both the nearest to X.XX) and reproduces the row to the bit */
    cycle = round(cycle * 100.0) / 100.0;
    return cycle < SIM_RAMP_MAX_S ? cycle : SIM_RAMP_MAX_S;
}
static long pool_for(long users)
{
    long r = USERS_POOL * users;
    return r < 250 ? 250 : r > USERS_POOL_MAX ? USERS_POOL_MAX : r;
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

/* plan_meets, with the requests its deciding run simulated (*requests_run, may be NULL: the pool,
 * or the longer rerun of a run that met the SLOs while preempting), for the rerun command */
static int meets_run(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long users, bool *meets,
                     double *ttft_s, double *tpot_s, enum plan_binding *fails, double *preempt_per_request,
                     long *requests_run, struct llmroof_err *err);

int plan_meets(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long users, bool *meets,
               double *ttft_s, double *tpot_s, enum plan_binding *fails, double *preempt_per_request,
               struct llmroof_err *err)
{
    return meets_run(in, g, tp, users, meets, ttft_s, tpot_s, fails, preempt_per_request, NULL, err);
}

static int meets_run(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long users, bool *meets,
                     double *ttft_s, double *tpot_s, enum plan_binding *fails, double *preempt_per_request,
                     long *requests_run, struct llmroof_err *err)
{
    if (preempt_per_request)
        *preempt_per_request = 0;
    struct sim_config c = plan_sim_config(in, g);
    bool slots_full = false; /* every sequence slot was taken at this load */
    c.progress = NULL; /* the plan reports its rows, not each simulation */
    c.setup = plan_setup_for(in, g, tp);
    c.mode = SIM_CLOSED;
    c.concurrency = users;
    c.requests = pool_for(users);
    /* the start's burst and fill left out: at most a quarter of the run */
    c.warmup_requests = USERS_WARMUP * users < c.requests / 4 ? USERS_WARMUP * users : c.requests / 4;
    c.ramp_s = in->fast ? 0.0 : plan_users_ramp_s(in, g, tp, users);
    c.record_iterations = false;
    if (in->fast) {
        const int rc = fast_means(in, g, tp, users, ttft_s, tpot_s, &slots_full, err);
        if (rc)
            return rc;
        /* users beyond the engine's concurrency limit (TGI's 128) are refused, as the simulated
         * plan finds: the analytic one cannot count on them */
        if (c.max_concurrent > 0 && users > c.max_concurrent) {
            *meets = false;
            *fails = PLAN_BIND_REFUSED;
            return LLMROOF_OK;
        }
    } else {
        struct sim_result r;
        int rc = sim_run(&c, &r, err);
        if (rc)
            return rc;
        /* a run that meets the SLOs while preempting is rerun longer, as rate plans rerun theirs
         * (kv_bound_requests, plan_rate.c): a KV cache near full settles over many lives. 227
         * Llama-3.1-8B users of fixed:1000:2000 on an H100 met a 3 s p90 TTFT over the 1,816
         * requests of 8 x users (2.1 s, 0.46 preemptions a request) and missed it over 20,000
         * (6.8 s); 221 meet it there (1.9 s; a review of session 67) */
        /* So is one whose users stay in step (their outputs spread less than PLAN_IN_STEP_CV):
         * their waves grow over tens of cycles, as a wave's first prompts decode beside its last
         * ones' chunks (slow steps) and its last alone (fast ones), so it finishes closer together
         * than it began. 104 Llama-3.1-8B users of fixed:2000:300 on an H100 under vLLM read a
         * p90 TTFT of 1,885 ms over the 832 requests of 8 x users, 2,465 over 4,000 and 2,515
         * over 16,000, at every seed (a review of session 70: seeds had given 104 to 149 users);
         * random:2000:300:0.8 1,222 -> 1,906 ms; random:2000:300 and chat hold */
        const double pre = r.completed > 0 ? (double)r.preemptions / (double)r.completed : 0.0;
        const bool in_step = in->output_cv < PLAN_IN_STEP_CV;
        if (r.errors == 0 && (pre >= USERS_PREEMPT_SETTLE || in_step) &&
            plan_pick(&r.ttft, in->percentile) <= in->ttft_slo_s && plan_pick(&r.tpot, in->percentile) <= in->tpot_slo_s) {
            /* 40 cycles a user, not the rate plans' 2e7 tokens: short requests took those to the
             * 40,000-request cap at every preempting count (an A10 plan of 128-token prompts went
             * 0.01 -> 0.48 s, 50x under valgrind) */
            /* users in step run 200 cycles, at most USERS_IN_STEP_TOKENS output tokens (5 million:
             * 16,700 requests of 300 tokens, 180 cycles of 93 users): 25 x a pool of at least 250
             * requests had run one user's 4,000-token requests 6,250 times over, one decode an
             * iteration, a plan 0.2 -> 3.5 s (minutes under valgrind) */
            double want = USERS_PREEMPT_RUNS * (double)c.requests;
            if (in_step) {
                const double O = in->output_mean > 0 ? in->output_mean : 1.0;
                const double by_steps = fmin(USERS_IN_STEP_CYCLES * (double)users, USERS_IN_STEP_TOKENS / O);
                want = pre >= USERS_PREEMPT_SETTLE ? fmax(want, by_steps) : by_steps;
            }
            const long longer = want < (double)USERS_POOL_MAX ? (long)ceil(want) : USERS_POOL_MAX;
            if (longer > c.requests) {
                sim_result_free(&r);
                c.requests = longer;
                if ((rc = sim_run(&c, &r, err)))
                    return rc;
            }
        }
        if (requests_run)
            *requests_run = c.requests;
        *ttft_s = plan_pick(&r.ttft, in->percentile);
        *tpot_s = plan_pick(&r.tpot, in->percentile);
        bool errors = r.errors > 0, refused = r.refused_busy > 0;
        slots_full = r.max_batch >= plan_instance_max_seqs(in, g, tp); /* the whole instance's slots */
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
        snprintf(buf, size, "mean"); /* --fast compares means, not percentiles (plan_fast_latency) */
    else
        snprintf(buf, size, "p%d", in->percentile);
}

int plan_search(const struct plan_input *in, const struct llmroof_gpu *g, int tp, struct plan_option *o,
                struct llmroof_err *err)
{
    return search_from(in, g, tp, 1, o, err);
}

/* What a pruned row would need more of than the best plan found: GPUs, and cost where prices
 * may decide the answer (plan_could_win). */
const char *plan_prune_what(const struct plan_input *in)
{
    for (int gi = 0; gi < in->ngpus; gi++)
        if (in->has_price[gi])
            return "more GPUs and cost more";
    return "more GPUs";
}

/* The bound a pruned row lost to, for its reason: the fewest GPUs found, and where prices may
 * decide, the lowest cost found (a reason had named only "9 GPUs" where a cost had pruned it). */
const char *plan_bound_text(long gpus, bool has_cost, double cost, char *buf, size_t n)
{
    /* two bounds, each the best of its own kind, perhaps of different plans: "22 GPUs, $126.00
     * per hour" had read as one plan that no row was (22 B200s cost $132, 36 H200s $126) */
    if (has_cost)
        snprintf(buf, n, "fewest %ld GPU%s; cheapest $%.2f per hour", gpus, gpus == 1 ? "" : "s", cost);
    else
        snprintf(buf, n, "%ld GPU%s", gpus, gpus == 1 ? "" : "s");
    return buf;
}

/* No plan found yet; costs compare by price when any GPU has one. */
struct plan_best plan_best_start(const struct plan_input *in)
{
    struct plan_best b = { 0 };
    for (int gi = 0; gi < in->ngpus; gi++)
        b.any_price |= in->has_price[gi];
    return b;
}

/* Could an option on GPU gi with `gpus` GPUs beat (or tie) the best so far? plan_better() ranks by
 * cost when every feasible option is priced, else by GPUs: an option with more GPUs than the
 * fewest found, and (when prices may decide) priced and dearer than the cheapest found, loses
 * either way. An unpriced option is never pruned when prices exist: whether it is feasible
 * decides whether the answer goes by cost. */
bool plan_could_win(const struct plan_input *in, const struct plan_best *b, int gi, long gpus)
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

void plan_best_update(const struct plan_input *in, struct plan_best *b, const struct plan_option *o)
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

int plan_tick(void *ctx, int done, int n)
{
    (void)n;
    struct plan_tick *t = ctx;
    if (t->in->progress && done > t->reported)
        t->in->progress(t->in->progress_ctx, done, t->total);
    t->reported = done > t->reported ? done : t->reported;
    return par_stop_asked(t->stop);
}

static void users_size(const struct plan_input *in, struct plan_option *o);

/* The load each instance carries is ceil(users / instances), at most the capacity the search found,
 * and a simulated instance is not monotone in its users everywhere: its TTFT can pass at 296 users
 * and miss at 250 (Llama-3.1-8B, TP-4 H100s, fixed:2000:200, 1 s / 30 ms: p90 TTFT 984 ms at 296,
 * 1,109 ms at 250, 943 at 150, a planner's review of session 66; with the users joining over a
 * cycle, 981 ms at 296 and 1,944 at 230 over 40 x users requests: no run-length effect). The deployed load is simulated too;
 * where it misses, instances are added, one at a time (up to twice the count), until the load
 * they carry meets the SLOs, and that load is the answer's users per instance, the miss its
 * "next" figures. A miss within PLAN_DEPLOYED_RESOLUTION of the SLOs is the runs' own noise, not
 * a pocket: neighbouring user counts draw other requests, and near the knee their p90 moves by
 * about 1% (Qwen3-30B-A3B, DPA-2+MoETP-2 on H100s under SGLang: p90 TPOT 49.70, 50.01, 49.86,
 * 49.74, 49.83 and 50.23 ms at 998-1,010 users), where the pocket above missed by 11%. */
#define PLAN_DEPLOYED_RESOLUTION 0.02
static int verify_deployed_load(const struct plan_input *in, const struct llmroof_gpu *g, int code,
                                struct plan_option *o, struct llmroof_err *err)
{
    const long k0 = o->instances, searched = o->users_per_instance;
    if (k0 < 1 || searched < 1)
        return LLMROOF_OK;
    long n = (in->users + k0 - 1) / k0;
    if (n == searched)
        return LLMROOF_OK; /* the search's own load: verified */
    /* each distinct load once (consecutive counts often carry the same), from the first count's */
    for (long k = k0; k <= 2 * k0 && n >= 1;) {
        bool ok = false;
        double ttft = 0, tpot = 0, pre = 0;
        enum plan_binding fail = PLAN_BIND_NONE;
        const int rc = plan_meets(in, g, code, n, &ok, &ttft, &tpot, &fail, &pre, err);
        o->evaluations++;
        if (rc)
            return rc;
        /* within the runs' resolution of the SLOs the search's answer stands (its own load passed
         * strictly); a load of more instances is judged strictly: its figures become the answer's */
        if (!ok && k == k0 && (fail == PLAN_BIND_TTFT || fail == PLAN_BIND_TPOT || fail == PLAN_BIND_SEQS) &&
            ttft <= in->ttft_slo_s * (1.0 + PLAN_DEPLOYED_RESOLUTION) &&
            tpot <= in->tpot_slo_s * (1.0 + PLAN_DEPLOYED_RESOLUTION))
            return LLMROOF_OK;
        if (ok) {
            if (k > k0) {
                o->searched_users = searched;
                o->users_per_instance = n;
                o->ttft_s = ttft;
                o->tpot_s = tpot;
                o->preempt_per_request = pre;
                users_size(in, o);
            }
            return LLMROOF_OK;
        }
        /* the smallest load that missed: what binds, one step above the answer */
        o->next_users = n;
        o->next_ttft_s = ttft;
        o->next_tpot_s = tpot;
        o->binding = fail;
        if (n <= 1)
            break;
        k = (in->users + n - 2) / (n - 1); /* the fewest instances whose load is below n */
        n = (in->users + k - 1) / k;
    }
    /* no count up to twice the first carries a load that meets the SLOs: one user an instance
     * still might, but an answer this far from the search's is not one */
    o->searched_users = searched;
    o->users_per_instance = 0;
    return LLMROOF_OK;
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
 * best found (plan_could_win on its nodes' GPUs); 1 without a best, 0 when no count can. */
static long users_needed(const struct plan_input *in, const struct plan_best *b, const struct plan_option *o)
{
    const long gpn = o->gpus_per_node, top = 1L << 40;
    /* --fast solves are cheap: every row is solved to the end */
    if (in->exhaustive || in->fast || in->ngpus < 2 || b->gpus == 0 || plan_could_win(in, b, o->gpu_index, top))
        return 1;
    /* the most GPUs that could win (plan_could_win(lo), not hi), counted as users_size counts them: whole
     * nodes for an instance beyond a node, the instances' own GPUs within one */
    long lo = 0, hi = top;
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (plan_could_win(in, b, o->gpu_index, mid))
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
    quick.fast = true; /* (the ranking's order only: without a speculative model where --spec is given,
                          which moves no answer, pruning_never_changes_the_answer) */
    /* the analytic solves read the workload's mean lengths: sampled once here, not per solve */
    if (!(quick.mean_prompt > 0 && quick.mean_output > 0))
        plan_mean_lengths(quick.sim.workload, quick.sim.seed, &quick.mean_prompt, &quick.mean_output,
                          &quick.mean_held);
    for (int gi = 0; gi < in->ngpus; gi++) {
        for (int li = 0; li < ncodes; li++) {
            const int oi = out->noptions;
            struct plan_option *o = plan_new_option(out, in, gi, codes[li]);
            if ((rc = plan_layout_check(in, in->gpus[gi], codes[li], o->reason, sizeof o->reason, err)))
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
    qsort(cands, (size_t)ncands, sizeof *cands, plan_cand_cmp);
    struct plan_best best = plan_best_start(in);
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
                     "plan found by then (%s)", plan_prune_what(in), plan_bound_text(best.gpus, best.has_cost, best.cost, (char[64]){ 0 }, 64));
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
            plan_rejected_reason(in, in->gpus[k->gi], -1.0, o->reason, sizeof o->reason);
            o->pruned = false;
            continue;
        }
        if (o->pruned) {
            snprintf(o->reason, sizeof o->reason, "not searched further: %ld users per instance miss the %s (%s "
                     "TTFT %.0f ms, TPOT %.1f ms) and fewer would need %s than the best plan found by then (%s)",
                     from, binding_miss(o->binding), st, o->ttft_s * 1e3, o->tpot_s * 1e3, plan_prune_what(in),
                     plan_bound_text(best.gpus, best.has_cost, best.cost, (char[64]){ 0 }, 64));
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
        if (!in->fast && (rc = verify_deployed_load(in, in->gpus[k->gi], k->code, o, err)))
            goto done;
        if (o->users_per_instance == 0) {
            if (o->next_users <= 1)
                snprintf(o->reason, sizeof o->reason, "the search's %ld users per instance passed, but a single user "
                         "already misses the %s (%s TTFT %.0f ms, TPOT %.1f ms)", o->searched_users,
                         binding_miss(o->binding), st, o->next_ttft_s * 1e3, o->next_tpot_s * 1e3);
            else
                snprintf(o->reason, sizeof o->reason, "the search's %ld users per instance passed, but the loads its "
                         "instances would carry miss the %s, down to %ld users per instance (%s TTFT %.0f ms, TPOT "
                         "%.1f ms) at twice as many instances", o->searched_users, binding_miss(o->binding),
                         o->next_users, st, o->next_ttft_s * 1e3, o->next_tpot_s * 1e3);
            continue;
        }
        /* an instance of several nodes may serve fewer users than it has nodes (0 per node, rounded
         * down: a reviewer's 3 users of 30,000-token prompts on TP-4 over 2-GPU nodes had been
         * dropped without a reason); within a node, cannot happen: plan_layout_check admits only
         * instances that divide the node */
        if (o->users_per_instance < 1 || (o->nodes_per_instance <= 1 && o->users_per_node < 1))
            continue;
        o->feasible = true;
        if ((rc = plan_option_figures(in, k->code, o->users_per_instance, o, err)))
            goto done;
        if (in->has_price[o->gpu_index]) {
            o->has_cost = true;
            o->cost_per_hour = (double)o->gpus * in->price_per_gpu_hour[o->gpu_index];
        }
        plan_best_update(in, &best, o);
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
        plan_mean_lengths(local.sim.workload, local.sim.seed, &local.mean_prompt, &local.mean_output,
                          &local.mean_held);
    local.output_cv = plan_output_cv(local.sim.workload, local.sim.seed, &local.output_mean);
    out->best = -1;
    if (in->ngpus < 1 || in->ngpus > PLAN_MAX_GPUS || in->ntps < 1 || in->ntps > PLAN_MAX_TPS)
        return llmroof_err_set(err, LLMROOF_EINPUT, "a plan needs 1-%d GPUs and 1-%d TP values", PLAN_MAX_GPUS, PLAN_MAX_TPS);
    if ((in->rate_qps > 0 ? !(in->rate_qps >= SIM_MIN_RATE_QPS && in->rate_qps <= 1e6) : in->users < 1) || !(in->ttft_slo_s > 0) || !(in->tpot_slo_s > 0) ||
        in->gpus_per_node < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "users (or a rate), SLOs and GPUs per node must be positive");
    /* --fast's steady state has no verification pass nor drafter (plan_fast.c): its figures would
     * be a plan without speculation, printed as one with it */
    if (in->fast && in->sim.spec.kind != SIM_SPEC_NONE)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the analytic plan (--fast) has no speculative decoding model: "
                                                    "simulate it (drop --fast)");
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
        if (out->best_per_gpu[gi] < 0 || plan_better(o, &out->options[out->best_per_gpu[gi]], out->by_cost))
            out->best_per_gpu[gi] = i;
        if (out->best < 0 || plan_better(o, &out->options[out->best], out->by_cost))
            out->best = i;
    }

    /* observations; a price for some GPUs but not all ranks by GPU count, said (a review: the
     * unpriced H200 won beside a priced H100 with nothing saying cost was not compared) */
    if (any_price && !all_priced) {
        char unpriced[256] = "";
        for (int gi = 0; gi < in->ngpus; gi++)
            if (!in->has_price[gi]) {
                const size_t n = strlen(unpriced);
                snprintf(unpriced + n, sizeof unpriced - n, "%s%s", n ? ", " : "", in->gpus[gi]->id);
            }
        plan_obs_add(out, "Ranked by GPU count, not cost: --price names no price for %s (cost is shown where priced).",
                     unpriced);
    }
    if (in->rate_qps > 0) {
        plan_rate_observations(in, out);
        return LLMROOF_OK;
    }
    char st[16];
    plan_stat_name(in, st, sizeof st);
    if (out->best < 0) {
        plan_obs_add(out, "No option meets %s TTFT <= %.8g ms and TPOT <= %.8g ms; see the reasons.", st,
                     in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3);
        /* each GPU's weights hint comes in the per-GPU lines below (plan_weights_hint) */
    } else {
        const struct plan_option *b = &out->options[out->best];
        char bn[32];
        plan_layout_label(in, b->tp, b->mode, bn, sizeof bn);
        char as[96];
        if (b->nodes_per_instance > 1)
            snprintf(as, sizeof as, "%ld x %s instance%s of %d nodes%s", b->instances, bn, b->instances == 1 ? "" : "s",
                     b->nodes_per_instance, b->instances == 1 ? "" : " each");
        else /* instances within a node: the GPUs they take, in nodes of the GPU's size */
            snprintf(as, sizeof as, "%ld x %s instance%s", b->instances, bn, b->instances == 1 ? "" : "s");
        if (out->by_cost)
            plan_obs_add(out, "Cheapest: %s on %ld node%s of %d x %s, %ld GPU%s, $%.2f per hour, for %ld users.", as, b->nodes,
                         b->nodes == 1 ? "" : "s", b->gpus_per_node, b->gpu->id, b->gpus, b->gpus == 1 ? "" : "s",
                         b->cost_per_hour, in->users);
        else
            /* a row at the search limit still met the SLOs there: its users an instance are a
             * bound, and the answer stands on it (docs/planning.md) */
            plan_obs_add(out, "Fewest GPUs: %s on %ld node%s of %d x %s (%ld GPU%s) serve%s %ld user%s, %s%ld per instance.",
                         as, b->nodes, b->nodes == 1 ? "" : "s", b->gpus_per_node, b->gpu->id, b->gpus,
                         b->gpus == 1 ? "" : "s", b->instances == 1 ? "s" : "", in->users, in->users == 1 ? "" : "s",
                         b->binding == PLAN_BIND_CAP ? "at least " : "", b->users_per_instance);
        /* the answer's instances were raised past the search's (verify_deployed_load): say why,
         * or the jump from its users per instance to the miss above it reads as a capacity */
        if (b->searched_users > 0)
            plan_obs_add(out, "The search found %ld users an instance meeting the SLOs, but the %ld an instance that "
                              "%ld instances would carry miss them (%s TTFT %.0f ms, TPOT %.1f ms): an instance is not "
                              "monotone in its users here, so the plan takes the instances whose load meets them.",
                         b->searched_users, b->next_users, (in->users + b->next_users - 1) / b->next_users, st,
                         b->next_ttft_s * 1e3, b->next_tpot_s * 1e3);
        /* how to check it: simulate's defaults (250 requests, no warm-up) are not the plan's runs,
         * and with more users than requests they read a burst, not a steady state (a reviewer
         * re-simulating 1,170 Llama-3.1-8B users on an H100 under vLLM read a p90 TTFT of 40 ms
         * where the plan's run reads 2,992) */
        /* --fast's means assume the users' requests arrive independently (a Poisson stream at the
         * loop's rate). With fixed lengths and a pause whose spread is short beside a request's
         * time in the system, a closed loop's users stay in step instead: a wave of prompts
         * arrives together, the ones chunked first decode beside the others' chunks (slower
         * steps) while the last decode alone, so the wave finishes, pauses and returns together.
         * Llama-3-70B on TP-4 H100s, fixed:1024:256, 60 users, simulated mean TTFT: 1,184 ms at a
         * 1-3 s pause, 364 ms at 0-4 s, 126 ms at 0-8 s, 155 ms for Poisson arrivals at the same
         * rate (mean e2e about 8.7 s); --fast had answered 141 users an instance at a mean TTFT
         * of 109 ms where the simulated plan answers 59 (review of session 66) */
        const double e2e_s = b->ttft_s + (in->mean_output - 1.0) * b->tpot_s;
        /* the simulated plan runs those waves (they re-form after a ramp, plan_meets): --fast had
         * said it took the users as arriving at their own times as the simulated plan does, where
         * the simulated plan took twice its instances (a review of session 70: 104 Llama-3.1-8B
         * users of fixed:2000:300 an H100 against --fast's 218) */
        if (in->fast && in->sim.workload && in->output_cv < PLAN_IN_STEP_CV &&
            in->sim.think_max_s - in->sim.think_min_s < e2e_s)
            plan_obs_add(out, "Users move in step here: their outputs are all about one length, and the pause's spread "
                              "(%.3g s) is shorter than a request's mean time in the system (%.3g s), so their prompts "
                              "arrive in waves that re-form however the users start; --fast takes them as arriving at "
                              "their own times, and can answer far fewer instances than such a loop needs: plan without "
                              "--fast, which runs the waves.",
                         in->sim.think_max_s - in->sim.think_min_s, e2e_s);
        if (!in->fast) {
            /* the run that decided the row: the pool, or its longer rerun where it preempted (a
             * review: the printed -n 1800 read p90 TTFT 1,319 ms where the row's 9,000 read 2,963) */
            long n = pool_for(b->users_per_instance);
            {
                bool ok = false;
                double t1 = 0, t2 = 0;
                enum plan_binding f = PLAN_BIND_NONE;
                struct llmroof_err e = { 0 };
                if (meets_run(in, b->gpu, LAY(b->tp, b->mode), b->users_per_instance, &ok, &t1, &t2, &f, NULL, &n, &e))
                    n = pool_for(b->users_per_instance);
            }
            const long pool = pool_for(b->users_per_instance); /* the warm-up is the pool's, kept by a rerun */
            const long w = USERS_WARMUP * b->users_per_instance < pool / 4 ? USERS_WARMUP * b->users_per_instance : pool / 4;
            /* the whole command where the plan's options are known (plan_input.rerun_args): the row's
             * GPU and layout (its TP, and the parallelism its mode names) after them */
            char lay[240] = "";
            if (in->rerun_args) {
                char flags[160];
                plan_layout_flags(in, b->gpu, LAY(b->tp, b->mode), flags, sizeof flags);
                snprintf(lay, sizeof lay, " -g %s %s", b->gpu->id, flags);
            }
            const bool whole = in->rerun_args && strlen(in->rerun_args) + strlen(lay) < 1000;
            /* one-length workloads: the users join over a cycle (plan_users_ramp_s), said and rerun */
            const double ramp = plan_users_ramp_s(in, b->gpu, LAY(b->tp, b->mode), b->users_per_instance);
            char join[240] = "", rflag[48] = "";
            if (ramp > 0) {
                snprintf(join, sizeof join, ", the users joining over one cycle of a user (%.2f s for the best row: the "
                         "mean pause and a request's estimated time in the system at a batch of every user, at most "
                         "the cycle at the SLOs), as users that start together can move in step,", ramp);
                snprintf(rflag, sizeof rflag, " --ramp-up %.2fs", ramp);
            }
            plan_obs_add(out, "Each user count ran %ld x users requests (at least 250, at most 40000; where it met the "
                              "SLOs, %s)%s and left the first "
                              "%ld x users (at most a quarter) out of its latencies; to rerun the best row: %ssimulate%s%s%s "
                              "-c %ld -n %ld%s --warmup %ld --ttft-slo %.8gms --tpot-slo %.8gms --slo-percentile p%d%s.",
                         (long)USERS_POOL,
                         in->output_cv < PLAN_IN_STEP_CV
                             ? "200 cycles a user, up to 5 million output tokens, as users whose outputs are all about "
                               "one length form waves of prompts at some cycle, not at once"
                             : "5 times as many while preempting",
                         join, (long)USERS_WARMUP, whole ? "llmroof " : "", whole ? " " : "",
                         whole ? in->rerun_args : "", whole ? lay : "", b->users_per_instance, n, rflag, w,
                         in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3, in->percentile,
                         whole ? "" : ", with the plan's model, GPU, layout and options");
        }
    }
    for (int gi = 0; gi < in->ngpus; gi++) {
        int bi = out->best_per_gpu[gi];
        bool pruned = false;
        for (int i = 0; i < out->noptions; i++)
            pruned |= out->options[i].gpu_index == gi && out->options[i].pruned;
        if (bi < 0 && pruned && out->best >= 0) {
            const struct plan_option *ob = &out->options[out->best];
            plan_obs_add(out, "%s: no layout searched to the end; those that might serve need %s than the answer "
                              "(%s; --exhaustive searches it to its own answer).", in->gpus[gi]->id, plan_prune_what(in),
                    plan_bound_text(ob->gpus, ob->has_cost, ob->cost_per_hour, (char[64]){ 0 }, 64));
            continue;
        }
        if (bi < 0 && (plan_obs_engine_absent(in, out, gi) || plan_weights_hint(in, out, gi)))
            continue;
        if (bi < 0) {
            plan_obs_add(out, "%s cannot serve this model under these SLOs at any TP tried.", in->gpus[gi]->id);
            continue;
        }
        const struct plan_option *b = &out->options[bi];
        char nb[32], no[32], nf[32];
        plan_layout_label(in, b->tp, b->mode, nb, sizeof nb);
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
        plan_obs_add(out, "%s: best as %s, %ld user%s per instance, %ld node%s (%s TTFT %.0f ms, TPOT %.1f ms); %s binds "
                          "first%s.",
                     b->gpu->id, per, b->users_per_instance, b->users_per_instance == 1 ? "" : "s", b->nodes,
                     b->nodes == 1 ? "" : "s", st,
                     b->ttft_s * 1e3, b->tpot_s * 1e3, plan_binding_name(b->binding), next);
        if (b->binding == PLAN_BIND_SEQS) {
            const long seqs = plan_instance_max_seqs(in, b->gpu, LAY(b->tp, b->mode));
            const struct llmroof_engine *en = in->eff.engine;
            if (en && en->max_batch > 0 && seqs >= en->max_batch) /* calm: one; no flag raises it */
                plan_obs_add(out, "%s: the next users wait for one of the instance's %ld sequence slot%s, not for the "
                                  "GPUs (TPOT has room): engine %s runs no more at once, so more users take more "
                                  "instances.", b->gpu->id, seqs, seqs == 1 ? "" : "s", en->id);
            else if (b->tpot_s >= 0.9 * in->tpot_slo_s) /* no room to speak of (a review: 19.6 ms against 20) */
                plan_obs_add(out, "%s: the next users wait for one of the instance's %ld sequence slots, and TPOT "
                                  "(%.1f ms) is within 10%% of its SLO: a larger --max-seqs admits more, whose steps "
                                  "would then miss it.", b->gpu->id, seqs, b->tpot_s * 1e3);
            else
                plan_obs_add(out, "%s: the next users wait for one of the instance's %ld sequence slots, not for the "
                                  "GPUs (TPOT has room): a larger --max-seqs admits more and may change which layout "
                                  "wins.", b->gpu->id, seqs);
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
            plan_layout_label(in, o->tp, o->mode, no, sizeof no);
            plan_layout_label(in, full->tp, full->mode, nf, sizeof nf);
            plan_obs_add(out, "On %s, %d x %s instances serve %.2fx the users of 1 x %s per node (%ld against %ld).",
                         o->gpu->id, o->instances_per_node, no, (double)o->users_per_node / (double)full->users_per_node,
                         nf, o->users_per_node, full->users_per_node);
        }
    }
    plan_layout_observations(in, out);
    plan_spec_observation(in, out);
    return LLMROOF_OK;
}
