/* sim.h - continuous-batching serving simulator with chunked prefill (vLLM-like,
 * iteration-level scheduling; Yu et al. 2022 "Orca", Kwon et al. 2023 "vLLM", Agrawal et al.
 * 2024 "Sarathi-Serve"). Each engine iteration is costed with the same operators, roofline and
 * collectives as `estimate`. Metrics as the background studies define them: docs/metrics.md. */
#ifndef LLMROOF_SIM_H
/* the longest --ramp-up, a day: a ramp beyond the run only delays it */
#define SIM_RAMP_MAX_S 86400.0
#define LLMROOF_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/stop.h"
#include "model/estimate.h"
#include "model/memory.h"
#include "serve/bench_size.h"
#include "serve/workload.h"

enum sim_mode {
    SIM_CLOSED, /* N users drain a pool of requests, thinking between requests */
    SIM_RATE,   /* open loop, Poisson arrivals (MLPerf's server scenario) */
    SIM_TRACE,  /* open loop, arrivals and lengths from a trace */
    SIM_OFFLINE /* every request queued at t = 0 (MLPerf's offline scenario: maximum throughput) */
};

/* How arrivals are spread over the instances of a pool (docs/metrics.md, "A cluster"). */
enum sim_router {
    SIM_ROUTE_ROUND_ROBIN,  /* instance i mod N */
    SIM_ROUTE_LEAST_LOADED, /* fewest requests assigned and unfinished; ties to the lower index */
    SIM_ROUTE_PREFIX        /* the instance of the request's prefix group, unless it is overloaded */
};
const char *sim_router_name(enum sim_router r);

/* Speculative decoding (Leviathan et al. 2023; Chen et al. 2023): a drafter proposes k tokens,
 * the target verifies k + 1 positions per sequence in one pass, each draft token is accepted
 * with probability alpha until the first rejection. */
enum sim_spec_kind {
    SIM_SPEC_NONE,
    SIM_SPEC_DRAFT,  /* a separate draft model from the catalog, on the same GPUs */
    SIM_SPEC_MTP,    /* multi-token-prediction module (DeepSeek-V3): one extra layer per draft token */
    SIM_SPEC_EAGLE,  /* EAGLE head (Li et al. 2024): one decoder layer per draft token */
    SIM_SPEC_MEDUSA, /* Medusa heads (Cai et al. 2024): all k proposals in one layer-sized pass */
    SIM_SPEC_EAGLE3  /* EAGLE-3 head (Li et al. 2025): as EAGLE, with three target layers fused at its
                        first pass and its own vocabulary (draft_vocab, ops_head_shape) */
};
const char *sim_spec_name(enum sim_spec_kind k);

struct sim_spec {
    enum sim_spec_kind kind;
    int k;                          /* tokens proposed per step, >= 1 (a tree: its depth, the draft steps) */
    double alpha;                   /* per-token acceptance probability, [0, 1) (a tree: of the top candidate) */
    const struct llmroof_model *draft; /* SIM_SPEC_DRAFT: the draft model (same GPU and TP, its own
                                          checkpoint's weights: ckpt_draft_dtypes) */
    int topk;                       /* draft tree: candidates per expanded node and nodes expanded per step
                                       (SGLang --speculative-eagle-topk); 0 or 1 with tokens 0: a chain */
    int tokens;                     /* draft tree: positions verified per sequence and step, the target's
                                       own included (SGLang --speculative-num-draft-tokens); 0: a chain of k + 1 */
    long draft_vocab;               /* SIM_SPEC_EAGLE3: the head's vocabulary (draft_vocab_size, at most the
                                       target's; SIM_SPEC_EAGLE3_VOCAB by default) */
};
/* The draft vocabulary of the EAGLE-3 drafts the EAGLE-3 authors released and SpecForge trains
 * (config.json draft_vocab_size: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B; SpecForge's configs) */
#define SIM_SPEC_EAGLE3_VOCAB 32000L

/* The recurrent states a sequence of a model with linear/SSM layers holds beside its own under
 * speculative decoding: one per draft position its verification may roll back to, the verified
 * positions less its own (a chain's k, a tree's tokens - 1); 0 without speculation. vLLM's
 * MambaSpec takes num_speculative_tokens more state blocks a request (v1 mamba spec decoding);
 * SGLang's MambaPool an intermediate_ssm_state_cache of speculative_num_draft_tokens states, one
 * more, which memory_spec_states adds for an engine with spec_state_per_token. */
double sim_spec_state_copies(const struct sim_spec *sp);
/* The positions a verification pass holds per sequence, its own token included: a tree's tokens,
 * or the chain's k + 1; 1 without speculation. */
long sim_spec_verify_tokens(const struct sim_spec *sp);

/* Expected tokens emitted per verification step: (1 - alpha^(k+1)) / (1 - alpha)
 * (Leviathan et al. 2023, equation 1). */
double sim_spec_tokens_per_step(int k, double alpha);

/* Events of the loop between two questions to sim_config.stop: a few milliseconds of work
 * (an event costs about a microsecond), so a stop lands quickly and the question costs nothing. */
#define SIM_STOP_EVENTS 4096u
/* The slowest open-loop rate: one request per 11.6 days. Time is a double in seconds, whose
 * spacing at an arrival time t is t * 2.2e-16: below about 1e-10 requests/s the spacing passes a
 * decode step's milliseconds and every latency rounds to 0, so a bound well above that. */
#define SIM_MIN_RATE_QPS 1e-6
/* The fastest: a million requests a second, some thousand times a large cluster's; --rate and every
 * --sweep-rate point share it */
#define SIM_MAX_RATE_QPS 1e6
#define SIM_SPEC_TREE_MAX_DEPTH 16
#define SIM_SPEC_TREE_MAX_TOPK 16
/* A draft tree's acceptance (EAGLE-2's dynamic draft tree, Li et al. 2024, sections 4.1-4.2):
 * `depth` draft steps, each giving every one of the topk nodes expanded last its topk most likely
 * continuations and expanding the topk of them of highest value (a node's value: the probability
 * that it and all its ancestors are accepted); then the tokens - 1 nodes of highest value are
 * verified. The rank-r candidate (r = 0, 1, ...) is the target's token with probability
 * alpha (1 - alpha)^r (Sequoia's positional acceptance vector, Chen et al. 2024, with every entry
 * alpha). At most one node per depth can be accepted, so P(at least d drafts accepted) =
 * tail[d] = the sum of the verified nodes' values at depth d, and the expected tokens per step
 * are 1 + sum of all verified values. topk 1 and tokens k + 1: the chain, tail[d] = alpha^d.
 * Fills tail[0..depth]; returns 0, -1 for values out of range (depth and topk in [1, 16],
 * 2 <= tokens <= 1 + topk + (depth - 1) topk^2, alpha in [0, 1)), -2 out of memory. */
