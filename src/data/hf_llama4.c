/* hf_llama4.c - Llama-4's per-layer lists (no_rope_layers, moe_layers, layer_types) read into the
 * catalog's layer rules or per-layer pattern (docs/catalog.md, "HuggingFace import"). */
#include "data/hf_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"

/* Llama-4's per-layer lists, which transformers writes when it saves a Llama4TextConfig
 * (configuration_llama4.py; meta-llama/Llama-4-Scout-17B-16E's own config.json states only the
 * rules): no_rope_layers, 1 where a layer uses RoPE (and, with attention_chunk_size, chunked
 * attention), 0 for a NoPE layer of global attention, defaulting to (i + 1) %
 * no_rope_layer_interval != 0 (an empty list too); moe_layers, the MoE layers' indices, defaulting
 * to range(interleave_moe_layer_step - 1, L, step). Newer transformers also write layer_types
 * ("chunked_attention" / "full_attention", derived from no_rope_layers), which its modelling code
 * takes for the attention mask. Where the lists say what the rules above said, nothing changes;
 * a list of another period sets the rule (global iff (i+1) % n == 0; MoE iff i >= first and
 * (i+1) % step == 0); any other placement becomes the per-layer pattern, and where the model
 * has more layers than a pattern lists, an error naming the field. */
