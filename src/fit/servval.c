/* servval.c - serving rows against the simulator: each row simulated under its load, replicated
 * where one run is noisy, and scored (see fit/servval.h; method: docs/validation.md). Reading the
 * rows and the map is servval_map.c; holding out by publication, servval_cv.c. */
#include "fit/servval.h"
#include "base/par.h"
#include "model/ckpt.h"
#include "serve/sim.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *srv_class_name(enum srv_class c)
{
    static const char *const names[SRV_CLASS_COUNT] = { "throughput", "ttft", "tpot", "e2e", "speedup", "slo" };
    return (c >= 0 && c < SRV_CLASS_COUNT) ? names[c] : "?";
}

const char *srv_load_name(enum srv_load l)
{
    static const char *const names[SRV_LOAD_COUNT] = { "static", "concurrency", "rate", "offline", "slo-capacity" };
    return (l >= 0 && l < SRV_LOAD_COUNT) ? names[l] : "?";
}

enum srv_class srv_metric_class(enum srv_metric m)
{
    switch (m) {
    case SRV_TTFT: return SRV_CLASS_TTFT;
    case SRV_TPOT:
    case SRV_ITL: return SRV_CLASS_TPOT;
    case SRV_E2E:
    case SRV_MAKESPAN: return SRV_CLASS_E2E;
    case SRV_SLO_PCT:
    case SRV_GOODPUT_REQ_S: return SRV_CLASS_SLO;
    case SRV_SPEEDUP_TPUT:
    case SRV_SPEEDUP_TPOT:
    case SRV_SPEEDUP_E2E: return SRV_CLASS_SPEEDUP;
    default: return SRV_CLASS_THROUGHPUT;
    }
}

/* a rate (higher is better): the error is inverted so that > 0 still means llmroof is slower */
static bool is_rate(enum srv_metric m)
{
    return srv_metric_class(m) == SRV_CLASS_THROUGHPUT || m == SRV_SLO_PCT || m == SRV_GOODPUT_REQ_S ||
           srv_metric_class(m) == SRV_CLASS_SPEEDUP;
}

/* ------------------------------------------------------------------------ */
/* Prediction                                                               */
/* ------------------------------------------------------------------------ */

/* What one simulated run gives every metric of the rows that share it. */
struct run_sums {
    bool ok;
    char reason[200];
    struct sim_stats ttft, tpot, e2e;
    struct sim_stats itl;    /* pooled over tokens: not reweighted by closed_loop_weights */
    double duration_s, req_s, out_tok_s, prompt_tok_s, slo_share, goodput_req_s;
    long users;              /* slo-capacity: the users of the best run */
};

/* Two cases share a run when everything the simulator reads is equal. */
static bool same_run(const struct srv_case *a, const struct srv_case *b)
{
    return a->model == b->model && a->gpu == b->gpu && a->engine == b->engine && a->dt.weight == b->dt.weight &&
           a->dt.kv == b->dt.kv && a->tp == b->tp && a->ep == b->ep && a->dp_attn == b->dp_attn &&
           a->moe_tp == b->moe_tp && a->base_tp == b->base_tp &&
           a->instances == b->instances && a->disagg == b->disagg && a->pre_n == b->pre_n && a->pre_tp == b->pre_tp &&
           a->dec_n == b->dec_n && a->dec_tp == b->dec_tp && a->chat == b->chat && a->scaled_chat == b->scaled_chat &&
           a->quantiles == b->quantiles && a->prompt_p90 == b->prompt_p90 && a->output_p90 == b->output_p90 &&
           a->max_total == b->max_total && a->prompt == b->prompt && a->output == b->output && a->load == b->load && a->load_value == b->load_value &&
           a->load_lo == b->load_lo &&
           a->requests == b->requests && a->source_requests == b->source_requests && a->slo_ttft_s == b->slo_ttft_s && a->slo_tpot_s == b->slo_tpot_s && a->spec_kind == b->spec_kind &&
           a->spec_k == b->spec_k && a->spec_alpha == b->spec_alpha && a->has_base == b->has_base &&
           a->base_engine == b->base_engine && a->max_seqs == b->max_seqs &&
           a->max_batched_tokens == b->max_batched_tokens && a->chunked == b->chunked && a->sched_steps == b->sched_steps &&
           a->recv_interval == b->recv_interval &&
           a->engine_use_ray == b->engine_use_ray && a->max_paddings == b->max_paddings &&
           a->no_api_server == b->no_api_server && a->kv_blocks == b->kv_blocks && a->max_concurrent == b->max_concurrent &&
           a->span_fixed == b->span_fixed;
}

