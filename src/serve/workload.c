/* workload.c - see llmroof/workload.h */
#include "serve/workload.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/parse.h"

/* Lognormal parameters. chat: ShareGPT means reported by the vLLM paper (Kwon et al. 2023,
 * section 6.1): 161 prompt and 338 output tokens; sigma 1.0 / 0.8 are our choice of spread.
 * docqa: an assumed long-document QA shape (median 3000 / 100 tokens), not a measured set. */
#define CHAT_IN_MEAN 161.0
#define CHAT_IN_SIGMA 1.0
#define CHAT_OUT_MEAN 338.0
#define CHAT_OUT_SIGMA 0.8
#define DOC_IN_MEDIAN 3000.0
#define DOC_IN_SIGMA 0.5
#define DOC_OUT_MEDIAN 100.0
#define DOC_OUT_SIGMA 0.6

/* code: code completion as in the Azure coding trace of Splitwise (Patel et al. 2024, section
 * III): median prompt 1500 and median output 13 tokens; spreads are our choice.
 * openorca: the OpenOrca set MLPerf Inference uses for Llama-2-70B; its accuracy check expects
 * 294.45 output tokens per sample (mlcommons/inference, TOKENS_PER_SAMPLE), inputs are capped at
 * 1024 tokens; the prompt mean of 300 and both spreads are assumed, not fitted. */
#define CODE_IN_MEDIAN 1500.0
#define CODE_IN_SIGMA 0.7
#define CODE_OUT_MEDIAN 13.0
#define CODE_OUT_SIGMA 1.0
#define ORCA_IN_MEAN 300.0
#define ORCA_IN_SIGMA 0.8
#define ORCA_OUT_MEAN 294.0
#define ORCA_OUT_SIGMA 0.7

/* sharegpt: the ShareGPT set as the serving benchmarks draw it. vLLM's benchmark scripts
 * (benchmark_throughput and benchmark_serving since 2023, is_valid_sequence in its
 * benchmark_dataset.py), SGLang's bench_serving and LMDeploy's profile_throughput take each
 * conversation's first two turns as prompt and output, counted in the model's own tokenizer, and
 * keep a pair when both have at least 4 tokens, the prompt at most 1024 and the two at most 2048.
 * The kept set's means depend on the tokenizer:
 * - Llama 1/2's 32K vocabulary: 261 prompt and 246 output tokens. This is the mean of LMDeploy
 *   v0.1's three 3000-request runs on Llama-2 (docs/en/benchmark/a100_fp16.md, request-throughput
 *   table). Each run's total and output tokens/s over its requests/s give 265 / 249, 270 / 255
 *   and 248 / 233.
 * - Llama 3's 128K vocabulary: 220 and 195. Two samples, pooled by their request counts:
 *   vLLM's v0.6.0 performance post (500 requests, Llama 3's tokenizer, means 202 and 179) and
 *   vLLM PR #18566 (1,000 requests, Llama-3.1-8B-Instruct's tokenizer, 229,711 input and 203,068
 *   generated tokens): (202 x 500 + 229,711) / 1,500 = 220.5, (179 x 500 + 203,068) / 1,500 = 195.0.
 * A vocabulary of 64K entries or more takes Llama 3's means, a smaller one Llama 2's. The shape is
 * the chat distribution's lognormal, each side scaled so that the capped draws keep those means. */
#define SHAREGPT_PROMPT_CAP 1024L
#define SHAREGPT_TOTAL_CAP 2048L
#define SHAREGPT_LARGE_VOCAB 64000L
#define SHAREGPT_IN_LARGE 220L
#define SHAREGPT_OUT_LARGE 195L
#define SHAREGPT_IN_SMALL 261L
#define SHAREGPT_OUT_SMALL 246L
#define SHAREGPT_DRAWS 4000

#define MAX_TOKENS 1000000000L

static bool parse_len(const char *s, size_t n, long *out)
{
    char buf[24];
    int64_t v;
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!parse_int64(buf, 1, MAX_TOKENS, &v))
        return false;
    *out = (long)v;
    return true;
}

double workload_sigma_from_p90(double med, double p90)
{
    return log(p90 / med) / WORKLOAD_Z90;
}

/* lognormal:PMED:PP90:OMED:OP90[:MAX]: a published dataset summarized by the median and 90th
 * percentile of its prompt and output lengths (Sarathi-Serve's Table 2 gives these). A lognormal
 * is the two-parameter shape that such a pair fixes: median = e^mu, P90 = e^(mu + z_0.9 sigma). */
