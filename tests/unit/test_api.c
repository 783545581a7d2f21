/* test_api.c - the JSON API (include/llmroof/api.h): the response is byte for byte what the
 * CLI prints, errors carry the CLI's exit status and message, repeated calls neither leak
 * (the ASan build runs this with leak detection) nor drift. */
#include "helpers.h"

#include <cjson/cJSON.h>
#include <locale.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "llmroof/api.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */
/* ------------------------------------------------------------------------ */

/* stdout of the llmroof binary run with `args` (a shell word list). */
static char *cli_stdout(const char *args, int *status)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "LLMROOF_DATA='%s' '%s' %s 2>/dev/null", LLMROOF_TEST_DATA_DIR, LLMROOF_TEST_CLI, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    int st = pclose(p);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return buf;
}

struct fixture {
    llmroof_ctx *ctx; /* the shipped catalog */
};

static int setup(void **state)
{
    static struct fixture f;
    char *msg = NULL;
    f.ctx = llmroof_ctx_new(LLMROOF_TEST_DATA_DIR, &msg);
    if (!f.ctx) {
        print_error("%s", msg ? msg : "(no message)\n");
        llmroof_free(msg);
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    llmroof_ctx_free(f->ctx);
    return 0;
}

static llmroof_ctx *ctx_of(void **state)
{
    return ((struct fixture *)*state)->ctx;
}

/* The request is refused: exit 2, no response, and a message that contains needle. */
static void expect_refused(void **state, const char *req, const char *needle)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state), req, &resp, &msg);
    if (rc != 2 || resp || !msg || !strstr(msg, needle)) {
        print_error("request %s: rc %d, message %s (expected 2 and '%s')\n", req, rc, msg ? msg : "(none)", needle);
        fail();
    }
    llmroof_free(msg);
}

/* ------------------------------------------------------------------------ */
/* The response is the CLI's JSON                                           */
/* ------------------------------------------------------------------------ */

static void version_should_be_the_projects(void **state)
{
    (void)state;
    assert_string_equal(llmroof_version(), LLMROOF_TEST_VERSION);
    assert_int_equal(LLMROOF_API_VERSION, 1);
}

/* The host program's own function named as one of the library's modules' (src/base/parse.c):
 * with every module symbol exported, the library's calls went to the host's (ELF interposition)
 * and "mem_util": 0.85 was refused as "not a number" (a review). The library exports its API
 * alone (src/api/llmroof.map), so this one is never called. */
int parse_double(const char *s, double *out);
int parse_double(const char *s, double *out)
{
    (void)s;
    (void)out;
    abort();
}

static void a_host_function_named_as_a_module_function_should_not_replace_it(void **state)
{
    (void)state;
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_call("{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"mem_util\":0.85}",
                          &resp, &msg);
    assert_int_equal(rc, LLMROOF_API_OK);
    assert_non_null(resp);
    llmroof_free(resp);
    llmroof_free(msg);
}

static void estimate_should_equal_the_cli_json(void **state)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"tp\":1,\"batch\":8}",
                              &resp, &msg);
    assert_int_equal(rc, LLMROOF_API_OK);
    assert_null(msg); /* batch 8 fits: no warning */
    int st;
    char *cli = cli_stdout("estimate -m llama-2-7b -g a100 -t 1 -b 8 --format json", &st);
    assert_int_equal(st, 0);
    assert_non_null(resp);
    assert_string_equal(resp, cli);
    /* and it is the estimate asked for */
    cJSON *j = cJSON_Parse(resp);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "model")->valuestring, "llama-2-7b");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "gpu")->valuestring, "a100-sxm4-40gb");
    assert_int_equal((int)cJSON_GetObjectItemCaseSensitive(j, "batch")->valuedouble, 8);
    cJSON_Delete(j);
    free(cli);
    llmroof_free(resp);
}

/* A plan request takes the speculative options as the command line does (underscores as dashes):
 * the response is plan --spec's JSON, with its "speculative" setting; --spec-accept without --spec
 * and --fast with --spec are refused as on the command line. */
static void a_speculative_plan_should_equal_the_cli_json(void **state)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"plan\",\"model\":\"llama-3.1-8b\",\"gpus\":\"h100\",\"tp\":1,"
                              "\"rate\":20,\"ttft_slo\":\"2s\",\"tpot_slo\":\"8ms\",\"spec\":\"eagle3\","
                              "\"spec_accept\":0.7}",
                              &resp, &msg);
    assert_int_equal(rc, LLMROOF_API_OK);
    int st;
    char *cli = cli_stdout("plan -m llama-3.1-8b --gpus h100 --tp 1 --rate 20 --ttft-slo 2s --tpot-slo 8ms --spec eagle3 "
                           "--spec-accept 0.7 -j 1 --format json",
                           &st);
    assert_int_equal(st, 0);
    assert_non_null(resp);
    assert_string_equal(resp, cli);
    cJSON *j = cJSON_Parse(resp);
    assert_non_null(j);
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(j, "speculative");
    assert_non_null(sp);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(sp, "method")->valuestring, "eagle3");
    /* (1 - 0.7^4) / (1 - 0.7) = 0.7599 / 0.3 = 2.533 tokens a step */
    assert_rel_close(cJSON_GetObjectItemCaseSensitive(sp, "expected_tokens_per_step")->valuedouble, 0.7599 / 0.3, 1e-12);
    /* one H100 serves it with EAGLE-3 (two without: test_plan.c) */
    assert_int_equal((int)cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "best"), "gpus")->valuedouble,
                     1);
    cJSON_Delete(j);
    free(cli);
    llmroof_free(resp);
    llmroof_free(msg);
    expect_refused(state, "{\"command\":\"plan\",\"model\":\"llama-3.1-8b\",\"gpus\":\"h100\",\"spec_accept\":0.7}",
                   "option '--spec-accept' describes speculative decoding");
    expect_refused(state,
                   "{\"command\":\"plan\",\"model\":\"llama-3.1-8b\",\"gpus\":\"h100\",\"fast\":true,"
                   "\"spec\":\"eagle\",\"spec_accept\":0.7}",
                   "options '--fast' and '--spec' conflict");
}

