/* test_table.c - the text renderers print the same digits; CSV, read by programs, 15 significant
 * digits and an empty cell for "n/a". */
#include "helpers.h"

#include <string.h>

#include "render/table.h"

static void build(struct table *t)
{
    table_init(t, "demo");
    table_col(t, "name", 0);
    table_col(t, "value", 2);
    table_row(t);
    table_str(t, "a,\"b\"");
    table_num(t, 1.005);
    table_row(t);
    table_str(t, "c");
    table_num(t, -0.001); /* rounds to -0.00: printed as 0.00 */
}

static void csv_quotes_per_rfc4180(void **state)
{
    struct table t;
    struct sbuf b;
    build(&t);
    sbuf_init(&b);
    table_render(&t, TABLE_CSV, &b);
    /* 1.005 and -0.001 as stored (%.15g), not at the column's 2 decimals: estimate's e2e of 2.762 ms
     * had read "0.003" s in CSV (a review of session 65) */
    assert_string_equal(sbuf_str(&b), "name,value\r\n\"a,\"\"b\"\"\",1.005\r\nc,-0.001\r\n");
    sbuf_free(&b);
    table_free(&t);
}

/* A value the text prints "n/a" is an empty CSV cell (docs/json.md: an absent value is null, an
 * empty cell); a zero never prints "-0". */
static void csv_leaves_absent_values_empty(void **state)
{
    (void)state;
    struct table t;
    struct sbuf b;
    table_init(&t, "");
    table_col(&t, "metric", 0);
    table_col(&t, "value", 3);
    table_row(&t);
    table_str(&t, "tpot");
    table_str(&t, "n/a");
    table_row(&t);
    table_str(&t, "zero");
    table_num(&t, -0.0);
    sbuf_init(&b);
    table_render(&t, TABLE_CSV, &b);
    assert_string_equal(sbuf_str(&b), "metric,value\r\ntpot,\r\nzero,0\r\n");
    sbuf_free(&b);
    table_free(&t);
}

static void text_and_markdown_align_numbers_right(void **state)
{
    struct table t;
    struct sbuf b;
    build(&t);
    sbuf_init(&b);
    table_render(&t, TABLE_TEXT, &b);
    assert_string_equal(sbuf_str(&b), "demo\nname   value\n-----  -----\na,\"b\"   1.00\nc       0.00\n");
    sbuf_free(&b);
    sbuf_init(&b);
    table_render(&t, TABLE_MD, &b);
    assert_string_equal(sbuf_str(&b),
                        "### demo\n\n| name  | value |\n| ----- | ----: |\n| a,\"b\" |  1.00 |\n| c     |  0.00 |\n");
    sbuf_free(&b);
    table_free(&t);
}

/* A '|' in a Markdown cell is escaped "\|" (GFM), or the row gets one more cell than the
 * header: a user catalog's name "My | GPU" broke 'list gpus --format md'. Widths count the
 * escape, so the columns stay aligned; text and CSV print the '|' as it is. */
static void markdown_should_escape_a_pipe_in_a_cell(void **state)
{
    (void)state;
    struct table t;
    struct sbuf b;
    table_init(&t, "");
    table_col(&t, "name", 0);
    table_col(&t, "v", 0);
    table_row(&t);
    table_str(&t, "a|b");
    table_num(&t, 1);
    sbuf_init(&b);
    table_render(&t, TABLE_MD, &b);
    assert_string_equal(sbuf_str(&b), "| name |   v |\n| ---- | --: |\n| a\\|b |   1 |\n");
    sbuf_free(&b);
    sbuf_init(&b);
    table_render(&t, TABLE_TEXT, &b);
    assert_string_equal(sbuf_str(&b), "name  v\n----  -\na|b   1\n");
    sbuf_free(&b);
    table_free(&t);
}

/* A key-value table whose last column is prose folds that column at blanks to fit the width: the
 * other columns take "kernel_cost" (11) + 2 and "value" (5) + 2 = 20, so 44 columns leave 24 for
 * the unit, and "us of GPU time per kernel beyond its roofline time" (50) breaks at the last blank
 * within 24: "us of GPU time per" (18; " kernel" would make 25), "kernel beyond its" (17;
 * " roofline" 26), "roofline time". A short unit stays whole. At 43 columns the unit cannot go
 * below TABLE_FOLD_MIN (24): the same rows, one column too wide. */
static void a_long_last_cell_folds_at_blanks(void **state)
{
    (void)state;
    struct table t, f;
    struct sbuf b;
    table_init(&t, "");
    table_col(&t, "field", 0);
    table_col(&t, "value", 0);
    table_col(&t, "unit", 0);
    table_row(&t);
    table_str(&t, "kernel_cost");
    table_str(&t, "3.0");
    table_str(&t, "us of GPU time per kernel beyond its roofline time");
    table_row(&t);
    table_str(&t, "memory");
    table_str(&t, "80.00");
    table_str(&t, "GiB");
    table_fold(&t, 44, 1, &f);
    sbuf_init(&b);
    table_render(&f, TABLE_TEXT, &b);
    assert_string_equal(sbuf_str(&b), "field        value  unit\n"
                                      "-----------  -----  ------------------\n"
                                      "kernel_cost  3.0    us of GPU time per\n"
                                      "                    kernel beyond its\n"
                                      "                    roofline time\n"
                                      "memory       80.00  GiB\n");
    sbuf_free(&b);
    table_free(&f);
    table_fold(&t, 43, 1, &f);
    assert_int_equal(f.nrows, 4);
    table_free(&f);
    table_free(&t);
}

