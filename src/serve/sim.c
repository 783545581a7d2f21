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
 * The work is split by where its data changes hands: sim_internal.h holds the run's state
 * (requests, instances, the arrival heap); sim_sched.c decides and costs one iteration;
 * sim_cluster.c routes arrivals and hands requests between pools; sim_stats.c turns the
 * per-request records into the result. This file holds the configuration, one instance's
 * iteration, and the phases of a run.
 *
 * sim_run's phases: check the configuration, build the instances, create the arrivals, run
 * the event loop (route arrivals, step instances), collect the metrics. */
#include "serve/sim_internal.h"

#include "model/arch.h"
#include "model/ckpt.h"
#include "model/memory.h"
#include "model/estimate.h"

#include <limits.h>
#include <math.h>
#include <stddef.h>
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
    c->step_scale = 1.0;
}

void sim_config_multi_step(struct sim_config *c, int steps)
{
    if (steps <= 1)
        return;
    c->cpu_seq_s /= (double)steps;
    c->sched_steps = steps;
}

/* The engine's default token budget on GPU g (sim_config_engine), where long_chunked says that the
 * served context ctx is above the profile's chunked_prefill_min_context with chunking on. */
static long engine_budget(const struct sim_config *c, const struct llmroof_engine *en, const struct llmroof_gpu *g,
                          bool long_chunked, long ctx)
{
    /* vLLM (EngineArgs.get_batch_defaults, since about 0.9): GPUs of 70 GiB or more, except the
     * A100 (PR #17885: a larger budget lowered its throughput), get the larger defaults */
    const bool large = g && g->memory_bytes >= 70.0 * 1073741824.0 && strncmp(g->id, "a100", 4) != 0;
    long budget = large && en->large_gpu_max_batched_tokens > 0 ? en->large_gpu_max_batched_tokens : en->max_batched_tokens;
    /* defaults by the GPU's memory band (engine gpu_memory_tiers: SGLang's server_args.py sets
     * chunked_prefill_size, the prefill budget, from the memory nvidia-smi reports, 2048 tokens on
     * 24 GB cards) */
    const struct llmroof_mem_tier *tier = g ? catalog_engine_tier(en, g->memory_bytes) : NULL;
    if (tier && tier->max_batched_tokens > 0)
        budget = tier->max_batched_tokens;
    /* a run through the engine's own API (vLLM's LLM class, UsageContext.LLM_CLASS) takes its own
     * defaults where the profile states them (EngineArgs.get_batch_defaults) */
    if (c->no_api_server) {
        const long off = large && en->offline_large_gpu_max_batched_tokens > 0 ? en->offline_large_gpu_max_batched_tokens
                                                                              : en->offline_max_batched_tokens;
        if (off > 0)
            budget = off;
    }
    /* vLLM 0.2-0.5 (SchedulerConfig): max_num_batched_tokens defaults to max(max_model_len, 2048),
     * so that a whole prompt of the longest context fits one iteration */
    if (long_chunked && en->chunked_max_batched_tokens > 0)
        budget = en->chunked_max_batched_tokens;
    if (en->budget_min_context && !long_chunked && ctx > budget)
        budget = ctx;
    return budget;
}

/* The context the engine serves: --max-model-len, else the model's own (vLLM's max_model_len). */
static long served_context(const struct sim_config *c)
{
    return c->max_model_len > 0 ? c->max_model_len : c->setup.model ? c->setup.model->max_context : 0;
}

/* vLLM 0.5.4-0.6 V0 (arg_utils.py create_engine_config, PR #6666): chunked prefill only above 32K
 * of context, with SchedulerConfig's chunked budget. Unchanged by sim_config_engine, which leaves
 * chunking on in that case and may turn it off only in the other. */
static bool long_context_chunked(const struct sim_config *c, const struct llmroof_engine *en)
{
    return en->chunked_prefill_min_context > 0 && served_context(c) > en->chunked_prefill_min_context &&
           c->chunked_prefill;
}

long sim_engine_budget(const struct sim_config *c, const struct llmroof_engine *en, const struct llmroof_gpu *g)
{
    if (!en)
        return c->max_batched_tokens;
    return engine_budget(c, en, g, long_context_chunked(c, en), served_context(c));
}

void sim_pool_engine(const struct sim_config *c, struct sim_pool *p, const struct llmroof_engine *en, bool keep_budget)
{
    if (!en || !p->setup.gpu)
        return;
    if (en->cuda_graphs)
        p->setup.eff.graph_max = roofline_graph_max(en, p->setup.gpu, p->setup.tp);
    if (keep_budget)
        return;
    const long b = sim_engine_budget(c, en, p->setup.gpu);
    p->max_batched_tokens = b > 0 && b != c->max_batched_tokens ? b : 0;
}

long sim_pool_budget(const struct sim_config *c, int pool)
{
    if (!c->disaggregated)
        return c->max_batched_tokens;
    const long b = pool == 0 ? c->prefill.max_batched_tokens : c->decode.max_batched_tokens;
    return b > 0 ? b : c->max_batched_tokens;
}

void sim_engine_mem_opts(const struct llmroof_engine *en, const struct llmroof_setup *setup, bool keep_util,
                         bool keep_reserve, bool keep_budget, bool keep_seqs, struct llmroof_mem_opts *mo)
{
    if (!en)
        return;
    struct sim_config sc;
    sim_default_config(&sc);
    sc.setup = *setup;
    sim_config_engine(&sc, en, setup->gpu, false, false);
    if (!keep_util) {
        mo->mem_util = sc.mem.mem_util;
        mo->util_engine = sc.mem.util_engine;
    }
    mo->util_static = sc.mem.util_static;
    if (!keep_reserve)
        mo->reserve_bytes = sc.mem.reserve_bytes;
    mo->util_of_free = sc.mem.util_of_free;
    mo->kv_copy = sc.mem.kv_copy;
    /* a profile's own KV block (TensorRT-LLM's PyTorch backend 32 tokens, DeepSpeed-MII 64): the
     * pool in whole blocks, as simulate allocates it, unless --block-size set one (a review: memory
     * had counted tokens beside simulate's blocks). Profiles that state none keep memory's tokens:
     * some are not paged (calm, llama.cpp, HF generate), where simulate's default 16 is its own */
    if (mo->block_size <= 1 && en->kv_block_tokens > 0)
        mo->block_size = en->kv_block_tokens;
    mo->spec_state_per_token = sc.mem.spec_state_per_token;
    if (!keep_budget)
        mo->max_batched_tokens = (double)sc.max_batched_tokens;
    if (!keep_seqs)
        mo->max_seqs = (double)sc.max_seqs;
    /* an engine whose data-parallel attention ranks schedule alone (vLLM V1) holds its budget and
     * sequence limit, stated or default, per rank: the instance's are the ranks' sum, as simulate
     * takes them (engine_init) */
    const double f = (double)sim_setup_rank_factor(&sc);
    mo->max_batched_tokens *= f;
    mo->max_seqs *= f;
}

void sim_config_engine(struct sim_config *c, const struct llmroof_engine *en, const struct llmroof_gpu *g,
                       bool keep_budget, bool keep_seqs)
{
    if (!en)
        return;
    c->cpu_seq_s = en->cpu_seq_s;
    c->worker_seq_s = en->worker_seq_s;
    c->cpu_overlap = en->cpu_overlap;
    c->cpu_output_s = en->cpu_output_s;
    c->cpu_output_overlap = en->cpu_output_overlap;
    c->kv_watermark = en->kv_watermark;
    /* an offline run through the engine's Python API (vLLM's LLM class) streams through no server */
    c->api_stream_s = c->no_api_server ? 0.0 : en->api_stream_s;
    /* and its path to the engine and back before the first token (HTTP, chat template, tokeniser,
     * the hops, the first SSE chunk): engine api_first_token_s, a served request's alone */
    c->api_first_s = c->no_api_server ? 0.0 : en->api_first_token_s;
    c->api_prompt_s = c->no_api_server ? 0.0 : en->api_prompt_token_s;
    c->api_overlap = en->api_overlap;
    c->spec_no_overlap = en->spec_no_overlap;
    /* automatic prefix caching on by default (vLLM V1: CacheConfig.enable_prefix_caching, on from
     * v0.8; SGLang: the radix cache unless --disable-radix-cache): a run whose prompts share a
     * prefix reuses its blocks. Turned on only where the run shares one, since the cache models
     * shared prefixes alone (a run without one has nothing to hit); --prefix-cache, parsed before,
     * stays on whatever the profile says. Static batching keeps no cache (sim_config_static) */
    if (en->prefix_cache && c->prefix_tokens > 0 && !en->static_batching)
        c->prefix_cache = true;
    /* and wherever it caches (a shared prefix or not, --prefix-cache included), a preempted request's
     * blocks stay cached until evicted (sim_sched.c pc_keep): every full block in vLLM's free queue;
     * the prompt alone in SGLang's radix tree, whose retraction frees the rest (its profiles are the
     * ones whose admission is its PrefillAdder's reserve, the scheduler that retracts) */
    if ((en->prefix_cache || c->prefix_cache) && !en->static_batching)
        c->preempt_keep = en->admit_reserve ? SIM_KEEP_PROMPT : SIM_KEEP_ALL;
    /* the reason, unless an option decided it (the caller sets SIM_PCACHE_OPTION after this) */
    c->pcache_engine = en;
    c->pcache_source = en->static_batching ? SIM_PCACHE_STATIC
                       : en->prefix_cache  ? SIM_PCACHE_ENGINE
                                           : SIM_PCACHE_OFF_DEFAULT;
    c->pd_decode_first_token = en->pd_decode_first_token;
    c->pd_decode_resample = en->pd_decode_first_token && en->pd_decode_resample;
    c->pd_decode_prealloc = en->pd_decode_prealloc;
    c->pd_kv_full_window = en->pd_kv_full_window;
    c->pd_decode_reserve_tokens = en->pd_decode_reserve_tokens;
    if (!c->user_max_concurrent)
        c->max_concurrent = en->max_concurrent_requests;
    c->admit_no_evict = en->admit_no_evict;
    c->admit_reserve = en->admit_reserve;
    c->admit_wait = en->admit_wait;
    c->kv_copy = en->kv_copy;
    c->mem.kv_copy = en->kv_copy;
    c->mem.spec_state_per_token = en->spec_state_per_token; /* SGLang: a state per verified token */
    /* the engine's KV pool (DeepSpeed-MII: 64-token blocks, all the free memory but 1 GB) */
    if (en->kv_block_tokens > 0 && !c->user_block)
        c->mem.block_size = en->kv_block_tokens;
    if (en->mem_util > 0 && !c->user_mem_util)
        c->mem.mem_util = en->mem_util;
    /* SGLang: the fraction holds weights and the KV pool only, and its default follows the GPU's
     * memory and the instance's GPUs (memory_eval_layout asks the profile per layout) */
    c->mem.util_static = en->mem_static;
    c->mem.util_engine = !c->user_mem_util && catalog_engine_mem_util_varies(en) ? en : NULL;
    /* what the engine leaves outside its pool (vLLM before PR #2031: nothing beyond its headroom) */
    if (en->has_reserve && !c->user_reserve)
        c->mem.reserve_bytes = en->reserve_bytes;
    /* TensorRT-LLM's and LMDeploy's fraction (theirs or --mem-util) is of the free memory */
    c->mem.util_of_free = en->kv_of_free_memory;
    /* the context the engine serves: --max-model-len, else the model's own (vLLM's max_model_len) */
    const long ctx = served_context(c);
    /* vLLM 0.5.4-0.6 V0 (arg_utils.py create_engine_config, PR #6666): chunked prefill only above
     * 32K of context, with SchedulerConfig's chunked budget; at or below it the whole-prefill,
     * prefill-first scheduler with max(max_model_len, 2048) tokens (the profile's other fields), as
     * also when chunking was switched off before (--no-chunked-prefill) */
    const bool long_chunked = long_context_chunked(c, en);
    if (en->whole_prefill && !long_chunked)
        c->chunked_prefill = false;
    if (en->prefill_first && !long_chunked)
        c->prefill_first = true;
    c->dp_rank_scheduler = en->dp_rank_scheduler;
    c->prompt_within_budget = en->prompt_within_budget;
    c->waiting_served_ratio = en->waiting_served_ratio;
    c->max_waiting_steps = en->max_waiting_steps;
    c->max_paddings = long_chunked ? 0 : en->max_paddings;
    /* vLLM (EngineArgs.get_batch_defaults, since about 0.9): GPUs of 70 GiB or more, except the
     * A100 (PR #17885: a larger budget lowered its throughput), get the larger defaults */
    const bool large = g && g->memory_bytes >= 70.0 * 1073741824.0 && strncmp(g->id, "a100", 4) != 0;
    long seqs = large && en->large_gpu_max_seqs > 0 ? en->large_gpu_max_seqs : en->max_seqs;
    const long budget = engine_budget(c, en, g, long_chunked, ctx);
    /* the graph limit is the engine's on this GPU at this TP (roofline_graph_max: SGLang's
     * cuda_graph_max_bs by GPU memory); it replaces the profile's in the setup's efficiencies, for
     * a caller that built them with roofline_effs */
    if (g && en->cuda_graphs && c->setup.gpu == g && catalog_engine_tier(en, g->memory_bytes))
        c->setup.eff.graph_max = roofline_graph_max(en, g, c->setup.tp);
    if (!keep_seqs && seqs > 0)
        c->max_seqs = seqs;
    /* the runtime's own ceiling (calm: one sequence) bounds a default from elsewhere (the
     * simulator's 256) as well; a stated --max-seqs above it the CLI refuses */
    if (en->max_batch > 0 && c->max_seqs > en->max_batch)
        c->max_seqs = en->max_batch;
    if (!keep_budget && budget > 0)
        c->max_batched_tokens = budget;
    if (en->static_batching)
        sim_config_static(c);
    sim_config_spec_seqs(c, en, keep_seqs);
}

