/* sim_stats.c - the simulator's statistics: percentiles of the per-request records, the
 * overload test, and the result's metrics (docs/metrics.md). Split from sim.c. */
#include "serve/sim_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The order of doubles as unsigned integers: a non-negative double's bits with the sign bit set,
 * a negative one's bits all flipped (IEEE 754 orders same-sign magnitudes like their bits);
 * key_of and double_of are inverses, so the values come back to the bit. */
static inline uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (1ull << 63);
}

static inline double double_of(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~(1ull << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Sorts keys that agree above bit `hi` by their bits below it, the most significant digit first,
 * in place (American flag sort: McIlroy, Bostic and McIlroy, "Engineering radix sort", Computing
 * Systems 6(1), 1993): 11-bit digits over large ranges, 8-bit ones below 64 K keys, insertion
 * sort below 48. */
#define RADIX_MAX_BUCKETS 2048
static void radix_sort(uint64_t *k, long n, int hi)
{
    while (n > 48 && hi > 0) {
        const int bits = n > 65536 && hi >= 11 ? 11 : hi >= 8 ? 8 : hi, shift = hi - bits;
        const int nb = 1 << bits;
        const uint64_t mask = (uint64_t)nb - 1;
        long cnt[RADIX_MAX_BUCKETS], next[RADIX_MAX_BUCKETS], end[RADIX_MAX_BUCKETS];
        memset(cnt, 0, (size_t)nb * sizeof cnt[0]);
        for (long i = 0; i < n; i++)
            cnt[(k[i] >> shift) & mask]++;
        long at = 0, big_start = 0;
        int big = 0; /* the largest bucket (the first of equals) and where it starts */
        for (int d = 0; d < nb; d++) {
            if (cnt[d] > cnt[big]) {
                big = d;
                big_start = at;
            }
            next[d] = at;
            at += cnt[d];
            end[d] = at;
        }
        for (int d = 0; d < nb; d++) {
            while (next[d] < end[d]) {
                uint64_t x = k[next[d]];
                int xd = (int)((x >> shift) & mask);
                while (xd != d) { /* x goes to its bucket; what was there comes back */
                    uint64_t y = k[next[xd]];
                    k[next[xd]++] = x;
                    x = y;
                    xd = (int)((x >> shift) & mask);
                }
                k[next[d]++] = x;
            }
        }
        /* each bucket by the next digit; the largest in this loop, the others recursively */
        for (int d = 0; d < nb; d++)
            if (d != big && cnt[d] > 1)
                radix_sort(k + end[d] - cnt[d], cnt[d], shift);
        k += big_start;
        n = cnt[big];
        hi = shift;
    }
    for (long i = 1; i < n; i++) {
        uint64_t x = k[i];
        long j = i;
        for (; j > 0 && k[j - 1] > x; j--)
            k[j] = k[j - 1];
        k[j] = x;
    }
}

/* Sorts doubles ascending (none is NaN), in place: the keys of key_of by radix, an eighth of
 * quicksort's time on the 10 M-request run (issue 24). Equal values have equal bits except 0 and
 * -0, which no simulator time difference produces, so the order is the one any sort gives. */
static void sort_doubles(double *v, long n)
{
    /* the keys in the same (allocated) bytes, each stored by memcpy of an integer, so that the
     * integer reads below are of integers (C11 6.5p6) */
    unsigned char *b = (unsigned char *)v;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (long i = 0; i < n; i++) {
        double x;
        memcpy(&x, b + 8 * i, 8);
        const uint64_t key = key_of(x);
        memcpy(b + 8 * i, &key, 8);
        lo = key < lo ? key : lo;
        hi = key > hi ? key : hi;
    }
    /* the bits above the highest one where the smallest and largest keys differ are every key's */
    int top = 0;
    for (uint64_t d = lo ^ hi; d; d >>= 1)
        top++;
    uint64_t *k = (uint64_t *)(void *)b;
    radix_sort(k, n, top);
    for (long i = 0; i < n; i++) {
        const double x = double_of(k[i]);
        memcpy(b + 8 * i, &x, 8);
    }
}

/* Percentiles by linear interpolation between order statistics (numpy's default). */
static struct sim_stats stats_of(double *v, long n)
{
    struct sim_stats s = { 0 };
    s.n = n;
    if (n == 0)
        return s;
    sort_doubles(v, n);
    double sum = 0;
    for (long i = 0; i < n; i++)
        sum += v[i];
    s.mean = sum / (double)n;
    double ps[5] = { 50, 90, 95, 99, 100 };
    double *out[5] = { &s.p50, &s.p90, &s.p95, &s.p99, &s.max };
    for (int k = 0; k < 5; k++) {
        double pos = ps[k] / 100.0 * (double)(n - 1);
        long lo = (long)floor(pos);
        long hi = lo + 1 < n ? lo + 1 : lo;
        *out[k] = v[lo] + (v[hi] - v[lo]) * (pos - (double)lo);
    }
    return s;
}

/* Inter-token latency (docs/metrics.md, "Inter-token latency"): the serving benchmarks' ITL
 * (vLLM's and SGLang's clients) is the list of gaps between a request's consecutive streamed
 * chunks, pooled over all requests; its mean is the token-weighted TPOT, its percentiles see the
 * single long gaps (a prefill iteration that stalls the decodes, a preemption) that a
 * request's mean TPOT spreads thin. Gaps go to a histogram of the double's exponent and its top
 * SIM_ITL_OCT_BITS mantissa bits (a log scale without a log), so the memory is fixed however
 * many tokens a run streams. */
void sim_itl_add(struct runner *r, double gap_s, long count)
{
    if (count <= 0)
        return;
    uint64_t bits;
    memcpy(&bits, &gap_s, sizeof bits);
    const long base = (long)(1023 + SIM_ITL_MIN_EXP) << SIM_ITL_OCT_BITS;
    long k = gap_s > 0 ? (long)(bits >> (52 - SIM_ITL_OCT_BITS)) - base : 0;
    if (k < 0)
        k = 0;
    if (k >= SIM_ITL_BINS)
        k = SIM_ITL_BINS - 1;
    r->itl_n[k] += count;
    r->itl_sum[k] += gap_s * (double)count;
    r->itl_total += gap_s * (double)count;
    r->itl_count += count;
    if (gap_s > r->itl_max)
        r->itl_max = gap_s;
}

/* The gap of rank `rank` (0-based, in increasing order): its bin's mean. */
static double itl_rank(const struct runner *r, long rank)
{
    long seen = 0;
    for (long k = 0; k < SIM_ITL_BINS; k++) {
        seen += r->itl_n[k];
        if (rank < seen)
            return r->itl_sum[k] / (double)r->itl_n[k];
    }
    return r->itl_max;
}

/* The statistics as stats_of gives them over the sorted gaps (linear between neighbouring ranks),
 * each rank's value its bin's mean: within a bin's width (0.78% at most) of the exact one, exact for
 * a bin of equal gaps. */
static struct sim_stats itl_stats(const struct runner *r)
{
    struct sim_stats s = { 0 };
    s.n = r->itl_count;
    if (s.n == 0)
        return s;
    s.mean = r->itl_total / (double)s.n;
    s.max = r->itl_max;
    const double ps[4] = { 50, 90, 95, 99 };
    double *out[4] = { &s.p50, &s.p90, &s.p95, &s.p99 };
    for (int k = 0; k < 4; k++) {
        double pos = ps[k] / 100.0 * (double)(s.n - 1);
        long lo = (long)floor(pos);
        double vlo = itl_rank(r, lo), vhi = lo + 1 < s.n ? itl_rank(r, lo + 1) : vlo;
        *out[k] = vlo + (vhi - vlo) * (pos - (double)lo);
    }
    return s;
}

static double stat_at(const struct sim_stats *s, int p)
{
    return p == 50 ? s->p50 : p == 90 ? s->p90 : p == 95 ? s->p95 : p == 99 ? s->p99 : s->max;
}

/* The steady-state service rate of one instance, an optimistic bound (docs/metrics.md,
 * "Overload"): at the most sequences it can hold, B = min(max_seqs, KV tokens / (P + O/2)),
 * every iteration emits B decode tokens at the mean context P + O/2 and prefills the prompt
 * tokens that arrive meanwhile (B P / O per iteration, each prompt spread over its request's O
 * steps, costed without past context), so it finishes B / (O t) requests per second. A prefill
 * instance (or a run that ends requests at their first token) prefills full budgets: budget /
 * (P t) prompts per second. Speculative decoding emits more than one token per step: its bound is
 * the simulator's (sim_stats.c spec_capacity_qps), which needs the run's drafter. */
double sim_instance_capacity_qps(const struct llmroof_setup *s, const struct llmroof_shard *sh, double kv_tokens,
                                 long max_seqs, long budget_tokens, double P, double O, enum sim_capacity_kind kind)
{
    if (!(P > 0) || !(O > 0))
        return 0;
    struct llmroof_batch b = { 0 };
    if (kind == SIM_CAP_PREFILL) {
        double budget = (double)budget_tokens;
        batch_add(&b, budget, 0, &sh->few);
        double t = sim_step_time(s, sh, &b);
        return t > 0 ? budget / (P * t) : 0;
    }
    /* a windowed model's sequence holds its local layers' window only (seq_blocks) */
    double B = fmax(1.0, fmin((double)max_seqs, floor(kv_tokens / memory_kv_tokens_held(s->model, sh, P + O / 2))));
    b = batch_decode(B, P + O / 2);
    if (kind == SIM_CAP_AGGREGATED) {
        /* the B / O requests that start each step, each its own P-token prompt (one
         * B P / O-token sequence would charge the attention of one long prompt: with 9-token
         * outputs and 500-token prompts, 14,222 tokens' pairs instead of 28 prompts' 500 each,
         * 29 times as many, and a bound below the rate a server sustains) */
        const struct llmroof_batch pre = batch_prefill(B / O, P, &sh->few);
        batch_accumulate(&b, &pre); /* (batch_prefill's extra_logits is 0) */
    }
    double t = sim_step_time(s, sh, &b);
    return t > 0 ? B / (O * t) : 0;
}

/* A disaggregated decode instance takes its requests' K/V over its own incoming link, one
 * transfer at a time (sim_start_transfers): a P-token prompt's bytes on each receiving GPU, or the
 * sending GPUs' shares where the prefill side has fewer ranks, after the link's setup cost. Its
 * requests per second can be no more than the transfers that link finishes: DeepSeek-V3's 4096-token
 * prompt holds 4096 x 70,272 B = 288 MB a GPU, 0.288 s over 1 GB/s, 3.47 requests/s whatever its
 * GPUs compute. The bytes are linear in the K/V tokens a prompt leaves (arch_kv_tokens_held), so
 * the mean transfer is that of H, the mean of the held tokens over the requests' prompts. It is
 * not held(mean P): a windowed model's local layers send at most their window, which makes held
 * concave in P (Gemma-2-27B, half its layers windowed at 4,096: prompts of 1,000 and 15,000
 * tokens hold 1,000 and (15,000 + 4,096) / 2 = 9,548, a mean of 5,274, where held(8,000) =
 * (8,000 + 4,096) / 2 = 6,048 would overstate the transfer by 15%). */
static double link_capacity_qps(const struct runner *r, const struct engine *d, double H)
{
    const struct engine *p = NULL;
    for (int i = 0; i < r->ne && !p; i++)
        if (r->E[i].pool == 0)
            p = &r->E[i];
    if (!p)
        return 0;
    const double per_gpu = H * d->kv_token_gpu_bytes;
    const double sent = per_gpu * (double)d->setup.tp / (double)p->setup.tp;
    const double t = r->c->kv_link_latency_s + fmax(per_gpu, sent) / r->c->kv_link_Bps;
    return t > 0 ? 1.0 / t : 0;
}

/* The steady-state bound of a speculating instance (sim_instance_capacity_qps's rule with the
 * speculative step): B sequences at the mean context each emit E tokens a step (the expected
 * accepted drafts and the target's token, sim_spec_expected_tokens), so a request takes O / E
 * steps and B E / O requests finish (and as many prompts arrive, with `prompts`) each step of
 * time t, the verification and the drafter's passes (sim_spec_step_s): B E / (O t). Before
 * session 38 speculation had no bound and no request life, so the window test took every
 * window as long enough: 10 Llama-3.1-8B requests at 5/s with EAGLE read "overloaded" where the
 * same run without speculation, slower, kept up. */
static double spec_capacity_qps(const struct runner *r, const struct engine *e, double P, double O, bool prompts)
{
    if (!(P > 0) || !(O > 0))
        return 0;
    const double E = sim_spec_expected_tokens(&r->c->spec);
    const double kv = (double)e->total_blocks * (double)e->bs;
    const double B = fmax(1.0, fmin((double)e->max_run, floor(kv / memory_kv_tokens_held(e->setup.model, &e->sh, P + O / 2))));
    const struct llmroof_batch none = { 0 };
    const struct llmroof_batch pre = prompts ? batch_prefill(B * E / O, P, &e->sh.few) : none;
    const double t = sim_spec_step_s(r, e, B, P + O / 2, &pre);
    return t > 0 ? B * E / (O * t) : 0;
}

/* H: the mean K/V tokens the requests' prompts hold on the decode side (link_capacity_qps) */
static double instance_capacity_qps(const struct runner *r, const struct engine *e, double P, double O, double H)
{
    const struct sim_config *c = r->c;
    /* a static batch runs until its longest request ends, which a mean-length bound does not
     * see: no bound (the queue test alone judges overload) */
    if (c->static_batching)
        return 0;
    enum sim_capacity_kind kind = e->prefill_only || c->first_token_only ? SIM_CAP_PREFILL
                                  : e->pool == 0                        ? SIM_CAP_AGGREGATED
                                                                        : SIM_CAP_DECODE;
    double q = e->spec && kind != SIM_CAP_PREFILL
                   ? spec_capacity_qps(r, e, P, O, kind == SIM_CAP_AGGREGATED)
                   : sim_instance_capacity_qps(&e->setup, &e->sh, (double)e->total_blocks * (double)e->bs, e->max_run,
                                               e->budget, P, O, kind);
    if (kind == SIM_CAP_DECODE && q > 0) {
        const double link = link_capacity_qps(r, e, H);
        if (link > 0)
            q = fmin(q, link);
    }
    return q;
}

/* arch_kv_tokens_held as workload_mean_of_prompt's callback (ctx: the model) */
static double held_of_prompt(double prompt, const void *ctx)
{
    return arch_kv_tokens_held(ctx, prompt);
}

/* The cluster's bound: the pool that serves the fewest requests per second sets it (0: none).
 * *life_s: the shortest life of a request once it runs, O decode steps alone at the mean
 * context on the instance that decodes it (0 when requests end at their first token). */
static double cluster_capacity_qps(const struct runner *r, double *life_s)
{
    *life_s = 0;
    /* the decode pool's model: the K/V its prompts hold (the last engine, the decode pool's, as below) */
    const struct llmroof_model *dm = r->ne > 0 && r->c->disaggregated ? r->E[r->ne - 1].setup.model : NULL;
    double P = 0, O = 0, H = 0;
    long n = 0;
    for (long i = 0; i < r->nreq; i++) {
        if (r->R[i].rejected)
            continue;
        P += (double)r->R[i].prompt;
        O += (double)r->R[i].output;
        if (dm)
            H += arch_kv_tokens_held(dm, (double)r->R[i].prompt);
        n++;
    }
    if (n == 0)
        return 0;
    P /= (double)n;
    O /= (double)n;
    H /= (double)n;
    /* an open loop at a stated rate draws from its workload: the steady state is the workload's,
     * so its expected lengths set the bound, not this run's sample of them (which moved the bound
     * of four 1000-request runs of one rate between 22.4 and 23.5 requests/s: planner review D1);
     * a trace or a closed loop keeps its own requests' means. A context limit that caps outputs
     * (max_model_len) keeps the sample's, which saw the cap. */
    if (r->c->mode == SIM_RATE && r->c->workload && !(r->c->max_model_len > 0) && n == r->nreq) {
        workload_means(r->c->workload, &P, &O); /* (a run that rejected some keeps its sample: the
                                                   rejected lengths are not served) */
        if (dm)
            H = workload_mean_of_prompt(r->c->workload, held_of_prompt, dm);
    }
    /* the life first: a run without a bound still has one (speculation had neither before
     * session 38, so every window passed the window test) */
    if (!r->c->first_token_only) {
        const struct engine *d = &r->E[r->ne - 1];
        const struct llmroof_batch none = { 0 }, one = batch_decode(1, P + O / 2);
        *life_s = d->spec ? O / sim_spec_expected_tokens(&r->c->spec) * sim_spec_step_s(r, d, 1.0, P + O / 2, &none)
                          : O * sim_step_time(&d->setup, &d->sh, &one);
    }
    double pool[2] = { 0, 0 };
    for (int i = 0; i < r->ne; i++) {
        double q = instance_capacity_qps(r, &r->E[i], P, O, H);
        if (!(q > 0))
            return 0;
        pool[r->E[i].pool] += q;
    }
    bool decode_counts = r->c->disaggregated && !r->c->first_token_only;
    return decode_counts ? fmin(pool[0], pool[1]) : pool[0];
}

/* Offered against sustained rate over the second half of the arrival window, where a stable
 * server has settled: a server that keeps up completes about what arrives, and the number of
 * requests in it stays level; an overloaded one falls behind and its queue grows.
 * Completions cannot judge a window shorter than one request's life: 10 requests at 5/s, each
 * answered in 10 s, complete nothing in a 1 s window though one server keeps up with them
 * (issue 23 defect 8). The completions test therefore applies only when the window is at
 * least the shortest life of a request (its decode steps alone); in every run the offered
 * rate is also compared with the steady-state service rate (cluster_capacity_qps, an
 * optimistic bound): a rate beyond it cannot last, however short the run that shows no queue
 * yet. */
static void overload_metrics(struct runner *r)
{
    struct sim_result *out = r->out;
    double a0 = INFINITY, a1 = -INFINITY;
    for (long i = 0; i < r->nreq; i++) {
        a0 = fmin(a0, r->R[i].arrival_s);
        a1 = fmax(a1, r->R[i].arrival_s);
    }
    double mid = (a0 + a1) / 2, win = a1 - mid;
    if (!(win > 0))
        return;
    /* arrivals and finishes (rejections included) at or before each instant, straight from the
     * records: the counts a timeline of events gives, without one */
    long arr = 0, fin = 0, in_mid = 0, in_end = 0, done = 0, wait_mid = 0, wait_end = 0;
    double life_sum = 0;
    for (long i = 0; i < r->nreq; i++) {
        double a = r->R[i].arrival_s, f = r->R[i].finish_s;
        in_mid += (a <= mid) - (f <= mid);
        in_end += (a <= a1) - (f <= a1);
        arr += a > mid && a <= a1;
        fin += f > mid && f <= a1;
        if (r->R[i].rejected)
            continue;
        /* waiting: arrived, not yet in any iteration (first_sched_s < 0: never scheduled) */
        double s0 = r->R[i].first_sched_s < 0 ? INFINITY : r->R[i].first_sched_s;
        wait_mid += a <= mid && s0 > mid;
        wait_end += a <= a1 && s0 > a1;
        if (isfinite(f) && f >= a) {
            life_sum += f - a;
            done++;
        }
    }
    /* A server that admits every arrival at once fills for about one request life: its batch, each
     * step and each life grow until completions match arrivals (Little's law, L = lambda W, with W
     * growing with the batch), and meanwhile the count in the system rises though nothing waits.
     * 200 Llama-2-13B chat requests at 4/s on an A100 (vLLM 0.6) read 3.1 completions/s against 4.5
     * arriving, over a window of 1.7 mean lives; 2000 settle at 4.06 against 4.04. The test below
     * cannot tell that fill from overload (200 at 6/s look alike and do grow without limit), so
     * it keeps judging such runs overloaded, the safe side for a planner, and the warning says
     * how many lives the window spans (docs/metrics.md, "Overload and goodput"). */
    out->window_s = win;
    out->window_lives = done && life_sum > 0 ? win / (life_sum / (double)done) : 0;
    out->offered_rate_qps = (double)arr / win;
    out->sustained_rate_qps = (double)fin / win;
    out->queue_growth_per_s = (double)(in_end - in_mid) / win;
    double life_s = 0;
    out->capacity_qps = cluster_capacity_qps(r, &life_s);
    /* A Poisson run's window draws its arrivals with noise of about 1/sqrt(n) (125 arrivals: 9%),
     * and its completions follow the arrivals it drew: against either the drawn arrivals or the
     * rate alone, that noise crossed the 90% line at half the capacity (issue 23, defect 8). A
     * server that keeps up completes about what both say; one that does not falls short of
     * both, so the shortfall is judged against the smaller. A trace has only its arrivals. */
    double offered = out->offered_rate_qps;
    if (r->c->mode == SIM_RATE && r->c->rate_qps > 0 && r->c->rate_qps < offered)
        offered = r->c->rate_qps;
    /* An overloaded server always has work: its queue never empties once it is behind, so over the
     * window it computes without pause. One that computed for less than 90% of the window had
     * nothing to do the rest of the time and kept up, whatever its few completions say: 8 requests
     * at 0.5/s, one at a time, busy 3.3 s of 20 s, complete 3 of the 4 arriving in the window's
     * 10 s only because the last arrives at its end (Little's law: about lambda W are always in
     * flight). The pool whose instances were busiest is the one that could be behind (a
     * disaggregated decode pool while its prefill pool waits for it). */
    double pool_busy[2] = { 0, 0 }, pool_n[2] = { 0, 0 };
    for (int i = 0; i < r->ne; i++) {
        pool_busy[r->E[i].pool] += r->E[i].win_busy_s;
        pool_n[r->E[i].pool] += 1; /* a busy pipeline lane is in an iteration all the time, its
                                      first stage for 1 / lanes of it: a busy instance's share is 1 */
    }
    double busy = 0;
    for (int k = 0; k < 2; k++)
        if (pool_n[k] > 0)
            busy = fmax(busy, pool_busy[k] / (pool_n[k] * win));
    out->window_busy_share = busy;
    /* A stable server holds about lambda W requests at any instant, a Poisson-like count whose
     * spread is its square root: between the window's two ends the count in the system moves by
     * about sqrt(L_mid + L_end) with no trend at all. Growth within twice that is noise, not a
     * queue: 10 chat requests at 1/s on an H100 hold 1-2 at the middle of their window and 5 at its
     * end (4 more, within 2 sqrt(7) = 5.3) while the server runs at a sixtieth of its bound; an
     * overloaded run's growth rises with the window, its noise only with the root. */
    const double noise = 2.0 * sqrt((double)in_mid + (double)in_end);
    /* Both allowances apply where the rate is far below the steady-state bound (under half of it;
     * the bound is optimistic, but not twofold), where a growing count is noise or fill; near the
     * bound any growth counts (Qwen2.5-7B on an L4 at 0.5/s of 2000-token outputs, 200 requests:
     * the system grew by 25 against an allowance of 27, and 20,000 requests complete 0.43/s). A
     * disaggregated cluster can be behind on its KV link while both pools pause for it (8000-token
     * prompts over 1 GB/s: 0.95 requests/s move, the decode pool computes 62% of the time), so
     * there only the growth counts. */
    const double steady_rate = r->c->mode == SIM_RATE && r->c->rate_qps > 0 ? r->c->rate_qps : out->offered_rate_qps;
    const bool far_below = out->capacity_qps > 0 && steady_rate < 0.5 * out->capacity_qps;
    bool queue_grows = win >= life_s && out->sustained_rate_qps < 0.9 * offered &&
                       (double)(in_end - in_mid) > (far_below ? noise : 0.0) &&
                       (!far_below || r->c->disaggregated || busy >= 0.9);
    /* the bound holds in steady state: an open loop at a stated rate above it is overloaded however
     * its arrivals happened to fall (a 1000-request run at 24 requests/s drew 21.8 in its second
     * half and passed a bound of 23.0 that no run long enough meets; planner review D1); a trace
     * has only its drawn arrivals */
    const double steady = r->c->mode == SIM_RATE && r->c->rate_qps > 0 ? r->c->rate_qps : out->offered_rate_qps;
    out->steady_rate_qps = steady;
    /* a queue of requests not yet admitted that grows by more than a tenth of the window's arrivals
     * (and more than the one or two arriving just before its end) is overload, however short the
     * window; without one, a window of fewer than 3 lives may be a fill (a transient decays to
     * e^-3 = 5% in three time constants) */
    const bool waiting_grows = (double)(wait_end - wait_mid) > fmax(2.0, 0.1 * (double)arr);
    /* (a trace's drawn rate is a steady rate only over a window of a request life or more, or where
     * its waiting queue grows: two requests half a second apart are a burst of 4/s, not a load
     * whose queue grows without limit) */
    const bool stated = r->c->mode == SIM_RATE && r->c->rate_qps > 0;
    bool beyond_bound =
        out->capacity_qps > 0 && steady > out->capacity_qps && (stated || win >= life_s || waiting_grows);
    out->overloaded = queue_grows || beyond_bound;
    out->overloaded_by_bound = beyond_bound && !queue_grows;
    /* an offered rate above the steady-state bound is overload whatever the window shows: no hedge */
    out->may_be_filling = out->overloaded && !beyond_bound && !waiting_grows && out->window_lives > 0 &&
                          out->window_lives < 3;
    /* the run that would settle it: its window, n / (2 x rate) at the rate drawn, spans 3 mean lives
     * (a life measured in this run, an underestimate while the server fills: a floor, not a promise) */
    if (out->may_be_filling)
        out->requests_to_settle = (long)ceil(6.0 * out->offered_rate_qps * (life_sum / (double)done));
}

/* Phase 5: per-request statistics, per-instance figures, overload and SLO metrics. */
int sim_collect_metrics(struct runner *r, struct llmroof_err *err)
{
    const struct sim_config *c = r->c;
    struct sim_result *out = r->out;
    long nreq = r->nreq;
    out->requests = nreq;
    out->block_size = r->E[0].bs;
    out->seed = c->seed;
    out->ninst = r->lanes > 1 ? r->ne / r->lanes : r->ne; /* an instance's lanes are one instance */
    out->inst = calloc((size_t)out->ninst, sizeof *out->inst);
    /* one buffer, refilled for each statistic in turn, and a second for the timeline: 16 bytes
     * per request at the end of a run where five arrays and an event timeline took 72 (issue 24) */
    double *v = malloc(sizeof(double) * (size_t)nreq);
    if (!v || !out->inst) {
        free(v);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    }
    double t0 = INFINITY, t1 = 0, tokens = 0, lens = 0, prompt_tok = 0, cached_tok = 0;
    long within = 0;
    long na = 0;
    for (long i = 0; i < nreq; i++) {
        const struct sim_request *q = &r->R[i];
        if (q->arrival_s < t0)
            t0 = q->arrival_s;
        if (q->finish_s > t1)
            t1 = q->finish_s;
        if (q->rejected) {
            out->errors++;
            continue;
        }
        out->completed++;
        lens += (double)(q->prompt + q->output);
        tokens += (double)q->output;
        prompt_tok += (double)q->prompt;
        cached_tok += (double)q->cached_tokens;
        if (i < c->warmup_requests)
            continue; /* --warmup: latencies after the first N requests (docs/metrics.md) */
        double ttft = q->first_token_s - q->arrival_s;
        v[na++] = ttft;
        double tpot = q->output >= 2 ? (q->finish_s - q->first_token_s) / (double)(q->output - 1) : 0;
        if ((!(c->ttft_slo_s > 0) || ttft <= c->ttft_slo_s) && (!(c->tpot_slo_s > 0) || tpot <= c->tpot_slo_s))
            within++;
    }
    out->ttft = stats_of(v, na);
    long n = 0;
    for (long i = 0; i < nreq; i++) {
        const struct sim_request *q = &r->R[i];
        if (!q->rejected && q->output >= 2 && i >= c->warmup_requests)
            v[n++] = (q->finish_s - q->first_token_s) / (double)(q->output - 1);
    }
    out->tpot = stats_of(v, n);
    n = 0;
    for (long i = 0; i < nreq; i++)
        if (!r->R[i].rejected && i >= c->warmup_requests)
            v[n++] = r->R[i].finish_s - r->R[i].arrival_s;
    out->e2e = stats_of(v, n);
    out->itl = itl_stats(r);
    /* KV hand-overs: only disaggregated runs move KV (sim_draw_request marks every other request
     * -1; a trace's records start at 0), so the passes over the records are skipped elsewhere */
    const bool moved = c->disaggregated || c->mode == SIM_TRACE;
    n = 0;
    for (long i = 0; moved && i < nreq; i++)
        if (!r->R[i].rejected && r->R[i].kv_ready_s >= 0 && i >= c->warmup_requests)
            v[n++] = r->R[i].kv_ready_s - r->R[i].prefill_done_s;
    out->kv_transfer = stats_of(v, n);
    n = 0;
    for (long i = 0; moved && i < nreq; i++)
        if (!r->R[i].rejected && r->R[i].kv_ready_s >= 0 && i >= c->warmup_requests)
            v[n++] = r->dsched && r->dsched[i] >= 0 ? r->dsched[i] - r->R[i].kv_ready_s : 0;
    out->decode_queue = stats_of(v, n);
    /* Little's L: time-average of the number of requests in the system, integrated over the
     * timeline of arrival and finish events (independent of the per-request e2e sums): both
     * times sorted apart and merged, arrivals before finishes at the same instant. Arrivals
     * already in index order (open loop, sorted trace) are read in place, without a second
     * buffer: 8 bytes a request less at the run's peak */
    bool sorted = true;
    for (long i = 1; i < nreq && sorted; i++)
        sorted = r->R[i].arrival_s >= r->R[i - 1].arrival_s;
    double *w = v, *a = NULL;
    if (!sorted && !(a = malloc(sizeof(double) * (size_t)nreq))) {
        free(v);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    }
    for (long i = 0; i < nreq; i++) {
        w[i] = r->R[i].finish_s;
        if (a)
            a[i] = r->R[i].arrival_s;
    }
    sort_doubles(w, nreq);
    if (a)
        sort_doubles(a, nreq);
    double area = 0, prev = 0;
    long in_sys = 0;
    for (long ia = 0, iw = 0; ia < nreq || iw < nreq;) {
        double ta = ia < nreq ? (a ? a[ia] : r->R[ia].arrival_s) : 0;
        bool arrival = ia < nreq && (iw >= nreq || ta <= w[iw]);
        double t = arrival ? ta : w[iw];
        if (arrival)
            ia++;
        else
            iw++;
        if (ia + iw > 1)
            area += (double)in_sys * (t - prev);
        in_sys += arrival ? 1 : -1;
        prev = t;
    }
    free(v);
    free(a);
    out->duration_s = t1 > t0 ? t1 - t0 : 0;
    out->error_rate = (double)out->errors / (double)nreq;
    out->output_tok_s = out->duration_s > 0 ? tokens / out->duration_s : 0;
    out->request_per_s = out->duration_s > 0 ? (double)out->completed / out->duration_s : 0;
    out->prefix_hit_rate = prompt_tok > 0 ? cached_tok / prompt_tok : 0;
    out->spec_tokens_per_step = r->spec_steps > 0 ? r->spec_emitted / r->spec_steps : 1.0;

    /* the instances, and the whole run as their sums and time-weighted means. An instance's
     * pipeline lanes (sim_pipeline_lanes) are one instance: their counts add up, its busy time is
     * its first stage's (each lane's iterations over the lanes), its batch and KV use are
     * weighed by the lanes' iteration times */
    double wb = 0, wk = 0, wt = 0, cap_tokens = 0;
    const int lanes = r->lanes > 1 ? r->lanes : 1;
    for (int k = 0; k < out->ninst; k++) {
        struct sim_instance *s = &out->inst[k];
        double ib = 0, ik = 0, it = 0;
        for (int i = k * lanes; i < (k + 1) * lanes; i++) {
            const struct engine *e = &r->E[i];
            if (i == k * lanes) {
                *s = e->st;
            } else {
                s->requests += e->st.requests;
                s->iterations += e->st.iterations;
                s->preemptions += e->st.preemptions;
                s->kv_resets += e->st.kv_resets;
                s->kv_blocks_total += e->st.kv_blocks_total;
                if (e->st.max_batch > s->max_batch)
                    s->max_batch = e->st.max_batch;
            }
            ib += e->wbatch;
            ik += e->wkv;
            it += e->st.busy_s;
            cap_tokens += (double)e->total_blocks * (double)e->bs;
            out->kv_blocks_memory += e->mem_blocks;
        }
        s->lanes = lanes;
        s->busy_s = it / (double)lanes;
        s->mean_batch = it > 0 ? ib / it : 0;
        s->kv_util_mean = it > 0 ? ik / it : 0;
        s->utilization = out->duration_s > 0 ? s->busy_s / out->duration_s : 0;
        out->busy_s += s->busy_s;
        out->preemptions += s->preemptions;
        out->kv_resets += s->kv_resets;
        out->kv_blocks_total += s->kv_blocks_total;
        if (s->max_batch > out->max_batch)
            out->max_batch = s->max_batch;
        wb += ib;
        wk += ik;
        wt += it;
    }
    out->mean_batch = wt > 0 ? wb / wt : 0;
    out->kv_util_mean = wt > 0 ? wk / wt : 0;
    out->kv_capacity_tokens = cap_tokens;
    /* a windowed model's request holds its window's tokens in the local layers (seq_blocks) */
    out->max_batch_at_mean_len =
        out->completed ? out->kv_capacity_tokens / held_tokens(&r->E[0], lens / (double)out->completed) : 0;
    out->mean_in_system = out->duration_s > 0 ? area / out->duration_s : 0;
    out->open_loop = c->mode == SIM_RATE || c->mode == SIM_TRACE;
    if (out->open_loop)
        overload_metrics(r);

    /* SLOs: per-request limits for goodput (MLPerf counts the run valid when the percentile of
     * each metric meets its limit) */
    out->has_slo = c->ttft_slo_s > 0 || c->tpot_slo_s > 0;
    if (out->has_slo) {
        /* --warmup leaves its first N requests out of the count and of the share alike (a rejected
         * request misses); goodput is the completed requests per second times the share of the
         * counted completed ones within the limits, so never above the throughput (within /
         * duration without a warm-up) */
        const long counted = nreq - (c->warmup_requests < nreq ? c->warmup_requests : nreq);
        long done_counted = 0;
        for (long i = c->warmup_requests; i < nreq; i++)
            done_counted += !r->R[i].rejected;
        out->within_slo = within;
        out->within_slo_share = counted > 0 ? (double)within / (double)counted : 0;
        out->goodput_qps = out->duration_s > 0 && done_counted > 0
                               ? (double)within / (double)done_counted * (double)out->completed / out->duration_s
                               : 0;
        int p = c->slo_percentile ? c->slo_percentile : 99;
        /* an overloaded run's percentiles grow with its length: they cannot meet an SLO (MLPerf's
         * server scenario likewise requires the offered rate to be sustained) */
        out->slo_met = out->errors == 0 && !(out->open_loop && out->overloaded) &&
                       (!(c->ttft_slo_s > 0) || stat_at(&out->ttft, p) <= c->ttft_slo_s) &&
                       (!(c->tpot_slo_s > 0) || stat_at(&out->tpot, p) <= c->tpot_slo_s);
    }
    return LLMROOF_OK;
}
