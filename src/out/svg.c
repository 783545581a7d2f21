/* svg.c - see llmroof/svg.h. Coordinates are printed with fixed precision so output is
 * byte-identical across runs. */
#include "llmroof/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A colour-blind-safe qualitative palette (Okabe and Ito, 2008), extended with greys. */
static const char *const palette[] = {
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000",
    "#999999", "#7F3C8D", "#BBBBBB", "#444444"
};
#define NPAL (sizeof palette / sizeof palette[0])

double svg_label_place(struct svg_labeler *l, double x, double y, double w)
{
    static const double tries[] = { 0, 12, -12, 24, -24, 36, -36, 48, -48, 60, -60 };
    double ly = y;
    for (size_t t = 0; t < sizeof tries / sizeof tries[0]; t++) {
        ly = y + tries[t];
        bool clash = false;
        for (int j = 0; j < l->n && !clash; j++)
            if (x < l->x[j] + l->w[j] && l->x[j] < x + w && fabs(ly - l->y[j]) < 11)
                clash = true;
        if (!clash)
            break;
    }
    if (l->n < 128) {
        l->x[l->n] = x;
        l->y[l->n] = ly;
        l->w[l->n++] = w;
    }
    return ly;
}

void svg_escape(struct sbuf *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': sbuf_append(out, "&amp;"); break;
        case '<': sbuf_append(out, "&lt;"); break;
        case '>': sbuf_append(out, "&gt;"); break;
        case '"': sbuf_append(out, "&quot;"); break;
        default: sbuf_appendn(out, s, 1);
        }
    }
}

static void open_svg(struct sbuf *out, int w, int h, bool standalone, const char *title)
{
    /* the namespace is a name, not a fetched reference; inline SVG in HTML5 needs none */
    if (standalone)
        sbuf_append(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"");
    else
        sbuf_append(out, "<svg");
    sbuf_printf(out, " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
                w, h, w, h);
    sbuf_append(out, "<title>");
    svg_escape(out, title);
    sbuf_append(out, "</title>\n");
    sbuf_printf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
    sbuf_append(out, "<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">");
    svg_escape(out, title);
    sbuf_append(out, "</text>\n");
}

void svg_stacked_bars(struct sbuf *out, const char *title, const char *const *bars, size_t nbars,
                      const char *const *series, size_t nseries, const double *values, bool standalone)
{
    const int W = 800, left = 150, right = 20, top = 40, barh = 20, gap = 8;
    const int plotw = W - left - right;
    const int legend_rows = (int)((nseries + 4) / 5);
    const int H = top + (int)nbars * (barh + gap) + 40 + legend_rows * 20 + 10;
    open_svg(out, W, H, standalone, title);
    /* x axis: 0..100% */
    int axis_y = top + (int)nbars * (barh + gap);
    for (int p = 0; p <= 100; p += 20) {
        double x = left + plotw * p / 100.0;
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>\n", x, top - 4, x, axis_y);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d%%</text>\n", x, axis_y + 14, p);
    }
    sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">share of phase time (%%)</text>\n",
                left + plotw / 2.0, axis_y + 30);
    for (size_t b = 0; b < nbars; b++) {
        int y = top + (int)b * (barh + gap);
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + barh - 5);
        svg_escape(out, bars[b]);
        sbuf_append(out, "</text>\n");
        double x = left, total = 0;
        for (size_t s = 0; s < nseries; s++)
            total += values[b * nseries + s];
        if (total <= 0) {
            sbuf_printf(out, "<text x=\"%d\" y=\"%d\" fill=\"#777777\">n/a</text>\n", left + 4, y + barh - 5);
            continue;
        }
        for (size_t s = 0; s < nseries; s++) {
            double w = plotw * values[b * nseries + s];
            if (w <= 0)
                continue;
            sbuf_printf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>", x, y, w,
                        barh, palette[s % NPAL]);
            svg_escape(out, bars[b]);
            sbuf_append(out, ": ");
            svg_escape(out, series[s]);
            sbuf_printf(out, " %.1f%%</title></rect>\n", 100 * values[b * nseries + s]);
            x += w;
        }
    }
    /* legend, 5 per row */
    int ly = axis_y + 48;
    for (size_t s = 0; s < nseries; s++) {
        int col = (int)(s % 5), row = (int)(s / 5);
        int lx = left + col * (plotw / 5);
        sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx, ly + row * 20 - 10,
                    palette[s % NPAL]);
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\">", lx + 16, ly + row * 20);
        svg_escape(out, series[s]);
        sbuf_append(out, "</text>\n");
    }
    sbuf_append(out, "</svg>\n");
}

