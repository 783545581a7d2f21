/* catalog.c - load and validate the GPU and model catalogs (see llmroof/catalog.h).
 *
 * Every entry is checked field by field; a message names file, line:column of the
 * offending field where it can be found, the entry id and the field. Unknown
 * fields are errors so that a typo ("memory_bandwith_Bps") never passes silently.
 * Schema and units: docs/catalog.md. */
#include "llmroof/catalog.h"

#include "llmroof/parse.h"

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

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

const char *link_name(enum llmroof_link k)
{
    switch (k) {
    case LLMROOF_LINK_NVLINK: return "nvlink";
    case LLMROOF_LINK_PCIE: return "pcie";
    case LLMROOF_LINK_XGMI: return "xgmi";
    }
    return "?";
}

void catalog_init(struct llmroof_catalog *cat)
{
    memset(cat, 0, sizeof *cat);
}

void catalog_free(struct llmroof_catalog *cat)
{
    free(cat->gpus);
    free(cat->models);
    free(cat->engines);
    catalog_init(cat);
}

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

static void linecol(const char *text, size_t off, int *line, int *col)
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
static size_t find_key(const char *text, size_t len, size_t from, const char *key)
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
static size_t find_entry(const char *text, size_t len, const char *id)
{
    size_t from = 0;
    size_t idlen = strlen(id);
    for (;;) {
        size_t k = find_key(text, len, from, "id");
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

/* Parsing context of one entry. */
struct ectx {
    const char *fname;   /* file name for messages */
    const char *text;    /* whole file text */
    size_t len;
    const char *kind;    /* "gpus" or "models" */
    int index;           /* entry index in the array */
    char id[LLMROOF_ID_MAX]; /* entry id once known */
    struct llmroof_err *err;
};

/* Reports an error at `field` of the current entry ("interconnect.kind"). */
static int ferr(struct ectx *c, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int ferr(struct ectx *c, const char *field, const char *fmt, ...)
{
    char what[320];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);

    size_t at = SIZE_MAX;
    if (c->id[0] && c->text) {
        at = find_entry(c->text, c->len, c->id);
        if (at != SIZE_MAX && field) {
            const char *leaf = strrchr(field, '.');
            leaf = leaf ? leaf + 1 : field;
            size_t f = find_key(c->text, c->len, at, leaf);
            /* stay inside this entry: the next "id" key starts another one */
            size_t next = find_key(c->text, c->len, at + 1, "id");
            if (f != SIZE_MAX && (next == SIZE_MAX || f < next))
                at = f;
        }
    }
    char loc[160];
    if (at != SIZE_MAX) {
        int line, col;
        linecol(c->text, at, &line, &col);
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
static int check_known(struct ectx *c, const cJSON *obj, const char *prefix, const char *const *allowed)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        bool ok = false;
        for (const char *const *a = allowed; *a; a++)
            if (it->string && strcmp(it->string, *a) == 0)
                ok = true;
        if (!ok) {
            char f[128];
            snprintf(f, sizeof f, "%s%s", prefix, it->string ? it->string : "?");
            return ferr(c, f, "is not a known field (allowed: see docs/catalog.md)");
        }
    }
    return LLMROOF_OK;
}

static int get_string(struct ectx *c, const cJSON *obj, const char *key, bool required,
                      char *out, size_t cap)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required)
            return ferr(c, key, "is missing (a string is required)");
        out[0] = '\0';
        return LLMROOF_OK;
    }
    if (!cJSON_IsString(v) || !v->valuestring)
        return ferr(c, key, "must be a string");
    if (required && v->valuestring[0] == '\0')
        return ferr(c, key, "must not be empty");
    if (strlen(v->valuestring) >= cap)
        return ferr(c, key, "is longer than %zu characters", cap - 1);
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1); /* length checked above */
    return LLMROOF_OK;
}

/* A finite number in [lo, hi]; lo_open makes the lower bound exclusive. */
static int get_number(struct ectx *c, const cJSON *obj, const char *key, const char *field,
                      bool required, double lo, bool lo_open, double hi, double *out, bool *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return ferr(c, field, "is missing (a number is required)");
        return LLMROOF_OK;
    }
    if (!cJSON_IsNumber(v))
        return ferr(c, field, "must be a number");
    double x = v->valuedouble;
    if (!isfinite(x) || (lo_open ? x <= lo : x < lo) || x > hi)
        return ferr(c, field, "must be a number %s %g and at most %g (got %g)",
                    lo_open ? "above" : "of at least", lo, hi, x);
    *out = x;
    return LLMROOF_OK;
}

static int get_long(struct ectx *c, const cJSON *obj, const char *key, bool required,
                    long lo, long hi, long *out, bool *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (present)
        *present = v != NULL;
    if (!v) {
        if (required)
            return ferr(c, key, "is missing (an integer is required)");
        return LLMROOF_OK;
    }
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble != floor(v->valuedouble))
        return ferr(c, key, "must be an integer");
    if (v->valuedouble < (double)lo || v->valuedouble > (double)hi)
        return ferr(c, key, "must be an integer in [%ld, %ld] (got %.0f)", lo, hi, v->valuedouble);
    *out = (long)v->valuedouble;
    return LLMROOF_OK;
}

static int get_bool(struct ectx *c, const cJSON *obj, const char *key, bool required, bool *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!v) {
        if (required)
            return ferr(c, key, "is missing (true or false is required)");
        return LLMROOF_OK;
    }
    if (!cJSON_IsBool(v))
        return ferr(c, key, "must be true or false");
    *out = cJSON_IsTrue(v);
    return LLMROOF_OK;
}

static bool valid_id(const char *s)
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
        linecol(text, bad, &line, &col);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: not valid UTF-8 (byte 0x%02x)", fname, line, col,
                               (unsigned char)text[bad]);
    }
    if ((bad = parse_json_too_deep(text, len, JSON_MAX_DEPTH)) != SIZE_MAX) {
        linecol(text, bad, &line, &col);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: JSON nested deeper than %d levels", fname, line, col,
                               JSON_MAX_DEPTH);
    }
    return LLMROOF_OK;
}

/* Every JSON document of the catalog goes through here: check_text, then cJSON, then
 * nothing but whitespace may follow the value (cJSON alone would ignore trailing text,
 * so '{"gpus": []} garbage' would load). NULL after setting err. */
