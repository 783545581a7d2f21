/* baseline.h - reads one row of a sweep's JSON Lines output back (for `llmroof check`).
 * A second JSON reader beside catalog.c: the baseline is a different document with its own
 * schema and line-numbered errors, so it gets its own module rather than a corner of the
 * catalog's. */
#ifndef LLMROOF_BASELINE_H
#define LLMROOF_BASELINE_H

#include <stddef.h>

#include "base/err.h"
#include "fit/sweep.h"

/* Parses `line` (not NUL-terminated, `len` bytes) as one sweep row. Messages name
 * fname:lineno and the field. Unknown fields are errors. */
int baseline_parse_row(const char *line, size_t len, const char *fname, long lineno, struct sweep_row *out,
                       struct llmroof_err *err);

#endif
