/* roofline.h - time of each operator on a GPU (Williams et al. 2009 roofline):
 *   time = max(flops / (peak * compute_eff), bytes / (bandwidth * memory_eff))
 * collectives by comm.h; plus a fixed per-step overhead. Pure. */
#ifndef LLMROOF_ROOFLINE_H
#define LLMROOF_ROOFLINE_H

#include "data/catalog.h"
#include "model/comm.h"
#include "model/ops.h"

enum llmroof_bound { LLMROOF_BOUND_COMPUTE, LLMROOF_BOUND_MEMORY, LLMROOF_BOUND_COMM };
const char *bound_name(enum llmroof_bound b);

struct llmroof_effs {
    double compute;       /* fraction of dense peak FLOP/s achieved */
    double memory;        /* fraction of peak HBM bandwidth achieved */
    double comm;          /* fraction of link bandwidth achieved */
    double overhead_s;    /* fixed cost per engine step, s */
    double first_token_s; /* added to every TTFT by the serving engine, s (0 without an engine) */
    double api_first_token_s; /* its API server's path beside the forward: the simulator adds it to a
                                 served request's TTFT (not with --no-api-server; estimate never) */
    double api_prompt_token_s; /* and per prompt token on that path (the same commands) */
    double tp_overhead_s; /* added to overhead_s per step when TP > 1 (the engine's driver-to-worker
                             calls: Ray remote tasks in vLLM before 0.5), or at any TP below, s */
    bool ray_engine;      /* the engine runs in a Ray actor (vLLM --engine-use-ray): tp_overhead_s is
                             paid every step at any TP */
    bool ray_workers;     /* the engine's GPUs are Ray actors it calls every step, even at TP 1
                             (engine field ray_workers, DistServe): tp_overhead_s at any TP */
    double comm_latency_s;/* added to every collective's fixed latency by the engine's all-reduce path, s */
    /* kernel-level terms (llmroof/kernel.h); zero in a hand-built struct means pure roofline */
    double kernel_s;      /* GPU time each kernel adds (launch latency, ramp-up, tail), s */
    double overlap;       /* share of the shorter roofline term not hidden under the longer, [0, 0.5] */
    double launch_s;      /* CPU time per kernel launch the GPU may wait for, in a step no CUDA graph
                             replays, s */
    double launch_mla_s;  /* the same in an MLA model's step (engine launch_mla_s; 0 = launch_s) */
    /* CUDA-graph coverage (docs/model.md "CUDA-graph coverage"); graphs false: every step eager */
    bool graphs;          /* the engine replays CUDA graphs: a replayed step launches no kernel */
    double graph_max;     /* the largest step replayed: a decode-type step's sequences, or with
                             graph_piecewise any step's tokens; 0 = every step */
    bool graph_piecewise; /* prefill and mixed steps within graph_max replay too, their attention
                             operators launched between the pieces (vLLM V1) */
    double graph_every;   /* graphs of exact sizes: every decode batch up to this, above it the powers
                             of two and graph_max alone (engine graph_every_batch_to); 0 = any batch
                             up to graph_max (padded up to a captured size) */
    double graph_decode_new; /* new tokens per sequence up to which a step is decode-type: 1, or the
                             positions per sequence of a verification pass the engine captures
                             (speculative decoding; set by the simulator); 0 = 1 */
    double kernel_factor; /* kernels launched / ops.c's fused count (0 = 1) */
    double gemm_scale;    /* share of `compute` that GEMMs in the activation dtype reach (0 = 1) */
    double peak_scale;    /* tensor peak multiplier (GeForce fp16 accumulation: 2; 0 = 1) */
    bool fp8_attention;   /* attention at the activation dtype's peak when that is fp8 */
    double kv_heads_per_read; /* query heads of a GQA group the engine's decode attention serves from
                                 one K/V read: 1 per query head, 0 the whole group (roofline_kv_reads) */
    bool kv_reads_prefill;    /* the same reads in prefill attention too (kv_per_query_head: K/V
                                 repeated per query head, HF's repeat_kv, vLLM 0.2's xformers path);
                                 false: decode (one new token per sequence) only */
    bool varlen_fa2;          /* the engine runs attention on this GPU as one FlashAttention-2 varlen
                                 call per layer over the step (its varlen_fa2_archs names the GPU's
                                 arch): a decode beside a longer query reads its K/V once per query
                                 head (roofline_attn_extra_kv_bytes) */
    bool moe_triton;          /* the engine runs 8- and 16-bit MoE experts on this GPU through a Triton
                                 fused-MoE kernel (its moe_triton_archs names the GPU's arch): they
                                 stream at the dense rate and compute at KERNEL_TRITON_MOE_COMPUTE_SHARE
                                 of it (kernel.h) */
    bool fa2_window;          /* the engine's attention kernels are FlashAttention-2's on this GPU
                                 (fa2_archs or varlen_fa2_archs): a sliding-window layer reads K/V
                                 once per query head at every step */
    /* attention kernels (docs/model.md "Attention kernels"); 0 / false: as the GEMMs */
    double attn_eff;      /* prefill attention: share of the 16-bit peak at long sequences (0 = compute) */
    double attn_ramp_tokens; /* L0 of the ramp L/(L+L0) over the keys per sequence (0 = none) */
    double gemm_ramp_rows; /* M0 of the weight GEMMs' fill ramp (the GPU's gemm_ramp_rows; 0 = none) */
    double attn_mem_eff;  /* decode attention: share of peak bandwidth (0 = memory) */
    bool kv8_per_query_head; /* an 8-bit K/V cache decodes reading K/V once per query head (the engine's
                                fp8_kv_per_query_head on one of its fa2_archs GPUs) */
    double attn_decode_peak; /* FLOP/s of a decode step's attention on CUDA cores (engine cuda_core_decode:
                                the fp32 peak x kernel_fp32_issue_share x KERNEL_MMHA_FP32_SHARE);
                                0 = the attention peak */
    double attn_mem_fa2_eff; /* the same in FlashAttention-2's kernels, where the engine runs them on this
                                GPU (fa2_window) and the attention fits FA2 (no sinks, 16-bit K/V); 0 = none */
    bool attn_eager;      /* prefill: scores in memory (fp32) between unfused kernels, masked pairs computed */
    bool attn_eager_decode; /* the same at decode (llama.cpp); false: a fused single-query kernel there */
    double dequant_min_tokens; /* weight-only formats dequantized for a dense GEMM from this many tokens (0 = never) */
    bool logits_all_tokens; /* prefill: the LM head over every prompt token of a pass, not the last */
    bool kv_copy;           /* decode: the batch's contiguous K/V copied every step (engine kv_copy, TGI 0.8) */
    bool moe_tp_shared_local; /* --moe-tp: shared experts and dense layers per replica (engine field) */
    bool moe_gemv;          /* MoE experts at a few tokens as matrix-vector products (engine field) */
    bool dp_lm_head_split; /* data-parallel attention: the LM head split over the stage's GPUs (engine field) */
    double prompt_ubatch_tokens; /* prompts evaluated in passes of at most this many tokens (llama.cpp's
                                    n_ubatch; estimate.c prefill_in_passes); 0 = one pass */
    double wo_issue_per_flop; /* weight-only GEMMs in the engine's fused kernel (neither dequantize-then-
                                 GEMM nor MMQ): CUDA-core instruction slots per tensor FLOP spent
                                 unpacking weights, timed at the GPU's issue rate (prep issue_rate)
                                 after the math; 0 = none */
    double mmq_share;     /* llama.cpp's MMQ: above KERNEL_MMVQ_MAX_TOKENS tokens the weight-only GEMMs
                             run at this share of the GPU's int8 peak x compute (set only on NVIDIA
                             Turing or later with an int8 peak); 0 = none */
    bool custom_allreduce; /* the engine all-reduces with its own one-shot/two-shot kernels (NVLink, xGMI) */
    bool dsa_flashmla_pad; /* DSA attention as vLLM runs FlashMLA's sparse kernels: padded query heads,
                              the whole top-k list computed (engine dsa_flashmla_pad) */
    bool dsa_pad_prefill;  /* DSA prompts (not decodes) run FlashMLA's padded sparse kernel on this GPU
                              (engine dsa_prefill_pad_archs) */
    bool dsa_dense_short_prefill; /* DSA prompts of at most top_k keys run dense MLA (engine
                              dsa_dense_short_prefill: SGLang's MHA_ONE_SHOT; layout dsa_dense_prefill) */
    bool first_token_decode; /* the first token comes from a decode step after the prefill (TurboMind) */
    const char *engine_id; /* the engine profile's id, for the output to name; NULL without one */
    bool cuda_only;       /* the engine's kernels are CUDA's alone (engine cuda_only): estimate_check refuses
                             it on an AMD GPU */
    double cpu_scale;     /* the host's CPU time over the reference host's (1 / host speed), already in
                             launch_s and the engine's overheads; the simulator's per-sequence CPU work
                             takes it too (docs/model.md "Host CPU"; 0 = 1) */
    /* the engine's CPU work per scheduled sequence and step at the reference host (its profile:
     * docs/model.md "Engine CPU work"), each with the share of it that overlaps the GPU step;
     * roofline_cpu_step_s combines them */
    double cpu_seq_s, cpu_overlap;          /* scheduling and input preparation */
    double worker_seq_s;                    /* more per GPU called as a Ray worker (vLLM < 0.2.7) */
    double cpu_output_s, cpu_output_overlap; /* output processing */
    double ray_token_s;                     /* the engine in a Ray actor (ray_engine): its RequestOutputs
                                               carried to the API server, per context token of each
                                               scheduled sequence (engine ray_output_token_s), serial */
    bool spec_no_overlap;                   /* speculative decoding runs scheduling between steps */
    bool spec_draft_graph;                  /* the drafter's passes replay as one graph (roofline_draft_effs) */
};

