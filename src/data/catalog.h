/* catalog.h - GPU and model catalog: load, validate, look up.
 *
 * The catalog is read from JSON files (data/gpus.json, data/models.json, user
 * files, HuggingFace config.json) into plain structs. This module is the only
 * one that reads JSON; cJSON trees never leave it. Schema: docs/catalog.md. */
#ifndef LLMROOF_CATALOG_H
#define LLMROOF_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "base/dtype.h"
#include "base/err.h"

#define LLMROOF_ID_MAX 64
#define LLMROOF_NAME_MAX 128
#define LLMROOF_SOURCE_MAX 3072
#define LLMROOF_ALIASES_MAX 24
#define LLMROOF_ARCH_MAX 16  /* "sm120", "gfx942": a letter prefix and digits, at most 15 characters */
#define LLMROOF_ARCHS_MAX 16 /* architectures an engine rule may list */

enum llmroof_link {
    LLMROOF_LINK_NVLINK,
    LLMROOF_LINK_PCIE,
    LLMROOF_LINK_XGMI
};
const char *link_name(enum llmroof_link k);

struct llmroof_gpu {
    char id[LLMROOF_ID_MAX];                         /* catalog id, lowercase ("a100-sxm4-80gb") */
    char name[LLMROOF_NAME_MAX];                     /* display name */
    char aliases[LLMROOF_ALIASES_MAX][LLMROOF_ID_MAX]; /* extra lookup names */
    int n_aliases;                                   /* entries used in aliases */
    char arch[LLMROOF_ARCH_MAX];                     /* compute architecture: NVIDIA's sm version ("sm80" = compute
                                                        capability 8.0), AMD's gfx target ("gfx942"); "" = not
                                                        stated (rules keyed by architecture do not apply) */
    double memory_bytes;                             /* device memory, bytes (binary: 80 GB = 80 GiB) */
    double memory_visible_bytes;                     /* the total the CUDA/ROCm runtime reports (cudaMemGetInfo,
                                                        torch's total_memory): what engines take --mem-util of;
                                                        ECC and the driver keep the rest. = memory_bytes when the
                                                        entry does not give it */
    double mem_bw_Bps;                               /* peak DRAM/HBM bandwidth, bytes/s (decimal) */
    double peak_flops[LLMROOF_DTYPE_COUNT];          /* dense peak, FLOP/s (OP/s for int); valid where has_peak */
    bool has_peak[LLMROOF_DTYPE_COUNT];              /* false: the GPU has no such compute path */
    enum llmroof_link link;                          /* intra-node interconnect used by collectives */
    double link_bw_Bps;                              /* per-GPU unidirectional link bandwidth, bytes/s */
    double link_latency_s;                           /* fixed cost of one collective call, s */
    double link_hop_latency_s;                       /* added latency per ring step, s */
    double nvls_bw_Bps;                              /* NVLink SHARP all-reduce algorithm bandwidth, bytes/s; 0 = none */
    int mesh_links;                                  /* fully connected mesh (MI300X xGMI): links per GPU; 0 = switched */
    double custom_ar_latency_s;                      /* fixed cost of one call of an engine's custom (peer-memory)
                                                        all-reduce on this GPU's link, s; 0 = comm.h default */
    double simple_step_s;                            /* measured cost per ring step of NCCL's Simple protocol on
                                                        this GPU's link, s; 0 = comm.h's tuning-table figure */
    double ll128_share;                              /* measured LL128 bus bandwidth over Simple's, (0,1]; 0 =
                                                        comm.h's tuning-table 0.92 */
    double compute_eff;                              /* achieved fraction of peak FLOP/s, (0,1] */
    double memory_eff;                               /* achieved fraction of peak bandwidth, (0,1] */
    bool memory_eff_fitted;                          /* "efficiency.memory_fitted": memory_eff is a fit to
                                                        this repository's validation rows, which its
                                                        cross-validation replaces by a prior (fit/val_internal.h
                                                        VAL_MEMORY_PRIOR) */
    double comm_eff;                                 /* achieved fraction of link bandwidth, (0,1] */
    double step_overhead_s;                          /* fixed GPU cost per step (synchronisation), s */
    double kernel_s;                                 /* GPU time each kernel adds beyond its roofline time
                                                        (launch latency, ramp-up, tail), s; 0 = kernel.c default */
    double gemm_8bit_eff;                            /* share of the compute efficiency 8-bit GEMMs reach
                                                        on their doubled peak, (0,1]; 0 = kernel.c default */
    double overlap;                                  /* share of the shorter of compute and memory time that
                                                        does not hide under the longer one, [0, 0.5] */
    double fp16_acc_ratio;                           /* fp16-accumulate tensor peak / fp16 peak (GeForce: 2), 1 or more;
                                                        0 = 1 */
    double gemm_fp16acc_eff;                         /* share of the compute efficiency fp16-accumulate GEMMs
                                                        reach on that doubled peak, [0.5,1]; 0 = kernel.c default */
    double attn_eff;                                 /* FlashAttention-2-class prefill attention: share of the 16-bit
                                                        peak at long sequences, (0,1]; 0 = compute_eff */
    double attn_fa3_eff;                             /* same for FlashAttention-3-class kernels (Hopper); 0 = attn_eff */
    double attn_mem_eff;                             /* decode attention: share of peak bandwidth; 0 = memory_eff */
    double attn_mem_fa2_eff;                         /* decode attention in FlashAttention-2's kernels (an engine whose
                                                        fa2_archs/varlen_fa2_archs list this GPU): share of peak
                                                        bandwidth; 0 = attn_mem_eff */
    double gemm_ramp_rows;                           /* M0 of a compute-bound GEMM's fill ramp at an output width
                                                        of 4,096: its compute time is that of M + M0 (4096/N)^0.43
                                                        rows (kernel_gemm_ramp_rows, kernel_gemm_ramp_compute_s);
                                                        0 = none (the compute efficiency holds at any M) */
    int gpus_per_node;                               /* usual GPUs in one server */
    int sm_count;                                    /* streaming multiprocessors (CUDA's
                                                        multi_processor_count); 0 = not stated: what a
                                                        communication kernel holding some of them takes from
                                                        overlapped GEMMs is not charged (roofline.c) */
    int domain_gpus;                                 /* GPUs sharing the intra-node link (8; NVL72: 72) */
    char net_kind[16];                               /* inter-node network ("ib-ndr", "roce", "efa") */
    double net_bw_Bps;                               /* inter-node bandwidth per GPU, bytes/s, one direction */
    double net_latency_s;                            /* fixed cost of one inter-node collective or send, s */
    char host_cpu[LLMROOF_NAME_MAX];                 /* the usual host CPU of a server with this GPU ("" = not
                                                        stated: the reference host, docs/model.md "Host CPU") */
    double host_cpu_speed;                           /* that CPU's single-thread speed over the reference host's
                                                        (Xeon Platinum 8480C, DGX H100), [0.25, 4]; 0 = not stated (1) */
    char source[LLMROOF_SOURCE_MAX];                 /* where the figures come from */
};

