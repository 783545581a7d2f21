/* test_roofline.c - collective costs, op timing and bounds. */
#include "helpers.h"

#include <math.h>
#include <string.h>

#include "model/ckpt.h"
#include "model/comm.h"
#include "model/kernel.h"
#include "model/ops.h"
#include "model/estimate.h"
#include "model/roofline.h"

static void all_reduce_alpha_beta_by_hand(void **state)
{
    struct llmroof_link_model l = { 300e9, 0.78, 6.6e-6, 0.6e-6, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    /* N=8, 1 MB: 6.6 us + 2*7*0.6 us + 2*7/8 * 1e6 / (300e9*0.78)
     *          = 6.6 + 8.4 + 1.75e6/234e9 s (7.4786 us) = 22.4786 us */
    assert_rel_close(comm_allreduce_s(&l, 8, 1e6), 22.4786324786e-6, 1e-9);
    /* all-gather N=4: 6.6 + 3*0.6 + 0.75e6/234e9 (3.2051 us) = 11.6051 us */
    assert_rel_close(comm_allgather_s(&l, 4, 1e6), 11.6051282051e-6, 1e-9);
    assert_rel_close(comm_allreduce_s(&l, 1, 1e9), 0, 0);
    assert_rel_close(comm_allgather_s(&l, 1, 1e9), 0, 0);
}

/* NCCL 2.20.3's protocol choice (llmroof/comm.h): LL for small messages, Simple for large,
 * NVLink SHARP when it beats the ring, a mesh's ring using only the links to its peers */
static void all_reduce_protocols_by_hand(void **state)
{
    (void)state;
    struct llmroof_link_model l = { 300e9, 0.78, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 0, 0, 0, 0 };
    /* N=8: 14 steps, busbw 234 GB/s. 1 MB moves 14/8 MB = 1.75e6 B per rank.
     * LL:     6.6 + 14*0.6 = 15.0 us + 1.75e6 / min(234/4 = 58.5, 87.7) GB/s (29.9145 us) = 44.9145 us
     * LL128:  14.0 + 14*1.9 = 40.6 us + 1.75e6 / (0.92*234 GB/s) (8.1290 us)           = 48.7290 us
     * Simple: 8.4 + 14*3.4 = 56.0 us + 1.75e6 / 234 GB/s (7.4786 us)                   = 63.4786 us */
    assert_rel_close(comm_allreduce_s(&l, 8, 1e6), 44.9145299145e-6, 1e-9);
    /* 64 MB: 112e6 B per rank. LL 15 + 1914.53; LL128 40.6 + 520.254; Simple 56 + 478.632 = 534.632 us */
    assert_rel_close(comm_allreduce_s(&l, 8, 64e6), 534.632478632e-6, 1e-9);
    /* 8 KB: LL, 15 + 14e3 / 58.5e9 (0.23932 us) = 15.23932 us */
    assert_rel_close(comm_allreduce_s(&l, 8, 8e3), 15.2393162393e-6, 1e-9);
    /* PCIe (no LL128): N=2, hop 1.0 us, busbw 20 GB/s, 1 MB once: LL 6.6 + 2*1.0 + 1e6/5e9 (200 us)
     * = 208.6 us; Simple 8.4 + 2*5.7 = 19.8 + 1e6/20e9 (50 us) = 69.8 us */
    struct llmroof_link_model pcie = { 25e9, 0.8, 6.6e-6, 1.0e-6, COMM_PROTO_PCIE, 0, 0, 0, 0, 0 };
    assert_rel_close(comm_allreduce_s(&pcie, 2, 1e6), 69.8e-6, 1e-9);
    /* NVLS at 270 GB/s: 6.6 + (71 - 6.6) + 64e6 / 270e9 (237.037 us) = 308.037 us < the ring's 534.6 */
    l.nvls_Bps = 270e9;
    assert_rel_close(comm_allreduce_s(&l, 8, 64e6), 308.037037037e-6, 1e-9);
    /* ...but not for 8 KB, where LL's 15.24 us wins over 71.03 us */
    assert_rel_close(comm_allreduce_s(&l, 8, 8e3), 15.2393162393e-6, 1e-9);
    /* mesh of 7 links (MI300X): 2 ranks use 1 link, busbw 448*0.75/7 = 48 GB/s; 64 MB, 2 steps,
     * 64e6 B per rank: Simple 8.4 + 2*3.4 = 15.2 us + 64e6/48e9 (1333.333 us) = 1348.533 us
     * (LL 7.8 + 5333.3; LL128 17.8 + 1449.28) */
    struct llmroof_link_model mesh = { 448e9, 0.75, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 7, 0, 0, 0 };
    assert_rel_close(comm_allreduce_s(&mesh, 2, 64e6), 1348.53333333e-6, 1e-9);
    /* an engine's custom all-reduce on 4 H100s (busbw 450 * 0.81 = 364.5 GB/s), 5.5 us per shot:
     * 1 MB one-shot 5.5 + 3 * 1e6 / 364.5e9 (8.2305 us) = 13.7305 us; two-shot 11 + 1.5e6/364.5e9 =
     * 15.1152 us; NCCL LL 10.2 + 1.5e6 / 87.7e9 (17.1038) = 27.30 us: one-shot wins */
    struct llmroof_link_model cu = { 450e9, 0.81, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 0, 5.5e-6, 0, 0 };
    assert_rel_close(comm_allreduce_s(&cu, 4, 1e6), 13.7304526749e-6, 1e-9);
    /* 4 MB: one-shot 5.5 + 32.922 = 38.42; two-shot 11 + 16.4609 = 27.4609 us; NCCL LL128 43.29 */
    assert_rel_close(comm_allreduce_s(&cu, 4, 4e6), 27.4609053498e-6, 1e-9);
    /* 16 MB is above the 8 MiB the engines route through it: NCCL Simple 28.8 + 24e6/364.5e9 = 94.6436 us
     * (LL128 25.4 + 71.569 = 96.97) */
    assert_rel_close(comm_allreduce_s(&cu, 4, 16e6), 94.6436213992e-6, 1e-9);
    /* 8 ranks use all 7 links: 7 times the bandwidth of 2 for the bandwidth term */
    assert_true(comm_allreduce_s(&mesh, 8, 1e9) < comm_allreduce_s(&mesh, 2, 1e9) / 3.0);
}

/* Issue 23: NCCL's mid-size all-reduce as published nccl-tests tables measure it, not as its tuner
 * models it. 8 x A100 SXM4 (busbw 300 x 0.78 = 234 GB/s), Simple at 6.0 us per step, LL128 at 0.53
 * of the bus bandwidth (the catalog's figures, data/gpus.json); 8 x H100 SXM with NVLS (58 us). */
static void all_reduce_follows_measured_nccl_tables(void **state)
{
    (void)state;
    struct llmroof_link_model a100 = { 300e9, 0.78, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 0, 0, 0, 6.0e-6, 0.53 };
    /* 16 MiB (16,777,216 B), 14/8 of it per rank = 29,360,128 B:
     * Simple 6.6 + 1.8 + 14 x (0.6 + 6.0) = 100.8 us + 29360128 / 234e9 (125.4706 us) = 226.2706 us
     * LL128  40.6 us + 29360128 / (0.53 x 234e9) (236.7364 us) = 277.34 us; LL 15 + 501.88 us
     * nccl-tests measured 226.0 us (superbenchmark's 8 x A100 table); the tuner's 2.8 us per step
     * and 0.92 share gave 176.9 us */
    assert_rel_close(comm_allreduce_s(&a100, 8, 16777216.0), 226.270632479e-6, 1e-9);
    /* 4 MiB, 7,340,032 B per rank: LL128 40.6 + 7340032 / 124.02e9 (59.1843 us) = 99.7843 us (99.78426);
     * Simple 100.8 + 31.3677 = 132.17 us; LL 15 + 125.47 us. Measured 102.8 us (Azure ND A100 v4) */
    assert_rel_close(comm_allreduce_s(&a100, 8, 4194304.0), 99.7842606031e-6, 1e-9);
    /* without the measured figures the tuner's ring: LL128 40.6 + 7340032 / (0.92 x 234e9) = 74.70 us */
    a100.simple_step_s = 0;
    a100.ll128_share = 0;
    assert_rel_close(comm_allreduce_s(&a100, 8, 4194304.0), 74.6952805648e-6, 1e-9);
    /* 8 x H100 SXM with NVLS (270 GB/s): 16 MiB: NVLS 71 us + 16777216 / 270e9 (62.1378 us) =
     * 133.1378 us; the ring's LL128 40.6 + 29360128 / (0.92 x 364.5e9) (87.5527 us) = 128.1533 us
     * wins (Simple 56 + 80.549 = 136.55). Measured 125 us (Azure ND H100 v5, busbw 234.45 GB/s).
     * 64 MiB: NVLS 71 + 248.551 = 319.551 us (LL128 390.81, Simple 378.20); measured 325 us */
    struct llmroof_link_model h100 = { 450e9, 0.81, 6.6e-6, 0.6e-6, COMM_PROTO_NVLINK, 270e9, 0, 0, 0, 0 };
    assert_rel_close(comm_allreduce_s(&h100, 8, 16777216.0), 128.153313055e-6, 1e-9);
    assert_rel_close(comm_allreduce_s(&h100, 8, 67108864.0), 319.551348148e-6, 1e-9);
    /* 4 ranks: no NVLS (its bus bandwidth is the ring's there); 256 MiB, 6 steps, 1.5 M per rank:
     * Simple 6.6 + 1.8 + 6 x 3.4 = 28.8 us + 402653184 / 364.5e9 (1104.67 us) = 1133.47 us, where
     * NVLS would have given 71 + 994.20 = 1065.2 */
    assert_rel_close(comm_allreduce_s(&h100, 4, 268435456.0), 1133.47265844e-6, 1e-9);
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
    o.op[LLMROOF_OP_FFN] = (struct llmroof_op){ 3, 1e12, 1e9, 0, 0, 0 };
    /* norm: 1e6 FLOP, 1e9 B: compute 0.02 ms, memory 2 ms */
    o.op[LLMROOF_OP_NORM] = (struct llmroof_op){ 1, 1e6, 1e9, 0, 0, 0 };
    struct llmroof_phase p;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    /* on the measured smooth ridge (kernel.h): 60 * (1 + (6/60)^6)^(1/6) = 60.00001 ms */
    assert_rel_close(p.op[LLMROOF_OP_FFN].time_s, 0.060 * pow(1.0 + 1e-6, 1.0 / 6.0), 1e-12);
    assert_int_equal(p.op[LLMROOF_OP_FFN].bound, LLMROOF_BOUND_COMPUTE);
    assert_rel_close(p.op[LLMROOF_OP_NORM].time_s, 0.002, 1e-12);
    assert_int_equal(p.op[LLMROOF_OP_NORM].bound, LLMROOF_BOUND_MEMORY);
    /* phase: 60.00001 + 2 + 1 (overhead) = 63.00001 ms; compute_s sums both ops' compute = 60.00002 ms */
    assert_rel_close(p.time_s, 0.063 + 0.060 * (pow(1.0 + 1e-6, 1.0 / 6.0) - 1.0), 1e-12);
    assert_rel_close(p.compute_s, 0.06000002, 1e-12);
    assert_rel_close(p.memory_s, 0.008, 1e-12);
    assert_int_equal(p.bound, LLMROOF_BOUND_COMPUTE);
}

/* Short-K GEMMs (kernel.h KERNEL_GEMM_K0_*): Llama-3.1-70B at TP 8, a 2048-token prompt. Its
 * o_proj multiplies K = 64 x 128 / 8 = 1,024 into h = 8,192 outputs a token: charged
 * (1,024 + 150) / 1,024 / (1 + 150 / 4,096) = 1.146484 / 1.036621 = 1.105982 of its FLOPs at
 * bf16, (1,024 + 450) / 1,024 / (1 + 450 / 4,096) = 1.439453 / 1.109863 = 1.296964 at fp8; its
 * q/k/v projection (K = h = 8,192, above the reference 4,096) exactly its FLOPs. */
static void short_k_gemms_run_below_the_catalog_rate(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-3.1-70b");
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(m, 8, &sh, NULL), 0);
    const struct llmroof_batch b = batch_prefill(1, 2048, OPS_FEW_GENERIC);
    const struct llmroof_gpu *g = gpu(&cat, "h100-sxm5-80gb");
    const struct llmroof_effs eff = roofline_default_effs(g);
    const enum llmroof_dtype acts[2] = { LLMROOF_BF16, LLMROOF_FP8 };
    const double o_scale[2] = { 1.105982, 1.296964 };
    for (int i = 0; i < 2; i++) {
        const struct llmroof_dtypes dt = { acts[i], LLMROOF_BF16, acts[i], 0, false, LLMROOF_BF16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        struct llmroof_oplist ops;
        ops_build(m, &sh, &dt, &b, &ops);
        /* 2048 tokens x 8192 outputs */
        assert_rel_close(ops.gemm_out[LLMROOF_OP_O_PROJ], 2048.0 * 8192.0, 1e-12);
        struct llmroof_phase p;
        roofline_eval(g, acts[i], &eff, 8, &ops, &p);
        const double peak = g->peak_flops[acts[i]] * eff.compute * kernel_gemm_dtype_scale(g, acts[i]);
        const struct llmroof_op *o = &ops.op[LLMROOF_OP_O_PROJ], *q = &ops.op[LLMROOF_OP_QKV_PROJ];
        assert_rel_close(p.op[LLMROOF_OP_O_PROJ].compute_s, o->count * o->flops / peak * o_scale[i], 1e-6);
        assert_rel_close(p.op[LLMROOF_OP_QKV_PROJ].compute_s, q->count * q->flops / peak, 1e-12);
    }
    catalog_free(&cat);
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

/* Issue 23, defect 6: the same silicon gives the same answer. An H800 is an H100 SXM5 with a
 * narrower NVLink: at TP 1 (no collective) a Llama-3.1-8B decode and prefill cost the same. */
static void same_silicon_gives_the_same_step_time_at_tp_1(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    const struct llmroof_model *m = model(&cat, "llama-3.1-8b");
    assert_int_equal(ops_shard(m, 1, &sh, &err), 0);
    const struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const char *pairs[][2] = { { "h100", "h800" }, { "a100-sxm4-80gb", "a800" } };
    for (int i = 0; i < 2; i++) {
        const struct llmroof_gpu *a = gpu(&cat, pairs[i][0]), *b = gpu(&cat, pairs[i][1]);
        const struct llmroof_effs ea = roofline_default_effs(a), eb = roofline_default_effs(b);
        struct llmroof_batch bs[2] = { batch_decode(32, 2048), batch_prefill(1, 2048, OPS_FEW_GENERIC) };
        for (int j = 0; j < 2; j++) {
            struct llmroof_oplist o;
            struct llmroof_phase pa, pb;
            ops_build(m, &sh, &dt, &bs[j], &o);
            roofline_eval(a, LLMROOF_BF16, &ea, 1, &o, &pa);
            roofline_eval(b, LLMROOF_BF16, &eb, 1, &o, &pb);
            /* before: 0.65/0.8 efficiencies and a 200 us step overhead on the H800 (8% apart) */
            assert_rel_close(pb.time_s, pa.time_s, 0);
        }
        /* and the same host: an engine's CPU work scales by host_cpu_speed (the A800 had none,
         * so the reference 1.0 against the A100's DGX Rome 0.81: vllm-0.6 TPOT at batch 16 on
         * Llama-3.1-8B 14.699 against 15.054 ms) */
        const double sa = a->host_cpu_speed > 0 ? a->host_cpu_speed : 1.0; /* 0: not stated, the reference */
        const double sb = b->host_cpu_speed > 0 ? b->host_cpu_speed : 1.0;
        assert_true(sa == sb);
    }
    catalog_free(&cat);
}

/* No GPU carries a step overhead above the H100's measured 20 us without a source, and B200 fp8
 * GEMMs reach the MAMF table's share of the fp8 peak, 3432.5 of 4500 TFLOPS = 76.3%, times the
 * share of that table's H100 row the H100's measured LLM GEMM shapes reach (0.71 / 0.803 = 0.8842):
 * 0.7628 x 0.8842 = 0.6744 (compute 0.686 x gemm_8bit 0.983 = 0.6743); before the issue: 0.65 x
 * 0.883 (default) = 57.4%, and 0.7628 (the best shape itself) until session 16. */
static void added_gpus_carry_the_sourced_overhead_and_efficiencies(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < cat.n_gpus; i++)
        assert_true(cat.gpus[i].step_overhead_s <= 20e-6 * (1 + 1e-12));
    const struct llmroof_gpu *b200 = gpu(&cat, "b200");
    const struct llmroof_effs e = roofline_default_effs(b200);
    assert_rel_close(e.compute * kernel_gemm_dtype_scale(b200, LLMROOF_FP8), 3432.5 / 4500.0 * (0.71 / 0.803), 2e-3);
    catalog_free(&cat);
}

/* Issue 23, defect 4: across nodes NCCL pipelines its ring, so large-message bus bandwidth is set
 * by the NICs of a node, not by the intra all-reduce plus the network phase in turn. 2 nodes of
 * 8 H100 (NVLink 450 GB/s, 8 x 50 GB/s NICs, efficiency 0.81 both), 1 GB: node busbw
 * min(364.5, 8 x 40.5 = 324) = 324 GB/s; 2*15/16 GB / 324 GB/s = 5.787 ms, plus latencies of
 * ~20 us. Before: 2*7/8 GB / 364.5 GB/s (4.801 ms) + 2*(1/2)*(1 GB/8) / 40.5 GB/s (3.086 ms)
 * = 7.89 ms. */
static void cross_node_all_reduce_runs_at_the_nics_of_a_node(void **state)
{
    (void)state;
    const struct llmroof_link_model nvl = { 450e9, 0.81, 6.6e-6, 0.6e-6, COMM_PROTO_NONE, 0, 0, 0, 0, 0 },
                                    ib = { 50e9, 0.81, 10e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    /* latency (NCCL's tuner model, comm.c span_s): 6.6 us + 10 us + the faster of the ring, 2 x (16
     * - 2) = 28 intra steps at the inter-node ring's 1 us floor (28 us), and the tree, 2 x 7 hops
     * x 0.6 us + 2 x log2(2) x 5 us = 18.4 us: 35 us */
    assert_rel_close(comm_allreduce_hier_s(&nvl, &ib, 16, 8, 1e9), 35e-6 + 1.875e9 / 324e9, 1e-12);
    /* all-gather, a ring only: 6.6 + (16 - 2) x 1 us + 10 = 30.6 us + 15/16 GB / 324 GB/s */
    assert_rel_close(comm_allgather_hier_s(&nvl, &ib, 16, 8, 1e9), 30.6e-6 + 0.9375e9 / 324e9, 1e-12);
    /* with slow NICs (8 x 12.5 GB/s) the network bounds it: 2*15/16 GB / 81 GB/s */
    const struct llmroof_link_model slow = { 12.5e9, 0.81, 10e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    assert_rel_close(comm_allreduce_hier_s(&nvl, &slow, 16, 8, 1e9), 35e-6 + 1.875e9 / 81e9, 1e-12);
}

/* Issue 23, defect 3: DeepEP's normal (prefill) kernels send a token over the network once per
 * destination node and forward the copies over NVLink; the low-latency (decode) ones send each
 * copy to its GPU. 16 ranks, 8 per node, top-8, 1 MB of copies per rank, NVLink 450 GB/s, IB
 * 50 GB/s, 10 us network latency (efficiency 1). */
static void normal_all_to_all_crosses_the_network_once_per_node(void **state)
{
    (void)state;
    const struct llmroof_link_model nvl = { 450e9, 1.0, 5e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 },
                                    ib = { 50e9, 1.0, 10e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    /* normal: remote nodes 1 x (1 - (1/2)^8) = 0.99609375; network 1e6/8 x 0.99609 / 50 GB/s
     * = 2.4902 us; NVLink 7/8 MB / 450 GB/s = 1.9444 us; 10 + 2.4902 = 12.4902 us */
    assert_rel_close(comm_alltoall_nodes_s(&nvl, &ib, 16, 8, 1e6, 8.0, 0, 0, 1.0), 10e-6 + 0.125e6 * 0.99609375 / 50e9, 1e-12);
    /* low-latency: 8/16 MB over the network = 10 us + 10 us latency = 20 us */
    assert_rel_close(comm_alltoall_s(&nvl, &ib, 16, 8, 1e6), 20e-6, 1e-12);
    /* inside one node the normal kernels send a token once per destination GPU: top-8 over 8
     * GPUs lands on 8 (1 - (7/8)^8) = 5.2508 of them, so 0.65635 of the 8 copies move:
     * 5 us + 7/8 x 0.65635 MB / 450 GB/s = 6.2762 us (the k copies: 6.9444 us) */
    const double f = 8.0 * (1.0 - pow(7.0 / 8.0, 8.0)) / 8.0;
    assert_rel_close(comm_alltoall_nodes_s(&nvl, &ib, 8, 8, 1e6, 8.0, 0, 0, 1.0), 5e-6 + 0.875 * f * 1e6 / 450e9, 1e-12);
    /* across nodes the NVLink forwarding moves the same share: max(1.2762, 2.4902 us) + 10 us */
    assert_true(comm_alltoall_nodes_s(&nvl, &ib, 16, 8, 1e6, 8.0, 0, 0, 1.0) < 10e-6 + 2.5e-6);
}

/* Group-limited routing (DeepSeek-V3 config.json: n_group 8, topk_group 4; the V3 report's
 * node-limited routing): a token's 8 experts come from its 4 best of 8 groups of 32, a group
 * scored by the sum of its top two experts, so every chosen group holds at least one of the 8;
 * with the experts in order over the GPUs fewer GPUs and nodes receive it than under plain top-8. */
static void group_limited_routing_sends_a_token_to_fewer_gpus(void **state)
{
    (void)state;
    /* EP 8: a group is one GPU, each of the 4 chosen ones reached: 4 GPUs (plain top-8: 8 (1 -
     * (7/8)^8) = 5.2508; independent picks over the 4, as until session 72: 4 (1 - (3/4)^8) =
     * 3.5995; a Monte Carlo of the top-2-sum rule with independent scores: 3.96) */
    assert_rel_close(comm_moe_fanout(8, 8, 8, 4), 4.0, 1e-12);
    assert_rel_close(comm_moe_fanout(8, 8, 0, 0), 8.0 * (1.0 - pow(7.0 / 8.0, 8.0)), 1e-12);
    /* every group open (topk_groups = groups) is plain top-k */
    assert_rel_close(comm_moe_fanout(8, 8, 8, 8), comm_moe_fanout(8, 8, 0, 0), 1e-12);
    /* EP 16: a group spans 2 GPUs, the pool 8: the 4 groups' first picks on 4 GPUs, the other 4
     * picks over the 8: 4 + 4 (1 - (7/8)^4) = 4 + 4 x 0.41382 = 5.65527 (Monte Carlo 5.72) */
    assert_rel_close(comm_moe_fanout(16, 8, 8, 4), 4.0 + 4.0 * (1.0 - pow(7.0 / 8.0, 4.0)), 1e-12);
    /* EP 32: a group spans 4 GPUs, the pool 16: 4 + 12 (1 - (15/16)^4) = 6.7297 (plain 7.1484) */
    assert_rel_close(comm_moe_fanout(32, 8, 8, 4), 4.0 + 12.0 * (1.0 - pow(15.0 / 16.0, 4.0)), 1e-12);
    /* 2 nodes, 4 groups each: no chosen group on a node with chance C(4,4)/C(8,4) = 1/70, and a
     * node holding one is reached: 2 x 69/70 = 1.97143 nodes (plain 2 (1 - 2^-8) = 1.99219) */
    assert_rel_close(comm_moe_fanout(2, 8, 8, 4), 2.0 * 69.0 / 70.0, 1e-12);
    /* DeepSeek-V2's 3 of 8 on 4 nodes (2 groups each): none chosen on a node with chance
     * (6/8)(5/7)(4/6) = 120/336 = 0.357143: 4 x 0.642857 = 2.571429 nodes */
    assert_rel_close(comm_moe_fanout(4, 6, 8, 3), 4.0 * (1.0 - 6.0 / 8.0 * 5.0 / 7.0 * 4.0 / 6.0), 1e-12);
    /* fewer picks than chosen groups (a model with k < topk_groups): independent picks over the
     * pool, 4 (1 - (3/4)^2) = 1.75 */
    assert_rel_close(comm_moe_fanout(8, 2, 8, 4), 4.0 * (1.0 - pow(0.75, 2.0)), 1e-12);
    /* the normal kernels inside one node move 4 / 8 of the copies: 5 us + 7/8 x 0.5 MB / 450 GB/s
     * = 5.9722 us (plain top-8: 6.2762 us) */
    const struct llmroof_link_model nvl = { 450e9, 1.0, 5e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    assert_rel_close(comm_alltoall_nodes_s(&nvl, &nvl, 8, 8, 1e6, 8.0, 8, 4, 1.0), 5e-6 + 0.875 * 0.5 * 1e6 / 450e9,
                     1e-12);
    /* a skewed GPU's node at EP 16 over 2 nodes: P = 5.65527 / 16 = 0.353454, Pn = 0.985714; the
     * busy GPU at 1.386 x P = 0.489888; factor (1 - 0.510112 x 0.014286 / 0.646546) / 0.985714
     * = 1.003065: its extra tokens come mostly over NVLink from GPUs of its node */
    const double P = (4.0 + 4.0 * (1.0 - pow(7.0 / 8.0, 4.0))) / 16.0, Pn = 69.0 / 70.0, hot = 1.386 * P;
    assert_rel_close(comm_alltoall_node_factor(16, 8, 8.0, 8, 4, 1.386), (1.0 - (1.0 - hot) * (1.0 - Pn) / (1.0 - P)) / Pn,
                     1e-12);
    assert_true(comm_alltoall_node_factor(16, 8, 8.0, 8, 4, 1.386) < 1.004);
    assert_rel_close(comm_alltoall_node_factor(16, 8, 8.0, 8, 4, 1.0), 1.0, 0);
    assert_rel_close(comm_alltoall_node_factor(8, 8, 8.0, 8, 4, 2.0), 1.0, 0); /* one node */
}

/* Issue 23, defect 3: two-batch overlap (a layout flag, off by default as in SGLang and vLLM)
 * hides the all-to-all under the other micro-batch's compute: only what exceeds the other
 * operators' time remains. */
static void two_batch_overlap_hides_the_all_to_all_under_compute(void **state)
{
    (void)state;
    struct llmroof_phase p;
    memset(&p, 0, sizeof p);
    p.op[LLMROOF_OP_FFN].time_s = 5e-3;
    p.op[LLMROOF_OP_ALL_TO_ALL].time_s = 3e-3;
    p.overhead_s = 1e-4;
    roofline_total(&p);
    assert_rel_close(p.time_s, 8.1e-3, 1e-12); /* without: 5 + 3 + 0.1 ms */
    p.a2a_overlap = true;
    roofline_total(&p);
    assert_rel_close(p.time_s, 5.1e-3, 1e-12); /* 3 ms hidden under 5: 5 + 0.1 */
    assert_rel_close(p.hidden_s, 3e-3, 1e-12);
    p.op[LLMROOF_OP_ALL_TO_ALL].time_s = 7e-3;
    roofline_total(&p);
    assert_rel_close(p.time_s, 7.1e-3, 1e-12); /* 5 of 7 hidden: 7 + 0.1 */
}

/* The last decode step's terms from its context operators alone (roofline_terms_prep with
 * OPS_CONTEXT_MASK, the others taken from the first step) are those of a whole step, to the
 * bit, for every model at TP 1 and 8 on an H100 and an A100. */
static void masked_terms_are_the_whole_steps(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const char *gpus[] = { "h100-sxm5-80gb", "a100-sxm4-80gb" };
    int checked = 0;
    for (size_t gi = 0; gi < 2; gi++) {
        const struct llmroof_gpu *g = gpu(&cat, gpus[gi]);
        const struct llmroof_effs eff = roofline_default_effs(g);
        struct roofline_prep rp;
        for (int tp = 1; tp <= 8; tp *= 8) {
            roofline_prepare(g, dt.act, &eff, tp, &rp);
            for (size_t i = 0; i < cat.n_models; i++) {
                const struct llmroof_model *m = &cat.models[i];
                struct llmroof_shard sh;
                if (ops_shard(m, tp, &sh, NULL))
                    continue;
                struct llmroof_batch b1 = batch_decode(16, 513), b2 = batch_decode(16, 2047);
                struct llmroof_oplist first, whole, last;
                struct llmroof_phase ref, pw, pm, pe;
                ops_build(m, &sh, &dt, &b1, &first);
                ops_build(m, &sh, &dt, &b2, &whole);
                roofline_eval(g, dt.act, &eff, tp, &first, &ref);
                roofline_eval_prep(&rp, &first, &pe);
                assert_true(pe.time_s == ref.time_s && pe.bound_s[1] == ref.bound_s[1]);
                roofline_terms(g, dt.act, &eff, tp, &whole, &first, &ref, &pw);
                ops_copy_context(&last, &first);
                ops_set_context(m, &sh, &dt, &b2, &last);
                roofline_terms_prep(&rp, &last, OPS_CONTEXT_MASK, &first, &ref, &pm);
                for (int k = 0; k < LLMROOF_OP_COUNT; k++)
                    if (OPS_CONTEXT_MASK >> k & 1u)
                        assert_true(pm.op[k].compute_s == pw.op[k].compute_s && pm.op[k].memory_s == pw.op[k].memory_s &&
                                    pm.op[k].bytes == pw.op[k].bytes && pm.op[k].kernels == pw.op[k].kernels);
                assert_true(pm.flops == pw.flops && pm.bytes == pw.bytes && pm.comm_bytes == pw.comm_bytes &&
                            pm.launch_s == pw.launch_s);
                checked++;
            }
        }
    }
    assert_true(checked > 100);
    catalog_free(&cat);
}

/* CUDA-graph coverage (docs/model.md "CUDA-graph coverage"), on a GPU of round numbers (1 TB/s,
 * 100 TFLOP/s) with pure-roofline kernels: an FFN of 10 instances of 2 kernels, each 1 MB and no
 * FLOPs (2 us each at half the bandwidth: 20 us), and an attention operator of 10 one-kernel
 * instances of 1 MB (20 us). Launching all 30 kernels costs 30 x 30 us = 900 us of CPU. */
static void graph_coverage_decides_the_launch_wait(void **state)
{
    (void)state;
    struct llmroof_gpu g = { 0 };
    g.mem_bw_Bps = 1e12;
    g.peak_flops[LLMROOF_FP16] = 100e12;
    g.has_peak[LLMROOF_FP16] = true;
    struct llmroof_effs e = { .compute = 0.5, .memory = 0.5, .comm = 1.0, .launch_s = 30e-6, .graphs = true,
                              .graph_max = 256 };
    struct llmroof_oplist o = { 0 };
    o.op[LLMROOF_OP_FFN] = (struct llmroof_op){ 10, 0, 1e6, 0, 2, 0 };
    o.op[LLMROOF_OP_ATTENTION] = (struct llmroof_op){ 10, 0, 1e6, 0, 1, 0 };
    struct llmroof_phase p;
    /* a decode step of 257 sequences, above the largest graph (256): eager, 900 us of launches
     * against 40 us of GPU: the GPU waits 860 us, the step takes 900 us */
    o.tokens = 257;
    o.new_per_seq = 1;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.launch_s, 900e-6, 1e-12);
    assert_rel_close(p.cpu_wait_s, 860e-6, 1e-12);
    assert_rel_close(p.time_s, 900e-6, 1e-12);
    /* at 256 sequences the graph replays it: no launch, 40 us */
    o.tokens = 256;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.launch_s, 0.0, 0);
    assert_rel_close(p.cpu_wait_s, 0.0, 0);
    assert_rel_close(p.time_s, 40e-6, 1e-12);
    /* a prefill step of 2 prompts of 64 tokens (128 tokens, new_per_seq 64): decode graphs only,
     * so eager at any size: 900 us */
    o.tokens = 128;
    o.new_per_seq = 64;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.launch_s, 900e-6, 1e-12);
    assert_rel_close(p.time_s, 900e-6, 1e-12);
    /* a verification pass of 3 positions per sequence (64 sequences, 192 tokens) is decode-type
     * where the engine captures it (graph_decode_new 3, set by the simulator): replayed, 40 us */
    o.tokens = 192;
    o.new_per_seq = 3;
    e.graph_decode_new = 3;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.time_s, 40e-6, 1e-12);
    /* ...and eager where it does not (graph_decode_new 1): 900 us */
    e.graph_decode_new = 0;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.time_s, 900e-6, 1e-12);
    /* piecewise graphs up to 512 tokens (vLLM V1): the 128-token prefill replays but for its
     * attention, 10 x 1 x 30 = 300 us of launches against 40 us: 300 us; a 513-token step runs
     * eager (900 us); a decode step of 512 is a full graph (40 us) */
    e.graph_piecewise = true;
    e.graph_max = 512;
    o.tokens = 128;
    o.new_per_seq = 64;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.launch_s, 300e-6, 1e-12);
    assert_rel_close(p.cpu_wait_s, 260e-6, 1e-12);
    assert_rel_close(p.time_s, 300e-6, 1e-12);
    o.tokens = 513;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.time_s, 900e-6, 1e-12);
    o.tokens = 512;
    o.new_per_seq = 1;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.time_s, 40e-6, 1e-12);
    /* graphs with no limit replay every step (gpt-fast); no graphs: every step eager */
    e = (struct llmroof_effs){ .compute = 0.5, .memory = 0.5, .comm = 1.0, .launch_s = 30e-6, .graphs = true };
    o.tokens = 128;
    o.new_per_seq = 64;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.time_s, 40e-6, 1e-12);
    e.graphs = false;
    o.new_per_seq = 1;
    roofline_eval(&g, LLMROOF_FP16, &e, 1, &o, &p);
    assert_rel_close(p.time_s, 900e-6, 1e-12);
}

