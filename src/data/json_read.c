/* json_read.c - the catalog's JSON reading layer: files into memory, documents checked for
 * UTF-8, depth and trailing text, located (file:line:col) messages, and typed field getters
 * with ranges. Every catalog-side reader (catalog.c, hf.c, valmap.c) goes through here, so a
 * rule about input (what counts as a number, where a message points) is written once. */
#include "data/json_read.h"


#include "base/parse.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

int catalog_read_file(const char *path, size_t max_bytes, char **out, size_t *out_len,
                      struct llmroof_err *err)
{
    struct stat st;
    *out = NULL;
    *out_len = 0;
    if (stat(path, &st) != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: cannot read file: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: not a regular file", path);
    if ((uintmax_t)st.st_size > (uintmax_t)max_bytes)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: file is larger than the %zu-byte limit",
                               path, max_bytes);
    FILE *f = fopen(path, "rb");
    if (!f)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: cannot open file: %s", path, strerror(errno));
    size_t cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", path);
    }
    size_t n = fread(buf, 1, cap - 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: read error", path);
    }
    buf[n] = '\0';
    *out = buf;
    *out_len = n;
    return LLMROOF_OK;
}

void json_linecol(const char *text, size_t off, int *line, int *col)
{
    int l = 1, c = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/* Offset of `"key"` followed by ':' at or after `from`, or SIZE_MAX. A heuristic
 * used only to point messages at a line; it never decides validity. */
size_t json_find_key(const char *text, size_t len, size_t from, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = from; i + klen + 2 <= len; i++) {
        if (text[i] == '"' && strncmp(text + i + 1, key, klen) == 0 && text[i + 1 + klen] == '"') {
            size_t j = i + klen + 2;
            while (j < len && isspace((unsigned char)text[j]))
                j++;
            if (j < len && text[j] == ':')
                return i;
        }
    }
    return SIZE_MAX;
}

/* Offset of the entry whose "id" is `id` (the "id" key itself), or SIZE_MAX. */
size_t json_find_entry(const char *text, size_t len, const char *id)
{
    size_t from = 0;
    size_t idlen = strlen(id);
    for (;;) {
        size_t k = json_find_key(text, len, from, "id");
        if (k == SIZE_MAX)
            return SIZE_MAX;
        size_t j = k + 4;
        while (j < len && (isspace((unsigned char)text[j]) || text[j] == ':'))
            j++;
        if (j + idlen + 2 <= len && text[j] == '"' && strncmp(text + j + 1, id, idlen) == 0 &&
            text[j + 1 + idlen] == '"')
            return k;
        from = k + 1;
    }
}


int json_ferr(struct json_ectx *c, const char *field, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);

    size_t at = SIZE_MAX;
    if (c->id[0] && c->text) {
        at = json_find_entry(c->text, c->len, c->id);
        if (at != SIZE_MAX && field) {
            const char *leaf = strrchr(field, '.');
            leaf = leaf ? leaf + 1 : field;
            size_t f = json_find_key(c->text, c->len, at, leaf);
            /* stay inside this entry: the next "id" key starts another one */
            size_t next = json_find_key(c->text, c->len, at + 1, "id");
            if (f != SIZE_MAX && (next == SIZE_MAX || f < next))
                at = f;
        }
    }
    char loc[160];
    if (at != SIZE_MAX) {
        int line, col;
        json_linecol(c->text, at, &line, &col);
        snprintf(loc, sizeof loc, "%s:%d:%d", c->fname, line, col);
    } else {
        snprintf(loc, sizeof loc, "%s: %s[%d]", c->fname, c->kind, c->index);
    }
    const char *id = c->id[0] ? c->id : "?";
    if (field)
        return llmroof_err_set(c->err, LLMROOF_EINPUT, "%s: '%s': field '%s' %s", loc, id, field, what);
    return llmroof_err_set(c->err, LLMROOF_EINPUT, "%s: '%s': %s", loc, id, what);
}

