/* test_memory.c - weights, KV cache and capacity against the background studies' figures. */
#include "helpers.h"

#include "model/arch.h"
#include "model/ckpt.h"
#include "model/memory.h"
#include "model/ops.h"

/* The studies' "theoretical" assumptions: all memory usable, nothing else resident. */
static struct llmroof_mem_opts theoretical(void)
{
    struct llmroof_mem_opts o = memory_default_opts();
    o.mem_util = 1.0;
    o.reserve_bytes = 0;
    o.workspace_set = true;
    o.workspace_bytes = 0;
    return o;
}

static struct llmroof_memory eval(const struct llmroof_catalog *cat, const char *m, const char *g, int tp,
                                  enum llmroof_dtype w, enum llmroof_dtype kv, long ctx, struct llmroof_mem_opts o)
{
    struct llmroof_dtypes dt = { w, kv, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    if (memory_eval(model(cat, m), gpu(cat, g), tp, &dt, ctx, &o, &mem, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    return mem;
}

static void llama_13b_on_8_v100_holds_147_sequences_of_2048(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_memory m = eval(&cat, "llama-13b", "v100-sxm2-32gb", 8, LLMROOF_FP16, LLMROOF_FP16, 2048, theoretical());
    /* KV per token = 2 (K,V) * 40 layers * 40 heads * 128 * 2 B = 4*40*5120 = 819,200 B (0.78 MiB,
     * not the studies' "about 1 MB"); per GPU / 8 = 102,400 B */
    assert_rel_close(m.kv_bytes_per_token, 819200.0, 0);
    assert_rel_close(m.kv_bytes_per_token_per_gpu, 102400.0, 0);
    /* weights per GPU: layer shard = 4*5120^2/8 + 3*5120*13824/8 + 2*5120 = 39,659,520 params;
     * x40 = 1,586,380,800; + final norm 5,120 + embedding 4000*5120 + LM head 4000*5120
     * = 1,627,345,920 params = 3,254,691,840 B */
    assert_rel_close(m.weights_bytes_per_gpu, 3254691840.0, 0);
    /* capacity = (34,089,730,048 B the runtime reports of the 32 GiB - 3,254,691,840) / 102,400
     * = 301,123.4 -> 301,123 tokens; 301,123 / 2048 = 147.03 -> 147 (the studies estimated 116) */
    assert_rel_close(m.visible_bytes, 34089730048.0, 0);
    assert_rel_close(m.usable_bytes, 34089730048.0, 0); /* mem_util 1 */
    assert_rel_close(m.kv_capacity_tokens, 301123.0, 0);
    assert_rel_close(m.max_batch, 147.0, 0);
    assert_true(m.fits);
    /* int8 weights: (34,089,730,048 - 1,627,345,920) / 102,400 = 317,015 tokens -> 154 (studies: 122) */
    m = eval(&cat, "llama-13b", "v100-sxm2-32gb", 8, LLMROOF_INT8, LLMROOF_FP16, 2048, theoretical());
    assert_rel_close(m.max_batch, 154.0, 0);
    catalog_free(&cat);
}

/* Engines take --mem-util of the memory the runtime reports, not of the marketed capacity: the
 * H100 SXM5 reports 85,017,493,504 of its 85,899,345,920 B (catalog memory_visible_bytes). A GPU
 * entry without the field is taken at its full memory. */
static void mem_util_is_a_share_of_the_memory_the_runtime_reports(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_mem_opts o = memory_default_opts(); /* 0.90, 1 GiB reserve */
    struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_gpu g = *gpu(&cat, "h100-sxm5-80gb");
    struct llmroof_memory a, b;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval(model(&cat, "llama-2-7b"), &g, 1, &dt, 2048, &o, &a, &err), 0);
    /* 0.9 x 85,017,493,504 = 76,515,744,153.6 */
    assert_rel_close(a.gpu_memory_bytes, 85899345920.0, 0);
    assert_rel_close(a.visible_bytes, 85017493504.0, 0);
    assert_rel_close(a.usable_bytes, 76515744153.6, 1e-12);
    g.memory_visible_bytes = 0; /* not given */
    assert_int_equal(memory_eval(model(&cat, "llama-2-7b"), &g, 1, &dt, 2048, &o, &b, &err), 0);
    assert_rel_close(b.usable_bytes, 0.9 * 85899345920.0, 1e-12);
    /* the 881,852,416 B the runtime does not hand out, less 10%, are 793,667,174 B of KV:
     * 1,513 tokens of Llama-2-7B's 524,288 B each */
    assert_rel_close(b.kv_capacity_bytes_per_gpu - a.kv_capacity_bytes_per_gpu, 0.9 * 881852416.0, 1e-9);
    catalog_free(&cat);
}

/* TensorRT-LLM and LMDeploy size the KV cache as a share of the memory left once the engine is
 * loaded (engine kv_of_free_memory), vLLM as the engine's share of the device. Llama-3.1-70B fp8
 * on one H100 SXM5 (79.18 GiB visible), weights 70,553,706,496 B at one byte a parameter plus one
 * more for each of the bf16 embedding's and LM head's 2 x 128,256 x 8,192 = 2,101,346,304:
 * 72,655,052,800 B; workspace W and reserve 1 GiB:
 *   vLLM:         0.9 x 85,017,493,504 - 72,655,052,800 - W - 1,073,741,824
 *   TensorRT-LLM: 0.9 x (85,017,493,504 - 72,655,052,800 - W - 1,073,741,824)
 * the second larger by 0.1 x (72,655,052,800 + W + 1,073,741,824), 7.43 GB with W 592,707,584. */
static void a_free_memory_fraction_sizes_the_kv_from_what_is_left(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_mem_opts o = memory_default_opts();
    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory a, b;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval(model(&cat, "llama-3.1-70b"), gpu(&cat, "h100-sxm5-80gb"), 1, &dt, 2048, &o, &a, &err), 0);
    o.util_of_free = true;
    assert_int_equal(memory_eval(model(&cat, "llama-3.1-70b"), gpu(&cat, "h100-sxm5-80gb"), 1, &dt, 2048, &o, &b, &err), 0);
    const double W = a.workspace_bytes_per_gpu;
    assert_rel_close(a.weights_bytes_per_gpu, 72655052800.0, 0);
    assert_rel_close(a.kv_capacity_bytes_per_gpu, 0.9 * 85017493504.0 - 72655052800.0 - W - 1073741824.0, 1e-12);
    assert_rel_close(b.kv_capacity_bytes_per_gpu, 0.9 * (85017493504.0 - 72655052800.0 - W - 1073741824.0), 1e-12);
    assert_rel_close(b.kv_capacity_bytes_per_gpu - a.kv_capacity_bytes_per_gpu,
                     0.1 * (72655052800.0 + W + 1073741824.0), 1e-9);
    assert_rel_close(b.usable_bytes, 85017493504.0, 0); /* the engine may use all it sees */
    /* the shipped profiles that say so */
    assert_true(shipped_engine(&cat, "tensorrt-llm")->kv_of_free_memory);
    assert_true(shipped_engine(&cat, "lmdeploy")->kv_of_free_memory);
    assert_false(shipped_engine(&cat, "vllm")->kv_of_free_memory);
    catalog_free(&cat);
}

/* TGI 0.8 (engine kv_copy) copies its contiguous K/V into a fresh tensor every decode step, old
 * and new alive together: the batch's K/V may fill half of what is free. LLaMA-13B fp16 on one
 * A100 40GB (42,298,834,944 B visible): free = 0.9 x 42,298,834,944 - 26,031,728,640 weights -
 * W - 1,073,741,824 reserve; with W = 582,221,824 (the profile's 4096-token budget's) that is
 * 10,381,259,161.6 B, half 5,190,629,580.8 B: floor(/ 819,200 B a token) = 6,336 tokens. */
static void a_copied_kv_tensor_halves_the_pool(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_mem_opts o = memory_default_opts();
    o.max_batched_tokens = 4096;
    struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory a, b;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval(model(&cat, "llama-13b"), gpu(&cat, "a100-sxm4-40gb"), 1, &dt, 2048, &o, &a, &err), 0);
    o.kv_copy = true;
    assert_int_equal(memory_eval(model(&cat, "llama-13b"), gpu(&cat, "a100-sxm4-40gb"), 1, &dt, 2048, &o, &b, &err), 0);
    assert_rel_close(a.workspace_bytes_per_gpu, 582221824.0, 0);
    assert_rel_close(b.kv_capacity_bytes_per_gpu, 0.5 * a.kv_capacity_bytes_per_gpu, 0);
    assert_rel_close(b.kv_capacity_bytes_per_gpu, 0.5 * (0.9 * 42298834944.0 - 26031728640.0 - 582221824.0 - 1073741824.0),
                     1e-12);
    assert_rel_close(b.kv_capacity_tokens, 6336.0, 0);
    assert_true(shipped_engine(&cat, "tgi-0.8")->kv_copy);
    assert_false(shipped_engine(&cat, "tgi")->kv_copy);
    catalog_free(&cat);
}

