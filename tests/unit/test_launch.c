/* test_launch.c - engine launch commands for a planned layout (serve/launch.c): each layout's
 * flags per engine, disaggregated pools, and settings an engine has no flag for. */
#include "helpers.h"

#include "serve/launch.h"

static void setup_in(struct plan_input *in, const struct llmroof_model *m)
{
    memset(in, 0, sizeof *in);
    sim_default_config(&in->sim); /* max_seqs 256, max_batched_tokens 2048, chunked prefill on */
    in->model = m;
    in->dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
}

static struct plan_option feasible(int tp, int mode)
{
    struct plan_option o;
    memset(&o, 0, sizeof o);
    o.feasible = true;
    o.tp = tp;
    o.mode = mode;
    o.nodes = 1;
    o.instances_per_node = 8 / tp;
    return o;
}

static const struct launch_cmd *find(const struct launch_set *s, const char *engine, const char *role)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->c[i].engine, engine) && !strcmp(s->c[i].role, role))
            return &s->c[i];
    fail_msg("no %s %s command", engine, role);
    return &s->c[0]; /* not reached (fail_msg jumps out); not NULL, which gcc -O3 would trace into strstr */
}

static void tp_layout_gives_one_command_per_engine_with_the_hf_repo(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "llama-3.1-70b"));
    struct plan_option o = feasible(4, 0);
    struct launch_set s;
    launch_build(&in, &o, &s);
    assert_int_equal(s.n, 3); /* vllm, sglang, trtllm; aggregated: one kind */
    const struct launch_cmd *v = find(&s, "vllm", "serve");
    /* 1 node x 8/4 instances per node = 2 instances of 4 GPUs */
    assert_int_equal(v->instances, 2);
    assert_int_equal(v->gpus_per_instance, 4);
    assert_string_equal(v->cmd, "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 4 --max-num-seqs 256 "
                                "--max-num-batched-tokens 2048");
    assert_string_equal(v->note, "");
    assert_string_equal(find(&s, "sglang", "serve")->cmd,
                        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B --tp 4 "
                        "--max-running-requests 256 --chunked-prefill-size 2048");
    assert_string_equal(find(&s, "trtllm", "serve")->cmd,
                        "trtllm-serve meta-llama/Llama-3.1-70B --tp_size 4 --max_batch_size 256 --max_num_tokens 2048");
    catalog_free(&cat);
}

