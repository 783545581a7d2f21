/* plan_fast.c - the --fast analytic model of a closed loop's steady state (docs/planning.md,
 * "--fast: the analytic mode"). */
#include "serve/plan_internal.h"

#include <math.h>

/* How an engine schedules prompts beside its decodes, for --fast: in the same iterations (vLLM's
 * and TensorRT-LLM's chunked schedulers), prefill first in prompt-only iterations whenever a
 * prompt waits (SGLang, vLLM before 0.6: pf_solve), or prefill first behind TGI's router, which
 * admits prompts only in batches (waiting_served_ratio): a share of one prompt iteration a cycle */
enum fast_sched { FAST_MIXED, FAST_PREFILL_FIRST, FAST_PREFILL_GATED };

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
 * pass over the B decodes and q prompts; a prefill-first engine's cycle is solved apart
 * (pf_solve). The decode pass (no prompts) is taken once a solve */
struct fp_solve {
    const struct llmroof_setup *s;
    const struct llmroof_shard *sh;
    enum fast_sched sched;
    double B, ctx, P, cap_tok;
    double t_dec; /* fast_pass of the B decodes alone */
};
/* f at q prompts (a gated prefill-first engine: the decode iteration plus, for q < 1 in a share q
 * of the cycles, one prompt iteration; q >= 1: all q prompts in it) */
static double fp_step(const struct fp_solve *fp, double q)
{
    if (fp->sched == FAST_MIXED)
        return q > 0 ? fast_pass(fp->s, fp->sh, fp->B, fp->ctx, fp->P, q, fp->cap_tok, 0.0) : fp->t_dec;
    if (!(q > 0))
        return fp->t_dec;
    /* the prompt iteration holds prompts only (a batch of no decodes: B = 0) */
    return fp->t_dec + fmin(q, 1.0) * fast_pass(fp->s, fp->sh, 0.0, fp->ctx, fp->P, fmax(q, 1.0), fp->cap_tok, 0.0);
}

/* The time of one --fast step with data-parallel attention whose busiest replica holds `hot` (its
 * attention, projections, all-to-all and LM head), the experts every replica's tokens (`all`) */
static double fast_replicas_s(const struct llmroof_setup *s, const struct llmroof_shard *sh,
                              const struct llmroof_batch *hot, const struct llmroof_batch *all,
                              const struct llmroof_batch *least)
{
    struct llmroof_oplist ops;
    struct llmroof_phase ph;
    estimate_ops_replicas(s->model, sh, &s->dt, hot, all, least, &ops);
    roofline_eval(s->gpu, s->dt.act, &s->eff, s->tp, &ops, &ph);
    return ph.time_s;
}

/* A prompt iteration of k prompts, its tokens within the replicas' room. With data-parallel
 * attention the prompts land on min(k, replicas) replicas (the busiest holds P max(k / n,
 * min(k, 1)) tokens) and every other replica runs its decodes beside them (each replica is its
 * own scheduler: sim_schedule_idle_replicas), so the step is the busier of a prompt replica and a
 * decoding one, the experts seeing both's tokens */