static void sim_once(const struct sim_config *sc, long source_requests, struct run_sums *out);

static void simulate(const struct srv_case *c, const struct llmroof_gpu *g, const struct llmroof_engine *e,
                     struct run_sums *out)
{
    memset(out, 0, sizeof *out);
    struct sim_config sc;
    sim_default_config(&sc);
    /* the engine's scheduler, as 'simulate -e ENGINE' and validate.c's closed-batch rows set it up:
     * its CPU cost per sequence and overlap, admission policy, sequence limit and token budget */
    /* vLLM's --engine-use-ray (the row's launch flags): the engine's step is a Ray call at any TP */
    const struct llmroof_eff_override ray = { .engine = e, .engine_use_ray = c->engine_use_ray };
    sc.setup = (struct llmroof_setup){ c->model, g, c->tp, ckpt_engine_dtypes(c->dt, e), roofline_effs_engine(g, e, &ray),
                                       { 0 } };
    sc.no_api_server = c->no_api_server; /* an offline run through the engine's own API (the row's script) */
    sim_config_engine(&sc, e, g, false, false); /* after the setup: a budget may follow the model's context */
    /* what the row states of the engine's settings overrides the profile's defaults */
    if (c->max_seqs > 0)
        sc.max_seqs = c->max_seqs;
    if (c->max_batched_tokens > 0)
        sc.max_batched_tokens = c->max_batched_tokens;
    if (c->max_paddings >= 0) /* the row's vLLM release predates (or postdates) padded prompt batches */
        sc.max_paddings = c->max_paddings;
    sc.kv_blocks = c->kv_blocks; /* the KV pool the source's engine logged */
    if (c->max_concurrent > 0) { /* TGI's --max-concurrent-requests as the row states it */
        sc.max_concurrent = c->max_concurrent;
        sc.user_max_concurrent = true;
    }
    if (c->chunked >= 0) {
        /* 1: chunks beside the decodes (vLLM's chunked prefill, Sarathi-Serve); 0: whole prompts
         * first, in iterations of their own (vLLM without chunking); 2: chunked prompts in
         * iterations of their own, each followed by one of the decoders (Sarathi-Serve's
         * chunked-prefills-only ablation, its SimpleChunkingScheduler) */
        sc.chunked_prefill = c->chunked >= 1;
        sc.prefill_first = c->chunked != 1;
        sc.alternate_turns = c->chunked == 2;
    }
    sim_config_multi_step(&sc, c->sched_steps); /* the row's --num-scheduler-steps */
    sc.recv_interval = c->recv_interval;          /* SGLang's --scheduler-recv-interval */
    if (c->ep > 1) {
        sc.setup.layout.ep = c->ep;
        sc.setup.layout.dp_attn = c->dp_attn;
    } else if (c->moe_tp > 1) {
        sc.setup.layout.moe_tp = c->moe_tp;
        sc.setup.layout.dp_attn = true;
    }
    struct workload w = { WORKLOAD_FIXED, c->prompt, c->output, NULL, 0, NULL };
    struct llmroof_err err = { 0 };
    if (c->chat)
        w.kind = WORKLOAD_CHAT;
    else if (c->random) {
        char spec[96];
        snprintf(spec, sizeof spec, "random:%ld:%ld:%.17g", c->prompt, c->output, c->range_ratio);
        if (workload_parse(spec, &w, &err)) {
            snprintf(out->reason, sizeof out->reason, "%.150s", err.msg);
            return;
        }
    } else if (c->quantiles) {
        long *q = malloc(sizeof *q * WORKLOAD_Q_COUNT);
        if (!q) {
            snprintf(out->reason, sizeof out->reason, "out of memory");
            return;
        }
        q[WORKLOAD_Q_PMED] = c->prompt;
        q[WORKLOAD_Q_PP90] = c->prompt_p90;
        q[WORKLOAD_Q_OMED] = c->output;
        q[WORKLOAD_Q_OP90] = c->output_p90;
        q[WORKLOAD_Q_MAX] = c->max_total;
        w.kind = WORKLOAD_QUANTILES;
        w.pairs = q;
    } else if (c->scaled_chat) {
        /* ShareGPT-shaped lengths at the row's means (or, not stated, the benchmarks' set for the
         * model's tokenizer), within the model's context: DistServe kept the ShareGPT pairs that
         * fit OPT's 2,048 tokens, vLLM refuses a longer prompt (docs/metrics.md, sharegpt) */
        w = (struct workload){ WORKLOAD_SHAREGPT, c->prompt, c->output, NULL, 0, NULL };
        if (workload_for_model(&w, c->model->vocab, c->model->max_context, &err)) {
            snprintf(out->reason, sizeof out->reason, "%.150s", err.msg);
            return;
        }
    }
    /* drawn lengths (not the source's own) meet the context the engine serves: the model's */
    if (c->chat || c->scaled_chat)
        sc.max_model_len = c->model->max_context;
    sc.workload = &w;
    sc.requests = c->requests;
    /* a row run through the engine's own benchmark (trtllm-bench) takes its sizing from the
     * workload, unless the row states the limits */
    (void)sim_config_offline_sizing(&sc, e, c->max_batched_tokens > 0, c->max_seqs > 0, c->chunked == 0, NULL);
    switch (c->load) {
    case SRV_LOAD_STATIC:
        /* a closed batch, as the static rows measure it: the batch's requests all queued at t = 0
         * and admitted together, their prompts in one unchunked prefill (a budget of the whole
         * batch's prompt tokens), then decode steps of the whole batch */
        sc.mode = SIM_OFFLINE;
        sc.requests = (long)c->load_value;
        if (sc.max_seqs < sc.requests)
            sc.max_seqs = sc.requests;
        sc.chunked_prefill = false;
        if (!c->chat && !c->scaled_chat && !c->quantiles && sc.max_batched_tokens < sc.requests * c->prompt)
            sc.max_batched_tokens = sc.requests * c->prompt;
        break;
    case SRV_LOAD_CONCURRENCY:
        /* N users without think time (benchmark_serving's --max-concurrency, LMDeploy's threads) */
        sc.mode = SIM_CLOSED;
        sc.concurrency = (long)c->load_value;
        sc.think_min_s = sc.think_max_s = 0;
        if (sc.max_seqs < sc.concurrency)
            sc.max_seqs = sc.concurrency;
        break;
    case SRV_LOAD_RATE:
        sc.mode = SIM_RATE;
        sc.rate_qps = c->load_value;
        sc.span_fixed = c->span_fixed;
        break;
    case SRV_LOAD_SLO_CAPACITY:
        /* closed loops without think time, users set per run below */
        sc.mode = SIM_CLOSED;
        sc.think_min_s = sc.think_max_s = 0;
        if (sc.max_seqs < (long)c->load_value)
            sc.max_seqs = (long)c->load_value;
        break;
    case SRV_LOAD_OFFLINE:
    case SRV_LOAD_COUNT: sc.mode = SIM_OFFLINE; break;
    }
    if (c->instances > 1) {
        sc.instances = c->instances;
        sc.router = SIM_ROUTE_LEAST_LOADED;
    }
    if (c->disagg) {
        sc.disaggregated = true;
        sc.prefill = (struct sim_pool){ sc.setup, c->pre_n, 0 };
        sc.prefill.setup.tp = c->pre_tp;
        sc.decode = (struct sim_pool){ sc.setup, c->dec_n, 0 };
        sc.decode.setup.tp = c->dec_tp;
        /* each pool's graph limit at its own TP (SGLang's cuda_graph_max_bs below 35 GiB); both pools
         * are on g, whose budget (or the row's) is the run's */
        sim_pool_engine(&sc, &sc.prefill, e, true);
        sim_pool_engine(&sc, &sc.decode, e, true);
        /* the hand-over as simulate's default link takes it (sim_kv_link_Bps): DistServe places a
         * prefill and a decode instance in one node and hands over on NVLink */
        sc.kv_link_Bps = sim_kv_link_Bps(SIM_KV_AUTO, 0, &sc.prefill.setup,
                                         (long)c->pre_n * sim_setup_gpus(&sc.prefill.setup) +
                                             (long)c->dec_n * sim_setup_gpus(&sc.decode.setup));
    }
    if (c->spec_kind) {
        sc.spec = (struct sim_spec){ (enum sim_spec_kind)c->spec_kind, c->spec_k, c->spec_alpha, NULL, 0, 0,
                                     c->spec_kind == SIM_SPEC_EAGLE3 ? SIM_SPEC_EAGLE3_VOCAB : 0 };
        if (sc.max_batched_tokens < c->spec_k + 1L)
            sc.max_batched_tokens = c->spec_k + 1L;
    }
    if (c->slo_ttft_s > 0) {
        sc.ttft_slo_s = c->slo_ttft_s;
        sc.tpot_slo_s = c->slo_tpot_s;
    }
    if (c->load != SRV_LOAD_SLO_CAPACITY) {
        sim_once(&sc, c->source_requests, out);
    } else {
        /* the capacity under the SLO: every closed loop of LO..HI users, the one with the most
         * requests within the limits per second counts (DeepSpeed-FastGen's "effective
         * throughput", the peak over its client sweep); ties keep the fewer users. Goodput is
         * not monotone in the users (past the knee the misses grow faster than the rate), so
         * every count is run, not a bisection: at most 256 short closed-loop runs */
        for (long u = (long)c->load_lo; u <= (long)c->load_value; u++) {
            struct run_sums r;
            sc.concurrency = u;
            sim_once(&sc, c->source_requests, &r);
            if (!r.ok) {
                *out = r;
                break;
            }
            r.users = u;
            if (!out->ok || r.goodput_req_s > out->goodput_req_s)
                *out = r;
        }
    }
    workload_free(&w);
}

