/* render_plan.c - see llmroof/render_plan.h */
#include "render/render_plan.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/render_report.h"
#include "render/render_sim.h"
#include "serve/launch.h"

/* Why a feasible row is not the answer. */
static void note_for(const struct plan_result *r, int i, bool rate, char *buf, size_t n)
{
    const struct plan_option *o = &r->options[i], *b = r->best >= 0 ? &r->options[r->best] : NULL;
    if (i == r->best)
        snprintf(buf, n, "best");
    else if (!b)
        buf[0] = '\0';
    else if (r->by_cost && o->cost_per_hour > b->cost_per_hour)
        snprintf(buf, n, "feasible, $%.2f per hour more than the best", o->cost_per_hour - b->cost_per_hour);
    else if (o->gpus > b->gpus)
        snprintf(buf, n, "feasible, %ld more GPU%s than the best", o->gpus - b->gpus, o->gpus - b->gpus == 1 ? "" : "s");
    else if ((!rate && o->users_per_node < b->users_per_node) || (rate && o->goodput_per_gpu < b->goodput_per_gpu) ||
             (rate && o->slo_use > b->slo_use) || (o->disagg && !b->disagg))
        /* (at equal cost too: a row that cost more was said above; "costlier" had been written of
         * rows at the best's very cost, a review found) */
        snprintf(buf, n, "feasible, as many GPUs as the best%s but %s", r->by_cost ? " at its cost" : "",
                 !rate                                           ? "fewer users per node"
                 : o->goodput_per_gpu < b->goodput_per_gpu       ? "less goodput per GPU"
                 : o->slo_use > b->slo_use                       ? "less headroom to the SLOs"
                                                                 : "disaggregated (the simpler layout wins a tie)");
    else
        /* every figure better() compares is the best's: the row listed first won. "fewer users per
         * node" had been said of TP-2+EP-2 at the best TP-2's very 1508 users per node, and "but
         * disaggregated" of a disaggregated row tied with a disaggregated best (review) */
        snprintf(buf, n, "feasible, tied with the best (as many GPUs%s, %s): the row listed first wins",
                 r->by_cost ? " at its cost" : "", rate ? "goodput per GPU and headroom" : "users per node");
}

/* An instance beyond a node: the whole nodes each takes, after the note; then a KV-starved run's
 * preemptions (each recomputes a prompt: a layout that meets the percentile this way has a tail
 * past it, and little margin). */
static void span_note(const struct plan_option *o, char *buf, size_t n)
{
    size_t len = strlen(buf);
    /* an NVL72 rack's trays are nodes of 4 GPUs on one NVLink domain: crossing them costs nothing
     * the network would (a reviewer read "spans 2 nodes" as a cross-node penalty) */
    const int dom = o->gpu ? o->gpu->domain_gpus : 0;
    if (o->nodes_per_instance > 1 && len + 1 < n)
        snprintf(buf + len, n - len, "; an instance spans %d nodes%s", o->nodes_per_instance,
                 o->gpu && dom > o->gpus_per_node && o->nodes_per_instance * o->gpus_per_node <= dom &&
                         dom > o->gpu->gpus_per_node /* a rack's trays; smaller servers: cmd_plan's note */
                     ? " of one NVLink domain"
                     : "");
    len = strlen(buf);
    if (o->feasible && o->binding == PLAN_BIND_CAP && len + 1 < n)
        snprintf(buf + len, n - len, "; still within the SLOs at the search limit: at least %ld users an instance",
                 o->users_per_instance);
    len = strlen(buf);
    if (o->feasible && o->preempt_per_request >= PLAN_STARVED_PREEMPTIONS && len + 1 < n)
        snprintf(buf + len, n - len, "; KV-starved: %.2f preemptions per request", o->preempt_per_request);
}

/* An infeasible row: its 9 figure columns empty but the node its GPU comes in (column `at` of
 * them), whatever the row's fate, then the reason. */
static void infeasible_cells(struct table *t, const struct plan_option *o, int at)
{
    for (int k = 0; k < 9; k++) {
        if (k == at)
            table_num(t, (double)o->gpus_per_node);
        else
            table_empty(t);
    }
    table_str(t, o->reason);
}

