/* render_validate.c - see llmroof/render_validate.h */
#include "llmroof/render_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmroof/svg.h"

bool val_group_parse(const char *s, enum val_group *out)
{
    static const char *const names[] = { "metric", "gpu", "source", "model" };
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum val_group)i;
            return true;
        }
    return false;
}

const char *val_group_key(const struct val_case *c, enum val_group by)
{
    switch (by) {
    case VAL_BY_METRIC: return val_metric_name(c->metric);
    case VAL_BY_GPU: return c->gpu->id;
    case VAL_BY_SOURCE: return c->row->framework[0] ? c->row->framework : "(not stated)";
    case VAL_BY_MODEL: return c->model->id;
    }
    return "?";
}

struct gctx {
    enum val_group by;
    const char *key;
    int cls; /* -1: any */
};

static bool keep(const struct val_case *c, const void *vctx)
{
    const struct gctx *g = vctx;
    if (g->cls >= 0 && (int)val_metric_class(c->metric) != g->cls)
        return false;
    return !g->key || strcmp(val_group_key(c, g->by), g->key) == 0;
}

static void stat_row(struct table *t, const char *group, struct val_stats s)
{
    table_row(t);
    table_str(t, group);
    table_num(t, (double)s.n);
    if (!s.n) {
        table_empty(t);
        table_empty(t);
        table_empty(t);
        return;
    }
    table_num(t, 100 * s.median_abs);
    table_num(t, 100 * s.p90_abs);
    table_num(t, 100 * s.bias);
}

/* Distinct group keys in first-seen order. */
static size_t keys_of(const struct val_case *cases, size_t n, enum val_group by, const char **keys, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        const char *key = val_group_key(&cases[i], by);
        bool seen = false;
        for (size_t j = 0; j < k; j++)
            seen |= strcmp(keys[j], key) == 0;
        if (!seen && k < max)
            keys[k++] = key;
    }
    return k;
}

void render_validate(const char *fname, const struct val_case *cases, size_t n, enum val_group by,
                     enum table_format f, struct table_sel *sel, struct sbuf *out)
{
    static const char *const by_names[] = { "metric", "gpu", "source", "model" };
    struct table t;
    size_t mapped = 0;
    for (size_t i = 0; i < n; i++)
        mapped += cases[i].mapped;
    if (f == TABLE_TEXT || f == TABLE_MD)
        sbuf_printf(out, "%sllmroof validate %s: %zu rows, %zu mapped, %zu not mapped; error = predicted / measured time - 1 (rates inverted)\n\n",
                    f == TABLE_MD ? "## " : "", fname, n, mapped, n - mapped);
    table_init(&t, "rows");
    table_col(&t, "id", 0);
    table_col(&t, "model", 0);
    table_col(&t, "gpu", 0);
    table_col(&t, "tp", 0);
    table_col(&t, "batch", 0);
    table_col(&t, "prompt", 0);
    table_col(&t, "output", 0);
    table_col(&t, "metric", 0);
    table_col(&t, "measured", 2);
    table_col(&t, "predicted", 2);
    table_col(&t, "error_pct", 1);
    table_col(&t, "source", 0);
    table_col(&t, "assumed", 0);
    for (size_t i = 0; i < n; i++) {
        const struct val_case *c = &cases[i];
        if (!c->mapped)
            continue;
        table_row(&t);
        table_str(&t, c->row->id);
        table_str(&t, c->model->id);
        table_str(&t, c->gpu->id);
        table_num(&t, c->tp);
        table_num(&t, (double)c->batch);
        table_num(&t, (double)c->prompt);
        table_num(&t, (double)c->output);
        table_str(&t, val_metric_name(c->metric));
        table_num(&t, c->measured);
        table_num(&t, c->predicted);
        table_num(&t, 100 * c->err);
        table_str(&t, c->row->framework);
        table_str(&t, c->assumptions[0] ? "yes" : "");
    }
    if (table_sel_wants(sel, f, "rows"))
        table_render_fit(&t, f, 100, 1, out);
    table_free(&t);

    char title[96];
    snprintf(title, sizeof title, "summary (overall, by class, by %s)", by_names[by]);
    if (f != TABLE_CSV)
        sbuf_append(out, "\n");
    table_init(&t, title);
    table_col(&t, "group", 0);
    table_col(&t, "n", 0);
    table_col(&t, "median_abs_pct", 1);
    table_col(&t, "p90_abs_pct", 1);
    table_col(&t, "bias_pct", 1);
    struct gctx g = { by, NULL, -1 };
    stat_row(&t, "all", val_stats_of(cases, n, keep, &g));
    for (int cls = 0; cls < 3; cls++) {
        char name[32];
        g.cls = cls;
        snprintf(name, sizeof name, "class %s", val_class_name((enum val_class)cls));
        stat_row(&t, name, val_stats_of(cases, n, keep, &g));
    }
    g.cls = -1;
    const char *keys[256];
    size_t nk = keys_of(cases, n, by, keys, 256);
    for (size_t k = 0; k < nk; k++) {
        g.key = keys[k];
        stat_row(&t, keys[k], val_stats_of(cases, n, keep, &g));
    }
    if (table_sel_wants(sel, f, "summary"))
        table_render_fit(&t, f, 100, 1, out);
    table_free(&t);

