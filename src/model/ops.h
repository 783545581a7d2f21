/* ops.h - a forward pass as a list of operators, per tensor-parallel rank.
 *
 * One engine step processes T new tokens from S sequences, each sequence at its own
 * context. The operator list holds, per operator kind, how many instances run in the
 * pass (e.g. 2 norms per layer x layers) and each instance's FLOPs, HBM bytes and
 * collective message bytes on one rank. Megatron-style sharding (Shoeybi et al. 2019):
 * Q/K/V/O and MLP split over ranks, vocabulary-parallel embedding and LM head.
 * Formulas: docs/model.md section "Operators". */
#ifndef LLMROOF_OPS_H
#define LLMROOF_OPS_H

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "data/catalog.h"
#include "base/dtype.h"
#include "base/err.h"

enum llmroof_opkind {
    LLMROOF_OP_NORM,       /* pre-attention and pre-MLP norms */
    LLMROOF_OP_QKV_PROJ,   /* fused q/k/v projection */
    LLMROOF_OP_KV_WRITE,   /* append new K/V to the cache */
    LLMROOF_OP_ATTENTION,  /* softmax(QK^T)V, flash-style (no score matrix in HBM) */
    LLMROOF_OP_O_PROJ,     /* attention output projection */
    LLMROOF_OP_ALL_REDUCE, /* after o_proj, after the MLP, after the embedding (TP > 1) */
    LLMROOF_OP_ROUTER,     /* MoE gate */
    LLMROOF_OP_FFN,        /* MLP: gate/up/down (gated) or up/down (plain), or the experts hit */
    LLMROOF_OP_FINAL_NORM, /* norm before the LM head */
    LLMROOF_OP_LM_HEAD,    /* logits of the last position of each sequence */
    LLMROOF_OP_ALL_GATHER, /* gather of the vocabulary-parallel logits (TP > 1) */
    LLMROOF_OP_ATTN_LOCAL, /* attention of sliding-window or chunked layers (keys capped by the window) */
    LLMROOF_OP_MLA_KV_UP,  /* MLA kv_b: decompress the latent to K/V (prefill) or absorbed W_UK/W_UV (decode) */
    LLMROOF_OP_DENSE_FFN,  /* MoE model: the dense MLP of its leading/interleaved dense layers */
    LLMROOF_OP_ALL_TO_ALL, /* expert parallelism: dispatch and combine of routed tokens (per MoE layer, 2) */
    LLMROOF_OP_PP_SEND,    /* pipeline parallelism: activations sent to the next stage (per boundary) */
    LLMROOF_OP_LINEAR_MIX, /* recurrent mixer of linear-attention / SSM layers (projections, scan, state) */
    LLMROOF_OP_DSA_INDEX,  /* DeepSeek Sparse Attention's indexer: scores every past key, picks top-k */
    LLMROOF_OP_MLP_GATHER, /* --moe-tp: every replica's tokens all-gathered before each MLP, reduce-scattered after */
    LLMROOF_OP_COUNT
};

const char *op_name(enum llmroof_opkind k);      /* "qkv_proj" */
/* Collectives: all-reduce, all-gather, all-to-all, pipeline sends. Inline: every timing loop
 * asks it of every operator (bench_engine). */
static inline bool op_is_collective(enum llmroof_opkind k)
{
    return k == LLMROOF_OP_ALL_REDUCE || k == LLMROOF_OP_ALL_GATHER || k == LLMROOF_OP_ALL_TO_ALL ||
           k == LLMROOF_OP_PP_SEND || k == LLMROOF_OP_MLP_GATHER;
}

/* What one step processes; sums over its sequences. */
struct llmroof_batch {
    double tokens;          /* new tokens in the step, all sequences */
    double seqs;            /* sequences in the step; each yields one logits row */
    double attn_pairs;      /* sum of causal (query, key) pairs */
    double kv_read_tokens;  /* sum of keys read per sequence (cached + new) */
    /* The same four sums over the few-query sequences, those the model's struct ops_few_rule
     * picks as each is added (ops_few_query): MLA runs these absorbed and the others (prefill
     * chunks longer than the break-even) decompressed, each sequence its own way (docs/model.md
     * "MLA"); other models read them nowhere. */
    double few_tokens;      /* new tokens of the few-query sequences */
    double few_seqs;        /* few-query sequences */
    double few_pairs;       /* their (query, key) pairs */
    double few_keys;        /* their keys read */
    double extra_logits;    /* logits rows beyond one per sequence: every position a speculative pass
                               verifies (or a draft tree expands) needs its own row */
};

/* The LM head's rows of a step: one per sequence, plus the verified positions' (extra_logits). */
static inline double batch_logits_rows(const struct llmroof_batch *b)
{
    return b->seqs + b->extra_logits;
}

/* A draft tree's later passes: w new tokens per sequence (the nodes the last step expanded), each
 * attending to the sequence's context, whose keys are read once (EAGLE-2's tree drafting: the
 * simulator's and estimate's drafter passes). */
static inline struct llmroof_batch ops_batch_widen(const struct llmroof_batch *b, double w)
{
    struct llmroof_batch x = *b;
    x.extra_logits = batch_logits_rows(b) * w - b->seqs; /* each expanded node's logits pick its children */
    x.tokens *= w;
    x.attn_pairs *= w;
    x.few_tokens *= w;
    x.few_pairs *= w;
    return x;
}

/* The few-query bound of a model without MLA's choice (every model but MLA without DSA): a
 * sequence with at most this many new tokens in a step (decode, MTP and speculative verification
 * of drafts up to 15 tokens) is a few-query one. Nothing reads that split for these models: MLA
 * alone runs its two forms from it (ops.c set_context), and DeepSeek Sparse Attention runs every
 * sequence absorbed. MLA's own bound is no constant but its break-even (ops_few_rule_flops,
 * estimate_mla_few_rule). */
#define OPS_FEW_QUERY_TOKENS 16.0