/* Llama-3.1-8B on an H100 at TP 1, bf16, under engine en: one step of `seqs` sequences of `news`
 * new tokens each (decodes at a 1,000-token context, or prompts), evaluated into *p. */
static void llama8b_h100_step(const struct llmroof_catalog *cat, const struct llmroof_engine *en, double seqs,
                              double news, struct llmroof_phase *p)
{
    struct llmroof_setup s = { 0 };
    s.model = model(cat, "llama-3.1-8b");
    s.gpu = gpu(cat, "h100");
    s.tp = 1;
    s.dt = (struct llmroof_dtypes){ .weight = LLMROOF_BF16, .kv = LLMROOF_BF16, .act = LLMROOF_BF16 };
    s.eff = roofline_effs_engine(s.gpu, en, NULL);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(s.model, 1, &sh, &err), 0);
    struct llmroof_batch b = { 0 };
    for (int j = 0; j < (int)seqs; j++)
        batch_add(&b, news, news > 1 ? 0.0 : 1000.0, OPS_FEW_GENERIC);
    struct llmroof_oplist o;
    ops_build(s.model, &sh, &s.dt, &b, &o);
    roofline_eval(s.gpu, s.dt.act, &s.eff, 1, &o, p);
}

/* The shipped vLLM 0.6 profile on an H100, Llama-3.1-8B at TP 1: 32 layers x 10 kernels as ops.c
 * fuses them, the final norm 1 and the LM head 3 = 324 kernels; a step no graph replays pays
 * 324 x 25 us = 8.1 ms of launches (the H100 host is the reference: speed 1); decode steps up to 256 sequences replay (0). */
