/* svg.c - see llmroof/svg.h. Coordinates are printed with fixed precision so output is
 * byte-identical across runs. */
#include "render/svg.h"
#include "model/kernel.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A colour-blind-safe qualitative palette (Okabe and Ito, 2008), extended with greys. */
static const char *const palette[] = {
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000",
    "#999999", "#7F3C8D", "#BBBBBB", "#444444", "#A6761D"
};
#define NPAL (sizeof palette / sizeof palette[0])

/* One colour per operator kind in every chart (a review: the share charts had coloured by position,
 * so all_reduce was yellow in one report and black in the next, where a router came first): the
 * common operators the palette's distinct colours, the rarer ones Tol's muted scheme (Paul Tol,
 * "Colour Schemes", 2021). A series of another name takes the palette by its position. */
static const struct {
    const char *name, *colour;
} op_colours[] = {
    { "norm", "#CC79A7" },       { "qkv_proj", "#0072B2" },   { "kv_write", "#999999" },
    { "attention", "#E69F00" },  { "o_proj", "#56B4E9" },     { "all_reduce", "#000000" },
    { "router", "#7F3C8D" },     { "ffn", "#D55E00" },        { "final_norm", "#BBBBBB" },
    { "lm_head", "#009E73" },    { "all_gather", "#444444" }, { "attention_local", "#F0E442" },
    { "mla_kv_up", "#A6761D" },  { "dense_ffn", "#882255" },  { "all_to_all", "#332288" },
    { "pp_send", "#117733" },    { "linear_mix", "#44AA99" }, { "dsa_indexer", "#DDCC77" },
    { "mlp_gather", "#AA4499" }, { "overhead", "#BB5566" },
};

static const char *series_colour(const char *name, size_t s)
{
    for (size_t i = 0; name && i < sizeof op_colours / sizeof op_colours[0]; i++)
        if (!strcmp(name, op_colours[i].name))
            return op_colours[i].colour;
    return palette[s % NPAL];
}

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

/* ------------------------------------------------------------------------ */
/* Axes                                                                     */
/* ------------------------------------------------------------------------ */

/* The nice number nearest x (round) or at least x (ceiling): 1, 2, 2.5, 5 or 10 x 10^k. */
static double nice(double x, bool round_it)
{
    double e = floor(log10(x)), f = x / pow(10, e), n;
    if (round_it)
        n = f < 1.5 ? 1 : f < 2.25 ? 2 : f < 3.5 ? 2.5 : f < 7.5 ? 5 : 10;
    else
        n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return n * pow(10, e);
}

struct svg_axis svg_axis_linear(double lo, double hi, int target)
{
    struct svg_axis a = { 0 };
    if (!isfinite(lo) || !isfinite(hi) || hi < lo) {
        lo = 0;
        hi = 1;
    }
    if (hi - lo < 1e-12 * fmax(1.0, fabs(hi))) { /* a flat series: widen around it */
        double d = fabs(hi) > 0 ? 0.1 * fabs(hi) : 1.0;
        lo -= d;
        hi += d;
        if (lo < 0 && hi - d >= 0)
            lo = 0;
    }
    if (target < 2)
        target = 2;
    double step = nice(nice(hi - lo, false) / (target - 1), true);
    a.lo = floor(lo / step) * step;
    a.hi = ceil(hi / step) * step;
    long first = lround(a.lo / step), last = lround(a.hi / step);
    for (long k = first; k <= last && a.nticks < SVG_MAX_TICKS; k++)
        a.tick[a.nticks++] = k == 0 ? 0.0 : (double)k * step;
    if (a.nticks)
        a.hi = a.tick[a.nticks - 1];
    return a;
}

