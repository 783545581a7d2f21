/* cmd_validate.c - `llmroof validate FILE.csv`: llmroof against published measurements. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/parse.h"
#include "cli/cli.h"
#include "fit/servval.h"
#include "fit/opval.h"
#include "render/render_json.h"
#include "render/rj_add.h"
#include "render/render_validate.h"

enum { OPT_BY = 1, OPT_MAP, OPT_SVG, OPT_UNC, OPT_MAXDEC, OPT_MAXPRE, OPT_FIT, OPT_FIT_ALL, OPT_FIT_GPUS, OPT_FIT_ENGINES,
       OPT_OPS, OPT_OUT, OPT_CV, OPT_MAXE2E, OPT_MAXSRV, OPT_SERVING, OPT_SERVING_MAP, OPT_MAXSRVCLS, OPT_JOBS };
enum { OPT_QUIET = 200 }; /* apart: other options append to the list above */

struct ctx {
    enum val_group by;
    const char *map, *svg, *unc;
    double max_dec, max_pre, max_e2e, max_srv;
    bool fit, fit_all;
    const char *fit_gpus, *fit_engines;
    const char *ops;               /* --ops FILE */
    const char *out;               /* --out FILE (with --ops) */
    struct cli_setup_opts s;       /* --gpu, --model, --tp, efficiencies (with --ops) */
    bool have_tp;
    enum val_cv_by cv;             /* --cv source|gpu */
    const char *serving;           /* --serving FILE (default with no FILE.csv: serving.csv beside the catalog) */
    const char *serving_map;       /* --serving-map FILE */
    double max_srv_cls[SRV_CLASS_COUNT]; /* --max-serving-class-error CLASS=F,... (0: not asked) */
    bool quiet;                    /* --quiet: no progress line for --cv */
    int threads;                   /* --jobs: threads for --cv's folds (0: the default) */
};

/* the largest gate limit: a median |error| of 200% */
#define GATE_MAX 2.0

/* A gate's limit on a median |error|: a fraction in (0, 2] or a percentage with its sign, "15%"
 * (0.15). The bound had been 10, so "--max-decode-error 5", meant as 5%, gated at 500% and passed
 * (an audit). parse_double as every number option: no hex float, no leading blank, no nan or inf. */
static bool gate_limit(const char *s, double *out)
{
    char buf[64];
    const size_t n = strlen(s);
    const bool pct = n > 1 && s[n - 1] == '%';
    if (n >= sizeof buf)
        return false;
    snprintf(buf, sizeof buf, "%.*s", (int)(pct ? n - 1 : n), s);
    double v;
    if (!parse_double(buf, &v))
        return false;
    if (pct)
        v /= 100.0;
    if (!(v > 0) || v > GATE_MAX)
        return false;
    *out = v;
    return true;
}

static int gate_opt(struct cli *c, const char *opt, const char *arg, double *out)
{
    if (gate_limit(arg, out))
        return 0;
    return cli_usage_error(c, "option '--%s': '%s' is not a limit on a median |error|: a fraction in (0, %g] (0.15) or "
                              "a percentage (15%%)", opt, CLI_CLIP(arg), GATE_MAX);
}

/* One CLASS=F item of --max-serving-class-error (parse_list's callback). */
struct class_limits {
    double *lim;      /* per class; 0: not asked */
    int bad;          /* 0, 1: not CLASS=F, 2: a class given twice */
    char item[128];   /* the item that failed */
};

static bool add_class_limit(const char *item, void *vctx)
{
    struct class_limits *x = vctx;
    snprintf(x->item, sizeof x->item, "%s", item);
    const char *eq = strchr(item, '=');
    int k = SRV_CLASS_COUNT;
    for (int i = 0; eq && i < SRV_CLASS_COUNT; i++) {
        const char *name = srv_class_name((enum srv_class)i);
        if (strlen(name) == (size_t)(eq - item) && !strncmp(item, name, (size_t)(eq - item)))
            k = i;
    }
    double v = 0;
    if (k == SRV_CLASS_COUNT || !gate_limit(eq + 1, &v)) {
        x->bad = 1;
        return false;
    }
    if (x->lim[k] > 0) { /* one rule for every list: a value once (a second limit had replaced the first) */
        x->bad = 2;
        return false;
    }
    x->lim[k] = v;
    return true;
}

/* "throughput=0.4,ttft=0.7": a limit per serving class; each class once, no empty item (strtok_r
 * had skipped "throughput=0.1,,ttft=0.2"'s empty one, as no other list option does) */
static int parse_class_limits(struct cli *c, const char *arg, double *lim)
{
    struct class_limits x = { lim, 0, "" };
    if (parse_list(arg, add_class_limit, &x))
        return 0;
    if (x.bad == 2)
        return cli_usage_error(c, "option '--max-serving-class-error': '%s' names a class already listed (each class "
                                  "once)", CLI_CLIP(x.item));
    if (x.bad == 1)
        return cli_usage_error(c, "option '--max-serving-class-error': '%s' is not CLASS=F with CLASS one of "
                                  "throughput, ttft, tpot, e2e, speedup, slo and F a fraction in (0, 2] or a percentage "
                                  "(15%%)", CLI_CLIP(x.item));
    return cli_usage_error(c, "option '--max-serving-class-error': '%s' is not a comma-separated list of CLASS=F "
                              "(an empty or overlong item)", CLI_CLIP(arg));
}

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    switch (id) {
    case OPT_BY:
        if (!val_group_parse(arg, &x->by))
            return cli_usage_error(c, "option '--by': '%s' is not one of metric, gpu, source, model", CLI_CLIP(arg));
        return 0;
    case OPT_MAP: x->map = arg; return cli_check_input(c, "map", arg);
    case OPT_SVG: x->svg = arg; return 0;
    case OPT_UNC: x->unc = arg; return 0;
    case OPT_MAXDEC: return gate_opt(c, "max-decode-error", arg, &x->max_dec);
    case OPT_MAXPRE: return gate_opt(c, "max-prefill-error", arg, &x->max_pre);
    case OPT_MAXE2E: return gate_opt(c, "max-e2e-error", arg, &x->max_e2e);
    case OPT_MAXSRV: return gate_opt(c, "max-serving-error", arg, &x->max_srv);
    case OPT_SERVING: x->serving = arg; return cli_check_input(c, "serving", arg);
    case OPT_SERVING_MAP: x->serving_map = arg; return cli_check_input(c, "serving-map", arg);
    case OPT_MAXSRVCLS: return parse_class_limits(c, arg, x->max_srv_cls);
    case OPT_FIT: x->fit = true; return 0;
    case OPT_FIT_ALL: x->fit = x->fit_all = true; return 0;
    case OPT_FIT_GPUS: x->fit_gpus = arg; return 0;
    case OPT_FIT_ENGINES: x->fit_engines = arg; return 0;
    case OPT_OPS: x->ops = arg; return cli_check_stdin(c, "option '--ops'", arg);
    case OPT_OUT: x->out = arg; return 0;
    case OPT_QUIET: x->quiet = true; return 0;
    case OPT_JOBS: return cli_jobs(c, arg, &x->threads);
    case OPT_CV:
        if (strcmp(arg, "source") == 0)
            x->cv = VAL_CV_SOURCE;
        else if (strcmp(arg, "gpu") == 0)
            x->cv = VAL_CV_GPU;
        else
            return cli_usage_error(c, "option '--cv': '%s' is not one of source, gpu", CLI_CLIP(arg));
        return 0;
    }
    if (id == OPT_TP)
        x->have_tp = true;
    return cli_setup_opt(c, &x->s, id, arg);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The efficiency a GPU's kernels reach on one resource: the 90th percentile of the achieved
 * fraction over the rows bound by it (a high quantile, not the maximum, so one anomalous
 * kernel - a cache-resident working set above 100% - does not set the catalog value),
 * capped at 1. 0 when no row is bound by it. Attention kernels are left out: they have their
 * own efficiencies (efficiency.attention*, docs/model.md "Attention kernels"). */
