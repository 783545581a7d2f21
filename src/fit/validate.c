/* validate.c - see llmroof/validate.h */
#include "fit/validate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "model/memory.h"
#include "base/parse.h"
#include "serve/sim.h"

static const char *const metric_names[VAL_METRIC_COUNT] = {
    "tpot_ms", "ttft_ms", "decode_tok_s_per_seq", "decode_tok_s_total", "prefill_tok_s", "e2e_latency_ms",
    "throughput_out_tok_s", "serving_throughput_out_tok_s"
};

const char *val_metric_name(enum val_metric m)
{
    return (m >= 0 && m < VAL_METRIC_COUNT) ? metric_names[m] : "?";
}

enum val_class val_metric_class(enum val_metric m)
{
    switch (m) {
    case VAL_TTFT_MS:
    case VAL_PREFILL_TOK_S: return VAL_CLASS_PREFILL;
    case VAL_E2E_LATENCY_MS:
    case VAL_THROUGHPUT_OUT_TOK_S:
    case VAL_SERVING_THROUGHPUT_OUT_TOK_S: return VAL_CLASS_E2E;
    default: return VAL_CLASS_DECODE;
    }
}

const char *val_class_name(enum val_class c)
{
    return c == VAL_CLASS_DECODE ? "decode" : c == VAL_CLASS_PREFILL ? "prefill" : "e2e";
}

/* ------------------------------------------------------------------------ */
/* CSV (RFC 4180)                                                           */
/* ------------------------------------------------------------------------ */

/* Reads one record starting at *pos; fields are copied into f[i] (truncated to VAL_TEXT - 1
 * bytes; bit i of *over is set when field i was cut, so a reader can refuse what it uses). */
int val_csv_record(const char *t, size_t len, size_t *pos, long *line, char f[][VAL_TEXT], int *nf,
                      uint32_t *over, const char *fname, struct llmroof_err *err)
{
    size_t i = *pos;
    int n = 0;
    size_t k = 0;
    bool quoted = false, started = false;
    *over = 0;
    if (n < VAL_MAX_FIELDS)
        f[0][0] = '\0';
    while (i < len) {
        char ch = t[i];
        if (quoted) {
            if (ch == '"') {
                if (i + 1 < len && t[i + 1] == '"') {
                    if (k + 1 < VAL_TEXT)
                        f[n][k++] = '"';
                    else
                        *over |= 1u << n;
                    i += 2;
                    continue;
                }
                quoted = false;
                i++;
                continue;
            }
            if (ch == '\n')
                (*line)++;
            if (k + 1 < VAL_TEXT)
                f[n][k++] = ch;
            else
                *over |= 1u << n;
            i++;
            continue;
        }
        if (ch == '"' && !started) {
            quoted = started = true;
            i++;
            continue;
        }
        if (ch == ',' || ch == '\n' || ch == '\r') {
            f[n][k] = '\0';
            n++;
            if (ch == ',') {
                if (n == VAL_MAX_FIELDS)
                    return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: more than %d fields", fname, *line, VAL_MAX_FIELDS);
                k = 0;
                started = false;
                f[n][0] = '\0';
                i++;
                continue;
            }
            if (ch == '\r' && i + 1 < len && t[i + 1] == '\n')
                i++;
            i++;
            (*line)++;
            *pos = i;
            *nf = n;
            return LLMROOF_OK;
        }
        started = true;
        if (k + 1 < VAL_TEXT)
            f[n][k++] = ch;
        else
            *over |= 1u << n;
        i++;
    }
    if (quoted)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: unterminated quoted field", fname, *line);
    f[n][k] = '\0';
    *nf = n + 1;
    *pos = i;
    (*line)++;
    return LLMROOF_OK;
}

int val_csv_reserve(void **rows, size_t *cap, size_t n, size_t elem, const char *fname, struct llmroof_err *err)
{
    if (n < *cap)
        return LLMROOF_OK;
    if (n >= 1000000) /* the limit counts rows, not the doubling buffer's capacity */
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: more than 1,000,000 rows", fname);
    size_t nc = *cap ? *cap * 2 : 256;
    if (nc > 1000000)
        nc = 1000000;
    void *nv = realloc(*rows, nc * elem);
    if (!nv)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    *rows = nv;
    *cap = nc;
    return LLMROOF_OK;
}

int val_csv_read(const char *text, size_t len, const char *fname, const char *const *names, int ncols, int nrequired,
                 val_csv_row_fn row, void *ctx, struct llmroof_err *err)
{
    size_t bad;
    if (!parse_utf8_valid(text, len, &bad)) {
        long l = 1;
        for (size_t k = 0; k < bad; k++)
            l += text[k] == '\n';
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: not valid UTF-8", fname, l);
    }
    if (ncols > VAL_MAX_FIELDS)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: too many columns", fname);
    char (*f)[VAL_TEXT] = malloc(sizeof(char[VAL_MAX_FIELDS][VAL_TEXT]));
    if (!f)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    size_t pos = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        pos = 3; /* a UTF-8 byte order mark before the header (spreadsheet exports) */
    long line = 1;
    int nf = 0, col[VAL_MAX_FIELDS], maxcol = 0;
    uint32_t over = 0;
    int rc = val_csv_record(text, len, &pos, &line, f, &nf, &over, fname, err);
    for (int k = 0; rc == 0 && k < ncols; k++) {
        col[k] = -1;
        for (int j = 0; j < nf; j++)
            if (strcmp(f[j], names[k]) == 0)
                col[k] = j;
        if (k < nrequired && col[k] < 0)
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:1: header lacks column '%s'", fname, names[k]);
        if (col[k] > maxcol)
            maxcol = col[k];
    }
    while (rc == 0 && pos < len) {
        long start = line;
        if ((rc = val_csv_record(text, len, &pos, &line, f, &nf, &over, fname, err)))
            break;
        /* a cut value would be read as another one; the free-text source and notes columns are the
         * exception: only the source's first word (val_source_key) and the notes' load are read */
        for (int k = 0; k < ncols && !rc; k++)
            if (col[k] >= 0 && col[k] < nf && (over >> col[k]) & 1u && strcmp(names[k], "source") != 0 &&
                strcmp(names[k], "notes") != 0)
                rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column '%s' is longer than %d bytes", fname, start,
                                     names[k], VAL_TEXT - 1);
        if (rc)
            break;
        if (nf == 1 && f[0][0] == '\0')
            continue; /* empty line */
        if (nf <= maxcol)
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: %d fields, the header has more", fname, start, nf);
        else
            rc = row(ctx, f, col, start, err);
    }
    free(f);
    return rc;
}

