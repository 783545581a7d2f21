/* test_ops.c - operator FLOPs, bytes and messages against hand arithmetic. */
#include "helpers.h"

#include <math.h>

#include "model/ops.h"

static const struct llmroof_dtypes FP16 = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };

static void build(const struct llmroof_model *m, int tp, struct llmroof_batch b, struct llmroof_oplist *o)
{
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, tp, &sh, &err), 0);
    ops_build(m, &sh, &FP16, &b, o);
}

static void llama_13b_tp8_all_reduce_bytes_per_layer(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_oplist o;
    build(model(&cat, "llama-13b"), 8, batch_decode(1, 100), &o);
    /* one decode token: message = T * hidden * 2 B = 1 * 5120 * 2 = 10,240 B per all-reduce;
     * two per layer (after attention, after the MLP) = 20,480 B per layer;
     * 40 layers * 2 + 1 (vocabulary-parallel embedding) = 81 all-reduces */
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].comm_bytes, 10240.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].count, 81.0, 0);
    assert_rel_close(2.0 * o.op[LLMROOF_OP_ALL_REDUCE].comm_bytes, 20480.0, 0);
    /* logits gather: 1 row * 32000 * 2 B = 64,000 B */
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].comm_bytes, 64000.0, 0);
    catalog_free(&cat);
}

static void tp1_has_no_collectives(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_oplist o;
    build(model(&cat, "llama-2-70b"), 1, batch_decode(8, 1000), &o);
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].count, 0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_GATHER].count, 0, 0);
    catalog_free(&cat);
}

static void llama_2_70b_gqa_decode_reads_8_kv_heads(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_oplist o;
    build(model(&cat, "llama-2-70b"), 1, batch_decode(1, 1000), &o);
    /* per layer: Q read + O write = 2 * 1 * 64 heads * 128 * 2 B = 32,768 B;
     * K and V of 1000 tokens over 8 KV heads = 2 * 1000 * 8 * 128 * 2 B = 4,096,000 B */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].bytes, 32768.0 + 4096000.0, 0);
    /* FLOPs: 4 * head_dim * heads * pairs = 4 * 128 * 64 * 1000 = 32,768,000 */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 32768000.0, 0);
    /* TP 8: one KV head per rank, 1/8 of the reads (not replicated) */
    build(model(&cat, "llama-2-70b"), 8, batch_decode(1, 1000), &o);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].bytes, 32768.0 / 8 + 4096000.0 / 8, 0);
    catalog_free(&cat);
}

static void kv_heads_below_tp_are_replicated(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(model(&cat, "llama-2-70b"), 16, &sh, &err), 0);
    assert_true(sh.kv_replicated);
    assert_int_equal(sh.kv_heads_per_rank, 1);
    assert_int_equal(sh.heads_per_rank, 4);
    assert_int_equal(ops_shard(model(&cat, "llama-2-70b"), 8, &sh, &err), 0);
    assert_false(sh.kv_replicated);
    assert_int_equal(ops_shard(model(&cat, "qwen2.5-1.5b"), 4, &sh, &err), 0); /* 2 KV heads, TP 4 */
    assert_true(sh.kv_replicated);
    catalog_free(&cat);
}

static void tp_must_divide_the_heads(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(model(&cat, "internlm-20b"), 3, &sh, &err), LLMROOF_EINPUT);
    assert_string_equal(err.msg, "model 'internlm-20b' has 40 attention heads, which TP 3 does not divide");
    /* Qwen2.5-7B: 28 heads, 4 KV heads; TP 14 divides 28 but neither divides the other with 4 */
    assert_int_equal(ops_shard(model(&cat, "qwen2.5-7b"), 14, &sh, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "4 KV heads"));
    catalog_free(&cat);
}

static void prefill_projection_flops(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_oplist o;
    build(model(&cat, "llama-2-7b"), 1, batch_prefill(2, 512, OPS_FEW_GENERIC), &o);
    /* T = 2*512 = 1024 tokens; qkv: 2 * T * 4096 * (32+2*32)*128 = 2*1024*4096*12288 = 103,079,215,104 */
    assert_rel_close(o.op[LLMROOF_OP_QKV_PROJ].flops, 103079215104.0, 0);
    /* attention: causal pairs per sequence 512*513/2 = 131,328; x2 sequences; 4*128*32 per pair
     * = 262,656 * 16,384 = 4,303,355,904 */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 4303355904.0, 0);
    /* LM head only for the last position: 2 * 2 rows * 4096 * 32000 = 524,288,000 */
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].flops, 524288000.0, 0);
    /* gated FFN: 3 matrices of 4096x11008: 2*1024*4096*11008*3 = 277,025,390,592 */
    assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 277025390592.0, 0);
    catalog_free(&cat);
}

static void moe_touches_fewer_experts_at_batch_1_than_at_64(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_oplist o1, o64;
    build(model(&cat, "mixtral-8x7b"), 1, batch_decode(1, 512), &o1);
    build(model(&cat, "mixtral-8x7b"), 1, batch_decode(64, 512), &o64);
    /* one token, top-2 of 8: exactly 8*(1-(6/8)^1) = 2 experts */
    assert_rel_close(o1.experts_hit, 2.0, 1e-12);
    /* 64 tokens: 8*(1-0.75^64) = 7.99999... */
    assert_rel_close(o64.experts_hit, 8.0 * (1.0 - pow(0.75, 64)), 1e-12);
    /* weight bytes of the FFN: 2 vs ~8 experts of 3*4096*14336*2 B = 352,321,536 B each */
    assert_true(o1.op[LLMROOF_OP_FFN].bytes < o64.op[LLMROOF_OP_FFN].bytes / 3.0);
    assert_rel_close(o1.op[LLMROOF_OP_FFN].bytes, 2.0 * 352321536.0 + 1.0 * 2 * (2.0 * 4096 + 6.0 * 14336) * 2, 1e-12);
    assert_true(o1.op[LLMROOF_OP_ROUTER].count > 0);
    catalog_free(&cat);
}

static void mixed_batch_sums_sequences(void **state)
{
    /* two prompts of 512 added one by one equal batch_prefill(2, 512) */
    struct llmroof_batch b = { 0 };
    batch_add(&b, 512, 0, OPS_FEW_GENERIC);
    batch_add(&b, 512, 0, OPS_FEW_GENERIC);
    struct llmroof_batch p = batch_prefill(2, 512, OPS_FEW_GENERIC);
    assert_rel_close(b.attn_pairs, p.attn_pairs, 0);
    assert_rel_close(b.tokens, p.tokens, 0);
    /* a decode token after 99 cached tokens attends to 100 keys = batch_decode(1, 100) */
    struct llmroof_batch d = { 0 };
    batch_add(&d, 1, 99, OPS_FEW_GENERIC);
    assert_rel_close(d.attn_pairs, batch_decode(1, 100).attn_pairs, 0);
    assert_rel_close(d.kv_read_tokens, 100, 0);
}

/* Issue 23, defect 1: one prefill chunk in a step must not decompress the decode sequences'
 * contexts. DeepSeek-V3 at TP 8 (16 heads per rank; r_kv 512, p 64, n 128, v 128): 64 decodes
 * at 4,096 keys and one 1,024-token prefill chunk from an empty cache. */
static void mla_mixed_step_runs_decodes_absorbed_and_the_chunk_decompressed(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(ds, 8, &sh, &err), 0);
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_batch b = { 0 };
    for (int i = 0; i < 64; i++)
        batch_add(&b, 1, 4095, &sh.few);
    batch_add(&b, 1024, 0, &sh.few);
    assert_rel_close(b.few_seqs, 64.0, 0);
    struct llmroof_oplist o;
    ops_build(ds, &sh, &dt, &b, &o);
    assert_false(o.mla_absorbed); /* not all of it */
    /* decodes absorbed: 64 * 4,096 = 262,144 pairs x 2*16*(2*512 + 64) = 34,816 = 9,126,805,504;
     * the chunk decompressed: 1024*1025/2 = 524,800 pairs x 2*16*(128+64+128) = 10,240
     * = 5,373,952,000; sum 14,500,757,504 (before the fix the whole step was decompressed:
     * 262,144*10,240 + 5,373,952,000 = 8,058,306,560, but kv_b expanded all 263,168 keys) */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 14500757504.0, 1e-12);
    /* kv_b: absorbed 2*64*16*512*256 = 268,435,456; decompressed only the chunk's 1,024 keys
     * 2*1024*512*16*256 = 4,294,967,296; sum 4,563,402,752 (before: 2*263,168*512*16*256
     * = 1,103,806,595,072, 240x more) */
    assert_rel_close(o.op[LLMROOF_OP_MLA_KV_UP].flops, 4563402752.0, 1e-12);
    /* a decode-only step stays wholly absorbed */
    struct llmroof_batch d = batch_decode(64, 4096);
    ops_build(ds, &sh, &dt, &d, &o);
    assert_true(o.mla_absorbed);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 9126805504.0, 1e-12);
    catalog_free(&cat);
}

