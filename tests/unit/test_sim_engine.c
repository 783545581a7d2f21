/* test_sim_engine.c - an engine profile's default scheduler for a model (sim_config_engine):
 * vLLM 0.5.4-0.6 V0 chunks prefills by default only when max_model_len exceeds 32K
 * (vllm/engine/arg_utils.py create_engine_config, PR #6666), with SchedulerConfig's 512-token
 * budget; at or below 32K it runs whole prompts first with max(max_model_len, 2048) tokens. */
#include "helpers.h"

#include <math.h>

#include "serve/sim.h"

/* The shipped profile `id` applied to a default simulator configuration for model `mid` on one
 * H100, with --max-model-len `max_len` (0: none) and chunking left on or switched off first. */
static struct sim_config engine_config(struct llmroof_catalog *cat, const char *id, const char *mid, long max_len,
                                       bool no_chunk)
{
    const struct llmroof_engine *en = shipped_engine(cat, id);
    struct sim_config c;
    sim_default_config(&c);
    c.setup.model = model(cat, mid);
    c.setup.gpu = gpu(cat, "h100");
    c.max_model_len = max_len;
    if (no_chunk) { /* what --no-chunked-prefill sets before the profile */
        c.chunked_prefill = false;
        c.prefill_first = true;
    }
    sim_config_engine(&c, en, c.setup.gpu, false, false);
    return c;
}

/* Llama-3-8B's context is 8,192 tokens, not above 32,768: vLLM 0.6 leaves chunking off, so whole
 * prompts in prompt-only iterations and a budget of max(8192, 2048) = 8192 tokens. (The profile
 * before this rule chunked every model with 2048 tokens.) */
static void vllm_0_6_short_context_prefills_whole(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "vllm-0.6", "llama-3-8b", 0, false);
    assert_false(c.chunked_prefill);
    assert_true(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 8192);
    assert_int_equal(c.max_seqs, 256); /* EngineArgs.max_num_seqs */
    catalog_free(&cat);
}

/* Llama-3.1-8B's context is 131,072 tokens > 32,768: chunked prefill on, decodes first, and the
 * chunked budget of 512 tokens (not max(131072, 2048) = 131072). */
static void vllm_0_6_long_context_chunks_with_512_tokens(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "vllm-0.6", "llama-3.1-8b", 0, false);
    assert_true(c.chunked_prefill);
    assert_false(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 512);
    catalog_free(&cat);
}

/* The served context decides, as vLLM's max_model_len does: Llama-3.1-8B with --max-model-len
 * 8192 is at or below 32K, so whole prefills with max(8192, 2048) = 8192 tokens; with chunking
 * switched off first (--no-chunked-prefill) the whole-prefill budget is max(131072, 2048) =
 * 131072, SchedulerConfig's rule without chunking. */
static void served_context_and_the_users_switch_decide(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_config c = engine_config(&cat, "vllm-0.6", "llama-3.1-8b", 8192, false);
    assert_false(c.chunked_prefill);
    assert_true(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 8192);
    catalog_free(&cat);
    load_shipped(&cat);
    c = engine_config(&cat, "vllm-0.6", "llama-3.1-8b", 0, true);
    assert_false(c.chunked_prefill);
    assert_int_equal(c.max_batched_tokens, 131072);
    catalog_free(&cat);
}

/* vLLM 0.3-0.5.3 (vllm-0.4) never chunked by default (EngineArgs enable_chunked_prefill False):
 * the 128K model runs whole prefills with max(131072, 2048) = 131072 tokens. */
static void vllm_0_4_never_chunks(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "vllm-0.4", "llama-3.1-8b", 0, false);
    assert_false(c.chunked_prefill);
    assert_true(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 131072);
    catalog_free(&cat);
}

/* SGLang runs a new prefill (extend) batch before the running decodes whenever one can be formed
 * (scheduler.py get_next_batch_to_run, "Run prefill first if possible"; enable_mixed_chunk off
 * by default), its prompts chunked at chunked_prefill_size 8192 on large GPUs: prefill first with
 * chunking and an 8,192-token budget. vLLM V1 schedules the running sequences first and admits
 * with the budget left (decodes first). */
static void sglang_prefills_first_vllm_v1_decodes_first(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "sglang", "llama-3.1-8b", 0, false);
    assert_true(c.chunked_prefill);
    assert_true(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 8192);
    const struct sim_config v = engine_config(&cat, "vllm", "llama-3.1-8b", 0, false);
    assert_true(v.chunked_prefill);
    assert_false(v.prefill_first);
    catalog_free(&cat);
}

/* TensorRT-LLM does not chunk prompts by default (LLM API enable_chunked_prefill False,
 * llmapi/llm_args.py): whole prompts join the running generation requests with the budget they
 * leave (max_num_tokens 8192), decodes first, guaranteed-no-evict admission. */
static void tensorrt_llm_admits_whole_prompts_beside_decodes(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "tensorrt-llm", "llama-3.1-8b", 0, false);
    assert_false(c.chunked_prefill);
    assert_false(c.prefill_first);
    assert_true(c.admit_no_evict);
    assert_int_equal(c.max_batched_tokens, 8192);
    assert_int_equal(c.max_seqs, 2048);
    catalog_free(&cat);
}

