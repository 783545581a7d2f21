/* servval_map.c - reading the published serving rows and the map that sets each one up (see
 * fit/servval.h; docs/validation.md). */
#include "fit/servval.h"
#include "base/parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* enum srv_stat's names, as the map spells them */
static const char *const stat_names[] = { "mean", "p50", "p90", "p99" };

static const char *const metric_names[SRV_METRIC_COUNT] = { "ttft", "tpot", "e2e", "makespan", "req_s", "out_tok_s",
                                                            "total_tok_s", "prompt_tok_s", "slo_pct", "speedup_tput",
                                                            "speedup_tpot", "speedup_e2e", "goodput_req_s", "itl" };

void srv_compared(const struct srv_case *c, char *out, size_t n)
{
    const bool stat = c->metric == SRV_TTFT || c->metric == SRV_TPOT || c->metric == SRV_E2E || c->metric == SRV_ITL;
    snprintf(out, n, "%s%s%s", metric_names[c->metric], stat ? " " : "", stat ? stat_names[c->stat] : "");
}

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */
/* ------------------------------------------------------------------------ */

enum { R_ID, R_METRIC, R_VALUE, R_SOURCE, R_FRAMEWORK, R_NREQ, R_NCOLS };
enum { M_ID, M_MODEL, M_GPU, M_ENGINE, M_WDT, M_KVDT, M_TP, M_EP, M_DPA, M_INST, M_DISAGG, M_WORKLOAD, M_LOAD, M_REQ,
       M_METRIC, M_STAT, M_DIVIDE, M_SLO, M_SPEC, M_BASE, M_NOTE, M_SKIP, M_NREQUIRED,
       /* optional: the engine settings a row states */
       M_MAXSEQS = M_NREQUIRED, M_BUDGET, M_CHUNKED, M_STEPS, M_RAY, M_PAD, M_API, M_KVBLOCKS, M_MAXCONC, M_ARRIVALS, M_MOETP,
       M_RECV, M_NCOLS };

struct read_ctx {
    const char *fname;
    struct srv_case *v;
    size_t n, cap;
    const struct llmroof_catalog *cat;
};

static int published_row(void *vctx, char f[][VAL_TEXT], const int *col, long line, struct llmroof_err *err)
{
    struct read_ctx *x = vctx;
    int rc = val_csv_reserve((void **)&x->v, &x->cap, x->n, sizeof *x->v, x->fname, err);
    if (rc)
        return rc;
    struct srv_case *c = &x->v[x->n++];
    memset(c, 0, sizeof *c);
    c->line = line;
    snprintf(c->id, sizeof c->id, "%s", f[col[R_ID]]);
    snprintf(c->metric_text, sizeof c->metric_text, "%s", f[col[R_METRIC]]);
    snprintf(c->source, sizeof c->source, "%s", col[R_SOURCE] >= 0 ? f[col[R_SOURCE]] : "");
    snprintf(c->framework, sizeof c->framework, "%s", col[R_FRAMEWORK] >= 0 ? f[col[R_FRAMEWORK]] : "");
    /* the run's requests as published ("?" or blank: not stated, 0) */
    double nreq;
    if (col[R_NREQ] >= 0 && parse_double(f[col[R_NREQ]], &nreq) && nreq >= 1 && nreq <= 1e9)
        c->source_requests = (long)nreq;
    /* a measured value is a positive finite number: a typo had left its row unpredicted, exit 0 */
    if (!parse_double(f[col[R_VALUE]], &c->measured) || !(c->measured > 0) || !isfinite(c->measured))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'value': '%.40s' is not a positive number",
                               x->fname, line, f[col[R_VALUE]]);
    else
        snprintf(c->reason, sizeof c->reason, "no entry in the serving map");
    return LLMROOF_OK;
}

/* Reads the n numbers of s, separated by seps[0], seps[1], ... in turn ("::" for "P:O"), each
 * with strtod: finite, the whole string consumed. sscanf's %d and %lf report no overflow
 * (cert-err34-c), and the map is a file a user may pass. Returns false on any deviation. */
static bool scan_fields(const char *s, const char *seps, double *out, int n)
{
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        out[i] = strtod(s, &end);
        if (end == s || errno || !isfinite(out[i]))
            return false;
        s = end;
        if (i < n - 1) {
            if (*s != seps[i])
                return false;
            s++;
        }
    }
    return *s == '\0';
}