/* Which sequences of a step are few-query ones (the batch's few_* sums), a property of the model
 * on its shard (struct llmroof_shard few). A sequence of n new tokens after `past` cached ones,
 * with pairs = n past + n (n + 1) / 2 and keys = past + n, is one when
 *   n <= max_new, or
 *   per_past > 0, past > 0 and pairs (keys + ramp) <= (per_past past + per_new n) keys.
 * Without MLA's choice: max_new = OPS_FEW_QUERY_TOKENS, per_past 0. MLA without DSA: max_new 1
 * (a decode is always absorbed, as every engine runs it) and the break-even line of its two forms:
 * absorbed costs 2 Hq (2 r_kv + p) FLOP per (query, key) pair and W_UK / W_UV per new token,
 * decompressed 2 Hq (n_qk + p + v) per pair and kv_b's 2 r_kv Hq (n_qk + v) per key it expands,
 * so absorbed runs more FLOPs per pair and decompressed more per cached key. FLOPs alone
 * (ops_few_rule_flops): pairs <= t past, t = r_kv (n_qk + v) / (2 r_kv - n_qk - v) new tokens per
 * sequence in the long-context limit (DeepSeek-V3: 512 x 256 / 768 = 170.7), equal FLOPs on the
 * line. The modelled time differs from the FLOPs (decompressed also writes and reads every
 * expanded K/V, kv_b may run at an 8-bit peak, attention at its own efficiency): the setup's rule
 * (estimate_mla_few_rule) is the line through the modelled times' crossings, per_new the new
 * tokens' own terms, and ramp the prefill attention ramp (eff attn_ramp_tokens: a pair costs
 * (keys + ramp) / keys of the long-context rate). vLLM's V1 MLA backend instead sends every query
 * longer than 1 + speculative tokens down its prefill (decompressed) path
 * (reorder_batch_threshold: vllm/v1/attention/backends/mla/common.py, raised to 1 +
 * num_speculative_tokens by AttentionMetadataBuilder._init_reorder_batch_threshold in
 * vllm/v1/attention/backend.py; its own header notes that "small and large" is "something we
 * should probably tune"), so a 17-token chunk after 32K cached keys expands all of them: llmroof
 * models the cost-minimising choice per sequence instead. */
struct ops_few_rule {
    double max_new;  /* new tokens at or below which a sequence is a few-query one, whatever its context */
    double per_past; /* MLA's break-even line: pairs per cached key on it (0 = no line) */
    double per_new;  /* ... and per new token (the new keys' and new queries' own terms; may be < 0) */
    double ramp;     /* attention's ramp keys (eff attn_ramp_tokens), 0 = none */
};

/* The generic rule (OPS_FEW_QUERY_TOKENS, no line), for batches of a model without MLA's choice. */
#define OPS_FEW_GENERIC (&(const struct ops_few_rule){ OPS_FEW_QUERY_TOKENS, 0.0, 0.0, 0.0 })

/* Whether a sequence of n new tokens after `past` cached ones, `pairs` its (query, key) pairs, is
 * a few-query one under rule r (struct ops_few_rule). Inline: the simulator asks it of every
 * sequence of every step. */
static inline bool ops_few_query(const struct ops_few_rule *r, double n, double past, double pairs)
{
    if (n <= r->max_new)
        return true;
    if (!(r->per_past > 0.0) || !(past > 0.0))
        return false;
    const double keys = past + n;
    return pairs * (keys + r->ramp) <= (r->per_past * past + r->per_new * n) * keys;
}

/* The FLOP rule of model m (ops_shard's): MLA without DSA its FLOP break-even line, any other
 * model the generic rule. */
struct ops_few_rule ops_few_rule_flops(const struct llmroof_model *m);

/* Adds a sequence that processes `new_tokens` after `past_tokens` already cached:
 * pairs += new*past + new*(new+1)/2; keys read += past + new; the few-query sums too where `few`
 * says so (ops_few_query). */
void batch_add(struct llmroof_batch *b, double new_tokens, double past_tokens, const struct ops_few_rule *few);
/* Marks the whole of b as few-query when each of its sequences, with `per_seq` new tokens after
 * `past` cached ones, is one under `few`. */
static inline struct llmroof_batch batch_mark_few(struct llmroof_batch b, double per_seq, double past,
                                                  const struct ops_few_rule *few)
{
    if (ops_few_query(few, per_seq, past, per_seq * past + per_seq * (per_seq + 1.0) / 2.0)) {
        b.few_tokens = b.tokens;
        b.few_seqs = b.seqs;
        b.few_pairs = b.attn_pairs;
        b.few_keys = b.kv_read_tokens;
    }
    return b;
}
/* A step with no prompt work: every token beyond one a sequence is a verified position (a decode,
 * or a speculative verification: extra_logits). Two-batch overlap splits such a step by its
 * sequences (SGLang's target-verify split: (tokens / tokens per sequence) / 2), any other by its
 * tokens. */
static inline bool batch_decodes_only(const struct llmroof_batch *b)
{
    return b->tokens - b->seqs <= b->extra_logits + 1e-7 * b->tokens;
}
/* b's sums times f (a share of its sequences at their mean context, or b repeated f times). */
static inline struct llmroof_batch batch_scale(const struct llmroof_batch *b, double f)
{
    return (struct llmroof_batch){ b->tokens * f,         b->seqs * f,       b->attn_pairs * f,
                                   b->kv_read_tokens * f, b->few_tokens * f, b->few_seqs * f,
                                   b->few_pairs * f,      b->few_keys * f,   b->extra_logits * f };
}
/* dst += src, every sum (an iteration's parts, a pass's pieces: the sums are additive). */
static inline void batch_accumulate(struct llmroof_batch *dst, const struct llmroof_batch *src)
{
    dst->tokens += src->tokens;
    dst->seqs += src->seqs;
    dst->attn_pairs += src->attn_pairs;
    dst->kv_read_tokens += src->kv_read_tokens;
    dst->few_tokens += src->few_tokens;
    dst->few_seqs += src->few_seqs;
    dst->few_pairs += src->few_pairs;
    dst->few_keys += src->few_keys;
    dst->extra_logits += src->extra_logits;
}
/* B prompts of P tokens from an empty cache, few-query ones where `few` says so (MLA: a prompt of
 * one token). (Inline, as the two below: an estimate builds five batches and a simulated step one;
 * a call returned them through memory.) */
static inline struct llmroof_batch batch_prefill(double batch, double prompt, const struct ops_few_rule *few)
{
    struct llmroof_batch b = { 0 };
    b.tokens = batch * prompt;
    b.seqs = batch;
    b.attn_pairs = batch * prompt * (prompt + 1.0) / 2.0;
    b.kv_read_tokens = batch * prompt;
    return batch_mark_few(b, prompt, 0.0, few);
}
/* B decode tokens, each attending to `context` keys (its own included): few-query ones under every
 * rule (max_new >= 1). */
static inline struct llmroof_batch batch_decode(double batch, double context)
{
    /* one new token after context-1 cached ones: pairs = (context-1) + 1 = context */
    struct llmroof_batch b = { 0 };
    b.tokens = batch;
    b.seqs = batch;
    b.attn_pairs = batch * context;
    b.kv_read_tokens = batch * context;
    b.few_tokens = b.tokens;
    b.few_seqs = b.seqs;
    b.few_pairs = b.attn_pairs;
    b.few_keys = b.kv_read_tokens;
    return b;
}