static void dp_attention_splits_vllm_limits_and_notes_trtllm_yaml(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "qwen3-235b-a22b"));
    struct plan_option o = feasible(4, 2); /* DPA-4+EP-4: 4 GPUs, attention DP 4, EP 4 */
    o.gpu = catalog_find_gpu(&cat, "h100-sxm5-80gb"); /* DeepEP's GPUs: NVLink-joined Hopper */
    struct launch_set s;
    launch_build(&in, &o, &s);
    const struct launch_cmd *v = find(&s, "vllm", "serve");
    /* 256 sequences / 4 DP ranks = 64; 2048 tokens / 4 = 512 */
    /* the DeepEP all-to-all llmroof costs, not vLLM's default all-gather / reduce-scatter: one
     * backend for every step of an aggregated instance, the decode kernels (a note says so) */
    assert_string_equal(v->cmd, "vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 1 --data-parallel-size 4 "
                                "--enable-expert-parallel --all2all-backend deepep_low_latency --max-num-seqs 64 "
                                "--max-num-batched-tokens 512");
    assert_non_null(strstr(v->note, "per data-parallel rank"));
    assert_non_null(strstr(v->note, "vLLM runs one --all2all-backend for every step"));
    const struct launch_cmd *g = find(&s, "sglang", "serve");
    assert_non_null(strstr(g->cmd, " --tp 4 --dp 4 --enable-dp-attention --ep-size 4 --moe-a2a-backend deepep "));
    const struct launch_cmd *t = find(&s, "trtllm", "serve");
    /* TensorRT-LLM's limits are per attention-DP rank too (each rank's PyExecutor schedules
     * alone): 64 and 512, not the instance's 256 and 2048 */
    assert_string_equal(t->cmd, "trtllm-serve Qwen/Qwen3-235B-A22B --tp_size 4 --ep_size 4 --max_batch_size 64 "
                                "--max_num_tokens 512");
    assert_null(strstr(t->cmd, "attention")); /* no such flag: left out */
    assert_non_null(strstr(t->note, "enable_attention_dp"));
    assert_non_null(strstr(t->note, "per attention data-parallel rank (the instance's 256 sequences and 2048 tokens "
                                    "over 4 ranks)"));
    assert_int_equal(t->gpus_per_instance, 4);
    /* DPA-4+MoETP-4 (mode 4): the same replicas, every expert split by width over the 4 GPUs:
     * vLLM's data parallelism without --enable-expert-parallel, SGLang's without --ep-size */
    o = feasible(4, 4);
    launch_build(&in, &o, &s);
    v = find(&s, "vllm", "serve");
    assert_string_equal(v->cmd, "vllm serve Qwen/Qwen3-235B-A22B --tensor-parallel-size 1 --data-parallel-size 4 "
                                "--max-num-seqs 64 --max-num-batched-tokens 512");
    g = find(&s, "sglang", "serve");
    assert_non_null(strstr(g->cmd, " --tp 4 --dp 4 --enable-dp-attention --max-running-requests "));
    assert_null(strstr(g->cmd, "--ep-size"));
    t = find(&s, "trtllm", "serve");
    assert_string_equal(t->cmd, "trtllm-serve Qwen/Qwen3-235B-A22B --tp_size 4 --max_batch_size 64 --max_num_tokens 512");
    assert_int_equal(t->gpus_per_instance, 4);
    /* under the tensorrt-llm profile (dp_rank_scheduler: each rank holds the profile's 2,048
     * sequences and 8,192 tokens) a rank's flags are the profile's, the instance 4 times them */
    struct llmroof_err err = { 0 };
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    in.eff.engine = catalog_find_engine(&cat, "tensorrt-llm-pytorch");
    assert_non_null(in.eff.engine);
    launch_build(&in, &o, &s);
    t = find(&s, "trtllm", "serve");
    assert_string_equal(t->cmd, "trtllm-serve Qwen/Qwen3-235B-A22B --tp_size 4 --max_batch_size 2048 --max_num_tokens 8192");
    assert_non_null(strstr(t->note, "(the instance's 8192 sequences and 32768 tokens over 4 ranks)"));
    /* without attention DP the rank is the instance: TP-4 keeps 2,048 and 8,192 */
    o = feasible(4, 0);
    launch_build(&in, &o, &s);
    t = find(&s, "trtllm", "serve");
    assert_string_equal(t->cmd, "trtllm-serve Qwen/Qwen3-235B-A22B --tp_size 4 --max_batch_size 2048 --max_num_tokens 8192");
    assert_null(strstr(t->note, "per attention"));
    assert_null(strstr(t->note, "--backend"));
    /* the tensorrt-llm profile is the TensorRT engines: the line is the one 0.x runs (its
     * --backend took only pytorch), and a note says that 1.x, whose default is the PyTorch
     * backend, needs --backend tensorrt */
    in.eff.engine = catalog_find_engine(&cat, "tensorrt-llm");
    launch_build(&in, &o, &s);
    t = find(&s, "trtllm", "serve");
    assert_string_equal(t->cmd, "trtllm-serve Qwen/Qwen3-235B-A22B --tp_size 4 --max_batch_size 2048 --max_num_tokens 8192");
    assert_non_null(strstr(t->note, "under TensorRT-LLM 1.x, whose default is the PyTorch backend, add --backend tensorrt"));
    /* neither profile chunks prompts; a plan that did (the generic profile's chunked prefill)
     * says how TensorRT-LLM is told, which prefills whole prompts by default */
    assert_null(strstr(t->note, "enable_chunked_prefill"));
    in.eff.engine = NULL;
    in.sim.chunked_prefill = true;
    launch_build(&in, &o, &s);
    t = find(&s, "trtllm", "serve");
    assert_non_null(strstr(t->note, "'enable_chunked_prefill: true' in the --extra_llm_api_options YAML file"));
    catalog_free(&cat);
}