enum { M_ID, M_MODEL, M_GPU, M_NUM_GPUS, M_TP, M_WDT, M_KVDT, M_BATCH, M_IN, M_OUT, M_METRIC, M_VALUE, M_FRAMEWORK,
       M_SOURCE, M_NOTES, M_NCOLS };

struct rows_ctx {
    const char *fname;
    struct val_row *v;
    size_t n, cap;
};

static int measurement_row(void *vctx, char f[][VAL_TEXT], const int *col, long line, struct llmroof_err *err)
{
    struct rows_ctx *x = vctx;
    int rc = val_csv_reserve((void **)&x->v, &x->cap, x->n, sizeof *x->v, x->fname, err);
    if (rc)
        return rc;
    struct val_row *r = &x->v[x->n++];
    memset(r, 0, sizeof *r);
    r->line = line;
    /* columns held in narrower fields: longer is an error, never a cut ("1e308" written out
     * in full must not become a 63-digit number) */
    const struct { int c; size_t cap; } narrow[] = { { M_ID, sizeof r->id }, { M_NUM_GPUS, sizeof r->num_gpus },
                                                     { M_TP, sizeof r->tp }, { M_BATCH, sizeof r->batch },
                                                     { M_METRIC, sizeof r->metric }, { M_VALUE, sizeof r->value } };
    static const char *const narrow_name[] = { "id", "num_gpus", "tp", "batch", "metric", "value" };
    for (size_t k = 0; k < sizeof narrow / sizeof narrow[0]; k++)
        if (strlen(f[col[narrow[k].c]]) >= narrow[k].cap)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: column '%s' is longer than %zu bytes", x->fname, line,
                                   narrow_name[k], narrow[k].cap - 1);
    snprintf(r->id, sizeof r->id, "%s", f[col[M_ID]]);
    snprintf(r->model, sizeof r->model, "%s", f[col[M_MODEL]]);
    snprintf(r->gpu, sizeof r->gpu, "%s", f[col[M_GPU]]);
    snprintf(r->num_gpus, sizeof r->num_gpus, "%s", f[col[M_NUM_GPUS]]);
    snprintf(r->tp, sizeof r->tp, "%s", f[col[M_TP]]);
    snprintf(r->weight_dtype, sizeof r->weight_dtype, "%s", f[col[M_WDT]]);
    snprintf(r->kv_dtype, sizeof r->kv_dtype, "%s", f[col[M_KVDT]]);
    snprintf(r->batch, sizeof r->batch, "%s", f[col[M_BATCH]]);
    snprintf(r->input_len, sizeof r->input_len, "%s", f[col[M_IN]]);
    snprintf(r->output_len, sizeof r->output_len, "%s", f[col[M_OUT]]);
    snprintf(r->metric, sizeof r->metric, "%s", f[col[M_METRIC]]);
    snprintf(r->value, sizeof r->value, "%s", f[col[M_VALUE]]);
    if (col[M_FRAMEWORK] >= 0)
        snprintf(r->framework, sizeof r->framework, "%s", f[col[M_FRAMEWORK]]);
    if (col[M_SOURCE] >= 0)
        snprintf(r->source, sizeof r->source, "%s", f[col[M_SOURCE]]);
    if (col[M_NOTES] >= 0)
        snprintf(r->notes, sizeof r->notes, "%s", f[col[M_NOTES]]);
    return LLMROOF_OK;
}

int val_parse_csv(const char *text, size_t len, const char *fname, struct val_row **rows, size_t *nrows,
                  struct llmroof_err *err)
{
    static const char *const names[M_NCOLS] = { "id", "model", "gpu", "num_gpus", "tp", "weight_dtype", "kv_dtype",
                                                "batch", "input_len", "output_len", "metric", "value", "framework",
                                                "source", "notes" };
    struct rows_ctx x = { fname, NULL, 0, 0 };
    int rc = val_csv_read(text, len, fname, names, M_NCOLS, M_FRAMEWORK, measurement_row, &x, err);
    if (rc) {
        free(x.v);
        return rc;
    }
    *rows = x.v;
    *nrows = x.n;
    return LLMROOF_OK;
}

/* ------------------------------------------------------------------------ */
/* Mapping                                                                  */
/* ------------------------------------------------------------------------ */

void val_source_key(const struct val_row *r, char *out, size_t cap)
{
    const char *s = r->source;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s) {
        snprintf(out, cap, "%s", r->framework[0] ? r->framework : "(not stated)");
        return;
    }
    if (strncmp(s, "https://", 8) == 0)
        s += 8;
    else if (strncmp(s, "http://", 7) == 0)
        s += 7;
    size_t n = strcspn(s, " \t,;");
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static void note(struct val_case *c, const char *fmt, const char *a)
{
    size_t n = strlen(c->assumptions);
    snprintf(c->assumptions + n, sizeof c->assumptions - n, "%s", n ? "; " : "");
    n = strlen(c->assumptions);
    snprintf(c->assumptions + n, sizeof c->assumptions - n, fmt, a);
}

/* The whole number after `key` in notes ("concurrency 8" -> 8), or, for a key starting with a
 * space (" requests"), the number just before it ("150 requests" -> 150); -1 when absent. */
