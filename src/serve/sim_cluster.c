/* sim_cluster.c - routing, arrivals and departures across a cluster of instances: the
 * router policies, request drawing, closed-loop users, and the KV hand-over of
 * disaggregated serving. Split from sim.c. */
#include "serve/sim_internal.h"

#include "model/arch.h"
#include "model/comm.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Routing, arrivals and departures                                         */
/* ------------------------------------------------------------------------ */

static void start_transfer(struct runner *r, struct engine *d, const struct rstate *h, double now);

static int least_loaded(const struct runner *r, int lo, int n)
{
    int best = lo;
    for (int i = lo + 1; i < lo + n; i++)
        if (r->E[i].load < r->E[best].load)
            best = i;
    return best;
}

/* The requests routed to pipeline-lane instance k and not yet finished (all its lanes'). */
static long lanes_load(const struct runner *r, int k)
{
    long n = 0;
    for (int j = k * r->lanes; j < (k + 1) * r->lanes; j++)
        n += r->E[j].load;
    return n;
}

/* With pipeline lanes (sim_pipeline_lanes): the router's policy picks the instance, as without,
 * and the instance gives the request to its lane with the fewest unfinished requests per
 * sequence slot (vLLM V0's add_request: the virtual engine whose scheduler holds the fewest
 * unfinished sequence groups; a lane with twice the slots, 2 of 5 over 4 lanes, takes twice the
 * requests, as one scheduler over all the micro-batches would run them). */
static int route_lanes(struct runner *r, long id)
{
    const int n = r->ne / r->lanes;
    int k = 0;
    if (n > 1) {
        int least = 0;
        for (int i = 1; i < n; i++)
            if (lanes_load(r, i) < lanes_load(r, least))
                least = i;
        switch (r->c->router) {
        case SIM_ROUTE_ROUND_ROBIN: k = (int)(r->rr[0]++ % n); break;
        case SIM_ROUTE_LEAST_LOADED: k = least; break;
        case SIM_ROUTE_PREFIX: {
            const int pref = r->R[id].group < 0 ? least : (int)(r->R[id].group % n);
            k = lanes_load(r, pref) <= 2 * lanes_load(r, least) + 4 ? pref : least;
            break;
        }
        }
    }
    int best = k * r->lanes;
    for (int j = best + 1; j < (k + 1) * r->lanes; j++)
        if (r->E[j].load * r->E[best].max_run < r->E[best].load * r->E[j].max_run)
            best = j;
    return best;
}

/* Picks the instance of `pool` for request `id`. Prefix affinity sends a group to one instance
 * (group mod N) so its prefix stays cached there, unless that instance holds more than twice
 * the load of the least-loaded one plus 4 requests: then balance wins (cache-aware routers such
 * as SGLang's fall back to load balancing the same way). */
static int route(struct runner *r, int pool, long id)
{
    int lo = pool == 0 ? 0 : r->npre, n = pool == 0 ? r->npre : r->ne - r->npre;
    if (r->lanes > 1)
        return route_lanes(r, id);
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
        long g = (long)(rng_uniform(&r->prefix_rng) * (double)c->prefix_groups);
        q->group = g < c->prefix_groups ? g : c->prefix_groups - 1;
        if (workload_prefix_on_top(c->workload))
            q->prompt += c->prefix_tokens;
    }
}

/* A new request that does not arrive in index order (closed loop, unsorted trace) waits in the
 * arrival heap; `user` is who sent it (closed loop). */
