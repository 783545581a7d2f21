/* render_report.c - see llmroof/render_report.h */
#include "render/render_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ckpt.h"
#include "render/svg.h"

const char *report_status_name(enum report_status s)
{
    switch (s) {
    case REPORT_OK: return "ok";
    case REPORT_NO_FIT: return "no-fit";
    case REPORT_BAD_TP: return "bad-tp";
    case REPORT_BAD_DTYPE: return "no-dtype";
    case REPORT_NO_ENGINE: return "no-engine";
    }
    return "?";
}

void report_table_configs(const struct llmroof_report *r, struct table *t)
{
    table_init(t, "Table 1: configurations");
    table_col(t, "gpu", 0);
    table_col(t, "tp", 0);
    if (r->has_layout)
        table_col(t, "gpus", 0);
    table_col(t, "status", 0);
    table_col(t, "weights_GiB_per_gpu", 2);
    table_col(t, "kv_KiB_per_token_per_gpu", 1);
    table_col(t, "max_batch", 0);
    table_col(t, "ttft_ms", 1);
    if (r->has_bands) {
        table_col(t, "ttft_low_ms", 1);
        table_col(t, "ttft_high_ms", 1);
    }
    table_col(t, "tpot_ms", 2);
    if (r->has_bands) {
        table_col(t, "tpot_low_ms", 2);
        table_col(t, "tpot_high_ms", 2);
    }
    table_col(t, "e2e_s", 2);
    table_col(t, "decode_tok_s", 0);
    table_col(t, "decode_tok_s_per_gpu", 0);
    table_col(t, "prefill_bound", 0);
    table_col(t, "decode_bound", 0);
    table_col(t, "prefill_comm_pct", 1);
    table_col(t, "decode_comm_pct", 1);
    table_col(t, "tp_scaling_pct", 0);
    /* why a row is not ok, as JSON's `reason` (CSV and HTML had shown the status alone: a review);
     * the text's narrow tables leave it to the observations */
    table_col(t, "reason", 0);
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        table_row(t);
        table_str(t, x->gpu->id);
        table_num(t, x->tp);
        if (r->has_layout && x->status != REPORT_BAD_TP)
            table_num(t, x->gpus);
        else if (r->has_layout)
            table_empty(t); /* the layout does not suit this TP: no instance */
        table_str(t, report_status_name(x->status));
        if (x->has_mem) {
            table_num(t, x->mem.weights_bytes_per_gpu / 1073741824.0);
            table_num(t, x->mem.kv_bytes_per_token_per_gpu / 1024.0);
            table_num(t, x->mem.max_batch);
        } else {
            table_empty(t);
            table_empty(t);
            table_empty(t);
        }
        if (x->has_est) {
            const struct llmroof_estimate *e = &x->est;
            table_num(t, e->ttft_s * 1e3);
            if (r->has_bands) {
                table_num(t, e->ttft_s * 1e3 * r->bands.ttft.low);
                table_num(t, e->ttft_s * 1e3 * r->bands.ttft.high);
            }
            table_num(t, e->tpot_s * 1e3);
            if (r->has_bands) {
                table_num(t, e->tpot_s * 1e3 * r->bands.tpot.low);
                table_num(t, e->tpot_s * 1e3 * r->bands.tpot.high);
            }
            table_num(t, e->e2e_s);
            table_num(t, e->decode_tok_s);
            table_num(t, e->decode_tok_s / x->gpus);
            table_str(t, roofline_phase_bound_name(&e->prefill)); /* as estimate names it: cpu too */
            table_str(t, roofline_phase_bound_name(&e->decode));
            table_num(t, 100 * estimate_comm_share(&e->prefill));
            table_num(t, 100 * estimate_comm_share(&e->decode));
            if (x->has_scaling)
                table_num(t, 100 * x->tp_scaling_eff);
            else
                table_empty(t);
        } else {
            for (int k = 0; k < (r->has_bands ? 14 : 10); k++)
                table_empty(t);
        }
        if (x->reason[0])
            table_str(t, x->reason);
        else
            table_empty(t);
    }
}

