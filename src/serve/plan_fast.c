/* plan_fast.c - the --fast analytic model of a closed loop's steady state (docs/planning.md,
 * "--fast: the analytic mode"). */
#include "serve/plan_internal.h"

#include <math.h>

/* One --fast step: B decodes at context ctx and q prompts of P tokens (those arriving during the
 * step), at most cap_tok prompt tokens on a replica. With data-parallel attention the replicas
 * meet at every MoE layer and the busiest sets the step (as the simulator's target_time): the q
 * prompts land on one replica while q <= 1 (it prefills q P tokens on average; linear costs make
 * the mean step the mean load's), on q replicas up to n, then q / n each; the experts see every
 * replica's tokens. A prefill-first engine (SGLang, vLLM before 0.6) runs the prompts in a
 * prompt-only iteration that stalls the decodes: the step is then a cycle, a decode iteration
 * plus, for q < 1 in a share q of the cycles, one prompt's iteration (q >= 1: all q of them). */
/* The engine's work beside a --fast step's GPU time, as estimate and the simulator take it: TGI
 * 0.8's copy of its contiguous K/V (B decodes at context ctx, roofline_kv_copy_s) and the CPU work
 * per scheduled sequence (roofline_cpu_step_s; the API server's streaming is left out, as
 * estimate leaves it): cpu_seqs the sequences one scheduler holds (with data-parallel attention
 * the busiest replica's), cpu_tokens their context tokens (what a Ray actor's engine carries). */
static double fast_engine_s(const struct llmroof_setup *s, double gpu_s, double B,
                            double ctx, double cpu_seqs, double cpu_tokens)
{
    double t = gpu_s;
    if (s->eff.kv_copy && B >= 2) {
        double copy_s = 0.0;
        struct llmroof_err e2 = { 0 };
        estimate_kv_copy_s(s, B * ctx, &copy_s, &e2); /* a layout that does not build: checked before */
        t += copy_s;
    }
    /* the workers one scheduler drives: with data-parallel attention its replica's */
    const double g = (double)sim_worker_gpus(s);
    const double workers = g > 1 || s->eff.ray_workers ? g : 0.0;
    return roofline_cpu_step_s(&s->eff, t, cpu_seqs, workers, false, 0.0, 0.0, cpu_tokens);
}

static double fast_pass(const struct llmroof_setup *s, const struct llmroof_shard *sh, double B, double ctx, double P,
                        double q, double cap_tok, double past)
{
    /* the step's prompt tokens as one sequence (batch_add counts one, so none when there are none) */
    const double seqs = B + (q > 0 ? q : 0.0);
    if (sh->attn_dp <= 1) {
        struct llmroof_batch b = batch_decode(B, ctx);
        if (q > 0)
            batch_add(&b, fmin(q * P, cap_tok), past, &sh->few);
        return fast_engine_s(s, sim_step_time(s, sh, &b), B, ctx, seqs, B * ctx);
    }
    const double n = (double)sh->attn_dp;
    const double busy = fmin(P * fmax(q / n, fmin(q, 1.0)), cap_tok);
    struct llmroof_batch hot = batch_decode(estimate_busiest_seqs(B, sh->attn_dp), ctx);
    struct llmroof_batch all = batch_decode(B, ctx);
    if (q > 0) {
        batch_add(&hot, busy, past, &sh->few);
        batch_add(&all, fmin(q * P, n * cap_tok), past, &sh->few);
    }
    const struct llmroof_batch least = batch_decode(floor(B / n), ctx);
    struct llmroof_oplist ops;
    struct llmroof_phase ph;
    estimate_ops_replicas(s->model, sh, &s->dt, &hot, &all, &least, &ops);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &ph);
    /* each replica schedules its own sequences beside the others (estimate's and the simulator's
     * rule): the busiest replica's decodes and its share of the prompts set the CPU's work */
    const double busy_dec = estimate_busiest_seqs(B, sh->attn_dp);
    const double busy_seqs = busy_dec + (q > 0 ? fmax(q / n, fmin(q, 1.0)) : 0.0);
    return fast_engine_s(s, ph.time_s, B, ctx, busy_seqs, busy_dec * ctx);
}

