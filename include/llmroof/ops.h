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

#include <stdbool.h>

#include "llmroof/catalog.h"
#include "llmroof/dtype.h"
#include "llmroof/err.h"

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
    LLMROOF_OP_COUNT
};

const char *op_name(enum llmroof_opkind k);      /* "qkv_proj" */
bool op_is_collective(enum llmroof_opkind k);

/* What one step processes; sums over its sequences. */
struct llmroof_batch {
    double tokens;          /* new tokens in the step, all sequences */
    double seqs;            /* sequences in the step; each yields one logits row */
    double attn_pairs;      /* sum of causal (query, key) pairs */
    double kv_read_tokens;  /* sum of keys read per sequence (cached + new) */
};

/* Adds a sequence that processes `new_tokens` after `past_tokens` already cached:
 * pairs += new*past + new*(new+1)/2; keys read += past + new. */
void batch_add(struct llmroof_batch *b, double new_tokens, double past_tokens);
/* B prompts of P tokens from an empty cache. */
struct llmroof_batch batch_prefill(double batch, double prompt);
/* B decode tokens, each attending to `context` keys (its own included). */
struct llmroof_batch batch_decode(double batch, double context);

struct llmroof_shard {
    int tp;                      /* tensor-parallel ranks */
    long heads_per_rank;         /* query heads on one rank */
    long kv_heads_per_rank;      /* KV heads held by one rank (1 when replicated) */
    bool kv_replicated;          /* KV heads < TP: each KV head is copied on TP/KV ranks */
    double intermediate_per_rank;     /* dense MLP width on one rank */
    double moe_intermediate_per_rank; /* one expert's width on one rank */
    double vocab_per_rank;       /* vocabulary rows on one rank */
};

/* Checks that TP divides the heads and that KV heads and TP divide one another
 * (as vLLM and Megatron require); fills the per-rank shapes. */
int ops_shard(const struct llmroof_model *m, int tp, struct llmroof_shard *out, struct llmroof_err *err);

struct llmroof_dtypes {
    enum llmroof_dtype weight; /* stored weights */
    enum llmroof_dtype kv;     /* KV cache */
    enum llmroof_dtype act;    /* activations and the compute peak used */
    double weight_bits;        /* effective bits per weight incl. group scales (q4_0: 4.5); 0 = the dtype's */
};

/* Bytes per stored weight: weight_bits / 8 when set, else the weight dtype's size. */
double ops_weight_bytes(const struct llmroof_dtypes *dt);

struct llmroof_op {
    double count;      /* instances in one forward pass; 0 = absent */
    double flops;      /* per instance, per rank, FLOP */
    double bytes;      /* per instance, per rank, HBM bytes read + written */
    double comm_bytes; /* per instance, collective message size in bytes (0 for local ops) */
    double kernels;    /* kernels one instance launches in a fused engine (RoPE with the QKV GEMM: 2) */
};

struct llmroof_oplist {
    struct llmroof_op op[LLMROOF_OP_COUNT]; /* indexed by enum llmroof_opkind */
    double experts_hit;                     /* MoE: expected distinct experts per layer, else 0 */
    double attn_kv_bytes;                   /* the K/V-cache reads inside op[ATTENTION].bytes, per instance */
    double q_per_kv;                        /* query heads per KV head on a rank (GQA group size) */
};

/* Builds the operator list of one step. Pure; never fails once `sh` is valid. */
void ops_build(const struct llmroof_model *m, const struct llmroof_shard *sh,
               const struct llmroof_dtypes *dt, const struct llmroof_batch *b, struct llmroof_oplist *out);

/* Expected distinct experts that `tokens` tokens touch with top-k routing over E
 * experts, assuming uniform independent routing: E * (1 - (1 - k/E)^tokens). */
double ops_experts_hit(double experts, double top_k, double tokens);

#endif
