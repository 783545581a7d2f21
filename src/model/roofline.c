/* roofline.c - per-operator time on a GPU (see llmroof/roofline.h). */
#include "model/roofline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/comm.h"
#include "model/kernel.h"

/* gcc: the per-operator loops unrolled, so that each operator's kind tests (attention,
 * collective, FFN, the context mask) fold into constants: 11% fewer instructions an estimate
 * (6,848 -> 6,089 by callgrind). Clang unrolls by its own measure. */
#if defined(__GNUC__) && !defined(__clang__)
#define RL_UNROLL_OPS _Pragma("GCC unroll 18")
#else
#define RL_UNROLL_OPS
#endif

const char *bound_name(enum llmroof_bound b)
{
    switch (b) {
    case LLMROOF_BOUND_COMPUTE: return "compute";
    case LLMROOF_BOUND_MEMORY: return "memory";
    case LLMROOF_BOUND_COMM: return "comm";
    }
    return "?";
}

const char *roofline_phase_bound_name(const struct llmroof_phase *p)
{
    /* the launches outlast the step's GPU work (cpu_wait_s > 0: the step takes their time, as
     * estimate's "the prefill is CPU-bound" note says), not only the part of it they exceed it by:
     * a 128-token prompt under an eager engine launched for 8.1 ms against 6.7 ms of GPU work and
     * had read "memory", the 1.4 ms wait being below the 5.7 ms of memory time (a review) */
    if (p->cpu_wait_s > 0 && p->launch_s > p->compute_s && p->launch_s > p->memory_s && p->launch_s > p->comm_s)
        return "cpu";
    return bound_name(p->bound);
}

struct llmroof_effs roofline_default_effs(const struct llmroof_gpu *g)
{
    struct llmroof_effs e = { .compute = g->compute_eff, .memory = g->memory_eff, .comm = g->comm_eff,
                              .overhead_s = g->step_overhead_s };
    e.kernel_s = kernel_fixed_s(g);
    e.overlap = g->overlap;
    e.cpu_scale = g->host_cpu_speed > 0 ? 1.0 / g->host_cpu_speed : 1.0; /* docs/model.md "Host CPU" */
    e.launch_s = KERNEL_LAUNCH_S_DEFAULT * e.cpu_scale;
    e.kernel_factor = 1.0;
    /* no engine named: the best attention kernel the GPU has figures for (FA3-class on Hopper) */
    e.attn_eff = g->attn_fa3_eff > 0 ? g->attn_fa3_eff : g->attn_eff;
    e.attn_ramp_tokens = KERNEL_ATTN_RAMP_TOKENS;
    e.gemm_ramp_rows = g->gemm_ramp_rows;
    e.attn_mem_eff = g->attn_mem_eff;
    /* and the fastest all-reduce it has: the one-shot/two-shot kernels over NVLink/xGMI peer
     * memory that TensorRT-LLM, vLLM and SGLang run below NCCL's crossover (section 4); an engine
     * profile states its own (custom_allreduce) */
    e.custom_allreduce = true;
    /* and decode steps replayed as CUDA graphs, as every current engine does (vLLM, SGLang,
     * TensorRT-LLM's PyTorch runtime, TGI, LMDeploy), up to vLLM's largest captured batch, 512;
     * prefill and mixed steps launch eagerly from C++. Eager decode had made small MoE models at
     * TP 8 launch-bound and every GPU alike (Qwen3-30B-A3B, batch 1: 3.116 ms on H100, H200 and
     * B200); an engine profile states its own (roofline_effs_engine) */
    e.graphs = true;
    e.graph_max = 512;
    e.graph_decode_new = 1.0;
    return e;
}

double roofline_step_overhead_s(const struct llmroof_effs *e, int tp)
{
    return e->overhead_s + (tp > 1 || e->ray_engine || e->ray_workers ? e->tp_overhead_s : 0.0);
}

/* the draft loop replays as one graph: the engine says so and its graphs cover the batch */
static bool draft_in_graph(const struct llmroof_effs *e, double seqs)
{
    return e->spec_draft_graph && e->graphs && (e->graph_max <= 0 || seqs <= e->graph_max);
}

struct llmroof_effs roofline_draft_effs(const struct llmroof_effs *e, double seqs)
{
    struct llmroof_effs d = *e;
    if (draft_in_graph(e, seqs))
        d.overhead_s = d.tp_overhead_s = 0.0;
    return d;
}

double roofline_draft_graph_s(const struct llmroof_gpu *g, const struct llmroof_effs *e, double seqs)
{
    return draft_in_graph(e, seqs) ? g->step_overhead_s : 0.0;
}

struct llmroof_effs roofline_effs(const struct llmroof_gpu *g, const struct llmroof_eff_override *o)
{
    return roofline_effs_engine(g, o ? o->engine : NULL, o);
}

/* Does an engine's architecture list name `arch` ("" = not stated: never)? */
static bool arch_listed(const char (*archs)[LLMROOF_ARCH_MAX], int n, const char *arch)
{
    /* an NVIDIA family suffix (sm90a, sm100f: the same SM with its arch-specific instructions)
     * runs the engine's kernels for the base target: compare without it */
    size_t len = strlen(arch);
    if (len > 2 && !strncmp(arch, "sm", 2) && (arch[len - 1] == 'a' || arch[len - 1] == 'f'))
        len--;
    for (int a = 0; a < n && len > 0; a++)
        if (strlen(archs[a]) == len && !strncmp(archs[a], arch, len))
            return true;
    return false;
}

