/* plan_obs.c - a plan's observations: why the answer, what binds, how the kinds of layout
 * compare per GPU (docs/planning.md). */
#include "serve/plan_internal.h"
#include "model/arch.h"
#include "model/estimate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void plan_obs_add(struct plan_result *r, const char *fmt, ...)
{
    if (r->nobs >= PLAN_MAX_OBS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->obs[r->nobs++], sizeof r->obs[0], fmt, ap);
    va_end(ap);
}

/* Is a better than b? Fewer GPUs (or lower cost when by_cost), then more users per node (rate
 * plans: more goodput per GPU), then the simpler (aggregated) layout. */
bool plan_better(const struct plan_option *a, const struct plan_option *b, bool by_cost)
{
    if (by_cost && a->cost_per_hour != b->cost_per_hour)
        return a->cost_per_hour < b->cost_per_hour;
    if (a->gpus != b->gpus)
        return a->gpus < b->gpus;
    if (a->users_per_node != b->users_per_node)
        return a->users_per_node > b->users_per_node;
    if (a->goodput_per_gpu != b->goodput_per_gpu)
        return a->goodput_per_gpu > b->goodput_per_gpu;
    if (a->slo_use != b->slo_use)
        return a->slo_use < b->slo_use;
    return !a->disagg && b->disagg;
}

/* v with `decimals` places, or two significant digits where those places would print a nonzero
 * value as zero (--rate 0.000001: "goodput 0.00 requests/s" read as none) */
static const char *fixed_or_sig(char *buf, size_t n, double v, int decimals)
{
    if (v != 0.0 && fabs(v) < 0.5 * pow(10.0, -decimals))
        snprintf(buf, n, "%.2g", v);
    else
        snprintf(buf, n, "%.*f", decimals, v);
    return buf;
}

/* Per GPU (or requests/s of goodput per GPU, in rate plans) of an aggregated option; an
 * instance beyond a node counts the GPUs of its whole nodes. */
static double per_gpu(const struct plan_input *in, const struct plan_option *o)
{
    if (in->rate_qps > 0)
        return o->goodput_per_gpu;
    if (o->nodes_per_instance > 1)
        return (double)o->users_per_instance / ((double)o->nodes_per_instance * o->gpus_per_node);
    return (double)o->users_per_node / (double)o->gpus_per_node;
}

/* More per GPU; on a tie, the planner's own order (plan_better()), so the answer and this agree. */
static bool ahead(const struct plan_input *in, const struct plan_option *a, const struct plan_option *b, bool by_cost)
{
    if (per_gpu(in, a) != per_gpu(in, b))
        return per_gpu(in, a) > per_gpu(in, b);
    return plan_better(a, b, by_cost);
}

/* When the plan searched layouts beyond TP (an MoE model without --pp/--ep): per GPU, the best
 * aggregated option of each kind of layout, which serves the most per GPU, and why, in the
 * figures that decide it: weights per GPU, the KV-cache tokens they leave per GPU, and the
 * communication share of a decode step (docs/planning.md). */
