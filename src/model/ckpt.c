/* ckpt.c - see model/ckpt.h */
#include "model/ckpt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/arch.h"
#include "model/layers.h"

bool ckpt_weight_dtype(const struct llmroof_model *m, enum llmroof_dtype *out)
{
    if (!m || !m->ckpt_format[0] || m->ckpt_bits <= 0)
        return false;
    /* DeepSeek-V3/R1, Kimi-K2: quantization_config fp8 e4m3, block scales (8.002 bits). The
     * scales add 0.025% and are left out, as --weight-dtype fp8 leaves them out. */
    if (strcmp(m->ckpt_format, "fp8") == 0 && m->ckpt_bits < 9) {
        *out = LLMROOF_FP8;
        return true;
    }
    /* NVIDIA's NVFP4 checkpoints: the matrices the quantizer excluded (and the embedding, norms,
     * MoE gate) bf16, the rest at ckpt_bits through ops_module_weight_bytes */
    if (m->ckpt_per_op && m->ckpt_bits < 16) {
        *out = LLMROOF_BF16;
        return true;
    }
    /* routed experts stored narrower, every other matrix bf16 (its config.json's torch_dtype): gpt-oss's
     * MXFP4 experts, Kimi-K2-Thinking's int4 ones (compressed-tensors, hf_quant.c); the experts stay
     * so through ops_expert_bytes */
    if (m->ckpt_expert_bits > 0 && m->ckpt_bits == 16) {
        *out = LLMROOF_BF16;
        return true;
    }
    /* weight-only int4 / int8 on every linear layer (compressed-tensors W4A16 / W8A16, AWQ, GPTQ): the
     * int dtype, at ckpt_bits with its group scales (ckpt_dtypes) */
    if ((strcmp(m->ckpt_format, "int4") == 0 || strcmp(m->ckpt_format, "int8") == 0) && m->ckpt_bits < 16) {
        *out = m->ckpt_format[3] == '4' ? LLMROOF_INT4 : LLMROOF_INT8;
        return true;
    }
    /* W8A8 int8 on every linear layer: int8 weights, and int8 activations where the GPU computes them
     * (ckpt_gpu_dtypes) */
    if (strcmp(m->ckpt_format, "w8a8-int8") == 0 && m->ckpt_bits < 16) {
        *out = LLMROOF_INT8;
        return true;
    }
    return false;
}

bool ckpt_is_nvfp4(const struct llmroof_model *m)
{
    return m && m->ckpt_per_op && strcmp(m->ckpt_format, "nvfp4") == 0;
}

bool ckpt_gpu_native(const struct llmroof_model *m, enum llmroof_dtype low, const struct llmroof_gpu *g)
{
    if (!g || !g->has_peak[low])
        return false;
    /* NVIDIA's arch names start "sm" (catalog.h); AMD's "gfx" */
    return !(low == LLMROOF_FP4 && ckpt_is_nvfp4(m) && strncmp(g->arch, "sm", 2) != 0);
}

struct llmroof_dtypes ckpt_draft_dtypes(const struct llmroof_model *draft, const struct llmroof_dtypes *dt)
{
    struct llmroof_dtypes d = ops_head_dtypes(dt, NULL);
    enum llmroof_dtype own;
    if (ckpt_weight_dtype(draft, &own))
        d.weight = own; /* DeepSeek-V3's fp8, gpt-oss's bf16 beside its MXFP4 experts */
    d.head_quantized = dt->head_quantized;
    return d;
}

struct llmroof_dtypes ckpt_drafter_dtypes(const struct llmroof_dtypes *dt, const struct llmroof_model *draft, bool apart,
                                          const struct llmroof_draft_head *own)
{
    if (draft)
        return ckpt_draft_dtypes(draft, dt);
    return apart ? ops_head_dtypes(dt, own) : *dt;
}

bool ckpt_drafter_apart(const struct llmroof_dtypes *target, const struct llmroof_dtypes *drafter)
{
    return drafter->weight != target->weight || ops_weight_bytes(drafter) != ops_weight_bytes(target);
}

void ckpt_drafter_desc(const struct llmroof_dtypes *target, const struct llmroof_dtypes *drafter, char *buf, size_t cap)
{
    if (cap > 0)
        buf[0] = '\0';
    if (ckpt_drafter_apart(target, drafter))
        snprintf(buf, cap, ", drafter weights %s", dtype_name(drafter->weight));
}

struct llmroof_dtypes ckpt_engine_dtypes(struct llmroof_dtypes dt, const struct llmroof_engine *en)
{
    dt.head_quantized = en && en->quantized_head;
    dt.act_quant = en ? en->act_quant : LLMROOF_ACT_QUANT_SEPARATE;
    return dt;
}