int sim_spec_tree_tail(int depth, int topk, int tokens, double alpha, double *tail);
/* 1 + the sum of tail[1..depth] (1 when the tree is out of range). */
double sim_spec_tree_tokens_per_step(int depth, int topk, int tokens, double alpha);
/* The expected tokens per step of a speculative-decoding configuration: the tree's (tokens > 0)
 * or the chain's; 1 without speculation. What every header, JSON and estimate reports. */
double sim_spec_expected_tokens(const struct sim_spec *sp);
/* A speculative configuration as estimate's speculative decode (model/estimate.h): the drafter, the
 * positions verified and the expected tokens per step (sim_spec_expected_tokens); an EAGLE-family
 * head's own layer shape `head` (heads 0: the target's). What estimate --spec costs, and what the
 * simulator and the planner take a drafter's memory from (memory_drafter). sp->kind must not be
 * SIM_SPEC_NONE. */
struct llmroof_spec_decode sim_spec_decode(const struct sim_spec *sp, const struct llmroof_draft_head *head);

/* The disaggregated hand-over's link (--kv-link): by default each GPU's own in-node link (NVLink,
 * xGMI or PCIe) where both pools, of one GPU kind, fit one node or NVLink domain, else its network
 * (the catalog's network entry); the network alone; 400 Gb/s InfiniBand NDR (50 GB/s per GPU);
 * PCIe 4.0 x16 (32 GB/s); the in-node link asked for (nvlink, node); or a rate as given. */
enum sim_kv_link_kind { SIM_KV_AUTO = 0, SIM_KV_NET, SIM_KV_IB, SIM_KV_PCIE, SIM_KV_NODE, SIM_KV_RATE };

/* What a hand-over reaches per GPU pair over link `kind` (line_Bps: SIM_KV_RATE's figure, else
 * unused) from a prefill instance of setup p: a line rate at p's link efficiency (eff.comm, at most
 * COMM_PCIE_EFF over PCIe), as every other transfer the model times (docs/metrics.md
 * "Disaggregated serving"); a given rate as it is. The in-node link needs both pools' instances,
 * all of them, in one NVLink domain or node (gpus_total: their GPUs): the router sends a prompt to
 * any decode instance, so beyond one domain most hand-overs cross the network, which is then used
 * (a review of session 65 found 16 GPUs on two nodes handing over at NVLink's rate). */
double sim_kv_link_Bps(enum sim_kv_link_kind kind, double line_Bps, const struct llmroof_setup *p, long gpus_total);
/* Whether link `kind` (SIM_KV_AUTO, SIM_KV_NODE) runs on the in-node link for a deployment of
 * gpus_total GPUs of p's kind. */
bool sim_kv_link_in_domain(enum sim_kv_link_kind kind, const struct llmroof_setup *p, long gpus_total);

/* One pool of identical instances (an aggregated cluster, or one side of a disaggregated one). */
struct sim_pool {
    struct llmroof_setup setup;     /* GPU, TP, dtypes, efficiencies; model NULL: the config's setup */
    int instances;                  /* >= 1 */
    long max_batched_tokens;        /* the pool's token budget of one iteration, where its GPU gives
                                       the engine another default than the run's GPU (sim_pool_engine);
                                       0: the config's max_batched_tokens */
};

