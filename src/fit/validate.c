/* validate.c - see llmroof/validate.h */
#include "fit/validate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "model/ckpt.h"
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

void val_publication(const char *key, char *out, size_t cap)
{
    const bool gh = strncmp(key, "github.com/", 11) == 0;
    const char *s = gh ? key + 11 : key;
    const char *slash1 = strchr(s, '/');
    /* an owner without a dot (a domain has one: blog.vllm.ai/..., lmsys.org/...) and a repository */
    const bool repo = slash1 && slash1 > s && !memchr(s, '.', (size_t)(slash1 - s)) && slash1[1] != '\0';
    const char *slash2 = repo ? strchr(slash1 + 1, '/') : NULL;
    if (!repo || (!gh && slash2)) { /* a bare O/R alone names a repository; O/R/more does not */
        snprintf(out, cap, "%s", key);
        return;
    }
    if (slash2 && (strncmp(slash2 + 1, "issues/", 7) == 0 || strncmp(slash2 + 1, "pull/", 5) == 0 ||
                   strncmp(slash2 + 1, "discussions/", 12) == 0)) {
        snprintf(out, cap, "%s", s);
        return;
    }
    const size_t n = slash2 ? (size_t)(slash2 - s) : strlen(s);
    snprintf(out, cap, "%.*s", (int)(n < cap ? n : cap - 1), s);
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
            UNMAPPED("source '%s' is reserved for the independent check", map->reserved[i]);
    if (!parse_double(r->value, &c->measured) || !(c->measured > 0))
        UNMAPPED("value '%s' is not a positive number", r->value);
    const char *gid = NULL, *mid = NULL;
    /* "GPU @ framework" first: what one publication's logs show about its own runs (the
     * variant a name leaves unstated), then the GPU name alone */
    char gk[2 * VAL_TEXT + 4];
    snprintf(gk, sizeof gk, "%s @ %s", r->gpu, r->framework);
    for (int i = 0; i < map->ngpus && !gid; i++)
        if (strcmp(map->gpus[i].from, gk) == 0) {
            gid = map->gpus[i].to;
            note(c, "gpu taken as %s from the map's key for this framework", gid);
        }
    for (int i = 0; i < map->ngpus && !gid; i++)
        if (strcmp(map->gpus[i].from, r->gpu) == 0)
            gid = map->gpus[i].to;
    /* rows written with catalog ids (bench/gpu/measure.py --gpu) need no mapping; any other name
     * goes through the map, which states the variant a publication's name leaves open (the
     * lenient lookup would take "H100 80GB" for whichever entry answers it), and the map's
     * targets are ids */
    if (!gid && catalog_find_gpu_exact(cat, r->gpu))
        gid = r->gpu;
    if (!gid)
        UNMAPPED("GPU '%s' is neither a catalog id nor a name in the map (--map)", r->gpu);
    if (!(c->gpu = catalog_find_gpu_exact(cat, gid)))
        UNMAPPED("GPU '%s' maps to '%s', which the catalog lacks", r->gpu, gid);
    for (int i = 0; i < map->nmodels; i++)
        if (strcmp(map->models[i].from, r->model) == 0)
            mid = map->models[i].to;
    if (!mid && catalog_find_model_exact(cat, r->model))
        mid = r->model;
    if (!mid)
        UNMAPPED("model '%s' is neither a catalog id nor a name in the map (--map)", r->model);
    if (!(c->model = catalog_find_model_exact(cat, mid)))
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
        /* lengths stated with a spread ("~20k input / ~2k output tokens (+-15%)"): a closed loop
         * of one length moves in step, a chaos its measured run did not have (a 7 ms shift of every
         * arrival had moved such a row's median TTFT by a third) */
        const char *pm = strstr(r->notes, "+-");
        c->spread = 0.0;
        if (pm && isdigit((unsigned char)pm[2])) {
            char *end = NULL;
            const double v = strtod(pm + 2, &end);
            if (end && *end == '%' && v > 0 && v < 100)
                c->spread = v / 100.0;
        }
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
    if (ng < tp)
        UNMAPPED("TP %ld over %ld GPU%s: tensor parallelism needs at least as many GPUs", (long)tp, (long)ng,
                 ng == 1 ? "" : "s");
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
    c->dt = (struct llmroof_dtypes){ wd->dtype, kd->dtype, act, wd->bits, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
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
            /* the stated batch text is left out: QServe's ('? (max batch fitting memory; not
             * stated)') would push the unmapped table past 100 columns */
            UNMAPPED("the batch is the most that fits, and %s does not fit on %d x %s", c->model->id, c->tp,
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
    int rc0;
    sim_default_config(&sc);
    sc.setup = *s;
    sim_config_engine(&sc, en, s->gpu, false, false); /* the engine's scheduler, budget and limit */
    struct workload w = { WORKLOAD_FIXED, c->prompt, c->output, NULL, 0, NULL };
    if (c->spread > 0) {
        /* vLLM's benchmark draws [L (1 - r), L (1 + r)]: random:P':O':R' with P' = L (1 + r) and
         * R' = (1 - r) / (1 + r) (docs/metrics.md, `random`) */
        char spec[96];
        snprintf(spec, sizeof spec, "random:%ld:%ld:%.6f", (long)floor((double)c->prompt * (1 + c->spread)),
                 (long)floor((double)c->output * (1 + c->spread)), (1 - c->spread) / (1 + c->spread));
        if ((rc0 = workload_parse(spec, &w, err)))
            return rc0;
    }
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
    workload_free(&w);
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
    const struct llmroof_engine *eng = en ? en : c->engine;
    struct llmroof_setup s = { c->model, g ? g : c->gpu, c->tp, ckpt_engine_dtypes(c->dt, eng),
                               roofline_effs_engine(g ? g : c->gpu, eng, NULL), { 0 } };
    /* the engine's CUDA-graph limit on this GPU at this TP (SGLang's memory tiers), as estimate
     * and simulate set it up */
    if (eng && eng->cuda_graphs)
        s.eff.graph_max = roofline_graph_max(eng, s.gpu, c->tp);
    if (c->serving)
        return predict_serving(c, &s, eng, err);
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

