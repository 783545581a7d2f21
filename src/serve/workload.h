/* workload.h - request lengths and arrivals for the serving simulator.
 * Length specifications (docs/metrics.md states the parameters and sources):
 *   fixed:P:O    every request has P prompt and O output tokens
 *   chat         ShareGPT-like: lognormal, mean 161 prompt / 338 output tokens
 *   docqa        long-document QA: lognormal, median 3000 prompt / 100 output tokens
 *   code         code completion: lognormal, median 1500 prompt / 13 output tokens (Splitwise)
 *   openorca     MLPerf's Llama-2-70B set: mean 294 output tokens, prompts up to 1024
 *   sharegpt     ShareGPT as the serving benchmarks draw it (prompt <= 1024, total <= 2048):
 *                means 220 / 195 tokens for a tokenizer of 64K+ entries, 261 / 246 below
 *   sharegpt:P:O the same shape scaled to means P and O, capped at the model's context only
 *   pairs        lengths sampled uniformly from (prompt_len, output_len) rows of a CSV
 *   lognormal:PMED:PP90:OMED:OP90[:MAX]  a dataset stated by its median and P90 per dimension:
 *                lognormal through both (sigma = ln(P90/median) / z_0.9), pairs above MAX
 *                total tokens redrawn (a trace filtered to MAX)
 * Parsing works on text; the CLI reads files. Pure apart from malloc. */
#ifndef LLMROOF_WORKLOAD_H
#define LLMROOF_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "base/rng.h"

enum workload_kind { WORKLOAD_FIXED, WORKLOAD_CHAT, WORKLOAD_DOCQA, WORKLOAD_PAIRS, WORKLOAD_CODE, WORKLOAD_OPENORCA,
                     WORKLOAD_QUANTILES, WORKLOAD_SHAREGPT, WORKLOAD_RANDOM };

struct workload {
    enum workload_kind kind;
    long prompt, output;     /* fixed; sharegpt's stated means (0: the tokenizer's) */
    long *pairs;             /* owned: 2*npairs values (prompt, output) for WORKLOAD_PAIRS; for
                              * WORKLOAD_SHAREGPT once workload_for_model has drawn them; for
                              * WORKLOAD_QUANTILES (npairs 0) its WORKLOAD_Q_COUNT parameters; for
                              * WORKLOAD_RANDOM (npairs 0) the shortest prompt and output it draws,
                              * indexed by enum workload_q (a new field would change every
                              * positional initializer of this struct) */
    size_t npairs;
    long *draws;             /* owned: the WORKLOAD_MEAN_DRAWS fixed-seed (prompt, output) draws that
                              * workload_means and its kin average, made once by workload_parse for a
                              * named distribution (a plan simulates hundreds of runs of one workload;
                              * drawing them again for each was a third of its time); NULL: drawn when
                              * asked, the same draws */
};

/* The fixed-seed sample a distribution's means are taken over (workload_means) */
#define WORKLOAD_MEAN_DRAWS 20000

/* The parameters of lognormal:PMED:PP90:OMED:OP90[:MAX] (MAX 0: no cap). */
enum workload_q { WORKLOAD_Q_PMED, WORKLOAD_Q_PP90, WORKLOAD_Q_OMED, WORKLOAD_Q_OP90, WORKLOAD_Q_MAX, WORKLOAD_Q_COUNT };

/* The z-score of the 90th percentile of a standard normal (Phi^-1(0.9)). */
#define WORKLOAD_Z90 1.2815515655446004
/* sigma of the lognormal whose median is med and 90th percentile p90: ln(p90/med) / z_0.9. */
double workload_sigma_from_p90(double med, double p90);

/* Parses "fixed:P:O", "chat", "docqa", "code", "openorca", "sharegpt[:P:O]" or "lognormal:...".
 * "csv:FILE" is the CLI's job (workload_parse_pairs). */
