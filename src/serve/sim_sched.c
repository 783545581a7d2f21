/* sim_sched.c - one instance's scheduler: KV blocks, the prefix cache and preemption, which
 * sequences an iteration serves and admits, and what the iteration costs (sim_step_time).
 * Split from sim.c; the event loop that calls it is in sim.c. */
#include "serve/sim_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Preempted requests' cached blocks                                        */
/* ------------------------------------------------------------------------ */

/* An engine with automatic prefix caching keeps a preempted request's K/V cached after freeing it
 * (sim_config.preempt_keep). vLLM V1's scheduler frees the victim's blocks (_preempt_request ->
 * KVCacheManager.free, "in reverse order so that the tail blocks are evicted first") to the
 * free-block queue's tail with their hashes kept (block_pool.py free_blocks; the queue is
 * FreeKVCacheBlockQueue, whose front get_new_blocks takes and evicts), and the re-admission's
 * get_computed_blocks finds the full blocks still cached (max_cache_hit_length = num_tokens - 1:
 * the last token is computed again); vLLM issue #25780 shows those recomputations as prefix-cache
 * hits. SGLang's retract_decode (schedule_batch.py release_req) frees only the tokens past the
 * radix tree's prefix (the prompt cache_unfinished_req inserted at prefill) and unlocks that
 * prefix (dec_lock_ref), whose nodes stay evictable; the next round's match_prefix finds them.
 * Here: plain free blocks are taken first; then, as the cached prefixes are (evict_for), the
 * preempted requests' cached blocks are evicted, least recently preempted first and each one's
 * tail first, so that what stays of a request is always its leading blocks. A pool keeps counts:
 * per request its cached blocks (struct pc_req), per pool their sum and their order (struct
 * pc_pool), O(1) amortised per preemption, eviction and admission. Where the engine also keeps a
 * finished request's blocks in the same queue (vLLM) or tree (SGLang), they are free blocks here,
 * taken before any preempted request's: what a preempted request loses to allocations between
 * its preemption and its re-admission is the same wherever the pool had no plain free blocks
 * left, which is where preemption happens (docs/metrics.md). */

/* Room for one more entry at either end (grown by doubling; a failed growth sets r->oom). */
static bool pc_room(struct runner *r, struct pc_pool *p)
{
    if (p->n < p->cap)
        return true;
    const size_t cap = p->cap ? 2 * p->cap : 16;
    struct pc_ent *v = calloc(cap, sizeof *v); /* zeroed: every slot a valid (stale) entry */
    if (!v) {
        r->oom = true;
        return false;
    }
    for (size_t j = 0; p->cap > 0 && j < p->n; j++) /* n <= cap: an empty pool has nothing to move */
        v[j] = p->v[(p->head + j) % p->cap];
    free(p->v);
    p->v = v;
    p->cap = cap;
    p->head = 0;
    return true;
}

static inline void pc_pop_front(struct pc_pool *p)
{
    p->head = (p->head + 1) % p->cap;
    p->n--;
}

/* An entry whose request has moved on: re-admitted (its blocks its own again), evicted whole, or
 * preempted again since (another stamp). */
static inline bool pc_stale(const struct runner *r, struct pc_ent x)
{
    const struct pc_req *q = &r->pcr[x.id];
    return q->stamp != x.stamp || q->blocks == 0;
}

/* Evicts preempted requests' cached blocks on `rep` until `need` blocks are free there: the least
 * recently preempted request first, its tail first (its blocks stay a leading run). The request
 * `keep` (being admitted, its cache about to be hit) is set aside and put back where it stood. */
static void pc_evict(const struct runner *r, struct engine *e, int rep, long need, long keep)
{
    struct pc_pool *p = &e->pcq[rep];
    struct pc_ent kept = { -1, 0 };
    while (kv_free(e, rep) < need && p->n > 0) {
        const struct pc_ent x = p->v[p->head];
        if (pc_stale(r, x) || x.id == keep) {
            if (x.id == keep && !pc_stale(r, x))
                kept = x;
            pc_pop_front(p);
            continue;
        }
        struct pc_req *q = &r->pcr[x.id];
        const long short_by = need - kv_free(e, rep);
        const long take = q->blocks < short_by ? q->blocks : short_by;
        q->blocks -= (int)take;
        p->blocks -= take;
        kv_take(e, rep, -take);
        if (q->blocks == 0) {
            p->live--;
            pc_pop_front(p);
        }
    }
    if (kept.id >= 0) { /* it was at the front: the slot it left is free */
        p->head = (p->head + p->cap - 1) % p->cap;
        p->v[p->head] = kept;
        p->n++;
    }
}

/* Drops the stale entries once they outnumber the live ones four to one (a live request at the
 * front keeps the entries behind it: re-admitted requests' would pile up). O(entries), amortised
 * O(1) per entry pushed. */
static void pc_compact(const struct runner *r, struct pc_pool *p)
{
    if (p->n < 64 || p->n < 4 * (size_t)p->live || p->cap == 0)
        return;
    size_t k = 0;
    for (size_t j = 0; j < p->n; j++) {
        const struct pc_ent x = p->v[(p->head + j) % p->cap];
        if (!pc_stale(r, x))
            p->v[(p->head + k++) % p->cap] = x;
    }
    p->n = k;
}

/* A request leaving its running slot (preempt_at) with `computed` tokens' K/V, `shared` blocks of
 * its prefix group and `own` blocks of its own, all freed: its recompute bookkeeping, and where
 * the engine keeps a preempted request's blocks, its full blocks (vLLM: of every computed token;
 * SGLang: of its prompt, the tokens its last prefill round inserted into the tree, rs->target)
 * taken back as cached. Its prefix group's blocks stay the group's. */
static void pc_keep(struct runner *r, struct engine *e, const struct rstate *rs, long computed, long shared, long own)
{
    if (!r->pcr && !(r->pcr = calloc((size_t)r->nreq, sizeof *r->pcr))) {
        r->oom = true;
        return;
    }
    struct pc_req *q = &r->pcr[rs->id];
    /* a recompute cut short: its re-admission counted up to hwm (pc_admitted), it reached computed */
    if (computed < q->hwm)
        e->st.recomputed_tokens -= q->hwm - computed;
    else
        q->hwm = (int)computed;
    if (!e->pcq)
        return;
    const long upto = r->c->preempt_keep == SIM_KEEP_PROMPT && rs->target < computed ? rs->target : computed;
    long keep = upto / e->bs - shared; /* full blocks only: a partial block has no hash */
    if (keep > own)
        keep = own;
    struct pc_pool *p = &e->pcq[rs->replica];
    if (keep <= 0 || !pc_room(r, p))
        return;
    q->blocks = (int)keep;
    q->base = (int)shared;
    q->stamp = ++r->pc_clock;
    p->v[(p->head + p->n++) % p->cap] = (struct pc_ent){ rs->id, q->stamp };
    p->blocks += keep;
    p->live++;
    kv_take(e, rs->replica, keep);
    pc_compact(r, p);
}

/* The blocks of waiting request rs's own cache that its admission can hit after `group` blocks of
 * its prefix group's (0 without a group hit): a run of its cached blocks that starts there and
 * leaves at least its last token to compute (vLLM's max_cache_hit_length; SGLang's match likewise
 * keeps one token to extend). Blocks that cannot be hit (before `group`, past the last token, or
 * after a group prefix that is gone: the hash chain breaks there) are freed now. */
static long pc_usable(const struct runner *r, struct engine *e, const struct rstate *rs, long group)
{
    if (!r->pcr || r->pcr[rs->id].blocks == 0)
        return 0;
    struct pc_req *q = &r->pcr[rs->id];
    struct pc_pool *p = &e->pcq[rs->replica];
    const long lo = q->base, hi = q->base + q->blocks, last = (rs->target - 1) / e->bs;
    const long top = hi < last ? hi : last;
    const long use = lo <= group && top > group ? top - group : 0;
    const long drop = q->blocks - use;
    if (drop > 0) {
        q->blocks = (int)use;
        q->base = (int)group;
        p->blocks -= drop;
        kv_take(e, rs->replica, -drop);
        if (use == 0)
            p->live--;
    }
    return use;
}

/* Waiting request rs was admitted starting at `start` with `mine` blocks of its own cache hit:
 * they are its own blocks again, and what it computes again is counted (what it had computed
 * before, less what the caches served). */
static void pc_admitted(const struct runner *r, struct engine *e, struct rstate *rs, long start, long mine)
{
    if (!r->pcr)
        return;
    struct pc_req *q = &r->pcr[rs->id];
    if (q->hwm > start) /* only a preempted request's (anything else starts at or past it) */
        e->st.recomputed_tokens += q->hwm - start;
    if (mine <= 0)
        return;
    struct pc_pool *p = &e->pcq[rs->replica];
    q->blocks = 0;
    p->blocks -= mine;
    p->live--;
    rs->blocks += (int)mine;
    e->st.preempt_hit_tokens += mine * e->bs;
}

/* ------------------------------------------------------------------------ */
/* Blocks: prefix cache and preemption                                      */
/* ------------------------------------------------------------------------ */

/* Frees cached blocks until `need` blocks are free on `replica`: first preempted requests' cached
 * blocks (pc_evict; not request `keep_req`'s), then cached prefixes no running sequence uses (except
 * group `keep`): cached blocks are reclaimable, as vLLM's evictor treats unreferenced cached blocks.
 * The preempted requests' go first: each serves one request, a prefix every request of its group
 * (vLLM's queue would order the two by when each was freed). With data-parallel attention only the
 * replica's own cached blocks free its blocks. */
static void evict_for(const struct runner *r, struct engine *e, int replica, long need, long keep, long keep_req)
{
    if (e->pcq)
        pc_evict(r, e, replica, need, keep_req);
    if (!e->pg)
        return;
    for (long g = 0; g < r->c->prefix_groups && kv_free(e, replica) < need; g++) {
        struct pgroup *p = pg_at(e, replica, g);
        if (p->resident && p->refs == 0 && g != keep) {
            kv_take(e, replica, -p->blocks);
            p->blocks = 0;
            p->resident = false;
        }
    }
}

