/* table.h - one result table, many renderers (text, Markdown, CSV; JSON in render_json.h).
 * Cells are filled row by row, column by column. Numbers keep their value and a
 * fixed per-column precision, so the text and Markdown renderers print the same digits; CSV, read
 * by programs, prints 15 significant digits and leaves an "n/a" cell empty. */
#ifndef LLMROOF_TABLE_H
#define LLMROOF_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/sbuf.h"

#define TABLE_MAX_COLS 40

enum table_format { TABLE_TEXT, TABLE_MD, TABLE_CSV, TABLE_JSON, TABLE_HTML /* report */, TABLE_JSONL /* sweep */ };

struct table_cell {
    char *str;    /* owned text, or NULL for a number or an empty cell */
    double num;   /* value when is_num */
    bool is_num;  /* cell holds a number */
    bool csv_num; /* a text cell whose value CSV prints instead (table_str_num) */
};

struct table {
    char title[160];                    /* printed above text/Markdown tables; "" for none */
    int ncols;                          /* columns defined */
    char col[TABLE_MAX_COLS][48];       /* column names (also JSON keys) */
    int prec[TABLE_MAX_COLS];           /* digits after the point for numeric cells */
    size_t nrows;                       /* complete or partial rows */
    size_t cap;                         /* allocated cells */
    struct table_cell *cells;           /* nrows * ncols, row-major */
    int cur;                            /* next column to fill in the last row */
    bool failed;                        /* allocation failed */
};

bool table_parse_format(const char *s, enum table_format *out);
const char *table_format_name(enum table_format f);

void table_init(struct table *t, const char *title);
void table_free(struct table *t);
void table_col(struct table *t, const char *name, int prec);
void table_row(struct table *t);
void table_str(struct table *t, const char *s);
void table_num(struct table *t, double v);
/* A cell shown as `text` in the text and Markdown tables (a count without decimals, a quantity at
 * its own precision) whose value v CSV prints at full precision. */
void table_str_num(struct table *t, const char *text, double v);
void table_empty(struct table *t);

/* Which of a command's tables an output holds. CSV holds one table (RFC 4180 has one header
 * line), so a command that prints several offers each by name and prints in CSV only the one
 * picked with --table NAME, or the first it offers when none is picked; every other format
 * prints them all. The CLI reports a pick no table matched. */
#define TABLE_SEL_MAX 12
struct table_sel {
    const char *pick;                 /* --table NAME, or NULL for the first offered */
    int offered;                      /* tables offered so far */
    const char *names[TABLE_SEL_MAX]; /* their names, for the message when the pick matched none */
    bool printed;                     /* CSV: the picked table was printed */
};
/* Offers table `name`; returns whether to print it in format f. sel may be NULL (print all). */
bool table_sel_wants(struct table_sel *sel, enum table_format f, const char *name);

/* Renders as TABLE_TEXT, TABLE_MD or TABLE_CSV (JSON: render_json_table). */
void table_render(const struct table *t, enum table_format f, struct sbuf *out);
/* Text width of t as table_render prints it in TABLE_TEXT (columns and their separators). */
size_t table_text_width(const struct table *t);
/* dst = the columns of src named in names (NULL-terminated, in that order; names src lacks are
 * skipped), every row, titled `title`. dst is initialised here; free it with table_free. */
void table_columns(const struct table *src, const char *title, const char *const *names, struct table *dst);
/* Text and Markdown within `max_width` columns: a table wider than that prints as parts, each
 * repeating the first `nkey` columns (the row's identity) and titled "<title> (part i of n)".
 * CSV and a table that fits print as table_render does. */
void table_render_fit(const struct table *t, enum table_format f, size_t max_width, int nkey, struct sbuf *out);

/* The narrowest a folded column gets (table_fold), its header's width or its longest word (up to
 * TABLE_FOLD_WORD) where that is wider. */
#define TABLE_FOLD_MIN 24
#define TABLE_FOLD_WORD 48
/* dst = src with its widest text columns word-wrapped so that the table's text fits `max_width`
 * columns where it can: the widest of the columns after the first `nkey` narrows (to the next
 * widest, then further) until the table fits or every one is at its floor (TABLE_FOLD_MIN, its
 * header, its longest word up to TABLE_FOLD_WORD); a cell wider than its column goes on over rows
 * of their own whose other cells are empty, broken at blanks (a word longer than the column is
 * cut). A key-value table whose values and units are prose (`show`)
 * reads down one table instead of in parts. Numbers never fold. dst is initialised here; free it
 * with table_free. */
void table_fold(const struct table *src, size_t max_width, int nkey, struct table *dst);

/* Appends `text` word-wrapped to lines of at most `width` bytes (a longer word gets its own line),
 * the first line after `lead`, the others indented by `indent` spaces; ends with a newline. */
void table_wrap(struct sbuf *out, const char *lead, const char *text, size_t width, size_t indent);

/* The text of a cell as printed ("" for empty). buf must hold 64 bytes. */
const char *table_cell_text(const struct table *t, size_t row, int col, char *buf);

#endif
