/* test_layers.c - layer kinds (linear attention / SSM, sparse attention) and the field-table
 * importer, on real HuggingFace config.json files.
 *
 * Fixtures (tests/data/hf/): the config.json of the Hub repository named beside each in `cards`
 * below, transcribed and checked field by field against public copies of the Hub files;
 * tests/data/hf/README.md says which copy each was checked against and what was corrected.
 * Nemotron-H keeps its bare Infinity (time_step_limit), as the Hub serves it. Published
 * parameter counts are those of each model card. */
#include "helpers.h"

#include "model/arch.h"
#include "model/ckpt.h"
#include "model/layers.h"
#include "model/memory.h"
#include "model/ops.h"

static int import_warn(const char *file, struct llmroof_model *m, char *warn, size_t cap, struct llmroof_err *err)
{
    char path[512], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/hf/%s", LLMROOF_TEST_FIXTURES, file);
    int rc = catalog_read_file(path, 1 << 20, &text, &len, err);
    if (rc)
        return rc;
    rc = catalog_model_from_hf_warn(text, len, file, "x", m, warn, cap, err);
    free(text);
    return rc;
}

static void import_ok(const char *file, struct llmroof_model *m)
{
    struct llmroof_err err = { 0 };
    char warn[2048];
    if (import_warn(file, m, warn, sizeof warn, &err) != LLMROOF_OK) {
        print_error("%s: %s\n", file, err.msg);
        fail();
    }
}

/* ------------------------------------------------------------------------ */

static void twenty_one_families_import_with_their_model_card_counts(void **state)
{
    (void)state;
    /* total (and where the card states it, active) parameters in billions; tol the relative
     * tolerance with the reason when it is not 1% */
    static const struct {
        const char *file, *repo;
        double total, active, tol;
    } cards[] = {
        /* Qwen/Qwen3-Next-80B-A3B-Instruct: "80B parameters in total and 3B activated" (active
         * not checked: the card's 3B is the name's round figure, the shapes give 3.9B with the
         * embedding and LM head) */
        { "qwen3-next-80b-a3b.json", "Qwen/Qwen3-Next-80B-A3B-Instruct", 80, 0, 0.01 },
        /* Qwen/Qwen3.5-397B-A17B: "397B in total, 17B activated" (active not checked: the shapes
         * give 17.35B with the embedding and LM head against the name's round 17B) */
        { "qwen3.5-397b-a17b.json", "Qwen/Qwen3.5-397B-A17B", 397, 0, 0.01 },
        /* Qwen/Qwen3.5-122B-A10B: 122,111,526,912 from the shapes (the count a public training
         * proxy of the model states) against the card's 122B */
        { "qwen3.5-122b-a10b.json", "Qwen/Qwen3.5-122B-A10B", 122, 0, 0.01 },
        /* nvidia/NVIDIA-Nemotron-Nano-9B-v2: 8.89B (the Hub's safetensors count) */
        { "nemotron-nano-9b-v2.json", "nvidia/NVIDIA-Nemotron-Nano-9B-v2", 8.89, 0, 0.01 },
        /* deepseek-ai/DeepSeek-V3.2-Exp: 685B with the 14B MTP module, 671B main model */
        { "deepseek-v3.2-exp.json", "deepseek-ai/DeepSeek-V3.2-Exp", 671, 0, 0.01 },
        /* zai-org/GLM-5: "744B parameters (40B active)" (README); the shapes give 743.9B without the
         * MTP layer (active not checked: 40B is the round figure, the shapes give 41.8B with the
         * embedding and LM head) */
        { "glm-5.json", "zai-org/GLM-5", 744, 0, 0.01 },
        /* zai-org/GLM-4.5: 355B total, 32B active (355B holds the MTP layer: 1%) */
        { "glm-4.5.json", "zai-org/GLM-4.5", 355, 0, 0.01 },
        /* MiniMaxAI/MiniMax-M2: 230B total, 10B active */
        { "minimax-m2.json", "MiniMaxAI/MiniMax-M2", 230, 0, 0.01 },
        /* allenai/OLMo-2-1124-7B: 7.30B */
        { "olmo-2-7b.json", "allenai/OLMo-2-1124-7B", 7.30, 0, 0.01 },
        /* microsoft/phi-4: 14.7B */
        { "phi-4.json", "microsoft/phi-4", 14.7, 0, 0.01 },
        /* microsoft/Phi-3.5-MoE-instruct: 41.9B total, 6.6B active */
        { "phi-3.5-moe.json", "microsoft/Phi-3.5-MoE-instruct", 41.9, 6.6, 0.01 },
        /* CohereLabs/c4ai-command-a-03-2025: 111B */
        { "command-a.json", "CohereLabs/c4ai-command-a-03-2025", 111, 0, 0.01 },
        /* baidu/ERNIE-4.5-21B-A3B-PT: "21B total, 3B activated"; the shapes give 21.8B (the name
         * rounds down; the Hub's safetensors count is 21.8B): 4% */
        { "ernie-4.5-21b-a3b.json", "baidu/ERNIE-4.5-21B-A3B-PT", 21, 0, 0.04 },
        /* ByteDance-Seed/Seed-OSS-36B-Instruct: 36B */
        { "seed-oss-36b.json", "ByteDance-Seed/Seed-OSS-36B-Instruct", 36, 0, 0.01 },
        /* rednote-hilab/dots.llm1.inst: 142B total, 14B active */
        { "dots-llm1.json", "rednote-hilab/dots.llm1.inst", 142, 14, 0.01 },
        /* Qwen/Qwen2.5-VL-7B-Instruct: 8.3B with the 0.67B vision tower, which llmroof does not
         * model: the language model is 7.6B (Qwen2.5-7B's 7.61B) */
        { "qwen2.5-vl-7b.json", "Qwen/Qwen2.5-VL-7B-Instruct", 7.61, 0, 0.01 },
        /* Qwen/Qwen3-VL-8B-Instruct: 8.8B with the vision tower; its language model is Qwen3-8B's
         * 8.19B */
        { "qwen3-vl-8b.json", "Qwen/Qwen3-VL-8B-Instruct", 8.19, 0, 0.01 },
        /* mistralai/Mistral-Small-3.1-24B-Instruct-2503: 24B with the 0.4B Pixtral encoder: 2% */
        { "mistral-small-3.1-24b.json", "mistralai/Mistral-Small-3.1-24B-Instruct-2503", 24, 0, 0.02 },
        /* tencent/Hunyuan-A13B-Instruct: 80B total, 13B active (active: 2%, the card rounds) */
        { "hunyuan-a13b.json", "tencent/Hunyuan-A13B-Instruct", 80, 0, 0.01 },
        /* inclusionAI/Ling-lite-1.5: 16.8B total, 2.75B active */
        { "ling-lite-1.5.json", "inclusionAI/Ling-lite-1.5", 16.8, 2.75, 0.01 },
        /* ibm-granite/granite-4.0-h-tiny: "7B total, 1B active" (active not checked: the shapes
         * give 1.5B with the embedding) */
        { "granite-4.0-h-tiny.json", "ibm-granite/granite-4.0-h-tiny", 7, 0, 0.01 },
        /* MiniMaxAI/MiniMax-Text-01: 456B total, 45.9B active */
        { "minimax-text-01.json", "MiniMaxAI/MiniMax-Text-01", 456, 0, 0.01 },
        /* moonshotai/Kimi-Linear-48B-A3B-Instruct: 48B total (the name's figure; the shapes give
         * 49.12B: 2.3%) */
        { "kimi-linear-48b-a3b.json", "moonshotai/Kimi-Linear-48B-A3B-Instruct", 48, 0, 0.03 },
        /* ai21labs/Jamba-v0.1: 52B total, 12B active (the shapes: 51.57B, 12.11B) */
        { "jamba-v0.1.json", "ai21labs/Jamba-v0.1", 52, 12, 0.01 },
        /* tiiuae/Falcon-H1-3B-Instruct: "3B" (the name's figure; the shapes give 3.149B: 5%) */
        { "falcon-h1-3b.json", "tiiuae/Falcon-H1-3B-Instruct", 3, 0, 0.05 },
        /* nvidia/Llama-3_3-Nemotron-Super-49B-v1: 49B (the name; the shapes give 49.87B: 2%) */
        { "llama-3.3-nemotron-super-49b.json", "nvidia/Llama-3_3-Nemotron-Super-49B-v1", 49, 0, 0.02 },
        /* nvidia/Llama-3_1-Nemotron-Ultra-253B-v1: 253B (the shapes give 253.40B) */
        { "llama-3.1-nemotron-ultra-253b.json", "nvidia/Llama-3_1-Nemotron-Ultra-253B-v1", 253, 0, 0.01 },
    };
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < sizeof cards / sizeof cards[0]; i++) {
        struct llmroof_model m;
        import_ok(cards[i].file, &m);
        /* the shipped entry of the same Hub repository carries the checkpoint the config states
         * (a review found MiniMax-M2's FP8 release costed as bf16: its weights twice their size;
         * some fixtures leave out a quantization_config their entries state from elsewhere) */
        for (size_t j = 0; m.ckpt_format[0] && j < cat.n_models; j++) {
            const struct llmroof_model *c = &cat.models[j];
            if (strcmp(c->hf_id, cards[i].repo) != 0)
                continue;
            if (strcmp(c->ckpt_format, m.ckpt_format) != 0 || fabs(c->ckpt_bits - m.ckpt_bits) > 1e-3 ||
                fabs(c->ckpt_expert_bits - m.ckpt_expert_bits) > 1e-3) {
                print_error("%s: catalog '%s' checkpoint '%s' %.4g bits, the config's '%s' %.4g\n", cards[i].file,
                            c->id, c->ckpt_format, c->ckpt_bits, m.ckpt_format, m.ckpt_bits);
                fail();
            }
        }
        const struct llmroof_params p = arch_params(&m);
        if (fabs(p.total / (cards[i].total * 1e9) - 1.0) > cards[i].tol) {
            print_error("%s (%s): derived %.4gB, card %.4gB\n", cards[i].file, cards[i].repo, p.total / 1e9,
                        cards[i].total);
            fail();
        }
        if (cards[i].active > 0 && fabs(p.active / (cards[i].active * 1e9) - 1.0) > 0.01) {
            print_error("%s: derived active %.4gB, card %.4gB\n", cards[i].file, p.active / 1e9, cards[i].active);
            fail();
        }
    }
    catalog_free(&cat);
}