enum llmroof_mlp { LLMROOF_MLP_GATED, LLMROOF_MLP_PLAIN };
/* Recurrent (linear-attention / state-space) mixers, docs/model.md "Layer kinds". */
enum llmroof_linear {
    LLMROOF_LINEAR_NONE,
    LLMROOF_LINEAR_GDN,       /* gated DeltaNet (Qwen3-Next, Qwen3.5) */
    LLMROOF_LINEAR_MAMBA2,    /* Mamba-2 SSD (Nemotron-H, Granite-4.0-H, Falcon-H1) */
    LLMROOF_LINEAR_LIGHTNING, /* lightning attention (MiniMax-01) */
    LLMROOF_LINEAR_MAMBA1,    /* Mamba-1 selective scan (Jamba): heads = d_inner channels, key_heads =
                                 dt_rank, key_dim = d_state, value_dim = 1 */
    LLMROOF_LINEAR_KDA        /* Kimi Delta Attention (Kimi-Linear): the delta rule of gdn with a
                                 decay per channel, from low-rank gate projections */
};
const char *linear_kind_name(enum llmroof_linear k); /* "gdn", "mamba2", "lightning", "mamba1", "kda" */
/* Per-layer pattern: at most this many layers may be listed one by one. */
#define LLMROOF_PATTERN_MAX 256
enum llmroof_norm { LLMROOF_NORM_RMS, LLMROOF_NORM_LAYER };

struct llmroof_model {
    char id[LLMROOF_ID_MAX];            /* catalog id ("llama-2-7b") */
    char name[LLMROOF_NAME_MAX];        /* display name */
    char hf_id[LLMROOF_NAME_MAX];       /* HuggingFace repository, "" when none */
    long hidden;                        /* hidden_size, elements */
    long layers;                        /* num_hidden_layers */
    long heads;                         /* num_attention_heads */
    long kv_heads;                      /* num_key_value_heads (== heads for MHA) */
    long head_dim;                      /* elements per head */
    long intermediate;                  /* MLP width of a dense layer, elements */
    long vocab;                         /* vocab_size */
    long max_context;                   /* max_position_embeddings, tokens */
    long learned_pos;                   /* rows of a learned position table (0 for RoPE) */
    bool tied_embeddings;               /* LM head shares the embedding matrix */
    enum llmroof_mlp mlp;               /* gated = 3 matrices (SwiGLU), plain = 2 (GELU/ReLU) */
    enum llmroof_norm norm;             /* RMSNorm (weight) or LayerNorm (weight + bias) */
    bool qkv_bias;                      /* q/k/v projections carry a bias */
    bool o_bias;                        /* output projection carries a bias */
    bool mlp_bias;                      /* MLP matrices carry biases */
    bool parallel_attn;                 /* attention and MLP read one norm and share one all-reduce */
    long moe_experts;                   /* routed experts; 0 = dense model */
    long moe_top_k;                     /* experts per token */
    long moe_intermediate;              /* width of one expert's MLP */
    long moe_shared;                    /* always-on shared experts of moe_intermediate width */
    long moe_first_dense;               /* leading dense layers (first_k_dense_replace), 0 = none */
    long moe_layer_step;                /* layer i >= moe_first_dense is MoE iff (i+1) % step == 0; 1 = all */
    long moe_groups;                    /* group-limited routing (DeepSeek-V2/V3 n_group): the routed experts in
                                           this many equal groups, of which a token's experts come from */
    long moe_topk_groups;               /* ... moe_topk_groups (topk_group); 0 or >= moe_groups = no limit */
    /* MLA, multi-head latent attention (DeepSeek-V2/V3, Kimi-K2); kv_lora_rank 0 = standard attention.
     * With MLA, head_dim holds the q/k head width (qk_nope + qk_rope) and kv_heads == heads. */
    long q_lora_rank;                   /* rank of the query down-projection, 0 = q projected directly */
    long kv_lora_rank;                  /* latent width cached per token per layer */
    long qk_nope_dim;                   /* per-head q/k width without rotary position */
    long qk_rope_dim;                   /* decoupled rotary key width, shared by all heads, cached */
    long v_head_dim;                    /* per-head value width */
    /* Sliding-window or chunked attention on some layers; window 0 = every layer global. */
    long window;                        /* tokens a local layer sees (sliding) or its chunk length (chunked) */
    long window_global_every;           /* layer i is global iff (i+1) % n == 0; 0 = every layer local */
    bool window_chunked;                /* Llama-4 chunked attention (keys from the query's chunk only) */
    long norms_per_layer;               /* norm vectors per layer; 0 = 2 (1 with parallel_attn); Gemma-2/3: 4 */
    /* Layer pattern (docs/model.md "Layer kinds"); "" = every layer attention, with the
     * window and MoE rules above. Otherwise one letter per layer (layers of them):
     * mixers: 'A' full attention, 'W' windowed (window), 'L' linear/SSM (linear_kind), 'P' full
     *         attention and the linear/SSM mixer side by side (Falcon-H1), 'N' none;
     * ffns:   'D' dense MLP (intermediate, or ffn_widths), 'E' MoE, 'N' none. */
    char mixers[LLMROOF_PATTERN_MAX + 1];
    char ffns[LLMROOF_PATTERN_MAX + 1];
    long ffn_widths[LLMROOF_PATTERN_MAX]; /* per-layer dense MLP width (NAS block_configs), 0 = intermediate */
    enum llmroof_linear linear_kind;    /* the recurrent mixer of the 'L' layers */
    long lin_heads;                     /* value heads (Mamba-2: SSM heads) */
    long lin_k_heads;                   /* key heads (Mamba-2: B/C groups) */
    long lin_k_dim;                     /* key width per head = state rows (Mamba-2: d_state) */
    long lin_v_dim;                     /* value width per head = state columns (Mamba-2: head_dim) */
    long lin_conv;                      /* short causal convolution kernel, 0 = none */
    bool lin_state_dtype_set;           /* the config states the recurrent state's dtype (Qwen3.5's
                                           mamba_ssm_dtype "float32"): the default of --state-dtype */
    enum llmroof_dtype lin_state_dtype; /* that dtype (fp32, fp16, bf16) */
    bool attn_gate;                     /* attention output gate (Qwen3-Next): q_proj twice as wide */
    /* DeepSeek Sparse Attention (DeepSeek-V3.2): a lightning indexer picks top-k keys */
    long dsa_top_k;                     /* keys each query attends to, 0 = dense attention */
    long dsa_heads;                     /* indexer heads */
    long dsa_head_dim;                  /* indexer head width (its cache holds one key of it per token) */
    bool qk_norm;                       /* per-head q and k RMSNorm of head_dim (Qwen3, Gemma-3) */
    bool attention_sinks;               /* one learned sink logit per head in every softmax (gpt-oss):
                                           attention kernels without sink support cannot run it */
    /* Checkpoint format (quantization_config); 0 bits = not stated, the weight dtype decides. */
    char ckpt_format[16];               /* quantization_config method ("fp8", "mxfp4"), "" = none stated */
    double ckpt_bits;                   /* effective bits per weight incl. scales, all quantized matrices */
    double ckpt_expert_bits;            /* routed experts only (gpt-oss MXFP4: 4.25), 0 = as ckpt_bits */
    bool ckpt_per_op;                   /* "excluded" given: ckpt_bits is every GEMM's but those, which
                                           stay at the 16-bit dtype (NVIDIA's NVFP4 checkpoints) */
    unsigned ckpt_excluded;             /* those GEMMs, LLMROOF_CKPT_* bits */
    long mtp_layers;                    /* multi-token-prediction layers (num_nextn_predict_layers), the
                                           drafter of --spec mtp; 0 = none */
    bool has_params_published;          /* params_published is set */
    double params_published;            /* published parameter count (for checking) */
    double params_active_published;     /* published active parameters per token (MoE), 0 = not stated */
    char source[LLMROOF_SOURCE_MAX];    /* where the figures come from */
};

