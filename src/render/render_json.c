/* render_json.c - see llmroof/render_json.h */
#include "render/render_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/arch.h"
#include "serve/launch.h"

/* cJSON_Print output followed by a newline; frees the tree. */
static char *finish(cJSON *root)
{
    if (!root)
        return NULL;
    char *s = cJSON_Print(root);
    cJSON_Delete(root);
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *r = realloc(s, n + 2);
    if (!r) {
        free(s);
        return NULL;
    }
    r[n] = '\n';
    r[n + 1] = '\0';
    return r;
}

/* Every JSON document llmroof prints starts with "schema": "llmroof.<command>/1" (docs/json.md),
 * so a script can check what it reads; the version changes only when a field changes meaning
 * or disappears (new fields are added without a new version). */
static cJSON *new_doc(const char *schema)
{
    cJSON *o = cJSON_CreateObject();
    if (o && schema)
        cJSON_AddStringToObject(o, "schema", schema);
    return o;
}

/* An array with one object per row; numeric cells are numbers. */
static cJSON *table_array(const struct table *t)
{
    char buf[64];
    if (t->failed)
        return NULL;
    cJSON *arr = cJSON_CreateArray();
    for (size_t r = 0; arr && r < t->nrows; r++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        for (int c = 0; c < t->ncols; c++) {
            const struct table_cell *cell = &t->cells[r * (size_t)t->ncols + (size_t)c];
            if (cell->is_num)
                cJSON_AddNumberToObject(o, t->col[c], cell->num);
            else if (cell->str)
                cJSON_AddStringToObject(o, t->col[c], table_cell_text(t, r, c, buf));
            else
                cJSON_AddNullToObject(o, t->col[c]);
        }
    }
    return arr;
}

struct rjdoc {
    cJSON *root; /* the document; NULL after an allocation failure */
};

struct rjdoc *rjdoc_new(const char *schema)
{
    struct rjdoc *d = malloc(sizeof *d);
    if (d)
        d->root = new_doc(schema);
    return d;
}