static int wval_cmp(const void *a, const void *b)
{
    const double x = ((const struct srv_wval *)a)->v, y = ((const struct srv_wval *)b)->v;
    return (x > y) - (x < y);
}

struct sim_stats srv_weighted_stats(struct srv_wval *s, long n)
{
    struct sim_stats st = { 0 };
    st.n = n;
    if (n == 0)
        return st;
    qsort(s, (size_t)n, sizeof *s, wval_cmp);
    double total = 0, sum = 0;
    for (long i = 0; i < n; i++) {
        total += s[i].w;
        sum += s[i].v * s[i].w;
    }
    st.mean = sum / total;
    /* value i sits at (W_i - w_i/2 - w_0/2) / (W - w_0/2 - w_last/2), W_i the weight up to and
     * including i: 0 for the smallest, 1 for the largest */
    const double lo = s[0].w / 2, span = total - lo - s[n - 1].w / 2;
    const double ps[5] = { 0.50, 0.90, 0.95, 0.99, 1.0 };
    double *outs[5] = { &st.p50, &st.p90, &st.p95, &st.p99, &st.max };
    for (int k = 0; k < 5; k++) {
        double cum = 0, prev_pos = 0, prev_v = s[0].v;
        *outs[k] = s[n - 1].v;
        for (long i = 0; i < n && span > 0; i++) {
            cum += s[i].w;
            const double pos = (cum - s[i].w / 2 - lo) / span;
            if (pos >= ps[k]) {
                *outs[k] = pos > prev_pos ? prev_v + (s[i].v - prev_v) * (ps[k] - prev_pos) / (pos - prev_pos) : s[i].v;
                break;
            }
            prev_pos = pos;
            prev_v = s[i].v;
        }
    }
    return st;
}

