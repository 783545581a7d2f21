/* hf.c - a HuggingFace config.json turned into a catalog model entry (llmroof import-hf). */
#include "json_read.h"


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
        /* a derived default obeys the loader's bounds too (head_dim = 8 / 64 would be 0) */
        if (dflt < lo || dflt > hi)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' is absent and its default %ld is outside [%ld, %ld]",
                                   fname, keys[0], dflt, lo, hi);
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
    if (!id || !json_valid_id(id) || strlen(id) >= sizeof m->id)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--name '%s' must be 1-63 lowercase letters, digits, '-', '.' or '_'", id ? id : "");
    cJSON *doc = json_parse(text, len, fname, err);
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

    /* the flags read below with hf_bool: a present value must be true, false or null */
    static const char *const k_bools[] = { "tie_word_embeddings", "attention_bias", "mlp_bias", "bias",
                                           "enable_bias", "parallel_attn", "multi_query",
                                           "new_decoder_architecture", NULL };
    for (const char *const *k = k_bools; *k; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, *k);
        if (v && !cJSON_IsBool(v) && !cJSON_IsNull(v)) {
            llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be true or false", fname, *k);
            cJSON_Delete(doc);
            return LLMROOF_EINPUT;
        }
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
    const cJSON *hd = cJSON_GetObjectItemCaseSensitive(doc, "head_dim");
    if (m->hidden % m->heads != 0 && (!hd || cJSON_IsNull(hd))) { /* null means absent */
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
        if (m->learned_pos > 1000000000) { /* the loader's bound on learned_pos (catalog.c) */
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: max_position_embeddings %ld + 2 learned positions exceeds "
                                 "the catalog's limit of 1000000000", fname, m->max_context);
            goto out;
        }
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