void sim_config_spec_seqs(struct sim_config *c, const struct llmroof_engine *en, bool keep_seqs)
{
    /* SGLang resets max_running_requests to 48 under EAGLE, EAGLE3, NEXTN (MTP) and STANDALONE
     * speculation when none is given (server_args.py _handle_speculative_decoding: "Max running
     * requests is reset to 48 for speculative decoding"; per data-parallel rank 48 // dp_size):
     * the engine's spec_max_seqs (a review: simulate ran 64 sequences where a default server runs
     * 48) */
    if (en && c->spec.kind != SIM_SPEC_NONE && !keep_seqs && en->spec_max_seqs > 0 && c->max_seqs > en->spec_max_seqs)
        c->max_seqs = en->spec_max_seqs;
}

/* The K/V per token trtllm-bench's heuristic counts (tuning.py calc_engine_setting): the whole
 * model's, 2 x attention layers x max(tp, KV heads) x head size x bytes, a rank holding at least one
 * KV head; an MLA model's latent and rotary key once per layer (bench/tuning/heuristics.py) */
static double bench_kv_bytes_per_token(const struct llmroof_model *m, int tp, double kv_bytes)
{
    const double layers = (double)arch_attn_layers(m);
    if (m->kv_lora_rank > 0)
        return layers * (double)(m->kv_lora_rank + m->qk_rope_dim) * kv_bytes;
    const double heads = (double)(m->kv_heads > tp ? m->kv_heads : tp);
    return 2.0 * layers * heads * (double)m->head_dim * kv_bytes;
}

/* Bytes per parameter of the quantisations the heuristic tunes (build.py TUNED_QUANTS: none, FP8,
 * FP8 block scales, NVFP4); 0 for the rest: weight-only int4/int8, a stated --weight-bits, MXFP4 and
 * other checkpoint formats keep BuildConfig's defaults */
static double bench_weight_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    if (ckpt_is_nvfp4(m))
        return 0.5;
    if (m->ckpt_format[0] && strcmp(m->ckpt_format, "fp8") != 0)
        return 0.0;
    if (dt->weight_bits > 0)
        return 0.0;
    switch (dt->weight) {
    case LLMROOF_FP16:
    case LLMROOF_BF16:
    case LLMROOF_FP32: return 2.0; /* an unquantised checkpoint, as the heuristic counts it */
    case LLMROOF_FP8: return 1.0;
    case LLMROOF_FP4: return 0.5;
    default: return 0.0;
    }
}

/* Its bytes per K/V element (tuning.py BYTES_PER_ELEM by kv_cache_quant_algo: FP8 1, NVFP4 0.5,
 * else 2) */
static double bench_kv_elem_bytes(enum llmroof_dtype kv)
{
    return kv == LLMROOF_FP8 ? 1.0 : kv == LLMROOF_FP4 ? 0.5 : 2.0;
}

enum sim_sizing sim_config_offline_sizing(struct sim_config *c, const struct llmroof_engine *en, bool keep_budget,
                                          bool keep_seqs, bool keep_chunking, struct bench_size *out)
{
    if (!en || en->offline_sizing == LLMROOF_OFFLINE_SIZING_NONE || !c->no_api_server || !c->setup.model ||
        !c->setup.gpu)
        return SIM_SIZING_NONE;
    /* trtllm-bench throughput submits a dataset at once or at a concurrency, on one server: no
     * timed arrivals, no disaggregated pools; and its attention-DP sizing (bench/tuning) is not
     * modelled. Those runs keep the profile's limits, said by the caller */
    if (c->mode == SIM_RATE || c->mode == SIM_TRACE)
        return SIM_SIZING_NOT_LOAD;
    if (c->disaggregated || c->instances > 1)
        return SIM_SIZING_NOT_POOLS;
    if (c->setup.layout.dp_attn)
        return SIM_SIZING_NOT_DP;
    if (keep_budget && keep_seqs)
        return SIM_SIZING_GIVEN; /* both stated: trtllm-bench runs no heuristic either */
    double isl = 0, osl = 0;
    if (!c->workload)
        return SIM_SIZING_NONE;
    workload_means(c->workload, &isl, &osl);
    const long isl_max = workload_max_prompt(c->workload, c->requests);
    const bool engine_path = en->offline_sizing == LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH_ENGINE;
    const int pp = c->setup.layout.pp > 1 ? c->setup.layout.pp : 1;
    const struct llmroof_model *m = c->setup.model;
    double wb = bench_weight_bytes(m, &c->setup.dt), params = arch_params(m).total;
    /* a checkpoint of its own format (NVFP4 experts beside bf16 attention, DeepSeek's block fp8):
     * its size, as the heuristic's successor takes it (bench/tuning/heuristics.py
     * checkpoint_size_in_gb), in bytes per parameter */
    if (wb > 0 && m->ckpt_format[0]) {
        struct llmroof_memory mem;
        struct llmroof_err e2 = { 0 };
        const struct llmroof_layout lay = estimate_layout(&c->setup);
        if (memory_eval_layout(m, c->setup.gpu, &lay, &c->setup.dt, 1, &c->mem, &mem, &e2) == 0 && params > 0)
            wb = mem.weights_bytes_total / params;
    }
    const struct bench_size_in in = {
        .gpu_mem_gib = c->setup.gpu->memory_bytes / 1073741824.0,
        .gpus = c->setup.tp * pp,
        .pp = pp,
        .params = params,
        .weight_bytes = wb,
        .kv_bytes_per_token = bench_kv_bytes_per_token(m, c->setup.tp, bench_kv_elem_bytes(c->setup.dt.kv)),
        .isl_mean = isl,
        .osl_mean = osl,
        .isl_max = isl_max,
        /* `trtllm-bench build` sizes the engine at the heuristic's own 0.95; the PyTorch path passes
         * --kv_cache_free_gpu_mem_fraction, 0.90 */
        .kv_fraction = engine_path ? 0.95 : 0.90,
        /* the PyTorch path raises max_num_tokens to the longest input + max_batch_size unless the
         * YAML turns chunked prefill on (benchmark/utils/general.py get_settings reads
         * enable_chunked_prefill, not the CLI's chunking flag) */
        .isl_floor = !engine_path,
        .default_batch = en->max_seqs > 0 ? en->max_seqs : 2048,
        .default_tokens = en->max_batched_tokens > 0 ? en->max_batched_tokens : 8192,
    };
    const struct bench_size s = bench_size_trtllm(&in);
    /* max_batch_size is per micro-batch (TensorRT-LLM's max_num_sequences = pp x max_batch_size):
     * each pipeline lane runs it, where c->max_seqs is the instance's over its lanes */
    if (!keep_seqs)
        c->max_seqs = s.max_batch * pp;
    if (!keep_budget)
        c->max_batched_tokens = s.max_tokens;
    /* chunked context: the engine path's default (ExecutorSettingsConfig.chunking True in the first
     * releases, the tensorrt backend's again from PR #6582/#6956), and throughput.py's CLI default
     * (--enable_chunked_context/--disable_chunked_context, True) for every backend from PR #6582
     * (TensorRT-LLM 1.0's release branch turned it off for the PyTorch backend again, PR #6956:
     * --no-chunked-prefill), first come first served */
    if (!keep_chunking) {
        c->chunked_prefill = true;
        c->prefill_first = false;
    }
    if (!engine_path && en->cuda_graphs) {
        /* CudaGraphConfig(enable_padding=True, max_batch_size=max_batch_size): every decode batch
         * up to the batch limit pads to a captured size (cuda_graph_runner.py), captured sizes at
         * most max_num_tokens (PR #4843) */
        const long gb = s.max_batch < c->max_batched_tokens ? s.max_batch : c->max_batched_tokens;
        c->setup.eff.graph_max = (double)gb;
        c->setup.eff.graph_every = 0;
    }
    /* KvCacheConfig(enable_block_reuse=False) in trtllm-bench's settings */
    if (c->pcache_source != SIM_PCACHE_OPTION && c->prefix_cache) {
        c->prefix_cache = false;
        c->pcache_source = SIM_PCACHE_BENCH;
        c->preempt_keep = SIM_KEEP_NONE;
    }
    c->sized_kv_requests = s.tuned && s.kv_requests > 0 ? s.kv_requests : -1.0; /* -1: untuned defaults */
    if (out)
        *out = s;
    return SIM_SIZING_APPLIED;
}

void sim_config_static(struct sim_config *c)
{
    c->static_batching = true;
    c->preempt_keep = SIM_KEEP_NONE; /* nothing is preempted, and generate() caches nothing across requests */
    c->chunked_prefill = false;
    c->prefill_first = true;
    /* generate() pads the batch's prompts to the longest (its attention mask hides the padding,
     * the GEMMs compute it): the padding has no cap */
    c->max_paddings = SIM_STATIC_MAX_PADDINGS;
    /* the batch's K/V grows until its last request ends and nothing can be evicted: it starts
     * only where all of it fits */
    c->admit_no_evict = true;
    c->admit_reserve = false;
    c->admit_wait = false;
}

long sim_rank_factor(const struct sim_config *c, int attn_dp)
{
    return c->dp_rank_scheduler && attn_dp > 1 ? attn_dp : 1;
}

long sim_rank_share(const struct sim_config *c, int attn_dp, long limit)
{
    if (attn_dp <= 1 || c->dp_rank_scheduler)
        return limit;
    return (long)memory_rank_share((double)limit, attn_dp); /* floor, at least 1: memory's workspace's */
}

int sim_setup_gpus(const struct llmroof_setup *s)
{
    /* EP beyond TP is data-parallel attention's replicas, each on GPUs of its own: an ep8+dpa
     * instance at TP 1 is 8 GPUs (counted as 1, it had passed --kv-link nvlink's domain check) */
    return ops_layout_gpus(&s->layout, s->tp);
}

int sim_worker_gpus(const struct llmroof_setup *s)
{
    return s->layout.dp_attn ? s->tp * (s->layout.pp > 1 ? s->layout.pp : 1) : sim_setup_gpus(s);
}

int sim_pipeline_lanes(const struct llmroof_setup *s, long max_seqs, bool static_batching, bool disaggregated)
{
    const int pp = s->layout.pp;
    if (pp <= 1 || static_batching || disaggregated)
        return 1;
    return max_seqs < pp ? (int)(max_seqs > 1 ? max_seqs : 1) : pp; /* no lane without a sequence */
}

const struct llmroof_setup *sim_pool_setup(const struct sim_config *c, int pool)
{
    if (!c->disaggregated)
        return &c->setup;
    const struct llmroof_setup *s = pool == 0 ? &c->prefill.setup : &c->decode.setup;
    return s->model ? s : &c->setup;
}

int sim_setup_attn_replicas(const struct llmroof_setup *s)
{
    return ops_layout_attn_dp(&s->layout, s->tp); /* the stage's GPUs are a multiple of tp */
}

