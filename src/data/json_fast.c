/* json_fast.c - the catalog's fast JSON reader: one pass over the text builds cJSON's own nodes
 * in a few blocks (json_doc_parse), or hands a catalog file's entries over one at a time
 * (json_entries). It takes a strict subset of what the checked cJSON path (json_parse) takes
 * and builds the same tree for it; anything else goes to that path, whose messages are the only
 * ones (see json_read.h and docs/performance.md, "Round 4"). */
#include "data/json_read.h"

#include "base/parse.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
 * within FAST_MAX_DEPTH and no key twice in an object (compared after unescaping, as
 * parse_json_dup_key compares them). Anything else - every
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
    const unsigned char close = object ? '}' : ']';
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
