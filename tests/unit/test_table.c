/* test_table.c - renderers print the same digits in every format. */
#include "helpers.h"

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
    assert_string_equal(sbuf_str(&b), "name,value\r\n\"a,\"\"b\"\"\",1.00\r\nc,0.00\r\n");
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_quotes_per_rfc4180),
        cmocka_unit_test(text_and_markdown_align_numbers_right),
        cmocka_unit_test(markdown_should_escape_a_pipe_in_a_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