/* A closed loop's users all send their first request at t = 0, so those `users` requests queue
 * behind each other's prefills; every later request arrives as one finishes. In the published
 * run they are users/N of the N requests, in a shorter simulated run of M they would be users/M:
 * for the mean and the percentiles, the first `users` requests created weigh (users/N)/users each
 * and the other M - users share the rest (1 - users/N); so does the share within the SLOs.
 * Throughput needs no weights. */
static void closed_loop_weights(const struct sim_config *sc, const struct sim_result *res, long source_requests,
                                struct run_sums *out)
{
    const long m = res->requests, users = sc->concurrency;
    if (sc->mode != SIM_CLOSED || source_requests <= m || users < 1 || users >= m || sc->warmup_requests > 0)
        return;
    struct srv_wval *s = malloc(sizeof *s * (size_t)m);
    if (!s)
        return; /* the unweighted statistics stand */
    const double w_burst = 1.0 / (double)source_requests,
                 w_rest = (1.0 - (double)users / (double)source_requests) / (double)(m - users);
    struct sim_stats *dst[3] = { &out->ttft, &out->tpot, &out->e2e };
    for (int k = 0; k < 3; k++) {
        long n = 0;
        for (long i = 0; i < m; i++) {
            const struct sim_request *q = &res->reqs[i];
            if (q->rejected || q->finish_s < 0 || (k == 1 && q->output < 2))
                continue;
            const double v = k == 0   ? q->first_token_s - q->arrival_s
                             : k == 1 ? (q->finish_s - q->first_token_s) / (double)(q->output - 1)
                                      : q->finish_s - q->arrival_s;
            s[n++] = (struct srv_wval){ v, i < users ? w_burst : w_rest };
        }
        if (n > 0)
            *dst[k] = srv_weighted_stats(s, n);
    }
    free(s);
    /* the share within the SLOs, and the goodput it gives, by the same weights (every request
     * counts, a rejected one as a miss, as sim_stats.c counts them) */
    if (sc->ttft_slo_s > 0 || sc->tpot_slo_s > 0) {
        double within = 0;
        for (long i = 0; i < m; i++) {
            const struct sim_request *q = &res->reqs[i];
            if (q->rejected || q->finish_s < 0)
                continue;
            const double ttft = q->first_token_s - q->arrival_s,
                         tpot = q->output >= 2 ? (q->finish_s - q->first_token_s) / (double)(q->output - 1) : 0;
            if ((!(sc->ttft_slo_s > 0) || ttft <= sc->ttft_slo_s) && (!(sc->tpot_slo_s > 0) || tpot <= sc->tpot_slo_s))
                within += i < users ? w_burst : w_rest;
        }
        out->slo_share = within;
        out->goodput_req_s = res->duration_s > 0 ? within * (double)m / res->duration_s : 0;
    }
}