static double asymptote(const struct opval_pred *p, size_t n, enum llmroof_bound b, double *tmp, size_t *rows)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i].bound == b && !p[i].attention)
            tmp[m++] = b == LLMROOF_BOUND_COMPUTE ? p[i].achieved_flops_frac : p[i].achieved_bw_frac;
    *rows = m; /* (with fewer than 7 the quantile's index is the last: the maximum) */
    if (!m)
        return 0;
    qsort(tmp, m, sizeof *tmp, cmp_double);
    double v = tmp[(size_t)floor(0.9 * (double)(m - 1) + 0.5)];
    return v > 1 ? 1 : v;
}

/* `validate --ops FILE -g GPU`: every measured kernel against its roofline time, then a
 * summary per operator and the efficiencies the measurements imply (docs/validation.md). */
static int validate_ops(struct cli *c, struct ctx *x)
{
    if (!x->s.gpu)
        return cli_usage_error(c, "option '--ops' needs '--gpu'");
    int rc;
    if ((rc = cli_catalog(c)) || (rc = cli_setup_resolve(c, &x->s)))
        return rc;
    const struct llmroof_gpu *g = cli_gpu(c, x->s.gpu);
    const struct llmroof_model *dm = NULL;
    if (!g || (x->s.model && !(dm = cli_model(c, x->s.model))))
        return 2;
    struct llmroof_err err = { 0 };
    char *text;
    size_t len, n;
    struct opval_row *rows;
    if (cli_read_input(c, "option '--ops'", x->ops, (size_t)256 << 20, &text, &len, &err))
        return cli_fail(c, &err);
    rc = opval_parse_csv(text, len, cli_input_name(x->ops), &rows, &n, &err);
    free(text);
    if (rc)
        return cli_fail(c, &err);
    struct opval_pred *pred = calloc(n, sizeof *pred);
    double *tmp = calloc(n, sizeof *tmp);
    if (!pred || !tmp) {
        free(rows);
        free(pred);
        free(tmp);
        return 1;
    }
    struct llmroof_effs eff = roofline_effs(g, &x->s.eff);
    double best_c = 0, best_m = 0;
    size_t rows_c = 0, rows_m = 0; /* the kernels behind each */
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct llmroof_model *m = dm;
        if (rows[i].model[0] && !(m = catalog_find_model(&c->cat, rows[i].model))) {
            fprintf(c->errf, "llmroof: error: %s:%ld: unknown model '%s' (see 'llmroof list models')\n",
                    cli_input_name(x->ops), rows[i].line, CLI_CLIP(rows[i].model));
            rc = 2;
        } else if (!m) {
            fprintf(c->errf, "llmroof: error: %s:%ld: no model: give a 'model' column or '--model'\n",
                    cli_input_name(x->ops), rows[i].line);
            rc = 2;
        } else {
            int tp = rows[i].tp ? rows[i].tp : (int)x->s.tp;
            if (opval_predict(&rows[i], m, tp, g, &eff, cli_input_name(x->ops), &pred[i], &err))
                rc = cli_fail(c, &err);
        }
    }
    if (rc == 0) {
        best_c = asymptote(pred, n, LLMROOF_BOUND_COMPUTE, tmp, &rows_c);
        best_m = asymptote(pred, n, LLMROOF_BOUND_MEMORY, tmp, &rows_m);
    }
    /* an asymptote no GPU reaches is a file whose times are in another unit than its column's
     * seconds (microseconds under measured_s read as seconds gave 7e-7 of peak): refused before an
     * entry the catalog would not load is written (a review of session 64) */
    if (rc == 0 && x->out && ((best_c > 0 && best_c < 0.01) || (best_m > 0 && best_m < 0.01))) {
        fprintf(c->errf, "llmroof: error: %s: the kernels reach %.3g of the GPU's peak compute and %.3g of its "
                         "bandwidth at most (the catalog takes 0.01 to 1): are column 'measured_s''s times in "
                         "seconds? nothing written to %s\n",
                cli_input_name(x->ops), best_c, best_m, x->out);
        rc = 2;
    }
    if (rc == 0 && !(c->flags & CLI_PARSE_ONLY)) {
        struct table t;
        char title[160];
        snprintf(title, sizeof title, "operators on %s: measured vs roofline (compute eff %.2f, memory eff %.2f)",
                 g->id, eff.compute, eff.memory);
        table_init(&t, title);
        table_col(&t, "line", 0);
        table_col(&t, "model", 0);
        table_col(&t, "op", 0);
        table_col(&t, "dtype", 0);
        table_col(&t, "tokens", 0);
        table_col(&t, "batch", 0);
        table_col(&t, "context", 0);
        table_col(&t, "measured_us", 1);
        table_col(&t, "predicted_us", 1);
        table_col(&t, "error_pct", 1);
        table_col(&t, "bound", 0);
        table_col(&t, "achieved_pct_of_peak", 1);
        for (size_t i = 0; i < n; i++) {
            const struct opval_row *r = &rows[i];
            const struct opval_pred *p = &pred[i];
            table_row(&t);
            table_num(&t, (double)r->line);
            table_str(&t, r->model[0] ? r->model : x->s.model);
            table_str(&t, op_name(r->op));
            table_str(&t, dtype_name(r->dtype));
            table_num(&t, (double)r->tokens);
            table_num(&t, (double)r->batch);
            table_num(&t, (double)r->context);
            table_num(&t, r->measured_s * 1e6);
            table_num(&t, p->predicted_s * 1e6);
            table_num(&t, 100.0 * (p->predicted_s / r->measured_s - 1.0));
            table_str(&t, bound_name(p->bound));
            table_num(&t, 100.0 * (p->bound == LLMROOF_BOUND_COMPUTE ? p->achieved_flops_frac : p->achieved_bw_frac));
        }
        cli_table(c, "kernels", &t);
        table_free(&t);
        {
            if (cli_prose(c))
                sbuf_append(&c->out, "\n");
            struct table s;
            table_init(&s, "summary by operator (error = predicted / measured - 1)");
            table_col(&s, "op", 0);
            table_col(&s, "rows", 0);
            table_col(&s, "median_abs_error_pct", 1);
            table_col(&s, "bias_pct", 1);
            table_col(&s, "best_achieved_pct_of_peak", 1);
            for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
                size_t m = 0;
                double best = 0;
                for (size_t i = 0; i < n; i++)
                    if ((int)rows[i].op == k) {
                        tmp[m++] = fabs(pred[i].predicted_s / rows[i].measured_s - 1.0);
                        double a = pred[i].bound == LLMROOF_BOUND_COMPUTE ? pred[i].achieved_flops_frac
                                                                           : pred[i].achieved_bw_frac;
                        best = a > best ? a : best;
                    }
                if (!m)
                    continue;
                double med = median(tmp, m);
                m = 0;
                for (size_t i = 0; i < n; i++)
                    if ((int)rows[i].op == k)
                        tmp[m++] = pred[i].predicted_s / rows[i].measured_s - 1.0;
                table_row(&s);
                table_str(&s, op_name((enum llmroof_opkind)k));
                table_num(&s, (double)m);
                table_num(&s, 100.0 * med);
                table_num(&s, 100.0 * median(tmp, m));
                table_num(&s, 100.0 * best);
            }
            cli_table(c, "operators", &s);
            table_free(&s);
            if (c->format == TABLE_TEXT || c->format == TABLE_MD)
                sbuf_printf(&c->out,
                            "\nmeasured asymptotes (p90 of achieved fractions; attention left out): compute %.2f of "
                            "dense peak over %zu compute-bound kernels (catalog efficiency %.2f), memory %.2f of peak "
                            "bandwidth over %zu memory-bound kernels (catalog %.2f)%s\n",
                            best_c, rows_c, eff.compute, best_m, rows_m, eff.memory,
                            (rows_c > 0 && rows_c < 7) || (rows_m > 0 && rows_m < 7)
                                ? "; with fewer than 7 kernels a p90 is their maximum" : "");
        }
    }
    if (rc == 0 && x->out) {
        /* the catalog entry: the GPU's own figures with the kernels' asymptotes as efficiencies
         * (an efficiency no row constrains keeps the catalog's value) */
        struct llmroof_effs fitted = roofline_default_effs(g);
        if (best_c > 0)
            fitted.compute = best_c;
        if (best_m > 0)
            fitted.memory = best_m;
        char note[512];
        snprintf(note, sizeof note, "compute_eff %.3f and memory_eff %.3f: p90 of the fractions of peak reached by "
                                    "the %zu compute-bound and %zu memory-bound kernels (attention left out) of %s "
                                    "(llmroof validate --ops)", fitted.compute, fitted.memory, rows_c, rows_m, x->ops);
        char *j = render_json_gpu_doc(g, &fitted, note);
        struct sbuf b = { j, j ? strlen(j) : 0, j ? strlen(j) + 1 : 0, j == NULL };
        rc = j ? cli_write_file(c, x->out, &b) : 1;
        free(j);
    }
    free(rows);
    free(pred);
    free(tmp);
    return rc;
}