static int parse_quantiles(const char *spec, struct workload *w, struct llmroof_err *err)
{
    long v[5] = { 0, 0, 0, 0, 0 };
    const char *p = spec + 10;
    int n = 0;
    bool more = true;
    while (more) {
        if (n == 5)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "workload '%s': more than 5 fields (expected "
                                   "lognormal:PROMPT_MEDIAN:PROMPT_P90:OUTPUT_MEDIAN:OUTPUT_P90[:MAX_TOTAL])",
                                   spec);
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (!parse_len(p, len, &v[n]))
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "workload '%s': field %d '%.*s' is not a whole number in [1, %ld] "
                                   "(expected lognormal:PROMPT_MEDIAN:PROMPT_P90:OUTPUT_MEDIAN:OUTPUT_P90[:MAX_TOTAL])",
                                   spec, n + 1, (int)len, p, MAX_TOKENS);
        n++;
        more = colon != NULL;
        if (more)
            p = colon + 1;
    }
    if (n < 4)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "workload '%s': expected lognormal:PROMPT_MEDIAN:PROMPT_P90:OUTPUT_MEDIAN:OUTPUT_P90[:MAX_TOTAL]",
                               spec);
    if (v[1] < v[0] || v[3] < v[2])
        return llmroof_err_set(err, LLMROOF_EINPUT, "workload '%s': a P90 below its median (%ld < %ld)", spec,
                               v[1] < v[0] ? v[1] : v[3], v[1] < v[0] ? v[0] : v[2]);
    if (n == 5 && v[4] < v[0] + v[2])
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "workload '%s': MAX_TOTAL %ld is below the median prompt + output (%ld)", spec, v[4],
                               v[0] + v[2]);
    if (n == 4)
        v[WORKLOAD_Q_MAX] = 0;
    if (!(w->pairs = malloc(sizeof *w->pairs * WORKLOAD_Q_COUNT)))
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    memcpy(w->pairs, v, sizeof *w->pairs * WORKLOAD_Q_COUNT);
    w->kind = WORKLOAD_QUANTILES;
    w->prompt = v[WORKLOAD_Q_PMED];
    w->output = v[WORKLOAD_Q_OMED];
    return LLMROOF_OK;
}

/* random:P:O[:R], the benchmark tools' random dataset (SGLang's bench_serving and vLLM's
 * benchmark_serving before 0.7, sample_random_requests): each prompt a uniform whole number in
 * [max(floor(P R), 1), P] and each output one in [floor(O R), O] (here at least 1: a request with
 * no output cannot be served), R their --random-range-ratio, 0 by default (so a run stated as
 * "--random-input 1024 --random-output 1024" averages about 512 each), 1 for fixed lengths. */
static int parse_random(const char *spec, struct workload *w, struct llmroof_err *err)
{
    const char *p = spec + 7, *c1 = strchr(p, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    double ratio = 0.0;
    char *end = NULL;
    if (!c1 || (c2 && strchr(c2 + 1, ':')) || !parse_len(p, (size_t)(c1 - p), &w->prompt) ||
        !parse_len(c1 + 1, c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1), &w->output) ||
        (c2 && (!(isdigit((unsigned char)c2[1]) || c2[1] == '.') || strpbrk(c2 + 1, "xXeEnNiI") ||
                (ratio = strtod(c2 + 1, &end), *end != '\0') || !(ratio >= 0.0 && ratio <= 1.0))))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "workload '%s': expected random:PROMPT:OUTPUT[:RANGE_RATIO], lengths whole numbers in "
                               "[1, %ld] and the ratio in [0, 1] (SGLang's [P*R, P]; vLLM 0.7+'s [P(1-R), P(1+R)] is "
                               "random:P(1+R):O(1+R):(1-R)/(1+R))",
                               spec, MAX_TOKENS);
    long *lo = malloc(2 * sizeof *lo);
    if (!lo)
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    lo[0] = (long)floor((double)w->prompt * ratio);
    lo[1] = (long)floor((double)w->output * ratio);
    lo[0] = lo[0] < 1 ? 1 : lo[0];
    lo[1] = lo[1] < 1 ? 1 : lo[1];
    w->kind = WORKLOAD_RANDOM;
    w->pairs = lo;
    return LLMROOF_OK;
}

