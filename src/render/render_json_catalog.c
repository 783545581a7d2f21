/* render_json_catalog.c - catalog entries as JSON: models, GPUs and engines as the loader reads
 * them back (show, import-hf, list, the --fit-*-out files; see render_json.h). */
#include "render/render_json_internal.h"
#include "model/arch.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cJSON *model_entry(const struct llmroof_model *m, const char *schema)
{
    cJSON *o = rj_new_doc(schema);
    if (schema)
        cJSON_AddStringToObject(o, "kind", "model");
    cJSON_AddStringToObject(o, "id", m->id);
    cJSON_AddStringToObject(o, "name", m->name);
    if (m->hf_id[0])
        cJSON_AddStringToObject(o, "hf_id", m->hf_id);
    cJSON_AddNumberToObject(o, "hidden_size", (double)m->hidden);
    cJSON_AddNumberToObject(o, "num_layers", (double)m->layers);
    cJSON_AddNumberToObject(o, "num_heads", (double)m->heads);
    cJSON_AddNumberToObject(o, "num_kv_heads", (double)m->kv_heads);
    cJSON_AddNumberToObject(o, "head_dim", (double)m->head_dim);
    cJSON_AddNumberToObject(o, "intermediate_size", (double)m->intermediate);
    cJSON_AddNumberToObject(o, "vocab_size", (double)m->vocab);
    cJSON_AddNumberToObject(o, "max_context", (double)m->max_context);
    if (m->learned_pos)
        cJSON_AddNumberToObject(o, "learned_pos", (double)m->learned_pos);
    cJSON_AddBoolToObject(o, "tie_embeddings", m->tied_embeddings);
    cJSON_AddStringToObject(o, "mlp", m->mlp == LLMROOF_MLP_GATED ? "gated" : "plain");
    cJSON_AddStringToObject(o, "norm", m->norm == LLMROOF_NORM_RMS ? "rmsnorm" : "layernorm");
    cJSON_AddBoolToObject(o, "qkv_bias", m->qkv_bias);
    cJSON_AddBoolToObject(o, "o_bias", m->o_bias);
    cJSON_AddBoolToObject(o, "mlp_bias", m->mlp_bias);
    cJSON_AddBoolToObject(o, "parallel_attn", m->parallel_attn);
    if (m->moe_experts > 0) {
        cJSON *moe = cJSON_AddObjectToObject(o, "moe");
        cJSON_AddNumberToObject(moe, "experts", (double)m->moe_experts);
        cJSON_AddNumberToObject(moe, "experts_per_token", (double)m->moe_top_k);
        cJSON_AddNumberToObject(moe, "expert_intermediate_size", (double)m->moe_intermediate);
        cJSON_AddNumberToObject(moe, "shared_experts", (double)m->moe_shared);
        if (m->moe_first_dense > 0)
            cJSON_AddNumberToObject(moe, "first_dense_layers", (double)m->moe_first_dense);
        if (m->moe_layer_step > 1)
            cJSON_AddNumberToObject(moe, "layer_step", (double)m->moe_layer_step);
        if (m->moe_groups > 0)
            cJSON_AddNumberToObject(moe, "groups", (double)m->moe_groups);
        if (m->moe_topk_groups > 0)
            cJSON_AddNumberToObject(moe, "groups_per_token", (double)m->moe_topk_groups);
    }
    /* issue 16 fields, written only when set so a round trip through --models-file keeps them */
    if (m->kv_lora_rank > 0) {
        cJSON *mla = cJSON_AddObjectToObject(o, "mla");
        cJSON_AddNumberToObject(mla, "q_lora_rank", (double)m->q_lora_rank);
        cJSON_AddNumberToObject(mla, "kv_lora_rank", (double)m->kv_lora_rank);
        cJSON_AddNumberToObject(mla, "qk_nope_head_dim", (double)m->qk_nope_dim);
        cJSON_AddNumberToObject(mla, "qk_rope_head_dim", (double)m->qk_rope_dim);
        cJSON_AddNumberToObject(mla, "v_head_dim", (double)m->v_head_dim);
    }
    if (m->window > 0) {
        cJSON *w = cJSON_AddObjectToObject(o, "sliding_window");
        cJSON_AddNumberToObject(w, "size", (double)m->window);
        if (m->window_global_every > 0)
            cJSON_AddNumberToObject(w, "global_every", (double)m->window_global_every);
        if (m->window_chunked)
            cJSON_AddBoolToObject(w, "chunked", true);
    }
    if (m->norms_per_layer > 0)
        cJSON_AddNumberToObject(o, "norms_per_layer", (double)m->norms_per_layer);
    if (m->qk_norm)
        cJSON_AddBoolToObject(o, "qk_norm", true);
    if (m->attention_sinks)
        cJSON_AddBoolToObject(o, "attention_sinks", true);
    if (m->ckpt_format[0]) {
        cJSON *ck = cJSON_AddObjectToObject(o, "checkpoint");
        cJSON_AddStringToObject(ck, "format", m->ckpt_format);
        cJSON_AddNumberToObject(ck, "bits", m->ckpt_bits);
        if (m->ckpt_expert_bits > 0)
            cJSON_AddNumberToObject(ck, "expert_bits", m->ckpt_expert_bits);
        if (m->ckpt_per_op) { /* the GEMMs left 16-bit, as the catalog names them */
            cJSON *ex = cJSON_AddArrayToObject(ck, "excluded");
            for (int i = 0; ex && i < LLMROOF_CKPT_MODULES; i++)
                if (m->ckpt_excluded >> i & 1u)
                    cJSON_AddItemToArray(ex, cJSON_CreateString(catalog_ckpt_module_name(i)));
        }
    }
    if (m->mixers[0]) {
        cJSON *lp = cJSON_AddObjectToObject(o, "layer_pattern");
        cJSON_AddStringToObject(lp, "mixers", m->mixers);
        cJSON_AddStringToObject(lp, "ffns", m->ffns);
        bool widths = false;
        for (long i = 0; i < m->layers && i < LLMROOF_PATTERN_MAX; i++)
            widths = widths || m->ffn_widths[i] > 0;
        if (widths) {
            cJSON *fw = cJSON_AddArrayToObject(lp, "ffn_widths");
            for (long i = 0; i < m->layers && i < LLMROOF_PATTERN_MAX; i++)
                cJSON_AddItemToArray(fw, cJSON_CreateNumber((double)m->ffn_widths[i]));
        }
    }
    if (m->linear_kind != LLMROOF_LINEAR_NONE) {
        cJSON *ln = cJSON_AddObjectToObject(o, "linear");
        cJSON_AddStringToObject(ln, "kind", linear_kind_name(m->linear_kind));
        cJSON_AddNumberToObject(ln, "heads", (double)m->lin_heads);
        cJSON_AddNumberToObject(ln, "key_heads", (double)m->lin_k_heads);
        cJSON_AddNumberToObject(ln, "key_dim", (double)m->lin_k_dim);
        cJSON_AddNumberToObject(ln, "value_dim", (double)m->lin_v_dim);
        if (m->lin_conv > 0)
            cJSON_AddNumberToObject(ln, "conv_kernel", (double)m->lin_conv);
        if (m->lin_state_dtype_set)
            cJSON_AddStringToObject(ln, "state_dtype", dtype_name(m->lin_state_dtype));
    }
    if (m->dsa_top_k > 0) {
        cJSON *ds = cJSON_AddObjectToObject(o, "dsa");
        cJSON_AddNumberToObject(ds, "top_k", (double)m->dsa_top_k);
        cJSON_AddNumberToObject(ds, "index_heads", (double)m->dsa_heads);
        cJSON_AddNumberToObject(ds, "index_head_dim", (double)m->dsa_head_dim);
    }
    if (m->attn_gate)
        cJSON_AddBoolToObject(o, "attn_gate", true);
    if (m->has_params_published)
        cJSON_AddNumberToObject(o, "params_published", m->params_published);
    if (m->params_active_published > 0)
        cJSON_AddNumberToObject(o, "params_active_published", m->params_active_published);
    if (m->mtp_layers > 0)
        cJSON_AddNumberToObject(o, "mtp_layers", (double)m->mtp_layers);
    cJSON_AddStringToObject(o, "source", m->source);
    return o;
}

