/* cmd_show.c - `llmroof show gpu|model|engine NAME`: every catalog field plus derived figures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/arch.h"
#include "model/ckpt.h"
#include "model/kernel.h"
#include "model/layers.h"
#include "model/ops.h"
#include "render/render_json.h"

static void kv(struct table *t, const char *field, const char *value, const char *unit)
{
    table_row(t);
    table_str(t, field);
    table_str(t, value);
    table_str(t, unit);
}

static void kvn(struct table *t, const char *field, const char *fmt, double v, const char *unit)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, v);
    kv(t, field, buf, unit);
}

/* An entry's aliases, space-separated (GPUs and engines) */
static void kv_aliases(struct table *t, const char (*aliases)[LLMROOF_ID_MAX], int n)
{
    char buf[LLMROOF_ALIASES_MAX * LLMROOF_ID_MAX + 1];
    buf[0] = '\0';
    for (int a = 0; a < n; a++) {
        size_t used = strlen(buf);
        snprintf(buf + used, sizeof buf - used, "%s%s", a ? " " : "", aliases[a]);
    }
    kv(t, "aliases", buf, "");
}

static void show_gpu(struct table *t, const struct llmroof_gpu *g)
{
    kv(t, "id", g->id, "");
    kv(t, "name", g->name, "");
    kv_aliases(t, (const char (*)[LLMROOF_ID_MAX])g->aliases, g->n_aliases);
    kv(t, "arch", g->arch[0] ? g->arch : "-", g->arch[0] ? "compute architecture" : "not stated");
    kvn(t, "memory_bytes", "%.0f", g->memory_bytes, "B");
    kvn(t, "memory", "%.2f", g->memory_bytes / 1073741824.0, "GiB");
    kvn(t, "memory_visible", "%.2f", g->memory_visible_bytes / 1073741824.0,
        g->memory_visible_bytes < g->memory_bytes ? "GiB the runtime reports"
                                                  : "GiB the runtime reports (not stated: taken as all of it)");
    kvn(t, "memory_bandwidth", "%.0f", g->mem_bw_Bps / 1e9, "GB/s");
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++) {
        char f[48];
        snprintf(f, sizeof f, "peak_%s", dtype_name((enum llmroof_dtype)d));
        if (g->has_peak[d])
            /* integer ops are OP/s; fp4 is a floating-point format (a review read "TOP/s" for it) */
            kvn(t, f, "%.1f", g->peak_flops[d] / 1e12,
                d == LLMROOF_INT8 || d == LLMROOF_INT4 ? "TOP/s dense" : "TFLOP/s dense");
        else
            kv(t, f, "-", "no such compute path");
    }
    kv(t, "interconnect", link_name(g->link), "");
    kvn(t, "link_bandwidth", "%.2f", g->link_bw_Bps / 1e9, "GB/s per direction");
    kvn(t, "link_latency", "%.2f", g->link_latency_s * 1e6, "us per collective");
    kvn(t, "link_hop_latency", "%.2f", g->link_hop_latency_s * 1e6, "us per ring step");
    if (g->nvls_bw_Bps > 0)
        kvn(t, "nvls_bandwidth", "%.2f", g->nvls_bw_Bps / 1e9, "GB/s NVLink SHARP all-reduce (algbw)");
    if (g->mesh_links > 0)
        kvn(t, "mesh_links", "%.0f", (double)g->mesh_links, "point-to-point links per GPU (full mesh)");
    if (g->custom_ar_latency_s > 0)
        kvn(t, "custom_allreduce_latency", "%.2f", g->custom_ar_latency_s * 1e6, "us per call of an engine's custom all-reduce");
    if (g->simple_step_s > 0)
        kvn(t, "simple_step_latency", "%.2f", g->simple_step_s * 1e6, "us per ring step of NCCL's Simple protocol (measured)");
    if (g->ll128_share > 0)
        kvn(t, "ll128_bandwidth_share", "%.2f", g->ll128_share, "LL128 bus bandwidth over Simple's (measured)");
    /* three digits: the catalog states them so (0.769, 0.455), and the 8-bit share and the per-kernel
     * cost are shown beside them because they set fp8 GEMM and small-kernel times (docs/model.md 3a) */
    kvn(t, "compute_eff", "%.3f", g->compute_eff, "GEMMs, of the dense 16-bit peak");
    kvn(t, "gemm_8bit", "%.3f", kernel_gemm_dtype_scale(g, LLMROOF_FP8),
        g->gemm_8bit_eff > 0 ? "8-bit GEMMs: a share of compute_eff" : "8-bit GEMMs: a share of compute_eff (default)");
    if (g->fp16_acc_ratio > 1)
        kvn(t, "gemm_fp16_accumulate", "%.3f", kernel_fp16acc_peak_scale(g) / g->fp16_acc_ratio,
            g->gemm_fp16acc_eff > 0 ? "fp16-accumulate GEMMs: a share of compute_eff on their faster peak"
                                    : "fp16-accumulate GEMMs: a share of compute_eff on their faster peak (default)");
    kvn(t, "memory_eff", "%.3f", g->memory_eff, "weights and other streams, of peak bandwidth");
    kvn(t, "comm_eff", "%.3f", g->comm_eff, "collectives, of link bandwidth");
    kvn(t, "kernel_cost", "%.1f", kernel_fixed_s(g) * 1e6,
        g->kernel_s > 0 ? "us of GPU time per kernel beyond its roofline time" : "us per kernel (default)");
    /* the kernel-level figures (docs/model.md 3a); absent ones take the defaults named there */
    if (g->attn_eff > 0)
        kvn(t, "attention_eff", "%.3f", g->attn_eff, "FlashAttention-2-class prefill, of the 16-bit peak");
    if (g->attn_fa3_eff > 0)
        kvn(t, "attention_fa3_eff", "%.3f", g->attn_fa3_eff, "FlashAttention-3-class prefill");
    if (g->attn_mem_eff > 0)
        kvn(t, "attention_memory_eff", "%.2f", g->attn_mem_eff, "decode attention, of peak bandwidth");
    if (g->attn_mem_fa2_eff > 0)
        kvn(t, "attention_memory_fa2", "%.3f", g->attn_mem_fa2_eff,
            "decode attention in FA2 kernels (an engine's fa2_archs)");
    if (g->gemm_ramp_rows > 0)
        kvn(t, "gemm_ramp_rows", "%.0f", g->gemm_ramp_rows,
            "a GEMM of M rows, N columns computes as M + this x (4096/N)^0.43");
    kvn(t, "step_overhead", "%.1f", g->step_overhead_s * 1e6, "us");
    kvn(t, "gpus_per_node", "%.0f", (double)g->gpus_per_node, "");
    if (g->sm_count > 0)
        kvn(t, "sm_count", "%.0f", (double)g->sm_count, "streaming multiprocessors");
    kvn(t, "domain_gpus", "%.0f", (double)g->domain_gpus, "GPUs sharing the intra-node link");
    kv(t, "network", g->net_kind, "between domains");
    kvn(t, "network_bandwidth", "%.2f", g->net_bw_Bps / 1e9, "GB/s per GPU per direction");
    kvn(t, "network_latency", "%.2f", g->net_latency_s * 1e6, "us per call");
    if (g->host_cpu_speed > 0) { /* docs/model.md "Host CPU" */
        kv(t, "host_cpu", g->host_cpu, "usual server host");
        kvn(t, "host_cpu_speed", "%.2f", g->host_cpu_speed, "single-thread, over the Xeon 8480C");
    } else { /* no host object: the CPU costs are the reference host's (roofline.c cpu_scale 1) */
        kv(t, "host_cpu", "-", "not in the catalog: the reference host applies");
        kvn(t, "host_cpu_speed", "%.2f", 1.0, "single-thread, the reference host (Xeon 8480C) assumed");
    }
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++) {
        if (!g->has_peak[d])
            continue;
        char f[48];
        snprintf(f, sizeof f, "ridge_%s", dtype_name((enum llmroof_dtype)d));
        kvn(t, f, "%.1f", g->peak_flops[d] / g->mem_bw_Bps, "FLOP/byte (peak / bandwidth)");
    }
}