    if (f != TABLE_CSV)
        sbuf_append(out, "\n");
    table_init(&t, "not mapped");
    table_col(&t, "id", 0);
    table_col(&t, "line", 0);
    table_col(&t, "reason", 0);
    for (size_t i = 0; i < n; i++) {
        if (cases[i].mapped)
            continue;
        table_row(&t);
        table_str(&t, cases[i].row->id);
        table_num(&t, (double)cases[i].row->line);
        table_str(&t, cases[i].reason);
    }
    if (table_sel_wants(sel, f, "unmapped"))
        table_render_fit(&t, f, 100, 1, out);
    table_free(&t);
    if (f == TABLE_TEXT || f == TABLE_MD) {
        bool any = false;
        for (size_t i = 0; i < n; i++)
            any |= cases[i].mapped && cases[i].assumptions[0];
        if (any) {
            sbuf_append(out, f == TABLE_MD ? "\n### Assumptions\n\n" : "\nassumptions\n");
            for (size_t i = 0; i < n; i++)
                if (cases[i].mapped && cases[i].assumptions[0])
                    sbuf_printf(out, "- %s: %s\n", cases[i].row->id, cases[i].assumptions);
        }
    }
}

void render_validate_scatter(const char *title, const struct val_case *cases, size_t n, struct sbuf *out)
{
    static const char *const colors[3] = { "#0072B2", "#D55E00", "#009E73" };
    const int W = 800, H = 640, left = 80, right = 30, top = 40, bottom = 90;
    const int pw = W - left - right, ph = H - top - bottom;
    /* both axes in seconds per token-or-request: latencies as given, rates inverted */
    double lo = INFINITY, hi = 0;
    /* predicted (x) against measured (y) in the metric's own unit, log-log, one panel */
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        lo = fmin(lo, fmin(cases[i].predicted, cases[i].measured));
        hi = fmax(hi, fmax(cases[i].predicted, cases[i].measured));
    }
    if (!(hi > 0)) {
        lo = 1;
        hi = 10;
    }
    double e0 = floor(log10(lo)), e1 = ceil(log10(hi));
#define PX(v) (left + pw * (log10(v) - e0) / (e1 - e0))
#define PY(v) (top + ph * (1.0 - (log10(v) - e0) / (e1 - e0)))
    sbuf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
                W, H, W, H);
    svg_escape(out, title);
    sbuf_printf(out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
                     "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">", W, H);
    svg_escape(out, title);
    sbuf_append(out, "</text>\n");
    for (int k = 0; k <= (int)lround(e1 - e0); k++) {
        double e = e0 + k, x = PX(pow(10, e)), y = PY(pow(10, e));
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n", x, top, x, top + ph);
        sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", left, y, left + pw, y);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, top + ph + 16, pow(10, e));
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", left - 6, y + 4, pow(10, e));
    }
    sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", left, top, pw, ph);
    /* identity and the +-20% band */
    double a = pow(10, e0), b = pow(10, e1);
    sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", PX(a), PY(a), PX(b), PY(b));
    /* y = 1.2 x from (a, 1.2a) to (b/1.2, b); y = 0.8 x from (a/0.8, a) to (b, 0.8b): inside the box */
    sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\" stroke-dasharray=\"5 4\"/>\n",
                PX(a), PY(1.2 * a), PX(b / 1.2), PY(b));
    sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\" stroke-dasharray=\"5 4\"/>\n",
                PX(a / 0.8), PY(a), PX(b), PY(0.8 * b));
    for (size_t i = 0; i < n; i++) {
        const struct val_case *c = &cases[i];
        if (!c->mapped)
            continue;
        int cls = (int)val_metric_class(c->metric);
        sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" fill-opacity=\"0.75\"><title>%s ", PX(c->predicted),
                    PY(c->measured), colors[cls], c->row->id);
        svg_escape(out, c->model->id);
        sbuf_printf(out, " %s tp %d %s: predicted %.4g, measured %.4g (%+.1f%%)</title></circle>\n", c->gpu->id, c->tp,
                    val_metric_name(c->metric), c->predicted, c->measured, 100 * c->err);
    }
    sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">predicted (metric's unit: ms or tokens/s)</text>\n",
                left + pw / 2.0, top + ph + 36);
    sbuf_printf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">measured</text>\n",
                top + ph / 2.0, top + ph / 2.0);
    for (int k = 0; k < 3; k++)
        sbuf_printf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s metrics</text>\n",
                    left + 10 + k * 150, H - 24, colors[k], left + 18 + k * 150, H - 20, val_class_name((enum val_class)k));
    sbuf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999999\" stroke-dasharray=\"5 4\"/>"
                     "<text x=\"%d\" y=\"%d\">&#177;20%%</text>\n</svg>\n",
                left + 470, H - 24, left + 500, H - 24, left + 506, H - 20);
#undef PX
#undef PY
}