/* Checks that every member of obj is in the NULL-terminated list `allowed`. */
int json_check_known(struct json_ectx *c, const cJSON *obj, const char *prefix, const char *const *allowed)
{
    const char *const *from = allowed; /* where the last key matched */
    for (const cJSON *it = obj->child; it; it = it->next) {
        bool ok = false;
        /* first byte before strcmp, and stop at the match: this loop ran every key against
         * every allowed name and was the largest part of loading the catalog (issue 24).
         * Entries list their fields mostly in the order of `allowed`, so the search starts
         * after the last match and wraps around: usually one comparison a key. */
        for (const char *const *a = from; *a && it->string; a++)
            if ((*a)[0] == it->string[0] && strcmp(it->string, *a) == 0) {
                ok = true;
                from = a + 1;
                break;
            }
        for (const char *const *a = allowed; !ok && a < from && it->string; a++)
            if ((*a)[0] == it->string[0] && strcmp(it->string, *a) == 0) {
                ok = true;
                from = a + 1;
                break;
            }
        if (!ok) {
            char f[128];
            snprintf(f, sizeof f, "%s%s", prefix, it->string ? it->string : "?");
            return json_ferr(c, f, "is not a known field (allowed: see docs/catalog.md)");
        }
    }
    return LLMROOF_OK;
}

int json_get_string(struct json_ectx *c, const cJSON *obj, const char *key, bool required,
                      char *out, size_t cap)
{
    const cJSON *v = json_item(obj, key);
    if (!v) {
        if (required)
            return json_ferr(c, key, "is missing (a string is required)");
        out[0] = '\0';
        return LLMROOF_OK;
    }
    if (!cJSON_IsString(v) || !v->valuestring)
        return json_ferr(c, key, "must be a string");
    if (required && v->valuestring[0] == '\0')
        return json_ferr(c, key, "must not be empty");
    size_t n = strlen(v->valuestring);
    if (n >= cap)
        return json_ferr(c, key, "is longer than %zu characters", cap - 1);
    /* names and sources end up in tables, CSV and terminals: no control characters
     * (a "\u001b[2J" in a name would clear the screen of whoever lists the catalog).
     * Eight bytes at a time while none is below 0x20 or 0x7f (the tests of fast_special8),
     * then byte by byte from the first word that may hold one. */
    const unsigned char *s = (const unsigned char *)v->valuestring;
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w, d;
        memcpy(&w, s + i, sizeof w);
        d = w ^ (ones * 0x7f);
        if ((((w - ones * 0x20) & ~w) | ((d - ones) & ~d)) & high)
            break;
    }
    for (; i < n; i++)
        if (s[i] < 0x20 || s[i] == 0x7f)
            return json_ferr(c, key, "must not contain control characters (byte 0x%02x at character %ld)", s[i],
                             (long)i + 1);
    memcpy(out, s, n + 1); /* length checked above */
    return LLMROOF_OK;
}

int json_get_choice(struct json_ectx *c, const cJSON *obj, const char *key, const char *field,
                    const char *const *names, int dflt, int *out)
{
    const cJSON *v = json_item(obj, key);
    if (!v && dflt >= 0) {
        *out = dflt;
        return LLMROOF_OK;
    }
    if (v && cJSON_IsString(v) && v->valuestring)
        for (int i = 0; names[i]; i++)
            if (strcmp(v->valuestring, names[i]) == 0) {
                *out = i;
                return LLMROOF_OK;
            }
    /* the message lists the names: built only here, on the error path */
    char list[160] = "";
    for (int i = 0; names[i]; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s\"%s\"", i ? ", " : "", names[i]);
    }
    if (!v)
        return json_ferr(c, field, "is missing (one of %s is required)", list);
    if (!cJSON_IsString(v) || !v->valuestring)
        return json_ferr(c, field, "must be one of %s (got a %s)", list,
                         cJSON_IsNumber(v) ? "number" : cJSON_IsBool(v) ? "boolean" : "non-string value");
    return json_ferr(c, field, "must be one of %s (got \"%.40s\")", list, v->valuestring);
}

