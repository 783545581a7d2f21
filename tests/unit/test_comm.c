/* test_comm.c - collective costs that depend on the GPU's own measured figures (llmroof/comm.h):
 * the fixed cost of an engine's custom all-reduce per GPU. */
#include "helpers.h"

#include <string.h>

#include "model/comm.h"
#include "model/estimate.h"
#include "model/roofline.h"

/* The custom all-reduce's fixed cost is the GPU's measured one where the catalog has it:
 * MI300X 7.1 us (vLLM's custom all-reduce on MI300-series GPUs: 7.07 us at 4 KB on 2 GPUs, aiter
 * PR #801; 7.18 us at 2 KB on 4 GPUs, vLLM PR #19744), else the H100 line's 5.5 us. */
static void custom_allreduce_takes_the_gpus_own_latency(void **state)
{
    (void)state;
    assert_rel_close(comm_custom_latency_s(0.0), 5.5e-6, 0);
    assert_rel_close(comm_custom_latency_s(7.1e-6), 7.1e-6, 0);
    /* 8 MI300X (xGMI mesh of 7 links, 448 GB/s per direction, comm 0.7), DeepSeek-V3's decode
     * message at batch 1: 7168 x 2 B = 14336 B. 8 ranks use all 7 links: busbw 448e9 x 0.7 =
     * 313.6 GB/s.
     *   one-shot: 7.1 + 7 x 14336 / 313.6e9 = 7.1 + 100352 / 313.6e9 (0.32 us) = 7.42 us
     *   two-shot: 14.2 + 2 x 7/8 x 14336 / 313.6e9 (0.08 us)                    = 14.28 us
     *   RCCL LL:  6.6 + 14 x 0.6 = 15.0 + 25088 / 78.4e9 (0.32 us)              = 15.32 us
     * one-shot wins: 7.42 us; with the H100 line's 5.5 us it was 5.82 us */
    struct llmroof_link_model mi = { 448e9, 0.7, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 7, 7.1e-6, 0, 0 };
    assert_rel_close(comm_allreduce_s(&mi, 8, 14336.0), 7.42e-6, 1e-9);
    mi.custom_latency_s = comm_custom_latency_s(0.0);
    assert_rel_close(comm_allreduce_s(&mi, 8, 14336.0), 5.82e-6, 1e-9);
}

/* An all-reduce across nodes pays a network step per inter-node ring step, or per tree level
 * where NCCL's tuner picks the tree (src/graph/tuning.cc hwLat NET: ring LL 2.7 us per step,
 * tree LL 5.0 us per level); review19 found 8-16 one-GPU GH200 nodes over InfiniBand cheaper per
 * call than NVLink inside one node. Intra domain of 1 GPU (no intra latency), IB NDR 50 GB/s at
 * comm 0.81 = 40.5 GB/s per node, 10 us per call; 16 rows x 4096 x 2 B = 131072 B:
 *   2 nodes:  ring 2 x 1 x 2.7 = 5.4 us (tree 2 x 1 x 5.0 = 10): 10 + 5.4 + 1 x 131072 / 40.5e9
 *             (3.2363 us) = 18.636 us
 *   8 nodes:  ring 2 x 7 x 2.7 = 37.8, tree 2 x 3 x 5.0 = 30: 10 + 30 + 1.75 x 131072 / 40.5e9
 *             (5.6636 us) = 45.664 us
 *   16 nodes: ring 81, tree 2 x 4 x 5.0 = 40: 10 + 40 + 1.875 x 131072 / 40.5e9 (6.0681) = 56.068 us
 * Between PCIe-joined groups every ring step is a PCIe hop (2.5 us) and there is no tree. */
