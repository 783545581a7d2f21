/* test_sweep.c - sweep rows: CSV and JSON Lines agree, invalid rows carry reasons, and a
 * row read back from JSON Lines equals the row that was written. */
#include "helpers.h"

#include "fit/baseline.h"
#include "fit/sweep.h"

static const struct llmroof_dtypes FP16 = { LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };

static void csv_and_jsonl_carry_the_same_values(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sweep_row r, back;
    sweep_eval(model(&cat, "internlm-20b"), gpu(&cat, "a40"), 8, 16, 512, 1536, &FP16, &r);
    assert_true(r.valid);
    struct sbuf csv, js;
    sbuf_init(&csv);
    sbuf_init(&js);
    sweep_csv_row(&r, &csv);
    sweep_jsonl_row(&r, &js);
    struct llmroof_err err = { 0 };
    assert_int_equal(baseline_parse_row(sbuf_str(&js), js.len - 1, "t", 1, &back, &err), 0);
    /* every numeric field survives the text round trip to 10 significant digits */
    for (int i = 0; i < SWEEP_NUM_FIELDS; i++)
        assert_rel_close(sweep_num_field(&back, i), sweep_num_field(&r, i), 1e-9);
    /* ... and exactly at that stored precision, which check compares at: --rtol 0 passes on a
     * baseline just written (issue 22 item 9; without sweep_stored_value the fresh value's
     * 17 digits differ from the stored 10 in most fields) */
    int inexact = 0;
    for (int i = 0; i < SWEEP_NUM_FIELDS; i++) {
        double fresh = sweep_num_field(&r, i);
        assert_true(sweep_num_field(&back, i) == sweep_stored_value(fresh));
        inexact += sweep_num_field(&back, i) != fresh;
    }
    assert_true(inexact > 0); /* the case the rounding exists for does occur here */
    /* the CSV holds the same printed numbers: each JSON value appears between commas */
    for (int i = 0; i < 8; i++) {
        char key[64], *p;
        snprintf(key, sizeof key, "\"%s\":", sweep_num_field_names[i]);
        p = strstr(js.data, key);
        assert_non_null(p);
        p += strlen(key);
        char val[40] = ",";
        size_t n = strcspn(p, ",}");
        strncat(val, p, n);
        strcat(val, ",");
        if (!strstr(csv.data, val)) {
            print_error("%s value %s missing from CSV %s\n", sweep_num_field_names[i], val, csv.data);
            fail();
        }
    }
    sbuf_free(&csv);
    sbuf_free(&js);
    catalog_free(&cat);
}