/* How one model instance is laid out over GPUs (docs/model.md "Layouts"). Zero fields mean
 * the default: pp 1, ep 1, imbalance 1. GPUs per pipeline stage: ep when ep > 1, moe_tp when
 * moe_tp > 1, else tp; with ep > 1, either ep == tp (attention TP, experts EP over the same
 * ranks, combined by the TP all-reduce) or dp_attn (attention TP over tp ranks, ep/tp attention
 * replicas each with its own sequences and KV, tokens routed by all-to-all: the DeepSeek serving
 * layout); with moe_tp > 1 and dp_attn, moe_tp/tp attention replicas whose tokens every MLP sees
 * whole, each expert split moe_tp ways (SGLang 0.4's DP attention, vLLM's DP without EP). */
struct llmroof_layout {
    int tp;                 /* tensor-parallel ranks of attention (and of the MLP without EP) */
    int pp;                 /* pipeline stages of consecutive layers; 0 = 1 */
    int ep;                 /* expert-parallel ranks (MoE); 0 = 1 */
    bool dp_attn;           /* attention data-parallel over ep/tp (or moe_tp/tp) replicas */
    double ep_imbalance;    /* busiest rank's routed tokens / the mean (>= 1, --ep-imbalance); 0 = not
                               given: the busiest rank of uniform routing (ops_binomial_expected_max) */
    bool two_batch_overlap; /* two micro-batches hide the all-to-all under the other's compute
                               (DeepSeek/SGLang two-batch overlap, vLLM dual-batch overlap) */
    int moe_tp;             /* with dp_attn and no EP: the GPUs every expert's (and dense MLP's) width is
                               split over, fed every replica's tokens by an all-gather before each MLP
                               and a reduce-scatter after (vLLM's data parallelism of a MoE model without
                               --enable-expert-parallel, SGLang 0.4's --enable-dp-attention); 0 = none */
    bool shared_local;      /* with moe_tp: the shared experts and dense MLP layers stay on each replica's
                               tokens, split over its attention TP (the engine's moe_tp_shared_local:
                               vLLM); false: gathered with the routed experts (SGLang) */
    bool lm_head_split;     /* with dp_attn: the LM head vocabulary-parallel over the stage's GPUs (the
                               engine's dp_lm_head_split: SGLang); false: each replica's own */
    bool dsa_dense_prefill; /* a DSA model's prompts that attend to at most top_k keys run dense,
                               decompressed MLA, without the indexer's scores (the engine's
                               dsa_dense_short_prefill: SGLang); false: sparse, absorbed, always */
};

struct llmroof_shard {
    int tp;                      /* tensor-parallel ranks */
    int pp;                      /* pipeline stages (1 = none) */
    int ep;                      /* expert-parallel ranks (1 = none) */
    bool dp_attn;                /* attention data-parallel (all-to-all around the experts, or the
                                    MLP gather of moe_tp) */
    int attn_dp;                 /* attention replicas in a stage: gpus_per_stage/tp with dp_attn, else 1 */
    int moe_tp;                  /* ranks every expert's and dense MLP's width is split over: tp without
                                    EP, 1 with it, the layout's moe_tp under --moe-tp */
    bool mlp_gather;             /* --moe-tp: the routed experts run on every replica's tokens, gathered */
    bool mlp_shared_local;       /* ... and the shared experts and dense layers on the replica's own
                                    (layout shared_local), else gathered with them */
    double shared_intermediate_per_rank; /* one shared expert's width on one rank: the routed experts'
                                    per-rank width, or with mlp_shared_local the replica TP's share */
    int gpus_per_stage;          /* GPUs of one pipeline stage */
    int gpus;                    /* GPUs of the instance: gpus_per_stage * pp */
    long stage_layers_max;       /* layers of the largest stage: ceil(layers / pp) */
    long stage_layers_min;       /* layers of the smallest stage: floor(layers / pp) */
    double ep_imbalance;         /* busiest EP rank's share of routed tokens over the mean as given
                                    (>= 1); 0: uniform routing's busiest rank, per step (ops_build) */
    bool two_batch_overlap;      /* all-to-all overlapped with the other micro-batch's compute */
    bool dsa_dense_prefill;      /* layout dsa_dense_prefill: a DSA step's prompts of at most top_k keys
                                    dense (ops.c set_context) */
    long heads_per_rank;         /* query heads on one rank */
    long kv_heads_per_rank;      /* KV heads held by one rank (1 when replicated) */
    bool kv_replicated;          /* KV heads < TP: each KV head is copied on TP/KV ranks */
    double intermediate_per_rank;     /* dense MLP width on one rank */
    double moe_intermediate_per_rank; /* one expert's width on one rank */
    double vocab_per_rank;       /* vocabulary rows on one rank (the embedding's) */
    double lm_vocab_per_rank;    /* the LM head's vocabulary rows on one rank: vocab_per_rank, or with
                                    layout lm_head_split (and untied embeddings) vocab / gpus_per_stage */
    int lm_ranks;                /* the LM head's group when it spans the replicas (lm_head_split): the
                                    stage's GPUs; 0 = the attention TP group */
    struct ops_few_rule few;     /* which sequences of a step are few-query ones: ops_shard sets the
                                    model's FLOP rule (ops_few_rule_flops), a setup its modelled-time
                                    rule (estimate_mla_few_rule) */
};

/* Checks that TP divides the heads and that KV heads and TP divide one another
 * (as vLLM and Megatron require); fills the per-rank shapes. */
int ops_shard(const struct llmroof_model *m, int tp, struct llmroof_shard *out, struct llmroof_err *err);
/* Same for a whole layout (src/model/layout.c): also checks PP <= layers, EP divides the
 * experts, EP against TP and --dp-attention; each message names the constraint. */
int ops_shard_layout(const struct llmroof_model *m, const struct llmroof_layout *lay, struct llmroof_shard *out,
                     struct llmroof_err *err);
/* The checks of ops_shard_layout that do not depend on TP (a plan tries several): --pp within the
 * layers, --ep on a mixture-of-experts model dividing its experts, --dp-attention and
 * --two-batch-overlap with their --ep, --ep-imbalance within what a rank can carry. */
int ops_layout_check_model(const struct llmroof_model *m, const struct llmroof_layout *lay, struct llmroof_err *err);
/* GPUs of one pipeline stage of layout `l` at attention TP `tp` (ep, moe_tp or tp: the largest
 * group), and the attention replicas among them with --dp-attention (that over tp, else 1); the
 * rule ops_shard_layout fills the shard by, for callers holding a layout alone. */