/* MLA's form per sequence follows the break-even of its two forms, not a fixed 16 new tokens (the
 * audit's cliff: 17 new tokens after 32K cached ones decompressed all 32K keys). The shard's rule
 * is the FLOP one, by hand for DeepSeek-V3 at TP 8 (16 heads per rank; r_kv 512, p 64, n 128,
 * v 128): per pair absorbed 2*16*(2*512 + 64) = 34,816 FLOP, decompressed 2*16*(128+64+128)
 * = 10,240; kv_b 2*16*512*256 = 4,194,304 FLOP per new token absorbed, per key decompressed.
 * Absorbed minus decompressed = 24,576 pairs - 4,194,304 P: equal on pairs = t P, t = 512*256/768
 * = 170.67. After P = 32,768 cached keys the root of n (P + (n+1)/2) = t P is n = 170.22. */
static struct llmroof_batch mla_seqs(double n, double past, const struct ops_few_rule *few)
{
    struct llmroof_batch b = { 0 };
    batch_add(&b, n, past, few);
    return b;
}

static double mla_ctx_flops(const struct llmroof_model *m, const struct llmroof_shard *sh,
                            const struct llmroof_dtypes *dt, struct llmroof_batch b, bool *absorbed)
{
    struct llmroof_oplist o;
    ops_build(m, sh, dt, &b, &o);
    if (absorbed)
        *absorbed = o.mla_absorbed;
    return o.op[LLMROOF_OP_ATTENTION].flops + o.op[LLMROOF_OP_MLA_KV_UP].flops;
}

static void mla_runs_absorbed_up_to_its_break_even(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(ds, 8, &sh, &err), 0);
    const struct llmroof_dtypes dt = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    assert_rel_close(sh.few.per_past, 512.0 * 256.0 / 768.0, 1e-15);
    assert_true(sh.few.max_new == 1.0 && sh.few.per_new == 0.0 && sh.few.ramp == 0.0);
    /* models without MLA's choice keep 16 new tokens (DSA runs every sequence absorbed anyway) */
    struct llmroof_shard other;
    assert_int_equal(ops_shard(model(&cat, "llama-2-7b"), 1, &other, &err), 0);
    assert_true(other.few.max_new == OPS_FEW_QUERY_TOKENS && other.few.per_past == 0.0);
    assert_int_equal(ops_shard(model(&cat, "deepseek-v3.2-exp"), 8, &other, &err), 0);
    assert_true(other.few.max_new == OPS_FEW_QUERY_TOKENS && other.few.per_past == 0.0);

    const double P = 32768.0;
    const struct ops_few_rule all = { 1e300, 0.0, 0.0, 0.0 }, none = { 0.0, 0.0, 0.0, 0.0 };
    bool ab = false;
    /* 17 new tokens: absorbed. 557,209 pairs x 34,816 = 19,399,788,544 + kv_b 17 x 4,194,304
     * = 71,303,168: 19,471,091,712 (decompressed: 5,705,820,160 + 32,785 keys x 4,194,304
     * = 137,510,256,640, 7.4x more) */
    struct llmroof_batch b = mla_seqs(17.0, P, &sh.few);
    assert_rel_close(b.few_seqs, 1.0, 0);
    assert_rel_close(mla_ctx_flops(ds, &sh, &dt, b, &ab), 19471091712.0, 1e-12);
    assert_true(ab);
    assert_rel_close(mla_ctx_flops(ds, &sh, &dt, mla_seqs(17.0, P, &none), NULL), 143216076800.0, 1e-12);
    /* 170: absorbed, 5,585,095 pairs: 194,450,667,520 + 713,031,680 = 195,163,699,200 (decompressed
     * 195,343,357,952) */
    b = mla_seqs(170.0, P, &sh.few);
    assert_rel_close(b.few_seqs, 1.0, 0);
    const double at170 = mla_ctx_flops(ds, &sh, &dt, b, &ab);
    assert_rel_close(at170, 195163699200.0, 1e-12);
    assert_true(ab);
    assert_rel_close(mla_ctx_flops(ds, &sh, &dt, mla_seqs(170.0, P, &none), NULL), 195343357952.0, 1e-12);
    /* 171: decompressed, 5,618,034 pairs: 57,528,668,160 + 32,939 keys x 4,194,304
     * = 138,156,179,456: 195,684,847,616 (absorbed 196,314,697,728) */
    b = mla_seqs(171.0, P, &sh.few);
    assert_rel_close(b.few_seqs, 0.0, 0);
    const double at171 = mla_ctx_flops(ds, &sh, &dt, b, &ab);
    assert_rel_close(at171, 195684847616.0, 1e-12);
    assert_false(ab);
    assert_rel_close(mla_ctx_flops(ds, &sh, &dt, mla_seqs(171.0, P, &all), NULL), 196314697728.0, 1e-12);
    /* continuous across it: the step 170 -> 171 (521,148,416) is less than the absorbed form's
     * own step (1,150,998,528) */
    assert_rel_close(at171 - at170, 521148416.0, 1e-9);
    /* at the break-even itself the two forms cost the same */
    const double nb = -(P + 0.5) + sqrt((P + 0.5) * (P + 0.5) + 2.0 * sh.few.per_past * P);
    assert_rel_close(nb, 170.22193811816, 1e-12);
    assert_rel_close(mla_ctx_flops(ds, &sh, &dt, mla_seqs(nb, P, &all), NULL),
                     mla_ctx_flops(ds, &sh, &dt, mla_seqs(nb, P, &none), NULL), 1e-12);
    /* a prompt from an empty cache expands no cached key: decompressed whatever its length */
    assert_rel_close(mla_seqs(8.0, 0.0, &sh.few).few_seqs, 0.0, 0);
    assert_rel_close(mla_seqs(1.0, 0.0, &sh.few).few_seqs, 1.0, 0); /* a decode always absorbed */
    catalog_free(&cat);
}

/* Issue 23, defect 3: dispatch and combine move different dtypes (DeepEP: dispatch fp8 with an
 * fp32 scale per 128 values, combine bf16), and the busiest EP rank receives ep_imbalance times
 * the mean and streams the experts its extra tokens touch. DeepSeek-V3, EP 8 with data-parallel
 * attention, fp8 compute, 64 decodes: 8 tokens per replica. */
static void all_to_all_moves_fp8_out_and_bf16_back_scaled_by_the_imbalance(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_err err = { 0 };
    const struct llmroof_dtypes fp8 = { LLMROOF_FP8, LLMROOF_BF16, LLMROOF_FP8, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_layout lay = { 1, 1, 8, true, 1.0, false, 0, false, false, false };
    struct llmroof_shard sh;
    assert_int_equal(ops_shard_layout(ds, &lay, &sh, &err), 0);
    struct llmroof_batch b = batch_decode(64, 1000);
    struct llmroof_oplist o;
    ops_build(ds, &sh, &fp8, &b, &o);
    /* 8 tokens x 8 copies x 7168 = 458,752 elements; mean of dispatch 1 + 4/128 = 1.03125 and
     * combine 2 bytes = 1.515625: 695,296 bytes (before: 458,752 x 1 fp8 byte both ways) */
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, 695296.0, 1e-12);
    assert_false(o.a2a_normal); /* decode: low-latency kernels */
    const double hit1 = o.experts_hit;
    /* experts hit per rank: 256 * (1 - (1 - 8/256)^64) / 8 = 27.59 */
    assert_rel_close(hit1, 256.0 * (1.0 - pow(1.0 - 8.0 / 256.0, 64.0)) / 8.0, 1e-12);
    lay.ep_imbalance = 1.5;
    assert_int_equal(ops_shard_layout(ds, &lay, &sh, &err), 0);
    ops_build(ds, &sh, &fp8, &b, &o);
    /* busiest rank: 1.5 x 695,296 = 1,042,944 bytes received; experts of 96 tokens' worth:
     * 256 * (1 - (1 - 8/256)^96) / 8 = 30.51 (before: 27.59, the mean rank's) */
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, 1042944.0, 1e-12);
    assert_rel_close(o.experts_hit, 256.0 * (1.0 - pow(1.0 - 8.0 / 256.0, 96.0)) / 8.0, 1e-12);
    /* a prefill step runs the normal kernels, which send a token once per destination GPU. Under
     * DeepSeek-V3's group-limited routing (4 of 8 groups, one group per GPU at EP 8) a token
     * reaches its 4 chosen groups' GPUs (comm_moe_fanout): P = 0.5 at the mean, as many as
     * k' = ln(0.5) / ln(0.875) = 5.19089 independent picks; the busiest receives 1 - (1 - F/8)^k'
     * of the other GPUs' tokens. 8 x 512 prompt tokens = 512 per replica; mean message 512 x 8 x
     * 7168 x 1.515625 = 44,498,944 bytes; at F 1.5: (1 - 0.8125^5.19089) / 0.5 = 0.659668 / 0.5 =
     * 1.319336 (not 1.5); at F 8 every token: 1 / 0.5 = 2, the ceiling (not 8; the uniform form's
     * 1.52349 had left the busiest GPU 0.68 of the tokens) */
    struct llmroof_batch p = batch_prefill(8, 512, OPS_FEW_GENERIC);
    ops_build(ds, &sh, &fp8, &p, &o);
    assert_true(o.a2a_normal);
    assert_rel_close(o.a2a_topk, 8.0, 0);
    const double mean = 512.0 * 8 * 7168 * 1.515625, pg = 0.5;
    const double keff = log(1.0 - pg) / log(0.875);
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, mean * (1.0 - pow(1.0 - 1.5 / 8.0, keff)) / pg, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes / mean, 1.319336, 1e-6);
    lay.ep_imbalance = 8.0;
    assert_int_equal(ops_shard_layout(ds, &lay, &sh, &err), 0);
    ops_build(ds, &sh, &fp8, &p, &o);
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes / mean, 2.0, 1e-5);
    /* uniform routing keeps k' = k: Qwen3-235B-A22B (128 experts, top 8, no groups) at EP 8,
     * F 2: (1 - 0.75^8) / (1 - 0.875^8) = 0.899887 / 0.656391 = 1.37096 */
    {
        const struct llmroof_model *qw = model(&cat, "qwen3-235b-a22b");
        struct llmroof_layout ql = { .tp = 1, .ep = 8, .dp_attn = true, .ep_imbalance = 2.0 };
        struct llmroof_shard qs;
        assert_int_equal(ops_shard_layout(qw, &ql, &qs, &err), 0);
        assert_rel_close(ops_a2a_receive_factor(qw, &qs, true, 2.0), 1.37096, 1e-5);
        /* one expert a GPU under top 2 (Mixtral at EP 8): F is at most E/k = 4, where every token
         * reaches the busiest GPU, 1 / P = 1 / (1 - 0.875^2) = 4.26667 (the curve over F / n had
         * stopped at 3.20); at F 2, k' = ln(0.765625) / ln(0.75) = 0.928326:
         * (1 - 0.5^0.928326) / 0.234375 = 2.02467 */
        const struct llmroof_model *mx = model(&cat, "mixtral-8x7b");
        assert_int_equal(ops_shard_layout(mx, &ql, &qs, &err), 0);
        assert_rel_close(ops_a2a_receive_factor(mx, &qs, true, 4.0), 4.26667, 1e-5);
        assert_rel_close(ops_a2a_receive_factor(mx, &qs, true, 2.0), 2.02467, 1e-5);
    }
    /* decode keeps the linear growth: 8 x 695,296 */
    ops_build(ds, &sh, &fp8, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_ALL_TO_ALL].comm_bytes, 8.0 * 695296.0, 1e-12);
    catalog_free(&cat);
}