void plan_layout_observations(const struct plan_input *in, struct plan_result *out)
{
    bool searched = false;
    for (int i = 0; i < out->noptions; i++)
        searched |= out->options[i].mode != 0;
    if (!searched)
        return;
    const char *unit = in->rate_qps > 0 ? "requests/s of goodput" : "users";
    for (int gi = 0; gi < in->ngpus; gi++) {
        int best[PLAN_MODES] = { -1, -1, -1, -1, -1 };
        for (int i = 0; i < out->noptions; i++) {
            const struct plan_option *o = &out->options[i];
            if (o->gpu_index != gi || !o->feasible || o->disagg || o->mode < 0 || o->mode >= PLAN_MODES)
                continue;
            if (best[o->mode] < 0 || ahead(in, o, &out->options[best[o->mode]], out->by_cost))
                best[o->mode] = i;
        }
        char list[400] = "", item[96], name[32];
        int top = -1;
        /* in the rows' order (plan_codes: the DP-attention forms side by side, PP last) */
        static const int row_order[PLAN_MODES] = { 0, 1, 2, 4, 3 };
        for (int mi = 0; mi < PLAN_MODES; mi++) {
            const int m = row_order[mi];
            if (best[m] < 0)
                continue;
            const struct plan_option *o = &out->options[best[m]];
            plan_layout_label(in, o->tp, o->mode, name, sizeof name);
            snprintf(item, sizeof item, "%s%s %.*f", list[0] ? ", " : "", name, in->rate_qps > 0 ? 3 : 1, per_gpu(in, o));
            size_t n = strlen(list);
            snprintf(list + n, sizeof list - n, "%s", item);
            if (top < 0 || ahead(in, o, &out->options[top], out->by_cost))
                top = best[m];
        }
        if (top < 0)
            continue;
        plan_obs_add(out, "%s, %s per GPU by kind of layout (best of each): %s.", in->gpus[gi]->id, unit, list);
        const struct plan_option *t = &out->options[top];
        plan_layout_label(in, t->tp, t->mode, name, sizeof name);
        const struct plan_option *r = best[0] >= 0 && best[0] != top ? &out->options[best[0]] : NULL;
        if (!r) {
            /* of the aggregated layouts, which these are: a disaggregated best may serve more (a review) */
            plan_obs_add(out, "%s: %s serves the most %s per GPU%s: %.1f GiB of weights per GPU leave %.0f KV-cache "
                              "tokens per GPU; communication is %.0f%% of a decode step.",
                         in->gpus[gi]->id, name, unit, in->rate_qps > 0 ? " of the aggregated layouts" : "",
                         t->weights_bytes_per_gpu / 1073741824.0, t->kv_tokens_per_gpu, 100 * t->decode_comm_share);
            continue;
        }
        char rn[32];
        plan_layout_label(in, r->tp, r->mode, rn, sizeof rn);
        char ratio[160];
        /* a rate plan's rows of one GPU count differ in goodput alone, the requests the loser
         * serves outside the SLOs (a review read "1.050x ..., by the instance counts above" beside
         * 9 instances of each) */
        const bool same_gpus = in->rate_qps > 0 && t->gpus == r->gpus;
        if (per_gpu(in, t) == per_gpu(in, r))
            snprintf(ratio, sizeof ratio, "as many %s per GPU as", unit);
        else if (same_gpus)
            snprintf(ratio, sizeof ratio, "on the same %ld GPUs %.3fx the goodput (%.2f against %.2f requests/s within "
                                          "both SLOs) of", t->gpus, t->goodput_qps / r->goodput_qps, t->goodput_qps,
                     r->goodput_qps);
        else
            snprintf(ratio, sizeof ratio, "%.3fx the %s per GPU of", per_gpu(in, t) / per_gpu(in, r), unit);
        /* where none of a decode step's figures favours the winner (more weights, fewer KV tokens,
         * more communication), they are not the reason, and the observation says so (a review:
         * DPA-2+MoETP-2 beat TP-2 under SGLang on figures that all favoured TP-2). Under a
         * prefill-first engine with data-parallel attention the reason is the scheduling: a
         * prompt's iteration stalls only its own replica's decodes (the simulator's replicas, and
         * SGLang's DP workers, each schedule their own) */
        char why[240] = "";
        const bool pf = plan_sim_config(in, t->gpu).prefill_first;
        if (per_gpu(in, t) > per_gpu(in, r) && t->weights_bytes_per_gpu >= r->weights_bytes_per_gpu &&
            t->kv_tokens_per_gpu <= r->kv_tokens_per_gpu && t->decode_comm_share >= r->decode_comm_share)
            snprintf(why, sizeof why, " These do not favour it%s.",
                     pf && t->attn_dp && !r->attn_dp
                         ? "; its scheduling does: under this prefill-first engine a prompt's iteration stalls only "
                           "its own attention replica's decodes"
                         : in->fast ? "; the analytic model's steps at its load do (mean TTFT and TPOT in the rows)"
                                    : "; the simulated steps of its load do (TTFT and TPOT in the rows)");
        /* more weights leaving more KV tokens reads as a contradiction where the TP layout copies
         * each token's KV on several GPUs (ops_shard: MLA's latent on every rank, GQA's KV heads
         * on TP / KV heads ranks) and data-parallel attention replicas hold their own sequences' */
        char copies[200] = "";
        const long kvh = in->model->kv_heads;
        if (t->attn_dp && !r->attn_dp && r->tp > 1 && t->weights_bytes_per_gpu >= r->weights_bytes_per_gpu &&
            t->kv_tokens_per_gpu > r->kv_tokens_per_gpu) {
            if (arch_is_mla(in->model))
                snprintf(copies, sizeof copies, " (%s keeps each token's MLA latent, one KV head, on all %d GPUs; "
                                                "each attention replica of %s holds its own sequences')",
                         rn, r->tp, name);
            else if (kvh > 0 && kvh < r->tp)
                snprintf(copies, sizeof copies, " (%s copies each of the %ld KV heads on %ld of its %d GPUs; "
                                                "each attention replica of %s holds its own sequences')",
                         rn, kvh, (long)r->tp / kvh, r->tp, name);
        }
        /* a rate plan's goodput per GPU is the rate over the GPUs: the instance counts decide it,
         * and what one fewer of the loser missed is why (a reviewer read the KV-token figures
         * below as the cause where one TP-8 instance missed its TPOT SLO) */
        if (in->rate_qps > 0) {
            char miss[200] = "";
            const char *what = r->binding == PLAN_BIND_TPOT   ? "the TPOT SLO"
                               : r->binding == PLAN_BIND_TTFT ? "the TTFT SLO"
                               : r->binding == PLAN_BIND_LOAD ? "the load (overloaded)"
                                                              : plan_binding_name(r->binding);
            const char *one = r->fewer_instances == 1 ? "" : "s";
            /* the sequence limit binds through an overload or a TTFT miss; where the run's figures
             * are within both SLOs it was the overload (a review read "miss max-seqs (p90 TTFT 1389
             * ms, TPOT 36.7 ms)" under 2 s and 50 ms as a contradiction) */
            const bool seqs_over = r->binding == PLAN_BIND_SEQS && r->fewer_ttft_s <= in->ttft_slo_s &&
                                   r->fewer_tpot_s <= in->tpot_slo_s;
            if (r->fewer_instances > 0 && (r->fewer_by_bound || r->binding == PLAN_BIND_LOAD || seqs_over))
                snprintf(miss, sizeof miss, "; %ld %s instance%s %s overloaded%s", r->fewer_instances, rn, one,
                         r->fewer_by_bound ? "would be" : r->fewer_instances == 1 ? "is" : "are",
                         r->fewer_by_bound ? " (the capacity bound)"
                         : seqs_over       ? " (every sequence slot taken, the queue growing)"
                                           : "");
            else if (r->fewer_instances > 0)
                snprintf(miss, sizeof miss, "; %ld %s instance%s miss%s %s (p%d TTFT %.0f ms, TPOT %.1f ms)",
                         r->fewer_instances, rn, one, r->fewer_instances == 1 ? "es" : "", what, in->percentile,
                         r->fewer_ttft_s * 1e3, r->fewer_tpot_s * 1e3);
            plan_obs_add(out, "%s: %s meets the SLOs at %.8g requests/s with %ld instance%s (%ld GPUs), %s with %ld "
                              "(%ld GPUs)%s.",
                         in->gpus[gi]->id, name, in->rate_qps, t->instances, t->instances == 1 ? "" : "s", t->gpus, rn,
                         r->instances, r->gpus, miss);
        }
        /* a rate plan's ratio is the instance counts' (the line above says what one fewer missed):
         * the figures follow as figures, not as its cause (a reviewer read "serves 2.000x ...: 92.4
         * against 79.3 GiB ... leave 421216 against 85434 KV-cache tokens" as the reason where one
         * TP-8 instance missed the TPOT SLO) */
        const bool rate = in->rate_qps > 0;
        plan_obs_add(out, "%s: %s serves %s the best TP layout %s%s%.1f against %.1f GiB of weights%s leave %.0f against "
                          "%.0f KV-cache tokens%s%s, and communication is %.0f%% against %.0f%% of a decode step.%s",
                     in->gpus[gi]->id, name, ratio, rn,
                     same_gpus ? "; per GPU " : rate ? ", by the instance counts above; per GPU " : ": ",
                     t->weights_bytes_per_gpu / 1073741824.0, r->weights_bytes_per_gpu / 1073741824.0,
                     rate ? "" : " per GPU", t->kv_tokens_per_gpu, r->kv_tokens_per_gpu, rate ? "" : " per GPU", copies,
                     100 * t->decode_comm_share, 100 * r->decode_comm_share, why);
    }
}

