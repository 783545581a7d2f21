/* cli.c - option parsing, catalog loading, lookups and value parsing for the CLI. */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"
#include "render/render_json.h"

enum { COMMON_FORMAT = 9000, COMMON_TABLE, COMMON_GPUS_FILE, COMMON_MODELS_FILE, COMMON_HELP };

static const struct cli_opt common_opts[] = {
    { COMMON_FORMAT, "format", 0, "FMT", "output format (help lists the command's)", false },
    { COMMON_TABLE, "table", 0, "NAME", "with --format csv: print table NAME instead of the first", false },
    { COMMON_GPUS_FILE, "gpus-file", 0, "FILE", "add GPU entries from FILE (replaces same ids; repeatable)", true },
    { COMMON_MODELS_FILE, "models-file", 0, "FILE", "add model entries from FILE (replaces same ids; repeatable)", true },
    { COMMON_HELP, "help", 'h', NULL, "show this help", false },
};
#define NCOMMON ((int)(sizeof common_opts / sizeof common_opts[0]))
#define MAX_OPTS 64

int cli_usage_error(struct cli *c, const char *fmt, ...)
{
    va_list ap;
    fputs("llmroof: error: ", c->errf);
    va_start(ap, fmt);
    vfprintf(c->errf, fmt, ap);
    va_end(ap);
    fputc('\n', c->errf);
    if (c->cmd)
        fprintf(c->errf, "try 'llmroof %s --help'\n", c->cmd);
    else
        fputs("try 'llmroof --help'\n", c->errf);
    return 2;
}