static void inter_node_all_reduce_pays_a_step_per_node(void **state)
{
    (void)state;
    const struct llmroof_link_model nvl = { 450e9, 0.81, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 0, 0, 0, 0 };
    const struct llmroof_link_model ib = { 50e9, 0.81, 10e-6, COMM_NET_RING_HOP_S, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    assert_rel_close(comm_allreduce_hier_s(&nvl, &ib, 2, 1, 131072.0), 15.4e-6 + 131072.0 / 40.5e9, 1e-12);
    assert_rel_close(comm_allreduce_hier_s(&nvl, &ib, 8, 1, 131072.0), 40e-6 + 1.75 * 131072.0 / 40.5e9, 1e-12);
    assert_rel_close(comm_allreduce_hier_s(&nvl, &ib, 16, 1, 131072.0), 50e-6 + 1.875 * 131072.0 / 40.5e9, 1e-12);
    assert_rel_close(comm_allreduce_hier_s(&nvl, &ib, 8, 1, 131072.0), 45.664e-6, 1e-4);
    /* more nodes never cost less */
    assert_true(comm_allreduce_hier_s(&nvl, &ib, 16, 1, 131072.0) > comm_allreduce_hier_s(&nvl, &ib, 8, 1, 131072.0));
    /* an all-gather is a ring only: nodes - 1 steps; 8 nodes: 10 + 7 x 2.7 = 28.9 us + 7/8 x M */
    assert_rel_close(comm_allgather_hier_s(&nvl, &ib, 8, 1, 131072.0), 28.9e-6 + 0.875 * 131072.0 / 40.5e9, 1e-12);
    /* PCIe between groups of 1: 16 groups, ring 2 x 15 x 2.5 = 75 us, no tree */
    const struct llmroof_link_model pcie = { 64e9, 0.81, 6.6e-6, COMM_PCIE_HOP_S, COMM_PROTO_PCIE, 0, 0, 0, 0, 0 };
    assert_rel_close(comm_allreduce_hier_s(&nvl, &pcie, 16, 1, 0.0), 6.6e-6 + 75e-6, 1e-12);
}

/* A check of the NCCL-path model on the MI300X's own link against a published rccl-tests run
 * (crickett-hpe/hpc-ai-envs PR #30: all_reduce_perf, 8 x MI300X, 8 MiB float sum, 91.10 us
 * out of place, 94.94 in place). 8 ranks, 14 steps, busbw 448e9 x 0.7 = 313.6 GB/s; each rank moves
 * 14/8 x 8388608 = 14680064 B:
 *   LL:     6.6 + 14 x 0.6 = 15.0 us + 14680064 / 78.4e9 (187.24 us)             = 202.24 us
 *   LL128:  6.6 + 7.4 + 14 x (0.6 + 1.3) = 40.6 us + 14680064 / 288.512e9 (50.88) =  91.48 us
 *   Simple: 6.6 + 1.8 + 14 x (0.6 + 2.8) = 56.0 us + 14680064 / 313.6e9 (46.81)   = 102.81 us
 * LL128, 91.48 us: 0.4% above the measured 91.10 (no custom all-reduce above its 8 MiB limit). */
static void mi300x_rccl_all_reduce_of_8_mib_by_hand(void **state)
{
    (void)state;
    struct llmroof_link_model mi = { 448e9, 0.7, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 7, 0, 0, 0 };
    assert_rel_close(comm_allreduce_s(&mi, 8, 8388608.0), 91.48199e-6, 1e-6);
    assert_rel_close(comm_allreduce_s(&mi, 8, 8388608.0), 91.10e-6, 0.01);
}

/* The shipped catalog carries the measured figures, and an estimate uses them: DeepSeek-V3 on
 * 8 MI300X with SGLang (custom all-reduce on) at batch 1 runs 123 all-reduces per decode step (two
 * per layer over 61 layers and the vocabulary-parallel embedding's), each of 7168 x 2 B = 14336 B:
 * 123 x 7.42 us = 912.66 us (it was 123 x 5.82 = 715.86 us). MI355X: 5.8 us (vLLM PR #39080: 6.3 us
 * at 24 KB on 8 GPUs less its 0.46 us bandwidth term); an H100 keeps 5.5 us. */
static void mi300x_all_reduces_cost_their_measured_custom_latency(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_err err = { 0 };
    assert_int_equal(catalog_add_engines_file(&cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    assert_rel_close(gpu(&cat, "mi300x")->custom_ar_latency_s, 7.1e-6, 0);
    assert_rel_close(gpu(&cat, "mi325x")->custom_ar_latency_s, 7.1e-6, 0);
    assert_rel_close(gpu(&cat, "mi355x")->custom_ar_latency_s, 5.8e-6, 0);
    assert_rel_close(gpu(&cat, "h100-sxm5-80gb")->custom_ar_latency_s, 0, 0);
    const struct llmroof_engine *en = catalog_find_engine(&cat, "sglang");
    assert_non_null(en);
    assert_true(en->custom_allreduce);
    struct llmroof_setup s = { model(&cat, "deepseek-v3"), gpu(&cat, "mi300x"), 8,
                               { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_BF16, false, LLMROOF_ACT_QUANT_SEPARATE, false }, { .compute = 0 }, { 0 } };
    s.eff = roofline_effs_engine(s.gpu, en, NULL);
    struct llmroof_request r = { 1, 1024, 2 };
    struct llmroof_estimate e;
    if (estimate_run(&s, &r, &e, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    assert_rel_close(e.decode.op[LLMROOF_OP_ALL_REDUCE].time_s, 123 * 7.42e-6, 1e-9);
    catalog_free(&cat);
}

/* The field is a measured fixed cost per call: 0.5 to 50 us, and only where the engines can run a
 * custom all-reduce at all (peer memory over NVLink or xGMI, not over PCIe). */
static const char *const gpu_text =
    "{ \"gpus\": [ { \"id\": \"t\", \"name\": \"T\", \"memory_bytes\": 1e10, \"memory_bandwidth_Bps\": 1e12,\n"
    "  \"peak_flops\": { \"fp16\": 1e14 },\n"
    "  \"interconnect\": { \"kind\": \"%s\", \"bandwidth_Bps\": 3e11, \"latency_s\": 5e-6, \"hop_latency_s\": 1e-6,\n"
    "                      \"custom_allreduce_latency_s\": %s },\n"
    "  \"efficiency\": { \"compute\": 0.7, \"memory\": 0.8, \"comm\": 0.8 },\n"
    "  \"step_overhead_s\": 2e-5, \"gpus_per_node\": 8, \"source\": \"test\" } ] }\n";

static int load_variant(const char *kind, const char *value, struct llmroof_err *err)
{
    char text[1024];
    snprintf(text, sizeof text, gpu_text, kind, value);
    struct llmroof_catalog cat;
    catalog_init(&cat);
    int rc = catalog_add_gpus_text(&cat, text, strlen(text), "t.json", false, err);
    catalog_free(&cat);
    return rc;
}

static void custom_allreduce_latency_is_bounded_and_needs_peer_links(void **state)
{
    (void)state;
    struct llmroof_err err = { 0 };
    assert_int_equal(load_variant("xgmi", "7.1e-6", &err), 0);
    assert_int_equal(load_variant("nvlink", "5.5e-6", &err), 0);
    assert_int_equal(load_variant("xgmi", "1e-3", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'interconnect.custom_allreduce_latency_s' must be a number"));
    assert_int_equal(load_variant("nvlink", "0", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'interconnect.custom_allreduce_latency_s' must be a number"));
    assert_int_equal(load_variant("pcie", "7.1e-6", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'interconnect.custom_allreduce_latency_s' needs an \"nvlink\" or \"xgmi\""));
}

/* The measured NCCL curve of an A100 SXM4 node (issue 23): the catalog carries Simple's cost per
 * ring step and LL128's bandwidth share from published nccl-tests tables (data/gpus.json sources),
 * the same on the 40 GB, 80 GB and A800 boards; a value out of range names its field. A 16 MiB
 * all-reduce over 8 such GPUs under an engine without a custom all-reduce: Simple, 100.8 us +
 * 29360128 B / 234 GB/s = 226.27 us (test_roofline.c has the arithmetic), measured 226.0 us. */
static void a100_all_reduce_follows_its_measured_curve(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const char *ids[] = { "a100-sxm4-40gb", "a100-sxm4-80gb", "a800-sxm4-80gb" };
    for (int i = 0; i < 3; i++) {
        assert_rel_close(gpu(&cat, ids[i])->simple_step_s, 6.0e-6, 0);
        assert_rel_close(gpu(&cat, ids[i])->ll128_share, 0.53, 0);
    }
    assert_rel_close(gpu(&cat, "h100-sxm5-80gb")->simple_step_s, 0, 0);
    const struct llmroof_gpu *g = gpu(&cat, "a100-sxm4-80gb");
    struct llmroof_effs eff = roofline_default_effs(g);
    struct roofline_prep r;
    roofline_prepare(g, LLMROOF_FP16, &eff, 8, &r);
    assert_rel_close(comm_allreduce_s(&r.link, 8, 16777216.0), 100.8e-6 + 29360128.0 / 234e9, 1e-9);
    catalog_free(&cat);
    char text[1024];
    struct llmroof_err err = { 0 };
    const char *bad[] = { "\"simple_step_latency_s\": 1e-3", "\"ll128_bandwidth_share\": 1.5",
                          "\"ll128_bandwidth_share\": \"half\"" };
    const char *field[] = { "field 'interconnect.simple_step_latency_s' must be a number",
                            "field 'interconnect.ll128_bandwidth_share' must be a number",
                            "field 'interconnect.ll128_bandwidth_share' must be a number" };
    for (int i = 0; i < 3; i++) {
        snprintf(text, sizeof text,
                 "{ \"gpus\": [ { \"id\": \"t\", \"name\": \"T\", \"memory_bytes\": 1e10, "
                 "\"memory_bandwidth_Bps\": 1e12, \"peak_flops\": { \"fp16\": 1e14 },\n"
                 "  \"interconnect\": { \"kind\": \"nvlink\", \"bandwidth_Bps\": 3e11, \"latency_s\": 5e-6, "
                 "\"hop_latency_s\": 1e-6, %s },\n"
                 "  \"efficiency\": { \"compute\": 0.7, \"memory\": 0.8, \"comm\": 0.8 },\n"
                 "  \"step_overhead_s\": 2e-5, \"gpus_per_node\": 8, \"source\": \"test\" } ] }\n",
                 bad[i]);
        catalog_init(&cat);
        assert_int_equal(catalog_add_gpus_text(&cat, text, strlen(text), "t.json", false, &err), LLMROOF_EINPUT);
        catalog_free(&cat);
        assert_non_null(strstr(err.msg, field[i]));
    }
    /* LL128 runs over NVLink only: a share on a PCIe card is refused, not ignored */
    char pcie[1024];
    snprintf(pcie, sizeof pcie, "%s", text);
    char *kind = strstr(pcie, "\"nvlink\"");
    assert_non_null(kind);
    memcpy(kind, "\"pcie\"  ", 8);
    char *val = strstr(pcie, "\"half\"");
    assert_non_null(val);
    memcpy(val, "0.5   ", 6);
    catalog_init(&cat);
    assert_int_equal(catalog_add_gpus_text(&cat, pcie, strlen(pcie), "t.json", false, &err), LLMROOF_EINPUT);
    catalog_free(&cat);
    assert_non_null(strstr(err.msg, "interconnect.ll128_bandwidth_share"));
    assert_non_null(strstr(err.msg, "needs an \"nvlink\" interconnect"));
}

/* A spanning all-reduce pays its protocol's intra-node fixed cost (review of the NCCL-table
 * change): before, it took LL's zero-byte latency and moved the bytes at the node bandwidth, so
 * 16 A100s over two nodes all-reduced 16 MiB faster than 8 in one (164.8 against 226.3 us).
 * Intra: 8 x A100 SXM4 (busbw 234 GB/s, Simple 6.0 us per step, LL128 0.53); network 8 x 25 GB/s
 * x 0.81 = 162 GB/s per node, 10 us, ring step 2.7 us. 16 MiB over 16 ranks, 2 x 15/16 x M =
 * 31457280 B per rank. NCCL's tuner model (tuning.cc), per protocol the faster algorithm:
 * ring through all 16 ranks, 2 x (16 - 2) = 28 intra steps (each at least 1 us, Simple 3 us) and
 * 2 x 1 network steps at the ring's NET latency (LL / LL128 / Simple 2.7 / 4.0 / 9.6 us); tree,
 * 2 x 7 = 14 intra steps and 2 x log2(2) levels at the tree's (5.0 / 8.5 / 50 us):
 *   Simple ring 8.4 + 28 x 6.6 + 19.2 = 212.4, tree 8.4 + 14 x 6.6 + 100 = 200.8;
 *          200.8 + 10 + 31457280 / 162e9 (194.181 us)               = 404.981 us
 *   LL128  ring 14.0 + 28 x 1.9 + 8.0 = 75.2, tree 14.0 + 14 x 1.9 + 17 = 57.6;
 *          57.6 + 10 + 31457280 / (0.53 x 234e9) (253.647 us)        = 321.247 us
 *   LL     ring 6.6 + 28 x max(0.6, 1) + 5.4 = 40.0, tree 6.6 + 14 x 0.6 + 10 = 25.0;
 *          25.0 + 10 + 31457280 / 58.5e9 (537.731 us)                = 572.731 us
 * LL128 over the tree, 321.25 us, above the 226.27 us of one node's 8. (Counting one node's 14
 * ring steps at LL's NET latency, as before, gave 309.65.) */
static void spanning_all_reduce_pays_its_protocols_fixed_cost(void **state)
{
    (void)state;
    const struct llmroof_link_model a100 = { 300e9, 0.78, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 0, 0, 6.0e-6, 0.53 };
    const struct llmroof_link_model ib = { 25e9, 0.81, 10e-6, COMM_NET_RING_HOP_S, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    assert_rel_close(comm_allreduce_hier_s(&a100, &ib, 16, 8, 16777216.0), 321.246831156e-6, 1e-9);
    for (double m = 1048576.0; m <= 67108864.0; m *= 4.0)
        assert_true(comm_allreduce_hier_s(&a100, &ib, 16, 8, m) > comm_allreduce_s(&a100, 8, m));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(custom_allreduce_takes_the_gpus_own_latency),
        cmocka_unit_test(inter_node_all_reduce_pays_a_step_per_node),
        cmocka_unit_test(spanning_all_reduce_pays_its_protocols_fixed_cost),
        cmocka_unit_test(mi300x_rccl_all_reduce_of_8_mib_by_hand),
        cmocka_unit_test(mi300x_all_reduces_cost_their_measured_custom_latency),
        cmocka_unit_test(a100_all_reduce_follows_its_measured_curve),
        cmocka_unit_test(custom_allreduce_latency_is_bounded_and_needs_peer_links),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
