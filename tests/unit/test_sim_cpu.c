/* test_sim_cpu.c - the engine's CPU work beside the GPU step (sim_cpu_step_s): scheduling and
 * input preparation, output processing and the API server's streaming, each with its overlap
 * (docs/model.md "Engine CPU work"; vLLM's v0.6.0 performance post). */
#include "helpers.h"

#include "serve/sim.h"

/* The shipped profile `id` applied to a default simulator configuration. */
static struct sim_config engine_config(struct llmroof_catalog *cat, const char *id)
{
    const struct llmroof_engine *en = shipped_engine(cat, id);
    struct sim_config c;
    sim_default_config(&c);
    sim_config_engine(&c, en, gpu(cat, "h100"), false, false);
    return c;
}

/* vLLM 0.5.3 (vllm-0.4): one process, nothing overlapped. At the post's conditions (217 running
 * sequences, 17.82 ms of GPU time + the profile's 3 ms step + the H100's 20 us, as the roofline
 * charges them) a step is
 *   20.84 ms + 217 x (32 + 17 + 71) us = 20.84 + 26.04 = 46.88 ms,
 * of which the GPU is 17.82 / 46.88 = 38.0%, the API server 217 x 71 us = 15.407 ms = 32.9%, and
 * scheduling with output processing 3 + 217 x 49 us = 13.633 ms = 29.1%: the post's 38 / 33 / 29. */
static void vllm_0_5_step_reproduces_the_posts_split(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "vllm-0.4");
    const double t = sim_cpu_step_s(&c, 20.84e-3, 217, 1.0, 1, 0.0);
    assert_rel_close(t, 46.88e-3, 1e-9);
    assert_rel_close(17.82e-3 / t, 0.380, 0.005);
    assert_rel_close(217 * 71e-6 / t, 0.329, 0.005);
    assert_rel_close((3e-3 + 217 * 49e-6) / t, 0.291, 0.005);
    catalog_free(&cat);
}

/* vLLM 0.6.0 (vllm-0.6): output processing overlaps the GPU step, scheduling runs between steps,
 * the API server is its own process. 20 ms of GPU time and 200 sequences:
 *   output 200 x 17 us = 3.4 ms, under the 20 ms GPU step: 20 ms;
 *   scheduling 200 x 32 us = 6.4 ms after it: 26.4 ms;
 *   API server 200 x 71 us = 14.2 ms, beside it: max(26.4, 14.2) = 26.4 ms.
 * (The one-constant profile before gave 20 + 200 x 20 us x 0.5 = 22 ms.) With 10-step scheduling
 * (servval.c divides cpu_seq_s by the steps) scheduling is 0.64 ms: 20.64 ms. */
static void vllm_0_6_hides_output_processing_and_the_api_server(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_config c = engine_config(&cat, "vllm-0.6");
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 200, 1.0, 1, 0.0), 26.4e-3, 1e-9);
    c.cpu_seq_s /= 10;
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 200, 1.0, 1, 0.0), 20.64e-3, 1e-9);
    catalog_free(&cat);
}

/* The API server in its own process is a pipeline stage: when its work outgrows the engine's the
 * step takes the server's time. 5 ms of GPU time and 250 sequences under vllm-0.6:
 *   output 250 x 17 us = 4.25 ms < 5 ms: 5 ms; scheduling 250 x 32 us = 8 ms: 13 ms;
 *   API server 250 x 71 us = 17.75 ms > 13 ms: 17.75 ms.
 * In the engine's process (api_overlap 0) it adds: 13 + 17.75 = 30.75 ms. */
static void api_server_in_its_own_process_bounds_the_step(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_config c = engine_config(&cat, "vllm-0.6");
    assert_rel_close(sim_cpu_step_s(&c, 5e-3, 250, 1.0, 1, 0.0), 17.75e-3, 1e-9);
    c.api_overlap = 0;
    assert_rel_close(sim_cpu_step_s(&c, 5e-3, 250, 1.0, 1, 0.0), 30.75e-3, 1e-9);
    catalog_free(&cat);
}

