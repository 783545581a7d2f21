/* ckpt.h - the weight dtype a model's own checkpoint implies, how a header names the weights,
 * and the smaller weight dtype that would make a model fit (docs/catalog.md, "checkpoint"). */
#ifndef LLMROOF_CKPT_H
#define LLMROOF_CKPT_H

#include <stdbool.h>
#include <stddef.h>

#include "data/catalog.h"
#include "model/memory.h"
#include "model/ops.h"

/* The checkpoint's own weight dtype: "fp8" -> fp8; "mxfp4" with 16-bit other weights -> bf16
 * (the experts stay MXFP4 through ops_expert_bytes). False when the catalog states none. */
bool ckpt_weight_dtype(const struct llmroof_model *m, enum llmroof_dtype *out);

/* The dtypes a draft model (--spec draft:MODEL) runs at beside a target at dt: its own checkpoint's
 * weight dtype where the catalog states one (ckpt_weight_dtype), else 16 bits as a head apart
 * (ops_head_dtypes), whatever the target's --weight-dtype, --weight-bits or checkpoint (vLLM
 * quantizes a draft only by the speculative config's own quantization, None by default, and a
 * checkpoint's quantization_config is its own); the KV and state settings dt's. */
struct llmroof_dtypes ckpt_draft_dtypes(const struct llmroof_model *draft, const struct llmroof_dtypes *dt);

/* The dtypes a speculative drafter runs at beside a target at dt: a draft model (draft non-NULL)
 * ckpt_draft_dtypes, a head whose weights ship apart (apart: EAGLE-family, Medusa)
 * ops_head_dtypes with its config own (NULL: none), an MTP module dt itself. */
struct llmroof_dtypes ckpt_drafter_dtypes(const struct llmroof_dtypes *dt, const struct llmroof_model *draft, bool apart,
                                          const struct llmroof_draft_head *own);
/* Whether a drafter's weights (at `drafter`) are not the target's (at `target`): another dtype or
 * bytes per weight (an EAGLE head's 16 bits beside DeepSeek-V3's fp8 checkpoint). */
bool ckpt_drafter_apart(const struct llmroof_dtypes *target, const struct llmroof_dtypes *drafter);
/* ", drafter weights fp16" where ckpt_drafter_apart, else "": what the speculative notes of
 * estimate and simulate say of the drafter (JSON: drafter_weight_dtype). */
void ckpt_drafter_desc(const struct llmroof_dtypes *target, const struct llmroof_dtypes *drafter, char *buf, size_t cap);

/* dt with its head rule taken from engine en (NULL: none): head_quantized when the engine's own
 * formats quantize the embedding, LM head and router (quantized_head) */
struct llmroof_dtypes ckpt_engine_dtypes(struct llmroof_dtypes dt, const struct llmroof_engine *en);

/* The dtypes a command uses: `given` as parsed, except that the weight dtype becomes the
 * checkpoint's when the user gave neither --weight-dtype nor --weight-bits, and that engine en
 * (NULL: none) decides whether quantized weights include the LM head (head_quantized). */
struct llmroof_dtypes ckpt_dtypes(const struct llmroof_model *m, const struct llmroof_engine *en,
                                  struct llmroof_dtypes given, bool weight_given);

/* `given` with the recurrent state at the model's stated dtype (its catalog linear.state_dtype)
 * where no --state-dtype set one: what ckpt_dtypes applies, and sweep, which takes its other
 * dtypes as listed. */
struct llmroof_dtypes ckpt_state_dtype(const struct llmroof_model *m, struct llmroof_dtypes given);

/* The compute dtype on GPU g where none was given (act_given false): fp8 weights a user asked for
 * (weight_given) in a per-tensor format (no --weight-bits; not model m's own block-scaled fp8
 * checkpoint, which ops_ckpt_lowp_modules rules per operator) run as W8A8 fp8 GEMMs on a GPU with an fp8 path, as vLLM's, SGLang's
 * and TensorRT-LLM's fp8 linear methods do on compute capability 8.9+ and hipBLASLt on MI300
 * (act fp8: attention stays 16-bit unless the K/V cache is 8-bit, roofline.c rl_apeak); on a GPU
 * without one they stay weight-only at 16 bits (Marlin W8A16 on an A100). Otherwise dt as given. */