struct llmroof_effs roofline_effs_engine(const struct llmroof_gpu *g, const struct llmroof_engine *en,
                                         const struct llmroof_eff_override *o)
{
    struct llmroof_effs e = roofline_default_effs(g);
    if (o && o->host_cpu_speed > 0) { /* the engine's CPU times are stated at the reference host */
        e.cpu_scale = 1.0 / o->host_cpu_speed;
        e.launch_s = KERNEL_LAUNCH_S_DEFAULT * e.cpu_scale;
    }
    if (en) {
        e.engine_id = en->id;
        e.cuda_only = en->cuda_only;
        e.compute *= en->compute_scale;
        e.overhead_s += en->step_overhead_s * e.cpu_scale;
        e.first_token_s = en->first_token_s;
        e.api_first_token_s = en->api_first_token_s;
        e.api_prompt_token_s = en->api_prompt_token_s;
        e.tp_overhead_s = en->tp_step_overhead_s * e.cpu_scale;
        /* vLLM <= 0.4's --engine-use-ray puts the engine in a Ray actor that the API server calls
         * once per step (AsyncLLMEngine: engine.step.remote()), the same remote call a TP > 1
         * driver makes to its workers: the profile's tp_step_overhead_s, then at any TP */
        e.ray_engine = o && o->engine_use_ray;
        e.ray_token_s = e.ray_engine ? en->ray_output_token_s : 0.0;
        e.ray_workers = en->ray_workers;
        e.comm_latency_s = en->collective_latency_s;
        /* launch_s is the eager steps' cost at this host; graphs decide per step which those are (rl_launch) */
        e.launch_s = (en->launch_s > 0 ? en->launch_s : KERNEL_LAUNCH_S_DEFAULT) * e.cpu_scale;
        e.launch_mla_s = en->launch_mla_s > 0 ? en->launch_mla_s * e.cpu_scale : 0.0;
        e.graphs = en->cuda_graphs;
        e.graph_max = (double)en->graph_max_batch;
        e.graph_piecewise = en->graph_piecewise;
        e.graph_every = (double)en->graph_every_batch_to;
        e.graph_decode_new = 1.0;
        e.kernel_factor = en->kernel_factor > 0 ? en->kernel_factor : 1.0;
        e.fp8_attention = en->fp8_attention;
        e.kv_heads_per_read = en->kv_per_query_head ? 1.0 : (double)en->kv_heads_per_read;
        /* masked-MHA decode kernels: fp32 dot products on CUDA cores at their measured rate (kernel.h) */
        if (en->cuda_core_decode && g->has_peak[LLMROOF_FP32])
            e.attn_decode_peak = g->peak_flops[LLMROOF_FP32] * kernel_fp32_issue_share(g->arch) * KERNEL_MMHA_FP32_SHARE;
        e.kv_reads_prefill = en->kv_per_query_head;
        e.varlen_fa2 = arch_listed(en->varlen_fa2_archs, en->n_varlen_fa2_archs, g->arch);
        e.fa2_window = e.varlen_fa2 || arch_listed(en->fa2_archs, en->n_fa2_archs, g->arch);
        e.moe_triton = arch_listed(en->moe_triton_archs, en->n_moe_triton_archs, g->arch);
        /* an engine that runs FlashAttention-2's kernels on this GPU decodes at FA2's measured
         * streaming share (H100 SXM5: 2792 of 3350 GB/s, FA2's split-KV decode, against 3110 for
         * cuDNN's and FA3-class kernels; docs/model.md "Attention kernels") */
        if (e.fa2_window && g->attn_mem_fa2_eff > 0)
            e.attn_mem_fa2_eff = g->attn_mem_fa2_eff;
        /* vLLM 0.6's selector: FlashAttention-2 takes no fp8 cache, XFormers' decode is vLLM's paged
         * attention, one thread block per query head (the fa2_archs GPUs: CUDA; ROCm runs its own
         * GQA-aware kernel) */
        e.kv8_per_query_head = en->fp8_kv_per_query_head && arch_listed(en->fa2_archs, en->n_fa2_archs, g->arch);
        /* GeForce fp16 accumulation: the doubled peak at the share such GEMMs reach of it (kernel.h) */
        if (en->fp16_accumulate && g->fp16_acc_ratio > 1)
            e.peak_scale = kernel_fp16acc_peak_scale(g);
        e.dequant_min_tokens = en->dequant_min_tokens;
        e.wo_issue_per_flop = en->wo_issue_per_flop;
        e.prompt_ubatch_tokens = en->prompt_ubatch_tokens;
        e.logits_all_tokens = en->logits_all_tokens;
        e.kv_copy = en->kv_copy;
        e.moe_tp_shared_local = en->moe_tp_shared_local;
        e.moe_gemv = en->moe_gemv;
        e.dp_lm_head_split = en->dp_lm_head_split;
        /* llama.cpp's MMQ runs on NVIDIA's int8 tensor cores (Turing, sm75, and later: PR #8075's
         * rule); other GPUs, and entries without an int8 peak, keep dequantize + a 16-bit GEMM */
        if (en->mmq_share > 0 && g->has_peak[LLMROOF_INT8] && !strncmp(g->arch, "sm", 2) &&
            strtol(g->arch + 2, NULL, 10) >= 75)
            e.mmq_share = en->mmq_share;
        e.custom_allreduce = en->custom_allreduce; /* the engine's, not the engine-less best */
        e.dsa_flashmla_pad = en->dsa_flashmla_pad;
        e.dsa_pad_prefill = arch_listed(en->dsa_prefill_pad_archs, en->n_dsa_prefill_pad_archs, g->arch);
        e.dsa_dense_short_prefill = en->dsa_dense_short_prefill;
        e.first_token_decode = en->first_token_decode;
        e.cpu_seq_s = en->cpu_seq_s;
        e.cpu_overlap = en->cpu_overlap;
        e.worker_seq_s = en->worker_seq_s;
        e.cpu_output_s = en->cpu_output_s;
        e.cpu_output_overlap = en->cpu_output_overlap;
        e.spec_no_overlap = en->spec_no_overlap;
        e.spec_draft_graph = en->spec_draft_graph;
        if (en->attention == LLMROOF_ATTN_FLASH2)
            e.attn_eff = g->attn_eff;
        else if (en->attention == LLMROOF_ATTN_EAGER || en->attention == LLMROOF_ATTN_EAGER_PREFILL) {
            /* batched cuBLAS matmuls at the GEMM efficiency, scores through memory */
            e.attn_eager = true;
            e.attn_eager_decode = en->attention == LLMROOF_ATTN_EAGER;
            e.attn_eff = 0.0;
            e.attn_ramp_tokens = 0.0;
        }
    }
    if (o) {
        if (o->has_compute)
            e.compute = o->compute;
        if (o->has_memory)
            e.memory = o->memory;
        if (o->has_comm)
            e.comm = o->comm;
        if (o->has_overhead)
            e.overhead_s = o->overhead_s;
    }
    return e;
}

double roofline_graph_max(const struct llmroof_engine *en, const struct llmroof_gpu *g, int tp)
{
    if (!en || !en->cuda_graphs)
        return 0.0;
    /* SGLang's server_args.py (0.4.6-0.5.2) sets cuda_graph_max_bs from the memory nvidia-smi
     * reports and, on GPUs below 35 GiB, from the TP size too (8 sequences below TP 4, 80 from
     * it); cuda_graph_runner.py raises it on the largest GPUs: the band of gpu_memory_tiers that
     * holds this GPU, else the profile's own limit */
    const struct llmroof_mem_tier *t = g ? catalog_engine_tier(en, g->memory_bytes) : NULL;
    const long gm = !t ? 0 : tp >= 4 && t->graph_max_batch_tp4 > 0 ? t->graph_max_batch_tp4 : t->graph_max_batch;
    return gm > 0 ? (double)gm : (double)en->graph_max_batch;
}

struct llmroof_effs roofline_effs_tp(const struct llmroof_gpu *g, const struct llmroof_eff_override *o, int tp)
{
    struct llmroof_effs e = roofline_effs(g, o);
    if (o && o->engine && o->engine->cuda_graphs)
        e.graph_max = roofline_graph_max(o->engine, g, tp);
    return e;
}

int roofline_check(const struct llmroof_gpu *g, enum llmroof_dtype act, struct llmroof_err *err)
{
    if (!g->has_peak[act])
        return llmroof_err_set(err, LLMROOF_EINPUT, "GPU '%s' has no %s compute path (catalog peak_flops lacks '%s')",
                               g->id, dtype_name(act), dtype_name(act));
    return LLMROOF_OK;
}

void roofline_total(struct llmroof_phase *p)
{
    /* one pass: this runs twice per estimate and once per simulated step. The bound sums in
     * three registers, each adding the time or +0 (x + 0 == x for every sum here: none is -0),
     * not through b[bound], whose store-to-load chain costs more than the adds (a branchless
     * select by bit masks measured slower than gcc's predicted branches) */
    double c = 0, m = 0, x = 0, t = 0, b0 = 0, b1 = 0, b2 = 0;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_optime *o = &p->op[k];
        c += o->compute_s;
        m += o->memory_s;
        x += o->comm_s;
        t += o->time_s;
        /* bound_s: each operator's time under the resource bounding it */
        b0 += o->bound == LLMROOF_BOUND_COMPUTE ? o->time_s : 0.0;
        b1 += o->bound == LLMROOF_BOUND_MEMORY ? o->time_s : 0.0;
        b2 += o->bound == LLMROOF_BOUND_COMM ? o->time_s : 0.0;
    }
    const double b[3] = { b0, b1, b2 };
    p->compute_s = c;
    p->memory_s = m;
    p->comm_s = x;
    /* Two-batch overlap (DeepSeek-V3 report §3.4 and its profile-data repository; SGLang's
     * --enable-two-batch-overlap, vLLM's --enable-dbo): the step runs as two micro-batches, each
     * one's dispatch and combine running while the other computes, so the all-to-all costs only
     * what exceeds the other operators' time. The operators are already both micro-batches'
     * (ops_build_split: each its own pass, reading the weights it touches again), so what hides
     * is one micro-batch's all-to-all under the other's compute, summed over the two. */
    const double a2a = p->op[LLMROOF_OP_ALL_TO_ALL].time_s, rest = t - a2a;
    p->hidden_s = p->a2a_overlap ? (a2a < rest ? a2a : rest) : 0.0;
    /* the kernels' CPU launches run ahead of the GPU: the step waits only for what they exceed
     * its GPU time (kernel.h, kernel_cpu_wait_s) */
    const double gpu = t - p->hidden_s;
    p->cpu_wait_s = kernel_cpu_wait_s(gpu, p->launch_s);
    p->time_s = gpu + p->cpu_wait_s + p->overhead_s;
    p->bound_s[0] = b[0];
    p->bound_s[1] = b[1];
    p->bound_s[2] = b[2];
    p->bound = roofline_largest_bound(p->bound_s);
}

