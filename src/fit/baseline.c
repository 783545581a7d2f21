/* baseline.c - see llmroof/baseline.h */
#include "fit/baseline.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/dtype.h"
#include "base/parse.h"
#include "data/json_read.h"

#define BAD(...) llmroof_err_set(err, LLMROOF_EINPUT, __VA_ARGS__)

static int str_field(const cJSON *o, const char *key, char *out, size_t cap, const char *fname, long ln,
                     struct llmroof_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) /* worded as a missing number's (a review: a row without "reason" read "must be a string") */
        return BAD("%s:%ld: field '%s' is missing: expected a string, as sweep writes it", fname, ln, key);
    if (!cJSON_IsString(v) || !v->valuestring)
        return BAD("%s:%ld: field '%s' must be a string", fname, ln, key);
    if (strlen(v->valuestring) >= cap)
        return BAD("%s:%ld: field '%s' is too long", fname, ln, key);
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1); /* length checked above */
    return LLMROOF_OK;
}

static int num_field(const cJSON *o, const char *key, double lo, double hi, double *out, const char *fname, long ln,
                     struct llmroof_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) /* say so: "must be a number" read as if a value were there (a review) */
        return BAD("%s:%ld: field '%s' is missing: expected a number in [%g, %g], as sweep writes it", fname, ln, key,
                   lo, hi);
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo || v->valuedouble > hi)
        return BAD("%s:%ld: field '%s' must be a number in [%g, %g]", fname, ln, key, lo, hi);
    *out = v->valuedouble;
    return LLMROOF_OK;
}

static int int_field(const cJSON *o, const char *key, long lo, long hi, long *out, const char *fname, long ln,
                     struct llmroof_err *err)
{
    double d = 0;
    if (!cJSON_GetObjectItemCaseSensitive(o, key))
        return BAD("%s:%ld: field '%s' is missing: expected an integer in [%ld, %ld], as sweep writes it", fname, ln,
                   key, lo, hi);
    if (num_field(o, key, (double)lo, (double)hi, &d, fname, ln, err) || d != floor(d))
        return BAD("%s:%ld: field '%s' must be an integer in [%ld, %ld]", fname, ln, key, lo, hi);
    *out = (long)d;
    return LLMROOF_OK;
}

static int dtype_field(const cJSON *o, const char *key, enum llmroof_dtype *out, const char *fname, long ln,
                       struct llmroof_err *err)
{
    char s[16];
    int rc = str_field(o, key, s, sizeof s, fname, ln, err);
    if (rc)
        return rc;
    if (!dtype_parse(s, out))
        return BAD("%s:%ld: field '%s': unknown dtype '%s'", fname, ln, key, s);
    return LLMROOF_OK;
}

/* a phase's bound as sweep writes it (roofline_phase_bound_name) into out[8] */
static int bound_field(const cJSON *o, const char *key, char *out, const char *fname, long ln, struct llmroof_err *err)
{
    char s[16];
    int rc = str_field(o, key, s, sizeof s, fname, ln, err);
    if (rc)
        return rc;
    static const char *const names[] = { "compute", "memory", "comm", "cpu" };
    for (size_t b = 0; b < sizeof names / sizeof names[0]; b++)
        if (strcmp(s, names[b]) == 0) {
            snprintf(out, 8, "%s", names[b]);
            return LLMROOF_OK;
        }
    return BAD("%s:%ld: field '%s' must be compute, memory, comm or cpu", fname, ln, key);
}

static int bool_field(const cJSON *o, const char *key, bool *out, const char *fname, long ln, struct llmroof_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || !cJSON_IsBool(v))
        return BAD("%s:%ld: field '%s' must be true or false", fname, ln, key);
    *out = cJSON_IsTrue(v);
    return LLMROOF_OK;
}

