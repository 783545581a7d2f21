/* test_catalog.c - loading, validation errors, lookup, suggestions, HuggingFace import. */
#include "helpers.h"

#include "data/json_read.h"

#include <unistd.h>

#include "model/arch.h"
#include "base/parse.h"
#include "render/render_json.h"

static const char *const gpu_ids[] = {
    "v100-sxm2-16gb", "v100-sxm2-32gb", "v100-pcie-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "a100-pcie-40gb",
    "a100-pcie-80gb", "a100-pcie-80gb-nvl", "a40", "a30", "a10", "l4", "l40s", "rtx-4090", "rtx-3090", "h100-sxm5-80gb",
    "h100-pcie-80gb", "h200-sxm-141gb", "mi300x", "b200", "b300", "gb200-nvl72", "gb300-nvl72", "h20", "h800-sxm5-80gb",
    "a800-sxm4-80gb", "mi325x", "mi355x", "l20", "rtx-5090",
    /* issue 23: the cards of the published serving and static benchmarks */
    "a10g", "rtx-a6000", "rtx-6000-ada", "l40", "h100-nvl", "gh200-96gb", "gh200-144gb",
};
static const char *const model_ids[] = {
    "llama-7b", "llama-13b", "llama-30b", "llama-65b", "llama-2-7b", "llama-2-13b", "llama-2-70b", "yi-34b-200k", "llama-3-8b",
    "llama-3-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mistral-7b", "mixtral-8x7b",
    "qwen2.5-1.5b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-72b", "internlm-20b", "falcon-40b", "gpt3-175b",
    "opt-66b", "opt-13b", "gpt-j-6b", "deepseek-v3", "deepseek-r1",
    /* issue 23: NVIDIA's NVFP4 checkpoints of DeepSeek-R1-0528 (attention bf16; v2 o_proj NVFP4 too) */
    "deepseek-r1-0528-nvfp4", "deepseek-r1-0528-nvfp4-v2", "deepseek-v2-lite", "deepseek-v2", "kimi-k2", "qwen3-8b",
    "qwen3-32b",
    "qwen3-30b-a3b", "qwen3-235b-a22b", "gpt-oss-20b", "gpt-oss-120b", "gemma-2-9b", "gemma-2-27b", "gemma-3-27b",
    "llama-4-scout", "llama-4-maverick", "llama-3.2-1b", "llama-3.2-3b", "mixtral-8x22b",
    /* issue 25: hybrid linear attention, state-space layers, sparse attention */
    "qwen3-next-80b-a3b",
    /* Qwen3.5: Qwen3-Next's hybrid at 397B and 122B (session 49) */
    "qwen3.5-397b-a17b", "qwen3.5-122b-a10b",
    "nemotron-nano-9b-v2", "deepseek-v3.2-exp", "deepseek-v3.2-nvfp4", "glm-4.5", "minimax-m2", "minimax-text-01",
    "granite-4.0-h-tiny", "falcon-h1-3b", "llama-3.3-nemotron-super-49b",
    "llama-3.1-nemotron-ultra-253b",
    "olmo-2-7b", "phi-4", "phi-3.5-moe", "command-a", "ernie-4.5-21b-a3b",
    "seed-oss-36b", "dots-llm1", "qwen2.5-vl-7b", "qwen3-vl-8b", "mistral-small-3.1-24b",
    "hunyuan-a13b", "ling-lite-1.5", "kimi-linear-48b-a3b", "jamba-v0.1",
    /* GLM-5: MLA + DeepSeek Sparse Attention at GLM's widths, BF16 and block-fp8 checkpoints */
    "glm-5", "glm-5-fp8",
    /* models that published inference benchmarks name (MLPerf, TensorRT-LLM, NIM, vLLM, llmperf,
     * MLC/exllama tables), each from its config.json: docs/sources.md "benchmark addendum" */
    "llama-3.3-70b", "deepseek-r1-distill-llama-70b", "deepseek-r1-distill-qwen-32b", "falcon-180b",
    "mistral-nemo-12b", "mistral-large-2", "qwen2-72b", "qwen2.5-32b", "qwen2.5-3b",
    "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-14b", "gemma-7b", "gemma-2-2b", "phi-3-mini",
    "phi-3-medium", "nemotron-4-340b", "dbrx", "qwen3-coder-480b-a35b",
    /* the models published rows name that had no entry (session 51: AutoAWQ's RTX 4090 table,
     * QServe's L40S / A100 tables), each from its config.json: docs/sources.md "benchmark addendum" */
    "codellama-34b", "deepseek-coder-33b", "tinyllama-1.1b", "falcon-7b", "mpt-7b", "yi-34b", "qwen1.5-72b"
};

/* Every PCIe card steps a ring over PCIe, whatever its silicon: the same 2.5 us a hop (issue 23
 * defect 6: the L20 carried NVLink's 0.6 us, so its decode all-reduce at TP 8 read 1.23 ms
 * against the L40S's 2.96 on the same bus). */
static void pcie_cards_share_the_pcie_hop_latency(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    int n = 0;
    for (size_t i = 0; i < cat.n_gpus; i++) {
        const struct llmroof_gpu *g = &cat.gpus[i];
        if (g->link != LLMROOF_LINK_PCIE)
            continue;
        assert_rel_close(g->link_hop_latency_s, 2.5e-6, 0);
        n++;
    }
    assert_true(n >= 8); /* l4, l40s, l20, a10, a40, pcie A100/H100s, GeForce cards */
    assert_rel_close(gpu(&cat, "l20")->link_hop_latency_s, gpu(&cat, "l40s")->link_hop_latency_s, 0);
    catalog_free(&cat);
}

/* The cards of published benchmarks, each against its datasheet arithmetic. */
static void published_benchmark_cards_by_their_datasheets(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    /* A10G: 80 SMs x 1.71 GHz x 512 FLOP/clk = 70.0 TFLOPS dense, half the A10's 125 per the
     * AWS sheet; the same 600 GB/s GDDR6 */
    const struct llmroof_gpu *g = gpu(&cat, "a10g");
    assert_rel_close(g->peak_flops[LLMROOF_FP16], 80 * 1.71e9 * 512, 1e-3);
    assert_rel_close(gpu(&cat, "a10")->peak_flops[LLMROOF_FP16], 125e12, 0);
    assert_rel_close(g->mem_bw_Bps, gpu(&cat, "a10")->mem_bw_Bps, 0);
    /* Llama-2-7B's fused QKV GEMM at 2048 tokens: 2 * 2048 * 12288 * 4096 FLOP = 206.16 GFLOP at
     * 70e12 * 0.8775 = 61.43 TFLOP/s -> 3.3562 ms */
    assert_rel_close(2.0 * 2048 * 12288 * 4096 / (g->peak_flops[LLMROOF_FP16] * g->compute_eff), 3.3562e-3, 1e-4);
    /* RTX A6000: 84 SMs x 1.8 GHz x 1024 = 154.8 TFLOPS, full rate with FP32 accumulate (no
     * GeForce halving: fp16_accumulate_ratio stays 1) */
    g = gpu(&cat, "a6000");
    assert_rel_close(g->peak_flops[LLMROOF_FP16], 84 * 1.8e9 * 1024, 1e-3);
    assert_false(g->fp16_acc_ratio > 1);
    assert_rel_close(gpu(&cat, "rtx-3090")->fp16_acc_ratio, 2, 0);
    /* RTX 6000 Ada: 1,457 TFLOPS is FP8 with sparsity: / 2 dense, / 2 again for 16-bit = 364.25 */
    assert_rel_close(gpu(&cat, "rtx-6000-ada")->peak_flops[LLMROOF_BF16], 1457e12 / 4, 0);
    /* L40: half the L40S on every tensor row */
    assert_rel_close(gpu(&cat, "l40")->peak_flops[LLMROOF_FP8] * 2, gpu(&cat, "l40s")->peak_flops[LLMROOF_FP8], 0.02);
    /* H100 NVL: bridged pairs (600 GB/s both ways = 300e9 per direction), pairs over PCIe Gen5 */
    g = gpu(&cat, "h100-nvl");
    assert_int_equal(g->domain_gpus, 2);
    assert_rel_close(g->link_bw_Bps, 300e9, 0);
    assert_rel_close(g->net_bw_Bps, 64e9, 0);
    /* GH200: the H100 SXM's tensor peaks, one superchip per node; "gh200" names the 96 GB HBM3 part */
    g = gpu(&cat, "gh200");
    assert_string_equal(g->id, "gh200-96gb");
    assert_rel_close(g->peak_flops[LLMROOF_BF16], gpu(&cat, "h100")->peak_flops[LLMROOF_BF16], 0);
    assert_rel_close(g->mem_bw_Bps, 4.0e12, 0);
    assert_rel_close(gpu(&cat, "gh200-144gb")->mem_bw_Bps, 4.9e12, 0);
    assert_int_equal(g->gpus_per_node, 1);
    catalog_free(&cat);
}

static void blackwell_has_fp4_and_nvl72_one_domain(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    /* B200 dense FP4 9 PFLOPS (18 with sparsity); Hopper has no FP4 path */
    assert_true(gpu(&cat, "b200")->has_peak[LLMROOF_FP4]);
    assert_rel_close(gpu(&cat, "b200")->peak_flops[LLMROOF_FP4], 9e15, 0);
    assert_false(gpu(&cat, "h200")->has_peak[LLMROOF_FP4]);
    /* GB200 NVL72: 4 GPUs per compute tray, 72 on one NVLink domain */
    assert_int_equal(gpu(&cat, "gb200")->gpus_per_node, 4);
    assert_int_equal(gpu(&cat, "gb200")->domain_gpus, 72);
    /* GB300 NVL72: the B300's silicon (288 GiB, 8 TB/s) at the superchip's power, rack figures / 72:
     * 1.1 EF FP4 -> 15 PF, 360 PF FP8 -> 5 PF, 180 PF BF16 -> 2.5 PF a GPU (the HGX B300: 13.5,
     * 4.5, 2.25); one NVLink domain of 72 as the GB200's. Achieved bf16: the B300's MAMF 1769.0
     * TFLOPS x (GB200 1822.0 / B200 1745.0) = 1847.1 of 2500 = 0.7388, x 0.884 = 0.653 */
    const struct llmroof_gpu *g3 = gpu(&cat, "gb300");
    assert_string_equal(g3->id, "gb300-nvl72");
    assert_rel_close(g3->peak_flops[LLMROOF_FP4], 15e15, 0);
    assert_rel_close(g3->peak_flops[LLMROOF_FP8], 5e15, 0);
    assert_rel_close(g3->peak_flops[LLMROOF_BF16], 2.5e15, 0);
    assert_rel_close(g3->memory_bytes, gpu(&cat, "b300")->memory_bytes, 0);
    assert_rel_close(g3->mem_bw_Bps, gpu(&cat, "b300")->mem_bw_Bps, 0);
    assert_rel_close(g3->compute_eff, 1769.0 * (1822.0 / 1745.0) / 2500.0 * 0.884, 0.002);
    assert_int_equal(g3->domain_gpus, 72);
    assert_int_equal(g3->gpus_per_node, 4);
    /* the memory the runtime hands out, not the whole HBM (a review of session 67: 288 GiB had
     * been taken): the B300 SXM6 AC's nvidia-smi 275,040 MiB; the GB300's 278.0 GiB (NVIDIA's
     * mock profile); the L20 as the L40S's 44.52 GiB, the same 48 GB board */
    assert_rel_close(gpu(&cat, "b300")->memory_visible_bytes, 275040.0 * 1048576.0, 0);
    assert_rel_close(g3->memory_visible_bytes, 278.0 * 1073741824.0, 0);
    assert_rel_close(gpu(&cat, "l20")->memory_visible_bytes, gpu(&cat, "l40s")->memory_visible_bytes, 0);
    /* the RTX 5090's FP4 with FP32 accumulate is 1676 dense (whitepaper Appendix A), not halved
     * again; CDNA4 has no TF32 matrix path (hipBLASLt emulates it) */
    assert_rel_close(gpu(&cat, "rtx-5090")->peak_flops[LLMROOF_FP4], 1676e12, 0);
    assert_false(gpu(&cat, "mi355x")->has_peak[LLMROOF_TF32]);
    /* default network: IB NDR 400 Gb/s for NVLink GPUs, 100 GbE for PCIe cards; domain = node */
    assert_rel_close(gpu(&cat, "h100")->net_bw_Bps, 50e9, 0);
    assert_int_equal(gpu(&cat, "h100")->domain_gpus, 8);
    assert_rel_close(gpu(&cat, "l4")->net_bw_Bps, 12.5e9, 0);
    /* fp4 stores NVFP4: 4 bits + one 8-bit scale per 16 = 4.5 bits */
    assert_rel_close(dtype_bytes(LLMROOF_FP4), 0.5625, 0);
    enum llmroof_dtype d;
    assert_true(dtype_parse("nvfp4", &d) && d == LLMROOF_FP4);
    catalog_free(&cat);
}

static void shipped_catalog_has_exactly_the_listed_ids(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    assert_int_equal(cat.n_gpus, sizeof gpu_ids / sizeof gpu_ids[0]);
    assert_int_equal(cat.n_models, sizeof model_ids / sizeof model_ids[0]);
    for (size_t i = 0; i < cat.n_gpus; i++)
        assert_string_equal(cat.gpus[i].id, gpu_ids[i]);
    for (size_t i = 0; i < cat.n_models; i++)
        assert_string_equal(cat.models[i].id, model_ids[i]);
    catalog_free(&cat);
}

static void dense_peaks_come_from_the_reference_sheet(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    /* H100 SXM: datasheet 1,979 TFLOPS FP16 is with sparsity; dense = 989.5 (gpus.md T1) */
    assert_rel_close(gpu(&cat, "h100")->peak_flops[LLMROOF_FP16], 989.5e12, 1e-12);
    /* No FP8 on A100, no INT4 on Hopper, no BF16 on V100 (T11): absent, not zero */
    assert_false(gpu(&cat, "a100-sxm4-80gb")->has_peak[LLMROOF_FP8]);
    assert_false(gpu(&cat, "h100")->has_peak[LLMROOF_INT4]);
    assert_false(gpu(&cat, "v100")->has_peak[LLMROOF_BF16]);
    /* RTX 4090 with FP32 accumulate: 165.2, not 330.3 (T2) */
    assert_rel_close(gpu(&cat, "rtx-4090")->peak_flops[LLMROOF_FP16], 165.2e12, 1e-12);
    /* 80 GB HBM is 80 GiB = 85899345920 B (T3); bandwidth is decimal: 2039 GB/s */
    assert_rel_close(gpu(&cat, "a100-sxm4-80gb")->memory_bytes, 85899345920.0, 0);
    assert_rel_close(gpu(&cat, "a100-sxm4-80gb")->mem_bw_Bps, 2039e9, 0);
    /* A100 PCIe 80GB: 1935 GB/s, not the SXM 2039 (T4) */
    assert_rel_close(gpu(&cat, "a100-pcie-80gb")->mem_bw_Bps, 1935e9, 0);
    assert_int_equal(gpu(&cat, "a40")->link, LLMROOF_LINK_PCIE);
    assert_int_equal(gpu(&cat, "a100")->link, LLMROOF_LINK_NVLINK);
    catalog_free(&cat);
}

static void lookup_accepts_aliases_in_any_case(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    assert_string_equal(catalog_find_gpu(&cat, "V100")->id, "v100-sxm2-32gb");
    assert_string_equal(catalog_find_gpu(&cat, "a100")->id, "a100-sxm4-40gb");
    assert_string_equal(catalog_find_gpu(&cat, "H100")->id, "h100-sxm5-80gb");
    assert_string_equal(catalog_find_gpu(&cat, "h200")->id, "h200-sxm-141gb");
    assert_string_equal(catalog_find_gpu(&cat, "A40")->id, "a40");
    assert_string_equal(catalog_find_model(&cat, "LLAMA-2-7B")->id, "llama-2-7b");
    assert_null(catalog_find_gpu(&cat, "a1000"));
    assert_null(catalog_find_model(&cat, "llama-9b"));
    catalog_free(&cat);
}

