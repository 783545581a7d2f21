/* render_validate.h - validation tables, the predicted-vs-measured scatter, the uncertainty
 * bands file, and the calibrated GPU entry. */
#ifndef LLMROOF_RENDER_VALIDATE_H
#define LLMROOF_RENDER_VALIDATE_H

#include "base/sbuf.h"
#include "render/table.h"
#include "fit/validate.h"

enum val_group { VAL_BY_METRIC, VAL_BY_GPU, VAL_BY_SOURCE, VAL_BY_MODEL };
bool val_group_parse(const char *s, enum val_group *out);

/* Per-row table, summary (overall, per class, per group) and unmapped rows. */
const char *val_group_key(const struct val_case *c, enum val_group by);
/* The cells n, median |error| %, p90 |error| % and bias % of a summary row, as every validation
 * summary table writes them. */
void table_val_stats(struct table *t, struct val_stats s);

/* held_out: the cases carry cross-validated predictions (validate --cv), and the titles say so. */
void render_validate(const char *fname, const struct val_case *cases, size_t n, enum val_group by, bool held_out,
                     enum table_format f, struct table_sel *sel, struct sbuf *out);

/* The error distribution per metric class (decode, prefill, e2e: one strip each on a % axis,
 * with the middle 80% and the median), then predicted against measured in one log-log panel
 * per unit (ms; tokens/s: they never share an axis), with the identity and a +-20% band. */
void render_validate_scatter(const char *title, const struct val_case *cases, size_t n, struct sbuf *out);

#endif
