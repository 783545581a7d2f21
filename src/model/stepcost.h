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

/* What the fast path needs of a step of n sequences (a few hundred bytes, so that a table of them
 * can hold every batch size). */
struct stepcost_fast {
    double seqs;                  /* the batch's sequences (= its tokens); 0: not built */
    double apeak, abw, kf;        /* attention's peak FLOP/s and bandwidth after efficiencies,
                                     the engine's kernel factor (roofline.c, rl_ctx_of) */
    /* the attention operator (ops.c, attention_op and ops_set_context) from the batch's pairs
     * and keys: its count and kernels, 4 d Hq (FLOPs per pair), the new tokens' Q and output
     * bytes, the per-rank factors of the K/V bytes, the replicas */
    double count, kernels, flops_per_pair, qo_bytes, kr, d, kv_elem_bytes, q_per_kv, rep;
    /* roofline_total's sum in operator order around attention: the operators before it summed,
     * the nonzero ones after it (adding 0 changes no sum); the rest of its total */
    double before_s, after_s[LLMROOF_OP_COUNT];
    int nafter;
    bool a2a_overlap;
    double a2a_s, launch_s, overhead_s;
};

struct stepcost {
    bool fast;                    /* the attention-only shortcut (checked at build): f */
    struct stepcost_fast f;
    struct llmroof_oplist part;   /* the step's operators, the context-free ones' counts at 0 */
    struct llmroof_phase whole;   /* the step's roofline at its latest context */
};

/* Keeps in f the sums of roofline phase p that its total needs around the attention operator
 * (before_s, after_s, nafter, a2a_overlap, a2a_s, launch_s, overhead_s). */
void stepcost_sums(struct stepcost_fast *f, const struct llmroof_phase *p);

/* roofline_total's time_s of the phase whose sums f keeps, with the attention operator's time
 * `att`: any step with the same operators but attention (the same new tokens and sequences, on a
 * setup where stepcost_attn's ok holds) at another context. */
double stepcost_total_s(const struct stepcost_fast *f, double att);

/* The fast path's time of decode-only batch `b` of f->seqs sequences (a stepcost's f where
 * fast): equal to ops_build + roofline_eval's time_s. */
double stepcost_fast_time(const struct stepcost_fast *f, const struct llmroof_effs *eff, const struct llmroof_batch *b);

/* Builds `sc` for decode-only batch `b` (tokens == seqs) and returns the step's GPU time. */
double stepcost_build(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                      const struct llmroof_batch *b);

/* The step's GPU time for decode-only batch `b` of the same sequences as the one `sc` was built
 * for, at any context: equal to ops_build + roofline_eval's time_s. */
double stepcost_time(struct stepcost *sc, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                     const struct llmroof_batch *b);

/* Plain global attention's time in any step (prefill chunks on the ramp, decodes, or both) of
 * one setup: ops.c's attention operator (ops_set_context, attention_op) and roofline.c's time of
 * it, the same expressions, without the operator list. ok: the setup's only context operator is
 * plain global attention (no windowed layers, MLA or DSA) and its attention kernels are fused
 * (not eager); else stepcost_attn_s must not be used. */
struct stepcost_attn {
    bool ok;
    double apeak, abw, kf;             /* as in struct stepcost */
    double count, d, hq, kr, a, ao, kv_elem_bytes; /* layers, head dim, query and KV heads per rank,
                                          activation, attention output (ops_attn_out_bytes) and KV
                                          element bytes */
    bool fa2_unfit;                    /* FlashAttention-2 cannot run it (ops.h fa2_unfit) */
};
void stepcost_attn_init(struct stepcost_attn *sa, const struct llmroof_setup *s, const struct llmroof_shard *sh);

/* The attention operator's time_s that ops_build + roofline_eval give for batch `b`
 * (sa->ok, and no data-parallel attention replicas); `beside_longer`: b's sequences share the
 * step's attention call with longer queries of other sequences (a mixed step's decodes), as
 * ops.h longer_query set after ops_set_context. */
double stepcost_attn_s(const struct stepcost_attn *sa, const struct llmroof_effs *eff, const struct llmroof_batch *b,
                       bool beside_longer);

#endif