enum llmroof_bound roofline_largest_bound(const double bound_s[3])
{
    enum llmroof_bound best = LLMROOF_BOUND_COMPUTE;
    for (int i = 1; i < 3; i++)
        if (bound_s[i] > bound_s[best])
            best = (enum llmroof_bound)i;
    return best;
}

void roofline_prepare(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff, int tp,
                      struct roofline_prep *out)
{
    struct roofline_prep r;
    r.gpu = g;
    r.eff = eff;
    r.tp = tp;
    /* GEMMs at the activation dtype's peak, scaled by what that dtype's kernels reach (8-bit: a
     * smaller share of a doubled peak); attention at 16 bits unless the engine runs fp8 attention;
     * fp16 accumulation (GeForce) doubles the fp16 peak for the engines that use it */
    const double gscale = (eff->gemm_scale > 0 ? eff->gemm_scale : kernel_gemm_dtype_scale(g, act)) *
                          (eff->peak_scale > 1 && act == LLMROOF_FP16 ? eff->peak_scale : 1.0);
    r.peak = g->peak_flops[act] * eff->compute * gscale;
    /* a mixed-precision checkpoint's own GEMMs (NVFP4 experts: fp4 x fp4) at their dtype's peak
     * and that dtype's kernel share, where the GPU's catalog has the path; elsewhere the engine
     * falls back to a kernel at the activation dtype (vLLM's Marlin NVFP4 W4A16 before Blackwell) */
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++) {
        r.lowp_path[d] = g->has_peak[d] && d != (int)act;
        r.lowp_peak[d] = r.lowp_path[d]
                             ? g->peak_flops[d] * eff->compute * kernel_gemm_dtype_scale(g, (enum llmroof_dtype)d)
                             : r.peak;
    }
    r.act_fp8 = act == LLMROOF_FP8;
    r.nvfp4_path = g->has_peak[LLMROOF_FP4] && !strncmp(g->arch, "sm", 2);
    r.act_fp4 = act == LLMROOF_FP4 && g->has_peak[LLMROOF_FP4];
    /* the table behind the share is a B300's; TensorRT-LLM-gen's MoE kernels are built for sm100
     * and sm103, GeForce Blackwell (sm120) runs other ones */
    r.fp4_moe = !strcmp(g->arch, "sm100") || !strcmp(g->arch, "sm103");
    r.act_8bit = dtype_bytes(act) <= 1.0;
    r.dsa_head_multiple = roofline_dsa_head_multiple(g, eff);
    /* llama.cpp's MMQ: the engine's share of the int8 peak, at the GPU's (fitted) compute efficiency */
    r.mmq_peak = eff->mmq_share > 0 ? g->peak_flops[LLMROOF_INT8] * eff->compute * eff->mmq_share : 0.0;
    /* a fused weight-only GEMM's unpacking runs on the CUDA cores at one instruction per lane per
     * clock on 64 lanes an SM (kernel_fp32_issue_share: the integer lanes of GA10x, Ada, Hopper) */
    r.wo_issue_s_per_flop = eff->wo_issue_per_flop > 0 && g->has_peak[LLMROOF_FP32]
                                ? eff->wo_issue_per_flop / (g->peak_flops[LLMROOF_FP32] * kernel_fp32_issue_share(g->arch))
                                : 0.0;
    const enum llmroof_dtype adt = eff->fp8_attention && act == LLMROOF_FP8 ? act : kernel_attention_dtype(g, act);
    /* the fp16-accumulate peak is the GEMMs' (cuBLAS at CUBLAS_COMPUTE_16F): eager attention's
     * batched matmuls take it, FlashAttention-class kernels accumulate in fp32 and do not */
    r.apeak = g->peak_flops[adt] * (eff->attn_eff > 0 ? eff->attn_eff : eff->compute) *
              (eff->peak_scale > 1 && adt == LLMROOF_FP16 && eff->attn_eager ? eff->peak_scale : 1.0);
    const enum llmroof_dtype a16 = kernel_attention_dtype(g, act);
    r.apeak16 = adt == a16 ? r.apeak
                           : g->peak_flops[a16] * (eff->attn_eff > 0 ? eff->attn_eff : eff->compute) *
                                 (eff->peak_scale > 1 && a16 == LLMROOF_FP16 && eff->attn_eager ? eff->peak_scale : 1.0);
    r.bw = g->mem_bw_Bps * eff->memory;
    r.abw = g->mem_bw_Bps * (eff->attn_mem_eff > 0 ? eff->attn_mem_eff : eff->memory);
    r.abw_fa2 = eff->attn_mem_fa2_eff > 0 ? g->mem_bw_Bps * eff->attn_mem_fa2_eff : r.abw;
    r.kf = eff->kernel_factor > 0 ? eff->kernel_factor : 1.0;
    r.link = (struct llmroof_link_model){ g->link_bw_Bps, eff->comm, g->link_latency_s + eff->comm_latency_s,
                                          g->link_hop_latency_s,
                                          g->link == LLMROOF_LINK_PCIE ? COMM_PROTO_PCIE : COMM_PROTO_NVLINK,
                                          g->nvls_bw_Bps, g->mesh_links,
                                          /* custom all-reduce needs peer access over NVLink/xGMI
                                           * (vLLM turns it off on PCIe-only GPUs) */
                                          /* (the engine's collective_latency_s is NCCL's path) */
                                          eff->custom_allreduce && g->link != LLMROOF_LINK_PCIE
                                              ? comm_custom_latency_s(g->custom_ar_latency_s)
                                              : 0.0,
                                          g->simple_step_s, g->ll128_share };
    /* one domain: the intra link; beyond it the hierarchical / network terms of comm.h */
    /* each inter-node step of a ring (or level of a tree) costs the network's per-step latency:
     * NCCL's NET figure, or a PCIe hop between PCIe-joined groups (comm.h) */
    const bool net_pcie = !strncmp(g->net_kind, "pcie", 4);
    const double net_eff = net_pcie && eff->comm > COMM_PCIE_EFF ? COMM_PCIE_EFF : eff->comm;
    r.net = (struct llmroof_link_model){ g->net_bw_Bps, net_eff, g->net_latency_s,
                                         net_pcie ? COMM_PCIE_HOP_S : COMM_NET_RING_HOP_S,
                                         net_pcie ? COMM_PROTO_PCIE : COMM_PROTO_NONE, 0.0, 0, 0.0, 0.0, 0.0 };
    r.dom = g->domain_gpus > 0 ? g->domain_gpus : g->gpus_per_node;
    r.overhead_s = roofline_step_overhead_s(eff, tp);
    *out = r;
}

static bool rl_collective(int k)
{
    return k == LLMROOF_OP_ALL_REDUCE || k == LLMROOF_OP_ALL_GATHER || k == LLMROOF_OP_ALL_TO_ALL ||
           k == LLMROOF_OP_PP_SEND || k == LLMROOF_OP_MLP_GATHER; /* op_is_collective, inline on this hot path */
}

/* Time of all `count` calls of collective op k. */
/* What a block-fp8 checkpoint's fp8 dispatch saves on one all-to-all message, on a GPU with the
 * fp8 path its experts run on (ops.h a2a_lowp_save_bytes); 0 elsewhere. */

/* The operator list's checkpoint GEMMs (ops lowp_ops) run on their dtype's own path on this GPU:
 * the GPU has it, and an NVFP4 checkpoint's need NVIDIA's fp4 (ckpt_gpu_native's rule) */
static inline bool rl_lowp(const struct roofline_prep *r, const struct llmroof_oplist *ops)
{
    return r->lowp_path[ops->lowp_dtype] && !(ops->lowp_nvfp4 && !r->nvfp4_path);
}