/* An entry's "aliases" array, where it has any (GPUs and engines) */
static void add_aliases(cJSON *o, const char (*aliases)[LLMROOF_ID_MAX], int n)
{
    if (n <= 0)
        return;
    cJSON *a = cJSON_AddArrayToObject(o, "aliases");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(aliases[i]));
}

static cJSON *gpu_entry(const struct llmroof_gpu *g, const char *schema)
{
    cJSON *o = rj_new_doc(schema);
    if (schema)
        cJSON_AddStringToObject(o, "kind", "gpu");
    cJSON_AddStringToObject(o, "id", g->id);
    cJSON_AddStringToObject(o, "name", g->name);
    add_aliases(o, (const char (*)[LLMROOF_ID_MAX])g->aliases, g->n_aliases);
    cJSON_AddNumberToObject(o, "memory_bytes", g->memory_bytes);
    cJSON_AddNumberToObject(o, "memory_visible_bytes", g->memory_visible_bytes);
    cJSON_AddNumberToObject(o, "memory_bandwidth_Bps", g->mem_bw_Bps);
    cJSON *pf = cJSON_AddObjectToObject(o, "peak_flops");
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++)
        if (g->has_peak[d])
            cJSON_AddNumberToObject(pf, dtype_name((enum llmroof_dtype)d), g->peak_flops[d]);
    cJSON *ic = cJSON_AddObjectToObject(o, "interconnect");
    cJSON_AddStringToObject(ic, "kind", link_name(g->link));
    cJSON_AddNumberToObject(ic, "bandwidth_Bps", g->link_bw_Bps);
    cJSON_AddNumberToObject(ic, "latency_s", g->link_latency_s);
    cJSON_AddNumberToObject(ic, "hop_latency_s", g->link_hop_latency_s);
    /* the optional fields the loader reads (catalog_gpu.c parse_gpu), when set: a written entry
     * loads back as the same GPU (test_catalog's round trip) */
    if (g->nvls_bw_Bps > 0)
        cJSON_AddNumberToObject(ic, "nvls_bandwidth_Bps", g->nvls_bw_Bps);
    if (g->mesh_links > 0)
        cJSON_AddNumberToObject(ic, "mesh_links", g->mesh_links);
    if (g->custom_ar_latency_s > 0)
        cJSON_AddNumberToObject(ic, "custom_allreduce_latency_s", g->custom_ar_latency_s);
    if (g->simple_step_s > 0)
        cJSON_AddNumberToObject(ic, "simple_step_latency_s", g->simple_step_s);
    if (g->ll128_share > 0)
        cJSON_AddNumberToObject(ic, "ll128_bandwidth_share", g->ll128_share);
    cJSON *ef = cJSON_AddObjectToObject(o, "efficiency");
    cJSON_AddNumberToObject(ef, "compute", g->compute_eff);
    cJSON_AddNumberToObject(ef, "memory", g->memory_eff);
    cJSON_AddNumberToObject(ef, "comm", g->comm_eff);
    const struct {
        const char *key;
        double v;
    } opt[] = { { "kernel_s", g->kernel_s },          { "gemm_8bit", g->gemm_8bit_eff },
                { "fp16_accumulate_ratio", g->fp16_acc_ratio }, { "gemm_fp16_accumulate", g->gemm_fp16acc_eff },
                { "overlap", g->overlap },
                { "attention", g->attn_eff },        { "attention_fa3", g->attn_fa3_eff },
                { "attention_memory", g->attn_mem_eff }, { "attention_memory_fa2", g->attn_mem_fa2_eff },
                { "gemm_ramp_rows", g->gemm_ramp_rows } };
    for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
        if (opt[i].v > 0)
            cJSON_AddNumberToObject(ef, opt[i].key, opt[i].v);
    cJSON_AddNumberToObject(o, "step_overhead_s", g->step_overhead_s);
    cJSON_AddNumberToObject(o, "gpus_per_node", g->gpus_per_node);
    cJSON_AddNumberToObject(o, "domain_gpus", g->domain_gpus);
    cJSON *nw = cJSON_AddObjectToObject(o, "network");
    cJSON_AddStringToObject(nw, "kind", g->net_kind);
    cJSON_AddNumberToObject(nw, "bandwidth_Bps", g->net_bw_Bps);
    cJSON_AddNumberToObject(nw, "latency_s", g->net_latency_s);
    if (g->host_cpu_speed > 0) {
        cJSON *h = cJSON_AddObjectToObject(o, "host");
        cJSON_AddStringToObject(h, "cpu", g->host_cpu);
        cJSON_AddNumberToObject(h, "cpu_speed", g->host_cpu_speed);
    }
    if (g->arch[0])
        cJSON_AddStringToObject(o, "arch", g->arch);
    cJSON_AddStringToObject(o, "source", g->source);
    return o;
}

