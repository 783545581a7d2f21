/* memory.h - weights, KV cache, capacity and max batch per GPU.
 * Formulas: docs/model.md section "Memory". Pure. */
#ifndef LLMROOF_MEMORY_H
#define LLMROOF_MEMORY_H

#include <stdbool.h>

#include "data/catalog.h"
#include "model/ops.h"

struct llmroof_mem_opts {
    double mem_util;            /* fraction of device memory the engine may use, (0,1] */
    bool util_of_free;          /* mem_util is instead the KV cache's share of what weights, workspace
                                   and reserve leave (TensorRT-LLM, LMDeploy: engine kv_of_free_memory) */
    double reserve_bytes;       /* runtime, CUDA graphs, NCCL buffers per GPU, bytes */
    bool workspace_set;         /* workspace_bytes given; else derived */
    double workspace_bytes;     /* activation workspace per GPU, bytes */
    double max_batched_tokens;  /* tokens of the largest forward (derives the workspace) */
    double max_seqs;            /* sequences of the largest forward (logits workspace) */
    long block_size;            /* paged-KV block in tokens; <= 1 means unpaged */
    double drafter_bytes;       /* a speculative drafter's weights per GPU beside the target's (a draft
                                   model's, or an EAGLE/MTP head's layer), bytes; 0: none */
    double drafter_kv_bytes;    /* K/V the drafter caches per token per GPU beside the target's, bytes */
    double spec_states;         /* draft positions a sequence's verification may roll back to under
                                   speculative decoding (serve/sim.h sim_spec_state_copies: k, a tree's
                                   tokens - 1), 0 without: a recurrent state each beside its own
                                   (memory_spec_states) */
    bool spec_state_per_token;  /* and one more, a state for every verified token (engine
                                   spec_state_per_token: SGLang) */
    bool kv_copy;               /* the engine copies its contiguous KV tensor every step (engine kv_copy):
                                   old and new live together, so the pool holds half the tokens */
    bool util_static;           /* mem_util covers weights and the KV pool only (SGLang's
                                   mem_fraction_static, engine mem_static): capacity = visible x
                                   mem_util - weights - drafter; the workspace, CUDA graphs and the
                                   runtime live in the rest, so neither is subtracted */
    const struct llmroof_engine *util_engine; /* non-NULL: the fraction is this engine's default for
                                   the GPU and layout (catalog_engine_mem_util), not mem_util */
    bool speculative;           /* a speculative method runs (util_engine's spec reserve) */
};
/* mem_util 0.90, reserve 1 GiB, derived workspace from 2048 tokens and 256 sequences
 * (vLLM's defaults), no paging. */
struct llmroof_mem_opts memory_default_opts(void);

/* LLMROOF_FIT_BATCH is never set by memory_eval: memory_fit_batch sets it for callers that ask
 * about a batch (estimate, memory -b, sweep), so that "fits" always means the request fits. */
enum llmroof_fit { LLMROOF_FITS, LLMROOF_FIT_WEIGHTS, LLMROOF_FIT_CONTEXT, LLMROOF_FIT_BATCH };

