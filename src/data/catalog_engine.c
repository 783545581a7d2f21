/* catalog_engine.c - engine profiles: parsed with their ranges, memory tiers and per-TP
 * settings, loaded, looked up by id, alias or release, and the questions asked of them
 * (docs/catalog.md). */
#include "data/catalog_internal.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* Engines                                                                  */
/* ------------------------------------------------------------------------ */

/* In enum order; NULL-terminated for json_get_choice. */
static const char *const attn_kernel_names[] = { "flash2", "flash3", "eager", "eager-prefill", NULL };
static const char *const act_quant_names[] = { "separate", "norm-act", "fused", NULL };

const char *attn_kernel_name(enum llmroof_attn_kernel k)
{
    return k >= LLMROOF_ATTN_FLASH2 && k <= LLMROOF_ATTN_EAGER_PREFILL ? attn_kernel_names[k] : "?";
}

const char *act_quant_name(enum llmroof_act_quant q)
{
    return q >= LLMROOF_ACT_QUANT_SEPARATE && q <= LLMROOF_ACT_QUANT_FUSED ? act_quant_names[q] : "?";
}

/* "gpu_memory_tiers": the engine's defaults by the GPU's memory (struct llmroof_mem_tier). Each
 * band is an object with from_MiB and/or below_MiB (MiB as nvidia-smi reports memory, SGLang's
 * unit: up to 16 TiB) and at least one of max_batched_tokens, graph_max_batch, graph_max_batch_tp4
 * within the bounds of the profile's own fields; the graph limits need "cuda_graphs": true, and
 * bands may not overlap (a GPU takes one band's defaults). */
static int parse_mem_tiers(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const tier_fields[] = { "from_MiB", "below_MiB", "max_batched_tokens", "graph_max_batch",
                                               "graph_max_batch_tp4", "mem_reserve_MiB", "mem_reserve_per_gpu_MiB",
                                               NULL };
    const cJSON *va = json_item(e, "gpu_memory_tiers");
    g->n_mem_tiers = 0;
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va) || !va->child)
        return json_ferr(c, "gpu_memory_tiers", "must be a non-empty array of objects, each a band of GPU memory "
                                                "(from_MiB and/or below_MiB) and the defaults on such GPUs");
    for (const cJSON *t = va->child; t; t = t->next) {
        const int i = g->n_mem_tiers;
        if (i == LLMROOF_MEM_TIERS_MAX)
            return json_ferr(c, "gpu_memory_tiers", "has more than %d bands", LLMROOF_MEM_TIERS_MAX);
        char band[32], path[40]; /* "gpu_memory_tiers[1]", and the prefix of its members' names */
        snprintf(band, sizeof band, "gpu_memory_tiers[%d]", i);
        snprintf(path, sizeof path, "%s.", band);
        if (!cJSON_IsObject(t))
            return json_ferr(c, band, "must be an object: a band of GPU memory (from_MiB and/or below_MiB) and the "
                                      "defaults on such GPUs");
        struct llmroof_mem_tier *m = &g->mem_tiers[i];
        bool has_from = false, has_below = false, has_mbt = false, has_gmb = false, has_gmb4 = false, has_res = false,
             has_res_gpu = false;
        c->path = path; /* messages name the members "gpu_memory_tiers[1].below_MiB"; reset below */
        int rc = json_check_known(c, t, path, tier_fields);
        if (!rc)
            rc = json_get_number(c, t, "from_MiB", "from_MiB", false, 0, true, 16777216, &m->from_MiB, &has_from);
        if (!rc)
            rc = json_get_number(c, t, "below_MiB", "below_MiB", false, 0, true, 16777216, &m->below_MiB, &has_below);
        if (!rc)
            rc = json_get_long(c, t, "max_batched_tokens", false, 16, 10000000, &m->max_batched_tokens, &has_mbt);
        if (!rc)
            rc = json_get_long(c, t, "graph_max_batch", false, 1, 65536, &m->graph_max_batch, &has_gmb);
        if (!rc)
            rc = json_get_long(c, t, "graph_max_batch_tp4", false, 1, 65536, &m->graph_max_batch_tp4, &has_gmb4);
        if (!rc)
            rc = json_get_number(c, t, "mem_reserve_MiB", "mem_reserve_MiB", false, 0, true, 16777216, &m->mem_reserve_MiB,
                                 &has_res);
        if (!rc)
            rc = json_get_number(c, t, "mem_reserve_per_gpu_MiB", "mem_reserve_per_gpu_MiB", false, 0, false, 65536,
                                 &m->mem_reserve_per_gpu_MiB, &has_res_gpu);
        c->path = NULL; /* path is this loop's: no message may read it later */
        if (rc)
            return rc;
        if (!has_from && !has_below)
            return json_ferr(c, band, "needs from_MiB or below_MiB (the band of GPU memory, in MiB)");
        if (has_from && has_below && !(m->from_MiB < m->below_MiB))
            return json_ferr(c, band, "has below_MiB %g not above from_MiB %g: the band is empty", m->below_MiB,
                             m->from_MiB);
        if (!has_mbt && !has_gmb && !has_gmb4 && !has_res)
            return json_ferr(c, band, "needs max_batched_tokens, graph_max_batch, graph_max_batch_tp4 or "
                                      "mem_reserve_MiB (what the band changes)");
        if (has_res_gpu && !has_res)
            return json_ferr(c, band, "states mem_reserve_per_gpu_MiB without mem_reserve_MiB (the reserve it adds to)");
        if (has_res && has_below && !(m->mem_reserve_MiB < m->below_MiB))
            return json_ferr(c, band, "has mem_reserve_MiB %g not below below_MiB %g: no memory would be left",
                             m->mem_reserve_MiB, m->below_MiB);
        if ((has_gmb || has_gmb4) && (!g->cuda_graphs || g->graph_piecewise))
            return json_ferr(c, band, "states graph_max_batch%s, which needs \"cuda_graphs\": true without "
                                      "\"graph_piecewise\" (a decode batch's sequences)", has_gmb ? "" : "_tp4");
        /* [lo, hi), an open side 0 .. infinity: two bands overlap when each starts below the other's end */
        const double lo = m->from_MiB, hi = has_below ? m->below_MiB : INFINITY;
        for (int k = 0; k < i; k++) {
            const struct llmroof_mem_tier *o = &g->mem_tiers[k];
            const double olo = o->from_MiB, ohi = o->below_MiB > 0 ? o->below_MiB : INFINITY;
            if (lo < ohi && olo < hi)
                return json_ferr(c, band, "overlaps gpu_memory_tiers[%d]: a GPU's memory must fall in one band", k);
        }
        g->n_mem_tiers++;
    }
    return LLMROOF_OK;
}