/* DeepSpeed-FastGen as vLLM's benchmark ran it (MII 0.1's pipeline, default sampling): its
 * TopPLogitProcessor loops over the running rows in Python, four kernels a row (a boolean-mask
 * index: nonzero's count and select, a gather; an index_put) at the profile's 25 us per
 * Python-dispatched kernel, beside vLLM 0.2's 17 us of output processing, and three host reads
 * of the row's 0-d CUDA done flag at 12 us: cpu_output_s 17 + 100 + 36 = 153 us. Scheduling:
 * vLLM 0.2's 32 us plus 58 CPU torch ops on 0-d tensors (KV queries, the ragged wrapper's
 * insert_sequence) at 2.8 us: 194.4 us.
 * 20 ms of GPU time and 150 sequences, nothing overlapped, no API server (in-process pipeline):
 *   output 150 x 153 us = 22.95 ms: 42.95 ms; scheduling 150 x 194.4 us = 29.16 ms: 72.11 ms.
 * Its scheduler: decodes first, prompts cut to the rest of a 768-token budget, 512 sequences. */
static void fastgen_pays_its_top_p_loop_per_sequence(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "deepspeed-fastgen");
    assert_rel_close(en->cpu_output_s, 17e-6 + 4 * 25e-6 + 3 * 12e-6, 1e-12);
    assert_rel_close(en->cpu_seq_s, 32e-6 + 58 * 2.8e-6, 1e-12);
    assert_rel_close(en->launch_s, 25e-6, 1e-12);
    assert_false(en->cuda_graphs);
    assert_false(en->kv_per_query_head);
    const struct sim_config c = engine_config(&cat, "deepspeed-fastgen");
    assert_true(c.chunked_prefill);
    assert_false(c.prefill_first);
    assert_int_equal(c.max_batched_tokens, 768);
    assert_int_equal(c.max_seqs, 512);
    assert_rel_close(c.api_stream_s, 0.0, 0);
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 150, 1.0, 1, 0.0), 72.11e-3, 1e-9);
    catalog_free(&cat);
}

/* A slower host stretches every CPU part (docs/model.md "Host CPU"): the profile's costs are the
 * reference host's, the host takes cpu_scale = 1 / speed times as long. vllm-0.6, 5 ms of GPU,
 * 250 sequences, api_overlap 0, on a host at half the reference speed (cpu_scale 2):
 *   output 250 x 17 us x 2 = 8.5 ms > 5 ms, hidden up to the step: 8.5 ms;
 *   scheduling 250 x 32 us x 2 = 16 ms after it: 24.5 ms; API 250 x 71 us x 2 = 35.5 ms: 60 ms.
 * The GPU time itself is not stretched: with no sequences the step is the 5 ms. A scale of 0
 * (unset) is the reference host: 30.75 ms, as above. */
static void a_slower_host_stretches_the_cpu_parts(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_config c = engine_config(&cat, "vllm-0.6");
    c.api_overlap = 0;
    assert_rel_close(sim_cpu_step_s(&c, 5e-3, 250, 2.0, 1, 0.0), 60e-3, 1e-9);
    assert_rel_close(sim_cpu_step_s(&c, 5e-3, 0, 2.0, 1, 0.0), 5e-3, 1e-12);
    assert_rel_close(sim_cpu_step_s(&c, 5e-3, 250, 0.0, 1, 0.0), 30.75e-3, 1e-9);
    catalog_free(&cat);
}

/* The parts' overlaps are independent: a profile with only the old per-sequence cost behaves as
 * before (SGLang, 4 us fully overlapped: 300 sequences, 1 ms GPU -> max(1, 1.2) = 1.2 ms; with
 * speculative decoding its overlap scheduler is off: 1 + 1.2 = 2.2 ms). */
static void scheduling_overlap_alone_is_unchanged(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_config c = engine_config(&cat, "sglang");
    assert_rel_close(c.cpu_output_s + c.api_stream_s, 0, 0);
    assert_rel_close(sim_cpu_step_s(&c, 1e-3, 300, 1.0, 1, 0.0), 1.2e-3, 1e-9);
    c.spec.kind = SIM_SPEC_EAGLE;
    assert_rel_close(sim_cpu_step_s(&c, 1e-3, 300, 1.0, 1, 0.0), 2.2e-3, 1e-9);
    catalog_free(&cat);
}

