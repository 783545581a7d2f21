/* test_parse.c - strict value parsers. */
#include "helpers.h"

#include "base/parse.h"

#include <limits.h>

static void numbers(void **state)
{
    double v;
    int64_t i;
    assert_true(parse_double("0.9", &v));
    assert_rel_close(v, 0.9, 0);
    assert_true(parse_double("1e-3", &v));
    assert_false(parse_double("", &v));
    assert_false(parse_double("0,9", &v));    /* decimal separator is always '.' */
    assert_false(parse_double("nan", &v));
    assert_false(parse_double("inf", &v));
    assert_false(parse_double("1e999", &v));
    /* underflow is a number: a subnormal as itself, below it 0 (both had been refused, with a
     * message naming a range they lie in) */
    assert_true(parse_double("5e-324", &v));
    assert_true(v > 0 && v < 1e-320);
    assert_true(parse_double("1e-400", &v));
    assert_true(v == 0.0);
    assert_false(parse_double("0x10", &v));
    assert_false(parse_double(" 1", &v));
    assert_false(parse_double("1x", &v));
    assert_true(parse_int64("16", 1, 100, &i));
    assert_int_equal(i, 16);
    assert_false(parse_int64("1e3", 1, 10000, &i));
    assert_false(parse_int64("0", 1, 10, &i));
    assert_false(parse_int64("99999999999999999999", 1, 10, &i));
    assert_false(parse_int64("-", 1, 10, &i));
}

static void bytes_and_durations(void **state)
{
    double v;
    assert_true(parse_bytes("512MiB", &v));
    assert_rel_close(v, 536870912.0, 0);
    assert_true(parse_bytes("1.5GiB", &v));
    assert_rel_close(v, 1610612736.0, 0);
    assert_true(parse_bytes("2GB", &v));
    assert_rel_close(v, 2e9, 0);
    assert_true(parse_bytes("0", &v));
    assert_rel_close(v, 0, 0);
    assert_false(parse_bytes("-1GiB", &v));
    assert_false(parse_bytes("1XB", &v));
    assert_false(parse_bytes("1e30", &v));
    assert_true(parse_duration("100ms", &v));
    assert_rel_close(v, 0.1, 1e-15);
    assert_true(parse_duration("3s", &v));
    assert_rel_close(v, 3.0, 0);
    assert_true(parse_duration("200us", &v));
    assert_rel_close(v, 200e-6, 1e-15);
    assert_false(parse_duration("3 s", &v));
    assert_false(parse_duration("fast", &v));
}

static bool count_item(const char *item, void *ctx)
{
    (void)item;
    (*(int *)ctx)++;
    return true;
}

static void lists(void **state)
{
    int n = 0;
    assert_true(parse_list("a40,a100,v100", count_item, &n));
    assert_int_equal(n, 3);
    n = 0;
    assert_false(parse_list("a40,,v100", count_item, &n));
    assert_false(parse_list("", count_item, &n));
    assert_false(parse_list("a40,", count_item, &n));
}

/* Each rejected case names the byte offset where decoding failed, so an error
 * message can point at file:line:col. */
static void utf8(void **state)
{
    size_t bad = 99;
    assert_true(parse_utf8_valid("plain ascii", 11, &bad));
    assert_true(parse_utf8_valid("\xC3\xA9t\xC3\xA9", 5, &bad));          /* "été" */
    assert_true(parse_utf8_valid("\xE2\x82\xAC", 3, &bad));                /* U+20AC */
    assert_true(parse_utf8_valid("\xF0\x9F\x98\x80", 4, &bad));            /* U+1F600 */
    assert_true(parse_utf8_valid("\xF4\x8F\xBF\xBF", 4, &bad));            /* U+10FFFF */
    assert_true(parse_utf8_valid("", 0, &bad));
    assert_false(parse_utf8_valid("ab\xC0\xAF", 4, &bad));    /* overlong '/' */
    assert_int_equal(bad, 2);
    assert_false(parse_utf8_valid("\xE0\x80\xAF", 3, &bad)); /* overlong 3-byte */
    assert_int_equal(bad, 0);
    assert_false(parse_utf8_valid("x\xED\xA0\x80", 4, &bad)); /* surrogate U+D800 */
    assert_int_equal(bad, 1);
    assert_false(parse_utf8_valid("\xF4\x90\x80\x80", 4, &bad)); /* U+110000 */
    assert_false(parse_utf8_valid("abc\xE2\x82", 5, &bad));   /* truncated */
    assert_int_equal(bad, 3);
    assert_false(parse_utf8_valid("\xC3(", 2, &bad));          /* bad continuation */
    assert_false(parse_utf8_valid("\x80", 1, &bad));           /* lone continuation */
    assert_false(parse_utf8_valid("\xFF", 1, &bad));
    assert_false(parse_utf8_valid("a\0b", 3, &bad));           /* embedded NUL */
    assert_int_equal(bad, 1);
    /* past the eight-byte ASCII stride: the bad byte found in a later or a mixed word */
    assert_true(parse_utf8_valid("0123456789abcdef\xC3\xA9", 18, &bad));
    assert_false(parse_utf8_valid("0123456789abc\0ef0123", 20, &bad)); /* NUL in the second word */
    assert_int_equal(bad, 13);
    assert_false(parse_utf8_valid("0123456789abcdefghij\xC0\xAF", 22, &bad)); /* overlong after 20 */
    assert_int_equal(bad, 20);
    assert_false(parse_utf8_valid("01234567\x80", 9, &bad)); /* a lone continuation after one word */
    assert_int_equal(bad, 8);
    /* parse_line_at: 1 + the newlines before the offset */
    assert_int_equal(parse_line_at("ab\ncd\n\xFF", 6), 3); /* the bad byte at 6 follows two newlines */
    assert_int_equal(parse_line_at("ab\ncd", 2), 1);        /* the '\n' at 2 is not before 2 */
    assert_int_equal(parse_line_at("", 0), 1);
}

