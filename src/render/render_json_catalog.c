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
        rj_str(o, "kind", "model");
    rj_str(o, "id", m->id);
    rj_str(o, "name", m->name);
    if (m->hf_id[0])
        rj_str(o, "hf_id", m->hf_id);
    rj_num(o, "hidden_size", (double)m->hidden);
    rj_num(o, "num_layers", (double)m->layers);
    rj_num(o, "num_heads", (double)m->heads);
    rj_num(o, "num_kv_heads", (double)m->kv_heads);
    rj_num(o, "head_dim", (double)m->head_dim);
    rj_num(o, "intermediate_size", (double)m->intermediate);
    rj_num(o, "vocab_size", (double)m->vocab);
    rj_num(o, "max_context", (double)m->max_context);
    if (m->learned_pos)
        rj_num(o, "learned_pos", (double)m->learned_pos);
    rj_bool(o, "tie_embeddings", m->tied_embeddings);
    rj_str(o, "mlp", m->mlp == LLMROOF_MLP_GATED ? "gated" : "plain");
    rj_str(o, "norm", m->norm == LLMROOF_NORM_RMS ? "rmsnorm" : "layernorm");
    rj_bool(o, "qkv_bias", m->qkv_bias);
    rj_bool(o, "o_bias", m->o_bias);
    rj_bool(o, "mlp_bias", m->mlp_bias);
    rj_bool(o, "parallel_attn", m->parallel_attn);
    if (m->moe_experts > 0) {
        cJSON *moe = rj_obj(o, "moe");
        rj_num(moe, "experts", (double)m->moe_experts);
        rj_num(moe, "experts_per_token", (double)m->moe_top_k);
        rj_num(moe, "expert_intermediate_size", (double)m->moe_intermediate);
        rj_num(moe, "shared_experts", (double)m->moe_shared);
        if (m->moe_first_dense > 0)
            rj_num(moe, "first_dense_layers", (double)m->moe_first_dense);
        if (m->moe_layer_step > 1)
            rj_num(moe, "layer_step", (double)m->moe_layer_step);
        if (m->moe_groups > 0)
            rj_num(moe, "groups", (double)m->moe_groups);
        if (m->moe_topk_groups > 0)
            rj_num(moe, "groups_per_token", (double)m->moe_topk_groups);
    }
    /* issue 16 fields, written only when set so a round trip through --models-file keeps them */
    if (m->kv_lora_rank > 0) {
        cJSON *mla = rj_obj(o, "mla");
        rj_num(mla, "q_lora_rank", (double)m->q_lora_rank);
        rj_num(mla, "kv_lora_rank", (double)m->kv_lora_rank);
        rj_num(mla, "qk_nope_head_dim", (double)m->qk_nope_dim);
        rj_num(mla, "qk_rope_head_dim", (double)m->qk_rope_dim);
        rj_num(mla, "v_head_dim", (double)m->v_head_dim);
    }
    if (m->window > 0) {
        cJSON *w = rj_obj(o, "sliding_window");
        rj_num(w, "size", (double)m->window);
        if (m->window_global_every > 0)
            rj_num(w, "global_every", (double)m->window_global_every);
        if (m->window_chunked)
            rj_bool(w, "chunked", true);
    }
    if (m->norms_per_layer > 0)
        rj_num(o, "norms_per_layer", (double)m->norms_per_layer);
    if (m->qk_norm)
        rj_bool(o, "qk_norm", true);
    if (m->attention_sinks)
        rj_bool(o, "attention_sinks", true);
    if (m->ckpt_format[0]) {
        cJSON *ck = rj_obj(o, "checkpoint");
        rj_str(ck, "format", m->ckpt_format);
        rj_num(ck, "bits", m->ckpt_bits);
        if (m->ckpt_expert_bits > 0)
            rj_num(ck, "expert_bits", m->ckpt_expert_bits);
        if (m->ckpt_per_op) { /* the GEMMs left 16-bit, as the catalog names them */
            cJSON *ex = rj_arr(ck, "excluded");
            for (int i = 0; ex && i < LLMROOF_CKPT_MODULES; i++)
                if (m->ckpt_excluded >> i & 1u)
                    rj_push(ex, cJSON_CreateString(catalog_ckpt_module_name(i)));
        }
    }
    if (m->mixers[0]) {
        cJSON *lp = rj_obj(o, "layer_pattern");
        rj_str(lp, "mixers", m->mixers);
        rj_str(lp, "ffns", m->ffns);
        bool widths = false;
        for (long i = 0; i < m->layers && i < LLMROOF_PATTERN_MAX; i++)
            widths = widths || m->ffn_widths[i] > 0;
        if (widths) {
            cJSON *fw = rj_arr(lp, "ffn_widths");
            for (long i = 0; i < m->layers && i < LLMROOF_PATTERN_MAX; i++)
                rj_push(fw, cJSON_CreateNumber((double)m->ffn_widths[i]));
        }
    }
    if (m->linear_kind != LLMROOF_LINEAR_NONE) {
        cJSON *ln = rj_obj(o, "linear");
        rj_str(ln, "kind", linear_kind_name(m->linear_kind));
        rj_num(ln, "heads", (double)m->lin_heads);
        rj_num(ln, "key_heads", (double)m->lin_k_heads);
        rj_num(ln, "key_dim", (double)m->lin_k_dim);
        rj_num(ln, "value_dim", (double)m->lin_v_dim);
        if (m->lin_conv > 0)
            rj_num(ln, "conv_kernel", (double)m->lin_conv);
        if (m->lin_state_dtype_set)
            rj_str(ln, "state_dtype", dtype_name(m->lin_state_dtype));
    }
    if (m->dsa_top_k > 0) {
        cJSON *ds = rj_obj(o, "dsa");
        rj_num(ds, "top_k", (double)m->dsa_top_k);
        rj_num(ds, "index_heads", (double)m->dsa_heads);
        rj_num(ds, "index_head_dim", (double)m->dsa_head_dim);
    }
    if (m->attn_gate)
        rj_bool(o, "attn_gate", true);
    if (m->has_params_published)
        rj_num(o, "params_published", m->params_published);
    if (m->params_active_published > 0)
        rj_num(o, "params_active_published", m->params_active_published);
    if (m->mtp_layers > 0)
        rj_num(o, "mtp_layers", (double)m->mtp_layers);
    rj_str(o, "source", m->source);
    return o;
}