static long note_number(const char *notes, const char *key)
{
    const char *p = strstr(notes, key);
    if (!p)
        return -1;
    if (key[0] == ' ') {
        const char *e = p;
        while (p > notes && isdigit((unsigned char)p[-1]))
            p--;
        if (p == e)
            return -1;
        return strtol(p, NULL, 10);
    }
    p += strlen(key);
    if (!isdigit((unsigned char)*p))
        return -1;
    return strtol(p, NULL, 10);
}

/* A length: a plain number, or one the map names ("~few hundred (unstated)" -> 300). */
static bool length_of(const struct llmroof_valmap *map, const char *s, long *out, bool *assumed)
{
    int64_t v;
    *assumed = false;
    if (parse_int64(s, 0, 1000000000, &v)) {
        *out = (long)v;
        return true;
    }
    for (int i = 0; i < map->nlens; i++)
        if (strcmp(map->lens[i].from, s) == 0) {
            *out = map->lens[i].tokens;
            *assumed = true;
            return true;
        }
    return false;
}

void val_map_row(const struct llmroof_catalog *cat, const struct llmroof_valmap *map, const struct val_row *r,
                 struct val_case *c)
{
    memset(c, 0, sizeof *c);
    c->row = r;
#define UNMAPPED(...) do { snprintf(c->reason, sizeof c->reason, __VA_ARGS__); return; } while (0)
    int m;
    for (m = 0; m < VAL_METRIC_COUNT; m++)
        if (strcmp(r->metric, metric_names[m]) == 0)
            break;
    if (m == VAL_METRIC_COUNT)
        UNMAPPED("metric '%s' is not one llmroof predicts", r->metric);
    c->metric = (enum val_metric)m;
    char key[VAL_TEXT];
    val_source_key(r, key, sizeof key);
    for (int i = 0; i < map->nreserved; i++)
        if (strncmp(key, map->reserved[i], strlen(map->reserved[i])) == 0)
            UNMAPPED("source '%s' is reserved for the independent check (data/validation-map.json)", key);
    if (!parse_double(r->value, &c->measured) || !(c->measured > 0))
        UNMAPPED("value '%s' is not a positive number", r->value);
    const char *gid = NULL, *mid = NULL;
    for (int i = 0; i < map->ngpus; i++)
        if (strcmp(map->gpus[i].from, r->gpu) == 0)
            gid = map->gpus[i].to;
    /* rows written with catalog ids (bench/gpu/measure.py --gpu) need no mapping */
    if (!gid && catalog_find_gpu(cat, r->gpu))
        gid = r->gpu;
    if (!gid)
        UNMAPPED("GPU '%s' has no catalog entry (data/validation-map.json)", r->gpu);
    if (!(c->gpu = catalog_find_gpu(cat, gid)))
        UNMAPPED("GPU '%s' maps to '%s', which the catalog lacks", r->gpu, gid);
    for (int i = 0; i < map->nmodels; i++)
        if (strcmp(map->models[i].from, r->model) == 0)
            mid = map->models[i].to;
    if (!mid && catalog_find_model(cat, r->model))
        mid = r->model;
    if (!mid)
        UNMAPPED("model '%s' has no catalog entry (data/validation-map.json)", r->model);
    if (!(c->model = catalog_find_model(cat, mid)))
        UNMAPPED("model '%s' maps to '%s', which the catalog lacks", r->model, mid);
    for (int i = 0; i < map->nengines; i++)
        if (strcmp(map->engines[i].from, r->framework) == 0 && !(c->engine = catalog_find_engine(cat, map->engines[i].to)))
            UNMAPPED("framework '%s' maps to engine '%s', which the catalog lacks", r->framework, map->engines[i].to);
    int64_t ng, tp, b = -1;
    bool max_fit = false;
    if (strcmp(r->batch, "dynamic") == 0 || c->metric == VAL_SERVING_THROUGHPUT_OUT_TOK_S) {
        /* a serving row: the load is in the notes ("concurrency 8", "150 requests", or an
         * infinite request rate with "num prompts N"); the simulator predicts it */
        long conc = note_number(r->notes, "concurrency "), nreq = note_number(r->notes, " requests");
        long prompts = note_number(r->notes, "num prompts ");
        bool infinite = strstr(r->notes, "infinite") != NULL;
        if (conc > 0 && nreq <= 0)
            nreq = 10 * conc;
        if (infinite && prompts > 0) {
            conc = 0;
            nreq = prompts;
        }
        if (!(conc > 0 || infinite) || nreq <= 0)
            UNMAPPED("serving row without a load llmroof can read (notes: concurrency N, or an infinite rate with num prompts N)");
        if (nreq > 4000)
            UNMAPPED("serving row of %ld requests: more than the 4000 validate simulates", nreq);
        c->serving = true;
        c->concurrency = conc;
        c->requests = nreq;
        c->median = strstr(r->notes, "MEDIAN") != NULL || strstr(r->notes, "median") != NULL;
        b = conc > 0 ? conc : nreq;
        char ld[96];
        snprintf(ld, sizeof ld, "%ld requests, %s %ld", nreq, conc > 0 ? "concurrency" : "all at once:", conc > 0 ? conc : nreq);
        note(c, "served by the simulator: %s", ld);
    }
    for (int i = 0; i < map->nbatches && b < 0; i++)
        if (strcmp(map->batches[i].from, r->batch) == 0) {
            b = map->batches[i].tokens;
            max_fit = b == 0;
            if (b > 0)
                note(c, "batch '%s' taken from the map", r->batch);
        }
    if (!parse_int64(r->num_gpus, 1, 1024, &ng))
        UNMAPPED("num_gpus '%.40s' is not a whole number", r->num_gpus);
    tp = -1;
    for (int i = 0; i < map->ntps && tp < 0; i++)
        if (strcmp(map->tps[i].from, r->tp) == 0) {
            tp = map->tps[i].tokens;
            note(c, "tp '%s' taken from the map", r->tp);
        }
    if (tp < 0 && !parse_int64(r->tp, 1, 1024, &tp))
        UNMAPPED("tp '%.50s' is not a whole number", r->tp);
    if (b < 0 && !parse_int64(r->batch, 1, 1000000, &b))
        UNMAPPED("batch '%.40s' is neither a whole number nor in the batch map", r->batch);
    if (ng != tp) {
        if (tp != 1)
            UNMAPPED("%ld GPUs with TP %ld: pipeline or data parallelism is not modelled", (long)ng, (long)tp);
        c->layer_split = true;
        note(c, "%s", "layers split over GPUs run one after another: modelled as one GPU");
    }
    c->tp = (int)tp;
    c->batch = max_fit ? 1 : (long)b;
    const struct llmroof_dtype_map *wd = NULL, *kd = NULL;
    for (int i = 0; i < map->nwdt; i++)
        if (strcmp(map->wdt[i].from, r->weight_dtype) == 0)
            wd = &map->wdt[i];
    for (int i = 0; i < map->nkvdt; i++)
        if (strcmp(map->kvdt[i].from, r->kv_dtype) == 0)
            kd = &map->kvdt[i];
    /* llmroof's own dtype names need no mapping either */
    struct llmroof_dtype_map own_w = { "", LLMROOF_FP16, 0, false, LLMROOF_FP16 }, own_k = own_w;
    if (!wd && dtype_parse(r->weight_dtype, &own_w.dtype) && dtype_is_storage(own_w.dtype))
        wd = &own_w;
    if (!kd && dtype_parse(r->kv_dtype, &own_k.dtype) && dtype_is_storage(own_k.dtype))
        kd = &own_k;
    if (!wd)
        UNMAPPED("weight format '%s' has no mapping", r->weight_dtype);
    if (!kd)
        UNMAPPED("KV format '%s' has no mapping", r->kv_dtype);
    /* weight-only quantization computes at 16 bits; bf16 models compute in bf16; W8A8, W4A8 and
     * fp8 formats name their compute dtype in the map */
    enum llmroof_dtype act = wd->has_act ? wd->act : wd->dtype == LLMROOF_BF16 ? LLMROOF_BF16 : LLMROOF_FP16;
    if (!c->gpu->has_peak[act]) {
        if (wd->has_act)
            UNMAPPED("GPU '%s' has no %s compute path for weight format '%s'", c->gpu->id, dtype_name(act),
                     r->weight_dtype);
        act = LLMROOF_FP16;
    }
    c->dt = (struct llmroof_dtypes){ wd->dtype, kd->dtype, act, wd->bits };
    bool a1, a2;
    if (!length_of(map, r->input_len, &c->prompt, &a1))
        UNMAPPED("input_len '%s' is neither a number nor in the length map", r->input_len);
    if (!length_of(map, r->output_len, &c->output, &a2))
        UNMAPPED("output_len '%s' is neither a number nor in the length map", r->output_len);
    if (a1)
        note(c, "input_len '%s' taken from the map", r->input_len);
    if (a2)
        note(c, "output_len '%s' taken from the map", r->output_len);
    if (val_metric_class(c->metric) != VAL_CLASS_PREFILL && c->output < 2)
        UNMAPPED("a %s needs at least 2 output tokens (got '%s')", r->metric, r->output_len);
    if (val_metric_class(c->metric) == VAL_CLASS_PREFILL && c->prompt < 1)
        UNMAPPED("a %s needs a prompt (input_len '%s')", r->metric, r->input_len);
    if (c->prompt < 1)
        c->prompt = 1; /* generation from an empty context: one token of prompt */
    if (c->output < 1)
        c->output = 1;
    struct llmroof_shard sh;
    struct llmroof_err e2 = { 0 };
    if (ops_shard(c->model, c->tp, &sh, &e2))
        UNMAPPED("%s", e2.msg);
    if (max_fit) {
        /* "the largest batch that fits": llmroof's own memory model at prompt + output tokens per
         * sequence with vLLM-like defaults (90% of memory, 1 GiB reserve) */
        struct llmroof_mem_opts mo = memory_default_opts();
        struct llmroof_memory mem;
        if (memory_eval(c->model, c->gpu, c->tp, &c->dt, c->prompt + c->output, &mo, &mem, &e2) || !mem.fits ||
            mem.max_batch < 1)
            UNMAPPED("batch '%s' is the most that fits, and %s does not fit on %d x %s", r->batch, c->model->id, c->tp,
                     c->gpu->id);
        c->batch = (long)floor(mem.max_batch);
        if (c->batch > 1024)
            c->batch = 1024;
        char bs[64];
        snprintf(bs, sizeof bs, "%ld", c->batch);
        note(c, "batch %s: the most that fits by llmroof's memory model", bs);
    }
    c->mapped = true;
#undef UNMAPPED
}

