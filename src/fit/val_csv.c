/* val_csv.c - RFC 4180 reading of measurement files (see fit/validate.h) */
#include "fit/validate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "base/parse.h"

/* ------------------------------------------------------------------------ */
/* CSV (RFC 4180)                                                           */
/* ------------------------------------------------------------------------ */

/* Reads one record starting at *pos; fields are copied into f[i] (truncated to VAL_TEXT - 1
 * bytes; bit i of *over is set when field i was cut, so a reader can refuse what it uses). */
int val_csv_record(const char *t, size_t len, size_t *pos, long *line, char f[][VAL_TEXT], int *nf,
                      uint64_t *over, const char *fname, struct llmroof_err *err)
{
    size_t i = *pos;
    int n = 0;
    size_t k = 0;
    bool quoted = false, started = false;
    long quote_line = *line; /* where the open quote began: an unterminated one is reported there */
    _Static_assert(VAL_MAX_FIELDS <= 64, "*over holds one bit a field");
    *over = 0;
    if (n < VAL_MAX_FIELDS)
        f[0][0] = '\0';
    while (i < len) {
        char ch = t[i];
        if (quoted) {
            if (ch == '"') {
                if (i + 1 < len && t[i + 1] == '"') {
                    if (k + 1 < VAL_TEXT)
                        f[n][k++] = '"';
                    else
                        *over |= (uint64_t)1 << n;
                    i += 2;
                    continue;
                }
                quoted = false;
                i++;
                continue;
            }
            if (ch == '\n')
                (*line)++;
            if (k + 1 < VAL_TEXT)
                f[n][k++] = ch;
            else
                *over |= (uint64_t)1 << n;
            i++;
            continue;
        }
        if (ch == '"' && !started) {
            quoted = started = true;
            quote_line = *line;
            i++;
            continue;
        }
        if (ch == ',' || ch == '\n' || ch == '\r') {
            f[n][k] = '\0';
            n++;
            if (ch == ',') {
                if (n == VAL_MAX_FIELDS)
                    return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: more than %d fields", fname, *line, VAL_MAX_FIELDS);
                k = 0;
                started = false;
                f[n][0] = '\0';
                i++;
                continue;
            }
            if (ch == '\r' && i + 1 < len && t[i + 1] == '\n')
                i++;
            i++;
            (*line)++;
            *pos = i;
            *nf = n;
            return LLMROOF_OK;
        }
        started = true;
        if (k + 1 < VAL_TEXT)
            f[n][k++] = ch;
        else
            *over |= (uint64_t)1 << n;
        i++;
    }
    if (quoted)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: unterminated quoted field", fname, quote_line);
    f[n][k] = '\0';
    *nf = n + 1;
    *pos = i;
    (*line)++;
    return LLMROOF_OK;
}

int val_csv_reserve(void **rows, size_t *cap, size_t n, size_t elem, const char *fname, struct llmroof_err *err)
{
    if (n < *cap)
        return LLMROOF_OK;
    if (n >= 1000000) /* the limit counts rows, not the doubling buffer's capacity */
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: more than 1,000,000 rows", fname);
    size_t nc = *cap ? *cap * 2 : 256;
    if (nc > 1000000)
        nc = 1000000;
    void *nv = realloc(*rows, nc * elem);
    if (!nv)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    *rows = nv;
    *cap = nc;
    return LLMROOF_OK;
}