/* An entry's "aliases" array, where it has any (GPUs and engines) */
static void add_aliases(cJSON *o, const char (*aliases)[LLMROOF_ID_MAX], int n)
{
    if (n <= 0)
        return;
    cJSON *a = rj_arr(o, "aliases");
    for (int i = 0; i < n; i++)
        rj_push(a, cJSON_CreateString(aliases[i]));
}

static cJSON *gpu_entry(const struct llmroof_gpu *g, const char *schema)
{
    cJSON *o = rj_new_doc(schema);
    if (schema)
        rj_str(o, "kind", "gpu");
    rj_str(o, "id", g->id);
    rj_str(o, "name", g->name);
    add_aliases(o, (const char (*)[LLMROOF_ID_MAX])g->aliases, g->n_aliases);
    rj_num(o, "memory_bytes", g->memory_bytes);
    rj_num(o, "memory_visible_bytes", g->memory_visible_bytes);
    rj_num(o, "memory_bandwidth_Bps", g->mem_bw_Bps);
    cJSON *pf = rj_obj(o, "peak_flops");
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++)
        if (g->has_peak[d])
            rj_num(pf, dtype_name((enum llmroof_dtype)d), g->peak_flops[d]);
    cJSON *ic = rj_obj(o, "interconnect");
    rj_str(ic, "kind", link_name(g->link));
    rj_num(ic, "bandwidth_Bps", g->link_bw_Bps);
    rj_num(ic, "latency_s", g->link_latency_s);
    rj_num(ic, "hop_latency_s", g->link_hop_latency_s);
    /* the optional fields the loader reads (catalog_gpu.c parse_gpu), when set: a written entry
     * loads back as the same GPU (test_catalog's round trip) */
    if (g->nvls_bw_Bps > 0)
        rj_num(ic, "nvls_bandwidth_Bps", g->nvls_bw_Bps);
    if (g->mesh_links > 0)
        rj_num(ic, "mesh_links", g->mesh_links);
    if (g->custom_ar_latency_s > 0)
        rj_num(ic, "custom_allreduce_latency_s", g->custom_ar_latency_s);
    if (g->simple_step_s > 0)
        rj_num(ic, "simple_step_latency_s", g->simple_step_s);
    if (g->ll128_share > 0)
        rj_num(ic, "ll128_bandwidth_share", g->ll128_share);
    cJSON *ef = rj_obj(o, "efficiency");
    rj_num(ef, "compute", g->compute_eff);
    rj_num(ef, "memory", g->memory_eff);
    if (g->memory_eff_fitted) /* a fit to the validation rows, which a cross-validation replaces */
        rj_bool(ef, "memory_fitted", true);
    rj_num(ef, "comm", g->comm_eff);
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
            rj_num(ef, opt[i].key, opt[i].v);
    rj_num(o, "step_overhead_s", g->step_overhead_s);
    rj_num(o, "gpus_per_node", g->gpus_per_node);
    if (g->sm_count > 0)
        rj_num(o, "sm_count", g->sm_count);
    rj_num(o, "domain_gpus", g->domain_gpus);
    cJSON *nw = rj_obj(o, "network");
    rj_str(nw, "kind", g->net_kind);
    rj_num(nw, "bandwidth_Bps", g->net_bw_Bps);
    rj_num(nw, "latency_s", g->net_latency_s);
    if (g->host_cpu_speed > 0) {
        cJSON *h = rj_obj(o, "host");
        rj_str(h, "cpu", g->host_cpu);
        rj_num(h, "cpu_speed", g->host_cpu_speed);
    }
    if (g->arch[0])
        rj_str(o, "arch", g->arch);
    rj_str(o, "source", g->source);
    return o;
}