/* Two prose columns: the widest narrows first, to the next widest, then further. Values of 39
 * characters ("aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd") and units of 28 in a 60-column table:
 * 3 + 2 + 39 + 2 + 28 = 74, 14 too wide; the value narrows to the unit's 28 (63), then, the first
 * of the two widest, to 25 (60): it folds after "bbbbbbbbb" (19; " ccccccccc" would make 29), and
 * the unit, within its 28, stays whole. A word is never cut up to TABLE_FOLD_WORD (48: an id, a
 * path); one of 50 x's in a 40-column table keeps its column at 48, cut there (48 + 2, nothing
 * lost), while the unit goes to 24 (lines of 19 and 8): 3 + 2 + 48 + 2 + 19 = 74 wide. */
static void the_widest_prose_columns_fold_first(void **state)
{
    (void)state;
    struct table t, f;
    table_init(&t, "");
    table_col(&t, "key", 0);
    table_col(&t, "value", 0);
    table_col(&t, "unit", 0);
    table_row(&t);
    table_str(&t, "k");
    table_str(&t, "aaaaaaaaa bbbbbbbbb ccccccccc ddddddddd");
    table_str(&t, "eeeeeeeee fffffffff gggggggg");
    table_fold(&t, 60, 1, &f);
    assert_true(table_text_width(&f) <= 60);
    char buf[64];
    assert_string_equal(table_cell_text(&f, 0, 1, buf), "aaaaaaaaa bbbbbbbbb");
    assert_string_equal(table_cell_text(&f, 1, 1, buf), "ccccccccc ddddddddd");
    assert_string_equal(table_cell_text(&f, 0, 2, buf), "eeeeeeeee fffffffff gggggggg");
    assert_string_equal(table_cell_text(&f, 1, 2, buf), "");
    table_free(&f);
    table_row(&t);
    table_str(&t, "x");
    table_str(&t, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"); /* 50 */
    table_str(&t, "-");
    table_fold(&t, 40, 1, &f);
    assert_int_equal(table_text_width(&f), 3 + 2 + 48 + 2 + 19);
    size_t n = f.nrows;
    assert_string_equal(table_cell_text(&f, n - 2, 1, buf), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    assert_string_equal(table_cell_text(&f, n - 1, 1, buf), "xx");
    table_free(&f);
    table_free(&t);
}

/* A word cut inside is not cut inside a UTF-8 character: "x" and 30 two-byte characters (61 bytes)
 * in a column folded to its floor of 48 bytes would break after byte 48, the first byte of the
 * 24th character; the piece ends at 47, the next starts with that character's lead byte (0xC3). */
static void a_cut_word_keeps_its_characters_whole(void **state)
{
    (void)state;
    struct table t, f;
    table_init(&t, "");
    table_col(&t, "k", 0);
    table_col(&t, "v", 0);
    table_row(&t);
    table_str(&t, "a");
    char word[64] = "x";
    for (int i = 0; i < 30; i++)
        strcat(word, "\xc3\xa9"); /* U+00E9 */
    table_str(&t, word);
    table_fold(&t, 30, 1, &f);
    assert_int_equal(f.nrows, 2);
    const char *a = f.cells[1].str, *b = f.cells[3].str;
    assert_int_equal(strlen(a), 47);
    assert_int_equal((unsigned char)b[0], 0xC3);
    assert_int_equal(strlen(a) + strlen(b), 61);
    table_free(&f);
    table_free(&t);
}

/* A table split into parts for the terminal folds a part still too wide: key "id" (2) + 2 and one
 * column of three 9-letter words (29) is 33 columns; at 30 the key column and a second column
 * "n" take parts of their own ("id  n" fits, "id" + 29 does not), and the words' part folds to
 * 26 columns after "aaaaaaaaa bbbbbbbbb" (19; " ccccccccc" would make 29 > 26): 4 + 19 = 23 wide,
 * the key cell once. Markdown keeps its rows whole (a viewer wraps them). Before, the part had
 * printed 33 columns wide (`list engines`: an alias list of 265). */
static void a_part_too_wide_for_the_terminal_folds(void **state)
{
    (void)state;
    struct table t;
    struct sbuf b;
    table_init(&t, "");
    table_col(&t, "id", 0);
    table_col(&t, "n", 0);
    table_col(&t, "words", 0);
    table_row(&t);
    table_str(&t, "k1");
    table_num(&t, 7);
    table_str(&t, "aaaaaaaaa bbbbbbbbb ccccccccc");
    sbuf_init(&b);
    table_render_fit(&t, TABLE_TEXT, 30, 1, &b);
    assert_string_equal(sbuf_str(&b), "(part 1 of 2)\n"
                                      "id  n\n"
                                      "--  -\n"
                                      "k1  7\n"
                                      "\n"
                                      "(part 2 of 2)\n"
                                      "id  words\n"
                                      "--  -------------------\n"
                                      "k1  aaaaaaaaa bbbbbbbbb\n"
                                      "    ccccccccc\n");
    sbuf_free(&b);
    sbuf_init(&b);
    table_render_fit(&t, TABLE_MD, 30, 1, &b);
    assert_non_null(strstr(sbuf_str(&b), "aaaaaaaaa bbbbbbbbb ccccccccc"));
    sbuf_free(&b);
    table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_quotes_per_rfc4180),
        cmocka_unit_test(csv_leaves_absent_values_empty),
        cmocka_unit_test(text_and_markdown_align_numbers_right),
        cmocka_unit_test(markdown_should_escape_a_pipe_in_a_cell),
        cmocka_unit_test(a_long_last_cell_folds_at_blanks),
        cmocka_unit_test(the_widest_prose_columns_fold_first),
        cmocka_unit_test(a_cut_word_keeps_its_characters_whole),
        cmocka_unit_test(a_part_too_wide_for_the_terminal_folds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
