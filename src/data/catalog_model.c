/* catalog_model.c - model entries: parsed with their shapes' ranges and checks, layer patterns
 * and checkpoint formats, loaded and looked up (docs/catalog.md). */
#include "data/catalog_internal.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>

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
        /* group-limited routing: equal groups, the chosen ones holding at least the k experts */
        if (m->moe_groups > 0 && m->moe_experts % m->moe_groups != 0)
            return BAD("%s: '%s': moe.groups (%ld) must divide moe.experts (%ld)", where, m->id, m->moe_groups,
                       m->moe_experts);
        if (m->moe_topk_groups > 0 && m->moe_groups <= 0)
            return BAD("%s: '%s': moe.groups_per_token needs moe.groups", where, m->id);
        if (m->moe_topk_groups > m->moe_groups)
            return BAD("%s: '%s': moe.groups_per_token (%ld) must not exceed moe.groups (%ld)", where, m->id,
                       m->moe_topk_groups, m->moe_groups);
        if (m->moe_topk_groups > 0 && m->moe_topk_groups * (m->moe_experts / m->moe_groups) < m->moe_top_k)
            return BAD("%s: '%s': moe.groups_per_token (%ld) groups of %ld experts cannot hold moe.experts_per_token "
                       "(%ld)", where, m->id, m->moe_topk_groups, m->moe_experts / m->moe_groups, m->moe_top_k);
    }
    return LLMROOF_OK;
#undef BAD
}