static void llama_65b_is_2_5_mib_per_token_and_26_sequences(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_memory m = eval(&cat, "llama-65b", "v100-sxm2-32gb", 8, LLMROOF_FP16, LLMROOF_FP16, 2048, theoretical());
    /* 2 * 80 * 64 * 128 * 2 = 2,621,440 B = 2.5 MiB */
    assert_rel_close(m.kv_bytes_per_token, 2621440.0, 0);
    /* weights/GPU 16,323,723,264 B (65.29B params * 2 / 8 with replicated norms);
     * (34,089,730,048 - 16,323,723,264) / 327,680 = 54,217.2 -> 54,217 tokens -> 26 sequences */
    assert_rel_close(m.kv_capacity_tokens, 54217.0, 0);
    assert_rel_close(m.max_batch, 26.0, 0);
    catalog_free(&cat);
}

static void gqa_fp8_and_replication(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_memory m = eval(&cat, "llama-2-70b", "a100-sxm4-80gb", 8, LLMROOF_FP16, LLMROOF_FP16, 4096, theoretical());
    /* GQA: 2 * 80 * 8 * 128 * 2 = 327,680 B = 320 KiB per token; 40,960 B per GPU at TP 8 */
    assert_rel_close(m.kv_bytes_per_token, 327680.0, 0);
    assert_rel_close(m.kv_bytes_per_token_per_gpu, 40960.0, 0);
    /* TP 16 > 8 KV heads: each rank keeps one replicated head, so still 40,960 B per GPU (not 20,480) */
    m = eval(&cat, "llama-2-70b", "a100-sxm4-80gb", 16, LLMROOF_FP16, LLMROOF_FP16, 4096, theoretical());
    assert_rel_close(m.kv_bytes_per_token_per_gpu, 40960.0, 0);
    /* fp8 KV halves it: llama-2-7b 2*32*32*128*1 = 262,144 B */
    m = eval(&cat, "llama-2-7b", "h100", 1, LLMROOF_FP16, LLMROOF_FP8, 4096, theoretical());
    assert_rel_close(m.kv_bytes_per_token, 262144.0, 0);
    catalog_free(&cat);
}

/* An engine whose formats quantize every matrix (quantized_head: llama.cpp, gpt-fast, MLC) */
static void tp1_weights_are_all_parameters_at_the_weight_dtype(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < cat.n_models; i++) {
        struct llmroof_dtypes dt = { LLMROOF_INT4, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, true, LLMROOF_ACT_QUANT_SEPARATE, false };
        struct llmroof_memory m;
        struct llmroof_err err = { 0 };
        struct llmroof_mem_opts o = theoretical();
        assert_int_equal(memory_eval(&cat.models[i], gpu(&cat, "h200"), 1, &dt, 1, &o, &m, &err), 0);
        /* int4: half a byte per parameter; llama-2-7b: 6,738,415,616 * 0.5 = 3,369,207,808 B */
        assert_rel_close(m.weights_bytes_per_gpu, arch_params(&cat.models[i]).total * 0.5, 1e-12);
    }
    catalog_free(&cat);
}

/* AWQ, GPTQ, llm-compressor, Model Optimizer and vLLM's --quantization fp8 leave the embedding and
 * the LM head 16-bit (ops_unquantized_bytes). Llama-3-8B at int4: its 8,030,261,248 parameters
 * hold a 128,256 x 4,096 = 525,336,576-weight embedding and a head as large, so
 *   (8,030,261,248 - 2 x 525,336,576) x 0.5 + 2 x 525,336,576 x 2 = 3,489,794,048 + 2,101,346,304
 *   = 5,591,140,352 B, against 8,030,261,248 x 0.5 = 4,015,130,624 B with the head quantized too */
