/* cmd_sweep.c - `llmroof sweep`: one row per combination, streamed. Every name and list is
 * validated before the first row is written, so bad input never leaves partial output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/parse.h"
#include "fit/sweep.h"
#include "model/arch.h"
#include "model/ckpt.h"

enum { OPT_MODELS = 1, OPT_GPUS, OPT_TPS, OPT_BATCHES, OPT_PROMPTS, OPT_OUTPUTS, OPT_WDTS, OPT_KVDTS, OPT_ACTDTS,
       OPT_STATEDTS, OPT_ENGINES, OPT_VALID_ONLY };

/* Numeric and dtype lists hold at most SWEEP_MAX_LIST values (an error beyond); model and
 * GPU lists hold the whole catalog ("all", or an explicit list, which cannot be longer
 * since a repeated entry is an error), so no row is ever dropped. */
#define SWEEP_MAX_LIST 256

struct list {
    const char *flag;               /* for messages */
    long v[SWEEP_MAX_LIST];         /* numeric values or dtypes */
    const void **p;                 /* catalog entries (models, GPUs): cap of them, on the heap */
    size_t n, cap;
};

struct ctx {
    struct cli *c;
    const char *arg[OPT_VALID_ONLY];
    bool valid_only;
    struct cli_setup_opts s;  /* --pp, --ep, --dp-attention, --ep-imbalance (the shared layout options) */
    bool bad;
    struct list *cur;
    long lo, hi;
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    if (id >= CLI_SETUP_BASE)
        return cli_setup_opt(c, &x->s, id, arg);
    if (id == OPT_VALID_ONLY)
        x->valid_only = true;
    else if (id >= 0 && id < (int)(sizeof x->arg / sizeof x->arg[0])) /* bounded: cppcheck sees ids up to the base */
        x->arg[id] = arg;
    return 0;
}

static bool full(struct ctx *x)
{
    if (x->cur->n < (x->cur->p ? x->cur->cap : SWEEP_MAX_LIST))
        return false;
    if (x->cur->p)
        cli_usage_error(x->c, "option '--%s': more than the catalog's %zu entries", x->cur->flag, x->cur->cap);
    else
        cli_usage_error(x->c, "option '--%s': more than %d values", x->cur->flag, SWEEP_MAX_LIST);
    x->bad = true;
    return true;
}

/* One rule for every list option (docs/scripting.md): a repeated value is an error, not a
 * duplicate row. */
static bool repeated(struct ctx *x, const char *item, long v, const void *p)
{
    for (size_t i = 0; i < x->cur->n; i++)
        if (p ? x->cur->p[i] == p : x->cur->v[i] == v) {
            cli_usage_error(x->c, "option '--%s': '%s' repeats a value already listed (itself or another name of "
                                  "it; each value once)",
                            x->cur->flag, item);
            x->bad = true;
            return true;
        }
    return false;
}

static bool add_num(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    int64_t v;
    if (full(x))
        return false;
    if (!parse_int64(item, x->lo, x->hi, &v)) {
        cli_usage_error(x->c, "option '--%s': '%s' is not a whole number in [%ld, %ld]", x->cur->flag, item, x->lo, x->hi);
        x->bad = true;
        return false;
    }
    if (repeated(x, item, (long)v, NULL))
        return false;
    x->cur->v[x->cur->n++] = (long)v;
    return true;
}

static bool add_dtype(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    enum llmroof_dtype d;
    if (full(x))
        return false;
    if (cli_dtype(x->c, x->cur->flag, item, &d)) {
        x->bad = true;
        return false;
    }
    if (repeated(x, item, (long)d, NULL))
        return false;
    x->cur->v[x->cur->n++] = (long)d;
    return true;
}

/* a recurrent state's storage dtype (as --state-dtype of estimate: fp32, 16-bit or fp8) */
static bool add_state_dtype(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    if (!add_dtype(item, vctx))
        return false;
    const long d = x->cur->v[x->cur->n - 1];
    if (!dtype_is_state((enum llmroof_dtype)d)) {
        cli_usage_error(x->c, "option '--state-dtype': '%s' is not a state storage dtype (expected fp32, fp16, bf16 or "
                              "fp8)", CLI_CLIP(item));
        x->bad = true;
        return false;
    }
    return true;
}

/* A catalog entry the lookup found (it printed the error when it did not), once */
static bool add_found(struct ctx *x, const char *item, const void *p)
{
    if (!p) {
        x->bad = true;
        return false;
    }
    if (repeated(x, item, 0, p))
        return false;
    x->cur->p[x->cur->n++] = p;
    return true;
}

