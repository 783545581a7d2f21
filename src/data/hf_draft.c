/* hf_draft.c - an EAGLE-family draft head's HuggingFace config.json, read for the shape of its
 * one decoder layer (--spec-draft-config; docs/model.md "Speculative decoding").
 *
 * The released EAGLE and EAGLE-3 heads are plain Llama decoder layers whatever their target's
 * attention (EAGLE-3's LlamaForCausalLMEagle3 in SGLang's and vLLM's llama_eagle3.py): SpecForge's
 * configs/deepseek-v3-671b-eagle3.json is 56 query heads over 8 KV heads of 7,168 / 56 = 128 and an
 * MLP 40,960 wide beside a target of 128 MLA heads; configs/kimi-k2-eagle3.json 64 / 64 of 128 and
 * 18,432. The fields read are LlamaConfig's (transformers' configuration_llama.py: head_dim defaults
 * to hidden_size // num_attention_heads, num_key_value_heads to num_attention_heads). */
#include "data/json_read.h"
#include "data/hf_internal.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* Whether `architectures` names an EAGLE-3 class ("LlamaForCausalLMEagle3", SpecForge's
 * "DeepseekV3ForCausalLMEagle3"): SGLang and vLLM pick their EAGLE-3 model by that suffix. */
static bool names_eagle3(const cJSON *root)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(root, "architectures");
    for (const cJSON *x = a && cJSON_IsArray(a) ? a->child : NULL; x; x = x->next)
        if (cJSON_IsString(x) && x->valuestring && strstr(x->valuestring, "Eagle3"))
            return true;
    return false;
}

/* A member present and not null (an absent optional field). */
static bool present(const cJSON *root, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    return v && !cJSON_IsNull(v);
}

/* The dtype the head's weights are stored in: torch_dtype (transformers 4.56 and later write it
 * as dtype). The released heads are 16-bit whatever their target's checkpoint: SpecForge's
 * configs/deepseek-v3-671b-eagle3.json (a head for DeepSeek-V3's fp8 checkpoint) says "float16", as
 * yuhuili/EAGLE-Vicuna-7B-v1.3's config.json does (EAGLE-LLaMA3-Instruct-8B's weights are
 * torch.HalfStorage); lmsys/sglang-EAGLE3-Llama-4-Maverick-17B-128E-Instruct-v1's card serves its
 * head beside the FP8 Maverick with --dtype bfloat16. A "float32" config is served at 16 bits (vLLM loads a draft at
 * its target's dtype, SpeculativeConfig's dtype=target_model_config.dtype; SGLang's dtype "auto"
 * takes float16 for a float32 config), so it states nothing here; another name is refused. */
static int read_dtype(const char *fname, const cJSON *root, enum llmroof_dtype *out, bool *set,
                      struct llmroof_err *err)
{
    const char *key = present(root, "torch_dtype") ? "torch_dtype" : "dtype";
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
    *set = false;
    if (!v || cJSON_IsNull(v))
        return LLMROOF_OK;
    const char *s = cJSON_GetStringValue(v);
    if (s && (!strcmp(s, "float16") || !strcmp(s, "bfloat16"))) {
        *out = s[0] == 'f' ? LLMROOF_FP16 : LLMROOF_BF16;
        *set = true;
        return LLMROOF_OK;
    }
    if (s && !strcmp(s, "float32"))
        return LLMROOF_OK;
    return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field '%s' must be \"float16\", \"bfloat16\" or \"float32\": "
                           "a draft head's weights are 16-bit (a float32 one is served at 16 bits)", fname, key);
}

