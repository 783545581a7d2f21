/* fmt.h - a double as printf's "%.10g" writes it, without printf's multi-precision path where
 * the digits are certain (sweep writes hundreds of thousands of rows a second, and glibc's exact
 * conversion was a third of that time). */
#ifndef LLMROOF_FMT_H
#define LLMROOF_FMT_H

#include <stddef.h>

/* Writes v into buf (at least 32 bytes) exactly as snprintf(buf, n, "%.10g", v) would and returns
 * its length. Digits are taken from v scaled into [1e9, 1e10) in long double (64-bit mantissa or
 * more) where that rounds unambiguously; a value whose 11th digit sits within 1e-6 of a half, one
 * outside 1e-27..1e27, NaN, infinity, or a platform whose long double is narrower goes through
 * snprintf itself. */
int fmt_g10(double v, char *buf, size_t n);

#endif