long sim_lane_seqs(long max_seqs, int lanes, int lane)
{
    return max_seqs / lanes + (lane < max_seqs % lanes);
}

long sim_setup_rank_factor(const struct sim_config *c)
{
    return sim_rank_factor(c, ops_layout_attn_dp(&c->setup.layout, c->setup.tp));
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
    case SIM_SPEC_EAGLE3: return "eagle3";
    }
    return "?";
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

/* Lazy decode's limits: offsets from the iteration number stay within an int, and its block
 * classes are one counter per token of a block. */
#define LZ_MAX_TICK (1L << 30)
#define LZ_MAX_BLOCK 65536L

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

/* A sequence that emitted its last token leaves: its record, its blocks, its user. With `hold` it
 * rides out a multi-step run instead (advance): its record is final, its blocks stay. */
static void finish(struct runner *r, struct engine *e, struct rstate *rs, double now, bool hold)
{
    r->R[rs->id].finish_s = now;
    if (hold)
        rs->stage = 2;
    else
        sim_release(e, rs);
    if (r->dsched)
        r->dsched[rs->id] = rs->decode_sched_s; /* for the decode-queue statistic */
    e->load--;
    r->done++;
    sim_user_next(r, rs->user, now);
}

/* ------------------------------------------------------------------------ */
/* Lazy decode                                                              */
/* ------------------------------------------------------------------------ */

/* Most running sequences of most iterations are decoders that take one token, within their
 * blocks or one more, and do not finish: 3.4 G such sequence-steps in a 10 M-request run (issue
 * 24). An instance without speculation, data-parallel attention, prefix caching or a prefill-first
 * scheduler keeps them lazily, at the front of run[] (struct engine): a decoder joins once every
 * sequence before it has (run[] is in admission order, and prefill chunks go to its newest
 * sequences, so the decoders lead), and from then on its counts are offsets from the iteration
 * number. An iteration schedules them all at once (sim_schedule_running), takes the blocks of
 * those whose context reaches a multiple of the block size (counted by that residue), and after
 * it touches only the ones that finish (a heap by their last iteration, in admission order). The
 * order and arithmetic of the per-sequence scheduler are kept: their batch sums are integers,
 * exact in any order, and an iteration whose budget cannot hold them all or whose free blocks
 * cannot serve their new blocks (where the scheduler would stop or preempt midway) first turns
 * them back into ordinary sequences (lz_unlazy_all) and runs the per-sequence scheduler. */

static bool lz_less(struct lz_event a, struct lz_event b)
{
    return a.tick < b.tick || (a.tick == b.tick && a.adm < b.adm);
}

/* A push onto min-heap v of *n events (lz_fin or lz_win) */
static void lz_push(struct runner *r, struct lz_event **v, size_t *n, size_t *cap, struct lz_event ev)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        struct lz_event *nv = realloc(*v, nc * sizeof *nv);
        if (!nv) {
            r->oom = true;
            return;
        }
        *v = nv;
        *cap = nc;
    }
    struct lz_event *h = *v;
    size_t i = (*n)++;
    while (i > 0 && lz_less(ev, h[(i - 1) / 2])) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = ev;
}

static struct lz_event lz_pop(struct lz_event *h, size_t *np)
{
    struct lz_event top = h[0], x = h[--*np];
    size_t i = 0, n = *np;
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        struct lz_event best = x;
        if (l < n && lz_less(h[l], best))
            m = l, best = h[l];
        if (l + 1 < n && lz_less(h[l + 1], best))
            m = l + 1;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    if (n > 0)
        h[i] = x;
    return top;
}

/* The slot of lazy decoder `adm` in run[0, nd) (sorted by admission number), or -1 where none is
 * (it left, or stopped being lazy) */
static long lz_slot(const struct engine *e, long adm)
{
    long lo = 0, hi = e->nd;
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (e->run[mid].adm < adm)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < e->nd && e->run[lo].adm == adm && e->run[lo].id >= 0 ? lo : -1;
}

/* The first iteration in [from, its last] in which LZ_WIN decoder rs (stored offsets) takes a
 * block, -1 for none: its step in iteration t computes token computed + t + 1, whose blocks
 * own_blocks gives (monotone in the tokens, and at most one more a token). A guess from the held
 * tokens' slope lands on it in the steady state (gpt-oss: a block every 2 x 16 tokens); a
 * bisection finds it where the slope changes (the window's edge). */
static long lzw_next(const struct engine *e, const struct rstate *rs, long from)
{
    const long have = rs->blocks - e->state_blocks, off = rs->computed;
    const long last = rs->output - 1L - rs->generated; /* generated + t + 1 = output */
#define LZW_NEED(t) own_blocks(e, off + (t) + 1L, 0, 0, 1)
    if (from > last || LZW_NEED(last) <= have)
        return -1;
    long lo = from, hi = last; /* the answer is in [lo, hi]: NEED(hi) > have */
    const double h0 = held_tokens(e, (double)(off + from + 1L)), slope = held_tokens(e, (double)(off + from + 2L)) - h0;
    if (slope > 0) {
        const double g = (double)from + floor(((double)(have * e->bs) - h0) / slope);
        if (g > (double)from && g < (double)last) {
            long t = (long)g;
            if (LZW_NEED(t) > have) {
                if (LZW_NEED(t - 1) <= have)
                    return t;
                hi = t - 1;
            } else {
                if (LZW_NEED(t + 1) > have)
                    return t + 1;
                lo = t + 2;
            }
        }
    }
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (LZW_NEED(mid) > have)
            hi = mid;
        else
            lo = mid + 1;
    }
#undef LZW_NEED
    return lo;
}

/* This iteration's LZ_WIN decoders that take a block, into lzw_due (the stale entries dropped):
 * their count, which engine_step checks against the free blocks before any is taken. */
static long lzw_collect(struct runner *r, struct engine *e)
{
    e->lzw_ndue = 0;
    while (e->lzw_n && e->lz_win[0].tick <= e->tick) {
        const struct lz_event ev = lz_pop(e->lz_win, &e->lzw_n);
        const long slot = lz_slot(e, ev.adm);
        if (slot < 0)
            continue;
        if (e->lzw_ndue == e->lzw_due_cap) {
            long cap = e->lzw_due_cap ? 2 * e->lzw_due_cap : 64;
            long *v = realloc(e->lzw_due, (size_t)cap * sizeof *v);
            if (!v) {
                r->oom = true;
                return 0;
            }
            e->lzw_due = v;
            e->lzw_due_cap = cap;
        }
        e->lzw_due[e->lzw_ndue++] = slot;
    }
    return e->lzw_ndue;
}

void sim_lzw_take(struct runner *r, struct engine *e)
{
    for (long k = 0; k < e->lzw_ndue; k++) {
        struct rstate *rs = &e->run[e->lzw_due[k]]; /* run[0, nd) keeps its order until the iteration ends */
        kv_take(e, 0, 1);
        rs->blocks++;
        const long t = lzw_next(e, rs, e->tick + 1);
        if (t >= 0)
            lz_push(r, &e->lz_win, &e->lzw_n, &e->lzw_cap, (struct lz_event){ t, rs->adm });
    }
    e->lzw_ndue = 0;
}

/* Every lazy decoder back to its real state at the start of iteration `tick`: each emitted its
 * last chunk at the end of the instance's last iteration. */
static void lz_unlazy_all(struct engine *e)
{
    for (long i = 0; i < e->nd; i++) {
        lz_real(e, &e->run[i], e->tick, false);
        e->run[i].last_emit_s = e->prev_end_s;
    }
    e->nd = 0;
    e->lz_warm = 0;
    e->lz_sum = 0;
    memset(e->lz_cross, 0, (size_t)e->bs * sizeof *e->lz_cross);
    e->lz_n = 0;
    e->lzw_n = 0;
    e->lzw_ndue = 0;
}

/* The lazy decoders whose last step was this iteration's leave, in admission order (the order
 * of run[], which the per-sequence loop would have followed), and run[] closes up. */
static void lz_finish(struct runner *r, struct engine *e, double now)
{
    const long T = e->tick;
    long first = e->nrun;
    while (e->lz_n && e->lz_fin[0].tick <= T) {
        const struct lz_event ev = lz_pop(e->lz_fin, &e->lz_n);
        const long lo = lz_slot(e, ev.adm);
        if (ev.tick < T || lo < 0)
            continue; /* stale: it stopped being lazy, or left */
        struct rstate *rs = &e->run[lo];
        if (rs->generated + T + 1 < rs->output)
            continue; /* stale: a later lazy stretch of the same sequence */
        lz_forget(e, rs);
        lz_real(e, rs, T, true);
        if (rs->id < r->c->warmup_requests)
            e->lz_warm--;
        rs->computed++;
        rs->generated++;
        finish(r, e, rs, now, false);
        rs->id = -1;
        if (lo < first)
            first = lo;
    }
    if (first == e->nrun)
        return;
    long keep = first, nd = e->nd;
    for (long i = first; i < e->nrun; i++) {
        if (e->run[i].id < 0) {
            if (i < e->nd)
                nd--;
            continue;
        }
        e->run[keep++] = e->run[i];
    }
    e->nd = nd;
    e->nrun = keep;
}

/* After an iteration's advance: the sequences after the lazy ones that now decode, and emitted a
 * token in this iteration (so that every gap of theirs to come is one iteration's), join them,
 * from the first on, while each one does. A decoder whose blocks are exactly its tokens' takes
 * one at every multiple of the block size; one that holds more (a guaranteed-no-evict
 * reservation) joins only if they last to its end. */
static void lz_join(struct runner *r, struct engine *e)
{
    const long T0 = e->tick + 1; /* the first iteration they are lazy in */
    while (e->nd < e->nrun) {
        struct rstate *rs = &e->run[e->nd];
        if (rs->computed < rs->target || rs->generated < 1 || rs->shared || rs->last_emit_s != e->now)
            return;
        const long held = rs->blocks - e->state_blocks, left = rs->output - rs->generated;
        short kind;
        if (!e->windowed && held == blocks_for(rs->computed, e->bs))
            kind = LZ_BLOCKS;
        else if (rs->computed + left <= held * e->bs)
            kind = LZ_HELD;
        else if (e->windowed && !rs->shared)
            kind = LZ_WIN; /* (a prefix's sharer returned above) */
        else
            return;
        lz_push(r, &e->lz_fin, &e->lz_n, &e->lz_cap, (struct lz_event){ T0 + left - 1, rs->adm });
        rs->lazy = kind;
        if (rs->id < r->c->warmup_requests)
            e->lz_warm++;
        rs->computed = (int)(rs->computed - T0);
        rs->generated = (int)(rs->generated - T0);
        e->lz_sum += rs->computed;
        if (kind == LZ_BLOCKS)
            e->lz_cross[lz_class(e, rs->computed)]++;
        if (kind == LZ_WIN) {
            const long t = lzw_next(e, rs, T0);
            if (t >= 0)
                lz_push(r, &e->lz_win, &e->lzw_n, &e->lzw_cap, (struct lz_event){ t, rs->adm });
        }
        e->nd++;
    }
}

/* Emitted tokens and cache bookkeeping after the iteration; finished requests leave, and a
 * prefill instance hands requests over once their first token is out. The lazy decoders first
 * (lz_finish), then the others as they come. */