const struct llmroof_mem_tier *catalog_engine_tier(const struct llmroof_engine *en, double memory_bytes)
{
    if (!en)
        return NULL;
    const double mib = memory_bytes / 1048576.0;
    for (int i = 0; i < en->n_mem_tiers; i++) {
        const struct llmroof_mem_tier *m = &en->mem_tiers[i];
        if (mib >= m->from_MiB && (!(m->below_MiB > 0) || mib < m->below_MiB))
            return m;
    }
    return NULL;
}

bool catalog_engine_mem_util_varies(const struct llmroof_engine *en)
{
    if (!en)
        return false;
    if (en->n_util_by_tp > 0)
        return true;
    for (int i = 0; i < en->n_mem_tiers; i++)
        if (en->mem_tiers[i].mem_reserve_MiB > 0)
            return true;
    return false;
}

bool catalog_gpu_is_amd(const struct llmroof_gpu *g)
{
    return strncmp(g->arch, "gfx", 3) == 0;
}

bool catalog_engine_runs_on(const struct llmroof_engine *en, const struct llmroof_gpu *g)
{
    return !(en && g && en->cuda_only && catalog_gpu_is_amd(g));
}

double catalog_engine_mem_util(const struct llmroof_engine *en, const struct llmroof_gpu *g, int gpus, bool spec,
                               bool dp_attention)
{
    if (!en)
        return 0;
    const struct llmroof_mem_tier *t = g ? catalog_engine_tier(en, g->memory_bytes) : NULL;
    if (t && t->mem_reserve_MiB > 0) {
        /* SGLang 0.4.7-0.5.2 (server_args.py, PR #7054): reserved_mem by the memory nvidia-smi
         * reports, for activations and CUDA-graph buffers; mem_fraction_static = round((gpu_mem -
         * reserved_mem) / gpu_mem, 3). H100 (81,920 MiB here) at TP 1: (9.5 + 1/2) GiB = 10,240 MiB,
         * 0.875 */
        const double mib = g->memory_bytes / 1048576.0;
        const double r = t->mem_reserve_MiB + t->mem_reserve_per_gpu_MiB * (double)(gpus > 0 ? gpus : 1) +
                         (spec ? en->mem_reserve_spec_MiB : 0.0) + (dp_attention ? en->mem_reserve_dp_attention_MiB : 0.0);
        const double f = round((mib - r) / mib * 1000.0) / 1000.0;
        return f >= 0.001 ? f : 0.001; /* a reserve past the memory leaves nothing: memory says it does not fit */
    }
    double u = en->mem_util;
    int best = 0;
    for (int i = 0; i < en->n_util_by_tp; i++)
        if (en->util_by_tp[i].from_tp <= gpus && en->util_by_tp[i].from_tp > best) {
            best = en->util_by_tp[i].from_tp;
            u = en->util_by_tp[i].mem_util;
        }
    return u;
}

/* "mem_util_by_tp": [{"from_tp": N, "mem_util": F}, ...], the default fraction for instances of
 * at least N GPUs (SGLang <= 0.4.6: 0.87 from TP 2, 0.85 from 4, 0.81 from 8, 0.79 from 16). */