/* A row measured under a load: the continuous-batching simulator (src/serve/sim.c) with the
 * simulator's vLLM-like defaults, fixed lengths, and the stated load - a closed loop of
 * `concurrency` users without think time, or every request queued at once (an infinite rate,
 * the engine's sequence limit at the number of requests, as the AMD rows state). The statistic
 * is the median where the row says so, else the mean; throughput is output tokens over the run. */
static int predict_serving(struct val_case *c, const struct llmroof_setup *s, const struct llmroof_engine *en,
                           struct llmroof_err *err)
{
    struct sim_config sc;
    sim_default_config(&sc);
    sc.setup = *s;
    sim_config_engine(&sc, en, s->gpu, false, false); /* the engine's scheduler, budget and limit */
    struct workload w = { WORKLOAD_FIXED, c->prompt, c->output, NULL, 0 };
    sc.workload = &w;
    sc.requests = c->requests;
    if (c->concurrency > 0) {
        sc.mode = SIM_CLOSED;
        sc.concurrency = c->concurrency;
        sc.think_min_s = sc.think_max_s = 0.0;
        if (sc.max_seqs < c->concurrency)
            sc.max_seqs = c->concurrency;
    } else {
        sc.mode = SIM_OFFLINE;
        sc.max_seqs = c->requests;
    }
    struct sim_result res;
    int rc = sim_run(&sc, &res, err);
    if (rc)
        return rc;
    if (res.completed < 1 || !(res.output_tok_s > 0)) {
        sim_result_free(&res);
        return llmroof_err_set(err, LLMROOF_EINPUT, "the simulated load completed no request (KV cache too small)");
    }
    switch (c->metric) {
    case VAL_TTFT_MS: c->predicted = 1e3 * (c->median ? res.ttft.p50 : res.ttft.mean); break;
    case VAL_TPOT_MS: c->predicted = 1e3 * (c->median ? res.tpot.p50 : res.tpot.mean); break;
    case VAL_DECODE_TOK_S_PER_SEQ: c->predicted = 1.0 / (c->median ? res.tpot.p50 : res.tpot.mean); break;
    case VAL_E2E_LATENCY_MS: c->predicted = 1e3 * (c->median ? res.e2e.p50 : res.e2e.mean); break;
    case VAL_THROUGHPUT_OUT_TOK_S:
    case VAL_SERVING_THROUGHPUT_OUT_TOK_S:
    case VAL_DECODE_TOK_S_TOTAL: c->predicted = res.output_tok_s; break;
    case VAL_PREFILL_TOK_S:
    case VAL_METRIC_COUNT: c->predicted = 0; break;
    }
    sim_result_free(&res);
    if (!(c->predicted > 0))
        return llmroof_err_set(err, LLMROOF_EINPUT, "metric '%s' under a serving load is not one the simulator gives",
                               val_metric_name(c->metric));
    c->err = 1.0 / val_latency_ratio(c) - 1.0;
    return LLMROOF_OK;
}

