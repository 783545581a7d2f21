/* fuzz_baseline.c - check's baseline reader (one JSON Lines row). An accepted row must
 * survive a round trip: rendered again by sweep_jsonl_row and re-read, it gives the same
 * inputs and the same numbers to the 10 significant digits the writer prints. */
#include <math.h>

#include "fuzz.h"
#include "fit/baseline.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

static bool close_enough(double a, double b)
{
    if (a == b)
        return true;
    return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct llmroof_err err = { 0 };
    struct sweep_row a, b;
    if (baseline_parse_row((const char *)data, size, "fuzz.jsonl", 1, &a, &err) != 0) {
        FUZZ_CHECK(err.msg[0]);
        return 0;
    }
    struct sbuf out;
    sbuf_init(&out);
    sweep_jsonl_row(&a, &out);
    if (sbuf_failed(&out))
        abort();
    int rc = baseline_parse_row(out.data, out.len, "roundtrip.jsonl", 1, &b, &err);
    if (rc)
        fprintf(stderr, "round trip of %.*s failed: %s\n", (int)out.len, out.data, err.msg);
    FUZZ_CHECK(rc == 0);
    FUZZ_CHECK(strcmp(a.model, b.model) == 0 && strcmp(a.gpu, b.gpu) == 0);
    FUZZ_CHECK(a.tp == b.tp && a.batch == b.batch && a.prompt == b.prompt && a.output == b.output);
    FUZZ_CHECK(a.dt.weight == b.dt.weight && a.dt.kv == b.dt.kv && a.dt.act == b.dt.act);
    FUZZ_CHECK(a.valid == b.valid);
    if (a.valid) {
        FUZZ_CHECK(a.fits == b.fits);
        FUZZ_CHECK(!strcmp(a.prefill_bound, b.prefill_bound) && !strcmp(a.decode_bound, b.decode_bound));
        for (int k = 0; k < SWEEP_NUM_FIELDS; k++) {
            double x = sweep_num_field(&a, k), y = sweep_num_field(&b, k);
            FUZZ_CHECK(isfinite(x));
            FUZZ_CHECK(close_enough(x, y));
        }
    } else {
        FUZZ_CHECK(strcmp(a.reason, b.reason) == 0);
    }
    sbuf_free(&out);
    return 0;
}
