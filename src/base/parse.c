/* parse.c - see llmroof/parse.h
 *
 * strtod honours the C locale; llmroof never calls setlocale(), so the decimal
 * separator is always '.', whatever the user's environment says. */
#include "base/parse.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* Parses the leading number of s; *end points after it. Rejects leading spaces,
 * hex floats, "nan" and "inf" (strtod would accept them). */
static bool leading_number(const char *s, double *out, const char **end)
{
    if (!s || !*s)
        return false;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!(isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))))
        return false;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        return false;
    errno = 0;
    char *e = NULL;
    double v = strtod(s, &e);
    /* ERANGE on underflow is a number all the same: "5e-324" (a subnormal) or "1e-400" (read as 0)
     * lie within every range that holds 0 or the tiny value, and had been refused with a message
     * that named the range they are in; overflow (inf) stays refused */
    if (e == s || !isfinite(v) || (errno == ERANGE && fabs(v) > DBL_MIN))
        return false;
    *out = v;
    *end = e;
    return true;
}

bool parse_double(const char *s, double *out)
{
    const char *end;
    double v;
    if (!leading_number(s, &v, &end) || *end != '\0')
        return false;
    *out = v;
    return true;
}

bool parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    if (!s || !*s)
        return false;
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p))
        return false;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q))
            return false;
    errno = 0;
    char *e = NULL;
    long long v = strtoll(s, &e, 10);
    if (errno == ERANGE || *e != '\0' || v < min || v > max)
        return false;
    *out = (int64_t)v;
    return true;
}

bool parse_bytes(const char *s, double *out_bytes)
{
    static const struct { const char *suffix; double mult; } units[] = {
        { "", 1.0 }, { "b", 1.0 },
        { "kb", 1e3 }, { "mb", 1e6 }, { "gb", 1e9 }, { "tb", 1e12 },
        { "k", 1024.0 }, { "kib", 1024.0 }, { "m", 1048576.0 }, { "mib", 1048576.0 },
        { "g", 1073741824.0 }, { "gib", 1073741824.0 }, { "tib", 1099511627776.0 },
    };
    const char *end;
    double v;
    if (!leading_number(s, &v, &end) || v < 0)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcasecmp(end, units[i].suffix) == 0) {
            double r = v * units[i].mult;
            if (!isfinite(r) || r > 4611686018427387904.0) /* 2^62 */
                return false;
            *out_bytes = floor(r + 0.5);
            return true;
        }
    }
    return false;
}

bool parse_duration(const char *s, double *out_s)
{
    static const struct { const char *suffix; double mult; } units[] = {
        { "", 1.0 }, { "s", 1.0 }, { "ms", 1e-3 }, { "us", 1e-6 }, { "\xc2\xb5s", 1e-6 },
        { "ns", 1e-9 }, { "min", 60.0 },
    };
    const char *end;
    double v;
    if (!leading_number(s, &v, &end) || v < 0)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].suffix) == 0) {
            double r = v * units[i].mult;
            if (!isfinite(r) || r > 1e9)
                return false;
            *out_s = r;
            return true;
        }
    }
    return false;
}

long parse_line_at(const char *s, size_t off)
{
    long line = 1;
    for (size_t k = 0; k < off; k++)
        line += s[k] == '\n';
    return line;
}

bool parse_utf8_valid(const char *s, size_t n, size_t *bad)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        /* eight ASCII bytes at a time (a catalog is nearly all ASCII): no byte with its high bit
         * set and none zero, by the has-zero-byte test of Anderson's "Bit Twiddling Hacks" */
        if (i + 8 <= n) {
            uint64_t v;
            memcpy(&v, p + i, sizeof v);
            const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
            if (((v | ((v - lo) & ~v)) & hi) == 0) {
                i += 8;
                continue;
            }
        }
        unsigned c = p[i];
        size_t len;
        unsigned min;
        if (c == 0)
            goto fail;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
            min = 0x80;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            min = 0x800;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            min = 0x10000;
        } else {
            goto fail;
        }
        if (i + len > n)
            goto fail;
        unsigned cp = c & (0xFFu >> (len + 1));
        for (size_t k = 1; k < len; k++) {
            if ((p[i + k] & 0xC0) != 0x80)
                goto fail;
            cp = (cp << 6) | (p[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            goto fail;
        i += len;
    }
    return true;
fail:
    if (bad)
        *bad = i;
    return false;
}

size_t parse_json_too_deep(const char *s, size_t n, int max_depth)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (in_string) {
            if (ch == '\\')
                i++; /* skip the escaped character */
            else if (ch == '"')
                in_string = false;
        } else if (ch == '"') {
            in_string = true;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max_depth)
                return i;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return SIZE_MAX;
}

struct key_span {
    const char *p; /* the key's characters, inside the quotes, unescaped */
    size_t len;
    size_t at;     /* offset of its opening quote */
    bool owned;    /* p is a decoded copy (the key had a backslash), freed with the object */
};

static int hex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    int v = 0;
    for (int k = 0; k < 4; k++) {
        const char c = p[k];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A key's escapes decoded as a JSON parser decodes them (RFC 8259 section 7: \uXXXX, surrogate
 * pairs, the two-character escapes) into UTF-8, so that "c\u006fmmand" and "command" compare
 * equal (a review: the escaped spelling passed as a second key, and the request ran the command
 * a gateway reading the last key would not see). A malformed escape is kept as written: the
 * document is already known to parse. NULL when out of memory. */