void report_table_shares(const struct llmroof_report *r, bool decode, bool unit_names, struct table *t)
{
    table_init(t, decode ? "Table 3: decode time by operator (% of the mean decode step)"
                         : "Table 2: prefill time by operator (% of TTFT)");
    table_col(t, "gpu", 0);
    table_col(t, "tp", 0);
    /* a CSV column stands without the title that says "%": its name carries the unit, as the
     * configs table's prefill_comm_pct does; a table under its title keeps the short names */
    for (int c = 0; c < REPORT_CAT_COUNT; c++)
        if (report_cat_shown(r, (enum report_cat)c)) {
            char name[48];
            snprintf(name, sizeof name, "%s%s", report_cat_name((enum report_cat)c), unit_names ? "_pct" : "");
            table_col(t, name, 1);
        }
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        table_row(t);
        table_str(t, x->gpu->id);
        table_num(t, x->tp);
        const double *sh = decode ? x->decode_share : x->prefill_share;
        for (int c = 0; c < REPORT_CAT_COUNT; c++) {
            if (!report_cat_shown(r, (enum report_cat)c))
                continue;
            if (x->has_est)
                table_num(t, 100 * sh[c]);
            else
                table_empty(t);
        }
    }
}

void render_engine_line(const struct llmroof_eff_override *o, struct sbuf *out)
{
    if (!o->engine)
        return;
    if (o->host_cpu_speed > 0)
        sbuf_printf(out, "engine %s; host CPU %.2f x the reference's speed (--host-cpu-speed)\n", o->engine->id,
                    o->host_cpu_speed);
    else
        sbuf_printf(out, "engine %s; host CPU as each GPU entry states it (host.cpu_speed, else the reference's)\n",
                    o->engine->id);
}

/* Whether every row computes as the first does (its GPU's compute dtype and modules). */
static bool one_compute(const struct llmroof_report *r)
{
    for (int i = 1; i < r->nrows; i++)
        if (strcmp(r->rows[i].compute, r->rows[0].compute) != 0)
            return false;
    return true;
}

static void header(const struct llmroof_report *r, struct sbuf *out, const char *prefix)
{
    char wdesc[224];
    ckpt_weight_desc(r->model, &r->dt, wdesc, sizeof wdesc);
    /* the compute each GPU runs, as estimate says it: fp8 weights run W8A8 where the GPU has fp8
     * (the header had said the requested "fp16 compute" over rows computed at fp8: a review) */
    sbuf_printf(out, "%sllmroof report: %s, batch %ld, prompt %ld, output %ld; %s, %s KV, ", prefix, r->model->id,
                r->req.batch, r->req.prompt, r->req.output, wdesc, dtype_name(r->dt.kv));
    if (r->nrows > 0 && one_compute(r)) {
        sbuf_printf(out, "%s\n", r->rows[0].compute);
    } else if (r->nrows > 0) {
        sbuf_append(out, "compute by GPU:");
        for (int i = 0; i < r->nrows; i++) {
            bool seen = false; /* one entry per GPU: its TPs compute alike */
            for (int j = 0; j < i; j++)
                seen |= r->rows[j].gpu == r->rows[i].gpu;
            if (!seen)
                sbuf_printf(out, "%s %s %s", i ? ";" : "", r->rows[i].gpu->id, r->rows[i].compute);
        }
        sbuf_append(out, "\n");
    } else {
        sbuf_printf(out, "%s compute\n", dtype_name(r->dt.act));
    }
    render_engine_line(&r->eff, out);
    if (r->has_layout) {
        const struct llmroof_layout *l = &r->layout;
        if (l->moe_tp > 1)
            sbuf_printf(out, "layout with every TP: PP %d, MoE TP %d, data-parallel attention", l->pp > 0 ? l->pp : 1,
                        l->moe_tp);
        else
            sbuf_printf(out, "layout with every TP: PP %d, EP %d%s", l->pp > 0 ? l->pp : 1,
                        l->ep > 0 ? l->ep : 1, l->dp_attn ? ", data-parallel attention" : "");
        if (l->ep_imbalance > 1)
            sbuf_printf(out, ", EP imbalance %g", l->ep_imbalance);
        sbuf_append(out, "; per-GPU figures divide by the layout's GPUs\n");
    }
}

