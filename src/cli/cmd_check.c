/* cmd_check.c - `llmroof check BASELINE.jsonl`: re-evaluate every row of a sweep and
 * compare. Exit 0: all agree within --rtol; 1: a drift (the diff is printed on stdout);
 * 2: a malformed baseline (the line is named). */
#include <math.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "fit/baseline.h"
#include "render/render_json.h"

enum { OPT_RTOL = 1 };

static int on_opt(struct cli *c, void *ctx, int id, const char *arg)
{
    if (id == OPT_RTOL)
        return cli_double(c, "rtol", arg, 0, 1, false, ctx);
    return 0;
}

/* One drifted field: a line of the text diff (after the row's description, once per row),
 * or an entry of the JSON "drifts" array (docs/json.md, llmroof.check/1). */
struct drift_out {
    struct sbuf *out;   /* text diff */
    struct rjdoc *json; /* JSON document, or NULL for text */
    long line;          /* baseline line */
    const struct sweep_row *row;
    int n;              /* fields of this row reported so far */
    struct sbuf *names; /* the error stream's summary, "line 3: ttft_s, tpot_s; ..." (summary_field) */
    long listed_rows;   /* rows named in it so far */
};

/* Rows the error stream's summary names one by one; beyond them it counts. */
enum { SUMMARY_ROWS = 5 };

/* The drifted field into the one-line summary on the error stream: the library and its Python binding
 * return the error stream as the error message, so a drift says which fields moved, not only "status 1"
 * (the diff is the output, which a caller may not read). */
static void summary_field(struct drift_out *d, const char *field)
{
    if (d->listed_rows > SUMMARY_ROWS)
        return;
    if (!d->n) {
        if (++d->listed_rows > SUMMARY_ROWS)
            return;
        sbuf_printf(d->names, "%sline %ld: %s", d->names->len ? "; " : "", d->line, field);
    } else {
        sbuf_printf(d->names, ", %s", field);
    }
}

static void describe(struct sbuf *o, long ln, const struct sweep_row *r);

/* A number of the diff: a whole number below 2^53 in full, any other to 10 significant digits. */
static void check_num(char *buf, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 9007199254740992.0)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%.10g", v);
}

static void drift_num(struct drift_out *d, const char *field, double a, double b)
{
    summary_field(d, field);
    if (d->json) {
        rjdoc_drift(d->json, d->line, d->row, field, true, a, b, NULL, NULL);
    } else {
        if (!d->n)
            describe(d->out, d->line, d->row);
        /* whole numbers (bytes, sequences) exactly, as the baseline stores them: 13476831232, not
         * 1.347683123e+10, which hid a one-byte change (a review) */
        char as[40], bs[40];
        check_num(as, sizeof as, a);
        check_num(bs, sizeof bs, b);
        if (a != 0)
            sbuf_printf(d->out, "  %s: baseline %s, now %s (%+.2f%%)\n", field, as, bs, 100 * (b - a) / fabs(a));
        else
            sbuf_printf(d->out, "  %s: baseline %s, now %s\n", field, as, bs);
    }
    d->n++;
}

static void drift_text(struct drift_out *d, const char *field, const char *a, const char *b, const char *why)
{
    summary_field(d, field);
    if (d->json) {
        rjdoc_drift(d->json, d->line, d->row, field, false, 0, 0, a, b);
    } else {
        if (!d->n)
            describe(d->out, d->line, d->row);
        sbuf_printf(d->out, "  %s: baseline %s, now %s%s%s\n", field, a, b, why[0] ? ": " : "", why);
    }
    d->n++;
}