static inline double rl_a2a_save(const struct roofline_prep *r, const struct llmroof_oplist *ops)
{
    return ops->a2a_lowp_save_bytes > 0 && rl_lowp(r, ops) ? ops->a2a_lowp_save_bytes : 0.0;
}

/* The all-to-all bytes a step reports (comm_MB): the message its time moves. The normal kernels
 * send a token once to each GPU holding any of its experts (comm_alltoall_nodes_s), so their
 * share of the k-copy message is that fan-out over k; a review read a DeepSeek-V3 EP-8 prefill's
 * 20.3 GB where its 22.7 ms moves 9.1 (3.60 GPUs of 8 under group-limited routing). */
static double rl_a2a_shown_bytes(const struct roofline_prep *r, const struct llmroof_oplist *ops)
{
    const double msg = ops->op[LLMROOF_OP_ALL_TO_ALL].comm_bytes - rl_a2a_save(r, ops);
    if (!ops->a2a_normal || ops->ep_ranks <= 1 || !(ops->a2a_topk > 0))
        return msg;
    return msg * comm_moe_fanout((double)ops->ep_ranks, ops->a2a_topk, ops->a2a_groups, ops->a2a_topk_groups) /
           ops->a2a_topk;
}

static double rl_comm_s(const struct roofline_prep *r, const struct llmroof_oplist *ops, int k)
{
    const struct llmroof_op *op = &ops->op[k];
    const int tp = r->tp;
    double one;
    if (k == LLMROOF_OP_ALL_TO_ALL) {
        const double msg = op->comm_bytes - rl_a2a_save(r, ops);
        one = ops->a2a_normal ? comm_alltoall_nodes_s(&r->link, &r->net, ops->ep_ranks, r->dom, msg, ops->a2a_topk,
                                                      ops->a2a_groups, ops->a2a_topk_groups, ops->a2a_recv_factor)
                              : comm_alltoall_s(&r->link, &r->net, ops->ep_ranks, r->dom, msg);
    }
    else if (k == LLMROOF_OP_PP_SEND)
        one = comm_pp_sends_s(&r->link, &r->net, r->dom, ops->stage_gpus, op->count, op->comm_bytes) / op->count;
    else if (k == LLMROOF_OP_MLP_GATHER) {
        /* an all-gather of the gathered message over the MLP's ranks, and a reduce-scatter back
         * (the same ring steps and bytes: (n-1)/n of it each way, nccl-tests PERFORMANCE.md) */
        const int n = ops->mlp_ranks;
        one = 2.0 * (n > r->dom && r->gpu->net_bw_Bps > 0 ? comm_allgather_hier_s(&r->link, &r->net, n, r->dom, op->comm_bytes)
                                                            : comm_allgather_s(&r->link, n, op->comm_bytes));
    }
    else if (k == LLMROOF_OP_ALL_GATHER && ops->lm_ranks > 1) {
        /* the LM head split over the stage's GPUs (ops.h lm_ranks): its gathers span the replicas */
        const int n = ops->lm_ranks;
        one = n > r->dom && r->gpu->net_bw_Bps > 0 ? comm_allgather_hier_s(&r->link, &r->net, n, r->dom, op->comm_bytes)
                                                   : comm_allgather_s(&r->link, n, op->comm_bytes);
    }
    else if (tp > r->dom && r->gpu->net_bw_Bps > 0)
        one = k == LLMROOF_OP_ALL_REDUCE ? comm_allreduce_hier_s(&r->link, &r->net, tp, r->dom, op->comm_bytes)
                                         : comm_allgather_hier_s(&r->link, &r->net, tp, r->dom, op->comm_bytes);
    else
        one = k == LLMROOF_OP_ALL_REDUCE ? comm_allreduce_s(&r->link, tp, op->comm_bytes)
                                         : comm_allgather_s(&r->link, tp, op->comm_bytes);
    return op->count * one;
}

/* Eager attention in this step (roofline_attn_eager) */
/* The attention peak of a pass: an engine's fp8 attention (TensorRT-LLM's fp8 context FMHA and
 * XQA) reads Q, K and V in fp8, so it runs only with an 8-bit K/V cache (the profile's "fp8 context
 * and generation attention with fp8 KV"); with a 16-bit cache attention stays at 16 bits (a review:
 * --act-dtype fp8 --kv-dtype fp16 had halved a 70B prefill's attention time). */
static inline double rl_apeak(const struct roofline_prep *r, const struct llmroof_oplist *ops)
{
    return ops->kv_8bit ? r->apeak : r->apeak16;
}

static bool rl_eager(const struct llmroof_effs *eff, const struct llmroof_oplist *ops)
{
    return roofline_attn_eager(eff, ops->new_per_seq);
}

/* The CPU launch cost per kernel of this step (docs/model.md "CUDA-graph coverage"): *other for
 * every operator, *attn for the attention operators (ops.h OPS_CONTEXT_MASK). A step no graph
 * replays pays eff->launch_s for each; a graph-replayed one nothing, except that piecewise graphs
 * (vLLM V1: the model split at its attention calls, each piece captured for a token count) leave
 * a prefill or mixed step's attention outside the graph. Engines with graphs for decode only
 * (vLLM V0's _BATCH_SIZES_TO_CAPTURE, SGLang's cuda_graph_max_bs) replay decode-type steps of at
 * most graph_max sequences; vLLM V1 any step of at most graph_max tokens, decode-only ones as a
 * full graph (cudagraph_mode FULL_AND_PIECEWISE). */
static void rl_launch(const struct llmroof_effs *eff, const struct llmroof_oplist *ops, double *other, double *attn)
{
    /* an MLA model's eager kernels at the engine's own cost for that code (SGLang: 45 us against
     * 25 for dense models' modules, docs/model.md `launch_mla_s`) */
    *other = *attn = ops->mla && eff->launch_mla_s > 0 ? eff->launch_mla_s : eff->launch_s;
    if (!eff->graphs)
        return;
    if (eff->graph_max <= 0) { /* graphs of every step */
        *other = *attn = 0.0;
        return;
    }
    const double per_seq = eff->graph_decode_new > 1.0 ? eff->graph_decode_new : 1.0;
    /* decode-type: every sequence has at most per_seq new tokens (a mixed step's prompt chunks
     * raise the mean above it; the tolerance as ops.c's a2a_normal), and no other data-parallel
     * attention replica has prompt work (dp_prompt: the instance replays graphs or none) */
    const bool decode = ops->new_per_seq <= per_seq * 1.0000001 && !ops->dp_prompt;
    const double size = eff->graph_piecewise ? ops->tokens
                                             : ops->new_per_seq > 0 ? ops->tokens / ops->new_per_seq : 0.0;
    if (size > eff->graph_max * 1.0000001 || (!decode && !eff->graph_piecewise))
        return; /* eager */
    if (!roofline_graph_has_batch(eff, size))
        return; /* no graph of this size, and none padded to (TensorRT-LLM's default) */
    *other = 0.0;
    if (decode)
        *attn = 0.0;
}

bool roofline_graph_has_batch(const struct llmroof_effs *eff, double seqs)
{
    if (!(eff->graph_every > 0) || eff->graph_piecewise)
        return true;
    /* CudaGraphConfig._generate_cuda_graph_batch_sizes without padding: 1-31, 32, 64, 128, then
     * the powers of two up to its max_batch_size and that size; maybe_get_cuda_graph runs a batch
     * it has no graph for eagerly */
    if (seqs <= eff->graph_every + 1e-9)
        return true; /* every size up to it (a mean batch of the planner's scan too) */
    const double n = floor(seqs + 0.5);
    if (fabs(seqs - n) > 1e-6)
        return false; /* a mean of sizes above it: not one captured size */
    if (fabs(n - eff->graph_max) < 1e-9)
        return true;
    int exp = 0;
    return frexp(n, &exp) == 0.5; /* a power of two */
}

static double add_cpu(double t, double cpu, double overlap)
{
    return cpu > 0 ? t + cpu - overlap * (cpu < t ? cpu : t) : t;
}