/* The GEMM operators a checkpoint's "excluded" list may name (docs/catalog.md "checkpoint"); the
 * names are the operators' (`llmroof roofline` rows). */
enum llmroof_ckpt_module {
    LLMROOF_CKPT_QKV_PROJ = 1u << 0,  /* q/k/v projections (MLA: q_a, q_b, kv_a) */
    LLMROOF_CKPT_MLA_KV_UP = 1u << 1, /* MLA's kv_b */
    LLMROOF_CKPT_O_PROJ = 1u << 2,    /* attention output projection */
    LLMROOF_CKPT_FFN = 1u << 3,       /* the MLP: routed and shared experts of a MoE layer */
    LLMROOF_CKPT_DENSE_FFN = 1u << 4, /* the dense MLP layers of a MoE model */
    LLMROOF_CKPT_LM_HEAD = 1u << 5    /* the LM head */
};
#define LLMROOF_CKPT_MODULES 6
/* The name of module bit i ("qkv_proj"), i < LLMROOF_CKPT_MODULES. */
const char *catalog_ckpt_module_name(int i);

/* An inference engine's behaviour beyond the hardware: what a serving framework adds to every
 * step, to every first token, and how close its kernels get to the GPU's compute efficiency. */
/* Attention kernel families (docs/model.md "Attention kernels"): FlashAttention-2-class,
 * FlashAttention-3-class (Hopper: FA3, cuDNN, TensorRT-LLM's FMHA), eager (scores written to
 * memory in fp32 between separate matmul and softmax kernels, masked keys computed too), or
 * eager at prefill only with a fused single-query kernel at decode (AutoAWQ's fused modules). */
enum llmroof_attn_kernel { LLMROOF_ATTN_FLASH2, LLMROOF_ATTN_FLASH3, LLMROOF_ATTN_EAGER, LLMROOF_ATTN_EAGER_PREFILL };
const char *attn_kernel_name(enum llmroof_attn_kernel k); /* "flash2", as engines.json spells it */
/* Where a W8A8 engine quantizes the 16-bit activations each 8-bit GEMM reads (engine "act_quant"):
 * SEPARATE, a kernel of its own before every such GEMM (vLLM to 0.9's scaled_fp8_quant, SGLang);
 * NORM_ACT, folded into the RMSNorm and SiLU-and-mul kernels that produce the QKV, gate_up and down
 * inputs, the attention output's still separate (vLLM 0.10+: Inductor fuses its QuantFP8 op);
 * FUSED, every producer writes 8-bit itself (TensorRT-LLM: attention, SwiGLU and norm emit fp8). */
enum llmroof_act_quant { LLMROOF_ACT_QUANT_SEPARATE, LLMROOF_ACT_QUANT_NORM_ACT, LLMROOF_ACT_QUANT_FUSED };
const char *act_quant_name(enum llmroof_act_quant q); /* "separate", as engines.json spells it */

/* One band of GPU memory for which an engine states other defaults than its profile's
 * (SGLang's server_args.py sets chunked_prefill_size and cuda_graph_max_bs from the GPU's memory
 * as nvidia-smi reports it, in MiB). A GPU falls in a band when from_MiB <= its memory < below_MiB;
 * a bound given as 0 is open. Bands do not overlap; a GPU in none takes the profile's fields. */
#define LLMROOF_MEM_TIERS_MAX 8
struct llmroof_mem_tier {
    double from_MiB;                  /* lower bound of the band, inclusive, MiB; 0 = none */
    double below_MiB;                 /* upper bound, exclusive, MiB; 0 = none */
    long max_batched_tokens;          /* the token budget on such a GPU; 0 = the profile's */
    long graph_max_batch;             /* the largest decode batch a CUDA graph replays there at TP < 4;
                                         0 = the profile's graph_max_batch */
    long graph_max_batch_tp4;         /* the same at TP >= 4; 0 = graph_max_batch of the band */
    double mem_reserve_MiB;           /* > 0: the engine's default memory fraction on such a GPU is
                                         (memory - reserve - per GPU x tp x pp) / memory, rounded to 3
                                         places (SGLang's mem_fraction_static, server_args.py) */
    double mem_reserve_per_gpu_MiB;   /* the reserve's part per GPU of the instance (tp x pp) */
};

/* An engine's speculative-decoding methods (engine "spec_methods"), one bit each: a draft model,
 * Medusa heads, an EAGLE-1/2 head, an EAGLE-3 head, the model's own MTP layers. */
enum {
    LLMROOF_SPECM_DRAFT = 1u << 0,
    LLMROOF_SPECM_MEDUSA = 1u << 1,
    LLMROOF_SPECM_EAGLE = 1u << 2,
    LLMROOF_SPECM_EAGLE3 = 1u << 3,
    LLMROOF_SPECM_MTP = 1u << 4,
};
/* The method names, in the bits' order: "draft", "medusa", "eagle", "eagle3", "mtp". */
extern const char *const llmroof_spec_method_names[5];

/* An engine's own offline benchmark, which sizes the server from the dataset (engine
 * "offline_sizing"): trtllm-bench throughput on the PyTorch backend (1.x), or on TensorRT engines
 * (0.x: the build's estimate, chunked context on). */
enum llmroof_offline_sizing { LLMROOF_OFFLINE_SIZING_NONE, LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH,
                              LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH_ENGINE };

