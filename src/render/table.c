/* table.c - see llmroof/table.h */
#include "render/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool table_parse_format(const char *s, enum table_format *out)
{
    static const char *const names[] = { "table", "md", "csv", "json", "html", "jsonl" };
    for (int i = 0; i < 6; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = (enum table_format)i;
            return true;
        }
    if (strcasecmp(s, "markdown") == 0 || strcasecmp(s, "text") == 0) {
        *out = strcasecmp(s, "text") == 0 ? TABLE_TEXT : TABLE_MD;
        return true;
    }
    return false;
}

const char *table_format_name(enum table_format f)
{
    static const char *const names[] = { "table", "md", "csv", "json", "html", "jsonl" };
    return names[f];
}

bool table_sel_wants(struct table_sel *sel, enum table_format f, const char *name)
{
    if (!sel)
        return true;
    if (sel->offered < TABLE_SEL_MAX)
        sel->names[sel->offered] = name;
    bool first = sel->offered++ == 0;
    if (f != TABLE_CSV)
        return true;
    bool want = !sel->printed && (sel->pick ? strcmp(sel->pick, name) == 0 : first);
    sel->printed |= want;
    return want;
}

void table_init(struct table *t, const char *title)
{
    memset(t, 0, sizeof *t);
    snprintf(t->title, sizeof t->title, "%s", title ? title : "");
}

void table_free(struct table *t)
{
    size_t n = t->nrows * (size_t)t->ncols;
    for (size_t i = 0; i < n && t->cells; i++)
        free(t->cells[i].str);
    free(t->cells);
    t->cells = NULL;
    t->nrows = t->cap = 0;
}

void table_col(struct table *t, const char *name, int prec)
{
    if (t->ncols >= TABLE_MAX_COLS || t->nrows) {
        t->failed = true;
        return;
    }
    snprintf(t->col[t->ncols], sizeof t->col[0], "%s", name);
    t->prec[t->ncols] = prec;
    t->ncols++;
}

void table_row(struct table *t)
{
    size_t need = (t->nrows + 1) * (size_t)t->ncols;
    if (need > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : (size_t)t->ncols * 16;
        while (cap < need)
            cap *= 2;
        struct table_cell *p = realloc(t->cells, cap * sizeof *p);
        if (!p) {
            t->failed = true;
            return;
        }
        t->cells = p;
        t->cap = cap;
    }
    memset(&t->cells[t->nrows * (size_t)t->ncols], 0, sizeof(struct table_cell) * (size_t)t->ncols);
    t->nrows++;
    t->cur = 0;
}

static struct table_cell *next_cell(struct table *t)
{
    if (t->failed || !t->nrows || t->cur >= t->ncols) {
        t->failed = true;
        return NULL;
    }
    return &t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)t->cur++];
}

void table_str(struct table *t, const char *s)
{
    struct table_cell *c = next_cell(t);
    if (!c)
        return;
    size_t n = strlen(s);
    c->str = malloc(n + 1);
    if (!c->str) {
        t->failed = true;
        return;
    }
    memcpy(c->str, s, n + 1);
}

void table_str_num(struct table *t, const char *text, double v)
{
    table_str(t, text);
    if (t->failed || t->cur < 1 || t->nrows == 0)
        return;
    struct table_cell *c = &t->cells[(t->nrows - 1) * (size_t)t->ncols + (size_t)(t->cur - 1)];
    c->num = v;
    c->csv_num = true;
}

void table_num(struct table *t, double v)
{
    struct table_cell *c = next_cell(t);
    if (!c)
        return;
    c->num = v;
    c->is_num = true;
}

void table_empty(struct table *t)
{
    (void)next_cell(t);
}

const char *table_cell_text(const struct table *t, size_t row, int col, char *buf)
{
    const struct table_cell *c = &t->cells[row * (size_t)t->ncols + (size_t)col];
    if (c->str)
        return c->str;
    if (!c->is_num)
        return "";
    snprintf(buf, 64, "%.*f", t->prec[col], c->num);
    if (strcmp(buf, "-0") == 0 || (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)))
        memmove(buf, buf + 1, strlen(buf)); /* never print "-0.00" */
    return buf;
}