/* TGI 0.8's contiguous K/V (engine kv_copy): moving `tokens` tokens of K/V, `bytes_per_token` each
 * on a GPU, from one tensor into a freshly allocated one reads and writes them once:
 * 2 * tokens * bytes_per_token / (bandwidth * memory_eff). */
double roofline_kv_copy_s(const struct llmroof_gpu *g, const struct llmroof_effs *eff, double tokens,
                          double bytes_per_token);

/* A step's time with the engine's CPU work for `seqs` scheduled sequences beside its GPU time
 * gpu_s: output processing (cpu_output_s each) during the step, then scheduling and input
 * preparation (cpu_seq_s each, and worker_seq_s per Ray worker of `workers`), then the API
 * server's streamed chunk (api_s each, an argument: the simulator's HTTP server; 0 through the
 * engine's own API), each added as t + cpu - overlap x min(t, cpu) with its own overlap; with
 * `spec` and spec_no_overlap scheduling does not overlap; then, with the engine in a Ray actor,
 * ray_token_s for each of the `tokens` context tokens (prompt and output so far) of the scheduled
 * sequences, added whole (the actor pickles after its step and the server unpickles before it
 * calls the next). Every time at the reference host, scaled by cpu_scale. estimate and the
 * simulator both time a step with it. */