struct llmroof_engine {
    char id[LLMROOF_ID_MAX];          /* "vllm-0.6" */
    char name[LLMROOF_NAME_MAX];      /* display name */
    char aliases[LLMROOF_ALIASES_MAX][LLMROOF_ID_MAX]; /* extra lookup names: the versions it covers ("vllm-0.7") */
    int n_aliases;                    /* entries used in aliases */
    double step_overhead_s;           /* CPU time per step the GPU waits for (scheduling, sampling), s */
    double first_token_s;             /* added to every TTFT (tokenisation, admission, first sample), s */
    double api_first_token_s;         /* its API server's path beside the forward (HTTP, chat template
                                         and tokeniser, the hops to the engine, the first SSE chunk):
                                         a served request's TTFT only (the simulator without
                                         --no-api-server), s [0, 50 ms] */
    double api_prompt_token_s;        /* and per prompt token on that path (tokenising, hashing the
                                         prompt's blocks), s [0, 20 us] */
    double tp_step_overhead_s;        /* added to step_overhead_s when TP > 1 (or at any TP with
                                         ray_workers or --engine-use-ray): the driver's per-step calls
                                         to its tensor-parallel workers (Ray remote tasks), s [0, 20 ms] */
    bool ray_workers;                 /* every GPU, even at TP 1, is a Ray actor its engine calls each step
                                         (DistServe's ParaWorker): tp_step_overhead_s at any TP */
    double ray_output_token_s;        /* with the engine in a Ray actor (--engine-use-ray), CPU time per token
                                         of every scheduled sequence's prompt and output so far, each step: its
                                         whole RequestOutput pickled in the actor and unpickled in the API
                                         server (bench/ray_output_pickle.py), s [0, 1 us] */
    double compute_scale;             /* multiplies the GPU's compute efficiency, [0.7, 1] */
    double collective_latency_s;      /* added to each collective's fixed latency (NCCL via torch vs custom kernels), s */
    bool cuda_graphs;                 /* steps replay a CUDA graph: no CPU launch cost per kernel (all steps,
                                         or those graph_max_batch names) */
    long graph_max_batch;             /* the largest step a graph replays: a decode-only step's sequences
                                         (prefill and mixed steps run eager), or with graph_piecewise any
                                         step's tokens; [1, 65536], 0 = every step (needs cuda_graphs) */
    bool graph_piecewise;             /* piecewise graphs (vLLM V1): prefill and mixed steps up to
                                         graph_max_batch tokens replay too, attention launched between
                                         the pieces (needs graph_max_batch) */
    long graph_every_batch_to;        /* graphs captured for exact batch sizes, no padding (TensorRT-LLM's
                                         PyTorch backend, CudaGraphConfig enable_padding false): every
                                         decode batch up to this many sequences, above it only the powers
                                         of two and graph_max_batch itself; a batch between them runs
                                         eager. 0 = the batch pads up to the next graph (every batch up
                                         to graph_max_batch replays) */
    double launch_s;                  /* CPU time to launch one kernel in a step no graph replays, s
                                         [0, 50 us]; 0 = 4 us */
    double launch_mla_s;              /* the same for a model with MLA attention (DeepSeek-V2/V3/R1, Kimi-K2),
                                         whose engine code spends more Python per kernel, s [0, 100 us];
                                         0 = launch_s */
    double kernel_factor;             /* kernels launched / the fused count ops.c declares, [1, 4]; 0 = 1 */
    bool kv_per_query_head;           /* decode attention reads K/V once per query head (GQA before XQA) */
    bool quantized_head;              /* quantized weights include the embedding, the LM head and the MoE
                                         router (llama.cpp's GGUF types, gpt-fast and torchao, MLC's q4f16_1,
                                         calm, ExLlamaV2): ops.h llmroof_dtypes.head_quantized; false: they
                                         stay 16-bit below 16-bit weights, as AWQ, GPTQ, llm-compressor,
                                         Model Optimizer and vLLM's on-the-fly fp8 keep them */
    long kv_heads_per_read;           /* decode attention serves at most this many query heads of a GQA
                                         group per K/V read, [1, 64]; 0 = the whole group
                                         (roofline_kv_reads; kv_per_query_head is 1) */
    char varlen_fa2_archs[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX]; /* GPU architectures on which every
                                         step's attention is one FlashAttention-2 varlen call per layer
                                         (vLLM V1's FLASH_ATTN backend without FA3): a decode shares a
                                         call with a longer query, or a windowed layer, unpacked
                                         (roofline_attn_extra_kv_bytes) */
    int n_varlen_fa2_archs;           /* entries used in varlen_fa2_archs */
    char fa2_archs[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX]; /* GPU architectures on which the engine's
                                         attention kernels are FlashAttention-2's (vLLM V0's FLASH_ATTN
                                         backend): a sliding-window layer reads K/V per query head */
    int n_fa2_archs;                  /* entries used in fa2_archs */
    char moe_triton_archs[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX]; /* GPU architectures on which the engine
                                         runs 8- and 16-bit MoE experts through its Triton fused-MoE kernel
                                         (vLLM's fused_moe, SGLang's fused_moe_triton): kernel.h
                                         KERNEL_TRITON_MOE_COMPUTE_SHARE */
    int n_moe_triton_archs;           /* entries used in moe_triton_archs */
    char dsa_prefill_pad_archs[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX]; /* GPU architectures on which the engine's
                                         sparse (DSA) prompt attention runs FlashMLA's 16-bit sparse kernel,
                                         query heads padded and each query's whole top-k list computed, its
                                         decodes another kernel (SGLang's flashmla_sparse prefill on Hopper) */
    int n_dsa_prefill_pad_archs;      /* entries used in dsa_prefill_pad_archs */
    bool fp8_kv_per_query_head;       /* on an fa2_archs GPU an 8-bit K/V cache, which FlashAttention-2
                                         cannot read, sends decode to a kernel that reads K/V once per
                                         query head (vLLM 0.6: XFormers' backend, vLLM's paged attention) */
    bool cuda_core_decode;            /* decode attention is FasterTransformer's masked multi-head attention
                                         or a kernel adapted from it (vLLM's paged attention v1/v2, QServe's,
                                         TensorRT-LLM's before XQA, AutoAWQ's single_query_attention): one
                                         thread block per sequence and query head, dot products in fp32 on
                                         CUDA cores, bounded by the kernel's
                                         measured instruction rate (kernel.h KERNEL_MMHA_FP32_SHARE, x
                                         kernel_fp32_issue_share: half on GPUs of 128 FP32 lanes per SM) */
    bool fp8_attention;               /* attention runs at the fp8 peak when the activations are fp8 */
    bool fp16_accumulate;             /* GEMMs accumulate in fp16 (the GeForce fp16-accumulate peak) */
    enum llmroof_attn_kernel attention; /* attention kernel family (flash2 unless the profile says) */
    enum llmroof_act_quant act_quant; /* where 8-bit GEMM inputs are quantized (separate unless the profile says) */
    bool custom_allreduce;            /* all-reduce by the engine's one-shot/two-shot kernels on NVLink/xGMI */
    bool dsa_flashmla_pad;            /* DeepSeek Sparse Attention through FlashMLA's sparse kernels as vLLM
                                         calls them: query heads padded to the kernel's multiple, every
                                         query's whole top-k index list computed (model.md "DSA") */
    bool dsa_dense_short_prefill;     /* a DSA model's prompt steps whose sequences attend to at most top_k
                                         keys run dense (decompressed) MLA without the indexer's scores
                                         (SGLang's MHA_ONE_SHOT below its dense-attention threshold) */
    bool first_token_decode;          /* the prefill skips the last prompt token, which a decode step then
                                         processes to sample the first token (TurboMind): TTFT = prefill +
                                         one decode step */
    bool logits_all_tokens;           /* a prompt's pass projects every token onto the vocabulary
                                         (llama.cpp before PR #6122, March 2024) */
    bool kv_copy;                     /* the batch's K/V live in one contiguous tensor that every decode
                                         step of two or more sequences reallocates and copies, and that a
                                         new batch joining is concatenated into (TGI before paged
                                         attention, v0.8); the old and new tensors live together, so the
                                         pool holds half the memory's tokens */
    double prompt_ubatch_tokens;      /* a prompt is evaluated in forward passes of at most this many
                                         tokens (llama.cpp's n_ubatch); 0 = the whole prompt in one */
    double dequant_min_tokens;        /* weight-only formats dequantized to 16 bits for a dense GEMM from
                                         this many tokens per step; 0 = fused (dequantized in the GEMM) */
    double wo_issue_per_flop;         /* weight-only formats GEMMed by the engine's own fused kernel (not
                                         dequantize-then-GEMM, not MMQ): CUDA-core instruction slots it
                                         issues per tensor-core FLOP to unpack the weights, timed at the
                                         GPU's issue rate on top of the math (llm-awq's GEMM: 0.30,
                                         docs/model.md "Weight-only GEMMs"); 0 = none */
    double mmq_share;                 /* llama.cpp's MMQ: above KERNEL_MMVQ_MAX_TOKENS tokens a step the
                                         weight-only GEMMs run on the int8 tensor cores (activations
                                         quantized to 8 bits, no 16-bit copy of the weights) at this
                                         share of the GPU's int8 peak; 0 = none */
    /* serving scheduler (the simulator; docs/catalog.md "Engines"); 0 / false = absent */
    double cpu_seq_s;                 /* CPU seconds per running sequence per iteration, [0, 1 ms] */
    double worker_seq_s;              /* more CPU seconds per running sequence per iteration for each Ray
                                         worker of a multi-GPU instance: the driver pickles the sequence's
                                         metadata into every worker's call (vLLM before PR #2221), [0, 1 ms] */
    double cpu_overlap;               /* share of the CPU work that overlaps the GPU step, [0, 1] */
    double cpu_output_s;              /* engine output processing per sequence per iteration (GPU->CPU copy,
                                         stop checks, detokenisation), s [0, 1 ms] */
    double cpu_output_overlap;        /* share of it that overlaps the GPU step (vLLM 0.6's asynchronous
                                         output processor: 1), [0, 1] */
    double kv_watermark;              /* share of the KV blocks an admission must leave free (vLLM V0's
                                         block manager watermark: 0.01), [0, 0.2] */
    double api_stream_s;              /* API server per streamed chunk (one per sequence per iteration:
                                         OpenAI response formatting, SSE), s [0, 1 ms] */
    double api_overlap;               /* share of it off the engine's step (1: its own process, vLLM >= 0.6;
                                         0: the engine's process and GIL, vLLM <= 0.5), [0, 1] */
    bool admit_no_evict;              /* "admission": "no-evict" (reserve prompt + max output KV at
                                         admission) instead of "optimistic" (preempt when blocks run out) */
    long kv_block_tokens;             /* the engine's KV block in tokens, [1, 65536]; 0 = simulate's 16
                                         (DeepSpeed-MII: 64 at head size 128, get_kv_block_size) */
    double reserve_bytes;             /* memory outside the KV pool beside weights and workspace (CUDA
                                         context, NCCL, graphs) as the engine counts it, bytes;
                                         has_reserve false: --reserve's default (1 GiB) */
    bool has_reserve;
    double mem_util;                  /* share of device memory the engine takes, [0.5, 1]; 0 = --mem-util's
                                         0.90 (DeepSpeed-MII: all the free memory but 1 GB, MemoryConfig
                                         RESERVE: 1 with the 1 GiB reserve) */
    bool mem_static;                  /* mem_util (or the default the bands and mem_util_by_tp give, or
                                         --mem-util) covers weights and the KV pool only, as SGLang's
                                         mem_fraction_static: the pool is visible memory x the fraction
                                         - weights; activations, CUDA graphs and buffers live in the rest */
    double mem_reserve_spec_MiB;      /* added to a band's mem_reserve_MiB under speculative decoding */
    double mem_reserve_dp_attention_MiB; /* added to it with data-parallel attention */
    int n_util_by_tp;                 /* entries used in util_by_tp */
    struct {
        int from_tp;                  /* instances of at least this many GPUs (tp x pp) */
        double mem_util;              /* take this default fraction */
    } util_by_tp[LLMROOF_MEM_TIERS_MAX]; /* "mem_util_by_tp": SGLang <= 0.4.6's fraction by TP size */
    bool kv_of_free_memory;           /* mem_util is the KV cache's share of the memory left once weights,
                                         workspace and reserve are in (TensorRT-LLM's
                                         free_gpu_memory_fraction, LMDeploy's cache_max_entry_count), not
                                         the share of the device the engine takes in all (vLLM, SGLang) */
    bool admit_wait;                  /* "admission": "wait" (DeepSpeed-MII <= 0.1.3: optimistic, but a
                                         running sequence short of a KV block waits, and a step that
                                         runs nothing flushes and recomputes every one; sim.h) */
    bool admit_reserve;               /* "admission": "reserve" (SGLang's PrefillAdder: a new request's
                                         prompt + output must fit the KV left after the running
                                         requests' outputs at the new-token ratio; sim.h) */
    long max_seqs;                    /* default running-sequence limit, [1, 65536]; 0 = the simulator's 256 */
    long spec_max_seqs;               /* the limit the engine sets instead under speculative decoding
                                         when none is given (SGLang's max_running_requests 48), [1,
                                         65536]; 0 = max_seqs */
    long max_batch;                   /* the most sequences the engine runs at once whatever its flags,
                                         [1, 65536]; 0 = no limit of its own (calm: 1, its decoder
                                         holds one sequence): estimate's --batch, memory's and
                                         simulate's --max-seqs beyond it are refused */
    long max_gpus;                    /* the most GPUs one instance runs on, [1, 65536]; 0 = no limit
                                         (calm: 1, a single-GPU runtime): a layout beyond it is refused */
    long max_batched_tokens;          /* default token budget per iteration, [16, 1e7]; 0 = 2048 */
    long large_gpu_max_seqs;          /* on GPUs of >= 70 GiB other than A100 (vLLM >= 0.9); 0 = max_seqs */
    long large_gpu_max_batched_tokens;/* the same for the token budget; 0 = max_batched_tokens */
    long offline_max_batched_tokens;  /* the token budget of a run through the engine's own API, no
                                         server (vLLM's LLM class: simulate --no-api-server); 0 = as
                                         the server's */
    long offline_large_gpu_max_batched_tokens; /* the same on GPUs of >= 70 GiB other than A100 */
    int offline_sizing;               /* "offline_sizing": how the engine's own benchmark sizes its
                                         server in a run with no API server (simulate --no-api-server):
                                         LLMROOF_OFFLINE_SIZING_*, serve/bench_size.h */
    bool budget_min_context;          /* the token budget is at least the model's context length (vLLM
                                         0.2-0.5: max(max_model_len, max_num_batched_tokens)) */
    bool whole_prefill;               /* "chunked_prefill": false - prompts are prefilled whole, never
                                         split across iterations (vLLM before 0.6's default) */
    unsigned spec_methods;            /* "spec_methods": the speculative-decoding methods the engine's
                                         releases in this profile run, LLMROOF_SPECM_* bits; checked
                                         against --spec only where spec_methods_stated */
    bool spec_methods_stated;         /* the profile states them ([] = none); absent: not checked */
    bool spec_no_overlap;             /* speculative decoding turns the CPU overlap off (SGLang 0.4) */
    bool spec_draft_graph;            /* the drafter's k passes replay as one CUDA graph inside the
                                         iteration (SGLang's EAGLE/MTP draft graph runner): no engine
                                         step overhead per pass */
    struct llmroof_mem_tier mem_tiers[LLMROOF_MEM_TIERS_MAX]; /* "gpu_memory_tiers": defaults by the
                                         GPU's memory (catalog_engine_tier) */
    int n_mem_tiers;                  /* entries used in mem_tiers */
    bool prefix_cache;                /* automatic prefix caching is on by default (vLLM V1's
                                         enable_prefix_caching, SGLang's radix cache): a run with a
                                         shared prefix reuses its cached blocks unless told not to */
    bool pd_decode_first_token;       /* disaggregated serving: the client's first token comes from the
                                         decode instance (a proxy streams its tokens: vLLM, SGLang), not
                                         from the prefill instance */
    bool pd_decode_resample;          /* with pd_decode_first_token: the decode instance samples the first
                                         token again (vLLM's proxy drops the prefill's), so it runs one
                                         step per output token; else it streams the prefill's token as
                                         the request joins its running batch, before that step (SGLang's
                                         prebuilt batch, no forward) */
    bool disaggregation;              /* the engine serves disaggregated prefill and decode pools (true
                                         unless the profile says false: vLLM 0.6+ through a KV connector,
                                         SGLang 0.4+, TensorRT-LLM's trtllm-serve disaggregated,
                                         DistServe); false: simulate refuses --prefill-pool and plan
                                         searches no such layout */
    long max_concurrent_requests;     /* requests one instance takes at once, queued and running; one
                                         more is refused (TGI's --max-concurrent-requests, 128: HTTP
                                         429); 0 = no limit */
    long pd_decode_reserve_tokens;    /* with pd_decode_prealloc: KV tokens the decode server keeps
                                         free for each request it holds before it pre-allocates another
                                         (SGLang's num_reserved_decode_tokens, 512); 0 = none */
    bool pd_kv_full_window;           /* disaggregated serving: both pools hold and send every layer's
                                         whole context, windowed layers too (vLLM 0.10-0.22: a KV
                                         connector turns the hybrid KV cache manager off; 0.8-0.9 had
                                         none); false: windowed layers keep and send their window */
    bool pd_decode_prealloc;          /* disaggregated serving: the decode instance takes a request's
                                         prompt KV when the request arrives, and the prefill runs only
                                         once it is held (SGLang's decode PreallocQueue); false: the
                                         decode instance's blocks are taken when the prefill ends */
    bool cuda_only;                   /* its kernels are CUDA's alone (TensorRT-LLM, TurboMind, QServe, ...): it
                                         runs on no AMD GPU (an entry whose arch is a gfx target) */
    bool moe_gemv;                    /* its MoE experts at a few tokens each run as matrix-vector products
                                         (calm, llama.cpp's MMVQ, AutoAWQ's fused GEMV, a PyTorch loop over
                                         the experts): one token streams its expert at the dense rate, the
                                         grouped share reached by 16; false: tensor-core grouped GEMMs
                                         (DeepGEMM, TensorRT-LLM's, AMD's aiter) that pad each expert's
                                         rows to a tile and stream at the grouped share at any count
                                         (kernel.h KERNEL_GROUPED_GEMM_BW_SHARE) */
    bool moe_tp_shared_local;         /* under --moe-tp, the shared experts and dense MLP layers run on each
                                         attention replica's own tokens, split over its attention TP alone
                                         (vLLM V1's data parallelism: only the routed experts form the DP x TP
                                         group, SharedFusedMoE runs the shared experts on the rank's tokens);
                                         false: gathered and split with the routed experts (SGLang) */
    bool dp_lm_head_split;            /* with data-parallel attention the LM head is vocabulary-parallel over
                                         every GPU of the stage, each replica's last hidden states gathered to
                                         it and the logits gathered back (SGLang without --enable-dp-lm-head:
                                         ParallelLMHead(use_attn_tp_group=False)); false: each replica's own
                                         head over its attention TP (vLLM's DP ranks) */
    bool ssm_state_fp32;              /* the engine keeps a recurrent layer's SSM state in fp32 unless the
                                         model's config or --state-dtype names another, and its
                                         convolution window at bf16 whatever the state's (SGLang:
                                         mamba2_state_dtype's default float32 and conv dtype bfloat16,
                                         ServerArgs mamba_ssm_dtype); false: the model's 16-bit dtype
                                         (vLLM's mamba_cache_dtype "auto") */
    bool spec_state_per_token;        /* under speculative decoding a sequence of a model with recurrent
                                         layers keeps a state for every token of a verification pass,
                                         the draft positions' and one more (SGLang's MambaPool:
                                         intermediate_ssm_state_cache and intermediate_conv_window_cache
                                         of speculative_num_draft_tokens each); false: one per draft
                                         position (vLLM's MambaSpec num_speculative_blocks) */
    bool dp_attention;                /* runs data-parallel attention beside expert parallelism
                                         (--dp-attention; default true: SGLang 0.4+, vLLM V1,
                                         TensorRT-LLM's enable_attention_dp); false: it does not */
    bool expert_parallel;             /* splits a MoE's experts over ranks (--ep; default true: SGLang 0.4+,
                                         vLLM V1's --enable-expert-parallel, TensorRT-LLM's moe_ep_size);
                                         false: its experts split by width with the TP group alone */
    bool prompt_within_budget;        /* without chunked prefill a prompt longer than the token budget is
                                         refused (TensorRT-LLM: maxInputLen = min(maxSequenceLen - 1,
                                         maxNumTokens), LlmRequest::validate) rather than run alone */
    bool dp_rank_scheduler;           /* each data-parallel attention rank is its own engine whose
                                         scheduler holds the token budget and the sequence limit
                                         (vLLM V1's DP "core engines"); false: the budget and limit are
                                         the instance's, each rank scheduling its share (SGLang) */
    bool prefill_first;               /* waiting prompts are admitted first into a prompt-only iteration
                                         that stalls every running decode (vLLM 0.2-0.5's scheduler) */
    bool static_batching;             /* no continuous batching: a batch forms only when the previous one
                                         has finished, its prompts padded to the longest (HuggingFace
                                         transformers' generate(); sim.h sim_config.static_batching) */
    long chunked_prefill_min_context; /* chunked prefill turns itself on when the served context
                                         (max_model_len) exceeds this many tokens, and overrides
                                         chunked_prefill, prefill_first and budget_min_context there
                                         (vLLM 0.5.4-0.6 V0: 32768, PR #6666), [1024, 1e7]; 0 = never */
    long chunked_max_batched_tokens;  /* the token budget when it does (vLLM V0: 512, 2048 from PR
                                         #10544), [16, 1e7]; 0 = max_batched_tokens */
    double waiting_served_ratio;      /* TGI's router (--waiting-served-ratio): while a batch runs, a new
                                         batch is admitted only when it holds at least floor(running x
                                         ratio) requests; [0, 100], 0 = no such gate */
    long max_waiting_steps;           /* TGI's --max-waiting-tokens: from this many iterations since the
                                         last admission (that one counted) any waiting request is
                                         admitted; [0, 1e6], 0 = at once (only with the ratio) */
    long max_paddings;                /* vLLM 0.2-0.3 ran a prompt iteration as a [prompts x longest]
                                         tensor: every prompt is padded to the longest, the budget
                                         counts prompts x longest, and a prompt joins only while the
                                         padding stays within this many tokens (--max-paddings, 256);
                                         [0, 1e6], 0 = prompts packed without padding */
    bool max_paddings_option;         /* the engine's versions include one that takes --max-paddings
                                         (vLLM v0.2.1, PR #1381, to v0.3.x): simulate --max-paddings is
                                         refused with a profile without it (default false) */
    bool multi_step_scheduling;       /* the engine takes --num-scheduler-steps (vLLM V0 from v0.6.0,
                                         PR #7000, removed in v0.10.1, PRs #22138 and #22779; never in
                                         V1): simulate --scheduler-steps is refused with a profile
                                         without it (default false) */
    bool recv_interval_option;        /* the engine takes SGLang's --scheduler-recv-interval
                                         (managers/scheduler_recv_skipper.py): simulate
                                         --recv-interval is refused with a profile without it
                                         (default false) */
    char source[LLMROOF_SOURCE_MAX];  /* where the figures come from */
};