void sim_push_arrival(struct runner *r, long id, long user)
{
    struct event ev = { r->R[id].arrival_s + sim_arrival_delay_s(r, id), id, { 0 } };
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

/* A request that ends at its arrival, an error: one no instance can hold (its length), or, busy,
 * one an instance at its concurrency limit refuses (TGI's 429). Its user, if any, moves on. */
static void refuse(struct runner *r, struct sim_request *q, const struct rstate *rs, bool busy)
{
    q->rejected = true;
    q->refused_busy = busy;
    q->finish_s = q->arrival_s;
    q->instance = -1;
    r->done++;
    sim_user_next(r, rs->user, q->arrival_s);
}

/* Whether a request takes its blocks at its decode instance on arrival, before its prefill
 * (sim_config.pd_decode_prealloc: SGLang), rather than when its prefill ends. Not where requests
 * end at their first token (the planner's prefill pool alone): they never reach a decode instance. */
static bool prealloc_on(const struct sim_config *c)
{
    return c->disaggregated && c->pd_decode_prealloc && !c->first_token_only;
}

/* The data-parallel attention replica of instance `e` that a request joins: SGLang's data-parallel
 * controller sends each request to one replica's scheduler on arrival, in turn (load_balance_method
 * "round_robin", python/sglang/srt/managers/data_parallel_controller.py), whatever that replica's
 * load; the request queues and runs there. Ranks that schedule alone (vLLM V1's DP core engines,
 * sim_config.dp_rank_scheduler) are chosen by load instead: the front end's DPLBAsyncMPClient
 * takes the rank with the least 4 x waiting + running requests, the first such from rank 0
 * (vllm/v1/engine/core_client.py get_core_engine_for_request; its counts arrive every 100 ms,
 * here they are exact). 0 without replicas. */
void sim_wait_count(struct engine *e, int rep, long delta)
{
    if (e->rwaitc)
        e->rwaitc[rep] += delta;
}

static int dispatch_replica(struct engine *e)
{
    if (!e->rb)
        return 0;
    if (!e->rscore)
        return (int)(e->next_replica++ % e->sh.attn_dp);
    long *score = e->rscore; /* allocated for a dp_rank_scheduler engine (engine_init) */
    const int n = e->sh.attn_dp;
    /* from the kept counts: a scan of every waiting and running request on each arrival had been
     * 42% of a DP-rank users plan (quadratic in its users; review of session 66) */
#ifndef NDEBUG
    { /* the counts are what a scan finds (checked wherever assertions are on: the test builds) */
        memset(score, 0, (size_t)n * sizeof *score);
        for (size_t i = 0; i < e->waiting.n; i++)
            score[dq_at(&e->waiting, i)->replica] += 4;
        for (long i = 0; i < e->nrun; i++)
            score[e->run[i].replica] += 1;
        long tw = 0, tu = 0;
        for (int k = 0; k < n; k++) {
            assert(score[k] == 4 * e->rwaitc[k] + e->rrunc[k]);
            tw += e->rwaitc[k];
            tu += e->rrunc[k];
        }
        assert(tw == (long)e->waiting.n && tu == e->nrun);
    }
#endif
    for (int k = 0; k < n; k++)
        score[k] = 4 * e->rwaitc[k] + e->rrunc[k];
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
        /* the K/V has left the prefill instance: its blocks are free there (a stalled prefill
         * instance may admit again) */
        struct engine *p = &r->E[q->prefill_instance];
        p->held_out -= rs->blocks;
        p->load--; /* and it leaves the prefill instance's load (sim_hand_over) */
        sim_release(p, rs);
        sim_unstall(p, ev->t);
        /* and is in the blocks the decode instance set aside when the transfer started */
        struct engine *d = &r->E[q->instance];
        rs->blocks = r->dres[id].blocks;
        d->held_in -= rs->blocks;
        rs->replica = r->dres[id].replica;
        sim_wait_count(d, rs->replica, 1);
        rs->computed = q->prompt;
        rs->chunk = 0;
        r->dres[id].blocks = 0;
        wake(d, ev->t);
        sim_unstall(d, ev->t);
        dq_push_back(&d->waiting, rs);
        return;
    }
    if (rs->stage == 3) {
        /* its decode instance holds its blocks now (sim_start_transfers): the prefill instance
         * may run it (SGLang's prefill bootstrap queue hands it to the waiting queue once the
         * decode side has sent its KV indices, KVPoll.WaitingForInput) */
        struct engine *p = &r->E[q->prefill_instance];
        rs->stage = 0;
        wake(p, ev->t);
        sim_unstall(p, ev->t);
        sim_wait_count(p, rs->replica, 1);
        dq_push_back(&p->waiting, rs);
        return;
    }
    q->first_sched_s = -1;
    q->first_token_s = -1;
    q->kv_ready_s = -1;
    q->prefill_done_s = -1;
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
    /* (with its recurrent state's blocks, which every sequence of a hybrid model takes) */
    const struct engine *last = &r->E[r->ne - 1], *first = &r->E[0];
    /* (a windowed model's prompt holds its last chunk's look-back in every local layer while it runs) */
    const long pchunk = r->c->chunked_prefill && first->budget < q->prompt ? first->budget : q->prompt;
    bool fits = seq_blocks(last, q->prompt + q->output - 1) + last->state_blocks <= last->replica_blocks &&
                seq_blocks_step(first, q->prompt, pchunk) + first->state_blocks <= first->replica_blocks;
    /* (SGLang's decode server takes a prompt only with its own reserve beside it, however empty) */
    if (fits && prealloc_on(r->c) && r->c->pd_decode_reserve_tokens > 0) /* (what sim_start_transfers takes) */
        fits = seq_blocks(last, r->c->admit_no_evict ? q->prompt + q->output - 1 : q->prompt + 1) + last->state_blocks +
                   blocks_for(r->c->pd_decode_reserve_tokens, last->bs) <=
               last->replica_blocks;
    /* TensorRT-LLM without chunked context takes no prompt above one rank's max_num_tokens: its
     * request fails on dequeue with "Prompt length exceeds maximum input length" (executorImpl.cpp
     * fetchNewRequests, LlmRequest::validate), where another engine would run it alone */
    if (r->c->prompt_within_budget && !r->c->chunked_prefill && q->prompt > first->rank_budget)
        too_long = true;
    if (!fits || too_long) {
        refuse(r, q, rs, false);
        return;
    }
    int i = route(r, 0, id);
    struct engine *e = &r->E[i];
    /* TGI's router takes a permit per request (limit_concurrent_requests.try_acquire_owned,
     * router/src/infer/mod.rs) and answers 429 "Model is overloaded" when --max-concurrent-requests
     * (128) are in flight, queued or running: refused at once, not queued (an instance's pipeline
     * lanes hold them together) */
    if (r->c->max_concurrent > 0 && (r->lanes > 1 ? lanes_load(r, i / r->lanes) : e->load) >= r->c->max_concurrent) {
        refuse(r, q, rs, true);
        return;
    }
    if (r->c->disaggregated)
        q->prefill_instance = i;
    else
        q->instance = i;
    e->load++;
    e->st.requests++;
    {
        const long held = r->lanes > 1 ? lanes_load(r, i / r->lanes) : e->load;
        if (held > e->st.max_load)
            e->st.max_load = held;
    }
    rs->replica = (short)dispatch_replica(e);
    if (prealloc_on(r->c)) {
        /* SGLang's router sends the request to a prefill and a decode server together (its PD
         * mode picks the pair on arrival); the decode server's DecodePreallocQueue
         * (disaggregation/decode.py pop_preallocated) takes the prompt's KV, first come first
         * served, stopping at the first request that does not fit, and the prefill server's
         * PrefillBootstrapQueue (disaggregation/prefill.py pop_bootstrapped) lets a request into
         * its waiting queue only once that is done. So the request waits here, in its decode
         * instance's queue, and joins the prefill instance when its blocks are held (stage 3) */
        int di = route(r, 1, id);
        struct engine *d = &r->E[di];
        d->load++;
        d->st.requests++;
        q->instance = di;
        r->dres[id] = (struct dres){ 0, (short)dispatch_replica(d), 0 };
        dq_push_back(&d->handoff, rs);
        sim_start_transfers(r, d, ev->t);
        return;
    }
    wake(e, ev->t);
    sim_unstall(e, ev->t);
    sim_wait_count(e, rs->replica, 1);
    dq_push_back(&e->waiting, rs);
}

