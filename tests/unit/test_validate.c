/* test_validate.c - reading measurements, mapping them, error statistics and calibration. */
#include "helpers.h"

#include "fit/servval.h"
#include "fit/validate.h"

static struct llmroof_valmap map;

static void load_all(struct llmroof_catalog *cat)
{
    struct llmroof_err err = { 0 };
    char *text;
    size_t len;
    load_shipped(cat);
    assert_int_equal(catalog_add_engines_file(cat, LLMROOF_TEST_DATA_DIR "/engines.json", false, &err), 0);
    assert_int_equal(catalog_read_file(LLMROOF_TEST_DATA_DIR "/validation-map.json", 1 << 20, &text, &len, &err), 0);
    if (catalog_load_valmap(text, len, "validation-map.json", &map, &err)) {
        print_error("%s\n", err.msg);
        fail();
    }
    free(text);
}

static const char header[] = "id,model,gpu,num_gpus,tp,weight_dtype,kv_dtype,framework,batch,input_len,output_len,"
                             "metric,value,unit,notes,source\n";

static void csv_reader_handles_quotes_and_reports_lines(void **state)
{
    char text[2048];
    snprintf(text, sizeof text, "%s%s", header,
             "x1,Llama-2-7B,RTX 4090,1,1,fp16,fp16,\"calm, a \"\"fast\"\" engine\",1,0,32,decode_tok_s_per_seq,67,tok/s,"
             "\"notes, with\r\na newline\",src\r\n"
             "x2,Llama-2-7B,RTX 4090,1,1,q4_0,f16,calm,1,0,32,decode_tok_s_per_seq,150,tok/s,,src\n");
    struct val_row *rows;
    size_t n;
    struct llmroof_err err = { 0 };
    assert_int_equal(val_parse_csv(text, strlen(text), "m.csv", &rows, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(rows[0].framework, "calm, a \"fast\" engine");
    assert_string_equal(rows[1].weight_dtype, "q4_0");
    assert_int_equal(rows[1].line, 4); /* the quoted newline spans lines 2-3 */
    free(rows);
    const char *bad = "id,model\nx,y\n";
    assert_int_equal(val_parse_csv(bad, strlen(bad), "b.csv", &rows, &n, &err), LLMROOF_EINPUT);
    assert_string_equal(err.msg, "b.csv:1: header lacks column 'gpu'");
    snprintf(text, sizeof text, "%sx1,\"unterminated,", header);
    assert_int_equal(val_parse_csv(text, strlen(text), "u.csv", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "unterminated quoted field"));
}

static void unmappable_rows_say_why(void **state)
{
    struct llmroof_catalog cat;
    load_all(&cat);
    struct val_row r = { .id = "r", .model = "Llama-2-7B", .gpu = "MI250X (one GCD)", .num_gpus = "1", .tp = "1",
                         .weight_dtype = "fp16", .kv_dtype = "fp16", .framework = "calm", .batch = "1",
                         .input_len = "0", .output_len = "32", .metric = "decode_tok_s_per_seq", .value = "50" };
    struct val_case c;
    val_map_row(&cat, &map, &r, &c);
    assert_false(c.mapped);
    assert_string_equal(c.reason, "GPU 'MI250X (one GCD)' is neither a catalog id nor a name in the map (--map)");
    strcpy(r.gpu, "RTX 4090");
    strcpy(r.metric, "joules_per_token");
    val_map_row(&cat, &map, &r, &c);
    assert_non_null(strstr(c.reason, "metric 'joules_per_token' is not one llmroof predicts"));
    strcpy(r.metric, "decode_tok_s_per_seq");
    strcpy(r.num_gpus, "4");
    strcpy(r.tp, "2");
    val_map_row(&cat, &map, &r, &c);
    assert_non_null(strstr(c.reason, "pipeline or data parallelism is not modelled"));
    strcpy(r.num_gpus, "2");
    strcpy(r.tp, "1");
    strcpy(r.input_len, "~few hundred (unstated)");
    val_map_row(&cat, &map, &r, &c);
    assert_true(c.mapped);
    assert_true(c.layer_split);
    /* XiongjieDai's Dec 2023 ./main runs: llama_print_timings reads 494 prompt tokens */
    assert_int_equal(c.prompt, 494);
    assert_non_null(strstr(c.assumptions, "input_len '~few hundred (unstated)' taken from the map"));
    assert_non_null(c.engine);
    assert_string_equal(c.engine->id, "calm");
    /* "GPU @ framework" before the GPU alone: that publication's nvidia-smi prints an A100 80GB
     * PCIe; other rows that leave the variant unstated stay SXM4 */
    strcpy(r.num_gpus, "1");
    strcpy(r.gpu, "A100-80GB (variant not stated)");
    val_map_row(&cat, &map, &r, &c);
    assert_true(c.mapped);
    assert_string_equal(c.gpu->id, "a100-sxm4-80gb");
    assert_null(strstr(c.assumptions, "gpu taken as"));
    strcpy(r.framework, "llama.cpp (CUDA, Dec 2023)");
    val_map_row(&cat, &map, &r, &c);
    assert_true(c.mapped);
    assert_string_equal(c.gpu->id, "a100-pcie-80gb");
    assert_non_null(strstr(c.assumptions, "gpu taken as a100-pcie-80gb from the map's key for this framework"));
    assert_string_equal(c.engine->id, "llama.cpp-2023-12");
    catalog_free(&cat);
}

static void new_mappings_compute_dtype_batch_and_reserved_sources(void **state)
{
    struct llmroof_catalog cat;
    load_all(&cat);
    struct val_row r;
    memset(&r, 0, sizeof r);
    strcpy(r.id, "y1");
    strcpy(r.model, "Llama-2-7B");
    strcpy(r.gpu, "A100 80GB (SXM/PCIe not stated)");
    strcpy(r.num_gpus, "1");
    strcpy(r.tp, "1");
    strcpy(r.weight_dtype, "int8 (W8A8 SmoothQuant-style)");
    strcpy(r.kv_dtype, "? (not stated)");
    strcpy(r.framework, "TensorRT-LLM (version not stated)");
    strcpy(r.batch, "? (max batch fitting memory; not stated)");
    strcpy(r.input_len, "1024");
    strcpy(r.output_len, "512");
    strcpy(r.metric, "throughput_out_tok_s");
    strcpy(r.value, "2334");
    strcpy(r.source, "github.com/mit-han-lab/omniserve README.md (@02b2925a)");
    struct val_case c;
    val_map_row(&cat, &map, &r, &c);
    assert_true(c.mapped);
    /* W8A8 computes in int8 (the map's "act"); the KV cache stays fp16 */
    assert_int_equal(c.dt.act, LLMROOF_INT8);
    assert_int_equal(c.dt.weight, LLMROOF_INT8);
    assert_int_equal(c.dt.kv, LLMROOF_FP16);
    /* "max batch fitting memory": llmroof's own memory model at 1536 tokens per sequence;
     * 6.7e9 int8 weights leave about 64 GiB for a KV of 0.75 GiB per sequence: tens of them */
    assert_true(c.batch > 50 && c.batch < 120);
    assert_non_null(strstr(c.assumptions, "the most that fits by llmroof's memory model"));
    char key[VAL_TEXT];
    val_source_key(&r, key, sizeof key);
    assert_string_equal(key, "github.com/mit-han-lab/omniserve");
    strcpy(r.source, "https://github.com/turboderp/exllamav2 README.md");
    val_source_key(&r, key, sizeof key);
    assert_string_equal(key, "github.com/turboderp/exllamav2");
    val_map_row(&cat, &map, &r, &c);
    assert_false(c.mapped);
    assert_non_null(strstr(c.reason, "reserved for the independent check"));
    /* NeMo's documentation pages are reserved by issue #23 ("NeMo docs and blogs") */
    strcpy(r.source, "https://docs.nvidia.com/nemo-framework/user-guide/latest/performance/llama.html (Llama-2)");
    val_map_row(&cat, &map, &r, &c);
    assert_false(c.mapped);
    assert_string_equal(c.reason, "source 'docs.nvidia.com/nemo-framework' is reserved for the independent check");
    /* no source column: the framework keys the row */
    r.source[0] = '\0';
    val_source_key(&r, key, sizeof key);
    assert_string_equal(key, "TensorRT-LLM (version not stated)");
    catalog_free(&cat);
}

static bool in_class(const struct val_case *c, const void *cls)
{
    return val_metric_class(c->metric) == *(const enum val_class *)cls;
}

static void published_measurements_are_met_within_the_targets(void **state)
{
    /* scripts/test.sh's sanitizer stage sets LLMROOF_SKIP_CV_GUARDS: this guard's two
     * cross-validations (about 45 s of its 4 minutes under ASan) run there once through
     * validate_in_sample and validate_small_by_source; stage 1 runs the guard itself */
    if (getenv("LLMROOF_SKIP_CV_GUARDS"))
        skip();
    struct llmroof_catalog cat;
    load_all(&cat);
    char *text;
    size_t len, n;
    struct val_row *rows;
    struct llmroof_err err = { 0 };
    assert_int_equal(catalog_read_file(LLMROOF_TEST_FIXTURES "/validation/measurements.csv", 1 << 22, &text, &len, &err), 0);
    assert_int_equal(val_parse_csv(text, len, "measurements.csv", &rows, &n, &err), 0);
    free(text);
    struct val_case *cases = calloc(n, sizeof *cases);
    size_t mapped = 0;
    for (size_t i = 0; i < n; i++) {
        val_map_row(&cat, &map, &rows[i], &cases[i]);
        if (cases[i].mapped) {
            assert_int_equal(val_predict(&cases[i], NULL, NULL, &err), 0);
            mapped++;
        } else {
            assert_true(cases[i].reason[0] != '\0'); /* never dropped silently */
        }
    }
    /* 368 published rows less the 11 of a reserved source (ExLlamaV2's README) */
    assert_int_equal(n, 357);
    /* 323 static rows and 14 serving rows (session 51: 307 before seven catalog models mapped 30
     * of AutoAWQ's and QServe's rows); not mapped: NeMo's Llama-2 page (16), whose source issue #23
     * reserves for the independent check, the MI250X's 2 and Qwen1.5-72B's 2 that do not fit */
    assert_true(mapped >= 337);
    /* the guard reads held-out errors: leave one publication out, refit, predict it */
    struct val_cv_report rep;
    assert_int_equal(val_cross_validate(cases, n, VAL_CV_SOURCE, &rep, &err), 0);
    assert_int_equal(rep.folds, 11);
    enum val_class dec = VAL_CLASS_DECODE, pre = VAL_CLASS_PREFILL, e2e = VAL_CLASS_E2E;
    struct val_stats sd = val_stats_of(cases, n, in_class, &dec), sp = val_stats_of(cases, n, in_class, &pre),
                     se = val_stats_of(cases, n, in_class, &e2e);
    print_message("held-out median |error|: decode %.1f%%, prefill %.1f%%, e2e %.1f%%\n", 100 * sd.median_abs,
                  100 * sp.median_abs, 100 * se.median_abs);
    /* regression guard at the cross-validated figures of docs/validation.md plus a small margin
     * (the targets - decode 10%, prefill 15%, e2e 12% - are not all reached: see there) */
    assert_true(sd.median_abs <= 0.09); /* 7.2% (6.9 before session 29's prefill-only compute_scale
                                           moved the A100's fitted memory share) */
    assert_true(sp.median_abs <= 0.225); /* 20.4% since session 51 mapped ten AutoAWQ prefill rows
                                            of seven new catalog models (-28...-82%, as its other
                                            cold first passes; 14.8 before, no constant moved);
                                            15.5% (20.9 before session 29: an engine's compute_scale
                                            from its prefill rows alone, llama.cpp's 2023 LM head;
                                            25.4 before session 27's fp32-accumulate GEMMs) */
    assert_true(se.median_abs <= 0.16); /* 14.3% (15.5 in session 28; 14.3 before it, whose rocm/vllm 0.9.1 rows on
                                           their own synchronous-V1 profile no longer pull the vllm
                                           profile's compute_scale to its floor for vLLM 0.19's rows;
                                           10.2 before session 27: QServe's throughput rows follow the
                                           overlap share every GPU shares, which llama.cpp's prompts had
                                           pulled up) */
    /* the folds on three threads, each fitting its own copy of the rows (session 47): every
     * held-out value and the bounds report are the same to the bit as on one thread */
    struct val_case *again = malloc(n * sizeof *again);
    for (size_t i = 0; i < n; i++) {
        val_map_row(&cat, &map, &rows[i], &again[i]);
        if (again[i].mapped)
            assert_int_equal(val_predict(&again[i], NULL, NULL, &err), 0);
    }
    struct val_cv_report rep3;
    assert_int_equal(val_cross_validate_progress(again, n, VAL_CV_SOURCE, &rep3, NULL, NULL, 3, &err), 0);
    assert_int_equal(rep3.folds, rep.folds);
    assert_string_equal(rep3.bounds, rep.bounds);
    for (size_t i = 0; i < n; i++)
        assert_true(again[i].predicted == cases[i].predicted && again[i].err == cases[i].err);
    free(again);
    free(cases);
    free(rows);
    catalog_free(&cat);
}

static void calibrate_recovers_known_efficiencies(void **state)
{
    struct llmroof_catalog cat;
    load_all(&cat);
    /* synthetic measurements made by llmroof itself on an A100 with known values */
    struct llmroof_gpu truth = *gpu(&cat, "a100-sxm4-80gb");
    truth.compute_eff = 0.55;
    truth.memory_eff = 0.68;
    truth.comm_eff = 0.62;
    truth.step_overhead_s = 0.0005;
    static const struct { const char *m; int tp; long b, p, o; enum val_metric k; } spec[] = {
        { "llama-2-7b", 1, 1, 2048, 2, VAL_TTFT_MS },     { "llama-2-13b", 1, 4, 1024, 2, VAL_TTFT_MS },
        { "llama-2-7b", 1, 1, 128, 512, VAL_TPOT_MS },    { "llama-2-13b", 1, 8, 512, 256, VAL_TPOT_MS },
        { "llama-2-70b", 4, 1, 128, 256, VAL_TPOT_MS },   { "llama-2-70b", 8, 64, 1024, 128, VAL_TTFT_MS },
        { "internlm-20b", 2, 16, 512, 512, VAL_TPOT_MS }, { "qwen2.5-72b", 8, 32, 2048, 2, VAL_TTFT_MS },
        { "llama-2-7b", 1, 64, 128, 128, VAL_TPOT_MS },   { "llama-3-70b", 8, 1, 128, 128, VAL_TPOT_MS },
    };
    enum { N = sizeof spec / sizeof spec[0] };
    struct val_case cases[N];
    struct val_row rows[N];
    memset(cases, 0, sizeof cases);
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < N; i++) {
        struct val_case *c = &cases[i];
        c->row = &rows[i];
        c->mapped = true;
        c->model = model(&cat, spec[i].m);
        c->gpu = gpu(&cat, "a100-sxm4-80gb");
        c->tp = spec[i].tp;
        c->dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
        c->batch = spec[i].b;
        c->prompt = spec[i].p;
        c->output = spec[i].o;
        c->metric = spec[i].k;
        c->measured = 1;
        struct llmroof_err err = { 0 };
        assert_int_equal(val_predict(c, &truth, NULL, &err), 0);
        c->measured = c->predicted;
    }
    struct val_fit fit;
    struct llmroof_err err = { 0 };
    assert_int_equal(val_calibrate(cases, N, gpu(&cat, "a100-sxm4-80gb"), &fit, &err), 0);
    print_message("recovered compute %.3f memory %.3f comm %.3f overhead %.0f us (loss %.4f -> %.5f)\n",
                  fit.after.compute, fit.after.memory, fit.after.comm, fit.after.overhead_s * 1e6, fit.loss_before,
                  fit.loss_after);
    assert_rel_close(fit.after.compute, 0.55, 0.02);
    assert_rel_close(fit.after.memory, 0.68, 0.02);
    assert_rel_close(fit.after.overhead_s, 0.0005, 0.05);
    assert_true(fit.loss_after < 0.005);
    catalog_free(&cat);
}

/* A synthetic row: Llama-2-7B fp16 under gpt-fast on an A100 SXM, "measured" as the `truth`
 * engine predicts it, times `slow`. */
static void gpt_fast_case(struct llmroof_catalog *cat, const struct llmroof_engine *truth, long b, long p, long o,
                          enum val_metric k, double slow, struct val_row *row, struct val_case *c)
{
    c->row = row;
    c->mapped = true;
    c->model = model(cat, "llama-2-7b");
    c->gpu = gpu(cat, "a100-sxm4-80gb");
    c->engine = shipped_engine(cat, "gpt-fast");
    c->tp = 1;
    c->dt = (struct llmroof_dtypes){ LLMROOF_FP16, LLMROOF_FP16, LLMROOF_FP16, 0, false, LLMROOF_FP16, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    c->batch = b;
    c->prompt = p;
    c->output = o;
    c->metric = k;
    c->measured = 1;
    struct llmroof_err err = { 0 };
    assert_int_equal(val_predict(c, c->gpu, truth, &err), 0);
    c->measured = c->predicted * slow;
}

/* first_token_s is fitted only from rows that measure a first token. Synthetic rows of a
 * "truth" engine (gpt-fast with 50 ms per first token) on an A100: with end-to-end rows alone the
 * fit leaves first_token_s at its prior (0 here), since an e2e time sums it with the per-step
 * time; once TTFT rows are in the training set it is recovered (50 ms, within the 25-point scan's
 * refined resolution). */
static void first_token_s_is_fitted_only_from_first_token_rows(void **state)
{
    struct llmroof_catalog cat;
    load_all(&cat);
    struct llmroof_engine truth = *shipped_engine(&cat, "gpt-fast");
    truth.first_token_s = 0.050;
    static const struct { long b, p, o; enum val_metric k; } spec[] = {
        { 1, 128, 256, VAL_E2E_LATENCY_MS }, { 4, 512, 128, VAL_E2E_LATENCY_MS }, { 1, 2048, 64, VAL_E2E_LATENCY_MS },
        { 1, 1024, 2, VAL_TTFT_MS },         { 8, 256, 2, VAL_TTFT_MS },
    };
    enum { N = sizeof spec / sizeof spec[0] };
    struct val_case cases[N];
    struct val_row rows[N];
    memset(cases, 0, sizeof cases);
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < N; i++)
        gpt_fast_case(&cat, &truth, spec[i].b, spec[i].p, spec[i].o, spec[i].k, 1.0, &rows[i], &cases[i]);
    bool train[N] = { true, true, true, false, false };
    struct llmroof_gpu g = *gpu(&cat, "a100-sxm4-80gb");
    struct llmroof_engine e = *shipped_engine(&cat, "gpt-fast");
    e.first_token_s = 0.0;
    double l0, l1;
    struct llmroof_err err = { 0 };
    assert_int_equal(val_fit_all(cases, N, train, &g, 1, &e, 1, &l0, &l1, &err), 0);
    assert_true(e.first_token_s == 0.0); /* e2e rows only: kept at its prior */
    train[3] = train[4] = true;
    g = *gpu(&cat, "a100-sxm4-80gb");
    e = *shipped_engine(&cat, "gpt-fast");
    e.first_token_s = 0.0;
    assert_int_equal(val_fit_all(cases, N, train, &g, 1, &e, 1, &l0, &l1, &err), 0);
    assert_rel_close(e.first_token_s, 0.050, 0.05); /* with TTFT rows: recovered */
    catalog_free(&cat);
}

/* An engine's compute_scale (its kernels' share of the GPU's compute rate) is fitted only from
 * rows that time a prefill, where the compute term is what the time measures; end-to-end rows sum
 * it with per-step costs and rest on a batch the row may not state (the QServe README's
 * TensorRT-LLM rows ran it to its 0.7 floor and moved an RTX 4090 TTFT prediction by +43%).
 * Synthetic rows of gpt-fast with compute_scale 0.8 on an A100: two TTFT rows at the truth, and
 * three prefill-heavy e2e rows (16 or 32 prompts of 1,024 or 2,048 tokens, 16 outputs) 1.4x slower
 * than the truth, as a publication with slow steps would be. Fitted on e2e rows alone,
 * compute_scale stays at its prior (1; it went to its 0.7 floor when e2e rows joined its loss).
 * With the TTFT rows it follows them: the e2e rows' slowness goes to the step overhead (its 20 ms
 * bound), which each TTFT row pays once (a 2048-token prefill at 0.8 is about 148 ms, so +14%), and
 * compute_scale answers with 0.837, above the truth's 0.8, never the e2e rows' 0.7 (the old
 * rule's answer here). */
static void compute_scale_is_fitted_only_from_prefill_rows(void **state)
{
    struct llmroof_catalog cat;
    load_all(&cat);
    struct llmroof_engine truth = *shipped_engine(&cat, "gpt-fast");
    truth.compute_scale = 0.8;
    static const struct { long b, p, o; enum val_metric k; double slow; } spec[] = {
        { 32, 1024, 16, VAL_E2E_LATENCY_MS, 1.4 }, { 32, 2048, 16, VAL_E2E_LATENCY_MS, 1.4 },
        { 16, 1024, 16, VAL_E2E_LATENCY_MS, 1.4 }, { 1, 2048, 2, VAL_TTFT_MS, 1.0 },
        { 8, 1024, 2, VAL_TTFT_MS, 1.0 },
    };
    enum { N = sizeof spec / sizeof spec[0] };
    struct val_case cases[N];
    struct val_row rows[N];
    memset(cases, 0, sizeof cases);
    memset(rows, 0, sizeof rows);
    for (int i = 0; i < N; i++)
        gpt_fast_case(&cat, &truth, spec[i].b, spec[i].p, spec[i].o, spec[i].k, spec[i].slow, &rows[i], &cases[i]);
    bool train[N] = { true, true, true, false, false };
    struct llmroof_gpu g = *gpu(&cat, "a100-sxm4-80gb");
    struct llmroof_engine e = *shipped_engine(&cat, "gpt-fast");
    double l0, l1;
    struct llmroof_err err = { 0 };
    assert_int_equal(val_fit_all(cases, N, train, &g, 1, &e, 1, &l0, &l1, &err), 0);
    assert_true(e.compute_scale == 1.0); /* e2e rows only: kept at its prior */
    train[3] = train[4] = true;
    g = *gpu(&cat, "a100-sxm4-80gb");
    e = *shipped_engine(&cat, "gpt-fast");
    assert_int_equal(val_fit_all(cases, N, train, &g, 1, &e, 1, &l0, &l1, &err), 0);
    print_message("compute_scale %.3f step overhead %.0f us\n", e.compute_scale, e.step_overhead_s * 1e6);
    assert_true(e.compute_scale >= 0.8 && e.compute_scale <= 0.86); /* with TTFT rows: theirs */
    catalog_free(&cat);
}

static void bands_are_quantiles_of_the_latency_ratio(void **state)
{
    /* ten decode cases with measured / predicted latency 0.9, 0.95, ..., 1.35: p10 = 0.945, p90 = 1.305 */
    struct val_case c[10];
    memset(c, 0, sizeof c);
    for (int i = 0; i < 10; i++) {
        c[i].mapped = true;
        c[i].metric = VAL_TPOT_MS;
        c[i].predicted = 10;
        c[i].measured = 10 * (0.9 + 0.05 * i);
    }
    struct llmroof_uncertainty u;
    val_bands(c, 10, &u);
    assert_true(u.tpot.present && !u.ttft.present);
    assert_rel_close(u.tpot.low, 0.945, 1e-12);
    assert_rel_close(u.tpot.high, 1.305, 1e-12);
    /* a rate inverts: measured 80 tok/s against predicted 100 is a latency ratio of 1.25 */
    c[0].metric = VAL_DECODE_TOK_S_PER_SEQ;
    c[0].predicted = 100;
    c[0].measured = 80;
    assert_rel_close(val_latency_ratio(&c[0]), 1.25, 1e-12);
}

/* The row limit counts rows: 524,289 rows (one past a doubling step, 2^19 + 1) fit, and so
 * do exactly 1,000,000; row 1,000,001 is refused. Before, the check looked at the next
 * capacity and refused the 524,289th row as "more than 1,000,000". */
static void csv_row_limit_counts_rows_not_capacity(void **state)
{
    (void)state;
    char *rows = NULL;
    size_t cap = 0;
    struct llmroof_err err = { 0 };
    for (size_t n = 0; n < 1000000; n++)
        if (val_csv_reserve((void **)&rows, &cap, n, 1, "t.csv", &err) != 0) {
            print_error("row %zu refused: %s\n", n + 1, err.msg);
            fail();
        }
    assert_true(cap >= 1000000);
    assert_int_equal(val_csv_reserve((void **)&rows, &cap, 1000000, 1, "t.csv", &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "more than 1,000,000 rows"));
    free(rows);
}

/* A value longer than its field is refused with its line and column, never cut: a 1e308
 * written out in full (309 digits) would otherwise be read as its first 63 digits. */
static void csv_long_fields_are_refused_not_cut(void **state)
{
    (void)state;
    static const char head[] = "id,model,gpu,num_gpus,tp,weight_dtype,kv_dtype,batch,input_len,output_len,metric,value\n";
    char text[2048];
    char digits[400];
    memset(digits, '9', 309);
    digits[309] = '\0';
    struct val_row *rows = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    snprintf(text, sizeof text, "%sx,m,g,1,1,fp16,fp16,1,1,1,decode_tok_s_per_seq,%s\n", head, digits);
    assert_int_equal(val_parse_csv(text, strlen(text), "t.csv", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "t.csv:2: column 'value' is longer than 127 bytes"));
    digits[100] = '\0'; /* fits the 127-byte reader, not the 63-byte value field */
    snprintf(text, sizeof text, "%sx,m,g,1,1,fp16,fp16,1,1,1,decode_tok_s_per_seq,%s\n", head, digits);
    assert_int_equal(val_parse_csv(text, strlen(text), "t.csv", &rows, &n, &err), LLMROOF_EINPUT);
    assert_non_null(strstr(err.msg, "t.csv:2: column 'value' is longer than 63 bytes"));
    /* a byte order mark before the header is accepted */
    snprintf(text, sizeof text, "\xef\xbb\xbf%sx,m,g,1,1,fp16,fp16,1,1,1,decode_tok_s_per_seq,12.5\n", head);
    assert_int_equal(val_parse_csv(text, strlen(text), "t.csv", &rows, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(rows[0].value, "12.5");
    free(rows);
}

/* ---- serving rows (fit/servval.c) ---- */

static const char srv_rows[] =
    "id,model,gpu,num_gpus,tp,pp,weight_dtype,kv_dtype,framework,load,workload,input_len,output_len,num_requests,"
    "metric,percentile,value,unit,notes,source\n"
    "s1,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,64,throughput_req_s,-,2.0,req/s,,pubA x\n"
    "s2,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,64,throughput_out_tok_s,-,300,tok/s,,pubA\n"
    "s3,Llama-2-7B,A100,8,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,64,decode_tok_s_per_gpu,-,40,tok/s/GPU,,pubA\n"
    "s4,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,64,ttft_ms,mean,900,ms,,pubB\n"
    "s5,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,rate:?,sharegpt,?,?,?,ttft_ms,mean,90,ms,,pubB\n"
    "s6,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,64,ttft_ms,mean,60,ms,,pubB\n"
    "s7,Llama-2-7B,A100,1,1,1,fp16,fp16,vLLM,offline,fixed:512:128,512,128,64,ttft_ms,mean,50,ms,,pubC\n";

static const char srv_map_head[] = "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,"
                                   "metric,stat,divide,slo,spec,base,notes,skip\n";

/* ShareGPT-scaled draws stay inside the model's context and keep the stated means. OPT-13B at
 * DistServe's 763/176 means: uncapped, the draws' tail passes 2,048 (about 8% of them: the
 * lognormal's spread); capped at 2,048, every prompt is <= 2,046 and prompt + output <= 2,048,
 * while the means stay 763 and 176 to within 0.5 token (the bisection's rounding). */
static void serving_scaled_chat_draws_stay_within_the_context(void **state)
{
    (void)state;
    struct workload w;
    struct llmroof_err err = { 0 };
    assert_int_equal(workload_scaled_sharegpt(763, 176, 0, 0, &w, &err), LLMROOF_OK);
    long over = 0;
    for (size_t i = 0; i < w.npairs; i++)
        over += w.pairs[2 * i] + w.pairs[2 * i + 1] > 2048;
    assert_true(over > (long)w.npairs / 20); /* > 5% of the uncapped draws pass the context */
    free(w.pairs);
    assert_int_equal(workload_scaled_sharegpt(763, 176, 2046, 2048, &w, &err), LLMROOF_OK);
    assert_int_equal((long)w.npairs, 4000);
    double sp = 0, so = 0;
    for (size_t i = 0; i < w.npairs; i++) {
        assert_true(w.pairs[2 * i] >= 1 && w.pairs[2 * i] <= 2046);
        assert_true(w.pairs[2 * i + 1] >= 2 && w.pairs[2 * i] + w.pairs[2 * i + 1] <= 2048);
        sp += (double)w.pairs[2 * i];
        so += (double)w.pairs[2 * i + 1];
    }
    assert_true(fabs(sp / 4000 - 763) < 0.5);
    assert_true(fabs(so / 4000 - 176) < 0.5);
    free(w.pairs);
}

/* Weighted statistics (srv_weighted_stats), by hand. Equal weights are numpy's linear
 * percentiles: {1..5}: mean 3, p50 3, p90 at position 0.9 x 4 = 3.6, 4 + 0.6 = 4.6.
 * {1, 2, 3} weighing {1, 1, 2}: mean (1 + 2 + 6) / 4 = 2.25; total 4, the ends' half weights
 * 0.5 and 1 leave a span of 2.5: value 1 at 0, value 2 at (2 - 0.5 - 0.5) / 2.5 = 0.4, value 3
 * at (4 - 1 - 0.5) / 2.5 = 1; p50 = 2 + (0.5 - 0.4) / 0.6 = 2.1667, p90 = 2 + 0.5 / 0.6 = 2.8333,
 * max 3. */
static void weighted_stats_by_hand(void **state)
{
    (void)state;
    struct srv_wval a[5] = { { 4, 1 }, { 2, 1 }, { 5, 1 }, { 1, 1 }, { 3, 1 } };
    struct sim_stats s = srv_weighted_stats(a, 5);
    assert_rel_close(s.mean, 3, 1e-12);
    assert_rel_close(s.p50, 3, 1e-12);
    assert_rel_close(s.p90, 4.6, 1e-12);
    assert_rel_close(s.max, 5, 1e-12);
    struct srv_wval b[3] = { { 3, 2 }, { 1, 1 }, { 2, 1 } };
    s = srv_weighted_stats(b, 3);
    assert_rel_close(s.mean, 2.25, 1e-12);
    assert_rel_close(s.p50, 2 + 0.1 / 0.6, 1e-12);
    assert_rel_close(s.p90, 2 + 0.5 / 0.6, 1e-12);
    assert_rel_close(s.max, 3, 1e-12);
    assert_int_equal(s.n, 3);
}

/* A closed loop simulated shorter than the published run weighs its t = 0 burst as that run
 * does. 16 users, 64 simulated requests of 512 + 128 tokens: the first 16 queue behind each
 * other's prefills, the rest arrive one at a time as requests finish, so the burst's TTFT is the
 * larger. Stated as 64 requests (or not stated) the mean is the plain one; stated as 3000, the
 * burst weighs 16/3000 instead of 16/64 and the mean TTFT falls; throughput is unweighted. */
static void serving_closed_loop_burst_weighs_as_published(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    /* vLLM V1's served first token (api_first_token_s, 5.7 ms, and api_prompt_token_s, 3.65 us a
     * prompt token) left out: the arithmetic below times the engine from a request's arrival */
    struct llmroof_engine v0 = *catalog_find_engine(&cat, "vllm");
    v0.api_first_token_s = 0.0;
    v0.api_prompt_token_s = 0.0;
    const char rows[] =
        "id,model,gpu,num_gpus,tp,pp,weight_dtype,kv_dtype,framework,load,workload,input_len,output_len,num_requests,"
        "metric,percentile,value,unit,notes,source\n"
        "c1,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,64,ttft_ms,mean,100,ms,,pubA\n"
        "c2,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,3000,ttft_ms,mean,100,ms,,pubA\n"
        "c3,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,?,ttft_ms,mean,100,ms,,pubA\n"
        "c4,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,3000,throughput_req_s,-,1,req/s,,pubA\n"
        "c5,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,64,throughput_req_s,-,1,req/s,,pubA\n";
    char m[2048];
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128,concurrency:16,64,";
    snprintf(m, sizeof m, "%sc1,%sttft,mean,,,,,,\nc2,%sttft,mean,,,,,,\nc3,%sttft,mean,,,,,,\n"
                          "c4,%sreq_s,mean,,,,,,\nc5,%sreq_s,mean,,,,,,\n",
             srv_map_head, run, run, run, run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, rows, strlen(rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(n, 5);
    assert_int_equal(c[0].source_requests, 64);
    assert_int_equal(c[1].source_requests, 3000);
    assert_int_equal(c[2].source_requests, 0);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, &v0, 1, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_true(c[i].mapped && c[i].predicted > 0);
    assert_rel_close(c[2].predicted, c[0].predicted, 1e-12);
    assert_true(c[1].predicted < 0.9 * c[0].predicted);
    assert_rel_close(c[3].predicted, c[4].predicted, 1e-12);
    /* the simulations on three threads (srv_predict_jobs, session 47): one per distinct setup, the
     * rows filled in order afterwards; every row the same to the bit as on one thread */
    struct srv_case *c3 = NULL;
    size_t n3 = 0;
    assert_int_equal(srv_load_cases(&cat, rows, strlen(rows), "rows", m, strlen(m), "map", &c3, &n3, &err), 0);
    assert_int_equal(srv_predict_jobs(c3, n3, NULL, NULL, 0, &v0, 1, 3, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_true(c3[i].mapped == c[i].mapped && c3[i].predicted == c[i].predicted && c3[i].err == c[i].err);
    free(c3);
    /* the share within a TTFT limit between the burst's and the rest's: the burst misses it, so
     * weighed as published (3000) the share is larger than as simulated (64) */
    char slo[64];
    snprintf(slo, sizeof slo, "%.3f:100000", c[1].predicted);
    free(c);
    const char rows2[] =
        "id,model,gpu,num_gpus,tp,pp,weight_dtype,kv_dtype,framework,load,workload,input_len,output_len,num_requests,"
        "metric,percentile,value,unit,notes,source\n"
        "c1,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,64,slo_attainment_pct,-,90,%,,pubA\n"
        "c2,L,A,1,1,1,fp16,fp16,x,concurrency:16,w,512,128,3000,slo_attainment_pct,-,90,%,,pubA\n";
    snprintf(m, sizeof m, "%sc1,%sslo_pct,mean,,%s,,,,\nc2,%sslo_pct,mean,,%s,,,,\n", srv_map_head, run, slo, run,
             slo);
    assert_int_equal(srv_load_cases(&cat, rows2, strlen(rows2), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, &v0, 1, &err), 0);
    assert_true(c[0].mapped && c[1].mapped);
    assert_true(c[1].predicted > c[0].predicted + 5);
    free(c);
    catalog_free(&cat);
}

static void serving_rows_map_simulate_and_convert(void **state)
{
    struct llmroof_catalog cat;
    load_all(&cat);
    char m[4096];
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128,offline,64,";
    snprintf(m, sizeof m, "%ss1,%sreq_s,mean,,,,,,\ns2,%sout_tok_s,mean,,,,,,\ns3,%sout_tok_s,mean,8,,,,,\n"
                          "s4,%sttft,mean,,,,,,\ns5,,,,,,,,,,,,,,,,,,,,,request rate not stated\ns6,%sttft,mean,,,,,,\n",
             srv_map_head, run, run, run, run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(n, 7);
    /* a skip in the map and a row the map lacks each keep their reason */
    assert_false(c[4].mapped);
    assert_string_equal(c[4].reason, "request rate not stated");
    assert_true(c[5].mapped);
    assert_false(c[6].mapped);
    assert_string_equal(c[6].reason, "no entry in the serving map");
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    for (int i = 0; i < 4; i++)
        assert_true(c[i].mapped && c[i].predicted > 0);
    /* one run serves s1-s4: 64 requests of 128 output tokens all complete, so output tok/s =
     * 128 x req/s exactly, and the per-GPU row (divide 8) is an eighth of the total */
    assert_rel_close(c[1].predicted, 128 * c[0].predicted, 1e-9);
    {
        /* a measured value that is no positive number is the file's error, naming its line and
         * column (it had left the row unpredicted, exit 0: an audit) */
        char bad[sizeof srv_rows + 8];
        snprintf(bad, sizeof bad, "%s", srv_rows);
        char *v = strstr(bad, ",mean,60,ms,");
        assert_non_null(v);
        memcpy(v, ",mean,-3,ms,", 12);
        struct srv_case *cb = NULL;
        size_t nb = 0;
        assert_int_equal(srv_load_cases(&cat, bad, strlen(bad), "rows", m, strlen(m), "map", &cb, &nb, &err), 2);
        assert_non_null(strstr(err.msg, "rows:7: column 'value': '-3' is not a positive number"));
        free(cb);
    }
    assert_rel_close(c[2].predicted, c[1].predicted / 8, 1e-12);
    /* errors in time: a rate is inverted (measured / predicted - 1), a latency is not */
    assert_rel_close(c[0].err, 2.0 / c[0].predicted - 1, 1e-12);
    assert_rel_close(c[3].err, c[3].predicted / 900 - 1, 1e-12);
    /* classes and loads */
    assert_int_equal(srv_metric_class(c[0].metric), SRV_CLASS_THROUGHPUT);
    assert_int_equal(srv_metric_class(c[3].metric), SRV_CLASS_TTFT);
    assert_string_equal(srv_load_name(c[3].load), "offline");
    free(c);
    /* a speedup row over a baseline identical to it (base engine = its engine): exactly 1, and
     * the measured 300 (s2's value) gives an error of 300 / 1 - 1 = 299 (the gain is a rate) */
    snprintf(m, sizeof m, "%ss2,%sspeedup_tput,mean,,,,engine:vllm,,\n", srv_map_head, run);
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    assert_true(c[1].mapped);
    assert_int_equal(srv_metric_class(c[1].metric), SRV_CLASS_SPEEDUP);
    assert_rel_close(c[1].predicted, 1.0, 1e-12);
    assert_rel_close(c[1].err, 299.0, 1e-12);
    free(c);
    /* a base on a row that is not a speedup is refused */
    snprintf(m, sizeof m, "%ss2,%sout_tok_s,mean,,,,engine:vllm,,\n", srv_map_head, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "a speedup row needs a base"));
    /* a map row naming a metric llmroof does not know is an error that names the file and field */
    snprintf(m, sizeof m, "%ss1,%sgoodput,mean,,,,,,\n", srv_map_head, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "map:2: metric 'goodput' is not one of ttft, tpot,"));
    assert_non_null(strstr(err.msg, "goodput_req_s, itl"));
    catalog_free(&cat);
}

/* The engine's scheduler fields reach the serving runs (servval.c called sim_config_engine on no
 * serving row before): a copy of the vllm profile limited to one running sequence serves the 64
 * identical offline requests one after another. Each takes the same service time S (a 512-token
 * prefill then 127 decode steps at the same contexts), so request k (1..64) finishes at k x S: the
 * run lasts 64 S, req/s = 1 / S, and the mean e2e is S x (1 + ... + 64) / 64 = 32.5 S; hence
 * mean e2e x req/s = 32.5 exactly (32500 with e2e in ms). With the simulator's default 256
 * sequences (the engine's limit ignored) all 64 share every step and finish together, run length
 * D: the product is about D x 64 / D = 64 (62305 ms x req/s measured without the fix). */
static void serving_rows_use_engine_scheduler(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    const struct llmroof_engine *v = catalog_find_engine(&cat, "vllm");
    assert_non_null(v);
    struct llmroof_engine one = *v;
    one.max_seqs = 1;
    /* vLLM V1's served first token (api_first_token_s, 5.7 ms, and api_prompt_token_s, 3.65 us a
     * prompt token) left out: the arithmetic below times the engine from a request's arrival */
    one.api_first_token_s = 0.0;
    one.api_prompt_token_s = 0.0;
    char m[4096];
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128,offline,64,";
    snprintf(m, sizeof m, "%ss1,%sreq_s,mean,,,,,,\ns4,%se2e,mean,,,,,,\n", srv_map_head, run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, &one, 1, &err), 0);
    assert_true(c[0].mapped && c[3].mapped);
    assert_rel_close(c[3].predicted * c[0].predicted, 32500, 1e-6); /* e2e in ms x req/s = 32.5 s x 1000 */
    free(c);
    catalog_free(&cat);
}

/* slo-capacity: the best goodput over closed loops of LO..HI users (DeepSpeed-FastGen's effective
 * throughput). Llama-2-7B on an A100, fixed 512/128. (1) Loose limits (100 s TTFT, 10 s TPOT):
 * every request is within, goodput = req/s, which rises with the users (the batch grows while a
 * step costs about the same), so the best of 1-3 users is 3: slo-capacity:1-3 must equal the
 * concurrency:3 row's goodput exactly (the same run), and beat the concurrency:1 row's. (2) A TPOT
 * limit of 1 us, below any step: no request is within, goodput 0, floored at 0.001 req/s (the
 * error stays finite): s7, measured 50, errs by 50 / 0.001 - 1 = 49,999. */
static void serving_slo_capacity_takes_the_best_goodput_of_the_sweep(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    char m[4096];
    const char *mdl = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128,";
    snprintf(m, sizeof m,
             "%ss1,%sslo-capacity:1-3,60,goodput_req_s,mean,,100000:10000,,,,\n"
             "s2,%sconcurrency:3,60,goodput_req_s,mean,,100000:10000,,,,\n"
             "s4,%sconcurrency:1,60,goodput_req_s,mean,,100000:10000,,,,\n"
             "s7,%sslo-capacity:1-3,60,goodput_req_s,mean,,100000:0.001,,,,\n",
             srv_map_head, mdl, mdl, mdl, mdl);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_true(c[0].mapped);
    assert_string_equal(srv_load_name(c[0].load), "slo-capacity");
    assert_rel_close(c[0].load_lo, 1, 0);
    assert_rel_close(c[0].load_value, 3, 0);
    assert_int_equal(srv_metric_class(c[0].metric), SRV_CLASS_SLO);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    assert_true(c[0].mapped && c[1].mapped && c[3].mapped && c[6].mapped);
    assert_rel_close(c[0].predicted, c[1].predicted, 1e-12);
    assert_true(c[0].predicted > 1.5 * c[3].predicted);
    assert_rel_close(c[6].predicted, 1e-3, 1e-12);
    assert_rel_close(c[6].err, 49999, 1e-9); /* s7 measured 50: 50 / 0.001 - 1 */
    free(c);
    /* a sweep without its SLO, or an empty range, is a map error */
    snprintf(m, sizeof m, "%ss1,%sslo-capacity:1-3,60,goodput_req_s,mean,,,,,,\n", srv_map_head, mdl);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    snprintf(m, sizeof m, "%ss1,%sslo-capacity:3-1,60,goodput_req_s,mean,,100:100,,,,\n", srv_map_head, mdl);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    catalog_free(&cat);
}

/* The engine settings a row states (the map's optional columns) override the profile's: the
 * same 64 requests as above with "max_seqs" 1 in the map serve one at a time, so mean e2e (ms) x
 * req/s = 32.5 s x 1000 = 32500 exactly, as with an engine limited to one sequence; a bad value
 * is a map error. */
static void serving_rows_take_the_engine_settings_they_state(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    /* vLLM V1's served first token (api_first_token_s, 5.7 ms, and api_prompt_token_s, 3.65 us a
     * prompt token) left out: the arithmetic below times the engine from a request's arrival */
    struct llmroof_engine v0 = *catalog_find_engine(&cat, "vllm");
    v0.api_first_token_s = 0.0;
    v0.api_prompt_token_s = 0.0;
    char m[4096];
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128,offline,64,";
    snprintf(m, sizeof m,
             "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,divide,"
             "slo,spec,base,notes,skip,max_seqs,max_batched_tokens,chunked,sched_steps\n"
             "s1,%sreq_s,mean,,,,,,,1,,,\ns4,%se2e,mean,,,,,,,1,,,\n", run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(c[0].max_seqs, 1);
    assert_int_equal(c[0].chunked, -1);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, &v0, 1, &err), 0);
    assert_true(c[0].mapped && c[3].mapped);
    assert_rel_close(c[3].predicted * c[0].predicted, 32500, 1e-6);
    free(c);
    snprintf(m, sizeof m,
             "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,divide,"
             "slo,spec,base,notes,skip,max_seqs,max_batched_tokens,chunked,sched_steps\n"
             "s1,%sreq_s,mean,,,,,,,1,,3,\n", run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "chunked '3' (0, 1 or 2)"));
    catalog_free(&cat);
}

/* The map's kv_blocks column: the KV blocks a source's engine logged (simulate --kv-blocks). 40
 * blocks of 16 tokens hold one 512 + 128 request exactly (640 tokens) and a second prompt's 32
 * blocks do not fit beside a first's, so the 64 offline requests run one at a time: mean e2e (ms)
 * x req/s = 32.5 s x 1000 = 32500, as with max_seqs 1 above. A bad value is a map error naming
 * the column. */
static void serving_rows_take_the_kv_blocks_they_state(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    /* vLLM V1's served first token (api_first_token_s, 5.7 ms, and api_prompt_token_s, 3.65 us a
     * prompt token) left out: the arithmetic below times the engine from a request's arrival */
    struct llmroof_engine v0 = *catalog_find_engine(&cat, "vllm");
    v0.api_first_token_s = 0.0;
    v0.api_prompt_token_s = 0.0;
    char m[4096];
    const char *hdr = "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,"
                      "divide,slo,spec,base,notes,skip,max_seqs,max_batched_tokens,chunked,sched_steps,engine_use_ray,"
                      "max_paddings,api_server,kv_blocks\n";
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:512:128,offline,64,";
    snprintf(m, sizeof m, "%ss1,%sreq_s,mean,,,,,,,,,,,,,,40\ns4,%se2e,mean,,,,,,,,,,,,,,40\n", hdr, run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(c[0].kv_blocks, 40);
    assert_int_equal(c[1].kv_blocks, 0); /* a row the map does not list */
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, &v0, 1, &err), 0);
    assert_true(c[0].mapped && c[3].mapped);
    assert_rel_close(c[3].predicted * c[0].predicted, 32500, 1e-6);
    free(c);
    snprintf(m, sizeof m, "%ss1,%sreq_s,mean,,,,,,,,,,,,,,0\n", hdr, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "kv_blocks '0'"));
    catalog_free(&cat);
}

/* The map's sched_steps, max_paddings and recv_interval columns follow simulate's rule: a row may
 * state them only for an engine whose profile takes the flag (multi_step_scheduling: vllm-0.6;
 * max_paddings_option: vllm-0.2, vllm-0.4; recv_interval_option: sglang), else the map is refused
 * naming the row, the column and the engine (vLLM V1 never had --num-scheduler-steps, nor SGLang
 * --max-paddings, nor vLLM --scheduler-recv-interval); a row without an engine takes all three, as
 * simulate without -e. */
static void serving_rows_state_only_the_flags_their_engine_has(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    char m[4096];
    const char *hdr = "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,"
                      "divide,slo,spec,base,notes,skip,max_seqs,max_batched_tokens,chunked,sched_steps,engine_use_ray,"
                      "max_paddings,recv_interval\n";
    static const struct {
        const char *engine, *steps, *pad, *recv, *refused; /* refused: the message's text, NULL: mapped */
    } cases[] = {
        { "vllm-0.6", "8", "", "", NULL },
        { "vllm-0.2", "", "256", "", NULL },
        { "vllm-0.4", "", "0", "", NULL },
        { "sglang", "", "", "10", NULL },
        { "", "8", "256", "10", NULL },
        { "vllm", "8", "", "", "map:2: sched_steps 8: engine 'vllm' has no --num-scheduler-steps" },
        { "vllm-0.8", "4", "", "", "map:2: sched_steps 4: engine 'vllm-0.8' has no --num-scheduler-steps" },
        { "sglang", "", "0", "", "map:2: max_paddings 0: engine 'sglang' has no --max-paddings" },
        { "vllm-0.6", "", "256", "", "map:2: max_paddings 256: engine 'vllm-0.6' has no --max-paddings" },
        { "vllm", "", "", "10", "map:2: recv_interval 10: engine 'vllm' has no --scheduler-recv-interval" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(m, sizeof m, "%ss1,llama-2-7b,a100-sxm4-80gb,%s,fp16,fp16,1,,,1,,fixed:512:128,offline,64,req_s,mean,"
                              ",,,,,,,,,%s,,%s,%s\n", hdr, cases[i].engine, cases[i].steps, cases[i].pad, cases[i].recv);
        struct srv_case *c = NULL;
        size_t n = 0;
        struct llmroof_err err = { 0 };
        const int rc = srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err);
        if (cases[i].refused ? rc == 0 || !strstr(err.msg, cases[i].refused) : rc != 0) {
            print_error("engine '%s' sched_steps '%s' max_paddings '%s': rc %d, '%s'\n", cases[i].engine,
                        cases[i].steps, cases[i].pad, rc, err.msg);
            fail();
        }
        free(c);
    }
    catalog_free(&cat);
}

/* The map's engine_use_ray column (vLLM --engine-use-ray): every step of the run pays the
 * profile's Ray call at TP 1, and the actor's outputs at 35 ns a context token. 64 requests of
 * 512 + 128 tokens served one at a time (max_seqs 1) by vllm-0.2 on an A100 SXM 80GB take 128
 * steps each (the prefill's, which samples the first token, then 127 decodes), each 2.9 ms / 0.81
 * (the host's speed) = 3.5802 ms longer: 458.27 ms per request; their keys, 512 + (513 + ... +
 * 639) = 512 + 127 x 576 = 73,664 tokens, x 35 ns / 0.81 = 3.1830 ms more: 461.45 ms; all 64
 * arrive at once, so the k-th finishes after k of them and the mean e2e is (64 + 1) / 2 = 32.5
 * requests' time: 32.5 x 461.45 = 14997.27 ms more. A value other than 0 or 1, or the column
 * without an engine, is a map error. */
static void serving_rows_in_a_ray_actor_pay_its_call_every_step(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    char m[4096];
    const char *hdr = "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,"
                      "divide,slo,spec,base,notes,skip,max_seqs,max_batched_tokens,chunked,sched_steps,engine_use_ray\n";
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm-0.2,fp16,fp16,1,,,1,,fixed:512:128,offline,64,";
    snprintf(m, sizeof m, "%ss1,%se2e,mean,,,,,,,1,,,,1\ns4,%se2e,mean,,,,,,,1,,,,0\n", hdr, run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_true(c[0].engine_use_ray);
    assert_false(c[3].engine_use_ray);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    assert_true(c[0].mapped && c[3].mapped);
    assert_rel_close(c[0].predicted - c[3].predicted, 32.5 * (128 * 2.9 + 73664 * 35e-6) / 0.81, 1e-6);
    free(c);
    snprintf(m, sizeof m, "%ss1,%se2e,mean,,,,,,,1,,,,2\n", hdr, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "engine_use_ray '2'"));
    snprintf(m, sizeof m, "%ss1,llama-2-7b,a100-sxm4-80gb,,fp16,fp16,1,,,1,,fixed:512:128,offline,64,e2e,mean,,,,,,,1,,,,1\n",
             hdr);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "engine_use_ray needs the row's engine"));
    catalog_free(&cat);
}