static double pf_iter(const struct fp_solve *fp, double k)
{
    const struct llmroof_shard *sh = fp->sh;
    if (sh->attn_dp <= 1)
        return fast_pass(fp->s, sh, 0.0, fp->ctx, fp->P, k, fp->cap_tok, 0.0);
    const double n = (double)sh->attn_dp, hot_reps = fmin(fmax(k, 1.0), n);
    const double busy_seqs = fmax(k / n, fmin(k, 1.0)), busy = fmin(fp->P * busy_seqs, fp->cap_tok);
    const double Bd = hot_reps < n ? fp->B * (1.0 - hot_reps / n) : 0.0; /* the decodes beside */
    const double dec_seqs = Bd > 0 ? estimate_busiest_seqs(Bd, sh->attn_dp - (int)ceil(hot_reps - 1e-9)) : 0.0;
    struct llmroof_batch pre = batch_decode(0.0, fp->ctx), all = batch_decode(Bd, fp->ctx);
    batch_add(&pre, busy, 0.0, &sh->few);
    batch_add(&all, fmin(k * fp->P, n * fp->cap_tok), 0.0, &sh->few);
    const struct llmroof_batch dec = batch_decode(dec_seqs, fp->ctx);
    /* the least-loaded replica (two-batch overlap splits only where every replica can) */
    const struct llmroof_batch *least = Bd > 0 && busy_seqs >= 1.0 ? &dec : &pre;
    double gpu_s = fast_replicas_s(fp->s, sh, &pre, &all, least);
    if (Bd > 0)
        gpu_s = fmax(gpu_s, fast_replicas_s(fp->s, sh, &dec, &all, least));
    return fast_engine_s(fp->s, gpu_s, Bd, fp->ctx, fmax(busy_seqs, dec_seqs), dec_seqs * fp->ctx);
}

/* The prompts a prompt iteration holds in the chain of a prefill-first engine whose prompt
 * iterations last tau (pf_solve): x_d / (pi e^(X tau)) + X tau, at most k_max */
static double pf_k(double X, double td, double pi, double tau, double k_max)
{
    return fmin(X * td / (pi * exp(X * tau)) + X * tau, k_max);
}

/* A prefill-first engine (SGLang, vLLM before 0.6) runs a prompt-only iteration, which stalls the
 * decodes, whenever a prompt waits (sim.c: prompts first), so the prompts that arrive during a
 * prompt iteration get one of their own before the decodes resume: a decode iteration of t_d is
 * followed by a chain of prompt iterations. With Poisson arrivals at X a second and prompt
 * iterations of tau each, the decode iteration leaves a prompt waiting with probability
 * pi = 1 - e^(-X t_d) and each prompt iteration another with 1 - e^(-X tau): a cycle holds
 * M = pi e^(X tau) prompt iterations (a geometric chain) and lasts t = t_d + M tau, and its
 * X t prompts make k = X t / M = X t_d / M + X tau a prompt iteration, whose time is tau = p(k)
 * (one equation in tau, solved by passes from p at tau = 0, bisected where they do not settle).
 * The token budget holds k to k_max = replicas x room / P: where the chain would put more in an
 * iteration they queue, every iteration is full and M = X t_d / (k_max - X tau_full), or where
 * X tau_full >= k_max the prompts arriving fill every iteration and there is no cycle (false).
 * A sequence gets a token in the decode iteration and, with data-parallel attention, in every
 * prompt iteration its replica has no prompt of (each replica is its own scheduler: the k prompts
 * land on min(k, replicas) of them, sim_schedule_idle_replicas), so its TPOT is the cycle over
 * 1 + M (1 - h), h = min(k, replicas) / replicas. The cycle had held one prompt iteration of all
 * X t prompts (a share of one while X t < 1), and with data-parallel attention stalled every
 * replica's decodes: Qwen3-30B-A3B on TP-2 H100s under SGLang at 1,800 users read a mean TPOT of
 * 50 ms where the simulation runs 2.7 prompt iterations of ~20 ms (mostly fixed cost: the weights'
 * read and eager kernels) per 34 ms decode iteration and measures 83 ms (now 84). */