/* Reads, maps and predicts FILE; shared with calibrate. Caller frees *rows and *cases. */
int cli_validation_cases(struct cli *c, const char *file, const char *map_path, struct val_row **rows,
                         struct val_case **cases, size_t *n);

int cli_validation_cases(struct cli *c, const char *file, const char *map_path, struct val_row **rows,
                         struct val_case **cases, size_t *n)
{
    struct llmroof_valmap *map = calloc(1, sizeof *map);
    if (!map)
        return 1;
    int rc = cli_valmap(c, map_path, map);
    if (rc) {
        free(map);
        return rc;
    }
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    if (cli_read_input(c, "FILE.csv", file, (size_t)256 << 20, &text, &len, &err)) {
        free(map);
        return cli_fail(c, &err);
    }
    rc = val_parse_csv(text, len, cli_input_name(file), rows, n, &err);
    free(text);
    if (rc) {
        free(map);
        return cli_fail(c, &err);
    }
    /* the reserved sources are left out by a row's source alone: a file without the column had
     * let them in silently (an audit fed NeMo's 16 reserved rows in so): fail closed */
    if (map->nreserved > 0 && *n > 0 && !(*rows)[0].source_column) {
        char first[LLMROOF_MAP_KEY];
        snprintf(first, sizeof first, "%s", map->reserved[0]);
        free(map);
        free(*rows);
        *rows = NULL;
        return cli_usage_error(c, "%s: no 'source' column: the validation map reserves sources for the independent "
                                  "check (%s, ...), which are left out by a row's source; add the column (empty for "
                                  "measurements of your own)", cli_input_name(file), first);
    }
    *cases = calloc(*n ? *n : 1, sizeof **cases);
    if (!*cases) {
        free(map);
        free(*rows);
        return 1;
    }
    for (size_t i = 0; i < *n; i++) {
        val_map_row(&c->cat, map, &(*rows)[i], &(*cases)[i]);
        if ((*cases)[i].mapped && val_predict(&(*cases)[i], NULL, NULL, &err)) {
            (*cases)[i].mapped = false;
            snprintf((*cases)[i].reason, sizeof (*cases)[i].reason, "%s", err.msg);
        }
    }
    free(map);
    return 0;
}

/* Groupings of the cross-validated summary (docs/validation.md): metric class, publication, GPU
 * family, batch regime, engine, static or serving. */
enum cv_dim { CV_CLASS, CV_SOURCE, CV_FAMILY, CV_REGIME, CV_ENGINE, CV_LOAD, CV_NDIMS };

/* A publication's key (val_source_key), shortened for a 100-column table: no "github.com/" or
 * "www.", at most 38 characters (the key itself stays whole for the folds) */
static void short_source(const char *k, char *out, size_t cap)
{
    const char *s = k;
    if (strncmp(s, "github.com/", 11) == 0)
        s += 11;
    else if (strncmp(s, "www.", 4) == 0)
        s += 4;
    if (strlen(s) > 38)
        snprintf(out, cap, "%.35s...", s);
    else
        snprintf(out, cap, "%s", s);
}

static void cv_group(const struct val_case *c, enum cv_dim d, char *out, size_t cap)
{
    switch (d) {
    case CV_CLASS: snprintf(out, cap, "%s", val_class_name(val_metric_class(c->metric))); return;
    case CV_SOURCE: {
        char k[VAL_TEXT];
        val_source_key(c->row, k, sizeof k);
        short_source(k, out, cap);
        return;
    }
    case CV_FAMILY:
        if (strncmp(c->gpu->id, "rtx-", 4) == 0)
            snprintf(out, cap, "geforce");
        else
            snprintf(out, cap, "%.*s", (int)strcspn(c->gpu->id, "-"), c->gpu->id);
        return;
    case CV_REGIME: snprintf(out, cap, "%s", c->batch <= 1 ? "batch 1" : c->batch <= 32 ? "batch 2-32" : "batch >32"); return;
    case CV_ENGINE: snprintf(out, cap, "%s", c->engine ? c->engine->id : "(none)"); return;
    case CV_LOAD: snprintf(out, cap, "%s", c->serving ? "serving" : "static"); return;
    case CV_NDIMS: break;
    }
    snprintf(out, cap, "?");
}

struct cv_sel {
    enum cv_dim d;
    const char *key;
};

static bool in_cv_group(const struct val_case *c, const void *v)
{
    const struct cv_sel *s = v;
    char k[VAL_TEXT];
    cv_group(c, s->d, k, sizeof k);
    return strcmp(k, s->key) == 0;
}

/* True the first time k is met: it joins seen (*ns of them so far, room for every case). */
static bool first_seen(char (*seen)[VAL_TEXT], size_t *ns, const char *k)
{
    for (size_t j = 0; j < *ns; j++)
        if (strcmp(seen[j], k) == 0)
            return false;
    snprintf(seen[(*ns)++], VAL_TEXT, "%s", k);
    return true;
}

/* One held-out group's statistics for --format json */
static void cv_group_json(cJSON *arr, const char *by, const char *group, struct val_stats s)
{
    cJSON *r = cJSON_CreateObject();
    rj_str(r, "by", by);
    rj_str(r, "group", group);
    render_json_add_stats(r, s, "median_abs_error", "p90_abs_error");
    rj_push(arr, r);
}

/* The held-out summary: a table (text, md, csv), or with jcv (--format json) the same groups as
 * objects, the fold count and the bounds added to it (a review: the JSON had dropped them) */