/* vLLM's V1 engine by version (docs/model.md "Engine CPU work"): EngineCore schedules, executes and
 * updates in turn until asynchronous scheduling (opt-in from v0.10, PR #19970; the default from
 * v0.14, PR #27614), so on vllm-0.8 (v0.8-0.13) the scheduler's 13 us per sequence adds to the
 * step and on vllm (v0.14 on) runs one step ahead, beside it. 13 us is the slope of what
 * asynchronous scheduling hid in vLLM PR #23914 (b/1014 - b/1025 = 0.34 ms at 32 sequences, 0.78
 * at 64, 1.71 at 128, 3.26 at 256: 13.0 us a sequence). MI300X at 3,200 sequences (the AMD
 * table's Llama-3.1-70B run), a 138 ms GPU step:
 *   vllm-0.8  138 + 3200 x 13 us = 138 + 41.6 = 179.6 ms
 *   vllm      max(138, 41.6) = 138 ms; CPU-bound (2 ms GPU): max(2, 41.6) = 41.6 ms
 * Everything else is the same profile. */
static void vllm_v1_overlaps_its_scheduler_only_from_0_14(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config sync = engine_config(&cat, "vllm-0.8"), async = engine_config(&cat, "vllm");
    assert_rel_close(sync.cpu_seq_s, 13e-6, 1e-12);
    assert_rel_close(sim_cpu_step_s(&sync, 138e-3, 3200, 1.0, 8, 0.0), 179.6e-3, 1e-9);
    assert_rel_close(sim_cpu_step_s(&async, 138e-3, 3200, 1.0, 8, 0.0), 138e-3, 1e-9);
    assert_rel_close(sim_cpu_step_s(&async, 2e-3, 3200, 1.0, 8, 0.0), 41.6e-3, 1e-9);
    const struct llmroof_engine *a = shipped_engine(&cat, "vllm"), *b = shipped_engine(&cat, "vllm-0.8");
    assert_rel_close(a->cpu_seq_s, b->cpu_seq_s, 0);
    assert_int_equal(a->max_seqs, b->max_seqs);
    assert_rel_close(a->step_overhead_s, b->step_overhead_s, 0);
    assert_int_equal(a->graph_max_batch, b->graph_max_batch);
    catalog_free(&cat);
}

/* SGLang before its overlap scheduler (PR #2067, November 2024; sglang-0.3) scheduled between
 * GPU steps, and its FlashInfer 0.1 ran FlashAttention-2-class kernels on Hopper too: 300
 * sequences at 4 us and a 1 ms GPU step take 1 + 1.2 = 2.2 ms (sglang: max(1, 1.2) = 1.2 ms).
 * Every other field is the sglang profile's. */
static void sglang_0_3_schedules_between_steps(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config old = engine_config(&cat, "sglang-0.3"), now = engine_config(&cat, "sglang");
    assert_rel_close(sim_cpu_step_s(&old, 1e-3, 300, 1.0, 1, 0.0), 2.2e-3, 1e-9);
    assert_rel_close(sim_cpu_step_s(&now, 1e-3, 300, 1.0, 1, 0.0), 1.2e-3, 1e-9);
    const struct llmroof_engine *a = shipped_engine(&cat, "sglang-0.3"), *b = shipped_engine(&cat, "sglang");
    assert_int_equal(a->attention, LLMROOF_ATTN_FLASH2);
    assert_int_equal(b->attention, LLMROOF_ATTN_FLASH3);
    assert_rel_close(a->cpu_seq_s, b->cpu_seq_s, 0);
    assert_int_equal(a->max_seqs, b->max_seqs);
    assert_int_equal(a->max_batched_tokens, b->max_batched_tokens);
    assert_int_equal(a->graph_max_batch, b->graph_max_batch);
    assert_int_equal(a->admit_reserve, b->admit_reserve);
    catalog_free(&cat);
}

/* TGI 2.x: generate_token copies the sampled tokens to the host and then loops over the requests
 * in Python (detokenisation, stop checks, Generation objects) before the router asks for the next
 * decode, so its output processing (vLLM 0.5.3's 17 us for the same work) is not overlapped.
 * 30 ms of GPU time and 200 sequences: 30 + 200 x 17 us = 30 + 3.4 = 33.4 ms (30 ms before). */
static void tgi_processes_outputs_after_the_step(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "tgi");
    assert_rel_close(c.cpu_output_s, 17e-6, 1e-12);
    assert_rel_close(c.cpu_output_overlap, 0.0, 0);
    assert_rel_close(sim_cpu_step_s(&c, 30e-3, 200, 1.0, 1, 0.0), 33.4e-3, 1e-9);
    catalog_free(&cat);
}