/* One replication of sc (its seed as set): its statistics into out, or the reason there are none. */
static void sim_one_seed(const struct sim_config *sc, long source_requests, struct run_sums *out)
{
    memset(out, 0, sizeof *out);
    struct llmroof_err err = { 0 };
    struct sim_result res;
    if (sim_run(sc, &res, &err)) {
        snprintf(out->reason, sizeof out->reason, "the simulator refuses the setup: %.150s", err.msg);
        return;
    }
    if (res.completed < 1 || !(res.duration_s > 0)) {
        snprintf(out->reason, sizeof out->reason, "the simulated load completed no request (%ld rejected)", res.errors);
        sim_result_free(&res);
        return;
    }
    double prompt_tokens = 0;
    for (long i = 0; i < res.requests; i++)
        if (res.reqs[i].finish_s >= 0 && !res.reqs[i].rejected)
            prompt_tokens += (double)res.reqs[i].prompt;
    out->ok = true;
    out->ttft = res.ttft;
    out->tpot = res.tpot;
    out->e2e = res.e2e;
    out->itl = res.itl;
    out->duration_s = res.duration_s;
    out->req_s = res.request_per_s;
    out->out_tok_s = res.output_tok_s;
    out->prompt_tok_s = prompt_tokens / res.duration_s;
    out->slo_share = res.within_slo_share;
    out->goodput_req_s = res.goodput_qps;
    closed_loop_weights(sc, &res, source_requests, out);
    sim_result_free(&res);
}

/* Replications a row's run gets. A published figure is one draw of a random run: its arrivals
 * (Poisson) and its request lengths are one sample, and a short run's mean TPOT moves by a
 * quarter from seed to seed (OPT-13B, vLLM 0.2, 200 requests at 2/s: 49-67 ms over eight
 * seeds). A random run of n requests is therefore repeated with the next seeds until about
 * SRV_REPLICATE_REQUESTS requests have been simulated, an odd number of runs (at most
 * SRV_REPLICATE_MAX, fewer where they would pass the 20 s a row may take), and each statistic is
 * the median over the replications, the middle run's: the error is scored as |predicted / measured
 * - 1|, and the median of the run-to-run distribution is the prediction with the least expected
 * absolute error (a mean would follow the one seed that tipped a knee-loaded server over). A run
 * with nothing random (fixed lengths, every request queued or a closed loop without think time)
 * runs once. */
#define SRV_REPLICATE_REQUESTS 2000
#define SRV_REPLICATE_MAX 9

static int replications(const struct sim_config *sc)
{
    const bool random = sc->mode == SIM_RATE || sc->workload->kind != WORKLOAD_FIXED ||
                        (sc->mode == SIM_CLOSED && sc->think_max_s > 0);
    if (!random || sc->requests <= 0)
        return 1;
    long r = (SRV_REPLICATE_REQUESTS + sc->requests - 1) / sc->requests;
    r += r % 2 == 0; /* odd: a median of two would be their mean */
    const double one = sim_estimate_wall_s(sc);
    while (r > 1 && (r > SRV_REPLICATE_MAX || one * (double)r > 20))
        r -= 2;
    return r < 1 ? 1 : (int)r;
}