/* Engine profiles answer to the versions they cover (their aliases), and a patch release to its
 * minor version's profile: vLLM 0.7 ran V0 (vllm-0.6), 0.8-0.13 V1 with synchronous scheduling
 * (vllm-0.8), 0.14 on asynchronous (vllm); "0.9.x" or "1.2.3.4" name none. */
static void engines_answer_to_the_versions_they_cover(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    assert_non_null(catalog_find_engine(&cat, "vllm-0.7"));
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.7")->id, "vllm-0.6");
    assert_string_equal(catalog_find_engine(&cat, "VLLM-0.10")->id, "vllm-0.8");
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.9.1")->id, "vllm-0.8");
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.6.3")->id, "vllm-0.6");
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.14.1")->id, "vllm");
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.19")->id, "vllm");
    /* vLLM V1 keeps a MoE model's shared experts and dense layers per data-parallel rank under
     * --moe-tp (the routed experts alone form the DP x TP group); SGLang gathers them */
    for (size_t i = 0; i < cat.n_engines; i++)
        assert_int_equal(cat.engines[i].moe_tp_shared_local,
                         !strcmp(cat.engines[i].id, "vllm") || !strcmp(cat.engines[i].id, "vllm-0.8"));
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.3")->id, "vllm-0.4");
    /* other engines' names and releases (docs/catalog.md "aliases"): XQA from TensorRT-LLM 0.7 */
    assert_string_equal(catalog_find_engine(&cat, "trtllm")->id, "tensorrt-llm");
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-0.9.0")->id, "tensorrt-llm");
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-0.6")->id, "tensorrt-llm-early");
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-0.21.0")->id, "tensorrt-llm");
    /* from 1.0 trtllm-serve runs the PyTorch backend by default (PRs #5312, #5717) */
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-1.0")->id, "tensorrt-llm-pytorch");
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-1.1.0")->id, "tensorrt-llm-pytorch");
    /* a release candidate, and a build of one, is its release's (InferenceX: 1.1.0rc2.post2) */
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-1.1.0rc2.post2")->id, "tensorrt-llm-pytorch");
    assert_string_equal(catalog_find_engine(&cat, "tensorrt-llm-0.21.0rc1")->id, "tensorrt-llm");
    assert_null(catalog_find_engine(&cat, "tensorrt-llm-1.1.0rc")); /* no candidate number */
    assert_string_equal(catalog_find_engine(&cat, "lmdeploy-0.4.2")->id, "lmdeploy");
    assert_null(catalog_find_engine(&cat, "lmdeploy-0.6")); /* its batch limit by GPU: not this profile */
    assert_string_equal(catalog_find_engine(&cat, "text-generation-inference")->id, "tgi");
    assert_string_equal(catalog_find_engine(&cat, "deepspeed-mii")->id, "deepspeed-fastgen");
    assert_string_equal(catalog_find_engine(&cat, "llama.cpp-2024-05")->id, "llama.cpp-2024-05");
    /* release spellings: a tag's "v", a ".postN" build, a patch release that changed the profile */
    assert_string_equal(catalog_find_engine(&cat, "vllm-v0.9.1")->id, "vllm-0.8");
    assert_string_equal(catalog_find_engine(&cat, "sglang-0.4.10.post1")->id, "sglang");
    assert_string_equal(catalog_find_engine(&cat, "sglang-0.3.5.post2")->id, "sglang-0.3");
    assert_string_equal(catalog_find_engine(&cat, "sglang-0.3.6")->id, "sglang");
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.2.6")->id, "vllm-0.2");
    assert_string_equal(catalog_find_engine(&cat, "vllm-0.2.7")->id, "vllm-0.4");
    assert_null(catalog_find_engine(&cat, "sglang-0.1"));
    assert_null(catalog_find_engine(&cat, "a.1.2"));
    assert_null(catalog_find_engine(&cat, "vllm-.9.1"));
    assert_null(catalog_find_engine(&cat, "vllm-0.9.postx"));
    assert_null(catalog_find_engine(&cat, ""));
    assert_null(catalog_find_engine(&cat, "vllm-0.9.x"));
    assert_null(catalog_find_engine(&cat, "vllm-1.2.3.4"));
    assert_null(catalog_find_engine(&cat, "vllm-0.99.1"));
    assert_null(catalog_find_engine(&cat, ".1"));
    assert_null(catalog_find_engine(&cat, "9.1"));
    catalog_free(&cat);
}

static void suggestions_name_the_nearest_ids(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const char *s[3];
    size_t n = catalog_suggest_models(&cat, "lama-2-7b", s, 3);
    assert_true(n >= 1);
    assert_string_equal(s[0], "llama-2-7b");
    n = catalog_suggest_gpus(&cat, "a1000", s, 3);
    assert_true(n >= 1);
    assert_string_equal(s[0], "a100-sxm4-40gb"); /* via the alias "a100", distance 1 */
    n = catalog_suggest_models(&cat, "mixtral", s, 3);
    assert_true(n >= 1);
    assert_string_equal(s[0], "mixtral-8x7b");
    n = catalog_suggest_gpus(&cat, "zzzzzzzzzz", s, 3);
    assert_int_equal(n, 0);
    /* every word of "a100-80gb" is a word of the three 80 GB A100 ids (score 5), ahead of the
     * 40 GB card one folded edit away ("a10080gb" against its alias-free "a10040gb" is 1: 10) and
     * of "a10", a prefix of the folded query; ties go by id */
    n = catalog_suggest_gpus(&cat, "a100-80gb", s, 3);
    assert_int_equal(n, 3);
    assert_string_equal(s[0], "a100-pcie-80gb");
    assert_string_equal(s[1], "a100-pcie-80gb-nvl");
    assert_string_equal(s[2], "a100-sxm4-80gb");
    catalog_free(&cat);
}

/* Suggestions as a person means the name: folded (letters and digits, lowercased), a version
 * or suffix added, a name cut short, "trt" for TensorRT; and none for an input too far from
 * every name. Scores (catalog_suggest.c fold_score): 0 same folded name, 10 one edit, 20+k a prefix
 * k characters short, 40 two edits, 60+k a name followed by k more characters. */
static void suggestions_match_what_a_person_means(void **state)
{
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    const char *s[3];
    /* "sglang-0.9": "sglang-0.3" is one edit away (9 for 3) and ranks first, the id "sglang" is its
     * prefix with 2 more characters; "sglang-0.4" is no suggestion but sglang's own alias */
    size_t n = catalog_suggest_engines(&cat, "sglang-0.9", s, 3);
    assert_int_equal(n, 2);
    assert_string_equal(s[0], "sglang-0.3");
    assert_string_equal(s[1], "sglang");
    assert_string_equal(catalog_find_engine(&cat, "sglang-0.4")->id, "sglang");
    /* "vllmv1": the current profile's alias "vllm-v1" itself (0), then the synchronous V1 profile,
     * whose alias "vllm-v1-sync" and display name "vLLM V1 0.8-0.13 ..." begin with it (prefix) */
    n = catalog_suggest_engines(&cat, "vllmv1", s, 3);
    assert_true(n >= 2);
    assert_string_equal(s[0], "vllm");
    assert_true(!strcmp(s[1], "vllm-0.8") || (n == 3 && !strcmp(s[2], "vllm-0.8")));
    /* "trtllm" spelled out is "tensorrtllm": the folded id of tensorrt-llm (0+1); the early
     * and PyTorch profiles are that and "early" (20+5+1) or "pytorch" (20+7+1); nemo-trtllm,
     * which holds "trtllm" (80+4), comes after them */
    n = catalog_suggest_engines(&cat, "trt-llm", s, 3);
    assert_int_equal(n, 3);
    assert_string_equal(s[0], "tensorrt-llm");
    assert_string_equal(s[1], "tensorrt-llm-early");
    assert_string_equal(s[2], "tensorrt-llm-pytorch");
    n = catalog_suggest_engines(&cat, "TRT", s, 3);
    assert_true(n >= 1);
    assert_string_equal(s[0], "tensorrt-llm");
    /* "llamacpp" starts the three llama.cpp profiles (20+6 each; ties in id order) */
    n = catalog_suggest_engines(&cat, "llamacpp", s, 3);
    assert_int_equal(n, 3);
    assert_string_equal(s[0], "llama.cpp-2023-12");
    assert_string_equal(s[1], "llama.cpp-2024-05");
    assert_string_equal(s[2], "llama.cpp-2024-06");
    /* "vlm": one edit allowed in 3 characters: vllm (1), never calm (2) */
    n = catalog_suggest_engines(&cat, "vlm", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "vllm");
    /* 300 x 'a' and a 300-character name: no name is near; neither is "zzz" */
    char longname[301];
    memset(longname, 'a', 300);
    longname[300] = '\0';
    assert_int_equal(catalog_suggest_engines(&cat, longname, s, 3), 0);
    assert_int_equal(catalog_suggest_models(&cat, longname, s, 3), 0);
    assert_int_equal(catalog_suggest_gpus(&cat, longname, s, 3), 0);
    assert_int_equal(catalog_suggest_models(&cat, "zzz", s, 3), 0);
    assert_int_equal(catalog_suggest_engines(&cat, "--", s, 3), 0); /* folds to nothing */
    /* GPUs: "h100x" is the alias h100 and one edit (10); "H100-SXM" starts h100-sxm5-80gb (20+5)
     * ahead of h200-sxm (two edits, not allowed under 8 characters) */
    n = catalog_suggest_gpus(&cat, "h100x", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "h100-sxm5-80gb");
    n = catalog_suggest_gpus(&cat, "H100-SXM", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "h100-sxm5-80gb");
    n = catalog_suggest_gpus(&cat, "4090", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "rtx-4090");
    /* models: "llama3-8b" folds to llama-3-8b's llama38b (0); the HuggingFace repository
     * meta-llama/Llama-2-7b-hf names llama-2-7b (its hf_id, 0+2); "lamma-3-8b" is one
     * transposition from llama-3-8b (10) */
    n = catalog_suggest_models(&cat, "llama3-8b", s, 3);
    assert_true(n >= 1);
    assert_string_equal(s[0], "llama-3-8b");
    n = catalog_suggest_models(&cat, "meta-llama/Llama-2-7b-hf", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "llama-2-7b");
    /* a suffix after the id (60+8) or the repository (HF id Qwen/Qwen3-8B, 60+8+2) */
    n = catalog_suggest_models(&cat, "qwen3-8b-instruct", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "qwen3-8b");
    n = catalog_suggest_models(&cat, "Qwen/Qwen3-8B-Instruct", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "qwen3-8b");
    n = catalog_suggest_models(&cat, "lamma-3-8b", s, 3);
    assert_int_equal(n, 1);
    assert_string_equal(s[0], "llama-3-8b");
    catalog_free(&cat);
}

/* A valid one-GPU file with one substitution: FIELD_VALUE replaces the memory line. */
static const char *gpu_template =
    "{\n"
    "  \"gpus\": [\n"
    "    {\n"
    "      \"id\": \"test-gpu\",\n"
    "      \"name\": \"Test GPU\",\n"
    "      %s\n"
    "      \"memory_bandwidth_Bps\": 1e12,\n"
    "      \"peak_flops\": { \"fp16\": 1e14 %s},\n"
    "      \"interconnect\": { \"kind\": %s, \"bandwidth_Bps\": 3e11, \"latency_s\": 5e-6, \"hop_latency_s\": 1e-6 },\n"
    "      \"efficiency\": { \"compute\": %s, \"memory\": 0.8, \"comm\": 0.8 },\n"
    "      \"step_overhead_s\": 0.0002,\n"
    "      \"gpus_per_node\": 8,\n"
    "      \"source\": \"test\"\n"
    "    }\n"
    "  ]\n"
    "}\n";

static int load_gpu_variant(const char *mem_line, const char *peak_extra, const char *kind, const char *ce,
                            struct llmroof_err *err)
{
    char text[4096];
    snprintf(text, sizeof text, gpu_template, mem_line, peak_extra, kind, ce);
    struct llmroof_catalog cat;
    catalog_init(&cat);
    int rc = catalog_add_gpus_text(&cat, text, strlen(text), "t.json", false, err);
    catalog_free(&cat);
    return rc;
}

static void expect_gpu_error(const char *mem_line, const char *peak_extra, const char *kind, const char *ce,
                             const char *needle)
{
    struct llmroof_err err = { 0 };
    int rc = load_gpu_variant(mem_line, peak_extra, kind, ce, &err);
    if (rc != LLMROOF_EINPUT || !strstr(err.msg, needle)) {
        print_error("rc=%d msg='%s', wanted '%s'\n", rc, err.msg, needle);
        fail();
    }
}

static void valid_gpu_template_loads(void **state)
{
    struct llmroof_err err = { 0 };
    assert_int_equal(load_gpu_variant("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7", &err), 0);
}

static void gpu_validation_names_file_line_entry_and_field(void **state)
{
    /* memory_bytes is on line 6, column 7 of the template */
    expect_gpu_error("\"memory_bytes\": -5,", "", "\"nvlink\"", "0.7",
                     "t.json:6:7: 'test-gpu': field 'memory_bytes' must be a number of at least 1e+08");
    expect_gpu_error("\"memory_bytes\": 0,", "", "\"nvlink\"", "0.7", "field 'memory_bytes' must be a number of at least");
    /* physical lower bounds: a 1e-300 figure is a slip that would turn every time into inf */
    expect_gpu_error("\"memory_bytes\": 1e-300,", "", "\"nvlink\"", "0.7", "field 'memory_bytes' must be a number of at least 1e+08");
    expect_gpu_error("\"memory_bytes\": 1e10,", ", \"fp8\": 1e-300 ", "\"nvlink\"", "0.7",
                     "field 'peak_flops.fp8' must be a number of at least 1e+09");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "1e-300",
                     "field 'efficiency.compute' must be a number of at least 0.01");
    expect_gpu_error("\"memory_bytes\": 1e20,", "", "\"nvlink\"", "0.7", "field 'memory_bytes' must be a number");
    expect_gpu_error("\"memory_bytes\": \"80GB\",", "", "\"nvlink\"", "0.7", "field 'memory_bytes' must be a number");
    expect_gpu_error("", "", "\"nvlink\"", "0.7", "field 'memory_bytes' is missing");
    /* JSON has no NaN or Infinity: such a file is malformed, reported at the token */
    expect_gpu_error("\"memory_bytes\": NaN,", "", "\"nvlink\"", "0.7", "t.json:6:23: malformed JSON");
    expect_gpu_error("\"memory_bytes\": 1e10, \"memory_bandwith_Bps\": 1,", "", "\"nvlink\"", "0.7",
                     "field 'memory_bandwith_Bps' is not a known field");
    expect_gpu_error("\"memory_bytes\": 1e10,", ", \"fp12\": 1e12 ", "\"nvlink\"", "0.7",
                     "field 'peak_flops.fp12' is not a dtype");
    expect_gpu_error("\"memory_bytes\": 1e10,", ", \"fp8\": -1 ", "\"nvlink\"", "0.7",
                     "field 'peak_flops.fp8' must be a number of at least");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"infiniband\"", "0.7",
                     "field 'interconnect.kind' must be one of");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "1.5", "field 'efficiency.compute' must be a number");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0", "field 'efficiency.compute' must be a number of at least");
    /* attention efficiencies are fractions of peak; a mesh has 1 to 64 links; NVLS at most 20 TB/s */
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7, \"attention\": 1.5",
                     "field 'efficiency.attention' must be a number");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7, \"attention_memory\": 0",
                     "field 'efficiency.attention_memory' must be a number of at least 0.05");
    /* a GEMM's fill ramp is a count of rows, 0 (none) to 8192 */
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7, \"gemm_ramp_rows\": -1",
                     "field 'efficiency.gemm_ramp_rows' must be a number of at least 0");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7, \"gemm_ramp_rows\": 9000",
                     "field 'efficiency.gemm_ramp_rows' must be a number");
    /* fp16-accumulate GEMMs, as 8-bit ones, reach at least half the 16-bit share of their faster peak */
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7, \"gemm_fp16_accumulate\": 0.3",
                     "field 'efficiency.gemm_fp16_accumulate' must be a number of at least 0.5");
    /* ... and only where such a faster peak exists: elsewhere the share would be ignored */
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7, \"gemm_fp16_accumulate\": 0.9",
                     "field 'efficiency.gemm_fp16_accumulate' needs efficiency.fp16_accumulate_ratio above 1");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"xgmi\", \"mesh_links\": 0", "0.7",
                     "field 'interconnect.mesh_links' must be a number of at least 1");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"nvlink\", \"nvls_bandwidth_Bps\": 1e15", "0.7",
                     "field 'interconnect.nvls_bandwidth_Bps' must be a number");
    /* NVLS is an NVSwitch feature, a point-to-point mesh AMD's xGMI */
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"xgmi\", \"nvls_bandwidth_Bps\": 2.7e11", "0.7",
                     "field 'interconnect.nvls_bandwidth_Bps' needs an \"nvlink\" interconnect");
    expect_gpu_error("\"memory_bytes\": 1e10,", "", "\"pcie\", \"mesh_links\": 7", "0.7",
                     "field 'interconnect.mesh_links' needs an \"xgmi\" interconnect");
    struct llmroof_err err = { 0 };
    assert_int_equal(load_gpu_variant("\"memory_bytes\": 1e10,", "", "\"xgmi\", \"mesh_links\": 7", "0.7, "
                                      "\"attention\": 0.35, \"attention_fa3\": 0.66, \"attention_memory\": 0.93",
                                      &err), 0);
    assert_int_equal(load_gpu_variant("\"memory_bytes\": 1e10,", "", "\"nvlink\", \"nvls_bandwidth_Bps\": 2.7e11",
                                      "0.7", &err), 0);
}