/* A finite number in [lo, hi]; lo_open makes the lower bound exclusive. */
int json_get_number(struct json_ectx *c, const cJSON *obj, const char *key, const char *field,
                      bool required, double lo, bool lo_open, double hi, double *out, bool *present)
{
    const cJSON *v = json_item(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return json_ferr(c, field, "is missing (a number is required)");
        return LLMROOF_OK;
    }
    if (!cJSON_IsNumber(v))
        return json_ferr(c, field, "must be a number");
    double x = v->valuedouble;
    if (!isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi)
        return json_ferr(c, field, "must be a number %s %g and at most %g (got %g)",
                    lo_open ? "above" : "of at least", lo, hi, x);
    *out = x;
    return LLMROOF_OK;
}

int json_get_long(struct json_ectx *c, const cJSON *obj, const char *key, bool required,
                    long lo, long hi, long *out, bool *present)
{
    const cJSON *v = json_item(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return json_ferr(c, key, "is missing (an integer is required)");
        return LLMROOF_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble))
        return json_ferr(c, key, "must be an integer");
    if (v->valuedouble < (double)lo || v->valuedouble > (double)hi)
        return json_ferr(c, key, "must be an integer in [%ld, %ld] (got %.0f)", lo, hi, v->valuedouble);
    *out = (long)v->valuedouble;
    return LLMROOF_OK;
}

int json_get_bool(struct json_ectx *c, const cJSON *obj, const char *key, bool required, bool *out)
{
    const cJSON *v = json_item(obj, key);
    if (!v) {
        if (required)
            return json_ferr(c, key, "is missing (true or false is required)");
        return LLMROOF_OK;
    }
    if (!cJSON_IsBool(v))
        return json_ferr(c, key, "must be true or false");
    *out = cJSON_IsTrue(v);
    return LLMROOF_OK;
}

bool json_valid_id(const char *s)
{
    if (!*s)
        return false;
    for (const char *p = s; *p; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-' || *p == '.' || *p == '_'))
            return false;
    return true;
}

/* Parses the whole document; reports a located syntax error. */
/* JSON is UTF-8 (RFC 8259): reject anything else with its position. */
/* What cJSON would only call "malformed": an empty file, bytes that are not UTF-8, and
 * nesting beyond cJSON's limit (CJSON_NESTING_LIMIT, 1000) - each named with its place. */
#define JSON_MAX_DEPTH 1000
static int check_text(const char *text, size_t len, const char *fname, struct llmroof_err *err)
{
    size_t bad;
    int line, col;
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n'))
        i++;
    if (i == len)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: empty file (expected a JSON object)", fname);
    if (!parse_utf8_valid(text, len, &bad)) {
        json_linecol(text, bad, &line, &col);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: not valid UTF-8 (byte 0x%02x)", fname, line, col,
                               (unsigned char)text[bad]);
    }
    return LLMROOF_OK;
}

/* Nesting beyond JSON_MAX_DEPTH, named with its place. cJSON refuses the same depth
 * (CJSON_NESTING_LIMIT), so the scan runs only when cJSON has failed: a document it parsed is
 * within the limit (the scan on every load was a tenth of a catalog load, issue 24). */
static int check_depth(const char *text, size_t len, const char *fname, struct llmroof_err *err)
{
    size_t bad;
    int line, col;
    if ((bad = parse_json_too_deep(text, len, JSON_MAX_DEPTH)) != SIZE_MAX) {
        json_linecol(text, bad, &line, &col);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: JSON nested deeper than %d levels", fname, line, col,
                               JSON_MAX_DEPTH);
    }
    return LLMROOF_OK;
}

/* Every JSON document of the catalog goes through here: check_text, then cJSON, then
 * nothing but whitespace may follow the value (cJSON alone would ignore trailing text,
 * so '{"gpus": []} garbage' would load). NULL after setting err. */
