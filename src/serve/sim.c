/* sim.c - continuous-batching serving simulator (see llmroof/sim.h).
 *
 * Iteration-level scheduling as vLLM does it: every iteration first serves the running
 * sequences in admission order (a prefill chunk, or one decode token each) within the token
 * budget, preempting the most recently admitted ones (recomputation) when KV blocks run out;
 * then admits waiting requests first-come-first-served while blocks, budget and the sequence
 * limit allow. The iteration's duration is the roofline cost of everything it holds
 * (sim_step_time), and the clock jumps from iteration to iteration or to the next arrival.
 *
 * Several instances (a routed cluster, or the prefill and decode pools of disaggregated
 * serving) each keep their own clock; the run always advances whichever comes first, the next
 * arrival or the instance with the earliest pending iteration. Prefix caching, speculative
 * decoding and the KV transfer between pools are described in docs/metrics.md.
 *
 * sim_run's phases: check the configuration, build the instances, create the arrivals, run
 * the event loop (route arrivals, step instances), collect the metrics. */
#include "serve/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"

void sim_default_config(struct sim_config *c)
{
    memset(c, 0, sizeof *c);
    c->mem = memory_default_opts();
    c->mem.block_size = 16;
    c->max_batched_tokens = 2048;
    c->max_seqs = 256;
    c->chunked_prefill = true;
    c->mode = SIM_CLOSED;
    c->concurrency = 20;
    c->requests = 250;
    c->think_min_s = 1.0;
    c->think_max_s = 3.0;
    c->rate_qps = 1.0;
    c->seed = 42;
    c->instances = 1;
    c->router = SIM_ROUTE_ROUND_ROBIN;
    c->prefix_groups = 1;
    c->spec.k = 3;
    c->kv_link_Bps = 50e9;        /* one 400 Gb/s InfiniBand NDR port per GPU */
    c->kv_link_latency_s = 20e-6; /* assumed per-transfer setup cost */
    c->slo_percentile = 99;       /* MLPerf Inference's LLM latency constraints are p99 */
}

const char *sim_router_name(enum sim_router r)
{
    switch (r) {
    case SIM_ROUTE_ROUND_ROBIN: return "round-robin";
    case SIM_ROUTE_LEAST_LOADED: return "least-loaded";
    case SIM_ROUTE_PREFIX: return "prefix-affinity";
    }
    return "?";
}

const char *sim_spec_name(enum sim_spec_kind k)
{
    switch (k) {
    case SIM_SPEC_NONE: return "none";
    case SIM_SPEC_DRAFT: return "draft";
    case SIM_SPEC_MTP: return "mtp";
    case SIM_SPEC_EAGLE: return "eagle";
    case SIM_SPEC_MEDUSA: return "medusa";
    }
    return "?";
}

double sim_spec_tokens_per_step(int k, double alpha)
{
    /* expected accepted drafts + the target's own token: sum_{i=0..k} alpha^i */
    if (k < 1)
        return 1.0;
    if (alpha <= 0)
        return 1.0;
    return (1.0 - pow(alpha, (double)k + 1.0)) / (1.0 - alpha);
}

double sim_step_time(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct llmroof_batch *b)
{
    struct llmroof_oplist ops;
    struct llmroof_phase p;
    ops_build(s->model, sh, &s->dt, b, &ops);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &p);
    return p.time_s;
}

void sim_result_free(struct sim_result *r)
{
    free(r->reqs);
    free(r->iters);
    free(r->inst);
    r->reqs = NULL;
    r->iters = NULL;
    r->inst = NULL;
}

/* ------------------------------------------------------------------------ */
/* Containers                                                               */
/* ------------------------------------------------------------------------ */

struct event {
    double t; /* arrival time */
    long id;  /* request index; ties go to the lower index */
};

struct heap {
    struct event *v;
    size_t n;
};

static bool ev_less(struct event a, struct event b)
{
    return a.t < b.t || (a.t == b.t && a.id < b.id);
}

