/* render_validate.c - see llmroof/render_validate.h */
#include "render/render_validate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/svg.h"

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
    int cls;  /* -1: any */
    int load; /* -1: any, 0: static rows, 1: serving rows */
};

static bool keep(const struct val_case *c, const void *vctx)
{
    const struct gctx *g = vctx;
    if (g->cls >= 0 && (int)val_metric_class(c->metric) != g->cls)
        return false;
    if (g->load >= 0 && (int)c->serving != g->load)
        return false;
    return !g->key || strcmp(val_group_key(c, g->by), g->key) == 0;
}

void table_val_stats(struct table *t, struct val_stats s)
{
    table_num(t, (double)s.n);
    table_num(t, 100 * s.median_abs);
    table_num(t, 100 * s.p90_abs);
    table_num(t, 100 * s.bias);
}

/* A group with no rows shows its n (0) and empty cells. */
static void stat_row(struct table *t, const char *group, struct val_stats s)
{
    table_row(t);
    table_str(t, group);
    if (s.n) {
        table_val_stats(t, s);
        return;
    }
    table_num(t, 0);
    table_empty(t);
    table_empty(t);
    table_empty(t);
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

void render_validate(const char *fname, const struct val_case *cases, size_t n, enum val_group by, bool held_out,
                     enum table_format f, struct table_sel *sel, struct sbuf *out)
{
    static const char *const by_names[] = { "metric", "gpu", "source", "model" };
    struct table t;
    size_t mapped = 0;
    for (size_t i = 0; i < n; i++)
        mapped += cases[i].mapped;
    if (f == TABLE_TEXT || f == TABLE_MD)
        sbuf_printf(out, "%sllmroof validate %s: %zu row%s, %zu mapped, %zu not mapped; error = predicted / measured time - 1 (rates inverted)%s\n\n",
                    f == TABLE_MD ? "## " : "", fname, n, n == 1 ? "" : "s", mapped, n - mapped,
                    held_out ? ", each prediction held out (--cv)" : "");
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
    table_col(&t, "publication", 0); /* its --cv source fold (source is the framework: an audit) */
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
        char k[VAL_TEXT], pub[VAL_TEXT];
        val_source_key(c->row, k, sizeof k);
        val_publication(k, pub, sizeof pub);
        table_str(&t, pub);
    }
    if (table_sel_wants(sel, f, "rows"))
        table_render_fit(&t, f, 100, 1, out);
    table_free(&t);

    char title[96];
    snprintf(title, sizeof title, "summary (overall, by class, by %s)%s", by_names[by], held_out ? ", held out" : "");
    if (f != TABLE_CSV)
        sbuf_append(out, "\n");
    table_init(&t, title);
    table_col(&t, "group", 0);
    table_col(&t, "n", 0);
    table_col(&t, "median_abs_pct", 1);
    table_col(&t, "p90_abs_pct", 1);
    table_col(&t, "bias_pct", 1);
    struct gctx g = { by, NULL, -1, -1 };
    stat_row(&t, "all", val_stats_of(cases, n, keep, &g));
    for (int cls = 0; cls < 3; cls++) {
        char name[32];
        g.cls = cls;
        snprintf(name, sizeof name, "class %s", val_class_name((enum val_class)cls));
        stat_row(&t, name, val_stats_of(cases, n, keep, &g));
    }
    g.cls = -1;
    /* static batches (estimate) and rows under a load (the simulator): what --max-serving-error gates */
    for (int load = 0; load < 2; load++) {
        g.load = load;
        stat_row(&t, load ? "load serving" : "load static", val_stats_of(cases, n, keep, &g));
    }
    g.load = -1;
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

/* The unit of a metric's values: 0 ms, 1 tokens/s (the two never share an axis). */
static int metric_unit(enum val_metric m)
{
    return strstr(val_metric_name(m), "tok_s") ? 1 : 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* q-quantile of sorted v[0..n) with linear interpolation */
static double quantile(const double *v, size_t n, double q)
{
    if (!n)
        return 0;
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    return i + 1 < n ? v[i] + (pos - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* Deterministic jitter in [-1, 1] from an index (a multiplicative hash), so that points of
 * equal error do not hide each other and the output stays byte-identical. */
static double jitter(size_t i)
{
    unsigned long h = (unsigned long)(i + 1) * 2654435761UL;
    return (double)(h % 1000UL) / 500.0 - 1.0;
}

void render_validate_scatter(const char *title, const struct val_case *cases, size_t n, struct sbuf *out)
{
    static const char *const colors[3] = { "#0072B2", "#D55E00", "#009E73" };
    static const char *const unit_name[2] = { "ms", "tokens/s" };
    const int W = 820, left = 150, right = 110, top = 60, row_h = 64;
    const int pw = W - left - right, strip_h = 3 * row_h;
    const int sc_top = top + strip_h + 96, sc_size = 300, sc_left[2] = { 80, 80 + sc_size + 110 };
    const int H = sc_top + sc_size + 80;
    char buf[64];
    /* panel 1: error per metric class, one strip each, on one % axis */
    double *v = malloc(sizeof *v * (n ? n : 1));
    if (!v) {
        out->failed = true;
        return;
    }
    double emin = 0, emax = 0;
    for (size_t i = 0; i < n; i++)
        if (cases[i].mapped && isfinite(cases[i].err)) {
            emin = fmin(emin, 100 * cases[i].err);
            emax = fmax(emax, 100 * cases[i].err);
        }
    struct svg_axis ae = svg_axis_linear(emin, emax, 7);
#define EX(e) (left + pw * svg_axis_frac(&ae, (e)))
    sbuf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
                W, H, W, H);
    svg_escape(out, title);
    sbuf_printf(out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
                     "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">", W, H);
    svg_escape(out, title);
    sbuf_append(out, "</text>\n");
    sbuf_printf(out, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">Error per metric class: predicted / measured "
                     "time - 1 (rates inverted)</text>\n", top - 14);
    for (int t = 0; t < ae.nticks; t++) {
        double x = EX(ae.tick[t]);
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x, top, x, top + strip_h,
                    ae.tick[t] == 0 ? "#333333" : "#e5e5e5");
        sbuf_printf(out, "<text class=\"tick\" data-axis=\"error\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s%%</text>\n", x,
                    top + strip_h + 16, svg_axis_tick_text(&ae, t, buf, sizeof buf));
    }
    sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">error (%%): left of 0 llmroof is faster than "
                     "measured, right of 0 slower</text>\n", left + pw / 2.0, top + strip_h + 34);
    for (int cls = 0; cls < 3; cls++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (cases[i].mapped && (int)val_metric_class(cases[i].metric) == cls && isfinite(cases[i].err))
                v[k++] = 100 * cases[i].err;
        double yc = top + row_h * (cls + 0.5);
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">%s (n=%zu)</text>\n", left - 8,
                    yc + 4, colors[cls], val_class_name((enum val_class)cls), k);
        if (cls)
            sbuf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#cccccc\"/>\n", left,
                        top + row_h * cls, left + pw, top + row_h * cls);
        if (!k)
            continue;
        qsort(v, k, sizeof *v, cmp_dbl);
        double p10 = quantile(v, k, 0.1), p50 = quantile(v, k, 0.5), p90 = quantile(v, k, 0.9);
        /* the middle 80% as a band, the median as a bar */
        sbuf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\" fill-opacity=\"0.12\">"
                         "<title>p10 %.1f%%, p90 %.1f%%</title></rect>\n", EX(p10), yc - row_h * 0.4, EX(p90) - EX(p10),
                    (int)(row_h * 0.8), colors[cls], p10, p90);
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n",
                    EX(p50), yc - row_h * 0.4, EX(p50), yc + row_h * 0.4, colors[cls]);
        size_t j = 0;
        for (size_t i = 0; i < n; i++) {
            const struct val_case *c = &cases[i];
            if (!c->mapped || (int)val_metric_class(c->metric) != cls || !isfinite(c->err))
                continue;
            sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.6\"><title>%s ",
                        EX(100 * c->err), yc + row_h * 0.3 * jitter(j++), colors[cls], c->row->id);
            svg_escape(out, c->model->id);
            sbuf_printf(out, " %s tp %d %s: %+.1f%%</title></circle>\n", c->gpu->id, c->tp, val_metric_name(c->metric),
                        100 * c->err);
        }
        /* median |error| per class, right of the strip */
        for (size_t i = 0; i < k; i++)
            v[i] = fabs(v[i]);
        qsort(v, k, sizeof *v, cmp_dbl);
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" font-size=\"11\">median |e| %.1f%%</text>\n", left + pw + 8,
                    yc + 4, quantile(v, k, 0.5));
    }
    sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", left, top,
                pw, strip_h);
    sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555555\">band: middle 80%% of the rows (p10 to "
                     "p90); bar: median</text>\n", left, top + strip_h + 52);