void rjdoc_table(struct rjdoc *d, const char *key, const struct table *t)
{
    if (!d || !d->root)
        return;
    cJSON *arr = table_array(t);
    if (!arr || cJSON_GetObjectItemCaseSensitive(d->root, key) || !cJSON_AddItemToObject(d->root, key, arr)) {
        cJSON_Delete(arr);
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_str(struct rjdoc *d, const char *key, const char *value)
{
    if (d && d->root && !cJSON_AddStringToObject(d->root, key, value)) {
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_num(struct rjdoc *d, const char *key, double value)
{
    if (d && d->root && !cJSON_AddNumberToObject(d->root, key, value)) {
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_bool(struct rjdoc *d, const char *key, bool value)
{
    if (d && d->root && !cJSON_AddBoolToObject(d->root, key, value)) {
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_drift(struct rjdoc *d, long line, const struct sweep_row *row, const char *field, bool numeric,
                 double baseline, double now, const char *baseline_text, const char *now_text)
{
    if (!d || !d->root)
        return;
    cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->root, "drifts");
    if (!arr)
        arr = cJSON_AddArrayToObject(d->root, "drifts");
    cJSON *o = cJSON_CreateObject();
    if (!field) { /* only the (empty) array */
        cJSON_Delete(o);
        return;
    }
    if (!arr || !o || !cJSON_AddItemToArray(arr, o)) {
        cJSON_Delete(o);
        cJSON_Delete(d->root);
        d->root = NULL;
        return;
    }
    cJSON_AddNumberToObject(o, "line", (double)line);
    cJSON_AddStringToObject(o, "model", row->model);
    cJSON_AddStringToObject(o, "gpu", row->gpu);
    cJSON_AddNumberToObject(o, "tp", row->tp);
    cJSON_AddNumberToObject(o, "batch", (double)row->batch);
    cJSON_AddNumberToObject(o, "prompt_len", (double)row->prompt);
    cJSON_AddNumberToObject(o, "output_len", (double)row->output);
    cJSON_AddStringToObject(o, "weight_dtype", dtype_name(row->dt.weight));
    cJSON_AddStringToObject(o, "kv_dtype", dtype_name(row->dt.kv));
    cJSON_AddStringToObject(o, "act_dtype", dtype_name(row->dt.act));
    cJSON_AddStringToObject(o, "field", field);
    if (numeric) {
        cJSON_AddNumberToObject(o, "baseline", baseline);
        cJSON_AddNumberToObject(o, "now", now);
        if (baseline != 0)
            cJSON_AddNumberToObject(o, "change", (now - baseline) / fabs(baseline));
        else
            cJSON_AddNullToObject(o, "change");
    } else {
        cJSON_AddStringToObject(o, "baseline", baseline_text);
        cJSON_AddStringToObject(o, "now", now_text);
    }
}

char *rjdoc_finish(struct rjdoc *d)
{
    if (!d)
        return NULL;
    cJSON *root = d->root;
    free(d);
    return finish(root);
}

void rjdoc_free(struct rjdoc *d)
{
    if (!d)
        return;
    cJSON_Delete(d->root);
    free(d);
}

static cJSON *model_entry(const struct llmroof_model *m, const char *schema)
{
    cJSON *o = new_doc(schema);
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
    cJSON *o = new_doc(schema);
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
                { "attention_memory", g->attn_mem_eff }, { "attention_memory_fa2", g->attn_mem_fa2_eff } };
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
    cJSON *root = new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "models");
    cJSON_AddItemToArray(arr, model_entry(m, NULL));
    return finish(root);
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
    return finish(o);
}

char *render_json_show_gpu(const struct llmroof_gpu *g)
{
    cJSON *o = gpu_entry(g, "llmroof.show/1");
    cJSON *d = cJSON_AddObjectToObject(o, "derived");
    cJSON *r = cJSON_AddObjectToObject(d, "ridge_flops_per_byte");
    for (int k = 0; k < LLMROOF_DTYPE_COUNT; k++)
        if (g->has_peak[k])
            cJSON_AddNumberToObject(r, dtype_name((enum llmroof_dtype)k), g->peak_flops[k] / g->mem_bw_Bps);
    return finish(o);
}

/* The `layout` object of estimate, memory and simulate (docs/json.md): added beyond TP only
 * (docs/model.md section 10), so TP-only documents keep their shape. Returns it, or NULL when
 * the layout is TP alone; estimate adds its pipeline fields to it. */
static cJSON *add_layout(cJSON *o, const struct llmroof_shard *sh)
{
    if (!sh || !(sh->pp > 1 || sh->ep > 1 || sh->mlp_gather))
        return NULL;
    cJSON *ly = cJSON_AddObjectToObject(o, "layout");
    cJSON_AddNumberToObject(ly, "pp", sh->pp);
    cJSON_AddNumberToObject(ly, "ep", sh->ep);
    cJSON_AddBoolToObject(ly, "dp_attention", sh->dp_attn);
    cJSON_AddNumberToObject(ly, "ep_imbalance", sh->ep_imbalance);
    cJSON_AddBoolToObject(ly, "two_batch_overlap", sh->two_batch_overlap);
    cJSON_AddNumberToObject(ly, "gpus", sh->gpus);
    if (sh->mlp_gather) /* --moe-tp only, so the other layouts' documents keep their shape */
        cJSON_AddNumberToObject(ly, "moe_tp", sh->moe_tp);
    return ly;
}

static void add_memory_fields(cJSON *o, const struct llmroof_memory *mem)
{
    cJSON_AddNumberToObject(o, "context_len", (double)mem->context_len);
    cJSON_AddBoolToObject(o, "fits", mem->fits);
    cJSON_AddStringToObject(o, "fit", mem->fit == LLMROOF_FITS ? "fits"
                                     : mem->fit == LLMROOF_FIT_WEIGHTS ? "weights_do_not_fit"
                                     : mem->fit == LLMROOF_FIT_BATCH   ? "batch_does_not_fit"
                                                                      : "context_does_not_fit");
    cJSON_AddNumberToObject(o, "gpu_memory_bytes", mem->gpu_memory_bytes);
    cJSON_AddNumberToObject(o, "visible_bytes_per_gpu", mem->visible_bytes);
    cJSON_AddNumberToObject(o, "mem_util", mem->mem_util);
    cJSON_AddNumberToObject(o, "usable_bytes_per_gpu", mem->usable_bytes);
    cJSON_AddNumberToObject(o, "weights_bytes_per_gpu", mem->weights_bytes_per_gpu);
    cJSON_AddNumberToObject(o, "workspace_bytes_per_gpu", mem->workspace_bytes_per_gpu);
    cJSON_AddNumberToObject(o, "reserve_bytes_per_gpu", mem->reserve_bytes_per_gpu);
    if (mem->drafter_bytes_per_gpu > 0) /* estimate --spec: the drafter's weights beside the target's */
        cJSON_AddNumberToObject(o, "drafter_bytes_per_gpu", mem->drafter_bytes_per_gpu);
    cJSON_AddNumberToObject(o, "kv_capacity_bytes_per_gpu", mem->kv_capacity_bytes_per_gpu);
    if (mem->kv_copy) /* TGI 0.8: the capacity is half of usable - weights - workspace - reserve */
        cJSON_AddBoolToObject(o, "kv_pool_halved", true);
    cJSON_AddNumberToObject(o, "kv_bytes_per_token", mem->kv_bytes_per_token);
    cJSON_AddNumberToObject(o, "kv_bytes_per_token_per_gpu", mem->kv_bytes_per_token_per_gpu);
    if (mem->state_bytes_per_seq > 0) { /* recurrent layers only */
        cJSON_AddNumberToObject(o, "state_bytes_per_seq", mem->state_bytes_per_seq);
        cJSON_AddNumberToObject(o, "state_bytes_per_seq_per_gpu", mem->state_bytes_per_seq_per_gpu);
    }
    cJSON_AddNumberToObject(o, "kv_capacity_tokens", mem->kv_capacity_tokens);
    if (mem->attn_dp > 1)
        cJSON_AddNumberToObject(o, "kv_capacity_tokens_replica", mem->kv_capacity_tokens_replica);
    cJSON_AddNumberToObject(o, "max_batch", mem->max_batch);
    if (mem->min_tp_fit)
        cJSON_AddNumberToObject(o, "min_tp_fit", mem->min_tp_fit);
    else
        cJSON_AddNullToObject(o, "min_tp_fit");
}

/* Below 16-bit weights: the bytes a weight of the embedding, LM head and MoE router takes, 2 where
 * they stay 16-bit (ops_unquantized_bytes; docs/model.md "Quantized weights: what stays 16-bit"),
 * so that weights_bytes_per_gpu reads against the weight dtype */
static void add_head_bytes(cJSON *o, const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    if (ops_weight_bytes(dt) < 2.0)
        cJSON_AddNumberToObject(o, "head_bytes_per_weight", ops_unquantized_bytes(m, dt, true));
}

char *render_json_memory(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                         const struct llmroof_dtypes *dt, const struct llmroof_memory *mem,
                         const struct llmroof_shard *sh, const struct llmroof_engine *engine)
{
    cJSON *o = new_doc("llmroof.memory/1");
    cJSON_AddStringToObject(o, "model", m->id);
    cJSON_AddStringToObject(o, "gpu", g->id);
    if (engine)
        cJSON_AddStringToObject(o, "engine", engine->id);
    cJSON_AddNumberToObject(o, "tp", tp);
    const bool layout = add_layout(o, sh) != NULL;
    cJSON_AddStringToObject(o, "weight_dtype", dtype_name(dt->weight));
    add_head_bytes(o, m, dt);
    cJSON_AddStringToObject(o, "kv_dtype", dtype_name(dt->kv));
    add_memory_fields(o, mem);
    /* min_tp_fit is plain TP's (memory.c: no PP, EP or data-parallel attention), while fits
     * judges the layout asked about: say so beside it, or TP 1 x 8 replicas that fit read
     * against min_tp_fit 8 as a contradiction (review17b item 6) */
    if (layout)
        cJSON_AddBoolToObject(o, "min_tp_fit_plain_tp", true);
    return finish(o);
}

/* A phase's totals into o, with the split of its columns `sp` (estimate_phase_split, or a
 * drafter's summed passes): time_s = compute_s + memory_s - overlapped_s + kernel_s + comm_s -
 * hidden_s + cpu_wait_s + overhead_s */
static void phase_totals_json(cJSON *o, const struct llmroof_phase *p, const struct estimate_split *sp)
{
    cJSON_AddNumberToObject(o, "time_s", p->time_s);
    cJSON_AddNumberToObject(o, "compute_s", p->compute_s);
    cJSON_AddNumberToObject(o, "memory_s", p->memory_s);
    cJSON_AddNumberToObject(o, "comm_s", p->comm_s);
    cJSON_AddNumberToObject(o, "overhead_s", p->overhead_s);
    cJSON_AddNumberToObject(o, "kernel_s", sp->kernel_s);
    cJSON_AddNumberToObject(o, "overlapped_s", sp->overlapped_s);
    if (p->cpu_wait_s > 0) /* eager engines: kernel launches beyond the GPU time (docs/model.md 3a) */
        cJSON_AddNumberToObject(o, "cpu_wait_s", p->cpu_wait_s);
    if (p->a2a_overlap) /* two-batch overlap: the all-to-all time the other micro-batch hides (comm_s counts it) */
        cJSON_AddNumberToObject(o, "hidden_s", p->hidden_s);
    cJSON_AddNumberToObject(o, "flops", p->flops);
    cJSON_AddNumberToObject(o, "bytes", p->bytes);
    cJSON_AddNumberToObject(o, "comm_bytes", p->comm_bytes);
    cJSON_AddStringToObject(o, "bound", bound_name(p->bound));
}

static cJSON *phase_json(const struct llmroof_phase *p, const struct estimate_split *split,
                         const struct llmroof_oplist *ops)
{
    cJSON *o = cJSON_CreateObject();
    const struct estimate_split sp = split ? *split : estimate_phase_split(p);
    phase_totals_json(o, p, &sp);
    cJSON *arr = cJSON_AddArrayToObject(o, "ops");
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_op *op = &ops->op[k];
        if (op->count <= 0)
            continue;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "name", op_name((enum llmroof_opkind)k));
        cJSON_AddNumberToObject(x, "count", op->count);
        cJSON_AddNumberToObject(x, "flops", op->count * op->flops);
        cJSON_AddNumberToObject(x, "bytes", p->op[k].bytes);
        cJSON_AddNumberToObject(x, "comm_bytes", p->op[k].comm_bytes);
        cJSON_AddNumberToObject(x, "time_s", p->op[k].time_s);
        cJSON_AddNumberToObject(x, "share", p->time_s > 0 ? p->op[k].time_s / p->time_s : 0.0);
        cJSON_AddStringToObject(x, "bound", bound_name(p->op[k].bound));
        cJSON_AddItemToArray(arr, x);
    }
    return o;
}

static void add_range(cJSON *o, const char *key, double v, const struct llmroof_band *b, bool rate)
{
    if (!b->present)
        return;
    cJSON *a = cJSON_AddArrayToObject(o, key);
    cJSON_AddItemToArray(a, cJSON_CreateNumber(rate ? v / b->high : v * b->low));
    cJSON_AddItemToArray(a, cJSON_CreateNumber(rate ? v / b->low : v * b->high));
}

char *render_json_estimate(const struct llmroof_setup *s, const struct llmroof_request *r,
                           const struct llmroof_estimate *e, const struct llmroof_memory *mem,
                           const struct llmroof_uncertainty *bands)
{
    cJSON *o = new_doc("llmroof.estimate/1");
    cJSON_AddStringToObject(o, "model", s->model->id);
    cJSON_AddStringToObject(o, "gpu", s->gpu->id);
    cJSON_AddNumberToObject(o, "tp", s->tp);
    cJSON_AddNumberToObject(o, "batch", (double)r->batch);
    cJSON_AddNumberToObject(o, "prompt_len", (double)r->prompt);
    cJSON_AddNumberToObject(o, "output_len", (double)r->output);
    /* the text output's warning, for a caller that reads JSON alone (the page had shown a prompt
     * past the model's context as valid; a review) */
    cJSON_AddNumberToObject(o, "max_context", (double)s->model->max_context);
    cJSON_AddBoolToObject(o, "within_max_context", r->prompt + r->output <= s->model->max_context);
    cJSON_AddStringToObject(o, "weight_dtype", dtype_name(s->dt.weight));
    cJSON_AddStringToObject(o, "kv_dtype", dtype_name(s->dt.kv));
    cJSON_AddStringToObject(o, "act_dtype", dtype_name(s->dt.act));
    if (s->dt.weight_bits > 0)
        cJSON_AddNumberToObject(o, "weight_bits", s->dt.weight_bits);
    add_head_bytes(o, s->model, &s->dt);
    if (s->dt.state_set)
        cJSON_AddStringToObject(o, "state_dtype", dtype_name(s->dt.state));
    /* a checkpoint's GEMMs on a path of their own on this GPU (NVFP4, block fp8: ops.h) */
    enum llmroof_dtype low;
    const unsigned mods = ops_ckpt_lowp_modules(s->model, &s->dt, &low);
    if (mods && low != s->dt.act) {
        cJSON *cg = cJSON_AddObjectToObject(o, "checkpoint_gemms");
        cJSON_AddStringToObject(cg, "dtype", dtype_name(low));
        /* native: the GPU's tensor path for that dtype; weight-only: widened to the activations' */
        cJSON_AddStringToObject(cg, "path", s->gpu->has_peak[low] ? "native" : "weight-only");
        cJSON *ml = cJSON_AddArrayToObject(cg, "modules");
        for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
            if (mods >> i & 1u)
                cJSON_AddItemToArray(ml, cJSON_CreateString(catalog_ckpt_module_name(i)));
    }
    cJSON *ef = cJSON_AddObjectToObject(o, "efficiency");
    cJSON_AddNumberToObject(ef, "compute", s->eff.compute);
    cJSON_AddNumberToObject(ef, "memory", s->eff.memory);
    cJSON_AddNumberToObject(ef, "comm", s->eff.comm);
    cJSON_AddNumberToObject(ef, "overhead_s", roofline_step_overhead_s(&s->eff, s->tp)); /* as a step adds it */
    cJSON_AddNumberToObject(ef, "first_token_s", s->eff.first_token_s);
    cJSON_AddNumberToObject(ef, "collective_latency_s", s->eff.comm_latency_s);
    if (s->eff.engine_id) { /* which profile, and the host speed its CPU costs were scaled to */
        cJSON_AddStringToObject(ef, "engine", s->eff.engine_id);
        cJSON_AddNumberToObject(ef, "host_cpu_speed", s->eff.cpu_scale > 0 ? 1.0 / s->eff.cpu_scale : 1.0);
        if (s->eff.ray_engine) /* overhead_s then holds the Ray call at any TP */
            cJSON_AddBoolToObject(ef, "engine_use_ray", true);
        if (s->eff.ray_workers) /* the profile's Ray workers: the same call at any TP */
            cJSON_AddBoolToObject(ef, "ray_workers", true);
    }
    cJSON_AddBoolToObject(o, "kv_heads_replicated", e->shard.kv_replicated);
    cJSON *ly = add_layout(o, &e->shard);
    if (ly) { /* a static batch's pipeline: estimate's own */
        cJSON_AddNumberToObject(ly, "micro_batches", e->micro_batches);
        cJSON_AddNumberToObject(ly, "pp_bubble_s", e->pp_bubble_s);
    }
    if (e->first_step_s > 0)
        cJSON_AddNumberToObject(o, "first_token_step_s", e->first_step_s);
    if (e->cpu_prefill_s > 0 || e->cpu_step_s > 0) { /* the engine's per-sequence CPU work */
        cJSON_AddNumberToObject(o, "cpu_first_token_s", e->cpu_prefill_s);
        cJSON_AddNumberToObject(o, "cpu_step_s", e->cpu_step_s);
    }
    if (e->kv_copy_s > 0) /* TGI 0.8's contiguous K/V copied every decode step */
        cJSON_AddNumberToObject(o, "kv_copy_step_s", e->kv_copy_s);
    /* one output token leaves no decode step: no time per output token and no decode rate, so
     * null, never 0 (which would pass any TPOT SLO), as simulate's latencies nothing measured */
    const bool no_decode = e->decode_steps <= 0;
    cJSON_AddNumberToObject(o, "ttft_s", e->ttft_s);
    if (no_decode)
        cJSON_AddNullToObject(o, "tpot_s");
    else
        cJSON_AddNumberToObject(o, "tpot_s", e->tpot_s);
    cJSON_AddNumberToObject(o, "e2e_s", e->e2e_s);
    if (no_decode)
        cJSON_AddNullToObject(o, "decode_tok_s");
    else
        cJSON_AddNumberToObject(o, "decode_tok_s", e->decode_tok_s);
    cJSON_AddNumberToObject(o, "output_tok_s", e->output_tok_s);
    if (bands) {
        cJSON *rg = cJSON_AddObjectToObject(o, "range");
        add_range(rg, "ttft_s", e->ttft_s, &bands->ttft, false);
        if (no_decode && bands->tpot.present)
            cJSON_AddNullToObject(rg, "tpot_s");
        else
            add_range(rg, "tpot_s", e->tpot_s, &bands->tpot, false);
        /* e2e covers its parts' bands, as estimate's table (catalog_e2e_band) */
        const struct llmroof_band eb = catalog_e2e_band(bands, e->ttft_s, e->e2e_s, no_decode);
        add_range(rg, "e2e_s", e->e2e_s, &eb, false);
        if (no_decode && bands->tpot.present)
            cJSON_AddNullToObject(rg, "decode_tok_s");
        else
            add_range(rg, "decode_tok_s", e->decode_tok_s, &bands->tpot, true);
        add_range(rg, "output_tok_s", e->output_tok_s, &eb, true);
    }
    cJSON_AddItemToObject(o, "prefill", phase_json(&e->prefill, &e->prefill_split, &e->prefill_ops));
    /* no decode step (output 1): null, as tpot_s is, not a phase of zeros that reads as free */
    if (no_decode)
        cJSON_AddNullToObject(o, "decode");
    else
        cJSON_AddItemToObject(o, "decode", phase_json(&e->decode, &e->decode_split, &e->decode_ops));
    if (e->has_spec) {
        /* speculative decoding (docs/metrics.md "estimate with speculative decoding"): `decode` is
         * the target's verification pass, the drafter's passes are here */
        const struct llmroof_spec_decode *sp = &e->spec;
        cJSON *so = cJSON_AddObjectToObject(o, "spec");
        cJSON_AddStringToObject(so, "method", sp->method ? sp->method : "");
        if (sp->draft)
            cJSON_AddStringToObject(so, "draft", sp->draft->id);
        cJSON_AddNumberToObject(so, "k", sp->steps);
        cJSON_AddNumberToObject(so, "acceptance", sp->accept);
        if (sp->topk > 0)
            cJSON_AddNumberToObject(so, "tree_topk", sp->topk);
        if (sp->eagle3_vocab > 0)
            cJSON_AddNumberToObject(so, "draft_vocab", (double)sp->eagle3_vocab);
        cJSON_AddNumberToObject(so, "verify_tokens", sp->verify);
        cJSON_AddNumberToObject(so, "tokens_per_step", e->tokens_per_step);
        cJSON_AddNumberToObject(so, "step_s", e->step_s);
        cJSON_AddNumberToObject(so, "draft_prefill_s", e->draft_prefill_s);
        phase_totals_json(cJSON_AddObjectToObject(so, "draft_step"), &e->draft, &e->draft_split);
    }
    if (mem) {
        cJSON *m = cJSON_AddObjectToObject(o, "memory");
        add_memory_fields(m, mem);
    }
    return finish(o);
}

char *render_json_report(const struct llmroof_report *r)
{
    static const char *const status[] = { "ok", "no-fit", "bad-tp", "no-dtype", "no-engine" };
    cJSON *o = new_doc("llmroof.report/1");
    cJSON_AddStringToObject(o, "model", r->model->id);
    cJSON_AddNumberToObject(o, "batch", (double)r->req.batch);
    cJSON_AddNumberToObject(o, "prompt_len", (double)r->req.prompt);
    cJSON_AddNumberToObject(o, "output_len", (double)r->req.output);
    cJSON_AddStringToObject(o, "weight_dtype", dtype_name(r->dt.weight));
    cJSON_AddStringToObject(o, "kv_dtype", dtype_name(r->dt.kv));
    cJSON_AddStringToObject(o, "act_dtype", dtype_name(r->dt.act));
    if (r->has_layout) {
        /* beyond TP only, as estimate's layout, so TP-only documents keep their shape */
        cJSON *ly = cJSON_AddObjectToObject(o, "layout");
        cJSON_AddNumberToObject(ly, "pp", r->layout.pp > 0 ? r->layout.pp : 1);
        cJSON_AddNumberToObject(ly, "ep", r->layout.ep > 0 ? r->layout.ep : 1);
        cJSON_AddBoolToObject(ly, "dp_attention", r->layout.dp_attn);
        cJSON_AddNumberToObject(ly, "ep_imbalance", r->layout.ep_imbalance > 0 ? r->layout.ep_imbalance : 0.0);
        if (r->layout.moe_tp > 1)
            cJSON_AddNumberToObject(ly, "moe_tp", r->layout.moe_tp);
    }
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToArray(rows, j);
        cJSON_AddStringToObject(j, "gpu", x->gpu->id);
        cJSON_AddNumberToObject(j, "tp", x->tp);
        if (r->has_layout)
            cJSON_AddNumberToObject(j, "gpus", x->gpus);
        cJSON_AddStringToObject(j, "status", status[x->status]);
        if (x->reason[0])
            cJSON_AddStringToObject(j, "reason", x->reason);
        /* as status says: the weights, one context and the batch fit (a batch beyond max_batch is no-fit) */
        cJSON_AddBoolToObject(j, "fits", x->has_mem && x->mem.fits && (double)r->req.batch <= x->mem.max_batch);
        if (!x->has_mem)
            continue;
        cJSON_AddNumberToObject(j, "weights_bytes_per_gpu", x->mem.weights_bytes_per_gpu);
        cJSON_AddNumberToObject(j, "kv_bytes_per_token_per_gpu", x->mem.kv_bytes_per_token_per_gpu);
        cJSON_AddNumberToObject(j, "max_batch", x->mem.max_batch);
        if (!x->has_est)
            continue;
        const struct llmroof_estimate *e = &x->est;
        cJSON_AddNumberToObject(j, "ttft_s", e->ttft_s);
        cJSON_AddNumberToObject(j, "tpot_s", e->tpot_s);
        cJSON_AddNumberToObject(j, "e2e_s", e->e2e_s);
        cJSON_AddNumberToObject(j, "decode_tok_s", e->decode_tok_s);
        if (r->has_bands) { /* --range: as the table's low-high columns, estimate's [low, high] */
            cJSON *rg = cJSON_AddObjectToObject(j, "range");
            add_range(rg, "ttft_s", e->ttft_s, &r->bands.ttft, false);
            add_range(rg, "tpot_s", e->tpot_s, &r->bands.tpot, false);
        }
        cJSON_AddStringToObject(j, "prefill_bound", bound_name(e->prefill.bound));
        cJSON_AddStringToObject(j, "decode_bound", bound_name(e->decode.bound));
        cJSON_AddNumberToObject(j, "prefill_comm_share", estimate_comm_share(&e->prefill));
        cJSON_AddNumberToObject(j, "decode_comm_share", estimate_comm_share(&e->decode));
        if (x->has_scaling)
            cJSON_AddNumberToObject(j, "tp_scaling_eff", x->tp_scaling_eff);
        for (int k = 0; k < 2; k++) {
            cJSON *ops = cJSON_AddObjectToObject(j, k ? "decode_ops" : "prefill_ops");
            const double *sh = k ? x->decode_share : x->prefill_share;
            for (int c = 0; c < REPORT_CAT_COUNT; c++)
                if (report_cat_shown(r, (enum report_cat)c))
                    cJSON_AddNumberToObject(ops, report_cat_name((enum report_cat)c), sh[c]);
        }
    }
    cJSON *obs = cJSON_AddArrayToObject(o, "observations");
    for (int i = 0; i < r->nobs; i++)
        cJSON_AddItemToArray(obs, cJSON_CreateString(r->obs[i]));
    return finish(o);
}

static void add_stats(cJSON *o, const char *key, const struct sim_stats *s)
{
    if (s->n == 0) { /* nothing measured (every request rejected): null, never 0 */
        cJSON_AddNullToObject(o, key);
        return;
    }
    cJSON *x = cJSON_AddObjectToObject(o, key);
    cJSON_AddNumberToObject(x, "mean", s->mean);
    cJSON_AddNumberToObject(x, "p50", s->p50);
    cJSON_AddNumberToObject(x, "p90", s->p90);
    cJSON_AddNumberToObject(x, "p95", s->p95);
    cJSON_AddNumberToObject(x, "p99", s->p99);
    cJSON_AddNumberToObject(x, "max", s->max);
    cJSON_AddNumberToObject(x, "n", (double)s->n);
}

/* Overload, goodput, prefix cache, speculation, instances: present only where they apply. */
static void sim_json_serving(cJSON *o, const struct sim_config *c, const struct sim_result *r)
{
    if (r->open_loop) {
        cJSON *x = cJSON_AddObjectToObject(o, "load");
        cJSON_AddNumberToObject(x, "window_s", r->window_s);
        cJSON_AddNumberToObject(x, "offered_rate_qps", r->offered_rate_qps);
        cJSON_AddNumberToObject(x, "completed_rate_qps", r->sustained_rate_qps);
        cJSON_AddNumberToObject(x, "queue_growth_per_s", r->queue_growth_per_s);
        cJSON_AddNumberToObject(x, "window_lives", r->window_lives);
        cJSON_AddNumberToObject(x, "window_busy_share", r->window_busy_share);
        cJSON_AddBoolToObject(x, "overloaded", r->overloaded);
        cJSON_AddNumberToObject(x, "waiting_mean", r->window_waiting_mean);
        cJSON_AddNumberToObject(x, "served_mean", r->window_served_mean);
        cJSON_AddBoolToObject(x, "at_capacity", r->at_capacity);
    }
    if (r->has_slo) {
        cJSON *x = cJSON_AddObjectToObject(o, "slo");
        if (c->ttft_slo_s > 0)
            cJSON_AddNumberToObject(x, "ttft_s", c->ttft_slo_s);
        if (c->tpot_slo_s > 0)
            cJSON_AddNumberToObject(x, "tpot_s", c->tpot_slo_s);
        cJSON_AddNumberToObject(x, "percentile", c->slo_percentile);
        cJSON_AddNumberToObject(x, "within", (double)r->within_slo);
        cJSON_AddNumberToObject(x, "within_share", r->within_slo_share);
        cJSON_AddNumberToObject(x, "goodput_qps", r->goodput_qps);
        cJSON_AddBoolToObject(x, "met", r->slo_met);
        /* what was missed, as the table's note names it */
        static const char *const what[] = { "ttft", "tpot", "errors", "overloaded" };
        cJSON *ms = cJSON_AddArrayToObject(x, "missed");
        const unsigned miss = sim_slo_missed(c, r);
        for (int i = 0; i < 4; i++)
            if (miss >> i & 1u)
                cJSON_AddItemToArray(ms, cJSON_CreateString(what[i]));
    }
    if (c->prefix_tokens > 0) {
        cJSON *x = cJSON_AddObjectToObject(o, "prefix");
        cJSON_AddNumberToObject(x, "tokens", (double)c->prefix_tokens);
        cJSON_AddNumberToObject(x, "groups", (double)c->prefix_groups);
        cJSON_AddBoolToObject(x, "cache", c->prefix_cache);
        /* why (sim.h pcache_source), as the text header says it (docs/json.md) */
        cJSON_AddStringToObject(x, "cache_source", c->pcache_source == SIM_PCACHE_OPTION   ? "option"
                                                   : c->pcache_source == SIM_PCACHE_STATIC ? "static"
                                                   : c->pcache_source == SIM_PCACHE_ENGINE && c->prefix_cache
                                                       ? "engine"
                                                       : "off-default");
        cJSON_AddNumberToObject(x, "hit_rate", r->prefix_hit_rate);
    }
    if (c->spec.kind != SIM_SPEC_NONE) {
        cJSON *x = cJSON_AddObjectToObject(o, "speculative");
        cJSON_AddStringToObject(x, "method", sim_spec_name(c->spec.kind));
        if (c->spec.draft && c->spec.kind == SIM_SPEC_DRAFT)
            cJSON_AddStringToObject(x, "draft", c->spec.draft->id);
        cJSON_AddNumberToObject(x, "k", c->spec.k);
        if (c->spec.kind == SIM_SPEC_EAGLE3)
            cJSON_AddNumberToObject(x, "draft_vocab", (double)c->spec.draft_vocab);
        cJSON_AddNumberToObject(x, "acceptance", c->spec.alpha);
        /* a draft tree's expectation is the tree's (the chain formula understated a 4:16 tree's 4.0 as 2.9) */
        cJSON_AddNumberToObject(x, "expected_tokens_per_step", sim_spec_expected_tokens(&c->spec));
        cJSON_AddNumberToObject(x, "tokens_per_step", r->spec_tokens_per_step);
    }
    if (r->ninst > 1 || c->disaggregated) {
        cJSON_AddStringToObject(o, "router", sim_router_name(c->router));
        if (c->disaggregated) {
            cJSON_AddNumberToObject(o, "kv_link_Bps", c->kv_link_Bps);
            add_stats(o, "kv_transfer_s", &r->kv_transfer);
            add_stats(o, "decode_queue_s", &r->decode_queue);
            /* the wait for decode blocks before the prefill, with pre-allocation only (SGLang) */
            if (r->has_prealloc_wait)
                add_stats(o, "prealloc_wait_s", &r->prealloc_wait);
        }
        cJSON *arr = cJSON_AddArrayToObject(o, "instances");
        for (int i = 0; i < r->ninst; i++) {
            const struct sim_instance *s = &r->inst[i];
            const struct llmroof_setup *su = sim_pool_setup(c, s->pool);
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "pool", !c->disaggregated ? "aggregated" : s->pool == 0 ? "prefill" : "decode");
            cJSON_AddStringToObject(x, "gpu", su->gpu->id);
            cJSON_AddNumberToObject(x, "tp", su->tp);
            /* the instance's GPUs and, beyond TP, its own layout (a pool's --prefill-pool
             * N:GPU:TP:ep8+dpa: 8 GPUs at TP 1, which tp alone had read as one) */
            cJSON_AddNumberToObject(x, "gpus", sim_setup_gpus(su));
            {
                const struct llmroof_layout lay = estimate_layout(su);
                struct llmroof_shard sh;
                if (ops_shard_layout(su->model, &lay, &sh, NULL) == LLMROOF_OK)
                    add_layout(x, &sh);
            }
            /* a pool of data-parallel attention ranks: each rank's own budget and limit (the
             * run-wide dp_rank_* are the command's layout's) */
            const int pr = sim_setup_attn_replicas(su);
            if (c->disaggregated && pr > 1 && c->max_batched_tokens > 0) {
                cJSON_AddNumberToObject(x, "dp_rank_max_batched_tokens",
                                        (double)sim_rank_share(c, pr, sim_pool_budget(c, s->pool)));
                cJSON_AddNumberToObject(x, "dp_rank_max_seqs", (double)sim_rank_share(c, pr, c->max_seqs));
            }
            cJSON_AddNumberToObject(x, "requests", (double)s->requests);
            cJSON_AddNumberToObject(x, "utilization", s->utilization);
            cJSON_AddNumberToObject(x, "mean_batch", s->mean_batch);
            cJSON_AddNumberToObject(x, "max_batch", (double)s->max_batch);
            cJSON_AddNumberToObject(x, "kv_util_mean", s->kv_util_mean);
            cJSON_AddNumberToObject(x, "preemptions", (double)s->preemptions);
            cJSON_AddNumberToObject(x, "iterations", (double)s->iterations);
            cJSON_AddItemToArray(arr, x);
        }
    }
}

static cJSON *sim_json(const struct sim_config *c, const struct sim_result *r, const char *wl, const char *schema)
{
    static const char *const modes[] = { "closed", "rate", "trace", "offline" };
    cJSON *o = new_doc(schema);
    cJSON_AddStringToObject(o, "model", c->setup.model->id);
    if (c->disaggregated) { /* the pools' own GPUs and TPs are in instances[] */
        cJSON_AddNullToObject(o, "gpu");
        cJSON_AddNullToObject(o, "tp");
    } else {
        cJSON_AddStringToObject(o, "gpu", c->setup.gpu->id);
        cJSON_AddNumberToObject(o, "tp", c->setup.tp);
    }
    if (!c->disaggregated) {
        /* the layout the run served (a disaggregated run's pools each have their own, in
         * instances[]: the command's --ep and --pp had been printed for pools that ran others) */
        const struct llmroof_layout lay = estimate_layout(&c->setup);
        struct llmroof_shard sh;
        if (ops_shard_layout(c->setup.model, &lay, &sh, NULL) == LLMROOF_OK)
            add_layout(o, &sh);
    }
    cJSON_AddStringToObject(o, "mode", modes[c->mode]);
    if (c->span_fixed) /* --fixed-span: absent for a plain Poisson run */
        cJSON_AddBoolToObject(o, "fixed_span", true);
    cJSON_AddStringToObject(o, "workload", wl);
    cJSON_AddNumberToObject(o, "max_batched_tokens", (double)c->max_batched_tokens);
    if (c->max_model_len > 0) /* --max-model-len: absent when there is no limit */
        cJSON_AddNumberToObject(o, "max_model_len", (double)c->max_model_len);
    if (c->max_concurrent > 0) /* TGI's --max-concurrent-requests: absent when there is no limit */
        cJSON_AddNumberToObject(o, "max_concurrent_requests", (double)c->max_concurrent);
    cJSON_AddNumberToObject(o, "max_seqs", (double)c->max_seqs);
    /* the two limits above hold per attention DP rank for an engine whose ranks schedule apart */
    const long ranks = sim_setup_rank_factor(c);
    if (ranks > 1)
        cJSON_AddNumberToObject(o, "limits_per_dp_rank", (double)ranks);
    /* data-parallel attention: each rank's own budget and limit, the share of the two above */
    const int reps = sim_setup_attn_replicas(&c->setup);
    if (reps > 1 && c->max_batched_tokens > 0) {
        cJSON_AddNumberToObject(o, "dp_rank_max_batched_tokens", (double)sim_rank_share(c, reps, c->max_batched_tokens));
        cJSON_AddNumberToObject(o, "dp_rank_max_seqs", (double)sim_rank_share(c, reps, c->max_seqs));
    }
    cJSON_AddBoolToObject(o, "chunked_prefill", c->chunked_prefill);
    if (c->static_batching) /* absent with continuous batching */
        cJSON_AddBoolToObject(o, "static_batching", true);
    if (c->sched_steps > 1) /* --scheduler-steps: absent without multi-step scheduling */
        cJSON_AddNumberToObject(o, "scheduler_steps", c->sched_steps);
    if (c->setup.eff.engine_id) { /* the engine profile, and the host speed its CPU costs took */
        cJSON_AddStringToObject(o, "engine", c->setup.eff.engine_id);
        cJSON_AddNumberToObject(o, "host_cpu_speed", c->setup.eff.cpu_scale > 0 ? 1.0 / c->setup.eff.cpu_scale : 1.0);
        if (c->setup.eff.ray_engine)
            cJSON_AddBoolToObject(o, "engine_use_ray", true);
        if (c->setup.eff.ray_workers)
            cJSON_AddBoolToObject(o, "ray_workers", true);
        if (c->no_api_server) /* --no-api-server: the engine's own API, no server streaming */
            cJSON_AddBoolToObject(o, "no_api_server", true);
    }
    cJSON_AddNumberToObject(o, "requests", (double)r->requests);
    cJSON_AddNumberToObject(o, "completed", (double)r->completed);
    cJSON_AddNumberToObject(o, "errors", (double)r->errors);
    cJSON_AddNumberToObject(o, "refused_busy", (double)r->refused_busy);
    cJSON_AddNumberToObject(o, "error_rate", r->error_rate);
    cJSON_AddNumberToObject(o, "duration_s", r->duration_s);
    add_stats(o, "ttft_s", &r->ttft);
    add_stats(o, "tpot_s", &r->tpot);
    add_stats(o, "itl_s", &r->itl);
    add_stats(o, "e2e_s", &r->e2e);
    cJSON_AddNumberToObject(o, "output_tok_s", r->output_tok_s);
    cJSON_AddNumberToObject(o, "request_per_s", r->request_per_s);
    cJSON_AddNumberToObject(o, "mean_batch", r->mean_batch);
    cJSON_AddNumberToObject(o, "max_batch", (double)r->max_batch);
    cJSON_AddNumberToObject(o, "kv_util_mean", r->kv_util_mean);
    cJSON_AddNumberToObject(o, "preemptions", (double)r->preemptions);
    if (r->kv_resets > 0)
        cJSON_AddNumberToObject(o, "kv_resets", (double)r->kv_resets);
    cJSON_AddNumberToObject(o, "iterations", (double)r->iterations);
    cJSON_AddNumberToObject(o, "mean_in_system", r->mean_in_system);
    cJSON_AddNumberToObject(o, "kv_capacity_tokens", r->kv_capacity_tokens);
    if (c->disaggregated) {
        /* each pool's own, as the text's KV line: the decode pool's is the one that holds the
         * decoding requests (kv_capacity_tokens adds the two) */
        long blocks[2] = { 0, 0 };
        for (int i = 0; i < r->ninst; i++)
            blocks[r->inst[i].pool == 1] += r->inst[i].kv_blocks_total;
        cJSON_AddNumberToObject(o, "kv_capacity_tokens_decode", (double)blocks[1] * (double)r->block_size);
        cJSON_AddNumberToObject(o, "kv_capacity_tokens_prefill", (double)blocks[0] * (double)r->block_size);
    }
    if (c->kv_blocks > 0) { /* --kv-blocks: the stated pool, beside what memory would have sized */
        cJSON_AddNumberToObject(o, "kv_blocks", (double)c->kv_blocks);
        cJSON_AddNumberToObject(o, "kv_blocks_total", (double)r->kv_blocks_total);
        cJSON_AddNumberToObject(o, "kv_blocks_memory", (double)r->kv_blocks_memory);
        cJSON_AddNumberToObject(o, "block_size", (double)r->block_size);
    }
    if (r->ninst > 0 && r->inst[0].lanes > 1) /* --pp: each lane holds its share (docs/metrics.md) */
        cJSON_AddNumberToObject(o, "pipeline_lanes", r->inst[0].lanes);
    /* the seed as its digits: cJSON prints numbers with 15 significant digits where they compare
     * equal within its epsilon, so 9007199254740992 read "9.00719925474099e+15" */
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
    cJSON_AddRawToObject(o, "seed", seed);
    sim_json_serving(o, c, r);
    return o;
}

char *render_json_sim(const struct sim_config *c, const struct sim_result *r, const char *wl)
{
    return finish(sim_json(c, r, wl, "llmroof.simulate/1"));
}

/* A latency statistic scaled by a band's factor (the --range rows of the table, low and high). */
static void add_stats_scaled(cJSON *o, const char *key, const struct sim_stats *s, double f)
{
    struct sim_stats x = *s;
    x.mean *= f, x.p50 *= f, x.p90 *= f, x.p95 *= f, x.p99 *= f, x.max *= f;
    add_stats(o, key, &x);
}

char *render_json_sim_range(const struct sim_config *c, const struct sim_result *r, const char *wl,
                            const struct llmroof_uncertainty *u)
{
    cJSON *o = sim_json(c, r, wl, "llmroof.simulate/1");
    /* --range: each latency's statistics times the validation residuals' low and high factors, as
     * the table's "low"/"high" rows (docs/validation.md); a metric without a band is left out */
    cJSON *rg = cJSON_AddObjectToObject(o, "range");
    const struct { const char *key; const struct sim_stats *s; const struct llmroof_band *b; } m[] = {
        { "ttft_s", &r->ttft, &u->ttft }, { "tpot_s", &r->tpot, &u->tpot }, { "e2e_s", &r->e2e, &u->e2e } };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        if (!m[i].b->present)
            continue;
        cJSON *x = cJSON_AddObjectToObject(rg, m[i].key);
        add_stats_scaled(x, "low", m[i].s, m[i].b->low);
        add_stats_scaled(x, "high", m[i].s, m[i].b->high);
    }
    return finish(o);
}