int val_csv_read(const char *text, size_t len, const char *fname, const char *const *names, int ncols, int nrequired,
                 val_csv_row_fn row, void *ctx, struct llmroof_err *err)
{
    size_t bad;
    if (!parse_utf8_valid(text, len, &bad))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: not valid UTF-8", fname, parse_line_at(text, bad));
    if (ncols > VAL_MAX_FIELDS)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: too many columns", fname);
    char (*f)[VAL_TEXT] = malloc(sizeof(char[VAL_MAX_FIELDS][VAL_TEXT]));
    if (!f)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    size_t pos = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        pos = 3; /* a UTF-8 byte order mark before the header (spreadsheet exports) */
    long line = 1;
    int nf = 0, col[VAL_MAX_FIELDS], maxcol = 0;
    uint64_t over = 0;
    int rc = val_csv_record(text, len, &pos, &line, f, &nf, &over, fname, err);
    /* a column named twice: the last copy had been read, silently (an audit's doubled 'value') */
    for (int j = 0; rc == 0 && j < nf; j++)
        for (int k = j + 1; rc == 0 && k < nf; k++)
            if (f[j][0] && strcmp(f[j], f[k]) == 0)
                rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:1: column '%s' appears twice (fields %d and %d)", fname,
                                     f[j], j + 1, k + 1);
    const int header_nf = nf;
    for (int k = 0; rc == 0 && k < ncols; k++) {
        col[k] = -1;
        for (int j = 0; j < nf; j++)
            if (strcmp(f[j], names[k]) == 0)
                col[k] = j;
        if (k < nrequired && col[k] < 0)
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:1: header lacks column '%s'", fname, names[k]);
        if (col[k] > maxcol)
            maxcol = col[k];
    }
    while (rc == 0 && pos < len) {
        long start = line;
        if ((rc = val_csv_record(text, len, &pos, &line, f, &nf, &over, fname, err)))
            break;
        /* a cut value would be read as another one; the free-text source and notes columns are the
         * exception: only the source's first word (val_source_key) and the notes' load are read */
        for (int k = 0; k < ncols && !rc; k++)
            if (col[k] >= 0 && col[k] < nf && (over >> col[k]) & 1u && strcmp(names[k], "source") != 0 &&
                strcmp(names[k], "notes") != 0)
                rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column '%s' is longer than %d bytes", fname, start,
                                     names[k], VAL_TEXT - 1);
        if (rc)
            break;
        if (nf == 1 && f[0][0] == '\0')
            continue; /* empty line */
        if (nf <= maxcol)
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: %d fields, the header has more", fname, start, nf);
        else if (nf > header_nf) /* a shifted row: its values under the wrong columns */
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: %d fields, the header has %d", fname, start, nf,
                                 header_nf);
        else
            rc = row(ctx, f, col, start, err);
    }
    free(f);
    return rc;
}

enum { M_ID, M_MODEL, M_GPU, M_NUM_GPUS, M_TP, M_WDT, M_KVDT, M_BATCH, M_IN, M_OUT, M_METRIC, M_VALUE, M_FRAMEWORK,
       M_SOURCE, M_NOTES, M_NCOLS };

struct rows_ctx {
    const char *fname;
    struct val_row *v;
    size_t n, cap;
};

