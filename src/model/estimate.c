/* estimate.c - TTFT, TPOT, e2e and throughput of a static batch (see llmroof/estimate.h). */
#include "model/estimate.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include "model/ckpt.h"
#include "model/memory.h"

struct llmroof_layout estimate_layout(const struct llmroof_setup *s)
{
    struct llmroof_layout l = s->layout;
    l.tp = s->tp;
    l.shared_local = l.moe_tp > 1 && s->eff.moe_tp_shared_local; /* the engine's rule (catalog.h) */
    l.lm_head_split = l.dp_attn && s->eff.dp_lm_head_split;       /* likewise */
    l.dsa_dense_prefill = s->eff.dsa_dense_short_prefill;         /* likewise */
    return l;
}

/* The busiest pipeline stage's share of a pass, of a decode step with the LM head, of a prompt
 * without it (memory_stage_shares; layout.c holds pp <= 1024). */
static double stage_share_max(const struct llmroof_setup *s, const struct llmroof_shard *sh, bool head)
{
    double share[1024], most = 0.0;
    const int pp = sh->pp > 1 ? sh->pp : 1;
    memory_stage_shares(s->model, sh, &s->dt, head, share);
    for (int i = 0; i < pp; i++)
        most = share[i] > most ? share[i] : most;
    return most;
}

/* estimate_check, leaving the layout's shard in *sh (estimate_run needs it: one build, not two) */
static int estimate_check_shard(const struct llmroof_setup *s, struct llmroof_shard *sh, struct llmroof_err *err)
{
    const struct llmroof_layout lay = estimate_layout(s);
    int rc = ops_shard_layout(s->model, &lay, sh, err);
    if (rc)
        return rc;
    if (!dtype_is_storage(s->dt.weight))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--weight-dtype tf32 is a compute mode, not a storage format");
    if (!dtype_is_storage(s->dt.kv))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--kv-dtype tf32 is a compute mode, not a storage format");
    if (!(s->eff.compute > 0 && s->eff.compute <= 1) || !(s->eff.memory > 0 && s->eff.memory <= 1) ||
        !(s->eff.comm > 0 && s->eff.comm <= 1) || !(s->eff.overhead_s >= 0 && s->eff.overhead_s <= 1) ||
        !(s->eff.first_token_s >= 0 && s->eff.first_token_s <= 60))
        return llmroof_err_set(err, LLMROOF_EINPUT, "efficiencies must be in (0, 1] and the overheads in [0, 1] s (first token: [0, 60] s)");
    rc = estimate_engine_runs(s->eff.engine_id, s->eff.cuda_only, s->gpu, err);
    return rc ? rc : roofline_check(s->gpu, s->dt.act, err);
}

double estimate_comm_share(const struct llmroof_phase *p)
{
    const double c = p->comm_s - (p->a2a_overlap ? p->hidden_s : 0.0);
    return p->time_s > 0 && c > 0 ? c / p->time_s : 0.0;
}

int estimate_engine_runs(const char *engine_id, bool cuda_only, const struct llmroof_gpu *g, struct llmroof_err *err)
{
    /* a CUDA-only engine (TensorRT-LLM, TurboMind, QServe, ...) on an AMD GPU runs nowhere */
    if (cuda_only && catalog_gpu_is_amd(g))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "engine '%s' runs on NVIDIA GPUs only (its kernels are CUDA's: the profile's "
                               "\"cuda_only\"), and '%s' is an AMD GPU (%s); vllm, sglang, tgi, llama.cpp-2024-06 and "
                               "mlc-llm run on ROCm",
                               engine_id ? engine_id : "?", g->id, g->arch);
    return 0;
}

int estimate_check(const struct llmroof_setup *s, struct llmroof_err *err)
{
    struct llmroof_shard sh;
    return estimate_check_shard(s, &sh, err);
}

/* ------------------------------------------------------------------------ */
/* MLA's break-even                                                         */
/* ------------------------------------------------------------------------ */

/* What mla_form_s times with: the setup, its shard, the roofline prepared at the per-sequence
 * efficiencies, and an operator list whose other operators are absent (count 0). */
struct mla_probe {
    const struct llmroof_setup *s;
    const struct llmroof_shard *sh;
    struct roofline_prep rp;
    struct llmroof_oplist o;
};

/* The modelled time of the operators MLA's form changes (attention and mla_kv_up: ops.c's
 * set_context, the operators that depend on the context) over one sequence of n new tokens after
 * `past` cached ones, absorbed or decompressed. */
static double mla_form_s(struct mla_probe *q, double n, double past, bool absorbed)
{
    struct llmroof_batch b = { 0 };
    b.tokens = n;
    b.seqs = 1.0;
    b.attn_pairs = n * past + n * (n + 1.0) / 2.0;
    b.kv_read_tokens = past + n;
    if (absorbed) {
        b.few_tokens = b.tokens;
        b.few_seqs = b.seqs;
        b.few_pairs = b.attn_pairs;
        b.few_keys = b.kv_read_tokens;
    }
    struct llmroof_phase p;
    ops_set_context(q->s->model, q->sh, &q->s->dt, &b, &q->o);
    roofline_eval_prep(&q->rp, &q->o, &p);
    return p.op[LLMROOF_OP_ATTENTION].time_s + p.op[LLMROOF_OP_MLA_KV_UP].time_s;
}

/* Absorbed minus decompressed at n new tokens after `past` cached keys. */
static double mla_form_diff(struct mla_probe *q, double n, double past)
{
    return mla_form_s(q, n, past, true) - mla_form_s(q, n, past, false);
}

/* The new tokens n in [lo, hi] at which the two forms take the same time after `past` cached
 * keys (absorbed minus decompressed grows with n: 2 r_kv + p > n_qk + p + v per pair), by the
 * Illinois variant of regula falsi (the difference is linear in n between the kinks where a
 * term's bound changes: 7 to 9 steps); lo or hi where one form is the cheaper over the range. */
static double mla_crossing(struct mla_probe *q, double past, double lo, double hi)
{
    double flo = mla_form_diff(q, lo, past), fhi = mla_form_diff(q, hi, past);
    if (!(flo < 0.0))
        return lo;
    if (!(fhi > 0.0))
        return hi;
    int side = 0;
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; i++) {
        const double x = (lo * fhi - hi * flo) / (fhi - flo);
        const double fx = mla_form_diff(q, x, past);
        if (fx == 0.0)
            return x;
        if (fx < 0.0) {
            lo = x;
            flo = fx;
            if (side == -1)
                fhi /= 2.0;
            side = -1;
        } else {
            hi = x;
            fhi = fx;
            if (side == 1)
                flo /= 2.0;
            side = 1;
        }
    }
    return 0.5 * (lo + hi);
}

void estimate_mla_few_rule(const struct llmroof_setup *s, struct llmroof_shard *sh)
{
    if (!(sh->few.per_past > 0.0)) /* no MLA choice (ops_few_rule_flops) */
        return;
    /* the per-sequence costs alone: the ramp is the rule's, the kernels' fixed cost the step's */
    struct mla_probe q;
    q.s = s;
    q.sh = sh;
    struct llmroof_effs e = s->eff;
    e.attn_ramp_tokens = 0.0;
    e.kernel_s = 0.0;
    roofline_prepare(s->gpu, s->dt.act, &e, s->tp, &q.rp);
    /* the list once; each probe rebuilds its context operators (the others are not timed) */
    const struct llmroof_batch b0 = batch_decode(1.0, 2048.0);
    ops_build(s->model, sh, &s->dt, &b0, &q.o);
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        if (!(OPS_CONTEXT_MASK >> k & 1u))
            q.o.op[k].count = 0.0;
    /* the line pairs = a P + b n through the crossings at a long and a short context */
    const double P1 = 1048576.0, P2 = 2048.0, hi = 8192.0;
    const double n1 = mla_crossing(&q, P1, 1.0, hi), n2 = mla_crossing(&q, P2, 1.0, hi);
    const double q1 = n1 * P1 + n1 * (n1 + 1.0) / 2.0, q2 = n2 * P2 + n2 * (n2 + 1.0) / 2.0;
    const double det = P1 * n2 - P2 * n1;
    double a = q1 / P1, b = 0.0;
    if (n1 > 1.0 && n1 < hi && n2 > 1.0 && n2 < hi && det > 0.0) {
        a = (q1 * n2 - q2 * n1) / det;
        b = (P1 * q2 - P2 * q1) / det;
    }
    sh->few = (struct ops_few_rule){ 1.0, a > 0.0 ? a : DBL_MIN, b,
                                     s->eff.attn_ramp_tokens > 0 ? s->eff.attn_ramp_tokens : 0.0 };
}

double estimate_busiest_seqs(double batch, int replicas)
{
    if (replicas <= 1)
        return batch;
    return ceil(batch / (double)replicas - 1e-9);
}