struct llmroof_memory {
    double gpu_memory_bytes;          /* device memory */
    double visible_bytes;             /* what the runtime reports of it (catalog memory_visible_bytes) */
    double mem_util;                  /* the fraction taken: mem_opts', or util_engine's for this layout */
    double usable_bytes;              /* visible * mem_util, as vLLM and SGLang take it (util_of_free: visible) */
    bool util_of_free;                /* mem_util is the KV cache's share of the free memory (TensorRT-LLM,
                                         LMDeploy: mem_opts util_of_free), not of the visible memory */
    double weights_bytes_per_gpu;     /* this rank's weight shard */
    double drafter_bytes_per_gpu;     /* a speculative drafter's weights beside it (mem_opts) */
    double weights_bytes_total;       /* all ranks' weights (replicas counted) */
    double workspace_bytes_per_gpu;   /* activation workspace */
    double reserve_bytes_per_gpu;     /* runtime reserve */
    double free_bytes_per_gpu;        /* usable - weights - workspace - reserve (may be < 0) */
    double kv_capacity_bytes_per_gpu; /* the KV pool of a GPU of kv_stage: max(usable - that stage's
                                         weights - workspace - reserve - drafter, 0), halved where
                                         kv_copy (= max(free, 0) where kv_stage is the fullest) */
    int kv_stage;                     /* the pipeline stage whose pool holds the fewest tokens of every
                                         layer, which sets every stage's count (0 without PP) */
    double kv_stage_weights_bytes_per_gpu; /* its weights on one GPU (= weights_bytes_per_gpu but
                                         where another stage holds more weights) */
    double kv_stage_bytes_per_token_per_gpu; /* its K/V per token on one GPU, as kv_bytes_per_token_per_gpu
                                         (the fullest stage's) counts it; capacity = pool / this */
    bool kv_copy;                     /* the pool is half of what is free: the engine copies its
                                         contiguous K/V every step (mem_opts kv_copy, TGI 0.8) */
    double kv_bytes_per_token;        /* whole model: 2*layers*kv_heads*head_dim*kv_bytes */
    double kv_bytes_per_token_per_gpu;/* this rank's share (replicated heads counted) */
    double kv_capacity_tokens;        /* whole tokens the instance holds (whole blocks when paged): one
                                         replica's times attn_dp, the one rule memory, simulate and plan use;
                                         under PP the tightest stage's (kv_stage) */
    double state_tokens_per_seq;      /* recurrent layers: the K/V tokens' worth of the pool a sequence's
                                         state takes (state_bytes_per_seq_per_gpu over the stage's K/V per
                                         token, rounded up); kv_capacity_tokens counts the pool with no
                                         state held, so a sequence of L tokens takes L + this. 0 = none */
    double kv_capacity_tokens_replica;/* whole tokens one attention replica holds (= the above without
                                         --dp-attention); a sequence lives in one replica, so it must fit here */
    long context_len;                 /* tokens per sequence asked about */
    double tokens_per_seq;            /* context rounded up to whole blocks */
    double max_batch;                 /* sequences of context_len that fit at once */
    enum llmroof_fit fit;             /* LLMROOF_FITS or why not */
    bool fits;                        /* fit == LLMROOF_FITS */
    int min_tp_fit;                   /* smallest TP (1..64, dividing heads) whose weights fit; 0 = none */
    int gpus;                         /* GPUs of the instance (tp, or ep, times pp) */
    int attn_dp;                      /* attention replicas per stage (--dp-attention), each its own sequences */
    double kv_bytes_per_seq_per_gpu;  /* one sequence of context_len on the fullest GPU (windows applied) */
    double state_bytes_per_seq;       /* recurrent (linear/SSM) layers' state of one sequence, whole model, at the state dtype (ops_state_elem_bytes: the window at its own where the engine holds it apart) */
    double state_bytes_per_seq_per_gpu; /* the same on the fullest GPU (TP splits heads, PP layers); 0 = none */
    double state_copies;              /* states a sequence holds beside its own under speculative decoding
                                         (memory_spec_states of mem_opts spec_states), 0 without */
};

/* The recurrent states a sequence of a hybrid model holds beside its own under speculative decoding
 * whose verification may roll back to `draft_positions` positions (k for a chain, a tree's tokens -
 * 1; 0 without): one each (vLLM's MambaSpec, num_speculative_blocks = num_speculative_tokens), or
 * with `per_token` one for every token of the verification pass, one more (SGLang: its MambaPool
 * holds speculative_num_draft_tokens intermediate states a running request, conv windows included,
 * and model_runner_kv_cache_mixin.py handle_max_mamba_cache takes mamba_cache_per_req x
 * max_running_requests x speculative_num_draft_tokens out of the KV pool's memory). */
double memory_spec_states(double draft_positions, bool per_token);

/* One data-parallel attention rank's share of an instance's token budget or sequence limit split
 * over `ranks`: floor(limit / ranks), at least 1 (SGLang's server_args.py under
 * enable_dp_attention: chunked_prefill_size //= dp_size, max_running_requests // dp_size), the limit
 * itself for ranks <= 1. The one rule for a split limit: the workspace each GPU sizes here, the
 * simulator's per-rank scheduling (sim_rank_share), plan's instance limits. An engine whose ranks
 * each state their own (dp_rank_scheduler: vLLM V1) is passed ranks x its limit, which divides
 * exactly. */