static bool col_numeric(const struct table *t, int col)
{
    for (size_t r = 0; r < t->nrows; r++)
        if (t->cells[r * (size_t)t->ncols + (size_t)col].is_num)
            return true;
    return false;
}

static void csv_field(struct sbuf *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n")) {
        sbuf_append(out, "\"");
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                sbuf_append(out, "\"\"");
            else
                sbuf_appendn(out, p, 1);
        }
        sbuf_append(out, "\"");
    } else {
        sbuf_append(out, s);
    }
}

/* A cell's text in Markdown: a '|' would end the cell (GFM tables), so it is written "\|": a
 * catalog name "My | GPU" had split its row into one more column than the header. */
static size_t cell_len(const char *s, enum table_format f)
{
    size_t n = strlen(s);
    if (f == TABLE_MD)
        for (const char *p = s; (p = strchr(p, '|')) != NULL; p++)
            n++;
    return n;
}

static void cell_append(struct sbuf *out, const char *s, enum table_format f)
{
    if (f != TABLE_MD) {
        sbuf_append(out, s);
        return;
    }
    for (const char *p = s; *p;) {
        size_t k = strcspn(p, "|");
        sbuf_appendn(out, p, k);
        p += k;
        if (*p == '|') {
            sbuf_append(out, "\\|");
            p++;
        }
    }
}

void table_render(const struct table *t, enum table_format f, struct sbuf *out)
{
    char buf[64];
    if (t->failed) {
        out->failed = true;
        return;
    }
    if (f == TABLE_CSV) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                sbuf_append(out, ",");
            csv_field(out, t->col[c]);
        }
        sbuf_append(out, "\r\n");
        /* CSV is read by programs: a number at 15 significant digits, not at the text's display
         * precision (estimate's e2e of 2.762 ms read "0.003" s, 8.6% off), and a value nothing
         * gives ("n/a" in the text) an empty cell, as docs/json.md says of an absent one (a review
         * of session 65) */
        for (size_t r = 0; r < t->nrows; r++) {
            for (int c = 0; c < t->ncols; c++) {
                if (c)
                    sbuf_append(out, ",");
                const struct table_cell *cell = &t->cells[r * (size_t)t->ncols + (size_t)c];
                if ((!cell->str && cell->is_num) || (cell->str && cell->csv_num)) {
                    snprintf(buf, sizeof buf, "%.15g", cell->num == 0 ? 0.0 : cell->num); /* never "-0" */
                    csv_field(out, buf);
                } else {
                    const char *text = table_cell_text(t, r, c, buf);
                    csv_field(out, strcmp(text, "n/a") == 0 ? "" : text);
                }
            }
            sbuf_append(out, "\r\n");
        }
        return;
    }
    size_t width[TABLE_MAX_COLS] = { 0 };
    bool num[TABLE_MAX_COLS] = { false };
    for (int c = 0; c < t->ncols; c++) {
        width[c] = cell_len(t->col[c], f);
        num[c] = col_numeric(t, c);
        if (f == TABLE_MD && width[c] < 3)
            width[c] = 3;
        for (size_t r = 0; r < t->nrows; r++) {
            size_t w = cell_len(table_cell_text(t, r, c, buf), f);
            if (w > width[c])
                width[c] = w;
        }
    }
    if (t->title[0])
        sbuf_printf(out, f == TABLE_MD ? "### %s\n\n" : "%s\n", t->title);
    const char *sep = f == TABLE_MD ? " | " : "  ";
    for (size_t r = 0; r <= t->nrows + 1; r++) {
        size_t line_start = out->len;
        /* r == 0: header, r == 1: rule, r >= 2: data row r-2 */
        if (f == TABLE_MD)
            sbuf_append(out, "| ");
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                sbuf_append(out, sep);
            if (r == 1) {
                if (f == TABLE_MD) {
                    sbuf_pad(out, '-', width[c] - (num[c] ? 1 : 0));
                    if (num[c])
                        sbuf_append(out, ":");
                } else {
                    sbuf_pad(out, '-', width[c]);
                }
                continue;
            }
            const char *s = r == 0 ? t->col[c] : table_cell_text(t, r - 2, c, buf);
            size_t pad = width[c] - cell_len(s, f);
            bool last = c == t->ncols - 1;
            if (num[c])
                sbuf_pad(out, ' ', pad);
            cell_append(out, s, f);
            if (!num[c] && (!last || f == TABLE_MD))
                sbuf_pad(out, ' ', pad);
        }
        if (f == TABLE_MD)
            sbuf_append(out, " |");
        /* no trailing blanks: golden files and diffs stay clean */
        while (!out->failed && out->len > line_start && out->data[out->len - 1] == ' ')
            out->data[--out->len] = '\0';
        sbuf_append(out, "\n");
    }
}