static int parse_spec(const char *spec, struct workload *w, struct llmroof_err *err)
{
    memset(w, 0, sizeof *w);
    if (strcmp(spec, "chat") == 0) {
        w->kind = WORKLOAD_CHAT;
        return LLMROOF_OK;
    }
    if (strcmp(spec, "docqa") == 0) {
        w->kind = WORKLOAD_DOCQA;
        return LLMROOF_OK;
    }
    if (strcmp(spec, "code") == 0) {
        w->kind = WORKLOAD_CODE;
        return LLMROOF_OK;
    }
    if (strcmp(spec, "openorca") == 0) {
        w->kind = WORKLOAD_OPENORCA;
        return LLMROOF_OK;
    }
    if (strcmp(spec, "sharegpt") == 0) {
        w->kind = WORKLOAD_SHAREGPT;
        return LLMROOF_OK;
    }
    if (strncmp(spec, "sharegpt:", 9) == 0) {
        const char *p = spec + 9, *colon = strchr(p, ':');
        if (!colon || strchr(colon + 1, ':'))
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "workload '%s': expected sharegpt or sharegpt:PROMPT_MEAN:OUTPUT_MEAN", spec);
        if (!parse_len(p, (size_t)(colon - p), &w->prompt) || !parse_len(colon + 1, strlen(colon + 1), &w->output))
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "workload '%s': the mean prompt and output lengths must be whole numbers in [1, %ld] "
                                   "(expected sharegpt:PROMPT_MEAN:OUTPUT_MEAN)",
                                   spec, MAX_TOKENS);
        w->kind = WORKLOAD_SHAREGPT;
        return LLMROOF_OK;
    }
    if (strncmp(spec, "lognormal:", 10) == 0)
        return parse_quantiles(spec, w, err);
    if (strncmp(spec, "random:", 7) == 0)
        return parse_random(spec, w, err);
    if (strncmp(spec, "fixed:", 6) == 0) {
        const char *p = spec + 6, *colon = strchr(p, ':');
        if (!colon)
            return llmroof_err_set(err, LLMROOF_EINPUT, "workload '%s': expected fixed:PROMPT:OUTPUT", spec);
        if (!parse_len(p, (size_t)(colon - p), &w->prompt))
            return llmroof_err_set(err, LLMROOF_EINPUT, "workload '%s': prompt length '%.*s' is not a whole number in [1, %ld]",
                                   spec, (int)(colon - p), p, MAX_TOKENS);
        if (!parse_len(colon + 1, strlen(colon + 1), &w->output))
            return llmroof_err_set(err, LLMROOF_EINPUT, "workload '%s': output length '%s' is not a whole number in [1, %ld]",
                                   spec, colon + 1, MAX_TOKENS);
        w->kind = WORKLOAD_FIXED;
        return LLMROOF_OK;
    }
    return llmroof_err_set(err, LLMROOF_EINPUT,
                           "workload '%s' is unknown (expected fixed:P:O, random:P:O[:R], chat, docqa, code, openorca, "
                           "sharegpt[:P:O], lognormal:PM:P90:OM:O90 or csv:FILE)",
                           spec);
}

/* the fixed-seed draws workload_means averages, made once: a distribution's (the named ones and
 * lognormal:); fixed lengths, csv rows, sharegpt (its pairs drawn for the model) and random (its
 * means exact) take none. Out of memory leaves none: they are drawn when asked. */
struct draw_store {
    long *d;
    size_t n;
};

static void store_draw(void *ctx, long prompt, long output)
{
    struct draw_store *ds = ctx;
    ds->d[ds->n++] = prompt;
    ds->d[ds->n++] = output;
}

static void make_mean_draws(struct workload *w)
{
    if (w->kind != WORKLOAD_CHAT && w->kind != WORKLOAD_DOCQA && w->kind != WORKLOAD_CODE &&
        w->kind != WORKLOAD_OPENORCA && w->kind != WORKLOAD_QUANTILES)
        return;
    long *d = malloc((size_t)2 * WORKLOAD_MEAN_DRAWS * sizeof *d);
    if (!d)
        return;
    struct draw_store ds = { d, 0 };
    workload_each_mean_draw(w, store_draw, &ds); /* w->draws is NULL yet: drawn, in order */
    w->draws = d;
}

/* The longest spec a workload has ("lognormal:" and five numbers of up to 10 digits: 65 bytes) with
 * room; a longer one is refused at once, its first 64 bytes echoed (a 600-digit length had filled
 * the message and cut its reason off). */
#define WORKLOAD_SPEC_MAX 128

int workload_parse(const char *spec, struct workload *w, struct llmroof_err *err)
{
    const size_t n = strlen(spec);
    if (n > WORKLOAD_SPEC_MAX) {
        size_t k = 64;
        while (k > 0 && ((unsigned char)spec[k] & 0xC0) == 0x80) /* cut at a UTF-8 character's start */
            k--;
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "workload '%.*s...' (%zu bytes) is longer than any workload spec (at most %d bytes)",
                               (int)k, spec, n, WORKLOAD_SPEC_MAX);
    }
    int rc = parse_spec(spec, w, err);
    if (rc)
        workload_free(w);
    else
        make_mean_draws(w);
    return rc;
}

void workload_each_mean_draw(const struct workload *w, void (*f)(void *ctx, long prompt, long output), void *ctx)
{
    if (w->draws) {
        for (size_t i = 0; i < WORKLOAD_MEAN_DRAWS; i++)
            f(ctx, w->draws[2 * i], w->draws[2 * i + 1]);
        return;
    }
    struct llmroof_rng r;
    rng_seed(&r, 0x5eedull);
    for (size_t i = 0; i < WORKLOAD_MEAN_DRAWS; i++) {
        long a = 0, b = 0;
        workload_sample(w, &r, &a, &b);
        f(ctx, a, b);
    }
}

/* ShareGPT-shaped lengths with given means: SHAREGPT_DRAWS draws of the chat distribution at a
 * fixed seed, each length scaled by one factor, so that the spread of a conversational trace
 * stays and the means are the ones asked for. A cap (the model's context, a benchmark's filter)
 * limits a prompt and then an output to what its prompt leaves of the total; the factor is found
 * by bisection so that the capped lengths keep the mean where the cap allows it. */
