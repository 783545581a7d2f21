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

/* The request's options as build_argv turns them into the command line: each list (but the
 * repeatable catalog files' and the positional "args") replaced by its comma-joined text ([1, 2] -> "1,2"), every string
 * checked as an argument (no control character, no longer than an argument can be). The
 * server's checks of option text (refused files, work limits) then see what will run. Keys
 * must be unique (the server refuses a repeated one first). 0,
 * LLMROOF_API_EINPUT with the CLI-style message in msg, or LLMROOF_API_EFAIL (out of memory). */
struct cJSON;
int api_request_flatten(struct cJSON *req, char *msg, size_t n);
/* A JSON number as the command line would write it: whole numbers below 2^53 as their digits,
 * others with the fewest digits (15 to 17) that read back to the same double. */
void api_number_text(double v, char *buf, size_t n);
/* The request text's numbers as the library reads them: 0, or LLMROOF_API_EINPUT with the message
 * (a number out of range, a whole number of 2^53 or more) in msg, naming the field and byte. */
int api_check_numbers(const char *text, char *msg, size_t n);
/* A copy of NUL-terminated request text with each escape "\u0000" read as "\u0001", so that a NUL
 * inside a string is refused as a control character rather than cutting the string. Caller frees;
 * NULL when out of memory. */
char *api_map_nul_escapes(const char *json);

/* The message of a request text's parse failure at byte `at`, as the library words it ("llmroof:
 * error: request: ...", no newline): the field and value of a NaN or Infinity, else the byte. The
 * server's own parse says what a call would (a review found "invalid JSON at byte 43" where the
 * library names the field). text is NUL-terminated. */
void api_parse_error_message(const char *text, size_t at, char *msg, size_t n);

/* The loaded catalog's GPU count: what `--gpus all` names (the server bounds a plan's work by it). */
size_t api_ctx_gpu_count(const llmroof_ctx *ctx);

#endif