int ops_layout_stage_gpus(const struct llmroof_layout *l, int tp);
/* GPUs of one instance of layout `l` at TP `tp`: a stage's times its pipeline stages. */
int ops_layout_gpus(const struct llmroof_layout *l, int tp);
int ops_layout_attn_dp(const struct llmroof_layout *l, int tp);
/* The layout beyond TP as the command headers name it after "TP n": ", PP 1, EP 8, data-parallel
 * attention", or "" for TP alone (src/model/layout.c). Writes at most `size` bytes. */
void ops_layout_desc(const struct llmroof_shard *sh, char *buf, size_t size);

struct llmroof_dtypes {
    enum llmroof_dtype weight; /* stored weights */
    enum llmroof_dtype kv;     /* KV cache */
    enum llmroof_dtype act;    /* activations and the compute peak used */
    double weight_bits;        /* effective bits per weight incl. group scales (q4_0: 4.5); 0 = the dtype's */
    bool state_set;            /* the recurrent state has its own dtype (state); otherwise the model's 16-bit dtype (ops_state_bytes) */
    enum llmroof_dtype state;  /* recurrent (SSM / linear-attention) state, as vLLM's --mamba-ssm-cache-dtype */
    bool head_quantized;       /* the embedding, the LM head and the MoE router are stored at the weights'
                                  bytes like every other matrix (the engine's quantized_head: llama.cpp,
                                  gpt-fast, MLC); false: below 16-bit weights they stay 16-bit
                                  (ops_unquantized_bytes) */
    enum llmroof_act_quant act_quant; /* with 8-bit activations, where the engine quantizes each GEMM's
                                         16-bit input (its act_quant; ops.c act_quant_kernels) */
    bool conv_state_bf16;      /* the recurrent layers' convolution window is held at bf16 whatever `state`
                                  says (SGLang: Mamba2StateDType's conv dtype, beside its fp32 SSM state;
                                  engine ssm_state_fp32); false: at the state's dtype (ops_conv_state_bytes) */
};

/* Bytes per element of the activations between kernels. An 8-bit (or narrower) compute dtype is
 * what the GEMMs read, not what flows between them: W8A8 engines quantize each GEMM's input and
 * keep the residual stream, the norms, attention's Q/K/V and output and the MLP's intermediate
 * 16-bit (vLLM's apply_fp8_linear: scaled_fp8_quant of the bf16 input, then cutlass_scaled_mm,
 * whose output is bf16; SGLang's fp8_utils.py the same; TensorRT-LLM's FP8 recipe swaps only the
 * linear layers). docs/model.md "8-bit activations". */
double ops_stream_bytes(const struct llmroof_dtypes *dt);
/* Bytes of an attention output element: ops_stream_bytes, or the 8-bit GEMM input where the
 * engine's attention writes the O projection's quantized input itself (act_quant fused). */
double ops_attn_out_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt);

/* Bytes per recurrent-state element: the state dtype when set, else the model's 16-bit dtype (4 with
 * fp32 activations), whatever the KV dtype. */
double ops_state_bytes(const struct llmroof_dtypes *dt);
/* Bytes per element of a recurrent layer's convolution window: 2 where the engine holds it at bf16
 * (conv_state_bf16), else ops_state_bytes. */
double ops_conv_state_bytes(const struct llmroof_dtypes *dt);
/* Mean bytes per recurrent-state element of model m (layers_state_elem_bytes at ops_state_bytes for
 * the state matrix and ops_conv_state_bytes for the window): what memory and a step's state
 * traffic charge an element. */
double ops_state_elem_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt);

/* Bytes per stored weight: weight_bits / 8 when set, else the weight dtype's size. */
static inline double ops_weight_bytes(const struct llmroof_dtypes *dt)
{
    return dt->weight_bits > 0 ? dt->weight_bits / 8.0 : dtype_bytes(dt->weight);
}
/* Weight-only formats (stored narrower than the 16/32-bit activations): the activations' bytes per
 * stored weight byte, what a dequantize-then-GEMM engine writes and reads back per stored byte
 * (roofline.h); 0 where the weights are not narrower or the activations are 8-bit or narrower. */
double ops_dequant_ratio(const struct llmroof_dtypes *dt);

/* Whether the matrices of a checkpoint module (LLMROOF_CKPT_* bit) are the checkpoint's quantized
 * ones: a per-operator checkpoint (catalog "excluded", NVIDIA's NVFP4 DeepSeek-R1) that does not
 * exclude the module, with its bits below the weight dtype's (a narrower --weight-dtype or
 * --weight-bits serves every matrix so). docs/model.md "Mixed-precision checkpoints". */
static inline bool ops_ckpt_quantized(const struct llmroof_model *m, const struct llmroof_dtypes *dt, unsigned module)
{
    return m->ckpt_per_op && !(m->ckpt_excluded & module) && m->ckpt_bits / 8.0 < ops_weight_bytes(dt);
}
/* Bytes per stored weight of a module's matrices: the checkpoint's bits where it quantized them
 * (ops_ckpt_quantized), else ops_weight_bytes. */
static inline double ops_module_weight_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt,
                                             unsigned module)
{
    return ops_ckpt_quantized(m, dt, module) ? m->ckpt_bits / 8.0 : ops_weight_bytes(dt);
}
/* Bytes per stored routed-expert weight: a checkpoint that ships its experts narrower than the
 * weight dtype (gpt-oss: MXFP4 experts, 4.25 bits with the e8m0 scale per 32; NVFP4 DeepSeek-R1:
 * 4.5 bits with the e4m3 scale per 16) keeps them so, as vLLM and SGLang serve them; otherwise
 * ops_weight_bytes. */
static inline double ops_expert_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    const double w = ops_weight_bytes(dt);
    if (m->ckpt_expert_bits > 0 && m->ckpt_expert_bits / 8.0 < w)
        return m->ckpt_expert_bits / 8.0;
    return ops_module_weight_bytes(m, dt, LLMROOF_CKPT_FFN);
}

/* One routed expert's width on a rank of sh as the engines allocate it: whole under EP, else the
 * rank's slice, which for experts stored as MXFP4 (gpt-oss, when ops_expert_bytes keeps its 4.25
 * bits) is padded to a multiple of 64, twice the format's block of 32: vLLM's Mxfp4MoEMethod pads
 * intermediate_size_per_partition so on its default path (the Triton kernels on Hopper; its Marlin
 * path on A100/Ada pads to 128 and the hidden size to 3,072, FlashInfer's Blackwell kernels to 256
 * and 3,072, ROCm its own: not modelled), and the kernels stream and multiply the padding.
 * gpt-oss-120b at TP 8: 2880 / 8 = 360 -> 384 (+6.7%), TP 4: 720 -> 768, TP 2: 1440 -> 1472; at
 * TP 1 and under EP 2880 = 45 x 64. */