static int dbl_cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorted in place); the mean of the middle two when n is even. */
static double median_of(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, dbl_cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The offset of every double a replication's run_sums carries (sim_stats' n stays the first's). */
#define RS_STAT(f, s) offsetof(struct run_sums, f) + offsetof(struct sim_stats, s)
#define RS_STATS(f) RS_STAT(f, mean), RS_STAT(f, p50), RS_STAT(f, p90), RS_STAT(f, p95), RS_STAT(f, p99), RS_STAT(f, max)
static const size_t rs_fields[] = {
    RS_STATS(ttft), RS_STATS(tpot), RS_STATS(e2e), RS_STATS(itl),
    offsetof(struct run_sums, duration_s), offsetof(struct run_sums, req_s), offsetof(struct run_sums, out_tok_s),
    offsetof(struct run_sums, prompt_tok_s), offsetof(struct run_sums, slo_share),
    offsetof(struct run_sums, goodput_req_s),
};

static double *rs_at(struct run_sums *r, size_t off)
{
    return (double *)(void *)((char *)r + off);
}

/* A row's run of sc: each statistic's median over its replications (replications()), or the
 * reason there is none. A closed loop shorter than the published run of source_requests (0: not
 * stated) weighs its t = 0 burst as that run does. */
static void sim_once(const struct sim_config *sc, long source_requests, struct run_sums *out)
{
    memset(out, 0, sizeof *out);
    const int reps = replications(sc);
    if (sim_estimate_wall_s(sc) > 20) { /* replications() keeps the others within it */
        snprintf(out->reason, sizeof out->reason, "the simulated run would take more than 20 s");
        return;
    }
    struct run_sums rs[SRV_REPLICATE_MAX];
    memset(rs, 0, sizeof rs); /* (reps >= 1 fills rs[0]; the analyser cannot see it) */
    struct sim_config one = *sc;
    for (int k = 0; k < reps; k++) {
        one.seed = sc->seed + (uint64_t)k;
        sim_one_seed(&one, source_requests, &rs[k]);
        if (!rs[k].ok) {
            *out = rs[k];
            return;
        }
    }
    *out = rs[0];
    for (size_t f = 0; f < sizeof rs_fields / sizeof *rs_fields && reps > 1; f++) {
        double v[SRV_REPLICATE_MAX];
        for (int k = 0; k < reps; k++)
            v[k] = *rs_at(&rs[k], rs_fields[f]);
        *rs_at(out, rs_fields[f]) = median_of(v, reps);
    }
}

static double stat_of(const struct sim_stats *s, enum srv_stat st)
{
    return st == SRV_P50 ? s->p50 : st == SRV_P90 ? s->p90 : st == SRV_P99 ? s->p99 : s->mean;
}

static double metric_of(const struct srv_case *c, const struct run_sums *r, const struct run_sums *base)
{
    switch (c->metric) {
    case SRV_TTFT: return 1e3 * stat_of(&r->ttft, c->stat);
    case SRV_TPOT: return 1e3 * stat_of(&r->tpot, c->stat);
    case SRV_ITL: return 1e3 * stat_of(&r->itl, c->stat);
    case SRV_E2E: return 1e3 * stat_of(&r->e2e, c->stat);
    case SRV_MAKESPAN: return 1e3 * r->duration_s;
    case SRV_REQ_S: return r->req_s / c->divide;
    case SRV_OUT_TOK_S: return r->out_tok_s / c->divide;
    case SRV_TOTAL_TOK_S: return (r->out_tok_s + r->prompt_tok_s) / c->divide;
    case SRV_PROMPT_TOK_S: return r->prompt_tok_s / c->divide;
    /* at least 0.1%: a share of 0 would make the inverted error infinite */
    case SRV_SLO_PCT: return fmax(0.1, 100 * r->slo_share);
    case SRV_SPEEDUP_TPUT: return r->out_tok_s / base->out_tok_s;
    case SRV_SPEEDUP_TPOT: return base->tpot.mean / r->tpot.mean;
    case SRV_SPEEDUP_E2E: return base->e2e.mean / r->e2e.mean;
    /* at least 0.001 req/s, as slo_pct's floor: a goodput of 0 would make the error infinite */
    case SRV_GOODPUT_REQ_S: return fmax(1e-3, r->goodput_req_s / c->divide);
    case SRV_METRIC_COUNT: break;
    }
    return 0;
}

/* The simulations of srv_predict_jobs, one task per run on par_for's threads: each writes only
 * its own slot of runs (a setup's run) or bases (a row's baseline). */
struct srv_sims {
    const struct srv_case *cases;
    const struct llmroof_gpu *gpus;
    const struct llmroof_engine *engines;
    int ngpus, nengines;
    const size_t *todo; /* row indices */
    struct run_sums *out; /* by row index */
    bool base;          /* the rows' baselines, not their own runs */
};

/* the row's setup with the fitted GPU and engine of the same ids, where the caller has them */
static void srv_fitted(const struct srv_sims *s, const struct srv_case *c, const struct llmroof_gpu **g,
                       const struct llmroof_engine **e)
{
    *g = c->gpu;
    *e = c->engine;
    for (int k = 0; k < s->ngpus; k++)
        if (strcmp(s->gpus[k].id, c->gpu->id) == 0)
            *g = &s->gpus[k];
    for (int k = 0; k < s->nengines && *e; k++)
        if (strcmp(s->engines[k].id, (*e)->id) == 0)
            *e = &s->engines[k];
}

static void srv_sim_one(void *ctx, int t)
{
    const struct srv_sims *s = ctx;
    const size_t i = s->todo[t];
    const struct srv_case *c = &s->cases[i];
    const struct llmroof_gpu *g;
    const struct llmroof_engine *e;
    if (!s->base) {
        srv_fitted(s, c, &g, &e);
        simulate(c, g, e, &s->out[i]);
        return;
    }
    /* the baseline: the same setup with the base engine, or without speculation */
    struct srv_case b = *c;
    b.has_base = false;
    if (c->base_engine) {
        /* the settings the row states are the feature run's (vLLM 0.6's multi-step scheduling,
         * say), not the baseline engine's: it runs with its own defaults */
        b.engine = c->base_engine;
        b.max_seqs = 0;
        b.max_batched_tokens = 0;
        b.chunked = -1;
        b.sched_steps = 0;
        b.recv_interval = 0;
        b.engine_use_ray = false;
        b.max_paddings = -1;
        b.kv_blocks = 0;
        b.max_concurrent = 0;
    } else if (!c->base_tp) {
        b.spec_kind = 0;
    }
    if (c->base_tp > 0) { /* the baseline's own layout: TP alone */
        b.tp = c->base_tp;
        b.ep = 1;
        b.dp_attn = false;
        b.moe_tp = 1;
    }
    srv_fitted(s, &b, &g, &e);
    simulate(&b, g, e, &s->out[i]);
}

int srv_predict(struct srv_case *cases, size_t n, const bool *keep, const struct llmroof_gpu *gpus, int ngpus,
                const struct llmroof_engine *engines, int nengines, struct llmroof_err *err)
{
    return srv_predict_jobs(cases, n, keep, gpus, ngpus, engines, nengines, 1, err);
}

int srv_predict_jobs(struct srv_case *cases, size_t n, const bool *keep, const struct llmroof_gpu *gpus, int ngpus,
                     const struct llmroof_engine *engines, int nengines, int threads, struct llmroof_err *err)
{
    struct run_sums *runs = calloc(n ? n : 1, sizeof *runs), *bases = calloc(n ? n : 1, sizeof *bases);
    long *run_of = calloc(n ? n : 1, sizeof *run_of);
    size_t *todo = calloc(n ? n : 1, sizeof *todo);
    if (!runs || !bases || !run_of || !todo) {
        free(runs);
        free(bases);
        free(run_of);
        free(todo);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    }
    /* the runs: rows of one setup share the first one's (same_run), laid out before any runs */
    size_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        const struct srv_case *c = &cases[i];
        run_of[i] = -1;
        if ((keep && !keep[i]) || !c->mapped) /* the mask first: another fold may be writing row i */
            continue;
        for (size_t j = 0; j < i && run_of[i] < 0; j++)
            if (run_of[j] >= 0 && same_run(c, &cases[j]))
                run_of[i] = run_of[j];
        if (run_of[i] < 0) {
            run_of[i] = (long)i;
            todo[nt++] = i;
        }
    }
    struct srv_sims sims = { cases, gpus, engines, ngpus, nengines, todo, runs, false };
    par_for((int)nt, threads, srv_sim_one, &sims, NULL, NULL);
    /* the baselines of the rows whose own run succeeded, each its own simulation */
    nt = 0;
    for (size_t i = 0; i < n; i++)
        if (run_of[i] >= 0 && cases[i].has_base && runs[run_of[i]].ok)
            todo[nt++] = i;
    sims.out = bases;
    sims.base = true;
    par_for((int)nt, threads, srv_sim_one, &sims, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        if (run_of[i] < 0)
            continue;
        struct srv_case *c = &cases[i];
        const struct run_sums *r = &runs[run_of[i]];
        const struct run_sums *base = c->has_base && r->ok ? &bases[i] : &(struct run_sums){ .ok = true };
        double p = r->ok && base->ok ? metric_of(c, r, base) : 0;
        if (!(p > 0) || !isfinite(p)) {
            c->mapped = false;
            snprintf(c->reason, sizeof c->reason, "%s",
                     !r->ok ? r->reason : !base->ok ? base->reason : "the simulated metric is zero");
            continue;
        }
        c->predicted = p;
        c->err = is_rate(c->metric) ? c->measured / p - 1 : p / c->measured - 1;
    }
    free(runs);
    free(bases);
    free(run_of);
    free(todo);
    return LLMROOF_OK;
}

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