/* LMDeploy TurboMind since PR #775 (Dec 2023): every pass runs the running decodes and up to
 * max_prefill_token_num 8192 prompt tokens (a longer prompt continues next pass), decodes first;
 * max_batch_size 128 (TurbomindEngineConfig defaults, v0.2-0.5). */
static void lmdeploy_passes_hold_8192_prompt_tokens(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "lmdeploy", "llama-3.1-8b", 0, false);
    assert_true(c.chunked_prefill);
    assert_false(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 8192);
    assert_int_equal(c.max_seqs, 128);
    catalog_free(&cat);
}

/* An offline run through vLLM's LLM class (benchmark_throughput.py) has no HTTP server: the
 * profile's 71 us of API-server work per streamed chunk (vllm-0.4, vLLM's v0.6.0 post) is not
 * charged with no_api_server (--no-api-server), the engine-side costs stay. A check against a
 * published run: vLLM 0.4.1's benchmark_throughput on an H100, Llama-3-8B, 1000 prompts of 1000
 * + 100 tokens, 20.72 req/s (vLLM PR #4600); llmroof 20.6 req/s without the server's work and
 * 18.0 with it (docs/validation.md). */
static void no_api_server_drops_the_streaming_cost(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "vllm-0.4");
    struct sim_config c;
    sim_default_config(&c);
    c.setup.model = model(&cat, "llama-3-8b");
    c.setup.gpu = gpu(&cat, "h100");
    sim_config_engine(&c, en, c.setup.gpu, false, false);
    assert_rel_close(c.api_stream_s, 71e-6, 1e-12);
    assert_rel_close(c.cpu_output_s, 17e-6, 1e-12);
    sim_default_config(&c);
    c.setup.model = model(&cat, "llama-3-8b");
    c.setup.gpu = gpu(&cat, "h100");
    c.no_api_server = true;
    sim_config_engine(&c, en, c.setup.gpu, false, false);
    assert_rel_close(c.api_stream_s, 0.0, 0);
    assert_rel_close(c.cpu_output_s, 17e-6, 1e-12); /* the engine's own output processing stays */
    assert_rel_close(c.cpu_seq_s, 32e-6, 1e-12);
    catalog_free(&cat);
}

/* One Llama-3.1-8B request of `prompt` + 8 tokens alone on an H100 under engine en, served and
 * through the engine's own API (--no-api-server): the served run's TTFT less the other's, and
 * whether their TPOTs agree. */
static double served_ttft_more(const struct llmroof_catalog *cat, const struct llmroof_engine *en, long prompt)
{
    struct workload w = { WORKLOAD_FIXED, prompt, 8, NULL, 0, NULL };
    double ttft[2], tpot[2];
    for (int off = 0; off < 2; off++) {
        struct sim_config c;
        sim_default_config(&c);
        c.setup.model = model(cat, "llama-3.1-8b");
        c.setup.gpu = gpu(cat, "h100");
        c.setup.tp = 1;
        c.setup.dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        c.setup.eff = roofline_effs_engine(c.setup.gpu, en, NULL);
        c.no_api_server = off == 1;
        sim_config_engine(&c, en, c.setup.gpu, false, false);
        c.workload = &w;
        c.mode = SIM_CLOSED;
        c.concurrency = 1;
        c.requests = 1;
        c.record_iterations = false;
        struct sim_result r;
        struct llmroof_err err = { 0 };
        assert_int_equal(sim_run(&c, &r, &err), 0);
        ttft[off] = r.ttft.mean;
        tpot[off] = r.tpot.mean;
        sim_result_free(&r);
    }
    assert_rel_close(tpot[0], tpot[1], 1e-9); /* the path is before the first token alone */
    return ttft[0] - ttft[1];
}

/* A served request's first token waits for the API server's path beside the forward (SGLang's
 * 6.9 ms: a mocked 2.63 ms forward read a 9.54 ms median TTFT, tenstorrent/tt-inference-server
 * #3560): one Llama-3.1-8B request of 128 + 8 tokens on an H100 under SGLang, alone in the run,
 * has a TTFT 6.9 ms longer served than through the engine's own API (--no-api-server), its TPOT
 * the same; estimate leaves it out (the engine's own API). */
static void a_served_first_token_waits_for_the_api_server(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "sglang");
    assert_rel_close(en->api_first_token_s, 6.9e-3, 1e-12);
    assert_rel_close(served_ttft_more(&cat, en, 128), 6.9e-3, 1e-6);
    catalog_free(&cat);
}

/* vLLM V1's API path grows with the prompt (tokenising it, hashing its blocks): 5.7 ms + 3.65 us a
 * token (a prefix-cached prompt's TTFT under vLLM 0.22.1, 13.3 ms at 256 tokens and 27.3 at 4,096,
 * openinfer's RTX 5090 benchmark). One Llama-3.1-8B request alone on an H100 under `vllm`: served
 * against --no-api-server, 5.7 + 0.00365 x 128 = 6.1672 ms more TTFT at 128 prompt tokens and
 * 5.7 + 0.00365 x 4,096 = 20.6504 ms at 4,096; its TPOT the same. */
