/* svg.h - self-contained SVG charts (no scripts, fonts or external references).
 * Charts are 800 px wide by default and use only text, rect, line, polyline and circle. */
#ifndef LLMROOF_SVG_H
#define LLMROOF_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "data/catalog.h"
#include "base/sbuf.h"

/* Stacked horizontal bars: one bar per label, one segment per series.
 * values[bar * nseries + s] are fractions of the bar (a bar whose values are all zero is
 * drawn as "n/a"). */
void svg_stacked_bars(struct sbuf *out, const char *title, const char *const *bars, size_t nbars,
                      const char *const *series, size_t nseries, const double *values, bool standalone);

/* Grouped vertical bars in one or more stacked panels sharing the groups and series: panel p,
 * group g, series s has value values[p][g * nseries + s] when has[g * nseries + s]; pale marks
 * bars drawn faded (NULL: none). Each panel has its own y axis from 0 with round ticks. */
struct svg_bar_panel {
    const char *axis;      /* y-axis title with its unit, e.g. "TTFT (ms)" */
    const double *values;  /* ngroups * nseries values */
};
void svg_grouped_bars(struct sbuf *out, const char *title, const char *const *groups, size_t ngroups,
                      const char *const *series, size_t nseries, const bool *has, const bool *pale,
                      const struct svg_bar_panel *panels, size_t npanels, const char *note, bool standalone);

struct svg_point {
    const char *label;   /* operator name */
    double intensity;    /* FLOP per byte */
    double flops_per_s;  /* achieved (FLOP / op time), FLOP/s */
    int group;           /* 0 prefill, 1 decode */
};

/* Log-log roofline of GPU g: bandwidth slope, a ceiling per dtype it has, the ridge point of
 * the ceiling the GEMMs compute on (`gemm`: the activations' dtype, fp8 for an fp8 checkpoint on a
 * GPU with fp8; fp16 where the GPU has no such peak), and the given points. */
void svg_roofline(struct sbuf *out, const char *title, const struct llmroof_gpu *g, double memory_eff,
                  double compute_eff, enum llmroof_dtype gemm, const struct svg_point *pts, size_t npts,
                  bool standalone);

/* Places text labels so that no two overlap: each new label is moved up or down in 12 px
 * steps until its box (x .. x+w, height 11) clears every label placed before. */
struct svg_labeler {
    double x[128], y[128], w[128]; /* boxes already placed */
    int n;
};
/* Returns the y to draw a label of width w wanted at (x, y), and records it. */
double svg_label_place(struct svg_labeler *l, double x, double y, double w);

/* ------------------------------------------------------------------------ */
/* Axes: round ("nice") tick values, as Heckbert's "Nice numbers for graph labels" (Graphics
 * Gems, 1990): a step of 1, 2, 2.5 or 5 times a power of ten.                            */
/* ------------------------------------------------------------------------ */
#define SVG_MAX_TICKS 24
struct svg_axis {
    double lo, hi;                 /* the axis range, a multiple of the step on a linear axis */
    bool log;                      /* logarithmic: ticks at 1, 2, 5 x 10^k or at decades */
    double tick[SVG_MAX_TICKS];    /* tick values, ascending */
    int nticks;
};
/* Linear axis over [lo, hi] (lo may be forced to 0 by the caller) with about `target` ticks. */
struct svg_axis svg_axis_linear(double lo, double hi, int target);
/* Logarithmic axis over [lo, hi] (both > 0): decades, with 2 and 5 between them when the range
 * spans three decades or fewer. */
struct svg_axis svg_axis_log(double lo, double hi);
/* Position of v on the axis as a fraction 0..1 of its length (clamped). */
double svg_axis_frac(const struct svg_axis *a, double v);
/* A tick label: shortest of %g with SI suffixes k, M, G, T, P above 10^4 ("20k", "1.5M"). */
const char *svg_tick_text(double v, char *buf, size_t n);
/* Tick t of axis a in one style for the axis: where its largest tick takes a suffix, every tick of
 * 1000 or more does ("0, 5k, 10k, 15k"; a review read "0, 5000, 10k, 15k"). */
const char *svg_axis_tick_text(const struct svg_axis *a, int t, char *buf, size_t n);
/* Whether v is a round tick value: 0, or m x 10^k with m in {1, 2, 2.5, 5} (tests). */
bool svg_is_round(double v);
/* Estimated width in px of text at font size `px` in a sans-serif face (0.6 em per character,
 * an upper bound for digits and lowercase letters). */
double svg_text_width(const char *s, double px);

/* Appends s with &, <, >, " escaped. */
void svg_escape(struct sbuf *out, const char *s);

#endif