static double capped_len(double drawn, double k, double lo, double cap)
{
    double v = fmax(lo, (double)lround(drawn * k));
    return cap > 0 && v > cap ? cap : v;
}

/* the factor k with mean(capped_len(draw_i, k)) = target, the cap of draw i given by `caps`
 * (NULL: none) */
static double scale_to_mean(const long *pairs, int which, double target, double lo, const double *caps)
{
    double s = 0;
    for (int i = 0; i < SHAREGPT_DRAWS; i++)
        s += (double)pairs[2 * (size_t)i + (size_t)which];
    double k0 = target * SHAREGPT_DRAWS / s, a = 0, b = k0;
    /* the mean rises with k (weakly, once caps bind): widen, then halve */
    for (int n = 0; n < 40; n++) {
        double m = 0;
        for (int i = 0; i < SHAREGPT_DRAWS; i++)
            m += capped_len((double)pairs[2 * (size_t)i + (size_t)which], b, lo, caps ? caps[i] : 0);
        if (m >= target * SHAREGPT_DRAWS)
            break;
        b *= 2;
    }
    for (int n = 0; n < 60; n++) {
        double k = 0.5 * (a + b), m = 0;
        for (int i = 0; i < SHAREGPT_DRAWS; i++)
            m += capped_len((double)pairs[2 * (size_t)i + (size_t)which], k, lo, caps ? caps[i] : 0);
        if (m < target * SHAREGPT_DRAWS)
            a = k;
        else
            b = k;
    }
    return b;
}

int workload_scaled_sharegpt(long prompt, long output, long prompt_cap, long total_cap, struct workload *out,
                             struct llmroof_err *err)
{
    enum { N = SHAREGPT_DRAWS };
    const struct workload chat = { .kind = WORKLOAD_CHAT };
    long *pairs = malloc(sizeof *pairs * 2 * N);
    double *caps = malloc(sizeof *caps * N);
    if (!pairs || !caps) {
        free(pairs);
        free(caps);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "out of memory");
    }
    struct llmroof_rng r;
    rng_seed(&r, 7);
    for (int i = 0; i < N; i++)
        workload_sample(&chat, &r, &pairs[2 * (size_t)i], &pairs[2 * (size_t)i + 1]);
    const double pcap = prompt_cap > 0 ? (double)prompt_cap : 0;
    for (int i = 0; i < N; i++)
        caps[i] = pcap;
    const double kp = scale_to_mean(pairs, 0, (double)prompt, 1.0, pcap > 0 ? caps : NULL);
    for (int i = 0; i < N; i++) {
        pairs[2 * (size_t)i] = (long)capped_len((double)pairs[2 * (size_t)i], kp, 1.0, pcap);
        caps[i] = total_cap > 0 ? (double)(total_cap - pairs[2 * (size_t)i]) : 0;
    }
    const double ko = scale_to_mean(pairs, 1, (double)output, 2.0, total_cap > 0 ? caps : NULL);
    for (int i = 0; i < N; i++)
        pairs[2 * (size_t)i + 1] = (long)capped_len((double)pairs[2 * (size_t)i + 1], ko, 2.0, caps[i]);
    free(caps);
    *out = (struct workload){ .kind = WORKLOAD_SHAREGPT, .prompt = prompt, .output = output, .pairs = pairs, .npairs = N };
    return LLMROOF_OK;
}

int workload_for_model(struct workload *w, long vocab, long max_context, struct llmroof_err *err)
{
    if (w->kind != WORKLOAD_SHAREGPT || w->npairs > 0)
        return LLMROOF_OK;
    long p = w->prompt, o = w->output, pcap = 0, tcap = 0;
    if (p == 0) {
        /* the benchmarks' set: its filter and its tokenizer's means */
        const bool large = vocab >= SHAREGPT_LARGE_VOCAB;
        p = large ? SHAREGPT_IN_LARGE : SHAREGPT_IN_SMALL;
        o = large ? SHAREGPT_OUT_LARGE : SHAREGPT_OUT_SMALL;
        pcap = SHAREGPT_PROMPT_CAP;
        tcap = SHAREGPT_TOTAL_CAP;
    } else if (max_context > 0 && p + o > max_context) {
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "workload 'sharegpt:%ld:%ld': the mean prompt and output (%ld tokens) exceed the model's "
                               "context of %ld tokens (max_context)",
                               p, o, p + o, max_context);
    }
    /* the model accepts no longer request (vLLM refuses a longer prompt and stops generating at
     * max_model_len): a prompt up to context - 2, the two together up to the context */
    if (max_context > 2) {
        pcap = pcap > 0 && pcap < max_context - 2 ? pcap : max_context - 2;
        tcap = tcap > 0 && tcap < max_context ? tcap : max_context;
    }
    struct workload d;
    int rc = workload_scaled_sharegpt(p, o, pcap, tcap, &d, err);
    if (rc)
        return rc;
    workload_free(w);
    *w = d;
    return LLMROOF_OK;
}

