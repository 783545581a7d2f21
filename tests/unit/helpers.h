/* helpers.h - shared test helpers (cmocka). */
#ifndef LLMROOF_TEST_HELPERS_H
#define LLMROOF_TEST_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/catalog.h"

/* Relative closeness that prints both values (cmocka's float compare is absolute). */
#define assert_rel_close(actual, expected, rtol) \
    assert_rel_close_at((double)(actual), (double)(expected), (rtol), #actual, __FILE__, __LINE__)

static inline void assert_rel_close_at(double a, double e, double rtol, const char *what, const char *file, int line)
{
    double scale = fabs(e) > 1e-300 ? fabs(e) : 1.0;
    if (!(fabs(a - e) <= rtol * scale)) {
        print_error("%s = %.17g, expected %.17g (rtol %g, off by %.3g%%)\n", what, a, e, rtol,
                    100.0 * fabs(a - e) / scale);
        _fail(file, line);
    }
}

/* Loads the shipped catalog; fails the test on error. */
static inline void load_shipped(struct llmroof_catalog *cat)
{
    struct llmroof_err err = { 0 };
    catalog_init(cat);
    if (catalog_add_gpus_file(cat, LLMROOF_TEST_DATA_DIR "/gpus.json", false, &err) ||
        catalog_add_models_file(cat, LLMROOF_TEST_DATA_DIR "/models.json", false, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

static inline const struct llmroof_model *model(const struct llmroof_catalog *cat, const char *id)
{
    const struct llmroof_model *m = catalog_find_model(cat, id);
    assert_non_null(m);
    return m;
}

static inline const struct llmroof_gpu *gpu(const struct llmroof_catalog *cat, const char *id)
{
    const struct llmroof_gpu *g = catalog_find_gpu(cat, id);
    assert_non_null(g);
    return g;
}

/* Adds the shipped engines.json to `cat` (once a test, before any lookup) and returns profile `id`. */
static inline const struct llmroof_engine *shipped_engine(struct llmroof_catalog *cat, const char *id)
{
    struct llmroof_err err = { 0 };
    if (!catalog_find_engine(cat, "vllm") &&
        catalog_add_engines_file(cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    const struct llmroof_engine *en = catalog_find_engine(cat, id);
    assert_non_null(en);
    return en;
}

#endif