char *render_json_sim_band(const struct sim_config *c, const struct sim_result *r, const char *wl, double band,
                           const struct sim_result *lo, const struct sim_result *hi)
{
    cJSON *o = sim_json(c, r, wl, "llmroof.simulate/1");
    cJSON *b = cJSON_AddObjectToObject(o, "capacity_band");
    cJSON_AddNumberToObject(b, "band", band);
    const struct { const char *name; const struct sim_result *x; } side[] = { { "rate_lower", lo }, { "rate_higher", hi } };
    for (int i = 0; i < 2; i++) {
        cJSON *s = cJSON_AddObjectToObject(b, side[i].name);
        add_stats(s, "ttft_s", &side[i].x->ttft);
        add_stats(s, "tpot_s", &side[i].x->tpot);
        add_stats(s, "itl_s", &side[i].x->itl);
        cJSON_AddNumberToObject(s, "output_tok_s", side[i].x->output_tok_s);
        cJSON_AddBoolToObject(s, "overloaded", side[i].x->overloaded);
    }
    return finish(o);
}

char *render_json_sim_sweep(const char *param, const struct sim_point *pts, int n, const struct sim_config *c,
                            const char *wl)
{
    cJSON *o = new_doc("llmroof.simulate-sweep/1");
    cJSON_AddStringToObject(o, "sweep", param);
    cJSON *arr = cJSON_AddArrayToObject(o, "points");
    for (int i = 0; i < n; i++) {
        cJSON *p = sim_json(c, &pts[i].result, wl, NULL);
        cJSON_AddNumberToObject(p, param, pts[i].param);
        cJSON_AddItemToArray(arr, p);
    }
    return finish(o);
}

