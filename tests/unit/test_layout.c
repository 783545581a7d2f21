/* test_layout.c - pipeline and expert parallelism, MLA operators, multi-node collectives. */
#include "helpers.h"

#include "model/arch.h"
#include "model/comm.h"
#include "model/estimate.h"
#include "model/memory.h"
#include "model/ops.h"

static int shard(const struct llmroof_model *m, int tp, int pp, int ep, bool dp, struct llmroof_shard *sh,
                 struct llmroof_err *err)
{
    struct llmroof_layout l = { tp, pp, ep, dp, 1.0, false, 0, false, false, false };
    return ops_shard_layout(m, &l, sh, err);
}

static void layouts_that_do_not_divide_are_refused_with_the_constraint(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    /* 256 experts: EP 3 does not divide them */
    assert_int_equal(shard(ds, 1, 1, 3, true, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "does not divide the 256 experts"));
    /* EP on a dense model */
    assert_int_equal(shard(model(&cat, "llama-2-7b"), 1, 1, 2, true, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "dense"));
    /* EP 8 with TP 2 without data-parallel attention */
    assert_int_equal(shard(ds, 2, 1, 8, false, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "--dp-attention"));
    /* more stages than layers (61) */
    assert_int_equal(shard(ds, 1, 62, 1, false, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "61 layers"));
    /* an EP imbalance with no expert parallelism: TP 8 alone has no busiest expert rank */
    struct llmroof_layout imb = { 8, 1, 1, false, 2.0, false, 0, false, false, false };
    assert_int_equal(ops_shard_layout(ds, &imb, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "--ep-imbalance 2 needs --ep greater than 1"));
    imb.ep = 8; /* with EP 8 over the TP group it stands */
    assert_int_equal(ops_shard_layout(ds, &imb, &sh, &err), LLMROOF_OK);
    assert_rel_close(sh.ep_imbalance, 2.0, 0);
    /* a valid one: EP 8 data-parallel attention, PP 2 -> 16 GPUs, stages of 31 and 30 layers */
    assert_int_equal(shard(ds, 1, 2, 8, true, &sh, &err), LLMROOF_OK);
    assert_int_equal(sh.gpus, 16);
    assert_int_equal(sh.attn_dp, 8);
    assert_int_equal(sh.stage_layers_max, 31);
    assert_int_equal(sh.stage_layers_min, 30);
    catalog_free(&cat);
}

static void all_to_all_bytes_are_tokens_topk_hidden_dtype(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    assert_int_equal(shard(ds, 1, 1, 8, true, &sh, NULL), 0);
    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(64, 1000);
    struct llmroof_oplist o;
    ops_build(ds, &sh, &dt, &b, &o);
    /* 64 sequences over 8 attention replicas: 8 tokens per rank; message 8 * 8 (top-k) * 7168 * 2
     * = 917,504 bytes; dispatch + combine on each of the 58 MoE layers = 116 calls */
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, 917504.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].count, 116.0, 0);
    assert_int_equal(o.ep_ranks, 8);
    /* no TP: no all-reduce */
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].count, 0, 0);
    /* experts: 64*8/8 = 64 assignments per rank; FLOPs 2*64*7168*2048*3 = 5,637,144,576 plus the
     * replicated shared expert on the rank's 8 tokens 2*8*7168*2048*3 = 704,643,072 */
    assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 5637144576.0 + 704643072.0, 1e-12);
    /* dense leading layers: 3 */
    assert_rel_close(o.op[LLMROOF_OP_DENSE_FFN].count, 3.0, 0);
    catalog_free(&cat);
}

/* Data-parallel attention with attention TP inside each replica (-t 2 --ep 8: 4 replicas of 2
 * GPUs): a replica's attention-TP ranks split its tokens before the router and the dispatch
 * (SGLang's LayerCommunicator scatters the MoE input over the attention-TP group with DeepEP),
 * so each GPU still sends 64 / 8 = 8 tokens: the same 917,504-byte message as at -t 1 (8 x 8 x
 * 7168 x 2), not 2 x that, and the same replicated shared expert on 8 tokens
 * (2 x 8 x 7168 x 2048 x 3 = 704,643,072 FLOPs) beside the 64 routed assignments; and at -t 8
 * (one replica) as plain EP 8 would. Review 17b: every TP rank was charged its replica's whole
 * all-to-all and shared expert, so -t 8 --ep 8 --dp-attention came out 2.5x slower than EP 8. */
