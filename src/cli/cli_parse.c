/* cli_parse.c - the CLI's option handling: the common options every command takes, a
 * command's --help generated from its option table, parsing against that table (with the
 * re-entrant scanner of optscan.h), and the usage-error message. */
#include "cli/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/optscan.h"

enum { COMMON_FORMAT = 9000, COMMON_TABLE, COMMON_GPUS_FILE, COMMON_MODELS_FILE, COMMON_HELP };

static const struct cli_opt common_opts[] = {
    { COMMON_FORMAT, "format", 0, "FMT", "output format (help lists the command's)", false },
    { COMMON_TABLE, "table", 0, "NAME", "with --format csv: print table NAME instead of the first", false },
    { COMMON_GPUS_FILE, "gpus-file", 0, "FILE", "add GPU entries from FILE (replaces same ids; repeatable)", true },
    { COMMON_MODELS_FILE, "models-file", 0, "FILE", "add model entries from FILE (replaces same ids; repeatable)", true },
    { COMMON_HELP, "help", 'h', NULL, "show this help", false },
};
#define NCOMMON ((int)(sizeof common_opts / sizeof common_opts[0]))
#define MAX_OPTS 96 /* simulate's own options and the shared ones number 64 and more */

/* A C1 control (U+0080-U+009F) in UTF-8 at p: 0xC2 then 0x80-0x9F. U+009B is CSI, which a
 * terminal may take as ESC [ does, so C1 controls are escaped as the C0 ones are. */
static bool c1_at(const unsigned char *p)
{
    return p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F;
}

/* msg with its control bytes as \\xHH and C1 controls as \\u00HH (see cli_clip): a value no
 * message clipped still cannot drive the terminal. */
static void put_escaped(FILE *f, const char *msg)
{
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\x%02x", *p);
        else if (c1_at(p))
            fprintf(f, "\\u%04x", *++p);
        else
            fputc(*p, f);
}