static void pipeline_and_fp8_flags_where_engines_have_them(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "llama-3.1-70b"));
    in.dt.weight = LLMROOF_FP8;
    in.dt.kv = LLMROOF_FP8;
    struct plan_option o = feasible(2, 3); /* TP-2+PP-2: 4 GPUs */
    struct launch_set s;
    launch_build(&in, &o, &s);
    const struct launch_cmd *v = find(&s, "vllm", "serve");
    assert_non_null(strstr(v->cmd, "--tensor-parallel-size 2 --pipeline-parallel-size 2 "));
    assert_non_null(strstr(v->cmd, "--kv-cache-dtype fp8 --quantization fp8"));
    assert_int_equal(v->gpus_per_instance, 4); /* 2 x 2 */
    assert_non_null(strstr(find(&s, "sglang", "serve")->cmd, "--pp-size 2"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->cmd, "--kv-cache-dtype fp8_e4m3 --quantization fp8"));
    const struct launch_cmd *t = find(&s, "trtllm", "serve");
    assert_non_null(strstr(t->cmd, "--tp_size 2 --pp_size 2 "));
    assert_null(strstr(t->cmd, "fp8")); /* trtllm-serve has neither flag */
    assert_non_null(strstr(t->note, "kv_cache_config"));
    in.dt.kv = LLMROOF_INT4; /* no engine stores KV in int4 */
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "vllm", "serve")->cmd, "--kv-cache-dtype"));
    assert_non_null(strstr(find(&s, "vllm", "serve")->note, "no int4 KV cache"));
    assert_null(strstr(v->note, "spans")); /* no node size given: no multi-node note */
    /* TP-8+PP-2 = 16 GPUs on 8-GPU nodes: ceil(16 / 8) = 2 nodes, said on every engine */
    in.gpus_per_node = 8;
    o = feasible(8, 3);
    launch_build(&in, &o, &s);
    assert_int_equal(find(&s, "vllm", "serve")->gpus_per_instance, 16);
    assert_non_null(strstr(find(&s, "vllm", "serve")->note, "an instance spans 2 nodes"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->note, "--nnodes"));
    assert_non_null(strstr(find(&s, "trtllm", "serve")->note, "spans 2 nodes"));
    o = feasible(2, 3); /* 4 GPUs: within a node */
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "vllm", "serve")->note, "spans"));
    catalog_free(&cat);
}

static void disaggregated_plan_gives_prefill_and_decode_pools_with_a_connector(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "llama-3.1-70b"));
    struct plan_option o = feasible(4, 0);
    o.disagg = true;
    o.prefill_tp = 2;
    o.prefill_instances = 1;
    o.decode_instances = 3;
    struct launch_set s;
    launch_build(&in, &o, &s);
    assert_int_equal(s.n, 6); /* 3 engines x (prefill, decode) */
    const struct launch_cmd *p = find(&s, "vllm", "prefill"), *d = find(&s, "vllm", "decode");
    assert_int_equal(p->instances, 1);
    assert_int_equal(p->gpus_per_instance, 2);
    assert_int_equal(d->instances, 3);
    assert_int_equal(d->gpus_per_instance, 4);
    assert_non_null(strstr(p->cmd, "NixlConnector"));
    assert_non_null(strstr(find(&s, "sglang", "decode")->cmd, "--disaggregation-mode decode"));
    assert_non_null(strstr(find(&s, "sglang", "prefill")->cmd, "--disaggregation-transfer-backend mooncake"));
    catalog_free(&cat);
}

static void infeasible_row_and_model_without_repo(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "gpt3-175b")); /* the catalog names no HuggingFace repository */
    struct plan_option o = feasible(8, 0);
    struct launch_set s;
    launch_build(&in, &o, &s);
    assert_int_equal(s.n, 3);
    assert_non_null(strstr(s.c[0].cmd, "vllm serve gpt3-175b "));
    assert_non_null(strstr(s.c[0].note, "replace MODEL"));
    o.feasible = false;
    launch_build(&in, &o, &s);
    assert_int_equal(s.n, 0);
    catalog_free(&cat);
}