static void nemotron_h_mamba2_layer_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("nemotron-nano-9b-v2.json", &m);
    /* hybrid_override_pattern: 27 M, 4 *, 25 - */
    assert_int_equal(arch_linear_layers(&m), 27);
    assert_int_equal(arch_attn_layers(&m), 4);
    assert_int_equal(arch_dense_layers(&m), 25);
    assert_int_equal(m.linear_kind, LLMROOF_LINEAR_MAMBA2);
    assert_int_equal(m.mlp, LLMROOF_MLP_PLAIN); /* relu2 */
    /* H 128, P 80, N 128, G 8, h 4480: d_inner 10240, conv channels 10240 + 2*8*128 = 12288;
     * in_proj 4480 x (2*10240 + 2048 + 128 = 22656) = 101,498,880; out_proj 10240*4480 = 45,875,200;
     * conv 12288*4 + bias 12288 = 61,440; A_log, D, dt_bias 384; norm 10240 -> 147,446,144 */
    assert_rel_close(layers_linear_params(&m), 147446144.0, 0);
    /* state: 128*80*128 = 1,310,720 + conv (4-1)*12288 = 36,864 -> 1,347,584 per layer;
     * x27 = 36,384,768 elements, 72,769,536 B at 16 bits, whatever the context */
    assert_rel_close(layers_state_elems(&m), 1347584.0, 0);
    assert_rel_close(arch_state_elems_per_seq(&m), 36384768.0, 0);
    /* KV only on the 4 attention layers: 4 * 2*8*128 = 8,192 elements per token */
    assert_rel_close(arch_kv_elems_per_token(&m), 8192.0, 0);
}

/* One Mamba-2 group at TP 4 (Granite-4.0-H-Tiny: 48 heads of 64, d_state 128, n_groups 1, h 1,536,
 * conv 4): vLLM copies the group to every rank (extra_groups_for_head_shards), so a rank holds 12
 * heads and one whole group. State a rank, a layer: 12 x 64 x 128 = 98,304 + 3 x (768 + 2 x 128)
 * = 3,072 -> 101,376 elements (a review found 3 x (768 + 2 x 32) = 2,496 more in the split: 0.57%
 * low); x 36 layers x 2 B = 7,299,072 B a sequence. Weights a rank: the layer's quarter plus the
 * group's three quarters it copies, 2 x 96 x (1,536 in_proj + 4 conv + 1 bias) = 295,872. At TP 8
 * the 48 heads split 6 a rank and the group is still whole on each. */
static void a_mamba2_group_is_copied_to_every_rank(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("granite-4.0-h-tiny.json", &m);
    assert_int_equal(m.linear_kind, LLMROOF_LINEAR_MAMBA2);
    assert_int_equal(m.lin_k_heads, 1);
    assert_rel_close(layers_state_elems_rank(&m, 1), layers_state_elems(&m), 0);
    assert_rel_close(layers_state_elems_rank(&m, 4), 101376.0, 0);
    assert_rel_close(arch_linear_layers(&m) * layers_state_elems_rank(&m, 4) * 2.0, 7299072.0, 0);
    assert_rel_close(layers_linear_params_rank(&m, 1), layers_linear_params(&m), 0);
    assert_rel_close(layers_linear_params_rank(&m, 4), layers_linear_params(&m) / 4.0 + 295872.0, 1e-12);
    /* 6 x 64 x 128 = 49,152 + 3 x (384 + 256) = 1,920 */
    assert_rel_close(layers_state_elems_rank(&m, 8), 51072.0, 0);
    /* Nemotron-Nano's 8 groups split at TP 8: the state divides as the heads do */
    struct llmroof_model n;
    import_ok("nemotron-nano-9b-v2.json", &n);
    assert_rel_close(layers_state_elems_rank(&n, 8), layers_state_elems(&n) / 8.0, 1e-12);
}

/* GLM-4.7-Flash (zai-org/GLM-4.7-Flash, model_type glm4_moe_lite): multi-head latent attention
 * whose 2048-wide stream does not divide by its 20 heads, and which gives no head_dim. The
 * importer had refused it ("hidden size 2048 is not divisible by 20 heads and no head_dim is
 * given", a review of session 56) although MLA's widths come from its own fields. */
static void glm_4_7_flash_mla_without_head_dim_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("glm-4.7-flash.json", &m);
    assert_int_equal(m.kv_lora_rank, 512);
    assert_int_equal(m.head_dim, 256); /* qk_nope 192 + qk_rope 64 */
    /* per layer, attention: q_a 2048 x 768 = 1,572,864 + its norm 768; q_b 768 x 20 x 256 = 3,932,160;
     * kv_a 2048 x (512 + 64) = 1,179,648 + its norm 512; kv_b 512 x 20 x (192 + 256) = 4,587,520;
     * o 20 x 256 x 2048 = 10,485,760 -> 21,759,232; two norms 4,096 -> 21,763,328, x 47 =
     * 1,022,876,416. One dense MLP 3 x 2048 x 10240 = 62,914,560. 46 MoE layers of 64 experts
     * 3 x 2048 x 1536 = 603,979,776, a shared one 9,437,184 and the router 2048 x 64 = 131,072:
     * 613,548,032 x 46 = 28,223,209,472. Embedding and untied head 2 x 154880 x 2048 =
     * 634,388,480; final norm 2048. Total 29,943,390,976 (the MTP layer is not counted: the
     * checkpoint's 31.22 B holds it) */
    const struct llmroof_params p = arch_params(&m);
    assert_rel_close(p.total, 29943390976.0, 1e-12);
    /* cached per token: the latent and the rotary key, 47 x (512 + 64) = 27,072 elements */
    assert_rel_close(arch_kv_elems_per_token(&m), 27072.0, 0);
}

/* compressed-tensors checkpoints (llm-compressor's format: one scheme over every Linear, an ignore
 * list of names and "re:" patterns), read as the checkpoint's stored bits. Before session 56 each
 * was a warning and estimated at 16 bits: Kimi-K2-Thinking did "not fit" on 8 x H200. */