static void attention_tp_ranks_split_their_replicas_moe_tokens(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(64, 1000);
    const int tps[] = { 1, 2, 4, 8 };
    for (size_t i = 0; i < sizeof tps / sizeof tps[0]; i++) {
        struct llmroof_shard sh;
        assert_int_equal(shard(ds, tps[i], 1, 8, true, &sh, NULL), 0);
        assert_int_equal(sh.attn_dp, 8 / tps[i]);
        struct llmroof_oplist o;
        ops_build(ds, &sh, &dt, &b, &o);
        assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, 917504.0, 1e-12);
        assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 5637144576.0 + 704643072.0, 1e-12);
        /* the router on 8 tokens: 2 x 8 x 7168 x 256 = 29,360,128 FLOPs */
        assert_rel_close(o.op[LLMROOF_OP_ROUTER].flops, 29360128.0, 1e-12);
    }
    catalog_free(&cat);
    (void)state;
}

/* Two-batch overlap needs two non-empty micro-batches per replica (review 17b): DeepSeek-V3, EP 8
 * with data-parallel attention over 8 replicas. 8 decodes: one sequence per replica, nothing to
 * split, so nothing hides; 16 decodes: two per replica, the all-to-all hides; one 512-token
 * prompt: 64 tokens per replica, split by tokens, hides. */
static void two_batch_overlap_needs_two_micro_batches(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_err err = { 0 };
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_layout lay = { 1, 1, 8, true, 1.0, true, 0, false, false, false };
    struct llmroof_shard sh;
    assert_int_equal(ops_shard_layout(ds, &lay, &sh, &err), 0);
    struct llmroof_oplist o;
    struct llmroof_batch b = batch_decode(8, 1000);
    ops_build(ds, &sh, &dt, &b, &o);
    assert_false(o.a2a_overlap);
    b = batch_decode(16, 1000);
    ops_build(ds, &sh, &dt, &b, &o);
    assert_true(o.a2a_overlap);
    b = batch_prefill(1, 512, &sh.few);
    ops_build(ds, &sh, &dt, &b, &o);
    assert_true(o.a2a_overlap);
    catalog_free(&cat);
    (void)state;
}

static void mla_decode_runs_absorbed_over_the_latent(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    assert_int_equal(shard(ds, 8, 1, 1, false, &sh, NULL), 0);
    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(1, 4096);
    struct llmroof_oplist o;
    ops_build(ds, &sh, &dt, &b, &o);
    assert_true(o.mla_absorbed);
    /* 16 heads per rank; per pair 2*16*(2*512 + 64) = 34,816 FLOP; 4096 pairs = 142,606,336 */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 142606336.0, 0);
    /* bytes: q 16*576*2 = 18,432 + out 16*512*2 = 16,384 + latent 4096*576*2 = 4,718,592
     * (the latent is read once for all 16 heads: the whole cache, replicated per TP rank) */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].bytes, 18432.0 + 16384.0 + 4718592.0, 0);
    /* absorbed kv_b: 2*1*16*512*256 = 4,194,304 FLOP; weight 512*16*256 = 2,097,152 bytes at fp8 */
    assert_rel_close(o.op[LLMROOF_OP_MLA_KV_UP].flops, 4194304.0, 0);
    /* prefill decompresses: 2 * keys * 512 * 16 * 256 per layer */
    struct llmroof_batch p = batch_prefill(1, 1024, &sh.few);
    ops_build(ds, &sh, &dt, &p, &o);
    assert_false(o.mla_absorbed);
    assert_rel_close(o.op[LLMROOF_OP_MLA_KV_UP].flops, 2.0 * 1024 * 512 * 16 * 256, 0);
    catalog_free(&cat);
}

static void mla_cache_does_not_shrink_with_tp(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_mem_opts o = memory_default_opts();
    struct llmroof_memory m1, m8;
    struct llmroof_err err = { 0 };
    struct llmroof_layout l8 = { 8, 1, 1, false, 1.0, false, 0, false, false, false };
    assert_int_equal(memory_eval_layout(ds, gpu(&cat, "h200"), &l8, &dt, 1000, &o, &m8, &err), 0);
    /* 70,272 bytes per token on every rank: 61 * 576 * 2 */
    assert_rel_close(m8.kv_bytes_per_token, 70272.0, 0);
    assert_rel_close(m8.kv_bytes_per_token_per_gpu, 70272.0, 0);
    /* PP 2: the fuller stage holds 31 layers: 31 * 576 * 2 = 35,712 */
    struct llmroof_layout l2 = { 8, 2, 1, false, 1.0, false, 0, false, false, false };
    assert_int_equal(memory_eval_layout(ds, gpu(&cat, "h200"), &l2, &dt, 1000, &o, &m1, &err), 0);
    assert_rel_close(m1.kv_bytes_per_token_per_gpu, 35712.0, 0);
    assert_true(m1.weights_bytes_per_gpu < 0.56 * m8.weights_bytes_per_gpu);
    catalog_free(&cat);
}