struct llmroof_dtypes ckpt_dtypes(const struct llmroof_model *m, const struct llmroof_engine *en,
                                  struct llmroof_dtypes given, bool weight_given)
{
    enum llmroof_dtype d;
    given = ckpt_engine_dtypes(given, en);
    if (!weight_given && given.weight_bits <= 0 && ckpt_weight_dtype(m, &d)) {
        given.weight = d;
        /* a weight-only int4 / int8 checkpoint's bytes hold its group scales and zero points:
         * AWQ's Llama-3.1-8B at 4.156 bits is 5.73 GB as published, not the 5.59 of 4 bits (a
         * review of session 65; they had been left out as --weight-dtype int4 leaves them) */
        if ((d == LLMROOF_INT4 || d == LLMROOF_INT8) && !m->ckpt_per_op && !(m->ckpt_expert_bits > 0) &&
            m->ckpt_bits > 8.0 * dtype_bytes(d) && m->ckpt_bits < 16.0)
            given.weight_bits = m->ckpt_bits;
    }
    given = ckpt_state_dtype(m, given);
    /* neither --state-dtype nor the model's config: the engine's default, fp32 where it keeps the
     * state so (SGLang: mamba2_state_dtype starts from float32, then the config's mamba_ssm_dtype,
     * then --mamba-ssm-dtype; vLLM's "auto" is the model dtype). That is the SSM (temporal) state
     * alone: SGLang's convolution window is its conv dtype, SGLANG_MAMBA_CONV_DTYPE, bfloat16 by
     * default, whatever the SSM state's dtype (configs/mamba_utils.py Mamba2StateDType), so the
     * window stays bf16 under --state-dtype and a config's dtype too (until now it was counted at
     * the state's fp32: 2-5% of the elements; docs/model.md "Layer kinds") */
    if (m && en && en->ssm_state_fp32 && m->linear_kind != LLMROOF_LINEAR_NONE) {
        if (!given.state_set) {
            given.state_set = true;
            given.state = LLMROOF_FP32;
        }
        given.conv_state_bf16 = true;
    }
    return given;
}

struct llmroof_dtypes ckpt_gpu_dtypes(const struct llmroof_model *m, struct llmroof_dtypes dt, bool weight_given,
                                      bool act_given, const struct llmroof_gpu *g)
{
    enum llmroof_dtype own;
    const bool has_own = m && ckpt_weight_dtype(m, &own);
    /* a block-scaled fp8 checkpoint (DeepSeek) keeps its per-operator rule (ops_ckpt_lowp_modules) */
    const bool block8 = has_own && own == LLMROOF_FP8 && m->ckpt_bits > 8.0;
    /* a checkpoint whose own scheme is W8A8 computes so where the GPU has the path, as the dtype given
     * by --weight-dtype fp8 does: a per-tensor or per-channel fp8 one (compressed-tensors'
     * FP8-dynamic) in fp8, a W8A8 int8 one (int-quantized, SmoothQuant-style; vLLM's
     * CompressedTensorsW8A8Int8, cutlass_scaled_mm) in int8 */
    const bool own_a8 = has_own && !weight_given && dt.weight == own &&
                        ((own == LLMROOF_FP8 && !block8) || strcmp(m->ckpt_format, "w8a8-int8") == 0);
    if (!(weight_given || own_a8) || act_given || !g || block8)
        return dt;
    const enum llmroof_dtype a8 = own_a8 && own == LLMROOF_INT8 ? LLMROOF_INT8 : LLMROOF_FP8;
    /* vLLM's docs (features/quantization/fp8): "--quantization fp8" and FP8 checkpoints run W8A8 on
     * Hopper and Ada, weight-only W8A16 through Marlin before them; a block-scaled checkpoint
     * (DeepSeek) has its own per-operator rule (ops_ckpt_lowp_modules) at 16-bit act */
    if (dt.weight == a8 && !(dt.weight_bits > 0) && g->has_peak[a8] && (dt.act == LLMROOF_FP16 || dt.act == LLMROOF_BF16))
        dt.act = a8;
    return dt;
}

struct llmroof_dtypes ckpt_state_dtype(const struct llmroof_model *m, struct llmroof_dtypes given)
{
    /* the state dtype the model's config states (Qwen3.5's mamba_ssm_dtype "float32", which vLLM
     * takes when --mamba-ssm-cache-dtype is auto), unless --state-dtype names one */
    if (m && !given.state_set && m->lin_state_dtype_set && m->linear_kind != LLMROOF_LINEAR_NONE) {
        given.state_set = true;
        given.state = m->lin_state_dtype;
    }
    return given;
}