struct llmroof_catalog {
    struct llmroof_gpu *gpus;     /* owned array */
    size_t n_gpus, cap_gpus;
    struct llmroof_model *models; /* owned array */
    size_t n_models, cap_models;
    struct llmroof_engine *engines; /* owned array (data/engines.json, optional) */
    size_t n_engines, cap_engines;
};

void catalog_init(struct llmroof_catalog *cat);
void catalog_free(struct llmroof_catalog *cat); /* safe on an initialised, empty catalog */

/* Parse and validate a GPU (or model) catalog from text. `fname` is only used in
 * messages. Entries whose id already exists in `cat` replace it when `replace`
 * is true, otherwise that is an error; duplicates inside one file are always errors.
 * On error nothing is added. */
int catalog_add_gpus_text(struct llmroof_catalog *cat, const char *text, size_t len,
                          const char *fname, bool replace, struct llmroof_err *err);
int catalog_add_models_text(struct llmroof_catalog *cat, const char *text, size_t len,
                            const char *fname, bool replace, struct llmroof_err *err);

/* Same, reading the file at `path` (at most 64 MiB). */
int catalog_add_gpus_file(struct llmroof_catalog *cat, const char *path, bool replace,
                          struct llmroof_err *err);
int catalog_add_models_file(struct llmroof_catalog *cat, const char *path, bool replace,
                            struct llmroof_err *err);