char *render_json_model_doc(const struct llmroof_model *m)
{
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = rj_arr(root, "models");
    rj_push(arr, model_entry(m, NULL));
    return rj_finish(root);
}

char *render_json_show_model(const struct llmroof_model *m)
{
    cJSON *o = model_entry(m, "llmroof.show/1");
    struct llmroof_params p = arch_params(m);
    cJSON *d = rj_obj(o, "derived");
    rj_num(d, "params_total", p.total);
    rj_num(d, "params_active", p.active);
    rj_num(d, "params_embedding", p.embedding);
    rj_num(d, "params_lm_head", p.lm_head);
    rj_num(d, "weight_bytes_fp16", p.total * 2.0);
    rj_num(d, "kv_bytes_per_token_fp16", arch_kv_bytes_per_token(m, 2.0));
    if (arch_state_elems_per_seq(m) > 0) /* recurrent layers only: the other models' documents stay as they were */
        rj_num(d, "state_bytes_per_seq_fp16", arch_state_elems_per_seq(m) * 2.0);
    return rj_finish(o);
}

char *render_json_show_gpu(const struct llmroof_gpu *g)
{
    cJSON *o = gpu_entry(g, "llmroof.show/1");
    cJSON *d = rj_obj(o, "derived");
    cJSON *r = rj_obj(d, "ridge_flops_per_byte");
    for (int k = 0; k < LLMROOF_DTYPE_COUNT; k++)
        if (g->has_peak[k])
            rj_num(r, dtype_name((enum llmroof_dtype)k), g->peak_flops[k] / g->mem_bw_Bps);
    return rj_finish(o);
}