void estimate_ops_replicas(const struct llmroof_model *m, const struct llmroof_shard *sh,
                           const struct llmroof_dtypes *dt, const struct llmroof_batch *busiest,
                           const struct llmroof_batch *total, const struct llmroof_batch *least,
                           struct llmroof_oplist *out)
{
    if (sh->attn_dp <= 1) {
        ops_build(m, sh, dt, total, out);
        return;
    }
    /* ops_build costs the mean replica (the batch / attn_dp); the busiest replica's batch times
     * attn_dp makes that mean the busiest replica. The experts alone see every replica's tokens
     * (DeepSeek-V3 report section 3.4: attention DP, MoE EP, the all-to-all between them). */
    const double rep = (double)sh->attn_dp;
    const struct llmroof_batch scaled = batch_scale(busiest, rep);
    /* Two-batch overlap splits every replica's batch or none (all meet at each MoE layer): the
     * busiest replica must split, and so must the least loaded (a replica with one decoding
     * sequence or none runs one batch; vLLM's dual-batch overlap then runs none in micro-batches,
     * docs/design/dbo.md), split by sequences where the busiest has no prompt work (decodes or
     * speculative verification, batch_decodes_only), else by tokens.
     * Both lists below are then built alike: the experts of half of every replica's tokens. */
    const bool by_seqs = batch_decodes_only(busiest);
    const bool two = ops_two_batches(m, sh, &scaled) && (by_seqs ? least->seqs >= 2.0 : least->tokens >= 2.0);
    struct llmroof_oplist all;
    ops_build_split(m, sh, dt, &scaled, two, out);
    ops_build_split(m, sh, dt, total, two, &all);
    out->op[LLMROOF_OP_FFN] = all.op[LLMROOF_OP_FFN];
    out->gemm_out[LLMROOF_OP_FFN] = all.gemm_out[LLMROOF_OP_FFN];
    if (sh->mlp_gather && !sh->mlp_shared_local) {
        /* --moe-tp: the router and the dense layers' MLP run on the gathered tokens too (the
         * gather itself at the busiest replica's size on every replica: vLLM pads each DP rank's
         * batch to the largest, num_tokens_across_dp, the scaled list's message) */
        out->op[LLMROOF_OP_ROUTER] = all.op[LLMROOF_OP_ROUTER];
        out->op[LLMROOF_OP_DENSE_FFN] = all.op[LLMROOF_OP_DENSE_FFN];
        out->gemm_out[LLMROOF_OP_DENSE_FFN] = all.gemm_out[LLMROOF_OP_DENSE_FFN];
    }
    if (sh->lm_ranks > 0) {
        /* the LM head split over the stage (SGLang, shard lm_ranks): every replica's logits rows on
         * each GPU, and their gathers, as the whole batch's list counts them */
        out->op[LLMROOF_OP_LM_HEAD] = all.op[LLMROOF_OP_LM_HEAD];
        out->op[LLMROOF_OP_ALL_GATHER] = all.op[LLMROOF_OP_ALL_GATHER];
        out->gemm_out[LLMROOF_OP_LM_HEAD] = all.gemm_out[LLMROOF_OP_LM_HEAD];
    }
    out->experts_hit = all.experts_hit;
    /* CUDA graphs are replayed for the instance's step or not at all: the replicas meet at every
     * MoE layer, so they run one kind of forward. SGLang gathers each DP rank's can_cuda_graph and
     * replays only where all are decode or idle (dp_attention's prepare_mlp_sync_batch takes the
     * minimum; cuda_graph_runner.can_run requires can_run_dp_cuda_graph), and vLLM's DP ranks take
     * the minimum of their cudagraph modes a step (v1/worker/dp_utils.py coordinate_batch_across_dp):
     * one replica's prompt runs every replica's decodes eagerly (rl_launch). The simulator had replayed
     * the other replicas' decodes from their graphs beside an eager prompt replica, and, where
     * the prompt replica held fewer tokens than a decoding one had sequences, left that replica
     * out of the busiest (sim_sched.c target_time): DeepSeek-V3 under SGLang at 1,727 chat users on
     * 8 H200s ran such a step at 54 ms where every replica's 1,862 launches take 84 */
    out->dp_prompt = !batch_decodes_only(total);
    /* ... and what describes that operator: the expert weights streamed and the assignments per
     * expert (the grouped GEMM's bandwidth share, roofline.c), an fp4 expert path's saving, as
     * `all` counts them; the scaled list's counted `rep` times the busiest replica's tokens */
    out->expert_wbytes = all.expert_wbytes;
    out->tokens_per_expert = all.tokens_per_expert;
    out->expert_flops = all.expert_flops;
    out->shared_rows = all.shared_rows;
    out->lowp_save_bytes = all.lowp_save_bytes;
    /* The all-to-all's busiest rank either sends the most (its replica's tokens' k copies: the
     * busiest replica's, at no imbalance) or receives the most (its share of every replica's
     * copies: the real batch's mean times its routing imbalance, `all`'s message); the larger
     * sets the call. The scaled list's own message charged the busiest replica's tokens the
     * imbalance of `rep` such replicas' routing, copies the batch does not send: DeepSeek-V3 at
     * EP 8, one decoding sequence, 15.01 MB a step where its 8 copies move 8 x 7168 x (1.031 +
     * 2) / 2 x 2 x 58 = 10.08 MB (E[max Binomial(64, 1/8)] / 8 = 1.49 times too much) */
    struct llmroof_op *a2a = &out->op[LLMROOF_OP_ALL_TO_ALL];
    if (a2a->count > 0) {
        const double f = ops_a2a_receive_factor(m, sh, out->a2a_normal, out->ep_busy);
        const double send = a2a->comm_bytes / f, recv = all.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes;
        if (send >= recv) {
            a2a->comm_bytes = send;
            out->a2a_lowp_save_bytes /= f;
        } else {
            a2a->comm_bytes = recv;
            out->a2a_lowp_save_bytes = all.a2a_lowp_save_bytes;
        }
    }
    out->ep_busy = all.ep_busy;
    /* ... but the shared experts run on each replica's own tokens (whole on every rank, beside the
     * routed ones): the busiest replica's T / tp, not the mean's. DeepSeek-V3, one 4096-token
     * prompt on 8 replicas: 2 x 7168 x 2048 x 3 FLOP x (4096 - 512) tokens more a layer, 18.3 TFLOP
     * over its 58 MoE layers */
    double sf, sb, sg;
    ops_shared_expert_per_token(m, sh, dt, &sf, &sb, &sg);
    /* (under two-batch overlap each micro-batch's: half of it, in each of twice the instances) */
    const double extra = (busiest->tokens - total->tokens / rep) / (double)sh->tp / out->micro_batches;
    if (sf > 0 && extra > 0) {
        out->op[LLMROOF_OP_FFN].flops += extra * sf;
        out->op[LLMROOF_OP_FFN].bytes += extra * sb;
        out->gemm_out[LLMROOF_OP_FFN] += extra * sg;
    }
}

/* The least-loaded replica's share of a uniform batch: floor(B / replicas) sequences. */
static struct llmroof_batch least_share(double B, int replicas, double tokens_per_seq)
{
    const double s = replicas > 1 ? floor(B / (double)replicas + 1e-9) : B;
    return (struct llmroof_batch){ .tokens = s * tokens_per_seq, .seqs = s };
}

struct estimate_split estimate_phase_split(const struct llmroof_phase *p)
{
    struct estimate_split s = { 0.0, 0.0, p->comm_s - p->hidden_s };
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        const struct llmroof_optime *t = &p->op[k];
        s.kernel_s += t->fixed_s;
        s.overlapped_s += t->compute_s < t->memory_s ? t->compute_s : t->memory_s;
    }
    return s;
}

/* The bound after two-batch overlap: the hidden all-to-all time leaves the comm-bound sum (it is
 * the all-to-all's, a comm-bound operator, so the sum stays >= 0), and the bound is the largest
 * sum left. roofline_total counts the hidden time, as the simulator's steps need no bound. */
static void bound_exposed(struct llmroof_phase *p)
{
    if (!(p->hidden_s > 0))
        return;
    p->bound_s[LLMROOF_BOUND_COMM] -= p->hidden_s;
    p->bound = roofline_largest_bound(p->bound_s);
}

/* Sum of a + b*c over integer c in [p, q]. */
static double sum_linear(double a, double b, double p, double q)
{
    if (q < p)
        return 0.0;
    double n = q - p + 1.0;
    return n * a + b * (p + q) * n / 2.0;
}

double estimate_sum_max_linear(double a1, double b1, double a2, double b2, double c1, double c2,
                               double *first_part)
{
    /* f - g = (a1 - a2) + (b1 - b2) c changes sign at most once. */
    double da = a1 - a2, db = b1 - b2;
    double s1 = 0, s2 = 0;
    if (db == 0) {
        if (da >= 0)
            s1 = sum_linear(a1, b1, c1, c2);
        else
            s2 = sum_linear(a2, b2, c1, c2);
    } else {
        double x = -da / db; /* crossing point */
        if (db > 0) {
            /* f >= g for c >= x */
            double lo = ceil(x);
            if (lo < c1) lo = c1;
            if (lo > c2 + 1) lo = c2 + 1;
            s2 = sum_linear(a2, b2, c1, lo - 1);
            s1 = sum_linear(a1, b1, lo, c2);
        } else {
            /* f >= g for c <= x */
            double hi = floor(x);
            if (hi > c2) hi = c2;
            if (hi < c1 - 1) hi = c1 - 1;
            s1 = sum_linear(a1, b1, c1, hi);
            s2 = sum_linear(a2, b2, hi + 1, c2);
        }
    }
    if (first_part)
        *first_part = s1;
    return s1 + s2;
}