/* The map's arrivals column: fixed-span runs a rate row's Poisson arrivals scaled to span exactly
 * requests / rate (DistServe's client). 10 requests of 16 + 2 tokens at 0.5/s: the first arrives
 * at 0, the last at 10 / 0.5 = 20 s and finishes within 0.2 s (two steps of llama-2-7b on an A100
 * at one sequence, tens of ms each), so every replication's throughput lies in (10 / 20.2, 10 / 20]
 * req/s (0.4995 here); a plain Poisson draw's last arrival, 20 s +- 6.3, would rarely land there on
 * all of them. Another value, fixed-span on a load that is not rate:R (named) or on a single
 * request (no gap to scale), is a map error naming the column. */
static void serving_rows_take_the_arrival_span_their_client_sent(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    char m[4096];
    const char *hdr = "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,"
                      "divide,slo,spec,base,notes,skip,max_seqs,max_batched_tokens,chunked,sched_steps,engine_use_ray,"
                      "max_paddings,api_server,kv_blocks,max_concurrent,arrivals\n";
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,,fixed:16:2,";
    snprintf(m, sizeof m, "%ss1,%srate:0.5,10,req_s,mean,,,,,,,,,,,,,,,,fixed-span\ns4,%srate:0.5,10,ttft,mean,,,,,,,,,,,,,,,,\n", hdr,
             run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    if (srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err))
        fail_msg("%s", err.msg);
    assert_true(c[0].span_fixed);
    assert_false(c[3].span_fixed);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    assert_true(c[0].mapped);
    assert_true(c[0].predicted > 10.0 / 20.2 && c[0].predicted <= 10.0 / 20.0);
    free(c);
    snprintf(m, sizeof m, "%ss1,%srate:0.5,10,req_s,mean,,,,,,,,,,,,,,,,uniform\n", hdr, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "arrivals 'uniform'"));
    snprintf(m, sizeof m, "%ss1,%soffline,10,req_s,mean,,,,,,,,,,,,,,,,fixed-span\n", hdr, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "arrivals fixed-span"));
    assert_non_null(strstr(err.msg, "not load 'offline'")); /* the row's load named */
    snprintf(m, sizeof m, "%ss1,%srate:0.5,1,req_s,mean,,,,,,,,,,,,,,,,fixed-span\n", hdr, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "map:2: arrivals fixed-span"));
    assert_non_null(strstr(err.msg, "requests 2 or more"));
    catalog_free(&cat);
}

