/* cmd_simulate.c - `llmroof simulate`: continuous batching with chunked prefill under load. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "model/ckpt.h"
#include "model/estimate.h"
#include "model/ops.h"
#include "base/parse.h"
#include "render/render_json.h"
#include "render/render_sim.h"

/* the engines that serve disaggregated pools (engine "disaggregation"), for the refusal's list */
static bool engine_disaggregates(const struct llmroof_engine *e)
{
    return e->disaggregation && !e->static_batching; /* HF generate() runs no pools (refused apart) */
}

enum { OPT_MBT = 1, OPT_MAXSEQS, OPT_NOCHUNK, OPT_CONC, OPT_REQS, OPT_THINK, OPT_RATE, OPT_TRACE, OPT_WORKLOAD,
       OPT_SEED, OPT_REQOUT, OPT_TRACEOUT, OPT_SW_MBT, OPT_SW_RATE, OPT_SW_CONC, OPT_SVG, OPT_RANGE, OPT_SCENARIO,
       OPT_TTFT, OPT_TPOT, OPT_PCT, OPT_PCACHE, OPT_PREFIX, OPT_INST, OPT_ROUTER,
       OPT_PPOOL, OPT_DPOOL, OPT_KVLINK, OPT_WARMUP, OPT_BAND, OPT_ADMIT, OPT_MAXLEN, OPT_MAXPAD, OPT_NOAPI, OPT_STATIC, OPT_SPAN,
       OPT_SCHEDSTEPS, OPT_KVBLOCKS, OPT_NOPCACHE, OPT_MAXCONC, OPT_RECV, OPT_RAMP };
enum { OPT_QUIET = 200 }; /* apart: other options append to the list above */

struct ctx {
    struct cli_setup_opts s;
    struct sim_config cfg;
    bool have_conc, have_reqs, have_think, have_rate, range, have_inst, have_pct, have_ramp,
        have_router, have_mbt, have_maxseqs, have_admit, have_maxpad, static_batching, have_nochunk;
    bool have_pcache, no_pcache;        /* --prefix-cache, --no-prefix-cache (over the profile's default) */
    long max_paddings;                  /* --max-paddings, with have_maxpad */
    long user_max_seqs;                 /* --max-seqs as given (cfg.max_seqs is the engine's after it) */
    long sched_steps;                   /* --scheduler-steps: vLLM's multi-step scheduling, 0 = off */
    double band;                        /* --capacity-band: the share the service rate moves, 0 = none */
    const char *trace, *workload, *req_out, *trace_out, *svg;
    const char *scenario, *ppool, *dpool, *kvlink;
    struct cli_spec_opts sp;            /* --spec and its family (cli_spec.h) */
    const char *sweep_name, *sweep_list;
    int nsweeps;
    bool quiet; /* --quiet: no progress line */
};

/* Options that contradict static batching (HF generate(): sim_config_static), from
 * --static-batching or the engine profile: each is an error naming both. */
static int static_conflicts(struct cli *c, const struct ctx *x)
{
    char src[sizeof x->s.eff.engine->id + 64];
    if (x->static_batching)
        snprintf(src, sizeof src, "--static-batching");
    else
        snprintf(src, sizeof src, "engine '%s' (static batching, as HF generate())", x->s.eff.engine->id);
    if (x->ppool)
        return cli_usage_error(c, "option '--prefill-pool': %s serves whole requests in one instance; a disaggregated "
                                  "deployment needs an engine that batches continuously", src);
    if (x->have_admit && !x->cfg.admit_no_evict)
        return cli_usage_error(c, "option '--admission': %s cannot evict a request from a running batch; its "
                                  "admission is no-evict", src);
    if (x->have_maxpad)
        return cli_usage_error(c, "option '--max-paddings': %s pads every prompt of a batch to the longest, "
                                  "without a cap", src);
    if (x->sched_steps > 1)
        return cli_usage_error(c, "option '--scheduler-steps': %s schedules once per batch", src);
    if (x->have_pcache)
        return cli_usage_error(c, "option '--prefix-cache': %s keeps no cache across requests", src);
    if (x->sp.method && x->cfg.max_seqs > 1)
        return cli_usage_error(c, "option '--spec': %s runs speculative (assisted) generation one request at a "
                                  "time; --max-seqs is %ld (give --max-seqs 1)", src, x->cfg.max_seqs);
    return 0;
}

/* Options named after one engine's flag, refused with a profile whose engine never had it (its
 * "max_paddings_option", "multi_step_scheduling", "recv_interval_option"; docs/catalog.md):
 * vLLM 0.2.1-0.3's --max-paddings and vLLM 0.6-0.10's V0 --num-scheduler-steps had been run with
 * vLLM V1, SGLang or TensorRT-LLM profiles, whose engines have neither, and SGLang's
 * --scheduler-recv-interval with vLLM's. Without -e each runs. Each is an error naming the option,
 * the engine and the loaded profiles that take it. */
static bool takes_flag(const struct llmroof_engine *en, int which)
{
    return which == 0 ? en->max_paddings_option : which == 1 ? en->multi_step_scheduling : en->recv_interval_option;
}