static void vllm_v0_graphs_cover_decode_up_to_256(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "vllm-0.6");
    assert_int_equal(en->graph_max_batch, 256);
    assert_false(en->graph_piecewise);
    /* TGI 2.x captures decode batches of 1-32 only (launcher --cuda-graphs default) */
    assert_int_equal(shipped_engine(&cat, "tgi")->graph_max_batch, 32);
    assert_rel_close(shipped_engine(&cat, "tgi")->launch_s, 25e-6, 1e-12);
    const double seqs[] = { 256, 257, 1 };
    const double news[] = { 1, 1, 128 };
    const double want[] = { 0.0, 8.1e-3, 8.1e-3 };
    for (int i = 0; i < 3; i++) {
        struct llmroof_phase p;
        llama8b_h100_step(&cat, en, seqs[i], news[i], &p);
        assert_rel_close(p.launch_s, want[i], 1e-9);
        /* the wait is what the launches exceed of the GPU time */
        const double gpu = p.time_s - p.cpu_wait_s - p.overhead_s;
        assert_rel_close(p.cpu_wait_s, want[i] > gpu ? want[i] - gpu : 0.0, 1e-9);
    }
    catalog_free(&cat);
}

/* The bound a phase reports: "cpu" when its launches set its time. A 128-token prompt launched for
 * 8.1 ms against 2.57 ms of compute and 5.73 ms of memory time that overlap to 6.71 ms of GPU
 * work: the GPU waits 8.10 - 6.71 = 1.39 ms, and the step takes the launches' 8.1 ms: "cpu",
 * though the wait alone is below the memory time. Launches of 6.0 ms under the same work: no wait,
 * the memory-bound kernels set the time: "memory". */