/* Engine profiles ({"engines": [...]}); same rules as GPUs and models. */
int catalog_add_engines_text(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname,
                             bool replace, struct llmroof_err *err);
int catalog_add_engines_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err);
const struct llmroof_engine *catalog_find_engine(const struct llmroof_catalog *cat, const char *name);
/* The band of en's "gpu_memory_tiers" that a GPU of memory_bytes falls in, or NULL (none, or no
 * engine): the engine's defaults on that GPU are the band's fields where it states them. */
const struct llmroof_mem_tier *catalog_engine_tier(const struct llmroof_engine *en, double memory_bytes);

/* The engine's default share of g's memory for an instance of `gpus` GPUs (tp x pp): its band's
 * reserve rule (mem_reserve_MiB, plus mem_reserve_spec_MiB with speculation and
 * mem_reserve_dp_attention_MiB with data-parallel attention), else mem_util_by_tp's entry for the
 * largest from_tp <= gpus, else mem_util; 0 when the profile states none (--mem-util's 0.90). */
double catalog_engine_mem_util(const struct llmroof_engine *en, const struct llmroof_gpu *g, int gpus, bool spec,
                               bool dp_attention);
/* Whether the engine's default share depends on the GPU or the instance (bands with a reserve, or
 * mem_util_by_tp): memory evaluations then ask catalog_engine_mem_util for each layout. */
