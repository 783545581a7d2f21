/* launch.c - see serve/launch.h. Flag names, checked against each engine's own argument
 * definitions (docs/planning.md cites them):
 *   vLLM 0.10 (vllm/engine/arg_utils.py; docs.vllm.ai "Engine Arguments" and "Expert Parallel
 *     Deployment"): --tensor-parallel-size, --pipeline-parallel-size, --data-parallel-size,
 *     --enable-expert-parallel (EP size = TP x DP, not a flag of its own), --max-num-seqs,
 *     --max-num-batched-tokens, --kv-cache-dtype {auto,fp8,...}, --quantization fp8,
 *     --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}',
 *     --mamba-cache-dtype {auto,float32,float16} (CacheConfig.mamba_cache_dtype, vllm/config/cache.py:
 *     the conv and SSM state of Mamba / gated-DeltaNet layers; auto = the model's dtype).
 *   SGLang 0.5 (python/sglang/srt/server_args.py; docs.sglang.io "Server Arguments"):
 *     --model-path, --tp (GPUs of the instance), --dp with --enable-dp-attention, --ep-size,
 *     --pp-size, --max-running-requests, --chunked-prefill-size, --kv-cache-dtype fp8_e4m3,
 *     --quantization fp8, --mamba-ssm-dtype {float32,bfloat16} (the SSM state of Mamba / gated-DeltaNet
 *     layers; default float32, or the model config's mamba_ssm_dtype), --disaggregation-mode prefill|decode,
 *     --disaggregation-transfer-backend mooncake; an instance over several nodes: --nnodes,
 *     --node-rank, --dist-init-addr. vLLM runs one over several nodes on a Ray cluster
 *     (docs.vllm.ai "Parallelism and Scaling", multi-node).
 *   Expert parallelism as llmroof costs it, an all-to-all through DeepEP (normal kernels for
 *     prefill steps, low-latency ones for decode: docs/model.md section 10): SGLang's
 *     --moe-a2a-backend deepep (its default, none, reduces with all-reduce or all-gather: docs.sglang.io
 *     "Expert Parallelism"; --deepep-mode auto picks the kernels per step, as costed), vLLM's
 *     --all2all-backend deepep_high_throughput | deepep_low_latency (default allgather_reducescatter:
 *     docs.vllm.ai "Expert Parallel Deployment", v0.11+), one backend for every step of an instance,
 *     used only with data-parallel ranks (FusedMoEParallelConfig.use_all2all_kernels: dp_size > 1).
 *   A checkpoint stored in fp8 (DeepSeek-V3/R1's block fp8) takes no quantization flag: SGLang's
 *     DeepSeek guide says not to pass --quantization fp8 for it, and both engines read its
 *     quantization_config.
 *   TensorRT-LLM trtllm-serve (tensorrt_llm/commands/serve.py, 1.x): --tp_size, --pp_size,
 *     --ep_size, --max_batch_size, --max_num_tokens, --backend {pytorch (default), tensorrt} (0.x:
 *     TensorRT engines, no tensorrt choice); attention DP, chunked prefill, the KV-cache dtype and
 *     the disaggregated KV transfer are keys of the --extra_llm_api_options YAML file (--config
 *     is a later alias), not flags.
 * Speculative decoding (--spec), on every role (a disaggregated prefill instance runs the drafter
 * over the prompts and sends its cache: both sides must load the same speculative config,
 * vllm-project/vllm#49230; SGLang's prefill and decode servers both take --speculative-*,
 * sgl-project/sglang#6684):
 *   vLLM: --speculative-config '{"method":M,"model":DRAFT,"num_speculative_tokens":K}', M one of
 *     eagle, eagle3, mtp, medusa, draft_model (vllm/config/speculative.py SpeculativeMethod;
 *     docs.vllm.ai v0.12.0 "vllm.config.speculative"; "MTP": {"method":"mtp",...} without a model);
 *     a draft tree is its speculative_token_tree, a list of nodes: not written (a note).
 *   SGLang: --speculative-algorithm EAGLE|EAGLE3|NEXTN|STANDALONE (server_args.py choices;
 *     NEXTN, the model's own MTP layers, needs no draft path), --speculative-draft-model-path,
 *     --speculative-num-steps, --speculative-eagle-topk, --speculative-num-draft-tokens
 *     (docs.sglang.io "Speculative Decoding"); no Medusa (a note).
 *   TensorRT-LLM: 'speculative_config' in the --extra_llm_api_options YAML file, decoding_type Eagle, Eagle3, MTP,
 *     DraftTarget or Medusa with max_draft_len (tensorrt_llm/llmapi/llm_args.py); no flag (a note). */