struct pf_cycle {
    double tpot_s;  /* the cycle over the iterations a sequence decodes in: TPOT */
    double tau_s;   /* one prompt iteration */
    double wait_s;  /* a prompt's mean wait for the iteration running when it arrives (the
                       residual of the cycle's iterations: sum d^2 / (2 sum d)) */
    double full_s;  /* where false: a prompt iteration of the whole room (the prompts' bound) */
};
static bool pf_solve(const struct fp_solve *fp, double X, struct pf_cycle *c)
{
    const double n = fp->sh->attn_dp > 1 ? (double)fp->sh->attn_dp : 1.0;
    const double td = fp->t_dec, k_max = n * fp->cap_tok / fp->P;
    const double pi = -expm1(-X * td);
    c->full_s = pf_iter(fp, k_max);
    if (!(pi > 0)) { /* no prompt arrives: decode iterations alone */
        c->tau_s = pf_iter(fp, 1.0);
        c->tpot_s = td;
        c->wait_s = 0.5 * td;
        return true;
    }
    /* tau = g(tau) = p(k(tau)): passes, each pair of them extrapolated (Steffensen's: at high loads
     * the passes close in by half each, 30 of them to 1e-9); bisected where they do not settle,
     * from g(0) > 0 to a hi with g(hi) <= hi (p need not rise with k: a prompt iteration of a
     * hybrid model's few prompts can take longer than a full one, and g can jump over tau) */
    double tau = pf_iter(fp, pf_k(X, td, pi, 0.0, k_max)), top = fmax(tau, c->full_s);
    bool settled = false;
    for (int i = 0; i < 10 && !settled; i++) {
        const double t1 = pf_iter(fp, pf_k(X, td, pi, tau, k_max));
        if ((settled = fabs(t1 - tau) <= 1e-9 * t1)) {
            tau = t1;
            break;
        }
        const double t2 = pf_iter(fp, pf_k(X, td, pi, t1, k_max)), d = t2 - 2.0 * t1 + tau;
        top = fmax(top, fmax(t1, t2));
        settled = fabs(t2 - t1) <= 1e-9 * t2;
        const double acc = d != 0.0 ? tau - (t1 - tau) * (t1 - tau) / d : t2;
        tau = settled || !(acc > 0.0 && acc <= top) ? t2 : acc;
    }
    if (!settled) {
        double lo = 0.0, hi = top;
        for (int i = 0; i < 60 && pf_iter(fp, pf_k(X, td, pi, hi, k_max)) > hi; i++)
            hi *= 2.0;
        for (int i = 0; i < 60 && hi - lo > 1e-9 * hi; i++) {
            const double mid = 0.5 * (lo + hi);
            if (pf_iter(fp, pf_k(X, td, pi, mid, k_max)) <= mid)
                hi = mid;
            else
                lo = mid;
        }
        tau = hi;
    }
    /* (X tau past 700: no decode iteration in any time that matters, and no overflow) */
    double M = pi * exp(fmin(X * tau, 700.0));
    if (!(X * td / M + X * tau < k_max)) { /* the budget binds: full iterations */
        tau = c->full_s;
        if (!(X * tau < k_max))
            return false;
        M = X * td / (k_max - X * tau);
    }
    const double t = td + M * tau, k = X * t / M, h = fmin(fmax(k, 1.0), n) / n;
    c->tau_s = tau;
    c->tpot_s = t / (1.0 + M * (1.0 - h));
    c->wait_s = (td * td + M * tau * tau) / (2.0 * t);
    return true;
}