static void a_phase_whose_launches_set_its_time_is_cpu_bound(void **state)
{
    (void)state;
    struct llmroof_phase p = { .compute_s = 2.57e-3, .memory_s = 5.73e-3, .launch_s = 8.1e-3, .cpu_wait_s = 1.39e-3,
                               .bound = LLMROOF_BOUND_MEMORY };
    assert_string_equal(roofline_phase_bound_name(&p), "cpu");
    p.launch_s = 6.0e-3;
    p.cpu_wait_s = 0.0;
    assert_string_equal(roofline_phase_bound_name(&p), "memory");
}

/* TensorRT-LLM's two runtimes on the same step (docs/model.md "CUDA-graph coverage"): the
 * TensorRT engines' C++ runtime launches every step's kernels at 4 us, no graphs; 1.x's PyTorch
 * backend dispatches them from Python at 25 us but replays iterations without a context request
 * from CUDA graphs of exact batch sizes, 1-32, 64 and 128, without padding (CudaGraphConfig's
 * defaults). Llama-3.1-8B on an H100 (the reference host) at TP 1, 324 kernels a step (as
 * vllm_v0_graphs_cover_decode_up_to_256):
 *   decode of 128, 64 or 32: C++ 324 x 4 us = 1.296 ms; PyTorch 0 (a graph of that size)
 *   decode of 33, 65 or 100: C++ 1.296 ms; PyTorch 324 x 25 us = 8.1 ms (no graph of that size)
 *   decode of 129:  C++ 1.296 ms;              PyTorch 8.1 ms (no graph that large)
 *   a 128-token prompt: C++ 1.296 ms;          PyTorch 8.1 ms (context iterations run eager) */