/* A GPU the engine does not run on (CUDA only; an AMD GPU): said as such in its observation, where
 * "cannot serve under these SLOs" would blame the hardware. True when it was. */
bool plan_obs_engine_absent(const struct plan_input *in, struct plan_result *out, int gi)
{
    if (catalog_engine_runs_on(in->eff.engine, in->gpus[gi]))
        return false;
    plan_obs_add(out, "%s: engine '%s' does not run on it (CUDA only; an AMD GPU).", in->gpus[gi]->id, in->eff.engine->id);
    return true;
}

/* Where every row of GPU gi failed on its weights: the smallest plain TP beyond the list (up to
 * 64) that holds them, instances beyond a node included, so that the answer names the way out
 * (docs/planning.md); or, where the engine runs no instance that large (calm: one GPU), that none
 * it runs does. `plan -m deepseek-v3 --gpus h100` had said only "No layout serves ...; see the
 * reasons", every row "the weights do not fit", where TP 16 (two nodes) serves; memory says
 * "smallest TP that fits: 16". Beside a GPU that serves, the line had read "h100 cannot serve this
 * rate under these SLOs", blaming the rate (a review). Returns whether it said so. */
bool plan_weights_hint(const struct plan_input *in, struct plan_result *out, int gi)
{
    static const char nofit[] = "the weights do not fit";
    int max_tp = 1;
    for (int ti = 0; ti < in->ntps; ti++)
        max_tp = in->tps[ti] > max_tp ? in->tps[ti] : max_tp;
    bool any = false, all = true;
    for (int i = 0; i < out->noptions && all; i++) {
        const struct plan_option *o = &out->options[i];
        if (o->gpu_index != gi)
            continue;
        any = true;
        all = !o->feasible && strncmp(o->reason, nofit, sizeof nofit - 1) == 0;
    }
    if (!any || !all)
        return false;
    const struct llmroof_gpu *g = in->gpus[gi];
    const long max_gpus = in->eff.engine ? in->eff.engine->max_gpus : 0;
    for (int t = 2 * max_tp; t <= 64; t *= 2) {
        char reason[sizeof out->options[0].reason];
        struct llmroof_err e2 = { 0 };
        if (max_gpus > 0 && plan_inst_gpus(in, LAY(t, 0)) > max_gpus)
            break;
        if (plan_layout_check(in, g, LAY(t, 0), reason, sizeof reason, &e2) || reason[0])
            continue;
        const int gpn = plan_node_gpus(in, g);
        const int span = plan_node_span(in, g, plan_inst_gpus(in, LAY(t, 0)));
        char nodes[48] = "";
        if (span > 1)
            snprintf(nodes, sizeof nodes, ", an instance of %d nodes of %d", span, gpn);
        plan_obs_add(out, "%s: the weights fit no layout of --tp up to %d; TP %d holds them%s: add it to --tp.", g->id,
                     max_tp, t, nodes);
        return true;
    }
    if (max_gpus > 0)
        plan_obs_add(out, "%s: the weights fit no layout engine %s runs (an instance of at most %ld GPU%s).", g->id,
                     in->eff.engine->id, max_gpus, max_gpus == 1 ? "" : "s");
    else
        plan_obs_add(out, "%s: the weights fit no layout of --tp up to %d, nor any plain TP up to 64.", g->id, max_tp);
    return true;
}