cJSON *json_parse(const char *text, size_t len, const char *fname, struct llmroof_err *err)
{
    if (check_text(text, len, fname, err))
        return NULL;
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &end, false);
    size_t off = end && end >= text ? (size_t)(end - text) : 0;
    if (off > len)
        off = len;
    int line, col;
    if (!doc) {
        if (check_depth(text, len, fname, err))
            return NULL;
        json_linecol(text, off, &line, &col);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: malformed JSON", fname, line, col);
        return NULL;
    }
    while (off < len && (text[off] == ' ' || text[off] == '\t' || text[off] == '\r' || text[off] == '\n'))
        off++;
    if (off < len) {
        cJSON_Delete(doc);
        json_linecol(text, off, &line, &col);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: unexpected text after the JSON document", fname, line, col);
        return NULL;
    }
    /* cJSON keeps both members of {"models":[],"models":[...]} and lookups see the first:
     * a repeated key is an error, never a silent choice */
    size_t dup = 0;
    int d = parse_json_dup_key(text, len, &dup);
    if (d) {
        cJSON_Delete(doc);
        if (d < 0) {
            llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
            return NULL;
        }
        json_linecol(text, dup, &line, &col);
        size_t k = dup + 1;
        while (k < len && text[k] != '"')
            k += text[k] == '\\' ? 2 : 1;
        llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: duplicate key '%.*s' (each key once per object)", fname, line,
                        col, (int)(k - dup - 1 < 100 ? k - dup - 1 : 100), text + dup + 1);
        return NULL;
    }
    return doc;
}

/* ------------------------------------------------------------------------ */
/* The fast reader: one pass, nodes in blocks                               */
/* ------------------------------------------------------------------------ */

/* Loading the catalog parsed about 3,200 values with cJSON (a malloc per node and per
 * string, strtod per number), then scanned the text again for duplicate keys (a sorted key
 * list per object) and for UTF-8: 13.6 M instructions of an `estimate` process's 13.6 M
 * (issue 24). This reader does all of it in one pass and builds the same cJSON nodes in a
 * few blocks, so that every getter below reads either tree alike.
 *
 * It accepts a subset of what the checked cJSON path (json_parse) accepts, and builds the
 * same tree for it: RFC 8259 JSON whose strings are valid UTF-8 without raw control
 * characters or \u escapes, numbers shorter than cJSON's 63-character buffer, nesting
 * within FAST_MAX_DEPTH and no key twice in an object (compared after unescaping, which
 * finds every repeat parse_json_dup_key finds, as written, and more). Anything else - every
 * malformed document among them - returns "not handled", and json_doc_parse runs the
 * checked path, whose messages (file:line:col, what failed first) stay the only ones. */
#define FAST_MAX_DEPTH 64
#define FAST_KEYS 64 /* keys per object compared by hash; beyond, by strcmp */

struct json_block {
    struct json_block *next;
    size_t used, cap;
    cJSON node[];      /* cap nodes */
};

struct fast {
    const unsigned char *s; /* the text */
    size_t n, i;            /* its length; the read position */
    char *out;              /* next free byte of doc->strings (decoded strings never outgrow the text) */
    struct json_doc *doc;
    int depth;
};

static cJSON *fast_node(struct fast *f)
{
    struct json_block *b = f->doc->blocks;
    if (!b || b->used == b->cap) {
        /* the catalog averages 35 to 65 bytes of text a value: one block of len / 24
         * nodes is usually the only one */
        size_t cap = b ? 2 * b->cap : f->n / 24 + 16;
        struct json_block *nb = malloc(sizeof *nb + cap * sizeof(cJSON));
        if (!nb)
            return NULL;
        nb->next = b;
        nb->used = 0;
        nb->cap = cap;
        f->doc->blocks = b = nb;
    }
    cJSON *c = &b->node[b->used++];
    *c = (cJSON){ 0 };
    return c;
}

static void fast_ws(struct fast *f)
{
    const unsigned char *s = f->s;
    size_t i = f->i, n = f->n;
    while (i < n) {
        unsigned char c = s[i];
        if (c == ' ' && i + 8 <= n) {
            /* indentation: the run of spaces in the next eight bytes in one step */
            uint64_t v;
            memcpy(&v, s + i, sizeof v);
            v ^= 0x2020202020202020u;
            i += v ? (size_t)__builtin_ctzll(v) / 8 : 8; /* little-endian: the lowest byte is first */
        } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            i++;
        } else {
            break;
        }
    }
    f->i = i;
}

