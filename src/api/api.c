/* api.c - the stable C API (include/llmroof/api.h): a JSON request object becomes a command
 * line, which runs in-process through cli_run with its stdout and stderr in memory streams.
 *
 * Why a command line and not a second set of entry points: the response must be exactly the
 * JSON the CLI prints, with the same defaults, checks and messages; running the CLI's own
 * command code is the one way that cannot drift from it. The translation is mechanical
 * (docs/api.md): "key": value becomes --key=value (underscores read as dashes), true a bare
 * --key, false and null nothing, an array a comma-separated list, "args" the positional
 * arguments; "format" defaults to json (jsonl for sweep, whose rows are JSON Lines). */
#include "llmroof/api.h"
#include "api/api_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <dlfcn.h> /* dladdr (a GNU extension: _GNU_SOURCE is set by the build) */
#include <limits.h>
#include <math.h>
#include <locale.h> /* newlocale, uselocale: POSIX 2008 */
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "data/catalog.h"
#include "base/parse.h"
#include "base/sbuf.h"

struct llmroof_ctx {
    struct llmroof_catalog cat; /* loaded once by llmroof_ctx_new; read-only afterwards */
    char data_dir[PATH_MAX];    /* where it came from (validation map, uncertainty, user files) */
};

/* The argv being built: every string owned here. */
struct argv_buf {
    char **v;     /* argv[0..n), NULL-terminated */
    int n, cap;   /* used and allocated entries */
    bool failed;  /* an allocation failed */
};

