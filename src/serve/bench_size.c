/* bench_size.c - trtllm-bench's sizing of a throughput run (see bench_size.h).
 *
 * The rule, as tensorrt_llm/bench/build/tuning.py states it (unchanged in its rounding across the
 * stored versions to 2026; bench/tuning/heuristics.py keeps it):
 *   memory   = GPU total GiB x tp x pp;  weights = params x bytes / 2^30
 *   requests = (memory - weights) x fraction / (K/V bytes per token / 2^30 x (ISL + OSL))
 *   raw_bs   = min(requests, 4096) / pp;  raw_tok = min(raw_bs x (1 + ISL / OSL), 32768)
 *   batch    = raw_bs < 256: max(64, 32 ceil(raw_bs / 32)); < 1024: 128 ceil(raw_bs / 128);
 *              else 256 ceil(raw_bs / 256)
 *   tokens   = raw_tok < 4096: max(2048, 256 ceil(raw_tok / 256)); < 8192: 512 ceil(raw_tok / 512);
 *              else 1024 ceil(raw_tok / 1024)
 * and, on the PyTorch path without chunked prefill, tokens >= the longest input + batch
 * (benchmark/utils/general.py get_settings, PRs #4133 and #5625). A quantisation outside NVFP4,
 * FP8, FP8 block scales and none keeps BuildConfig's defaults (build.py TUNED_QUANTS). */
#include "serve/bench_size.h"

#include <math.h>

static long round_up(double x, double step)
{
    return (long)(step * ceil(x / step - 1e-9));
}

/* finetune_setting's rounding: below `low`, up to a multiple of `low_step` and at least `floor`;
 * below `mid`, up to a multiple of `mid_step`; else of `high_step` */
struct tier {
    double low, low_step, floor, mid, mid_step, high_step;
};

static long tiered(double x, struct tier t)
{
    if (x < t.low) {
        const long r = round_up(x, t.low_step);
        return r > (long)t.floor ? r : (long)t.floor;
    }
    return round_up(x, x < t.mid ? t.mid_step : t.high_step);
}

struct bench_size bench_size_trtllm(const struct bench_size_in *in)
{
    struct bench_size s = { in->default_batch, in->default_tokens, 0.0, false };
    const int pp = in->pp > 0 ? in->pp : 1;
    if (in->weight_bytes > 0 && in->kv_bytes_per_token > 0 && in->isl_mean + in->osl_mean > 0 && in->osl_mean > 0) {
        const double gib = 1073741824.0;
        const double memory = in->gpu_mem_gib * (double)(in->gpus > 0 ? in->gpus : 1);
        const double weights = in->params * in->weight_bytes / gib;
        const double cache = (memory - weights) * in->kv_fraction;
        const double req = cache / (in->kv_bytes_per_token / gib * (in->isl_mean + in->osl_mean));
        s.kv_requests = req > 0 ? req : 0;
        s.tuned = true;
        const double raw_bs = fmin(s.kv_requests, 4096.0) / (double)pp;
        const double raw_tok = fmin(raw_bs * (1.0 + in->isl_mean / in->osl_mean), 32768.0);
        s.max_batch = tiered(raw_bs, (const struct tier){ 256, 32, 64, 1024, 128, 256 });
        s.max_tokens = tiered(raw_tok, (const struct tier){ 4096, 256, 2048, 8192, 512, 1024 });
    }
    if (in->isl_floor && in->isl_max + s.max_batch > s.max_tokens)
        s.max_tokens = in->isl_max + s.max_batch;
    return s;
}
