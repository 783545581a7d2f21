/* sweep.c - see llmroof/sweep.h */
#include "fit/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fmt.h"
#include "model/ckpt.h"
#include "model/estimate.h"
#include "serve/sim.h"

const char *const sweep_num_field_names[SWEEP_NUM_FIELDS] = {
    "weights_bytes_per_gpu", "kv_bytes_per_token_per_gpu", "max_batch", "ttft_s", "tpot_s", "e2e_s",
    "decode_tok_s", "output_tok_s", "prefill_comm_share", "decode_comm_share", "fits"
};

double sweep_num_field(const struct sweep_row *r, int i)
{
    switch (i) {
    case 0: return r->weights_bytes_per_gpu;
    case 1: return r->kv_bytes_per_token_per_gpu;
    case 2: return r->max_batch;
    case 3: return r->ttft_s;
    case 4: return r->tpot_s;
    case 5: return r->e2e_s;
    case 6: return r->decode_tok_s;
    case 7: return r->output_tok_s;
    case 8: return r->prefill_comm_share;
    case 9: return r->decode_comm_share;
    case 10: return r->fits ? 1.0 : 0.0;
    }
    return 0;
}

void sweep_eval(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp, long batch, long prompt,
                long output, const struct llmroof_dtypes *dt, struct sweep_row *out)
{
    sweep_eval_layout(m, g, tp, NULL, batch, prompt, output, dt, out);
}

void sweep_eval_layout(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                       const struct llmroof_layout *lay, long batch, long prompt, long output,
                       const struct llmroof_dtypes *dt, struct sweep_row *out)
{
    sweep_eval_engine(m, g, tp, lay, NULL, batch, prompt, output, dt, out);
}