static void heap_push(struct heap *h, struct event e)
{
    size_t i = h->n++;
    h->v[i] = e;
    while (i > 0 && ev_less(h->v[i], h->v[(i - 1) / 2])) {
        struct event t = h->v[i];
        h->v[i] = h->v[(i - 1) / 2];
        h->v[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static struct event heap_pop(struct heap *h)
{
    struct event top = h->v[0];
    h->v[0] = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && ev_less(h->v[l], h->v[m]))
            m = l;
        if (r < h->n && ev_less(h->v[r], h->v[m]))
            m = r;
        if (m == i)
            break;
        struct event t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
    return top;
}

/* Double-ended queue of request ids (ring buffer). */
struct deque {
    long *v;
    size_t cap, head, n;
};

static void dq_push_back(struct deque *d, long id)
{
    d->v[(d->head + d->n++) % d->cap] = id;
}

static void dq_push_front(struct deque *d, long id)
{
    d->head = (d->head + d->cap - 1) % d->cap;
    d->v[d->head] = id;
    d->n++;
}

static long dq_front(const struct deque *d)
{
    return d->v[d->head];
}

static void dq_pop_front(struct deque *d)
{
    d->head = (d->head + 1) % d->cap;
    d->n--;
}

/* Per-request scheduler state. A running request's copy lives in its instance's run[] array,
 * contiguous, which the per-iteration loops stream through (bench_sim: the loads of a state
 * scattered over all requests were the largest cost); S[] holds it while the request waits. */
struct rstate {
    long id;        /* the request */
    long computed;  /* tokens whose K/V are in the cache */
    long target;    /* tokens to prefill: the prompt, or prompt + generated after a preemption */
    long generated; /* output tokens emitted */
    long blocks;    /* KV blocks held by this sequence alone */
    long shared;    /* KV blocks it uses from its prefix group's cached blocks */
    long chunk;     /* tokens scheduled in the current iteration */
    long user;      /* closed loop: the user who sent it */
    long output;    /* the request's output length (a copy: the hot loops stay in this array) */
    long group;     /* its prefix group (a copy), -1: none */
    int stage;      /* 0: new arrival; 1: KV arrived at a decode instance */
    double decode_sched_s; /* disaggregated: first decode step at the decode instance (-1: none) */
};

/* Sorts doubles ascending: quicksort (median of three) with insertion sort below 16, the
 * comparisons inline (qsort's callback was a tenth of bench_sim's time). */
static void sort_doubles(double *v, long n)
{
    while (n > 16) {
        long m = n / 2;
        double a = v[0], b = v[m], c = v[n - 1];
        double p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        long i = 0, j = n - 1;
        for (;;) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i >= j)
                break;
            double t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        /* recurse into the smaller part, loop on the larger */
        long left = j + 1;
        if (left < n - left) {
            sort_doubles(v, left);
            v += left;
            n -= left;
        } else {
            sort_doubles(v + left, n - left);
            n = left;
        }
    }
    for (long i = 1; i < n; i++) {
        double x = v[i];
        long k = i;
        for (; k > 0 && v[k - 1] > x; k--)
            v[k] = v[k - 1];
        v[k] = x;
    }
}

/* Percentiles by linear interpolation between order statistics (numpy's default). */
static struct sim_stats stats_of(double *v, long n)
{
    struct sim_stats s = { 0 };
    s.n = n;
    if (n == 0)
        return s;
    sort_doubles(v, n);
    double sum = 0;
    for (long i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / (double)n;
    double ps[5] = { 50, 90, 95, 99, 100 };
    double *out[5] = { &s.p50, &s.p90, &s.p95, &s.p99, &s.max };
    for (int k = 0; k < 5; k++) {
        double pos = ps[k] / 100.0 * (double)(n - 1);
        long lo = (long)floor(pos);
        long hi = lo + 1 < n ? lo + 1 : lo;
        *out[k] = v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
    }
    return s;
}

static double stat_at(const struct sim_stats *s, int p)
{
    return p == 50 ? s->p50 : p == 90 ? s->p90 : p == 95 ? s->p95 : p == 99 ? s->p99 : s->max;
}

struct tevent {
    double t;
    int delta;
};

static int cmp_tevent(const void *a, const void *b)
{
    const struct tevent *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return y->delta - x->delta; /* arrivals before finishes at the same instant */
}

/* A shared prefix's cached blocks on one instance. */
struct pgroup {
    long blocks;   /* full blocks of the prefix held by the cache */
    long refs;     /* running sequences using them */
    bool resident;
};

/* One serving instance: its own KV pool, queue, running set and clock. */
struct engine {
    struct llmroof_setup setup;  /* model on tp x gpu */
    struct llmroof_shard sh;
    int pool;                    /* 0: aggregated or prefill, 1: decode */
    bool prefill_only;           /* disaggregated prefill instance: requests leave after their first token */
    bool spec;                   /* speculative decoding runs here (not on a prefill-only instance) */
    long total_blocks, free_blocks, bs;
    struct deque waiting;        /* arrived, not running (preempted ones at the front) */
    struct rstate *run;          /* running, in admission order: their live state */
    long nrun;
    double now;                  /* end of its last iteration, or when it last became busy */
    double link_free_s;          /* decode instance: when its incoming KV link is free */
    long load;                   /* assigned and unfinished requests (least-loaded routing) */
    struct pgroup *pg;           /* prefix cache per group; NULL when caching is off */
    struct llmroof_setup draft;  /* SIM_SPEC_DRAFT: the draft model on the same GPUs */
    struct llmroof_shard dsh;
    double wbatch, wkv;          /* time-weighted sums for the means */
    struct sim_instance st;
};

/* The whole run. */
struct runner {
    const struct sim_config *c;
    struct sim_result *out;
    struct sim_request *R;
    struct rstate *S;
    long nreq;
    struct engine *E;
    int ne, npre;                /* engines [0, npre): aggregated or prefill pool; [npre, ne): decode */
    struct heap arrivals;        /* new arrivals and KV arrivals, by time */
    struct llmroof_rng rng;      /* lengths, think times, arrivals, prefix groups */
    struct llmroof_rng spec_rng; /* speculative acceptance: its own stream, so lengths stay the same */
    long created, done;
    long rr[2];                  /* round-robin counters per pool */
    long cached_len;             /* prefix tokens the cache can serve: whole blocks only */
    double kv_bytes_per_token;   /* whole model, for the KV transfer */
    double spec_emitted, spec_steps;
    double alpha_pow[65];        /* alpha^m, m = 0..k */
    size_t iter_cap;
};

/* What one iteration holds. */
struct iter {
    struct llmroof_batch b;      /* tokens, sequences, attention pairs, keys read */
    struct llmroof_batch draft;  /* what the drafter's first pass holds (prefill chunks + one token per decode) */
    struct llmroof_batch dec1;   /* one token per decoding sequence: the drafter's later passes */
    long budget;                 /* tokens still allowed */
    int nsched, prefill_seqs, decode_seqs;
    long prefill_tokens;
};

static long blocks_for(long tokens, long bs)
{
    return bs > 1 ? (tokens + bs - 1) / bs : tokens; /* engine_init makes bs >= 1 */
}

static bool spec_on(const struct runner *r, const struct engine *e)
{
    (void)r;
    return e->spec;
}

/* ------------------------------------------------------------------------ */
/* Blocks: prefix cache and preemption                                      */
/* ------------------------------------------------------------------------ */

/* Frees cached prefixes no running sequence uses (except `keep`) until `need` blocks are free:
 * cached blocks are reclaimable, as vLLM's evictor treats unreferenced cached blocks. */
static void evict_for(const struct runner *r, struct engine *e, long need, long keep)
{
    if (!e->pg)
        return;
    for (long g = 0; g < r->c->prefix_groups && e->free_blocks < need; g++) {
        struct pgroup *p = &e->pg[g];
        if (p->resident && p->refs == 0 && g != keep) {
            e->free_blocks += p->blocks;
            p->blocks = 0;
            p->resident = false;
        }
    }
}

/* Releases what a running sequence holds on `e`: its own blocks and its reference to a prefix. */
static void release(struct engine *e, struct rstate *rs)
{
    e->free_blocks += rs->blocks;
    rs->blocks = 0;
    if (rs->shared && e->pg) {
        e->pg[rs->group].refs--;
        rs->shared = 0;
    }
}

/* Preempts the most recently admitted running sequence: its blocks are freed and it goes
 * back to the front of the queue to recompute prompt + generated tokens (vLLM's RECOMPUTE). */
static long preempt_last(struct runner *r, struct engine *e)
{
    struct rstate *vs = &e->run[--e->nrun];
    long v = vs->id;
    release(e, vs);
    vs->computed = 0;
    vs->chunk = 0;
    vs->target = r->R[v].prompt + vs->generated;
    r->S[v] = *vs;
    r->R[v].preemptions++;
    e->st.preemptions++;
    dq_push_front(&e->waiting, v);
    return v;
}

/* Tokens sequence `id` processes next within `budget`: a prefill chunk (the whole rest without
 * chunking), or a decode step: 1 token, or k + 1 verified positions with speculation (never
 * more than the tokens still to emit, so a request never outgrows its admission check). */
static inline long next_work(const struct runner *r, const struct engine *e, const struct rstate *rs, long start,
                             long budget, bool *prefill)
{
    *prefill = start < rs->target;
    if (*prefill) {
        long rem = rs->target - start;
        return r->c->chunked_prefill && rem > budget ? budget : rem;
    }
    if (!spec_on(r, e))
        return 1;
    long left = rs->output - rs->generated;
    long t = r->c->spec.k + 1L;
    return t < left ? t : left;
}

/* batch_add's arithmetic (src/model/ops.c), here so that the per-sequence loop inlines it:
 * this is the simulator's hottest line (bench_sim) */
static inline void iter_batch_add(struct llmroof_batch *b, double n, double past)
{
    b->tokens += n;
    b->seqs += 1.0;
    b->attn_pairs += n * past + n * (n + 1.0) / 2.0;
    b->kv_read_tokens += past + n;
}

static inline void add_to_iter(struct iter *it, long chunk, long past, bool prefill, bool spec)
{
    iter_batch_add(&it->b, (double)chunk, (double)past);
    if (spec) {
        iter_batch_add(&it->draft, prefill ? (double)chunk : 1.0, (double)past);
        if (!prefill)
            iter_batch_add(&it->dec1, 1.0, (double)past);
    }
    it->budget -= chunk;
    it->nsched++;
    if (prefill) {
        it->prefill_seqs++;
        it->prefill_tokens += chunk;
    } else {
        it->decode_seqs++;
    }
}

/* ------------------------------------------------------------------------ */
/* Scheduling one iteration                                                 */
/* ------------------------------------------------------------------------ */

/* Gives every running sequence its next work within the budget, preempting from the back
 * when KV blocks run out. */
static void schedule_running(struct runner *r, struct engine *e, struct iter *it)
{
    for (long i = 0; i < e->nrun; i++) {
        struct rstate *rs = &e->run[i];
        long id = rs->id;
        if (it->budget <= 0)
            break;
        bool prefill;
        long chunk = next_work(r, e, rs, rs->computed, it->budget, &prefill);
        if (chunk > it->budget)
            break; /* a speculative step needs its k + 1 positions */
        /* most steps stay within the blocks held: skip the division then */
        long held = rs->blocks + rs->shared;
        long need = rs->computed + chunk <= held * e->bs ? 0 : blocks_for(rs->computed + chunk, e->bs) - held;
        if (need > e->free_blocks)
            evict_for(r, e, need, -1);
        bool self = false;
        while (need > e->free_blocks && !self)
            self = preempt_last(r, e) == id;
        if (self)
            break; /* it was the last one running */
        e->free_blocks -= need;
        rs->blocks += need;
        rs->chunk = chunk;
        add_to_iter(it, chunk, rs->computed, prefill, spec_on(r, e));
    }
}

/* Admits waiting requests first come, first served while the sequence limit, the budget and
 * free blocks allow. A request whose prefix group is cached starts after the cached blocks.
 * Without chunking a prompt is admitted whole; the first of an iteration may exceed the budget
 * on its own. */
static void admit_waiting(struct runner *r, struct engine *e, struct iter *it, double now)
{
    const struct sim_config *c = r->c;
    while (e->waiting.n && e->nrun < c->max_seqs && it->budget > 0) {
        long id = dq_front(&e->waiting);
        /* work on the copy in the next free slot; it counts once nrun moves past it */
        struct rstate *rs = &e->run[e->nrun];
        *rs = r->S[id];
        long g = rs->group;
        bool hit = e->pg && g >= 0 && e->pg[g].resident && rs->computed == 0 && r->cached_len > 0 &&
                   rs->target > r->cached_len;
        long start = hit ? r->cached_len : rs->computed;
        long have = hit ? e->pg[g].blocks : 0;
        bool prefill;
        long chunk = next_work(r, e, rs, start, it->budget, &prefill);
        if (prefill && !c->chunked_prefill && rs->target - start > it->budget && it->nsched > 0)
            break;
        if (!prefill && chunk > it->budget)
            break;
        long need = blocks_for(start + chunk, e->bs) - have;
        if (need > e->free_blocks)
            evict_for(r, e, need, hit ? g : -1);
        if (need > e->free_blocks)
            break; /* the head waits for blocks; nobody overtakes it */
        dq_pop_front(&e->waiting);
        if (hit) {
            e->pg[g].refs++;
            rs->shared = have;
            rs->computed = start;
            if (r->R[id].first_sched_s < 0)
                r->R[id].cached_tokens = start;
        }
        e->free_blocks -= need;
        rs->blocks = need;
        rs->chunk = chunk;
        e->nrun++;
        if (r->R[id].first_sched_s < 0)
            r->R[id].first_sched_s = now;
        if (!prefill && rs->decode_sched_s < 0)
            rs->decode_sched_s = now;
        add_to_iter(it, chunk, rs->computed, prefill, spec_on(r, e));
    }
}

/* The cost of an iteration: the target's pass over everything it holds (sim_step_time), plus
 * the drafter's passes when speculating. A draft model runs k passes, the first over the same
 * prefill chunks (it keeps its own KV cache) and one token per decoding sequence; an EAGLE or
 * MTP head costs about one decoder layer of the target per draft token, Medusa's heads about one
 * layer for all k (an approximation, docs/metrics.md). */
static double iter_cost(const struct runner *r, const struct engine *e, const struct iter *it)
{
    double t = sim_step_time(&e->setup, &e->sh, &it->b);
    const struct sim_spec *sp = &r->c->spec;
    if (!spec_on(r, e) || it->decode_seqs == 0)
        return t;
    switch (sp->kind) {
    case SIM_SPEC_DRAFT:
        t += sim_step_time(&e->draft, &e->dsh, &it->draft);
        if (sp->k > 1)
            t += (double)(sp->k - 1) * sim_step_time(&e->draft, &e->dsh, &it->dec1);
        break;
    case SIM_SPEC_MTP:
    case SIM_SPEC_EAGLE:
        t += (double)sp->k * sim_step_time(&e->setup, &e->sh, &it->dec1) / (double)e->setup.model->layers;
        break;
    case SIM_SPEC_MEDUSA:
        t += sim_step_time(&e->setup, &e->sh, &it->dec1) / (double)e->setup.model->layers;
        break;
    case SIM_SPEC_NONE: break;
    }
    return t;
}

/* ------------------------------------------------------------------------ */
/* Routing, arrivals and departures                                         */
/* ------------------------------------------------------------------------ */

static int least_loaded(const struct runner *r, int lo, int n)
{
    int best = lo;
    for (int i = lo + 1; i < lo + n; i++)
        if (r->E[i].load < r->E[best].load)
            best = i;
    return best;
}

/* Picks the instance of `pool` for request `id`. Prefix affinity sends a group to one instance
 * (group mod N) so its prefix stays cached there, unless that instance holds more than twice
 * the load of the least-loaded one plus 4 requests: then balance wins (cache-aware routers such
 * as SGLang's fall back to load balancing the same way). */
static int route(struct runner *r, int pool, long id)
{
    int lo = pool == 0 ? 0 : r->npre, n = pool == 0 ? r->npre : r->ne - r->npre;
    if (n == 1)
        return lo;
    switch (r->c->router) {
    case SIM_ROUTE_ROUND_ROBIN: return lo + (int)(r->rr[pool]++ % n);
    case SIM_ROUTE_LEAST_LOADED: return least_loaded(r, lo, n);
    case SIM_ROUTE_PREFIX: {
        int least = least_loaded(r, lo, n);
        if (pool != 0 || r->R[id].group < 0)
            return least;
        int pref = lo + (int)(r->R[id].group % n);
        return r->E[pref].load <= 2 * r->E[least].load + 4 ? pref : least;
    }
    }
    return lo;
}

/* Draws request `id`'s lengths and prefix group. A shared prefix sits inside fixed and csv
 * prompts, and on top of the distributions' drawn prompts (workload_prefix_on_top). */
static void draw_request(struct runner *r, long id)
{
    const struct sim_config *c = r->c;
    struct sim_request *q = &r->R[id];
    workload_sample(c->workload, &r->rng, &q->prompt, &q->output);
    q->group = -1;
    if (c->prefix_tokens > 0) {
        long g = (long)(rng_uniform(&r->rng) * (double)c->prefix_groups);
        q->group = g < c->prefix_groups ? g : c->prefix_groups - 1;
        if (workload_prefix_on_top(c->workload))
            q->prompt += c->prefix_tokens;
    }
}

static void push_arrival(struct runner *r, long id)
{
    heap_push(&r->arrivals, (struct event){ r->R[id].arrival_s + r->E[0].setup.eff.first_token_s, id });
}

/* Closed loop: the user who just got an answer (or an error) at time `t` thinks, then sends
 * the next request of the pool. */
static void user_next(struct runner *r, long user, double t)
{
    const struct sim_config *c = r->c;
    if (c->mode != SIM_CLOSED || r->created >= r->nreq)
        return;
    long id = r->created++;
    double think = c->think_min_s + (c->think_max_s - c->think_min_s) * rng_uniform(&r->rng);
    draw_request(r, id);
    r->R[id].arrival_s = t + think;
    r->S[id].user = user;
    push_arrival(r, id);
}

static void wake(struct engine *e, double t)
{
    if (e->nrun == 0 && e->waiting.n == 0 && e->now < t)
        e->now = t;
}

/* A request reaches the system, or its KV reaches a decode instance. */
static void on_arrival(struct runner *r)
{
    struct event ev = heap_pop(&r->arrivals);
    long id = ev.id;
    struct sim_request *q = &r->R[id];
    struct rstate *rs = &r->S[id];
    rs->id = id;
    if (rs->stage == 1) {
        struct engine *d = &r->E[q->instance];
        wake(d, ev.t);
        dq_push_back(&d->waiting, id);
        return;
    }
    q->first_sched_s = -1;
    q->first_token_s = -1;
    q->kv_ready_s = -1;
    rs->decode_sched_s = -1;
    rs->target = q->prompt;
    rs->output = q->output;
    rs->group = q->group;
    /* impossible requests are rejected at once, so that they cannot stall the queue */
    bool fits = blocks_for(q->prompt + q->output - 1, r->E[r->ne - 1].bs) <= r->E[r->ne - 1].total_blocks &&
                blocks_for(q->prompt, r->E[0].bs) <= r->E[0].total_blocks;
    if (!fits) {
        q->rejected = true;
        q->finish_s = q->arrival_s;
        q->instance = -1;
        r->done++;
        user_next(r, rs->user, q->arrival_s);
        return;
    }
    int i = route(r, 0, id);
    struct engine *e = &r->E[i];
    if (r->c->disaggregated)
        q->prefill_instance = i;
    else
        q->instance = i;
    e->load++;
    e->st.requests++;
    wake(e, ev.t);
    dq_push_back(&e->waiting, id);
}

/* A prefill instance has emitted request `id`'s first token at `now`: the KV moves to a decode
 * instance over the link, one transfer at a time per receiving instance. The shards move in
 * parallel over min(TP_prefill, TP_decode) GPU pairs. */
static void hand_over(struct runner *r, struct engine *p, struct rstate *rs, double now)
{
    const struct sim_config *c = r->c;
    long id = rs->id;
    struct sim_request *q = &r->R[id];
    release(p, rs);
    p->load--;
    int di = route(r, 1, id);
    struct engine *d = &r->E[di];
    d->load++;
    d->st.requests++;
    int pairs = p->setup.tp < d->setup.tp ? p->setup.tp : d->setup.tp;
    double bytes = (double)q->prompt * r->kv_bytes_per_token;
    double start = now > d->link_free_s ? now : d->link_free_s;
    double dur = c->kv_link_latency_s + bytes / ((double)pairs * c->kv_link_Bps);
    d->link_free_s = start + dur;
    q->instance = di;
    q->kv_ready_s = start + dur;
    rs->stage = 1;
    rs->computed = q->prompt; /* the whole prompt's K/V arrives */
    rs->chunk = 0;
    r->S[id] = *rs;
    heap_push(&r->arrivals, (struct event){ q->kv_ready_s, id });
}

/* ------------------------------------------------------------------------ */
/* One iteration of one instance                                            */
/* ------------------------------------------------------------------------ */

static int record_iter(struct runner *r, const struct engine *e, int ei, const struct iter *it, double dt)
{
    struct sim_result *out = r->out;
    if ((size_t)out->iterations == r->iter_cap) {
        size_t cap = r->iter_cap ? r->iter_cap * 2 : 1024;
        struct sim_iter *ni = realloc(out->iters, cap * sizeof *ni);
        if (!ni)
            return LLMROOF_EINTERNAL;
        out->iters = ni;
        r->iter_cap = cap;
    }
    out->iters[out->iterations] = (struct sim_iter){ e->now, dt, it->prefill_seqs, it->decode_seqs, it->prefill_tokens,
                                                     (double)(e->total_blocks - e->free_blocks) / (double)e->total_blocks,
                                                     ei };
    return LLMROOF_OK;
}

/* Emitted tokens and cache bookkeeping after the iteration; finished requests leave, and a
 * prefill instance hands requests over once their first token is out. */
static void advance(struct runner *r, struct engine *e, double now)
{
    const struct sim_config *c = r->c;
    long keep = 0;
    for (long i = 0; i < e->nrun; i++) {
        struct rstate *rs = &e->run[i];
        long id = rs->id;
        struct sim_request *q = &r->R[id];
        if (rs->chunk > 0) {
            if (rs->computed < rs->target) {
                rs->computed += rs->chunk;
                /* an engine that samples the first token from a decode step (TurboMind) emits
                 * nothing at the end of the prefill; a prefill-only instance hands over then */
                if (rs->computed == rs->target && (!e->setup.eff.first_token_decode || e->prefill_only)) {
                    rs->generated++;
                    if (q->first_token_s < 0)
                        q->first_token_s = now;
                }
            } else {
                if (q->first_token_s < 0)
                    q->first_token_s = now;
                long emitted = 1;
                if (spec_on(r, e)) {
                    /* accepted drafts until the first rejection, then the target's own token:
                     * at least m drafts are accepted with probability alpha^m, so one uniform u
                     * gives j = #{m <= chunk - 1 : u < alpha^m} (no unpredictable branches) */
                    double u = rng_uniform(&r->spec_rng);
                    long j = 0;
                    for (long m = 1; m < rs->chunk; m++)
                        j += u < r->alpha_pow[m];
                    emitted = j + 1;
                    r->spec_emitted += (double)emitted;
                    r->spec_steps += 1;
                }
                rs->computed += emitted;
                rs->generated += emitted;
            }
            rs->chunk = 0;
            /* the first sequence to compute a prefix's full blocks leaves them in the cache */
            if (e->pg && rs->group >= 0 && r->cached_len > 0 && rs->shared == 0 && !e->pg[rs->group].resident &&
                rs->computed >= r->cached_len) {
                struct pgroup *pg = &e->pg[rs->group];
                pg->blocks = r->cached_len / e->bs;
                pg->refs = 1;
                pg->resident = true;
                rs->blocks -= pg->blocks;
                rs->shared = pg->blocks;
            }
        }
        if (rs->generated >= rs->output || (c->first_token_only && rs->generated >= 1)) {
            q->finish_s = now;
            release(e, rs);
            r->S[id] = *rs; /* its final state, for the metrics */
            e->load--;
            r->done++;
            user_next(r, rs->user, now);
            continue;
        }
        if (e->prefill_only && rs->generated >= 1) {
            hand_over(r, e, rs, now);
            continue;
        }
        if (keep != i)
            e->run[keep] = *rs;
        keep++;
    }
    e->nrun = keep;
}

static int engine_step(struct runner *r, int ei, struct llmroof_err *err)
{
    const struct sim_config *c = r->c;
    struct engine *e = &r->E[ei];
    struct iter it;
    memset(&it, 0, sizeof it);
    it.budget = c->max_batched_tokens;
    /* every running sequence's chunk is 0 here: advance() and preempt_last() clear it */
    if (c->chunked_prefill) {
        /* Sarathi-Serve / vLLM's chunked scheduler: running sequences first (decodes and
         * prefill chunks within the budget), then new admissions with what is left */
        schedule_running(r, e, &it);
        admit_waiting(r, e, &it, e->now);
    } else {
        /* vLLM's scheduler without chunking: waiting prompts first, whole, in a prefill-only
         * iteration that stalls every running decode; decodes run when none is admitted */
        admit_waiting(r, e, &it, e->now);
        if (it.nsched == 0)
            schedule_running(r, e, &it);
    }
    if (it.nsched == 0) /* cannot happen: a request that fits an empty cache is admitted */
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "scheduler made no progress at t=%.6f s", e->now);
    double dt = iter_cost(r, e, &it);
    if (c->record_iterations && record_iter(r, e, ei, &it, dt))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the iteration trace");
    r->out->iterations++;
    e->st.iterations++;
    e->wbatch += (double)it.nsched * dt;
    e->wkv += (double)(e->total_blocks - e->free_blocks) / (double)e->total_blocks * dt;
    e->st.busy_s += dt;
    if (it.nsched > e->st.max_batch)
        e->st.max_batch = it.nsched;
    e->now += dt;
    advance(r, e, e->now);
    return LLMROOF_OK;
}

/* ------------------------------------------------------------------------ */
/* Phases of a run                                                          */
/* ------------------------------------------------------------------------ */

/* Phase 1: the configuration makes sense; the number of requests. */
static int check_config(const struct sim_config *c, long *nreq, struct llmroof_err *err)
{
    int rc = estimate_check(&c->setup, err);
    if (rc)
        return rc;
    if (c->max_batched_tokens < 1 || c->max_seqs < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the token budget and the sequence limit must be at least 1");
    switch (c->mode) {
    case SIM_CLOSED:
        if (c->concurrency < 1 || c->requests < 1 || c->think_min_s < 0 || c->think_max_s < c->think_min_s)
            return llmroof_err_set(err, LLMROOF_EINPUT, "closed loop needs concurrency >= 1, requests >= 1 and a think range lo <= hi");
        *nreq = c->requests;
        break;
    case SIM_RATE:
        if (!(c->rate_qps > 0) || c->requests < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "open loop needs a positive rate and requests >= 1");
        *nreq = c->requests;
        break;
    case SIM_OFFLINE:
        if (c->requests < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "the offline scenario needs requests >= 1");
        *nreq = c->requests;
        break;
    case SIM_TRACE:
        if (!c->trace || c->ntrace == 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "the trace holds no requests");
        *nreq = (long)c->ntrace;
        break;
    default:
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "unknown simulation mode");
    }
    if (c->mode != SIM_TRACE && !c->workload)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "no workload given");
    const struct sim_spec *sp = &c->spec;
    if (sp->kind != SIM_SPEC_NONE) {
        if (sp->k < 1 || sp->k > 64)
            return llmroof_err_set(err, LLMROOF_EINPUT, "speculative decoding proposes k tokens: k must be in [1, 64]");
        if (!(sp->alpha >= 0 && sp->alpha < 1))
            return llmroof_err_set(err, LLMROOF_EINPUT, "the acceptance rate must be in [0, 1)");
        if (sp->kind == SIM_SPEC_DRAFT && !sp->draft)
            return llmroof_err_set(err, LLMROOF_EINPUT, "speculative decoding with a draft model needs the draft model");
        if (c->max_batched_tokens < sp->k + 1L)
            return llmroof_err_set(err, LLMROOF_EINPUT, "the token budget (%ld) must hold one verification pass of k + 1 = %d tokens",
                                   c->max_batched_tokens, sp->k + 1);
    }
    if (c->prefix_tokens < 0 || (c->prefix_tokens > 0 && (c->prefix_groups < 1 || c->prefix_groups > 100000)))
        return llmroof_err_set(err, LLMROOF_EINPUT, "a shared prefix needs 1 to 100000 groups");
    if (c->prefix_tokens > 0 && c->mode == SIM_TRACE)
        return llmroof_err_set(err, LLMROOF_EINPUT, "a shared prefix applies to generated workloads, not to a trace");
    if (c->prefix_tokens > 0 && c->workload && !workload_prefix_on_top(c->workload) &&
        c->prefix_tokens >= workload_min_prompt(c->workload))
        return llmroof_err_set(err, LLMROOF_EINPUT, "the shared prefix of %ld tokens is not shorter than the shortest prompt (%ld tokens)",
                               c->prefix_tokens, workload_min_prompt(c->workload));
    if (c->disaggregated) {
        if (c->prefill.instances < 1 || c->decode.instances < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "each pool needs at least one instance");
        if (!(c->kv_link_Bps > 0) || c->kv_link_latency_s < 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "the KV link needs a positive bandwidth");
    } else if (c->instances < 1) {
        return llmroof_err_set(err, LLMROOF_EINPUT, "a cluster needs at least one instance");
    }
    if (c->ttft_slo_s < 0 || c->tpot_slo_s < 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "SLO limits must not be negative");
    return LLMROOF_OK;
}

