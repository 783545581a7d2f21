/* fmt.c - "%.10g" without printf's multi-precision conversion where the digits are certain. */
#include "base/fmt.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#if LDBL_MANT_DIG >= 64
/* 10^0 .. 10^27, each exact in a 64-bit mantissa (5^27 < 2^64): one product or quotient by them
 * rounds once, a relative error of at most 2^-64 */
static const long double P10[28] = { 1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
                                     1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
                                     1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L };
#endif

int fmt_g10(double v, char *buf, size_t n)
{
#if LDBL_MANT_DIG >= 64
    const double a = fabs(v);
    /* the scaled value's absolute error is below 1e10 x 2^-64 = 5.4e-10: a rounding digit further
     * than 1e-6 from a half is certain; a range whose scale is no exact power of ten, and zero,
     * NaN and infinity, go through printf */
    if (n < 32 || !isfinite(v) || !(a >= 1e-18 && a < 1e36))
        return snprintf(buf, n, "%.10g", v);
    int e = (int)floor(log10(a));
    long double s = 0.0L;
    for (int tries = 0;; tries++) {
        const int k = 9 - e; /* s = a x 10^k in [1e9, 1e10) */
        if (k > 27 || k < -27 || tries > 2)
            return snprintf(buf, n, "%.10g", v);
        s = k >= 0 ? (long double)a * P10[k] : (long double)a / P10[-k];
        if (s < 1e9L)
            e--;
        else if (s >= 1e10L)
            e++;
        else
            break;
    }
    const long double whole = floorl(s), frac = s - whole;
    if (fabsl(frac - 0.5L) < 1e-6L)
        return snprintf(buf, n, "%.10g", v);
    unsigned long long m = (unsigned long long)whole + (frac > 0.5L ? 1u : 0u);
    if (m >= 10000000000ULL) { /* 9999999999.6 rounds to 1e10: one digit more, the exponent up */
        m /= 10;
        e++;
    }
    char d[10];
    for (int i = 9; i >= 0; i--) {
        d[i] = (char)('0' + (int)(m % 10));
        m /= 10;
    }
    int nd = 10; /* significant digits without trailing zeros (%g drops them) */
    while (nd > 1 && d[nd - 1] == '0')
        nd--;
    char *p = buf;
    if (v < 0)
        *p++ = '-';
    if (e < -4 || e >= 10) { /* %e style: d.ddd e+XX */
        *p++ = d[0];
        if (nd > 1) {
            *p++ = '.';
            memcpy(p, d + 1, (size_t)(nd - 1));
            p += nd - 1;
        }
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        const int ae = e < 0 ? -e : e;
        if (ae >= 100)
            *p++ = (char)('0' + ae / 100);
        *p++ = (char)('0' + ae / 10 % 10);
        *p++ = (char)('0' + ae % 10);
    } else if (e >= 0) { /* e + 1 whole digits, then the rest */
        const size_t whole_digits = (size_t)e + 1;
        memcpy(p, d, whole_digits);
        p += whole_digits;
        if (nd > e + 1) {
            *p++ = '.';
            memcpy(p, d + e + 1, (size_t)(nd - e - 1));
            p += nd - e - 1;
        }
    } else { /* 0.000ddd */
        *p++ = '0';
        *p++ = '.';
        for (int i = 0; i < -e - 1; i++)
            *p++ = '0';
        memcpy(p, d, (size_t)nd);
        p += nd;
    }
    *p = '\0';
    return (int)(p - buf);
#else
    return snprintf(buf, n, "%.10g", v);
#endif
}