double memory_rank_share(double limit, int ranks);

/* Whether the stage that sets a layout's KV blocks (kv_stage) holds other weights or other K/V per
 * token than the fullest GPU's figures say (under PP, where they come from different stages):
 * then its own figures are what its capacity divides. */
static inline bool memory_kv_stage_differs(const struct llmroof_memory *mem)
{
    return mem->kv_stage_weights_bytes_per_gpu != mem->weights_bytes_per_gpu ||
           mem->kv_stage_bytes_per_token_per_gpu != mem->kv_bytes_per_token_per_gpu;
}

/* Weight bytes on one rank of `sh`. */
/* Tokens' worth of K/V a sequence of `context` tokens holds on the GPU of the fullest pipeline
 * stage, in units of one token held by every layer there: `context` without windows; with them
 * global layers hold it all, local ones their window (Gemma-3-27B at 8,192 tokens, one stage:
 * 2,180.1). The ratio `memory` divides its capacity by, so `simulate` counts a sequence alike. */
double memory_kv_tokens_held(const struct llmroof_model *m, const struct llmroof_shard *sh, double context);

/* memory_kv_tokens_held with each pipeline stage's layer counts taken once (the simulator asks it
 * for every running sequence of every iteration): the same arithmetic, so the same bits. Up to
 * MEMORY_HELD_MAX distinct stages (ones with equal counts are one); prepare returns -1 beyond. */
#define MEMORY_HELD_MAX 8
struct memory_held {
    int n;                                          /* distinct stages */
    double g[MEMORY_HELD_MAX], l[MEMORY_HELD_MAX];  /* their global and local attention layers */
    double per_layer, window, one;                  /* a layer's bytes a token; the window (0 none); one token's held bytes */
};
int memory_held_prepare(const struct llmroof_model *m, const struct llmroof_shard *sh, struct memory_held *h);
double memory_held_tokens(const struct memory_held *h, double context);
double memory_weights_per_gpu(const struct llmroof_model *m, const struct llmroof_shard *sh, double w_bytes);

/* Weight bytes on the fullest GPU of a layout (largest pipeline stage, with the embedding or
 * the LM head), routed experts at ops_expert_bytes(m, dt). */
double memory_weights_layout(const struct llmroof_model *m, const struct llmroof_shard *sh,
                             const struct llmroof_dtypes *dt);

/* Each pipeline stage's share of the work of a pass, share[0..pp): its share of the weights a
 * pass reads on one of its GPUs (a decode step streams them; a prompt's FLOPs are 2 a weight a
 * token). The first stage's embedding, looked up a row a token, is not work; the last stage's LM
 * head is with `head` (a decode step reads it whole), not without (a prompt runs it on its last
 * token alone). Layers whose widths differ (NAS, hybrids) or a large head make the stages uneven where
 * their layer counts are not (Nemotron-Ultra-253B at PP 4: the last 40 layers hold 39% of the
 * weights). The attention's context terms are taken to split the same way. */
void memory_stage_shares(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                         bool head, double *share);

/* memory_eval for a whole layout (TP x PP x EP, data-parallel attention): per-GPU figures
 * are those of the fullest GPU; max_batch counts the instance's sequences (all replicas). */
int memory_eval_layout(const struct llmroof_model *m, const struct llmroof_gpu *g, const struct llmroof_layout *lay,
                       const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                       struct llmroof_memory *out, struct llmroof_err *err);
/* Narrows a memory_eval result to a request of `batch` sequences of its context: when the
 * weights and one sequence fit but `batch` exceeds max_batch, fit becomes LLMROOF_FIT_BATCH
 * and fits false. Estimate, memory and sweep share it, so they agree on "fits". */
static inline void memory_fit_batch(struct llmroof_memory *mem, long batch)
{
    if (mem->fit == LLMROOF_FITS && (double)batch > mem->max_batch) {
        mem->fit = LLMROOF_FIT_BATCH;
        mem->fits = false;
    }
}