/* KV pool of one instance from the memory model (the workspace follows the iteration budget);
 * a draft model's or head's weights come out of it, and a draft model's KV shares it. */
static int engine_init(const struct sim_config *c, struct engine *e, const struct llmroof_setup *s, int pool, long nreq,
                       double *kv_bytes_per_token, struct llmroof_err *err)
{
    e->setup = *s;
    e->pool = pool;
    e->prefill_only = c->disaggregated && pool == 0;
    e->spec = c->spec.kind != SIM_SPEC_NONE && !e->prefill_only;
    int rc = estimate_check(s, err);
    if (rc)
        return rc;
    struct llmroof_mem_opts mo = c->mem;
    mo.max_batched_tokens = (double)c->max_batched_tokens;
    mo.max_seqs = (double)c->max_seqs;
    struct llmroof_memory mem;
    /* the setup's layout (PP, EP, data-parallel attention; docs/model.md section 10) */
    const struct llmroof_layout lay = estimate_layout(s);
    if ((rc = memory_eval_layout(s->model, s->gpu, &lay, &s->dt, 1, &mo, &mem, err)))
        return rc;
    e->bs = mo.block_size > 1 ? mo.block_size : 1;
    double cap_bytes = mem.kv_capacity_bytes_per_gpu, per_token = mem.kv_bytes_per_token_per_gpu;
    /* data-parallel attention replicas each hold their own sequences: the instance's KV blocks
     * are the replicas' together */
    cap_bytes *= (double)mem.attn_dp;
    *kv_bytes_per_token = mem.kv_bytes_per_token;
    if ((rc = ops_shard_layout(s->model, &lay, &e->sh, err)))
        return rc;
    if (c->spec.kind == SIM_SPEC_DRAFT && !e->prefill_only) {
        e->draft = *s;
        e->draft.model = c->spec.draft;
        if ((rc = ops_shard(c->spec.draft, s->tp, &e->dsh, err)))
            return rc;
        struct llmroof_memory dm;
        if ((rc = memory_eval(c->spec.draft, s->gpu, s->tp, &s->dt, 1, &mo, &dm, err)))
            return rc;
        cap_bytes -= dm.weights_bytes_per_gpu;
        per_token += dm.kv_bytes_per_token_per_gpu;
    } else if (c->spec.kind != SIM_SPEC_NONE && !e->prefill_only) {
        cap_bytes -= mem.weights_bytes_per_gpu / (double)s->model->layers; /* the head: about one layer */
    }
    double tokens = per_token > 0 && cap_bytes > 0 ? floor(cap_bytes / per_token) : 0;
    if (tokens > mem.kv_capacity_tokens * (double)mem.attn_dp)
        tokens = mem.kv_capacity_tokens * (double)mem.attn_dp;
    e->total_blocks = (long)floor(tokens / (double)e->bs);
    if (e->total_blocks < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s does not fit on %d x %s: no memory is left for the KV cache (see 'llmroof memory')",
                               s->model->id, s->tp, s->gpu->id);
    e->free_blocks = e->total_blocks;
    e->st.kv_blocks_total = e->total_blocks;
    e->st.pool = pool;
    long cap = (c->max_seqs < nreq ? c->max_seqs : nreq) + 1;
    e->run = calloc((size_t)cap, sizeof *e->run);
    e->waiting = (struct deque){ calloc((size_t)nreq + 1, sizeof(long)), (size_t)nreq + 1, 0, 0 };
    if (c->prefix_cache && c->prefix_tokens > 0 && !(c->disaggregated && pool == 1))
        e->pg = calloc((size_t)c->prefix_groups, sizeof *e->pg);
    if (!e->run || !e->waiting.v || (c->prefix_cache && c->prefix_tokens > 0 && !(c->disaggregated && pool == 1) && !e->pg))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
    return LLMROOF_OK;
}