static void a_served_prompt_is_tokenised_on_the_api_path(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "vllm");
    assert_rel_close(en->api_first_token_s, 5.7e-3, 1e-12);
    assert_rel_close(en->api_prompt_token_s, 3.65e-6, 1e-12);
    assert_rel_close(served_ttft_more(&cat, en, 128), 6.1672e-3, 1e-6);
    assert_rel_close(served_ttft_more(&cat, en, 4096), 20.6504e-3, 1e-6);
    catalog_free(&cat);
}

/* vLLM V1's LLM class (UsageContext.LLM_CLASS, EngineArgs.get_batch_defaults) takes larger token
 * budgets than its OpenAI server: 16384 against 8192 on an H100 (70 GiB or more, not an A100),
 * 8192 against 2048 on an A100; --no-api-server selects them. */
static void vllm_llm_class_takes_the_offline_budgets(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "vllm");
    const char *gpus[2] = { "h100", "a100-sxm4-80gb" };
    const long server[2] = { 8192, 2048 }, offline[2] = { 16384, 8192 };
    for (int k = 0; k < 2; k++)
        for (int off = 0; off < 2; off++) {
            struct sim_config c;
            sim_default_config(&c);
            c.setup.model = model(&cat, "llama-3.1-8b");
            c.setup.gpu = gpu(&cat, gpus[k]);
            c.no_api_server = off == 1;
            sim_config_engine(&c, en, c.setup.gpu, false, false);
            assert_int_equal(c.max_batched_tokens, off ? offline[k] : server[k]);
        }
    catalog_free(&cat);
}

/* SGLang's defaults by GPU memory (server_args.py, 0.4.6-0.5.2: chunked_prefill_size 2048 and
 * cuda_graph_max_bs 8, 80 at TP >= 4, below 35 GiB; 16384 tokens from 160 GiB; cuda_graph_runner
 * captures to 256 above 96 GiB and to 512 above 180,000 MiB): the profile's gpu_memory_tiers.
 * An L4 (24 GiB = 24,576 MiB < 35,840) gets 2048 tokens and graphs to 8 sequences at TP 1, 80 at
 * TP 4; an H100 (81,920 MiB) the profile's 8192 and 160; an H200 (144,384 MiB > 98,304) 8192 and
 * 256; an MI300X (196,608 MiB >= 163,840) 16384 and 512. SGLang 0.2-0.3.5 predates the bands
 * (PR #2044): 8192 on the L4 too. A budget the user gave stays. */
/* SGLang resets max_running_requests to 48 under speculative decoding when none is given
 * (server_args.py _handle_speculative_decoding): with --spec the profile's 2,048 sequences become
 * 48; a stated --max-seqs stays; without --spec, and under vLLM (no such reset), 2,048 / 1,024. */
static void sglang_runs_48_sequences_under_speculation(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *sg = shipped_engine(&cat, "sglang"), *vl = shipped_engine(&cat, "vllm");
    assert_int_equal(sg->spec_max_seqs, 48);
    for (int k = 0; k < 4; k++) {
        struct sim_config c;
        sim_default_config(&c);
        c.setup.model = model(&cat, "llama-3.1-8b");
        c.setup.gpu = gpu(&cat, "h100");
        c.setup.tp = 1;
        c.setup.eff = roofline_effs_engine(c.setup.gpu, k == 3 ? vl : sg, NULL);
        c.spec.kind = k == 0 ? SIM_SPEC_NONE : SIM_SPEC_EAGLE3;
        c.max_seqs = 100; /* a stated --max-seqs where k == 2 */
        sim_config_engine(&c, k == 3 ? vl : sg, c.setup.gpu, false, k == 2);
        const long want[4] = { 2048, 48, 100, 1024 };
        assert_int_equal(c.max_seqs, want[k]);
    }
    catalog_free(&cat);
}

