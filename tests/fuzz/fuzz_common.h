/* fuzz_common.h - fixed catalog entries the fuzz targets evaluate fuzzed entries
 * against, and the finiteness check of a sweep row. The loader's promise under test:
 * an entry it accepts yields finite estimates (or a clear "does not fit"). */
#ifndef LLMROOF_FUZZ_COMMON_H
#define LLMROOF_FUZZ_COMMON_H

#include <math.h>

#include "fuzz.h"
#include "data/catalog.h"
#include "fit/sweep.h"

static const char fuzz_gpu_json[] =
    "{\"gpus\":[{\"id\":\"v100-sxm2-32gb\",\"name\":\"V100\",\"memory_bytes\":34359738368,"
    "\"memory_bandwidth_Bps\":900000000000,\"peak_flops\":{\"fp32\":15700000000000,\"fp16\":125000000000000},"
    "\"interconnect\":{\"kind\":\"nvlink\",\"bandwidth_Bps\":150000000000,\"latency_s\":6.6e-06,"
    "\"hop_latency_s\":6e-07},\"efficiency\":{\"compute\":0.65,\"memory\":0.8,\"comm\":0.7},"
    "\"step_overhead_s\":0.0002,\"gpus_per_node\":8,\"source\":\"fuzz fixture\"}]}";

static const char fuzz_model_json[] =
    "{\"models\":[{\"id\":\"llama-2-7b\",\"name\":\"Llama-2-7B\",\"hidden_size\":4096,\"num_layers\":32,"
    "\"num_heads\":32,\"num_kv_heads\":32,\"head_dim\":128,\"intermediate_size\":11008,\"vocab_size\":32000,"
    "\"max_context\":4096,\"tie_embeddings\":false,\"mlp\":\"gated\",\"norm\":\"rmsnorm\",\"qkv_bias\":false,"
    "\"o_bias\":false,\"mlp_bias\":false,\"parallel_attn\":false,\"source\":\"fuzz fixture\"}]}";

/* Evaluates m on g at a few shapes; every number of a valid row must be finite. */
static inline void fuzz_eval(const struct llmroof_model *m, const struct llmroof_gpu *g)
{
    static const int tps[] = { 1, 2, 8 };
    static const long batches[] = { 1, 64 };
    struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    for (size_t i = 0; i < sizeof tps / sizeof tps[0]; i++)
        for (size_t j = 0; j < sizeof batches / sizeof batches[0]; j++) {
            struct sweep_row r;
            sweep_eval(m, g, tps[i], batches[j], 512, 16, &dt, &r);
            if (!r.valid)
                continue;
            for (int k = 0; k < SWEEP_NUM_FIELDS; k++)
                FUZZ_CHECK(isfinite(sweep_num_field(&r, k)));
        }
}

#endif
