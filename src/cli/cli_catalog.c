/* cli_catalog.c - finding and loading the catalog (and the validation map and uncertainty
 * bands beside it), and looking GPUs and models up by name with "did you mean", one or a
 * list at a time. */
#include "cli/cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/parse.h"

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

/* A --gpus-file or --models-file (its text added by add), "-" read from standard input. */
static int add_user_file(struct cli *c, const char *opt, const char *path,
                         int (*add)(struct llmroof_catalog *, const char *, size_t, const char *, bool,
                                    struct llmroof_err *))
{
    struct llmroof_err err = { 0 };
    char what[64], *text;
    size_t len;
    snprintf(what, sizeof what, "option '--%s'", opt);
    /* 64 MiB, the catalog reader's limit (CATALOG_MAX_BYTES) */
    if (cli_read_input(c, what, path, (size_t)64 << 20, &text, &len, &err))
        return cli_fail(c, &err);
    int rc = add(&c->cat, text, len, cli_input_name(path), true, &err);
    free(text);
    return rc ? cli_fail(c, &err) : 0;
}

/* The shipped catalog (and the user's files), every entry, or with pick non-NULL only the
 * entries pick names (see catalog_add_*_file_pick; shipped files only). */
static int load_catalog(struct cli *c, const char *const *pick)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    int rc = find_data_dir(c, dir, sizeof dir);
    if (rc)
        return rc;
    struct llmroof_err err = { 0 };
    catalog_init(&c->cat);
    snprintf(c->data_dir, sizeof c->data_dir, "%s", dir);
    snprintf(path, sizeof path, "%s/gpus.json", dir);
    if ((rc = catalog_add_gpus_file_pick(&c->cat, path, false, pick ? pick[1] : NULL, &err)))
        return cli_fail(c, &err);
    snprintf(path, sizeof path, "%s/models.json", dir);
    if ((rc = catalog_add_models_file_pick(&c->cat, path, false, pick ? pick[0] : NULL, &err)))
        return cli_fail(c, &err);
    snprintf(path, sizeof path, "%s/engines.json", dir);
    struct stat st;
    if (stat(path, &st) == 0 && (rc = catalog_add_engines_file_pick(&c->cat, path, false, pick ? pick[2] : NULL, &err)))
        return cli_fail(c, &err);
    for (int i = 0; i < c->n_gpus_files; i++)
        if ((rc = add_user_file(c, "gpus-file", c->gpus_files[i], catalog_add_gpus_text)))
            return rc;
    for (int i = 0; i < c->n_models_files; i++)
        if ((rc = add_user_file(c, "models-file", c->models_files[i], catalog_add_models_text)))
            return rc;
    c->cat_loaded = true;
    return 0;
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
    return load_catalog(c, NULL);
}

void cli_engine_ids_with(struct cli *c, bool (*has)(const struct llmroof_engine *), char *out, size_t size)
{
    out[0] = '\0';
    /* a catalog built for one engine (cli_catalog_pick) names no other: load it whole (the
     * message that lists the engines had listed none, a review of session 64) */
    if (!c->shared_cat && !c->cat_borrowed && c->cat.n_engines <= 1) {
        catalog_free(&c->cat);
        c->cat_loaded = false;
        if (load_catalog(c, NULL))
            return;
    }
    for (size_t i = 0; i < c->cat.n_engines; i++)
        if (has(&c->cat.engines[i])) {
            const size_t n = strlen(out);
            snprintf(out + n, size - n, "%s%s", n ? ", " : "", c->cat.engines[i].id);
        }
}