static void compressed_tensors_checkpoints_by_hand(void **state)
{
    (void)state;
    const struct llmroof_dtypes bf = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    enum llmroof_dtype own;
    struct llmroof_model m;
    /* Kimi-K2-Thinking: int4 routed experts in groups of 32 with a 16-bit scale, 4 + 16/32 = 4.5
     * bits (0.5625 bytes); self_attn, shared_experts, the first layer's dense MLP and lm_head are
     * ignored: bf16 */
    import_ok("kimi-k2-thinking.json", &m);
    assert_string_equal(m.ckpt_format, "int4");
    assert_rel_close(m.ckpt_bits, 16.0, 0);
    assert_rel_close(m.ckpt_expert_bits, 4.5, 0);
    assert_true(ckpt_weight_dtype(&m, &own));
    assert_int_equal(own, LLMROOF_BF16);
    assert_rel_close(ops_expert_bytes(&m, &bf), 0.5625, 0);
    assert_rel_close(ops_module_weight_bytes(&m, &bf, LLMROOF_CKPT_FFN), 2.0, 0); /* shared experts */
    /* Llama-2-7B W4A16: int4 groups of 128, 4 + 16/128 = 4.125 bits, every Linear but lm_head: the
     * int4 dtype, its scales counted (ckpt_dtypes: 4.125 bits a weight, 0.515625 bytes; they had
     * been left out as --weight-dtype int4 leaves them: a review of session 65) */
    import_ok("llama-2-7b-w4a16.json", &m);
    assert_string_equal(m.ckpt_format, "int4");
    assert_rel_close(m.ckpt_bits, 4.125, 0);
    assert_true(ckpt_weight_dtype(&m, &own));
    assert_int_equal(own, LLMROOF_INT4);
    {
        const struct llmroof_dtypes none = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                             LLMROOF_ACT_QUANT_SEPARATE, false };
        const struct llmroof_dtypes d4 = ckpt_dtypes(&m, NULL, none, false);
        assert_int_equal(d4.weight, LLMROOF_INT4);
        assert_rel_close(d4.weight_bits, 4.125, 0);
        assert_rel_close(ops_weight_bytes(&d4), 0.515625, 1e-12);
        /* a weight dtype given keeps its own bits */
        assert_rel_close(ckpt_dtypes(&m, NULL, none, true).weight_bits, 0, 0);
    }
    /* AWQ (Qwen2.5-7B-Instruct-AWQ: 4 bits, group 128, zero points): 4 + (16 + 4)/128 = 4.15625 bits */
    import_ok("qwen2.5-7b-instruct-awq.json", &m);
    assert_string_equal(m.ckpt_format, "int4");
    assert_rel_close(m.ckpt_bits, 4.15625, 0);
    assert_false(m.ckpt_per_op);
    /* ... with modules_to_not_convert ["self_attn"] (AWQ keeps every Linear whose name holds it
     * 16-bit): the per-operator form, attention and the head (which AWQ never quantizes) 16-bit, the
     * MLP at 4.15625 bits, 0.51953125 bytes (the list had been read by nothing: a review of session
     * 65). memory's 6,787,816,448 B at TP 1 (golden memory_awq_attn16_json): 28 x (3584 x 8192)
     * attention weights = 822.1 M at 2 B, 28 x 3 x 3584 x 18944 MLP = 5.703 G at 0.5195 B, the
     * embedding and head 2 x 152064 x 3584 = 1.090 G at 2 B: 1.644 + 2.963 + 2.180 = 6.787 GB */
    import_ok("qwen2.5-7b-instruct-awq-attn16.json", &m);
    assert_true(m.ckpt_per_op);
    assert_int_equal(m.ckpt_excluded, LLMROOF_CKPT_QKV_PROJ | LLMROOF_CKPT_O_PROJ | LLMROOF_CKPT_LM_HEAD);
    assert_rel_close(ops_module_weight_bytes(&m, &bf, LLMROOF_CKPT_FFN), 4.15625 / 8.0, 0);
    assert_rel_close(ops_module_weight_bytes(&m, &bf, LLMROOF_CKPT_QKV_PROJ), 2.0, 0);
    /* Mixtral-8x7B FP8-dynamic: per-channel fp8 weights (scales left out: 8 bits), fp8 inputs */
    import_ok("mixtral-8x7b-fp8-dynamic.json", &m);
    assert_string_equal(m.ckpt_format, "fp8");
    assert_rel_close(m.ckpt_bits, 8.0, 0);
    assert_true(ckpt_weight_dtype(&m, &own));
    assert_int_equal(own, LLMROOF_FP8);
    /* DeepSeek-V3 in NVFP4 (e2m1 with an e4m3 scale per 16: 4 + 8/16 = 4.5 bits), self_attn and
     * lm_head ignored: the catalog's deepseek-r1-0528-nvfp4 form, qkv_proj, mla_kv_up, o_proj and
     * lm_head 16-bit */
    import_ok("deepseek-v3-nvfp4-ct.json", &m);
    assert_string_equal(m.ckpt_format, "nvfp4");
    assert_rel_close(m.ckpt_bits, 4.5, 0);
    assert_true(m.ckpt_per_op);
    assert_int_equal(m.ckpt_excluded,
                     LLMROOF_CKPT_QKV_PROJ | LLMROOF_CKPT_MLA_KV_UP | LLMROOF_CKPT_O_PROJ | LLMROOF_CKPT_LM_HEAD);
    /* a list that keeps one layer's MLP 16-bit cannot be represented: no checkpoint (a warning) */
    import_ok("ct-partial-ignore.json", &m);
    assert_string_equal(m.ckpt_format, "");
    /* W4A16 with attention ignored by a pattern whose \d sits in brackets ([\d]+, which had become
     * [[0-9]]+ and matched nothing): the per-operator form, the MLP at 4.125 bits, attention and the
     * head bf16 */
    import_ok("llama-2-7b-w4a16-attn16.json", &m);
    assert_string_equal(m.ckpt_format, "int4");
    assert_true(m.ckpt_per_op);
    assert_int_equal(m.ckpt_excluded, LLMROOF_CKPT_QKV_PROJ | LLMROOF_CKPT_O_PROJ | LLMROOF_CKPT_LM_HEAD);
    assert_true(ckpt_weight_dtype(&m, &own));
    assert_int_equal(own, LLMROOF_BF16);
    assert_rel_close(ops_module_weight_bytes(&m, &bf, LLMROOF_CKPT_FFN), 4.125 / 8.0, 0);
    assert_rel_close(ops_module_weight_bytes(&m, &bf, LLMROOF_CKPT_QKV_PROJ), 2.0, 0);
    /* the same in a multimodal checkpoint's nesting (language_model.model.layers.N..., Mistral-Small
     * 3.1's), whose vision-tower entries are expected to match nothing */
    import_ok("mistral-small-3.1-24b-w4a16.json", &m);
    assert_true(m.ckpt_per_op);
    assert_int_equal(m.ckpt_excluded, LLMROOF_CKPT_QKV_PROJ | LLMROOF_CKPT_O_PROJ | LLMROOF_CKPT_LM_HEAD);
    /* NVIDIA Model Optimizer's NVFP4 in config.json (quant_method modelopt, as its exporter writes it;
     * import-hf reads a hf_quant_config.json beside config.json into this form): e2m1 with an e4m3
     * scale per 16, 4 + 8/16 = 4.5 bits; exclude_modules are globs matched whole (fnmatch), here
     * every layer's self_attn and the head: qkv_proj, o_proj and lm_head 16-bit (the method had
     * been a warning and every weight 16-bit: a review of session 65) */
    import_ok("llama-2-7b-modelopt-nvfp4-attn16.json", &m);
    assert_string_equal(m.ckpt_format, "nvfp4");
    assert_rel_close(m.ckpt_bits, 4.5, 0);
    assert_true(m.ckpt_per_op);
    assert_int_equal(m.ckpt_excluded, LLMROOF_CKPT_QKV_PROJ | LLMROOF_CKPT_O_PROJ | LLMROOF_CKPT_LM_HEAD);
    /* ... and FP8 (per-tensor W8A8): the fp8 format at 8 bits */
    import_ok("llama-2-7b-modelopt-fp8.json", &m);
    assert_string_equal(m.ckpt_format, "fp8");
    assert_rel_close(m.ckpt_bits, 8.0, 0);
    /* W8A8 int8 (per-channel int8 weights, per-token int8 activations): int8 weights, int8 GEMMs on a
     * GPU with an int8 path */
    import_ok("llama-2-7b-w8a8.json", &m);
    assert_string_equal(m.ckpt_format, "w8a8-int8");
    assert_true(ckpt_weight_dtype(&m, &own));
    assert_int_equal(own, LLMROOF_INT8);
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_dtypes d8 = bf;
    d8.weight = LLMROOF_INT8;
    d8.act = LLMROOF_FP16;
    assert_int_equal(ckpt_gpu_dtypes(&m, d8, false, false, gpu(&cat, "h100")).act, LLMROOF_INT8);
    assert_int_equal(ckpt_gpu_dtypes(&m, d8, false, true, gpu(&cat, "h100")).act, LLMROOF_FP16); /* --act-dtype given */
    catalog_free(&cat);
}

/* A DeepSeek-V3.2 config whose model_type reads deepseek_v3 (as re-saved copies write it) keeps its
 * sparse attention: the index fields route it to the field table, as deepseek_v32 (a review: the
 * DeepSeek rules had dropped them, KV 70,272 B a token of dense MLA instead of 78,324) */
static void deepseek_v3_type_with_index_fields_keeps_dsa(void **state)
{
    (void)state;
    struct llmroof_model a, b;
    import_ok("deepseek-v3.2-exp.json", &a);
    import_ok("deepseek-v3.2-as-v3.json", &b);
    assert_int_equal(b.dsa_top_k, 2048);
    assert_int_equal(b.dsa_top_k, a.dsa_top_k);
    /* 61 x (512 + 64) = 35,136 latent elements at 2 B = 70,272, plus the indexer's fp8 key, 128 B
     * and its fp32 scale a layer: 61 x 132 = 8,052; 78,324 B */
    assert_rel_close(arch_kv_bytes_per_token(&b, 2.0), arch_kv_bytes_per_token(&a, 2.0), 0);
    assert_rel_close(arch_params(&b).total, arch_params(&a).total, 0);
}

