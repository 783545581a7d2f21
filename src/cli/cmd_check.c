/* cmd_check.c - `llmroof check BASELINE.jsonl`: re-evaluate every row of a sweep and
 * compare. Exit 0: all agree within --rtol; 1: a drift (the diff is printed on stdout);
 * 2: a malformed baseline (the line is named). */
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "llmroof/baseline.h"

enum { OPT_RTOL = 1 };

static int on_opt(struct cli *c, void *ctx, int id, const char *arg)
{
    if (id == OPT_RTOL)
        return cli_double(c, "rtol", arg, 0, 1, false, ctx);
    return 0;
}

static void describe(struct sbuf *o, long ln, const struct sweep_row *r)
{
    sbuf_printf(o, "line %ld: %s on %s, tp %d, batch %ld, prompt %ld, output %ld, %s/%s/%s\n", ln, r->model, r->gpu,
                r->tp, r->batch, r->prompt, r->output, dtype_name(r->dt.weight), dtype_name(r->dt.kv),
                dtype_name(r->dt.act));
}

int cmd_check(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        { OPT_RTOL, "rtol", 0, "F", "relative tolerance of numeric fields (default 0.005)", false },
    };
    double rtol = 0.005;
    char *pos[2];
    int npos = 0;
    c->usage = "llmroof check BASELINE.jsonl [--rtol F]";
    c->formats = 1u << TABLE_TEXT;
    int rc = cli_parse(c, argc, argv, opts, 1, on_opt, &rtol, pos, 2, &npos,
                       "Re-evaluates every row of a baseline written by 'llmroof sweep --format jsonl' and\n"
                       "compares each output. Exit 0 when all agree within the tolerance, 1 with a diff of every\n"
                       "drifted field, 2 when the baseline is malformed (its line is named).");
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage_error(c, "expected one BASELINE.jsonl");
    if ((rc = cli_catalog(c)))
        return rc;
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
    FILE *f = fopen(pos[0], "rb");
    if (!f) {
        fprintf(c->errf, "llmroof: error: %s: cannot open file: %s\n", pos[0], strerror(errno));
        return 2;
    }
    /* lines are read into a fixed buffer: a huge line is an error, never a huge allocation */
    enum { MAX_LINE = 65536 };
    char *line = malloc(MAX_LINE + 2);
    if (!line) {
        fclose(f);
        return 1;
    }
    size_t len;
    long ln = 0, rows = 0, drifted_rows = 0, drifted_fields = 0;
    struct llmroof_err err = { 0 };
    rc = 0;
    while (fgets(line, MAX_LINE + 2, f)) {
        ln++;
        len = strlen(line);
        if (len > MAX_LINE && line[len - 1] != '\n') {
            fprintf(c->errf, "llmroof: error: %s:%ld: line longer than %d bytes\n", pos[0], ln, MAX_LINE);
            rc = 2;
            break;
        }
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if (len == 0)
            continue;
        struct sweep_row base, now;
        if (baseline_parse_row(line, len, pos[0], ln, &base, &err)) {
            rc = cli_fail(c, &err);
            break;
        }
        const struct llmroof_model *m = catalog_find_model(&c->cat, base.model);
        const struct llmroof_gpu *g = catalog_find_gpu(&c->cat, base.gpu);
        if (!m || !g) {
            fprintf(c->errf, "llmroof: error: %s:%ld: unknown %s '%s'\n", pos[0], ln, m ? "GPU" : "model",
                    m ? base.gpu : base.model);
            rc = 2;
            break;
        }
        rows++;
        sweep_eval(m, g, base.tp, base.batch, base.prompt, base.output, &base.dt, &now);
        int n = 0;
        if (base.valid != now.valid) {
            describe(&c->out, ln, &base);
            sbuf_printf(&c->out, "  valid: baseline %s, now %s%s%s\n", base.valid ? "true" : "false",
                        now.valid ? "true" : "false", now.valid ? "" : ": ", now.reason);
            n++;
        } else if (now.valid) {
            for (int i = 0; i < SWEEP_NUM_FIELDS; i++) {
                double a = sweep_num_field(&base, i), b = sweep_num_field(&now, i);
                double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
                if (fabs(a - b) <= rtol * scale)
                    continue;
                if (!n++)
                    describe(&c->out, ln, &base);
                if (a != 0)
                    sbuf_printf(&c->out, "  %s: baseline %.10g, now %.10g (%+.2f%%)\n", sweep_num_field_names[i], a, b,
                                100 * (b - a) / fabs(a));
                else
                    sbuf_printf(&c->out, "  %s: baseline %.10g, now %.10g\n", sweep_num_field_names[i], a, b);
            }
            const char *names[2] = { "prefill_bound", "decode_bound" };
            enum llmroof_bound bb[2] = { base.prefill_bound, base.decode_bound }, nb[2] = { now.prefill_bound, now.decode_bound };
            for (int k = 0; k < 2; k++)
                if (bb[k] != nb[k]) {
                    if (!n++)
                        describe(&c->out, ln, &base);
                    sbuf_printf(&c->out, "  %s: baseline %s, now %s\n", names[k], bound_name(bb[k]), bound_name(nb[k]));
                }
        }
        if (n) {
            drifted_rows++;
            drifted_fields += n;
        }
    }
    free(line);
    fclose(f);
    if (rc)
        return rc;
    if (rows == 0) {
        fprintf(c->errf, "llmroof: error: %s: no rows\n", pos[0]);
        return 2;
    }
    if (drifted_rows) {
        sbuf_printf(&c->out, "%ld of %ld rows drifted (%ld fields) beyond rtol %g\n", drifted_rows, rows,
                    drifted_fields, rtol);
        c->out_on_failure = true;
        return 1;
    }
    sbuf_printf(&c->out, "%ld rows agree within rtol %g\n", rows, rtol);
    return 0;
}