static cJSON *parse_json(const char *text, size_t len, const char *fname, struct llmroof_err *err)
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
        linecol(text, off, &line, &col);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: malformed JSON", fname, line, col);
        return NULL;
    }
    while (off < len && (text[off] == ' ' || text[off] == '\t' || text[off] == '\r' || text[off] == '\n'))
        off++;
    if (off < len) {
        cJSON_Delete(doc);
        linecol(text, off, &line, &col);
        llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: unexpected text after the JSON document", fname, line, col);
        return NULL;
    }
    return doc;
}

static int parse_doc(const char *text, size_t len, const char *fname, const char *key,
                     cJSON **doc, const cJSON **arr, struct llmroof_err *err)
{
    if (!(*doc = parse_json(text, len, fname, err)))
        return LLMROOF_EINPUT;
    if (!cJSON_IsObject(*doc)) {
        cJSON_Delete(*doc);
        *doc = NULL;
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a JSON object with a '%s' array", fname, key);
        return LLMROOF_EINPUT;
    }
    for (const cJSON *it = (*doc)->child; it; it = it->next) {
        if (!it->string || strcmp(it->string, key) != 0) {
            const char *bad = it->string ? it->string : "?";
            size_t at = find_key(text, len, 0, bad);
            int line = 1, col = 1;
            if (at != SIZE_MAX)
                linecol(text, at, &line, &col);
            llmroof_err_set(err, LLMROOF_EINPUT, "%s:%d:%d: top-level field '%s' is not known (expected only '%s')",
                            fname, line, col, bad, key);
            cJSON_Delete(*doc);
            *doc = NULL;
            return LLMROOF_EINPUT;
        }
    }
    *arr = cJSON_GetObjectItemCaseSensitive(*doc, key);
    if (!*arr || !cJSON_IsArray(*arr)) { /* explicit NULL test: success always returns an array */
        cJSON_Delete(*doc);
        *doc = NULL;
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be an array of entries", fname, key);
        return LLMROOF_EINPUT;
    }
    return LLMROOF_OK;
}

/* ------------------------------------------------------------------------ */
/* GPUs                                                                     */
/* ------------------------------------------------------------------------ */

static int parse_gpu(struct ectx *c, const cJSON *e, struct llmroof_gpu *g)
{
    static const char *const fields[] = {
        "id", "name", "aliases", "memory_bytes", "memory_bandwidth_Bps", "peak_flops",
        "interconnect", "efficiency", "step_overhead_s", "gpus_per_node", "source", NULL
    };
    static const char *const ic_fields[] = { "kind", "bandwidth_Bps", "latency_s", "hop_latency_s", NULL };
    static const char *const eff_fields[] = { "compute", "memory", "comm", NULL };
    int rc;

    memset(g, 0, sizeof *g);
    if (!cJSON_IsObject(e))
        return ferr(c, NULL, "entry must be a JSON object");
    if ((rc = get_string(c, e, "id", true, g->id, sizeof g->id)))
        return rc;
    snprintf(c->id, sizeof c->id, "%s", g->id);
    if (!valid_id(g->id))
        return ferr(c, "id", "must use only lowercase letters, digits, '-', '.' and '_'");
    if ((rc = check_known(c, e, "", fields)))
        return rc;
    if ((rc = get_string(c, e, "name", true, g->name, sizeof g->name)) ||
        (rc = get_string(c, e, "source", true, g->source, sizeof g->source)))
        return rc;

    const cJSON *al = cJSON_GetObjectItemCaseSensitive(e, "aliases");
    if (al) {
        if (!cJSON_IsArray(al))
            return ferr(c, "aliases", "must be an array of strings");
        for (const cJSON *a = al->child; a; a = a->next) {
            if (!cJSON_IsString(a) || !a->valuestring || !a->valuestring[0])
                return ferr(c, "aliases", "must be an array of non-empty strings");
            if (g->n_aliases == LLMROOF_ALIASES_MAX)
                return ferr(c, "aliases", "has more than %d entries", LLMROOF_ALIASES_MAX);
            if (strlen(a->valuestring) >= LLMROOF_ID_MAX)
                return ferr(c, "aliases", "entry '%s' is too long", a->valuestring);
            memcpy(g->aliases[g->n_aliases++], a->valuestring, strlen(a->valuestring) + 1);
        }
    }

    /* Bounds reject absurd figures: no device has 10 TB of memory, 100 TB/s or 1e17 FLOP/s. */
    if ((rc = get_number(c, e, "memory_bytes", "memory_bytes", true, 0, true, 1e13, &g->memory_bytes, NULL)) ||
        (rc = get_number(c, e, "memory_bandwidth_Bps", "memory_bandwidth_Bps", true, 0, true, 1e14,
                         &g->mem_bw_Bps, NULL)))
        return rc;

    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(e, "peak_flops");
    if (!pf)
        return ferr(c, "peak_flops", "is missing (an object of dtype: FLOP/s is required)");
    if (!cJSON_IsObject(pf))
        return ferr(c, "peak_flops", "must be an object mapping dtype names to dense FLOP/s");
    for (const cJSON *it = pf->child; it; it = it->next) {
        enum llmroof_dtype d;
        char f[96];
        snprintf(f, sizeof f, "peak_flops.%s", it->string ? it->string : "?");
        if (!it->string || !dtype_parse(it->string, &d) || strcmp(it->string, dtype_name(d)) != 0)
            return ferr(c, f, "is not a dtype (fp32, tf32, fp16, bf16, fp8, int8, int4)");
        if ((rc = get_number(c, pf, it->string, f, true, 0, true, 1e17, &g->peak_flops[d], NULL)))
            return rc;
        g->has_peak[d] = true;
    }
    if (!g->has_peak[LLMROOF_FP16] && !g->has_peak[LLMROOF_BF16] && !g->has_peak[LLMROOF_FP32])
        return ferr(c, "peak_flops", "must give at least one of fp32, fp16 or bf16");

    const cJSON *ic = cJSON_GetObjectItemCaseSensitive(e, "interconnect");
    if (!ic)
        return ferr(c, "interconnect", "is missing (an object is required)");
    if (!cJSON_IsObject(ic))
        return ferr(c, "interconnect", "must be an object");
    if ((rc = check_known(c, ic, "interconnect.", ic_fields)))
        return rc;
    char kind[16];
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(ic, "kind");
    if (!k || !cJSON_IsString(k) || !k->valuestring)
        return ferr(c, "interconnect.kind", "must be one of \"nvlink\", \"pcie\", \"xgmi\"");
    snprintf(kind, sizeof kind, "%s", k->valuestring);
    if (strcmp(kind, "nvlink") == 0)
        g->link = LLMROOF_LINK_NVLINK;
    else if (strcmp(kind, "pcie") == 0)
        g->link = LLMROOF_LINK_PCIE;
    else if (strcmp(kind, "xgmi") == 0)
        g->link = LLMROOF_LINK_XGMI;
    else
        return ferr(c, "interconnect.kind", "must be one of \"nvlink\", \"pcie\", \"xgmi\" (got \"%s\")", kind);
    if ((rc = get_number(c, ic, "bandwidth_Bps", "interconnect.bandwidth_Bps", true, 0, true, 1e13,
                         &g->link_bw_Bps, NULL)) ||
        (rc = get_number(c, ic, "latency_s", "interconnect.latency_s", true, 0, false, 1e-2,
                         &g->link_latency_s, NULL)) ||
        (rc = get_number(c, ic, "hop_latency_s", "interconnect.hop_latency_s", true, 0, false, 1e-2,
                         &g->link_hop_latency_s, NULL)))
        return rc;

    const cJSON *ef = cJSON_GetObjectItemCaseSensitive(e, "efficiency");
    if (!ef)
        return ferr(c, "efficiency", "is missing (an object with compute, memory, comm is required)");
    if (!cJSON_IsObject(ef))
        return ferr(c, "efficiency", "must be an object");
    if ((rc = check_known(c, ef, "efficiency.", eff_fields)) ||
        (rc = get_number(c, ef, "compute", "efficiency.compute", true, 0, true, 1, &g->compute_eff, NULL)) ||
        (rc = get_number(c, ef, "memory", "efficiency.memory", true, 0, true, 1, &g->memory_eff, NULL)) ||
        (rc = get_number(c, ef, "comm", "efficiency.comm", true, 0, true, 1, &g->comm_eff, NULL)))
        return rc;
    if ((rc = get_number(c, e, "step_overhead_s", "step_overhead_s", true, 0, false, 1, &g->step_overhead_s, NULL)))
        return rc;
    long gpn = 0;
    if ((rc = get_long(c, e, "gpus_per_node", true, 1, 1024, &gpn, NULL)))
        return rc;
    g->gpus_per_node = (int)gpn;
    return LLMROOF_OK;
}