static void advance(struct runner *r, struct engine *e, double start, double now)
{
    const struct sim_config *c = r->c;
    if (e->nd > 0) {
        /* every lazy decoder streams one token, one iteration's gap after its last */
        sim_itl_add(r, now - e->prev_end_s, e->nd - e->lz_warm);
        lz_finish(r, e, now);
    }
    long keep = e->nd;
    /* multi-step scheduling (vLLM 0.6 --num-scheduler-steps N): the worker runs the batch it was
     * given for all N steps and the output processor drops the tokens past a sequence's stop
     * (engine/output_processor/multi_step.py truncates them), so a sequence that finishes inside
     * a run keeps its row, its attention and its blocks to the run's end, emitting nothing */
    const bool hold = (c->sched_steps > 1 && e->burst_left > 0 && !spec_on(r, e) && !e->prefill_only &&
                       !c->first_token_only) ||
                      c->static_batching; /* a static batch's finished rows stay to its end */
    for (long i = e->nd; i < e->nrun; i++) {
        struct rstate *rs = &e->run[i];
        if (rs->stage == 2) { /* finished inside the run: its discarded token, then out at the end */
            rs->computed += rs->chunk;
            rs->chunk = 0;
            if (!hold) {
                sim_release(e, rs);
                continue;
            }
            if (keep != i)
                e->run[keep] = *rs;
            keep++;
            continue;
        }
        long id = rs->id;
        struct sim_request *q = &r->R[id];
        if (rs->chunk > 0) {
            if (rs->computed < rs->target) {
                rs->computed += rs->chunk;
                if (e->windowed && rs->chunk > 1) {
                    /* the chunk's look-back blocks leave the window once it is computed (a
                     * guaranteed-no-evict request keeps its reservation for the rest) */
                    const long cached = rs->shared ? r->cached_len : 0;
                    const long keep_b =
                        (c->admit_no_evict ? no_evict_blocks(e, rs, rs->computed, 0, rs->shared, cached,
                                                             c->chunked_prefill ? e->budget : 0)
                                           : own_blocks(e, rs->computed, rs->shared, cached, 1)) +
                        e->state_blocks;
                    if (rs->blocks > keep_b) {
                        kv_take(e, rs->replica, keep_b - rs->blocks);
                        rs->blocks = (int)keep_b;
                    }
                }
                /* an engine that samples the first token from a decode step (TurboMind) emits
                 * nothing at the end of the prefill; a prefill-only instance hands over then */
                if (rs->computed == rs->target && (!e->setup.eff.first_token_decode || e->prefill_only)) {
                    if (rs->generated > 0 && id >= c->warmup_requests) /* a recomputed sequence's next token */
                        sim_itl_add(r, now - rs->last_emit_s, 1);
                    rs->generated++;
                    rs->last_emit_s = now;
                    if (q->first_token_s < 0)
                        q->first_token_s = now;
                }
            } else {
                /* a sequence that has emitted a token has its first-token time: only one that
                 * has not (an engine whose first token comes from a decode step) reads its
                 * record, which is otherwise the only per-step load outside run[] (issue 24) */
                if (rs->generated == 0 && q->first_token_s < 0)
                    q->first_token_s = now;
                /* the decode instance streams the client's first token. An engine whose proxy
                 * dropped the prefill's (vLLM) samples it again in this step, so this step's
                 * first token is not a new one (sim.h pd_decode_resample) and comes at its end.
                 * SGLang's decode server streams the token the prefill sent when the request
                 * joins the running batch: its prebuilt pass runs no forward and streams at once
                 * (disaggregation/decode.py get_new_prebuilt_batch, the scheduler's
                 * process_batch_result_prebuilt -> stream_output), between the decode step
                 * before and this one, which then emits the second token */
                long again = 0;
                if (rs->first_pending) {
                    rs->first_pending = 0;
                    again = c->pd_decode_resample;
                    q->first_token_s = again ? now : start;
                    if (!again && id >= c->warmup_requests)
                        sim_itl_add(r, now - start, 1); /* the second token, one step after the first */
                } else if (rs->generated > 0 && id >= c->warmup_requests) {
                    sim_itl_add(r, now - rs->last_emit_s, 1); /* this step's tokens: one chunk */
                }
                rs->last_emit_s = now;
                long emitted = 1;
                if (spec_on(r, e)) {
                    /* accepted drafts until the first rejection, then the target's own token:
                     * at least m drafts are accepted with probability tail[m] (alpha^m along a
                     * chain; a tree's sum of node values at depth m, sim_spec_tree_tail), so one
                     * uniform u gives j = #{m <= k : u < tail[m]} (no unpredictable branches) */
                    double u = rng_uniform(&r->spec_rng);
                    long j = 0, jmax = rs->output - rs->generated - 1; /* never past the output */
                    if (jmax > c->spec.k)
                        jmax = c->spec.k;
                    for (long m = 1; m <= jmax; m++)
                        j += u < r->accept_tail[m];
                    emitted = j + 1;
                    r->spec_emitted += (double)emitted;
                    r->spec_steps += 1;
                }
                rs->computed += emitted;
                rs->generated += emitted - again;
            }
            rs->chunk = 0;
            /* the first sequence to compute a prefix's full blocks leaves them in the cache */
            if (e->pg && rs->group >= 0 && r->cached_len > 0 && rs->shared == 0 &&
                !pg_at(e, rs->replica, rs->group)->resident && rs->computed >= r->cached_len) {
                struct pgroup *pg = pg_at(e, rs->replica, rs->group); /* in its replica's pool */
                /* recurrent layers cannot resume from per-token blocks: the prefix also keeps a
                 * snapshot of the state at its end (state_blocks more), when there is room */
                const long tok = (e->windowed ? (long)floor(held_tokens(e, (double)r->cached_len) + 1e-9)
                                              : r->cached_len) / e->bs,
                           snap = e->snap_blocks;
                if (snap <= kv_free(e, rs->replica)) {
                    kv_take(e, rs->replica, snap);
                    pg->blocks = tok + snap;
                    pg->refs = 1;
                    pg->resident = true;
                    rs->blocks -= tok;
                    rs->shared = tok;
                }
            }
        }
        /* (a prefill instance whose client streams from the decode instance hands even a
         * one-token request over: the proxy sends it there, and its token comes from there) */
        if ((rs->generated >= rs->output && !(e->prefill_only && c->pd_decode_first_token)) ||
            (c->first_token_only && rs->generated >= 1)) {
            if (c->static_batching) {
                /* generate() keeps computing a finished row (its padding tokens) and returns the
                 * batch together: the row rides out its batch and finishes at its end (below) */
                rs->stage = 2;
                if (keep != i)
                    e->run[keep] = *rs;
                keep++;
                continue;
            }
            finish(r, e, rs, now, hold);
            if (!hold)
                continue;
        }
        if (e->prefill_only && rs->generated >= 1) {
            sim_hand_over(r, e, rs, now);
            if (!r->oom) /* its decode instance may have the blocks now (else event_loop stops) */
                sim_start_transfers(r, &r->E[q->instance], now);
            continue;
        }
        if (keep != i)
            e->run[keep] = *rs;
        keep++;
    }
    e->nrun = keep;
    if (c->static_batching && e->nrun > 0) {
        /* the batch ends when its last row has emitted its last token: every request of it
         * returns then (generate()'s batch result), and the next batch may start */
        long live = 0;
        for (long i = 0; i < e->nrun; i++)
            live += e->run[i].stage != 2;
        if (live == 0) {
            for (long i = 0; i < e->nrun; i++)
                finish(r, e, &e->run[i], now, false);
            e->nrun = 0;
        }
    }
    if (e->lazy)
        lz_join(r, e);
}

static int engine_step_body(struct runner *r, int ei, struct llmroof_err *err);

/* An iteration of instance ei (engine_step_body), then its replicas' running counts for the next
 * arrivals' dispatch (dispatch_replica): the running set changes only in a step, and a count over
 * it is the step's own order of work (its schedule walks every sequence). */
static int engine_step(struct runner *r, int ei, struct llmroof_err *err)
{
    const int rc = engine_step_body(r, ei, err);
    struct engine *e = &r->E[ei];
    if (e->rrunc) {
        memset(e->rrunc, 0, (size_t)e->sh.attn_dp * sizeof *e->rrunc);
        for (long i = 0; i < e->nrun; i++)
            e->rrunc[e->run[i].replica]++;
    }
    return rc;
}