static int parse_util_by_tp(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const fields[] = { "from_tp", "mem_util", NULL };
    const cJSON *va = json_item(e, "mem_util_by_tp");
    g->n_util_by_tp = 0;
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va) || !va->child)
        return json_ferr(c, "mem_util_by_tp", "must be a non-empty array of objects {\"from_tp\": N, \"mem_util\": F}");
    for (const cJSON *t = va->child; t; t = t->next) {
        const int i = g->n_util_by_tp;
        if (i == LLMROOF_MEM_TIERS_MAX)
            return json_ferr(c, "mem_util_by_tp", "has more than %d entries", LLMROOF_MEM_TIERS_MAX);
        char item[32], path[40];
        snprintf(item, sizeof item, "mem_util_by_tp[%d]", i);
        snprintf(path, sizeof path, "%s.", item);
        if (!cJSON_IsObject(t))
            return json_ferr(c, item, "must be an object {\"from_tp\": N, \"mem_util\": F}");
        long from = 0;
        bool has_from = false, has_util = false;
        c->path = path;
        int rc = json_check_known(c, t, path, fields);
        if (!rc)
            rc = json_get_long(c, t, "from_tp", false, 1, 65536, &from, &has_from);
        if (!rc)
            rc = json_get_number(c, t, "mem_util", "mem_util", false, 0.05, false, 1, &g->util_by_tp[i].mem_util,
                                 &has_util);
        c->path = NULL;
        if (rc)
            return rc;
        if (!has_from || !has_util)
            return json_ferr(c, item, "needs both from_tp (GPUs of the instance) and mem_util (the fraction)");
        for (int k = 0; k < i; k++)
            if (g->util_by_tp[k].from_tp == (int)from)
                return json_ferr(c, item, "repeats from_tp %ld of mem_util_by_tp[%d]", from, k);
        g->util_by_tp[i].from_tp = (int)from;
        g->n_util_by_tp++;
    }
    return LLMROOF_OK;
}

const char *const llmroof_spec_method_names[5] = { "draft", "medusa", "eagle", "eagle3", "mtp" };

/* "spec_methods": the speculative-decoding methods the profile's releases run, each once, of
 * llmroof_spec_method_names; [] states none, absent states nothing (--spec unchecked). */
static int parse_spec_methods(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    const cJSON *va = json_item(e, "spec_methods");
    g->spec_methods = 0;
    g->spec_methods_stated = va != NULL;
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va))
        return json_ferr(c, "spec_methods", "must be an array of method names (\"draft\", \"medusa\", \"eagle\", "
                                            "\"eagle3\", \"mtp\")");
    for (const cJSON *a = va->child; a; a = a->next) {
        int bit = -1;
        for (int i = 0; i < 5 && cJSON_IsString(a) && a->valuestring; i++)
            if (!strcmp(a->valuestring, llmroof_spec_method_names[i]))
                bit = i;
        if (bit < 0)
            return json_ferr(c, "spec_methods", "entries must be \"draft\", \"medusa\", \"eagle\", \"eagle3\" or "
                                                "\"mtp\" (got %s%.32s%s)", cJSON_IsString(a) ? "\"" : "",
                             cJSON_IsString(a) && a->valuestring ? a->valuestring : "a non-string",
                             cJSON_IsString(a) ? "\"" : "");
        if (g->spec_methods & (1u << bit))
            return json_ferr(c, "spec_methods", "names \"%s\" twice", llmroof_spec_method_names[bit]);
        g->spec_methods |= 1u << bit;
    }
    return LLMROOF_OK;
}