/* A prefill instance has finished request `id`'s prompt at `now`. The request is routed to a decode
 * instance and waits there for KV blocks (the handoff queue, first come first served): vLLM's proxy
 * sends the request to its decode instance only with the prefill's response, whose scheduler then
 * allocates the blocks and its NixlConnector reads the K/V into them (get_num_new_matched_tokens,
 * update_state_after_alloc); DistServe's decode instance pulls the K/V when it has room. Under
 * pre-allocation (SGLang) the decode instance and its blocks were taken on arrival, and the
 * transfer starts at once. The prefill instance keeps the blocks it holds until the K/V has left
 * (NixlConnector frees the prefill's blocks once the decode side has read them, SGLang's prefill
 * when the transfer completes). An engine whose client streams from the decode instance
 * (pd_decode_first_token: vLLM's and SGLang's proxies) delivers the first token at the end of the
 * decode instance's first step for the request (SGLang's decode server streams the prefill's token
 * then, with that step's own; vLLM's samples it again there, so it runs one step per output token:
 * sim_config.pd_decode_resample). */
void sim_hand_over(struct runner *r, struct engine *p, struct rstate *rs, double now)
{
    const struct sim_config *c = r->c;
    long id = rs->id;
    struct sim_request *q = &r->R[id];
    /* the request stays on the prefill instance's books (its load, which the least-loaded router
     * reads) until its K/V has left (sim_on_arrival, stage 1): the server holds it until then
     * (SGLang's prefill keeps it in its inflight queue; NixlConnector frees the blocks when the
     * decode side has read them). Counted off at the prefill's end, a router sent every new prompt to
     * the instance that had just finished one, whatever its link still had to send: Llama-3.1-8B at
     * 20 requests/s of 4,000-token prompts over 1 GB/s, 12 prefill instances (links at 0.87 of their
     * transfers), read p90 TPOT 301 ms and overloaded under least-loaded routing, 11 ms round-robin */
    p->held_out += rs->blocks;
    if (prealloc_on(c)) {
        /* its decode instance was chosen, and its blocks there taken, before the prefill: the
         * K/V goes to them now (SGLang's prefill sends to the KV indices the decode side sent) */
        q->prefill_done_s = now;
        if (c->pd_decode_first_token) {
            q->first_token_s = -1;
            rs->first_pending = 1;
        }
        start_transfer(r, &r->E[q->instance], rs, now);
        return;
    }
    int di = route(r, 1, id);
    struct engine *d = &r->E[di];
    d->load++;
    d->st.requests++;
    q->instance = di;
    q->prefill_done_s = now;
    if (c->pd_decode_first_token) {
        q->first_token_s = -1;
        rs->first_pending = 1;
    }
    r->dres[id] = (struct dres){ 0, (short)dispatch_replica(d), 0 };
    dq_push_back(&d->handoff, rs); /* the caller starts what its pool has room for */
}