static void sglang_defaults_follow_the_gpus_memory(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "sglang");
    const char *gpus[4] = { "l4", "h100", "h200-sxm-141gb", "mi300x" };
    const long budget[4] = { 2048, 8192, 8192, 16384 }, graph[4] = { 8, 160, 256, 512 }, graph4[4] = { 80, 160, 256, 512 };
    for (int k = 0; k < 4; k++)
        for (int tp = 1; tp <= 4; tp += 3) {
            struct sim_config c;
            sim_default_config(&c);
            c.setup.model = model(&cat, "llama-3.1-8b");
            c.setup.gpu = gpu(&cat, gpus[k]);
            c.setup.tp = tp;
            c.setup.eff = roofline_effs_engine(c.setup.gpu, en, NULL);
            assert_rel_close(c.setup.eff.graph_max, 160.0, 0); /* the profile's, before the bands */
            sim_config_engine(&c, en, c.setup.gpu, false, false);
            assert_int_equal(c.max_batched_tokens, budget[k]);
            assert_rel_close(c.setup.eff.graph_max, (double)(tp >= 4 ? graph4[k] : graph[k]), 0);
        }
    /* a stated budget (--max-batched-tokens) stays on a small GPU */
    struct sim_config u;
    sim_default_config(&u);
    u.setup.model = model(&cat, "llama-3.1-8b");
    u.setup.gpu = gpu(&cat, "l4");
    u.max_batched_tokens = 4096;
    sim_config_engine(&u, en, u.setup.gpu, true, false);
    assert_int_equal(u.max_batched_tokens, 4096);
    /* SGLang 0.2-0.3.5: one budget on every GPU */
    struct sim_config o;
    sim_default_config(&o);
    o.setup.model = model(&cat, "llama-3.1-8b");
    o.setup.gpu = gpu(&cat, "l4");
    sim_config_engine(&o, shipped_engine(&cat, "sglang-0.3"), o.setup.gpu, false, false);
    assert_int_equal(o.max_batched_tokens, 8192);
    /* the band lookup itself: bounds in MiB, the lower inclusive, the upper exclusive */
    assert_non_null(catalog_engine_tier(en, 35839.0 * 1048576));
    /* 35 GiB and 96 GiB: the bands of SGLang's memory reserve alone, the profile's budget and graphs */
    assert_int_equal(catalog_engine_tier(en, 35840.0 * 1048576)->max_batched_tokens, 0);
    assert_int_equal(catalog_engine_tier(en, 35840.0 * 1048576)->graph_max_batch, 0);
    assert_int_equal(catalog_engine_tier(en, 98304.0 * 1048576)->graph_max_batch, 0); /* 96 GiB is not above 96 */
    assert_int_equal(catalog_engine_tier(en, 163840.0 * 1048576)->max_batched_tokens, 16384);
    assert_null(catalog_engine_tier(NULL, 1e9));
    catalog_free(&cat);
}

/* SGLang's KV pool: mem_fraction_static holds weights and the pool only (model_runner.py
 * profile_max_num_token), its default round((memory - reserve) / memory, 3) by the memory
 * nvidia-smi reports (server_args.py, PR #7054). Llama-3.1-70B fp16 on 8 H100s (81,920 MiB):
 * reserve 9.5 GiB + 0.5 GiB x 8 = 13,824 MiB, fraction (81,920 - 13,824) / 81,920 = 0.83125 -> 0.831;
 * pool 0.831 x 85,017,493,504 (visible) - 17,640,734,720 (weights) = 53,008,802,381.8 B, no workspace
 * nor reserve beside. With DP attention 4 GiB more: (81,920 - 17,920) / 81,920 = 0.78125 -> 0.781.
 * On an MI300X (192 GiB, 196,608 MiB) 32 GiB: (196,608 - 32,768) / 196,608 = 0.8333 -> 0.833 at any TP.
 * SGLang 0.2-0.3.5 by the TP size: 0.85 at TP 4, 0.83 from 8. --mem-util (user_mem_util) replaces the default, still
 * of weights and pool only. */
static void sglang_pool_is_its_static_fraction_less_the_weights(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "sglang");
    const struct llmroof_gpu *h100 = gpu(&cat, "h100-sxm5-80gb"), *mi = gpu(&cat, "mi300x");
    assert_float_equal(catalog_engine_mem_util(en, h100, 8, false, false), 0.831, 1e-12);
    assert_float_equal(catalog_engine_mem_util(en, h100, 8, false, true), 0.781, 1e-12);
    assert_float_equal(catalog_engine_mem_util(en, h100, 1, false, false), 0.875, 1e-12); /* (81920-10240)/81920 */
    assert_float_equal(catalog_engine_mem_util(en, h100, 1, true, false), 0.850, 1e-12);  /* 2 GiB more: 12,288 */
    assert_float_equal(catalog_engine_mem_util(en, mi, 8, false, false), 0.833, 1e-12);
    const struct llmroof_engine *e03 = shipped_engine(&cat, "sglang-0.3");
    assert_float_equal(catalog_engine_mem_util(e03, h100, 1, false, false), 0.88, 1e-12);
    assert_float_equal(catalog_engine_mem_util(e03, h100, 4, false, false), 0.85, 1e-12);
    assert_float_equal(catalog_engine_mem_util(e03, h100, 12, false, false), 0.83, 1e-12);
    assert_float_equal(catalog_engine_mem_util(shipped_engine(&cat, "vllm"), h100, 8, false, false), 0, 0);

    struct sim_config c;
    sim_default_config(&c);
    c.setup.model = model(&cat, "llama-3.1-70b");
    c.setup.gpu = h100;
    sim_config_engine(&c, en, h100, false, false);
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory m;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval(c.setup.model, h100, 8, &dt, 2048, &c.mem, &m, &err), 0);
    assert_float_equal(m.mem_util, 0.831, 1e-12);
    assert_float_equal(m.workspace_bytes_per_gpu, 0, 0);
    assert_float_equal(m.reserve_bytes_per_gpu, 0, 0);
    assert_float_equal(m.kv_capacity_bytes_per_gpu, 0.831 * 85017493504.0 - 17640734720.0, 1);
    /* a stated fraction replaces the default and keeps its meaning */
    struct sim_config u;
    sim_default_config(&u);
    u.setup = c.setup;
    u.user_mem_util = true;
    u.mem.mem_util = 0.7;
    sim_config_engine(&u, en, h100, false, false);
    assert_int_equal(memory_eval(u.setup.model, h100, 8, &dt, 2048, &u.mem, &m, &err), 0);
    assert_float_equal(m.kv_capacity_bytes_per_gpu, 0.7 * 85017493504.0 - 17640734720.0, 1);
    catalog_free(&cat);
}