/* A row's parallelism: the searched mode's name, or for mode 0 the plan's own layout as its flags
 * give it (--ep, --dp-attention, --pp): "tp" there hid an expert-parallel instance */
static const char *parallelism_name(const struct plan_input *in, int mode, char *buf, size_t n)
{
    static const char *const modes[PLAN_MODES] = { "tp", "tp+ep", "dp-attention+ep", "tp+pp", "dp-attention+moe-tp" };
    if (mode > 0 && mode < PLAN_MODES)
        return modes[mode];
    const struct llmroof_layout *l = &in->layout;
    snprintf(buf, n, "%s%s",
             l->dp_attn && l->moe_tp > 1 ? "dp-attention+moe-tp"
             : l->dp_attn                ? "dp-attention+ep"
             : l->ep > 1                 ? "tp+ep"
                                         : "tp",
             l->pp > 1 ? "+pp" : "");
    return buf;
}

static cJSON *plan_option_json(const struct plan_input *in, const struct plan_option *o, bool rate, bool fast)
{
    cJSON *x = cJSON_CreateObject();
    char pb[32], pb2[32];
    cJSON_AddStringToObject(x, "gpu", o->gpu->id);
    cJSON_AddNumberToObject(x, "tp", o->tp);
    cJSON_AddNumberToObject(x, "gpus_per_node", o->gpus_per_node);
    cJSON_AddNumberToObject(x, "instances_per_node", o->instances_per_node);
    if (o->nodes_per_instance > 1) /* an instance beyond a node: the whole nodes it takes */
        cJSON_AddNumberToObject(x, "nodes_per_instance", o->nodes_per_instance);
    /* users plans: the searched layouts beyond TP, and the plan's own --ep/--dp-attention/--pp */
    if (!rate && ((o->mode > 0 && o->mode < PLAN_MODES) ||
                  (o->mode == 0 && (in->layout.ep > 1 || in->layout.pp > 1 || in->layout.moe_tp > 1))))
        cJSON_AddStringToObject(x, "parallelism", parallelism_name(in, o->mode, pb, sizeof pb));
    if (rate) {
        cJSON_AddStringToObject(x, "layout", o->disagg ? "disaggregated" : "aggregated");
        cJSON_AddStringToObject(x, "parallelism", parallelism_name(in, o->mode, pb, sizeof pb));
        if (o->disagg) {
            cJSON_AddStringToObject(x, "prefill_parallelism", parallelism_name(in, o->prefill_mode, pb2, sizeof pb2));
            cJSON_AddNumberToObject(x, "prefill_tp", o->prefill_tp);
            cJSON_AddNumberToObject(x, "prefill_instances", (double)o->prefill_instances);
            cJSON_AddNumberToObject(x, "decode_instances", (double)o->decode_instances);
        }
    }
    cJSON_AddBoolToObject(x, "feasible", o->feasible);
    if (!o->feasible) {
        cJSON_AddStringToObject(x, "reason", o->reason);
        return x;
    }
    if (rate) {
        cJSON_AddNumberToObject(x, "instances", (double)o->instances);
        cJSON_AddNumberToObject(x, "goodput_qps", o->goodput_qps);
        cJSON_AddNumberToObject(x, "goodput_per_gpu", o->goodput_per_gpu);
        cJSON_AddNumberToObject(x, "preemptions_per_request", o->preempt_per_request);
    } else {
        if (o->nodes_per_instance > 1)
            cJSON_AddNumberToObject(x, "instances", (double)o->instances);
        cJSON_AddNumberToObject(x, "users_per_instance", (double)o->users_per_instance);
        cJSON_AddNumberToObject(x, "users_per_node", (double)o->users_per_node);
        if (fast) /* the analytic model has no scheduler: not zero, unknown */
            cJSON_AddNullToObject(x, "preemptions_per_request");
        else
            cJSON_AddNumberToObject(x, "preemptions_per_request", o->preempt_per_request);
        if (o->next_users > 0) { /* the load that fails, beside the answer */
            cJSON_AddNumberToObject(x, "next_users", (double)o->next_users);
            cJSON_AddNumberToObject(x, "next_ttft_s", o->next_ttft_s);
            cJSON_AddNumberToObject(x, "next_tpot_s", o->next_tpot_s);
        }
    }
    cJSON_AddNumberToObject(x, "nodes", (double)o->nodes);
    cJSON_AddNumberToObject(x, "gpus", (double)o->gpus);
    cJSON_AddNumberToObject(x, "ttft_s", o->ttft_s);
    cJSON_AddNumberToObject(x, "tpot_s", o->tpot_s);
    cJSON_AddStringToObject(x, "binding", plan_binding_name(o->binding));
    if (o->has_cost)
        cJSON_AddNumberToObject(x, "cost_per_hour", o->cost_per_hour);
    else
        cJSON_AddNullToObject(x, "cost_per_hour");
    cJSON_AddNumberToObject(x, "evaluations", o->evaluations);
    if (o->feasible && o->sim_requests > 0) { /* rate plans: the run behind ttft_s and tpot_s */
        cJSON_AddNumberToObject(x, "sim_requests", (double)o->sim_requests);
        cJSON_AddNumberToObject(x, "sim_warmup_requests", (double)o->sim_warmup);
    }
    return x;
}