static int engine_step_body(struct runner *r, int ei, struct llmroof_err *err)
{
    const struct sim_config *c = r->c;
    struct engine *e = &r->E[ei];
    /* a pipeline lane's iteration enters the first stage when the instance's previous one has
     * left it: the lane waits (no iteration now; the event loop calls it again at that time, after
     * the arrivals before it) */
    if (r->lanes > 1 && e->now < r->stage_exit[(ptrdiff_t)(ei / r->lanes) * r->stages]) {
        e->now = r->stage_exit[(ptrdiff_t)(ei / r->lanes) * r->stages];
        return LLMROOF_OK;
    }
    struct iter it;
    memset(&it, 0, sizeof it);
    it.pc = e->pcbuf;
    /* generate() has no token budget: a static batch takes max_seqs prompts whatever their
     * length (the configured budget sizes the activation workspace only) */
    it.budget = c->static_batching ? SIM_STATIC_MAX_PADDINGS : e->budget;
    if (e->rbud) /* each data-parallel attention replica's own budget (a static batch: none) */
        for (int k = 0; k < e->sh.attn_dp; k++)
            e->rbud[k] = c->static_batching ? it.budget : e->rank_budget;
    /* every running sequence's chunk is 0 here: advance() and sim_preempt_last() clear it.
     * Multi-step scheduling (vLLM's --num-scheduler-steps N, v0.6.0: the scheduler runs once per
     * N decode steps to amortise its CPU work) admits waiting requests only between runs: an
     * iteration that admits nothing starts a run of N decode iterations, the N - 1 after it do
     * not look at the queue (vLLM's multi-step output processing; docs/metrics.md) */
    /* the lazy decoders all take their step only where the budget holds them and the blocks they
     * take are free (else the scheduler stops or preempts among them); an instance so old that
     * the offsets could overflow stops being lazy */
    const long win_due = e->nd > 0 && e->lzw_n ? lzw_collect(r, e) : 0;
    if (r->oom)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the lazy decoders");
    if (e->nd > 0 && (e->nd > e->budget || e->lz_cross[e->tick % e->bs] + win_due > e->free_blocks ||
                      e->tick > LZ_MAX_TICK)) {
        lz_unlazy_all(e);
        e->lazy = e->tick <= LZ_MAX_TICK;
    }
    /* static batching admits a new batch only once the last one has finished */
    const bool may_admit = (c->sched_steps <= 1 || e->burst_left <= 0 || e->nrun == 0) &&
                           (!c->static_batching || e->nrun == 0);
    /* SGLang's --scheduler-recv-interval (SchedulerRecvSkipper.handle, called at the top of each
     * event-loop turn with the last batch's mode: a decode adds 1 to its counter, a prompt
     * iteration 1000, and at the interval it receives and resets): between those points arrivals
     * stay on the socket, so a request waits up to N decode iterations before it can be admitted.
     * Idle, the loop turns without a batch and receives at once */
    if (c->recv_interval > 1 && (e->nrun == 0 || e->recv_count >= c->recv_interval)) {
        e->recv_s = e->now;
        e->recv_count = 0;
    }
    const bool was_idle = e->nrun == 0;
    const long preempted_before = e->st.preemptions;
    if (!may_admit)
        e->burst_left--;
    /* a disaggregated decode instance's arrivals come with their prompt's K/V: they join the running
     * decodes (SGLang's decode server merges its transferred requests into the running batch), so
     * prompt-first scheduling applies where prompts are computed */
    if (!c->prefill_first || e->pool == 1) {
        /* Sarathi-Serve / vLLM's chunked scheduler: running sequences first (decodes and
         * prefill chunks within the budget), then new admissions with what is left (whole
         * prompts only where they fit the rest of the budget without chunking) */
        sim_schedule_running(r, e, &it);
        /* a pass over the running sequences that preempted one admits nothing new (vLLM V1's
         * scheduler schedules waiting requests only `if not preempted_reqs`; V0's chunked one
         * only when its running pass preempted and swapped nothing) */
        if (may_admit && e->st.preemptions == preempted_before)
            sim_admit_waiting(r, e, &it, e->now);
    } else {
        /* vLLM 0.2-0.5's scheduler (scheduler.py _schedule): waiting prompts first (whole without
         * chunking) in a prompt-only iteration that stalls every running decode; decodes run when
         * none is admitted. With chunking (SGLang's get_next_batch_to_run and PrefillAdder), the
         * prompt the budget cut continues first in the next prefill iteration, new prompts after
         * it with the budget left */
        if (e->decode_turn) /* alternate turns: the decoders after a prompt iteration */
            sim_schedule_decodes(r, e, &it);
        if (may_admit && c->chunked_prefill && it.nsched == 0)
            sim_schedule_prompts(r, e, &it);
        /* alternate turns admit only into a prompt iteration that continues no prompt (Sarathi-
         * Serve's _schedule returns once it has scheduled a running prompt's chunk) */
        if (may_admit && !(e->decode_turn && it.decode_seqs > 0) && !(c->alternate_turns && it.prefill_seqs > 0) &&
            e->st.preemptions == preempted_before) /* nor after continuing prompts preempted one */
            sim_admit_waiting(r, e, &it, e->now);
        if (it.nsched == 0)
            sim_schedule_running(r, e, &it);
        else if (e->rprompt && it.prefill_seqs > 0)
            /* data-parallel attention: each replica is its own scheduler (SGLang's DP ranks, one
             * process each, meet only at the MoE layers' all-to-all): a replica with no prompt
             * runs its decodes beside another's prompt iteration, which sets the step
             * (target_time). Until session 33 one replica's prompt stalled every replica's
             * decodes: DeepSeek-V3 on 8 H200s under SGLang at 1,711 users ran 64% of its
             * iterations with no decode at all, and a TPOT of 172 ms over 49 ms steps */
            sim_schedule_idle_replicas(r, e, &it);
        e->decode_turn = c->alternate_turns && it.prefill_seqs > 0;
    }
    if (may_admit && c->sched_steps > 1 && it.prefill_seqs == 0)
        e->burst_left = c->sched_steps - 1; /* a decode run starts */
    if (c->recv_interval > 1)
        e->recv_count = it.prefill_seqs > 0 ? c->recv_interval : e->recv_count + 1;
    if (c->admit_reserve)
        sim_reserve_update(e, e->st.preemptions > preempted_before, it.decode_seqs > 0, was_idle);
    if (c->admit_wait && it.nsched == 0 && e->nrun > 0 && e->held_out == 0 && e->held_in == 0) {
        /* DeepSpeed-MII's "Deadlock detected" (ragged_batching.py schedule_requests): every running
         * sequence waits for a block none frees, so all are flushed (reset_request_status) to
         * recompute prompt + generated tokens, in MII's queue order (sim_flush_all); the queue
         * then admits again */
        sim_flush_all(r, e);
        e->st.kv_resets++;
        e->burst_left = 0; /* nothing runs: a multi-step run ends, admission is open */
        sim_admit_waiting(r, e, &it, e->now);
    }
    if (it.nsched == 0 && (e->held_out > 0 || e->held_in > 0)) {
        /* the queue's head needs blocks that requests in flight between the pools hold: nothing
         * runs until their K/V moves (sim_unstall) */
        e->stalled = true;
        return LLMROOF_OK;
    }
    if (it.nsched == 0) /* cannot happen: a request that fits an empty cache is admitted */
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "scheduler made no progress at t=%.6f s", e->now);
    /* a schedule that only preempts and re-admits (prompts evicting each other's chunks) runs for
     * ever: an instance that preempts through SIM_LIVELOCK_ITERS iterations in which no sequence
     * decodes and no request finishes stops the run (a thrashing one still decodes) */
    if (it.decode_seqs > 0 || r->done != e->progress_done || e->st.preemptions == e->progress_preempt) {
        e->progress_tick = e->tick;
        e->progress_done = r->done;
        e->progress_preempt = e->st.preemptions;
    } else if (e->tick - e->progress_tick > SIM_LIVELOCK_ITERS) {
        return llmroof_err_set(err, LLMROOF_EINTERNAL,
                               "the scheduler preempted %ld times in %ld iterations up to t=%.6f s in which no sequence "
                               "decoded and no request finished: the prompts in flight evict each other (a larger "
                               "KV cache, --mem-util, or fewer sequences, --max-seqs, would let them finish)",
                               e->st.preemptions - e->progress_preempt, e->tick - e->progress_tick, e->now);
    }
    double dt = sim_iter_cost(r, e, &it);
    /* a pipeline lane's micro-batch holds each stage for its share of the pass (docs/model.md
     * section 10: its share of the weights read, the LM head's only in a decode-only step), in
     * order: it enters a stage when it has left the one before and the instance's previous
     * micro-batch has left this one, so no micro-batch overtakes another and the next lane's
     * enters the first stage when this one leaves it. Busy lanes of equal batches complete N
     * iterations of time dt every dt */
    double span = dt;
    if (r->lanes > 1) {
        double *ex = &r->stage_exit[(ptrdiff_t)(ei / r->lanes) * r->stages], t = e->now;
        const double *frac = r->stage_frac + (it.prefill_tokens > 0 ? r->stages : 0);
        for (int s = 0; s < r->stages; s++) {
            t = fmax(t, ex[s]) + dt * frac[s];
            ex[s] = t;
        }
        span = t - e->now; /* its compute dt, and the waits behind the micro-batch before it */
    }
    if (c->record_iterations && record_iter(r, e, ei, &it, span))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the iteration trace");
    r->out->iterations++;
    e->st.iterations++;
    e->wbatch += (double)it.nsched * dt;
    e->wkv += (double)(e->total_blocks - e->free_blocks) / (double)e->total_blocks * dt;
    e->st.busy_s += dt;
    if (r->win1_s > r->win0_s) /* the part of this iteration inside the overload window */
        e->win_busy_s += fmax(0.0, fmin(e->now + dt, r->win1_s) - fmax(e->now, r->win0_s));
    if (it.nsched > e->st.max_batch)
        e->st.max_batch = it.nsched;
    e->now += span;
    advance(r, e, e->now - span, e->now);
    e->prev_end_s = e->now;
    e->tick++;
    if (e->handoff.n) /* blocks this step freed may start transfers to it */
        sim_start_transfers(r, e, e->now);
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
    if (c->sched_steps < 0 || c->sched_steps > 1024)
        return llmroof_err_set(err, LLMROOF_EINPUT, "scheduler steps must be in [0, 1024]");
    if (c->recv_interval < 0 || c->recv_interval > 1024)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the receive interval must be in [0, 1024]");
    if (!(c->cpu_seq_s >= 0 && c->cpu_seq_s <= 1e-3) || !(c->worker_seq_s >= 0 && c->worker_seq_s <= 1e-3) ||
        !(c->cpu_overlap >= 0 && c->cpu_overlap <= 1))
        return llmroof_err_set(err, LLMROOF_EINPUT, "the CPU cost per sequence must be in [0, 1 ms] and its overlap in [0, 1]");
    if (!(c->cpu_output_s >= 0 && c->cpu_output_s <= 1e-3) || !(c->api_stream_s >= 0 && c->api_stream_s <= 1e-3) ||
        !(c->cpu_output_overlap >= 0 && c->cpu_output_overlap <= 1) || !(c->api_overlap >= 0 && c->api_overlap <= 1))
        return llmroof_err_set(err, LLMROOF_EINPUT, "the output and API CPU costs per sequence must be in [0, 1 ms] and their overlaps in [0, 1]");
    if (!(c->step_scale == 0 || (c->step_scale >= 0.1 && c->step_scale <= 10)))
        return llmroof_err_set(err, LLMROOF_EINPUT, "the step-time scale %g must be in [0.1, 10]", c->step_scale);
    if (!(c->waiting_served_ratio >= 0 && c->waiting_served_ratio <= 100) || c->max_waiting_steps < 0 ||
        c->max_paddings < 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "the waiting-served ratio must be in [0, 100] and the maximum wait in steps at least 0");
    /* MII flushes its one scheduler's sequences; per-replica stalls would need a flush per replica */
    if (c->admit_wait && c->setup.layout.dp_attn)
        return llmroof_err_set(err, LLMROOF_EINPUT, "admission 'wait' (DeepSpeed-MII's scheduler) does not combine with "
                                                    "data-parallel attention: MII has none, and its flush would have to be "
                                                    "per attention replica");
    if (c->warmup_requests < 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "--warmup must not be negative");
    if (!(c->ramp_s >= 0 && c->ramp_s <= SIM_RAMP_MAX_S))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--ramp-up must be in [0, %g] s", SIM_RAMP_MAX_S);
    if (c->kv_blocks < 0 || c->kv_blocks > SIM_KV_BLOCKS_MAX)
        return llmroof_err_set(err, LLMROOF_EINPUT, "--kv-blocks must be in [1, %ld] (0: sized from memory)",
                               (long)SIM_KV_BLOCKS_MAX);
    /* one stated pool for every engine: pools of other GPUs or layouts would each need their own */
    if (c->kv_blocks > 0 && c->disaggregated)
        return llmroof_err_set(err, LLMROOF_EINPUT, "--kv-blocks states one engine's KV blocks; the prefill and decode "
                                                    "pools of a disaggregated run size their own from memory");
    if (c->span_fixed && c->mode != SIM_RATE)
        return llmroof_err_set(err, LLMROOF_EINPUT, "--fixed-span scales a Poisson run's arrivals: it needs an open "
                                                    "loop at a rate (--rate or --sweep-rate)");
    /* one request has no gap to scale: it cannot arrive both first at 0 and last at 1 / rate
     * (DistServe's client divides by its zero span), and left unscaled it kept a Poisson draw */
    if (c->span_fixed && c->requests < 2)
        return llmroof_err_set(err, LLMROOF_EINPUT, "--fixed-span scales the gaps between arrivals: it needs "
                                                    "--requests 2 or more");
    switch (c->mode) {
    case SIM_CLOSED:
        if (c->concurrency < 1 || c->requests < 1 || c->think_min_s < 0 || c->think_max_s < c->think_min_s)
            return llmroof_err_set(err, LLMROOF_EINPUT, "closed loop needs concurrency >= 1, requests >= 1 and a think range lo <= hi");
        *nreq = c->requests;
        break;
    case SIM_RATE:
        if (!(c->rate_qps >= SIM_MIN_RATE_QPS) || c->requests < 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "open loop needs a rate of at least %g/s and requests >= 1",
                                   SIM_MIN_RATE_QPS);
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
    /* the scheduler keeps request and user ids in 32 bits (struct rstate) */
    if (*nreq > INT_MAX || (c->mode == SIM_CLOSED && c->concurrency > INT_MAX))
        return llmroof_err_set(err, LLMROOF_EINPUT, "a run holds at most %d requests and users", INT_MAX);
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
        if (sp->tokens > 0) {
            double tail[SIM_SPEC_TREE_MAX_DEPTH + 1];
            if (sp->k > SIM_SPEC_TREE_MAX_DEPTH || sp->topk < 1 || sp->topk > SIM_SPEC_TREE_MAX_TOPK ||
                sim_spec_tree_tail(sp->k, sp->topk, sp->tokens, sp->alpha, tail) == -1)
                return llmroof_err_set(err, LLMROOF_EINPUT,
                                       "a draft tree of depth %d and topk %d verifies 2 to %d tokens (1 + topk + (depth - 1) "
                                       "topk^2), depth and topk at most %d; got %d tokens",
                                       sp->k, sp->topk,
                                       1 + sp->topk + (sp->k - 1) * sp->topk * sp->topk, SIM_SPEC_TREE_MAX_DEPTH, sp->tokens);
        }
        const long verify = sim_spec_verify_tokens(sp);
        /* (a disaggregated run verifies on its decode pool, at that pool's budget) */
        if (sim_pool_budget(c, 1) < verify)
            return llmroof_err_set(err, LLMROOF_EINPUT, "the token budget (%ld) must hold one verification pass of %ld tokens",
                                   sim_pool_budget(c, 1), verify);
    }
    if (c->prefix_tokens < 0 || (c->prefix_tokens > 0 && (c->prefix_groups < 1 || c->prefix_groups > 100000)))
        return llmroof_err_set(err, LLMROOF_EINPUT, "a shared prefix needs 1 to 100000 groups");
    if (c->prefix_tokens > 0 && c->mode == SIM_TRACE)
        return llmroof_err_set(err, LLMROOF_EINPUT, "a shared prefix applies to generated workloads, not to a trace");
    if (c->prefix_tokens > 0 && c->workload && !workload_prefix_on_top(c->workload) &&
        c->prefix_tokens >= workload_min_prompt(c->workload))
        return llmroof_err_set(err, LLMROOF_EINPUT, "the shared prefix of %ld tokens is not shorter than the shortest prompt (%ld tokens)",
                               c->prefix_tokens, workload_min_prompt(c->workload));
    if (c->static_batching) { /* HuggingFace generate()'s batches (sim_config_static) */
        if (c->disaggregated)
            return llmroof_err_set(err, LLMROOF_EINPUT, "static batching (HuggingFace generate()) serves whole requests in "
                                                       "one instance: it cannot run a disaggregated prefill/decode deployment");
        if (!c->admit_no_evict || c->sched_steps > 1 || c->prefix_cache || c->chunked_prefill || !c->prefill_first)
            return llmroof_err_set(err, LLMROOF_EINPUT, "static batching admits whole batches without eviction, chunking, "
                                                       "multi-step scheduling or a prefix cache");
        if (c->spec.kind != SIM_SPEC_NONE && c->max_seqs > 1)
            return llmroof_err_set(err, LLMROOF_EINPUT, "static batching runs speculative (assisted) generation one "
                                                       "request at a time: the sequence limit must be 1");
    }
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
/* An instance whose memory leaves no KV cache, with what took it: a huge --max-batched-tokens
 * sizes a workspace that leaves nothing (DeepSeek-V3 on 8 H200s at 200,000 tokens: 51 GiB a GPU),
 * which "does not fit" alone had blamed on the model. */
