/* hf_quant.c - a config.json's quantization_config: the checkpoint's stored format and bits per
 * weight (struct llmroof_model's ckpt_* fields), which every command then estimates unless
 * --weight-dtype or --weight-bits says otherwise (model/ckpt.c). docs/catalog.md "checkpoint".
 *
 * Methods read:
 *   fp8                 e4m3 weights, a fp32 scale per weight_block_size block (DeepSeek-V3, Qwen3-FP8)
 *   mxfp4               gpt-oss: the routed experts MXFP4, the rest 16-bit
 *   compressed-tensors  llm-compressor's format (Red Hat's, Moonshot's and Z.ai's checkpoints): one
 *                       scheme of config_groups over every Linear but the `ignore` list, read below
 *   awq, gptq           weight-only int4/int8 with group scales, AWQ's modules_to_not_convert
 *   fbgemm_fp8          fp8 weights, per-channel scales
 *   modelopt            NVIDIA Model Optimizer: NVFP4 or FP8, exclude_modules globs
 * Any other method is a warning: the weights are then the config's 16-bit dtype. */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/hf_internal.h"

#define ERR(...) llmroof_err_set(err, LLMROOF_EINPUT, __VA_ARGS__)
/* what a scheme llmroof does not model leaves: the config's own 16-bit weights (a review: "not
 * modelled" alone had not said so) */
#define FALLBACK "not modelled: every weight is estimated at 16 bits unless --weight-dtype or --weight-bits is given"

/* ------------------------------------------------------------------------ */
/* compressed-tensors' ignore list                                          */
/* ------------------------------------------------------------------------ */

/* The module kinds an ignore list may leave 16-bit, by the operators llmroof costs them in. */
enum ct_kind { CT_ATTN, CT_KV_UP, CT_O, CT_ROUTED, CT_SHARED, CT_DENSE, CT_HEAD, CT_KINDS };
static const char *const ct_kind_names[CT_KINDS] = { "attention projections", "MLA kv_b", "attention output",
                                                     "routed experts", "shared experts", "dense MLPs", "LM head" };

/* One ignore entry: a module name, or "re:" and a Python regex that compressed-tensors matches from
 * the name's start (re.match). POSIX extended regexes read the ones checkpoints use (".*", "\.",
 * alternation); \d, \w and \s are rewritten as classes and (?: as a plain group. */
struct ct_pat {
    bool re;
    bool hit; /* it matched one of the module names tried */
    const char *name;
    regex_t rx;
};

static bool ct_compile(const char *py, regex_t *rx)
{
    char buf[512];
    size_t o = 0;
    bool in_class = false; /* inside [...]: \d is 0-9 there, not a bracket of its own */
    buf[o++] = '^';
    buf[o++] = '(';
    for (const char *s = py; *s; s++) {
        const char *rep = NULL;
        char one[3] = { 0 };
        if (s[0] == '\\' && s[1]) {
            if (in_class)
                rep = s[1] == 'd' ? "0-9" : s[1] == 'w' ? "A-Za-z0-9_" : s[1] == 's' ? "[:space:]" : NULL;
            else
                rep = s[1] == 'd' ? "[0-9]" : s[1] == 'w' ? "[A-Za-z0-9_]" : s[1] == 's' ? "[[:space:]]" : NULL;
            if (!rep) {
                one[0] = s[0];
                one[1] = s[1];
                rep = one;
            }
            s++;
        } else if (s[0] == '(' && s[1] == '?' && s[2] == ':') {
            rep = "(";
            s += 2;
        } else if (s[0] == '(' && s[1] == '?') {
            return false; /* lookarounds, named groups, flags: not POSIX */
        } else {
            if (s[0] == '[' && !in_class)
                in_class = true;
            else if (s[0] == ']' && in_class)
                in_class = false;
            one[0] = s[0];
            rep = one;
        }
        const size_t n = strlen(rep);
        if (o + n + 2 >= sizeof buf)
            return false;
        memcpy(buf + o, rep, n);
        o += n;
    }
    buf[o++] = ')';
    buf[o] = '\0';
    return regcomp(rx, buf, REG_EXTENDED | REG_NOSUB) == 0;
}

/* Whether an entry matches `name`; every entry that does is marked (an entry that marks nothing is
 * reported: it names modules llmroof does not know, which it then counts at the scheme's bits). */
static bool ct_matches(struct ct_pat *p, int n, const char *name)
{
    bool any = false;
    for (int i = 0; i < n; i++)
        if (p[i].re ? regexec(&p[i].rx, name, 0, NULL, 0) == 0 : strcmp(p[i].name, name) == 0) {
            p[i].hit = true;
            any = true;
        }
    return any;
}

/* ct_matches on a language model's module name as a multimodal checkpoint nests it too:
 * "language_model.model.layers.0..." (LLaVA-style) and "model.language_model.layers.0..." (the
 * transformers 4.52+ layout), "language_model.lm_head" */
static bool ct_matches_nested(struct ct_pat *p, int n, const char *name)
{
    char alt[128];
    bool any = ct_matches(p, n, name);
    snprintf(alt, sizeof alt, "language_model.%s", name);
    any = ct_matches(p, n, alt) || any;
    if (!strncmp(name, "model.", 6)) {
        snprintf(alt, sizeof alt, "model.language_model.%s", name + 6);
        any = ct_matches(p, n, alt) || any;
    }
    return any;
}