/* A feasible row's engine commands (serve/launch.h): [{engine, role, instances,
 * gpus_per_instance, command, note}]. */
static void add_launch(cJSON *row, const struct plan_input *in, const struct plan_option *o)
{
    if (!row || !o->feasible)
        return;
    struct launch_set ls;
    launch_build(in, o, &ls);
    cJSON *arr = cJSON_AddArrayToObject(row, "launch");
    for (int i = 0; arr && i < ls.n; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "engine", ls.c[i].engine);
        cJSON_AddStringToObject(c, "role", ls.c[i].role);
        cJSON_AddNumberToObject(c, "instances", (double)ls.c[i].instances);
        cJSON_AddNumberToObject(c, "gpus_per_instance", ls.c[i].gpus_per_instance);
        cJSON_AddStringToObject(c, "command", ls.c[i].cmd);
        cJSON_AddStringToObject(c, "note", ls.c[i].note);
        cJSON_AddItemToArray(arr, c);
    }
}

static cJSON *plan_row_json(const struct plan_input *in, const struct plan_option *o)
{
    cJSON *row = plan_option_json(in, o, in->rate_qps > 0, in->fast);
    if (o->disagg && o->kv_link_Bps > 0)
        cJSON_AddNumberToObject(row, "kv_link_Bps", o->kv_link_Bps);
    add_launch(row, in, o);
    return row;
}