struct svg_axis svg_axis_log(double lo, double hi)
{
    struct svg_axis a = { 0 };
    a.log = true;
    if (!(lo > 0) || !isfinite(lo) || !(hi > 0) || !isfinite(hi) || hi < lo) {
        lo = 1;
        hi = 10;
    }
    double e0 = floor(log10(lo) + 1e-9), e1 = ceil(log10(hi) - 1e-9);
    if (e1 <= e0)
        e1 = e0 + 1;
    /* tighten to 2 and 5 within the first and last decade when that still holds the data */
    static const double m[] = { 1, 2, 5 };
    double a_lo = pow(10, e0), a_hi = pow(10, e1);
    for (int k = 2; k >= 0; k--)
        if (m[k] * pow(10, e0) <= lo * (1 + 1e-9)) {
            a_lo = m[k] * pow(10, e0);
            break;
        }
    for (int k = 0; k < 3; k++)
        if (m[k] * pow(10, e1 - 1) >= hi * (1 - 1e-9)) {
            a_hi = m[k] * pow(10, e1 - 1);
            break;
        }
    a.lo = a_lo;
    a.hi = a_hi;
    bool fine = e1 - e0 <= 3;
    for (int d = 0; d <= (int)lround(e1 - e0) && a.nticks < SVG_MAX_TICKS; d++)
        for (int k = 0; k < 3 && a.nticks < SVG_MAX_TICKS; k++) {
            if (k && !fine)
                break;
            double v = m[k] * pow(10, e0 + d);
            if (v >= a.lo * (1 - 1e-9) && v <= a.hi * (1 + 1e-9))
                a.tick[a.nticks++] = v;
        }
    return a;
}

double svg_axis_frac(const struct svg_axis *a, double v)
{
    double f;
    if (a->log)
        f = v > 0 ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo)) : 0.0;
    else
        f = (v - a->lo) / (a->hi - a->lo);
    if (!(f >= 0)) /* also NaN */
        f = 0;
    return f > 1 ? 1 : f;
}

static const char *tick_text_from(double v, double from, char *buf, size_t n)
{
    static const char *const suffix[] = { "", "k", "M", "G", "T", "P", "E" };
    int k = 0;
    double x = v;
    if (fabs(v) >= from)
        while (fabs(x) >= 1000 && k < 6) {
            x /= 1000;
            k++;
        }
    snprintf(buf, n, "%.4g%s", x, suffix[k]);
    return buf;
}

const char *svg_tick_text(double v, char *buf, size_t n)
{
    return tick_text_from(v, 1e4, buf, n);
}

const char *svg_axis_tick_text(const struct svg_axis *a, int t, char *buf, size_t n)
{
    double top = 0;
    for (int i = 0; i < a->nticks; i++)
        top = fmax(top, fabs(a->tick[i]));
    return tick_text_from(a->tick[t], top >= 1e4 ? 1e3 : 1e4, buf, n);
}

bool svg_is_round(double v)
{
    if (v == 0)
        return true;
    if (!isfinite(v))
        return false;
    double e = floor(log10(fabs(v))), f = fabs(v) / pow(10, e);
    static const double m[] = { 1, 2, 2.5, 5, 10 };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (fabs(f - m[i]) < 1e-6)
            return true;
    return false;
}

double svg_text_width(const char *s, double px)
{
    return 0.6 * px * (double)strlen(s);
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
    /* the label column as wide as the longest bar label (at least 150 px): right-aligned at 144,
     * "v100-sxm2-16gb TP 16 *" had lost its first letter (a review); the plot keeps its 630 px */
    double lab_w = 0;
    for (size_t b = 0; b < nbars; b++)
        lab_w = fmax(lab_w, svg_text_width(bars[b], 12));
    const int left = (int)fmax(150.0, ceil(10.0 + lab_w + 6.0)), right = 20, top = 40, barh = 20, gap = 8;
    const int plotw = 630, W = left + plotw + right;
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
                        barh, series_colour(series[s], s));
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
                    series_colour(series[s], s));
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\">", lx + 16, ly + row * 20);
        svg_escape(out, series[s]);
        sbuf_append(out, "</text>\n");
    }
    sbuf_append(out, "</svg>\n");
}

/* "2382", "30.3", "9.58": three significant figures without exponent */
static const char *value_text(double v, char *buf, size_t n)
{
    snprintf(buf, n, fabs(v) >= 100 ? "%.0f" : fabs(v) >= 10 ? "%.1f" : "%.2f", v);
    return buf;
}