static int measurement_row(void *vctx, char f[][VAL_TEXT], const int *col, long line, struct llmroof_err *err)
{
    struct rows_ctx *x = vctx;
    int rc = val_csv_reserve((void **)&x->v, &x->cap, x->n, sizeof *x->v, x->fname, err);
    if (rc)
        return rc;
    struct val_row *r = &x->v[x->n++];
    memset(r, 0, sizeof *r);
    r->line = line;
    /* columns held in narrower fields: longer is an error, never a cut ("1e308" written out
     * in full must not become a 63-digit number) */
    const struct { int c; size_t cap; } narrow[] = { { M_ID, sizeof r->id }, { M_NUM_GPUS, sizeof r->num_gpus },
                                                     { M_TP, sizeof r->tp }, { M_BATCH, sizeof r->batch },
                                                     { M_METRIC, sizeof r->metric }, { M_VALUE, sizeof r->value } };
    static const char *const narrow_name[] = { "id", "num_gpus", "tp", "batch", "metric", "value" };
    for (size_t k = 0; k < sizeof narrow / sizeof narrow[0]; k++)
        if (strlen(f[col[narrow[k].c]]) >= narrow[k].cap)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column '%s' is longer than %zu bytes", x->fname, line,
                                   narrow_name[k], narrow[k].cap - 1);
    /* a measured value is a positive finite number: a typo had left its row "not mapped", exit 0 */
    double v;
    if (!parse_double(f[col[M_VALUE]], &v) || !(v > 0) || !isfinite(v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'value': '%s' is not a positive number", x->fname,
                               line, f[col[M_VALUE]]);
    snprintf(r->id, sizeof r->id, "%s", f[col[M_ID]]);
    snprintf(r->model, sizeof r->model, "%s", f[col[M_MODEL]]);
    snprintf(r->gpu, sizeof r->gpu, "%s", f[col[M_GPU]]);
    snprintf(r->num_gpus, sizeof r->num_gpus, "%s", f[col[M_NUM_GPUS]]);
    snprintf(r->tp, sizeof r->tp, "%s", f[col[M_TP]]);
    snprintf(r->weight_dtype, sizeof r->weight_dtype, "%s", f[col[M_WDT]]);
    snprintf(r->kv_dtype, sizeof r->kv_dtype, "%s", f[col[M_KVDT]]);
    snprintf(r->batch, sizeof r->batch, "%s", f[col[M_BATCH]]);
    snprintf(r->input_len, sizeof r->input_len, "%s", f[col[M_IN]]);
    snprintf(r->output_len, sizeof r->output_len, "%s", f[col[M_OUT]]);
    snprintf(r->metric, sizeof r->metric, "%s", f[col[M_METRIC]]);
    snprintf(r->value, sizeof r->value, "%s", f[col[M_VALUE]]);
    if (col[M_FRAMEWORK] >= 0)
        snprintf(r->framework, sizeof r->framework, "%s", f[col[M_FRAMEWORK]]);
    r->source_column = col[M_SOURCE] >= 0;
    if (col[M_SOURCE] >= 0)
        snprintf(r->source, sizeof r->source, "%s", f[col[M_SOURCE]]);
    if (col[M_NOTES] >= 0)
        snprintf(r->notes, sizeof r->notes, "%s", f[col[M_NOTES]]);
    return LLMROOF_OK;
}

/* ids sorted with their lines (val_ids_unique) */
struct id_line {
    const char *id;
    long line;
};

static int by_id(const void *a, const void *b)
{
    const struct id_line *x = a, *y = b;
    const int c = strcmp(x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

int val_ids_unique(const char *fname, size_t n, const char *(*id_of)(const void *rows, size_t i),
                   long (*line_of)(const void *rows, size_t i), const void *rows, struct llmroof_err *err)
{
    if (n < 2)
        return LLMROOF_OK;
    struct id_line *v = malloc(sizeof *v * n);
    if (!v)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = (struct id_line){ id_of(rows, i), line_of(rows, i) };
    qsort(v, n, sizeof *v, by_id);
    int rc = LLMROOF_OK;
    for (size_t i = 1; i < n && !rc; i++)
        if (strcmp(v[i].id, v[i - 1].id) == 0)
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'id': '%s' repeats line %ld's", fname, v[i].line,
                                 v[i].id, v[i - 1].line);
    free(v);
    return rc;
}

static const char *row_id(const void *rows, size_t i) { return ((const struct val_row *)rows)[i].id; }
static long row_line(const void *rows, size_t i) { return ((const struct val_row *)rows)[i].line; }

int val_parse_csv(const char *text, size_t len, const char *fname, struct val_row **rows, size_t *nrows,
                  struct llmroof_err *err)
{
    static const char *const names[M_NCOLS] = { "id", "model", "gpu", "num_gpus", "tp", "weight_dtype", "kv_dtype",
                                                "batch", "input_len", "output_len", "metric", "value", "framework",
                                                "source", "notes" };
    struct rows_ctx x = { fname, NULL, 0, 0 };
    int rc = val_csv_read(text, len, fname, names, M_NCOLS, M_FRAMEWORK, measurement_row, &x, err);
    if (!rc) /* a repeated id (two rows of one measurement, or a paste) had been reported twice */
        rc = val_ids_unique(fname, x.n, row_id, row_line, x.v, err);
    if (rc) {
        free(x.v);
        return rc;
    }
    *rows = x.v;
    *nrows = x.n;
    return LLMROOF_OK;
}