static void jamba_mamba1_layers_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("jamba-v0.1.json", &m);
    /* attention on i mod 8 = 4 (4 layers), Mamba-1 elsewhere (28); MoE on odd layers (16) */
    assert_int_equal(arch_attn_layers(&m), 4);
    assert_int_equal(arch_linear_layers(&m), 28);
    assert_int_equal(arch_moe_layers(&m), 16);
    /* d_inner 8192, N 16, R 256, k 4: in_proj 4096 x 16384 = 67,108,864; conv 8192*4 + 8192 =
     * 40,960; x_proj 8192 x 288 = 2,359,296; dt_proj 256 x 8192 + 8192 = 2,105,344; A_log 131,072;
     * D 8192; dt/B/C norms 288; out_proj 33,554,432 -> 105,308,448 */
    assert_rel_close(layers_linear_params(&m), 105308448.0, 0);
    /* state 8192 x 16 + conv 3 x 8192 = 155,648 per layer */
    assert_rel_close(layers_state_elems(&m), 155648.0, 0);
    /* 28 Mamba layers 2,948,636,544 + 4 attention 167,772,160 + 16 dense MLPs 2,818,572,288 +
     * 16 MoE (16 experts of 176,160,768 + router 65,536) 45,098,205,184 + norms 65 x 4096 +
     * embedding and head 2 x 268,435,456 = 51,570,323,328 */
    assert_rel_close(arch_params(&m).total, 51570323328.0, 0);
}

/* Falcon-H1: attention and Mamba-2 side by side in every layer; both mixers' weights, the KV of
 * every layer and the state of every layer. */
static void falcon_h1_parallel_mixers_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("falcon-h1-3b.json", &m);
    assert_int_equal(arch_attn_layers(&m), 32);
    assert_int_equal(arch_linear_layers(&m), 32);
    assert_int_equal(arch_dense_layers(&m), 32);
    assert_int_equal(m.mixers[0], 'P');
    /* H 32, P 128, N 256, G 1, h 2560: d_inner 4096; in_proj 2560 x (2*4096 + 2*256 + 32 = 8736) =
     * 22,364,160; out_proj 4096*2560 = 10,485,760; conv (4096 + 512) x 4 + bias 4608 = 23,040;
     * A_log, D, dt_bias 96; norm 4096 -> 32,877,152 */
    assert_rel_close(layers_linear_params(&m), 32877152.0, 0);
    /* state 32*256*128 = 1,048,576 + conv 3*4608 = 13,824 -> 1,062,400 per layer, x32 layers */
    assert_rel_close(arch_state_elems_per_seq(&m), 32.0 * 1062400.0, 0);
    /* KV on every layer: 32 x 2*2*128 = 16,384 elements per token */
    assert_rel_close(arch_kv_elems_per_token(&m), 16384.0, 0);
    /* per layer: attention 2560*1280*2 + 2*2560*256 = 7,864,320 + Mamba 32,877,152 + MLP
     * 3*2560*6144 = 47,185,920 -> 87,927,392; x32 = 2,813,676,544 + norms 65*2560 = 166,400 +
     * embedding and head 2*65536*2560 = 335,544,320 -> 3,149,387,264 */
    assert_rel_close(arch_params(&m).total, 3149387264.0, 0);
    /* a decode step runs both: the attention operators and the linear mixer on all 32 layers */
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(&m, 1, &sh, NULL), LLMROOF_OK);
    const struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    ops_build(&m, &sh, &dt, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].count, 32, 0);
    assert_rel_close(o.op[LLMROOF_OP_LINEAR_MIX].count, 32, 0);
}

/* Llama-3.3-Nemotron-Super-49B: NAS block_configs, per-layer attention (49 of 80 layers) and FFN
 * widths from ffn_mult. */
static void nemotron_nas_block_configs_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("llama-3.3-nemotron-super-49b.json", &m);
    assert_int_equal(arch_attn_layers(&m), 49);
    assert_int_equal(arch_dense_layers(&m), 80);
    assert_int_equal(m.kv_heads, 8);            /* 64 heads / n_heads_in_group 8 */
    assert_int_equal(m.intermediate, 28672);    /* the widest layer */
    /* ffn_mult -> 2/3 * mult * 8192 rounded up to 256: 5.25 -> 28672, 3.28125 -> 17920,
     * 2.625 -> 14336, 1.3125 -> 7168, 1.0 -> 5461 -> 5632, 0.5 -> 2730 -> 2816 */
    assert_int_equal(m.ffn_widths[0], 14336);
    assert_int_equal(m.ffn_widths[11], 17920);
    assert_int_equal(m.ffn_widths[54], 5632);
    assert_int_equal(m.ffn_widths[62], 2816);
    /* widths: 49 x 28672 + 1 x 17920 + 6 x 14336 + 10 x 7168 + 8 x 5632 + 6 x 2816 = 1,642,496;
     * mean 20,531.2 */
    assert_rel_close(layers_dense_width(&m, 0, 80), 1642496.0 / 80.0, 1e-15);
    /* attention 49 x (2*8192*8192 + 2*8192*1024) = 7,398,752,256; MLPs 3*8192*1,642,496 =
     * 40,365,981,696; norms 161*8192 = 1,318,912; embedding and head 2*128256*8192 =
     * 2,101,346,304 -> 49,867,399,168 (card: 49B; the Hub lists 49.9B) */
    assert_rel_close(arch_params(&m).total, 49867399168.0, 0);
    /* KV only on the 49 attention layers: 49 x 2*8*128 = 100,352 elements per token */
    assert_rel_close(arch_kv_elems_per_token(&m), 100352.0, 0);
    /* the dense operator at the mean width: 80 layers x 2*T*8192*3*20,531.2 FLOP = the sum */
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(&m, 1, &sh, NULL), LLMROOF_OK);
    const struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    ops_build(&m, &sh, &dt, &b, &o);
    const struct llmroof_op *f = &o.op[LLMROOF_OP_FFN];
    assert_rel_close(f->count * f->flops, 2.0 * 8192.0 * 3.0 * 1642496.0, 1e-12);
    assert_rel_close(f->count * f->wbytes, 3.0 * 8192.0 * 1642496.0 * 2.0, 1e-12);
    /* malformed block_configs: a block count that is not num_hidden_layers, named */
    struct llmroof_err err = { 0 };
    char warn[1024];
    static const char bad[] = "{\"model_type\": \"nemotron-nas\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                              "\"num_attention_heads\": 4, \"vocab_size\": 100, \"max_position_embeddings\": 4096,"
                              "\"block_configs\": [{\"attention\": {\"n_heads_in_group\": 2}, \"ffn\": {\"ffn_mult\": 1.0}}]}";
    assert_int_equal(catalog_model_from_hf_warn(bad, sizeof bad - 1, "bad.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "'block_configs' must list num_hidden_layers (2)"));
}

/* Qwen3.5 (qwen3_5_moe): the multimodal config's text_config imports as the catalog's entries, its
 * own attn_output_gate and mtp_num_hidden_layers read (no type default assumed for them); every
 * cost field and the parameter count agree with the shipped entry */
static void qwen3_5_imports_as_its_catalog_entries(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    static const char *const pairs[][2] = { { "qwen3.5-397b-a17b.json", "qwen3.5-397b-a17b" },
                                            { "qwen3.5-122b-a10b.json", "qwen3.5-122b-a10b" } };
    for (int i = 0; i < 2; i++) {
        struct llmroof_model m;
        import_ok(pairs[i][0], &m);
        const struct llmroof_model *c = model(&cat, pairs[i][1]);
        assert_int_equal(m.hidden, c->hidden);
        assert_int_equal(m.layers, c->layers);
        assert_int_equal(m.heads, c->heads);
        assert_int_equal(m.kv_heads, c->kv_heads);
        assert_int_equal(m.head_dim, c->head_dim);
        assert_int_equal(m.moe_experts, c->moe_experts);
        assert_int_equal(m.moe_top_k, c->moe_top_k);
        assert_int_equal(m.moe_intermediate, c->moe_intermediate);
        assert_int_equal(m.moe_shared, c->moe_shared);
        assert_int_equal(m.vocab, c->vocab);
        assert_true(m.attn_gate && c->attn_gate);
        assert_true(m.qk_norm && c->qk_norm);
        assert_int_equal(m.mtp_layers, 1);
        assert_int_equal(arch_linear_layers(&m), arch_linear_layers(c));
        assert_int_equal(arch_attn_layers(&m), m.layers / 4);
        assert_rel_close(layers_linear_params(&m), layers_linear_params(c), 0);
        assert_rel_close(arch_params(&m).total, arch_params(c).total, 0);
        /* the config keeps the recurrent state in fp32 (mamba_ssm_dtype "float32", which vLLM's
         * Qwen3_5 config hook takes for the SSM cache): the import and the entry both say so */
        assert_true(m.lin_state_dtype_set && m.lin_state_dtype == LLMROOF_FP32);
        assert_true(c->lin_state_dtype_set && c->lin_state_dtype == LLMROOF_FP32);
    }
    /* by hand at TP 1: 45 DeltaNet layers x (64 x 128 x 128 + 3 x (2 x 16 x 128 + 64 x 128))
     * = 45 x 1,085,440 elements, 4 bytes each = 195,379,200 B a sequence (97,689,600 at 16 bits) */
    {
        const struct llmroof_dtypes dt16 = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        const struct llmroof_model *q = model(&cat, "qwen3.5-397b-a17b");
        const struct llmroof_dtypes qdt = ckpt_dtypes(q, NULL, dt16, true);
        struct llmroof_mem_opts mo = memory_default_opts();
        struct llmroof_memory mem;
        assert_int_equal(memory_eval(q, gpu(&cat, "h200"), 8, &qdt, 4096, &mo, &mem, NULL), LLMROOF_OK);
        assert_rel_close(mem.state_bytes_per_seq, 195379200.0, 0);
    }
    /* the 122B's shapes: 122,111,526,912 parameters in the public proxy's count, less the
     * shared-expert gate llmroof leaves out (a 1 x 3072 projection a layer: 48 x 3,072 = 147,456) */
    assert_rel_close(arch_params(model(&cat, "qwen3.5-122b-a10b")).total, 122111526912.0 - 147456.0, 0);
    /* a config that says attn_output_gate false is taken at its word */
    struct llmroof_model m;
    struct llmroof_err err = { 0 };
    char path[512], warn[2048], *text;
    size_t len;
    snprintf(path, sizeof path, "%s/hf/%s", LLMROOF_TEST_FIXTURES, "qwen3.5-122b-a10b.json");
    assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, &err), 0);
    char *at = strstr(text, "\"attn_output_gate\": true");
    assert_non_null(at);
    memcpy(at + strlen("\"attn_output_gate\": "), "null", 4);
    assert_int_equal(catalog_model_from_hf_warn(text, len, "q.json", "q", &m, warn, sizeof warn, &err), LLMROOF_OK);
    assert_true(m.attn_gate); /* null: the type's default, the gate */
    memcpy(at + strlen("\"attn_output_gate\": "), "true", 4);
    char *f = malloc(len + 2);
    assert_non_null(f);
    const size_t pre = (size_t)(at - text) + strlen("\"attn_output_gate\": ");
    memcpy(f, text, pre);
    memcpy(f + pre, "false", 5);
    memcpy(f + pre + 5, text + pre + 4, len - pre - 4);
    assert_int_equal(catalog_model_from_hf_warn(f, len + 1, "q.json", "q", &m, warn, sizeof warn, &err), LLMROOF_OK);
    free(f);
    assert_false(m.attn_gate);
    free(text);
    catalog_free(&cat);
}