static void engines_free(struct runner *r)
{
    for (int i = 0; r->E && i < r->ne; i++) {
        free(r->E[i].run);
        free(r->E[i].waiting.v);
        free(r->E[i].pg);
    }
    free(r->E);
    r->E = NULL;
}

/* Phase 2: the instances, one pool or two. */
static int build_engines(struct runner *r, struct llmroof_err *err)
{
    const struct sim_config *c = r->c;
    struct llmroof_setup ps = c->setup, ds = c->setup;
    if (c->disaggregated) {
        if (c->prefill.setup.model)
            ps = c->prefill.setup;
        if (c->decode.setup.model)
            ds = c->decode.setup;
        r->npre = c->prefill.instances;
        r->ne = c->prefill.instances + c->decode.instances;
    } else {
        r->npre = r->ne = c->instances;
    }
    r->E = calloc((size_t)r->ne, sizeof *r->E);
    if (!r->E)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d instances", r->ne);
    double kvb = 0;
    for (int i = 0; i < r->ne; i++) {
        int pool = c->disaggregated && i >= r->npre;
        int rc = engine_init(c, &r->E[i], pool ? &ds : &ps, pool, r->nreq, &kvb, err);
        if (rc)
            return rc;
        if (!pool)
            r->kv_bytes_per_token = kvb;
    }
    long bs = r->E[0].bs > 1 ? r->E[0].bs : 1;
    r->cached_len = c->prefix_cache ? c->prefix_tokens / bs * bs : 0;
    return LLMROOF_OK;
}