/* One plan_step_fixed_point solve. Its step f(t) at the prompts arriving in t (q of them): the
 * pass over the B decodes and q prompts, or for a prefill-first engine the decode iteration plus,
 * for q < 1 in a share q of the cycles, one prompt iteration (q >= 1: all q prompts in it), whose
 * decode pass (no prompts) is taken once a solve */
struct fp_solve {
    const struct llmroof_setup *s;
    const struct llmroof_shard *sh;
    bool prefill_first;
    double B, ctx, P, cap_tok;
    double t_dec; /* fast_pass of the B decodes alone */
};
/* f at q prompts */
static double fp_step(const struct fp_solve *fp, double q)
{
    if (!fp->prefill_first)
        return q > 0 ? fast_pass(fp->s, fp->sh, fp->B, fp->ctx, fp->P, q, fp->cap_tok, 0.0) : fp->t_dec;
    if (!(q > 0))
        return fp->t_dec;
    /* the prompt iteration holds prompts only (a batch of no decodes: B = 0) */
    return fp->t_dec + fmin(q, 1.0) * fast_pass(fp->s, fp->sh, 0.0, fp->ctx, fp->P, fmax(q, 1.0), fp->cap_tok, 0.0);
}

/* (plan.h) Fixed-point passes settle t when the prompts take a small share of a step; otherwise
 * it is bisected below the full step, which bounds it. Passes alone, unbounded, had failed: at
 * 198 users of Llama-65B on TP-4 A100s the first guess (X = 66 requests/s) has no fixed point, t
 * grew to 1e168 s, and 200 damped passes of the response time never came back, leaving the
 * answer at X ~ 0, a TPOT without its prompts (71.6 ms where the settled load gives 80). */
bool plan_step_fixed_point(const struct llmroof_setup *s, const struct llmroof_shard *sh, bool prefill_first,
                           double B, double ctx, double P, double rate_req, double cap_tok, double *t_out)
{
    const double n = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    struct fp_solve fp = { s, sh, prefill_first, B, ctx, P, cap_tok, fast_pass(s, sh, B, ctx, P, 0.0, cap_tok, 0.0) };
    /* every replica prefilling its whole room: the longest step, and the most prompt tokens one holds */
    const double t_full = fp_step(&fp, n * cap_tok / P);
    *t_out = t_full;
    if (!(rate_req * P * t_full < n * cap_tok))
        return false; /* the prompts arriving fill every step: no step holds them all */
    /* passes t = f(t) from the decode-only step rise to the least fixed point: f rises with t, but
     * f(t) - t need not fall (the roofline's thresholds, CUDA-graph sizes among them, make f jump),
     * so a root finder on [t_dec, t_full] could settle on a later one */
    const double t_dec = fp.t_dec;
    double t = t_dec;
    for (int k = 0; k < 20; k++) {
        const double tn = fp_step(&fp, rate_req * t);
        if (fabs(tn - t) <= 1e-9 * tn) {
            *t_out = tn;
            return true;
        }
        t = tn;
    }
    /* f(t) rises with t; f(t_dec) > t_dec and f(t_full) <= t_full (its prompts are fewer than the
     * cap's): the fixed point lies between */
    double lo = t_dec, hi = t_full;
    for (int k = 0; k < 60 && hi - lo > 1e-9 * hi; k++) {
        const double mid = 0.5 * (lo + hi);
        if (fp_step(&fp, rate_req * mid) <= mid)
            hi = mid;
        else
            lo = mid;
    }
    *t_out = hi;
    return true;
}