void sweep_eval_engine(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                       const struct llmroof_layout *lay, const struct llmroof_engine *en, long batch, long prompt,
                       long output, const struct llmroof_dtypes *dt, struct sweep_row *out)
{
    memset(out, 0, sizeof *out);
    if (en)
        snprintf(out->engine, sizeof out->engine, "%s", en->id);
    struct llmroof_layout ly = { .tp = tp, .pp = 1, .ep = 1 };
    if (lay) {
        ly = *lay;
        ly.tp = tp;
    }
    out->pp = ly.pp > 0 ? ly.pp : 1;
    out->ep = ly.ep > 0 ? ly.ep : 1;
    out->dp_attn = ly.dp_attn;
    out->ep_imbalance = ly.ep_imbalance;
    out->two_batch_overlap = ly.two_batch_overlap;
    out->moe_tp = ly.moe_tp > 1 ? ly.moe_tp : 1;
    snprintf(out->model, sizeof out->model, "%s", m->id);
    snprintf(out->gpu, sizeof out->gpu, "%s", g->id);
    out->tp = tp;
    out->batch = batch;
    out->prompt = prompt;
    out->output = output;
    /* the model's own state dtype, as estimate and memory take it by default (Kimi-Linear's fp32:
     * a review found sweep and check at 16 bits, 594 sequences where memory said 472), unless
     * --state-dtype named one */
    out->state_given = dt->state_set;
    const struct llmroof_dtypes d = ckpt_state_dtype(m, *dt);
    out->dt = d;
    dt = &out->dt;
    if (en && !catalog_engine_runs_on(en, g)) {
        snprintf(out->reason, sizeof out->reason, "engine '%s' does not run on %s (CUDA only; an AMD GPU)", en->id,
                 g->id);
        return;
    }
    /* a layout the engine has no code for, as estimate refuses it (a review: vllm-0.6 rows at
     * --ep 8 were valid in a sweep that estimate -e refuses) */
    if (en && ly.dp_attn && !en->dp_attention) {
        snprintf(out->reason, sizeof out->reason, "engine '%s' runs no data-parallel attention (dp_attention)", en->id);
        return;
    }
    if (en && ly.ep > 1 && !en->expert_parallel) {
        snprintf(out->reason, sizeof out->reason, "engine '%s' runs no expert parallelism (expert_parallel)", en->id);
        return;
    }
    /* what the runtime cannot run (calm: one GPU, one sequence), as estimate refuses it */
    const long gpus = ops_layout_gpus(&ly, tp);
    if (en && en->max_gpus > 0 && gpus > en->max_gpus) {
        snprintf(out->reason, sizeof out->reason, "engine '%s' runs an instance on at most %ld GPU%s (max_gpus)",
                 en->id, en->max_gpus, en->max_gpus == 1 ? "" : "s");
        return;
    }
    if (en && en->max_batch > 0 && batch > en->max_batch) {
        snprintf(out->reason, sizeof out->reason, "engine '%s' runs at most %ld sequence%s at once (max_batch)", en->id,
                 en->max_batch, en->max_batch == 1 ? "" : "s");
        return;
    }

    /* past the model's context (its max_position_embeddings) no engine serves the request (vLLM's
     * max_model_len defaults to it and refuses longer ones); estimate warns, a row is invalid, or a
     * baseline would guard numbers no deployment gives, and a check could not see a context
     * regression (a review: 8,567 such rows of the default sweep were valid) */
    if (m->max_context > 0 && prompt + output > m->max_context) {
        snprintf(out->reason, sizeof out->reason, "prompt + output = %ld tokens exceed %s's max context of %ld",
                 prompt + output, m->id, m->max_context);
        return;
    }
    /* the engine's efficiencies and graph limit at this TP, as estimate -e (roofline_effs_tp), and
     * its dtype rule for the compute (ckpt_engine_dtypes: how its W8A8 GEMMs quantize) */
    const struct llmroof_eff_override o = { .engine = en };
    struct llmroof_setup s = { m, g, tp, en ? ckpt_engine_dtypes(d, en) : d,
                               en ? roofline_effs_tp(g, &o, tp) : roofline_default_effs(g), ly };
    struct llmroof_request req = { batch, prompt, output };
    struct llmroof_estimate e;
    struct llmroof_err err = { 0 };
    if (estimate_run(&s, &req, &e, &err) != LLMROOF_OK) {
        snprintf(out->reason, sizeof out->reason, "%s", err.msg);
        return;
    }
    struct llmroof_mem_opts mo = memory_default_opts();
    if (en) {
        /* the engine's KV pool as estimate and memory set it up */
        sim_engine_mem_opts(en, &s, false, false, false, false, &mo);
        ly = estimate_layout(&s); /* with the engine's --moe-tp rule, as estimate's memory takes it */
    }
    struct llmroof_memory mem;
    if (memory_eval_layout(m, g, &ly, dt, prompt + output, &mo, &mem, &err) != LLMROOF_OK) {
        snprintf(out->reason, sizeof out->reason, "%s", err.msg);
        return;
    }
    out->valid = true;
    memory_fit_batch(&mem, batch); /* the same rule as estimate and memory -b */
    out->fits = mem.fits;
    out->weights_bytes_per_gpu = mem.weights_bytes_per_gpu;
    out->kv_bytes_per_token_per_gpu = mem.kv_bytes_per_token_per_gpu;
    out->max_batch = mem.max_batch;
    out->ttft_s = e.ttft_s;
    out->tpot_s = e.tpot_s;
    out->e2e_s = e.e2e_s;
    out->decode_tok_s = e.decode_tok_s;
    out->output_tok_s = e.output_tok_s;
    snprintf(out->prefill_bound, sizeof out->prefill_bound, "%s", roofline_phase_bound_name(&e.prefill));
    snprintf(out->decode_bound, sizeof out->decode_bound, "%s", roofline_phase_bound_name(&e.decode));
    out->prefill_comm_share = estimate_comm_share(&e.prefill);
    out->decode_comm_share = estimate_comm_share(&e.decode);
}

/* Whole numbers (bytes, batch) print exactly; others with 10 significant digits, far finer
 * than any tolerance check uses and stable across runs. A whole number goes through an integer's
 * conversion, the same digits as "%.0f" below 1e15 (exact in a long long) without printf's
 * multi-precision float path, which was a third of a sweep's time; a zero prints "0", never
 * "-0"; the rest through fmt_g10, printf's "%.10g" byte for byte. */
static int num_text(double v, char *buf, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15)
        return snprintf(buf, n, "%lld", (long long)v);
    return fmt_g10(v, buf, n);
}

static void num(struct sbuf *out, double v)
{
    char buf[32];
    int n = num_text(v, buf, sizeof buf);
    sbuf_appendn(out, buf, (size_t)n);
}

