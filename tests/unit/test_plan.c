/* test_plan.c - the capacity planner: monotonicity, infeasible options, search vs scan. */
#include "helpers.h"

#include <limits.h>

#include "llmroof/plan.h"

static struct workload chat = { WORKLOAD_CHAT, 0, 0, NULL, 0 };

static void base(struct plan_input *in, const struct llmroof_catalog *cat, const char *m)
{
    memset(in, 0, sizeof *in);
    sim_default_config(&in->sim);
    in->sim.workload = &chat;
    in->model = model(cat, m);
    in->users = 3000;
    in->ttft_slo_s = 3.0;
    in->tpot_slo_s = 0.1;
    in->percentile = 90;
    in->gpus_per_node = 8;
    in->dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0 };
}

static struct plan_result res, res2;

static void run(const struct plan_input *in, struct plan_result *r)
{
    struct llmroof_err err = { 0 };
    if (plan_run(in, r, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

static void looser_slos_never_need_more_nodes(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    base(&in, &cat, "llama-2-7b");
    in.gpus[in.ngpus++] = gpu(&cat, "a100");
    in.gpus[in.ngpus++] = gpu(&cat, "a40");
    in.tps[in.ntps++] = 1;
    in.tps[in.ntps++] = 2;
    static const double ttft[] = { 0.5, 1.0, 3.0 }, tpot[] = { 0.03, 0.05, 0.1 };
    long prev[4] = { LONG_MAX, LONG_MAX, LONG_MAX, LONG_MAX };
    for (int k = 0; k < 3; k++) {
        in.ttft_slo_s = ttft[k];
        in.tpot_slo_s = tpot[k];
        run(&in, &res);
        for (int i = 0; i < res.noptions; i++) {
            long nodes = res.options[i].feasible ? res.options[i].nodes : LONG_MAX;
            assert_true(nodes <= prev[i]);
            prev[i] = nodes;
        }
    }
    catalog_free(&cat);
}

static void more_users_never_fewer_nodes(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    base(&in, &cat, "llama-2-7b");
    in.gpus[in.ngpus++] = gpu(&cat, "a100");
    in.tps[in.ntps++] = 2;
    long prev = 0;
    for (long u = 100; u <= 100000; u *= 10) {
        in.users = u;
        run(&in, &res);
        assert_true(res.options[0].feasible);
        /* nodes = ceil(users / users_per_node): 0 < nodes, non-decreasing in users */
        assert_int_equal(res.options[0].nodes,
                         (u + res.options[0].users_per_node - 1) / res.options[0].users_per_node);
        assert_true(res.options[0].nodes >= prev);
        prev = res.options[0].nodes;
    }
    catalog_free(&cat);
}

static void a_faster_gpu_of_the_same_memory_never_needs_more_nodes(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_gpu fast = *gpu(&cat, "a40");
    fast.mem_bw_Bps *= 2;
    for (int d = 0; d < LLMROOF_DTYPE_COUNT; d++)
        fast.peak_flops[d] *= 2;
    fast.link_bw_Bps *= 2;
    struct plan_input in;
    base(&in, &cat, "llama-2-13b");
    in.gpus[in.ngpus++] = gpu(&cat, "a40");
    in.gpus[in.ngpus++] = &fast;
    in.tps[in.ntps++] = 1;
    in.tps[in.ntps++] = 2;
    in.tps[in.ntps++] = 4;
    run(&in, &res);
    for (int t = 0; t < 3; t++) {
        const struct plan_option *slow = &res.options[t], *quick = &res.options[3 + t];
        if (slow->feasible) {
            assert_true(quick->feasible);
            assert_true(quick->nodes <= slow->nodes);
        }
    }
    catalog_free(&cat);
}

static void infeasible_options_are_reported_with_reasons(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    base(&in, &cat, "llama-65b");
    in.gpus[in.ngpus++] = gpu(&cat, "a30");
    in.tps[in.ntps++] = 1;
    in.tps[in.ntps++] = 3;
    in.tps[in.ntps++] = 8;
    run(&in, &res);
    assert_int_equal(res.noptions, 3);
    assert_false(res.options[0].feasible);
    assert_non_null(strstr(res.options[0].reason, "the weights do not fit"));
    assert_false(res.options[1].feasible);
    assert_non_null(strstr(res.options[1].reason, "TP 3 does not divide the 8 GPUs"));
    /* a TTFT SLO below one prefill: a single user already misses it */
    base(&in, &cat, "llama-2-7b");
    in.gpus[in.ngpus++] = gpu(&cat, "l4");
    in.tps[in.ntps++] = 1;
    in.ttft_slo_s = 0.001;
    run(&in, &res);
    assert_false(res.options[0].feasible);
    assert_non_null(strstr(res.options[0].reason, "a single user already misses the TTFT SLO"));
    assert_int_equal(res.best, -1);
    catalog_free(&cat);
}

static void search_equals_a_brute_force_scan(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    base(&in, &cat, "llama-2-7b");
    /* tight TPOT: the answer is a few dozen users, cheap to scan */
    in.tpot_slo_s = 0.012;
    in.ttft_slo_s = 0.5;
    static const char *const gpus[] = { "a100-sxm4-80gb", "h100" };
    for (int k = 0; k < 2; k++) {
        const struct llmroof_gpu *g = gpu(&cat, gpus[k]);
        struct plan_option o;
        memset(&o, 0, sizeof o);
        struct llmroof_err err = { 0 };
        assert_int_equal(plan_search(&in, g, 1, &o, &err), 0);
        long scan = 0;
        for (long u = 1; u <= 512; u++) {
            bool ok;
            double a, b;
            enum plan_binding f;
            assert_int_equal(plan_meets(&in, g, 1, u, &ok, &a, &b, &f, &err), 0);
            if (!ok)
                break;
            scan = u;
        }
        print_message("%s: search %ld, scan %ld (%d evaluations)\n", gpus[k], o.users_per_instance, scan, o.evaluations);
        assert_true(scan > 1 && scan < 512);
        assert_int_equal(o.users_per_instance, scan);
        assert_true(o.evaluations < 25);
    }
    catalog_free(&cat);
}

static void studies_scenario_prefers_two_tp4_instances_on_a100(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct plan_input in;
    base(&in, &cat, "llama-13b");
    in.users = 10000;
    in.gpus[in.ngpus++] = gpu(&cat, "a100");
    in.tps[in.ntps++] = 4;
    in.tps[in.ntps++] = 8;
    run(&in, &res);
    /* the studies measured 450 + 450 users for 2 x 4-GPU against 700 for 1 x 8-GPU */
    assert_true(res.options[0].feasible && res.options[1].feasible);
    assert_true(res.options[0].users_per_node > res.options[1].users_per_node);
    assert_int_equal(res.best, 0);
    /* --fast ranks them the same way */
    in.fast = true;
    run(&in, &res2);
    assert_true(res2.options[0].users_per_node > res2.options[1].users_per_node);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(looser_slos_never_need_more_nodes),
        cmocka_unit_test(more_users_never_fewer_nodes),
        cmocka_unit_test(a_faster_gpu_of_the_same_memory_never_needs_more_nodes),
        cmocka_unit_test(infeasible_options_are_reported_with_reasons),
        cmocka_unit_test(search_equals_a_brute_force_scan),
        cmocka_unit_test(studies_scenario_prefers_two_tp4_instances_on_a100),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