/* The layer pattern, the recurrent mixer and DeepSeek Sparse Attention (docs/catalog.md). */
static int parse_layer_kinds(struct json_ectx *c, const cJSON *e, struct llmroof_model *m, const char *const *pat_fields,
                             const char *const *lin_fields, const char *const *dsa_fields)
{
    int rc;
    const cJSON *pat = json_item(e, "layer_pattern");
    if (pat) {
        if (!cJSON_IsObject(pat))
            return json_ferr(c, "layer_pattern", "must be an object with mixers and ffns");
        c->path = "layer_pattern.";
        if ((rc = json_check_known(c, pat, "layer_pattern.", pat_fields)) ||
            (rc = json_get_string(c, pat, "mixers", true, m->mixers, sizeof m->mixers)) ||
            (rc = json_get_string(c, pat, "ffns", true, m->ffns, sizeof m->ffns)))
            return rc;
        c->path = NULL;
        if ((long)strlen(m->mixers) != m->layers || strspn(m->mixers, "AWLPN") != strlen(m->mixers))
            return json_ferr(c, "layer_pattern.mixers", "must hold num_layers (%ld) letters of A, W, L, P, N", m->layers);
        if ((long)strlen(m->ffns) != m->layers || strspn(m->ffns, "DEN") != strlen(m->ffns))
            return json_ferr(c, "layer_pattern.ffns", "must hold num_layers (%ld) letters of D, E, N", m->layers);
        if (!strpbrk(m->mixers, "AWP"))
            return json_ferr(c, "layer_pattern.mixers", "needs at least one attention layer (A, W or P)");
        const cJSON *fw = json_item(pat, "ffn_widths");
        if (fw) { /* NAS models: one dense MLP width per layer, 0 where the layer has none */
            if (!cJSON_IsArray(fw) || cJSON_GetArraySize(fw) != m->layers)
                return json_ferr(c, "layer_pattern.ffn_widths", "must list num_layers (%ld) widths", m->layers);
            long i = 0;
            for (const cJSON *t = fw->child; t; t = t->next, i++) {
                if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > 16777216 ||
                    t->valuedouble != (double)(long)t->valuedouble)
                    return json_ferr(c, "layer_pattern.ffn_widths", "entry %ld must be a whole number 0..16777216", i);
                m->ffn_widths[i] = (long)t->valuedouble;
                if (m->ffn_widths[i] > m->intermediate)
                    return json_ferr(c, "layer_pattern.ffn_widths", "entry %ld (%ld) exceeds intermediate_size %ld", i,
                                     m->ffn_widths[i], m->intermediate);
            }
        }
        if (strchr(m->mixers, 'W') && m->window <= 0)
            return json_ferr(c, "layer_pattern.mixers", "has windowed layers (W) but no sliding_window.size");
        if (strchr(m->ffns, 'E') && m->moe_experts <= 0)
            return json_ferr(c, "layer_pattern.ffns", "has MoE layers (E) but no moe object");
    }
    const cJSON *lin = json_item(e, "linear");
    if (lin) {
        static const char *const kinds[] = { "none", "gdn", "mamba2", "lightning", "mamba1", "kda", NULL };
        char k[16];
        if (!cJSON_IsObject(lin))
            return json_ferr(c, "linear", "must be an object");
        c->path = "linear.";
        if ((rc = json_check_known(c, lin, "linear.", lin_fields)) ||
            (rc = json_get_string(c, lin, "kind", true, k, sizeof k)))
            return rc;
        c->path = NULL;
        int ki = -1;
        for (int i = 1; kinds[i]; i++)
            if (!strcmp(k, kinds[i]))
                ki = i;
        if (ki < 0)
            return json_ferr(c, "linear.kind", "must be \"gdn\", \"mamba2\", \"lightning\", \"mamba1\" or \"kda\", got \"%s\"",
                            k);
        m->linear_kind = (enum llmroof_linear)ki;
        c->path = "linear.";
        if ((rc = json_get_long(c, lin, "heads", true, 1, 65536, &m->lin_heads, NULL)) ||
            (rc = json_get_long(c, lin, "key_heads", true, 1, 65536, &m->lin_k_heads, NULL)) ||
            (rc = json_get_long(c, lin, "key_dim", true, 1, 65536, &m->lin_k_dim, NULL)) ||
            (rc = json_get_long(c, lin, "value_dim", true, 1, 65536, &m->lin_v_dim, NULL)) ||
            (rc = json_get_long(c, lin, "conv_kernel", false, 0, 1024, &m->lin_conv, NULL)))
            return rc;
        c->path = NULL;
        if (json_item(lin, "state_dtype")) {
            char sd[16];
            c->path = "linear.";
            if ((rc = json_get_string(c, lin, "state_dtype", true, sd, sizeof sd)))
                return rc;
            c->path = NULL;
            /* the dtypes a recurrent state is stored in (--state-dtype) */
            if (!dtype_parse(sd, &m->lin_state_dtype) ||
                (m->lin_state_dtype != LLMROOF_FP32 && m->lin_state_dtype != LLMROOF_FP16 &&
                 m->lin_state_dtype != LLMROOF_BF16 && m->lin_state_dtype != LLMROOF_FP8))
                return json_ferr(c, "linear.state_dtype", "must be \"fp32\", \"fp16\", \"bf16\" or \"fp8\", got \"%s\"", sd);
            m->lin_state_dtype_set = true;
        }
    }
    if (m->mixers[0] && strpbrk(m->mixers, "LP") && m->linear_kind == LLMROOF_LINEAR_NONE)
        return json_ferr(c, "layer_pattern.mixers", "has recurrent layers (L or P) but no linear object");
    const cJSON *dsa = json_item(e, "dsa");
    if (dsa) {
        if (!cJSON_IsObject(dsa))
            return json_ferr(c, "dsa", "must be an object with top_k, index_heads and index_head_dim");
        c->path = "dsa.";
        if ((rc = json_check_known(c, dsa, "dsa.", dsa_fields)) ||
            (rc = json_get_long(c, dsa, "top_k", true, 1, 1000000000, &m->dsa_top_k, NULL)) ||
            (rc = json_get_long(c, dsa, "index_heads", true, 1, 65536, &m->dsa_heads, NULL)) ||
            (rc = json_get_long(c, dsa, "index_head_dim", true, 1, 65536, &m->dsa_head_dim, NULL)))
            return rc;
        c->path = NULL;
        if (m->kv_lora_rank <= 0)
            return json_ferr(c, "dsa", "needs MLA (an mla object): DeepSeek Sparse Attention indexes the latent cache");
    }
    if ((rc = json_get_bool(c, e, "attn_gate", false, &m->attn_gate)))
        return rc;
    return LLMROOF_OK;
}