/* Table 1 for a 100-column terminal: the same columns, grouped by what a reader compares. */
static void render_configs_narrow(const struct table *all, bool bands, enum table_format f, struct sbuf *out)
{
    static const char *const lat[] = { "gpu", "tp", "gpus", "status", "ttft_ms", "tpot_ms", "e2e_s", "decode_tok_s",
                                       "decode_tok_s_per_gpu", NULL };
    static const char *const mem[] = { "gpu", "tp", "gpus", "status", "weights_GiB_per_gpu", "kv_KiB_per_token_per_gpu",
                                       "max_batch", NULL };
    static const char *const bnd[] = { "gpu", "tp", "prefill_bound", "decode_bound", "prefill_comm_pct",
                                       "decode_comm_pct", "tp_scaling_pct", NULL };
    static const char *const rng[] = { "gpu", "tp", "ttft_low_ms", "ttft_ms", "ttft_high_ms", "tpot_low_ms",
                                       "tpot_ms", "tpot_high_ms", NULL };
    const struct { const char *title; const char *const *cols; } parts[] = {
        { "Table 1a: configurations - latency and throughput", lat },
        { "Table 1b: configurations - memory per GPU", mem },
        { "Table 1c: configurations - bounds, communication and TP scaling", bnd },
        { "Table 1d: configurations - low-high bands from the validation residuals", rng },
    };
    for (int p = 0; p < (bands ? 4 : 3); p++) {
        struct table t;
        table_columns(all, parts[p].title, parts[p].cols, &t);
        if (p)
            sbuf_append(out, "\n");
        table_render_fit(&t, f, REPORT_TEXT_WIDTH, 2, out);
        table_free(&t);
    }
}

void render_report(const struct llmroof_report *r, enum table_format f, struct table_sel *sel, bool wide,
                   struct sbuf *out)
{
    static const char *const names[] = { "configs", "prefill_shares", "decode_shares" };
    struct table t;
    if (f != TABLE_CSV) {
        header(r, out, f == TABLE_MD ? "## " : "");
        sbuf_append(out, "\n");
    }
    for (int k = 0; k < 3; k++) {
        if (k == 0)
            report_table_configs(r, &t);
        else
            report_table_shares(r, k == 2, f == TABLE_CSV, &t);
        if (k && f != TABLE_CSV)
            sbuf_append(out, "\n");
        if (!table_sel_wants(sel, f, names[k]))
            ;
        else if (f == TABLE_CSV || wide)
            table_render(&t, f, out);
        else if (k == 0)
            render_configs_narrow(&t, r->has_bands, f, out);
        else
            table_render_fit(&t, f, REPORT_TEXT_WIDTH, 2, out);
        table_free(&t);
    }
    if (f == TABLE_CSV) {
        table_init(&t, "");
        table_col(&t, "observation", 0);
        for (int i = 0; i < r->nobs; i++) {
            table_row(&t);
            table_str(&t, r->obs[i]);
        }
        if (table_sel_wants(sel, f, "observations"))
            table_render(&t, f, out);
        table_free(&t);
        return;
    }
    sbuf_append(out, "\n");
    sbuf_append(out, f == TABLE_MD ? "### Observations\n\n" : "Observations\n");
    for (int i = 0; i < r->nobs; i++)
        sbuf_printf(out, "- %s\n", r->obs[i]);
}