double estimate_sum_max_lines(const double *a, const double *b, int n, double c1, double c2, double *part)
{
    /* The upper envelope of n lines is convex and piecewise linear; between two consecutive
     * crossing points one line is the largest. Integer c in a piece: sum_linear of that line. */
    double x[LLMROOF_MAX_LINES * LLMROOF_MAX_LINES] = { 0 };
    int nx = 0;
    if (n > LLMROOF_MAX_LINES)
        n = LLMROOF_MAX_LINES;
    for (int i = 0; i < n; i++) {
        if (part)
            part[i] = 0.0;
        for (int j = i + 1; j < n; j++)
            if (b[i] != b[j]) {
                double xc = (a[j] - a[i]) / (b[i] - b[j]);
                if (xc > c1 && xc < c2)
                    x[nx++] = xc;
            }
    }
    /* insertion sort: at most 6 points for the 3 lines the estimate uses */
    for (int i = 1; i < nx; i++)
        for (int j = i; j > 0 && x[j] < x[j - 1]; j--) {
            double t = x[j];
            x[j] = x[j - 1];
            x[j - 1] = t;
        }
    double total = 0.0, start = c1;
    for (int s = 0; s <= nx && start <= c2; s++) {
        double end = s < nx ? floor(x[s]) : c2;
        if (end > c2)
            end = c2;
        if (end < start)
            continue;
        double mid = 0.5 * (start + end);
        int best = 0;
        for (int i = 1; i < n; i++)
            if (a[i] + b[i] * mid > a[best] + b[best] * mid)
                best = i;
        double v = sum_linear(a[best], b[best], start, end);
        total += v;
        if (part)
            part[best] += v;
        start = end + 1.0;
    }
    return total;
}

/* ------------------------------------------------------------------------ */
/* Prompts in physical batches (llama.cpp's n_ubatch)                       */
/* ------------------------------------------------------------------------ */

/* B sequences that each put n new tokens after `past` cached ones (a prompt's later pass). */
static struct llmroof_batch batch_chunk(double B, double n, double past, const struct ops_few_rule *few)
{
    struct llmroof_batch b = { 0 };
    b.tokens = B * n;
    b.seqs = B;
    b.attn_pairs = B * (n * past + n * (n + 1.0) / 2.0);
    b.kv_read_tokens = B * (past + n);
    return batch_mark_few(b, n, past, few);
}

/* Adds n passes of p to a phase's totals (FLOPs, bytes, times, bound sums; no per-operator
 * entries) and to its columns `sp`, each pass's split taken on its own: the min(compute, memory)
 * of a sum is not the sum of each pass's (the drafter's passes, a prompt's). */
static void passes_add(struct llmroof_phase *acc, struct estimate_split *sp, const struct llmroof_phase *p, double n)
{
    const struct estimate_split x = estimate_phase_split(p);
    sp->kernel_s += n * x.kernel_s;
    sp->overlapped_s += n * x.overlapped_s;
    sp->comm_exposed_s += n * x.comm_exposed_s;
    acc->flops += n * p->flops;
    acc->bytes += n * p->bytes;
    acc->comm_bytes += n * p->comm_bytes;
    acc->compute_s += n * p->compute_s;
    acc->memory_s += n * p->memory_s;
    acc->comm_s += n * p->comm_s;
    acc->overhead_s += n * p->overhead_s;
    acc->launch_s += n * p->launch_s;
    acc->cpu_wait_s += n * p->cpu_wait_s;
    acc->time_s += n * p->time_s;
    acc->hidden_s += n * p->hidden_s;
    for (int i = 0; i < 3; i++)
        acc->bound_s[i] += n * p->bound_s[i];
    acc->a2a_overlap = acc->a2a_overlap || p->a2a_overlap;
}

/* dst += w x src: times, bytes and FLOPs add; the bound is the largest sum. The operator list's
 * per-instance FLOPs, bytes and messages add the same way (its counts are the layers', equal in
 * every pass), so `estimate --ops` prints the whole prompt's work. */
static void phase_add(struct llmroof_phase *dst, struct llmroof_oplist *dops, struct estimate_split *sp,
                      const struct llmroof_phase *src, const struct llmroof_oplist *sops, double w)
{
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        struct llmroof_optime *d = &dst->op[k];
        const struct llmroof_optime *t = &src->op[k];
        d->compute_s += w * t->compute_s;
        d->memory_s += w * t->memory_s;
        d->comm_s += w * t->comm_s;
        d->time_s += w * t->time_s;
        d->fixed_s += w * t->fixed_s;
        d->bytes += w * t->bytes;
        d->comm_bytes += w * t->comm_bytes;
        d->kernels = t->kernels; /* per instance, the same in every pass */
        /* as roofline.c labels one pass: collectives comm-bound, else the larger term */
        d->bound = t->bound == LLMROOF_BOUND_COMM ? LLMROOF_BOUND_COMM
                 : d->compute_s >= d->memory_s   ? LLMROOF_BOUND_COMPUTE
                                                 : LLMROOF_BOUND_MEMORY;
        dops->op[k].flops += w * sops->op[k].flops;
        dops->op[k].bytes += w * sops->op[k].bytes;
        dops->op[k].comm_bytes += w * sops->op[k].comm_bytes;
    }
    passes_add(dst, sp, src, w);
    dst->bound = roofline_largest_bound(dst->bound_s);
}

/* B whole prompts of P tokens in one pass, with every token's logits where the engine computes
 * them (llama.cpp before PR #6122 projected the whole pass onto the vocabulary and kept the last
 * row: 32,000 x 4,096 x 2 FLOP a token for Llama-2-7B, 1.9% of its forward) */
static struct llmroof_batch prompt_batch(const struct llmroof_setup *s, const struct llmroof_shard *sh, double B,
                                         double P)
{
    struct llmroof_batch b = batch_prefill(B, P, &sh->few);
    if (s->eff.logits_all_tokens)
        b.extra_logits = b.tokens - b.seqs;
    return b;
}

/* One pass of `b`, w times over: the operator list keeps the first pass's counts and fields, its
 * FLOPs, bytes and messages become sums (zeroed at the first pass, *first). */
static void add_pass(const struct llmroof_setup *s, const struct roofline_prep *rp, const struct llmroof_shard *sh,
                     const struct llmroof_batch *b, double w, struct llmroof_oplist *ops, struct llmroof_phase *ph,
                     struct estimate_split *sp, bool *first)
{
    struct llmroof_oplist o;
    struct llmroof_phase t;
    ops_build(s->model, sh, &s->dt, b, &o);
    roofline_eval_prep(rp, &o, &t);
    if (*first) {
        *ops = o;
        for (int k = 0; k < LLMROOF_OP_COUNT; k++)
            ops->op[k].flops = ops->op[k].bytes = ops->op[k].comm_bytes = 0.0;
        *first = false;
    }
    phase_add(ph, ops, sp, &t, &o, w);
}

/* The distinct passes of a packed prompt stream, with how many times each recurs (the stream's
 * pattern repeats with the prompts: 2048 passes of 256 prompts of 4096 tokens are 8 kinds). */
#define PASS_KINDS 64

static bool batch_same(const struct llmroof_batch *a, const struct llmroof_batch *b)
{
    return a->tokens == b->tokens && a->seqs == b->seqs && a->attn_pairs == b->attn_pairs &&
           a->kv_read_tokens == b->kv_read_tokens && a->few_tokens == b->few_tokens && a->few_seqs == b->few_seqs &&
           a->few_pairs == b->few_pairs && a->few_keys == b->few_keys && a->extra_logits == b->extra_logits;
}

/* An engine that evaluates at most U prompt tokens per forward pass (llama.cpp: n_ubatch, 512 by
 * default; before March 2024 n_batch, also 512) runs B prompts of P tokens as one stream of B P
 * tokens cut into ceil(B P / U) passes: llama_decode takes a batch's tokens in order (its simple
 * split), so a pass ends one prompt and starts the next, and the piece of a prompt in a pass
 * attends to that prompt's keys before it (llama.cpp's KQ is n_kv x n_tokens: eager attention's
 * score matrix shrinks from P x P to about half of it at P = 8U). Every pass reads the weights and
 * pays the step's fixed costs; only a piece that ends its prompt has a logits row (llama.cpp
 * computes outputs only where logits are asked since March 2024, PR #6122), every token one where
 * the engine projects them all (logits_all_tokens). The simulator's passes_time cuts its
 * iterations the same way. Layouts with data-parallel attention or pipeline stages (llama.cpp's
 * layer split over GPUs) keep the single pass: their micro-batches are costed elsewhere (the
 * bubble). A draft model's prefill is one pass too. */