static int parse_engine(struct json_ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const fields[] = { "id", "name", "aliases", "step_overhead_s", "first_token_s", "api_first_token_s", "api_prompt_token_s", "compute_scale",
                                          "waiting_served_ratio", "max_waiting_steps", "max_paddings",
                                          "max_paddings_option", "multi_step_scheduling", "recv_interval_option",
                                          "collective_latency_s", "cuda_graphs", "launch_s", "launch_mla_s", "kernel_factor",
                                          "kv_per_query_head", "quantized_head", "fp8_kv_per_query_head", "cuda_core_decode", "fp8_attention",
                                          "fp16_accumulate", "attention_kernel", "act_quant",
                                          "dequant_min_tokens", "prompt_ubatch_tokens", "logits_all_tokens", "kv_copy", "mmq_share", "wo_issue_per_flop", "custom_allreduce", "dsa_flashmla_pad", "dsa_dense_short_prefill", "first_token_decode",
                                          "cpu_seq_s", "worker_seq_s", "cpu_overlap", "admission", "max_seqs", "spec_max_seqs", "max_batch", "max_gpus", "max_batched_tokens",
                                          "kv_block_tokens", "mem_util", "reserve_bytes", "kv_of_free_memory",
                                          "mem_static", "mem_reserve_spec_MiB", "mem_reserve_dp_attention_MiB",
                                          "mem_util_by_tp",
                                          "cpu_output_s", "cpu_output_overlap", "api_stream_s", "api_overlap", "kv_watermark",
                                          "large_gpu_max_seqs", "large_gpu_max_batched_tokens", "offline_max_batched_tokens",
                                          "offline_large_gpu_max_batched_tokens", "offline_sizing", "budget_min_context",
                                          "chunked_prefill_min_context", "chunked_max_batched_tokens",
                                          "chunked_prefill", "prefill_first", "static_batching", "spec_no_overlap", "spec_draft_graph", "spec_methods", "pd_decode_first_token", "pd_decode_resample", "pd_decode_prealloc", "pd_kv_full_window", "max_concurrent_requests", "pd_decode_reserve_tokens", "disaggregation", "tp_step_overhead_s",
                                          "prefix_cache", "gpu_memory_tiers",
                                          "graph_max_batch", "graph_piecewise", "graph_every_batch_to", "dp_rank_scheduler", "prompt_within_budget", "dp_attention", "expert_parallel", "moe_tp_shared_local", "moe_gemv", "dp_lm_head_split", "spec_state_per_token", "ssm_state_fp32", "cuda_only", "kv_heads_per_read", "ray_workers", "ray_output_token_s",
                                          "varlen_fa2_archs", "fa2_archs", "moe_triton_archs", "dsa_prefill_pad_archs", "source", NULL };
    static const char *const admissions[] = { "optimistic", "no-evict", "reserve", "wait", NULL };
    int rc;
    memset(g, 0, sizeof *g);
    g->disaggregation = true; /* an engine serves P/D pools unless its profile says it does not */
    g->dp_attention = true;   /* and runs data-parallel attention likewise */
    g->expert_parallel = true; /* and splits the experts over ranks */
    if ((rc = json_entry_head(c, e, fields, g->id, sizeof g->id)) || (rc = json_get_string(c, e, "name", true, g->name, sizeof g->name)) ||
        (rc = catalog_parse_aliases(c, e, g->aliases, &g->n_aliases)) ||
        (rc = json_get_string(c, e, "source", true, g->source, sizeof g->source)) ||
        /* physical bounds, docs/model.md "Engine profiles": CPU per step up to 20 ms (vLLM 0.5 spent
         * most of a step on the CPU), first-token overhead up to 200 ms, kernel libraries within 30% of
         * cuBLAS, up to 50 us more per collective than NCCL's own latency, a kernel launch up to 50 us of
         * CPU (Python eager dispatch), up to 4x the fused kernel count (unfused eager PyTorch) */
        (rc = json_get_number(c, e, "step_overhead_s", "step_overhead_s", true, 0, false, 0.02, &g->step_overhead_s, NULL)) ||
        (rc = json_get_number(c, e, "first_token_s", "first_token_s", true, 0, false, 0.2, &g->first_token_s, NULL)) ||
        (rc = json_get_number(c, e, "api_first_token_s", "api_first_token_s", false, 0, false, 0.05,
                              &g->api_first_token_s, NULL)) ||
        (rc = json_get_number(c, e, "api_prompt_token_s", "api_prompt_token_s", false, 0, false, 20e-6,
                              &g->api_prompt_token_s, NULL)) ||
        (rc = json_get_number(c, e, "tp_step_overhead_s", "tp_step_overhead_s", false, 0, false, 0.02,
                              &g->tp_step_overhead_s, NULL)) ||
        (rc = json_get_number(c, e, "ray_output_token_s", "ray_output_token_s", false, 0, false, 1e-6,
                              &g->ray_output_token_s, NULL)) ||
        (rc = json_get_number(c, e, "compute_scale", "compute_scale", true, 0.7, false, 1, &g->compute_scale, NULL)) ||
        (rc = json_get_number(c, e, "collective_latency_s", "collective_latency_s", false, 0, false, 50e-6,
                         &g->collective_latency_s, NULL)) ||
        (rc = json_get_number(c, e, "launch_s", "launch_s", false, 0, false, 50e-6, &g->launch_s, NULL)) ||
        (rc = json_get_number(c, e, "launch_mla_s", "launch_mla_s", false, 0, false, 100e-6, &g->launch_mla_s, NULL)) ||
        (rc = json_get_number(c, e, "kernel_factor", "kernel_factor", false, 1, false, 4, &g->kernel_factor, NULL)) ||
        (rc = json_get_bool(c, e, "cuda_graphs", false, &g->cuda_graphs)) ||
        (rc = json_get_bool(c, e, "kv_per_query_head", false, &g->kv_per_query_head)) ||
        (rc = json_get_bool(c, e, "quantized_head", false, &g->quantized_head)) ||
        (rc = json_get_bool(c, e, "fp8_kv_per_query_head", false, &g->fp8_kv_per_query_head)) ||
        (rc = json_get_bool(c, e, "cuda_core_decode", false, &g->cuda_core_decode)) ||
        (rc = json_get_bool(c, e, "ray_workers", false, &g->ray_workers)) ||
        /* query heads a decode-attention CTA serves from one K/V read (TurboMind v0.1: 4) */
        (rc = json_get_long(c, e, "kv_heads_per_read", false, 1, 64, &g->kv_heads_per_read, NULL)) ||
        (rc = json_get_bool(c, e, "fp8_attention", false, &g->fp8_attention)) ||
        (rc = json_get_bool(c, e, "fp16_accumulate", false, &g->fp16_accumulate)) ||
        (rc = json_get_bool(c, e, "custom_allreduce", false, &g->custom_allreduce)) ||
        (rc = json_get_bool(c, e, "dsa_flashmla_pad", false, &g->dsa_flashmla_pad)) ||
        (rc = json_get_bool(c, e, "dsa_dense_short_prefill", false, &g->dsa_dense_short_prefill)) ||
        (rc = json_get_bool(c, e, "first_token_decode", false, &g->first_token_decode)) ||
        /* weight-only formats: from this many tokens per step the engine dequantizes the weights
         * to 16 bits and calls a dense GEMM (llama.cpp: above 32 rows; exllamav2: above 32) */
        (rc = json_get_number(c, e, "dequant_min_tokens", "dequant_min_tokens", false, 1, false, 1e6,
                              &g->dequant_min_tokens, NULL)) ||
        /* a fused weight-only GEMM's unpacking work, instruction slots per tensor FLOP (llm-awq's
         * kernel unpacks every weight once per 16-row tile: 0.30, docs/model.md) */
        (rc = json_get_number(c, e, "wo_issue_per_flop", "wo_issue_per_flop", false, 0, false, 4, &g->wo_issue_per_flop,
                              NULL)) ||
        /* llama.cpp's MMQ kernels: int8 tensor cores for quantized weights (PR #7676, default from #8075) */
        (rc = json_get_number(c, e, "mmq_share", "mmq_share", false, 0, true, 1, &g->mmq_share, NULL)) ||
        /* the serving scheduler (docs/catalog.md "Engines"): CPU per running sequence up to 1 ms
         * (vLLM 0.5's Python API server, scheduler and output processing about 120 microseconds per
         * sequence), its overlap with the GPU a share, the engines' own limits on sequences and
         * tokens per iteration within what their flags accept */
        (rc = json_get_number(c, e, "cpu_seq_s", "cpu_seq_s", false, 0, false, 1e-3, &g->cpu_seq_s, NULL)) ||
        /* the same bound per Ray worker (vLLM PR #2221: about 46 microseconds on an A100's host) */
        (rc = json_get_number(c, e, "worker_seq_s", "worker_seq_s", false, 0, false, 1e-3, &g->worker_seq_s, NULL)) ||
        (rc = json_get_number(c, e, "cpu_overlap", "cpu_overlap", false, 0, false, 1, &g->cpu_overlap, NULL)) ||
        /* the per-sequence output work, engine side and API server side, with the same bounds
         * (docs/model.md "Engine CPU work"; vLLM v0.6.0 post: 17 + 71 microseconds in 0.5.3) */
        (rc = json_get_number(c, e, "cpu_output_s", "cpu_output_s", false, 0, false, 1e-3, &g->cpu_output_s, NULL)) ||
        (rc = json_get_number(c, e, "cpu_output_overlap", "cpu_output_overlap", false, 0, false, 1,
                              &g->cpu_output_overlap, NULL)) ||
        (rc = json_get_number(c, e, "api_stream_s", "api_stream_s", false, 0, false, 1e-3, &g->api_stream_s, NULL)) ||
        (rc = json_get_number(c, e, "api_overlap", "api_overlap", false, 0, false, 1, &g->api_overlap, NULL)) ||
        /* the share of the KV blocks a new admission must leave free (vLLM V0's block manager
         * watermark, 0.01), 0 to 0.2 */
        (rc = json_get_number(c, e, "kv_watermark", "kv_watermark", false, 0, false, 0.2, &g->kv_watermark, NULL)) ||
        (rc = json_get_long(c, e, "max_seqs", false, 1, 65536, &g->max_seqs, NULL)) ||
        (rc = json_get_long(c, e, "spec_max_seqs", false, 1, 65536, &g->spec_max_seqs, NULL)) ||
        (rc = json_get_long(c, e, "max_batch", false, 1, 65536, &g->max_batch, NULL)) ||
        (rc = json_get_long(c, e, "max_gpus", false, 1, 65536, &g->max_gpus, NULL)) ||
        /* the engine's KV pool: its block size and the share of device memory it takes */
        (rc = json_get_long(c, e, "kv_block_tokens", false, 1, 65536, &g->kv_block_tokens, NULL)) ||
        (rc = json_get_number(c, e, "mem_util", "mem_util", false, 0.5, false, 1, &g->mem_util, NULL)) ||
        (rc = json_get_number(c, e, "reserve_bytes", "reserve_bytes", false, 0, false, 1e12, &g->reserve_bytes,
                              &g->has_reserve)) ||
        (rc = json_get_bool(c, e, "kv_of_free_memory", false, &g->kv_of_free_memory)) ||
        /* SGLang's mem_fraction_static: the fraction holds weights and the KV pool only */
        (rc = json_get_bool(c, e, "mem_static", false, &g->mem_static)) ||
        (rc = json_get_number(c, e, "mem_reserve_spec_MiB", "mem_reserve_spec_MiB", false, 0, false, 1048576,
                              &g->mem_reserve_spec_MiB, NULL)) ||
        (rc = json_get_number(c, e, "mem_reserve_dp_attention_MiB", "mem_reserve_dp_attention_MiB", false, 0, false,
                              1048576, &g->mem_reserve_dp_attention_MiB, NULL)) ||
        (rc = parse_util_by_tp(c, e, g)) ||
        (rc = json_get_long(c, e, "max_batched_tokens", false, 16, 10000000, &g->max_batched_tokens, NULL)) ||
        (rc = json_get_long(c, e, "large_gpu_max_seqs", false, 1, 65536, &g->large_gpu_max_seqs, NULL)) ||
        (rc = json_get_long(c, e, "large_gpu_max_batched_tokens", false, 16, 10000000, &g->large_gpu_max_batched_tokens,
                            NULL)) ||
        /* vLLM's EngineArgs.get_batch_defaults: the LLM class (no server) takes larger budgets */
        (rc = json_get_long(c, e, "offline_max_batched_tokens", false, 16, 10000000, &g->offline_max_batched_tokens,
                            NULL)) ||
        (rc = json_get_long(c, e, "offline_large_gpu_max_batched_tokens", false, 16, 10000000,
                            &g->offline_large_gpu_max_batched_tokens, NULL)))
        return rc;
    /* vLLM 0.5.4-0.6 (V0 EngineArgs.create_engine_config, PR #6666): chunked prefill on by default
     * only above 32K of max_model_len, then SchedulerConfig's chunked budget (512; 2048 from PR
     * #10544, v0.6.5); bounds: a context of at least 1K, a budget as max_batched_tokens' */
    if ((rc = json_get_long(c, e, "chunked_prefill_min_context", false, 1024, 10000000, &g->chunked_prefill_min_context,
                            NULL)) ||
        (rc = json_get_long(c, e, "chunked_max_batched_tokens", false, 16, 10000000, &g->chunked_max_batched_tokens, NULL)))
        return rc;
    /* llama.cpp's n_ubatch: a whole number of tokens per forward pass (estimate.c prefill_in_passes) */
    long ubatch = 0;
    if ((rc = json_get_long(c, e, "prompt_ubatch_tokens", false, 1, 1000000, &ubatch, NULL)))
        return rc;
    g->prompt_ubatch_tokens = (double)ubatch;
    if ((rc = json_get_bool(c, e, "logits_all_tokens", false, &g->logits_all_tokens)) ||
        (rc = json_get_bool(c, e, "kv_copy", false, &g->kv_copy)))
        return rc;
    int adm = 0;
    if ((rc = json_get_choice(c, e, "admission", "admission", admissions, 0, &adm)))
        return rc;
    static const char *const sizings[] = { "none", "trtllm-bench", "trtllm-bench-engine", NULL };
    if ((rc = json_get_choice(c, e, "offline_sizing", "offline_sizing", sizings, 0, &g->offline_sizing)))
        return rc;
    g->admit_no_evict = adm == 1;
    g->admit_reserve = adm == 2;
    g->admit_wait = adm == 3;
    /* the iteration's shape (docs/catalog.md "Engines"): chunked prefill unless the profile says
     * not (absent: true, the simulator's default), prefill-first scheduling only when it says so */
    bool chunked = true;
    if ((rc = json_get_bool(c, e, "chunked_prefill", false, &chunked)) ||
        (rc = json_get_bool(c, e, "prefill_first", false, &g->prefill_first)) ||
        (rc = json_get_bool(c, e, "static_batching", false, &g->static_batching)) ||
        (rc = json_get_bool(c, e, "dp_rank_scheduler", false, &g->dp_rank_scheduler)) ||
        (rc = json_get_bool(c, e, "prompt_within_budget", false, &g->prompt_within_budget)) ||
        (rc = json_get_bool(c, e, "cuda_only", false, &g->cuda_only)) ||
        (rc = json_get_bool(c, e, "dp_attention", false, &g->dp_attention)) ||
        (rc = json_get_bool(c, e, "expert_parallel", false, &g->expert_parallel)) ||
        (rc = json_get_bool(c, e, "moe_tp_shared_local", false, &g->moe_tp_shared_local)) ||
        (rc = json_get_bool(c, e, "moe_gemv", false, &g->moe_gemv)) ||
        (rc = json_get_bool(c, e, "dp_lm_head_split", false, &g->dp_lm_head_split)) ||
        (rc = json_get_bool(c, e, "spec_state_per_token", false, &g->spec_state_per_token)) ||
        (rc = json_get_bool(c, e, "ssm_state_fp32", false, &g->ssm_state_fp32)) ||
        (rc = json_get_bool(c, e, "spec_no_overlap", false, &g->spec_no_overlap)) ||
        (rc = json_get_bool(c, e, "spec_draft_graph", false, &g->spec_draft_graph)) ||
        (rc = json_get_bool(c, e, "pd_decode_first_token", false, &g->pd_decode_first_token)) ||
        (rc = json_get_bool(c, e, "pd_decode_resample", false, &g->pd_decode_resample)) ||
        /* SGLang's decode server pre-allocates before the prefill runs (disaggregation/decode.py) */
        (rc = json_get_bool(c, e, "pd_decode_prealloc", false, &g->pd_decode_prealloc)) ||
        (rc = json_get_bool(c, e, "pd_kv_full_window", false, &g->pd_kv_full_window)) ||
        (rc = json_get_long(c, e, "max_concurrent_requests", false, 1, 10000000, &g->max_concurrent_requests, NULL)) ||
        (rc = json_get_long(c, e, "pd_decode_reserve_tokens", false, 1, 1000000, &g->pd_decode_reserve_tokens, NULL)) ||
        (rc = json_get_bool(c, e, "disaggregation", false, &g->disaggregation)) ||
        (rc = json_get_bool(c, e, "budget_min_context", false, &g->budget_min_context)) ||
        /* automatic prefix caching on by default (vLLM V1, SGLang's radix cache) */
        (rc = json_get_bool(c, e, "prefix_cache", false, &g->prefix_cache)))
        return rc;
    if (g->max_batch > 0 && (g->max_seqs > g->max_batch || g->large_gpu_max_seqs > g->max_batch))
        return json_ferr(c, g->max_seqs > g->max_batch ? "max_seqs" : "large_gpu_max_seqs",
                         "%ld is above \"max_batch\" %ld, the most sequences the engine runs at once",
                         g->max_seqs > g->max_batch ? g->max_seqs : g->large_gpu_max_seqs, g->max_batch);
    if (g->pd_decode_reserve_tokens > 0 && !g->pd_decode_prealloc)
        return json_ferr(c, "pd_decode_reserve_tokens", "needs \"pd_decode_prealloc\": true (the decode server keeps it "
                                                        "free as it pre-allocates)");
    if (g->mem_static && g->kv_of_free_memory)
        return json_ferr(c, "mem_static", "conflicts with kv_of_free_memory: the fraction is either of the device "
                                          "(weights and KV pool) or of what is free once loaded, not both");
    if ((rc = parse_mem_tiers(c, e, g)))
        return rc;
    if ((g->n_util_by_tp > 0 || catalog_engine_mem_util_varies(g)) && !g->mem_static)
        return json_ferr(c, g->n_util_by_tp > 0 ? "mem_util_by_tp" : "gpu_memory_tiers",
                         "%s a default fraction that follows the GPU or the instance, which only \"mem_static\": "
                         "true (SGLang's mem_fraction_static) takes",
                         g->n_util_by_tp > 0 ? "states" : "states mem_reserve_MiB:");
    g->whole_prefill = !chunked;
    /* TGI's router batching rule (router/src/infer/v3/scheduler.rs, batching_task; docs/metrics.md
     * "Engine scheduling"): a ratio of running sequences up to 100, a wait up to a million steps */
    if ((rc = json_get_number(c, e, "waiting_served_ratio", "waiting_served_ratio", false, 0, false, 100,
                              &g->waiting_served_ratio, NULL)) ||
        (rc = json_get_long(c, e, "max_waiting_steps", false, 0, 1000000, &g->max_waiting_steps, NULL)))
        return rc;
    /* vLLM 0.2-0.3's padded prompt batches (SchedulerConfig.max_paddings, default 256;
     * docs/model.md "vLLM by version"): up to a million tokens of padding */
    if ((rc = json_get_long(c, e, "max_paddings", false, 0, 1000000, &g->max_paddings, NULL)))
        return rc;
    /* the scheduler flags of one engine's versions that simulate takes by their name: vLLM
     * 0.2.1-0.3's --max-paddings and 0.6-0.10's --num-scheduler-steps; absent, the engine never had
     * them (a profile that pads prompt batches has the first) and simulate refuses them with its
     * profile (docs/catalog.md) */
    g->max_paddings_option = g->max_paddings > 0;
    if ((rc = json_get_bool(c, e, "max_paddings_option", false, &g->max_paddings_option)) ||
        (rc = json_get_bool(c, e, "multi_step_scheduling", false, &g->multi_step_scheduling)) ||
        (rc = json_get_bool(c, e, "recv_interval_option", false, &g->recv_interval_option)))
        return rc;
    if (g->max_paddings > 0 && !g->max_paddings_option)
        return json_ferr(c, "max_paddings_option", "is false, but \"max_paddings\" %ld pads prompt batches under the "
                                                   "cap --max-paddings sets", g->max_paddings);
    /* which steps replay a CUDA graph (docs/model.md "CUDA-graph coverage"): the largest one
     * captured, up to the 65536 sequences the engines' flags accept (vLLM V0 256, SGLang 160,
     * vLLM V1 512 tokens); only an engine with graphs has one */
    if ((rc = json_get_long(c, e, "graph_max_batch", false, 1, 65536, &g->graph_max_batch, NULL)) ||
        (rc = json_get_bool(c, e, "graph_piecewise", false, &g->graph_piecewise)) ||
        (rc = json_get_long(c, e, "graph_every_batch_to", false, 1, 65536, &g->graph_every_batch_to, NULL)))
        return rc;
    /* the GPU architectures where the engine's attention is FlashAttention-2's, as one varlen call
     * over the step (vLLM V1's FLASH_ATTN backend without FA3) or as its kernels (vLLM V0's):
     * docs/model.md "Decodes in a FlashAttention-2 call" */
    if ((rc = catalog_parse_arch_list(c, e, "varlen_fa2_archs", g->varlen_fa2_archs, &g->n_varlen_fa2_archs)) ||
        (rc = catalog_parse_arch_list(c, e, "fa2_archs", g->fa2_archs, &g->n_fa2_archs)) ||
        (rc = catalog_parse_arch_list(c, e, "moe_triton_archs", g->moe_triton_archs, &g->n_moe_triton_archs)) ||
        (rc = catalog_parse_arch_list(c, e, "dsa_prefill_pad_archs", g->dsa_prefill_pad_archs,
                                      &g->n_dsa_prefill_pad_archs)))
        return rc;
    if ((rc = parse_spec_methods(c, e, g)))
        return rc;
    if (g->kv_per_query_head && g->kv_heads_per_read > 0)
        return json_ferr(c, "kv_heads_per_read", "cannot be given with \"kv_per_query_head\": true (which is 1 query "
                                                 "head per K/V read)");
    if (!g->cuda_graphs && (g->graph_max_batch > 0 || g->graph_piecewise))
        return json_ferr(c, g->graph_max_batch > 0 ? "graph_max_batch" : "graph_piecewise",
                         "needs \"cuda_graphs\": true (it says which steps a CUDA graph replays)");
    if (g->graph_piecewise && g->graph_max_batch == 0)
        return json_ferr(c, "graph_piecewise", "needs \"graph_max_batch\" (the largest step, in tokens, that the "
                                               "piecewise graphs were captured for)");
    if (g->graph_every_batch_to > 0 && (g->graph_max_batch == 0 || g->graph_piecewise))
        return json_ferr(c, "graph_every_batch_to", "needs \"graph_max_batch\" of decode-only graphs (not "
                                                    "piecewise): the exact sizes are decode batches up to it");
    if (g->graph_every_batch_to > g->graph_max_batch && g->graph_max_batch > 0)
        return json_ferr(c, "graph_every_batch_to", "%ld is above \"graph_max_batch\" %ld",
                         g->graph_every_batch_to, g->graph_max_batch);
    /* absent: FlashAttention-2-class */
    int fam = LLMROOF_ATTN_FLASH2;
    if ((rc = json_get_choice(c, e, "attention_kernel", "attention_kernel", attn_kernel_names, LLMROOF_ATTN_FLASH2,
                              &fam)))
        return rc;
    g->attention = (enum llmroof_attn_kernel)fam;
    /* absent: a quantization kernel of its own before each 8-bit GEMM */
    int aq = LLMROOF_ACT_QUANT_SEPARATE;
    if ((rc = json_get_choice(c, e, "act_quant", "act_quant", act_quant_names, LLMROOF_ACT_QUANT_SEPARATE, &aq)))
        return rc;
    g->act_quant = (enum llmroof_act_quant)aq;
    return LLMROOF_OK;
}

