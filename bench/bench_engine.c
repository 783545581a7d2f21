/* bench_engine.c - engine-only speed: full estimates (prefill + exact mean TPOT) per second
 * on one core, cycling through every catalog model x GPU x TP in {1,2,4,8} that divides the
 * heads, at batch 16, prompt 512, output 1536. Also the sweep row (estimate + memory fit).
 *   bench_engine DATA_DIR [SECONDS [estimate|sweep]]   (the last: only that part, for profiling) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/catalog.h"
#include "model/estimate.h"
#include "fit/sweep.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* CPU time of this process: on a shared machine the rate per CPU second is the figure that
 * does not move with the other processes' load (wall time includes the time not scheduled) */
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* Full estimates of every configuration in turn for `secs` seconds; returns a checksum. */
static double bench_estimates(const struct llmroof_setup *setups, size_t n, double secs)
{
    const struct llmroof_request req = { 16, 512, 1536 };
    struct llmroof_estimate e;
    struct llmroof_err err = { 0 };
    double sink = 0, t;
    long count = 0;
    const double t0 = now_s(), c0 = cpu_s();
    do {
        for (size_t i = 0; i < n; i++) {
            estimate_run(&setups[i], &req, &e, &err);
            sink += e.tpot_s;
        }
        count += (long)n;
        t = now_s();
    } while (t - t0 < secs);
    const double c = cpu_s() - c0;
    printf("estimate: %ld estimates in %.3f s = %.0f estimates/s (%zu configurations; checksum %.6g)\n", count, t - t0,
           (double)count / (t - t0), n, sink);
    printf("estimate: %.3f s of CPU = %.0f estimates per CPU second\n", c, (double)count / c);
    return sink;
}

/* Sweep rows (estimate + memory fit) of every configuration for `secs` seconds. */
static double bench_sweep(const struct llmroof_setup *setups, size_t n, double secs)
{
    struct sweep_row row;
    double sink = 0, t;
    long count = 0;
    const double t0 = now_s();
    do {
        for (size_t i = 0; i < n; i++) {
            sweep_eval(setups[i].model, setups[i].gpu, setups[i].tp, 16, 512, 1536, &setups[i].dt, &row);
            sink += row.tpot_s;
        }
        count += (long)n;
        t = now_s();
    } while (t - t0 < secs);
    printf("sweep row (estimate + memory): %.0f rows/s\n", (double)count / (t - t0));
    return sink;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_engine DATA_DIR [SECONDS [estimate|sweep]]\n");
        return 2;
    }
    double secs = argc > 2 ? atof(argv[2]) : 2.0;
    const char *only = argc > 3 ? argv[3] : "";
    const bool run_estimate = strcmp(only, "sweep") != 0, run_sweep = strcmp(only, "estimate") != 0;
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
                                                      { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false },
                                                      roofline_default_effs(&cat.gpus[g]) , { 0 } };
            }
    double sink = 0;
    if (run_estimate)
        sink += bench_estimates(setups, n, secs);
    if (run_sweep)
        sink += bench_sweep(setups, n, secs);
    catalog_free(&cat);
    return sink > 0 ? 0 : 1;
}