/* The pass of the stream's tokens [lo, hi) (B prompts of P tokens one after another). */
static struct llmroof_batch stream_pass(const struct llmroof_setup *s, const struct llmroof_shard *sh, double P,
                                        double lo, double hi)
{
    struct llmroof_batch b = { 0 };
    const long i0 = (long)floor(lo / P), i1 = (long)ceil(hi / P); /* the prompts it touches */
    for (long ip = i0; ip < i1; ip++) {
        const double i = (double)ip, from = fmax(lo, i * P), to = fmin(hi, (i + 1.0) * P);
        struct llmroof_batch q = batch_chunk(1.0, to - from, from - i * P, &sh->few);
        q.extra_logits = s->eff.logits_all_tokens ? q.tokens - 1.0 : to >= (i + 1.0) * P ? 0.0 : -1.0;
        batch_accumulate(&b, &q);
    }
    return b;
}

/* Greatest common divisor of two positive whole numbers (as doubles up to 2^53). */
static double gcd_d(double a, double b)
{
    while (b > 0.5) {
        const double r = fmod(a, b);
        a = b;
        b = r;
    }
    return a;
}

/* The most pass offsets costed one by one; beyond, the offsets are costed in PASS_BUCKETS classes */
#define PASS_EXACT_MAX 4096
#define PASS_BUCKETS 512

static void prefill_in_passes(const struct llmroof_setup *s, const struct roofline_prep *rp,
                              const struct llmroof_shard *sh, double B, double P, double U,
                              struct llmroof_oplist *ops, struct llmroof_phase *ph, struct estimate_split *sp)
{
    memset(ph, 0, sizeof *ph);
    *sp = (struct estimate_split){ 0.0, 0.0, 0.0 };
    bool first = true;
    struct llmroof_batch kind[PASS_KINDS];
    double times[PASS_KINDS];
    int nk = 0;
    const double total = B * P;
    const double npass = ceil(total / U); /* B, P and U are whole numbers (the catalog's check) */
    /* A full pass j covers [jU, jU + U): what it holds depends only on where it starts in a
     * prompt, jU mod P, and those offsets cycle through the multiples of g = gcd(P, U) with a
     * period of T = P / g passes. So the npass - 1 full passes are T kinds, each recurring
     * floor((npass - 1) / T) times and once more for the first (npass - 1) mod T; the last pass,
     * which may be short, is costed alone. Costing each pass as it came had looped B P / U times
     * (a request of a million prompts of a billion tokens held a server's thread for good: a
     * review). Where T exceeds PASS_EXACT_MAX (a prompt of many passes), the offsets, spread
     * evenly over [0, P), are costed in PASS_BUCKETS classes, each at its middle offset: a pass's
     * figures are linear in its offset, so the classes' mean is the mean pass. */
    const double full = npass - 1.0, T = P / gcd_d(P, U);
    const bool exact = T <= PASS_EXACT_MAX;
    const long nclass = exact ? (long)fmin(T, full) : PASS_BUCKETS;
    for (long r = 0; r < nclass; r++) {
        double lo, count;
        if (exact) {
            lo = (double)r * U;
            count = floor(full / T) + ((double)r < fmod(full, T) ? 1.0 : 0.0);
        } else {
            /* a start of prompt 0's passes (U apart), at most the last full pass's */
            lo = fmin(floor(((double)r + 0.5) * P / PASS_BUCKETS / U) * U, (full - 1.0) * U);
            count = full / PASS_BUCKETS;
        }
        if (!(count > 0))
            continue;
        const struct llmroof_batch b = stream_pass(s, sh, P, lo, lo + U);
        int k = 0;
        while (k < nk && !batch_same(&kind[k], &b))
            k++;
        if (k < nk) {
            times[k] += count;
        } else if (nk < PASS_KINDS) {
            kind[nk] = b;
            times[nk++] = count;
        } else {
            add_pass(s, rp, sh, &b, count, ops, ph, sp, &first); /* a pattern of more kinds: as it comes */
        }
    }
    for (int k = 0; k < nk; k++)
        add_pass(s, rp, sh, &kind[k], times[k], ops, ph, sp, &first);
    if (npass >= 1.0) { /* the last pass: the stream's end, whole or short */
        const struct llmroof_batch b = stream_pass(s, sh, P, full * U, total);
        add_pass(s, rp, sh, &b, 1.0, ops, ph, sp, &first);
    }
}

/* ------------------------------------------------------------------------ */
/* Speculative decoding                                                     */
/* ------------------------------------------------------------------------ */

/* TGI 0.8's contiguous K/V (engine kv_copy): every decode step of two or more sequences copies the
 * batch's K/V into a tensor one slot longer per sequence, B c tokens at context c, read and
 * written once (roofline_kv_copy_s; the simulator's kv_copy_s). Linear in c: the mean over the
 * decode is its value at the mean context. Added to the step, as the engine's CPU work is. */
int estimate_kv_copy_s(const struct llmroof_setup *s, double tokens, double *copy_s, struct llmroof_err *err)
{
    const struct llmroof_layout lay = estimate_layout(s);
    const struct llmroof_mem_opts mo = memory_default_opts();
    struct llmroof_memory mem;
    /* a contiguous tensor holds every token of every layer, windows or not: a token's bytes at a
     * context of one (where no window has dropped anything), as the simulator's kv_copy_s counts */
    const int rc = memory_eval_layout(s->model, s->gpu, &lay, &s->dt, 1, &mo, &mem, err);
    *copy_s = rc ? 0.0 : roofline_kv_copy_s(s->gpu, &s->eff, tokens, mem.kv_bytes_per_token_per_gpu);
    return rc;
}

static int add_kv_copy(const struct llmroof_setup *s, double B, double c_mean, struct llmroof_estimate *out,
                       struct llmroof_err *err)
{
    const int rc = estimate_kv_copy_s(s, B * c_mean, &out->kv_copy_s, err);
    out->step_s += out->kv_copy_s;
    return rc;
}

/* A decode step of B sequences that each put `v` new tokens after c - 1 cached ones (the target's
 * verification pass: batch_add's sums, v = 1 is batch_decode(B, c)). MLA runs it absorbed from
 * the context its break-even line allows on (ops_few_query: DeepSeek-V3, 4 positions on an H200,
 * after 19 cached tokens); where the first and last decode steps fall on either side of it,
 * the mean step between them (linear in the context) is an approximation of a few short steps. */
static struct llmroof_batch step_batch(double B, double c, double v, const struct ops_few_rule *few)
{
    if (v <= 1.0)
        return batch_decode(B, c);
    struct llmroof_batch b = batch_chunk(B, v, c - 1.0, few);
    b.extra_logits = B * (v - 1.0); /* the target's logits at every verified position */
    return b;
}


/* The drafter's passes of one step over B sequences at context c, as the simulator costs them
 * (serve/sim_sched.c gpu_time): a draft model k passes of one token per sequence (a tree's later
 * passes topk), at the setup's efficiencies; an EAGLE head or MTP module k draft steps
 * (ops_build_draft) and Medusa one, at the target's efficiencies for the step (heff: its
 * verification passes replay from graphs). Each pass is a step of its own, with its overhead,
 * but where the engine replays the whole draft loop as one graph (roofline_draft_effs). */