struct sim_config {
    struct llmroof_setup setup;      /* model, GPU, TP, dtypes, efficiencies */
    struct llmroof_mem_opts mem;     /* KV capacity (block_size > 1 = paged blocks) */
    long max_batched_tokens;         /* token budget of one iteration */
    long max_seqs;                   /* running sequences at most */
    bool chunked_prefill;            /* split prompts across iterations within the budget */
    bool spec_no_overlap;            /* with speculative decoding the CPU work is not overlapped:
                                        SGLang 0.4 server_args disables the overlap scheduler for EAGLE */
    bool pd_decode_first_token;      /* disaggregated: the client's first token is the decode
                                        instance's first (engine pd_decode_first_token); else the
                                        prefill instance's (DistServe) */
    bool pd_decode_resample;         /* with pd_decode_first_token: the decode instance's first step
                                        samples the first token again (engine pd_decode_resample: vLLM),
                                        one step per output token there; else the decode server
                                        streams the prefill's token as the request joins its running
                                        batch, before that step (SGLang's prebuilt batch) */
    bool pd_decode_prealloc;         /* disaggregated: a request takes its prompt's blocks at its decode
                                        instance on arrival, first come first served, and its prefill
                                        starts only once they are held (engine pd_decode_prealloc:
                                        SGLang's decode PreallocQueue, the prefill's bootstrap queue);
                                        else the decode instance is chosen and its blocks taken when
                                        the prefill ends (vLLM's NixlConnector, DistServe) */
    bool prompt_within_budget;       /* without chunked prefill, a prompt above one rank's token budget
                                        is refused on arrival (engine prompt_within_budget) */
    bool dp_rank_scheduler;          /* with data-parallel attention the budget and the sequence limit
                                        are stated per rank (each rank its own engine, vLLM V1) instead
                                        of for the instance, divided over its ranks (SGLang); every
                                        rank schedules alone either way (sim_rank_share) */
    bool prefill_first;              /* admit waiting prompts first into a prompt-only iteration that
                                        stalls the running decodes (vLLM 0.2-0.5); false: running
                                        sequences first, admissions with the budget left */
    bool alternate_turns;            /* with prefill_first and chunked_prefill: a prompt iteration is
                                        followed by one of the running decoders whenever any wait
                                        (Sarathi-Serve's SimpleChunkingScheduler, its chunked-prefills-
                                        only ablation); false: prompt iterations while prompts wait
                                        (SGLang's chunked request, continued first) */
    bool static_batching;            /* request-level (static) batching, as HuggingFace transformers'
                                        generate() serves a batch: waiting requests are admitted only
                                        when nothing runs, up to max_seqs at once, prefilled whole
                                        in one prompt iteration padded to the longest, and the next
                                        batch waits until the last of them finishes (Orca, OSDI 2022,
                                        calls it request-level scheduling); sim_config_static */
    enum sim_mode mode;
    long concurrency;                /* SIM_CLOSED: users */
    long requests;                   /* SIM_CLOSED, SIM_RATE: requests in the pool */
    double think_min_s, think_max_s; /* SIM_CLOSED: uniform pause between a user's requests */
    double rate_qps;                 /* SIM_RATE: mean arrivals per second */
    bool span_fixed;                 /* SIM_RATE: the drawn gaps scaled so that the first request
                                        arrives at 0 and the last at requests / rate_qps, as DistServe's
                                        benchmark client does (--fixed-span); else a plain Poisson
                                        process, whose span varies by about 1/sqrt(requests) */
    const struct trace_req *trace;   /* SIM_TRACE: sorted by arrival */
    size_t ntrace;
    const struct workload *workload; /* lengths for SIM_CLOSED and SIM_RATE */
    uint64_t seed;                   /* PRNG seed: same seed, same result */
    bool record_iterations;          /* keep per-iteration records (for a Chrome trace) */
    /* Called from the event loop about every 1% of the requests finished, with (finished,
     * all), and once at the end; NULL: never. The library prints nothing: a front end (the CLI
     * when stderr is a terminal) reports it. */
    void (*progress)(void *ctx, long done, long total);
    void *progress_ctx;
    /* Asked every SIM_STOP_EVENTS events of the loop; when it says stop, sim_run returns
     * LLMROOF_ESTOPPED and no result (the server ends a computation whose client left or that
     * ran past its limit). Zero: never asked. */
    struct llmroof_stop stop;
    /* serving features (docs/metrics.md); all off by default */
    int instances;                   /* aggregated instances behind the router (default 1) */
    enum sim_router router;
    bool disaggregated;              /* prefill pool -> KV transfer -> decode pool */
    struct sim_pool prefill, decode; /* disaggregated pools */
    long pd_decode_reserve_tokens;   /* pre-allocation (pd_decode_prealloc): KV tokens kept free per
                                        request the decode instance holds, its own included (SGLang's
                                        num_reserved_decode_tokens, 512); 0: none */
    bool pd_kv_full_window;          /* disaggregated: the pools hold and send every layer's whole
                                        context, sliding-window layers too (engine pd_kv_full_window:
                                        vLLM's KV connectors turn the hybrid KV cache manager off) */
    double sized_kv_requests;        /* > 0: the engine's own benchmark sized max_seqs and
                                        max_batched_tokens (sim_config_offline_sizing: trtllm-bench),
                                        from this estimate of the requests its K/V holds; JSON says so */
    double kv_link_Bps;              /* per GPU pair, prefill -> decode (disaggregated): what a
                                        hand-over reaches (sim_kv_link_Bps) */
    double kv_link_latency_s;        /* fixed cost of one KV transfer */
    bool prefix_cache;               /* reuse cached prefix blocks (vLLM automatic prefix caching) */
    /* where prefix_cache came from, so that the header and JSON say why it is on or off (a
     * reader of "prefix cache off" cannot tell a flag from an engine default); pcache_engine is
     * the profile that decided it, which sim_config_engine applied (NULL: none; the header also
     * names its memory band's defaults from it) */
    enum sim_pcache_source {
        SIM_PCACHE_OFF_DEFAULT = 0,  /* off: the engine (or no engine) does not cache by default */
        SIM_PCACHE_ENGINE,           /* the engine's default (vLLM V1, SGLang) */
        SIM_PCACHE_OPTION,           /* --prefix-cache or --no-prefix-cache */
        SIM_PCACHE_STATIC,           /* static batching keeps no cache across requests */
        SIM_PCACHE_BENCH             /* the engine's own benchmark turns reuse off (trtllm-bench:
                                        enable_block_reuse False) */
    } pcache_source;
    const struct llmroof_engine *pcache_engine;
    /* What a preempted request leaves cached in its pool, where the run caches prefixes (the
     * engine's default or --prefix-cache; --no-prefix-cache and static batching: none). Its
     * blocks stay as evictable cached blocks until allocations evict them, least recently
     * preempted first and each request's tail first, and its re-admission takes the leading ones
     * still there back as a cache hit (sim_sched.c "Preempted requests' cached blocks"). Not
     * tied to a shared prefix: any preempted request has one. */
    enum sim_preempt_keep {
        SIM_KEEP_NONE = 0,           /* its blocks are freed: it recomputes prompt + generated tokens */
        SIM_KEEP_ALL,                /* every full block of its computed tokens (vLLM V1: free() hands
                                        them to the free queue tail first with their hashes; V0 with
                                        prefix caching: core/evictor.py LRUEvictor, least recently
                                        accessed first, the most hashed tokens first among equals) */
        SIM_KEEP_PROMPT              /* its prompt's full blocks only (SGLang: retract_decode's
                                        release_req frees the tail past the radix tree's prefix) */
    } preempt_keep;
    long prefix_tokens;              /* shared prefix at the start of every prompt (0: none) */
    long prefix_groups;              /* distinct prefixes, drawn uniformly (default 1) */
    long max_model_len;              /* context limit as vLLM's --max-model-len: a longer prompt is
                                      * rejected, output stops at it (0: none) */
    long max_concurrent;             /* requests an instance holds at once, queued and running: one
                                      * more is refused at arrival (TGI's --max-concurrent-requests,
                                      * 128 by default: HTTP 429 "Model is overloaded"); 0: none */
    bool user_max_concurrent;        /* --max-concurrent-requests given: the profile's does not replace it */
    struct sim_spec spec;            /* speculative decoding */
    double spec_settle_rate_qps;     /* > 0 with speculative decoding in one aggregated pool: the cluster
                                        rate at which sim_result.spec_settle_s is taken (the planner's,
                                        a margin above its own; sim_stats.c spec_settle_s); 0: not taken */
    struct llmroof_draft_head spec_head; /* EAGLE, EAGLE-3: the head's own layer shape (--spec-draft-config:
                                        ops_head_shape_own); heads 0: the target's. Beside spec, not in
                                        it, so that a struct sim_spec written field by field stays whole */
    double ttft_slo_s, tpot_slo_s;   /* per-request limits for goodput; 0 = no limit */
    int slo_percentile;              /* percentile the limits apply to (MLPerf: 99) */
    bool first_token_only;           /* requests end at their first token (the planner sizes a
                                        prefill pool alone this way) */
    /* the engine's step-time curve and admission (engine profile, sim_config_engine; docs/metrics.md
     * "Engine scheduling"); all 0 / false by default */
    double cpu_seq_s;                /* CPU seconds per scheduled sequence per iteration (scheduling,
                                        sampling, detokenisation, block tables), on top of the fixed
                                        step overhead */
    double worker_seq_s;             /* more CPU seconds per scheduled sequence per iteration for each
                                        Ray worker when an instance spans several GPUs (vLLM before
                                        PR #2221 pickled every sequence's metadata into each worker's
                                        call), part of the scheduling work, [0, 1 ms] */
    double cpu_overlap;              /* share in [0, 1] of the shorter of the CPU work and the GPU step
                                        that runs concurrently (overlap scheduling): iteration = gpu + cpu
                                        - overlap * min(gpu, cpu) */
    double cpu_output_s;             /* engine output processing per scheduled sequence per iteration
                                        (GPU->CPU copy, stop checks, detokenisation), s */
    double cpu_output_overlap;       /* share in [0, 1] of it that runs during the GPU step */
    double kv_watermark;             /* share in [0, 0.2] of the KV blocks a waiting request's admission
                                        must leave free, while others run (vLLM V0's block manager
                                        can_allocate: free - needed >= int(0.01 x total), "to avoid
                                        frequent cache eviction"); 0: none */
    double api_stream_s;             /* API server per streamed chunk (one per scheduled sequence), s */
    double api_first_s;              /* the engine's API server's path beside the forward, added to each
                                        request's arrival (api_first_token_s; 0 with no_api_server) */
    double api_prompt_s;             /* and per prompt token (api_prompt_token_s; 0 with no_api_server) */
    bool no_api_server;              /* requests through the engine's own API (vLLM's LLM class, as
                                        benchmark_throughput.py runs it), no HTTP server: the profile's
                                        api_stream_s is not charged (--no-api-server) */
    double api_overlap;              /* share in [0, 1] of it off the engine's step (own process: 1) */
    bool admit_no_evict;             /* admit a request only when the KV of its whole prompt and output
                                        fits, reserved at admission (TensorRT-LLM GUARANTEED_NO_EVICT):
                                        never preempts; false: vLLM's optimistic admission + preemption */
#define SIM_KV_BLOCKS_MAX 1000000000L
    long kv_blocks;                  /* --kv-blocks: each engine's KV pool holds this many blocks whatever
                                        memory sizes (vLLM's --num-gpu-blocks-override; with data-parallel
                                        attention each replica's, as every vLLM DP rank is an engine of
                                        its own; a pipeline lane takes its share); 0: sized from memory */
    bool user_block, user_mem_util;  /* --block-size / --mem-util given: the engine profile's
                                        kv_block_tokens / mem_util do not replace them */
    bool user_reserve;               /* --reserve given: the profile's reserve_bytes does not replace it */
    bool kv_copy;                    /* engine kv_copy (TGI 0.8): every decode iteration of two or more
                                        sequences moves the batch's K/V once (read and write), a prompt
                                        iteration concatenates the new batch's into it likewise
                                        (sim_kv_copy_s); the pool is halved (mem.kv_copy) */
    bool admit_wait;                 /* DeepSpeed-MII <= 0.1.3's ragged scheduler (ragged_batching.py
                                        schedule_requests): admission as optimistic (the prompt chunk's
                                        blocks), but a running sequence whose next token needs a block
                                        when none is free is skipped and keeps its KV (no preemption);
                                        a step that schedules nothing while requests wait ("Deadlock
                                        detected") flushes every running sequence, which recomputes
                                        its prompt + generated tokens (reset_request_status; MII PR
                                        #403 of Feb 2024 flushes one instead) */
    bool admit_reserve;              /* SGLang's admission (PrefillAdder, schedule_policy.py): a request
                                        is admitted only while its prompt + min(output, 4096) tokens
                                        fit under the free KV less every running request's
                                        min(output left, 4096) times the new-token ratio, which starts
                                        at 0.7, falls by (0.7 - 0.098) / 600 per decode iteration to
                                        0.098 and is set to (generated + 20 per running request) /
                                        (their outputs + 1) after a retraction (SIM_RESERVE_*); its
                                        blocks are taken as optimistic admission takes them */
    long warmup_requests;            /* latency statistics skip the first N requests created (--warmup) */
    double ramp_s;                   /* closed loop (--ramp-up): user u of N waits u/N x ramp_s more
                                        before its first think time, so the users join evenly over
                                        ramp_s instead of within one think time:
                                        one-length requests from users that start together stay in
                                        step for hundreds of cycles (plan --users sets a cycle) */
    double step_scale;               /* multiplies every iteration's time (the capacity band); 0 = 1 */
    int sched_steps;                 /* multi-step scheduling (vLLM --num-scheduler-steps): a decode
                                        iteration that admits nothing starts a run of this many decode
                                        iterations, and waiting requests are admitted only between
                                        runs; 0 or 1: every iteration schedules */
    int recv_interval;               /* SGLang's --scheduler-recv-interval N (SchedulerRecvSkipper): the
                                        scheduler takes new requests off its socket once N decode
                                        iterations have run since it last did, at once after an
                                        iteration with prompt tokens or when idle; a request that
                                        arrives between waits for that point. 0 or 1: every iteration */
    bool per_sequence;               /* the reference path: every running sequence scheduled one by
                                        one each iteration (no lazy decode, sim.c) and every step's
                                        operators built and timed whole (no step tables): the same
                                        result, slower; for tests that check the two agree */
    double waiting_served_ratio;     /* TGI's router: while sequences run, waiting requests are admitted
                                        only as a batch of at least floor(running x ratio) that fits the
                                        token budget and the sequence limit; 0: no gate */
    long max_waiting_steps;          /* with the ratio: from this many iterations since the last
                                        admission (that one counted; TGI --max-waiting-tokens) any
                                        waiting request is admitted */
    long max_paddings;               /* > 0: a prompt-only iteration pads every prompt to the longest
                                        (vLLM 0.2-0.3): its budget counts prompts x longest, the padding
                                        may not exceed this many tokens, and the step computes the
                                        padded tokens; 0: prompts packed */
};

