/* arch.h - figures derived from a model's architecture alone (no hardware).
 * Formulas: docs/model.md section "Parameters and KV cache". */
#ifndef LLMROOF_ARCH_H
#define LLMROOF_ARCH_H

#include <stdbool.h>

#include "data/catalog.h"

struct llmroof_params {
    double attention;   /* q, k, v, o weights and biases (MLA: low-rank projections and latent norms), all layers */
    double mlp;         /* dense MLP or all experts + shared experts + routers, all layers */
    double norms;       /* every norm weight (and bias for LayerNorm), incl. final norm */
    double embedding;   /* token embedding + learned positions */
    double lm_head;     /* 0 when tied to the embedding */
    double total;       /* sum of the above */
    double active;      /* parameters touched per token (MoE: top-k experts only) */
    double experts;     /* routed-expert weights of all MoE layers (0 for dense models) */
};

/* Parameter count by component. */
struct llmroof_params arch_params(const struct llmroof_model *m);

/* Layers whose MLP is a mixture of experts: those i >= moe_first_dense with
 * (i+1) % moe_layer_step == 0 (DeepSeek first_k_dense_replace, Qwen decoder_sparse_step,
 * Llama-4 interleave_moe_layer_step); 0 for a dense model. */
long arch_moe_layers(const struct llmroof_model *m);

/* Layers with a sliding window (or chunk); the others attend to the whole context. */
long arch_local_layers(const struct llmroof_model *m);

/* True for multi-head latent attention (kv_lora_rank > 0). */
static inline bool arch_is_mla(const struct llmroof_model *m)
{
    return m->kv_lora_rank > 0; /* inline: every operator build asks it several times */
}

/* Norm vectors per layer (2, 1 with parallel attention, 4 for Gemma-2/3). */
double arch_norms_per_layer(const struct llmroof_model *m);

/* KV-cache elements per token of one layer at the KV dtype: 2 * kv_heads * head_dim, or MLA's
 * kv_lora_rank + qk_rope_head_dim (the latent and the shared rotary key). A DSA indexer's keys
 * are bytes beside them (arch_kv_bytes_per_token_layer). */
double arch_kv_elems_per_token_layer(const struct llmroof_model *m);

/* KV-cache bytes per token of one layer at kv_bytes per element: the elements above, plus a DSA
 * indexer's fp8 key and scale (layers_dsa_key_bytes), whatever the KV dtype. */
double arch_kv_bytes_per_token_layer(const struct llmroof_model *m, double kv_bytes);

/* KV-cache bytes per token for the whole model, every attention layer holding it. */
double arch_kv_bytes_per_token(const struct llmroof_model *m, double kv_bytes);

/* KV-cache elements per token for the whole model, every layer holding it
 * (no window cut): layers * arch_kv_elems_per_token_layer. */
double arch_kv_elems_per_token(const struct llmroof_model *m);

/* KV-cache elements one sequence of `context` tokens holds: global layers keep every
 * token, local layers min(context, window) (sliding) or min(context, chunk). */
double arch_kv_elems_per_seq(const struct llmroof_model *m, double context);

/* Token positions of K/V one sequence of `context` tokens holds, averaged over the layers:
 * arch_kv_elems_per_seq / arch_kv_elems_per_token (context without windows; Mistral-7B at
 * 8,192 tokens: 4,096). A disaggregated prefill hands over this many tokens' worth of K/V,
 * the window of its local layers only. */
double arch_kv_tokens_held(const struct llmroof_model *m, double context);

/* Sum over the queries at positions past+1 .. past+new of the keys each one attends to,
 * with a sliding window w (min(j, w)), a chunk c (((j-1) mod c) + 1) or neither (w = 0: j).
 * Closed forms in arch.c. */
double arch_attn_pairs(double new_tokens, double past_tokens, double window, bool chunked);

/* Distinct keys those queries read from the cache (flash attention reads each once). */
double arch_attn_keys(double new_tokens, double past_tokens, double window, bool chunked);

/* Layers with softmax attention (full or windowed): all of them without a layer pattern. */
long arch_attn_layers(const struct llmroof_model *m);
/* Layers with a recurrent (linear-attention / SSM) mixer. */
long arch_linear_layers(const struct llmroof_model *m);
/* Layers with a dense MLP (without a pattern: layers - MoE layers). */
long arch_dense_layers(const struct llmroof_model *m);
/* Every layer count above at once (a patterned model's layers counted in one pass, not five):
 * the values arch_attn_layers, arch_local_layers, arch_linear_layers, arch_moe_layers and
 * arch_dense_layers return. ops_build needs all five for every step it builds. */
struct arch_layer_kinds {
    long attn;   /* softmax attention layers, full or windowed (arch_attn_layers) */
    long local;  /* of them windowed or chunked (arch_local_layers) */
    long linear; /* recurrent mixer layers (arch_linear_layers) */
    long moe;    /* MoE layers (arch_moe_layers) */
    long dense;  /* dense-MLP layers (arch_dense_layers) */
};
struct arch_layer_kinds arch_layer_kinds(const struct llmroof_model *m);
/* Recurrent state elements one sequence holds, all layers (0 without recurrent layers). */
double arch_state_elems_per_seq(const struct llmroof_model *m);

/* Width of all query heads (heads * head_dim), elements. */
double arch_q_width(const struct llmroof_model *m);

#endif