/* A layer's module names as the families' checkpoints spell them (what ignore patterns are
 * written against): DeepSeek-style "mlp.experts.N.gate_proj" and "mlp.shared_experts" by default,
 * Qwen's MoE "mlp.shared_expert", Mixtral's "block_sparse_moe.experts.N.w1", Llama 4's
 * "feed_forward". Each kind is a few names; the kind is ignored in a layer when all are. */
static const char *ct_ffn_prefix(const char *type)
{
    return !strcmp(type, "mixtral") ? "block_sparse_moe" : !strncmp(type, "llama4", 6) ? "feed_forward" : "mlp";
}

static int ct_names(enum ct_kind k, const char *type, long layer, bool mla, char names[4][96])
{
    const bool mixtral = !strcmp(type, "mixtral"),
               qwen = !strcmp(type, "qwen2_moe") || !strcmp(type, "qwen3_moe") || !strcmp(type, "qwen3_next");
    const char *ffn = ct_ffn_prefix(type);
    int n = 0;
#define NAME(...) snprintf(names[n++], sizeof names[0], __VA_ARGS__)
    switch (k) {
    case CT_ATTN:
        if (mla) {
            NAME("model.layers.%ld.self_attn.q_a_proj", layer);
            NAME("model.layers.%ld.self_attn.q_b_proj", layer);
            NAME("model.layers.%ld.self_attn.kv_a_proj_with_mqa", layer);
        } else {
            NAME("model.layers.%ld.self_attn.q_proj", layer);
            NAME("model.layers.%ld.self_attn.k_proj", layer);
            NAME("model.layers.%ld.self_attn.v_proj", layer);
        }
        break;
    case CT_KV_UP: NAME("model.layers.%ld.self_attn.kv_b_proj", layer); break;
    case CT_O: NAME("model.layers.%ld.self_attn.o_proj", layer); break;
    case CT_ROUTED:
        if (mixtral) {
            NAME("model.layers.%ld.block_sparse_moe.experts.0.w1", layer);
            NAME("model.layers.%ld.block_sparse_moe.experts.0.w2", layer);
        } else {
            NAME("model.layers.%ld.%s.experts.0.gate_proj", layer, ffn);
            NAME("model.layers.%ld.%s.experts.0.down_proj", layer, ffn);
        }
        break;
    case CT_SHARED:
        NAME("model.layers.%ld.%s.%s.gate_proj", layer, ffn, qwen ? "shared_expert" : "shared_experts");
        NAME("model.layers.%ld.%s.%s.down_proj", layer, ffn, qwen ? "shared_expert" : "shared_experts");
        break;
    case CT_DENSE:
        NAME("model.layers.%ld.%s.gate_proj", layer, ffn);
        NAME("model.layers.%ld.%s.down_proj", layer, ffn);
        break;
    case CT_HEAD: NAME("lm_head"); break;
    case CT_KINDS: break;
    }
#undef NAME
    return n;
}

/* Whether layer i of m is a MoE layer (catalog.h moe_first_dense, moe_layer_step). */
static bool ct_moe_layer(const struct llmroof_model *m, long i)
{
    if (m->moe_experts <= 0 || i < m->moe_first_dense)
        return false;
    return m->moe_layer_step <= 1 || (i + 1) % m->moe_layer_step == 0;
}

/* For each kind the model has: the layers the ignore list leaves 16-bit (ign) out of those that
 * hold it (have). */
static void ct_classify(const struct llmroof_model *m, const char *type, struct ct_pat *p, int np,
                        long have[CT_KINDS], long ign[CT_KINDS])
{
    const bool mla = m->kv_lora_rank > 0;
    char names[4][96];
    for (int k = 0; k < CT_KINDS; k++)
        have[k] = ign[k] = 0;
    for (long i = 0; i < m->layers; i++) {
        const bool moe = ct_moe_layer(m, i);
        for (int k = 0; k < CT_HEAD; k++) {
            if ((k == CT_KV_UP && !mla) || (k == CT_ROUTED && !moe) || (k == CT_SHARED && !(moe && m->moe_shared > 0)) ||
                (k == CT_DENSE && moe))
                continue;
            const int n = ct_names((enum ct_kind)k, type, i, mla, names);
            bool all = true;
            for (int j = 0; j < n && all; j++)
                all = ct_matches_nested(p, np, names[j]);
            have[k]++;
            ign[k] += all;
        }
    }
    ct_names(CT_HEAD, type, 0, mla, names);
    have[CT_HEAD] = 1;
    ign[CT_HEAD] = ct_matches_nested(p, np, names[0]) || m->tied_embeddings; /* a tied head is the embedding */
}

/* Modules an ignore list often names that llmroof costs without a checkpoint format of their own: a
 * MoE router (always 16-bit here) and a linear-attention or Mamba mixer's projections (at the
 * weight dtype). Returns whether the list keeps mixer projections 16-bit. */