/* Issue 23, defect 5: a draft step of an EAGLE/MTP head costs one decoder layer plus the LM head
 * (before: the target's pass / layers, no LM head); Medusa's K heads each project to the
 * vocabulary. Llama-3.1-8B at TP 1, fp16, one decoding sequence. */
static void draft_steps_pay_the_lm_head(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-3.1-8b");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 1, &sh, &err), 0);
    struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    ops_build_draft(m, &sh, &FP16, &b, 0, NULL, &o);
    assert_rel_close(o.op[LLMROOF_OP_FFN].count, 1.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].count, 1.0, 0);
    /* LM head: 4096 x 128,256 x 2 = 1,050,673,152 weight bytes + the hidden row 8,192 + the
     * logits 256,512 = 1,050,937,856: 2.4x the layer's 436,207,616 weight bytes
     * (qkv 50,331,648 + o 33,554,432 + MLP 352,321,536) */
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 1050937856.0, 1e-12);
    /* QKV with EAGLE's fc (2h -> h, 67,108,864 bytes): 50,331,648 + 8,192 + 12,288 (q,k,v out)
     * + 67,108,864 + 3 x 4096 x 2 (24,576) = 117,485,568 */
    assert_rel_close(o.op[LLMROOF_OP_QKV_PROJ].bytes, 117485568.0, 1e-12);
    /* Medusa, 4 heads: 4 residual blocks of 2 x 4096^2 = 33,554,432 FLOP and 4 LM heads */
    ops_build_draft(m, &sh, &FP16, &b, 4, NULL, &o);
    assert_rel_close(o.op[LLMROOF_OP_FFN].count, 4.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_FFN].flops, 33554432.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].count, 4.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].count, 0.0, 0);
    /* ... and hold what they read: 4 x (4096^2 x 2 = 33,554,432 + 1,050,673,152) = 4,336,910,336 B,
     * ten layers' worth, where a layer's share of the weights (16,060,522,496 / 32 = 501,891,328)
     * was taken before; the draft step's weight bytes are the same */
    const double heads = ops_medusa_bytes(m, &sh, &FP16, 4);
    assert_rel_close(heads, 4336910336.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_FFN].count * o.op[LLMROOF_OP_FFN].wbytes +
                         o.op[LLMROOF_OP_LM_HEAD].count * 4096.0 * 128256.0 * 2.0,
                     heads, 1e-12);
    /* TP 2 splits the projections' vocabulary, not the blocks: 4 x (33,554,432 + 525,336,576) */
    assert_int_equal(ops_shard(m, 2, &sh, &err), 0);
    assert_rel_close(ops_medusa_bytes(m, &sh, &FP16, 4), 2235564032.0, 1e-12);
    catalog_free(&cat);
}

/* An EAGLE-3 head (SGLang's and vLLM's llama_eagle3.py, the released drafts' config.json): its
 * first draft pass fuses three of the target's layers (3h -> h), every pass feeds the embedding
 * beside the hidden state into q/k/v (K 2h), and its own LM head covers draft_vocab_size 32,000
 * tokens. Llama-3.1-8B at TP 1, fp16, one decoding sequence; EAGLE's numbers in the test above. */
static void an_eagle3_head_drafts_over_its_own_vocabulary(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-3.1-8b");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 1, &sh, &err), 0);
    struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    const struct ops_head first = ops_head_shape(m, 32000, true, true), later = ops_head_shape(m, 32000, false, true);
    assert_rel_close(first.fc_in, 3.0, 0);
    assert_rel_close(later.fc_in, 0.0, 0);
    assert_rel_close(later.attn_in, 2.0, 0);
    ops_build_draft(m, &sh, &FP16, &b, 0, &first, &o);
    /* LM head over 32,000 tokens: 4096 x 32,000 x 2 = 262,144,000 weight bytes + the hidden row
     * 8,192 + the logits 64,000 = 262,216,192 (the target's head: 1,050,937,856) */
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 262216192.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].flops, 2.0 * 4096.0 * 32000.0, 1e-12);
    /* QKV, first pass: the layer's 50,331,648 + 8,192 + 12,288; the fc 3 x 4096^2 x 2 =
     * 100,663,296 + its 3 inputs and 1 output, 4 x 8,192 = 32,768; the second h of q/k/v inputs
     * 4096 x 6144 x 2 = 50,331,648 + 8,192: 201,388,032 */
    assert_rel_close(o.op[LLMROOF_OP_QKV_PROJ].bytes, 201388032.0, 1e-12);
    /* FLOPs: 2 x 4096 x 6144 (q/k/v) + 2 x 3 x 4096^2 (fc) + 2 x 4096 x 6144 (second input) =
     * 50,331,648 + 100,663,296 + 50,331,648 = 201,326,592 */
    assert_rel_close(o.op[LLMROOF_OP_QKV_PROJ].flops, 201326592.0, 1e-12);
    /* a later pass: no fc, 50,331,648 + 8,192 + 12,288 + 50,339,840 = 100,692,... */
    ops_build_draft(m, &sh, &FP16, &b, 0, &later, &o);
    assert_rel_close(o.op[LLMROOF_OP_QKV_PROJ].bytes, 50331648.0 + 8192.0 + 12288.0 + 50331648.0 + 8192.0, 1e-12);
    /* memory beyond the head's layer and fc: the second input 50,331,648 + its own head
     * 262,144,000 = 312,475,648 B; the fc apart (ops_eagle_fc_bytes), the 3 x 4096^2 x 2 =
     * 100,663,296 B the first pass reads above, EAGLE-1's 2 x 4096^2 x 2 = 67,108,864 B */
    assert_rel_close(ops_eagle3_extra_bytes(m, &sh, &FP16, 32000), 312475648.0, 1e-12);
    assert_rel_close(ops_eagle3_extra_bytes(m, &sh, &FP16, 0), 0.0, 0);
    assert_rel_close(ops_eagle_fc_bytes(m, &FP16, 32000), 100663296.0, 1e-12);
    assert_rel_close(ops_eagle_fc_bytes(m, &FP16, 0), 67108864.0, 1e-12);
    /* a vocabulary larger than the model's is the model's (ops_head_shape caps it) */
    assert_rel_close(ops_head_shape(m, 1000000, true, true).vocab, 128256.0, 0);
    catalog_free(&cat);
}