/* An engine entry with `fields` beside the required ones is refused, its message naming `named`
 * (and, with `located`, the file and the entry). */
static void expect_engine_refused(const char *fields, const char *named, bool located)
{
    char text[768];
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    snprintf(text, sizeof text,
             "{\"engines\":[{\"id\":\"e\",\"name\":\"e\",\"step_overhead_s\":0,\"first_token_s\":0,"
             "\"compute_scale\":1,%s,\"source\":\"s\"}]}", fields);
    assert_int_not_equal(catalog_add_engines_text(&cat, text, strlen(text), "e.json", false, &err), 0);
    if (!strstr(err.msg, named) || (located && (!strstr(err.msg, "e.json") || !strstr(err.msg, "'e'")))) {
        print_error("'%s'%s not in: %s\n", named, located ? " (with the file and the entry)" : "", err.msg);
        fail();
    }
    catalog_free(&cat);
}

/* An engine's "gpu_memory_tiers" (SGLang's defaults by GPU memory), "prefix_cache" and
 * "pd_decode_prealloc" (SGLang's decode-side pre-allocation before the prefill): each bad
 * band is refused with a message naming the file, the entry, the band or member, and what was
 * expected; a good pair of bands loads and the lookup finds each band. */
static void engine_memory_tiers_and_prefix_cache_are_checked(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "\"prefix_cache\": 1", "field 'prefix_cache' must be true or false" },
        { "\"pd_decode_prealloc\": \"yes\"", "field 'pd_decode_prealloc' must be true or false" },
        { "\"gpu_memory_tiers\": {}", "'gpu_memory_tiers' must be a non-empty array" },
        { "\"gpu_memory_tiers\": []", "'gpu_memory_tiers' must be a non-empty array" },
        { "\"gpu_memory_tiers\": [3]", "'gpu_memory_tiers[0]' must be an object" },
        { "\"gpu_memory_tiers\": [{\"max_batched_tokens\": 2048}]", "'gpu_memory_tiers[0]' needs from_MiB or below_MiB" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 25000}]", "'gpu_memory_tiers[0]' needs max_batched_tokens" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 0, \"max_batched_tokens\": 2048}]",
          "'gpu_memory_tiers[0].below_MiB' must be" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 25000, \"max_batched_tokens\": 8}]",
          "'gpu_memory_tiers[0].max_batched_tokens' must be" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 25000, \"max_batched_token\": 2048}]",
          "gpu_memory_tiers[0].max_batched_token" },
        { "\"gpu_memory_tiers\": [{\"from_MiB\": 40000, \"below_MiB\": 30000, \"max_batched_tokens\": 2048}]",
          "'gpu_memory_tiers[0]' has below_MiB 30000 not above from_MiB 40000" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 35840, \"max_batched_tokens\": 2048}, "
          "{\"from_MiB\": 30000, \"max_batched_tokens\": 16384}]",
          "'gpu_memory_tiers[1]' overlaps gpu_memory_tiers[0]" },
        /* a graph limit without graphs (this entry has none) */
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 25000, \"graph_max_batch\": 8}]",
          "'gpu_memory_tiers[0]' states graph_max_batch, which needs \"cuda_graphs\": true" },
        /* exact graph sizes need decode-only graphs up to a limit, and lie below it */
        { "\"cuda_graphs\": true, \"graph_every_batch_to\": 32",
          "'graph_every_batch_to' needs \"graph_max_batch\" of decode-only graphs" },
        { "\"cuda_graphs\": true, \"graph_max_batch\": 512, \"graph_piecewise\": true, \"graph_every_batch_to\": 32",
          "'graph_every_batch_to' needs \"graph_max_batch\" of decode-only graphs" },
        { "\"cuda_graphs\": true, \"graph_max_batch\": 16, \"graph_every_batch_to\": 32",
          "'graph_every_batch_to' 32 is above \"graph_max_batch\" 16" },
        { "\"cuda_graphs\": true, \"graph_max_batch\": 128, \"graph_every_batch_to\": 0",
          "graph_every_batch_to" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_engine_refused(bad[i][0], bad[i][1], true);
    char text[768];
    /* two bands with graphs: 24 GiB falls in the first, 192 GiB in the second, 80 GiB in none */
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    snprintf(text, sizeof text,
             "{\"engines\":[{\"id\":\"e\",\"name\":\"e\",\"step_overhead_s\":0,\"first_token_s\":0,"
             "\"compute_scale\":1,\"cuda_graphs\":true,\"graph_max_batch\":160,\"prefix_cache\":true,"
             "\"gpu_memory_tiers\":[{\"below_MiB\":35840,\"max_batched_tokens\":2048,\"graph_max_batch\":8,"
             "\"graph_max_batch_tp4\":80},{\"from_MiB\":163840,\"max_batched_tokens\":16384}],\"source\":\"s\"}]}");
    assert_int_equal(catalog_add_engines_text(&cat, text, strlen(text), "e.json", false, &err), 0);
    const struct llmroof_engine *en = catalog_find_engine(&cat, "e");
    assert_non_null(en);
    assert_true(en->prefix_cache);
    assert_int_equal(en->n_mem_tiers, 2);
    const struct llmroof_mem_tier *t = catalog_engine_tier(en, 24.0 * 1073741824); /* 24,576 MiB */
    assert_non_null(t);
    assert_int_equal(t->max_batched_tokens, 2048);
    assert_int_equal(t->graph_max_batch, 8);
    assert_int_equal(t->graph_max_batch_tp4, 80);
    assert_int_equal(catalog_engine_tier(en, 192.0 * 1073741824)->max_batched_tokens, 16384);
    assert_null(catalog_engine_tier(en, 80.0 * 1073741824));
    catalog_free(&cat);
}

/* The fields of session 40 (SGLang's static memory fraction and decode reserve, TGI's concurrency
 * limit, P/D support): each bad value is refused naming the file, the entry and the field, and
 * each combination the engines cannot have (a fraction both static and of the free memory; a
 * default that follows the GPU without a static fraction; a reserve without pre-allocation). */
static void engine_memory_fraction_and_serving_limits_are_checked(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "\"mem_static\": true, \"kv_of_free_memory\": true", "'mem_static' conflicts with kv_of_free_memory" },
        { "\"mem_util_by_tp\": [{\"from_tp\": 2, \"mem_util\": 0.8}]", "which only \"mem_static\"" },
        { "\"mem_static\": true, \"mem_util_by_tp\": []", "'mem_util_by_tp' must be a non-empty array" },
        { "\"mem_static\": true, \"mem_util_by_tp\": [{\"from_tp\": 2}]", "'mem_util_by_tp[0]' needs both" },
        { "\"mem_static\": true, \"mem_util_by_tp\": [{\"from_tp\": 2, \"mem_util\": 0.8}, "
          "{\"from_tp\": 2, \"mem_util\": 0.7}]",
          "'mem_util_by_tp[1]' repeats from_tp 2" },
        { "\"mem_static\": true, \"mem_util_by_tp\": [{\"from_tp\": 2, \"mem_util\": 1.5}]", "mem_util" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 25000, \"mem_reserve_MiB\": 2000}]", "which only \"mem_static\"" },
        { "\"mem_static\": true, \"gpu_memory_tiers\": [{\"below_MiB\": 25000, \"mem_reserve_MiB\": 30000}]",
          "'gpu_memory_tiers[0]' has mem_reserve_MiB 30000 not below below_MiB 25000" },
        { "\"gpu_memory_tiers\": [{\"below_MiB\": 25000, \"max_batched_tokens\": 2048, \"mem_reserve_per_gpu_MiB\": 5}]",
          "states mem_reserve_per_gpu_MiB without mem_reserve_MiB" },
        { "\"pd_decode_reserve_tokens\": 512", "'pd_decode_reserve_tokens' needs \"pd_decode_prealloc\": true" },
        { "\"pd_decode_prealloc\": true, \"pd_decode_reserve_tokens\": 0", "pd_decode_reserve_tokens" },
        { "\"max_concurrent_requests\": 0", "max_concurrent_requests" },
        { "\"disaggregation\": 1", "field 'disaggregation' must be true or false" },
        { "\"pd_kv_full_window\": \"yes\"", "field 'pd_kv_full_window' must be true or false" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_engine_refused(bad[i][0], bad[i][1], true);
}

/* The serving-scheduler fields of an engine profile load within their bounds and name the field
 * otherwise (docs/catalog.md "Engines"). */