static inline double ops_expert_width(const struct llmroof_model *m, const struct llmroof_shard *sh,
                                      const struct llmroof_dtypes *dt)
{
    if (sh->ep > 1)
        return (double)m->moe_intermediate;
    const double w = sh->moe_intermediate_per_rank;
    if (m->ckpt_expert_bits > 0 && strcmp(m->ckpt_format, "mxfp4") == 0 &&
        ops_expert_bytes(m, dt) == m->ckpt_expert_bits / 8.0 && w < (double)m->moe_intermediate)
        return ceil(w / 64.0) * 64.0;
    return w;
}
/* The checkpoint modules (LLMROOF_CKPT_* bits) whose GEMMs run at *compute rather than at the
 * activation dtype: a W4A4 checkpoint's quantized modules (NVFP4: weights and activations e2m1
 * with an e4m3 scale per 16, *compute = fp4), and a block-fp8 checkpoint's linear layers served
 * at its fp8 weights under 16-bit activations (W8A8 block GEMMs, *compute = fp8: every GEMM but
 * the LM head). 0 for every other checkpoint: weight-only formats (gpt-oss's MXFP4 experts,
 * served W4A16 by vLLM's default backends) run at 16 bits. Whether the GPU has that path is
 * roofline.c's question (an absent fp4 or fp8 peak runs them at the activation dtype: vLLM's
 * Marlin W4A16 / W8A16 fallbacks). */
unsigned ops_ckpt_lowp_modules(const struct llmroof_model *m, const struct llmroof_dtypes *dt,
                               enum llmroof_dtype *compute);
/* Bytes per weight of the embedding and the MoE router (lm_head false) or of the LM head (true),
 * the matrices quantizers leave out: 16 bits (2 bytes) beside weights narrower than that, unless
 * dt->head_quantized (the engine's own formats quantize them too) or, for the LM head, a
 * per-operator checkpoint quantized it (its ckpt_bits); a block-fp8 checkpoint served at its fp8
 * weights (DeepSeek-V3/R1, Kimi-K2) ships them bf16 whatever the engine. docs/model.md
 * "Quantized weights: what stays 16-bit". */
double ops_unquantized_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt, bool lm_head);
/* The operator kinds (bit k: operator k) of those modules in a model: "ffn" the FFN operator (a
 * MoE layer's routed and shared experts, or a dense model's MLP), "dense_ffn" a MoE model's
 * dense layers. */
/* HBM bytes one norm instance moves for the residual add fused into it: the residual stream read and
 * written back, 2 x tokens x hidden x stream_bytes per add, the layer's adds (2; 1 with a parallel
 * block) shared over its arch_norms_per_layer norms (ops.c, the norm operator). */
double ops_norm_residual_bytes(const struct llmroof_model *m, double tokens, double stream_bytes);
unsigned ops_modules_to_ops(unsigned modules);

struct llmroof_op {
    double count;      /* instances in one forward pass (under two-batch overlap, both micro-batches'
                          instances); 0 = absent */
    double flops;      /* per instance, per rank, FLOP */
    double bytes;      /* per instance, per rank, HBM bytes read + written */
    double comm_bytes; /* per instance, collective message size in bytes (0 for local ops) */
    double kernels;    /* kernels one instance launches in a fused engine (RoPE with the QKV GEMM: 2) */
    double wbytes;     /* GEMMs: stored weight bytes one instance reads (inside `bytes`), else 0 */
};