static bool ct_known_extras(const struct llmroof_model *m, const char *type, struct ct_pat *p, int np)
{
    const char *ffn = ct_ffn_prefix(type);
    char name[96];
    bool mixer = false;
    for (long i = 0; i < m->layers; i++) {
        if (m->moe_experts > 0) {
            snprintf(name, sizeof name, "model.layers.%ld.%s.%s", i, ffn, !strcmp(ffn, "feed_forward") ? "router" : "gate");
            ct_matches_nested(p, np, name);
        }
        if (m->linear_kind != LLMROOF_LINEAR_NONE) {
            static const char *const mix[] = { "linear_attn.in_proj_qkvz", "linear_attn.out_proj", "mamba.in_proj",
                                               "mixer.in_proj", "self_attn.in_proj_qkvz" };
            for (size_t j = 0; j < sizeof mix / sizeof mix[0]; j++) {
                snprintf(name, sizeof name, "model.layers.%ld.%s", i, mix[j]);
                mixer = ct_matches_nested(p, np, name) || mixer;
            }
        }
    }
    return mixer;
}

/* An ignore entry for a multimodal model's encoder or projector, which llmroof does not model at all
 * (import-hf warns of the vision_config): not reported as unmatched. */
static bool ct_encoder_entry(const char *e)
{
    static const char *const parts[] = { "vision", "visual", "multi_modal", "mm_projector", "audio", "image", NULL };
    for (const char *const *q = parts; *q; q++)
        if (strstr(e, *q))
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* compressed-tensors                                                       */
/* ------------------------------------------------------------------------ */

static const cJSON *item(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return v && !cJSON_IsNull(v) ? v : NULL;
}

static bool whole(const cJSON *v, double lo, double hi)
{
    return v && cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi && v->valuedouble == floor(v->valuedouble);
}

/* The per-operator form: format and bits, and the operators whose modules the ignore list keeps
 * 16-bit in every layer (a dense model's MLP is its ffn operator, a MoE model's dense layers'
 * dense_ffn). */
static void ct_per_op(struct llmroof_model *m, const char *format, double bits, const long have[CT_KINDS],
                      const long ign[CT_KINDS])
{
    static const unsigned bit[CT_KINDS] = { LLMROOF_CKPT_QKV_PROJ, LLMROOF_CKPT_MLA_KV_UP, LLMROOF_CKPT_O_PROJ,
                                            LLMROOF_CKPT_FFN,      LLMROOF_CKPT_FFN,       LLMROOF_CKPT_DENSE_FFN,
                                            LLMROOF_CKPT_LM_HEAD };
    snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", format);
    m->ckpt_bits = bits;
    m->ckpt_per_op = true;
    m->ckpt_excluded = 0;
    for (int k = 0; k < CT_KINDS; k++)
        if (ign[k] && have[k])
            m->ckpt_excluded |= k == CT_DENSE && m->moe_experts <= 0 ? LLMROOF_CKPT_FFN : bit[k];
}

static int ct_import(const char *fname, const cJSON *qc, const char *type, struct llmroof_model *m, char *warn,
                     size_t warn_cap, struct llmroof_err *err)
{
    const cJSON *groups = item(qc, "config_groups");
    if (!cJSON_IsObject(groups) || !groups->child)
        return ERR("%s: field 'quantization_config.config_groups' must be an object of one or more schemes "
                   "(compressed-tensors)", fname);
    if (groups->child->next) {
        hf_warn(warn, warn_cap, "%s: compressed-tensors with %d config_groups (a different scheme per module) is "
                FALLBACK, fname, cJSON_GetArraySize(groups));
        return LLMROOF_OK;
    }
    const cJSON *sp = item(qc, "sparsity_config");
    if (sp && cJSON_IsObject(sp) && sp->child)
        hf_warn(warn, warn_cap, "%s: compressed-tensors sparsity_config (2:4 sparse weights) is not modelled: the "
                "GEMMs are costed dense", fname);
    const cJSON *kvs = item(qc, "kv_cache_scheme"), *kvb = kvs ? item(kvs, "num_bits") : NULL;
    if (kvb && whole(kvb, 1, 16) && kvb->valuedouble <= 8)
        hf_warn(warn, warn_cap, "%s: the checkpoint carries %d-bit KV-cache scales (kv_cache_scheme): --kv-dtype fp8 "
                "to estimate that cache (the default is 16-bit)", fname, (int)kvb->valuedouble);
    const cJSON *g = groups->child, *targets = item(g, "targets"), *w = item(g, "weights");
    bool linear = false;
    const cJSON *t;
    cJSON_ArrayForEach(t, targets) linear = linear || (cJSON_IsString(t) && !strcmp(t->valuestring, "Linear"));
    if (!linear) {
        hf_warn(warn, warn_cap, "%s: compressed-tensors scheme '%s' targets named modules, not every Linear: "
                FALLBACK, fname, g->string);
        return LLMROOF_OK;
    }
    const cJSON *fmtj = item(qc, "format");
    if (!cJSON_IsString(fmtj))
        fmtj = item(g, "format");
    const char *fmt = cJSON_IsString(fmtj) ? fmtj->valuestring : "";
    const bool nvfp4 = !strcmp(fmt, "nvfp4-pack-quantized"), mxfp4 = !strcmp(fmt, "mxfp4-pack-quantized");
    /* compressed-tensors' QuantizationArgs defaults: 8 bits, type int (the fp4 formats are float),
     * strategy group where a group_size is given, else tensor */
    const cJSON *nb = w ? item(w, "num_bits") : NULL, *ty = w ? item(w, "type") : NULL;
    if (!cJSON_IsObject(w) || (nb && !whole(nb, 1, 16)) ||
        (ty && !(cJSON_IsString(ty) && (!strcmp(ty->valuestring, "int") || !strcmp(ty->valuestring, "float")))))
        return ERR("%s: field 'quantization_config.config_groups.%s.weights' must be an object whose num_bits is 1 to "
                   "16 and whose type is \"int\" or \"float\"", fname, g->string);
    const int bits = nb ? (int)nb->valuedouble : 8;
    const bool fl = ty ? !strcmp(ty->valuestring, "float") : nvfp4 || mxfp4;
    const cJSON *st = item(w, "strategy"), *gs = item(w, "group_size"), *bs = item(w, "block_structure"),
                *sym = item(w, "symmetric");
    if (st && !cJSON_IsString(st))
        return ERR("%s: field 'quantization_config.config_groups.%s.weights.strategy' must be a string", fname,
                   g->string);
    const char *strategy = st ? st->valuestring : gs ? "group" : "tensor";
    /* scale (and zero-point) bits a weight: a 16-bit scale per group of an int format (and a
     * num_bits zero point when asymmetric), NVFP4's e4m3 per 16 and MXFP4's e8m0 per 32, a fp32
     * scale per block; per-channel and per-tensor scales are under 0.01% and left out */
    double over = 0.0;
    if (nvfp4 || mxfp4) {
        over = 8.0 / (nvfp4 ? 16.0 : 32.0);
    } else if (!strcmp(strategy, "group") || !strcmp(strategy, "tensor_group")) {
        if (!whole(gs, 1, 1 << 20))
            return ERR("%s: field 'quantization_config.config_groups.%s.weights.group_size' must be a whole number "
                       "of at least 1 with strategy \"%s\"", fname, g->string, strategy);
        over = (16.0 + (sym && cJSON_IsFalse(sym) ? (double)bits : 0.0)) / gs->valuedouble;
    } else if (!strcmp(strategy, "block")) {
        const cJSON *b0 = cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2 ? bs->child : NULL;
        if (!b0 || !whole(b0, 1, 65536) || !whole(b0->next, 1, 65536) || b0->valuedouble * b0->next->valuedouble < 2)
            return ERR("%s: field 'quantization_config.config_groups.%s.weights.block_structure' must be two whole "
                       "numbers from 1 to 65536 of at least 2 weights together (e.g. [128, 128])", fname, g->string);
        over = 32.0 / (b0->valuedouble * b0->next->valuedouble);
    } else if (strcmp(strategy, "channel") != 0 && strcmp(strategy, "tensor") != 0) {
        return ERR("%s: field 'quantization_config.config_groups.%s.weights.strategy' is \"%s\"; expected tensor, "
                   "channel, group, tensor_group or block", fname, g->string, strategy);
    }
    const double wb = bits + over;
    const cJSON *ia = item(g, "input_activations");
    const cJSON *ab = ia ? item(ia, "num_bits") : NULL;
    const int abits = cJSON_IsObject(ia) && whole(ab, 1, 16) ? (int)ab->valuedouble : 16;
    const cJSON *at = ia ? item(ia, "type") : NULL;
    const bool ia_int = !at || (cJSON_IsString(at) && !strcmp(at->valuestring, "int"));

    /* the ignore list */
    const cJSON *ignore = item(qc, "ignore");
    if (ignore && !cJSON_IsArray(ignore))
        return ERR("%s: field 'quantization_config.ignore' must be an array of module names and \"re:\" patterns",
                   fname);
    /* llm-compressor lists ignored modules one by one as often as by pattern (every layer's MoE
     * gate: 61 names for DeepSeek-V3), so the list has no fixed bound */
    const int np = ignore ? cJSON_GetArraySize(ignore) : 0;
    struct ct_pat *pats = np > 0 ? calloc((size_t)np, sizeof *pats) : NULL;
    if (np > 0 && !pats)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory for %d ignore entries", fname, np);
    int nc = 0, rc = LLMROOF_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, ignore)
    {
        if (!cJSON_IsString(e) || !e->valuestring) {
            rc = ERR("%s: field 'quantization_config.ignore' must be an array of module names and \"re:\" patterns",
                     fname);
            goto done;
        }
        if (!pats || nc >= np)
            break; /* (the array's size counted its members: a guard for the analyzer) */
        struct ct_pat *p = &pats[nc];
        p->re = !strncmp(e->valuestring, "re:", 3);
        p->name = e->valuestring;
        if (p->re && !ct_compile(e->valuestring + 3, &p->rx)) {
            hf_warn(warn, warn_cap, "%s: compressed-tensors ignore pattern \"%s\" is not one llmroof can read (POSIX "
                    "regex): the checkpoint's format is " FALLBACK, fname,
                    e->valuestring);
            goto done;
        }
        nc++;
    }
    long have[CT_KINDS], ign[CT_KINDS];
    ct_classify(m, type, pats, nc, have, ign);
    if (ct_known_extras(m, type, pats, nc))
        hf_warn(warn, warn_cap, "%s: the compressed-tensors ignore list keeps the linear-attention (or Mamba) mixers' "
                "projections 16-bit; llmroof counts them at the scheme's bits (a few percent of the weights)", fname);
    {
        char miss[200] = "";
        size_t o = 0;
        int nmiss = 0;
        for (int i = 0; i < nc; i++)
            if (!pats[i].hit && !ct_encoder_entry(pats[i].name) && nmiss++ < 3 && o < sizeof miss)
                o += (size_t)snprintf(miss + o, sizeof miss - o, "%s\"%.60s\"", o ? ", " : "", pats[i].name);
        if (nmiss)
            hf_warn(warn, warn_cap, "%s: %d compressed-tensors ignore entr%s (%s%s) match%s none of the module names "
                    "llmroof tries (model.layers.N.self_attn.q_proj, .mlp.experts.0.gate_proj, ..., lm_head): what "
                    "%s keep%s 16-bit is counted at the scheme's bits", fname, nmiss, nmiss == 1 ? "y" : "ies", miss,
                    nmiss > 3 ? ", ..." : "", nmiss == 1 ? "es" : "", nmiss == 1 ? "it" : "they", nmiss == 1 ? "s" : "");
    }
    for (int k = 0; k < CT_HEAD; k++)
        if (ign[k] > 0 && ign[k] < have[k]) {
            hf_warn(warn, warn_cap, "%s: compressed-tensors ignore list leaves %ld of %ld layers' %s 16-bit, which "
                    "llmroof cannot represent layer by layer: " FALLBACK " (this scheme: %.4g bits a weight)",
                    fname, ign[k], have[k], ct_kind_names[k], wb);
            goto done;
        }
    const bool experts_only = have[CT_ROUTED] > 0 && !ign[CT_ROUTED] && ign[CT_ATTN] == have[CT_ATTN] &&
                              ign[CT_O] == have[CT_O] && ign[CT_KV_UP] == have[CT_KV_UP] &&
                              ign[CT_SHARED] == have[CT_SHARED] && ign[CT_DENSE] == have[CT_DENSE];
    bool all = true;
    for (int k = 0; k < CT_HEAD; k++)
        all = all && !ign[k];
    if (experts_only) {
        /* Moonshot's Kimi-K2-Thinking: int4 routed experts (group 32, 4.5 bits), every other matrix
         * bf16; served as weight-only MoE GEMMs over 16-bit activations, as gpt-oss's MXFP4 */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", nvfp4 ? "nvfp4" : mxfp4 ? "mxfp4" : fl ? "fp8" : "int4");
        if (!fl && bits == 8)
            snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "int8");
        m->ckpt_bits = 16.0;
        m->ckpt_expert_bits = wb;
    } else if (all && fl && bits == 8 && !nvfp4 && !mxfp4) {
        /* W8A8-FP8 (FP8-dynamic, FP8-block): as quant_method fp8; a block-scaled one computes as
         * DeepSeek's, a per-channel one at the GPU's fp8 rate where it has one (model/ckpt.c) */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "fp8");
        m->ckpt_bits = wb;
    } else if (all && !fl && bits == 8 && abits == 8 && ia_int) {
        /* W8A8 int8 (SmoothQuant-style int-quantized): int8 weights and per-token int8 activations */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "w8a8-int8");
        m->ckpt_bits = wb;
    } else if (all && !fl && (bits == 4 || bits == 8) && abits == 16) {
        /* weight-only int4 / int8 (W4A16, W8A16): the weight dtype int4 / int8; the group scales
         * are left out of the bytes, as --weight-dtype int4 leaves them (3% at group 128) */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", bits == 4 ? "int4" : "int8");
        m->ckpt_bits = wb;
    } else if ((!nvfp4 && !mxfp4 && abits == 16 && (fl ? bits == 8 : bits == 4 || bits == 8)) || (nvfp4 && abits == 4)) {
        /* some modules kept 16-bit: the per-operator form (catalog "excluded"), every other module at
         * the scheme's bits. NVFP4 weights and activations (W4A4) compute at fp4 there (Model
         * Optimizer's form); a weight-only scheme (W4A16 with attention ignored, say) over 16-bit
         * activations, without the unpacking cost a fused int4 GEMM has on the dtype's path */
        ct_per_op(m, nvfp4 ? "nvfp4" : fl ? "fp8" : bits == 4 ? "int4" : "int8", wb, have, ign);
        if (have[CT_SHARED] && ign[CT_SHARED] != ign[CT_ROUTED])
            hf_warn(warn, warn_cap, "%s: the scheme covers the %s but not the %s: llmroof costs a MoE layer's "
                    "shared experts in the routed experts' format", fname,
                    ign[CT_ROUTED] ? "shared experts" : "routed experts", ign[CT_ROUTED] ? "routed ones" : "shared ones");
    } else {
        char kept[160] = "";
        size_t o = 0;
        for (int k = 0; k < CT_KINDS && o < sizeof kept; k++)
            if (have[k] && ign[k])
                o += (size_t)snprintf(kept + o, sizeof kept - o, "%s%s", o ? ", " : "", ct_kind_names[k]);
        hf_warn(warn, warn_cap, "%s: compressed-tensors %s%d weights (%.4g bits a weight with scales)%s%s on every "
                "linear layer%s%s is " FALLBACK, fname, fl ? "float" : "int", bits, wb,
                abits < 16 ? " with activations at " : "", abits < 16 ? (abits == 8 ? "8 bits" : "low bits") : "",
                kept[0] ? " but " : "", kept);
        goto done;
    }