/* The dtypes c's drafter runs at beside its target (ckpt_drafter_dtypes: a draft model its own
 * checkpoint's, an EAGLE-family or Medusa head its own 16 bits, an MTP module the target's); the
 * setup's dtypes without speculation. */
struct llmroof_dtypes sim_drafter_dtypes(const struct sim_config *c);
/* The same for a speculative setting sp (its head's config, head) beside a target at dtypes
 * target: plan's header, which has no run's setup. */
struct llmroof_dtypes sim_spec_drafter_dtypes(const struct sim_spec *sp, const struct llmroof_draft_head *head,
                                             const struct llmroof_dtypes *target);

/* An iteration's time from its GPU time and `seqs` scheduled sequences: the engine's CPU work
 * (scheduling and input preparation, output processing, the API server's streaming), each part
 * overlapped with what runs before it by its own share (docs/metrics.md "The engine's CPU work").
 * The profile's per-sequence costs are the reference host's; cpu_scale (the setup's
 * eff.cpu_scale: 1 / host speed, docs/model.md "Host CPU"; 0 = 1) stretches them. */
double sim_cpu_step_s(const struct sim_config *c, double gpu_s, double seqs, double cpu_scale, int gpus, double tokens);
/* The same where the engine's schedulers hold fewer sequences than the API server streams:
 * data-parallel attention, whose replicas each schedule their own beside the others (SGLang's DP
 * workers, vLLM's DP engine cores), so scheduling and output processing take `engine_seqs`, the
 * busiest replica's, and the API server all `seqs`. */