static void trtllm_pytorch_backend_runs_context_steps_eager(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *cpp = shipped_engine(&cat, "tensorrt-llm");
    const struct llmroof_engine *pt = shipped_engine(&cat, "tensorrt-llm-pytorch");
    assert_false(cpp->cuda_graphs);
    assert_true(pt->cuda_graphs);
    assert_int_equal(pt->graph_max_batch, 128);
    assert_int_equal(pt->graph_every_batch_to, 32);
    assert_false(pt->graph_piecewise);
    const double seqs[] = { 128, 64, 32, 33, 65, 100, 129, 1 };
    const double news[] = { 1, 1, 1, 1, 1, 1, 1, 128 };
    const double want_pt[] = { 0.0, 0.0, 0.0, 8.1e-3, 8.1e-3, 8.1e-3, 8.1e-3, 8.1e-3 };
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 8; i++) {
            struct llmroof_phase p;
            llama8b_h100_step(&cat, k ? pt : cpp, seqs[i], news[i], &p);
            assert_rel_close(p.launch_s, k ? want_pt[i] : 1.296e-3, 1e-9);
        }
    catalog_free(&cat);
}

/* vLLM 0.2's --engine-use-ray: the engine is a Ray actor the API server calls once per step, the
 * same remote call its TP > 1 driver makes, so tp_step_overhead_s is paid at TP 1 too. On an
 * A100 SXM 80GB (GPU step overhead 20 us; host EPYC 7742, cpu_speed 0.81) the profile's CPU
 * times take / 0.81:
 *   TP 1 without Ray: 0.02 + 3.0 / 0.81 = 0.02 + 3.7037 = 3.7237 ms
 *   TP 1 with Ray:    3.7237 + 2.9 / 0.81 = 3.7237 + 3.5802 = 7.3040 ms
 *   TP 2, either:     7.3040 ms (the driver's call is there already) */
