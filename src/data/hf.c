/* hf.c - a HuggingFace config.json turned into a catalog model entry (llmroof import-hf). */
#include "data/json_read.h"
#include "data/hf_internal.h"


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
#include <dirent.h>

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

enum hf_family {
    HF_LLAMA, HF_QWEN2, HF_MIXTRAL, HF_FALCON, HF_GPTJ, HF_OPT, HF_INTERNLM,
    HF_QWEN3, HF_QWEN3_MOE, HF_DEEPSEEK, HF_GEMMA2, HF_GEMMA3, HF_GPT_OSS, HF_LLAMA4
};

void hf_warn(char *warn, size_t cap, const char *fmt, ...)
{
    if (!warn || !cap)
        return;
    size_t used = strlen(warn);
    if (used + 1 >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(warn + used, cap - used, fmt, ap);
    va_end(ap);
    used = strlen(warn);
    if (used + 1 < cap) {
        warn[used] = '\n';
        warn[used + 1] = '\0';
    }
}

const cJSON *hf_get(const cJSON *doc, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

int hf_int(const char *fname, const cJSON *doc, const char *const *keys, bool required, long dflt,
                  long lo, long hi, long *out, struct llmroof_err *err)
{
    /* a field of a nested object is named by its path: a multimodal config's language model sits
     * in text_config ("field 'text_config.max_position_embeddings' is missing"), Kimi's linear
     * attention in linear_attn_config; a member's cJSON item carries its own key, the root none.
     * Unnamed, a field missing from text_config but present at the root read as a contradiction. */
    const char *in = doc && doc->string ? doc->string : "", *dot = *in ? "." : "";
    double v;
    const char *which = keys[0];
    if (!hf_num(doc, keys, &v, &which)) {
        /* a key present with a non-number value is an error, not a default */
        for (const char *const *k = keys; *k; k++) {
            const cJSON *x = cJSON_GetObjectItemCaseSensitive(doc, *k);
            if (x && !cJSON_IsNull(x))
                return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%s%s' must be a number", fname, in, dot, *k);
        }
        if (required) {
            /* null, or Python-JSON NaN (read as null): there, not missing (a review) */
            for (const char *const *k = keys; *k; k++)
                if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, *k)))
                    return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%s%s' is null or NaN; expected an integer "
                                           "in [%ld, %ld]", fname, in, dot, *k, lo, hi);
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%s%s' is missing", fname, in, dot, keys[0]);
        }
        /* a derived default obeys the loader's bounds too (head_dim = 8 / 64 would be 0) */
        if (dflt < lo || dflt > hi)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%s%s' is absent and its default %ld is outside [%ld, %ld]",
                                   fname, in, dot, keys[0], dflt, lo, hi);
        *out = dflt;
        return LLMROOF_OK;
    }
    if (!isfinite(v) || v != floor(v) || v < (double)lo || v > (double)hi)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%s%s' must be an integer in [%ld, %ld]", fname,
                               in, dot, which, lo, hi);
    *out = (long)v;
    return LLMROOF_OK;
}

int hf_moe_groups(const char *fname, const cJSON *doc, struct llmroof_model *m, struct llmroof_err *err)
{
    static const char *const k_groups[] = { "n_group", NULL };
    static const char *const k_topk_groups[] = { "topk_group", NULL };
    long g = 0, tg = 0;
    int rc;
    if ((rc = hf_int(fname, doc, k_groups, false, 0, 0, 65536, &g, err)) ||
        (rc = hf_int(fname, doc, k_topk_groups, false, 0, 0, 65536, &tg, err)))
        return rc;
    if (g <= 1 || tg <= 0 || tg >= g)
        return LLMROOF_OK; /* every group open to every token: the plain top-k */
    if (m->moe_experts % g != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'n_group' (%ld) must divide the %ld routed experts",
                               fname, g, m->moe_experts);
    if (tg * (m->moe_experts / g) < m->moe_top_k)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'topk_group' (%ld) groups of %ld experts cannot hold "
                               "the %ld experts per token", fname, tg, m->moe_experts / g, m->moe_top_k);
    m->moe_groups = g;
    m->moe_topk_groups = tg;
    return LLMROOF_OK;
}

int hf_kv_shared(const char *fname, const cJSON *doc, long layers, struct llmroof_err *err)
{
    /* transformers' Gemma3nTextConfig (configuration_gemma3n.py): "the last num_kv_shared_layers
     * layers ... share the KV values in that each local and global layer in this range uses the KV
     * cache values computed for the last local or global layer ... before entering this range"
     * (its defaults, the E4B shape: 15 of 35 layers; google/gemma-3n-E2B: 10 of 30). Such a layer still attends (its
     * queries read the shared keys and values) but stores nothing, which no catalog field says */
    static const char *const k_shared[] = { "num_kv_shared_layers", NULL };
    long n = 0;
    int rc = hf_int(fname, doc, k_shared, false, 0, 0, layers, &n, err);
    if (rc || n == 0)
        return rc;
    const char *in = doc && doc->string ? doc->string : "", *dot = *in ? "." : "";
    return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%snum_kv_shared_layers' is %ld: the last %ld layers "
                           "reuse earlier layers' KV cache (Gemma-3n), which llmroof does not model (as plain layers "
                           "their KV would be counted; 0 or absent is read)", fname, in, dot, n, n);
}