/* a dataset stated by its medians and P90s (lognormal:PM:P90:OM:O90[:MAX]) */
static void serving_rows_draw_a_dataset_stated_by_its_quantiles(void **state)
{
    (void)state;
    struct llmroof_catalog cat;
    load_all(&cat);
    char m[4096];
    const char *hdr = "id,model,gpu,engine,wdt,kvdt,tp,ep,dp_attn,instances,disagg,workload,load,requests,metric,stat,"
                      "divide,slo,spec,base,notes,skip\n";
    const char *run = "llama-2-7b,a100-sxm4-80gb,vllm,fp16,fp16,1,,,1,";
    /* s1: P90 = median, a lognormal of sigma 0: every draw is the median, the fixed run's lengths
     * exactly (e^ln 400 rounds to 400); s4: the spread of P90 = 2 x median */
    snprintf(m, sizeof m, "%ss1,%s,lognormal:400:400:100:100,offline,64,req_s,mean,1,,,,,\n"
                          "s4,%s,fixed:400:100,offline,64,req_s,mean,1,,,,,\n", hdr, run, run);
    struct srv_case *c = NULL;
    size_t n = 0;
    struct llmroof_err err = { 0 };
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_true(c[0].quantiles && c[0].prompt == 400 && c[0].prompt_p90 == 400 && c[0].max_total == 0);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    assert_true(c[0].mapped && c[3].mapped);
    assert_true(c[0].predicted > 0);
    assert_rel_close(c[0].predicted, c[3].predicted, 1e-12);
    free(c);
    /* the spread: P90 = 4 x median, sigma = ln 4 / 1.2816 = 1.082, so the mean lengths are
     * e^(sigma^2 / 2) = 1.80 x the medians (before the 2048-token cap): fewer requests per second
     * than the fixed run at the medians */
    snprintf(m, sizeof m, "%ss1,%s,lognormal:400:1600:100:400:2048,offline,64,req_s,mean,1,,,,,\n"
                          "s4,%s,fixed:400:100,offline,64,req_s,mean,1,,,,,\n", hdr, run, run);
    assert_int_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_int_equal(c[0].max_total, 2048);
    assert_int_equal(srv_predict(c, n, NULL, NULL, 0, NULL, 0, &err), 0);
    assert_true(c[0].mapped && c[3].mapped);
    assert_true(c[0].predicted < 0.9 * c[3].predicted);
    free(c);
    /* a P90 below its median is a map error that names the workload */
    snprintf(m, sizeof m, "%ss1,%s,lognormal:400:300:100:200,offline,64,req_s,mean,1,,,,,\n", hdr, run);
    assert_int_not_equal(srv_load_cases(&cat, srv_rows, strlen(srv_rows), "rows", m, strlen(m), "map", &c, &n, &err), 0);
    assert_non_null(strstr(err.msg, "P90 below its median"));
    assert_non_null(strstr(err.msg, "map:2"));
    catalog_free(&cat);
}

