/* cmd_estimate.c - `llmroof estimate`: TTFT, TPOT, e2e, throughput, the split of each
 * phase into compute, memory and communication, and (with --ops) every operator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "serve/launch.h"
#include "model/kernel.h"
#include "model/ckpt.h"
#include "model/arch.h"
#include "model/layers.h"
#include "render/render_json.h"
#include "serve/sim.h"

enum { OPT_OPS = 1, OPT_RANGE };

struct ctx {
    struct cli_setup_opts s;
    struct cli_spec_opts sp; /* --spec and its family (cli_spec.h) */
    bool ops, range;
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    const int rc = cli_spec_opt(c, &x->sp, id, arg);
    if (rc != 1)
        return rc;
    if (id == OPT_OPS) {
        x->ops = true;
        return 0;
    }
    if (id == OPT_RANGE) {
        x->range = true;
        return 0;
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

/* One phase's row: its time split as estimate_phase_split reconciles it (compute + memory - the
 * shorter terms run under the longer + kernel + comm - hidden + overhead, and an eager engine's
 * launch wait), hidden_ms where two-batch overlap is on; comm_pct and bound count the exposed
 * communication only. */
static void phase_row(struct table *t, const char *name, const struct llmroof_phase *p,
                      const struct estimate_split *split, bool hidden_col, bool cpu_col)
{
    const struct estimate_split sp = split ? *split : estimate_phase_split(p);
    table_row(t);
    table_str(t, name);
    table_num(t, p->time_s * 1e3);
    table_num(t, p->compute_s * 1e3);
    table_num(t, p->memory_s * 1e3);
    table_num(t, sp.overlapped_s * 1e3);
    table_num(t, p->comm_s * 1e3);
    if (hidden_col)
        table_num(t, p->hidden_s * 1e3);
    table_num(t, sp.kernel_s * 1e3);
    if (cpu_col)
        table_num(t, p->cpu_wait_s * 1e3);
    table_num(t, p->overhead_s * 1e3);
    table_num(t, p->time_s > 0 ? 100.0 * sp.comm_exposed_s / p->time_s : 0.0);
    table_str(t, roofline_phase_bound_name(p));
    table_num(t, p->flops / 1e9);
    table_num(t, p->bytes / 1e9);
    table_num(t, p->comm_bytes / 1e6);
}

/* Adds one phase's operators to t; in CSV both phases share one table told apart by a
 * leading phase column (one table per CSV output). */

/* A row of the operator table that is a time alone (no FLOPs, bytes or bound): its ms and share. */
static void time_row(struct table *t, const char *phase, const char *name, double time_s, double total_s)
{
    table_row(t);
    if (phase)
        table_str(t, phase);
    table_str(t, name);
    for (int e = 0; e < 5; e++)
        table_empty(t);
    table_num(t, time_s * 1e3);
    table_num(t, total_s > 0 ? 100.0 * time_s / total_s : 0.0);
    table_str(t, "");
}
static void ops_rows(struct table *t, const char *phase, const struct llmroof_oplist *ops, const struct llmroof_phase *p)
{
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_op *op = &ops->op[k];
        if (op->count <= 0)
            continue;
        table_row(t);
        if (phase)
            table_str(t, phase);
        table_str(t, op_name((enum llmroof_opkind)k));
        table_num(t, op->count);
        table_num(t, op->count * op->flops / 1e9);
        /* the bytes charged (the engine's extra traffic included), as the time uses them */
        table_num(t, p->op[k].bytes / 1e6);
        table_num(t, p->op[k].comm_bytes / 1e6);
        if (p->op[k].bytes > 0)
            table_num(t, op->count * op->flops / p->op[k].bytes);
        else
            table_empty(t);
        table_num(t, p->op[k].time_s * 1e3);
        table_num(t, p->time_s > 0 ? 100.0 * p->op[k].time_s / p->time_s : 0.0);
        table_str(t, bound_name(p->op[k].bound));
    }
    /* two-batch overlap: the all-to-all time the other micro-batch's operators hide, taken back so
     * that the shares add to 100% (the all_to_all row keeps its own time; the phase does not) */
    if (p->a2a_overlap && p->hidden_s > 0)
        time_row(t, phase, "all_to_all_hidden", -p->hidden_s, p->time_s);
    /* an eager engine's kernel launches beyond the step's GPU time: the GPU waits for them */
    if (p->cpu_wait_s > 0)
        time_row(t, phase, "cpu_launch_wait", p->cpu_wait_s, p->time_s);
    /* the last row: the phase's fixed overhead */
    time_row(t, phase, "overhead", p->overhead_s, p->time_s);
}

static void ops_cols(struct table *t, bool phase)
{
    if (phase)
        table_col(t, "phase", 0);
    table_col(t, "op", 0);
    table_col(t, "count", 0);
    table_col(t, "GFLOP", 3);
    table_col(t, "MB", 3);
    table_col(t, "comm_MB", 3);
    table_col(t, "FLOP_per_byte", 1);
    table_col(t, "time_ms", 4);
    table_col(t, "share_pct", 1);
    table_col(t, "bound", 0);
}

/* --ops: text and Markdown print a titled table per phase; CSV one "ops" table. */
static void ops_tables(struct cli *c, const struct llmroof_estimate *e)
{
    struct table t;
    if (c->format == TABLE_CSV) {
        table_init(&t, "");
        ops_cols(&t, true);
        ops_rows(&t, "prefill", &e->prefill_ops, &e->prefill);
        if (e->decode_steps > 0)
            ops_rows(&t, "decode", &e->decode_ops, &e->decode);
        cli_table(c, "ops", &t);
        table_free(&t);
        return;
    }
    for (int ph = 0; ph < (e->decode_steps > 0 ? 2 : 1); ph++) {
        table_init(&t, ph ? "decode operators (mean step, summed over layers, per GPU)"
                          : "prefill operators (summed over layers, per GPU)");
        ops_cols(&t, false);
        ops_rows(&t, NULL, ph ? &e->decode_ops : &e->prefill_ops, ph ? &e->decode : &e->prefill);
        sbuf_append(&c->out, "\n");
        cli_table(c, "ops", &t);
        table_free(&t);
    }
}