struct llmroof_oplist {
    struct llmroof_op op[LLMROOF_OP_COUNT]; /* indexed by enum llmroof_opkind */
    double experts_hit;                     /* MoE: expected distinct experts per layer (this rank's under EP), else 0 */
    double expert_wbytes;                   /* MoE: routed experts' weight bytes inside op[FFN].bytes, per instance */
    double tokens_per_expert;               /* MoE: routed assignments per expert hit on the (busiest) rank */
    double expert_flops;                    /* MoE: the routed experts' GEMM FLOPs inside op[FFN].flops, per instance */
    double shared_rows;                     /* MoE: the rows the shared experts' GEMMs inside op[FFN] run over
                                               (the rest of its FLOPs); 0 = none */
    bool expert_triton_ok;                  /* MoE: a Triton fused-MoE kernel may run the experts (8- or 16-bit
                                               weights, no data-parallel attention's DeepEP path) */
    bool expert_fp8;                        /* MoE: the experts are fp8 (a GPU without fp8 tensor cores runs
                                               them in Marlin's weight-only kernel, not Triton's) */
    double ep_busy;                         /* EP: the busiest rank's routed assignments over the mean
                                               (--ep-imbalance, or uniform routing's expected largest) */
    bool mla_absorbed;                      /* MLA step run with absorbed weights over the latent (decode) */
    bool mla;                               /* the model's attention is MLA (its engine code's launch cost:
                                               engine launch_mla_s) */
    bool dp_prompt;                         /* data-parallel attention: some replica runs prompt work this
                                               step, so no replica replays a decode graph (the instance
                                               decides: estimate_ops_replicas) */
    int ep_ranks;                           /* all-to-all group (expert parallelism), 0 = none */
    double a2a_topk;                        /* all-to-all: copies of each token (routed experts, top-k) */
    double a2a_groups, a2a_topk_groups;     /* ... and the groups they come from (group-limited routing;
                                               0 = plain top-k): comm_moe_fanout */
    bool a2a_overlap;                       /* two-batch overlap: the all-to-all hides under compute
                                               (set with micro_batches 2) */
    double micro_batches;                   /* 1, or 2 where two-batch overlap runs the step as two
                                               micro-batches one after the other through the decoder
                                               layers (ops_two_batches): every per-layer operator is
                                               then a micro-batch's (half the tokens and sequences,
                                               the weights it reads read in full) and its count
                                               doubled; the final norm, the LM head and the logits'
                                               gather stay one call over the whole batch */
    bool a2a_normal;                        /* all-to-all by DeepEP's normal kernels (prefill-type step:
                                               once per node over the network, NVLink forwarding);
                                               false: low-latency kernels (decode, one send per GPU) */
    int stage_gpus;                         /* GPUs per pipeline stage (pp_send placement), 0 = no PP */
    int mlp_ranks;                          /* op[MLP_GATHER]'s group (--moe-tp), 0 = none */
    int lm_ranks;                           /* op[ALL_GATHER]'s group where the LM head spans the replicas
                                               (shard lm_ranks), 0 = the attention TP group */
    double attn_kv_bytes;                   /* the K/V-cache reads inside op[ATTENTION].bytes, per instance */
    double attn_local_kv_bytes;             /* the same for op[ATTN_LOCAL] (windowed layers), per instance */
    bool local_sliding;                     /* op[ATTN_LOCAL]'s layers slide a window (FlashAttention's
                                               window_size); false: chunked (Llama 4), run without one */
    bool longer_query;                      /* a sequence of the step has more than one new token (a
                                               varlen attention call's max_seqlen_q > 1) */
    bool kv_8bit;                           /* the K/V cache holds 8-bit (or narrower) elements */
    bool fa2_unfit;                         /* FlashAttention-2 cannot run this attention: learned sinks
                                               (gpt-oss) or a K/V cache not of the queries' 16-bit dtype */
    double q_per_kv;                        /* query heads per KV head on a rank (GQA group size; 1 for MLA) */
    double tokens;                          /* new tokens of the step on one rank */
    double new_per_seq;                     /* new tokens per sequence (1 in a decode step) */
    double keys_per_seq;                    /* keys each sequence attends to, mean (the attention length) */
    double attn_heads;                      /* query heads on a rank (eager attention's score matrices) */
    double dsa_pairs;                       /* DSA (dsa_top_k > 0): the valid (query, key) pairs in
                                               op[ATTENTION], each query's min(keys, top_k); 0 otherwise */
    double dsa_full_pairs;                  /* DSA: every query's top_k entries (tokens x top_k), what a
                                               kernel that runs the whole index list computes (engine
                                               dsa_flashmla_pad) */
    double dsa_decode_pairs;                /* DSA: those sequences' valid pairs, capped at top_k a query at
                                               their mean sequence */
    double dsa_decode_tokens;               /* DSA: the few-query sequences' tokens (decodes, speculative
                                               verification), which vLLM runs in FlashMLA's decode kernel */
    double attn_square;                     /* new x keys pairs / causal pairs (eager attention's FLOPs) */
    double attn_local_full_flops;           /* a windowed layer's attention over every key, per instance: */
    double attn_local_full_bytes;           /* what eager attention computes (it masks, not windows) */
    double dequant_ratio;                   /* weight-only formats: 16-bit bytes per stored weight byte
                                               (int4 at 4.5 bits: 3.56), else 0 */
    unsigned lowp_ops;                      /* bit k: operator k's GEMMs run at lowp_dtype's peak, not the
                                               activation dtype's (a W4A4 checkpoint's quantized GEMMs,
                                               a block-fp8 one's W8A8 GEMMs: ops_ckpt_lowp_modules),
                                               0 = none */
    enum llmroof_dtype lowp_dtype;          /* that dtype (fp4, fp8) */
    bool lowp_nvfp4;                        /* those GEMMs are NVFP4's (e4m3 scales per 16), which only
                                               NVIDIA's fp4 tensor cores take (ckpt_gpu_native) */
    double lowp_save_bytes;                 /* op[FFN], per instance: the HBM bytes the routed experts'
                                               activations save at lowp_dtype (W4A4 grouped GEMMs read
                                               their rows at its width), charged where the GPU has it */
    double gemm_out[LLMROOF_OP_COUNT];      /* the output elements (rows x columns) of operator k's GEMMs,
                                               per instance, where its block-fp8 GEMMs need them (a
                                               per-tile cost per output element, roofline.c); else 0 */
    unsigned block_fp8_ops;                 /* bit k: operator k's GEMMs are block-scaled fp8 (a block-fp8
                                               checkpoint served at its weights), timed at the GPU's
                                               gemm_block_fp8 share when they compute in fp8 */
    double a2a_recv_factor;                 /* op[ALL_TO_ALL]: the busiest GPU's receive over the mean that
                                               its message carries (ops_a2a_receive_factor); 1 = none */
    double a2a_lowp_save_bytes;             /* op[ALL_TO_ALL], per message: what an fp8 dispatch saves
                                               (1 + 4/128 bytes per element, not the 16-bit act's) when
                                               a block-fp8 checkpoint's experts run at lowp_dtype,
                                               charged where the GPU has that path */
};

/* Builds the operator list of one step. Pure; never fails once `sh` is valid. Under two-batch
 * overlap (sh->two_batch_overlap) a step that splits (ops_two_batches) is built as its two
 * micro-batches (struct llmroof_oplist micro_batches). */
void ops_build(const struct llmroof_model *m, const struct llmroof_shard *sh,
               const struct llmroof_dtypes *dt, const struct llmroof_batch *b, struct llmroof_oplist *out);
/* ops_build with the split decided by the caller: `two` runs the step as two micro-batches
 * (ignored where the layout has no all-to-all), false as one batch whatever the shard says
 * (estimate_ops_replicas decides for every replica at once; a drafter never splits). */
void ops_build_split(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                     const struct llmroof_batch *b, bool two, struct llmroof_oplist *out);
/* Whether two-batch overlap splits step `b` (the whole step's batch, spread over the shard's
 * attention replicas) into two micro-batches: the layout asks for it (EP over data-parallel
 * attention, --two-batch-overlap, a MoE model) and the mean replica has two to split: a
 * decode-type step 2 sequences, a prefill-type step (more new tokens than sequences) 2 tokens
 * (SGLang splits a decode batch at half its sequences and a prefill batch at half its tokens,
 * cutting a prompt in two where whole prompts would not balance: two_batch_overlap.py
 * compute_split_seq_index, _is_two_chunk_split_enabled). */
bool ops_two_batches(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_batch *b);

/* Rebuilds in `out` only the operators that depend on the context (attention, windowed
 * attention, the attention K/V bytes, MLA's decompression) for batch `b`, which must have the
 * tokens and sequences of the batch `out` was built for: a decode step at another context
 * costs this instead of a whole ops_build (estimate.c's last step). A list built as two
 * micro-batches (out->micro_batches 2) rebuilds them as each micro-batch's half of `b`. */
void ops_set_context(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                     const struct llmroof_batch *b, struct llmroof_oplist *out);

/* The operators ops_set_context rebuilds (bit k: operator k): the only ones whose terms move
 * with the context (estimate.c lists the same four for its mean decode step). */
