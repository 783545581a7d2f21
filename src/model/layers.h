/* layers.h - per-layer-kind counts and costs: which layers hold attention (full or windowed),
 * a recurrent linear-attention / state-space mixer, or nothing, and which a dense MLP or a MoE;
 * the parameters, state and per-step cost of the recurrent mixers and of DeepSeek Sparse
 * Attention's indexer. Formulas and sources: docs/model.md "Layer kinds". */
#ifndef LLMROOF_LAYERS_H
#define LLMROOF_LAYERS_H

#include <stdbool.h>

#include "data/catalog.h"
#include "model/ops.h"

/* Layers of each kind among layers [start, start + n). */
struct llmroof_layer_counts {
    double full;      /* softmax attention over the whole context */
    double local;     /* softmax attention over a window or chunk */
    double linear;    /* recurrent mixer (linear attention / SSM): constant state, no KV cache */
    double dense;     /* dense MLP */
    double moe;       /* mixture of experts */
    double dense_width; /* sum of the dense layers' MLP widths (ffn_widths, else intermediate), elements */
};

/* True when the model lists its layers one by one (mixers/ffns set). */
static inline bool layers_patterned(const struct llmroof_model *m)
{
    return m->mixers[0] != '\0'; /* inline: every operator build asks it */
}
/* Counts for layers [start, start + n); without a pattern, the window and MoE rules of the
 * model (every layer attention). */
struct llmroof_layer_counts layers_count(const struct llmroof_model *m, long start, long n);

/* Mean MLP width of the dense layers among [start, start + n): intermediate unless the model lists
 * per-layer widths (NAS block_configs); intermediate when the range holds no dense layer. Costs
 * are linear in the width, so count x (cost at the mean width) is the sum over the layers. */
double layers_dense_width(const struct llmroof_model *m, long start, long n);

/* Parameters of one recurrent mixer layer (projections, short convolution, gates, norm). */
double layers_linear_params(const struct llmroof_model *m);
/* ... of them, those one of tp tensor-parallel ranks holds: the heads' share, and whole what every
 * rank keeps (KDA's low-rank gates' first halves; a Mamba-2 group copied to each rank where the
 * groups are fewer than the ranks) */
double layers_linear_params_rank(const struct llmroof_model *m, int tp);
/* State elements one sequence keeps in one recurrent layer: the recurrent state matrix of
 * every head plus the short convolution's last (kernel - 1) inputs. */
double layers_state_elems(const struct llmroof_model *m);
/* ... of them, those one of tp ranks holds (a copied Mamba-2 group's window whole) */
double layers_state_elems_rank(const struct llmroof_model *m, int tp);
/* Of those, the short convolution's window: (kernel - 1) inputs of its channels (0 without one). */
double layers_conv_state_elems(const struct llmroof_model *m);
/* Mean bytes per state element of one recurrent layer whose state matrix is held at s bytes an
 * element and its convolution window at sc (SGLang: the SSM state fp32, the window bf16). */
double layers_state_elem_bytes(const struct llmroof_model *m, double s, double sc);
/* State elements of one sequence in the whole model (all recurrent layers). */
double layers_state_elems_per_seq(const struct llmroof_model *m);
/* One recurrent layer's operator on one rank for T new tokens of S sequences (a decode step
 * when T <= S): projections, convolution, scan (recurrent or chunked) and the state read and
 * written once per sequence. a, w, s: activation, weight and state bytes per element. */
struct llmroof_op layers_linear_op(const struct llmroof_model *m, const struct llmroof_shard *sh, double T, double S,
                                   double a, double w, double s);

/* DeepSeek Sparse Attention: indexer parameters of one layer (0 without DSA). */
double layers_dsa_params(const struct llmroof_model *m);
/* Bytes the indexer caches per token of one layer, whatever the KV dtype: its key in fp8 and one
 * fp32 scale per 128 (132 at a key of 128; 0 without DSA). */
double layers_dsa_key_bytes(const struct llmroof_model *m);
/* Bytes of one token's MLA latent and rope key at kv_bytes per element: (r + p) kv_bytes, but an
 * 8-bit cache of a DSA model is FlashMLA's sparse fp8 layout, the latent in fp8 with one fp32
 * scale per 128 and the rope key in 16 bits (656 B at r 512, p 64). */
double layers_mla_latent_bytes(const struct llmroof_model *m, double kv_bytes);
/* The indexer of one layer: scores every (query, past key) pair, `pairs`, over its own cache
 * of `keys` keys (layers_dsa_key_bytes each); T new tokens. */
struct llmroof_op layers_dsa_op(const struct llmroof_model *m, double T, double pairs, double keys, double a, double w);

#endif