int baseline_parse_row(const char *line, size_t len, const char *fname, long ln, struct sweep_row *r,
                       struct llmroof_err *err)
{
    static const char *const known[] = {
        "model", "gpu", "tp", "batch", "prompt_len", "output_len", "weight_dtype", "kv_dtype", "act_dtype",
        "valid", "reason", "fits", "weights_bytes_per_gpu", "kv_bytes_per_token_per_gpu", "max_batch", "ttft_s",
        "tpot_s", "e2e_s", "decode_tok_s", "output_tok_s", "prefill_bound", "decode_bound", "prefill_comm_share",
        "decode_comm_share", "schema", "pp", "ep", "dp_attention", "ep_imbalance", "two_batch_overlap", "moe_tp", "state_dtype",
        "engine", NULL
    };
    memset(r, 0, sizeof *r);
    size_t bad;
    if (!parse_utf8_valid(line, len, &bad))
        return BAD("%s:%ld:%zu: not valid UTF-8", fname, ln, bad + 1);
    /* what cJSON would take but a C string cannot hold: "llama-7b\u0000x" had read as llama-7b */
    const char *why = NULL;
    if ((bad = json_lexical_error(line, len, &why)) != SIZE_MAX)
        return BAD("%s:%ld:%zu: %s", fname, ln, bad + 1, why);
    /* a sweep row is flat: any nesting is wrong, deep nesting only costs cJSON time */
    if ((bad = parse_json_too_deep(line, len, 1)) != SIZE_MAX)
        return BAD("%s:%ld:%zu: nested value (a sweep row is a flat JSON object)", fname, ln, bad + 1);
    const char *end = NULL;
    cJSON *o = cJSON_ParseWithLengthOpts(line, len, &end, false);
    if (!o) {
        /* a line that is not JSON from its first byte: most likely a sweep written as CSV (the
         * default --format), which "malformed JSON" did not say */
        size_t first = 0;
        while (first < len && (line[first] == ' ' || line[first] == '\t'))
            first++;
        if (first < len && line[first] != '{' && line[first] != '[')
            return BAD("%s:%ld:%zu: malformed JSON: a baseline is JSON Lines, one sweep row per line "
                       "('llmroof sweep ... --format jsonl'; this line starts with '%c')", fname, ln, first + 1,
                       (line[first] >= 0x20 && line[first] < 0x7f) ? line[first] : '?');
        return BAD("%s:%ld:%ld: malformed JSON", fname, ln, end && end >= line ? (long)(end - line) + 1 : 1L);
    }
    int rc = LLMROOF_OK;
    /* cJSON stops after the value; anything but whitespace after it is a second value */
    size_t off = end && end >= line ? (size_t)(end - line) : len;
    while (off < len && (line[off] == ' ' || line[off] == '\t' || line[off] == '\r' || line[off] == '\n'))
        off++;
    if (off < len) {
        rc = BAD("%s:%ld:%zu: unexpected text after the JSON object (one sweep row per line)", fname, ln, off + 1);
        goto out;
    }
    if (!cJSON_IsObject(o)) {
        rc = BAD("%s:%ld: expected a JSON object (one sweep row per line)", fname, ln);
        goto out;
    }
    size_t dup = 0;
    int d = parse_json_dup_key(line, len, &dup);
    if (d < 0) {
        rc = llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
        goto out;
    }
    if (d) {
        rc = BAD("%s:%ld:%zu: duplicate key (each field once per row)", fname, ln, dup + 1);
        goto out;
    }
    for (const cJSON *it = o->child; it; it = it->next) {
        bool ok = false;
        for (const char *const *k = known; *k; k++)
            ok |= it->string && strcmp(it->string, *k) == 0;
        if (!ok) {
            rc = BAD("%s:%ld: field '%s' is not a sweep column", fname, ln, it->string ? it->string : "?");
            goto out;
        }
    }
    /* rows of older baselines carry no schema; a row that names one names this one */
    const cJSON *sch = cJSON_GetObjectItemCaseSensitive(o, "schema");
    if (sch && (!cJSON_IsString(sch) || strcmp(sch->valuestring, SWEEP_SCHEMA) != 0)) {
        rc = BAD("%s:%ld: field 'schema' must be \"" SWEEP_SCHEMA "\" (docs/json.md)", fname, ln);
        goto out;
    }
    long tp = 0;
    if ((rc = str_field(o, "model", r->model, sizeof r->model, fname, ln, err)) ||
        (rc = str_field(o, "gpu", r->gpu, sizeof r->gpu, fname, ln, err)) ||
        (rc = int_field(o, "tp", 1, 1024, &tp, fname, ln, err)) ||
        (rc = int_field(o, "batch", 1, 1000000, &r->batch, fname, ln, err)) ||
        (rc = int_field(o, "prompt_len", 1, 1000000000, &r->prompt, fname, ln, err)) ||
        /* sweep writes 2 or more: one token has no decode step (a row of 1 had read a TPOT of 0 as
         * a drift, a review) */
        (rc = int_field(o, "output_len", 2, 1000000000, &r->output, fname, ln, err)) ||
        (rc = dtype_field(o, "weight_dtype", &r->dt.weight, fname, ln, err)) ||
        (rc = dtype_field(o, "kv_dtype", &r->dt.kv, fname, ln, err)) ||
        (rc = dtype_field(o, "act_dtype", &r->dt.act, fname, ln, err)) ||
        /* sweep --state-dtype: the row's state dtype; absent, the model's own */
        (cJSON_GetObjectItemCaseSensitive(o, "state_dtype") &&
         (rc = dtype_field(o, "state_dtype", &r->dt.state, fname, ln, err))) ||
        /* sweep --engine: the profile the row was evaluated with; absent, none */
        (cJSON_GetObjectItemCaseSensitive(o, "engine") &&
         (rc = str_field(o, "engine", r->engine, sizeof r->engine, fname, ln, err))) ||
        (rc = bool_field(o, "valid", &r->valid, fname, ln, err)))
        goto out;
    if (cJSON_GetObjectItemCaseSensitive(o, "state_dtype")) {
        if (!dtype_is_state(r->dt.state)) {
            rc = BAD("%s:%ld: field 'state_dtype' must be fp32, fp16, bf16 or fp8", fname, ln);
            goto out;
        }
        r->dt.state_set = true;
        r->state_given = true;
    }
    r->tp = (int)tp;
    /* layout beyond TP, present only in rows of a sweep with --pp/--ep (ep_imbalance only when given) */
    long pp = 1, ep = 1, moe_tp = 1;
    if ((cJSON_GetObjectItemCaseSensitive(o, "pp") && (rc = int_field(o, "pp", 1, 1024, &pp, fname, ln, err))) ||
        (cJSON_GetObjectItemCaseSensitive(o, "ep") && (rc = int_field(o, "ep", 1, 4096, &ep, fname, ln, err))) ||
        (cJSON_GetObjectItemCaseSensitive(o, "dp_attention") &&
         (rc = bool_field(o, "dp_attention", &r->dp_attn, fname, ln, err))) ||
        (cJSON_GetObjectItemCaseSensitive(o, "ep_imbalance") &&
         (rc = num_field(o, "ep_imbalance", 1, 64, &r->ep_imbalance, fname, ln, err))) ||
        (cJSON_GetObjectItemCaseSensitive(o, "two_batch_overlap") &&
         (rc = bool_field(o, "two_batch_overlap", &r->two_batch_overlap, fname, ln, err))) ||
        (cJSON_GetObjectItemCaseSensitive(o, "moe_tp") && (rc = int_field(o, "moe_tp", 1, 4096, &moe_tp, fname, ln, err))))
        goto out;
    r->moe_tp = (int)moe_tp;
    r->pp = (int)pp;
    r->ep = (int)ep;
    if (!r->valid) {
        rc = str_field(o, "reason", r->reason, sizeof r->reason, fname, ln, err);
        goto out;
    }
    const double BIG = 1e300;
    if ((rc = bool_field(o, "fits", &r->fits, fname, ln, err)) ||
        (rc = num_field(o, "weights_bytes_per_gpu", 0, BIG, &r->weights_bytes_per_gpu, fname, ln, err)) ||
        (rc = num_field(o, "kv_bytes_per_token_per_gpu", 0, BIG, &r->kv_bytes_per_token_per_gpu, fname, ln, err)) ||
        (rc = num_field(o, "max_batch", 0, BIG, &r->max_batch, fname, ln, err)) ||
        /* sequences: a whole number, as sweep writes it (173.4 had passed within rtol; a review) */
        (r->max_batch != floor(r->max_batch) &&
         (rc = BAD("%s:%ld: field 'max_batch' must be a whole number of sequences", fname, ln))) ||
        (rc = num_field(o, "ttft_s", 0, BIG, &r->ttft_s, fname, ln, err)) ||
        (rc = num_field(o, "tpot_s", 0, BIG, &r->tpot_s, fname, ln, err)) ||
        (rc = num_field(o, "e2e_s", 0, BIG, &r->e2e_s, fname, ln, err)) ||
        (rc = num_field(o, "decode_tok_s", 0, BIG, &r->decode_tok_s, fname, ln, err)) ||
        (rc = num_field(o, "output_tok_s", 0, BIG, &r->output_tok_s, fname, ln, err)) ||
        (rc = bound_field(o, "prefill_bound", r->prefill_bound, fname, ln, err)) ||
        (rc = bound_field(o, "decode_bound", r->decode_bound, fname, ln, err)) ||
        (rc = num_field(o, "prefill_comm_share", 0, 1, &r->prefill_comm_share, fname, ln, err)) ||
        (rc = num_field(o, "decode_comm_share", 0, 1, &r->decode_comm_share, fname, ln, err)))
        goto out;
out:
    cJSON_Delete(o);
    return rc;
}
