/* fuzz_catalog.c - the catalog loaders: GPUs, models, engines, the validation map and
 * the uncertainty bands. The first byte picks the loader, the rest is the file.
 * Accepted GPUs and models are then evaluated (fuzz_eval): validation must keep
 * every accepted entry inside the range where estimates are finite. */
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    struct llmroof_err err = { 0 };
    struct llmroof_catalog cat;
    catalog_init(&cat);
    switch (data[0] % 5) {
    case 0:
        if (catalog_add_models_text(&cat, fuzz_model_json, sizeof fuzz_model_json - 1, "fixture", false, &err))
            abort();
        if (catalog_add_gpus_text(&cat, text, len, "fuzz.json", false, &err) == 0) {
            for (size_t i = 0; i < cat.n_gpus; i++)
                fuzz_eval(&cat.models[0], &cat.gpus[i]);
        } else {
            FUZZ_CHECK(cat.n_gpus == 0 && err.msg[0]); /* nothing added, and a message */
        }
        break;
    case 1:
        if (catalog_add_gpus_text(&cat, fuzz_gpu_json, sizeof fuzz_gpu_json - 1, "fixture", false, &err))
            abort();
        if (catalog_add_models_text(&cat, text, len, "fuzz.json", false, &err) == 0) {
            for (size_t i = 0; i < cat.n_models; i++)
                fuzz_eval(&cat.models[i], &cat.gpus[0]);
        } else {
            FUZZ_CHECK(cat.n_models == 0 && err.msg[0]);
        }
        break;
    case 2:
        if (catalog_add_engines_text(&cat, text, len, "fuzz.json", false, &err) != 0)
            FUZZ_CHECK(cat.n_engines == 0 && err.msg[0]);
        break;
    case 3: {
        struct llmroof_valmap *m = malloc(sizeof *m);
        if (!m)
            abort();
        if (catalog_load_valmap(text, len, "fuzz.json", m, &err) != 0)
            FUZZ_CHECK(err.msg[0]);
        free(m);
        break;
    }
    default: {
        struct llmroof_uncertainty u;
        if (catalog_load_uncertainty(text, len, "fuzz.json", &u, &err) == 0) {
            const struct llmroof_band *b[] = { &u.ttft, &u.tpot, &u.e2e };
            for (int i = 0; i < 3; i++)
                if (b[i]->present)
                    FUZZ_CHECK(isfinite(b[i]->low) && isfinite(b[i]->high) && b[i]->low > 0 && b[i]->low <= b[i]->high);
        } else {
            FUZZ_CHECK(err.msg[0]);
        }
        break;
    }
    }
    catalog_free(&cat);
    return 0;
}