void srv_source_key(const struct srv_case *c, char *out, size_t cap)
{
    struct val_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.source, sizeof r.source, "%s", c->source);
    snprintf(r.framework, sizeof r.framework, "%s", c->framework);
    val_source_key(&r, out, cap);
}

/* median, p90 and bias of err over the mapped cases of a class, a load and a publication (cls,
 * load < 0 and key NULL: any) */
static struct val_stats stats_where(const struct srv_case *cases, size_t n, int cls, int load, const char *key)
{
    struct val_stats s = { 0, 0, 0, 0 };
    double *a = malloc(sizeof *a * (n ? n : 1)), *b = malloc(sizeof *b * (n ? n : 1));
    if (!a || !b) {
        free(a);
        free(b);
        return s;
    }
    for (size_t i = 0; i < n; i++) {
        const struct srv_case *c = &cases[i];
        if (!c->mapped || (cls >= 0 && (int)srv_metric_class(c->metric) != cls) || (load >= 0 && (int)c->load != load))
            continue;
        if (key) {
            char k[VAL_TEXT];
            srv_source_key(c, k, sizeof k);
            if (strcmp(k, key) != 0)
                continue;
        }
        a[s.n] = fabs(c->err);
        b[s.n] = c->err;
        s.n++;
    }
    s = val_stats_errs(a, b, s.n);
    free(a);
    free(b);
    return s;
}

