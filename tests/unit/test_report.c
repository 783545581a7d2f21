/* test_report.c - the GPU x TP report, its observations and its charts. */
#include "helpers.h"

#include <ctype.h>

#include "render/render_report.h"
#include "render/svg.h"

static struct llmroof_report rep; /* large: static */

static void build_default(const struct llmroof_catalog *cat, const char *m, const char *const *gpus, int ng,
                          const int *tps, int nt)
{
    struct report_input in;
    memset(&in, 0, sizeof in);
    in.model = model(cat, m);
    for (int i = 0; i < ng; i++)
        in.gpus[in.ngpus++] = gpu(cat, gpus[i]);
    for (int i = 0; i < nt; i++)
        in.tps[in.ntps++] = tps[i];
    in.req = (struct llmroof_request){ 16, 512, 1536 };
    in.dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    in.mem = memory_default_opts();
    struct llmroof_err err = { 0 };
    if (report_build(&in, &rep, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
}

static const char *const studies_gpus[] = { "a40", "a100", "v100" };
static const int studies_tps[] = { 2, 4, 8 };

static void shares_sum_to_100_percent(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    build_default(&cat, "internlm-20b", studies_gpus, 3, studies_tps, 3);
    assert_int_equal(rep.nrows, 9);
    for (int i = 0; i < rep.nrows; i++) {
        double p = 0, d = 0;
        for (int c = 0; c < REPORT_CAT_COUNT; c++) {
            p += rep.rows[i].prefill_share[c];
            d += rep.rows[i].decode_share[c];
        }
        assert_rel_close(100 * p, 100.0, 0.001); /* within 0.1 of 100% */
        assert_rel_close(100 * d, 100.0, 0.001);
    }
    catalog_free(&cat);
}

/* Property: with --pp/--ep every estimated row is estimate_run and memory_eval_layout of the same
 * layout (TTFT, TPOT, weights per GPU equal), and per-GPU figures divide by the layout's GPUs,
 * not by TP; a TP the layout rules out (EP 4 needs TP 4 without --dp-attention) is a bad-tp row. */
static void layout_rows_equal_estimate_and_count_the_layout_gpus(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    static const struct { int pp, ep; bool dp; } lays[] = { { 2, 1, false }, { 1, 4, false }, { 2, 4, false },
                                                           { 1, 8, true } };
    static const int tps[] = { 1, 2, 4, 8 };
    for (size_t k = 0; k < sizeof lays / sizeof lays[0]; k++) {
        struct report_input in;
        memset(&in, 0, sizeof in);
        in.model = model(&cat, "mixtral-8x7b");
        in.gpus[in.ngpus++] = gpu(&cat, "h100");
        for (int i = 0; i < 4; i++)
            in.tps[in.ntps++] = tps[i];
        in.req = (struct llmroof_request){ 16, 512, 256 };
        in.dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        in.mem = memory_default_opts();
        in.layout = (struct llmroof_layout){ 0, lays[k].pp, lays[k].ep, lays[k].dp, 1.0, false, 0, false, false, false };
        struct llmroof_err err = { 0 };
        assert_int_equal(report_build(&in, &rep, &err), 0);
        assert_true(rep.has_layout);
        int estimated = 0;
        for (int i = 0; i < rep.nrows; i++) {
            const struct report_row *x = &rep.rows[i];
            struct llmroof_layout lay = in.layout;
            lay.tp = x->tp;
            struct llmroof_shard sh;
            bool ok = ops_shard_layout(in.model, &lay, &sh, &err) == LLMROOF_OK;
            assert_int_equal(x->status == REPORT_BAD_TP, !ok);
            if (!ok)
                continue;
            estimated++;
            /* GPUs = (ep > 1 ? ep : tp) x pp (src/model/layout.c) */
            assert_int_equal(x->gpus, (lays[k].ep > 1 ? lays[k].ep : x->tp) * lays[k].pp);
            struct llmroof_setup s = { in.model, x->gpu, x->tp, in.dt, roofline_effs(x->gpu, &in.eff), in.layout };
            struct llmroof_estimate e;
            assert_int_equal(estimate_run(&s, &in.req, &e, &err), 0);
            assert_true(x->has_est);
            assert_true(x->est.ttft_s == e.ttft_s);
            assert_true(x->est.tpot_s == e.tpot_s);
            struct llmroof_memory mem;
            assert_int_equal(memory_eval_layout(in.model, x->gpu, &lay, &in.dt, 768, &in.mem, &mem, &err), 0);
            assert_true(x->mem.weights_bytes_per_gpu == mem.weights_bytes_per_gpu);
            assert_true(x->mem.max_batch == mem.max_batch);
        }
        assert_true(estimated >= 1);
    }
    catalog_free(&cat);
}

/* Expert parallelism (issue 22, item 2): the all-to-all is its own category, equal to the
 * estimate's all-to-all time over the phase time, and never inside all_reduce; with EP 8 and
 * --dp-attention every TP uses 8 GPUs, so no row has a scaling figure and no observation says
 * that adding GPUs pays little or slows decode. */
static void ep_report_files_all_to_all_apart_and_compares_no_equal_gpu_rows(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    struct report_input in;
    memset(&in, 0, sizeof in);
    in.model = model(&cat, "mixtral-8x7b");
    in.gpus[in.ngpus++] = gpu(&cat, "h100");
    in.tps[in.ntps++] = 2;
    in.tps[in.ntps++] = 4;
    in.req = (struct llmroof_request){ 32, 1024, 256 };
    in.dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    in.mem = memory_default_opts();
    in.layout = (struct llmroof_layout){ 0, 1, 8, true, 1.0, false, 0, false, false, false };
    struct llmroof_err err = { 0 };
    assert_int_equal(report_build(&in, &rep, &err), 0);
    assert_true(report_cat_shown(&rep, REPORT_ALL_TO_ALL));
    assert_false(report_cat_shown(&rep, REPORT_PP_SEND));
    for (int i = 0; i < rep.nrows; i++) {
        const struct report_row *x = &rep.rows[i];
        assert_true(x->has_est);
        assert_int_equal(x->gpus, 8);
        assert_false(x->has_scaling);
        for (int k = 0; k < 2; k++) {
            const struct llmroof_phase *p = k ? &x->est.decode : &x->est.prefill;
            const double *sh = k ? x->decode_share : x->prefill_share;
            /* the shares are the op times over the phase time, one category each */
            assert_true(p->op[LLMROOF_OP_ALL_TO_ALL].time_s > 0);
            assert_rel_close(sh[REPORT_ALL_TO_ALL], p->op[LLMROOF_OP_ALL_TO_ALL].time_s / p->time_s, 1e-12);
            assert_rel_close(sh[REPORT_ALL_REDUCE] + 1.0, p->op[LLMROOF_OP_ALL_REDUCE].time_s / p->time_s + 1.0, 1e-12);
        }
    }
    for (int i = 0; i < rep.nobs; i++)
        assert_null(strstr(rep.obs[i], "Adding GPUs"));
    /* a TP-only report keeps its columns: no all_to_all, no pp_send */
    in.layout = (struct llmroof_layout){ 0, 1, 1, false, 1.0, false, 0, false, false, false };
    assert_int_equal(report_build(&in, &rep, &err), 0);
    assert_false(report_cat_shown(&rep, REPORT_ALL_TO_ALL));
    assert_false(report_cat_shown(&rep, REPORT_PP_SEND));
    assert_true(report_cat_shown(&rep, REPORT_ROUTER));
    catalog_free(&cat);
}

static void observations_name_a40_communication_heavy_decode(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    build_default(&cat, "internlm-20b", studies_gpus, 3, studies_tps, 3);
    bool found = false;
    for (int i = 0; i < rep.nobs; i++)
        if (strstr(rep.obs[i], "Communication-dominated decode") && strstr(rep.obs[i], "a40 TP 8"))
            found = true;
    assert_true(found);
    /* and not A100: NVLink keeps its decode all-reduce below 30% */
    for (int i = 0; i < rep.nobs; i++)
        if (strstr(rep.obs[i], "Communication-dominated decode"))
            assert_null(strstr(rep.obs[i], "a100"));
    catalog_free(&cat);
}

static void scaling_efficiency_is_relative_to_the_smallest_tp(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    build_default(&cat, "internlm-20b", studies_gpus, 3, studies_tps, 3);
    /* rows are GPU-major: a40 TP 2, 4, 8 */
    const struct report_row *t2 = &rep.rows[0], *t8 = &rep.rows[2];
    assert_int_equal(t8->tp, 8);
    assert_false(t2->has_scaling);
    assert_true(t8->has_scaling);
    /* (TPOT_2 * 2) / (TPOT_8 * 8) */
    assert_rel_close(t8->tp_scaling_eff, (t2->est.tpot_s * 2) / (t8->est.tpot_s * 8), 1e-12);
    catalog_free(&cat);
}

static void invalid_configurations_stay_in_the_table(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    static const int tps[] = { 1, 3, 8 };
    static const char *const gpus[] = { "v100", "a100-sxm4-80gb" };
    build_default(&cat, "internlm-20b", gpus, 2, tps, 3);
    assert_int_equal(rep.nrows, 6);
    /* TP 3 does not divide 40 heads */
    assert_int_equal(rep.rows[1].status, REPORT_BAD_TP);
    assert_non_null(strstr(rep.rows[1].reason, "TP 3 does not divide"));
    /* 40 GB of fp16 weights do not fit one 32 GB V100 */
    assert_int_equal(rep.rows[0].status, REPORT_NO_FIT);
    assert_int_equal(rep.rows[0].mem.fit, LLMROOF_FIT_WEIGHTS);
    /* bf16 on V100: not estimated, marked */
    struct report_input in;
    memset(&in, 0, sizeof in);
    in.model = model(&cat, "llama-2-7b");
    in.gpus[in.ngpus++] = gpu(&cat, "v100");
    in.tps[in.ntps++] = 1;
    in.req = (struct llmroof_request){ 1, 10, 10 };
    in.dt = (struct llmroof_dtypes){ LLMROOF_BF16, LLMROOF_BF16, LLMROOF_BF16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    in.mem = memory_default_opts();
    struct llmroof_err err = { 0 };
    assert_int_equal(report_build(&in, &rep, &err), 0);
    assert_int_equal(rep.rows[0].status, REPORT_BAD_DTYPE);
    catalog_free(&cat);
}

/* Minimal XML well-formedness check: balanced, properly nested tags, quoted attributes,
 * no raw '<' or stray '&' in text. Enough to catch what a renderer can get wrong. */
static bool xml_well_formed(const char *s, char *why, size_t n)
{
    char stack[64][32];
    int depth = 0, roots = 0;
    const char *p = s;
    if (strncmp(p, "<?xml", 5) == 0) {
        p = strstr(p, "?>");
        if (!p)
            return snprintf(why, n, "unterminated declaration"), false;
        p += 2;
    }
    while (*p) {
        if (*p == '&') {
            const char *semi = strchr(p, ';');
            if (!semi || semi - p > 6)
                return snprintf(why, n, "stray '&' at %ld", (long)(p - s)), false;
            p = semi + 1;
            continue;
        }
        if (*p != '<') {
            p++;
            continue;
        }
        if (p[1] == '/') {
            const char *q = p + 2;
            size_t len = strcspn(q, ">");
            if (depth == 0 || strlen(stack[depth - 1]) != len || strncmp(stack[depth - 1], q, len) != 0)
                return snprintf(why, n, "mismatched close tag at %ld", (long)(p - s)), false;
            depth--;
            p = q + len + 1;
            continue;
        }
        const char *q = p + 1;
        size_t len = 0;
        while (isalnum((unsigned char)q[len]) || q[len] == '-' || q[len] == ':')
            len++;
        if (len == 0 || len >= 32)
            return snprintf(why, n, "bad tag name at %ld", (long)(p - s)), false;
        char name[32];
        memcpy(name, q, len);
        name[len] = 0;
        q += len;
        for (;;) { /* attributes */
            while (isspace((unsigned char)*q))
                q++;
            if (*q == '>' || (q[0] == '/' && q[1] == '>'))
                break;
            while (isalnum((unsigned char)*q) || *q == '-' || *q == ':')
                q++;
            if (*q++ != '=' || *q++ != '"')
                return snprintf(why, n, "unquoted attribute in <%s> at %ld", name, (long)(q - s)), false;
            const char *end = strchr(q, '"');
            if (!end)
                return snprintf(why, n, "unterminated attribute"), false;
            for (const char *c = q; c < end; c++)
                if (*c == '<')
                    return snprintf(why, n, "'<' inside an attribute"), false;
            q = end + 1;
        }
        if (*q == '/') {
            p = q + 2;
            if (depth == 0)
                roots++;
            continue;
        }
        if (depth == 0)
            roots++;
        if (depth == 64)
            return snprintf(why, n, "too deep"), false;
        strcpy(stack[depth++], name);
        p = q + 1;
    }
    if (depth != 0)
        return snprintf(why, n, "unclosed <%s>", stack[depth - 1]), false;
    if (roots != 1)
        return snprintf(why, n, "%d root elements", roots), false;
    return true;
}

static void charts_are_well_formed_xml(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    build_default(&cat, "internlm-20b", studies_gpus, 3, studies_tps, 3);
    char why[128];
    for (int k = 0; k < 2; k++) {
        struct sbuf b;
        sbuf_init(&b);
        render_report_chart(&rep, k == 1, true, &b);
        if (!xml_well_formed(sbuf_str(&b), why, sizeof why)) {
            print_error("chart %d: %s\n", k, why);
            fail();
        }
        sbuf_free(&b);
    }
    struct svg_point pts[] = { { "ffn <&>", 900.0, 1e14, 0 }, { "attention", 1.0, 1e12, 1 } };
    struct sbuf b;
    sbuf_init(&b);
    svg_roofline(&b, "a \"title\" & more", gpu(&cat, "h100"), 0.8, 0.65, LLMROOF_FP16, pts, 2, true);
    if (!xml_well_formed(sbuf_str(&b), why, sizeof why)) {
        print_error("roofline: %s\n", why);
        fail();
    }
    assert_non_null(strstr(sbuf_str(&b), "ffn &lt;&amp;&gt;"));
    /* an H100's fp8 and int8 peaks are one: one roof, one label (the int8 label had sat beside a
     * gold fp8 line, drawn over its own), and fp16 / bf16 likewise; 8-bit GEMMs reach the H100's
     * gemm_8bit share (0.93) of the compute efficiency, as estimate charges: 0.65 x 0.93 x 1979 =
     * 1196 (it had drawn 0.65 x 1979 = 1286); "achievable", as the bandwidth slope's label (a
     * review read 703 on an H100 as a wrong peak) */
    assert_non_null(strstr(sbuf_str(&b), ">fp8 / int8 1196 TFLOP/s achievable</text>"));
    assert_non_null(strstr(sbuf_str(&b), ">fp16 / bf16 643 TFLOP/s achievable</text>"));
    assert_null(strstr(sbuf_str(&b), ">int8 "));
    /* the height its list takes: 2 entries, one row of two columns: 40 + 440 + 52 + 12 = 544
     * (a height for one column of every point, 560, and 760 for an estimate's list, had left the
     * page's chart empty at its foot); the width its longest roof label takes: 34 characters
     * ("fp8 / int8 1196 TFLOP/s achievable") at 0.6 x 12 px = 244.8, so 80 + 570 + ceil(6 + 244.8
     * + 10) = 911 (800 had cut 24-character labels such as a B200's "fp16 / bf16 1544 TFLOP/s" at
     * the edge) */
    assert_non_null(strstr(sbuf_str(&b), "width=\"911\" height=\"544\" viewBox=\"0 0 911 544\""));
    sbuf_free(&b);
    /* two prefill points within 10 px share a number, and the list gives their intensities as a
     * range (one operator's had stood for both: "qkv_proj, o_proj (1894 FLOP/B)" where o_proj's
     * is 1598; a review): 1,894 and 1,850 FLOP/B at 7e14 FLOP/s */
    struct svg_point two[] = { { "qkv_proj", 1894.0, 7e14, 0 }, { "o_proj", 1850.0, 7e14, 0 } };
    sbuf_init(&b);
    svg_roofline(&b, "t", gpu(&cat, "h100"), 0.8, 0.65, LLMROOF_FP16, two, 2, true);
    assert_non_null(strstr(sbuf_str(&b), "qkv_proj, o_proj (1850-1894 FLOP/B)"));
    sbuf_free(&b);
    /* the checker itself rejects broken documents */
    assert_false(xml_well_formed("<svg><g></svg>", why, sizeof why));
    assert_false(xml_well_formed("<svg a=b></svg>", why, sizeof why));
    assert_false(xml_well_formed("<svg>a & b</svg>", why, sizeof why));
    catalog_free(&cat);
}

static void html_is_self_contained(void **state)
{
    struct llmroof_catalog cat;
    load_shipped(&cat);
    build_default(&cat, "internlm-20b", studies_gpus, 3, studies_tps, 3);
    struct sbuf b;
    sbuf_init(&b);
    render_report_html(&rep, &b);
    const char *h = sbuf_str(&b);
    static const char *const forbidden[] = { "src=", "href=", "url(", "@import", "<script", "<link", "http:", "https:" };
    for (size_t i = 0; i < sizeof forbidden / sizeof forbidden[0]; i++)
        if (strstr(h, forbidden[i])) {
            print_error("HTML contains '%s'\n", forbidden[i]);
            fail();
        }
    assert_non_null(strstr(h, "<svg"));
    assert_non_null(strstr(h, "Table 1: configurations"));
    assert_non_null(strstr(h, "Observations"));
    sbuf_free(&b);
    catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares_sum_to_100_percent),
        cmocka_unit_test(layout_rows_equal_estimate_and_count_the_layout_gpus),
        cmocka_unit_test(ep_report_files_all_to_all_apart_and_compares_no_equal_gpu_rows),
        cmocka_unit_test(observations_name_a40_communication_heavy_decode),
        cmocka_unit_test(scaling_efficiency_is_relative_to_the_smallest_tp),
        cmocka_unit_test(invalid_configurations_stay_in_the_table),
        cmocka_unit_test(charts_are_well_formed_xml),
        cmocka_unit_test(html_is_self_contained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