static void expert_parallel_weights_hold_a_share_of_the_experts(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    assert_int_equal(shard(ds, 1, 1, 8, true, &sh, NULL), 0);
    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    /* fp8, 1 byte: routed experts 58 * 32 * 44,040,192 = 81,738,596,352; the rest is replicated:
     * attention 11,413,547,008 + shared 58 * 44,040,192 = 2,554,331,136 + dense 3 * 396,361,728
     * = 1,189,085,184 + norms 61*2*7168 + 7168 = 881,664; in bf16, as the checkpoint ships them,
     * routers 58 * 1,835,008 * 2 = 212,860,928 and embedding and head 2 * 926,679,040 * 2 =
     * 3,706,716,160 -> 100,816,018,432 bytes (98,856,229,888 with those at 1 byte) */
    assert_rel_close(memory_weights_layout(ds, &sh, &dt), 100816018432.0, 1e-12);
    catalog_free(&cat);
}

static void network_collectives_by_hand(void **state)
{
    const struct llmroof_link_model nvl = { 450e9, 1.0, 5e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 },
                                    ib = { 50e9, 1.0, 10e-6, 0.0, COMM_PROTO_NONE, 0, 0, 0, 0, 0 };
    /* all-to-all of 1 MB over 16 ranks, 8 per domain: intra 7/16 MB at 450 GB/s = 0.972 us,
     * network 8/16 MB at 50 GB/s = 10 us; latency 10 us -> 20 us */
    assert_rel_close(comm_alltoall_s(&nvl, &ib, 16, 8, 1e6), 10e-6 + 10e-6, 1e-12);
    /* inside one domain: 5 us + 7/8 MB / 450 GB/s */
    assert_rel_close(comm_alltoall_s(&nvl, &ib, 8, 8, 1e6), 5e-6 + 0.875e6 / 450e9, 1e-12);
    /* all-reduce of 8 MB over 16 = 2 nodes x 8, pipelined (comm.h): latency 5 + 10 us plus the
     * steps: NCCL's tree, 2 x 7 intra steps of 0 us and 2 x log2(2) levels of 5 us = 10 us (its
     * ring: 2 x (16 - 2) = 28 intra steps at the inter-node ring's 1 us floor = 28 us);
     * 2*15/16*8 MB = 15 MB at min(450, 8 x 50 = 400 GB/s) = 37.5 us -> 62.5 us */
    assert_rel_close(comm_allreduce_hier_s(&nvl, &ib, 16, 8, 8e6), 5e-6 + 10e-6 + 10e-6 + 15e6 / 400e9, 1e-12);
    /* 3 boundaries of 4 stages of 4 GPUs, 8 per domain: stages 1-2 and 3-4 share a node, 1
     * boundary crosses: 1 * (10 us + 1 MB/50 GB/s) + 2 * (5 us + 1 MB/450 GB/s) */
    assert_rel_close(comm_pp_sends_s(&nvl, &ib, 8, 4, 3, 1e6), 30e-6 + 2.0 * (5e-6 + 1e6 / 450e9), 1e-12);
}

static void pipeline_decode_is_the_sum_of_stages_and_sends(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_gpu *g = gpu(&cat, "h200");
    struct llmroof_setup s = { model(&cat, "llama-2-70b"), g, 4, { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false },
                               roofline_default_effs(g), { 0 } };
    struct llmroof_request r = { 8, 512, 64 };
    struct llmroof_estimate e1, e2;
    struct llmroof_err err = { 0 };
    assert_int_equal(estimate_run(&s, &r, &e1, &err), 0);
    s.layout.pp = 2;
    assert_int_equal(estimate_run(&s, &r, &e2, &err), 0);
    /* 2 micro-batches of 4: one pass of 4 sequences over all 80 layers + 1 send */
    assert_rel_close(e2.micro_batches, 2.0, 0);
    assert_true(e2.decode_ops.op[LLMROOF_OP_PP_SEND].count == 1.0);
    assert_true(e2.tpot_s < e1.tpot_s * 1.05);            /* weights dominate: a pass of 4 ~ of 8 */
    assert_rel_close(e2.decode_tok_s, 8.0 / e2.tpot_s, 1e-12);
    /* bubble: one 40-layer stage of the first micro-batch's prefill */
    assert_true(e2.pp_bubble_s > 0 && e2.ttft_s > e2.prefill.time_s);
    catalog_free(&cat);
}