/* Underscores read as dashes, a fraction passes through unrounded, flags are true. */
static void memory_options_should_translate_like_the_command_line(void **state)
{
    char *resp = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"memory\",\"model\":\"llama-13b\",\"gpu\":\"v100\",\"tp\":8,"
                              "\"mem_util\":1,\"reserve\":0,\"workspace\":0,\"context\":2048}",
                              &resp, NULL);
    assert_int_equal(rc, 0);
    int st;
    char *cli = cli_stdout("memory -m llama-13b -g v100 -t 8 --mem-util 1 --reserve 0 --workspace 0 --context 2048 "
                           "--format json",
                           &st);
    assert_int_equal(st, 0);
    assert_string_equal(resp, cli);
    /* README: max batch 147 sequences of 2048 tokens on 8 x V100-32GB (theoretical settings):
     * (34,089,730,048 B the runtime reports - 3,254,691,840 B weights) / 102,400 B a token
     * = 301,123 tokens; 301,123 / 2048 = 147.03 */
    assert_non_null(strstr(resp, "\"kv_capacity_tokens\":\t301123,"));
    assert_non_null(strstr(resp, "\"max_batch\":\t147,"));
    free(cli);
    llmroof_free(resp);

    rc = llmroof_ctx_call(ctx_of(state),
                          "{\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"mem_util\":0.85}", &resp,
                          NULL);
    assert_int_equal(rc, 0);
    cli = cli_stdout("memory -m llama-2-7b -g a100 --mem-util 0.85 --format json", &st);
    assert_string_equal(resp, cli);
    free(cli);
    llmroof_free(resp);
}

/* A sweep request without a format gets sweep's JSON, JSON Lines: it had failed with "option
 * '--format': json is not available for 'sweep'", a format the caller never named (a review). */
static void sweep_without_format_should_answer_json_lines(void **state)
{
    char *resp = NULL, *err = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"sweep\",\"models\":\"llama-2-7b\",\"gpus\":[\"a100\",\"h100\"],"
                              "\"tp\":1,\"batch\":8,\"prompt\":512,\"output\":128}",
                              &resp, &err);
    assert_int_equal(rc, 0);
    assert_null(err);
    assert_non_null(resp);
    /* 1 model x 2 GPUs x TP 1 = 2 rows, each a JSON object of the sweep schema on its own line */
    int lines = 0;
    for (const char *p = resp; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 2);
    assert_memory_equal(resp, "{\"schema\":\"llmroof.sweep/1\"", 27);
    llmroof_free(resp);
}

/* Lists join with commas; "args" are the positional arguments; "format" passes through. */
static void lists_and_positionals_should_reach_the_command(void **state)
{
    char *resp = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"sweep\",\"models\":[\"llama-2-7b\"],\"gpus\":[\"a100\",\"h100\"],"
                              "\"tp\":[1,2],\"batch\":8,\"prompt\":512,\"output\":128,\"format\":\"jsonl\"}",
                              &resp, NULL);
    assert_int_equal(rc, 0);
    /* 1 model x 2 GPUs x 2 TP x 1 x 1 x 1 = 4 rows */
    int lines = 0;
    for (const char *p = resp; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    llmroof_free(resp);

    rc = llmroof_ctx_call(ctx_of(state), "{\"command\":\"show\",\"args\":[\"model\",\"llama-2-70b\"]}", &resp, NULL);
    assert_int_equal(rc, 0);
    int st;
    char *cli = cli_stdout("show model llama-2-70b --format json", &st);
    assert_string_equal(resp, cli);
    free(cli);
    llmroof_free(resp);

    /* a whole JSON number up to 2^53 reaches the command line whole: a seed of 10^15 was written
     * "1e+15", which --seed refuses (review, session 37) */
    char *msg = NULL;
    rc = llmroof_ctx_call(ctx_of(state),
                          "{\"command\":\"simulate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"requests\":8,"
                          "\"concurrency\":2,\"seed\":1000000000000000}",
                          &resp, &msg);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(resp, "\"seed\":\t1000000000000000\n")); /* its digits: cJSON had written 1e+15 */
    llmroof_free(resp);
    llmroof_free(msg);

    /* a number is its value however written: 10^17 in digits had been refused as "2^53 or more,
     * where a JSON number holds no whole number exactly" while 1e17 ran (a review); and a mantissa's
     * digits after the point under an exponent are no fraction (1.7976931348623157e308 had been
     * refused for "a fraction": it goes to --batch's own range check) */
    char *r1 = NULL, *r2 = NULL, *m1 = NULL, *m2 = NULL;
    int rc1 = llmroof_ctx_call(ctx_of(state), "{\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\","
                                              "\"reserve\":100000000000000000}", &r1, &m1);
    int rc2 = llmroof_ctx_call(ctx_of(state), "{\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\","
                                              "\"reserve\":1e17}", &r2, &m2);
    assert_int_equal(rc1, rc2);
    assert_true((r1 == NULL) == (r2 == NULL));
    if (r1)
        assert_string_equal(r1, r2);
    assert_true((m1 == NULL) == (m2 == NULL));
    if (m1)
        assert_string_equal(m1, m2);
    llmroof_free(r1);
    llmroof_free(r2);
    llmroof_free(m1);
    llmroof_free(m2);
    rc = llmroof_ctx_call(ctx_of(state), "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\","
                                         "\"batch\":1.7976931348623157e308}", &resp, &msg);
    assert_int_equal(rc, LLMROOF_API_EINPUT);
    assert_null(resp);
    assert_non_null(strstr(msg, "option '--batch'"));
    llmroof_free(msg);
}

/* "format": null or false is no option (docs/api.md: "false, null: nothing"), so the format
 * stays the request's default, json: it had counted as given and the response was the table
 * text (Python's estimate(format=None) returned a str). "args": null is no positional argument. */
static void a_null_format_should_keep_the_json_default(void **state)
{
    int st;
    char *cli = cli_stdout("estimate -m llama-2-7b -g a100 --format json", &st);
    assert_int_equal(st, 0);
    static const char *const reqs[] = {
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"format\":null}",
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"format\":false}",
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"args\":null}",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        char *resp = NULL, *msg = NULL;
        int rc = llmroof_ctx_call(ctx_of(state), reqs[i], &resp, &msg);
        if (rc != 0 || !resp || strcmp(resp, cli) != 0) {
            print_error("request %s: rc %d, response %.80s, message %s\n", reqs[i], rc, resp ? resp : "(none)",
                        msg ? msg : "(none)");
            fail();
        }
        llmroof_free(resp);
        llmroof_free(msg);
    }
    free(cli);
}

/* A key given twice is refused, whichever it is: "args" twice had run the second list, "command"
 * twice the first command, and "batch": 2 beside "batch": null the 2 (the server refused them). */
static void a_key_given_twice_should_be_refused(void **state)
{
    expect_refused(state, "{\"command\":\"show\",\"args\":[\"model\",\"llama-2-7b\"],\"args\":[\"gpu\",\"a100\"]}",
                   "request: a key is given twice (byte 48)");
    expect_refused(state, "{\"command\":\"estimate\",\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\"}",
                   "request: a key is given twice (byte 22)");
    expect_refused(state, "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":2,\"batch\":null}",
                   "request: a key is given twice");
    /* a key and its escaped spelling are one key (a review: "c\u006fmmand" beside "command" ran
     * memory, which a gateway reading the last key would not see) */
    expect_refused(state, "{\"c\\u006fmmand\":\"memory\",\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\"}",
                   "request: a key is given twice (byte 25)");
    expect_refused(state, "{\"command\":\"show\",\"args\":[],\"\\u0061rgs\":[\"x\"]}", "request: a key is given twice");
}