static size_t dup_at(const char *json)
{
    size_t at = 0;
    int r = parse_json_dup_key(json, strlen(json), &at);
    assert_true(r >= 0);
    return r ? at : SIZE_MAX;
}

static void duplicate_keys_are_found_per_object_with_their_offset(void **state)
{
    (void)state;
    /* the second "models" starts at offset 13: {"models":[], is 13 bytes */
    assert_int_equal(dup_at("{\"models\":[],\"models\":[1]}"), 13);
    /* inner object: {"a":{"b":1, is 12 bytes, so the second "b" is at 12 */
    assert_int_equal(dup_at("{\"a\":{\"b\":1,\"b\":2}}"), 12);
    /* empty objects and arrays, before any key was seen (UBSan: no qsort of nothing) */
    assert_int_equal(dup_at("{}"), SIZE_MAX);
    assert_int_equal(dup_at("[{},[]]"), SIZE_MAX);
    /* the same key in sibling objects, or at two depths, is not a duplicate */
    assert_int_equal(dup_at("[{\"a\":1},{\"a\":1}]"), SIZE_MAX);
    assert_int_equal(dup_at("{\"a\":1,\"b\":{\"a\":2}}"), SIZE_MAX);
    /* a string value that looks like a key, and keys with escaped quotes */
    assert_int_equal(dup_at("{\"a\":\"a\",\"x\\\"y\":1,\"x\\\"z\":2}"), SIZE_MAX);
    /* keys compared as a parser reads them (a review: "c\u006fmmand" beside "command" passed):
     * {"command":1, is 13 bytes, {"c\u006fmmand":1, 18 */
    assert_int_equal(dup_at("{\"command\":1,\"c\\u006fmmand\":2}"), 13);
    assert_int_equal(dup_at("{\"c\\u006fmmand\":1,\"command\":2}"), 18);
    /* a surrogate pair is the character it encodes: U+1F600 as \ud83d\ude00 and as UTF-8 */
    assert_int_equal(dup_at("{\"\xF0\x9F\x98\x80\":1,\"\\ud83d\\ude00\":2}"), 10);
    /* the two-character escapes: "a\/b" is "a/b", "\t" a tab; "a\\b" (backslash) is not "ab" */
    assert_int_equal(dup_at("{\"a/b\":1,\"a\\/b\":2}"), 9);
    assert_int_equal(dup_at("{\"\t\":1,\"\\t\":2}"), 7);
    assert_int_equal(dup_at("{\"ab\":1,\"a\\\\b\":2}"), SIZE_MAX);
    /* the outer "k" repeats after a nested one: {"k":1,"j":[{"k":2}], is 21 bytes */
    assert_int_equal(dup_at("{\"k\":1,\"j\":[{\"k\":2}],\"k\":3}"), 21);
}

/* Optimal string alignment distance, edits as a person counts them: "lamma" -> "llama" two
 * substitutions (a/l, m/a), "estimat" -> "estimate" one insertion, "abc" -> "" three deletions,
 * "llaam" -> "llama", "ab" -> "ba" and "plna" -> "plan" one transposition each (Levenshtein says
 * 2); past PARSE_OSA_MAX, INT_MAX. */
static void osa_distance_counts_edits_as_a_person_does(void **state)
{
    (void)state;
    assert_int_equal(parse_osa_distance("lamma", 5, "llama", 5), 2);
    assert_int_equal(parse_osa_distance("llaam", 5, "llama", 5), 1);
    assert_int_equal(parse_osa_distance("estimat", 7, "estimate", 8), 1);
    assert_int_equal(parse_osa_distance("abc", 3, "", 0), 3);
    assert_int_equal(parse_osa_distance("ab", 2, "ba", 2), 1);
    assert_int_equal(parse_osa_distance("plna", 4, "plan", 4), 1);
    char longer[PARSE_OSA_MAX + 2];
    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(parse_osa_distance(longer, PARSE_OSA_MAX + 1, "a", 1), INT_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers),
        cmocka_unit_test(bytes_and_durations),
        cmocka_unit_test(lists),
        cmocka_unit_test(utf8),
        cmocka_unit_test(duplicate_keys_are_found_per_object_with_their_offset),
        cmocka_unit_test(osa_distance_counts_edits_as_a_person_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