/* The earliest time at or after `now` at which KV link l (a decode replica's incoming one, or a
 * prefill replica's outgoing one) is free for `dur` seconds. Instances run their steps whole, in the
 * order the steps start, so a prefill instance whose step ends earlier may hand over after one whose
 * longer step ends later: its transfer, due first, takes the link's idle gap before the other's
 * rather than queueing behind a transfer that has not started yet (one link, one transfer at a
 * time). */
static double link_earliest(const struct kv_link *l, double now, double dur)
{
    double t = now;
    for (int i = 0; i < l->n; i++) {
        if (l->span[i][1] <= t)
            continue; /* ended before t */
        if (l->span[i][0] >= t + dur)
            break; /* the gap before span i holds it */
        t = l->span[i][1];
    }
    return t;
}

/* Takes [t, t + dur) on link l, a gap link_earliest found. When all SIM_LINK_SPANS are held, two
 * neighbours merge (below). */
static void link_take(struct kv_link *l, double t, double dur)
{
    int i = 0;
    while (i < l->n && l->span[i][1] <= t)
        i++; /* [t, t + dur) goes at i: after every span ending by t, before span i */
    if (l->n == SIM_LINK_SPANS) {
        /* full: the two neighbours with the shortest gap between them become one span, gap
         * included, so a transfer queued far ahead is never forgotten (the link is never taken
         * twice) and only that idle gap is lost */
        int j = i == 1 ? 1 : 0; /* the first gap, or the second where the new span takes the first */
        for (int k = j + 1; k + 1 < l->n; k++)
            if (k != i - 1 && /* not the gap the new span takes */
                l->span[k + 1][0] - l->span[k][1] < l->span[j + 1][0] - l->span[j][1])
                j = k;
        l->span[j][1] = l->span[j + 1][1];
        memmove(l->span[j + 1], l->span[j + 2], sizeof l->span[0] * (size_t)(l->n - j - 2));
        l->n--;
        if (i > j)
            i--;
    }
    memmove(l->span[i + 1], l->span[i], sizeof l->span[0] * (size_t)(l->n - i));
    l->span[i][0] = t;
    l->span[i][1] = t + dur;
    l->n++;
}