int cli_catalog_pick(struct cli *c, const char *model, const char *gpu, const char *engine)
{
    /* user files may replace or alias any entry, and a library context holds its own catalog */
    if (c->cat_loaded || c->shared_cat || c->n_gpus_files > 0 || c->n_models_files > 0 || !model || !gpu)
        return cli_catalog(c);
    const char *const pick[3] = { model, gpu, engine ? engine : "" }; /* "": no engine is built */
    int rc = load_catalog(c, pick);
    if (rc)
        return rc;
    if (catalog_find_model(&c->cat, model) && catalog_find_gpu(&c->cat, gpu) &&
        (!engine || catalog_find_engine(&c->cat, engine)))
        return 0;
    /* a name the catalog lacks: its error and suggestions need every entry */
    catalog_free(&c->cat);
    c->cat_loaded = false;
    return load_catalog(c, NULL);
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
    if (cli_read_input(c, "option '--map'", path, (size_t)16 << 20, &text, &len, &err))
        return cli_fail(c, &err);
    rc = catalog_load_valmap(text, len, cli_input_name(path), out, &err);
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

/* A name found as another of the entry's names (a repository, a fine-tune's name, nvidia-smi's
 * name) says what it was taken as: "Llama-3.1-70B-Instruct" is costed as the base model's shapes,
 * "NVIDIA H100 80GB HBM3" as the SXM5 card. An id spelled otherwise ("llama3.1-70b") needs no word. */
static void taken_as(struct cli *c, const char *kind, const char *name, enum llmroof_match how, const char *id)
{
    if (how == LLMROOF_MATCH_NAME)
        fprintf(c->errf, "llmroof: note: %s '%s' taken as %s\n", kind, CLI_CLIP(name), id);
}

const struct llmroof_gpu *cli_gpu(struct cli *c, const char *name)
{
    enum llmroof_match how;
    const struct llmroof_gpu *g = catalog_match_gpu(&c->cat, name, &how);
    if (g) {
        taken_as(c, "GPU", name, how, g->id);
        return g;
    }
    const char *s[3];
    size_t n = catalog_suggest_gpus(&c->cat, name, s, 3);
    fprintf(c->errf, "llmroof: error: unknown GPU '%s' (see 'llmroof list gpus')\n", CLI_CLIP(name));
    did_you_mean(c, s, n);
    return NULL;
}

/* The model a quantized checkpoint's name names without its quantization words (the first word,
 * '-', '_' or ' ' apart, that is a format, and every word after it: "-GPTQ-Int4", "-FP8-Dynamic"),
 * and the --weight-dtype that format stores; NULL where the name has none or the rest names no
 * model uniquely. */
static const struct llmroof_model *quantized_base(struct cli *c, const char *name, const char **dtype)
{
    static const struct {
        const char *word, *dtype;
    } fmt[] = { { "fp8", "fp8" },    { "w8a8", "fp8" },    { "nvfp4", "fp4" }, { "mxfp4", "fp4" }, { "fp4", "fp4" },
                { "awq", "int4" },   { "gptq", "int4" },   { "int4", "int4" }, { "w4a16", "int4" }, { "int8", "int8" } };
    char buf[256];
    if (strlen(name) >= sizeof buf)
        return NULL;
    snprintf(buf, sizeof buf, "%s", name);
    for (char *p = buf; *p; p++) {
        if (p != buf && p[-1] != '-' && p[-1] != '_' && p[-1] != ' ')
            continue;
        for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; i++) {
            const size_t n = strlen(fmt[i].word);
            if (strncasecmp(p, fmt[i].word, n) != 0 || (p[n] && p[n] != '-' && p[n] != '_' && p[n] != ' '))
                continue;
            if (p == buf)
                return NULL;
            p[-1] = '\0';
            enum llmroof_match how;
            const struct llmroof_model *m = catalog_match_model(&c->cat, buf, &how);
            /* a re-quantizer's repository ("TheBloke/Llama-2-7B-GPTQ") names the model after its '/' */
            const char *slash = strrchr(buf, '/');
            if (!m && slash && slash[1])
                m = catalog_match_model(&c->cat, slash + 1, &how);
            *dtype = fmt[i].dtype;
            return m;
        }
    }
    return NULL;
}