/* Releases what a running sequence holds on `e`: its own blocks and its reference to a prefix. */
void sim_release(struct engine *e, struct rstate *rs)
{
    kv_take(e, rs->replica, -rs->blocks);
    rs->blocks = 0;
    if (rs->shared && e->pg) {
        pg_at(e, rs->replica, rs->group)->refs--;
        rs->shared = 0;
    }
}

static long preempt_at(struct runner *r, struct engine *e, long at, bool to_front);

/* Preempts the most recently admitted running sequence on `replica` (any sequence without
 * data-parallel attention): its blocks are freed and it goes back to the front of the queue to
 * recompute prompt + generated tokens (vLLM's RECOMPUTE), less what its re-admission finds still
 * cached where the engine caches (pc_keep). Another replica's sequence would free nothing the
 * replica can use: SGLang retracts within each replica's own scheduler, and a retracted request
 * stays on its replica (its cached blocks in its replica's pool). The running order of the others
 * is kept. */
long sim_preempt_last(struct runner *r, struct engine *e, int replica)
{
    long at = e->nrun - 1;
    if (e->rfree)
        while (at > 0 && e->run[at].replica != replica)
            at--;
    return preempt_at(r, e, at, true);
}

/* DeepSpeed-MII's "Deadlock detected" reset (admission "wait"; ragged_batching.py
 * reset_request_status at 041a216): every running sequence is flushed and recomputes prompt +
 * generated tokens. MII keeps its buffer's order, in which the decoders stand behind the waiting
 * requests (it re-appends each decoder every step) and a prompt cut by the budget stands in front
 * (appendleft): so the prompts in progress go back to the front of the queue, in their order, and
 * the decoders to its back, in theirs. Called only when the step scheduled nothing, so no lazy
 * decoder is left (they are scheduled whenever they exist). */
void sim_flush_all(struct runner *r, struct engine *e)
{
    for (long at = e->nrun - 1; at >= 0; at--)
        if (e->run[at].computed < e->run[at].target)
            preempt_at(r, e, at, true);
    while (e->nrun > 0)
        preempt_at(r, e, 0, false);
}

static long preempt_at(struct runner *r, struct engine *e, long at, bool to_front)
{
    if (at < e->nd) {
        /* a lazy decoder (the last of them: lazy instances have no replicas), already scheduled
         * with its block of this iteration: its real state, out of the lazy sums */
        lz_forget(e, &e->run[at]);
        lz_real(e, &e->run[at], e->tick, true);
        e->run[at].last_emit_s = e->prev_end_s;
        if (e->run[at].id < r->c->warmup_requests)
            e->lz_warm--;
        e->nd = at;
    }
    struct rstate vs = e->run[at];
    memmove(&e->run[at], &e->run[at + 1], (size_t)(e->nrun - 1 - at) * sizeof *e->run);
    e->nrun--;
    long v = vs.id;
    const long computed = vs.computed, shared = vs.shared, own = vs.blocks - e->state_blocks;
    sim_release(e, &vs);
    if (vs.stage == 2) /* finished inside a multi-step run (advance): nothing to recompute */
        return v;
    pc_keep(r, e, &vs, computed, shared, own);
    vs.computed = 0;
    vs.chunk = 0;
    vs.target = r->R[v].prompt + vs.generated;
    r->R[v].preemptions++;
    e->st.preemptions++;
    sim_wait_count(e, vs.replica, 1);
    if (to_front)
        dq_push_front(&e->waiting, &vs);
    else
        dq_push_back(&e->waiting, &vs);
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
    long t = sim_spec_verify_tokens(&r->c->spec); /* a tree's positions, or the chain's */
    return t < left ? t : left;
}

/* batch_add's arithmetic (src/model/ops.c), here so that the per-sequence loop inlines it:
 * this is the simulator's hottest line (bench_sim). `few` is the model's rule, fitted once at the
 * engine's start (its shard's: estimate_mla_few_rule) */
static inline void iter_batch_add(struct llmroof_batch *b, double n, double past, const struct ops_few_rule *few)
{
    const double pairs = n * past + n * (n + 1.0) / 2.0;
    b->tokens += n;
    b->seqs += 1.0;
    b->attn_pairs += pairs;
    b->kv_read_tokens += past + n;
    if (ops_few_query(few, n, past, pairs)) {
        b->few_tokens += n;
        b->few_seqs += 1.0;
        b->few_pairs += pairs;
        b->few_keys += past + n;
    }
}

/* Keeps a prompt chunk where the engine runs passes (struct iter's pc): its tokens, the keys before
 * it, and whether it ends its prompt. */
static inline void keep_chunk(struct iter *it, const struct rstate *rs, long chunk, bool prefill)
{
    if (it->pc && prefill)
        it->pc[it->npc++] = (struct pchunk){ (double)chunk, (double)rs->computed, rs->computed + chunk >= rs->target };
}

/* Adds a sequence's work to the iteration: with data-parallel attention to its replica `rep`'s
 * sums too (struct engine's rb[rep], and rdec[rep] for a decoding one). */