/* Phase 3: the arrivals the run starts with (a closed loop adds the rest as users come back). */
static void create_arrivals(struct runner *r)
{
    const struct sim_config *c = r->c;
    if (c->mode == SIM_CLOSED) {
        /* users start as they continue: after a think time, so that N users do not fire one
         * synchronized burst at t = 0 (load generators ramp users up the same way) */
        for (long u = 0; u < c->concurrency && r->created < r->nreq; u++)
            user_next(r, u, 0.0);
    } else if (c->mode == SIM_RATE) {
        double t = 0;
        for (; r->created < r->nreq; r->created++) {
            t += rng_exponential(&r->rng, c->rate_qps);
            draw_request(r, r->created);
            r->R[r->created].arrival_s = t;
            push_arrival(r, r->created);
        }
    } else if (c->mode == SIM_OFFLINE) {
        for (; r->created < r->nreq; r->created++) {
            draw_request(r, r->created);
            r->R[r->created].arrival_s = 0;
            push_arrival(r, r->created);
        }
    } else {
        for (; r->created < r->nreq; r->created++) {
            struct sim_request *q = &r->R[r->created];
            q->arrival_s = c->trace[r->created].arrival_s;
            q->prompt = c->trace[r->created].prompt;
            q->output = c->trace[r->created].output;
            q->group = -1;
            push_arrival(r, r->created);
        }
    }
}