void plan_weights_hints(const struct plan_input *in, struct plan_result *out)
{
    for (int gi = 0; gi < in->ngpus; gi++)
        plan_weights_hint(in, out, gi);
}

/* Rate plans' observations: the answer, the best of the other kind of layout, each GPU's best. */
/* One pool as simulate's --prefill-pool / --decode-pool states it, N:GPU:TP[:LAYOUT] ("3:h200:8:ep8+dpa"),
 * from the layout the plan simulated (plan_setup_for). */
static void pool_spec(const struct plan_input *in, const struct llmroof_gpu *g, int code, long n, char *buf, size_t len)
{
    const struct llmroof_setup s = plan_setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    char parts[64] = "";
    size_t k = 0;
    if (lay.ep > 1)
        k += (size_t)snprintf(parts + k, sizeof parts - k, "%sep%d", k ? "+" : "", lay.ep);
    if (lay.dp_attn && k < sizeof parts)
        k += (size_t)snprintf(parts + k, sizeof parts - k, "%sdpa", k ? "+" : "");
    if (lay.moe_tp > 1 && k < sizeof parts)
        k += (size_t)snprintf(parts + k, sizeof parts - k, "%smoetp%d", k ? "+" : "", lay.moe_tp);
    if (lay.pp > 1 && k < sizeof parts)
        snprintf(parts + k, sizeof parts - k, "%spp%d", k ? "+" : "", lay.pp);
    snprintf(buf, len, "%ld:%s:%d%s%s", n, g->id, lay.tp, parts[0] ? ":" : "", parts);
}