static void gated_deltanet_layer_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("qwen3-next-80b-a3b.json", &m);
    assert_int_equal(arch_linear_layers(&m), 36);
    assert_int_equal(arch_attn_layers(&m), 12);
    assert_int_equal(m.moe_shared, 1); /* shared_expert_intermediate_size 512 = one expert's width */
    /* Hk 16, Hv 32, dk = dv = 128, h 2048: in_proj_qkvz 2048 x (2*2048 + 2*4096) = 25,165,824,
     * in_proj_ba 2048 x 64 = 131,072; out_proj 4096*2048 = 8,388,608; conv (2*2048 + 4096)*4 =
     * 32,768; A_log, dt_bias 64; norm 128 -> 33,718,464 */
    assert_rel_close(layers_linear_params(&m), 33718464.0, 0);
    /* state 32*128*128 = 524,288 + conv 3*8192 = 24,576 -> 548,864 per layer */
    assert_rel_close(layers_state_elems(&m), 548864.0, 0);
    /* KV: 12 layers * 2*2*256 = 12,288 elements per token (24 KiB at 16 bits) */
    assert_rel_close(arch_kv_elems_per_token(&m), 12288.0, 0);
}

/* Kimi-Linear's Kimi Delta Attention by hand (the model's modeling_kimi.py KimiDeltaAttention; a
 * review found it costed with gated DeltaNet's shapes: a z gate and an "a" projection it does not
 * have, its low-rank gates left out, 7.85 M weights a layer too many). H 32, d 128, h 2,304:
 * q, k, v 3 x 2,304 x 4,096 = 28,311,552; b_proj 2,304 x 32 = 73,728; f_a and g_a 2 x 2,304 x 128
 * = 589,824; f_b and g_b 2 x 128 x 4,096 = 1,048,576; o_proj 4,096 x 2,304 = 9,437,184; conv
 * 3 x 4,096 x 4 = 49,152; A_log 32, dt_bias 4,096, o_norm 128 -> 39,514,272 a layer. At TP 2 a
 * rank holds half of all but f_a and g_a (vLLM's ReplicatedLinear): 2,304 x (6,160 + 256) +
 * 2,048 x 2,304 + 524,288 + 6,144 x 4 = 20,049,920 weights its GEMMs read (the vectors aside). */
static void kimi_delta_attention_layer_by_hand(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("kimi-linear-48b-a3b.json", &m);
    assert_int_equal(m.linear_kind, LLMROOF_LINEAR_KDA);
    assert_string_equal(linear_kind_name(m.linear_kind), "kda");
    assert_int_equal(arch_linear_layers(&m), 20);
    assert_rel_close(layers_linear_params(&m), 39514272.0, 0);
    /* the state as gdn's: 32 x 128 x 128 + 3 conv rows of 3 x 4,096 = 561,152 elements */
    assert_rel_close(layers_state_elems(&m), 561152.0, 0);
    struct llmroof_shard sh = { 0 };
    sh.tp = 1;
    const struct llmroof_op one = layers_linear_op(&m, &sh, 8, 8, 2, 1, 4);
    assert_rel_close(one.wbytes, 39514272.0 - 4256.0, 0);
    sh.tp = 2;
    const struct llmroof_op two = layers_linear_op(&m, &sh, 8, 8, 2, 1, 4);
    assert_rel_close(two.wbytes, 20049920.0, 0);
}

/* Qwen3-Next's config.json names no MTP count, but its checkpoint ships one MTP layer (mtp.*),
 * which vLLM builds as num_nextn_predict_layers layers, default 1: the import has mtp_layers 1
 * (so --spec mtp accepts it); a config that names the count is taken at its word; a family
 * without the trait keeps 0. */
