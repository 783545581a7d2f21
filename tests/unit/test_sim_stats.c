/* test_sim_stats.c - the simulator's statistics (serve/sim_stats.c): the steady-state service bound
 * and the overload test of an open loop (docs/metrics.md, "Overload and goodput"). */
#include "helpers.h"

#include "serve/sim.h"
#include "model/ops.h"

/* Llama-3.1-8B on one H100 SXM at fp16 with the catalog's efficiencies (no engine profile). */
static struct llmroof_setup setup_8b(const struct llmroof_catalog *cat)
{
    const struct llmroof_gpu *g = gpu(cat, "h100");
    return (struct llmroof_setup){ model(cat, "llama-3.1-8b"), g, 1,
                                   { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false },
                                   roofline_default_effs(g), { 0 } };
}

static struct llmroof_shard shard_of(const struct llmroof_setup *s)
{
    const struct llmroof_layout lay = estimate_layout(s);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard_layout(s->model, &lay, &sh, &err), 0);
    return sh;
}

/* A decode step of B sequences at context ctx, with one sequence of `piece` new tokens after `past`
 * cached ones beside them when piece > 0. */
static double step_s(const struct llmroof_setup *s, const struct llmroof_shard *sh, double B, double ctx, double piece,
                     double past)
{
    struct llmroof_batch b = batch_decode(B, ctx);
    if (piece > 0)
        batch_add(&b, piece, past, &sh->few);
    return sim_step_time(s, sh, &b);
}

/* Each request's prompt joins one step beside the B decodes, whole: fixed:512:257 (D = 257 - 1 =
 * 256 decode steps a request, its first token comes with its prompt), 256 sequences (the KV of
 * 1e7 tokens holds 1e7 / 640.5 = 15,612 and the budget 2048 x 256 / (512 + 256) = 682), at the
 * mean context 512 + 257 / 2 = 640.5. A request costs D t_d / B + dt = t_d + dt, one mixed step
 * (t_d the decode step, dt the prompt's addition to it), so the bound is 1 / (t_d + dt). With
 * 20 us of CPU work per scheduled sequence that does not overlap the step, the decode step takes
 * 256 x 20 us = 5.12 ms more and the mixed one 257 x 20 us: dt grows by 20 us. Until session 39
 * the CPU work was left out of the bound (the simulator's steps pay it), and the prompts starting
 * in a step were spread over every step: for chat lengths (P 160, O 337, D 336: 256 / 337 = 0.76
 * of a prompt a step) the spread step is cheaper than the mean of the steps the simulator runs
 * (a whole prompt in 76% of them: the cost is convex in the tokens, Jensen), so the old bound is
 * the higher. */
static void the_bound_charges_each_prompt_whole_beside_the_decodes(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_setup s = setup_8b(&cat);
    const struct llmroof_shard sh = shard_of(&s);
    const double t_d = step_s(&s, &sh, 256, 640.5, 0, 0), dt = step_s(&s, &sh, 256, 640.5, 512, 0) - t_d;
    assert_true(dt > 0);
    assert_rel_close(sim_instance_capacity_qps(&s, &sh, 1e7, 256, 2048, 512, 257, SIM_CAP_AGGREGATED),
                     1.0 / (t_d + dt), 1e-12);
    s.eff.cpu_seq_s = 20e-6;
    s.eff.cpu_overlap = 0;
    assert_rel_close(sim_instance_capacity_qps(&s, &sh, 1e7, 256, 2048, 512, 257, SIM_CAP_AGGREGATED),
                     1.0 / (t_d + 5.12e-3 + dt + 20e-6), 1e-12);
    s.eff.cpu_seq_s = 0;
    /* chat's means: the old bound, B / (O t) with B / O = 256 / 337 prompts of 160 spread in the step */
    struct llmroof_batch spread = batch_decode(256, 160 + 337 / 2.0);
    const struct llmroof_batch pre = batch_prefill(256 / 337.0, 160, &sh.few);
    batch_accumulate(&spread, &pre);
    const double old = 256 / (337 * sim_step_time(&s, &sh, &spread));
    const double now = sim_instance_capacity_qps(&s, &sh, 1e7, 256, 2048, 160, 337, SIM_CAP_AGGREGATED);
    const double t_chat = step_s(&s, &sh, 256, 328.5, 0, 0); /* 160 + 337 / 2 */
    assert_rel_close(now, 1.0 / (336 * t_chat / 256 + step_s(&s, &sh, 256, 328.5, 160, 0) - t_chat), 1e-12);
    print_message("chat means: %.2f requests/s, spread prompts %.2f\n", now, old);
    assert_true(now < old);
    catalog_free(&cat);
}

