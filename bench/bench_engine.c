/* bench_engine.c - engine-only speed: full estimates (prefill + exact mean TPOT) per second
 * on one core, cycling through every catalog model x GPU x TP in {1,2,4,8} that divides the
 * heads, at batch 16, prompt 512, output 1536. Also the sweep row (estimate + memory fit).
 *   bench_engine DATA_DIR [SECONDS]                                   */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "data/catalog.h"
#include "model/estimate.h"
#include "fit/sweep.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_engine DATA_DIR [SECONDS]\n");
        return 2;
    }
    double secs = argc > 2 ? atof(argv[2]) : 2.0;
    char path[4096];
    struct llmroof_catalog cat;
    struct llmroof_err err = { 0 };
    catalog_init(&cat);
    snprintf(path, sizeof path, "%s/gpus.json", argv[1]);
    if (catalog_add_gpus_file(&cat, path, false, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;
    snprintf(path, sizeof path, "%s/models.json", argv[1]);
    if (catalog_add_models_file(&cat, path, false, &err))
        return fprintf(stderr, "%s\n", err.msg), 1;

    /* the configurations, prepared once */
    static struct llmroof_setup setups[4096];
    size_t n = 0;
    for (size_t m = 0; m < cat.n_models; m++)
        for (size_t g = 0; g < cat.n_gpus; g++)
            for (int tp = 1; tp <= 8; tp *= 2) {
                struct llmroof_shard sh;
                if (ops_shard(&cat.models[m], tp, &sh, NULL) || n == 4096)
                    continue;
                setups[n++] = (struct llmroof_setup){ &cat.models[m], &cat.gpus[g], tp,
                                                      { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16 },
                                                      roofline_default_effs(&cat.gpus[g]) , { 0 } };
            }
    struct llmroof_request req = { 16, 512, 1536 };
    struct llmroof_estimate e;
    double sink = 0;
    long count = 0;
    double t0 = now_s(), t;
    do {
        for (size_t i = 0; i < n; i++) {
            estimate_run(&setups[i], &req, &e, &err);
            sink += e.tpot_s;
        }
        count += (long)n;
        t = now_s();
    } while (t - t0 < secs);
    printf("estimate: %ld estimates in %.3f s = %.0f estimates/s (%zu configurations; checksum %.6g)\n", count, t - t0,
           (double)count / (t - t0), n, sink);

    struct sweep_row row;
    count = 0;
    t0 = now_s();
    do {
        for (size_t i = 0; i < n; i++) {
            sweep_eval(setups[i].model, setups[i].gpu, setups[i].tp, 16, 512, 1536, &setups[i].dt, &row);
            sink += row.tpot_s;
        }
        count += (long)n;
        t = now_s();
    } while (t - t0 < secs);
    printf("sweep row (estimate + memory): %.0f rows/s\n", (double)count / (t - t0));
    catalog_free(&cat);
    return sink > 0 ? 0 : 1;
}
