/* cmd_report.c - `llmroof report`: the 2/4/8 x A40/A100/V100 comparison by default. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "model/ckpt.h"
#include "model/ops.h"
#include "render/render_json.h"
#include "render/render_report.h"

enum { OPT_GPUS = 1, OPT_TPS, OPT_SVGDIR, OPT_RANGE, OPT_WIDE };

struct ctx {
    struct cli_setup_opts s;
    const char *gpus, *tps, *svg_dir;
    bool range, wide;
    struct report_input in;
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    switch (id) {
    case OPT_GPUS: x->gpus = arg; return 0;
    case OPT_TPS: x->tps = arg; return 0;
    case OPT_SVGDIR: x->svg_dir = arg; return 0;
    case OPT_RANGE: x->range = true; return 0;
    case OPT_WIDE: x->wide = true; return 0;
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

/* --svg-dir DIR: creates DIR and its missing parents, as mkdir -p does. Returns 0, or 1 after
 * printing the error (a failed write). */
static int make_dir(struct cli *c, const char *dir)
{
    char p[4096];
    struct stat st;
    if (c->flags & CLI_NO_FILES)
        return 0;
    if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p || !p[0]) {
        fprintf(c->errf, "llmroof: error: option '--svg-dir': '%s' is not a usable directory name\n", dir);
        return 1;
    }
    for (char *s = p + 1;; s++) {
        bool end = *s == '\0';
        if (!end && *s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0777) == 0) {
            if (cli_made_dir(c, p)) /* a failed run removes it again */
                return 1;
        } else if (errno != EEXIST) {
            fprintf(c->errf, "llmroof: error: %s: cannot create directory: %s\n", p, strerror(errno));
            return 1;
        }
        if (end)
            break;
        *s = '/';
    }
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(c->errf, "llmroof: error: %s: cannot create directory: %s\n", dir, strerror(ENOTDIR));
        return 1;
    }
    return 0;
}