/* simulate prefills at most its token budget a step (the engine's, or its own default without
 * one), each step reading the weights again, where this estimate prefills its batch in one pass:
 * the steps simulate takes for it and that budget per attention replica (*budget_out; 0 where a
 * static batch is prefilled whole, one step), whether it chunks prompts (*chunked), and where more
 * than one step the sentence that says so. Chunked, the prompts' tokens fill budget-token steps;
 * whole prompts (vLLM V0, TGI, TensorRT-LLM without chunking) pack floor(budget / prompt) to a step,
 * at most max_seqs, and a prompt longer than the budget runs alone. The budget is the instance's
 * over its DP ranks (vLLM V1's ranks hold their own; docs/metrics.md: SGLang's rule). A reviewer:
 * simulate's TTFT 32% above estimate's for DeepSeek-V3 at EP 8 with DP attention, each 1,024-token
 * chunk streaming every expert; without an engine it had gone unsaid (80.8 ms here, 172.6 in
 * simulate: 256 tokens a replica, 4 chunks); a JSON user had not read it at all, nor anyone the
 * packing of whole prompts (reviews of session 70). */
static long prefill_split_note(const struct llmroof_setup *setup, const struct llmroof_layout *lay,
                               const struct llmroof_engine *engine, const struct llmroof_gpu *g,
                               const struct llmroof_request *req, char *buf, size_t n, long *budget_out,
                               bool *chunked)
{
    struct sim_config sc;
    sim_default_config(&sc);
    sc.setup = *setup;
    if (engine)
        sim_config_engine(&sc, engine, g, false, false);
    const int rep = ops_layout_attn_dp(lay, setup->tp);
    const long budget = sim_rank_share(&sc, rep, sc.max_batched_tokens);
    const double seqs = estimate_busiest_seqs((double)req->batch, rep), tokens = seqs * (double)req->prompt;
    buf[0] = '\0';
    *chunked = sc.chunked_prefill && !sc.static_batching;
    *budget_out = sc.static_batching || !(budget > 0) ? 0 : budget;
    if (!*budget_out)
        return 1;
    long steps;
    double per = 0;
    if (*chunked) {
        steps = tokens > (double)budget ? (long)ceil(tokens / (double)budget) : 1;
    } else {
        per = req->prompt > budget ? 1.0 : floor((double)budget / (double)req->prompt);
        if (sc.max_seqs > 0 && per > (double)sc.max_seqs)
            per = (double)sc.max_seqs;
        steps = (long)ceil(seqs / per - 1e-9);
    }
    if (steps <= 1)
        return steps;
    const char *r = rep > 1 ? " per attention replica" : "";
    if (!*chunked)
        snprintf(buf, n, "engine %s prefills whole prompts, at most %ld tokens a step%s (a longer prompt alone): "
                         "'llmroof simulate' runs these %.0f prompts in %ld steps of up to %.0f, each reading the "
                         "weights again; this prefill is one pass",
                 engine ? engine->id : "?", budget, r, seqs, steps, per);
    else if (engine)
        snprintf(buf, n, "engine %s prefills at most %ld tokens a step%s: 'llmroof simulate' splits these %.0f "
                         "prompt tokens into %ld steps, each reading the weights again; this prefill is one pass",
                 engine->id, budget, r, tokens, steps);
    else
        snprintf(buf, n, "with no engine, 'llmroof simulate' prefills at most %ld tokens a step%s (its "
                         "--max-batched-tokens %ld%s): it splits these %.0f prompt tokens into %ld steps, each "
                         "reading the weights again; this prefill is one pass",
                 budget, r, sc.max_batched_tokens, rep > 1 ? " over the replicas" : "", tokens, steps);
    return steps;
}