/* With a token budget each request's F prompt tokens and D decode tokens share it, so no more than
 * budget x D / (F + D) sequences decode at once. fixed:1500:501 (D = 500) under a 512-token budget:
 * B = floor(512 x 500 / 2,000) = 128 (where max_seqs 256 and the KV would allow 256). The budget's
 * room beside them, 512 - 128 = 384 tokens, takes the prompt in ceil(1500 / 384) = ceil(3.91) = 4
 * chunks of 375, at the mean past (1500 - 375) / 2 = 562.5; the decodes run at 1500 + 501 / 2 =
 * 1750.5. A request costs 500 t_d(128) / 128 + 4 dt. Without a budget the same lengths decode 256
 * sequences a step, the prompt whole: a higher bound. A decode instance's budget holds decodes
 * alone: 100 tokens, B = 100, 100 / (500 t_d(100)). Until session 39 the budget was left out. */
static void the_token_budget_caps_the_decoding_sequences(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_setup s = setup_8b(&cat);
    const struct llmroof_shard sh = shard_of(&s);
    const double t_d = step_s(&s, &sh, 128, 1750.5, 0, 0), dt = step_s(&s, &sh, 128, 1750.5, 375, 562.5) - t_d;
    const double capped = sim_instance_capacity_qps(&s, &sh, 1e7, 256, 512, 1500, 501, SIM_CAP_AGGREGATED);
    assert_rel_close(capped, 1.0 / (500 * t_d / 128 + 4 * dt), 1e-12);
    const double wide = sim_instance_capacity_qps(&s, &sh, 1e7, 256, 1000000, 1500, 501, SIM_CAP_AGGREGATED);
    const double t_w = step_s(&s, &sh, 256, 1750.5, 0, 0);
    assert_rel_close(wide, 1.0 / (500 * t_w / 256 + step_s(&s, &sh, 256, 1750.5, 1500, 0) - t_w), 1e-12);
    print_message("budget 512: %.3f requests/s; unbounded: %.3f\n", capped, wide);
    assert_true(capped < wide);
    assert_rel_close(sim_instance_capacity_qps(&s, &sh, 1e7, 256, 100, 1500, 501, SIM_CAP_DECODE),
                     100 / (500 * step_s(&s, &sh, 100, 1750.5, 0, 0)), 1e-12);
    catalog_free(&cat);
}

/* A prefill instance runs whole budgets of prompts, each its own sequence: a 2048-token budget holds
 * 2048 / 512 = 4 prompts of 512, t = the step of batch_prefill(4, 512), 2048 / (512 t) = 4 / t
 * prompts a second. Until session 39 the budget was one 2048-token prompt, whose attention pairs
 * (2048 x 2049 / 2 = 2.10 M) are 4 times those of 4 prompts (4 x 512 x 513 / 2 = 0.53 M): a lower
 * bound than the server's. */
static void the_prefill_bound_takes_each_prompt_as_its_own_sequence(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_setup s = setup_8b(&cat);
    const struct llmroof_shard sh = shard_of(&s);
    const struct llmroof_batch four = batch_prefill(4, 512, &sh.few);
    const double q = sim_instance_capacity_qps(&s, &sh, 1e7, 256, 2048, 512, 100, SIM_CAP_PREFILL);
    assert_rel_close(q, 4 / sim_step_time(&s, &sh, &four), 1e-12);
    const struct llmroof_batch one = batch_prefill(1, 2048, &sh.few);
    assert_true(q > 4 / sim_step_time(&s, &sh, &one));
    catalog_free(&cat);
}