static void invalid_rows_carry_reasons(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct sweep_row r;
    sweep_eval(model(&cat, "internlm-20b"), gpu(&cat, "a100"), 3, 1, 10, 10, &FP16, &r);
    assert_false(r.valid);
    assert_string_equal(r.reason, "model 'internlm-20b' has 40 attention heads, which TP 3 does not divide");
    struct llmroof_dtypes bf = { LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    sweep_eval(model(&cat, "llama-2-7b"), gpu(&cat, "v100"), 1, 1, 10, 10, &bf, &r);
    assert_false(r.valid);
    assert_non_null(strstr(r.reason, "no bf16 compute path"));
    struct sbuf b;
    sbuf_init(&b);
    sweep_csv_row(&r, &b);
    /* 24 columns: 23 commas outside the quoted reason */
    int commas = 0, quoted = 0;
    for (const char *p = b.data; *p; p++) {
        if (*p == '"')
            quoted ^= 1;
        else if (*p == ',' && !quoted)
            commas++;
    }
    assert_int_equal(commas, 23);
    sbuf_free(&b);
    catalog_free(&cat);
}

/* A model whose recurrent state the catalog keeps in fp32 (Kimi-Linear's linear.state_dtype) is
 * swept with it, as estimate and memory take it by default: the row's max batch is memory's
 * (a review found sweep at a 16-bit state, 594 sequences where memory said 472). */
static void sweep_takes_the_models_state_dtype(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_shipped(&cat);
    const struct llmroof_model *m = model(&cat, "kimi-linear-48b-a3b");
    const struct llmroof_gpu *g = gpu(&cat, "h100");
    assert_true(m->lin_state_dtype_set);
    assert_int_equal(m->lin_state_dtype, LLMROOF_FP32);
    struct sweep_row r;
    sweep_eval(m, g, 2, 1, 1000, 3000, &FP16, &r);
    assert_true(r.valid);
    assert_true(r.dt.state_set);
    assert_int_equal(r.dt.state, LLMROOF_FP32);
    struct llmroof_dtypes d32 = FP16;
    d32.state_set = true;
    d32.state = LLMROOF_FP32;
    const struct llmroof_layout lay = { 2, 1, 1, false, 0, false, 0, false, false, false };
    struct llmroof_mem_opts mo = memory_default_opts();
    struct llmroof_memory mem;
    struct llmroof_err err = { 0 };
    assert_int_equal(memory_eval_layout(m, g, &lay, &d32, 4000, &mo, &mem, &err), 0);
    assert_true(r.max_batch == mem.max_batch);
    /* at a 16-bit state the cache holds more sequences: the two differ */
    struct llmroof_dtypes d16 = FP16;
    d16.state_set = true;
    struct llmroof_memory m16;
    assert_int_equal(memory_eval_layout(m, g, &lay, &d16, 4000, &mo, &m16, &err), 0);
    assert_true(m16.max_batch > mem.max_batch);
    /* --state-dtype fp16 named: the row says so and holds memory's 16-bit figure; it survives the
     * JSON Lines round trip that check reads */
    struct sweep_row r16, back;
    sweep_eval(m, g, 2, 1, 1000, 3000, &d16, &r16);
    assert_true(r16.state_given);
    assert_false(r.state_given);
    assert_true(r16.max_batch == m16.max_batch);
    struct sbuf js;
    sbuf_init(&js);
    sweep_jsonl_row(&r16, &js);
    assert_non_null(strstr(sbuf_str(&js), "\"act_dtype\":\"fp16\",\"state_dtype\":\"fp16\",\"valid\""));
    assert_int_equal(baseline_parse_row(sbuf_str(&js), js.len - 1, "t", 1, &back, &err), 0);
    assert_true(back.state_given && back.dt.state_set);
    assert_int_equal(back.dt.state, LLMROOF_FP16);
    sbuf_free(&js);
    catalog_free(&cat);
}

static void baseline_reader_rejects_bad_rows_with_their_line(void **state)
{
    struct sweep_row r;
    struct llmroof_err err = { 0 };
    const char *bad[] = {
        "{\"model\":\"x\"",                                      /* malformed */
        "[1,2]",                                                 /* not an object */
        "{\"model\":\"llama-2-7b\",\"gpux\":1}",                 /* unknown column */
        ("{\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"tp\":0,\"batch\":1,\"prompt_len\":1,\"output_len\":1,"
         "\"weight_dtype\":\"fp16\",\"kv_dtype\":\"fp16\",\"act_dtype\":\"fp16\",\"valid\":false,\"reason\":\"x\"}"),
    };
    const char *want[] = { "b.jsonl:7:", "expected a JSON object", "field 'gpux' is not a sweep column",
                           "field 'tp' must be an integer in [1, 1024]" };
    for (int i = 0; i < 4; i++) {
        assert_int_equal(baseline_parse_row(bad[i], strlen(bad[i]), "b.jsonl", 7, &r, &err), LLMROOF_EINPUT);
        if (!strstr(err.msg, want[i]) || !strstr(err.msg, "b.jsonl:7")) {
            print_error("got '%s', wanted '%s'\n", err.msg, want[i]);
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_and_jsonl_carry_the_same_values),
        cmocka_unit_test(invalid_rows_carry_reasons),
        cmocka_unit_test(sweep_takes_the_models_state_dtype),
        cmocka_unit_test(baseline_reader_rejects_bad_rows_with_their_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