static inline void add_to_iter(struct engine *e, struct iter *it, int rep, long chunk, long past, bool prefill,
                               bool spec)
{
    const struct ops_few_rule *few = &e->sh.few;
    iter_batch_add(&it->b, (double)chunk, (double)past, few);
    /* a verification pass needs the target's logits at each of its chunk positions, any other
     * sequence one row (ops.h batch_logits_rows) */
    const double extra = spec && !prefill ? (double)chunk - 1.0 : 0.0;
    it->b.extra_logits += extra;
    if (e->rb) {
        struct llmroof_batch *rb = &e->rb[rep];
        iter_batch_add(rb, (double)chunk, (double)past, few); /* its data-parallel attention replica */
        rb->extra_logits += extra;
    }
    if (spec) {
        iter_batch_add(&it->draft, prefill ? (double)chunk : 1.0, (double)past, &e->dsh.few);
        if (e->rdraft) /* its replica's drafter takes it (gpu_time: the busiest replica's) */
            iter_batch_add(&e->rdraft[rep], prefill ? (double)chunk : 1.0, (double)past, &e->dsh.few);
        if (!prefill)
            iter_batch_add(&it->dec1, 1.0, (double)past, few);
    }
    it->budget -= chunk;
    it->nsched++;
    if (prefill) {
        it->prefill_seqs++;
        it->prefill_tokens += chunk;
    } else {
        it->decode_seqs++;
        iter_batch_add(&it->dec, (double)chunk, (double)past, few);
        it->dec.extra_logits += extra;
        if (e->rb) {
            struct llmroof_batch *rd = &e->rdec[rep];
            iter_batch_add(rd, (double)chunk, (double)past, few);
            rd->extra_logits += extra;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Scheduling one iteration                                                 */
/* ------------------------------------------------------------------------ */

/* Sequences running on replica `rep` (all of them without data-parallel attention). */
static long running_on(const struct engine *e, int rep)
{
    if (!e->rfree)
        return e->nrun;
    long n = 0;
    for (long i = 0; i < e->nrun; i++)
        n += e->run[i].replica == rep;
    return n;
}

/* Blocks sequence rs needs beyond those it holds to compute `chunk` more tokens. */
static inline long step_need(const struct runner *r, const struct engine *e, const struct rstate *rs, long chunk)
{
    const long held = rs->blocks + rs->shared - e->state_blocks; /* token blocks (the state aside) */
    const long need = e->windowed ? own_blocks(e, rs->computed + chunk, rs->shared, rs->shared ? r->cached_len : 0, chunk) -
                                        (rs->blocks - e->state_blocks)
                      : rs->computed + chunk <= held * e->bs ? 0
                                                             : blocks_for(rs->computed + chunk, e->bs) - held;
    return need < 0 ? 0 : need; /* a windowed sequence can hold more than its tokens need (a reservation) */
}

/* A sequence alone on its replica that shares its group's cached prefix, on a model with
 * recurrent layers: the prefix holds a snapshot of the state at its end (state_blocks) beside the
 * sequence's own state, more than the rejection rule counted, and nothing else will free a block.
 * The snapshot is evicted (the prefix leaves the cache) and its token blocks become the sequence's
 * own: it goes on instead of preempting itself, which left an iteration with nothing to run
 * ("scheduler made no progress"). Returns whether it freed blocks. */
static bool unshare_alone(struct engine *e, struct rstate *rs, int rep)
{
    if (rs->shared == 0 || e->state_blocks == 0 || !e->pg || running_on(e, rep) != 1)
        return false;
    struct pgroup *p = pg_at(e, rep, rs->group);
    if (!p->resident || p->refs != 1)
        return false;
    kv_take(e, rep, -(p->blocks - rs->shared)); /* the snapshot; the token blocks stay held */
    rs->blocks += rs->shared;
    rs->shared = 0;
    p->blocks = 0;
    p->refs = 0;
    p->resident = false;
    return true;
}

/* The tokens a sequence on `replica` may still take this iteration: the iteration's budget, and
 * with data-parallel attention no more than its replica's own budget left (every replica
 * schedules alone: engine.rank_budget, sim_rank_share). */
static inline long budget_for(const struct engine *e, const struct iter *it, int replica)
{
    return e->rbud && e->rbud[replica] < it->budget ? e->rbud[replica] : it->budget;
}

/* iter_batch_add of n = 1 at past = computed, `n` times, into a batch and its decode sums: `keys`
 * the sum of computed + 1 (each one's pairs and keys); a decode of one token is always few-query. */
static void decodes_add(struct llmroof_batch *all, struct llmroof_batch *dec, long n, long keys)
{
    const double dn = (double)n, k = (double)keys;
    struct llmroof_batch *bs[2] = { all, dec };
    for (int j = 0; j < 2; j++) {
        struct llmroof_batch *b = bs[j];
        b->tokens += dn;
        b->seqs += dn;
        b->attn_pairs += k;
        b->kv_read_tokens += k;
        b->few_tokens += dn;
        b->few_seqs += dn;
        b->few_pairs += k;
        b->few_keys += k;
    }
}

/* Gives every running sequence its next work within the budget, preempting from the back
 * when KV blocks run out. */
/* The running sequences into the iteration, in order, within the budget; with prompts_only the
 * sequences still in their prompt alone (a prefill-first engine's chunked prompt, continued before
 * new admissions), the decoders left for an iteration without prefill work; with decodes_only the
 * decoders alone, the prompts in progress left for the next prompt iteration (alternate turns). */
static void schedule_running(struct runner *r, struct engine *e, struct iter *it, bool prompts_only, bool decodes_only,
                             bool idle_replicas_only)
{
    /* Decode steps of one token within the blocks held (most sequences of most iterations, without
     * speculation) take no per-sequence batch arithmetic: their count and keys are summed as
     * integers and added once below, with data-parallel attention per replica too (rquick) within
     * each replica's budget. Every sum of a batch is a sum of integers below 2^53, exact in a double
     * in any order, so the batch is the same to the bit. */
    const bool quick = !spec_on(r, e);
    const long blk = e->bs, state_blocks = e->state_blocks;
    long dn = 0, dk = 0;
    const int nrep = e->rb ? e->sh.attn_dp : 0;
    long *qn = e->rb ? e->rquick : NULL, *qk = qn ? qn + nrep : NULL;
    if (qn)
        memset(qn, 0, 2 * (size_t)nrep * sizeof *qn);
    long budget = it->budget; /* in a register through the quick steps (it->budget is written back below) */
    if (e->nd > 0 && !prompts_only) {
        /* the lazy decoders (engine_step made sure that the budget holds them and that the blocks
         * they take are free): one token each at context computed + 1, the sum of their offsets
         * plus tick + 1 each, and the blocks of this iteration's class */
        const long T = e->tick;
        dn = e->nd;
        dk = (long)(e->lz_sum + (long long)e->nd * (T + 1));
        budget -= e->nd;
        kv_take(e, 0, e->lz_cross[T % blk]);
        sim_lzw_take(r, e); /* and the windowed ones whose held tokens need one more */
    }
    for (long i = e->nd; i < e->nrun; i++) {
        struct rstate *rs = &e->run[i];
        if (budget <= 0)
            break;
        if (prompts_only && rs->computed >= rs->target)
            continue; /* a decoder: it waits for an iteration without prefill work */
        if (decodes_only && rs->computed < rs->target)
            continue; /* a prompt in progress: it waits for the next prompt iteration */
        if (idle_replicas_only && e->rprompt[rs->replica])
            continue; /* its replica prefills this iteration: its decodes wait */
        if (rs->stage == 2) {
            /* finished inside a multi-step run (advance): its row computes a discarded token in
             * the blocks it holds (vLLM reserved the run's lookahead slots when it scheduled it),
             * so it never takes blocks, nor preempts a live sequence for them */
            it->budget = budget;
            rs->chunk = 1;
            add_to_iter(e, it, rs->replica, 1, rs->computed, false, false);
            if (e->rbud)
                e->rbud[rs->replica] -= 1;
            budget = it->budget;
            continue;
        }
        /* a windowed sequence's next token may need no block though its tokens pass its blocks':
         * the slow path's own_blocks test below, for a decode step of one token without a prefix */
        if (quick && rs->computed >= rs->target && (!e->rbud || e->rbud[rs->replica] > 0) &&
            (e->windowed ? rs->shared == 0 && own_blocks(e, rs->computed + 1L, 0, 0, 1) <= rs->blocks - state_blocks
                         : rs->computed < (rs->blocks + rs->shared - state_blocks) * blk)) {
            rs->chunk = 1;
            dn++;
            dk += rs->computed + 1;
            budget--;
            if (qn) { /* its replica's sums, and its replica's budget (budget_for) */
                qn[rs->replica]++;
                qk[rs->replica] += rs->computed + 1;
                if (e->rbud)
                    e->rbud[rs->replica] -= 1;
            }
            continue;
        }
        it->budget = budget;
        long id = rs->id;
        const int rep = rs->replica;
        bool prefill;
        const long lim = budget_for(e, it, rep);
        if (e->rbud && lim <= 0)
            continue; /* its rank's budget is spent; the other ranks go on */
        long chunk = next_work(r, e, rs, rs->computed, lim, &prefill);
        if (chunk > lim) {
            if (e->rbud)
                continue;
            break; /* a speculative step needs its k + 1 positions */
        }
        long need = step_need(r, e, rs, chunk);
        if (need > kv_free(e, rep))
            evict_for(r, e, rep, need, -1, -1);
        if (need > kv_free(e, rep) && unshare_alone(e, rs, rep))
            need = step_need(r, e, rs, chunk);
        if (r->c->admit_wait && need > kv_free(e, rep))
            continue; /* DeepSpeed-MII: it waits, holding its KV, for a block another frees */
        bool self = false;
        while (need > kv_free(e, rep) && !self) {
            self = sim_preempt_last(r, e, rep) == id;
            /* vLLM retries the allocation, which now takes the victim's freed blocks from the
             * queue's front, its tail first: what it left cached (pc_keep), or a prefix it alone
             * used, is reclaimable before anyone else is preempted */
            if (!self && need > kv_free(e, rep))
                evict_for(r, e, rep, need, -1, -1);
        }
        if (self) {
            /* it was its replica's last one running: without replicas the last of all, and
             * with them the sequences after it (other replicas') moved down into slot i */
            if (!e->rfree)
                break;
            i--;
            continue;
        }
        rs = &e->run[i]; /* preemptions came from later slots: slot i still holds it */
        kv_take(e, rep, need);
        rs->blocks += need;
        rs->chunk = chunk;
        add_to_iter(e, it, rep, chunk, rs->computed, prefill, spec_on(r, e));
        keep_chunk(it, rs, chunk, prefill);
        if (e->rbud)
            e->rbud[rep] -= chunk;
        budget = it->budget;
    }
    it->budget = budget;
    if (dn > 0) {
        decodes_add(&it->b, &it->dec, dn, dk);
        it->nsched += (int)dn;
        it->decode_seqs += (int)dn;
        for (int j = 0; qn && j < nrep; j++)
            if (qn[j])
                decodes_add(&e->rb[j], &e->rdec[j], qn[j], qk[j]);
    }
}

void sim_schedule_running(struct runner *r, struct engine *e, struct iter *it)
{
    schedule_running(r, e, it, false, false, false);
}

void sim_schedule_prompts(struct runner *r, struct engine *e, struct iter *it)
{
    schedule_running(r, e, it, true, false, false);
}

void sim_schedule_decodes(struct runner *r, struct engine *e, struct iter *it)
{
    schedule_running(r, e, it, false, true, false);
}

void sim_schedule_idle_replicas(struct runner *r, struct engine *e, struct iter *it)
{
    for (int k = 0; k < e->sh.attn_dp; k++)
        e->rprompt[k] = e->rb[k].tokens > 0; /* only prompt work is in the iteration yet */
    schedule_running(r, e, it, false, true, true);
}

/* TGI 2.x's router (router/src/infer/v3/scheduler.rs batching_task and queue.rs next_batch;
 * launcher defaults --waiting-served-ratio 1.2, --max-waiting-tokens 20): with no running batch
 * any waiting request is prefilled at once. While a batch runs, every prefill is followed by at
 * least one decode, and a new batch is prefilled only when it holds at least floor(running x
 * ratio) requests (f32 in TGI) after the prefill budget and the free slots have cut it; from
 * max_waiting_steps iterations since the last admission (TGI's waiting_tokens: 1 at a prefill,
 * + 1 per decode) a batch of any size is. The count below walks the queue as the admission loop
 * will (the first prompt may exceed the budget alone); KV shortage is left to that loop. */
static bool served_gate_open(const struct sim_config *c, const struct engine *e, const struct iter *it)
{
    if (e->nrun == 0)
        return true;
    if (e->since_admit == 0)
        return false;
    if (e->since_admit + 1 >= c->max_waiting_steps)
        return true;
    const long min = (long)floorf((float)e->nrun * (float)c->waiting_served_ratio);
    long k = 0, tokens = 0;
    for (size_t pos = 0; pos < e->waiting.n && k < min && e->nrun + k < e->max_run; pos++) {
        const struct rstate *w = dq_at(&e->waiting, pos);
        const long t = w->target > w->computed ? w->target - w->computed : 1;
        if (k > 0 && tokens + t > it->budget)
            break;
        tokens += t;
        k++;
    }
    return k >= min;
}

/* ------------------------------------------------------------------------ */
/* Padded prompt iterations (vLLM 0.2-0.3)                                  */
/* ------------------------------------------------------------------------ */

/* vLLM 0.2-0.3 ran a prompt iteration as one [prompts x longest] tensor: the worker padded every
 * prompt to the longest (model_runner._prepare_prompt, _make_tensor_with_pad) and the prompt
 * attention took [longest] x prompts as its sequence lengths (BlockDiagonalCausalMask), so the
 * padding is computed like real tokens. The scheduler (scheduler.py _schedule) therefore counted
 * the budget as prompts x longest and stopped adding prompts once the padding, prompts x longest
 * minus their tokens, would exceed max_paddings (SchedulerConfig, 256 tokens by default).
 * Flat (packed) prompts came with vLLM 0.4. docs/model.md "vLLM by version". */
static inline bool padded(const struct sim_config *c)
{
    return c->max_paddings > 0 && c->prefill_first && !c->chunked_prefill; /* whole prompts, alone */
}

static inline bool pad_fits(const struct sim_config *c, const struct engine *e, const struct iter *it, long chunk)
{
    if (!padded(c) || it->pad_n < 1.0)
        return true; /* the iteration's first prompt: the budget rule above decides */
    const double t = (double)chunk;
    const double longest = it->pad_max > t ? it->pad_max : t;
    const double padded = (it->pad_n + 1.0) * longest;
    return (c->static_batching || padded <= (double)e->budget) && padded - (it->pad_t + t) <= (double)c->max_paddings;
}

static inline void pad_add(struct iter *it, double t, double past)
{
    const double a = past + t;
    it->pad_n += 1.0;
    if (t > it->pad_max)
        it->pad_max = t;
    it->pad_t += t;
    it->pad_tt += t * t;
    it->pad_a += a;
    it->pad_ta += t * a;
}

/* Adds the padding to the iteration's batch. Prompt i of t_i tokens after `past_i` cached ones
 * gains d_i = M - t_i padding rows (M the longest), each a query past its real tokens: row j
 * attends a_i + j keys (a_i = past_i + t_i), so the padding adds d_i a_i + d_i (d_i + 1) / 2
 * pairs. Summed with d_i = M - t_i:
 *   sum d_i       = n M - T                      (T = sum t_i)
 *   sum d_i a_i   = M A - sum t_i a_i            (A = sum a_i)
 *   sum d_i^2     = n M^2 - 2 M T + sum t_i^2
 * Tokens, pairs and keys grow; a prompt of a few tokens keeps its few-token (decode-like)
 * attention cost, as padding a prompt that short is rare. */
static void pad_apply(struct iter *it)
{
    if (it->pad_n < 2.0)
        return;
    const double n = it->pad_n, M = it->pad_max;
    const double d = n * M - it->pad_t;
    if (d <= 0.0)
        return;
    const double da = M * it->pad_a - it->pad_ta;
    const double dd = n * M * M - 2.0 * M * it->pad_t + it->pad_tt;
    it->b.tokens += d;
    it->b.attn_pairs += da + (dd + d) / 2.0;
    it->b.kv_read_tokens += d;
}

/* Admits waiting requests first come, first served while the sequence limit, the budget and
 * free blocks allow. A request whose prefix group is cached starts after the cached blocks.
 * Without chunking a prompt is admitted whole; the first of an iteration may exceed the budget
 * on its own. With data-parallel attention each request waits for its own replica (dispatched
 * on arrival, sim_on_arrival): SGLang's controller sends it to one replica's scheduler, whose
 * queue is its own, so a replica short of blocks holds back its requests only, and the others'
 * are admitted past them. */
/* A decode instance's queue holds requests whose K/V has arrived in blocks set aside for them
 * (sim_start_transfers) and sequences it preempted, which hold nothing. The arrived ones need no
 * new blocks, so they go first, in their order (vLLM's scheduler likewise runs a request once its
 * remote K/V is in its blocks): kept behind a preempted sequence whose recompute cannot finish
 * for want of the very blocks they hold, they would stall it for ever. A stable partition of the
 * queue, moving each arrived request in front of the first empty-handed one. */
static void arrived_first(struct deque *d)
{
    size_t first_empty = d->n;
    for (size_t pos = 0; pos < d->n; pos++) {
        const struct rstate *w = dq_at(d, pos);
        if (w->blocks == 0) {
            if (first_empty == d->n)
                first_empty = pos;
            continue;
        }
        if (first_empty == d->n)
            continue;
        const struct rstate keep = *w;
        for (size_t j = pos; j > first_empty; j--)
            d->v[(d->head + j) % d->cap] = d->v[(d->head + j - 1) % d->cap];
        d->v[(d->head + first_empty) % d->cap] = keep;
        first_empty++;
    }
}

/* SGLang's admission reserve (sim_config.admit_reserve) ----------------------------------------- */

/* Output tokens request x may still emit, as SGLang counts them: min(max_new_tokens - generated,
 * CLIP_MAX_NEW_TOKENS_ESTIMATION). A lazy decoder's count is its stored offset + the tick. */
static long reserve_left(const struct engine *e, const struct rstate *x)
{
    const long gen = (long)x->generated + (x->lazy ? e->tick : 0);
    /* a disaggregated prefill instance runs each request with max_new_tokens 1 (SGLang's
     * disaggregation/prefill.py): one token to reserve */
    const long left = (e->prefill_only ? 1L : (long)x->output) - gen;
    return left <= 0 ? 0 : left < SIM_RESERVE_CLIP ? left : SIM_RESERVE_CLIP;
}

/* Whether request rs (its prompt from `start` on) may join replica `rep` under SGLang's rule
 * (PrefillAdder.add_one_req): prompt left + output left must stay below the free KV tokens
 * (free blocks and unreferenced cached prefixes, which the radix tree evicts) less what the
 * running requests set aside: each one's output left times the new-token ratio, and at full
 * length for the requests admitted in this same call (admission numbers from adm0 on), whose
 * outputs PrefillAdder charges whole until they run. O(running) per candidate: the loop stops at
 * the first that does not fit. */
static bool reserve_fits(const struct runner *r, const struct engine *e, const struct rstate *rs, long start, int rep,
                         long adm0, long own_group, long own_cached)
{
    double reserved = 0.0;
    long running = 0;
    for (long i = 0; i < e->nrun; i++) {
        const struct rstate *x = &e->run[i];
        if (e->rfree && x->replica != rep)
            continue;
        running++;
        /* a lazy decoder's context is its stored offset + the tick (reserve_left): a windowed
         * model's held_delta depends on where the tokens start */
        const long from = (long)x->computed + (x->lazy ? e->tick : 0);
        reserved += held_delta(e, from, reserve_left(e, x)) * (x->adm >= adm0 ? 1.0 : e->ntr);
    }
    /* alone on its replica, a request that fits the pool at all runs (the rejection rule turned
     * away the ones that cannot): the strict test would hold an exact fit back for ever */
    if (running == 0)
        return true;
    long freeb = kv_free(e, rep);
    /* unreferenced cached prefixes are evictable, but not the candidate's own, which its need
     * already leaves out (SGLang locks the prefix, then checks again) */
    if (e->pg)
        for (long g = 0; g < r->c->prefix_groups; g++)
            if (g != own_group && pg_at(e, rep, g)->resident && pg_at(e, rep, g)->refs == 0)
                freeb += pg_at(e, rep, g)->blocks;
    /* and so are retracted requests' prompts (the radix tree's evictable_size counts them), but not
     * the candidate's own cache hit, locked as its prefix is */
    if (e->pcq)
        freeb += e->pcq[rep].blocks - own_cached;
    const double need = held_delta(e, start, rs->target - start + reserve_left(e, rs));
    return need < (double)freeb * (double)e->bs - reserved;
}

void sim_reserve_update(struct engine *e, bool retracted, bool decoded, bool was_idle)
{
    const double init = e->ntr_init, lo = init * SIM_RESERVE_MIN_FACTOR;
    if (retracted) {
        /* ScheduleBatch.retract_decode: (generated + 20 per request) / (max_new_tokens + 1) over
         * the requests still running, at most 1 */
        double gen = 0.0, out = 0.0;
        for (long i = 0; i < e->nrun; i++) {
            gen += (double)e->run[i].generated + (e->run[i].lazy ? (double)e->tick : 0.0);
            out += (double)e->run[i].output;
        }
        const double est = (gen + SIM_RESERVE_RETRACT_STEPS * (double)e->nrun) / (out + 1.0);
        e->ntr = est < 1.0 ? est : 1.0;
    } else if (decoded) {
        const double next = e->ntr - (init - lo) / SIM_RESERVE_DECAY_STEPS;
        e->ntr = next > lo ? next : lo;
    }
    if (was_idle && !retracted) /* the event loop's idle branch resets it (scheduler.py) */
        e->ntr = decoded ? init - (init - lo) / SIM_RESERVE_DECAY_STEPS : init;
}

void sim_admit_waiting(struct runner *r, struct engine *e, struct iter *it, double now)
{
    const struct sim_config *c = r->c;
    if (e->pool == 1 && c->disaggregated)
        arrived_first(&e->waiting);
    if (c->waiting_served_ratio > 0 && !served_gate_open(c, e, it)) {
        e->since_admit++;
        return;
    }
    bool admitted = false;
    const int nrep = e->rfree ? e->sh.attn_dp : 1;
    int nblocked = 0;
    size_t pos = 0;
    if (e->rblocked)
        memset(e->rblocked, 0, (size_t)nrep);
    bool held_only = false; /* the head waits for blocks: only requests holding theirs pass it */
    const long adm0 = e->adm_next; /* requests admitted from here on are this call's */
    if (e->rrun) { /* each replica's running sequences, against its own limit (rank_seqs) */
        memset(e->rrun, 0, (size_t)nrep * sizeof *e->rrun);
        for (long i = 0; i < e->nrun; i++)
            e->rrun[e->run[i].replica]++;
    }
    while (pos < e->waiting.n && e->nrun < e->max_run && it->budget > 0) {
        const struct rstate *w = dq_at(&e->waiting, pos);
        const long id = w->id;
        /* --recv-interval: a request that reached the server after the scheduler last received is
         * not in its queue yet, nor is any behind it (the queue is in arrival order, preempted
         * requests, long received, at its front) */
        if (c->recv_interval > 1 && w->computed == 0 &&
            r->R[id].arrival_s + e->setup.eff.first_token_s > e->recv_s)
            break;
        const int rep = w->replica;
        if (((e->rblocked && e->rblocked[rep]) || held_only) && w->blocks == 0) {
            pos++; /* FCFS within its replica: behind a request that waits for blocks */
            continue;
        }
        if (e->rrun && e->rblocked && e->rrun[rep] >= e->rank_seqs) {
            /* its replica holds its own limit of sequences (SGLang: max_running_requests //
             * dp_size per DP worker; vLLM V1: each DP rank's max_num_seqs); the others go on.
             * rrun and rblocked are allocated together (sim.c) */
            if (!e->rblocked[rep] && ++nblocked == nrep)
                break;
            e->rblocked[rep] = 1;
            pos++;
            continue;
        }
        /* work on the copy in the next free slot; it counts once nrun moves past it */
        struct rstate *rs = &e->run[e->nrun];
        *rs = *w;
        long g = rs->group;
        struct pgroup *pg = e->pg && g >= 0 ? pg_at(e, rep, g) : NULL; /* its replica's cache */
        bool hit = pg && pg->resident && rs->computed == 0 &&
                   r->cached_len > 0 && rs->target > r->cached_len;
    retry:;
        long start = hit ? r->cached_len : rs->computed;
        long have = hit ? pg->blocks - e->snap_blocks : 0; /* the prefix's token blocks */
        /* a preempted request's own blocks still cached continue the prefix (pc_usable): they
         * are a hit too, its recompute starts after them */
        const long mine = e->pcq && rs->computed == 0 ? pc_usable(r, e, rs, have) : 0;
        start += mine * e->bs;
        bool prefill = false;
        const long lim = budget_for(e, it, rep);
        long chunk = lim > 0 ? next_work(r, e, rs, start, lim, &prefill) : 0;
        /* a whole prompt above the budget runs where nothing else does: with data-parallel
         * attention, alone on its replica (each replica schedules its own iteration) */
        const bool others = e->rb ? e->rb[rep].seqs > 0 : it->nsched > 0;
        if (lim <= 0 || (prefill && !c->chunked_prefill && rs->target - start > lim && others) ||
            (!prefill && chunk > lim) || (prefill && !pad_fits(c, e, it, chunk))) {
            /* its replica's budget cannot take it: with data-parallel attention the other
             * replicas go on (FCFS within the replica), else the iteration is full */
            if (!e->rbud || !e->rblocked)
                break;
            if (!e->rblocked[rep] && ++nblocked == nrep)
                break;
            e->rblocked[rep] = 1;
            pos++;
            continue;
        }
        /* optimistic admission (vLLM) takes the blocks of this step's tokens and preempts later
         * when they run out; guaranteed-no-evict (TensorRT-LLM's CapacitySchedulerPolicy
         * GUARANTEED_NO_EVICT, its default) reserves the whole request, prompt and every output
         * token still to come (the last one's K/V is never written: - 1, the rule that rejects
         * requests that never fit), so the running set never needs more and is never preempted.
         * A model with recurrent layers also takes its per-sequence state's blocks. */
        const long cached = hit ? r->cached_len : 0;
        const long own = c->admit_no_evict
                             ? no_evict_blocks(e, rs, start, chunk, have, cached, c->chunked_prefill ? e->budget : 0)
                             : own_blocks(e, start + chunk, have, cached, chunk);
        /* a disaggregated request arrives holding the blocks its transfer took (sim_start_transfers),
         * a preempted one holds its cache hit's */
        long need = own + e->state_blocks - rs->blocks - mine;
        if (need < 0)
            need = 0;
        /* SGLang's reserve: the prompt and the output must fit beside the running outputs at the
         * new-token ratio (reserve_fits), or the head waits as for blocks */
        const bool reserve_ok = !c->admit_reserve || rs->blocks > 0 || reserve_fits(r, e, rs, start, rep, adm0, hit ? g : -1, mine);
        /* vLLM V0's watermark: an admission leaves int(watermark x blocks) free while others run
         * (alone, a request that fits runs: vLLM would drop one the watermark never lets in) */
        const long wm = c->kv_watermark > 0 && rs->blocks == 0 && running_on(e, rep) > 0
                            ? (long)(c->kv_watermark * (double)(e->rfree ? e->replica_blocks : e->total_blocks))
                            : 0;
        if (need + wm > kv_free(e, rep) && reserve_ok)
            evict_for(r, e, rep, need + wm, hit ? g : -1, mine > 0 ? id : -1);
        if (hit && need + wm > kv_free(e, rep) && pg->refs == 0 && running_on(e, rep) == 0) {
            /* a hit on a model with recurrent layers takes its own state beside the prefix's
             * snapshot (state_blocks twice): alone on its replica, with every other cached prefix
             * gone, it can still fail to fit where recomputing the prefix fits. Nothing running
             * will free a block, so it would wait for ever: the prefix is evicted instead (it is
             * unreferenced) and the request computes it again */
            kv_take(e, rep, -pg->blocks);
            pg->blocks = 0;
            pg->resident = false;
            hit = false;
            goto retry;
        }
        if (need + wm > kv_free(e, rep) || !reserve_ok) {
            /* the head waits for blocks; nobody on its replica overtakes it, but a disaggregated
             * request whose transfer took its blocks (sim_start_transfers) holds them already:
             * kept behind a preempted head that cannot grow, it would hold them for ever */
            if (w->blocks == 0 && e->rblocked && ++nblocked < nrep) {
                e->rblocked[rep] = 1;
                pos++;
                continue;
            }
            if (e->pool != 1)
                break;
            held_only = true; /* a decode instance: the requests holding their blocks go on */
            pos++;
            continue;
        }
        dq_remove_at(&e->waiting, pos);
        sim_wait_count(e, rs->replica, -1);
        rs->adm = e->adm_next++;
        rs->lazy = 0;
        if (hit) {
            pg->refs++;
            rs->shared = have;
            if (r->R[id].first_sched_s < 0)
                r->R[id].cached_tokens = start;
        }
        rs->computed = (int)start; /* past what the caches served */
        pc_admitted(r, e, rs, start, mine);
        kv_take(e, rep, need);
        rs->blocks += (int)need;
        rs->chunk = chunk;
        e->nrun++;
        if (e->rrun)
            e->rrun[rep]++;
        admitted = true;
        if (r->R[id].first_sched_s < 0)
            r->R[id].first_sched_s = now;
        if (!prefill && rs->decode_sched_s < 0)
            rs->decode_sched_s = now;
        add_to_iter(e, it, rep, chunk, rs->computed, prefill, spec_on(r, e));
        keep_chunk(it, rs, chunk, prefill);
        if (e->rbud)
            e->rbud[rep] -= chunk;
        if (prefill && padded(c))
            pad_add(it, (double)chunk, (double)rs->computed);
    }
    e->since_admit = admitted ? 0 : e->since_admit + 1; /* the waiting-served gate's clock */
    if (padded(c))
        pad_apply(it);
}

/* Attention's share of a timed step: the operators that depend on each sequence's context. */
static inline double attn_s(const struct llmroof_phase *p)
{
    return p->op[LLMROOF_OP_ATTENTION].time_s + p->op[LLMROOF_OP_ATTN_LOCAL].time_s + p->op[LLMROOF_OP_MLA_KV_UP].time_s;
}

/* An iteration's (or a replica's) prefill part: its batch sums `b` less its decodes' `d` (every
 * sum is an integer count, exact in a double). */
static inline struct llmroof_batch prefill_part(const struct llmroof_batch *b, const struct llmroof_batch *d)
{
    return (struct llmroof_batch){ b->tokens - d->tokens,         b->seqs - d->seqs,
                                   b->attn_pairs - d->attn_pairs, b->kv_read_tokens - d->kv_read_tokens,
                                   b->few_tokens - d->few_tokens, b->few_seqs - d->few_seqs,
                                   b->few_pairs - d->few_pairs,   b->few_keys - d->few_keys,
                                   b->extra_logits - d->extra_logits };
}

/* A pooled step's time with its attention re-timed per part: `all` is the roofline of `ops`, the
 * operators of a batch whose sequences are the prefill part `pre` and the decode part `dec`
 * (batches as ops_set_context takes them: with data-parallel attention, a replica's times the
 * replicas). The attention operators of the pooled batch are replaced by the prefill part's plus
 * the decode part's, each at its own roofline time (mixed_time). */
static double split_attention_time(const struct llmroof_setup *s, const struct llmroof_shard *sh,
                                   const struct llmroof_oplist *ops, const struct llmroof_phase *all,
                                   const struct llmroof_batch *pre, const struct llmroof_batch *dec)
{
    struct llmroof_oplist part;
    struct llmroof_phase p;
    /* each part re-times its attention operators alone: the others' counts at 0 (roofline_eval
     * skips them, and an operator's time depends on no other operator), so the GEMMs are timed
     * once per iteration, not three times */
    struct llmroof_oplist base = *ops;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        if (k != LLMROOF_OP_ATTENTION && k != LLMROOF_OP_ATTN_LOCAL && k != LLMROOF_OP_MLA_KV_UP)
            base.op[k].count = 0;
    double split = 0.0;
    part = base;
    ops_set_context(s->model, sh, &s->dt, pre, &part);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &part, &p);
    split += attn_s(&p);
    part = base;
    ops_set_context(s->model, sh, &s->dt, dec, &part);
    /* the decodes share the iteration's call with the chunks' queries: an engine whose attention
     * is one FlashAttention-2 varlen call (eff.varlen_fa2) cannot pack their GQA groups where one
     * of those is longer than a token (roofline_attn_extra_kv_bytes; a prompt whose cached prefix
     * leaves one token to compute is not) */
    part.longer_query = part.longer_query || pre->tokens > pre->seqs;
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &part, &p);
    split += attn_s(&p);
    return all->time_s - attn_s(all) + split;
}

/* One pass over a batch. In a mixed iteration the decode sequences' attention is costed as
 * decode attention, apart from the prefill chunks': one operator over the pooled pairs and keys
 * would let the chunks' compute hide the decodes' K/V reads (max of the pooled compute and
 * memory) and, for MLA, decompress every decoding sequence's context. Engines run them as
 * separate kernels or separate work items (vLLM's prefill and decode attention metadata,
 * FlashInfer's prefill and decode wrappers), so each part takes its own roofline time: the step
 * is the pooled step with its attention replaced by the prefill part's plus the decode part's. */
static double mixed_time(const struct engine *e, const struct iter *it)
{
    const struct llmroof_setup *s = &e->setup;
    if (it->prefill_seqs == 0 || it->decode_seqs == 0)
        return sim_step_time(s, &e->sh, &it->b);
    struct llmroof_oplist ops;
    struct llmroof_phase all;
    ops_build(s->model, &e->sh, &s->dt, &it->b, &ops);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &all);
    /* the prefill part: everything but the decodes (its few-query sums keep any verification
     * sequences, which MLA then runs absorbed, ops_set_context) */
    const struct llmroof_batch pre = prefill_part(&it->b, &it->dec);
    return split_attention_time(s, &e->sh, &ops, &all, &pre, &it->dec);
}