double sim_cpu_step_rep_s(const struct sim_config *c, double gpu_s, double engine_seqs, double seqs, double cpu_scale,
                          int gpus, double tokens);

/* The Ray workers an instance of `gpus` GPUs calls each step, each pickling the step's sequence
 * metadata (worker_seq_s): every GPU at TP > 1, none at one GPU (vLLM's driver runs its own
 * worker), except that a ray_workers engine (DistServe) calls even its one GPU. */
int sim_ray_workers(const struct sim_config *c, int gpus);

/* How many times the configured budget and sequence limit an instance of `attn_dp` data-parallel
 * attention ranks holds: attn_dp where each rank schedules on its own (dp_rank_scheduler, vLLM
 * V1), else 1 (the limits are the instance's, split over its ranks). */
long sim_rank_factor(const struct sim_config *c, int attn_dp);
/* One data-parallel attention rank's share of a configured `limit` (the token budget or the
 * sequence limit) in an instance of `attn_dp` ranks: every engine schedules each rank alone, each
 * with its own budget and limit. A profile with dp_rank_scheduler (vLLM V1: each DP rank a core
 * engine of its own) states them per rank: the limit itself. Any other states them for the
 * instance and divides them over the ranks, floor(limit / attn_dp), at least 1 (SGLang's
 * server_args.py under enable_dp_attention: chunked_prefill_size //= dp_size; its scheduler's
 * max_running_requests // dp_size per DP worker). attn_dp <= 1: the limit. */
long sim_rank_share(const struct sim_config *c, int attn_dp, long limit);
/* Switches `c` to static batching (sim_config.static_batching) with what it implies: whole
 * prompts first, padded to the longest without a cap, no-evict admission (a batch cannot give
 * back the KV it grows into). A static batch takes no token budget (generate() has none):
 * max_batched_tokens only sizes the activation workspace. */
void sim_config_static(struct sim_config *c);
/* The same for the instance of c->setup (its layout's attention ranks). */
long sim_setup_rank_factor(const struct sim_config *c);
/* The GPUs one instance of `s` spans, tp x pp: the Ray workers of vLLM before v0.2.7
 * (worker_seq_s, sim_cpu_step_s). */
int sim_setup_gpus(const struct llmroof_setup *s);
/* The GPUs one scheduler drives, whose workers its per-worker CPU work counts: with data-parallel
 * attention a replica's (TP x PP: each replica is an engine of its own, SGLang's DP workers, vLLM's
 * DP engine cores, as estimate counts them), else the instance's (sim_setup_gpus). */
int sim_worker_gpus(const struct llmroof_setup *s);
/* Pipeline lanes of one instance of `s` (docs/metrics.md "Pipeline parallelism"): with --pp N > 1
 * a continuous-batching engine keeps N micro-batches of different requests in the stages at once
 * (vLLM's N virtual engines, each its own scheduler, requests and its share of the KV blocks; V1's
 * batch queue of N), so the instance runs N lanes, each an iteration through every stage, whose
 * iterations pass through the stages in order. min(N, max_seqs) lanes (no lane without a
 * sequence); 1 without pipeline parallelism, with static batching (generate() runs one batch) or
 * disaggregated pools. */
int sim_pipeline_lanes(const struct llmroof_setup *s, long max_seqs, bool static_batching, bool disaggregated);
/* The setup of an instance of `pool` (0 aggregated or prefill, 1 decode): a disaggregated pool's own,
 * else the run's. */
const struct llmroof_setup *sim_pool_setup(const struct sim_config *c, int pool);
/* Data-parallel attention replicas of an instance of `s` (layout.c's attn_dp: EP / TP with
 * --dp-attention), each holding its own share of the KV blocks; 1 without. */
int sim_setup_attn_replicas(const struct llmroof_setup *s);
/* Lane `lane`'s share of an instance's sequence limit, or of each replica's KV blocks: the lanes'
 * add up to it (5 over 4: 2, 1, 1, 1). */