#include "serve/launch.h"
#include "model/ckpt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dtype.h"
#include "model/layers.h"

/* One instance's layout as the engines count it. */
struct shape {
    int tp;      /* tensor-parallel ranks of attention per replica */
    int pp;      /* pipeline stages */
    int ep;      /* expert-parallel ranks; 1 = none */
    int dp;      /* attention data-parallel replicas; 1 = none */
    int gpus;    /* GPUs of one instance */
    const struct llmroof_gpu *gpu; /* the row's GPU (NULL: none known) */
};

/* DeepEP runs on NVIDIA Hopper and Blackwell joined by NVLink (its README: SM90; NVSHMEM and the
 * NVLink intranode kernels; SGLang's DeepEP MoE path needs DeepGEMM, SM90/SM100): elsewhere the
 * engines' default expert path runs and a note says so (a reviewer: DeepEP flags on MI300X,
 * L40S and A100 rows would not start) */
bool launch_deepep_runs(const struct llmroof_gpu *g)
{
    if (!g || strncmp(g->arch, "sm", 2) != 0 || g->link != LLMROOF_LINK_NVLINK)
        return false;
    char *end = NULL;
    const long sm = strtol(g->arch + 2, &end, 10);
    return end != g->arch + 2 && sm >= 90;
}

/* The GPUs of one pipeline stage: the attention ranks (TP x DP) or the expert ranks, whichever
 * is wider; what SGLang's --tp and TensorRT-LLM's --tp_size count. */
static long shape_width(struct shape s)
{
    return s.ep > s.tp * s.dp ? s.ep : (long)s.tp * s.dp;
}

/* plan.h's modes: 0 TP (or the plan's own --pp/--ep/--dp-attention layout), 1 TP + EP over
 * the same ranks, 2 data-parallel attention + EP (n counts the GPUs), 3 TP + PP 2, 4
 * data-parallel attention with the experts split by width over the n GPUs (no EP flag). */
static struct shape shape_of(const struct plan_input *in, int n, int mode)
{
    struct shape s = { n, 1, 1, 1, n, NULL };
    if (mode == 1) {
        s.ep = n;
    } else if (mode == 2) {
        s.tp = 1;
        s.ep = n;
        s.dp = n;
    } else if (mode == 4) {
        s.tp = 1;
        s.dp = n;
    } else if (mode == 3) {
        s.pp = 2;
    } else {
        int pp = in->layout.pp > 1 ? in->layout.pp : 1;
        int ep = in->layout.ep > 1 ? in->layout.ep : 1;
        s.pp = pp;
        s.ep = ep;
        if (in->layout.dp_attn && ep > n && n > 0)
            s.dp = ep / n;
        /* --moe-tp: the replicas alone, experts split by width over all of them (vLLM's DP
         * without --enable-expert-parallel, SGLang's --dp with --enable-dp-attention, no --ep-size) */
        if (in->layout.dp_attn && in->layout.moe_tp > n && n > 0)
            s.dp = in->layout.moe_tp / n;
    }
    s.gpus = (int)shape_width(s) * s.pp;
    return s;
}