/* The target's pass over the iteration. With data-parallel attention each replica runs its own
 * sequences and all meet at every MoE layer, so the busiest replica sets the step
 * (estimate_ops_replicas): the candidates are the replicas with the most new tokens, attention
 * pairs, keys read and decoding sequences' keys read (the step time grows with each; the last
 * because a replica's decodes are costed apart from its prefill chunks), the slowest of them
 * counts. A candidate's batch is costed as mixed_time costs an iteration without replicas: where
 * the replica holds prefill chunks beside decodes, its attention is the prefill part's plus the
 * decode part's (its attention kernels run on its own sequences alone: one replica's chunk
 * cannot hide another's decodes, nor its own). The per-replica sums are cleared for the next
 * iteration. */
static double target_time(const struct engine *e, const struct iter *it)
{
    if (!e->rb)
        return mixed_time(e, it);
    const struct llmroof_setup *s = &e->setup;
    const int n = e->sh.attn_dp;
    int cand[4] = { 0, 0, 0, 0 }, least = 0;
    for (int k = 1; k < n; k++) {
        if (e->rb[k].seqs < e->rb[least].seqs ||
            (e->rb[k].seqs == e->rb[least].seqs && e->rb[k].tokens < e->rb[least].tokens))
            least = k;
        if (e->rb[k].tokens > e->rb[cand[0]].tokens)
            cand[0] = k;
        if (e->rb[k].attn_pairs > e->rb[cand[1]].attn_pairs)
            cand[1] = k;
        if (e->rb[k].kv_read_tokens > e->rb[cand[2]].kv_read_tokens)
            cand[2] = k;
        if (e->rdec[k].kv_read_tokens > e->rdec[cand[3]].kv_read_tokens)
            cand[3] = k;
    }
    double t = 0.0;
    for (int j = 0; j < 4; j++) {
        bool seen = false;
        for (int i = 0; i < j; i++)
            seen = seen || cand[i] == cand[j];
        if (seen)
            continue;
        const struct llmroof_batch *b = &e->rb[cand[j]], *d = &e->rdec[cand[j]];
        struct llmroof_oplist ops;
        struct llmroof_phase p;
        estimate_ops_replicas(s->model, &e->sh, &s->dt, b, &it->b, &e->rb[least], &ops);
        roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &p);
        double tj = p.time_s;
        if (d->seqs > 0 && b->seqs > d->seqs) {
            /* ops_set_context costs the mean replica of what it is given: each part times the
             * replicas, as estimate_ops_replicas scales the busiest replica's batch */
            const struct llmroof_batch pre = prefill_part(b, d);
            const struct llmroof_batch pre_n = batch_scale(&pre, (double)n), dec_n = batch_scale(d, (double)n);
            tj = split_attention_time(s, &e->sh, &ops, &p, &pre_n, &dec_n);
        }
        if (tj > t)
            t = tj;
    }
    memset(e->rb, 0, (size_t)n * sizeof *e->rb);
    memset(e->rdec, 0, (size_t)n * sizeof *e->rdec);
    return t;
}

