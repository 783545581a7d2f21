/* test_arch.c - parameter and KV counts from shapes. */
#include "helpers.h"

#include "llmroof/arch.h"

static void llama_2_7b_parameter_count_by_hand(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_params p = arch_params(model(&cat, "llama-2-7b"));
    /* per layer: attention 4*4096^2 = 67,108,864; MLP 3*4096*11008 = 135,266,304;
     * norms 2*4096 = 8,192 -> 202,383,360; x32 = 6,476,267,520.
     * embedding 32000*4096 = 131,072,000; untied LM head the same; final norm 4096.
     * total = 6,476,267,520 + 2*131,072,000 + 4,096 = 6,738,415,616 */
    assert_rel_close(p.attention, 32.0 * 67108864.0, 0);
    assert_rel_close(p.total, 6738415616.0, 0);
    assert_rel_close(p.active, p.total, 0);
    catalog_free(&cat);
}

static void moe_active_parameters_count_top_k_experts(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_params p = arch_params(model(&cat, "mixtral-8x7b"));
    /* expert 3*4096*14336 = 176,160,768; router 4096*8 = 32,768.
     * total = 32*(attention 4096*4096*2 + 2*4096*1024 = 41,943,040 + 8*176,160,768 + 32,768 + 8,192)
     *       + 2*32000*4096 + 4096 = 46,702,792,704
     * active replaces 8 experts by 2: 46,702,792,704 - 32*6*176,160,768 = 12,879,925,248 */
    assert_rel_close(p.total, 46702792704.0, 0);
    assert_rel_close(p.active, 12879925248.0, 0);
    catalog_free(&cat);
}

static void every_model_matches_its_published_count(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < cat.n_models; i++) {
        const struct llmroof_model *m = &cat.models[i];
        assert_true(m->has_params_published);
        /* Falcon-40B's only published figure is its nominal name "40B"; its shapes give
         * 41.3B (tied) or 41.8B (untied), so it is held to 5%, not 2% (models.md M9). */
        double tol = strcmp(m->id, "falcon-40b") == 0 ? 0.05 : 0.02;
        double total = arch_params(m).total;
        if (fabs(total / m->params_published - 1.0) > tol) {
            print_error("%s: derived %.4gB, published %.4gB\n", m->id, total / 1e9, m->params_published / 1e9);
            fail();
        }
    }
    catalog_free(&cat);
}

static void reference_sheet_counts_are_reproduced(void **state)
{
    /* ../shared/reference/models.md section 5, "computed" column */
    static const struct { const char *id; double billions; } ref[] = {
        { "llama-30b", 32.529 }, { "llama-65b", 65.286 }, { "llama-2-70b", 68.977 }, { "llama-3-8b", 8.030 },
        { "llama-3-70b", 70.554 }, { "llama-3.1-405b", 405.853 }, { "mistral-7b", 7.242 },
        { "qwen2.5-1.5b", 1.544 }, { "qwen2.5-7b", 7.616 }, { "qwen2.5-72b", 72.706 }, { "internlm-20b", 20.089 },
        { "falcon-40b", 41.303 }, { "gpt3-175b", 174.6 }, { "opt-66b", 65.720 },
    };
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++)
        assert_rel_close(arch_params(model(&cat, ref[i].id)).total / 1e9, ref[i].billions, 6e-4);
    catalog_free(&cat);
}

static void kv_elements_per_token(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    /* 2 * layers * kv_heads * head_dim (models.md section 6) */
    assert_rel_close(arch_kv_elems_per_token(model(&cat, "llama-2-7b")), 2.0 * 32 * 32 * 128, 0);   /* 262,144 */
    assert_rel_close(arch_kv_elems_per_token(model(&cat, "llama-2-70b")), 2.0 * 80 * 8 * 128, 0);   /* 163,840 */
    assert_rel_close(arch_kv_elems_per_token(model(&cat, "falcon-40b")), 2.0 * 60 * 8 * 64, 0);     /* 61,440 */
    assert_rel_close(arch_kv_elems_per_token(model(&cat, "internlm-20b")), 2.0 * 60 * 40 * 128, 0); /* 614,400 */
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(llama_2_7b_parameter_count_by_hand),
        cmocka_unit_test(moe_active_parameters_count_top_k_experts),
        cmocka_unit_test(every_model_matches_its_published_count),
        cmocka_unit_test(reference_sheet_counts_are_reproduced),
        cmocka_unit_test(kv_elements_per_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
