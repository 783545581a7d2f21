/* sim_internal.h - the simulator's run state, shared by sim.c, sim_sched.c, sim_cluster.c
 * and sim_stats.c (not installed; only src/serve/ includes it). */
#ifndef LLMROOF_SIM_INTERNAL_H
#define LLMROOF_SIM_INTERNAL_H

#include "serve/sim.h"
#include "base/rng.h"
#include "model/stepcost.h"
#include "model/arch.h"
#include "model/memory.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

/* ------------------------------------------------------------------------ */
/* Containers                                                               */
/* ------------------------------------------------------------------------ */

/* Per-request scheduler state. A running request's copy lives in its instance's run[] array,
 * contiguous, which the per-iteration loops stream through (bench_sim: the loads of a state
 * scattered over all requests were the largest cost); the waiting queue holds it while the
 * request waits, a pending arrival's event while its KV moves. */
struct rstate {
    /* 32-bit counts (check_config caps a run at INT_MAX requests; a context beyond 2^31 tokens
     * fits no KV cache): 64 bytes a sequence instead of 104, so the running array that every
     * iteration streams through and compacts is smaller, and so is each waiting entry */
    int id;         /* the request */
    int computed;   /* tokens whose K/V are in the cache */
    int target;     /* tokens to prefill: the prompt, or prompt + generated after a preemption */
    int generated;  /* output tokens emitted */
    int blocks;     /* KV blocks held by this sequence alone */
    int shared;     /* KV blocks it uses from its prefix group's cached blocks */
    int chunk;      /* tokens scheduled in the current iteration */
    int user;       /* closed loop: the user who sent it */
    int output;     /* the request's output length (a copy: the hot loops stay in this array) */
    int group;      /* its prefix group (a copy), -1: none */
    short stage;    /* 0: new arrival; 1: KV arrived at a decode instance; 2: finished inside a
                       multi-step run, its row kept to the run's end (advance); 3: its blocks
                       pre-allocated at its decode instance, it joins its prefill instance
                       (sim_config.pd_decode_prealloc) */
    short replica;  /* data-parallel attention: the replica holding it (0 without) */
    short lazy;     /* in run[0, nd), advanced lazily: LZ_BLOCKS or LZ_HELD; else 0 (struct engine) */
    short first_pending; /* disaggregated, pd_decode_first_token: the client's first token comes at
                            the end of this sequence's first step on its decode instance */
    double decode_sched_s; /* disaggregated: first decode step at the decode instance (-1: none) */
    double last_emit_s;    /* when its last chunk of tokens was streamed (valid once generated >= 1;
                              a lazy decoder's is its instance's last iteration end) */
    long adm;       /* admission number on its instance: run[] is in increasing order of it */
};

/* A lazily advanced decoder's blocks: LZ_BLOCKS holds exactly the blocks its tokens fill (it takes
 * one whenever its context reaches a multiple of the block size); LZ_HELD holds more, enough for
 * every step to its end (guaranteed-no-evict admission), and takes none. */
/* LZ_WIN (a windowed model's, whose local layers stop growing at their window) takes one when
 * its held tokens' blocks grow (seq_blocks): iterations it keeps in a heap (struct engine lz_win),
 * the next found when it takes one (sim.c lzw_next). */
enum { LZ_BLOCKS = 1, LZ_HELD = 2, LZ_WIN = 3 };

/* A lazy decoder's last step: the iteration (tick) in which it emits its last token; or an
 * LZ_WIN decoder's next step that takes a block. */
struct lz_event {
    long tick;
    long adm;
};

/* A pending arrival: a closed-loop request not yet sent (s.user set), a trace's out-of-order
 * request, or a disaggregated request's KV on its way to a decode instance (s: its state). New
 * requests of an open loop arrive in index order and are read from the request array instead,
 * so the heap holds only what is in flight (issue 24: 16 bytes a request before). */
struct event {
    double t;         /* arrival time */
    long id;          /* request index; ties go to the lower index */
    struct rstate s;  /* its scheduler state so far */
};

/* Grown by doubling; a failed growth sets *oom and drops the entry (the run then fails). */
struct heap {
    struct event *v;
    size_t n, cap;
    bool *oom;
};

static inline bool ev_less(struct event a, struct event b)
{
    return a.t < b.t || (a.t == b.t && a.id < b.id);
}

static inline bool heap_grow(struct heap *h)
{
    size_t cap = h->cap ? 2 * h->cap : 64;
    struct event *v = realloc(h->v, cap * sizeof *v);
    if (!v) {
        *h->oom = true;
        return false;
    }
    h->v = v;
    h->cap = cap;
    return true;
}