/* One draft step of a head on the target (ops_build_draft): a layer, the LM head, and the step's
 * launch and synchronisation overhead (none where the engine replays the draft loop as one graph:
 * roofline_draft_effs, and roofline_draft_graph_s once an iteration). */
static double draft_step_s(const struct engine *e, const struct sim_spec *sp, const struct llmroof_draft_head *own,
                           const struct llmroof_batch *b, int medusa_heads, bool first, const struct llmroof_effs *eff)
{
    struct llmroof_oplist ops;
    struct llmroof_phase p;
    const struct ops_head hd = ops_head_shape_own(e->setup.model, own,
                                                  sp->kind == SIM_SPEC_EAGLE3 ? sp->draft_vocab : 0, first,
                                                  sp->kind == SIM_SPEC_EAGLE || sp->kind == SIM_SPEC_EAGLE3);
    ops_build_draft(e->setup.model, &e->sh, &e->setup.dt, b, medusa_heads, &hd, &ops);
    /* a head apart computes at its own 16 bits, an MTP module at the target's (ops_draft_act) */
    roofline_eval(e->setup.gpu, ops_draft_act(&e->setup.dt, medusa_heads, &hd), eff, e->setup.tp, &ops, &p);
    return p.time_s;
}

/* A draft head's passes over the decoding sequences: an EAGLE head or MTP module runs k steps of
 * its layer, the first over one token a sequence (dec1), the later ones over the tree's expanded
 * nodes (later); Medusa's k heads run once, beside each other (ops_build_draft) */