static void cv_summary(struct cli *c, const char *file, struct val_case *cases, size_t n, enum val_cv_by by,
                       const struct val_cv_report *rep, cJSON *jcv)
{
    static const char *const dim_names[CV_NDIMS] = { "class", "source", "gpu family", "batch", "engine", "load" };
    cJSON *jg = NULL;
    if (jcv) {
        rj_str(jcv, "by", by == VAL_CV_GPU ? "gpu" : "source");
        rj_num(jcv, "folds", rep->folds);
        jg = rj_arr(jcv, "groups");
    }
    struct table t;
    char title[256];
    snprintf(title, sizeof title, "held-out errors: leave one %s out (%d folds); every parameter fitted on the others",
             by == VAL_CV_GPU ? "GPU" : "source", rep->folds);
    table_init(&t, title);
    table_col(&t, "by", 0);
    table_col(&t, "group", 0);
    table_col(&t, "n", 0);
    table_col(&t, "median_abs_pct", 1);
    table_col(&t, "p90_abs_pct", 1);
    table_col(&t, "bias_pct", 1);
    struct val_stats all = val_stats_of(cases, n, NULL, NULL);
    table_row(&t);
    table_str(&t, "all");
    table_str(&t, "all");
    table_val_stats(&t, all);
    if (jg)
        cv_group_json(jg, "all", "all", all);
    char (*seen)[VAL_TEXT] = calloc(n ? n : 1, sizeof *seen);
    for (int d = 0; d < CV_NDIMS && seen; d++) {
        size_t ns = 0;
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].mapped)
                continue;
            char k[VAL_TEXT];
            cv_group(&cases[i], (enum cv_dim)d, k, sizeof k);
            if (!first_seen(seen, &ns, k))
                continue;
            struct cv_sel sel = { (enum cv_dim)d, k };
            struct val_stats st = val_stats_of(cases, n, in_cv_group, &sel);
            table_row(&t);
            table_str(&t, dim_names[d]);
            table_str(&t, k);
            table_val_stats(&t, st);
            if (jg)
                cv_group_json(jg, dim_names[d], k, st);
        }
    }
    free(seen);
    if (jcv) {
        rj_str(jcv, "bounds", rep->bounds[0] ? rep->bounds : "none");
        table_free(&t);
        return;
    }
    if (cli_prose(c))
        sbuf_printf(&c->out, "%sllmroof validate --cv %s %s: error = predicted / measured time - 1 (rates inverted), "
                             "each row predicted by a model fitted without its %s\n\n",
                    c->format == TABLE_MD ? "## " : "", by == VAL_CV_GPU ? "gpu" : "source", file,
                    by == VAL_CV_GPU ? "GPU" : "publication");
    cli_table(c, "crossval", &t);
    table_free(&t);
    if (cli_prose(c))
        sbuf_printf(&c->out, "\nparameters that ended a fold at a physical bound: %s\n",
                    rep->bounds[0] ? rep->bounds : "none");
}

static bool in_class(const struct val_case *c, const void *cls)
{
    return val_metric_class(c->metric) == *(const enum val_class *)cls;
}

static bool is_serving(const struct val_case *c, const void *unused)
{
    (void)unused;
    return c->serving;
}

/* A --max-*-error gate (limit 0: not asked): 1 when the class's median |error| exceeds it, or
 * when no row of the class was mapped - a gate that measured nothing fails. */
static int gate(struct cli *c, const char *file, const char *what, struct val_stats st, double limit)
{
    if (!(limit > 0))
        return 0;
    if (st.n == 0) {
        fprintf(c->errf, "llmroof: error: --max-%s-error: no %s row of %s was mapped; the gate measured nothing\n", what,
                what, file);
        return 1;
    }
    if (st.median_abs > limit) {
        /* the limit as given (0.0001 had printed as "0.0%"), named by its option; a gate that
         * fails is a finding, not bad input: "error:" is kept for those */
        fprintf(c->errf, "llmroof: error: --max-%s-error %g: the %s median |error| is %.4g (%.1f%%), above it\n", what, limit,
                what, st.median_abs, 100 * st.median_abs);
        return 1;
    }
    return 0;
}

struct split {
    const struct val_case *base;
    const bool *train;
    bool want_train;
    int cls; /* -1 any */
};

static bool in_split(const struct val_case *c, const void *v)
{
    const struct split *s = v;
    size_t i = (size_t)(c - s->base);
    return s->train[i] == s->want_train && (s->cls < 0 || (int)val_metric_class(c->metric) == s->cls);
}