/* A speculative head's memory beside its target on one rank of `sh`: an EAGLE head (eagle) what its
 * draft step reads, one decoder layer (the target's mean layer's attention and MLP shares, split by
 * TP; not the target's embedding and LM head, which it reads from the target) and its fusing
 * projection whole on every rank (ops_eagle_fc_bytes: 2h x h, EAGLE-3's 3h x h; replicated in vLLM
 * and SGLang), an MTP module (medusa_heads 0, !eagle) the target's weights over its layers, each
 * as a decoder layer of its own one attention layer's K/V per token; Medusa's heads (medusa_heads
 * > 0) what their draft step reads, ops_medusa_bytes (each its own vocabulary projection: far more
 * than a layer where the vocabulary is large), and no cache; an EAGLE-3 head (eagle3_vocab > 0) its
 * further q/k/v inputs and own LM head more (ops_eagle3_extra_bytes). An EAGLE head (eagle) of a mixture-of-experts
 * target holds a dense MLP of its own (ops_eagle_mlp_bytes) in place of the mean layer's share of
 * the experts. An EAGLE-family head and Medusa's heads hold their weights at their own 16 bits
 * (ops_head_dtypes, on ops_head_model: not the target's fp8 or fp4 checkpoint), an MTP module at
 * the target's dtypes. serve/sim.c and estimate --spec take the drafter so (mem_opts drafter_bytes,
 * drafter_kv_bytes). */
void memory_head_drafter(const struct llmroof_model *m, const struct llmroof_shard *sh, const struct llmroof_dtypes *dt,
                         const struct llmroof_memory *target, int medusa_heads, long eagle3_vocab, bool eagle,
                         double *bytes_per_gpu, double *kv_bytes_per_token_per_gpu);
/* The same for an EAGLE-family head with its own layer shape (own non-NULL with heads > 0, from
 * --spec-draft-config; otherwise exactly memory_head_drafter): the mean layer's attention weights
 * replaced by the head's q/k/v/o and norms (ops_head_attn), its MLP by the config's width where
 * ops_head_shape_own gives one, the EAGLE-3 terms at its q/k/v width, and the K/V per token its
 * own layer's, 2 x KV heads on the rank x head_dim at the cache's dtype. */
void memory_head_drafter_own(const struct llmroof_model *m, const struct llmroof_shard *sh,
                             const struct llmroof_dtypes *dt, const struct llmroof_memory *target, int medusa_heads,
                             long eagle3_vocab, bool eagle, const struct llmroof_draft_head *own,
                             double *bytes_per_gpu, double *kv_bytes_per_token_per_gpu);

/* The drafter's memory beside its target, as estimate --spec, simulate and plan all take it out of an
 * instance's KV pool on every GPU (mem_opts drafter_bytes, drafter_kv_bytes): a draft model's own
 * weights and K/V per token at the target's TP and dtypes (memory_eval at the target's
 * context_len), an EAGLE head's or MTP module's layer and its one attention layer's K/V per token,
 * Medusa's heads their blocks and vocabulary projections and no cache (memory_head_drafter_own,
 * on s's shard sh). An instance that only prefills (a disaggregated prefill pool: prefill_only)
 * holds the drafters that read the prompt, a draft model and an EAGLE or MTP head (SGLang's
 * prefill server runs the draft worker and sends its KV with the target's, disaggregation/prefill.py
 * PrefillBootstrapQueue; vLLM's NixlConnector hands over the draft layers' KV group, so both sides
 * load the same speculative config), but no Medusa heads (they read no prompt and cache nothing):
 * 0 and 0 for those. `o` sizes a draft model's workspace, as the target's. Returns 0, or the error
 * of a draft model that memory_eval refuses or of a head of its own shape (--spec-draft-config)
 * whose heads sh's TP does not divide (ops_head_attn). */
struct llmroof_setup;
struct llmroof_spec_decode;
int memory_drafter(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct llmroof_memory *target,
                   const struct llmroof_mem_opts *o, const struct llmroof_spec_decode *spec, bool prefill_only,
                   double *bytes_per_gpu, double *kv_bytes_per_token_per_gpu, struct llmroof_err *err);

int memory_eval(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                const struct llmroof_dtypes *dt, long context_len, const struct llmroof_mem_opts *o,
                struct llmroof_memory *out, struct llmroof_err *err);

#endif