static double head_drafts_s(const struct engine *e, const struct sim_spec *sp, const struct llmroof_draft_head *own,
                            const struct llmroof_batch *dec1, const struct llmroof_batch *later,
                            const struct llmroof_effs *eff)
{
    if (sp->kind == SIM_SPEC_MEDUSA)
        return draft_step_s(e, sp, own, dec1, sp->k, true, eff);
    double t = draft_step_s(e, sp, own, dec1, 0, true, eff);
    if (sp->k > 1)
        t += (double)(sp->k - 1) * draft_step_s(e, sp, own, later, 0, false, eff);
    return t;
}

/* The cost of an iteration: the target's pass over everything it holds (sim_step_time), plus
 * the drafter's passes when speculating. A draft model runs k passes, the first over the same
 * prefill chunks (it keeps its own KV cache) and one token per decoding sequence; an EAGLE or
 * MTP head runs k draft steps of one decoder layer and the LM head each, Medusa's k heads one
 * step (ops_build_draft; docs/metrics.md). */
static double gpu_time(const struct runner *r, const struct engine *e, const struct iter *it);

/* The engine's CPU work beside an iteration's GPU time, in three parts that scale with the
 * scheduled sequences (vLLM's v0.6.0 post profiled vLLM 0.5.3, Llama 3 8B on one H100: API server
 * 33% of the time, scheduling with gathering the last step's results and preparing inputs 29%,
 * GPU 38%; docs/model.md "Engine CPU work" derives the three costs from that split):
 *   1. scheduling and input preparation (block tables, sampling metadata): cpu_seq_s each, next to
 *      the GPU by cpu_overlap (SGLang's overlap scheduler: 1; vLLM V0 between steps: 0; multi-step
 *      scheduling divides it by its steps, servval.c); on an instance of several GPUs, worker_seq_s
 *      more per GPU: vLLM before PR #2221 (v0.2.7) ran every GPU as a Ray worker and passed the
 *      step's sequence metadata as the arguments of each worker's remote call, which Ray pickles
 *      once per call in the driver (docs/model.md "Engine CPU work");
 *   2. output processing (the GPU->CPU copy, stop checks, detokenisation): cpu_output_s each, in
 *      the same thread, overlapping the GPU step by cpu_output_overlap (vLLM 0.6's asynchronous
 *      output processor processes step n's outputs during step n + 1: 1);
 *   3. the API server's streamed chunk (OpenAI response formatting, SSE): api_stream_s each,
 *      in the engine's process and GIL before vLLM 0.6 (api_overlap 0: added to the step), in its
 *      own process from 0.6 (PR #6883; api_overlap 1: a pipeline stage, so the step takes the
 *      longer of the engine's and the server's work).
 * Each part combines with the time before it as t + cpu - overlap * min(t, cpu). A sequence whose
 * prompt chunk does not finish its prompt streams nothing, but is counted (at most the one or two
 * prompts a token budget splits per iteration). SGLang 0.4 (server_args.py) sets
 * disable_overlap_schedule when a speculative algorithm is on, so part 1 then runs between
 * steps. */
int sim_ray_workers(const struct sim_config *c, int gpus)
{
    return gpus > 1 || c->setup.eff.ray_workers ? gpus : 0;
}

double sim_cpu_step_s(const struct sim_config *c, double gpu_s, double seqs, double cpu_scale, int gpus, double tokens)
{
    return sim_cpu_step_rep_s(c, gpu_s, seqs, seqs, cpu_scale, gpus, tokens);
}

double sim_cpu_step_rep_s(const struct sim_config *c, double gpu_s, double engine_seqs, double seqs, double cpu_scale,
                          int gpus, double tokens)
{
    const double ov = c->spec_no_overlap && c->spec.kind != SIM_SPEC_NONE ? 0.0 : c->cpu_overlap;
    /* the profile's costs are the reference host's; this host takes cpu_scale times as long */
    const double n = seqs * (cpu_scale > 0 ? cpu_scale : 1.0);
    const double ne = engine_seqs * (cpu_scale > 0 ? cpu_scale : 1.0); /* the busiest scheduler's */
    const double workers = (double)sim_ray_workers(c, gpus);
    /* estimate's rule (roofline_cpu_step_s) on the configured costs: the simulator's may differ
     * from the profile's (multi-step scheduling, the API server, a test's) */
    /* with the engine in a Ray actor (--engine-use-ray) its RequestOutputs, every scheduled
     * sequence's prompt and output so far (`tokens`, the step's keys read), cross to the API
     * server between two steps (roofline_cpu_step_s) */
    return roofline_cpu_combine_s(gpu_s, c->cpu_output_s * ne, c->cpu_output_overlap,
                                  (c->cpu_seq_s + c->worker_seq_s * workers) * ne, ov, c->api_stream_s * n,
                                  c->api_overlap) +
           c->setup.eff.ray_token_s * tokens * (cpu_scale > 0 ? cpu_scale : 1.0);
}

/* The iteration's GPU time (gpu_time) and the engine's CPU work that grows with the batch
 * (sim_cpu_step_s); step_scale stretches the whole iteration (the capacity band). */
/* TGI 0.8's copies of its contiguous K/V (engine kv_copy; flash_causal_lm.py before paged attention,
 * TGI PR #516): every decode step of two or more sequences allocates a tensor one slot longer per
 * sequence and copies the batch's K/V into it ("fairly slow", its own comment says), and a prompt
 * iteration's batch is concatenated into the running one (FlashCausalLMBatch.concatenate: both
 * copied). The held tokens are the pool's used blocks. A finished sequence's filter (another copy
 * of the survivors, about one step in twenty at these lengths) is not charged. */
static double kv_copy_s(const struct engine *e, const struct iter *it)
{
    double tokens = 0;
    if (it->prefill_seqs == 0 && it->decode_seqs >= 2)
        tokens = it->b.kv_read_tokens; /* every sequence decodes: its context, the new token included */
    else if (it->prefill_seqs > 0 && e->nrun > it->prefill_seqs)
        tokens = (double)(e->total_blocks - e->free_blocks) * (double)e->bs;
    return roofline_kv_copy_s(e->setup.gpu, &e->setup.eff, tokens, e->kv_token_gpu_bytes);
}

double sim_iter_cost(const struct runner *r, const struct engine *e, const struct iter *it)
{
    const struct sim_config *c = r->c;
    /* data-parallel attention: every replica schedules its own sequences in a process of its own
     * (SGLang's DP workers, vLLM's DP engine cores), beside the others, so the busiest replica's
     * scheduling and output processing set the step; the API server takes every sequence's.
     * (Counted before gpu_time, which clears the replicas' sums for the next iteration.) */
    double busiest = (double)it->nsched;
    if (e->rb) {
        busiest = 0;
        for (int k = 0; k < e->sh.attn_dp; k++)
            busiest = fmax(busiest, e->rb[k].seqs);
    }
    const double gpu = gpu_time(r, e, it) + (c->kv_copy ? kv_copy_s(e, it) : 0.0);
    const double t = sim_cpu_step_rep_s(c, gpu, busiest, (double)it->nsched, e->setup.eff.cpu_scale,
                                        sim_worker_gpus(&e->setup), it->b.kv_read_tokens);
    return c->step_scale > 0 ? t * c->step_scale : t;
}


