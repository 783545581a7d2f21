/* render_json.c - JSON output (see render_json.h): the documents' common parts, estimate,
 * memory, report, validate; the catalog's entries in render_json_catalog.c, simulate and plan in
 * render_json_serve.c. */
#include "render/render_json_internal.h"

#include "model/ckpt.h"
#include "model/layers.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* o printed (indented or on one line), optionally with a newline, in a buffer of our own malloc:
 * cJSON's buffers come from the allocator of cJSON_InitHooks, which a host program embedding the
 * library may have replaced for the whole process, so one is never realloc'ed nor free()d here
 * (a review: a host's hooks with a header made rj_finish's realloc abort). */
char *rj_print(const cJSON *o, bool formatted, bool newline)
{
    char *s = o ? (formatted ? cJSON_Print(o) : cJSON_PrintUnformatted(o)) : NULL;
    if (!s)
        return NULL;
    size_t n = strlen(s);
    char *r = malloc(n + 2);
    if (r) {
        memcpy(r, s, n);
        if (newline)
            r[n++] = '\n';
        r[n] = '\0';
    }
    cJSON_free(s);
    return r;
}

/* cJSON_Print output followed by a newline; frees the tree. */
char *rj_finish(cJSON *root)
{
    char *r = rj_print(root, true, true);
    cJSON_Delete(root);
    return r;
}

/* Every JSON document llmroof prints starts with "schema": "llmroof.<command>/1" (docs/json.md),
 * so a script can check what it reads; the version changes only when a field changes meaning
 * or disappears (new fields are added without a new version). */
cJSON *rj_new_doc(const char *schema)
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
        d->root = rj_new_doc(schema);
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
    /* the row's other inputs, as its baseline line carries them (written only when set, as sweep
     * writes them: docs/json.md), so that two drifts differing only there can be told apart */
    if (row->state_given)
        cJSON_AddStringToObject(o, "state_dtype", dtype_name(row->dt.state));
    if (row->engine[0])
        cJSON_AddStringToObject(o, "engine", row->engine);
    if (row->pp > 1)
        cJSON_AddNumberToObject(o, "pp", row->pp);
    if (row->ep > 1)
        cJSON_AddNumberToObject(o, "ep", row->ep);
    if (row->dp_attn)
        cJSON_AddBoolToObject(o, "dp_attention", true);
    if (row->moe_tp > 1)
        cJSON_AddNumberToObject(o, "moe_tp", row->moe_tp);
    if (row->ep_imbalance > 0)
        cJSON_AddNumberToObject(o, "ep_imbalance", row->ep_imbalance);
    if (row->two_batch_overlap)
        cJSON_AddBoolToObject(o, "two_batch_overlap", true);
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
    return rj_finish(root);
}

void rjdoc_free(struct rjdoc *d)
{
    if (!d)
        return;
    cJSON_Delete(d->root);
    free(d);
}

/* The `layout` object of estimate, memory and simulate (docs/json.md): added beyond TP only
 * (docs/model.md section 10), so TP-only documents keep their shape. Returns it, or NULL when
 * the layout is TP alone; estimate adds its pipeline fields to it. */
/* An EAGLE-family head's own layer (--spec-draft-config), as "draft_layer" in o; nothing where the
 * head keeps the target's shape (heads 0). */
void rj_add_draft_layer(cJSON *o, const struct llmroof_draft_head *h)
{
    if (!(h->heads > 0))
        return;
    cJSON *dh = cJSON_AddObjectToObject(o, "draft_layer");
    cJSON_AddNumberToObject(dh, "heads", (double)h->heads);
    cJSON_AddNumberToObject(dh, "kv_heads", (double)h->kv_heads);
    cJSON_AddNumberToObject(dh, "head_dim", (double)h->head_dim);
    cJSON_AddNumberToObject(dh, "intermediate", (double)h->intermediate);
}