/* The step solve of fast_response: t_out the TPOT; a prefill-first engine's cycle in *pf. */
static bool step_solve(const struct llmroof_setup *s, const struct llmroof_shard *sh, enum fast_sched sched,
                       double B, double ctx, double P, double rate_req, double cap_tok, double *t_out,
                       struct pf_cycle *pf)
{
    const double n = sh->attn_dp > 1 ? (double)sh->attn_dp : 1.0;
    struct fp_solve fp = { s, sh, sched, B, ctx, P, cap_tok, fast_pass(s, sh, B, ctx, P, 0.0, cap_tok, 0.0) };
    if (sched == FAST_PREFILL_FIRST) {
        struct pf_cycle c;
        const bool ok = pf_solve(&fp, rate_req, &c);
        /* where the prompts fill every prompt iteration, their bound: room / (P tau_full) a replica */
        *t_out = ok ? c.tpot_s : c.full_s;
        if (pf)
            *pf = c;
        return ok;
    }
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

/* (plan.h) Fixed-point passes settle t when the prompts take a small share of a step; otherwise
 * it is bisected below the full step, which bounds it. Passes alone, unbounded, had failed: at
 * 198 users of Llama-65B on TP-4 A100s the first guess (X = 66 requests/s) has no fixed point, t
 * grew to 1e168 s, and 200 damped passes of the response time never came back, leaving the
 * answer at X ~ 0, a TPOT without its prompts (71.6 ms where the settled load gives 80). */
bool plan_step_fixed_point(const struct llmroof_setup *s, const struct llmroof_shard *sh, bool prefill_first,
                           double B, double ctx, double P, double rate_req, double cap_tok, double *t_out)
{
    return step_solve(s, sh, prefill_first ? FAST_PREFILL_FIRST : FAST_MIXED, B, ctx, P, rate_req, cap_tok, t_out,
                      NULL);
}

/* The --fast model: a closed loop of N users with mean think Z in steady state (the
 * interactive response-time law, X = N / (Z + R), and Little's law; Lazowska et al.,
 * "Quantitative System Performance", ch. 5, bottleneck analysis). With mean response time R:
 * - the sequences in service hold B = X * S, S = TTFT_service + (O - 1) t, capped by --max-seqs
 *   and the KV cache (cap_batch);
 * - an iteration holds those B decodes plus the prompt tokens arriving meanwhile, X P t, at most
 *   the budget's room: a chunked step's budget less its decodes (vLLM and SGLang schedule the
 *   running decodes first and fill the rest with prompt chunks), a whole-prompt engine's budget;
 *   its roofline time t (plan_step_fixed_point; data-parallel attention's busiest replica) is
 *   TPOT, TTFT_service = t (prompt chunks + 1/2); a prefill-first engine's TPOT is its cycle, a
 *   decode iteration and the chain of prompt iterations behind it (pf_solve), and its TTFT the
 *   wait for the iteration running plus the prompt's own;
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
    enum fast_sched sched;
};

/* A prompt's time in service to its first token: t (chunks + 1/2), the mean step t for each of its
 * chunks and half a step's wait, but no less than the steps that carry its own chunks take: each
 * holds the chunk beside the B decodes (a prefill-first engine's prompt-only iterations hold the
 * chunk alone, the decodes stalled), plus the half-step wait. The mean step counts the arriving
 * prompts' mean share of a step, at a light load a sliver of one prompt: Llama-3.1-70B on 8 H200s,
 * one user of 24,500-token prompts in 2,048-token chunks, had read 12.5 decode steps (~0.2 s) where
 * its 12 chunks take 1.0 s (estimate's TTFT at batch 1: 1.04 s). A prefill-first engine (pf, from
 * pf_solve) runs a waiting prompt in the next iteration and its chunks one after another (the cut
 * prompt continues first), no decode between them: the wait for the iteration running, then its
 * own chunks, the first no shorter than the cycle's prompt iteration that it shares with the others
 * arriving (t is not a step there but the cycle over a sequence's tokens, which holds the chain). */
static double fast_ttft_engine(const struct fast_solve *f, double B, double room, double t,
                               const struct pf_cycle *pf)
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
    if (pf)
        return pf->wait_s + fmax((k - 1.0) * full + tail, pf->tau_s);
    const double own = (k - 1.0) * full + tail + 0.5 * t;
    return own > mean ? own : mean;
}

/* And before any of it the request reaches the engine: the engine's first-token overhead and its API
 * server's path, which grows with the prompt, as the simulation delays a served request's arrival
 * (sim_arrival_delay_s; a plan serves through the API server). */