static void render_rate(const struct plan_input *in, const struct plan_result *r, enum table_format f,
                        struct table_sel *sel, struct sbuf *out)
{
    char col[48], buf[80];
    struct table t;
    table_init(&t, "");
    table_col(&t, "layout", 0);
    table_col(&t, "gpu", 0);
    table_col(&t, "parallelism", 0);
    table_col(&t, "instances", 0);
    table_col(&t, "gpus", 0);
    table_col(&t, "nodes", 0);
    table_col(&t, "gpus_per_node", 0);
    snprintf(col, sizeof col, "ttft_p%d_ms", in->percentile);
    table_col(&t, col, 0);
    snprintf(col, sizeof col, "tpot_p%d_ms", in->percentile);
    table_col(&t, col, 1);
    table_col(&t, "goodput_qps", 2);
    table_col(&t, "goodput_per_gpu", 3);
    table_col(&t, "cost_per_hour", 2);
    table_col(&t, "note", 0);
    for (int i = 0; i < r->noptions; i++) {
        const struct plan_option *o = &r->options[i];
        table_row(&t);
        table_str(&t, o->disagg ? "disaggregated" : "aggregated");
        table_str(&t, o->gpu->id);
        const char *lb = o->layout;
        if (o->disagg && o->prefill_tp) {
            snprintf(buf, sizeof buf, "P %s / D %s", o->prefill_layout, lb);
        } else {
            snprintf(buf, sizeof buf, o->disagg ? "D %s" : "%s", lb);
        }
        table_str(&t, buf);
        if (!o->feasible) {
            infeasible_cells(&t, o, 3);
            continue;
        }
        if (o->disagg)
            snprintf(buf, sizeof buf, "%ld+%ld", o->prefill_instances, o->decode_instances);
        else
            snprintf(buf, sizeof buf, "%ld", o->instances);
        table_str(&t, buf);
        table_num(&t, (double)o->gpus);
        table_num(&t, (double)o->nodes);
        table_num(&t, (double)o->gpus_per_node); /* each row's own node (plan_node_gpus) */
        table_num(&t, o->ttft_s * 1e3);
        table_num(&t, o->tpot_s * 1e3);
        table_num(&t, o->goodput_qps);
        table_num(&t, o->goodput_per_gpu);
        if (o->has_cost)
            table_num(&t, o->cost_per_hour);
        else
            table_empty(&t);
        char note[160];
        note_for(r, i, true, note, sizeof note);
        span_note(o, note, sizeof note);
        table_str(&t, note);
    }
    if (table_sel_wants(sel, f, "options"))
        table_render_fit(&t, f, 100, 3, out); /* layout, gpu and parallelism name a row */
    table_free(&t);
}

static void render_observations(const struct plan_result *r, enum table_format f, struct table_sel *sel,
                                struct sbuf *out)
{
    struct table t;
    if (f == TABLE_CSV) {
        table_init(&t, "");
        table_col(&t, "observation", 0);
        for (int i = 0; i < r->nobs; i++) {
            table_row(&t);
            table_str(&t, r->obs[i]);
        }
        if (table_sel_wants(sel, f, "observations"))
            table_render_fit(&t, f, 100, 2, out);
        table_free(&t);
        return;
    }
    sbuf_append(out, f == TABLE_MD ? "\n### Observations\n\n" : "\nObservations\n");
    for (int i = 0; i < r->nobs; i++)
        sbuf_printf(out, "- %s\n", r->obs[i]);
}

/* The best row's engine commands (serve/launch.h): a section of text and Markdown, the
 * "launch" table of CSV. */