int hf_llama4_layers(const char *fname, const cJSON *doc, struct llmroof_model *m, char *warn, size_t warn_cap,
                            struct llmroof_err *err)
{
    static const char *const k_nope_every[] = { "no_rope_layer_interval", NULL };
    const char *in = doc->string ? doc->string : "", *dot = *in ? "." : "";
    const long L = m->layers;
    const cJSON *nr = hf_get(doc, "no_rope_layers"), *ml = hf_get(doc, "moe_layers"), *lt = hf_get(doc, "layer_types");
    if (nr && cJSON_IsArray(nr) && cJSON_GetArraySize(nr) == 0)
        nr = NULL; /* transformers: "no_rope_layers == [] is invalid", the default applies */
    if (!nr && !ml && !lt)
        return LLMROOF_OK;
    long every = 4;
    int rc = hf_int(fname, doc, k_nope_every, false, 4, 1, 10000, &every, err);
    if (rc)
        return rc;
    bool *glob = calloc((size_t)L, sizeof *glob), *moe = calloc((size_t)L, sizeof *moe);
    if (!glob || !moe) {
        free(glob);
        free(moe);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    }
    const long step0 = m->moe_layer_step > 0 ? m->moe_layer_step : 1;
    bool glob_same = true, moe_same = true;
    for (long i = 0; i < L; i++) {
        glob[i] = (i + 1) % every == 0;
        moe[i] = (i + 1) % step0 == 0;
    }
#define L4_ERR(...) do { rc = llmroof_err_set(err, LLMROOF_EINPUT, __VA_ARGS__); goto done; } while (0)
    if (nr) {
        /* "a list with at least the same length as the number of layers" (Llama4TextConfig's
         * docstring): entries past the last layer are never read */
        if (!cJSON_IsArray(nr) || cJSON_GetArraySize(nr) < L)
            L4_ERR("%s: field '%s%sno_rope_layers' must list at least num_hidden_layers (%ld) entries of 1 (RoPE, "
                   "chunked attention) or 0 (NoPE, global attention)", fname, in, dot, L);
        long i = 0;
        for (const cJSON *t = nr->child; t && i < L; t = t->next, i++) {
            const bool one = cJSON_IsTrue(t) || (cJSON_IsNumber(t) && t->valuedouble == 1);
            if (!one && !cJSON_IsFalse(t) && !(cJSON_IsNumber(t) && t->valuedouble == 0))
                L4_ERR("%s: field '%s%sno_rope_layers' entry %ld must be 1 (RoPE, chunked attention) or 0 (NoPE, "
                       "global attention)", fname, in, dot, i);
            glob[i] = !one;
        }
    }
    if (lt) {
        long i = 0;
        for (const cJSON *t = cJSON_IsArray(lt) ? lt->child : NULL; t; t = t->next, i++) {
            const char *v = cJSON_IsString(t) ? t->valuestring : "";
            const bool g = strcmp(v, "full_attention") == 0;
            if (i >= L)
                break;
            if (!g && strcmp(v, "chunked_attention") != 0) /* the entry, as no_rope_layers' are named */
                L4_ERR("%s: field '%s%slayer_types' entry %ld must be \"chunked_attention\" or \"full_attention\"",
                       fname, in, dot, i);
            if (nr && g != glob[i])
                L4_ERR("%s: field '%s%slayer_types' entry %ld is \"%s\" where no_rope_layers says %s: the two "
                       "disagree", fname, in, dot, i, v, glob[i] ? "0 (NoPE, global)" : "1 (RoPE, chunked)");
            glob[i] = g;
        }
        if (!cJSON_IsArray(lt) || i != L || cJSON_GetArraySize(lt) != L)
            L4_ERR("%s: field '%s%slayer_types' must list num_hidden_layers (%ld) entries of \"chunked_attention\" "
                   "or \"full_attention\"", fname, in, dot, L);
    }
    if (ml) {
        if (!cJSON_IsArray(ml))
            L4_ERR("%s: field '%s%smoe_layers' must be a list of layer indices 0..%ld", fname, in, dot, L - 1);
        for (long i = 0; i < L; i++)
            moe[i] = false;
        for (const cJSON *t = ml->child; t; t = t->next) {
            if (!cJSON_IsNumber(t) || t->valuedouble < 0 || t->valuedouble > (double)(L - 1) ||
                t->valuedouble != floor(t->valuedouble))
                L4_ERR("%s: field '%s%smoe_layers' must be a list of layer indices 0..%ld", fname, in, dot, L - 1);
            moe[(long)t->valuedouble] = true;
        }
    }
    /* without attention_chunk_size no layer is chunked (Llama4TextAttention chunks only with a
     * chunk size), so RoPE and NoPE layers cost the same: the list is checked above, not used */
    const bool chunked = m->window_chunked && m->window > 0;
    long n_glob = 0, n_moe = 0, first_moe = -1, second_moe = -1;
    for (long i = 0; i < L; i++) {
        glob_same &= !chunked || glob[i] == ((i + 1) % every == 0);
        moe_same &= moe[i] == ((i + 1) % step0 == 0);
        n_glob += glob[i];
        if (moe[i]) {
            second_moe = n_moe == 1 ? i : second_moe;
            first_moe = n_moe == 0 ? i : first_moe;
            n_moe++;
        }
    }
    if (glob_same && moe_same)
        goto done;
    /* the rules where they say it */
    bool glob_rule = glob_same, moe_rule = moe_same;
    long glob_every = m->window_global_every, moe_step = step0, moe_first = 0;
    if (!glob_same) {
        long p = 0;
        if (n_glob == 0 || n_glob == L) {
            glob_rule = true;
            glob_every = n_glob == 0 ? 0 : 1; /* 0: every layer chunked; 1: every layer global */
        } else {
            while (!glob[p])
                p++;
            glob_every = p + 1; /* the first global layer ends the first period */
            glob_rule = true;
            for (long i = 0; i < L; i++)
                glob_rule &= glob[i] == ((i + 1) % glob_every == 0);
        }
    }
    if (!moe_same && n_moe > 0) {
        moe_step = n_moe >= 2 ? second_moe - first_moe : first_moe + 1;
        moe_first = first_moe + 1 == moe_step ? 0 : first_moe; /* leading dense layers where the rule needs them */
        moe_rule = true;
        for (long i = 0; i < L; i++)
            moe_rule &= moe[i] == (i >= moe_first && (i + 1) % moe_step == 0);
    }
    if (!moe_same && n_moe == 0)
        moe_rule = true; /* no MoE layer: a dense model (below) */
    if (glob_rule && moe_rule) {
        if (!glob_same) {
            if (glob_every == 1) { /* every layer NoPE: global attention throughout */
                m->window = 0;
                m->window_chunked = false;
                m->window_global_every = 0;
            } else {
                m->window_global_every = glob_every; /* 0: every layer chunked */
            }
        }
        if (!moe_same) {
            m->moe_layer_step = moe_step;
            m->moe_first_dense = moe_first;
        }
    } else {
        if (L > LLMROOF_PATTERN_MAX)
            L4_ERR("%s: field '%s%s%s' places its %s layers at no fixed step, where llmroof expects %s; a per-layer "
                   "pattern lists at most %d layers, not the model's %ld: llmroof cannot represent it", fname, in, dot,
                   !moe_rule ? "moe_layers" : nr ? "no_rope_layers" : "layer_types", !moe_rule ? "MoE" : "NoPE (global)",
                   !moe_rule ? "layer i MoE iff i >= first and (i + 1) % step == 0"
                             : "layer i global iff (i + 1) % n == 0", LLMROOF_PATTERN_MAX, L);
        for (long i = 0; i < L; i++) {
            m->mixers[i] = chunked && !glob[i] ? 'W' : 'A';
            m->ffns[i] = moe[i] ? 'E' : 'D';
        }
        m->mixers[L] = m->ffns[L] = '\0';
        m->window_global_every = 0; /* the pattern places the chunked layers */
        m->moe_layer_step = 1;
        m->moe_first_dense = 0;
    }
    if (n_moe == 0) {
        /* moe_layers []: every layer the dense MLP of intermediate_size_mlp, no expert anywhere */
        m->moe_experts = m->moe_top_k = m->moe_intermediate = m->moe_shared = 0;
        m->moe_layer_step = 1;
        m->moe_first_dense = 0;
        for (long i = 0; m->ffns[0] && i < L; i++)
            m->ffns[i] = 'D';
    }
    if (!glob_same)
        hf_warn(warn, warn_cap, "%s: field '%s%s%s' places the global (NoPE) layers otherwise than "
                "no_rope_layer_interval (%ld) says: the list is read", fname, in, dot, nr ? "no_rope_layers" : "layer_types",
                every);
    if (!moe_same)
        hf_warn(warn, warn_cap, "%s: field '%s%smoe_layers' places the MoE layers otherwise than "
                "interleave_moe_layer_step (%ld) says: the list is read", fname, in, dot, step0);
done:
#undef L4_ERR
    free(glob);
    free(moe);
    return rc;
}