char *render_json_model_doc(const struct llmroof_model *m)
{
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "models");
    cJSON_AddItemToArray(arr, model_entry(m, NULL));
    return rj_finish(root);
}

char *render_json_show_model(const struct llmroof_model *m)
{
    cJSON *o = model_entry(m, "llmroof.show/1");
    struct llmroof_params p = arch_params(m);
    cJSON *d = cJSON_AddObjectToObject(o, "derived");
    cJSON_AddNumberToObject(d, "params_total", p.total);
    cJSON_AddNumberToObject(d, "params_active", p.active);
    cJSON_AddNumberToObject(d, "params_embedding", p.embedding);
    cJSON_AddNumberToObject(d, "params_lm_head", p.lm_head);
    cJSON_AddNumberToObject(d, "weight_bytes_fp16", p.total * 2.0);
    cJSON_AddNumberToObject(d, "kv_bytes_per_token_fp16", arch_kv_bytes_per_token(m, 2.0));
    if (arch_state_elems_per_seq(m) > 0) /* recurrent layers only: the other models' documents stay as they were */
        cJSON_AddNumberToObject(d, "state_bytes_per_seq_fp16", arch_state_elems_per_seq(m) * 2.0);
    return rj_finish(o);
}

char *render_json_show_gpu(const struct llmroof_gpu *g)
{
    cJSON *o = gpu_entry(g, "llmroof.show/1");
    cJSON *d = cJSON_AddObjectToObject(o, "derived");
    cJSON *r = cJSON_AddObjectToObject(d, "ridge_flops_per_byte");
    for (int k = 0; k < LLMROOF_DTYPE_COUNT; k++)
        if (g->has_peak[k])
            cJSON_AddNumberToObject(r, dtype_name((enum llmroof_dtype)k), g->peak_flops[k] / g->mem_bw_Bps);
    return rj_finish(o);
}