/* An fp32 recurrent state (--state-dtype fp32) on a model with recurrent layers: vLLM's
 * --mamba-cache-dtype float32, SGLang's own default (no flag); a 16-bit state: nothing for vLLM
 * (auto), SGLang's --mamba-ssm-dtype; on a model without them, nothing; fp8 state: a note. */
static void fp32_state_sets_vllm_mamba_cache_dtype(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "nemotron-nano-9b-v2"));
    in.dt.state_set = true;
    in.dt.state = LLMROOF_FP32;
    struct plan_option o = feasible(1, 0);
    struct launch_set s;
    launch_build(&in, &o, &s);
    const struct launch_cmd *v = find(&s, "vllm", "serve");
    assert_string_equal(v->cmd, "vllm serve nvidia/NVIDIA-Nemotron-Nano-9B-v2 --tensor-parallel-size 1 "
                                "--max-num-seqs 256 --max-num-batched-tokens 2048 --mamba-cache-dtype float32");
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "mamba"));
    in.dt.state = LLMROOF_FP16; /* the model's own width: vLLM's auto, below SGLang's float32 */
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "vllm", "serve")->cmd, "mamba"));
    /* SGLang's --mamba-ssm-dtype takes float32 or bfloat16 (MAMBA_SSM_DTYPE_CHOICES): "float16"
     * made the whole command fail its argument parsing; bfloat16 holds the same two bytes */
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "dtype float16"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->cmd, " --mamba-ssm-dtype bfloat16"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->note, "takes float32 or bfloat16"));
    in.dt.state = LLMROOF_BF16;
    launch_build(&in, &o, &s);
    assert_non_null(strstr(find(&s, "sglang", "serve")->cmd, " --mamba-ssm-dtype bfloat16"));
    in.dt.state = LLMROOF_FP8;
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "vllm", "serve")->cmd, "mamba"));
    assert_non_null(strstr(find(&s, "vllm", "serve")->note, "no fp8 recurrent state"));
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "mamba"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->note, "no fp8 SSM state"));
    /* a model with attention only: no recurrent cache to size */
    setup_in(&in, model(&cat, "llama-3.1-70b"));
    in.dt.state_set = true;
    in.dt.state = LLMROOF_FP32;
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "vllm", "serve")->cmd, "mamba"));
    catalog_free(&cat);
}

/* The plan's own EP wider than TP x DP (TP-8 with --ep 16 over two nodes): vLLM has no EP flag of
 * its own (its EP size is TP x DP = 8 x 1), so the note names both numbers. Before, the note's
 * "%s" took the long argument: undefined behaviour, garbage or a crash. */
