/* api_internal.h - what the fuzz harness (tests/fuzz/fuzz_api.c) needs beyond api.h. */
#ifndef LLMROOF_API_INTERNAL_H
#define LLMROOF_API_INTERNAL_H

#include "llmroof/api.h"

/* llmroof_ctx_call with cli_run's CLI_* flags (cli.h): the fuzz harness passes
 * CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES so that no request writes a file or runs long. */
int api_ctx_call_flags(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                       unsigned flags);

#endif
