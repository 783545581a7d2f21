/* render_report.h - the report's tables (text, Markdown, CSV), charts and HTML page.
 * JSON: render_json_report in render_json.h. */
#ifndef LLMROOF_RENDER_REPORT_H
#define LLMROOF_RENDER_REPORT_H

#include "render/report.h"
#include "base/sbuf.h"
#include "render/table.h"

const char *report_status_name(enum report_status s);

/* Table 1 (configurations), 2 (prefill shares) and 3 (decode shares). Caller frees. */
void report_table_configs(const struct llmroof_report *r, struct table *t);

/* unit_names: column names end in _pct (CSV, where no title says what the numbers are) */
void report_table_shares(const struct llmroof_report *r, bool decode, bool unit_names, struct table *t);

/* Header, tables and observations as text, Markdown or CSV (one table per section). */
/* Text and Markdown fit 100 columns (Table 1 as parts 1a-1d) unless `wide`; CSV holds the table
 * sel picks, every column. */
#define REPORT_TEXT_WIDTH 100
/* "engine E; host CPU ..." line for a run over several GPUs with an engine profile (nothing
 * without one): the profile, and the host speed its CPU costs take (--host-cpu-speed, else each
 * GPU entry's host.cpu_speed). */
void render_engine_line(const struct llmroof_eff_override *o, struct sbuf *out);

void render_report(const struct llmroof_report *r, enum table_format f, struct table_sel *sel, bool wide,
                   struct sbuf *out);

/* Stacked bars of operator shares per GPU x TP for prefill (decode false) or decode. */
void render_report_chart(const struct llmroof_report *r, bool decode, bool standalone, struct sbuf *out);

/* Grouped bars of TTFT, TPOT and decode throughput: one group per GPU, one bar per TP (the
 * first chart of the page and MODEL-latency.svg of --svg-dir). */
void render_report_latency_chart(const struct llmroof_report *r, bool standalone, struct sbuf *out);

/* One self-contained HTML page: tables, inline SVG charts, observations. */
void render_report_html(const struct llmroof_report *r, struct sbuf *out);

#endif