/* Micro-batches are whole sequences and pass the busiest stage in turn (the simulator's pipeline
 * lanes). Llama-3.1-8B's 32 layers in 6 stages are 6, 6, 5, 5, 5, 5; a stage's share of a pass is
 * its share of the weights it reads (memory_stage_shares). A layer holds 218,112,000 weights
 * (q 16,777,216 + k, v 4,194,304 each + o 16,777,216 + MLP 3 x 58,720,256 + norms 8,192):
 * 436,224,000 B at fp16; the LM head 128,256 x 4096 x 2 = 1,050,673,152 B and the final norm
 * 8,192 B sit on the last stage, the embedding (looked up, not read) on the first. The pass reads
 * 32 x 436,224,000 + 1,050,681,344 = 15,009,849,344 B, the last stage 5 x 436,224,000 +
 * 1,050,681,344 = 3,231,801,344 B (0.2153), more than a 6-layer stage's 2,617,344,000 (0.1744):
 * with 6 busy micro-batches a token of each takes 6 x 0.2153 = 1.2919 of a pass (less the
 * sends), above one pass (by layer count alone, 6 x 6/32 = 1.125).
 * B = 3 over 2 stages: micro-batches of 2 and 1, the pipeline's pace that of 2, as at B = 4. */
static void pipeline_micro_batches_are_whole_and_the_fullest_stage_paces_them(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_gpu *g = gpu(&cat, "a100-sxm4-80gb");
    struct llmroof_setup s = { model(&cat, "llama-3.1-8b"), g, 1, { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false },
                               roofline_default_effs(g), { 0 } };
    s.layout.pp = 6;
    struct llmroof_request r = { 16, 512, 64 };
    struct llmroof_estimate e;
    struct llmroof_err err = { 0 };
    assert_int_equal(estimate_run(&s, &r, &e, &err), 0);
    const double pass = e.decode.time_s, sends = e.decode.op[LLMROOF_OP_PP_SEND].time_s;
    assert_rel_close(e.tpot_s, 6.0 * 3231801344.0 / 15009849344.0 * (pass - sends), 1e-12);
    assert_true(e.tpot_s > pass);
    /* a prompt runs the head on its last token alone: without it the stages are 6, 6, 5, 5, 5, 5
     * layers' weights, the busiest 6/32 of the pass, and the 5 micro-batches behind the first
     * wait that long each (the bubble) */
    const double pre = e.prefill.time_s - e.prefill.op[LLMROOF_OP_PP_SEND].time_s;
    assert_rel_close(e.pp_bubble_s, 5.0 * 6.0 / 32.0 * pre, 1e-12);
    s.layout.pp = 2;
    struct llmroof_request r3 = { 3, 512, 64 }, r4 = { 4, 512, 64 };
    struct llmroof_estimate e3, e4;
    assert_int_equal(estimate_run(&s, &r3, &e3, &err), 0);
    assert_int_equal(estimate_run(&s, &r4, &e4, &err), 0);
    assert_rel_close(e3.tpot_s, e4.tpot_s, 1e-12);
    assert_rel_close(e3.decode_tok_s, 3.0 / e3.tpot_s, 1e-12);
    catalog_free(&cat);
}

/* A NAS model's stages differ where their layer counts do not: Nemotron-Ultra-253B's 162 layers in
 * 4 stages are 41, 41, 40, 40, but the last 40 hold its widest MLPs (ffn widths up to 425,984 a
 * layer) and the LM head: about 39% of the weights a pass reads, not 40/162 = 24.7% (the review's
 * per-stage sums 47.3, 59.5, 44.9 and 97.6 B decoder weights). The busiest stage paces 4
 * micro-batches: TPOT = 4 x its share x (pass - sends), about 55 ms at fp8 on 2 H200s a stage
 * where the layer count gave 35. */
static void uneven_stages_pace_the_pipeline_by_their_weights(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_gpu *g = gpu(&cat, "h200");
    struct llmroof_setup s = { model(&cat, "llama-3.1-nemotron-ultra-253b"), g, 2,
                               { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                 LLMROOF_ACT_QUANT_SEPARATE, false },
                               roofline_default_effs(g), { 0 } };
    s.layout.pp = 4;
    struct llmroof_layout lay = s.layout;
    lay.tp = 2;
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard_layout(s.model, &lay, &sh, &err), 0);
    double share[4];
    memory_stage_shares(s.model, &sh, &s.dt, true, share);
    assert_rel_close(share[0] + share[1] + share[2] + share[3], 1.0, 1e-12);
    assert_true(share[3] > 0.37 && share[3] < 0.41);
    assert_true(share[3] > share[0] && share[3] > share[1] && share[3] > share[2]);
    struct llmroof_request r = { 4, 1024, 64 };
    struct llmroof_estimate e;
    assert_int_equal(estimate_run(&s, &r, &e, &err), 0);
    const double pass = e.decode.time_s, sends = e.decode.op[LLMROOF_OP_PP_SEND].time_s;
    assert_rel_close(e.tpot_s, 4.0 * share[3] * (pass - sends), 1e-12);
    assert_true(e.tpot_s > 0.050 && e.tpot_s < 0.060);
    catalog_free(&cat);
}