int catalog_model_from_hf(const char *text, size_t len, const char *fname, const char *id,
                          struct llmroof_model *m, struct llmroof_err *err)
{
    char warn[1024] = "";
    return catalog_model_from_hf_warn(text, len, fname, id, m, warn, sizeof warn, err);
}

/* Layer types of a layer_types array: global iff (i+1) % n == 0 for the n returned; 0 when every
 * layer is sliding; -1 when the list follows no such period (then the caller refuses it). */
static long hf_layer_period(const cJSON *types, long layers)
{
    long n = 0, count = 0, first_global = -1;
    bool any_sliding = false;
    for (const cJSON *t = types ? types->child : NULL; t; t = t->next, count++) {
        if (!cJSON_IsString(t) || !t->valuestring)
            return -1;
        bool global = strcmp(t->valuestring, "full_attention") == 0;
        if (!global && strcmp(t->valuestring, "sliding_attention") != 0)
            return -1;
        if (global && first_global < 0)
            first_global = count;
        any_sliding |= !global;
    }
    if (count != layers)
        return -1;
    if (!any_sliding)
        return 1; /* every layer global */
    if (first_global < 0)
        return 0;
    n = first_global + 1;
    count = 0;
    for (const cJSON *t = types->child; t; t = t->next, count++) {
        bool global = strcmp(t->valuestring, "full_attention") == 0;
        if (global != ((count + 1) % n == 0))
            return -1;
    }
    return n;
}

/* A layer_types list where the family's layers are all of one kind (`want`: Llama and Qwen
 * "full_attention", Mistral's windowed layers "sliding_attention"): num_hidden_layers entries of
 * that kind, or an error naming the field. Transformers writes the list into Qwen2/Qwen3 configs
 * (every layer full while use_sliding_window is false); one that disagrees with the family's
 * layers had been passed over silently, while the families that read it refused the same list. */
static int hf_uniform_layer_types(const char *fname, const cJSON *lt, long layers, const char *want,
                                  struct llmroof_err *err)
{
    long count = 0;
    for (const cJSON *t = cJSON_IsArray(lt) ? lt->child : NULL; t; t = t->next, count++)
        if (!cJSON_IsString(t) || !t->valuestring || strcmp(t->valuestring, want) != 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'layer_types' entry %ld is not \"%s\": every layer "
                                   "of this model type is %s, which llmroof represents", fname, count, want, want);
    if (!cJSON_IsArray(lt) || count != layers)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'layer_types' must list num_hidden_layers (%ld) entries, "
                               "not %ld", fname, layers, cJSON_IsArray(lt) ? count : 0L);
    return LLMROOF_OK;
}

/* The imported model's id, name, HuggingFace id (the config's _name_or_path, when it fits) and
 * source line: the same for the generic field table and the type-specific families. */
static void hf_identity(struct llmroof_model *m, const char *id, const cJSON *root, const char *fname,
                        const char *type)
{
    snprintf(m->id, sizeof m->id, "%s", id);
    snprintf(m->name, sizeof m->name, "%s", id);
    const cJSON *nm = cJSON_GetObjectItemCaseSensitive(root, "_name_or_path");
    if (nm && cJSON_IsString(nm) && nm->valuestring && strlen(nm->valuestring) < sizeof m->hf_id)
        memcpy(m->hf_id, nm->valuestring, strlen(nm->valuestring) + 1);
    snprintf(m->source, sizeof m->source, "imported from HuggingFace config %s (model_type %s)", fname, type);
}

/* The context a YaRN-scaled config serves where its max_position_embeddings states the context
 * before scaling: Qwen2.5's and Qwen3's model cards enable YaRN by adding `rope_scaling` {"type":
 * "yarn", "factor": 4, "original_max_position_embeddings": 32768} to a config whose
 * max_position_embeddings is 32,768, and vLLM then serves factor x original = 131,072
 * (config.py _get_and_verify_max_len). Configs that state the scaled context already
 * (DeepSeek-V3's 163,840 = 40 x 4,096, gpt-oss's 131,072 over an original of 4,096) are left as
 * stated, and so are other rope types (linear, dynamic, llama3, longrope: their configs state the
 * context they serve). `rope_parameters` is transformers 5's name for the object. At most 1e9. */
static void hf_rope_context(const cJSON *doc, long *ctx)
{
    const cJSON *rs = cJSON_GetObjectItemCaseSensitive(doc, "rope_scaling");
    if (!cJSON_IsObject(rs))
        rs = cJSON_GetObjectItemCaseSensitive(doc, "rope_parameters");
    if (!cJSON_IsObject(rs))
        return;
    const cJSON *ty = cJSON_GetObjectItemCaseSensitive(rs, "rope_type");
    if (!cJSON_IsString(ty))
        ty = cJSON_GetObjectItemCaseSensitive(rs, "type");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(rs, "factor");
    const cJSON *orig = cJSON_GetObjectItemCaseSensitive(rs, "original_max_position_embeddings");
    if (!cJSON_IsString(ty) || strcmp(ty->valuestring, "yarn") != 0 || !cJSON_IsNumber(f) ||
        !(f->valuedouble > 1.0) || !(f->valuedouble <= 1e6) || !cJSON_IsNumber(orig) || !(orig->valuedouble >= 1) ||
        (double)*ctx > orig->valuedouble)
        return;
    const double scaled = floor(floor(orig->valuedouble) * f->valuedouble);
    if (scaled > (double)*ctx && scaled <= 1e9)
        *ctx = (long)scaled;
}