/* --fit: joint fit on the even mapped rows, errors on both halves before and after. */
static int fit_report(struct cli *c, const char *file, struct val_case *cases, size_t n, bool all,
                      const char *gpus_out, const char *engines_out)
{
    struct llmroof_gpu *gpus = calloc(64, sizeof *gpus);
    struct llmroof_engine *engines = calloc(64, sizeof *engines);
    int ng = 0, ne = 0;
    bool *train = calloc(n ? n : 1, sizeof *train);
    if (!train || !gpus || !engines) {
        free(train);
        free(gpus);
        free(engines);
        return 1;
    }
    /* stratified: every other row within each (framework, metric class), so both halves see
     * every engine's decode and prefill rows */
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        size_t before = 0;
        for (size_t j = 0; j < i; j++)
            before += cases[j].mapped && strcmp(cases[j].row->framework, cases[i].row->framework) == 0 &&
                      val_metric_class(cases[j].metric) == val_metric_class(cases[i].metric);
        train[i] = all || before % 2 == 0;
        bool have = false;
        for (int j = 0; j < ng; j++)
            have |= strcmp(gpus[j].id, cases[i].gpu->id) == 0;
        if (!have && ng < 64)
            gpus[ng++] = *cases[i].gpu;
        have = !cases[i].engine;
        for (int j = 0; j < ne && !have; j++)
            have |= strcmp(engines[j].id, cases[i].engine->id) == 0;
        if (!have && ne < 64)
            engines[ne++] = *cases[i].engine;
    }
    struct table t;
    table_init(&t, all ? "fitted on every mapped row (no held-out rows)"
                       : "held-out check: fitted on every other row of each framework and metric class");
    table_col(&t, "rows", 0);
    table_col(&t, "class", 0);
    table_col(&t, "n", 0);
    table_col(&t, "median_abs_pct_before", 1);
    table_col(&t, "median_abs_pct_after", 1);
    table_col(&t, "p90_abs_pct_after", 1);
    struct val_stats before[2][4];
    for (int half = 0; half < 2; half++)
        for (int cls = -1; cls < 3; cls++) {
            struct split sp = { cases, train, half == 0, cls };
            before[half][cls + 1] = val_stats_of(cases, n, in_split, &sp);
        }
    double l0, l1;
    struct llmroof_err err = { 0 };
    int rc = val_fit_all(cases, n, train, gpus, ng, engines, ne, &l0, &l1, &err);
    if (rc) {
        free(train);
        free(gpus);
        free(engines);
        table_free(&t);
        return cli_fail(c, &err);
    }
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        const struct llmroof_gpu *g = NULL;
        const struct llmroof_engine *e = NULL;
        for (int j = 0; j < ng; j++)
            if (strcmp(gpus[j].id, cases[i].gpu->id) == 0)
                g = &gpus[j];
        for (int j = 0; j < ne && cases[i].engine; j++)
            if (strcmp(engines[j].id, cases[i].engine->id) == 0)
                e = &engines[j];
        val_predict(&cases[i], g, e, NULL);
    }
    for (int half = 0; half < (all ? 1 : 2); half++)
        for (int cls = -1; cls < 3; cls++) {
            struct split sp = { cases, train, half == 0, cls };
            struct val_stats a = val_stats_of(cases, n, in_split, &sp);
            table_row(&t);
            table_str(&t, half == 0 ? "fitted" : "held out");
            table_str(&t, cls < 0 ? "all" : val_class_name((enum val_class)cls));
            table_num(&t, (double)a.n);
            table_num(&t, 100 * before[half][cls + 1].median_abs);
            table_num(&t, 100 * a.median_abs);
            table_num(&t, 100 * a.p90_abs);
        }
    if (cli_prose(c))
        sbuf_printf(&c->out, "llmroof validate --fit %s: %d GPUs and %d engines fitted; mean |log ratio| %.3f -> %.3f on "
                             "the fitted rows\n\n", file, ng, ne, l0, l1);
    cli_table(c, "errors", &t);
    table_free(&t);
    table_init(&t, "fitted GPU parameters");
    table_col(&t, "gpu", 0);
    table_col(&t, "compute_eff", 3);
    table_col(&t, "memory_eff", 3);
    table_col(&t, "comm_eff", 3);
    table_col(&t, "step_overhead_us", 0);
    table_col(&t, "link_latency_us", 1);
    for (int j = 0; j < ng; j++) {
        table_row(&t);
        table_str(&t, gpus[j].id);
        table_num(&t, gpus[j].compute_eff);
        table_num(&t, gpus[j].memory_eff);
        table_num(&t, gpus[j].comm_eff);
        table_num(&t, gpus[j].step_overhead_s * 1e6);
        table_num(&t, gpus[j].link_latency_s * 1e6);
    }
    if (cli_prose(c))
        sbuf_append(&c->out, "\n");
    cli_table(c, "gpus", &t);
    table_free(&t);
    table_init(&t, "fitted engine profiles");
    table_col(&t, "engine", 0);
    table_col(&t, "step_overhead_us", 0);
    table_col(&t, "first_token_ms", 2);
    table_col(&t, "compute_scale", 3);
    table_col(&t, "collective_latency_us", 1);
    for (int j = 0; j < ne; j++) {
        table_row(&t);
        table_str(&t, engines[j].id);
        table_num(&t, engines[j].step_overhead_s * 1e6);
        table_num(&t, engines[j].first_token_s * 1e3);
        table_num(&t, engines[j].compute_scale);
        table_num(&t, engines[j].collective_latency_s * 1e6);
    }
    if (cli_prose(c))
        sbuf_append(&c->out, "\n");
    cli_table(c, "engines", &t);
    table_free(&t);
    rc = 0;
    if (gpus_out) {
        /* the whole catalog, fitted entries replaced, each fitted one noting it */
        struct llmroof_gpu *all_g = malloc(sizeof *all_g * (c->cat.n_gpus ? c->cat.n_gpus : 1));
        if (!all_g) {
            free(train);
            free(gpus);
            free(engines);
            return 1;
        }
        memcpy(all_g, c->cat.gpus, sizeof *all_g * c->cat.n_gpus);
        for (size_t i = 0; i < c->cat.n_gpus; i++)
            for (int j = 0; j < ng; j++)
                if (strcmp(all_g[i].id, gpus[j].id) == 0 &&
                    (gpus[j].compute_eff != all_g[i].compute_eff || gpus[j].memory_eff != all_g[i].memory_eff ||
                     gpus[j].comm_eff != all_g[i].comm_eff || gpus[j].link_latency_s != all_g[i].link_latency_s)) {
                    char src[LLMROOF_SOURCE_MAX - 200];
                    snprintf(src, sizeof src, "%.1800s", all_g[i].source);
                    char *cut = strstr(src, "; efficiencies fitted by llmroof");
                    if (cut)
                        *cut = '\0';
                    const bool mem_moved = gpus[j].memory_eff != all_g[i].memory_eff;
                    all_g[i] = gpus[j];
                    /* a memory share fitted to these rows: their cross-validation replaces it */
                    all_g[i].memory_eff_fitted |= mem_moved;
                    snprintf(all_g[i].source, sizeof all_g[i].source,
                             "%s; efficiencies fitted by llmroof validate --fit-all to %.100s (docs/validation.md)", src, file);
                }
        char *j = render_json_gpus(all_g, c->cat.n_gpus);
        free(all_g);
        struct sbuf b = { j, j ? strlen(j) : 0, j ? strlen(j) + 1 : 0, j == NULL };
        rc = j ? cli_write_file(c, gpus_out, &b) : 1;
        free(j);
    }
    if (!rc && engines_out) {
        for (int j = 0; j < ne; j++) {
            long rows = 0;
            for (size_t i = 0; i < n; i++)
                rows += cases[i].mapped && train[i] && cases[i].engine && strcmp(cases[i].engine->id, engines[j].id) == 0;
            snprintf(engines[j].source, sizeof engines[j].source,
                     "fitted by llmroof validate --fit-all to %ld rows of %s (docs/validation.md)", rows, file);
        }
        char *e = render_json_engines(engines, ne);
        struct sbuf eb = { e, e ? strlen(e) : 0, e ? strlen(e) + 1 : 0, e == NULL };
        rc = e ? cli_write_file(c, engines_out, &eb) : 1;
        free(e);
    }
    free(train);
    free(gpus);
    free(engines);
    return rc;
}

/* The serving rows (docs/validation.md "Serving rows"): read, simulate (in sample, or held out
 * by publication with --cv source), and report per row, per class and per load kind, with every
 * row that is not predicted and why. JSON: *json receives the "serving" object. */
/* One group of the serving summary: its table row and, for JSON, its object in jsum. */
static void summary_row(struct table *t, cJSON *jsum, const char *name, struct val_stats s)
{
    table_row(t);
    table_str(t, name);
    table_val_stats(t, s);
    if (jsum) {
        render_json_add_stats(rj_obj(jsum, name), s, "median_abs", "p90_abs");
    }
}