/* Automatic prefix caching is on by default in vLLM V1 (0.8 on) and SGLang (the radix cache), off
 * in vLLM 0.6 and before: a run with a shared prefix caches it under those profiles without
 * --prefix-cache; a run without one has nothing to cache and leaves the flag off (so its summary
 * says nothing of a cache); static batching (HF generate()) never caches. */
static void prefix_caching_is_on_by_default_in_vllm_v1_and_sglang(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const char *ids[6] = { "vllm", "vllm-0.8", "sglang", "sglang-0.3", "vllm-0.6", "hf-transformers" };
    const bool on[6] = { true, true, true, true, false, false };
    for (int k = 0; k < 6; k++)
        for (long prefix = 0; prefix <= 512; prefix += 512) {
            struct sim_config c;
            sim_default_config(&c);
            c.setup.model = model(&cat, "llama-3.1-8b");
            c.setup.gpu = gpu(&cat, "h100");
            c.prefix_tokens = prefix;
            sim_config_engine(&c, shipped_engine(&cat, ids[k]), c.setup.gpu, false, false);
            assert_int_equal(c.prefix_cache, on[k] && prefix > 0);
        }
    /* --prefix-cache (set before the profile) stays on under a profile without caching */
    struct sim_config u;
    sim_default_config(&u);
    u.setup.model = model(&cat, "llama-3.1-8b");
    u.setup.gpu = gpu(&cat, "h100");
    u.prefix_tokens = 512;
    u.prefix_cache = true;
    sim_config_engine(&u, shipped_engine(&cat, "vllm-0.6"), u.setup.gpu, false, false);
    assert_true(u.prefix_cache);
    catalog_free(&cat);
}


/* The graph limit by GPU memory reaches what sim_config_engine does not set up (review of session
 * 40): estimate's efficiencies (roofline_effs_tp) and a disaggregated pool's (sim_pool_engine),
 * each at its own GPU and TP, and a pool on another GPU than the run's takes that GPU's budget.
 * SGLang: an L4 (24,576 MiB < 35,840) 8 sequences at TP 1, 80 at TP 4, a budget of 2048 tokens; an
 * H100 (81,920 MiB) the profile's 160 and 8192; an H200 (144,384 MiB > 98,304) 256. vLLM V1 has no
 * bands, but its larger defaults on GPUs of 70 GiB or more other than the A100 (8192 tokens against
 * 2048) hold for a pool on an H100 beside an A100 run. A stated budget stays. */
static void pools_and_estimate_take_the_gpus_graph_limit_and_budget(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *sg = shipped_engine(&cat, "sglang"), *vl = shipped_engine(&cat, "vllm");
    const struct llmroof_eff_override o = { .engine = sg };
    assert_rel_close(roofline_effs_tp(gpu(&cat, "l4"), &o, 1).graph_max, 8.0, 0);
    assert_rel_close(roofline_effs_tp(gpu(&cat, "l4"), &o, 4).graph_max, 80.0, 0);
    assert_rel_close(roofline_effs_tp(gpu(&cat, "h100"), &o, 1).graph_max, 160.0, 0);
    assert_rel_close(roofline_effs_tp(gpu(&cat, "h200-sxm-141gb"), &o, 8).graph_max, 256.0, 0);
    /* (roofline_effs, which knows no TP, keeps the profile's 160 on the L4) */
    assert_rel_close(roofline_effs(gpu(&cat, "l4"), &o).graph_max, 160.0, 0);
    /* a run on an H100 with its decode pool on an L4: 8 sequences, 2048 tokens there; the prefill
     * pool on the H100 keeps the run's 8192 (0: the run's) */
    struct sim_config c;
    sim_default_config(&c);
    c.setup.model = model(&cat, "llama-3.1-8b");
    c.setup.gpu = gpu(&cat, "h100");
    c.setup.tp = 1;
    c.setup.eff = roofline_effs(c.setup.gpu, &o);
    sim_config_engine(&c, sg, c.setup.gpu, false, false);
    c.disaggregated = true;
    c.prefill = (struct sim_pool){ c.setup, 1, 0 };
    c.decode = (struct sim_pool){ c.setup, 1, 0 };
    c.decode.setup.gpu = gpu(&cat, "l4");
    c.decode.setup.eff = roofline_effs(c.decode.setup.gpu, &o);
    sim_pool_engine(&c, &c.prefill, sg, false);
    sim_pool_engine(&c, &c.decode, sg, false);
    assert_int_equal(c.max_batched_tokens, 8192);
    assert_int_equal(sim_pool_budget(&c, 0), 8192);
    assert_int_equal(c.prefill.max_batched_tokens, 0);
    assert_int_equal(sim_pool_budget(&c, 1), 2048);
    assert_rel_close(c.decode.setup.eff.graph_max, 8.0, 0);
    assert_rel_close(c.prefill.setup.eff.graph_max, 160.0, 0);
    /* --max-batched-tokens 4096 given: every pool keeps it */
    struct sim_config k = c;
    k.max_batched_tokens = 4096;
    k.decode.max_batched_tokens = 0;
    sim_pool_engine(&k, &k.decode, sg, true);
    assert_int_equal(sim_pool_budget(&k, 1), 4096);
    /* vLLM: an A100 run (2048) with its decode pool on an H100 (8192) */
    struct sim_config v;
    sim_default_config(&v);
    v.setup.model = model(&cat, "llama-3.1-8b");
    v.setup.gpu = gpu(&cat, "a100-sxm4-80gb");
    v.setup.tp = 1;
    sim_config_engine(&v, vl, v.setup.gpu, false, false);
    v.disaggregated = true;
    v.decode = (struct sim_pool){ v.setup, 1, 0 };
    v.decode.setup.gpu = gpu(&cat, "h100");
    sim_pool_engine(&v, &v.decode, vl, false);
    assert_int_equal(v.max_batched_tokens, 2048);
    assert_int_equal(sim_pool_budget(&v, 1), 8192);
    catalog_free(&cat);
}