int cli_fail(struct cli *c, const struct llmroof_err *err)
{
    (void)c;
    fprintf(c->errf, "llmroof: error: %s\n", err->msg);
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

int cli_parse(struct cli *c, int argc, char **argv, const struct cli_opt *opts, int nopts,
              cli_opt_fn fn, void *ctx, char **pos, int maxpos, int *npos, const char *description)
{
    struct option lo[MAX_OPTS + 1];
    const struct cli_opt *all[MAX_OPTS];
    int seen[MAX_OPTS] = { 0 };
    char shorts[3 * MAX_OPTS + 2];
    int n = 0, sn = 0;

    shorts[sn++] = ':'; /* report missing values as ':' */
    for (int pass = 0; pass < 2; pass++) {
        const struct cli_opt *list = pass ? common_opts : opts;
        int cnt = pass ? NCOMMON : nopts;
        for (int i = 0; i < cnt && n < MAX_OPTS; i++, n++) {
            all[n] = &list[i];
            lo[n].name = list[i].name;
            lo[n].has_arg = list[i].arg ? required_argument : no_argument;
            lo[n].flag = NULL;
            lo[n].val = 256 + n;
            if (list[i].short_name) {
                shorts[sn++] = (char)list[i].short_name;
                if (list[i].arg)
                    shorts[sn++] = ':';
            }
        }
    }
    shorts[sn] = '\0';
    memset(&lo[n], 0, sizeof lo[n]);

    optind = 0; /* glibc: full re-initialisation */
    opterr = 0;
    *npos = 0;
    for (;;) {
        int li = -1;
        int ch = getopt_long(argc, argv, shorts, lo, &li);
        if (ch == -1)
            break;
        if (ch == '?') {
            if (optopt && optopt < 256)
                return cli_usage_error(c, "unknown option '-%c'", optopt);
            return cli_usage_error(c, "unknown option '%s'", argv[optind - 1]);
        }
        if (ch == ':') {
            const char *name = argv[optind - 1];
            return cli_usage_error(c, "option '%s' needs a value", name);
        }
        int idx = -1;
        if (ch >= 256)
            idx = ch - 256;
        else
            for (int i = 0; i < n; i++)
                if (all[i]->short_name == ch)
                    idx = i;
        if (idx < 0)
            return cli_usage_error(c, "unknown option '-%c'", ch);
        const struct cli_opt *o = all[idx];
        if (seen[idx]++ && !o->repeatable)
            return cli_usage_error(c, "option '--%s' given more than once", o->name);
        switch (o->id) {
        case COMMON_HELP:
            print_help(c, opts, nopts, description);
            return CLI_HELP;
        case COMMON_FORMAT:
            /* one rule at both levels: --format once, before or after the command */
            if (c->format_set)
                return cli_usage_error(c, "option '--format' given more than once");
            if (!table_parse_format(optarg, &c->format))
                return cli_usage_error(c, "option '--format': unknown format '%s' (expected table, md, csv, json, html or jsonl)",
                                       optarg);
            c->format_set = true;
            break;
        case COMMON_TABLE:
            c->sel.pick = optarg;
            break;
        case COMMON_GPUS_FILE:
        case COMMON_MODELS_FILE: {
            bool g = o->id == COMMON_GPUS_FILE;
            int *cnt = g ? &c->n_gpus_files : &c->n_models_files;
            if (*cnt >= CLI_MAX_FILES)
                return cli_usage_error(c, "option '--%s' given more than %d times", o->name, CLI_MAX_FILES);
            (g ? c->gpus_files : c->models_files)[(*cnt)++] = optarg;
            break;
        }
        default: {
            int rc = fn ? fn(c, ctx, o->id, optarg) : 0;
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
            return cli_usage_error(c, "option '--table': unknown table '%s' (expected %s)", c->sel.pick, list);
    }
    for (int i = optind; i < argc; i++) {
        if (*npos >= maxpos)
            return cli_usage_error(c, "unexpected argument '%s'", argv[i]);
        pos[(*npos)++] = argv[i];
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Catalog                                                                  */
/* ------------------------------------------------------------------------ */

static bool is_dir_with_catalog(const char *dir)
{
    char p[PATH_MAX];
    struct stat st;
    if (snprintf(p, sizeof p, "%s/gpus.json", dir) >= (int)sizeof p || stat(p, &st) != 0)
        return false;
    if (snprintf(p, sizeof p, "%s/models.json", dir) >= (int)sizeof p || stat(p, &st) != 0)
        return false;
    return true;
}

/* The catalog directory: $LLMROOF_DATA, else <exe>/../share/llmroof (installed), else the
 * source tree's data/ (build tree), else the configured install prefix. */
static int find_data_dir(struct cli *c, char *out, size_t n)
{
    if (c->data_dir_arg) { /* the library caller's choice (llmroof_ctx_new) comes first */
        if (!is_dir_with_catalog(c->data_dir_arg))
            return cli_usage_error(c, "data directory '%s' does not contain gpus.json and models.json", c->data_dir_arg);
        snprintf(out, n, "%s", c->data_dir_arg);
        return 0;
    }
    const char *env = getenv("LLMROOF_DATA");
    if (env && *env) {
        if (!is_dir_with_catalog(env))
            return cli_usage_error(c, "LLMROOF_DATA='%s' does not contain gpus.json and models.json", env);
        snprintf(out, n, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char cand[PATH_MAX + 32];
            snprintf(cand, sizeof cand, "%s/../share/llmroof", exe);
            if (strlen(cand) < n && is_dir_with_catalog(cand)) {
                memcpy(out, cand, strlen(cand) + 1);
                return 0;
            }
        }
    }
    if (is_dir_with_catalog(LLMROOF_SOURCE_DATA_DIR)) {
        snprintf(out, n, "%s", LLMROOF_SOURCE_DATA_DIR);
        return 0;
    }
    if (is_dir_with_catalog(LLMROOF_INSTALL_DATA_DIR)) {
        snprintf(out, n, "%s", LLMROOF_INSTALL_DATA_DIR);
        return 0;
    }
    fprintf(c->errf, "llmroof: error: cannot find the catalog (gpus.json, models.json); set LLMROOF_DATA=DIR\n");
    return 1;
}

int cli_catalog(struct cli *c)
{
    if (c->cat_loaded)
        return 0;
    if (c->shared_cat && c->n_gpus_files == 0 && c->n_models_files == 0) {
        /* borrowed from the library context (src/api): read-only, never freed here */
        c->cat = *c->shared_cat;
        c->cat_borrowed = true;
        snprintf(c->data_dir, sizeof c->data_dir, "%s", c->data_dir_arg ? c->data_dir_arg : "");
        c->cat_loaded = true;
        return 0;
    }
    char dir[PATH_MAX], path[PATH_MAX + 16];
    int rc = find_data_dir(c, dir, sizeof dir);
    if (rc)
        return rc;
    struct llmroof_err err = { 0 };
    catalog_init(&c->cat);
    snprintf(c->data_dir, sizeof c->data_dir, "%s", dir);
    snprintf(path, sizeof path, "%s/gpus.json", dir);
    if ((rc = catalog_add_gpus_file(&c->cat, path, false, &err)))
        return cli_fail(c, &err);
    snprintf(path, sizeof path, "%s/models.json", dir);
    if ((rc = catalog_add_models_file(&c->cat, path, false, &err)))
        return cli_fail(c, &err);
    snprintf(path, sizeof path, "%s/engines.json", dir);
    struct stat st;
    if (stat(path, &st) == 0 && (rc = catalog_add_engines_file(&c->cat, path, false, &err)))
        return cli_fail(c, &err);
    for (int i = 0; i < c->n_gpus_files; i++)
        if ((rc = catalog_add_gpus_file(&c->cat, c->gpus_files[i], true, &err)))
            return cli_fail(c, &err);
    for (int i = 0; i < c->n_models_files; i++)
        if ((rc = catalog_add_models_file(&c->cat, c->models_files[i], true, &err)))
            return cli_fail(c, &err);
    c->cat_loaded = true;
    return 0;
}

int cli_valmap(struct cli *c, const char *path, struct llmroof_valmap *out)
{
    char def[PATH_MAX + 32];
    int rc = cli_catalog(c);
    if (rc)
        return rc;
    if (!path) {
        snprintf(def, sizeof def, "%s/validation-map.json", c->data_dir);
        path = def;
    }
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    if (catalog_read_file(path, (size_t)16 << 20, &text, &len, &err))
        return cli_fail(c, &err);
    rc = catalog_load_valmap(text, len, path, out, &err);
    free(text);
    return rc ? cli_fail(c, &err) : 0;
}

int cli_uncertainty(struct cli *c, struct llmroof_uncertainty *out)
{
    char path[PATH_MAX + 32];
    int rc = cli_catalog(c);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/uncertainty.json", c->data_dir);
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    if (catalog_read_file(path, (size_t)1 << 20, &text, &len, &err))
        return cli_fail(c, &err);
    rc = catalog_load_uncertainty(text, len, path, out, &err);
    free(text);
    return rc ? cli_fail(c, &err) : 0;
}

static void did_you_mean(struct cli *c, const char **s, size_t n)
{
    if (!n)
        return;
    fputs("did you mean: ", c->errf);
    for (size_t i = 0; i < n; i++)
        fprintf(c->errf, "%s%s", i ? ", " : "", s[i]);
    fputs("?\n", c->errf);
}

const struct llmroof_gpu *cli_gpu(struct cli *c, const char *name)
{
    const struct llmroof_gpu *g = catalog_find_gpu(&c->cat, name);
    if (g)
        return g;
    const char *s[3];
    size_t n = catalog_suggest_gpus(&c->cat, name, s, 3);
    fprintf(c->errf, "llmroof: error: unknown GPU '%s' (see 'llmroof list gpus')\n", name);
    did_you_mean(c, s, n);
    return NULL;
}

const struct llmroof_model *cli_model(struct cli *c, const char *name)
{
    const struct llmroof_model *m = catalog_find_model(&c->cat, name);
    if (m)
        return m;
    const char *s[3];
    size_t n = catalog_suggest_models(&c->cat, name, s, 3);
    fprintf(c->errf, "llmroof: error: unknown model '%s' (see 'llmroof list models')\n", name);
    did_you_mean(c, s, n);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Values                                                                   */
/* ------------------------------------------------------------------------ */

int cli_long(struct cli *c, const char *opt, const char *arg, long min, long max, long *out)
{
    int64_t v;
    if (!parse_int64(arg, min, max, &v))
        return cli_usage_error(c, "option '--%s': '%s' is not a whole number in [%ld, %ld]", opt, arg, min, max);
    *out = (long)v;
    return 0;
}

int cli_double(struct cli *c, const char *opt, const char *arg, double min, double max, bool min_open, double *out)
{
    double v;
    if (!parse_double(arg, &v) || (min_open ? v <= min : v < min) || v > max)
        return cli_usage_error(c, "option '--%s': '%s' is not a number in %s%g, %g]", opt, arg,
                               min_open ? "(" : "[", min, max);
    *out = v;
    return 0;
}

int cli_bytes(struct cli *c, const char *opt, const char *arg, double *out)
{
    if (!parse_bytes(arg, out))
        return cli_usage_error(c, "option '--%s': '%s' is not a byte size (e.g. 512MiB, 1.5GiB, 2GB)", opt, arg);
    return 0;
}

int cli_dtype(struct cli *c, const char *opt, const char *arg, enum llmroof_dtype *out)
{
    if (!dtype_parse(arg, out))
        return cli_usage_error(c, "option '--%s': unknown dtype '%s' (expected fp32, tf32, fp16, bf16, fp8, int8, int4, fp4)",
                               opt, arg);
    return 0;
}

/* A duration must carry its unit: a bare 3000 is 3000 s to one reader and 3000 ms to another
 * (issue 14). Only a bare 0 needs none. */
static bool has_unit(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && ((s[n - 1] >= 'a' && s[n - 1] <= 'z') || (s[n - 1] >= 'A' && s[n - 1] <= 'Z') ||
                     (unsigned char)s[n - 1] >= 0x80);
}

static bool bare_zero(const char *s)
{
    double v;
    return !has_unit(s) && parse_double(s, &v) && v == 0;
}

int cli_duration(struct cli *c, const char *opt, const char *arg, double max_s, bool positive, double *out_s)
{
    double v;
    if (!has_unit(arg) && !(bare_zero(arg) && !positive) && parse_double(arg, &v))
        return cli_usage_error(c, "option '--%s': '%s' has no unit: write it with one of ns, us, ms, s, min "
                                  "(e.g. %ss or %sms)", opt, arg, arg, arg);
    if (!(parse_duration(arg, &v) || (bare_zero(arg) && (v = 0, true))) || (positive && !(v > 0)) || v > max_s)
        return cli_usage_error(c, "option '--%s': '%s' is not a %sduration of at most %g s (e.g. 3s, 500ms)", opt, arg,
                               positive ? "positive " : "", max_s);
    *out_s = v;
    return 0;
}

int cli_think(struct cli *c, const char *arg, double *lo_s, double *hi_s)
{
    char lo[64], *dash;
    snprintf(lo, sizeof lo, "%s", arg);
    dash = strchr(lo, '-');
    if (dash)
        *dash = '\0';
    const char *hi = dash ? dash + 1 : lo;
    if ((!has_unit(lo) && !bare_zero(lo)) || (!has_unit(hi) && !bare_zero(hi)))
        return cli_usage_error(c, "option '--think': '%s' needs a unit on each duration: ns, us, ms, s or min "
                                  "(e.g. 1s-3s, 500ms, 0)", arg);
    if (!(parse_duration(lo, lo_s) || (bare_zero(lo) && (*lo_s = 0, true))) ||
        !(parse_duration(hi, hi_s) || (bare_zero(hi) && (*hi_s = 0, true))) || *hi_s < *lo_s || *hi_s > 86400)
        return cli_usage_error(c, "option '--think': '%s' is not a duration or range LO-HI (e.g. 1s-3s, 500ms, 0)", arg);
    return 0;
}

int cli_workload(struct cli *c, const char *spec, struct workload *out)
{
    struct llmroof_err err = { 0 };
    if (strncmp(spec, "csv:", 4) == 0) {
        char *text;
        size_t len;
        if (catalog_read_file(spec + 4, (size_t)1 << 30, &text, &len, &err))
            return cli_fail(c, &err);
        int rc = workload_parse_pairs(text, len, spec + 4, out, &err);
        free(text);
        return rc ? cli_fail(c, &err) : 0;
    }
    if (workload_parse(spec, out, &err))
        return cli_usage_error(c, "option '--workload': %s", err.msg);
    return 0;
}

void cli_setup_defaults(struct cli_setup_opts *s)
{
    memset(s, 0, sizeof *s);
    s->tp = 1;
    s->batch = 1;
    s->prompt = 512;
    s->output = 1536;
    s->weight = s->kv = s->act = LLMROOF_FP16;
    s->mem = memory_default_opts();
    s->context = 2048;
}

/* Bounds keep every product finite and meaningful: 1e9 tokens of context, a million
 * sequences; anything larger is a typo, not a deployment. Efficiencies and mem-util start
 * at 1% (as the catalog's ranges do): a 1e-300 efficiency would turn times into inf. */
int cli_setup_opt(struct cli *c, struct cli_setup_opts *s, int id, const char *arg)
{
    switch (id) {
    case OPT_MODEL: s->model = arg; return 0;
    case OPT_GPU: s->gpu = arg; return 0;
    case OPT_TP: return cli_long(c, "tp", arg, 1, 1024, &s->tp);
    case OPT_BATCH: return cli_long(c, "batch", arg, 1, 1000000, &s->batch);
    case OPT_PROMPT: return cli_long(c, "prompt", arg, 1, 1000000000, &s->prompt);
    case OPT_OUTPUT: return cli_long(c, "output", arg, 1, 1000000000, &s->output);
    case OPT_CONTEXT: s->have_context = true; return cli_long(c, "context", arg, 1, 1000000000, &s->context);
    case OPT_WDT: s->have_weight = true; return cli_dtype(c, "weight-dtype", arg, &s->weight);
    case OPT_KVDT: s->have_kv = true; return cli_dtype(c, "kv-dtype", arg, &s->kv);
    case OPT_ACTDT: s->have_act = true; return cli_dtype(c, "act-dtype", arg, &s->act);
    case OPT_WBITS: return cli_double(c, "weight-bits", arg, 1, 64, false, &s->weight_bits);
    case OPT_CE: s->eff.has_compute = true; return cli_double(c, "compute-eff", arg, 0.01, 1, false, &s->eff.compute);
    case OPT_ME: s->eff.has_memory = true; return cli_double(c, "memory-eff", arg, 0.01, 1, false, &s->eff.memory);
    case OPT_CME: s->eff.has_comm = true; return cli_double(c, "comm-eff", arg, 0.01, 1, false, &s->eff.comm);
    case OPT_OVH:
        s->eff.has_overhead = true;
        return cli_duration(c, "overhead", arg, 1, false, &s->eff.overhead_s);
    case OPT_ENGINE: s->engine_name = arg; return 0; /* resolved once the catalog is loaded */
    case OPT_MEMUTIL: return cli_double(c, "mem-util", arg, 0.01, 1, false, &s->mem.mem_util);
    case OPT_RESERVE: return cli_bytes(c, "reserve", arg, &s->mem.reserve_bytes);
    case OPT_WORKSPACE: s->mem.workspace_set = true; return cli_bytes(c, "workspace", arg, &s->mem.workspace_bytes);
    case OPT_BLOCK: return cli_long(c, "block-size", arg, 1, 65536, &s->mem.block_size);
    case OPT_PP: {
        long v = 1;
        int rc = cli_long(c, "pp", arg, 1, 1024, &v);
        s->layout.pp = (int)v;
        return rc;
    }
    case OPT_EP: {
        long v = 1;
        int rc = cli_long(c, "ep", arg, 1, 4096, &v);
        s->layout.ep = (int)v;
        return rc;
    }
    case OPT_DPATTN: s->layout.dp_attn = true; return 0;
    case OPT_TBO: s->layout.two_batch_overlap = true; return 0;
    case OPT_EPIMB: return cli_double(c, "ep-imbalance", arg, 1, 64, false, &s->layout.ep_imbalance);
    }
    return 1;
}

int cli_setup_resolve(struct cli *c, struct cli_setup_opts *s)
{
    if (!s->engine_name)
        return 0;
    int rc = cli_catalog(c);
    if (rc)
        return rc;
    if (!(s->eff.engine = catalog_find_engine(&c->cat, s->engine_name))) {
        fprintf(c->errf, "llmroof: error: unknown engine '%s' (see 'llmroof list engines')\n", s->engine_name);
        return 2;
    }
    return 0;
}

struct llmroof_dtypes cli_dtypes(const struct cli_setup_opts *s)
{
    struct llmroof_dtypes d = { s->weight, s->kv, s->act, s->weight_bits };
    return d;
}

struct llmroof_layout cli_layout(const struct cli_setup_opts *s)
{
    struct llmroof_layout l = s->layout;
    l.tp = (int)s->tp;
    return l;
}

struct list_ctx {
    struct cli *c;
    const struct llmroof_gpu **gpus;
    int *tps;
    int max, *n;
    bool reported; /* an item's error is printed; otherwise the list's syntax is at fault */
};

static bool gpu_item(const char *item, void *vctx)
{
    struct list_ctx *x = vctx;
    x->reported = true;
    if (*x->n >= x->max) {
        cli_usage_error(x->c, "option '--gpus': more than %d GPUs", x->max);
        return false;
    }
    const struct llmroof_gpu *g = cli_gpu(x->c, item);
    if (!g)
        return false;
    /* one rule for every list option: a repeated value (or an alias of a listed GPU) is an
     * error, never a duplicate row */
    for (int i = 0; i < *x->n; i++)
        if (x->gpus[i] == g) {
            cli_usage_error(x->c, "option '--gpus': '%s' repeats a value already listed (each value once)", item);
            return false;
        }
    x->gpus[(*x->n)++] = g;
    x->reported = false;
    return true;
}

static bool tp_item(const char *item, void *vctx)
{
    struct list_ctx *x = vctx;
    int64_t v;
    if (*x->n >= x->max || !parse_int64(item, 1, 1024, &v)) {
        cli_usage_error(x->c, "option '--tp': '%s' is not a whole number in [1, 1024] (at most %d values)", item,
                        x->max);
        x->reported = true;
        return false;
    }
    for (int i = 0; i < *x->n; i++)
        if (x->tps[i] == (int)v) {
            cli_usage_error(x->c, "option '--tp': '%s' repeats a value already listed (each value once)", item);
            x->reported = true;
            return false;
        }
    x->tps[(*x->n)++] = (int)v;
    return true;
}

int cli_gpu_list(struct cli *c, const char *list, const struct llmroof_gpu **out, int max, int *n)
{
    struct list_ctx x = { c, out, NULL, max, n, false };
    *n = 0;
    if (strcmp(list, "all") == 0) { /* every catalog GPU, in catalog order, as sweep's --gpus all */
        if (c->cat.n_gpus > (size_t)max)
            return cli_usage_error(c, "option '--gpus': 'all' is %zu GPUs, more than the %d this command compares",
                                   c->cat.n_gpus, max);
        for (size_t i = 0; i < c->cat.n_gpus; i++)
            out[(*n)++] = &c->cat.gpus[i];
        return 0;
    }
    if (parse_list(list, gpu_item, &x))
        return 0;
    return x.reported ? 2 : cli_usage_error(c, "option '--gpus': expected a comma-separated list of GPU ids");
}

int cli_tp_list(struct cli *c, const char *list, int *out, int max, int *n)
{
    struct list_ctx x = { c, NULL, out, max, n, false };
    *n = 0;
    if (parse_list(list, tp_item, &x))
        return 0;
    return x.reported ? 2 : cli_usage_error(c, "option '--tp': expected a comma-separated list such as 2,4,8");
}

/* ------------------------------------------------------------------------ */
/* Output files: staged during the run, committed only when it succeeds      */
/* ------------------------------------------------------------------------ */

static int stage(struct cli *c, char *target, char *tmp, const struct sbuf *b)
{
    char *data = NULL;
    if (!tmp && !(data = malloc(b->len ? b->len : 1)))
        goto oom;
    if (data && b->len)
        memcpy(data, sbuf_str(b), b->len);
    if (c->n_files == c->cap_files) {
        size_t cap = c->cap_files ? 2 * c->cap_files : 8;
        struct cli_file *f = realloc(c->files, cap * sizeof *f);
        if (!f)
            goto oom;
        c->files = f;
        c->cap_files = cap;
    }
    c->files[c->n_files++] = (struct cli_file){ target, tmp, data, b->len };
    return 0;
oom:
    fprintf(c->errf, "llmroof: error: out of memory\n");
    free(data);
    if (tmp)
        unlink(tmp);
    free(tmp);
    free(target);
    return 1;
}

/* The file `path` names once its symlinks are followed (at most 40, as Linux's ELOOP limit):
 * a relative link is taken from the link's directory. Caller frees; NULL on failure. */
static char *resolve_links(const char *path)
{
    char *cur = strdup(path);
    for (int hop = 0; cur && hop < 40; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char link[PATH_MAX];
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0) {
            free(cur);
            return NULL;
        }
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dirlen = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dirlen + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, link, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    errno = ELOOP;
    return NULL;
}

int cli_write_file(struct cli *c, const char *path, const struct sbuf *b)
{
    if (c->flags & CLI_NO_FILES)
        return 0;
    struct stat st, lst;
    bool exists = stat(path, &st) == 0; /* follows symlinks: st describes the target */
    if (exists && S_ISDIR(st.st_mode)) {
        fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", path, strerror(EISDIR));
        return 2;
    }
    /* Written through the name at commit: a device or FIFO (/dev/full, /dev/stdout) cannot be
     * renamed over, a file with other hard links would lose them, and a dangling symlink
     * names the file that open() will create. */
    if ((exists && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) ||
        (!exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))) {
        char *target = strdup(path);
        if (!target) {
            fprintf(c->errf, "llmroof: error: out of memory\n");
            return 1;
        }
        return stage(c, target, NULL, b);
    }
    /* a symlink's target is replaced, never the link itself */
    char *target = exists ? resolve_links(path) : strdup(path);
    if (!target) {
        fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", path, strerror(errno));
        return 1;
    }
    size_t n = strlen(target) + sizeof ".tmp.XXXXXX";
    char *tmp = malloc(n);
    if (!tmp) {
        free(target);
        fprintf(c->errf, "llmroof: error: out of memory\n");
        return 1;
    }
    snprintf(tmp, n, "%s.tmp.XXXXXX", target);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        fprintf(c->errf, "llmroof: error: %s: cannot create file: %s\n", path, strerror(e));
        free(tmp);
        free(target);
        return e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG ? 2 : 1; /* a path naming no place is bad input */
    }
    /* mkstemp creates 0600: keep the replaced file's mode, or give a new file the mode a
     * plain fopen would (0666 less the umask) */
    mode_t mode = st.st_mode & 07777;
    if (!exists) {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    FILE *f = fdopen(fd, "wb");
    bool ok = f && fwrite(sbuf_str(b), 1, b->len, f) == b->len;
    int e = errno;
    ok = (f && fclose(f) == 0) && ok;
    if (!f)
        close(fd);
    if (!ok) {
        fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", path, strerror(e ? e : EIO));
        unlink(tmp);
        free(tmp);
        free(target);
        return 1;
    }
    return stage(c, target, tmp, b);
}

static bool write_through(const struct cli_file *f)
{
    int fd = open(f->target, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0)
        return false;
    size_t off = 0;
    while (off < f->len) {
        ssize_t w = write(fd, f->data + off, f->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return false;
        }
        off += (size_t)w;
    }
    return close(fd) == 0;
}

int cli_files_commit(struct cli *c)
{
    int rc = 0;
    for (size_t i = 0; i < c->n_files; i++) {
        struct cli_file *f = &c->files[i];
        if (rc) {
            if (f->tmp)
                unlink(f->tmp); /* an earlier file failed: the rest are not replaced */
        } else if (f->tmp ? rename(f->tmp, f->target) != 0 : !write_through(f)) {
            fprintf(c->errf, "llmroof: error: %s: cannot write file: %s\n", f->target, strerror(errno));
            if (f->tmp)
                unlink(f->tmp);
            rc = 1;
        }
        free(f->target);
        free(f->tmp);
        free(f->data);
    }
    free(c->files);
    c->files = NULL;
    c->n_files = c->cap_files = 0;
    return rc;
}

void cli_files_discard(struct cli *c)
{
    for (size_t i = 0; i < c->n_files; i++) {
        if (c->files[i].tmp)
            unlink(c->files[i].tmp);
        free(c->files[i].target);
        free(c->files[i].tmp);
        free(c->files[i].data);
    }
    free(c->files);
    c->files = NULL;
    c->n_files = c->cap_files = 0;
}

int cli_stdout_failed(struct cli *c)
{
    if (errno == EPIPE)
        return CLI_EXIT_PIPE; /* the reader has all it wanted: end quietly */
    fprintf(c->errf, "llmroof: error: cannot write to stdout\n");
    return 1;
}

int cli_flush(struct cli *c, size_t threshold)
{
    if (c->out.len < threshold)
        return 0;
    if (sbuf_failed(&c->out)) {
        fprintf(c->errf, "llmroof: error: out of memory while rendering output\n");
        return 1;
    }
    if (!(c->flags & CLI_NO_STDOUT) &&
        (fwrite(c->out.data, 1, c->out.len, c->outf) != c->out.len || fflush(c->outf) != 0))
        return cli_stdout_failed(c);
    c->out.len = 0;
    c->out.data[0] = '\0';
    return 0;
}

struct rjdoc *cli_json(struct cli *c)
{
    if (!c->json) {
        char schema[64];
        snprintf(schema, sizeof schema, "llmroof.%s/1", c->cmd ? c->cmd : "?");
        c->json = rjdoc_new(c->json_schema ? c->json_schema : schema);
        if (!c->json)
            c->out.failed = true;
    }
    return c->json;
}

void cli_table(struct cli *c, const char *name, const struct table *t)
{
    if (c->format == TABLE_JSON) {
        rjdoc_table(cli_json(c), name, t);
        return;
    }
    /* text and Markdown fit a 100-column terminal: a wider table prints in parts that repeat
     * its first column (the row's name) */
    if (table_sel_wants(&c->sel, c->format, name))
        table_render_fit(t, c->format, CLI_TEXT_WIDTH, 1, &c->out);
}

bool cli_prose(const struct cli *c)
{
    return c->format == TABLE_TEXT || c->format == TABLE_MD;
}

const char *cli_fmt_bytes(double b, char *buf, size_t n)
{
    if (b >= 1073741824.0 || b <= -1073741824.0)
        snprintf(buf, n, "%.2f GiB", b / 1073741824.0);
    else if (b >= 1048576.0 || b <= -1048576.0)
        snprintf(buf, n, "%.2f MiB", b / 1048576.0);
    else if (b >= 1024.0 || b <= -1024.0)
        snprintf(buf, n, "%.2f KiB", b / 1024.0);
    else
        snprintf(buf, n, "%.0f B", b);
    return buf;
}
