/* json_read.c - the catalog's JSON reading layer: files into memory, documents checked for
 * UTF-8, depth and trailing text, located (file:line:col) messages, and typed field getters
 * with ranges. Every catalog-side reader (catalog.c, hf.c, valmap.c) goes through here, so a
 * rule about input (what counts as a number, where a message points) is written once. The
 * one-pass reader that builds the same trees faster is json_fast.c. */
#include "data/json_read.h"


#include "base/parse.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* A path as messages echo it: whole when short, else its first 60 and last 80 bytes around "...",
 * cut at UTF-8 character starts, so that the reason after it fits the 512-byte message (a 600-byte
 * path had filled it, "File name too long" lost). */
static const char *path_shown(const char *path, char *buf, size_t cap)
{
    const size_t n = strlen(path);
    if (n <= 160)
        return path;
    size_t head = 60, tail = n - 80;
    while (head > 0 && ((unsigned char)path[head] & 0xC0) == 0x80)
        head--;
    while (tail < n && ((unsigned char)path[tail] & 0xC0) == 0x80)
        tail++;
    snprintf(buf, cap, "%.*s...%s", (int)head, path, path + tail);
    return buf;
}

int catalog_read_file(const char *path_in, size_t max_bytes, char **out, size_t *out_len,
                      struct llmroof_err *err)
{
    const char *path = path_in;
    char shown[160];
    struct stat st;
    *out = NULL;
    *out_len = 0;
    if (stat(path_in, &st) != 0) {
        const int e = errno;
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: cannot read file: %s", path_shown(path_in, shown, sizeof shown),
                               strerror(e));
    }
    path = path_shown(path_in, shown, sizeof shown); /* in the messages below; the file is path_in */
    if (!S_ISREG(st.st_mode))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: not a regular file", path);
    if ((uintmax_t)st.st_size > (uintmax_t)max_bytes)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: file is larger than the %zu-byte limit",
                               path, max_bytes);
    FILE *f = fopen(path_in, "rb");
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

    char full[160];
    if (field && c->path && strncmp(field, c->path, strlen(c->path)) != 0) {
        snprintf(full, sizeof full, "%s%s", c->path, field);
        field = full;
    }
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
    if (!isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi) {
        /* a bound %g would round (16777216 as 1.67772e+07, not the limit) prints in full; one it
         * keeps exact (1e+09) stays short */
        char lo_s[32], hi_s[32];
        snprintf(lo_s, sizeof lo_s, "%g", lo);
        if (strtod(lo_s, NULL) != lo)
            snprintf(lo_s, sizeof lo_s, "%.17g", lo);
        snprintf(hi_s, sizeof hi_s, "%g", hi);
        if (strtod(hi_s, NULL) != hi)
            snprintf(hi_s, sizeof hi_s, "%.17g", hi);
        return json_ferr(c, field, "must be a number %s %s and at most %s (got %g)",
                    lo_open ? "above" : "of at least", lo_s, hi_s, x);
    }
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
    if (cJSON_IsNumber(v) && !isfinite(v->valuedouble)) /* 1e400 overflows a double */
        return json_ferr(c, key, "must be an integer in [%ld, %ld] (got a number beyond the double range)", lo, hi);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
        return json_ferr(c, key, "must be an integer in [%ld, %ld]", lo, hi);
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

/* What cJSON accepts but RFC 8259 does not, found in one pass (strings tracked so that their
 * contents are not read as numbers): a \\u escape without four hex digits, which cJSON turns
 * into U+0000 and so cuts the string short ("LLaMA\\u12G4-13B" loaded as "LLaMA"), the escape
 * \\u0000 itself (a C string cannot hold it), and numbers with a leading zero ("040") or no
 * digit after '.' or the exponent ("40.", "1e"), which strtod reads as 40 and 1. Returns the
 * offset of the first, with *why, or SIZE_MAX. */