char *render_json_plan(const struct plan_input *in, const struct plan_result *r)
{
    cJSON *o = new_doc("llmroof.plan/1");
    cJSON_AddStringToObject(o, "model", in->model->id);
    if (in->rate_qps > 0)
        cJSON_AddNumberToObject(o, "rate_qps", in->rate_qps);
    else
        cJSON_AddNumberToObject(o, "users", (double)in->users);
    cJSON_AddNumberToObject(o, "ttft_slo_s", in->ttft_slo_s);
    cJSON_AddNumberToObject(o, "tpot_slo_s", in->tpot_slo_s);
    cJSON_AddNumberToObject(o, "percentile", in->percentile);
    if (in->rate_qps > 0) /* disaggregated rows carry their link's bandwidth */
        cJSON_AddStringToObject(o, "kv_link", in->kv_link ? in->kv_link : "ib");
    /* the node size every row shares (--gpus-per-node, or the GPUs' common catalog value); each
     * option carries its own */
    const int gpn = plan_shared_node_gpus(in);
    if (gpn > 0)
        cJSON_AddNumberToObject(o, "gpus_per_node", gpn);
    cJSON_AddBoolToObject(o, "fast", in->fast);
    char seed[24]; /* as simulate's: its digits */
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)in->sim.seed);
    cJSON_AddRawToObject(o, "seed", seed);
    cJSON *arr = cJSON_AddArrayToObject(o, "options");
    for (int i = 0; i < r->noptions; i++)
        cJSON_AddItemToArray(arr, plan_row_json(in, &r->options[i]));
    if (r->best >= 0)
        cJSON_AddItemToObject(o, "best", plan_row_json(in, &r->options[r->best]));
    else
        cJSON_AddNullToObject(o, "best");
    cJSON_AddBoolToObject(o, "best_by_cost", r->by_cost);
    cJSON *bpg = cJSON_AddObjectToObject(o, "best_per_gpu");
    for (int g = 0; g < in->ngpus; g++) {
        if (r->best_per_gpu[g] >= 0)
            /* the same row as "best" and "options" give it: its link and launch commands too */
            cJSON_AddItemToObject(bpg, in->gpus[g]->id, plan_row_json(in, &r->options[r->best_per_gpu[g]]));
        else
            cJSON_AddNullToObject(bpg, in->gpus[g]->id);
    }
    cJSON *obs = cJSON_AddArrayToObject(o, "observations");
    for (int i = 0; i < r->nobs; i++)
        cJSON_AddItemToArray(obs, cJSON_CreateString(r->obs[i]));
    return finish(o);
}