static void qwen3_next_ships_one_mtp_layer(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("qwen3-next-80b-a3b.json", &m);
    assert_int_equal(m.mtp_layers, 1);
    import_ok("olmo-2-7b.json", &m);
    assert_int_equal(m.mtp_layers, 0);
    struct llmroof_err err = { 0 };
    char warn[2048];
    static const char named[] =
        "{\"model_type\": \"qwen3_next\", \"hidden_size\": 256, \"num_hidden_layers\": 4, "
        "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 64, \"intermediate_size\": 512, "
        "\"vocab_size\": 1000, \"max_position_embeddings\": 4096, \"full_attention_interval\": 4, "
        "\"linear_num_value_heads\": 4, \"linear_num_key_heads\": 2, \"linear_key_head_dim\": 32, "
        "\"linear_value_head_dim\": 32, \"mtp_num_hidden_layers\": 2}";
    assert_int_equal(catalog_model_from_hf_warn(named, sizeof named - 1, "n.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_int_equal(m.mtp_layers, 2);
    assert_false(m.lin_state_dtype_set);
}

/* A config that states its recurrent state's dtype (Qwen3.5's mamba_ssm_dtype "float32") sets
 * the model's default state dtype; --state-dtype (dt.state_set) overrides it; an attention-only
 * model ignores it; an unknown name is an error naming the field. */
static void config_state_dtype_is_the_default(void **state)
{
    (void)state;
    struct llmroof_model m;
    struct llmroof_err err = { 0 };
    char warn[2048];
    static const char fp32[] =
        "{\"model_type\": \"qwen3_next\", \"hidden_size\": 256, \"num_hidden_layers\": 4, "
        "\"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 64, \"intermediate_size\": 512, "
        "\"vocab_size\": 1000, \"max_position_embeddings\": 4096, \"full_attention_interval\": 4, "
        "\"linear_num_value_heads\": 4, \"linear_num_key_heads\": 2, \"linear_key_head_dim\": 32, "
        "\"linear_value_head_dim\": 32, \"mamba_ssm_dtype\": \"float32\"}";
    assert_int_equal(catalog_model_from_hf_warn(fp32, sizeof fp32 - 1, "s.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_true(m.lin_state_dtype_set);
    assert_int_equal(m.lin_state_dtype, LLMROOF_FP32);
    const struct llmroof_dtypes none = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_dtypes d = ckpt_dtypes(&m, NULL, none, false);
    assert_true(d.state_set);
    assert_int_equal(d.state, LLMROOF_FP32);
    /* 3 gated-DeltaNet layers of state 4*32*32 = 4,096 + conv 3*(2*2*32 + 4*32 = 256) = 768 ->
     * 4,864 elements each, 14,592 per sequence: 58,368 B at fp32 against 29,184 B at bf16 */
    assert_rel_close(layers_state_elems_per_seq(&m), 14592.0, 0);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_bytes(&d), 58368.0, 0);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_bytes(&none), 29184.0, 0);
    const struct llmroof_dtypes given = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, true, LLMROOF_BF16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    d = ckpt_dtypes(&m, NULL, given, false);
    assert_int_equal(d.state, LLMROOF_BF16); /* --state-dtype bf16 wins */
    /* an attention-only model: the field is ignored */
    import_ok("olmo-2-7b.json", &m);
    assert_false(ckpt_dtypes(&m, NULL, none, false).state_set);
    char bad[sizeof fp32 + 8];
    snprintf(bad, sizeof bad, "%s", fp32);
    char *at = strstr(bad, "float32");
    memcpy(at, "float64", 7);
    assert_int_equal(catalog_model_from_hf_warn(bad, strlen(bad), "s.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "'mamba_ssm_dtype'"));
}

/* An engine that keeps the recurrent state in fp32 by default (engine ssm_state_fp32: SGLang's
 * mamba2_state_dtype starts from float32) sets it where neither --state-dtype nor the model's
 * config names one; vLLM's "auto" keeps the model's 16 bits; attention-only models have none. */
static void engine_state_dtype_default(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *sg = shipped_engine(&cat, "sglang"), *vl = shipped_engine(&cat, "vllm");
    assert_true(sg->ssm_state_fp32);
    assert_false(vl->ssm_state_fp32);
    struct llmroof_model m;
    import_ok("qwen3-next-80b-a3b.json", &m);
    const struct llmroof_dtypes none = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_dtypes d = ckpt_dtypes(&m, sg, none, false);
    assert_true(d.state_set);
    assert_int_equal(d.state, LLMROOF_FP32);
    /* Qwen3-Next's 36 gated-DeltaNet layers of 32 x 128 x 128 = 524,288 state elements and a
     * convolution window of 3 x (2 x 16 x 128 + 32 x 128 = 8,192) = 24,576, 548,864 a layer:
     * 19,759,104 a sequence. SGLang keeps the SSM state at fp32 and the window at its bf16 conv
     * dtype (mamba_utils.py Mamba2StateDType): 36 x 524,288 x 4 = 75,497,472 B + 36 x 24,576 x 2
     * = 1,769,472 B = 77,266,944 B; the whole state at fp32, as counted before, was 79,036,416 B
     * (2.3% more); 39,518,208 B at the 16 bits vLLM keeps */
    assert_true(d.conv_state_bf16);
    assert_rel_close(layers_conv_state_elems(&m), 24576.0, 0);
    assert_rel_close(ops_conv_state_bytes(&d), 2.0, 0);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_elem_bytes(&m, &d), 77266944.0, 1e-12);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_bytes(&d), 79036416.0, 0);
    assert_false(ckpt_dtypes(&m, vl, none, false).state_set);
    assert_false(ckpt_dtypes(&m, vl, none, false).conv_state_bf16);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_elem_bytes(&m, &none), 39518208.0, 1e-12);
    /* --state-dtype bf16 wins over the engine's default for the SSM state; the window stays at the
     * engine's conv dtype (SGLang's --mamba-ssm-dtype reaches the temporal state only) */
    const struct llmroof_dtypes given = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, true, LLMROOF_BF16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    assert_int_equal(ckpt_dtypes(&m, sg, given, false).state, LLMROOF_BF16);
    assert_true(ckpt_dtypes(&m, sg, given, false).conv_state_bf16);
    /* so --state-dtype fp32 under SGLang is the engine's own default, window included (77,266,944
     * B), where without an engine it widens the window too (79,036,416 B: vLLM's
     * --mamba-cache-dtype float32 sets the conv and the SSM caches alike) */
    const struct llmroof_dtypes wide = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, true, LLMROOF_FP32, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_dtypes wsg = ckpt_dtypes(&m, sg, wide, false), wno = ckpt_dtypes(&m, NULL, wide, false);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_elem_bytes(&m, &wsg), 77266944.0, 1e-12);
    assert_rel_close(layers_state_elems_per_seq(&m) * ops_state_elem_bytes(&m, &wno), 79036416.0, 1e-12);
    /* the headers of estimate, memory and simulate say so (ckpt_state_desc); nothing at vLLM's
     * default, where the state is the model's 16 bits */
    char desc[64];
    ckpt_state_desc(&m, &wsg, desc, sizeof desc);
    assert_string_equal(desc, "fp32 state (conv window bf16)");
    ckpt_state_desc(&m, &wno, desc, sizeof desc);
    assert_string_equal(desc, "fp32 state");
    const struct llmroof_dtypes vd = ckpt_dtypes(&m, vl, none, false);
    ckpt_state_desc(&m, &vd, desc, sizeof desc);
    assert_string_equal(desc, "");
    /* and a decode step reads and writes that state once a sequence: the linear mixer's state
     * traffic for 8 sequences at TP 1 is 2 x 8 x 548,864 elements, at SGLang's split 2 x 8 x
     * (524,288 x 4 + 24,576 x 2) = 34,340,864 B against 35,127,296 B with the window at fp32 */
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(&m, 1, &sh, NULL), LLMROOF_OK);
    const struct llmroof_batch b = batch_decode(8, 1000);
    struct llmroof_oplist o_sg, o_no;
    ops_build(&m, &sh, &wsg, &b, &o_sg);
    ops_build(&m, &sh, &wno, &b, &o_no);
    assert_rel_close(o_no.op[LLMROOF_OP_LINEAR_MIX].bytes - o_sg.op[LLMROOF_OP_LINEAR_MIX].bytes,
                     35127296.0 - 34340864.0, 1e-9);
    /* an attention-only model has no state to set */
    import_ok("olmo-2-7b.json", &m);
    assert_false(ckpt_dtypes(&m, sg, none, false).state_set);
    catalog_free(&cat);
}

/* The decode step of a Qwen3-Next-style hybrid: the recurrent layers cost the same at any
 * context, only the attention layers' K/V reads grow. */
static void hybrid_decode_is_flat_in_context_for_its_linear_layers(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("qwen3-next-80b-a3b.json", &m);
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(&m, 1, &sh, NULL), LLMROOF_OK);
    const struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b1 = batch_decode(1, 1000), b2 = batch_decode(1, 101000);
    struct llmroof_oplist o1, o2;
    ops_build(&m, &sh, &dt, &b1, &o1);
    ops_build(&m, &sh, &dt, &b2, &o2);
    const struct llmroof_op *l1 = &o1.op[LLMROOF_OP_LINEAR_MIX], *l2 = &o2.op[LLMROOF_OP_LINEAR_MIX];
    assert_rel_close(l1->count, 36, 0);
    assert_rel_close(l2->flops, l1->flops, 0);
    assert_rel_close(l2->bytes, l1->bytes, 0);
    /* its state read and written once: 2 * 548,864 * 2 B = 2,195,456 B of the layer's bytes;
     * decode scan 2*3*128*128 = 98,304 FLOP per head and token, 32 heads: 3,145,728 FLOP */
    /* weights: in_proj 2048 x 12,352 (qkvz 12,288 + ba 64), out_proj 4096 x 2048, conv 8192 x 4;
     * 2 FLOP per weight and token */
    const double wts = 2048.0 * 12352.0 + 4096.0 * 2048.0 + 8192.0 * 4.0;
    assert_rel_close(l1->flops, 2.0 * wts + 3145728.0, 0);
    /* activations in and out (2048 + 12,352 + 4096 + 2048 elements of 2 B) and the state */
    assert_rel_close(l1->bytes - l1->wbytes, 2048.0 * 2 + 12352.0 * 2 + 4096.0 * 2 + 2048.0 * 2 + 2195456.0, 0);
    /* attention layers: 12 of them, each reading 2 KV heads x 256 x 2 B x (K and V) per key:
     * 100,000 keys more = 2 * 100000 * 2 * 256 * 2 = 204,800,000 B more per layer */
    assert_rel_close(o1.op[LLMROOF_OP_ATTENTION].count, 12, 0);
    assert_rel_close(o2.op[LLMROOF_OP_ATTENTION].bytes - o1.op[LLMROOF_OP_ATTENTION].bytes, 204800000.0, 1e-12);
}

/* DeepSeek-V3.2: decode attention reads the top 2048 keys at any longer context, the indexer
 * scores them all. */
static void dsa_decode_attention_stops_growing_past_top_k(void **state)
{
    (void)state;
    struct llmroof_model m;
    import_ok("deepseek-v3.2-exp.json", &m);
    assert_int_equal(m.dsa_top_k, 2048);
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(&m, 8, &sh, NULL), LLMROOF_OK);
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_FP8, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b0 = batch_decode(1, 1024), b1 = batch_decode(1, 4096), b2 = batch_decode(1, 100000);
    struct llmroof_oplist o0, o1, o2;
    ops_build(&m, &sh, &dt, &b0, &o0);
    ops_build(&m, &sh, &dt, &b1, &o1);
    ops_build(&m, &sh, &dt, &b2, &o2);
    const struct llmroof_op *a0 = &o0.op[LLMROOF_OP_ATTENTION], *a1 = &o1.op[LLMROOF_OP_ATTENTION],
                            *a2 = &o2.op[LLMROOF_OP_ATTENTION];
    /* absorbed MLA, 16 heads per rank: 2 * 16 * (2*512 + 64) = 34,816 FLOP per pair;
     * below top-k every key (1024 pairs), above it 2048 */
    assert_rel_close(a0->flops, 34816.0 * 1024.0, 0);
    assert_rel_close(a1->flops, 34816.0 * 2048.0, 0);
    assert_rel_close(a2->flops, a1->flops, 0);
    assert_rel_close(a2->bytes, a1->bytes, 0);
    /* the indexer grows: 2 * 64 * 128 + 2 * 64 = 16,512 FLOP per past key */
    const struct llmroof_op *i1 = &o1.op[LLMROOF_OP_DSA_INDEX], *i2 = &o2.op[LLMROOF_OP_DSA_INDEX];
    assert_rel_close(i1->count, 61, 0);
    assert_rel_close(i2->flops - i1->flops, 16512.0 * (100000.0 - 4096.0), 1e-12);
    /* its cache: the 576 elements of the latent and rope key at the KV dtype, and beside them the
     * indexer's key as vLLM and SGLang cache it whatever that dtype, 128 fp8 bytes and one fp32
     * scale: 61 x (576 x 2 + 132) = 78,324 B a token at 16 bits; at 8 bits the latent is FlashMLA's
     * sparse fp8 layout, 512 fp8 + 4 fp32 scales + 64 bf16 rope = 656 B: 61 x (656 + 132) = 48,068
     * (it was charged 704 elements at the KV dtype: 85,888 and 42,944) */
    assert_rel_close(arch_kv_elems_per_token(&m), 61.0 * (512 + 64), 0);
    assert_rel_close(layers_dsa_key_bytes(&m), 132.0, 0);
    assert_rel_close(layers_mla_latent_bytes(&m, 1.0), 656.0, 0);
    assert_rel_close(arch_kv_bytes_per_token(&m, 2.0), 78324.0, 0);
    assert_rel_close(arch_kv_bytes_per_token(&m, 1.0), 48068.0, 0);
    /* the indexer reads its cache at those bytes: 100,000 - 4,096 more keys x 132 B a layer */
    assert_rel_close(i2->bytes - i1->bytes, 132.0 * (100000.0 - 4096.0), 1e-12);
}