static void expert_parallel_over_the_tp_group_combines_by_all_reduce(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *mx = model(&cat, "mixtral-8x22b");
    struct llmroof_shard sh;
    assert_int_equal(shard(mx, 8, 1, 8, false, &sh, NULL), 0);
    assert_int_equal(sh.gpus, 8);
    struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(16, 2048);
    struct llmroof_oplist o;
    ops_build(mx, &sh, &dt, &b, &o);
    /* no all-to-all; all-reduce after attention and after each MoE layer: 56 + 56 + 1 = 113 */
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].count, 0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].count, 113.0, 0);
    /* one whole expert per rank: 16 tokens x top-2 / 8 ranks = 4 assignments;
     * FLOPs 2 * 4 * 6144 * 16384 * 3 = 2,415,919,104 */
    assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 2415919104.0, 1e-12);
    /* distinct experts touched per rank: 8 (1 - (6/8)^16) / 8 = 0.98998 */
    assert_rel_close(o.experts_hit, 1.0 - pow(0.75, 16), 1e-12);
    catalog_free(&cat);
}

/* --moe-tp 8 --dp-attention (SGLang 0.4's DP attention, vLLM's DP without EP): 8 attention
 * replicas of TP 1, every expert and dense MLP split 8 ways by width, fed every replica's tokens */