/* ------------------------------------------------------------------------ */
/* Narrow terminals: column subsets and tables split into parts              */
/* ------------------------------------------------------------------------ */

static size_t col_width(const struct table *t, int c)
{
    char buf[64];
    size_t w = strlen(t->col[c]);
    for (size_t r = 0; r < t->nrows; r++) {
        size_t n = strlen(table_cell_text(t, r, c, buf));
        w = n > w ? n : w;
    }
    return w;
}

size_t table_text_width(const struct table *t)
{
    size_t w = 0;
    for (int c = 0; c < t->ncols; c++)
        w += col_width(t, c) + (c ? 2 : 0);
    return w;
}

/* Copies the columns idx[0..n) of src into dst (initialised here). */
static void project(const struct table *src, const char *title, const int *idx, int n, struct table *dst)
{
    table_init(dst, title);
    dst->failed = src->failed;
    for (int k = 0; k < n; k++)
        table_col(dst, src->col[idx[k]], src->prec[idx[k]]);
    for (size_t r = 0; r < src->nrows; r++) {
        table_row(dst);
        for (int k = 0; k < n; k++) {
            const struct table_cell *c = &src->cells[r * (size_t)src->ncols + (size_t)idx[k]];
            if (c->str)
                table_str(dst, c->str);
            else if (c->is_num)
                table_num(dst, c->num);
            else
                table_empty(dst);
        }
    }
}

/* Copies cell c of src's row r into dst's current row. */
static void copy_cell(const struct table *src, size_t r, int c, struct table *dst)
{
    const struct table_cell *x = &src->cells[r * (size_t)src->ncols + (size_t)c];
    if (x->str && x->csv_num)
        table_str_num(dst, x->str, x->num);
    else if (x->str)
        table_str(dst, x->str);
    else if (x->is_num)
        table_num(dst, x->num);
    else
        table_empty(dst);
}

/* The length of the next line of `s` (blanks before it already skipped) in at most `cap` bytes: up
 * to its last blank within them, or `cap` bytes where a word is longer (cut inside it rather than
 * let it widen the table: a long alias list, a URL). */