/* Appends with snprintf, never past the buffer. */
static void add(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

/* The scheduler limits the plan simulated for this instance (plan_sim_config: the engine
 * profile's for the GPU, or the plan's own): the instance's, and one data-parallel rank's. */
struct limits {
    long seqs, tokens;           /* the whole instance's running sequences and token budget */
    long rank_seqs, rank_tokens; /* one attention data-parallel rank's (= the above without DP) */
    bool chunked;                /* chunked prefill */
};

static struct limits limits_of(const struct plan_input *in, const struct llmroof_gpu *g, struct shape s)
{
    const struct sim_config c = plan_sim_config(in, g);
    struct limits l;
    plan_instance_limits(in, g, s.dp, &l.seqs, &l.tokens);
    l.rank_seqs = (l.seqs + s.dp - 1) / s.dp;
    l.rank_tokens = (l.tokens + s.dp - 1) / s.dp;
    l.chunked = c.chunked_prefill;
    return l;
}

/* The drafter's checkpoint as an engine flag takes it: a draft model's HuggingFace repository (its
 * catalog id where it has none), or a placeholder for an EAGLE head or Medusa heads, which the
 * catalog does not name (the note says so: spec_placeholder_note) */
static const char *spec_draft_path(const struct sim_spec *sp)
{
    switch (sp->kind) {
    case SIM_SPEC_DRAFT: return sp->draft->hf_id[0] ? sp->draft->hf_id : sp->draft->id;
    case SIM_SPEC_EAGLE: return "EAGLE_HEAD";
    case SIM_SPEC_EAGLE3: return "EAGLE3_HEAD";
    case SIM_SPEC_MEDUSA: return "MEDUSA_HEADS";
    case SIM_SPEC_MTP:
    case SIM_SPEC_NONE: break;
    }
    return NULL;
}

static void spec_placeholder_note(const struct plan_input *in, struct launch_cmd *c)
{
    const struct sim_spec *sp = &in->sim.spec;
    if (sp->kind == SIM_SPEC_DRAFT && !sp->draft->hf_id[0])
        add(c->note, sizeof c->note, "the catalog names no HuggingFace repository for the draft '%s': replace it; ",
            sp->draft->id);
    else if (sp->kind == SIM_SPEC_EAGLE || sp->kind == SIM_SPEC_EAGLE3 || sp->kind == SIM_SPEC_MEDUSA)
        add(c->note, sizeof c->note, "replace %s with the checkpoint of the %s trained for %s (the catalog names "
                                     "none); ",
            spec_draft_path(sp), sp->kind == SIM_SPEC_MEDUSA ? "Medusa heads" : "draft head", in->model->id);
}

/* vLLM's --speculative-config: a chain of k drafts (a tree's steps, its nodes left to a note) */
static void vllm_spec(const struct plan_input *in, struct launch_cmd *c)
{
    const struct sim_spec *sp = &in->sim.spec;
    if (sp->kind == SIM_SPEC_NONE)
        return;
    static const char *const methods[] = { [SIM_SPEC_EAGLE] = "eagle", [SIM_SPEC_EAGLE3] = "eagle3",
                                           [SIM_SPEC_MTP] = "mtp", [SIM_SPEC_MEDUSA] = "medusa",
                                           [SIM_SPEC_DRAFT] = "draft_model" };
    const char *path = spec_draft_path(sp);
    add(c->cmd, sizeof c->cmd, " --speculative-config '{\"method\":\"%s\"", methods[sp->kind]);
    if (path)
        add(c->cmd, sizeof c->cmd, ",\"model\":\"%s\"", path);
    add(c->cmd, sizeof c->cmd, ",\"num_speculative_tokens\":%d}'", sp->k);
    spec_placeholder_note(in, c);
    if (sp->tokens > 0)
        add(c->note, sizeof c->note, "the draft tree planned (topk %d, %d tokens verified a step) is vLLM's "
                                     "speculative_token_tree, a list of its nodes, not written here: this command "
                                     "drafts a chain of %d; ",
            sp->topk, sp->tokens, sp->k);
}

/* SGLang's --speculative-* flags: steps k, topk 1 and k + 1 draft tokens for a chain, a tree's own */
static void sglang_spec(const struct plan_input *in, struct launch_cmd *c)
{
    const struct sim_spec *sp = &in->sim.spec;
    if (sp->kind == SIM_SPEC_NONE)
        return;
    if (sp->kind == SIM_SPEC_MEDUSA) {
        add(c->note, sizeof c->note, "SGLang has no Medusa decoding (--speculative-algorithm takes EAGLE, EAGLE3, "
                                     "NEXTN, STANDALONE): this command runs without speculation, which the plan did "
                                     "not simulate; ");
        return;
    }
    static const char *const algos[] = { [SIM_SPEC_EAGLE] = "EAGLE", [SIM_SPEC_EAGLE3] = "EAGLE3",
                                         [SIM_SPEC_MTP] = "NEXTN", [SIM_SPEC_DRAFT] = "STANDALONE" };
    add(c->cmd, sizeof c->cmd, " --speculative-algorithm %s", algos[sp->kind]);
    const char *path = spec_draft_path(sp);
    if (path)
        add(c->cmd, sizeof c->cmd, " --speculative-draft-model-path %s", path);
    const bool tree = sp->tokens > 0;
    add(c->cmd, sizeof c->cmd, " --speculative-num-steps %d --speculative-eagle-topk %d --speculative-num-draft-tokens %ld",
        sp->k, tree ? sp->topk : 1, sim_spec_verify_tokens(sp));
    /* SGLang quantizes a draft with the target's --quantization unless told otherwise
     * (server_args.py: speculative_draft_model_quantization defaults to it); the drafter costed
     * here runs at its own 16 bits (sim_spec_drafter_dtypes), so say so on the line (a reviewer:
     * the launched server was not the one costed) */
    const struct llmroof_dtypes ddt = sim_spec_drafter_dtypes(sp, &in->sim.spec_head, &in->dt);
    if (path && strstr(c->cmd, " --quantization ") && (ddt.weight == LLMROOF_FP16 || ddt.weight == LLMROOF_BF16))
        add(c->cmd, sizeof c->cmd, " --speculative-draft-model-quantization unquant");
    spec_placeholder_note(in, c);
}

/* fp8 weights that are the checkpoint's own (DeepSeek's block fp8): the engines read its
 * quantization_config, and a quantization flag would re-quantize it (SGLang's DeepSeek guide) */
static bool fp8_checkpoint(const struct plan_input *in)
{
    enum llmroof_dtype own;
    return in->model && in->dt.weight == LLMROOF_FP8 && ckpt_weight_dtype(in->model, &own) && own == LLMROOF_FP8;
}

static void vllm(const struct plan_input *in, const struct limits *lim, const char *model, struct shape s,
                 const char *role, struct launch_cmd *c)
{
    char *b = c->cmd, *nt = c->note;
    size_t bn = sizeof c->cmd, nn = sizeof c->note;
    add(b, bn, "vllm serve %s", model);
    add(b, bn, " --tensor-parallel-size %ld", (long)s.tp);
    if (s.pp > 1)
        add(b, bn, " --pipeline-parallel-size %ld", (long)s.pp);
    if (s.dp > 1)
        add(b, bn, " --data-parallel-size %ld", (long)s.dp);
    if (s.ep > 1) {
        add(b, bn, " --enable-expert-parallel");
        if (s.ep != s.tp * s.dp)
            add(nt, nn, "vLLM sets the EP size to TP x DP = %ld (no flag for EP %ld); ", (long)s.tp * s.dp, (long)s.ep);
        /* the DeepEP all-to-all llmroof costs (its default backend all-gathers and reduce-scatters):
         * the prefill pool's normal kernels, the decode pool's low-latency ones; an aggregated
         * instance runs one backend for every step */
        const bool pre = strcmp(role, "prefill") == 0;
        const char *backend = pre ? "deepep_high_throughput" : "deepep_low_latency";
        if (s.dp <= 1) /* vLLM's all-to-all kernels serve data-parallel ranks (FusedMoEParallelConfig
                          use_all2all_kernels: dp_size > 1): TP + EP reduces over the TP group, as
                          llmroof costs EP equal to TP (ops.h struct llmroof_layout); the note had
                          said the opposite (a reviewer's) */
            add(nt, nn, "without data parallelism vLLM's experts reduce over the TP group: an all-reduce, as costed "
                        "here, not DeepEP's all-to-all; ");
        else if (!launch_deepep_runs(s.gpu))
            add(nt, nn, "DeepEP, whose all-to-all is costed here, runs on NVLink-joined Hopper and Blackwell GPUs only: "
                        "vLLM's default all-gather / reduce-scatter backend runs on %s; ", s.gpu ? s.gpu->id : "this GPU");
        else if (strcmp(in->eff.engine ? in->eff.engine->id : "", "vllm-0.8") == 0)
            /* vLLM before 0.11 has no --all2all-backend flag, only the environment variable */
            add(nt, nn, "set VLLM_ALL2ALL_BACKEND=%s in its environment (vLLM before 0.11 has no --all2all-backend); ",
                backend);
        else
            add(b, bn, " --all2all-backend %s", backend);
        if (s.dp > 1 && launch_deepep_runs(s.gpu) && strcmp(role, "serve") == 0)
            add(nt, nn, "the all-to-all is costed with DeepEP's normal kernels for prefill steps and its low-latency "
                        "ones for decode steps; vLLM runs one --all2all-backend for every step (SGLang's "
                        "--deepep-mode auto switches); ");
    }
    /* each data-parallel rank of vLLM is an engine with its own scheduler: its flags are per
     * rank, the instance's limits split over the ranks (an engine profile that schedules per
     * rank, dp_rank_scheduler, already holds them per rank: lim->rank_*) */
    add(b, bn, " --max-num-seqs %ld", lim->rank_seqs);
    add(b, bn, " --max-num-batched-tokens %ld", lim->rank_tokens);
    /* vLLM's SchedulerConfig refuses a token budget below the sequence limit (max_num_batched_tokens
     * must be >= max_num_seqs, _verify_args): the plan simulated the limits as given, which vLLM
     * would not start with (a review: --max-batched-tokens 64 beside 256 sequences) */
    if (lim->rank_tokens < lim->rank_seqs)
        add(nt, nn, "vLLM refuses this: --max-num-batched-tokens %ld is below --max-num-seqs %ld (it requires at least "
                    "as many tokens as sequences); ", lim->rank_tokens, lim->rank_seqs);
    if (s.dp > 1)
        add(nt, nn, "--max-num-seqs and --max-num-batched-tokens are per data-parallel rank (the instance's %ld "
                    "sequences and %ld tokens over %ld ranks); ", lim->seqs, lim->tokens, (long)s.dp);
    if (!lim->chunked)
        add(b, bn, " --no-enable-chunked-prefill");
    if (in->dt.kv == LLMROOF_FP8)
        add(b, bn, " --kv-cache-dtype fp8");
    else if (in->dt.kv != LLMROOF_FP16 && in->dt.kv != LLMROOF_BF16)
        add(nt, nn, "vLLM has no %s KV cache (fp8 at most): left at auto; ", dtype_name(in->dt.kv));
    /* a recurrent state held wider than the model's dtype (--state-dtype fp32, or the model's
     * config stating it): vLLM's cache of those layers in float32 */
    if (in->dt.state_set && in->dt.state == LLMROOF_FP32 && in->model && layers_state_elems(in->model) > 0)
        add(b, bn, " --mamba-cache-dtype float32");
    else if (in->dt.state_set && in->dt.state == LLMROOF_FP8 && in->model && layers_state_elems(in->model) > 0)
        add(nt, nn, "vLLM has no %s recurrent state (float32 or float16): left at auto; ", dtype_name(in->dt.state));
    if (in->dt.weight == LLMROOF_FP8 && !fp8_checkpoint(in))
        add(b, bn, " --quantization fp8");
    else if (in->dt.weight != LLMROOF_FP16 && in->dt.weight != LLMROOF_BF16 && !fp8_checkpoint(in))
        add(nt, nn, "%s weights: serve a checkpoint quantized to it (AWQ, GPTQ, NVFP4...), whose config vLLM reads; ",
            dtype_name(in->dt.weight));
    vllm_spec(in, c);
    if (strcmp(role, "serve") != 0) {
        add(b, bn, " --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'");
        add(nt, nn, "a proxy in front sends each request to a prefill instance, then to a decode instance (vLLM's "
                    "disaggregated-serving proxy example); ");
    }
}

static void sglang(const struct plan_input *in, const struct limits *lim, const char *model, struct shape s,
                   const char *role, struct launch_cmd *c)
{
    char *b = c->cmd, *nt = c->note;
    size_t bn = sizeof c->cmd, nn = sizeof c->note;
    add(b, bn, "python -m sglang.launch_server --model-path %s", model);
    /* SGLang's --tp counts the instance's GPUs per stage; --dp splits them into attention
     * replicas when --enable-dp-attention is on */
    long width = shape_width(s);
    add(b, bn, " --tp %ld", width);
    if (s.dp > 1)
        add(b, bn, " --dp %ld --enable-dp-attention", (long)s.dp);
    if (s.ep > 1 && s.dp <= 1) {
        /* TP n + EP n: llmroof costs the experts' reduction as an all-reduce over the TP group
         * (ops.h struct llmroof_layout), which SGLang's default backend (none) runs; the DeepEP
         * flag had been printed for this layout too, a launch that is not the one costed (a
         * review: DeepSeek-V3 TP-8+EP-8 at batch 64, 1024 tokens, TTFT 1250 ms as costed, 1097
         * as DPA-8+EP-8 with DeepEP) */
        add(b, bn, " --ep-size %ld", (long)s.ep);
        add(nt, nn, "without data-parallel attention the experts reduce over the TP group: an all-reduce, as costed "
                    "here (SGLang's default --moe-a2a-backend none), not DeepEP's all-to-all; ");
    } else if (s.ep > 1 && launch_deepep_runs(s.gpu)) { /* the DeepEP all-to-all llmroof costs; the default backend all-reduces */
        add(b, bn, " --ep-size %ld --moe-a2a-backend deepep", (long)s.ep);
        /* its low-latency dispatch holds SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK tokens a rank,
         * 128 by default (DeepEP's deep_ep.cpp asserts it): a rank's decode batch times its verified
         * positions must fit */
        /* each rank dispatches its share of the decode batch: its replica's, or under TP the
         * tokens SGLang scatters over the attention TP group; a prefill pool runs the normal
         * kernels (--deepep-mode auto), which have no such cap */
        const long w = shape_width(s);
        const long per_rank = (lim->seqs + w - 1) / w *
                              (in->sim.spec.kind != SIM_SPEC_NONE ? (long)sim_spec_verify_tokens(&in->sim.spec) : 1L);
        if (per_rank > 128 && strcmp(role, "prefill") != 0)
            add(nt, nn, "set SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=%ld in its environment: DeepEP's "
                        "low-latency dispatch holds 128 tokens a rank by default; ", per_rank);
    } else if (s.ep > 1) {
        add(b, bn, " --ep-size %ld", (long)s.ep);
        add(nt, nn, "DeepEP, whose all-to-all is costed here, runs on NVLink-joined Hopper and Blackwell GPUs only: "
                    "SGLang's default expert path (all-reduce or all-gather) runs on %s; ", s.gpu ? s.gpu->id : "this GPU");
    }
    if (s.pp > 1)
        add(b, bn, " --pp-size %ld", (long)s.pp);
    add(b, bn, " --max-running-requests %ld", lim->seqs);
    if (lim->chunked)
        add(b, bn, " --chunked-prefill-size %ld", lim->tokens);
    else
        add(b, bn, " --chunked-prefill-size -1");
    if (in->dt.kv == LLMROOF_FP8)
        add(b, bn, " --kv-cache-dtype fp8_e4m3");
    else if (in->dt.kv != LLMROOF_FP16 && in->dt.kv != LLMROOF_BF16)
        add(nt, nn, "SGLang has no %s KV cache (fp8 at most): left at auto; ", dtype_name(in->dt.kv));
    /* SGLang's SSM state: float32 unless the model's config or --mamba-ssm-dtype says otherwise
     * (configs/mamba_utils.py mamba2_state_dtype; engine ssm_state_fp32): the flag where the state
     * planned differs from what SGLang would take. The flag takes float32 or bfloat16 only
     * (server_args.py MAMBA_SSM_DTYPE_CHOICES; a config's float16 is read, the flag's is refused):
     * an fp16 state is asked as bfloat16, the same two bytes */
    if (in->model && layers_state_elems(in->model) > 0 && in->dt.state_set) {
        const enum llmroof_dtype own = in->model->lin_state_dtype_set ? in->model->lin_state_dtype : LLMROOF_FP32;
        const enum llmroof_dtype st = in->dt.state;
        if (st == LLMROOF_FP32 || st == LLMROOF_BF16) {
            if (st != own)
                add(b, bn, " --mamba-ssm-dtype %s", st == LLMROOF_FP32 ? "float32" : "bfloat16");
        } else if (st == LLMROOF_FP16) {
            if (own != LLMROOF_FP16 && own != LLMROOF_BF16) {
                add(b, bn, " --mamba-ssm-dtype bfloat16");
                add(nt, nn, "SGLang's --mamba-ssm-dtype takes float32 or bfloat16: bfloat16 for the fp16 SSM state "
                            "planned, the same two bytes; ");
            }
        } else
            add(nt, nn, "SGLang has no %s SSM state (float32 or bfloat16): left at its default; ", dtype_name(st));
    }
    if (in->dt.weight == LLMROOF_FP8 && !fp8_checkpoint(in))
        add(b, bn, " --quantization fp8");
    else if (in->dt.weight != LLMROOF_FP16 && in->dt.weight != LLMROOF_BF16 && !fp8_checkpoint(in))
        add(nt, nn, "%s weights: serve a checkpoint quantized to it, whose config SGLang reads; ",
            dtype_name(in->dt.weight));
    sglang_spec(in, c);
    if (strcmp(role, "serve") != 0) {
        add(b, bn, " --disaggregation-mode %s", role);
        add(b, bn, " --disaggregation-transfer-backend mooncake");
        add(nt, nn, "the SGLang router (sglang_router.launch_router --pd-disaggregation) joins the pools; ");
    }
}

static void trtllm(const struct plan_input *in, const struct limits *lim, const char *model, struct shape s,
                   const char *role, struct launch_cmd *c)
{
    char *b = c->cmd, *nt = c->note;
    size_t bn = sizeof c->cmd, nn = sizeof c->note;
    add(b, bn, "trtllm-serve %s", model);
    /* 1.x serves the PyTorch backend unless told otherwise (serve.py --backend, default pytorch),
     * 0.x the TensorRT engines (its --backend took only pytorch): the tensorrt-llm profile (0.7-0.21,
     * TensorRT engines) gets the line 0.x runs and a note for 1.x; tensorrt-llm-pytorch's line is
     * 1.x's default (a review: --backend tensorrt on the line had failed under 0.20) */
    if (in->eff.engine && strcmp(in->eff.engine->id, "tensorrt-llm") == 0)
        add(nt, nn, "the profile is the TensorRT engines: under TensorRT-LLM 1.x, whose default is the PyTorch "
                    "backend, add --backend tensorrt; ");
    long width = shape_width(s);
    add(b, bn, " --tp_size %ld", width);
    if (s.pp > 1)
        add(b, bn, " --pp_size %ld", (long)s.pp);
    if (s.ep > 1)
        add(b, bn, " --ep_size %ld", (long)s.ep);
    /* under attention DP each rank's PyExecutor schedules alone, holding max_batch_size and
     * max_num_tokens itself (_torch/pyexecutor/_util.py, the profile's dp_rank_scheduler): the
     * flags are one rank's, as vLLM's. The instance's sums had been printed: DeepSeek-V3 at
     * DPA-16 under -e tensorrt-llm said --max_batch_size 32768 --max_num_tokens 131072 where the
     * plan had simulated 2,048 and 8,192 a rank. */
    add(b, bn, " --max_batch_size %ld", lim->rank_seqs);
    add(b, bn, " --max_num_tokens %ld", lim->rank_tokens);
    if (s.dp > 1) {
        add(nt, nn, "attention data parallelism is 'enable_attention_dp: true' in the --extra_llm_api_options YAML "
                    "file (no flag); ");
        add(nt, nn, "--max_batch_size and --max_num_tokens are per attention data-parallel rank (the instance's %ld "
                    "sequences and %ld tokens over %ld ranks); ", lim->seqs, lim->tokens, (long)s.dp);
    }
    /* TensorRT-LLM prefills whole prompts by default (enable_chunked_prefill False), refusing one
     * above --max_num_tokens: a plan that chunked them (the generic profile, or a chunking option)
     * says so (a review: a line with --max_num_tokens 2048 for 8,192-token prompts) */
    if (lim->chunked)
        add(nt, nn, "the plan chunks prompts: 'enable_chunked_prefill: true' in the --extra_llm_api_options YAML "
                    "file (no flag); ");
    if (in->dt.kv != LLMROOF_FP16 && in->dt.kv != LLMROOF_BF16)
        add(nt, nn, "the KV-cache dtype (%s) is 'kv_cache_config: {dtype: ...}' in the --extra_llm_api_options YAML "
                    "file (no flag); ",
            dtype_name(in->dt.kv));
    if (in->dt.weight != LLMROOF_FP16 && in->dt.weight != LLMROOF_BF16 && !fp8_checkpoint(in)) /* the model's own: nothing to say */
        add(nt, nn, "%s weights: serve a checkpoint quantized to it (no quantization flag); ", dtype_name(in->dt.weight));
    if (in->sim.spec.kind != SIM_SPEC_NONE) {
        static const char *const types[] = { [SIM_SPEC_EAGLE] = "Eagle", [SIM_SPEC_EAGLE3] = "Eagle3",
                                             [SIM_SPEC_MTP] = "MTP", [SIM_SPEC_MEDUSA] = "Medusa",
                                             [SIM_SPEC_DRAFT] = "DraftTarget" };
        add(nt, nn, "speculative decoding is 'speculative_config: {decoding_type: %s, max_draft_len: %d, ...}' in the "
                    "--extra_llm_api_options YAML file (no flag); ",
            types[in->sim.spec.kind], in->sim.spec.k);
    }
    if (strcmp(role, "serve") != 0)
        add(nt, nn, "disaggregated: the KV transfer is 'cache_transceiver_config' in the --extra_llm_api_options "
                    "YAML file, and 'trtllm-serve disaggregated -c FILE' routes between the pools; ");
}

static void finish_note(char *note)
{
    size_t n = strlen(note);
    if (n >= 2 && note[n - 2] == ';' && note[n - 1] == ' ')
        note[n - 2] = '\0';
}

int launch_engine_family(const struct llmroof_engine *en)
{
    if (!en)
        return LAUNCH_ALL;
    /* the profiles of the releases whose flags the commands use (the versions at the top of this
     * file): vLLM V1 (vllm, vllm-0.8: 0.8 on), SGLang from 0.4 (sglang), TensorRT-LLM's trtllm-serve
     * (tensorrt-llm, whose late releases have it, and tensorrt-llm-pytorch, 1.x's default). An older
     * release's profile (vllm-0.2 to 0.6, sglang-0.3, tensorrt-llm-early, nemo-trtllm) would get
     * flags it never had. */
    if (strcmp(en->id, "vllm") == 0 || strcmp(en->id, "vllm-0.8") == 0)
        return LAUNCH_VLLM;
    if (strcmp(en->id, "sglang") == 0)
        return LAUNCH_SGLANG;
    if (strcmp(en->id, "tensorrt-llm") == 0 || strcmp(en->id, "tensorrt-llm-pytorch") == 0)
        return LAUNCH_TRTLLM;
    return LAUNCH_NONE;
}

void launch_build(const struct plan_input *in, const struct plan_option *o, struct launch_set *out)
{
    memset(out, 0, sizeof *out);
    /* the serving engines batch continuously: their commands would not serve the plan of an
     * engine that batches statically (HF generate()), which has no server of its own here */
    if (!o->feasible || (in->eff.engine && in->eff.engine->static_batching))
        return;
    const char *model = in->model->hf_id[0] ? in->model->hf_id : in->model->id;
    struct kind {
        const char *role; /* "serve", "prefill" or "decode" */
        int n, mode;      /* plan_layout_name's n and mode */
        long instances;   /* copies of it */
    } kinds[2];
    int nk = 0;
    if (o->disagg) {
        kinds[nk++] = (struct kind){ "prefill", o->prefill_tp ? o->prefill_tp : o->tp, o->prefill_mode,
                                          o->prefill_instances };
        kinds[nk++] = (struct kind){ "decode", o->tp, o->mode, o->decode_instances };
    } else {
        long inst = o->instances > 0 ? o->instances : o->nodes * (long)o->instances_per_node;
        kinds[nk++] = (struct kind){ "serve", o->tp, o->mode, inst };
    }
    static const char *const engines[] = { "vllm", "sglang", "trtllm" };
    const int only = launch_engine_family(in->eff.engine);
    if (only == LAUNCH_NONE)
        return;
    /* TensorRT-LLM builds for NVIDIA GPUs alone: no trtllm-serve line for an AMD GPU (arch gfx...) */
    const int ne = o->gpu && catalog_gpu_is_amd(o->gpu) ? 2 : 3;
    for (int e = 0; e < ne; e++)
        for (int k = 0; k < nk && out->n < LAUNCH_MAX && (only == LAUNCH_ALL || only == e); k++) {
            struct launch_cmd *c = &out->c[out->n++];
            struct shape s = shape_of(in, kinds[k].n, kinds[k].mode);
            s.gpu = o->gpu;
            c->engine = engines[e];
            c->role = kinds[k].role;
            c->instances = kinds[k].instances;
            c->gpus_per_instance = s.gpus;
            const int gpn = plan_node_gpus(in, o->gpu);
            if (gpn > 0 && s.gpus > gpn) /* the plan gives it whole nodes */
                add(c->note, sizeof c->note, "an instance spans %ld nodes%s: start it with the engine's multi-node "
                    "options (SGLang --nnodes/--node-rank/--dist-init-addr; vLLM on a Ray cluster); ",
                    (long)((s.gpus + gpn - 1) / gpn),
                    o->gpu && o->gpu->domain_gpus > gpn && s.gpus <= o->gpu->domain_gpus &&
                            o->gpu->domain_gpus > o->gpu->gpus_per_node ? " (trays of one NVLink domain)"
                                                                                          : "");
            const struct limits lim = limits_of(in, o->gpu, s);
            if (e == 0)
                vllm(in, &lim, model, s, c->role, c);
            else if (e == 1)
                sglang(in, &lim, model, s, c->role, c);
            else
                trtllm(in, &lim, model, s, c->role, c);
            if (!in->model->hf_id[0])
                add(c->note, sizeof c->note, "the catalog names no HuggingFace repository for '%s': replace MODEL; ",
                    in->model->id);
            finish_note(c->note);
        }
}