static void engine_scheduler_fields_are_bounded(void **state)
{
    (void)state;
    static const char *const bad[][2] = {
        { "\"cpu_overlap\": 1.5", "cpu_overlap" },
        { "\"cpu_seq_s\": 0.01", "cpu_seq_s" },
        { "\"worker_seq_s\": 0.002", "worker_seq_s" },
        { "\"worker_seq_s\": -1e-6", "worker_seq_s" },
        { "\"max_paddings\": -1", "max_paddings" },
        { "\"max_paddings\": 1000001", "max_paddings" },
        { "\"max_paddings\": 2.5", "max_paddings" },
        { "\"admission\": \"evict-later\"", "admission" },
        { "\"max_seqs\": 0", "max_seqs" },
        { "\"max_batch\": 0", "max_batch" },
        { "\"max_gpus\": 65537", "max_gpus" },
        /* a default sequence limit the runtime cannot run (calm's ceiling is one) */
        { "\"max_batch\": 1, \"max_seqs\": 4", "'max_seqs' 4 is above \"max_batch\" 1" },
        { "\"max_batch\": 8, \"large_gpu_max_seqs\": 16", "'large_gpu_max_seqs' 16 is above \"max_batch\" 8" },
        { "\"max_batched_tokens\": 8", "max_batched_tokens" },
        { "\"chunked_prefill\": 0", "chunked_prefill" },
        { "\"prefill_first\": \"yes\"", "prefill_first" },
        { "\"budget_min_context\": 1", "budget_min_context" },
        { "\"tp_step_overhead_s\": 0.05", "tp_step_overhead_s" },
        { "\"ray_output_token_s\": 2e-6", "ray_output_token_s" },
        { "\"ray_output_token_s\": -1e-9", "ray_output_token_s" },
        /* the CPU parts (2 ms of API work per chunk, an overlap of 1.5; docs/model.md "Engine CPU work") */
        { "\"cpu_output_s\": 0.002", "cpu_output_s" },
        { "\"cpu_output_overlap\": 1.5", "cpu_output_overlap" },
        { "\"api_stream_s\": 0.002", "api_stream_s" },
        { "\"api_overlap\": -0.5", "api_overlap" },
        /* vLLM 0.5.4-0.6's automatic chunking: a threshold under 1K, a budget under 16 tokens */
        { "\"chunked_prefill_min_context\": 100", "chunked_prefill_min_context" },
        { "\"chunked_max_batched_tokens\": 8", "chunked_max_batched_tokens" },
        { "\"waiting_served_ratio\": 101", "waiting_served_ratio" },
        { "\"waiting_served_ratio\": -0.5", "waiting_served_ratio" },
        { "\"max_waiting_steps\": -1", "max_waiting_steps" },
        { "\"max_waiting_steps\": 2.5", "max_waiting_steps" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_engine_refused(bad[i][0], bad[i][1], false);
    char text[512];
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    snprintf(text, sizeof text,
             "{\"engines\":[{\"id\":\"e\",\"name\":\"e\",\"step_overhead_s\":0,\"first_token_s\":0,"
             "\"compute_scale\":1,\"cpu_seq_s\":1e-5,\"cpu_overlap\":0.5,\"admission\":\"no-evict\",\"max_seqs\":64,"
             "\"max_batched_tokens\":4096,\"source\":\"s\"}]}");
    assert_int_equal(catalog_add_engines_text(&cat, text, strlen(text), "e.json", false, &err), 0);
    assert_rel_close(cat.engines[0].cpu_seq_s, 1e-5, 0);
    assert_rel_close(cat.engines[0].cpu_overlap, 0.5, 0);
    assert_true(cat.engines[0].admit_no_evict);
    assert_int_equal(cat.engines[0].max_seqs, 64);
    assert_int_equal(cat.engines[0].max_batched_tokens, 4096);
    /* absent: chunked prefill, running sequences first, the budget as given */
    assert_false(cat.engines[0].whole_prefill);
    assert_false(cat.engines[0].prefill_first);
    assert_false(cat.engines[0].budget_min_context);
    catalog_free(&cat);
    /* vLLM 0.2-0.5: "chunked_prefill": false, "prefill_first": true, "budget_min_context": true */
    catalog_init(&cat);
    snprintf(text, sizeof text,
             "{\"engines\":[{\"id\":\"e\",\"name\":\"e\",\"step_overhead_s\":0,\"first_token_s\":0,"
             "\"compute_scale\":1,\"chunked_prefill\":false,\"prefill_first\":true,\"budget_min_context\":true,"
             "\"source\":\"s\"}]}");
    assert_int_equal(catalog_add_engines_text(&cat, text, strlen(text), "e.json", false, &err), 0);
    assert_true(cat.engines[0].whole_prefill);
    assert_true(cat.engines[0].prefill_first);
    assert_true(cat.engines[0].budget_min_context);
    catalog_free(&cat);
}

/* The flags of one engine's versions that simulate takes by name: "max_paddings_option" (vLLM
 * 0.2.1-0.3's --max-paddings), "multi_step_scheduling" (vLLM 0.6-0.10's V0
 * --num-scheduler-steps) and "recv_interval_option" (SGLang's --scheduler-recv-interval). Absent, false (a profile that pads prompt batches, max_paddings > 0,
 * takes the first unless it says false, which contradicts it: refused); not a boolean: refused.
 * The shipped profiles: vllm-0.2 and vllm-0.4 (0.3.x) take --max-paddings, vllm-0.6 alone
 * --num-scheduler-steps, sglang alone --scheduler-recv-interval; vLLM V1 (vllm-0.8, vllm) and
 * TensorRT-LLM none. */
static void engine_flags_of_one_version_are_the_profiles(void **state)
{
    (void)state;
    expect_engine_refused("\"multi_step_scheduling\": 1", "multi_step_scheduling", true);
    expect_engine_refused("\"recv_interval_option\": \"true\"", "recv_interval_option", true);
    expect_engine_refused("\"max_paddings_option\": \"yes\"", "max_paddings_option", true);
    expect_engine_refused("\"max_paddings\": 256, \"max_paddings_option\": false", "max_paddings_option", true);
    char text[512];
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    snprintf(text, sizeof text,
             "{\"engines\":[{\"id\":\"a\",\"name\":\"a\",\"step_overhead_s\":0,\"first_token_s\":0,"
             "\"compute_scale\":1,\"source\":\"s\"},{\"id\":\"b\",\"name\":\"b\",\"step_overhead_s\":0,"
             "\"first_token_s\":0,\"compute_scale\":1,\"max_paddings\":16,\"source\":\"s\"}]}");
    assert_int_equal(catalog_add_engines_text(&cat, text, strlen(text), "e.json", false, &err), 0);
    assert_false(cat.engines[0].max_paddings_option);
    assert_false(cat.engines[0].multi_step_scheduling);
    assert_false(cat.engines[0].recv_interval_option);
    assert_true(cat.engines[1].max_paddings_option); /* implied by its padding */
    assert_false(cat.engines[1].multi_step_scheduling);
    catalog_free(&cat);
    catalog_init(&cat);
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    static const struct {
        const char *id;
        bool pad, steps, recv;
    } want[] = { { "vllm-0.2", true, false, false },    { "vllm-0.4", true, false, false },
                 { "vllm-0.6", false, true, false },    { "vllm-0.8", false, false, false },
                 { "vllm", false, false, false },       { "sglang", false, false, true },
                 { "sglang-0.3", false, false, false }, { "tensorrt-llm", false, false, false },
                 { "sarathi-serve", false, false, false } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const struct llmroof_engine *e = catalog_find_engine(&cat, want[i].id);
        assert_non_null(e);
        if (e->max_paddings_option != want[i].pad || e->multi_step_scheduling != want[i].steps ||
            e->recv_interval_option != want[i].recv) {
            print_error("%s: max_paddings_option %d, multi_step_scheduling %d, recv_interval_option %d\n", want[i].id,
                        e->max_paddings_option, e->multi_step_scheduling, e->recv_interval_option);
            fail();
        }
    }
    catalog_free(&cat);
}

/* TGI 2.x's scheduler (launcher docs: --max-batch-prefill-tokens 4096 by default; the router runs a
 * waiting prefill batch before decoding resumes; prompts not chunked before 3.0): the shipped
 * profile says so, rather than the chunked 8192-token default that left its rows 34-38% fast. */
static void tgi_profile_runs_whole_prefills_first_in_4096_tokens(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    const struct llmroof_engine *tgi = NULL;
    for (size_t i = 0; i < cat.n_engines; i++)
        if (strcmp(cat.engines[i].id, "tgi") == 0)
            tgi = &cat.engines[i];
    assert_non_null(tgi);
    assert_true(tgi->whole_prefill);
    assert_true(tgi->prefill_first);
    assert_int_equal(tgi->max_batched_tokens, 4096); /* TGI launcher default */
    assert_true(tgi->waiting_served_ratio == 0.3); /* --waiting-served-ratio default since PR #1820 (1.2 before) */
    assert_int_equal(tgi->max_waiting_steps, 20);   /* --max-waiting-tokens default */
    assert_true(tgi->admit_no_evict);                /* prompt + max_new_tokens reserved at admission */
    catalog_free(&cat);
}

/* What llmroof writes as a catalog (validate --fit-gpus/--fit-engines, calibrate --out) loads
 * back as the same entries, every optional field included: the shipped GPUs and engines, written
 * and read again, are byte-for-byte the structs they were. */
static void written_catalog_entries_load_back_unchanged(void **state)
{
    (void)state;
    struct llmroof_catalog cat, back;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    char *gj = render_json_gpus(cat.gpus, cat.n_gpus), *ej = render_json_engines(cat.engines, (int)cat.n_engines);
    assert_non_null(gj);
    assert_non_null(ej);
    catalog_init(&back);
    assert_int_equal(catalog_add_gpus_text(&back, gj, strlen(gj), "gpus-out.json", false, &err), 0);
    assert_int_equal(catalog_add_engines_text(&back, ej, strlen(ej), "engines-out.json", false, &err), 0);
    assert_int_equal(back.n_gpus, cat.n_gpus);
    assert_int_equal(back.n_engines, cat.n_engines);
    for (size_t i = 0; i < cat.n_gpus; i++)
        if (memcmp(&back.gpus[i], &cat.gpus[i], sizeof cat.gpus[i]) != 0) {
            print_error("GPU '%s' changed on the way through the writer\n", cat.gpus[i].id);
            fail();
        }
    for (size_t i = 0; i < cat.n_engines; i++)
        if (memcmp(&back.engines[i], &cat.engines[i], sizeof cat.engines[i]) != 0) {
            print_error("engine '%s' changed on the way through the writer\n", cat.engines[i].id);
            fail();
        }
    free(gj);
    free(ej);
    catalog_free(&back);
    catalog_free(&cat);
}

/* The uncertainty file says how its bands were made and how to make them again: held out (validate
 * --cv source) or in sample, with the matching command; it loads back with the same bands. */
static void uncertainty_file_names_its_method(void **state)
{
    (void)state;
    struct llmroof_uncertainty u = { 0 };
    u.ttft = (struct llmroof_band){ true, 0.7027, 2.6995, 83 };
    u.tpot = (struct llmroof_band){ true, 0.8837, 1.2386, 139 };
    char *held = render_json_uncertainty("data/measurements.csv", NULL, false, "source", &u);
    char *in = render_json_uncertainty("data/measurements.csv", NULL, false, NULL, &u);
    assert_non_null(held);
    assert_non_null(in);
    assert_non_null(strstr(held, "held-out predictions (validate --cv source)"));
    assert_non_null(strstr(held, "regenerate: llmroof validate FILE --cv source --uncertainty-out"));
    assert_non_null(strstr(in, "in-sample predictions"));
    assert_null(strstr(in, "--cv"));
    struct llmroof_uncertainty back;
    struct llmroof_err err = { 0 };
    assert_int_equal(catalog_load_uncertainty(held, strlen(held), "held.json", &back, &err), 0);
    assert_true(back.ttft.present && back.tpot.present && !back.e2e.present);
    assert_rel_close(back.ttft.high, 2.6995, 0);
    assert_int_equal(back.tpot.n, 139);
    assert_false(back.serving_ttft.present);
    free(held);
    free(in);
    /* with the serving rows' bands (simulate --range): named with their file, and read back */
    u.serving_ttft = (struct llmroof_band){ true, 0.9115, 4.0684, 81 };
    char *srv = render_json_uncertainty("data/measurements.csv", "data/serving.csv", true, "source", &u);
    char *gpu = render_json_uncertainty("data/measurements.csv", "data/serving.csv", false, "gpu", &u);
    assert_non_null(srv);
    assert_non_null(gpu);
    assert_non_null(strstr(srv, "serving_*: of the serving rows of data/serving.csv"));
    assert_non_null(strstr(srv, "held out by publication, each publication weighing the same"));
    /* --cv gpu holds out static rows by GPU, but serving rows are then predicted in sample */
    assert_non_null(strstr(gpu, "stated load, in sample"));
    free(gpu);
    assert_non_null(strstr(srv, "regenerate: llmroof validate FILE --serving SERVING --cv source"));
    assert_int_equal(catalog_load_uncertainty(srv, strlen(srv), "srv.json", &back, &err), 0);
    assert_true(back.serving_ttft.present && !back.serving_tpot.present);
    assert_rel_close(back.serving_ttft.high, 4.0684, 0);
    assert_int_equal(back.serving_ttft.n, 81);
    free(srv);
    /* a misspelt band is refused, not left unread (--range would take another band unseen) */
    const char *typo = "{\"servng_ttft\": {\"low\": 0.9, \"high\": 2, \"n\": 5}}";
    assert_int_equal(catalog_load_uncertainty(typo, strlen(typo), "typo.json", &back, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "typo.json: unknown field 'servng_ttft'"));
    /* a file of no band is refused: --range had printed blank low and high columns from it */
    const char *none = "{\"source\": \"10th and 90th percentiles of no row\"}";
    assert_int_equal(catalog_load_uncertainty(none, strlen(none), "none.json", &back, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "none.json: no band"));
}

static void malformed_json_reports_line_and_column(void **state)
{
    const char *text = "{\n  \"gpus\": [\n    { \"id\": \"x\", }\n  ]\n}\n";
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    assert_int_equal(catalog_add_gpus_text(&cat, text, strlen(text), "bad.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "bad.json:3:"));
    assert_non_null(strstr(err.msg, "malformed JSON"));
    assert_int_equal(cat.n_gpus, 0);
    text = "{\"gpu\": []}";
    assert_int_equal(catalog_add_gpus_text(&cat, text, strlen(text), "bad.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "top-level field 'gpu' is not known"));
    text = "";
    assert_int_equal(catalog_add_gpus_text(&cat, text, 0, "empty.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "empty.json: empty file"));
    /* nesting: the object is level 1, so the 1000th '[' (offset 8 + 999 = 1007, column
     * 1008) is level 1001, one past cJSON's limit */
    char deep[2 * 1001 + 16];
    size_t n = 0;
    n += (size_t)sprintf(deep, "{\"gpus\":");
    for (int i = 0; i < 1000; i++)
        deep[n++] = '[';
    deep[n] = '\0';
    strcat(deep, "[]");
    n += 2;
    for (int i = 0; i < 1000; i++)
        deep[n++] = ']';
    deep[n++] = '}';
    assert_int_equal(catalog_add_gpus_text(&cat, deep, n, "deep.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "deep.json:1:1008: JSON nested deeper than 1000 levels"));
    /* brackets inside strings do not count */
    text = "{\"gpus\": [], \"x\": \"[[[[\"}";
    assert_int_equal(parse_json_too_deep(text, strlen(text), 2), SIZE_MAX);
    assert_int_equal(parse_json_too_deep(text, strlen(text), 1), 9);
    catalog_free(&cat);
}

static void duplicate_ids_and_aliases_are_rejected(void **state)
{
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    char text[4096];
    /* adding the shipped file again without replace: duplicate id */
    char *shipped;
    size_t len;
    assert_int_equal(catalog_read_file(LLMROOF_TEST_DATA_DIR "/gpus.json", 1 << 24, &shipped, &len, &err), 0);
    assert_int_equal(catalog_add_gpus_text(&cat, shipped, len, "gpus.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "duplicates an entry already in the catalog"));
    free(shipped);
    /* an alias that another GPU already uses */
    snprintf(text, sizeof text, gpu_template, "\"memory_bytes\": 1e10, \"aliases\": [\"A100\"],", "", "\"nvlink\"", "0.7");
    assert_int_equal(catalog_add_gpus_text(&cat, text, strlen(text), "t.json", true, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "'A100' is already used by 'a100-sxm4-40gb'"));
    /* the same id twice inside one file */
    const char *two = "{\"models\": [ {\"id\":\"m\"}, {\"id\":\"m\"} ]}";
    assert_int_equal(catalog_add_models_text(&cat, two, strlen(two), "two.json", true, &err), LLMROOF_EINPUT);
    catalog_free(&cat);
}

static void user_file_replaces_same_id(void **state)
{
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    char text[4096];
    snprintf(text, sizeof text, gpu_template, "\"memory_bytes\": 1e10,", "", "\"nvlink\"", "0.7");
    /* rename test-gpu to a40 (same length: pad the id with spaces outside the quotes) */
    char *p = strstr(text, "test-gpu\"");
    memcpy(p, "a40\"     ", 9);
    size_t before = cat.n_gpus;
    assert_int_equal(catalog_add_gpus_text(&cat, text, strlen(text), "mine.json", true, &err), 0);
    assert_int_equal(cat.n_gpus, before);
    assert_rel_close(catalog_find_gpu(&cat, "a40")->memory_bytes, 1e10, 0);
    catalog_free(&cat);
}

/* ------------------------------------------------------------------------ */
/* Names people type or copy (docs/catalog.md "Names llmroof resolves")     */
/* ------------------------------------------------------------------------ */

/* name resolves, as a GPU (gpu) or a model, to the entry of id `id` ("": nothing), found `how`;
 * catalog_find_* agrees, and catalog_find_*_exact finds it only by an id or alias. */
static void expect_resolves(const struct llmroof_catalog *cat, bool gpu, const char *name, const char *id,
                            enum llmroof_match how)
{
    enum llmroof_match got;
    const void *e, *found, *exact;
    const char *got_id;
    if (gpu) {
        const struct llmroof_gpu *g = catalog_match_gpu(cat, name, &got);
        e = g;
        found = catalog_find_gpu(cat, name);
        exact = catalog_find_gpu_exact(cat, name);
        got_id = g ? g->id : "";
    } else {
        const struct llmroof_model *m = catalog_match_model(cat, name, &got);
        e = m;
        found = catalog_find_model(cat, name);
        exact = catalog_find_model_exact(cat, name);
        got_id = m ? m->id : "";
    }
    if (strcmp(got_id, id) != 0 || got != how)
        print_error("%s '%s' resolved to '%s' (how %d), expected '%s' (how %d)\n", gpu ? "GPU" : "model", name, got_id,
                    (int)got, id, (int)how);
    assert_string_equal(got_id, id);
    assert_int_equal(got, how);
    assert_ptr_equal(found, e);
    assert_int_equal(e && exact == e, how == LLMROOF_MATCH_ID);
}
#define expect_model(cat, name, id, how) expect_resolves((cat), false, (name), (id), (how))
#define expect_gpu(cat, name, id, how) expect_resolves((cat), true, (name), (id), (how))

/* A name, the id it resolves to ("": none) and how. */
struct name_case {
    const char *name, *id;
    enum llmroof_match how;
};

static void expect_cases(const struct llmroof_catalog *cat, bool gpu, const struct name_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        expect_resolves(cat, gpu, c[i].name, c[i].id, c[i].how);
}

/* Models by the names people copy from a hub: the id spelled otherwise (folded: letters and digits,
 * lowercased), the display name, the HuggingFace repository whole or after its owner, and an
 * instruction or chat fine-tune's name (same shapes as its base) without Instruct, Chat or it. */
static void lookup_resolves_model_names_people_type_or_copy(void **state)
{
    (void)state;
    static const struct name_case cases[] = {
        { "LLAMA-3.1-70B", "llama-3.1-70b", LLMROOF_MATCH_ID },
        /* all fold to "llama3170b", llama-3.1-70b's id (and its name Llama-3.1-70B) */
        { "llama3.1-70b", "llama-3.1-70b", LLMROOF_MATCH_SPELLING },
        { "Llama 3.1 70B", "llama-3.1-70b", LLMROOF_MATCH_SPELLING },
        { "Llama_3.1_70B", "llama-3.1-70b", LLMROOF_MATCH_SPELLING },
        { "llama2-70b", "llama-2-70b", LLMROOF_MATCH_SPELLING }, /* "llama270b" */
        { "gptj-6b", "gpt-j-6b", LLMROOF_MATCH_SPELLING },       /* "gptj6b" */
        /* the repository (hf_id, any case), whole or after the owner; the display name */
        { "meta-llama/Llama-3.1-70B", "llama-3.1-70b", LLMROOF_MATCH_NAME },
        { "META-LLAMA/llama-3.1-70b", "llama-3.1-70b", LLMROOF_MATCH_NAME },
        { "meta-llama/Llama-2-7b-hf", "llama-2-7b", LLMROOF_MATCH_NAME },
        { "Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b", LLMROOF_MATCH_NAME },
        { "Mistral-7B-v0.1", "mistral-7b", LLMROOF_MATCH_NAME },
        /* fine-tunes: Instruct, Chat, it left out ("meta-llama/Llama-3.1-70B"), and a repository's
         * last word hf ("meta-llama/Llama-2-70b-chat-hf" less chat is llama-2-70b's hf_id itself) */
        { "meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b", LLMROOF_MATCH_NAME },
        { "Llama-3.1-70B-Instruct", "llama-3.1-70b", LLMROOF_MATCH_NAME },
        { "meta-llama/Llama-2-70b-chat-hf", "llama-2-70b", LLMROOF_MATCH_NAME },
        { "Llama-2-70b-chat", "llama-2-70b", LLMROOF_MATCH_NAME },
        { "Meta-Llama-3-8B-Instruct", "llama-3-8b", LLMROOF_MATCH_NAME }, /* repo Meta-Llama-3-8B */
        /* Llama 3.1's first repository names (since renamed Llama-3.1-*): a first word Meta, with
         * or without the owner, left out ("llama3.18b" once Meta and Instruct are) */
        { "Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b", LLMROOF_MATCH_NAME },
        { "meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b", LLMROOF_MATCH_NAME },
        { "Meta-Llama-3.1-405B", "llama-3.1-405b", LLMROOF_MATCH_NAME },
        { "google/gemma-2-9b-it", "gemma-2-9b", LLMROOF_MATCH_NAME },
        { "gemma-2-9b_it", "gemma-2-9b", LLMROOF_MATCH_NAME },
        /* both sides: the base repository of a model the catalog holds as its instruct tune */
        { "Qwen/Qwen2.5-7B", "qwen2.5-7b", LLMROOF_MATCH_NAME },
        { "codellama/CodeLlama-34b", "codellama-34b", LLMROOF_MATCH_NAME }, /* hf_id less -hf */
    };
    struct llmroof_catalog cat;
    load_shipped(&cat);
    expect_cases(&cat, false, cases, sizeof cases / sizeof cases[0]);
    catalog_free(&cat);
}

/* Words that change the cost stay: a quantized checkpoint (FP8, AWQ, GPTQ-Int4, NVFP4) is not the
 * 16-bit model, Mistral-7B-Instruct-v0.2 not Mistral-7B-v0.1; "it", "chat" and "instruct" count
 * only as whole words; a name cut short is a suggestion, never a match. */
static void lookup_never_drops_a_quantization_or_version_word(void **state)
{
    (void)state;
    static const struct name_case cases[] = {
        { "Llama-3.1-70B-Instruct-FP8", "", LLMROOF_MATCH_NONE },
        { "meta-llama/Llama-3.1-70B-Instruct-FP8", "", LLMROOF_MATCH_NONE },
        { "Llama-3.1-70B-Instruct-AWQ", "", LLMROOF_MATCH_NONE },
        { "Llama-3.1-70B-Instruct-GPTQ-Int4", "", LLMROOF_MATCH_NONE },
        { "Llama-3.1-70B-Instruct-NVFP4", "", LLMROOF_MATCH_NONE },
        { "Llama-3.1-70B-FP8", "", LLMROOF_MATCH_NONE },
        { "Meta-Llama-3.1-405B-Instruct-FP8", "", LLMROOF_MATCH_NONE },
        { "Meta", "", LLMROOF_MATCH_NONE }, /* a last word is never left out as Meta */
        { "Mistral-7B-Instruct-v0.2", "", LLMROOF_MATCH_NONE }, /* "mistral7bv02" */
        { "Llama-3.1-70Bit", "", LLMROOF_MATCH_NONE },          /* "it" inside a word */
        { "Llama-3.1-70BInstruct", "", LLMROOF_MATCH_NONE },
        { "Llama-3.1", "", LLMROOF_MATCH_NONE },
        { "Instruct", "", LLMROOF_MATCH_NONE }, /* nothing left */
        { "", "", LLMROOF_MATCH_NONE },
    };
    struct llmroof_catalog cat;
    load_shipped(&cat);
    expect_cases(&cat, false, cases, sizeof cases / sizeof cases[0]);
    /* the unknown names keep their suggestions */
    const char *s[3];
    assert_true(catalog_suggest_models(&cat, "Llama-3.1-70B-Instruct-FP8", s, 3) >= 1);
    assert_string_equal(s[0], "llama-3.1-70b");
    catalog_free(&cat);
}

/* GPUs by nvidia-smi's and rocm-smi's names (a first word NVIDIA or AMD, GeForce, Instinct and
 * Tesla left out), the id or an alias folded, the aliases nvidia-smi's and vendors' names need
 * (h100-80gb-hbm3, h100-sxm-80gb, b200-sxm-180gb, h100-nvl-94gb), and a last word stating the
 * entry's memory: 48 GiB for the L40S, 192 GiB for the MI300X. */
static void lookup_resolves_gpu_names_of_nvidia_smi_and_rocm_smi(void **state)
{
    (void)state;
    static const struct name_case cases[] = {
        { "H100-80GB-HBM3", "h100-sxm5-80gb", LLMROOF_MATCH_ID },
        { "h100-sxm-80gb", "h100-sxm5-80gb", LLMROOF_MATCH_ID },
        { "b200-sxm-180gb", "b200", LLMROOF_MATCH_ID },
        { "h100-nvl-94gb", "h100-nvl", LLMROOF_MATCH_ID },
        { "H200-SXM-141GB", "h200-sxm-141gb", LLMROOF_MATCH_ID }, /* the id, any case */
        /* the vendor's words left out, the rest an id or alias spelled otherwise */
        { "NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb", LLMROOF_MATCH_SPELLING },
        { "NVIDIA GeForce RTX 4090", "rtx-4090", LLMROOF_MATCH_SPELLING },
        { "NVIDIA L40S", "l40s", LLMROOF_MATCH_SPELLING },
        { "AMD Instinct MI300X", "mi300x", LLMROOF_MATCH_SPELLING },
        { "NVIDIA H200", "h200-sxm-141gb", LLMROOF_MATCH_SPELLING }, /* alias h200 */
        { "NVIDIA H100 80GB HBM3", "h100-sxm5-80gb", LLMROOF_MATCH_SPELLING },
        { "Tesla V100-SXM2-32GB", "v100-sxm2-32gb", LLMROOF_MATCH_SPELLING },
        { "NVIDIA H100 NVL", "h100-nvl", LLMROOF_MATCH_SPELLING },
        /* nvidia-smi's names of the PCIe cards, their aliases (a review found both unknown) */
        { "NVIDIA A100 80GB PCIe", "a100-pcie-80gb", LLMROOF_MATCH_SPELLING },
        { "NVIDIA H100 PCIe", "h100-pcie-80gb", LLMROOF_MATCH_SPELLING },
        { "H200 SXM 141GB", "h200-sxm-141gb", LLMROOF_MATCH_SPELLING },
        { "h100 sxm5 80gb", "h100-sxm5-80gb", LLMROOF_MATCH_SPELLING },
        /* a display name: nvidia-smi's "NVIDIA RTX 6000 Ada Generation" */
        { "NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada", LLMROOF_MATCH_NAME },
        /* a last memory word that is the entry's memory (GiB or decimal GB, rounded): the L40S's
         * 51539607552 B = 48 GiB, the MI300X's 206158430208 B = 192 GiB; the H100 NVL's 94 GiB is
         * 100.9 GB, so "101GB" names it too */
        { "L40S 48GB", "l40s", LLMROOF_MATCH_NAME },
        { "MI300X 192GB", "mi300x", LLMROOF_MATCH_NAME },
        { "AMD Instinct MI300X 192GiB", "mi300x", LLMROOF_MATCH_NAME },
        { "H100 NVL 101GB", "h100-nvl", LLMROOF_MATCH_NAME },
        /* ... and never another memory: "A100 80GB" is the alias a100 (40 GiB) with 80; the L40S has
         * no 24 GB; a memory word alone is no name; vendor words only as whole words, NVIDIA and
         * AMD only first */
        { "A100 80GB", "", LLMROOF_MATCH_NONE },
        { "L40S 24GB", "", LLMROOF_MATCH_NONE },
        { "48GB", "", LLMROOF_MATCH_NONE },
        { "NVIDIA", "", LLMROOF_MATCH_NONE },
        { "H100 NVIDIA", "", LLMROOF_MATCH_NONE },
        { "TeslaV100", "", LLMROOF_MATCH_NONE },
        { "H100-SXM", "", LLMROOF_MATCH_NONE }, /* cut short: a suggestion */
    };
    struct llmroof_catalog cat;
    load_shipped(&cat);
    expect_cases(&cat, true, cases, sizeof cases / sizeof cases[0]);
    catalog_free(&cat);
}

/* gpu_template as a GPU of id `id` (out: n bytes). */
static void gpu_text_with_id(char *out, size_t n, const char *id)
{
    char t[4096];
    snprintf(t, sizeof t, gpu_template, "\"memory_bytes\": 85899345920,", "", "\"nvlink\"", "0.7");
    const char *p = strstr(t, "test-gpu");
    snprintf(out, n, "%.*s%s%s", (int)(p - t), t, id, p + strlen("test-gpu"));
}

/* A name that two entries answer resolves nothing (the suggestions then list both): a user's
 * model whose id folds as a shipped one's ("llama-3-1-70b" and "llama-3.1-70b" both "llama3170b"),
 * or a GPU's ("h100_sxm5_80gb"). Ids and aliases still find their own entry. */
static void lookup_resolves_nothing_that_fits_two_entries(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    load_shipped(&cat);
    const char *mine = "{\"models\": [{\"id\": \"llama-3-1-70b\", \"name\": \"Mine\", \"hidden_size\": 64, "
                       "\"num_layers\": 2, \"num_heads\": 4, \"num_kv_heads\": 4, \"intermediate_size\": 128, "
                       "\"vocab_size\": 100, \"max_context\": 256, \"tie_embeddings\": false, \"mlp\": \"gated\", "
                       "\"norm\": \"rmsnorm\", \"source\": \"test\"}]}";
    assert_int_equal(catalog_add_models_text(&cat, mine, strlen(mine), "mine.json", false, &err), 0);
    expect_model(&cat, "llama-3.1-70b", "llama-3.1-70b", LLMROOF_MATCH_ID);
    expect_model(&cat, "llama-3-1-70b", "llama-3-1-70b", LLMROOF_MATCH_ID);
    expect_model(&cat, "llama3.1-70b", "", LLMROOF_MATCH_NONE);
    expect_model(&cat, "Llama-3.1-70B-Instruct", "", LLMROOF_MATCH_NONE); /* both, less Instruct */
    expect_model(&cat, "Mine-Instruct", "llama-3-1-70b", LLMROOF_MATCH_NAME);
    /* only the shipped entry has the repository */
    expect_model(&cat, "meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b", LLMROOF_MATCH_NAME);
    const char *s[3];
    assert_true(catalog_suggest_models(&cat, "llama3.1-70b", s, 3) >= 2);
    assert_string_equal(s[0], "llama-3-1-70b"); /* both folded the same (0), ties by id */
    assert_string_equal(s[1], "llama-3.1-70b");
    char text[4096];
    gpu_text_with_id(text, sizeof text, "h100_sxm5_80gb");
    assert_int_equal(catalog_add_gpus_text(&cat, text, strlen(text), "mine.json", false, &err), 0);
    expect_gpu(&cat, "h100_sxm5_80gb", "h100_sxm5_80gb", LLMROOF_MATCH_ID);
    expect_gpu(&cat, "H100-SXM5-80GB", "h100-sxm5-80gb", LLMROOF_MATCH_ID);
    expect_gpu(&cat, "h100 sxm5 80gb", "", LLMROOF_MATCH_NONE);
    expect_gpu(&cat, "NVIDIA H100 SXM5 80GB", "", LLMROOF_MATCH_NONE); /* also the shipped display name */
    expect_gpu(&cat, "NVIDIA H100 80GB HBM3", "h100-sxm5-80gb", LLMROOF_MATCH_SPELLING);
    catalog_free(&cat);
}

/* No two shipped entries share a name once folded: each id, alias, display name and repository
 * finds its own entry (a new entry whose name folds as another's would make both unresolvable). */
static void every_shipped_name_finds_its_own_entry(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < cat.n_gpus; i++) {
        const struct llmroof_gpu *g = &cat.gpus[i];
        assert_ptr_equal(catalog_find_gpu(&cat, g->id), g);
        assert_ptr_equal(catalog_find_gpu(&cat, g->name), g);
        for (int a = 0; a < g->n_aliases; a++)
            assert_ptr_equal(catalog_find_gpu(&cat, g->aliases[a]), g);
    }
    for (size_t i = 0; i < cat.n_models; i++) {
        const struct llmroof_model *m = &cat.models[i];
        const struct llmroof_model *by_name = catalog_find_model(&cat, m->name);
        if (by_name != m)
            print_error("model %s: its name '%s' finds %s\n", m->id, m->name, by_name ? by_name->id : "nothing");
        assert_ptr_equal(by_name, m);
        if (m->hf_id[0]) {
            assert_ptr_equal(catalog_find_model(&cat, m->hf_id), m);
            assert_ptr_equal(catalog_find_model(&cat, strchr(m->hf_id, '/') + 1), m);
        }
    }
    catalog_free(&cat);
}

static const char *model_entry =
    "{\"models\": [{\n"
    "  \"id\": \"tiny\", \"name\": \"Tiny\", \"hidden_size\": 64, \"num_layers\": 2, \"num_heads\": %s,\n"
    "  \"num_kv_heads\": %s, \"intermediate_size\": 128, \"vocab_size\": 100, \"max_context\": 256,\n"
    "  \"tie_embeddings\": %s, \"mlp\": \"%s\", \"norm\": \"rmsnorm\", \"source\": \"test\"\n"
    "}]}\n";

static int load_model_variant(const char *heads, const char *kv, const char *tie, const char *mlp, struct llmroof_err *err)
{
    char text[2048];
    snprintf(text, sizeof text, model_entry, heads, kv, tie, mlp);
    struct llmroof_catalog cat;
    catalog_init(&cat);
    int rc = catalog_add_models_text(&cat, text, strlen(text), "m.json", false, err);
    if (rc == 0)
        assert_int_equal(cat.models[0].head_dim, 64 / atoi(heads)); /* default head_dim = hidden/heads */
    catalog_free(&cat);
    return rc;
}

static void model_validation_rejects_bad_heads_types_and_enums(void **state)
{
    struct llmroof_err err = { 0 };
    assert_int_equal(load_model_variant("8", "2", "false", "gated", &err), 0);
    assert_int_equal(load_model_variant("8", "3", "false", "gated", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'num_kv_heads' must divide num_heads"));
    assert_int_equal(load_model_variant("8", "16", "false", "gated", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "must not exceed num_heads"));
    assert_int_equal(load_model_variant("8.5", "1", "false", "gated", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "'tiny': field 'num_heads' must be an integer"));
    assert_int_equal(load_model_variant("8", "2", "\"no\"", "gated", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'tie_embeddings' must be true or false"));
    assert_int_equal(load_model_variant("8", "2", "false", "swiglu", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'mlp' must be \"gated\""));
    assert_int_equal(load_model_variant("-8", "2", "false", "gated", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'num_heads' must be an integer in [1, 65536]"));
    /* 1e400 overflows a double to inf: named as out of range, not as "not an integer" */
    assert_int_equal(load_model_variant("1e400", "2", "false", "gated", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'num_heads' must be an integer in [1, 65536] (got a number beyond the double range)"));
}

static int import(const char *file, const char *id, struct llmroof_model *m, struct llmroof_err *err)
{
    char path[512], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/hf/%s", LLMROOF_TEST_FIXTURES, file);
    int rc = catalog_read_file(path, 1 << 20, &text, &len, err);
    if (rc)
        return rc;
    rc = catalog_model_from_hf(text, len, file, id, m, err);
    free(text);
    return rc;
}

/* The imported entry must describe the same network as the curated catalog entry. */
static void assert_same_shape(const struct llmroof_model *a, const struct llmroof_model *b)
{
    assert_int_equal(a->hidden, b->hidden);
    assert_int_equal(a->layers, b->layers);
    assert_int_equal(a->heads, b->heads);
    assert_int_equal(a->kv_heads, b->kv_heads);
    assert_int_equal(a->head_dim, b->head_dim);
    assert_int_equal(a->intermediate, b->intermediate);
    assert_int_equal(a->vocab, b->vocab);
    assert_int_equal(a->max_context, b->max_context);
    assert_int_equal(a->tied_embeddings, b->tied_embeddings);
    assert_int_equal(a->mlp, b->mlp);
    assert_int_equal(a->norm, b->norm);
    assert_int_equal(a->qkv_bias, b->qkv_bias);
    assert_int_equal(a->mlp_bias, b->mlp_bias);
    assert_int_equal(a->parallel_attn, b->parallel_attn);
    assert_int_equal(a->moe_experts, b->moe_experts);
    assert_int_equal(a->moe_top_k, b->moe_top_k);
    assert_int_equal(a->moe_intermediate, b->moe_intermediate);
    assert_int_equal(a->moe_shared, b->moe_shared);
    assert_int_equal(arch_moe_layers(a), arch_moe_layers(b));
    assert_int_equal(a->kv_lora_rank, b->kv_lora_rank);
    assert_int_equal(a->window, b->window);
    assert_int_equal(arch_local_layers(a), arch_local_layers(b));
    assert_int_equal(a->window_chunked, b->window_chunked);
    assert_rel_close(arch_params(a).total, arch_params(b).total, 1e-12);
    assert_rel_close(arch_params(a).active, arch_params(b).active, 1e-12);
    assert_rel_close(arch_kv_elems_per_token(a), arch_kv_elems_per_token(b), 0);
}

static void import_hf_matches_curated_entries(void **state)
{
    static const struct { const char *file, *id; } cases[] = {
        { "llama-2-7b.json", "llama-2-7b" }, { "mixtral-8x7b.json", "mixtral-8x7b" },
        { "qwen2.5-1.5b.json", "qwen2.5-1.5b" }, { "falcon-40b.json", "falcon-40b" },
        { "gpt-j-6b.json", "gpt-j-6b" }, { "mistral-7b.json", "mistral-7b" },
        /* issue 16: the configs as published (tests/data/hf/), against the curated entries */
        { "deepseek-v3.json", "deepseek-v3" }, { "kimi-k2.json", "kimi-k2" },
        { "deepseek-v2-lite.json", "deepseek-v2-lite" }, { "qwen3-8b.json", "qwen3-8b" },
        { "qwen3-30b-a3b.json", "qwen3-30b-a3b" }, { "gemma-2-9b.json", "gemma-2-9b" },
        { "gemma-3-27b.json", "gemma-3-27b" }, { "gpt-oss-120b.json", "gpt-oss-120b" },
        { "llama-4-scout.json", "llama-4-scout" },
        /* Gemma 1 (model_type gemma) ties its head by GemmaConfig's default, the key absent */
        { "gemma-7b.json", "gemma-7b" },
        /* Nemotron-4 (model_type nemotron): LayerNorm1P, a LayerNorm with its bias, not RMSNorm */
        { "nemotron-4-340b.json", "nemotron-4-340b" },
    };
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct llmroof_model m;
        struct llmroof_err err = { 0 };
        if (import(cases[i].file, "imported", &m, &err)) {
            print_error("%s: %s\n", cases[i].file, err.msg);
            fail();
        }
        assert_string_equal(m.id, "imported");
        assert_same_shape(&m, model(&cat, cases[i].id));
        /* and the checkpoint the config states (DeepSeek-V3's and Kimi-K2's fp8, gpt-oss's MXFP4
         * experts), as test_layers checks the newer families' */
        if (m.ckpt_format[0]) {
            const struct llmroof_model *c = model(&cat, cases[i].id);
            assert_string_equal(c->ckpt_format, m.ckpt_format);
            assert_true(fabs(c->ckpt_bits - m.ckpt_bits) < 1e-3);
            assert_true(fabs(c->ckpt_expert_bits - m.ckpt_expert_bits) < 1e-3);
        }
    }
    catalog_free(&cat);
}

/* Qwen3-MoE's mlp_only_layers as a leading block is the catalog's moe_first_dense; other lists
 * are refused naming the entry that breaks the block (a review found [0] refused, the message
 * offering the leading block it then refused). */
static void import_hf_takes_qwen3_moe_leading_dense_layers(void **state)
{
    (void)state;
    char path[512], *text;
    size_t len;
    struct llmroof_err err = { 0 };
    snprintf(path, sizeof path, "%s/hf/qwen3-30b-a3b.json", LLMROOF_TEST_FIXTURES);
    assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, &err), 0);
    char *at = strstr(text, "\"mlp_only_layers\": []");
    assert_non_null(at);
    static const struct { const char *list; long first; const char *msg; } cases[] = {
        { "[]", 0, NULL }, { "[0]", 1, NULL }, { "[0, 1, 2]", 3, NULL },
        { "[1]", -1, "(entry 0)" }, { "[0, 2]", -1, "(entry 1)" }, { "3", -1, "must be a list" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[8192];
        snprintf(doc, sizeof doc, "%.*s\"mlp_only_layers\": %s%s", (int)(at - text), text, cases[i].list,
                 at + strlen("\"mlp_only_layers\": []"));
        struct llmroof_model m;
        memset(&err, 0, sizeof err);
        const int rc = catalog_model_from_hf(doc, strlen(doc), "q.json", "q", &m, &err);
        if (cases[i].msg) {
            assert_int_equal(rc, LLMROOF_EINPUT);
            assert_non_null(strstr(err.msg, "mlp_only_layers"));
            assert_non_null(strstr(err.msg, cases[i].msg));
        } else {
            assert_int_equal(rc, 0);
            assert_int_equal(m.moe_first_dense, cases[i].first);
        }
    }
    free(text);
}

static void import_hf_warns_about_what_it_does_not_model(void **state)
{
    char path[512], *text, warn[1024];
    size_t len;
    struct llmroof_model m;
    struct llmroof_err err = { 0 };
    snprintf(path, sizeof path, "%s/hf/deepseek-v3.json", LLMROOF_TEST_FIXTURES);
    assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, &err), 0);
    assert_int_equal(catalog_model_from_hf_warn(text, len, "ds.json", "ds", &m, warn, sizeof warn, &err), 0);
    free(text);
    /* its one MTP module is --spec mtp's drafter, as in the shipped entry */
    assert_non_null(strstr(warn, "1 multi-token-prediction module(s) ship with the model (for --spec mtp)"));
    assert_int_equal(m.mtp_layers, 1);
    /* fp8 e4m3 with one fp32 scale per 128 x 128 block: 8 + 32/16384 bits */
    assert_string_equal(m.ckpt_format, "fp8");
    assert_rel_close(m.ckpt_bits, 8.0 + 32.0 / 16384.0, 1e-15);
    snprintf(path, sizeof path, "%s/hf/gpt-oss-120b.json", LLMROOF_TEST_FIXTURES);
    assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, &err), 0);
    assert_int_equal(catalog_model_from_hf_warn(text, len, "oss.json", "oss", &m, warn, sizeof warn, &err), 0);
    free(text);
    assert_rel_close(m.ckpt_expert_bits, 4.25, 0);
    assert_int_equal(m.window_global_every, 2);
}

static void hf_cache_lookup_finds_the_snapshot_or_says_where_it_looked(void **state)
{
    char out[4096];
    struct llmroof_err err = { 0 };
    /* a fake cache: $HF_HOME/hub/models--Org--Model/snapshots/abc123/config.json */
    char root[] = "/tmp/llmroof-hfcache-XXXXXX";
    assert_non_null(mkdtemp(root));
    char dir[600], file[700], cmd[800];
    snprintf(dir, sizeof dir, "%s/hub/models--Org--Model/snapshots/abc123", root);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(file, sizeof file, "%s/config.json", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("{}", f);
    fclose(f);
    assert_int_equal(catalog_hf_resolve("Org/Model", NULL, root, NULL, out, sizeof out, &err), 0);
    assert_string_equal(out, file);
    /* refs/main names a snapshot without config.json (pruned): the snapshot that holds one is
     * taken, not "not in the HuggingFace cache (looked for snapshots/ * /config.json)" */
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/hub/models--Org--Model/refs' '%s/hub/models--Org--Model/snapshots/def456' && "
                              "echo def456 > '%s/hub/models--Org--Model/refs/main'", root, root, root);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(catalog_hf_resolve("Org/Model", NULL, root, NULL, out, sizeof out, &err), 0);
    assert_string_equal(out, file);
    /* $HF_HUB_CACHE names the hub itself and comes before $HF_HOME (huggingface_hub's order):
     * root/hub as the hub cache, a bogus HF_HOME beside it, finds the same file */
    char hub[600];
    snprintf(hub, sizeof hub, "%s/hub", root);
    assert_int_equal(catalog_hf_resolve("Org/Model", hub, "/nonexistent-hf-home", NULL, out, sizeof out, &err), 0);
    assert_string_equal(out, file);
    /* and an empty one is unset: HF_HOME is read */
    assert_int_equal(catalog_hf_resolve("Org/Model", "", root, NULL, out, sizeof out, &err), 0);
    assert_string_equal(out, file);
    /* not cached: the message names the directory looked in */
    assert_int_equal(catalog_hf_resolve("Org/Other", NULL, root, NULL, out, sizeof out, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "models--Org--Other/snapshots"));
    /* a plain path is itself */
    assert_int_equal(catalog_hf_resolve("config.json", NULL, root, NULL, out, sizeof out, &err), 0);
    assert_string_equal(out, "config.json");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* A repository id is one directory name in the cache, "models--ORG--NAME", of at most 255 bytes
 * (NAME_MAX): an id of 246 bytes (8 + 246 + 1 = 255, the slash written "--") is looked up whole;
 * one byte more is refused naming the id and the limits, where a 512-byte buffer had cut a long
 * id and looked, and said it looked, in a directory the id does not name. A $HF_HOME past the
 * 4096 bytes of a path is refused as well, not cut. */
static void hf_cache_lookup_refuses_ids_and_paths_it_would_cut(void **state)
{
    (void)state;
    char out[4096];
    struct llmroof_err err = { 0 };
    char root[] = "/tmp/llmroof-hfcache-XXXXXX";
    assert_non_null(mkdtemp(root));
    /* "Org/" and 242 'n': 246 bytes */
    char id[400];
    snprintf(id, sizeof id, "Org/%0242d", 0);
    for (char *p = id + 4; *p; p++)
        *p = 'n';
    assert_int_equal(strlen(id), 246);
    char dir[1024], file[1100], cmd[1200];
    snprintf(dir, sizeof dir, "%s/hub/models--Org--%s/snapshots/abc123", root, id + 4);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    assert_int_equal(system(cmd), 0);
    snprintf(file, sizeof file, "%s/config.json", dir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("{}", f);
    fclose(f);
    assert_int_equal(catalog_hf_resolve(id, NULL, root, NULL, out, sizeof out, &err), 0);
    assert_string_equal(out, file);
    /* 247 bytes: refused, naming the id (its first 64 bytes), its length and the limits */
    strcat(id, "n");
    memset(&err, 0, sizeof err);
    assert_int_equal(catalog_hf_resolve(id, NULL, root, NULL, out, sizeof out, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "repository id 'Org/nnnn"));
    assert_non_null(strstr(err.msg, "is 247 bytes long: the HuggingFace cache holds ids of at most 246 bytes"));
    /* 600 bytes (the old buffer's cut at 509): the same */
    char longid[700];
    snprintf(longid, sizeof longid, "Org/%0596d", 0);
    memset(&err, 0, sizeof err);
    assert_int_equal(catalog_hf_resolve(longid, NULL, root, NULL, out, sizeof out, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "is 600 bytes long"));
    assert_null(strstr(err.msg, "looked for"));
    /* $HF_HOME of 4093 bytes: with "/hub" past a path's 4096 bytes */
    char *home = malloc(4094);
    assert_non_null(home);
    memset(home, 'h', 4093);
    home[0] = '/';
    home[4093] = '\0';
    memset(&err, 0, sizeof err);
    assert_int_equal(catalog_hf_resolve("Org/Model", NULL, home, NULL, out, sizeof out, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "'Org/Model': its path in the HuggingFace cache under $HF_HOME is longer than "
                                    "the 4096 bytes"));
    free(home);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
}

/* A layer_types list in a family whose layers are all of one kind must list num_hidden_layers
 * entries of that kind: Llama's full, Mistral's (sliding_window 4096) sliding, Qwen3's full
 * (transformers writes it there). A 3-entry list on 32 layers had been taken silently by Llama
 * while Qwen3-Next refused the same list. */
static void import_hf_checks_a_uniform_layer_types_list(void **state)
{
    (void)state;
    static const struct { const char *file; long layers; const char *kind; } fams[] = {
        { "llama-2-7b.json", 32, "full_attention" },
        { "mistral-7b.json", 32, "sliding_attention" },
        { "qwen3-8b.json", 36, "full_attention" },
    };
    for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
        char path[512], *text;
        size_t len;
        struct llmroof_err err = { 0 };
        snprintf(path, sizeof path, "%s/hf/%s", LLMROOF_TEST_FIXTURES, fams[f].file);
        assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, &err), 0);
        const char *body = strchr(text, '{') + 1;
        static char doc[16384], list[4096];
        struct llmroof_model m;
        /* n entries of kind, then the config */
        long ns[] = { fams[f].layers, 3, fams[f].layers };
        for (int c = 0; c < 3; c++) {
            const char *kind = c == 2 ? (strcmp(fams[f].kind, "full_attention") ? "full_attention" : "sliding_attention")
                                      : fams[f].kind;
            size_t o = 0;
            for (long i = 0; i < ns[c]; i++)
                o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", i ? "," : "", kind);
            snprintf(doc, sizeof doc, "{\"layer_types\": [%s],%s", list, body);
            memset(&err, 0, sizeof err);
            int rc = catalog_model_from_hf(doc, strlen(doc), fams[f].file, "x", &m, &err);
            if (c == 0) {
                assert_int_equal(rc, LLMROOF_OK);
                assert_int_equal(m.layers, fams[f].layers);
            } else {
                assert_int_equal(rc, LLMROOF_EINPUT);
                assert_non_null(strstr(err.msg, c == 1 ? "field 'layer_types' must list num_hidden_layers"
                                                       : "field 'layer_types' entry 0 is not"));
            }
        }
        free(text);
    }
}

/* YaRN as Qwen's model cards enable it: rope_scaling {yarn, factor 4, original 32,768} on a config
 * of max_position_embeddings 32,768 serves 4 x 32,768 = 131,072 (vLLM's max_model_len); a config
 * that states its scaled context (gpt-oss: 131,072 over an original 4,096) keeps it, and other
 * rope types (linear: Gemma 3's factor 8) state what they serve. */
static void import_hf_extends_the_context_by_yarn(void **state)
{
    (void)state;
    char path[512], *text;
    size_t len;
    struct llmroof_err err = { 0 };
    snprintf(path, sizeof path, "%s/hf/qwen2.5-1.5b.json", LLMROOF_TEST_FIXTURES);
    assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, &err), 0);
    char *at = strstr(text, "\"max_position_embeddings\": 32768,");
    assert_non_null(at);
    static const struct { const char *field; long ctx; } cases[] = {
        { "", 32768 },
        { "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32768},", 131072 },
        { "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32768},", 131072 },
        { "\"rope_parameters\": {\"rope_type\": \"yarn\", \"factor\": 2, \"original_max_position_embeddings\": 32768},", 65536 },
        { "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 32.0, \"original_max_position_embeddings\": 4096},", 32768 },
        { "\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 8.0},", 32768 },
        { "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": \"4\", \"original_max_position_embeddings\": 32768},", 32768 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[8192];
        snprintf(doc, sizeof doc, "%.*s%s%s", (int)(at - text), text, cases[i].field, at);
        struct llmroof_model m;
        memset(&err, 0, sizeof err);
        assert_int_equal(catalog_model_from_hf(doc, strlen(doc), "q.json", "q", &m, &err), 0);
        assert_int_equal(m.max_context, cases[i].ctx);
    }
    free(text);
}

static void import_hf_rejects_unsupported_and_inconsistent_configs(void **state)
{
    struct llmroof_model m;
    struct llmroof_err err = { 0 };
    assert_int_equal(import("mamba.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "model_type' is \"mamba\"; supported"));
    /* cost-changing fields that cannot be modelled are refused, naming the field */
    assert_int_equal(import("bad-qwen3-window.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'use_sliding_window'"));
    assert_int_equal(import("bad-gpt-oss-layers.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'layer_types'"));
    assert_int_equal(import("bad-heads.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "must be divisible by num_kv_heads"));
    /* GLM-5 states qk_head_dim, the sum of the non-rotary and rotary widths (192 + 64 = 256): a
     * config whose sum disagrees has shapes llmroof would read wrong */
    assert_int_equal(import("glm-5.json", "x", &m, &err), LLMROOF_OK);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(import("bad-glm5-qk-head-dim.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'qk_head_dim' (192) is not qk_nope_head_dim + qk_rope_head_dim (256)"));
    /* GLM-5.2's indexer schedule shares indexers across layers, which llmroof does not model: refused,
     * not read as every layer's own indexer (it had been a warning) */
    assert_int_equal(import("bad-glm5-indexer-types.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'indexer_types'"));
    /* an MLA family without its latent had read as plain attention, its MLA widths dropped */
    assert_int_equal(import("bad-glm5-no-latent.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'kv_lora_rank' is missing: model_type glm_moe_dsa"));
    /* transformers' re-saved GLM-5 config lists its 3 dense layers then 75 MoE ones: the same model */
    struct llmroof_model g5, g5l;
    assert_int_equal(import("glm-5.json", "x", &g5, &err), LLMROOF_OK);
    assert_int_equal(import("glm-5-mlp-layer-types.json", "x", &g5l, &err), LLMROOF_OK);
    assert_int_equal(g5l.moe_first_dense, 3);
    assert_rel_close(arch_params(&g5l).total, arch_params(&g5).total, 0);
    assert_int_equal(import("bad-type.json", "x", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'hidden_size' must be a number"));
    assert_int_equal(import("llama-2-7b.json", "Bad Name", &m, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "--name 'Bad Name'"));
}

/* ------------------------------------------------------------------------ */
/* The one-pass reader (json_doc_parse) against the checked cJSON path        */
/* ------------------------------------------------------------------------ */

/* Same tree: types, names, strings, numbers bit for bit, cJSON's integer view, links. */
static void assert_same_tree(const cJSON *a, const cJSON *b)
{
    assert_int_equal(a->type, b->type);
    if (a->string || b->string) {
        assert_non_null(a->string);
        assert_non_null(b->string);
        assert_string_equal(a->string, b->string);
    }
    if (cJSON_IsString(a))
        assert_string_equal(a->valuestring, b->valuestring);
    assert_memory_equal(&a->valuedouble, &b->valuedouble, sizeof a->valuedouble);
    assert_int_equal(a->valueint, b->valueint);
    const cJSON *x = a->child, *y = b->child;
    for (; x && y; x = x->next, y = y->next)
        assert_same_tree(x, y);
    assert_null(x);
    assert_null(y);
    if (a->child) /* cJSON's first child points back at the last */
        assert_ptr_equal(a->child->prev->next, NULL);
}

/* json_doc_parse of text must take the fast path (fast) or cJSON's, and build cJSON's tree. */
static void assert_reads_as_cjson(const char *text, bool fast)
{
    struct llmroof_err e1 = { 0 }, e2 = { 0 };
    struct json_doc doc;
    size_t len = strlen(text);
    int rc = json_doc_parse(text, len, "t.json", &doc, &e1);
    cJSON *ref = json_parse(text, len, "t.json", &e2);
    if (rc)
        print_error("%s: %s\n", text, e1.msg);
    assert_int_equal(rc, 0);
    assert_non_null(ref);
    if (fast != (doc.blocks != NULL))
        print_error("%s: expected the %s path\n", text, fast ? "fast" : "cJSON");
    assert_true(fast == (doc.blocks != NULL));
    assert_true(fast == (doc.owned == NULL));
    assert_same_tree(doc.root, ref);
    cJSON_Delete(ref);
    json_doc_free(&doc);
    json_doc_free(&doc); /* an empty doc frees as a no-op */
}

/* A bad document: json_doc_parse fails with json_parse's message. */
static void assert_fails_as_cjson(const char *text, size_t len, const char *expect)
{
    struct llmroof_err e1 = { 0 }, e2 = { 0 };
    struct json_doc doc;
    assert_int_not_equal(json_doc_parse(text, len, "t.json", &doc, &e1), 0);
    assert_null(json_parse(text, len, "t.json", &e2));
    assert_string_equal(e1.msg, e2.msg);
    if (!strstr(e1.msg, expect))
        print_error("'%s' lacks '%s'\n", e1.msg, expect);
    assert_non_null(strstr(e1.msg, expect));
    assert_null(doc.root);
    assert_null(doc.blocks);
}

static void fast_reader_builds_cjsons_tree_for_the_shipped_catalog(void **state)
{
    static const char *const files[] = { "gpus.json", "models.json", "engines.json", "validation-map.json",
                                         "uncertainty.json" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[512], *text;
        size_t len;
        struct llmroof_err err = { 0 };
        snprintf(path, sizeof path, "%s/%s", LLMROOF_TEST_DATA_DIR, files[i]);
        assert_int_equal(catalog_read_file(path, (size_t)1 << 26, &text, &len, &err), 0);
        assert_reads_as_cjson(text, true);
        free(text);
    }
}

static void fast_reader_reads_numbers_as_strtod_does(void **state)
{
    /* exact integers and short decimals take the multiply/divide path (Clinger); the rest, as
     * 2^53 + 1, 24 digits, 1e23, subnormals and overflow to inf, go to strtod: all bit-equal */
    assert_reads_as_cjson("[0, -0, 1, -1, 1.5, 0.1, 0.3, 0.7, 2.675, 0.85, 6.6e-06, 2e-05, 1e22, 1e23, 1E+2, 1e-22, 1e-23,"
                          " 12345.678e-3, 0.000001, 17179869184, 989500000000000, 6700000000.0,"
                          " 9007199254740992, 9007199254740993, 123456789012345678901234,"
                          " 3.14159265358979323846, 2.2250738585072014e-308, 4.9e-324, 1.7976931348623157e308,"
                          " 1e400, -1e400, 1e-400, 2147483647, 2147483648, -2147483648, -2147483649, 1e99999]",
                          true);
    /* 64 characters: past the 63 the fast reader takes, so cJSON reads it */
    assert_reads_as_cjson("[1000000000000000000000000000000000000000000000000000000000000000]", false);
    /* leading zeros, a bare trailing point, an empty exponent: cJSON (strtod) would read them as
     * 1, -7, 1 and 1; the strict reader hands them over and the checked path refuses them
     * (RFC 8259's number grammar) */
    assert_fails_as_cjson("[01, -007]", 10, "1:2: not valid JSON: a number with a leading zero");
    assert_fails_as_cjson("[-007]", 6, "1:2: not valid JSON: a number with a leading zero");
    assert_fails_as_cjson("[1.]", 4, "1:2: not valid JSON: a number without a digit after '.'");
    assert_fails_as_cjson("[1e]", 4, "1:2: not valid JSON: a number without a digit in its exponent");
    assert_reads_as_cjson("[0, -0, 0.5, -0e0, 10, 1E+2]", true);
}

static void fast_reader_reads_strings_as_cjson_does(void **state)
{
    assert_reads_as_cjson("{\"a\": \"\", \"b\": \"x\", \"c\": \"0123456\", \"d\": \"01234567\", \"e\": \"012345678\","
                          " \"esc\": \"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t-long enough for the 8-byte steps\\\"\","
                          " \"utf8\": \"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9d\x84\x9e long tail ......\","
                          " \"\": true, \"n\": null, \"f\": false, \"o\": {}, \"l\": [], \"ol\": [{}, [[]], {\"x\": [1]}]}",
                          true);
    /* \u escapes and raw control characters: cJSON's own reading */
    assert_reads_as_cjson("{\"a\": \"\\u00e9\\ud834\\udd1e\"}", false);
    /* an escape cJSON would turn into U+0000, cutting the string short, and U+0000 itself */
    assert_fails_as_cjson("{\"a\": \"x\\u12G4\"}", 16, "1:9: not valid JSON: a \\u escape needs four hex digits");
    assert_fails_as_cjson("{\"a\": \"x\\u0000\"}", 16, "1:9: not valid JSON: \\u0000 (a NUL character)");
    assert_reads_as_cjson("{\"a\": \"tab\there\"}", false);
    /* a byte-order mark and cJSON's wider whitespace */
    assert_reads_as_cjson("\xef\xbb\xbf{\"a\": 1}", false);
    assert_reads_as_cjson("{\"a\":\v1}", false);
}

static void fast_reader_hands_every_error_to_the_checked_path(void **state)
{
    char deep[2100];
    for (int i = 0; i < 1005; i++)
        deep[i] = '[';
    deep[1005] = '\0';
    assert_fails_as_cjson(deep, 1005, "nested deeper than 1000 levels");
    /* 100 levels: past the fast reader's 64, within cJSON's 1000 */
    for (int i = 0; i < 100; i++) {
        deep[i] = '[';
        deep[100 + i] = ']';
    }
    deep[200] = '\0';
    assert_reads_as_cjson(deep, false);
    assert_fails_as_cjson("", 0, "empty file");
    assert_fails_as_cjson(" \n ", 3, "empty file");
    assert_fails_as_cjson("{\"a\": \"\xc3\x28\"}", 10, "not valid UTF-8");
    assert_fails_as_cjson("{\"a\": \"\xed\xa0\x80\"}", 11, "not valid UTF-8"); /* a surrogate */
    assert_fails_as_cjson("{\"a\": 1,}", 9, "malformed JSON");
    assert_fails_as_cjson("[1, 2] x", 8, "unexpected text after the JSON document");
    assert_fails_as_cjson("[1 2]", 5, "malformed JSON");
    assert_fails_as_cjson("[tru]", 5, "malformed JSON");
    assert_fails_as_cjson("[\"a\\x\"]", 7, "malformed JSON");
    assert_fails_as_cjson("{\"a\": 1, \"b\": {\"c\": 1, \"c\": 2}, \"a\": 3}", 39, "1:24: duplicate key 'c'");
    /* NUL inside a string */
    assert_fails_as_cjson("[\"a\0b\"]", 7, "a NUL byte");
    /* a repeated key among more than 64 (compared by name past the hashed first 64) */
    char big[2048];
    size_t n = 0;
    big[n++] = '{';
    for (int i = 0; i < 70; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "\"k%d\": %d, ", i, i);
    n += (size_t)snprintf(big + n, sizeof big - n, "\"k66\": 0}");
    assert_fails_as_cjson(big, n, "duplicate key 'k66'");
    /* and a repeat within the first 64 whose hash filter bit is shared */
    n = (size_t)snprintf(big, sizeof big, "{\"ab\": 1, \"ba\": 2, \"abc\": 3, \"ab\": 4}");
    assert_fails_as_cjson(big, n, "duplicate key 'ab'");
}

/* ------------------------------------------------------------------------ */
/* Loading only the picked entries (catalog_add_*_file_pick)                  */
/* ------------------------------------------------------------------------ */

/* Writes text to a fresh temporary file; path receives its name. */
static void write_tmp(char *path, size_t cap, const char *text)
{
    snprintf(path, cap, "/tmp/llmroof-pick-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

#define PICK_MODEL(ID, EXTRA)                                                                                     \
    "{\"id\": \"" ID "\", \"name\": \"n\", \"hidden_size\": 4096, \"num_layers\": 32, \"num_heads\": 32,"        \
    " \"num_kv_heads\": 8, \"intermediate_size\": 14336, \"vocab_size\": 128256, \"max_context\": 8192,"          \
    " \"tie_embeddings\": false, \"mlp\": \"gated\", \"norm\": \"rmsnorm\", \"source\": \"test\"" EXTRA "}"

static void picking_builds_one_entry_and_still_checks_every_one(void **state)
{
    struct llmroof_catalog all, one;
    struct llmroof_err err = { 0 };
    catalog_init(&all);
    catalog_init(&one);
    /* the shipped catalog: the picked entry is the whole load's entry, byte for byte */
    assert_int_equal(catalog_add_models_file(&all, LLMROOF_TEST_DATA_DIR "/models.json", false, &err), 0);
    assert_int_equal(catalog_add_gpus_file(&all, LLMROOF_TEST_DATA_DIR "/gpus.json", false, &err), 0);
    assert_int_equal(catalog_add_engines_file(&all, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    assert_int_equal(catalog_add_models_file_pick(&one, LLMROOF_TEST_DATA_DIR "/models.json", false, "Llama-2-7B", &err), 0);
    assert_int_equal(catalog_add_gpus_file_pick(&one, LLMROOF_TEST_DATA_DIR "/gpus.json", false, "a100", &err), 0); /* an alias */
    assert_int_equal(catalog_add_engines_file_pick(&one, LLMROOF_TEST_DATA_DIR "/engines.json", false, "", &err), 0);
    assert_int_equal(one.n_models, 1);
    assert_int_equal(one.n_gpus, 1);
    assert_int_equal(one.n_engines, 0); /* "" picks none */
    assert_memory_equal(&one.models[0], model(&all, "llama-2-7b"), sizeof one.models[0]);
    assert_memory_equal(&one.gpus[0], gpu(&all, "a100"), sizeof one.gpus[0]);
    assert_string_equal(one.gpus[0].id, "a100-sxm4-40gb"); /* data/gpus.json: "a100" is its alias */
    catalog_free(&one);
    catalog_free(&all);

    /* an entry nobody picked is still checked, with the whole load's message */
    char path[64], msg[sizeof err.msg];
    write_tmp(path, sizeof path,
              "{\"models\": [" PICK_MODEL("good", "") ",\n" PICK_MODEL("bad", ", \"learned_pos\": -1") "]}");
    assert_int_not_equal(catalog_add_models_file(&all, path, false, &err), 0);
    snprintf(msg, sizeof msg, "%s", err.msg);
    assert_non_null(strstr(msg, "'bad'"));
    assert_int_not_equal(catalog_add_models_file_pick(&one, path, false, "good", &err), 0);
    assert_string_equal(err.msg, msg);
    assert_int_equal(one.n_models, 0); /* nothing added on error */
    unlink(path);

    /* a repeated id among entries nobody picked */
    write_tmp(path, sizeof path,
              "{\"models\": [" PICK_MODEL("good", "") ", " PICK_MODEL("twice", "") ", " PICK_MODEL("twice", "") "]}");
    assert_int_not_equal(catalog_add_models_file_pick(&one, path, false, "good", &err), 0);
    assert_non_null(strstr(err.msg, "'twice': field 'id' duplicates another entry in this file"));
    unlink(path);

    /* a malformed tail after the picked entry */
    write_tmp(path, sizeof path, "{\"models\": [" PICK_MODEL("good", "") ", {\"id\": ]}");
    assert_int_not_equal(catalog_add_models_file_pick(&one, path, false, "good", &err), 0);
    assert_non_null(strstr(err.msg, "malformed JSON"));
    assert_int_equal(one.n_models, 0);
    unlink(path);

    /* a document the fast reader leaves to cJSON (a \u escape): picked all the same */
    write_tmp(path, sizeof path,
              "{\"models\": [" PICK_MODEL("good", ", \"hf_id\": \"a\\u002fb\"") ", " PICK_MODEL("other", "") "]}");
    assert_int_equal(catalog_add_models_file_pick(&one, path, false, "good", &err), 0);
    assert_int_equal(one.n_models, 1);
    assert_string_equal(one.models[0].hf_id, "a/b");
    /* and replacing: the same id again replaces it, another id is added beside it */
    assert_int_equal(catalog_add_models_file_pick(&one, path, true, "GOOD", &err), 0);
    assert_int_equal(catalog_add_models_file_pick(&one, path, false, "good", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "duplicates an entry already in the catalog"));
    assert_int_equal(catalog_add_models_file_pick(&one, path, true, "other", &err), 0);
    assert_int_equal(one.n_models, 2);
    unlink(path);
    catalog_free(&one);

    /* GPUs: an alias clash between two entries nobody picked */
    struct llmroof_catalog g;
    catalog_init(&g);
    write_tmp(path, sizeof path,
              "{\"gpus\": [{\"id\": \"x1\", \"name\": \"X\", \"aliases\": [\"xa\"], \"memory_bytes\": 1e10,"
              " \"memory_bandwidth_Bps\": 1e12, \"peak_flops\": {\"fp16\": 1e14},"
              " \"interconnect\": {\"kind\": \"pcie\", \"bandwidth_Bps\": 1e10, \"latency_s\": 1e-5, \"hop_latency_s\": 1e-6},"
              " \"efficiency\": {\"compute\": 0.5, \"memory\": 0.5, \"comm\": 0.5}, \"step_overhead_s\": 0,"
              " \"gpus_per_node\": 8, \"source\": \"t\"},"
              " {\"id\": \"x2\", \"name\": \"X\", \"aliases\": [\"XA\"], \"memory_bytes\": 1e10,"
              " \"memory_bandwidth_Bps\": 1e12, \"peak_flops\": {\"fp16\": 1e14},"
              " \"interconnect\": {\"kind\": \"pcie\", \"bandwidth_Bps\": 1e10, \"latency_s\": 1e-5, \"hop_latency_s\": 1e-6},"
              " \"efficiency\": {\"compute\": 0.5, \"memory\": 0.5, \"comm\": 0.5}, \"step_overhead_s\": 0,"
              " \"gpus_per_node\": 8, \"source\": \"t\"}]}");
    assert_int_not_equal(catalog_add_gpus_file_pick(&g, path, false, "a100", &err), 0);
    assert_non_null(strstr(err.msg, "'XA' is already used by 'x1'"));
    assert_int_equal(g.n_gpus, 0);
    unlink(path);
    catalog_free(&g);
}

/* checkpoint.excluded: operator names, parsed to bits; anything else names the field */
/* A nested object's member is named by its path in messages ("moe.experts", not "experts"),
 * whichever reader (string, integer, flag) finds it wrong. */
static void nested_fields_are_named_by_their_path(void **state)
{
    (void)state;
    static const char tmpl[] =
        "{\"models\": [{\"id\": \"t\", \"name\": \"t\", \"hf_id\": \"t\", \"hidden_size\": 64, \"num_layers\": 2,\n"
        " \"num_heads\": 4, \"num_kv_heads\": 4, \"head_dim\": 16, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
        " \"max_context\": 64, \"tie_embeddings\": false, \"mlp\": \"gated\", \"norm\": \"rmsnorm\", \"qkv_bias\": false,\n"
        " \"o_bias\": false, \"mlp_bias\": false, \"parallel_attn\": false, \"source\": \"test\", %s}]}\n";
    static const struct {
        const char *member, *msg;
    } cases[] = {
        { "\"moe\": {\"experts_per_token\": 2, \"expert_intermediate_size\": 64}", "field 'moe.experts' is missing" },
        { "\"moe\": {\"experts\": 8, \"experts_per_token\": 2, \"expert_intermediate_size\": 64, \"layer_step\": 0}",
          "field 'moe.layer_step' must be an integer" },
        /* group-limited routing: equal groups, enough experts in the chosen ones for the top-k */
        { "\"moe\": {\"experts\": 8, \"experts_per_token\": 2, \"expert_intermediate_size\": 64, \"groups\": 3}",
          "field 'moe.groups' must divide moe.experts (8), not 3" },
        { "\"moe\": {\"experts\": 8, \"experts_per_token\": 2, \"expert_intermediate_size\": 64, \"groups\": 4, "
          "\"groups_per_token\": 5}",
          "field 'moe.groups_per_token' must not exceed moe.groups (4), not 5" },
        { "\"moe\": {\"experts\": 8, \"experts_per_token\": 4, \"expert_intermediate_size\": 64, \"groups\": 4, "
          "\"groups_per_token\": 1}",
          "field 'moe.groups_per_token' must hold moe.experts_per_token (4): 1 groups of 2 experts hold 2" },
        { "\"moe\": {\"experts\": 8, \"experts_per_token\": 2, \"expert_intermediate_size\": 64, "
          "\"groups_per_token\": 1}",
          "field 'moe.groups_per_token' needs moe.groups" },
        { "\"sliding_window\": {\"size\": 32, \"chunked\": 1}", "field 'sliding_window.chunked' must be true or false" },
        { "\"checkpoint\": {\"format\": \"\", \"bits\": 4}", "field 'checkpoint.format' must not be empty" },
        { "\"layer_pattern\": {\"mixers\": \"AA\"}", "field 'layer_pattern.ffns' is missing" },
        { "\"linear\": {\"kind\": \"gdn\", \"heads\": 2, \"key_heads\": 2, \"key_dim\": 8}",
          "field 'linear.value_dim' is missing" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[2048];
        struct llmroof_catalog cat;
        struct llmroof_err err = { 0 };
        snprintf(text, sizeof text, tmpl, cases[i].member);
        catalog_init(&cat);
        assert_int_equal(catalog_add_models_text(&cat, text, strlen(text), "t.json", false, &err), LLMROOF_EINPUT);
        if (!strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
        catalog_free(&cat);
    }
}

static void checkpoint_excluded_takes_operator_names(void **state)
{
    (void)state;
    static const char tmpl[] =
        "{\"models\": [{\"id\": \"t\", \"name\": \"t\", \"hf_id\": \"t\", \"hidden_size\": 64, \"num_layers\": 2,\n"
        " \"num_heads\": 4, \"num_kv_heads\": 4, \"head_dim\": 16, \"intermediate_size\": 128, \"vocab_size\": 100,\n"
        " \"max_context\": 64, \"tie_embeddings\": false, \"mlp\": \"gated\", \"norm\": \"rmsnorm\", \"qkv_bias\": false,\n"
        " \"o_bias\": false, \"mlp_bias\": false, \"parallel_attn\": false, \"source\": \"test\",\n"
        " \"checkpoint\": {\"format\": \"nvfp4\", \"bits\": 4.5, \"excluded\": %s}}]}\n";
    char text[2048];
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    snprintf(text, sizeof text, tmpl, "[\"o_proj\", \"lm_head\"]");
    catalog_init(&cat);
    assert_int_equal(catalog_add_models_text(&cat, text, strlen(text), "t.json", false, &err), 0);
    assert_true(cat.models[0].ckpt_per_op);
    /* o_proj bit 2 (4) | lm_head bit 5 (32) = 36 */
    assert_int_equal(cat.models[0].ckpt_excluded, 36u);
    catalog_free(&cat);
    snprintf(text, sizeof text, tmpl, "[\"attention\"]");
    catalog_init(&cat);
    assert_int_equal(catalog_add_models_text(&cat, text, strlen(text), "t.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'checkpoint.excluded' entries must be qkv_proj, mla_kv_up"));
    catalog_free(&cat);
    snprintf(text, sizeof text, tmpl, "\"o_proj\"");
    catalog_init(&cat);
    assert_int_equal(catalog_add_models_text(&cat, text, strlen(text), "t.json", false, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "'checkpoint.excluded' must be an array"));
    catalog_free(&cat);
}

/* --spec-draft-config's reader (catalog_draft_head_from_hf): a draft head's config.json against
 * its target. SpecForge's configs/deepseek-v3-671b-eagle3.json states no head_dim: 7,168 / 56 = 128;
 * configs/kimi-k2-eagle3.json states 64 / 64 heads of 128 for Kimi-K2 (whose 163,840-token
 * vocabulary DeepSeek-V3's head, of the same hidden size, does not fit: a head drafts for its
 * target's tokenizer); an EAGLE-1 head (LlamaForCausalLM, no draft_vocab_size) is no EAGLE-3 one
 * and drafts over vocab_size. */
static void a_draft_head_config_reads_its_layer_shape(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *v3 = model(&cat, "deepseek-v3");
    struct llmroof_draft_head d;
    struct llmroof_err err = { 0 };
    const char *ds = "{\"architectures\": [\"LlamaForCausalLMEagle3\"], \"hidden_size\": 7168, \"intermediate_size\": "
                     "40960, \"num_attention_heads\": 56, \"num_key_value_heads\": 8, \"num_hidden_layers\": 1, "
                     "\"vocab_size\": 129280, \"draft_vocab_size\": 32000}";
    assert_int_equal(catalog_draft_head_from_hf(ds, strlen(ds), "ds.json", v3, &d, &err), 0);
    assert_int_equal(d.heads, 56);
    assert_int_equal(d.kv_heads, 8);
    assert_int_equal(d.head_dim, 128);
    assert_int_equal(d.intermediate, 40960);
    assert_int_equal(d.vocab, 32000);
    assert_true(d.eagle3);
    assert_false(d.attn_bias);
    assert_true(d.vocab_drafted); /* from draft_vocab_size: the field a conflicting --spec-draft-vocab names */
    assert_false(d.dtype_set);    /* no torch_dtype: the head's 16 bits are ops_head_dtypes' */
    /* torch_dtype names the head's 16 bits (SpecForge's DeepSeek-V3 head: "float16"), or dtype as
     * transformers 4.56 writes it; a float32 config is served at 16 bits and names nothing */
    static const struct { const char *field; bool set; enum llmroof_dtype dt; } dts[] = {
        { "\"torch_dtype\": \"float16\"", true, LLMROOF_FP16 },
        { "\"torch_dtype\": \"bfloat16\"", true, LLMROOF_BF16 },
        { "\"dtype\": \"bfloat16\"", true, LLMROOF_BF16 },
        { "\"torch_dtype\": \"float32\"", false, LLMROOF_BF16 },
        { "\"torch_dtype\": null", false, LLMROOF_BF16 },
    };
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, %s}",
                 dts[i].field);
        assert_int_equal(catalog_draft_head_from_hf(doc, strlen(doc), "t.json", v3, &d, &err), 0);
        assert_int_equal(d.dtype_set, dts[i].set);
        if (dts[i].set)
            assert_int_equal(d.dtype, dts[i].dt);
    }
    const char *kimi = "{\"architectures\": [\"LlamaForCausalLMEagle3\"], \"attention_bias\": false, \"head_dim\": 128, "
                       "\"hidden_size\": 7168, \"intermediate_size\": 18432, \"num_attention_heads\": 64, "
                       "\"num_hidden_layers\": 1, \"num_key_value_heads\": 64, \"rope_scaling\": null, "
                       "\"vocab_size\": 163840, \"draft_vocab_size\": 32000}";
    assert_int_equal(catalog_draft_head_from_hf(kimi, strlen(kimi), "kimi.json", model(&cat, "kimi-k2"), &d, &err), 0);
    assert_int_equal(d.heads, 64);
    assert_int_equal(d.kv_heads, 64);
    assert_int_equal(d.head_dim, 128);
    /* no num_key_value_heads: as many as the query heads (LlamaConfig's default); an EAGLE-1 head */
    const char *e1 = "{\"architectures\": [\"LlamaForCausalLM\"], \"hidden_size\": 7168, \"intermediate_size\": 18432, "
                     "\"num_attention_heads\": 32, \"vocab_size\": 129280}";
    assert_int_equal(catalog_draft_head_from_hf(e1, strlen(e1), "e1.json", v3, &d, &err), 0);
    assert_int_equal(d.kv_heads, 32);
    assert_int_equal(d.head_dim, 224); /* 7,168 / 32 */
    assert_int_equal(d.vocab, 129280);
    assert_false(d.eagle3);
    assert_false(d.vocab_drafted); /* vocab_size's */
    /* each bad input names the file and the field */
    static const struct { const char *doc, *msg; } bad[] = {
        { "{\"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_attention_heads\": 32}",
          "b.json: field 'hidden_size' is 4096, but deepseek-v3's hidden size is 7168" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, \"num_key_value_heads\": 12}",
          "b.json: field 'num_key_value_heads' (12) must divide 'num_attention_heads' (56)" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": -56}",
          "b.json: field 'num_attention_heads' must be an integer in [1, 65536]" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 48}",
          "b.json: field 'head_dim' is absent and 'num_attention_heads' (48) does not divide 'hidden_size' (7168)" },
        { "{\"hidden_size\": 7168, \"num_attention_heads\": 56}", "b.json: field 'intermediate_size' is missing" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 18432, \"num_attention_heads\": 128, \"kv_lora_rank\": 512}",
          "b.json: field 'kv_lora_rank': a draft head with multi-head latent attention is not modelled" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, \"num_hidden_layers\": 2}",
          "b.json: field 'num_hidden_layers' must be 1" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, \"draft_vocab_size\": 200000}",
          "b.json: field 'draft_vocab_size' (200000) is more than deepseek-v3's vocabulary of 129280" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, \"attention_bias\": 1}",
          "b.json: field 'attention_bias' must be true or false" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, \"torch_dtype\": \"float8_e4m3fn\"}",
          "b.json: field 'torch_dtype' must be \"float16\", \"bfloat16\" or \"float32\"" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 40960, \"num_attention_heads\": 56, \"dtype\": 16}",
          "b.json: field 'dtype' must be \"float16\", \"bfloat16\" or \"float32\"" },
        { "{\"hidden_size\": 7168, \"intermediate_size\": 18432, \"num_attention_heads\": 64, \"vocab_size\": 163840}",
          "b.json: field 'vocab_size' is 163840, but deepseek-v3's vocabulary is 129280" },
        { "{\"hidden_size\": 7168,", "b.json:1:" },
        { "[1, 2]", "b.json: expected a JSON object" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = (struct llmroof_err){ 0 };
        assert_int_equal(catalog_draft_head_from_hf(bad[i].doc, strlen(bad[i].doc), "b.json", v3, &d, &err),
                         LLMROOF_EINPUT);
        if (!strstr(err.msg, bad[i].msg))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].msg);
        assert_int_equal(d.heads, 0); /* nothing half-read */
    }
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_draft_head_config_reads_its_layer_shape),
        cmocka_unit_test(shipped_catalog_has_exactly_the_listed_ids),
        cmocka_unit_test(checkpoint_excluded_takes_operator_names),
        cmocka_unit_test(nested_fields_are_named_by_their_path),
        cmocka_unit_test(fast_reader_builds_cjsons_tree_for_the_shipped_catalog),
        cmocka_unit_test(fast_reader_reads_numbers_as_strtod_does),
        cmocka_unit_test(fast_reader_reads_strings_as_cjson_does),
        cmocka_unit_test(fast_reader_hands_every_error_to_the_checked_path),
        cmocka_unit_test(picking_builds_one_entry_and_still_checks_every_one),
        cmocka_unit_test(blackwell_has_fp4_and_nvl72_one_domain),
        cmocka_unit_test(pcie_cards_share_the_pcie_hop_latency),
        cmocka_unit_test(published_benchmark_cards_by_their_datasheets),
        cmocka_unit_test(dense_peaks_come_from_the_reference_sheet),
        cmocka_unit_test(lookup_accepts_aliases_in_any_case),
        cmocka_unit_test(engines_answer_to_the_versions_they_cover),
        cmocka_unit_test(suggestions_name_the_nearest_ids),
        cmocka_unit_test(suggestions_match_what_a_person_means),
        cmocka_unit_test(valid_gpu_template_loads),
        cmocka_unit_test(gpu_validation_names_file_line_entry_and_field),
        cmocka_unit_test(malformed_json_reports_line_and_column),
        cmocka_unit_test(tgi_profile_runs_whole_prefills_first_in_4096_tokens),
        cmocka_unit_test(written_catalog_entries_load_back_unchanged),
        cmocka_unit_test(uncertainty_file_names_its_method),
        cmocka_unit_test(duplicate_ids_and_aliases_are_rejected),
        cmocka_unit_test(user_file_replaces_same_id),
        cmocka_unit_test(lookup_resolves_model_names_people_type_or_copy),
        cmocka_unit_test(lookup_never_drops_a_quantization_or_version_word),
        cmocka_unit_test(lookup_resolves_gpu_names_of_nvidia_smi_and_rocm_smi),
        cmocka_unit_test(lookup_resolves_nothing_that_fits_two_entries),
        cmocka_unit_test(every_shipped_name_finds_its_own_entry),
        cmocka_unit_test(model_validation_rejects_bad_heads_types_and_enums),
        cmocka_unit_test(import_hf_matches_curated_entries),
        cmocka_unit_test(import_hf_extends_the_context_by_yarn),
        cmocka_unit_test(import_hf_checks_a_uniform_layer_types_list),
        cmocka_unit_test(import_hf_rejects_unsupported_and_inconsistent_configs),
        cmocka_unit_test(import_hf_takes_qwen3_moe_leading_dense_layers),
        cmocka_unit_test(import_hf_warns_about_what_it_does_not_model),
        cmocka_unit_test(hf_cache_lookup_finds_the_snapshot_or_says_where_it_looked),
        cmocka_unit_test(hf_cache_lookup_refuses_ids_and_paths_it_would_cut),
        cmocka_unit_test(engine_scheduler_fields_are_bounded),
        cmocka_unit_test(engine_flags_of_one_version_are_the_profiles),
        cmocka_unit_test(engine_memory_tiers_and_prefix_cache_are_checked),
        cmocka_unit_test(engine_memory_fraction_and_serving_limits_are_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
