/* test_svg.c - chart axes: round ("nice") tick values, log axes, tick text; and the table
 * helpers that keep text output within 100 columns. */
#include "helpers.h"

#include "render/svg.h"
#include "render/table.h"

static void linear_axis_of_0_to_2382_steps_by_500(void **state)
{
    (void)state;
    /* range 2382, 5 ticks wanted: raw step 2382/4 = 595.5 -> nice 500 (nearest of 1,2,2.5,5 x 10^2);
     * the axis ends at the first multiple of 500 at or above 2382: 0, 500, ..., 2500 */
    struct svg_axis a = svg_axis_linear(0, 2382, 5);
    assert_int_equal(a.nticks, 6);
    assert_rel_close(a.tick[0], 0, 0);
    assert_rel_close(a.tick[1], 500, 1e-12);
    assert_rel_close(a.hi, 2500, 1e-12);
}

static void linear_axis_of_a_flat_series_is_not_empty(void **state)
{
    (void)state;
    /* 1016 tokens/s at every point: widened by 10% either way, 914.4 .. 1117.6; raw step 203.2/5
     * = 40.6 -> nice 50: 900 .. 1150 */
    struct svg_axis a = svg_axis_linear(1016, 1016, 6);
    assert_true(a.nticks >= 3);
    assert_true(a.lo <= 1016 && a.hi >= 1016);
    for (int i = 1; i < a.nticks; i++)
        assert_rel_close(a.tick[i] - a.tick[i - 1], 50, 1e-9);
}

static void linear_ticks_are_multiples_of_a_round_step(void **state)
{
    (void)state;
    const double ranges[][2] = { { 0, 1 }, { -73.2, 112.5 }, { 0, 0.0137 }, { 985, 1047 }, { 3, 7e6 } };
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        struct svg_axis a = svg_axis_linear(ranges[r][0], ranges[r][1], 6);
        assert_true(a.nticks >= 2 && a.nticks <= SVG_MAX_TICKS);
        double step = a.tick[1] - a.tick[0];
        assert_true(svg_is_round(step));
        assert_true(a.lo <= ranges[r][0] && a.hi >= ranges[r][1]);
        for (int i = 0; i < a.nticks; i++)
            assert_rel_close(a.tick[i] / step, round(a.tick[i] / step), 1e-9);
    }
}

static void log_axis_uses_1_2_5_within_three_decades(void **state)
{
    (void)state;
    /* 18 .. 78.8 ms: the decade 10 .. 100 tightened to 10 .. 100 (18 > 10 but < 20; 78.8 < 100):
     * ticks 10, 20, 50, 100 */
    struct svg_axis a = svg_axis_log(18, 78.8);
    assert_int_equal(a.nticks, 4);
    assert_rel_close(a.tick[0], 10, 1e-12);
    assert_rel_close(a.tick[1], 20, 1e-12);
    assert_rel_close(a.tick[2], 50, 1e-12);
    assert_rel_close(a.tick[3], 100, 1e-12);
    /* 5 .. 9000: four decades, decades only */
    a = svg_axis_log(5, 9000);
    for (int i = 0; i < a.nticks; i++)
        assert_rel_close(log10(a.tick[i]), round(log10(a.tick[i])), 1e-9);
}

static void tick_text_uses_si_suffixes_above_ten_thousand(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(svg_tick_text(5000, b, sizeof b), "5000");
    assert_string_equal(svg_tick_text(20000, b, sizeof b), "20k");
    assert_string_equal(svg_tick_text(1.5e6, b, sizeof b), "1.5M");
    assert_string_equal(svg_tick_text(0.25, b, sizeof b), "0.25");
    /* on an axis whose top tick takes a suffix every tick of 1000 or more does: 0, 5k, 10k, 15k
     * (it had read 0, 5000, 10k, 15k), and one that stays below 10^4 keeps its digits */
    struct svg_axis ax = { 0, 15000, false, { 0, 5000, 10000, 15000 }, 4 };
    assert_string_equal(svg_axis_tick_text(&ax, 1, b, sizeof b), "5k");
    assert_string_equal(svg_axis_tick_text(&ax, 0, b, sizeof b), "0");
    struct svg_axis low = { 0, 8000, false, { 0, 2000, 4000, 6000, 8000 }, 5 };
    assert_string_equal(svg_axis_tick_text(&low, 4, b, sizeof b), "8000");
    assert_true(svg_is_round(2.5e-3) && svg_is_round(0) && !svg_is_round(60) && !svg_is_round(NAN));
}