static void serving_stats_by_class_and_load(void **state)
{
    struct srv_case c[4];
    memset(c, 0, sizeof c);
    double e[4] = { -0.1, 0.2, 0.4, -0.8 };
    for (int i = 0; i < 4; i++) {
        c[i].mapped = i < 3; /* the fourth is not predicted: it counts nowhere */
        c[i].err = e[i];
        c[i].metric = i == 2 ? SRV_TPOT : SRV_TTFT;
        c[i].load = i == 0 ? SRV_LOAD_RATE : SRV_LOAD_STATIC;
    }
    /* all: |err| 0.1, 0.2, 0.4 -> median 0.2; signed -0.1, 0.2, 0.4 -> bias 0.2;
     * p90 between 0.2 and 0.4 at 0.9 x 2 = 1.8 -> 0.2 + 0.8 x 0.2 = 0.36 */
    struct val_stats s = srv_stats(c, 4, -1, -1);
    assert_int_equal(s.n, 3);
    assert_rel_close(s.median_abs, 0.2, 1e-12);
    assert_rel_close(s.bias, 0.2, 1e-12);
    assert_rel_close(s.p90_abs, 0.36, 1e-12);
    /* ttft: 0.1, 0.2 -> median 0.15; static load: 0.2, 0.4 -> 0.3 */
    assert_rel_close(srv_stats(c, 4, SRV_CLASS_TTFT, -1).median_abs, 0.15, 1e-12);
    assert_rel_close(srv_stats(c, 4, -1, SRV_LOAD_STATIC).median_abs, 0.3, 1e-12);
    assert_int_equal(srv_stats(c, 4, SRV_CLASS_E2E, -1).n, 0);
    /* by publication, keyed as --cv source holds it out: the source's first word, a URL's scheme
     * dropped; the unmapped fourth row counts nowhere. Rows 0 and 2 from one source: |err| 0.1, 0.4
     * -> median 0.25, bias (-0.1 + 0.4) / 2 = 0.15; row 1 alone: 0.2 */
    snprintf(c[0].source, sizeof c[0].source, "https://example.org/a (table 2)");
    snprintf(c[1].source, sizeof c[1].source, "example.org/b");
    snprintf(c[2].source, sizeof c[2].source, "example.org/a, its notes");
    snprintf(c[3].source, sizeof c[3].source, "example.org/a");
    char k[VAL_TEXT];
    srv_source_key(&c[0], k, sizeof k);
    assert_string_equal(k, "example.org/a");
    struct val_stats a = srv_stats_source(c, 4, "example.org/a");
    assert_int_equal(a.n, 2);
    assert_rel_close(a.median_abs, 0.25, 1e-12);
    assert_rel_close(a.bias, 0.15, 1e-12);
    assert_rel_close(srv_stats_source(c, 4, "example.org/b").median_abs, 0.2, 1e-12);
    assert_int_equal(srv_stats_source(c, 4, "example.org/c").n, 0);
}

