/* estimate.h - request-level latency and throughput of a static batch.
 *   TTFT  = time of the prefill of B prompts of P tokens (+ the engine's first-token overhead)
 *   TPOT  = mean decode-step time over output tokens 2..O (context P+1 .. P+O-1),
 *           summed exactly in closed form (each op is piecewise linear in context)
 *   e2e   = TTFT + (O-1) * TPOT;  decode_tok_s = B / TPOT;  output_tok_s = B*O / e2e */
#ifndef LLMROOF_ESTIMATE_H
#define LLMROOF_ESTIMATE_H

#include "data/catalog.h"
#include "model/ops.h"
#include "model/roofline.h"

struct llmroof_setup {
    const struct llmroof_model *model;
    const struct llmroof_gpu *gpu;
    int tp;                        /* tensor-parallel ranks */
    struct llmroof_dtypes dt;      /* weight, KV, activation dtypes */
    struct llmroof_effs eff;       /* efficiencies and overhead */
    struct llmroof_layout layout;  /* pp, ep, dp_attn, ep_imbalance (its tp is ignored: `tp` above);
                                    * all zero = TP only */
};

/* The setup's layout with its TP filled in. */
struct llmroof_layout estimate_layout(const struct llmroof_setup *s);

struct llmroof_request {
    long batch;   /* sequences served together */
    long prompt;  /* prompt tokens per sequence */
    long output;  /* output tokens per sequence (>= 1) */
};

/* How a phase's time splits into the columns estimate prints (docs/metrics.md "estimate's
 * phase columns"), exactly:
 *   time_s = compute_s + memory_s - overlapped_s + kernel_s + comm_s - hidden_s + cpu_wait_s
 *            + overhead_s
 * where each operator's time is max(compute, memory) + its fixed_s (roofline.h), so the shorter
 * of its two roofline terms runs under the longer (overlapped_s) and what a kernel adds beyond
 * the longer is kernel_s. */
struct estimate_split {
    double kernel_s;       /* sum of the operators' fixed_s: each kernel's fixed GPU cost (launch
                              latency, ramp-up, tail; kernel.h) and the share of its shorter roofline
                              term not hidden under the longer, s */
    double overlapped_s;   /* sum of the operators' min(compute_s, memory_s), s */
    double comm_exposed_s; /* comm_s - hidden_s: the collectives' time that two-batch overlap does
                              not hide, s */
};
struct estimate_split estimate_phase_split(const struct llmroof_phase *p);

/* Speculative decoding in the decode of a static batch (docs/metrics.md "estimate with
 * speculative decoding"; Leviathan et al. 2023): every decode step the drafter proposes, the
 * target verifies `verify` positions per sequence in one pass, and `tokens_per_step` tokens per
 * sequence come out on average. The acceptance model is the caller's (the CLI takes the
 * simulator's: serve/sim.h sim_spec_tokens_per_step, sim_spec_tree_tokens_per_step); the costing
 * is the simulator's (serve/sim_sched.c gpu_time): the target's pass, then the drafter's. */