bool catalog_engine_mem_util_varies(const struct llmroof_engine *en);
/* Whether g is an AMD GPU: its arch a gfx target ("gfx942"); an entry without arch is not. */
bool catalog_gpu_is_amd(const struct llmroof_gpu *g);
/* Whether engine `en` runs on GPU `g`: false for a CUDA-only engine on an AMD GPU. */
bool catalog_engine_runs_on(const struct llmroof_engine *en, const struct llmroof_gpu *g);

/* catalog_add_*_file that add only the entry `pick` names (its id, or a GPU's or engine's alias,
 * case-insensitive; a name catalog_find_* resolves otherwise picks none, since whether it names
 * one entry alone takes every entry), or none when no entry has that name ("" picks none). Every
 * entry of the file is still parsed and checked: the same errors, the same messages. A
 * command that needs one model, one GPU and one engine (estimate) builds three entries, not
 * the whole catalog (docs/performance.md). NULL picks every entry. */
int catalog_add_gpus_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                               struct llmroof_err *err);
int catalog_add_models_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                                 struct llmroof_err *err);
int catalog_add_engines_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                                  struct llmroof_err *err);

/* Lookup by id or alias, case-insensitive, else by the other names people type or copy, when
 * they name one entry alone (docs/catalog.md "Names llmroof resolves"): the id or an alias
 * folded ("llama3.1-70b", "H200 SXM 141GB"); a model's display name or HuggingFace repository
 * ("meta-llama/Llama-3.1-70B"), also with the fine-tune words Instruct, Chat and it left out; a
 * GPU's name as nvidia-smi or rocm-smi prints it ("NVIDIA A100-SXM4-80GB", "AMD Instinct
 * MI300X"), also with a last word stating its memory ("L40S 48GB"). NULL when absent, or when
 * such a name fits more than one entry. */
const struct llmroof_gpu *catalog_find_gpu(const struct llmroof_catalog *cat, const char *name);
const struct llmroof_model *catalog_find_model(const struct llmroof_catalog *cat, const char *name);

/* How catalog_match_* found an entry. */
enum llmroof_match {
    LLMROOF_MATCH_NONE,     /* no entry, or more than one */
    LLMROOF_MATCH_ID,       /* an id or alias, case-insensitive */
    LLMROOF_MATCH_SPELLING, /* an id or alias once both are folded: "llama3.1-70b", "h100 sxm5 80gb" */
    LLMROOF_MATCH_NAME,     /* another of the entry's names (a display name, a repository, a fine-tune's
                               or nvidia-smi's name): what it was taken as is worth saying */
};
/* catalog_find_* that also say how the name matched (how may be NULL). */
const struct llmroof_gpu *catalog_match_gpu(const struct llmroof_catalog *cat, const char *name,
                                            enum llmroof_match *how);
const struct llmroof_model *catalog_match_model(const struct llmroof_catalog *cat, const char *name,
                                                enum llmroof_match *how);
/* Lookup by id or alias alone, case-insensitive: for a name a data file states as a catalog id
 * (the validation maps), where any other name is a mistake to report, not a name to resolve. */
const struct llmroof_gpu *catalog_find_gpu_exact(const struct llmroof_catalog *cat, const char *name);
const struct llmroof_model *catalog_find_model_exact(const struct llmroof_catalog *cat, const char *name);

/* Up to `max` ids closest to `name` (edit distance, prefix/substring), best first.
 * Returns the count written to out (pointers into the catalog). */
size_t catalog_suggest_gpus(const struct llmroof_catalog *cat, const char *name,
                            const char **out, size_t max);
size_t catalog_suggest_models(const struct llmroof_catalog *cat, const char *name,
                              const char **out, size_t max);
size_t catalog_suggest_engines(const struct llmroof_catalog *cat, const char *name,
                               const char **out, size_t max);

