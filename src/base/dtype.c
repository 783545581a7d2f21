/* dtype.c - see llmroof/dtype.h */
#include "base/dtype.h"

#include <stddef.h>
#include <strings.h>

static const char *const names[LLMROOF_DTYPE_COUNT] = {
    "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4", "fp4"
};

/* Bytes per stored element. int4 packs two weights per byte; group scales are not
 * modelled (a g128 fp16 scale adds 2/128 = 1.6% and is left out, see docs/model.md). */
/* fp4 is NVFP4, the Blackwell tensor-core format: 4-bit e2m1 plus one e4m3 scale per 16
 * elements = 4.5 bits (NVIDIA, "Introducing NVFP4", 2025); MXFP4 (one e8m0 per 32, 4.25 bits,
 * OCP MX spec v1.0) is --weight-bits 4.25 or a model's checkpoint.expert_bits. */
static const double bytes[LLMROOF_DTYPE_COUNT] = { 4.0, 4.0, 2.0, 2.0, 1.0, 1.0, 0.5, 0.5625 };

const char *dtype_name(enum llmroof_dtype d)
{
    return (d >= 0 && d < LLMROOF_DTYPE_COUNT) ? names[d] : "?";
}

bool dtype_parse(const char *s, enum llmroof_dtype *out)
{
    static const struct { const char *alias; enum llmroof_dtype d; } aliases[] = {
        { "float32", LLMROOF_FP32 }, { "f32", LLMROOF_FP32 },
        { "float16", LLMROOF_FP16 }, { "half", LLMROOF_FP16 }, { "f16", LLMROOF_FP16 },
        { "bfloat16", LLMROOF_BF16 },
        { "float8", LLMROOF_FP8 }, { "e4m3", LLMROOF_FP8 }, { "fp8_e4m3", LLMROOF_FP8 },
        { "e5m2", LLMROOF_FP8 }, { "fp8_e5m2", LLMROOF_FP8 },
        { "nvfp4", LLMROOF_FP4 }, { "e2m1", LLMROOF_FP4 },
    };
    if (!s)
        return false;
    for (int i = 0; i < LLMROOF_DTYPE_COUNT; i++) {
        if (strcasecmp(s, names[i]) == 0) {
            *out = (enum llmroof_dtype)i;
            return true;
        }
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
        if (strcasecmp(s, aliases[i].alias) == 0) {
            *out = aliases[i].d;
            return true;
        }
    }
    return false;
}

double dtype_bytes(enum llmroof_dtype d)
{
    return (d >= 0 && d < LLMROOF_DTYPE_COUNT) ? bytes[d] : 0.0;
}

bool dtype_is_storage(enum llmroof_dtype d)
{
    return d != LLMROOF_TF32 && d >= 0 && d < LLMROOF_DTYPE_COUNT;
}

bool dtype_is_state(enum llmroof_dtype d)
{
    return d == LLMROOF_FP32 || d == LLMROOF_FP16 || d == LLMROOF_BF16 || d == LLMROOF_FP8;
}