char *render_json_gpu_doc(const struct llmroof_gpu *g, const struct llmroof_effs *e, const char *note)
{
    struct llmroof_gpu copy = *g;
    copy.compute_eff = e->compute;
    copy.memory_eff_fitted |= e->memory != g->memory_eff; /* a fit to the calibration rows */
    copy.memory_eff = e->memory;
    copy.comm_eff = e->comm;
    copy.step_overhead_s = e->overhead_s;
    size_t n = strlen(copy.source);
    snprintf(copy.source + n, sizeof copy.source - n, "%s%s", n ? "; " : "", note);
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = rj_arr(root, "gpus");
    rj_push(arr, gpu_entry(&copy, NULL));
    return rj_finish(root);
}

/* An optional catalog number: written when set (positive), left out at its default of 0. */
static void add_positive(cJSON *o, const char *name, double v)
{
    if (v > 0)
        rj_num(o, name, v);
}

/* An engine's architecture list as a JSON array of names, when it has any. */
static void add_arch_list(cJSON *o, const char *key, const char (*archs)[LLMROOF_ARCH_MAX], int n)
{
    if (n <= 0)
        return;
    cJSON *arr = rj_arr(o, key);
    for (int a = 0; a < n; a++)
        rj_push(arr, cJSON_CreateString(archs[a]));
}

