/* render_json.h - JSON output, built with cJSON. Each function returns a
 * NUL-terminated string the caller frees with free(), or NULL when out of memory.
 * Numbers are printed by cJSON (shortest round-trip form), so output is stable. */
#ifndef LLMROOF_RENDER_JSON_H
#define LLMROOF_RENDER_JSON_H

#include "data/catalog.h"
#include "model/estimate.h"
#include "model/memory.h"
#include "render/report.h"
#include "render/render_sim.h"
#include "serve/plan.h"
#include "render/render_validate.h"
#include "fit/sweep.h"
#include "render/table.h"

/* Every document starts with "schema": "llmroof.<command>/1"; docs/json.md lists each field.
 * Catalog documents (import-hf, --out and --fit-*-out files) carry this schema, which the
 * catalog loader accepts as their only other top-level field. */
#define RENDER_JSON_CATALOG_SCHEMA "llmroof.catalog/1"

/* A JSON document assembled from a command's result tables: {"schema": ..., key: [rows]...}
 * with one object per row (numeric cells are numbers). rjdoc_new returns NULL when out of
 * memory; every other call accepts NULL and a document whose allocation failed, and
 * rjdoc_finish then returns NULL. rjdoc_finish and rjdoc_free release d. */
struct rjdoc;
struct rjdoc *rjdoc_new(const char *schema);
void rjdoc_table(struct rjdoc *d, const char *key, const struct table *t);
void rjdoc_str(struct rjdoc *d, const char *key, const char *value); /* NULL: JSON null */
void rjdoc_num(struct rjdoc *d, const char *key, double value);
void rjdoc_bool(struct rjdoc *d, const char *key, bool value);
/* check --format json: one entry of the "drifts" array per drifted field of a baseline row
 * (numeric: baseline and now are numbers; otherwise the texts). field NULL: only create the
 * empty array (row may then be NULL). */
void rjdoc_drift(struct rjdoc *d, long line, const struct sweep_row *row, const char *field, bool numeric,
                 double baseline, double now, const char *baseline_text, const char *now_text);
char *rjdoc_finish(struct rjdoc *d);

/* o as JSON text (indented or on one line, with a newline or not) in a buffer the caller frees
 * with free(); NULL when out of memory. Every cJSON_Print of the library goes through it: cJSON's
 * own buffers belong to the allocator a host may have set with cJSON_InitHooks. */
struct cJSON;
char *rj_print(const struct cJSON *o, bool formatted, bool newline);
void rjdoc_free(struct rjdoc *d);

/* {"models": [entry]} in the catalog schema: what --models-file accepts. */
char *render_json_model_doc(const struct llmroof_model *m);

/* One catalog entry plus a "derived" object (show --format json). */
char *render_json_show_model(const struct llmroof_model *m);
char *render_json_show_gpu(const struct llmroof_gpu *g);

/* `estimate --format json`; mem and bands may be NULL. sim_prefill_steps, sim_budget_tokens and
 * sim_chunked: the steps `simulate` takes for this batch's prompts at its token budget a step (1:
 * one pass), that budget (0: a static batch prefilled whole) and whether it chunks prompts. */
char *render_json_estimate(const struct llmroof_setup *s, const struct llmroof_request *r,
                           const struct llmroof_estimate *e, const struct llmroof_memory *mem,
                           const struct llmroof_uncertainty *bands, long sim_prefill_steps, long sim_budget_tokens,
                           bool sim_chunked);

/* `memory --format json`; sh is the layout's shard, whose `layout` object it carries beyond
 * TP (NULL: none); engine the -e profile whose pool it is (NULL: none); spec the --spec method
 * whose drafter the pool holds beside the target (NULL: none). */
char *render_json_memory(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp, long batch,
                         const struct llmroof_dtypes *dt, const struct llmroof_memory *mem,
                         const struct llmroof_shard *sh, const struct llmroof_engine *engine, const char *spec);

/* `simulate --format json`: one run, or a sweep (pts, n) when param is not NULL. */
char *render_json_sim(const struct sim_config *c, const struct sim_result *r, const char *workload_name);
/* render_json_sim with --range: a "range" object of each latency's statistics at the band's low
 * and high factors */
char *render_json_sim_range(const struct sim_config *c, const struct sim_result *r, const char *workload_name,
                            const struct llmroof_uncertainty *u);
/* The same document with "capacity_band": the runs at the service rate `band` lower (`lo`, iteration
 * times / (1 - band)) and higher (`hi`, / (1 + band)): their TTFT/TPOT statistics, throughput and
 * overload flag (simulate --capacity-band). */
char *render_json_sim_band(const struct sim_config *c, const struct sim_result *r, const char *workload_name,
                           double band, const struct sim_result *lo, const struct sim_result *hi);
char *render_json_sim_sweep(const char *param, const struct sim_point *pts, int n, const struct sim_config *c,
                            const char *workload_name);

/* `plan --format json`. */
char *render_json_plan(const struct plan_input *in, const struct plan_result *r);

/* `validate --format json`: rows, unmapped rows and the summary. */
char *render_json_validate(const char *fname, const struct val_case *cases, size_t n, enum val_group by);
/* Adds a validation group's "n", its median and 90th-percentile |error| under the given keys and
 * "bias" (fractions) to object o; null statistics for a group with no row. */
struct cJSON;
void render_json_add_stats(struct cJSON *o, struct val_stats s, const char *median_key, const char *p90_key);
/* The uncertainty bands file read by --range (data/uncertainty.json). */
/* cv: "source" or "gpu" when the static predictions were held out (validate --cv), NULL when in
 * sample; serving: the serving rows' file where u holds their bands (serving_*), else NULL, and
 * serving_held whether those were held out by publication (--cv source) or predicted in sample */
char *render_json_uncertainty(const char *fname, const char *serving, bool serving_held, const char *cv,
                              const struct llmroof_uncertainty *u);
/* {"gpus": [entry]}: g with efficiencies e and `note` appended to its source. */
char *render_json_gpu_doc(const struct llmroof_gpu *g, const struct llmroof_effs *e, const char *note);

/* {"gpus": [...]}: every GPU of the catalog, in catalog order (data/gpus.json). */
char *render_json_gpus(const struct llmroof_gpu *g, size_t n);

/* {"engines": [...]} for data/engines.json. */
char *render_json_engines(const struct llmroof_engine *e, int n);

/* `report --format json`. */
char *render_json_report(const struct llmroof_report *r);

#endif
