/* parse.h - strict, locale-independent parsers for command-line values.
 * Each rejects empty strings, trailing junk, NaN, infinities and values out of range. */
#ifndef LLMROOF_PARSE_H
#define LLMROOF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A finite decimal number with '.' as separator ("0.9", "1e-3"). */
bool parse_double(const char *s, double *out);

/* A whole number in [min, max] ("16"; "1e3" is rejected: integers are written plainly). */
bool parse_int64(const char *s, int64_t min, int64_t max, int64_t *out);

/* A byte size: number plus optional suffix B, KB, MB, GB, TB (powers of 1000) or
 * KiB, MiB, GiB, TiB (powers of 1024), case-insensitive ("512MiB", "1.5GiB", "2GB").
 * A bare number is bytes. Result is rounded to whole bytes, 0 <= value <= 2^62. */
bool parse_bytes(const char *s, double *out_bytes);

/* A duration: number plus optional suffix s, ms, us (µs), ns, min; bare = seconds. */
bool parse_duration(const char *s, double *out_s);

/* True when s[0..n) is well-formed UTF-8 (RFC 3629: no overlongs, surrogates or code points
 * above U+10FFFF) with no NUL byte; otherwise *bad receives the offset of the first bad byte. */
bool parse_utf8_valid(const char *s, size_t n, size_t *bad);

/* The 1-based line of byte offset off in s (1 plus the newlines before it): where an error such
 * as parse_utf8_valid's *bad stands, for a file:line message. */
long parse_line_at(const char *s, size_t off);

/* Offset of the first '[' or '{' (outside strings) nested deeper than max_depth, or
 * SIZE_MAX when none is. Run before cJSON, whose own limit (1000) only says "malformed". */
size_t parse_json_too_deep(const char *s, size_t n, int max_depth);

/* Finds a key that appears twice in one object of the JSON text s[0..n) (already known to
 * parse). Keys are compared after unescaping, as a parser reads them ("c\u006fmmand" is
 * "command").
 * Returns 1 and the offset of the second occurrence's opening quote in *at, 0 when every key
 * is unique, -1 when out of memory. O(n log n): one sorted key list per open object. */
int parse_json_dup_key(const char *s, size_t n, size_t *at);

/* Splits a comma-separated list in place-free fashion: calls fn for each item
 * (items are copied into a bounded buffer). Returns false on an empty item or an
 * item longer than 127 bytes, or when fn returns false. */
bool parse_list(const char *s, bool (*fn)(const char *item, void *ctx), void *ctx);

/* The most bytes parse_osa_distance compares on either side */
#define PARSE_OSA_MAX 128
/* Optimal string alignment distance of a (la bytes) and b (lb bytes): Levenshtein plus adjacent
 * transpositions, so "llaam" -> "llama" is 1 as a person counts it, where Levenshtein says 2
 * (Damerau, CACM 7(3) 1964).
 * INT_MAX when either is longer than PARSE_OSA_MAX bytes. */
int parse_osa_distance(const char *a, size_t la, const char *b, size_t lb);

#endif
