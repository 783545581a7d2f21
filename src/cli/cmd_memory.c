/* cmd_memory.c - `llmroof memory`: per-GPU memory breakdown, KV capacity, max batch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "model/ckpt.h"
#include "render/render_json.h"

enum { OPT_MBT = 1, OPT_MAXSEQS };

struct ctx {
    struct cli_setup_opts s;
    struct cli_spec_opts sp;     /* --spec and its family: the drafter beside the target (cli_spec.h) */
    bool have_mbt, have_maxseqs; /* given: the engine's defaults do not replace them */
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    long v;
    int rc = cli_spec_opt(c, &x->sp, id, arg);
    if (rc != 1)
        return rc;
    switch (id) {
    case OPT_MBT: /* the largest forward's tokens size the workspace, as simulate's budget does */
        if ((rc = cli_long(c, "max-batched-tokens", arg, 1, 10000000, &v)))
            return rc;
        x->s.mem.max_batched_tokens = (double)v;
        x->have_mbt = true;
        return 0;
    case OPT_MAXSEQS: /* ... and its sequences the logits buffer */
        if ((rc = cli_long(c, "max-seqs", arg, 1, 1000000, &v)))
            return rc;
        x->s.mem.max_seqs = (double)v;
        x->have_maxseqs = true;
        return 0;
    default: return cli_setup_opt(c, &x->s, id, arg);
    }
}

static void row_bytes(struct table *t, const char *name, double b)
{
    char buf[32];
    table_row(t);
    table_str(t, name);
    table_str(t, cli_fmt_bytes(b, buf, sizeof buf));
    table_num(t, b);
    table_str(t, "bytes");
}

/* A count or share: no display text beside the raw value, its unit named (a review: the CSV's raw
 * column had mixed bytes, tokens, sequences and 1/0 with nothing to tell them apart) */
static void row_raw(struct table *t, const char *name, const char *text, double v, const char *unit)
{
    table_row(t);
    table_str(t, name);
    table_str(t, text);
    table_num(t, v);
    table_str(t, unit);
}