static int engine_flag_conflicts(struct cli *c, const struct ctx *x)
{
    static const struct {
        const char *option, *engine_flag, *field, *versions;
    } flag[] = {
        { "max-paddings", "--max-paddings", "max_paddings_option", "vLLM 0.2.1-0.3 only" },
        { "scheduler-steps", "--num-scheduler-steps", "multi_step_scheduling", "vLLM 0.6-0.10's V0 engine only" },
        { "recv-interval", "--scheduler-recv-interval", "recv_interval_option", "SGLang only" },
    };
    const struct llmroof_engine *en = x->s.eff.engine;
    const bool given[3] = { x->have_maxpad, x->sched_steps > 0, x->cfg.recv_interval > 0 };
    for (int w = 0; w < 3; w++) {
        if (!given[w] || takes_flag(en, w))
            continue;
        char ok[256] = "";
        for (size_t i = 0; i < c->cat.n_engines; i++)
            if (takes_flag(&c->cat.engines[i], w)) {
                const size_t n = strlen(ok);
                snprintf(ok + n, sizeof ok - n, "%s%s", n ? ", " : "", c->cat.engines[i].id);
            }
        return cli_usage_error(c, "option '--%s': engine '%s' has no %s (its profile's \"%s\": %s); %s%s%sor drop -e",
                               flag[w].option, en->id, flag[w].engine_flag, flag[w].field, flag[w].versions,
                               ok[0] ? "pick one that has (" : "", ok, ok[0] ? ") " : "");
    }
    return 0;
}

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    long v;
    int rc = cli_spec_opt(c, &x->sp, id, arg);
    if (rc != 1)
        return rc;
    switch (id) {
    case OPT_QUIET: x->quiet = true; return 0;
    case OPT_MBT:
        rc = cli_long(c, "max-batched-tokens", arg, 1, 10000000, &v);
        x->cfg.max_batched_tokens = v;
        x->have_mbt = true;
        return rc;
    case OPT_MAXSEQS:
        rc = cli_long(c, "max-seqs", arg, 1, 1000000, &v);
        x->cfg.max_seqs = v;
        x->user_max_seqs = v; /* the engine's ceiling (max_batch) is checked against it once resolved */
        x->have_maxseqs = true;
        return rc;
    case OPT_MAXPAD: /* vLLM 0.2.1-0.3's --max-paddings: padded prompt iterations */
        rc = cli_long(c, "max-paddings", arg, 0, 1000000, &v);
        x->max_paddings = v;
        x->have_maxpad = true;
        return rc;
    case OPT_KVBLOCKS: /* vLLM's --num-gpu-blocks-override: the KV pool a run states (its log's "# GPU blocks") */
        return cli_long(c, "kv-blocks", arg, 1, SIM_KV_BLOCKS_MAX, &x->cfg.kv_blocks);
    case OPT_SCHEDSTEPS: /* vLLM 0.6's --num-scheduler-steps: one scheduling pass per N decode iterations */
        return cli_long(c, "scheduler-steps", arg, 1, 1024, &x->sched_steps);
    case OPT_RECV: /* SGLang's --scheduler-recv-interval: new requests taken once per N decode iterations */
        rc = cli_long(c, "recv-interval", arg, 1, 1024, &v);
        x->cfg.recv_interval = (int)v;
        return rc;
    case OPT_MAXCONC: /* TGI's --max-concurrent-requests: refuse (429) beyond it */
        rc = cli_long(c, "max-concurrent-requests", arg, 1, 10000000, &v);
        x->cfg.max_concurrent = v;
        x->cfg.user_max_concurrent = true;
        return rc;
    case OPT_MAXLEN: /* vLLM's --max-model-len: refuse a longer prompt, stop output at it */
        rc = cli_long(c, "max-model-len", arg, 1, 100000000, &v);
        x->cfg.max_model_len = v;
        return rc;
    case OPT_RAMP:
        x->have_ramp = true;
        return cli_duration(c, "ramp-up", arg, SIM_RAMP_MAX_S, false, &x->cfg.ramp_s);
    case OPT_WARMUP:
        rc = cli_long(c, "warmup", arg, 0, 100000000, &v);
        x->cfg.warmup_requests = v;
        return rc;
    case OPT_BAND: {
        double pct = 0;
        if ((rc = cli_double(c, "capacity-band", arg, 0, 50, true, &pct)))
            return rc;
        /* below 1% the discrete iterations move the percentiles more than the band does (a 0.1%
         * slower server printed a lower p50 TTFT, review17b item 7), and 0.1 is what a reader
         * used to --mem-util 0.90 types for 10% */
        if (pct < 1)
            return cli_usage_error(c, "option '--capacity-band': '%s' is below 1: PCT is a percentage in [1, 50] (10 for "
                                      "10%%), and a band under 1%% is within the run's scheduling noise", CLI_CLIP(arg));
        x->band = pct / 100.0;
        return 0;
    }
    case OPT_ADMIT:
        x->have_admit = true;
        x->cfg.admit_no_evict = strcmp(arg, "no-evict") == 0;
        x->cfg.admit_reserve = strcmp(arg, "reserve") == 0;
        x->cfg.admit_wait = strcmp(arg, "wait") == 0;
        if (!x->cfg.admit_no_evict && !x->cfg.admit_reserve && !x->cfg.admit_wait && strcmp(arg, "optimistic") != 0)
            return cli_usage_error(c, "option '--admission': '%s' is not optimistic, no-evict, reserve or wait", CLI_CLIP(arg));
        return 0;
    case OPT_STATIC: /* request-level batching (HuggingFace generate()): applied after the profile */
        x->static_batching = true;
        return 0;
    case OPT_NOAPI: /* requests through the engine's own API (vLLM's LLM class): no server streaming */
        x->cfg.no_api_server = true;
        return 0;
    case OPT_NOCHUNK: /* vLLM's scheduler without chunking: whole prompts, prompt-only iterations */
        x->have_nochunk = true;
        x->cfg.chunked_prefill = false;
        x->cfg.prefill_first = true;
        return 0;
    case OPT_CONC:
        x->have_conc = true;
        rc = cli_long(c, "concurrency", arg, 1, 1000000, &v);
        x->cfg.concurrency = v;
        return rc;
    case OPT_REQS:
        x->have_reqs = true;
        rc = cli_long(c, "requests", arg, 1, 10000000, &v);
        x->cfg.requests = v;
        return rc;
    case OPT_THINK:
        x->have_think = true;
        return cli_think(c, arg, &x->cfg.think_min_s, &x->cfg.think_max_s);
    case OPT_SPAN: /* DistServe's client: the Poisson gaps scaled to span requests / rate */
        x->cfg.span_fixed = true;
        return 0;
    case OPT_RATE:
        x->have_rate = true;
        /* vLLM's and SGLang's clients take --request-rate inf for every request at once: here
         * that is --scenario offline (a review met only the range) */
        if (strcasecmp(arg + (arg[0] == '+'), "inf") == 0 || strcasecmp(arg + (arg[0] == '+'), "infinity") == 0)
            return cli_usage_error(c, "option '--rate': 'inf' is a benchmark client's every request at once: use "
                                      "--scenario offline (with --requests N), or --concurrency N --think 0 for "
                                      "--max-concurrency N");
        return cli_double(c, "rate", arg, SIM_MIN_RATE_QPS, SIM_MAX_RATE_QPS, false, &x->cfg.rate_qps);
    case OPT_TRACE: x->trace = arg; return cli_check_input(c, "trace", arg);
    case OPT_WORKLOAD:
        x->workload = arg; /* csv:- reads standard input (cli_workload): claimed now */
        return strncmp(arg, "csv:", 4) ? 0 : cli_check_stdin(c, "option '--workload'", arg + 4);
    case OPT_SEED: {
        int64_t sd;
        /* at most 2^53: JSON output carries the seed as a number, exact up to there (a larger
         * seed printed as 9.00719925474099e+15 would not reproduce its run) */
        if (!parse_int64(arg, 0, CLI_SEED_MAX, &sd))
            return cli_usage_error(c, "option '--seed': '%s' is not a whole number from 0 to 2^53 - 1 (%lld)", CLI_CLIP(arg),
                                   (long long)CLI_SEED_MAX);
        x->cfg.seed = (uint64_t)sd;
        return 0;
    }
    case OPT_REQOUT: x->req_out = arg; return 0;
    case OPT_TRACEOUT: x->trace_out = arg; return 0;
    case OPT_SW_MBT: x->sweep_name = "max_batched_tokens"; x->sweep_list = arg; x->nsweeps++; return 0;
    case OPT_SW_RATE: x->sweep_name = "rate"; x->sweep_list = arg; x->nsweeps++; return 0;
    case OPT_SW_CONC: x->sweep_name = "concurrency"; x->sweep_list = arg; x->nsweeps++; return 0;
    case OPT_SVG: x->svg = arg; return 0;
    case OPT_RANGE: x->range = true; return 0;
    case OPT_SCENARIO:
        if (strcmp(arg, "offline") != 0 && strcmp(arg, "server") != 0)
            return cli_usage_error(c, "option '--scenario': '%s' is not offline or server", CLI_CLIP(arg));
        x->scenario = arg;
        return 0;
    case OPT_TTFT: return cli_duration(c, "ttft-slo", arg, 3600, true, &x->cfg.ttft_slo_s);
    case OPT_TPOT: return cli_duration(c, "tpot-slo", arg, 60, true, &x->cfg.tpot_slo_s);
    case OPT_PCT: {
        const char *p = (arg[0] == 'p' || arg[0] == 'P') ? arg + 1 : arg;
        int64_t pv;
        if (!parse_int64(p, 1, 99, &pv) || (pv != 50 && pv != 90 && pv != 95 && pv != 99))
            return cli_usage_error(c, "option '--slo-percentile': '%s' is not one of p50, p90, p95, p99", CLI_CLIP(arg));
        x->cfg.slo_percentile = (int)pv;
        x->have_pct = true;
        return 0;
    }
    case OPT_PCACHE: /* preempted requests' blocks too (sim_config.preempt_keep; the profile may narrow it) */
        x->cfg.prefix_cache = true;
        x->cfg.preempt_keep = SIM_KEEP_ALL;
        x->have_pcache = true;
        return 0;
    case OPT_NOPCACHE: x->no_pcache = true; return 0;
    case OPT_PREFIX: {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", arg);
        char *colon = strchr(buf, ':');
        int64_t t, g = 1;
        if (colon)
            *colon = '\0';
        if (!parse_int64(buf, 1, 1000000, &t) || (colon && !parse_int64(colon + 1, 1, 100000, &g)))
            return cli_usage_error(c, "option '--shared-prefix': '%s' is not TOKENS[:GROUPS] (tokens in [1, 1000000], "
                                      "groups in [1, 100000], e.g. 512:8)", arg);
        x->cfg.prefix_tokens = (long)t;
        x->cfg.prefix_groups = (long)g;
        return 0;
    }
    case OPT_INST:
        x->have_inst = true;
        rc = cli_long(c, "instances", arg, 1, 4096, &v);
        x->cfg.instances = (int)v;
        return rc;
    case OPT_ROUTER:
        x->have_router = true;
        if (strcmp(arg, "round-robin") == 0)
            x->cfg.router = SIM_ROUTE_ROUND_ROBIN;
        else if (strcmp(arg, "least-loaded") == 0)
            x->cfg.router = SIM_ROUTE_LEAST_LOADED;
        else if (strcmp(arg, "prefix-affinity") == 0)
            x->cfg.router = SIM_ROUTE_PREFIX;
        else
            return cli_usage_error(c, "option '--router': '%s' is not round-robin, least-loaded or prefix-affinity", CLI_CLIP(arg));
        return 0;
    case OPT_PPOOL: x->ppool = arg; return 0;
    case OPT_DPOOL: x->dpool = arg; return 0;
    case OPT_KVLINK: x->kvlink = arg; return 0;
    case OPT_BLOCK: x->cfg.user_block = true; break;
    case OPT_MEMUTIL: x->cfg.user_mem_util = true; break;
    case OPT_RESERVE: x->cfg.user_reserve = true; break;
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

#define MAX_POINTS 64
struct list_ctx {
    double v[MAX_POINTS]; /* the points read so far */
    int n;                /* how many */
    bool integer;         /* whole numbers only (token budgets, users) */
    char repeat[128];     /* a value listed a second time ("" while none) */
    char bad[128];        /* an item that is not a point ("" while none) */
};

static bool add_point(const char *item, void *vctx)
{
    struct list_ctx *l = vctx;
    double d;
    if (l->n == MAX_POINTS)
        return false;
    /* the message (below) names the item and states the bound: '1e9' read as "not positive" */
    if (!parse_double(item, &d) || !(d > 0) || d > 1e7 || (l->integer && d != (long)d)) {
        snprintf(l->bad, sizeof l->bad, "%s", item);
        return false;
    }
    /* one rule for every list option (cmd_sweep.c, plan's and report's --gpus and --tp): a repeated
     * value is an error, not a second run printed as a duplicate row ("--sweep-rate 1,1") */
    for (int i = 0; i < l->n; i++)
        if (l->v[i] == d) {
            snprintf(l->repeat, sizeof l->repeat, "%s", item);
            return false;
        }
    l->v[l->n++] = d;
    return true;
}

static int write_if(struct cli *c, const char *path, void (*fn)(const struct sim_result *, struct sbuf *),
                    const struct sim_result *r)
{
    if (!path)
        return 0;
    struct sbuf b;
    sbuf_init(&b);
    fn(r, &b);
    int rc = sbuf_failed(&b) ? 1 : cli_write_file(c, path, &b);
    sbuf_free(&b);
    return rc;
}

/* A pool's own layout, "ep8+dpa+pp2" (each part at most once): expert-parallel ranks, data-parallel
 * attention, pipeline stages, MoE TP ranks ("moetp8+dpa"). Returns false on anything else. */
static bool parse_pool_layout(char *s, struct llmroof_layout *lay)
{
    bool ep = false, pp = false, dpa = false, mtp = false;
    for (char *tok = s, *next; tok; tok = next) {
        next = strchr(tok, '+');
        if (next)
            *next++ = '\0';
        int64_t v;
        if (!strncmp(tok, "ep", 2) && !ep && parse_int64(tok + 2, 1, 1024, &v)) {
            lay->ep = (int)v;
            ep = true;
        } else if (!strncmp(tok, "pp", 2) && !pp && parse_int64(tok + 2, 1, 1024, &v)) {
            lay->pp = (int)v;
            pp = true;
        } else if (!strcmp(tok, "dpa") && !dpa) {
            lay->dp_attn = dpa = true;
        } else if (!strncmp(tok, "moetp", 5) && !mtp && parse_int64(tok + 5, 1, 1024, &v)) {
            lay->moe_tp = (int)v;
            mtp = true;
        } else {
            return false;
        }
    }
    return true;
}

/* --prefill-pool / --decode-pool N[:GPU[:TP[:LAYOUT]]]: N instances of the model on TP x GPU (the
 * command's -g and -t where left out), in the command's --ep/--pp/--dp-attention or the pool's own
 * LAYOUT (ep8+dpa, pp2: plan's disaggregated rows pair pools of different layouts, "P TP-4 /
 * D TP-4+EP-4", which one --ep for both pools could not state). */
static int parse_pool(struct cli *c, const char *opt, const char *arg, const struct ctx *x, struct sim_pool *p)
{
    char buf[160];
    snprintf(buf, sizeof buf, "%s", arg);
    char *gpu = strchr(buf, ':'), *tp = NULL, *lay_s = NULL;
    if (gpu) {
        *gpu++ = '\0';
        tp = strchr(gpu, ':');
        if (tp) {
            *tp++ = '\0';
            lay_s = strchr(tp, ':');
            if (lay_s)
                *lay_s++ = '\0';
        }
    }
    int64_t n, t = x->cfg.setup.tp;
    char lay_txt[sizeof buf]; /* LAYOUT as given (parse_pool_layout cuts its copy at each '+') */
    snprintf(lay_txt, sizeof lay_txt, "%s", lay_s ? lay_s : "");
    struct llmroof_layout own = { 0 };
    own.ep_imbalance = x->cfg.setup.layout.ep_imbalance;
    own.two_batch_overlap = x->cfg.setup.layout.two_batch_overlap;
    if (!parse_int64(buf, 1, 4096, &n) || (tp && !parse_int64(tp, 1, 64, &t)) || (gpu && !*gpu) ||
        (lay_s && !parse_pool_layout(lay_s, &own)))
        return cli_usage_error(c, "option '--%s': '%s' is not N[:GPU[:TP[:LAYOUT]]] with N in [1, 4096] instances and "
                                  "LAYOUT of epN, ppN, moetpN and dpa joined by '+' (e.g. 2:h100:4, 1:h200:1:ep8+dpa)",
                               opt, arg);
    if (lay_s && own.dp_attn && x->s.eff.engine && !x->s.eff.engine->dp_attention)
        return cli_usage_error(c, "option '--%s': engine '%s' runs no data-parallel attention (its profile's "
                                  "\"dp_attention\"): drop dpa", opt, x->s.eff.engine->id);
    if (lay_s && own.ep > 1 && x->s.eff.engine && !x->s.eff.engine->expert_parallel)
        return cli_usage_error(c, "option '--%s': engine '%s' runs no expert parallelism (its profile's "
                                  "\"expert_parallel\"): drop ep%d", opt, x->s.eff.engine->id, own.ep);
    /* errors name the option: "unknown GPU" or "TP 3 does not divide" alone leave the reader to
     * guess which of -g, --prefill-pool and --decode-pool said it */
    const struct llmroof_gpu *g = gpu ? catalog_find_gpu(&c->cat, gpu) : x->cfg.setup.gpu;
    if (!g) {
        const char *sug[3];
        const size_t ns = catalog_suggest_gpus(&c->cat, gpu, sug, 3);
        return cli_usage_error(c, "option '--%s': unknown GPU '%s' (see 'llmroof list gpus')%s%s%s%s%s%s%s", opt,
                               CLI_CLIP(gpu), ns ? "; did you mean " : "", ns ? sug[0] : "", ns > 1 ? ", " : "",
                               ns > 1 ? sug[1] : "", ns > 2 ? ", " : "", ns > 2 ? sug[2] : "", ns ? "?" : "");
    }
    p->instances = (int)n;
    p->setup = x->cfg.setup;
    p->setup.gpu = g;
    p->setup.tp = (int)t;
    if (lay_s)
        p->setup.layout = own;
    p->setup.eff = roofline_effs(g, &x->s.eff);
    {
        struct llmroof_err err = { 0 };
        struct llmroof_shard sh;
        const struct llmroof_layout lay = estimate_layout(&p->setup);
        if (ops_shard_layout(p->setup.model, &lay, &sh, &err) != LLMROOF_OK)
            return cli_usage_error(c, "option '--%s': %s%s", opt, err.msg,
                                   lay_s ? " (the pool's epN, ppN, moetpN and dpa stand for those flags)" : "");
        /* dpa at TP equal to the pool's EP is one replica, as --dp-attention's note says for -t
         * (plan's "DPA-8+EP-8" is 1:GPU:1:ep8+dpa; 1:GPU:8:ep8+dpa holds a TP-8 replica whose MLA
         * cache every rank repeats: a fifth of the KV pool; a reviewer read the two as one) */
        if (lay_s && own.dp_attn && sh.attn_dp == 1)
            fprintf(c->errf, "llmroof: note: option '--%s': dpa at TP %ld over %d GPUs makes one attention replica, i.e. "
                             "tensor-parallel attention; for %d replicas of TP 1 (plan's DPA-%d) give %lld:%s:1:%s\n",
                    opt, (long)t, sh.gpus_per_stage, sh.gpus_per_stage, sh.gpus_per_stage, (long long)n, g->id, lay_txt);
    }
    /* the engine as it sets itself up on the pool's GPU: its graph limit at the pool's TP and,
     * unless --max-batched-tokens was given, its budget there (SGLang's defaults by GPU memory) */
    sim_pool_engine(&x->cfg, p, x->s.eff.engine, x->have_mbt);
    cli_note_arch(c, g, x->s.eff.engine);
    return 0;
}

/* --kv-link of the pools (absent: SIM_KV_AUTO, the in-node link where both pools fit one node, the
 * prefill GPU's network beyond), into the run's rate per GPU pair
 * (sim_kv_link_Bps): nvlink and node need both pools' GPUs to be one GPU kind, and every instance of
 * both pools in one NVLink domain (the catalog's domain_gpus, else the node) for the hand-over to
 * stay on it: a TP-8 pair on 8-GPU HGX nodes, or 1 + 3 TP-4 instances on two nodes, hand over across
 * the network, an H100 to an L4 over no NVLink */
static int kv_link_pools(struct cli *c, struct ctx *x)
{
    const struct llmroof_setup *ps = &x->cfg.prefill.setup;
    const struct llmroof_gpu *gp = ps->gpu, *gd = x->cfg.decode.setup.gpu;
    enum sim_kv_link_kind kind = SIM_KV_AUTO;
    double rate = 0;
    /* the prefill GPU's link; a decode GPU of another kind is refused below, whatever its link
     * (a list of two had borrowed plan's "leave it out of the GPUs planned", a review found) */
    int rc = x->kvlink ? cli_kv_link(c, x->kvlink, (const struct llmroof_gpu *[]){ gp }, 1, false, &kind, &rate) : 0;
    if (rc)
        return rc;
    const long total = (long)x->cfg.prefill.instances * sim_setup_gpus(ps) +
                       (long)x->cfg.decode.instances * sim_setup_gpus(&x->cfg.decode.setup);
    if (kind == SIM_KV_NODE && gp != gd)
        return cli_usage_error(c, "option '--kv-link': %s joins GPUs of one kind in one node or domain; the "
                                  "prefill pool runs on %s and the decode pool on %s: use net, ib, pcie or a GB/s figure",
                               x->kvlink, gp->id, gd->id);
    if (kind == SIM_KV_AUTO && gp != gd)
        kind = SIM_KV_NET; /* pools of two GPU kinds: no shared in-node link assumed */
    x->cfg.kv_link_Bps = sim_kv_link_Bps(kind, rate, ps, total);
    /* the slower end's: an H100 prefill pool handing over to A100s (HDR, 25 GB/s at 0.78) takes
     * the A100's 19.5 GB/s, not its own NDR's 40.5 (a review of session 65) */
    if (gp != gd)
        x->cfg.kv_link_Bps = fmin(x->cfg.kv_link_Bps, sim_kv_link_Bps(kind, rate, &x->cfg.decode.setup, total));
    if (kind == SIM_KV_NODE && !sim_kv_link_in_domain(kind, ps, total)) {
        /* as plan costs it (plan_kv_link_Bps): the hand-over crosses the network, said here (it
         * had been refused, so a plan's own rerun line with --kv-link nvlink failed: a review) */
        const int dom = gp->domain_gpus > 0 ? gp->domain_gpus : gp->gpus_per_node;
        fprintf(c->errf, "llmroof: note: option '--kv-link': the two pools take %ld GPUs, more than the %d of one %s "
                         "of %s, and the router sends a prompt to any decode instance: hand-overs cross the network "
                         "at %.3g GB/s per GPU pair\n",
                total, dom, gp->link == LLMROOF_LINK_NVLINK && gp->domain_gpus > 0 ? "NVLink domain" : "node", gp->id,
                x->cfg.kv_link_Bps / 1e9);
    }
    return 0;
}

/* A run that served nothing has no latencies: say so, beside the n/a (null) it prints. */
static void warn_rejected(struct cli *c, const struct sim_result *r, const char *what, const struct sim_config *cfg)
{
    const long max_model_len = cfg->max_model_len;
    if (r->requests > 0 && r->completed == 0) {
        /* a request must fit one pool (a cluster's or both pools' sum holds no request whole):
         * the smallest instance's, a pipeline lane's share of it, one data-parallel attention
         * replica's share of that (render_sim.c requests_at_mean_len counts the same pools) */
        double cap = r->kv_capacity_tokens;
        bool lanes = false, reps = false;
        for (int i = 0; i < r->ninst; i++) {
            const int dp = sim_setup_attn_replicas(sim_pool_setup(cfg, r->inst[i].pool));
            const int n = r->inst[i].lanes > 1 ? r->inst[i].lanes : 1;
            const double own = (double)r->inst[i].kv_blocks_total * (double)r->block_size / (double)n / (double)dp;
            lanes = lanes || n > 1;
            reps = reps || dp > 1;
            if (own < cap)
                cap = own;
        }
        fprintf(c->errf, "llmroof: warning: %severy request was rejected (%ld of %ld: prompt + output exceed the KV cache "
                        "of %s%s%.0f tokens",
                what, r->errors, r->requests,
                lanes ? "one pipeline lane" : r->ninst > 1 ? "the smallest instance" : "",
                reps ? (lanes || r->ninst > 1 ? "'s one attention replica, " : "one attention replica, ")
                     : (lanes || r->ninst > 1 ? ", " : ""),
                cap);
        if (max_model_len > 0)
            fprintf(c->errf, ", or the prompt exceeds --max-model-len %ld", max_model_len);
        if (cfg->prompt_within_budget && !cfg->chunked_prefill)
            fprintf(c->errf, ", or the prompt exceeds the %ld-token budget, which the engine without chunked prefill "
                             "refuses", cfg->max_batched_tokens);
        fprintf(c->errf, "); TTFT, TPOT, ITL and e2e are n/a\n");
    } else if (r->errors > r->refused_busy && cfg->prompt_within_budget && !cfg->chunked_prefill) {
        /* some served: the engine refuses a prompt above its budget, a rule the user may not expect */
        const long n = r->errors - r->refused_busy;
        fprintf(c->errf,
                "llmroof: warning: %s%ld of %ld requests (%.1f%%) were rejected: without chunked prefill the engine "
                "refuses a prompt above its %ld-token budget (TensorRT-LLM's max_num_tokens), as it refuses one whose "
                "KV cannot fit; a larger --max-batched-tokens holds them; the latencies are the served requests'\n",
                what, n, r->requests, 100.0 * (double)n / (double)r->requests, cfg->max_batched_tokens);
    } else if (r->errors > r->refused_busy) {
        /* some served, some refused for their length (a review: 248 of 250 refused by --max-model-len
         * 10 said nothing, the run exiting 0 with "the server keeps up") */
        const long n = r->errors - r->refused_busy;
        fprintf(c->errf, "llmroof: warning: %s%ld of %ld requests (%.1f%%) were rejected: prompt + output exceed the KV "
                         "cache",
                what, n, r->requests, 100.0 * (double)n / (double)r->requests);
        if (max_model_len > 0)
            fprintf(c->errf, ", or the prompt exceeds --max-model-len %ld", max_model_len);
        fprintf(c->errf, "; the latencies and throughputs are the served requests'\n");
    }
}

/* Preempted requests recomputed more tokens than the served requests hold in all (prompt and
 * output): re-admitted requests were preempted again before they finished, over and over
 * (recompute preemption admits a waiting request once its next chunk fits, then the pool fills as
 * the batch grows and the newest, often that one, goes back). Against the prompts alone, ordinary
 * preemption of long outputs had read as a storm (a review: 85 preemptions of 200 requests of
 * 100 + 1,000 tokens, "2.8x"). A review: gpt-oss-120b with 90,000-token prompts on one H100
 * recomputed 88 times its prompts and took 3,353 s where no-evict admission took 386 s. The
 * requests the pool holds at the mean length are the header's (the decode pool's where
 * disaggregated), so --max-seqs can be named. */
static void warn_preemption_storm(struct cli *c, const struct sim_config *cfg, const struct sim_result *r,
                                  const char *what)
{
    double served = 0;
    for (long i = 0; i < r->requests; i++)
        if (!r->reqs[i].rejected)
            served += (double)(r->reqs[i].prompt + r->reqs[i].output);
    if (!(served > 0) || (double)r->recomputed_tokens <= served)
        return;
    const double held = render_sim_requests_at_mean_len(cfg, r, cfg->disaggregated ? 1 : -1);
    const long per = cfg->disaggregated ? 0 : (long)floor(held / (double)(r->ninst > 0 ? r->ninst : 1));
    char limit[64] = "a lower --max-seqs";
    if (per >= 1)
        snprintf(limit, sizeof limit, "--max-seqs %ld (what an instance's KV holds)", per);
    fprintf(c->errf, "llmroof: warning: %spreemption storm: %ld preemptions recomputed %ld tokens, %.1fx the %.0f "
                     "tokens the served requests hold: re-admitted requests were preempted again before they "
                     "finished (the KV %sholds about %.0f requests of the mean length); --admission no-evict, %s "
                     "or more KV memory avoids it\n",
            what, r->preemptions, r->recomputed_tokens, (double)r->recomputed_tokens / served, served,
            cfg->disaggregated ? "of the decode pool " : "", held, limit);
}

static void warn_overload(struct cli *c, const struct sim_result *r, const char *what, const struct sim_config *cfg)
{
    warn_rejected(c, r, what, cfg);
    warn_preemption_storm(c, cfg, r, what);
    if (r->refused_busy > 0) {
        /* a concurrency limit bounds the queue: the run refuses what it cannot hold, so its
         * latencies stay bounded and its completions, not its queue, show the overload */
        fprintf(c->errf, "llmroof: warning: %s%ld of %ld requests (%.1f%%) were refused at the limit of %ld in flight per "
                        "instance (--max-concurrent-requests: HTTP 429, 'Model is overloaded'); %.3f requests/s completed, "
                        "and the latencies are the admitted requests'%s\n",
                what, r->refused_busy, r->requests, 100.0 * (double)r->refused_busy / (double)(r->requests > 0 ? r->requests : 1),
                cfg->max_concurrent, r->request_per_s,
                cfg->mode == SIM_OFFLINE ||
                        (cfg->mode == SIM_CLOSED && cfg->concurrency > cfg->max_concurrent * (cfg->instances > 0 ? cfg->instances : 1))
                    ? "; a larger --max-concurrent-requests holds them (TGI's flag)" : "");
        return;
    }
    /* a disaggregated run names the pool whose bound it is (a review: every instance of both pools
     * read 0.99 busy, a decode instance at a batch of 4.6 as busy as the saturated prefill one) */
    char pool[160] = "";
    if (r->pool_capacity_qps[0] > 0 && r->pool_capacity_qps[1] > 0) {
        const int k = r->pool_capacity_qps[0] <= r->pool_capacity_qps[1] ? 0 : 1;
        const char *name[2] = { "prefill", "decode" };
        snprintf(pool, sizeof pool, " (the %s pool's%s; the %s pool's is %.3f)", name[k],
                 r->pool_link_bound[k] ? ", its KV links' transfers" : "", name[1 - k], r->pool_capacity_qps[1 - k]);
    }
    if (r->overloaded && r->overloaded_by_bound)
        fprintf(c->errf, "llmroof: warning: %soverloaded: %.3f requests/s offered, above the steady-state service bound "
                        "of %.3f%s: its queue grows without limit, and its latencies with the run's length\n",
                what, r->steady_rate_qps, r->capacity_qps, pool);
    else if (r->overloaded && r->may_be_filling)
        /* the rates are the window's (sim_stats.c overload_metrics): a window shorter than a few
         * request lives completes little even where the server keeps up, so the whole run's rate
         * stands beside them and the run that would settle it is named */
        fprintf(c->errf, "llmroof: warning: %soverloaded, or still filling its batch: over the second half of the arrivals "
                        "(%.1f s) %.3f requests/s arrived and %.3f completed (%.3f over the whole run); the system grew by "
                        "%.2f requests/s, but no queue of requests waiting for admission grew, and the window spans %.1f mean "
                        "request lives, fewer than the 3 that tell a filling server from an overloaded one: about %ld "
                        "%s or more settle it\n",
                what, r->window_s, r->offered_rate_qps, r->sustained_rate_qps, r->request_per_s, r->queue_growth_per_s,
                floor(r->window_lives * 10.0) / 10.0, r->requests_to_settle,
                cfg->mode == SIM_TRACE ? "requests in the trace" : "--requests");
    else if (r->overloaded) {
        char bound[280] = "";
        if (r->capacity_qps > 0 && r->offered_rate_qps > r->capacity_qps)
            snprintf(bound, sizeof bound, ", and the %.3f requests/s offered exceed the steady-state service bound of %.3f%s",
                     r->offered_rate_qps, r->capacity_qps, pool);
        fprintf(c->errf, "llmroof: warning: %soverloaded: over the second half of the arrivals (%.1f s) %.3f requests/s "
                        "arrived and %.3f completed (%.3f over the whole run); the queue grows by %.2f requests/s, so the "
                        "latency percentiles grow with the run's length%s\n",
                what, r->window_s, r->offered_rate_qps, r->sustained_rate_qps, r->request_per_s, r->queue_growth_per_s,
                bound);
    } else if (r->open_loop && r->window_lives > 0 && r->window_lives < 3) {
        /* kept up, but over a window too short for the steady state: a server fills its batch for
         * about one request life, so its steps and latencies are still growing (docs/planning.md:
         * 50 requests/s of 4000-token outputs on 25 H100s read p90 TPOT 10.7 ms over 30 s of
         * arrivals and 23 ms in a long run) */
        fprintf(c->errf, "llmroof: note: %sthe second half of the arrivals (%.1f s) spans %.1f mean request lives, fewer "
                        "than 3: the latencies include the batch still filling; about %.0f %s or more give the "
                        "steady state\n",
                what, r->window_s, floor(r->window_lives * 10.0) / 10.0, /* 2.97 reads 2.9, not 3.0 */
                /* the window grows with the run at a steady rate: the run times 3 / lives (the
                 * window's own drawn rate had advised a 4-request trace to take 4; a review) */
                ceil((double)r->requests * 3.0 / r->window_lives),
                cfg->mode == SIM_TRACE ? "requests in the trace" : "--requests");
    }
}

/* --capacity-band X: the same run with every iteration's time divided by 1 + X (a service rate X
 * higher) and by 1 - X (X lower). Near capacity latency is a cliff in the service rate: a server
 * a few percent slower than modelled queues without bound at a rate it seemed to serve, so the
 * range says how far the figures can be trusted (docs/metrics.md "Capacity band"). */
static int capacity_band(struct cli *c, const struct ctx *x, const struct sim_result *base, const char *wname,
                         struct llmroof_err *err)
{
    struct sim_result hi, lo;
    struct sim_config cfg = x->cfg;
    cfg.record_iterations = false;
    cfg.step_scale = 1.0 / (1.0 + x->band);
    int rc = sim_run(&cfg, &hi, err);
    if (rc)
        return cli_fail(c, err);
    cfg.step_scale = 1.0 / (1.0 - x->band);
    if ((rc = sim_run(&cfg, &lo, err))) {
        sim_result_free(&hi);
        return cli_fail(c, err);
    }
    if (c->format == TABLE_JSON) {
        char *j = render_json_sim_band(&x->cfg, base, wname, x->band, &lo, &hi);
        if (j)
            sbuf_append(&c->out, j);
        free(j);
        sim_result_free(&hi);
        sim_result_free(&lo);
        return j ? 0 : 1;
    }
    const double pct = 100.0 * x->band;
    /* a table of its own: with --format csv it is the table `capacity-band` (--table), not text
     * after the first table's CSV */
    if (!table_sel_wants(&c->sel, c->format, "capacity-band")) {
        sim_result_free(&hi);
        sim_result_free(&lo);
        return 0;
    }
    if (c->format != TABLE_CSV)
        sbuf_printf(&c->out, "\ncapacity band: the service rate %.4g%% lower and higher (iteration times x %.4f and x %.4f)\n\n",
                    pct, 1.0 / (1.0 - x->band), 1.0 / (1.0 + x->band));
    struct table t;
    table_init(&t, "");
    table_col(&t, "metric", 0);
    table_col(&t, "service -band", 3);
    table_col(&t, "simulated", 3);
    table_col(&t, "service +band", 3);
    /* a statistic no request gave (every output one token: no TPOT; every request rejected) is
     * n/a, as in the run's own table and null in the JSON, not 0 ms */
    const struct { const char *name; const struct sim_stats *a, *b, *c; int p; } rows[] = {
        { "ttft_p50_ms", &lo.ttft, &base->ttft, &hi.ttft, 50 },
        { "ttft_p90_ms", &lo.ttft, &base->ttft, &hi.ttft, 90 },
        { "ttft_p99_ms", &lo.ttft, &base->ttft, &hi.ttft, 99 },
        { "tpot_p50_ms", &lo.tpot, &base->tpot, &hi.tpot, 50 },
        { "tpot_p90_ms", &lo.tpot, &base->tpot, &hi.tpot, 90 },
        { "itl_p99_ms", &lo.itl, &base->itl, &hi.itl, 99 },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        table_row(&t);
        table_str(&t, rows[i].name);
        const struct sim_stats *v[3] = { rows[i].a, rows[i].b, rows[i].c };
        for (int k = 0; k < 3; k++) {
            if (v[k]->n > 0)
                table_num(&t, 1e3 * sim_stats_at(v[k], rows[i].p));
            else
                table_str(&t, "n/a");
        }
    }
    table_row(&t);
    table_str(&t, "output_tok_s");
    table_num(&t, lo.output_tok_s);
    table_num(&t, base->output_tok_s);
    table_num(&t, hi.output_tok_s);
    table_render_fit(&t, c->format, 100, 1, &c->out);
    table_free(&t);
    if (c->format != TABLE_CSV && (lo.overloaded != base->overloaded || hi.overloaded != base->overloaded))
        sbuf_printf(&c->out, "overloaded: %s at -band, %s as simulated, %s at +band: the load sits on the capacity cliff\n",
                    lo.overloaded ? "yes" : "no", base->overloaded ? "yes" : "no", hi.overloaded ? "yes" : "no");
    sim_result_free(&hi);
    sim_result_free(&lo);
    return 0;
}

static int simulate_main(struct cli *c, int argc, char **argv, struct ctx *x, struct sim_point *res)
{
    static const struct cli_opt opts[] = {
        CLI_OPT_MODEL, CLI_OPT_GPU, CLI_OPT_TP, CLI_OPT_LAYOUT, CLI_OPT_DTYPES, CLI_OPT_EFFS, CLI_OPT_MEM,
        { OPT_MBT, "max-batched-tokens", 0, "N", "token budget of one iteration (default: the engine's, else 2048; with static batching it sizes only the activation workspace)", false },
        { OPT_MAXSEQS, "max-seqs", 0, "N", "running sequences at most (default: the engine's, else 256)", false },
        { OPT_MAXPAD, "max-paddings", 0, "N", "pad a prompt iteration's prompts to the longest, at most N padding tokens (vLLM 0.2.1-0.3: 256; 0 packed; default: the engine's)", false },
        { OPT_MAXCONC, "max-concurrent-requests", 0, "N", "requests an instance holds at once, queued and running; one more is refused, HTTP 429 (TGI's flag; default the engine's: tgi and tgi-0.8 128, else none)", false },
        { OPT_MAXLEN, "max-model-len", 0, "N", "context limit as vLLM's --max-model-len: a longer prompt is rejected, output stops at it (default none)", false },
        { OPT_ADMIT, "admission", 0, "POLICY", "optimistic (preempt, vLLM), no-evict (reserve prompt + output, TensorRT-LLM), reserve (SGLang's new-token ratio) or wait (wait for KV, a stalled step recomputes all: DeepSpeed-MII 0.1); default: the engine's, else optimistic", false },
        { OPT_QUIET, "quiet", 'q', NULL, "no progress line (shown only on a terminal, after a second)", false },
        { OPT_WARMUP, "warmup", 0, "N", "latency statistics skip the first N requests (while a closed loop's users start, or a queue fills)", false },
        { OPT_BAND, "capacity-band", 0, "PCT", "rerun with the service rate PCT% (1-50) higher and lower; report the TTFT/TPOT/ITL range", false },
        { OPT_NOCHUNK, "no-chunked-prefill", 0, NULL, "prefill each prompt whole in one iteration", false },
        { OPT_STATIC, "static-batching", 0, NULL, "no continuous batching: a batch of up to --max-seqs requests, prompts padded to the longest, starts when the last one has finished (HF generate(); engine hf-transformers)", false },
        { OPT_KVBLOCKS, "kv-blocks", 0, "N", "KV blocks of each engine's pool as a run states them (vLLM's log, --num-gpu-blocks-override), instead of sizing them from memory (the weights must still fit); per attention replica with --dp-attention, each pipeline lane its share; not with --prefill-pool", false },
        { OPT_SCHEDSTEPS, "scheduler-steps", 0, "N", "multi-step scheduling (vLLM 0.6 --num-scheduler-steps): admit and schedule once per N decode iterations, scheduling CPU / N (default 1)", false },
        { OPT_RECV, "recv-interval", 0, "N", "SGLang's --scheduler-recv-interval: new requests are taken once per N decode iterations, at once after a prompt iteration or when idle (default 1)", false },
        { OPT_NOAPI, "no-api-server", 0, NULL, "requests through the engine's own API (vLLM's LLM class, benchmark_throughput; TensorRT-LLM's trtllm-bench, which sizes the server), not its HTTP server: no API-server CPU", false },
        { OPT_CONC, "concurrency", 'c', "N", "closed loop: N users (default 20), each pausing --think between requests; a benchmark client's max-concurrency N is -c N --think 0", false },
        { OPT_REQS, "requests", 'n', "R", "requests in the pool (default 250)", false },
        { OPT_THINK, "think", 0, "LO-HI", "closed loop: uniform pause between a user's requests (default 1s-3s, chat users; 0 for a benchmark client's max-concurrency, which sends the next at once)", false },
        { OPT_RAMP, "ramp-up", 0, "T", "closed loop: user u of N joins u/N x T later, so the users join evenly over T, not in step (default 0)", false },
        { OPT_RATE, "rate", 'r', "QPS", "open loop: Poisson arrivals per second", false },
        { OPT_SPAN, "fixed-span", 0, NULL, "open loop: the Poisson gaps scaled so that the first request arrives at 0 and the last at requests / rate (DistServe's benchmark client)", false },
        { OPT_TRACE, "trace", 0, "FILE", "open loop: CSV of arrival_s,prompt_len,output_len", false },
        { OPT_WORKLOAD, "workload", 'w', "SPEC", "fixed:P:O, random:P:O[:R], chat, docqa, code, openorca, sharegpt[:P:O], lognormal:PM:P90:OM:O90[:MAX] or csv:FILE (default chat)", false },
        { OPT_SEED, "seed", 0, "N", "random seed, 0 to 2^53 - 1 (default 42)", false },
        { OPT_REQOUT, "requests-out", 0, "FILE", "write each request's timestamps as CSV", false },
        { OPT_TRACEOUT, "trace-out", 0, "FILE", "write a Chrome trace of the iterations (JSON)", false },
        { OPT_SW_MBT, "sweep-batched-tokens", 0, "LIST", "one run per token budget (throughput-latency curve)", false },
        { OPT_SW_RATE, "sweep-rate", 0, "LIST", "one run per arrival rate (open loop)", false },
        { OPT_SW_CONC, "sweep-concurrency", 0, "LIST", "one run per number of users (closed loop)", false },
        { OPT_SVG, "svg", 0, "FILE", "with a sweep: draw latency (with the SLO limits) and throughput against the swept setting", false },
        { OPT_RANGE, "range", 0, NULL, "add low/high rows from the validation residuals (docs/validation.md)", false },
        { OPT_SCENARIO, "scenario", 0, "NAME", "offline (every request queued at t=0) or server (Poisson, needs --rate), as MLPerf", false },
        { OPT_TTFT, "ttft-slo", 0, "T", "TTFT limit per request for goodput, e.g. 2s (a unit is required)", false },
        { OPT_TPOT, "tpot-slo", 0, "T", "TPOT limit per request for goodput, e.g. 200ms", false },
        { OPT_PCT, "slo-percentile", 0, "pNN", "percentile the SLOs are checked at: p50, p90, p95, p99 (default p99)", false },
        { OPT_PCACHE, "prefix-cache", 0, NULL, "reuse cached KV blocks of shared prefixes (automatic prefix caching)", false },
        { OPT_NOPCACHE, "no-prefix-cache", 0, NULL, "recompute shared prefixes and preempted requests whole though the engine caches by default (vLLM V1, SGLang)", false },
        { OPT_PREFIX, "shared-prefix", 0, "N[:G]", "every prompt starts with one of G shared N-token prefixes (default G 1)", false },
        CLI_OPT_SPEC,
        { OPT_INST, "instances", 0, "N", "N identical instances behind a router (default 1)", false },
        { OPT_ROUTER, "router", 0, "NAME", "round-robin (default), least-loaded or prefix-affinity", false },
        { OPT_PPOOL, "prefill-pool", 0, "N[:GPU[:TP[:LAYOUT]]]", "disaggregated: N prefill instances (default GPU and TP: -g, -t; LAYOUT its own epN+dpa+ppN or moetpN+dpa, default --ep/--pp/--dp-attention/--moe-tp)", false },
        { OPT_DPOOL, "decode-pool", 0, "N[:GPU[:TP[:LAYOUT]]]", "disaggregated: N decode instances (as --prefill-pool)", false },
        { OPT_KVLINK, "kv-link", 0, "LINK", "prefill-to-decode KV link: nvlink or node (the GPU's own in-node link: NVLink, xGMI, PCIe) where both pools fit one node, net (its network), ib, pcie, or GB/s as reached (default: node where they fit, else net)", false },
    };
    cli_setup_defaults(&x->s);
    sim_default_config(&x->cfg);
    cli_spec_defaults(&x->sp);
    x->s.mem = x->cfg.mem;
    char *pos[1];
    int npos = 0;
    static const char *const tables[] = { "latency", "quantities", "instances", "capacity-band", NULL };
    c->tables = tables;
    c->usage = "llmroof simulate -m MODEL -g GPU [-t TP] [--concurrency N --requests R [--think LO-HI] | --rate QPS "
               "| --scenario offline | --trace FILE] [--workload SPEC] [--ttft-slo T --tpot-slo T] [options]";
    static const char *const outputs[] = { "requests-out", "trace-out", "svg", NULL }; /* checked before the work */
    c->outputs = outputs;
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, x, pos, 0, &npos,
                       "Simulates a continuous-batching server (vLLM-like: chunked prefill within a token budget,\n"
                       "paged KV blocks, FCFS admission, preemption by recomputation) and reports TTFT, TPOT, ITL\n"
                       "(every gap between streamed tokens, pooled) and e2e percentiles, throughput, batch size and\n"
                       "KV use. Every iteration is costed with the same operators and roofline as 'estimate'. With\n"
                       "SLOs: goodput (requests/s within them). An open loop that the server cannot keep up with is\n"
                       "reported as overloaded. Also: prefix caching, speculative decoding, a routed cluster,\n"
                       "disaggregated prefill/decode, static batches (HF generate()). Metrics: docs/metrics.md.");
    if (rc)
        return rc;
    if (!x->s.model || !x->s.gpu)
        return cli_usage_error(c, "options '--model' and '--gpu' are required");
    if (x->have_rate && x->have_conc)
        return cli_usage_error(c, "options '--rate' and '--concurrency' conflict: choose an open or a closed loop");
    if (x->trace && (x->have_rate || x->have_conc || x->workload || x->have_reqs || x->have_think))
        return cli_usage_error(c, "option '--trace' brings its own arrivals and lengths: drop --rate, --concurrency, "
                                  "--requests, --think and --workload");
    if (x->have_think && x->have_rate)
        return cli_usage_error(c, "option '--think' applies to the closed loop only (not with --rate)");
    if (x->nsweeps > 1)
        return cli_usage_error(c, "choose one of --sweep-batched-tokens, --sweep-rate, --sweep-concurrency");
    if (x->svg && !x->nsweeps)
        return cli_usage_error(c, "option '--svg' draws a sweep's curve: add --sweep-batched-tokens, --sweep-rate or "
                                  "--sweep-concurrency");
    if (x->nsweeps && (x->req_out || x->trace_out)) /* name the one given (both when both are) */
        return cli_usage_error(c, "option%s %s%s%s describe%s one run, not a sweep", x->req_out && x->trace_out ? "s" : "",
                               x->req_out ? "'--requests-out'" : "", x->req_out && x->trace_out ? " and " : "",
                               x->trace_out ? "'--trace-out'" : "", x->req_out && x->trace_out ? "" : "s");
    if (x->sweep_name && strcmp(x->sweep_name, "rate") == 0 && (x->have_conc || x->trace))
        return cli_usage_error(c, "option '--sweep-rate' is an open-loop sweep: drop --concurrency/--trace");
    /* the sweep sets each run's rate: a --rate beside it was dropped silently (a review) */
    if (x->sweep_name && strcmp(x->sweep_name, "rate") == 0 && x->have_rate)
        return cli_usage_error(c, "option '--sweep-rate' sets each run's rate: drop --rate");
    if (x->sweep_name && strcmp(x->sweep_name, "concurrency") == 0 && (x->have_rate || x->trace))
        return cli_usage_error(c, "option '--sweep-concurrency' is a closed-loop sweep: drop --rate/--trace");
    if (x->scenario && strcmp(x->scenario, "offline") == 0 &&
        (x->have_rate || x->have_conc || x->have_think || x->trace || x->nsweeps))
        return cli_usage_error(c, "option '--scenario offline' queues every request at t=0: drop --rate, --concurrency, "
                                  "--think, --trace and the sweeps");
    if (x->scenario && strcmp(x->scenario, "server") == 0 && !x->have_rate &&
        !(x->sweep_name && strcmp(x->sweep_name, "rate") == 0))
        return cli_usage_error(c, "option '--scenario server' is MLPerf's Poisson arrivals: add --rate QPS");
    /* where the run has arrivals of its own, "add --rate" would only lead to the next conflict */
    const bool offline = x->scenario && strcmp(x->scenario, "offline") == 0;
    const bool closed = x->have_conc || x->have_think || (x->sweep_name && strcmp(x->sweep_name, "concurrency") == 0);
    if (x->have_ramp && (!closed || x->trace || offline))
        return cli_usage_error(c, "option '--ramp-up' spreads a closed loop's first requests: add --concurrency N, "
                                  "--think or --sweep-concurrency (not with --rate, --trace or --scenario offline)");
    if (x->cfg.span_fixed && (x->trace || offline || closed))
        return cli_usage_error(c, "option '--fixed-span' scales a Poisson run's arrivals (--rate or --sweep-rate), not "
                               "those of %s", x->trace ? "--trace" : offline ? "--scenario offline" : "a closed loop");
    if (x->cfg.span_fixed && !x->have_rate && !(x->sweep_name && strcmp(x->sweep_name, "rate") == 0))
        return cli_usage_error(c, "option '--fixed-span' scales a Poisson run's arrivals: add --rate QPS or --sweep-rate");
    if (x->cfg.span_fixed && x->cfg.requests < 2) /* as sim.c refuses it: no gap to scale */
        return cli_usage_error(c, "option '--fixed-span' scales the gaps between arrivals: it needs --requests 2 or more");
    if ((rc = cli_spec_check(c, &x->sp)))
        return rc;
    if (x->have_pcache && x->no_pcache)
        return cli_usage_error(c, "options '--prefix-cache' and '--no-prefix-cache' conflict: give one");
    if (x->cfg.prefix_cache && x->trace)
        return cli_usage_error(c, "option '--prefix-cache' works on a generated workload's shared prefix, not on --trace");
    if (x->cfg.prefix_tokens > 0 && x->trace)
        return cli_usage_error(c, "option '--shared-prefix' adds prefixes to a generated workload, not to --trace");
    if ((x->ppool != NULL) != (x->dpool != NULL))
        return cli_usage_error(c, "options '--prefill-pool' and '--decode-pool' go together (disaggregated serving)");
    if (x->cfg.kv_blocks > 0 && x->ppool)
        return cli_usage_error(c, "option '--kv-blocks' states one engine's KV blocks; the pools of --prefill-pool and "
                                  "--decode-pool size their own from memory");
    if (x->have_pct && !(x->cfg.ttft_slo_s > 0) && !(x->cfg.tpot_slo_s > 0))
        return cli_usage_error(c, "option '--slo-percentile' sets the percentile the SLOs are checked at: add "
                                  "--ttft-slo or --tpot-slo");
    if (x->kvlink && !x->ppool)
        return cli_usage_error(c, "option '--kv-link' is the link between the pools: add --prefill-pool and --decode-pool");
    if (x->ppool && x->have_inst)
        return cli_usage_error(c, "option '--instances' is an aggregated cluster; with pools give N in --prefill-pool "
                                  "and --decode-pool");
    if (x->have_router && !x->ppool && !x->have_inst)
        return cli_usage_error(c, "option '--router' spreads requests over instances: add --instances N or the pools");
    const char *sweep = x->sweep_name ? x->sweep_name : ""; /* set together with sweep_list */
    struct list_ctx pts = { { 0 }, 0, x->sweep_name && strcmp(sweep, "rate") != 0, "", "" };
    const char *sweep_opt = strcmp(sweep, "max_batched_tokens") == 0 ? "batched-tokens" : sweep;
    /* the count appears only where the list is too long: a server that takes fewer points states
     * its own limit before this runs, and a bad item is named without a limit it did not break */
    if (x->sweep_list && !parse_list(x->sweep_list, add_point, &pts)) {
        if (pts.repeat[0])
            return cli_usage_error(c, "option '--sweep-%s': '%s' repeats a value already listed (each value once)",
                                   sweep_opt, CLI_CLIP(pts.repeat));
        if (pts.bad[0])
            return cli_usage_error(c, "option '--sweep-%s': '%s' is not a positive %s of at most 1e7", sweep_opt,
                                   CLI_CLIP(pts.bad), pts.integer ? "whole number" : "number");
        if (pts.n == MAX_POINTS)
            return cli_usage_error(c, "option '--sweep-%s': more than %d points (at most %d)", sweep_opt,
                                   MAX_POINTS, MAX_POINTS);
        return cli_usage_error(c, "option '--sweep-%s': '%s' is not a comma-separated list of positive %s",
                               sweep_opt, CLI_CLIP(x->sweep_list), pts.integer ? "whole numbers" : "numbers");
    }
    for (int i = 0; i < pts.n && strcmp(sweep, "rate") == 0; i++) {
        if (pts.v[i] < SIM_MIN_RATE_QPS)
            return cli_usage_error(c, "option '--sweep-rate': %g is below the slowest rate, %g requests/s", pts.v[i],
                                   SIM_MIN_RATE_QPS);
        else if (pts.v[i] > SIM_MAX_RATE_QPS)
            return cli_usage_error(c, "option '--sweep-rate': %g is above the fastest rate, %g requests/s (as --rate)",
                                   pts.v[i], SIM_MAX_RATE_QPS);
    }

    if ((rc = cli_catalog(c)) || (rc = cli_setup_resolve(c, &x->s)) ||
        (x->have_maxseqs && (rc = cli_engine_batch_check(c, x->s.eff.engine, "max-seqs", x->user_max_seqs))))
        return rc;
    const struct llmroof_model *m = cli_model(c, x->s.model);
    const struct llmroof_gpu *g = m ? cli_gpu(c, x->s.gpu) : NULL;
    if (!m || !g)
        return 2;
    /* vLLM refuses a max_model_len above the model's own context (its config check, unless
     * VLLM_ALLOW_LONG_MAX_MODEL_LEN): a longer limit would only grow a vLLM 0.2-0.5 token budget */
    if (x->cfg.max_model_len > 0 && m->max_context > 0 && x->cfg.max_model_len > m->max_context)
        return cli_usage_error(c, "option '--max-model-len': %ld exceeds %s's context of %ld tokens (max_context)",
                               x->cfg.max_model_len, m->id, m->max_context);

    /* workload and trace */
    struct llmroof_err err = { 0 };
    struct workload wl = { 0 };
    struct trace_req *trace = NULL;
    const char *wname = x->workload ? x->workload : "chat";
    if (x->trace) {
        char *text;
        size_t len;
        if ((rc = cli_read_input(c, "option '--trace'", x->trace, (size_t)1 << 30, &text, &len, &err)))
            return cli_fail(c, &err);
        rc = workload_parse_trace(text, len, cli_input_name(x->trace), 10000000, &trace, &x->cfg.ntrace, &err);
        free(text);
        if (rc)
            return cli_fail(c, &err);
        x->cfg.mode = SIM_TRACE;
        x->cfg.trace = trace;
        wname = cli_input_name(x->trace);
    } else if ((rc = cli_workload(c, wname, m, &wl))) {
        return rc;
    }
    /* stated lengths past the model's context are served as stated, which no engine does at its
     * defaults (vLLM's max_model_len is the model's): say so, and how to refuse them */
    if (!x->trace && x->cfg.max_model_len <= 0 && m->max_context > 0 &&
        (wl.kind == WORKLOAD_FIXED || wl.kind == WORKLOAD_RANDOM) && wl.prompt + wl.output > m->max_context)
        fprintf(c->errf, "llmroof: warning: workload '%s' holds requests of up to %ld tokens, past %s's context of "
                         "%ld: simulated as stated (--max-model-len %ld refuses longer prompts and stops outputs "
                         "there, as vLLM does by default)\n",
                wname, wl.prompt + wl.output, m->id, m->max_context, m->max_context);
    if (x->trace && x->cfg.max_model_len <= 0 && m->max_context > 0) {
        long longest = 0, nlong = 0;
        for (size_t i = 0; i < x->cfg.ntrace; i++) {
            const long t = trace[i].prompt + trace[i].output;
            if (t > m->max_context)
                nlong++;
            if (t > longest)
                longest = t;
        }
        if (nlong > 0)
            fprintf(c->errf, "llmroof: warning: trace '%s' holds %ld request%s of up to %ld tokens, past %s's context of "
                             "%ld: simulated as stated (--max-model-len %ld refuses longer prompts and stops outputs "
                             "there, as vLLM does by default)\n",
                    wname, nlong, nlong == 1 ? "" : "s", longest, m->id, m->max_context, m->max_context);
    }
    if (!x->trace)
        x->cfg.mode = x->have_rate || (x->sweep_name && strcmp(x->sweep_name, "rate") == 0) ? SIM_RATE : SIM_CLOSED;
    if (x->scenario && strcmp(x->scenario, "offline") == 0)
        x->cfg.mode = SIM_OFFLINE;
    /* a closed loop of more users than requests: each user sends at most one, all at once, so the
     * run times one burst from an idle server, not the loop's steady state (a planner's review:
     * `simulate -c 1170` at the default 250 requests read a p90 TTFT of 40 ms where the plan's
     * 9,360-request run with 2,340 warm-up requests reads 2,992) */
    if (x->cfg.mode == SIM_CLOSED && !x->sweep_name && x->cfg.requests < x->cfg.concurrency)
        fprintf(c->errf, "llmroof: warning: --requests %ld is fewer than the %ld users of --concurrency: each user "
                         "sends at most one request, so the run times one burst from an idle server, not the "
                         "loop's steady state (give --requests several times the users, and --warmup)\n",
                x->cfg.requests, x->cfg.concurrency);
    /* the same for each point of a concurrency sweep (a review: the sweep said nothing) */
    if (x->sweep_name && strcmp(x->sweep_name, "concurrency") == 0) {
        char over[160] = "";
        int nover = 0;
        for (int i = 0; i < pts.n; i++)
            if (pts.v[i] > (double)x->cfg.requests) {
                const size_t n = strlen(over);
                if (n + 24 < sizeof over)
                    snprintf(over + n, sizeof over - n, "%s%.0f", nover ? ", " : "", pts.v[i]);
                nover++;
            }
        if (nover > 0)
            fprintf(c->errf, "llmroof: warning: --requests %ld is fewer than the users of --sweep-concurrency at %s: "
                             "each user sends at most one request, so those points time one burst from an idle "
                             "server, not the loop's steady state (give --requests several times the users, and "
                             "--warmup)\n",
                    x->cfg.requests, over);
    }
    if (x->cfg.prefix_tokens > 0 && !workload_prefix_on_top(&wl) && x->cfg.prefix_tokens >= workload_min_prompt(&wl)) {
        long mp = workload_min_prompt(&wl);
        workload_free(&wl);
        return cli_usage_error(c, "option '--shared-prefix': %ld tokens is not shorter than the shortest prompt of "
                                  "workload '%s' (%ld tokens)", x->cfg.prefix_tokens, wname, mp);
    }
    if (x->cfg.mode == SIM_RATE && !x->have_think) {
        x->cfg.think_min_s = x->cfg.think_max_s = 0;
    }
    x->cfg.workload = &wl;
    x->cfg.setup = (struct llmroof_setup){ m, g, (int)x->s.tp, cli_model_dtypes(c, m, g, &x->s),
                                           roofline_effs(g, &x->s.eff),
                                           cli_layout(&x->s) };
    cli_note_arch(c, g, x->s.eff.engine);
    x->cfg.mem = x->s.mem;
    {
        /* the engine profile's scheduler (docs/metrics.md "Engine scheduling"); options given win */
        const bool no_evict = x->cfg.admit_no_evict, reserve = x->cfg.admit_reserve, wait = x->cfg.admit_wait;
        sim_config_engine(&x->cfg, x->s.eff.engine, g, x->have_mbt, x->have_maxseqs);
        struct cli_setup_opts seen = x->s; /* what the engine's pool rule makes of --reserve/--workspace */
        seen.mem.util_static = x->cfg.mem.util_static;
        cli_note_static_mem(c, &seen);
        if (x->static_batching)
            sim_config_static(&x->cfg);
        if (x->have_admit) {
            x->cfg.admit_no_evict = no_evict;
            x->cfg.admit_reserve = reserve;
            x->cfg.admit_wait = wait;
        }
        if (x->have_maxpad)
            x->cfg.max_paddings = x->max_paddings;
        if (x->no_pcache || x->cfg.static_batching) { /* static batching keeps no cache across requests */
            x->cfg.prefix_cache = x->have_pcache && !x->no_pcache;
            x->cfg.preempt_keep = SIM_KEEP_NONE; /* preempted requests recompute whole */
        }
        /* why the cache is on or off, for the header and JSON (sim_config_engine set the engine's
         * reason); --static-batching with --prefix-cache is refused below (static_conflicts) */
        if (x->cfg.static_batching) /* the reason the cache is off, --no-prefix-cache or not */
            x->cfg.pcache_source = SIM_PCACHE_STATIC;
        else if (x->have_pcache || x->no_pcache)
            x->cfg.pcache_source = SIM_PCACHE_OPTION;
        /* --no-api-server through an engine whose own benchmark sizes the server (trtllm-bench):
         * its batch limit and budget, said on stderr with the figures they come from */
        struct bench_size bs;
        const enum sim_sizing sz =
            sim_config_offline_sizing(&x->cfg, x->s.eff.engine, x->have_mbt, x->have_maxseqs, x->have_nochunk, &bs);
        const int ppl = x->cfg.setup.layout.pp > 1 ? x->cfg.setup.layout.pp : 1;
        if (sz == SIM_SIZING_APPLIED && bs.tuned)
            fprintf(c->errf, "llmroof: note: trtllm-bench sizes max_batch_size %ld%s and max_num_tokens %ld%s: its "
                             "heuristic's %.0f requests of the mean length in the K/V (tuning.py)%s\n",
                    x->have_maxseqs ? x->cfg.max_seqs : bs.max_batch, ppl > 1 && !x->have_maxseqs ? " a pipeline lane" : "",
                    x->have_mbt ? x->cfg.max_batched_tokens : bs.max_tokens, x->have_maxseqs || x->have_mbt ? " (the option given wins)" : "",
                    bs.kv_requests, x->have_nochunk ? "" : "; chunked context on");
        else if (sz == SIM_SIZING_APPLIED)
            fprintf(c->errf, "llmroof: note: trtllm-bench does not tune these weights (%s): BuildConfig's max_batch_size "
                             "%ld and max_num_tokens %ld%s\n",
                    x->cfg.setup.dt.weight_bits > 0 ? "--weight-bits" : x->cfg.setup.model->ckpt_format[0] ? x->cfg.setup.model->ckpt_format : dtype_name(x->cfg.setup.dt.weight),
                    x->cfg.max_seqs / ppl, x->cfg.max_batched_tokens,
                    x->cfg.max_batched_tokens > (x->s.eff.engine->max_batched_tokens > 0 ? x->s.eff.engine->max_batched_tokens : 8192)
                        ? " (raised to the longest prompt + max_batch_size)" : "");
        else if (sz == SIM_SIZING_NOT_LOAD || sz == SIM_SIZING_NOT_POOLS || sz == SIM_SIZING_NOT_DP)
            fprintf(c->errf, "llmroof: note: --no-api-server keeps the limits of engine '%s': trtllm-bench sizes %s\n",
                    x->s.eff.engine->id,
                    sz == SIM_SIZING_NOT_LOAD    ? "a dataset submitted at once or at a concurrency, not timed arrivals"
                    : sz == SIM_SIZING_NOT_POOLS ? "one server, not pools or several instances"
                                                 : "attention-DP ranks by a rule llmroof does not model");
        sim_config_multi_step(&x->cfg, (int)x->sched_steps); /* after the profile's cpu_seq_s */
    }
    /* --no-prefix-cache where there was no cache to turn off: the run is the same without it,
     * which the user may not expect (a flag that silently does nothing hides a misreading of the
     * engine or the workload); said, not refused, as --prefix-cache without --shared-prefix is
     * run and noted in the header */
    if (x->no_pcache) {
        const char *en = x->s.eff.engine ? x->s.eff.engine->id : NULL;
        if (x->static_batching)
            fprintf(c->errf, "llmroof: warning: --no-prefix-cache changes nothing: --static-batching keeps no cache "
                             "across requests\n");
        else if (x->cfg.static_batching)
            fprintf(c->errf, "llmroof: warning: --no-prefix-cache changes nothing: engine '%s' batches statically "
                             "(as HF generate()) and keeps no cache across requests\n", en ? en : "?");
        else if (!x->s.eff.engine || !x->s.eff.engine->prefix_cache)
            fprintf(c->errf, "llmroof: warning: --no-prefix-cache changes nothing: %s%s%s does not cache prefixes by "
                             "default\n", en ? "engine '" : "the run", en ? en : "", en ? "'" : "");
        /* an engine that caches keeps preempted requests' blocks whatever the workload shares
         * (sim_config.preempt_keep), which --no-prefix-cache turns off too: no warning there, nor
         * with --trace */
    }
    /* --no-api-server where the profile charges no API server and keeps no offline defaults
     * (vLLM's LLM-class token budget): the run is the same without it, said as for --engine-use-ray */
    if (x->cfg.no_api_server) {
        const struct llmroof_engine *en = x->s.eff.engine;
        if (!en)
            fprintf(c->errf, "llmroof: warning: option '--no-api-server' has no effect without --engine: no API "
                             "server is costed\n");
        else if (!(en->api_stream_s > 0) && en->offline_max_batched_tokens <= 0 &&
                 en->offline_large_gpu_max_batched_tokens <= 0 && en->offline_sizing == LLMROOF_OFFLINE_SIZING_NONE)
            fprintf(c->errf, "llmroof: warning: option '--no-api-server' has no effect with engine '%s': its profile "
                             "charges no API-server work (api_stream_s 0) and keeps no offline defaults\n", en->id);
    }
    /* --max-paddings pads only the prompt-only iterations of whole prompts (vLLM 0.2.1-0.3, no chunked
     * prefill: sim_sched.c); elsewhere the run is the same without it, said as for --no-api-server (a
     * review: a chunked run printed byte for byte the same output, no word) */
    if (x->have_maxpad && !x->cfg.static_batching && (x->cfg.chunked_prefill || !x->cfg.prefill_first))
        fprintf(c->errf, "llmroof: warning: option '--max-paddings' has no effect %s: it pads prompt-only iterations of "
                         "whole prompts (give --no-chunked-prefill, as vLLM 0.2.1-0.3 ran)\n",
                x->cfg.chunked_prefill ? "with chunked prefill" : "when prompts share iterations with decodes");
    if (x->have_mbt && !x->cfg.chunked_prefill && !x->cfg.static_batching) {
        /* whole prompts above the budget run whole, each alone in its iteration (sim_sched.c):
         * vLLM refuses such a budget without chunked prefill (it must be at least max_model_len),
         * TensorRT-LLM a prompt above max_num_tokens; say what the run does instead */
        long longest = wl.kind == WORKLOAD_FIXED ? wl.prompt : 0;
        for (size_t i = 0; trace && i < x->cfg.ntrace; i++)
            if (trace[i].prompt > longest)
                longest = trace[i].prompt;
        if (longest > x->cfg.max_batched_tokens && !x->cfg.prompt_within_budget) /* (else warn_rejected says it) */
            fprintf(c->errf, "llmroof: warning: prompts of up to %ld tokens exceed --max-batched-tokens %ld without "
                             "chunked prefill: each runs whole, alone in its iteration (vLLM refuses a budget below "
                             "the model's length without chunking; TensorRT-LLM a longer prompt)\n",
                    longest, x->cfg.max_batched_tokens);
    }
    if (!x->cfg.user_block && x->cfg.mem.block_size <= 1) /* neither the option nor the profile's kv_block_tokens */
        x->cfg.mem.block_size = 16;
    x->cfg.record_iterations = x->trace_out != NULL;
    rc = 0;
    if (x->sp.method) {
        rc = cli_spec_resolve(c, &x->sp, m, x->s.eff.engine);
        x->cfg.spec = x->sp.spec;
        x->cfg.spec_head = x->sp.head;
        sim_config_spec_seqs(&x->cfg, x->s.eff.engine, x->have_maxseqs);
        if (!rc)
            rc = cli_spec_check_budget(c, &x->sp, x->cfg.max_batched_tokens, "--max-batched-tokens");
    }
    if (!rc && x->cfg.static_batching)
        rc = static_conflicts(c, x);
    if (!rc && x->s.eff.engine)
        rc = engine_flag_conflicts(c, x);
    /* SGLang's decode server would take its hand-overs (and, pre-allocating, start their prompts)
     * only at the receive points; the pools' arrivals do not pass that gate here, so a run would
     * ignore the option while its header named it */
    if (!rc && x->ppool && x->cfg.recv_interval > 1)
        rc = cli_usage_error(c, "option '--recv-interval' is modelled for an aggregated instance only; a disaggregated "
                                "run (--prefill-pool) does not gate its decode server's hand-overs by it");
    /* the concurrency limit is TGI's router's, in front of one aggregated instance */
    if (!rc && x->ppool && x->cfg.user_max_concurrent)
        rc = cli_usage_error(c, "option '--max-concurrent-requests' bounds an aggregated instance's router (TGI's); a "
                                "disaggregated run (--prefill-pool) has none");
    /* an engine without disaggregated serving (TGI, vLLM before 0.6) runs no pools */
    if (!rc && x->ppool && !x->cfg.static_batching && x->s.eff.engine && !x->s.eff.engine->disaggregation) {
        /* the engines that do, from the catalog (a user's file included; a fixed list had left
         * tensorrt-llm-pytorch out, a review); the id copied first, as the listing may reload */
        char id[LLMROOF_ID_MAX], ok[512];
        snprintf(id, sizeof id, "%s", x->s.eff.engine->id);
        x->s.eff.engine = NULL;
        cli_engine_ids_with(c, engine_disaggregates, ok, sizeof ok);
        rc = cli_usage_error(c, "option '--prefill-pool': engine '%s' serves no disaggregated prefill and decode pools "
                                "(its profile's \"disaggregation\"); %s%s%sor drop -e",
                             id, ok[0] ? "pick one that does (" : "", ok, ok[0] ? ") " : "");
    }
    if (!rc && x->ppool) {
        x->cfg.disaggregated = true;
        if (!(rc = parse_pool(c, "prefill-pool", x->ppool, x, &x->cfg.prefill)) &&
            !(rc = parse_pool(c, "decode-pool", x->dpool, x, &x->cfg.decode)))
            rc = kv_link_pools(c, x);
        /* a pool's stages run one batch through them (sim_pipeline_lanes has no lanes for pools):
         * say so, as plan refuses to search such pools (a review: a TP-2+PP-2 decode pool read TPOT
         * 63.5 ms at 30 sequences where two lanes take 50.0) */
        if (!rc && (x->cfg.prefill.setup.layout.pp > 1 || x->cfg.decode.setup.layout.pp > 1))
            fprintf(c->errf, "llmroof: note: a disaggregated pool's pipeline stages run one batch through them, not "
                             "one lane a stage (docs/metrics.md \"Pipeline parallelism\"): its throughput is a lower bound\n");
    }
    if (!rc && x->cfg.warmup_requests > 0 &&
        x->cfg.warmup_requests >= (x->cfg.mode == SIM_TRACE ? (long)x->cfg.ntrace : x->cfg.requests))
        rc = cli_usage_error(c, "option '--warmup': %ld requests leave none of the %ld to measure", x->cfg.warmup_requests,
                             x->cfg.mode == SIM_TRACE ? (long)x->cfg.ntrace : x->cfg.requests);
    if (!rc && x->band > 0 && (x->nsweeps || x->range))
        rc = cli_usage_error(c, "option '--capacity-band' reruns one run: not with a sweep or --range");
    /* a sweep prints one row per point, without the bands' rows (they had been dropped silently) */
    if (!rc && x->range && x->nsweeps)
        rc = cli_usage_error(c, "option '--range' adds rows to one run's table: not with --sweep-rate, "
                                "--sweep-concurrency or --sweep-batched-tokens");
    if (!rc) {
        /* refuse work that would not finish (issue 14: -w fixed:1:1000000 -n 10000000 is ~44 h) */
        double est = sim_estimate_wall_s(&x->cfg) * (x->nsweeps ? pts.n : x->band > 0 ? 3 : 1);
        if (est > 600)
            rc = cli_usage_error(c, "this run would take at least %.1f hours (%.3g tokens of work over %ld requests; the "
                                    "limit is 10 minutes): lower --requests or the workload's lengths",
                                 est / 3600, sim_work_tokens(&x->cfg), x->cfg.mode == SIM_TRACE ? (long)x->cfg.ntrace
                                                                                            : x->cfg.requests);
    }
    if (rc || (c->flags & CLI_PARSE_ONLY)) {
        workload_free(&wl);
        free(trace);
        return rc;
    }
    /* --range's bands are read before the run, as every input is: a missing or bad
     * uncertainty.json had been found only after the whole simulation */
    struct llmroof_uncertainty bands;
    if (x->range && (rc = cli_uncertainty(c, &bands))) {
        workload_free(&wl);
        free(trace);
        return rc;
    }
    /* a simulated server's latencies under load take the serving rows' spread where the file has
     * it (validate --serving ... --uncertainty-out: serving_*), not the static batches' */
    if (x->range && bands.serving_ttft.present)
        bands.ttft = bands.serving_ttft;
    if (x->range && bands.serving_tpot.present)
        bands.tpot = bands.serving_tpot;
    if (x->range && bands.serving_e2e.present)
        bands.e2e = bands.serving_e2e;
    x->cfg.stop = c->stop; /* every run below, the sweep's and the capacity band's too */

    if (!x->nsweeps) {
        struct sim_result r;
        struct cli_progress pr;
        if (cli_progress_start(c, &pr, "requests", x->quiet)) {
            x->cfg.progress = cli_progress_report;
            x->cfg.progress_ctx = &pr;
        }
        rc = sim_run(&x->cfg, &r, &err);
        x->cfg.progress = NULL; /* the capacity band's runs below are short */
        if (rc) {
            workload_free(&wl);
            free(trace);
            return cli_fail(c, &err);
        }
        warn_overload(c, &r, "", &x->cfg);
        /* a drawn workload (chat, docqa, code, lognormal, sharegpt, ...) past the context: its
         * requests are known only once drawn, so counted here (docqa on gpt-j-6b: 169 of 200 past
         * its 2,048 tokens had gone unsaid, where fixed and random lengths are warned of above) */
        if (!x->trace && x->cfg.max_model_len <= 0 && m->max_context > 0 && r.reqs && wl.kind != WORKLOAD_FIXED &&
            wl.kind != WORKLOAD_RANDOM) {
            long nlong = 0, longest = 0;
            for (long i = 0; i < r.requests; i++) {
                const long t = r.reqs[i].prompt + r.reqs[i].output;
                nlong += t > m->max_context;
                longest = t > longest ? t : longest;
            }
            /* at 1% or more: chat's tail puts 1 of 3,000 past Llama-2's 4,096 tokens, which moves nothing */
            if (nlong > 0 && 100 * nlong >= r.requests)
                fprintf(c->errf, "llmroof: warning: workload '%s' drew %ld of %ld requests past %s's context of %ld "
                                 "tokens (up to %ld): simulated as drawn (--max-model-len %ld refuses longer prompts "
                                 "and stops outputs there, as vLLM does by default)\n",
                        wname, nlong, r.requests, m->id, m->max_context, longest, m->max_context);
        }
        /* a stated pool that memory could not hold: taken as given, but said (the run's engine
         * had more memory than llmroof's --mem-util and reserve leave, or the number is a typo) */
        if (x->cfg.kv_blocks > 0 && r.kv_blocks_total > r.kv_blocks_memory)
            fprintf(c->errf, "llmroof: warning: --kv-blocks %ld holds %ld blocks in all, more than the %ld that memory sizes at "
                             "--mem-util %.2f; taken as given\n",
                    x->cfg.kv_blocks, r.kv_blocks_total, r.kv_blocks_memory, x->cfg.mem.mem_util);
        if (!(rc = write_if(c, x->req_out, render_sim_requests_csv, &r)) &&
            !(rc = write_if(c, x->trace_out, render_sim_chrome_trace, &r))) {
            /* e2e's band covers its parts, as estimate's (catalog_e2e_band): TTFT at TTFT's band and
             * the rest at TPOT's, so that its high row is never below what theirs add up to (the
             * serving rows' e2e band, 26 rows, is narrower than their TPOT band) */
            if (x->range && r.e2e.n > 0)
                bands.e2e = catalog_e2e_band(&bands, r.ttft.mean, r.e2e.mean, r.tpot.n == 0);
            if (c->format == TABLE_JSON && x->band > 0) {
                rc = capacity_band(c, x, &r, wname, &err);
            } else if (c->format == TABLE_JSON) {
                char *j = x->range ? render_json_sim_range(&x->cfg, &r, wname, &bands)
                                   : render_json_sim(&x->cfg, &r, wname);
                if (j)
                    sbuf_append(&c->out, j);
                else if (!rc)
                    rc = 1;
                free(j);
            } else {
                if (x->range)
                    render_sim_bands(&x->cfg, &r, wname, &bands, c->format, &c->sel, &c->out);
                else
                    render_sim(&x->cfg, &r, wname, c->format, &c->sel, &c->out);
                if (!rc && x->band > 0)
                    rc = capacity_band(c, x, &r, wname, &err);
            }
        }
        sim_result_free(&r);
        workload_free(&wl);
        free(trace);
        return rc;
    }

    /* a sweep's points draw alike: one warning for all, from the workload's own draws */
    if (!x->trace && x->cfg.max_model_len <= 0)
        cli_warn_drawn_past_context(c, &wl, wname, m, false);
    for (int i = 0; i < pts.n; i++) {
        struct sim_config cfg = x->cfg;
        if (strcmp(sweep, "max_batched_tokens") == 0) {
            cfg.max_batched_tokens = (long)pts.v[i];
            cfg.prefill.max_batched_tokens = cfg.decode.max_batched_tokens = 0; /* the swept one, every pool's */
        }
        else if (strcmp(sweep, "rate") == 0)
            cfg.rate_qps = pts.v[i];
        else
            cfg.concurrency = (long)pts.v[i];
        res[i].param = pts.v[i];
        if ((rc = sim_run(&cfg, &res[i].result, &err)) == 0) {
            char what[80];
            snprintf(what, sizeof what, "%s = %g: ", x->sweep_name, pts.v[i]);
            warn_overload(c, &res[i].result, what, &x->cfg);
        }
        if (rc) {
            for (int k = 0; k < i; k++)
                sim_result_free(&res[k].result);
            workload_free(&wl);
            free(trace);
            return cli_fail(c, &err);
        }
        /* keep the statistics and the instances' only (the JSON lists them per point) */
        free(res[i].result.reqs);
        free(res[i].result.iters);
        res[i].result.reqs = NULL;
        res[i].result.iters = NULL;
    }
    if (x->svg) {
        struct sbuf svg;
        char title[256];
        sbuf_init(&svg);
        /* the layout's GPUs (EP, PP), as the header names them, not one replica's TP */
        const struct llmroof_layout lay = estimate_layout(&x->cfg.setup);
        struct llmroof_shard sh;
        const int gpus = ops_shard_layout(m, &lay, &sh, NULL) == LLMROOF_OK ? sh.gpus : x->cfg.setup.tp;
        snprintf(title, sizeof title, "%s, %d x %s: latency and throughput by %s", m->id, gpus, g->id, x->sweep_name);
        render_sim_curve(title, x->sweep_name, res, pts.n, &x->cfg, &svg);
        rc = sbuf_failed(&svg) ? 1 : cli_write_file(c, x->svg, &svg);
        sbuf_free(&svg);
    }
    if (!rc) {
        if (c->format == TABLE_JSON) {
            char *j = render_json_sim_sweep(x->sweep_name, res, pts.n, &x->cfg, wname);
            if (j)
                sbuf_append(&c->out, j);
            else
                rc = 1;
            free(j);
        } else {
            if (c->format == TABLE_TEXT || c->format == TABLE_MD) {
                /* the swept setting varies by row: the header names it swept, not its last value */
                struct sim_config hc = x->cfg;
                if (strcmp(x->sweep_name, "rate") == 0)
                    hc.rate_qps = 0;
                else if (strcmp(x->sweep_name, "concurrency") == 0)
                    hc.concurrency = 0;
                else if (strcmp(x->sweep_name, "max_batched_tokens") == 0)
                    hc.max_batched_tokens = 0;
                render_sim_header(&hc, wname, &c->out);
                sbuf_printf(&c->out, "\nsweep of %s:\n\n", x->sweep_name);
            }
            render_sim_sweep(x->sweep_name, res, pts.n, &x->cfg, c->format, &c->out);
        }
    }
    workload_free(&wl);
    free(trace);
    return rc;
}

int cmd_simulate(struct cli *c, int argc, char **argv)
{
    struct ctx *x = calloc(1, sizeof *x);
    struct sim_point *res = calloc(MAX_POINTS, sizeof *res);
    int rc = (x && res) ? simulate_main(c, argc, argv, x, res) : 1;
    free(x);
    for (int i = 0; res && i < MAX_POINTS; i++) /* a sweep's points keep their instances */
        sim_result_free(&res[i].result);
    free(res);
    return rc;
}
