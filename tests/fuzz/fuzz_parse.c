/* fuzz_parse.c - the strict value parsers behind every numeric, size, duration, list,
 * dtype, format and workload option. The first byte picks the parser. Invariants:
 * an accepted value is finite and inside the parser's documented range. */
#include <math.h>

#include "fuzz.h"
#include "base/dtype.h"
#include "base/parse.h"
#include "render/table.h"
#include "serve/workload.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static bool count_item(const char *item, void *ctx)
{
    FUZZ_CHECK(item[0] != '\0' && strchr(item, ',') == NULL);
    (*(long *)ctx)++;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *s = fuzz_cstr(data + 1, size - 1);
    double v;
    int64_t i;
    switch (data[0] % 9) {
    case 0:
        if (parse_double(s, &v))
            FUZZ_CHECK(isfinite(v));
        break;
    case 1:
        if (parse_int64(s, -1000, 1000000000, &i))
            FUZZ_CHECK(i >= -1000 && i <= 1000000000);
        break;
    case 2:
        if (parse_bytes(s, &v))
            FUZZ_CHECK(isfinite(v) && v >= 0);
        break;
    case 3:
        if (parse_duration(s, &v))
            FUZZ_CHECK(isfinite(v) && v >= 0 && v <= 1e9);
        break;
    case 4: {
        long n = 0;
        if (parse_list(s, count_item, &n))
            FUZZ_CHECK(n >= 1);
        break;
    }
    case 5: {
        size_t bad = 0;
        if (!parse_utf8_valid((const char *)data + 1, size - 1, &bad))
            FUZZ_CHECK(bad < size - 1);
        break;
    }
    case 6: {
        enum llmroof_dtype d;
        if (dtype_parse(s, &d))
            FUZZ_CHECK(strcmp(dtype_name(d), s) == 0 || strlen(s) > 0);
        break;
    }
    case 7: {
        enum table_format f;
        if (table_parse_format(s, &f))
            FUZZ_CHECK(table_format_name(f) != NULL);
        break;
    }
    default: {
        struct workload w;
        struct llmroof_err err = { 0 };
        if (workload_parse(s, &w, &err) == 0) {
            struct llmroof_rng r;
            rng_seed(&r, 1);
            for (int k = 0; k < 8; k++) {
                long p, o;
                workload_sample(&w, &r, &p, &o);
                FUZZ_CHECK(p >= 1 && o >= 1);
            }
            workload_free(&w);
        } else {
            FUZZ_CHECK(err.msg[0]);
        }
        break;
    }
    }
    free(s);
    return 0;
}