/* "all" stands for the whole catalog, alone ("unknown gpu 'all'" had said otherwise) */
static bool all_in_list(struct ctx *x, const char *item)
{
    if (strcmp(item, "all") != 0)
        return false;
    cli_usage_error(x->c, "option '--%s': 'all' stands for the whole catalog, alone: give all or a list of ids",
                    x->cur->flag);
    x->bad = true;
    return true;
}

static bool add_gpu(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    return !full(x) && !all_in_list(x, item) && add_found(x, item, cli_gpu(x->c, item));
}

static bool add_engine(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    return !full(x) && !all_in_list(x, item) && add_found(x, item, cli_engine(x->c, item));
}

static bool add_model(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    return !full(x) && !all_in_list(x, item) && add_found(x, item, cli_model(x->c, item));
}

static int fill(struct ctx *x, struct list *l, const char *flag, const char *arg, const char *dflt,
                bool (*fn)(const char *, void *), long lo, long hi)
{
    l->flag = flag;
    l->n = 0;
    x->cur = l;
    x->lo = lo;
    x->hi = hi;
    if (!parse_list(arg ? arg : dflt, fn, x))
        return x->bad ? 2 : cli_usage_error(x->c, "option '--%s': expected a comma-separated list without empty items", flag);
    return 0;
}

static int sweep_lists(struct cli *c, struct ctx *x, struct list *mp, struct list *gp, struct list *ep);

/* invalid rows held back while no row is valid (cmd_sweep), at most this many bytes */
#define SWEEP_HOLD_BYTES (16u << 20)

/* The layout options that need one another, whatever the model (ops_layout_check_model words them
 * alike, naming the model where one is given: estimate and simulate leave them to it). A sweep
 * turns a row's layout error into an invalid row, so a combination no row can take had exited 0
 * with every row invalid, a baseline that guards nothing, and one that failed its own check where
 * the flag left no column behind (--two-batch-overlap without --ep: a review). */
static int layout_needs(struct cli *c, const struct llmroof_layout *l)
{
    if (l->two_batch_overlap && !(l->ep > 1 && l->dp_attn))
        return cli_usage_error(c, "option '--two-batch-overlap' needs --ep greater than 1 with --dp-attention (an "
                                  "all-to-all to hide): no row could take it");
    if (l->moe_tp > 1 && l->ep > 1)
        return cli_usage_error(c, "option '--moe-tp' with --ep: the experts are split either by expert (--ep) or by "
                                  "width (--moe-tp), not both");
    if (l->moe_tp > 1 && !l->dp_attn)
        return cli_usage_error(c, "option '--moe-tp' needs --dp-attention: without it the MLPs are already split over "
                                  "-t's GPUs");
    if (l->dp_attn && !(l->ep > 1) && !(l->moe_tp > 1))
        return cli_usage_error(c, "option '--dp-attention' needs --ep greater than 1 (experts split by expert) or "
                                  "--moe-tp greater than 1 (every expert split by width): no row could take it");
    return 0;
}