/* The LLMROOF_CKPT_* modules model m has: the checkpoint's format covers every module by name
 * (BLOCK_FP8_MODULES lists MLA's kv_b and a MoE model's dense MLP layers), but a header must
 * name only the GEMMs that run: a dense model has neither mla_kv_up nor dense_ffn (its MLP is
 * ffn), a MoE model has dense_ffn only with dense layers (first_k_dense_replace, a layer step). */
static unsigned present_modules(const struct llmroof_model *m)
{
    unsigned mods = (1u << LLMROOF_CKPT_MODULES) - 1u;
    if (!arch_is_mla(m))
        mods &= ~(unsigned)LLMROOF_CKPT_MLA_KV_UP;
    if (m->moe_experts <= 0 || layers_count(m, 0, m->layers).dense <= 0)
        mods &= ~(unsigned)LLMROOF_CKPT_DENSE_FFN;
    return mods;
}

/* "a, b and c" of the modules in `mods` (LLMROOF_CKPT_* bits) */
static void module_list(unsigned mods, char *buf, size_t cap)
{
    int n = 0, total = 0;
    for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
        total += mods >> i & 1u;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < LLMROOF_CKPT_MODULES && len < cap; i++) {
        if (!(mods >> i & 1u))
            continue;
        n++;
        int w = snprintf(buf + len, cap - len, "%s%s", n == 1 ? "" : n == total ? " and " : ", ",
                         catalog_ckpt_module_name(i));
        len += w > 0 ? (size_t)w : 0;
    }
}

void ckpt_weight_desc(const struct llmroof_model *m, const struct llmroof_dtypes *dt, char *buf, size_t cap)
{
    char bits[32] = "", experts[128] = "";
    enum llmroof_dtype own;
    if (dt->weight_bits > 0)
        snprintf(bits, sizeof bits, " (%g bits)", dt->weight_bits);
    unsigned quant = 0; /* a per-operator checkpoint's quantized modules */
    for (int i = 0; m && m->ckpt_per_op && i < LLMROOF_CKPT_MODULES; i++)
        if (ops_ckpt_quantized(m, dt, 1u << i))
            quant |= 1u << i;
    if (quant)
        quant &= present_modules(m);
    /* experts stored below the other weights (ops_expert_bytes): name their format */
    if (quant) {
        char mods[80];
        module_list(quant, mods, sizeof mods);
        snprintf(experts, sizeof experts, ", %s %s", strcmp(m->ckpt_format, "nvfp4") == 0 ? "NVFP4" : m->ckpt_format,
                 mods);
    } else if (m && m->ckpt_expert_bits > 0 && ops_expert_bytes(m, dt) < ops_weight_bytes(dt))
        snprintf(experts, sizeof experts, ", %s experts", strcmp(m->ckpt_format, "mxfp4") == 0 ? "MXFP4" : m->ckpt_format);
    /* (a weight-only int checkpoint's own bits are its scales', ckpt_dtypes) */
    bool is_own = (dt->weight_bits <= 0 || (m && dt->weight_bits == m->ckpt_bits)) && ckpt_weight_dtype(m, &own) &&
                  own == dt->weight;
    /* quantized weights whose embedding and head stay 16-bit (ops_unquantized_bytes): say so, the
     * weights line is otherwise larger than bits x parameters */
    const bool kept = m && ops_weight_bytes(dt) < 2.0 && ops_unquantized_bytes(m, dt, false) >= 2.0;
    const char *parts = m && m->moe_experts > 0 ? "embedding, LM head and router" : "embedding and LM head";
    char note[96] = "", own_note[96] = "";
    if (kept && is_own) /* a block-fp8 checkpoint ships them bf16 */
        snprintf(own_note, sizeof own_note, " (the checkpoint's; %s bf16)", parts);
    else if (is_own)
        snprintf(own_note, sizeof own_note, " (the checkpoint's)");
    else if (kept)
        snprintf(note, sizeof note, " (%s 16-bit)", parts);
    /* --weight-bits alone: the default 16-bit dtype does not hold 4.5 bits a weight, so the line
     * names the bits only ("fp16 (4.5 bits)" had read as a 16-bit format; a review) */
    const double wbits = floor(dtype_bytes(dt->weight) * 8.0);
    if (dt->weight_bits > 0 && (dt->weight_bits < wbits || dt->weight_bits >= 2.0 * wbits)) {
        snprintf(buf, cap, "%g-bit weights%s%s%s", dt->weight_bits, note, experts, own_note);
        return;
    }
    snprintf(buf, cap, "%s%s weights%s%s%s", dtype_name(dt->weight), bits, note, experts, own_note);
}

