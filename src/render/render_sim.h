/* render_sim.h - simulator output: summary tables, per-request CSV, Chrome trace, sweep
 * table and curve. JSON: render_json_sim in render_json.h. */
#ifndef LLMROOF_RENDER_SIM_H
#define LLMROOF_RENDER_SIM_H

#include "base/sbuf.h"
#include "serve/sim.h"
#include "render/table.h"

/* "eagle3, k 3, acceptance 0.7: expected 2.533 tokens per step" (a draft model's id, a tree's
 * shape, an EAGLE-3 head's vocabulary, a --spec-draft-config layer where they apply): the
 * speculative setting as simulate's and plan's headers state it. */
void render_spec_text(const struct sim_spec *sp, const struct llmroof_draft_head *head,
                      const struct llmroof_dtypes *target, char *buf, size_t n);
/* One line describing the configuration (no newline). */
void render_sim_header(const struct sim_config *c, const char *workload_name, struct sbuf *out);
/* Latency percentiles and the throughput/utilisation table. */
void render_sim(const struct sim_config *c, const struct sim_result *r, const char *workload_name,
                enum table_format f, struct table_sel *sel, struct sbuf *out);
/* The same with low/high rows per latency scaled by the uncertainty bands (u may be NULL). */
void render_sim_bands(const struct sim_config *c, const struct sim_result *r, const char *workload_name,
                      const struct llmroof_uncertainty *u, enum table_format f, struct table_sel *sel,
                      struct sbuf *out);
/* The KV line's "about N requests of the mean length at once": of pool `pool` (0 prefill or
 * aggregated, 1 decode), or of every instance (-1); whole requests per attention replica. */
double render_sim_requests_at_mean_len(const struct sim_config *c, const struct sim_result *r, int pool);
/* id,arrival_s,first_scheduled_s,first_token_s,finish_s,prompt_len,output_len,preemptions,status,
 * instance,prefill_instance,kv_ready_s (docs/metrics.md) */
void render_sim_requests_csv(const struct sim_result *r, struct sbuf *out);
/* Chrome trace event format (chrome://tracing, Perfetto): one complete event per iteration. */
void render_sim_chrome_trace(const struct sim_result *r, struct sbuf *out);

struct sim_point {
    double param;               /* the swept value */
    struct sim_result result;   /* its run (reqs may be freed) */
};
/* One row per point of a sweep of `param_name`; an open loop's rows say whether the server kept
 * up, and with SLOs in c (ttft_slo_s) each row's goodput and verdict. */
void render_sim_sweep(const char *param_name, const struct sim_point *pts, int n, const struct sim_config *c,
                      enum table_format f, struct sbuf *out);
/* Two panels over the swept setting (x, named on its axis): TTFT and TPOT at p50 and at the SLO
 * percentile of c (ms, log scale, with the SLO limits of c as dashed lines when set), and output
 * throughput (tokens/s). Round tick values; no point labels to pile up. */
void render_sim_curve(const char *title, const char *param_name, const struct sim_point *pts, int n,
                      const struct sim_config *c, struct sbuf *out);

#endif
