/* sbuf.h - growable string buffer used by the renderers.
 * Output is accumulated here and written only once a command has succeeded, so a
 * failure never leaves a partial result on stdout. Allocation failure is sticky:
 * sbuf_failed() reports it and further appends are ignored. */
#ifndef LLMROOF_SBUF_H
#define LLMROOF_SBUF_H

#include <stdbool.h>
#include <stddef.h>

struct sbuf {
    char *data;   /* NUL-terminated contents (NULL until first append) */
    size_t len;   /* bytes used, excluding the NUL */
    size_t cap;   /* bytes allocated */
    bool failed;  /* an allocation failed */
};

void sbuf_init(struct sbuf *b);
void sbuf_free(struct sbuf *b);            /* sbuf_free on an initialised empty buffer is a no-op */
void sbuf_clear(struct sbuf *b);           /* empties it, keeping its memory */
void sbuf_append(struct sbuf *b, const char *s);
void sbuf_appendn(struct sbuf *b, const char *s, size_t n);
void sbuf_printf(struct sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sbuf_pad(struct sbuf *b, char c, size_t n); /* appends n copies of c */
bool sbuf_failed(const struct sbuf *b);
const char *sbuf_str(const struct sbuf *b); /* "" when empty */

#endif