void svg_grouped_bars(struct sbuf *out, const char *title, const char *const *groups, size_t ngroups,
                      const char *const *series, size_t nseries, const bool *has, const bool *pale,
                      const struct svg_bar_panel *panels, size_t npanels, const char *note, bool standalone)
{
    const int right = 16, panel_h = 150, title_h = 18, gap = 14;
    int left = 78;
    if (!ngroups || !nseries) {
        ngroups = ngroups ? ngroups : 1;
        nseries = nseries ? nseries : 1;
    }
    /* at least SVG_MIN_GROUP_PX a group: labels turned 30 degrees clear each other when their
     * baselines are 11 px / sin 30 = 22 px apart; the chart widens past 800 px instead (a review:
     * 37 GPUs' names had overlapped in 800 px, each group 19 px) */
    enum { SVG_MIN_GROUP_PX = 24 };
    /* the title's width too (bold at 15 px: a long model id had been cut at the edge, a review of
     * session 65) */
    int W = (int)fmax(fmax(800.0, left + right + (double)ngroups * SVG_MIN_GROUP_PX), 20.0 + svg_text_width(title, 15) * 1.1);
    int pw = W - left - right;
    double groupw = (double)pw / (double)ngroups;
    /* group labels: horizontal when the widest fits its group, else turned 30 degrees */
    double maxw = 0;
    for (size_t g = 0; g < ngroups; g++)
        maxw = fmax(maxw, svg_text_width(groups[g], 11));
    bool turn = maxw > groupw - 6;
    /* a turned label ends at its group's centre and runs left by its width x cos 30: the first
     * group's may need a wider margin (a long GPU id had run off the left edge: the same review) */
    if (turn) {
        const int need = (int)ceil(svg_text_width(groups[0], 11) * 0.866 - groupw / 2 + 8);
        if (need > left) {
            W += need - left;
            left = need;
            pw = W - left - right;
            groupw = (double)pw / (double)ngroups;
        }
    }
    double barw = groupw * 0.82 / (double)nseries;
    int label_h = turn ? (int)fmin(220, maxw * 0.5 + 16) : 18; /* a turned label's height: width x sin 30 */
    /* legend: one swatch per series, wrapped to rows that fit the width */
    int legend_rows = 1;
    double lx = left;
    for (size_t s = 0; s < nseries; s++) {
        double w = 16 + svg_text_width(series[s], 12) + 18;
        if (lx + w > W - right && lx > left) {
            legend_rows++;
            lx = left;
        }
        lx += w;
    }
    int top = 34 + legend_rows * 18 + (note ? 16 : 0);
    int H = top + (int)npanels * (title_h + panel_h + label_h + gap) + 6;
    open_svg(out, W, H, standalone, title);
    lx = left;
    int ly = 44;
    for (size_t s = 0; s < nseries; s++) {
        double w = 16 + svg_text_width(series[s], 12) + 18;
        if (lx + w > W - right && lx > left) {
            ly += 18;
            lx = left;
        }
        sbuf_printf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", lx, ly - 10,
                    palette[s % NPAL]);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\">", lx + 16, ly);
        svg_escape(out, series[s]);
        sbuf_append(out, "</text>\n");
        lx += w;
    }
    if (note) {
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555555\">", left, ly + 18);
        svg_escape(out, note);
        sbuf_append(out, "</text>\n");
    }
    char buf[64];
    for (size_t p = 0; p < npanels; p++) {
        int y0 = top + (int)p * (title_h + panel_h + label_h + gap) + title_h; /* plot top */
        /* the scale from the bars that fit (a faded one, a setup that does not fit, may run past the
         * top, cut there): 116 no-fit bars of 148 had set a 7,500 ms scale that squashed the 32 that
         * fit near zero (a review of session 65); all the bars where none fits */
        double vmax = 0, vall = 0;
        for (size_t i = 0; i < ngroups * nseries; i++)
            if (has[i] && isfinite(panels[p].values[i])) {
                vall = fmax(vall, panels[p].values[i]);
                if (!(pale && pale[i]))
                    vmax = fmax(vmax, panels[p].values[i]);
            }
        if (!(vmax > 0))
            vmax = vall;
        struct svg_axis ax = svg_axis_linear(0, vmax > 0 ? vmax * 1.12 : 1, 5); /* room for value labels */
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">", left, y0 - 6);
        svg_escape(out, panels[p].axis);
        sbuf_append(out, "</text>\n");
        for (int t = 0; t < ax.nticks; t++) {
            double y = y0 + panel_h * (1 - svg_axis_frac(&ax, ax.tick[t]));
            sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", left, y,
                        left + pw, y);
            sbuf_printf(out, "<text class=\"tick\" data-axis=\"y%zu\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                        p, left - 6, y + 4, svg_axis_tick_text(&ax, t, buf, sizeof buf));
        }
        for (size_t g = 0; g < ngroups; g++) {
            double gx = left + groupw * (double)g + groupw * 0.09;
            if (g)
                sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#cccccc\"/>\n",
                            left + groupw * (double)g, y0, left + groupw * (double)g, y0 + panel_h);
            for (size_t s = 0; s < nseries; s++) {
                size_t i = g * nseries + s;
                double x = gx + barw * (double)s;
                if (!has[i] || !isfinite(panels[p].values[i])) {
                    sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"9\" fill=\"#999999\" "
                                     "text-anchor=\"middle\">%s</text>\n", x + barw / 2, y0 + panel_h - 3,
                                barw >= 14 ? "n/a" : "-");
                    continue;
                }
                double v = panels[p].values[i];
                const bool cut = v > ax.hi; /* a faded bar past the scale: drawn to the top, marked */
                double h = cut ? panel_h : panel_h * svg_axis_frac(&ax, v);
                sbuf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"%s><title>",
                            x + 1, y0 + panel_h - h, fmax(barw - 2, 1), h, palette[s % NPAL],
                            pale && pale[i] ? " fill-opacity=\"0.35\"" : "");
                svg_escape(out, groups[g]);
                sbuf_append(out, " ");
                svg_escape(out, series[s]);
                sbuf_append(out, ": ");
                svg_escape(out, panels[p].axis);
                sbuf_printf(out, " %s</title></rect>\n", value_text(v, buf, sizeof buf));
                /* the value above its bar when it fits the bar's width: whole, else shortened
                 * (19415 as 19.4k), else at 8 px (the slowest bars, the widest numbers, had gone
                 * unlabelled in a report of five GPUs and four TPs: a review) */
                const char *lab = buf;
                char cbuf[32];
                int fs = 10;
                if (svg_text_width(buf, 10) > barw && fabs(v) >= 1000) {
                    snprintf(cbuf, sizeof cbuf, fabs(v) >= 1e6 ? "%.3gM" : "%.3gk", fabs(v) >= 1e6 ? v / 1e6 : v / 1e3);
                    lab = cbuf;
                }
                if (svg_text_width(lab, 10) > barw)
                    fs = 8;
                if (cut) /* a break across the bar under its top: its value is beyond the axis */
                    sbuf_printf(out, "<path d=\"M%.1f %.1f l%.1f -4\" stroke=\"#ffffff\" stroke-width=\"3\"/>\n", x + 1,
                                (double)y0 + 14, fmax(barw - 2, 1));
                /* a bar within the scale but too near its top for a label above it (a faded
                 * bar up to the top tick) takes the label inside its top: above, it had run into
                 * the panel's title (a report's 4,894 ms over "TTFT (ms) for 16 prompts") */
                const bool inside = !cut && h > panel_h - (fs + 4);
                const char *ink = inside && !(pale && pale[i]) ? " fill=\"#ffffff\"" : "";
                if (svg_text_width(lab, fs) <= barw)
                    sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"middle\"%s>%s</text>\n",
                                x + barw / 2,
                                cut ? (double)y0 + 26 : inside ? y0 + panel_h - h + fs + 2 : y0 + panel_h - h - 3, fs,
                                ink, lab);
            }
            double cx = left + groupw * ((double)g + 0.5);
            if (turn) {
                sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"end\" "
                                 "transform=\"rotate(-30 %.1f %d)\">", cx, y0 + panel_h + 14, cx, y0 + panel_h + 14);
            } else {
                sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">", cx,
                            y0 + panel_h + 14);
            }
            svg_escape(out, groups[g]);
            sbuf_append(out, "</text>\n");
        }
        sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n",
                    left, y0, pw, panel_h);
    }
    sbuf_append(out, "</svg>\n");
}