static inline void heap_push(struct heap *h, struct event e)
{
    if (h->n == h->cap && !heap_grow(h))
        return;
    size_t i = h->n++;
    h->v[i] = e;
    while (i > 0 && ev_less(h->v[i], h->v[(i - 1) / 2])) {
        struct event t = h->v[i];
        h->v[i] = h->v[(i - 1) / 2];
        h->v[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static inline struct event heap_pop(struct heap *h)
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

/* Double-ended queue of waiting requests' scheduler states (ring buffer), grown by doubling as
 * the queue grows: a request's state lives here while it waits and in its instance's run[] while
 * it runs, so only live requests hold one (issue 24: a copy per request, and a queue of every
 * request's index per instance, before). A failed growth sets *oom and drops the entry. */
struct deque {
    struct rstate *v;
    size_t cap, head, n;
    bool *oom;
};

static inline bool dq_room(struct deque *d)
{
    if (d->n < d->cap)
        return true;
    size_t cap = d->cap ? 2 * d->cap : 16;
    struct rstate *v = malloc(cap * sizeof *v);
    if (!v) {
        *d->oom = true;
        return false;
    }
    for (size_t j = 0; d->cap > 0 && j < d->n; j++) /* n <= cap: an empty deque has nothing to move */
        v[j] = d->v[(d->head + j) % d->cap];
    free(d->v);
    d->v = v;
    d->cap = cap;
    d->head = 0;
    return true;
}

/* A request of replica `rep` joins (+1) or leaves (-1) instance e's waiting queue: its count for
 * dispatch_replica, where the engine keeps one (dp_rank_scheduler); nothing otherwise. */
struct engine;
void sim_wait_count(struct engine *e, int rep, long delta);

static inline void dq_push_back(struct deque *d, const struct rstate *s)
{
    if (dq_room(d))
        d->v[(d->head + d->n++) % d->cap] = *s;
}

static inline void dq_push_front(struct deque *d, const struct rstate *s)
{
    if (!dq_room(d))
        return;
    d->head = (d->head + d->cap - 1) % d->cap;
    d->v[d->head] = *s;
    d->n++;
}

static inline void dq_pop_front(struct deque *d)
{
    d->head = (d->head + 1) % d->cap;
    d->n--;
}

static inline const struct rstate *dq_at(const struct deque *d, size_t pos)
{
    return &d->v[(d->head + pos) % d->cap];
}

/* Removes the entry at `pos` (0: the front), keeping the others' order: the ones before it move
 * back by one, so the cost is pos moves (data-parallel attention admits past a full replica's
 * waiting requests; without it pos is always 0). */
static inline void dq_remove_at(struct deque *d, size_t pos)
{
    for (size_t j = pos; j > 0; j--)
        d->v[(d->head + j) % d->cap] = d->v[(d->head + j - 1) % d->cap];
    dq_pop_front(d);
}

/* A shared prefix's cached blocks in one KV pool: an instance's, or with data-parallel attention
 * one replica's (each replica keeps its own prefix cache: engine.pg, pg_at). */
struct pgroup {
    long blocks;   /* full blocks of the prefix held by the cache */
    long refs;     /* running sequences using them */
    bool resident;
};

/* A preempted request's cached blocks (sim_config.preempt_keep): its entry in its pool's LRU, the
 * order in which the pool's requests were preempted (a deque: eviction takes from the front, the
 * request being admitted is set aside and put back there). An entry whose request has moved on
 * (another stamp, or nothing left cached) is stale and dropped when it reaches the front. */
struct pc_ent {
    long id;    /* the request */
    long stamp; /* runner.pc_clock when it was preempted: its pc_req.stamp while the entry is live */
};

/* One KV pool's preempted requests' cached blocks: an instance's, or with data-parallel attention
 * one replica's (a request's cache lives on its replica). */
struct pc_pool {
    struct pc_ent *v;
    size_t cap, head, n;
    long blocks; /* cached blocks of its preempted requests: held, not free, and reclaimable */
    long live;   /* its entries that are not stale (pc_compact) */
};

/* Per request, once some request was preempted (runner.pcr): counts, so no per-block lists. */
struct pc_req {
    int blocks; /* its full blocks still cached in its pool: block indexes [base, base + blocks) */
    int base;   /* the first of them: its prefix group's shared blocks when it had a hit, else 0 */
    int hwm;    /* the most tokens it ever had computed: a recompute computes them again */
    long stamp; /* its live entry's pc_ent.stamp */
};

/* The spans an incoming KV link is busy, [start, end) in order and disjoint, the latest
 * SIM_LINK_SPANS of them (link_reserve). */
#define SIM_LINK_SPANS 32
struct kv_link {
    double span[SIM_LINK_SPANS][2];
    int n;
};

/* One serving instance: its own KV pool, queue, running set and clock. */
struct engine {
    struct llmroof_setup setup;  /* model on tp x gpu */
    struct llmroof_shard sh;
    struct memory_held held, dheld; /* the target's and a draft model's stages, for held_tokens */
    bool held_ok, dheld_ok;         /* prepared (a windowed target; a draft model) */
    int pool;                    /* 0: aggregated or prefill, 1: decode */
    bool prefill_only;           /* disaggregated prefill instance: requests leave after their first token */
    bool spec;                   /* speculative decoding runs here (not on a prefill-only instance) */
    long total_blocks, free_blocks, bs;
    long mem_blocks;                   /* the blocks memory sizes (total_blocks unless --kv-blocks) */
    bool windowed;               /* the model has sliding-window or chunked layers: a sequence holds
                                    their window's blocks only (seq_blocks) */
    bool full_kv;                /* every layer holds a sequence's whole context, windowed ones too:
                                    a disaggregated pool of an engine whose KV connector turns the
                                    window-aware allocator off (sim_config.pd_kv_full_window) */
    double win_share;            /* sliding windows: the local layers' share of a token's K/V (0 for
                                    chunked ones), which a prefill chunk holds w - 1 + chunk of */
    double kv_extra_share;       /* a drafter's share of a token's K/V in the pool (a draft model, or
                                    an EAGLE/MTP head's one full-attention layer), 0 without */
    bool kv_extra_draft;         /* that share is the draft model's (its own windows), else a head's */
    long state_blocks;           /* blocks one sequence's recurrent state takes, with a speculative run's
                                    states per draft position (sim_spec_state_copies), 0 without
                                    linear/SSM layers */
    long snap_blocks;            /* blocks one state takes: a cached prefix's snapshot of it */
    struct deque waiting;        /* arrived, not running (preempted ones at the front) */
    struct deque handoff;        /* decode instance: prefilled requests waiting for its KV blocks
                                    before their transfer starts (their prefill state: the prefill
                                    instance holds their blocks meanwhile); with pre-allocation
                                    (sim_config.pd_decode_prealloc) arrived requests waiting for
                                    them before their prefill */
    struct rstate *run;          /* running, in admission order: their live state */
    long nrun;
    double now;                  /* end of its last iteration, or when it last became busy */
    double prev_end_s;           /* end of its last iteration (what a lazy decoder last emitted at) */
    double ntr;                  /* SGLang's new-token ratio (sim_config.admit_reserve), per instance */
    double ntr_init;             /* its starting ratio: SIM_RESERVE_INIT_RATIO, times
                                    SIM_RESERVE_DP_CONSERVATIVENESS with data-parallel attention */
    /* decode instance: each attention replica's incoming KV link (sh.attn_dp of them, owned; one
     * without data-parallel attention): a replica's GPUs receive over their own NICs, beside the
     * other replicas' (link_reserve) */
    struct kv_link *links;       /* (kv_lanes of them a replica, replica-major) */
    int kv_lanes;                /* sim_kv_lanes */
    long held_out;               /* prefill instance: blocks its handed-over requests hold until their
                                    K/V has left */
    long held_in;                /* decode instance: blocks set aside for K/V in flight to it (with
                                    pre-allocation, from before the prefill) */
    bool stalled;                /* nothing runs and the queue's head waits for blocks that requests
                                    in flight hold: no step until an arrival or a release */
    double kv_token_gpu_bytes;   /* K/V bytes one token holds on each GPU of a sequence's replica
                                    (memory's kv_bytes_per_token_per_gpu: replicated latents and
                                    KV heads included), what a hand-over moves per receiving GPU */
    double draft_kv_token_gpu_bytes; /* the drafter's K/V a prompt token holds on each GPU (a draft
                                    model's, an EAGLE or MTP head's layer; memory_drafter), 0 without
                                    one or for Medusa: it crosses with the target's (sim_handover_gpu_bytes) */
    double state_gpu_bytes;      /* a sequence's recurrent state (linear-attention, SSM, short-conv
                                    layers) on each GPU of its replica (memory's
                                    state_bytes_per_seq_per_gpu), which a hand-over moves with its K/V */
    long load;                   /* assigned and unfinished requests (least-loaded routing) */
    struct pchunk *pcbuf;        /* max_run + 1 prompt chunks (struct iter's pc) where the engine
                                    runs forward passes (prompt_ubatch_tokens or logits_all_tokens) */
    double win_busy_s;           /* open loop: its iterations' time within the overload window
                                    (runner win0_s..win1_s) */
    struct pgroup *pg;           /* prefix cache per replica and group, sh.attn_dp x pg_groups (pg_at);
                                    NULL when caching is off */
    long pg_groups;              /* prefix groups of each replica's cache (sim_config.prefix_groups) */
    struct pc_pool *pcq;         /* preempted requests' cached blocks per replica (sh.attn_dp entries,
                                    one without; owned); NULL where preempted requests keep nothing
                                    (sim_config.preempt_keep, engine_init) */
    struct llmroof_setup draft;  /* SIM_SPEC_DRAFT: the draft model on the same GPUs */
    struct llmroof_shard dsh;
    double wbatch, wkv;          /* time-weighted sums for the means */
    struct llmroof_batch *rb;    /* data-parallel attention: each replica's share of the iteration
                                    (sh.attn_dp entries, owned); NULL without */
    struct llmroof_batch *rdec;  /* with rb: each replica's decoding sequences in it (struct iter's dec
                                    per replica, whose seqs the drafter's busiest replica counts;
                                    sh.attn_dp entries, owned) */
    bool *rprompt;               /* data-parallel attention under prefill-first scheduling: the
                                    replicas holding prompt work in the iteration being built
                                    (sh.attn_dp entries, owned); NULL without */
    long next_replica;           /* data-parallel attention: round-robin dispatch counter */
    long burst_left;             /* multi-step scheduling: decode iterations left in the current run */
    double recv_s;               /* --recv-interval: when the scheduler last took new requests; one
                                    that arrived later waits (sim_admit_waiting) */
    long recv_count;             /* decode iterations since then (an iteration with prompt tokens
                                    counts the whole interval: SGLang weighs it so) */
    bool decode_turn;            /* sim_config.alternate_turns: the last iteration ran prompt chunks,
                                    so this one runs the decoders */
    long since_admit;            /* waiting-served ratio (TGI): admission calls since the last that
                                    admitted (0: it just admitted) */
    long *rfree;                 /* data-parallel attention: each replica's free KV blocks (sh.attn_dp
                                    entries, owned; they sum to free_blocks); NULL without */
    long replica_blocks;         /* KV blocks of one replica's pool (total_blocks without) */
    unsigned char *rblocked;     /* data-parallel attention: admission scratch, replicas whose head
                                    request waits for blocks (sh.attn_dp entries, owned) */
    long max_run;                /* running sequences at most: max_seqs, or with data-parallel
                                    attention rank_seqs times the replicas */
    long budget;                 /* tokens one iteration may schedule: max_batched_tokens, or with
                                    data-parallel attention rank_budget times the replicas */
    long rank_seqs;              /* data-parallel attention: one replica's running sequences at most
                                    (sim_rank_share of max_seqs); max_run without */
    long rank_budget;            /* data-parallel attention: one replica's tokens per iteration
                                    (sim_rank_share of max_batched_tokens); budget without */
    long *rbud;                  /* data-parallel attention: each replica's budget left this
                                    iteration (sh.attn_dp entries, owned); NULL without */
    long *rquick;                /* data-parallel attention: schedule_running's scratch, each replica's
                                    one-token decodes (attn_dp entries) then their keys (attn_dp more),
                                    summed as integers and added to rb and rdec once (owned) */
    long *rrun;                  /* data-parallel attention: admission scratch, each replica's
                                    running sequences (sh.attn_dp entries, owned); NULL without */
    struct llmroof_batch *rdraft; /* data-parallel attention with speculation: each replica's share
                                    of struct iter's draft (sh.attn_dp entries, owned); NULL without */
    long *rscore;                /* dp_rank_scheduler: dispatch scratch, each replica's load score
                                    (sh.attn_dp entries, owned); NULL otherwise */
    long *rwaitc, *rrunc;        /* dp_rank_scheduler: each replica's waiting requests, kept as they
                                    join and leave `waiting` (sim_wait_count), and its running ones,
                                    counted after each step (sim.c engine_step): dispatch_replica's
                                    scores without a scan of every request (owned); NULL otherwise */
    struct sim_instance st;
    struct stepcost_attn attn;   /* plain attention's time in a mixed step's parts (model/stepcost.h) */
    /* Lazy decode (sim.c, "Lazy decode"): the running sequences run[0, nd) are decoders that
     * take one token every iteration; their computed and generated counts are kept as offsets
     * from the iteration counter `tick` (the real count is the stored one + tick), so an
     * iteration costs them no per-sequence work: their batch sums come from lz_sum, the blocks
     * they take from lz_cross, and only the ones that finish are touched (lz_fin). */
    bool lazy;                   /* this instance advances decoders lazily */
    long tick;                   /* this iteration's number on this instance */
    long nd;                     /* run[0, nd) are lazy */
    long lz_warm;                /* of them, --warmup's requests (left out of the ITL statistic) */
    long long lz_sum;            /* sum of their stored computed offsets */
    long *lz_cross;              /* [bs]: LZ_BLOCKS decoders that take a block when tick % bs is the index */
    struct lz_event *lz_fin;     /* min-heap of last steps by (tick, adm) */
    size_t lz_n, lz_cap;
    struct lz_event *lz_win;     /* min-heap of LZ_WIN decoders' next block by (tick, adm); an
                                    entry of one that left is stale, skipped when due */
    size_t lzw_n, lzw_cap;
    long *lzw_due;               /* this iteration's LZ_WIN decoders that take a block (their slots in
                                    run[], which nothing moves between lzw_collect and sim_lzw_take) */
    long lzw_ndue, lzw_due_cap;
    long adm_next;               /* the next admission number */
    long progress_tick, progress_done, progress_preempt; /* livelock guard (engine_step): the last
                                    iteration that decoded, finished a request or preempted nothing */
};

/* Decode-only iterations' GPU time by their shape: without speculation or data-parallel attention
 * such a step holds one token per sequence, so (sequences, keys read) decide its batch and its
 * time exactly; a direct-mapped table per pool (every instance of a pool has the same setup)
 * costs each shape once until another shape takes its slot. */
#define SIM_MEMO_SLOTS 4096
struct step_memo {
    unsigned long long key; /* (sequences << 43 | keys) + 1; 0: empty */
    double time_s;          /* the step's GPU time (target_time) */
};

/* A decode-only step of n sequences, built once (model/stepcost.h): another context of the same
 * n changes only the operators that attend to it, which stepcost_time re-times alone (plain
 * attention straight from its roofline formula), so a step costs a small fraction of a whole
 * ops_build and roofline_eval and gives their very time. Direct-mapped by n. */
#define SIM_BASE_SLOTS 16
struct step_base {
    long n;                       /* sequences; 0: empty */
    struct stepcost sc;
};
/* The fast path's part of every plain-attention step built (struct stepcost_fast, a tenth of a
 * stepcost), direct-mapped by n over as many slots as the default sequence limit: a batch size
 * seen once is never built again (the 16 whole slots above collide as the batch drifts). */
#define SIM_FAST_SLOTS 256

/* Steps with prefill chunks on a plain-attention setup (stepcost_attn's ok): every operator but
 * attention depends on the step's new tokens and sequences alone (ops_build), so the phase sums
 * around attention (stepcost_sums) are kept by (tokens, sequences), direct-mapped, and such a
 * step costs its three attention formulas when its shape was seen (about three quarters of the
 * steps of a 1 M-request chat run with this many slots). A slot is 80 bytes: the operators after
 * attention with a nonzero time at most SIM_MIX_AFTER (dense models: 4 to 6), no two-batch
 * overlap, and the launch and overhead terms, the same for every step of a pool, kept once.
 * Every 64th reuse of a slot is checked against a whole ops_build and roofline_eval; a mismatch
 * turns the table off. The slots are not cleared (10 MB, which a calloc had set to zero at every
 * run: a plan's short runs spent more time there than in their steps); a bit per slot, 16 kB,
 * says which hold a shape this run kept. */
#define SIM_MIX_SLOTS 65536
#define SIM_MIX_AFTER 7
struct mix_slot {
    int tokens, seqs;             /* the key; 0 tokens: empty */
    unsigned hits;
    int nafter;
    double before_s, after_s[SIM_MIX_AFTER];
};
struct mix_cache {
    bool off;                     /* a check failed: every step built whole */
    bool pool_set[2];
    double launch_s[2], overhead_s[2]; /* each pool's, from its first step kept */
    unsigned long long kept[2 * SIM_MIX_SLOTS / 64]; /* bit i: slot i holds a shape of this run */
    struct mix_slot slot[2 * SIM_MIX_SLOTS]; /* pool 0's, then pool 1's; uninitialised until kept */
};

/* The whole run. */
struct runner {
    const struct sim_config *c;
    struct sim_result *out;
    struct sim_request *R;
    double *dsched;              /* disaggregated: each request's first decode step at its decode
                                    instance (-1: none), for the decode-queue statistic; else NULL */
    struct dres {                /* disaggregated: the decode blocks reserved for each request in */
        int blocks;              /* flight (sim_start_transfers) and the replica holding them */
        short replica;
        double prealloc_wait_s;  /* with pre-allocation (sim_config.pd_decode_prealloc): arrival to its
                                    decode blocks taken, the wait before its prefill may run, which
                                    no other figure shows (the sim_result's prealloc_wait) */
    } *dres;
    long nreq;
    struct engine *E;
    int ne, npre;                /* engines [0, npre): aggregated or prefill pool; [npre, ne): decode */
    int lanes;                   /* pipeline lanes per instance (sim_pipeline_lanes): engines
                                    [k lanes, (k + 1) lanes) are instance k's lanes; 1: none */
    int stages;                  /* lanes > 1: pipeline stages (--pp) */
    double *stage_exit;          /* lanes > 1: when instance k's last micro-batch left stage s,
                                    [k stages + s] */
    double *stage_frac;          /* lanes > 1: stage s's share of a decode-only iteration ([0, pp)) and of
                                    one with prompt tokens ([pp, 2 pp), the LM head not counted:
                                    memory_stage_shares) */
    struct heap arrivals;        /* pending arrivals not read in order from R (struct event) */
    bool in_order;               /* new requests arrive in index order: read from R, not the heap */
    long next_new;               /* in_order: the next new request to arrive */
    bool oom;                    /* a queue or the heap could not grow */
    struct llmroof_rng rng;        /* lengths, think times, arrivals */
    struct llmroof_rng spec_rng;   /* speculative acceptance: its own stream, so lengths stay the same */
    struct llmroof_rng prefix_rng; /* prefix groups: its own stream, so a shared prefix leaves arrivals
                                      and lengths as they were without one */
    long created, done;
    double win0_s, win1_s;       /* open loop: the second half of the arrival window, where overload
                                    is judged (sim_stats.c overload_metrics); equal: none */
    long rr[2];                  /* round-robin counters per pool */
    long cached_len;             /* prefix tokens the cache can serve: whole blocks only */
    struct pc_req *pcr;          /* nreq entries from the first preemption on (sim_sched.c preempt_at;
                                    owned); NULL before */
    long pc_clock;               /* stamps of preempted requests' cache entries, run-wide, so that an
                                    entry left in another instance's LRU never matches */
    double spec_emitted, spec_steps;
    /* inter-token gaps (sim_itl_add): counts and sums in SIM_ITL_BINS bins */
    long *itl_n;
    double *itl_sum;
    double itl_total, itl_max;
    long itl_count;
    double accept_tail[65];      /* P(at least m drafts accepted), m = 0..k: alpha^m along a chain */
    struct step_memo *memo;      /* 2 x SIM_MEMO_SLOTS: pool 0's, then pool 1's; NULL: no memo */
    struct step_base *base;      /* 2 x SIM_BASE_SLOTS, as memo; NULL: every step built whole */
    struct stepcost_fast *fastc; /* 2 x SIM_FAST_SLOTS, as memo; NULL: none */
    struct mix_cache *mixc;      /* NULL: none */
    size_t iter_cap;
};

/* What one iteration holds. */
/* A prompt chunk of an iteration, for an engine that evaluates its batches in forward passes of
 * at most prompt_ubatch_tokens (sim_sched.c passes_time): its tokens, the keys before it, and
 * whether it ends its prompt (the only place llama.cpp asks for logits). */
struct pchunk {
    double n, past;
    bool last;
};

struct iter {
    struct llmroof_batch b;      /* tokens, sequences, attention pairs, keys read */
    struct pchunk *pc;           /* the prompt chunks in scheduling order (the engine's buffer), where
                                    the engine runs passes; NULL: not kept */
    long npc;
    struct llmroof_batch draft;  /* what the drafter's first pass holds (prefill chunks + one token per decode) */
    struct llmroof_batch dec1;   /* one token per decoding sequence: the drafter's later passes */
    struct llmroof_batch dec;    /* the decoding sequences' own work (attention costed apart from
                                    the prefill chunks in a mixed iteration) */
    long budget;                 /* tokens still allowed */
    int nsched, prefill_seqs, decode_seqs;
    long prefill_tokens;
    /* the whole prompts of a padded prompt iteration (sim_config.max_paddings): count, longest,
     * and the sums the padding's attention pairs need (t: a prompt's tokens, a: its context after) */
    double pad_n, pad_max, pad_t, pad_tt, pad_a, pad_ta;
};

static inline long blocks_for(long tokens, long bs)
{
    return bs > 1 ? (tokens + bs - 1) / bs : tokens; /* engine_init makes bs >= 1 */
}

/* Tokens' worth a sequence of n tokens holds in the pool: the target's fullest stage
 * (memory_kv_tokens_held) and, beside it, a drafter's share: a draft model's own held count, an
 * EAGLE or MTP head's full-attention layer all n. */
static inline double held_tokens(const struct engine *e, double n)
{
    const double t = e->full_kv  ? n
                     : e->held_ok ? memory_held_tokens(&e->held, n)
                                  : memory_kv_tokens_held(e->setup.model, &e->sh, n);
    if (!(e->kv_extra_share > 0))
        return t;
    const double x = !e->kv_extra_draft || e->full_kv ? n
                     : e->dheld_ok                    ? memory_held_tokens(&e->dheld, n)
                                                      : memory_kv_tokens_held(e->draft.model, &e->dsh, n);
    return (1.0 - e->kv_extra_share) * t + e->kv_extra_share * x;
}

/* Blocks a sequence of `tokens` tokens holds. A block is bs tokens of every layer's K/V; where
 * the model has sliding-window (or chunked) layers those keep only their window, so the sequence
 * holds memory_kv_tokens_held(tokens) tokens' worth (the mean over the fullest stage's layers, as `memory` counts
 * one sequence): vLLM frees the blocks that leave a window (V0's sliding-window block table for
 * Mistral; V1's hybrid KV-cache manager a group per window size), SGLang's SWA pool likewise.
 * Gemma-3-27B at 8,192 tokens: 10 global layers of 62 hold 8,192, the 52 local ones 1,024 each:
 * 2,181 tokens' worth. Monotone in tokens, so a growing sequence never gives blocks back. */
static inline long seq_blocks(const struct engine *e, long tokens)
{
    if (!e->windowed)
        return blocks_for(tokens, e->bs);
    const double held = held_tokens(e, (double)tokens);
    return blocks_for((long)ceil(held - 1e-9), e->bs); /* 1e-9: a whole count stays whole */
}

/* Tokens' worth a windowed sequence of n tokens holds while the step computing its last `chunk`
 * runs: vLLM frees a local layer's blocks that left the window only up to the tokens computed
 * before the step, so the chunk's queries, which look back w - 1 tokens each, hold
 * min(n, w - 1 + chunk) of them (a whole prompt: all of it, in every layer); released after the
 * step (sim.c). held_tokens(n) for a decode step. */
static inline double held_step_tokens(const struct engine *e, double n, long chunk)
{
    double t = held_tokens(e, n);
    if (e->win_share > 0 && chunk > 1) {
        const double w = (double)e->setup.model->window;
        t += e->win_share * (1.0 - e->kv_extra_share) * (fmin(n, w - 1.0 + (double)chunk) - fmin(n, w));
    }
    return t;
}

/* seq_blocks while the step computing the last `chunk` of the n tokens runs (held_step_tokens). */
static inline long seq_blocks_step(const struct engine *e, long n, long chunk)
{
    if (!e->windowed)
        return blocks_for(n, e->bs);
    return blocks_for((long)ceil(held_step_tokens(e, (double)n, chunk) - 1e-9), e->bs);
}

/* The blocks a sequence of n tokens holds of its own beside `shared` blocks of a cached prefix of
 * `cached` tokens (0 and 0 without one), `chunk` of them computed in this step. A windowed
 * sequence's local layers hold at most a window of its tokens past the prefix, which keeps the
 * prefix's own (the window slides off the prefix: charging seq_blocks(n) less the prefix's held
 * blocks left a 6,000-token Mistral prompt on a 5,000-token prefix nothing of its own). */
static inline long own_blocks(const struct engine *e, long n, long shared, long cached, long chunk)
{
    if (!e->windowed || shared == 0)
        return seq_blocks_step(e, n, chunk) - shared;
    return blocks_for((long)ceil(held_step_tokens(e, (double)(n - cached), chunk) - 1e-9), e->bs);
}

/* Guaranteed-no-evict's reservation (sim_config.admit_no_evict) for a sequence whose next step
 * computes `chunk` tokens from `start`: the most blocks of its own it holds for the rest of its
 * life, so that it never takes another. Its last output token's context (the last one's K/V is never
 * written: - 1), and while prompt is left its last prompt chunk's look-back (a windowed model's
 * chunks hold min(n, w - 1 + chunk) of their tokens in every local layer: held_step_tokens; at
 * most a budget's worth with chunked prefill, `budget` 0 without). The rule that rejects requests
 * no instance can hold counts the same two (sim_cluster.c). Until both were taken apart, the last
 * context took the first chunk's look-back: gpt-oss-20b's 1,539 + 130 tokens reserved
 * ceil(1,667 / 16) = 105 blocks where its peak is the prompt's ceil(1,539 / 16) = 97, so a pool of
 * 97-104 blocks ran nothing ("scheduler made no progress"), and after a prompt's first chunk the
 * reservation fell to the last token's, so a later chunk's look-back preempted. Without windows:
 * blocks_for(the last context), as before. */
static inline long no_evict_blocks(const struct engine *e, const struct rstate *rs, long start, long chunk, long shared,
                                   long cached, long budget)
{
    long last = rs->target + (rs->output - rs->generated) - 1;
    if (last < start + chunk)
        last = start + chunk;
    long peak = own_blocks(e, last, shared, cached, 1);
    if (e->windowed && start < rs->target) {
        long pc = rs->target - start;
        if (budget > 0 && pc > budget)
            pc = budget;
        if (pc < chunk)
            pc = chunk;
        const long p = own_blocks(e, rs->target, shared, cached, pc);
        if (p > peak)
            peak = p;
    }
    return peak;
}

/* KV tokens' worth that `add` more tokens after `from` take: add, or a windowed model's held
 * difference (SGLang's reservation counts the pool so). */
static inline double held_delta(const struct engine *e, long from, long add)
{
    if (!e->windowed)
        return (double)add;
    return held_tokens(e, (double)(from + add)) - held_tokens(e, (double)from);
}

/* KV blocks free to a sequence on `replica`: a data-parallel attention replica holds whole
 * sequences in its own GPU's pool, so only its own free blocks count (one replica full while
 * another has room leaves the full one's requests waiting); without replicas, the instance's. */
/* Group g's cached prefix in replica rep's pool (rep 0 without data-parallel attention). Every
 * replica caches on its own: SGLang's DP workers are schedulers with a radix cache each, vLLM's DP
 * ranks engines with a prefix cache each. */
static inline struct pgroup *pg_at(const struct engine *e, int rep, long g)
{
    return &e->pg[(long)rep * e->pg_groups + g];
}

static inline long kv_free(const struct engine *e, int replica)
{
    return e->rfree ? e->rfree[replica] : e->free_blocks;
}

/* Takes (n > 0) or returns (n < 0) blocks of `replica`'s pool; free_blocks stays the sum. */
static inline void kv_take(struct engine *e, int replica, long n)
{
    e->free_blocks -= n;
    if (e->rfree)
        e->rfree[replica] -= n;
}

static inline bool spec_on(const struct runner *r, const struct engine *e)
{
    (void)r;
    return e->spec;
}

/* Whether the drafter takes this instance's prompts: where it speculates, and on a disaggregated
 * prefill instance (its draft model or head prefills there; Medusa's heads read no prompt). */
static inline bool drafts_prompts(const struct runner *r, const struct engine *e)
{
    return e->spec || (e->prefill_only && r->c->spec.kind != SIM_SPEC_NONE && r->c->spec.kind != SIM_SPEC_MEDUSA);
}


/* The real state of lazy decoder rs at iteration T (computed and generated before its step;
 * blocks before it, or after it took this iteration's block when `stepped`), no longer lazy.
 * The instance's lazy sums are left to the caller (lz_forget). */
static inline void lz_real(const struct engine *e, struct rstate *rs, long T, bool stepped)
{
    rs->computed = (int)(rs->computed + T);
    rs->generated = (int)(rs->generated + T);
    if (rs->lazy == LZ_BLOCKS)
        rs->blocks = (int)(blocks_for(stepped ? rs->computed + 1L : (long)rs->computed, e->bs) + e->state_blocks);
    rs->lazy = 0;
}

/* The block class of a lazy decoder whose stored offset is `off`: it takes a block in the
 * iterations T with off + T a multiple of bs. */
static inline long lz_class(const struct engine *e, long off)
{
    long m = (-off) % e->bs;
    return m < 0 ? m + e->bs : m;
}

/* Removes lazy decoder rs (still in its lazy form, stored offset) from the instance's sums. */
static inline void lz_forget(struct engine *e, const struct rstate *rs)
{
    e->lz_sum -= rs->computed;
    if (rs->lazy == LZ_BLOCKS)
        e->lz_cross[lz_class(e, rs->computed)]--;
}

/* The inter-token histogram: 128 bins an octave (each 1/128 of the octave's span: 0.39-0.78% of
 * the value) from 2^-20 s (about 1 us) to
 * 2^24 s, the lowest and highest catching what falls outside; each keeps its count and the sum of
 * its gaps, so a bin whose gaps are all one value (a lazy iteration's decoders) gives it exactly. */
#define SIM_ITL_OCT_BITS 7
#define SIM_ITL_MIN_EXP (-20)
#define SIM_ITL_BINS (44L << SIM_ITL_OCT_BITS)

/* An instance that preempts through this many iterations in which no sequence decodes and no
 * request finishes stops the run with an error: its scheduler only evicts and re-admits (sim.c
 * engine_step). A real run decodes between its preemptions. */
#define SIM_LIVELOCK_ITERS 1000000L
/* static batching's padding cap and largest prompt budget, tokens (the catalog's bound on both) */
#define SIM_STATIC_MAX_PADDINGS 10000000L

/* sim_stats.c: `count` inter-token gaps of gap_s each (a no-op when the histogram is absent) */
void sim_itl_add(struct runner *r, double gap_s, long count);

/* sim.c: this iteration's LZ_WIN decoders take their blocks (engine_step found them free) */
void sim_lzw_take(struct runner *r, struct engine *e);

/* sim_sched.c */
void sim_release(struct engine *e, struct rstate *rs);
long sim_preempt_last(struct runner *r, struct engine *e, int replica);
void sim_flush_all(struct runner *r, struct engine *e);
void sim_schedule_running(struct runner *r, struct engine *e, struct iter *it);
/* Prefill-first under data-parallel attention: the decodes of the replicas with no prompt work
 * in the iteration (e->rprompt false), which their own schedulers run beside the others' prompts. */
void sim_schedule_idle_replicas(struct runner *r, struct engine *e, struct iter *it);
/* The running sequences still in their prompt alone (a chunked prompt of a prefill-first engine,
 * continued before new prompts are admitted: SGLang's chunked request). */
void sim_schedule_prompts(struct runner *r, struct engine *e, struct iter *it);
/* The running decoders alone (sim_config.alternate_turns: the decode turn). */
void sim_schedule_decodes(struct runner *r, struct engine *e, struct iter *it);
void sim_admit_waiting(struct runner *r, struct engine *e, struct iter *it, double now);
/* SGLang's new-token ratio after an iteration (sim_config.admit_reserve): set from the running
 * requests' progress when it retracted some, else one decay step when it decoded; back to its
 * start when the instance was idle */
void sim_reserve_update(struct engine *e, bool retracted, bool decoded, bool was_idle);
double sim_iter_cost(const struct runner *r, const struct engine *e, const struct iter *it);
/* The GPU time of a steady speculative step of instance e (e->spec): B sequences at context c each
 * verifying the step's positions, beside the prompt work `pre` (a batch, maybe empty), and the
 * drafter's passes over them, as gpu_time costs an iteration but at the mean attention replica
 * (the optimistic side: the capacity bound and a request's shortest life, sim_stats.c). */
double sim_spec_step_s(const struct runner *r, const struct engine *e, double B, double c,
                       const struct llmroof_batch *pre);

/* sim_cluster.c */
void sim_draw_request(struct runner *r, long id);
void sim_push_arrival(struct runner *r, long id, long user);
void sim_user_next(struct runner *r, long user, double t);
void sim_on_arrival(struct runner *r, const struct event *ev);
void sim_hand_over(struct runner *r, struct engine *p, struct rstate *rs, double now);
void sim_start_transfers(struct runner *r, struct engine *d, double now);
/* The bytes the busiest GPU of a hand-over from prefill instance p to decode instance d moves for a
 * prompt whose K/V holds `held` tokens (arch_kv_tokens_held) and whose drafter's cache `drafted`
 * (sim_drafted_tokens): each receiving GPU's share, or each sending GPU's where the prefill side
 * has fewer GPUs per sequence (TP x PP, both sides). */
double sim_handover_gpu_bytes(const struct engine *p, const struct engine *d, double held, double drafted);
/* The hand-overs a replica of pool `pool` (0: prefill, of setup ps; 1: decode, of ds) carries at
 * once (engine.kv_lanes): its GPUs a sequence over the other pool's, at least 1 (link_reserve_pair). */
int sim_kv_lanes(const struct llmroof_setup *ps, const struct llmroof_setup *ds, int pool);
/* The tokens of a `prompt`-token prompt that decode instance d's drafter caches (and a hand-over
 * moves): every one for an EAGLE head's or MTP module's layer, a draft model's held tokens
 * (arch_kv_tokens_held of its windows); 0 without a drafter's cache (none, Medusa). */
double sim_drafted_tokens(const struct runner *r, const struct engine *d, double prompt);

/* An arrival or a release at `t` may let a stalled instance admit again. */
static inline void sim_unstall(struct engine *e, double t)
{
    if (!e->stalled)
        return;
    e->stalled = false;
    if (e->now < t)
        e->now = t;
}

/* sim_stats.c */
int sim_collect_metrics(struct runner *r, struct llmroof_err *err);

/* sim.c */

/* When request id reaches the engine after it arrives: the engine's first-token overhead and, for a
 * served request, its API server's path (sim_config api_first_s), which grows with the prompt
 * (api_prompt_s: tokenising it, hashing its blocks). One rule for both arrival paths. */
static inline double sim_arrival_delay_s(const struct runner *r, long id)
{
    return r->E[0].setup.eff.first_token_s + r->c->api_first_s + r->c->api_prompt_s * (double)r->R[id].prompt;
}

#endif