int cmd_sweep(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        { OPT_MODELS, "models", 0, "all|LIST", "model ids (default all)", false },
        { OPT_GPUS, "gpus", 0, "all|LIST", "GPU ids or aliases (default all)", false },
        { OPT_TPS, "tp", 't', "LIST", "TP values (default 1,2,4,8)", false },
        { OPT_BATCHES, "batch", 'b', "LIST", "batch sizes (default 1,8,32,128)", false },
        { OPT_PROMPTS, "prompt", 'p', "LIST", "prompt lengths (default 128,512,2048)", false },
        { OPT_OUTPUTS, "output", 'o', "LIST", "output lengths (default 128,512)", false },
        { OPT_WDTS, "weight-dtype", 0, "LIST", "weight dtypes (default fp16)", false },
        { OPT_KVDTS, "kv-dtype", 0, "LIST", "KV-cache dtypes (default fp16)", false },
        { OPT_ACTDTS, "act-dtype", 0, "LIST", "compute dtypes (default fp16)", false },
        { OPT_STATEDTS, "state-dtype", 0, "LIST", "recurrent-state dtypes of hybrid models: fp32 fp16 bf16 fp8 (default each model's own)", false },
        { OPT_ENGINES, "engine", 'e', "LIST", "engine profiles or all, each row evaluated as estimate -e takes it (default none: the catalog efficiencies alone)", false },
        { OPT_VALID_ONLY, "valid-only", 0, NULL, "leave out combinations that cannot be estimated", false },
        CLI_OPT_LAYOUT,
    };
    /* models and GPUs: pointer arrays of the catalog's size; the rest: SWEEP_MAX_LIST values */
    struct list models = { 0 }, gpus = { 0 }, engines = { 0 };
    struct ctx x;
    memset(&x, 0, sizeof x);
    x.c = c;
    cli_setup_defaults(&x.s);
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof sweep [--models all|LIST] [--gpus all|LIST] [--tp LIST] [--batch LIST] [--prompt LIST] "
               "[--output LIST] [dtype lists] [--engine LIST] [--valid-only] [--format csv|jsonl]";
    c->formats = (1u << TABLE_CSV) | (1u << TABLE_JSONL);
    /* CSV unless a --format before the command chose jsonl ('llmroof --format jsonl sweep' printed
     * CSV); a format sweep does not print there leaves the default */
    if (!c->format_set || !(c->formats & (1u << c->format))) {
        c->format = TABLE_CSV;
        c->format_set = false;
    }
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, &x, pos, 0, &npos,
                       "Streams one row per combination (models x GPUs x TP x batch x prompt x output x weight,\n"
                       "KV and compute dtypes, in that nesting order) with every input and the key outputs.\n"
                       "Combinations that cannot be estimated carry valid=false and a reason, or are left out\n"
                       "with --valid-only. Catalog efficiencies and default memory options apply, or with --engine\n"
                       "each profile's, as estimate -e takes them (models x GPUs x engines x TP x ...). Columns:\n"
                       "docs/scripting.md.");
    if (rc)
        return rc;
    if ((rc = cli_layout_check(c, &x.s)) || (rc = layout_needs(c, &x.s.layout)) || (rc = cli_catalog(c)))
        return rc;
    if (x.arg[OPT_ENGINES] && (rc = cli_engine_catalog(c)))
        return rc;
    models.cap = c->cat.n_models;
    gpus.cap = c->cat.n_gpus;
    engines.cap = c->cat.n_engines;
    models.p = calloc(models.cap ? models.cap : 1, sizeof *models.p);
    gpus.p = calloc(gpus.cap ? gpus.cap : 1, sizeof *gpus.p);
    engines.p = calloc(engines.cap ? engines.cap : 1, sizeof *engines.p);
    if (!models.p || !gpus.p || !engines.p) {
        fprintf(c->errf, "llmroof: error: out of memory\n");
        rc = 1;
    } else {
        rc = sweep_lists(c, &x, &models, &gpus, &engines);
    }
    free(models.p);
    free(gpus.p);
    free(engines.p);
    return rc;
}