/* Does `name` (case-insensitive) name gpu g by id or alias? */
static bool gpu_named(const struct llmroof_gpu *g, const char *name)
{
    if (strcasecmp(g->id, name) == 0)
        return true;
    for (int i = 0; i < g->n_aliases; i++)
        if (strcasecmp(g->aliases[i], name) == 0)
            return true;
    return false;
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *p = realloc(*arr, n * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = n;
    return true;
}

int catalog_add_gpus_text(struct llmroof_catalog *cat, const char *text, size_t len,
                          const char *fname, bool replace, struct llmroof_err *err)
{
    cJSON *doc = NULL;
    const cJSON *arr = NULL;
    int rc = parse_doc(text, len, fname, "gpus", &doc, &arr, err);
    if (rc)
        return rc;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    struct llmroof_gpu *tmp = calloc(n ? n : 1, sizeof *tmp);
    if (!tmp) {
        cJSON_Delete(doc);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    }
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        struct ectx c = { fname, text, len, "gpus", (int)i, "", err };
        if ((rc = parse_gpu(&c, e, &tmp[i])))
            goto out;
        /* duplicates within this file: ids and aliases share one namespace */
        for (size_t j = 0; j < i; j++) {
            if (gpu_named(&tmp[j], tmp[i].id)) {
                rc = ferr(&c, "id", "duplicates the id or alias of entry '%s' in this file", tmp[j].id);
                goto out;
            }
            for (int a = 0; a < tmp[i].n_aliases; a++)
                if (gpu_named(&tmp[j], tmp[i].aliases[a])) {
                    rc = ferr(&c, "aliases", "'%s' is already used by '%s'", tmp[i].aliases[a], tmp[j].id);
                    goto out;
                }
        }
        for (int a = 0; a < tmp[i].n_aliases; a++)
            for (int b = 0; b < a; b++)
                if (strcasecmp(tmp[i].aliases[a], tmp[i].aliases[b]) == 0) {
                    rc = ferr(&c, "aliases", "lists '%s' twice", tmp[i].aliases[a]);
                    goto out;
                }
        /* against the catalog already loaded */
        for (size_t j = 0; j < cat->n_gpus; j++) {
            const struct llmroof_gpu *o = &cat->gpus[j];
            bool same_id = strcmp(o->id, tmp[i].id) == 0;
            if (same_id && !replace) {
                rc = ferr(&c, "id", "duplicates an entry already in the catalog");
                goto out;
            }
            if (same_id)
                continue; /* will be replaced: its names are released */
            if (gpu_named(o, tmp[i].id)) {
                rc = ferr(&c, "id", "is already an alias of '%s'", o->id);
                goto out;
            }
            for (int a = 0; a < tmp[i].n_aliases; a++)
                if (gpu_named(o, tmp[i].aliases[a])) {
                    rc = ferr(&c, "aliases", "'%s' is already used by '%s'", tmp[i].aliases[a], o->id);
                    goto out;
                }
        }
    }
    for (i = 0; i < n; i++) {
        size_t j;
        for (j = 0; j < cat->n_gpus; j++)
            if (strcmp(cat->gpus[j].id, tmp[i].id) == 0)
                break;
        if (j == cat->n_gpus) {
            if (!grow((void **)&cat->gpus, &cat->cap_gpus, cat->n_gpus + 1, sizeof *cat->gpus)) {
                rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
                goto out;
            }
            cat->n_gpus++;
        }
        cat->gpus[j] = tmp[i];
    }
out:
    free(tmp);
    cJSON_Delete(doc);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Models                                                                   */
/* ------------------------------------------------------------------------ */

int catalog_check_model(const struct llmroof_model *m, const char *where, struct llmroof_err *err)
{
#define BAD(...) llmroof_err_set(err, LLMROOF_EINPUT, __VA_ARGS__)
    if (m->kv_heads > m->heads)
        return BAD("%s: '%s': num_kv_heads (%ld) must not exceed num_heads (%ld)", where, m->id, m->kv_heads, m->heads);
    if (m->heads % m->kv_heads != 0)
        return BAD("%s: '%s': num_heads (%ld) must be divisible by num_kv_heads (%ld)", where, m->id, m->heads, m->kv_heads);
    if (m->moe_experts > 0) {
        if (m->moe_top_k < 1 || m->moe_top_k > m->moe_experts)
            return BAD("%s: '%s': moe.experts_per_token (%ld) must be between 1 and moe.experts (%ld)", where,
                       m->id, m->moe_top_k, m->moe_experts);
        if (m->moe_intermediate < 1)
            return BAD("%s: '%s': moe.expert_intermediate_size must be positive", where, m->id);
    }
    return LLMROOF_OK;
#undef BAD
}

static int parse_model(struct ectx *c, const cJSON *e, struct llmroof_model *m)
{
    static const char *const fields[] = {
        "id", "name", "hf_id", "hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
        "intermediate_size", "vocab_size", "max_context", "learned_pos", "tie_embeddings", "mlp", "norm",
        "qkv_bias", "o_bias", "mlp_bias", "parallel_attn", "moe", "params_published", "source", NULL
    };
    static const char *const moe_fields[] = {
        "experts", "experts_per_token", "expert_intermediate_size", "shared_experts", NULL
    };
    int rc;
    bool present;

    memset(m, 0, sizeof *m);
    if (!cJSON_IsObject(e))
        return ferr(c, NULL, "entry must be a JSON object");
    if ((rc = get_string(c, e, "id", true, m->id, sizeof m->id)))
        return rc;
    snprintf(c->id, sizeof c->id, "%s", m->id);
    if (!valid_id(m->id))
        return ferr(c, "id", "must use only lowercase letters, digits, '-', '.' and '_'");
    if ((rc = check_known(c, e, "", fields)) ||
        (rc = get_string(c, e, "name", true, m->name, sizeof m->name)) ||
        (rc = get_string(c, e, "hf_id", false, m->hf_id, sizeof m->hf_id)) ||
        (rc = get_string(c, e, "source", true, m->source, sizeof m->source)))
        return rc;
    /* Bounds are far beyond any published model but catch unit slips and garbage. */
    if ((rc = get_long(c, e, "hidden_size", true, 1, 1048576, &m->hidden, NULL)) ||
        (rc = get_long(c, e, "num_layers", true, 1, 10000, &m->layers, NULL)) ||
        (rc = get_long(c, e, "num_heads", true, 1, 65536, &m->heads, NULL)) ||
        (rc = get_long(c, e, "num_kv_heads", true, 1, 65536, &m->kv_heads, NULL)) ||
        (rc = get_long(c, e, "head_dim", false, 1, 65536, &m->head_dim, &present)) ||
        (rc = get_long(c, e, "intermediate_size", true, 1, 16777216, &m->intermediate, NULL)) ||
        (rc = get_long(c, e, "vocab_size", true, 1, 100000000, &m->vocab, NULL)) ||
        (rc = get_long(c, e, "max_context", true, 1, 1000000000, &m->max_context, NULL)) ||
        (rc = get_long(c, e, "learned_pos", false, 0, 1000000000, &m->learned_pos, NULL)))
        return rc;
    if (!present) {
        if (m->hidden % m->heads != 0)
            return ferr(c, "head_dim", "is missing and hidden_size (%ld) is not divisible by num_heads (%ld)",
                        m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if (m->kv_heads > m->heads)
        return ferr(c, "num_kv_heads", "must not exceed num_heads (%ld)", m->heads);
    if (m->heads % m->kv_heads != 0)
        return ferr(c, "num_kv_heads", "must divide num_heads (%ld heads, %ld KV heads)", m->heads, m->kv_heads);
    if ((rc = get_bool(c, e, "tie_embeddings", true, &m->tied_embeddings)) ||
        (rc = get_bool(c, e, "qkv_bias", false, &m->qkv_bias)) ||
        (rc = get_bool(c, e, "o_bias", false, &m->o_bias)) ||
        (rc = get_bool(c, e, "mlp_bias", false, &m->mlp_bias)) ||
        (rc = get_bool(c, e, "parallel_attn", false, &m->parallel_attn)))
        return rc;

    char s[32];
    if ((rc = get_string(c, e, "mlp", true, s, sizeof s)))
        return rc;
    if (strcmp(s, "gated") == 0)
        m->mlp = LLMROOF_MLP_GATED;
    else if (strcmp(s, "plain") == 0)
        m->mlp = LLMROOF_MLP_PLAIN;
    else
        return ferr(c, "mlp", "must be \"gated\" (3 matrices) or \"plain\" (2 matrices), got \"%s\"", s);
    if ((rc = get_string(c, e, "norm", true, s, sizeof s)))
        return rc;
    if (strcmp(s, "rmsnorm") == 0)
        m->norm = LLMROOF_NORM_RMS;
    else if (strcmp(s, "layernorm") == 0)
        m->norm = LLMROOF_NORM_LAYER;
    else
        return ferr(c, "norm", "must be \"rmsnorm\" or \"layernorm\", got \"%s\"", s);

    const cJSON *moe = cJSON_GetObjectItemCaseSensitive(e, "moe");
    if (moe) {
        if (!cJSON_IsObject(moe))
            return ferr(c, "moe", "must be an object");
        if ((rc = check_known(c, moe, "moe.", moe_fields)) ||
            (rc = get_long(c, moe, "experts", true, 1, 65536, &m->moe_experts, NULL)) ||
            (rc = get_long(c, moe, "experts_per_token", true, 1, 65536, &m->moe_top_k, NULL)) ||
            (rc = get_long(c, moe, "expert_intermediate_size", true, 1, 16777216, &m->moe_intermediate, NULL)) ||
            (rc = get_long(c, moe, "shared_experts", false, 0, 65536, &m->moe_shared, NULL)))
            return rc;
        if (m->moe_top_k > m->moe_experts)
            return ferr(c, "moe.experts_per_token", "must not exceed moe.experts (%ld)", m->moe_experts);
    }
    if ((rc = get_number(c, e, "params_published", "params_published", false, 0, true, 1e14,
                         &m->params_published, &m->has_params_published)))
        return rc;
    return LLMROOF_OK;
}

/* Models and engines load by one rule (GPUs add aliases, above): every entry parses and
 * no id repeats within the file, nor - unless `replace` - in the catalog, before anything
 * is added; an entry whose id is already loaded replaces it. */
struct plain_kind {
    const char *key;                                          /* top-level array: "models" */
    size_t size;                                              /* bytes of one entry */
    size_t id_offset;                                         /* offsetof(entry, id) */
    int (*parse)(struct ectx *c, const cJSON *e, void *out);  /* fills one entry */
};

static const char *entry_id(const struct plain_kind *k, const void *base, size_t i)
{
    return (const char *)base + i * k->size + k->id_offset;
}

static int add_plain(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap, const char *text,
                     size_t len, const char *fname, bool replace, struct llmroof_err *err)
{
    cJSON *doc = NULL;
    const cJSON *arr = NULL;
    int rc = parse_doc(text, len, fname, k->key, &doc, &arr, err);
    if (rc)
        return rc;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    char *tmp = calloc(n ? n : 1, k->size);
    if (!tmp) {
        cJSON_Delete(doc);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    }
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        struct ectx c = { fname, text, len, k->key, (int)i, "", err };
        if ((rc = k->parse(&c, e, tmp + i * k->size)))
            goto out;
        for (size_t j = 0; j < i; j++)
            if (strcasecmp(entry_id(k, tmp, j), entry_id(k, tmp, i)) == 0) {
                rc = ferr(&c, "id", "duplicates another entry in this file");
                goto out;
            }
        if (!replace)
            for (size_t j = 0; j < *n_entries; j++)
                if (strcasecmp(entry_id(k, *entries, j), entry_id(k, tmp, i)) == 0) {
                    rc = ferr(&c, "id", "duplicates an entry already in the catalog");
                    goto out;
                }
    }
    for (i = 0; i < n; i++) {
        size_t j;
        for (j = 0; j < *n_entries; j++)
            if (strcasecmp(entry_id(k, *entries, j), entry_id(k, tmp, i)) == 0)
                break;
        if (j == *n_entries) {
            if (!grow(entries, cap, *n_entries + 1, k->size)) {
                rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
                goto out;
            }
            (*n_entries)++;
        }
        memcpy((char *)*entries + j * k->size, tmp + i * k->size, k->size);
    }
out:
    free(tmp);
    cJSON_Delete(doc);
    return rc;
}

static int parse_model_entry(struct ectx *c, const cJSON *e, void *out)
{
    return parse_model(c, e, out);
}

int catalog_add_models_text(struct llmroof_catalog *cat, const char *text, size_t len,
                            const char *fname, bool replace, struct llmroof_err *err)
{
    static const struct plain_kind kind = { "models", sizeof(struct llmroof_model),
                                            offsetof(struct llmroof_model, id), parse_model_entry };
    return add_plain(&kind, (void **)&cat->models, &cat->n_models, &cat->cap_models, text, len, fname, replace, err);
}

/* ------------------------------------------------------------------------ */
/* Engines                                                                  */
/* ------------------------------------------------------------------------ */

static int parse_engine(struct ectx *c, const cJSON *e, struct llmroof_engine *g)
{
    static const char *const fields[] = { "id", "name", "step_overhead_s", "first_token_s", "compute_scale",
                                          "collective_latency_s", "source", NULL };
    int rc;
    memset(g, 0, sizeof *g);
    if (!cJSON_IsObject(e))
        return ferr(c, NULL, "entry must be a JSON object");
    if ((rc = get_string(c, e, "id", true, g->id, sizeof g->id)))
        return rc;
    snprintf(c->id, sizeof c->id, "%s", g->id);
    if (!valid_id(g->id))
        return ferr(c, "id", "must use only lowercase letters, digits, '-', '.' and '_'");
    if ((rc = check_known(c, e, "", fields)) || (rc = get_string(c, e, "name", true, g->name, sizeof g->name)) ||
        (rc = get_string(c, e, "source", true, g->source, sizeof g->source)) ||
        (rc = get_number(c, e, "step_overhead_s", "step_overhead_s", true, 0, false, 1, &g->step_overhead_s, NULL)) ||
        (rc = get_number(c, e, "first_token_s", "first_token_s", true, 0, false, 60, &g->first_token_s, NULL)) ||
        (rc = get_number(c, e, "compute_scale", "compute_scale", true, 0, true, 1, &g->compute_scale, NULL)) ||
        (rc = get_number(c, e, "collective_latency_s", "collective_latency_s", false, 0, false, 0.01,
                         &g->collective_latency_s, NULL)))
        return rc;
    return LLMROOF_OK;
}

static int parse_engine_entry(struct ectx *c, const cJSON *e, void *out)
{
    return parse_engine(c, e, out);
}

int catalog_add_engines_text(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname,
                             bool replace, struct llmroof_err *err)
{
    static const struct plain_kind kind = { "engines", sizeof(struct llmroof_engine),
                                            offsetof(struct llmroof_engine, id), parse_engine_entry };
    return add_plain(&kind, (void **)&cat->engines, &cat->n_engines, &cat->cap_engines, text, len, fname, replace,
                     err);
}

const struct llmroof_engine *catalog_find_engine(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_engines; i++)
        if (strcasecmp(cat->engines[i].id, name) == 0)
            return &cat->engines[i];
    return NULL;
}

/* Catalog files are small; 64 MiB bounds memory on a hostile input. */
#define CATALOG_MAX_BYTES ((size_t)64 * 1024 * 1024)

int catalog_add_gpus_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    char *text;
    size_t len;
    int rc = catalog_read_file(path, CATALOG_MAX_BYTES, &text, &len, err);
    if (rc)
        return rc;
    rc = catalog_add_gpus_text(cat, text, len, path, replace, err);
    free(text);
    return rc;
}