/* Turns a HuggingFace config.json (Llama, Mistral, Mixtral, Qwen2, Falcon, GPT-J,
 * OPT, InternLM) into a model entry with id `id`. The entry is validated like a
 * catalog entry. */
int catalog_model_from_hf(const char *text, size_t len, const char *fname, const char *id,
                          struct llmroof_model *out, struct llmroof_err *err);
/* Same, also for qwen3, qwen3_moe, deepseek_v2/v3, kimi_k2, gemma2, gemma3 (and the text_config
 * of multimodal configs), gpt_oss and llama4; fields that change cost but are not modelled either
 * fail or add a line to `warn` (NUL-terminated, at most warn_cap bytes; may be NULL). */
int catalog_model_from_hf_warn(const char *text, size_t len, const char *fname, const char *id,
                               struct llmroof_model *out, char *warn, size_t warn_cap, struct llmroof_err *err);

/* An EAGLE-family draft head's own decoder layer, from its HuggingFace config.json
 * (--spec-draft-config): a Llama layer of these shapes in place of the target's attention shape
 * and MLP rule (ops_head_shape_own). heads 0: none given. */
struct llmroof_draft_head {
    long heads;        /* num_attention_heads; 0 = no config: the head takes the target's shape */
    long kv_heads;     /* num_key_value_heads (default num_attention_heads), divides heads */
    long head_dim;     /* head_dim (default hidden_size / num_attention_heads), elements */
    long intermediate; /* intermediate_size: its dense SwiGLU MLP's width, elements */
    long vocab;        /* draft_vocab_size (EAGLE-3), else vocab_size (at most the target's); 0 = not stated */
    bool eagle3;       /* an EAGLE-3 head: architectures names an ...Eagle3 class, or draft_vocab_size is given */
    bool attn_bias;    /* attention_bias: q/k/v/o carry biases (LlamaConfig; default false) */
    bool vocab_drafted; /* vocab is draft_vocab_size's (false: vocab_size's, or none) */
    bool dtype_set;    /* torch_dtype (or dtype) names a 16-bit dtype for its weights (dtype) */
    enum llmroof_dtype dtype; /* that dtype: fp16 ("float16") or bf16 ("bfloat16"); a "float32"
                                 config is served at 16 bits and sets nothing (ops_head_dtypes) */
};
/* Reads a draft head's config.json (`text`, `len` bytes; messages name `fname`) against its target:
 * hidden_size must be the target's, num_key_value_heads must divide num_attention_heads, an MLA
 * layer (kv_lora_rank) and more than one layer are refused. 0, or LLMROOF_EINPUT with err naming
 * the file and the field; *out zeroed on error. */
int catalog_draft_head_from_hf(const char *text, size_t len, const char *fname, const struct llmroof_model *target,
                               struct llmroof_draft_head *out, struct llmroof_err *err);

/* Resolves the argument of import-hf: an existing file is itself; "org/name" is looked up in the
 * HuggingFace cache, hub = $HF_HUB_CACHE (hub_cache non-NULL and non-empty), else $HF_HOME/hub
 * (hf_home so), else $HOME/.cache/huggingface/hub, huggingface_hub's own order:
 * hub/models--org--name/snapshots/REV/config.json with REV from refs/main when present, else the
 * only or last snapshot. Fails naming the path tried when nothing is cached. */
int catalog_hf_resolve(const char *arg, const char *hub_cache, const char *hf_home, const char *home, char *out,
                       size_t cap, struct llmroof_err *err);

/* Validates one model / GPU struct (used by the loader and import-hf); `where`
 * prefixes messages. */
int catalog_check_model(const struct llmroof_model *m, const char *where, struct llmroof_err *err);

/* ------------------------------------------------------------------------ */
/* Validation mapping (data/validation-map.json) and uncertainty bands       */
/* (data/uncertainty.json); see docs/validation.md                           */
/* ------------------------------------------------------------------------ */

#define LLMROOF_MAP_MAX 96
#define LLMROOF_MAP_KEY 96

struct llmroof_name_map { char from[LLMROOF_MAP_KEY]; char to[LLMROOF_ID_MAX]; };
struct llmroof_dtype_map {
    char from[LLMROOF_MAP_KEY];
    enum llmroof_dtype dtype;
    double bits;               /* 0 = dtype's */
    bool has_act;              /* the format computes in `act` (W8A8, fp8), not at 16 bits */
    enum llmroof_dtype act;
};
struct llmroof_len_map { char from[LLMROOF_MAP_KEY]; long tokens; };

struct llmroof_valmap {
    struct llmroof_name_map gpus[LLMROOF_MAP_MAX];    /* published GPU name -> catalog id */
    int ngpus;
    struct llmroof_name_map models[LLMROOF_MAP_MAX];  /* published model name -> catalog id */
    int nmodels;
    struct llmroof_dtype_map wdt[LLMROOF_MAP_MAX];    /* weight format -> dtype and effective bits */
    int nwdt;
    struct llmroof_dtype_map kvdt[LLMROOF_MAP_MAX];   /* KV format -> dtype */
    int nkvdt;
    struct llmroof_len_map lens[LLMROOF_MAP_MAX];     /* non-numeric length -> assumed tokens */
    int nlens;
    struct llmroof_name_map engines[LLMROOF_MAP_MAX]; /* framework name -> engine id */
    int nengines;
    struct llmroof_len_map batches[LLMROOF_MAP_MAX];  /* non-numeric batch -> sequences; 0 = the most that fit */
    int nbatches;
    struct llmroof_len_map tps[LLMROOF_MAP_MAX];      /* non-numeric tp -> tensor-parallel ranks */
    int ntps;
    char reserved[LLMROOF_MAP_MAX][LLMROOF_MAP_KEY];  /* source keys kept out of the visible set */
    int nreserved;
};

int catalog_load_valmap(const char *text, size_t len, const char *fname, struct llmroof_valmap *out,
                        struct llmroof_err *err);

/* measured / predicted ratios at the 10th and 90th percentile of the published set */
struct llmroof_band {
    bool present;
    double low, high;   /* multiply a predicted latency by these */
    long n;             /* rows behind the band */
};

struct llmroof_uncertainty {
    struct llmroof_band ttft, tpot, e2e; /* by metric class: the static rows (estimate, report) */
    /* the serving rows' (data/serving.csv: latency under a load), which simulate --range takes
     * where present; absent in a file written from static rows alone */
    struct llmroof_band serving_ttft, serving_tpot, serving_e2e;
};

int catalog_load_uncertainty(const char *text, size_t len, const char *fname, struct llmroof_uncertainty *out,
                             struct llmroof_err *err);
/* The band of an end-to-end latency e2e_s of which ttft_s is the first token: the e2e rows' band,
 * widened to cover TTFT's band plus the decode's (e2e - ttft) at TPOT's, so that a short output's
 * e2e band is never narrower than its TTFT's; with no decode step (one output token) TTFT's band.
 * Absent where the e2e band is. */
struct llmroof_band catalog_e2e_band(const struct llmroof_uncertainty *u, double ttft_s, double e2e_s, bool no_decode);

/* Reads a whole file (regular files only, at most max_bytes). Caller frees *out. */
int catalog_read_file(const char *path, size_t max_bytes, char **out, size_t *out_len,
                      struct llmroof_err *err);

#endif