static void quantized_weights_keep_the_embedding_and_head_16_bit(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-3-8b");
    assert_rel_close(arch_params(m).total, 8030261248.0, 0);
    struct llmroof_dtypes dt = { LLMROOF_INT4, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    struct llmroof_mem_opts o = theoretical();
    assert_int_equal(memory_eval(m, gpu(&cat, "h100"), 1, &dt, 1, &o, &mem, &err), 0);
    assert_rel_close(mem.weights_bytes_per_gpu, 5591140352.0, 1e-12);
    dt.head_quantized = true;
    assert_int_equal(memory_eval(m, gpu(&cat, "h100"), 1, &dt, 1, &o, &mem, &err), 0);
    assert_rel_close(mem.weights_bytes_per_gpu, 4015130624.0, 1e-12);
    /* 16-bit weights are unchanged by either rule: 8,030,261,248 x 2 */
    dt.weight = LLMROOF_FP16;
    dt.head_quantized = false;
    assert_int_equal(memory_eval(m, gpu(&cat, "h100"), 1, &dt, 1, &o, &mem, &err), 0);
    assert_rel_close(mem.weights_bytes_per_gpu, 16060522496.0, 1e-12);
    /* the command line takes the rule from the engine profile */
    const struct llmroof_dtypes given = { LLMROOF_INT4, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    assert_false(ckpt_dtypes(m, shipped_engine(&cat, "vllm"), given, true).head_quantized);
    assert_false(ckpt_dtypes(m, NULL, given, true).head_quantized);
    assert_true(ckpt_dtypes(m, shipped_engine(&cat, "llama.cpp-2024-06"), given, true).head_quantized);
    assert_true(ckpt_dtypes(m, shipped_engine(&cat, "gpt-fast"), given, true).head_quantized);
    catalog_free(&cat);
}

static void a_model_that_does_not_fit_says_so(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_memory m = eval(&cat, "llama-3.1-405b", "l4", 1, LLMROOF_FP16, LLMROOF_FP16, 2048, memory_default_opts());
    assert_false(m.fits);
    assert_int_equal(m.fit, LLMROOF_FIT_WEIGHTS);
    assert_rel_close(m.kv_capacity_tokens, 0, 0);
    assert_rel_close(m.max_batch, 0, 0);
    /* 811.7 GB of fp16 weights: /32 = 25.4 GB > 21.6 GiB usable; /64 = 12.7 GB fits */
    assert_int_equal(m.min_tp_fit, 64);
    /* weights fit but not one 10M... 1,000,000-token context on an A100-40GB with llama-2-7b */
    m = eval(&cat, "llama-2-7b", "a100", 1, LLMROOF_FP16, LLMROOF_FP16, 1000000, memory_default_opts());
    assert_int_equal(m.fit, LLMROOF_FIT_CONTEXT);
    catalog_free(&cat);
}

static void paged_blocks_round_each_sequence_up(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_mem_opts o = theoretical();
    o.block_size = 16;
    struct llmroof_memory m = eval(&cat, "llama-13b", "v100-sxm2-32gb", 8, LLMROOF_FP16, LLMROOF_FP16, 2050, o);
    /* 2050 tokens -> 129 blocks of 16 = 2064; capacity 301,123 -> 18,820 whole blocks = 301,120
     * tokens; 301,120 / 2064 = 145.9 -> 145 */
    assert_rel_close(m.tokens_per_seq, 2064.0, 0);
    assert_rel_close(m.max_batch, 145.0, 0);
    catalog_free(&cat);
}

static void max_batch_never_decreases_with_tp_or_mem_util(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const char *models[] = { "llama-2-7b", "llama-2-70b", "internlm-20b", "mixtral-8x7b", "llama-3-8b" };
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        double prev_tp = -1;
        for (int tp = 1; tp <= 8; tp *= 2) {
            struct llmroof_memory m = eval(&cat, models[i], "a100-sxm4-80gb", tp, LLMROOF_FP16, LLMROOF_FP16, 2048,
                                           memory_default_opts());
            assert_true(m.max_batch >= prev_tp);
            prev_tp = m.max_batch;
            double prev_u = -1;
            for (double u = 0.5; u <= 1.0; u += 0.05) {
                struct llmroof_mem_opts o = memory_default_opts();
                o.mem_util = u;
                struct llmroof_memory mu = eval(&cat, models[i], "a100-sxm4-80gb", tp, LLMROOF_FP16, LLMROOF_FP16, 2048, o);
                assert_true(mu.max_batch >= prev_u);
                prev_u = mu.max_batch;
            }
        }
    }
    catalog_free(&cat);
}

/* fp8 weights a user asks for, without --act-dtype, compute in fp8 where the GPU has an fp8 path
 * (vLLM's FP8 W8A8 docs: compute capability 8.9+; W8A16 Marlin before it); an explicit compute
 * dtype, other formats, --weight-bits and a block-fp8 checkpoint's own rule are left alone. */
static void fp8_weights_compute_in_fp8_where_the_gpu_can(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_dtypes d = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_model *l = model(&cat, "llama-3.1-8b"), *ds = model(&cat, "deepseek-v3");
    const struct llmroof_gpu *h100 = catalog_find_gpu(&cat, "h100-sxm5-80gb"), *a100 = catalog_find_gpu(&cat, "a100-sxm4-80gb");
    assert_non_null(h100);
    assert_non_null(a100);
    assert_int_equal(ckpt_gpu_dtypes(l, d, true, false, h100).act, LLMROOF_FP8);  /* W8A8 on Hopper */
    assert_int_equal(ckpt_gpu_dtypes(l, d, true, false, a100).act, LLMROOF_FP16); /* W8A16 on Ampere */
    assert_int_equal(ckpt_gpu_dtypes(l, d, true, true, h100).act, LLMROOF_FP16);  /* --act-dtype fp16 wins */
    assert_int_equal(ckpt_gpu_dtypes(l, d, false, false, h100).act, LLMROOF_FP16); /* not asked for */
    assert_int_equal(ckpt_gpu_dtypes(ds, d, true, false, h100).act, LLMROOF_FP16); /* block fp8: per operator */
    struct llmroof_dtypes b = d;
    b.weight_bits = 8.5; /* a grouped 8-bit format named by its bits */
    assert_int_equal(ckpt_gpu_dtypes(l, b, true, false, h100).act, LLMROOF_FP16);
    b = d;
    b.weight = LLMROOF_INT8; /* int8 weights stay weight-only unless W8A8 is asked for */
    assert_int_equal(ckpt_gpu_dtypes(l, b, true, false, h100).act, LLMROOF_FP16);
    catalog_free(&cat);
}

/* Checkpoint dtypes (issue 22, item 5): the catalog's checkpoint block decides the default
 * weight dtype; an explicit --weight-dtype or --weight-bits wins; models without one keep the
 * given dtype. */
static void checkpoint_dtype_is_the_default_and_names_itself(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_dtypes fp16 = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    char buf[128];
    /* DeepSeek-V3: quantization_config fp8 -> fp8 weights by default */
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_dtypes d = ckpt_dtypes(ds, NULL, fp16, false);
    assert_int_equal(d.weight, LLMROOF_FP8);
    assert_int_equal(d.kv, LLMROOF_FP16); /* only the weights follow the checkpoint */
    ckpt_weight_desc(ds, &d, buf, sizeof buf);
    /* the block-fp8 checkpoint ships its embedding, head and routers bf16: said with it */
    assert_string_equal(buf, "fp8 weights (the checkpoint's; embedding, LM head and router bf16)");
    assert_int_equal(ckpt_dtypes(ds, NULL, fp16, true).weight, LLMROOF_FP16); /* --weight-dtype fp16 wins */
    struct llmroof_dtypes bits = fp16;
    bits.weight_bits = 4.5;
    assert_int_equal(ckpt_dtypes(ds, NULL, bits, false).weight, LLMROOF_FP16); /* --weight-bits wins */
    /* gpt-oss-120b: MXFP4 experts (4.25 bits), bf16 elsewhere */
    const struct llmroof_model *oss = model(&cat, "gpt-oss-120b");
    d = ckpt_dtypes(oss, NULL, fp16, false);
    assert_int_equal(d.weight, LLMROOF_BF16);
    ckpt_weight_desc(oss, &d, buf, sizeof buf);
    assert_string_equal(buf, "bf16 weights, MXFP4 experts (the checkpoint's)");
    ckpt_weight_desc(oss, &fp16, buf, sizeof buf);
    assert_string_equal(buf, "fp16 weights, MXFP4 experts"); /* experts stay 4.25 bits < 16 */
    struct llmroof_dtypes i4 = fp16;
    i4.weight = LLMROOF_INT4;
    ckpt_weight_desc(oss, &i4, buf, sizeof buf);
    /* 4 bits < 4.25: the experts are int4 too; the embedding, head and router stay 16-bit */
    assert_string_equal(buf, "int4 weights (embedding, LM head and router 16-bit)");
    i4.head_quantized = true; /* an engine that quantizes them too (llama.cpp) */
    ckpt_weight_desc(oss, &i4, buf, sizeof buf);
    assert_string_equal(buf, "int4 weights");
    /* llama-2-7b: no checkpoint block, nothing changes */
    const struct llmroof_model *l2 = model(&cat, "llama-2-7b");
    assert_int_equal(ckpt_dtypes(l2, NULL, fp16, false).weight, LLMROOF_FP16);
    ckpt_weight_desc(l2, &bits, buf, sizeof buf);
    /* --weight-bits 4.5 alone: fp16 holds 16 to under 32 bits, so the bits alone are named */
    assert_string_equal(buf, "4.5-bit weights (embedding and LM head 16-bit)");
    struct llmroof_dtypes b4 = bits;
    b4.weight = LLMROOF_INT4;
    ckpt_weight_desc(l2, &b4, buf, sizeof buf);
    assert_string_equal(buf, "int4 (4.5 bits) weights (embedding and LM head 16-bit)");
    catalog_free(&cat);
}

/* The fitting suggestion: DeepSeek-V3 at TP 8 on H200 (126.9 GiB usable): fp16 weights need
 * 159.15 GiB per GPU (does not fit), fp8 about half, 80 GiB (fits) -> fp8. Only a dtype
 * smaller than the given one is ever suggested: from int4 there is none. */
static void a_smaller_weight_dtype_that_fits_is_suggested(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_dtypes fp16 = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_layout lay = { 8, 1, 1, false, 1.0, false, 0, false, false, false };
    const struct llmroof_mem_opts o = memory_default_opts();
    enum llmroof_dtype out = LLMROOF_FP32;
    assert_true(ckpt_fitting_weight_dtype(model(&cat, "deepseek-v3"), gpu(&cat, "h200"), &lay, &fp16, 2048, &o, &out));
    assert_int_equal(out, LLMROOF_FP8);
    /* int4 weights: nothing smaller to suggest */
    struct llmroof_dtypes i4 = fp16;
    i4.weight = LLMROOF_INT4;
    assert_false(ckpt_fitting_weight_dtype(model(&cat, "deepseek-v3"), gpu(&cat, "h200"), &lay, &i4, 2048, &o, &out));
    catalog_free(&cat);
}

/* Data-parallel attention (issue 23, defect 2): a GPU's workspace follows its replica's share of
 * the instance's budget, and the instance's KV capacity is the replicas' together (one rule for
 * memory, simulate and plan). DeepSeek-V3 fp8 on 32 H100 (EP 32, 32 replicas of TP 1), budget
 * 262,144 tokens and 256 sequences: each GPU forwards 262,144 / 32 = 8,192 tokens and 8
 * sequences' logits, the workspace of a TP-1 instance with that budget (same per-rank widths:
 * 128 heads, whole experts). The whole budget would be 32 x that, about 35 GB on an 80 GB card. */
static void dp_attention_sizes_the_workspace_per_replica(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-v3");
    const struct llmroof_gpu *g = gpu(&cat, "h100");
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_mem_opts o = memory_default_opts(), o1;
    o.max_batched_tokens = 262144;
    o.max_seqs = 256;
    o1 = o;
    o1.max_batched_tokens = 8192;
    o1.max_seqs = 8;
    const struct llmroof_layout dpa = { 1, 1, 32, true, 1.0, false, 0, false, false, false }, tp1 = { 1, 1, 1, false, 1.0, false, 0, false, false, false };
    struct llmroof_memory a, b;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(m, g, &dpa, &dt, 2048, &o, &a, &err), 0);
    assert_int_equal(memory_eval_layout(m, g, &tp1, &dt, 2048, &o1, &b, &err), 0);
    assert_rel_close(a.workspace_bytes_per_gpu, b.workspace_bytes_per_gpu, 1e-12);
    assert_true(a.fits);
    /* instance KV = 32 replicas x one replica's; max batch counts sequences over all of them */
    assert_int_equal(a.attn_dp, 32);
    assert_rel_close(a.kv_capacity_tokens, 32.0 * a.kv_capacity_tokens_replica, 1e-12);
    assert_rel_close(a.max_batch, 32.0 * floor(a.kv_capacity_tokens_replica / 2048.0), 1e-12);
    catalog_free(&cat);
}