/* One request of `w` alone on Llama-2-7B, fp16, on `tp` A100 SXMs (host speed 0.81), no engine. */
static struct sim_config lone_request(struct llmroof_catalog *cat, const struct workload *w, int tp)
{
    struct sim_config c;
    sim_default_config(&c);
    c.setup = (struct llmroof_setup){ model(cat, "llama-2-7b"), gpu(cat, "a100-sxm4-80gb"), tp,
                                      { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false },
                                      roofline_default_effs(gpu(cat, "a100-sxm4-80gb")), { 0 } };
    c.workload = w;
    c.concurrency = 1;
    c.requests = 1;
    return c;
}

/* Through the simulator: one request alone decodes one sequence per iteration. An API server
 * costing 1 ms per streamed chunk at the reference host, in the engine's process, adds 1 / 0.81 =
 * 1.2346 ms to every iteration on an A100 SXM, whose usual host runs at 0.81 of the reference
 * (TTFT and TPOT + 1.2346 ms); in its own process it hides under the GPU step (a Llama-2-7B decode
 * step on an A100 is about 8 ms) and changes nothing. */
static void api_server_cost_reaches_the_latencies(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct workload w = { WORKLOAD_FIXED, 128, 64, NULL, 0, NULL };
    struct sim_config c = lone_request(&cat, &w, 1);
    struct sim_result base, serial, own;
    struct llmroof_err err = { 0 };
    assert_int_equal(sim_run(&c, &base, &err), 0);
    c.api_stream_s = 1e-3;
    assert_int_equal(sim_run(&c, &serial, &err), 0);
    c.api_overlap = 1;
    assert_int_equal(sim_run(&c, &own, &err), 0);
    assert_rel_close(serial.ttft.mean, base.ttft.mean + 1e-3 / 0.81, 1e-9);
    assert_rel_close(serial.tpot.mean, base.tpot.mean + 1e-3 / 0.81, 1e-9);
    assert_rel_close(own.tpot.mean, base.tpot.mean, 1e-12);
    assert_rel_close(own.ttft.mean, base.ttft.mean, 1e-12);
    sim_result_free(&base);
    sim_result_free(&serial);
    sim_result_free(&own);
    catalog_free(&cat);
}

/* TGI 0.8's contiguous K/V (engine kv_copy): two users of fixed 128:64 requests on Llama-2-7B, one
 * A100 80GB. Both prompts run in one prompt iteration (nothing was running: no concatenation),
 * then 63 decode steps in lockstep, step k reading both contexts of 128 + k tokens (the new one
 * included): T_k = 2 (128 + k), k = 1..63,
 *   sum T_k = 2 (63 x 128 + 63 x 64 / 2) = 2 (8,064 + 2,016) = 20,160 tokens,
 * each step copying its T_k tokens' K/V, b = 2 x 32 layers x 4,096 x 2 B = 524,288 B, read and
 * written once: 2 T_k b / (bandwidth x memory_eff). TPOT grows by that sum over the 63 steps, and
 * TTFT not at all; the pool holds half the blocks (old and new tensors alive together). */
static void tgi_0_8_copies_its_kv_every_decode_step(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct workload w = { WORKLOAD_FIXED, 128, 64, NULL, 0, NULL };
    struct sim_config c = lone_request(&cat, &w, 1);
    c.concurrency = 2;
    c.requests = 2;
    c.think_min_s = c.think_max_s = 0; /* both arrive at t = 0 */
    struct sim_result base, copy;
    struct llmroof_err err = { 0 };
    assert_int_equal(sim_run(&c, &base, &err), 0);
    c.kv_copy = true;
    c.mem.kv_copy = true;
    assert_int_equal(sim_run(&c, &copy, &err), 0);
    const struct llmroof_gpu *g = gpu(&cat, "a100-sxm4-80gb");
    const double bw = g->mem_bw_Bps * roofline_default_effs(g).memory;
    assert_rel_close(copy.tpot.mean - base.tpot.mean, 2.0 * 20160 * 524288 / bw / 63, 1e-9);
    assert_rel_close(copy.ttft.mean, base.ttft.mean, 1e-12);
    assert_in_range(copy.kv_blocks_total, base.kv_blocks_total / 2 - 1, base.kv_blocks_total / 2);
    /* the shipped profile carries it into both */
    const struct sim_config t = engine_config(&cat, "tgi-0.8");
    assert_true(t.kv_copy);
    assert_true(t.mem.kv_copy);
    assert_false(engine_config(&cat, "tgi").kv_copy);
    sim_result_free(&base);
    sim_result_free(&copy);
    catalog_free(&cat);
}