/* Numbers as RFC 8259 writes them: a leading zero, a '.' without digits after it or an exponent
 * without digits are not JSON (cJSON's strtod had read "01", "1." and "8.e0" as 1, 1 and 8: a
 * review). Byte 64: the text before "batch"'s value, counted in bad_values_and_options. */
static void numbers_outside_the_json_grammar_should_be_refused(void **state)
{
    static const char *const bad[] = { "01", "1.", "8.e0", "-01", "1.5e", "1e+", "00", "-.5", "-" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[256], needle[128];
        snprintf(req, sizeof req, "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":%s}",
                 bad[i]);
        snprintf(needle, sizeof needle, "request: field 'batch': %s at byte 64 is not a JSON number", bad[i]);
        expect_refused(state, req, needle);
    }
    static const char *const good[] = { "8", "8e0", "8E+0", "8.0", "80e-1", "0.8e1" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char req[256], *resp = NULL, *msg = NULL;
        snprintf(req, sizeof req, "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":%s}",
                 good[i]);
        assert_int_equal(llmroof_ctx_call(ctx_of(state), req, &resp, &msg), LLMROOF_API_OK);
        assert_non_null(strstr(resp, "\"batch\":\t8,"));
        llmroof_free(resp);
        llmroof_free(msg);
    }
}

/* A host program that sets cJSON's allocator for the whole process (cJSON_InitHooks) gets
 * answers as any other: the library had realloc'ed and free()d cJSON_Print's buffer, which a
 * hook's allocator with a header made abort (a review). Every byte the hooks hand out here
 * carries a 16-byte header; a free() of it, or a realloc, would be an invalid pointer. */
static size_t hook_live;
static void *hook_malloc(size_t n)
{
    unsigned char *p = malloc(n + 16);
    if (!p)
        return NULL;
    hook_live++;
    memcpy(p, "llmroof-hook-hdr", 16);
    return p + 16;
}
static void hook_free(void *q)
{
    if (!q)
        return;
    unsigned char *p = (unsigned char *)q - 16;
    assert_memory_equal(p, "llmroof-hook-hdr", 16);
    hook_live--;
    free(p);
}

/* cJSON's allocator failing at its Nth call, as a host's hooks may (the fault a review injected
 * through malloc): a call that succeeds answers exactly what it answers with memory to spare,
 * and one that fails says why with no answer. It had returned success 450 times in 492 with a
 * field missing (prefill.kernel_s, one op's flops), once with no response at all. */
static long fail_after;
static void *failing_malloc(size_t n)
{
    if (fail_after-- == 0)
        return NULL;
    return malloc(n);
}

static long counted;
static void *counting_malloc(size_t n)
{
    counted++;
    return malloc(n);
}

static void an_allocation_that_fails_should_never_give_a_short_answer(void **state)
{
    /* one request of each renderer (render_json.c, render_json_serve.c, render_json_catalog.c,
     * the table documents, validate's) */
    static const char *const reqs[] = {
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":8}",
        "{\"command\":\"simulate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"requests\":20,\"sweep_rate\":[1,2]}",
        "{\"command\":\"plan\",\"model\":\"llama-2-7b\",\"gpus\":\"a100\",\"tp\":1,\"users\":20,\"fast\":true}",
        "{\"command\":\"report\",\"model\":\"llama-2-7b\",\"gpus\":\"a100\",\"tp\":\"1,2\"}",
        "{\"command\":\"show\",\"args\":[\"model\",\"gpt-oss-120b\"]}",
        "{\"command\":\"list\",\"args\":[\"engines\"]}",
    };
    for (size_t q = 0; q < sizeof reqs / sizeof reqs[0]; q++) {
        char *want = NULL, *msg = NULL;
        cJSON_Hooks count = { counting_malloc, free };
        counted = 0;
        cJSON_InitHooks(&count);
        const int rc0 = llmroof_ctx_call(ctx_of(state), reqs[q], &want, &msg);
        cJSON_InitHooks(NULL);
        if (rc0 != LLMROOF_API_OK) {
            print_error("%s: %s\n", reqs[q], msg ? msg : "");
            fail();
        }
        llmroof_free(msg);
        /* 40 faults spread over the call's allocations, and one past them */
        int failed = 0, answered = 0;
        for (long k = 0; k <= 40; k++) {
            char *resp = NULL;
            msg = NULL;
            cJSON_Hooks hooks = { failing_malloc, free };
            const long at = k < 40 ? k * counted / 40 : counted;
            fail_after = at;
            cJSON_InitHooks(&hooks);
            const int rc = llmroof_ctx_call(ctx_of(state), reqs[q], &resp, &msg);
            cJSON_InitHooks(NULL);
            if (rc == LLMROOF_API_OK) {
                if (!resp || strcmp(resp, want) != 0) {
                    print_error("%s: fault at %ld of %ld allocations: status 0 with another answer\n", reqs[q],
                                at, counted);
                    fail();
                }
                answered++;
            } else {
                assert_null(resp);
                assert_non_null(msg);
                assert_true(strlen(msg) > 0);
                failed++;
            }
            llmroof_free(resp);
            llmroof_free(msg);
        }
        /* the faults landed, and past the call's last allocation it answers */
        assert_true(failed >= 30);
        assert_true(answered >= 1);
        llmroof_free(want);
    }
}

static void a_hosts_cjson_allocator_should_not_break_a_call(void **state)
{
    cJSON_Hooks hooks = { hook_malloc, hook_free };
    cJSON_InitHooks(&hooks);
    static const char *const reqs[] = {
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":8}",
        "{\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\"}",
        "{\"command\":\"validate\",\"format\":\"json\",\"quiet\":true}",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        char *resp = NULL, *msg = NULL;
        const int rc = llmroof_ctx_call(ctx_of(state), reqs[i], &resp, &msg);
        if (rc != LLMROOF_API_OK || !resp) {
            print_error("%s: rc %d: %s\n", reqs[i], rc, msg ? msg : "");
            fail();
        }
        llmroof_free(resp);
        llmroof_free(msg);
    }
    cJSON_InitHooks(NULL);
    assert_int_equal(hook_live, 0); /* everything cJSON handed out through the hooks went back through them */
}

/* A lone UTF-16 surrogate escape is refused naming its field (cJSON had said only "invalid JSON at
 * byte 31"); a whole pair is a character like any other. */