double roofline_cpu_step_s(const struct llmroof_effs *eff, double gpu_s, double seqs, double workers, bool spec,
                           double api_s, double api_overlap, double tokens);
/* Its arithmetic on the step's three CPU totals, s: ((gpu (+) out) (+) seq) (+) api, where
 * t (+) cpu = t + cpu - overlap x min(t, cpu). */
double roofline_cpu_combine_s(double gpu_s, double out_s, double out_overlap, double seq_s, double seq_overlap,
                              double api_s, double api_overlap);
/* The FLOP/s an attention operator computes at: a decode step's (at most one new token per
 * sequence) on CUDA cores where the engine's kernel is masked MHA (attn_decode_peak), else the
 * attention peak `apeak` on prefill's ramp. */
double roofline_attn_peak(const struct llmroof_effs *eff, double apeak, double ramp, double new_per_seq);
/* Eager attention in a step of new_per_seq new tokens per sequence: prefill-type steps (several
 * new tokens per sequence) of an eager engine, decode steps too where it has no fused single-query
 * kernel. Its windowed layers then score every cached key (a global layer's square, masked), a cost
 * linear in the context with no kink at the window (estimate.c's decode sum reads this). */
static inline bool roofline_attn_eager(const struct llmroof_effs *eff, double new_per_seq)
{
    return eff->attn_eager && (new_per_seq > 1.0 || eff->attn_eager_decode);
}
/* How many times a decode-attention kernel reads each K/V head's cache for a group of q_per_kv
 * query heads when one read serves at most `heads_per_read` of them: kernels instantiate a CTA for
 * 1, 2, 4 or 8 heads, so a read serves h = the largest power of two <= heads_per_read that divides
 * the group, and the group reads q_per_kv / h times (TurboMind v0.1 at group 8 and 4 heads per CTA:
 * twice; a per-query-head kernel, h = 1: q_per_kv times). 0 or a group of one: read once. */