static void show_model(struct table *t, const struct llmroof_model *m)
{
    struct llmroof_params p = arch_params(m);
    kv(t, "id", m->id, "");
    kv(t, "name", m->name, "");
    kv(t, "hf_id", m->hf_id, "");
    kvn(t, "hidden_size", "%.0f", (double)m->hidden, "");
    kvn(t, "num_layers", "%.0f", (double)m->layers, "");
    kvn(t, "num_heads", "%.0f", (double)m->heads, "");
    kvn(t, "num_kv_heads", "%.0f", (double)m->kv_heads,
        arch_is_mla(m) ? "nominal (MLA)" : m->kv_heads == m->heads ? "MHA" : m->kv_heads == 1 ? "MQA" : "GQA");
    kvn(t, "head_dim", "%.0f", (double)m->head_dim, "");
    kvn(t, "intermediate_size", "%.0f", (double)m->intermediate, "");
    kvn(t, "vocab_size", "%.0f", (double)m->vocab, "");
    kvn(t, "max_context", "%.0f", (double)m->max_context, "tokens");
    if (m->learned_pos)
        kvn(t, "learned_pos", "%.0f", (double)m->learned_pos, "rows");
    kv(t, "tie_embeddings", m->tied_embeddings ? "true" : "false", "");
    kv(t, "mlp", m->mlp == LLMROOF_MLP_GATED ? "gated" : "plain", m->mlp == LLMROOF_MLP_GATED ? "3 matrices" : "2 matrices");
    kv(t, "norm", m->norm == LLMROOF_NORM_RMS ? "rmsnorm" : "layernorm", "");
    kv(t, "qkv_bias", m->qkv_bias ? "true" : "false", "");
    kv(t, "o_bias", m->o_bias ? "true" : "false", "");
    kv(t, "mlp_bias", m->mlp_bias ? "true" : "false", "");
    kv(t, "parallel_attn", m->parallel_attn ? "true" : "false", "");
    if (m->moe_experts) {
        kvn(t, "moe_experts", "%.0f", (double)m->moe_experts, "");
        kvn(t, "moe_experts_per_token", "%.0f", (double)m->moe_top_k, "");
        kvn(t, "moe_expert_intermediate", "%.0f", (double)m->moe_intermediate, "");
        kvn(t, "moe_shared_experts", "%.0f", (double)m->moe_shared, "");
        if (m->moe_groups > 0 && m->moe_topk_groups > 0 && m->moe_topk_groups < m->moe_groups) {
            kvn(t, "moe_groups", "%.0f", (double)m->moe_groups, "equal expert groups (group-limited routing)");
            kvn(t, "moe_groups_per_token", "%.0f", (double)m->moe_topk_groups, "groups a token's experts come from");
        }
        kvn(t, "moe_layers", "%.0f", (double)arch_moe_layers(m), "of num_layers (derived)");
    }
    if (arch_is_mla(m)) {
        kvn(t, "mla_q_lora_rank", "%.0f", (double)m->q_lora_rank, m->q_lora_rank ? "" : "q projected directly");
        kvn(t, "mla_kv_lora_rank", "%.0f", (double)m->kv_lora_rank, "latent cached per layer");
        kvn(t, "mla_qk_nope_head_dim", "%.0f", (double)m->qk_nope_dim, "");
        kvn(t, "mla_qk_rope_head_dim", "%.0f", (double)m->qk_rope_dim, "rope key cached per layer");
        kvn(t, "mla_v_head_dim", "%.0f", (double)m->v_head_dim, "");
    }
    if (m->window > 0) {
        kvn(t, "sliding_window", "%.0f", (double)m->window, m->window_chunked ? "tokens (chunked)" : "tokens");
        kvn(t, "local_layers", "%.0f", (double)arch_local_layers(m), "of num_layers (derived)");
    }
    if (m->ckpt_format[0])
        kvn(t, m->ckpt_expert_bits > 0 ? "checkpoint_expert_bits" : "checkpoint_bits", "%.3f",
            m->ckpt_expert_bits > 0 ? m->ckpt_expert_bits : m->ckpt_bits, m->ckpt_format);
    enum llmroof_dtype ckpt_w;
    if (!m->ckpt_per_op && ckpt_weight_dtype(m, &ckpt_w) && ckpt_w == LLMROOF_FP8) {
        /* block fp8: W8A8 GEMMs under 16-bit activations (docs/model.md "Mixed-precision checkpoints") */
        struct llmroof_dtypes own = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        enum llmroof_dtype low;
        if (ops_ckpt_lowp_modules(m, &own, &low))
            kv(t, "checkpoint_gemm_compute", dtype_name(low),
               "W8A8 GEMMs; A100 weight-only (W8A16)");
    }
    if (m->ckpt_per_op) {
        /* the GEMMs the checkpoint left 16-bit, and the compute dtype of the others */
        char ex[96] = "";
        size_t len = 0;
        for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
            if (m->ckpt_excluded >> i & 1u && len < sizeof ex) {
                int w = snprintf(ex + len, sizeof ex - len, "%s%s", len ? "," : "", catalog_ckpt_module_name(i));
                len += w > 0 ? (size_t)w : 0;
            }
        kv(t, "checkpoint_excluded", len ? ex : "-", "bf16 GEMMs");
        struct llmroof_dtypes own = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        enum llmroof_dtype low;
        const unsigned mods = ops_ckpt_lowp_modules(m, &own, &low);
        kv(t, "checkpoint_gemm_compute", mods ? dtype_name(low) : "bf16",
           mods ? "the other GEMMs, where the GPU has the path (else the activation dtype)" : "the other GEMMs (weight-only)");
    }
    if (m->has_params_published)
        kvn(t, "params_published", "%.3f", m->params_published / 1e9, "billion");
    kvn(t, "params_total", "%.3f", p.total / 1e9, "billion (derived)");
    kvn(t, "params_active", "%.3f", p.active / 1e9, "billion per token (derived)");
    kvn(t, "params_total_no_embedding", "%.3f", (p.total - p.embedding) / 1e9, "billion without the input embedding");
    kvn(t, "params_active_no_embedding", "%.3f", (p.active - p.embedding) / 1e9, "billion per token (derived)");
    kvn(t, "weight_bytes_fp16", "%.2f", p.total * 2.0 / 1e9, "GB (derived)");
    kvn(t, "kv_bytes_per_token_fp16", "%.0f", arch_kv_bytes_per_token(m, 2.0), "B (derived)");
    if (layers_patterned(m)) {
        /* the letters per layer are in the catalog entry (layer_pattern); the table keeps 100 columns */
        kvn(t, "attention_layers", "%.0f", (double)arch_attn_layers(m), "softmax attention (derived)");
        kvn(t, "linear_layers", "%.0f", (double)arch_linear_layers(m), "linear attention / SSM (derived)");
        kvn(t, "dense_mlp_layers", "%.0f", (double)arch_dense_layers(m), "(derived)");
        if (layers_dense_width(m, 0, m->layers) != (double)m->intermediate) /* NAS: per-layer widths */
            kvn(t, "dense_mlp_width_mean", "%.1f", layers_dense_width(m, 0, m->layers),
                "elements, over the dense layers (layer_pattern.ffn_widths)");
    }
    if (m->linear_kind != LLMROOF_LINEAR_NONE) {
        kv(t, "linear_kind", linear_kind_name(m->linear_kind), "");
        const bool m1 = m->linear_kind == LLMROOF_LINEAR_MAMBA1, m2 = m->linear_kind == LLMROOF_LINEAR_MAMBA2;
        kvn(t, "linear_heads", "%.0f", (double)m->lin_heads,
            m1 ? "d_inner channels (Mamba-1)" : m2 ? "SSM heads (Mamba-2)" : "value heads");
        kvn(t, "linear_key_heads", "%.0f", (double)m->lin_k_heads,
            m1 ? "dt_rank (Mamba-1)" : m2 ? "groups (Mamba-2)" : "key heads");
        kvn(t, "linear_key_dim", "%.0f", (double)m->lin_k_dim, m1 ? "state size N per channel" : "state rows per head");
        kvn(t, "linear_value_dim", "%.0f", (double)m->lin_v_dim, m1 ? "(1: a channel's state is a row)" : "state columns per head");
        if (m->lin_state_dtype_set)
            kv(t, "linear_state_dtype", dtype_name(m->lin_state_dtype), "the state's default dtype (--state-dtype overrides)");
        kvn(t, "state_bytes_per_seq_fp16", "%.0f", arch_state_elems_per_seq(m) * 2.0, "B at 16 bits, whatever the context (derived)");
    }
    if (m->dsa_top_k > 0) {
        kvn(t, "dsa_top_k", "%.0f", (double)m->dsa_top_k, "keys per query");
        kvn(t, "dsa_index_heads", "%.0f", (double)m->dsa_heads, "");
        kvn(t, "dsa_index_head_dim", "%.0f", (double)m->dsa_head_dim, "cached per token");
    }
    if (m->mtp_layers > 0)
        kvn(t, "mtp_layers", "%.0f", (double)m->mtp_layers, "multi-token-prediction modules (not counted)");
    if (m->attention_sinks)
        kv(t, "attention_sinks", "true", "one learned sink logit per head (kernels without sinks cannot run it)");
}