int catalog_add_engines_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    char *text;
    size_t len;
    int rc = catalog_read_file(path, CATALOG_MAX_BYTES, &text, &len, err);
    if (rc)
        return rc;
    rc = catalog_add_engines_text(cat, text, len, path, replace, err);
    free(text);
    return rc;
}

int catalog_add_models_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    char *text;
    size_t len;
    int rc = catalog_read_file(path, CATALOG_MAX_BYTES, &text, &len, err);
    if (rc)
        return rc;
    rc = catalog_add_models_text(cat, text, len, path, replace, err);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Lookup and suggestions                                                   */
/* ------------------------------------------------------------------------ */

const struct llmroof_gpu *catalog_find_gpu(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_gpus; i++)
        if (gpu_named(&cat->gpus[i], name))
            return &cat->gpus[i];
    return NULL;
}

const struct llmroof_model *catalog_find_model(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_models; i++)
        if (strcasecmp(cat->models[i].id, name) == 0)
            return &cat->models[i];
    return NULL;
}

/* Levenshtein distance on lowercased strings, both truncated to 63 characters. */
static int edit_distance(const char *a, const char *b)
{
    int la = (int)strnlen(a, 63), lb = (int)strnlen(b, 63);
    int prev[64], cur[64];
    for (int j = 0; j <= lb; j++)
        prev[j] = j;
    for (int i = 1; i <= la; i++) {
        cur[0] = i;
        for (int j = 1; j <= lb; j++) {
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int v = prev[j - 1] + cost;
            if (prev[j] + 1 < v)
                v = prev[j] + 1;
            if (cur[j - 1] + 1 < v)
                v = cur[j - 1] + 1;
            cur[j] = v;
        }
        memcpy(prev, cur, sizeof(int) * (size_t)(lb + 1));
    }
    return prev[lb];
}

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0)
        return false;
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return false;
}