/* An EAGLE head drafting for a MoE target is a dense decoder layer (the released heads are
 * LlamaDecoderLayers); an MTP module is a layer of its target. Qwen3-30B-A3B at TP 2, fp16, 4
 * decoding sequences: EAGLE's MLP is a SwiGLU of (8 top-k + 0 shared) x 768 = 6,144, 3,072 a rank:
 * FLOPs 2 x 4 x 2,048 x 3,072 x 3 = 150,994,944; bytes 3 x 2,048 x 3,072 x 2 = 37,748,736 of weights
 * + 4 tokens x (2,048 x 2 in + 2,048 x 2 out + the intermediate's 6 x 3,072 x 2: gate/up written
 * and read, the activated half written and read, mlp_act_bytes) = 4 x 45,056 = 180,224:
 * 37,928,960; no router, no experts; three all-reduces (attention, MLP, embedding). The MTP
 * module keeps the target's routed experts. */
static void an_eagle_head_of_a_moe_target_is_a_dense_layer(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "qwen3-30b-a3b");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 2, &sh, &err), 0);
    struct llmroof_batch b = batch_decode(4, 1000);
    struct llmroof_oplist o;
    const struct ops_head eagle = ops_head_shape(m, 0, true, true), mtp = ops_head_shape(m, 0, true, false);
    assert_rel_close(eagle.mlp_width, 6144.0, 0);
    assert_rel_close(mtp.mlp_width, 0.0, 0);
    ops_build_draft(m, &sh, &FP16, &b, 0, &eagle, &o);
    const struct llmroof_op *d = &o.op[LLMROOF_OP_DENSE_FFN];
    assert_rel_close(d->count * d->flops, 150994944.0, 1e-12);
    assert_rel_close(d->count * d->bytes, 37928960.0, 1e-12);
    assert_rel_close(d->count * d->wbytes, 37748736.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_FFN].count, 0.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].count, 0.0, 0);
    assert_rel_close(o.expert_wbytes, 0.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_ALL_REDUCE].count, 3.0, 0);
    assert_rel_close(ops_eagle_mlp_bytes(m, &sh, &FP16), 37748736.0, 1e-12);
    ops_build_draft(m, &sh, &FP16, &b, 0, &mtp, &o);
    assert_true(o.op[LLMROOF_OP_FFN].count > 0 && o.expert_wbytes > 0);
    assert_rel_close(o.op[LLMROOF_OP_DENSE_FFN].count, 0.0, 0);
    /* a dense target's EAGLE head is its own layer's shape, as before */
    assert_rel_close(ops_head_shape(model(&cat, "llama-3.1-8b"), 0, true, true).mlp_width, 0.0, 0);
    catalog_free(&cat);
}

/* The saturation shortcut of ops_experts_hit is the formula to the bit: n k/E >= 45 gives
 * (1 - k/E)^n <= e^-45 < 2^-64, so 1 - (1 - k/E)^n rounds to 1 and E * 1 = E; below it pow. */
static void experts_hit_is_the_formula_to_the_bit(void **state)
{
    (void)state;
    const double pairs[][2] = { { 8, 2 }, { 16, 2 }, { 32, 4 }, { 60, 4 }, { 64, 8 }, { 128, 8 }, { 256, 8 }, { 384, 8 } };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        const double E = pairs[i][0], k = pairs[i][1];
        for (int n = 0; n <= 20000; n++)
            for (int f = 0; f < 2; f++) { /* whole token counts and data-parallel shares */
                const double t = n + (f ? 0.37 : 0.0);
                const double want = E * (1.0 - pow(1.0 - k / E, t)), got = ops_experts_hit(E, k, t);
                if (memcmp(&want, &got, sizeof want) != 0) {
                    print_error("E %g k %g tokens %g: %.17g, formula %.17g\n", E, k, t, got, want);
                    fail();
                }
            }
        /* Mixtral's 8 experts, top-2: saturated from 180 tokens (180 * 2/8 = 45) */
    }
    assert_true(ops_experts_hit(8, 2, 180) == 8.0);
    /* 16 tokens: 8 * (1 - 0.75^16) = 8 * (1 - 0.0100226) = 7.91982 */
    assert_rel_close(ops_experts_hit(8, 2, 16), 7.919819, 1e-6);
}

/* A decode step rebuilt at another context from a copy of the context part (estimate.c's last
 * step) has the context operators and step-wide fields of a whole build, for every model. */
static void context_rebuild_matches_a_whole_build(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    for (size_t i = 0; i < cat.n_models; i++) {
        const struct llmroof_model *m = &cat.models[i];
        struct llmroof_shard sh;
        if (ops_shard(m, 1, &sh, NULL))
            continue;
        struct llmroof_batch b1 = batch_decode(16, 513), b2 = batch_decode(16, 2047);
        struct llmroof_oplist first, whole, last;
        ops_build(m, &sh, &FP16, &b1, &first);
        ops_build(m, &sh, &FP16, &b2, &whole);
        memset(&last, 0xff, sizeof last); /* the other operators stay garbage: never read */
        ops_copy_context(&last, &first);
        ops_set_context(m, &sh, &FP16, &b2, &last);
        for (int k = 0; k < LLMROOF_OP_COUNT; k++)
            if (OPS_CONTEXT_MASK >> k & 1u)
                assert_memory_equal(&last.op[k], &whole.op[k], sizeof whole.op[k]);
        assert_true(last.attn_kv_bytes == whole.attn_kv_bytes && last.keys_per_seq == whole.keys_per_seq &&
                    last.attn_square == whole.attn_square && last.tokens == whole.tokens &&
                    last.dequant_ratio == whole.dequant_ratio && last.mla_absorbed == whole.mla_absorbed);
    }
    catalog_free(&cat);
}

/* The kernels a DeepSeek decoder layer launches: the latent norms and the shared-expert MLP
 * always; with the block-scaled fp8 checkpoint's weights, one per-token-group quantization
 * kernel before each GEMM (ops.c block_fp8). DeepSeek-V3, TP 8, one decode token. */
/* W8A8 at per-tensor scales (--act-dtype fp8): the GEMMs read 8-bit inputs while the norms,
 * attention and the MLP's intermediate stay 16-bit; where the 8-bit copies are made follows the
 * engine's act_quant (ops.c stream_bytes, quant_own). Llama-2-7B (h 4096, MLP 11008, 32 heads of
 * 128, two norms a layer), TP 1, 8 decode tokens. */
static void w8a8_quantizes_each_gemm_input_where_the_engine_does(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-2-7b");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 1, &sh, &err), 0);
    const struct llmroof_batch b = batch_decode(8, 1000);
    struct llmroof_dtypes sep = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP8, 0, false, LLMROOF_FP16, false,
                                  LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_dtypes na = sep, fu = sep, w8a16 = sep;
    na.act_quant = LLMROOF_ACT_QUANT_NORM_ACT;
    fu.act_quant = LLMROOF_ACT_QUANT_FUSED;
    w8a16.act = LLMROOF_FP16;
    struct llmroof_oplist s, n, f, h;
    ops_build(m, &sh, &sep, &b, &s);
    ops_build(m, &sh, &na, &b, &n);
    ops_build(m, &sh, &fu, &b, &f);
    ops_build(m, &sh, &w8a16, &b, &h);
    /* kernels: a quantization before QKV (2 + 1), O (1 + 1), gate_up and down (3 + 2) when
     * separate; only O's when the norm and SiLU kernels write the 8-bit copy; none when fused */
    assert_rel_close(s.op[LLMROOF_OP_QKV_PROJ].kernels, 3.0, 0);
    assert_rel_close(s.op[LLMROOF_OP_O_PROJ].kernels, 2.0, 0);
    assert_rel_close(s.op[LLMROOF_OP_FFN].kernels, 5.0, 0);
    assert_rel_close(n.op[LLMROOF_OP_QKV_PROJ].kernels, 2.0, 0);
    assert_rel_close(n.op[LLMROOF_OP_O_PROJ].kernels, 2.0, 0);
    assert_rel_close(n.op[LLMROOF_OP_FFN].kernels, 3.0, 0);
    assert_rel_close(f.op[LLMROOF_OP_O_PROJ].kernels, 1.0, 0);
    /* a quantization reads 2 B and writes 1 B an element: QKV's input 8 * 4096 * 3 = 98,304 B,
     * O's the same; the MLP's input and intermediate (4096 + 11008) * 8 * 3 = 362,496 B, and
     * fused, the SiLU kernel writes its 11008 * 8 at 1 B not 2: 88,064 B less, 450,560 in all */
    assert_rel_close(s.op[LLMROOF_OP_QKV_PROJ].bytes - f.op[LLMROOF_OP_QKV_PROJ].bytes, 98304.0, 1e-12);
    assert_rel_close(s.op[LLMROOF_OP_O_PROJ].bytes - f.op[LLMROOF_OP_O_PROJ].bytes, 98304.0, 1e-12);
    assert_rel_close(n.op[LLMROOF_OP_O_PROJ].bytes, s.op[LLMROOF_OP_O_PROJ].bytes, 0);
    assert_rel_close(s.op[LLMROOF_OP_FFN].bytes - f.op[LLMROOF_OP_FFN].bytes, 450560.0, 1e-12);
    /* a fused norm writes its 8 * 4096 outputs at 1 B: 32,768 B less per norm */
    assert_rel_close(s.op[LLMROOF_OP_NORM].bytes - f.op[LLMROOF_OP_NORM].bytes, 32768.0, 1e-12);
    assert_rel_close(n.op[LLMROOF_OP_NORM].bytes, f.op[LLMROOF_OP_NORM].bytes, 0);
    /* the stream stays 16-bit: the norms, the K/V written and the attention as at 16-bit
     * activations; the QKV GEMM reads its input at 1 B (8 * 4096 less than 16-bit) beside its quantization */
    assert_rel_close(s.op[LLMROOF_OP_NORM].bytes, h.op[LLMROOF_OP_NORM].bytes, 0);
    assert_rel_close(s.op[LLMROOF_OP_KV_WRITE].bytes, h.op[LLMROOF_OP_KV_WRITE].bytes, 0);
    assert_rel_close(s.op[LLMROOF_OP_ATTENTION].bytes, h.op[LLMROOF_OP_ATTENTION].bytes, 0);
    assert_rel_close(n.op[LLMROOF_OP_ATTENTION].bytes, h.op[LLMROOF_OP_ATTENTION].bytes, 0);
    /* fused (TensorRT-LLM), attention writes the O projection's 8-bit input itself: its 8 x 32 x
     * 128 outputs at 1 B, 32,768 B less, and the context rebuild (ops_set_context, which the
     * simulator's steps use) says the same */
    assert_rel_close(h.op[LLMROOF_OP_ATTENTION].bytes - f.op[LLMROOF_OP_ATTENTION].bytes, 32768.0, 1e-12);
    assert_rel_close(ops_attn_out_bytes(m, &fu), 1.0, 0);
    assert_rel_close(ops_attn_out_bytes(m, &na), 2.0, 0);
    struct llmroof_oplist f2 = f;
    ops_set_context(m, &sh, &fu, &b, &f2);
    assert_rel_close(f2.op[LLMROOF_OP_ATTENTION].bytes, f.op[LLMROOF_OP_ATTENTION].bytes, 0);
    assert_rel_close(f.op[LLMROOF_OP_QKV_PROJ].bytes, h.op[LLMROOF_OP_QKV_PROJ].bytes - 32768.0, 1e-12);
    catalog_free(&cat);
}

