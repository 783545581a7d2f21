/* stepcost.h - a decode-only step's time at another context, cheaply and exactly.
 *
 * The simulator costs every decode-only iteration of n sequences (one new token each); from one
 * iteration to the next only the keys read change, and with them only the operators that attend
 * to the context (ops_set_context). A stepcost holds the step built once for n and re-times it
 * at another context: the context operators are rebuilt in place, and where the step's only
 * context operator is plain global attention (most dense models) its time is taken straight from
 * the roofline's attention formula and the phase total summed again in operator order; the
 * result is the double that ops_build + roofline_eval give for the same batch (the same
 * operations on the same numbers), which stepcost_build checks on the batch it is built for
 * (a mismatch falls back to re-evaluating the context operators with roofline_eval). */
#ifndef LLMROOF_STEPCOST_H
#define LLMROOF_STEPCOST_H

#include <stdbool.h>

#include "model/estimate.h"

struct stepcost {
    double seqs;                  /* the batch's sequences (= its tokens); 0: not built */
    bool fast;                    /* the attention-only shortcut (checked at build) */
    struct llmroof_oplist part;   /* the step's operators, the context-free ones' counts at 0 */
    struct llmroof_phase whole;   /* the step's roofline at its latest context */
    double apeak, abw, kf;        /* attention's peak FLOP/s and bandwidth after efficiencies,
                                     the engine's kernel factor (roofline.c, rl_ctx_of) */
    /* the fast path's attention operator (ops.c, attention_op and ops_set_context) from the
     * batch's pairs and keys: its count and kernels, 4 d Hq (FLOPs per pair), the new tokens'
     * Q and output bytes, the per-rank factors of the K/V bytes, the replicas */
    double count, kernels, flops_per_pair, qo_bytes, kr, d, kv_elem_bytes, q_per_kv, rep;
};

/* Builds `sc` for decode-only batch `b` (tokens == seqs) and returns the step's GPU time. */
double stepcost_build(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                      const struct llmroof_batch *b);

/* The step's GPU time for decode-only batch `b` of the same sequences as the one `sc` was built
 * for, at any context: equal to ops_build + roofline_eval's time_s. */
double stepcost_time(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                     const struct llmroof_batch *b);

/* Whether the attention of steps built as `ops` can be timed by stepcost_attn_s: plain global
 * attention is the only context operator (no windowed layers, MLA or DSA) and the engine's
 * attention kernels are fused (not eager). */
bool stepcost_attn_ok(const struct llmroof_setup *s, const struct llmroof_oplist *ops);

/* The attention operator's time_s that ops_set_context + roofline_eval give for any batch `b`
 * (prefill chunks on the ramp, decodes, or both) where stepcost_attn_ok; `scratch` is written
 * (its context fields only). */
double stepcost_attn_s(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct llmroof_batch *b,
                       struct llmroof_oplist *scratch);

#endif