void workload_free(struct workload *w)
{
    free(w->pairs);
    free(w->draws);
    w->pairs = NULL;
    w->draws = NULL;
    w->npairs = 0;
}

/* A header whose columns are the expected ones in another order is an error: the rows are
 * read by position, so "prompt_len,output_len,arrival_s" had its header dropped and its rows
 * read as arrival 10 s, prompt 10, output 0 ("prompt_len and output_len must be whole numbers"
 * on line 2, or a silently wrong run where the values fit). Names are compared without blanks
 * and quotes, in any case; a header of other names is taken as it stands (by position). */
static int csv_header_order(const char *const *f, const size_t *fl, int nf, const char *const *names,
                            const char *fname, struct llmroof_err *err)
{
    for (int k = 0; k < nf; k++) {
        const char *a = f[k], *b = f[k] + fl[k];
        while (a < b && (*a == ' ' || *a == '"'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '"'))
            b--;
        for (int j = 0; names[j]; j++)
            if (j != k && strlen(names[j]) == (size_t)(b - a) && !strncasecmp(a, names[j], (size_t)(b - a))) {
                char order[128] = "";
                for (int i = 0; names[i]; i++)
                    snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s", i ? "," : "", names[i]);
                return llmroof_err_set(err, LLMROOF_EINPUT, "%s:1: the header puts column '%s' in place %d; the "
                                       "columns are read by position, in the order %s", fname, names[j], k + 1, order);
            }
    }
    return LLMROOF_OK;
}

/* Splits CSV text into lines and fields; calls fn per data row with its fields. A UTF-8 byte
 * order mark before the first line is skipped. The first line is a header when its first
 * field starts with a letter, '_' or '"' (a column name); a row starting with a digit, '.',
 * a sign or a space is data, so it is checked (and a bad one is an error), never dropped. A
 * header naming the expected columns (names, NULL-terminated) out of order is an error. */
static int csv_rows(const char *text, size_t len, const char *fname, int nfields, const char *const *names,
                     int (*fn)(void *ctx, const char *const *f, const size_t *flen, long line, struct llmroof_err *err),
                     void *ctx, struct llmroof_err *err)
{
    size_t bad;
    if (!parse_utf8_valid(text, len, &bad))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: not valid UTF-8", fname, parse_line_at(text, bad));
    size_t i = 0;
    long line = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        i = 3;
    while (i < len) {
        size_t start = i;
        while (i < len && text[i] != '\n')
            i++;
        size_t end = i;
        if (i < len)
            i++;
        line++;
        if (end > start && text[end - 1] == '\r')
            end--;
        if (end == start)
            continue;
        const char *f[8] = { NULL };
        size_t fl[8] = { 0 };
        int nf = 0;
        size_t s = start;
        for (size_t k = start; k <= end; k++) {
            if (k == end || text[k] == ',') {
                if (nf == 8)
                    return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: too many fields (expected %d)", fname, line, nfields);
                f[nf] = text + s;
                fl[nf++] = k - s;
                s = k + 1;
            }
        }
        if (line == 1 && fl[0] > 0 &&
            ((f[0][0] >= 'a' && f[0][0] <= 'z') || (f[0][0] >= 'A' && f[0][0] <= 'Z') || f[0][0] == '_' ||
             f[0][0] == '"')) {
            int hrc = csv_header_order(f, fl, nf, names, fname, err);
            if (hrc)
                return hrc;
            continue; /* header */
        }
        if (nf != nfields)
            return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: expected %d comma-separated fields, found %d", fname,
                                   line, nfields, nf);
        int rc = fn(ctx, f, fl, line, err);
        if (rc)
            return rc;
    }
    return LLMROOF_OK;
}

struct pairs_ctx {
    struct workload *w;
    size_t cap;
    const char *fname;
};

static int add_pair(void *vctx, const char *const *f, const size_t *fl, long line, struct llmroof_err *err)
{
    struct pairs_ctx *c = vctx;
    long p, o;
    if (!parse_len(f[0], fl[0], &p) || !parse_len(f[1], fl[1], &o))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: prompt_len and output_len must be whole numbers in [1, %ld]",
                               c->fname, line, MAX_TOKENS);
    /* the limit counts rows, not the buffer's doubling capacity */
    if (c->w->npairs == 10000000)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: more than 10,000,000 rows", c->fname, line);
    if (c->w->npairs == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        if (cap > 10000000)
            cap = 10000000;
        long *np = realloc(c->w->pairs, cap * 2 * sizeof *np);
        if (!np)
            return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", c->fname);
        c->w->pairs = np;
        c->cap = cap;
    }
    c->w->pairs[2 * c->w->npairs] = p;
    c->w->pairs[2 * c->w->npairs + 1] = o;
    c->w->npairs++;
    return LLMROOF_OK;
}