/* Score of candidate name `cand` for query `q`: lower is better, < 0 means no match. */
static int suggest_score(const char *q, const char *cand)
{
    int d = edit_distance(q, cand);
    int limit = (int)strlen(q) / 3;
    if (limit < 2)
        limit = 2;
    if (d <= limit)
        return d;
    if (strlen(q) >= 2 && contains_ci(cand, q))
        return 50 + (int)(strlen(cand) - strlen(q));
    return -1;
}

static void insert_best(const char **out, int *scores, size_t *n, size_t max, const char *id, int score)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(out[i], id) == 0) {
            if (score < scores[i])
                scores[i] = score;
            else
                return;
            /* re-sort below */
            for (size_t a = i; a > 0 && (scores[a] < scores[a - 1]); a--) {
                const char *t = out[a]; out[a] = out[a - 1]; out[a - 1] = t;
                int s = scores[a]; scores[a] = scores[a - 1]; scores[a - 1] = s;
            }
            return;
        }
    size_t pos = *n;
    while (pos > 0 && (scores[pos - 1] > score || (scores[pos - 1] == score && strcmp(out[pos - 1], id) > 0)))
        pos--;
    if (pos >= max)
        return;
    size_t last = *n < max ? *n : max - 1;
    for (size_t i = last; i > pos; i--) {
        out[i] = out[i - 1];
        scores[i] = scores[i - 1];
    }
    out[pos] = id;
    scores[pos] = score;
    if (*n < max)
        (*n)++;
}

