/* cmd_simulate.c - `llmroof simulate`: continuous batching with chunked prefill under load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "llmroof/parse.h"
#include "llmroof/render_json.h"
#include "llmroof/render_sim.h"

enum { OPT_MBT = 1, OPT_MAXSEQS, OPT_NOCHUNK, OPT_CONC, OPT_REQS, OPT_THINK, OPT_RATE, OPT_TRACE, OPT_WORKLOAD,
       OPT_SEED, OPT_REQOUT, OPT_TRACEOUT, OPT_SW_MBT, OPT_SW_RATE, OPT_SW_CONC, OPT_SVG, OPT_RANGE };

struct ctx {
    struct cli_setup_opts s;
    struct sim_config cfg;
    bool have_conc, have_reqs, have_think, have_rate, have_block, range;
    const char *trace, *workload, *req_out, *trace_out, *svg;
    const char *sweep_name, *sweep_list;
    int nsweeps;
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    long v;
    int rc;
    switch (id) {
    case OPT_MBT:
        rc = cli_long(c, "max-batched-tokens", arg, 1, 10000000, &v);
        x->cfg.max_batched_tokens = v;
        return rc;
    case OPT_MAXSEQS:
        rc = cli_long(c, "max-seqs", arg, 1, 1000000, &v);
        x->cfg.max_seqs = v;
        return rc;
    case OPT_NOCHUNK: x->cfg.chunked_prefill = false; return 0;
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
    case OPT_RATE:
        x->have_rate = true;
        return cli_double(c, "rate", arg, 0, 1e6, true, &x->cfg.rate_qps);
    case OPT_TRACE: x->trace = arg; return 0;
    case OPT_WORKLOAD: x->workload = arg; return 0;
    case OPT_SEED: {
        int64_t sd;
        if (!parse_int64(arg, 0, INT64_MAX, &sd))
            return cli_usage_error(c, "option '--seed': '%s' is not a whole number >= 0", arg);
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
    case OPT_BLOCK: x->have_block = true; break;
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

#define MAX_POINTS 64
struct list_ctx {
    double v[MAX_POINTS];
    int n;
    bool integer;
};

static bool add_point(const char *item, void *vctx)
{
    struct list_ctx *l = vctx;
    double d;
    if (l->n == MAX_POINTS || !parse_double(item, &d) || !(d > 0) || d > 1e7 || (l->integer && d != (long)d))
        return false;
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

static int simulate_main(struct cli *c, int argc, char **argv, struct ctx *x, struct sim_point *res)
{
    static const struct cli_opt opts[] = {
        CLI_OPT_MODEL, CLI_OPT_GPU, CLI_OPT_TP, CLI_OPT_DTYPES, CLI_OPT_EFFS, CLI_OPT_MEM,
        { OPT_MBT, "max-batched-tokens", 0, "N", "token budget of one iteration (default 2048)", false },
        { OPT_MAXSEQS, "max-seqs", 0, "N", "running sequences at most (default 256)", false },
        { OPT_NOCHUNK, "no-chunked-prefill", 0, NULL, "prefill each prompt whole in one iteration", false },
        { OPT_CONC, "concurrency", 'c', "N", "closed loop: N users (default 20)", false },
        { OPT_REQS, "requests", 'n', "R", "requests in the pool (default 250)", false },
        { OPT_THINK, "think", 0, "LO-HI", "closed loop: uniform pause between requests (default 1s-3s)", false },
        { OPT_RATE, "rate", 'r', "QPS", "open loop: Poisson arrivals per second", false },
        { OPT_TRACE, "trace", 0, "FILE", "open loop: CSV of arrival_s,prompt_len,output_len", false },
        { OPT_WORKLOAD, "workload", 'w', "SPEC", "fixed:P:O, chat, docqa or csv:FILE (default chat)", false },
        { OPT_SEED, "seed", 0, "N", "random seed (default 42)", false },
        { OPT_REQOUT, "requests-out", 0, "FILE", "write each request's timestamps as CSV", false },
        { OPT_TRACEOUT, "trace-out", 0, "FILE", "write a Chrome trace of the iterations (JSON)", false },
        { OPT_SW_MBT, "sweep-batched-tokens", 0, "LIST", "one run per token budget (throughput-latency curve)", false },
        { OPT_SW_RATE, "sweep-rate", 0, "LIST", "one run per arrival rate (open loop)", false },
        { OPT_SW_CONC, "sweep-concurrency", 0, "LIST", "one run per number of users (closed loop)", false },
        { OPT_SVG, "svg", 0, "FILE", "with a sweep: draw the throughput-latency curve", false },
        { OPT_RANGE, "range", 0, NULL, "add low/high rows from the validation residuals (docs/validation.md)", false },
    };
    cli_setup_defaults(&x->s);
    sim_default_config(&x->cfg);
    x->s.mem = x->cfg.mem;
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof simulate -m MODEL -g GPU [-t TP] [--concurrency N --requests R [--think LO-HI] | --rate QPS "
               "| --trace FILE] [--workload SPEC] [options]";
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, x, pos, 0, &npos,
                       "Simulates a continuous-batching server (vLLM-like: chunked prefill within a token budget,\n"
                       "paged KV blocks, FCFS admission, preemption by recomputation) and reports TTFT, TPOT and\n"
                       "e2e percentiles, throughput, batch size and KV use. Every iteration is costed with the same\n"
                       "operators and roofline as 'estimate'. Metrics: docs/metrics.md.");
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
    if (x->nsweeps && (x->req_out || x->trace_out))
        return cli_usage_error(c, "options '--requests-out' and '--trace-out' describe one run, not a sweep");
    if (x->sweep_name && strcmp(x->sweep_name, "rate") == 0 && (x->have_conc || x->trace))
        return cli_usage_error(c, "option '--sweep-rate' is an open-loop sweep: drop --concurrency/--trace");
    if (x->sweep_name && strcmp(x->sweep_name, "concurrency") == 0 && (x->have_rate || x->trace))
        return cli_usage_error(c, "option '--sweep-concurrency' is a closed-loop sweep: drop --rate/--trace");
    const char *sweep = x->sweep_name ? x->sweep_name : ""; /* set together with sweep_list */
    struct list_ctx pts = { { 0 }, 0, x->sweep_name && strcmp(sweep, "rate") != 0 };
    if (x->sweep_list && !parse_list(x->sweep_list, add_point, &pts))
        return cli_usage_error(c, "option '--sweep-%s': '%s' is not a list of up to %d positive %s", 
                               strcmp(sweep, "max_batched_tokens") == 0 ? "batched-tokens" : sweep,
                               x->sweep_list, MAX_POINTS, pts.integer ? "whole numbers" : "numbers");

    if ((rc = cli_catalog(c)) || (rc = cli_setup_resolve(c, &x->s)))
        return rc;
    const struct llmroof_model *m = cli_model(c, x->s.model);
    const struct llmroof_gpu *g = m ? cli_gpu(c, x->s.gpu) : NULL;
    if (!m || !g)
        return 2;

    /* workload and trace */
    struct llmroof_err err = { 0 };
    struct workload wl = { 0 };
    struct trace_req *trace = NULL;
    const char *wname = x->workload ? x->workload : "chat";
    if (x->trace) {
        char *text;
        size_t len;
        if ((rc = catalog_read_file(x->trace, (size_t)1 << 30, &text, &len, &err)))
            return cli_fail(c, &err);
        rc = workload_parse_trace(text, len, x->trace, 10000000, &trace, &x->cfg.ntrace, &err);
        free(text);
        if (rc)
            return cli_fail(c, &err);
        x->cfg.mode = SIM_TRACE;
        x->cfg.trace = trace;
        wname = x->trace;
    } else if ((rc = cli_workload(c, wname, &wl))) {
        return rc;
    }
    if (!x->trace)
        x->cfg.mode = x->have_rate || (x->sweep_name && strcmp(x->sweep_name, "rate") == 0) ? SIM_RATE : SIM_CLOSED;
    if (x->cfg.mode == SIM_RATE && !x->have_think) {
        x->cfg.think_min_s = x->cfg.think_max_s = 0;
    }
    x->cfg.workload = &wl;
    x->cfg.setup = (struct llmroof_setup){ m, g, (int)x->s.tp, cli_dtypes(&x->s), roofline_effs(g, &x->s.eff), { 0 } };
    x->cfg.mem = x->s.mem;
    if (!x->have_block)
        x->cfg.mem.block_size = 16;
    x->cfg.record_iterations = x->trace_out != NULL;
    if (c->flags & CLI_PARSE_ONLY) {
        workload_free(&wl);
        free(trace);
        return 0;
    }

    if (!x->nsweeps) {
        struct sim_result r;
        rc = sim_run(&x->cfg, &r, &err);
        if (rc) {
            workload_free(&wl);
            free(trace);
            return cli_fail(c, &err);
        }
        if (!(rc = write_if(c, x->req_out, render_sim_requests_csv, &r)) &&
            !(rc = write_if(c, x->trace_out, render_sim_chrome_trace, &r))) {
            if (c->format == TABLE_JSON) {
                char *j = render_json_sim(&x->cfg, &r, wname);
                if (j)
                    sbuf_append(&c->out, j);
                else
                    rc = 1;
                free(j);
            } else {
                struct llmroof_uncertainty u;
                if (x->range && (rc = cli_uncertainty(c, &u)) == 0)
                    render_sim_bands(&x->cfg, &r, wname, &u, c->format, &c->out);
                else if (!x->range)
                    render_sim(&x->cfg, &r, wname, c->format, &c->out);
            }
        }
        sim_result_free(&r);
        workload_free(&wl);
        free(trace);
        return rc;
    }

    for (int i = 0; i < pts.n; i++) {
        struct sim_config cfg = x->cfg;
        if (strcmp(sweep, "max_batched_tokens") == 0)
            cfg.max_batched_tokens = (long)pts.v[i];
        else if (strcmp(sweep, "rate") == 0)
            cfg.rate_qps = pts.v[i];
        else
            cfg.concurrency = (long)pts.v[i];
        res[i].param = pts.v[i];
        if ((rc = sim_run(&cfg, &res[i].result, &err))) {
            for (int k = 0; k < i; k++)
                sim_result_free(&res[k].result);
            workload_free(&wl);
            free(trace);
            return cli_fail(c, &err);
        }
        sim_result_free(&res[i].result); /* keep the statistics only */
    }
    if (x->svg) {
        struct sbuf svg;
        char title[256];
        sbuf_init(&svg);
        snprintf(title, sizeof title, "%s, %d x %s: throughput vs latency by %s", m->id, x->cfg.setup.tp, g->id,
                 x->sweep_name);
        render_sim_curve(title, x->sweep_name, res, pts.n, &svg);
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
                render_sim_header(&x->cfg, wname, &c->out);
                sbuf_printf(&c->out, "\nsweep of %s:\n\n", x->sweep_name);
            }
            render_sim_sweep(x->sweep_name, res, pts.n, c->format, &c->out);
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
    free(res);
    return rc;
}