void svg_roofline(struct sbuf *out, const char *title, const struct llmroof_gpu *g, double memory_eff,
                  double compute_eff, enum llmroof_dtype gemm, const struct svg_point *pts, size_t npts,
                  bool standalone)
{
    const int left = 80, top = 40, ph = 440, pw = 570;
    /* the roofs' labels, one per peak ("fp8 / int8 / int4 440 TFLOP/s" on an L40S): the right
     * margin takes the longest (a fixed 150 px had cut such labels at the edge) */
    char roof_names[LLMROOF_DTYPE_COUNT][96];
    double label_w = 0;
    for (int d = LLMROOF_DTYPE_COUNT - 1; d >= 0; d--) {
        roof_names[d][0] = '\0';
        if (!g->has_peak[d])
            continue;
        bool drawn = false; /* a higher dtype of this peak names the roof */
        for (int e = d + 1; e < LLMROOF_DTYPE_COUNT && !drawn; e++)
            drawn = g->has_peak[e] && g->peak_flops[e] == g->peak_flops[d];
        if (drawn)
            continue;
        for (int e = 0; e <= d; e++) /* in the dtypes' order: "fp16 / bf16", "fp8 / int8" */
            if (g->has_peak[e] && g->peak_flops[e] == g->peak_flops[d]) {
                const size_t len = strlen(roof_names[d]);
                snprintf(roof_names[d] + len, sizeof roof_names[d] - len, "%s%s", len ? " / " : "",
                         dtype_name((enum llmroof_dtype)e));
            }
        char lab[128];
        snprintf(lab, sizeof lab, "%s %.0f TFLOP/s achievable", roof_names[d],
                 g->peak_flops[d] * compute_eff * kernel_gemm_dtype_scale(g, (enum llmroof_dtype)d) / 1e12);
        label_w = fmax(label_w, svg_text_width(lab, 12));
    }
    /* and the whole title (bold 15 px from x 10: a long model id on a V100 at TP 8 had been cut) */
    const int right = (int)fmax(150.0, ceil(6.0 + label_w + 10.0));
    const int W = (int)fmax((double)(left + pw + right), ceil(10.0 + svg_text_width(title, 15) + 10.0));
    /* axes: intensity 1e-1 .. 1e4 FLOP/B, performance spanning the GPU's range */
    double xmin = -1, xmax = 4;
    double peak_max = 0, roof_max = 0; /* the highest peak, and the highest ceiling drawn under it */
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++)
        if (g->has_peak[d]) {
            peak_max = fmax(peak_max, g->peak_flops[d]);
            roof_max = fmax(roof_max, g->peak_flops[d] * kernel_gemm_dtype_scale(g, (enum llmroof_dtype)d));
        }
    if (!(peak_max > 0))
        peak_max = 1e12; /* the catalog requires a peak; guard the logarithm anyway */
    double ymax = ceil(log10(peak_max * 2.0));
    double ymin = ymax - 5;
    for (size_t i = 0; i < npts; i++) {
        if (pts[i].intensity > 0 && log10(pts[i].intensity) < xmin)
            xmin = floor(log10(pts[i].intensity));
        /* and up to the most intense point: a 120,000-token prompt's attention at 48,000 FLOP/B had
         * been drawn past the frame, over the roof's label (a review) */
        if (pts[i].intensity > 0 && isfinite(pts[i].intensity) && log10(pts[i].intensity) > xmax)
            xmax = ceil(log10(pts[i].intensity));
        if (pts[i].flops_per_s > 0 && log10(pts[i].flops_per_s) < ymin)
            ymin = floor(log10(pts[i].flops_per_s));
    }