/* simulate --range's serving bands: measured / predicted = 1 / (1 + err) over each latency class's
 * mapped rows, its 10th and 90th percentiles; throughput rows and unmapped rows count nowhere, and a
 * class with fewer than two rows has no band. TTFT errs -0.5, 0, +0.25 -> ratios 2, 1, 0.8; sorted
 * 0.8, 1, 2: p10 at position 0.2 -> 0.8 + 0.2 x 0.2 = 0.84, p90 at 1.8 -> 1 + 0.8 x 1 = 1.8 */
static void serving_bands_are_measured_over_predicted(void **state)
{
    (void)state;
    struct srv_case c[6];
    memset(c, 0, sizeof c);
    const double e[6] = { -0.5, 0.0, 0.25, 0.1, 3.0, -0.9 };
    const enum srv_metric m[6] = { SRV_TTFT, SRV_TTFT, SRV_TTFT, SRV_TPOT, SRV_REQ_S, SRV_TTFT };
    for (int i = 0; i < 6; i++) {
        c[i].mapped = i < 5; /* the sixth (ratio 10) is not predicted */
        c[i].err = e[i];
        c[i].metric = m[i];
    }
    struct llmroof_uncertainty u;
    memset(&u, 0, sizeof u);
    u.ttft = (struct llmroof_band){ true, 0.5, 2.0, 9 }; /* the static bands stay as they are */
    srv_bands(c, 6, &u);
    assert_true(u.serving_ttft.present);
    assert_int_equal(u.serving_ttft.n, 3);
    assert_rel_close(u.serving_ttft.low, 0.84, 1e-12);
    assert_rel_close(u.serving_ttft.high, 1.8, 1e-12);
    assert_false(u.serving_tpot.present); /* one row */
    assert_false(u.serving_e2e.present);
    assert_rel_close(u.ttft.high, 2.0, 0);
    /* each publication weighs the same: four rows of source a at ratio 1 (err 0), one of b at 3
     * (err -2/3). Weights 1/4 each and 1, total 2; srv_weighted_stats puts value i at (W_i - w_i/2
     * - w_0/2) / (W - w_0/2 - w_last/2): sorted 1, 1, 1, 1, 3 at 0, 0.18, 0.36, 0.545, 1 (span
     * 2 - 0.125 - 0.5 = 1.375), so p90 = 1 + 2 x (0.9 - 0.75/1.375) / (1 - 0.75/1.375) = 2.56
     * (equal weights: 2.2); the 10th percentile, the 90th of the negated, stays 1 */
    struct srv_case w[5];
    memset(w, 0, sizeof w);
    for (int i = 0; i < 5; i++) {
        w[i].mapped = true;
        w[i].metric = SRV_TTFT;
        w[i].err = i < 4 ? 0.0 : -2.0 / 3.0;
        snprintf(w[i].source, sizeof w[i].source, "%s", i < 4 ? "example.org/a" : "example.org/b");
    }
    srv_bands(w, 5, &u);
    assert_int_equal(u.serving_ttft.n, 5);
    assert_rel_close(u.serving_ttft.high, 2.56, 1e-12);
    assert_rel_close(u.serving_ttft.low, 1.0, 1e-12);
}