cJSON *rj_add_layout(cJSON *o, const struct llmroof_shard *sh)
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
    if (mem->util_of_free) /* TensorRT-LLM, LMDeploy: a share of what weights, workspace and reserve leave */
        cJSON_AddStringToObject(o, "mem_util_of", "free");
    /* whole bytes: usable memory is mem_util x visible, a fraction of a byte as the engines
     * compute it (vLLM: total x gpu_memory_utilization); the KV blocks are counted from the exact
     * figure, these two are printed floored, so usable - weights - workspace - reserve is still
     * the capacity printed (a review found 59015264665.6 bytes) */
    cJSON_AddNumberToObject(o, "usable_bytes_per_gpu", floor(mem->usable_bytes));
    cJSON_AddNumberToObject(o, "weights_bytes_per_gpu", mem->weights_bytes_per_gpu);
    cJSON_AddNumberToObject(o, "workspace_bytes_per_gpu", mem->workspace_bytes_per_gpu);
    cJSON_AddNumberToObject(o, "reserve_bytes_per_gpu", mem->reserve_bytes_per_gpu);
    if (mem->drafter_bytes_per_gpu > 0) /* estimate --spec: the drafter's weights beside the target's */
        /* whole bytes, as the weights' (its share of the pipeline stages is a mean: a review found
         * 2813074894.451613) */
        cJSON_AddNumberToObject(o, "drafter_bytes_per_gpu", round(mem->drafter_bytes_per_gpu));
    cJSON_AddNumberToObject(o, "kv_capacity_bytes_per_gpu", floor(mem->kv_capacity_bytes_per_gpu));
    if (mem->kv_copy) /* TGI 0.8: the capacity is half of usable - weights - workspace - reserve */
        cJSON_AddBoolToObject(o, "kv_pool_halved", true);
    cJSON_AddNumberToObject(o, "kv_bytes_per_token", mem->kv_bytes_per_token);
    cJSON_AddNumberToObject(o, "kv_bytes_per_token_per_gpu", mem->kv_bytes_per_token_per_gpu);
    if (memory_kv_stage_differs(mem)) { /* under PP, the stage that sets the blocks where not the fullest */
        cJSON_AddNumberToObject(o, "kv_stage", mem->kv_stage);
        cJSON_AddNumberToObject(o, "kv_stage_weights_bytes_per_gpu", mem->kv_stage_weights_bytes_per_gpu);
        cJSON_AddNumberToObject(o, "kv_stage_bytes_per_token_per_gpu", mem->kv_stage_bytes_per_token_per_gpu);
    }
    if (mem->state_bytes_per_seq > 0) { /* recurrent layers only */
        cJSON_AddNumberToObject(o, "state_bytes_per_seq", mem->state_bytes_per_seq);
        cJSON_AddNumberToObject(o, "state_bytes_per_seq_per_gpu", mem->state_bytes_per_seq_per_gpu);
        /* speculative decoding's copies beside each sequence's own, which max_batch holds (a review:
         * max_batch could not be rebuilt from the figures printed) */
        if (mem->state_copies > 0)
            cJSON_AddNumberToObject(o, "spec_state_copies", mem->state_copies);
    }
    cJSON_AddNumberToObject(o, "kv_capacity_tokens", mem->kv_capacity_tokens);
    if (mem->state_tokens_per_seq > 0)
        cJSON_AddNumberToObject(o, "state_tokens_per_seq", mem->state_tokens_per_seq);
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
/* A checkpoint whose weights are not all one dtype (some operators kept 16-bit, or its experts
 * narrower), taken as stored: its format, bits and the operators kept 16-bit, so that a JSON reader
 * does not take "weight_dtype": "bf16" for the whole model (a review of session 65: a W4A16
 * checkpoint with attention kept 16-bit read bf16 though 5.6 of its 7.5 G weights are int4) */
static void add_checkpoint(cJSON *o, const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    enum llmroof_dtype own;
    if (!m || !(m->ckpt_per_op || m->ckpt_expert_bits > 0) || dt->weight_bits > 0 || !ckpt_weight_dtype(m, &own) ||
        own != dt->weight)
        return;
    cJSON *c = cJSON_AddObjectToObject(o, "checkpoint");
    cJSON_AddStringToObject(c, "format", m->ckpt_format);
    cJSON_AddNumberToObject(c, "bits", m->ckpt_bits);
    if (m->ckpt_expert_bits > 0)
        cJSON_AddNumberToObject(c, "expert_bits", m->ckpt_expert_bits);
    if (m->ckpt_per_op) {
        cJSON *x = cJSON_AddArrayToObject(c, "excluded");
        for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
            if (m->ckpt_excluded >> i & 1u)
                cJSON_AddItemToArray(x, cJSON_CreateString(catalog_ckpt_module_name(i)));
    }
}