#define X(v) (left + pw * (log10(v) - xmin) / (xmax - xmin))
#define Y(v) (top + ph * (1.0 - (log10(v) - ymin) / (ymax - ymin)))
    /* labels: a number beside each point (points of one phase closer than 10 px share one),
     * moved until its box clears every number placed before, and a numbered list under the
     * plot naming the operators: long names never pile up near the ridge */
    struct lab { double x, y; char text[160]; int group; double ai, ai_hi; } labs[64] = { { 0 } };
    size_t nl = 0;
    bool used[64] = { false };
    for (size_t i = 0; i < npts && i < 64; i++) {
        if (used[i] || !(pts[i].intensity > 0) || !(pts[i].flops_per_s > 0) || nl == 64)
            continue;
        struct lab *L = &labs[nl++];
        L->x = X(pts[i].intensity);
        L->y = Y(pts[i].flops_per_s);
        L->group = pts[i].group;
        L->ai = L->ai_hi = pts[i].intensity;
        snprintf(L->text, sizeof L->text, "%s", pts[i].label);
        for (size_t j = i + 1; j < npts && j < 64; j++) {
            if (used[j] || pts[j].group != pts[i].group || !(pts[j].intensity > 0) || !(pts[j].flops_per_s > 0))
                continue;
            if (fabs(X(pts[j].intensity) - L->x) < 10 && fabs(Y(pts[j].flops_per_s) - L->y) < 10) {
                size_t n = strlen(L->text);
                snprintf(L->text + n, sizeof L->text - n, ", %s", pts[j].label);
                used[j] = true;
                /* the group's intensities as a range: one operator's had stood for all (a review:
                 * "qkv_proj, o_proj (1894 FLOP/B)" where o_proj's is 1598) */
                L->ai = fmin(L->ai, pts[j].intensity);
                L->ai_hi = fmax(L->ai_hi, pts[j].intensity);
            }
        }
    }
    /* the list in two columns when the longest entry allows (estimated at 0.6 em per character) */
    double colw = 0;
    char ai[32];
    for (size_t i = 0; i < nl; i++) {
        size_t chars = strlen(labs[i].text) + 2 * strlen(value_text(labs[i].ai_hi, ai, sizeof ai)) + 25;
        colw = fmax(colw, 0.6 * 11 * (double)chars);
    }
    int ncol = left + 2 * colw + 16 <= W - 10 ? 2 : 1;
    /* the height the list takes: its last row's baseline and a descender (a height for one
     * column of every point had left some 130 px empty under a short list, two to a row) */
    const int rows = (int)((nl + (size_t)ncol - 1) / (size_t)ncol);
    const int H = rows > 0 ? top + ph + 52 + (rows - 1) * 15 + 12 : top + ph + 48;
    open_svg(out, W, H, standalone, title);
    /* grid and decade labels */
    for (int k = 0; k <= (int)lround(xmax - xmin); k++) {
        double e = xmin + k, x = X(pow(10, e));
        sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n", x, top, x, top + ph);
        sbuf_printf(out, "<text class=\"tick\" data-axis=\"x\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">1e%d</text>\n", x,
                    top + ph + 16, (int)e);
    }
    for (int k = 0; k <= (int)lround(ymax - ymin); k++) {
        double e = ymin + k, y = Y(pow(10, e));
        sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", left, y, left + pw, y);
        sbuf_printf(out, "<text class=\"tick\" data-axis=\"y\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n",
                    left - 6, y + 4, (int)e);
    }
    sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n", left, top,
                pw, ph);
    sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">arithmetic intensity (FLOP/byte)</text>\n",
                left + pw / 2.0, top + ph + 34);
    sbuf_printf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">"
                     "attainable performance (FLOP/s)</text>\n", top + ph / 2.0, top + ph / 2.0);
    /* ceilings: achievable bandwidth slope and one flat line per dtype */
    double bw = g->mem_bw_Bps * memory_eff;
    int ci = 0;
    double label_y_prev = -100;
    for (int d = LLMROOF_DTYPE_COUNT - 1; d >= 0; d--) {
        if (!g->has_peak[d])
            continue;
        /* dtypes of one peak share one roof and one label ("fp8 / int8 1405 TFLOP/s"): drawn one
         * over the other, only the last line showed, beside a label of another colour */
        if (!roof_names[d][0])
            continue;
        const char *names = roof_names[d];
        /* the ridge of the ceiling the GEMMs compute on: an fp8 model's points sit above the fp16
         * ceiling, and its fp16 ridge had read as the one that bounds them (a review of session 65) */
        const enum llmroof_dtype rd = g->has_peak[gemm] ? gemm : LLMROOF_FP16;
        const bool has_fp16 = g->has_peak[rd] && g->peak_flops[rd] == g->peak_flops[d];
        /* the rate estimate charges: 8-bit GEMMs reach the GPU's gemm_8bit share of the compute
         * efficiency on their doubled peak (a review: the fp8 ceiling sat 7.5% above it on an H100) */
        double peak = g->peak_flops[d] * compute_eff * kernel_gemm_dtype_scale(g, (enum llmroof_dtype)d);
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
        /* "achievable" as the bandwidth slope's: the peak times the compute efficiency, which
         * read as a wrong peak (703 TFLOP/s beside an H100's 989.5: a review) */
        sbuf_printf(out, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s %.0f TFLOP/s achievable</text>\n", left + pw + 6, ly,
                    palette[ci % NPAL], names, peak / 1e12);
        if (has_fp16) {
            /* ridge point: marked on the ceiling, labelled at the foot of a dashed drop line
             * where no operator point sits */
            sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"none\" stroke=\"#000000\"/>\n", X(ridge), y);
            sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%d\" stroke=\"#777777\" "
                             "stroke-dasharray=\"4 3\"/>\n", X(ridge), y, X(ridge), top + ph);
            sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%s ridge %.0f FLOP/B</text>\n",
                        X(ridge) + 4, top + ph - 6, dtype_name(rd == LLMROOF_BF16 ? LLMROOF_FP16 : rd), ridge);
        }
        ci++;
    }
    /* bandwidth slope from the left edge (or the bottom) up to the highest ceiling */
    double xa = pow(10, xmin), ya = bw * xa;
    if (ya < pow(10, ymin)) {
        ya = pow(10, ymin);
        xa = ya / bw;
    }
    double yb = (roof_max > 0 ? roof_max : peak_max) * compute_eff, xb = yb / bw;
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
    struct svg_labeler placed = { .n = 0 };
    for (size_t i = 0; i < nl; i++) { /* the points themselves are obstacles too */
        placed.x[placed.n] = labs[i].x - 5;
        placed.y[placed.n] = labs[i].y + 4;
        placed.w[placed.n++] = 10;
    }
    /* and the bandwidth slope, sampled along x, within the room the labels leave (a review: the
     * numbers of points near it sat on the line) */
    {
        const double x0 = X(xa), x1 = X(xb), y0 = Y(ya), y1 = Y(yb);
        const int room = 128 - 2 * (int)nl;
        const int ns = room > 0 ? (int)fmin((double)room, ceil((x1 - x0) / 8.0)) : 0;
        for (int k = 0; k < ns; k++) {
            const double f = ns > 1 ? (double)k / (double)(ns - 1) : 0.0, x = x0 + f * (x1 - x0);
            placed.x[placed.n] = x - 4;
            placed.y[placed.n] = y0 + f * (y1 - y0) + 4;
            placed.w[placed.n++] = 8;
        }
    }
    for (size_t i = 0; i < nl; i++) {
        char num[24];
        snprintf(num, sizeof num, "%zu", i + 1);
        double w = svg_text_width(num, 11) + 2;
        double lx = labs[i].group == 0 ? labs[i].x - 7 - w : labs[i].x + 7;
        double ly = svg_label_place(&placed, lx, labs[i].y + (labs[i].group == 0 ? -5.0 : 13.0), w);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" font-weight=\"bold\" fill=\"%s\">%s</text>\n",
                    lx, ly, labs[i].group == 0 ? "#0072B2" : "#D55E00", num);
    }
    for (size_t i = 0; i < nl; i++) {
        int col = (int)(i % (size_t)ncol), row = (int)(i / (size_t)ncol);
        int lx = left + (int)(col * (colw + 16)), ly = top + ph + 52 + row * 15;
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\"><tspan font-weight=\"bold\" fill=\"%s\">%zu</tspan> "
                         "%s ", lx, ly, labs[i].group == 0 ? "#0072B2" : "#D55E00", i + 1,
                    labs[i].group == 0 ? "prefill" : "decode");
        svg_escape(out, labs[i].text);
        if (labs[i].ai_hi > labs[i].ai * 1.005) {
            char hi[32];
            sbuf_printf(out, " (%s-%s FLOP/B)</text>\n", value_text(labs[i].ai, ai, sizeof ai),
                        value_text(labs[i].ai_hi, hi, sizeof hi));
        } else {
            sbuf_printf(out, " (%s FLOP/B)</text>\n", value_text(labs[i].ai, ai, sizeof ai));
        }
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