static int draft_cost(const struct llmroof_setup *s, const struct llmroof_effs *heff, const struct llmroof_shard *sh,
                      const struct llmroof_spec_decode *sp, double B, double Bb, double c, struct llmroof_phase *out,
                      struct estimate_split *split, struct llmroof_err *err)
{
    const struct llmroof_batch first = batch_decode(B, c);
    const struct llmroof_batch later = sp->topk > 1 ? ops_batch_widen(&first, (double)sp->topk) : first;
    /* Bb: the busiest replica's sequences, which its graph holds */
    const struct llmroof_effs deff = roofline_draft_effs(&s->eff, Bb), dheff = roofline_draft_effs(heff, Bb);
    heff = &dheff;
    struct llmroof_oplist ops;
    struct llmroof_phase p;
    memset(out, 0, sizeof *out);
    *split = (struct estimate_split){ 0.0, 0.0, 0.0 };
    switch (sp->drafter) {
    case LLMROOF_DRAFTER_MODEL: {
        /* a draft model is a model of its own on each attention replica's TP ranks (a shard
         * without replicas): under data-parallel attention each replica drafts its own sequences,
         * B / replicas of the B given (the busiest's times the replicas, as a head's mean takes
         * them). Until session 38 the whole B: Qwen3-235B-A22B at EP 8 with a Qwen3-8B draft, 64
         * sequences, drafted 64 per GPU where the busiest replica holds 8 (22.9 ms a step) */
        struct llmroof_shard dsh;
        int rc = ops_shard(sp->draft, s->tp, &dsh, err);
        if (rc)
            return rc;
        const double own = sh->attn_dp > 1 ? B / (double)sh->attn_dp : B;
        const struct llmroof_batch dfirst = batch_decode(own, c);
        const struct llmroof_batch dlater = sp->topk > 1 ? ops_batch_widen(&dfirst, (double)sp->topk) : dfirst;
        const struct llmroof_dtypes ddt = ckpt_draft_dtypes(sp->draft, &s->dt); /* its own checkpoint's */
        ops_build(sp->draft, &dsh, &ddt, &dfirst, &ops);
        roofline_eval(s->gpu, ddt.act, &deff, s->tp, &ops, &p);
        passes_add(out, split, &p, 1.0);
        if (sp->steps > 1) {
            ops_build(sp->draft, &dsh, &ddt, &dlater, &ops);
            roofline_eval(s->gpu, ddt.act, &deff, s->tp, &ops, &p);
            passes_add(out, split, &p, (double)(sp->steps - 1));
        }
        break;
    }
    case LLMROOF_DRAFTER_HEAD: {
        /* EAGLE-3 fuses the target's features at its first pass only (ops_head_shape) */
        const struct ops_head h1 = ops_head_shape_own(s->model, &sp->head, sp->eagle3_vocab, true, sp->eagle),
                              h2 = ops_head_shape_own(s->model, &sp->head, sp->eagle3_vocab, false, sp->eagle);
        /* an EAGLE head computes at its own 16 bits (ops_draft_act), an MTP module at the target's */
        ops_build_draft(s->model, sh, &s->dt, &first, 0, &h1, &ops);
        roofline_eval(s->gpu, ops_draft_act(&s->dt, 0, &h1), heff, s->tp, &ops, &p);
        passes_add(out, split, &p, 1.0);
        if (sp->steps > 1) {
            ops_build_draft(s->model, sh, &s->dt, &later, 0, &h2, &ops);
            roofline_eval(s->gpu, ops_draft_act(&s->dt, 0, &h2), heff, s->tp, &ops, &p);
            passes_add(out, split, &p, (double)(sp->steps - 1));
        }
        break;
    }
    case LLMROOF_DRAFTER_MEDUSA:
        ops_build_draft(s->model, sh, &s->dt, &first, sp->steps, NULL, &ops);
        roofline_eval(s->gpu, ops_draft_act(&s->dt, sp->steps, NULL), heff, s->tp, &ops, &p);
        passes_add(out, split, &p, 1.0);
        break;
    }
    /* the draft graph's one replay (0 where each pass paid its own overhead) */
    const double g = roofline_draft_graph_s(s->gpu, &s->eff, Bb);
    out->overhead_s += g;
    out->time_s += g;
    out->bound = roofline_largest_bound(out->bound_s);
    return LLMROOF_OK;
}

/* The decode step of an engine that evaluates at most U tokens per forward pass (llama.cpp's
 * n_ubatch; prefill_in_passes for the prompt) over B > U sequences: llama_decode splits the batch
 * into floor(B / U) passes of U sequences and one of the rest, each reading the weights and paying
 * the step's fixed costs; in a static batch every sequence is at the same context, so each pass is
 * a decode step of its own sequences (the simulator's passes_time splits its iterations alike).
 * `out` holds the request's estimate; its decode phase, operators, columns and step become the
 * passes' sums. */
static int decode_in_passes(const struct llmroof_setup *s, const struct llmroof_request *r, double U,
                            struct llmroof_estimate *out, struct llmroof_err *err)
{
    const double full = floor((double)r->batch / U), rest = (double)r->batch - full * U;
    struct llmroof_estimate part;
    memset(&out->decode, 0, sizeof out->decode);
    out->decode_split = (struct estimate_split){ 0.0, 0.0, 0.0 };
    bool first = true;
    for (int k = 0; k < 2; k++) {
        const struct llmroof_request pr = { k == 0 ? (long)U : (long)rest, r->prompt, r->output };
        if (pr.batch < 1)
            continue;
        const int rc = estimate_run(s, &pr, &part, err);
        if (rc)
            return rc;
        if (first) {
            out->decode_ops = part.decode_ops;
            for (int j = 0; j < LLMROOF_OP_COUNT; j++)
                out->decode_ops.op[j].flops = out->decode_ops.op[j].bytes = out->decode_ops.op[j].comm_bytes = 0.0;
            first = false;
        }
        phase_add(&out->decode, &out->decode_ops, &out->decode_split, &part.decode, &part.decode_ops,
                  k == 0 ? full : 1.0);
    }
    return LLMROOF_OK;
}

struct llmroof_dtypes estimate_drafter_dtypes(const struct llmroof_dtypes *dt, const struct llmroof_spec_decode *sp)
{
    const bool model = sp->drafter == LLMROOF_DRAFTER_MODEL && sp->draft;
    const bool apart = sp->drafter == LLMROOF_DRAFTER_MEDUSA || (sp->drafter == LLMROOF_DRAFTER_HEAD && sp->eagle);
    return ckpt_drafter_dtypes(dt, model ? sp->draft : NULL, apart, &sp->head);
}

static int spec_check(const struct llmroof_spec_decode *sp, struct llmroof_err *err)
{
    if (sp->steps < 1 || sp->steps > 64)
        return llmroof_err_set(err, LLMROOF_EINPUT, "speculative decoding proposes 1 to 64 tokens per step, not %d",
                               sp->steps);
    if (sp->verify < 2 || sp->verify > 4096 || sp->topk < 0 || sp->topk > 64)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "speculative decoding verifies 2 to 4096 positions per sequence (got %d), topk 0 to 64",
                               sp->verify);
    if (!(sp->tokens_per_step >= 1.0 && sp->tokens_per_step <= (double)sp->verify))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "speculative decoding emits 1 to %d tokens per step (the positions verified), not %g",
                               sp->verify, sp->tokens_per_step);
    if (sp->drafter == LLMROOF_DRAFTER_MODEL && !sp->draft)
        return llmroof_err_set(err, LLMROOF_EINPUT, "speculative decoding with a draft model needs the draft model");
    return LLMROOF_OK;
}

/* ------------------------------------------------------------------------ */
/* The decode's contexts in linear runs                                     */
/* ------------------------------------------------------------------------ */

/* seg[n..] = the contexts lo..hi counted `times`, in two runs where `cut` (the last context of
 * the first) falls inside; returns the new count */
static int seg_add(struct estimate_segment *seg, int n, double lo, double hi, double times, double cut)
{
    if (hi < lo)
        return n;
    if (cut >= lo && cut < hi) {
        seg[n++] = (struct estimate_segment){ lo, cut, times };
        lo = cut + 1.0;
    }
    seg[n++] = (struct estimate_segment){ lo, hi, times };
    return n;
}

/* The last context before the bend at the end of chunk period p (contexts pW + 1 .. (p + 1) W):
 * from (p + 1) W + 2 - v on, a step's last positions fall in the next chunk. None (-1) at one new
 * token per sequence (the bend is the fall itself, at the period's end) or v >= W. */
static double chunk_band(double W, double v, double p)
{
    return v > 1.0 && v < W ? (p + 1.0) * W + 1.0 - v : -1.0;
}

int estimate_context_segments(const struct llmroof_model *m, int k, double v, bool eager, double c1, double c2,
                              struct estimate_segment *seg)
{
    const bool local = k == LLMROOF_OP_ATTN_LOCAL && m->window > 0 && !eager;
    if (local && m->window_chunked) {
        /* chunk periods pW + 1 .. (p + 1) W (arch_attn_keys: keys from the chunk start of the
         * first new position, c - 1 cached tokens before it) */
        const double W = (double)m->window, p1 = floor((c1 - 1.0) / W), p2 = floor((c2 - 1.0) / W);
        if (p1 == p2)
            return seg_add(seg, 0, c1, c2, 1.0, chunk_band(W, v, p1));
        int n = seg_add(seg, 0, c1, (p1 + 1.0) * W, 1.0, chunk_band(W, v, p1));
        const double whole = p2 - p1 - 1.0; /* whole periods between the first and the last */
        if (whole == 1.0) {
            n = seg_add(seg, n, (p1 + 1.0) * W + 1.0, (p1 + 2.0) * W, 1.0, chunk_band(W, v, p1 + 1.0));
        } else if (whole > 1.0) {
            n = seg_add(seg, n, (p1 + 1.0) * W + 1.0, (p1 + 2.0) * W, 0.5 * whole, chunk_band(W, v, p1 + 1.0));
            n = seg_add(seg, n, (p2 - 1.0) * W + 1.0, p2 * W, 0.5 * whole, chunk_band(W, v, p2 - 1.0));
        }
        return seg_add(seg, n, p2 * W + 1.0, c2, 1.0, chunk_band(W, v, p2));
    }
    /* a run ends at each of these contexts (sorted below) */
    double ends[3];
    int ne = 0;
    if (local) {
        const double W = (double)m->window;
        ends[ne++] = W + 1.0 - v; /* pairs bend */
        ends[ne++] = W;           /* keys flat, pairs flat */
    } else if (k == LLMROOF_OP_ATTENTION && m->dsa_top_k > 0) {
        const double K = (double)m->dsa_top_k;
        ends[ne++] = K + 1.0 - v;       /* pairs bend */
        ends[ne++] = K;                 /* pairs flat */
        ends[ne++] = v * (K - 1.0) + 1.0; /* keys flat */
    }
    for (int i = 1; i < ne; i++)
        for (int j = i; j > 0 && ends[j] < ends[j - 1]; j--) {
            const double t = ends[j];
            ends[j] = ends[j - 1];
            ends[j - 1] = t;
        }
    int n = 0;
    double lo = c1;
    for (int i = 0; i < ne; i++)
        if (ends[i] >= lo && ends[i] < c2) {
            seg[n++] = (struct estimate_segment){ lo, ends[i], 1.0 };
            lo = ends[i] + 1.0;
        }
    seg[n++] = (struct estimate_segment){ lo, c2, 1.0 };
    return n;
}