void render_report_chart(const struct llmroof_report *r, bool decode, bool standalone, struct sbuf *out)
{
    const char *bars[REPORT_MAX_ROWS];
    char labels[REPORT_MAX_ROWS][96];
    const char *series[REPORT_CAT_COUNT];
    int map[REPORT_CAT_COUNT] = { 0 };
    size_t ns = 0;
    for (int c = 0; c < REPORT_CAT_COUNT; c++)
        if (report_cat_shown(r, (enum report_cat)c)) {
            series[ns] = report_cat_name((enum report_cat)c);
            map[ns++] = c;
        }
    double *values = calloc((size_t)REPORT_MAX_ROWS * REPORT_CAT_COUNT, sizeof *values);
    if (!values) {
        out->failed = true;
        return;
    }
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        snprintf(labels[i], sizeof labels[i], "%s TP %d%s", x->gpu->id, x->tp, x->status == REPORT_OK ? "" : " *");
        bars[i] = labels[i];
        const double *sh = decode ? x->decode_share : x->prefill_share;
        for (size_t s = 0; s < ns; s++)
            values[(size_t)i * ns + s] = x->has_est ? sh[map[s]] : 0.0;
    }
    char title[256];
    snprintf(title, sizeof title, "%s: %s time by operator (%s)", r->model->id, decode ? "decode step" : "prefill",
             "* = does not fit or not servable");
    svg_stacked_bars(out, title, bars, (size_t)r->nrows, series, ns, values, standalone);
    free(values);
}

void render_report_latency_chart(const struct llmroof_report *r, bool standalone, struct sbuf *out)
{
    /* rows are GPU-major: the TPs of the first GPU give the series */
    int ntps = 0;
    while (ntps < r->nrows && r->rows[ntps].gpu == r->rows[0].gpu)
        ntps++;
    int ngpus = ntps ? r->nrows / ntps : 0;
    const char *groups[REPORT_MAX_GPUS], *series[REPORT_MAX_TPS];
    char names[REPORT_MAX_TPS][16];
    double *v = calloc((size_t)REPORT_MAX_ROWS * 3, sizeof *v);
    bool has[REPORT_MAX_ROWS] = { false }, pale[REPORT_MAX_ROWS] = { false };
    if (!v) {
        out->failed = true;
        return;
    }
    for (int t = 0; t < ntps; t++) {
        snprintf(names[t], sizeof names[t], "TP %d", r->rows[t].tp);
        series[t] = names[t];
    }
    for (int g = 0; g < ngpus; g++)
        groups[g] = r->rows[(size_t)g * (size_t)ntps].gpu->id;
    for (int i = 0; i < ngpus * ntps; i++) {
        const struct report_row *x = &r->rows[i];
        has[i] = x->has_est;
        pale[i] = x->status != REPORT_OK;
        if (!x->has_est)
            continue;
        v[i] = x->est.ttft_s * 1e3;
        v[(size_t)REPORT_MAX_ROWS + (size_t)i] = x->est.tpot_s * 1e3;
        v[(size_t)REPORT_MAX_ROWS * 2 + (size_t)i] = x->est.decode_tok_s;
    }
    char ttft[96], thr[96], title[256];
    snprintf(ttft, sizeof ttft, "TTFT (ms) for %ld prompts of %ld tokens", r->req.batch, r->req.prompt);
    snprintf(thr, sizeof thr, "decode throughput (tokens/s) for the batch of %ld", r->req.batch);
    const struct svg_bar_panel panels[3] = {
        { ttft, v }, { "TPOT (ms), mean decode step", v + (size_t)REPORT_MAX_ROWS }, { thr, v + (size_t)REPORT_MAX_ROWS * 2 },
    };
    snprintf(title, sizeof title, "%s: latency and throughput per GPU and TP", r->model->id);
    svg_grouped_bars(out, title, groups, (size_t)ngpus, series, (size_t)ntps, has, pale, panels, 3,
                     "faded bar: does not fit the batch; n/a: not estimated (TP does not divide the heads, no dtype, or no engine)",
                     standalone);
    free(v);
}

static void html_escape(struct sbuf *out, const char *s)
{
    svg_escape(out, s);
}