double roofline_kv_reads(double heads_per_read, double q_per_kv);
/* The reads roofline_kv_reads gives for an attention operator of `new_per_seq` new tokens per
 * sequence under eff: a kv_heads_per_read decode kernel reads so at one new token per
 * sequence only (prefill runs another kernel), kv_per_query_head engines at every step. */
double roofline_attn_kv_reads(const struct llmroof_effs *eff, double q_per_kv, double new_per_seq);
/* The K/V bytes an attention operator reads beyond one read per GQA group, of `kv_bytes` read in
 * all by a step of `new_per_seq` new tokens per sequence. FlashAttention-2 folds a KV head's
 * q_per_kv query heads into one tile only when every query of the call is one token, no window
 * and no ALiBi (vllm-project/flash-attention flash_api.cpp, seqlenq_ngroups_swapped, tested
 * before a window longer than the keys is dropped; vLLM V1 flash_attn.py use_cascade_attention
 * restates it); otherwise every sequence's tile reads its K/V once per query head:
 *   kv x (q_per_kv - 1)   where eff->varlen_fa2 and `longer_query` (a sequence of the call has
 *                         more new tokens), or eff->fa2_window and `sliding` (a windowed layer)
 * unless `fa2_unfit` (sinks, an 8-bit cache: the engine runs another kernel, which packs). Else
 * the engine's own kernels: kv x (roofline_attn_kv_reads - 1) for a global layer, none for a
 * windowed one (`windowed`: op[ATTN_LOCAL], whose bytes the per-query-head engines leave as they
 * are). An engine with kv8_per_query_head reads an 8-bit cache (`kv_8bit`) once per query head at
 * decode (new_per_seq <= 1): the kernel it falls back to. */
double roofline_attn_extra_kv_bytes(const struct llmroof_effs *eff, double kv_bytes, double q_per_kv,
                                    double new_per_seq, bool longer_query, bool windowed, bool sliding,
                                    bool fa2_unfit, bool kv_8bit);
/* The GPU's catalog defaults. */
struct llmroof_effs roofline_default_effs(const struct llmroof_gpu *g);
/* The fixed CPU cost of one engine step at TP tp: overhead_s, plus tp_overhead_s when TP > 1 (an
 * engine that drives its tensor-parallel workers by remote calls pays them every step) or when the
 * engine itself is a Ray actor (ray_engine: the server calls its step remotely even at TP 1). */
double roofline_step_overhead_s(const struct llmroof_effs *e, int tp);
/* The efficiencies a drafter's passes run at: e's, but where the engine replays the drafter's k
 * passes as one CUDA graph inside the iteration (spec_draft_graph: SGLang's EAGLE/MTP draft graph
 * runner captures its whole draft loop) no pass pays a step overhead: the engine's per-step CPU
 * work (scheduling, sampling, output processing) comes once an iteration, with the verification
 * pass, and the graph's one replay is roofline_draft_graph_s; `seqs` decoding sequences (a
 * replica's) within the engine's captured batches. Elsewhere each pass is a step of its own, with
 * its overhead. Passes over prompts (the drafter's extend after a prefill) are not in the loop:
 * e's own efficiencies. */
struct llmroof_effs roofline_draft_effs(const struct llmroof_effs *e, double seqs);
/* The one replay of the drafter's graph an iteration of `seqs` decoding sequences (a replica's)
 * where spec_draft_graph holds and the engine's graphs cover them (the GPU's own step overhead: a
 * CUDA graph's launch), else 0 (each pass paid its own: past its largest captured batch SGLang's
 * draft loop runs eager, as its decode does). */
double roofline_draft_graph_s(const struct llmroof_gpu *g, const struct llmroof_effs *e, double seqs);

