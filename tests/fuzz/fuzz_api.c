/* fuzz_api.c - the JSON API's request object (src/api/api.c): any bytes as a request, run
 * with CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES (no file is written, slow commands stop
 * after checking their inputs) on a context over tests/fuzz/data. Every answer is one of the
 * documented statuses, and bad input always carries a message. */
#include "api/api_internal.h"
#include "cli/cli.h"
#include "fuzz.h"

struct harness {
    llmroof_ctx *ctx; /* loaded once: the catalog is read-only during calls */
};

static struct harness *harness(void)
{
    static struct harness h;
    if (!h.ctx) {
        h.ctx = llmroof_ctx_new(LLMROOF_FUZZ_DATA, NULL);
        if (!h.ctx)
            abort();
    }
    return &h;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("LLMROOF_DATA", LLMROOF_FUZZ_DATA, 1);
    (void)harness();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    char *req = fuzz_cstr(data, size);
    char *resp = NULL, *msg = NULL;
    int rc = api_ctx_call_flags(harness()->ctx, req, &resp, &msg, CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES);
    FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2);
    FUZZ_CHECK(rc != 2 || (msg && *msg)); /* bad input always says why */
    FUZZ_CHECK(!resp);                    /* CLI_NO_STDOUT: nothing printed */
    llmroof_free(resp);
    llmroof_free(msg);
    free(req);
    return 0;
}