/* One context operator's sums over the runs of the decode: each run's contexts counted, the
 * kernel time's envelope summed exactly (as the single run of estimate_run_spec), every linear
 * term as its run's mean times its steps. */
struct ctx_sums {
    double steps;                     /* contexts counted (O - 1) */
    double time_s, first_s;           /* the summed kernel time; its part on the compute line */
    double compute_s, memory_s, comm_s, bytes; /* the phase entry's terms */
    double flops, op_bytes, comm_bytes; /* the operator's, per instance */
    double kv_bytes;                  /* the list's attn_kv_bytes (global attention's K/V) */
};

/* The first decode step (context c1) and the last (c2) as estimate_run_spec has built them: the
 * first's entries whole, the last's context operators and terms. */
struct ctx_ends {
    double c1, c2;
    const struct llmroof_oplist *o1, *o2;
    const struct llmroof_phase *p1, *p2;
};

/* The step at context c into *op and *pp: the first or the last where c is theirs, else built in
 * *o and *p as estimate_run_spec builds the last (the context operators from the last's step-wide
 * fields, the terms against the first step's entries), a step of Bs sequences (the busiest
 * replica's times the replicas) of v new tokens each. */
static void context_at(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct roofline_prep *dp,
                       double Bs, double v, const struct ctx_ends *e, double c, struct llmroof_oplist *o,
                       struct llmroof_phase *p, const struct llmroof_oplist **op, const struct llmroof_phase **pp)
{
    if (c == e->c1 || c == e->c2) {
        *op = c == e->c1 ? e->o1 : e->o2;
        *pp = c == e->c1 ? e->p1 : e->p2;
        return;
    }
    const struct llmroof_batch b = step_batch(Bs, c, v, &sh->few);
    ops_copy_context(o, e->o2);
    ops_set_context(s->model, sh, &s->dt, &b, o);
    roofline_terms_prep(dp, o, OPS_CONTEXT_MASK, e->o1, e->p1, p);
    *op = o;
    *pp = p;
}

/* The sums of operator k over seg[0, n), each run's steps built at its two ends (context_at). */
static void context_sums(const struct llmroof_setup *s, const struct llmroof_shard *sh, const struct roofline_prep *dp,
                         double Bs, double v, int k, const struct estimate_segment *seg, int n,
                         const struct ctx_ends *ends, struct ctx_sums *out)
{
    *out = (struct ctx_sums){ 0 };
    const double kf = s->eff.kernel_factor > 0 ? s->eff.kernel_factor : 1.0, o = s->eff.overlap;
    struct llmroof_oplist bl, bh;
    struct llmroof_phase tbl, tbh;
    for (int i = 0; i < n; i++) {
        const double lo = seg[i].lo, hi = seg[i].hi, w = seg[i].times, steps = hi - lo + 1.0;
        const struct llmroof_oplist *ol, *oe; /* the run's first step and its last */
        const struct llmroof_phase *pl, *pe;
        context_at(s, sh, dp, Bs, v, ends, lo, &bl, &tbl, &ol, &pl);
        oe = ol;
        pe = pl;
        if (hi > lo)
            context_at(s, sh, dp, Bs, v, ends, hi, &bh, &tbh, &oe, &pe);
        const struct llmroof_optime *tl = &pl->op[k], *th = &pe->op[k];
        const struct llmroof_op *ql = &ol->op[k], *qh = &oe->op[k];
        /* a line's sum over the run: its steps times the mean of its ends */
        const double half = 0.5 * w * steps;
        out->steps += w * steps;
        out->compute_s += half * (tl->compute_s + th->compute_s);
        out->memory_s += half * (tl->memory_s + th->memory_s);
        out->comm_s += half * (tl->comm_s + th->comm_s);
        out->bytes += half * (tl->bytes + th->bytes);
        out->flops += half * (ql->flops + qh->flops);
        out->op_bytes += half * (ql->bytes + qh->bytes);
        out->comm_bytes += half * (ql->comm_bytes + qh->comm_bytes);
        out->kv_bytes += half * (ol->attn_kv_bytes + oe->attn_kv_bytes);
        if (ql->count <= 0)
            continue;
        /* the envelope of estimate_run_spec's two lines over the run */
        const double F = ql->count * tl->kernels * kf * s->eff.kernel_s;
        const double bc = hi > lo ? (th->compute_s - tl->compute_s) / (hi - lo) : 0.0;
        const double bm = hi > lo ? (th->memory_s - tl->memory_s) / (hi - lo) : 0.0;
        const double ac = tl->compute_s - bc * lo, am = tl->memory_s - bm * lo;
        double first = 0.0;
        out->time_s += w * estimate_sum_max_linear(ac + o * am + F, bc + o * bm, am + o * ac + F, bm + o * bc, lo, hi,
                                                   &first);
        out->first_s += w * first;
    }
}

int estimate_run(const struct llmroof_setup *s, const struct llmroof_request *r,
                 struct llmroof_estimate *out, struct llmroof_err *err)
{
    return estimate_run_spec(s, r, NULL, out, err);
}

int estimate_run_spec(const struct llmroof_setup *s, const struct llmroof_request *r,
                      const struct llmroof_spec_decode *spec, struct llmroof_estimate *out,
                      struct llmroof_err *err)
{
    /* the shard straight into *out (a copy read it back wider than it was written) */
    int rc = estimate_check_shard(s, &out->shard, err);
    if (rc)
        return rc;
    if (r->batch < 1 || r->prompt < 1 || r->output < 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "batch, prompt and output must each be at least 1");
    if (spec && (rc = spec_check(spec, err)))
        return rc;
    if (spec && spec->drafter == LLMROOF_DRAFTER_HEAD && spec->eagle && spec->head.heads > 0) {
        /* a head of its own shape splits over the target's attention TP (ops_head_attn) */
        struct llmroof_model am;
        struct llmroof_shard ash;
        if ((rc = ops_head_attn(s->model, &spec->head, &out->shard, &am, &ash, err)))
            return rc;
    }
    out->has_spec = spec != NULL;
    out->spec = spec ? *spec
                     : (struct llmroof_spec_decode){ LLMROOF_DRAFTER_HEAD, NULL, NULL, 0, 0.0, 0, 0, 1.0, 0, false, { 0 } };
    out->tokens_per_step = spec ? spec->tokens_per_step : 1.0;
    out->draft_prefill_s = 0.0;
    memset(&out->draft, 0, sizeof out->draft);
    out->draft_split = (struct estimate_split){ 0.0, 0.0, 0.0 };
    out->step_s = 0.0;
    /* every part of *out is written below (operator lists by ops_build, phases by the roofline,
     * the decode's zeroed when there is none): no memset of its 5 KB first */
    out->pp_bubble_s = 0.0;
    out->first_step_s = 0.0;
    out->tpot_s = 0.0;
    out->decode_tok_s = 0.0;
    /* the GPU's peaks and links, derived once for the three steps below */
    struct roofline_prep rp;
    roofline_prepare(s->gpu, s->dt.act, &s->eff, s->tp, &rp);