static void experts_split_by_width_under_dp_attention_see_every_replica_s_tokens(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *v2 = model(&cat, "deepseek-v2");
    struct llmroof_shard sh, tp8;
    struct llmroof_err err = { 0 };
    struct llmroof_layout l = { .tp = 1, .pp = 1, .ep = 1, .dp_attn = true, .moe_tp = 8 };
    assert_int_equal(ops_shard_layout(v2, &l, &sh, &err), LLMROOF_OK);
    assert_int_equal(sh.gpus, 8);
    assert_int_equal(sh.attn_dp, 8);
    assert_int_equal(sh.moe_tp, 8);
    assert_true(sh.mlp_gather);
    assert_int_equal(sh.heads_per_rank, 128);                 /* attention whole on its replica */
    assert_rel_close(sh.moe_intermediate_per_rank, 192, 0);   /* 1,536 / 8 */
    assert_rel_close(sh.intermediate_per_rank, 1536, 0);      /* 12,288 / 8 */
    assert_int_equal(ops_layout_stage_gpus(&l, 1), 8);
    assert_int_equal(ops_layout_attn_dp(&l, 1), 8);

    struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(64, 1000); /* 8 sequences a replica */
    struct llmroof_oplist o;
    ops_build(v2, &sh, &dt, &b, &o);
    assert_rel_close(o.tokens, 8, 0); /* attention: the replica's */
    /* the MLPs: all 64 tokens. Router 2 x 64 x 5,120 x 160 = 104,857,600 FLOP in each of 59 MoE layers */
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].flops, 104857600.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].count, 59, 0);
    /* 6 routed + 2 shared experts a token at 192 wide: 2 x 64 x 5,120 x 192 x 3 x 8 = 3,019,898,880 */
    assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 3019898880.0, 1e-12);
    /* experts hit by 64 tokens' 6 picks of 160: 160 (1 - (154/160)^64) */
    assert_rel_close(o.experts_hit, 160.0 * (1.0 - pow(154.0 / 160.0, 64)), 1e-12);
    /* the first layer's dense MLP at 1,536 wide: 2 x 64 x 5,120 x 1,536 x 3 = 3,019,898,880 */
    assert_rel_close(o.op[LLMROOF_OP_DENSE_FFN].flops, 3019898880.0, 1e-12);
    /* one gather and scatter per MLP layer (59 + 1) of 64 x 5,120 x 2 B = 655,360 B; no
     * all-to-all, no all-reduce (TP 1 a replica) */
    assert_rel_close(o.op[LLMROOF_OP_MLP_GATHER].count, 60, 0);
    assert_rel_close(o.op[LLMROOF_OP_MLP_GATHER].comm_bytes, 655360.0, 0);
    assert_int_equal(o.mlp_ranks, 8);
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].count, 0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].count, 0, 0);

    /* replicas of unequal load (one with 2 decodes, seven with 1: 9 in all): the MLPs run on the
     * 9 real tokens (router 2 x 9 x 5,120 x 160), the gather at the busiest replica's size on every
     * replica (vLLM pads each DP rank to the largest: 8 x 2 x 5,120 x 2 B = 163,840 B) */
    const struct llmroof_batch busy = batch_decode(2, 1000), all9 = batch_decode(9, 1000), one = batch_decode(1, 1000);
    estimate_ops_replicas(v2, &sh, &dt, &busy, &all9, &one, &o);
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].flops, 2.0 * 9 * 5120 * 160, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_DENSE_FFN].flops, 2.0 * 9 * 5120 * 1536 * 3, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_MLP_GATHER].comm_bytes, 163840.0, 0);
    assert_rel_close(o.tokens, 2, 0); /* attention: the busiest replica's */

    /* weights on a GPU against TP 8: the MLPs alike (both split 8 ways), the attention's sharded
     * matrices whole (q_b 1,536 x 128 x 192 + kv_b 512 x 128 x 256 + o 128 x 128 x 5,120 =
     * 138,412,032 a layer, 7/8 of it more, x 60 layers at 1 B = 7,266,631,680) and the 16-bit
     * embedding and head whole (2 x 102,400 x 5,120 x 2 B x 7/8 = 1,835,008,000): 9,101,639,680 B */
    assert_int_equal(ops_shard_layout(v2, &(struct llmroof_layout){ .tp = 8, .pp = 1, .ep = 1 }, &tp8, &err), LLMROOF_OK);
    assert_rel_close(memory_weights_layout(v2, &sh, &dt) - memory_weights_layout(v2, &tp8, &dt), 9101639680.0, 1e-9);

    /* an engine that keeps the shared experts and the dense layers on each replica (vLLM V1's
     * moe_tp_shared_local): only the routed experts gather. The router runs on the replica's 8
     * tokens (2 x 8 x 5,120 x 160 = 13,107,200 FLOP a layer); the FLOPs of the MLPs stay (the
     * routed 2 x 64 x 6 x 5,120 x 192 x 3 = 2,264,924,160 + the shared 2 x 8 x 5,120 x 3,072 x 3 =
     * 754,974,720; the dense 2 x 8 x 5,120 x 12,288 x 3 = 3,019,898,880); 59 gathers, no dense one;
     * weights 2,601,123,840 B more a GPU: the shared experts (2 x 1,536 x 3 x 5,120 x 59 =
     * 2,783,969,280) and the dense layer (3 x 5,120 x 12,288 = 188,743,680) whole, not an eighth:
     * 7/8 of 2,972,712,960 at 1 B */
    struct llmroof_shard shl;
    l.shared_local = true;
    assert_int_equal(ops_shard_layout(v2, &l, &shl, &err), LLMROOF_OK);
    assert_true(shl.mlp_shared_local);
    assert_rel_close(shl.moe_intermediate_per_rank, 192, 0);
    assert_rel_close(shl.shared_intermediate_per_rank, 1536, 0);
    assert_rel_close(shl.intermediate_per_rank, 12288, 0);
    ops_build(v2, &shl, &dt, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].flops, 13107200.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 2264924160.0 + 754974720.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_DENSE_FFN].flops, 3019898880.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_MLP_GATHER].count, 59, 0);
    assert_rel_close(memory_weights_layout(v2, &shl, &dt) - memory_weights_layout(v2, &sh, &dt), 2601123840.0, 1e-9);
    l.shared_local = false;
    /* the engine sets it: estimate_layout from the setup's efficiencies */
    struct llmroof_setup su = { .model = v2, .tp = 1, .layout = { .tp = 1, .pp = 1, .ep = 1, .dp_attn = true, .moe_tp = 8 } };
    assert_false(estimate_layout(&su).shared_local);
    su.eff.moe_tp_shared_local = true;
    assert_true(estimate_layout(&su).shared_local);
    su.layout.moe_tp = 0; /* no --moe-tp: nothing to keep local */
    assert_false(estimate_layout(&su).shared_local);

    /* refused, naming the constraint */
    l.ep = 8;
    assert_int_equal(ops_shard_layout(v2, &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "not both"));
    l.ep = 1;
    l.dp_attn = false;
    assert_int_equal(ops_shard_layout(v2, &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "--moe-tp 8 needs --dp-attention"));
    l.dp_attn = true;
    l.tp = 16;
    assert_int_equal(ops_shard_layout(v2, &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "TP 16 to divide --moe-tp 8"));
    l.tp = 1;
    assert_int_equal(ops_shard_layout(model(&cat, "llama-2-7b"), &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "dense"));
    /* a width the ranks cannot split evenly (engines split it evenly: vLLM's divide(), SGLang's
     * intermediate_size_per_partition): Mixtral's 14,336-wide experts over 6 (2,389.33 a rank),
     * Qwen3-30B-A3B's 768 over 1,024 (0.75 a rank), DeepSeek-V3's 2,048 over 3; and the dense
     * layers' MLP: DeepSeek-V2-Lite's experts (1,408) split 128 ways (11), its first layer's dense
     * 10,944 not (85.5) */
    l.moe_tp = 6;
    assert_int_equal(ops_shard_layout(model(&cat, "mixtral-8x7b"), &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "--moe-tp 6 does not divide"));
    assert_non_null(strstr(err.msg, "14336"));
    l.moe_tp = 1024;
    assert_int_equal(ops_shard_layout(model(&cat, "qwen3-30b-a3b"), &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "768"));
    l.moe_tp = 3;
    assert_int_equal(ops_shard_layout(model(&cat, "deepseek-v3"), &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "2048"));
    l.moe_tp = 128;
    assert_int_equal(ops_shard_layout(model(&cat, "deepseek-v2-lite"), &l, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "10944"));
    l.moe_tp = 12;
    assert_int_equal(ops_shard_layout(v2, &l, &sh, &err), LLMROOF_OK); /* 1,536 / 12 and 12,288 / 12 */
    catalog_free(&cat);
}