static void engine_use_ray_pays_the_remote_call_at_tp_1(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "vllm-0.2");
    const struct llmroof_gpu *g = gpu(&cat, "a100-sxm4-80gb");
    assert_rel_close(g->step_overhead_s, 20e-6, 1e-12);
    assert_rel_close(g->host_cpu_speed, 0.81, 1e-12);
    assert_rel_close(en->step_overhead_s, 3.0e-3, 1e-12);
    assert_rel_close(en->tp_step_overhead_s, 2.9e-3, 1e-12);
    const struct llmroof_eff_override ray = { .engine = en, .engine_use_ray = true };
    struct llmroof_effs plain = roofline_effs_engine(g, en, NULL), actor = roofline_effs_engine(g, en, &ray);
    assert_false(plain.ray_engine);
    assert_true(actor.ray_engine);
    assert_rel_close(roofline_step_overhead_s(&plain, 1), 3.7237e-3, 1e-4);
    assert_rel_close(roofline_step_overhead_s(&actor, 1), 7.3040e-3, 1e-4);
    assert_rel_close(roofline_step_overhead_s(&plain, 2), 7.3040e-3, 1e-4);
    assert_rel_close(roofline_step_overhead_s(&actor, 2), 7.3040e-3, 1e-4);
    /* DistServe's engine calls its Ray worker actors every step whatever the TP (engine field
     * ray_workers): its profile pays the same call at TP 1 without the option, 7.3040 ms */
    const struct llmroof_engine *ds = shipped_engine(&cat, "distserve");
    assert_true(ds->ray_workers);
    assert_false(en->ray_workers);
    assert_rel_close(ds->step_overhead_s, en->step_overhead_s, 0);
    assert_rel_close(ds->tp_step_overhead_s, en->tp_step_overhead_s, 0);
    const struct llmroof_effs dse = roofline_effs_engine(g, ds, NULL);
    assert_false(dse.ray_engine); /* no --engine-use-ray: the profile's own workers */
    assert_true(dse.ray_workers);
    assert_rel_close(roofline_step_overhead_s(&dse, 1), 7.3040e-3, 1e-4);
    assert_rel_close(roofline_step_overhead_s(&dse, 2), 7.3040e-3, 1e-4);
    catalog_free(&cat);
}

/* TensorRT-LLM's fp8 attention (context FMHA and XQA) reads Q, K and V in fp8: at fp8
 * activations it runs at the fp8 peak with an fp8 K/V cache, and at 16 bits with a 16-bit one (a
 * review found --kv-dtype fp16 charged at the fp8 peak). Llama-2-7B prefill of 2048 tokens on an
 * H100 (989.5 / 1979 TFLOP/s dense): attention's compute term halves with the 8-bit cache, the
 * same FLOPs over twice the peak; the GEMMs are unchanged by the cache's dtype. */
static void fp8_attention_needs_an_fp8_kv_cache(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_engine *en = shipped_engine(&cat, "tensorrt-llm");
    assert_true(en->fp8_attention);
    const struct llmroof_gpu *g = gpu(&cat, "h100-sxm5-80gb");
    const struct llmroof_model *m = model(&cat, "llama-2-7b");
    const struct llmroof_effs eff = roofline_effs_engine(g, en, NULL);
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(m, 1, &sh, NULL), 0);
    const struct llmroof_batch b = batch_prefill(1, 2048, OPS_FEW_GENERIC);
    double attn_c[2], qkv_c[2];
    for (int i = 0; i < 2; i++) {
        const struct llmroof_dtypes dt = { LLMROOF_FP8, i ? LLMROOF_FP8 : LLMROOF_FP16, LLMROOF_FP8, 0, false,
                                           LLMROOF_FP16, false, LLMROOF_ACT_QUANT_FUSED, false };
        struct llmroof_oplist ops;
        ops_build(m, &sh, &dt, &b, &ops);
        assert_int_equal(ops.kv_8bit, i == 1);
        struct llmroof_phase p;
        roofline_eval(g, LLMROOF_FP8, &eff, 1, &ops, &p);
        attn_c[i] = p.op[LLMROOF_OP_ATTENTION].compute_s;
        qkv_c[i] = p.op[LLMROOF_OP_QKV_PROJ].compute_s;
    }
    assert_true(attn_c[0] > 0);
    /* 1979 / 989.5 = 2 (same attention efficiency, same FLOPs) */
    assert_rel_close(attn_c[0] / attn_c[1], 1979.0 / 989.5, 1e-3);
    assert_rel_close(qkv_c[0], qkv_c[1], 1e-12);
    catalog_free(&cat);
}

/* NVIDIA's NVFP4 DeepSeek-R1-0528 (catalog "excluded": qkv_proj, mla_kv_up, o_proj, lm_head):
 * its MLPs are stored at 4.5 bits and run fp4 x fp4 where the GPU has an fp4 peak, the excluded
 * GEMMs stay bf16 (docs/model.md "Mixed-precision checkpoints"). */