done:
    for (int i = 0; i < nc; i++)
        if (pats[i].re)
            regfree(&pats[i].rx);
    free(pats);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* modules a quantizer left 16-bit by name (AWQ, GPTQ, fp8)                 */
/* ------------------------------------------------------------------------ */

/* quantization_config.<key> (AWQ's and transformers' fp8 modules_to_not_convert, vLLM's fp8
 * ignored_layers): names a module is kept 16-bit when it contains (transformers' AWQ and fp8
 * replace every Linear whose dotted name holds none of them). *outcome: 0 where it keeps some kind
 * 16-bit in every layer (have and ign as ct_classify's), 1 where the list is absent or keeps nothing
 * llmroof costs apart, 2 where it keeps a kind in some layers only (warned: not representable).
 * Returns an error for a malformed list, else LLMROOF_OK. A review of session 65 found these lists
 * read by nothing: "self_attn" kept attention 16-bit and llmroof counted it at 4 bits. */
static int kept_by_name(const char *fname, const cJSON *qc, const char *key, bool glob, const char *type,
                        struct llmroof_model *m, long have[CT_KINDS], long ign[CT_KINDS], int *outcome, char *warn,
                        size_t warn_cap, struct llmroof_err *err)
{
    *outcome = 1;
    const cJSON *list = item(qc, key);
    if (!list)
        return LLMROOF_OK;
    if (!cJSON_IsArray(list))
        return ERR("%s: field 'quantization_config.%s' must be an array of module names or null", fname, key);
    const int np = cJSON_GetArraySize(list);
    if (np == 0)
        return LLMROOF_OK;
    struct ct_pat *pats = calloc((size_t)np, sizeof *pats);
    if (!pats)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory for %d module names", fname, np);
    int nc = 0, rc = LLMROOF_OK;
    const cJSON *e;
    cJSON_ArrayForEach(e, list)
    {
        if (!cJSON_IsString(e) || !e->valuestring || !e->valuestring[0] || strlen(e->valuestring) > 200) {
            rc = ERR("%s: field 'quantization_config.%s' must be an array of module names (1 to 200 characters)",
                     fname, key);
            goto done;
        }
        if (nc >= np)
            break;
        /* the name anywhere in a module's dotted name: ".*" and the name with regex characters
         * escaped; a glob (ModelOpt's exclude_modules, matched whole as fnmatch does): "*" any text,
         * "?" one character */
        char rx[512];
        size_t o = (size_t)snprintf(rx, sizeof rx, "%s", glob ? "^(" : ".*");
        for (const char *s = e->valuestring; *s && o + 4 < sizeof rx; s++) {
            if (glob && (*s == '*' || *s == '?')) {
                if (*s == '*')
                    rx[o++] = '.';
                rx[o++] = *s == '*' ? '*' : '.';
                continue;
            }
            if (strchr(".[]()*+?{}|^$\\", *s))
                rx[o++] = '\\';
            rx[o++] = *s;
        }
        if (glob && o + 2 < sizeof rx) {
            rx[o++] = ')';
            rx[o++] = '$';
        }
        rx[o] = '\0';
        pats[nc].re = true;
        pats[nc].name = e->valuestring;
        if (regcomp(&pats[nc].rx, rx, REG_EXTENDED | REG_NOSUB) != 0) {
            rc = ERR("%s: field 'quantization_config.%s': cannot read the name \"%.60s\"", fname, key, e->valuestring);
            goto done;
        }
        nc++;
    }
    ct_classify(m, type, pats, nc, have, ign);
    for (int k = 0; k < CT_HEAD; k++)
        if (ign[k] > 0 && ign[k] < have[k]) {
            hf_warn(warn, warn_cap, "%s: quantization_config.%s keeps %ld of %ld layers' %s 16-bit, which llmroof "
                    "cannot represent layer by layer: they are counted at the checkpoint's bits", fname, key, ign[k],
                    have[k], ct_kind_names[k]);
            *outcome = 2;
            goto done;
        }
    for (int k = 0; k < CT_HEAD; k++)
        if (ign[k])
            *outcome = 0;
done:
    for (int i = 0; i < nc; i++)
        regfree(&pats[i].rx);
    free(pats);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* quantization_config                                                      */
/* ------------------------------------------------------------------------ */

int hf_quant_config(const char *fname, const cJSON *qc, const char *type, struct llmroof_model *m, char *warn,
                    size_t warn_cap, struct llmroof_err *err)
{
    /* an object with a quant_method string, as transformers writes it (a 7 here had read as an
     * unmodelled method "") */
    if (!cJSON_IsObject(qc))
        return ERR("%s: field 'quantization_config' must be an object", fname);
    const cJSON *qm = cJSON_GetObjectItemCaseSensitive(qc, "quant_method");
    if (qm && cJSON_IsNull(qm)) /* null: none stated, as quantization_config null is */
        qm = NULL;
    if (qm && !(cJSON_IsString(qm) && qm->valuestring))
        return ERR("%s: field 'quantization_config.quant_method' must be a string", fname);
    const char *method = qm ? qm->valuestring : "";
    if (!strcmp(method, "fp8")) {
        /* e4m3 weights, one fp32 scale per weight_block_size block (DeepSeek: 128 x 128) */
        double bits = 8.0;
        const cJSON *bs = cJSON_GetObjectItemCaseSensitive(qc, "weight_block_size");
        if (bs && !cJSON_IsNull(bs)) {
            /* [rows, columns] of one scale's block, whole numbers of at least 1 ("x", [128] or
             * [-128, 128] had given plain 8-bit weights without a word); a block of at least 2
             * weights: one fp32 scale a weight would make 40 bits, past a checkpoint's 32 */
            const cJSON *b0 = cJSON_IsArray(bs) && cJSON_GetArraySize(bs) == 2 ? bs->child : NULL;
            if (!b0 || !whole(b0, 1, 65536) || !whole(b0->next, 1, 65536) || b0->valuedouble * b0->next->valuedouble < 2)
                return ERR("%s: field 'quantization_config.weight_block_size' must be two whole numbers from 1 to 65536 "
                           "of at least 2 weights together (e.g. [128, 128])", fname);
            bits += 32.0 / (b0->valuedouble * b0->next->valuedouble);
        }
        /* no warning: the entry's checkpoint field makes every command estimate it in fp8
         * (ckpt_weight_dtype) unless --weight-dtype or --weight-bits says otherwise; import-hf
         * notes the format (before session 47 this said "estimate it with --weight-dtype fp8") */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "fp8");
        m->ckpt_bits = bits;
        /* modules kept 16-bit by name: said, not modelled for W8A8 fp8 (the head and router are
         * 16-bit in this format already) */
        static const char *const keys[] = { "modules_to_not_convert", "ignored_layers" };
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
            long have[CT_KINDS], ign[CT_KINDS];
            int kept = 1;
            const int rc = kept_by_name(fname, qc, keys[i], false, type, m, have, ign, &kept, warn, warn_cap, err);
            if (rc)
                return rc;
            if (kept == 0)
                hf_warn(warn, warn_cap, "%s: quantization_config.%s keeps some layers' matrices 16-bit, which llmroof "
                        "does not model for fp8 weights: they are counted at 8 bits", fname, keys[i]);
        }
    } else if (!strcmp(method, "mxfp4") && m->moe_experts <= 0) {
        /* transformers' and vLLM's mxfp4 quantizes MoE experts alone: a dense model keeps every
         * weight 16-bit (a review found "mxfp4 experts at 4.25 bits" said of a model with none) */
        hf_warn(warn, warn_cap, "%s: quantization_config mxfp4 stores MoE experts in MXFP4, and model_type %s has "
                "none: every weight is estimated at 16 bits unless --weight-dtype or --weight-bits is given", fname,
                type);
    } else if (!strcmp(method, "mxfp4")) {
        /* gpt-oss: the routed experts in MXFP4 (e2m1 + one e8m0 scale per 32 = 4.25 bits), the
         * modules_to_not_convert (attention, router, embeddings, head) in bf16 */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "mxfp4");
        m->ckpt_bits = 16.0;
        m->ckpt_expert_bits = 4.25;
    } else if (!strcmp(method, "compressed-tensors")) {
        return ct_import(fname, qc, type, m, warn, warn_cap, err);
    } else if (!strcmp(method, "awq") || !strcmp(method, "gptq")) {
        /* weight-only int4 / int8 on the decoder's linear layers (AutoAWQ, AutoGPTQ / GPTQModel as
         * transformers reads them): bits (default 4), a 16-bit scale per group_size weights (default
         * 128; -1: per output channel, under 0.01%) and a zero point of `bits` per group, which
         * AWQ stores unless zero_point is false and GPTQ's qzeros always (sym or not); the head and
         * embeddings stay 16-bit, as the int path counts them (model/ckpt.c). A review found these
         * imported as 16-bit weights, 2.7x too big at 4 bits */
        const cJSON *b = cJSON_GetObjectItemCaseSensitive(qc, "bits"), *gs = cJSON_GetObjectItemCaseSensitive(qc, "group_size");
        const cJSON *zp = cJSON_GetObjectItemCaseSensitive(qc, "zero_point");
        if (b && !whole(b, 1, 16))
            return ERR("%s: field 'quantization_config.bits' must be a whole number from 1 to 16", fname);
        if (gs && !(cJSON_IsNumber(gs) && (gs->valuedouble == -1 || whole(gs, 1, 1 << 20))))
            return ERR("%s: field 'quantization_config.group_size' must be -1 or a whole number of at least 1", fname);
        const int bits = b ? (int)b->valuedouble : 4;
        const double g = gs ? gs->valuedouble : 128.0;
        if (bits != 4 && bits != 8) {
            hf_warn(warn, warn_cap, "%s: quantization_config %s at %d bits is not modelled (4 and 8 are): choose "
                    "--weight-bits to match it", fname, method, bits);
            return LLMROOF_OK;
        }
        const bool zero = strcmp(method, "gptq") == 0 || !(zp && cJSON_IsFalse(zp));
        const double wb = bits + (g > 0 ? (16.0 + (zero ? (double)bits : 0.0)) / g : 0.0);
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", bits == 4 ? "int4" : "int8");
        m->ckpt_bits = wb;
        /* modules kept 16-bit by name (AWQ's modules_to_not_convert): the per-operator form, as a
         * compressed-tensors W4A16 ignore list makes it */
        long have[CT_KINDS], ign[CT_KINDS];
        int kept = 1;
        const int rc = kept_by_name(fname, qc, "modules_to_not_convert", false, type, m, have, ign, &kept, warn, warn_cap,
                                     err);
        if (rc)
            return rc;
        if (kept == 0) {
            ign[CT_HEAD] = have[CT_HEAD] = 1; /* AWQ and GPTQ leave the head 16-bit whatever the list */
            ct_per_op(m, bits == 4 ? "int4" : "int8", wb, have, ign);
        }
        const cJSON *dyn = item(qc, "dynamic"), *lmh = item(qc, "lm_head");
        if (dyn && cJSON_IsObject(dyn) && dyn->child)
            hf_warn(warn, warn_cap, "%s: quantization_config.dynamic (GPTQModel's per-module overrides) is not read: "
                    "every quantized module is counted at %d bits", fname, bits);
        if (lmh && cJSON_IsTrue(lmh))
            hf_warn(warn, warn_cap, "%s: quantization_config.lm_head true (a quantized LM head) is not modelled: the "
                    "head is counted at 16 bits", fname);
    } else if (!strcmp(method, "modelopt")) {
        /* NVIDIA Model Optimizer (the form its exporter writes into config.json, or import-hf's reading
         * of a hf_quant_config.json beside it): quant_algo NVFP4 (e2m1 with an e4m3 scale per
         * group_size 16: 4.5 bits, weights and activations) or FP8 (per-tensor W8A8), exclude_modules
         * (globs) kept 16-bit; the head stays 16-bit as the exporter leaves it. A review of session 65
         * found NVFP4 checkpoints imported as 16-bit weights without a word */
        const cJSON *inner = item(qc, "quantization");
        const cJSON *q = inner && cJSON_IsObject(inner) ? inner : qc;
        const cJSON *algo = item(q, "quant_algo"), *gs = item(q, "group_size"), *kv = item(q, "kv_cache_quant_algo");
        if (!algo || !cJSON_IsString(algo))
            return ERR("%s: field 'quantization_config.quant_algo' must be a string (NVFP4, FP8, ...) with quant_method "
                       "modelopt", fname);
        if (kv && cJSON_IsString(kv) && !strcmp(kv->valuestring, "FP8"))
            hf_warn(warn, warn_cap, "%s: the checkpoint carries fp8 KV-cache scales (kv_cache_quant_algo FP8): "
                    "--kv-dtype fp8 to estimate that cache (the default is 16-bit)", fname);
        const bool nvfp4 = !strcmp(algo->valuestring, "NVFP4"), fp8 = !strcmp(algo->valuestring, "FP8");
        if (!nvfp4 && !fp8) {
            hf_warn(warn, warn_cap, "%s: Model Optimizer quant_algo \"%s\" is " FALLBACK, fname, algo->valuestring);
            return LLMROOF_OK;
        }
        if (gs && !whole(gs, 1, 1 << 20))
            return ERR("%s: field 'quantization_config.group_size' must be a whole number of at least 1", fname);
        long have[CT_KINDS], ign[CT_KINDS];
        int kept = 1;
        const int rc = kept_by_name(fname, q, "exclude_modules", true, type, m, have, ign, &kept, warn, warn_cap, err);
        if (rc)
            return rc;
        if (fp8) {
            snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "fp8");
            m->ckpt_bits = 8.0;
            if (kept == 0)
                hf_warn(warn, warn_cap, "%s: exclude_modules keeps some layers' matrices 16-bit, which llmroof does "
                        "not model for fp8 weights: they are counted at 8 bits", fname);
            return LLMROOF_OK;
        }
        const double wb = 4.0 + 8.0 / (gs ? gs->valuedouble : 16.0);
        if (kept != 0) { /* nothing kept by the list (or not representable): every layer's matrices */
            for (int k = 0; k < CT_KINDS; k++)
                ign[k] = 0;
            ct_classify(m, type, NULL, 0, have, ign);
        }
        ign[CT_HEAD] = have[CT_HEAD] = 1;
        ct_per_op(m, "nvfp4", wb, have, ign);
    } else if (!strcmp(method, "fbgemm_fp8")) {
        /* fp8 weights with a scale per output channel (FBGEMM's, as transformers reads them), fp8
         * activations quantized per token on the fly: W8A8-FP8 as quant_method fp8 */
        snprintf(m->ckpt_format, sizeof m->ckpt_format, "%s", "fp8");
        m->ckpt_bits = 8.0;
    } else if (!qm) {
        hf_warn(warn, warn_cap, "%s: quantization_config names no quant_method: choose --weight-dtype / "
                "--weight-bits to match the checkpoint", fname);
    } else {
        hf_warn(warn, warn_cap, "%s: quantization_config quant_method \"%s\" is not modelled: choose "
                "--weight-dtype / --weight-bits to match it", fname, method);
    }
    return LLMROOF_OK;
}