void plan_layout_flags(const struct plan_input *in, const struct llmroof_gpu *g, int code, char *buf, size_t len)
{
    const struct llmroof_setup s = plan_setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    int k = snprintf(buf, len, "-t %d", lay.tp);
    if (lay.ep > 1 && k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, " --ep %d", lay.ep);
    if (lay.dp_attn && k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, " --dp-attention");
    if (lay.moe_tp > 1 && k > 0 && (size_t)k < len)
        k += snprintf(buf + k, len - (size_t)k, " --moe-tp %d", lay.moe_tp);
    if (lay.pp > 1 && k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, " --pp %d", lay.pp);
}

bool plan_rate_sim_command(const struct plan_input *in, const struct plan_option *o, char *buf, size_t len)
{
    char pools[240];
    if (o->disagg) {
        char p[96], d[96];
        pool_spec(in, o->gpu, LAY(o->prefill_tp, o->prefill_mode), o->prefill_instances, p, sizeof p);
        pool_spec(in, o->gpu, LAY(o->tp, o->mode), o->decode_instances, d, sizeof d);
        /* the link as the plan took it, where the user named one */
        snprintf(pools, sizeof pools, "--prefill-pool %s --decode-pool %s%s%s", p, d, in->kv_link ? " --kv-link " : "",
                 in->kv_link ? in->kv_link : "");
    } else {
        /* an aggregated row as one pool: its instances, TP and layout flags */
        char flags[160];
        plan_layout_flags(in, o->gpu, LAY(o->tp, o->mode), flags, sizeof flags);
        snprintf(pools, sizeof pools, "--instances %ld %s", o->instances, flags);
    }
    char model[LLMROOF_ID_MAX + 64] = "";
    if (in->rerun_args) /* the plan's own options, the model among them, then the row's GPU */
        snprintf(model, sizeof model, " -g %s", o->gpu->id);
    const int n = snprintf(buf, len, "simulate %s%s %s --rate %.8g -n %ld --warmup %ld --router least-loaded "
                           "--ttft-slo %.8gms --tpot-slo %.8gms --slo-percentile p%d",
                           in->rerun_args ? in->rerun_args : "", model, pools, in->rate_qps, o->sim_requests,
                           o->sim_warmup, in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3, in->percentile);
    if (in->rerun_args && (n < 0 || (size_t)n >= len)) { /* too long for the observation: name them */
        struct plan_input bare = *in;
        bare.rerun_args = NULL;
        return plan_rate_sim_command(&bare, o, buf, len);
    }
    return in->rerun_args != NULL;
}