long sim_lane_seqs(long max_seqs, int lanes, int lane);
/* SGLang's admission reserve (sim_config.admit_reserve; python/sglang/global_config.py and
 * schedule_policy.py, v0.4): the new-token ratio starts at SGLANG_INIT_NEW_TOKEN_RATIO 0.7,
 * falls to 0.7 x SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14 over SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
 * 600 decode iterations, and after a retraction is re-estimated with retract_decode_steps 20
 * tokens per running request; outputs count at most CLIP_MAX_NEW_TOKENS_ESTIMATION 4096 tokens. */
#define SIM_RESERVE_INIT_RATIO 0.7
#define SIM_RESERVE_MIN_FACTOR 0.14
/* With data-parallel attention SGLang multiplies --schedule-conservativeness by 0.3 (server_args.py,
 * _handle_data_parallelism, 0.3 through 0.5), and the scheduler's starting ratio is the 0.7 times
 * it: 0.21, falling to 0.21 x 0.14 = 0.0294 over the 600 decode iterations. */
#define SIM_RESERVE_DP_CONSERVATIVENESS 0.3
#define SIM_RESERVE_DECAY_STEPS 600.0
#define SIM_RESERVE_RETRACT_STEPS 20.0
#define SIM_RESERVE_CLIP 4096L

/* Applies an engine profile's scheduling fields (CPU cost per sequence and its overlap, admission
 * policy, whole prefills and prefill-first iterations: these two only switched on, so that
 * --no-chunked-prefill stands) and, unless `keep_budget` / `keep_seqs`, its default token budget
 * and sequence limit for GPU `g` (vLLM's larger defaults on GPUs of 70 GiB or more other than the
 * A100; a budget of at least the served context - c->max_model_len, else c->setup.model's - where
 * the profile says so, so set the setup first; above the profile's chunked_prefill_min_context the
 * engine chunks with its chunked budget instead, vLLM 0.5.4-0.6). en NULL: no change. */
void sim_config_engine(struct sim_config *c, const struct llmroof_engine *en, const struct llmroof_gpu *g,
                       bool keep_budget, bool keep_seqs);
/* Under speculative decoding (c->spec set) the engine's own running-sequence limit where the
 * profile states one (spec_max_seqs: SGLang's 48) and none was given (keep_seqs false); called by
 * sim_config_engine, and again by a caller that sets the method after it. */
void sim_config_spec_seqs(struct sim_config *c, const struct llmroof_engine *en, bool keep_seqs);
/* A run through the engine's own benchmark (--no-api-server) of an engine that sizes its server
 * from the dataset (engine offline_sizing: trtllm-bench throughput): its max_batch_size and
 * max_num_tokens from c->workload's mean lengths and the longest prompt of c->requests unless
 * stated (keep_*), chunked context unless --no-chunked-prefill (keep_chunking), CUDA graphs padded
 * up to the batch on the PyTorch backend, no block reuse. Needs c->setup, c->workload, c->mode.
 * What it did (the caller says why it did not where it could have); *out what it chose when
 * APPLIED. serve/bench_size.h has the rule. */
enum sim_sizing {
    SIM_SIZING_NONE,      /* no such engine, or not through its own API */
    SIM_SIZING_APPLIED,
    SIM_SIZING_GIVEN,     /* --max-seqs and --max-batched-tokens both stated: no heuristic */
    SIM_SIZING_NOT_LOAD,  /* timed arrivals (--rate, --trace): no trtllm-bench run has them */
    SIM_SIZING_NOT_POOLS, /* disaggregated pools or several instances */
    SIM_SIZING_NOT_DP     /* attention DP: its sizing not modelled */
};
enum sim_sizing sim_config_offline_sizing(struct sim_config *c, const struct llmroof_engine *en, bool keep_budget,
                                          bool keep_seqs, bool keep_chunking, struct bench_size *out);
/* The memory options engine en's instance takes on setup's GPU and layout, as the simulator sizes
 * its pool (sim_config_engine): its share of the device or of the free memory, its reserve, and
 * the workspace of its token budget and sequence limit, those held per data-parallel attention
 * rank where its ranks schedule alone (vLLM V1). Written into mo, but mem_util where keep_util,
 * the reserve where keep_reserve, the budget and limit where keep_budget / keep_seqs (a stated
 * option stands). en NULL: no change. estimate, memory, report and sweep take it. */
void sim_engine_mem_opts(const struct llmroof_engine *en, const struct llmroof_setup *setup, bool keep_util,
                         bool keep_reserve, bool keep_budget, bool keep_seqs, struct llmroof_mem_opts *mo);
/* The token budget sim_config_engine gives engine en on GPU g in run c (its large-GPU and
 * memory-band defaults, the offline and long-context budgets); c->max_batched_tokens when en is
 * NULL. */
long sim_engine_budget(const struct sim_config *c, const struct llmroof_engine *en, const struct llmroof_gpu *g);
/* A disaggregated pool set up as engine en sets itself up on the pool's GPU, after
 * sim_config_engine: its graph limit at the pool's TP (roofline_graph_max: SGLang's
 * cuda_graph_max_bs by GPU memory) and, unless `keep_budget` (a stated --max-batched-tokens), its
 * token budget where the pool's GPU gives another than the run's GPU (SGLang's chunked_prefill_size
 * by GPU memory, vLLM's larger defaults on large GPUs). en NULL: no change. */
void sim_pool_engine(const struct sim_config *c, struct sim_pool *p, const struct llmroof_engine *en, bool keep_budget);
/* The token budget of an instance of `pool` (0 aggregated or prefill, 1 decode): a disaggregated
 * pool's own where it states one, else the run's. */
long sim_pool_budget(const struct sim_config *c, int pool);
/* vLLM's multi-step scheduling (--num-scheduler-steps N, v0.6.0-0.6.x V0): the scheduler and the
 * input preparation run once per run of N decode iterations, so their CPU work per iteration
 * (cpu_seq_s, set by sim_config_engine first) is 1/N (vLLM's v0.6.0 performance post), and
 * waiting requests join only between runs (sim.c); every iteration's tokens are still processed
 * (cpu_output_s) and streamed (api_stream_s). steps <= 1: no change. */
void sim_config_multi_step(struct sim_config *c, int steps);

/* Defaults: vLLM's max_num_batched_tokens 2048 and max_num_seqs 256, chunked prefill on,
 * block size 16, closed loop of 20 users over 250 requests with 1-3 s think time (the
 * background studies' setup), chat workload, seed 42. Caller sets setup and workload. */