static void a_lone_surrogate_should_name_its_field(void **state)
{
    expect_refused(state, "{\"command\":\"estimate\",\"model\":\"\\ud800\",\"gpu\":\"a100\"}",
                   "request: field 'model': the escape \\ud800 at byte 31 is half of a UTF-16 surrogate pair");
    expect_refused(state, "{\"command\":\"sweep\",\"models\":[\"llama-2-7b\",\"\\udc00\"],\"gpus\":\"a100\"}",
                   "request: field 'models': the escape \\udc00");
    expect_refused(state, "{\"command\":\"estimate\",\"\\ud800x\":1}", "request: a field name holds the escape \\ud800");
    expect_refused(state, "{\"command\":\"estimate\",\"model\":\"x\\ud83d\\ude00\",\"gpu\":\"a100\"}",
                   "unknown model 'x\xf0\x9f\x98\x80'");
}

/* A request naming a catalog file loads its own catalog; the context's stays as it was. */
static void catalog_files_should_extend_the_catalog_for_one_call(void **state)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"my-accel\","
                              "\"gpus_file\":[\"" LLMROOF_TEST_FIXTURES "/my-gpu.json\"]}",
                              &resp, &msg);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(resp, "\"my-accel\""));
    llmroof_free(resp);
    llmroof_free(msg);
    rc = llmroof_ctx_call(ctx_of(state), "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"my-accel\"}",
                          &resp, &msg);
    assert_int_equal(rc, LLMROOF_API_EINPUT);
    assert_null(resp);
    assert_non_null(strstr(msg, "unknown GPU 'my-accel'"));
    llmroof_free(msg);
}

/* An input named '-' is standard input on the command line; a library request has none of its
 * own (the host program's is not the request's, and reading it would wait on the host's
 * terminal), so it is refused naming the option or argument, before anything is read. An
 * output '-' is refused on both. */
static void dash_inputs_and_outputs_should_be_refused(void **state)
{
    expect_refused(state, "{\"command\":\"list\",\"args\":\"gpus\",\"gpus_file\":[\"-\"]}",
                   "option '--gpus-file': '-' reads standard input, which a library request does not have");
    expect_refused(state,
                   "{\"command\":\"simulate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"trace\":\"-\"}",
                   "option '--trace': '-' reads standard input, which a library request does not have");
    expect_refused(state,
                   "{\"command\":\"simulate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"rate\":1,"
                   "\"requests\":4,\"workload\":\"csv:-\"}",
                   "option '--workload': '-' reads standard input, which a library request does not have");
    expect_refused(state, "{\"command\":\"import-hf\",\"args\":\"-\",\"name\":\"x\"}",
                   "CONFIG.json: '-' reads standard input, which a library request does not have");
    expect_refused(state, "{\"command\":\"check\",\"args\":\"-\"}",
                   "BASELINE.jsonl: '-' reads standard input, which a library request does not have");
    expect_refused(state, "{\"command\":\"roofline\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"svg\":\"-\"}",
                   "option '--svg': '-' would be standard output, which holds the command's result");
}

/* simulate's rule for one engine's flags holds for a request: vLLM V1 never had
 * --num-scheduler-steps, SGLang never --max-paddings (status 2, naming the option and the engine). */
static void engine_flags_follow_the_profile_as_on_the_command_line(void **state)
{
    expect_refused(state,
                   "{\"command\":\"simulate\",\"model\":\"llama-3.1-8b\",\"gpu\":\"h100\",\"engine\":\"vllm\","
                   "\"rate\":1,\"requests\":5,\"scheduler_steps\":8}",
                   "option '--scheduler-steps': engine 'vllm' has no --num-scheduler-steps");
    expect_refused(state,
                   "{\"command\":\"simulate\",\"model\":\"llama-3.1-8b\",\"gpu\":\"h100\",\"engine\":\"sglang\","
                   "\"rate\":1,\"requests\":5,\"max_paddings\":256}",
                   "option '--max-paddings': engine 'sglang' has no --max-paddings");
    char *resp = NULL, *msg = NULL;
    assert_int_equal(llmroof_ctx_call(ctx_of(state),
                                      "{\"command\":\"simulate\",\"model\":\"llama-3.1-8b\",\"gpu\":\"h100\","
                                      "\"engine\":\"vllm-0.6\",\"rate\":1,\"requests\":5,\"scheduler_steps\":8}",
                                      &resp, &msg),
                     0);
    assert_non_null(strstr(resp, "\"scheduler_steps\":\t8"));
    llmroof_free(resp);
    llmroof_free(msg);
}

/* ------------------------------------------------------------------------ */
/* Errors: the CLI's status and message                                     */
/* ------------------------------------------------------------------------ */

static void unknown_model_should_fail_with_the_cli_message(void **state)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state), "{\"command\":\"estimate\",\"model\":\"llama-2-7x\",\"gpu\":\"a100\"}",
                              &resp, &msg);
    assert_int_equal(rc, 2);
    assert_null(resp);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "llmroof: error: unknown model 'llama-2-7x'"));
    assert_non_null(strstr(msg, "did you mean: llama-2-7b"));
    llmroof_free(msg);
}

/* 100 zeros, for a number written out past a double's range */
#define Z10 "0000000000"
#define Z100 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10 Z10