char *render_json_gpu_doc(const struct llmroof_gpu *g, const struct llmroof_effs *e, const char *note)
{
    struct llmroof_gpu copy = *g;
    copy.compute_eff = e->compute;
    copy.memory_eff = e->memory;
    copy.comm_eff = e->comm;
    copy.step_overhead_s = e->overhead_s;
    size_t n = strlen(copy.source);
    snprintf(copy.source + n, sizeof copy.source - n, "%s%s", n ? "; " : "", note);
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "gpus");
    cJSON_AddItemToArray(arr, gpu_entry(&copy, NULL));
    return rj_finish(root);
}

/* An optional catalog number: written when set (positive), left out at its default of 0. */
static void add_positive(cJSON *o, const char *name, double v)
{
    if (v > 0)
        cJSON_AddNumberToObject(o, name, v);
}

/* An engine's architecture list as a JSON array of names, when it has any. */
static void add_arch_list(cJSON *o, const char *key, const char (*archs)[LLMROOF_ARCH_MAX], int n)
{
    if (n <= 0)
        return;
    cJSON *arr = cJSON_AddArrayToObject(o, key);
    for (int a = 0; a < n; a++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(archs[a]));
}

char *render_json_engines(const struct llmroof_engine *e, int n)
{
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "engines");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "id", e[i].id);
        cJSON_AddStringToObject(o, "name", e[i].name);
        add_aliases(o, (const char (*)[LLMROOF_ID_MAX])e[i].aliases, e[i].n_aliases);
        cJSON_AddNumberToObject(o, "step_overhead_s", round(e[i].step_overhead_s * 1e7) / 1e7);
        cJSON_AddNumberToObject(o, "first_token_s", round(e[i].first_token_s * 1e6) / 1e6);
        cJSON_AddNumberToObject(o, "compute_scale", round(e[i].compute_scale * 1e3) / 1e3);
        cJSON_AddNumberToObject(o, "collective_latency_s", round(e[i].collective_latency_s * 1e8) / 1e8);
        /* what the fit never touches: the engine's code, as the loader reads it */
        add_positive(o, "launch_s", (double)e[i].launch_s);
        add_positive(o, "kernel_factor", (double)e[i].kernel_factor);
        add_positive(o, "dequant_min_tokens", (double)e[i].dequant_min_tokens);
        add_positive(o, "prompt_ubatch_tokens", (double)e[i].prompt_ubatch_tokens);
        if (e[i].logits_all_tokens)
            cJSON_AddBoolToObject(o, "logits_all_tokens", true);
        if (e[i].kv_copy)
            cJSON_AddBoolToObject(o, "kv_copy", true);
        add_positive(o, "mmq_share", (double)e[i].mmq_share);
        add_positive(o, "wo_issue_per_flop", (double)e[i].wo_issue_per_flop);
        /* the serving scheduler's fields, written when present */
        add_positive(o, "cpu_seq_s", (double)e[i].cpu_seq_s);
        add_positive(o, "worker_seq_s", (double)e[i].worker_seq_s);
        add_positive(o, "cpu_overlap", (double)e[i].cpu_overlap);
        add_positive(o, "cpu_output_s", (double)e[i].cpu_output_s);
        add_positive(o, "cpu_output_overlap", (double)e[i].cpu_output_overlap);
        add_positive(o, "kv_watermark", (double)e[i].kv_watermark);
        add_positive(o, "api_stream_s", (double)e[i].api_stream_s);
        add_positive(o, "api_overlap", (double)e[i].api_overlap);
        if (e[i].admit_no_evict)
            cJSON_AddStringToObject(o, "admission", "no-evict");
        if (e[i].admit_reserve)
            cJSON_AddStringToObject(o, "admission", "reserve");
        if (e[i].admit_wait)
            cJSON_AddStringToObject(o, "admission", "wait");
        add_positive(o, "max_seqs", (double)e[i].max_seqs);
        add_positive(o, "max_batch", (double)e[i].max_batch);
        add_positive(o, "max_gpus", (double)e[i].max_gpus);
        add_positive(o, "kv_block_tokens", (double)e[i].kv_block_tokens);
        add_positive(o, "mem_util", (double)e[i].mem_util);
        if (e[i].has_reserve)
            cJSON_AddNumberToObject(o, "reserve_bytes", e[i].reserve_bytes);
        if (e[i].kv_of_free_memory)
            cJSON_AddBoolToObject(o, "kv_of_free_memory", true);
        if (e[i].mem_static)
            cJSON_AddBoolToObject(o, "mem_static", true);
        add_positive(o, "mem_reserve_spec_MiB", e[i].mem_reserve_spec_MiB);
        add_positive(o, "mem_reserve_dp_attention_MiB", e[i].mem_reserve_dp_attention_MiB);
        if (e[i].n_util_by_tp > 0) {
            cJSON *ut = cJSON_AddArrayToObject(o, "mem_util_by_tp");
            for (int k = 0; k < e[i].n_util_by_tp; k++) {
                cJSON *b = cJSON_CreateObject();
                cJSON_AddNumberToObject(b, "from_tp", e[i].util_by_tp[k].from_tp);
                cJSON_AddNumberToObject(b, "mem_util", e[i].util_by_tp[k].mem_util);
                cJSON_AddItemToArray(ut, b);
            }
        }
        add_positive(o, "max_batched_tokens", (double)e[i].max_batched_tokens);
        add_positive(o, "large_gpu_max_seqs", (double)e[i].large_gpu_max_seqs);
        add_positive(o, "large_gpu_max_batched_tokens", (double)e[i].large_gpu_max_batched_tokens);
        add_positive(o, "offline_max_batched_tokens", (double)e[i].offline_max_batched_tokens);
        add_positive(o, "offline_large_gpu_max_batched_tokens", (double)e[i].offline_large_gpu_max_batched_tokens);
        add_positive(o, "tp_step_overhead_s", (double)e[i].tp_step_overhead_s);
        add_positive(o, "ray_output_token_s", (double)e[i].ray_output_token_s);
        if (e[i].ray_workers)
            cJSON_AddBoolToObject(o, "ray_workers", true);
        add_positive(o, "chunked_prefill_min_context", (double)e[i].chunked_prefill_min_context);
        add_positive(o, "chunked_max_batched_tokens", (double)e[i].chunked_max_batched_tokens);
        if (e[i].budget_min_context)
            cJSON_AddBoolToObject(o, "budget_min_context", true);
        if (e[i].whole_prefill)
            cJSON_AddBoolToObject(o, "chunked_prefill", false);
        if (e[i].prefill_first)
            cJSON_AddBoolToObject(o, "prefill_first", true);
        if (e[i].static_batching)
            cJSON_AddBoolToObject(o, "static_batching", true);
        if (e[i].dp_rank_scheduler)
            cJSON_AddBoolToObject(o, "dp_rank_scheduler", true);
        if (e[i].moe_tp_shared_local)
            cJSON_AddBoolToObject(o, "moe_tp_shared_local", true);
        if (e[i].moe_gemv)
            cJSON_AddBoolToObject(o, "moe_gemv", true);
        if (e[i].dp_lm_head_split)
            cJSON_AddBoolToObject(o, "dp_lm_head_split", true);
        if (e[i].spec_state_per_token)
            cJSON_AddBoolToObject(o, "spec_state_per_token", true);
        if (e[i].ssm_state_fp32)
            cJSON_AddBoolToObject(o, "ssm_state_fp32", true);
        if (e[i].prompt_within_budget)
            cJSON_AddBoolToObject(o, "prompt_within_budget", true);
        add_positive(o, "waiting_served_ratio", (double)e[i].waiting_served_ratio);
        add_positive(o, "max_waiting_steps", (double)e[i].max_waiting_steps);
        add_positive(o, "max_paddings", (double)e[i].max_paddings);
        if (e[i].max_paddings_option)
            cJSON_AddBoolToObject(o, "max_paddings_option", true);
        if (e[i].multi_step_scheduling)
            cJSON_AddBoolToObject(o, "multi_step_scheduling", true);
        if (e[i].recv_interval_option)
            cJSON_AddBoolToObject(o, "recv_interval_option", true);
        if (e[i].spec_no_overlap)
            cJSON_AddBoolToObject(o, "spec_no_overlap", true);
        if (e[i].spec_draft_graph)
            cJSON_AddBoolToObject(o, "spec_draft_graph", true);
        if (e[i].pd_decode_first_token)
            cJSON_AddBoolToObject(o, "pd_decode_first_token", true);
        if (e[i].pd_decode_first_token && e[i].pd_decode_resample)
            cJSON_AddBoolToObject(o, "pd_decode_resample", true);
        if (e[i].pd_decode_prealloc)
            cJSON_AddBoolToObject(o, "pd_decode_prealloc", true);
        if (e[i].pd_kv_full_window)
            cJSON_AddBoolToObject(o, "pd_kv_full_window", true);
        if (e[i].dsa_flashmla_pad)
            cJSON_AddBoolToObject(o, "dsa_flashmla_pad", true);
        if (e[i].dsa_dense_short_prefill)
            cJSON_AddBoolToObject(o, "dsa_dense_short_prefill", true);
        add_positive(o, "max_concurrent_requests", (double)e[i].max_concurrent_requests);
        add_positive(o, "pd_decode_reserve_tokens", (double)e[i].pd_decode_reserve_tokens);
        if (!e[i].disaggregation) /* (the default is true) */
            cJSON_AddBoolToObject(o, "disaggregation", false);
        if (!e[i].dp_attention)
            cJSON_AddBoolToObject(o, "dp_attention", false);
        if (!e[i].expert_parallel)
            cJSON_AddBoolToObject(o, "expert_parallel", false);
        if (e[i].cuda_only)
            cJSON_AddBoolToObject(o, "cuda_only", true);
        if (e[i].prefix_cache)
            cJSON_AddBoolToObject(o, "prefix_cache", true);
        if (e[i].n_mem_tiers > 0) {
            cJSON *tiers = cJSON_AddArrayToObject(o, "gpu_memory_tiers");
            for (int k = 0; k < e[i].n_mem_tiers; k++) {
                const struct llmroof_mem_tier *t = &e[i].mem_tiers[k];
                cJSON *b = cJSON_CreateObject();
                add_positive(b, "from_MiB", t->from_MiB);
                add_positive(b, "below_MiB", t->below_MiB);
                add_positive(b, "max_batched_tokens", (double)t->max_batched_tokens);
                add_positive(b, "graph_max_batch", (double)t->graph_max_batch);
                add_positive(b, "graph_max_batch_tp4", (double)t->graph_max_batch_tp4);
                add_positive(b, "mem_reserve_MiB", t->mem_reserve_MiB);
                add_positive(b, "mem_reserve_per_gpu_MiB", t->mem_reserve_per_gpu_MiB);
                cJSON_AddItemToArray(tiers, b);
            }
        }
        cJSON_AddStringToObject(o, "attention_kernel", attn_kernel_name(e[i].attention));
        cJSON_AddStringToObject(o, "act_quant", act_quant_name(e[i].act_quant));
        cJSON_AddBoolToObject(o, "cuda_graphs", e[i].cuda_graphs);
        add_positive(o, "graph_max_batch", (double)e[i].graph_max_batch);
        if (e[i].graph_piecewise)
            cJSON_AddBoolToObject(o, "graph_piecewise", true);
        cJSON_AddBoolToObject(o, "custom_allreduce", e[i].custom_allreduce);
        cJSON_AddBoolToObject(o, "first_token_decode", e[i].first_token_decode);
        cJSON_AddBoolToObject(o, "kv_per_query_head", e[i].kv_per_query_head);
        if (e[i].quantized_head)
            cJSON_AddBoolToObject(o, "quantized_head", true);
        if (e[i].fp8_kv_per_query_head)
            cJSON_AddBoolToObject(o, "fp8_kv_per_query_head", true);
        if (e[i].cuda_core_decode)
            cJSON_AddBoolToObject(o, "cuda_core_decode", true);
        add_positive(o, "kv_heads_per_read", (double)e[i].kv_heads_per_read);
        add_arch_list(o, "varlen_fa2_archs", e[i].varlen_fa2_archs, e[i].n_varlen_fa2_archs);
        add_arch_list(o, "fa2_archs", e[i].fa2_archs, e[i].n_fa2_archs);
        add_arch_list(o, "moe_triton_archs", e[i].moe_triton_archs, e[i].n_moe_triton_archs);
        add_arch_list(o, "dsa_prefill_pad_archs", e[i].dsa_prefill_pad_archs, e[i].n_dsa_prefill_pad_archs);
        cJSON_AddBoolToObject(o, "fp8_attention", e[i].fp8_attention);
        cJSON_AddBoolToObject(o, "fp16_accumulate", e[i].fp16_accumulate);
        cJSON_AddStringToObject(o, "source", e[i].source);
        cJSON_AddItemToArray(arr, o);
    }
    return rj_finish(root);
}

char *render_json_gpus(const struct llmroof_gpu *g, size_t n)
{
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "gpus");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, gpu_entry(&g[i], NULL));
    return rj_finish(root);
}