/* User overrides of some efficiencies (flags); the rest come from the catalog. */
struct llmroof_eff_override {
    bool has_compute, has_memory, has_comm, has_overhead; /* which fields are set */
    double compute, memory, comm, overhead_s;             /* values as in struct llmroof_effs */
    double host_cpu_speed;                                /* host single-thread speed over the reference
                                                             host's (--host-cpu-speed); 0 = the GPU's */
    bool engine_use_ray;                                  /* the engine runs in a Ray actor (--engine-use-ray) */
    const struct llmroof_engine *engine;                  /* engine profile, or NULL */
};
/* Catalog defaults of g, then the engine profile (may be NULL: compute x compute_scale,
 * overhead + step overhead, first-token overhead, kernel launch cost, kernel count, fp16
 * accumulation), then the set fields of o (may be NULL). The GEMM dtype scale is set by
 * roofline_eval from its `act` argument. */
struct llmroof_effs roofline_effs(const struct llmroof_gpu *g, const struct llmroof_eff_override *o);
struct llmroof_effs roofline_effs_engine(const struct llmroof_gpu *g, const struct llmroof_engine *e,
                                         const struct llmroof_eff_override *o);
/* The largest decode batch engine en replays from a CUDA graph on GPU g at TP tp (struct
 * llmroof_effs graph_max): the band of its gpu_memory_tiers that holds g's memory where that band
 * states one (SGLang's cuda_graph_max_bs by GPU memory and TP), else the profile's graph_max_batch;
 * 0 (every step) without graphs or a limit. */
double roofline_graph_max(const struct llmroof_engine *en, const struct llmroof_gpu *g, int tp);
/* Whether a decode step of seqs sequences (at most graph_max) has a graph: always, unless the
 * engine captures exact sizes (graph_every > 0): every batch up to graph_every, then the powers of
 * two and graph_max (TensorRT-LLM's PyTorch backend: 1-32, 64, 128 by default) */
bool roofline_graph_has_batch(const struct llmroof_effs *eff, double seqs);
/* roofline_effs for an instance of tp GPUs: the engine's graph limit on this GPU at this TP
 * (roofline_graph_max) in place of the profile's, as the engine sets it up there. estimate,
 * simulate's instances and pools and plan take their efficiencies from here, so they replay the
 * same steps from graphs. */
struct llmroof_effs roofline_effs_tp(const struct llmroof_gpu *g, const struct llmroof_eff_override *o, int tp);

struct llmroof_optime {
    double compute_s;  /* count * flops / (peak * eff) */
    double memory_s;   /* count * bytes / (bw * eff) */
    double comm_s;     /* collectives: count * alpha-beta time */
    double time_s;     /* count * kernel time per instance (llmroof/kernel.h); comm_s for collectives */
    double fixed_s;    /* the part of time_s that is per-kernel fixed GPU cost */
    double bytes;      /* count * the HBM bytes charged per instance: the op list's plus what the
                          engine adds (per-query-head K/V, eager scores, a dequantized copy) */
    double kernels;    /* kernels one instance launches after those changes (eager attention 4,
                          a dequantize per matrix), before the engine's kernel_factor */
    enum llmroof_bound bound;
    double comm_bytes; /* collectives: count * the message charged (a block-fp8 checkpoint's fp8
                          dispatch on a GPU with the path below the op list's 16-bit one), else 0 */
};

struct llmroof_phase {
    struct llmroof_optime op[LLMROOF_OP_COUNT]; /* per operator, summed over instances */
    double flops;        /* whole pass, per rank */
    double bytes;        /* whole pass, per rank */
    double comm_bytes;   /* whole pass, sum of collective messages */
    double compute_s;    /* sum over local ops of compute time */
    double memory_s;     /* sum over local ops of memory time */
    double comm_s;       /* sum of collective times */
    double overhead_s;   /* fixed per-step overhead */
    double launch_s;     /* CPU time to launch the step's kernels (0 when a CUDA graph replays it) */
    double cpu_wait_s;   /* of it, what the GPU waits for: max(0, launch_s - the operators' GPU
                            time), the CPU enqueueing ahead while the GPU drains (section 3a) */
    double time_s;       /* sum of op times - hidden_s + cpu_wait_s + overhead_s */
    double bound_s[3];   /* op time attributed to compute-, memory- and comm-bound ops */
    bool a2a_overlap;    /* two-batch overlap: the all-to-all hides under the other operators */
    double hidden_s;     /* all-to-all time hidden under compute (two-batch overlap), in no total */
    enum llmroof_bound bound; /* category with the largest bound_s */
};
/* The phase's bound as reported: "cpu" where an eager step's kernel launches outlast its GPU work
 * (the GPU waits for them: cpu_wait_s > 0) and each of its compute, memory and communication
 * terms, else bound_name(p->bound) (a reviewer read "memory" on a prefill two thirds CPU wait;
 * another on one whose launches took 8.1 ms against 6.7 ms of GPU work, the wait below its memory
 * time). */