static void add_head_bytes(cJSON *o, const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    if (ops_weight_bytes(dt) < 2.0)
        cJSON_AddNumberToObject(o, "head_bytes_per_weight", ops_unquantized_bytes(m, dt, true));
}

char *render_json_memory(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp, long batch,
                         const struct llmroof_dtypes *dt, const struct llmroof_memory *mem,
                         const struct llmroof_shard *sh, const struct llmroof_engine *engine, const char *spec)
{
    cJSON *o = rj_new_doc("llmroof.memory/1");
    cJSON_AddStringToObject(o, "model", m->id);
    cJSON_AddStringToObject(o, "gpu", g->id);
    if (engine)
        cJSON_AddStringToObject(o, "engine", engine->id);
    if (spec) /* --spec: the drafter whose drafter_bytes_per_gpu and K/V these hold */
        cJSON_AddStringToObject(o, "spec", spec);
    cJSON_AddNumberToObject(o, "tp", tp);
    const bool layout = rj_add_layout(o, sh) != NULL;
    cJSON_AddStringToObject(o, "weight_dtype", dtype_name(dt->weight));
    if (dt->weight_bits > 0) /* as estimate's (a review: --weight-bits 4.5 read as plain fp16 here) */
        cJSON_AddNumberToObject(o, "weight_bits", dt->weight_bits);
    add_checkpoint(o, m, dt);
    add_head_bytes(o, m, dt);
    cJSON_AddStringToObject(o, "kv_dtype", dtype_name(dt->kv));
    /* the batch that fits judges (a review: "fits": false with no batch in the document) */
    cJSON_AddNumberToObject(o, "batch", (double)batch);
    add_memory_fields(o, mem);
    /* min_tp_fit is plain TP's (memory.c: no PP, EP or data-parallel attention), while fits
     * judges the layout asked about: say so beside it, or TP 1 x 8 replicas that fit read
     * against min_tp_fit 8 as a contradiction (review17b item 6) */
    if (layout)
        cJSON_AddBoolToObject(o, "min_tp_fit_plain_tp", true);
    return rj_finish(o);
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
    cJSON_AddStringToObject(o, "bound", roofline_phase_bound_name(p));
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
    cJSON *o = rj_new_doc("llmroof.estimate/1");
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
    add_checkpoint(o, s->model, &s->dt);
    add_head_bytes(o, s->model, &s->dt);
    if (s->dt.state_set)
        cJSON_AddStringToObject(o, "state_dtype", dtype_name(s->dt.state));
    /* the convolution window held apart (SGLang's bf16 conv dtype: ops_conv_state_bytes), as the
     * text header's "(conv window bf16)" */
    if (s->dt.state_set && s->dt.conv_state_bf16 && s->dt.state != LLMROOF_BF16 && layers_conv_state_elems(s->model) > 0)
        cJSON_AddStringToObject(o, "conv_state_dtype", dtype_name(LLMROOF_BF16));
    /* a checkpoint's GEMMs on a path of their own on this GPU (NVFP4, block fp8: ops.h) */
    enum llmroof_dtype low;
    const unsigned mods = ops_ckpt_lowp_modules(s->model, &s->dt, &low);
    if (mods && low != s->dt.act) {
        cJSON *cg = cJSON_AddObjectToObject(o, "checkpoint_gemms");
        cJSON_AddStringToObject(cg, "dtype", dtype_name(low));
        /* native: the GPU's tensor path for that dtype; weight-only: widened to the activations' */
        cJSON_AddStringToObject(cg, "path", ckpt_gpu_native(s->model, low, s->gpu) ? "native" : "weight-only");
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
    cJSON *ly = rj_add_layout(o, &e->shard);
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
        rj_add_draft_layer(so, &sp->head);
        /* a drafter whose weights are not the target's dtype, as the text note says it */
        const struct llmroof_dtypes ddt = estimate_drafter_dtypes(&s->dt, sp);
        if (ckpt_drafter_apart(&s->dt, &ddt))
            cJSON_AddStringToObject(so, "drafter_weight_dtype", dtype_name(ddt.weight));
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
    return rj_finish(o);
}

char *render_json_report(const struct llmroof_report *r)
{
    static const char *const status[] = { "ok", "no-fit", "bad-tp", "no-dtype", "no-engine" };
    cJSON *o = rj_new_doc("llmroof.report/1");
    cJSON_AddStringToObject(o, "model", r->model->id);
    cJSON_AddNumberToObject(o, "batch", (double)r->req.batch);
    cJSON_AddNumberToObject(o, "prompt_len", (double)r->req.prompt);
    cJSON_AddNumberToObject(o, "output_len", (double)r->req.output);
    cJSON_AddStringToObject(o, "weight_dtype", dtype_name(r->dt.weight));
    if (r->dt.weight_bits > 0)
        cJSON_AddNumberToObject(o, "weight_bits", r->dt.weight_bits);
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
        /* the compute this GPU runs (the document's act_dtype is the one asked for: fp8 weights
         * run W8A8 on a GPU with fp8, W8A16 on one without) */
        cJSON_AddStringToObject(j, "act_dtype", dtype_name(x->act));
        cJSON_AddStringToObject(j, "compute", x->compute);
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
        cJSON_AddStringToObject(j, "prefill_bound", roofline_phase_bound_name(&e->prefill));
        cJSON_AddStringToObject(j, "decode_bound", roofline_phase_bound_name(&e->decode));
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
    return rj_finish(o);
}

void render_json_add_stats(cJSON *o, struct val_stats s, const char *median_key, const char *p90_key)
{
    /* a group with no row has no error: null, as the CSV's empty cells (docs/json.md), never a 0
     * that reads as a perfect score */
    cJSON_AddNumberToObject(o, "n", (double)s.n);
    const char *k[3] = { median_key, p90_key, "bias" };
    const double v[3] = { s.median_abs, s.p90_abs, s.bias };
    for (int i = 0; i < 3; i++)
        if (s.n > 0)
            cJSON_AddNumberToObject(o, k[i], v[i]);
        else
            cJSON_AddNullToObject(o, k[i]);
}

static cJSON *stats_json(struct val_stats s)
{
    cJSON *o = cJSON_CreateObject();
    render_json_add_stats(o, s, "median_abs_error", "p90_abs_error");
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
    cJSON *o = rj_new_doc("llmroof.validate/1");
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
    return rj_finish(o);
}

char *render_json_uncertainty(const char *fname, const char *serving, bool serving_held, const char *cv,
                              const struct llmroof_uncertainty *u)
{
    cJSON *o = cJSON_CreateObject();
    const struct llmroof_band *b[6] = { &u->ttft,         &u->tpot,         &u->e2e,
                                        &u->serving_ttft, &u->serving_tpot, &u->serving_e2e };
    const char *keys[6] = { "ttft", "tpot", "e2e", "serving_ttft", "serving_tpot", "serving_e2e" };
    for (int k = 0; k < 6; k++) {
        if (!b[k]->present)
            continue;
        cJSON *x = cJSON_AddObjectToObject(o, keys[k]);
        cJSON_AddNumberToObject(x, "low", round(b[k]->low * 1e4) / 1e4);
        cJSON_AddNumberToObject(x, "high", round(b[k]->high * 1e4) / 1e4);
        cJSON_AddNumberToObject(x, "n", (double)b[k]->n);
    }
    /* the band is only as honest as its predictions: say whether they were held out (--cv) or in sample,
     * and how to make the same file again */
    char src[1280], srv[560] = "", again[32] = "";
    if (serving) {
        /* serving_*: the serving rows' own spread (latency under a load), which simulate --range takes */
        snprintf(srv, sizeof srv,
                 " (serving_*: of the serving rows of %.400s, simulated under their stated load, %s, each "
                 "publication weighing the same)",
                 serving, serving_held ? "held out by publication" : "in sample");
        snprintf(again, sizeof again, " --serving SERVING");
    }
    if (cv)
        snprintf(src, sizeof src,
                 "10th and 90th percentiles of measured / predicted latency (rates inverted) over the held-out "
                 "predictions (validate --cv %s) of the mapped rows of %.400s%s; regenerate: llmroof validate FILE%s "
                 "--cv %s --uncertainty-out data/uncertainty.json",
                 cv, fname, srv, again, cv);
    else
        snprintf(src, sizeof src,
                 "10th and 90th percentiles of measured / predicted latency (rates inverted) over the in-sample "
                 "predictions of the mapped rows of %.400s%s; regenerate: llmroof validate FILE%s --uncertainty-out "
                 "data/uncertainty.json",
                 fname, srv, again);
    cJSON_AddStringToObject(o, "source", src);
    return rj_finish(o);
}