const char *catalog_ckpt_module_name(int i)
{
    static const char *const names[LLMROOF_CKPT_MODULES] = { "qkv_proj", "mla_kv_up", "o_proj",
                                                             "ffn",      "dense_ffn", "lm_head" };
    return i >= 0 && i < LLMROOF_CKPT_MODULES ? names[i] : "?";
}

/* checkpoint.excluded: the GEMM operators a quantizer left at 16 bits (hf_quant_config.json's
 * exclude_modules, named by llmroof's operators); absent: no per-operator split */
static int parse_ckpt_excluded(struct json_ectx *c, const cJSON *ex, struct llmroof_model *m)
{
    if (!ex)
        return LLMROOF_OK;
    if (!cJSON_IsArray(ex))
        return json_ferr(c, "checkpoint.excluded", "must be an array of operator names");
    for (const cJSON *a = ex->child; a; a = a->next) {
        int i = 0;
        while (i < LLMROOF_CKPT_MODULES && !(cJSON_IsString(a) && strcmp(a->valuestring, catalog_ckpt_module_name(i)) == 0))
            i++;
        if (i == LLMROOF_CKPT_MODULES)
            return json_ferr(c, "checkpoint.excluded",
                             "entries must be qkv_proj, mla_kv_up, o_proj, ffn, dense_ffn or lm_head");
        m->ckpt_excluded |= 1u << i;
    }
    m->ckpt_per_op = true;
    return LLMROOF_OK;
}