static void bad_values_and_options_should_fail_with_status_2(void **state)
{
    static const struct {
        const char *req, *needle;
    } cases[] = {
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"tp\":0}", "'--tp'" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"bogus\":1}", "unknown field 'bogus'" },
        { "{\"command\":\"estimat\"}", "unknown command 'estimat'" },
        /* a shortened option name is not taken (the command line's unique prefix): "mod" is not --model */
        { "{\"command\":\"estimate\",\"mod\":\"llama-2-7b\",\"gpu\":\"a100\"}", "unknown field 'mod'" },
        /* named as the request spells it (it had come back with dashes: 'ttft-slo') */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"ttft_slo\":\"3s\"}", "unknown field 'ttft_slo'" },
        /* usage and version text are not answers */
        { "{\"command\":\"--help\"}", "field 'command' must be a command name" },
        { "{\"command\":\"estimate\",\"help\":true}", "field 'help'" },
        /* "help" as a command had answered that help takes no option '--format=json' (the API's own) */
        { "{\"command\":\"help\"}", "field 'command': 'help' is the command line's usage text" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"format\":\"xml\"}", "unknown format 'xml'" },
        { "{\"model\":\"llama-2-7b\"}", "request: field 'command'" },
        { "{\"command\":7}", "request: field 'command'" },
        { "[\"estimate\"]", "request: the request must be a JSON object" },
        { "{\"command\":\"estimate\",", "request: invalid JSON at byte 22" },
        { "{\"command\":\"estimate\",\"model\":{\"id\":\"x\"}}", "field 'model' must be a string" },
        { "{\"command\":\"estimate\",\"tp\":[]}", "field 'tp' is an empty list" },
        { "{\"command\":\"estimate\",\"tp\":[true]}", "a list holds strings or numbers" },
        { "{\"command\":\"estimate\",\"--tp\":1}", "field '--tp' is not an option name" },
        { "{\"command\":\"show\",\"args\":[1]}", "field 'args' must be a list of strings" },
        { "", "invalid JSON at byte 0" },
        /* numbers reach the option as the shortest text that reads back: 1e300 -> "1e+300" */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":1e300}",
          "option '--batch': '1e+300' is not a whole number" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":2.5}",
          "option '--batch': '2.5' is not a whole number" },
        /* a number past a double: strtod reads 1e400 as infinity, which reached --batch as 'inf';
         * 1e-400 as 0. Byte 64 is where the number starts (the 64 bytes before it counted by hand:
         * {"command":"estimate", 22 + "model":"llama-2-7b", 21 + "gpu":"a100", 13 + "batch": 8) */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":1e400}",
          "request: field 'batch': the number 1e400 is out of range at byte 64 (expected a magnitude up to 1.8e308)" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":-1e-400}",
          "request: field 'batch': the number -1e-400 is out of range" },
        { "{\"command\":\"sweep\",\"tp\":[1,2e999]}", "request: field 'tp': the number 2e999 is out of range" },
        /* ... and one past a double in digits alone, 10^400 written out (401 characters: longer
         * than any copy a check might make; quoted by its first 40) */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":1" Z100 Z100 Z100 Z100 "}",
          "request: field 'batch': the number 1000000000000000000000000000000000000000... is out of range at byte 64" },
        /* JSON text is UTF-8: a 0xff byte in a string (byte 41, the 11th of the model's name) and
         * an encoded surrogate U+D800 (ED A0 80) are refused, not passed on as the model's name */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\xff\",\"gpu\":\"a100\"}",
          "request: invalid UTF-8 at byte 41 (byte 0xff)" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\xed\xa0\x80\",\"gpu\":\"a100\"}",
          "request: invalid UTF-8 at byte 41 (byte 0xed)" },
        /* nesting: the object is level 1 and the '[' at bytes 26, 27, ... levels 2, 3, ...: the one
         * at byte 41 is level 17, past the limit of 16 (cJSON's own limit of 1000 said only
         * "invalid JSON at byte 1025") */
        { "{\"command\":\"estimate\",\"x\":[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]}",
          "request: JSON nested more than 16 levels deep at byte 41" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(state, cases[i].req, cases[i].needle);
    char *msg = NULL;
    assert_int_equal(llmroof_ctx_call(ctx_of(state), NULL, NULL, &msg), 2);
    assert_non_null(strstr(msg, "no request"));
    llmroof_free(msg);
    assert_int_equal(llmroof_ctx_call(NULL, "{\"command\":\"list\"}", NULL, &msg), 2);
    assert_non_null(strstr(msg, "no context"));
    llmroof_free(msg);
}

/* Each option of a request is checked against its kind: a value option given true is refused
 * naming it (it used to take the next argument, "--format=json", as its file name and write
 * that file); a flag given a value likewise; false leaves a flag out. */
static void options_should_be_checked_against_their_kind(void **state)
{
    static const struct {
        const char *req, *needle;
    } cases[] = {
        { "{\"command\":\"roofline\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"svg\":true}",
          "request: field 'svg' takes a value (FILE), not true" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":true}",
          "request: field 'batch' takes a value (B), not true" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"dp_attention\":\"yes\"}",
          "request: field 'dp-attention' is a flag: expected true or false, got 'yes'" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"dp_attention\":1}",
          "request: field 'dp-attention' is a flag: expected true or false, got '1'" },
        /* NaN and Infinity (what Python's json writes) named with their field */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"batch\": NaN}",
          "request: field 'batch': NaN is not a number JSON can hold" },
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"mem_util\":-Infinity}",
          "request: field 'mem_util': -Infinity is not a number JSON can hold" },
        { "{\"command\":\"estimate\",\"tp\":[1,Infinity]}", "invalid JSON at byte 30: Infinity is not a number" },
        /* a whole object and more text: said as the server says it (a review of session 65 had
         * "invalid JSON at byte 35" alone) */
        { "{\"command\":\"list\",\"args\":[\"gpus\"]} trailing", "invalid JSON at byte 35: text after the JSON object" },
        /* an embedded NUL no longer cuts the name to a known model */
        { "{\"command\":\"estimate\",\"model\":\"llama-2-7b\\u0000x\",\"gpu\":\"a100\"}",
          "request: field 'model': the value 'llama-2-7b' is followed by a NUL or control character at byte 10" },
        { "{\"command\":\"show\",\"args\":[\"model\",\"a\\u001fb\"]}", "field 'args': the value 'a' is followed by" },
        /* an escaped backslash before u0000 is text, not a NUL: the name is unknown */
        { "{\"command\":\"estimate\",\"model\":\"x\\\\u0000\",\"gpu\":\"a100\"}", "unknown model 'x\\u0000'" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_refused(state, cases[i].req, cases[i].needle);
    struct stat st;
    assert_int_not_equal(stat("--format=json", &st), 0); /* the old failure wrote this file */
    /* false omits a flag: the same response as without it */
    char *with = NULL, *without = NULL;
    assert_int_equal(llmroof_ctx_call(ctx_of(state), "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\","
                                                     "\"dp_attention\":false}", &with, NULL), 0);
    assert_int_equal(llmroof_ctx_call(ctx_of(state), "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\"}",
                                      &without, NULL), 0);
    assert_string_equal(with, without);
    llmroof_free(with);
    llmroof_free(without);
}

/* A long value is echoed clipped to 64 bytes and "..."; beyond what one command-line argument
 * can hold (128 KiB) it is refused before the command runs. */
static void long_values_should_be_echoed_clipped(void **state)
{
    for (int big = 0; big < 2; big++) {
        size_t n = big ? (size_t)50 << 20 : 1000; /* 50 MB as the issue's, and 1000 bytes */
        char *req = malloc(n + 128);
        assert_non_null(req);
        int k = snprintf(req, n + 128, "{\"command\":\"estimate\",\"gpu\":\"a100\",\"model\":\"");
        memset(req + k, 'x', n);
        snprintf(req + k + n, 128, "\"}");
        char *msg = NULL;
        assert_int_equal(llmroof_ctx_call(ctx_of(state), req, NULL, &msg), 2);
        assert_non_null(msg);
        char expect[128];
        snprintf(expect, sizeof expect, "'%.64s...'", req + k); /* 64 x then "..." */
        assert_non_null(strstr(msg, expect));
        assert_true(strlen(msg) < 400);
        assert_non_null(strstr(msg, big ? "a value of 52428800 bytes" : "unknown model"));
        llmroof_free(msg);
        free(req);
    }
}