const char *roofline_phase_bound_name(const struct llmroof_phase *p);


/* The kernel that runs a step's routed experts (docs/model.md "Grouped expert GEMMs") */
enum llmroof_moe_kernel {
    LLMROOF_MOE_NONE,    /* no routed experts */
    LLMROOF_MOE_GROUPED, /* a grouped GEMM: weights at the grouped streaming share (kernel.h) */
    LLMROOF_MOE_TRITON,  /* Triton's fused-MoE kernel: dense streaming, 0.72 of the dense compute */
    LLMROOF_MOE_FP4      /* datacenter Blackwell's grouped fp4 kernels: 0.28 of the dense fp4 compute */
};
enum llmroof_moe_kernel roofline_moe_kernel(const struct llmroof_gpu *g, enum llmroof_dtype act,
                                            const struct llmroof_effs *eff, const struct llmroof_oplist *ops);

/* The bound whose summed operator time (bound_s, indexed by enum llmroof_bound) is largest;
 * compute on a tie. */
enum llmroof_bound roofline_largest_bound(const double bound_s[3]);

/* Fails (EINPUT) when the GPU has no peak for the compute dtype. */
int roofline_check(const struct llmroof_gpu *g, enum llmroof_dtype act, struct llmroof_err *err);

/* Times every operator of `ops` (TP from `tp`). roofline_check must have passed. */
void roofline_eval(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff,
                   int tp, const struct llmroof_oplist *ops, struct llmroof_phase *out);

/* The linear terms of roofline_eval alone - phase flops/bytes/comm_bytes and each operator's
 * compute_s, memory_s and comm_s - for a decode step whose other terms the caller derives (the
 * exact mean TPOT of estimate.c needs only these at the last step). Collective times equal to
 * those of `ref` (same call count and message bytes, as `ref_ops` has them) are copied from it
 * (both may be NULL). */
void roofline_terms(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff, int tp,
                    const struct llmroof_oplist *ops, const struct llmroof_oplist *ref_ops,
                    const struct llmroof_phase *ref, struct llmroof_phase *out);
/* What every operator of one evaluation shares, derived once from the GPU, the compute dtype,
 * the efficiencies and TP: the peaks and bandwidths after efficiencies and the links. An
 * estimate evaluates three steps of one setup and a simulator one step per iteration: preparing
 * once saves the derivation each time (roofline_eval prepares and evaluates in one call). The
 * struct points at g and eff, which must outlive it. */
