/* stop.h - a caller's way to end a long computation early (simulate, plan).
 *
 * The library never looks at a clock or a socket itself: whoever runs it (the HTTP server, a
 * program through the C API) passes a callback, and the long loops ask it every few thousand
 * events whether to go on. A computation that stops returns LLMROOF_ESTOPPED and no result. */
#ifndef LLMROOF_STOP_H
#define LLMROOF_STOP_H

#include <stdbool.h>
#include <stddef.h>

struct llmroof_stop {
    int (*fn)(void *arg); /* nonzero: stop now; NULL: never asked */
    void *arg;
};

/* Whether the caller asks the computation to end (false without a callback). */
static inline bool stop_asked(const struct llmroof_stop *s)
{
    return s && s->fn && s->fn(s->arg) != 0;
}

#endif