static int parse_engine_entry(struct json_ectx *c, const cJSON *e, void *out)
{
    return parse_engine(c, e, out);
}

static int add_engines(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                       const char *pick, struct llmroof_err *err)
{
    static const struct plain_kind kind = { "engines", sizeof(struct llmroof_engine),
                                            offsetof(struct llmroof_engine, id), parse_engine_entry, true,
                                            offsetof(struct llmroof_engine, aliases),
                                            offsetof(struct llmroof_engine, n_aliases) };
    return catalog_add_plain(&kind, (void **)&cat->engines, &cat->n_engines, &cat->cap_engines, text, len, fname,
                             replace, pick, err);
}

int catalog_add_engines_text(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname,
                             bool replace, struct llmroof_err *err)
{
    return add_engines(cat, text, len, fname, replace, NULL, err);
}

static const struct llmroof_engine *engine_named(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_engines; i++)
        if (strcasecmp(cat->engines[i].id, name) == 0)
            return &cat->engines[i];
    for (size_t i = 0; i < cat->n_engines; i++)
        for (int a = 0; a < cat->engines[i].n_aliases; a++)
            if (strcasecmp(cat->engines[i].aliases[a], name) == 0)
                return &cat->engines[i];
    return NULL;
}

/* The profile of `name` less one trailing patch version ("vllm-0.9.1" -> "vllm-0.9": the name
 * ends "DIGITS.DIGITS.DIGITS"); NULL when it does not end so or no profile answers. */