/* Success with a warning: status 0, the result, and the warning in error_msg. */
static void warnings_should_come_back_beside_the_result(void **state)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"prompt\":4096,"
                              "\"output\":512}",
                              &resp, &msg);
    assert_int_equal(rc, 0);
    assert_non_null(resp);
    assert_non_null(msg);
    /* 4096 + 512 = 4608 tokens > llama-2-7b's 4096-token context */
    assert_non_null(strstr(msg, "warning: prompt + output = 4608 tokens exceeds llama-2-7b's max context of 4096"));
    llmroof_free(resp);
    llmroof_free(msg);
}

/* A layout's warning names its GPUs: DeepSeek-V3 at EP 8 with data-parallel attention (8 replicas
 * of TP 1) is 8 H800s; fp8 weights take 94.97 GiB a GPU with the workspace and reserve against 71.26
 * usable, so it does not fit there. Before session 38 the warning said "1 x h800" (the replica's
 * TP). */
static void a_layouts_warning_counts_its_gpus(void **state)
{
    char *resp = NULL, *msg = NULL;
    int rc = llmroof_ctx_call(ctx_of(state),
                              "{\"command\":\"estimate\",\"model\":\"deepseek-v3\",\"gpu\":\"h800\",\"ep\":8,"
                              "\"dp_attention\":true}",
                              &resp, &msg);
    assert_int_equal(rc, 0);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "warning: deepseek-v3 does not fit on 8 x h800-sxm5-80gb in fp8 weights"));
    llmroof_free(resp);
    llmroof_free(msg);
}

/* llmroof_stop_when_readable: 0 while a pipe is empty, nonzero once a byte waits (read by no one),
 * 0 for a NULL argument. */
static void stop_when_readable_follows_the_descriptor(void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(llmroof_stop_when_readable(&fds[0]), 0);
    assert_int_equal(write(fds[1], "x", 1), 1);
    assert_int_not_equal(llmroof_stop_when_readable(&fds[0]), 0);
    assert_int_not_equal(llmroof_stop_when_readable(&fds[0]), 0); /* the byte stays */
    assert_int_equal(llmroof_stop_when_readable(NULL), 0);
    close(fds[0]);
    close(fds[1]);
}

/* A stop callback that asks to stop from its `at`-th question on (never when at < 0). */
struct stop_count {
    int calls, at;
};

static int stop_at(void *arg)
{
    struct stop_count *k = arg;
    k->calls++;
    return k->at >= 0 && k->calls > k->at;
}

/* Runs req with stop_at answering "stop" from its (at + 1)-th question: the call ends with
 * LLMROOF_API_ESTOPPED, no response and an error holding `needle`. Returns the questions asked. */
static int expect_stopped(llmroof_ctx *ctx, const char *req, int at, const char *needle)
{
    struct stop_count k = { 0, at };
    char *resp = NULL, *msg = NULL;
    assert_int_equal(llmroof_ctx_call_stoppable(ctx, req, &resp, &msg, stop_at, &k), LLMROOF_API_ESTOPPED);
    assert_null(resp);
    assert_non_null(msg);
    assert_non_null(strstr(msg, needle));
    llmroof_free(msg);
    return k.calls;
}

/* llmroof_ctx_call_stoppable: a callback that never stops changes nothing (the same bytes as
 * llmroof_ctx_call) and is asked every SIM_STOP_EVENTS (4096) events of a simulation; one that
 * stops ends simulate and plan with status 3, no response and the library's message; an estimate
 * never asks it. */
static void stop_callback_should_end_long_work(void **state)
{
    static const char sim[] = "{\"command\":\"simulate\",\"model\":\"llama-3.1-8b\",\"gpu\":\"h100\","
                              "\"requests\":3000,\"workload\":\"fixed:64:256\",\"rate\":40}";
    char *plain = NULL, *resp = NULL;
    assert_int_equal(llmroof_ctx_call(ctx_of(state), sim, &plain, NULL), 0);
    struct stop_count never = { 0, -1 };
    assert_int_equal(llmroof_ctx_call_stoppable(ctx_of(state), sim, &resp, NULL, stop_at, &never), 0);
    assert_string_equal(resp, plain);
    llmroof_free(resp);
    /* the run is 3,000 arrivals and 10,542 iterations (its JSON's "iterations"): 13,542 events,
     * floor(13,542 / 4,096) = 3 questions in the loop, one after drawing the arrivals and one after
     * the statistics (both seconds long for millions of requests): 5 */
    assert_int_equal(never.calls, 5);

    /* the first question comes once the arrivals are drawn, before any request has run */
    assert_int_equal(expect_stopped(ctx_of(state), sim, 0, "stopped by the caller after 0 of 3000 requests"), 1);
    /* stops at its second question */
    assert_int_equal(expect_stopped(ctx_of(state), sim, 1, "llmroof: error: stopped by the caller after "), 2);
    expect_stopped(ctx_of(state),
                   "{\"command\":\"plan\",\"model\":\"llama-3.1-8b\",\"gpus\":\"h100\",\"users\":64,"
                   "\"ttft_slo\":\"2s\",\"tpot_slo\":\"50ms\"}",
                   0, "stopped by the caller");

    /* a users plan over several GPUs ranks its options analytically first (seconds over many
     * layouts): asked there too */
    expect_stopped(ctx_of(state),
                   "{\"command\":\"plan\",\"model\":\"llama-3.1-8b\",\"gpus\":[\"h100\",\"a100\"],"
                   "\"users\":64,\"ttft_slo\":\"2s\",\"tpot_slo\":\"50ms\"}",
                   0, "stopped by the caller while ranking the options");

    /* a --fast plan on four threads (par_for): the stop is asked on the caller's thread after
     * each row it solved, the rows not started are skipped, and the call returns no answer */
    expect_stopped(ctx_of(state),
                   "{\"command\":\"plan\",\"model\":\"llama-3.1-8b\",\"gpus\":[\"h100\",\"a100\",\"l4\",\"a10\"],"
                   "\"users\":64,\"fast\":true,\"jobs\":4}",
                   0, "stopped by the caller after ");

    /* sweep asks every 64 rows: 2 x 2 x 4 x 4 x 3 = 192 rows, stopped at the 64th; its rows so far
     * are no answer */
    assert_int_equal(expect_stopped(ctx_of(state),
                                    "{\"command\":\"sweep\",\"models\":[\"llama-2-7b\",\"llama-2-13b\"],"
                                    "\"gpus\":[\"a100\",\"h100\"],\"batch\":[1,8,32,64],\"tp\":[1],"
                                    "\"prompt\":[128,512,1024,2048],\"output\":[64,128,256],\"format\":\"jsonl\"}",
                                    0, "stopped by the caller"),
                     1);

    struct stop_count est = { 0, 0 };
    assert_int_equal(llmroof_ctx_call_stoppable(ctx_of(state),
                                                "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\"}",
                                                &resp, NULL, stop_at, &est),
                     0);
    assert_int_equal(est.calls, 0);
    llmroof_free(resp);
    llmroof_free(plain);
}