/* Phase 4: the event loop. The earliest of the next arrival and the busy instance with the
 * earliest clock goes next; an arrival at the same instant as an iteration's start joins it. */
static int event_loop(struct runner *r, struct llmroof_err *err)
{
    while (r->done < r->nreq) {
        int best = -1;
        for (int i = 0; i < r->ne; i++) {
            const struct engine *e = &r->E[i];
            if ((e->nrun || e->waiting.n) && (best < 0 || e->now < r->E[best].now))
                best = i;
        }
        if (r->arrivals.n && (best < 0 || r->arrivals.v[0].t <= r->E[best].now)) {
            on_arrival(r);
            continue;
        }
        if (best < 0)
            break;
        int rc = engine_step(r, best, err);
        if (rc)
            return rc;
    }
    return LLMROOF_OK;
}

/* Offered against sustained rate over the second half of the arrival window, where a stable
 * server has settled: a server that keeps up completes about what arrives, and the number of
 * requests in it stays level; an overloaded one falls behind and its queue grows. */
static void overload_metrics(struct runner *r, const struct tevent *ev, size_t nev)
{
    struct sim_result *out = r->out;
    double a0 = INFINITY, a1 = -INFINITY;
    for (long i = 0; i < r->nreq; i++) {
        a0 = fmin(a0, r->R[i].arrival_s);
        a1 = fmax(a1, r->R[i].arrival_s);
    }
    double mid = (a0 + a1) / 2, win = a1 - mid;
    if (!(win > 0))
        return;
    long arr = 0, fin = 0, in_mid = 0, in_end = 0;
    for (size_t i = 0; i < nev; i++) {
        if (ev[i].t <= mid)
            in_mid += ev[i].delta;
        if (ev[i].t <= a1)
            in_end += ev[i].delta;
        if (ev[i].t > mid && ev[i].t <= a1) {
            if (ev[i].delta > 0)
                arr++;
            else
                fin++;
        }
    }
    out->offered_rate_qps = (double)arr / win;
    out->sustained_rate_qps = (double)fin / win;
    out->queue_growth_per_s = (double)(in_end - in_mid) / win;
    out->overloaded = out->sustained_rate_qps < 0.9 * out->offered_rate_qps && out->queue_growth_per_s > 0;
}