size_t catalog_suggest_gpus(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    if (max > 16)
        max = 16;
    for (size_t i = 0; i < cat->n_gpus && max; i++) {
        const struct llmroof_gpu *g = &cat->gpus[i];
        int s = suggest_score(name, g->id);
        if (s >= 0)
            insert_best(out, scores, &n, max, g->id, s);
        for (int a = 0; a < g->n_aliases; a++) {
            s = suggest_score(name, g->aliases[a]);
            if (s >= 0)
                insert_best(out, scores, &n, max, g->id, s);
        }
    }
    return n;
}

size_t catalog_suggest_models(const struct llmroof_catalog *cat, const char *name, const char **out, size_t max)
{
    int scores[16];
    size_t n = 0;
    if (max > 16)
        max = 16;
    for (size_t i = 0; i < cat->n_models && max; i++) {
        int s = suggest_score(name, cat->models[i].id);
        if (s >= 0)
            insert_best(out, scores, &n, max, cat->models[i].id, s);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* HuggingFace config.json import                                           */
/* ------------------------------------------------------------------------ */

/* First numeric member among `keys`; false when none is present. */
static bool hf_num(const cJSON *doc, const char *const *keys, double *out, const char **which)
{
    for (const char *const *k = keys; *k; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, *k);
        if (v && cJSON_IsNumber(v)) {
            *out = v->valuedouble;
            if (which)
                *which = *k;
            return true;
        }
    }
    return false;
}

static bool hf_bool(const cJSON *doc, const char *key, bool dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return (v && cJSON_IsBool(v)) ? cJSON_IsTrue(v) : dflt;
}

enum hf_family { HF_LLAMA, HF_QWEN2, HF_MIXTRAL, HF_FALCON, HF_GPTJ, HF_OPT, HF_INTERNLM };

static int hf_int(const char *fname, const cJSON *doc, const char *const *keys, bool required, long dflt,
                  long lo, long hi, long *out, struct llmroof_err *err)
{
    double v;
    const char *which = keys[0];
    if (!hf_num(doc, keys, &v, &which)) {
        /* a key present with a non-number value is an error, not a default */
        for (const char *const *k = keys; *k; k++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(doc, *k);
            if (x && !cJSON_IsNull(x))
                return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be a number", fname, *k);
        }
        if (required)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' is missing", fname, keys[0]);
        *out = dflt;
        return LLMROOF_OK;
    }
    if (!isfinite(v) || v != floor(v) || v < (double)lo || v > (double)hi)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be an integer in [%ld, %ld]", fname,
                               which, lo, hi);
    *out = (long)v;
    return LLMROOF_OK;
}

int catalog_model_from_hf(const char *text, size_t len, const char *fname, const char *id,
                          struct llmroof_model *m, struct llmroof_err *err)
{
    static const char *const k_hidden[] = { "hidden_size", "n_embd", "d_model", NULL };
    static const char *const k_layers[] = { "num_hidden_layers", "n_layer", "num_layers", NULL };
    static const char *const k_heads[] = { "num_attention_heads", "n_head", NULL };
    static const char *const k_kv[] = { "num_key_value_heads", "num_kv_heads", "n_head_kv", NULL };
    static const char *const k_hd[] = { "head_dim", NULL };
    static const char *const k_inter[] = { "intermediate_size", "ffn_dim", "ffn_hidden_size", "n_inner", NULL };
    static const char *const k_vocab[] = { "vocab_size", NULL };
    static const char *const k_ctx[] = { "max_position_embeddings", "n_positions", "max_sequence_length",
                                         "seq_length", NULL };
    static const char *const k_experts[] = { "num_local_experts", NULL };
    static const char *const k_topk[] = { "num_experts_per_tok", NULL };
    int rc;