double roofline_cpu_step_s(const struct llmroof_effs *eff, double gpu_s, double seqs, double workers, bool spec,
                           double api_s, double api_overlap, double tokens)
{
    const double ov = spec && eff->spec_no_overlap ? 0.0 : eff->cpu_overlap;
    const double scale = eff->cpu_scale > 0 ? eff->cpu_scale : 1.0, n = seqs * scale;
    return roofline_cpu_combine_s(gpu_s, eff->cpu_output_s * n, eff->cpu_output_overlap,
                                  (eff->cpu_seq_s + eff->worker_seq_s * workers) * n, ov, api_s * n, api_overlap) +
           eff->ray_token_s * tokens * scale;
}

double roofline_cpu_combine_s(double gpu_s, double out_s, double out_overlap, double seq_s, double seq_overlap,
                              double api_s, double api_overlap)
{
    double t = add_cpu(gpu_s, out_s, out_overlap); /* during the GPU step */
    t = add_cpu(t, seq_s, seq_overlap);
    return add_cpu(t, api_s, api_overlap);
}

double roofline_attn_peak(const struct llmroof_effs *eff, double apeak, double ramp, double new_per_seq)
{
    return eff->attn_decode_peak > 0 && new_per_seq <= 1.0 ? eff->attn_decode_peak : apeak * ramp;
}

double roofline_kv_reads(double heads_per_read, double q_per_kv)
{
    if (!(heads_per_read > 0) || !(q_per_kv > 1.0))
        return 1.0;
    double h = 1.0;
    while (h * 2.0 <= heads_per_read && fmod(q_per_kv, h * 2.0) == 0.0)
        h *= 2.0;
    return q_per_kv / h > 1.0 ? q_per_kv / h : 1.0;
}

double roofline_attn_kv_reads(const struct llmroof_effs *eff, double q_per_kv, double new_per_seq)
{
    return eff->kv_reads_prefill || new_per_seq <= 1.0 ? roofline_kv_reads(eff->kv_heads_per_read, q_per_kv) : 1.0;
}

double roofline_attn_extra_kv_bytes(const struct llmroof_effs *eff, double kv_bytes, double q_per_kv,
                                    double new_per_seq, bool longer_query, bool windowed, bool sliding,
                                    bool fa2_unfit, bool kv_8bit)
{
    if (kv_8bit && eff->kv8_per_query_head && new_per_seq <= 1.0)
        return kv_bytes * (roofline_kv_reads(1.0, q_per_kv) - 1.0);
    if (!fa2_unfit && ((eff->varlen_fa2 && longer_query) || (eff->fa2_window && windowed && sliding)))
        return kv_bytes * (roofline_kv_reads(1.0, q_per_kv) - 1.0);
    if (windowed)
        return 0.0;
    return kv_bytes * (roofline_attn_kv_reads(eff, q_per_kv, new_per_seq) - 1.0);
}

/* Bytes one instance of op k moves: K/V read more than once per group by engines whose decode
 * kernels serve fewer query heads per read than the group holds, or whose varlen call cannot
 * pack it (roofline_attn_extra_kv_bytes). */
static double rl_bytes(const struct llmroof_effs *eff, const struct llmroof_oplist *ops, int k)
{
    double bytes = ops->op[k].bytes;
    const bool eager = (k == LLMROOF_OP_ATTENTION || k == LLMROOF_OP_ATTN_LOCAL) && rl_eager(eff, ops);
    /* a windowed layer under eager attention is a global layer whose scores are masked: it reads
     * what a global layer reads (ops.h attn_local_full_bytes) */
    if (k == LLMROOF_OP_ATTENTION || (k == LLMROOF_OP_ATTN_LOCAL && eager))
        bytes += roofline_attn_extra_kv_bytes(eff, ops->attn_kv_bytes, ops->q_per_kv, ops->new_per_seq,
                                              ops->longer_query, false, false, ops->fa2_unfit, ops->kv_8bit);
    else if (k == LLMROOF_OP_ATTN_LOCAL)
        bytes += roofline_attn_extra_kv_bytes(eff, ops->attn_local_kv_bytes, ops->q_per_kv, ops->new_per_seq,
                                              ops->longer_query, true, ops->local_sliding, ops->fa2_unfit, ops->kv_8bit);
    if (eager) {
        if (k == LLMROOF_OP_ATTN_LOCAL)
            bytes += ops->attn_local_full_bytes - ops->op[k].bytes;
        bytes += KERNEL_EAGER_SCORE_BYTES * ops->attn_heads * ops->tokens * ops->keys_per_seq;
    }
    return bytes;
}

/* Dequantize-then-GEMM (llmroof/roofline.h): a weight-only GEMM at or above the engine's
 * threshold writes a 16-bit copy of its weights and the dense GEMM reads it back. */
/* llama.cpp's MMQ (llmroof/roofline.h mmq_peak): above MMVQ's few tokens a weight-only GEMM runs
 * on the int8 tensor cores from the packed weights, no 16-bit copy. */
static bool rl_mmq(const struct llmroof_effs *eff, const struct llmroof_oplist *ops)
{
    return eff->mmq_share > 0 && ops->dequant_ratio > 0 && ops->tokens > KERNEL_MMVQ_MAX_TOKENS;
}

static bool rl_dequant(const struct llmroof_effs *eff, const struct llmroof_oplist *ops)
{
    return eff->dequant_min_tokens > 0 && ops->dequant_ratio > 0 && ops->tokens >= eff->dequant_min_tokens &&
           !rl_mmq(eff, ops);
}

/* One operator's entry (full: kernel time and bound too, else the linear terms only) into *t;
 * adds its CPU launches, FLOPs, bytes and message bytes to the pass's sums. */
/* Which kernel runs an operator list's routed experts (an FFN with expert weights): Triton's
 * fused-MoE kernel where the engine lists the GPU (moe_triton_archs) and the experts are 8- or
 * 16-bit without DeepEP's path; datacenter Blackwell's grouped fp4 MoE kernels where the experts
 * compute at fp4; else a grouped GEMM at the grouped streaming share. kernel.h gives each's rates. */
int roofline_dsa_head_multiple(const struct llmroof_gpu *g, const struct llmroof_effs *eff)
{
    /* FlashMLA's sparse kernels are built for sm90 and sm100/sm103 (vLLM's FlashMLASparseBackend
     * supports_compute_capability: major 9 or 10); elsewhere no padding is charged */
    if (!eff->dsa_flashmla_pad && !eff->dsa_pad_prefill)
        return 0;
    if (!strncmp(g->arch, "sm90", 4))
        return 64;
    return !strncmp(g->arch, "sm100", 5) || !strncmp(g->arch, "sm103", 5) ? 128 : 0;
}

double roofline_dsa_flop_scale(int head_multiple, bool prefill_only, const struct llmroof_oplist *ops)
{
    if (head_multiple <= 0 || !(ops->dsa_pairs > 0.0) || !(ops->tokens > 0.0) || !(ops->attn_heads > 0.0))
        return 1.0;
    const double h = ops->attn_heads, T = ops->tokens;
    const double td = ops->dsa_decode_tokens < T ? ops->dsa_decode_tokens : T, tp = T - td;
    if (prefill_only) {
        /* SGLang on Hopper (engine dsa_prefill_pad_archs): the prompts' sparse attention in FlashMLA's
         * 16-bit kernel (nsa_backend.py _forward_flashmla_sparse pads the heads to a multiple of 64,
         * 128 on Blackwell, and hands it the whole top-k list), the decodes in another kernel at their
         * own heads and valid keys */
        const double up = ceil(h / head_multiple) * head_multiple;
        const double dp = ops->dsa_decode_pairs < ops->dsa_pairs ? ops->dsa_decode_pairs : ops->dsa_pairs;
        const double full = ops->dsa_full_pairs > 0.0 && T > 0.0 ? ops->dsa_full_pairs / T : 0.0; /* top_k */
        return (h * dp + up * tp * full) / (h * ops->dsa_pairs);
    }
    /* vLLM's FlashMLA sparse path (v1/attention/backends/mla/flashmla_sparse.py, January 2026):
     * - the 16-bit sparse kernel (flash_mla_sparse_fwd) takes the query heads padded to a multiple
     *   of 64 on Hopper and 128 on Blackwell; with a 16-bit cache every token runs it;
     * - with the fp8 cache (fp8_ds_mla) decodes run the fp8 decode kernel, heads padded to 64
     *   (up to 64) or 128, and so does every token when a rank holds fewer than 32 heads
     *   (MIN_HEADS_FOR_BF16_PREFILL: the mixed-batch mode); prompts otherwise the 16-bit kernel;
     * - both take each query's whole top-k index list, invalid entries (-1) masked, not skipped:
     *   tokens x top_k (query, key) pairs whatever the context (ops dsa_full_pairs) */
    const double up = ceil(h / head_multiple) * head_multiple;
    const double dec = h <= 64.0 ? 64.0 : ceil(h / 128.0) * 128.0;
    double heads;
    if (!ops->kv_8bit)
        heads = T * up;
    else if (h < 32.0)
        heads = T * dec;
    else
        heads = td * dec + tp * up;
    const double pairs = ops->dsa_full_pairs > ops->dsa_pairs ? ops->dsa_full_pairs : ops->dsa_pairs;
    return heads / (T * h) * (pairs / ops->dsa_pairs);
}