void sim_default_config(struct sim_config *c);

struct sim_request {
    double arrival_s;        /* when the request reached the server */
    double first_sched_s;    /* first iteration that processed it (-1: never) */
    double first_token_s;    /* end of the iteration that emitted its first token */
    double finish_s;         /* end of the iteration that emitted its last token */
    long prompt, output;     /* lengths in tokens */
    int preemptions;         /* times it was preempted and recomputed */
    bool rejected;           /* can never fit the KV cache or max_model_len, or arrived at an
                                instance holding max_concurrent requests: an error */
    bool refused_busy;       /* rejected for max_concurrent (HTTP 429), not for its length */
    long cached_tokens;      /* prompt tokens served from the prefix cache at first admission */
    long group;              /* prefix group (-1: none) */
    int instance;            /* aggregated: its instance; disaggregated: its decode instance */
    int prefill_instance;    /* disaggregated: its prefill instance */
    double kv_ready_s;       /* disaggregated: KV arrived at the decode instance (-1: never moved) */
    double prefill_done_s;   /* disaggregated: end of its prefill at the prefill instance (-1: none);
                                its first token unless the engine streams from the decode instance */
};

/* One instance's share of the run. */
struct sim_instance {
    int pool;                /* 0 aggregated or prefill, 1 decode */
    long requests;           /* requests it served (prefill side: prompts it prefilled) */
    long iterations, preemptions, max_batch;
    long kv_resets;          /* admission "wait": steps that flushed every running sequence */
    long max_load;           /* most requests it held at once on arrival, queued and running (what
                                TGI's --max-concurrent-requests counts) */
    long recomputed_tokens;  /* tokens preempted requests computed again after re-admission */
    long preempt_hit_tokens; /* tokens re-admitted requests found still cached (preempt_keep) */
    double busy_s;           /* time in iterations */
    double utilization;      /* busy / run duration */
    double mean_batch;       /* time-weighted sequences per iteration */
    double kv_util_mean;     /* time-weighted used / all KV blocks */
    long kv_blocks_total;
    long state_blocks;       /* blocks of the KV pool each sequence's recurrent state takes (hybrid
                                models), beside its K/V; 0 without recurrent layers */
    int lanes;               /* pipeline lanes (sim_pipeline_lanes), each with its share of
                                kv_blocks_total (sim_lane_seqs' rule) of its own: a request must
                                fit one lane's */
};

struct sim_iter {
    double start_s, dur_s;   /* iteration start and duration */
    int prefill_seqs;        /* sequences with a prefill chunk */
    int decode_seqs;         /* sequences decoding one token */
    long prefill_tokens;     /* prompt tokens processed */
    double kv_util;          /* used KV blocks / all blocks after the iteration */
    int instance;            /* which instance ran it (under --pp, which of the instances' pipeline
                                lanes: instance x lanes + lane, sim_pipeline_lanes) */
};

struct sim_stats {
    double mean, p50, p90, p95, p99, max; /* seconds; percentiles interpolate linearly */
    long n;                                /* samples */
};

/* The statistic at percentile p: 50, 90, 95, 99, else the maximum. */
double sim_stats_at(const struct sim_stats *s, int p);

/* What a run with SLOs missed, the bits of sim_result.slo_met's rule: the TTFT or TPOT limit at
 * the SLO percentile, rejected or refused requests, an open loop's overload; 0 when met. */
enum { SIM_MISS_TTFT = 1, SIM_MISS_TPOT = 2, SIM_MISS_ERRORS = 4, SIM_MISS_OVERLOAD = 8 };
struct sim_config;
struct sim_result;
unsigned sim_slo_missed(const struct sim_config *c, const struct sim_result *r);

