/* bench_catalog.c - catalog loading speed: a models file of N entries (default 200,000, a
 * 50 MB document) built in memory and added with catalog_add_models_text, once with unique
 * ids and once with the last id repeating the first (the duplicate must be found). The id
 * checks are hashed, so time grows linearly; the pairwise check they replaced took 217 s
 * for 200,000 entries. Exits 1 when a load takes more than LIMIT CPU seconds (default 20;
 * CPU time, so that a shared machine's load does not decide).
 *   bench_catalog [N] [LIMIT]                                                   */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/catalog.h"
#include "base/sbuf.h"

static double now_s(clockid_t clk)
{
    struct timespec t;
    clock_gettime(clk, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void build(struct sbuf *b, long n, bool dup_last)
{
    sbuf_append(b, "{\"models\":[");
    for (long i = 0; i < n; i++)
        sbuf_printf(b,
                    "%s{\"id\":\"m%ld\",\"name\":\"n\",\"hidden_size\":4096,\"num_layers\":32,\"num_heads\":32,"
                    "\"num_kv_heads\":8,\"intermediate_size\":14336,\"vocab_size\":128256,\"max_context\":8192,"
                    "\"tie_embeddings\":false,\"mlp\":\"gated\",\"norm\":\"rmsnorm\",\"source\":\"bench\"}\n",
                    i ? "," : "", dup_last && i == n - 1 ? 0L : i);
    sbuf_append(b, "]}\n");
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    double limit_s = argc > 2 ? atof(argv[2]) : 20.0;
    if (n < 2 || limit_s <= 0) {
        fprintf(stderr, "usage: bench_catalog [N >= 2] [LIMIT_SECONDS]\n");
        return 2;
    }
    int fail = 0;
    for (int dup = 0; dup < 2; dup++) {
        struct sbuf b;
        sbuf_init(&b);
        build(&b, n, dup);
        if (sbuf_failed(&b)) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        struct llmroof_catalog cat;
        struct llmroof_err err = { 0 };
        catalog_init(&cat);
        double t0 = now_s(CLOCK_MONOTONIC), c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
        int rc = catalog_add_models_text(&cat, b.data, b.len, "bench.json", false, &err);
        double wall = now_s(CLOCK_MONOTONIC) - t0, dt = now_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        bool ok = dup ? rc != 0 && strstr(err.msg, "duplicates another entry") : rc == 0 && cat.n_models == (size_t)n;
        printf("%s: %ld entries, %.1f MB, %.2f s CPU, %.2f s wall (%.0f entries/s CPU)%s\n",
               dup ? "duplicate last" : "unique ids", n, (double)b.len / 1e6, dt, wall, (double)n / dt,
               ok ? "" : " WRONG RESULT");
        if (!ok || dt > limit_s)
            fail = 1;
        catalog_free(&cat);
        sbuf_free(&b);
    }
    return fail;
}