static int serving_report(struct cli *c, struct ctx *x, const char *file, const char *map_file, struct val_case *st,
                          size_t nst, cJSON **json, int *gate_rc, struct llmroof_uncertainty *bands)
{
    struct llmroof_err err = { 0 };
    char *text = NULL, *mtext = NULL;
    size_t len = 0, mlen = 0, n = 0;
    struct srv_case *cases = NULL;
    if (cli_read_input(c, "option '--serving'", file, (size_t)64 << 20, &text, &len, &err) ||
        cli_read_input(c, "option '--serving-map'", map_file, (size_t)64 << 20, &mtext, &mlen, &err) ||
        srv_load_cases(&c->cat, text, len, cli_input_name(file), mtext, mlen, cli_input_name(map_file), &cases, &n,
                       &err)) {
        free(text);
        free(mtext);
        return cli_fail(c, &err);
    }
    free(text);
    free(mtext);
    /* the validation map's reserved sources stay out of the serving rows too, as out of the static */
    {
        struct llmroof_valmap *vm = calloc(1, sizeof *vm);
        int mrc = vm ? cli_valmap(c, x->map, vm) : 1;
        if (mrc) {
            free(vm);
            free(cases);
            return mrc;
        }
        for (size_t i = 0; i < n; i++) {
            char key[VAL_TEXT];
            srv_source_key(&cases[i], key, sizeof key);
            for (int k = 0; k < vm->nreserved && cases[i].mapped; k++)
                if (strncmp(key, vm->reserved[k], strlen(vm->reserved[k])) == 0) {
                    cases[i].mapped = false;
                    snprintf(cases[i].reason, sizeof cases[i].reason,
                             "source '%.96s' is reserved for the independent check", vm->reserved[k]);
                }
        }
        free(vm);
    }
    int folds = 0, rc = 0;
    bool held_out = x->cv == VAL_CV_SOURCE;
    const int threads = cli_threads(c, x->threads);
    if (held_out ? srv_cross_validate(cases, n, st, nst, &folds, threads, &err)
                 : srv_predict_jobs(cases, n, NULL, NULL, 0, NULL, 0, threads, &err)) {
        free(cases);
        return cli_fail(c, &err);
    }
    srv_bands(cases, n, bands); /* for --uncertainty-out (simulate --range) */
    struct table t;
    table_init(&t, held_out ? "serving rows, held out by publication" : "serving rows");
    table_col(&t, "id", 0);
    table_col(&t, "class", 0);
    table_col(&t, "load", 0);
    table_col(&t, "model", 0);
    table_col(&t, "gpu", 0);
    table_col(&t, "engine", 0);
    table_col(&t, "metric", 0);
    table_col(&t, "compared", 0);
    table_col(&t, "measured", 3);
    table_col(&t, "predicted", 3);
    table_col(&t, "error_pct", 1);
    cJSON *o = c->format == TABLE_JSON ? cJSON_CreateObject() : NULL, *jr = NULL, *js = NULL;
    if (c->format == TABLE_JSON && !o) { /* the tables in its place would print beside the JSON (a review) */
        table_free(&t);
        free(cases);
        fputs("llmroof: error: out of memory\n", c->errf);
        return 1;
    }
    if (o) {
        rj_str(o, "file", file);
        rj_str(o, "map", map_file);
        rj_str(o, "predictions", held_out ? "held out by publication" : "in sample");
        jr = rj_arr(o, "rows");
        js = rj_arr(o, "skipped");
    }
    long skipped = 0;
    for (size_t i = 0; i < n; i++) {
        const struct srv_case *k = &cases[i];
        if (!k->mapped) {
            skipped++;
            if (js) {
                cJSON *r = cJSON_CreateObject();
                rj_str(r, "id", k->id);
                rj_str(r, "reason", k->reason);
                rj_push(js, r);
            }
            continue;
        }
        table_row(&t);
        table_str(&t, k->id);
        table_str(&t, srv_class_name(srv_metric_class(k->metric)));
        table_str(&t, srv_load_name(k->load));
        table_str(&t, k->model->id);
        table_str(&t, k->gpu->id);
        table_str(&t, k->engine ? k->engine->id : "-");
        table_str(&t, k->metric_text);
        char cmp[48];
        srv_compared(k, cmp, sizeof cmp);
        table_str(&t, cmp);
        table_num(&t, k->measured);
        table_num(&t, k->predicted);
        table_num(&t, 100 * k->err);
        if (jr) {
            cJSON *r = cJSON_CreateObject();
            rj_str(r, "id", k->id);
            rj_str(r, "class", srv_class_name(srv_metric_class(k->metric)));
            rj_str(r, "load", srv_load_name(k->load));
            rj_str(r, "model", k->model->id);
            rj_str(r, "gpu", k->gpu->id);
            rj_str(r, "engine", k->engine ? k->engine->id : "");
            rj_str(r, "metric", k->metric_text);
            rj_str(r, "compared", cmp);
            rj_num(r, "measured", k->measured);
            rj_num(r, "predicted", k->predicted);
            rj_num(r, "error", k->err);
            if (k->note[0])
                rj_str(r, "assumptions", k->note);
            rj_push(jr, r);
        }
    }
    if (cli_prose(c))
        sbuf_printf(&c->out, "llmroof validate: %zu serving rows of %s (map %s), %s; error = predicted / measured "
                             "time - 1 (rates inverted), > 0 = llmroof slower\n\n",
                    n, file, map_file, held_out ? "held out by publication" : "in sample");
    if (held_out && cli_prose(c))
        sbuf_printf(&c->out, "(%d fits: each publication's rows predicted with every GPU and engine fitted to the "
                             "static rows of the other publications)\n\n", folds);
    if (!o)
        cli_table(c, "serving", &t); /* JSON: the "serving" object instead */
    table_free(&t);
    table_init(&t, held_out ? "serving summary, held out by publication" : "serving summary");
    table_col(&t, "group", 0);
    table_col(&t, "n", 0);
    table_col(&t, "median_abs_pct", 1);
    table_col(&t, "p90_abs_pct", 1);
    table_col(&t, "bias_pct", 1);
    cJSON *jsum = o ? rj_obj(o, "summary") : NULL;
    for (int g = -1; g < SRV_CLASS_COUNT + SRV_LOAD_COUNT; g++) {
        int cls = g >= 0 && g < SRV_CLASS_COUNT ? g : -1, load = g >= SRV_CLASS_COUNT ? g - SRV_CLASS_COUNT : -1;
        struct val_stats s = srv_stats(cases, n, cls, load);
        char name[48];
        snprintf(name, sizeof name, "%s%s", g < 0 ? "all" : cls >= 0 ? "class " : "load ",
                 g < 0 ? "" : cls >= 0 ? srv_class_name((enum srv_class)cls) : srv_load_name((enum srv_load)load));
        if (g >= 0 && s.n == 0)
            continue;
        summary_row(&t, jsum, name, s);
    }
    /* each publication's rows, as --cv source holds them out (one source may hold many rows) */
    char (*seen)[VAL_TEXT] = calloc(n ? n : 1, sizeof *seen), (*shown)[VAL_TEXT] = calloc(n ? n : 1, sizeof *shown);
    size_t ns = 0, nshown = 0;
    for (size_t i = 0; i < n && seen && shown; i++) {
        char k[VAL_TEXT];
        if (!cases[i].mapped)
            continue;
        srv_source_key(&cases[i], k, sizeof k);
        if (!first_seen(seen, &ns, k))
            continue;
        struct val_stats s = srv_stats_source(cases, n, k);
        /* whole in CSV and JSON, shortened for a text table unless another publication's name
         * shortens alike (lmdeploy's docs/en/benchmark/... pages) */
        char name[VAL_TEXT + 8], sh[VAL_TEXT];
        short_source(k, sh, sizeof sh);
        const bool whole = o || c->format == TABLE_CSV || !first_seen(shown, &nshown, sh);
        snprintf(name, sizeof name, "source %s", whole ? k : sh);
        summary_row(&t, jsum, name, s);
    }
    free(seen);
    free(shown);
    if (cli_prose(c))
        sbuf_append(&c->out, "\n");
    if (!o)
        cli_table(c, "serving-summary", &t); /* JSON: the "serving" object instead */
    table_free(&t);
    table_init(&t, "serving rows not predicted");
    table_col(&t, "id", 0);
    table_col(&t, "reason", 0);
    for (size_t i = 0; i < n; i++)
        if (!cases[i].mapped) {
            table_row(&t);
            table_str(&t, cases[i].id);
            table_str(&t, cases[i].reason);
        }
    if (cli_prose(c))
        sbuf_printf(&c->out, "\n%ld of %zu serving rows not predicted:\n", skipped, n);
    if (!o)
        cli_table(c, "serving-skipped", &t); /* JSON: the "serving" object instead */
    table_free(&t);
    if (cli_prose(c))
        sbuf_append(&c->out, "\n");
    for (int k = 0; k < SRV_CLASS_COUNT; k++) {
        if (!(x->max_srv_cls[k] > 0))
            continue;
        struct val_stats s = srv_stats(cases, n, k, -1);
        if (s.n == 0) {
            fprintf(c->errf, "llmroof: error: --max-serving-class-error: no %s row of %s was predicted; the gate measured "
                             "nothing\n", srv_class_name((enum srv_class)k), file);
            *gate_rc = 1;
        } else if (s.median_abs > x->max_srv_cls[k]) {
            fprintf(c->errf, "llmroof: error: --max-serving-class-error %s=%g: the %s rows' median |error| is %.4g (%.1f%%), "
                             "above it\n",
                    srv_class_name((enum srv_class)k), x->max_srv_cls[k], srv_class_name((enum srv_class)k), s.median_abs,
                    100 * s.median_abs);
            *gate_rc = 1;
        }
    }
    *json = o;
    free(cases);
    return rc;
}