/* estimate and simulate replay the same decode steps from graphs (review of session 40: estimate
 * kept the profile's 160 sequences where simulate took the GPU's band). Llama-3.2-1B under SGLang
 * on one H200, 200 requests of 512 + 64 tokens decoding together: 200 > 160, so estimate ran its
 * decode steps eager, every kernel paying the profile's 25 us launch, which at this model's
 * ~1.5-2.5 ms GPU steps the launches exceed (its TPOT 4.42 ms), while simulate's steps of 200
 * sequences replay the H200's graphs up to 256 (2.51 ms). Now estimate's TPOT is simulate's
 * median decode step within 1% (the simulated steps' contexts run 512..575 around estimate's
 * mean), and under 0.7 of the eager estimate (2.51 / 4.42 = 0.57). */
static void estimate_and_simulate_replay_the_same_steps(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *sg = shipped_engine(&cat, "sglang");
    const struct llmroof_eff_override o = { .engine = sg };
    const struct llmroof_gpu *g = gpu(&cat, "h200-sxm-141gb");
    const struct llmroof_model *m = model(&cat, "llama-3.2-1b");
    struct llmroof_setup s = { m, g, 1, { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false },
                               roofline_effs_tp(g, &o, 1), { 0 } };
    struct llmroof_request req = { 200, 512, 64 };
    struct llmroof_estimate est, eager;
    struct llmroof_err err = { 0 };
    assert_int_equal(estimate_run(&s, &req, &est, &err), 0);
    struct llmroof_setup old = s;
    old.eff = roofline_effs(g, &o); /* the profile's limit, as estimate had it */
    assert_int_equal(estimate_run(&old, &req, &eager, &err), 0);
    struct workload w = { WORKLOAD_FIXED, 512, 64, NULL, 0, NULL };
    struct sim_config c;
    sim_default_config(&c);
    c.setup = s;
    c.setup.eff = roofline_effs(g, &o);
    c.workload = &w;
    c.mode = SIM_OFFLINE;
    c.requests = 200;
    sim_config_engine(&c, sg, g, false, false);
    struct sim_result r;
    assert_int_equal(sim_run(&c, &r, &err), 0);
    assert_int_equal(r.max_batch, 200);
    assert_rel_close(est.tpot_s, r.itl.p50, 0.01);
    assert_true(est.tpot_s < 0.7 * eager.tpot_s);
    sim_result_free(&r);
    catalog_free(&cat);
}

/* TensorRT-LLM without chunked context refuses a prompt above max_num_tokens (8,192 in its
 * profile) on arrival, where the others run it alone: offline, 4 prompts of 9,000 tokens are
 * rejected and 4 of 8,000 served (8,000 <= 8,192); the same 9,000-token prompts under vLLM 0.6
 * with whole prefills (its budget at least the 131,072-token context) all run. */
static void tensorrt_llm_refuses_a_prompt_above_its_budget(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const long lens[2] = { 9000, 8000 };
    for (int i = 0; i < 2; i++) {
        struct sim_config c = engine_config(&cat, "tensorrt-llm", "llama-3.1-8b", 0, false);
        assert_true(c.prompt_within_budget);
        assert_false(c.chunked_prefill);
        assert_int_equal(c.max_batched_tokens, 8192);
        struct workload w = { WORKLOAD_FIXED, lens[i], 16, NULL, 0, NULL };
        c.workload = &w;
        c.mode = SIM_OFFLINE;
        c.requests = 4;
        struct sim_result r;
        struct llmroof_err err = { 0 };
        c.setup.tp = 1;
        c.setup.eff = roofline_default_effs(c.setup.gpu);
        assert_int_equal(sim_run(&c, &r, &err), 0);
        assert_int_equal(r.errors, i == 0 ? 4 : 0);
        assert_int_equal(r.completed, i == 0 ? 0 : 4);
        sim_result_free(&r);
    }
    struct sim_config v = engine_config(&cat, "vllm-0.6", "llama-3.1-8b", 0, true);
    assert_false(v.prompt_within_budget);
    struct workload w = { WORKLOAD_FIXED, 9000, 16, NULL, 0, NULL };
    v.workload = &w;
    v.mode = SIM_OFFLINE;
    v.requests = 4;
    v.setup.tp = 1;
    v.setup.eff = roofline_default_effs(v.setup.gpu);
    struct sim_result r;
    struct llmroof_err err = { 0 };
    assert_int_equal(sim_run(&v, &r, &err), 0);
    assert_int_equal(r.completed, 4);
    sim_result_free(&r);
    catalog_free(&cat);
}

