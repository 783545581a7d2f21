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
static bool rj_any_failed(const cJSON *o)
{
    if (o->type & RJ_ADD_FAILED)
        return true;
    for (const cJSON *c = o->child; c; c = c->next)
        if (rj_any_failed(c))
            return true;
    return false;
}

char *rj_print(const cJSON *o, bool formatted, bool newline)
{
    /* an add that ran out of memory left its object short of a field (rj_add.h): no answer */
    if (!o || rj_any_failed(o))
        return NULL;
    char *s = formatted ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
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
        rj_str(o, "schema", schema);
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
        for (int c = 0; c < t->ncols; c++) {
            const struct table_cell *cell = &t->cells[r * (size_t)t->ncols + (size_t)c];
            if (cell->is_num)
                rj_num(o, t->col[c], cell->num);
            else if (cell->str)
                rj_str(o, t->col[c], table_cell_text(t, r, c, buf));
            else
                rj_null(o, t->col[c]);
        }
        rj_push(arr, o); /* filled first: a push that fails frees it (rj_add.h) */
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
    if (!arr || cJSON_GetObjectItemCaseSensitive(d->root, key)) {
        cJSON_Delete(arr);
        cJSON_Delete(d->root);
        d->root = NULL;
    } else if (!rj_item(d->root, key, arr)) { /* (which freed arr) */
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_str(struct rjdoc *d, const char *key, const char *value)
{
    if (d && d->root && !(value ? rj_str(d->root, key, value) : rj_null(d->root, key))) {
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_num(struct rjdoc *d, const char *key, double value)
{
    if (d && d->root && !rj_num(d->root, key, value)) {
        cJSON_Delete(d->root);
        d->root = NULL;
    }
}

void rjdoc_bool(struct rjdoc *d, const char *key, bool value)
{
    if (d && d->root && !rj_bool(d->root, key, value)) {
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
        arr = rj_arr(d->root, "drifts");
    cJSON *o = cJSON_CreateObject();
    if (!field) { /* only the (empty) array */
        cJSON_Delete(o);
        return;
    }
    if (!arr || !o) {
        cJSON_Delete(o);
        cJSON_Delete(d->root);
        d->root = NULL;
        return;
    }
    if (!rj_push(arr, o)) { /* (which freed o) */
        cJSON_Delete(d->root);
        d->root = NULL;
        return;
    }
    rj_num(o, "line", (double)line);
    rj_str(o, "model", row->model);
    rj_str(o, "gpu", row->gpu);
    rj_num(o, "tp", row->tp);
    rj_num(o, "batch", (double)row->batch);
    rj_num(o, "prompt_len", (double)row->prompt);
    rj_num(o, "output_len", (double)row->output);
    rj_str(o, "weight_dtype", dtype_name(row->dt.weight));
    rj_str(o, "kv_dtype", dtype_name(row->dt.kv));
    rj_str(o, "act_dtype", dtype_name(row->dt.act));
    /* the row's other inputs, as its baseline line carries them (written only when set, as sweep
     * writes them: docs/json.md), so that two drifts differing only there can be told apart */
    if (row->state_given)
        rj_str(o, "state_dtype", dtype_name(row->dt.state));
    if (row->engine[0])
        rj_str(o, "engine", row->engine);
    if (row->pp > 1)
        rj_num(o, "pp", row->pp);
    if (row->ep > 1)
        rj_num(o, "ep", row->ep);
    if (row->dp_attn)
        rj_bool(o, "dp_attention", true);
    if (row->moe_tp > 1)
        rj_num(o, "moe_tp", row->moe_tp);
    if (row->ep_imbalance > 0)
        rj_num(o, "ep_imbalance", row->ep_imbalance);
    if (row->two_batch_overlap)
        rj_bool(o, "two_batch_overlap", true);
    rj_str(o, "field", field);
    if (numeric) {
        rj_num(o, "baseline", baseline);
        rj_num(o, "now", now);
        if (baseline != 0)
            rj_num(o, "change", (now - baseline) / fabs(baseline));
        else
            rj_null(o, "change");
    } else {
        rj_str(o, "baseline", baseline_text);
        rj_str(o, "now", now_text);
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
    cJSON *dh = rj_obj(o, "draft_layer");
    rj_num(dh, "heads", (double)h->heads);
    rj_num(dh, "kv_heads", (double)h->kv_heads);
    rj_num(dh, "head_dim", (double)h->head_dim);
    rj_num(dh, "intermediate", (double)h->intermediate);
}

cJSON *rj_add_layout(cJSON *o, const struct llmroof_shard *sh)
{
    if (!sh || !(sh->pp > 1 || sh->ep > 1 || sh->mlp_gather))
        return NULL;
    cJSON *ly = rj_obj(o, "layout");
    rj_num(ly, "pp", sh->pp);
    rj_num(ly, "ep", sh->ep);
    rj_bool(ly, "dp_attention", sh->dp_attn);
    rj_num(ly, "ep_imbalance", sh->ep_imbalance);
    rj_bool(ly, "two_batch_overlap", sh->two_batch_overlap);
    rj_num(ly, "gpus", sh->gpus);
    if (sh->mlp_gather) /* --moe-tp only, so the other layouts' documents keep their shape */
        rj_num(ly, "moe_tp", sh->moe_tp);
    return ly;
}

static void add_memory_fields(cJSON *o, const struct llmroof_memory *mem)
{
    rj_num(o, "context_len", (double)mem->context_len);
    rj_bool(o, "fits", mem->fits);
    rj_str(o, "fit", mem->fit == LLMROOF_FITS ? "fits"
                                     : mem->fit == LLMROOF_FIT_WEIGHTS ? "weights_do_not_fit"
                                     : mem->fit == LLMROOF_FIT_BATCH   ? "batch_does_not_fit"
                                                                      : "context_does_not_fit");
    rj_num(o, "gpu_memory_bytes", mem->gpu_memory_bytes);
    rj_num(o, "visible_bytes_per_gpu", mem->visible_bytes);
    rj_num(o, "mem_util", mem->mem_util);
    if (mem->util_of_free) /* TensorRT-LLM, LMDeploy: a share of what weights, workspace and reserve leave */
        rj_str(o, "mem_util_of", "free");
    /* whole bytes: usable memory is mem_util x visible, a fraction of a byte as the engines
     * compute it (vLLM: total x gpu_memory_utilization); the KV blocks are counted from the exact
     * figure, these two are printed floored, so usable - weights - workspace - reserve is still
     * the capacity printed (a review found 59015264665.6 bytes) */
    rj_num(o, "usable_bytes_per_gpu", floor(mem->usable_bytes));
    rj_num(o, "weights_bytes_per_gpu", mem->weights_bytes_per_gpu);
    rj_num(o, "workspace_bytes_per_gpu", mem->workspace_bytes_per_gpu);
    rj_num(o, "reserve_bytes_per_gpu", mem->reserve_bytes_per_gpu);
    if (mem->drafter_bytes_per_gpu > 0) /* estimate --spec: the drafter's weights beside the target's */
        /* whole bytes, as the weights' (its share of the pipeline stages is a mean: a review found
         * 2813074894.451613) */
        rj_num(o, "drafter_bytes_per_gpu", round(mem->drafter_bytes_per_gpu));
    rj_num(o, "kv_capacity_bytes_per_gpu", floor(mem->kv_capacity_bytes_per_gpu));
    if (mem->kv_copy) /* TGI 0.8: the capacity is half of usable - weights - workspace - reserve */
        rj_bool(o, "kv_pool_halved", true);
    rj_num(o, "kv_bytes_per_token", mem->kv_bytes_per_token);
    rj_num(o, "kv_bytes_per_token_per_gpu", mem->kv_bytes_per_token_per_gpu);
    if (memory_kv_stage_differs(mem)) { /* under PP, the stage that sets the blocks where not the fullest */
        rj_num(o, "kv_stage", mem->kv_stage);
        rj_num(o, "kv_stage_weights_bytes_per_gpu", mem->kv_stage_weights_bytes_per_gpu);
        rj_num(o, "kv_stage_bytes_per_token_per_gpu", mem->kv_stage_bytes_per_token_per_gpu);
    }
    if (mem->state_bytes_per_seq > 0) { /* recurrent layers only */
        rj_num(o, "state_bytes_per_seq", mem->state_bytes_per_seq);
        rj_num(o, "state_bytes_per_seq_per_gpu", mem->state_bytes_per_seq_per_gpu);
        /* speculative decoding's copies beside each sequence's own, which max_batch holds (a review:
         * max_batch could not be rebuilt from the figures printed) */
        if (mem->state_copies > 0)
            rj_num(o, "spec_state_copies", mem->state_copies);
    }
    rj_num(o, "kv_capacity_tokens", mem->kv_capacity_tokens);
    if (mem->state_tokens_per_seq > 0)
        rj_num(o, "state_tokens_per_seq", mem->state_tokens_per_seq);
    if (mem->attn_dp > 1)
        rj_num(o, "kv_capacity_tokens_replica", mem->kv_capacity_tokens_replica);
    rj_num(o, "max_batch", mem->max_batch);
    if (mem->min_tp_fit)
        rj_num(o, "min_tp_fit", mem->min_tp_fit);
    else
        rj_null(o, "min_tp_fit");
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
    cJSON *c = rj_obj(o, "checkpoint");
    rj_str(c, "format", m->ckpt_format);
    rj_num(c, "bits", m->ckpt_bits);
    if (m->ckpt_expert_bits > 0)
        rj_num(c, "expert_bits", m->ckpt_expert_bits);
    if (m->ckpt_per_op) {
        cJSON *x = rj_arr(c, "excluded");
        for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
            if (m->ckpt_excluded >> i & 1u)
                rj_push(x, cJSON_CreateString(catalog_ckpt_module_name(i)));
    }
}

static void add_head_bytes(cJSON *o, const struct llmroof_model *m, const struct llmroof_dtypes *dt)
{
    if (ops_weight_bytes(dt) < 2.0)
        rj_num(o, "head_bytes_per_weight", ops_unquantized_bytes(m, dt, true));
}

char *render_json_memory(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp, long batch,
                         const struct llmroof_dtypes *dt, const struct llmroof_memory *mem,
                         const struct llmroof_shard *sh, const struct llmroof_engine *engine, const char *spec)
{
    cJSON *o = rj_new_doc("llmroof.memory/1");
    rj_str(o, "model", m->id);
    rj_str(o, "gpu", g->id);
    if (engine)
        rj_str(o, "engine", engine->id);
    if (spec) /* --spec: the drafter whose drafter_bytes_per_gpu and K/V these hold */
        rj_str(o, "spec", spec);
    rj_num(o, "tp", tp);
    const bool layout = rj_add_layout(o, sh) != NULL;
    rj_str(o, "weight_dtype", dtype_name(dt->weight));
    if (dt->weight_bits > 0) /* as estimate's (a review: --weight-bits 4.5 read as plain fp16 here) */
        rj_num(o, "weight_bits", dt->weight_bits);
    add_checkpoint(o, m, dt);
    add_head_bytes(o, m, dt);
    rj_str(o, "kv_dtype", dtype_name(dt->kv));
    /* the batch that fits judges (a review: "fits": false with no batch in the document) */
    rj_num(o, "batch", (double)batch);
    add_memory_fields(o, mem);
    /* min_tp_fit is plain TP's (memory.c: no PP, EP or data-parallel attention), while fits
     * judges the layout asked about: say so beside it, or TP 1 x 8 replicas that fit read
     * against min_tp_fit 8 as a contradiction (review17b item 6) */
    if (layout)
        rj_bool(o, "min_tp_fit_plain_tp", true);
    return rj_finish(o);
}

/* A phase's totals into o, with the split of its columns `sp` (estimate_phase_split, or a
 * drafter's summed passes): time_s = compute_s + memory_s - overlapped_s + kernel_s + comm_s -
 * hidden_s + cpu_wait_s + overhead_s */
static void phase_totals_json(cJSON *o, const struct llmroof_phase *p, const struct estimate_split *sp)
{
    rj_num(o, "time_s", p->time_s);
    rj_num(o, "compute_s", p->compute_s);
    rj_num(o, "memory_s", p->memory_s);
    rj_num(o, "comm_s", p->comm_s);
    rj_num(o, "overhead_s", p->overhead_s);
    rj_num(o, "kernel_s", sp->kernel_s);
    rj_num(o, "overlapped_s", sp->overlapped_s);
    if (p->cpu_wait_s > 0) /* eager engines: kernel launches beyond the GPU time (docs/model.md 3a) */
        rj_num(o, "cpu_wait_s", p->cpu_wait_s);
    if (p->a2a_overlap) /* two-batch overlap: the all-to-all time the other micro-batch hides (comm_s counts it) */
        rj_num(o, "hidden_s", p->hidden_s);
    rj_num(o, "flops", p->flops);
    rj_num(o, "bytes", p->bytes);
    rj_num(o, "comm_bytes", p->comm_bytes);
    rj_str(o, "bound", roofline_phase_bound_name(p));
}

static cJSON *phase_json(const struct llmroof_phase *p, const struct estimate_split *split,
                         const struct llmroof_oplist *ops)
{
    cJSON *o = cJSON_CreateObject();
    const struct estimate_split sp = split ? *split : estimate_phase_split(p);
    phase_totals_json(o, p, &sp);
    cJSON *arr = rj_arr(o, "ops");
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_op *op = &ops->op[k];
        if (op->count <= 0)
            continue;
        cJSON *x = cJSON_CreateObject();
        rj_str(x, "name", op_name((enum llmroof_opkind)k));
        rj_num(x, "count", op->count);
        rj_num(x, "flops", op->count * op->flops);
        rj_num(x, "bytes", p->op[k].bytes);
        rj_num(x, "comm_bytes", p->op[k].comm_bytes);
        rj_num(x, "time_s", p->op[k].time_s);
        rj_num(x, "share", p->time_s > 0 ? p->op[k].time_s / p->time_s : 0.0);
        rj_str(x, "bound", bound_name(p->op[k].bound));
        rj_push(arr, x);
    }
    return o;
}

static void add_range(cJSON *o, const char *key, double v, const struct llmroof_band *b, bool rate)
{
    if (!b->present)
        return;
    cJSON *a = rj_arr(o, key);
    rj_push(a, cJSON_CreateNumber(rate ? v / b->high : v * b->low));
    rj_push(a, cJSON_CreateNumber(rate ? v / b->low : v * b->high));
}

char *render_json_estimate(const struct llmroof_setup *s, const struct llmroof_request *r,
                           const struct llmroof_estimate *e, const struct llmroof_memory *mem,
                           const struct llmroof_uncertainty *bands, long sim_prefill_steps, long sim_budget_tokens,
                           bool sim_chunked)
{
    cJSON *o = rj_new_doc("llmroof.estimate/1");
    rj_str(o, "model", s->model->id);
    rj_str(o, "gpu", s->gpu->id);
    rj_num(o, "tp", s->tp);
    rj_num(o, "batch", (double)r->batch);
    rj_num(o, "prompt_len", (double)r->prompt);
    rj_num(o, "output_len", (double)r->output);
    /* the text output's warning, for a caller that reads JSON alone (the page had shown a prompt
     * past the model's context as valid; a review) */
    rj_num(o, "max_context", (double)s->model->max_context);
    rj_bool(o, "within_max_context", r->prompt + r->output <= s->model->max_context);
    /* the text's note that simulate splits this prefill into several steps, each reading the
     * weights again, for a caller that reads JSON alone (a review) */
    cJSON *simp = rj_obj(o, "simulate_prefill");
    if (simp) {
        rj_num(simp, "steps", (double)sim_prefill_steps);
        rj_num(simp, "budget_tokens", (double)sim_budget_tokens);
        rj_bool(simp, "chunked", sim_chunked);
    }
    rj_str(o, "weight_dtype", dtype_name(s->dt.weight));
    rj_str(o, "kv_dtype", dtype_name(s->dt.kv));
    rj_str(o, "act_dtype", dtype_name(s->dt.act));
    if (s->dt.weight_bits > 0)
        rj_num(o, "weight_bits", s->dt.weight_bits);
    add_checkpoint(o, s->model, &s->dt);
    add_head_bytes(o, s->model, &s->dt);
    if (s->dt.state_set)
        rj_str(o, "state_dtype", dtype_name(s->dt.state));
    /* the convolution window held apart (SGLang's bf16 conv dtype: ops_conv_state_bytes), as the
     * text header's "(conv window bf16)" */
    if (s->dt.state_set && s->dt.conv_state_bf16 && s->dt.state != LLMROOF_BF16 && layers_conv_state_elems(s->model) > 0)
        rj_str(o, "conv_state_dtype", dtype_name(LLMROOF_BF16));
    /* a checkpoint's GEMMs on a path of their own on this GPU (NVFP4, block fp8: ops.h) */
    enum llmroof_dtype low;
    const unsigned mods = ops_ckpt_lowp_modules(s->model, &s->dt, &low);
    if (mods && low != s->dt.act) {
        cJSON *cg = rj_obj(o, "checkpoint_gemms");
        rj_str(cg, "dtype", dtype_name(low));
        /* native: the GPU's tensor path for that dtype; weight-only: widened to the activations' */
        rj_str(cg, "path", ckpt_gpu_native(s->model, low, s->gpu) ? "native" : "weight-only");
        cJSON *ml = rj_arr(cg, "modules");
        for (int i = 0; i < LLMROOF_CKPT_MODULES; i++)
            if (mods >> i & 1u)
                rj_push(ml, cJSON_CreateString(catalog_ckpt_module_name(i)));
    }
    cJSON *ef = rj_obj(o, "efficiency");
    rj_num(ef, "compute", s->eff.compute);
    rj_num(ef, "memory", s->eff.memory);
    rj_num(ef, "comm", s->eff.comm);
    rj_num(ef, "overhead_s", roofline_step_overhead_s(&s->eff, s->tp)); /* as a step adds it */
    rj_num(ef, "first_token_s", s->eff.first_token_s);
    rj_num(ef, "collective_latency_s", s->eff.comm_latency_s);
    if (s->eff.engine_id) { /* which profile, and the host speed its CPU costs were scaled to */
        rj_str(ef, "engine", s->eff.engine_id);
        rj_num(ef, "host_cpu_speed", s->eff.cpu_scale > 0 ? 1.0 / s->eff.cpu_scale : 1.0);
        if (s->eff.ray_engine) /* overhead_s then holds the Ray call at any TP */
            rj_bool(ef, "engine_use_ray", true);
        if (s->eff.ray_workers) /* the profile's Ray workers: the same call at any TP */
            rj_bool(ef, "ray_workers", true);
    }
    rj_bool(o, "kv_heads_replicated", e->shard.kv_replicated);
    cJSON *ly = rj_add_layout(o, &e->shard);
    if (ly) { /* a static batch's pipeline: estimate's own */
        rj_num(ly, "micro_batches", e->micro_batches);
        rj_num(ly, "pp_bubble_s", e->pp_bubble_s);
    }
    if (e->first_step_s > 0)
        rj_num(o, "first_token_step_s", e->first_step_s);
    if (e->cpu_prefill_s > 0 || e->cpu_step_s > 0) { /* the engine's per-sequence CPU work */
        rj_num(o, "cpu_first_token_s", e->cpu_prefill_s);
        rj_num(o, "cpu_step_s", e->cpu_step_s);
    }
    if (e->kv_copy_s > 0) /* TGI 0.8's contiguous K/V copied every decode step */
        rj_num(o, "kv_copy_step_s", e->kv_copy_s);
    /* one output token leaves no decode step: no time per output token and no decode rate, so
     * null, never 0 (which would pass any TPOT SLO), as simulate's latencies nothing measured */
    const bool no_decode = e->decode_steps <= 0;
    rj_num(o, "ttft_s", e->ttft_s);
    if (no_decode)
        rj_null(o, "tpot_s");
    else
        rj_num(o, "tpot_s", e->tpot_s);
    rj_num(o, "e2e_s", e->e2e_s);
    if (no_decode)
        rj_null(o, "decode_tok_s");
    else
        rj_num(o, "decode_tok_s", e->decode_tok_s);
    rj_num(o, "output_tok_s", e->output_tok_s);
    if (bands) {
        cJSON *rg = rj_obj(o, "range");
        add_range(rg, "ttft_s", e->ttft_s, &bands->ttft, false);
        if (no_decode && bands->tpot.present)
            rj_null(rg, "tpot_s");
        else
            add_range(rg, "tpot_s", e->tpot_s, &bands->tpot, false);
        /* e2e covers its parts' bands, as estimate's table (catalog_e2e_band) */
        const struct llmroof_band eb = catalog_e2e_band(bands, e->ttft_s, e->e2e_s, no_decode);
        add_range(rg, "e2e_s", e->e2e_s, &eb, false);
        if (no_decode && bands->tpot.present)
            rj_null(rg, "decode_tok_s");
        else
            add_range(rg, "decode_tok_s", e->decode_tok_s, &bands->tpot, true);
        add_range(rg, "output_tok_s", e->output_tok_s, &eb, true);
    }
    rj_item(o, "prefill", phase_json(&e->prefill, &e->prefill_split, &e->prefill_ops));
    /* no decode step (output 1): null, as tpot_s is, not a phase of zeros that reads as free */
    if (no_decode)
        rj_null(o, "decode");
    else
        rj_item(o, "decode", phase_json(&e->decode, &e->decode_split, &e->decode_ops));
    if (e->has_spec) {
        /* speculative decoding (docs/metrics.md "estimate with speculative decoding"): `decode` is
         * the target's verification pass, the drafter's passes are here */
        const struct llmroof_spec_decode *sp = &e->spec;
        cJSON *so = rj_obj(o, "spec");
        rj_str(so, "method", sp->method ? sp->method : "");
        if (sp->draft)
            rj_str(so, "draft", sp->draft->id);
        rj_num(so, "k", sp->steps);
        rj_num(so, "acceptance", sp->accept);
        if (sp->topk > 0)
            rj_num(so, "tree_topk", sp->topk);
        if (sp->eagle3_vocab > 0)
            rj_num(so, "draft_vocab", (double)sp->eagle3_vocab);
        rj_add_draft_layer(so, &sp->head);
        /* a drafter whose weights are not the target's dtype, as the text note says it */
        const struct llmroof_dtypes ddt = estimate_drafter_dtypes(&s->dt, sp);
        if (ckpt_drafter_apart(&s->dt, &ddt))
            rj_str(so, "drafter_weight_dtype", dtype_name(ddt.weight));
        rj_num(so, "verify_tokens", sp->verify);
        /* the expectation under simulate's name for it (where tokens_per_step is the run's own
         * mean: one name had meant two things, a review); tokens_per_step kept */
        rj_num(so, "expected_tokens_per_step", e->tokens_per_step);
        rj_num(so, "tokens_per_step", e->tokens_per_step);
        rj_num(so, "step_s", e->step_s);
        rj_num(so, "draft_prefill_s", e->draft_prefill_s);
        phase_totals_json(rj_obj(so, "draft_step"), &e->draft, &e->draft_split);
    }
    if (mem) {
        cJSON *m = rj_obj(o, "memory");
        add_memory_fields(m, mem);
    }
    return rj_finish(o);
}

char *render_json_report(const struct llmroof_report *r)
{
    static const char *const status[] = { "ok", "no-fit", "bad-tp", "no-dtype", "no-engine" };
    cJSON *o = rj_new_doc("llmroof.report/1");
    rj_str(o, "model", r->model->id);
    rj_num(o, "batch", (double)r->req.batch);
    rj_num(o, "prompt_len", (double)r->req.prompt);
    rj_num(o, "output_len", (double)r->req.output);
    rj_str(o, "weight_dtype", dtype_name(r->dt.weight));
    if (r->dt.weight_bits > 0)
        rj_num(o, "weight_bits", r->dt.weight_bits);
    rj_str(o, "kv_dtype", dtype_name(r->dt.kv));
    rj_str(o, "act_dtype", dtype_name(r->dt.act));
    if (r->has_layout) {
        /* beyond TP only, as estimate's layout, so TP-only documents keep their shape */
        cJSON *ly = rj_obj(o, "layout");
        rj_num(ly, "pp", r->layout.pp > 0 ? r->layout.pp : 1);
        rj_num(ly, "ep", r->layout.ep > 0 ? r->layout.ep : 1);
        rj_bool(ly, "dp_attention", r->layout.dp_attn);
        rj_num(ly, "ep_imbalance", r->layout.ep_imbalance > 0 ? r->layout.ep_imbalance : 0.0);
        if (r->layout.moe_tp > 1)
            rj_num(ly, "moe_tp", r->layout.moe_tp);
    }
    cJSON *rows = rj_arr(o, "rows");
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        cJSON *j = cJSON_CreateObject();
        if (!rj_push(rows, j)) /* (which freed j, and marked rows) */
            continue;
        rj_str(j, "gpu", x->gpu->id);
        rj_num(j, "tp", x->tp);
        if (r->has_layout)
            rj_num(j, "gpus", x->gpus);
        rj_str(j, "status", status[x->status]);
        /* the compute this GPU runs (the document's act_dtype is the one asked for: fp8 weights
         * run W8A8 on a GPU with fp8, W8A16 on one without) */
        rj_str(j, "act_dtype", dtype_name(x->act));
        rj_str(j, "compute", x->compute);
        if (x->reason[0])
            rj_str(j, "reason", x->reason);
        /* as status says: the weights, one context and the batch fit (a batch beyond max_batch is no-fit) */
        rj_bool(j, "fits", x->has_mem && x->mem.fits && (double)r->req.batch <= x->mem.max_batch);
        if (!x->has_mem)
            continue;
        rj_num(j, "weights_bytes_per_gpu", x->mem.weights_bytes_per_gpu);
        rj_num(j, "kv_bytes_per_token_per_gpu", x->mem.kv_bytes_per_token_per_gpu);
        rj_num(j, "max_batch", x->mem.max_batch);
        if (!x->has_est)
            continue;
        const struct llmroof_estimate *e = &x->est;
        rj_num(j, "ttft_s", e->ttft_s);
        rj_num(j, "tpot_s", e->tpot_s);
        rj_num(j, "e2e_s", e->e2e_s);
        rj_num(j, "decode_tok_s", e->decode_tok_s);
        if (r->has_bands) { /* --range: as the table's low-high columns, estimate's [low, high] */
            cJSON *rg = rj_obj(j, "range");
            add_range(rg, "ttft_s", e->ttft_s, &r->bands.ttft, false);
            add_range(rg, "tpot_s", e->tpot_s, &r->bands.tpot, false);
        }
        rj_str(j, "prefill_bound", roofline_phase_bound_name(&e->prefill));
        rj_str(j, "decode_bound", roofline_phase_bound_name(&e->decode));
        rj_num(j, "prefill_comm_share", estimate_comm_share(&e->prefill));
        rj_num(j, "decode_comm_share", estimate_comm_share(&e->decode));
        if (x->has_scaling)
            rj_num(j, "tp_scaling_eff", x->tp_scaling_eff);
        for (int k = 0; k < 2; k++) {
            cJSON *ops = rj_obj(j, k ? "decode_ops" : "prefill_ops");
            const double *sh = k ? x->decode_share : x->prefill_share;
            for (int c = 0; c < REPORT_CAT_COUNT; c++)
                if (report_cat_shown(r, (enum report_cat)c))
                    rj_num(ops, report_cat_name((enum report_cat)c), sh[c]);
        }
    }
    cJSON *obs = rj_arr(o, "observations");
    for (int i = 0; i < r->nobs; i++)
        rj_push(obs, cJSON_CreateString(r->obs[i]));
    return rj_finish(o);
}

void render_json_add_stats(cJSON *o, struct val_stats s, const char *median_key, const char *p90_key)
{
    /* a group with no row has no error: null, as the CSV's empty cells (docs/json.md), never a 0
     * that reads as a perfect score */
    rj_num(o, "n", (double)s.n);
    const char *k[3] = { median_key, p90_key, "bias" };
    const double v[3] = { s.median_abs, s.p90_abs, s.bias };
    for (int i = 0; i < 3; i++)
        if (s.n > 0)
            rj_num(o, k[i], v[i]);
        else
            rj_null(o, k[i]);
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
    rj_str(o, "file", fname);
    cJSON *rows = rj_arr(o, "rows");
    cJSON *un = rj_arr(o, "unmapped");
    for (size_t i = 0; i < n; i++) {
        const struct val_case *c = &cases[i];
        cJSON *r = cJSON_CreateObject();
        rj_str(r, "id", c->row->id);
        if (!c->mapped) {
            rj_num(r, "line", (double)c->row->line);
            rj_str(r, "reason", c->reason);
            rj_push(un, r);
            continue;
        }
        rj_str(r, "model", c->model->id);
        rj_str(r, "gpu", c->gpu->id);
        rj_num(r, "tp", c->tp);
        rj_num(r, "batch", (double)c->batch);
        rj_num(r, "prompt_len", (double)c->prompt);
        rj_num(r, "output_len", (double)c->output);
        rj_str(r, "weight_dtype", dtype_name(c->dt.weight));
        if (c->dt.weight_bits > 0)
            rj_num(r, "weight_bits", c->dt.weight_bits);
        rj_str(r, "metric", val_metric_name(c->metric));
        rj_num(r, "measured", c->measured);
        rj_num(r, "predicted", c->predicted);
        rj_num(r, "error", c->err);
        rj_str(r, "source", c->row->framework);
        {
            /* the publication its --cv source fold holds it out with (source is the framework) */
            char k[VAL_TEXT], pub[VAL_TEXT];
            val_source_key(c->row, k, sizeof k);
            val_publication(k, pub, sizeof pub);
            rj_str(r, "publication", pub);
        }
        if (c->assumptions[0])
            rj_str(r, "assumptions", c->assumptions);
        rj_push(rows, r);
    }
    cJSON *sum = rj_obj(o, "summary");
    struct jgroup g = { by, NULL, -1, -1 };
    rj_item(sum, "all", stats_json(val_stats_of(cases, n, jkeep, &g)));
    cJSON *cls = rj_obj(sum, "by_class");
    for (int k = 0; k < 3; k++) {
        g.cls = k;
        rj_item(cls, val_class_name((enum val_class)k), stats_json(val_stats_of(cases, n, jkeep, &g)));
    }
    g.cls = -1;
    cJSON *ld = rj_obj(sum, "by_load");
    for (int k = 0; k < 2; k++) {
        g.load = k;
        rj_item(ld, k ? "serving" : "static", stats_json(val_stats_of(cases, n, jkeep, &g)));
    }
    g.load = -1;
    cJSON *grp = rj_obj(sum, by_names[by]);
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        const char *key = val_group_key(&cases[i], by);
        if (cJSON_GetObjectItemCaseSensitive(grp, key))
            continue;
        g.key = key;
        rj_item(grp, key, stats_json(val_stats_of(cases, n, jkeep, &g)));
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
        cJSON *x = rj_obj(o, keys[k]);
        rj_num(x, "low", round(b[k]->low * 1e4) / 1e4);
        rj_num(x, "high", round(b[k]->high * 1e4) / 1e4);
        rj_num(x, "n", (double)b[k]->n);
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
    rj_str(o, "source", src);
    return rj_finish(o);
}
