/* hf_internal.h - shared between hf.c (the known families) and hf_generic.c (the field-table
 * importer). Not installed. */
#ifndef LLMROOF_HF_INTERNAL_H
#define LLMROOF_HF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "data/catalog.h"

/* Appends one warning line to `warn` (bounded). */
void hf_warn(char *warn, size_t cap, const char *fmt, ...);
/* The note of a model that ships multi-token-prediction modules (m->mtp_layers > 0): the drafter
 * of --spec mtp, whose weights the entry does not count. Nothing where it ships none. */
void hf_warn_mtp(char *warn, size_t cap, const char *fname, const struct llmroof_model *m);
/* A member of doc that is present and not null, else NULL. */
const cJSON *hf_get(const cJSON *doc, const char *key);
/* First integer member among `keys` within [lo, hi], or dflt when none is present. */
int hf_int(const char *fname, const cJSON *doc, const char *const *keys, bool required, long dflt, long lo, long hi,
           long *out, struct llmroof_err *err);

/* Group-limited routing (DeepSeek-V2/V3's n_group and topk_group: a token's experts come from its
 * topk_group best groups of n_group): into m->moe_groups / moe_topk_groups when it limits (1 <
 * topk_group < n_group); absent, null or no limit (n_group 1, Kimi-K2, GLM-4.5) leaves both 0.
 * m->moe_experts and moe_top_k are read already. */
int hf_moe_groups(const char *fname, const cJSON *doc, struct llmroof_model *m, struct llmroof_err *err);

/* Llama-4's per-layer lists in `doc` (the text config): where they say what m's rules say
 * already, nothing changes; another fixed period sets the rules; any other placement m's per-layer
 * pattern; a list llmroof cannot represent, or that is malformed, an error naming the field
 * (hf_llama4.c). m's layers, window and MoE rules are read already. */
int hf_llama4_layers(const char *fname, const cJSON *doc, struct llmroof_model *m, char *warn, size_t warn_cap,
                     struct llmroof_err *err);

/* Gemma-3n's num_kv_shared_layers (the last n of `layers` layers attend with the KV cache of an
 * earlier layer of their kind and store none): 0 or absent is OK, anything else an error naming the
 * field, in every importer (the catalog has no shared-KV layer: shown as a plain layer it would
 * overstate the KV per token, dropped it would understate the attention). */
int hf_kv_shared(const char *fname, const cJSON *doc, long layers, struct llmroof_err *err);

/* A warning for each field of doc the generic field table does not know whose name is a shape's
 * (a misspelt num_key_value_head had imported Llama-3-8B as MHA without a word: a review); for
 * the families hf.c reads with its own rules, which take the fields they know and leave the rest */
void hf_warn_unknown_cost_fields(const char *fname, const cJSON *doc, char *warn, size_t warn_cap);
/* True when hf_generic_import knows `type` (its traits table) */
bool hf_generic_knows(const char *type);
/* The field-table importer: every member of the config is looked up in a table of known fields;
 * a known field is read for what it means, an unknown one that would change the cost is an
 * error naming it, any other a warning. `m` holds id, name, hf_id and source already. */
int hf_generic_import(const char *fname, const cJSON *root, const cJSON *doc, const char *type, struct llmroof_model *m,
                      char *warn, size_t warn_cap, struct llmroof_err *err);

/* The checkpoint format of a config's quantization_config (hf_quant.c): m's ckpt_* fields, a
 * warning where the method or scheme is not one llmroof models. `type` is the model_type (the
 * module names a compressed-tensors ignore list is matched against); m's shapes are read. */
int hf_quant_config(const char *fname, const cJSON *qc, const char *type, struct llmroof_model *m, char *warn,
                    size_t warn_cap, struct llmroof_err *err);

/* Copies `text` with the Python-JSON tokens the Hub serves (bare Infinity, -Infinity, NaN
 * outside strings) replaced by 1e999, -1e999 (which parse to +-inf) and null. Returns a
 * malloc'd string of *out_len bytes, NULL when out of memory. */
char *hf_python_json(const char *text, size_t len, size_t *out_len);

#endif