/* The names of an engine's architecture list, space-separated ("" when none). */
static void arch_list(char *buf, size_t cap, const char (*archs)[LLMROOF_ARCH_MAX], int n)
{
    buf[0] = '\0';
    for (int a = 0; a < n; a++) {
        size_t used = strlen(buf);
        snprintf(buf + used, cap - used, "%s%s", a ? " " : "", archs[a]);
    }
}

static void kvb(struct table *t, const char *field, bool v, const char *unit)
{
    kv(t, field, v ? "true" : "false", unit);
}

/* Every field of an engine profile as the loader read it; an absent scheduler field is shown
 * with the value the simulator takes instead (docs/catalog.md "Engines"). */
static void show_engine(struct table *t, const struct llmroof_engine *e)
{
    kv(t, "id", e->id, "");
    kv(t, "name", e->name, "");
    kv_aliases(t, (const char (*)[LLMROOF_ID_MAX])e->aliases, e->n_aliases);
    kvn(t, "step_overhead", "%.1f", e->step_overhead_s * 1e6, "us of CPU per step the GPU waits for");
    kvn(t, "tp_step_overhead", "%.1f", e->tp_step_overhead_s * 1e6,
        e->ray_workers ? "us more per step at any TP (a Ray call to every worker)" : "us more per step at TP > 1 (driver-to-worker calls)");
    kvb(t, "ray_workers", e->ray_workers, "every GPU a Ray actor called each step, even at TP 1");
    if (e->ray_output_token_s > 0)
        kvn(t, "ray_output_token", "%.1f", e->ray_output_token_s * 1e9,
            "ns of CPU per context token of each scheduled sequence a step, with --engine-use-ray");
    kvn(t, "first_token", "%.1f", e->first_token_s * 1e6, "us added to every TTFT");
    if (e->api_first_token_s > 0)
        kvn(t, "api_first_token", "%.1f", e->api_first_token_s * 1e6,
            "us more to a served request's TTFT: its API server (simulate, not --no-api-server)");
    if (e->api_prompt_token_s > 0)
        kvn(t, "api_prompt_token", "%.2f", e->api_prompt_token_s * 1e6,
            "us more per prompt token on that path (tokenising, hashing its blocks)");
    kvn(t, "compute_scale", "%.3f", e->compute_scale, "x the GPU's compute efficiency");
    kvn(t, "collective_latency", "%.2f", e->collective_latency_s * 1e6, "us added to each collective");
    kvb(t, "custom_allreduce", e->custom_allreduce, "one-shot/two-shot all-reduce kernels on NVLink/xGMI");
    /* which steps replay a graph (docs/model.md "CUDA-graph coverage"), as list engines' column */
    char cov[160];
    if (!e->cuda_graphs)
        snprintf(cov, sizeof cov, "no step: every kernel launched from the CPU");
    else if (e->graph_max_batch <= 0)
        snprintf(cov, sizeof cov, "every step replays a graph");
    else if (e->graph_piecewise)
        snprintf(cov, sizeof cov, "steps of up to %ld tokens, attention launched between the pieces", e->graph_max_batch);
    else if (e->graph_every_batch_to > 0)
        snprintf(cov, sizeof cov, "decode-only steps of every batch up to %ld sequences, then powers of two to %ld "
                                  "(no padding: a batch between them runs eager)",
                 e->graph_every_batch_to, e->graph_max_batch);
    else
        snprintf(cov, sizeof cov, "decode-only steps of up to %ld sequences", e->graph_max_batch);
    kvb(t, "cuda_graphs", e->cuda_graphs, cov);
    if (e->graph_max_batch > 0) {
        kvn(t, "graph_max_batch", "%.0f", (double)e->graph_max_batch, e->graph_piecewise ? "tokens" : "sequences");
        kvb(t, "graph_piecewise", e->graph_piecewise, "");
        if (e->graph_every_batch_to > 0)
            kvn(t, "graph_every_batch_to", "%.0f", (double)e->graph_every_batch_to,
                "sequences: every batch to it has a graph; above it the powers of two and graph_max_batch");
    }
    const bool all_graphed = e->cuda_graphs && e->graph_max_batch <= 0;
    kvn(t, "launch", "%.1f", all_graphed ? 0.0 : (e->launch_s > 0 ? e->launch_s : 4e-6) * 1e6,
        all_graphed ? "us per kernel launch (graphs replay every step)"
        : e->launch_s > 0 ? "us of CPU per kernel launch in a step no graph replays, at the reference host"
                          : "us per kernel launch in a step no graph replays (default), at the reference host");
    if (e->launch_mla_s > 0 && !all_graphed)
        kvn(t, "launch_mla", "%.1f", e->launch_mla_s * 1e6,
            "us of CPU per kernel launch in an MLA model's step no graph replays, at the reference host");
    kvn(t, "kernel_factor", "%.2f", e->kernel_factor > 0 ? e->kernel_factor : 1.0, "kernels launched per fused kernel ops.c declares");
    kv(t, "attention_kernel", attn_kernel_name(e->attention), "");
    kv(t, "act_quant", act_quant_name(e->act_quant),
       e->act_quant == LLMROOF_ACT_QUANT_FUSED      ? "8-bit GEMM inputs written by the kernels that produce them"
       : e->act_quant == LLMROOF_ACT_QUANT_NORM_ACT ? "8-bit GEMM inputs written by the norm and SiLU kernels; after attention and in the MoE op a kernel of its own"
                                                    : "a quantization kernel of its own before each 8-bit GEMM");
    kvb(t, "kv_per_query_head", e->kv_per_query_head, "decode attention reads K/V once per query head");
    kvb(t, "quantized_head", e->quantized_head,
        e->quantized_head ? "quantized weights include the embedding, LM head and MoE router"
                          : "below 16-bit weights the embedding, LM head and MoE router stay 16-bit");
    if (e->kv_heads_per_read > 0)
        kvn(t, "kv_heads_per_read", "%.0f", (double)e->kv_heads_per_read, "query heads decode attention serves per K/V read");
    else
        kv(t, "kv_heads_per_read", "-", e->kv_per_query_head ? "1: kv_per_query_head" : "the whole GQA group per K/V read");
    char archs[LLMROOF_ARCHS_MAX * LLMROOF_ARCH_MAX];
    arch_list(archs, sizeof archs, e->varlen_fa2_archs, e->n_varlen_fa2_archs);
    kv(t, "varlen_fa2_archs", archs[0] ? archs : "-",
       archs[0] ? "one FlashAttention-2 varlen call per layer: decodes beside a longer query read K/V per query head"
                : "no architecture runs attention as one FlashAttention-2 varlen call");
    arch_list(archs, sizeof archs, e->fa2_archs, e->n_fa2_archs);
    kv(t, "fa2_archs", archs[0] ? archs : "-",
       archs[0] ? "FlashAttention-2 kernels: windowed layers read K/V per query head"
                : "no other architecture runs FlashAttention-2's kernels");
    arch_list(archs, sizeof archs, e->moe_triton_archs, e->n_moe_triton_archs);
    kv(t, "moe_triton_archs", archs[0] ? archs : "-",
       archs[0] ? "8- and 16-bit MoE experts in Triton's fused-MoE kernel: dense streaming, 0.72 of the dense compute"
                : "MoE experts in other grouped kernels (the grouped streaming share)");
    arch_list(archs, sizeof archs, e->dsa_prefill_pad_archs, e->n_dsa_prefill_pad_archs);
    kv(t, "dsa_prefill_pad_archs", archs[0] ? archs : "-",
       archs[0] ? "DSA prompts in FlashMLA's sparse kernel: query heads padded, each query's whole top-k computed"
                : "no architecture pads a DSA prompt's heads apart from its decodes");
    kvb(t, "fp8_kv_per_query_head", e->fp8_kv_per_query_head,
        "an 8-bit K/V cache on an fa2_archs GPU decodes per query head (no FA2 kernel reads it)");
    kvb(t, "cuda_core_decode", e->cuda_core_decode,
        e->cuda_core_decode ? "decode attention: masked-MHA kernel, one block per query head, fp32 on CUDA cores"
                            : "decode attention on the attention kernel's bandwidth and tensor-core rate");
    kvb(t, "fp8_attention", e->fp8_attention, "attention at the fp8 peak with fp8 activations and an 8-bit K/V cache");
    kvb(t, "fp16_accumulate", e->fp16_accumulate, "GEMMs accumulate in fp16");
    kvb(t, "first_token_decode", e->first_token_decode, "TTFT = prefill + one decode step");
    if (e->dequant_min_tokens > 0)
        kvn(t, "dequant_min_tokens", "%.0f", e->dequant_min_tokens, "tokens per step from which weights are dequantized to 16 bits");
    else
        kv(t, "dequant_min_tokens", "-", "weight-only formats dequantized inside the GEMM");
    kvb(t, "logits_all_tokens", e->logits_all_tokens, "a prompt's LM head runs over every token, not the last");
    kvb(t, "kv_copy", e->kv_copy, "one contiguous KV tensor, copied every decode step: half the pool");
    if (e->prompt_ubatch_tokens > 0)
        kvn(t, "prompt_ubatch_tokens", "%.0f", e->prompt_ubatch_tokens, "a batch runs in forward passes of at most this many tokens");
    else
        kv(t, "prompt_ubatch_tokens", "-", "a batch runs in one forward pass");
    if (e->mmq_share > 0)
        kvn(t, "mmq_share", "%.3f", e->mmq_share,
            "x the int8 peak: weight-only GEMMs above 8 tokens on int8 tensor cores (llama.cpp MMQ)");
    if (e->wo_issue_per_flop > 0)
        kvn(t, "wo_issue_per_flop", "%.2f", e->wo_issue_per_flop,
            "CUDA-core instruction slots per tensor FLOP unpacking weight-only formats in the fused GEMM");
    /* the serving scheduler: what simulate and plan run with this profile */
    kv(t, "admission", e->admit_no_evict ? "no-evict" : e->admit_reserve ? "reserve" : e->admit_wait ? "wait" : "optimistic",
       e->admit_no_evict  ? "admit when the prompt + max output KV fits"
       : e->admit_reserve ? "admit when prompt + output fit beside the running outputs at the new-token ratio"
       : e->admit_wait    ? "admit; a sequence short of a KV block waits, a step that runs nothing recomputes all"
                          : "admit, preempt when KV blocks run out");
    if (e->kv_block_tokens > 0)
        kvn(t, "kv_block_tokens", "%.0f", (double)e->kv_block_tokens, "tokens per KV block in simulate (default 16)");
    if (e->mem_util > 0)
        kvn(t, "mem_util", "%.2f", e->mem_util,
            e->kv_of_free_memory ? "the KV cache's share of the memory weights, workspace and reserve leave"
            : e->mem_static      ? "weights and KV's share of the device where no band's reserve or mem_util_by_tp applies"
                                 : "share of device memory the engine takes in simulate (default 0.90)");
    if (e->has_reserve)
        kvn(t, "reserve_bytes", "%.0f", e->reserve_bytes, "memory outside the KV pool beside weights and workspace");
    kvb(t, "mem_static", e->mem_static,
        "mem_util covers weights and the KV pool only (SGLang's mem_fraction_static): no workspace or reserve beside");
    for (int i = 0; i < e->n_util_by_tp; i++) {
        char field[48];
        snprintf(field, sizeof field, "mem_util_by_tp[%d]", i);
        char why[64];
        snprintf(why, sizeof why, "the default fraction from %d GPUs an instance", e->util_by_tp[i].from_tp);
        kvn(t, field, "%.2f", e->util_by_tp[i].mem_util, why);
    }
    if (e->mem_reserve_spec_MiB > 0)
        kvn(t, "mem_reserve_spec_MiB", "%.0f", e->mem_reserve_spec_MiB, "MiB more of a band's reserve under speculation");
    if (e->mem_reserve_dp_attention_MiB > 0)
        kvn(t, "mem_reserve_dp_attention_MiB", "%.0f", e->mem_reserve_dp_attention_MiB,
            "MiB more of a band's reserve with data-parallel attention");
    {
        /* the simulator's default of 256 is capped at the runtime's ceiling (sim.c) */
        const long seqs = e->max_seqs > 0 ? e->max_seqs : 256;
        const bool capped = e->max_batch > 0 && seqs > e->max_batch;
        kvn(t, "max_seqs", "%.0f", (double)(capped ? e->max_batch : seqs),
            capped ? "running sequences at most (the default, capped at max_batch)"
            : e->max_seqs > 0 ? "running sequences at most" : "running sequences at most (default)");
    }
    if (e->spec_max_seqs > 0)
        kvn(t, "spec_max_seqs", "%.0f", (double)e->spec_max_seqs,
            "running sequences at most under speculative decoding, unless --max-seqs is given");
    kvn(t, "max_batched_tokens", "%.0f", (double)(e->max_batched_tokens > 0 ? e->max_batched_tokens : 2048),
        e->max_batched_tokens > 0 ? "tokens per iteration" : "tokens per iteration (default)");
    if (e->max_batch > 0)
        kvn(t, "max_batch", "%.0f", (double)e->max_batch, "sequences at once whatever its flags (a larger batch is refused)");
    if (e->max_gpus > 0)
        kvn(t, "max_gpus", "%.0f", (double)e->max_gpus, "GPUs an instance runs on at most (a larger layout is refused)");
    if (e->large_gpu_max_seqs > 0)
        kvn(t, "large_gpu_max_seqs", "%.0f", (double)e->large_gpu_max_seqs, "on GPUs of >= 70 GiB other than the A100");
    if (e->large_gpu_max_batched_tokens > 0)
        kvn(t, "large_gpu_max_batched_tokens", "%.0f", (double)e->large_gpu_max_batched_tokens, "on GPUs of >= 70 GiB other than the A100");
    if (e->offline_max_batched_tokens > 0)
        kvn(t, "offline_max_batched_tokens", "%.0f", (double)e->offline_max_batched_tokens, "tokens per iteration through the engine's own API (--no-api-server)");
    if (e->offline_large_gpu_max_batched_tokens > 0)
        kvn(t, "offline_large_gpu_max_batched_tokens", "%.0f", (double)e->offline_large_gpu_max_batched_tokens, "the same on GPUs of >= 70 GiB other than the A100");
    if (e->offline_sizing == LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH)
        kv(t, "offline_sizing", "trtllm-bench",
           "--no-api-server: trtllm-bench's max_batch_size and max_num_tokens from the workload (PyTorch backend)");
    else if (e->offline_sizing == LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH_ENGINE)
        kv(t, "offline_sizing", "trtllm-bench-engine",
           "--no-api-server: trtllm-bench's max_batch_size and max_num_tokens from the workload, chunked context");
    kvb(t, "budget_min_context", e->budget_min_context,
        e->budget_min_context ? "token budget raised to the served context (--max-model-len, else the model's)"
                              : "token budget as above, whatever the context");
    kvb(t, "chunked_prefill", !e->whole_prefill, e->whole_prefill ? "prompts prefilled whole" : "prompts split across iterations within the budget");
    kvb(t, "static_batching", e->static_batching,
        e->static_batching ? "a batch starts when the last one has finished (no continuous batching)" : "continuous batching");
    kvb(t, "prefill_first", e->prefill_first, e->prefill_first ? "prompt-only iterations stall the decodes" : "running decodes first");
    kvb(t, "prompt_within_budget", e->prompt_within_budget,
        e->prompt_within_budget ? "without chunked prefill a prompt above the token budget is refused"
                                : "without chunked prefill a prompt above the token budget runs alone");
    kvb(t, "dp_rank_scheduler", e->dp_rank_scheduler,
        e->dp_rank_scheduler ? "budget and sequence limit per data-parallel attention rank" : "the instance's budget and limit, each rank its share");
    if (e->chunked_prefill_min_context > 0) {
        kvn(t, "chunked_prefill_min_context", "%.0f", (double)e->chunked_prefill_min_context, "tokens of context above which chunking turns on");
        kvn(t, "chunked_max_batched_tokens", "%.0f",
            (double)(e->chunked_max_batched_tokens > 0 ? e->chunked_max_batched_tokens : e->max_batched_tokens > 0 ? e->max_batched_tokens : 2048),
            "tokens per iteration when it does");
    }
    if (e->waiting_served_ratio > 0) {
        kvn(t, "waiting_served_ratio", "%.2f", e->waiting_served_ratio, "waiting / running requests before a new batch joins");
        kvn(t, "max_waiting_steps", "%.0f", (double)e->max_waiting_steps, "iterations after which any waiting request joins");
    }
    if (e->max_paddings > 0)
        kvn(t, "max_paddings", "%.0f", (double)e->max_paddings,
            "padding tokens a prompt iteration may hold (prompts padded to the longest)");
    kvb(t, "max_paddings_option", e->max_paddings_option,
        "takes vLLM 0.2.1-0.3's --max-paddings (simulate --max-paddings)");
    kvb(t, "multi_step_scheduling", e->multi_step_scheduling,
        "takes vLLM 0.6-0.10's --num-scheduler-steps (simulate --scheduler-steps)");
    kvb(t, "recv_interval_option", e->recv_interval_option,
        "takes SGLang's --scheduler-recv-interval (simulate --recv-interval)");
    kvn(t, "cpu_seq", "%.1f", e->cpu_seq_s * 1e6, "us of scheduling per running sequence per iteration");
    if (e->worker_seq_s > 0)
        kvn(t, "worker_seq", "%.1f", e->worker_seq_s * 1e6, "us more per sequence per Ray worker (multi-GPU instances)");
    kvn(t, "cpu_overlap", "%.2f", e->cpu_overlap, "share of it hidden under the GPU step");
    kvn(t, "cpu_output", "%.1f", e->cpu_output_s * 1e6, "us of output processing per sequence per iteration");
    kvn(t, "cpu_output_overlap", "%.2f", e->cpu_output_overlap, "share of it hidden under the GPU step");
    kvn(t, "api_stream", "%.1f", e->api_stream_s * 1e6, "us of API server per streamed chunk");
    kvn(t, "api_overlap", "%.2f", e->api_overlap, "share of it off the engine's step");
    if (e->kv_watermark > 0)
        kvn(t, "kv_watermark", "%.2f", e->kv_watermark, "share of KV blocks an admission leaves free");
    char methods[64] = "";
    for (int b = 0; b < 5; b++)
        if (e->spec_methods & (1u << b)) {
            const size_t n = strlen(methods);
            snprintf(methods + n, sizeof methods - n, "%s%s", n ? " " : "", llmroof_spec_method_names[b]);
        }
    kv(t, "spec_methods", e->spec_methods_stated ? (methods[0] ? methods : "none") : "-",
       e->spec_methods_stated ? "the speculative-decoding methods --spec may name with this engine"
                              : "not stated: --spec takes any method");
    kvb(t, "spec_no_overlap", e->spec_no_overlap, "speculative decoding turns the CPU overlap off");
    kvb(t, "spec_draft_graph", e->spec_draft_graph, "the drafter's passes replay as one CUDA graph: no step overhead each");
    kvb(t, "pd_decode_first_token", e->pd_decode_first_token,
        "disaggregated: the first token comes from the decode instance (TTFT includes the hand-over)");
    if (e->pd_decode_first_token)
        kvb(t, "pd_decode_resample", e->pd_decode_resample,
            "disaggregated: the decode instance samples the first token again, one step per output token");
    if (e->pd_decode_prealloc) /* (said where set: the other profiles' P/D is unchanged by it) */
        kvb(t, "pd_decode_prealloc", e->pd_decode_prealloc,
        "disaggregated: the decode instance takes a request's KV on arrival, before its prefill runs");
    if (e->pd_decode_reserve_tokens > 0)
        kvn(t, "pd_decode_reserve_tokens", "%.0f", (double)e->pd_decode_reserve_tokens,
            "disaggregated: KV tokens kept free per request the decode server holds before it takes another");
    if (e->max_concurrent_requests > 0)
        kvn(t, "max_concurrent_requests", "%.0f", (double)e->max_concurrent_requests,
            "requests in flight per instance, queued and running; one more is refused (HTTP 429)");
    kvb(t, "disaggregation", e->disaggregation, "serves disaggregated prefill and decode pools (--prefill-pool)");
    kvb(t, "dp_attention", e->dp_attention, "runs data-parallel attention beside expert parallelism (--dp-attention)");
    kvb(t, "expert_parallel", e->expert_parallel, "splits a MoE's experts over ranks (--ep)");
    kvb(t, "moe_gemv", e->moe_gemv,
        e->moe_gemv ? "MoE experts at a few tokens as matrix-vector products (one token at the dense rate)"
                    : "MoE experts in tile-padded grouped GEMMs (the grouped share at any token count)");
    kvb(t, "moe_tp_shared_local", e->moe_tp_shared_local,
        e->moe_tp_shared_local ? "--moe-tp: shared experts and dense layers on each replica's tokens"
                               : "--moe-tp: shared experts and dense layers gathered with the routed experts");
    kvb(t, "dp_lm_head_split", e->dp_lm_head_split,
        e->dp_lm_head_split ? "--dp-attention: the LM head split over every GPU of the stage"
                            : "--dp-attention: each replica's own LM head");
    kvb(t, "ssm_state_fp32", e->ssm_state_fp32,
        e->ssm_state_fp32 ? "SSM state in fp32 unless the model or --state-dtype says otherwise, conv window bf16"
                          : "recurrent state at the model's 16-bit dtype unless the model or --state-dtype says otherwise");
    kvb(t, "spec_state_per_token", e->spec_state_per_token,
        e->spec_state_per_token ? "speculation: a recurrent state for every verified token (draft positions + 1)"
                                : "speculation: a recurrent state per draft position");
    kvb(t, "cuda_only", e->cuda_only, e->cuda_only ? "CUDA kernels only: runs on no AMD GPU" : "runs on NVIDIA and AMD GPUs");
    kvb(t, "pd_kv_full_window", e->pd_kv_full_window,
        "disaggregated: pools hold and send every layer's whole context, windowed ones too");
    kvb(t, "dsa_flashmla_pad", e->dsa_flashmla_pad,
        "DSA attention in FlashMLA's sparse kernels: query heads padded, each query's whole top-k computed");
    kvb(t, "dsa_dense_short_prefill", e->dsa_dense_short_prefill,
        "DSA prompts of at most top-k keys run dense MLA, the indexer unscored");
    /* the JSON has these two; the table left them out, so `show engine sglang` hid why its budget
     * and graph limit differ by GPU */
    kvb(t, "prefix_cache", e->prefix_cache, "automatic prefix caching on by default (a shared prefix is reused)");
    for (int i = 0; i < e->n_mem_tiers; i++) {
        const struct llmroof_mem_tier *m = &e->mem_tiers[i];
        char field[48], band[64], val[160];
        snprintf(field, sizeof field, "gpu_memory_tiers[%d]", i);
        if (m->from_MiB > 0 && m->below_MiB > 0)
            snprintf(band, sizeof band, "%.0f-%.0f MiB", m->from_MiB, m->below_MiB);
        else if (m->below_MiB > 0)
            snprintf(band, sizeof band, "below %.0f MiB", m->below_MiB);
        else
            snprintf(band, sizeof band, "from %.0f MiB", m->from_MiB);
        int n = snprintf(val, sizeof val, "%s", band);
        if (m->max_batched_tokens > 0 && n < (int)sizeof val)
            n += snprintf(val + n, sizeof val - (size_t)n, ": budget %ld tokens", m->max_batched_tokens);
        if (m->graph_max_batch > 0 && n < (int)sizeof val)
            n += snprintf(val + n, sizeof val - (size_t)n, "%s graphs to %ld", m->max_batched_tokens > 0 ? "," : ":",
                          m->graph_max_batch);
        if (m->graph_max_batch_tp4 > 0 && n < (int)sizeof val)
            n += snprintf(val + n, sizeof val - (size_t)n, " (%ld at TP >= 4)", m->graph_max_batch_tp4);
        if (m->mem_reserve_MiB > 0 && n < (int)sizeof val)
            snprintf(val + n, sizeof val - (size_t)n, "%s reserve %.6g MiB + %.6g a GPU", n > (int)strlen(band) ? "," : ":",
                     m->mem_reserve_MiB, m->mem_reserve_per_gpu_MiB);
        kv(t, field, val, "defaults on a GPU of this memory (as nvidia-smi reports it)");
    }
}