int cmd_estimate(struct cli *c, int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        CLI_OPT_MODEL, CLI_OPT_GPU, CLI_OPT_TP, CLI_OPT_LAYOUT, CLI_OPT_BATCH, CLI_OPT_PROMPT, CLI_OPT_OUTPUT,
        CLI_OPT_DTYPES, CLI_OPT_EFFS, CLI_OPT_MEM, CLI_OPT_SPEC,
        { OPT_OPS, "ops", 0, NULL, "add per-operator tables for prefill and the mean decode step", false },
        { OPT_RANGE, "range", 0, NULL, "add a low-high band from the validation residuals (docs/validation.md)", false },
    };
    struct ctx x;
    memset(&x, 0, sizeof x);
    cli_setup_defaults(&x.s);
    cli_spec_defaults(&x.sp);
    char *pos[1];
    int npos = 0;
    static const char *const tables[] = { "metrics", "phases", "ops", NULL };
    c->tables = tables;
    c->usage = "llmroof estimate -m MODEL -g GPU [-t TP] [-b BATCH] [-p PROMPT] [-o OUTPUT] [options]";
    int rc = cli_parse(c, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), on_opt, &x, pos, 0, &npos,
                       "Roofline estimate of one static batch: TTFT (prefill of B prompts), TPOT (mean decode\n"
                       "step over output tokens 2..O as the context grows), e2e and throughput, with each\n"
                       "phase split into compute, memory and communication time. Formulas: docs/model.md.");
    if (rc)
        return rc;
    if (!x.s.model || !x.s.gpu)
        return cli_usage_error(c, "options '--model' and '--gpu' are required");
    if ((rc = cli_spec_check(c, &x.sp)))
        return rc;
    /* a draft model is a second catalog entry: the whole catalog, not the picked ones */
    if ((rc = cli_spec_needs_catalog(&x.sp) ? cli_catalog(c) : cli_catalog_pick(c, x.s.model, x.s.gpu, x.s.engine_name)) ||
        (rc = cli_setup_resolve(c, &x.s)))
        return rc;
    const struct llmroof_model *m = cli_model(c, x.s.model);
    if (!m)
        return 2;
    if (x.sp.method && (rc = cli_spec_resolve(c, &x.sp, m, x.s.eff.engine)))
        return rc;
    const struct llmroof_spec_decode spec = x.sp.method ? cli_spec_decode(&x.sp) : (struct llmroof_spec_decode){ 0 };
    const struct llmroof_gpu *g = cli_gpu(c, x.s.gpu);
    if (!g)
        return 2;

    /* the engine's graph limit on this GPU at this TP (SGLang's cuda_graph_max_bs by GPU memory),
     * as simulate sets up its instances (roofline_effs_tp) */
    struct llmroof_setup setup = { m, g, (int)x.s.tp, cli_model_dtypes(c, m, g, &x.s),
                                   roofline_effs_tp(g, &x.s.eff, (int)x.s.tp), cli_layout(&x.s) };
    cli_note_arch(c, g, x.s.eff.engine);
    struct llmroof_request req = { x.s.batch, x.s.prompt, x.s.output };
    struct llmroof_estimate e;
    struct llmroof_err err = { 0 };
    if ((rc = estimate_run_spec(&setup, &req, x.sp.method ? &spec : NULL, &e, &err)))
        return cli_fail(c, &err);
    if (x.sp.method && e.decode_steps <= 0) /* review19 item 8: said, not dropped in silence */
        /* the drafter still takes the prompt (TTFT) and its memory (a review: "changes nothing" beside
         * a TTFT and a max batch that it had changed) */
        fprintf(c->errf, "llmroof: note: --output %ld leaves no decode step, so --spec %s speeds nothing up; its "
                         "drafter's pass over the prompt (TTFT) and its memory are still counted\n",
                x.s.output, x.sp.method);
    else if (e.decode_steps <= 0) /* a TPOT of 0 would pass any per-token SLO: none is printed */
        fprintf(c->errf, "llmroof: note: --output %ld leaves no decode step: tpot and decode_tok_s are n/a (null in "
                         "JSON; give --output 2 or more to time decoding)\n", x.s.output);
    struct llmroof_memory mem;
    long ctx_len = x.s.prompt + x.s.output;
    /* the engine's KV pool as simulate sets it up (sim_config_engine): its share of the device, or
     * TensorRT-LLM's and LMDeploy's share of the free memory, and the workspace of its token
     * budget and sequence limit */
    cli_engine_mem(&x.s, &setup, false, false);
    cli_note_static_mem(c, &x.s);
    const struct llmroof_layout lay = estimate_layout(&setup); /* with the engine's --moe-tp rule */
    x.s.mem.speculative = x.sp.method != 0; /* SGLang reserves more beside a drafter: the fit checks below see it */
    if ((rc = memory_eval_layout(m, g, &lay, &setup.dt, ctx_len, &x.s.mem, &mem, &err)))
        return cli_fail(c, &err);
    struct llmroof_mem_opts fit_mo = x.s.mem; /* the fit hint's: the drafter's weights too */
    if (x.sp.method) {
        /* the drafter's weights and cache come out of the KV cache, on every GPU, as the simulator
         * takes them (serve/sim.c): a draft model its own; an EAGLE head or MTP module about one
         * layer and one attention layer's K/V per token; Medusa's heads their residual blocks and
         * vocabulary projections (ops_medusa_bytes), no cache */
        struct llmroof_mem_opts mo = x.s.mem;
        /* a model with recurrent layers keeps a state per draft position beside each sequence's own
         * (serve/sim.h sim_spec_state_copies: the verified positions less its own) */
        mo.spec_states = spec.verify > 1 ? (double)(spec.verify - 1) : 0.0;
        if ((rc = memory_drafter(&setup, &e.shard, &mem, &x.s.mem, &spec, false, &mo.drafter_bytes,
                                 &mo.drafter_kv_bytes, &err)))
            return cli_fail(c, &err);
        if (spec.draft && mo.drafter_bytes >= mem.kv_capacity_bytes_per_gpu)
            return cli_usage_error(c, "option '--spec': the draft model %s (%.2f GiB of weights per GPU) does not "
                                      "fit beside %s on %d x %s: no memory is left for the KV cache; use a smaller "
                                      "draft",
                                   spec.draft->id, mo.drafter_bytes / 1073741824.0, m->id, mem.gpus, g->id);
        if ((rc = memory_eval_layout(m, g, &lay, &setup.dt, ctx_len, &mo, &mem, &err)))
            return cli_fail(c, &err);
        fit_mo = mo;
    }
    memory_fit_batch(&mem, req.batch);

    /* the layout's GPUs (memory's: EP, PP), not one replica's TP: DeepSeek-V3 at EP 8 with
     * data-parallel attention is 8 GPUs (before session 38 the warning said "1 x h800") */
    struct ckpt_fit_hint hint; /* in the user's terms: --weight-bits 4.5 is "4.5-bit", not fp16 */
    /* the drafter's weights stay at their own dtype whatever the target's (a review: Medusa's 64
     * heads, 64.6 GiB at 16 bits, had been left out and the hint blamed the target's fp16) */
    if (mem.fit == LLMROOF_FIT_WEIGHTS && ckpt_fit_hint(m, g, &lay, &setup.dt, ctx_len, &fit_mo, &hint))
        fprintf(c->errf, "llmroof: warning: %s does not fit on %d x %s in %s weights at a %ld-token context; it fits "
                         "in %s (%s)\n",
                m->id, mem.gpus, g->id, hint.asked, ctx_len, hint.fits, hint.flag);
    else if (mem.fit == LLMROOF_FIT_WEIGHTS || mem.fit == LLMROOF_FIT_CONTEXT)
        fprintf(c->errf, "llmroof: warning: %s does not fit on %d x %s at a %ld-token context%s (see 'llmroof memory')\n",
                m->id, mem.gpus, g->id, ctx_len,
                fit_mo.drafter_bytes > 0 ? " with its drafter's weights, which stay at their own dtype" : "");
    else if (mem.fit == LLMROOF_FIT_BATCH)
        fprintf(c->errf, "llmroof: warning: batch %ld exceeds the KV-cache limit of %.0f sequences at a %ld-token "
                        "context: not servable at once\n", req.batch, mem.max_batch, ctx_len);
    const int dom = g->domain_gpus > 0 ? g->domain_gpus : g->gpus_per_node;
    if (e.shard.gpus > dom && dom == 1) /* one GPU per node (a GH200): nothing is hierarchical */
        fprintf(c->errf, "llmroof: note: %d GPUs, one per node of %s: every collective, all-to-all and stage send "
                        "crosses the %s network (%.0f GB/s per GPU)\n",
                e.shard.gpus, g->id, g->net_kind, g->net_bw_Bps / 1e9);
    else if (e.shard.gpus > dom && e.shard.mlp_gather) /* --moe-tp: no all-to-all, the MLPs' gather */
        fprintf(c->errf, "llmroof: note: %d GPUs exceed the %d-GPU %s domain of %s: the MLPs' gather and scatter "
                        "beyond it are hierarchical and stage sends cross the %s network (%.0f GB/s per GPU)\n",
                e.shard.gpus, dom, link_name(g->link), g->id, g->net_kind, g->net_bw_Bps / 1e9);
    else if (e.shard.gpus > dom)
        fprintf(c->errf, "llmroof: note: %d GPUs exceed the %d-GPU %s domain of %s: TP collectives beyond it are "
                        "hierarchical and all-to-all and stage sends cross the %s network (%.0f GB/s per GPU)\n",
                e.shard.gpus, dom, link_name(g->link), g->id, g->net_kind, g->net_bw_Bps / 1e9);
    if (m->max_context < ctx_len)
        fprintf(c->errf, "llmroof: warning: prompt + output = %ld tokens exceeds %s's max context of %ld\n",
                ctx_len, m->id, m->max_context);

    struct llmroof_uncertainty u = { { 0 }, { 0 }, { 0 }, { 0 }, { 0 }, { 0 } };
    if (x.range && (rc = cli_uncertainty(c, &u)))
        return rc;
    if (c->format == TABLE_JSON) {
        /* the steps of the prose's note, for a caller that reads JSON alone (a review) */
        char note[400];
        long budget = 0;
        bool chunked = false;
        const long steps =
            prefill_split_note(&setup, &lay, x.s.eff.engine, g, &req, note, sizeof note, &budget, &chunked);
        char *j = render_json_estimate(&setup, &req, &e, &mem, x.range ? &u : NULL, steps, budget, chunked);
        if (!j)
            return 1;
        sbuf_append(&c->out, j);
        free(j);
        return 0;
    }

    char b1[32], b2[32];
    if (c->format == TABLE_TEXT || c->format == TABLE_MD) {
        char wdesc[224], cdesc[112];
        ckpt_weight_desc(m, &setup.dt, wdesc, sizeof wdesc);
        ckpt_compute_desc(m, g, &setup.dt, cdesc, sizeof cdesc);
        char lay_s[96];
        ops_layout_desc(&e.shard, lay_s, sizeof lay_s); /* as memory's and simulate's headers */
        char sdesc[64] = "", st[48]; /* the state dtype, when set apart from the KV's */
        ckpt_state_desc(m, &setup.dt, st, sizeof st);
        if (st[0])
            snprintf(sdesc, sizeof sdesc, ", %s", st);
        sbuf_printf(&c->out, "%s on %d x %s (TP %d%s): batch %ld, prompt %ld, output %ld; %s, %s KV%s, %s\n",
                    m->id, e.shard.gpus, g->id, setup.tp, lay_s, req.batch, req.prompt, req.output, wdesc,
                    dtype_name(setup.dt.kv), sdesc, cdesc);
        sbuf_printf(&c->out, "efficiency: compute %.2f", setup.eff.compute);
        /* 8-bit GEMMs run at their own share of the 8-bit peak (docs/model.md 3a, gemm_8bit): print the
         * share they get, or the line reads as if an fp8 run reached the 16-bit figure */
        enum llmroof_dtype gd = setup.dt.act, low;
        /* a checkpoint whose GEMMs run on a path of their own (block fp8, NVFP4): that path's share */
        if (ops_ckpt_lowp_modules(m, &setup.dt, &low) && low != setup.dt.act && ckpt_gpu_native(m, low, g))
            gd = low;
        const double s8 = kernel_gemm_dtype_scale(g, gd);
        if (s8 != 1.0)
            sbuf_printf(&c->out, " (%s GEMMs %.2f)", dtype_name(gd), setup.eff.compute * s8);
        sbuf_printf(&c->out, ", memory %.2f, comm %.2f; overhead %.0f us per step", setup.eff.memory, setup.eff.comm,
                    roofline_step_overhead_s(&setup.eff, setup.tp) * 1e6);
        if (x.s.eff.engine)
            sbuf_printf(&c->out, "; engine %s (+%.1f ms to first token)", x.s.eff.engine->id, setup.eff.first_token_s * 1e3);
        /* the CUDA-graph limit in force (roofline_graph_max: the engine's, or its GPU-memory band's):
         * one sequence past it the decode runs eager and TPOT steps up (SGLang on an H100: batch
         * 160 2.2 ms, 161 4.4 ms), which the reader cannot explain without the limit */
        if (setup.eff.graphs && setup.eff.graph_max > 0) {
            const bool tok = setup.eff.graph_piecewise; /* vLLM V1: any step's tokens, not sequences */
            /* the decode step the limit applies to, as roofline's rl_launch sizes it (the operator
             * list's tokens on one rank): one pipeline micro-batch of ceil(B / n) (a step of B past
             * the limit can replay its graphs at PP 2), and with data-parallel attention the busiest
             * replica's own sequences (each replica replays its own graph; the header had said
             * "eager" for 1,024 sequences over 8 replicas of 128 that the costing replayed) */
            double step = ceil((double)req.batch / (e.micro_batches > 1 ? e.micro_batches : 1.0) - 1e-9);
            if (e.shard.attn_dp > 1)
                step = estimate_busiest_seqs(step, e.shard.attn_dp);
            sbuf_printf(&c->out, "; CUDA graphs up to %s%.0f%s%s", tok ? "" : "batch ", setup.eff.graph_max,
                        tok ? " tokens" : "",
                        step > setup.eff.graph_max ? " (this batch's decode runs eager)"
                        : !tok && !roofline_graph_has_batch(&setup.eff, step)
                            ? " (no graph of this batch size: its decode runs eager)"
                            : "");
        }
        /* the engine's per-sequence CPU work each step (roofline_cpu_step_s): what grows with the batch */
        if (setup.eff.cpu_seq_s + setup.eff.worker_seq_s > 0 || setup.eff.cpu_output_s > 0)
            sbuf_printf(&c->out, "; CPU per sequence a step: scheduling %.0f us (%.0f%% beside the GPU), output %.0f us "
                                 "(%.0f%%)",
                        (setup.eff.cpu_seq_s + setup.eff.worker_seq_s *
                                                   ((double)setup.tp * (setup.layout.pp > 1 ? setup.layout.pp : 1) > 1 ||
                                                            setup.eff.ray_workers
                                                        ? (double)setup.tp * (setup.layout.pp > 1 ? setup.layout.pp : 1)
                                                        : 0.0)) *
                            1e6,
                        /* speculating under spec_no_overlap, scheduling runs between the steps
                         * (roofline_cpu_step_s): say so, not the profile's overlap */
                        100.0 * (x.sp.method && setup.eff.spec_no_overlap ? 0.0 : setup.eff.cpu_overlap),
                        setup.eff.cpu_output_s * 1e6, 100.0 * setup.eff.cpu_output_overlap);
        if (e.kv_copy_s > 0) /* TGI 0.8: in TPOT, outside the decode phase's operators */
            sbuf_printf(&c->out, "; contiguous K/V copied every decode step: %.3f ms (kv_copy)", e.kv_copy_s * 1e3);
        if (setup.eff.ray_engine)
            sbuf_append(&c->out, "; engine in a Ray actor (--engine-use-ray)");
        else if (setup.eff.ray_workers) /* the profile's: its step is a remote call at any TP */
            sbuf_append(&c->out, "; each GPU a Ray actor called every step (ray_workers)");
        /* the host the engine's CPU work runs at (docs/model.md "Host CPU"), where it is not the
         * reference and that work is in play; the host named first: "0.81 x the reference's speed
         * (EPYC 7742)" read as if the EPYC were the reference (a README review; it is a Xeon 8480C) */
        if (x.s.eff.engine && setup.eff.cpu_scale > 0 && setup.eff.cpu_scale != 1.0) {
            if (x.s.eff.host_cpu_speed > 0)
                sbuf_printf(&c->out, "; host CPU %.2f x the reference Xeon 8480C's speed (--host-cpu-speed)",
                            1.0 / setup.eff.cpu_scale);
            else
                sbuf_printf(&c->out, "; host CPU %s, %.2f x the reference Xeon 8480C's speed", g->host_cpu,
                            1.0 / setup.eff.cpu_scale);
        }
        sbuf_append(&c->out, "\n");
        /* a masked-MHA engine's decode attention computes on CUDA cores (docs/model.md 3a): say at what
         * rate, or its attention row reads compute-bound at 1 FLOP per byte for no visible reason */
        if (setup.eff.attn_decode_peak > 0 && !arch_is_mla(m))
            sbuf_printf(&c->out, "note: engine %s decodes attention with a masked-MHA kernel in fp32 on CUDA cores: "
                                 "%.2f TFLOP/s (%.3f x the fp32 peak%s)\n",
                        x.s.eff.engine ? x.s.eff.engine->id : "", setup.eff.attn_decode_peak * 1e-12,
                        KERNEL_MMHA_FP32_SHARE * kernel_fp32_issue_share(g->arch),
                        kernel_fp32_issue_share(g->arch) < 1.0 ? ", half for 128 FP32 lanes per SM" : "");
        /* a fused weight-only GEMM's unpacking (docs/model.md "Weight-only GEMMs"): it makes a 4-bit
         * decode compute-bound at 1 FLOP per 4 bits read, which the table alone leaves unexplained */
        if (setup.eff.wo_issue_per_flop > 0 && ops_dequant_ratio(&setup.dt) >= KERNEL_WO_MIN_RATIO &&
            g->has_peak[LLMROOF_FP32]) {
            sbuf_printf(&c->out, "note: engine %s unpacks the weights inside its GEMM kernel on CUDA cores, once per %.0f-row "
                                 "tile: %.2f instruction slots per tensor FLOP at %.2f T slots/s (the fp32 peak%s)",
                        x.s.eff.engine ? x.s.eff.engine->id : "", KERNEL_WO_TILE_ROWS, setup.eff.wo_issue_per_flop,
                        g->peak_flops[LLMROOF_FP32] * kernel_fp32_issue_share(g->arch) * 1e-12,
                        kernel_fp32_issue_share(g->arch) < 1.0 ? ", half for 128 FP32 lanes per SM" : "");
            if (setup.eff.dequant_min_tokens > 0)
                sbuf_printf(&c->out, "; steps of %.0f tokens or more dequantize to 16 bits instead", setup.eff.dequant_min_tokens);
            sbuf_append(&c->out, "\n");
        }
        if (e.prefill.cpu_wait_s > 0 && e.prefill.launch_s > 0) {
            /* TTFT bound by the host, not the GPU: the eager prompt step's launches outlast its
             * kernels (docs/model.md "CUDA-graph coverage"; SGLang's DeepSeek prompts) */
            const double per = e.shard.pp > 1 ? 0.0 : e.prefill.launch_s - e.prefill.cpu_wait_s;
            sbuf_printf(&c->out, "note: the prefill is CPU-bound: its kernels take %.3f ms to launch", e.prefill.launch_s * 1e3);
            if (per > 0)
                sbuf_printf(&c->out, " against %.3f ms of GPU work", per * 1e3);
            sbuf_append(&c->out, " (a step no CUDA graph replays: engine launch_s, launch_mla_s)\n");
        }
        if (e.first_step_s > 0)
            sbuf_printf(&c->out, "note: engine %s samples the first token from a decode step after the prefill; "
                                 "TTFT includes that step's %.3f ms\n",
                        x.s.eff.engine ? x.s.eff.engine->id : "", e.first_step_s * 1e3);
        if (e.shard.pp > 1) {
            /* "2 stages of 40 layers", "of 30-31 layers", "of 1 layer"; "1 micro-batch" */
            char stage_lay[64];
            if (e.shard.stage_layers_min == e.shard.stage_layers_max)
                snprintf(stage_lay, sizeof stage_lay, "%ld layer%s", e.shard.stage_layers_min, e.shard.stage_layers_min == 1 ? "" : "s");
            else
                snprintf(stage_lay, sizeof stage_lay, "%ld-%ld layers", e.shard.stage_layers_min, e.shard.stage_layers_max);
            sbuf_printf(&c->out, "note: %d stages of %s; %.0f micro-batch%s; prefill bubble %.3f ms\n", e.shard.pp, stage_lay,
                        e.micro_batches, e.micro_batches == 1 ? "" : "es", e.pp_bubble_s * 1e3);
        }
        if (!e.has_spec && e.decode_steps > 0 && e.shard.pp <= 1 && (e.kv_copy_s > 0 || e.cpu_step_s > 0)) {
            /* TPOT holds more than the decode phase's operators (the table below): name the rest */
            char kv[80] = "", cpu[80] = "";
            if (e.kv_copy_s > 0)
                snprintf(kv, sizeof kv, " + contiguous K/V copy %.3f (kv_copy)", e.kv_copy_s * 1e3);
            if (e.cpu_step_s > 0)
                snprintf(cpu, sizeof cpu, " + engine CPU work %.3f the GPU does not hide", e.cpu_step_s * 1e3);
            sbuf_printf(&c->out, "note: TPOT %.3f ms = decode_step_mean %.3f%s%s\n", e.tpot_s * 1e3, e.decode.time_s * 1e3,
                        kv, cpu);
        }
        if (e.has_spec && e.decode_steps > 0) {
            /* the speculative configuration and what a step yields (docs/metrics.md "estimate with
             * speculative decoding") */
            char tree[48] = "", pre[80] = "";
            if (e.draft_prefill_s > 0) /* Medusa's heads read no prompt */
                snprintf(pre, sizeof pre, "; the drafter's pass over the prompt adds %.3f ms to TTFT",
                         e.draft_prefill_s * 1e3);
            if (e.spec.topk > 0)
                snprintf(tree, sizeof tree, ", tree topk %d", e.spec.topk);
            if (e.spec.eagle3_vocab > 0)
                snprintf(tree + strlen(tree), sizeof tree - strlen(tree), ", draft vocabulary %ld", e.spec.eagle3_vocab);
            char own[160] = ""; /* --spec-draft-config: the head's own layer */
            if (e.spec.head.heads > 0)
                snprintf(own, sizeof own, ", draft layer %ld query / %ld KV heads of %ld, MLP %ld",
                         e.spec.head.heads, e.spec.head.kv_heads, e.spec.head.head_dim, e.spec.head.intermediate);
            /* a drafter whose weights are not the target's dtype (a head apart, a draft model) */
            const struct llmroof_dtypes ddt = estimate_drafter_dtypes(&setup.dt, &e.spec);
            ckpt_drafter_desc(&setup.dt, &ddt, own + strlen(own), sizeof own - strlen(own));
            sbuf_printf(&c->out, "note: speculative decoding %s%s%s, k %d%s%s, acceptance %.2f: each step verifies %d "
                                 "tokens per sequence and yields %.3f on average%s; step %.3f ms (verification %.3f + "
                                 "draft %.3f), TPOT = step / %.3f%s\n",
                        e.spec.method, e.spec.draft ? " " : "", e.spec.draft ? e.spec.draft->id : "", e.spec.steps,
                        tree, own, e.spec.accept, e.spec.verify, e.tokens_per_step,
                        e.spec.topk > 1 ? " (the tree's upper bound: every candidate rank accepted at the acceptance; "
                                          "measured acceptance falls with rank)" : "",
                        e.step_s * 1e3, e.decode.time_s * 1e3, e.draft.time_s * 1e3, e.tokens_per_step, pre);
        }
        /* the busiest EP rank's routed assignments over the mean, which set the step: uniform
         * routing's expected largest at this batch unless --ep-imbalance gives a measured skew (a
         * review: at small batches the default's skew, never shown, exceeded an explicit 1.5, so
         * stating DeepSeek's measured 1.1-1.3 read faster than saying nothing) */
        if (e.shard.ep > 1 && arch_moe_layers(m) > 0 && e.prefill_ops.ep_busy > 0) {
            sbuf_printf(&c->out, "note: EP %d: the busiest rank holds %.2fx the mean routed assignments in the prefill",
                        e.shard.ep, e.prefill_ops.ep_busy);
            if (req.output > 1 && e.decode_ops.ep_busy > 0)
                sbuf_printf(&c->out, ", %.2fx in a decode step", e.decode_ops.ep_busy);
            sbuf_append(&c->out, e.shard.ep_imbalance >= 1.0 ? " (--ep-imbalance)\n"
                                                            : " (uniform routing's expected largest at this batch; "
                                                              "--ep-imbalance F sets a measured skew)\n");
            /* DeepEP's dispatch and combine are what the all-to-all costs; where they do not run
             * (AMD, Ampere, PCIe) the engines take their default expert path (plan's launch note
             * says the same; a review: estimate priced them on an MI300X unsaid) */
            if (e.prefill_ops.op[LLMROOF_OP_ALL_TO_ALL].count > 0 && !launch_deepep_runs(g))
                sbuf_printf(&c->out, "note: the all-to-all is costed as DeepEP's kernels, which need NVLink-joined "
                                     "Hopper or Blackwell GPUs: on %s the engines run their default expert path "
                                     "(all-gather or all-reduce), not costed apart\n",
                            g->id);
        }
        /* the latent has no head axis to split: each TP rank of a replica holds all of it (at TP
         * 1 there is nothing to replicate; a reviewer read "each TP rank" at -t 1 --dp-attention) */
        const char *mla_rep = setup.tp > 1 ? ", replicated on each TP rank" : "";
        if (arch_is_mla(m) && m->dsa_top_k > 0) {
            /* SGLang's prompts within top-k keys run dense (shard dsa_dense_prefill) */
            const bool dense = !e.prefill_ops.mla_absorbed;
            /* the indexer's scores over every past key are whole on each TP rank (vLLM's and SGLang's
             * Indexer is replicated): at long prompts they set the prefill, and TP does not split them
             * (a reviewer read V3.2 at TP 8 barely beating R1 at 120K tokens as a modelling error) */
            sbuf_printf(&c->out, "note: MLA caches the %ld-wide latent + %ld rope key per layer and the indexer its "
                                 "%ld-wide fp8 key with scales (%.0f B)%s; sparse attention "
                                 "runs absorbed (MQA mode)%s%s\n",
                        m->kv_lora_rank, m->qk_rope_dim, m->dsa_head_dim, layers_dsa_key_bytes(m), mla_rep,
                        dense ? "; these prompts, within its top-k keys, run dense (decompressed, the indexer unscored: "
                                "the engine's dsa_dense_short_prefill)"
                              : ", prefill too",
                        setup.tp > 1 ? "; the indexer scores every past key whole on each TP rank (TP does not split "
                                       "it; data-parallel attention replicas split the sequences)"
                                     : "");
            /* vLLM's FlashMLA sparse kernels: padded heads, the whole top-k list (roofline.h
             * roofline_dsa_flop_scale), a 2-8x on attention a reader cannot see in the op table's
             * FLOPs (a reviewer's: the same GFLOP, 4.6x the time) */
            const int hm = roofline_dsa_head_multiple(g, &setup.eff);
            const bool po = !setup.eff.dsa_flashmla_pad;
            const double fp = roofline_dsa_flop_scale(hm, po, &e.prefill_ops), fd = roofline_dsa_flop_scale(hm, po, &e.decode_ops);
            if (fp > 1.0 + 1e-9 || fd > 1.0 + 1e-9)
                sbuf_printf(&c->out, "note: engine %s runs this sparse attention%s in FlashMLA's kernels with the query "
                                     "heads padded (%.0f a rank to a multiple of %d%s) and each query's whole %ld-entry "
                                     "top-k list computed: attention takes x%.2f its FLOPs in the prefill, x%.2f in a "
                                     "decode step (the op table lists the FLOPs without it)\n",
                            setup.eff.engine_id ? setup.eff.engine_id : "?", po ? " (its prompts')" : "",
                            e.prefill_ops.attn_heads, hm, po ? "" : ", or the fp8 decode kernel's 64/128", m->dsa_top_k,
                            fp, fd);
        } else if (arch_is_mla(m))
            sbuf_printf(&c->out, "note: MLA caches the %ld-wide latent + %ld rope key per layer%s; decode runs "
                                 "absorbed, prefill decompressed\n",
                        m->kv_lora_rank, m->qk_rope_dim, mla_rep);
        /* two-batch overlap hides the all-to-all but runs every other operator twice, each half
         * streaming the experts it touches: where that costs more than it hides, say so (a
         * reviewer: TPOT 38.5 -> 65.0 ms at EP 8 on one node, batch 256, read as a defect) */
        if (setup.layout.two_batch_overlap) {
            struct llmroof_setup one = setup;
            one.layout.two_batch_overlap = false;
            struct llmroof_estimate e1;
            struct llmroof_err e1err = { 0 };
            if (estimate_run_spec(&one, &req, x.sp.method ? &spec : NULL, &e1, &e1err) == 0) {
                /* each phase apart: a small prefill can lose where the decode wins, and the
                 * reverse (a reviewer: TTFT 90 -> 111 ms went unsaid) */
                for (int ph = 0; ph < 2; ph++) {
                    const bool dec = ph == 1;
                    if (dec && !(e.decode_steps > 0 && e1.decode_steps > 0))
                        continue;
                    const double with = dec ? e.tpot_s : e.ttft_s, without = dec ? e1.tpot_s : e1.ttft_s;
                    /* a prefill-type step's GEMMs also run on the SMs DeepEP's normal kernels leave
                     * (roofline.c rl_tbo_sm_factor): name it where it applies */
                    const int sms = g->sm_count;
                    const bool held = !dec && e.prefill_ops.a2a_overlap && e.prefill_ops.a2a_normal &&
                                      sms > KERNEL_DEEPEP_NORMAL_SMS;
                    if (with > without * 1.001)
                        sbuf_printf(&c->out, "note: two-batch overlap makes %s %.3f ms against %.3f ms without: each "
                                             "micro-batch reads the experts it touches again%s, more than the %.3f ms "
                                             "of all-to-all it hides\n",
                                    dec ? "TPOT" : "TTFT", with * 1e3, without * 1e3,
                                    held ? ", and its GEMMs run on the SMs DeepEP's kernels leave" : "",
                                    (dec ? e.decode.hidden_s : e.prefill.hidden_s) * 1e3);
                    else if (held)
                        sbuf_printf(&c->out, "note: two-batch overlap's prefill GEMMs run on %d of the %d SMs (DeepEP's "
                                             "normal kernels hold %d): %s %.3f ms against %.3f ms without\n",
                                    sms - KERNEL_DEEPEP_NORMAL_SMS, sms, KERNEL_DEEPEP_NORMAL_SMS, "TTFT", with * 1e3,
                                    without * 1e3);
                }
            }
        }
        /* the engine's chunked-prefill budget against this one-pass prefill */
        {
            char note[400];
            long budget = 0;
            bool chunked = false;
            if (prefill_split_note(&setup, &lay, x.s.eff.engine, g, &req, note, sizeof note, &budget, &chunked) > 1)
                sbuf_printf(&c->out, "note: %s\n", note);
        }
        /* the routed experts' kernel, whose rates set the MLP's time (docs/model.md "Grouped
         * expert GEMMs") */
        switch (roofline_moe_kernel(g, setup.dt.act, &setup.eff, &e.prefill_ops)) {
        case LLMROOF_MOE_TRITON:
            sbuf_append(&c->out, "note: MoE experts in Triton's fused-MoE kernel (the engine's moe_triton_archs): weights "
                                 "stream at the dense rate, expert GEMMs compute at 0.72 of it\n");
            break;
        case LLMROOF_MOE_FP4:
            sbuf_append(&c->out, "note: fp4 MoE experts in Blackwell's grouped fp4 kernels: expert GEMMs compute at 0.28 "
                                 "of the dense fp4 rate, weights stream at the grouped share\n");
            break;
        default: /* a grouped GEMM, the model's default, or no experts: no note */
            break;
        }
        if (e.shard.kv_replicated && !arch_is_mla(m))
            sbuf_printf(&c->out, "note: %ld KV heads < TP %d: each rank holds a replica of one KV head\n",
                        m->kv_heads, setup.tp);
        sbuf_append(&c->out, "\n");
    }
    struct table t;
    table_init(&t, "");
    table_col(&t, "metric", 0);
    table_col(&t, "value", 3);
    if (x.range) {
        table_col(&t, "low", 3);
        table_col(&t, "high", 3);
    }
    table_col(&t, "unit", 0);
    /* a latency band [v*low, v*high]; a rate's band inverts it: [v/high, v/low] */
    /* decode: with one output token there is no decode step, so no time per output token and no
     * decode rate: "n/a", as simulate prints a latency nothing measured (a TPOT of 0 would pass
     * any per-token SLO) */
    const bool no_decode = e.decode_steps <= 0;
    const struct llmroof_band eb = catalog_e2e_band(&u, e.ttft_s, e.e2e_s, no_decode);
    const struct {
        const char *name;
        double v;
        const struct llmroof_band *b;
        bool rate, decode;
        const char *unit;
    } rows[] = {
        { "ttft", e.ttft_s * 1e3, &u.ttft, false, false, "ms" },
        { "tpot", e.tpot_s * 1e3, &u.tpot, false, true, "ms" },
        /* e2e covers its parts' bands (catalog_e2e_band): with a short output the e2e band's top
         * had fallen below the TTFT's */
        { "e2e", e.e2e_s, &eb, false, false, "s" },
        { "decode_tok_s", e.decode_tok_s, &u.tpot, true, true, "tokens/s" },
        { "output_tok_s", e.output_tok_s, &eb, true, false, "tokens/s" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        table_row(&t);
        table_str(&t, rows[i].name);
        if (no_decode && rows[i].decode) {
            table_str(&t, "n/a");
            if (x.range) {
                table_str(&t, "n/a");
                table_str(&t, "n/a");
            }
            table_str(&t, rows[i].unit);
            continue;
        }
        table_num(&t, rows[i].v);
        if (x.range && rows[i].b->present) {
            table_num(&t, rows[i].rate ? rows[i].v / rows[i].b->high : rows[i].v * rows[i].b->low);
            table_num(&t, rows[i].rate ? rows[i].v / rows[i].b->low : rows[i].v * rows[i].b->high);
        } else if (x.range) {
            table_empty(&t);
            table_empty(&t);
        }
        table_str(&t, rows[i].unit);
    }
    cli_table(c, "metrics", &t);
    table_free(&t);

    table_init(&t, "");
    table_col(&t, "phase", 0);
    table_col(&t, "time_ms", 3);
    table_col(&t, "compute_ms", 3);
    table_col(&t, "memory_ms", 3);
    table_col(&t, "overlapped_ms", 3);
    table_col(&t, "comm_ms", 3);
    const bool hidden_col = e.prefill.a2a_overlap || (e.decode_steps > 0 && e.decode.a2a_overlap);
    if (hidden_col)
        table_col(&t, "hidden_ms", 3);
    table_col(&t, "kernel_ms", 3);
    /* what the GPU waits for the host's launches (eager steps): time_ms is the columns' sum with it */
    const bool cpu_col = e.prefill.cpu_wait_s > 0 || (e.decode_steps > 0 && e.decode.cpu_wait_s > 0) ||
                         (e.has_spec && e.draft.cpu_wait_s > 0);
    if (cpu_col)
        table_col(&t, "cpu_wait_ms", 3);
    table_col(&t, "overhead_ms", 3);
    table_col(&t, "comm_pct", 1);
    table_col(&t, "bound", 0);
    table_col(&t, "GFLOP", 1);
    table_col(&t, "GB", 3);
    table_col(&t, "comm_MB", 3);
    phase_row(&t, "prefill", &e.prefill, &e.prefill_split, hidden_col, cpu_col);
    if (e.decode_steps > 0)
        phase_row(&t, e.has_spec ? "verify_step_mean" : "decode_step_mean", &e.decode, &e.decode_split, hidden_col, cpu_col);
    if (e.decode_steps > 0 && e.has_spec)
        phase_row(&t, "draft_step_mean", &e.draft, &e.draft_split, hidden_col, cpu_col);
    if (c->format != TABLE_CSV)
        sbuf_append(&c->out, "\n");
    cli_table(c, "phases", &t);
    table_free(&t);

    if (c->format == TABLE_TEXT || c->format == TABLE_MD) {
        sbuf_printf(&c->out, "\nmemory per GPU at a %ld-token context: weights %s", ctx_len,
                    cli_fmt_bytes(mem.weights_bytes_per_gpu, b1, sizeof b1));
        if (mem.drafter_bytes_per_gpu > 0)
            sbuf_printf(&c->out, " + drafter %s", cli_fmt_bytes(mem.drafter_bytes_per_gpu, b1, sizeof b1));
        sbuf_printf(&c->out, ", KV %s per token", cli_fmt_bytes(mem.kv_bytes_per_token_per_gpu, b2, sizeof b2));
        /* recurrent layers' state a sequence, and under speculation its copies, which the max batch
         * holds too (a review: the batch could not be rebuilt from the line) */
        if (mem.state_bytes_per_seq_per_gpu > 0) {
            sbuf_printf(&c->out, ", state %s per sequence", cli_fmt_bytes(mem.state_bytes_per_seq_per_gpu, b2, sizeof b2));
            if (mem.state_copies > 0)
                sbuf_printf(&c->out, " x %.0f (its own and %.0f speculative copies)", 1.0 + mem.state_copies,
                            mem.state_copies);
        }
        /* under PP those are the fullest stage's, while the max batch is the tightest stage's pool
         * (memory.h kv_stage): name that stage so the line's figures reproduce its batch */
        if (memory_kv_stage_differs(&mem))
            sbuf_printf(&c->out, " (the fullest stage; the KV pool is stage %d's: weights %s, KV %s per token)",
                        mem.kv_stage, cli_fmt_bytes(mem.kv_stage_weights_bytes_per_gpu, b1, sizeof b1),
                        cli_fmt_bytes(mem.kv_stage_bytes_per_token_per_gpu, b2, sizeof b2));
        sbuf_append(&c->out, "; ");
        if (mem.fits) {
            sbuf_printf(&c->out, "fits, max batch %.0f at this context", mem.max_batch);
            /* the KV cache's; an engine that runs fewer at once (calm: one) says so, as memory does */
            if (x.s.eff.engine && x.s.eff.engine->max_batch > 0 && mem.max_batch > (double)x.s.eff.engine->max_batch)
                sbuf_printf(&c->out, " in the KV cache; engine %s runs %ld at once", x.s.eff.engine->id,
                            x.s.eff.engine->max_batch);
            sbuf_append(&c->out, "\n");
        } else if (mem.fit == LLMROOF_FIT_WEIGHTS)
            sbuf_printf(&c->out, "does NOT fit: weights, workspace and reserve exceed the usable memory\n");
        else if (mem.fit == LLMROOF_FIT_BATCH)
            sbuf_printf(&c->out, "does NOT fit: batch %ld exceeds the max batch of %.0f at this context\n",
                        req.batch, mem.max_batch);
        else
            sbuf_printf(&c->out, "does NOT fit: no room for one sequence at this context\n");
    }
    /* --table ops implies --ops: the CSV of operators needs no second flag */
    if (x.ops || (c->sel.pick && strcmp(c->sel.pick, "ops") == 0))
        ops_tables(c, &e);
    return 0;
}
