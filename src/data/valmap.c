/* valmap.c - the validation mapping (published names -> catalog ids) and the uncertainty
 * bands, both JSON documents shipped beside the catalog. */
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

/* ------------------------------------------------------------------------ */
/* Validation mapping and uncertainty bands                                 */
/* ------------------------------------------------------------------------ */

static int map_object(const cJSON *doc, const char *key, const char *fname, bool required, const cJSON **out,
                      struct llmroof_err *err)
{
    *out = json_item(doc, key);
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
    cJSON *doc = json_parse_object(text, len, fname, err);
    if (!doc)
        return LLMROOF_EINPUT;
    const cJSON *g, *md, *w, *k, *l, *en = NULL, *bt = NULL, *tps = NULL;
    int rc;
    if ((rc = map_object(doc, "gpus", fname, true, &g, err)) || (rc = map_object(doc, "models", fname, true, &md, err)) ||
        (rc = map_object(doc, "weight_dtypes", fname, true, &w, err)) ||
        (rc = map_object(doc, "kv_dtypes", fname, true, &k, err)) ||
        (rc = map_object(doc, "lengths", fname, false, &l, err)) ||
        (rc = map_object(doc, "engines", fname, false, &en, err)) ||
        (rc = map_object(doc, "batches", fname, false, &bt, err)) ||
        (rc = map_object(doc, "tps", fname, false, &tps, err)) ||
        (en && (rc = names(en, "engines", fname, m->engines, &m->nengines, err))) ||
        (rc = names(g, "gpus", fname, m->gpus, &m->ngpus, err)) ||
        (rc = names(md, "models", fname, m->models, &m->nmodels, err)))
        goto out;
    for (const cJSON *it = w->child; it; it = it->next) {
        const cJSON *d = json_item(it, "dtype"), *b = json_item(it, "bits");
        const cJSON *a = json_item(it, "act");
        struct llmroof_dtype_map *e = &m->wdt[m->nwdt];
        if (!cJSON_IsObject(it) || !cJSON_IsString(d) || !dtype_parse(d->valuestring, &e->dtype) ||
            (b && (!cJSON_IsNumber(b) || !(b->valuedouble >= 1) || b->valuedouble > 64)) ||
            (a && (!cJSON_IsString(a) || !dtype_parse(a->valuestring, &e->act)))) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT,
                                 "%s: weight_dtypes.'%s' must be {\"dtype\": D[, \"bits\": B in [1, 64]][, \"act\": D]}", fname,
                                 it->string);
            goto out;
        }
        e->has_act = a != NULL;
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
    for (const cJSON *it = bt ? bt->child : NULL; it; it = it->next) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 0 || it->valuedouble > 1e6 || it->valuedouble != floor(it->valuedouble)) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT,
                                 "%s: batches.'%s' must be a whole number of sequences (0: the most that fit)", fname,
                                 it->string);
            goto out;
        }
        snprintf(m->batches[m->nbatches].from, sizeof m->batches[0].from, "%s", it->string);
        m->batches[m->nbatches++].tokens = (long)it->valuedouble;
    }
    for (const cJSON *it = tps ? tps->child : NULL; it; it = it->next) {
        if (!cJSON_IsNumber(it) || it->valuedouble < 1 || it->valuedouble > 1024 || it->valuedouble != floor(it->valuedouble)) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: tps.'%s' must be a whole number of ranks in [1, 1024]", fname,
                                 it->string);
            goto out;
        }
        snprintf(m->tps[m->ntps].from, sizeof m->tps[0].from, "%s", it->string);
        m->tps[m->ntps++].tokens = (long)it->valuedouble;
    }
    const cJSON *rs = json_item(doc, "reserved_sources");
    if (rs && (!cJSON_IsArray(rs) || cJSON_GetArraySize(rs) > LLMROOF_MAP_MAX)) {
        rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: 'reserved_sources' must be an array of at most %d strings", fname,
                             LLMROOF_MAP_MAX);
        goto out;
    }
    for (const cJSON *it = rs ? rs->child : NULL; it; it = it->next) {
        if (!cJSON_IsString(it) || !it->valuestring || !it->valuestring[0] || strlen(it->valuestring) >= LLMROOF_MAP_KEY) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: 'reserved_sources' entries must be strings of 1-%d characters",
                                 fname, LLMROOF_MAP_KEY - 1);
            goto out;
        }
        snprintf(m->reserved[m->nreserved++], LLMROOF_MAP_KEY, "%s", it->valuestring);
    }
out:
    cJSON_Delete(doc);
    return rc;
}

