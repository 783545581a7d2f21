/* bench_size.h - how an engine's own offline benchmark sizes its server (TensorRT-LLM's
 * trtllm-bench throughput), so that `simulate --no-api-server` runs the batch limit and token
 * budget the published runs ran (docs/model.md "Benchmark harnesses").
 *
 * trtllm-bench picks max_batch_size and max_num_tokens itself when not told: it estimates how
 * many requests of the dataset's mean ISL + OSL the KV cache holds and rounds that up
 * (tensorrt_llm/bench/build/tuning.py calc_engine_setting and finetune_setting). Pure. */
#ifndef LLMROOF_BENCH_SIZE_H
#define LLMROOF_BENCH_SIZE_H

#include <stdbool.h>

struct bench_size_in {
    double gpu_mem_gib;   /* one GPU's total memory, GiB (pynvml total / 1024^3) */
    int gpus;             /* tp x pp */
    int pp;               /* pipeline stages */
    double params;        /* the checkpoint's parameters */
    double weight_bytes;  /* bytes per parameter of the quant algo: 2, 1 (fp8), 0.5 (nvfp4); 0 = a
                             quantisation the heuristic does not tune (the defaults below hold) */
    double kv_bytes_per_token; /* the whole model's K/V per token as the heuristic counts it, bytes:
                             2 x attention layers x max(tp, kv heads) x head size x bytes (MLA: layers
                             x (latent + rope) x bytes) */
    double isl_mean, osl_mean; /* the dataset's average input and output lengths, tokens */
    long isl_max;         /* its longest input, tokens */
    double kv_fraction;   /* of (memory - weights) taken for the K/V: 0.95 (the build), 0.90 (the
                             PyTorch throughput path passes --kv_cache_free_gpu_mem_fraction) */
    bool isl_floor;       /* without chunked prefill the PyTorch path raises max_num_tokens to the
                             longest input + max_batch_size (benchmark/utils/general.py get_settings) */
    long default_batch, default_tokens; /* BuildConfig's defaults, for an untuned quantisation */
};

struct bench_size {
    long max_batch;       /* max_batch_size */
    long max_tokens;      /* max_num_tokens */
    double kv_requests;   /* the estimate of requests the K/V holds (0 when untuned) */
    bool tuned;           /* false: an untuned quantisation took the defaults */
};

/* trtllm-bench's sizing of one run. */
struct bench_size bench_size_trtllm(const struct bench_size_in *in);

#endif