/* gpt-oss-120b as it ships (bf16, MXFP4 experts at 4.25 bits), by hand from its config (a review):
 * the routed experts' weights 128 x 36 layers x 3 x 2,880 x 2,880 = 114,661,785,600 at 0.53125 B
 * = 60,914,073,600 B; the other 116,829,156,672 - 114,661,785,600 = 2,167,371,072 parameters at
 * 2 B = 4,334,742,144 B, among them the experts' biases (128 x 36 x (2 x 2,880 + 2,880)), the
 * router's (128 x 36) and the sinks (64 x 36), which ship bf16 (they had been priced as MXFP4
 * weights, and the sinks and router biases left out: 58.5 MB short): 65,248,815,744 B.
 * Under TP the experts' width pads to a multiple of 64 (ops_expert_width): 2,880 / 8 = 360
 * -> 384 a rank, so a GPU of 8 holds 128 x 36 x 3 x 2,880 x 384 = 15,288,238,080 expert weights
 * x 0.53125 = 8,121,876,480 B (7,614,259,200 unpadded), and at 2 B: a layer's attention (8 of the
 * 64 query heads and 1 of the 8 K/V heads of 64: q 2,880 x 512 + k/v 2 x 2,880 x 64 + their
 * biases 640 + o 512 x 2,880 + its bias 2,880 + 8 sinks + 2 norms of 2,880 = 3,327,048), its
 * router and bias 368,768 and its experts' biases 128 x (2 x 384 + 2,880) = 466,944, x 36 layers
 * = 149,859,360; the embedding and the head a vocabulary shard each, 2 x 25,136 x 2,880 =
 * 144,783,360, and the final norm 2,880: 294,645,600 x 2 = 589,291,200 B. 8,711,167,680 B a GPU.
 * A model without MXFP4 experts divides exactly, and so do gpt-oss's experts served as int4 (a
 * review: the padding had followed the checkpoint, not the bytes served). */
static void gpt_oss_weights_by_hand_and_its_padded_expert_slices(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *oss = model(&cat, "gpt-oss-120b");
    const struct llmroof_memory m1 = eval(&cat, "gpt-oss-120b", "h100", 1, LLMROOF_BF16, LLMROOF_FP16, 2048, theoretical());
    assert_rel_close(m1.weights_bytes_per_gpu, 65248815744.0, 1e-15);
    static const struct { int tp; double width; } pads[] = { { 1, 2880 }, { 2, 1472 }, { 4, 768 }, { 8, 384 } };
    struct llmroof_err err = { 0 };
    const struct llmroof_dtypes bf16 = { LLMROOF_BF16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                         LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_dtypes i4 = bf16;
    i4.weight = LLMROOF_INT4;
    for (size_t i = 0; i < sizeof pads / sizeof pads[0]; i++) {
        struct llmroof_shard sh;
        assert_int_equal(ops_shard(oss, pads[i].tp, &sh, &err), 0);
        assert_rel_close(ops_expert_width(oss, &sh, &bf16), pads[i].width, 0);
        assert_rel_close(ops_expert_width(oss, &sh, &i4), 2880.0 / pads[i].tp, 0); /* int4 experts: no MXFP4 */
    }
    const struct llmroof_memory m8 = eval(&cat, "gpt-oss-120b", "h100", 8, LLMROOF_BF16, LLMROOF_FP16, 2048, theoretical());
    assert_rel_close(m8.weights_bytes_per_gpu, 8711167680.0, 1e-15);
    struct llmroof_shard q8;
    assert_int_equal(ops_shard(model(&cat, "qwen3-30b-a3b"), 8, &q8, &err), 0);
    assert_rel_close(q8.moe_intermediate_per_rank, 96.0, 0); /* 768 / 8, bf16 experts: no padding */
    catalog_free(&cat);
}

/* An EAGLE head is one full-attention layer: it caches every token whatever the target's windows.
 * gpt-oss-120b (36 layers, half of them windowed at 128; 8 K/V heads of 64 at 16 bits: 2,048 B a
 * layer a token) at 2,048 tokens: the target's per-token figure is its layers' held mean,
 * (18 x 2,048 + 18 x 128) / 36 / 2,048 x 73,728 = 39,168 B, and a 36th of it (1,088 B) had been
 * taken for the head, a window's share; the head holds 73,728 / 36 = 2,048 B a token. */
static void an_eagle_head_caches_a_full_layer_beside_windowed_layers(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_memory mem = eval(&cat, "gpt-oss-120b", "h100", 1, LLMROOF_FP16, LLMROOF_FP16, 2048, theoretical());
    assert_rel_close(mem.kv_bytes_per_token_per_gpu, 39168.0, 1e-12);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(model(&cat, "gpt-oss-120b"), 1, &sh, &err), 0);
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    double head_bytes, head_kv;
    memory_head_drafter(model(&cat, "gpt-oss-120b"), &sh, &dt, &mem, 0, 0, true, &head_bytes, &head_kv);
    assert_rel_close(head_kv, 2048.0, 1e-12);
    catalog_free(&cat);
}

/* An EAGLE head of a MoE target holds a dense MLP of its own, not a layer's share of the experts;
 * an MTP module is one of the target's layers. Qwen3-30B-A3B at TP 1, fp16 (h 2,048, 32 query and
 * 4 KV heads of 128, all 48 layers MoE): the head's layer is the target's attention, q 2,048 x
 * 4,096 + k/v 2 x 2,048 x 512 + o 4,096 x 2,048 + q/k norms 2 x 128 + two norms 2 x 2,048 =
 * 18,878,720 weights = 37,757,440 B, and in place of the experts (128 x 3 x 2,048 x 768) and
 * router a SwiGLU (8 + 0) x 768 = 6,144 wide: 3 x 2,048 x 6,144 x 2 B = 75,497,472 B; its fc 2 x
 * 2,048^2 x 2 B = 16,777,216 B: 130,032,128 B (not the target's embedding and LM head over 48
 * layers); its K/V per token is one layer's either way (4 KV heads x 128 x 2 x 2 B = 2,048). */
static void an_eagle_head_of_a_moe_target_holds_a_dense_mlp(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "qwen3-30b-a3b");
    const struct llmroof_memory mem = eval(&cat, "qwen3-30b-a3b", "h100", 1, LLMROOF_FP16, LLMROOF_FP16, 2048, theoretical());
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 1, &sh, &err), 0);
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    double eagle_bytes, eagle_kv, mtp_bytes, mtp_kv;
    memory_head_drafter(m, &sh, &dt, &mem, 0, 0, true, &eagle_bytes, &eagle_kv);
    memory_head_drafter(m, &sh, &dt, &mem, 0, 0, false, &mtp_bytes, &mtp_kv);
    assert_rel_close(mtp_bytes, mem.weights_bytes_per_gpu / 48.0, 1e-12);
    assert_rel_close(eagle_bytes, 37757440.0 + 75497472.0 + 16777216.0, 1e-12);
    assert_rel_close(eagle_kv, 2048.0, 1e-12);
    assert_rel_close(mtp_kv, 2048.0, 1e-12);
    catalog_free(&cat);
}