/* What is not a decoder-only LLM, said as such before any field is read: an encoder-decoder
 * (is_encoder_decoder: true; T5, BART, Whisper) or a masked-language encoder (BERT, RoBERTa,
 * ModernBERT: architectures names only *ForMaskedLM heads). Their fields had passed for a
 * decoder's (a ModernBERT-like config of known fields imported as a causal LLM) or failed on the
 * first unknown one ("field 'hidden_dropout_prob' ... would change the cost"), which did not say
 * why. A decoder's classification or reward head (Qwen2ForSequenceClassification) still imports. */
static int hf_not_decoder(const char *fname, const cJSON *root, const cJSON *doc, struct llmroof_err *err)
{
    for (const cJSON *o = doc;; o = root) {
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "is_encoder_decoder")))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%sis_encoder_decoder' is true: an encoder-decoder "
                                   "model, which llmroof does not model (import-hf reads decoder-only LLMs)", fname,
                                   o->string ? o->string : "", o->string ? "." : "");
        /* an embedding model built on a decoder (EmbeddingGemma: gemma3_text with
         * use_bidirectional_attention) attends both ways and generates nothing (a review: it had
         * imported as a causal decoder) */
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "use_bidirectional_attention")))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s%suse_bidirectional_attention' is true: an "
                                   "encoder (embedding) model, which llmroof does not model (import-hf reads "
                                   "decoder-only LLMs)", fname, o->string ? o->string : "", o->string ? "." : "");
        if (o == root)
            break;
    }
    const cJSON *arch = cJSON_GetObjectItemCaseSensitive(root, "architectures"), *a;
    if (!cJSON_IsArray(arch))
        return LLMROOF_OK;
    const char *masked = NULL;
    cJSON_ArrayForEach(a, arch) {
        if (!cJSON_IsString(a))
            continue;
        size_t n = strlen(a->valuestring), k = strlen("ForMaskedLM");
        if (n > k && !strcmp(a->valuestring + n - k, "ForMaskedLM"))
            masked = masked ? masked : a->valuestring;
        else
            return LLMROOF_OK; /* a head of any other kind: judged by the fields */
    }
    if (masked)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'architectures' names '%.64s', a masked-language "
                               "(encoder-only) model, which llmroof does not model (import-hf reads decoder-only LLMs)",
                               fname, masked);
    return LLMROOF_OK;
}