static void deepseek_layer_counts_latent_norms_shared_experts_and_fp8_group_quant(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(ds, 8, &sh, &err), 0);
    const struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist f16, blk, pt;
    ops_build(ds, &sh, &FP16, &b, &f16);
    /* 16-bit weights: q_a|kv_a GEMM, q_a norm, kv_a norm, q_b GEMM, RoPE = 5; routed MoE 5 +
     * shared MLP (gate_up, activation, down) 3 = 8; o_proj 1; dense MLP 3 */
    assert_rel_close(f16.op[LLMROOF_OP_QKV_PROJ].kernels, 5.0, 0);
    assert_rel_close(f16.op[LLMROOF_OP_FFN].kernels, 8.0, 0);
    assert_rel_close(f16.op[LLMROOF_OP_O_PROJ].kernels, 1.0, 0);
    assert_rel_close(f16.op[LLMROOF_OP_DENSE_FFN].kernels, 3.0, 0);
    /* qkv FLOPs: q_a 7168*1536 = 11,010,048, q_b 1536*(16 heads*192) = 4,718,592, kv_a
     * 7168*576 = 4,128,768: 2 * 19,857,408 = 39,714,816, + the latent norms 4 * (1536 + 512)
     * = 8,192 -> 39,723,008 */
    assert_rel_close(f16.op[LLMROOF_OP_QKV_PROJ].flops, 39723008.0, 1e-12);

    /* the checkpoint's fp8 weights (block scales) against fp8 at the same bytes without them
     * (--weight-bits 8: per-tensor, no group quantization) */
    const struct llmroof_dtypes fp8blk = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    const struct llmroof_dtypes fp8pt = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 8.0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    ops_build(ds, &sh, &fp8blk, &b, &blk);
    ops_build(ds, &sh, &fp8pt, &b, &pt);
    assert_rel_close(pt.op[LLMROOF_OP_QKV_PROJ].kernels, 5.0, 0);
    assert_rel_close(pt.op[LLMROOF_OP_FFN].kernels, 8.0, 0);
    /* +2 (before q_a|kv_a and q_b), +1 (o_proj), +2 routed +2 shared, +2 dense */
    assert_rel_close(blk.op[LLMROOF_OP_QKV_PROJ].kernels, 7.0, 0);
    assert_rel_close(blk.op[LLMROOF_OP_O_PROJ].kernels, 2.0, 0);
    assert_rel_close(blk.op[LLMROOF_OP_FFN].kernels, 12.0, 0);
    assert_rel_close(blk.op[LLMROOF_OP_DENSE_FFN].kernels, 5.0, 0);
    /* each quantization reads 2 B, writes 1 B + 4 B per 128 per element: 3.03125 B.
     * qkv: (7168 + 1536) * 3.03125 = 26,384 B; o_proj: 16 heads * 128 = 2048 -> 6,208 B;
     * MoE: input 7168 + 8 routed rows * 256 (2048 / TP 8) + shared input 7168 + shared 256
     * = 16,640 -> 50,440 B; dense: (7168 + 18432 / 8 = 2304) = 9,472 * 3.03125 = 28,712 B */
    assert_rel_close(blk.op[LLMROOF_OP_QKV_PROJ].bytes - pt.op[LLMROOF_OP_QKV_PROJ].bytes, 26384.0, 1e-9);
    assert_rel_close(blk.op[LLMROOF_OP_O_PROJ].bytes - pt.op[LLMROOF_OP_O_PROJ].bytes, 6208.0, 1e-9);
    assert_rel_close(blk.op[LLMROOF_OP_FFN].bytes - pt.op[LLMROOF_OP_FFN].bytes, 50440.0, 1e-9);
    assert_rel_close(blk.op[LLMROOF_OP_DENSE_FFN].bytes - pt.op[LLMROOF_OP_DENSE_FFN].bytes, 28712.0, 1e-9);

    /* EP 8 with data-parallel attention (TP 1, 8 replicas), 8 decode tokens: one per replica;
     * the busiest rank's routed rows: 64 assignments over 8 ranks, the expected largest of 8
     * Binomial(64, 1/8) counts, sum over j of 1 - F(j)^8 = 11.912274 (mean 8), of the whole
     * 2048-wide experts; the shared expert whole (2048):
     * (7168 + 11.912274 * 2048 + 7168 + 2048) * 3.03125 = 123,615.4 B */
    const struct llmroof_layout lay = { 1, 0, 8, true, 0, false, 0, false, false, false };
    struct llmroof_shard esh;
    assert_int_equal(ops_shard_layout(ds, &lay, &esh, &err), 0);
    const struct llmroof_batch b8 = batch_decode(8, 1000);
    ops_build(ds, &esh, &fp8blk, &b8, &blk);
    ops_build(ds, &esh, &fp8pt, &b8, &pt);
    assert_rel_close(blk.op[LLMROOF_OP_FFN].kernels, 12.0, 0);
    assert_rel_close(blk.op[LLMROOF_OP_FFN].bytes - pt.op[LLMROOF_OP_FFN].bytes,
                     (7168.0 + 11.912274111013545 * 2048.0 + 7168.0 + 2048.0) * 3.03125, 1e-9);

    /* a MoE without shared experts and without a block checkpoint: 5 kernels, as before */
    struct llmroof_oplist mx;
    build(model(&cat, "mixtral-8x7b"), 1, b, &mx);
    assert_rel_close(mx.op[LLMROOF_OP_FFN].kernels, 5.0, 0);
    catalog_free(&cat);
}

/* DeepSeek Sparse Attention runs MLA in its MQA (absorbed) form at prefill too (V3.2-Exp report
 * section 2.1): a 1000-token prompt, DeepSeek-V3.2-Exp at TP 8 (16 heads per rank). */
static void dsa_prefill_runs_mla_absorbed(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_oplist o;
    build(model(&cat, "deepseek-v3.2-exp"), 8, batch_prefill(1, 1000, OPS_FEW_GENERIC), &o);
    assert_true(o.mla_absorbed);
    /* pairs: sum over j = 1..1000 of min(j, 2048) = 1000 * 1001 / 2 = 500,500; absorbed
     * 2 * Hq * (2 r_kv + p) = 2 * 16 * (1024 + 64) = 34,816 FLOP per pair -> 17,425,408,000
     * (decompressed would be 2 * 16 * (128 + 64 + 128) = 10,240 per pair) */
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 17425408000.0, 1e-12);
    /* W_UK and W_UV per new token: 2 * 1000 * 16 * 512 * (128 + 128) = 4,194,304,000 */
    assert_rel_close(o.op[LLMROOF_OP_MLA_KV_UP].flops, 4194304000.0, 1e-12);
    /* DeepSeek-V3 (no DSA) keeps the decompressed prefill */
    build(model(&cat, "deepseek-v3"), 8, batch_prefill(1, 1000, OPS_FEW_GENERIC), &o);
    assert_false(o.mla_absorbed);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 10240.0 * 500500.0, 1e-12);
    catalog_free(&cat);
}

