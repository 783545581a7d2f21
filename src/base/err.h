/* err.h - located error reports for library calls.
 *
 * Library functions never print or exit: they return an error code and fill a
 * struct llmroof_err with a one-line message in git's style (lowercase, subject
 * in quotes, location first: "data/gpus.json:12:5: 'a40': field ... must be ...").
 * Only the CLI decides what to print and which exit status to use. */
#ifndef LLMROOF_ERR_H
#define LLMROOF_ERR_H

enum llmroof_errcode {
    LLMROOF_OK = 0,
    LLMROOF_EINTERNAL = 1, /* out of memory, I/O failure: not the user's fault */
    LLMROOF_EINPUT = 2,    /* bad input: file, field, flag or name */
    LLMROOF_ESTOPPED = 3   /* the caller's stop callback ended the computation (base/stop.h) */
};

struct llmroof_err {
    int code;       /* enum llmroof_errcode */
    char msg[512];  /* human-readable message, no trailing newline */
};

/* Fills err (when not NULL) with code and a printf-style message; returns code. */
int llmroof_err_set(struct llmroof_err *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