/* The --fast model: a closed loop of N users with mean think Z in steady state (the
 * interactive response-time law, X = N / (Z + R), and Little's law; Lazowska et al.,
 * "Quantitative System Performance", ch. 5, bottleneck analysis). With mean response time R:
 * - the sequences in service hold B = X * S, S = TTFT_service + (O - 1) t, capped by --max-seqs
 *   and the KV cache (cap_batch);
 * - an iteration holds those B decodes plus the prompt tokens arriving meanwhile, X P t, at most
 *   the budget's room: a chunked step's budget less its decodes (vLLM and SGLang schedule the
 *   running decodes first and fill the rest with prompt chunks), a whole-prompt engine's budget;
 *   its roofline time t (plan_step_fixed_point; a prefill-first engine's decode iteration with its
 *   share of prompt iterations, data-parallel attention's busiest replica) is TPOT, TTFT_service
 *   = t (prompt chunks + 1/2);
 * - two resources cap the throughput: the sequence slots, X <= cap / S, and the prompt room,
 *   X <= replicas x room / (P t_full) where the prompts fill every step; a closed loop beyond
 *   either waits: R = N / X_max - Z, the wait added to TTFT.
 * R = F(R) is solved by bisection (plan_fast_latency). Means stand in for percentiles. Until session 33
 * the prompts were not held to the budget: Llama-3.1-70B at 2000-token prompts and a budget of
 * 256 read 149 users an instance, each step 565 prompt tokens, where the simulation serves 21-36. */
struct fast_solve {
    const struct llmroof_setup *s;
    const struct llmroof_shard *sh;
    double N, P, O, Z, cap, budget, chunks;
    bool chunked, prefill_first;
};

/* A prompt's time in service to its first token: t (chunks + 1/2), the mean step t for each of its
 * chunks and half a step's wait, but no less than the steps that carry its own chunks take: each
 * holds the chunk beside the B decodes (a prefill-first engine's prompt-only iterations hold the
 * chunk alone, the decodes stalled), plus the half-step wait. The mean step counts the arriving
 * prompts' mean share of a step, at a light load a sliver of one prompt: Llama-3.1-70B on 8 H200s,
 * one user of 24,500-token prompts in 2,048-token chunks, had read 12.5 decode steps (~0.2 s) where
 * its 12 chunks take 1.0 s (estimate's TTFT at batch 1: 1.04 s). */
static double fast_ttft_service(const struct fast_solve *f, double B, double room, double t)
{
    const double mean = t * (f->chunks + 0.5);
    /* an engine without chunked prefill runs the prompt whole in one pass, alone where it is above
     * the budget (sim_sched.c: "a whole prompt above the budget runs where nothing else does") */
    const double c = f->chunked ? fmin(f->P, room) : f->P, k = ceil(f->P / c), last = f->P - (k - 1.0) * c;
    const double Bo = f->prefill_first || (!f->chunked && f->P > f->budget) ? 0.0 : B;
    /* chunk i attends to the i c tokens cached before it: the full chunks at their mean past
     * ((k - 2) c / 2; attention's pairs and K/V reads are linear in it), the last after (k - 1) c */
    const double ctx = f->P + f->O / 2;
    const double full = k > 1.0 ? fast_pass(f->s, f->sh, Bo, ctx, c, 1.0, c, 0.5 * (k - 2.0) * c) : 0.0;
    const double tail = fast_pass(f->s, f->sh, Bo, ctx, last, 1.0, c, (k - 1.0) * c);
    const double own = (k - 1.0) * full + tail + 0.5 * t;
    return own > mean ? own : mean;
}

/* The response time the model gives when users see a response time R (the right side of the
 * closed loop's equation R = F(R)), with that load's TTFT and TPOT. The sequences in service are
 * those past any wait, B = X S (Little's law over the service time S), solved with S: the
 * waiting users hold no decode slot and take no step's room. */