int catalog_model_from_hf_warn(const char *text, size_t len, const char *fname, const char *id,
                               struct llmroof_model *m, char *warn, size_t warn_cap, struct llmroof_err *err)
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
    static const char *const k_experts[] = { "num_local_experts", "num_experts", "n_routed_experts", NULL };
    static const char *const k_topk[] = { "num_experts_per_tok", "experts_per_token", NULL };
    static const char *const k_moe_inter[] = { "moe_intermediate_size", NULL };
    static const char *const k_shared[] = { "n_shared_experts", NULL };
    static const char *const k_first_dense[] = { "first_k_dense_replace", NULL };
    static const char *const k_step_ds[] = { "moe_layer_freq", NULL };
    static const char *const k_step_qw[] = { "decoder_sparse_step", NULL };
    static const char *const k_step_l4[] = { "interleave_moe_layer_step", NULL };
    static const char *const k_q_lora[] = { "q_lora_rank", NULL };
    static const char *const k_kv_lora[] = { "kv_lora_rank", NULL };
    static const char *const k_nope[] = { "qk_nope_head_dim", NULL };
    static const char *const k_rope[] = { "qk_rope_head_dim", NULL };
    static const char *const k_v[] = { "v_head_dim", NULL };
    static const char *const k_window[] = { "sliding_window", NULL };
    static const char *const k_pattern[] = { "sliding_window_pattern", NULL };
    static const char *const k_chunk[] = { "attention_chunk_size", NULL };
    static const char *const k_nope_every[] = { "no_rope_layer_interval", NULL };
    static const char *const k_inter_mlp[] = { "intermediate_size_mlp", NULL };
    static const char *const k_mtp[] = { "num_nextn_predict_layers", NULL };
    int rc;

    memset(m, 0, sizeof *m);
    if (warn && warn_cap)
        warn[0] = '\0';
    if (!id || !json_valid_id(id) || strlen(id) >= sizeof m->id)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--name '%s' must be 1-63 lowercase letters, digits, '-', '.' or '_'", id ? id : "");
    /* the Hub serves Python-JSON (Nemotron-H: "time_step_limit": [0.0, Infinity]); bare
     * Infinity and NaN become +-1e999 and null, whose meaning is checked where read */
    size_t plen = 0;
    char *ptext = hf_python_json(text, len, &plen);
    if (!ptext)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    cJSON *root = json_parse(ptext, plen, fname, err);
    free(ptext);
    if (!root)
        return LLMROOF_EINPUT;
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: expected a HuggingFace config.json object", fname);
    }
    /* Multimodal configs (Gemma-3, Llama-4) keep the language model in text_config; the vision
     * tower is not modelled and is said so. */
    const cJSON *doc = root;
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(root, "text_config");
    if (tc && cJSON_IsObject(tc)) {
        doc = tc;
        if (cJSON_GetObjectItemCaseSensitive(root, "vision_config"))
            hf_warn(warn, warn_cap, "%s: 'vision_config' (the image encoder) is not modelled: only text_config is", fname);
    }

    if ((rc = hf_not_decoder(fname, root, doc, err))) {
        cJSON_Delete(root);
        return rc;
    }
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(doc, "model_type");
    if (!(mt && cJSON_IsString(mt)) && doc != root)
        mt = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!mt && (cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "models")) ||
                cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "gpus")))) {
        /* llmroof's own catalog, not a HuggingFace config ("field 'model_type' is missing" did not say) */
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: an llmroof catalog file (a top-level '%s' list), not a HuggingFace "
                        "config.json: pass it with --%s-file", fname,
                        cJSON_GetObjectItemCaseSensitive(root, "models") ? "models" : "gpus",
                        cJSON_GetObjectItemCaseSensitive(root, "models") ? "models" : "gpus");
        cJSON_Delete(root);
        return LLMROOF_EINPUT;
    }
    if (!mt || !cJSON_IsString(mt) || !mt->valuestring) { /* say what it is, not 'is ""' */
        llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'model_type' %s%s", fname,
                        !mt ? "is missing" : "must be a string, got ",
                        !mt ? "" : cJSON_IsArray(mt) ? "a list" : cJSON_IsNull(mt) ? "null" : cJSON_IsObject(mt) ? "an object"
                                 : cJSON_IsNumber(mt) ? "a number" : "a boolean");
        cJSON_Delete(root);
        return LLMROOF_EINPUT;
    }
    const char *type = mt->valuestring;
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
    else if (!strcmp(type, "qwen3"))
        fam = HF_QWEN3;
    else if (!strcmp(type, "qwen3_moe"))
        fam = HF_QWEN3_MOE;
    else if ((!strcmp(type, "deepseek_v3") || !strcmp(type, "deepseek_v2") || !strcmp(type, "kimi_k2")) &&
             !cJSON_GetObjectItemCaseSensitive(doc, "index_topk"))
        fam = HF_DEEPSEEK; /* (with DSA's index fields the field table reads it, as deepseek_v32: a
                              review found them dropped, the model imported as dense MLA) */
    else if (!strcmp(type, "gemma2"))
        fam = HF_GEMMA2;
    else if (!strcmp(type, "gemma3") || !strcmp(type, "gemma3_text"))
        fam = HF_GEMMA3;
    else if (!strcmp(type, "gpt_oss"))
        fam = HF_GPT_OSS;
    else if (!strcmp(type, "llama4") || !strcmp(type, "llama4_text"))
        fam = HF_LLAMA4;
    else if (hf_generic_knows(type) || (type[0] && cJSON_GetObjectItemCaseSensitive(doc, "num_attention_heads"))) {
        /* every other decoder: the field table (hf_generic.c) */
        hf_identity(m, id, root, fname, type);
        /* a type without rules of its own is said, with what was assumed, by hf_generic_import */
        rc = hf_generic_import(fname, root, doc, type, m, warn, warn_cap, err);
        if (rc == LLMROOF_OK)
            goto quant;
        goto out;
    } else {
        llmroof_err_set(err, LLMROOF_EINPUT,
                        "%s: field 'model_type' is \"%s\"; supported: llama, mistral, mixtral, qwen2, qwen3, "
                        "qwen3_moe, deepseek_v2, deepseek_v3, kimi_k2, gemma2, gemma3, gpt_oss, llama4, falcon, "
                        "gptj, opt, internlm, the hybrid and sparse-attention families (qwen3_next, nemotron_h, "
                        "kimi_linear, jamba, falcon_h1, minimax, deepseek_v32, ...) and any decoder whose fields "
                        "import-hf knows (docs/catalog.md)",
                        fname, type);
        cJSON_Delete(root);
        return LLMROOF_EINPUT;
    }

    /* the flags read below with hf_bool: a present value must be true, false or null */
    static const char *const k_bools[] = { "tie_word_embeddings", "attention_bias", "mlp_bias", "bias",
                                           "enable_bias", "parallel_attn", "multi_query",
                                           "new_decoder_architecture", "use_sliding_window", NULL };
    for (const char *const *k = k_bools; *k; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, *k);
        if (!v || cJSON_IsBool(v) || cJSON_IsNull(v)) /* text_config configs also read the root's */
            v = cJSON_GetObjectItemCaseSensitive(root, *k);
        if (v && !cJSON_IsBool(v) && !cJSON_IsNull(v)) {
            llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be true or false", fname, *k);
            cJSON_Delete(root);
            return LLMROOF_EINPUT;
        }
    }

    hf_identity(m, id, root, fname, type);
    hf_warn_unknown_cost_fields(fname, doc, warn, warn_cap);
    /* a config without it is multi-head: transformers' configs default num_key_value_heads to the
     * attention heads (LlamaConfig and kin); said, as a dropped field reads the same (a review) */
    if (!cJSON_GetObjectItemCaseSensitive(doc, "num_key_value_heads") && fam != HF_DEEPSEEK && fam != HF_FALCON &&
        fam != HF_GPTJ && fam != HF_OPT)
        hf_warn(warn, warn_cap, "%s: no 'num_key_value_heads': every attention head keeps its own K/V (MHA), as "
                                "transformers defaults it", fname);

    bool plain = fam == HF_FALCON || fam == HF_GPTJ || fam == HF_OPT;
    bool mla = fam == HF_DEEPSEEK;
    /* Gemma-3's published configs leave to Gemma3TextConfig's defaults what they share
     * (transformers models/gemma3/configuration_gemma3.py: vocab_size 262,208,
     * max_position_embeddings 131,072, head_dim 256, sliding_window 4,096, sliding_window_pattern
     * 6): google/gemma-3-27b-it's text_config states none of the first two, and hidden / heads is
     * not its head size (a review found the real config refused) */
    const bool gemma3 = fam == HF_GEMMA3;
    if ((rc = hf_int(fname, doc, k_hidden, true, 0, 1, 1048576, &m->hidden, err)) ||
        (rc = hf_int(fname, doc, k_layers, true, 0, 1, 10000, &m->layers, err)) ||
        (rc = hf_int(fname, doc, k_heads, true, 0, 1, 65536, &m->heads, err)) ||
        (rc = hf_int(fname, doc, k_vocab, !gemma3, 262208, 1, 100000000, &m->vocab, err)))
        goto out;
    if ((rc = hf_kv_shared(fname, doc, m->layers, err)))
        goto out;
    /* Falcon-7B style multi-query configs carry multi_query: true and no KV count. */
    long kv_default = m->heads;
    if (fam == HF_FALCON && !hf_bool(doc, "new_decoder_architecture", false) && hf_bool(doc, "multi_query", true))
        kv_default = 1;
    if ((rc = hf_int(fname, doc, k_kv, false, kv_default, 1, 65536, &m->kv_heads, err)))
        goto out;
    if (mla) {
        /* MLA: num_key_value_heads is nominal (= heads); the cache is the latent (DeepSeek-V2 paper, section 2.1) */
        m->kv_heads = m->heads;
        if ((rc = hf_int(fname, doc, k_q_lora, false, 0, 0, 1048576, &m->q_lora_rank, err)) ||
            (rc = hf_int(fname, doc, k_kv_lora, true, 0, 1, 1048576, &m->kv_lora_rank, err)) ||
            (rc = hf_int(fname, doc, k_nope, true, 0, 0, 65536, &m->qk_nope_dim, err)) ||
            (rc = hf_int(fname, doc, k_rope, true, 0, 1, 65536, &m->qk_rope_dim, err)) ||
            (rc = hf_int(fname, doc, k_v, true, 0, 1, 65536, &m->v_head_dim, err)))
            goto out;
        m->head_dim = m->qk_nope_dim + m->qk_rope_dim;
    } else {
        const cJSON *hd = cJSON_GetObjectItemCaseSensitive(doc, "head_dim");
        if (!gemma3 && m->hidden % m->heads != 0 && (!hd || cJSON_IsNull(hd))) { /* null means absent */
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: hidden size %ld is not divisible by %ld heads and no head_dim is given",
                                 fname, m->hidden, m->heads);
            goto out;
        }
        if ((rc = hf_int(fname, doc, k_hd, false, gemma3 ? 256 : m->hidden / m->heads, 1, 65536, &m->head_dim, err)))
            goto out;
    }
    /* GPT-J's n_inner is null for 4*hidden; Falcon's ffn_hidden_size defaults to 4*hidden. */
    if ((rc = hf_int(fname, doc, k_inter, !plain, 4 * m->hidden, 1, 16777216, &m->intermediate, err)))
        goto out;
    /* Falcon configs have no max_position_embeddings key; FalconConfig's default is 2048. */
    if ((rc = hf_int(fname, doc, k_ctx, fam != HF_FALCON && !gemma3, gemma3 ? 131072 : 2048, 1, 1000000000,
                     &m->max_context, err)))
        goto out;
    hf_rope_context(doc, &m->max_context);

    switch (fam) {
    case HF_LLAMA:
    case HF_INTERNLM:
    case HF_MIXTRAL:
    case HF_QWEN2:
    case HF_QWEN3:
    case HF_QWEN3_MOE:
    case HF_DEEPSEEK:
    case HF_GPT_OSS:
    case HF_LLAMA4:
        m->mlp = LLMROOF_MLP_GATED;
        m->norm = LLMROOF_NORM_RMS;
        /* these configs default tie_word_embeddings to false */
        m->tied_embeddings = hf_bool(doc, "tie_word_embeddings", hf_bool(root, "tie_word_embeddings", false));
        if (fam == HF_QWEN2) {
            m->qkv_bias = true; /* hard-coded in modeling_qwen2.py, not a config field */
        } else if (fam == HF_INTERNLM) {
            m->qkv_bias = m->o_bias = hf_bool(doc, "bias", true);
        } else if (fam == HF_GPT_OSS) {
            /* attention_bias true; the experts' gate_up and down projections carry biases */
            m->qkv_bias = m->o_bias = hf_bool(doc, "attention_bias", true);
            m->mlp_bias = true;
        } else {
            m->qkv_bias = m->o_bias = hf_bool(doc, "attention_bias", false);
            m->mlp_bias = hf_bool(doc, "mlp_bias", false);
        }
        /* Qwen3 normalises q and k per head (q_norm, k_norm of head_dim) */
        m->qk_norm = fam == HF_QWEN3 || fam == HF_QWEN3_MOE;
        break;
    case HF_GEMMA2:
    case HF_GEMMA3:
        /* GeGLU (gate, up, down), RMSNorm before and after attention and MLP, tied embeddings */
        m->mlp = LLMROOF_MLP_GATED;
        m->norm = LLMROOF_NORM_RMS;
        m->norms_per_layer = 4;
        m->tied_embeddings = hf_bool(doc, "tie_word_embeddings", hf_bool(root, "tie_word_embeddings", true));
        m->qkv_bias = m->o_bias = hf_bool(doc, "attention_bias", false);
        m->qk_norm = fam == HF_GEMMA3;
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
        if (m->learned_pos > 1000000000) { /* the loader's bound on learned_pos (catalog_model.c) */
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: max_position_embeddings %ld + 2 learned positions exceeds "
                                 "the catalog's limit of 1000000000", fname, m->max_context);
            goto out;
        }
        break;
    }

    /* ---- mixture of experts ---- */
    if (fam == HF_MIXTRAL || fam == HF_QWEN3_MOE || fam == HF_DEEPSEEK || fam == HF_GPT_OSS || fam == HF_LLAMA4) {
        if ((rc = hf_int(fname, doc, k_experts, true, 0, 1, 65536, &m->moe_experts, err)) ||
            (rc = hf_int(fname, doc, k_topk, true, 0, 1, 65536, &m->moe_top_k, err)))
            goto out;
        m->moe_intermediate = m->intermediate;
        m->moe_layer_step = 1;
        if (fam == HF_QWEN3_MOE || fam == HF_DEEPSEEK) {
            if ((rc = hf_int(fname, doc, k_moe_inter, true, 0, 1, 16777216, &m->moe_intermediate, err)))
                goto out;
        }
        if (fam == HF_QWEN3_MOE) {
            if ((rc = hf_int(fname, doc, k_step_qw, false, 1, 1, 10000, &m->moe_layer_step, err)))
                goto out;
            /* HF Qwen3MoE: a layer is dense when listed in mlp_only_layers, else MoE where
             * (i + 1) % decoder_sparse_step == 0; a leading block 0..n-1 is the catalog's
             * moe_first_dense (a review found [0] and [0,1,2] refused though the message offered
             * a leading block) */
            const cJSON *mlo = hf_get(doc, "mlp_only_layers");
            if (mlo && !cJSON_IsArray(mlo)) {
                rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'mlp_only_layers' must be a list of layer "
                                     "numbers", fname);
                goto out;
            }
            long lead = 0;
            for (const cJSON *t = mlo ? mlo->child : NULL; t; t = t->next, lead++)
                if (!cJSON_IsNumber(t) || t->valuedouble != (double)lead) {
                    rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'mlp_only_layers' lists dense layers other "
                                         "than a leading block 0, 1, ..., n-1 (entry %ld), which llmroof cannot "
                                         "place (only a leading block and a layer step)", fname, lead);
                    goto out;
                }
            m->moe_first_dense = lead;
        }
        if (fam == HF_DEEPSEEK) {
            if ((rc = hf_int(fname, doc, k_shared, false, 0, 0, 65536, &m->moe_shared, err)) ||
                (rc = hf_int(fname, doc, k_first_dense, false, 0, 0, 10000, &m->moe_first_dense, err)) ||
                (rc = hf_int(fname, doc, k_step_ds, false, 1, 1, 10000, &m->moe_layer_step, err)))
                goto out;
            /* DeepSeek places MoE on i >= first_k_dense with i % freq == 0; llmroof's rule is
             * (i+1) % step == 0: identical for freq 1 only */
            if (m->moe_layer_step != 1) {
                rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'moe_layer_freq' %ld is not modelled (only 1)",
                                     fname, m->moe_layer_step);
                goto out;
            }
            if ((rc = hf_moe_groups(fname, doc, m, err)))
                goto out;
            /* the MTP modules are --spec mtp's drafter, as the generic importer takes them (a
             * review: the same field warned "not modelled" here and left an imported DeepSeek-V3
             * without the drafter its catalog entry has) */
            long mtp = 0;
            if ((rc = hf_int(fname, doc, k_mtp, false, 0, 0, 64, &mtp, err)))
                goto out;
            m->mtp_layers = mtp;
            hf_warn_mtp(warn, warn_cap, fname, m);
        }
        if (fam == HF_LLAMA4) {
            /* every MoE layer has one shared expert of the routed width; dense layers use
             * intermediate_size_mlp */
            m->moe_shared = 1;
            if ((rc = hf_int(fname, doc, k_step_l4, false, 1, 1, 10000, &m->moe_layer_step, err)) ||
                (rc = hf_int(fname, doc, k_inter_mlp, false, m->intermediate, 1, 16777216, &m->intermediate, err)))
                goto out;
        }
        if (m->moe_first_dense >= m->layers) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' %ld leaves no MoE layer of %ld", fname,
                                 fam == HF_QWEN3_MOE ? "mlp_only_layers" : "first_k_dense_replace", m->moe_first_dense,
                                 m->layers);
            goto out;
        }
    }

    /* ---- sliding windows and chunks ---- */
    const cJSON *sw = hf_get(doc, "sliding_window");
    if (fam == HF_LLAMA || fam == HF_MIXTRAL) {
        /* Mistral: every layer a window when sliding_window is set (null: none) */
        if (sw && (rc = hf_int(fname, doc, k_window, false, 0, 1, 1000000000, &m->window, err)))
            goto out;
        const cJSON *lt = hf_get(doc, "layer_types");
        if (lt && (rc = hf_uniform_layer_types(fname, lt, m->layers, m->window > 0 ? "sliding_attention"
                                                                                     : "full_attention", err)))
            goto out;
    } else if (fam == HF_QWEN2 || fam == HF_QWEN3 || fam == HF_QWEN3_MOE) {
        if (hf_bool(doc, "use_sliding_window", false)) {
            rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'use_sliding_window' is true: Qwen's per-layer "
                                 "max_window_layers split is not modelled", fname);
            goto out;
        }
        const cJSON *lt = hf_get(doc, "layer_types");
        if (lt && (rc = hf_uniform_layer_types(fname, lt, m->layers, "full_attention", err)))
            goto out;
    } else if (fam == HF_GEMMA2 || fam == HF_GEMMA3 || fam == HF_GPT_OSS) {
        if ((rc = hf_int(fname, doc, k_window, !gemma3, 4096, 1, 1000000000, &m->window, err)))
            goto out;
        long every = fam == HF_GEMMA3 ? 6 : 2; /* Gemma-2, gpt-oss alternate; Gemma-3 5:1 */
        if (fam == HF_GEMMA3 && (rc = hf_int(fname, doc, k_pattern, false, 6, 1, 10000, &every, err)))
            goto out;
        const cJSON *lt = hf_get(doc, "layer_types");
        if (lt) {
            long n = cJSON_IsArray(lt) ? hf_layer_period(lt, m->layers) : -1;
            if (n < 0) {
                rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'layer_types' is not a periodic list of "
                                     "\"sliding_attention\"/\"full_attention\" of num_hidden_layers entries ending each "
                                     "period global, which llmroof cannot represent", fname);
                goto out;
            }
            every = n;
        }
        if (every == 1)
            m->window = 0; /* every layer global */
        else
            m->window_global_every = every;
        if (fam == HF_GPT_OSS) {
            /* the sinks' own FLOPs and bytes are left out; what they change is the kernel an engine can run */
            m->attention_sinks = true;
            hf_warn(warn, warn_cap, "%s: gpt-oss attention sinks (one learned logit per head): their own cost "
                    "is left out (negligible); attention_sinks set (no FlashAttention-2 kernel can run them)", fname);
        }
    } else if (fam == HF_LLAMA4) {
        const cJSON *ch = hf_get(doc, "attention_chunk_size");
        if (ch) {
            long every = 4;
            if ((rc = hf_int(fname, doc, k_chunk, false, 0, 1, 1000000000, &m->window, err)) ||
                (rc = hf_int(fname, doc, k_nope_every, false, 4, 1, 10000, &every, err)))
                goto out;
            /* chunked attention on the RoPE layers; every `every`-th layer is NoPE and global */
            m->window_chunked = true;
            m->window_global_every = every;
        }
        if ((rc = hf_llama4_layers(fname, doc, m, warn, warn_cap, err)))
            goto out;
    }
    if (sw && !(fam == HF_LLAMA || fam == HF_MIXTRAL || fam == HF_GEMMA2 || fam == HF_GEMMA3 || fam == HF_GPT_OSS ||
                fam == HF_QWEN2 || fam == HF_QWEN3 || fam == HF_QWEN3_MOE))
        hf_warn(warn, warn_cap, "%s: field 'sliding_window' is not used by model_type %s and is ignored", fname, type);

    /* ---- quantized checkpoints ---- */