static int parse_model(struct json_ectx *c, const cJSON *e, struct llmroof_model *m)
{
    static const char *const fields[] = {
        "id", "name", "hf_id", "hidden_size", "num_layers", "num_heads", "num_kv_heads", "head_dim",
        "intermediate_size", "vocab_size", "max_context", "learned_pos", "tie_embeddings", "mlp", "norm",
        "qkv_bias", "o_bias", "mlp_bias", "parallel_attn", "moe", "params_published", "source",
        "mla", "sliding_window", "norms_per_layer", "qk_norm", "checkpoint", "params_active_published",
        "layer_pattern", "linear", "dsa", "attn_gate", "mtp_layers", "attention_sinks", NULL
    };
    static const char *const pat_fields[] = { "mixers", "ffns", "ffn_widths", NULL };
    static const char *const lin_fields[] = { "kind",      "heads",       "key_heads", "key_dim",
                                              "value_dim", "conv_kernel", "state_dtype", NULL };
    static const char *const dsa_fields[] = { "top_k", "index_heads", "index_head_dim", NULL };
    static const char *const moe_fields[] = {
        "experts", "experts_per_token", "expert_intermediate_size", "shared_experts", "first_dense_layers",
        "layer_step", "groups", "groups_per_token", NULL
    };
    static const char *const mla_fields[] = {
        "q_lora_rank", "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", NULL
    };
    static const char *const win_fields[] = { "size", "global_every", "chunked", NULL };
    static const char *const ck_fields[] = { "format", "bits", "expert_bits", "excluded", NULL };
    int rc;
    bool present;

    memset(m, 0, sizeof *m);
    if ((rc = json_entry_head(c, e, fields, m->id, sizeof m->id)) ||
        (rc = json_get_string(c, e, "name", true, m->name, sizeof m->name)) ||
        (rc = json_get_string(c, e, "hf_id", false, m->hf_id, sizeof m->hf_id)) ||
        (rc = json_get_string(c, e, "source", true, m->source, sizeof m->source)))
        return rc;
    /* Bounds are far beyond any published model but catch unit slips and garbage. */
    if ((rc = json_get_long(c, e, "hidden_size", true, 1, 1048576, &m->hidden, NULL)) ||
        (rc = json_get_long(c, e, "num_layers", true, 1, 10000, &m->layers, NULL)) ||
        (rc = json_get_long(c, e, "num_heads", true, 1, 65536, &m->heads, NULL)) ||
        (rc = json_get_long(c, e, "num_kv_heads", true, 1, 65536, &m->kv_heads, NULL)) ||
        (rc = json_get_long(c, e, "head_dim", false, 1, 65536, &m->head_dim, &present)) ||
        (rc = json_get_long(c, e, "intermediate_size", true, 1, 16777216, &m->intermediate, NULL)) ||
        (rc = json_get_long(c, e, "vocab_size", true, 1, 100000000, &m->vocab, NULL)) ||
        (rc = json_get_long(c, e, "max_context", true, 1, 1000000000, &m->max_context, NULL)) ||
        (rc = json_get_long(c, e, "learned_pos", false, 0, 1000000000, &m->learned_pos, NULL)) ||
        (rc = json_get_long(c, e, "mtp_layers", false, 0, 64, &m->mtp_layers, NULL)))
        return rc;
    if (!present) {
        if (m->hidden % m->heads != 0)
            return json_ferr(c, "head_dim", "is missing and hidden_size (%ld) is not divisible by num_heads (%ld)",
                        m->hidden, m->heads);
        m->head_dim = m->hidden / m->heads;
    }
    if (m->kv_heads > m->heads)
        return json_ferr(c, "num_kv_heads", "must not exceed num_heads (%ld)", m->heads);
    if (m->heads % m->kv_heads != 0)
        return json_ferr(c, "num_kv_heads", "must divide num_heads (%ld heads, %ld KV heads)", m->heads, m->kv_heads);
    if ((rc = json_get_bool(c, e, "tie_embeddings", true, &m->tied_embeddings)) ||
        (rc = json_get_bool(c, e, "qkv_bias", false, &m->qkv_bias)) ||
        (rc = json_get_bool(c, e, "o_bias", false, &m->o_bias)) ||
        (rc = json_get_bool(c, e, "mlp_bias", false, &m->mlp_bias)) ||
        (rc = json_get_bool(c, e, "parallel_attn", false, &m->parallel_attn)))
        return rc;

    char s[32];
    if ((rc = json_get_string(c, e, "mlp", true, s, sizeof s)))
        return rc;
    if (strcmp(s, "gated") == 0)
        m->mlp = LLMROOF_MLP_GATED;
    else if (strcmp(s, "plain") == 0)
        m->mlp = LLMROOF_MLP_PLAIN;
    else
        return json_ferr(c, "mlp", "must be \"gated\" (3 matrices) or \"plain\" (2 matrices), got \"%s\"", s);
    if ((rc = json_get_string(c, e, "norm", true, s, sizeof s)))
        return rc;
    if (strcmp(s, "rmsnorm") == 0)
        m->norm = LLMROOF_NORM_RMS;
    else if (strcmp(s, "layernorm") == 0)
        m->norm = LLMROOF_NORM_LAYER;
    else
        return json_ferr(c, "norm", "must be \"rmsnorm\" or \"layernorm\", got \"%s\"", s);

    const cJSON *moe = json_item(e, "moe");
    if (moe) {
        if (!cJSON_IsObject(moe))
            return json_ferr(c, "moe", "must be an object");
        c->path = "moe.";
        if ((rc = json_check_known(c, moe, "moe.", moe_fields)) ||
            (rc = json_get_long(c, moe, "experts", true, 1, 65536, &m->moe_experts, NULL)) ||
            (rc = json_get_long(c, moe, "experts_per_token", true, 1, 65536, &m->moe_top_k, NULL)) ||
            (rc = json_get_long(c, moe, "expert_intermediate_size", true, 1, 16777216, &m->moe_intermediate, NULL)) ||
            (rc = json_get_long(c, moe, "shared_experts", false, 0, 65536, &m->moe_shared, NULL)))
            return rc;
        c->path = NULL;
        if (m->moe_top_k > m->moe_experts)
            return json_ferr(c, "moe.experts_per_token", "must not exceed moe.experts (%ld)", m->moe_experts);
        m->moe_layer_step = 1;
        c->path = "moe.";
        if ((rc = json_get_long(c, moe, "first_dense_layers", false, 0, 10000, &m->moe_first_dense, NULL)) ||
            (rc = json_get_long(c, moe, "layer_step", false, 1, 10000, &m->moe_layer_step, NULL)) ||
            (rc = json_get_long(c, moe, "groups", false, 1, 65536, &m->moe_groups, NULL)) ||
            (rc = json_get_long(c, moe, "groups_per_token", false, 1, 65536, &m->moe_topk_groups, NULL)))
            return rc;
        c->path = NULL;
        /* group-limited routing: equal groups, enough experts in the chosen ones for the top-k */
        if (m->moe_groups > 0 && m->moe_experts % m->moe_groups != 0)
            return json_ferr(c, "moe.groups", "must divide moe.experts (%ld), not %ld", m->moe_experts, m->moe_groups);
        if (m->moe_topk_groups > 0 && m->moe_groups <= 0)
            return json_ferr(c, "moe.groups_per_token", "needs moe.groups");
        if (m->moe_topk_groups > m->moe_groups)
            return json_ferr(c, "moe.groups_per_token", "must not exceed moe.groups (%ld), not %ld", m->moe_groups,
                             m->moe_topk_groups);
        if (m->moe_topk_groups > 0 && m->moe_topk_groups * (m->moe_experts / m->moe_groups) < m->moe_top_k)
            return json_ferr(c, "moe.groups_per_token", "must hold moe.experts_per_token (%ld): %ld groups of %ld experts hold %ld",
                             m->moe_top_k, m->moe_topk_groups, m->moe_experts / m->moe_groups,
                             m->moe_topk_groups * (m->moe_experts / m->moe_groups));
        if (m->moe_first_dense >= m->layers)
            return json_ferr(c, "moe.first_dense_layers", "must be below num_layers (%ld)", m->layers);
    }
    const cJSON *mla = json_item(e, "mla");
    if (mla) {
        if (!cJSON_IsObject(mla))
            return json_ferr(c, "mla", "must be an object");
        c->path = "mla.";
        if ((rc = json_check_known(c, mla, "mla.", mla_fields)) ||
            (rc = json_get_long(c, mla, "q_lora_rank", false, 0, 1048576, &m->q_lora_rank, NULL)) ||
            (rc = json_get_long(c, mla, "kv_lora_rank", true, 1, 1048576, &m->kv_lora_rank, NULL)) ||
            (rc = json_get_long(c, mla, "qk_nope_head_dim", true, 0, 65536, &m->qk_nope_dim, NULL)) ||
            (rc = json_get_long(c, mla, "qk_rope_head_dim", true, 1, 65536, &m->qk_rope_dim, NULL)) ||
            (rc = json_get_long(c, mla, "v_head_dim", true, 1, 65536, &m->v_head_dim, NULL)))
            return rc;
        c->path = NULL;
        if (m->head_dim != m->qk_nope_dim + m->qk_rope_dim)
            return json_ferr(c, "head_dim", "must equal mla.qk_nope_head_dim + mla.qk_rope_head_dim (%ld) for MLA",
                             m->qk_nope_dim + m->qk_rope_dim);
    }
    const cJSON *win = json_item(e, "sliding_window");
    if (win) {
        if (!cJSON_IsObject(win))
            return json_ferr(c, "sliding_window", "must be an object with size (and global_every, chunked)");
        c->path = "sliding_window.";
        if ((rc = json_check_known(c, win, "sliding_window.", win_fields)) ||
            (rc = json_get_long(c, win, "size", true, 1, 1000000000, &m->window, NULL)) ||
            (rc = json_get_long(c, win, "global_every", false, 0, 10000, &m->window_global_every, NULL)) ||
            (rc = json_get_bool(c, win, "chunked", false, &m->window_chunked)))
            return rc;
        c->path = NULL;
    }
    if ((rc = json_get_long(c, e, "norms_per_layer", false, 1, 16, &m->norms_per_layer, NULL)) ||
        (rc = json_get_bool(c, e, "qk_norm", false, &m->qk_norm)) ||
        (rc = json_get_bool(c, e, "attention_sinks", false, &m->attention_sinks)))
        return rc;
    const cJSON *ck = json_item(e, "checkpoint");
    if (ck) {
        if (!cJSON_IsObject(ck))
            return json_ferr(c, "checkpoint", "must be an object with format and bits");
        c->path = "checkpoint.";
        if ((rc = json_check_known(c, ck, "checkpoint.", ck_fields)) ||
            (rc = json_get_string(c, ck, "format", true, m->ckpt_format, sizeof m->ckpt_format)) ||
            (rc = json_get_number(c, ck, "bits", "checkpoint.bits", true, 1, false, 32, &m->ckpt_bits, NULL)) ||
            (rc = json_get_number(c, ck, "expert_bits", "checkpoint.expert_bits", false, 1, false, 32,
                                  &m->ckpt_expert_bits, NULL)))
            return rc;
        c->path = NULL;
        if ((rc = parse_ckpt_excluded(c, json_item(ck, "excluded"), m)))
            return rc;
    }
    if ((rc = parse_layer_kinds(c, e, m, pat_fields, lin_fields, dsa_fields)))
        return rc;
    bool has_act = false;
    if ((rc = json_get_number(c, e, "params_active_published", "params_active_published", false, 1e3, false, 1e14,
                              &m->params_active_published, &has_act)))
        return rc;
    if ((rc = json_get_number(c, e, "params_published", "params_published", false, 1e3, false, 1e14,
                         &m->params_published, &m->has_params_published)))
        return rc;
    return LLMROOF_OK;
}