#undef EX
    /* panel 2: predicted against measured, one log-log panel per unit */
    sbuf_printf(out, "<text x=\"10\" y=\"%d\" font-weight=\"bold\">Predicted against measured, one panel per unit "
                     "(identity and +-20%%)</text>\n", sc_top - 26);
    for (int u = 0; u < 2; u++) {
        double lo = INFINITY, hi = 0;
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++)
            if (cases[i].mapped && metric_unit(cases[i].metric) == u && cases[i].predicted > 0 && cases[i].measured > 0) {
                lo = fmin(lo, fmin(cases[i].predicted, cases[i].measured));
                hi = fmax(hi, fmax(cases[i].predicted, cases[i].measured));
                cnt++;
            }
        struct svg_axis a = svg_axis_log(cnt ? lo : 1, cnt ? hi : 10);
        int x0 = sc_left[u], y0 = sc_top;
#define SX(val) (x0 + sc_size * svg_axis_frac(&a, (val)))
#define SY(val) (y0 + sc_size * (1.0 - svg_axis_frac(&a, (val))))
        for (int t = 0; t < a.nticks; t++) {
            double x = SX(a.tick[t]), y = SY(a.tick[t]);
            sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n", x, y0, x,
                        y0 + sc_size);
            sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", x0, y, x0 + sc_size,
                        y);
            svg_axis_tick_text(&a, t, buf, sizeof buf);
            /* a crowded axis labels every other tick */
            if (a.nticks > 8 && t % 2)
                continue;
            sbuf_printf(out, "<text class=\"tick\" data-axis=\"x%d\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                        u, x, y0 + sc_size + 16, buf);
            sbuf_printf(out, "<text class=\"tick\" data-axis=\"y%d\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                        u, x0 - 5, y + 4, buf);
        }
        double l = a.lo, h = a.hi;
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n", SX(l), SY(l),
                    SX(h), SY(h));
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\" "
                         "stroke-dasharray=\"5 4\"/>\n", SX(l), SY(1.2 * l), SX(h / 1.2), SY(h));
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\" "
                         "stroke-dasharray=\"5 4\"/>\n", SX(l / 0.8), SY(l), SX(h), SY(0.8 * h));
        for (size_t i = 0; i < n; i++) {
            const struct val_case *c = &cases[i];
            if (!c->mapped || metric_unit(c->metric) != u || !(c->predicted > 0) || !(c->measured > 0))
                continue;
            int cls = (int)val_metric_class(c->metric);
            sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" fill-opacity=\"0.7\"><title>%s ",
                        SX(c->predicted), SY(c->measured), colors[cls], c->row->id);
            svg_escape(out, c->model->id);
            sbuf_printf(out, " %s tp %d %s: predicted %.4g, measured %.4g (%+.1f%%)</title></circle>\n", c->gpu->id, c->tp,
                        val_metric_name(c->metric), c->predicted, c->measured, 100 * c->err);
        }
        sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", x0,
                    y0, sc_size, sc_size);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">predicted (%s, %zu rows)</text>\n",
                    x0 + sc_size / 2.0, y0 + sc_size + 34, unit_name[u], cnt);
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 %d %.1f)\">measured "
                         "(%s)</text>\n", x0 - 46, y0 + sc_size / 2.0, x0 - 46, y0 + sc_size / 2.0, unit_name[u]);
#undef SX
#undef SY
    }
    for (int k = 0; k < 3; k++)
        sbuf_printf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s metrics</text>\n",
                    90 + k * 160, H - 20, colors[k], 98 + k * 160, H - 16, val_class_name((enum val_class)k));
    sbuf_append(out, "</svg>\n");
    free(v);
}