static int band(const cJSON *doc, const char *key, const char *fname, struct llmroof_band *b, struct llmroof_err *err)
{
    const cJSON *o = json_item(doc, key);
    memset(b, 0, sizeof *b);
    if (!o)
        return LLMROOF_OK;
    const cJSON *lo = json_item(o, "low"), *hi = json_item(o, "high"),
                *n = json_item(o, "n");
    if (!cJSON_IsObject(o) || !cJSON_IsNumber(lo) || !cJSON_IsNumber(hi) || !cJSON_IsNumber(n) || !(lo->valuedouble >= 0.01) ||
        hi->valuedouble < lo->valuedouble || hi->valuedouble > 100 || !(n->valuedouble >= 1 && n->valuedouble <= 1e9) ||
        n->valuedouble != floor(n->valuedouble))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "%s: '%s' must be {\"low\": >=0.01, \"high\": >=low and <=100, \"n\": whole number in [1, 1e9]}",
                               fname, key);
    b->present = true;
    b->low = lo->valuedouble;
    b->high = hi->valuedouble;
    b->n = (long)n->valuedouble;
    return LLMROOF_OK;
}

struct llmroof_band catalog_e2e_band(const struct llmroof_uncertainty *u, double ttft_s, double e2e_s, bool no_decode)
{
    if (no_decode)
        return u->ttft;
    struct llmroof_band b = u->e2e;
    if (!b.present || !u->ttft.present || !u->tpot.present || !(e2e_s > 0))
        return b;
    /* the parts' bands summed: TTFT at its factors, the rest of the request at TPOT's (e2e 18 ms
     * of which TTFT 12: the e2e band's top, 0.027 s, had sat below TTFT's 34.5 ms) */
    const double dec = e2e_s > ttft_s ? e2e_s - ttft_s : 0.0;
    const double lo = (ttft_s * u->ttft.low + dec * u->tpot.low) / e2e_s;
    const double hi = (ttft_s * u->ttft.high + dec * u->tpot.high) / e2e_s;
    b.low = lo < b.low ? lo : b.low;
    b.high = hi > b.high ? hi : b.high;
    return b;
}

int catalog_load_uncertainty(const char *text, size_t len, const char *fname, struct llmroof_uncertainty *u,
                             struct llmroof_err *err)
{
    memset(u, 0, sizeof *u);
    cJSON *doc = json_parse_object(text, len, fname, err);
    if (!doc)
        return LLMROOF_EINPUT;
    /* a misspelt band ("servng_ttft") would otherwise leave --range on another band unseen */
    static const char *const known[] = { "ttft", "tpot", "e2e", "serving_ttft", "serving_tpot", "serving_e2e", "source" };
    for (const cJSON *it = doc->child; it; it = it->next) {
        bool ok = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0] && !ok; k++)
            ok = it->string && strcmp(it->string, known[k]) == 0;
        if (!ok) {
            char name[65] = "";
            for (size_t k = 0; it->string && it->string[k] && k < sizeof name - 1; k++) /* printable, as echoed */
                name[k] = (unsigned char)it->string[k] < 0x20 || it->string[k] == 0x7f ? '?' : it->string[k];
            llmroof_err_set(err, LLMROOF_EINPUT,
                            "%s: unknown field '%s' (expected ttft, tpot, e2e, serving_ttft, serving_tpot, "
                            "serving_e2e or source)",
                            fname, name);
            cJSON_Delete(doc);
            return LLMROOF_EINPUT;
        }
    }
    int rc;
    if (!(rc = band(doc, "ttft", fname, &u->ttft, err)) && !(rc = band(doc, "tpot", fname, &u->tpot, err)) &&
        !(rc = band(doc, "e2e", fname, &u->e2e, err)) && !(rc = band(doc, "serving_ttft", fname, &u->serving_ttft, err)) &&
        !(rc = band(doc, "serving_tpot", fname, &u->serving_tpot, err)))
        rc = band(doc, "serving_e2e", fname, &u->serving_e2e, err);
    cJSON_Delete(doc);
    /* a file of no band gives --range nothing to say: its low and high columns had printed blank,
     * without a word (a review: validate had written one from a file of no predicted row) */
    if (!rc && !u->ttft.present && !u->tpot.present && !u->e2e.present && !u->serving_ttft.present &&
        !u->serving_tpot.present && !u->serving_e2e.present)
        rc = llmroof_err_set(err, LLMROOF_EINPUT,
                             "%s: no band (expected at least one of ttft, tpot, e2e, serving_ttft, serving_tpot, "
                             "serving_e2e; 'llmroof validate --uncertainty-out' writes them from the rows it predicts)",
                             fname);
    return rc;
}