void svg_roofline(struct sbuf *out, const char *title, const struct llmroof_gpu *g, double memory_eff,
                  double compute_eff, const struct svg_point *pts, size_t npts, bool standalone)
{
    const int W = 800, H = 560, left = 80, right = 150, top = 40, bottom = 60;
    const int pw = W - left - right, ph = H - top - bottom;
    /* axes: intensity 1e-1 .. 1e4 FLOP/B, performance spanning the GPU's range */
    double xmin = -1, xmax = 4;
    double peak_max = 0;
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++)
        if (g->has_peak[d] && g->peak_flops[d] > peak_max)
            peak_max = g->peak_flops[d];
    if (!(peak_max > 0))
        peak_max = 1e12; /* the catalog requires a peak; guard the logarithm anyway */
    double ymax = ceil(log10(peak_max * 2.0));
    double ymin = ymax - 5;
    for (size_t i = 0; i < npts; i++) {
        if (pts[i].intensity > 0 && log10(pts[i].intensity) < xmin)
            xmin = floor(log10(pts[i].intensity));
        if (pts[i].flops_per_s > 0 && log10(pts[i].flops_per_s) < ymin)
            ymin = floor(log10(pts[i].flops_per_s));
    }
#define X(v) (left + pw * (log10(v) - xmin) / (xmax - xmin))
#define Y(v) (top + ph * (1.0 - (log10(v) - ymin) / (ymax - ymin)))
    open_svg(out, W, H, standalone, title);
    /* grid and decade labels */
    for (int k = 0; k <= (int)lround(xmax - xmin); k++) {
        double e = xmin + k, x = X(pow(10, e));
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n", x, top, x, top + ph);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n", x, top + ph + 16, (int)e);
    }
    for (int k = 0; k <= (int)lround(ymax - ymin); k++) {
        double e = ymin + k, y = Y(pow(10, e));
        sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", left, y, left + pw, y);
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", left - 6, y + 4, (int)e);
    }
    sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", left, top,
                pw, ph);
    sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n",
                left + pw / 2.0, H - 18);
    sbuf_printf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">"
                     "attainable performance (FLOP/s)</text>\n", top + ph / 2.0, top + ph / 2.0);
    /* ceilings: achievable bandwidth slope and one flat line per dtype */
    double bw = g->mem_bw_Bps * memory_eff;
    int ci = 0;
    double label_y_prev = -100;
    for (int d = LLMROOF_DTYPE_COUNT - 1; d >= 0; d--) {
        if (!g->has_peak[d])
            continue;
        double peak = g->peak_flops[d] * compute_eff;
        double ridge = peak / bw;
        double x0 = pow(10, xmin), x1 = pow(10, xmax);
        double xs = ridge < x0 ? x0 : ridge;
        if (xs > x1)
            continue;
        double y = Y(peak);
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
                    X(xs), y, X(x1), y, palette[ci % NPAL]);
        double ly = y + 4;
        if (ly - label_y_prev < 14)
            ly = label_y_prev + 14; /* keep labels apart */
        label_y_prev = ly;
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s %.0f TFLOP/s</text>\n", left + pw + 6, ly,
                    palette[ci % NPAL], dtype_name((enum llmroof_dtype)d), peak / 1e12);
        if (d == LLMROOF_FP16) {
            /* ridge point: marked on the ceiling, labelled at the foot of a dashed drop line
             * where no operator point sits */
            sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#000000\"/>\n", X(ridge), y);
            sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%d\" stroke=\"#777777\" "
                             "stroke-dasharray=\"4 3\"/>\n", X(ridge), y, X(ridge), top + ph);
            sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">fp16 ridge %.0f FLOP/B</text>\n",
                        X(ridge) + 4, top + ph - 6, ridge);
        }
        ci++;
    }
    /* bandwidth slope from the left edge (or the bottom) up to the highest ceiling */
    double xa = pow(10, xmin), ya = bw * xa;
    if (ya < pow(10, ymin)) {
        ya = pow(10, ymin);
        xa = ya / bw;
    }
    double yb = peak_max * compute_eff, xb = yb / bw;
    sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\" stroke-width=\"2\"/>\n",
                X(xa), Y(ya), X(xb), Y(yb));
    sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" transform=\"rotate(-38 %.1f %.1f)\">%.0f GB/s achievable</text>\n",
                X(xa) + 30, Y(ya * 4) - 6, X(xa) + 30, Y(ya * 4) - 6, bw / 1e9);
    /* operator points: prefill filled circles, decode open squares */
    for (size_t i = 0; i < npts; i++) {
        if (!(pts[i].intensity > 0) || !(pts[i].flops_per_s > 0))
            continue;
        double x = X(pts[i].intensity), y = Y(pts[i].flops_per_s);
        if (pts[i].group == 0)
            sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"#0072B2\"><title>prefill ", x, y);
        else
            sbuf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"#D55E00\" "
                             "stroke-width=\"2\"><title>decode ", x - 4, y - 4);
        svg_escape(out, pts[i].label);
        sbuf_printf(out, ": %.1f FLOP/B, %.3g FLOP/s</title></%s>\n", pts[i].intensity, pts[i].flops_per_s,
                    pts[i].group == 0 ? "circle" : "rect");
    }
    /* labels: points of one phase closer than 10 px share a label; each label is moved
     * vertically until its box overlaps no label placed before it */
    struct lab { double x, y, w; char text[160]; int group; } labs[64];
    size_t nl = 0;
    bool used[64] = { false };
    for (size_t i = 0; i < npts && i < 64; i++) {
        if (used[i] || !(pts[i].intensity > 0) || !(pts[i].flops_per_s > 0) || nl == 64)
            continue;
        struct lab *L = &labs[nl++];
        L->x = X(pts[i].intensity);
        L->y = Y(pts[i].flops_per_s);
        L->group = pts[i].group;
        snprintf(L->text, sizeof L->text, "%s", pts[i].label);
        for (size_t j = i + 1; j < npts && j < 64; j++) {
            if (used[j] || pts[j].group != pts[i].group || !(pts[j].intensity > 0) || !(pts[j].flops_per_s > 0))
                continue;
            if (fabs(X(pts[j].intensity) - L->x) < 10 && fabs(Y(pts[j].flops_per_s) - L->y) < 10) {
                size_t n = strlen(L->text);
                snprintf(L->text + n, sizeof L->text - n, ", %s", pts[j].label);
                used[j] = true;
            }
        }
        L->w = 5.6 * (double)strlen(L->text);
    }
    struct svg_labeler placed = { .n = 0 };
    for (size_t i = 0; i < nl; i++) {
        struct lab *L = &labs[i];
        double lx = L->x + 8;
        if (lx + L->w > left + pw)
            lx = L->x - 8 - L->w; /* keep inside the plot: put it on the left */
        double ly = svg_label_place(&placed, lx, L->y + (L->group == 0 ? -6.0 : 14.0), L->w);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">", lx, ly,
                    L->group == 0 ? "#0072B2" : "#D55E00");
        svg_escape(out, L->text);
        sbuf_append(out, "</text>\n");
    }
    /* legend */
    sbuf_printf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"#0072B2\"/><text x=\"%d\" y=\"%d\">prefill op</text>\n",
                left + 10, top + 14, left + 20, top + 18);
    sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"8\" height=\"8\" fill=\"none\" stroke=\"#D55E00\" stroke-width=\"2\"/>"
                     "<text x=\"%d\" y=\"%d\">decode op</text>\n", left + 6, top + 28, left + 20, top + 36);
    sbuf_append(out, "</svg>\n");
#undef X
#undef Y
}