static void context_should_name_a_directory_without_a_catalog(void **state)
{
    (void)state;
    char *msg = NULL;
    llmroof_ctx *ctx = llmroof_ctx_new("/nonexistent-llmroof-dir", &msg);
    assert_null(ctx);
    assert_non_null(msg);
    assert_non_null(strstr(msg, "'/nonexistent-llmroof-dir' does not contain gpus.json and models.json"));
    assert_null(strstr(msg, "--help")); /* no command line to ask for help (it had said "try 'llmroof --help'") */
    llmroof_free(msg);
    assert_null(llmroof_ctx_new("/nonexistent-llmroof-dir", NULL)); /* NULL error_msg is allowed */
    llmroof_ctx_free(NULL);
    llmroof_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* The host's locale                                                        */
/* ------------------------------------------------------------------------ */

/* A locale whose decimal point is a comma, or (locale_t)0 where none is installed. glibc names
 * it "de_DE.UTF-8" or "de_DE.utf8"; scripts/deps.sh --test makes de_DE.UTF-8 with localedef. */
static locale_t comma_locale(void)
{
    static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8", "de_DE", "fr_FR.UTF-8", "fr_FR.utf8",
                                         "nl_NL.UTF-8", "es_ES.UTF-8", "it_IT.UTF-8", "ru_RU.UTF-8" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        locale_t l = newlocale(LC_NUMERIC_MASK, names[i], (locale_t)0);
        if (!l)
            continue;
        locale_t prev = uselocale(l);
        bool comma = strcmp(localeconv()->decimal_point, ",") == 0;
        uselocale(prev);
        if (comma)
            return l;
        freelocale(l);
    }
    return (locale_t)0;
}

/* A host program that called setlocale(LC_ALL, "") under LC_NUMERIC=de_DE (Python's
 * locale.setlocale does) gets the C locale's numbers all the same: "mem_util": 0.85 reaches
 * --mem-util as "0.85", which strtod under de_DE reads as 0 with ".85" left over (a refusal),
 * and a table's 0.85 would print "0,85". Each call runs under a per-thread C locale (api.c)
 * and gives the caller's back afterwards. */
static void calls_should_not_depend_on_the_callers_locale(void **state)
{
    locale_t de = comma_locale();
    if (!de) {
        printf("note: no locale with a decimal comma is installed (localedef -i de_DE -f UTF-8 de_DE.UTF-8): "
               "calls_should_not_depend_on_the_callers_locale checks nothing\n");
        return;
    }
    const char *reqs[] = {
        "{\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"mem_util\":0.85}",
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":8,\"compute_eff\":0.55}",
        "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"batch\":8,\"format\":\"table\"}",
    };
    char *under_c[3] = { NULL, NULL, NULL };
    for (int i = 0; i < 3; i++)
        assert_int_equal(llmroof_ctx_call(ctx_of(state), reqs[i], &under_c[i], NULL), 0);
    locale_t prev = uselocale(de);
    char probe[16];
    snprintf(probe, sizeof probe, "%.2f", 0.85);
    assert_string_equal(probe, "0,85"); /* the caller's locale is in force in this thread */
    llmroof_ctx *ctx = llmroof_ctx_new(LLMROOF_TEST_DATA_DIR, NULL); /* the catalog's numbers too */
    assert_non_null(ctx);
    for (int i = 0; i < 3; i++) {
        char *resp = NULL, *msg = NULL;
        int rc = llmroof_ctx_call(ctx, reqs[i], &resp, &msg);
        if (rc != 0 || !resp || strcmp(resp, under_c[i]) != 0) {
            print_error("request %s under a comma locale: rc %d, %s%s\n", reqs[i], rc, msg ? msg : "",
                        resp ? resp : "(no response)");
            fail();
        }
        llmroof_free(resp);
        llmroof_free(msg);
    }
    /* and the one-shot call, which loads its own catalog */
    char *resp = NULL;
    assert_int_equal(llmroof_call(reqs[0], &resp, NULL), 0);
    assert_string_equal(resp, under_c[0]);
    llmroof_free(resp);
    /* the caller's locale is back after each call */
    assert_true(uselocale((locale_t)0) == de);
    snprintf(probe, sizeof probe, "%.2f", 0.85);
    assert_string_equal(probe, "0,85");
    llmroof_ctx_free(ctx);
    uselocale(prev);
    freelocale(de);
    /* the JSON holds dot decimals: mem_util 0.85 reads back as that number, and usable = visible x
     * mem_util = 42,298,834,944 B x 0.85 = 35,954,009,702.4 B, printed as whole bytes (floored) */
    cJSON *j = cJSON_Parse(under_c[0]);
    assert_non_null(j);
    const cJSON *util = cJSON_GetObjectItemCaseSensitive(j, "mem_util");
    assert_non_null(util);
    assert_rel_close(util->valuedouble, 0.85, 1e-12);
    assert_non_null(strstr(under_c[0], "0.85"));
    assert_null(strstr(under_c[0], "0,85"));
    const cJSON *usable = cJSON_GetObjectItemCaseSensitive(j, "usable_bytes_per_gpu");
    assert_non_null(usable);
    assert_true(usable->valuedouble == 35954009702.0);
    assert_non_null(strstr(under_c[2], "compute 0.77, memory 0.72")); /* the table's decimals */
    cJSON_Delete(j);
    for (int i = 0; i < 3; i++)
        llmroof_free(under_c[i]);
}

/* ------------------------------------------------------------------------ */
/* Repeated calls                                                           */
/* ------------------------------------------------------------------------ */

/* 300 calls of each kind on one context: the same bytes every time, and (under ASan's leak
 * checker) nothing left behind by successes, failures or outputs the caller did not want. */
static void repeated_calls_should_agree_and_not_leak(void **state)
{
    const char *ok = "{\"command\":\"estimate\",\"model\":\"llama-2-70b\",\"gpu\":\"h100\",\"tp\":4,\"batch\":16}";
    const char *bad = "{\"command\":\"estimate\",\"model\":\"nope\",\"gpu\":\"h100\"}";
    char *first = NULL;
    assert_int_equal(llmroof_ctx_call(ctx_of(state), ok, &first, NULL), 0);
    for (int i = 0; i < 300; i++) {
        char *resp = NULL, *msg = NULL;
        assert_int_equal(llmroof_ctx_call(ctx_of(state), ok, &resp, &msg), 0);
        assert_string_equal(resp, first);
        llmroof_free(resp);
        llmroof_free(msg);
        assert_int_equal(llmroof_ctx_call(ctx_of(state), bad, &resp, &msg), 2);
        llmroof_free(resp);
        llmroof_free(msg);
        assert_int_equal(llmroof_ctx_call(ctx_of(state), ok, NULL, NULL), 0);
        assert_int_equal(llmroof_ctx_call(ctx_of(state), "{", NULL, NULL), 2);
    }
    /* the one-shot call loads its own catalog and says the same */
    char *resp = NULL;
    assert_int_equal(llmroof_call(ok, &resp, NULL), 0);
    assert_string_equal(resp, first);
    llmroof_free(resp);
    for (int i = 0; i < 20; i++) {
        llmroof_ctx *ctx = llmroof_ctx_new(LLMROOF_TEST_DATA_DIR, NULL);
        assert_non_null(ctx);
        llmroof_ctx_free(ctx);
    }
    llmroof_free(first);
}