static enum llmroof_moe_kernel rl_moe_kernel(const struct roofline_prep *r, const struct llmroof_oplist *ops)
{
    if (!(ops->expert_wbytes > 0))
        return LLMROOF_MOE_NONE;
    /* vLLM's fp8 experts on a GPU without fp8 tensor cores (A100, A10) run Marlin's W8A16 MoE */
    if (r->eff->moe_triton && ops->expert_triton_ok && (!ops->expert_fp8 || r->gpu->has_peak[LLMROOF_FP8]))
        return LLMROOF_MOE_TRITON;
    /* the experts compute at their checkpoint's dtype where it has its own path (rl_op's peak),
     * else at the activations': an NVFP4 checkpoint at --act-dtype fp4 has no separate fp4 path
     * (it is the activations' own) and still computes at fp4 */
    const bool own = ops->lowp_ops >> LLMROOF_OP_FFN & 1u && rl_lowp(r, ops);
    if (r->fp4_moe && (own ? ops->lowp_dtype == LLMROOF_FP4 : r->act_fp4))
        return LLMROOF_MOE_FP4;
    return LLMROOF_MOE_GROUPED;
}

enum llmroof_moe_kernel roofline_moe_kernel(const struct llmroof_gpu *g, enum llmroof_dtype act,
                                            const struct llmroof_effs *eff, const struct llmroof_oplist *ops)
{
    struct roofline_prep r;
    roofline_prepare(g, act, eff, 1, &r);
    return rl_moe_kernel(&r, ops);
}

/* Which operators the fill ramp charges: the decoder layers' weight GEMMs, whose rows are the list's
 * tokens - the QKV and output projections and the MLPs - not the LM head and the router (one GEMM
 * the width of the vocabulary, one a few columns wide; neither records its output width, as the
 * short-K term leaves them), MLA's kv_up (its decompression runs over the keys, not the step's
 * tokens), the recurrent mixers and DSA's indexer, nor --moe-tp's gathered dense MLPs, which run
 * other replicas' rows than the list counts */
static bool rl_gemm_ramp_applies(const struct llmroof_oplist *ops, int k)
{
    switch (k) {
    case LLMROOF_OP_QKV_PROJ:
    case LLMROOF_OP_O_PROJ:
    case LLMROOF_OP_FFN:
        return ops->op[k].wbytes > 0;
    case LLMROOF_OP_DENSE_FFN:
        return ops->op[k].wbytes > 0 && !(ops->mlp_ranks > 0);
    default:
        return false;
    }
}

/* The GPU's fill ramp (kernel_gemm_ramp_compute_s) on operator k's weight GEMMs, over the rows they
 * run: the list's tokens on the rank (under two-batch overlap already a micro-batch's,
 * ops_build_split), and M0 by the GEMMs' mean output width, gemm_out over rows (an MLP's two GEMMs:
 * half its sum). A routed FFN splits by FLOPs: its experts run as one grouped kernel (fused or
 * grouped MoE) whose tiles, every expert's, fill the chip together, so their rows are all the
 * rank's assignments, not one expert's; its shared experts run their own rows; both at the
 * reference width (the operator's output elements mix the two). */
static double rl_gemm_ramp(const struct llmroof_effs *eff, const struct llmroof_oplist *ops, int k, double c, double m)
{
    const double rows = ops->tokens, f = ops->op[k].flops, m0 = eff->gemm_ramp_rows;
    if (k == LLMROOF_OP_FFN && ops->expert_wbytes > 0 && ops->expert_flops > 0 && f > 0) {
        const double s = fmin(1.0, ops->expert_flops / f);
        return kernel_gemm_ramp_compute_s(c * s, m * s, ops->tokens_per_expert * fmax(1.0, ops->experts_hit), m0) +
               kernel_gemm_ramp_compute_s(c * (1.0 - s), m * (1.0 - s), ops->shared_rows > 0 ? ops->shared_rows : rows, m0);
    }
    const double gemms = k == LLMROOF_OP_FFN || k == LLMROOF_OP_DENSE_FFN ? 2.0 : 1.0;
    const double n = rows > 0 ? ops->gemm_out[k] / (rows * gemms) : 0.0;
    return kernel_gemm_ramp_compute_s(c, m, rows, kernel_gemm_ramp_rows(m0, n));
}

/* Two-batch overlap in a prefill-type step: DeepEP's normal kernels hold KERNEL_DEEPEP_NORMAL_SMS of
 * the GPU's SMs while the other micro-batch computes, and the engine runs that micro-batch's GEMMs on
 * the rest (SGLang's TBO prefill strategy: deep_gemm_num_sms = SMs - DeepEP's num_sms for the whole
 * overlapped forward, batch_overlap/operations_strategy.py): a weight GEMM's compute time scales by
 * SMs / (SMs - held): the block-scaled fp8 GEMMs, DeepGEMM's, which that setting binds (NVFP4 and
 * 16-bit GEMMs run CUTLASS/cuBLAS kernels at the full grid, not charged). Not the leading dense
 * layers' MLPs (run before the split) nor the LM head (after the merge); not attention, whose
 * kernels the engines leave at the full grid. The low-latency
 * kernels of a decode step hold none (their receive is a hook, DeepEP's README). 1 where the GPU
 * states no sm_count. */
static double rl_tbo_sm_factor(const struct roofline_prep *r, const struct llmroof_oplist *ops, int k)
{
    if (!ops->a2a_overlap || !ops->a2a_normal || !r->gpu || r->gpu->sm_count <= KERNEL_DEEPEP_NORMAL_SMS)
        return 1.0;
    if (!(ops->op[k].wbytes > 0) || k == LLMROOF_OP_DENSE_FFN || k == LLMROOF_OP_LM_HEAD || k == LLMROOF_OP_DSA_INDEX ||
        k == LLMROOF_OP_LINEAR_MIX || !(ops->block_fp8_ops >> k & 1u))
        return 1.0;
    const double s = (double)r->gpu->sm_count;
    return s / (s - KERNEL_DEEPEP_NORMAL_SMS);
}