/* The earliest time at or after `now` that both ends of a hand-over are free for `dur` seconds, taken
 * on both: one of the sending replica's nout lanes out[] and one of the receiving replica's nin
 * lanes in[] (engine.kv_lanes). A prefill replica's GPUs send one transfer at a time as a decode
 * replica's receive one (before session 65 only the receiving side queued, so one prefill GPU
 * feeding 8 decode instances sent 3.2 GB/s through a 2 GB/s link: a review), but a side with k
 * times the other's GPUs a sequence moves a k-th of each transfer on each of its NICs, so it carries
 * k at once: a TP-8 prefill instance feeding TP-1 replicas has 8 lanes (a review of this change
 * found it serialised on one). Each pass moves t to a later end of a span, so the search ends. */
static double link_reserve_pair(struct kv_link *out, int nout, struct kv_link *in, int nin, double now, double dur)
{
    double best = INFINITY;
    int bo = 0, bi = 0;
    for (int o = 0; o < nout; o++)
        for (int i = 0; i < nin; i++) {
            double t = now;
            for (;;) {
                const double a = link_earliest(&out[o], t, dur), b = link_earliest(&in[i], a, dur);
                if (b == a) {
                    t = a;
                    break;
                }
                t = b;
            }
            if (t < best) {
                best = t;
                bo = o;
                bi = i;
            }
        }
    link_take(&out[bo], best, dur);
    link_take(&in[bi], best, dur);
    return best;
}

int sim_kv_lanes(const struct llmroof_setup *ps, const struct llmroof_setup *ds, int pool)
{
    const long gp = (long)ps->tp * (ps->layout.pp > 1 ? ps->layout.pp : 1);
    const long gd = (long)ds->tp * (ds->layout.pp > 1 ? ds->layout.pp : 1);
    const long k = pool == 0 ? gp / (gd > 0 ? gd : 1) : gd / (gp > 0 ? gp : 1);
    return k > 1 ? (int)(k < 64 ? k : 64) : 1;
}

bool sim_kv_link_in_domain(enum sim_kv_link_kind kind, const struct llmroof_setup *p, long gpus_total)
{
    const struct llmroof_gpu *g = p->gpu;
    const long dom = g->domain_gpus > 0 ? g->domain_gpus : g->gpus_per_node;
    return (kind == SIM_KV_NODE || kind == SIM_KV_AUTO) && gpus_total <= dom;
}

double sim_kv_link_Bps(enum sim_kv_link_kind kind, double line_Bps, const struct llmroof_setup *p, long gpus_total)
{
    const struct llmroof_gpu *g = p->gpu;
    const double eff = p->eff.comm > 0 ? p->eff.comm : g->comm_eff;
    const double pcie_eff = eff < COMM_PCIE_EFF ? eff : COMM_PCIE_EFF;
    switch (kind) {
    case SIM_KV_RATE:
        return line_Bps;
    case SIM_KV_IB:
        return 50e9 * eff;
    case SIM_KV_PCIE:
        return 32e9 * pcie_eff;
    case SIM_KV_NODE:
    case SIM_KV_AUTO:
        if (sim_kv_link_in_domain(kind, p, gpus_total))
            return g->link_bw_Bps * (g->link == LLMROOF_LINK_PCIE ? pcie_eff : eff);
        break; /* beyond one domain: the network */
    case SIM_KV_NET:
        break;
    }
    /* the GPU's own network (roofline.c's r.net: a PCIe-joined network at most COMM_PCIE_EFF) */
    return g->net_bw_Bps * (!strncmp(g->net_kind, "pcie", 4) ? pcie_eff : eff);
}

