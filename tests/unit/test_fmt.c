/* test_fmt.c - fmt_g10 writes exactly what printf's "%.10g" writes. */
#include "helpers.h"

#include "base/fmt.h"
#include "base/rng.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void check(double v)
{
    char want[64], got[64];
    const int nw = snprintf(want, sizeof want, "%.10g", v);
    const int ng = fmt_g10(v, got, sizeof got);
    if (strcmp(want, got) != 0 || nw != ng)
        fail_msg("%.17g: printf %s, fmt_g10 %s", v, want, got);
}

/* The cases by hand: the switch between fixed and exponent forms sits at exponents -5/-4 and
 * 9/10 of the rounded value (9999999999.6 rounds to 1e+10), trailing zeros and the point go, a
 * rounding digit of exactly 5 (0.5 in binary after scaling) goes through printf (ties to even:
 * 12345678905 -> 1.23456789e+10), and the edges of the fast range (1e-18, 1e36) and beyond. */
static void hand_picked_values_match_printf(void **state)
{
    (void)state;
    const double v[] = { 0.02366229794, 2.500104679, 51.28324444, 1.0, 10.0, 123456789.0, 1234567890.0,
                         12345678901.0, 9999999999.6, 999999999.96, 0.0001, 0.00001, 0.000123456789012,
                         0.00012345678905, 1.5, 2.5, 12345678905.0, 1e-18, 9.99999999949e35, 1e36, 1e-19, 1e300,
                         -0.5, -1234.5678, 3.0e-5, 7.0e9, 1e10, 4.94e-324, 1.7976931348623157e308, 0.1, 0.3,
                         1.0 / 3.0, 2.0 / 3.0, 0.0, -0.0 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        check(v[i]);
    check(NAN);
    check(INFINITY);
    check(-INFINITY);
}

/* Two million doubles of every magnitude from 1e-22 to 1e40, with full random mantissas, and a
 * half million of few digits (k / 10^j, where %.10g's trailing zeros and exact halves live):
 * every one byte for byte as printf writes it. */
static void random_values_match_printf(void **state)
{
    (void)state;
    struct llmroof_rng r;
    rng_seed(&r, 20261207);
    for (int i = 0; i < 2000000; i++) {
        const double m = 1.0 + rng_uniform(&r);
        const double e = -22.0 + 62.0 * rng_uniform(&r);
        const double v = m * pow(10.0, floor(e)) * (rng_next(&r) & 1 ? -1.0 : 1.0);
        check(v);
    }
    for (int i = 0; i < 500000; i++) {
        const double k = floor(rng_uniform(&r) * 1e12);
        const int j = (int)(rng_uniform(&r) * 16.0);
        check(k / pow(10.0, j));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_picked_values_match_printf),
        cmocka_unit_test(random_values_match_printf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
