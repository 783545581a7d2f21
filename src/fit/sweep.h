/* sweep.h - one configuration of a sweep: inputs, validity and key outputs, and its
 * CSV / JSON Lines rendering. Column order (docs/scripting.md) is stable: new columns are
 * only ever appended. Rows are rendered by hand rather than through cJSON trees because a
 * sweep writes hundreds of thousands of rows per second. */
#ifndef LLMROOF_SWEEP_H
#define LLMROOF_SWEEP_H

#include <stdbool.h>

#include "model/estimate.h"
#include "model/memory.h"
#include "base/sbuf.h"

struct sweep_row {
    /* inputs */
    char model[LLMROOF_ID_MAX];
    char gpu[LLMROOF_ID_MAX];
    int tp;
    int pp, ep;            /* layout beyond TP (1 = none); written only when set (docs/scripting.md) */
    bool dp_attn;          /* --dp-attention */
    double ep_imbalance;   /* --ep-imbalance; 0 = not given (uniform routing's busiest rank) */
    bool two_batch_overlap; /* --two-batch-overlap */
    int moe_tp;            /* --moe-tp (1 = none) */
    long batch, prompt, output;
    struct llmroof_dtypes dt;
    bool state_given;      /* --state-dtype named dt.state: written as state_dtype (CSV: the last
                              column, JSONL: after act_dtype); otherwise the model's own */
    char engine[LLMROOF_ID_MAX]; /* --engine: the profile evaluated (JSONL after the dtypes, CSV the
                              last column); "" = none, the catalog efficiencies alone */
    /* validity */
    bool valid;            /* estimated; false: see reason */
    char reason[520];      /* why not, "" when valid */
    /* outputs (valid rows only) */
    bool fits;
    double weights_bytes_per_gpu, kv_bytes_per_token_per_gpu, max_batch;
    double ttft_s, tpot_s, e2e_s, decode_tok_s, output_tok_s;
    /* each phase's bound as estimate names it (roofline_phase_bound_name): compute, memory, comm,
     * or cpu where the CPU's launches outlast each of the three (sweep and report had said
     * "memory" where estimate said "cpu": a review of session 65) */
    char prefill_bound[8], decode_bound[8];
    double prefill_comm_share, decode_comm_share;
};

/* Number of numeric output fields and their names / accessors, for check. */
#define SWEEP_NUM_FIELDS 11
extern const char *const sweep_num_field_names[SWEEP_NUM_FIELDS];
/* v as a sweep row stores it (whole numbers exactly, others to 10 significant digits) and
 * reads back: check compares a fresh value at the baseline's precision, so --rtol 0 passes
 * on a baseline just written. */
double sweep_stored_value(double v);
double sweep_num_field(const struct sweep_row *r, int i);

/* Evaluates one configuration with catalog efficiencies and default memory options.
 * Never fails: an invalid configuration sets valid = false and a reason. */
void sweep_eval(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp, long batch, long prompt,
                long output, const struct llmroof_dtypes *dt, struct sweep_row *out);

/* Same under a layout (lay->tp is ignored: `tp` is the row's); sweep_eval is this with none. */
void sweep_eval_layout(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                       const struct llmroof_layout *lay, long batch, long prompt, long output,
                       const struct llmroof_dtypes *dt, struct sweep_row *out);

/* Same under engine profile en (NULL: sweep_eval_layout), as estimate -e takes it: the profile's
 * efficiencies and graph limit at this TP, its dtype rules, and its KV pool and workspace
 * (sim_config_engine, as estimate and memory set them up). A GPU the engine does not run on is a
 * row with valid false and the reason. */
void sweep_eval_engine(const struct llmroof_model *m, const struct llmroof_gpu *g, int tp,
                       const struct llmroof_layout *lay, const struct llmroof_engine *en, long batch, long prompt,
                       long output, const struct llmroof_dtypes *dt, struct sweep_row *out);

void sweep_csv_header(struct sbuf *out);
/* With a layout, the CSV gains five last columns pp, ep, dp_attention, ep_imbalance (empty when
 * not given) and two_batch_overlap (header and rows). */
void sweep_csv_header_layout(struct sbuf *out);
/* The state_dtype column after a header or row just written (sweep --state-dtype). */
void sweep_csv_append_state_header(struct sbuf *out);
void sweep_csv_append_state(const struct sweep_row *r, struct sbuf *out);
/* The engine column after a header or row just written (sweep --engine), the last, after
 * state_dtype where both are given. */
void sweep_csv_append_engine_header(struct sbuf *out);
void sweep_csv_append_engine(const struct sweep_row *r, struct sbuf *out);
void sweep_csv_row_layout(const struct sweep_row *r, struct sbuf *out);
void sweep_csv_row(const struct sweep_row *r, struct sbuf *out);
/* The schema every JSON Lines row names first (docs/json.md). */
#define SWEEP_SCHEMA "llmroof.sweep/1"
void sweep_jsonl_row(const struct sweep_row *r, struct sbuf *out);

#endif