/* One bit (0x80) in each byte of v that is a '"', a '\\', a control character or not ASCII;
 * the lowest set bit marks the first such byte exactly (higher ones may be false: a borrow).
 * The has-less-than and has-zero-byte tests of Anderson's "Bit Twiddling Hacks". */
static uint64_t fast_special8(uint64_t v)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
    return (((v - ones * 0x20) & ~v) | ((q - ones) & ~q) | ((b - ones) & ~b) | v) & high;
}

/* The string at f->i (its opening quote), decoded into doc->strings, its length in *len;
 * NULL: not handled. */
static char *fast_string(struct fast *f, size_t *len)
{
    const unsigned char *s = f->s;
    size_t n = f->n, i = f->i + 1, start = i;
    char *o = f->out, *str = o;
    unsigned hi = 0;
    for (;;) {
        /* eight bytes at a time up to the first special one; the output trails the input by
         * at least the opening quote, so an 8-byte store stays inside doc->strings */
        while (i + 8 <= n) {
            uint64_t v;
            memcpy(&v, s + i, sizeof v);
            memcpy(o, &v, sizeof v);
            uint64_t m = fast_special8(v);
            if (m) {
                size_t k = (size_t)__builtin_ctzll(m) / 8; /* little-endian: the lowest byte is first */
                i += k;
                o += k;
                break;
            }
            i += 8;
            o += 8;
        }
        if (i >= n)
            return NULL;
        unsigned char c = s[i];
        if (c == '"')
            break;
        if (c < 0x20)
            return NULL; /* cJSON keeps raw control characters; the checked path decides */
        if (c == '\\') {
            if (i + 1 >= n)
                return NULL;
            switch (s[i + 1]) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            default: return NULL; /* \u (surrogates, \u0000) and bad escapes: the checked path */
            }
            i += 2;
        } else {
            hi |= c;
            i++;
        }
        *o++ = (char)c;
    }
    if ((hi & 0x80) && !parse_utf8_valid((const char *)s + start, i - start, NULL))
        return NULL;
    *len = (size_t)(o - str);
    *o++ = '\0';
    f->out = o;
    f->i = i + 1;
    return str;
}

/* Powers of ten that are exact doubles (10^22 is the last). */
static const double fast_p10[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* A number at f->i by RFC 8259's grammar, as cJSON's strtod reads it; false: not handled. */
static bool fast_number(struct fast *f, double *out)
{
    const unsigned char *s = f->s;
    size_t n = f->n, i = f->i, start = i;
    bool neg = false, exact = true;
    uint64_t m = 0;
    long e10 = 0;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i >= n || s[i] < '0' || s[i] > '9')
        return false;
    if (s[i] == '0') {
        i++;
    } else {
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (m < ((uint64_t)1 << 53) / 10)
                m = m * 10 + (s[i] - '0');
            else
                exact = false;
        }
    }
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return false;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            if (m < ((uint64_t)1 << 53) / 10) {
                m = m * 10 + (s[i] - '0');
                e10--;
            } else {
                exact = false;
            }
        }
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (i >= n || s[i] < '0' || s[i] > '9')
            return false;
        long x = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (x < 100000)
                x = x * 10 + (s[i] - '0');
        e10 += eneg ? -x : x;
    }
    if (i - start > 63)
        return false; /* cJSON reads at most 63 characters of a number */
    double v;
    if (exact && e10 >= -22 && e10 <= 22) {
        /* both operands exact doubles: one correctly rounded operation gives strtod's answer
         * (Clinger, "How to read floating point numbers accurately", PLDI 1990) */
        v = e10 < 0 ? (double)m / fast_p10[-e10] : (double)m * fast_p10[e10];
        if (neg)
            v = -v;
    } else {
        char buf[64];
        char *end;
        memcpy(buf, s + start, i - start);
        buf[i - start] = '\0';
        v = strtod(buf, &end);
        if (end != buf + (i - start))
            return false; /* a locale whose decimal point is not '.': cJSON's path copes */
    }
    *out = v;
    f->i = i;
    return true;
}

static cJSON *fast_value(struct fast *f);

