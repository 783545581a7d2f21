/* dtype.h - numeric formats for weights, KV cache and compute. */
#ifndef LLMROOF_DTYPE_H
#define LLMROOF_DTYPE_H

#include <stdbool.h>

enum llmroof_dtype {
    LLMROOF_FP32,
    LLMROOF_TF32, /* a compute mode (fp32 storage, tensor-core math), never a storage format */
    LLMROOF_FP16,
    LLMROOF_BF16,
    LLMROOF_FP8,
    LLMROOF_INT8,
    LLMROOF_INT4,
    LLMROOF_FP4,  /* e2m1 with block scales: NVFP4 (one e4m3 scale per 16 -> 4.5 bits), MXFP4 via --weight-bits 4.25 */
    LLMROOF_DTYPE_COUNT
};

/* Canonical lowercase name ("fp16"). */
const char *dtype_name(enum llmroof_dtype d);

/* Parses a dtype name, case-insensitively; accepts common spellings
 * ("float16", "half", "bfloat16", "float32", "e4m3"). Returns true on success. */
bool dtype_parse(const char *s, enum llmroof_dtype *out);

/* Bytes per element when stored: fp32 4, fp16/bf16 2, fp8/int8 1, int4 0.5, fp4 0.5625 (NVFP4
 * incl. its e4m3 scale per 16 elements).
 * tf32 is stored as fp32 (4). */
double dtype_bytes(enum llmroof_dtype d);

/* True when d can be a storage format for weights or KV cache (not tf32). */
bool dtype_is_storage(enum llmroof_dtype d);

/* True when d can store a recurrent (SSM / linear-attention) state: fp32, fp16, bf16 or fp8. */
bool dtype_is_state(enum llmroof_dtype d);

#endif