int workload_parse_pairs(const char *text, size_t len, const char *fname, struct workload *w, struct llmroof_err *err)
{
    memset(w, 0, sizeof *w);
    w->kind = WORKLOAD_PAIRS;
    struct pairs_ctx c = { w, 0, fname };
    static const char *const names[] = { "prompt_len", "output_len", NULL };
    int rc = csv_rows(text, len, fname, 2, names, add_pair, &c, err);
    if (!rc && w->npairs == 0)
        rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: no (prompt_len, output_len) rows", fname);
    if (rc)
        workload_free(w);
    return rc;
}

static long lognormal(struct llmroof_rng *r, double mu, double sigma, long lo, long hi)
{
    /* clamped as a double: a draw past LONG_MAX (lognormal:1:1000000000:..., sigma ~ 16) cannot
     * be converted to long (undefined behaviour; x86-64 gives LONG_MIN, a negative length) */
    const double v = floor(exp(mu + sigma * rng_normal(r)) + 0.5);
    return v < (double)lo ? lo : v > (double)hi ? hi : (long)v;
}

void workload_sample(const struct workload *w, struct llmroof_rng *r, long *prompt, long *output)
{
    switch (w->kind) {
    case WORKLOAD_FIXED:
        *prompt = w->prompt;
        *output = w->output;
        return;
    case WORKLOAD_RANDOM: {
        const long lp = w->pairs[0], lo = w->pairs[1];
        *prompt = lp + (long)(rng_uniform(r) * (double)(w->prompt - lp + 1));
        *output = lo + (long)(rng_uniform(r) * (double)(w->output - lo + 1));
        *prompt = *prompt > w->prompt ? w->prompt : *prompt;
        *output = *output > w->output ? w->output : *output;
        return;
    }
    case WORKLOAD_CHAT:
        /* mean m of a lognormal: mu = ln m - sigma^2/2 */
        *prompt = lognormal(r, log(CHAT_IN_MEAN) - CHAT_IN_SIGMA * CHAT_IN_SIGMA / 2, CHAT_IN_SIGMA, 4, 4096);
        *output = lognormal(r, log(CHAT_OUT_MEAN) - CHAT_OUT_SIGMA * CHAT_OUT_SIGMA / 2, CHAT_OUT_SIGMA, 4, 2048);
        return;
    case WORKLOAD_DOCQA:
        *prompt = lognormal(r, log(DOC_IN_MEDIAN), DOC_IN_SIGMA, 512, 16000);
        *output = lognormal(r, log(DOC_OUT_MEDIAN), DOC_OUT_SIGMA, 8, 1024);
        return;
    case WORKLOAD_CODE:
        *prompt = lognormal(r, log(CODE_IN_MEDIAN), CODE_IN_SIGMA, 16, 8192);
        *output = lognormal(r, log(CODE_OUT_MEDIAN), CODE_OUT_SIGMA, 2, 512);
        return;
    case WORKLOAD_OPENORCA:
        *prompt = lognormal(r, log(ORCA_IN_MEAN) - ORCA_IN_SIGMA * ORCA_IN_SIGMA / 2, ORCA_IN_SIGMA, 4, 1024);
        *output = lognormal(r, log(ORCA_OUT_MEAN) - ORCA_OUT_SIGMA * ORCA_OUT_SIGMA / 2, ORCA_OUT_SIGMA, 2, 1024);
        return;
    case WORKLOAD_QUANTILES: {
        /* a trace filtered to max_total tokens (Sarathi-Serve's artifact drops longer requests):
         * redraw the pair; after 64 misses (a MAX near the medians) keep the output and cut the
         * prompt, so the draw always ends */
        const long *q = w->pairs, cap = q[WORKLOAD_Q_MAX];
        double pm = (double)q[WORKLOAD_Q_PMED], om = (double)q[WORKLOAD_Q_OMED];
        double sp = workload_sigma_from_p90(pm, (double)q[WORKLOAD_Q_PP90]);
        double so = workload_sigma_from_p90(om, (double)q[WORKLOAD_Q_OP90]);
        for (int tries = 0;; tries++) {
            *prompt = lognormal(r, log(pm), sp, 1, MAX_TOKENS);
            *output = lognormal(r, log(om), so, 1, MAX_TOKENS);
            if (!cap || *prompt + *output <= cap)
                return;
            if (tries == 63) {
                if (*output >= cap)
                    *output = cap / 2;
                *prompt = cap - *output;
                return;
            }
        }
    }
    case WORKLOAD_SHAREGPT:
        if (w->npairs == 0) {
            /* not yet drawn for a model (workload_for_model): the chat shape at the stated (or
             * the 128K-vocabulary) means under the benchmarks' filter */
            const double pm = (double)(w->prompt > 0 ? w->prompt : SHAREGPT_IN_LARGE),
                         om = (double)(w->output > 0 ? w->output : SHAREGPT_OUT_LARGE);
            *prompt = lognormal(r, log(pm) - CHAT_IN_SIGMA * CHAT_IN_SIGMA / 2, CHAT_IN_SIGMA, 4, SHAREGPT_PROMPT_CAP);
            *output = lognormal(r, log(om) - CHAT_OUT_SIGMA * CHAT_OUT_SIGMA / 2, CHAT_OUT_SIGMA, 4,
                                SHAREGPT_TOTAL_CAP - *prompt);
            return;
        }
        /* drawn: one of its pairs */
        /* fall through */
    case WORKLOAD_PAIRS: {
        size_t i = (size_t)(rng_uniform(r) * (double)w->npairs);
        if (i >= w->npairs)
            i = w->npairs - 1;
        *prompt = w->pairs[2 * i];
        *output = w->pairs[2 * i + 1];
        return;
    }
    }
}

