/* plan.c - capacity planner (see llmroof/plan.h). */
#include "llmroof/plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *plan_binding_name(enum plan_binding b)
{
    switch (b) {
    case PLAN_BIND_NONE: return "none";
    case PLAN_BIND_TTFT: return "ttft";
    case PLAN_BIND_TPOT: return "tpot";
    case PLAN_BIND_CAP: return "search-limit";
    }
    return "?";
}

static double pick(const struct sim_stats *s, int p)
{
    return p == 50 ? s->p50 : p == 90 ? s->p90 : p == 95 ? s->p95 : s->p99;
}

/* Requests simulated at `users`: enough for stable tails (the studies used a pool of 250). */
static long pool_for(long users)
{
    long r = 4 * users;
    return r < 250 ? 250 : r > 20000 ? 20000 : r;
}

/* Mean lengths of the workload, by sampling (fixed seed, so plans are reproducible). */
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

/* The --fast model: a closed loop of N users with mean think Z in steady state. With mean
 * response time R, throughput X = N / (Z + R) (interactive response-time law) and the running
 * batch B = X * R (Little). An iteration holds B decode tokens at the mean context plus the
 * prompt tokens arriving meanwhile (X * P * t); its time t comes from the roofline. Then
 * TPOT = t, TTFT = one iteration plus half of one of waiting, R = TTFT + (O - 1) * t.
 * Solved by damped fixed-point iteration. Means stand in for percentiles. */
static void fast_latency(const struct plan_input *in, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                         long users, double P, double O, double cap_batch, double *ttft, double *tpot)
{
    const double Z = (in->sim.think_min_s + in->sim.think_max_s) / 2;
    const double chunks = ceil(P / (double)in->sim.max_batched_tokens);
    double R = 1.0, t = 0.01;
    for (int it = 0; it < 200; it++) {
        double X = (double)users / (Z + R);
        double B = fmax(1.0, fmin(X * R, cap_batch));
        for (int k = 0; k < 20; k++) { /* the iteration time depends on the prompt tokens it holds */
            struct llmroof_batch b = batch_decode(B, P + O / 2);
            batch_add(&b, X * P * t, 0);
            t = sim_step_time(s, sh, &b);
        }
        /* users beyond the batch cap queue; Little's law gives their wait */
        double wait = X * R > cap_batch ? (X * R - cap_batch) / X : 0.0;
        *ttft = t * (chunks + 0.5) + wait;
        *tpot = t;
        double Rn = *ttft + (O - 1) * t;
        if (fabs(Rn - R) < 1e-9 * R)
            break;
        R = 0.5 * R + 0.5 * Rn;
    }
}