size_t json_lexical_error(const char *t, size_t n, const char **why)
{
    bool in_string = false;
    for (size_t i = 0; i < n; i++) {
        const unsigned char ch = (unsigned char)t[i];
        if (in_string) {
            if (ch == '"') {
                in_string = false;
            } else if (ch == '\\' && i + 1 < n) {
                if (t[i + 1] == 'u') {
                    unsigned v = 0;
                    for (size_t k = i + 2; k < i + 6; k++) {
                        const int d = k < n ? (isdigit((unsigned char)t[k]) ? t[k] - '0'
                                               : (t[k] >= 'a' && t[k] <= 'f') ? t[k] - 'a' + 10
                                               : (t[k] >= 'A' && t[k] <= 'F') ? t[k] - 'A' + 10 : -1) : -1;
                        if (d < 0) {
                            *why = "a \\u escape needs four hex digits";
                            return i;
                        }
                        v = v * 16 + (unsigned)d;
                    }
                    if (v == 0) {
                        *why = "\\u0000 (a NUL character) is not allowed in a string";
                        return i;
                    }
                }
                i++; /* the escaped character */
            }
            continue;
        }
        if (ch == '"') {
            in_string = true;
            continue;
        }
        /* a number starts after a structural character or whitespace */
        if ((ch == '-' || isdigit(ch)) && (i == 0 || strchr(":,[ \t\r\n", t[i - 1]))) {
            size_t k = i + (ch == '-');
            if (k < n && t[k] == '0' && k + 1 < n && isdigit((unsigned char)t[k + 1])) {
                *why = "a number with a leading zero";
                return i;
            }
            while (k < n && isdigit((unsigned char)t[k]))
                k++;
            if (k < n && t[k] == '.') {
                if (!(k + 1 < n && isdigit((unsigned char)t[k + 1]))) {
                    *why = "a number without a digit after '.'";
                    return i;
                }
                for (k++; k < n && isdigit((unsigned char)t[k]); k++)
                    ;
            }
            if (k < n && (t[k] == 'e' || t[k] == 'E')) {
                k++;
                if (k < n && (t[k] == '+' || t[k] == '-'))
                    k++;
                if (!(k < n && isdigit((unsigned char)t[k]))) {
                    *why = "a number without a digit in its exponent";
                    return i;
                }
            }
            i = k - 1;
        }
    }
    return SIZE_MAX;
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
        /* parse_utf8_valid also stops at a NUL byte: valid UTF-8, but no JSON text holds one raw
         * (RFC 8259 section 7: control characters are escaped inside strings, absent outside) */
        if (text[bad] == '\0')
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: a NUL byte (JSON text holds none)",
                                   fname, line, col);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: not valid UTF-8 (byte 0x%02x)", fname, line, col,
                               (unsigned char)text[bad]);
    }
    const char *why = NULL;
    if ((bad = json_lexical_error(text, len, &why)) != SIZE_MAX) {
        json_linecol(text, bad, &line, &col);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: not valid JSON: %s", fname, line, col, why);
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
            /* a HuggingFace config.json (model_type) or the other catalog file (gpus/models/engines)
             * passed where this one belongs: say which file it is, not only which field */
            const bool hf = cJSON_GetObjectItemCaseSensitive(doc->root, "model_type") != NULL;
            const char *other = NULL;
            static const char *const keys[] = { "gpus", "models", "engines" };
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
                if (strcmp(keys[k], key) != 0 && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc->root, keys[k])))
                    other = keys[k];
            char hint[160] = "";
            if (!strcmp(bad, "schema")) {
                /* the field is known; its value is not (a review: "llmroof.sweep/1" had been called
                 * an unknown field) */
                llmroof_err_set(err, LLMROOF_EINPUT,
                                "%s:%d:%d: field 'schema' must be \"llmroof.catalog/1\" in a catalog of %s (or be "
                                "left out)",
                                fname, line, col, key);
                json_doc_free(doc);
                return LLMROOF_EINPUT;
            }
            if (hf && !strcmp(key, "models"))
                snprintf(hint, sizeof hint, ": a HuggingFace config.json? turn it into a catalog file with "
                                            "'llmroof import-hf FILE --name ID'");
            else if (other)
                snprintf(hint, sizeof hint, ": this is a catalog of %s, not of %s", other, key);
            llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: top-level field '%s' is not known (expected only '%s')%s",
                            fname, line, col, bad, key, hint);
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
