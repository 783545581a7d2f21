/* sim.c - continuous-batching serving simulator (see llmroof/sim.h).
 *
 * Iteration-level scheduling as vLLM does it: every iteration first serves the running
 * sequences in admission order (a prefill chunk, or one decode token each) within the token
 * budget, preempting the most recently admitted ones (recomputation) when KV blocks run out;
 * then admits waiting requests first-come-first-served while blocks, budget and the sequence
 * limit allow. The iteration's duration is the roofline cost of everything it holds
 * (sim_step_time), and the clock jumps from iteration to iteration or to the next arrival. */
#include "llmroof/sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llmroof/rng.h"

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
    r->reqs = NULL;
    r->iters = NULL;
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

/* Per-request scheduler state. */
struct rstate {
    long computed; /* tokens whose K/V are in the cache */
    long target;   /* tokens to prefill: the prompt, or prompt + generated after a preemption */
    long generated;/* output tokens emitted */
    long blocks;   /* KV blocks held */
    long chunk;    /* tokens scheduled in the current iteration */
    long user;     /* closed loop: the user who sent it */
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentiles by linear interpolation between order statistics (numpy's default). */
static struct sim_stats stats_of(double *v, long n)
{
    struct sim_stats s = { 0 };
    s.n = n;
    if (n == 0)
        return s;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
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

/* The scheduler's view of the run. */
struct sstate {
    const struct sim_config *c;
    struct sim_request *R;   /* requests */
    struct rstate *S;        /* their scheduler state */
    struct deque waiting;    /* arrived, not running (preempted ones at the front) */
    long *run;               /* running, in admission order */
    long nrun;
    long free_blocks;        /* KV blocks not held by any sequence */
    long bs;                 /* tokens per block */
    struct sim_result *out;  /* for the preemption count */
};

/* What one iteration holds. */
struct iter {
    struct llmroof_batch b;  /* tokens, sequences, attention pairs, keys read */
    long budget;             /* tokens still allowed */
    int nsched, prefill_seqs, decode_seqs;
    long prefill_tokens;
};

static long blocks_for(long tokens, long bs)
{
    return (tokens + bs - 1) / bs;
}

/* Preempts the most recently admitted running sequence: its blocks are freed and it goes
 * back to the front of the queue to recompute prompt + generated tokens (vLLM's RECOMPUTE). */
static long preempt_last(struct sstate *st)
{
    long v = st->run[--st->nrun];
    struct rstate *vs = &st->S[v];
    st->free_blocks += vs->blocks;
    vs->blocks = 0;
    vs->computed = 0;
    vs->chunk = 0;
    vs->target = st->R[v].prompt + vs->generated;
    st->R[v].preemptions++;
    st->out->preemptions++;
    dq_push_front(&st->waiting, v);
    return v;
}

/* Gives every running sequence its next work within the budget: a prefill chunk (or the whole
 * rest of the prompt without chunking) or one decode token, preempting from the back when KV
 * blocks run out. */
static void schedule_running(struct sstate *st, struct iter *it)
{
    const struct sim_config *c = st->c;
    for (long i = 0; i < st->nrun; i++) {
        long id = st->run[i];
        struct rstate *rs = &st->S[id];
        if (it->budget <= 0)
            break;
        bool prefill = rs->computed < rs->target;
        long chunk = 1;
        if (prefill) {
            long rem = rs->target - rs->computed;
            chunk = c->chunked_prefill && rem > it->budget ? it->budget : rem;
        }
        long need = blocks_for(rs->computed + chunk, st->bs) - rs->blocks;
        bool self = false;
        while (need > st->free_blocks && !self)
            self = preempt_last(st) == id;
        if (self)
            break; /* it was the last one running */
        st->free_blocks -= need;
        rs->blocks += need;
        rs->chunk = chunk;
        batch_add(&it->b, (double)chunk, (double)rs->computed);
        it->budget -= chunk;
        it->nsched++;
        if (prefill) {
            it->prefill_seqs++;
            it->prefill_tokens += chunk;
        } else {
            it->decode_seqs++;
        }
    }
}

/* Admits waiting requests first come, first served while the sequence limit, the budget and
 * free blocks allow. Without chunking a prompt is admitted whole; the first of an iteration
 * may exceed the budget on its own. */
static void admit_waiting(struct sstate *st, struct iter *it, double now)
{
    const struct sim_config *c = st->c;
    while (st->waiting.n && st->nrun < c->max_seqs && it->budget > 0) {
        long id = dq_front(&st->waiting);
        struct rstate *rs = &st->S[id];
        long rem = rs->target - rs->computed;
        long chunk = c->chunked_prefill && rem > it->budget ? it->budget : rem;
        if (!c->chunked_prefill && rem > it->budget && it->nsched > 0)
            break;
        long need = blocks_for(chunk, st->bs);
        if (need > st->free_blocks)
            break; /* the head waits for blocks; nobody overtakes it */
        dq_pop_front(&st->waiting);
        st->free_blocks -= need;
        rs->blocks = need;
        rs->chunk = chunk;
        st->run[st->nrun++] = id;
        if (st->R[id].first_sched_s < 0)
            st->R[id].first_sched_s = now;
        batch_add(&it->b, (double)chunk, 0.0);
        it->budget -= chunk;
        it->nsched++;
        it->prefill_seqs++;
        it->prefill_tokens += chunk;
    }
}

/* Closed loop: the user who just got an answer (or an error) at time `t` thinks, then sends
 * request `id` of the pool. */
static void user_next(const struct sim_config *c, struct llmroof_rng *rng, struct sim_request *R, struct rstate *S,
                      struct heap *arrivals, long id, long user, double t)
{
    double think = c->think_min_s + (c->think_max_s - c->think_min_s) * rng_uniform(rng);
    workload_sample(c->workload, rng, &R[id].prompt, &R[id].output);
    R[id].arrival_s = t + think;
    S[id].user = user;
    /* the request becomes schedulable after the engine's first-token overhead */
    heap_push(arrivals, (struct event){ R[id].arrival_s + c->setup.eff.first_token_s, id });
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */
/* ------------------------------------------------------------------------ */

int sim_run(const struct sim_config *c, struct sim_result *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    const struct llmroof_setup *s = &c->setup;
    int rc = estimate_check(s, err);
    if (rc)
        return rc;
    if (c->max_batched_tokens < 1 || c->max_seqs < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the token budget and the sequence limit must be at least 1");
    long nreq;
    switch (c->mode) {
    case SIM_CLOSED:
        if (c->concurrency < 1 || c->requests < 1 || c->think_min_s < 0 || c->think_max_s < c->think_min_s)
            return llmroof_err_set(err, LLMROOF_EINPUT, "closed loop needs concurrency >= 1, requests >= 1 and a think range lo <= hi");
        nreq = c->requests;
        break;
    case SIM_RATE:
        if (!(c->rate_qps > 0) || c->requests < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "open loop needs a positive rate and requests >= 1");
        nreq = c->requests;
        break;
    case SIM_TRACE:
        if (!c->trace || c->ntrace == 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "the trace holds no requests");
        nreq = (long)c->ntrace;
        break;
    default:
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "unknown simulation mode");
    }
    if (c->mode != SIM_TRACE && !c->workload)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "no workload given");

    /* KV pool from the memory model: the workspace follows the iteration budget */
    struct llmroof_mem_opts mo = c->mem;
    mo.max_batched_tokens = (double)c->max_batched_tokens;
    mo.max_seqs = (double)c->max_seqs;
    struct llmroof_memory mem;
    if ((rc = memory_eval(s->model, s->gpu, s->tp, &s->dt, 1, &mo, &mem, err)))
        return rc;
    const long bs = mo.block_size > 1 ? mo.block_size : 1;
    const long total_blocks = (long)floor(mem.kv_capacity_tokens / (double)bs);
    if (total_blocks < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s does not fit on %d x %s: no memory is left for the KV cache (see 'llmroof memory')",
                               s->model->id, s->tp, s->gpu->id);
    struct llmroof_shard sh;
    ops_shard(s->model, s->tp, &sh, NULL);

    struct sim_request *R = calloc((size_t)nreq, sizeof *R);
    struct rstate *S = calloc((size_t)nreq, sizeof *S);
    struct heap arrivals = { calloc((size_t)nreq, sizeof(struct event)), 0 };
    struct deque waiting = { calloc((size_t)nreq + 1, sizeof(long)), (size_t)nreq + 1, 0, 0 };
    long *run = calloc((size_t)nreq, sizeof *run);
    size_t iter_cap = 0;
    if (!R || !S || !arrivals.v || !waiting.v || !run) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
        goto fail;
    }

    struct llmroof_rng rng;
    rng_seed(&rng, c->seed);
    long created = 0;
    if (c->mode == SIM_CLOSED) {
        /* users start as they continue: after a think time, so that N users do not fire one
         * synchronized burst at t = 0 (load generators ramp users up the same way) */
        for (long u = 0; u < c->concurrency && created < nreq; u++)
            user_next(c, &rng, R, S, &arrivals, created++, u, 0.0);
    } else if (c->mode == SIM_RATE) {
        double t = 0;
        for (; created < nreq; created++) {
            t += rng_exponential(&rng, c->rate_qps);
            workload_sample(c->workload, &rng, &R[created].prompt, &R[created].output);
            R[created].arrival_s = t;
            heap_push(&arrivals, (struct event){ t + c->setup.eff.first_token_s, created });
        }
    } else {
        for (; created < nreq; created++) {
            R[created].arrival_s = c->trace[created].arrival_s;
            R[created].prompt = c->trace[created].prompt;
            R[created].output = c->trace[created].output;
            heap_push(&arrivals, (struct event){ R[created].arrival_s + c->setup.eff.first_token_s, created });
        }
    }

    struct sstate st = { c, R, S, { waiting.v, waiting.cap, 0, 0 }, run, 0, total_blocks, bs, out };
    long done = 0;
    double now = 0, weighted_batch = 0, weighted_kv = 0, busy = 0;

/* blocks needed to hold `tokens` tokens */

    while (done < nreq) {
        /* 1. arrivals up to now join the queue; impossible ones are rejected at once */
        while (arrivals.n && arrivals.v[0].t <= now) {
            struct event e = heap_pop(&arrivals);
            long id = e.id;
            R[id].first_sched_s = -1;
            R[id].first_token_s = -1;
            S[id].target = R[id].prompt;
            if (blocks_for(R[id].prompt + R[id].output - 1, bs) > total_blocks) {
                R[id].rejected = true;
                R[id].finish_s = R[id].arrival_s;
                done++;
                if (c->mode == SIM_CLOSED && created < nreq)
                    user_next(c, &rng, R, S, &arrivals, created++, S[id].user, R[id].arrival_s);
                continue;
            }
            dq_push_back(&st.waiting, id);
        }
        if (st.nrun == 0 && st.waiting.n == 0) {
            if (!arrivals.n)
                break;
            now = arrivals.v[0].t; /* idle: jump to the next arrival */
            continue;
        }

        /* 2. schedule one iteration */
        struct iter it = { { 0 }, c->max_batched_tokens, 0, 0, 0, 0 };
        for (long i = 0; i < st.nrun; i++)
            S[st.run[i]].chunk = 0;
        if (c->chunked_prefill) {
            /* Sarathi-Serve / vLLM's chunked scheduler: running sequences first (decodes and
             * prefill chunks within the budget), then new admissions with what is left */
            schedule_running(&st, &it);
            admit_waiting(&st, &it, now);
        } else {
            /* vLLM's scheduler without chunking: waiting prompts first, whole, in a prefill-only
             * iteration that stalls every running decode; decodes run when none is admitted */
            admit_waiting(&st, &it, now);
            if (it.nsched == 0)
                schedule_running(&st, &it);
        }
        if (it.nsched == 0) {
            /* cannot happen: a request that fits an empty cache was admitted above */
            rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "scheduler made no progress at t=%.6f s", now);
            goto fail;
        }

        /* 3. run it */
        double dt = sim_step_time(s, &sh, &it.b);
        if (c->record_iterations) {
            if ((size_t)out->iterations == iter_cap) {
                size_t cap = iter_cap ? iter_cap * 2 : 1024;
                struct sim_iter *ni = realloc(out->iters, cap * sizeof *ni);
                if (!ni) {
                    rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the iteration trace");
                    goto fail;
                }
                out->iters = ni;
                iter_cap = cap;
            }
            out->iters[out->iterations] = (struct sim_iter){ now, dt, it.prefill_seqs, it.decode_seqs, it.prefill_tokens,
                                                             (double)(total_blocks - st.free_blocks) / (double)total_blocks };
        }
        out->iterations++;
        weighted_batch += (double)it.nsched * dt;
        weighted_kv += (double)(total_blocks - st.free_blocks) / (double)total_blocks * dt;
        busy += dt;
        if (it.nsched > out->max_batch)
            out->max_batch = it.nsched;
        now += dt;

        /* 4. progress: emitted tokens, finished requests */
        long keep = 0;
        for (long i = 0; i < st.nrun; i++) {
            long id = st.run[i];
            struct rstate *rs = &S[id];
            if (rs->chunk > 0) {
                bool prefill = rs->computed < rs->target;
                rs->computed += rs->chunk;
                if (!prefill || rs->computed == rs->target) {
                    rs->generated++;
                    if (R[id].first_token_s < 0)
                        R[id].first_token_s = now;
                }
                rs->chunk = 0;
            }
            if (rs->generated >= R[id].output) {
                R[id].finish_s = now;
                st.free_blocks += rs->blocks;
                rs->blocks = 0;
                done++;
                if (c->mode == SIM_CLOSED && created < nreq)
                    user_next(c, &rng, R, S, &arrivals, created++, rs->user, now);
                continue;
            }
            st.run[keep++] = id;
        }
        st.nrun = keep;
    }

    /* metrics */
    out->requests = nreq;
    out->kv_blocks_total = total_blocks;
    out->block_size = bs;
    out->kv_capacity_tokens = (double)total_blocks * (double)bs;
    out->seed = c->seed;
    out->busy_s = busy;
    out->mean_batch = busy > 0 ? weighted_batch / busy : 0;
    out->kv_util_mean = busy > 0 ? weighted_kv / busy : 0;
    double t0 = INFINITY, t1 = 0, tokens = 0, lens = 0;
    double *a = malloc(sizeof(double) * (size_t)nreq), *b2 = malloc(sizeof(double) * (size_t)nreq),
           *c3 = malloc(sizeof(double) * (size_t)nreq);
    struct tevent *ev = malloc(sizeof *ev * 2 * (size_t)nreq);
    if (!a || !b2 || !c3 || !ev) {
        free(a), free(b2), free(c3), free(ev);
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto fail;
    }
    long na = 0, nb = 0;
    for (long i = 0; i < nreq; i++) {
        const struct sim_request *q = &R[i];
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
        a[na] = q->first_token_s - q->arrival_s;
        c3[na++] = q->finish_s - q->arrival_s;
        if (q->output >= 2)
            b2[nb++] = (q->finish_s - q->first_token_s) / (double)(q->output - 1);
    }
    out->duration_s = t1 > t0 ? t1 - t0 : 0;
    out->ttft = stats_of(a, na);
    out->tpot = stats_of(b2, nb);
    out->e2e = stats_of(c3, na);
    out->error_rate = (double)out->errors / (double)nreq;
    out->output_tok_s = out->duration_s > 0 ? tokens / out->duration_s : 0;
    out->request_per_s = out->duration_s > 0 ? (double)out->completed / out->duration_s : 0;
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
    free(a);
    free(b2);
    free(c3);
    free(ev);
    out->reqs = R;
    free(S);
    free(arrivals.v);
    free(waiting.v);
    free(run);
    return LLMROOF_OK;

fail:
    free(R);
    free(S);
    free(arrivals.v);
    free(waiting.v);
    free(run);
    free(out->iters);
    out->iters = NULL;
    return rc;
}