double sweep_stored_value(double v)
{
    char buf[32];
    num_text(v, buf, sizeof buf);
    return strtod(buf, NULL);
}

static void integer(struct sbuf *out, long v)
{
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%ld", v);
    sbuf_appendn(out, buf, (size_t)n);
}

/* drop a header's or row's \r\n: columns follow */
static void csv_unterminate(struct sbuf *out)
{
    if (out->data && out->len >= 2) {
        out->len -= 2;
        out->data[out->len] = '\0';
    }
}

void sweep_csv_header(struct sbuf *out)
{
    sbuf_append(out, "model,gpu,tp,batch,prompt_len,output_len,weight_dtype,kv_dtype,act_dtype,valid,reason,fits,"
                     "weights_bytes_per_gpu,kv_bytes_per_token_per_gpu,max_batch,ttft_s,tpot_s,e2e_s,decode_tok_s,"
                     "output_tok_s,prefill_bound,decode_bound,prefill_comm_share,decode_comm_share\r\n");
}

void sweep_csv_header_layout(struct sbuf *out)
{
    sweep_csv_header(out);
    csv_unterminate(out); /* the layout columns follow */
    sbuf_append(out, ",pp,ep,dp_attention,ep_imbalance,two_batch_overlap,moe_tp\r\n");
}

void sweep_csv_append_state_header(struct sbuf *out)
{
    csv_unterminate(out);
    sbuf_append(out, ",state_dtype\r\n");
}

static void csv_text(struct sbuf *out, const char *s);

void sweep_csv_append_engine_header(struct sbuf *out)
{
    csv_unterminate(out);
    sbuf_append(out, ",engine\r\n");
}

void sweep_csv_append_engine(const struct sweep_row *r, struct sbuf *out)
{
    csv_unterminate(out);
    sbuf_append(out, ",");
    csv_text(out, r->engine);
    sbuf_append(out, "\r\n");
}

void sweep_csv_append_state(const struct sweep_row *r, struct sbuf *out)
{
    csv_unterminate(out);
    sbuf_append(out, ",");
    sbuf_append(out, r->state_given ? dtype_name(r->dt.state) : "");
    sbuf_append(out, "\r\n");
}

static void csv_text(struct sbuf *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        sbuf_append(out, s);
        return;
    }
    sbuf_append(out, "\"");
    for (; *s; s++)
        sbuf_appendn(out, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
    sbuf_append(out, "\"");
}

void sweep_csv_row(const struct sweep_row *r, struct sbuf *out)
{
    sbuf_append(out, r->model);
    sbuf_append(out, ",");
    sbuf_append(out, r->gpu);
    sbuf_append(out, ",");
    integer(out, r->tp);
    sbuf_append(out, ",");
    integer(out, r->batch);
    sbuf_append(out, ",");
    integer(out, r->prompt);
    sbuf_append(out, ",");
    integer(out, r->output);
    sbuf_append(out, ",");
    sbuf_append(out, dtype_name(r->dt.weight));
    sbuf_append(out, ",");
    sbuf_append(out, dtype_name(r->dt.kv));
    sbuf_append(out, ",");
    sbuf_append(out, dtype_name(r->dt.act));
    if (!r->valid) {
        sbuf_append(out, ",false,");
        csv_text(out, r->reason);
        sbuf_append(out, ",,,,,,,,,,,,,\r\n");
        return;
    }
    sbuf_append(out, r->fits ? ",true,,true," : ",true,,false,");
    for (int i = 0; i < 8; i++) {
        num(out, sweep_num_field(r, i));
        sbuf_append(out, ",");
    }
    sbuf_append(out, r->prefill_bound);
    sbuf_append(out, ",");
    sbuf_append(out, r->decode_bound);
    sbuf_append(out, ",");
    num(out, r->prefill_comm_share);
    sbuf_append(out, ",");
    num(out, r->decode_comm_share);
    sbuf_append(out, "\r\n");
}