static inline void rl_op(const struct roofline_prep *r, const struct llmroof_oplist *ops, int k, bool dequant,
                         double ramp, double launch_s, const struct llmroof_oplist *ref_ops,
                         const struct llmroof_phase *ref, bool full, struct llmroof_optime *t, double sums[4])
{
    const struct llmroof_effs *eff = r->eff;
    const struct llmroof_op *op = &ops->op[k];
    const bool attn = k == LLMROOF_OP_ATTENTION || k == LLMROOF_OP_ATTN_LOCAL;
    double bytes = rl_bytes(eff, ops, k), kernels = op->kernels, dq_bytes = 0.0;
    if (k == LLMROOF_OP_FFN && ops->lowp_save_bytes > 0 && rl_lowp(r, ops))
        bytes -= ops->lowp_save_bytes; /* W4A4 experts read their activations at fp4 (ops.h) */
    /* a low-precision checkpoint GEMM on its own path reads its weights as stored, no 16-bit copy */
    if (dequant && op->wbytes > 0 && !(ops->lowp_ops >> k & 1u && rl_lowp(r, ops))) {
        /* a dequantize kernel reads the packed weights and writes the 16-bit copy, before and
         * apart from the GEMM, which then reads that copy instead of the packed bytes: in all
         * 2 * ratio * wbytes more; one more kernel per matrix (two in an MLP) */
        dq_bytes = op->wbytes * (1.0 + ops->dequant_ratio);
        bytes += (ops->dequant_ratio - 1.0) * op->wbytes;
        kernels += k == LLMROOF_OP_FFN || k == LLMROOF_OP_DENSE_FFN ? 2.0 : 1.0;
    }
    const bool eager = (k == LLMROOF_OP_ATTENTION || k == LLMROOF_OP_ATTN_LOCAL) && rl_eager(eff, ops);
    if (eager)
        kernels = KERNEL_EAGER_KERNELS;
    const double tbytes = op->count * (bytes + dq_bytes);
    /* every kernel, collectives included (NCCL's are launched too), costs its CPU launch;
     * roofline_total sets the step's wait from the sum */
    sums[0] += op->count * kernels * r->kf * launch_s;
    sums[1] += op->count * op->flops;
    sums[2] += tbytes;
    const double msg = op->count * (k == LLMROOF_OP_ALL_TO_ALL ? rl_a2a_shown_bytes(r, ops) : op->comm_bytes);
    sums[3] += msg;
    if (rl_collective(k)) {
        /* a decode step's messages scale with the batch, not the context: reuse the
         * reference step's time when the call is the same */
        const struct llmroof_op *ro = ref_ops ? &ref_ops->op[k] : NULL;
        const double cs = ro && ro->count == op->count && ro->comm_bytes == op->comm_bytes ? ref->op[k].comm_s
                                                                                            : rl_comm_s(r, ops, k);
        *t = (struct llmroof_optime){ 0.0, 0.0, cs, cs, 0.0, tbytes, kernels, LLMROOF_BOUND_COMM, msg };
        return;
    }
    double c, m;
    if (!attn) {
        const bool lowp = ops->lowp_ops >> k & 1u;
        /* llama.cpp's MMQ takes the weight GEMMs, not the scan or indexer work that shares an
         * operator with weights (linear mixers, DSA's indexer) */
        const bool mmq = op->wbytes > 0 && k != LLMROOF_OP_LINEAR_MIX && k != LLMROOF_OP_DSA_INDEX && rl_mmq(eff, ops);
        /* DSA's indexer scores fp8 queries against its fp8 key cache (DeepGEMM's fp8_mqa_logits and
         * fp8_paged_mqa_logits, which vLLM and SGLang call) on the GPUs with an fp8 path */
        const bool dsa8 = k == LLMROOF_OP_DSA_INDEX && r->lowp_path[LLMROOF_FP8];
        /* a checkpoint GEMM off its own path (no such peak, or NVFP4 on a GPU whose fp4 is MXFP4)
         * widens its weights into the activations' GEMM: the activations' peak */
        const double pk = dsa8                    ? r->lowp_peak[LLMROOF_FP8]
                          : lowp && rl_lowp(r, ops) ? r->lowp_peak[ops->lowp_dtype]
                          : mmq                   ? r->mmq_peak
                                                  : r->peak;
        double f = op->flops;
        /* block-scaled fp8 GEMMs computing in fp8 (on the checkpoint's path, or at fp8 activations):
         * each output element costs KERNEL_BLOCK_FP8_K0 more multiply-adds (kernel.h), the per-tile
         * pipeline fill, scale promotion and epilogue that a short K loop cannot hide */
        if (ops->block_fp8_ops >> k & 1u &&
            (lowp ? ops->lowp_dtype == LLMROOF_FP8 && r->lowp_path[LLMROOF_FP8] : r->act_fp8))
            f += 2.0 * KERNEL_BLOCK_FP8_K0 * ops->gemm_out[k];
        else if (!mmq && ops->gemm_out[k] > 0) {
            /* any other tensor-core GEMM: each output tile's fixed pipeline fill and epilogue, K0
             * multiply-adds per output element, against the catalog's rate, which holds at the
             * reference K (kernel.h KERNEL_GEMM_K0_16BIT) */
            const bool b8 = lowp && rl_lowp(r, ops) ? dtype_bytes(ops->lowp_dtype) <= 1.0 : r->act_8bit;
            f = kernel_gemm_short_k_flops(f, ops->gemm_out[k], b8);
        }
        /* the routed experts' kernel (rl_moe_kernel): its compute share of the dense GEMM's rate, and
         * the grouped streaming share where it has one (kernel.h) */
        const enum llmroof_moe_kernel mk = k == LLMROOF_OP_FFN ? rl_moe_kernel(r, ops) : LLMROOF_MOE_NONE;
        const double share = mk == LLMROOF_MOE_TRITON ? KERNEL_TRITON_MOE_COMPUTE_SHARE
                             : mk == LLMROOF_MOE_FP4  ? KERNEL_FP4_MOE_COMPUTE_SHARE
                                                      : 1.0;
        if (share < 1.0 && ops->expert_flops > 0 && op->flops > 0)
            f *= 1.0 + ops->expert_flops / op->flops * (1.0 / share - 1.0);
        c = f / pk;
        /* weight-only weights unpacked inside the engine's own GEMM (neither the 16-bit copy nor
         * MMQ): the unpacking's CUDA-core instructions, issued beside the math in the same warps, add
         * to it (llm-awq's GEMM unpacks every weight once per 16-row tile: docs/model.md "Weight-only
         * GEMMs"); the weight FLOPs only, not a linear mixer's scan or DSA's indexer */
        if (r->wo_issue_s_per_flop > 0 && op->wbytes > 0 && ops->dequant_ratio >= KERNEL_WO_MIN_RATIO && !dequant && !mmq &&
            !(lowp && rl_lowp(r, ops)) && k != LLMROOF_OP_LINEAR_MIX && k != LLMROOF_OP_DSA_INDEX) {
            /* per tile of KERNEL_WO_TILE_ROWS rows, not per row: a step of T rows unpacks
             * ceil(T / 16) times, the FLOPs of 16 rows each; a decode of 8 sequences pays a full
             * tile. A routed expert's rows vary with the routing around tokens_per_expert
             * (kernel_wo_routed_tile_padding); a routed FFN's shared experts see every token, not
             * an expert's share: their FLOPs tile over their own rows */
            double wo;
            if (k == LLMROOF_OP_FFN && ops->expert_wbytes > 0) {
                const double fe = fmin(ops->expert_flops, op->flops);
                wo = fe * kernel_wo_routed_tile_padding(ops->tokens_per_expert) +
                     (op->flops - fe) * kernel_wo_tile_padding(fmax(1.0, ops->shared_rows));
            } else
                wo = op->flops * kernel_wo_tile_padding(fmax(1.0, ops->tokens));
            c += wo * r->wo_issue_s_per_flop;
        }
        m = bytes / r->bw;
        /* grouped expert GEMMs (kernel.h): tiles padded to their rows, the grouped share at any count;
         * an engine's matrix-vector products (moe_gemv) stream one token's expert at the dense rate;
         * the DeepEP path (an all-to-all) runs DeepGEMM's grouped GEMMs whatever the engine */
        if (mk != LLMROOF_MOE_NONE && mk != LLMROOF_MOE_TRITON) {
            const double bw_share = r->eff->moe_gemv && !(ops->ep_ranks > 0) ? kernel_grouped_bw_share(ops->tokens_per_expert)
                                                                           : KERNEL_GROUPED_GEMM_BW_SHARE;
            m += ops->expert_wbytes * (1.0 / bw_share - 1.0) / r->bw;
        }
        if (eff->gemm_ramp_rows > 0 && rl_gemm_ramp_applies(ops, k))
            c = rl_gemm_ramp(eff, ops, k, c, m);
        c *= rl_tbo_sm_factor(r, ops, k);
    } else if (eager) {
        c = (k == LLMROOF_OP_ATTN_LOCAL ? ops->attn_local_full_flops : op->flops) * ops->attn_square / rl_apeak(r, ops);
        m = bytes / r->bw;
    } else {
        /* MLA's absorbed decode attention is its own kernel (FlashMLA, FlashInfer's, Triton's), never a
         * masked-MHA one: the attention peak */
        const double apeak = rl_apeak(r, ops);
        c = op->flops *
            (k == LLMROOF_OP_ATTENTION ? roofline_dsa_flop_scale(r->dsa_head_multiple, !eff->dsa_flashmla_pad, ops) : 1.0) /
            (ops->mla_absorbed ? apeak * ramp : roofline_attn_peak(eff, apeak, ramp, ops->new_per_seq));
        m = bytes / (ops->fa2_unfit ? r->abw : r->abw_fa2);
    }
    /* the dequantize kernel, memory-bound and serial (0 / bw is +0: no division without one) */
    const double mdq = dq_bytes > 0 ? dq_bytes / r->bw : 0.0;
    const double cs = op->count * c, ms = op->count * (m + mdq);
    if (!full) {
        *t = (struct llmroof_optime){ cs, ms, 0.0, 0.0, 0.0, tbytes, kernels, LLMROOF_BOUND_COMPUTE, 0.0 };
        return;
    }
    /* every instance of an op kind is identical: count * one instance's kernel time on the
     * GPU (the CPU launches are charged once per step, roofline_total) */
    /* attention keeps the linear overlap (estimate.c sums its context-dependent lines exactly);
     * every other operator is a GEMM-like kernel on the measured smooth ridge */
    const double time_s = op->count * (attn ? kernel_instance_s(c, m, eff->overlap, kernels * r->kf, eff->kernel_s, 0.0)
                                            : kernel_gemm_instance_s(c, m, kernels * r->kf, eff->kernel_s, 0.0) + mdq);
    *t = (struct llmroof_optime){ cs, ms, 0.0, time_s, time_s - (cs > ms ? cs : ms), tbytes, kernels,
                                  cs >= ms ? LLMROOF_BOUND_COMPUTE : LLMROOF_BOUND_MEMORY, 0.0 };
}