/* An open loop at rate qps, n chat requests, on one 8B H100 (tp 1) or more GPUs. */
static void run_chat(const struct llmroof_catalog *cat, int tp, double qps, long n, uint64_t seed, struct sim_result *r)
{
    struct workload chat = { WORKLOAD_CHAT, 0, 0, NULL, 0, NULL }; /* read during sim_run only */
    struct sim_config c;
    sim_default_config(&c);
    c.setup = setup_8b(cat);
    c.setup.tp = tp;
    c.workload = &chat;
    c.mode = SIM_RATE;
    c.rate_qps = qps;
    c.requests = n;
    c.seed = seed;
    struct llmroof_err err = { 0 };
    if (sim_run(&c, r, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

/* What the overload test sees in the window, from the records (sim_stats.c overload_metrics): the
 * requests in the system at its start and end, and the waiting ones (arrived, not yet in any
 * iteration) time-averaged over each of its halves. */
struct window {
    double mid, end, in_mid, in_end, wait_first, wait_second;
};

static struct window window_of(const struct sim_result *r)
{
    double a0 = INFINITY, a1 = -INFINITY;
    for (long i = 0; i < r->requests; i++) {
        a0 = fmin(a0, r->reqs[i].arrival_s);
        a1 = fmax(a1, r->reqs[i].arrival_s);
    }
    struct window w = { (a0 + a1) / 2, a1, 0, 0, 0, 0 };
    const double q = w.mid + (a1 - w.mid) / 2;
    for (long i = 0; i < r->requests; i++) {
        const double a = r->reqs[i].arrival_s, f = r->reqs[i].finish_s;
        const double s0 = r->reqs[i].first_sched_s < 0 ? INFINITY : r->reqs[i].first_sched_s;
        w.in_mid += (a <= w.mid) - (f <= w.mid);
        w.in_end += (a <= a1) - (f <= a1);
        w.wait_first += fmax(0.0, fmin(s0, q) - fmax(a, w.mid));
        w.wait_second += fmax(0.0, fmin(s0, a1) - fmax(a, q));
    }
    w.wait_first /= q - w.mid;
    w.wait_second /= a1 - q;
    return w;
}

/* A server a few per cent past its ceiling is overloaded: 30,000 chat requests at 55/s on one H100
 * complete 51.35/s of the 54.46 the window draws (each rate from 55 to 60 completes 51.4/s: the
 * ceiling), 94%, within the 90% margin that until session 39 read "keeps up" whatever the window.
 * The server is at its limit (about 1,000 requests wait for admission), and the shortfall,
 * (54.46 - 51.35) x 273.5 s = 851 requests, is far beyond 3 sqrt(L_mid + L_end) = 3 sqrt(1,078 +
 * 1,929) = 165, the noise of a server that keeps up: the completions say it, not the bound alone.
 * At 45/s the same length keeps up. */
static void a_few_per_cent_past_the_ceiling_is_overload(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_result r;
    run_chat(&cat, 1, 55, 30000, 42, &r);
    assert_true(r.sustained_rate_qps < r.offered_rate_qps);
    assert_true(r.sustained_rate_qps >= 0.9 * r.offered_rate_qps); /* the old margin's premise */
    const struct window w = window_of(&r);
    assert_true(w.wait_first >= 1 && w.wait_second >= 1); /* at its limit */
    assert_true((r.offered_rate_qps - r.sustained_rate_qps) * r.window_s > 3 * sqrt(w.in_mid + w.in_end));
    assert_true(r.overloaded);
    assert_false(r.overloaded_by_bound);
    sim_result_free(&r);
    run_chat(&cat, 1, 45, 30000, 42, &r);
    assert_false(r.overloaded);
    sim_result_free(&r);
    catalog_free(&cat);
}

/* Within its arrivals' noise of the ceiling a finite run cannot tell 99% from 101%: 30,000 chat
 * requests at 51.5/s on one H100 (its ceiling ~50.9/s; 52/s against ~51.4/s until session 56's
 * residual adds slowed the steps by about 1%) read overloaded for seed 2 and "keeps up" for seeds
 * 1, 3 and 4 with TTFT p50 of seconds. Those three are at capacity: their windows draw about
 * 51.5 x 290 s = 15,000 arrivals, a rate known to 2 / sqrt(15,000) = 1.6%, and an M/M/B queue in
 * heavy traffic holding L_q waiting is 1 / (1 + L_q) below its ceiling: seed 1 waits for 102 on
 * average (1.0%), seed 3 for 390 (0.26%), seed 4 for 362 (0.28%). A server with room admits at its
 * next iteration and waits for 0.2-0.4 (40-48/s, n 30,000) or up to 1.2 (48/s, n 3,000, whose
 * 1,500 arrivals allow 1 / (1 + L_q) < 5.2%, L_q > 18): never at capacity, nor is a light run. */
static void within_noise_of_the_ceiling_a_run_is_at_capacity(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_result r;
    const uint64_t seeds[] = { 1, 3, 4 };
    for (int k = 0; k < 3; k++) {
        run_chat(&cat, 1, 51.5, 30000, seeds[k], &r);
        const struct window w = window_of(&r);
        const double lq = (w.wait_first + w.wait_second) / 2; /* halves of equal length */
        assert_rel_close(r.window_waiting_mean, lq, 1e-9);
        assert_true(lq > 100);
        assert_true(1 / (1 + lq) < 2 / sqrt(r.offered_rate_qps * r.window_s));
        assert_false(r.overloaded);
        assert_true(r.at_capacity);
        sim_result_free(&r);
    }
    /* seed 2 shows the overload: overloaded, not merely at capacity */
    run_chat(&cat, 1, 51.5, 30000, 2, &r);
    assert_true(r.overloaded);
    assert_false(r.at_capacity);
    sim_result_free(&r);
    const double rates[] = { 40, 44, 48 };
    const long sizes[] = { 3000, 30000 };
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++)
            for (uint64_t s = 1; s <= 4; s++) {
                run_chat(&cat, 1, rates[i], sizes[j], s, &r);
                assert_true(r.window_waiting_mean < 2);
                assert_false(r.at_capacity);
                sim_result_free(&r);
            }
    run_chat(&cat, 1, 5, 200, 42, &r);
    assert_false(r.at_capacity);
    sim_result_free(&r);
    catalog_free(&cat);
}

/* A queue of requests waiting for admission that grows across the window is overload where neither
 * the completions nor the bound tell yet: 3,000 chat requests at 52/s (seed 1), above the 51.4/s
 * the server sustains and below its bound of about 52.7. The waiting count averages about 15 over
 * the window's first half and 43 over its second, a rise of 28 against 3 sqrt(58) = 23; the
 * completions fall short by about 71 requests, within 3 sqrt(261 + 344) = 74. Until session 39 a
 * waiting queue did not make a run overloaded by itself. */
static void a_growing_admission_queue_is_overload(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sim_result r;
    run_chat(&cat, 1, 52, 3000, 1, &r);
    const struct window w = window_of(&r);
    print_message("waiting %.1f -> %.1f, shortfall %.1f, in system %.0f -> %.0f, bound %.2f\n", w.wait_first,
                  w.wait_second, (fmin(52, r.offered_rate_qps) - r.sustained_rate_qps) * r.window_s, w.in_mid,
                  w.in_end, r.capacity_qps);
    assert_true(r.capacity_qps > 52);                                                     /* not the bound */
    assert_true((fmin(52, r.offered_rate_qps) - r.sustained_rate_qps) * r.window_s <= 3 * sqrt(w.in_mid + w.in_end));
    assert_true(w.wait_second - w.wait_first > 3 * sqrt(w.wait_first + w.wait_second));
    assert_true(r.overloaded);
    sim_result_free(&r);
    catalog_free(&cat);
}

/* A server with room (nothing waits for admission beyond the next iteration) keeps the 10% margin:
 * its batch lengthens every step as it grows, so a fluctuation of the count in the system feeds
 * itself and moves it by more than its square root. One H100 at 47.5 chat requests/s, 93% of its
 * 50.9/s ceiling, 10,000 requests, seed 1: the system holds about 172 requests at the window's
 * start and 254 at its end, and the completions fall short by about 82, beyond 3 sqrt(426) = 62,
 * with 0.3-0.4 requests waiting on average. Four H100s (bound about 123 requests/s) at 55/s over
 * the planner's 30 s (1,650 requests): 52 and 83 in the system, a shortfall of 31, beyond
 * 2 sqrt(135) = 23.2 (a first draft of session 39 judged every window by two deviations, and the
 * planner bought a second TP-4 instance for 55 requests/s). Both keep up. */
static void a_fluctuation_of_a_server_with_room_is_not_overload(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const int tp[2] = { 1, 4 };
    const double qps[2] = { 47.5, 55 }, sigmas[2] = { 3, 2 };
    const long n[2] = { 10000, 1650 };
    const uint64_t seed[2] = { 1, 42 };
    for (int k = 0; k < 2; k++) {
        struct sim_result r;
        run_chat(&cat, tp[k], qps[k], n[k], seed[k], &r);
        const struct window w = window_of(&r);
        const double shortfall = (fmin(qps[k], r.offered_rate_qps) - r.sustained_rate_qps) * r.window_s;
        print_message("in system %.0f -> %.0f, shortfall %.1f, waiting %.2f, %.2f\n", w.in_mid, w.in_end, shortfall,
                      w.wait_first, w.wait_second);
        assert_true(shortfall > sigmas[k] * sqrt(w.in_mid + w.in_end));
        assert_true(shortfall < 0.1 * fmin(qps[k], r.offered_rate_qps) * r.window_s);
        assert_true(w.wait_first < 1 && w.wait_second < 1);
        assert_false(r.overloaded);
        sim_result_free(&r);
    }
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_bound_charges_each_prompt_whole_beside_the_decodes),
        cmocka_unit_test(the_token_budget_caps_the_decoding_sequences),
        cmocka_unit_test(the_prefill_bound_takes_each_prompt_as_its_own_sequence),
        cmocka_unit_test(a_few_per_cent_past_the_ceiling_is_overload),
        cmocka_unit_test(a_growing_admission_queue_is_overload),
        cmocka_unit_test(within_noise_of_the_ceiling_a_run_is_at_capacity),
        cmocka_unit_test(a_fluctuation_of_a_server_with_room_is_not_overload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