/* Under speculative decoding a sequence of a hybrid model holds a recurrent state per draft
 * position beside its own (mem_opts spec_states, as the simulator takes it). Qwen3-Next-80B-A3B
 * at TP 4 on an H200, 2,048 tokens, blocks of 16: 9,879,552 B of state a GPU; at 12,288 B a token
 * one state is ceil(9,879,552 / 196,608 = 50.25) = 51 blocks, four (k = 3) 39,518,208 / 196,608 =
 * 201 exactly; a sequence 128 token blocks + those: max batch floor(blocks / (128 + 51)) against
 * floor(blocks / (128 + 201)). Each state holds its layers' convolution windows: 36 gated-DeltaNet
 * layers x (32 heads x 128 x 128 + 3 x 8,192 conv channels) / 4 GPUs x 2 B = 9,879,552 B, of which
 * 442,368 the windows. SGLang keeps a state for every verified token (engine spec_state_per_token:
 * speculative_num_draft_tokens = k + 1 intermediate states and conv windows a running request),
 * one more: five, 49,397,760 / 196,608 = 251.25 -> 252 blocks, floor(blocks / (128 + 252)). */
static void speculation_keeps_a_recurrent_state_per_draft_position(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "qwen3-next-80b-a3b");
    const struct llmroof_layout lay = { .tp = 4, .pp = 1, .ep = 1 };
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_mem_opts o = theoretical();
    o.block_size = 16;
    struct llmroof_memory one, four;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &one, &err), 0);
    o.spec_states = 3;
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &four, &err), 0);
    assert_rel_close(one.state_bytes_per_seq_per_gpu, 9879552.0, 1e-12);
    assert_rel_close(four.state_bytes_per_seq_per_gpu, 9879552.0, 1e-12); /* one state's figure */
    assert_rel_close(one.kv_bytes_per_token_per_gpu, 12288.0, 1e-12);
    /* the states in the pool's K/V tokens, which kv_capacity_tokens does not take out: 9,879,552 /
     * 12,288 = 804 tokens, 50.25 blocks of 16, so 51 whole blocks = 816 tokens; with 3 copies
     * 4 x 804 = 3,216, 201 blocks exactly */
    assert_rel_close(one.state_tokens_per_seq, 816.0, 0);
    assert_rel_close(four.state_tokens_per_seq, 3216.0, 0);
    const double blocks = one.kv_capacity_tokens_replica / 16.0;
    assert_rel_close(one.max_batch, floor(blocks / (128.0 + 51.0)), 1e-12);
    assert_rel_close(four.max_batch, floor(blocks / (128.0 + 201.0)), 1e-12);
    assert_rel_close(four.state_copies, 3.0, 0);
    o.spec_state_per_token = true;
    struct llmroof_memory five;
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &five, &err), 0);
    assert_rel_close(five.state_copies, 4.0, 0);
    assert_rel_close(five.max_batch, floor(blocks / (128.0 + 252.0)), 1e-12);
    /* the rule: k draft positions, or k + 1 verified tokens; nothing without speculation */
    assert_rel_close(memory_spec_states(3, false), 3.0, 0);
    assert_rel_close(memory_spec_states(3, true), 4.0, 0);
    assert_rel_close(memory_spec_states(15, true), 16.0, 0); /* a tree of 16 tokens */
    assert_rel_close(memory_spec_states(0, true), 0.0, 0);
    catalog_free(&cat);
}

/* With the LM head split over the stage (SGLang under data-parallel attention) every GPU gathers
 * every replica's logits rows: the workspace's fp32 logits buffer holds the instance's max_seqs,
 * not a replica's share. DeepSeek-V3 at -t 1 --ep 8 --dp-attention, 256 sequences: (256 - 32) x
 * 129,280 x 4 B = 115,834,880 B more a GPU. */
static void a_split_lm_head_buffers_every_replicas_logits(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-v3");
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_layout lay = { .tp = 1, .pp = 1, .ep = 8, .dp_attn = true };
    struct llmroof_mem_opts o = memory_default_opts();
    o.max_seqs = 256;
    struct llmroof_memory own, split;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &own, &err), 0);
    lay.lm_head_split = true;
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &split, &err), 0);
    assert_rel_close(split.workspace_bytes_per_gpu - own.workspace_bytes_per_gpu, 115834880.0, 1e-12);
    catalog_free(&cat);
}

/* The draft-head tests' setting: fp16 throughout, on H200s at 2,048 tokens, the theoretical
 * options; model `id` at TP tp x PP pp, its shard and memory. */
static const struct llmroof_dtypes head_test_dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16,
                                                    false, LLMROOF_ACT_QUANT_SEPARATE, false };

static const struct llmroof_model *head_test_memory(struct llmroof_catalog *cat, const char *id, int tp, int pp,
                                                    struct llmroof_shard *sh, struct llmroof_memory *mem)
{
    const struct llmroof_model *m = model(cat, id);
    const struct llmroof_layout lay = { .tp = tp, .pp = pp, .ep = 1 };
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard_layout(m, &lay, sh, &err), 0);
    const struct llmroof_mem_opts o = theoretical();
    assert_int_equal(memory_eval_layout(m, gpu(cat, "h200"), &lay, &head_test_dt, 2048, &o, mem, &err), 0);
    return m;
}

/* Under PP the fullest stage's K/V per token is its own attention layers', not the model's: the
 * head's one layer is that over the stage's count. Qwen3-Next at TP 4 x PP 2: 12 attention
 * layers, 6 a stage; a layer's K/V on a GPU 1 replicated KV head x 256 x 2 (K, V) x 2 B = 1,024 B
 * a token, the stage 6,144 B; the head's layer 1,024 B (dividing by all 12 had read 512) */
static void an_mtp_head_under_pp_caches_one_layer_of_its_stage(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_dtypes dt = head_test_dt;
    struct llmroof_shard sh;
    struct llmroof_memory mem;
    const struct llmroof_model *m = head_test_memory(&cat, "qwen3-next-80b-a3b", 4, 2, &sh, &mem);
    assert_rel_close(mem.kv_bytes_per_token_per_gpu, 6144.0, 1e-12);
    double head_bytes, head_kv;
    memory_head_drafter(m, &sh, &dt, &mem, 0, 0, false, &head_bytes, &head_kv);
    assert_rel_close(head_kv, 1024.0, 1e-12);
    /* its weights: one layer of the stage's 24, not of the model's 48 */
    assert_rel_close(head_bytes, mem.weights_bytes_per_gpu / 24.0, 1e-12);
    catalog_free(&cat);
}

/* Under PP each stage's GPUs hold their own weights and their own layers' K/V of every sequence,
 * and the engine gives every stage the fewest blocks any holds (vLLM: the minimum over its
 * workers). DeepSeek-V3 at fp16, TP 8 x PP 2 on H200s, all of the 150,109,880,320 B the runtime
 * reports, no workspace or reserve. A GPU's share of an MLA layer's attention is 36,651,008
 * weights (q_a 7,168 x 1,536 + its norm, q_b 1,536 x 16 heads x 192, kv_a 7,168 x 576 + its norm
 * 512, kv_b 512 x 16 x 256, o 16 x 128 x 7,168, two 7,168 norms), a dense MLP 49,545,216, a MoE
 * layer's experts, shared expert and router 1,416,626,176; the vocabulary 129,280 / 8 = 16,160 rows
 * of 7,168.
 *   stage 0: the embedding 115,834,880 + 31 attentions + 3 dense MLPs + 28 MoE layers
 *            = 41,066,184,704 weights = 82,132,369,408 B; pool 67,977,510,912 B;
 *            K/V 31 x (512 + 64) x 2 B = 35,712 B a token: 1,903,492 tokens
 *   stage 1: 30 MoE layers + the head 115,834,880 + the final norm 7,168
 *            = 43,714,157,568 weights = 87,428,315,136 B; pool 62,681,565,184 B;
 *            K/V 30 x 1,152 = 34,560 B a token: 1,813,702 tokens (the tightest)
 * The figure of stage 1's weights over stage 0's K/V, the fullest of each, had given
 * 62,681,565,184 / 35,712 = 1,755,196 tokens, 3.3% fewer than either stage holds; at 2,048 tokens a
 * sequence 857 where 885 fit. */