/* Phase 5: per-request statistics, per-instance figures, overload and SLO metrics. */
static int collect_metrics(struct runner *r, struct llmroof_err *err)
{
    const struct sim_config *c = r->c;
    struct sim_result *out = r->out;
    long nreq = r->nreq;
    out->requests = nreq;
    out->block_size = r->E[0].bs;
    out->seed = c->seed;
    out->ninst = r->ne;
    out->inst = calloc((size_t)r->ne, sizeof *out->inst);
    double *a = malloc(sizeof(double) * (size_t)nreq), *b2 = malloc(sizeof(double) * (size_t)nreq),
           *c3 = malloc(sizeof(double) * (size_t)nreq), *d4 = malloc(sizeof(double) * (size_t)nreq),
           *e5 = malloc(sizeof(double) * (size_t)nreq);
    struct tevent *ev = malloc(sizeof *ev * 2 * (size_t)nreq);
    if (!a || !b2 || !c3 || !d4 || !e5 || !ev || !out->inst) {
        free(a), free(b2), free(c3), free(d4), free(e5), free(ev);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    }
    double t0 = INFINITY, t1 = 0, tokens = 0, lens = 0, prompt_tok = 0, cached_tok = 0;
    long na = 0, nb = 0, nd = 0, within = 0;
    for (long i = 0; i < nreq; i++) {
        const struct sim_request *q = &r->R[i];
        if (q->arrival_s < t0)
            t0 = q->arrival_s;
        if (q->finish_s > t1)
            t1 = q->finish_s;
        ev[2 * i] = (struct tevent){ q->arrival_s, +1 };
        ev[2 * i + 1] = (struct tevent){ q->finish_s, -1 };
        if (q->rejected) {
            out->errors++;
            continue;
        }
        out->completed++;
        lens += (double)(q->prompt + q->output);
        tokens += (double)q->output;
        prompt_tok += (double)q->prompt;
        cached_tok += (double)q->cached_tokens;
        double ttft = q->first_token_s - q->arrival_s;
        a[na] = ttft;
        c3[na++] = q->finish_s - q->arrival_s;
        double tpot = q->output >= 2 ? (q->finish_s - q->first_token_s) / (double)(q->output - 1) : 0;
        if (q->output >= 2)
            b2[nb++] = tpot;
        if ((!(c->ttft_slo_s > 0) || ttft <= c->ttft_slo_s) && (!(c->tpot_slo_s > 0) || tpot <= c->tpot_slo_s))
            within++;
        if (q->kv_ready_s >= 0) {
            d4[nd] = q->kv_ready_s - q->first_token_s;
            e5[nd++] = r->S[i].decode_sched_s >= 0 ? r->S[i].decode_sched_s - q->kv_ready_s : 0;
        }
    }
    out->duration_s = t1 > t0 ? t1 - t0 : 0;
    out->ttft = stats_of(a, na);
    out->tpot = stats_of(b2, nb);
    out->e2e = stats_of(c3, na);
    out->kv_transfer = stats_of(d4, nd);
    out->decode_queue = stats_of(e5, nd);
    out->error_rate = (double)out->errors / (double)nreq;
    out->output_tok_s = out->duration_s > 0 ? tokens / out->duration_s : 0;
    out->request_per_s = out->duration_s > 0 ? (double)out->completed / out->duration_s : 0;
    out->prefix_hit_rate = prompt_tok > 0 ? cached_tok / prompt_tok : 0;
    out->spec_tokens_per_step = r->spec_steps > 0 ? r->spec_emitted / r->spec_steps : 1.0;

    /* the instances, and the whole run as their sums and time-weighted means */
    double wb = 0, wk = 0, cap_tokens = 0;
    for (int i = 0; i < r->ne; i++) {
        struct engine *e = &r->E[i];
        struct sim_instance *s = &out->inst[i];
        *s = e->st;
        s->mean_batch = s->busy_s > 0 ? e->wbatch / s->busy_s : 0;
        s->kv_util_mean = s->busy_s > 0 ? e->wkv / s->busy_s : 0;
        s->utilization = out->duration_s > 0 ? s->busy_s / out->duration_s : 0;
        out->busy_s += s->busy_s;
        out->preemptions += s->preemptions;
        out->kv_blocks_total += s->kv_blocks_total;
        if (s->max_batch > out->max_batch)
            out->max_batch = s->max_batch;
        wb += e->wbatch;
        wk += e->wkv;
        cap_tokens += (double)e->total_blocks * (double)e->bs;
    }
    out->mean_batch = out->busy_s > 0 ? wb / out->busy_s : 0;
    out->kv_util_mean = out->busy_s > 0 ? wk / out->busy_s : 0;
    out->kv_capacity_tokens = cap_tokens;
    out->max_batch_at_mean_len = out->completed ? out->kv_capacity_tokens / (lens / (double)out->completed) : 0;

    /* Little's L: time-average of the number of requests in the system, integrated over the
     * timeline of arrival and finish events (independent of the per-request e2e sums) */
    qsort(ev, 2 * (size_t)nreq, sizeof *ev, cmp_tevent);
    double area = 0;
    long in_sys = 0;
    for (size_t i = 0; i < 2 * (size_t)nreq; i++) {
        if (i > 0)
            area += (double)in_sys * (ev[i].t - ev[i - 1].t);
        in_sys += ev[i].delta;
    }
    out->mean_in_system = out->duration_s > 0 ? area / out->duration_s : 0;
    out->open_loop = c->mode == SIM_RATE || c->mode == SIM_TRACE;
    if (out->open_loop)
        overload_metrics(r, ev, 2 * (size_t)nreq);

    /* SLOs: per-request limits for goodput (MLPerf counts the run valid when the percentile of
     * each metric meets its limit) */
    out->has_slo = c->ttft_slo_s > 0 || c->tpot_slo_s > 0;
    if (out->has_slo) {
        out->within_slo = within;
        out->within_slo_share = (double)within / (double)nreq;
        out->goodput_qps = out->duration_s > 0 ? (double)within / out->duration_s : 0;
        int p = c->slo_percentile ? c->slo_percentile : 99;
        out->slo_met = out->errors == 0 && (!(c->ttft_slo_s > 0) || stat_at(&out->ttft, p) <= c->ttft_slo_s) &&
                       (!(c->tpot_slo_s > 0) || stat_at(&out->tpot, p) <= c->tpot_slo_s);
    }
    free(a);
    free(b2);
    free(c3);
    free(d4);
    free(e5);
    free(ev);
    return LLMROOF_OK;
}

