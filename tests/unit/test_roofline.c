/* test_roofline.c - collective costs, op timing and bounds. */
#include "helpers.h"

#include "llmroof/comm.h"
#include "llmroof/estimate.h"
#include "llmroof/roofline.h"

static void all_reduce_alpha_beta_by_hand(void **state)
{
    struct llmroof_link_model l = { 300e9, 0.78, 6.6e-6, 0.6e-6 };
    /* N=8, 1 MB: 6.6 us + 2*7*0.6 us + 2*7/8 * 1e6 / (300e9*0.78)
     *          = 6.6 + 8.4 + 1.75e6/234e9 s (7.4786 us) = 22.4786 us */
    assert_rel_close(comm_allreduce_s(&l, 8, 1e6), 22.4786324786e-6, 1e-9);
    /* all-gather N=4: 6.6 + 3*0.6 + 0.75e6/234e9 (3.2051 us) = 11.6051 us */
    assert_rel_close(comm_allgather_s(&l, 4, 1e6), 11.6051282051e-6, 1e-9);
    assert_rel_close(comm_allreduce_s(&l, 1, 1e9), 0, 0);
    assert_rel_close(comm_allgather_s(&l, 1, 1e9), 0, 0);
}

static void op_time_is_max_of_compute_and_memory(void **state)
{
    struct llmroof_gpu g = { 0 };
    g.mem_bw_Bps = 1e12;
    g.peak_flops[LLMROOF_FP16] = 100e12;
    g.has_peak[LLMROOF_FP16] = true;
    struct llmroof_effs e = { .compute = 0.5, .memory = 0.5, .comm = 1.0, .overhead_s = 0.001 };
    struct llmroof_oplist o = { 0 };
    /* ffn: 3 instances of 1e12 FLOP and 1e9 B: compute 3*1e12/50e12 = 60 ms, memory 3*1e9/0.5e12 = 6 ms */
    o.op[LLMROOF_OP_FFN] = (struct llmroof_op){ 3, 1e12, 1e9, 0, 0 };
    /* norm: 1e6 FLOP, 1e9 B: compute 0.02 ms, memory 2 ms */
    o.op[LLMROOF_OP_NORM] = (struct llmroof_op){ 1, 1e6, 1e9, 0, 0 };
    struct llmroof_phase p;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.op[LLMROOF_OP_FFN].time_s, 0.060, 1e-12);
    assert_int_equal(p.op[LLMROOF_OP_FFN].bound, LLMROOF_BOUND_COMPUTE);
    assert_rel_close(p.op[LLMROOF_OP_NORM].time_s, 0.002, 1e-12);
    assert_int_equal(p.op[LLMROOF_OP_NORM].bound, LLMROOF_BOUND_MEMORY);
    /* phase: 60 + 2 + 1 (overhead) = 63 ms; compute_s sums both ops' compute = 60.00002 ms */
    assert_rel_close(p.time_s, 0.063, 1e-12);
    assert_rel_close(p.compute_s, 0.06000002, 1e-12);
    assert_rel_close(p.memory_s, 0.008, 1e-12);
    assert_int_equal(p.bound, LLMROOF_BOUND_COMPUTE);
}

static void missing_compute_dtype_is_an_input_error(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_err err = { 0 };
    assert_int_equal(roofline_check(gpu(&cat, "v100"), LLMROOF_BF16, &err), LLMROOF_EINPUT);
    assert_string_equal(err.msg, "GPU 'v100-sxm2-32gb' has no bf16 compute path (catalog peak_flops lacks 'bf16')");
    assert_int_equal(roofline_check(gpu(&cat, "a100"), LLMROOF_FP8, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "no fp8 compute path"));
    assert_int_equal(roofline_check(gpu(&cat, "h100"), LLMROOF_FP8, &err), 0);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_reduce_alpha_beta_by_hand),
        cmocka_unit_test(op_time_is_max_of_compute_and_memory),
        cmocka_unit_test(missing_compute_dtype_is_an_input_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