/* v as a whole number in [lo, hi]. */
static bool field_whole(double v, long lo, long hi, long *out)
{
    if (!(v >= (double)lo && v <= (double)hi) || v != floor(v))
        return false;
    *out = (long)v;
    return true;
}

/* "N" as a whole number in [lo, hi]; an empty field gives dflt */
static bool whole(const char *s, long lo, long hi, long dflt, long *out)
{
    int64_t v;
    if (!*s) {
        *out = dflt;
        return true;
    }
    if (!parse_int64(s, lo, hi, &v))
        return false;
    *out = (long)v;
    return true;
}

#define BAD(...) do { snprintf(c->reason, sizeof c->reason, __VA_ARGS__); return LLMROOF_OK; } while (0)

/* Applies one map row to its case; a malformed map row is an error, a skip is a reason. */
static int map_row(void *vctx, char f[][VAL_TEXT], const int *col, long line, struct llmroof_err *err)
{
    struct read_ctx *x = vctx;
    struct srv_case *c = NULL;
    for (size_t i = 0; i < x->n && !c; i++)
        if (strcmp(x->v[i].id, f[col[M_ID]]) == 0)
            c = &x->v[i];
    if (!c)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s:%ld: id '%s' is not a row of the serving file (a map states every row of the file "
                               "it was written for: with another --serving FILE give its own --serving-map MAP)",
                               x->fname, line, f[col[M_ID]]);
    if (c->map_line) /* a second mapping had replaced the first, silently */
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: id '%s' is mapped on line %ld already", x->fname, line,
                               f[col[M_ID]], c->map_line);
    c->map_line = line;
    snprintf(c->note, sizeof c->note, "%s", f[col[M_NOTE]]);
    if (f[col[M_SKIP]][0])
        BAD("%s", f[col[M_SKIP]]);
    /* the map states catalog ids: another name is a mistake in it, not a name to resolve */
    if (!(c->model = catalog_find_model_exact(x->cat, f[col[M_MODEL]])))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: model '%s' is not in the catalog", x->fname, line,
                               f[col[M_MODEL]]);
    if (!(c->gpu = catalog_find_gpu_exact(x->cat, f[col[M_GPU]])))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: GPU '%s' is not in the catalog", x->fname, line,
                               f[col[M_GPU]]);
    if (f[col[M_ENGINE]][0] && !(c->engine = catalog_find_engine(x->cat, f[col[M_ENGINE]])))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: engine '%s' is not in the catalog", x->fname, line,
                               f[col[M_ENGINE]]);
    enum llmroof_dtype w, kv;
    if (!dtype_parse(f[col[M_WDT]], &w) || !dtype_is_storage(w) || !dtype_parse(f[col[M_KVDT]], &kv) ||
        !dtype_is_storage(kv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: dtypes '%s'/'%s' are not llmroof's", x->fname, line,
                               f[col[M_WDT]], f[col[M_KVDT]]);
    /* fp8 and fp4 weights compute in fp8 where the GPU has it (the map's fp8 rows are W8A8 or
     * block-fp8 models); 16-bit formats compute as stored */
    enum llmroof_dtype act = w == LLMROOF_BF16 ? LLMROOF_BF16 : LLMROOF_FP16;
    if ((w == LLMROOF_FP8 || w == LLMROOF_FP4) && c->gpu->has_peak[LLMROOF_FP8])
        act = LLMROOF_FP8;
    if (w == LLMROOF_FP4 && c->gpu->has_peak[LLMROOF_FP4])
        act = LLMROOF_FP4;
    c->dt = (struct llmroof_dtypes){ w, kv, act, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    long v;
    if (!whole(f[col[M_TP]], 1, 1024, 1, &v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'tp': '%s' is not a whole number from 1 to 1024",
                               x->fname, line, f[col[M_TP]]);
    c->tp = (int)v;
    if (!whole(f[col[M_EP]], 1, 1024, 1, &v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'ep': '%s' is not a whole number from 1 to 1024",
                               x->fname, line, f[col[M_EP]]);
    c->ep = (int)v;
    c->dp_attn = strcmp(f[col[M_DPA]], "1") == 0;
    if (!whole(f[col[M_INST]], 1, 1024, 1, &v))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'instances': '%s' is not a whole number from 1 to 1024",
                               x->fname, line, f[col[M_INST]]);
    c->instances = (int)v;
    if (f[col[M_DISAGG]][0]) {
        /* "PN:PTP/DN:DTP" */
        double d[4];
        long pn = 0, ptp = 0, dn = 0, dtp = 0;
        if (!scan_fields(f[col[M_DISAGG]], ":/:", d, 4) || !field_whole(d[0], 1, 1024, &pn) ||
            !field_whole(d[1], 1, 1024, &ptp) || !field_whole(d[2], 1, 1024, &dn) || !field_whole(d[3], 1, 1024, &dtp))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: disagg '%s' is not PN:PTP/DN:DTP", x->fname, line,
                                   f[col[M_DISAGG]]);
        c->pre_n = (int)pn;
        c->pre_tp = (int)ptp;
        c->dec_n = (int)dn;
        c->dec_tp = (int)dtp;
        c->disagg = true;
    }
    const char *wl = f[col[M_WORKLOAD]];
    double po[2];
    if (strcmp(wl, "chat") == 0) {
        c->chat = true;
    } else if (strncmp(wl, "fixed:", 6) == 0 && scan_fields(wl + 6, ":", po, 2) &&
               field_whole(po[0], 1, 100000000, &c->prompt) && field_whole(po[1], 1, 100000000, &c->output)) {
    } else if (strcmp(wl, "sharegpt") == 0 ||
               (strncmp(wl, "sharegpt:", 9) == 0 && scan_fields(wl + 9, ":", po, 2) &&
                field_whole(po[0], 1, 100000000, &c->prompt) && field_whole(po[1], 1, 100000000, &c->output))) {
        /* at the row's means; without them (0) the benchmarks' set for the model's tokenizer */
        c->scaled_chat = true;
    } else if (strncmp(wl, "random:", 7) == 0) {
        struct workload q;
        struct llmroof_err we = { 0 };
        if (workload_parse(wl, &q, &we))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: %s", x->fname, line, we.msg);
        c->random = true;
        c->prompt = q.prompt;
        c->output = q.output;
        const char *r3 = strchr(strchr(wl + 7, ':') + 1, ':'); /* the ratio, when stated */
        c->range_ratio = r3 ? strtod(r3 + 1, NULL) : 0.0;
        workload_free(&q);
    } else if (strncmp(wl, "lognormal:", 10) == 0) {
        struct workload q;
        struct llmroof_err we = { 0 };
        if (workload_parse(wl, &q, &we))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: %s", x->fname, line, we.msg);
        c->quantiles = true;
        c->prompt = q.pairs[WORKLOAD_Q_PMED];
        c->prompt_p90 = q.pairs[WORKLOAD_Q_PP90];
        c->output = q.pairs[WORKLOAD_Q_OMED];
        c->output_p90 = q.pairs[WORKLOAD_Q_OP90];
        c->max_total = q.pairs[WORKLOAD_Q_MAX];
        workload_free(&q);
    } else {
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s:%ld: workload '%s' is not fixed:P:O, random:P:O[:R], sharegpt[:P:O], "
                               "lognormal:PM:P90:OM:O90[:MAX] or chat",
                               x->fname, line, wl);
    }
    const char *ld = f[col[M_LOAD]];
    static const char *const loads[SRV_LOAD_COUNT] = { "static:", "concurrency:", "rate:", "offline",
                                                       "slo-capacity:" };
    int k;
    for (k = 0; k < SRV_LOAD_COUNT; k++)
        if (strncmp(ld, loads[k], strlen(loads[k])) == 0)
            break;
    double lohi[2];
    long lo = 0, hi = 0;
    bool ok = k < SRV_LOAD_COUNT;
    if (ok && k == SRV_LOAD_SLO_CAPACITY) {
        /* "slo-capacity:LO-HI": closed loops of LO to HI users (at most 256 runs) */
        ok = scan_fields(ld + strlen(loads[k]), "-", lohi, 2) && field_whole(lohi[0], 1, 100000, &lo) &&
             field_whole(lohi[1], lo, lo + 255, &hi);
        c->load_lo = (double)lo;
        c->load_value = (double)hi;
    } else if (ok && k != SRV_LOAD_OFFLINE) {
        ok = parse_double(ld + strlen(loads[k]), &c->load_value) && c->load_value > 0;
    }
    if (!ok)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s:%ld: load '%s' is not static:B, concurrency:N, rate:R, offline or slo-capacity:LO-HI",
                               x->fname, line, ld);
    c->load = (enum srv_load)k;
    if (!whole(f[col[M_REQ]], 1, 100000, 0, &c->requests) || c->requests < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: requests '%s'", x->fname, line, f[col[M_REQ]]);
    for (k = 0; k < SRV_METRIC_COUNT; k++)
        if (strcmp(f[col[M_METRIC]], metric_names[k]) == 0)
            break;
    if (k == SRV_METRIC_COUNT) {
        char names[256] = "";
        for (int j = 0; j < SRV_METRIC_COUNT; j++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "", metric_names[j]);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: metric '%s' is not one of %s", x->fname, line,
                               f[col[M_METRIC]], names);
    }
    c->metric = (enum srv_metric)k;
    for (k = 0; k < 4; k++)
        if (strcmp(f[col[M_STAT]], stat_names[k]) == 0)
            break;
    if (k == 4)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: stat '%s' is not one of mean, p50, p90, p99", x->fname,
                               line, f[col[M_STAT]]);
    c->stat = (enum srv_stat)k;
    c->divide = 1;
    if (f[col[M_DIVIDE]][0] && !(parse_double(f[col[M_DIVIDE]], &c->divide) && c->divide > 0))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: divide '%s'", x->fname, line, f[col[M_DIVIDE]]);
    if (f[col[M_SLO]][0]) {
        double t[2];
        if (!scan_fields(f[col[M_SLO]], ":", t, 2) || !(t[0] > 0) || !(t[1] > 0))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: slo '%s' is not TTFT_MS:TPOT_MS", x->fname, line,
                                   f[col[M_SLO]]);
        c->slo_ttft_s = t[0] / 1e3;
        c->slo_tpot_s = t[1] / 1e3;
    }
    if (f[col[M_SPEC]][0]) {
        /* "KIND:K:ALPHA": mtp, eagle, eagle3 or medusa, K proposals per step, per-token acceptance ALPHA */
        static const char *const kinds[] = { "mtp", "eagle", "eagle3", "medusa" };
        static const int spec_kinds[] = { SIM_SPEC_MTP, SIM_SPEC_EAGLE, SIM_SPEC_EAGLE3, SIM_SPEC_MEDUSA };
        char kind[16] = "";
        int kk;
        const char *sp = f[col[M_SPEC]], *colon = strchr(sp, ':');
        double ka[2];
        long k16 = 0;
        if (colon && (size_t)(colon - sp) < sizeof kind)
            memcpy(kind, sp, (size_t)(colon - sp));
        if (!colon || !kind[0] || !scan_fields(colon + 1, ":", ka, 2) || !field_whole(ka[0], 1, 16, &k16) ||
            !(ka[1] >= 0 && ka[1] < 1))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: spec '%s' is not KIND:K:ALPHA", x->fname, line,
                                   f[col[M_SPEC]]);
        for (kk = 0; kk < 4 && strcmp(kind, kinds[kk]) != 0; kk++)
            ;
        if (kk == 4)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: spec kind '%s' is not mtp, eagle, eagle3 or medusa",
                                   x->fname, line, kind);
        c->spec_kind = spec_kinds[kk];
        c->spec_k = (int)k16;
        c->spec_alpha = ka[1];
    }
    /* the baseline of a speedup row: engine:ID, tp:N (TP N alone) or nospec (with a spec),
     * the first two joinable by '+' (engine:sglang-0.3+tp:8: another version at another layout) */
    const char *base = f[col[M_BASE]];
    if (base[0]) {
        c->has_base = true;
        char bb[96];
        snprintf(bb, sizeof bb, "%s", base);
        for (char *tok = bb, *next; tok; tok = next) {
            next = strchr(tok, '+');
            if (next)
                *next++ = '\0';
            long bt;
            if (strncmp(tok, "engine:", 7) == 0 && !c->base_engine) {
                if (!(c->base_engine = catalog_find_engine(x->cat, tok + 7)))
                    return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: base engine '%s' is not in the catalog",
                                           x->fname, line, tok + 7);
            } else if (strncmp(tok, "tp:", 3) == 0 && !c->base_tp && whole(tok + 3, 1, 1024, 0, &bt) && bt > 0) {
                c->base_tp = (int)bt;
            } else if (strcmp(tok, "nospec") != 0 || !c->spec_kind || tok != bb || next) {
                return llmroof_err_set(err, LLMROOF_EINPUT,
                                       "%s:%ld: base '%s' is not engine:ID and/or tp:N joined by '+', or nospec (with "
                                       "a spec)", x->fname, line, base);
            }
        }
    }
    if ((srv_metric_class(c->metric) == SRV_CLASS_SPEEDUP) != c->has_base)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: a speedup row needs a base, and only a speedup row has one",
                               x->fname, line);
    if ((c->metric == SRV_SLO_PCT || c->metric == SRV_GOODPUT_REQ_S || c->load == SRV_LOAD_SLO_CAPACITY) &&
        !(c->slo_ttft_s > 0))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: an slo_pct, goodput_req_s or slo-capacity row needs its slo",
                               x->fname, line);
    /* the engine settings the row states, each optional */
    const char *opt[9] = { col[M_MAXSEQS] >= 0 ? f[col[M_MAXSEQS]] : "", col[M_BUDGET] >= 0 ? f[col[M_BUDGET]] : "",
                           col[M_CHUNKED] >= 0 ? f[col[M_CHUNKED]] : "", col[M_STEPS] >= 0 ? f[col[M_STEPS]] : "",
                           col[M_RAY] >= 0 ? f[col[M_RAY]] : "", col[M_PAD] >= 0 ? f[col[M_PAD]] : "",
                           col[M_API] >= 0 ? f[col[M_API]] : "", col[M_KVBLOCKS] >= 0 ? f[col[M_KVBLOCKS]] : "",
                           col[M_MAXCONC] >= 0 ? f[col[M_MAXCONC]] : "" };
    long ch = -1, st = 0, ray = 0, api = 1;
    if (!whole(opt[0], 1, 1000000, 0, &c->max_seqs) || !whole(opt[1], 1, 100000000, 0, &c->max_batched_tokens) ||
        !whole(opt[2], 0, 2, -1, &ch) || !whole(opt[3], 1, 1024, 0, &st) || !whole(opt[4], 0, 1, 0, &ray) ||
        !whole(opt[5], 0, 1000000, -1, &c->max_paddings) || !whole(opt[6], 0, 1, 1, &api) ||
        !whole(opt[7], 1, SIM_KV_BLOCKS_MAX, 0, &c->kv_blocks) || !whole(opt[8], 1, 10000000, 0, &c->max_concurrent))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s:%ld: max_seqs '%s', max_batched_tokens '%s', chunked '%s' (0, 1 or 2), sched_steps '%s', "
                               "engine_use_ray '%s' (0 or 1), max_paddings '%s', api_server '%s' (0 or 1), kv_blocks '%s' "
                               "or max_concurrent '%s' is not a whole number in range", x->fname, line, opt[0], opt[1], opt[2],
                               opt[3], opt[4], opt[5], opt[6], opt[7], opt[8]);
    if (ray && !c->engine)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: engine_use_ray needs the row's engine", x->fname, line);
    /* simulate's rule for the flags of one engine's versions (its profile's max_paddings_option,
     * multi_step_scheduling): a row's engine that never had the flag cannot have run with it */
    if (c->engine && st > 0 && !c->engine->multi_step_scheduling)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: sched_steps %ld: engine '%s' has no --num-scheduler-steps "
                               "(its profile's \"multi_step_scheduling\")", x->fname, line, st, c->engine->id);
    if (c->engine && c->max_paddings >= 0 && !c->engine->max_paddings_option)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: max_paddings %ld: engine '%s' has no --max-paddings (its "
                               "profile's \"max_paddings_option\")", x->fname, line, c->max_paddings, c->engine->id);
    c->engine_use_ray = ray == 1;
    c->no_api_server = api == 0;
    /* how a rate row's client spaced its arrivals: plain Poisson, or DistServe's scaled span */
    const char *arr = col[M_ARRIVALS] >= 0 ? f[col[M_ARRIVALS]] : "";
    if (arr[0] && strcmp(arr, "poisson") != 0 && strcmp(arr, "fixed-span") != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: arrivals '%s' is not poisson or fixed-span", x->fname,
                               line, arr);
    c->span_fixed = strcmp(arr, "fixed-span") == 0;
    /* --moe-tp: data-parallel attention over experts split by width */
    const char *mt = col[M_MOETP] >= 0 ? f[col[M_MOETP]] : "";
    long mtv = 1;
    if (mt[0] && !whole(mt, 1, 1024, 1, &mtv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column 'moe_tp': '%s' is not a whole number from 1 to 1024",
                               x->fname, line, mt);
    c->moe_tp = (int)mtv;
    if (c->moe_tp > 1 && (!c->dp_attn || c->ep > 1))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: moe_tp %d needs dp_attn 1 and no ep", x->fname, line,
                               c->moe_tp);
    if (c->span_fixed && c->load != SRV_LOAD_RATE)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: arrivals fixed-span scales a rate:R load's arrivals, not "
                               "load '%s'", x->fname, line, f[col[M_LOAD]]);
    /* as simulate --fixed-span: one request has no gap to scale */
    if (c->span_fixed && c->requests < 2)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: arrivals fixed-span scales the gaps between arrivals: it "
                               "needs requests 2 or more", x->fname, line);
    /* SGLang's --scheduler-recv-interval as the run stated it (simulate --recv-interval) */
    const char *ri = col[M_RECV] >= 0 ? f[col[M_RECV]] : "";
    long riv = 0;
    if (ri[0] && !whole(ri, 1, 1024, 0, &riv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: recv_interval '%s' is not a whole number in [1, 1024]",
                               x->fname, line, ri);
    if (riv > 0 && c->engine && !c->engine->recv_interval_option)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: recv_interval %ld: engine '%s' has no "
                               "--scheduler-recv-interval (its profile's \"recv_interval_option\")", x->fname, line, riv,
                               c->engine->id);
    c->recv_interval = (int)riv;
    c->chunked = (int)ch;
    c->sched_steps = (int)st;
    c->reason[0] = '\0';
    c->mapped = true;
    return LLMROOF_OK;
}
#undef BAD