static int no_kv_cache(struct llmroof_err *err, const char *which, const struct llmroof_setup *s,
                       const struct llmroof_memory *mem)
{
    const double gib = 1073741824.0;
    const double used = mem->weights_bytes_per_gpu + mem->drafter_bytes_per_gpu + mem->reserve_bytes_per_gpu;
    /* the workspace alone tips it over: a smaller token budget leaves room */
    const bool ws = mem->workspace_bytes_per_gpu > 0 && used < mem->usable_bytes &&
                    used + mem->workspace_bytes_per_gpu >= mem->usable_bytes;
    const char *hint = ws ? "; the workspace grows with the token budget: a smaller --max-batched-tokens leaves room" : "";
    return llmroof_err_set(err, LLMROOF_EINPUT,
                           "%s%s does not fit on %d x %s: no memory is left for the KV cache (weights %.2f GiB, "
                           "activation workspace %.2f GiB, reserve %.2f GiB per GPU of %.2f GiB usable%s; see 'llmroof memory')",
                           which, s->model->id, mem->gpus, s->gpu->id,
                           (mem->weights_bytes_per_gpu + mem->drafter_bytes_per_gpu) / gib,
                           mem->workspace_bytes_per_gpu / gib, mem->reserve_bytes_per_gpu / gib, mem->usable_bytes / gib,
                           hint);
}

static int engine_init(const struct sim_config *c, struct engine *e, const struct llmroof_setup *s, int pool, long nreq,
                       int lanes, int lane, struct llmroof_err *err)
{
    e->setup = *s;
    e->pool = pool;
    e->prefill_only = c->disaggregated && pool == 0;
    e->spec = c->spec.kind != SIM_SPEC_NONE && !e->prefill_only;
    if (e->spec) {
        /* engines replay verification and draft-tree passes from graphs as they do decode steps
         * (SGLang captures TARGET_VERIFY and its draft steps, vLLM V1 uniform decode batches):
         * those steps are decode-type for the graph coverage (model/roofline.h graph_decode_new) */
        const long v = sim_spec_verify_tokens(&c->spec);
        e->setup.eff.graph_decode_new = (double)(c->spec.topk > v ? c->spec.topk : v);
    }
    int rc = estimate_check(s, err);
    if (rc)
        return rc;
    /* the setup's layout (PP, EP, data-parallel attention; docs/model.md section 10) */
    const struct llmroof_layout lay = estimate_layout(s);
    if ((rc = ops_shard_layout(s->model, &lay, &e->sh, err)))
        return rc;
    /* MLA's form per sequence: the break-even of its two forms in this engine's modelled time */
    estimate_mla_few_rule(&e->setup, &e->sh);
    e->dsh.few = *OPS_FEW_GENERIC; /* a draft model's below */
    /* data-parallel attention: every replica schedules alone, with its own token budget and
     * sequence limit, and the instance's iteration is the replicas' together (the busiest sets its
     * time, target_time). An engine whose DP ranks are engines of their own states both per rank
     * (vLLM V1: each DP rank a separate "core engine" process with its own scheduler, docs/serving/
     * data_parallel_deployment.md); SGLang states them for the instance and divides them over its
     * DP ranks (server_args.py: chunked_prefill_size //= dp_size under enable_dp_attention; the
     * scheduler's max_running_requests // dp_size): sim_rank_share. Until session 38 such an
     * engine's replicas shared the instance's budget, so one replica's prompt took all of it:
     * DeepSeek-V3 on 8 H200s, 8,192-token prompts at 2/s, prefilled one 2,048-token chunk of one
     * replica per iteration and fell behind (1.31 requests/s done, TTFT p50 38.6 s) */
    const int nrep = e->sh.attn_dp > 1 ? e->sh.attn_dp : 1;
    /* pipeline lanes share the instance's sequence limit (vLLM V1's max_num_seqs bounds the running
     * requests of every micro-batch in flight together: 5 over 4 lanes are 2, 1, 1, 1), each
     * schedules its own token budget */
    const long lane_seqs = sim_lane_seqs(c->max_seqs, lanes, lane);
    const long budget = sim_pool_budget(c, pool); /* a disaggregated pool's GPU may give it its own */
    /* an engine that divides the instance's limits over its replicas gives a replica none below
     * one each (SGLang's max_running_requests // dp_size is 0): refused, not raised to one each,
     * which had run 4 sequences under --max-seqs 2 (a review) */
    if (nrep > 1 && !c->dp_rank_scheduler && (lane_seqs < nrep || budget < nrep))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "the %s (--%s) of %ld is below the %d data-parallel attention replicas the engine "
                               "divides it over, leaving a replica none: give at least %d",
                               lane_seqs < nrep ? "sequence limit" : "token budget",
                               lane_seqs < nrep ? "max-seqs" : "max-batched-tokens",
                               lane_seqs < nrep ? c->max_seqs : budget, nrep, lanes > 1 && lane_seqs < nrep ? nrep * lanes : nrep);
    e->rank_seqs = sim_rank_share(c, nrep, lane_seqs);
    e->rank_budget = sim_rank_share(c, nrep, budget);
    e->max_run = e->rank_seqs * nrep;
    e->budget = e->rank_budget * nrep;
    if (nrep > 1 && e->spec && !c->static_batching) {
        const long verify = sim_spec_verify_tokens(&c->spec);
        if (e->rank_budget < verify)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "each data-parallel attention replica's token budget (%ld of %ld over %d replicas) "
                                   "must hold one verification pass of %ld tokens",
                                   e->rank_budget, budget, nrep, verify);
    }
    e->ntr_init = SIM_RESERVE_INIT_RATIO * (nrep > 1 ? SIM_RESERVE_DP_CONSERVATIVENESS : 1.0);
    e->ntr = e->ntr_init;
    struct llmroof_mem_opts mo = c->mem;
    mo.max_batched_tokens = (double)e->budget; /* memory sizes one rank's workspace from its share */
    mo.speculative = c->spec.kind != SIM_SPEC_NONE; /* SGLang reserves more beside a drafter */
    /* a recurrent state per draft position beside each decoding sequence's own (state_blocks below) */
    mo.spec_states = c->disaggregated && pool == 0 ? 0.0 : sim_spec_state_copies(&c->spec);
    mo.max_seqs = (double)(sim_rank_share(c, nrep, c->max_seqs) * nrep); /* the instance's logits buffer, as
                                                                            `memory` sizes it */
    struct llmroof_memory mem;
    if ((rc = memory_eval_layout(s->model, s->gpu, &lay, &s->dt, 1, &mo, &mem, err)))
        return rc;
    e->bs = mo.block_size > 1 ? mo.block_size : 1;
    /* a pool whose engine's KV connector turns the window-aware allocator off (vLLM 0.10-0.22:
     * VllmConfig disables the hybrid KV cache manager under a kv_transfer_config) holds and sends
     * every layer's whole context */
    e->full_kv = c->disaggregated && c->pd_kv_full_window && arch_local_layers(s->model) < arch_attn_layers(s->model);
    /* (a model whose every layer is windowed, Mistral-7B v0.1, keeps one sliding-window KV spec
     * without the hybrid manager: vLLM's unify_hybrid_kv_cache_specs returns early when all layers
     * share a type) */
    e->windowed = !e->full_kv && arch_local_layers(s->model) > 0;
    e->win_share = e->windowed && !s->model->window_chunked && arch_attn_layers(s->model) > 0
                       ? (double)arch_local_layers(s->model) / (double)arch_attn_layers(s->model)
                       : 0.0;
    /* held_tokens asks for every running sequence of every iteration: the stages' counts once */
    e->held_ok = e->windowed && memory_held_prepare(s->model, &e->sh, &e->held) == 0;
    /* the pool and K/V per token of the stage whose pool sets the blocks (memory's kv_stage: under PP
     * the tightest, which need not be the fullest) */
    double cap_bytes = mem.kv_capacity_bytes_per_gpu, per_token = mem.kv_stage_bytes_per_token_per_gpu;
    /* the target first: a drafter (below) is not what fails when the target's weights do not fit */
    /* a disaggregated run says which pool (the message had named neither) */
    const char *which = !c->disaggregated ? "" : pool == 0 ? "the prefill pool: " : "the decode pool: ";
    if (!(cap_bytes > 0))
        return no_kv_cache(err, which, s, &mem);
    /* data-parallel attention replicas each hold their own sequences: the instance's KV blocks
     * are the replicas' together */
    cap_bytes *= (double)mem.attn_dp;
    e->kv_token_gpu_bytes = mem.kv_bytes_per_token_per_gpu;
    stepcost_attn_init(&e->attn, s, &e->sh);
    e->attn.ok = e->attn.ok && !c->per_sequence; /* the reference path builds every step whole */
    if (e->sh.attn_dp > 1 && (!(e->rb = calloc((size_t)e->sh.attn_dp, sizeof *e->rb)) ||
                              !(e->rdec = calloc((size_t)e->sh.attn_dp, sizeof *e->rdec))))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d attention replicas", e->sh.attn_dp);
    if (e->rb && c->prefill_first && !c->alternate_turns &&
        !(e->rprompt = calloc((size_t)e->sh.attn_dp, sizeof *e->rprompt)))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d attention replicas", e->sh.attn_dp);
    /* a prefill instance holds the drafter too: it takes the prompts (gpu_time), and its cache,
     * which crosses to the decode instance with the target's (sim_handover_gpu_bytes); Medusa's
     * heads read no prompt (memory_drafter). The head: about one layer, on every GPU. An EAGLE
     * head and an MTP module are a decoder layer with its own attention: every token the target
     * caches, the head caches too, one full layer's K/V (vLLM's EAGLE and MTP proposers take their
     * layer's blocks from the same KV pool); Medusa's heads are MLPs and cache nothing.
     * Llama-3.1-8B: 131,072 B per token, 4,096 more (estimate --spec and plan take it so) */
    if (c->spec.kind != SIM_SPEC_NONE) {
        if (c->spec.kind == SIM_SPEC_DRAFT) {
            e->draft = *s;
            e->draft.model = c->spec.draft;
            e->draft.dt = ckpt_draft_dtypes(c->spec.draft, &s->dt); /* its own checkpoint's, not the target's */
            if ((rc = ops_shard(c->spec.draft, s->tp, &e->dsh, err)))
                return rc;
            estimate_mla_few_rule(&e->draft, &e->dsh);
            e->dheld_ok = memory_held_prepare(c->spec.draft, &e->dsh, &e->dheld) == 0;
        }
        const struct llmroof_spec_decode sd = sim_spec_decode(&c->spec, &c->spec_head);
        double d_bytes = 0, d_kv = 0;
        if ((rc = memory_drafter(s, &e->sh, &mem, &mo, &sd, e->prefill_only, &d_bytes, &d_kv, err)))
            return rc;
        /* on every GPU: the instance's capacity counts attn_dp replicas' GPUs (review of session 33:
         * a drafter was taken from one replica's share only) */
        cap_bytes -= d_bytes * (double)mem.attn_dp;
        per_token += d_kv;
        e->draft_kv_token_gpu_bytes = d_kv;
        if (c->spec.kind == SIM_SPEC_DRAFT && cap_bytes <= 0) /* the draft is what does not fit: name it, not the target */
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "the draft model %s (%.2f GiB of weights per GPU) does not fit beside %s on %d x %s: "
                                   "no memory is left for the KV cache; use a smaller draft",
                                   c->spec.draft->id, d_bytes / 1073741824.0, s->model->id, mem.gpus,
                                   s->gpu->id); /* the instance's GPUs (EP, PP included) */
    }
    /* the drafter's share of a token's K/V, which its own rule holds (held_tokens) */
    e->kv_extra_share = per_token > 0 ? (per_token - mem.kv_stage_bytes_per_token_per_gpu) / per_token : 0.0;
    e->kv_extra_draft = c->spec.kind == SIM_SPEC_DRAFT;
    if (e->kv_extra_draft && arch_local_layers(c->spec.draft) > 0 && !e->full_kv)
        e->windowed = true;
    double tokens = per_token > 0 && cap_bytes > 0 ? floor(cap_bytes / per_token) : 0;
    if (tokens > mem.kv_capacity_tokens)
        tokens = mem.kv_capacity_tokens;
    /* a pipeline lane (sim_pipeline_lanes) holds its share of each replica's blocks, the first
     * B mod lanes lanes one more (sim_lane_seqs' rule): every stage holds its own layers' K/V of
     * every sequence in flight, whatever its micro-batch, so the lanes together hold the B blocks
     * of the tightest stage that `memory` reports (vLLM V1: one KV cache manager of num_blocks, the
     * minimum over the workers, for the batches in flight; V0's virtual engines each took
     * num_gpu_blocks // pipeline_parallel_size, up to pp - 1 blocks fewer in all). Until now each
     * lane took B // lanes: Qwen3-32B at TP 2 x PP 2 on L40Ss under vllm held 2 x 12,012 = 24,024
     * blocks where `memory` reports 24,025 (test pipeline_lanes_hold_the_tightest_stages_blocks) */
    const long reps = e->sh.attn_dp > 1 ? e->sh.attn_dp : 1;
    const long rep_blocks = (long)floor(tokens / (double)e->bs) / reps; /* one replica's: memory's */
    e->total_blocks = sim_lane_seqs(rep_blocks, lanes, lane) * reps;
    if (rep_blocks < lanes) /* whatever --kv-blocks states: the weights must fit */
        return no_kv_cache(err, which, s, &mem); /* the instance's GPUs (EP, PP included) */
    e->mem_blocks = e->total_blocks;
    /* a run that states its engine's KV blocks (vLLM logs "# GPU blocks: N"; --num-gpu-blocks-override
     * sets it) takes them as given, one pool per engine: per data-parallel attention replica, each
     * lane its share */
    if (c->kv_blocks > 0) {
        if (c->kv_blocks < lanes)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--kv-blocks %ld is fewer than the %d pipeline lanes, each of which holds its share "
                                   "of the pool", c->kv_blocks, lanes);
        e->total_blocks = sim_lane_seqs(c->kv_blocks, lanes, lane) * reps;
    }
    e->free_blocks = e->total_blocks;
    /* each data-parallel attention replica's own pool: the instance's blocks are theirs together */
    e->replica_blocks = e->rb ? e->total_blocks / e->sh.attn_dp : e->total_blocks;
    if (e->rb) {
        e->rfree = malloc((size_t)e->sh.attn_dp * sizeof *e->rfree);
        e->rblocked = calloc((size_t)e->sh.attn_dp, 1);
        if (!e->rfree || !e->rblocked)
            return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d attention replicas", e->sh.attn_dp);
        e->total_blocks = e->replica_blocks * e->sh.attn_dp;
        e->free_blocks = e->total_blocks;
        for (int k = 0; k < e->sh.attn_dp; k++)
            e->rfree[k] = e->replica_blocks;
        if (!(e->rbud = malloc((size_t)e->sh.attn_dp * sizeof *e->rbud)) ||
            !(e->rrun = malloc((size_t)e->sh.attn_dp * sizeof *e->rrun)) ||
            !(e->rquick = calloc(2 * (size_t)e->sh.attn_dp, sizeof *e->rquick)) ||
            (e->spec && !(e->rdraft = calloc((size_t)e->sh.attn_dp, sizeof *e->rdraft))) ||
            (c->dp_rank_scheduler && (!(e->rscore = malloc((size_t)e->sh.attn_dp * sizeof *e->rscore)) ||
                                      !(e->rwaitc = calloc((size_t)e->sh.attn_dp, sizeof *e->rwaitc)) ||
                                      !(e->rrunc = calloc((size_t)e->sh.attn_dp, sizeof *e->rrunc)))))
            return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d attention replicas", e->sh.attn_dp);
    }
    /* recurrent layers: each sequence's state, in whole blocks of the KV pool (vLLM's hybrid
     * allocator also gives the state pages of the KV pool) */
    /* (a block's bytes: per_token, a drafter's K/V included, as the blocks were counted above;
     * the target's alone had given Nemotron-Nano under EAGLE 278 state blocks, not 223) */
    e->snap_blocks = mem.state_bytes_per_seq_per_gpu > 0 && per_token > 0
                         ? (long)ceil(mem.state_bytes_per_seq_per_gpu / (per_token * (double)e->bs))
                         : 0;
    /* speculative decoding keeps a state per draft position the verification may roll back to
     * (sim_spec_state_copies), or per verified token (engine spec_state_per_token), beside the
     * sequence's own, as memory counts them (memory_spec_states): a decoding instance's sequences
     * hold them all; a prefill instance of a disaggregated run verifies nothing (mo.spec_states 0) */
    const double copies = mem.state_copies;
    e->state_blocks = mem.state_bytes_per_seq_per_gpu > 0 && per_token > 0
                          ? (long)ceil(mem.state_bytes_per_seq_per_gpu * (1.0 + copies) / (per_token * (double)e->bs))
                          : 0;
    e->state_gpu_bytes = mem.state_bytes_per_seq_per_gpu > 0 ? mem.state_bytes_per_seq_per_gpu : 0.0;
    e->st.kv_blocks_total = e->total_blocks;
    e->st.state_blocks = e->state_blocks;
    e->st.pool = pool;
    long cap = (e->max_run < nreq ? e->max_run : nreq) + 1;
    e->run = calloc((size_t)cap, sizeof *e->run);
    e->waiting = (struct deque){ NULL, 0, 0, 0, NULL }; /* grows with the queue; build_engines sets oom */
    e->handoff = (struct deque){ NULL, 0, 0, 0, NULL };
    if (c->prefix_cache && c->prefix_tokens > 0 && !(c->disaggregated && pool == 1)) {
        e->pg_groups = c->prefix_groups;
        e->pg = calloc((size_t)(e->sh.attn_dp > 1 ? e->sh.attn_dp : 1) * (size_t)c->prefix_groups, sizeof *e->pg);
    }
    /* preempted requests' cached blocks (sim_config.preempt_keep), per replica. Not on a model with
     * sliding-window layers (a window's blocks leave the cache as it slides: vLLM's hit needs the
     * last window's blocks, which go first, tail first) nor with recurrent layers (a state cannot
     * resume from per-token blocks): those recompute whole, as before. Nor where nothing is ever
     * preempted (guaranteed-no-evict admission, static batches) */
    if (c->preempt_keep != SIM_KEEP_NONE && !e->windowed && e->state_blocks == 0 && !c->admit_no_evict &&
        !c->static_batching && !(e->pcq = calloc((size_t)(e->sh.attn_dp > 1 ? e->sh.attn_dp : 1), sizeof *e->pcq)))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d attention replicas", e->sh.attn_dp);
    /* an engine that runs its batches in passes keeps each iteration's prompt chunks (one a sequence) */
    const bool passes = s->eff.prompt_ubatch_tokens > 0 || s->eff.logits_all_tokens;
    if (passes)
        e->pcbuf = calloc((size_t)cap, sizeof *e->pcbuf);
    if (!e->run || (c->prefix_cache && c->prefix_tokens > 0 && !(c->disaggregated && pool == 1) && !e->pg) ||
        (passes && !e->pcbuf))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
    /* lazy decode (its comment above): decoders of one token a step that leave only when done */
    e->lazy = !c->per_sequence && !e->spec && !e->rb && !e->pg && !e->prefill_only && !c->prefill_first && !c->first_token_only &&
              c->sched_steps <= 1 && c->recv_interval <= 1 && e->bs <= LZ_MAX_BLOCK;
    if (e->lazy && !(e->lz_cross = calloc((size_t)e->bs, sizeof *e->lz_cross)))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
    return LLMROOF_OK;
}