static void describe(struct sbuf *o, long ln, const struct sweep_row *r)
{
    /* every input the row carries (a review: two rows differing only in state_dtype, or an --ep 8
     * row and a plain TP 8 one, read alike) */
    sbuf_printf(o, "line %ld: %s on %s, tp %d", ln, r->model, r->gpu, r->tp);
    if (r->pp > 1)
        sbuf_printf(o, ", pp %d", r->pp);
    if (r->ep > 1)
        sbuf_printf(o, ", ep %d", r->ep);
    if (r->dp_attn)
        sbuf_printf(o, ", dp-attention");
    if (r->moe_tp > 1)
        sbuf_printf(o, ", moe-tp %d", r->moe_tp);
    if (r->ep_imbalance > 0)
        sbuf_printf(o, ", ep-imbalance %g", r->ep_imbalance);
    if (r->two_batch_overlap)
        sbuf_printf(o, ", two-batch-overlap");
    sbuf_printf(o, ", batch %ld, prompt %ld, output %ld, %s/%s/%s", r->batch, r->prompt, r->output,
                dtype_name(r->dt.weight), dtype_name(r->dt.kv), dtype_name(r->dt.act));
    if (r->state_given)
        sbuf_printf(o, ", state %s", dtype_name(r->dt.state));
    if (r->engine[0])
        sbuf_printf(o, ", engine %s", r->engine);
    sbuf_printf(o, "\n");
}

/* The rows seen so far, by a 64-bit FNV-1a hash of their inputs (every field, exactly) with their
 * line: a baseline holds each case once, and a repeated one (two files concatenated, a sweep
 * appended twice) had passed as "32 rows agree" (a review of session 65). Open addressing, kept
 * under half full. */
struct seen_rows {
    uint64_t *hash;
    long *line;
    size_t cap, n;
};

static uint64_t fnv1a(const char *s, size_t len)
{
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ULL;
    }
    return h ? h : 1; /* 0 marks an empty slot */
}

/* The earlier line of a row hashing to h, 0 when it is new (then recorded), -1 out of memory. */
static long seen_add(struct seen_rows *s, uint64_t h, long ln)
{
    if (2 * (s->n + 1) > s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 1024;
        uint64_t *nh = calloc(cap, sizeof *nh);
        long *nl = calloc(cap, sizeof *nl);
        if (!nh || !nl) {
            free(nh);
            free(nl);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->hash[i]) {
                size_t j = (size_t)(s->hash[i] % cap);
                while (nh[j])
                    j = (j + 1) % cap;
                nh[j] = s->hash[i];
                nl[j] = s->line[i];
            }
        free(s->hash);
        free(s->line);
        s->hash = nh;
        s->line = nl;
        s->cap = cap;
    }
    size_t j = (size_t)(h % s->cap);
    while (s->hash[j]) {
        if (s->hash[j] == h)
            return s->line[j];
        j = (j + 1) % s->cap;
    }
    s->hash[j] = h;
    s->line[j] = ln;
    s->n++;
    return 0;
}