#define OPS_CONTEXT_MASK                                                                                            \
    ((1u << LLMROOF_OP_ATTENTION) | (1u << LLMROOF_OP_ATTN_LOCAL) | (1u << LLMROOF_OP_MLA_KV_UP) |                  \
     (1u << LLMROOF_OP_DSA_INDEX))
/* Copies into dst what ops_set_context and a roofline of the context operators read: those
 * operators and every step-wide field (everything but the other operators' entries, which stay
 * as they were, ~1 KB not copied). estimate.c builds its last decode step so. */
void ops_copy_context(struct llmroof_oplist *dst, const struct llmroof_oplist *src);

/* The shared experts' part of the FFN operator (one MoE layer) per token a rank feeds them, with
 * expert parallelism over data-parallel attention replicas (each replica runs the whole shared
 * MLP on its own tokens, T / tp per rank): FLOPs, bytes (activations and, block fp8, the input
 * and intermediate quantization) and GEMM output elements. Zero in any other layout or without
 * shared experts. estimate_ops_replicas adds the busiest replica's tokens' share of it. */
void ops_shared_expert_per_token(const struct llmroof_model *m, const struct llmroof_shard *sh,
                                 const struct llmroof_dtypes *dt, double *flops, double *bytes, double *gemm_out);

/* How many times the mean rank's all-to-all message the busiest receiver's is, given its share of
 * the routed assignments over the mean (ep_busy): ep_busy under the low-latency kernels (each of
 * a token's k copies is written to its expert), less under the normal ones (a token reaches a GPU
 * once, however many of its experts sit there); 1 without imbalance. ops_set_all_to_all's factor. */
double ops_a2a_receive_factor(const struct llmroof_model *m, const struct llmroof_shard *sh, bool normal, double ep_busy);

/* Sets op[ALL_TO_ALL], ep_ranks, a2a_topk and a2a_normal for the T tokens (of S sequences) one
 * rank dispatches: its attention replica's tokens over the replica's attention-TP ranks
 * (docs/model.md "Layouts": dtypes per direction, normal vs low-latency). */
void ops_set_all_to_all(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                        double T, double S, struct llmroof_oplist *out);

/* One draft step of a speculative head running on the target's GPUs, over batch `b` (one token
 * per decoding sequence). medusa_heads == 0: an EAGLE head or an MTP module, one decoder layer of
 * the target (its mean layer: counts / layers) plus EAGLE's fusing projection (2h -> h, whole on
 * every rank: ops_eagle_fc_bytes) and the
 * final norm and LM head over the vocabulary: the LM head alone is about 2.4 layers of Llama-3-8B
 * (4096 x 128,256 x 2 bytes = 1.05 GB against 436 MB per layer; EAGLE and DeepSeek-V3's MTP reuse
 * the target's LM head for each draft token). medusa_heads = K > 0: K Medusa heads, each a
 * residual block (h x h, SiLU) and its own projection to the vocabulary (Cai et al. 2024, §2.1.1),
 * all in one step. The step's overhead (launches, synchronisation before the next draft token
 * can be sampled) is roofline_eval's, charged per draft step by the caller. */
/* The shape of a draft head's pass where it is not the target's plain layer. EAGLE-1/2 (and an
 * MTP module, whose eh_proj is the same projection) fuse the target's feature with the token
 * embedding (2h -> h) at every pass and draft over the target's vocabulary with its LM head.
 * EAGLE-3 (Li et al. 2025, "EAGLE-3: Scaling up Inference Acceleration of Large Language Models
 * via Training-Time Test"; SGLang's llama_eagle3.py, vLLM's llama_eagle3.py) fuses three of the
 * target's layers (3h -> h) only at the pass that starts from the target's features, feeds the
 * embedding beside the hidden state into its attention (q/k/v projections of 2h inputs), and
 * drafts over its own, smaller vocabulary (config draft_vocab_size, 32,000 in the released
 * drafts, mapped back to the target's ids by a d2t table) with its own LM head. */
struct ops_head {
    double fc_in;     /* hidden widths into the fusing projection to h: 2, 3 (EAGLE-3's first pass), 0 none */
    double attn_in;   /* hidden widths into the layer's q/k/v projection: 1, EAGLE-3 2 */
    double vocab;     /* the head's vocabulary: the target's, EAGLE-3's draft_vocab_size */
    double mlp_width; /* an EAGLE head's own dense MLP on a mixture-of-experts target, its width
                         (ops_eagle_mlp_width, or the config's intermediate_size); 0: the target's
                         mean layer's MLP (an MTP module, which is a layer of its target, or any
                         head of a dense target whose config does not give it another width) */
    const struct llmroof_draft_head *own; /* the head's own layer shape (--spec-draft-config): its
                         q/k/v/o, attention and K/V are a Llama layer of these heads (ops_head_attn);
                         NULL: the target's mean layer's attention */
    bool apart;       /* an EAGLE-family head, trained and shipped apart from its target: its weights
                         are its own 16 bits (ops_head_dtypes), not the target's checkpoint's; false:
                         an MTP module, a layer of the target's own checkpoint at its dtypes */
};
/* The dtypes of a speculative head whose weights ship apart from its target (EAGLE, EAGLE-3,
 * Medusa): dt with the weights at 16 bits, own's torch_dtype where its config names one (else a
 * 16-bit target's own dtype, else the activations' 16-bit one, bf16 beside 8-bit activations; fp32
 * beside fp32 activations), unquantized
 * (no --weight-bits, no quantized head), and the activations 16-bit where dt's are 8-bit or
 * narrower (an unquantized head's GEMMs run W16A16); the KV, state and quantization-kernel settings
 * dt's. The released heads are 16-bit whatever the target's checkpoint (SpecForge's DeepSeek-V3
 * head for the fp8 checkpoint: torch_dtype float16), and neither engine quantizes them with the
 * target: vLLM loads a draft at its target's model dtype with the speculative config's own
 * quantization, None by default (vllm/config/speculative.py: dtype=target_model_config.dtype,
 * quantization=self.quantization), SGLang at --speculative-draft-model-quantization, else the
 * target's --quantization flag, which a checkpoint's own quantization_config does not set. own
 * NULL: no config. */
struct llmroof_dtypes ops_head_dtypes(const struct llmroof_dtypes *dt, const struct llmroof_draft_head *own);
/* *hm: the target m without its checkpoint's formats (no block fp8, per-operator or expert
 * formats), the model a head of its own weights is costed on (ops_build_draft,
 * memory_head_drafter_own): its GEMMs then run at ops_head_dtypes' 16 bits, none of them on the
 * checkpoint's fp8 or fp4 path. */