/* A decode-only step's GPU time from the pool's step of the same sequences (struct step_base,
 * model/stepcost.h): the time a whole ops_build and roofline_eval give. */
static double decode_rebuilt(const struct runner *r, const struct engine *e, const struct iter *it)
{
    const struct llmroof_setup *s = &e->setup;
    const long n = it->decode_seqs;
    struct step_base *sb = &r->base[(size_t)e->pool * SIM_BASE_SLOTS + (size_t)n % SIM_BASE_SLOTS];
    if (sb->n != n) {
        sb->n = n;
        return stepcost_build(&sb->sc, s, &e->sh, &it->b);
    }
    return stepcost_time(&sb->sc, s, &e->sh, &it->b);
}

/* A decode-only step's GPU time, from the pool's memo when its shape was costed before. */
static double decode_time(const struct runner *r, const struct engine *e, const struct iter *it)
{
    const unsigned long long n = (unsigned long long)it->decode_seqs, k = (unsigned long long)it->b.kv_read_tokens;
    if (!r->memo || !r->base || n >= 1ull << 20 || k >= 1ull << 43)
        return target_time(e, it);
    /* a plain-attention step built for these sequences re-times faster than a memo lookup that
     * misses (the keys grow every step) */
    struct stepcost_fast *f = r->fastc ? &r->fastc[(size_t)e->pool * SIM_FAST_SLOTS + (size_t)n % SIM_FAST_SLOTS] : NULL;
    if (f && f->seqs == (double)n)
        return stepcost_fast_time(f, &e->setup.eff, &it->b);
    struct step_base *sb = &r->base[(size_t)e->pool * SIM_BASE_SLOTS + (size_t)n % SIM_BASE_SLOTS];
    if (f && sb->n != (long)n) {
        sb->n = (long)n;
        const double t = stepcost_build(&sb->sc, &e->setup, &e->sh, &it->b);
        if (sb->sc.fast)
            *f = sb->sc.f;
        return t;
    }
    const unsigned long long key = (n << 43 | k) + 1;
    struct step_memo *m = &r->memo[(size_t)e->pool * SIM_MEMO_SLOTS + ((key * 0x9E3779B97F4A7C15ull) >> 52)]; /* Fibonacci hashing: the top 12 bits, 4096 slots */
    if (m->key != key) {
        m->time_s = decode_rebuilt(r, e, it);
        m->key = key;
    }
    return m->time_s;
}

/* The total of a kept shape with attention time `att` (stepcost_total_s of its sums). */
static double mix_total(const struct mix_cache *mc, int pool, const struct mix_slot *m, double att)
{
    /* only the total's fields are read (stepcost_total_s); the rest start at zero */
    struct stepcost_fast f = { .before_s = m->before_s, .nafter = m->nafter, .a2a_overlap = false, .a2a_s = 0,
                               .launch_s = mc->launch_s[pool], .overhead_s = mc->overhead_s[pool] };
    for (int j = 0; j < m->nafter; j++)
        f.after_s[j] = m->after_s[j];
    return stepcost_total_s(&f, att);
}

/* A step with prefill chunks on a plain-attention setup (struct mix_cache): mixed_time's number,
 * or sim_step_time's without decodes, from the kept sums of its shape where it was seen. */
static double chunk_time(const struct runner *r, const struct engine *e, const struct iter *it)
{
    const struct llmroof_setup *s = &e->setup;
    struct mix_cache *mc = r->mixc;
    if (!(it->b.tokens <= INT_MAX && it->b.seqs <= INT_MAX))
        return target_time(e, it); /* beyond the slots' keys */
    const int T = (int)it->b.tokens, S = (int)it->b.seqs;
    const unsigned long long key = (unsigned long long)T * 0x9E3779B97F4A7C15ull ^ (unsigned long long)S * 0xC2B2AE3D27D4EB4Full;
    const size_t i = (size_t)e->pool * SIM_MIX_SLOTS + (size_t)((key * 0x9E3779B97F4A7C15ull) >> 48);
    struct mix_slot *m = &mc->slot[i];
    unsigned long long *kept = &mc->kept[i / 64];
    const unsigned long long bit = 1ull << (i % 64);
    const double a_all = stepcost_attn_s(&e->attn, &s->eff, &it->b, false);
    double all_s;
    const bool seen = (*kept & bit) && m->tokens == T && m->seqs == S && (double)T == it->b.tokens && (double)S == it->b.seqs;
    if (seen && (++m->hits & 63) != 0) {
        all_s = mix_total(mc, e->pool, m, a_all);
    } else {
        struct llmroof_oplist ops;
        struct llmroof_phase all;
        ops_build(s->model, &e->sh, &s->dt, &it->b, &ops);
        roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &all);
        all_s = all.time_s;
        if (all.op[LLMROOF_OP_ATTENTION].time_s != a_all || (seen && mix_total(mc, e->pool, m, a_all) != all_s)) {
            mc->off = true; /* not the numbers of a whole step: never again */
            return target_time(e, it);
        }
        struct stepcost_fast f;
        stepcost_sums(&f, &all);
        if (!mc->pool_set[e->pool]) {
            mc->pool_set[e->pool] = true;
            mc->launch_s[e->pool] = f.launch_s;
            mc->overhead_s[e->pool] = f.overhead_s;
        }
        /* a shape the slot can hold, whose kept total is this step's */
        if (!seen && f.nafter <= SIM_MIX_AFTER && !f.a2a_overlap && f.launch_s == mc->launch_s[e->pool] &&
            f.overhead_s == mc->overhead_s[e->pool] && (double)T == it->b.tokens && (double)S == it->b.seqs) {
            *kept |= bit;
            m->tokens = T;
            m->seqs = S;
            m->hits = 0;
            m->nafter = f.nafter;
            m->before_s = f.before_s;
            for (int j = 0; j < f.nafter; j++)
                m->after_s[j] = f.after_s[j];
            if (mix_total(mc, e->pool, m, a_all) != all_s)
                *kept &= ~bit; /* cannot happen: the same sums; left empty if it does */
        }
    }
    if (it->decode_seqs == 0)
        return all_s;
    /* mixed_time: the pooled attention (a_all; no windowed or MLA operators here) replaced by the
     * prefill part's plus the decode part's */
    const struct llmroof_batch pre = prefill_part(&it->b, &it->dec);
    const double a_pre = stepcost_attn_s(&e->attn, &s->eff, &pre, false);
    return all_s - a_all + (a_pre + stepcost_attn_s(&e->attn, &s->eff, &it->dec, pre.tokens > pre.seqs));
}

/* With data-parallel attention the drafter's passes run on every replica too, and the busiest sets
 * their time: ops_build_draft costs the mean replica of its batch, so the decoding batch is scaled
 * until that mean holds the busiest replica's `busiest` decoding sequences (at the mean context). */
static struct llmroof_batch busiest_draft(const struct engine *e, const struct llmroof_batch *dec1, double busiest)
{
    if (!e->rb || !(dec1->seqs > 0))
        return *dec1;
    const double f = busiest * (double)e->sh.attn_dp / dec1->seqs;
    return batch_scale(dec1, f);
}

/* The busiest replica's pass of a draft model under data-parallel attention. Each replica's
 * drafter is the draft model on the replica's own TP ranks (e->dsh: a shard without replicas) and
 * drafts its own sequences; the replicas meet at the target's MoE layers, so the slowest replica's
 * pass holds them all. `rd` holds each replica's batch (sh.attn_dp entries); the candidates are the
 * replicas with the most tokens, attention pairs and sequences, the slowest of them counts. Until
 * session 38 the instance's whole batch was costed on one replica's GPUs: Qwen3-235B-A22B at EP 8
 * on H200s with a Qwen3-8B draft, 64 sequences, drafted all 64 where each replica holds 8. */
static double draft_model_busiest_s(const struct engine *e, const struct llmroof_setup *ds, const struct llmroof_batch *rd)
{
    const int n = e->sh.attn_dp;
    int cand[3] = { 0, 0, 0 };
    for (int k = 1; k < n; k++) {
        if (rd[k].tokens > rd[cand[0]].tokens)
            cand[0] = k;
        if (rd[k].attn_pairs > rd[cand[1]].attn_pairs)
            cand[1] = k;
        if (rd[k].seqs > rd[cand[2]].seqs)
            cand[2] = k;
    }
    double t = 0.0;
    for (int j = 0; j < 3; j++) {
        bool seen = false;
        for (int i = 0; i < j; i++)
            seen = seen || cand[i] == cand[j];
        if (!seen && rd[cand[j]].tokens > 0)
            t = fmax(t, sim_step_time(ds, &e->dsh, &rd[cand[j]]));
    }
    return t;
}

double sim_spec_step_s(const struct runner *r, const struct engine *e, double B, double c,
                       const struct llmroof_batch *pre)
{
    const struct sim_spec *sp = &r->c->spec;
    const double V = (double)sim_spec_verify_tokens(sp);
    /* the target's verification: V positions a sequence after c - 1 cached tokens, its logits at
     * each (estimate.c step_batch), and the prompt chunks beside them */
    struct llmroof_batch one = { 0 }, b;
    iter_batch_add(&one, V, c - 1.0, &e->sh.few);
    b = batch_scale(&one, B);
    b.extra_logits = B * (V - 1.0);
    batch_accumulate(&b, pre);
    double t = sim_step_time(&e->setup, &e->sh, &b);
    const struct llmroof_batch dec1 = batch_decode(B, c);
    const struct llmroof_batch later = sp->tokens > 0 && sp->topk > 1 ? ops_batch_widen(&dec1, (double)sp->topk) : dec1;
    const double n = e->sh.attn_dp > 1 ? (double)e->sh.attn_dp : 1.0; /* a draft model: one replica's share */
    /* the draft loop's passes, one graph where the engine replays it so (roofline_draft_effs) */
    const struct llmroof_effs loop = roofline_draft_effs(&e->setup.eff, B / n);
    switch (sp->kind) {
    case SIM_SPEC_DRAFT: {
        struct llmroof_batch first = batch_scale(&dec1, 1.0 / n);
        const struct llmroof_batch own_pre = batch_scale(pre, 1.0 / n), own_later = batch_scale(&later, 1.0 / n);
        batch_accumulate(&first, &own_pre);
        struct llmroof_setup ds = e->draft;
        ds.eff = roofline_draft_effs(&e->draft.eff, B / n);
        t += sim_step_time(&ds, &e->dsh, &first);
        if (sp->k > 1)
            t += (double)(sp->k - 1) * sim_step_time(&ds, &e->dsh, &own_later);
        break;
    }
    case SIM_SPEC_MTP:
    case SIM_SPEC_EAGLE:
    case SIM_SPEC_EAGLE3:
    case SIM_SPEC_MEDUSA:
        if (sp->kind != SIM_SPEC_MEDUSA && pre->tokens > 0) /* the prompts' pass: outside the loop */
            t += draft_step_s(e, sp, &r->c->spec_head, pre, 0, true, &e->setup.eff);
        t += head_drafts_s(e, sp, &r->c->spec_head, &dec1, &later, &loop);
        break;
    case SIM_SPEC_NONE: break;
    }
    return t + roofline_draft_graph_s(e->setup.gpu, &e->setup.eff, B / n);
}