static const struct llmroof_engine *engine_of_minor(const struct llmroof_catalog *cat, const char *name)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && isdigit((unsigned char)name[k - 1]))
        k--;
    if (k == n || k < 2 || name[k - 1] != '.' || k - 1 >= LLMROOF_ID_MAX)
        return NULL;
    size_t m = k - 1; /* the minor's digits end here */
    while (m > 0 && isdigit((unsigned char)name[m - 1]))
        m--;
    if (m == k - 1 || m < 2 || name[m - 1] != '.' || !isdigit((unsigned char)name[m - 2]))
        return NULL;
    char minor[LLMROOF_ID_MAX];
    memcpy(minor, name, k - 1);
    minor[k - 1] = '\0';
    return engine_named(cat, minor);
}

/* An engine by id, else by one of its aliases (the versions a profile covers: "vllm-0.10"), else
 * by a version as releases spell it: "vllm-v0.9.1" and "sglang-0.4.10.post1" drop their "v" and
 * ".postN", and a patch release takes its minor version's profile ("vllm-0.9.1" is "vllm-0.9") */
const struct llmroof_engine *catalog_find_engine(const struct llmroof_catalog *cat, const char *name)
{
    const struct llmroof_engine *e = engine_named(cat, name);
    size_t n = strlen(name);
    if (e || n >= LLMROOF_ID_MAX)
        return e;
    char v[LLMROOF_ID_MAX];
    memcpy(v, name, n + 1);
    /* ".postN": a build of the same release */
    char *post = strstr(v, ".post");
    if (post && post[5] && strspn(post + 5, "0123456789") == strlen(post + 5))
        *post = '\0';
    /* "rcN" after the version ("1.1.0rc2"): a release candidate of that release */
    char *rc = strstr(v, "rc");
    if (rc && rc > v && isdigit((unsigned char)rc[-1]) && rc[2] && strspn(rc + 2, "0123456789") == strlen(rc + 2))
        *rc = '\0';
    /* "-v0.9": the tag's spelling of the version */
    char *dash = strstr(v, "-v");
    if (dash && isdigit((unsigned char)dash[2]))
        memmove(dash + 1, dash + 2, strlen(dash + 2) + 1);
    if (strcmp(v, name) != 0 && (e = engine_named(cat, v)))
        return e;
    return engine_of_minor(cat, v);
}

int catalog_add_engines_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    return catalog_add_file(cat, path, replace, NULL, add_engines, err);
}

int catalog_add_engines_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                                  struct llmroof_err *err)
{
    return catalog_add_file(cat, path, replace, pick, add_engines, err);
}