struct roofline_prep {
    const struct llmroof_gpu *gpu;  /* the GPU (not owned) */
    const struct llmroof_effs *eff; /* the efficiencies (not owned) */
    int tp;                         /* tensor-parallel ranks */
    double peak;                    /* GEMM FLOP/s after efficiencies and the dtype's scale */
    double mmq_peak;                /* llama.cpp's MMQ GEMMs' FLOP/s (effs mmq_share); 0 = none */
    double wo_issue_s_per_flop;     /* a fused weight-only GEMM's unpacking time per tensor FLOP: effs
                                       wo_issue_per_flop over the GPU's instruction issue rate (the fp32
                                       peak x kernel_fp32_issue_share); 0 = none */
    double lowp_peak[LLMROOF_DTYPE_COUNT]; /* the same for the GEMMs an operator list runs at another
                                       dtype (ops lowp_ops): that dtype's, or `peak` where the GPU
                                       has no path for it */
    bool lowp_path[LLMROOF_DTYPE_COUNT]; /* the GPU has that dtype's path (and it is not the act's) */
    bool act_fp8;                   /* the activation dtype is fp8 (block-fp8 GEMMs compute in it) */
    bool act_fp4;                   /* the activation dtype is fp4 and the GPU computes it */
    bool nvfp4_path;                /* an NVIDIA GPU with an fp4 peak: NVFP4 GEMMs run on it natively
                                       (ops lowp_nvfp4; ckpt_gpu_native) */
    bool fp4_moe;                   /* a datacenter Blackwell GPU (sm100, sm103): fp4 experts run the
                                       grouped fp4 MoE kernels (kernel.h KERNEL_FP4_MOE_COMPUTE_SHARE) */
    bool act_8bit;                  /* the activation dtype is 8 bits or narrower (the GEMMs' short-K cost) */
    int dsa_head_multiple;          /* effs dsa_flashmla_pad on a GPU FlashMLA's sparse kernels run on:
                                       their 16-bit kernel's query-head multiple (Hopper 64, datacenter
                                       Blackwell 128); 0 = no padding charged */
    double apeak;                   /* attention FLOP/s after efficiencies (an fp8 path: with an
                                       8-bit K/V cache only, rl_apeak) */
    double apeak16;                 /* the same at the 16-bit attention dtype */
    double bw;                      /* HBM bytes/s after the memory efficiency */
    double abw;                     /* decode attention's HBM bytes/s */
    double abw_fa2;                 /* the same in FlashAttention-2's kernels (effs attn_mem_fa2_eff), else abw */
    double kf;                      /* kernels launched per fused kernel (kernel_factor, 0 = 1) */
    struct llmroof_link_model link; /* the intra-domain link (NVLink, xGMI, PCIe) */
    struct llmroof_link_model net;  /* the inter-node network per GPU */
    int dom;                        /* GPUs of one link domain */
    double overhead_s;              /* the step's fixed overhead (TP's remote calls included), s */
};
/* The FLOPs multiplier of a DSA model's attention operator under an engine that runs FlashMLA's
 * sparse kernels as vLLM does (effs dsa_flashmla_pad; prep dsa_head_multiple, 64 or 128): padded
 * query heads over the rank's heads, times every query's whole top-k list over the valid pairs;
 * prefill_only: the prompts' tokens alone so (SGLang's FlashMLA sparse prefill; its decodes at
 * their heads and valid pairs); 1 without padding (head_multiple 0) or for a model without DSA
 * (docs/model.md "DSA"). */
double roofline_dsa_flop_scale(int head_multiple, bool prefill_only, const struct llmroof_oplist *ops);
/* The query-head multiple of FlashMLA's 16-bit sparse kernel under eff's engine on g (roofline_prep
 * dsa_head_multiple): 64 on Hopper, 128 on sm100/sm103, 0 where eff charges no padding. */
int roofline_dsa_head_multiple(const struct llmroof_gpu *g, const struct llmroof_effs *eff);
void roofline_prepare(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff, int tp,
                      struct roofline_prep *out);
/* roofline_eval with a prepared context: the same numbers to the bit. */
void roofline_eval_prep(const struct roofline_prep *r, const struct llmroof_oplist *ops, struct llmroof_phase *out);
/* roofline_eval_prep without the totals: every operator's entry, flops, bytes, comm_bytes,
 * launch_s, overhead_s and a2a_overlap, the rest of the phase 0 until roofline_total (a caller
 * that changes the entries first, as estimate.c's mean decode step, sums once). */
void roofline_ops_prep(const struct roofline_prep *r, const struct llmroof_oplist *ops, struct llmroof_phase *out);
/* roofline_terms with a prepared context, for a step that differs from the reference step only
 * in the operators of `mask` (bit k: operator k; ~0u: any may differ, as roofline_terms): those
 * are evaluated from `ops` (its step-wide fields too) into out's entries; the others are ref_ops'
 * with ref's entries - the same operations on the same numbers, so the same terms to the bit -
 * and neither ops' nor out's entries for them are read or written (the caller takes them from
 * ref); out's flops, bytes, comm_bytes and launch_s sum every operator in order. `ref` must
 * have been evaluated (roofline_eval_prep or roofline_ops_prep) from ref_ops with the same
 * context. estimate.c passes OPS_CONTEXT_MASK for the last decode step. */
void roofline_terms_prep(const struct roofline_prep *r, const struct llmroof_oplist *ops, unsigned mask,
                         const struct llmroof_oplist *ref_ops, const struct llmroof_phase *ref, struct llmroof_phase *out);

/* Recomputes totals, bound_s and bound of `p` from its op[] entries, launch_s and overhead_s
 * (cpu_wait_s = max(0, launch_s - the operators' GPU time)). */
void roofline_total(struct llmroof_phase *p);

#endif