void srv_bands(const struct srv_case *cases, size_t n, struct llmroof_uncertainty *u)
{
    const enum srv_class cls[3] = { SRV_CLASS_TTFT, SRV_CLASS_TPOT, SRV_CLASS_E2E };
    struct llmroof_band *b[3] = { &u->serving_ttft, &u->serving_tpot, &u->serving_e2e };
    struct srv_wval *v = malloc(sizeof *v * (n ? n : 1));
    char (*key)[VAL_TEXT] = malloc(sizeof *key * (n ? n : 1));
    long *from = malloc(sizeof *from * (n ? n : 1));
    for (int k = 0; k < 3; k++) {
        long m = 0;
        *b[k] = (struct llmroof_band){ false, 0.0, 0.0, 0 };
        for (size_t i = 0; i < n && v && key && from; i++)
            /* a latency row's err is predicted / measured - 1: measured / predicted = 1 / (1 + err) */
            if (cases[i].mapped && srv_metric_class(cases[i].metric) == cls[k] && cases[i].err > -1.0) {
                v[m].v = 1.0 / (1.0 + cases[i].err);
                srv_source_key(&cases[i], key[m], sizeof key[m]);
                from[m++] = 0;
            }
        if (m < 2)
            continue;
        /* each publication weighs the same, its rows sharing its weight: one source of many rows
         * (60 of InferenceX's beside a blog post's 2) does not set the spread for every engine */
        for (long i = 0; i < m; i++)
            for (long j = 0; j < m; j++)
                from[i] += strcmp(key[i], key[j]) == 0;
        for (long i = 0; i < m; i++)
            v[i].w = 1.0 / (double)from[i];
        const double hi = srv_weighted_stats(v, m).p90;
        for (long i = 0; i < m; i++) /* the 10th percentile: the 90th of the negated ratios */
            v[i].v = -v[i].v;
        const double lo = -srv_weighted_stats(v, m).p90;
        *b[k] = (struct llmroof_band){ true, lo, hi, m };
    }
    free(v);
    free(key);
    free(from);
}

struct val_stats srv_stats_source(const struct srv_case *cases, size_t n, const char *key)
{
    return stats_where(cases, n, -1, -1, key);
}

struct val_stats srv_stats(const struct srv_case *cases, size_t n, int cls, int load)
{
    return stats_where(cases, n, cls, load, NULL);
}