static void render_launch(const struct plan_input *in, const struct plan_result *r, enum table_format f,
                          struct table_sel *sel, struct sbuf *out)
{
    if (r->best < 0)
        return;
    struct launch_set ls;
    const struct plan_option *o = &r->options[r->best];
    launch_build(in, o, &ls);
    if (f == TABLE_CSV) {
        struct table t;
        table_init(&t, "");
        table_col(&t, "engine", 0);
        table_col(&t, "role", 0);
        table_col(&t, "instances", 0);
        table_col(&t, "gpus_per_instance", 0);
        table_col(&t, "command", 0);
        table_col(&t, "note", 0);
        for (int i = 0; i < ls.n; i++) {
            table_row(&t);
            table_str(&t, ls.c[i].engine);
            table_str(&t, ls.c[i].role);
            table_num(&t, (double)ls.c[i].instances);
            table_num(&t, ls.c[i].gpus_per_instance);
            table_str(&t, ls.c[i].cmd);
            table_str(&t, ls.c[i].note);
        }
        if (table_sel_wants(sel, f, "launch"))
            table_render_fit(&t, f, 100, 2, out);
        table_free(&t);
        return;
    }
    if (f != TABLE_TEXT && f != TABLE_MD)
        return;
    if (ls.n == 0 && in->eff.engine && in->eff.engine->static_batching) { /* launch_build */
        sbuf_printf(out, "\nNo launch commands: engine %s batches statically (HF generate()); the serving engines "
                         "(vLLM, SGLang, TensorRT-LLM) batch continuously and are not what this plan simulated.\n",
                    in->eff.engine->id);
        return;
    }
    if (ls.n == 0) { /* launch_engine_family: an engine llmroof writes no command for */
        sbuf_printf(out, "\nNo launch commands: this plan modelled engine %s; llmroof writes commands for current "
                         "vLLM, SGLang and TensorRT-LLM releases only (profiles vllm, vllm-0.8, sglang, tensorrt-llm), "
                         "and theirs would not run what was modelled.\n",
                    in->eff.engine ? in->eff.engine->id : "?");
        return;
    }
    char la[32];
    if (o->layout[0]) /* the plan's own name: "DPA-8+EP-8", "TP-8+PP-2" */
        snprintf(la, sizeof la, "%s", o->layout);
    else
        plan_layout_name(o->tp, o->mode, la, sizeof la);
    sbuf_printf(out, f == TABLE_MD ? "\n### Launch commands (best row: %s%s on %s)\n\n" : "\nLaunch commands (best row: %s%s on %s)\n",
                o->disagg ? "disaggregated, decode " : "", la, o->gpu->id);
    /* without -e the plan simulated a generic engine, whose batch limits the commands carry so that
     * each runs what was planned; an engine's own defaults differ (a reviewer read vLLM's
     * "--max-num-batched-tokens 256" per DP rank of DeepSeek-R1 on B200s as a recommendation) */
    if (!in->eff.engine)
        sbuf_printf(out, "no -e: these commands carry the batch limits of the generic engine this plan simulated; "
                         "-e vllm, -e sglang or -e tensorrt-llm-pytorch plans with that engine's own defaults\n%s",
                    f == TABLE_MD ? "\n" : "");
    for (int i = 0; i < ls.n; i++) {
        const struct launch_cmd *c = &ls.c[i];
        sbuf_printf(out, "%s%s %s: %ld instance%s of %d GPU%s\n", f == TABLE_MD ? "- " : "", c->engine, c->role,
                    c->instances, c->instances == 1 ? "" : "s", c->gpus_per_instance, c->gpus_per_instance == 1 ? "" : "s");
        sbuf_printf(out, f == TABLE_MD ? "\n  `%s`\n\n" : "    %s\n", c->cmd);
        if (c->note[0])
            sbuf_printf(out, f == TABLE_MD ? "  note: %s\n\n" : "    note: %s\n", c->note);
    }
}

/* The plan's node size as its header states it: --gpus-per-node, else each GPU's catalog value
 * ("8 GPUs per node" when they agree, as for HGX boards). */
static void node_phrase(const struct plan_input *in, char *buf, size_t n)
{
    const int gpn = plan_shared_node_gpus(in);
    if (gpn > 0)
        snprintf(buf, n, "%d GPU%s per node", gpn, gpn == 1 ? "" : "s");
    else
        snprintf(buf, n, "each GPU's usual node (%s)", "the catalog's gpus_per_node");
}

/* An SLO as a person states it: "3000 ms", "100 ms", or from 10 s up "1000 s" (not "1e+06 ms"). */
static void slo_text(double s, char *buf, size_t n)
{
    if (s >= 10.0)
        snprintf(buf, n, "%g s", s);
    else
        snprintf(buf, n, "%g ms", s * 1e3);
}

/* "each GPU's own network ...", "each GPU's NVLink ...", "20 GB/s per GPU pair": what a
 * disaggregated hand-over crosses (sim_kv_link_Bps); each row's kv_link_Bps is its rate */