static void nvfp4_checkpoint_runs_its_mlps_at_fp4_and_attention_at_bf16(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-r1-0528-nvfp4");
    const struct llmroof_dtypes fp16 = { LLMROOF_FP16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_dtypes dt = ckpt_dtypes(m, NULL, fp16, false);
    assert_int_equal(dt.weight, LLMROOF_BF16); /* the excluded matrices' dtype */
    struct llmroof_shard sh;
    assert_int_equal(ops_shard(m, 1, &sh, NULL), 0);
    const struct llmroof_batch b = batch_prefill(1, 2048, OPS_FEW_GENERIC);
    struct llmroof_oplist ops;
    ops_build(m, &sh, &dt, &b, &ops);
    assert_int_equal(ops.lowp_ops, (1u << LLMROOF_OP_FFN) | (1u << LLMROOF_OP_DENSE_FFN));
    assert_int_equal(ops.lowp_dtype, LLMROOF_FP4);
    /* 2048 tokens x top-8 over 256 experts hit all 256; routed + 1 shared expert, 3 matrices of
     * 7168 x 2048 at 4.5 bits: 257 * 44,040,192 * 0.5625 = 6,366,560,256 B */
    assert_rel_close(ops.op[LLMROOF_OP_FFN].wbytes, 6366560256.0, 1e-12);
    /* fp4 activations of the routed experts: 2048 x 8 = 16,384 rows x (7168 + 2 x 2048) x
     * (2 - 0.5625) = 265,289,728 B less, the tokens' quantization 2048 x 7168 x 2.5625 =
     * 37,617,664 B more: 227,672,064 B saved per layer */
    assert_rel_close(ops.lowp_save_bytes, 227672064.0, 1e-12);
    /* dense layers: 3 x 7168 x 18432 = 396,361,728 weights * 0.5625 = 222,953,472 B */
    assert_rel_close(ops.op[LLMROOF_OP_DENSE_FFN].wbytes, 222953472.0, 1e-12);
    /* o_proj excluded: 128 heads x 128 (v) x 7168 x 2 B = 234,881,024 B */
    assert_rel_close(ops.op[LLMROOF_OP_O_PROJ].wbytes, 234881024.0, 1e-12);
    /* v2 quantizes o_proj too: 128 x 128 x 7168 = 117,440,512 weights * 0.5625 = 66,060,288 B */
    struct llmroof_oplist ops2;
    ops_build(model(&cat, "deepseek-r1-0528-nvfp4-v2"), &sh, &dt, &b, &ops2);
    assert_rel_close(ops2.op[LLMROOF_OP_O_PROJ].wbytes, 66060288.0, 1e-12);
    assert_true(ops2.lowp_ops >> LLMROOF_OP_O_PROJ & 1u);

    /* B300: fp4 dense 13.5 PFLOP/s against bf16 2.25: the MLPs' FLOPs cost 1/6 of the
     * projections' per FLOP; on the H200 (no fp4 path) the same. Then each operator's short-K
     * cost (kernel.h KERNEL_GEMM_K0_*, at its mean K): the MLP's 2 x 9 x 7168 x 2048 x 3 FLOP
     * per token over 2 x 9 x 11,264 output elements, K 3,909.82: x (3,909.82 + 450) / 3,909.82 /
     * (1 + 450 / 4096) = 1.004714 at fp4 (8-bit class), x (4,059.82 / 3,909.82) / 1.036621 =
     * 1.001682 at bf16; the projections' 105,783,296 FLOP per token (2 x 52,887,552 + the latent
     * norms' 4 x 2048) with 26,688 outputs, at bf16: (105,783,296 + 300 x 26,688) / 1.036621 /
     * 105,783,296 = 113,789,696 / 1.036621 / 105,783,296 = 1.037686. On the B300 the routed
     * experts, 8 of the MLP's 9 experts' FLOPs, compute at fp4 in the grouped MoE kernels' share
     * (kernel.h KERNEL_FP4_MOE_COMPUTE_SHARE 0.28): x (1 + 8/9 x (1/0.28 - 1)) = 3.285714 */
    const char *gpus[2] = { "b300", "h200" };
    const double ratio[2] = { 2.25e15 / 1.35e16 * 1.004714 / 1.037686 * (1.0 + 8.0 / 9.0 * (1.0 / 0.28 - 1.0)),
                              1.001682 / 1.037686 };
    for (int i = 0; i < 2; i++) {
        const struct llmroof_gpu *g = gpu(&cat, gpus[i]);
        const struct llmroof_effs eff = roofline_default_effs(g);
        struct llmroof_phase p;
        roofline_eval(g, LLMROOF_BF16, &eff, 1, &ops, &p);
        const struct llmroof_op *f = &ops.op[LLMROOF_OP_FFN], *q = &ops.op[LLMROOF_OP_QKV_PROJ];
        const double per_flop_ffn = p.op[LLMROOF_OP_FFN].compute_s / (f->count * f->flops);
        const double per_flop_qkv = p.op[LLMROOF_OP_QKV_PROJ].compute_s / (q->count * q->flops);
        assert_rel_close(per_flop_ffn / per_flop_qkv, ratio[i], 2e-6);
        /* the saving is charged only where the fp4 path runs (58 MoE layers) */
        const double saved = i == 0 ? 227672064.0 : 0.0;
        assert_rel_close(p.op[LLMROOF_OP_FFN].bytes, 58.0 * (f->bytes - saved), 1e-12);
    }
    /* what the header line says */
    char buf[224];
    ckpt_weight_desc(m, &dt, buf, sizeof buf);
    assert_string_equal(buf, "bf16 weights, NVFP4 ffn and dense_ffn (the checkpoint's)");
    ckpt_compute_desc(m, gpu(&cat, "b300"), &dt, buf, sizeof buf);
    assert_string_equal(buf, "bf16 compute (ffn and dense_ffn: fp4)");
    /* Hopper has no fp4 path: the NVFP4 MLPs are widened in a bf16 GEMM (vLLM's Marlin W4A16),
     * which the header says (review19 item 7) */
    ckpt_compute_desc(m, gpu(&cat, "h200"), &dt, buf, sizeof buf);
    assert_string_equal(buf, "bf16 compute (ffn and dense_ffn: fp4 weights, weight-only on this GPU)");
    /* --weight-dtype fp4 (0.5625 B, not above 4.5 bits): every matrix fp4, no split */
    struct llmroof_dtypes all4 = dt;
    all4.weight = LLMROOF_FP4;
    all4.act = LLMROOF_FP4;
    ops_build(m, &sh, &all4, &b, &ops);
    assert_int_equal(ops.lowp_ops, 0);
    assert_rel_close(ops.op[LLMROOF_OP_O_PROJ].wbytes, 128.0 * 128 * 7168 * 0.5625, 1e-12);
    /* gpt-oss's MXFP4 experts are weight-only (vLLM's default backends run them W4A16) */
    const struct llmroof_model *oss = model(&cat, "gpt-oss-120b");
    const struct llmroof_dtypes odt = ckpt_dtypes(oss, NULL, fp16, false);
    enum llmroof_dtype low;
    assert_int_equal(ops_ckpt_lowp_modules(oss, &odt, &low), 0);
    catalog_free(&cat);
}

/* DeepSeek-V3's block-scaled fp8 checkpoint served at its weights with 16-bit activations: every
 * GEMM but the LM head runs W8A8 on the fp8 tensor cores where the GPU has them (vLLM's
 * Fp8LinearMethod with weight_block_size; Marlin weight-only on an A100), attention stays 16-bit,
 * and the all-to-all dispatch carries fp8 (DeepEP README). */
static void block_fp8_checkpoint_runs_its_gemms_and_dispatch_at_fp8_where_the_gpu_has_the_path(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-v3");
    const struct llmroof_dtypes fp16 = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_dtypes dt = ckpt_dtypes(m, NULL, fp16, false);
    assert_int_equal(dt.weight, LLMROOF_FP8);
    assert_int_equal(dt.act, LLMROOF_FP16);
    /* EP 8 with data-parallel attention (8 replicas of TP 1), 8 decode sequences: one per replica;
     * --ep-imbalance 1: the mean rank, as the arithmetic below (test_ops checks the busiest) */
    const struct llmroof_layout lay = { 1, 0, 8, true, 1.0, false, 0, false, false, false };
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard_layout(m, &lay, &sh, &err), 0);
    const struct llmroof_batch b = batch_decode(8, 1000);
    struct llmroof_oplist ops;
    ops_build(m, &sh, &dt, &b, &ops);
    assert_int_equal(ops.lowp_ops, (1u << LLMROOF_OP_QKV_PROJ) | (1u << LLMROOF_OP_MLA_KV_UP) |
                                       (1u << LLMROOF_OP_O_PROJ) | (1u << LLMROOF_OP_FFN) |
                                       (1u << LLMROOF_OP_DENSE_FFN));
    assert_int_equal(ops.lowp_dtype, LLMROOF_FP8);
    assert_rel_close(ops.lowp_save_bytes, 0.0, 0); /* the quantization kernels are charged in ops.c */
    assert_int_equal(ops.block_fp8_ops, ops.lowp_ops);
    /* the op list's message: 1 token x top-8 x 7168 x (2 B dispatch + 2 B combine) / 2 =
     * 114,688 B; fp8 dispatch saves 8 x 7168 x (2 - 1.03125) / 2 = 27,776 B of it */
    assert_rel_close(ops.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, 114688.0, 1e-12);
    assert_rel_close(ops.a2a_lowp_save_bytes, 27776.0, 1e-12);

    /* the GEMMs' output elements (kernel.h KERNEL_BLOCK_FP8_K0): the busiest rank's 8 routed rows
     * and the replica's 1 shared-expert row, each gate_up 2 x 2048 + down 7168 = 11,264:
     * 9 x 11,264 = 101,376; q_a 1536 + q_b 128 x 192 + kv_a 512 + 64 = 26,688; o_proj 7168 */
    assert_rel_close(ops.gemm_out[LLMROOF_OP_FFN], 101376.0, 1e-12);
    assert_rel_close(ops.gemm_out[LLMROOF_OP_QKV_PROJ], 26688.0, 1e-12);
    assert_rel_close(ops.gemm_out[LLMROOF_OP_O_PROJ], 7168.0, 1e-12);
    /* FFN FLOPs 2 x 9 x 7168 x 2048 x 3 = 792,723,456, and 2 x 520 x 101,376 = 105,431,040 more
     * at the block-fp8 path: x 1.133000 */
    assert_rel_close(ops.op[LLMROOF_OP_FFN].flops, 792723456.0, 1e-12);

    /* H100: the projections' FLOPs at fp8 1979 TFLOP/s x the 8-bit share 0.93 against the LM
     * head's fp16 989.5: 989.5 / (1979 x 0.93) = 0.537634 of its time per FLOP, x 1.133000 for
     * the FFN's short-K cost = 0.609139; the messages, 2 x 58 MoE layers, 116 x (114,688 -
     * 27,776) = 10,081,792 B. A100 (no fp8): weight-only, both as the op list states (ratio 1,
     * 116 x 114,688 = 13,303,808 B), but the FFN's 16-bit short-K cost at its mean K of
     * 792,723,456 / (2 x 101,376) = 3,909.82: (3,909.82 + 150) / 3,909.82 / (1 + 150 / 4096) =
     * 1.001682 (the LM head, K 7168, none). */
    const char *gpus[2] = { "h100-sxm5-80gb", "a100-sxm4-80gb" };
    const double ratio[2] = { 989.5 / (1979.0 * 0.93) * (1.0 + 105431040.0 / 792723456.0), 1.001682 },
                 msg[2] = { 10081792.0, 13303808.0 };
    for (int i = 0; i < 2; i++) {
        const struct llmroof_gpu *g = gpu(&cat, gpus[i]);
        const struct llmroof_effs eff = roofline_default_effs(g);
        struct llmroof_phase p;
        roofline_eval(g, LLMROOF_FP16, &eff, 1, &ops, &p);
        const struct llmroof_op *f = &ops.op[LLMROOF_OP_FFN], *h = &ops.op[LLMROOF_OP_LM_HEAD];
        const double per_flop_ffn = p.op[LLMROOF_OP_FFN].compute_s / (f->count * f->flops);
        const double per_flop_head = p.op[LLMROOF_OP_LM_HEAD].compute_s / (h->count * h->flops);
        assert_rel_close(per_flop_ffn / per_flop_head, ratio[i], 1e-5);
        assert_rel_close(p.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, msg[i], 1e-12);
    }
    char buf[224];
    ckpt_compute_desc(m, gpu(&cat, "h100-sxm5-80gb"), &dt, buf, sizeof buf);
    assert_string_equal(buf, "fp16 compute (qkv_proj, mla_kv_up, o_proj, ffn and dense_ffn: fp8)");
    ckpt_compute_desc(m, gpu(&cat, "a100-sxm4-80gb"), &dt, buf, sizeof buf);
    assert_string_equal(buf, "fp16 compute (qkv_proj, mla_kv_up, o_proj, ffn and dense_ffn: fp8 weights, weight-only "
                             "on this GPU)");

    /* fp8 activations run everything at fp8 already; per-tensor fp8 (--weight-bits 8) and 16-bit
     * weights are not the block format: no split, a 16-bit dispatch */
    struct llmroof_dtypes d2 = dt;
    d2.act = LLMROOF_FP8;
    ops_build(m, &sh, &d2, &b, &ops);
    assert_int_equal(ops.lowp_ops, 0);
    assert_rel_close(ops.a2a_lowp_save_bytes, 0.0, 0);
    assert_true(ops.block_fp8_ops >> LLMROOF_OP_FFN & 1u); /* still block-scaled GEMMs, at fp8 */
    d2 = dt;
    d2.weight_bits = 8.0;
    ops_build(m, &sh, &d2, &b, &ops);
    assert_int_equal(ops.lowp_ops, 0);
    assert_int_equal(ops.block_fp8_ops, 0);
    /* the output elements are recorded for every GEMM now (the per-tensor short-K cost) */
    assert_rel_close(ops.gemm_out[LLMROOF_OP_FFN], 101376.0, 1e-12);
    ops_build(m, &sh, &fp16, &b, &ops);
    assert_int_equal(ops.lowp_ops, 0);
    assert_rel_close(ops.a2a_lowp_save_bytes, 0.0, 0);
    catalog_free(&cat);
}