/* What a pass shares: the dequantize decision and prefill attention's ramp. */
static double rl_ramp(const struct llmroof_effs *eff, const struct llmroof_oplist *ops)
{
    /* prefill-type steps (several new tokens per sequence) run attention on the ramp */
    return eff->attn_ramp_tokens > 0 && ops->new_per_seq > 1.0
               ? ops->keys_per_seq / (ops->keys_per_seq + eff->attn_ramp_tokens)
               : 1.0;
}

/* The phase's sums after a pass, and its other totals 0 until roofline_total. */
static void rl_close(const double sums[4], struct llmroof_phase *out)
{
    out->launch_s = sums[0];
    out->flops = sums[1];
    out->bytes = sums[2];
    out->comm_bytes = sums[3];
    out->compute_s = out->memory_s = out->comm_s = 0.0;
    out->overhead_s = 0.0;
    out->cpu_wait_s = out->time_s = 0.0;
    out->bound_s[0] = out->bound_s[1] = out->bound_s[2] = 0.0;
    out->a2a_overlap = false;
    out->hidden_s = 0.0;
    out->bound = LLMROOF_BOUND_COMPUTE;
}

/* The per-operator pass of roofline_eval: every entry written whole (no memset of the 1.2 KB
 * phase first: this runs twice an estimate and once a simulated step). */
static void rl_pass_full(const struct roofline_prep *r, const struct llmroof_oplist *ops, struct llmroof_phase *out)
{
    const bool dequant = rl_dequant(r->eff, ops);
    const double ramp = rl_ramp(r->eff, ops);
    double lo, la;
    rl_launch(r->eff, ops, &lo, &la);
    double sums[4] = { 0.0, 0.0, 0.0, 0.0 }; /* launch_s, flops, bytes, comm_bytes */
    RL_UNROLL_OPS
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        if (ops->op[k].count <= 0) /* an absent operator adds nothing (count 0, or terms of 0) */
            out->op[k] = (struct llmroof_optime){ 0 };
        else
            rl_op(r, ops, k, dequant, ramp, OPS_CONTEXT_MASK >> k & 1u ? la : lo, NULL, NULL, true, &out->op[k], sums);
    }
    rl_close(sums, out);
}

/* The pass of roofline_terms: the operators in `mask` evaluated from `ops` (linear terms only),
 * the others are ref_ops' (when given): their entries are ref's, from the same numbers, and are
 * not written; they enter the sums, in operator order, as this pass would add them. */
static void rl_pass_terms(const struct roofline_prep *r, const struct llmroof_oplist *ops, unsigned mask,
                          const struct llmroof_oplist *ref_ops, const struct llmroof_phase *ref,
                          struct llmroof_phase *out)
{
    const struct llmroof_effs *eff = r->eff;
    const bool dequant = rl_dequant(eff, ops);
    const double ramp = rl_ramp(eff, ops);
    double lo, la;
    rl_launch(eff, ops, &lo, &la);
    double sums[4] = { 0.0, 0.0, 0.0, 0.0 };
    RL_UNROLL_OPS
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const double launch_s = OPS_CONTEXT_MASK >> k & 1u ? la : lo;
        if (ref_ops && !(mask >> k & 1u)) {
            const struct llmroof_op *op = &ref_ops->op[k];
            if (op->count <= 0)
                continue;
            const struct llmroof_optime *rt = &ref->op[k];
            sums[0] += op->count * rt->kernels * r->kf * launch_s;
            sums[1] += op->count * op->flops;
            sums[2] += rt->bytes;
            sums[3] += op->count * (k == LLMROOF_OP_ALL_TO_ALL ? rl_a2a_shown_bytes(r, ref_ops) : op->comm_bytes);
            continue;
        }
        if (ops->op[k].count <= 0)
            out->op[k] = (struct llmroof_optime){ 0 };
        else
            rl_op(r, ops, k, dequant, ramp, launch_s, ref_ops, ref, false, &out->op[k], sums);
    }
    rl_close(sums, out);
}

void roofline_ops_prep(const struct roofline_prep *r, const struct llmroof_oplist *ops, struct llmroof_phase *out)
{
    rl_pass_full(r, ops, out);
    out->overhead_s = r->overhead_s;
    out->a2a_overlap = ops->a2a_overlap && ops->ep_ranks > 1;
}

void roofline_eval_prep(const struct roofline_prep *r, const struct llmroof_oplist *ops, struct llmroof_phase *out)
{
    roofline_ops_prep(r, ops, out);
    roofline_total(out);
}

void roofline_terms_prep(const struct roofline_prep *r, const struct llmroof_oplist *ops, unsigned mask,
                         const struct llmroof_oplist *ref_ops, const struct llmroof_phase *ref, struct llmroof_phase *out)
{
    rl_pass_terms(r, ops, mask, ref_ops, ref, out);
}

void roofline_eval(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff,
                   int tp, const struct llmroof_oplist *ops, struct llmroof_phase *out)
{
    struct roofline_prep r;
    roofline_prepare(g, act, eff, tp, &r);
    roofline_eval_prep(&r, ops, out);
}

void roofline_terms(const struct llmroof_gpu *g, enum llmroof_dtype act, const struct llmroof_effs *eff, int tp,
                    const struct llmroof_oplist *ops, const struct llmroof_oplist *ref_ops,
                    const struct llmroof_phase *ref, struct llmroof_phase *out)
{
    struct roofline_prep r;
    roofline_prepare(g, act, eff, tp, &r);
    roofline_terms_prep(&r, ops, ~0u, ref_ops, ref, out);
}

double roofline_kv_copy_s(const struct llmroof_gpu *g, const struct llmroof_effs *eff, double tokens,
                          double bytes_per_token)
{
    const double bw = g->mem_bw_Bps * (eff->memory > 0 ? eff->memory : g->memory_eff);
    return tokens > 0 && bytes_per_token > 0 && bw > 0 ? 2.0 * tokens * bytes_per_token / bw : 0.0;
}