/* One publication keyed two ways is one fold: LMDeploy's benchmark page is "InternLM/lmdeploy"
 * as a static row's source begins and github.com/InternLM/lmdeploy/blob/main/docs/... as a serving
 * row's; an issue or pull request of a repository stays its own; a domain is not an owner */
static void one_repository_is_one_publication(void **state)
{
    (void)state;
    char a[128], b[128];
    val_publication("InternLM/lmdeploy", a, sizeof a);
    val_publication("github.com/InternLM/lmdeploy/blob/main/docs/en/benchmark/a100_fp16.md", b, sizeof b);
    assert_string_equal(a, "InternLM/lmdeploy");
    assert_string_equal(a, b);
    val_publication("github.com/LLMServe/DistServe", b, sizeof b);
    assert_string_equal(b, "LLMServe/DistServe");
    val_publication("github.com/vllm-project/vllm/issues/1234", b, sizeof b);
    assert_string_equal(b, "vllm-project/vllm/issues/1234");
    val_publication("blog.vllm.ai/2024/09/05/perf-update.html", b, sizeof b);
    assert_string_equal(b, "blog.vllm.ai/2024/09/05/perf-update.html");
    val_publication("arXiv:2401.09670", b, sizeof b);
    assert_string_equal(b, "arXiv:2401.09670");
    val_publication("QwenLM/Qwen2.5/more", b, sizeof b); /* a bare path of three parts names no repository */
    assert_string_equal(b, "QwenLM/Qwen2.5/more");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_reader_handles_quotes_and_reports_lines),
        cmocka_unit_test(csv_row_limit_counts_rows_not_capacity),
        cmocka_unit_test(csv_long_fields_are_refused_not_cut),
        cmocka_unit_test(unmappable_rows_say_why),
        cmocka_unit_test(new_mappings_compute_dtype_batch_and_reserved_sources),
        cmocka_unit_test(published_measurements_are_met_within_the_targets),
        cmocka_unit_test(calibrate_recovers_known_efficiencies),
        cmocka_unit_test(first_token_s_is_fitted_only_from_first_token_rows),
        cmocka_unit_test(compute_scale_is_fitted_only_from_prefill_rows),
        cmocka_unit_test(bands_are_quantiles_of_the_latency_ratio),
        cmocka_unit_test(weighted_stats_by_hand),
        cmocka_unit_test(serving_closed_loop_burst_weighs_as_published),
        cmocka_unit_test(serving_rows_map_simulate_and_convert),
        cmocka_unit_test(serving_rows_use_engine_scheduler),
        cmocka_unit_test(serving_bands_are_measured_over_predicted),
        cmocka_unit_test(serving_stats_by_class_and_load),
        cmocka_unit_test(serving_slo_capacity_takes_the_best_goodput_of_the_sweep),
        cmocka_unit_test(serving_rows_take_the_engine_settings_they_state),
        cmocka_unit_test(serving_rows_take_the_kv_blocks_they_state),
        cmocka_unit_test(serving_rows_state_only_the_flags_their_engine_has),
        cmocka_unit_test(serving_rows_in_a_ray_actor_pay_its_call_every_step),
        cmocka_unit_test(serving_rows_take_the_arrival_span_their_client_sent),
        cmocka_unit_test(serving_scaled_chat_draws_stay_within_the_context),
        cmocka_unit_test(serving_rows_draw_a_dataset_stated_by_its_quantiles),
        cmocka_unit_test(one_repository_is_one_publication),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