struct llmroof_dtypes ckpt_gpu_dtypes(const struct llmroof_model *m, struct llmroof_dtypes dt, bool weight_given,
                                      bool act_given, const struct llmroof_gpu *g);

/* "fp16 weights", "fp16 (4.5 bits) weights", "int4 weights (embedding and LM head 16-bit)" (below
 * 16 bits, unless the engine quantizes them too), "fp8 weights (the checkpoint's; embedding, LM head
 * and router bf16)" (a block-fp8 checkpoint's own),
 * "bf16 weights, MXFP4 experts (the checkpoint's)", "bf16 weights, NVFP4 ffn and dense_ffn (the
 * checkpoint's)": what a header line says of the weights. */
void ckpt_weight_desc(const struct llmroof_model *m, const struct llmroof_dtypes *dt, char *buf, size_t cap);

/* "fp32 state", or "fp32 state (conv window bf16)" where the engine holds the convolution window
 * apart (conv_state_bf16): what a header says of a recurrent model's state when its dtype is set
 * apart from the model's 16 bits (--state-dtype, the model's config, the engine); "" otherwise,
 * and for a model without recurrent layers. estimate, memory and simulate print it alike. */
void ckpt_state_desc(const struct llmroof_model *m, const struct llmroof_dtypes *dt, char *buf, size_t cap);

/* "bf16 compute", or with a W4A4 checkpoint's own GEMMs on a GPU with their path (ops.h
 * ops_ckpt_lowp_modules) "bf16 compute (ffn and dense_ffn: fp4)": what a header line says of the
 * compute dtypes. */
/* m's checkpoint is NVIDIA's NVFP4 (Model Optimizer: e2m1 values in blocks of 16 with an e4m3
 * scale, and a per-tensor fp32 scale). */
bool ckpt_is_nvfp4(const struct llmroof_model *m);
/* Whether g runs m's checkpoint GEMMs of dtype `low` on a tensor path of their own: g has that
 * dtype's peak, and for NVFP4 the path is NVIDIA's (sm100+: their fp4 MMA takes e4m3 block
 * scales); AMD's CDNA4 fp4 (MI355X) takes the OCP MX formats' e8m0 scales per 32, MXFP4, so an
 * NVFP4 checkpoint's weights are widened there as on a GPU without fp4 (weight-only). */
bool ckpt_gpu_native(const struct llmroof_model *m, enum llmroof_dtype low, const struct llmroof_gpu *g);
void ckpt_compute_desc(const struct llmroof_model *m, const struct llmroof_gpu *g, const struct llmroof_dtypes *dt,
                       char *buf, size_t cap);

/* When the weights do not fit on this layout: the first of fp8 and int4 that is smaller than
 * dt's weights and with which the weights and one sequence fit. False when none does (or on an
 * error). */
bool ckpt_fitting_weight_dtype(const struct llmroof_model *m, const struct llmroof_gpu *g,
                               const struct llmroof_layout *lay, const struct llmroof_dtypes *dt, long context_len,
                               const struct llmroof_mem_opts *o, enum llmroof_dtype *out);

/* The fit suggestion of estimate's warning and memory's header, in the terms the user gave
 * the weights in: with --weight-dtype (or none) a smaller dtype, as ckpt_fitting_weight_dtype;
 * with --weight-bits, which overrides any dtype's width, a smaller bit count (fp8's 8, int4's
 * 4), since "--weight-dtype int4" beside "--weight-bits 4.5" would leave 4.5 bits. */
struct ckpt_fit_hint {
    char asked[32]; /* the weights asked for: "fp16", "4.5-bit" */
    char fits[32];  /* the weights that fit: "int4", "4-bit" */
    char flag[48];  /* the option that asks for them: "--weight-dtype int4", "--weight-bits 4" */
};

/* True with *out filled when the weights do not fit on this layout and smaller ones (with one
 * sequence) do; false when none does (or on an error). */
bool ckpt_fit_hint(const struct llmroof_model *m, const struct llmroof_gpu *g, const struct llmroof_layout *lay,
                   const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                   struct ckpt_fit_hint *out);

#endif