enum llmroof_drafter {
    LLMROOF_DRAFTER_HEAD,   /* an EAGLE head or an MTP module on the target: `steps` draft steps of
                               ops_build_draft (one decoder layer and the LM head) */
    LLMROOF_DRAFTER_MEDUSA, /* `steps` Medusa heads in one draft step (ops_build_draft) */
    LLMROOF_DRAFTER_MODEL   /* a separate draft model on the same GPUs and TP, at its own checkpoint's
                               weights (ckpt_draft_dtypes): `steps` passes */
};
struct llmroof_spec_decode {
    enum llmroof_drafter drafter;
    const char *method;                /* the method's name, for the output ("eagle", "mtp", ...) */
    const struct llmroof_model *draft; /* LLMROOF_DRAFTER_MODEL: the draft model (not owned) */
    int steps;                         /* draft tokens proposed per step (a tree: its depth), [1, 64] */
    double accept;                     /* the per-token acceptance rate behind tokens_per_step, [0, 1)
                                          (for the output) */
    int topk;                          /* a draft tree: candidates per node, the draft steps after the
                                          first run topk tokens per sequence; 0: a chain */
    int verify;                        /* positions verified per sequence, the target's own included:
                                          steps + 1 for a chain, the tree's tokens; [2, 4096] */
    double tokens_per_step;            /* expected tokens emitted per sequence and step, [1, verify] */
    long eagle3_vocab;                 /* LLMROOF_DRAFTER_HEAD: an EAGLE-3 head's vocabulary (its
                                          draft_vocab_size; ops_head_shape), 0: EAGLE's or an MTP
                                          module's shape */
    bool eagle;                        /* LLMROOF_DRAFTER_HEAD: an EAGLE-family head, a dense decoder
                                          layer of its own (on a MoE target, ops_eagle_mlp_width);
                                          false: an MTP module, one of the target's layers */
    struct llmroof_draft_head head;    /* an EAGLE-family head's own layer shape (--spec-draft-config:
                                          ops_head_shape_own, ops_head_attn); heads 0: the target's */
};

/* The dtypes the drafter of sp runs at beside a target at dt (ckpt_drafter_dtypes: a draft model
 * its own checkpoint's, an EAGLE-family or Medusa head its own 16 bits, an MTP module dt). */
struct llmroof_dtypes estimate_drafter_dtypes(const struct llmroof_dtypes *dt, const struct llmroof_spec_decode *sp);

struct llmroof_estimate {
    struct llmroof_shard shard;        /* per-rank shapes */
    struct llmroof_oplist prefill_ops; /* operators of the prefill */
    struct llmroof_oplist decode_ops;  /* operators of the decode step at the mean context */
    struct llmroof_phase prefill;      /* timed prefill */
    struct estimate_split prefill_split; /* its columns: estimate_phase_split of the one pass, or of each
                                            of the prompt's passes summed (prompt_ubatch_tokens) */
    struct llmroof_phase decode;       /* mean decode step (zero when output == 1) */
    struct estimate_split decode_split; /* its columns: estimate_phase_split of the step, or of each of
                                           its passes summed (more sequences than prompt_ubatch_tokens) */
    /* In both phases bound_s[LLMROOF_BOUND_COMM] and bound count only the communication that
     * two-batch overlap leaves exposed (comm-bound time - hidden_s): an all-to-all hidden under
     * the other micro-batch's work does not bound the step. */
    double decode_steps;               /* output - 1 */
    double ttft_s, tpot_s, e2e_s;      /* seconds */
    double decode_tok_s;               /* B / TPOT, tokens/s (0 when no decode step) */
    double output_tok_s;               /* B * O / e2e, tokens/s */
    double micro_batches;              /* pipeline micro-batches in flight: min(pp, B); 1 without PP */
    double pp_bubble_s;                /* TTFT added by filling the pipeline: (n-1) * largest stage time */
    double first_step_s;               /* TTFT added by an engine that samples the first token from a
                                          decode step (engine first_token_decode), else 0 */
    double draft_prefill_s;            /* TTFT added by the drafter's pass over the prompt (a draft
                                          model's prefill, an EAGLE or MTP head's layer), else 0 */
    /* speculative decoding (estimate_run_spec); without it has_spec is false, draft zero,
     * tokens_per_step 1 and step_s the decode's time */
    bool has_spec;
    struct llmroof_spec_decode spec;   /* as given */
    struct llmroof_phase draft;        /* the drafter's passes of one step, summed (totals and bound;
                                          no per-operator entries), at the mean context */
    struct estimate_split draft_split; /* their columns (estimate_phase_split of each pass, summed) */
    double step_s;                     /* one decode step: the target's pass (decode) + the drafter's,
                                          with the engine's CPU work beside them (cpu_step_s) */
    double cpu_prefill_s;              /* TTFT added by the engine's per-sequence CPU work for the prefill
                                          step (roofline_cpu_step_s less the GPU time), else 0 */
    double cpu_step_s;                 /* the same for each decode step, in step_s */
    double kv_copy_s;                  /* TGI 0.8's copy of the batch's contiguous K/V a decode step at the
                                          mean context (engine kv_copy), in step_s; 0 without */
    double tokens_per_step;            /* tokens per sequence per step: TPOT = step_s / tokens_per_step */
};