struct sim_result {
    long requests, completed, errors;      /* errors = rejected requests */
    long max_load;                         /* the most requests an instance held at once (sim_instance) */
    long refused_busy;                     /* of the errors, those refused at an instance holding
                                              max_concurrent requests (TGI's 429s) */
    double error_rate;                     /* errors / requests */
    double duration_s;                     /* first arrival to last finish */
    struct sim_stats ttft, tpot, e2e;      /* over completed requests (TPOT: output >= 2) */
    struct sim_stats itl;                  /* inter-token latency: every gap between a request's
                                              consecutive streamed chunks (a step's tokens are one
                                              chunk), pooled over the requests; percentiles from a
                                              histogram of 128 bins an octave (docs/metrics.md) */
    double output_tok_s, request_per_s;    /* over duration_s */
    double input_tok_s;                    /* the completed requests' prompt tokens over duration_s (a
                                              benchmark client's input throughput; total = input +
                                              output) */
    double mean_batch;                     /* time-weighted mean of sequences per iteration */
    long max_batch;                        /* most sequences in one iteration */
    double kv_util_mean;                   /* time-weighted mean of used / all KV blocks */
    long preemptions;                      /* total preemptions (recompute) */
    long kv_resets;                        /* admission "wait": steps that flushed every running sequence */
    long recomputed_tokens;                /* tokens preempted requests computed again: what each had
                                              computed before its preemption less what its re-admission
                                              found cached (sim_config.preempt_keep) */
    long preempt_hit_tokens;               /* tokens re-admitted requests took back from the cache */
    long iterations;                       /* engine iterations */
    double busy_s;                         /* time spent in iterations */
    double mean_in_system;                 /* time-average requests in the system (Little's L) */
    long kv_blocks_total, block_size;      /* KV pool */
    long kv_blocks_memory;                 /* with sim_config.kv_blocks: the blocks memory would have
                                              sized, every instance's together; else kv_blocks_total */
    double kv_capacity_tokens;             /* blocks * block_size */
    double max_batch_at_mean_len;          /* KV ceiling: capacity / mean (prompt + output) of completed requests */
    uint64_t seed;                         /* echoed */
    /* overload (open loop): the arrival window's second half, where a stable server has settled */
    bool open_loop;                        /* rate or trace: an offered rate exists */
    double window_s;                       /* that window's length: half the span of the arrivals, s */
    double offered_rate_qps;               /* arrivals per second over the second half of the arrival window */
    double sustained_rate_qps;             /* completions per second over the same window */
    double queue_growth_per_s;             /* change in requests in the system over that window, per second */
    double capacity_qps;                   /* steady-state service rate bound of the cluster (0: not bounded) */
    double pool_capacity_qps[2];           /* disaggregated: the prefill [0] and decode [1] pools' bounds
                                              (capacity_qps is the lower; 0: not computed) */
    bool pool_link_bound[2];               /* a pool's bound is its KV link's transfers, not its steps */
    double steady_rate_qps;                /* the rate compared with it: the stated rate of a Poisson run,
                                              the window's arrivals of a trace */
    double window_busy_share;              /* the busiest pool's iteration time in that window over its
                                              instances x the window: an overloaded server never pauses */
    double window_lives;                   /* the window's length over the mean life (arrival to last token)
                                              of a completed request: below 3, a server still filling its batch
                                              shows the same growing queue as an overloaded one */
    bool may_be_filling;                   /* overloaded by the completions test over fewer than 3 lives with no
                                              growing queue of requests waiting for their first iteration */
    long requests_to_settle;               /* with may_be_filling: the requests whose window spans 3 mean lives
                                              at the drawn rate, 6 x offered x life (window = n / (2 rate)) */
    bool overloaded;                       /* completions lag arrivals (by 10%, or beyond their noise where
                                              requests wait throughout) while the system grows, the admission
                                              queue grows beyond its noise, or offered > capacity_qps
                                              (sim_stats.c, docs/metrics.md "Overload and goodput") */
    double window_waiting_mean;            /* requests waiting for their first iteration, time-averaged over
                                              the window (Little's L_q = lambda x their mean wait) */
    double window_served_mean;             /* requests admitted and not yet finished, time-averaged over the
                                              window (L_s = lambda x their mean service after admission) */
    bool at_capacity;                      /* not overloaded, but the waiting queue puts the server within
                                              the window's arrival noise of its ceiling: 1 / (1 + waiting)
                                              < 2 / sqrt(window arrivals) (sim_stats.c) */
    bool overloaded_by_refusals;           /* overloaded only by requests refused at the concurrency limit */
    bool overloaded_by_completions;        /* overloaded, and the completions lag arrivals */
    bool overloaded_by_waiting;            /* overloaded by the admission queue's growth (completions not lagging) */
    bool overloaded_by_bound;              /* overloaded by offered > capacity_qps alone: the run is too
                                              short to show the queue that would grow */
    /* with spec_settle_rate_qps: the speculating pool's steady state at that rate (sim_stats.c
     * spec_settle_s), the time a departure from its steady batch takes to decay */
    bool spec_settle_known;                /* taken (speculative decoding, one aggregated pool, a bound) */
    bool spec_settles;                     /* a steady batch within the instance's cap serves that rate */
    double spec_settle_s;                  /* with spec_settles: S / (1 - X dS/dB), s */
    /* SLOs (when given) */
    bool has_slo;
    long within_slo;                       /* completed requests with TTFT and TPOT within the limits */
    double within_slo_share;               /* within_slo / requests (rejected ones miss) */
    double goodput_qps;                    /* within_slo / duration */
    bool slo_met;                          /* TTFT and TPOT at the percentile within the limits, no errors, and
                                              (open loop) not overloaded */
    /* prefix caching */
    double prefix_hit_rate;                /* prompt tokens served from cache / prompt tokens */
    /* speculative decoding */
    double spec_tokens_per_step;           /* decode tokens emitted per sequence-step (1 without) */
    /* disaggregated */
    struct sim_stats kv_transfer;          /* seconds from prefill end to KV at decode, incl. link queue */
    struct sim_stats decode_queue;         /* seconds from KV arrival to first decode step */
    bool has_prealloc_wait;                /* pre-allocation on (sim_config.pd_decode_prealloc, a request's
                                              decode blocks taken before its prefill) */
    struct sim_stats prealloc_wait;        /* with it: seconds from arrival to those blocks taken, the wait
                                              before the prefill may start (in TTFT) */
    struct sim_instance *inst;             /* owned: one per instance (prefill pool first) */
    int ninst;
    struct sim_request *reqs;              /* owned, `requests` entries in arrival order of creation */
    struct sim_iter *iters;                /* owned when recorded, `iterations` entries */
};

/* Cost of one engine iteration holding `b` (prefill chunks and decode tokens). */
double sim_step_time(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct llmroof_batch *b);

int sim_run(const struct sim_config *c, struct sim_result *out, struct llmroof_err *err);

/* The steady-state service rate of one instance in requests per second, an optimistic bound
 * (docs/metrics.md, "Overload and goodput"), for mean prompt P and output O tokens, kv_tokens of
 * KV cache, the sequence limit and the token budget, with the engine's CPU work per sequence. At
 * mean lengths alone it is higher than the simulator's own bound, which takes the decodes' mean
 * context from the workload's spread of lengths (sim_stats.c); the simulator calls a run
 * overloaded when its offered rate exceeds its pools' sum, and the planner skips cluster sizes
 * below this one with a margin. */
enum sim_capacity_kind {
    SIM_CAP_AGGREGATED, /* decodes at the most sequences it holds, with the prompts arriving meanwhile */
    SIM_CAP_PREFILL,    /* prefill-only: whole token budgets of prompt tokens */
    SIM_CAP_DECODE      /* decode-only: the prompts' KV arrives from elsewhere */
};
double sim_instance_capacity_qps(const struct llmroof_setup *s, const struct llmroof_shard *sh, double kv_tokens,
                                 long max_seqs, long budget_tokens, double P, double O, enum sim_capacity_kind kind);

/* Token work of a run (prompt + output tokens of every request, expected for sampled
 * workloads) and a rough upper estimate of its wall-clock time, for refusing runs that would
 * not finish (docs/metrics.md, "Run size"). */
double sim_work_tokens(const struct sim_config *c);
/* A lower bound on the wall-clock seconds sim_run needs: the fewest engine iterations the token
 * work allows (output tokens / the largest possible batch, prompt tokens / the budget) times
 * SIM_ITER_COST_S, the per-iteration cost bench_sim measures. */
#define SIM_ITER_COST_S 0.5e-6
double sim_estimate_wall_s(const struct sim_config *c);
void sim_result_free(struct sim_result *r);

#endif