/* vLLM before PR #2031 (v0.2.5) sized its KV pool as total x gpu_memory_utilization -
 * torch.cuda.max_memory_allocated(): the CUDA context and the rest outside PyTorch's allocator came
 * out of the 10% headroom, so vllm-0.2 reserves nothing beside weights and workspace; later
 * profiles keep --reserve's 1 GiB, and a stated --reserve (user_reserve) wins over the profile. */
static void vllm_0_2_reserves_nothing_outside_its_headroom(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    assert_rel_close(engine_config(&cat, "vllm-0.2").mem.reserve_bytes, 0.0, 0);
    assert_rel_close(engine_config(&cat, "vllm-0.6").mem.reserve_bytes, 1073741824.0, 0);
    struct sim_config c;
    sim_default_config(&c);
    c.mem.reserve_bytes = 2e9;
    c.user_reserve = true;
    sim_config_engine(&c, shipped_engine(&cat, "vllm-0.2"), gpu(&cat, "h100"), false, false);
    assert_rel_close(c.mem.reserve_bytes, 2e9, 0);
    catalog_free(&cat);
}

/* vLLM before PR #2221 (vllm-0.2) ran every GPU of a TP > 1 instance as a Ray worker and pickled
 * each sequence's metadata into every worker's call: worker_seq_s = 37 us per sequence per
 * worker at the reference host. 20 ms of GPU, 64 sequences, 8 GPUs, reference host:
 *   output 64 x 17 us = 1.088 ms, not overlapped: 21.088 ms;
 *   scheduling 64 x (32 + 8 x 37) us = 64 x 328 us = 20.992 ms: 42.080 ms;
 *   API server 64 x 71 us = 4.544 ms: 46.624 ms.
 * One GPU has no worker call: 21.088 + 64 x 32 us (2.048) + 4.544 = 27.680 ms. On an A100's host
 * (speed 0.81) the workers' part per sequence is 8 x 37 / 0.81 = 365.4 us, the PR's measured
 * (1/2.48 - 1/3.48) s / 317 steps = 365.5 us (Llama-70B, 8 x A100-40GB, batch 512). */
static void ray_workers_cost_each_sequence_once_per_gpu(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct sim_config c = engine_config(&cat, "vllm-0.2");
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 64, 1.0, 8, 0.0), 46.624e-3, 1e-9);
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 64, 1.0, 1, 0.0), 27.680e-3, 1e-9);
    const double a100 = 1.0 / 0.81;
    const double per_seq = (sim_cpu_step_s(&c, 20e-3, 64, a100, 8, 0.0) - sim_cpu_step_s(&c, 20e-3, 64, a100, 1, 0.0)) / 64;
    assert_rel_close(per_seq, (1 / 2.48 - 1 / 3.48) / 317, 0.005);
    /* engines that broadcast the metadata over NCCL, or run workers in their own processes, pay
     * nothing per worker */
    const struct sim_config v = engine_config(&cat, "vllm-0.4");
    assert_rel_close(sim_cpu_step_s(&v, 20e-3, 64, 1.0, 8, 0.0), sim_cpu_step_s(&v, 20e-3, 64, 1.0, 1, 0.0), 1e-12);
    catalog_free(&cat);
}

/* Through the simulator the instance's own GPU count sets the workers: one request on Llama-2-7B
 * (A100 SXM, host speed 0.81) with 1 ms per sequence per worker: at TP 2 every iteration (the
 * prefill and each decode) gains 2 x 1 ms / 0.81 = 2.469 ms; at TP 1 nothing. */
static void worker_cost_follows_the_instance_gpus(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct workload w = { WORKLOAD_FIXED, 128, 64, NULL, 0, NULL };
    for (int tp = 1; tp <= 2; tp++) {
        struct sim_config c = lone_request(&cat, &w, tp);
        struct sim_result base, ray;
        struct llmroof_err err = { 0 };
        assert_int_equal(sim_run(&c, &base, &err), 0);
        c.worker_seq_s = 1e-3;
        assert_int_equal(sim_run(&c, &ray, &err), 0);
        const double add = tp > 1 ? tp * 1e-3 / 0.81 : 0.0;
        assert_rel_close(ray.tpot.mean, base.tpot.mean + add, 1e-9);
        assert_rel_close(ray.ttft.mean, base.ttft.mean + add, 1e-9);
        sim_result_free(&base);
        sim_result_free(&ray);
    }
    catalog_free(&cat);
}