/* The members (object) or elements (array) after f->i's '{' or '['. */
static bool fast_children(struct fast *f, cJSON *parent, bool object)
{
    const char close = object ? '}' : ']';
    uint32_t hash[FAST_KEYS];   /* the first FAST_KEYS keys' hashes and names */
    const char *keys[FAST_KEYS];
    uint64_t seen = 0;          /* a filter of the hashes */
    cJSON *last = NULL;
    size_t count = 0;
    f->i++;
    fast_ws(f);
    if (f->i < f->n && f->s[f->i] == close) {
        f->i++;
        return true;
    }
    for (;;) {
        char *key = NULL;
        if (object) {
            size_t kl;
            if (f->i >= f->n || f->s[f->i] != '"' || !(key = fast_string(f, &kl)))
                return false;
            /* a key twice in one object: the checked path names it. A hash of the length and
             * three bytes, a 64-bit filter of the hashes seen, the hashes compared on a hit */
            uint32_t h = (uint32_t)kl * 0x9E3779B1u ^ (uint32_t)(unsigned char)key[0] << 8 ^
                         (kl ? (uint32_t)(unsigned char)key[kl - 1] << 16 ^ (uint32_t)(unsigned char)key[kl / 2] << 24
                             : 0u);
            uint64_t bit = UINT64_C(1) << ((h ^ h >> 7 ^ h >> 17 ^ h >> 26) & 63);
            if (count >= FAST_KEYS) {
                for (const cJSON *k = parent->child; k; k = k->next)
                    if (strcmp(k->string, key) == 0)
                        return false;
            } else {
                if (seen & bit)
                    for (size_t j = 0; j < count; j++)
                        if (hash[j] == h && strcmp(keys[j], key) == 0)
                            return false;
                hash[count] = h;
                keys[count] = key;
            }
            seen |= bit;
            fast_ws(f);
            if (f->i >= f->n || f->s[f->i] != ':')
                return false;
            f->i++;
            fast_ws(f);
        }
        cJSON *v = fast_value(f);
        if (!v)
            return false;
        v->string = key;
        /* linked as cJSON links them: the first child's prev is the last */
        if (last) {
            last->next = v;
            v->prev = last;
        } else {
            parent->child = v;
        }
        last = v;
        parent->child->prev = v;
        count++;
        fast_ws(f);
        if (f->i >= f->n)
            return false;
        if (f->s[f->i] == close) {
            f->i++;
            return true;
        }
        if (f->s[f->i] != ',')
            return false;
        f->i++;
        fast_ws(f);
    }
}

static cJSON *fast_value(struct fast *f)
{
    if (f->i >= f->n)
        return NULL;
    cJSON *v = fast_node(f);
    if (!v)
        return NULL;
    unsigned char c = f->s[f->i];
    size_t left = f->n - f->i;
    switch (c) {
    case '{':
    case '[':
        if (++f->depth > FAST_MAX_DEPTH)
            return NULL;
        v->type = c == '{' ? cJSON_Object : cJSON_Array;
        if (!fast_children(f, v, c == '{'))
            return NULL;
        f->depth--;
        return v;
    case '"':
        v->type = cJSON_String;
        size_t len;
        return (v->valuestring = fast_string(f, &len)) ? v : NULL;
    case 't':
        if (left < 4 || memcmp(f->s + f->i, "true", 4) != 0)
            return NULL;
        v->type = cJSON_True;
        v->valueint = 1;
        f->i += 4;
        return v;
    case 'f':
        if (left < 5 || memcmp(f->s + f->i, "false", 5) != 0)
            return NULL;
        v->type = cJSON_False;
        f->i += 5;
        return v;
    case 'n':
        if (left < 4 || memcmp(f->s + f->i, "null", 4) != 0)
            return NULL;
        v->type = cJSON_NULL;
        f->i += 4;
        return v;
    default: {
        double x;
        if (!fast_number(f, &x))
            return NULL;
        v->type = cJSON_Number;
        v->valuedouble = x;
        /* cJSON's saturating integer view */
        v->valueint = x >= INT_MAX ? INT_MAX : x <= (double)INT_MIN ? INT_MIN : (int)x;
        return v;
    }
    }
}