static size_t fold_piece(const char *s, size_t cap)
{
    const size_t n = strlen(s);
    if (n <= cap)
        return n;
    size_t cut = cap;
    while (cut > 0 && s[cut] != ' ')
        cut--;
    if (cut > 0)
        return cut;
    /* a word cut inside: not inside a UTF-8 character (its continuation bytes are 10xxxxxx) */
    cut = cap;
    while (cut > 1 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    return cut;
}

/* How many lines text cell `s` takes at `cap` bytes a line. */
static size_t fold_lines(const char *s, size_t cap)
{
    size_t lines = 0;
    while (*s == ' ')
        s++;
    while (*s) {
        s += fold_piece(s, cap);
        while (*s == ' ')
            s++;
        lines++;
    }
    return lines ? lines : 1;
}

/* The narrowest column c folds to: TABLE_FOLD_MIN, its header, and its longest word up to
 * TABLE_FOLD_WORD (an id or a path cut in two cannot be copied: a model's hf_id had folded inside
 * "Kimi-Linear-48B-A3B-Instruct"). */
static size_t fold_floor(const struct table *t, int c)
{
    size_t f = strlen(t->col[c]) > TABLE_FOLD_MIN ? strlen(t->col[c]) : TABLE_FOLD_MIN;
    for (size_t r = 0; r < t->nrows; r++) {
        const char *s = t->cells[r * (size_t)t->ncols + (size_t)c].str;
        while (s && *s) {
            const size_t n = strcspn(s, " ");
            if (n > f)
                f = n < TABLE_FOLD_WORD ? n : TABLE_FOLD_WORD > f ? TABLE_FOLD_WORD : f;
            s += n + strspn(s + n, " ");
        }
    }
    return f;
}

void table_fold(const struct table *src, size_t max_width, int nkey, struct table *dst)
{
    size_t w[TABLE_MAX_COLS] = { 0 }, cap[TABLE_MAX_COLS] = { 0 }, lo[TABLE_MAX_COLS] = { 0 }, total = 0;
    const int nc = src->ncols < TABLE_MAX_COLS ? src->ncols : TABLE_MAX_COLS; /* table_col caps it so */
    for (int c = 0; c < nc; c++) {
        cap[c] = w[c] = col_width(src, c);
        lo[c] = fold_floor(src, c);
        total += w[c] + (c ? 2 : 0);
    }
    /* narrow the widest foldable column until the table fits or none can narrow further: a text
     * column of at least TABLE_FOLD_MIN bytes, never below its header */
    while (total > max_width) {
        int widest = -1;
        for (int c = nkey; c < nc; c++)
            if (cap[c] > lo[c] && (widest < 0 || cap[c] > cap[widest]))
                widest = c;
        if (widest < 0)
            break;
        const size_t floor_w = lo[widest];
        /* at most down to the next widest column, so the widths come out even */
        size_t next = 0;
        for (int c = nkey; c < nc; c++)
            if (c != widest && cap[c] > next && cap[c] < cap[widest])
                next = cap[c];
        size_t to = cap[widest] - (total - max_width < cap[widest] ? total - max_width : cap[widest]);
        if (to < next)
            to = next;
        if (to < floor_w)
            to = floor_w;
        if (to >= cap[widest])
            to = cap[widest] - 1;
        total -= cap[widest] - to;
        cap[widest] = to;
    }
    table_init(dst, src->title);
    dst->failed = src->failed;
    for (int c = 0; c < nc; c++)
        table_col(dst, src->col[c], src->prec[c]);
    size_t widest_cap = 1;
    for (int c = 0; c < nc; c++)
        widest_cap = cap[c] > widest_cap ? cap[c] : widest_cap;
    char *piece = malloc(widest_cap + 1);
    if (!piece) {
        dst->failed = true;
        return;
    }
    for (size_t r = 0; r < src->nrows; r++) {
        /* the row's text cells wider than their column, where they go on */
        const char *rest[TABLE_MAX_COLS] = { NULL };
        size_t lines = 1;
        for (int c = 0; c < nc; c++) {
            const char *str = src->cells[r * (size_t)src->ncols + (size_t)c].str;
            rest[c] = str && !src->cells[r * (size_t)src->ncols + (size_t)c].csv_num && strlen(str) > cap[c] ? str : NULL;
            const size_t need = rest[c] ? fold_lines(rest[c], cap[c]) : 1;
            lines = need > lines ? need : lines;
        }
        for (size_t line = 0; line < lines; line++) {
            table_row(dst);
            for (int c = 0; c < nc; c++) {
                if (!rest[c]) {
                    if (line == 0)
                        copy_cell(src, r, c, dst);
                    else
                        table_empty(dst);
                    continue;
                }
                while (*rest[c] == ' ')
                    rest[c]++;
                const size_t n = fold_piece(rest[c], cap[c]);
                if (n == 0) {
                    table_empty(dst);
                    continue;
                }
                memcpy(piece, rest[c], n); /* n <= cap[c] <= widest_cap */
                piece[n] = '\0';
                table_str(dst, piece);
                rest[c] += n;
            }
        }
    }
    free(piece);
}

void table_columns(const struct table *src, const char *title, const char *const *names, struct table *dst)
{
    int idx[TABLE_MAX_COLS], n = 0;
    for (const char *const *p = names; *p && n < TABLE_MAX_COLS; p++)
        for (int c = 0; c < src->ncols; c++)
            if (strcmp(src->col[c], *p) == 0) {
                idx[n++] = c;
                break;
            }
    project(src, title, idx, n, dst);
}

void table_render_fit(const struct table *t, enum table_format f, size_t max_width, int nkey, struct sbuf *out)
{
    if (f == TABLE_CSV || t->failed || nkey < 0 || nkey >= t->ncols || table_text_width(t) <= max_width) {
        table_render(t, f, out);
        return;
    }
    size_t key_w = 0, w[TABLE_MAX_COLS] = { 0 };
    for (int c = 0; c < t->ncols; c++) {
        w[c] = col_width(t, c) + 2;
        if (c < nkey)
            key_w += w[c];
    }
    /* how many parts: greedy, each part the key columns and as many of the next as fit (at least
     * one); then the columns are dealt again so that the parts come out about equally wide */
    int start[TABLE_MAX_COLS + 1], nparts = 0;
    for (int c = nkey; c < t->ncols;) {
        nparts++;
        size_t used = key_w + w[c++];
        while (c < t->ncols && used + w[c] <= max_width + 2)
            used += w[c++];
    }
    size_t rest = 0;
    for (int c = nkey; c < t->ncols; c++)
        rest += w[c];
    int k = 0; /* parts dealt; balancing may (rarely) need one more than the greedy count */
    for (int c = nkey; c < t->ncols; k++) {
        start[k] = c;
        size_t target = k < nparts ? rest / (size_t)(nparts - k) : rest, used = w[c];
        rest -= w[c++];
        while (c < t->ncols && used < target && key_w + used + w[c] <= max_width + 2) {
            used += w[c];
            rest -= w[c++];
        }
    }
    nparts = k;
    start[nparts] = t->ncols;
    for (int p = 0; p < nparts; p++) {
        int idx[TABLE_MAX_COLS], n = 0;
        for (int c = 0; c < nkey; c++)
            idx[n++] = c;
        for (int c = start[p]; c < start[p + 1]; c++)
            idx[n++] = c;
        char title[sizeof t->title + 48]; /* " (part N of M)" with two ints of up to 11 characters */
        snprintf(title, sizeof title, "%s%s(part %d of %d)", t->title, t->title[0] ? " " : "", p + 1, nparts);
        struct table part;
        project(t, title, idx, n, &part);
        /* a part still wider than the terminal (one long text column beside the keys: an
         * engine's aliases had printed 265 columns wide) folds that column onto more lines */
        if (f == TABLE_TEXT && table_text_width(&part) > max_width) {
            struct table folded;
            table_fold(&part, max_width, nkey, &folded);
            table_free(&part);
            part = folded;
        }
        if (p)
            sbuf_append(out, "\n");
        table_render(&part, f, out);
        table_free(&part);
    }
}

void table_wrap(struct sbuf *out, const char *lead, const char *text, size_t width, size_t indent)
{
    sbuf_append(out, lead);
    size_t col = strlen(lead), start = col;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " ");
        if (!n)
            break;
        if (col > start && col + 1 + n > width) {
            sbuf_append(out, "\n");
            sbuf_pad(out, ' ', indent);
            col = start = indent;
        } else if (col > start) {
            sbuf_append(out, " ");
            col++;
        }
        sbuf_appendn(out, p, n);
        col += n;
        p += n;
    }
    sbuf_append(out, "\n");
}
