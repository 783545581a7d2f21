/* catalog.c - GPU, model and engine entries: parsed field by field with their physical ranges,
 * added to a catalog, looked up by id or alias, and suggested on a typo (see data/catalog.h).
 * Unknown fields are errors so that a typo ("memory_bandwith_Bps") never passes silently.
 * Schema and units: docs/catalog.md. This file: the catalog itself, what the kinds of entry share
 * (architecture and alias lists, the models' and engines' loader, files); the GPUs in
 * catalog_gpu.c, models in catalog_model.c, engines in catalog_engine.c, suggestions on a typo in
 * catalog_suggest.c. */
#include "data/catalog_internal.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */
/* ------------------------------------------------------------------------ */

const char *linear_kind_name(enum llmroof_linear k)
{
    switch (k) {
    case LLMROOF_LINEAR_GDN: return "gdn";
    case LLMROOF_LINEAR_MAMBA2: return "mamba2";
    case LLMROOF_LINEAR_LIGHTNING: return "lightning";
    case LLMROOF_LINEAR_MAMBA1: return "mamba1";
    case LLMROOF_LINEAR_KDA: return "kda";
    case LLMROOF_LINEAR_NONE: break;
    }
    return "none";
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

/* An architecture name as the vendors spell their compilation targets: NVIDIA's "sm" and the
 * compute capability's 2-3 digits with an optional family suffix ("sm80", "sm120", "sm90a",
 * "sm100f"), AMD's "gfx" and 3-4 digits or hex letters, the first a digit ("gfx942", "gfx90a",
 * "gfx1100"). The engine rules keyed by architecture name these two vendors' targets only, so a
 * typo ("sm8o") is refused rather than matching nothing in silence. */
bool catalog_arch_name_ok(const char *s)
{
    size_t n = strlen(s), i;
    if (n >= 2 && s[0] == 's' && s[1] == 'm') {
        for (i = 2; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            ;
        const size_t digits = i - 2;
        if (digits < 2 || digits > 3 || s[2] == '0') /* compute capability 1.0 and up: no leading zero */
            return false;
        return i == n || (i + 1 == n && (s[i] == 'a' || s[i] == 'f'));
    }
    if (n >= 3 && !strncmp(s, "gfx", 3)) {
        if (n < 6 || n > 7 || !(s[3] >= '1' && s[3] <= '9'))
            return false;
        for (i = 4; i < n; i++)
            if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
                return false;
        return true;
    }
    return false;
}

int catalog_arch_err(struct json_ectx *c, const char *field, const char *got)
{
    return json_ferr(c, field,
                     "must be an architecture name like \"sm80\" or \"gfx942\" (\"sm\" and 2-3 digits, optionally "
                     "then a or f; or \"gfx\" and 3-4 digits or hex letters; got \"%s\")",
                     got);
}

/* An engine's list of GPU architectures (varlen_fa2_archs, fa2_archs): strings of arch_name_ok's
 * form, each once, at most LLMROOF_ARCHS_MAX. Absent: none. */
int catalog_parse_arch_list(struct json_ectx *c, const cJSON *e, const char *field,
                            char out[LLMROOF_ARCHS_MAX][LLMROOF_ARCH_MAX], int *n)
{
    *n = 0;
    const cJSON *va = json_item(e, field);
    if (!va)
        return LLMROOF_OK;
    if (!cJSON_IsArray(va))
        return json_ferr(c, field, "must be an array of architecture names such as \"sm80\"");
    for (const cJSON *a = va->child; a; a = a->next) {
        if (!cJSON_IsString(a) || !a->valuestring)
            return json_ferr(c, field, "entries must be strings (architecture names such as \"sm80\")");
        if (strlen(a->valuestring) >= LLMROOF_ARCH_MAX)
            return json_ferr(c, field, "entry \"%.32s\" is longer than %d characters", a->valuestring,
                             LLMROOF_ARCH_MAX - 1);
        if (!catalog_arch_name_ok(a->valuestring))
            return catalog_arch_err(c, field, a->valuestring);
        for (int i = 0; i < *n; i++)
            if (!strcmp(out[i], a->valuestring))
                return json_ferr(c, field, "names \"%s\" twice", a->valuestring);
        if (*n == LLMROOF_ARCHS_MAX)
            return json_ferr(c, field, "has more than %d entries", LLMROOF_ARCHS_MAX);
        memcpy(out[(*n)++], a->valuestring, strlen(a->valuestring) + 1);
    }
    return LLMROOF_OK;
}

/* An entry's "aliases": extra names a user may type for it, each a typed name (no controls,
 * blanks or list commas) shorter than an id; GPUs and engines alike. */
int catalog_parse_aliases(struct json_ectx *c, const cJSON *e, char (*out)[LLMROOF_ID_MAX], int *n)
{
    const cJSON *al = json_item(e, "aliases");
    if (!al)
        return LLMROOF_OK;
    if (!cJSON_IsArray(al))
        return json_ferr(c, "aliases", "must be an array of strings");
    for (const cJSON *a = al->child; a; a = a->next) {
        if (!cJSON_IsString(a) || !a->valuestring || !a->valuestring[0])
            return json_ferr(c, "aliases", "must be an array of non-empty strings");
        for (const unsigned char *p = (const unsigned char *)a->valuestring; *p; p++)
            if (*p < 0x21 || *p == 0x7f || *p == ',') /* names are typed: no controls, blanks, list commas */
                return json_ferr(c, "aliases", "entries must not contain control characters, spaces or commas");
        if (*n == LLMROOF_ALIASES_MAX)
            return json_ferr(c, "aliases", "has more than %d entries", LLMROOF_ALIASES_MAX);
        if (strlen(a->valuestring) >= LLMROOF_ID_MAX)
            return json_ferr(c, "aliases", "entry '%s' is too long", a->valuestring);
        memcpy(out[(*n)++], a->valuestring, strlen(a->valuestring) + 1);
    }
    return LLMROOF_OK;
}

bool catalog_grow(void **arr, size_t *cap, size_t need, size_t elem)
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

/* Entry i's name a: its id (a < 0) or its a-th alias; NULL past its last alias */
static const char *entry_name(const struct plain_kind *k, const void *base, size_t i, int a)
{
    const char *e = (const char *)base + i * k->size;
    if (a < 0)
        return e + k->id_offset;
    if (!k->has_aliases)
        return NULL;
    int n;
    memcpy(&n, e + k->n_aliases_offset, sizeof n);
    return a < n ? e + k->aliases_offset + (size_t)a * LLMROOF_ID_MAX : NULL;
}

/* The entry among base[0..n) (skipping `skip`) that already answers to `name` by id or alias;
 * SIZE_MAX when none */
static size_t entry_answering(const struct plain_kind *k, const void *base, size_t n, size_t skip, const char *name)
{
    for (size_t j = 0; j < n; j++) {
        if (j == skip)
            continue;
        for (int a = -1; entry_name(k, base, j, a); a++)
            if (strcasecmp(entry_name(k, base, j, a), name) == 0)
                return j;
    }
    return SIZE_MAX;
}

static const char *entry_id(const struct plain_kind *k, const void *base, size_t i)
{
    return (const char *)base + i * k->size + k->id_offset;
}

/* Case-insensitive id sets by open addressing, so that a file of 200,000 models loads in
 * linear time (the pairwise check took 217 s). Slots hold entry index + 1; 0 is empty. */
struct id_set {
    size_t *slot;
    size_t mask;
};

static size_t id_hash(const char *s)
{
    size_t h = 1469598103934665603u; /* FNV-1a over the lowercased id */
    for (; *s; s++)
        h = (h ^ (unsigned char)tolower((unsigned char)*s)) * 1099511628211u;
    return h;
}

static bool id_set_init(struct id_set *t, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    t->slot = calloc(cap, sizeof *t->slot);
    t->mask = cap - 1;
    return t->slot != NULL;
}

/* Index of the entry of `base` whose id equals id, or SIZE_MAX; with `add` (an index),
 * inserts it when absent. */
static size_t id_set_find(struct id_set *t, const struct plain_kind *k, const void *base, const char *id, size_t add)
{
    for (size_t h = id_hash(id) & t->mask;; h = (h + 1) & t->mask) {
        if (!t->slot[h]) {
            if (add != SIZE_MAX)
                t->slot[h] = add + 1;
            return SIZE_MAX;
        }
        if (strcasecmp(entry_id(k, base, t->slot[h] - 1), id) == 0)
            return t->slot[h] - 1;
    }
}

/* The fast load of a model or engine file (see add_gpus_fast): LLMROOF_OK, or NOT_HANDLED
 * with the catalog unchanged. */
static int add_plain_fast(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap, const char *text,
                          size_t len, const char *fname, bool replace, const char *pick)
{
    if (k->has_aliases)
        return NOT_HANDLED; /* the checked load keeps ids and aliases one namespace */
    struct json_entries *it = json_entries_open(text, len, k->key);
    if (!it)
        return NOT_HANDLED;
    int rc = NOT_HANDLED;
    /* every id of the file, as entries of LLMROOF_ID_MAX bytes for id_set */
    static const struct plain_kind id_kind = { "ids", LLMROOF_ID_MAX, 0, NULL, false, 0, 0 };
    char *ids = NULL;
    size_t n = 0, cap_ids = 0;
    char *keep = NULL; /* the entries to add */
    size_t n_keep = 0, cap_keep = 0;
    char *one = malloc(k->size); /* the scratch entry when picking */
    struct id_set seen = { NULL, 0 }, have = { NULL, 0 }; /* ids of this file; of the catalog */
    struct llmroof_err quiet = { 0 }; /* a failure is reported by the checked load */
    if (!one)
        goto out;
    for (const cJSON *e; (e = json_entries_next(it)); n++) {
        struct json_ectx c = { fname, text, len, k->key, (int)n, "", &quiet, NULL };
        char *x = one;
        if (!pick) {
            if (!catalog_grow((void **)&keep, &cap_keep, n_keep + 1, k->size))
                goto out;
            x = keep + n_keep * k->size;
        }
        if (k->parse(&c, e, x) || !catalog_grow((void **)&ids, &cap_ids, n + 1, LLMROOF_ID_MAX))
            goto out;
        memcpy(ids + n * LLMROOF_ID_MAX, entry_id(k, x, 0), LLMROOF_ID_MAX);
        if (!pick) {
            n_keep++;
        } else if (strcasecmp(entry_id(k, x, 0), pick) == 0) {
            if (!catalog_grow((void **)&keep, &cap_keep, n_keep + 1, k->size))
                goto out;
            memcpy(keep + n_keep++ * k->size, x, k->size);
        }
    }
    if (!json_entries_ok(it) || !id_set_init(&seen, n) || !id_set_init(&have, *n_entries))
        goto out;
    /* add_plain_checked's checks: no id twice in the file, nor (unless replace) in the catalog */
    for (size_t j = 0; j < *n_entries; j++)
        (void)id_set_find(&have, k, *entries, entry_id(k, *entries, j), j);
    for (size_t i = 0; i < n; i++)
        if (id_set_find(&seen, &id_kind, ids, ids + i * LLMROOF_ID_MAX, i) != SIZE_MAX ||
            (!replace && id_set_find(&have, k, *entries, ids + i * LLMROOF_ID_MAX, SIZE_MAX) != SIZE_MAX))
            goto out;
    /* room for every kept entry first: once the catalog changes, nothing may fail */
    if (!catalog_grow(entries, cap, *n_entries + n_keep, k->size))
        goto out;
    if (*n_entries == 0 && n_keep > 0) {
        free(*entries); /* an empty catalog takes the array as it is */
        *entries = keep;
        *n_entries = n_keep;
        *cap = cap_keep;
        keep = NULL;
    }
    for (size_t i = 0; keep && i < n_keep; i++) {
        size_t j = id_set_find(&have, k, *entries, entry_id(k, keep, i), SIZE_MAX);
        if (j == SIZE_MAX)
            j = (*n_entries)++;
        memcpy((char *)*entries + j * k->size, keep + i * k->size, k->size);
    }
    rc = LLMROOF_OK;
out:
    free(seen.slot);
    free(have.slot);
    free(one);
    free(keep);
    free(ids);
    json_entries_close(it);
    return rc;
}

/* The checked load of a model or engine file (see add_gpus_checked). */
static int add_plain_checked(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap,
                             const char *text, size_t len, const char *fname, bool replace, const char *pick,
                             struct llmroof_err *err)
{
    struct json_doc doc = { 0 };
    const cJSON *arr = NULL;
    int rc = json_parse_array_doc(text, len, fname, k->key, &doc, &arr, err);
    if (rc)
        return rc;
    size_t n = (size_t)cJSON_GetArraySize(arr);
    char *tmp = calloc(n ? n : 1, k->size);
    struct id_set seen = { NULL, 0 }, have = { NULL, 0 }; /* ids of this file; of the catalog */
    if (!tmp || !id_set_init(&seen, n) || !id_set_init(&have, *n_entries)) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
        goto out;
    }
    for (size_t j = 0; j < *n_entries; j++)
        (void)id_set_find(&have, k, *entries, entry_id(k, *entries, j), j);
    size_t i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        struct json_ectx c = { fname, text, len, k->key, (int)i, "", err, NULL };
        if ((rc = k->parse(&c, e, tmp + i * k->size)))
            goto out;
        if (id_set_find(&seen, k, tmp, entry_id(k, tmp, i), i) != SIZE_MAX) {
            rc = json_ferr(&c, "id", "duplicates another entry in this file");
            goto out;
        }
        if (!replace && id_set_find(&have, k, *entries, entry_id(k, tmp, i), SIZE_MAX) != SIZE_MAX) {
            rc = json_ferr(&c, "id", "duplicates an entry already in the catalog");
            goto out;
        }
        /* ids and aliases one namespace: this entry's names against the file's earlier entries,
         * its own other names, and (unless it replaces them) the catalog's */
        for (int a = -1; k->has_aliases && entry_name(k, tmp, i, a); a++) {
            const char *nm = entry_name(k, tmp, i, a);
            size_t j = entry_answering(k, tmp, i, SIZE_MAX, nm);
            const char *field = a < 0 ? "id" : "aliases";
            if (j != SIZE_MAX) {
                rc = json_ferr(&c, field, "names '%s', already the id or an alias of entry '%s' in this file", nm,
                               entry_id(k, tmp, j));
                goto out;
            }
            for (int b = a + 1; entry_name(k, tmp, i, b); b++)
                if (strcasecmp(entry_name(k, tmp, i, b), nm) == 0) {
                    rc = json_ferr(&c, "aliases", "names '%s' twice", nm);
                    goto out;
                }
            j = entry_answering(k, *entries, *n_entries, SIZE_MAX, nm);
            if (!replace && j != SIZE_MAX && (a >= 0 || strcasecmp(entry_id(k, *entries, j), nm) != 0)) {
                rc = json_ferr(&c, field, "names '%s', already the id or an alias of entry '%s' in the catalog", nm,
                               entry_id(k, *entries, j));
                goto out;
            }
        }
    }
    for (i = 0; i < n; i++) {
        bool picked = !pick;
        for (int a = -1; !picked && entry_name(k, tmp, i, a); a++)
            picked = strcasecmp(entry_name(k, tmp, i, a), pick) == 0;
        if (!picked)
            continue;
        size_t j = id_set_find(&have, k, *entries, entry_id(k, tmp, i), SIZE_MAX);
        if (j == SIZE_MAX) {
            if (!catalog_grow(entries, cap, *n_entries + 1, k->size)) {
                rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
                goto out;
            }
            j = (*n_entries)++; /* ids within the file are unique: no need to add it to `have` */
        }
        memcpy((char *)*entries + j * k->size, tmp + i * k->size, k->size);
    }
out:
    free(seen.slot);
    free(have.slot);
    free(tmp);
    json_doc_free(&doc);
    return rc;
}

int catalog_add_plain(const struct plain_kind *k, void **entries, size_t *n_entries, size_t *cap, const char *text,
                      size_t len, const char *fname, bool replace, const char *pick, struct llmroof_err *err)
{
    int rc = add_plain_fast(k, entries, n_entries, cap, text, len, fname, replace, pick);
    return rc == NOT_HANDLED ? add_plain_checked(k, entries, n_entries, cap, text, len, fname, replace, pick, err) : rc;
}

/* Reads `path` (bounded) and hands its text to add_gpus, add_models or add_engines. */
int catalog_add_file(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick, add_text_fn add,
                     struct llmroof_err *err)
{
    char *text;
    size_t len;
    int rc = catalog_read_file(path, CATALOG_MAX_BYTES, &text, &len, err);
    if (rc)
        return rc;
    rc = add(cat, text, len, path, replace, pick, err);
    free(text);
    return rc;
}