const struct llmroof_model *cli_model(struct cli *c, const char *name)
{
    enum llmroof_match how;
    const struct llmroof_model *m = catalog_match_model(&c->cat, name, &how);
    if (m) {
        taken_as(c, "model", name, how, m->id);
        return m;
    }
    const char *s[3];
    size_t n = catalog_suggest_models(&c->cat, name, s, 3);
    fprintf(c->errf, "llmroof: error: unknown model '%s' (see 'llmroof list models')\n", CLI_CLIP(name));
    /* a quantized checkpoint's name ("...-Instruct-FP8", "...-AWQ", "...-GPTQ-Int4"): the catalog's
     * model at that weight dtype, which a name must not select silently (catalog_match_model keeps
     * such words), so the suggestion names the flag */
    const char *dt = NULL;
    const struct llmroof_model *base = quantized_base(c, name, &dt);
    if (base) {
        fprintf(c->errf, "did you mean: %s with --weight-dtype %s?\n", base->id, dt);
        return NULL;
    }
    did_you_mean(c, s, n);
    return NULL;
}

int cli_engine_catalog(struct cli *c)
{
    char path[sizeof c->data_dir + 16];
    struct stat st;
    if (c->cat.n_engines > 0)
        return 0;
    /* engines.json is optional in a data directory (docs/catalog.md): a command that never
     * names an engine runs without it, and one that does says the file is missing rather than
     * that the engine is unknown or that there are none */
    snprintf(path, sizeof path, "%s/engines.json", c->data_dir);
    if (stat(path, &st) == 0)
        return 0;
    fprintf(c->errf, "llmroof: error: no engine catalog: %s not found (engine profiles for --engine, "
                     "'list engines' and 'show engine')\n", path);
    return 2;
}

const struct llmroof_engine *cli_engine(struct cli *c, const char *name)
{
    const struct llmroof_engine *e = catalog_find_engine(&c->cat, name);
    if (e)
        return e;
    if (cli_engine_catalog(c))
        return NULL;
    const char *s[3];
    size_t n = catalog_suggest_engines(&c->cat, name, s, 3);
    fprintf(c->errf, "llmroof: error: unknown engine '%s' (see 'llmroof list engines')\n", CLI_CLIP(name));
    did_you_mean(c, s, n);
    return NULL;
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
    if (!strcmp(item, "all")) { /* the whole catalog stands alone ("unknown GPU 'all'" had said otherwise) */
        cli_usage_error(x->c, "option '--gpus': 'all' stands for the whole catalog, alone: give all or a list of ids");
        return false;
    }
    const struct llmroof_gpu *g = cli_gpu(x->c, item);
    if (!g)
        return false;
    /* one rule for every list option: a repeated value (or an alias of a listed GPU) is an
     * error, never a duplicate row */
    for (int i = 0; i < *x->n; i++)
        if (x->gpus[i] == g) {
            cli_usage_error(x->c, "option '--gpus': '%s' repeats a value already listed (%s; each value once)",
                            CLI_CLIP(item), g->id);
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
    /* the count and the value are two faults, each said as itself ('17' had been "not a whole
     * number in [1, 1024]" for being the 17th of 16: a review) */
    if (*x->n >= x->max) {
        cli_usage_error(x->c, "option '--tp': more than %d values (at most %d)", x->max, x->max);
        x->reported = true;
        return false;
    }
    if (!parse_int64(item, 1, 1024, &v)) {
        cli_usage_error(x->c, "option '--tp': '%s' is not a whole number in [1, 1024]", CLI_CLIP(item));
        x->reported = true;
        return false;
    }
    for (int i = 0; i < *x->n; i++)
        if (x->tps[i] == (int)v) {
            cli_usage_error(x->c, "option '--tp': '%s' repeats a value already listed (each value once)", CLI_CLIP(item));
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
    return x.reported ? 2 : cli_usage_error(c, "option '--tp': '%s' is not a comma-separated list such as 2,4,8, without "
                                               "empty items", CLI_CLIP(list));
}