/* SGLang runs a DSA step's prompts dense when they attend to at most top_k keys (shard
 * dsa_dense_prefill: its MHA_ONE_SHOT below SGLANG_NSA_PREFILL_DENSE_ATTN_KV_LEN_THRESHOLD =
 * index_topk), DeepSeek-V3.2-Exp at TP 8 (16 heads a rank):
 * - one 1,000-token prompt: decompressed, 2 * 16 * (128 + 64 + 128) = 10,240 FLOP per pair x
 *   500,500 pairs = 5,125,120,000 (the sparse, absorbed form: 17,425,408,000), and the indexer
 *   projects every token but scores none: its FLOPs are 2 T (r_q Hi di + h di + h Hi) alone;
 * - a 3,000-token prompt (3,000 keys > 2,048): sparse and absorbed, as without the rule;
 * - a step of 64 decodes at 10,000 keys and one 1,000-token prompt chunk from an empty cache:
 *   the prompt dense, the decodes absorbed and capped at 2,048 keys: 64 x 2,048 x 34,816 +
 *   500,500 x 10,240 = 4,563,402,752 + 5,125,120,000 = 9,688,522,752 FLOP. */
static void sglang_dsa_runs_short_prompts_dense(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-v3.2-exp");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 8, &sh, &err), 0);
    sh.dsa_dense_prefill = true;
    struct llmroof_oplist o;
    const struct llmroof_batch p1 = batch_prefill(1, 1000, OPS_FEW_GENERIC);
    ops_build(m, &sh, &FP16, &p1, &o);
    assert_false(o.mla_absorbed);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 5125120000.0, 1e-12);
    const double h = 7168.0, Hi = (double)m->dsa_heads, di = (double)m->dsa_head_dim, rq = (double)m->q_lora_rank;
    assert_rel_close(o.op[LLMROOF_OP_DSA_INDEX].flops, 2.0 * 1000.0 * (rq * Hi * di + h * di + h * Hi), 1e-12);
    assert_rel_close(o.dsa_pairs, 0.0, 0);
    const struct llmroof_batch p3 = batch_prefill(1, 3000, OPS_FEW_GENERIC);
    struct llmroof_oplist s3;
    ops_build(m, &sh, &FP16, &p3, &o);
    build(m, 8, p3, &s3);
    assert_true(o.mla_absorbed);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, s3.op[LLMROOF_OP_ATTENTION].flops, 1e-12);
    struct llmroof_batch mix = batch_decode(64, 10000);
    batch_add(&mix, 1000, 0, OPS_FEW_GENERIC);
    ops_build(m, &sh, &FP16, &mix, &o);
    assert_rel_close(o.op[LLMROOF_OP_ATTENTION].flops, 9688522752.0, 1e-12);
    catalog_free(&cat);
}

/* ops_build writes every byte of the list: built over garbage it equals the list built over
 * zeros, for every model, prefill and decode, TP 1 and 8, and EP with data-parallel attention
 * and PP where the model allows them (ops_build zeroes only what some paths leave unset). */
/* The busiest of m expert-parallel ranks under uniform routing (review 20 item 1): the expected
 * largest of m Binomial(n, p) counts, by hand (python: sum over j of 1 - F(j)^m):
 * 64 assignments over 8 ranks: 11.912274 (mean 8); DeepSeek-V3's 32 experts per rank at EP 8,
 * one token (p = 8/256): 2.544487; beyond a variance of 25 the normal form: 2,048 over 8 ranks,
 * mean 256, sd sqrt(2048 x 1/8 x 7/8) = 14.9666, Blom's Phi^-1(7.625 / 8.25) = 1.434200:
 * 277.4651. Mixtral at EP 8 (TP 8), one decode token: each rank's one expert is hit with
 * p = 1 - (1 - 2/8) = 0.25, the busiest rank 1 - 0.75^8 = 0.899887 experts (exactly 1: the
 * independent draws' small underestimate), 3 x 4096 x 14336 x 2 B = 352,321,536 B each:
 * 317,049,654 B against the mean rank's quarter (88,080,384). */
static void expert_parallel_busiest_rank_of_uniform_routing(void **state)
{
    assert_rel_close(ops_binomial_expected_max(64, 1.0 / 8.0, 8), 11.912274111013545, 1e-12);
    assert_rel_close(ops_binomial_expected_max(32, 8.0 / 256.0, 8), 2.5444873983613885, 1e-12);
    assert_rel_close(ops_binomial_expected_max(2048, 1.0 / 8.0, 8), 256.0 + 14.966629547095765 * 1.4342001596863794, 1e-9);
    assert_rel_close(ops_binomial_expected_max(64, 1.0 / 8.0, 1), 8.0, 0);
    /* p above 1/2 counts from the other side: the largest of 8 B(10, 0.9) */
    assert_true(ops_binomial_expected_max(10, 0.9, 8) > 9.0 && ops_binomial_expected_max(10, 0.9, 8) <= 10.0);
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *mx = model(&cat, "mixtral-8x7b");
    const struct llmroof_layout lay = { 8, 0, 8, false, 0, false, 0, false, false, false };
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard_layout(mx, &lay, &sh, &err), 0);
    const struct llmroof_batch b = batch_decode(1, 512);
    struct llmroof_oplist o;
    ops_build(mx, &sh, &FP16, &b, &o);
    assert_rel_close(o.experts_hit, 1.0 - pow(0.75, 8.0), 1e-12);
    assert_rel_close(o.expert_wbytes, (1.0 - pow(0.75, 8.0)) * 352321536.0, 1e-12);
    /* a stated --ep-imbalance is taken as given: 1 is the mean rank, a quarter of an expert */
    const struct llmroof_layout given = { 8, 0, 8, false, 1.0, false, 0, false, false, false };
    assert_int_equal(ops_shard_layout(mx, &given, &sh, &err), 0);
    ops_build(mx, &sh, &FP16, &b, &o);
    assert_rel_close(o.expert_wbytes, 0.25 * 352321536.0, 1e-12);
    catalog_free(&cat);
}

/* DeepSeek-V3's fp8 checkpoint ships its embedding, LM head and routers in bf16 (review 20 item 4):
 * at TP 8 the LM head reads 129,280 / 8 x 7168 x 2 B = 231,669,760 B per GPU (115,834,880 at the
 * fp8 weights), the router 7168 x 256 x 2 B = 3,670,016 B per layer. */
static void block_fp8_checkpoint_keeps_its_head_and_routers_bf16(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *ds = model(&cat, "deepseek-v3");
    const struct llmroof_dtypes fp8blk = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(ds, 8, &sh, &err), 0);
    const struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    ops_build(ds, &sh, &fp8blk, &b, &o);
    /* + the row in (7168 x 2) and the logits out (16,160 x 2) */
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 231669760.0 + 14336.0 + 32320.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].bytes, 3670016.0 + 14336.0 + 512.0, 1e-12);
    assert_rel_close(ops_unquantized_bytes(ds, &fp8blk, true), 2.0, 0);
    /* --weight-bits 8 (per-tensor fp8 of a 16-bit checkpoint) keeps the head 16-bit as vLLM's
     * --quantization fp8 does, unless the engine quantizes every matrix (quantized_head) */
    struct llmroof_dtypes fp8pt = { LLMROOF_FP8, LLMROOF_FP16, LLMROOF_FP16, 8.0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    assert_rel_close(ops_unquantized_bytes(ds, &fp8pt, true), 2.0, 0);
    fp8pt.head_quantized = true;
    assert_rel_close(ops_unquantized_bytes(ds, &fp8pt, true), 1.0, 0);
    assert_rel_close(ops_unquantized_bytes(ds, &fp8pt, false), 1.0, 0);
    catalog_free(&cat);
}

/* A decode step reads the whole LM head: Llama-3-8B at int4 weights with the head 16-bit (AWQ,
 * GPTQ: ops_unquantized_bytes) reads 128,256 x 4,096 x 2 B = 1,050,673,152 B, plus the row in
 * (4,096 x 2) and the logits out (128,256 x 2 = 256,512): 1,050,937,856 B, against 262,668,288 +
 * 8,192 + 256,512 = 262,932,992 B at int4 (quantized_head engines). Mixtral's router stays 16-bit
 * the same way: 4,096 x 8 x 2 B = 65,536 B a layer, + the row in (8,192) + 8 scores (16). */
