/* sim_cluster.c - routing, arrivals and departures across a cluster of instances: the
 * router policies, request drawing, closed-loop users, and the KV hand-over of
 * disaggregated serving. Split from sim.c. */
#include "serve/sim_internal.h"

#include "model/arch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
void sim_draw_request(struct runner *r, long id)
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

/* A new request that does not arrive in index order (closed loop, unsorted trace) waits in the
 * arrival heap; `user` is who sent it (closed loop). */
void sim_push_arrival(struct runner *r, long id, long user)
{
    struct event ev = { r->R[id].arrival_s + r->E[0].setup.eff.first_token_s, id, { 0 } };
    ev.s.user = (int)user;
    heap_push(&r->arrivals, ev);
}

/* Closed loop: the user who just got an answer (or an error) at time `t` thinks, then sends
 * the next request of the pool. */
void sim_user_next(struct runner *r, long user, double t)
{
    const struct sim_config *c = r->c;
    if (c->mode != SIM_CLOSED || r->created >= r->nreq)
        return;
    long id = r->created++;
    double think = c->think_min_s + (c->think_max_s - c->think_min_s) * rng_uniform(&r->rng);
    sim_draw_request(r, id);
    r->R[id].arrival_s = t + think;
    sim_push_arrival(r, id, user);
}

static void wake(struct engine *e, double t)
{
    if (e->nrun == 0 && e->waiting.n == 0 && e->now < t)
        e->now = t;
}

/* The data-parallel attention replica of instance `e` that a request joins: SGLang's data-parallel
 * controller sends each request to one replica's scheduler on arrival, in turn (load_balance_method
 * "round_robin", python/sglang/srt/managers/data_parallel_controller.py), whatever that replica's
 * load; the request queues and runs there. Ranks that schedule alone (vLLM V1's DP core engines,
 * sim_config.dp_rank_scheduler) are chosen by load instead: the front end's DPLBAsyncMPClient
 * takes the rank with the least 4 x waiting + running requests, the first such from rank 0
 * (vllm/v1/engine/core_client.py get_core_engine_for_request; its counts arrive every 100 ms,
 * here they are exact). 0 without replicas. */
static int dispatch_replica(struct engine *e)
{
    if (!e->rb)
        return 0;
    if (!e->rscore)
        return (int)(e->next_replica++ % e->sh.attn_dp);
    long *score = e->rscore; /* allocated with the ranks' budgets (engine_init) */
    const int n = e->sh.attn_dp;
    memset(score, 0, (size_t)n * sizeof *score);
    for (size_t i = 0; i < e->waiting.n; i++)
        score[dq_at(&e->waiting, i)->replica] += 4;
    for (long i = 0; i < e->nrun; i++)
        score[e->run[i].replica] += 1;
    int best = 0;
    for (int k = 1; k < n; k++)
        if (score[k] < score[best])
            best = k;
    return best;
}

/* A request reaches the system, or its KV reaches a decode instance (ev: taken from the heap or,
 * for a new request arriving in index order, made by the event loop with a zero state). */
void sim_on_arrival(struct runner *r, const struct event *ev)
{
    long id = ev->id;
    struct sim_request *q = &r->R[id];
    struct rstate st = ev->s;
    struct rstate *rs = &st;
    rs->id = (int)id;
    if (rs->stage == 1) {
        struct engine *d = &r->E[q->instance];
        rs->replica = (short)dispatch_replica(d);
        wake(d, ev->t);
        dq_push_back(&d->waiting, rs);
        return;
    }
    q->first_sched_s = -1;
    q->first_token_s = -1;
    q->kv_ready_s = -1;
    rs->decode_sched_s = -1;
    /* max_model_len bounds a sequence as vLLM bounds it: a prompt longer than it
     * is refused (V0 scheduler prompt_limit, FINISHED_IGNORED), and generation stops when prompt
     * plus output reach it (v1 core/sched/utils.py check_stop, FINISHED_LENGTH_CAPPED) */
    long ctx = r->c->max_model_len;
    bool too_long = ctx > 0 && q->prompt > ctx;
    if (ctx > 0 && !too_long && q->prompt + q->output > ctx)
        q->output = ctx - q->prompt > 1 ? ctx - q->prompt : 1;
    rs->target = q->prompt;
    rs->output = q->output;
    rs->group = q->group;
    /* impossible requests are rejected at once, so that they cannot stall the queue */
    /* (a data-parallel attention replica holds a sequence whole: one replica's pool must hold it) */
    bool fits = blocks_for(q->prompt + q->output - 1, r->E[r->ne - 1].bs) <= r->E[r->ne - 1].replica_blocks &&
                blocks_for(q->prompt, r->E[0].bs) <= r->E[0].replica_blocks;
    if (!fits || too_long) {
        q->rejected = true;
        q->finish_s = q->arrival_s;
        q->instance = -1;
        r->done++;
        sim_user_next(r, rs->user, q->arrival_s);
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
    rs->replica = (short)dispatch_replica(e);
    wake(e, ev->t);
    dq_push_back(&e->waiting, rs);
}

/* A prefill instance has emitted request `id`'s first token at `now`: the KV moves to a decode
 * instance over the link, one transfer at a time per receiving instance. The shards move in
 * parallel over min(TP_prefill, TP_decode) GPU pairs. */
void sim_hand_over(struct runner *r, struct engine *p, struct rstate *rs, double now)
{
    const struct sim_config *c = r->c;
    long id = rs->id;
    struct sim_request *q = &r->R[id];
    sim_release(p, rs);
    p->load--;
    int di = route(r, 1, id);
    struct engine *d = &r->E[di];
    d->load++;
    d->st.requests++;
    int pairs = p->setup.tp < d->setup.tp ? p->setup.tp : d->setup.tp;
    /* local (sliding-window) layers send only their window (arch_kv_tokens_held) */
    double bytes = arch_kv_tokens_held(p->setup.model, (double)q->prompt) * r->kv_bytes_per_token;
    double start = now > d->link_free_s ? now : d->link_free_s;
    double dur = c->kv_link_latency_s + bytes / ((double)pairs * c->kv_link_Bps);
    d->link_free_s = start + dur;
    q->instance = di;
    q->kv_ready_s = start + dur;
    rs->stage = 1;
    rs->computed = q->prompt; /* the whole prompt's K/V arrives */
    rs->chunk = 0;
    heap_push(&r->arrivals, (struct event){ q->kv_ready_s, id, *rs });
}