int val_predict(struct val_case *c, const struct llmroof_gpu *g, const struct llmroof_engine *en,
                struct llmroof_err *err)
{
    struct llmroof_setup s = { c->model, g ? g : c->gpu, c->tp, c->dt,
                               roofline_effs_engine(g ? g : c->gpu, en ? en : c->engine, NULL), { 0 } };
    if (c->serving)
        return predict_serving(c, &s, en ? en : c->engine, err);
    struct llmroof_request req = { c->batch, c->prompt, c->output };
    struct llmroof_estimate e;
    int rc = estimate_run(&s, &req, &e, err);
    if (rc)
        return rc;
    double B = (double)c->batch, P = (double)c->prompt, O = (double)c->output;
    switch (c->metric) {
    case VAL_TPOT_MS: c->predicted = e.tpot_s * 1e3; break;
    case VAL_TTFT_MS: c->predicted = e.ttft_s * 1e3; break;
    case VAL_DECODE_TOK_S_PER_SEQ: c->predicted = 1.0 / e.tpot_s; break;
    case VAL_DECODE_TOK_S_TOTAL: c->predicted = B / e.tpot_s; break;
    case VAL_PREFILL_TOK_S: c->predicted = B * P / e.ttft_s; break;
    case VAL_E2E_LATENCY_MS: c->predicted = e.e2e_s * 1e3; break;
    case VAL_THROUGHPUT_OUT_TOK_S:
    case VAL_SERVING_THROUGHPUT_OUT_TOK_S: c->predicted = B * O / e.e2e_s; break;
    case VAL_METRIC_COUNT: break;
    }
    c->err = 1.0 / val_latency_ratio(c) - 1.0;
    return LLMROOF_OK;
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double quantile(double *v, long n, double q)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    double pos = q * (double)(n - 1);
    long lo = (long)floor(pos), hi = lo + 1 < n ? lo + 1 : lo;
    return v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
}

struct val_stats val_stats_of(const struct val_case *cases, size_t n,
                              bool (*keep)(const struct val_case *c, const void *ctx), const void *ctx)
{
    struct val_stats s = { 0 };
    double *a = malloc(sizeof(double) * (n ? n : 1)), *b = malloc(sizeof(double) * (n ? n : 1));
    if (!a || !b) {
        free(a);
        free(b);
        return s;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped || (keep && !keep(&cases[i], ctx)))
            continue;
        a[s.n] = fabs(cases[i].err);
        b[s.n++] = cases[i].err;
    }
    if (s.n) {
        s.median_abs = quantile(a, s.n, 0.5);
        s.p90_abs = quantile(a, s.n, 0.9);
        s.bias = quantile(b, s.n, 0.5);
    }
    free(a);
    free(b);
    return s;
}

double val_latency_ratio(const struct val_case *c)
{
    bool rate = c->metric == VAL_DECODE_TOK_S_PER_SEQ || c->metric == VAL_DECODE_TOK_S_TOTAL ||
                c->metric == VAL_PREFILL_TOK_S || c->metric == VAL_THROUGHPUT_OUT_TOK_S ||
                c->metric == VAL_SERVING_THROUGHPUT_OUT_TOK_S;
    return rate ? c->predicted / c->measured : c->measured / c->predicted;
}

void val_bands(const struct val_case *cases, size_t n, struct llmroof_uncertainty *out)
{
    memset(out, 0, sizeof *out);
    struct llmroof_band *b[3] = { &out->tpot, &out->ttft, &out->e2e }; /* decode, prefill, e2e */
    double *v = malloc(sizeof(double) * (n ? n : 1));
    if (!v)
        return;
    for (int cls = 0; cls < 3; cls++) {
        long k = 0;
        for (size_t i = 0; i < n; i++)
            if (cases[i].mapped && (int)val_metric_class(cases[i].metric) == cls)
                v[k++] = val_latency_ratio(&cases[i]);
        if (k < 2)
            continue;
        b[cls]->present = true;
        b[cls]->n = k;
        b[cls]->low = quantile(v, k, 0.1);
        b[cls]->high = quantile(v, k, 0.9);
    }
    free(v);
}