static void engines_free(struct runner *r)
{
    for (int i = 0; r->E && i < r->ne; i++) {
        free(r->E[i].lz_cross);
        free(r->E[i].lz_fin);
        free(r->E[i].lz_win);
        free(r->E[i].lzw_due);
        free(r->E[i].run);
        free(r->E[i].pcbuf);
        free(r->E[i].waiting.v);
        free(r->E[i].handoff.v);
        free(r->E[i].pg);
        for (int k = 0; r->E[i].pcq && k < (r->E[i].sh.attn_dp > 1 ? r->E[i].sh.attn_dp : 1); k++)
            free(r->E[i].pcq[k].v);
        free(r->E[i].pcq);
        free(r->E[i].links);
        free(r->E[i].rb);
        free(r->E[i].rdec);
        free(r->E[i].rprompt);
        free(r->E[i].rfree);
        free(r->E[i].rblocked);
        free(r->E[i].rbud);
        free(r->E[i].rrun);
        free(r->E[i].rquick);
        free(r->E[i].rdraft);
        free(r->E[i].rscore);
        free(r->E[i].rwaitc);
        free(r->E[i].rrunc);
    }
    free(r->E);
    r->E = NULL;
    free(r->memo);
    r->memo = NULL;
    free(r->base);
    r->base = NULL;
    free(r->fastc);
    r->fastc = NULL;
    free(r->mixc);
    r->mixc = NULL;
    free(r->stage_exit);
    r->stage_exit = NULL;
    free(r->stage_frac);
    r->stage_frac = NULL;
}

