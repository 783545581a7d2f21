/* api_internal.h - what the fuzz harness (tests/fuzz/fuzz_api.c) needs beyond api.h. */
#ifndef LLMROOF_API_INTERNAL_H
#define LLMROOF_API_INTERNAL_H

#include <stddef.h>

#include "llmroof/api.h"

/* llmroof_ctx_call with cli_run's CLI_* flags (cli.h): the fuzz harness passes
 * CLI_PARSE_ONLY | CLI_NO_STDOUT | CLI_NO_FILES so that no request writes a file or runs long. */
int api_ctx_call_flags(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                       unsigned flags);
/* api_ctx_call_flags with llmroof_ctx_call_stoppable's callback (stop may be NULL). */
int api_ctx_call_stop(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                      unsigned flags, int (*stop)(void *stop_arg), void *stop_arg);

/* The loaded catalog's GPU count: what `--gpus all` names (the server bounds a plan's work by it). */
size_t api_ctx_gpu_count(const llmroof_ctx *ctx);

#endif