static void windowed_layers_attend_to_the_window_only(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *g = model(&cat, "gpt-oss-120b");
    struct llmroof_shard sh;
    assert_int_equal(shard(g, 1, 1, 1, false, &sh, NULL), 0);
    struct llmroof_dtypes dt = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = batch_decode(4, 10000);
    struct llmroof_oplist o;
    ops_build(g, &sh, &dt, &b, &o);
    /* 18 global layers see 10000 keys, 18 local layers 128: FLOPs 4 * 64 * 64 heads * pairs */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].count, 18.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ATTN_LOCAL].count, 18.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 4.0 * 64 * 64 * 4 * 10000, 0);
    assert_rel_close(o.op[LLMROOF_OP_ATTN_LOCAL].flops, 4.0 * 64 * 64 * 4 * 128, 0);
    /* local KV read: 4 sequences x 128 keys x 8 KV heads x 64 x 2 (K, V) x 2 bytes */
    assert_rel_close(o.op[LLMROOF_OP_ATTN_LOCAL].bytes, 2.0 * 4 * 64 * 64 * 2 + 2.0 * 4 * 128 * 8 * 64 * 2, 0);
    catalog_free(&cat);
}

/* SGLang's LM head under data-parallel attention (engine dp_lm_head_split, without
 * --enable-dp-lm-head) is vocabulary-parallel over every GPU of the stage: DeepSeek-V3 fp8 on 8
 * GPUs at -t 1 --ep 8 --dp-attention holds 129,280 / 8 = 16,160 rows a GPU, 7,168 x 16,160 x 2 B =
 * 231,669,760 B of bf16 head where each replica's own held 1,853,358,080 (1,621,688,320 B less
 * weights a GPU). A decode step of 64 sequences (8 a replica) computes every replica's 64 rows at
 * the slice: 2 x 64 x 7,168 x 16,160 = 14,826,864,640 FLOPs (the same as 8 rows of the whole head),
 * reading 231,669,760 + 64 x 7,168 x 2 (rows) + 64 x 16,160 x 2 (logits) = 234,655,744 B; two
 * all-gathers over the 8 GPUs, the rows (917,504 B) and the logits (64 x 129,280 x 2 = 16,547,840
 * B), counted as 2 of their mean 8,732,672 B. A tied head is the replicated embedding: whole. */
static void sglang_splits_the_lm_head_over_the_replicas(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_layout l = { .tp = 1, .pp = 1, .ep = 8, .dp_attn = true, .lm_head_split = true };
    struct llmroof_shard split, own;
    assert_int_equal(ops_shard_layout(ds, &l, &split, NULL), 0);
    assert_rel_close(split.lm_vocab_per_rank, 16160.0, 0);
    assert_int_equal(split.lm_ranks, 8);
    assert_rel_close(split.vocab_per_rank, 129280.0, 0); /* the embedding stays whole */
    l.lm_head_split = false;
    assert_int_equal(ops_shard_layout(ds, &l, &own, NULL), 0);
    assert_rel_close(memory_weights_layout(ds, &own, &dt) - memory_weights_layout(ds, &split, &dt), 1621688320.0, 1e-12);
    struct llmroof_batch b = batch_decode(64, 1000);
    struct llmroof_oplist o;
    ops_build(ds, &split, &dt, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].flops, 14826864640.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 234655744.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].count, 2.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].comm_bytes, 8732672.0, 1e-12);
    assert_int_equal(o.lm_ranks, 8);
    ops_build(ds, &own, &dt, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].flops, 14826864640.0, 1e-12); /* 8 rows x 129,280 */
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].count, 0.0, 0);
    assert_int_equal(o.lm_ranks, 0);
    /* a tied head is the embedding, whole on each replica */
    struct llmroof_model tied = *ds;
    tied.tied_embeddings = true;
    l.lm_head_split = true;
    assert_int_equal(ops_shard_layout(&tied, &l, &split, NULL), 0);
    assert_rel_close(split.lm_vocab_per_rank, 129280.0, 0);
    assert_int_equal(split.lm_ranks, 0);
    catalog_free(&cat);
}