/* A hybrid model's pipeline stages hold different mixes of attention and Mamba layers: the stage
 * that binds is the one holding the fewest sequences of its own K/V and states (a review of session
 * 64: the first stage's 8 Mamba layers' states had been charged beside the second's K/V).
 * Nemotron-Nano-9B-v2 at PP 4 (stages of 0+8, 2+6, 2+6 and 0+7 attention + Mamba layers), context
 * 1,000, 16 bits: a Mamba layer's state 2,695,168 B, an attention layer's K/V 2 x 8 x 128 x 2 =
 * 4,096 B a token. Stage 1 holds 2 x 4,096 x 1,000 = 8,192,000 B of K/V and 6 x 2,695,168 =
 * 16,171,008 B of states a sequence; stage 0's states alone, 21,561,344 B, against a pool that
 * holds more sequences than stage 1's. */
static void a_hybrid_pipeline_stage_binds_with_its_own_states(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "nemotron-nano-9b-v2");
    const struct llmroof_layout lay = { .tp = 1, .pp = 4, .ep = 1 };
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_mem_opts o = memory_default_opts();
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h100"), &lay, &dt, 1000, &o, &mem, &err), 0);
    assert_int_equal(mem.kv_stage, 1);
    assert_rel_close(mem.kv_stage_bytes_per_token_per_gpu, 8192.0, 1e-12);
    assert_rel_close(mem.state_bytes_per_seq_per_gpu, 16171008.0, 0);
    assert_rel_close(mem.max_batch, floor(mem.kv_capacity_bytes_per_gpu / (8192000.0 + 16171008.0)), 0);
    catalog_free(&cat);
}

static void the_tightest_pipeline_stage_sets_the_kv_blocks(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_layout lay = { .tp = 8, .pp = 2, .ep = 1 };
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_mem_opts o = theoretical();
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(model(&cat, "deepseek-v3"), gpu(&cat, "h200"), &lay, &dt, 2048, &o, &mem, &err), 0);
    assert_rel_close(mem.weights_bytes_per_gpu, 87428315136.0, 0);   /* the fullest GPU's weights: stage 1 */
    assert_rel_close(mem.kv_bytes_per_token_per_gpu, 35712.0, 0);     /* the fullest GPU's K/V: stage 0 */
    assert_int_equal(mem.kv_stage, 1);
    assert_rel_close(mem.kv_stage_weights_bytes_per_gpu, 87428315136.0, 0);
    assert_rel_close(mem.kv_stage_bytes_per_token_per_gpu, 34560.0, 0);
    assert_rel_close(mem.kv_capacity_bytes_per_gpu, 62681565184.0, 0);
    assert_rel_close(mem.kv_capacity_tokens, 1813702.0, 0);
    assert_rel_close(mem.max_batch, 885.0, 0);
    assert_true(memory_kv_stage_differs(&mem));
    /* without PP the one stage is the fullest in both */
    const struct llmroof_layout one = { .tp = 8, .pp = 1, .ep = 1 };
    assert_int_equal(memory_eval_layout(model(&cat, "deepseek-v3"), gpu(&cat, "h200"), &one, &dt, 2048, &o, &mem, &err), 0);
    assert_int_equal(mem.kv_stage, 0);
    assert_false(memory_kv_stage_differs(&mem));
    catalog_free(&cat);
}

/* With data-parallel attention an instance's token budget and sequence limit split over its ranks
 * as whole tokens and sequences, floor(limit / ranks), at least 1 (memory_rank_share: SGLang's
 * rule, and the default without an engine profile), and each GPU's workspace is its rank's share,
 * the one the simulator schedules. DeepSeek-V3 at -t 1 --ep 8 --dp-attention: 20 sequences are 2
 * a rank (16 in all), as 16 are, so the workspace is the same; 8 are 1 a rank, one fp32 logits row
 * of 129,280 x 4 = 517,120 B fewer. The rank's share had been ceil(20 / 8) = 3 rows, 517,120 B
 * more than the simulator's 2, so memory's KV capacity differed from simulate's (a reviewer's
 * note): at --max-batched-tokens 2000 3,772,544 tokens against 3,772,672. */
static void a_rank_sizes_its_workspace_from_its_whole_share(void **state)
{
    (void)state;
    assert_rel_close(memory_rank_share(20, 8), 2.0, 0);
    assert_rel_close(memory_rank_share(2050, 8), 256.0, 0);
    assert_rel_close(memory_rank_share(4, 8), 1.0, 0);      /* at least one */
    assert_rel_close(memory_rank_share(7, 1), 7.0, 0);      /* no split */
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-v3");
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_layout lay = { .tp = 1, .pp = 1, .ep = 8, .dp_attn = true };
    struct llmroof_mem_opts o = memory_default_opts();
    o.max_batched_tokens = 2000;
    struct llmroof_memory m20, m16, m8;
    struct llmroof_err err = { 0 };
    o.max_seqs = 20;
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &m20, &err), 0);
    o.max_seqs = 16;
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &m16, &err), 0);
    o.max_seqs = 8;
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &dt, 2048, &o, &m8, &err), 0);
    assert_rel_close(m20.workspace_bytes_per_gpu, m16.workspace_bytes_per_gpu, 0);
    assert_rel_close(m16.workspace_bytes_per_gpu - m8.workspace_bytes_per_gpu, 517120.0, 1e-12);
    catalog_free(&cat);
}

/* The simulator's prepared count (memory_held_tokens: the stages' layer counts taken once) gives
 * the direct count's bits, windowed or not, with pipeline stages that differ, for patterned
 * hybrids too; and the hand figures: Gemma-3-27B on one stage at 8,192 tokens holds
 * (10 x 8,192 + 52 x 1,024) / 62 = 2,180.13 tokens' worth, gpt-oss-120b at 2,048
 * (18 x 2,048 + 18 x 128) / 36 = 1,088. */
static void prepared_held_tokens_match_the_direct_count(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    static const char *const ids[] = { "gemma-3-27b", "gpt-oss-120b", "mistral-7b", "llama-3.1-8b", "qwen3-next-80b-a3b",
                                       "gemma-2-9b", "llama-4-scout" };
    static const double ctx[] = { 1, 2, 100, 127, 128, 129, 1023, 1024, 1025, 4096, 8192, 100000.5 };
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        for (int pp = 1; pp <= 5; pp++) {
            const struct llmroof_model *m = model(&cat, ids[i]);
            struct llmroof_shard sh;
            struct llmroof_err err = { 0 };
            const struct llmroof_layout lay = { 1, pp, 0, false, 0, false, 0, false, false, false };
            assert_int_equal(ops_shard_layout(m, &lay, &sh, &err), 0);
            struct memory_held h;
            assert_int_equal(memory_held_prepare(m, &sh, &h), 0);
            assert_true(h.n >= 1 && h.n <= pp);
            for (size_t j = 0; j < sizeof ctx / sizeof *ctx; j++)
                assert_true(memory_held_tokens(&h, ctx[j]) == memory_kv_tokens_held(m, &sh, ctx[j]));
            if (pp == 1 && i == 0)
                assert_rel_close(memory_held_tokens(&h, 8192), (10.0 * 8192 + 52.0 * 1024) / 62.0, 1e-12);
            if (pp == 1 && i == 1)
                assert_rel_close(memory_held_tokens(&h, 2048), 1088.0, 1e-12);
        }
    catalog_free(&cat);
}