static int report_main(struct cli *c, int argc, char **argv, struct ctx *x, struct llmroof_report *r)
{
    static const struct cli_opt opts[] = {
        { OPT_MODEL, "model", 'm', "MODEL", "model id (default internlm-20b, the studies' model)", false },
        { OPT_GPUS, "gpus", 0, "all|LIST", "comma-separated GPU ids or aliases, or all (default a40,a100,v100)", false },
        { OPT_TPS, "tp", 't', "LIST", "comma-separated TP values (default 2,4,8)", false },
        CLI_OPT_LAYOUT,
        { OPT_BATCH, "batch", 'b', "B", "sequences served together (default 16)", false },
        CLI_OPT_PROMPT, CLI_OPT_OUTPUT, CLI_OPT_DTYPES, CLI_OPT_EFFS, CLI_OPT_MEM,
        { OPT_SVGDIR, "svg-dir", 0, "DIR", "also write the operator-share and latency charts as SVG files into DIR (created, with its parents, when missing)", false },
        { OPT_RANGE, "range", 0, NULL, "add TTFT and TPOT low-high bands from the validation residuals", false },
        { OPT_WIDE, "wide", 0, NULL, "text and md: Table 1 as one table with every column (wider than 100)", false },
    };
    cli_setup_defaults(&x->s);
    x->s.batch = 16;
    char *pos[1];
    int npos = 0;
    static const char *const tables[] = { "configs", "prefill_shares", "decode_shares", "observations", NULL };
    c->tables = tables;
    c->usage = "llmroof report [-m MODEL] [--gpus LIST] [--tp LIST] [--pp N] [--ep N [--dp-attention]] [--moe-tp N --dp-attention] [-b B] [-p P] [-o O] [options] [--svg-dir DIR]";
    c->formats = CLI_FORMATS_DEFAULT | (1u << TABLE_HTML);
    static const char *const outputs[] = { "svg-dir/", NULL }; /* checked before the work */
    c->outputs = outputs;
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, x, pos, 0, &npos,
                       "Compares every GPU x TP configuration: weights and KV per GPU, max batch, TTFT, TPOT,\n"
                       "throughput, the bound and communication share of prefill and decode, TP scaling, the\n"
                       "time share of each operator, and observations computed from those numbers.\n"
                       "Formats: table, md, csv, json, html (one self-contained page with charts).");
    if (rc)
        return rc;
    if ((rc = cli_catalog(c)) || (rc = cli_setup_resolve(c, &x->s)))
        return rc;
    /* the report compares decode (TPOT, decode throughput, its bound) across configurations: one
     * output token has none, and its observations had ranked zeros (a review) */
    if (x->s.output < 2)
        return cli_usage_error(c, "option '--output': an output of 1 token leaves no decode step to compare (TPOT, "
                                  "decode throughput and bound); give 2 or more ('estimate -o 1' times a prompt "
                                  "alone)");
    const struct llmroof_model *m = cli_model(c, x->s.model ? x->s.model : "internlm-20b");
    if (!m)
        return 2;
    if ((rc = cli_gpu_list(c, x->gpus ? x->gpus : "a40,a100,v100", x->in.gpus, REPORT_MAX_GPUS, &x->in.ngpus)) ||
        (rc = cli_tp_list(c, x->tps ? x->tps : "2,4,8", x->in.tps, REPORT_MAX_TPS, &x->in.ntps)) ||
        /* a report of no-engine rows alone compares nothing (plan refuses it too) */
        (rc = cli_engine_runs_on_any(c, x->s.eff.engine, x->in.gpus, x->in.ngpus)))
        return rc;
    /* a TP the model's heads rule out stays in the report as a marked bad-tp row, as every
     * other configuration that cannot run does; only a list with no usable TP is an error */
    int usable = 0;
    char why[sizeof((struct llmroof_err *)0)->msg] = "";
    x->in.layout = x->s.layout;
    /* a layout flag the model cannot take at any TP is that flag's error, not the TP list's
     * ("option '--tp': ... --ep 3 needs a mixture-of-experts model" had blamed --tp: a review) */
    struct llmroof_err lerr = { 0 };
    if (ops_layout_check_model(m, &x->in.layout, &lerr))
        return cli_fail(c, &lerr);
    for (int i = 0; i < x->in.ntps; i++) {
        struct llmroof_shard sh;
        struct llmroof_err err = { 0 };
        struct llmroof_layout lay = x->in.layout;
        lay.tp = x->in.tps[i];
        /* the layout's own checks (estimate's): PP <= layers, EP divides the experts and
         * equals TP or is a multiple of it with --dp-attention */
        if (ops_shard_layout(m, &lay, &sh, &err)) {
            if (!why[0]) /* the first TP's reason (the last had been quoted, naming TP 6 of 3,6) */
                snprintf(why, sizeof why, "%s", err.msg);
        } else
            usable++;
    }
    if (!usable) {
        fprintf(c->errf, "llmroof: error: option '--tp': no TP in the list suits the model%s: %s%s\n",
                (x->in.layout.pp > 1 || x->in.layout.ep > 1 || x->in.layout.dp_attn || x->in.layout.moe_tp > 1) ? " and layout" : "", why,
                x->in.ntps > 1 ? " (and each other TP of the list likewise)" : "");
        return 2;
    }
    x->in.model = m;
    x->in.req = (struct llmroof_request){ x->s.batch, x->s.prompt, x->s.output };
    x->in.dt = cli_model_dtypes(c, m, NULL, &x->s);
    x->in.weight_given = x->s.have_weight; /* each GPU's compute dtype: report.c */
    x->in.act_given = x->s.have_act;
    cli_note_fp8_compute(c, m, x->in.gpus, x->in.ngpus, &x->s, x->in.dt);
    x->in.eff = x->s.eff;
    x->in.mem = x->s.mem;
    /* the engine's KV pool as estimate, memory and simulate set it up (cli_engine_mem), per GPU and
     * TP: its share of the device, its reserve, TGI 0.8's halved pool, its budget's workspace, each
     * of which may depend on the TP (a row had taken the list's first TP's: DeepSeek-V2 at TP 2 with
     * EP 8 and DP attention under vllm, 2,708 sequences alone and 2,668 listed after TP 1) */
    for (int gi = 0; x->s.eff.engine && gi < x->in.ngpus; gi++)
        for (int ti = 0; ti < x->in.ntps; ti++) {
            struct cli_setup_opts so = x->s;
            const struct llmroof_setup setup = { m, x->in.gpus[gi], x->in.tps[ti], x->in.dt, { .compute = 0 },
                                                 x->in.layout };
            cli_engine_mem(&so, &setup, false, false);
            x->in.gpu_mem[gi][ti] = so.mem;
            x->in.has_gpu_mem = true;
        }
    if (!dtype_is_storage(x->in.dt.weight) || !dtype_is_storage(x->in.dt.kv))
        return cli_usage_error(c, "tf32 is a compute mode, not a storage dtype for weights or KV cache");

    if (c->flags & CLI_PARSE_ONLY)
        return 0;
    struct llmroof_err err = { 0 };
    if ((rc = report_build(&x->in, r, &err)))
        return cli_fail(c, &err);
    if (x->range) {
        if ((rc = cli_uncertainty(c, &r->bands)))
            return rc;
        r->has_bands = r->bands.ttft.present && r->bands.tpot.present;
    }

    if (x->svg_dir && (rc = make_dir(c, x->svg_dir)))
        return rc;
    if (x->svg_dir) {
        for (int k = 0; k < 3; k++) {
            struct sbuf svg;
            char path[4096];
            sbuf_init(&svg);
            if (k == 2)
                render_report_latency_chart(r, true, &svg);
            else
                render_report_chart(r, k == 1, true, &svg);
            snprintf(path, sizeof path, "%s/%s-%s.svg", x->svg_dir, m->id,
                     k == 2 ? "latency" : k ? "decode-shares" : "prefill-shares");
            rc = sbuf_failed(&svg) ? 1 : cli_write_file(c, path, &svg);
            sbuf_free(&svg);
            if (rc)
                return rc;
        }
    }
    if (c->format == TABLE_JSON) {
        char *j = render_json_report(r);
        if (!j)
            return 1;
        sbuf_append(&c->out, j);
        free(j);
    } else if (c->format == TABLE_HTML) {
        render_report_html(r, &c->out);
    } else {
        render_report(r, c->format, &c->sel, x->wide, &c->out);
    }
    return 0;
}

int cmd_report(struct cli *c, int argc, char **argv)
{
    struct ctx *x = calloc(1, sizeof *x);
    struct llmroof_report *r = calloc(1, sizeof *r); /* large: every row */
    int rc = (x && r) ? report_main(c, argc, argv, x, r) : 1;
    free(x);
    free(r);
    return rc;
}