/* ------------------------------------------------------------------------ */
/* Threads: separate contexts may run at once                               */
/* ------------------------------------------------------------------------ */

#define NTHREADS 4
#define NCALLS 50

/* Requests that go through different options and error paths of the option scanner. */
static const char *const thread_reqs[] = {
    "{\"command\":\"estimate\",\"model\":\"llama-2-70b\",\"gpu\":\"h100\",\"tp\":4,\"batch\":16}",
    "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"prompt\":1024,\"output\":128,"
    "\"weight_dtype\":\"int8\"}",
    /* refused while parsing: mostly option scanning, so the threads scan at the same time */
    "{\"command\":\"estimate\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"tp\":1,\"batch\":2,\"prompt\":3,"
    "\"output\":4,\"mem_util\":0.5,\"reserve\":\"1GiB\",\"compute_eff\":0.5,\"memory_eff\":0.5,\"bogus\":1}",
    "{\"command\":\"memory\",\"model\":\"llama-2-7b\",\"gpu\":\"a100\",\"tp\":1,\"batch\":2,\"prompt\":3,"
    "\"output\":4,\"tp\":[1,2]}",
};
#define NREQS (sizeof thread_reqs / sizeof thread_reqs[0])

struct thread_job {
    char *expected_out[NREQS];  /* the single-threaded responses */
    char *expected_err[NREQS];  /* and messages */
    int expected_rc[NREQS];
    int mismatches;             /* written by the thread */
};

static bool same_text(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void *thread_calls(void *arg)
{
    struct thread_job *job = arg;
    llmroof_ctx *ctx = llmroof_ctx_new(LLMROOF_TEST_DATA_DIR, NULL);
    if (!ctx) {
        job->mismatches = -1;
        return NULL;
    }
    for (int i = 0; i < NCALLS * 20; i++) {
        size_t k = i < NCALLS ? (size_t)i % 2 : 2 + (size_t)i % (NREQS - 2); /* 50 estimates, then refusals */
        char *resp = NULL, *msg = NULL;
        int rc = llmroof_ctx_call(ctx, thread_reqs[k], &resp, &msg);
        if (rc != job->expected_rc[k] || !same_text(resp, job->expected_out[k]) ||
            !same_text(msg, job->expected_err[k]))
            job->mismatches++;
        llmroof_free(resp);
        llmroof_free(msg);
    }
    llmroof_ctx_free(ctx);
    return NULL;
}

/* 4 threads, each on its own context, all at once: 50 estimates and 950 requests refused while
 * their options are parsed; every response and message is byte for byte the single-threaded
 * one. (With getopt_long's process-wide optind the threads read each other's argument
 * vectors: the refusals, nearly all option scanning, then come back with other messages.) */
static void separate_contexts_should_run_at_once_in_threads(void **state)
{
    struct thread_job jobs[NTHREADS];
    memset(jobs, 0, sizeof jobs);
    for (size_t k = 0; k < NREQS; k++) {
        char *resp = NULL, *msg = NULL;
        int rc = llmroof_ctx_call(ctx_of(state), thread_reqs[k], &resp, &msg);
        for (int t = 0; t < NTHREADS; t++) {
            jobs[t].expected_rc[k] = rc;
            jobs[t].expected_out[k] = resp;
            jobs[t].expected_err[k] = msg;
        }
    }
    assert_int_equal(jobs[0].expected_rc[0], 0);
    assert_int_equal(jobs[0].expected_rc[2], 2); /* the unknown option fails the same way in every thread */
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        assert_int_equal(pthread_create(&th[t], NULL, thread_calls, &jobs[t]), 0);
    for (int t = 0; t < NTHREADS; t++)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    for (int t = 0; t < NTHREADS; t++)
        assert_int_equal(jobs[t].mismatches, 0);
    for (size_t k = 0; k < NREQS; k++) {
        llmroof_free(jobs[0].expected_out[k]);
        llmroof_free(jobs[0].expected_err[k]);
    }
}

int main(void)
{
    setenv("LLMROOF_DATA", LLMROOF_TEST_DATA_DIR, 1); /* for llmroof_call's own catalog search */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version_should_be_the_projects),
        cmocka_unit_test(estimate_should_equal_the_cli_json),
        cmocka_unit_test(a_host_function_named_as_a_module_function_should_not_replace_it),
        cmocka_unit_test(a_lone_surrogate_should_name_its_field),
        cmocka_unit_test(numbers_outside_the_json_grammar_should_be_refused),
        cmocka_unit_test(a_hosts_cjson_allocator_should_not_break_a_call),
        cmocka_unit_test(an_allocation_that_fails_should_never_give_a_short_answer),
        cmocka_unit_test(a_speculative_plan_should_equal_the_cli_json),
        cmocka_unit_test(memory_options_should_translate_like_the_command_line),
        cmocka_unit_test(sweep_without_format_should_answer_json_lines),
        cmocka_unit_test(lists_and_positionals_should_reach_the_command),
        cmocka_unit_test(a_null_format_should_keep_the_json_default),
        cmocka_unit_test(a_key_given_twice_should_be_refused),
        cmocka_unit_test(catalog_files_should_extend_the_catalog_for_one_call),
        cmocka_unit_test(dash_inputs_and_outputs_should_be_refused),
        cmocka_unit_test(engine_flags_follow_the_profile_as_on_the_command_line),
        cmocka_unit_test(unknown_model_should_fail_with_the_cli_message),
        cmocka_unit_test(bad_values_and_options_should_fail_with_status_2),
        cmocka_unit_test(options_should_be_checked_against_their_kind),
        cmocka_unit_test(long_values_should_be_echoed_clipped),
        cmocka_unit_test(warnings_should_come_back_beside_the_result),
        cmocka_unit_test(a_layouts_warning_counts_its_gpus),
        cmocka_unit_test(stop_callback_should_end_long_work),
        cmocka_unit_test(stop_when_readable_follows_the_descriptor),
        cmocka_unit_test(context_should_name_a_directory_without_a_catalog),
        cmocka_unit_test(calls_should_not_depend_on_the_callers_locale),
        cmocka_unit_test(repeated_calls_should_agree_and_not_leak),
        cmocka_unit_test(separate_contexts_should_run_at_once_in_threads),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