/* A sequence's K/V lies on its replica's TP ranks in every pipeline stage: d's receiving GPUs each
 * take per_gpu = held x d->kv_token_gpu_bytes + d->state_gpu_bytes, the K/V and any recurrent
 * state (memory's kv_bytes_per_token_per_gpu and state_bytes_per_seq_per_gpu, which divide
 * the layers over the stages and keep what TP replicates: an MLA latent, a KV head below TP), and
 * p's sending GPUs share what all of them take. Formerly the sides counted their TP ranks
 * alone, so a pipelined pool's stages were missed: Llama-3.1-70B's 2,000-token prompt (327,680 B a
 * token) from TP 4 x PP 2 to TP 8 moved 163.84 MB a GPU, 3.297 ms over 50 GB/s, where each of the 8
 * senders holds 81.92 MB, and the same prompt from TP 4 to TP 4 x PP 2 took 1.658 ms where each of
 * the 4 senders holds 163.84 MB. */
double sim_handover_gpu_bytes(const struct engine *p, const struct engine *d, double held, double drafted)
{
    /* (a model with recurrent layers hands its state over too: the decode side cannot resume
     * the sequence without it, whatever the prompt's length; and a drafter's cache of the prompt,
     * which the decode side's drafter reads: SGLang's prefill server registers the draft KV pool
     * with the target's for the transfer, "we should also transfer draft model kv cache"
     * (disaggregation/prefill.py PrefillBootstrapQueue._init_kv_manager), and vLLM's NixlConnector
     * moves the draft layers' KV cache group, so prefill and decode must load the same speculative
     * config (vllm-project/vllm#49230)) */
    const double per_gpu = held * d->kv_token_gpu_bytes + drafted * d->draft_kv_token_gpu_bytes + d->state_gpu_bytes;
    const double recv_gpus = (double)d->setup.tp * (double)(d->sh.pp > 1 ? d->sh.pp : 1);
    const double send_gpus = (double)p->setup.tp * (double)(p->sh.pp > 1 ? p->sh.pp : 1);
    return fmax(per_gpu, per_gpu * recv_gpus / send_gpus);
}

double sim_drafted_tokens(const struct runner *r, const struct engine *d, double prompt)
{
    if (!(d->draft_kv_token_gpu_bytes > 0))
        return 0.0;
    /* a draft model's windowed layers hold their window, as the target's (unless the pool holds
     * every layer's whole context: full_kv); a head's one layer attends to the whole prompt */
    if (r->c->spec.kind == SIM_SPEC_DRAFT && r->c->spec.draft && !d->full_kv)
        return arch_kv_tokens_held(r->c->spec.draft, prompt);
    return prompt;
}

/* Starts the transfer of request h's prompt K/V (h: its state at the prefill instance, whose
 * blocks go back when the K/V has left) to decode instance `d`, which holds its blocks. The K/V
 * moves one transfer at a time out of its prefill replica's link and into its decode replica's
 * (link_reserve_pair). Each receiving GPU gets its own
 * share, the bytes one token holds on it (an MLA latent or a KV head that TP replicates arrives
 * whole at every rank), and each sending GPU sends its receivers' shares: the slower side sets the
 * time. */
static void start_transfer(struct runner *r, struct engine *d, const struct rstate *h, double now)
{
    const struct sim_config *c = r->c;
    long id = h->id;
    struct sim_request *q = &r->R[id];
    struct engine *p = &r->E[q->prefill_instance];
    /* local (sliding-window) layers send only their window (arch_kv_tokens_held), unless the
     * engine's connector holds every layer's whole context (engine full_kv) */
    const double held = d->full_kv ? (double)q->prompt : arch_kv_tokens_held(d->setup.model, (double)q->prompt);
    const double dur =
        c->kv_link_latency_s + sim_handover_gpu_bytes(p, d, held, sim_drafted_tokens(r, d, (double)q->prompt)) / c->kv_link_Bps;
    /* from the link of the prefill replica that computed it to that of the decode replica that
     * holds its blocks: with data-parallel attention each replica's GPUs send and take their
     * transfers beside the other replicas' (a DGX H100's GPUs each have their own 400 Gb/s NIC) */
    const int sr = h->replica >= 0 && h->replica < (p->sh.attn_dp > 1 ? p->sh.attn_dp : 1) ? h->replica : 0;
    /* vLLM's proxy posts the request to the decode server only once the prefill has answered
     * (tests/v1/kv_connector/nixl_integration/toy_proxy_server.py), so the decode server's API path
     * (the request's HTTP hop, tokenising its prompt, hashing its blocks: the engine's
     * api_first_token_s and api_prompt_token_s, as at arrival) runs before it pulls the K/V (a
     * review: 34.9 ms for 8,000 tokens, missing). SGLang's router sends to both servers at once. */
    const double api = c->pd_decode_resample ? c->api_first_s + c->api_prompt_s * (double)q->prompt : 0.0;
    const double start = link_reserve_pair(&p->links[(size_t)sr * (size_t)p->kv_lanes], p->kv_lanes,
                                           &d->links[(size_t)r->dres[id].replica * (size_t)d->kv_lanes], d->kv_lanes,
                                           now + api, dur);
    q->kv_ready_s = start + dur;
    struct rstate s = *h;
    s.stage = 1;
    heap_push(&r->arrivals, (struct event){ q->kv_ready_s, id, s });
}