int cmd_validate(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        { OPT_BY, "by", 0, "GROUP", "summary groups: metric (default), gpu, source or model", false },
        { OPT_MAP, "map", 0, "FILE", "name mapping (default: validation-map.json beside the catalog)", false },
        { OPT_SVG, "svg", 0, "FILE", "write the predicted-vs-measured scatter chart", false },
        { OPT_UNC, "uncertainty-out", 0, "FILE", "write the uncertainty bands that --range reads", false },
        { OPT_MAXDEC, "max-decode-error", 0, "F", "exit 1 if the decode median |error| exceeds F (0.15 or 15%; held out with --cv, else in sample)", false },
        { OPT_MAXPRE, "max-prefill-error", 0, "F", "exit 1 if the prefill/TTFT median |error| exceeds F", false },
        { OPT_MAXE2E, "max-e2e-error", 0, "F", "exit 1 if the e2e/static-throughput median |error| exceeds F", false },
        { OPT_MAXSRV, "max-serving-error", 0, "F", "exit 1 if FILE.csv's rows under a load (its \"load serving\" group) have a median |error| above F; "
          "the --serving file's: --max-serving-class-error", false },
        { OPT_FIT, "fit", 0, NULL, "fit every GPU and engine on every other row; report the held-out error", false },
        { OPT_FIT_ALL, "fit-all", 0, NULL, "fit on every mapped row (after --fit has checked the held-out error)", false },
        { OPT_FIT_GPUS, "fit-gpus", 0, "FILE", "with --fit: write the GPU catalog with the fitted values", false },
        { OPT_FIT_ENGINES, "fit-engines", 0, "FILE", "with --fit: write the fitted engine profiles", false },
        { OPT_OPS, "ops", 0, "FILE", "per-operator kernel times (bench/gpu/measure.py) to compare; needs --gpu", false },
        { OPT_OUT, "out", 0, "FILE", "with --ops: write the GPU entry with the measured asymptotes as efficiencies", false },
        { OPT_CV, "cv", 0, "BY", "cross-validate: leave one source (publication) or gpu out, refit, predict it", false },
        { OPT_QUIET, "quiet", 'q', NULL, "no progress line for --cv (shown only on a terminal, after a second)", false },
        { OPT_JOBS, "jobs", 'j', "N", "threads for --cv's folds, 1-64 (default: the processors this process may run on; API requests 1); the report is the same at any N", false },
        { OPT_SERVING, "serving", 0, "FILE", "serving rows to simulate (default without FILE.csv: serving.csv beside the catalog)", false },
        { OPT_SERVING_MAP, "serving-map", 0, "FILE", "how each serving row is set up (default: serving-map.csv beside the catalog)", false },
        { OPT_MAXSRVCLS, "max-serving-class-error", 0, "LIST", "exit 1 if a serving class's median |error| exceeds its limit: throughput=F,ttft=F,...", false },
        CLI_OPT_GPU,
        CLI_OPT_MODEL,
        CLI_OPT_TP,
        { OPT_CE, "compute-eff", 0, "F", "with --ops: fraction of peak FLOP/s (default: catalog)", false },
        { OPT_ME, "memory-eff", 0, "F", "with --ops: fraction of peak bandwidth (default: catalog)", false },
    };
    struct ctx x;
    memset(&x, 0, sizeof x);
    x.by = VAL_BY_METRIC;
    cli_setup_defaults(&x.s);
    char *pos[1];
    int npos = 0;
    static const char *const tables[] = { "rows", "summary", "unmapped", "kernels", "operators", "errors", "gpus",
                                          "engines", "crossval", "serving", "serving-summary", "serving-skipped", NULL };
    c->tables = tables;
    c->usage = "llmroof validate [FILE.csv] [--serving FILE] [--cv source|gpu] [--by metric|gpu|source|model] [--svg FILE] [--uncertainty-out FILE]\n"
               "       llmroof validate --ops OPS.csv -g GPU [-m MODEL] [-t TP]";
    static const char *const outputs[] = { "svg", "uncertainty-out", "fit-gpus", "fit-engines", "out", NULL }; /* checked before the work */
    c->outputs = outputs;
    c->positionals = "validate takes one FILE.csv, or none for the published set";
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, &x, pos, 1, &npos,
                       "Maps each row of a measurements CSV (data/measurements.csv's format, docs/validation.md) to the catalog,\n"
                       "predicts its metric with the same inputs and prints predicted, measured and the error\n"
                       "(predicted / measured - 1), then the median and p90 |error| and the bias, overall, per\n"
                       "metric class and per group. Rows that cannot be mapped are listed with the reason.\n"
                       "Method and figures: docs/validation.md.");
    if (rc)
        return rc;
    if (x.ops) {
        if (npos)
            return cli_usage_error(c, "option '--ops' reads its own FILE: drop the FILE.csv argument");
        if (x.fit || x.fit_gpus || x.fit_engines || x.svg || x.unc || x.max_dec > 0 || x.max_pre > 0 || x.map)
            return cli_usage_error(c, "option '--ops' compares operators only: drop --fit, --svg, --uncertainty-out, "
                                      "--max-*-error and --map");
        c->json_schema = "llmroof.validate-ops/1";
        return validate_ops(c, &x);
    }
    if (x.s.gpu || x.s.model || x.have_tp || x.s.eff.has_compute || x.s.eff.has_memory || x.out)
        return cli_usage_error(c, "options '--gpu', '--model', '--tp', '--compute-eff', '--memory-eff' and '--out' go with "
                                  "'--ops'");
    if (npos == 1 && !*pos[0]) /* it had read as the file '' ("llmroof: error: : cannot read file") */
        return cli_usage_error(c, "expected one FILE.csv, got an empty file name");
    if (npos == 1 && (rc = cli_check_stdin(c, "FILE.csv", pos[0])))
        return rc;
    char deffile[PATH_MAX + 32];
    if (npos == 0) {
        /* the published set installed with the catalog (data/measurements.csv) */
        if ((rc = cli_catalog(c)))
            return rc;
        snprintf(deffile, sizeof deffile, "%s/measurements.csv", c->data_dir);
        pos[0] = deffile;
    }
    struct val_row *rows = NULL;
    struct val_case *cases = NULL;
    size_t n = 0;
    const char *file = cli_input_name(pos[0]); /* "<stdin>" for '-', in results and messages */
    if ((rc = cli_validation_cases(c, pos[0], x.map, &rows, &cases, &n)))
        return rc;
    if (c->flags & CLI_PARSE_ONLY) {
        free(rows);
        free(cases);
        return 0;
    }
    if (x.fit) {
        c->json_schema = "llmroof.validate-fit/1";
        rc = fit_report(c, file, cases, n, x.fit_all, x.fit_gpus, x.fit_engines);
        free(rows);
        free(cases);
        return rc;
    }
    if (x.fit_gpus || x.fit_engines) {
        free(rows);
        free(cases);
        return cli_usage_error(c, "options '--fit-gpus' and '--fit-engines' need '--fit'");
    }
    struct val_cv_report *rep = NULL;
    if (x.cv != VAL_CV_NONE) {
        struct llmroof_err err = { 0 };
        rep = calloc(1, sizeof *rep);
        struct cli_progress pr;
        bool show = cli_progress_start(c, &pr, "folds", x.quiet);
        const int threads = cli_threads(c, x.threads); /* --jobs, else the processors (a request: 1) */
        if (!rep || val_cross_validate_progress(cases, n, x.cv, rep, show ? cli_progress_report : NULL, &pr, threads,
                                                &err)) {
            free(rows);
            free(cases);
            free(rep);
            return rep ? cli_fail(c, &err) : 1;
        }
    }
    if (x.svg) {
        struct sbuf svg;
        sbuf_init(&svg);
        render_validate_scatter("llmroof predicted against published measurements", cases, n, &svg);
        rc = sbuf_failed(&svg) ? 1 : cli_write_file(c, x.svg, &svg);
        sbuf_free(&svg);
    }
    /* --uncertainty-out's bands: the static rows' here, the serving rows' (serving_*) once they
     * have run; the file is written after both */
    struct llmroof_uncertainty bands;
    val_bands(cases, n, &bands);
    cJSON *cv_json = NULL; /* --format json: "cross_validation", the held-out groups */
    if (!rc && rep && c->format == TABLE_JSON) {
        if ((cv_json = cJSON_CreateObject()))
            cv_summary(c, file, cases, n, x.cv, rep, cv_json);
        else
            rc = 1; /* a document without its "cross_validation" is no answer (a review) */
    } else if (!rc && rep) {
        cv_summary(c, file, cases, n, x.cv, rep, NULL);
        if (cli_prose(c))
            sbuf_append(&c->out, "\n");
    }
    free(rep);
    /* the serving rows: asked for, or the installed set's with the installed measurements */
    char srvfile[PATH_MAX + 32], srvmap[PATH_MAX + 32];
    const char *sfile = x.serving;
    int srv_gate = 0;
    cJSON *srv_json = NULL;
    if (!rc && (x.serving || npos == 0 || x.serving_map)) {
        if ((rc = cli_catalog(c)))
            goto out;
        if (!sfile) {
            snprintf(srvfile, sizeof srvfile, "%s/serving.csv", c->data_dir);
            sfile = srvfile;
        }
    }
    /* a catalog directory without the serving set (an older or a user's own): the static rows only */
    if (!rc && sfile == srvfile && access(srvfile, R_OK) != 0)
        sfile = NULL;
    bool srv_limits = false;
    for (int k = 0; k < SRV_CLASS_COUNT; k++)
        srv_limits |= x.max_srv_cls[k] > 0;
    if (!rc && srv_limits && !sfile) {
        rc = cli_usage_error(c, "option '--max-serving-class-error' needs serving rows: give '--serving FILE'");
        goto out;
    }
    if (!rc && sfile) {
        snprintf(srvmap, sizeof srvmap, "%s/serving-map.csv", c->data_dir);
        if (c->format != TABLE_JSON)
            render_validate(file, cases, n, x.by, x.cv != VAL_CV_NONE, c->format, &c->sel, &c->out);
        rc = serving_report(c, &x, sfile, x.serving_map ? x.serving_map : srvmap, cases, n, &srv_json, &srv_gate,
                            &bands);
        if (rc)
            goto out;
    } else if (!rc && c->format != TABLE_JSON) {
        render_validate(file, cases, n, x.by, x.cv != VAL_CV_NONE, c->format, &c->sel, &c->out);
    }
    if (!rc && c->format == TABLE_JSON) {
        char *j = render_json_validate(file, cases, n, x.by);
        cJSON *doc = j && (srv_json || x.cv != VAL_CV_NONE) ? cJSON_Parse(j) : NULL;
        if (doc) {
            /* the rows' predictions are held out by this, or in sample where "cv" is null */
            if (cv_json) {
                rj_item(doc, "cross_validation", cv_json);
                cv_json = NULL;
            }
            if (srv_json) {
                rj_item(doc, "serving", srv_json);
                srv_json = NULL;
            }
            char *p = rj_print(doc, true, false);
            if (p) {
                sbuf_append(&c->out, p);
                sbuf_append(&c->out, "\n");
            } else {
                rc = 1;
            }
            free(p);
            cJSON_Delete(doc);
        } else if (j && !srv_json && x.cv == VAL_CV_NONE) {
            sbuf_append(&c->out, j);
        } else {
            rc = 1;
        }
        free(j);
    }
    if (!rc && x.unc) {
        const char *cv = x.cv == VAL_CV_SOURCE ? "source" : x.cv == VAL_CV_GPU ? "gpu" : NULL;
        const bool srv = bands.serving_ttft.present || bands.serving_tpot.present || bands.serving_e2e.present;
        /* bands from no predicted row: a file --range would refuse (catalog_load_uncertainty) */
        if (!srv && !bands.ttft.present && !bands.tpot.present && !bands.e2e.present) {
            fprintf(c->errf, "llmroof: error: option '--uncertainty-out': no row of %s was predicted, so there are "
                             "no bands to write; %s not written\n",
                    CLI_CLIP(cli_input_name(file)), CLI_CLIP(x.unc));
            rc = 2; /* and on, to free what this command holds (a leak check found the return) */
        } else if (!srv)
            /* simulate --range falls back to the static bands with such a file */
            fprintf(c->errf, "llmroof: note: no serving rows ran (give --serving data/serving.csv): %s has no "
                             "serving_* bands, so simulate --range will take the static ones\n",
                    CLI_CLIP(x.unc));
        /* serving rows are held out only by publication (--cv source); with --cv gpu or none, in sample */
        if (!rc) {
            char *j = render_json_uncertainty(file, srv ? cli_input_name(sfile) : NULL, x.cv == VAL_CV_SOURCE, cv, &bands);
            struct sbuf b = { j, j ? strlen(j) : 0, j ? strlen(j) + 1 : 0, j == NULL };
            rc = j ? cli_write_file(c, x.unc, &b) : 1;
            free(j);
        }
    }
    /* every gate says whether it failed: a failing serving-class gate had kept the static gates'
     * messages back (an audit) */
    if (!rc && (x.max_dec > 0 || x.max_pre > 0 || x.max_e2e > 0 || x.max_srv > 0)) {
        enum val_class dec = VAL_CLASS_DECODE, pre = VAL_CLASS_PREFILL, e2e = VAL_CLASS_E2E;
        rc |= gate(c, file, "decode", val_stats_of(cases, n, in_class, &dec), x.max_dec);
        rc |= gate(c, file, "prefill", val_stats_of(cases, n, in_class, &pre), x.max_pre);
        rc |= gate(c, file, "e2e", val_stats_of(cases, n, in_class, &e2e), x.max_e2e);
        rc |= gate(c, file, "serving", val_stats_of(cases, n, is_serving, NULL), x.max_srv);
        c->out_on_failure = rc == 1;
    }
    if ((!rc || rc == 1) && srv_gate) {
        rc = 1;
        c->out_on_failure = true;
    }
out:
    cJSON_Delete(cv_json);
    cJSON_Delete(srv_json);
    free(rows);
    free(cases);
    return rc;
}