static const char *kv_link_phrase(const struct plan_input *in, char *buf, size_t n)
{
    const char *k = in->kv_link ? in->kv_link : "";
    switch (in->kv_link_kind) {
    case SIM_KV_NODE:
        if (strcasecmp(k, "node") == 0)
            snprintf(buf, n, "each GPU's own link (NVLink, xGMI, PCIe) where both pools fit one node or domain, its "
                             "network beyond");
        else
            snprintf(buf, n, "each GPU's NVLink where both pools fit one domain, its network beyond");
        break;
    case SIM_KV_IB:
        snprintf(buf, n, "ib, 50 GB/s per GPU pair at each GPU's link efficiency");
        break;
    case SIM_KV_PCIE:
        snprintf(buf, n, "pcie, 32 GB/s per GPU pair at each GPU's link efficiency");
        break;
    case SIM_KV_RATE:
        snprintf(buf, n, "%.3g GB/s per GPU pair", in->kv_link_rate_Bps / 1e9);
        break;
    case SIM_KV_NET:
        snprintf(buf, n, "each GPU's own network (its catalog entry) at its link efficiency");
        break;
    case SIM_KV_AUTO:
    default:
        snprintf(buf, n, "each GPU's own link where both pools fit one node or domain, its network beyond, at its "
                         "link efficiency");
        break;
    }
    return buf;
}

/* --spec: the setting every row's instances run, under the engine line (docs/planning.md,
 * "Speculative decoding") */
static void spec_line(const struct plan_input *in, struct sbuf *out)
{
    if (in->sim.spec.kind == SIM_SPEC_NONE)
        return;
    char sp[640];
    render_spec_text(&in->sim.spec, &in->sim.spec_head, &in->dt, sp, sizeof sp);
    sbuf_printf(out, "speculative decoding: %s; the drafter beside the target on every instance%s\n", sp,
                in->rate_qps > 0 ? " (a disaggregated prefill pool runs it over the prompts and hands its cache over "
                                   "with the K/V; the decode pool speculates)"
                                 : "");
}

/* Without -e, the generic scheduler's limits every instance ran under, which decide a max-seqs
 * binding (a review: they showed only in the launch commands) */
static void generic_line(const struct plan_input *in, struct sbuf *out)
{
    if (in->eff.engine)
        return;
    sbuf_printf(out, "no engine (-e): the generic scheduler, %ld sequences and %ld tokens an iteration an instance, "
                     "chunked prefill\n",
                in->sim.max_seqs, in->sim.max_batched_tokens);
}

