/* arch.h - figures derived from a model's architecture alone (no hardware).
 * Formulas: docs/model.md section "Parameters and KV cache". */
#ifndef LLMROOF_ARCH_H
#define LLMROOF_ARCH_H

#include "llmroof/catalog.h"

struct llmroof_params {
    double attention;   /* q, k, v, o weights and biases, all layers */
    double mlp;         /* dense MLP or all experts + shared experts + routers, all layers */
    double norms;       /* every norm weight (and bias for LayerNorm), incl. final norm */
    double embedding;   /* token embedding + learned positions */
    double lm_head;     /* 0 when tied to the embedding */
    double total;       /* sum of the above */
    double active;      /* parameters touched per token (MoE: top-k experts only) */
};

/* Parameter count by component. */
struct llmroof_params arch_params(const struct llmroof_model *m);

/* KV-cache elements per token for the whole model: 2 * layers * kv_heads * head_dim. */
double arch_kv_elems_per_token(const struct llmroof_model *m);

/* Width of all query heads (heads * head_dim), elements. */
double arch_q_width(const struct llmroof_model *m);

#endif