int cli_usage_error(struct cli *c, const char *fmt, ...)
{
    va_list ap;
    char small[512], *msg = small;
    fputs("llmroof: error: ", c->errf);
    va_start(ap, fmt);
    int len = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (len >= (int)sizeof small && (msg = malloc((size_t)len + 1)) != NULL) {
        va_start(ap, fmt);
        vsnprintf(msg, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    put_escaped(c->errf, msg ? msg : small);
    if (msg != small)
        free(msg);
    fputc('\n', c->errf);
    if (c->cmd)
        fprintf(c->errf, "try 'llmroof %s --help'\n", c->cmd);
    else if (!(c->flags & CLI_REQUEST)) /* (a library context's catalog: no command line to help) */
        fputs("try 'llmroof --help'\n", c->errf);
    return 2;
}

const char *cli_clip(const char *s, char *buf)
{
    size_t n = strlen(s), k = n;
    if (n > CLI_CLIP_BYTES + 3) { /* clipping makes it shorter */
        k = CLI_CLIP_BYTES;
        while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
            k--;
    }
    const unsigned char *u = (const unsigned char *)s;
    bool ctl = false;
    for (size_t i = 0; i < k && !ctl; i++)
        ctl = u[i] < 0x20 || u[i] == 0x7f || (i + 1 < k && c1_at(u + i));
    if (k == n && !ctl)
        return s;
    /* control bytes as \\xHH, C1 controls as \\u00HH (6 characters for 2 bytes, within the
     * buffer's 4 per byte): the bytes the catalog refuses in names (json_read.c) never reach
     * the terminal, where ESC [ (or CSI, U+009B) would start an escape sequence. k never splits
     * a UTF-8 sequence, so a C1 pair is whole */
    char *o = buf;
    for (size_t i = 0; i < k; i++) {
        unsigned char b = u[i];
        if (b < 0x20 || b == 0x7f)
            o += snprintf(o, 5, "\\x%02x", b);
        else if (i + 1 < k && c1_at(u + i))
            o += snprintf(o, 7, "\\u%04x", u[++i]);
        else
            *o++ = (char)b;
    }
    memcpy(o, k < n ? "..." : "", k < n ? 4 : 1);
    return buf;
}

int cli_fail(struct cli *c, const struct llmroof_err *err)
{
    (void)c;
    fputs("llmroof: error: ", c->errf);
    put_escaped(c->errf, err->msg);
    fputc('\n', c->errf);
    return err->code ? err->code : 1;
}

/* "output format: csv or jsonl (default csv)" from the formats the command renders. */
static void format_list(const struct cli *c, char *buf, size_t n)
{
    unsigned allowed = c->formats ? c->formats : CLI_FORMATS_DEFAULT;
    int k = 0, total = 0;
    for (int f = 0; f <= TABLE_JSONL; f++)
        total += (allowed >> f) & 1u;
    size_t used = (size_t)snprintf(buf, n, "output format:");
    for (int f = 0; f <= TABLE_JSONL && used < n; f++)
        if (allowed & (1u << f)) {
            k++;
            used += (size_t)snprintf(buf + used, n - used, "%s %s", k == 1 ? "" : k == total ? " or" : ",",
                                     table_format_name((enum table_format)f));
        }
    if (used < n)
        snprintf(buf + used, n - used, " (default %s)", table_format_name(c->format));
}

static void print_help(struct cli *c, const struct cli_opt *opts, int nopts, const char *description)
{
    struct sbuf *o = &c->out;
    sbuf_printf(o, "usage: %s\n\n", c->usage);
    if (description)
        sbuf_printf(o, "%s\n\n", description);
    sbuf_append(o, "options:\n");
    for (int pass = 0; pass < 2; pass++) {
        const struct cli_opt *list = pass ? common_opts : opts;
        int n = pass ? NCOMMON : nopts;
        for (int i = 0; i < n; i++) {
            char lhs[64], help[256];
            snprintf(help, sizeof help, "%s", list[i].help);
            if (pass && list[i].id == COMMON_TABLE) {
                if (!c->tables)
                    continue;
                size_t used = (size_t)snprintf(help, sizeof help, "with --format csv: print table NAME instead of the first:");
                for (const char *const *t = c->tables; *t && used < sizeof help; t++)
                    used += (size_t)snprintf(help + used, sizeof help - used, "%s %s", t == c->tables ? "" : ",", *t);
            } else if (pass && list[i].id == COMMON_FORMAT) {
                format_list(c, help, sizeof help);
            }
            if (list[i].short_name)
                snprintf(lhs, sizeof lhs, "-%c, --%s%s%s", list[i].short_name, list[i].name,
                         list[i].arg ? " " : "", list[i].arg ? list[i].arg : "");
            else
                snprintf(lhs, sizeof lhs, "    --%s%s%s", list[i].name, list[i].arg ? " " : "",
                         list[i].arg ? list[i].arg : "");
            sbuf_printf(o, "  %-28s %s\n", lhs, help);
        }
    }
}

int cli_ambiguous_option(struct cli *c, const struct optscan *scan, const char *text)
{
    int idx[8];
    int n = optscan_candidates(scan, text, idx, 8);
    char list[320] = "";
    size_t used = 0;
    for (int i = 0; i < n && i < 8 && used < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s'--%s'", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                         scan->defs[idx[i]].name);
        used += w > 0 ? (size_t)w : 0;
    }
    if (n > 8 && used < sizeof list)
        snprintf(list + used, sizeof list - used, " or %d more", n - 8);
    const char *eq = strchr(text, '='); /* "--mod=x": the name is "--mod" */
    size_t len = eq ? (size_t)(eq - text) : strlen(text);
    return cli_usage_error(c, "ambiguous option '%.*s': it could be %s", len > 64 ? 64 : (int)len, text, list);
}

int cli_no_value(struct cli *c, const struct optscan_hit *h)
{
    /* "-m -g a100": -g is an option, not the model's name (h->value, optscan.h) */
    if (h->value)
        return cli_usage_error(c, "option '%s' needs a value; '%s' after it is an option", CLI_CLIP(h->text),
                               CLI_CLIP(h->value));
    return cli_usage_error(c, "option '%s' needs a value", CLI_CLIP(h->text));
}

/* The usage error of a positional argument past those the command takes, with what it takes
 * (c->positionals) where it takes any. */
static int extra_argument(struct cli *c, const char *arg)
{
    if (c->positionals)
        return cli_usage_error(c, "unexpected argument '%s' (%s)", CLI_CLIP(arg), c->positionals);
    return cli_usage_error(c, "unexpected argument '%s'", CLI_CLIP(arg));
}

#define MAX_INPUTS 64 /* option values and arguments a command may read (more are not checked) */

int cli_parse(struct cli *c, int argc, char **argv, const struct cli_opt *opts, int nopts,
              cli_opt_fn fn, void *ctx, char **pos, int maxpos, int *npos, const char *description)
{
    struct optscan_def defs[MAX_OPTS];
    const struct cli_opt *all[MAX_OPTS];
    int seen[MAX_OPTS] = { 0 };
    int n = 0;

    if (nopts + NCOMMON > MAX_OPTS) { /* a table that outgrew the scanner would lose --help silently */
        fprintf(c->errf, "llmroof: error: internal: %d options, at most %d\n", nopts + NCOMMON, MAX_OPTS);
        return 1;
    }
    for (int pass = 0; pass < 2; pass++) {
        const struct cli_opt *list = pass ? common_opts : opts;
        int cnt = pass ? NCOMMON : nopts;
        for (int i = 0; i < cnt && n < MAX_OPTS; i++, n++) {
            all[n] = &list[i];
            defs[n] = (struct optscan_def){ list[i].name, list[i].short_name, list[i].arg != NULL };
        }
    }

    const char *extra = NULL; /* the first positional argument beyond maxpos */
    /* the option values and arguments that may name files the command reads: no output may be one
     * of them (cli_check_outputs_apart) */
    const char *in_vals[MAX_INPUTS], *in_opts[MAX_INPUTS];
    int nin = 0;
    struct optscan scan;
    optscan_init(&scan, argc, argv, defs, n, false);
    scan.attached_values = (c->flags & CLI_REQUEST) != 0;
    scan.exact_names = (c->flags & CLI_REQUEST) != 0;
    *npos = 0;
    for (;;) {
        struct optscan_hit h = optscan_next(&scan);
        if (h.kind == OPTSCAN_END)
            break;
        if (h.kind == OPTSCAN_POSITIONAL) {
            if (*npos < maxpos)
                pos[(*npos)++] = (char *)h.value;
            else if (!extra)
                extra = h.value; /* reported after the options, as before */
            continue;
        }
        if (h.kind == OPTSCAN_UNKNOWN) {
            if (h.short_name) {
                /* a letter another command takes for an option this one spells otherwise: plan's
                 * -g is estimate's --gpu, and plan's list is --gpus (a review: "unknown option
                 * '-g'" alone) */
                static const struct {
                    char letter;
                    const char *stem;
                } shared[] = { { 'g', "gpu" }, { 't', "tp" }, { 'm', "model" }, { 'b', "batch" }, { 'e', "engine" },
                               { 'w', "workload" }, { 'r', "rate" }, { 'n', "requests" }, { 'u', "users" },
                               { 'c', "concurrency" } };
                for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
                    if (shared[i].letter != h.short_name)
                        continue;
                    for (int d = 0; d < scan.ndefs; d++)
                        if (scan.defs[d].name && !strncmp(scan.defs[d].name, shared[i].stem, strlen(shared[i].stem)) &&
                            (scan.defs[d].name[strlen(shared[i].stem)] == '\0' ||
                             scan.defs[d].name[strlen(shared[i].stem)] == 's'))
                            return cli_usage_error(c, "unknown option '-%c' (did you mean --%s?)", h.short_name,
                                                   scan.defs[d].name);
                }
                return cli_usage_error(c, "unknown option '-%c'", h.short_name);
            }
            /* a request's field, named as the request names it: 'bogus', not '--bogus=1' (a review) */
            if (c->flags & CLI_REQUEST && !strncmp(h.text, "--", 2)) {
                const char *k = h.text + 2, *eq = strchr(k, '=');
                const int klen = eq ? (int)(eq - k) : (int)strlen(k);
                /* the help once: cli_usage_error's "try 'llmroof CMD --help'" line follows (a
                 * "; see llmroof CMD --help" here had said it twice in every such answer) */
                /* in the request's spelling: the API read its underscores as dashes ("ttft_slo"
                 * had come back as 'ttft-slo'); a key written with dashes reads as its canonical
                 * underscored name */
                char name[65];
                const int nlen = klen < 64 ? klen : 64;
                for (int i = 0; i < nlen; i++)
                    name[i] = k[i] == '-' ? '_' : k[i];
                name[nlen] = '\0';
                return cli_usage_error(c, "unknown field '%s' (not an option of this command)", name);
            }
            return cli_usage_error(c, "unknown option '%s'", CLI_CLIP(h.text));
        }
        if (h.kind == OPTSCAN_AMBIGUOUS)
            return cli_ambiguous_option(c, &scan, h.text);
        if (h.kind == OPTSCAN_NO_VALUE && (c->flags & CLI_REQUEST)) /* "svg": true */
            return cli_usage_error(c, "request: field '%s' takes a value (%s), not true", defs[h.idx].name,
                                   all[h.idx]->arg);
        if (h.kind == OPTSCAN_NO_VALUE)
            return cli_no_value(c, &h);
        if (h.kind == OPTSCAN_FLAG_VALUE && (c->flags & CLI_REQUEST)) /* "dp_attention": "yes" */
            return cli_usage_error(c, "request: field '%s' is a flag: expected true or false, got '%s'",
                                   defs[h.idx].name, CLI_CLIP(h.value));
        if (h.kind == OPTSCAN_FLAG_VALUE)
            return cli_usage_error(c, "option '--%s' takes no value (got '%s')", defs[h.idx].name, CLI_CLIP(h.text));
        const struct cli_opt *o = all[h.idx];
        const char *value = h.value;
        if (seen[h.idx]++ && !o->repeatable)
            return cli_usage_error(c, "option '--%s' given more than once", o->name);
        bool is_output = false;
        for (const char *const *out = c->outputs; out && *out; out++) { /* checked now, before the work */
            size_t len = strlen(o->name);
            if (strncmp(*out, o->name, len) != 0 || ((*out)[len] != '\0' && strcmp(*out + len, "/") != 0))
                continue;
            is_output = true;
            int rc = cli_check_output(c, o->name, value, (*out)[len] ? CLI_OUT_DIR : CLI_OUT_FILE);
            if (rc)
                return rc;
        }
        if (!is_output && o->arg && value && nin < MAX_INPUTS) { /* what it may read, for the check below */
            in_vals[nin] = value;
            in_opts[nin++] = o->name;
        }
        switch (o->id) {
        case COMMON_HELP:
            /* help wins over the options after it (they are not read), not over an argument the
             * command does not take: "estimate --help extra" had printed the help and exited 0 */
            for (struct optscan_hit r = optscan_next(&scan); r.kind != OPTSCAN_END; r = optscan_next(&scan))
                if (r.kind == OPTSCAN_POSITIONAL && !extra) {
                    if (*npos < maxpos)
                        pos[(*npos)++] = (char *)r.value;
                    else
                        extra = r.value;
                }
            if (extra)
                return extra_argument(c, extra);
            print_help(c, opts, nopts, description);
            return CLI_HELP;
        case COMMON_FORMAT:
            /* one rule at both levels: --format once, before or after the command */
            if (c->format_set)
                return cli_usage_error(c, "option '--format' given more than once");
            if (!table_parse_format(value, &c->format)) {
                /* a command's own formats; before the command, every format some command takes */
                unsigned allowed = !c->cmd ? ~0u : c->formats ? c->formats : CLI_FORMATS_DEFAULT;
                char list[80] = "";
                int total = 0, k = 0;
                for (int f = 0; f <= TABLE_JSONL; f++)
                    total += (allowed >> f) & 1u;
                for (int f = 0; f <= TABLE_JSONL; f++)
                    if (allowed & (1u << f)) {
                        size_t used = strlen(list);
                        k++;
                        snprintf(list + used, sizeof list - used, "%s%s", k == 1 ? "" : k == total ? " or " : ", ",
                                 table_format_name((enum table_format)f));
                    }
                return cli_usage_error(c, "option '--format': unknown format '%s' (expected %s)", CLI_CLIP(value), list);
            }
            c->format_set = true;
            break;
        case COMMON_TABLE:
            c->sel.pick = value;
            break;
        case COMMON_GPUS_FILE:
        case COMMON_MODELS_FILE: {
            bool g = o->id == COMMON_GPUS_FILE;
            int *cnt = g ? &c->n_gpus_files : &c->n_models_files;
            if (*cnt >= CLI_MAX_FILES)
                return cli_usage_error(c, "option '--%s' given more than %d times", o->name, CLI_MAX_FILES);
            int rc = cli_check_input(c, o->name, value);
            if (rc)
                return rc;
            (g ? c->gpus_files : c->models_files)[(*cnt)++] = value;
            break;
        }
        default: {
            int rc = fn ? fn(c, ctx, o->id, value) : 0;
            if (rc)
                return rc;
        }
        }
    }
    unsigned allowed = c->formats ? c->formats : CLI_FORMATS_DEFAULT;
    if (!(allowed & (1u << c->format))) {
        char list[64] = "";
        for (int f = 0; f <= TABLE_JSONL; f++)
            if (allowed & (1u << f)) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", table_format_name((enum table_format)f));
            }
        return cli_usage_error(c, "option '--format': %s is not available for '%s' (use %s)",
                               table_format_name(c->format), c->cmd ? c->cmd : "?", list);
    }
    if (c->sel.pick) {
        if (!c->tables)
            return cli_usage_error(c, "option '--table': '%s' prints one table", c->cmd ? c->cmd : "?");
        if (c->format != TABLE_CSV)
            return cli_usage_error(c, "option '--table' picks one table of CSV output: use it with --format csv");
        bool known = false;
        char list[256] = "";
        for (const char *const *t = c->tables; *t; t++) {
            known |= strcmp(*t, c->sel.pick) == 0;
            size_t used = strlen(list);
            snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *t);
        }
        if (!known)
            return cli_usage_error(c, "option '--table': unknown table '%s' (expected %s)", CLI_CLIP(c->sel.pick), list);
    }
    if (extra)
        return extra_argument(c, extra);
    for (int i = 0; i < *npos && nin < MAX_INPUTS; i++) {
        in_vals[nin] = pos[i];
        in_opts[nin++] = NULL;
    }
    for (int i = 0; i < c->n_gpus_files && nin < MAX_INPUTS; i++) {
        in_vals[nin] = c->gpus_files[i];
        in_opts[nin++] = "gpus-file";
    }
    for (int i = 0; i < c->n_models_files && nin < MAX_INPUTS; i++) {
        in_vals[nin] = c->models_files[i];
        in_opts[nin++] = "models-file";
    }
    return cli_check_outputs_apart(c, in_vals, in_opts, nin);
}