static void memory_counts_the_state_in_the_max_batch(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_model m;
    import_ok("nemotron-nano-9b-v2.json", &m);
    const struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_mem_opts o = memory_default_opts();
    struct llmroof_memory mem;
    assert_int_equal(memory_eval(&m, gpu(&cat, "h100"), 1, &dt, 8192, &o, &mem, NULL), LLMROOF_OK);
    assert_rel_close(mem.state_bytes_per_seq, 72769536.0, 0);
    /* each sequence: 8192 tokens x 16,384 B of KV + 72,769,536 B of state */
    assert_rel_close(mem.max_batch, floor(mem.kv_capacity_bytes_per_gpu / (8192.0 * 16384.0 + 72769536.0)), 0);
    /* the state in fp32 (--state-dtype fp32, vLLM --mamba-cache-dtype float32): 36,384,768 x 4 B =
     * 145,539,072 B per sequence, the KV unchanged; max batch = capacity / (8192 x 16,384 +
     * 145,539,072): 58,130,486,272 / 279,756,800 = 207.8 -> 207 (324 at 16 bits, 2048 tokens) */
    const struct llmroof_dtypes dt32 = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, true, LLMROOF_FP32, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory m32;
    assert_int_equal(memory_eval(&m, gpu(&cat, "h100"), 1, &dt32, 8192, &o, &m32, NULL), LLMROOF_OK);
    assert_rel_close(m32.state_bytes_per_seq, 145539072.0, 0);
    assert_rel_close(m32.kv_bytes_per_token, mem.kv_bytes_per_token, 0);
    assert_rel_close(m32.max_batch, floor(m32.kv_capacity_bytes_per_gpu / (8192.0 * 16384.0 + 145539072.0)), 0);
    assert_true(m32.max_batch < mem.max_batch);
    /* a decode step reads and writes the state once per sequence: 2 x 1,347,584 x (4 - 2) B =
     * 5,390,336 B more per Mamba layer and sequence */
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(&m, 1, &sh, NULL), LLMROOF_OK);
    struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o16, o32;
    ops_build(&m, &sh, &dt, &b, &o16);
    ops_build(&m, &sh, &dt32, &b, &o32);
    assert_rel_close(o32.op[LLMROOF_OP_LINEAR_MIX].bytes - o16.op[LLMROOF_OP_LINEAR_MIX].bytes, 5390336.0, 1e-12);
    /* an fp8 KV cache halves the K/V, not the state (vLLM's mamba_cache_dtype "auto" is the model
     * dtype whatever --kv-cache-dtype says): 72,769,536 B of state beside 8192 x 8192 B of KV a
     * sequence; on one H100 57,336,819,098 / (67,108,864 + 72,769,536) = 409.9 -> 409 */
    const struct llmroof_dtypes dt8 = { LLMROOF_BF16, LLMROOF_FP8, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_memory m8;
    assert_int_equal(memory_eval(&m, gpu(&cat, "h100"), 1, &dt8, 8192, &o, &m8, NULL), LLMROOF_OK);
    assert_rel_close(m8.state_bytes_per_seq, 72769536.0, 0);
    assert_rel_close(m8.kv_bytes_per_token, mem.kv_bytes_per_token / 2.0, 0);
    assert_rel_close(m8.max_batch, floor(m8.kv_capacity_bytes_per_gpu / (8192.0 * 8192.0 + 72769536.0)), 0);
    /* Kimi-Linear's KDA state is fp32 by default (vLLM's kda_state_dtype): 20 KDA layers x
     * (32 x 128 x 128 recurrent + 3 x 4096 x 3 conv = 561,152 elements) x 4 B = 44,892,160 B */
    struct llmroof_model kimi;
    import_ok("kimi-linear-48b-a3b.json", &kimi);
    assert_true(kimi.lin_state_dtype_set && kimi.lin_state_dtype == LLMROOF_FP32);
    const struct llmroof_dtypes kdt = ckpt_dtypes(&kimi, NULL, dt, true);
    struct llmroof_memory mk;
    assert_int_equal(memory_eval(&kimi, gpu(&cat, "h200"), 1, &kdt, 4096, &o, &mk, NULL), LLMROOF_OK);
    assert_rel_close(mk.state_bytes_per_seq, 44892160.0, 0);
    struct llmroof_oplist o8;
    ops_build(&m, &sh, &dt8, &b, &o8);
    assert_true(o8.op[LLMROOF_OP_LINEAR_MIX].bytes >= o16.op[LLMROOF_OP_LINEAR_MIX].bytes - 1.0);
    catalog_free(&cat);
}

/* Reads fixture `file` with the member `key` (and its value, up to the next member or the object's
 * end) taken out, optionally `extra` members added first, and imports it: the error or 0. */
static int import_without(const char *file, const char *key, const char *extra, struct llmroof_model *m,
                          struct llmroof_err *err)
{
    char path[512], *text, warn[2048];
    size_t len;
    snprintf(path, sizeof path, "%s/hf/%s", LLMROOF_TEST_FIXTURES, file);
    assert_int_equal(catalog_read_file(path, 1 << 20, &text, &len, err), 0);
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    char *at = strstr(text, quoted);
    assert_non_null(at);
    /* the member runs to the comma after its value at depth 0 (arrays and objects skipped) */
    int depth = 0;
    char *p = at + strlen(quoted);
    for (; *p; p++) {
        if (*p == '[' || *p == '{')
            depth++;
        else if (*p == ']' || *p == '}') {
            if (depth == 0)
                break;
            depth--;
        } else if (*p == ',' && depth == 0) {
            p++;
            break;
        }
    }
    memmove(at, p, strlen(p) + 1);
    char *doc = malloc(strlen(text) + (extra ? strlen(extra) : 0) + 2);
    assert_non_null(doc);
    const char *brace = strchr(text, '{');
    assert_non_null(brace);
    sprintf(doc, "{%s%s", extra ? extra : "", brace + 1);
    int rc = catalog_model_from_hf_warn(doc, strlen(doc), file, "x", m, warn, sizeof warn, err);
    free(doc);
    free(text);
    return rc;
}

/* A hybrid or DSA config without the field that places its layers would read as a plain
 * transformer (Qwen3-Next at 79.4 B parameters and 98,304 B of KV a token, not 24,576 and its
 * DeltaNet state; DeepSeek-V3.2 as dense MLA): each is refused naming the field (review of
 * session 35). Jamba's experts keep their own period whichever field places the mixers, and a
 * window its pattern places nowhere is refused, except Jamba's, which windows its attention. */