/* --spec-draft-config on an MLA target: the head's memory is its own Llama layer's. DeepSeek-V3 at
 * TP 8, fp16, the 56 / 8 / 128 head of SpecForge's configs/deepseek-v3-671b-eagle3.json (MLP 40,960,
 * draft vocabulary 32,000), against the head without a config (the mean MLA layer's attention, the
 * (8 + 1) x 2,048 MLP rule, the q/k/v width of the target's 16 heads x 3 of 192 a rank):
 *   attention:  the head's q 7,168 x 7 x 128 = 6,422,528 + k, v 2 x 7,168 x 128 = 1,835,008 + o
 *               6,422,528 + two norms 14,336 = 14,694,400 weights, 29,388,800 B; the mean MLA
 *               layer's 36,651,008 weights (test the_tightest_pipeline_stage_sets_the_kv_blocks),
 *               73,302,016 B: -43,913,216
 *   MLP:        3 x 7,168 x 40,960 / 8 x 2 = 220,200,960 B against 3 x 7,168 x 18,432 / 8 x 2 =
 *               99,090,432: +121,110,528
 *   EAGLE-3's second h into q/k/v: 7,168 x (7 + 2) x 128 x 2 = 16,515,072 B against 7,168 x
 *               (16 + 2 x 16) x 192 x 2 = 132,120,576: -115,605,504
 *   in all -38,408,192 B; K/V a token 2 x 1 KV head x 128 x 2 B = 512 B (the latent's 576 x 2 =
 *   1,152 without the config) */
static void a_draft_config_sizes_the_heads_memory_on_an_mla_target(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_dtypes dt = head_test_dt;
    struct llmroof_shard sh;
    struct llmroof_memory mem;
    const struct llmroof_model *m = head_test_memory(&cat, "deepseek-v3", 8, 1, &sh, &mem);
    const struct llmroof_draft_head own = { 56, 8, 128, 40960, 32000, true, false, true, true, LLMROOF_FP16 };
    double plain, plain_kv, with, with_kv;
    memory_head_drafter(m, &sh, &dt, &mem, 0, 32000, true, &plain, &plain_kv);
    memory_head_drafter_own(m, &sh, &dt, &mem, 0, 32000, true, &own, &with, &with_kv);
    assert_rel_close(with - plain, -38408192.0, 1e-9);
    assert_rel_close(with_kv, 512.0, 1e-12);
    assert_rel_close(plain_kv, 1152.0, 1e-12);
    /* NULL, an empty config, an MTP module or Medusa: exactly memory_head_drafter */
    const struct llmroof_draft_head none = { 0 };
    memory_head_drafter_own(m, &sh, &dt, &mem, 0, 32000, true, &none, &with, &with_kv);
    assert_true(with == plain && with_kv == plain_kv);
    memory_head_drafter(m, &sh, &dt, &mem, 0, 0, false, &plain, &plain_kv);
    memory_head_drafter_own(m, &sh, &dt, &mem, 0, 0, false, &own, &with, &with_kv);
    assert_true(with == plain && with_kv == plain_kv);
    catalog_free(&cat);
}

/* A head trained and shipped apart from its target holds its own 16 bits whatever the target's
 * checkpoint: DeepSeek-V3 served at its fp8 checkpoint, TP 8, the SpecForge head above (torch_dtype
 * float16). Its weights on a GPU at 2 B:
 *   attention 14,694,400 weights = 29,388,800 B; MLP 3 x 7,168 x 40,960 / 8 = 110,100,480 weights =
 *   220,200,960 B; EAGLE-3's second h into q/k/v 7,168 x 9 x 128 = 8,257,536 weights = 16,515,072 B;
 *   its fusing projection 3 x 7,168 x 7,168 = 154,140,672 weights = 308,281,344 B, whole on every
 *   GPU (replicated in vLLM and SGLang: ops_eagle_fc_bytes); its own LM head 7,168 x 32,000 / 8 =
 *   28,672,000 weights = 57,344,000 B: 631,730,176 B, as at an fp16 target (the target's
 *   embedding is the head's, not counted again). At the checkpoint's 1 byte (its LM head bf16) the
 *   same parts would give 344,537,088 B, 0.545 of it. An MTP module ships inside the checkpoint: the target's weights over its 61 layers,
 *   fp8 as they are. One Medusa head: 7,168^2 x 2 + 7,168 x 16,160 x 2 = 334,430,208 B (its h x h
 *   block had been 1 byte: 283,049,984 B). */
static void a_draft_heads_weights_are_its_own_16_bits_on_an_fp8_target(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_shard sh;
    struct llmroof_memory m16, m8;
    const struct llmroof_model *m = head_test_memory(&cat, "deepseek-v3", 8, 1, &sh, &m16);
    const struct llmroof_dtypes d16 = head_test_dt, d8 = ckpt_dtypes(m, NULL, head_test_dt, false);
    assert_int_equal(d8.weight, LLMROOF_FP8); /* the checkpoint's */
    const struct llmroof_layout lay = { .tp = 8, .pp = 1, .ep = 1 };
    const struct llmroof_mem_opts o = theoretical();
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(m, gpu(&cat, "h200"), &lay, &d8, 2048, &o, &m8, &err), 0);
    const struct llmroof_draft_head own = { 56, 8, 128, 40960, 32000, true, false, true, true, LLMROOF_FP16 };
    double at8, at16, kv8, kv16;
    memory_head_drafter_own(m, &sh, &d8, &m8, 0, 32000, true, &own, &at8, &kv8);
    memory_head_drafter_own(m, &sh, &d16, &m16, 0, 32000, true, &own, &at16, &kv16);
    const double parts = 29388800.0 + 220200960.0 + 16515072.0 + 308281344.0 + 57344000.0;
    assert_rel_close(at8, parts, 1e-12);
    assert_rel_close(at16, parts, 1e-12);
    assert_rel_close(kv8, 512.0, 1e-12); /* the cache keeps the KV dtype: fp16 here */
    /* without a config alike: the same bytes at either target dtype */
    memory_head_drafter(m, &sh, &d8, &m8, 0, 32000, true, &at8, &kv8);
    memory_head_drafter(m, &sh, &d16, &m16, 0, 32000, true, &at16, &kv16);
    assert_rel_close(at8, at16, 1e-12);
    /* an MTP module: the fp8 target's own layer */
    memory_head_drafter(m, &sh, &d8, &m8, 0, 0, false, &at8, &kv8);
    assert_rel_close(at8, m8.weights_bytes_per_gpu / 61.0, 1e-12);
    assert_true(at8 < 0.6 * m16.weights_bytes_per_gpu / 61.0);
    /* one Medusa head */
    memory_head_drafter(m, &sh, &d8, &m8, 1, 0, false, &at8, &kv8);
    assert_rel_close(at8, 334430208.0, 1e-12);
    assert_rel_close(kv8, 0.0, 0);
    catalog_free(&cat);
}

/* An EAGLE head's fusing projection fc is whole on every GPU (vLLM's llama_eagle3.py builds it as
 * ReplicatedLinear, its llama_eagle.py and SGLang's as torch.nn.Linear), its decoder layer split by
 * TP. Llama-3.1-70B at TP 8, fp16 (h 8,192, 64 query and 8 KV heads of 128, MLP 28,672): a GPU's
 * layer q/k/v 8,192 x (8 + 2 x 1) x 128 = 10,485,760 + o 1,024 x 8,192 = 8,388,608 + two norms
 * 16,384 + MLP 3 x 8,192 x 3,584 = 88,080,384: 106,971,136 weights.
 *   EAGLE-3: + fc 3 x 8,192^2 = 201,326,592 + the q/k/v's second h 8,192 x 1,280 = 10,485,760 + its
 *   LM head 8,192 x 32,000 / 8 = 32,768,000 = 351,551,488 weights x 2 B = 703,102,976 B (the fc
 *   split by 8 and the target's embedding and LM head over 80 layers had given 441,234,432 B).
 *   EAGLE-1: + fc 2 x 8,192^2 = 134,217,728 = 241,188,864 weights x 2 B = 482,377,728 B (the
 *   target's LM head is read, not held). K/V a token: one replicated KV head, 2 x 128 x 2 = 512 B.
 * The draft step's first pass reads the same fc whole in its q/k/v GEMM: (10,485,760 + 201,326,592
 * + 10,485,760) x 2 = 444,596,224 weight bytes. */