/* vLLM's FlashMLA sparse path (roofline_dsa_flop_scale, docs/model.md "DSA"): padded query heads
 * and every query's whole top-k list, as FLOPs over those the attention operator counts */
static void dsa_flashmla_padding_by_hand(void **state)
{
    (void)state;
    struct llmroof_oplist o;
    memset(&o, 0, sizeof o);
    /* two 2,048-token prompts, 16 heads a rank (TP 8), 16-bit cache, on Hopper: heads 16 -> 64
     * (x 4); valid pairs 2 x 2048 x 2049 / 2 = 4,196,352 against 4,096 x 2,048 = 8,388,608
     * computed: 4 x 8,388,608 / 4,196,352 = 7.99610 */
    o.tokens = 4096;
    o.attn_heads = 16;
    o.dsa_pairs = 4196352;
    o.dsa_full_pairs = 8388608;
    assert_rel_close(roofline_dsa_flop_scale(64, false, &o), 7.996096, 1e-6);
    /* Blackwell's 16-bit kernel pads to 128: x 8, 15.99219 */
    assert_rel_close(roofline_dsa_flop_scale(128, false, &o), 15.992191, 1e-6);
    /* fp8 cache, 64 heads a rank (TP 2), Blackwell, contexts past top-k (every pair valid): 100
     * decode tokens in the fp8 decode kernel (64 heads, none added), 900 prompt tokens in the
     * 16-bit one (128): (100 x 64 + 900 x 128) / (1,000 x 64) = 121,600 / 64,000 = 1.9 */
    o.kv_8bit = true;
    o.tokens = 1000;
    o.attn_heads = 64;
    o.dsa_decode_tokens = 100;
    o.dsa_pairs = o.dsa_full_pairs = 1000 * 2048.0;
    assert_rel_close(roofline_dsa_flop_scale(128, false, &o), 1.9, 1e-12);
    /* below 32 heads a rank every token runs the fp8 decode kernel at 64 heads: 16 -> 64, x 4 */
    o.attn_heads = 16;
    assert_rel_close(roofline_dsa_flop_scale(128, false, &o), 4.0, 1e-12);
    /* 128 heads a rank (TP 1) pad nothing */
    o.attn_heads = 128;
    assert_rel_close(roofline_dsa_flop_scale(128, false, &o), 1.0, 1e-12);
    /* no padding charged (another engine, a GPU FlashMLA does not run on), or no DSA */
    o.attn_heads = 16;
    assert_rel_close(roofline_dsa_flop_scale(0, false, &o), 1.0, 0);
    o.dsa_pairs = 0;
    assert_rel_close(roofline_dsa_flop_scale(64, false, &o), 1.0, 0);
    /* SGLang on Hopper pads the prompts' heads alone (prefill_only): 16 heads, 100 decodes at
     * 10,000 keys (100 x 2,048 = 204,800 valid pairs, their own heads) and 900 prompt tokens past
     * 10,000 keys (900 x 2,048 = 1,843,200, heads 16 -> 64): (16 x 204,800 + 64 x 900 x 2,048) /
     * (16 x 2,048,000) = 121,241,600 / 32,768,000 = 3.7 */
    memset(&o, 0, sizeof o);
    o.tokens = 1000;
    o.attn_heads = 16;
    o.dsa_decode_tokens = 100;
    o.dsa_decode_pairs = 204800;
    o.dsa_pairs = o.dsa_full_pairs = 2048000;
    assert_rel_close(roofline_dsa_flop_scale(64, true, &o), 3.7, 1e-12);
    /* decodes alone: nothing padded */
    o.dsa_decode_tokens = 1000;
    o.dsa_decode_pairs = 2048000;
    assert_rel_close(roofline_dsa_flop_scale(64, true, &o), 1.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_reduce_alpha_beta_by_hand),
        cmocka_unit_test(dsa_flashmla_padding_by_hand),
        cmocka_unit_test(all_reduce_protocols_by_hand),
        cmocka_unit_test(all_reduce_follows_measured_nccl_tables),
        cmocka_unit_test(op_time_is_max_of_compute_and_memory),
        cmocka_unit_test(missing_compute_dtype_is_an_input_error),
        cmocka_unit_test(short_k_gemms_run_below_the_catalog_rate),
        cmocka_unit_test(same_silicon_gives_the_same_step_time_at_tp_1),
        cmocka_unit_test(cross_node_all_reduce_runs_at_the_nics_of_a_node),
        cmocka_unit_test(normal_all_to_all_crosses_the_network_once_per_node),
        cmocka_unit_test(group_limited_routing_sends_a_token_to_fewer_gpus),
        cmocka_unit_test(two_batch_overlap_hides_the_all_to_all_under_compute),
        cmocka_unit_test(added_gpus_carry_the_sourced_overhead_and_efficiencies),
        cmocka_unit_test(masked_terms_are_the_whole_steps),
        cmocka_unit_test(fp8_attention_needs_an_fp8_kv_cache),
        cmocka_unit_test(nvfp4_checkpoint_runs_its_mlps_at_fp4_and_attention_at_bf16),
        cmocka_unit_test(block_fp8_checkpoint_runs_its_gemms_and_dispatch_at_fp8_where_the_gpu_has_the_path),
        cmocka_unit_test(graph_coverage_decides_the_launch_wait),
        cmocka_unit_test(vllm_v0_graphs_cover_decode_up_to_256),
        cmocka_unit_test(trtllm_pytorch_backend_runs_context_steps_eager),
        cmocka_unit_test(a_phase_whose_launches_set_its_time_is_cpu_bound),
        cmocka_unit_test(engine_use_ray_pays_the_remote_call_at_tp_1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