quant:;
    const cJSON *qc = hf_get(doc, "quantization_config");
    if (!qc)
        qc = hf_get(root, "quantization_config");
    if (qc && !cJSON_IsNull(qc) && (rc = hf_quant_config(fname, qc, type, m, warn, warn_cap, err)))
        goto out;
    rc = catalog_check_model(m, fname, err);
out:
    cJSON_Delete(root);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* A repository id from the local HuggingFace cache                          */
/* ------------------------------------------------------------------------ */

/* "org/name": one slash, neither part empty, no path tricks. */
static bool hf_is_repo_id(const char *s)
{
    const char *slash = strchr(s, '/');
    if (!slash || slash == s || !slash[1] || strchr(slash + 1, '/'))
        return false;
    for (const char *p = s; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.' || *p == '/'))
            return false;
    return s[0] != '.' && slash[1] != '.';
}

/* The cache names a repository's directory "models--ORG--NAME" (huggingface_hub's
 * repo_folder_name: "models" and the id's parts joined by "--"): one directory entry, so at most
 * NAME_MAX (255) bytes on Linux file systems, and an id whose name would be longer cannot be in
 * the cache. "models--" (8 bytes) and the slash's second '-' leave 246 bytes for the id. */
#define HF_CACHE_ENTRY_MAX 255
#define HF_REPO_ID_MAX (HF_CACHE_ENTRY_MAX - 9)
/* Paths inside the cache: PATH_MAX on Linux, the longest path open() and stat() take. */
#define HF_PATH_MAX 4096

/* Whether snaps/rev/config.json is a regular file (rev at most 127 bytes). */
static bool hf_snapshot_has_config(const char *snaps, const char *rev)
{
    char path[HF_PATH_MAX + 160];
    struct stat st;
    int w = snprintf(path, sizeof path, "%s/%s/config.json", snaps, rev);
    return w > 0 && (size_t)w < sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int catalog_hf_resolve(const char *arg, const char *hub_cache, const char *hf_home, const char *home, char *out,
                       size_t cap, struct llmroof_err *err)
{
    struct stat st;
    if (stat(arg, &st) == 0 || !hf_is_repo_id(arg)) {
        /* a path (existing or not: the reader reports a missing file) */
        if (strlen(arg) >= cap)
            return llmroof_err_set(err, LLMROOF_EINPUT, "path '%s' is too long", arg);
        snprintf(out, cap, "%s", arg);
        return LLMROOF_OK;
    }
    /* a longer id had been cut to 509 bytes of its directory's name without a word, and the
     * lookup (and its message) went to a directory the id does not name */
    const size_t idlen = strlen(arg);
    if (idlen > HF_REPO_ID_MAX)
        return llmroof_err_set(err, LLMROOF_EINPUT, "repository id '%.64s...' is %zu bytes long: the HuggingFace cache "
                               "holds ids of at most %d bytes (its directory models--ORG--NAME is one name of at "
                               "most %d bytes)", arg, idlen, HF_REPO_ID_MAX, HF_CACHE_ENTRY_MAX);
    char hub[HF_PATH_MAX];
    int w;
    const char *base;
    /* huggingface_hub's own order (its constants.py): HF_HUB_CACHE names the hub itself, then
     * HF_HOME/hub, then the default under the home directory */
    if (hub_cache && hub_cache[0]) {
        base = "HF_HUB_CACHE";
        w = snprintf(hub, sizeof hub, "%s", hub_cache);
    } else if (hf_home && hf_home[0]) {
        base = "HF_HOME";
        w = snprintf(hub, sizeof hub, "%s/hub", hf_home);
    } else if (home && home[0]) {
        base = "HOME";
        w = snprintf(hub, sizeof hub, "%s/.cache/huggingface/hub", home);
    } else {
        return llmroof_err_set(err, LLMROOF_EINPUT, "'%s' is not a file, and none of HF_HUB_CACHE, HF_HOME and HOME is set to find "
                               "the HuggingFace cache", arg);
    }
    char repo[HF_CACHE_ENTRY_MAX + 1];
    size_t n = 0;
    memcpy(repo, "models--", 8);
    n = 8;
    for (const char *p = arg; *p; p++) {
        if (*p == '/') {
            repo[n++] = '-';
            repo[n++] = '-';          /* the cache spells "org/name" as "org--name" */
        } else {
            repo[n++] = *p;
        }
    }
    repo[n] = '\0';                  /* n <= 8 + HF_REPO_ID_MAX + 1 = HF_CACHE_ENTRY_MAX */
    /* the cache's paths, each checked: a long $HF_HOME or $HOME had been cut as silently */
    char snaps[HF_PATH_MAX], refp[HF_PATH_MAX];
    if (w < 0 || (size_t)w >= sizeof hub ||
        (w = snprintf(snaps, sizeof snaps, "%s/%s/snapshots", hub, repo)) < 0 || (size_t)w >= sizeof snaps ||
        (w = snprintf(refp, sizeof refp, "%s/%s/refs/main", hub, repo)) < 0 || (size_t)w >= sizeof refp)
        return llmroof_err_set(err, LLMROOF_EINPUT, "'%s': its path in the HuggingFace cache under $%s is longer than "
                               "the %d bytes a path may have", arg, base, HF_PATH_MAX);
    /* the revision refs/main names, else the last snapshot in name order */
    char rev[128] = "";
    FILE *f = fopen(refp, "r");
    if (f) {
        if (fgets(rev, sizeof rev, f))
            rev[strcspn(rev, "\r\n")] = '\0';
        fclose(f);
        bool hex = true;
        for (const char *p = rev; *p; p++)
            hex = hex && isxdigit((unsigned char)*p);
        if (!hex)
            rev[0] = '\0';
    }
    /* the revision refs/main names; when its snapshot holds no config.json (pruned, or only
     * other files fetched for it), the last snapshot in name order that holds one: the message
     * below says snapshots/ * /config.json was looked for, and one there had been passed over */
    if (rev[0] && !hf_snapshot_has_config(snaps, rev))
        rev[0] = '\0';
    if (!rev[0]) {
        DIR *d = opendir(snaps);
        if (d) {
            const struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                size_t nl = strlen(e->d_name);
                if (e->d_name[0] == '.' || nl >= sizeof rev || strcmp(e->d_name, rev) <= 0)
                    continue;
                if (hf_snapshot_has_config(snaps, e->d_name))
                    memcpy(rev, e->d_name, nl + 1);
            }
            closedir(d);
        }
    }
    if (rev[0] && hf_snapshot_has_config(snaps, rev)) {
        w = snprintf(out, cap, "%s/%s/config.json", snaps, rev);
        if (w < 0 || (size_t)w >= cap)
            return llmroof_err_set(err, LLMROOF_EINPUT, "path '%s/%s/config.json' is too long", snaps, rev);
        return LLMROOF_OK;
    }
    return llmroof_err_set(err, LLMROOF_EINPUT,
                           "'%s' is not a file and is not in the HuggingFace cache (looked for %s/*/config.json); "
                           "download it with `huggingface-cli download %s config.json` or pass the file's path",
                           arg, snaps, arg);
}