/* Data-parallel attention (docs/model.md "Layouts"): each of the shard's attn_dp replicas holds
 * whole sequences, and the replicas meet at every MoE layer (dispatch, experts, combine), so
 * the busiest replica sets the step. Builds into `out` the operators of that step: attention,
 * projections, norms, dense layers, the router, the all-to-all and the LM head of `busiest`
 * (the busiest replica's own sequences), the experts of `total` (every replica's tokens, routed
 * over the EP ranks). Without data-parallel attention it is ops_build of `total`. Two-batch
 * overlap needs two non-empty micro-batches on every replica, so `least` (the least-loaded
 * replica's sequences and tokens) decides it: a decode step of fewer than 2 sequences there, or a
 * prefill of fewer than 2 tokens, runs as one batch and hides nothing; a step that splits is built
 * as its two micro-batches (ops_build_split), each reading the weights it touches. */
void estimate_ops_replicas(const struct llmroof_model *m, const struct llmroof_shard *sh,
                           const struct llmroof_dtypes *dt, const struct llmroof_batch *busiest,
                           const struct llmroof_batch *total, const struct llmroof_batch *least,
                           struct llmroof_oplist *out);
/* Sequences on the busiest replica when `batch` sequences spread as evenly as whole sequences
 * allow over `replicas`: ceil(batch / replicas) (a batch smaller than the replicas leaves
 * replicas idle and the busiest with one). */
double estimate_busiest_seqs(double batch, int replicas);

/* TGI 0.8's copy of its contiguous K/V (engine kv_copy) holding `tokens` tokens, every layer's:
 * roofline_kv_copy_s at a token's bytes on the fullest GPU of s's layout. estimate's decode step,
 * plan --fast's steps; the simulator takes the same bytes from its pool (kv_token_gpu_bytes). */
int estimate_kv_copy_s(const struct llmroof_setup *s, double tokens, double *copy_s, struct llmroof_err *err);

/* MLA without DSA: sets sh->few (model/ops.h struct ops_few_rule) to the break-even of its two forms
 * in the setup's modelled time, the sequences it picks running absorbed and the others
 * decompressed. Both forms of one sequence of n new tokens after P cached ones are timed by the
 * setup's roofline (attention and mla_kv_up, without the attention ramp and the kernels' fixed
 * cost, which the rule's ramp and the step add), and the crossing n found at P = 2^20 (the
 * long-context limit: per_past) and at P = 2048 (per_new, the new tokens' own terms). DeepSeek-V3
 * at TP 8 on an H200 (fp8 kv_b at the fp8 peak): about 109 new tokens at long context, against the
 * 171 of the FLOPs (ops_few_rule_flops). Leaves every other model's rule as ops_shard set it. Once
 * per setup: the simulator at each engine's start, an estimate where a pass holds several new
 * tokens after cached ones (prompts in passes, speculative verification). */
void estimate_mla_few_rule(const struct llmroof_setup *s, struct llmroof_shard *sh);

/* Validates the setup: TP divides heads, dtypes are storage/compute formats the GPU has. */
int estimate_check(const struct llmroof_setup *s, struct llmroof_err *err);
/* The share of a phase spent communicating where it lengthens the phase: comm_s less the all-to-all
 * that two-batch overlap hides, over time_s (0 for an empty phase): estimate's comm_pct, report's
 * and sweep's comm shares. */
double estimate_comm_share(const struct llmroof_phase *p);
/* 0 when the engine (its id and cuda_only flag; NULL id: no engine) runs on GPU g, else
 * LLMROOF_EINPUT naming both: a CUDA-only engine on an AMD GPU (arch "gfx..."). */
int estimate_engine_runs(const char *engine_id, bool cuda_only, const struct llmroof_gpu *g, struct llmroof_err *err);