/* trtllm-bench's heuristic (tensorrt_llm/bench/build/tuning.py) by hand, Llama-3.1-8B fp8 with an
 * fp8 KV cache on one 80 GiB GPU: weights 8.03e9 x 1 B / 2^30 = 7.4785 GiB; K/V 2 x 32 layers x 8
 * heads x 128 x 1 B = 65,536 B a token = 6.1035e-5 GiB; cache (80 - 7.4785) x 0.90 = 65.269 GiB.
 *   128/128:    65.269 / (6.1035e-5 x 256) = 4177 requests: raw_bs min(4177, 4096) = 4096 -> 256
 *               ceil(16) = 4096; raw_tok min(4096 x 2, 32768) = 8192 -> 1024 ceil(8) = 8192
 *   2048/128:   / (6.1035e-5 x 2176) = 491.4: 128 ceil(3.84) = 512; 491.4 x 17 = 8354 -> 1024
 *               ceil(8.16) = 9216 (the longest input + batch, 2560, is below it)
 *   5000/500:   / (6.1035e-5 x 5500) = 194.4: 32 ceil(6.08) = 224; 194.4 x 11 = 2139 -> 256
 *               ceil(8.36) = 2304, raised to 5000 + 224 = 5224 without chunked prefill
 *   20000/2000: / (6.1035e-5 x 22000) = 48.6: max(64, 32 ceil(1.52) = 64) = 64; 48.6 x 11 = 535
 *               -> max(2048, 768) = 2048, raised to 20000 + 64 = 20064
 * and at PP 2 (two GPUs, 160 GiB) 128/128: (160 - 7.4785) x 0.9 / 0.015625 = 8786, min 4096 / 2 =
 * 2048 -> 256 ceil(8) = 2048; 2048 x 2 = 4096 -> 512 ceil(8) = 4096. A weight-only int4 checkpoint
 * is not tuned: BuildConfig's 2048 and 8192, the floor 9000 + 2048 = 11048. */