static int read_head(const char *fname, const cJSON *root, const struct llmroof_model *target,
                     struct llmroof_draft_head *out, struct llmroof_err *err)
{
    static const char *const k_hidden[] = { "hidden_size", NULL };
    static const char *const k_heads[] = { "num_attention_heads", NULL };
    static const char *const k_kv[] = { "num_key_value_heads", NULL };
    static const char *const k_hd[] = { "head_dim", NULL };
    static const char *const k_inter[] = { "intermediate_size", NULL };
    static const char *const k_dvocab[] = { "draft_vocab_size", NULL };
    static const char *const k_vocab[] = { "vocab_size", NULL };
    static const char *const k_layers[] = { "num_hidden_layers", NULL };
    long hidden, heads, kv, hd, inter, vocab = 0, layers;
    int rc;
    /* bounds: the catalog's for a model's fields (catalog_check_model) */
    if ((rc = hf_int(fname, root, k_hidden, true, 0, 1, 1048576, &hidden, err)))
        return rc;
    if (hidden != target->hidden)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'hidden_size' is %ld, but %s's hidden size is %ld: "
                               "a draft head reads the target's hidden states, so the two must be equal",
                               fname, hidden, target->id, target->hidden);
    /* an MLA draft layer (SpecForge's configs/deepseek-r1-eagle3.json, DeepseekV3ForCausalLMEagle3)
     * is not a Llama layer: its q/k/v are low-rank projections these fields do not describe */
    if (present(root, "kv_lora_rank"))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'kv_lora_rank': a draft head with multi-head latent "
                               "attention is not modelled; --spec-draft-config takes a Llama-style head "
                               "(num_attention_heads, num_key_value_heads, head_dim)", fname);
    if ((rc = hf_int(fname, root, k_layers, false, 1, 1, 1, &layers, err)))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'num_hidden_layers' must be 1: an EAGLE head is one "
                               "decoder layer", fname);
    if ((rc = hf_int(fname, root, k_heads, true, 0, 1, 65536, &heads, err)) ||
        (rc = hf_int(fname, root, k_kv, false, heads, 1, 65536, &kv, err)))
        return rc;
    if (kv > heads || heads % kv != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'num_key_value_heads' (%ld) must divide "
                               "'num_attention_heads' (%ld): each KV head serves a whole group of query heads",
                               fname, kv, heads);
    if (!present(root, "head_dim") && hidden % heads != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'head_dim' is absent and 'num_attention_heads' (%ld) "
                               "does not divide 'hidden_size' (%ld); state head_dim", fname, heads, hidden);
    if ((rc = hf_int(fname, root, k_hd, false, hidden / heads, 1, 65536, &hd, err)) ||
        (rc = hf_int(fname, root, k_inter, true, 0, 1, 16777216, &inter, err)))
        return rc;
    /* the target's vocabulary: a head drafts for one tokenizer (EAGLE-1/2 project onto it, EAGLE-3
     * maps its drafts back to it through d2t), so a head trained for another target (DeepSeek-V3's
     * 129,280 against Kimi-K2's 163,840) is refused */
    long tv = 0;
    if (present(root, "vocab_size")) {
        if ((rc = hf_int(fname, root, k_vocab, true, 0, 1, 100000000, &tv, err)))
            return rc;
        if (tv != target->vocab)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'vocab_size' is %ld, but %s's vocabulary is %ld: "
                                   "a draft head drafts for its target's tokenizer, so the two must be equal",
                                   fname, tv, target->id, target->vocab);
    }
    /* the head's vocabulary: EAGLE-3's own (draft_vocab_size), else the config's vocab_size */
    const bool dv = present(root, "draft_vocab_size");
    if ((rc = hf_int(fname, root, dv ? k_dvocab : k_vocab, false, 0, dv ? 1 : 0, 100000000, &vocab, err)))
        return rc;
    if (dv && vocab > target->vocab)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'draft_vocab_size' (%ld) is more than %s's vocabulary "
                               "of %ld; an EAGLE-3 head drafts over a subset of the model's tokens",
                               fname, vocab, target->id, target->vocab);
    if (!dv && vocab > target->vocab)
        vocab = target->vocab; /* an EAGLE-3 config without draft_vocab_size drafts over all tokens */
    bool bias = false;
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(root, "attention_bias");
    if (b && !cJSON_IsNull(b)) {
        if (!cJSON_IsBool(b))
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s: field 'attention_bias' must be true or false", fname);
        bias = cJSON_IsTrue(b);
    }
    enum llmroof_dtype wd = LLMROOF_BF16;
    bool wd_set = false;
    if ((rc = read_dtype(fname, root, &wd, &wd_set, err)))
        return rc;
    *out = (struct llmroof_draft_head){ heads, kv, hd, inter, vocab, dv || names_eagle3(root), bias, dv, wd_set, wd };
    return LLMROOF_OK;
}

int catalog_draft_head_from_hf(const char *text, size_t len, const char *fname, const struct llmroof_model *target,
                               struct llmroof_draft_head *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    /* Python-JSON as the Hub serves it (bare NaN, Infinity), as import-hf reads it */
    size_t plen = 0;
    char *ptext = hf_python_json(text, len, &plen);
    if (!ptext)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    cJSON *root = json_parse_object(ptext, plen, fname, err);
    free(ptext);
    if (!root)
        return LLMROOF_EINPUT;
    const int rc = read_head(fname, root, target, out, err);
    cJSON_Delete(root);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}