static int parse_model_entry(struct json_ectx *c, const cJSON *e, void *out)
{
    return parse_model(c, e, out);
}

static int add_models(struct llmroof_catalog *cat, const char *text, size_t len, const char *fname, bool replace,
                      const char *pick, struct llmroof_err *err)
{
    static const struct plain_kind kind = { "models", sizeof(struct llmroof_model),
                                            offsetof(struct llmroof_model, id), parse_model_entry, false, 0, 0 };
    return catalog_add_plain(&kind, (void **)&cat->models, &cat->n_models, &cat->cap_models, text, len, fname,
                             replace, pick, err);
}

int catalog_add_models_text(struct llmroof_catalog *cat, const char *text, size_t len,
                            const char *fname, bool replace, struct llmroof_err *err)
{
    return add_models(cat, text, len, fname, replace, NULL, err);
}

int catalog_add_models_file(struct llmroof_catalog *cat, const char *path, bool replace, struct llmroof_err *err)
{
    return catalog_add_file(cat, path, replace, NULL, add_models, err);
}

int catalog_add_models_file_pick(struct llmroof_catalog *cat, const char *path, bool replace, const char *pick,
                                 struct llmroof_err *err)
{
    return catalog_add_file(cat, path, replace, pick, add_models, err);
}

const struct llmroof_model *catalog_find_model_exact(const struct llmroof_catalog *cat, const char *name)
{
    for (size_t i = 0; i < cat->n_models; i++)
        if (strcasecmp(cat->models[i].id, name) == 0)
            return &cat->models[i];
    return NULL;
}

/* catalog_match_model: catalog_suggest.c */
const struct llmroof_model *catalog_find_model(const struct llmroof_catalog *cat, const char *name)
{
    return catalog_match_model(cat, name, NULL);
}