int cmd_check(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        { OPT_RTOL, "rtol", 0, "F", "tolerance of numeric fields, a share of the baseline value: |now - baseline| <= F * |baseline| (default 0.005)", false },
    };
    double rtol = 0.005;
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof check BASELINE.jsonl [--rtol F]";
    c->formats = (1u << TABLE_TEXT) | (1u << TABLE_JSON);
    c->positionals = "check takes one BASELINE.jsonl";
    int rc = cli_parse(c, argc, argv, opts, 1, on_opt, &rtol, pos, 1, &npos,
                       "Re-evaluates every row of a baseline written by 'llmroof sweep --format jsonl' and\n"
                       "compares each output. Exit 0 when all agree within the tolerance, 1 with a diff of every\n"
                       "drifted field (and an error message naming them), 2 when the baseline is malformed\n"
                       "(its line is named). --format json prints the same verdict and diff as one document\n"
                       "for CI (docs/json.md).");
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage_error(c, "expected one BASELINE.jsonl");
    if (!*pos[0]) /* it had read as the file '' ("llmroof: error: : cannot open file") */
        return cli_usage_error(c, "expected one BASELINE.jsonl, got an empty file name");
    if ((rc = cli_check_stdin(c, "BASELINE.jsonl", pos[0])))
        return rc;
    if ((rc = cli_catalog(c)))
        return rc;
    /* '-': the baseline on standard input ('llmroof sweep ... --format jsonl | llmroof check -'),
     * read line by line as a file is, and not closed here */
    const bool from_stdin = !strcmp(pos[0], "-");
    const char *bname = cli_input_name(pos[0]);
    FILE *f = NULL;
    if (from_stdin) {
        struct llmroof_err serr = { 0 };
        if (cli_stdin_claim(c, "BASELINE.jsonl", pos[0], &serr))
            return cli_fail(c, &serr);
        f = c->inf;
    } else {
        /* a baseline is read line by line (it may be large), so check here what
         * catalog_read_file checks for whole-file readers: a regular, readable file */
        struct stat st;
        if (stat(pos[0], &st) != 0) {
            fprintf(c->errf, "llmroof: error: %s: cannot open file: %s\n", pos[0], strerror(errno));
            return 2;
        }
        if (!S_ISREG(st.st_mode)) {
            fprintf(c->errf, "llmroof: error: %s: not a regular file\n", pos[0]);
            return 2;
        }
        if (!(f = fopen(pos[0], "rb"))) {
            fprintf(c->errf, "llmroof: error: %s: cannot open file: %s\n", pos[0], strerror(errno));
            return 2;
        }
    }
    /* lines are read into a fixed buffer: a huge line is an error, never a huge allocation */
    enum { MAX_LINE = 65536 };
    char *line = malloc(MAX_LINE + 2);
    if (!line) {
        if (!from_stdin)
            fclose(f);
        return 1;
    }
    size_t len;
    long ln = 0, rows = 0, valid_rows = 0, drifted_rows = 0, drifted_fields = 0;
    struct rjdoc *json = NULL;
    if (c->format == TABLE_JSON) {
        if (!(json = rjdoc_new("llmroof.check/1"))) {
            free(line);
            if (!from_stdin)
                fclose(f);
            return 1;
        }
        rjdoc_str(json, "baseline", bname);
        rjdoc_num(json, "rtol", rtol);
        rjdoc_drift(json, 0, NULL, NULL, false, 0, 0, NULL, NULL);
    }
    struct llmroof_err err = { 0 };
    struct sbuf drifted; /* the drifted fields for the error stream (summary_field) */
    sbuf_init(&drifted);
    long listed_rows = 0;
    struct seen_rows seen = { NULL, NULL, 0, 0 };
    rc = 0;
    int ch = 0;
    while (ch != EOF) {
        /* byte by byte, not fgets: a NUL inside a line must be seen, not end the line */
        len = 0;
        while ((ch = getc(f)) != EOF && ch != '\n' && len <= MAX_LINE)
            line[len++] = (char)ch;
        if (ch == EOF && len == 0)
            break;
        ln++;
        if (len > MAX_LINE) {
            fprintf(c->errf, "llmroof: error: %s:%ld: line longer than %d bytes\n", bname, ln, MAX_LINE);
            rc = 2;
            break;
        }
        const char *nul = memchr(line, '\0', len);
        if (nul) {
            fprintf(c->errf, "llmroof: error: %s:%ld:%ld: NUL byte inside the line\n", bname, ln, (long)(nul - line) + 1);
            rc = 2;
            break;
        }
        /* trailing CR and blanks: a line of spaces is as empty as an empty one (JSON Lines allows
         * whitespace around a value; a review found it refused as malformed) */
        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
            len--;
        line[len] = '\0';
        if (len == 0)
            continue;
        struct sweep_row base, now;
        if (baseline_parse_row(line, len, bname, ln, &base, &err)) {
            rc = cli_fail(c, &err);
            break;
        }
        const struct llmroof_model *m = catalog_find_model(&c->cat, base.model);
        const struct llmroof_gpu *g = catalog_find_gpu(&c->cat, base.gpu);
        if (!m || !g) {
            fprintf(c->errf, "llmroof: error: %s:%ld: unknown %s '%s'\n", bname, ln, m ? "GPU" : "model",
                    CLI_CLIP(m ? base.gpu : base.model));
            rc = 2;
            break;
        }
        /* the engine profile the row was evaluated with (sweep --engine), which must still exist */
        const struct llmroof_engine *en = NULL;
        if (base.engine[0] && !(en = catalog_find_engine(&c->cat, base.engine))) {
            fprintf(c->errf, "llmroof: error: %s:%ld: unknown engine '%s' (llmroof list engines)\n", bname, ln,
                    CLI_CLIP(base.engine));
            rc = 2;
            break;
        }
        {
            /* every input at full precision (describe's %g would make rows differing in the 7th
             * digit of ep_imbalance one case: a review) */
            struct sbuf key;
            sbuf_init(&key);
            sbuf_printf(&key, "%s|%s|%d|%d|%d|%d|%d|%.17g|%d|%ld|%ld|%ld|%d|%d|%d|%d|%d|%s", base.model, base.gpu, base.tp,
                        base.pp, base.ep, (int)base.dp_attn, base.moe_tp, base.ep_imbalance, (int)base.two_batch_overlap,
                        base.batch, base.prompt, base.output, (int)base.dt.weight, (int)base.dt.kv, (int)base.dt.act,
                        (int)base.state_given, (int)base.dt.state, base.engine);
            const long first = sbuf_failed(&key) ? -1 : seen_add(&seen, fnv1a(sbuf_str(&key), key.len), ln);
            sbuf_free(&key);
            if (first < 0) {
                rc = 1;
                break;
            }
            if (first > 0) {
                fprintf(c->errf, "llmroof: error: %s:%ld: the row repeats the inputs of line %ld (a baseline holds each "
                                 "case once: two baselines concatenated?)\n", bname, ln, first);
                rc = 2;
                break;
            }
        }
        rows++;
        valid_rows += base.valid;
        /* the row's whole layout: an absent ep_imbalance is the default (uniform routing's busiest
         * rank, 0), as sweep evaluated it */
        const struct llmroof_layout lay = { .tp = base.tp, .pp = base.pp, .ep = base.ep, .dp_attn = base.dp_attn,
                                            .ep_imbalance = base.ep_imbalance,
                                            .two_batch_overlap = base.two_batch_overlap, .moe_tp = base.moe_tp };
        sweep_eval_engine(m, g, base.tp, &lay, en, base.batch, base.prompt, base.output, &base.dt, &now);
        struct drift_out d = { &c->out, json, ln, &base, 0, &drifted, listed_rows };
        if (base.valid != now.valid) {
            drift_text(&d, "valid", base.valid ? "true" : "false", now.valid ? "true" : "false", now.valid ? "" : now.reason);
        } else if (!now.valid) {
            /* an invalid row's reason is its answer: "TP does not divide the heads" turning into
             * "the GPU lacks the dtype" is a drift, as a number's change is (a CI user's review) */
            if (strcmp(base.reason, now.reason) != 0)
                drift_text(&d, "reason", base.reason, now.reason, "");
        } else {
            for (int i = 0; i < SWEEP_NUM_FIELDS; i++) {
                double a = sweep_num_field(&base, i), b = sweep_num_field(&now, i);
                /* at the baseline's stored precision (10 digits): an unchanged model agrees
                 * exactly, so --rtol 0 passes on a baseline it just wrote. The tolerance is a share
                 * of the baseline's value, the measure the diff prints: |now - baseline| <=
                 * rtol * |baseline| (numpy.isclose with atol 0). It was a share of the larger of
                 * the two, under which a TPOT that nearly doubled (+92%) passed at --rtol 0.5 and
                 * any change at --rtol 1 (a review). */
                double bs = sweep_stored_value(b);
                if (fabs(a - bs) > rtol * fabs(a)) {
                    if (!strcmp(sweep_num_field_names[i], "fits")) /* a boolean, printed as one */
                        drift_text(&d, "fits", a != 0 ? "true" : "false", b != 0 ? "true" : "false", "");
                    else /* the stored value, which text and JSON both report (a review: JSON's
                            "now" had been the unrounded double the text did not show) */
                        drift_num(&d, sweep_num_field_names[i], a, bs);
                }
            }
            const char *names[2] = { "prefill_bound", "decode_bound" };
            const char *bb[2] = { base.prefill_bound, base.decode_bound }, *nb[2] = { now.prefill_bound, now.decode_bound };
            for (int k = 0; k < 2; k++)
                if (strcmp(bb[k], nb[k]) != 0)
                    drift_text(&d, names[k], bb[k], nb[k], "");
        }
        if (d.n) {
            drifted_rows++;
            drifted_fields += d.n;
        }
        listed_rows = d.listed_rows;
    }
    free(line);
    free(seen.hash);
    free(seen.line);
    if (!rc && ferror(f)) {
        fprintf(c->errf, "llmroof: error: %s: read error\n", bname);
        rc = 2;
    }
    if (!from_stdin)
        fclose(f);
    if (!rc && rows > 0 && drifted_rows) {
        /* "llmroof: error: base.jsonl: 2 of 5 rows drifted beyond rtol 0.005 (7 fields): line 1:
         * ttft_s, tpot_s; line 2: max_batch" - stdout keeps the whole diff */
        fprintf(c->errf, "llmroof: error: %s: %ld of %ld row%s drifted beyond rtol %g (%ld field%s): %s%s\n", bname,
                drifted_rows, rows, rows == 1 ? "" : "s", rtol, drifted_fields, drifted_fields == 1 ? "" : "s",
                sbuf_failed(&drifted) ? "" : sbuf_str(&drifted),
                drifted_rows > SUMMARY_ROWS ? "; ... (the diff on stdout lists every row)" : "");
    }
    sbuf_free(&drifted);
    /* a baseline of invalid rows alone guards no number (sweep refuses to write one: a review had
     * checked 24 rows of "--ep 2 needs a mixture-of-experts model" as agreeing) */
    if (!rc && rows > 0 && valid_rows == 0 && drifted_rows == 0) {
        rjdoc_free(json);
        sbuf_clear(&c->out);
        fprintf(c->errf, "llmroof: error: %s: every one of its %ld rows is invalid (valid false): it guards no "
                         "number; sweep a combination that can be estimated\n", bname, rows);
        return 2;
    }
    if (rc || rows == 0) {
        rjdoc_free(json);
        if (!rc)
            fprintf(c->errf, "llmroof: error: %s: no rows\n", bname);
        return rc ? rc : 2;
    }
    if (json) {
        rjdoc_num(json, "rows", (double)rows);
        rjdoc_num(json, "drifted_rows", (double)drifted_rows);
        rjdoc_num(json, "drifted_fields", (double)drifted_fields);
        rjdoc_bool(json, "agree", drifted_rows == 0);
        char *j = rjdoc_finish(json);
        if (!j)
            return 1;
        sbuf_append(&c->out, j);
        free(j);
        c->out_on_failure = drifted_rows > 0;
        return drifted_rows ? 1 : 0;
    }
    if (drifted_rows) {
        sbuf_printf(&c->out, "%ld of %ld row%s drifted (%ld field%s) beyond rtol %g\n", drifted_rows, rows,
                    rows == 1 ? "" : "s", drifted_fields, drifted_fields == 1 ? "" : "s", rtol);
        c->out_on_failure = true;
        return 1;
    }
    sbuf_printf(&c->out, "%ld row%s agree%s within rtol %g\n", rows, rows == 1 ? "" : "s", rows == 1 ? "s" : "", rtol);
    return 0;
}