static void html_table(struct sbuf *out, const struct table *t)
{
    char buf[64];
    sbuf_append(out, "<h2>");
    html_escape(out, t->title);
    /* a table wider than the page scrolls inside its box instead of being cut off */
    sbuf_append(out, "</h2>\n<div class=\"scroll\">\n<table>\n<tr>");
    for (int c = 0; c < t->ncols; c++) {
        sbuf_append(out, "<th>");
        html_escape(out, t->col[c]);
        sbuf_append(out, "</th>");
    }
    sbuf_append(out, "</tr>\n");
    for (size_t r = 0; r < t->nrows; r++) {
        sbuf_append(out, "<tr>");
        for (int c = 0; c < t->ncols; c++) {
            const struct table_cell *cell = &t->cells[r * (size_t)t->ncols + (size_t)c];
            sbuf_append(out, cell->is_num ? "<td class=\"n\">" : "<td>");
            html_escape(out, table_cell_text(t, r, c, buf));
            sbuf_append(out, "</td>");
        }
        sbuf_append(out, "</tr>\n");
    }
    sbuf_append(out, "</table>\n</div>\n");
}

void render_report_html(const struct llmroof_report *r, struct sbuf *out)
{
    struct table t;
    /* a phone's width: the page at its own width (viewport), each chart at least 640 px in a box
     * that scrolls sideways, as the tables (at 420 px the charts had shrunk to 3-px text: a review of
     * session 65) */
    sbuf_append(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>llmroof report: ");
    html_escape(out, r->model->id);
    sbuf_append(out, "</title>\n<style>\n"
                     "body{font-family:sans-serif;margin:2em;max-width:1200px;color:#222}\n"
                     "div.scroll{overflow-x:auto;max-width:100%}\n"
                     "table{border-collapse:collapse;margin:0.5em 0 1.5em 0;font-size:13px;white-space:nowrap}\n"
                     "th,td{border:1px solid #ccc;padding:3px 6px}th{background:#f3f3f3}\n"
                     "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
                     "svg{display:block;margin:1em 0;max-width:100%;height:auto}\n"
                     "div.scroll svg{min-width:640px}\n"
                     "@media (max-width:700px){body{margin:0.8em}h1{font-size:1.2em}}\n"
                     "p.sub{margin:0.2em 0;color:#444}\n"
                     "</style>\n</head>\n<body>\n");
    /* the header's first line is the title, its engine and layout lines paragraphs under it (all
     * had run together into one six-line heading: "...fp16 compute engine sglang; ...") */
    struct sbuf h;
    sbuf_init(&h);
    header(r, &h, "");
    char *line = sbuf_failed(&h) ? NULL : h.data; /* our own buffer: each '\n' ends a line in place */
    for (int k = 0; line && *line; k++) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        sbuf_append(out, k == 0 ? "<h1>" : "<p class=\"sub\">");
        html_escape(out, line);
        sbuf_append(out, k == 0 ? "</h1>\n" : "</p>\n");
        line = nl ? nl + 1 : NULL;
    }
    sbuf_free(&h);
    sbuf_append(out, "<p>Roofline estimates; formulas in docs/model.md of llmroof.</p>\n");
    report_table_configs(r, &t);
    html_table(out, &t);
    table_free(&t);
    sbuf_append(out, "<div class=\"scroll\">\n");
    render_report_latency_chart(r, false, out);
    sbuf_append(out, "</div>\n<h2>Observations</h2>\n<ul>\n");
    for (int i = 0; i < r->nobs; i++) {
        sbuf_append(out, "<li>");
        html_escape(out, r->obs[i]);
        sbuf_append(out, "</li>\n");
    }
    sbuf_append(out, "</ul>\n");
    for (int k = 0; k < 2; k++) {
        report_table_shares(r, k == 1, false, &t);
        html_table(out, &t);
        table_free(&t);
        sbuf_append(out, "<div class=\"scroll\">\n");
        render_report_chart(r, k == 1, false, out);
        sbuf_append(out, "</div>\n");
    }
    sbuf_append(out, "</body>\n</html>\n");
}