static void quantized_weights_read_a_16_bit_head_and_router(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct llmroof_dtypes i4 = { LLMROOF_INT4, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    const struct llmroof_model *l3 = model(&cat, "llama-3-8b");
    assert_int_equal(ops_shard(l3, 1, &sh, &err), 0);
    const struct llmroof_batch b = batch_decode(1, 1000);
    struct llmroof_oplist o;
    ops_build(l3, &sh, &i4, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 1050937856.0, 1e-12);
    i4.head_quantized = true;
    ops_build(l3, &sh, &i4, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_LM_HEAD].bytes, 262932992.0, 1e-12);
    i4.head_quantized = false;
    const struct llmroof_model *mx = model(&cat, "mixtral-8x7b");
    assert_int_equal(ops_shard(mx, 1, &sh, &err), 0);
    ops_build(mx, &sh, &i4, &b, &o);
    assert_rel_close(o.op[LLMROOF_OP_ROUTER].bytes, 65536.0 + 8192.0 + 16.0, 1e-12);
    catalog_free(&cat);
}

static void ops_build_writes_every_byte(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    int built = 0;
    for (size_t i = 0; i < cat.n_models; i++) {
        const struct llmroof_model *m = &cat.models[i];
        const struct llmroof_layout lays[] = { { 1, 0, 0, false, 0, false, 0, false, false, false }, { 8, 0, 0, false, 0, false, 0, false, false, false },
                                               { 1, 2, 0, false, 0, false, 0, false, false, false }, { 1, 0, 8, true, 1.3, true, 0, false, false, false } };
        for (size_t l = 0; l < sizeof lays / sizeof lays[0]; l++) {
            struct llmroof_shard sh;
            if (ops_shard_layout(m, &lays[l], &sh, NULL))
                continue;
            const struct llmroof_batch bs[] = { batch_prefill(4, 300, OPS_FEW_GENERIC), batch_decode(16, 700) };
            for (size_t j = 0; j < 2; j++) {
                struct llmroof_oplist z, g;
                memset(&z, 0, sizeof z);
                memset(&g, 0xa5, sizeof g);
                ops_build(m, &sh, &FP16, &bs[j], &z);
                ops_build(m, &sh, &FP16, &bs[j], &g);
                assert_memory_equal(&z, &g, sizeof z);
                built++;
            }
        }
    }
    assert_true(built > 300);
    catalog_free(&cat);
}

/* --spec-draft-config: an EAGLE-3 head of its own layer shape. SpecForge's
 * configs/deepseek-v3-671b-eagle3.json is a Llama layer of 56 query heads over 8 KV heads of
 * 7,168 / 56 = 128 (no head_dim given) beside a target of 128 MLA heads. DeepSeek-V3 at TP 8, fp16
 * (2 B weights, activations and cache), one decoding sequence at 1,024 keys: a rank holds
 * Hq = 56 / 8 = 7 query heads and Kr = 8 / 8 = 1 KV head.
 *   q/k/v: 7,168 x (7 + 2 x 1) x 128 = 7,168 x 1,152 = 8,257,536 weights x 2 = 16,515,072 B, and a
 *          later EAGLE-3 pass's second h of inputs as much again: 33,030,144 B read
 *   o:     7 x 128 x 7,168 = 6,422,528 weights x 2 = 12,845,056 B
 *   attention: 4 x 128 x 7 x 1,024 = 3,670,016 FLOP; Q and O 7 x 128 x (2 + 2) = 3,584 B + the
 *          cache 2 x 1,024 x 1 x 128 x 2 = 524,288 B: 527,872 B (no latent, no kv_b)
 *   KV write: 2 x 1 x 1 x 128 x (2 + 2) = 1,024 B */
static void a_draft_config_shapes_the_head_layer_of_an_mla_target(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "deepseek-v3");
    struct llmroof_shard sh;
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, 8, &sh, &err), 0);
    const struct llmroof_draft_head own = { 56, 8, 128, 40960, 32000, true, false, true, true, LLMROOF_FP16 };
    const struct ops_head later = ops_head_shape_own(m, &own, 32000, false, true);
    assert_rel_close(later.mlp_width, 40960.0, 0); /* the config's, not (8 + 1) x 2,048 */
    struct llmroof_oplist o;
    const struct llmroof_batch b = batch_decode(1, 1024);
    ops_build_draft(m, &sh, &FP16, &b, 0, &later, &o);
    const struct llmroof_op *q = &o.op[LLMROOF_OP_QKV_PROJ], *op = &o.op[LLMROOF_OP_O_PROJ];
    assert_rel_close(q->count * q->wbytes, 33030144.0, 1e-12);
    assert_rel_close(op->count * op->wbytes, 12845056.0, 1e-12);
    const struct llmroof_op *at = &o.op[LLMROOF_OP_ATTENTION];
    assert_rel_close(at->count, 1.0, 0);
    assert_rel_close(at->flops, 3670016.0, 1e-12);
    assert_rel_close(at->bytes, 527872.0, 1e-12);
    assert_rel_close(o.attn_kv_bytes, 524288.0, 1e-12);
    assert_rel_close(o.q_per_kv, 7.0, 0);
    assert_rel_close(o.op[LLMROOF_OP_KV_WRITE].count * o.op[LLMROOF_OP_KV_WRITE].bytes, 1024.0, 1e-12);
    assert_rel_close(o.op[LLMROOF_OP_MLA_KV_UP].count, 0.0, 0);
    assert_false(o.mla_absorbed);
    /* its MLP: 3 x 7,168 x 40,960 / 8 x 2 = 220,200,960 B */
    assert_rel_close(o.op[LLMROOF_OP_DENSE_FFN].count * o.op[LLMROOF_OP_DENSE_FFN].wbytes, 220200960.0, 1e-12);
    /* EAGLE-3's memory beyond its layer and fc: the second h of q/k/v inputs 16,515,072 + its head
     * 7,168 x 32,000 / 8 x 2 = 57,344,000; the fc whole on each of the 8 GPUs, 3 x 7,168^2 x 2 =
     * 308,281,344 B (ops_eagle_fc_bytes: TP does not divide it) */
    assert_rel_close(ops_eagle3_extra_bytes_own(m, &own, &sh, &FP16, 32000), 16515072.0 + 57344000.0, 1e-12);
    assert_rel_close(ops_eagle_fc_bytes(m, &FP16, 32000), 308281344.0, 1e-12);
    /* TP 16 splits 56 heads into halves: refused, naming the config's field */
    struct llmroof_shard sh16;
    assert_int_equal(ops_shard(m, 16, &sh16, &err), 0);
    struct llmroof_model am;
    struct llmroof_shard ash;
    assert_int_equal(ops_head_attn(m, &own, &sh16, &am, &ash, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "field 'num_attention_heads' (56) is not divisible by TP 16"));
    assert_int_equal(ops_head_attn(m, &own, &sh, &am, &ash, &err), 0);
    catalog_free(&cat);
}

/* A Llama-3.1-8B head whose config is its target's own layer shape (32 / 8 heads of 128, 14,336
 * wide: yuhuili/EAGLE3-LLaMA3.1-Instruct-8B) costs exactly what the head without a config costs:
 * every operator of both passes at TP 1 and 2. */
static void a_draft_config_of_the_targets_own_shape_changes_nothing(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-3.1-8b");
    const struct llmroof_draft_head own = { 32, 8, 128, 14336, 32000, true, false, true, true, LLMROOF_FP16 };
    for (int tp = 1; tp <= 2; tp++) {
        struct llmroof_shard sh;
        struct llmroof_err err = { 0 };
        assert_int_equal(ops_shard(m, tp, &sh, &err), 0);
        for (int first = 0; first <= 1; first++) {
            const struct ops_head a = ops_head_shape(m, 32000, first, true),
                                  b = ops_head_shape_own(m, &own, 32000, first, true);
            assert_rel_close(b.mlp_width, 0.0, 0);
            struct llmroof_oplist x, y;
            const struct llmroof_batch bt = batch_decode(8, 3000);
            ops_build_draft(m, &sh, &FP16, &bt, 0, &a, &x);
            ops_build_draft(m, &sh, &FP16, &bt, 0, &b, &y);
            for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
                assert_rel_close(y.op[k].count, x.op[k].count, 1e-12);
                assert_rel_close(y.op[k].flops, x.op[k].flops, 1e-12);
                assert_rel_close(y.op[k].bytes, x.op[k].bytes, 1e-12);
                assert_rel_close(y.op[k].comm_bytes, x.op[k].comm_bytes, 1e-12);
                assert_rel_close(y.op[k].wbytes, x.op[k].wbytes, 1e-12);
                assert_rel_close(y.gemm_out[k], x.gemm_out[k], 1e-12);
            }
            assert_rel_close(y.attn_kv_bytes, x.attn_kv_bytes, 1e-12);
        }
        assert_rel_close(ops_eagle3_extra_bytes_own(m, &own, &sh, &FP16, 32000),
                         ops_eagle3_extra_bytes(m, &sh, &FP16, 32000), 1e-12);
    }
    catalog_free(&cat);
}