void render_plan(const struct plan_input *in, const struct plan_result *r, enum table_format f, struct table_sel *sel,
                 struct sbuf *out)
{
    char col[48], nodes[64];
    node_phrase(in, nodes, sizeof nodes);
    const char *wl = in->workload_name ? in->workload_name : "chat"; /* what every row ran (a review) */
    if (in->rate_qps > 0) {
        char s1[32], s2[32], kl[112];
        slo_text(in->ttft_slo_s, s1, sizeof s1);
        slo_text(in->tpot_slo_s, s2, sizeof s2);
        /* an engine without P/D pools compares the aggregated layouts alone (plan.c) */
        const bool pd = !in->eff.engine || (!in->eff.engine->static_batching && in->eff.engine->disaggregation);
        if ((f == TABLE_TEXT || f == TABLE_MD) && pd)
            sbuf_printf(out, "%splan: %s for %g requests/s (open loop, Poisson) of workload %s, p%d TTFT <= %s and TPOT <= "
                             "%s, %s, aggregated and disaggregated layouts (KV link %s), simulated\n",
                        f == TABLE_MD ? "## " : "", in->model->id, in->rate_qps, wl, in->percentile, s1, s2, nodes,
                        kv_link_phrase(in, kl, sizeof kl));
        else if (f == TABLE_TEXT || f == TABLE_MD)
            sbuf_printf(out, "%splan: %s for %g requests/s (open loop, Poisson) of workload %s, p%d TTFT <= %s and TPOT <= "
                             "%s, %s, aggregated layouts (engine %s serves no disaggregated pools), simulated\n",
                        f == TABLE_MD ? "## " : "", in->model->id, in->rate_qps, wl, in->percentile, s1, s2, nodes,
                        in->eff.engine->id);
        if (f == TABLE_TEXT || f == TABLE_MD) {
            render_engine_line(&in->eff, out);
        generic_line(in, out);
            spec_line(in, out);
            sbuf_append(out, "\n");
        }
        render_rate(in, r, f, sel, out);
        render_observations(r, f, sel, out);
        render_launch(in, r, f, sel, out);
        return;
    }
    if (f == TABLE_TEXT || f == TABLE_MD) {
        char st[16], s1[32], s2[32];
        plan_stat_name(in, st, sizeof st);
        slo_text(in->ttft_slo_s, s1, sizeof s1);
        slo_text(in->tpot_slo_s, s2, sizeof s2);
        sbuf_printf(out, "%splan: %s for %ld user%s of workload %s, %s TTFT <= %s and TPOT <= %s, %s, think %g-%g s, "
                         "%s%s\n",
                    f == TABLE_MD ? "## " : "", in->model->id, in->users, in->users == 1 ? "" : "s", wl, st, s1, s2,
                    nodes,
                    in->sim.think_min_s,
                    in->sim.think_max_s,
                    in->fast ? "analytic (--fast: means, not percentiles)" : "simulated", "");
        render_engine_line(&in->eff, out);
        generic_line(in, out);
        spec_line(in, out);
        sbuf_append(out, "\n");
        if (in->layout.moe_tp > 1)
            sbuf_printf(out, "layout with every TP: PP %d, MoE TP %d, data-parallel attention; an instance is MoE TP x PP "
                             "GPUs%s\n\n",
                        in->layout.pp > 0 ? in->layout.pp : 1, in->layout.moe_tp,
                        in->layout.pp > 1 ? ", running PP micro-batches of different requests in its stages at once"
                                          : "");
        else if (in->layout.pp > 1 || in->layout.ep > 1)
            sbuf_printf(out, "layout with every TP: PP %d, EP %d%s; an instance is (EP or TP) x PP GPUs%s\n\n",
                        in->layout.pp > 0 ? in->layout.pp : 1, in->layout.ep > 0 ? in->layout.ep : 1,
                        in->layout.dp_attn ? ", data-parallel attention" : "",
                        in->layout.pp > 1 ? ", running PP micro-batches of different requests in its stages at once"
                                          : "");
        sbuf_printf(out, "(a user is a closed-loop client: it sends a request, waits for the whole answer, pauses %g-%g s "
                         "and sends the next)\n\n",
                    in->sim.think_min_s, in->sim.think_max_s);
    }
    struct table t;
    bool searched = false; /* an MoE model's plan searched layouts beyond TP */
    for (int i = 0; i < r->noptions; i++)
        searched |= r->options[i].mode != 0;
    table_init(&t, "");
    table_col(&t, "gpu", 0);
    table_col(&t, "tp", 0);
    if (searched)
        table_col(&t, "parallelism", 0);
    table_col(&t, "instances_per_node", 0);
    table_col(&t, "users_per_instance", 0);
    table_col(&t, "users_per_node", 0);
    table_col(&t, "nodes", 0);
    table_col(&t, "gpus", 0);
    table_col(&t, "gpus_per_node", 0);
    char st[16];
    plan_stat_name(in, st, sizeof st);
    snprintf(col, sizeof col, "ttft_%s_ms", st);
    table_col(&t, col, 0);
    snprintf(col, sizeof col, "tpot_%s_ms", st);
    table_col(&t, col, 1);
    table_col(&t, "binding", 0);
    table_col(&t, "cost_per_hour", 2);
    table_col(&t, "note", 0);
    for (int i = 0; i < r->noptions; i++) {
        const struct plan_option *o = &r->options[i];
        table_row(&t);
        table_str(&t, o->gpu->id);
        table_num(&t, o->tp);
        if (searched) {
            table_str(&t, o->layout);
        }
        if (o->instances_per_node)
            table_num(&t, o->instances_per_node);
        else
            table_empty(&t);
        if (!o->feasible) {
            infeasible_cells(&t, o, 4);
            continue;
        }
        table_num(&t, (double)o->users_per_instance);
        table_num(&t, (double)o->users_per_node);
        table_num(&t, (double)o->nodes);
        table_num(&t, (double)o->gpus);
        table_num(&t, (double)o->gpus_per_node);
        table_num(&t, o->ttft_s * 1e3);
        table_num(&t, o->tpot_s * 1e3);
        table_str(&t, plan_binding_name(o->binding));
        if (o->has_cost)
            table_num(&t, o->cost_per_hour);
        else
            table_empty(&t);
        char note[160];
        note_for(r, i, false, note, sizeof note);
        span_note(o, note, sizeof note);
        table_str(&t, note);
    }
    if (table_sel_wants(sel, f, "options"))
        table_render_fit(&t, f, 100, searched ? 3 : 2, out);
    table_free(&t);
    render_observations(r, f, sel, out);
    render_launch(in, r, f, sel, out);
}