void plan_rate_observations(const struct plan_input *in, struct plan_result *out)
{
    char a[200], b[200];
    if (out->best < 0) {
        plan_obs_add(out, "No layout serves %g requests/s with p%d TTFT <= %.8g ms and TPOT <= %.8g ms; see the reasons.",
                     in->rate_qps, in->percentile, in->ttft_slo_s * 1e3, in->tpot_slo_s * 1e3);
        plan_weights_hints(in, out);
        return;
    }
    const struct plan_option *best = &out->options[out->best];
    plan_describe(in, best, a, sizeof a);
    char g1[32], g2[32], price[48] = "";
    if (out->by_cost && best->has_cost) /* the answer by cost says its cost (a review) */
        snprintf(price, sizeof price, " at $%.2f per hour", best->cost_per_hour);
    plan_obs_add(out, "%s: %s%s serves %g requests/s with p%d TTFT %.0f ms (<= %.8g) and TPOT %.1f ms (<= %.8g); goodput "
                      "%s requests/s within both SLOs, %s per GPU.",
                 out->by_cost ? "Cheapest" : "Fewest GPUs", a, price, in->rate_qps, in->percentile, best->ttft_s * 1e3,
                 in->ttft_slo_s * 1e3, best->tpot_s * 1e3, in->tpot_slo_s * 1e3, fixed_or_sig(g1, sizeof g1, best->goodput_qps, 2),
                 fixed_or_sig(g2, sizeof g2, best->goodput_per_gpu, 3));
    /* the best row's prompt steps at the token budget (the generic 2048, no -e): where a full step
     * is memory-bound every chunk re-reads the weights, so the budget, not the GPUs, sets the
     * prefill rate (a review: DeepSeek-V3 at 8000-token prompts on TP-4 B200 prefill pools, 69.7 ms
     * a 2048-token chunk reading the experts, took 15 prefill instances at 2048 and 8 at 8192) */
    if (!in->keep_budget && !(in->eff.engine && in->eff.engine->static_batching)) {
        const int code = best->disagg ? LAY(best->prefill_tp, best->prefill_mode) : LAY(best->tp, best->mode);
        const int attn = 1;
        long seqs = 0, toks = 0;
        plan_instance_limits(in, best->gpu, attn, &seqs, &toks);
        const struct llmroof_setup ps = plan_setup_for(in, best->gpu, code);
        const struct llmroof_request rq = { 1, toks, 1 };
        struct llmroof_estimate e;
        struct llmroof_err err = { 0 };
        /* the bytes as a multiple of the weights (a grouped MoE GEMM re-reads an expert's weights
         * for each tile of its tokens), and the advice for the budget the plan ran: an engine's
         * own, or the generic one's (a review: "-e to plan with an engine's own" beside -e vllm,
         * and "the weights each time" for 80 GB against 40 GB of weights) */
        if (toks > 0 && estimate_run(&ps, &rq, &e, &err) == LLMROOF_OK && e.prefill.bound == LLMROOF_BOUND_MEMORY) {
            struct llmroof_memory mem;
            char reads[96] = "";
            double drafter = 0;
            if (plan_instance_memory(in, best->gpu, code, toks, &mem, &drafter, &err) == LLMROOF_OK &&
                mem.weights_bytes_per_gpu > 0)
                snprintf(reads, sizeof reads, ", %.1f times its %.0f GB of weights",
                         e.prefill.bytes / mem.weights_bytes_per_gpu, mem.weights_bytes_per_gpu / 1e9);
            plan_obs_add(out, "A %ld-token prompt step of the best row's %s is memory-bound (%.1f ms, %.0f GB read a GPU"
                              "%s), read again for every step: the token budget sets its prompt rate; a larger "
                              "--max-batched-tokens %s may need fewer instances.",
                         toks, best->disagg ? "prefill pool" : "instances", e.prefill.time_s * 1e3, e.prefill.bytes / 1e9,
                         reads,
                         in->eff.engine ? "than the engine's (the default this plan ran)"
                                        : "(vLLM's 8192 on GPUs of 70 GiB or more, -e to plan with an engine's own)");
        }
    }
    /* one instance fewer missed for its sequence slots (plan_rate.c rate_eval): the answer is the
     * limit's, which the user sets */
    if (best->binding == PLAN_BIND_SEQS && best->fewer_instances > 0) {
        const long slots = plan_instance_max_seqs(in, best->gpu, LAY(best->tp, best->mode));
        const struct llmroof_engine *en = in->eff.engine;
        if (en && en->max_batch > 0 && slots >= en->max_batch) /* calm: one, whatever its flags */
            plan_obs_add(out, "At %ld instance%s every one of an instance's %ld sequence slot%s was taken: engine %s "
                              "runs no more at once, so the rate takes instances.",
                         best->fewer_instances, best->fewer_instances == 1 ? "" : "s", slots, slots == 1 ? "" : "s",
                         en->id);
        else
            plan_obs_add(out, "At %ld instance%s every one of an instance's %ld sequence slots was taken while its KV "
                              "cache stayed mostly free: the sequence limit binds, not the GPUs; a larger --max-seqs "
                              "(the engine's --max-num-seqs, --max-running-requests, --max_batch_size) may serve with "
                              "fewer.",
                         best->fewer_instances, best->fewer_instances == 1 ? "" : "s", slots);
    }
    else if (best->fewer_instances > 0) {
        /* why not one fewer: a users plan says what the next user misses, a rate plan had said it
         * only in JSON (fewer_instances, binding; a planner's review of session 66) */
        const char *pool = best->disagg ? "decode instance" : "instance", *s = best->fewer_instances == 1 ? "" : "s";
        if (best->fewer_by_bound || best->binding == PLAN_BIND_LOAD)
            plan_obs_add(out, "With %ld %s%s the run %s overloaded%s.", best->fewer_instances, pool, s,
                         best->fewer_by_bound ? "would be" : "is",
                         best->fewer_by_bound ? " (the capacity bound: more requests arrive than they serve)" : "");
        else if (best->binding == PLAN_BIND_REFUSED)
            plan_obs_add(out, "With %ld %s%s the engine's concurrency limit refuses requests.", best->fewer_instances,
                         pool, s);
        else
            plan_obs_add(out, "With %ld %s%s the run misses the %s (p%d TTFT %.0f ms, TPOT %.1f ms).",
                         best->fewer_instances, pool, s,
                         best->binding == PLAN_BIND_TPOT   ? "TPOT SLO"
                         : best->binding == PLAN_BIND_TTFT ? "TTFT SLO"
                                                           : plan_binding_name(best->binding),
                         in->percentile, best->fewer_ttft_s * 1e3, best->fewer_tpot_s * 1e3);
    }
    /* the other kind of layout, for the comparison the choice rests on */
    int other = -1;
    for (int i = 0; i < out->noptions; i++) {
        const struct plan_option *o = &out->options[i];
        if (o->feasible && o->disagg != best->disagg && (other < 0 || plan_better(o, &out->options[other], out->by_cost)))
            other = i;
    }
    if (other >= 0) {
        const struct plan_option *o = &out->options[other];
        plan_describe(in, o, b, sizeof b);
        /* priced, the comparison is in dollars (GPU counts across GPU types had read "-2 more
         * GPUs (-20%)", and equal costs "wins on cost"; a review) */
        if (out->by_cost && o->cost_per_hour > best->cost_per_hour)
            plan_obs_add(out, "The best %s layout costs $%.2f per hour more (%.0f%%): %s.", o->disagg ? "disaggregated" : "aggregated",
                         o->cost_per_hour - best->cost_per_hour,
                         100.0 * (o->cost_per_hour - best->cost_per_hour) / best->cost_per_hour, b);
        else if (o->gpus == best->gpus)
            plan_obs_add(out, "The best %s layout needs as many GPUs%s: %s; %s wins on %s.", o->disagg ? "disaggregated" : "aggregated",
                         out->by_cost ? " at the same cost" : "", b, best->disagg ? "disaggregated" : "aggregated",
                         best->goodput_per_gpu > o->goodput_per_gpu ? "goodput per GPU"
                         : best->slo_use < o->slo_use               ? "headroom to the SLOs"
                                                                    : "simplicity");
        else
            plan_obs_add(out, "The best %s layout needs %ld more GPU%s (%.0f%%): %s.", o->disagg ? "disaggregated" : "aggregated",
                         o->gpus - best->gpus, o->gpus - best->gpus == 1 ? "" : "s",
                         100.0 * (double)(o->gpus - best->gpus) / (double)best->gpus, b);
    } else {
        bool pruned = false, searched = false;
        for (int i = 0; i < out->noptions; i++) {
            pruned |= out->options[i].pruned && out->options[i].disagg != best->disagg;
            /* a disaggregated row of a pipelined layout is not searched (plan_code_pipelined) */
            searched |= out->options[i].disagg != best->disagg &&
                        !(out->options[i].disagg && plan_code_pipelined(in, LAY(out->options[i].tp, out->options[i].mode)));
        }
        if (!best->disagg && in->eff.engine && in->eff.engine->static_batching) /* plan_rate: none searched */
            plan_obs_add(out, "No disaggregated layout: engine %s batches statically.", in->eff.engine->id);
        else if (!best->disagg && in->eff.engine && !in->eff.engine->disaggregation)
            plan_obs_add(out, "No disaggregated layout: engine %s serves no prefill and decode pools.", in->eff.engine->id);
        else if (pruned)
            plan_obs_add(out, "No %s layout was searched to the end: those that might meet the SLOs need %s than "
                              "the answer.", best->disagg ? "aggregated" : "disaggregated", plan_prune_what(in));
        else if (!best->disagg && !searched)
            plan_obs_add(out, "No disaggregated layout was searched: a disaggregated pool's pipeline stages are not "
                              "simulated as lanes (plan the layout without --pp to compare one).");
        else
            plan_obs_add(out, "No %s layout meets the SLOs at this rate.", best->disagg ? "aggregated" : "disaggregated");
    }
    for (int gi = 0; gi < in->ngpus; gi++) {
        int bi = out->best_per_gpu[gi];
        bool pruned = false;
        for (int i = 0; i < out->noptions; i++)
            pruned |= out->options[i].gpu_index == gi && out->options[i].pruned;
        if (bi < 0 && pruned) {
            plan_obs_add(out, "%s: no layout searched to the end; those that might serve need %s than the answer "
                              "(%s; --exhaustive searches it to its own answer).", in->gpus[gi]->id, plan_prune_what(in),
                         plan_bound_text(best->gpus, best->has_cost, best->cost_per_hour, (char[64]){ 0 }, 64));
            continue;
        }
        if (bi < 0 && (plan_obs_engine_absent(in, out, gi) || plan_weights_hint(in, out, gi)))
            continue;
        if (bi < 0) {
            plan_obs_add(out, "%s cannot serve this rate under these SLOs in any layout tried.", in->gpus[gi]->id);
            continue;
        }
        plan_describe(in, &out->options[bi], a, sizeof a);
        char g[32];
        plan_obs_add(out, "%s: best as %s, %s requests/s of goodput per GPU.", in->gpus[gi]->id, a,
                     fixed_or_sig(g, sizeof g, out->options[bi].goodput_per_gpu, 3));
    }
    if (in->rate_qps > 0)
        plan_obs_add(out, "Each layout is the smallest pool(s) whose simulated run at %g requests/s (Poisson, %ld requests, "
                          "longer where so short a run could not tell a filling server from an overloaded one, then without "
                          "the first requests' latencies while the batch fills: a row's JSON sim_requests and "
                          "sim_warmup_requests; least-loaded router) meets both SLOs without overload; disaggregated "
                          "layouts size the prefill pool alone for TTFT, then the decode pool behind it.",
                     in->rate_qps, plan_rate_pool(in->rate_qps));
    if (in->rate_qps > 0 && out->best >= 0 && out->options[out->best].sim_requests > 0) {
        /* the best row's run as a simulate command (a review: users plans printed one, rate plans
         * did not, and simulate's default router is not the plan's least-loaded one) */
        const struct plan_option *o = &out->options[out->best];
        char cmd[1400];
        if (plan_rate_sim_command(in, o, cmd, sizeof cmd)) /* the plan's options in it */
            plan_obs_add(out, "To rerun the best row: llmroof %s.", cmd);
        else
            plan_obs_add(out, "To rerun the best row: %s, with the plan's model, GPU and options.", cmd);
    }
    int npruned = 0;
    for (int i = 0; i < out->noptions; i++)
        npruned += out->options[i].pruned;
    if (npruned)
        plan_obs_add(out, "%d layout%s not searched to the end: more instances would need %s than the best plan "
                          "found, so %s could not have won (docs/planning.md, \"Pruning against the best plan found\").",
                     npruned, npruned == 1 ? " was" : "s were", plan_prune_what(in), npruned == 1 ? "it" : "they");
    plan_layout_observations(in, out);
    plan_spec_observation(in, out);
}

void plan_spec_observation(const struct plan_input *in, struct plan_result *out)
{
    const struct sim_spec *sp = &in->sim.spec;
    if (sp->kind == SIM_SPEC_NONE)
        return;
    plan_obs_add(out, "Speculative decoding in every row: %s%s%s, %d draft tokens a step%s, acceptance %g, %.3f tokens "
                      "a step expected; each instance's drafter takes its weights and cache out of the KV cache%s "
                      "(docs/planning.md, \"Speculative decoding\").",
                 sim_spec_name(sp->kind), sp->kind == SIM_SPEC_DRAFT && sp->draft ? " " : "",
                 sp->kind == SIM_SPEC_DRAFT && sp->draft ? sp->draft->id : "", sp->k,
                 sp->tokens > 0 ? " (a tree's depth)" : "", sp->alpha, sim_spec_expected_tokens(sp),
                 in->rate_qps > 0 ? ", and a disaggregated prefill pool runs it over the prompts and hands its cache "
                                    "over with the K/V"
                                  : "");
}