static char *unescape_key(const char *p, size_t len, size_t *out_len)
{
    char *o = malloc(len + 1), *w = o;
    const char *end = p + len;
    if (!o)
        return NULL;
    while (p < end) {
        if (*p != '\\' || p + 1 >= end) {
            *w++ = *p++;
            continue;
        }
        const char e = p[1];
        long cp = -1;
        size_t used = 2;
        switch (e) {
        case 'b': cp = '\b'; break;
        case 'f': cp = '\f'; break;
        case 'n': cp = '\n'; break;
        case 'r': cp = '\r'; break;
        case 't': cp = '\t'; break;
        case '"': case '\\': case '/': cp = (unsigned char)e; break;
        case 'u': {
            const int hi = hex4(p + 2, end);
            used = 6;
            if (hi < 0)
                break;
            cp = hi;
            if (hi >= 0xD800 && hi <= 0xDBFF && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
                const int lo = hex4(p + 8, end);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + (((long)hi - 0xD800) << 10) + (lo - 0xDC00);
                    used = 12;
                }
            }
            break;
        }
        default: break;
        }
        if (cp < 0) { /* kept as written */
            *w++ = *p++;
            continue;
        }
        /* UTF-8 of cp, never longer than the escape it replaces (2 bytes for 1, 6 for 3, 12 for 4) */
        if (cp < 0x80) {
            *w++ = (char)cp;
        } else if (cp < 0x800) {
            *w++ = (char)(0xC0 | cp >> 6);
            *w++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *w++ = (char)(0xE0 | cp >> 12);
            *w++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *w++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *w++ = (char)(0xF0 | cp >> 18);
            *w++ = (char)(0x80 | (cp >> 12 & 0x3F));
            *w++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *w++ = (char)(0x80 | (cp & 0x3F));
        }
        p += used;
    }
    *w = '\0';
    *out_len = (size_t)(w - o);
    return o;
}

static void free_keys(struct key_span *keys, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        if (keys[k].owned)
            free((void *)keys[k].p);
}

static int cmp_span(const void *a, const void *b)
{
    const struct key_span *x = a, *y = b;
    size_t m = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->p, y->p, m);
    if (c)
        return c;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return (x->at > y->at) - (x->at < y->at);
}

int parse_json_dup_key(const char *s, size_t n, size_t *at)
{
    /* keys of the open objects, innermost last; frame[d] = where depth d's keys start
     * (SIZE_MAX for an array) */
    struct key_span *keys = NULL;
    size_t nkeys = 0, capkeys = 0;
    size_t *frame = NULL;
    size_t depth = 0, capframe = 0;
    int found = 0;
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n && !found; i++) {
        char ch = s[i];
        if (ch == '"') {
            size_t start = i++;
            while (i < n && s[i] != '"')
                i += s[i] == '\\' ? 2 : 1;
            size_t j = i + 1;
            while (j < n && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n'))
                j++;
            if (j < n && s[j] == ':' && depth > 0 && frame[depth - 1] != SIZE_MAX) {
                if (nkeys == capkeys) {
                    size_t cap = capkeys ? 2 * capkeys : 64;
                    struct key_span *k = realloc(keys, cap * sizeof *k);
                    if (!k) {
                        found = -1;
                        break;
                    }
                    keys = k;
                    capkeys = cap;
                }
                struct key_span ks = { s + start + 1, i - start - 1, start, false };
                if (memchr(ks.p, '\\', ks.len)) {
                    size_t dl = 0;
                    char *d = unescape_key(ks.p, ks.len, &dl);
                    if (!d) {
                        found = -1;
                        break;
                    }
                    ks = (struct key_span){ d, dl, start, true };
                }
                keys[nkeys++] = ks;
            }
        } else if (ch == '{' || ch == '[') {
            if (depth == capframe) {
                size_t cap = capframe ? 2 * capframe : 16;
                size_t *f = realloc(frame, cap * sizeof *f);
                if (!f) {
                    found = -1;
                    break;
                }
                frame = f;
                capframe = cap;
            }
            frame[depth++] = ch == '{' ? nkeys : SIZE_MAX;
        } else if ((ch == '}' || ch == ']') && depth > 0) {
            size_t from = frame[--depth];
            if (from == SIZE_MAX)
                continue;
            /* sorted by (key, offset): equal neighbours are a duplicate; report the
             * earliest second occurrence in the text */
            if (nkeys - from < 2) { /* an empty or one-key object: nothing to compare (keys may be NULL) */
                free_keys(keys, from, nkeys);
                nkeys = from;
                continue;
            }
            qsort(keys + from, nkeys - from, sizeof *keys, cmp_span);
            for (size_t k = from + 1; k < nkeys; k++)
                if (keys[k].len == keys[k - 1].len && memcmp(keys[k].p, keys[k - 1].p, keys[k].len) == 0 &&
                    keys[k].at < best)
                    best = keys[k].at;
            free_keys(keys, from, nkeys);
            nkeys = from;
            if (best != SIZE_MAX)
                found = 1;
        }
    }
    free_keys(keys, 0, nkeys);
    free(keys);
    free(frame);
    if (found == 1)
        *at = best;
    return found;
}

bool parse_list(const char *s, bool (*fn)(const char *item, void *ctx), void *ctx)
{
    char item[128];
    if (!s || !*s)
        return false;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        if (n == 0 || n >= sizeof item)
            return false;
        memcpy(item, p, n);
        item[n] = '\0';
        if (!fn(item, ctx))
            return false;
        if (!comma)
            return true;
        p = comma + 1;
    }
}

int parse_osa_distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > PARSE_OSA_MAX || lb > PARSE_OSA_MAX)
        return INT_MAX;
    int rows[3][PARSE_OSA_MAX + 1];
    int *pp = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int v = prev[j - 1] + (a[i - 1] != b[j - 1]);
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
                v = pp[j - 2] + 1;
            cur[j] = v;
        }
        int *t = pp;
        pp = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb];
}