static void trtllm_bench_rounds_its_kv_estimate(void **state)
{
    (void)state;
    struct bench_size_in in = { .gpu_mem_gib = 80, .gpus = 1, .pp = 1, .params = 8.03e9, .weight_bytes = 1,
                                .kv_bytes_per_token = 65536, .kv_fraction = 0.90, .isl_floor = true,
                                .default_batch = 2048, .default_tokens = 8192 };
    const struct { double isl, osl; long bs, tok; double req; } cases[] = {
        { 128, 128, 4096, 8192, 4177.2 }, { 2048, 128, 512, 9216, 491.4 },
        { 5000, 500, 224, 5224, 194.4 },  { 20000, 2000, 64, 20064, 48.6 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        in.isl_mean = cases[i].isl;
        in.osl_mean = cases[i].osl;
        in.isl_max = (long)cases[i].isl;
        const struct bench_size s = bench_size_trtllm(&in);
        assert_true(s.tuned);
        assert_int_equal(s.max_batch, cases[i].bs);
        assert_int_equal(s.max_tokens, cases[i].tok);
        assert_true(fabs(s.kv_requests - cases[i].req) < 0.1);
    }
    in.isl_mean = in.osl_mean = 128;
    in.isl_max = 128;
    in.gpus = in.pp = 2;
    struct bench_size s = bench_size_trtllm(&in);
    assert_int_equal(s.max_batch, 2048);
    assert_int_equal(s.max_tokens, 4096);
    in.gpus = in.pp = 1;
    in.weight_bytes = 0; /* int4 AWQ */
    in.isl_mean = in.isl_max = 9000;
    s = bench_size_trtllm(&in);
    assert_false(s.tuned);
    assert_int_equal(s.max_batch, 2048);
    assert_int_equal(s.max_tokens, 11048);
}

/* simulate --no-api-server through the TensorRT-LLM profiles takes that sizing for its workload:
 * the PyTorch backend (1.x) 64 sequences and 20,064 tokens for 20000/2000 (above), graphs padded
 * up to 64, whole prompts; the TensorRT-engine profile (0.x) sizes at the build's 0.95: (80 -
 * 7.4785) x 0.95 / 1.3428 = 51.3 requests -> 64 and max(2048, 256 ceil(2.2)) = 2048 tokens, in
 * chunks (chunked context on), unless --no-chunked-prefill. A served run (no --no-api-server) keeps
 * the profile's 2048 and 8192. */
static void trtllm_bench_sizes_a_run_through_its_own_api(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct workload w = { WORKLOAD_FIXED, 20000, 2000, NULL, 0, NULL };
    const char *ids[2] = { "tensorrt-llm-pytorch", "tensorrt-llm" };
    for (int i = 0; i < 2; i++) {
        for (int keep_chunk = 0; keep_chunk < 2; keep_chunk++) {
            struct sim_config c = engine_config(&cat, ids[i], "llama-3.1-8b", 0, false);
            c.setup.tp = 1;
            c.setup.dt.weight = LLMROOF_FP8;
            c.setup.dt.kv = LLMROOF_FP8;
            c.setup.eff = roofline_default_effs(c.setup.gpu);
            c.workload = &w;
            c.mode = SIM_OFFLINE;
            const struct llmroof_engine *en = shipped_engine(&cat, ids[i]);
            assert_false(sim_config_offline_sizing(&c, en, false, false, false, NULL)); /* served */
            assert_int_equal(c.max_seqs, 2048);
            assert_int_equal(c.max_batched_tokens, 8192);
            c.no_api_server = true;
            struct bench_size s;
            assert_true(sim_config_offline_sizing(&c, en, false, false, keep_chunk, &s));
            assert_int_equal(c.max_seqs, 64);
            assert_true(c.chunked_prefill == !keep_chunk);
            if (i == 0) {
                assert_int_equal(c.max_batched_tokens, 20064);
                assert_true(c.setup.eff.graph_max == 64.0);
                assert_true(c.setup.eff.graph_every == 0.0);
            } else {
                assert_int_equal(c.max_batched_tokens, 2048);
                assert_true(fabs(s.kv_requests - 51.3) < 0.1);
            }
        }
    }
    /* where trtllm-bench has no such run the profile's limits stay, and the caller is told why: timed
     * arrivals, attention DP, both limits stated; a weight-only or --weight-bits checkpoint takes
     * BuildConfig's defaults (2048, and 8192 raised to 20,000 + 2,048 = 22,048); at PP 2 each
     * pipeline lane runs max_batch_size: (160 - 7.4785) x 0.9 / 1.3428 = 102.2 requests, raw_bs
     * 102.2 / 2 = 51.1 -> 64 a lane, 128 for the instance */
    const struct llmroof_engine *en = shipped_engine(&cat, "tensorrt-llm-pytorch");
    struct sim_config c = engine_config(&cat, "tensorrt-llm-pytorch", "llama-3.1-8b", 0, false);
    c.setup.tp = 1;
    c.setup.dt.weight = c.setup.dt.kv = LLMROOF_FP8;
    c.setup.eff = roofline_default_effs(c.setup.gpu);
    c.workload = &w;
    c.no_api_server = true;
    struct sim_config d = c;
    d.mode = SIM_RATE;
    assert_int_equal(sim_config_offline_sizing(&d, en, false, false, false, NULL), SIM_SIZING_NOT_LOAD);
    d = c;
    d.setup.layout.dp_attn = true;
    assert_int_equal(sim_config_offline_sizing(&d, en, false, false, false, NULL), SIM_SIZING_NOT_DP);
    d = c;
    assert_int_equal(sim_config_offline_sizing(&d, en, true, true, false, NULL), SIM_SIZING_GIVEN);
    assert_int_equal(d.max_seqs, 2048);
    d = c;
    d.setup.dt.weight_bits = 4.25;
    struct bench_size s;
    assert_int_equal(sim_config_offline_sizing(&d, en, false, false, false, &s), SIM_SIZING_APPLIED);
    assert_false(s.tuned);
    assert_int_equal(d.max_seqs, 2048);
    assert_int_equal(d.max_batched_tokens, 22048);
    d = c;
    d.setup.layout.pp = 2;
    assert_int_equal(sim_config_offline_sizing(&d, en, false, false, false, &s), SIM_SIZING_APPLIED);
    assert_int_equal(s.max_batch, 64);
    assert_int_equal(d.max_seqs, 128);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_0_6_short_context_prefills_whole),
        cmocka_unit_test(vllm_0_6_long_context_chunks_with_512_tokens),
        cmocka_unit_test(served_context_and_the_users_switch_decide),
        cmocka_unit_test(vllm_0_4_never_chunks),
        cmocka_unit_test(sglang_prefills_first_vllm_v1_decodes_first),
        cmocka_unit_test(tensorrt_llm_admits_whole_prompts_beside_decodes),
        cmocka_unit_test(lmdeploy_passes_hold_8192_prompt_tokens),
        cmocka_unit_test(no_api_server_drops_the_streaming_cost),
        cmocka_unit_test(a_served_first_token_waits_for_the_api_server),
        cmocka_unit_test(a_served_prompt_is_tokenised_on_the_api_path),
        cmocka_unit_test(vllm_llm_class_takes_the_offline_budgets),
        cmocka_unit_test(sglang_defaults_follow_the_gpus_memory),
        cmocka_unit_test(sglang_runs_48_sequences_under_speculation),
        cmocka_unit_test(sglang_pool_is_its_static_fraction_less_the_weights),
        cmocka_unit_test(prefix_caching_is_on_by_default_in_vllm_v1_and_sglang),
        cmocka_unit_test(pools_and_estimate_take_the_gpus_graph_limit_and_budget),
        cmocka_unit_test(estimate_and_simulate_replay_the_same_steps),
        cmocka_unit_test(tensorrt_llm_refuses_a_prompt_above_its_budget),
        cmocka_unit_test(trtllm_bench_rounds_its_kv_estimate),
        cmocka_unit_test(trtllm_bench_sizes_a_run_through_its_own_api),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