bool workload_one_length(const struct workload *w)
{
    switch (w->kind) {
    case WORKLOAD_FIXED: return true;
    case WORKLOAD_RANDOM: return w->pairs[0] == w->prompt && w->pairs[1] == w->output;
    case WORKLOAD_PAIRS:
        for (size_t i = 1; i < w->npairs; i++)
            if (w->pairs[2 * i] != w->pairs[0] || w->pairs[2 * i + 1] != w->pairs[1])
                return false;
        return w->npairs > 0;
    default: return false;
    }
}

bool workload_prefix_on_top(const struct workload *w)
{
    return w->kind != WORKLOAD_FIXED && w->kind != WORKLOAD_PAIRS && w->kind != WORKLOAD_QUANTILES &&
           w->kind != WORKLOAD_RANDOM;
}

long workload_min_prompt(const struct workload *w)
{
    switch (w->kind) {
    case WORKLOAD_FIXED: return w->prompt;
    case WORKLOAD_RANDOM: return w->pairs[0];
    case WORKLOAD_CHAT: return 4;
    case WORKLOAD_DOCQA: return 512;
    case WORKLOAD_CODE: return 16;
    case WORKLOAD_OPENORCA: return 4;
    case WORKLOAD_QUANTILES: return 1;
    case WORKLOAD_SHAREGPT:
        if (w->npairs == 0)
            return 4;
        /* drawn: the shortest of its pairs */
        /* fall through */
    case WORKLOAD_PAIRS: {
        long m = MAX_TOKENS;
        for (size_t i = 0; i < w->npairs; i++)
            if (w->pairs[2 * i] < m)
                m = w->pairs[2 * i];
        return m;
    }
    }
    return 1;
}

struct max_draw {
    long max, left;
};

static void max_draw(void *ctx, long prompt, long output)
{
    (void)output;
    struct max_draw *m = ctx;
    if (m->left == 0)
        return;
    if (m->left > 0)
        m->left--;
    if (prompt > m->max)
        m->max = prompt;
}

long workload_max_prompt(const struct workload *w, long n)
{
    switch (w->kind) {
    case WORKLOAD_FIXED:
    case WORKLOAD_RANDOM: return w->prompt; /* random:P:O[:R] draws prompts up to P */
    case WORKLOAD_PAIRS: {
        long m = 0;
        for (size_t i = 0; i < w->npairs; i++)
            if (w->pairs[2 * i] > m)
                m = w->pairs[2 * i];
        return m;
    }
    default: break;
    }
    /* a distribution (or sharegpt, drawn or not): the longest of the first n fixed-seed draws its
     * means are taken over */
    struct max_draw m = { 0, n > 0 ? n : -1 };
    workload_each_mean_draw(w, max_draw, &m);
    return m.max;
}

static void add_draw(void *ctx, long prompt, long output)
{
    double *s = ctx;
    s[0] += (double)prompt;
    s[1] += (double)output;
}

struct prompt_fn {
    double (*f)(double prompt, const void *ctx);
    const void *ctx;
    double sum;
};

static void add_prompt_fn(void *ctx, long prompt, long output)
{
    struct prompt_fn *pf = ctx;
    (void)output;
    pf->sum += pf->f((double)prompt, pf->ctx);
}

void workload_means(const struct workload *w, double *prompt, double *output)
{
    double sp = 0, so = 0;
    if (w->kind == WORKLOAD_FIXED) {
        *prompt = (double)w->prompt;
        *output = (double)w->output;
        return;
    }
    if (w->kind == WORKLOAD_RANDOM) { /* uniform: the midpoints */
        *prompt = 0.5 * (double)(w->pairs[0] + w->prompt);
        *output = 0.5 * (double)(w->pairs[1] + w->output);
        return;
    }
    if (w->kind == WORKLOAD_PAIRS || (w->kind == WORKLOAD_SHAREGPT && w->npairs > 0)) {
        for (size_t i = 0; i < w->npairs; i++) {
            sp += (double)w->pairs[2 * i];
            so += (double)w->pairs[2 * i + 1];
        }
        *prompt = sp / (double)w->npairs;
        *output = so / (double)w->npairs;
        return;
    }
    double s[2] = { 0, 0 };
    workload_each_mean_draw(w, add_draw, s);
    *prompt = s[0] / WORKLOAD_MEAN_DRAWS;
    *output = s[1] / WORKLOAD_MEAN_DRAWS;
}