/* Phase 2: the instances, one pool or two. */
static int build_engines(struct runner *r, struct llmroof_err *err)
{
    const struct sim_config *c = r->c;
    struct llmroof_setup ps = c->setup, ds = c->setup;
    r->lanes = 1;
    if (c->disaggregated) {
        if (c->prefill.setup.model)
            ps = c->prefill.setup;
        if (c->decode.setup.model)
            ds = c->decode.setup;
        r->npre = c->prefill.instances;
        r->ne = c->prefill.instances + c->decode.instances;
    } else {
        r->npre = r->ne = c->instances;
        /* each instance's pipeline lanes are engines of their own (sim_pipeline_lanes); its stages
         * hold the layers as layout.c splits them and take their share of a pass's work */
        r->lanes = sim_pipeline_lanes(&c->setup, c->max_seqs, c->static_batching, false);
        if (r->lanes > 1) {
            const int pp = c->setup.layout.pp;
            r->stages = pp;
            r->npre = r->ne = c->instances * r->lanes;
            r->stage_exit = calloc((size_t)c->instances * (size_t)pp, sizeof *r->stage_exit);
            r->stage_frac = malloc((size_t)pp * 2 * sizeof *r->stage_frac);
            if (!r->stage_exit || !r->stage_frac)
                return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d instances", c->instances);
            /* each stage's share of a pass: its share of the weights a pass reads (memory.h) */
            struct llmroof_shard sh;
            const struct llmroof_layout lay = estimate_layout(&c->setup); /* the engine's --moe-tp rule too */
            int rc = ops_shard_layout(c->setup.model, &lay, &sh, err);
            if (rc)
                return rc;
            memory_stage_shares(c->setup.model, &sh, &c->setup.dt, true, r->stage_frac);
            memory_stage_shares(c->setup.model, &sh, &c->setup.dt, false, r->stage_frac + pp);
        }
    }
    r->E = calloc((size_t)r->ne, sizeof *r->E);
    if (!r->E)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d instances", r->ne);
    for (int i = 0; i < r->ne; i++) {
        int pool = c->disaggregated && i >= r->npre;
        int rc = engine_init(c, &r->E[i], pool ? &ds : &ps, pool, r->nreq, r->lanes, i % r->lanes, err);
        if (rc)
            return rc;
        /* a decode instance's incoming KV links and a prefill instance's outgoing ones, kv_lanes a
         * replica (of the pools as they run: ps and ds) */
        struct engine *e = &r->E[i];
        e->kv_lanes = c->disaggregated ? sim_kv_lanes(&ps, &ds, pool) : 1;
        if (c->disaggregated &&
            !(e->links = calloc((size_t)(e->sh.attn_dp > 1 ? e->sh.attn_dp : 1) * (size_t)e->kv_lanes, sizeof *e->links)))
            return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d attention replicas", e->sh.attn_dp);
        r->E[i].waiting.oom = &r->oom;
        r->E[i].handoff.oom = &r->oom;
    }
    /* the step tables (sim_internal.h); without them every step is built whole */
    if (!c->per_sequence) {
        r->memo = calloc((size_t)2 * SIM_MEMO_SLOTS, sizeof *r->memo);
        r->base = calloc((size_t)2 * SIM_BASE_SLOTS, sizeof *r->base);
        r->fastc = calloc((size_t)2 * SIM_FAST_SLOTS, sizeof *r->fastc);
        /* the slots stay uninitialised: only the header, with its bit per kept slot, is cleared */
        r->mixc = malloc(sizeof *r->mixc);
        if (r->mixc)
            memset(r->mixc, 0, offsetof(struct mix_cache, slot));
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
         * synchronized burst at t = 0; with --ramp-up T, user u of N joins u/N x T later, evenly,
         * as a load generator spawns users at a fixed rate (a random draw instead made the plan's
         * verdict at neighbouring user counts noisier than the load's own effect) */
        for (long u = 0; u < c->concurrency && r->created < r->nreq; u++)
            sim_user_next(r, u, c->ramp_s * (double)u / (double)c->concurrency);
    } else if (c->mode == SIM_RATE) {
        double t = 0;
        for (; r->created < r->nreq; r->created++) {
            t += rng_exponential(&r->rng, c->rate_qps);
            sim_draw_request(r, r->created);
            r->R[r->created].arrival_s = t;
        }
        if (c->span_fixed && r->nreq > 1) {
            /* DistServe's client (evaluation/2-benchmark-serving: "Scale timestamps to [0,
             * num_prompts/request_rate]"): the gaps keep their proportions, the span is exact.
             * drawn * (span / drawn) rounds an ulp off span in about 8% of runs, so the last
             * is set to it and none may pass it (in_order below); a drawn span of 0 (every gap
             * drawn 0, or below an ulp: never seen) would scale 0 by infinity, NaN, and leaves
             * all but the last at 0 instead */
            const double t0 = r->R[0].arrival_s, drawn = t - t0, span = (double)r->nreq / c->rate_qps;
            const double k = drawn > 0 ? span / drawn : 0;
            for (long i = 0; i < r->nreq - 1; i++)
                r->R[i].arrival_s = fmin((r->R[i].arrival_s - t0) * k, span);
            r->R[r->nreq - 1].arrival_s = span;
        }
        r->in_order = true; /* times grow with the index */
    } else if (c->mode == SIM_OFFLINE) {
        for (; r->created < r->nreq; r->created++) {
            sim_draw_request(r, r->created);
            r->R[r->created].arrival_s = 0;
        }
        r->in_order = true; /* all at 0: ties go to the lower index */
    } else {
        r->in_order = true;
        for (; r->created < r->nreq; r->created++) {
            struct sim_request *q = &r->R[r->created];
            q->arrival_s = c->trace[r->created].arrival_s;
            q->prompt = c->trace[r->created].prompt;
            q->output = c->trace[r->created].output;
            q->group = -1;
            if (r->created > 0 && q->arrival_s < q[-1].arrival_s)
                r->in_order = false;
        }
        for (long id = 0; !r->in_order && id < r->nreq; id++)
            sim_push_arrival(r, id, 0);
    }
    if (c->mode == SIM_RATE || c->mode == SIM_TRACE) {
        /* an open loop's arrivals are all known now: the window overload is judged over (the
         * second half of their span) is too, so each instance can time its work inside it */
        double a0 = INFINITY, a1 = -INFINITY;
        for (long i = 0; i < r->created; i++) {
            a0 = fmin(a0, r->R[i].arrival_s);
            a1 = fmax(a1, r->R[i].arrival_s);
        }
        if (a1 > a0) {
            r->win0_s = (a0 + a1) / 2;
            r->win1_s = a1;
        }
    }
}

/* The next arrival, if any: the earlier (time, then index) of the next new request in index
 * order and the heap's top. Its key is the same as when every arrival sat in one heap (the
 * arrival time plus the constant first-token overhead, which keeps the order of the times), so
 * the order of events is unchanged. */
static bool next_arrival(const struct runner *r, struct event *ev, bool *from_heap)
{
    bool fresh = r->in_order && r->next_new < r->created;
    if (fresh) {
        ev->t = r->R[r->next_new].arrival_s + sim_arrival_delay_s(r, r->next_new);
        ev->id = r->next_new;
    }
    if (r->arrivals.n && (!fresh || ev_less(r->arrivals.v[0], *ev))) {
        *ev = r->arrivals.v[0];
        *from_heap = true;
        return true;
    }
    if (fresh)
        memset(&ev->s, 0, sizeof ev->s);
    *from_heap = false;
    return fresh;
}

/* Phase 4: the event loop. The earliest of the next arrival and the busy instance with the
 * earliest clock goes next; an arrival at the same instant as an iteration's start joins it.
 * Busy instances sit in a min-heap by (clock, index), so the next one is found in O(1) and
 * re-placed in O(log N) after it steps or receives a request (a linear scan over every
 * instance per event was two thirds of a 256-instance plan's time, issue 24); the order is
 * the scan's: the earliest clock, ties to the lower index. */
struct busy_slot {
    double t; /* the engine's clock when it was placed (kept here: no load of the 800-byte engine) */
    int i;    /* engine index */
};

struct busy_heap {
    struct busy_slot *v; /* heap-ordered by (t, i) */
    int *pos;            /* per engine: its slot in v, -1 when idle */
    int n;
};

static inline bool busy_less(struct busy_slot a, struct busy_slot b)
{
    return a.t < b.t || (a.t == b.t && a.i < b.i);
}

static void busy_sift(struct busy_heap *h, int i)
{
    struct busy_slot x = h->v[i];
    while (i > 0 && busy_less(x, h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        h->pos[h->v[i].i] = i;
        i = (i - 1) / 2;
    }
    for (;;) {
        int l = 2 * i + 1, rr = l + 1, m = -1;
        struct busy_slot best = x;
        if (l < h->n && busy_less(h->v[l], best))
            m = l, best = h->v[l];
        if (rr < h->n && busy_less(h->v[rr], best))
            m = rr;
        if (m < 0)
            break;
        h->v[i] = h->v[m];
        h->pos[h->v[i].i] = i;
        i = m;
    }
    h->v[i] = x;
    h->pos[x.i] = i;
}

/* Engine `ei` may have changed its clock or become busy or idle: put it where it belongs. */
static void busy_update(const struct runner *r, struct busy_heap *h, int ei)
{
    const struct engine *e = &r->E[ei];
    bool busy = (e->nrun || e->waiting.n) && !e->stalled;
    int i = h->pos[ei];
    if (i < 0) {
        if (!busy)
            return;
        i = h->n++;
    } else if (!busy) {
        h->pos[ei] = -1;
        if (i == --h->n)
            return;
        h->v[i] = h->v[h->n];
        busy_sift(h, i);
        return;
    }
    h->v[i] = (struct busy_slot){ e->now, ei };
    busy_sift(h, i);
}

static int event_loop(struct runner *r, struct llmroof_err *err)
{
    /* zeroed: every slot below n is written before it is read, which the analyser cannot follow */
    struct busy_heap h = { calloc((size_t)r->ne, sizeof(struct busy_slot)), calloc((size_t)r->ne, sizeof(int)), 0 };
    if (!h.v || !h.pos) {
        free(h.v);
        free(h.pos);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %d instances", r->ne);
    }
    for (int i = 0; i < r->ne; i++)
        h.pos[i] = -1;
    int rc = LLMROOF_OK;
    const struct sim_config *c = r->c;
    const long step = r->nreq / 100 > 0 ? r->nreq / 100 : 1;
    long report_at = c->progress ? step : LONG_MAX;
    unsigned events = 0;
    while (r->done < r->nreq) {
        if (r->done >= report_at) {
            c->progress(c->progress_ctx, r->done, r->nreq);
            report_at = r->done + step;
        }
        if (++events % SIM_STOP_EVENTS == 0 && stop_asked(&c->stop)) {
            rc = llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after %ld of %ld requests", r->done,
                                 r->nreq);
            break;
        }
        int best = h.n ? h.v[0].i : -1;
        struct event ev;
        bool from_heap = false;
        if (next_arrival(r, &ev, &from_heap) && (best < 0 || ev.t <= r->E[best].now)) {
            if (from_heap)
                heap_pop(&r->arrivals);
            else
                r->next_new++;
            sim_on_arrival(r, &ev);
            /* the instance it joined: a KV arrival's decode instance, else the routed one */
            const struct sim_request *q = &r->R[ev.id];
            if (!q->rejected) {
                int ei = ev.s.stage == 1 || !r->c->disaggregated ? q->instance : q->prefill_instance;
                busy_update(r, &h, ei);
                if (ev.s.stage == 1) /* the prefill instance got its blocks back */
                    busy_update(r, &h, q->prefill_instance);
            }
            if (r->oom) {
                rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the waiting requests");
                break;
            }
            continue;
        }
        if (best < 0) {
            /* nothing can run and nothing will arrive: a request waits for blocks that others hold
             * and never release (a defect, not a result) */
            rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "the run stalled at %ld of %ld requests: blocks held between "
                                                        "the pools were never released", r->done, r->nreq);
            break;
        }
        if ((rc = engine_step(r, best, err)))
            break;
        busy_update(r, &h, best);
        if (r->oom) {
            rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the waiting requests");
            break;
        }
    }
    if (c->progress && rc == LLMROOF_OK)
        c->progress(c->progress_ctx, r->done, r->nreq);
    free(h.v);
    free(h.pos);
    return rc;
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
    rng_seed(&r.prefix_rng, c->seed ^ 0x9f3e51c7ull);
    /* P(at least m drafts accepted): alpha^m along a chain, the tree's sum at depth m for a tree */
    r.accept_tail[0] = 1;
    if (c->spec.kind != SIM_SPEC_NONE && c->spec.tokens > 0) {
        if (sim_spec_tree_tail(c->spec.k, c->spec.topk, c->spec.tokens, c->spec.alpha, r.accept_tail))
            return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for the draft tree");
    } else {
        for (int m = 1; m <= c->spec.k && m < 65; m++)
            r.accept_tail[m] = r.accept_tail[m - 1] * c->spec.alpha;
    }
    /* per request: its public record, and (disaggregated) its first decode step; scheduler state
     * is kept only for live requests (struct deque, struct heap), 56 and 16 bytes a request before */
    r.R = calloc((size_t)nreq, sizeof *r.R);
    r.itl_n = calloc(SIM_ITL_BINS, sizeof *r.itl_n);
    r.itl_sum = calloc(SIM_ITL_BINS, sizeof *r.itl_sum);
    r.arrivals = (struct heap){ NULL, 0, 0, &r.oom };
    if (c->disaggregated) {
        r.dsched = malloc((size_t)nreq * sizeof *r.dsched);
        r.dres = calloc((size_t)nreq, sizeof *r.dres);
    }
    if (!r.R || !r.itl_n || !r.itl_sum || (c->disaggregated && (!r.dsched || !r.dres))) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
        goto done;
    }
    if ((rc = build_engines(&r, err)))
        goto done;
    create_arrivals(&r);
    if (r.oom) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory for %ld requests", nreq);
        goto done;
    }
    /* drawing millions of requests takes seconds, outside the loop's questions: ask once after */
    if (stop_asked(&c->stop)) {
        rc = llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after 0 of %ld requests", nreq);
        goto done;
    }
    if ((rc = event_loop(&r, err)))
        goto done;
    free(r.arrivals.v);
    r.arrivals.v = NULL;
    /* the step tables go before the statistics allocate their buffer: the run's peak memory is
     * the larger of the two phases, not their sum */
    free(r.memo);
    free(r.base);
    free(r.fastc);
    free(r.mixc);
    r.memo = NULL;
    r.base = NULL;
    r.fastc = NULL;
    r.mixc = NULL;
    if ((rc = sim_collect_metrics(&r, err)))
        goto done;
    /* so does sorting their latencies: a stop asked meanwhile still ends the call without output */
    if (stop_asked(&c->stop)) {
        rc = llmroof_err_set(err, LLMROOF_ESTOPPED, "stopped by the caller after %ld of %ld requests", r.done, nreq);
        goto done;
    }
    out->reqs = r.R;
    r.R = NULL;
done:
    free(r.R);
    free(r.itl_n);
    free(r.itl_sum);
    free(r.dsched);
    free(r.dres);
    free(r.pcr);
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
    double iters = fmax(o / fmax(batch, 1.0), p / fmax((double)sim_pool_budget(c, 0), 1.0));
    return iters * SIM_ITER_COST_S;
}