/* One diagnostic of the request itself, in the CLI's message style. */
struct req_err {
    int code;      /* 0, LLMROOF_API_EINPUT or LLMROOF_API_EFAIL */
    char msg[512]; /* "llmroof: error: request: ...\n" */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int req_fail(struct req_err *e, int code, const char *fmt, ...)
{
    va_list ap;
    int k = snprintf(e->msg, sizeof e->msg, "llmroof: error: request: ");
    va_start(ap, fmt);
    vsnprintf(e->msg + k, sizeof e->msg - (size_t)k - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(e->msg);
    e->msg[len] = '\n';
    e->msg[len + 1] = '\0';
    e->code = code;
    return code;
}

static void argv_push(struct argv_buf *a, char *s)
{
    if (!s) {
        a->failed = true;
        return;
    }
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? 2 * a->cap : 16;
        char **v = realloc(a->v, sizeof *v * (size_t)cap);
        if (!v) {
            free(s);
            a->failed = true;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
}

static void argv_free(struct argv_buf *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* A JSON number as the command line would write it: whole numbers without a fraction (up to
 * 2^53, where every whole number is a double: a seed of 10^15 stays "1000000000000000", not
 * "1e+15"), others with the fewest digits that read back to the same double. */
void api_number_text(double v, char *buf, size_t n)
{
    if (v > -9007199254740992.0 && v < 9007199254740992.0 && v == (double)(long long)v) { /* range first: the cast of 1e300 is undefined */
        snprintf(buf, n, "%lld", (long long)v);
        return;
    }
    /* from 1 digit: where 15 read back (any subnormal: 5e-324 as 4.94065645841247e-324) they were
     * not the fewest, and the command's message echoed the longer text (a review) */
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* Whether the digits p[0..n) (a JSON number without an exponent, 2^53 or more in magnitude) are
 * exactly the whole number v: 100000000000000000 is (10^17 is a double), 9007199254740993 is not
 * (it reads as ...992), and a fraction of zeros changes nothing. glibc's %.0f prints a double's
 * exact decimal value. */
static bool whole_digits_exact(const char *p, size_t n, double v)
{
    char exact[400];
    snprintf(exact, sizeof exact, "%.0f", fabs(v));
    size_t i = 0;
    if (i < n && p[i] == '-')
        i++;
    while (i + 1 < n && p[i] == '0' && p[i + 1] != '.')
        i++;
    size_t k = 0;
    for (; i < n && p[i] != '.'; i++, k++)
        if (exact[k] != p[i])
            return false;
    if (exact[k] != '\0')
        return false;
    for (i = i < n ? i + 1 : n; i < n; i++) /* the fraction: zeros only */
        if (p[i] != '0')
            return false;
    return true;
}

/* The longest value a request's option may hold: what one command-line argument can (Linux's
 * MAX_ARG_STRLEN, 32 pages of 4 KiB: execve(2)), so the API takes no more than the CLI. */
#define REQ_MAX_VALUE_BYTES ((size_t)131072)

/* A string of the request (field `key`) as it may reach the command line: no control
 * characters (a JSON "\u0000" would cut "llama-2-7b\u0000x" to "llama-2-7b"; build_argv maps
 * it to U+0001 so it is seen here) and no longer than an argument can be. Long values are
 * echoed clipped. */
static int check_text(const char *key, const char *s, struct req_err *e)
{
    size_t n = strlen(s);
    if (n > REQ_MAX_VALUE_BYTES)
        return req_fail(e, LLMROOF_API_EINPUT, "field '%s': a value of %zu bytes ('%s') is longer than a command-line argument can be (%zu bytes)",
                        key, n, CLI_CLIP(s), REQ_MAX_VALUE_BYTES);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return req_fail(e, LLMROOF_API_EINPUT, "field '%s': the value '%.*s%s' is followed by a NUL or control character at byte %zu (option values are text)",
                            key, (int)(i < CLI_CLIP_BYTES ? i : CLI_CLIP_BYTES), s, i > CLI_CLIP_BYTES ? "..." : "", i);
    return 0;
}

/* A scalar array element or value into text appended to b; 0 or an error code. */
static int scalar_text(const cJSON *v, const char *key, struct sbuf *b, struct req_err *e)
{
    if (cJSON_IsString(v)) {
        int rc = check_text(key, v->valuestring, e);
        if (rc)
            return rc;
        sbuf_append(b, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        char num[64];
        api_number_text(v->valuedouble, num, sizeof num);
        sbuf_append(b, num);
    } else {
        return req_fail(e, LLMROOF_API_EINPUT, "field '%s': a list holds strings or numbers", key);
    }
    return 0;
}

static bool valid_key(const char *k)
{
    if (!*k || *k == '-' || *k == '_' || strlen(k) > 64) /* the longest option name is far shorter */
        return false;
    for (const char *p = k; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
              *p == '_'))
            return false;
    return true;
}

/* "--key=text" with underscores of key read as dashes. */
static char *option_text(const char *key, const char *text)
{
    struct sbuf b;
    sbuf_init(&b);
    sbuf_append(&b, "--");
    size_t at = b.len;
    sbuf_append(&b, key);
    for (size_t i = at; i < b.len; i++)
        if (b.data[i] == '_')
            b.data[i] = '-';
    if (text) {
        sbuf_append(&b, "=");
        sbuf_append(&b, text);
    }
    if (sbuf_failed(&b)) {
        sbuf_free(&b);
        return NULL;
    }
    return b.data; /* ownership moves to the caller */
}

/* Catalog files are repeatable options: a list becomes one option per file. */
static bool repeated_key(const char *k)
{
    return !strcmp(k, "gpus_file") || !strcmp(k, "gpus-file") || !strcmp(k, "models_file") ||
           !strcmp(k, "models-file");
}

static int add_option(struct argv_buf *a, const cJSON *item, struct req_err *e)
{
    const char *key = item->string;
    /* a NUL in a name reaches here as U+0001 (api_map_nul_escapes): echoed, it read "\x01" */
    for (size_t i = 0; i <= 64 && key[i]; i++)
        if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
            return req_fail(e, LLMROOF_API_EINPUT, "field '%.*s' is followed by a NUL or control character at byte %zu "
                            "(option names are letters, digits, '-' and '_')", (int)i, key, i);
    if (!valid_key(key))
        return req_fail(e, LLMROOF_API_EINPUT, "field '%s' is not an option name (letters, digits, '-' and '_', "
                                               "starting with a letter or digit: \"tp\", not \"--tp\")", CLI_CLIP(key));
    if (cJSON_IsFalse(item) || cJSON_IsNull(item))
        return 0;
    if (cJSON_IsTrue(item)) {
        argv_push(a, option_text(key, NULL));
        return 0;
    }
    if (cJSON_IsObject(item))
        return req_fail(e, LLMROOF_API_EINPUT, "field '%s' must be a string, number, boolean or list, not an object", key);
    struct sbuf b;
    sbuf_init(&b);
    int rc = 0;
    if (cJSON_IsArray(item)) {
        if (cJSON_GetArraySize(item) == 0) {
            sbuf_free(&b);
            return req_fail(e, LLMROOF_API_EINPUT, "field '%s' is an empty list", key);
        }
        bool each = repeated_key(key);
        const cJSON *el;
        cJSON_ArrayForEach(el, item) {
            if (b.len && !each)
                sbuf_append(&b, ",");
            if ((rc = scalar_text(el, key, &b, e)))
                break;
            if (each) {
                argv_push(a, sbuf_failed(&b) ? NULL : option_text(key, sbuf_str(&b)));
                b.len = 0;
                if (b.data)
                    b.data[0] = '\0';
            }
        }
        if (!rc && !each)
            argv_push(a, sbuf_failed(&b) ? NULL : option_text(key, sbuf_str(&b)));
    } else {
        rc = scalar_text(item, key, &b, e);
        if (!rc)
            argv_push(a, sbuf_failed(&b) ? NULL : option_text(key, sbuf_str(&b)));
    }
    sbuf_free(&b);
    return rc;
}

int api_request_flatten(cJSON *req, char *msg, size_t n)
{
    cJSON *it = req ? req->child : NULL;
    while (it) {
        cJSON *next = it->next;
        /* "args" stays a list: positional arguments, each its own (build_argv) */
        if (cJSON_IsArray(it) && cJSON_GetArraySize(it) > 0 && it->string && !repeated_key(it->string) &&
            strcmp(it->string, "args") != 0) {
            struct req_err e = { 0 };
            struct sbuf b;
            sbuf_init(&b);
            const cJSON *el;
            int rc = 0;
            cJSON_ArrayForEach(el, it) {
                if (b.len)
                    sbuf_append(&b, ",");
                if ((rc = scalar_text(el, it->string, &b, &e)))
                    break;
            }
            cJSON *text = rc || sbuf_failed(&b) ? NULL : cJSON_CreateString(sbuf_str(&b));
            sbuf_free(&b);
            if (rc) {
                snprintf(msg, n, "%s", e.msg);
                return LLMROOF_API_EINPUT;
            }
            if (!text) {
                snprintf(msg, n, "llmroof: error: out of memory");
                return LLMROOF_API_EFAIL;
            }
            /* replaced where it stands, its key moved over (a search by key for each list had
             * made a request of many lists quadratic) */
            text->string = it->string;
            text->type |= it->type & cJSON_StringIsConst;
            it->string = NULL;
            cJSON_ReplaceItemViaPointer(req, it, text);
        } else if (cJSON_IsString(it)) {
            struct req_err e = { 0 };
            if (check_text(it->string ? it->string : "", it->valuestring, &e)) {
                snprintf(msg, n, "%s", e.msg);
                return LLMROOF_API_EINPUT;
            }
        }
        it = next;
    }
    return 0;
}

/* A copy of the request text with each JSON escape "\u0000" read as "\u0001": cJSON would end
 * the string at the NUL ("llama-2-7b\u0000x" would become "llama-2-7b"), while U+0001 survives
 * to check_text, which refuses both. Caller frees; NULL when out of memory. */
char *api_map_nul_escapes(const char *json)
{
    char *t = dup_str(json);
    if (!t)
        return NULL;
    for (char *p = t; (p = strchr(p, '\\')) != NULL;) {
        if (p[1] == 'u' && p[2] == '0' && p[3] == '0' && p[4] == '0' && p[5] == '0') {
            p[5] = '1';
            p += 6;
        } else {
            p += p[1] ? 2 : 1; /* skip the escaped character: "\\u0000" is not an escape of U+0000 */
        }
    }
    return t;
}

/* The message of a parse failure at byte `at`: JSON has no NaN or Infinity (Python's json
 * writes them for float('nan') and float('inf')); name the field and the value when the
 * failure sits on one, rather than only the byte. */
static void non_number_message(const char *text, size_t at, struct req_err *e)
{
    static const char *const words[] = { "NaN", "Infinity", "-Infinity", "nan", "inf", "-inf" };
    const char *p = text + at, *word = NULL;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strncmp(p, words[i], strlen(words[i])))
            word = words[i];
    if (!word) {
        req_fail(e, LLMROOF_API_EINPUT, "invalid JSON at byte %zu", at);
        return;
    }
    /* the key: back over blanks and ':' to the closing quote, then to the opening one */
    const char *q = p;
    while (q > text && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r'))
        q--;
    const char *key_end = NULL, *key = NULL;
    if (q > text && q[-1] == ':') {
        q--;
        while (q > text && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r'))
            q--;
        if (q > text && q[-1] == '"') {
            key_end = q - 1;
            for (const char *k = key_end; k > text && key_end - k <= 64; k--)
                if (k[-1] == '"') {
                    key = k;
                    break;
                }
        }
    }
    if (key)
        req_fail(e, LLMROOF_API_EINPUT, "field '%.*s': %s is not a number JSON can hold (expected a finite number; byte %zu)",
                 (int)(key_end - key), key, word, at);
    else
        req_fail(e, LLMROOF_API_EINPUT, "invalid JSON at byte %zu: %s is not a number JSON can hold (expected a finite number)", at, word);
}

void api_parse_error_message(const char *text, size_t at, char *msg, size_t n)
{
    struct req_err e = { 0, { 0 } };
    non_number_message(text, at, &e);
    size_t len = strlen(e.msg);
    if (len && e.msg[len - 1] == '\n')
        e.msg[--len] = '\0';
    snprintf(msg, n, "%s", e.msg);
}

/* ------------------------------------------------------------------------ */
/* The request's text, before cJSON reads it                                */
/* ------------------------------------------------------------------------ */

/* A request is an object of options whose values are scalars or lists of scalars: two levels.
 * Deeper nesting is refused here with its own message, well below cJSON's limit of 1000 (which
 * said only "invalid JSON at byte N"); an object as an option's value, at the third level, is
 * left for add_option to name. */
#define REQ_MAX_DEPTH 16

/* What cJSON would not say: invalid UTF-8 (the server checks the same before its limits), nesting past REQ_MAX_DEPTH, and a number beyond a
 * double (1e400 read as infinity reached --batch as "inf"; 1e-400 read as 0), each with the
 * field it sits in and its byte. Malformed JSON passes: cJSON's own error reports it. */
/* The value of the 4 hex digits at s, or -1. */
static long hex4(const char *s)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        const char c = s[i];
        const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/* Whether the escape "\uXXXX" at s is a UTF-16 surrogate without its other half: a high one not
 * followed by "\u" and a low one, or a low one (a pair's low half is stepped over with its high). */
static bool lone_surrogate(const char *s)
{
    const long u = hex4(s + 2);
    if (u >= 0xDC00 && u <= 0xDFFF)
        return true;
    if (u < 0xD800 || u > 0xDBFF)
        return false;
    const long lo = s[6] == '\\' && s[7] == 'u' ? hex4(s + 8) : -1;
    return lo < 0xDC00 || lo > 0xDFFF;
}

/* The length of the JSON number at p (RFC 8259 section 6: -? (0 | [1-9][0-9]*) (. [0-9]+)?
 * ([eE] [+-]? [0-9]+)?) within its n characters: n when all of them are one. */
static size_t json_number_len(const char *p, size_t n)
{
    size_t i = 0;
    if (i < n && p[i] == '-')
        i++;
    if (i < n && p[i] == '0') {
        i++;
    } else if (i < n && p[i] >= '1' && p[i] <= '9') {
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    } else {
        return 0; /* no digit: "-", "-.5" */
    }
    if (i < n && p[i] == '.') {
        const size_t at = ++i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == at)
            return at - 1;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        const size_t at = i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        const size_t digits = i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == digits)
            return at;
    }
    return i;
}

static int check_request_text(const char *text, struct req_err *e)
{
    /* JSON text is UTF-8 (RFC 8259 section 8.1); cJSON copies any bytes through, so
     * "llama-2-7b\377" reached the catalog lookup and came back in the message as mojibake */
    size_t bad;
    if (!parse_utf8_valid(text, strlen(text), &bad))
        return req_fail(e, LLMROOF_API_EINPUT, "invalid UTF-8 at byte %zu (byte 0x%02x): a request is JSON text, "
                                               "which is UTF-8",
                        bad, (unsigned)(unsigned char)text[bad]);
    char kind[REQ_MAX_DEPTH + 1];           /* '{' or '[' of each open container, 1-based */
    const char *key[REQ_MAX_DEPTH + 1];     /* each open object's latest key (inside its quotes) */
    int key_len[REQ_MAX_DEPTH + 1];
    int depth = 0;
    bool want_key = false;                  /* the next string is an object's key */
    for (const char *p = text; *p; p++) {
        if (*p == '"') {
            const char *str = ++p;
            while (*p && *p != '"') {
                /* a lone UTF-16 surrogate escape ("\ud800" without its pair) is a character
                 * UTF-8 cannot carry: cJSON refused it as "invalid JSON at byte N", naming no field */
                if (p[0] == '\\' && p[1] == 'u' && lone_surrogate(p)) {
                    int d = depth;
                    while (d > 0 && kind[d] != '{')
                        d--;
                    if (want_key || d == 0 || !key[d])
                        return req_fail(e, LLMROOF_API_EINPUT, "a field name holds the escape %.6s at byte %zu, half "
                                                               "of a UTF-16 surrogate pair: no character UTF-8 carries",
                                        p, (size_t)(p - text));
                    return req_fail(e, LLMROOF_API_EINPUT, "field '%.*s': the escape %.6s at byte %zu is half of a "
                                                           "UTF-16 surrogate pair: no character UTF-8 carries",
                                    key_len[d], key[d], p, (size_t)(p - text));
                }
                if (p[0] == '\\' && p[1] == 'u' && hex4(p + 2) >= 0xD800 && hex4(p + 2) <= 0xDBFF) {
                    p += 12; /* a whole pair (lone_surrogate checked its low half) */
                    continue;
                }
                p += p[0] == '\\' && p[1] ? 2 : 1;
            }
            if (want_key) {
                key[depth] = str;
                key_len[depth] = (int)(p - str < 64 ? p - str : 64);
                want_key = false;
            }
            if (!*p)
                break;
        } else if (*p == '{' || *p == '[') {
            if (depth == REQ_MAX_DEPTH)
                return req_fail(e, LLMROOF_API_EINPUT, "JSON nested more than %d levels deep at byte %zu: a request "
                                                       "is one object of options, each a string, number, boolean or "
                                                       "list",
                                REQ_MAX_DEPTH, (size_t)(p - text));
            kind[++depth] = *p;
            key[depth] = NULL;
            key_len[depth] = 0;
            want_key = *p == '{';
        } else if (*p == '}' || *p == ']') {
            depth -= depth > 0;
            want_key = false;
        } else if (*p == ',') {
            want_key = depth > 0 && kind[depth] == '{';
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            /* a JSON number: [-] digits [. digits] [e [+-] digits]; strtod of just that text (in
             * the C locale of the call) */
            if (p[0] == '-' && p[1] == 'I')
                continue; /* "-Infinity": non_number_message names it (and "-.5", "-" fall to the
                             grammar below: "-.5" had passed to cJSON as -0.5, a review) */
            size_t n = strspn(p, "-+.eE0123456789");
            /* RFC 8259 section 6's grammar, which cJSON's strtod does not hold to: "01", "1." and
             * "8.e0" had run as 1, 1 and 8 (a review); a gateway's strict parser refuses them */
            const size_t good = json_number_len(p, n);
            if (good != n) {
                int d = depth;
                while (d > 0 && kind[d] != '{')
                    d--;
                return req_fail(e, LLMROOF_API_EINPUT, "field '%.*s': %.*s%s at byte %zu is not a JSON number "
                                                       "(RFC 8259: no leading zero, digits after a '.' and in an "
                                                       "exponent)",
                                d > 0 && key[d] ? key_len[d] : 1, d > 0 && key[d] ? key[d] : "?",
                                (int)(n < 40 ? n : 40), p, n > 40 ? "..." : "", (size_t)(p - text));
            }
            /* strtod on the text in place: it stops where the number does (a JSON number ends at
             * a delimiter), so a number of any length is read; the message quotes its first 40
             * characters */
            errno = 0;
            char *end;
            double v = strtod(p, &end);
            /* scans bounded by the number's own n characters: strcspn over the rest of the text
             * had made a body of many numbers quadratic */
            size_t digits_end = 0, first_nonzero = n;
            while (digits_end < n && p[digits_end] != 'e' && p[digits_end] != 'E')
                digits_end++;
            for (size_t i = 0; i < digits_end; i++)
                if (p[i] >= '1' && p[i] <= '9') {
                    first_nonzero = i;
                    break;
                }
            bool nonzero = first_nonzero < digits_end;
            /* the field a number sits in (a list's element: the list's field), for the messages */
            int d = depth;
            while (d > 0 && kind[d] != '{')
                d--;
            const int klen = d > 0 && key[d] ? key_len[d] : 1, shown = (int)(n < 40 ? n : 40);
            const char *k = d > 0 && key[d] ? key[d] : "?", *more = n > 40 ? "..." : "";
            const size_t at = (size_t)(p - text);
            if (end == p + n && (isinf(v) || (v == 0 && nonzero && errno == ERANGE)))
                return req_fail(e, LLMROOF_API_EINPUT, "field '%.*s': the number %.*s%s is out of range at byte %zu "
                                                       "(expected a magnitude %s)",
                                klen, k, shown, p, more, at, isinf(v) ? "up to 1.8e308" : "of at least 4.9e-324, or 0");
            /* from 2^53 in magnitude a double holds no whole number exactly: 9007199254740993 reads as
             * ...992, so a seed would run as another seed than asked (the CLI refuses from 2^53);
             * written out in digits (an exponent, "1e300", goes on to the option's own check) */
            if (end == p + n && digits_end >= n && isfinite(v) && fabs(v) >= 9007199254740992.0 &&
                !whole_digits_exact(p, n, v))
                return req_fail(e, LLMROOF_API_EINPUT, "field '%.*s': the number %.*s%s at byte %zu is 2^53 or "
                                                       "more in magnitude and not one a JSON number holds exactly "
                                                       "(it reads as %.0f)",
                                klen, k, shown, p, more, at, v);
            /* from 2^52 a double's neighbours are whole numbers or further apart: the fraction of
             * 4503599627370497.5 is lost (it read as ...498), so a count would run as another value
             * than written; a fraction of zeros (4503599627370496.0) is the whole number */
            const char *dot = memchr(p, '.', digits_end);
            bool fraction = false;
            for (const char *f = dot ? dot + 1 : p + digits_end; f < p + digits_end; f++)
                fraction |= *f >= '1' && *f <= '9';
            /* (written with an exponent, 1.7976931348623157e308, its digits after the point are not
             * a fraction: such a number goes on to the option's own check, as for 2^53) */
            if (end == p + n && digits_end >= n && fraction && isfinite(v) && fabs(v) >= 4503599627370496.0)
                return req_fail(e, LLMROOF_API_EINPUT, "field '%.*s': the number %.*s%s at byte %zu has a fraction "
                                                       "that a JSON number of 2^52 or more in magnitude does not "
                                                       "hold",
                                klen, k, shown, p, more, at);
            p += n - 1;
        }
    }
    return 0;
}

int api_check_numbers(const char *text, char *msg, size_t n)
{
    struct req_err e = { 0 };
    int rc = check_request_text(text, &e);
    if (rc)
        snprintf(msg, n, "%s", e.msg);
    return rc;
}

/* Request object -> argv {"llmroof", command, --options..., "--", args...}. */
static int build_argv(const char *request_json, struct argv_buf *a, struct req_err *e)
{
    if (!request_json)
        return req_fail(e, LLMROOF_API_EINPUT, "no request (NULL)");
    int bad = check_request_text(request_json, e);
    if (bad)
        return bad;
    char *text = api_map_nul_escapes(request_json);
    if (!text)
        return req_fail(e, LLMROOF_API_EFAIL, "out of memory");
    const char *end = NULL;
    cJSON *req = cJSON_ParseWithOpts(text, &end, 1);
    if (!req) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        /* a whole document followed by more text: said as the server says it (a review found
         * only "invalid JSON at byte 57" here) */
        const char *doc_end = NULL;
        cJSON *doc = cJSON_ParseWithOpts(text, &doc_end, 0);
        if (doc && doc_end) {
            while (*doc_end == ' ' || *doc_end == '\t' || *doc_end == '\r' || *doc_end == '\n')
                doc_end++;
            req_fail(e, LLMROOF_API_EINPUT, "invalid JSON at byte %zu: text after the JSON object",
                     (size_t)(doc_end - text));
        } else {
            non_number_message(text, at, e);
        }
        cJSON_Delete(doc);
        free(text);
        return e->code;
    }
    /* a key given twice: cJSON keeps both, and which one counted depended on the field
     * ("args" twice ran the second list, "command" twice the first command, "batch": 2 beside
     * "batch": null the 2); the server refuses it too */
    size_t dup_at = 0;
    const int dup = parse_json_dup_key(text, strlen(text), &dup_at);
    free(text);
    if (dup) {
        cJSON_Delete(req);
        return dup < 0 ? req_fail(e, LLMROOF_API_EFAIL, "out of memory")
                       : req_fail(e, LLMROOF_API_EINPUT, "a key is given twice (byte %zu)", dup_at);
    }
    int rc = 0;
    if (!cJSON_IsObject(req)) {
        rc = req_fail(e, LLMROOF_API_EINPUT, "the request must be a JSON object");
        goto done;
    }
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(req, "command");
    if (!cJSON_IsString(cmd) || !*cmd->valuestring) {
        rc = req_fail(e, LLMROOF_API_EINPUT, "field 'command' must be a command name (estimate, memory, simulate, plan, ...)");
        goto done;
    }
    if ((rc = check_text("command", cmd->valuestring, e)))
        goto done;
    if (cmd->valuestring[0] == '-') { /* "--help", "-h", "--version": usage text, not an answer */
        rc = req_fail(e, LLMROOF_API_EINPUT, "field 'command' must be a command name (estimate, memory, simulate, "
                                             "plan, ...), not an option ('%s')", CLI_CLIP(cmd->valuestring));
        goto done;
    }
    /* "help" prints the command line's usage text: an API caller had been told that help takes
     * a command name, not the option '--format=json', which it never gave */
    if (!strcmp(cmd->valuestring, "help")) {
        rc = req_fail(e, LLMROOF_API_EINPUT, "field 'command': 'help' is the command line's usage text, not an "
                                             "answer to a request (docs/api.md lists the commands and their fields)");
        goto done;
    }
    argv_push(a, dup_str("llmroof"));
    argv_push(a, dup_str(cmd->valuestring));
    bool have_format = false;
    const cJSON *args = NULL;
    const cJSON *item;
    cJSON_ArrayForEach(item, req) {
        if (!strcmp(item->string, "command"))
            continue;
        if (!strcmp(item->string, "args")) {
            args = cJSON_IsNull(item) ? NULL : item; /* null: no positional argument, as null is no option */
            continue;
        }
        /* a format of false or null is no option (add_option): the default json stays, where it
         * had counted as given and the response was the table text */
        if (!strcmp(item->string, "format") && !cJSON_IsFalse(item) && !cJSON_IsNull(item))
            have_format = true;
        /* usage text is the command line's: a request gets JSON or an error (review of session 35) */
        if (!strcmp(item->string, "help") || !strcmp(item->string, "version")) {
            rc = req_fail(e, LLMROOF_API_EINPUT, "field '%s': usage and version text is the command line's "
                                                 "(llmroof COMMAND --help), not an answer to a request",
                          item->string);
            goto done;
        }
        if ((rc = add_option(a, item, e)))
            goto done;
    }
    /* sweep writes rows, not one document: its JSON is JSON Lines (a review: a request without a
     * format had failed with "json is not available for 'sweep'", a format the caller never named) */
    if (!have_format)
        argv_push(a, dup_str(strcmp(cmd->valuestring, "sweep") != 0 ? "--format=json" : "--format=jsonl"));
    /* positional arguments after "--", so that a file named "-x" stays a file */
    argv_push(a, dup_str("--"));
    if (args && cJSON_IsString(args)) {
        if ((rc = check_text("args", args->valuestring, e)))
            goto done;
        argv_push(a, dup_str(args->valuestring));
    } else if (args && cJSON_IsArray(args)) {
        const cJSON *el;
        cJSON_ArrayForEach(el, args) {
            if (!cJSON_IsString(el)) {
                rc = req_fail(e, LLMROOF_API_EINPUT, "field 'args' must be a list of strings");
                goto done;
            }
            if ((rc = check_text("args", el->valuestring, e)))
                goto done;
            argv_push(a, dup_str(el->valuestring));
        }
    } else if (args) {
        rc = req_fail(e, LLMROOF_API_EINPUT, "field 'args' must be a string or a list of strings");
        goto done;
    }
    if (a->failed)
        rc = req_fail(e, LLMROOF_API_EFAIL, "out of memory");
done:
    cJSON_Delete(req);
    return rc;
}

/* Hands a memory stream's text to the caller: NULL when empty. */
static char *take_text(char *buf, size_t len)
{
    if (buf && len == 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void set_out(char **dst, char *text)
{
    if (dst)
        *dst = text;
    else
        free(text);
}

/* ------------------------------------------------------------------------ */
/* The C locale for the length of a call                                    */
/* ------------------------------------------------------------------------ */

/* The command code parses and prints numbers with strtod and printf, which follow the
 * calling thread's LC_NUMERIC: in a host program that called setlocale(LC_ALL, "") under
 * de_DE (Python's locale.setlocale does), a table would print "0,77" and "0.85" would read as
 * 0. The CLI never sets a locale; a library call cannot set the process's (setlocale is
 * process-wide and not thread-safe), so each call runs under a per-thread C locale (POSIX
 * 2008 uselocale) and gives the caller's back afterwards: reentrant, and calls in other
 * threads keep theirs. */
struct c_locale {
    locale_t c;    /* the C locale in force in this thread during the call */
    locale_t prev; /* the thread's locale before it (maybe LC_GLOBAL_LOCALE), restored after */
};

/* 0, or -1 when the C locale cannot be made (out of memory): then the call must not run, or
 * its numbers would follow the caller's locale. */
static int c_locale_enter(struct c_locale *l)
{
    l->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    if (!l->c)
        return -1;
    l->prev = uselocale(l->c);
    if (!l->prev) {
        freelocale(l->c);
        return -1;
    }
    return 0;
}

static void c_locale_leave(struct c_locale *l)
{
    uselocale(l->prev);
    freelocale(l->c);
}

/* Runs argv with the given catalog (NULL: the command loads its own, as the CLI does) and its
 * stdout and stderr caught in memory. */
static int run_captured(const char *data_dir, const struct llmroof_catalog *cat, struct argv_buf *a,
                        char **response_json, char **error_msg, unsigned flags, struct llmroof_stop stop)
{
    char *obuf = NULL, *ebuf = NULL;
    size_t olen = 0, elen = 0;
    FILE *of = open_memstream(&obuf, &olen);
    FILE *ef = open_memstream(&ebuf, &elen);
    if (!of || !ef) {
        if (of)
            fclose(of);
        if (ef)
            fclose(ef);
        free(obuf);
        free(ebuf);
        set_out(error_msg, dup_str("llmroof: error: out of memory\n"));
        return LLMROOF_API_EFAIL;
    }
    /* no standard input: the host program's is not the request's, so an input '-' is refused */
    const struct cli_io io = { of, ef, data_dir, cat, stop, NULL };
    int rc = cli_run(&io, a->n, a->v, flags | CLI_REQUEST);
    int c1 = fclose(of), c2 = fclose(ef);
    if ((c1 || c2) && rc == 0) {
        free(ebuf);
        ebuf = dup_str("llmroof: error: out of memory while collecting output\n");
        elen = ebuf ? strlen(ebuf) : 0;
        rc = LLMROOF_API_EFAIL;
    }
    if (rc == LLMROOF_API_ESTOPPED) { /* a stopped command's partial output (sweep's rows) is no answer */
        free(obuf);
        obuf = NULL;
        olen = 0;
    }
    if (rc != LLMROOF_API_OK && elen == 0) {
        /* every refusal and failure says why; a command that stopped without a word ran out of
         * memory (a render's NULL, rj_add.h): said, so a caller never gets a bare status 1 */
        free(ebuf);
        ebuf = dup_str("llmroof: error: out of memory (the command stopped without its answer)\n");
        elen = ebuf ? strlen(ebuf) : 0;
    }
    set_out(response_json, take_text(obuf, olen));
    set_out(error_msg, take_text(ebuf, elen));
    return rc;
}

/* The catalog installed beside this library (<prefix>/lib[/<arch>]/libllmroof.so ->
 * <prefix>/share/llmroof), unless $LLMROOF_DATA names one: an installed library finds its own
 * catalog wherever the prefix was chosen at install time. NULL: the CLI's search decides. */
static const char *default_data_dir(char *buf, size_t n)
{
    const char *env = getenv("LLMROOF_DATA");
    if (env && *env)
        return NULL;
    static const char *const rel[] = { "/../share/llmroof", "/../../share/llmroof" };
    Dl_info info; /* any address inside this library will do: rel's */
    if (!dladdr((const void *)rel, &info) || !info.dli_fname || !strchr(info.dli_fname, '/'))
        return NULL;
    char lib[PATH_MAX];
    snprintf(lib, sizeof lib, "%s", info.dli_fname);
    *strrchr(lib, '/') = '\0';
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        struct stat st;
        char probe[PATH_MAX + 64];
        snprintf(buf, n, "%s%s", lib, rel[i]);
        snprintf(probe, sizeof probe, "%s/models.json", buf);
        if (stat(probe, &st) == 0 && S_ISREG(st.st_mode)) {
            snprintf(probe, sizeof probe, "%s/gpus.json", buf);
            if (stat(probe, &st) == 0 && S_ISREG(st.st_mode))
                return buf;
        }
    }
    return NULL;
}

const char *llmroof_version(void)
{
    return LLMROOF_VERSION;
}

static llmroof_ctx *ctx_new(const char *data_dir, char **error_msg);

llmroof_ctx *llmroof_ctx_new(const char *data_dir, char **error_msg)
{
    if (error_msg)
        *error_msg = NULL;
    struct c_locale loc;
    if (c_locale_enter(&loc)) {
        set_out(error_msg, dup_str("llmroof: error: out of memory (the C locale)\n"));
        return NULL;
    }
    llmroof_ctx *ctx = ctx_new(data_dir, error_msg);
    c_locale_leave(&loc);
    return ctx;
}

/* llmroof_ctx_new's work, under the C locale. */
static llmroof_ctx *ctx_new(const char *data_dir, char **error_msg)
{
    llmroof_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        set_out(error_msg, dup_str("llmroof: error: out of memory\n"));
        return NULL;
    }
    char *ebuf = NULL;
    size_t elen = 0;
    FILE *ef = open_memstream(&ebuf, &elen);
    if (!ef) {
        free(ctx);
        set_out(error_msg, dup_str("llmroof: error: out of memory\n"));
        return NULL;
    }
    char def[PATH_MAX];
    const struct cli_io io = { NULL, ef, data_dir ? data_dir : default_data_dir(def, sizeof def), NULL,
                               { NULL, NULL }, NULL };
    int rc = cli_load_catalog(&io, &ctx->cat, ctx->data_dir, sizeof ctx->data_dir);
    fclose(ef);
    if (rc) {
        free(ctx);
        set_out(error_msg, take_text(ebuf, elen));
        return NULL;
    }
    free(ebuf);
    return ctx;
}

void llmroof_ctx_free(llmroof_ctx *ctx)
{
    if (!ctx)
        return;
    catalog_free(&ctx->cat);
    free(ctx);
}

int llmroof_ctx_call(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg)
{
    return api_ctx_call_stop(ctx, request_json, response_json, error_msg, 0, NULL, NULL);
}

int llmroof_ctx_call_stoppable(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                               int (*stop)(void *stop_arg), void *stop_arg)
{
    return api_ctx_call_stop(ctx, request_json, response_json, error_msg, 0, stop, stop_arg);
}

size_t api_ctx_gpu_count(const llmroof_ctx *ctx)
{
    return ctx->cat.n_gpus;
}

int llmroof_stop_when_readable(void *stop_arg)
{
    if (!stop_arg)
        return 0;
    struct pollfd p = { *(const int *)stop_arg, POLLIN, 0 };
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}

int api_ctx_call_flags(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                       unsigned flags)
{
    return api_ctx_call_stop(ctx, request_json, response_json, error_msg, flags, NULL, NULL);
}

int api_ctx_call_stop(llmroof_ctx *ctx, const char *request_json, char **response_json, char **error_msg,
                      unsigned flags, int (*stop)(void *stop_arg), void *stop_arg)
{
    if (response_json)
        *response_json = NULL;
    if (error_msg)
        *error_msg = NULL;
    if (!ctx) {
        set_out(error_msg, dup_str("llmroof: error: request: no context (NULL)\n"));
        return LLMROOF_API_EINPUT;
    }
    struct c_locale loc; /* from the request's numbers (fmt_number) to the response's */
    if (c_locale_enter(&loc)) {
        set_out(error_msg, dup_str("llmroof: error: out of memory (the C locale)\n"));
        return LLMROOF_API_EFAIL;
    }
    struct argv_buf a = { 0 };
    struct req_err e = { 0 };
    int rc = build_argv(request_json, &a, &e);
    if (rc)
        set_out(error_msg, dup_str(e.msg));
    else
        rc = run_captured(ctx->data_dir, &ctx->cat, &a, response_json, error_msg, flags,
                          (struct llmroof_stop){ stop, stop_arg });
    argv_free(&a);
    c_locale_leave(&loc);
    return rc;
}

int llmroof_call(const char *request_json, char **response_json, char **error_msg)
{
    if (response_json)
        *response_json = NULL;
    if (error_msg)
        *error_msg = NULL;
    struct c_locale loc; /* as api_ctx_call_stop */
    if (c_locale_enter(&loc)) {
        set_out(error_msg, dup_str("llmroof: error: out of memory (the C locale)\n"));
        return LLMROOF_API_EFAIL;
    }
    struct argv_buf a = { 0 };
    struct req_err e = { 0 };
    int rc = build_argv(request_json, &a, &e);
    char def[PATH_MAX];
    if (!rc)
        rc = run_captured(default_data_dir(def, sizeof def), NULL, &a, response_json, error_msg, 0,
                          (struct llmroof_stop){ NULL, NULL }); /* one CLI run */
    else
        set_out(error_msg, dup_str(e.msg));
    argv_free(&a);
    c_locale_leave(&loc);
    return rc;
}

void llmroof_free(void *p)
{
    free(p);
}