/* ------------------------------------------------------------------------ */
/* Calibration                                                              */
/* ------------------------------------------------------------------------ */


static double loss(struct val_case *cases, size_t n, const struct llmroof_gpu *g, const struct llmroof_gpu *as,
                   long *used)
{
    double sum = 0;
    long k = 0;
    for (size_t i = 0; i < n; i++) {
        struct val_case *c = &cases[i];
        if (!c->mapped || c->gpu != g || c->serving)
            continue;
        if (val_predict(c, as, NULL, NULL) != LLMROOF_OK)
            continue;
        sum += fabs(log(c->predicted / c->measured));
        k++;
    }
    if (used)
        *used = k;
    return k ? sum / (double)k : 0;
}

static double *gpu_param(struct llmroof_gpu *g, int i)
{
    switch (i) {
    case 0: return &g->compute_eff;
    case 1: return &g->memory_eff;
    case 2: return &g->comm_eff;
    case 3: return &g->step_overhead_s;
    default: return &g->link_latency_s;
    }
}

/* Physical bounds, so that a framework's slowness cannot pass for a property of the GPU:
 * compute 0.40-0.90 of the dense peak (the best measured matmuls reach 0.80-0.87, and cuBLAS
 * GEMMs of serving shapes rarely fall below 0.4); memory 0.50-0.95 of bandwidth (HBM copies
 * reach about 0.9); communication 0.50-1.0 of the link (NCCL ring busbw reaches 0.78-0.81);
 * a GPU step overhead of at most 2 ms (launches and scheduling take tens to hundreds of
 * microseconds; more is the framework's, fitted into its engine profile); a collective's fixed
 * latency of 2-30 us (measured small all-reduces: 10 us on 2 x A100, 34 us on 8 with one ring
 * channel, 42 us on 8 x RTX 4090). */
static const double gpu_lo[5] = { 0.40, 0.50, 0.50, 0.0, 2e-6 }, gpu_hi[5] = { 0.90, 0.95, 1.0, 0.002, 30e-6 };
/* Engines, the load-time bounds of data/engines.json (docs/model.md "Engine profiles"): up to
 * 20 ms of CPU per step and 200 ms per first token; kernels 0.7-1.0 of the GPU's; up to 50 us
 * more per collective than the link's own latency (NCCL small-message all-reduce on 8 x A100
 * with one ring channel: 34 us against 6.6 + 14 x 0.6 = 15 us for the link model). */
static const double eng_lo[4] = { 0.0, 0.0, 0.7, 0.0 }, eng_hi[4] = { 0.020, 0.200, 1.0, 50e-6 };
static const char *const gpu_param_names[3] = { "compute_eff", "memory_eff", "comm_eff" };
static const char *const eng_param_names[4] = { "step_overhead_s", "first_token_s", "compute_scale",
                                                "collective_latency_s" };

#define VAL_FIT_ROUNDS 4

static double *eng_param(struct llmroof_engine *e, int i)
{
    return i == 0 ? &e->step_overhead_s : i == 1 ? &e->first_token_s : i == 2 ? &e->compute_scale
                                                                        : &e->collective_latency_s;
}

/* Minimises f over one coordinate *x in [lo, hi]: a 25-point scan, refined three times around
 * the best point (a resolution of 1/25^4 of the range). */
static double scan(double *x, double lo, double hi, double (*f)(void *), void *ctx, double best)
{
    double a = lo, b = hi;
    for (int level = 0; level < 4; level++) {
        double step = (b - a) / 24.0, arg = *x;
        for (int k = 0; k <= 24; k++) {
            double keep = *x;
            *x = a + step * k;
            double l = f(ctx);
            if (l < best - 1e-12) {
                best = l;
                arg = *x;
            }
            *x = keep;
        }
        *x = arg;
        a = fmax(lo, arg - step);
        b = fmin(hi, arg + step);
    }
    return best;
}

/* Does moving *x across [lo, hi] change f? Parameters the data cannot see keep their value. */
static bool identifiable(double *x, double lo, double hi, double (*f)(void *), void *ctx)
{
    double keep = *x;
    *x = lo;
    double a = f(ctx);
    *x = hi;
    double b = f(ctx);
    *x = keep;
    return fabs(a - b) > 1e-9;
}

struct single {
    struct val_case *cases;
    size_t n;
    const struct llmroof_gpu *g;
    const struct llmroof_gpu *as;
};

static double single_loss(void *v)
{
    struct single *s = v;
    return loss(s->cases, s->n, s->g, s->as, NULL);
}

int val_calibrate(struct val_case *cases, size_t n, const struct llmroof_gpu *g, struct val_fit *out,
                  struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    out->before = roofline_default_effs(g);
    struct llmroof_gpu t = *g;
    struct single ctx = { cases, n, g, &t };
    out->loss_before = loss(cases, n, g, &t, &out->n);
    if (out->n == 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "no usable measurement maps to GPU '%s'", g->id);
    bool *fitted[4] = { &out->fitted_compute, &out->fitted_memory, &out->fitted_comm, &out->fitted_overhead };
    for (int p = 0; p < 4; p++)
        *fitted[p] = identifiable(gpu_param(&t, p), gpu_lo[p], gpu_hi[p], single_loss, &ctx);
    double best = out->loss_before;
    /* coordinate descent; correlated parameters (memory efficiency and step overhead) need rounds */
    for (int round = 0; round < 30; round++)
        for (int p = 0; p < 4; p++)
            if (*fitted[p])
                best = scan(gpu_param(&t, p), gpu_lo[p], gpu_hi[p], single_loss, &ctx, best);
    out->after = roofline_default_effs(&t);
    out->loss_after = loss(cases, n, g, &t, NULL);
    return LLMROOF_OK;
}