static cJSON *stats_json(struct val_stats s)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)s.n);
    cJSON_AddNumberToObject(o, "median_abs_error", s.median_abs);
    cJSON_AddNumberToObject(o, "p90_abs_error", s.p90_abs);
    cJSON_AddNumberToObject(o, "bias", s.bias);
    return o;
}

struct jgroup {
    enum val_group by;
    const char *key;
    int cls;
    int load; /* -1: any, 0: static, 1: serving */
};

static bool jkeep(const struct val_case *c, const void *vctx)
{
    const struct jgroup *g = vctx;
    if (g->cls >= 0 && (int)val_metric_class(c->metric) != g->cls)
        return false;
    if (g->load >= 0 && (int)c->serving != g->load)
        return false;
    return !g->key || strcmp(val_group_key(c, g->by), g->key) == 0;
}

char *render_json_validate(const char *fname, const struct val_case *cases, size_t n, enum val_group by)
{
    static const char *const by_names[] = { "metric", "gpu", "source", "model" };
    cJSON *o = new_doc("llmroof.validate/1");
    cJSON_AddStringToObject(o, "file", fname);
    cJSON *rows = cJSON_AddArrayToObject(o, "rows");
    cJSON *un = cJSON_AddArrayToObject(o, "unmapped");
    for (size_t i = 0; i < n; i++) {
        const struct val_case *c = &cases[i];
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "id", c->row->id);
        if (!c->mapped) {
            cJSON_AddNumberToObject(r, "line", (double)c->row->line);
            cJSON_AddStringToObject(r, "reason", c->reason);
            cJSON_AddItemToArray(un, r);
            continue;
        }
        cJSON_AddStringToObject(r, "model", c->model->id);
        cJSON_AddStringToObject(r, "gpu", c->gpu->id);
        cJSON_AddNumberToObject(r, "tp", c->tp);
        cJSON_AddNumberToObject(r, "batch", (double)c->batch);
        cJSON_AddNumberToObject(r, "prompt_len", (double)c->prompt);
        cJSON_AddNumberToObject(r, "output_len", (double)c->output);
        cJSON_AddStringToObject(r, "weight_dtype", dtype_name(c->dt.weight));
        if (c->dt.weight_bits > 0)
            cJSON_AddNumberToObject(r, "weight_bits", c->dt.weight_bits);
        cJSON_AddStringToObject(r, "metric", val_metric_name(c->metric));
        cJSON_AddNumberToObject(r, "measured", c->measured);
        cJSON_AddNumberToObject(r, "predicted", c->predicted);
        cJSON_AddNumberToObject(r, "error", c->err);
        cJSON_AddStringToObject(r, "source", c->row->framework);
        if (c->assumptions[0])
            cJSON_AddStringToObject(r, "assumptions", c->assumptions);
        cJSON_AddItemToArray(rows, r);
    }
    cJSON *sum = cJSON_AddObjectToObject(o, "summary");
    struct jgroup g = { by, NULL, -1, -1 };
    cJSON_AddItemToObject(sum, "all", stats_json(val_stats_of(cases, n, jkeep, &g)));
    cJSON *cls = cJSON_AddObjectToObject(sum, "by_class");
    for (int k = 0; k < 3; k++) {
        g.cls = k;
        cJSON_AddItemToObject(cls, val_class_name((enum val_class)k), stats_json(val_stats_of(cases, n, jkeep, &g)));
    }
    g.cls = -1;
    cJSON *ld = cJSON_AddObjectToObject(sum, "by_load");
    for (int k = 0; k < 2; k++) {
        g.load = k;
        cJSON_AddItemToObject(ld, k ? "serving" : "static", stats_json(val_stats_of(cases, n, jkeep, &g)));
    }
    g.load = -1;
    cJSON *grp = cJSON_AddObjectToObject(sum, by_names[by]);
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        const char *key = val_group_key(&cases[i], by);
        if (cJSON_GetObjectItemCaseSensitive(grp, key))
            continue;
        g.key = key;
        cJSON_AddItemToObject(grp, key, stats_json(val_stats_of(cases, n, jkeep, &g)));
    }
    return finish(o);
}

