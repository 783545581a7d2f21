/* cmd_roofline.c - `llmroof roofline`: every operator of prefill and of the mean decode step
 * placed on the GPU's roofline, as a table and optionally an SVG chart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "model/ckpt.h"
#include "model/kernel.h"
#include "render/render_json.h"
#include "render/svg.h"

enum { OPT_SVG = 1 };

struct ctx {
    struct cli_setup_opts s;
    const char *svg;
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    if (id == OPT_SVG) {
        x->svg = arg;
        return 0;
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

int cmd_roofline(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        CLI_OPT_MODEL, CLI_OPT_GPU, CLI_OPT_TP, CLI_OPT_LAYOUT, CLI_OPT_BATCH, CLI_OPT_PROMPT, CLI_OPT_OUTPUT,
        CLI_OPT_DTYPES, CLI_OPT_EFFS,
        { OPT_SVG, "svg", 0, "FILE", "write the roofline chart (log-log SVG) to FILE", false },
    };
    struct ctx x;
    memset(&x, 0, sizeof x);
    cli_setup_defaults(&x.s);
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof roofline -m MODEL -g GPU [-t TP] [-b B] [-p P] [-o O] [--svg FILE]";
    static const char *const outputs[] = { "svg", NULL }; /* checked before the work */
    c->outputs = outputs;
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, &x, pos, 0, &npos,
                       "Places each local operator of the prefill and of the mean decode step at its arithmetic\n"
                       "intensity (FLOP/byte) and achieved FLOP/s under the GPU's roofline. Collectives have no\n"
                       "intensity and are listed in 'llmroof estimate --ops'.");
    if (rc)
        return rc;
    if (!x.s.model || !x.s.gpu)
        return cli_usage_error(c, "options '--model' and '--gpu' are required");
    if ((rc = cli_catalog_pick(c, x.s.model, x.s.gpu, x.s.engine_name)) || (rc = cli_setup_resolve(c, &x.s)))
        return rc;
    const struct llmroof_model *m = cli_model(c, x.s.model);
    const struct llmroof_gpu *g = m ? cli_gpu(c, x.s.gpu) : NULL;
    if (!m || !g)
        return 2;
    struct llmroof_setup s = { m, g, (int)x.s.tp, cli_model_dtypes(c, m, g, &x.s),
                               roofline_effs_tp(g, &x.s.eff, (int)x.s.tp), cli_layout(&x.s) };
    struct llmroof_request req = { x.s.batch, x.s.prompt, x.s.output };
    struct llmroof_estimate e;
    struct llmroof_err err = { 0 };
    if ((rc = estimate_run(&s, &req, &e, &err)))
        return cli_fail(c, &err);
    /* what estimate warns of: a setup that does not fit, a context past the model's (the chart had
     * drawn Llama-3.1-405B on one L4 without a word: a review of session 65) */
    {
        const long ctx_len = req.prompt + req.output;
        const struct llmroof_layout lay = estimate_layout(&s);
        struct llmroof_memory mem;
        if (memory_eval_layout(m, g, &lay, &s.dt, ctx_len, &x.s.mem, &mem, &err) == LLMROOF_OK) {
            memory_fit_batch(&mem, req.batch);
            if (mem.fit == LLMROOF_FIT_WEIGHTS || mem.fit == LLMROOF_FIT_CONTEXT)
                fprintf(c->errf, "llmroof: warning: %s does not fit on %d x %s at a %ld-token context (see 'llmroof "
                                 "memory'): the operators are placed as if it did\n", m->id, mem.gpus, g->id, ctx_len);
            else if (mem.fit == LLMROOF_FIT_BATCH)
                fprintf(c->errf, "llmroof: warning: batch %ld exceeds the KV-cache limit of %.0f sequences at a "
                                 "%ld-token context: not servable at once\n", req.batch, mem.max_batch, ctx_len);
        }
        if (m->max_context < ctx_len)
            fprintf(c->errf, "llmroof: warning: prompt + output = %ld tokens exceeds %s's max context of %ld\n", ctx_len,
                    m->id, m->max_context);
    }

    struct svg_point pts[2 * LLMROOF_OP_COUNT];
    size_t n = 0;
    /* the GEMMs' compute dtype: the activations', or a checkpoint's own path (block fp8 on an H200
     * computes fp8 under fp16 activations: ops_ckpt_lowp_modules) */
    enum llmroof_dtype gemm = s.dt.act, low;
    if (ops_ckpt_lowp_modules(m, &s.dt, &low))
        gemm = low;
    /* the roof the chart draws for them, and the ridge; an operator the estimate bounds by compute
     * left of it is said (a review: MI300X's decode GEMMs of 64 rows read "compute" at 62 FLOP/B
     * where the drawn ridge is 137: their rows' ramp lowers their roof, gemm_ramp_rows) */
    const enum llmroof_dtype rd = g->has_peak[gemm] ? gemm : LLMROOF_FP16;
    const double roof = g->peak_flops[rd] * s.eff.compute * kernel_gemm_dtype_scale(g, rd);
    const double bw = g->mem_bw_Bps * s.eff.memory, ridge = bw > 0 ? roof / bw : 0;
    char left[256] = "";
    bool left_attn = false, left_gemm = false;
    struct table t;
    table_init(&t, "");
    table_col(&t, "phase", 0);
    table_col(&t, "op", 0);
    table_col(&t, "FLOP_per_byte", 2);
    table_col(&t, "achieved_TFLOPS", 3);
    table_col(&t, "bound", 0);
    for (int ph = 0; ph < 2; ph++) {
        const struct llmroof_oplist *ops = ph ? &e.decode_ops : &e.prefill_ops;
        const struct llmroof_phase *p = ph ? &e.decode : &e.prefill;
        if (ph && e.decode_steps <= 0)
            break;
        for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
            const struct llmroof_op *op = &ops->op[k];
            if (op->count <= 0 || op_is_collective((enum llmroof_opkind)k) || p->op[k].bytes <= 0 || op->flops <= 0)
                continue;
            /* intensity over the bytes the time was charged for (an engine's extra traffic in) */
            double ai = op->count * op->flops / p->op[k].bytes, perf = op->count * op->flops / p->op[k].time_s;
            pts[n++] = (struct svg_point){ op_name((enum llmroof_opkind)k), ai, perf, ph };
            table_row(&t);
            table_str(&t, ph ? "decode" : "prefill");
            table_str(&t, op_name((enum llmroof_opkind)k));
            table_num(&t, ai);
            table_num(&t, perf / 1e12);
            table_str(&t, bound_name(p->op[k].bound));
            if (p->op[k].bound == LLMROOF_BOUND_COMPUTE && ridge > 0 && ai < 0.98 * ridge) {
                const size_t u = strlen(left);
                snprintf(left + u, sizeof left - u, "%s%s %s", u ? ", " : "", ph ? "decode" : "prefill",
                         op_name((enum llmroof_opkind)k));
                if (k == LLMROOF_OP_ATTENTION || k == LLMROOF_OP_ATTN_LOCAL)
                    left_attn = true;
                else
                    left_gemm = true;
            }
        }
    }
    if (x.svg) {
        struct sbuf svg;
        char title[256];
        sbuf_init(&svg);
        snprintf(title, sizeof title, "%s on %s (TP %d, batch %ld): operators on the roofline", m->id, g->id, s.tp,
                 req.batch);
        svg_roofline(&svg, title, g, s.eff.memory, s.eff.compute, gemm, pts, n, true);
        rc = sbuf_failed(&svg) ? 1 : cli_write_file(c, x.svg, &svg);
        sbuf_free(&svg);
        if (rc) {
            table_free(&t);
            return rc;
        }
    }
    if (c->format == TABLE_JSON) {
        struct rjdoc *d = cli_json(c);
        rjdoc_str(d, "model", m->id);
        rjdoc_str(d, "gpu", g->id);
        rjdoc_num(d, "tp", s.tp);
        rjdoc_num(d, "batch", (double)req.batch);
        rjdoc_num(d, "prompt_len", (double)req.prompt);
        rjdoc_num(d, "output_len", (double)req.output);
    }
    cli_table(c, "ops", &t);
    table_free(&t);
    if (left[0] && cli_prose(c)) {
        sbuf_printf(&c->out, "\nnote: %s: compute-bound left of the %.0f FLOP/B ridge, the kernels below the "
                             "compute roof drawn", left, ridge);
        if (left_attn)
            sbuf_append(&c->out, "; attention at its own kernels' rate (docs/model.md 'Attention kernels')");
        if (left_gemm && s.eff.gemm_ramp_rows > 0)
            sbuf_printf(&c->out, "; on %s a GEMM's compute grows by 1 + %.0f / rows at 4,096 output columns "
                                 "(gemm_ramp_rows, docs/model.md 'GEMM fill ramp')",
                        g->id, s.eff.gemm_ramp_rows);
        sbuf_append(&c->out, "\n");
    }
    return 0;
}