struct joint {
    struct val_case *cases;
    size_t n;
    const bool *train;
    struct llmroof_gpu *gpus;
    struct llmroof_engine *engines;
    int *gi, *ei; /* per case: index of its GPU / engine copy, -1 for none */
    int only_g, only_e; /* restrict the loss to the rows of one GPU / engine (-1: no restriction) */
    int ngpus;
};

/* Mean |log ratio| over the training rows; a parameter of GPU k or engine k moves only that
 * GPU's or engine's rows, so its scan sums those alone (same minimiser, a fraction of the work). */
static double joint_loss(void *v)
{
    struct joint *j = v;
    double sum = 0;
    long k = 0;
    for (size_t i = 0; i < j->n; i++) {
        struct val_case *c = &j->cases[i];
        /* serving rows are predicted, not fitted: a simulation per loss evaluation is too slow */
        if (!c->mapped || !j->train[i] || c->serving || (j->only_g >= 0 && j->gi[i] != j->only_g) ||
            (j->only_e >= 0 && j->ei[i] != j->only_e))
            continue;
        if (val_predict(c, &j->gpus[j->gi[i]], j->ei[i] >= 0 ? &j->engines[j->ei[i]] : NULL, NULL) != LLMROOF_OK)
            continue;
        sum += fabs(log(c->predicted / c->measured));
        k++;
    }
    return k ? sum / (double)k : 0;
}

struct shared_overlap {
    struct joint *j;
    double x;
};

static double overlap_loss(void *v)
{
    struct shared_overlap *s = v;
    for (int k = 0; k < s->j->ngpus; k++)
        s->j->gpus[k].overlap = s->x;
    return joint_loss(s->j);
}

int val_fit_all(struct val_case *cases, size_t n, const bool *train, struct llmroof_gpu *gpus, int ngpus,
                struct llmroof_engine *engines, int nengines, double *loss_before, double *loss_after,
                struct llmroof_err *err)
{
    int *gi = malloc(sizeof(int) * (n ? n : 1)), *ei = malloc(sizeof(int) * (n ? n : 1));
    int rc = LLMROOF_OK;
    if (!gi || !ei) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        gi[i] = ei[i] = -1;
        if (!cases[i].mapped)
            continue;
        for (int k = 0; k < ngpus; k++)
            if (strcmp(gpus[k].id, cases[i].gpu->id) == 0)
                gi[i] = k;
        for (int k = 0; k < nengines && cases[i].engine; k++)
            if (strcmp(engines[k].id, cases[i].engine->id) == 0)
                ei[i] = k;
        if (gi[i] < 0) {
            rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "GPU '%s' has no copy to fit", cases[i].gpu->id);
            goto out;
        }
    }
    struct joint j = { cases, n, train, gpus, engines, gi, ei, -1, -1, ngpus };
    *loss_before = joint_loss(&j);
    /* a GPU whose training rows all come from one engine cannot be told apart from that
     * engine: its hardware values stay as catalogued and the engine absorbs the difference */
    bool *fit_gpu = calloc((size_t)ngpus + 1, sizeof *fit_gpu);
    if (!fit_gpu) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto out;
    }
    for (int k = 0; k < ngpus; k++) {
        int first = -2;
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].mapped || !train[i] || gi[i] != k)
                continue;
            if (first == -2)
                first = ei[i];
            else if (ei[i] != first)
                fit_gpu[k] = true;
        }
    }
    /* the GPU's own step overhead stays at its catalog value: engines carry the rest */
    for (int round = 0; round < VAL_FIT_ROUNDS; round++) {
        for (int k = 0; k < ngpus; k++) {
            j.only_g = k;
            j.only_e = -1;
            for (int p = 1; p < 3 && fit_gpu[k]; p++) /* compute stays at its measured prior (MAMF);
                                                        the link latency is the engine's to explain */
                if (identifiable(gpu_param(&gpus[k], p), gpu_lo[p], gpu_hi[p], joint_loss, &j))
                    scan(gpu_param(&gpus[k], p), gpu_lo[p], gpu_hi[p], joint_loss, &j, joint_loss(&j));
        }
        for (int k = 0; k < nengines; k++) {
            j.only_g = -1;
            j.only_e = k;
            for (int p = 0; p < 4; p++)
                if (identifiable(eng_param(&engines[k], p), eng_lo[p], eng_hi[p], joint_loss, &j))
                    scan(eng_param(&engines[k], p), eng_lo[p], eng_hi[p], joint_loss, &j, joint_loss(&j));
        }
    }
    j.only_g = j.only_e = -1;
    if (ngpus > 0) {
        /* one overlap share for every GPU: how much of the shorter roofline term pipelining fails
         * to hide is a property of how kernels stream tiles, not of one card (docs/model.md) */
        struct shared_overlap so = { &j, gpus[0].overlap };
        for (int round = 0; round < 2; round++)
            if (identifiable(&so.x, 0.0, 0.5, overlap_loss, &so))
                scan(&so.x, 0.0, 0.5, overlap_loss, &so, overlap_loss(&so));
        for (int k = 0; k < ngpus; k++)
            gpus[k].overlap = so.x;
    }
    *loss_after = joint_loss(&j);
    free(fit_gpu);
out:
    free(gi);
    free(ei);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Cross-validation                                                         */
/* ------------------------------------------------------------------------ */

static void cv_key(const struct val_case *c, enum val_cv_by by, char *out, size_t cap)
{
    if (by == VAL_CV_GPU)
        snprintf(out, cap, "%s", c->gpu->id);
    else
        val_source_key(c->row, out, cap);
}

#define CV_MAX_PARAMS 512