char *render_json_uncertainty(const char *fname, const char *cv, const struct llmroof_uncertainty *u)
{
    cJSON *o = cJSON_CreateObject();
    const struct llmroof_band *b[3] = { &u->ttft, &u->tpot, &u->e2e };
    const char *keys[3] = { "ttft", "tpot", "e2e" };
    for (int k = 0; k < 3; k++) {
        if (!b[k]->present)
            continue;
        cJSON *x = cJSON_AddObjectToObject(o, keys[k]);
        cJSON_AddNumberToObject(x, "low", round(b[k]->low * 1e4) / 1e4);
        cJSON_AddNumberToObject(x, "high", round(b[k]->high * 1e4) / 1e4);
        cJSON_AddNumberToObject(x, "n", (double)b[k]->n);
    }
    /* the band is only as honest as its predictions: say whether they were held out (--cv) or in sample,
     * and how to make the same file again */
    char src[640];
    if (cv)
        snprintf(src, sizeof src,
                 "10th and 90th percentiles of measured / predicted latency (rates inverted) over the held-out "
                 "predictions (validate --cv %s) of the mapped rows of %s; regenerate: llmroof validate FILE --cv %s "
                 "--uncertainty-out data/uncertainty.json",
                 cv, fname, cv);
    else
        snprintf(src, sizeof src,
                 "10th and 90th percentiles of measured / predicted latency (rates inverted) over the in-sample "
                 "predictions of the mapped rows of %s; regenerate: llmroof validate FILE --uncertainty-out "
                 "data/uncertainty.json",
                 fname);
    cJSON_AddStringToObject(o, "source", src);
    return finish(o);
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
    cJSON *root = new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "gpus");
    cJSON_AddItemToArray(arr, gpu_entry(&copy, NULL));
    return finish(root);
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
    cJSON *root = new_doc(RENDER_JSON_CATALOG_SCHEMA);
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
        if (e[i].prompt_within_budget)
            cJSON_AddBoolToObject(o, "prompt_within_budget", true);
        add_positive(o, "waiting_served_ratio", (double)e[i].waiting_served_ratio);
        add_positive(o, "max_waiting_steps", (double)e[i].max_waiting_steps);
        add_positive(o, "max_paddings", (double)e[i].max_paddings);
        if (e[i].spec_no_overlap)
            cJSON_AddBoolToObject(o, "spec_no_overlap", true);
        if (e[i].pd_decode_first_token)
            cJSON_AddBoolToObject(o, "pd_decode_first_token", true);
        if (e[i].pd_decode_first_token && e[i].pd_decode_resample)
            cJSON_AddBoolToObject(o, "pd_decode_resample", true);
        if (e[i].pd_decode_prealloc)
            cJSON_AddBoolToObject(o, "pd_decode_prealloc", true);
        if (e[i].pd_kv_full_window)
            cJSON_AddBoolToObject(o, "pd_kv_full_window", true);
        add_positive(o, "max_concurrent_requests", (double)e[i].max_concurrent_requests);
        add_positive(o, "pd_decode_reserve_tokens", (double)e[i].pd_decode_reserve_tokens);
        if (!e[i].disaggregation) /* (the default is true) */
            cJSON_AddBoolToObject(o, "disaggregation", false);
        if (!e[i].dp_attention)
            cJSON_AddBoolToObject(o, "dp_attention", false);
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
        cJSON_AddBoolToObject(o, "fp8_attention", e[i].fp8_attention);
        cJSON_AddBoolToObject(o, "fp16_accumulate", e[i].fp16_accumulate);
        cJSON_AddStringToObject(o, "source", e[i].source);
        cJSON_AddItemToArray(arr, o);
    }
    return finish(root);
}

char *render_json_gpus(const struct llmroof_gpu *g, size_t n)
{
    cJSON *root = new_doc(RENDER_JSON_CATALOG_SCHEMA);
    cJSON *arr = cJSON_AddArrayToObject(root, "gpus");
    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(arr, gpu_entry(&g[i], NULL));
    return finish(root);
}