static double fast_response(const struct fast_solve *f, double R, double *ttft, double *tpot)
{
    const double X = f->N / (f->Z + R);
    double S = R, t = 0, room = f->budget;
    bool fits = true;
    const double n = f->sh->attn_dp > 1 ? (double)f->sh->attn_dp : 1.0;
    for (int k = 0; k < 60; k++) {
        const double B = fmax(1.0, fmin(X * S, f->cap));
        /* a replica's room: its budget less its own decodes */
        const double Br = B / n;
        room = f->chunked && !f->prefill_first ? fmax(1.0, f->budget - fmin(Br, f->budget - 1.0)) : f->budget;
        fits = plan_step_fixed_point(f->s, f->sh, f->prefill_first, B, f->P + f->O / 2, f->P, X, room, &t);
        const double Sn = fast_ttft_service(f, B, room, t) + (f->O - 1) * t;
        if (fabs(Sn - S) <= 1e-9 * Sn) {
            S = Sn;
            break;
        }
        S = k < 20 ? Sn : 0.5 * (S + Sn);
    }
    double X_max = f->cap / S;
    if (!fits)
        X_max = fmin(X_max, n * room / (f->P * t));
    const double Rn = f->N / (f->Z + S) > X_max ? f->N / X_max - f->Z : S;
    *ttft = Rn - (f->O - 1) * t;
    *tpot = t;
    return Rn;
}

void plan_fast_latency(const struct plan_input *in, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                       long users, double P, double O, double cap_batch, double *ttft, double *tpot)
{
    const struct sim_config sc = plan_sim_config(in, s->gpu);
    /* a prompt runs on one rank: the per-rank budget (each rank's share, sim_rank_share, as the
     * simulator schedules it) sets its chunks and each step's room */
    const double rank_tok = (double)sim_rank_share(&sc, sh->attn_dp, sc.max_batched_tokens);
    const struct fast_solve f = { s, sh, (double)users, P, O, (in->sim.think_min_s + in->sim.think_max_s) / 2,
                                  cap_batch, rank_tok, ceil(P / rank_tok), sc.chunked_prefill, sc.prefill_first };
    /* F(R) - R is positive at R -> 0 (F >= the service time S > 0) and negative for R large
     * (the load X = N / (Z + R) vanishes and F tends to S): bisect for the root. Damped passes
     * had oscillated where the prompts' room binds (Llama-3.1-8B on an L4 at 14 users of code
     * completions: R swung between 2.1 and 10.4 s for 300 passes). F need not fall: it jumps
     * up as well as down (Granite-4.0-H-Tiny on an L4 as DPA-2+EP-2 under vLLM at 305 users: the
     * step rises by 0.3 ms as the load falls past R = 33.883 s), so F(R) - R can cross 0 more than
     * once, and which crossing a root finder settles on depends on the points it tries. The
     * bisection's midpoints choose the one plan has always printed; Brent's method (session 46,
     * 11 evaluations instead of 37) chose others there: R 33.968 against 33.865 s, TPOT 100.2
     * against 99.9 ms, 304 users an instance against 305 (test_plan.c
     * fast_plans_keep_the_bisections_root) */
    double lo = 0.0, hi = 1.0;
    for (int k = 0; k < 60 && fast_response(&f, hi, ttft, tpot) > hi; k++)
        hi *= 2.0;
    for (int k = 0; k < 100 && hi - lo > 1e-9 * hi; k++) {
        const double mid = 0.5 * (lo + hi);
        if (fast_response(&f, mid, ttft, tpot) > mid)
            lo = mid;
        else
            hi = mid;
    }
    /* the loop settles at the root R; where a bottleneck binds only beyond it F jumps there (the
     * prompts' room fills: below R the load waits for it, above it nothing waits), and the
     * users' response time is the root itself, the wait its part before the first token */
    fast_response(&f, hi, ttft, tpot);
    *ttft = fmax(*ttft, hi - (O - 1) * *tpot);
}