static void an_eagle_heads_fc_is_replicated_at_tp_8(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_dtypes dt = head_test_dt;
    struct llmroof_shard sh;
    struct llmroof_memory mem;
    const struct llmroof_model *m = head_test_memory(&cat, "llama-3.1-70b", 8, 1, &sh, &mem);
    double e3, e3_kv, e1, e1_kv;
    memory_head_drafter(m, &sh, &dt, &mem, 0, 32000, true, &e3, &e3_kv);
    memory_head_drafter(m, &sh, &dt, &mem, 0, 0, true, &e1, &e1_kv);
    assert_rel_close(e3, 703102976.0, 1e-12);
    assert_rel_close(e1, 482377728.0, 1e-12);
    assert_rel_close(e3_kv, 512.0, 1e-12);
    assert_rel_close(e1_kv, 512.0, 1e-12);
    /* the fc alone: 3 x 8,192^2 x 2 = 402,653,184 B and 2 x 8,192^2 x 2 = 268,435,456 B a GPU */
    assert_rel_close(ops_eagle_fc_bytes(m, &dt, 32000), 402653184.0, 1e-12);
    assert_rel_close(ops_eagle_fc_bytes(m, &dt, 0), 268435456.0, 1e-12);
    const struct ops_head first = ops_head_shape(m, 32000, true, true);
    const struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    ops_build_draft(m, &sh, &dt, &b, 0, &first, &o);
    const struct llmroof_op *q = &o.op[LLMROOF_OP_QKV_PROJ];
    assert_rel_close(q->count * q->wbytes, 444596224.0, 1e-12);
    catalog_free(&cat);
}

/* A draft model (--spec draft:MODEL) runs at its own checkpoint's weights, not its target's: beside
 * Llama-3.1-70B at fp8 (--weight-dtype fp8, or a block-fp8 target's checkpoint) Llama-3.2-1B is
 * 16-bit, DeepSeek-V3 as a draft its fp8 checkpoint and gpt-oss-120b its bf16 (MXFP4 experts apart);
 * the KV dtype stays the target's. Llama-3.2-1B at TP 4, 16 layers of q/o 2,048 x 512 and k/v 2,048
 * x 128 a rank (32 / 8 heads of 64 over 4), MLP 3 x 2,048 x 2,048, two norms of 2,048, plus its tied
 * embedding's 32,064 rows a rank (the LM head is the same matrix) and the final norm: 16 x (2 x
 * 1,048,576 + 2 x 262,144 + 12,582,912 + 4,096) + 32,064 x 2,048 + 2,048 = 309,004,288 weights,
 * 618,008,576 B at 2 B, where the target's fp8 had counted its layers at 1 byte. */
static void a_draft_model_runs_at_its_own_checkpoints_dtype(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_dtypes fp8 = head_test_dt;
    fp8.weight = LLMROOF_FP8;
    fp8.kv = LLMROOF_FP8;
    const struct llmroof_model *small = model(&cat, "llama-3.2-1b");
    const struct llmroof_dtypes d = ckpt_draft_dtypes(small, &fp8);
    assert_int_equal(d.weight, LLMROOF_FP16);
    assert_int_equal(d.kv, LLMROOF_FP8);
    assert_rel_close(d.weight_bits, 0.0, 0);
    assert_int_equal(ckpt_draft_dtypes(model(&cat, "deepseek-v3"), &head_test_dt).weight, LLMROOF_FP8);
    assert_int_equal(ckpt_draft_dtypes(model(&cat, "gpt-oss-120b"), &fp8).weight, LLMROOF_BF16);
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    const struct llmroof_mem_opts o = theoretical();
    assert_int_equal(memory_eval(small, gpu(&cat, "h100"), 4, &d, 2048, &o, &mem, &err), 0);
    assert_rel_close(mem.weights_bytes_per_gpu, 618008576.0, 1e-12);
    catalog_free(&cat);
}

/* A per-operator checkpoint's quantized modules are stored at its bits in every layer: NVIDIA's
 * NVFP4 DeepSeek-R1-0528 keeps attention and the head bf16 and quantizes the routed experts, the
 * shared experts and the three dense layers' MLPs (4.5 bits, 0.5625 B). memory had counted the
 * latter two at bf16 (the weight dtype), where the estimate's operators read them at 4.5 bits; a
 * compressed-tensors NVFP4 Llama-3.1-70B came out at 131 GiB, not about 40 (a review). At TP 8
 * (the experts TP-sharded: dense width 18432 / 8 = 2304, shared 2048 / 8 = 256) each rank holds
 * 3 x 3 x 7168 x 2304 = 148,635,648 dense-MLP and 58 x 3 x 7168 x 256 = 319,291,392 shared-expert
 * weights, 467,927,040 in all, at 2 - 0.5625 = 1.4375 B less each: 672,645,120 B. */
static void a_per_operator_checkpoint_stores_every_quantized_module_at_its_bits(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-r1-0528-nvfp4");
    struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_FP16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false,
                                 LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(m, 8, &sh, NULL), 0);
    const double with = memory_weights_layout(m, &sh, &dt);
    struct llmroof_model plain = *m; /* the same bytes for the experts, every other module bf16 */
    plain.ckpt_per_op = false;
    plain.ckpt_expert_bits = 4.5;
    plain.ckpt_bits = 16.0;
    const double without = memory_weights_layout(&plain, &sh, &dt);
    assert_rel_close(without - with, 467927040.0 * 1.4375, 1e-12);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_draft_model_runs_at_its_own_checkpoints_dtype),
        cmocka_unit_test(a_draft_heads_weights_are_its_own_16_bits_on_an_fp8_target),
        cmocka_unit_test(an_eagle_heads_fc_is_replicated_at_tp_8),
        cmocka_unit_test(a_draft_config_sizes_the_heads_memory_on_an_mla_target),
        cmocka_unit_test(checkpoint_dtype_is_the_default_and_names_itself),
        cmocka_unit_test(fp8_weights_compute_in_fp8_where_the_gpu_can),
        cmocka_unit_test(a_smaller_weight_dtype_that_fits_is_suggested),
        cmocka_unit_test(llama_13b_on_8_v100_holds_147_sequences_of_2048),
        cmocka_unit_test(mem_util_is_a_share_of_the_memory_the_runtime_reports),
        cmocka_unit_test(a_free_memory_fraction_sizes_the_kv_from_what_is_left),
        cmocka_unit_test(a_copied_kv_tensor_halves_the_pool),
        cmocka_unit_test(llama_65b_is_2_5_mib_per_token_and_26_sequences),
        cmocka_unit_test(gqa_fp8_and_replication),
        cmocka_unit_test(tp1_weights_are_all_parameters_at_the_weight_dtype),
        cmocka_unit_test(quantized_weights_keep_the_embedding_and_head_16_bit),
        cmocka_unit_test(a_model_that_does_not_fit_says_so),
        cmocka_unit_test(paged_blocks_round_each_sequence_up),
        cmocka_unit_test(max_batch_never_decreases_with_tp_or_mem_util),
        cmocka_unit_test(dp_attention_sizes_the_workspace_per_replica),
        cmocka_unit_test(an_eagle_head_caches_a_full_layer_beside_windowed_layers),
        cmocka_unit_test(gpt_oss_weights_by_hand_and_its_padded_expert_slices),
        cmocka_unit_test(an_mtp_head_under_pp_caches_one_layer_of_its_stage),
        cmocka_unit_test(an_eagle_head_of_a_moe_target_holds_a_dense_mlp),
        cmocka_unit_test(speculation_keeps_a_recurrent_state_per_draft_position),
        cmocka_unit_test(a_split_lm_head_buffers_every_replicas_logits),
        cmocka_unit_test(prepared_held_tokens_match_the_direct_count),
        cmocka_unit_test(the_tightest_pipeline_stage_sets_the_kv_blocks),
        cmocka_unit_test(a_hybrid_pipeline_stage_binds_with_its_own_states),
        cmocka_unit_test(a_rank_sizes_its_workspace_from_its_whole_share),
        cmocka_unit_test(a_per_operator_checkpoint_stores_every_quantized_module_at_its_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