    /* Pipeline parallelism (docs/model.md "Layouts"): the batch splits into n = min(pp, B)
     * micro-batches of whole sequences, the largest ceil(B/n) (the simulator's lanes). One
     * micro-batch's pass is the sum of the stages plus the sends (the operator list of all
     * layers); prefill ends when the last micro-batch leaves the last stage, n-1 largest-stage
     * times later (the bubble); decode advances every micro-batch one token per pass, or per n
     * passes of the largest stage where the layers do not split evenly (the fullest stage holds
     * each micro-batch longest), so TPOT is the longer of the two and throughput B / TPOT. */
    const double Ball = (double)r->batch, P = (double)r->prompt, O = (double)r->output;
    const double nmb = out->shard.pp > 1 ? (Ball < out->shard.pp ? Ball : (double)out->shard.pp) : 1.0;
    const double B = ceil(Ball / nmb);
    out->micro_batches = nmb;
    /* data-parallel attention: whole sequences per replica, the busiest sets the step */
    const int rep = out->shard.attn_dp > 1 ? out->shard.attn_dp : 1;
    const double Bb = estimate_busiest_seqs(B, rep);
    /* the prompts fill the pipeline as they come: their mean micro-batch, B/n, times the passes */
    const double Bp = Ball / nmb, Bpb = estimate_busiest_seqs(Bp, rep);
    const double U = s->eff.prompt_ubatch_tokens;
    const bool in_passes = U > 0 && Ball * P > U && rep == 1 && out->shard.pp <= 1;
    /* MLA's choice of form where a pass holds several new tokens after cached ones: the prompt's
     * later passes, speculative verification (a prompt's first pass and a decode step need none) */
    if (in_passes || spec)
        estimate_mla_few_rule(s, &out->shard);
    struct llmroof_batch pb = prompt_batch(s, &out->shard, Bp, P), pbb = prompt_batch(s, &out->shard, Bpb, P),
                         pbl = least_share(Bp, rep, P);
    if (in_passes) {
        prefill_in_passes(s, &rp, &out->shard, Ball, P, U, &out->prefill_ops, &out->prefill, &out->prefill_split);
    } else {
        estimate_ops_replicas(s->model, &out->shard, &s->dt, &pbb, &pb, &pbl, &out->prefill_ops);
        roofline_eval_prep(&rp, &out->prefill_ops, &out->prefill);
        bound_exposed(&out->prefill);
        out->prefill_split = estimate_phase_split(&out->prefill);
    }
    if (nmb > 1) {
        const double stage = (out->prefill.time_s - out->prefill.op[LLMROOF_OP_PP_SEND].time_s) *
                             stage_share_max(s, &out->shard, false);
        out->pp_bubble_s = (nmb - 1.0) * stage;
    }
    /* the engine's first-token overhead (tokenisation, admission, first sampling) adds to TTFT
     * but occupies no GPU time */
    out->ttft_s = out->prefill.time_s + out->pp_bubble_s + s->eff.first_token_s;
    /* the engine's CPU work for the step's B sequences beside the prefill's GPU time (scheduling,
     * the first token's output processing: roofline_cpu_step_s, the simulator's rule), through the
     * engine's own API (no HTTP server). With data-parallel attention each replica is a scheduler
     * of its own (SGLang's DP workers, vLLM's DP engine cores), running beside the others: the
     * busiest replica's sequences set it */
    const double gpus = (double)s->tp * (out->shard.pp > 1 ? (double)out->shard.pp : 1.0);
    const double workers = gpus > 1 || s->eff.ray_workers ? gpus : 0.0;
    out->cpu_prefill_s = roofline_cpu_step_s(&s->eff, out->prefill.time_s, Bpb, workers, spec != NULL, 0.0, 0.0, Bpb * P) -
                         out->prefill.time_s;
    out->ttft_s += out->cpu_prefill_s;
    if (s->eff.first_token_decode) {
        /* TurboMind prefills all but the last prompt token and samples the first token from a
         * decode step over it (LlamaBatch::contextDecode/Generate, docs/model.md section 5): one
         * decode step of the batch at P keys joins TTFT, and every output token costs a step */
        struct llmroof_batch fb = batch_decode(B, P), fbb = batch_decode(Bb, P), fbl = least_share(B, rep, 1.0);
        struct llmroof_oplist fo;
        struct llmroof_phase fp;
        estimate_ops_replicas(s->model, &out->shard, &s->dt, &fbb, &fb, &fbl, &fo);
        roofline_eval_prep(&rp, &fo, &fp);
        out->first_step_s = fp.time_s;
        out->ttft_s += fp.time_s;
    }
    if (spec && spec->drafter != LLMROOF_DRAFTER_MEDUSA) {
        /* the drafter takes the prompt before the first token: a draft model prefills its own
         * K/V cache, an EAGLE head or MTP module runs its layer over the prompt's hidden states
         * (Medusa's heads read the last position only). Llama-3.1-70B at TP 4 with a Llama-3.1-8B
         * draft, 4,096 tokens: 35 ms more */
        struct llmroof_oplist dop;
        struct llmroof_phase dph;
        enum llmroof_dtype dact = s->dt.act; /* what the drafter computes at */
        if (spec->drafter == LLMROOF_DRAFTER_MODEL) {
            /* on each attention replica's own TP ranks, over its own prompts: the busiest
             * replica's (pbb; pb without replicas). Until session 38 the whole batch's:
             * Qwen3-235B-A22B at EP 8, 64 prompts of 1,024 tokens, a Qwen3-8B draft took 1.36 s
             * where the busiest replica's 8 prompts take 8,192 x 2 x 8.19e9 FLOP / (989.5 TFLOP/s
             * x 0.71) = 0.19 s */
            struct llmroof_shard dsh;
            if ((rc = ops_shard(spec->draft, s->tp, &dsh, err)))
                return rc;
            const struct llmroof_dtypes ddt = ckpt_draft_dtypes(spec->draft, &s->dt);
            ops_build(spec->draft, &dsh, &ddt, rep > 1 ? &pbb : &pb, &dop);
            dact = ddt.act;
        } else {
            const struct llmroof_batch pbd = batch_prefill(Bb * (double)rep, P, &out->shard.few); /* the busiest replica's */
            const struct ops_head hd = ops_head_shape_own(s->model, &spec->head, spec->eagle3_vocab, true, spec->eagle);
            ops_build_draft(s->model, &out->shard, &s->dt, &pbd, 0, &hd, &dop);
            dact = ops_draft_act(&s->dt, 0, &hd);
        }
        roofline_eval(s->gpu, dact, &s->eff, s->tp, &dop, &dph);
        out->draft_prefill_s = dph.time_s;
        out->ttft_s += dph.time_s;
    }