void sweep_csv_row_layout(const struct sweep_row *r, struct sbuf *out)
{
    sweep_csv_row(r, out);
    csv_unterminate(out); /* the row's \r\n moves after the layout columns */
    sbuf_append(out, ",");
    integer(out, r->pp);
    sbuf_append(out, ",");
    integer(out, r->ep);
    sbuf_append(out, r->dp_attn ? ",true," : ",false,");
    if (r->ep_imbalance > 0)
        num(out, r->ep_imbalance);
    sbuf_append(out, r->two_batch_overlap ? ",true," : ",false,");
    integer(out, r->moe_tp > 1 ? r->moe_tp : 1);
    sbuf_append(out, "\r\n");
}

static void json_text(struct sbuf *out, const char *s)
{
    sbuf_append(out, "\"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            char e[2] = { '\\', (char)ch };
            sbuf_appendn(out, e, 2);
        } else if (ch < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", ch);
            sbuf_append(out, e);
        } else {
            sbuf_appendn(out, s, 1);
        }
    }
    sbuf_append(out, "\"");
}

void sweep_jsonl_row(const struct sweep_row *r, struct sbuf *out)
{
    sbuf_append(out, "{\"schema\":\"" SWEEP_SCHEMA "\",\"model\":");
    json_text(out, r->model);
    sbuf_append(out, ",\"gpu\":");
    json_text(out, r->gpu);
    sbuf_append(out, ",\"tp\":");
    integer(out, r->tp);
    if (r->pp > 1 || r->ep > 1 || r->dp_attn || r->moe_tp > 1) {
        /* a layout beyond TP: the row says which, so check can evaluate it again */
        sbuf_append(out, ",\"pp\":");
        integer(out, r->pp);
        sbuf_append(out, ",\"ep\":");
        integer(out, r->ep);
        sbuf_append(out, r->dp_attn ? ",\"dp_attention\":true" : ",\"dp_attention\":false");
        if (r->ep_imbalance > 0) { /* absent: uniform routing's busiest rank, the default */
            sbuf_append(out, ",\"ep_imbalance\":");
            num(out, r->ep_imbalance);
        }
        if (r->two_batch_overlap)
            sbuf_append(out, ",\"two_batch_overlap\":true");
        if (r->moe_tp > 1) {
            sbuf_append(out, ",\"moe_tp\":");
            integer(out, r->moe_tp);
        }
    }
    sbuf_append(out, ",\"batch\":");
    integer(out, r->batch);
    sbuf_append(out, ",\"prompt_len\":");
    integer(out, r->prompt);
    sbuf_append(out, ",\"output_len\":");
    integer(out, r->output);
    sbuf_append(out, ",\"weight_dtype\":\"");
    sbuf_append(out, dtype_name(r->dt.weight));
    sbuf_append(out, "\",\"kv_dtype\":\"");
    sbuf_append(out, dtype_name(r->dt.kv));
    sbuf_append(out, "\",\"act_dtype\":\"");
    sbuf_append(out, dtype_name(r->dt.act));
    if (r->state_given) { /* (the quote the next field opens with closes it) */
        sbuf_append(out, "\",\"state_dtype\":\"");
        sbuf_append(out, dtype_name(r->dt.state));
    }
    if (r->engine[0]) { /* an engine profile's row: check evaluates it with the same profile */
        sbuf_append(out, "\",\"engine\":\"");
        sbuf_append(out, r->engine);
    }
    if (!r->valid) {
        sbuf_append(out, "\",\"valid\":false,\"reason\":");
        json_text(out, r->reason);
        sbuf_append(out, "}\n");
        return;
    }
    sbuf_append(out, r->fits ? "\",\"valid\":true,\"fits\":true" : "\",\"valid\":true,\"fits\":false");
    for (int i = 0; i < 8; i++) {
        sbuf_append(out, ",\"");
        sbuf_append(out, sweep_num_field_names[i]);
        sbuf_append(out, "\":");
        num(out, sweep_num_field(r, i));
    }
    sbuf_append(out, ",\"prefill_bound\":\"");
    sbuf_append(out, r->prefill_bound);
    sbuf_append(out, "\",\"decode_bound\":\"");
    sbuf_append(out, r->decode_bound);
    sbuf_append(out, "\",\"prefill_comm_share\":");
    num(out, r->prefill_comm_share);
    sbuf_append(out, ",\"decode_comm_share\":");
    num(out, r->decode_comm_share);
    sbuf_append(out, "}\n");
}