void json_doc_free(struct json_doc *doc)
{
    cJSON_Delete(doc->owned);
    for (struct json_block *b = doc->blocks, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    free(doc->strings);
    memset(doc, 0, sizeof *doc);
}

/* The fast reader's tree, or false (doc left empty) when it does not handle the text. */
static bool fast_parse(const char *text, size_t len, struct json_doc *doc)
{
    memset(doc, 0, sizeof *doc);
    if (!(doc->strings = malloc(len + 1)))
        return false;
    struct fast f = { (const unsigned char *)text, len, 0, doc->strings, doc, 0 };
    fast_ws(&f);
    cJSON *root = fast_value(&f);
    fast_ws(&f);
    if (!root || f.i != len) {
        json_doc_free(doc);
        return false;
    }
    doc->root = root;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Entries one at a time                                                    */
/* ------------------------------------------------------------------------ */

/* A catalog file is {"KEY": [entry, ...]} (and perhaps "schema"). Read whole, its nodes
 * took a fifth of an `estimate` process's fresh pages; read entry by entry, the nodes and
 * strings of one entry reuse the memory of the one before (issue 24). */
struct json_entries {
    struct fast f;       /* the reader; f.doc is &doc */
    struct json_doc doc; /* its blocks and strings, rewound before each entry */
    const char *key;     /* the array's name */
    bool in_array;       /* between the array's '[' and ']' */
    bool seen_key, seen_schema;
    bool ok;             /* the document was read to its end and every check passed */
    size_t index;        /* entries returned */
};

/* The top-level members from f->i (after '{' when first, else after a member's value): up
 * to the '[' of key's array (1), to the end of the text (0), or to something the checked
 * path must read (-1: a field other than key and "schema", a repeat, a syntax error). */
static int entries_members(struct json_entries *it, bool first)
{
    struct fast *f = &it->f;
    for (;;) {
        fast_ws(f);
        if (f->i >= f->n)
            return -1;
        if (f->s[f->i] == '}') {
            f->i++;
            fast_ws(f);
            return f->i == f->n && it->seen_key ? 0 : -1;
        }
        if (!first) {
            if (f->s[f->i] != ',')
                return -1;
            f->i++;
            fast_ws(f);
        }
        first = false;
        size_t kl;
        const char *k;
        if (f->i >= f->n || f->s[f->i] != '"' || !(k = fast_string(f, &kl)))
            return -1;
        fast_ws(f);
        if (f->i >= f->n || f->s[f->i] != ':')
            return -1;
        f->i++;
        fast_ws(f);
        if (strcmp(k, it->key) == 0) {
            if (it->seen_key || f->i >= f->n || f->s[f->i] != '[')
                return -1;
            it->seen_key = true;
            f->i++;
            return 1;
        }
        if (strcmp(k, "schema") != 0 || it->seen_schema)
            return -1;
        /* documents llmroof writes name their schema (docs/json.md); json_parse_array_doc's rule */
        const cJSON *v = fast_value(f);
        if (!v || !cJSON_IsString(v) || strcmp(v->valuestring, "llmroof.catalog/1") != 0)
            return -1;
        it->seen_schema = true;
    }
}

struct json_entries *json_entries_open(const char *text, size_t len, const char *key)
{
    struct json_entries *it = calloc(1, sizeof *it);
    if (!it)
        return NULL;
    it->key = key;
    it->f = (struct fast){ (const unsigned char *)text, len, 0, NULL, &it->doc, 0 };
    /* the first block holds a large entry's nodes (a model has about 40) */
    it->doc.blocks = malloc(sizeof *it->doc.blocks + 512 * sizeof(cJSON));
    if (!it->doc.blocks || !(it->doc.strings = malloc(len + 1)))
        goto fail;
    it->doc.blocks->next = NULL;
    it->doc.blocks->used = 0;
    it->doc.blocks->cap = 512;
    it->f.out = it->doc.strings;
    fast_ws(&it->f);
    if (it->f.i >= len || it->f.s[it->f.i] != '{')
        goto fail;
    it->f.i++;
    if (entries_members(it, true) != 1)
        goto fail;
    it->in_array = true;
    return it;
fail:
    json_entries_close(it);
    return NULL;
}

const cJSON *json_entries_next(struct json_entries *it)
{
    struct fast *f = &it->f;
    if (!it->in_array)
        return NULL;
    /* the previous entry's nodes and strings are done with */
    it->doc.blocks->used = 0;
    f->out = it->doc.strings;
    fast_ws(f);
    if (f->i < f->n && f->s[f->i] == ']') {
        /* "[]" or the end after an entry; a ',' before it is malformed (below) */
        f->i++;
        it->in_array = false;
        it->ok = entries_members(it, false) == 0;
        return NULL;
    }
    if (it->index > 0) {
        if (f->i >= f->n || f->s[f->i] != ',') {
            it->in_array = false;
            return NULL;
        }
        f->i++;
        fast_ws(f);
    }
    f->depth = 2; /* inside the top-level object and its array, as when read whole */
    const cJSON *e = fast_value(f);
    if (!e) {
        it->in_array = false;
        return NULL;
    }
    it->index++;
    return e;
}

bool json_entries_ok(const struct json_entries *it)
{
    return it->ok;
}

void json_entries_close(struct json_entries *it)
{
    if (!it)
        return;
    json_doc_free(&it->doc);
    free(it);
}

int json_doc_parse(const char *text, size_t len, const char *fname, struct json_doc *doc, struct llmroof_err *err)
{
    if (fast_parse(text, len, doc))
        return LLMROOF_OK;
    if (!(doc->owned = doc->root = json_parse(text, len, fname, err)))
        return LLMROOF_EINPUT;
    return LLMROOF_OK;
}

int json_parse_array_doc(const char *text, size_t len, const char *fname, const char *key,
                         struct json_doc *doc, const cJSON **arr, struct llmroof_err *err)
{
    if (json_doc_parse(text, len, fname, doc, err))
        return LLMROOF_EINPUT;
    if (!cJSON_IsObject(doc->root)) {
        json_doc_free(doc);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a JSON object with a '%s' array", fname, key);
        return LLMROOF_EINPUT;
    }
    for (const cJSON *it = doc->root->child; it; it = it->next) {
        /* documents llmroof writes (import-hf, --out) name their schema (docs/json.md) */
        if (it->string && strcmp(it->string, "schema") == 0 && cJSON_IsString(it) &&
            strcmp(it->valuestring, "llmroof.catalog/1") == 0)
            continue;
        if (!it->string || strcmp(it->string, key) != 0) {
            const char *bad = it->string ? it->string : "?";
            size_t at = json_find_key(text, len, 0, bad);
            int line = 1, col = 1;
            if (at != SIZE_MAX)
                json_linecol(text, at, &line, &col);
            llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: top-level field '%s' is not known (expected only '%s')",
                            fname, line, col, bad, key);
            json_doc_free(doc);
            return LLMROOF_EINPUT;
        }
    }
    *arr = json_item(doc->root, key);
    if (!*arr || !cJSON_IsArray(*arr)) { /* explicit NULL test: success always returns an array */
        json_doc_free(doc);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be an array of entries", fname, key);
        return LLMROOF_EINPUT;
    }
    return LLMROOF_OK;
}

cJSON *json_parse_object(const char *text, size_t len, const char *fname, struct llmroof_err *err)
{
    cJSON *doc = json_parse(text, len, fname, err);
    if (doc && !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a JSON object", fname);
        return NULL;
    }
    return doc;
}

int json_entry_head(struct json_ectx *c, const cJSON *e, const char *const *fields, char *id, size_t cap)
{
    int rc;
    if (!cJSON_IsObject(e))
        return json_ferr(c, NULL, "entry must be a JSON object");
    if ((rc = json_get_string(c, e, "id", true, id, cap)))
        return rc;
    size_t idlen = strlen(id); /* later messages name the entry (as snprintf would, truncated) */
    if (idlen >= sizeof c->id)
        idlen = sizeof c->id - 1;
    memcpy(c->id, id, idlen);
    c->id[idlen] = '\0';
    if (!json_valid_id(id))
        return json_ferr(c, "id", "must use only lowercase letters, digits, '-', '.' and '_'");
    return json_check_known(c, e, "", fields);
}