/* Takes decode instance `d`'s blocks for the requests of its handoff queue, in order, while its
 * pool has the blocks of the head's prompt and first token (after any request its own queue holds
 * first: a preempted sequence is readmitted before new K/V is taken). Without pre-allocation the
 * queue holds prefilled requests, whose transfers start as their blocks are taken; with it
 * (sim_config.pd_decode_prealloc) requests not yet prefilled, which then join their prefill
 * instance (stage 3; SGLang's decode server resumes its retracted requests before it
 * pre-allocates, Scheduler event loop: resume_retracted_reqs, then pop_preallocated). */
void sim_start_transfers(struct runner *r, struct engine *d, double now)
{
    const struct sim_config *c = r->c;
    /* a sequence it preempted, holding nothing, takes the blocks freed first */
    for (size_t pos = 0; pos < d->waiting.n; pos++)
        if (dq_at(&d->waiting, pos)->blocks == 0)
            return;
    const bool pre = prealloc_on(c);
    while (d->handoff.n) {
        const struct rstate *h = dq_at(&d->handoff, 0);
        long id = h->id;
        struct sim_request *q = &r->R[id];
        const int rep = r->dres[id].replica;
        /* the blocks its admission there will want: the prompt and the next token, or under
         * guaranteed-no-evict admission every token it will hold (sim_admit_waiting) */
        const long need = seq_blocks(d, c->admit_no_evict ? q->prompt + q->output - 1 : q->prompt + 1) +
                          d->state_blocks;
        /* SGLang's DecodePreallocQueue keeps num_reserved_decode_tokens (512) free for each request
         * the decode server already holds, running, receiving or waiting to run, and admits only
         * where the prompt's and its own reserve fit beside them (decode.py _allocatable_tokens:
         * available - 512 x held, at least a single request's need; pop_preallocated: required +
         * 512 <= allocatable). The held requests: those routed here less those still queued for
         * blocks, shared evenly by the attention replicas (the single-request floor, a request's
         * own room to finish, is not modelled) */
        long reserve = 0;
        if (pre && c->pd_decode_reserve_tokens > 0) {
            const long held = d->load - (long)d->handoff.n;
            const long reps = d->sh.attn_dp > 1 ? d->sh.attn_dp : 1;
            const long per = blocks_for(c->pd_decode_reserve_tokens, d->bs);
            reserve = per + per * ((held > 0 ? held : 0) + reps - 1) / reps;
        }
        if (need + reserve > kv_free(d, rep))
            return;
        kv_take(d, rep, need);
        d->held_in += need;
        r->dres[id].blocks = (int)need;
        if (pre) {
            /* the wait no other figure holds: TTFT's queueing counts it, kv_transfer comes after.
             * From when the request reached the decode engine (its API server's path after the
             * client sent it, sim_arrival_delay_s): a review had read SGLang's 6.9 ms API path as
             * a wait for decode blocks at 2% KV use */
            const double waited = now - (q->arrival_s + sim_arrival_delay_s(r, id));
            r->dres[id].prealloc_wait_s = waited > 0 ? waited : 0.0;
            struct rstate s = *h;
            s.stage = 3;
            heap_push(&r->arrivals, (struct event){ now, id, s });
        } else {
            start_transfer(r, d, h, now);
        }
        dq_pop_front(&d->handoff);
    }
}