static void wide_table_prints_in_parts_within_the_width(void **state)
{
    (void)state;
    struct table t;
    table_init(&t, "wide");
    table_col(&t, "name", 0);
    for (int c = 0; c < 12; c++) {
        char n[24]; /* "column_" and an int of up to 11 characters */
        snprintf(n, sizeof n, "column_%02d", c); /* 9 characters + 2 of separator: 11 per column */
        table_col(&t, n, 1);
    }
    table_row(&t);
    table_str(&t, "row");
    for (int c = 0; c < 12; c++)
        table_num(&t, c);
    /* 4 + 12 x 11 = 136 columns: two parts of 4 + 6 x 11 = 70 */
    assert_int_equal((int)table_text_width(&t), 136);
    struct sbuf out;
    sbuf_init(&out);
    table_render_fit(&t, TABLE_TEXT, 100, 1, &out);
    assert_non_null(strstr(sbuf_str(&out), "wide (part 1 of 2)"));
    assert_non_null(strstr(sbuf_str(&out), "wide (part 2 of 2)"));
    for (const char *line = sbuf_str(&out); *line;) {
        size_t n = strcspn(line, "\n");
        assert_true(n <= 100);
        line += n + (line[n] ? 1 : 0);
    }
    sbuf_free(&out);
    table_free(&t);
}

/* The y attribute of the element `tag` ("<text", "<rect") that holds `pat` (its content, or its
 * <title>'s end) */
static double y_of(const char *svg, const char *tag, const char *pat)
{
    const char *hit = strstr(svg, pat);
    assert_non_null(hit);
    const char *t = hit;
    while (t > svg && strncmp(t, tag, strlen(tag)) != 0)
        t--;
    const char *y = strstr(t, " y=\"");
    assert_true(y && y < hit);
    return atof(y + 4);
}

static double text_y(const char *svg, const char *label)
{
    char pat[48];
    snprintf(pat, sizeof pat, ">%s</text>", label);
    return y_of(svg, "<text", pat);
}

static double rect_y(const char *svg, const char *label)
{
    char pat[48];
    snprintf(pat, sizeof pat, " %s</title>", label);
    return y_of(svg, "<rect", pat);
}

static void a_bar_at_the_top_of_its_scale_keeps_its_label_inside(void **state)
{
    (void)state;
    /* the scale comes from the bars that fit: 3900 x 1.12 = 4368, step nice(5000 / 4) = 1000, so
     * the axis ends at 5000 and the faded 4894 reaches 97.9% of the panel: its label above the
     * bar had run into the panel's title; it goes inside the bar's top, 3900's stays above */
    const char *groups[] = { "a", "b" }, *series[] = { "TP 1" };
    const bool has[] = { true, true }, pale[] = { false, true };
    const double v[] = { 3900, 4894 };
    const struct svg_bar_panel panel = { "TTFT (ms)", v };
    struct sbuf out;
    sbuf_init(&out);
    svg_grouped_bars(&out, "t", groups, 2, series, 1, has, pale, &panel, 1, NULL, true);
    const char *svg = sbuf_str(&out);
    assert_non_null(strstr(svg, ">5000</text>")); /* the top tick */
    assert_true(text_y(svg, "4894") > rect_y(svg, "4894"));
    assert_true(text_y(svg, "3900") < rect_y(svg, "3900"));
    sbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linear_axis_of_0_to_2382_steps_by_500),
        cmocka_unit_test(linear_axis_of_a_flat_series_is_not_empty),
        cmocka_unit_test(linear_ticks_are_multiples_of_a_round_step),
        cmocka_unit_test(log_axis_uses_1_2_5_within_three_decades),
        cmocka_unit_test(tick_text_uses_si_suffixes_above_ten_thousand),
        cmocka_unit_test(wide_table_prints_in_parts_within_the_width),
        cmocka_unit_test(a_bar_at_the_top_of_its_scale_keeps_its_label_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