static double fast_ttft_service(const struct fast_solve *f, double B, double room, double t,
                                const struct pf_cycle *pf)
{
    const double reach = f->s->eff.first_token_s + f->s->eff.api_first_token_s + f->s->eff.api_prompt_token_s * f->P;
    return reach + fast_ttft_engine(f, B, room, t, pf);
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
        struct pf_cycle pf;
        /* the prompts that stall a sequence's decodes, and that a prompt finds running, are the
         * other users' (the arrival theorem: an arrival sees the loop of N - 1): one user's
         * decodes are never stalled by its own prompt */
        const bool chained = f->sched == FAST_PREFILL_FIRST;
        const double Xs = chained ? X * (f->N - 1.0) / f->N : X;
        fits = step_solve(f->s, f->sh, f->sched, B, f->P + f->O / 2, f->P, Xs, room, &t, &pf);
        const bool chain = chained && fits;
        const double Sn = fast_ttft_service(f, B, room, t, chain ? &pf : NULL) + (f->O - 1) * t;
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

/* An open loop's service time S at Poisson arrivals of X requests a second whose running batch is
 * B (not solved with it): the step at B decodes and the prompts arriving, the prompt's time to its
 * first token and (O - 1) steps. false where the prompts arriving fill every step. */
static bool fast_open_service(const struct fast_solve *f, double X, double B, double *S)
{
    const double n = f->sh->attn_dp > 1 ? (double)f->sh->attn_dp : 1.0;
    const double room = f->chunked && !f->prefill_first ? fmax(1.0, f->budget - fmin(B / n, f->budget - 1.0)) : f->budget;
    double t = 0;
    struct pf_cycle pf;
    const bool fits = step_solve(f->s, f->sh, f->sched, B, f->P + f->O / 2, f->P, X, room, &t, &pf);
    *S = fast_ttft_service(f, B, room, t, f->sched == FAST_PREFILL_FIRST && fits ? &pf : NULL) + (f->O - 1) * t;
    return fits;
}

/* One instance of layout `code` on g as the open-loop models take it: its setup and shard, the
 * workload's mean lengths, the running sequences it holds (plan_fast_cap) and a replica's token
 * budget. false where the layout does not build or the weights leave no cache. */
struct open_pool {
    struct llmroof_setup s;
    struct llmroof_shard sh;
    struct sim_config sc;
    double P, O, cap, rank_tok;
};
static bool open_pool(const struct plan_input *in, const struct llmroof_gpu *g, int code, struct open_pool *o)
{
    struct llmroof_layout lay;
    struct llmroof_err e2 = { 0 };
    if (!plan_pool_shard(in, g, code, &o->s, &lay, &o->sh, &e2) || estimate_check(&o->s, &e2))
        return false;
    const struct llmroof_mem_opts mo = plan_mem_opts(in, g, o->sh.attn_dp);
    struct llmroof_memory mem;
    if (memory_eval_layout(in->model, g, &lay, &in->dt, 1, &mo, &mem, &e2))
        return false;
    o->sc = plan_sim_config(in, g);
    double H = in->mean_held;
    o->P = in->mean_prompt;
    o->O = in->mean_output;
    if (!(o->P > 0 && o->O > 0))
        plan_mean_lengths(o->sc.workload, o->sc.seed, &o->P, &o->O, &H);
    o->cap = plan_fast_cap(mo.max_seqs, mem.kv_capacity_tokens, o->P, o->O, H, o->sc.admit_no_evict);
    o->rank_tok = (double)sim_rank_share(&o->sc, o->sh.attn_dp, o->sc.max_batched_tokens);
    return o->cap >= 1;
}

/* (plan_internal.h) The --fast model's steady state of one instance of layout `code` on g under
 * Poisson arrivals (an open loop: no users, no think time): the running batch B = X S(B) (Little's
 * law over the service time, which rises with B), bisected between one sequence and the instance's
 * cap (the sequence limit, the KV cache at the mean length), and how slowly a run reaches it: from
 * dB/dt = X - B / S(B), linear about B*, a departure from B* decays with the time constant
 * S / (1 - X dS/dB) (a sequence more in service lengthens every step, so it holds the others
 * longer: near the knee X dS/dB tends to 1 and the time to the steady state to many lives).
 * false where no batch within the cap serves X, or the layout has no such model (speculative
 * decoding, a layout that does not build). */
bool plan_fast_open_batch(const struct plan_input *in, const struct llmroof_gpu *g, int code, double X, double *batch,
                          double *settle_s)
{
    *batch = 0;
    *settle_s = 0;
    struct open_pool o;
    if (!(X > 0) || !open_pool(in, g, code, &o))
        return false;
    const struct llmroof_setup s = o.s;
    const struct llmroof_shard sh = o.sh;
    const struct sim_config sc = o.sc;
    const double P = o.P, O = o.O, cap = o.cap, rank_tok = o.rank_tok;
    /* N 0: no users (fast_response's arrival theorem is the closed loop's) */
    const struct fast_solve f = { &s, &sh, 0.0, P, O, 0.0, cap, rank_tok, ceil(P / rank_tok), sc.chunked_prefill,
                                  sc.prefill_first,
                                  !sc.prefill_first ? FAST_MIXED
                                  : sc.waiting_served_ratio > 0 ? FAST_PREFILL_GATED
                                                                : FAST_PREFILL_FIRST };
    double S = 0, B = 1.0;
    if (!(fast_open_service(&f, X, 1.0, &S) && X * S <= 1.0)) {
        if (!fast_open_service(&f, X, cap, &S) || X * S > cap)
            return false;
        double lo = 1.0;
        B = cap;
        for (int k = 0; k < 60 && B - lo > 1e-6 * B; k++) {
            const double mid = 0.5 * (lo + B);
            if (fast_open_service(&f, X, mid, &S) && X * S <= mid)
                B = mid;
            else
                lo = mid;
        }
        fast_open_service(&f, X, B, &S);
    }
    /* the slope over the 5% below B* (B* may sit at a jump of S: the roofline's thresholds) */
    double S0 = S;
    const double dB = 0.05 * B;
    if (B - dB >= 1.0)
        fast_open_service(&f, X, B - dB, &S0);
    const double gain = B - dB >= 1.0 ? fmin(X * (S - S0) / dB, 0.99) : 0.0;
    *batch = X * S;
    *settle_s = S / (1.0 - fmax(gain, 0.0));
    return true;
}

/* (plan_internal.h) Whether a disaggregated decode instance of layout `code` on g, taking X
 * requests a second with their prompts' K/V, has more than one steady batch: B = X O t(B), t the
 * decode step of B sequences at the mean context (the engine's CPU beside it, as fast_pass takes
 * it). Below the lowest solution a departure decays; where some batch above it, within the cap,
 * gives X O t(B) > B, a departure past that batch grows to a slower steady state (a batch past
 * the engine's CUDA-graph limit runs eagerly: a step jumps), which a short run sitting in the
 * fast one does not see. A review: 1 TP-2 prefill + 1 TP-8 decode H100s of Llama-3.1-70B under
 * vLLM at 50 chat requests/s met a 50 ms p90 TPOT over 3,000 requests (a batch of 247, graphs
 * to 512) and missed it over 100,000 (57 ms, a batch of 618). Also true where no batch within the
 * cap serves X. */
bool plan_fast_decode_bistable(const struct plan_input *in, const struct llmroof_gpu *g, int code, double X)
{
    struct open_pool o;
    if (!(X > 0) || !open_pool(in, g, code, &o))
        return false;
    const struct llmroof_setup s = o.s;
    const struct llmroof_shard sh = o.sh;
    const double P = o.P, O = o.O, cap = o.cap, ctx = P + O / 2, rank_tok = o.rank_tok;
    /* the lowest steady batch, then a scan above it: 65 geometric points from 1 to the cap, and
     * the engine's graph limit and the batch past it, where the step jumps (a review: at a cap of
     * 1,024 the geometric points beside vLLM's 512 are 480 and 535) */
    enum { STEPS = 64 };
    double pts[STEPS + 3];
    int np = 0;
    for (int k = 0; k <= STEPS; k++)
        pts[np++] = k == STEPS ? cap : fmax(1.0, pow(cap, (double)k / STEPS));
    const double gm = s.eff.graphs ? s.eff.graph_max : 0.0;
    if (gm >= 1 && gm + 1 < cap) {
        pts[np++] = gm;
        pts[np++] = gm + 1;
    }
    for (int a = 1; a < np; a++) /* insertion sort: a few points */
        for (int b = a; b > 0 && pts[b - 1] > pts[b]; b--) {
            const double t = pts[b];
            pts[b] = pts[b - 1];
            pts[b - 1] = t;
        }
    double lo = 0.0;
    for (int k = 0; k < np; k++) {
        const double B = pts[k];
        const double grows = X * O * fast_pass(&s, &sh, B, ctx, P, 0.0, rank_tok, 0.0) - B;
        if (!(lo > 0)) {
            if (grows <= 0)
                lo = B; /* the lowest steady batch (to the scan's resolution) */
            else if (k == np - 1)
                return true; /* no batch within the cap serves X */
        } else if (B > 1.05 * lo && grows > 0) {
            return true;
        }
    }
    return false;
}

/* (plan_internal.h) The running sequences --fast lets an instance hold: its sequence limit, and
 * the KV cache over what a running request holds on average. That is not the mean request's
 * P + O / 2: a request holds its K/V for as long as it decodes, so the running ones are the long
 * ones, and the time-weighted mean is H = E[O (P + O / 2)] / E[O] (plan_mean_lengths; P + O / 2
 * where the lengths are given, not sampled). A guaranteed-no-evict engine reserves each request's
 * prompt and whole output at admission (TensorRT-LLM; sim.h admit_no_evict): E[O (P + O)] / E[O]
 * = 2 H - P with P and O drawn apart. Chat's long-tailed outputs (mean 338 tokens) make H 463
 * tokens against P + O / 2 = 330: Llama-3.1-8B on an H100 under SGLang had --fast's cap at 1,350
 * sequences of 445,008 KV tokens (now 960) where the simulation runs at most 1,056 and queues
 * users for seconds (--fast 1,650 users an instance, now 1,253, against the simulated plan's
 * 1,121; under TensorRT-LLM 1,217, now 897, against 856). */
double plan_fast_cap(double max_seqs, double kv_tokens, double P, double O, double H, bool no_evict)
{
    const double held = H > 0 ? H : P + O / 2;
    return fmin(max_seqs, kv_tokens / (no_evict ? 2.0 * held - P : held));
}

void plan_fast_latency(const struct plan_input *in, const struct llmroof_setup *s, const struct llmroof_shard *sh,
                       long users, double P, double O, double cap_batch, double *ttft, double *tpot)
{
    const struct sim_config sc = plan_sim_config(in, s->gpu);
    /* a prompt runs on one rank: the per-rank budget (each rank's share, sim_rank_share, as the
     * simulator schedules it) sets its chunks and each step's room */
    const double rank_tok = (double)sim_rank_share(&sc, sh->attn_dp, sc.max_batched_tokens);
    const struct fast_solve f = { s, sh, (double)users, P, O, (in->sim.think_min_s + in->sim.think_max_s) / 2,
                                  cap_batch, rank_tok, ceil(P / rank_tok), sc.chunked_prefill, sc.prefill_first,
                                  /* TGI's router gates its prompts (waiting_served_ratio): no chain */
                                  !sc.prefill_first ? FAST_MIXED
                                  : sc.waiting_served_ratio > 0 ? FAST_PREFILL_GATED
                                                                : FAST_PREFILL_FIRST };
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