static void hybrid_configs_without_their_pattern_are_refused(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "qwen3-next-80b-a3b.json", "full_attention_interval" },
        { "nemotron-nano-9b-v2.json", "hybrid_override_pattern" },
        { "minimax-text-01.json", "attn_type_list" },
        { "jamba-v0.1.json", "attn_layer_period" },
        { "kimi-linear-48b-a3b.json", "linear_attn_config" },
        { "granite-4.0-h-tiny.json", "layer_types" },
        { "deepseek-v3.2-exp.json", "index_topk" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct llmroof_model m;
        struct llmroof_err err = { 0 };
        assert_int_equal(import_without(cases[i][0], cases[i][1], NULL, &m, &err), LLMROOF_EINPUT);
        char want[96];
        snprintf(want, sizeof want, "field '%s' is missing", cases[i][1]);
        if (!strstr(err.msg, want)) {
            print_error("%s: %s\n", cases[i][0], err.msg);
            fail();
        }
    }
    /* Jamba-v0.1 with the older layers_block_type list instead of its periods: attention at 4 and
     * 12 of 32 ... as before, and MoE on the odd layers (expert period 2, offset 1 kept), 16 of 32 */
    struct llmroof_model ref, m;
    struct llmroof_err err = { 0 };
    import_ok("jamba-v0.1.json", &ref);
    char lbt[1024] = "\"layers_block_type\": [";
    for (int i = 0; i < 32; i++)
        strcat(lbt, i % 8 == 4 ? "\"attention\"," : "\"mamba\",");
    lbt[strlen(lbt) - 1] = ']';
    strcat(lbt, ",");
    assert_int_equal(import_without("jamba-v0.1.json", "attn_layer_period", lbt, &m, &err), 0);
    assert_string_equal(m.mixers, ref.mixers);
    assert_string_equal(m.ffns, ref.ffns);
    assert_int_equal((int)(strchr(m.ffns, 'E') - m.ffns), 1);
    /* Qwen3-Next with its window switched on: refused (no layer of its pattern slides) */
    assert_int_equal(import_without("qwen3-next-80b-a3b.json", "use_sliding_window",
                                     "\"use_sliding_window\": true, \"sliding_window\": 4096,", &m, &err),
                     LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'sliding_window' (4096) is set"));
    /* linear-attention heads TP cannot split are refused, as vLLM's divide() refuses them: Qwen3-Next
     * with 12 key heads (32 value heads are no multiple of 12), Nemotron-Nano with 3 Mamba-2 groups
     * at TP 8 (its 40 attention and 128 Mamba heads would split) */
    struct llmroof_shard sh;
    assert_int_equal(import_without("qwen3-next-80b-a3b.json", "linear_num_key_heads", "\"linear_num_key_heads\": 12,",
                                     &m, &err), 0);
    assert_int_equal(ops_shard(&m, 1, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "32 linear-attention value heads and 12 key heads"));
    assert_int_equal(import_without("nemotron-nano-9b-v2.json", "n_groups", "\"n_groups\": 3,", &m, &err), 0);
    assert_int_equal(ops_shard(&m, 1, &sh, &err), 0);
    assert_int_equal(ops_shard(&m, 8, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "128 Mamba-2 heads in 3 groups"));
    /* Jamba with a 4096 window: its 4 attention layers slide */
    assert_int_equal(import_without("jamba-v0.1.json", "sliding_window", "\"sliding_window\": 4096,", &m, &err), 0);
    assert_int_equal((int)m.window, 4096);
    assert_null(strchr(m.mixers, 'A'));
    assert_int_equal((int)(strchr(m.mixers, 'W') - m.mixers), 4);
}

static void python_json_and_unknown_fields(void **state)
{
    (void)state;
    struct llmroof_model m;
    struct llmroof_err err = { 0 };
    char warn[1024];
    /* a sliding window of Infinity is full attention; NaN where no number is needed is harmless */
    static const char inf[] = "{\"model_type\": \"seed_oss\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                              "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                              "\"max_position_embeddings\": 4096, \"sliding_window\": Infinity, \"initializer_range\": NaN,"
                              "\"note\": \"Infinity stays a string\"}";
    assert_int_equal(catalog_model_from_hf_warn(inf, sizeof inf - 1, "inf.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_int_equal(m.window, 0);
    assert_non_null(strstr(warn, "field 'note' is not known")); /* a warning: it names no shape */
    /* an unknown field that names a shape is an error naming it */
    static const char bad[] = "{\"model_type\": \"some_new_model\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                              "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                              "\"max_position_embeddings\": 4096, \"num_memory_slots\": 8}";
    assert_int_equal(catalog_model_from_hf_warn(bad, sizeof bad - 1, "bad.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'num_memory_slots'"));
    /* a new model type made of known fields imports without new code (with a warning) */
    static const char ok[] = "{\"model_type\": \"some_new_model\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                             "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                             "\"max_position_embeddings\": 4096, \"num_key_value_heads\": 2}";
    assert_int_equal(catalog_model_from_hf_warn(ok, sizeof ok - 1, "ok.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_int_equal(m.kv_heads, 2);
    assert_non_null(strstr(warn, "has no rules of its own: assumed a gated (3-matrix) MLP (hidden_act 'not given')"));
    /* with a GELU activation such a type's MLP is two matrices, and a norm_type naming layer norm a
     * LayerNorm (a review: Phi-2 at hidden 2,560 had read 3.618 B for 2.78): 4 x 64^2 + 2 x 64 x 128
     * = 32,768 weights a layer, not 4 x 64^2 + 3 x 64 x 128 = 40,960 */
    static const char gelu[] = "{\"model_type\": \"some_new_model\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                               "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                               "\"max_position_embeddings\": 4096, \"num_key_value_heads\": 4, \"hidden_act\": \"gelu_new\","
                               "\"norm_type\": \"layer_norm\"}";
    assert_int_equal(catalog_model_from_hf_warn(gelu, sizeof gelu - 1, "gelu.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_int_equal(m.mlp, LLMROOF_MLP_PLAIN);
    assert_int_equal(m.norm, LLMROOF_NORM_LAYER);
    assert_non_null(strstr(warn, "assumed a 2-matrix MLP (hidden_act 'gelu_new'), LayerNorm"));
    /* a family with rules of its own warns of a field a typo away from one it knows, and of a
     * config with no num_key_value_heads (MHA, as transformers defaults it): Llama-3-8B's
     * num_key_value_head had imported as 32 KV heads without a word (a review) */
    static const char typo[] = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                               "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                               "\"max_position_embeddings\": 4096, \"num_key_value_head\": 2}";
    assert_int_equal(catalog_model_from_hf_warn(typo, sizeof typo - 1, "typo.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_int_equal(m.kv_heads, 4);
    assert_non_null(strstr(warn, "field 'num_key_value_head' is not known to llmroof and is ignored: "
                                 "'num_key_value_heads' misspelt?"));
    assert_non_null(strstr(warn, "no 'num_key_value_heads': every attention head keeps its own K/V (MHA)"));
    /* per-layer lists (Hunyuan-A13B's moe_topk, moe_intermediate_size, num_shared_expert): one value
     * throughout reads as that value, a list that varies is an error naming the field */
    import_ok("hunyuan-a13b.json", &m);
    assert_int_equal(m.moe_top_k, 8);
    assert_int_equal(m.moe_intermediate, 3072);
    assert_int_equal(m.moe_shared, 1);
    static const char var[] = "{\"model_type\": \"hunyuan_v1_moe\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                              "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                              "\"max_position_embeddings\": 4096, \"num_experts\": 4, \"moe_topk\": [2, 1]}";
    assert_int_equal(catalog_model_from_hf_warn(var, sizeof var - 1, "var.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'moe_topk' varies from layer to layer"));
    /* layers_block_type, the older spelling of layer_types: 1 attention and 1 Mamba-2 layer */
    static const char lbt[] = "{\"model_type\": \"granitemoehybrid\", \"hidden_size\": 64, \"num_hidden_layers\": 2,"
                              "\"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 128,"
                              "\"max_position_embeddings\": 4096, \"layers_block_type\": [\"mamba\", \"attention\"],"
                              "\"mamba_n_heads\": 4, \"mamba_d_head\": 32, \"mamba_d_state\": 16}";
    assert_int_equal(catalog_model_from_hf_warn(lbt, sizeof lbt - 1, "lbt.json", "x", &m, warn, sizeof warn, &err),
                     LLMROOF_OK);
    assert_string_equal(m.mixers, "LA");
    assert_int_equal(m.linear_kind, LLMROOF_LINEAR_MAMBA2);
    /* a Nemotron-H config as the Hub serves it: time_step_limit [0.0, Infinity] */
    assert_int_equal(import_warn("nemotron-nano-9b-v2.json", &m, warn, sizeof warn, &err), LLMROOF_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(twenty_one_families_import_with_their_model_card_counts),
        cmocka_unit_test(qwen3_5_imports_as_its_catalog_entries),
        cmocka_unit_test(nemotron_h_mamba2_layer_by_hand),
        cmocka_unit_test(a_mamba2_group_is_copied_to_every_rank),
        cmocka_unit_test(glm_4_7_flash_mla_without_head_dim_by_hand),
        cmocka_unit_test(compressed_tensors_checkpoints_by_hand),
        cmocka_unit_test(deepseek_v3_type_with_index_fields_keeps_dsa),
        cmocka_unit_test(gated_deltanet_layer_by_hand),
        cmocka_unit_test(kimi_delta_attention_layer_by_hand),
        cmocka_unit_test(qwen3_next_ships_one_mtp_layer),
        cmocka_unit_test(config_state_dtype_is_the_default),
        cmocka_unit_test(engine_state_dtype_default),
        cmocka_unit_test(hybrid_configs_without_their_pattern_are_refused),
        cmocka_unit_test(falcon_h1_parallel_mixers_by_hand),
        cmocka_unit_test(nemotron_nas_block_configs_by_hand),
        cmocka_unit_test(jamba_mamba1_layers_by_hand),
        cmocka_unit_test(hybrid_decode_is_flat_in_context_for_its_linear_layers),
        cmocka_unit_test(dsa_decode_attention_stops_growing_past_top_k),
        cmocka_unit_test(memory_counts_the_state_in_the_max_batch),
        cmocka_unit_test(python_json_and_unknown_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