    out->decode_steps = O - 1.0;
    if (O >= 2) {
        /* Decode step for output token j (j = 2..O) attends to c = P + j - 1 keys. With
         * speculative decoding each step verifies V positions per sequence after c - 1 cached
         * tokens, and engines replay those passes from graphs as decode steps (the simulator's
         * graph_decode_new, serve/sim.c engine_init): the decode's efficiencies say so. */
        const double V = spec ? (double)spec->verify : 1.0;
        struct llmroof_effs deff = s->eff;
        struct roofline_prep rpd;
        const struct roofline_prep *dp = &rp;
        if (spec) {
            deff.graph_decode_new = (double)(spec->topk > spec->verify ? spec->topk : spec->verify);
            roofline_prepare(s->gpu, s->dt.act, &deff, s->tp, &rpd);
            dp = &rpd;
        }
        const double c1 = P + 1.0, c2 = P + O - 1.0;
        const struct ops_few_rule *few = &out->shard.few;
        struct llmroof_batch b1 = step_batch(B, c1, V, few), b1b = step_batch(Bb, c1, V, few),
                             b2 = step_batch(Bb * rep, c2, V, few);
        struct llmroof_oplist o2; /* the last step: its context operators and step-wide fields */
        struct llmroof_phase p2;
        /* the first step is built in place and turned into the mean below */
        struct llmroof_oplist *const dops = &out->decode_ops;
        struct llmroof_phase *const dph = &out->decode;
        const struct llmroof_batch b1l = least_share(B, rep, V);
        estimate_ops_replicas(s->model, &out->shard, &s->dt, &b1b, &b1, &b1l, dops);
        /* the first step's operators; its totals are summed once, for the mean, below (timed
         * before the copy: by then the list's stores have left the store buffer, and the copy's
         * wider loads do not wait on them) */
        roofline_ops_prep(dp, dops, dph);
        /* the last step differs from the first only in what attends to the context: the busiest
         * replica's, times the replicas as estimate_ops_replicas scales it (B without them) */
        ops_copy_context(&o2, dops);
        ops_set_context(s->model, &out->shard, &s->dt, &b2, &o2);
        /* the last step: only its linear terms are read below, and only the context operators
         * differ from the first step's (the others' entries are the first step's) */
        roofline_terms_prep(dp, &o2, OPS_CONTEXT_MASK, dops, dph, &p2);
        const struct llmroof_oplist *const o1 = dops;
        const struct llmroof_phase *const p1 = dph;
        /* Windowed and sparse attention bend in c (estimate_context_segments: a sliding window's
         * keys stop growing at W, a chunked window's fall back at every multiple of W, DSA's stop
         * at its top-k): such an operator is summed over its linear runs, each built at both
         * ends, not interpolated between c1 and c2 (which, across Llama-4's chunk boundary,
         * charged about twice the local layers' mean reads). Without a kink inside [c1, c2]
         * nothing more is built. */
        struct ctx_sums bent[2]; /* global attention's sums, the windowed layers' */
        bool bends[2] = { false, false };
        double dflops = 0.0, dbytes = 0.0, dcomm = 0.0; /* the bent operators' change to the means */
        double kv_mean = 0.5 * (o1->attn_kv_bytes + o2.attn_kv_bytes); /* global attention's K/V */
        if (s->model->window > 0 || s->model->dsa_top_k > 0) {
            const bool eager = roofline_attn_eager(&s->eff, V);
            const struct ctx_ends ends = { c1, c2, o1, &o2, p1, &p2 };
            for (int j = 0; j < 2; j++) {
                const int k = j ? LLMROOF_OP_ATTN_LOCAL : LLMROOF_OP_ATTENTION;
                if (dops->op[k].count <= 0)
                    continue;
                struct estimate_segment seg[ESTIMATE_MAX_SEGMENTS];
                const int n = estimate_context_segments(s->model, k, V, eager, c1, c2, seg);
                if (n <= 1)
                    continue;
                bends[j] = true;
                context_sums(s, &out->shard, dp, Bb * rep, V, k, seg, n, &ends, &bent[j]);
                const struct ctx_sums *cs = &bent[j];
                const double cnt = dops->op[k].count;
                dflops += cnt * (cs->flops / cs->steps - 0.5 * (o1->op[k].flops + o2.op[k].flops));
                dbytes += cs->bytes / cs->steps - 0.5 * (p1->op[k].bytes + p2.op[k].bytes);
                dcomm += cnt * (cs->comm_bytes / cs->steps - 0.5 * (o1->op[k].comm_bytes + o2.op[k].comm_bytes));
                if (k == LLMROOF_OP_ATTENTION)
                    kv_mean = cs->kv_bytes / cs->steps;
            }
        }
        /* flops, bytes, messages and the compute/memory terms are linear in c (or in each run of
         * a bent operator): their mean over the steps is their value at the mean context, the
         * mean of the two ends, plus what the bent operators' runs change in it */
        dph->flops = 0.5 * (p1->flops + p2.flops) + dflops;
        dph->bytes = 0.5 * (p1->bytes + p2.bytes) + dbytes;
        dph->comm_bytes = 0.5 * (p1->comm_bytes + p2.comm_bytes) + dcomm;
        dops->attn_kv_bytes = kv_mean;
        const double steps = c2 - c1 + 1.0, kf = s->eff.kernel_factor > 0 ? s->eff.kernel_factor : 1.0;
        const double o = s->eff.overlap;
        /* the operators of OPS_CONTEXT_MASK; the others are the same at both ends: their mean
         * is the first step's entry as it stands (0.5 * (x + x) == x) */
        static const int ctx_ops[] = { LLMROOF_OP_ATTENTION, LLMROOF_OP_ATTN_LOCAL, LLMROOF_OP_MLA_KV_UP,
                                       LLMROOF_OP_DSA_INDEX };
        /* equal by construction today; the assertion catches a later edit of either list */
        /* NOLINTNEXTLINE(misc-redundant-expression) */
        _Static_assert(OPS_CONTEXT_MASK == ((1u << LLMROOF_OP_ATTENTION) | (1u << LLMROOF_OP_ATTN_LOCAL) |
                                            (1u << LLMROOF_OP_MLA_KV_UP) | (1u << LLMROOF_OP_DSA_INDEX)),
                       "ctx_ops lists the operators of OPS_CONTEXT_MASK");
        for (size_t j = 0; j < sizeof ctx_ops / sizeof ctx_ops[0]; j++) {
            const int k = ctx_ops[j];
            struct llmroof_op *op = &dops->op[k];
            struct llmroof_optime *t = &dph->op[k];
            if (op->count <= 0)
                continue;
            /* a bent operator: its runs' sums (ctx_ops lists the two first) */
            if (j < 2 && bends[j]) {
                const struct ctx_sums *cs = &bent[j];
                op->flops = cs->flops / cs->steps;
                op->bytes = cs->op_bytes / cs->steps;
                op->comm_bytes = cs->comm_bytes / cs->steps;
                t->compute_s = cs->compute_s / cs->steps;
                t->memory_s = cs->memory_s / cs->steps;
                t->comm_s = cs->comm_s / cs->steps;
                t->bytes = cs->bytes / cs->steps;
                t->time_s = cs->time_s / cs->steps;
                t->fixed_s = t->time_s - (t->compute_s > t->memory_s ? t->compute_s : t->memory_s);
                t->bound = cs->first_s >= cs->time_s - cs->first_s ? LLMROOF_BOUND_COMPUTE : LLMROOF_BOUND_MEMORY;
                continue;
            }
            /* the first step's terms, read before they become the means */
            const double cs1 = t->compute_s, ms1 = t->memory_s;
            op->flops = 0.5 * (op->flops + o2.op[k].flops);
            op->bytes = 0.5 * (op->bytes + o2.op[k].bytes);
            op->comm_bytes = 0.5 * (op->comm_bytes + o2.op[k].comm_bytes);
            t->compute_s = 0.5 * (cs1 + p2.op[k].compute_s);
            t->memory_s = 0.5 * (ms1 + p2.op[k].memory_s);
            t->comm_s = 0.5 * (t->comm_s + p2.op[k].comm_s);
            t->bytes = 0.5 * (t->bytes + p2.op[k].bytes);
            if (t->bound == LLMROOF_BOUND_COMM) {
                t->time_s = t->comm_s;
                continue;
            }
            /* most operators (projections, MLP, norms) do not depend on the context: their
             * first-step time, already in t->time_s, is every step's time */
            if (p2.op[k].compute_s == cs1 && p2.op[k].memory_s == ms1) {
                /* roofline_eval's bound (compute_s >= memory_s) stands: the step does not change */
                continue;
            }
            /* time(c) = max(compute(c) + o*memory(c) + F, memory(c) + o*compute(c) + F) with
             * compute and memory linear in c, o the unhidden overlap share and F the kernels'
             * fixed GPU cost (llmroof/kernel.h): the upper envelope of two lines, summed exactly.
             * The CPU launches are the step's (roofline_total): independent of c, they stay the
             * first step's launch_s, and the wait is taken against the mean GPU time - exact
             * unless the GPU time crosses the launch time within the decode (then a lower bound) */
            const double kn = op->count * t->kernels * kf; /* as roofline.c launched them */
            const double F = kn * s->eff.kernel_s;
            const double bc = steps > 1 ? (p2.op[k].compute_s - cs1) / (c2 - c1) : 0.0;
            const double bmem = steps > 1 ? (p2.op[k].memory_s - ms1) / (c2 - c1) : 0.0;
            const double ac = cs1 - bc * c1, am = ms1 - bmem * c1;
            double part[2] = { 0, 0 };
            const double sum = estimate_sum_max_linear(ac + o * am + F, bc + o * bmem, am + o * ac + F, bmem + o * bc,
                                                       c1, c2, &part[0]);
            part[1] = sum - part[0];
            t->time_s = sum / steps;
            t->fixed_s = t->time_s - (t->compute_s > t->memory_s ? t->compute_s : t->memory_s);
            /* the GPU line that holds most steps names the bound */
            t->bound = part[0] >= part[1] ? LLMROOF_BOUND_COMPUTE : LLMROOF_BOUND_MEMORY;
        }
        roofline_total(&out->decode);
        bound_exposed(&out->decode);
        out->decode_split = estimate_phase_split(&out->decode);
        if (U > 0 && Ball > U && !spec && rep == 1 && out->shard.pp <= 1 &&
            (rc = decode_in_passes(s, r, U, out, err)))
            return rc;
        out->step_s = out->decode.time_s;
        out->kv_copy_s = 0.0; /* *out is not cleared as a whole: every field is written */
        if (s->eff.kv_copy && B >= 2 && (rc = add_kv_copy(s, B, 0.5 * (c1 + c2), out, err)))
            return rc;
        if (nmb > 1) { /* n micro-batches through the busiest stage (memory_stage_shares) */
            const double stage = (out->decode.time_s - out->decode.op[LLMROOF_OP_PP_SEND].time_s) *
                                 stage_share_max(s, &out->shard, true);
            if (nmb * stage > out->step_s)
                out->step_s = nmb * stage;
        }
        if (spec) {
            /* a head's passes run on every attention replica: the busiest's sequences, times the
             * replicas as ops_build_draft takes its mean (B without them) */
            if ((rc = draft_cost(s, &deff, &out->shard, spec, Bb * (double)rep, Bb, 0.5 * (c1 + c2), &out->draft,
                                 &out->draft_split, err)))
                return rc;
            out->step_s += out->draft.time_s;
        }
        /* the engine's CPU work per step for its B sequences beside the GPU's (the simulator's
         * sim_cpu_step_s: one rule), the busiest replica's Bb with data-parallel attention (each
         * replica schedules its own, as above); with speculation SGLang schedules between steps */
        const double gpu_step = out->step_s;
        /* (with the engine in a Ray actor, each sequence's prompt and output so far: its mean context) */
        out->step_s = roofline_cpu_step_s(&s->eff, gpu_step, Bb, workers, spec != NULL, 0.0, 0.0, Bb * 0.5 * (c1 + c2));
        out->cpu_step_s = out->step_s - gpu_step;
        out->tpot_s = out->step_s / out->tokens_per_step;
        if (spec) {
            /* O - 1 tokens take (O - 1) / tokens_per_step steps on average, and never fewer than
             * a step can emit at most (steps + 1 a step, every draft accepted): one step at least.
             * Without the bound a 2-token output at 6.1 tokens a step took 0.16 of an 11 ms step,
             * and speculation beat plain decoding where each step was twice as slow (a review) */
            const double n = O - 1.0, fewest = ceil(n / ((double)spec->steps + 1.0));
            if (n / out->tokens_per_step < fewest)
                out->tpot_s = out->step_s * fewest / n;
        }
        out->decode_tok_s = Ball / out->tpot_s;
    } else {
        memset(&out->decode_ops, 0, sizeof out->decode_ops);
        memset(&out->decode, 0, sizeof out->decode);
        out->decode_split = (struct estimate_split){ 0.0, 0.0, 0.0 };
        out->cpu_step_s = 0.0;
        out->kv_copy_s = 0.0;
    }
    out->e2e_s = out->ttft_s + out->decode_steps * out->tpot_s;
    out->output_tok_s = Ball * O / out->e2e_s;
    return LLMROOF_OK;
}
