/* cmd_calibrate.c - `llmroof calibrate FILE.csv -g GPU`: fit one GPU's efficiencies and step
 * overhead to measurements and write a catalog entry that --gpus-file accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "render/render_json.h"
#include "fit/validate.h"

int cli_validation_cases(struct cli *c, const char *file, const char *map_path, struct val_row **rows,
                         struct val_case **cases, size_t *n);

enum { OPT_OUT = 1, OPT_MAP, OPT_HOLDOUT, OPT_CV };

struct ctx {
    struct cli_setup_opts s;
    const char *out, *map;
    bool holdout;
    bool cv_source; /* --cv source: each publication's rows predicted by a fit without them */
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    switch (id) {
    case OPT_OUT: x->out = arg; return 0;
    case OPT_MAP: x->map = arg; return cli_check_input(c, "map", arg);
    case OPT_HOLDOUT: x->holdout = true; return 0;
    case OPT_CV:
        if (strcmp(arg, "source") != 0)
            return cli_usage_error(c, "option '--cv': '%s' is not 'source' (calibrate fits one GPU: only its "
                                      "publications can be left out)", CLI_CLIP(arg));
        x->cv_source = true;
        return 0;
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

static bool on_gpu(const struct val_case *c, const void *g)
{
    return c->gpu == g;
}

/* "no usable measurement maps to GPU X" alone left a user with their own CSV guessing: it now
 * counts where the file's rows went and quotes the first unmapped row's reason (validate lists
 * them all). */
static void no_rows_message(struct llmroof_err *err, const char *file, const struct val_case *cases,
                            const bool *held, size_t n, const struct llmroof_gpu *g)
{
    size_t here = 0, load = 0, kept = 0, other = 0, unmapped = 0;
    const struct val_case *first = NULL;
    for (size_t i = 0; i < n; i++) {
        if (held[i]) {
            kept++;
        } else if (!cases[i].mapped) {
            unmapped++;
            if (!first && cases[i].row)
                first = &cases[i];
        } else if (cases[i].gpu != g) {
            other++;
        } else if (cases[i].serving) {
            load++;
        } else {
            here++;
        }
    }
    if (n == 0) {
        llmroof_err_set(err, LLMROOF_EINPUT, "%s has no measurement rows to fit GPU '%s' to", file, g->id);
        return;
    }
    char parts[900];
    int k = snprintf(parts, sizeof parts, "%zu map to it", here + load + kept);
    if (load && k >= 0 && (size_t)k < sizeof parts)
        k += snprintf(parts + k, sizeof parts - (size_t)k, " (%zu measured under a load, which only the simulator "
                      "predicts)", load);
    if (kept && k >= 0 && (size_t)k < sizeof parts)
        k += snprintf(parts + k, sizeof parts - (size_t)k, " (%zu set aside by --holdout)", kept);
    if (k >= 0 && (size_t)k < sizeof parts)
        k += snprintf(parts + k, sizeof parts - (size_t)k, ", %zu to other GPUs and %zu to nothing", other, unmapped);
    if (first && k >= 0 && (size_t)k < sizeof parts)
        snprintf(parts + k, sizeof parts - (size_t)k, " (line %ld: %s)", first->row->line, first->reason);
    llmroof_err_set(err, LLMROOF_EINPUT,
                    "no usable measurement maps to GPU '%s': of the %zu row%s of %s, %s; 'llmroof validate %s' "
                    "lists every row's mapping",
                    g->id, n, n == 1 ? "" : "s", file, parts, file);
}

/* --cv source: this GPU's rows of each publication (val_publication of the row's source key, as
 * validate --cv source keys its folds) predicted by a fit to its rows of the other publications
 * alone; *test holds those predictions' statistics, *pubs counts the publications and *lone the
 * rows no fit could predict (a publication that holds every row of the GPU). A fit's error on its
 * own rows says little of a GPU (a review asked for the held-out one by source, not by row: the
 * alternate rows --holdout sets aside are the same publication's neighbours). */
static int cv_source(const struct val_case *cases, size_t n, const struct val_row *rows, const struct llmroof_gpu *g,
                     struct val_stats *test, size_t *pubs, size_t *lone)
{
    const size_t m = n ? n : 1;
    char(*key)[VAL_TEXT] = calloc(m, sizeof *key);
    struct val_case *fold = malloc(sizeof *fold * m), *held = malloc(sizeof *held * m);
    bool *done = calloc(m, sizeof *done);
    int rc = LLMROOF_OK;
    if (!key || !fold || !held || !done) {
        rc = LLMROOF_EINTERNAL;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        held[i] = cases[i];
        held[i].mapped = false;
        if (cases[i].mapped && cases[i].gpu == g) {
            char k[VAL_TEXT];
            val_source_key(cases[i].row ? cases[i].row : &rows[i], k, sizeof k);
            val_publication(k, key[i], sizeof key[i]);
        } else {
            done[i] = true;
        }
    }
    *pubs = *lone = 0;
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        (*pubs)++;
        memcpy(fold, cases, sizeof *fold * n);
        for (size_t j = i; j < n; j++)
            if (!done[j] && strcmp(key[j], key[i]) == 0)
                fold[j].mapped = false;
        struct val_fit f;
        struct llmroof_err e = { 0 };
        const bool fitted = val_calibrate(fold, n, g, &f, &e) == LLMROOF_OK;
        struct llmroof_gpu fg = *g;
        fg.compute_eff = f.after.compute;
        fg.memory_eff = f.after.memory;
        fg.comm_eff = f.after.comm;
        fg.step_overhead_s = f.after.overhead_s;
        for (size_t j = i; j < n; j++)
            if (!done[j] && strcmp(key[j], key[i]) == 0) {
                done[j] = true;
                if (!fitted) {
                    (*lone)++;
                    continue;
                }
                held[j] = cases[j];
                if (val_predict(&held[j], &fg, NULL, NULL))
                    held[j].mapped = false;
            }
    }
    *test = val_stats_of(held, n, on_gpu, g);
out:
    free(key);
    free(fold);
    free(held);
    free(done);
    return rc;
}

