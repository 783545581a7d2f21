/* fuzz_csv.c - the CSV readers: published measurements (validate, calibrate), request
 * traces and prompt/output pair workloads (simulate, plan), per-operator kernel times
 * (validate --ops). The first byte picks the reader. Invariants: accepted rows are in range (lengths >= 1, arrivals finite, sorted),
 * every measurement row carries the line it came from. */
#include <math.h>

#include "fuzz.h"
#include "fit/opval.h"
#include "fit/validate.h"
#include "serve/workload.h"

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
    switch (data[0] % 4) {
    case 0: {
        struct val_row *rows = NULL;
        size_t n = 0;
        if (val_parse_csv(text, len, "fuzz.csv", &rows, &n, &err) == 0) {
            for (size_t i = 0; i < n; i++)
                FUZZ_CHECK(rows[i].line >= 2 && (i == 0 || rows[i].line > rows[i - 1].line));
            free(rows);
        } else {
            FUZZ_CHECK(err.msg[0] && rows == NULL);
        }
        break;
    }
    case 1: {
        struct trace_req *t = NULL;
        size_t n = 0;
        if (workload_parse_trace(text, len, "trace.csv", 10000, &t, &n, &err) == 0) {
            FUZZ_CHECK(n >= 1 && n <= 10000);
            for (size_t i = 0; i < n; i++) {
                FUZZ_CHECK(isfinite(t[i].arrival_s) && t[i].arrival_s >= 0);
                FUZZ_CHECK(t[i].prompt >= 1 && t[i].output >= 1);
                FUZZ_CHECK(i == 0 || t[i].arrival_s >= t[i - 1].arrival_s);
            }
            free(t);
        } else {
            FUZZ_CHECK(err.msg[0]);
        }
        break;
    }
    case 3: {
        struct opval_row *r = NULL;
        size_t n = 0;
        if (opval_parse_csv(text, len, "ops.csv", &r, &n, &err) == 0) {
            FUZZ_CHECK(n >= 1);
            for (size_t i = 0; i < n; i++)
                FUZZ_CHECK(r[i].tokens >= 1 && r[i].batch >= 1 && r[i].tokens % r[i].batch == 0 &&
                           r[i].measured_s > 0 && r[i].measured_s <= 1e3 && r[i].op < LLMROOF_OP_COUNT &&
                           !op_is_collective(r[i].op));
            free(r);
        } else {
            FUZZ_CHECK(err.msg[0] && r == NULL);
        }
        break;
    }
    default: {
        struct workload w;
        if (workload_parse_pairs(text, len, "pairs.csv", &w, &err) == 0) {
            FUZZ_CHECK(w.npairs >= 1);
            for (size_t i = 0; i < 2 * w.npairs; i++)
                FUZZ_CHECK(w.pairs[i] >= 1);
            workload_free(&w);
        } else {
            FUZZ_CHECK(err.msg[0]);
        }
        break;
    }
    }
    return 0;
}
