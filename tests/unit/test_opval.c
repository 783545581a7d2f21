/* test_opval.c - per-operator CSV and the mapping of a measured kernel to the operator
 * instance llmroof prices (validate --ops). */
#include "helpers.h"

#include "fit/opval.h"

static const char *const header = "op,tokens,batch,context,dtype,measured_s\n";

static int parse(const char *body, struct opval_row **rows, size_t *n, struct llmroof_err *err)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", header, body);
    return opval_parse_csv(text, strlen(text), "ops.csv", rows, n, err);
}

static void csv_rows_and_errors(void **state)
{
    struct opval_row *rows;
    size_t n;
    struct llmroof_err err = { 0 };
    assert_int_equal(parse("qkv_proj,4096,1,0,fp16,0.0006\nattention,8,8,4096,bf16,2.3e-4\n", &rows, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(rows[0].op, LLMROOF_OP_QKV_PROJ);
    assert_int_equal(rows[0].tokens, 4096);
    assert_int_equal(rows[1].context, 4096);
    assert_int_equal(rows[1].dtype, LLMROOF_BF16);
    assert_int_equal(rows[1].line, 3);
    assert_rel_close(rows[1].measured_s, 2.3e-4, 0);
    assert_string_equal(rows[0].model, "");
    free(rows);
    /* each bad value is named with its line and column */
    assert_int_equal(parse("all_reduce,8,1,0,fp16,1e-5\n", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "ops.csv:2: column 'op': 'all_reduce' is not a local operator"));
    assert_int_equal(parse("ffn,10,4,0,fp16,1e-5\n", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "tokens 10 is not a multiple of batch 4"));
    assert_int_equal(parse("ffn,8,1,0,fp16,-1\n", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "column 'measured_s'"));
    assert_int_equal(parse("ffn,8,1,0,fp5,1e-3\n", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "unknown dtype 'fp5'"));
    assert_int_equal(parse("", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "no rows"));
    const char *nohdr = "op,tokens,batch,dtype,measured_s\nffn,8,1,fp16,1e-3\n";
    assert_int_equal(opval_parse_csv(nohdr, strlen(nohdr), "ops.csv", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "header lacks column 'context'"));
}

static void kernels_map_to_operator_instances(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "llama-2-7b");
    const struct llmroof_gpu *g = gpu(&cat, "a100-sxm4-80gb");
    struct llmroof_effs eff = roofline_default_effs(g);
    eff.compute = 0.5;
    eff.memory = 0.8;
    struct opval_row r = { .op = LLMROOF_OP_QKV_PROJ, .tokens = 4096, .batch = 1, .dtype = LLMROOF_FP16,
                           .measured_s = 1e-3, .line = 2 };
    struct opval_pred p;
    struct llmroof_err err = { 0 };
    /* qkv_proj of one layer at 4096 tokens: q, k, v outputs (32 + 2*32) heads * 128 = 12288;
     * FLOPs = 2 * 4096 * 4096 * 12288 = 412,316,860,416; compute-bound on an A100
     * (312 TFLOP/s fp16): 412.3e9 / (312e12 * 0.5) = 2.643 ms, plus one kernel's fixed cost of
     * 3 us (kernel.h's default; the A100 entry gives none): 2.646 ms */
    assert_int_equal(opval_predict(&r, m, 1, g, &eff, "ops.csv", &p, &err), 0);
    assert_rel_close(p.flops, 412316860416.0, 1e-12);
    assert_int_equal(p.bound, LLMROOF_BOUND_COMPUTE);
    /* (the memory term, 235 MB / 1631 GB/s = 0.144 ms, lifts the smooth ridge by
     * (1 + (0.144/2.643)^6)^(1/6) - 1 = 4e-9) */
    assert_rel_close(p.predicted_s, 412316860416.0 / (312e12 * 0.5) + 3e-6, 1e-8);
    /* measured 1 ms would be 412.3e9 / (1e-3 * 312e12) = 1.3215 of peak: the anomaly shows */
    assert_rel_close(p.achieved_flops_frac, 412316860416.0 / (1e-3 * 312e12), 1e-9);
    /* TP 2 halves the heads on a rank: half the FLOPs */
    assert_int_equal(opval_predict(&r, m, 2, g, &eff, "ops.csv", &p, &err), 0);
    assert_rel_close(p.flops, 412316860416.0 / 2, 1e-12);
    /* the LM head at `tokens` rows: 2 * 64 * 4096 * 32000 = 16,777,216,000 FLOPs */
    r.op = LLMROOF_OP_LM_HEAD;
    r.tokens = r.batch = 64;
    assert_int_equal(opval_predict(&r, m, 1, g, &eff, "ops.csv", &p, &err), 0);
    assert_rel_close(p.flops, 16777216000.0, 1e-12);
    /* decode attention, batch 8 over 4096 keys: it reads K and V of every key,
     * 8 * 4096 * 2 * 32 * 128 * 2 bytes = 536,870,912, and is memory-bound */
    r.op = LLMROOF_OP_ATTENTION;
    r.tokens = r.batch = 8;
    r.context = 4096;
    assert_int_equal(opval_predict(&r, m, 1, g, &eff, "ops.csv", &p, &err), 0);
    assert_int_equal(p.bound, LLMROOF_BOUND_MEMORY);
    assert_true(p.bytes >= 536870912.0 && p.bytes < 536870912.0 * 1.01);
    assert_rel_close(p.predicted_s, p.bytes / (g->mem_bw_Bps * 0.8) + 3e-6, 1e-9); /* + one kernel, 3 us */
    /* a dense model has no router */
    r.op = LLMROOF_OP_ROUTER;
    assert_int_equal(opval_predict(&r, m, 1, g, &eff, "ops.csv", &p, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "ops.csv:2: model 'llama-2-7b' has no router operator"));
    /* TP that does not divide the heads: the row named */
    r.op = LLMROOF_OP_FFN;
    assert_int_equal(opval_predict(&r, m, 3, g, &eff, "ops.csv", &p, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "ops.csv:2: "));
    assert_non_null(strstr(err.msg, "TP 3 does not divide"));
    /* an LM head the kit timed in fp8 reads fp8 weights: 32,000 x 4,096 x 1 B = 131,072,000 B (an
     * engine keeps it 16-bit beside fp8 layers; priced so, the kit's rows had read 141-165% of the
     * H100's bandwidth and capped the fitted memory share: a review of session 64) */
    const struct llmroof_gpu *h = gpu(&cat, "h100-sxm5-80gb");
    const struct llmroof_effs heff = roofline_default_effs(h);
    r.op = LLMROOF_OP_LM_HEAD;
    r.tokens = r.batch = 1;
    r.context = 0;
    r.dtype = LLMROOF_FP8;
    assert_int_equal(opval_predict(&r, m, 1, h, &heff, "ops.csv", &p, &err), 0);
    assert_true(p.bytes >= 131072000.0 && p.bytes < 131072000.0 * 1.01);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_rows_and_errors),
        cmocka_unit_test(kernels_map_to_operator_instances),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