char *render_json_engines(const struct llmroof_engine *e, int n)
{
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = rj_arr(root, "engines");
    for (int i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        rj_str(o, "id", e[i].id);
        rj_str(o, "name", e[i].name);
        add_aliases(o, (const char (*)[LLMROOF_ID_MAX])e[i].aliases, e[i].n_aliases);
        rj_num(o, "step_overhead_s", round(e[i].step_overhead_s * 1e7) / 1e7);
        rj_num(o, "first_token_s", round(e[i].first_token_s * 1e6) / 1e6);
        add_positive(o, "api_first_token_s", round(e[i].api_first_token_s * 1e6) / 1e6);
        add_positive(o, "api_prompt_token_s", round(e[i].api_prompt_token_s * 1e9) / 1e9);
        rj_num(o, "compute_scale", round(e[i].compute_scale * 1e3) / 1e3);
        rj_num(o, "collective_latency_s", round(e[i].collective_latency_s * 1e8) / 1e8);
        /* what the fit never touches: the engine's code, as the loader reads it */
        add_positive(o, "launch_s", (double)e[i].launch_s);
        add_positive(o, "launch_mla_s", (double)e[i].launch_mla_s);
        add_positive(o, "kernel_factor", (double)e[i].kernel_factor);
        add_positive(o, "dequant_min_tokens", (double)e[i].dequant_min_tokens);
        add_positive(o, "prompt_ubatch_tokens", (double)e[i].prompt_ubatch_tokens);
        if (e[i].logits_all_tokens)
            rj_bool(o, "logits_all_tokens", true);
        if (e[i].kv_copy)
            rj_bool(o, "kv_copy", true);
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
            rj_str(o, "admission", "no-evict");
        if (e[i].admit_reserve)
            rj_str(o, "admission", "reserve");
        if (e[i].admit_wait)
            rj_str(o, "admission", "wait");
        add_positive(o, "max_seqs", (double)e[i].max_seqs);
        add_positive(o, "spec_max_seqs", (double)e[i].spec_max_seqs);
        add_positive(o, "max_batch", (double)e[i].max_batch);
        add_positive(o, "max_gpus", (double)e[i].max_gpus);
        add_positive(o, "kv_block_tokens", (double)e[i].kv_block_tokens);
        add_positive(o, "mem_util", (double)e[i].mem_util);
        if (e[i].has_reserve)
            rj_num(o, "reserve_bytes", e[i].reserve_bytes);
        if (e[i].kv_of_free_memory)
            rj_bool(o, "kv_of_free_memory", true);
        if (e[i].mem_static)
            rj_bool(o, "mem_static", true);
        add_positive(o, "mem_reserve_spec_MiB", e[i].mem_reserve_spec_MiB);
        add_positive(o, "mem_reserve_dp_attention_MiB", e[i].mem_reserve_dp_attention_MiB);
        if (e[i].n_util_by_tp > 0) {
            cJSON *ut = rj_arr(o, "mem_util_by_tp");
            for (int k = 0; k < e[i].n_util_by_tp; k++) {
                cJSON *b = cJSON_CreateObject();
                rj_num(b, "from_tp", e[i].util_by_tp[k].from_tp);
                rj_num(b, "mem_util", e[i].util_by_tp[k].mem_util);
                rj_push(ut, b);
            }
        }
        add_positive(o, "max_batched_tokens", (double)e[i].max_batched_tokens);
        add_positive(o, "large_gpu_max_seqs", (double)e[i].large_gpu_max_seqs);
        add_positive(o, "large_gpu_max_batched_tokens", (double)e[i].large_gpu_max_batched_tokens);
        add_positive(o, "offline_max_batched_tokens", (double)e[i].offline_max_batched_tokens);
        add_positive(o, "offline_large_gpu_max_batched_tokens", (double)e[i].offline_large_gpu_max_batched_tokens);
        if (e[i].offline_sizing == LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH)
            rj_str(o, "offline_sizing", "trtllm-bench");
        else if (e[i].offline_sizing == LLMROOF_OFFLINE_SIZING_TRTLLM_BENCH_ENGINE)
            rj_str(o, "offline_sizing", "trtllm-bench-engine");
        add_positive(o, "tp_step_overhead_s", (double)e[i].tp_step_overhead_s);
        add_positive(o, "ray_output_token_s", (double)e[i].ray_output_token_s);
        if (e[i].ray_workers)
            rj_bool(o, "ray_workers", true);
        add_positive(o, "chunked_prefill_min_context", (double)e[i].chunked_prefill_min_context);
        add_positive(o, "chunked_max_batched_tokens", (double)e[i].chunked_max_batched_tokens);
        if (e[i].budget_min_context)
            rj_bool(o, "budget_min_context", true);
        if (e[i].whole_prefill)
            rj_bool(o, "chunked_prefill", false);
        if (e[i].prefill_first)
            rj_bool(o, "prefill_first", true);
        if (e[i].static_batching)
            rj_bool(o, "static_batching", true);
        if (e[i].dp_rank_scheduler)
            rj_bool(o, "dp_rank_scheduler", true);
        if (e[i].moe_tp_shared_local)
            rj_bool(o, "moe_tp_shared_local", true);
        if (e[i].moe_gemv)
            rj_bool(o, "moe_gemv", true);
        if (e[i].dp_lm_head_split)
            rj_bool(o, "dp_lm_head_split", true);
        if (e[i].spec_state_per_token)
            rj_bool(o, "spec_state_per_token", true);
        if (e[i].ssm_state_fp32)
            rj_bool(o, "ssm_state_fp32", true);
        if (e[i].prompt_within_budget)
            rj_bool(o, "prompt_within_budget", true);
        add_positive(o, "waiting_served_ratio", (double)e[i].waiting_served_ratio);
        add_positive(o, "max_waiting_steps", (double)e[i].max_waiting_steps);
        add_positive(o, "max_paddings", (double)e[i].max_paddings);
        if (e[i].max_paddings_option)
            rj_bool(o, "max_paddings_option", true);
        if (e[i].multi_step_scheduling)
            rj_bool(o, "multi_step_scheduling", true);
        if (e[i].recv_interval_option)
            rj_bool(o, "recv_interval_option", true);
        if (e[i].spec_no_overlap)
            rj_bool(o, "spec_no_overlap", true);
        if (e[i].spec_draft_graph)
            rj_bool(o, "spec_draft_graph", true);
        if (e[i].pd_decode_first_token)
            rj_bool(o, "pd_decode_first_token", true);
        if (e[i].pd_decode_first_token && e[i].pd_decode_resample)
            rj_bool(o, "pd_decode_resample", true);
        if (e[i].pd_decode_prealloc)
            rj_bool(o, "pd_decode_prealloc", true);
        if (e[i].pd_kv_full_window)
            rj_bool(o, "pd_kv_full_window", true);
        if (e[i].dsa_flashmla_pad)
            rj_bool(o, "dsa_flashmla_pad", true);
        if (e[i].dsa_dense_short_prefill)
            rj_bool(o, "dsa_dense_short_prefill", true);
        add_positive(o, "max_concurrent_requests", (double)e[i].max_concurrent_requests);
        add_positive(o, "pd_decode_reserve_tokens", (double)e[i].pd_decode_reserve_tokens);
        if (!e[i].disaggregation) /* (the default is true) */
            rj_bool(o, "disaggregation", false);
        if (!e[i].dp_attention)
            rj_bool(o, "dp_attention", false);
        if (!e[i].expert_parallel)
            rj_bool(o, "expert_parallel", false);
        if (e[i].cuda_only)
            rj_bool(o, "cuda_only", true);
        if (e[i].prefix_cache)
            rj_bool(o, "prefix_cache", true);
        if (e[i].n_mem_tiers > 0) {
            cJSON *tiers = rj_arr(o, "gpu_memory_tiers");
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
                rj_push(tiers, b);
            }
        }
        rj_str(o, "attention_kernel", attn_kernel_name(e[i].attention));
        rj_str(o, "act_quant", act_quant_name(e[i].act_quant));
        rj_bool(o, "cuda_graphs", e[i].cuda_graphs);
        add_positive(o, "graph_max_batch", (double)e[i].graph_max_batch);
        if (e[i].graph_piecewise)
            rj_bool(o, "graph_piecewise", true);
        add_positive(o, "graph_every_batch_to", (double)e[i].graph_every_batch_to);
        rj_bool(o, "custom_allreduce", e[i].custom_allreduce);
        rj_bool(o, "first_token_decode", e[i].first_token_decode);
        rj_bool(o, "kv_per_query_head", e[i].kv_per_query_head);
        if (e[i].quantized_head)
            rj_bool(o, "quantized_head", true);
        if (e[i].fp8_kv_per_query_head)
            rj_bool(o, "fp8_kv_per_query_head", true);
        if (e[i].cuda_core_decode)
            rj_bool(o, "cuda_core_decode", true);
        add_positive(o, "kv_heads_per_read", (double)e[i].kv_heads_per_read);
        add_arch_list(o, "varlen_fa2_archs", e[i].varlen_fa2_archs, e[i].n_varlen_fa2_archs);
        add_arch_list(o, "fa2_archs", e[i].fa2_archs, e[i].n_fa2_archs);
        add_arch_list(o, "moe_triton_archs", e[i].moe_triton_archs, e[i].n_moe_triton_archs);
        add_arch_list(o, "dsa_prefill_pad_archs", e[i].dsa_prefill_pad_archs, e[i].n_dsa_prefill_pad_archs);
        if (e[i].spec_methods_stated) { /* [] states none; absent: not stated, --spec unchecked */
            cJSON *sm = rj_arr(o, "spec_methods");
            for (int b = 0; b < 5; b++)
                if (e[i].spec_methods & (1u << b))
                    rj_push(sm, cJSON_CreateString(llmroof_spec_method_names[b]));
        }
        rj_bool(o, "fp8_attention", e[i].fp8_attention);
        rj_bool(o, "fp16_accumulate", e[i].fp16_accumulate);
        rj_str(o, "source", e[i].source);
        rj_push(arr, o);
    }
    return rj_finish(root);
}

char *render_json_gpus(const struct llmroof_gpu *g, size_t n)
{
    cJSON *root = rj_new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = rj_arr(root, "gpus");
    for (size_t i = 0; i < n; i++)
        rj_push(arr, gpu_entry(&g[i], NULL));
    return rj_finish(root);
}