int cmd_memory(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        CLI_OPT_MODEL, CLI_OPT_GPU, CLI_OPT_TP, CLI_OPT_LAYOUT,
        { OPT_BATCH, "batch", 'b', "B", "sequences that must fit at once (default 1)", false },
        { OPT_CONTEXT, "context", 'c', "C", "tokens per sequence for max batch (default 2048)", false },
        CLI_OPT_DTYPES, CLI_OPT_MEM,
        { OPT_MBT, "max-batched-tokens", 0, "N", "tokens of the largest forward, which size the activation workspace: simulate's token budget (default 2048)", false },
        { OPT_MAXSEQS, "max-seqs", 0, "N", "sequences of the largest forward (logits buffer): simulate's sequence limit (default 256)", false },
        { OPT_ENGINE, "engine", 'e', "ID", "serving-engine profile: its memory share (TensorRT-LLM's and LMDeploy's of the free memory), token budget and sequence limit, and whether its quantized weights include the LM head (default: none)", false },
        CLI_OPT_SPEC,
    };
    struct ctx x = { .have_mbt = false };
    cli_setup_defaults(&x.s);
    cli_spec_defaults(&x.sp);
    struct cli_setup_opts s;
    char *pos[1];
    int npos = 0;
    c->usage = "llmroof memory -m MODEL -g GPU [-t TP] [--context C] [-b BATCH] [options]";
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, &x, pos, 0, &npos,
                       "Per-GPU memory: weights, activation workspace, runtime reserve, KV-cache capacity in\n"
                       "bytes and tokens, and the largest batch of C-token sequences that fits; with -b, whether\n"
                       "that batch fits (the same rule as estimate and sweep).\n"
                       "  usable = visible memory * mem_util;  capacity = usable - weights - workspace - reserve\n"
                       "  (an engine with kv_of_free_memory: capacity = mem_util * (visible - weights - workspace -\n"
                       "  reserve); with kv_copy, TGI 0.8: half the capacity; with mem_static, SGLang: capacity =\n"
                       "  usable - weights, its default fraction by the GPU's memory and the instance's GPUs)\n"
                       "With --spec: the drafter's weights and its K/V per token come out of the KV cache on\n"
                       "every GPU, as estimate, simulate and plan take them.\n"
                       "For the background studies' theoretical figures use --mem-util 1 --reserve 0 --workspace 0.");
    if (rc)
        return rc;
    s = x.s;
    if (!s.model || !s.gpu)
        return cli_usage_error(c, "options '--model' and '--gpu' are required");
    /* the drafter's memory does not depend on how often its tokens are accepted: no --spec-accept
     * needed here (any value is read and left) */
    if (x.sp.method && !x.sp.have_accept)
        x.sp.have_accept = true;
    if ((rc = cli_spec_check(c, &x.sp)))
        return rc;
    if ((rc = cli_spec_needs_catalog(&x.sp) ? cli_catalog(c) : cli_catalog_pick(c, s.model, s.gpu, s.engine_name)) ||
        (rc = cli_setup_resolve(c, &s)))
        return rc;
    const struct llmroof_model *m = cli_model(c, s.model);
    if (!m)
        return 2;
    if (x.sp.method && (rc = cli_spec_resolve(c, &x.sp, m, s.eff.engine)))
        return rc;
    const struct llmroof_gpu *g = cli_gpu(c, s.gpu);
    if (!g)
        return 2;
    struct llmroof_dtypes dt = cli_model_dtypes_quiet(c, m, g, &s);
    /* the engine's KV pool as simulate and estimate set it up (sim_config_engine): its share of the
     * device, or TensorRT-LLM's and LMDeploy's share of the free memory, and the workspace of its
     * token budget and sequence limit, where the command line does not state them */
    const struct llmroof_setup setup = { m, g, (int)s.tp, dt, roofline_effs_tp(g, &s.eff, (int)s.tp), cli_layout(&s) };
    if (x.have_maxseqs && (rc = cli_engine_batch_check(c, s.eff.engine, "max-seqs", (long)x.s.mem.max_seqs)))
        return rc;
    cli_engine_mem(&s, &setup, x.have_mbt, x.have_maxseqs);
    cli_note_static_mem(c, &s);
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    /* an engine that runs nowhere on this GPU (cuda_only on an AMD one) has no KV pool to size */
    if (s.eff.engine && estimate_engine_runs(s.eff.engine->id, s.eff.engine->cuda_only, g, &err))
        return cli_fail(c, &err);
    const struct llmroof_layout lay = estimate_layout(&setup); /* with the engine's --moe-tp rule */
    s.mem.speculative = x.sp.method != NULL; /* SGLang reserves more beside a drafter */
    if ((rc = memory_eval_layout(m, g, &lay, &dt, s.context, &s.mem, &mem, &err)))
        return cli_fail(c, &err);
    struct llmroof_shard sh; /* the layout memory_eval_layout accepted: for the header and JSON */
    if ((rc = ops_shard_layout(m, &lay, &sh, &err)))
        return cli_fail(c, &err);
    if (x.sp.method) {
        /* the drafter's weights and cache out of the KV cache on every GPU, as estimate --spec takes
         * them (a reviewer asked memory whether a drafter fits, and memory had no --spec); every
         * hint below sees them (s.mem) */
        const struct llmroof_spec_decode spec = cli_spec_decode(&x.sp);
        struct llmroof_mem_opts mo = s.mem;
        mo.spec_states = spec.verify > 1 ? (double)(spec.verify - 1) : 0.0;
        if ((rc = memory_drafter(&setup, &sh, &mem, &s.mem, &spec, false, &mo.drafter_bytes, &mo.drafter_kv_bytes,
                                 &err)))
            return cli_fail(c, &err);
        /* a drafter that leaves no KV cache is this command's answer (does NOT fit), not an error:
         * estimate and simulate refuse it, having nothing to run */
        s.mem = mo;
        if ((rc = memory_eval_layout(m, g, &lay, &dt, s.context, &s.mem, &mem, &err)))
            return cli_fail(c, &err);
    }
    const int dom = g->domain_gpus > 0 ? g->domain_gpus : g->gpus_per_node;
    if (mem.gpus > dom && dom == 1) /* one GPU per node (a GH200): no domain to speak of */
        fprintf(c->errf, "llmroof: note: %d GPUs, one per node of %s: the layout spans %d nodes joined by the %s "
                         "network\n", mem.gpus, g->id, mem.gpus, g->net_kind);
    else if (mem.gpus > dom)
        fprintf(c->errf, "llmroof: note: %d GPUs exceed the %d-GPU %s domain of %s: the layout spans %d domains "
                         "joined by the %s network\n", mem.gpus, dom, link_name(g->link), g->id, (mem.gpus + dom - 1) / dom,
                g->net_kind);
    memory_fit_batch(&mem, s.batch);
    /* the same warnings as estimate: a context past the model's limit still gets numbers */
    if (m->max_context < s.context)
        fprintf(c->errf, "llmroof: warning: context %ld tokens exceeds %s's max context of %ld\n", s.context, m->id,
                m->max_context);
    if (s.tp > g->gpus_per_node)
        fprintf(c->errf, "llmroof: warning: TP %ld exceeds the %d GPU%s of one %s node\n", s.tp, g->gpus_per_node,
                g->gpus_per_node == 1 ? "" : "s", g->id);

    if (c->format == TABLE_JSON) {
        char *j = render_json_memory(m, g, (int)s.tp, s.batch, &dt, &mem, &sh, s.eff.engine, x.sp.method);
        if (!j)
            return 1;
        sbuf_append(&c->out, j);
        free(j);
        return 0;
    }
    char b1[32], b2[32];
    if (c->format == TABLE_TEXT || c->format == TABLE_MD) {
        char lay_s[96]; /* named as estimate names it: ", PP 1, EP 8, data-parallel attention" */
        ops_layout_desc(&sh, lay_s, sizeof lay_s);
        char wdesc[224];
        ckpt_weight_desc(m, &dt, wdesc, sizeof wdesc);
        char sdesc[64] = "", st[48]; /* the state dtype, when set apart from the KV's */
        ckpt_state_desc(m, &dt, st, sizeof st);
        if (st[0])
            snprintf(sdesc, sizeof sdesc, ", %s", st);
        char edesc[LLMROOF_ID_MAX + 128] = ""; /* the engine whose pool this is */
        if (s.eff.engine)
            snprintf(edesc, sizeof edesc, ", engine %s%s%s%s", s.eff.engine->id,
                     s.mem.util_of_free ? " (of the free memory)" : "",
                     s.mem.util_static ? " (weights and KV only: mem_fraction_static)" : "",
                     s.mem.kv_copy ? " (KV copied every step: half the free memory)" : "");
        /* SGLang's default fraction has 3 places (0.831 at TP 8 on an H100) */
        const bool third = fabs(mem.mem_util * 100.0 - round(mem.mem_util * 100.0)) > 1e-6;
        sbuf_printf(&c->out, "%s on %d x %s (TP %ld%s): %s, %s KV%s, context %ld tokens, mem-util %.*f%s%s%s\n",
                    m->id, mem.gpus, g->id, s.tp, lay_s, wdesc, dtype_name(dt.kv), sdesc, s.context, third ? 3 : 2,
                    mem.mem_util, edesc, x.sp.method ? ", drafter " : "", x.sp.method ? x.sp.method : "");
        if (mem.fit == LLMROOF_FIT_WEIGHTS) {
            sbuf_printf(&c->out, "does NOT fit: needs %s of weights + workspace + reserve%s per GPU, %s usable",
                        cli_fmt_bytes(mem.weights_bytes_per_gpu + mem.workspace_bytes_per_gpu + mem.reserve_bytes_per_gpu +
                                          mem.drafter_bytes_per_gpu,
                                      b1, sizeof b1),
                        mem.drafter_bytes_per_gpu > 0 ? " + drafter" : "", cli_fmt_bytes(mem.usable_bytes, b2, sizeof b2));
            /* min_tp_fit is plain TP's (memory.c): say so where a layout was asked about */
            const char *plain = lay_s[0] ? " without PP or EP" : "";
            /* an engine that runs one GPU (calm) runs none of the larger layouts the hints name */
            const long eg = s.eff.engine ? s.eff.engine->max_gpus : 0;
            if (eg > 0 && (!mem.min_tp_fit || mem.min_tp_fit > eg))
                sbuf_printf(&c->out, "; engine %s runs an instance on at most %ld GPU%s, and no layout of so few fits "
                                     "(smallest TP that fits%s: %d)\n",
                            s.eff.engine->id, eg, eg == 1 ? "" : "s", plain, mem.min_tp_fit);
            else if (mem.min_tp_fit)
                sbuf_printf(&c->out, "; smallest TP that fits%s: %d\n", plain, mem.min_tp_fit);
            else
                sbuf_printf(&c->out, "; no TP up to 64 fits%s\n", plain);
            /* pipeline stages split the layers, and with them the weights, where a larger TP cannot
             * (Llama-4-Maverick's 40 heads divide by no TP past 8; a reviewer's note: the hint named
             * only TP and narrower weights): the fewest stages, doubling from the asked layout's, at
             * this TP */
            {
                struct llmroof_layout pl = lay;
                const int pp0 = lay.pp > 1 ? lay.pp : 1;
                for (int pp = 2 * pp0; pp <= 16 && pp <= m->layers &&
                                       !(eg > 0 && (long)s.tp * pp > eg); pp *= 2) {
                    struct llmroof_memory pm;
                    struct llmroof_err pe = { 0 };
                    pl.pp = pp;
                    if (memory_eval_layout(m, g, &pl, &dt, s.context, &s.mem, &pm, &pe) == 0 &&
                        pm.fit != LLMROOF_FIT_WEIGHTS && pm.fit != LLMROOF_FIT_CONTEXT) {
                        sbuf_printf(&c->out, "fits at TP %ld with --pp %d: %d GPUs, max batch %.0f at this context\n",
                                    s.tp, pp, pm.gpus, pm.max_batch);
                        break;
                    }
                }
            }
            /* SGLang's default fraction sets aside memory per GPU of the instance (its
             * mem_fraction_static of (memory - reserve) / memory, the reserve growing with TP x PP):
             * past some size it leaves nothing, which the weights' shard is not to blame for
             * (DeepSeek-V3 at EP 256 on H200s: 0.001 of the memory, 143 MiB, beside 20 GiB) */
            const double need = mem.weights_bytes_per_gpu + mem.workspace_bytes_per_gpu + mem.reserve_bytes_per_gpu +
                                mem.drafter_bytes_per_gpu;
            if (s.mem.util_engine && mem.mem_util < 0.5 && need < 0.9 * mem.visible_bytes)
                sbuf_printf(&c->out, "the engine's default memory fraction at %d GPUs is %.3f; --mem-util 0.9 (SGLang's "
                                     "--mem-fraction-static) leaves room\n",
                            mem.gpus, mem.mem_util);
            /* the token budget's workspace, not the weights, leaves no room: the largest budget that
             * does (a reviewer's note: the hints named a larger TP or narrower weights only) */
            if (!s.mem.workspace_set && !s.mem.util_static && mem.workspace_bytes_per_gpu > 0 &&
                mem.weights_bytes_per_gpu + mem.reserve_bytes_per_gpu + mem.drafter_bytes_per_gpu < mem.usable_bytes &&
                s.mem.max_batched_tokens > 16) {
                double lo = 16, hi = s.mem.max_batched_tokens; /* lo fits a sequence (checked below), hi does not */
                struct llmroof_mem_opts mo = s.mem;
                struct llmroof_memory tm;
                struct llmroof_err e2 = { 0 };
                mo.max_batched_tokens = lo;
                if (memory_eval_layout(m, g, &lay, &dt, s.context, &mo, &tm, &e2) == 0 && tm.fits) {
                    while (hi - lo > 1) {
                        mo.max_batched_tokens = floor(0.5 * (lo + hi));
                        if (memory_eval_layout(m, g, &lay, &dt, s.context, &mo, &tm, &e2) == 0 && tm.fits)
                            lo = mo.max_batched_tokens;
                        else
                            hi = mo.max_batched_tokens;
                    }
                    sbuf_printf(&c->out, "the workspace of the %.0f-token budget takes %s: --max-batched-tokens %.0f or "
                                         "less fits a %ld-token sequence\n",
                                s.mem.max_batched_tokens, cli_fmt_bytes(mem.workspace_bytes_per_gpu, b1, sizeof b1),
                                lo >= 1024 ? 1024.0 * floor(lo / 1024.0) : lo, s.context);
                }
            }
            /* the layout's GPUs where one is asked about (EP, PP): "at TP 1" read as one GPU */
            struct ckpt_fit_hint hint; /* in the user's terms: --weight-bits asks for bits, not a dtype */
            if (ckpt_fit_hint(m, g, &lay, &dt, s.context, &s.mem, &hint) && lay_s[0])
                sbuf_printf(&c->out, "fits on these %d GPUs in %s weights (%s)\n", mem.gpus, hint.fits, hint.flag);
            else if (ckpt_fit_hint(m, g, &lay, &dt, s.context, &s.mem, &hint))
                sbuf_printf(&c->out, "fits at TP %ld in %s weights (%s)\n", s.tp, hint.fits, hint.flag);
        } else if (mem.fit == LLMROOF_FIT_CONTEXT) {
            sbuf_printf(&c->out, "does NOT fit: the KV cache holds %.0f tokens, less than one %ld-token sequence\n",
                        mem.kv_capacity_tokens_replica, s.context);
        } else if (mem.fit == LLMROOF_FIT_BATCH) {
            sbuf_printf(&c->out, "does NOT fit: batch %ld exceeds the max batch of %.0f sequence%s of %ld tokens\n",
                        s.batch, mem.max_batch, mem.max_batch == 1.0 ? "" : "s", s.context);
        } else {
            /* the KV cache's batch; an engine that runs fewer at once (calm: one) says so */
            const long eb = s.eff.engine ? s.eff.engine->max_batch : 0;
            sbuf_printf(&c->out, "fits: max batch %.0f sequence%s of %ld tokens", mem.max_batch,
                        mem.max_batch == 1.0 ? "" : "s", s.context);
            if (eb > 0 && mem.max_batch > (double)eb)
                sbuf_printf(&c->out, " in the KV cache; engine %s runs %ld at once", s.eff.engine->id, eb);
            sbuf_append(&c->out, "\n");
        }
        /* windowed layers: the capacity in this context's tokens, beside the same bytes in tokens
         * of every layer's K/V, the unit simulate's blocks count (a review read 221,634 here
         * against simulate's 116,976 for one pool of gpt-oss-120b) */
        const double held = memory_kv_tokens_held(m, &sh, (double)s.context);
        if (mem.fit != LLMROOF_FIT_WEIGHTS && held > 0 && held < 0.999 * (double)s.context)
            sbuf_printf(&c->out, "kv_capacity_tokens counts %ld-token sequences' tokens, whose windowed layers keep "
                                 "their window (%.0f tokens of every layer's K/V each); in tokens of every layer's "
                                 "K/V, simulate's unit, the cache holds %.0f\n",
                        s.context, held, floor(mem.kv_capacity_tokens * held / (double)s.context));
        sbuf_append(&c->out, "\n");
    }
    struct table t;
    table_init(&t, "");
    table_col(&t, "quantity", 0);
    table_col(&t, "value", 0);
    table_col(&t, "raw", 0);
    table_col(&t, "unit", 0);
    row_bytes(&t, "gpu_memory", mem.gpu_memory_bytes);
    row_bytes(&t, "visible", mem.visible_bytes);
    {
        /* a share: the raw column's whole numbers would read 0.9 as 1, so its raw value is text */
        char u[16], r[24];
        snprintf(u, sizeof u, "%.2f", mem.mem_util);
        snprintf(r, sizeof r, "%.6g", mem.mem_util);
        table_row(&t);
        table_str(&t, "mem_util");
        table_str(&t, u);
        table_str(&t, r);
        table_str(&t, "fraction");
    }
    /* whole bytes as the JSON prints them, floored (render_json.c: usable - weights - workspace -
     * reserve stays the capacity printed); the CSV's raw column had rounded them, a byte off the
     * JSON's (a review of session 65) */
    row_bytes(&t, "usable", floor(mem.usable_bytes));
    row_bytes(&t, "weights", mem.weights_bytes_per_gpu);
    row_bytes(&t, "workspace", mem.workspace_bytes_per_gpu);
    row_bytes(&t, "reserve", mem.reserve_bytes_per_gpu);
    if (mem.drafter_bytes_per_gpu > 0) /* --spec: its weights, out of the KV cache */
        row_bytes(&t, "drafter", mem.drafter_bytes_per_gpu);
    row_bytes(&t, "kv_capacity", floor(mem.kv_capacity_bytes_per_gpu));
    row_bytes(&t, "kv_per_token", mem.kv_bytes_per_token);
    row_bytes(&t, "kv_per_token_per_gpu", mem.kv_bytes_per_token_per_gpu);
    if (memory_kv_stage_differs(&mem)) {
        /* under PP the stage whose pool sets the blocks, where it is not the fullest: kv_capacity is
         * its pool, capacity its pool over its K/V per token (docs/model.md section 7) */
        row_raw(&t, "kv_stage", "", (double)mem.kv_stage, "stage");
        row_bytes(&t, "kv_stage_weights", mem.kv_stage_weights_bytes_per_gpu);
        row_bytes(&t, "kv_stage_per_token_per_gpu", mem.kv_stage_bytes_per_token_per_gpu);
    }
    if (mem.state_bytes_per_seq > 0) { /* recurrent layers (docs/model.md "Layer kinds") */
        row_bytes(&t, "state_per_seq", mem.state_bytes_per_seq);
        row_bytes(&t, "state_per_seq_per_gpu", mem.state_bytes_per_seq_per_gpu);
    }
    row_raw(&t, "kv_capacity_tokens", "", mem.kv_capacity_tokens, "tokens");
    if (mem.state_tokens_per_seq > 0)
        row_raw(&t, "state_tokens_per_seq", "", mem.state_tokens_per_seq, "tokens");
    if (mem.attn_dp > 1)
        row_raw(&t, "kv_capacity_tokens_replica", "", mem.kv_capacity_tokens_replica, "tokens");
    row_raw(&t, "context_len", "", (double)mem.context_len, "tokens");
    row_raw(&t, "max_batch", "", mem.max_batch, "sequences");
    if (mem.min_tp_fit)
        row_raw(&t, "min_tp_fit", "", (double)mem.min_tp_fit, "GPUs");
    row_raw(&t, "batch", "", (double)s.batch, "sequences");
    /* the answer itself, for a script reading the CSV: max_batch > 0 does not say whether --batch
     * fits (a reviewer's note; the JSON's "fits") */
    row_raw(&t, "fits", mem.fits ? "yes" : "no", mem.fits ? 1.0 : 0.0, "bool");
    cli_table(c, "memory", &t);
    table_free(&t);
    return 0;
}