/* A head apart from its target (EAGLE-3 here) runs its own 16 bits on an fp8 checkpoint: the same
 * DeepSeek-V3 head at TP 8 on the block-fp8 checkpoint (weights fp8, activations and cache fp16)
 * reads its MLP at 3 x 7,168 x 40,960 / 8 x 2 = 220,200,960 B, not the checkpoint's 1 byte's
 * 110,100,480, and its q/k/v (both h of inputs) at 7,168 x 1,152 x 2 x 2 = 33,030,144 B, not
 * 16,515,072; none of its GEMMs on the block-fp8 path (no W8A8, no per-token-group quantization
 * kernels): every operator as at an fp16 target. An MTP module keeps the checkpoint's fp8 and its
 * block-fp8 GEMMs. With 8-bit activations (W8A8 per-tensor) the head computes at 16 bits. */
/* A shipped catalog's model `id` and its shard at TP `tp`: the drafters' tests below. */
static const struct llmroof_model *sharded(struct llmroof_catalog *cat, const char *id, int tp, struct llmroof_shard *sh)
{
    load_shipped(cat);
    const struct llmroof_model *m = model(cat, id);
    struct llmroof_err err = { 0 };
    assert_int_equal(ops_shard(m, tp, sh, &err), 0);
    return m;
}

static void a_head_apart_runs_its_own_16_bits_on_an_fp8_checkpoint(void **state)
{
    struct llmroof_catalog cat;
    struct llmroof_shard sh;
    const struct llmroof_model *m = sharded(&cat, "deepseek-v3", 8, &sh);
    struct llmroof_dtypes d8 = FP16;
    d8.weight = LLMROOF_FP8; /* the checkpoint's (ckpt_weight_dtype) */
    const struct llmroof_draft_head own = { 56, 8, 128, 40960, 32000, true, false, true, true, LLMROOF_FP16 };
    const struct ops_head later = ops_head_shape_own(m, &own, 32000, false, true);
    assert_true(later.apart);
    const struct llmroof_batch b = batch_decode(1, 1024);
    struct llmroof_oplist o8, o16;
    ops_build_draft(m, &sh, &d8, &b, 0, &later, &o8);
    ops_build_draft(m, &sh, &FP16, &b, 0, &later, &o16);
    assert_rel_close(o8.op[LLMROOF_OP_DENSE_FFN].count * o8.op[LLMROOF_OP_DENSE_FFN].wbytes, 220200960.0, 1e-12);
    assert_rel_close(o8.op[LLMROOF_OP_QKV_PROJ].count * o8.op[LLMROOF_OP_QKV_PROJ].wbytes, 33030144.0, 1e-12);
    assert_int_equal(o8.block_fp8_ops, 0u);
    assert_int_equal(o8.lowp_ops, 0u);
    for (int k = 0; k < LLMROOF_OP_COUNT; k++) {
        assert_rel_close(o8.op[k].flops, o16.op[k].flops, 1e-12);
        assert_rel_close(o8.op[k].bytes, o16.op[k].bytes, 1e-12);
        assert_rel_close(o8.op[k].kernels, o16.op[k].kernels, 1e-12);
    }
    assert_int_equal(ops_draft_act(&d8, 0, &later), LLMROOF_FP16);
    /* the head's dtypes: its config's 16 bits, unquantized, whatever the target's weights */
    const struct llmroof_dtypes h = ops_head_dtypes(&d8, &own);
    assert_int_equal(h.weight, LLMROOF_FP16);
    assert_rel_close(h.weight_bits, 0.0, 0);
    struct llmroof_dtypes w8a8 = d8;
    w8a8.act = LLMROOF_FP8;
    w8a8.weight_bits = 8.0;
    const struct llmroof_dtypes hw = ops_head_dtypes(&w8a8, NULL);
    assert_int_equal(hw.weight, LLMROOF_BF16); /* no config, 8-bit activations: bf16 */
    assert_int_equal(hw.act, LLMROOF_BF16);
    assert_rel_close(hw.weight_bits, 0.0, 0);
    assert_int_equal(ops_draft_act(&w8a8, 0, NULL), LLMROOF_BF16);
    /* an MTP module: the target's fp8 layer on its block-fp8 path */
    const struct ops_head mtp = ops_head_shape(m, 0, true, false);
    assert_false(mtp.apart);
    struct llmroof_oplist om8, om16;
    ops_build_draft(m, &sh, &d8, &b, 0, &mtp, &om8);
    ops_build_draft(m, &sh, &FP16, &b, 0, &mtp, &om16);
    assert_true(om8.block_fp8_ops != 0u);
    assert_true(om8.op[LLMROOF_OP_FFN].bytes < 0.6 * om16.op[LLMROOF_OP_FFN].bytes);
    assert_int_equal(ops_draft_act(&w8a8, 0, &mtp), LLMROOF_FP8);
    catalog_free(&cat);
}

/* An EAGLE-1/2 head reads its target's own LM head at the target's bytes: Llama-3.1-8B as a 4-bit
 * GGUF under an engine whose formats quantize the head (quantized_head), TP 1, one sequence: the
 * head's layer at 16 bits, the LM head's 4,096 x 128,256 rows at 0.5 B = 262,668,288 B where at 16
 * bits they are 1,050,673,152 (EAGLE-3's own head stays 16-bit). */
static void an_eagle_head_reads_the_targets_lm_head_at_its_bytes(void **state)
{
    struct llmroof_catalog cat;
    struct llmroof_shard sh;
    const struct llmroof_model *m = sharded(&cat, "llama-3.1-8b", 1, &sh);
    struct llmroof_dtypes q4 = FP16;
    q4.weight = LLMROOF_INT4;
    q4.head_quantized = true;
    const struct llmroof_batch b = batch_decode(1, 1024);
    const struct ops_head e1 = ops_head_shape(m, 0, true, true), e3 = ops_head_shape(m, 32000, false, true);
    struct llmroof_oplist o4, o16;
    ops_build_draft(m, &sh, &q4, &b, 0, &e1, &o4);
    ops_build_draft(m, &sh, &FP16, &b, 0, &e1, &o16);
    assert_rel_close(o16.op[LLMROOF_OP_LM_HEAD].bytes - o4.op[LLMROOF_OP_LM_HEAD].bytes,
                     1050673152.0 - 262668288.0, 1e-12);
    assert_rel_close(o4.op[LLMROOF_OP_FFN].bytes, o16.op[LLMROOF_OP_FFN].bytes, 1e-12); /* the layer's 16 bits */
    ops_build_draft(m, &sh, &q4, &b, 0, &e3, &o4);
    ops_build_draft(m, &sh, &FP16, &b, 0, &e3, &o16);
    assert_rel_close(o4.op[LLMROOF_OP_LM_HEAD].bytes, o16.op[LLMROOF_OP_LM_HEAD].bytes, 1e-12);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_head_apart_runs_its_own_16_bits_on_an_fp8_checkpoint),
        cmocka_unit_test(an_eagle_head_reads_the_targets_lm_head_at_its_bytes),
        cmocka_unit_test(a_draft_config_shapes_the_head_layer_of_an_mla_target),
        cmocka_unit_test(a_draft_config_of_the_targets_own_shape_changes_nothing),
        cmocka_unit_test(all_to_all_moves_fp8_out_and_bf16_back_scaled_by_the_imbalance),
        cmocka_unit_test(draft_steps_pay_the_lm_head),
        cmocka_unit_test(an_eagle3_head_drafts_over_its_own_vocabulary),
        cmocka_unit_test(an_eagle_head_of_a_moe_target_is_a_dense_layer),
        cmocka_unit_test(mla_mixed_step_runs_decodes_absorbed_and_the_chunk_decompressed),
        cmocka_unit_test(mla_runs_absorbed_up_to_its_break_even),
        cmocka_unit_test(llama_13b_tp8_all_reduce_bytes_per_layer),
        cmocka_unit_test(tp1_has_no_collectives),
        cmocka_unit_test(llama_2_70b_gqa_decode_reads_8_kv_heads),
        cmocka_unit_test(kv_heads_below_tp_are_replicated),
        cmocka_unit_test(tp_must_divide_the_heads),
        cmocka_unit_test(prefill_projection_flops),
        cmocka_unit_test(moe_touches_fewer_experts_at_batch_1_than_at_64),
        cmocka_unit_test(mixed_batch_sums_sequences),
        cmocka_unit_test(experts_hit_is_the_formula_to_the_bit),
        cmocka_unit_test(context_rebuild_matches_a_whole_build),
        cmocka_unit_test(ops_build_writes_every_byte),
        cmocka_unit_test(dsa_prefill_runs_mla_absorbed),
        cmocka_unit_test(sglang_dsa_runs_short_prompts_dense),
        cmocka_unit_test(expert_parallel_busiest_rank_of_uniform_routing),
        cmocka_unit_test(block_fp8_checkpoint_keeps_its_head_and_routers_bf16),
        cmocka_unit_test(quantized_weights_read_a_16_bit_head_and_router),
        cmocka_unit_test(deepseek_layer_counts_latent_norms_shared_experts_and_fp8_group_quant),
        cmocka_unit_test(w8a8_quantizes_each_gemm_input_where_the_engine_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