int workload_parse(const char *spec, struct workload *out, struct llmroof_err *err);
/* A sharegpt workload for the model it runs on: its means (the tokenizer's when not stated:
 * `vocab` entries) and caps (the benchmarks' 1024 / 2048 and the model's context `max_context`,
 * 0 for none) fixed in 4,000 drawn pairs. Other workloads are left as they are. An error when
 * stated means cannot fit the context. */
int workload_for_model(struct workload *w, long vocab, long max_context, struct llmroof_err *err);
/* 4,000 ShareGPT-shaped pairs (the chat distribution's draws at a fixed seed, each side scaled
 * by one factor) whose means are prompt and output, no prompt above prompt_cap and no prompt +
 * output above total_cap (0: no cap); the factors are found by bisection so that the capped
 * lengths keep the means where the caps allow it. kind WORKLOAD_SHAREGPT; free with workload_free. */
int workload_scaled_sharegpt(long prompt, long output, long prompt_cap, long total_cap, struct workload *out,
                             struct llmroof_err *err);
/* Parses CSV text of prompt_len,output_len rows (an optional header line is skipped). */
int workload_parse_pairs(const char *text, size_t len, const char *fname, struct workload *out, struct llmroof_err *err);
void workload_free(struct workload *w);

/* Draws one request's lengths. */
void workload_sample(const struct workload *w, struct llmroof_rng *r, long *prompt, long *output);

/* Does every request have the same prompt and output lengths? fixed:P:O, random:P:O:1 (its range
 * one value wide) and a csv whose rows are all one pair. */
bool workload_one_length(const struct workload *w);

/* Does a shared prefix come on top of the drawn prompt (named distributions, which draw the
 * user's part) rather than inside it (fixed:P:O and csv rows give whole prompts)? */
bool workload_prefix_on_top(const struct workload *w);
/* Shortest prompt the workload can draw (the clip of a distribution). */
long workload_min_prompt(const struct workload *w);
/* Longest prompt of a dataset of n requests of the workload (as trtllm-bench sizes by its dataset's
 * longest input): exact for fixed, random and csv rows, else the longest of the first n (all
 * when n <= 0) of workload_means' fixed-seed draws. */
long workload_max_prompt(const struct workload *w, long n);
/* Expected prompt and output lengths (exact for fixed and csv; the distributions' means
 * by a fixed-seed sample of 20,000 draws otherwise). */
void workload_means(const struct workload *w, double *prompt, double *output);
/* The mean prompt and output lengths a workload runs with on whichever model it is given, for a
 * limit checked before the model is known (llmroof serve's): workload_means, except for a
 * sharegpt not yet drawn for a model (workload_for_model), whose means are the stated ones or, when
 * none is stated, the larger tokenizer's; the model's context and the benchmarks' caps can only
 * lower them. */
void workload_means_any_model(const struct workload *w, double *prompt, double *output);
/* The expected value of f(prompt, ctx) over the workload's prompts: exact for fixed, csv rows and
 * random (every prompt length of its range, where the range is at most 2^20 lengths), else by
 * workload_means' fixed-seed sample of 20,000 draws (the same prompts: f the identity gives its
 * mean prompt). For a quantity that is not linear in the prompt (the K/V a windowed model holds),
 * whose mean is not its value at the mean prompt. */
double workload_mean_of_prompt(const struct workload *w, double (*f)(double prompt, const void *ctx), const void *ctx);
/* Calls f on each of the WORKLOAD_MEAN_DRAWS fixed-seed draws of a distribution, in order (the
 * requests workload_means averages; w->draws when made, else drawn now: the same draws). */
void workload_each_mean_draw(const struct workload *w, void (*f)(void *ctx, long prompt, long output), void *ctx);

struct trace_req {
    double arrival_s;   /* seconds from the start */
    long prompt, output;
};

/* Parses a trace CSV: arrival_s,prompt_len,output_len per row (optional header). Rows are
 * sorted by arrival (stable). Caller frees *out. At most max_rows rows. */
int workload_parse_trace(const char *text, size_t len, const char *fname, size_t max_rows, struct trace_req **out,
                         size_t *n, struct llmroof_err *err);

#endif