/* The drafters beside SGLang's split head (Qwen3-30B-A3B, h 2,048, V 151,936 untied, fp16, at
 * -t 1 --ep 4 --dp-attention: 4 replicas, the head's 37,984 rows a GPU; 64 decoding sequences,
 * 16 a replica):
 * - Medusa's heads are each replica's own (ops_medusa_bytes holds 4 x (2,048^2 x 2 + 2,048 x
 *   151,936 x 2) = 4 x 630,718,464 = 2,522,873,856 B): a head reads 2,048 x 151,936 x 2 =
 *   622,329,856 + its 16 rows 65,536 + their logits 16 x 151,936 x 2 = 4,861,952: 627,257,344 B
 *   for 2 x 16 x 2,048 x 151,936 = 9,957,277,696 FLOP, and gathers nothing at TP 1. (It had read
 *   the split head's 160,706,560 B for all 64 rows.)
 * - an EAGLE-3 head (32,000 tokens, f = 32,000 / 151,936) splits its own head as the target's:
 *   memory beyond its layer and fc 2,048 x 5,120 x 2 (q/k/v's second input: (32 + 2 x 4) x 128
 *   wide) = 20,971,520 + 2,048 x 32,000 / 4 x 2 = 32,768,000: 53,739,520 B (it had held the
 *   whole 131,072,000: 151,943,520; the fc, 3 x 2,048^2 x 2, is ops_eagle_fc_bytes'), the
 *   32,768,000 its LM head reads; the gathers carry the
 *   64 rows whole and the logits at f: message 0.5 x (64 x 2,048 x 2 + 64 x 32,000 x 2) =
 *   131,072 + 2,048,000 = 2,179,072 (f x the whole message had been 2,075,520). */
static void drafters_beside_sglangs_split_head(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "qwen3-30b-a3b");
    const struct llmroof_dtypes dt = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false,
                                       LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_layout l = { .tp = 1, .pp = 1, .ep = 4, .dp_attn = true, .lm_head_split = true };
    struct llmroof_shard sh;
    assert_int_equal(ops_shard_layout(m, &l, &sh, NULL), 0);
    assert_rel_close(sh.lm_vocab_per_rank, 37984.0, 0);
    const struct llmroof_batch b = batch_decode(64, 1000);
    struct llmroof_oplist o;
    ops_build_draft(m, &sh, &dt, &b, 4, NULL, &o);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].count, 4.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 627257344.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].flops, 9957277696.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].count, 0.0, 0);
    assert_int_equal(o.lm_ranks, 0);
    assert_rel_close(ops_medusa_bytes(m, &sh, &dt, 4), 2522873856.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_FFN].count * o.op[LLMROOF_OP_FFN].wbytes +
                         o.op[LLMROOF_OP_LM_HEAD].count * 2048.0 * 151936.0 * 2.0,
                     ops_medusa_bytes(m, &sh, &dt, 4), 1e-12);
    assert_rel_close(ops_eagle3_extra_bytes(m, &sh, &dt, 32000), 53739520.0, 1e-12);
    const struct ops_head e3 = ops_head_shape(m, 32000, false, true);
    ops_build_draft(m, &sh, &dt, &b, 0, &e3, &o);
    assert_int_equal(o.lm_ranks, 4);
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].count, 2.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].comm_bytes, 2179072.0, 1e-12);
    /* the head's weights read, 32,768,000 of its 34,054,144 B (+ the rows 262,144 and the
     * logits 64 x 8,000 x 2 = 1,024,000), are those memory holds */
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 34054144.0, 1e-12);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layouts_that_do_not_divide_are_refused_with_the_constraint),
        cmocka_unit_test(all_to_all_bytes_are_tokens_topk_hidden_dtype),
        cmocka_unit_test(attention_tp_ranks_split_their_replicas_moe_tokens),
        cmocka_unit_test(two_batch_overlap_needs_two_micro_batches),
        cmocka_unit_test(mla_decode_runs_absorbed_over_the_latent),
        cmocka_unit_test(mla_cache_does_not_shrink_with_tp),
        cmocka_unit_test(expert_parallel_weights_hold_a_share_of_the_experts),
        cmocka_unit_test(network_collectives_by_hand),
        cmocka_unit_test(pipeline_decode_is_the_sum_of_stages_and_sends),
        cmocka_unit_test(pipeline_micro_batches_are_whole_and_the_fullest_stage_paces_them),
        cmocka_unit_test(uneven_stages_pace_the_pipeline_by_their_weights),
        cmocka_unit_test(expert_parallel_over_the_tp_group_combines_by_all_reduce),
        cmocka_unit_test(windowed_layers_attend_to_the_window_only),
        cmocka_unit_test(experts_split_by_width_under_dp_attention_see_every_replica_s_tokens),
        cmocka_unit_test(sglang_splits_the_lm_head_over_the_replicas),
        cmocka_unit_test(drafters_beside_sglangs_split_head),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
