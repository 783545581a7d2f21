/* api.h - llmroof's stable C API: a JSON request in, the JSON the command line prints out.
 *
 * The request is one JSON object naming a command and its options, the same names as the
 * command line's long options (docs/api.md):
 *
 *     {"command": "estimate", "model": "llama-2-7b", "gpu": "a100", "tp": 1, "batch": 8}
 *
 * and the response is, byte for byte, what `llmroof estimate -m llama-2-7b -g a100 -t 1 -b 8
 * --format json` prints on stdout. Errors come back as the CLI's exit status (2 bad input,
 * 1 internal failure) and the message it prints on stderr. Any language with a C FFI can call
 * these eight functions; python/llmroof is such a binding (ctypes).
 *
 * This header is the one installed and the one stable interface (LLMROOF_API_VERSION changes
 * when it does); the library's modules have headers of their own beside their code, not
 * installed, which may change between versions.
 *
 * Threads: calls are re-entrant and thread-safe (llmroof's state lives in the context and the
 * call): several threads may call at once, each with its own context or sharing one, whose
 * catalog is only read after llmroof_ctx_new. One process-wide write is not llmroof's own: the
 * system cJSON library records its last parse error's position in a global that every parse
 * writes (cJSON_GetErrorPtr); llmroof never reads it, but a race detector (TSan, helgrind) run
 * on a multi-threaded host reports those writes, and a host reading cJSON_GetErrorPtr itself may
 * see another thread's position (docs/api.md "Threads"). */
#ifndef LLMROOF_API_H
#define LLMROOF_API_H

#ifdef __cplusplus
extern "C" {
#endif

#define LLMROOF_API_VERSION 1 /* bumped on any incompatible change of this header */

/* Return values of llmroof_call and llmroof_ctx_call: the CLI's exit statuses. */
#define LLMROOF_API_OK 0     /* success */
#define LLMROOF_API_EFAIL 1  /* internal failure (out of memory, failed write: no response), or a negative
                                answer with its response (check's drift, an infeasible plan, a failed
                                validate gate) */
#define LLMROOF_API_EINPUT 2 /* bad request: unknown command, option or value; bad catalog file */
#define LLMROOF_API_ESTOPPED 3 /* llmroof_ctx_call_stoppable: the stop callback ended the call */

/* A loaded catalog (GPUs, models, engines), reused by every call made with it. */
typedef struct llmroof_ctx llmroof_ctx;

/* The library's version, e.g. "0.1.0" (static string; do not free). */
const char *llmroof_version(void);

/* Loads the catalog from `data_dir` (a directory holding gpus.json and models.json; NULL:
 * $LLMROOF_DATA, then the build tree's data/, then the installed share/llmroof). Returns the
 * context, or NULL with a message in *error_msg (when error_msg is not NULL; free it with
 * llmroof_free). Free the context with llmroof_ctx_free. */
llmroof_ctx *llmroof_ctx_new(const char *data_dir, char **error_msg);

/* Frees a context; NULL is a no-op. */
void llmroof_ctx_free(llmroof_ctx *ctx);

/* Runs the command the request names, with ctx's catalog (a request that names "gpus_file" or
 * "models_file" loads its own catalog from ctx's directory plus those files; a relative file path
 * is read from the process's working directory, as on the command line).
 *   request_json   NUL-terminated JSON object (docs/api.md lists its fields)
 *   response_json  receives the command's stdout (NUL-terminated, owned by the caller, free
 *                  with llmroof_free), or NULL when it printed nothing; may be NULL
 *   error_msg      receives what the command printed on stderr: the error when the return
 *                  value is not 0, warnings when it is 0; NULL when nothing; may be NULL
 * Returns LLMROOF_API_OK, LLMROOF_API_EFAIL or LLMROOF_API_EINPUT. */
int llmroof_ctx_call(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg);

/* llmroof_ctx_call that the caller can end early: while a simulate, plan or sweep request computes,
 * the library calls stop(stop_arg) from the calling thread every few milliseconds of work; when
 * it returns nonzero the call ends at once with LLMROOF_API_ESTOPPED, no response and the error
 * "llmroof: error: stopped by the caller ...". Use it for a deadline or a client that went
 * away (llmroof serve does both). Other commands finish in milliseconds and never ask. stop may
 * be NULL: then this is llmroof_ctx_call. */
int llmroof_ctx_call_stoppable(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                               int (*stop)(void *stop_arg), void *stop_arg);

/* A ready-made stop for llmroof_ctx_call_stoppable, asked with stop_arg pointing to an int file
 * descriptor: nonzero once that descriptor is readable (a poll that does not wait). Give it a pipe
 * that a signal handler writes to (Python's signal.set_wakeup_fd, a self-pipe), an eventfd, or a
 * client's socket. Reads nothing. */
int llmroof_stop_when_readable(void *stop_arg);

/* llmroof_ctx_call with a context made for this one call (the catalog is read every time). */
int llmroof_call(const char *request_json, char **response_json, char **error_msg);

/* Frees a string returned by this API; NULL is a no-op. */
void llmroof_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