void workload_means_any_model(const struct workload *w, double *prompt, double *output)
{
    if (w->kind == WORKLOAD_SHAREGPT && w->npairs == 0) {
        /* scale_to_mean keeps a stated mean wherever the caps allow it, and lowers it where they bind */
        *prompt = (double)(w->prompt > 0 ? w->prompt
                                          : SHAREGPT_IN_SMALL > SHAREGPT_IN_LARGE ? SHAREGPT_IN_SMALL : SHAREGPT_IN_LARGE);
        *output = (double)(w->output > 0 ? w->output
                                          : SHAREGPT_OUT_SMALL > SHAREGPT_OUT_LARGE ? SHAREGPT_OUT_SMALL : SHAREGPT_OUT_LARGE);
        return;
    }
    workload_means(w, prompt, output);
}

double workload_mean_of_prompt(const struct workload *w, double (*f)(double prompt, const void *ctx), const void *ctx)
{
    if (w->kind == WORKLOAD_FIXED)
        return f((double)w->prompt, ctx);
    double s = 0;
    if (w->kind == WORKLOAD_RANDOM && w->prompt - w->pairs[0] < 1L << 20) {
        /* uniform over the whole lengths pairs[0]..prompt (workload_sample) */
        for (long p = w->pairs[0]; p <= w->prompt; p++)
            s += f((double)p, ctx);
        return s / (double)(w->prompt - w->pairs[0] + 1);
    }
    if (w->kind == WORKLOAD_PAIRS || (w->kind == WORKLOAD_SHAREGPT && w->npairs > 0)) {
        for (size_t i = 0; i < w->npairs; i++)
            s += f((double)w->pairs[2 * i], ctx);
        return s / (double)w->npairs;
    }
    struct prompt_fn pf = { f, ctx, 0 };
    workload_each_mean_draw(w, add_prompt_fn, &pf); /* workload_means' draws */
    return pf.sum / WORKLOAD_MEAN_DRAWS;
}

struct trace_ctx {
    struct trace_req *v;
    size_t n, cap, max;
    const char *fname;
};

static int add_trace(void *vctx, const char *const *f, const size_t *fl, long line, struct llmroof_err *err)
{
    struct trace_ctx *c = vctx;
    char buf[40];
    double t;
    long p, o;
    if (fl[0] == 0 || fl[0] >= sizeof buf)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: arrival_s must be a number of seconds", c->fname, line);
    memcpy(buf, f[0], fl[0]);
    buf[fl[0]] = '\0';
    if (!parse_double(buf, &t) || t < 0 || signbit(t) || t > 1e9) /* "-0" is a negative arrival too */
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: arrival_s '%s' must be a number of seconds in [0, 1e9]",
                               c->fname, line, buf);
    if (!parse_len(f[1], fl[1], &p) || !parse_len(f[2], fl[2], &o))
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s:%ld: prompt_len and output_len must be whole numbers in [1, %ld]",
                               c->fname, line, MAX_TOKENS);
    if (c->n == c->max)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s: more than %zu requests", c->fname, c->max);
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        struct trace_req *nv = realloc(c->v, cap * sizeof *nv);
        if (!nv)
            return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", c->fname);
        c->v = nv;
        c->cap = cap;
    }
    c->v[c->n++] = (struct trace_req){ t, p, o };
    return LLMROOF_OK;
}

struct keyed {
    struct trace_req r; /* the row */
    size_t pos;         /* its line order, for a stable sort */
};

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->r.arrival_s != y->r.arrival_s)
        return x->r.arrival_s < y->r.arrival_s ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

int workload_parse_trace(const char *text, size_t len, const char *fname, size_t max_rows, struct trace_req **out,
                         size_t *n, struct llmroof_err *err)
{
    struct trace_ctx c = { NULL, 0, 0, max_rows, fname };
    static const char *const names[] = { "arrival_s", "prompt_len", "output_len", NULL };
    int rc = csv_rows(text, len, fname, 3, names, add_trace, &c, err);
    if (!rc && c.n == 0)
        rc = llmroof_err_set(err, LLMROOF_EINPUT, "%s: no requests (rows of arrival_s,prompt_len,output_len)", fname);
    if (rc) {
        free(c.v);
        return rc;
    }
    /* stable sort by arrival: qsort on (arrival, original position) */
    struct keyed *k = malloc((c.n ? c.n : 1) * sizeof *k);
    if (!k) {
        free(c.v);
        return llmroof_err_set(err, LLMROOF_EINTERNAL, "%s: out of memory", fname);
    }
    for (size_t i = 0; i < c.n; i++)
        k[i] = (struct keyed){ c.v[i], i };
    qsort(k, c.n, sizeof *k, cmp_keyed);
    for (size_t i = 0; i < c.n; i++)
        c.v[i] = k[i].r;
    free(k);
    *out = c.v;
    *n = c.n;
    return LLMROOF_OK;
}