    memset(m, 0, sizeof *m);
    if (!id || !valid_id(id) || strlen(id) >= sizeof m->id)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--name '%s' must be 1-63 lowercase letters, digits, '-', '.' or '_'", id ? id : "");
    cJSON *doc = parse_json(text, len, fname, err);
    if (!doc)
        return LLMROOF_EINPUT;
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a HuggingFace config.json object", fname);
    }

    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(doc, "model_type");
    const char *type = (mt && cJSON_IsString(mt) && mt->valuestring) ? mt->valuestring : "";
    enum hf_family fam;
    if (!strcmp(type, "llama") || !strcmp(type, "mistral"))
        fam = HF_LLAMA;
    else if (!strcmp(type, "qwen2"))
        fam = HF_QWEN2;
    else if (!strcmp(type, "mixtral"))
        fam = HF_MIXTRAL;
    else if (!strcmp(type, "falcon") || !strcmp(type, "RefinedWeb") || !strcmp(type, "RefinedWebModel"))
        fam = HF_FALCON;
    else if (!strcmp(type, "gptj"))
        fam = HF_GPTJ;
    else if (!strcmp(type, "opt"))
        fam = HF_OPT;
    else if (!strcmp(type, "internlm"))
        fam = HF_INTERNLM;
    else {
        llmroof_err_set(err, LLMROOF_EINPUT,
                        "%s: field 'model_type' is \"%s\"; supported: llama, mistral, mixtral, qwen2, falcon, "
                        "gptj, opt, internlm",
                        fname, type);
        cJSON_Delete(doc);
        return LLMROOF_EINPUT;
    }

    snprintf(m->id, sizeof m->id, "%s", id);
    snprintf(m->name, sizeof m->name, "%s", id);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(doc, "_name_or_path");
    if (nm && cJSON_IsString(nm) && nm->valuestring && strlen(nm->valuestring) < sizeof m->hf_id)
        memcpy(m->hf_id, nm->valuestring, strlen(nm->valuestring) + 1);
    snprintf(m->source, sizeof m->source, "imported from HuggingFace config %s (model_type %s)", fname, type);

    bool plain = fam == HF_FALCON || fam == HF_GPTJ || fam == HF_OPT;
    if ((rc = hf_int(fname, doc, k_hidden, true, 0, 1, 1048576, &m->hidden, err)) ||
        (rc = hf_int(fname, doc, k_layers, true, 0, 1, 10000, &m->layers, err)) ||
        (rc = hf_int(fname, doc, k_heads, true, 0, 1, 65536, &m->heads, err)) ||
        (rc = hf_int(fname, doc, k_vocab, true, 0, 1, 100000000, &m->vocab, err)))
        goto out;
    /* Falcon-7B style multi-query configs carry multi_query: true and no KV count. */
    long kv_default = m->heads;
    if (fam == HF_FALCON && !hf_bool(doc, "new_decoder_architecture", false) && hf_bool(doc, "multi_query", true))
        kv_default = 1;
    if ((rc = hf_int(fname, doc, k_kv, false, kv_default, 1, 65536, &m->kv_heads, err)))
        goto out;
    if (m->hidden % m->heads != 0 && !cJSON_GetObjectItemCaseSensitive(doc, "head_dim")) {
        rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: hidden size %ld is not divisible by %ld heads and no head_dim is given",
                             fname, m->hidden, m->heads);
        goto out;
    }
    if ((rc = hf_int(fname, doc, k_hd, false, m->hidden / m->heads, 1, 65536, &m->head_dim, err)))
        goto out;
    /* GPT-J's n_inner is null for 4*hidden; Falcon's ffn_hidden_size defaults to 4*hidden. */
    if ((rc = hf_int(fname, doc, k_inter, !plain, 4 * m->hidden, 1, 16777216, &m->intermediate, err)))
        goto out;
    /* Falcon configs have no max_position_embeddings key; FalconConfig's default is 2048. */
    if ((rc = hf_int(fname, doc, k_ctx, fam != HF_FALCON, 2048, 1, 1000000000, &m->max_context, err)))
        goto out;

    switch (fam) {
    case HF_LLAMA:
    case HF_INTERNLM:
    case HF_MIXTRAL:
    case HF_QWEN2:
        m->mlp = LLMROOF_MLP_GATED;
        m->norm = LLMROOF_NORM_RMS;
        /* LlamaConfig/MistralConfig/Qwen2Config/MixtralConfig default tie_word_embeddings to false */
        m->tied_embeddings = hf_bool(doc, "tie_word_embeddings", false);
        if (fam == HF_QWEN2) {
            m->qkv_bias = true; /* hard-coded in modeling_qwen2.py, not a config field */
        } else if (fam == HF_INTERNLM) {
            m->qkv_bias = m->o_bias = hf_bool(doc, "bias", true);
        } else {
            m->qkv_bias = m->o_bias = hf_bool(doc, "attention_bias", false);
            m->mlp_bias = hf_bool(doc, "mlp_bias", false);
        }
        break;
    case HF_FALCON:
        m->mlp = LLMROOF_MLP_PLAIN;
        m->norm = LLMROOF_NORM_LAYER;
        /* the key is absent from Falcon configs: PretrainedConfig's default (true) applies */
        m->tied_embeddings = hf_bool(doc, "tie_word_embeddings", true);
        m->qkv_bias = m->o_bias = m->mlp_bias = hf_bool(doc, "bias", false);
        m->parallel_attn = hf_bool(doc, "parallel_attn", true);
        break;
    case HF_GPTJ:
        m->mlp = LLMROOF_MLP_PLAIN;
        m->norm = LLMROOF_NORM_LAYER;
        m->tied_embeddings = hf_bool(doc, "tie_word_embeddings", false);
        m->mlp_bias = true;
        m->parallel_attn = true;
        break;
    case HF_OPT:
        m->mlp = LLMROOF_MLP_PLAIN;
        m->norm = LLMROOF_NORM_LAYER;
        m->tied_embeddings = hf_bool(doc, "tie_word_embeddings", true);
        m->qkv_bias = m->o_bias = m->mlp_bias = hf_bool(doc, "enable_bias", true);
        m->learned_pos = m->max_context + 2; /* OPT's learned positions carry a 2-row offset */
        break;
    }
    if (fam == HF_MIXTRAL) {
        if ((rc = hf_int(fname, doc, k_experts, true, 0, 1, 65536, &m->moe_experts, err)) ||
            (rc = hf_int(fname, doc, k_topk, true, 0, 1, 65536, &m->moe_top_k, err)))
            goto out;
        m->moe_intermediate = m->intermediate;
    }
    rc = catalog_check_model(m, fname, err);
