/* fuzz_server.c - the HTTP front end's routing (src/api/server.c, server_route): any bytes as
 * one request, read as "<method byte><path up to \n><body>", routed on a context over
 * tests/fuzz/data with CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES (no file is written,
 * slow commands stop after checking their inputs). libmicrohttpd parses the HTTP itself; what
 * is ours is the path, the body's JSON, the refused options and the work limits. Every reply
 * has a documented status, and every error reply is {"error": ...} JSON. */
#include <cjson/cJSON.h>

#include "api/server.h"
#include "cli/cli.h"
#include "fuzz.h"

static llmroof_ctx *context(void)
{
    static llmroof_ctx *ctx; /* loaded once: the catalog is read-only during calls */
    if (!ctx && !(ctx = llmroof_ctx_new(LLMROOF_FUZZ_DATA, NULL)))
        abort();
    return ctx;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LLMROOF_DATA", LLMROOF_FUZZ_DATA, 1);
    (void)context();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    static const char *const methods[] = { "GET", "POST", "PUT", "HEAD", "DELETE", "OPTIONS" };
    const char *method = methods[data[0] % 6];
    char *rest = fuzz_cstr(data + 1, size - 1);
    char *nl = memchr(rest, '\n', size - 1);
    const char *body = "";
    size_t blen = 0;
    if (nl) {
        *nl = '\0';
        body = nl + 1;
        blen = size - 1 - (size_t)(nl + 1 - rest);
    }
    struct server_cfg cfg = { "127.0.0.1", 0, LLMROOF_FUZZ_DATA, 10, { 0, 0, 0, 0, 0, 0 } };
    server_default_limits(&cfg.lim);
    struct server_reply r;
    server_route(context(), &cfg, method, rest, body, blen, CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES, NULL, &r);
    FUZZ_CHECK(r.status == 200 || r.status == 204 || r.status == 400 || r.status == 404 || r.status == 405 ||
               r.status == 413 || r.status == 500);
    FUZZ_CHECK(r.content_type != NULL || (r.status == 204 && r.len == 0)); /* 204 (/favicon.ico): no body */
    FUZZ_CHECK(r.status != 405 || r.allow != NULL); /* 405 names the methods allowed */
    if (r.status >= 400) {
        FUZZ_CHECK(r.body && r.len > 0);
        char *text = fuzz_cstr((const uint8_t *)r.body, r.len);
        cJSON *j = cJSON_Parse(text);
        FUZZ_CHECK(j && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "error")));
        cJSON_Delete(j);
        free(text);
    }
    server_reply_free(&r);
    free(rest);
    return 0;
}