/* vLLM 0.2 with --engine-use-ray: the actor's step returns every scheduled sequence's whole
 * RequestOutput (prompt and output so far), pickled there and unpickled in the API server, 35 ns
 * a context token at the reference host (engine ray_output_token_s; bench/ray_output_pickle.py).
 * 20 ms of GPU, 60 sequences of 900 tokens: 54,000 x 35 ns = 1.89 ms more, added whole (both
 * ends are between two steps); on an A100's host (0.81) 1.89 / 0.81 = 2.3333 ms. Without the flag
 * the engine's outputs never leave its process: nothing. Through the simulator one request alone
 * (Llama-2-7B, 128 + 64 tokens, A100 SXM) at 1 us a token: its prompt step reads 128 keys (TTFT
 * + 128 / 0.81 us = 158.02 us) and its 63 decode steps 129 ... 191, mean 160 (TPOT + 197.53 us). */
static void a_ray_actor_engine_carries_its_outputs_every_step(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "vllm-0.2");
    struct sim_config c = engine_config(&cat, "vllm-0.2");
    const struct llmroof_eff_override ray = { .engine = en, .engine_use_ray = true }, plain = { .engine = en };
    c.setup.eff = roofline_effs_engine(gpu(&cat, "h100"), en, &ray);
    assert_rel_close(c.setup.eff.ray_token_s, 35e-9, 1e-12);
    const double base = sim_cpu_step_s(&c, 20e-3, 60, 1.0, 1, 0.0);
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 60, 1.0, 1, 54000.0) - base, 1.89e-3, 1e-9);
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 60, 1.0 / 0.81, 1, 54000.0) - sim_cpu_step_s(&c, 20e-3, 60, 1.0 / 0.81, 1, 0.0),
                     2.3333333e-3, 1e-7);
    /* estimate's rule is the same: the A100's effs carry its host's 1 / 0.81 */
    const struct llmroof_effs a100 = roofline_effs_engine(gpu(&cat, "a100-sxm4-80gb"), en, &ray);
    assert_rel_close(roofline_cpu_step_s(&a100, 20e-3, 60, 0, false, 0, 0, 54000.0) -
                         roofline_cpu_step_s(&a100, 20e-3, 60, 0, false, 0, 0, 0.0),
                     2.3333333e-3, 1e-7);
    c.setup.eff = roofline_effs_engine(gpu(&cat, "h100"), en, &plain);
    assert_float_equal(c.setup.eff.ray_token_s, 0.0, 0.0);
    assert_rel_close(sim_cpu_step_s(&c, 20e-3, 60, 1.0, 1, 54000.0), base, 0);
    struct workload w = { WORKLOAD_FIXED, 128, 64, NULL, 0, NULL };
    struct sim_config one = lone_request(&cat, &w, 1);
    struct sim_result r0, r1;
    struct llmroof_err err = { 0 };
    assert_int_equal(sim_run(&one, &r0, &err), 0);
    one.setup.eff.ray_token_s = 1e-6;
    assert_int_equal(sim_run(&one, &r1, &err), 0);
    assert_rel_close(r1.ttft.mean - r0.ttft.mean, 128e-6 / 0.81, 1e-6);
    assert_rel_close(r1.tpot.mean - r0.tpot.mean, 160e-6 / 0.81, 1e-6);
    sim_result_free(&r0);
    sim_result_free(&r1);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vllm_0_5_step_reproduces_the_posts_split),
        cmocka_unit_test(vllm_0_6_hides_output_processing_and_the_api_server),
        cmocka_unit_test(api_server_in_its_own_process_bounds_the_step),
        cmocka_unit_test(fastgen_pays_its_top_p_loop_per_sequence),
        cmocka_unit_test(a_slower_host_stretches_the_cpu_parts),
        cmocka_unit_test(scheduling_overlap_alone_is_unchanged),
        cmocka_unit_test(vllm_v1_overlaps_its_scheduler_only_from_0_14),
        cmocka_unit_test(tgi_processes_outputs_after_the_step),
        cmocka_unit_test(sglang_0_3_schedules_between_steps),
        cmocka_unit_test(api_server_cost_reaches_the_latencies),
        cmocka_unit_test(tgi_0_8_copies_its_kv_every_decode_step),
        cmocka_unit_test(vllm_0_2_reserves_nothing_outside_its_headroom),
        cmocka_unit_test(ray_workers_cost_each_sequence_once_per_gpu),
        cmocka_unit_test(worker_cost_follows_the_instance_gpus),
        cmocka_unit_test(a_ray_actor_engine_carries_its_outputs_every_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