int cmd_show(struct cli *c, int argc, char **argv)
{
    char *pos[2];
    int npos = 0;
    c->usage = "llmroof show gpu|model|engine NAME [--format FMT]";
    c->positionals = "show takes a kind and a NAME";
    int rc = cli_parse(c, argc, argv, NULL, 0, NULL, NULL, pos, 2, &npos,
                       "Shows every catalog field of one GPU, model or engine profile and the figures derived\n"
                       "from them (parameter count, fp16 weight bytes, KV bytes per token, ridge points; for an\n"
                       "engine, the scheduler values the simulator takes where the profile names none).");
    if (rc)
        return rc;
    if (npos == 1 && strcmp(pos[0], "gpu") != 0 && strcmp(pos[0], "model") != 0 && strcmp(pos[0], "engine") != 0) {
        /* a bare name ("show h100"): say which kind it is, as the command to type */
        if ((rc = cli_catalog(c)))
            return rc;
        const char *kind = catalog_find_gpu(&c->cat, pos[0])       ? "gpu"
                           : catalog_find_model(&c->cat, pos[0])  ? "model"
                           : catalog_find_engine(&c->cat, pos[0]) ? "engine"
                                                                  : NULL;
        if (kind)
            return cli_usage_error(c, "expected 'gpu NAME', 'model NAME' or 'engine NAME' ('%s' is a catalog %s: "
                                      "llmroof show %s %s)", CLI_CLIP(pos[0]), kind, kind, CLI_CLIP(pos[0]));
    }
    if (npos != 2)
        return cli_usage_error(c, "expected 'gpu NAME', 'model NAME' or 'engine NAME'");
    const int kind = strcmp(pos[0], "gpu") == 0 ? 0 : strcmp(pos[0], "model") == 0 ? 1 : strcmp(pos[0], "engine") == 0 ? 2 : -1;
    if (kind < 0)
        return cli_usage_error(c, "unknown kind '%s' (expected 'gpu', 'model' or 'engine')", CLI_CLIP(pos[0]));
    if ((rc = cli_catalog(c)))
        return rc;
    const struct llmroof_gpu *g = NULL;
    const struct llmroof_model *m = NULL;
    const struct llmroof_engine *e = NULL;
    if (kind == 0 ? !(g = cli_gpu(c, pos[1])) : kind == 1 ? !(m = cli_model(c, pos[1])) : !(e = cli_engine(c, pos[1])))
        return 2;
    if (c->format == TABLE_JSON) {
        /* an engine as the catalog writer spells it: the object engines.json holds */
        char *j = kind == 0 ? render_json_show_gpu(g) : kind == 1 ? render_json_show_model(m) : render_json_engines(e, 1);
        if (!j)
            return 1;
        sbuf_append(&c->out, j);
        free(j);
        return 0;
    }
    struct table t;
    table_init(&t, "");
    table_col(&t, "field", 0);
    table_col(&t, "value", 0);
    table_col(&t, "unit", 0);
    if (kind == 0)
        show_gpu(&t, g);
    else if (kind == 1)
        show_model(&t, m);
    else
        show_engine(&t, e);
    /* the source is prose: in text and Markdown it goes under the table, wrapped to 100
     * columns, so the table stays as narrow as its fields; CSV keeps it as the last row */
    const char *src = kind == 0 ? g->source : kind == 1 ? m->source : e->source;
    if (!cli_prose(c))
        kv(&t, "source", src, "");
    /* text: the values' and units' prose wrapped within the terminal's width, so the values and
     * their units read side by side (the table had printed in two parts 45 rows apart, the values
     * without their units: a review read kernel_s 3.0 as seconds; an engine's memory tiers are
     * prose values); Markdown prints it whole, its viewers wrapping the prose */
    if (c->format == TABLE_TEXT) {
        struct table folded;
        table_fold(&t, CLI_TEXT_WIDTH, 1, &folded);
        table_free(&t);
        t = folded;
    }
    cli_table_whole(c, "fields", &t);
    table_free(&t);
    if (cli_prose(c)) {
        sbuf_append(&c->out, "\n");
        table_wrap(&c->out, c->format == TABLE_MD ? "**source:** " : "source: ", src, 100, 8);
    }
    return 0;
}