int cmd_calibrate(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        CLI_OPT_GPU,
        { OPT_OUT, "out", 0, "FILE", "write the calibrated GPU entry as a catalog file", false },
        { OPT_MAP, "map", 0, "FILE", "name mapping (default: validation-map.json beside the catalog)", false },
        { OPT_HOLDOUT, "holdout", 0, NULL, "fit on every other row, report the error on the rest", false },
        { OPT_CV, "cv", 0, "source", "predict each publication's rows with a fit to the others' (held out by source)",
          false },
    };
    struct ctx x;
    memset(&x, 0, sizeof x);
    cli_setup_defaults(&x.s);
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof calibrate FILE.csv -g GPU [--out gpu.json] [--holdout | --cv source]";
    static const char *const outputs[] = { "out", NULL }; /* checked before the work */
    c->outputs = outputs;
    c->positionals = "calibrate takes one FILE.csv";
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, &x, pos, 1, &npos,
                       "Fits the compute, memory and communication efficiencies and the per-step overhead of one\n"
                       "GPU to the rows of FILE.csv measured on it (mean |log(predicted / measured)|, within\n"
                       "physical bounds), prints the values and the error before and after, and with --out\n"
                       "writes a catalog entry for --gpus-file. Parameters the rows do not constrain keep\n"
                       "their catalog values.");
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage_error(c, "expected one FILE.csv");
    if (!*pos[0]) /* it had read as the file '' ("llmroof: error: : cannot read file") */
        return cli_usage_error(c, "expected one FILE.csv, got an empty file name");
    if ((rc = cli_check_stdin(c, "FILE.csv", pos[0])))
        return rc;
    if (!x.s.gpu)
        return cli_usage_error(c, "option '--gpu' is required");
    if (x.holdout && x.cv_source)
        return cli_usage_error(c, "options '--holdout' and '--cv source' both set aside rows: give one");
    if ((rc = cli_catalog(c)))
        return rc;
    const struct llmroof_gpu *g = cli_gpu(c, x.s.gpu);
    if (!g)
        return 2;
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
    /* the rows that could not be read or mapped, on this GPU or on none the map knows, are named
     * as validate names them (a review: a row whose value read "8.4 ms" was dropped unsaid, the
     * count of rows one fewer); rows of other GPUs are simply not this GPU's */
    size_t dropped = 0;
    for (size_t i = 0; i < n; i++)
        if (!cases[i].mapped && (!cases[i].gpu || cases[i].gpu == g)) {
            const struct val_row *r = cases[i].row ? cases[i].row : &rows[i];
            if (dropped < 5)
                fprintf(c->errf, "llmroof: note: %s:%ld (%s): not used: %s\n", file, r->line, r->id, cases[i].reason);
            dropped++;
        }
    if (dropped > 5)
        fprintf(c->errf, "llmroof: note: %s: %zu more rows not used ('llmroof validate %s' lists them all)\n", file,
                dropped - 5, file);
    /* with --holdout, odd rows of this GPU are set aside */
    bool *held = calloc(n ? n : 1, sizeof *held);
    if (!held) {
        free(rows);
        free(cases);
        return cli_fail(c, &(struct llmroof_err){ LLMROOF_EINTERNAL, "out of memory" });
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (cases[i].mapped && cases[i].gpu == g && x.holdout && (k++ % 2 == 1)) {
            held[i] = true;
            cases[i].mapped = false;
        }
    struct val_fit fit;
    struct llmroof_err err = { 0 };
    if ((rc = val_calibrate(cases, n, g, &fit, &err))) {
        if (rc == LLMROOF_EINPUT)
            no_rows_message(&err, file, cases, held, n, g);
        free(held);
        free(rows);
        free(cases);
        return cli_fail(c, &err);
    }
    struct llmroof_gpu fitted_gpu = *g;
    fitted_gpu.compute_eff = fit.after.compute;
    fitted_gpu.memory_eff = fit.after.memory;
    fitted_gpu.comm_eff = fit.after.comm;
    fitted_gpu.step_overhead_s = fit.after.overhead_s;
    struct val_stats train = val_stats_of(cases, n, on_gpu, g), test = { 0 };
    for (size_t i = 0; i < n; i++)
        if (held[i]) {
            cases[i].mapped = true;
            val_predict(&cases[i], &fitted_gpu, NULL, NULL);
        }
    size_t pubs = 0, lone = 0;
    if (x.cv_source && (rc = cv_source(cases, n, rows, g, &test, &pubs, &lone))) {
        free(held);
        free(rows);
        free(cases);
        return cli_fail(c, &(struct llmroof_err){ LLMROOF_EINTERNAL, "out of memory" });
    }
    if (x.holdout) {
        for (size_t i = 0; i < n; i++)
            if (!held[i] && cases[i].gpu == g)
                cases[i].mapped = false;
        test = val_stats_of(cases, n, on_gpu, g);
    }
    /* errors before the fit, on the training rows, for the table */
    struct val_case *before = malloc(sizeof *before * (n ? n : 1));
    if (!before) {
        free(held);
        free(rows);
        free(cases);
        return cli_fail(c, &(struct llmroof_err){ LLMROOF_EINTERNAL, "out of memory" });
    }
    memcpy(before, cases, sizeof *before * n);
    for (size_t i = 0; i < n; i++) {
        before[i].mapped = cases[i].gpu == g && !held[i] && rows && before[i].model;
        if (before[i].mapped && val_predict(&before[i], g, NULL, NULL))
            before[i].mapped = false;
    }
    struct val_stats pre = val_stats_of(before, n, on_gpu, g);
    free(before);

    /* as many rows as parameters or fewer: the fit can pass through every row, so its in-sample
     * error (0% for one row and two parameters, a review) says nothing of the GPU */
    const bool fit_p[4] = { fit.fitted_compute, fit.fitted_memory, fit.fitted_comm, fit.fitted_overhead };
    const double fit_v[4] = { fit.after.compute, fit.after.memory, fit.after.comm, fit.after.overhead_s };
    int nfree = 0; /* a parameter pinned at its bound did not bend to the rows (a review) */
    for (int p = 0; p < 4; p++)
        nfree += fit_p[p] && fit_v[p] > val_gpu_lo[p] * (1 + 1e-9) && fit_v[p] < val_gpu_hi[p] * (1 - 1e-9);
    if (fit.n <= nfree)
        fprintf(c->errf, "llmroof: warning: %ld row%s fitted %d parameter%s: the fit can pass through every row, so "
                         "its in-sample error means little; give more rows (the held-out error is the test)\n",
                fit.n, fit.n == 1 ? "" : "s", nfree, nfree == 1 ? "" : "s");
    const char *names[4] = { "compute_eff", "memory_eff", "comm_eff", "step_overhead_us" };
    double bv[4] = { fit.before.compute, fit.before.memory, fit.before.comm, fit.before.overhead_s * 1e6 };
    double av[4] = { fit.after.compute, fit.after.memory, fit.after.comm, fit.after.overhead_s * 1e6 };
    bool fitted[4] = { fit.fitted_compute, fit.fitted_memory, fit.fitted_comm, fit.fitted_overhead };
    if (c->format == TABLE_TEXT || c->format == TABLE_MD)
        sbuf_printf(&c->out, "calibrate %s on %s: %ld row%s%s\n\n", g->id, file, fit.n, fit.n == 1 ? "" : "s",
                    x.holdout     ? " used for fitting (every other row held out)"
                    : x.cv_source ? ", each publication's also predicted by a fit without its rows"
                                  : "");
    else if (c->format == TABLE_JSON) {
        /* what the text header says, so an archived answer names its GPU and rows (a review) */
        struct rjdoc *d = cli_json(c);
        rjdoc_str(d, "gpu", g->id);
        rjdoc_str(d, "file", cli_input_name(file));
        rjdoc_num(d, "rows_fitted", (double)fit.n);
        rjdoc_bool(d, "holdout", x.holdout);
        rjdoc_str(d, "cv", x.cv_source ? "source" : NULL); /* null: no fold by publication */
    }
    struct table t;
    table_init(&t, "");
    table_col(&t, "parameter", 0);
    table_col(&t, "catalog", 3);
    table_col(&t, "fitted", 3);
    table_col(&t, "note", 0);
    for (int p = 0; p < 4; p++) {
        table_row(&t);
        table_str(&t, names[p]);
        table_num(&t, bv[p]);
        table_num(&t, av[p]);
        /* a fitted value at its bound (val_fit.c's physical limits) says that the rows ask for
         * more than the GPU can explain: a framework's slowness, the engine profile's to carry (a
         * review: 2000 us of step overhead and memory 0.50, both at their bounds, printed bare) */
        char at[96];
        const double lo = p < 3 ? val_gpu_lo[p] : val_gpu_lo[3] * 1e6, hi = p < 3 ? val_gpu_hi[p] : val_gpu_hi[3] * 1e6;
        const bool low = fitted[p] && av[p] <= lo * (1 + 1e-9), high = fitted[p] && av[p] >= hi * (1 - 1e-9);
        /* an efficiency at its floor or an overhead at its ceiling: rows slower than the GPU can
         * be; the other way, faster than the model can make it at the bound */
        const bool slower = p < 3 ? low : high;
        snprintf(at, sizeof at, "bound %g: rows %s than the GPU explains", low ? lo : hi, slower ? "slower" : "faster");
        table_str(&t, !fitted[p] ? "not constrained by these rows: kept" : low || high ? at : "");
    }
    table_row(&t);
    table_str(&t, "median_abs_error_pct");
    table_num(&t, 100 * pre.median_abs);
    table_num(&t, 100 * train.median_abs);
    table_str(&t, "rows used for fitting");
    table_row(&t);
    table_str(&t, "bias_pct");
    table_num(&t, 100 * pre.bias);
    table_num(&t, 100 * train.bias);
    table_str(&t, "median of predicted / measured time - 1 (rates inverted; negative: too fast)");
    if (x.holdout || x.cv_source) {
        table_row(&t);
        table_str(&t, "held_out_median_abs_error_pct");
        table_empty(&t);
        /* no held-out row (a GPU with one row): no error to state, not 0.000% (JSON null) */
        if (test.n > 0)
            table_num(&t, 100 * test.median_abs);
        else
            table_empty(&t);
        char buf[160];
        if (x.cv_source)
        {
            int w = snprintf(buf, sizeof buf, "%ld row%s held out by publication (%zu publication%s", test.n,
                             test.n == 1 ? "" : "s", pubs, pubs == 1 ? "" : "s");
            if (lone && w > 0 && (size_t)w < sizeof buf)
                w += snprintf(buf + w, sizeof buf - (size_t)w, "; %zu row%s not predicted: the GPU's only publication",
                              lone, lone == 1 ? "" : "s");
            if (w > 0 && (size_t)w < sizeof buf)
                snprintf(buf + w, sizeof buf - (size_t)w, ")");
        }
        else
            snprintf(buf, sizeof buf, "%ld held-out row%s", test.n, test.n == 1 ? "" : "s");
        table_str(&t, buf);
    }
    cli_table(c, "parameters", &t);
    table_free(&t);
    if (x.out) {
        char note[512];
        snprintf(note, sizeof note, "efficiencies and overhead fitted by llmroof calibrate to %ld rows of %s "
                                    "(median error %.1f%% -> %.1f%%)", fit.n, file, 100 * pre.median_abs,
                 100 * train.median_abs);
        char *j = render_json_gpu_doc(g, &fit.after, note);
        struct sbuf b = { j, j ? strlen(j) : 0, j ? strlen(j) + 1 : 0, j == NULL };
        rc = j ? cli_write_file(c, x.out, &b) : 1;
        free(j);
    }
    free(held);
    free(rows);
    free(cases);
    return rc;
}