static void vllm_notes_an_ep_it_cannot_set(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    setup_in(&in, model(&cat, "deepseek-v3"));
    in.layout.ep = 16;
    struct plan_option o = feasible(8, 0);
    o.gpu = catalog_find_gpu(&cat, "h100-sxm5-80gb");
    struct launch_set s;
    launch_build(&in, &o, &s);
    const struct launch_cmd *v = find(&s, "vllm", "serve");
    assert_non_null(strstr(v->note, "vLLM sets the EP size to TP x DP = 8 (no flag for EP 16)"));
    assert_int_equal(v->gpus_per_instance, 16); /* max(16, 8 x 1) */
    /* TP + EP without data parallelism: vLLM's all-to-all kernels need dp_size > 1, so no backend
     * flag, and a note that its experts reduce over the TP group instead */
    assert_null(strstr(v->cmd, "--all2all-backend"));
    assert_non_null(strstr(v->note, "without data parallelism vLLM's experts reduce over the TP group"));
    /* DeepSeek-V3's own checkpoint is block fp8: no --quantization flag re-quantizes it (SGLang's
     * DeepSeek guide), while a 16-bit checkpoint at --weight-dtype fp8 takes one (test above) */
    in.dt.weight = LLMROOF_FP8;
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "vllm", "serve")->cmd, "--quantization"));
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "--quantization"));
    /* without data-parallel attention llmroof costs the experts' reduction as an all-reduce over
     * the TP group: SGLang's default backend, not DeepEP (a review: the DeepEP flag was printed for
     * a layout costed without it) */
    assert_non_null(strstr(find(&s, "sglang", "serve")->cmd, "--ep-size 16"));
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "deepep"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->note, "without data-parallel attention the experts reduce"));
    /* with it, DeepEP's all-to-all, as costed */
    in.layout.dp_attn = true;
    struct plan_option od = o;
    od.mode = 2; /* DPA-n+EP-n */
    launch_build(&in, &od, &s);
    assert_non_null(strstr(find(&s, "sglang", "serve")->cmd, "--moe-a2a-backend deepep"));
    in.layout.dp_attn = false;
    /* DeepEP runs on NVLink-joined Hopper and Blackwell only: an MI300X or a PCIe L40S row names no
     * DeepEP backend and says which path runs instead (a reviewer: the server would not start) */
    od.gpu = catalog_find_gpu(&cat, "mi300x");
    in.layout.dp_attn = true;
    launch_build(&in, &od, &s);
    in.layout.dp_attn = false;
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "deepep"));
    assert_non_null(strstr(find(&s, "sglang", "serve")->note, "SGLang's default expert path"));
    o.gpu = catalog_find_gpu(&cat, "mi300x");
    o.gpu = catalog_find_gpu(&cat, "l40s");
    launch_build(&in, &o, &s);
    assert_null(strstr(find(&s, "sglang", "serve")->cmd, "deepep"));
    catalog_free(&cat);
}

/* A plan simulated with one engine's profile prints that engine's command alone: a vLLM line
 * under -e tensorrt-llm carried TensorRT-LLM's 2,048 sequences and 8,192 tokens, limits and a
 * speed the vLLM run was never simulated at. Another engine, or an older release than the
 * commands' flags, gets none. */
static void an_engine_profile_prints_its_own_command_alone(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    struct plan_input in;
    setup_in(&in, model(&cat, "llama-3.1-8b"));
    struct plan_option o = feasible(1, 0);
    struct launch_set s;
    static const struct { const char *engine, *only; } cases[] = {
        { "tensorrt-llm", "trtllm" }, { "tensorrt-llm-pytorch", "trtllm" }, { "vllm", "vllm" },
        { "vllm-0.8", "vllm" }, { "sglang", "sglang" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        in.eff.engine = catalog_find_engine(&cat, cases[i].engine);
        assert_non_null(in.eff.engine);
        launch_build(&in, &o, &s);
        assert_int_equal(s.n, 1);
        assert_string_equal(s.c[0].engine, cases[i].only);
    }
    in.eff.engine = catalog_find_engine(&cat, "tensorrt-llm");
    launch_build(&in, &o, &s);
    assert_null(strstr(s.c[0].cmd, "vllm"));
    /* another engine, or an older release whose flags differ (vLLM 0.2 had no `vllm serve`) */
    static const char *const none[] = { "lmdeploy", "vllm-0.2", "vllm-0.6", "sglang-0.3", "tensorrt-llm-early",
                                        "nemo-trtllm" };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        in.eff.engine = catalog_find_engine(&cat, none[i]);
        assert_non_null(in.eff.engine);
        launch_build(&in, &o, &s);
        assert_int_equal(s.n, 0);
    }
    in.eff.engine = NULL; /* the generic profile: all three */
    launch_build(&in, &o, &s);
    assert_int_equal(s.n, 3);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tp_layout_gives_one_command_per_engine_with_the_hf_repo),
        cmocka_unit_test(dp_attention_splits_vllm_limits_and_notes_trtllm_yaml),
        cmocka_unit_test(vllm_notes_an_ep_it_cannot_set),
        cmocka_unit_test(pipeline_and_fp8_flags_where_engines_have_them),
        cmocka_unit_test(disaggregated_plan_gives_prefill_and_decode_pools_with_a_connector),
        cmocka_unit_test(infeasible_row_and_model_without_repo),
        cmocka_unit_test(fp32_state_sets_vllm_mamba_cache_dtype),
        cmocka_unit_test(an_engine_profile_prints_its_own_command_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