static int sweep_lists(struct cli *c, struct ctx *x, struct list *mp, struct list *gp, struct list *ep)
{
    struct list tps = { 0 }, batches = { 0 }, prompts = { 0 }, outputs = { 0 }, wdts = { 0 }, kvdts = { 0 },
                actdts = { 0 }, statedts = { 0 };
    struct list models = *mp, gpus = *gp;
    int rc;
    /* "all" expands to the catalog, in catalog order */
    models.flag = "models";
    gpus.flag = "gpus";
    if (!x->arg[OPT_MODELS] || strcmp(x->arg[OPT_MODELS], "all") == 0) {
        for (size_t i = 0; i < c->cat.n_models; i++)
            models.p[models.n++] = &c->cat.models[i];
    } else if ((rc = fill(x, &models, "models", x->arg[OPT_MODELS], "", add_model, 0, 0))) {
        return rc;
    }
    if (!x->arg[OPT_GPUS] || strcmp(x->arg[OPT_GPUS], "all") == 0) {
        for (size_t i = 0; i < c->cat.n_gpus; i++)
            gpus.p[gpus.n++] = &c->cat.gpus[i];
    } else if ((rc = fill(x, &gpus, "gpus", x->arg[OPT_GPUS], "", add_gpu, 0, 0))) {
        return rc;
    }
    if ((rc = fill(x, &tps, "tp", x->arg[OPT_TPS], "1,2,4,8", add_num, 1, 1024)) ||
        (rc = fill(x, &batches, "batch", x->arg[OPT_BATCHES], "1,8,32,128", add_num, 1, 1000000)) ||
        (rc = fill(x, &prompts, "prompt", x->arg[OPT_PROMPTS], "128,512,2048", add_num, 1, 1000000000)) ||
        (rc = fill(x, &outputs, "output", x->arg[OPT_OUTPUTS], "128,512", add_num, 1, 1000000000)) ||
        (rc = fill(x, &wdts, "weight-dtype", x->arg[OPT_WDTS], "fp16", add_dtype, 0, 0)) ||
        (rc = fill(x, &kvdts, "kv-dtype", x->arg[OPT_KVDTS], "fp16", add_dtype, 0, 0)) ||
        (rc = fill(x, &actdts, "act-dtype", x->arg[OPT_ACTDTS], "fp16", add_dtype, 0, 0)))
        return rc;
    /* --ep against the TP list, as the layout takes them (ops_shard_layout): equal to TP, or with
     * --dp-attention a multiple of it (so --moe-tp); a list no entry of which fits gave a sweep of
     * invalid rows and exit 0 (a review: --tp 1 --ep 8) */
    {
        const struct llmroof_layout *l = &x->s.layout;
        const long need = l->ep > 1 ? l->ep : l->moe_tp > 1 ? l->moe_tp : 0;
        bool any = need == 0;
        for (size_t ti = 0; ti < tps.n && !any; ti++)
            any = l->dp_attn ? need % tps.v[ti] == 0 : tps.v[ti] == need;
        if (!any)
            return cli_usage_error(c, "option '--tp': no TP listed %s --%s %ld, so no row could take the layout",
                                   l->dp_attn ? "divides" : "equals", l->ep > 1 ? "ep" : "moe-tp", need);
    }
    /* every row takes the listed weight dtypes, fp16 by default, where estimate and memory take a
     * model's checkpoint format by default: say so for the models whose checkpoint is not 16-bit,
     * so a sweep row and an estimate of one model do not differ unexplained (a review: DeepSeek-V3
     * at TP 8 did not fit in fp16 beside estimate's fp8 that fits, TPOT 20.6 against 14.2 ms) */
    if (!x->arg[OPT_WDTS]) {
        const char *names[3];
        size_t nck = 0;
        enum llmroof_dtype first = LLMROOF_FP16;
        for (size_t mi = 0; mi < models.n; mi++) {
            enum llmroof_dtype d;
            const struct llmroof_model *m = models.p[mi];
            if (ckpt_weight_dtype(m, &d) && d != LLMROOF_FP16 && d != LLMROOF_BF16) {
                if (nck < 3)
                    names[nck] = m->id;
                if (nck == 0)
                    first = d;
                nck++;
            }
        }
        if (nck == 1)
            fprintf(c->errf, "llmroof: note: every row takes --weight-dtype (default fp16), where estimate and memory "
                             "take a checkpoint's own format: %s's is %s; add --weight-dtype %s to sweep it so\n",
                    names[0], dtype_name(first), dtype_name(first));
        else if (nck > 1)
            fprintf(c->errf, "llmroof: note: every row takes --weight-dtype (default fp16), where estimate and memory "
                             "take a checkpoint's own format: %s, %s%s%s%s ship non-16-bit checkpoints (%s's: %s); "
                             "add their dtypes to --weight-dtype to sweep them so\n",
                    names[0], names[1], nck > 2 ? ", " : "", nck > 2 ? names[2] : "", nck > 3 ? " and others" : "",
                    names[0], dtype_name(first));
    }
    /* --engine: each row under each profile (none: the catalog efficiencies alone, one pass) */
    struct list engines = *ep;
    const bool with_engines = x->arg[OPT_ENGINES] != NULL;
    if (with_engines && strcmp(x->arg[OPT_ENGINES], "all") == 0) { /* every profile, as --models all */
        engines.flag = "engine";
        for (size_t i = 0; i < c->cat.n_engines; i++)
            engines.p[engines.n++] = &c->cat.engines[i];
    } else if (with_engines && (rc = fill(x, &engines, "engine", x->arg[OPT_ENGINES], "", add_engine, 0, 0))) {
        return rc;
    }
    const bool states = x->arg[OPT_STATEDTS] != NULL;
    if (states && (rc = fill(x, &statedts, "state-dtype", x->arg[OPT_STATEDTS], NULL, add_state_dtype, 0, 0)))
        return rc;
    /* one output token is the prefill's: no decode step, so no TPOT, decode rate or decode bound,
     * which a row would carry as zeros a baseline then guards (a review) */
    for (size_t oi = 0; oi < outputs.n; oi++)
        if (outputs.v[oi] < 2)
            return cli_usage_error(c, "option '--output': an output of 1 token leaves no decode step, so a row would "
                                      "have no TPOT, decode rate or decode bound; give 2 or more ('estimate -o 1' "
                                      "times a prompt alone)");

    if (c->flags & CLI_PARSE_ONLY)
        return 0;
    bool jsonl = c->format == TABLE_JSONL;
    const struct llmroof_layout lay = cli_layout(&x->s);
    const bool layout = lay.pp > 1 || lay.ep > 1 || lay.dp_attn || lay.moe_tp > 1;
    if (!jsonl) {
        if (layout)
            sweep_csv_header_layout(&c->out);
        else
            sweep_csv_header(&c->out);
        if (states) /* after the layout's columns */
            sweep_csv_append_state_header(&c->out);
        if (with_engines) /* the last */
            sweep_csv_append_engine_header(&c->out);
    }
    struct sweep_row row;
    unsigned long rows = 0;
    /* rows stay unwritten until one is valid: a sweep whose every row is invalid (--ep 2 over dense
     * models, --tp 3 against every head count) guards nothing, and its check had passed ("24 rows
     * agree"; a review): it exits 2 with nothing on stdout, naming the first row's reason. Past
     * SWEEP_HOLD_BYTES of invalid rows they are written, as a sweep so large streams */
    bool any_valid = false, released = false;
    char first_reason[sizeof row.reason + sizeof row.model + sizeof row.gpu + 32] = "";
    for (size_t mi = 0; mi < models.n; mi++)
        for (size_t gi = 0; gi < gpus.n; gi++)
          for (size_t ei = 0; ei < (with_engines ? engines.n : 1); ei++)
            for (size_t ti = 0; ti < tps.n; ti++)
                for (size_t bi = 0; bi < batches.n; bi++)
                    for (size_t pi = 0; pi < prompts.n; pi++)
                        for (size_t oi = 0; oi < outputs.n; oi++)
                            for (size_t wi = 0; wi < wdts.n; wi++)
                                for (size_t ki = 0; ki < kvdts.n; ki++)
                                    for (size_t ai = 0; ai < actdts.n; ai++)
                                    for (size_t si = 0; si < (states && arch_linear_layers(models.p[mi]) > 0 ? statedts.n : 1); si++) {
                                        /* a caller's stop (llmroof_ctx_call_stoppable), every 64 rows */
                                        if (++rows % 64 == 0 && stop_asked(&c->stop)) {
                                            const struct llmroof_err se = { LLMROOF_ESTOPPED, "stopped by the caller" };
                                            return cli_fail(c, &se);
                                        }
                                        /* a model without a recurrent state takes no state dtype: one row, its
                                         * state_dtype empty (a review: identical Llama rows labelled fp32 and bf16) */
                                        const bool st = states && arch_linear_layers(models.p[mi]) > 0;
                                        struct llmroof_dtypes dt = { (enum llmroof_dtype)wdts.v[wi],
                                                                     (enum llmroof_dtype)kvdts.v[ki],
                                                                     (enum llmroof_dtype)actdts.v[ai], 0, st,
                                                                     st ? (enum llmroof_dtype)statedts.v[si] : LLMROOF_FP16,
                                                                     false, LLMROOF_ACT_QUANT_SEPARATE, false };
                                        sweep_eval_engine(models.p[mi], gpus.p[gi], (int)tps.v[ti], &lay,
                                                          with_engines ? engines.p[ei] : NULL, batches.v[bi],
                                                          prompts.v[pi], outputs.v[oi], &dt, &row);
                                        if (row.valid)
                                            any_valid = true;
                                        else if (!first_reason[0])
                                            snprintf(first_reason, sizeof first_reason, "%s/%s at TP %d: %s",
                                                     row.model, row.gpu, row.tp, row.reason);
                                        if (x->valid_only && !row.valid)
                                            continue;
                                        if (jsonl)
                                            sweep_jsonl_row(&row, &c->out);
                                        else if (layout)
                                            sweep_csv_row_layout(&row, &c->out);
                                        else
                                            sweep_csv_row(&row, &c->out);
                                        if (!jsonl && states)
                                            sweep_csv_append_state(&row, &c->out);
                                        if (!jsonl && with_engines)
                                            sweep_csv_append_engine(&row, &c->out);
                                        if (any_valid || c->out.len >= SWEEP_HOLD_BYTES) {
                                            released = true;
                                            if ((rc = cli_flush(c, 1u << 16)))
                                                return rc;
                                        }
                                    }
    if (!any_valid && !released && rows > 0) {
        sbuf_clear(&c->out);
        return cli_usage_error(c, "no combination can be estimated, so the sweep would guard nothing: every row is "
                                  "invalid (the first, %s)", first_reason);
    }
    return 0;
}