int val_cross_validate(struct val_case *cases, size_t n, enum val_cv_by by, struct val_cv_report *out,
                       struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    int ng = 0, ne = 0, nk = 0, rc = LLMROOF_OK;
    struct llmroof_gpu *g0 = calloc(64, sizeof *g0), *gf = calloc(64, sizeof *gf);
    struct llmroof_engine *e0 = calloc(64, sizeof *e0), *ef = calloc(64, sizeof *ef);
    char (*keys)[VAL_TEXT] = calloc(n ? n : 1, sizeof *keys), (*ck)[VAL_TEXT] = calloc(n ? n : 1, sizeof *ck);
    bool *train = calloc(n ? n : 1, sizeof *train);
    int *hits = calloc(CV_MAX_PARAMS, sizeof *hits); /* folds in which parameter p ended at a bound */
    /* the fit re-predicts its training rows: held-out values are kept apart until the end */
    double *hp = calloc(n ? n : 1, sizeof *hp), *he = calloc(n ? n : 1, sizeof *he);
    bool *at_hi = calloc(CV_MAX_PARAMS, sizeof *at_hi);
    if (!g0 || !gf || !e0 || !ef || !keys || !ck || !train || !hits || !at_hi || !hp || !he) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        if (!cases[i].mapped)
            continue;
        cv_key(&cases[i], by, ck[i], sizeof ck[i]);
        bool have = false;
        for (int k = 0; k < nk && !have; k++)
            have = strcmp(keys[k], ck[i]) == 0;
        if (!have)
            snprintf(keys[nk++], sizeof keys[0], "%s", ck[i]);
        have = false;
        for (int k = 0; k < ng && !have; k++)
            have = strcmp(g0[k].id, cases[i].gpu->id) == 0;
        if (!have && ng < 64)
            g0[ng++] = *cases[i].gpu;
        have = !cases[i].engine;
        for (int k = 0; k < ne && !have; k++)
            have = strcmp(e0[k].id, cases[i].engine->id) == 0;
        if (!have && ne < 64)
            e0[ne++] = *cases[i].engine;
    }
    for (int f = 0; f < nk && rc == LLMROOF_OK; f++) {
        for (size_t i = 0; i < n; i++)
            train[i] = cases[i].mapped && strcmp(ck[i], keys[f]) != 0;
        memcpy(gf, g0, sizeof *gf * (size_t)(ng ? ng : 1));
        memcpy(ef, e0, sizeof *ef * (size_t)(ne ? ne : 1));
        double l0, l1;
        if ((rc = val_fit_all(cases, n, train, gf, ng, ef, ne, &l0, &l1, err)))
            break;
        for (size_t i = 0; i < n; i++) {
            if (!cases[i].mapped || train[i])
                continue;
            const struct llmroof_gpu *g = NULL;
            const struct llmroof_engine *e = NULL;
            for (int k = 0; k < ng; k++)
                if (strcmp(gf[k].id, cases[i].gpu->id) == 0)
                    g = &gf[k];
            for (int k = 0; k < ne && cases[i].engine; k++)
                if (strcmp(ef[k].id, cases[i].engine->id) == 0)
                    e = &ef[k];
            val_predict(&cases[i], g, e, NULL);
            hp[i] = cases[i].predicted;
            he[i] = cases[i].err;
        }
        /* parameters that moved and ended at a bound */
        for (int k = 0; k < ng; k++)
            for (int p = 0; p < 3; p++) {
                double v = *gpu_param(&gf[k], p), v0 = *gpu_param(&g0[k], p);
                int idx = k * 8 + p;
                if (v != v0 && (v <= gpu_lo[p] + 1e-12 || v >= gpu_hi[p] - 1e-12) && idx < CV_MAX_PARAMS) {
                    hits[idx]++;
                    at_hi[idx] = v >= gpu_hi[p] - 1e-12;
                }
            }
        for (int k = 0; k < ne; k++)
            for (int p = 0; p < 4; p++) {
                double v = *eng_param(&ef[k], p), v0 = *eng_param(&e0[k], p);
                int idx = 64 * 8 + k * 4 + p - 256; /* engines after the GPUs' 256 slots */
                if (v != v0 && (v <= eng_lo[p] + 1e-15 || v >= eng_hi[p] - 1e-15) && idx < CV_MAX_PARAMS) {
                    hits[idx]++;
                    at_hi[idx] = v >= eng_hi[p] - 1e-15;
                }
            }
    }
    out->folds = nk;
    for (size_t i = 0; i < n && rc == LLMROOF_OK; i++)
        if (cases[i].mapped) {
            cases[i].predicted = hp[i];
            cases[i].err = he[i];
        }
    for (int k = 0; k < ng; k++)
        for (int p = 0; p < 3; p++) {
            int idx = k * 8 + p;
            size_t len = strlen(out->bounds);
            if (idx < CV_MAX_PARAMS && hits[idx])
                snprintf(out->bounds + len, sizeof out->bounds - len, "%s%s %s at its %s bound %g in %d of %d folds",
                         len ? "; " : "", g0[k].id, gpu_param_names[p], at_hi[idx] ? "upper" : "lower",
                         at_hi[idx] ? gpu_hi[p] : gpu_lo[p], hits[idx], nk);
        }
    for (int k = 0; k < ne; k++)
        for (int p = 0; p < 4; p++) {
            int idx = 64 * 8 + k * 4 + p - 256;
            size_t len = strlen(out->bounds);
            if (idx < CV_MAX_PARAMS && hits[idx])
                snprintf(out->bounds + len, sizeof out->bounds - len, "%s%s %s at its %s bound %g in %d of %d folds",
                         len ? "; " : "", e0[k].id, eng_param_names[p], at_hi[idx] ? "upper" : "lower",
                         at_hi[idx] ? eng_hi[p] : eng_lo[p], hits[idx], nk);
        }
done:
    free(g0);
    free(gf);
    free(e0);
    free(ef);
    free(keys);
    free(ck);
    free(train);
    free(hits);
    free(at_hi);
    free(hp);
    free(he);
    return rc;
}