void ops_head_model(const struct llmroof_model *m, struct llmroof_model *hm);
/* The activation dtype a draft step built by ops_build_draft computes at (roofline_eval's `act`):
 * ops_head_dtypes' for Medusa's heads (medusa_heads > 0) and a head apart (head NULL: EAGLE's),
 * else dt's. */
enum llmroof_dtype ops_draft_act(const struct llmroof_dtypes *dt, int medusa_heads, const struct ops_head *head);
/* EAGLE's and an MTP module's pass (eagle3_vocab 0), or EAGLE-3's first (from the target's
 * features) or later pass over a vocabulary of eagle3_vocab tokens (at most the target's).
 * eagle: an EAGLE-family head (EAGLE-1/2/3), whose layer is a dense Llama decoder layer of its
 * own; false: an MTP module, one of the target's own layers (DeepSeek-V3's is a MoE layer). */
struct ops_head ops_head_shape(const struct llmroof_model *m, long eagle3_vocab, bool first, bool eagle);
/* ops_head_shape for an EAGLE-family head (eagle) with its own config (own non-NULL with heads > 0;
 * else exactly ops_head_shape): own->intermediate is its MLP width in place of ops_eagle_mlp_width's
 * rule (on a dense target only where it differs from the target's plain MLP, which the mean layer
 * then stands for as before), and `own` shapes its attention (ops_build_draft). */
struct ops_head ops_head_shape_own(const struct llmroof_model *m, const struct llmroof_draft_head *own,
                                   long eagle3_vocab, bool first, bool eagle);
/* The draft head's decoder layer as a one-layer dense Llama model of its own (*am: the target's
 * hidden size, dtypes-relevant checkpoint fields, vocabulary and norm kind; own's heads, KV heads,
 * head_dim, width and attention bias; no MLA, window, recurrent layers, experts or sparse
 * attention) and its shard at sh's TP and replicas (*ash: sh with the head's per-rank heads, KV
 * heads and width). Fails, naming the config's field, where TP does not divide the head's query
 * heads or its KV heads and TP do not divide one another (as ops_shard asks of a model: vLLM and
 * SGLang shard the draft layer over the target's attention TP); *ash then rounds up. */
int ops_head_attn(const struct llmroof_model *m, const struct llmroof_draft_head *own, const struct llmroof_shard *sh,
                  struct llmroof_model *am, struct llmroof_shard *ash, struct llmroof_err *err);
/* The MLP width of an EAGLE head drafting for a mixture-of-experts target: a dense SwiGLU as wide
 * as the experts one token runs, (top-k + shared) x the expert width. The released heads are dense
 * LlamaDecoderLayers (EAGLE-3's LlamaForCausalLMEagle3): Kimi-K2's (AQ-MedAI/Kimi-K2-Instruct-eagle3)
 * is 18,432 wide, this rule's (8 + 1) x 2,048; SpecForge's configs for gpt-oss-120b (17,280 against
 * 4 x 2,880 = 11,520) and DeepSeek-V3 (40,960 against 18,432) are wider. 0 for a dense model. */
double ops_eagle_mlp_width(const struct llmroof_model *m);
/* The weight bytes of that dense MLP on one rank of `sh` (split over the attention-TP group, as
 * the head's layer; whole on each data-parallel attention replica), at dt's weight bytes (the
 * head's: ops_head_dtypes). */
double ops_eagle_mlp_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh,
                           const struct llmroof_dtypes *dt);
/* head NULL: EAGLE's shape, ops_head_shape(m, 0, true, true). Medusa's heads and a head apart
 * (EAGLE, EAGLE-3) are built on ops_head_model at ops_head_dtypes, their weights the head's own
 * 16 bits whatever the target's checkpoint; an EAGLE-1/2 head reads the target's LM head at the
 * target's bytes; an MTP module is the target's layer at dt. */
void ops_build_draft(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                     const struct llmroof_batch *b, int medusa_heads, const struct ops_head *head,
                     struct llmroof_oplist *out);
/* The weight bytes an EAGLE-3 head holds on one rank of `sh` beyond its decoder layer (the target's
 * mean layer's attention and MLP, or its own: memory_head_drafter_own) and its fusing projection
 * (ops_eagle_fc_bytes): the q/k/v projection's second h of inputs (TP sharded as the target's) and
 * its own LM head over eagle3_vocab tokens (vocabulary-parallel as the target's: shard
 * lm_vocab_per_rank). 0 for EAGLE-1/2 (eagle3_vocab 0), which read the target's LM head. */
double ops_eagle3_extra_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh,
                              const struct llmroof_dtypes *dt, long eagle3_vocab);
/* The same for a head with its own layer (own non-NULL, heads > 0): the q/k/v projection's second
 * h of inputs at the head's q/k/v width (ops_head_attn); own NULL: ops_eagle3_extra_bytes. */
double ops_eagle3_extra_bytes_own(const struct llmroof_model *m, const struct llmroof_draft_head *own,
                                  const struct llmroof_shard *sh, const struct llmroof_dtypes *dt, long eagle3_vocab);
/* The weight bytes of an EAGLE head's fusing projection fc on every rank: fc_in x h x h at dt's
 * weight bytes (the head's: ops_head_dtypes), 2h -> h for EAGLE-1/2 (eagle3_vocab 0), 3h -> h for
 * EAGLE-3. Replicated, not split over TP: vLLM's llama_eagle.py builds it as torch.nn.Linear and
 * llama_eagle3.py as ReplicatedLinear, SGLang's llama_eagle.py and llama_eagle3.py as
 * torch.nn.Linear (each in its LlamaModel); ops_build_draft reads it whole at the pass that fuses. */
double ops_eagle_fc_bytes(const struct llmroof_model *m, const struct llmroof_dtypes *dt, long eagle3_vocab);
/* Weight bytes that `heads` Medusa heads hold on one rank of `sh`, those ops_build_draft reads:
 * each its h x h residual block and its own projection to the rank's share of the vocabulary, at
 * the LM head's bytes per weight (ops_unquantized_bytes). */
double ops_medusa_bytes(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                        int heads);

/* Expected distinct experts that `tokens` tokens touch with top-k routing over E
 * experts, assuming uniform independent routing: E * (1 - (1 - k/E)^tokens). */
double ops_experts_hit(double experts, double top_k, double tokens);
/* The expected largest of m independent Binomial(n, p) counts: exactly (the sum of P(max > j))
 * where the spread is small (variance <= 25), else mean + sd x the expected largest of m standard
 * normals (Blom's approximation). The busiest of m expert-parallel ranks under uniform routing. */
double ops_binomial_expected_max(double n, double p, int m);

#endif
