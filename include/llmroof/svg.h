/* svg.h - self-contained SVG charts (no scripts, fonts or external references).
 * Charts are 800 px wide by default and use only text, rect, line, polyline and circle. */
#ifndef LLMROOF_SVG_H
#define LLMROOF_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "llmroof/catalog.h"
#include "llmroof/sbuf.h"

/* Stacked horizontal bars: one bar per label, one segment per series.
 * values[bar * nseries + s] are fractions of the bar (a bar whose values are all zero is
 * drawn as "n/a"). */
void svg_stacked_bars(struct sbuf *out, const char *title, const char *const *bars, size_t nbars,
                      const char *const *series, size_t nseries, const double *values, bool standalone);

struct svg_point {
    const char *label;   /* operator name */
    double intensity;    /* FLOP per byte */
    double flops_per_s;  /* achieved (FLOP / op time), FLOP/s */
    int group;           /* 0 prefill, 1 decode */
};

/* Log-log roofline of GPU g: bandwidth slope, a ceiling per dtype it has, the ridge point of
 * the fp16 (or first) ceiling, and the given points. */
void svg_roofline(struct sbuf *out, const char *title, const struct llmroof_gpu *g, double memory_eff,
                  double compute_eff, const struct svg_point *pts, size_t npts, bool standalone);

/* Places text labels so that no two overlap: each new label is moved up or down in 12 px
 * steps until its box (x .. x+w, height 11) clears every label placed before. */
struct svg_labeler {
    double x[128], y[128], w[128]; /* boxes already placed */
    int n;
};
/* Returns the y to draw a label of width w wanted at (x, y), and records it. */
double svg_label_place(struct svg_labeler *l, double x, double y, double w);

/* Appends s with &, <, >, " escaped. */
void svg_escape(struct sbuf *out, const char *s);

#endif