int plan_meets(const struct plan_input *in, const struct llmroof_gpu *g, int tp, long users, bool *meets,
               double *ttft_s, double *tpot_s, enum plan_binding *fails, struct llmroof_err *err)
{
    struct sim_config c = in->sim;
    c.setup = (struct llmroof_setup){ in->model, g, tp, in->dt, roofline_effs(g, &in->eff), { 0 } };
    c.mode = SIM_CLOSED;
    c.concurrency = users;
    c.requests = pool_for(users);
    c.record_iterations = false;
    if (in->fast) {
        int rc = estimate_check(&c.setup, err);
        if (rc)
            return rc;
        struct llmroof_shard sh;
        ops_shard(in->model, tp, &sh, NULL);
        struct llmroof_mem_opts mo = c.mem;
        mo.max_batched_tokens = (double)c.max_batched_tokens;
        mo.max_seqs = (double)c.max_seqs;
        struct llmroof_memory mem;
        if ((rc = memory_eval(in->model, g, tp, &in->dt, 1, &mo, &mem, err)))
            return rc;
        double P = in->mean_prompt, O = in->mean_output;
        if (!(P > 0 && O > 0))
            mean_lengths(c.workload, c.seed, &P, &O);
        double cap = fmin((double)c.max_seqs, mem.kv_capacity_tokens / (P + O / 2));
        if (cap < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s does not fit on %d x %s", in->model->id, tp, g->id);
        fast_latency(in, &c.setup, &sh, users, P, O, cap, ttft_s, tpot_s);
    } else {
        struct sim_result r;
        int rc = sim_run(&c, &r, err);
        if (rc)
            return rc;
        *ttft_s = pick(&r.ttft, in->percentile);
        *tpot_s = pick(&r.tpot, in->percentile);
        bool errors = r.errors > 0;
        sim_result_free(&r);
        if (errors) {
            *meets = false;
            *fails = PLAN_BIND_TTFT;
            return LLMROOF_OK;
        }
    }
    bool t1 = *ttft_s <= in->ttft_slo_s, t2 = *tpot_s <= in->tpot_slo_s;
    *meets = t1 && t2;
    *fails = !t1 ? PLAN_BIND_TTFT : !t2 ? PLAN_BIND_TPOT : PLAN_BIND_NONE;
    return LLMROOF_OK;
}

int plan_search(const struct plan_input *in, const struct llmroof_gpu *g, int tp, struct plan_option *o,
                struct llmroof_err *err)
{
    bool ok = false;
    double ttft = 0, tpot = 0;
    enum plan_binding fail = PLAN_BIND_NONE;
    int rc = plan_meets(in, g, tp, 1, &ok, &ttft, &tpot, &fail, err);
    o->evaluations = 1;
    if (rc)
        return rc;
    if (!ok) {
        o->users_per_instance = 0;
        o->ttft_s = ttft;
        o->tpot_s = tpot;
        o->binding = fail;
        return LLMROOF_OK;
    }
    long lo = 1, hi = 2;
    double lo_ttft = ttft, lo_tpot = tpot;
    enum plan_binding hi_fail = PLAN_BIND_CAP;
    for (;;) {
        if (hi > PLAN_USER_CAP) {
            hi = PLAN_USER_CAP + 1;
            break;
        }
        if ((rc = plan_meets(in, g, tp, hi, &ok, &ttft, &tpot, &fail, err)))
            return rc;
        o->evaluations++;
        if (!ok) {
            hi_fail = fail;
            break;
        }
        lo = hi;
        lo_ttft = ttft;
        lo_tpot = tpot;
        hi *= 2;
    }
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if ((rc = plan_meets(in, g, tp, mid, &ok, &ttft, &tpot, &fail, err)))
            return rc;
        o->evaluations++;
        if (ok) {
            lo = mid;
            lo_ttft = ttft;
            lo_tpot = tpot;
        } else {
            hi = mid;
            hi_fail = fail;
        }
    }
    o->users_per_instance = lo;
    o->ttft_s = lo_ttft;
    o->tpot_s = lo_tpot;
    o->binding = hi_fail;
    return LLMROOF_OK;
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

/* Is a better than b? Fewer GPUs (or lower cost when by_cost), then more users per node. */
static bool better(const struct plan_option *a, const struct plan_option *b, bool by_cost)
{
    if (by_cost && a->cost_per_hour != b->cost_per_hour)
        return a->cost_per_hour < b->cost_per_hour;
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus;
    return a->users_per_node > b->users_per_node;
}

int plan_run(const struct plan_input *in_, struct plan_result *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    struct plan_input local = *in_;
    const struct plan_input *in = &local;
    if (local.fast && !(local.mean_prompt > 0 && local.mean_output > 0))
        mean_lengths(local.sim.workload, local.sim.seed, &local.mean_prompt, &local.mean_output);
    out->best = -1;
    if (in->ngpus < 1 || in->ngpus > PLAN_MAX_GPUS || in->ntps < 1 || in->ntps > PLAN_MAX_TPS)
        return llmroof_err_set(err, LLMROOF_EINPUT, "a plan needs 1-%d GPUs and 1-%d TP values", PLAN_MAX_GPUS, PLAN_MAX_TPS);
    if (in->users < 1 || !(in->ttft_slo_s > 0) || !(in->tpot_slo_s > 0) || in->gpus_per_node < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "users, SLOs and GPUs per node must be positive");
    bool all_priced = true;
    for (int gi = 0; gi < in->ngpus; gi++) {
        out->best_per_gpu[gi] = -1;
        for (int ti = 0; ti < in->ntps; ti++) {
            const struct llmroof_gpu *g = in->gpus[gi];
            int tp = in->tps[ti];
            struct plan_option *o = &out->options[out->noptions++];
            memset(o, 0, sizeof *o);
            o->gpu = g;
            o->tp = tp;
            o->binding = PLAN_BIND_NONE;
            struct llmroof_err e2 = { 0 };
            struct llmroof_shard sh;
            if (in->gpus_per_node % tp != 0) {
                snprintf(o->reason, sizeof o->reason, "TP %d does not divide the %d GPUs of a node", tp, in->gpus_per_node);
                continue;
            }
            o->instances_per_node = in->gpus_per_node / tp;
            if (ops_shard(in->model, tp, &sh, &e2)) {
                snprintf(o->reason, sizeof o->reason, "%s", e2.msg);
                continue;
            }
            struct llmroof_setup s = { in->model, g, tp, in->dt, roofline_effs(g, &in->eff), { 0 } };
            if (estimate_check(&s, &e2)) {
                snprintf(o->reason, sizeof o->reason, "%s", e2.msg);
                continue;
            }
            struct llmroof_mem_opts mo = in->sim.mem;
            mo.max_batched_tokens = (double)in->sim.max_batched_tokens;
            mo.max_seqs = (double)in->sim.max_seqs;
            struct llmroof_memory mem;
            int rc = memory_eval(in->model, g, tp, &in->dt, 1, &mo, &mem, err);
            if (rc)
                return rc;
            if (mem.fit == LLMROOF_FIT_WEIGHTS || mem.kv_capacity_tokens < 1) {
                snprintf(o->reason, sizeof o->reason,
                         "the weights do not fit: %.1f GiB per GPU with workspace and reserve, %.1f GiB usable",
                         mem.weights_bytes_per_gpu / 1073741824.0, mem.usable_bytes / 1073741824.0);
                continue;
            }
            if ((rc = plan_search(in, g, tp, o, err)))
                return rc;
            if (o->users_per_instance == 0) {
                snprintf(o->reason, sizeof o->reason, "a single user already misses the %s SLO (p%d TTFT %.0f ms, TPOT %.1f ms)",
                         o->binding == PLAN_BIND_TPOT ? "TPOT" : "TTFT", in->percentile, o->ttft_s * 1e3, o->tpot_s * 1e3);
                continue;
            }
            o->feasible = true;
            o->users_per_node = o->users_per_instance * o->instances_per_node;
            o->nodes = (in->users + o->users_per_node - 1) / o->users_per_node;
            o->gpus = o->nodes * in->gpus_per_node;
            o->has_cost = in->has_price[gi];
            if (o->has_cost)
                o->cost_per_hour = (double)o->gpus * in->price_per_gpu_hour[gi];
            else
                all_priced = false;
        }
    }
    /* best overall and per GPU */
    bool any_price = false;
    for (int gi = 0; gi < in->ngpus; gi++)
        any_price |= in->has_price[gi];
    out->by_cost = any_price && all_priced;
    for (int i = 0; i < out->noptions; i++) {
        const struct plan_option *o = &out->options[i];
        if (!o->feasible)
            continue;
        int gi = i / in->ntps;
        if (out->best_per_gpu[gi] < 0 || better(o, &out->options[out->best_per_gpu[gi]], out->by_cost))
            out->best_per_gpu[gi] = i;
        if (out->best < 0 || better(o, &out->options[out->best], out->by_cost))
            out->best = i;
    }

    /* observations */
    if (out->best < 0) {
        add_obs(out, "No option meets p%d TTFT <= %.0f ms and TPOT <= %.0f ms; see the reasons.", in->percentile,
                in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3);
    } else {
        const struct plan_option *b = &out->options[out->best];
        if (out->by_cost)
            add_obs(out, "Cheapest: %ld node%s of %d x %s as %d x TP-%d instances, %ld GPUs, $%.2f per hour, for %ld users.",
                    b->nodes, b->nodes == 1 ? "" : "s", in->gpus_per_node, b->gpu->id, b->instances_per_node, b->tp,
                    b->gpus, b->cost_per_hour, in->users);
        else
            add_obs(out, "Fewest GPUs: %ld node%s of %d x %s as %d x TP-%d instances (%ld GPUs) serve %ld users, %ld per node.",
                    b->nodes, b->nodes == 1 ? "" : "s", in->gpus_per_node, b->gpu->id, b->instances_per_node, b->tp,
                    b->gpus, in->users, b->users_per_node);
    }
    for (int gi = 0; gi < in->ngpus; gi++) {
        int bi = out->best_per_gpu[gi];
        if (bi < 0) {
            add_obs(out, "%s cannot serve this model under these SLOs at any TP tried.", in->gpus[gi]->id);
            continue;
        }
        const struct plan_option *b = &out->options[bi];
        add_obs(out, "%s: best as %d x TP-%d per node, %ld users per instance, %ld nodes; %s binds first (p%d TTFT %.0f ms, "
                     "TPOT %.1f ms at that load).",
                b->gpu->id, b->instances_per_node, b->tp, b->users_per_instance, b->nodes, plan_binding_name(b->binding),
                in->percentile, b->ttft_s * 1e3, b->tpot_s * 1e3);
        /* one big instance against several smaller ones on the same node */
        const struct plan_option *full = NULL;
        for (int ti = 0; ti < in->ntps; ti++) {
            const struct plan_option *o = &out->options[gi * in->ntps + ti];
            if (o->feasible && o->instances_per_node == 1)
                full = o;
        }
        for (int ti = 0; full && ti < in->ntps; ti++) {
            const struct plan_option *o = &out->options[gi * in->ntps + ti];
            if (!o->feasible || o == full)
                continue;
            add_obs(out, "On %s, %d x TP-%d instances serve %.2fx the users of 1 x TP-%d per node (%ld against %ld).",
                    o->gpu->id, o->instances_per_node, o->tp, (double)o->users_per_node / (double)full->users_per_node,
                    full->tp, o->users_per_node, full->users_per_node);
        }
    }
    return LLMROOF_OK;
}