/* Fills *out with the estimate of request r on setup s; on failure returns the error code with
 * err set, and *out is unspecified. */
int estimate_run(const struct llmroof_setup *s, const struct llmroof_request *r,
                 struct llmroof_estimate *out, struct llmroof_err *err);
/* estimate_run with speculative decoding (spec NULL: none, estimate_run's numbers). The decode
 * phase is the target's verification pass of `verify` tokens per sequence, its mean over the
 * contexts P+1 .. P+O-1 as without speculation; the drafter's passes are costed at the mean
 * context; TPOT = (verification + draft) x max((O - 1) / tokens_per_step, ceil((O - 1) / (steps + 1)))
 * / (O - 1), i.e. (verification + draft) / tokens_per_step unless the output is shorter than a few
 * steps (at least one whole step), e2e = TTFT + (O - 1) TPOT. */
int estimate_run_spec(const struct llmroof_setup *s, const struct llmroof_request *r,
                      const struct llmroof_spec_decode *spec, struct llmroof_estimate *out,
                      struct llmroof_err *err);


/* A run of decode contexts lo..hi (whole numbers) on which an operator's cost is linear in the
 * context c, counted `times` times over (a whole chunk period stands for several: below). */
struct estimate_segment {
    double lo, hi, times;
};
#define ESTIMATE_MAX_SEGMENTS 8
/* The runs of the decode contexts [c1, c2] (c1 <= c2) on which operator k (LLMROOF_OP_*) of model
 * m is linear in c, each step putting v new tokens per sequence after c - 1 cached ones (v = 1
 * without speculation), `eager` as roofline_attn_eager says of such a step; returns how many
 * (at most ESTIMATE_MAX_SEGMENTS) into seg[]. One, [c1, c2] once, where the operator is linear
 * throughout: global attention, MLA's up-projection, DSA's indexer, and the others wherever no
 * kink falls inside. The kinks, from ops.c set_context and arch.c arch_attn_keys / pairs_upto:
 *   sliding window W: keys min(c - 1 + v, v + W - 1), flat from c = W on; pairs sum_j min(c-1+j, W),
 *     bent over c = W + 1 - v .. W;
 *   chunked window W: keys c - 1 + v - W floor((c - 1) / W), falling from W + v - 1 to v between
 *     c = kW and kW + 1; pairs bent over kW + 1 - v .. kW, where the last positions wrap;
 *   DSA top-k K (attention proper): keys min(c - 1 + v, v K), flat from c = v (K - 1) + 1;
 *     pairs sum_j min(c - 1 + j, K), bent over K + 1 - v .. K.
 * With v = 1 every bend is a single kink and the runs are exactly linear; with v > 1 the v - 1
 * contexts of a bend are one run, interpolated between its ends. Whole chunk periods
 * [kW + 1, (k + 1) W] all cost the same (keys and pairs repeat), so however many an output spans
 * there are at most 8 runs: the first whole period and the last, each counted half their number.
 * That is exact where the two cost the same, as at one new token per sequence; with v > 1 an
 * engine's prefill ramp (attn_ramp_tokens), read at the global keys, tells them slightly apart,
 * and their trapezoid stands for the periods between. An eager engine's windowed layers cost a
 * global layer's (roofline_attn_eager): one run. */
int estimate_context_segments(const struct llmroof_model *m, int k, double v, bool eager, double c1, double c2,
                              struct estimate_segment *seg);

/* Sum over integer c in [c1, c2] of max(a1 + b1*c, a2 + b2*c); *first_part receives the
 * part of the sum where the first line is the larger (ties go to the first). */
double estimate_sum_max_linear(double a1, double b1, double a2, double b2, double c1, double c2,
                               double *first_part);

/* Sum over integer c in [c1, c2] of the largest of n <= LLMROOF_MAX_LINES lines a[i] + b[i]*c;
 * part[i] (may be NULL) receives the part of the sum where line i is the largest. */
#define LLMROOF_MAX_LINES 4
double estimate_sum_max_lines(const double *a, const double *b, int n, double c1, double c2, double *part);

#endif