/* An engine that evaluates at most U tokens per forward pass (the profile's prompt_ubatch_tokens:
 * llama.cpp's n_ubatch, 512; llama_decode splits a larger batch since PR #6017, and before it the
 * server fed llama_decode n_batch = 512 tokens at a time) runs an iteration of T > U tokens as
 * ceil(T / U) passes, each reading the weights and paying the step's fixed costs: estimate's rule
 * for a prompt (estimate.c prefill_in_passes), here for every iteration. The server puts each
 * generating slot's token before the prompts' tokens, so the decodes fill the first passes (each
 * pass's share of them at their mean context), then the prompt chunks in scheduling order, each cut
 * where a pass ends: the piece of a chunk in a pass attends to the chunk's keys before it, so the
 * iteration's attention pairs and keys are the unsplit ones, spread over the passes (eager
 * attention's score matrix, keys x the pass's tokens, shrinks). llama.cpp asks for logits only at
 * a prompt's last token (PR #6122 skips the others' LM head): a piece that does not end its prompt
 * has no logits row; an engine that projects every prompt token (logits_all_tokens: llama.cpp before
 * that PR) has one per token, in a pass that fits whole too. U <= 0: one pass. */
static double passes_time(const struct engine *e, const struct iter *it, double U)
{
    const double Td = it->dec.tokens, T = it->b.tokens;
    if (!(U > 0))
        U = T;
    const bool all_logits = e->setup.eff.logits_all_tokens;
    double t = 0.0;
    long k = 0;        /* the chunk being cut */
    double done = 0.0; /* its tokens in earlier passes */
    const long npass = (long)ceil(T / U); /* T and U whole numbers of tokens */
    for (long j = 0; j < npass; j++) {
        const double lo = (double)j * U, hi = fmin(lo + U, T);
        const double nd = fmax(0.0, fmin(hi, Td) - lo); /* decodes in this pass */
        struct iter p;
        memset(&p, 0, sizeof p);
        if (nd > 0) {
            p.dec = batch_scale(&it->dec, nd / Td);
            p.decode_seqs = 1;
        }
        p.b = p.dec;
        for (double room = (hi - lo) - nd; room > 0 && k < it->npc;) {
            const struct pchunk *ch = &it->pc[k];
            const double piece = fmin(room, ch->n - done);
            const bool ends = done + piece >= ch->n;
            struct llmroof_batch q = { 0 };
            iter_batch_add(&q, piece, ch->past + done, &e->sh.few);
            q.extra_logits = all_logits ? q.tokens - 1.0 : ends && ch->last ? 0.0 : -1.0;
            batch_accumulate(&p.b, &q);
            p.prefill_seqs = 1;
            room -= piece;
            done += piece;
            if (ends) {
                k++;
                done = 0.0;
            }
        }
        t += mixed_time(e, &p);
    }
    return t;
}

static double gpu_time(const struct runner *r, const struct engine *e, const struct iter *it)
{
    const double U = e->setup.eff.prompt_ubatch_tokens;
    if (it->pc && it->npc == it->prefill_seqs && !(it->pad_n > 0) && !e->rb && !drafts_prompts(r, e) && e->setup.layout.pp <= 1 &&
        ((U > 0 && it->b.tokens > U) || (it->prefill_seqs > 0 && (U > 0 || e->setup.eff.logits_all_tokens))))
        return passes_time(e, it, U);
    if (!e->rb && !spec_on(r, e) && it->prefill_seqs == 0)
        return decode_time(r, e, it);
    if (!e->rb && !drafts_prompts(r, e) && e->attn.ok && r->mixc && !r->mixc->off)
        return chunk_time(r, e, it);
    const struct sim_spec *sp = &r->c->spec;
    /* data-parallel attention: what the busiest replica drafts, read before target_time clears the
     * replicas' sums. Its decoding sequences; its prompt chunks (a replica's prefill part: an EAGLE
     * head or MTP module runs its layer over them, as estimate charges the busiest replica's
     * prompts; until session 38 the mean replica's, an eighth of DeepSeek-V3's one 8,192-token
     * prompt at EP 8); a draft model's whole first pass (draft_model_busiest_s) */
    double busiest = 0.0; /* the most decoding sequences a replica holds */
    struct llmroof_batch pre = { 0 }; /* the prefill part the drafter takes (the busiest replica's) */
    double draft_first_s = -1.0;      /* a draft model's first pass under data-parallel attention */
    if (e->rb) {
        const int n = e->sh.attn_dp;
        int most = 0;
        for (int k = 0; k < n; k++) {
            busiest = fmax(busiest, e->rdec[k].seqs);
            const struct llmroof_batch pk = prefill_part(&e->rb[k], &e->rdec[k]), pm = prefill_part(&e->rb[most], &e->rdec[most]);
            if (pk.tokens > pm.tokens || (pk.tokens == pm.tokens && pk.attn_pairs > pm.attn_pairs))
                most = k;
        }
        pre = prefill_part(&e->rb[most], &e->rdec[most]);
    } else {
        pre = prefill_part(&it->b, &it->dec);
    }
    /* the draft loop's passes over the decoding sequences (a replica's: the busiest) run as one
     * graph where the engine replays them so (roofline_draft_effs); passes over prompts alone (an
     * iteration without decodes, the drafter's extend) are steps of their own */
    const double loop_seqs = e->rb ? busiest : (double)it->decode_seqs;
    const bool looping = spec_on(r, e) && it->decode_seqs > 0;
    const struct llmroof_effs loop = roofline_draft_effs(&e->setup.eff, loop_seqs);
    /* a draft model's passes in the loop: its setup at the loop's efficiencies (copied for a draft
     * model only, the other drafters run on the target's setup) */
    struct llmroof_setup dloop;
    const struct llmroof_setup *ds = &e->draft;
    if (sp->kind == SIM_SPEC_DRAFT && looping) {
        dloop = e->draft;
        dloop.eff = roofline_draft_effs(&e->draft.eff, loop_seqs);
        ds = &dloop;
    }
    if (e->rb && e->rdraft) {
        if (sp->kind == SIM_SPEC_DRAFT)
            draft_first_s = draft_model_busiest_s(e, ds, e->rdraft);
        memset(e->rdraft, 0, (size_t)e->sh.attn_dp * sizeof *e->rdraft);
    }
    double t = target_time(e, it); /* clears the replicas' sums */
    if (!drafts_prompts(r, e))
        return t;
    /* ops_build_draft costs the mean replica of its batch: the busiest replica's prompt chunks times
     * the replicas make that mean the busiest's (estimate.c: batch_prefill(Bb x rep, P)) */
    const struct llmroof_batch pre_head = e->rb ? batch_scale(&pre, (double)e->sh.attn_dp) : pre;
    if (it->prefill_seqs > 0) {
        /* the drafter takes the prompts too (estimate's draft_prefill_s): an EAGLE head or MTP
         * module runs its layer over the chunks' hidden states; a draft model prefills its own
         * cache in its first pass, which the decodes' below covers when there are any (a
         * prefill instance has none, and no draft batch: the chunks are its pass). A draft
         * model's shard has no replicas: the busiest replica's own batch, unscaled */
        if (sp->kind == SIM_SPEC_EAGLE || sp->kind == SIM_SPEC_EAGLE3 || sp->kind == SIM_SPEC_MTP)
            t += draft_step_s(e, sp, &r->c->spec_head, &pre_head, 0, true, &e->setup.eff);
        else if (sp->kind == SIM_SPEC_DRAFT && !spec_on(r, e))
            t += sim_step_time(&e->draft, &e->dsh, &pre);
        else if (sp->kind == SIM_SPEC_DRAFT && it->decode_seqs == 0)
            t += draft_first_s >= 0 ? draft_first_s : sim_step_time(&e->draft, &e->dsh, &it->draft);
    }
    if (!spec_on(r, e) || it->decode_seqs == 0)
        return t;
    const struct llmroof_batch dec1 = busiest_draft(e, &it->dec1, busiest);
    /* a draft tree's steps after the first run over the topk expanded nodes of each sequence
     * (SGLang's EAGLE worker: a batch of topk tokens per request per draft step) */
    const struct llmroof_batch later = sp->tokens > 0 && sp->topk > 1 ? ops_batch_widen(&dec1, (double)sp->topk) : dec1;
    switch (sp->kind) {
    case SIM_SPEC_DRAFT: {
        t += draft_first_s >= 0 ? draft_first_s : sim_step_time(ds, &e->dsh, &it->draft);
        /* the later passes: the busiest replica's decoding sequences on its own drafter (dec1
         * holds them times the replicas, for ops_build_draft's mean) */
        const struct llmroof_batch own = e->rb ? batch_scale(&later, 1.0 / (double)e->sh.attn_dp) : later;
        if (sp->k > 1)
            t += (double)(sp->k - 1) * sim_step_time(ds, &e->dsh, &own);
        break;
    }
    case SIM_SPEC_MTP:
    case SIM_SPEC_EAGLE:
    case SIM_SPEC_EAGLE3:
    case SIM_SPEC_MEDUSA:
        t += head_drafts_s(e, sp, &r->c->spec_head, &dec1, &later, &loop);
        break;
    case SIM_SPEC_NONE: break;
    }
    return t + roofline_draft_graph_s(e->setup.gpu, &e->setup.eff, loop_seqs);
}
