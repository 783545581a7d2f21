/* err.c - see llmroof/err.h */
#include "base/err.h"

#include <stdarg.h>
#include <stdio.h>

int llmroof_err_set(struct llmroof_err *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}