out:
    cJSON_Delete(doc);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Validation mapping and uncertainty bands                                 */
/* ------------------------------------------------------------------------ */

static int map_object(const cJSON *doc, const char *key, const char *fname, bool required, const cJSON **out,
                      struct llmroof_err *err)
{
    *out = cJSON_GetObjectItemCaseSensitive(doc, key);
    if (!*out) {
        if (required)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' is missing", fname, key);
        return LLMROOF_OK;
    }
    if (!cJSON_IsObject(*out))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be an object", fname, key);
    if (cJSON_GetArraySize(*out) > LLMROOF_MAP_MAX)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' has more than %d entries", fname, key, LLMROOF_MAP_MAX);
    for (const cJSON *it = (*out)->child; it; it = it->next)
        if (!it->string || strlen(it->string) >= LLMROOF_MAP_KEY)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: a key of '%s' is longer than %d characters", fname, key,
                                   LLMROOF_MAP_KEY - 1);
    return LLMROOF_OK;
}

static int names(const cJSON *obj, const char *key, const char *fname, struct llmroof_name_map *m, int *n,
                 struct llmroof_err *err)
{
    for (const cJSON *it = obj->child; it; it = it->next) {
        if (!cJSON_IsString(it) || !it->valuestring || strlen(it->valuestring) >= LLMROOF_ID_MAX)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: '%s'.'%s' must be a catalog id string", fname, key, it->string);
        snprintf(m[*n].from, sizeof m[*n].from, "%s", it->string);
        snprintf(m[*n].to, sizeof m[*n].to, "%s", it->valuestring);
        (*n)++;
    }
    return LLMROOF_OK;
}

int catalog_load_valmap(const char *text, size_t len, const char *fname, struct llmroof_valmap *m,
                        struct llmroof_err *err)
{
    memset(m, 0, sizeof *m);
    cJSON *doc = parse_json(text, len, fname, err);
    if (!doc)
        return LLMROOF_EINPUT;
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a JSON object", fname);
    }
    const cJSON *g, *md, *w, *k, *l, *en = NULL;
    int rc;
    if ((rc = map_object(doc, "gpus", fname, true, &g, err)) || (rc = map_object(doc, "models", fname, true, &md, err)) ||
        (rc = map_object(doc, "weight_dtypes", fname, true, &w, err)) ||
        (rc = map_object(doc, "kv_dtypes", fname, true, &k, err)) ||
        (rc = map_object(doc, "lengths", fname, false, &l, err)) ||
        (rc = map_object(doc, "engines", fname, false, &en, err)) ||
        (en && (rc = names(en, "engines", fname, m->engines, &m->nengines, err))) ||
        (rc = names(g, "gpus", fname, m->gpus, &m->ngpus, err)) ||
        (rc = names(md, "models", fname, m->models, &m->nmodels, err)))
        goto out;
    for (const cJSON *it = w->child; it; it = it->next) {
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(it, "dtype"), *b = cJSON_GetObjectItemCaseSensitive(it, "bits");
        struct llmroof_dtype_map *e = &m->wdt[m->nwdt];
        if (!cJSON_IsObject(it) || !cJSON_IsString(d) || !dtype_parse(d->valuestring, &e->dtype) ||
            (b && (!cJSON_IsNumber(b) || !(b->valuedouble > 0) || b->valuedouble > 64))) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: weight_dtypes.'%s' must be {\"dtype\": D[, \"bits\": B]}", fname,
                                 it->string);
            goto out;
        }
        snprintf(e->from, sizeof e->from, "%s", it->string);
        e->bits = b ? b->valuedouble : 0;
        m->nwdt++;
    }
    for (const cJSON *it = k->child; it; it = it->next) {
        struct llmroof_dtype_map *e = &m->kvdt[m->nkvdt];
        if (!cJSON_IsString(it) || !dtype_parse(it->valuestring, &e->dtype)) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: kv_dtypes.'%s' must be a dtype name", fname, it->string);
            goto out;
        }
        snprintf(e->from, sizeof e->from, "%s", it->string);
        m->nkvdt++;
    }
    for (const cJSON *it = l ? l->child : NULL; it; it = it->next) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1e9 || it->valuedouble != floor(it->valuedouble)) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: lengths.'%s' must be a whole number of tokens", fname, it->string);
            goto out;
        }
        snprintf(m->lens[m->nlens].from, sizeof m->lens[0].from, "%s", it->string);
        m->lens[m->nlens++].tokens = (long)it->valuedouble;
    }
out:
    cJSON_Delete(doc);
    return rc;
}

static int band(const cJSON *doc, const char *key, const char *fname, struct llmroof_band *b, struct llmroof_err *err)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, key);
    memset(b, 0, sizeof *b);
    if (!o)
        return LLMROOF_OK;
    const cJSON *lo = cJSON_GetObjectItemCaseSensitive(o, "low"), *hi = cJSON_GetObjectItemCaseSensitive(o, "high"),
                *n = cJSON_GetObjectItemCaseSensitive(o, "n");
    if (!cJSON_IsObject(o) || !cJSON_IsNumber(lo) || !cJSON_IsNumber(hi) || !cJSON_IsNumber(n) || !(lo->valuedouble > 0) ||
        hi->valuedouble < lo->valuedouble || hi->valuedouble > 100 || !(n->valuedouble >= 1 && n->valuedouble <= 1e9) ||
        n->valuedouble != floor(n->valuedouble))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s: '%s' must be {\"low\": >0, \"high\": >=low and <=100, \"n\": whole number in [1, 1e9]}",
                               fname, key);
    b->present = true;
    b->low = lo->valuedouble;
    b->high = hi->valuedouble;
    b->n = (long)n->valuedouble;
    return LLMROOF_OK;
}

int catalog_load_uncertainty(const char *text, size_t len, const char *fname, struct llmroof_uncertainty *u,
                             struct llmroof_err *err)
{
    memset(u, 0, sizeof *u);
    cJSON *doc = parse_json(text, len, fname, err);
    if (!doc)
        return LLMROOF_EINPUT;
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a JSON object", fname);
    }
    int rc;
    if (!(rc = band(doc, "ttft", fname, &u->ttft, err)) && !(rc = band(doc, "tpot", fname, &u->tpot, err)))
        rc = band(doc, "e2e", fname, &u->e2e, err);
    cJSON_Delete(doc);
    return rc;
}
