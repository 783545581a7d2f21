/* fuzz_hf.c - the HuggingFace config.json importer. An accepted config must pass the
 * catalog's own model check and give finite estimates on a fixed V100. */
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct llmroof_err err = { 0 };
    struct llmroof_model m;
    if (catalog_model_from_hf((const char *)data, size, "config.json", "fuzzed", &m, &err) != 0) {
        FUZZ_CHECK(err.msg[0]);
        return 0;
    }
    FUZZ_CHECK(catalog_check_model(&m, "fuzzed", &err) == 0);
    struct llmroof_catalog cat;
    catalog_init(&cat);
    if (catalog_add_gpus_text(&cat, fuzz_gpu_json, sizeof fuzz_gpu_json - 1, "fixture", false, &err))
        abort();
    fuzz_eval(&m, &cat.gpus[0]);
    catalog_free(&cat);
    return 0;
}