static const char *case_id(const void *rows, size_t i) { return ((const struct srv_case *)rows)[i].id; }
static long case_line(const void *rows, size_t i) { return ((const struct srv_case *)rows)[i].line; }

int srv_load_cases(const struct llmroof_catalog *cat, const char *rows_text, size_t rows_len, const char *rows_name,
                   const char *map_text, size_t map_len, const char *map_name, struct srv_case **out, size_t *n,
                   struct llmroof_err *err)
{
    static const char *const rnames[R_NCOLS] = { "id", "metric", "value", "source", "framework", "num_requests" };
    static const char *const mnames[M_NCOLS] = { "id", "model", "gpu", "engine", "wdt", "kvdt", "tp", "ep", "dp_attn",
                                                 "instances", "disagg", "workload", "load", "requests", "metric",
                                                 "stat", "divide", "slo", "spec", "base", "notes", "skip",
                                                 "max_seqs", "max_batched_tokens", "chunked", "sched_steps",
                                                 "engine_use_ray", "max_paddings", "api_server", "kv_blocks",
                                                 "max_concurrent", "arrivals", "moe_tp", "recv_interval" };
    struct read_ctx x = { rows_name, NULL, 0, 0, cat };
    *out = NULL;
    *n = 0;
    /* id, metric, value and source required: the reserved sources are left out by a row's source,
     * and a file without the column had let any row in (an audit of session 71) */
    int rc = val_csv_read(rows_text, rows_len, rows_name, rnames, R_NCOLS, 4, published_row, &x, err);
    if (!rc) /* a repeated id had been reported as the map's error */
        rc = val_ids_unique(rows_name, x.n, case_id, case_line, x.v, err);
    if (!rc) {
        x.fname = map_name;
        rc = val_csv_read(map_text, map_len, map_name, mnames, M_NCOLS, M_NREQUIRED, map_row, &x, err);
    }
    if (rc) {
        free(x.v);
        return rc;
    }
    *out = x.v;
    *n = x.n;
    return LLMROOF_OK;
}