bool ckpt_fitting_weight_dtype(const struct llmroof_model *m, const struct llmroof_gpu *g,
                               const struct llmroof_layout *lay, const struct llmroof_dtypes *dt, long context_len,
                               const struct llmroof_mem_opts *o, enum llmroof_dtype *out)
{
    static const enum llmroof_dtype cand[] = { LLMROOF_FP8, LLMROOF_INT4 };
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        struct llmroof_dtypes d = *dt;
        d.weight = cand[i];
        d.weight_bits = 0;
        if (dtype_bytes(cand[i]) >= ops_weight_bytes(dt))
            continue;
        struct llmroof_memory mem;
        struct llmroof_err err = { 0 };
        if (memory_eval_layout(m, g, lay, &d, context_len, o, &mem, &err) != LLMROOF_OK)
            return false;
        if (mem.fit != LLMROOF_FIT_WEIGHTS && mem.fit != LLMROOF_FIT_CONTEXT) {
            *out = cand[i];
            return true;
        }
    }
    return false;
}

bool ckpt_fit_hint(const struct llmroof_model *m, const struct llmroof_gpu *g, const struct llmroof_layout *lay,
                   const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                   struct ckpt_fit_hint *out)
{
    if (dt->weight_bits <= 0) {
        enum llmroof_dtype fit;
        if (!ckpt_fitting_weight_dtype(m, g, lay, dt, context_len, o, &fit))
            return false;
        snprintf(out->asked, sizeof out->asked, "%s", dtype_name(dt->weight));
        snprintf(out->fits, sizeof out->fits, "%s", dtype_name(fit));
        snprintf(out->flag, sizeof out->flag, "--weight-dtype %s", dtype_name(fit));
        return true;
    }
    /* --weight-bits B: the widths of fp8 and int4, as bits of the same dtype (scales included,
     * as B includes them) */
    static const double cand_bits[] = { 8, 4 };
    for (size_t i = 0; i < sizeof cand_bits / sizeof cand_bits[0]; i++) {
        if (cand_bits[i] >= dt->weight_bits)
            continue;
        struct llmroof_dtypes d = *dt;
        d.weight_bits = cand_bits[i];
        struct llmroof_memory mem;
        struct llmroof_err err = { 0 };
        if (memory_eval_layout(m, g, lay, &d, context_len, o, &mem, &err) != LLMROOF_OK)
            return false;
        if (mem.fit != LLMROOF_FIT_WEIGHTS && mem.fit != LLMROOF_FIT_CONTEXT) {
            snprintf(out->asked, sizeof out->asked, "%g-bit", dt->weight_bits);
            snprintf(out->fits, sizeof out->fits, "%g-bit", cand_bits[i]);
            snprintf(out->flag, sizeof out->flag, "--weight-bits %g", cand_bits[i]);
            return true;
        }
    }
    return false;
}

void ckpt_state_desc(const struct llmroof_model *m, const struct llmroof_dtypes *dt, char *buf, size_t cap)
{
    if (cap > 0)
        buf[0] = '\0';
    if (!m || m->linear_kind == LLMROOF_LINEAR_NONE || !dt->state_set || cap == 0)
        return;
    /* the window's dtype only where it differs from the state's and the model has one */
    const bool apart = dt->conv_state_bf16 && dt->state != LLMROOF_BF16 && layers_conv_state_elems(m) > 0;
    snprintf(buf, cap, "%s state%s", dtype_name(dt->state), apart ? " (conv window bf16)" : "");
}

void ckpt_compute_desc(const struct llmroof_model *m, const struct llmroof_gpu *g, const struct llmroof_dtypes *dt,
                       char *buf, size_t cap)
{
    enum llmroof_dtype low;
    const unsigned mods = m ? ops_ckpt_lowp_modules(m, dt, &low) & present_modules(m) : 0;
    /* the same test as roofline_prepare's: the GPU has the path, and it is not the activations' */
    if (!mods || low == dt->act) {
        snprintf(buf, cap, "%s compute", dtype_name(dt->act));
        return;
    }
    char list[80];
    module_list(mods, list, sizeof list);
    if (!ckpt_gpu_native(m, low, g)) /* no tensor path for the checkpoint's GEMMs: weights widened in the GEMM */
        snprintf(buf, cap, "%s compute (%s: %s weights, weight-only on this GPU)", dtype_name(dt->act), list,
                 dtype_name(low));
    else
        snprintf(buf, cap, "%s compute (%s: %s)", dtype_name(dt->act), list, dtype_name(low));
}