int sim_run(const struct sim_config *c, struct sim_result *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    long nreq = 0;
    int rc = check_config(c, &nreq, err);
    if (rc)
        return rc;
    if (nreq < 1) /* check_config ensures it; said again for the analyzer */
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "no requests");
    struct runner r = { 0 };
    r.c = c;
    r.out = out;
    r.nreq = nreq;
    rng_seed(&r.rng, c->seed);
    rng_seed(&r.spec_rng, c->seed ^ 0x5bec0de5ull);
    r.alpha_pow[0] = 1;
    for (int m = 1; m <= c->spec.k && m < 65; m++)
        r.alpha_pow[m] = r.alpha_pow[m - 1] * c->spec.alpha;
    r.R = calloc((size_t)nreq, sizeof *r.R);
    r.S = calloc((size_t)nreq, sizeof *r.S);
    r.arrivals = (struct heap){ calloc((size_t)nreq, sizeof(struct event)), 0 };
    if (!r.R || !r.S || !r.arrivals.v) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
        goto done;
    }
    if ((rc = build_engines(&r, err)))
        goto done;
    create_arrivals(&r);
    if ((rc = event_loop(&r, err)) || (rc = collect_metrics(&r, err)))
        goto done;
    out->reqs = r.R;
    r.R = NULL;
done:
    free(r.R);
    free(r.S);
    free(r.arrivals.v);
    engines_free(&r);
    if (rc) {
        free(out->iters);
        free(out->inst);
        out->iters = NULL;
        out->inst = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Run size                                                                 */
/* ------------------------------------------------------------------------ */

static void work_split(const struct sim_config *c, double *prompt, double *output)
{
    *prompt = *output = 0;
    if (c->mode == SIM_TRACE) {
        for (size_t i = 0; c->trace && i < c->ntrace; i++) {
            *prompt += (double)c->trace[i].prompt;
            *output += (double)c->trace[i].output;
        }
        return;
    }
    if (!c->workload)
        return;
    double p, o;
    workload_means(c->workload, &p, &o);
    if (c->prefix_tokens > 0 && workload_prefix_on_top(c->workload))
        p += (double)c->prefix_tokens;
    *prompt = p * (double)c->requests;
    *output = o * (double)c->requests;
}

double sim_work_tokens(const struct sim_config *c)
{
    double p, o;
    work_split(c, &p, &o);
    return p + o;
}

double sim_estimate_wall_s(const struct sim_config *c)
{
    double p, o;
    work_split(c, &p, &o);
    double batch = (double)c->max_seqs;
    if (c->mode == SIM_CLOSED && (double)c->concurrency < batch)
        batch = (double)c->concurrency;
    double iters = fmax(o / fmax(batch, 1.0), p / fmax((double)c->max_batched_tokens, 1.0));
    return iters * SIM_ITER_COST_S;
}
