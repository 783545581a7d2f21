/* cli_values.c - option values: numbers, sizes, dtypes and durations with the option named
 * in every message; think times and workloads; the model/GPU/dtype/efficiency options that
 * estimate, memory and report share. */
#include "cli/cli.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/par.h"
#include "base/parse.h"
#include "model/ckpt.h"
#include "base/rng.h"
#include "serve/sim.h"

int cli_long(struct cli *c, const char *opt, const char *arg, long min, long max, long *out)
{
    int64_t v;
    if (!parse_int64(arg, min, max, &v))
        return cli_usage_error(c, "option '--%s': '%s' is not a whole number in [%ld, %ld]", opt, CLI_CLIP(arg), min, max);
    *out = (long)v;
    return 0;
}

int cli_double(struct cli *c, const char *opt, const char *arg, double min, double max, bool min_open, double *out)
{
    double v;
    if (!parse_double(arg, &v) || (min_open ? v <= min : v < min) || v > max)
        return cli_usage_error(c, "option '--%s': '%s' is not a number in %s%g, %g]", opt, CLI_CLIP(arg),
                               min_open ? "(" : "[", min, max);
    *out = v;
    return 0;
}

static bool has_unit(const char *s);
static bool bare_zero(const char *s);

/* A number written with a minus sign that is not zero ("-1", "-0.5GiB"; "-0" and "-0.0" are zero):
 * such a size or duration is named as negative, not as lacking a unit */
static bool negative_number(const char *s)
{
    if (s[0] != '-')
        return false;
    const char *q = s + 1;
    bool digit = false;
    for (; *q == '0' || *q == '.'; q++)
        digit |= *q == '0';
    return isdigit((unsigned char)*q) || (!digit && *q == '.');
}

int cli_bytes(struct cli *c, const char *opt, const char *arg, double *out)
{
    /* a size carries its unit, as a duration does: a bare 1 is a byte to the parser and a GiB to
     * whoever wrote it (a review: "reserve": 1.5 reserved 2 bytes); only a bare 0 needs none */
    double v;
    /* a negative number is said as that, with or without a unit (a review: "-1" was told it lacked one) */
    if (negative_number(arg))
        return cli_usage_error(c, "option '--%s': '%s' is negative: a byte size is 0 or more (e.g. 0, 512MiB)", opt,
                               CLI_CLIP(arg));
    if (!has_unit(arg) && !bare_zero(arg) && parse_double(arg, &v))
        return cli_usage_error(c, "option '--%s': '%s' has no unit: write it with one of B, KiB, MiB, GiB, TiB, KB, "
                                  "MB, GB, TB (e.g. 2GiB, 512MiB)", opt, CLI_CLIP(arg));
    /* and bytes are whole: "0.3B" had read as 0, "1.5B" as 2 */
    const size_t n = strlen(arg);
    char num[64];
    if (n > 1 && n < sizeof num && (arg[n - 1] == 'B' || arg[n - 1] == 'b') && !(n > 2 && isalpha((unsigned char)arg[n - 2]))) {
        memcpy(num, arg, n - 1);
        num[n - 1] = '\0';
        if (parse_double(num, &v) && v != floor(v))
            return cli_usage_error(c, "option '--%s': '%s' is a fraction of a byte (a whole number of B, or KiB, MiB, "
                                      "GiB ...)", opt, CLI_CLIP(arg));
    }
    if (!parse_bytes(arg, out))
        return cli_usage_error(c, "option '--%s': '%s' is not a byte size of at most 4,194,304 TiB (e.g. 512MiB, "
                                  "1.5GiB, 2GB)", opt, CLI_CLIP(arg));
    /* a size above 0 that rounds to no byte ("1e-20GiB") is a typo, not a size */
    if (*out == 0) {
        bool nonzero = false; /* a digit 1-9 in the mantissa: a size above 0 (no strtod: locale-free) */
        for (const char *p = arg; *p && (isdigit((unsigned char)*p) || *p == '.'); p++)
            nonzero |= *p >= '1' && *p <= '9';
        if (nonzero)
            return cli_usage_error(c, "option '--%s': '%s' is less than a byte", opt, CLI_CLIP(arg));
    }
    return 0;
}

int cli_dtype(struct cli *c, const char *opt, const char *arg, enum llmroof_dtype *out)
{
    if (!dtype_parse(arg, out))
        return cli_usage_error(c, "option '--%s': unknown dtype '%s' (expected fp32, tf32, fp16, bf16, fp8, int8, int4, fp4)",
                               opt, CLI_CLIP(arg));
    return 0;
}

/* A duration must carry its unit: a bare 3000 is 3000 s to one reader and 3000 ms to another
 * (issue 14). Only a bare 0 needs none. */
static bool has_unit(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && ((s[n - 1] >= 'a' && s[n - 1] <= 'z') || (s[n - 1] >= 'A' && s[n - 1] <= 'Z') ||
                     (unsigned char)s[n - 1] >= 0x80);
}

static bool bare_zero(const char *s)
{
    double v;
    return !has_unit(s) && parse_double(s, &v) && v == 0;
}

int cli_duration(struct cli *c, const char *opt, const char *arg, double max_s, bool positive, double *out_s)
{
    double v;
    if (negative_number(arg)) /* as cli_bytes: the sign is wrong */
        return cli_usage_error(c, "option '--%s': '%s' is negative: a duration is %s (e.g. %s)", opt, CLI_CLIP(arg),
                               positive ? "above 0" : "0 or more",
                               max_s >= 3 ? "3s, 500ms" : max_s >= 0.5 ? "500ms, 200us" : "200us, 50us");
    /* a bare 0 where the duration must be positive is said as that ("0s" was offered, and refused) */
    if (positive && bare_zero(arg))
        return cli_usage_error(c, "option '--%s': '%s' must be a duration above 0 (e.g. %s)", opt, CLI_CLIP(arg),
                               max_s >= 3 ? "3s, 500ms" : max_s >= 0.5 ? "500ms, 200us" : "200us, 50us");
    if (!has_unit(arg) && !(bare_zero(arg) && !positive) && parse_double(arg, &v))
        return cli_usage_error(c, "option '--%s': '%s' has no unit: write it with one of ns, us, ms, s, min "
                                  "(e.g. %ss or %sms)", opt, CLI_CLIP(arg), arg, arg);
    if (!(parse_duration(arg, &v) || (bare_zero(arg) && (v = 0, true))) || (positive && !(v > 0)) || v > max_s)
        /* (examples within the range: '3s' had been offered for --overhead, which stops at 1 s) */
        return cli_usage_error(c, "option '--%s': '%s' is not a duration %s %g s (e.g. %s)", opt, CLI_CLIP(arg),
                               positive ? "above 0 and at most" : "from 0 to", max_s,
                               max_s >= 3 ? "3s, 500ms" : max_s >= 0.5 ? "500ms, 200us" : "200us, 50us");
    *out_s = v;
    return 0;
}

/* --kv-link: nvlink (each GPU's own NVLink from the catalog), node (each GPU's own in-node link
 * whatever it is: NVLink, xGMI or PCIe, so that one plan compares NVLink and AMD GPUs each over its
 * own; a review found nvlink refused for an MI300X and no way to name xGMI), ib (400 Gb/s NDR, 50
 * GB/s per GPU), pcie (PCIe 4.0 x16, 32 GB/s per direction), net (the GPU's own network, the
 * catalog's) or a bandwidth in GB/s; absent, SIM_KV_AUTO (sim.h). */
#define KV_LINK_MIN_GBPS 0.1 /* 0.1 GB/s = 800 Mb/s, below gigabit Ethernet (0.125 GB/s): the slowest link served */
int cli_kv_link(struct cli *c, const char *arg, const struct llmroof_gpu *const *gpus, int ngpus, bool from_list,
                enum sim_kv_link_kind *kind, double *rate_Bps)
{
    double v;
    *rate_Bps = 0;
    if (strcasecmp(arg, "nvlink") == 0) { /* as people write it: NVLink, IB, PCIe (a review) */
        for (int i = 0; i < ngpus; i++)
            if (gpus[i]->link != LLMROOF_LINK_NVLINK)
                return cli_usage_error(c, "option '--kv-link': %s has no NVLink (its link is %s); use node (each GPU's own "
                                          "in-node link), ib, pcie or a GB/s figure%s",
                                       gpus[i]->id, link_name(gpus[i]->link),
                                       from_list ? ", node (each GPU's own link), or a --gpus list of NVLink GPUs (the default list has PCIe cards)"
                                       : ngpus > 1 ? ", or leave it out of the GPUs planned" : "");
        *kind = SIM_KV_NODE;
    } else if (strcasecmp(arg, "node") == 0) {
        *kind = SIM_KV_NODE; /* each GPU's own link, as nvlink's */
    } else if (strcasecmp(arg, "ib") == 0) {
        *kind = SIM_KV_IB;
    } else if (strcasecmp(arg, "net") == 0) {
        *kind = SIM_KV_NET;
    } else if (strcasecmp(arg, "pcie") == 0) {
        *kind = SIM_KV_PCIE;
    } else if (parse_double(arg, &v) && v >= KV_LINK_MIN_GBPS && v <= 100000) {
        *kind = SIM_KV_RATE;
        *rate_Bps = v * 1e9;
    } else if (parse_double(arg, &v) && v < KV_LINK_MIN_GBPS) {
        /* a near-zero link makes every hand-over take years of simulated time (1e-9 GB/s:
         * 4.8e9 s): a typo, not a network */
        return cli_usage_error(c, "option '--kv-link': %s GB/s is below the floor of %g GB/s (1 Gb/s Ethernet carries "
                                  "0.125 GB/s); give a bandwidth in [%g, 100000] GB/s, or nvlink, node, net, ib or pcie",
                               CLI_CLIP(arg), KV_LINK_MIN_GBPS, KV_LINK_MIN_GBPS);
    } else if (parse_double(arg, &v) && v > 100000) {
        return cli_usage_error(c, "option '--kv-link': %s GB/s is above the ceiling of 100000 GB/s; give a bandwidth "
                                  "in [%g, 100000] GB/s, or nvlink, node, net, ib or pcie", CLI_CLIP(arg), KV_LINK_MIN_GBPS);
    } else {
        return cli_usage_error(c, "option '--kv-link': '%s' is not nvlink, node, net, ib, pcie or a bandwidth in GB/s",
                               CLI_CLIP(arg));
    }
    return 0;
}

/* cli_think's checks of the two ends lo and hi of arg. */
static int think_range(struct cli *c, const char *arg, const char *lo, const char *hi, double *lo_s, double *hi_s)
{
    if ((!has_unit(lo) && !bare_zero(lo)) || (!has_unit(hi) && !bare_zero(hi)))
        return cli_usage_error(c, "option '--think': '%s' needs a unit on each duration: ns, us, ms, s or min "
                                  "(e.g. 1s-3s, 500ms, 0)", CLI_CLIP(arg));
    if (!(parse_duration(lo, lo_s) || (bare_zero(lo) && (*lo_s = 0, true))) ||
        !(parse_duration(hi, hi_s) || (bare_zero(hi) && (*hi_s = 0, true))) || *hi_s > 86400)
        return cli_usage_error(c, "option '--think': '%s' is not a duration or range LO-HI of at most a day (e.g. "
                                  "1s-3s, 500ms, 0)", CLI_CLIP(arg));
    if (*hi_s < *lo_s)
        return cli_usage_error(c, "option '--think': '%s' has its low end above its high one: give LO-HI with LO <= HI "
                                  "(e.g. 1s-3s)", CLI_CLIP(arg));
    return 0;
}

int cli_think(struct cli *c, const char *arg, double *lo_s, double *hi_s)
{
    /* LO-HI splits at the first '-' that is no exponent's sign ("1e-3s-2s": 1 ms to 2 s) and no
     * leading sign (the negative "-1s" is refused as one duration); it had split "1e-5s" into
     * "1e" and "5s". A copy of arg's own length: a 64-byte buffer had cut longer values. */
    const char *dash = NULL;
    for (const char *p = arg[0] ? arg + 1 : arg; *p && !dash; p++)
        if (*p == '-' && p[-1] != 'e' && p[-1] != 'E')
            dash = p;
    char *lo = strdup(arg);
    if (!lo) {
        fprintf(c->errf, "llmroof: error: out of memory\n");
        return 1;
    }
    if (dash)
        lo[dash - arg] = '\0';
    const char *hi = dash ? lo + (dash - arg) + 1 : lo;
    int rc = think_range(c, arg, lo, hi, lo_s, hi_s);
    free(lo);
    return rc;
}

int cli_engine_runs_on_any(struct cli *c, const struct llmroof_engine *en, const struct llmroof_gpu *const *gpus,
                           int n)
{
    if (!en || !en->cuda_only)
        return 0;
    for (int i = 0; i < n; i++)
        if (catalog_engine_runs_on(en, gpus[i]))
            return 0;
    return cli_usage_error(c, "options '--engine %s' and '--gpus': the engine runs on NVIDIA GPUs only (its profile's "
                              "\"cuda_only\"), and every GPU given is an AMD one; vllm, sglang, tgi, llama.cpp-2024-06 "
                              "and mlc-llm run on ROCm",
                           en->id);
}

void cli_warn_drawn_past_context(struct cli *c, const struct workload *w, const char *wname,
                                 const struct llmroof_model *m, bool plan)
{
    if (!m || m->max_context <= 0)
        return;
    if (w->kind == WORKLOAD_FIXED || w->kind == WORKLOAD_RANDOM) {
        /* stated lengths: simulate warns where it parses them; plan here (fixed:200000:100 on
         * Llama-3.1-8B had planned an instance, and printed launch commands whose engine at its
         * default --max-model-len rejects every one of those requests, without a word) */
        if (plan && w->prompt + w->output > m->max_context)
            fprintf(c->errf, "llmroof: warning: workload '%s' holds requests of up to %ld tokens, past %s's context "
                             "of %ld: planned as stated, where an engine at the model's context (vLLM's default "
                             "--max-model-len) refuses the prompts past it and stops the outputs there\n",
                    wname, w->prompt + w->output, m->id, m->max_context);
        return;
    }
    struct llmroof_rng r;
    rng_seed(&r, 42);
    const long n = 10000;
    long past = 0;
    for (long i = 0; i < n; i++) {
        long p, o;
        workload_sample(w, &r, &p, &o);
        past += p + o > m->max_context;
    }
    /* at 1% or more, as simulate's own count (chat's tail puts 1 of 3,000 past Llama-2's 4,096) */
    if (100 * past >= n && plan)
        fprintf(c->errf, "llmroof: warning: workload '%s' draws about %.0f%% of its requests past %s's context of "
                         "%ld tokens: planned as drawn, where an engine at the model's context refuses the prompts "
                         "past it and stops the outputs there\n",
                wname, 100.0 * (double)past / (double)n, m->id, m->max_context);
    else if (100 * past >= n)
        fprintf(c->errf, "llmroof: warning: workload '%s' draws about %.0f%% of its requests past %s's context of "
                         "%ld tokens: simulated as drawn (--max-model-len %ld refuses longer prompts and stops "
                         "outputs there, as vLLM does by default)\n",
                wname, 100.0 * (double)past / (double)n, m->id, m->max_context, m->max_context);
}

int cli_workload(struct cli *c, const char *spec, const struct llmroof_model *m, struct workload *out)
{
    struct llmroof_err err = { 0 };
    if (strncmp(spec, "csv:", 4) == 0) {
        /* "csv:" alone was read as the file "", and said only ": cannot read file" */
        if (!spec[4])
            return cli_usage_error(c, "option '--workload': 'csv:' names no file (expected csv:FILE, a CSV of "
                                      "prompt_len,output_len rows)");
        char *text;
        size_t len;
        if (cli_read_input(c, "option '--workload'", spec + 4, (size_t)1 << 30, &text, &len, &err)) {
            /* name the option as well as the file: "--workload csv:x" is where the path came from */
            char why[sizeof err.msg];
            memcpy(why, err.msg, sizeof why);
            llmroof_err_set(&err, err.code, "option '--workload': %s", why);
            return cli_fail(c, &err);
        }
        int rc = workload_parse_pairs(text, len, cli_input_name(spec + 4), out, &err);
        free(text);
        return rc ? cli_fail(c, &err) : 0;
    }
    if (workload_parse(spec, out, &err))
        return cli_usage_error(c, "option '--workload': %s", err.msg);
    /* sharegpt's means and caps follow the model's tokenizer and context */
    if (m && workload_for_model(out, m->vocab, m->max_context, &err)) {
        workload_free(out);
        return err.code == LLMROOF_EINPUT ? cli_usage_error(c, "option '--workload': %s", err.msg) : cli_fail(c, &err);
    }
    return 0;
}

void cli_setup_defaults(struct cli_setup_opts *s)
{
    memset(s, 0, sizeof *s);
    s->tp = 1;
    s->batch = 1;
    s->prompt = 512;
    s->output = 1536;
    s->weight = s->kv = s->act = LLMROOF_FP16;
    s->mem = memory_default_opts();
    s->context = 2048;
}

/* Bounds keep every product finite and meaningful: 1e9 tokens of context, a million
 * sequences; anything larger is a typo, not a deployment. Efficiencies and mem-util start
 * at 1% (as the catalog's ranges do): a 1e-300 efficiency would turn times into inf. */
int cli_setup_opt(struct cli *c, struct cli_setup_opts *s, int id, const char *arg)
{
    switch (id) {
    case OPT_MODEL: s->model = arg; return 0;
    case OPT_GPU: s->gpu = arg; return 0;
    case OPT_TP: return cli_long(c, "tp", arg, 1, 1024, &s->tp);
    case OPT_BATCH: s->have_batch = true; return cli_long(c, "batch", arg, 1, 1000000, &s->batch);
    case OPT_PROMPT: return cli_long(c, "prompt", arg, 1, 1000000000, &s->prompt);
    case OPT_OUTPUT: return cli_long(c, "output", arg, 1, 1000000000, &s->output);
    case OPT_CONTEXT: s->have_context = true; return cli_long(c, "context", arg, 1, 1000000000, &s->context);
    case OPT_WDT: s->have_weight = true; return cli_dtype(c, "weight-dtype", arg, &s->weight);
    case OPT_KVDT: s->have_kv = true; return cli_dtype(c, "kv-dtype", arg, &s->kv);
    case OPT_ACTDT: s->have_act = true; return cli_dtype(c, "act-dtype", arg, &s->act);
    case OPT_WBITS: return cli_double(c, "weight-bits", arg, 1, 64, false, &s->weight_bits);
    case OPT_STATEDT: {
        int rc = cli_dtype(c, "state-dtype", arg, &s->state);
        if (rc)
            return rc;
        /* a stored state: fp32 (vLLM --mamba-cache-dtype float32), 16-bit, or fp8 */
        if (!dtype_is_state(s->state))
            return cli_usage_error(c, "option '--state-dtype': '%s' is not a state storage dtype (expected fp32, fp16, "
                                   "bf16 or fp8)", CLI_CLIP(arg));
        s->have_state = true;
        return 0;
    }
    case OPT_CE: s->eff.has_compute = true; return cli_double(c, "compute-eff", arg, 0.01, 1, false, &s->eff.compute);
    case OPT_ME: s->eff.has_memory = true; return cli_double(c, "memory-eff", arg, 0.01, 1, false, &s->eff.memory);
    case OPT_CME: s->eff.has_comm = true; return cli_double(c, "comm-eff", arg, 0.01, 1, false, &s->eff.comm);
    case OPT_OVH:
        s->eff.has_overhead = true;
        return cli_duration(c, "overhead", arg, 1, false, &s->eff.overhead_s);
    case OPT_HOSTCPU: /* docs/model.md "Host CPU": the catalog's host field's range */
        return cli_double(c, "host-cpu-speed", arg, 0.25, 4, false, &s->eff.host_cpu_speed);
    case OPT_ENGINE: s->engine_name = arg; return 0; /* resolved once the catalog is loaded */
    case OPT_ENGINERAY: s->eff.engine_use_ray = true; return 0;
    case OPT_MEMUTIL: s->have_mem_util = true; return cli_double(c, "mem-util", arg, 0.01, 1, false, &s->mem.mem_util);
    case OPT_RESERVE: s->have_reserve = true; return cli_bytes(c, "reserve", arg, &s->mem.reserve_bytes);
    case OPT_WORKSPACE: s->mem.workspace_set = true; return cli_bytes(c, "workspace", arg, &s->mem.workspace_bytes);
    case OPT_BLOCK: return cli_long(c, "block-size", arg, 1, 65536, &s->mem.block_size);
    case OPT_PP: {
        long v = 1;
        int rc = cli_long(c, "pp", arg, 1, 1024, &v);
        s->layout.pp = (int)v;
        return rc;
    }
    case OPT_EP: {
        long v = 1;
        int rc = cli_long(c, "ep", arg, 1, 4096, &v);
        s->layout.ep = (int)v;
        return rc;
    }
    case OPT_DPATTN: s->layout.dp_attn = true; return 0;
    case OPT_MOETP: {
        long v = 1;
        int rc = cli_long(c, "moe-tp", arg, 1, 4096, &v);
        s->layout.moe_tp = (int)v;
        return rc;
    }
    case OPT_TBO: s->layout.two_batch_overlap = true; return 0;
    case OPT_EPIMB: {
        /* the upper bound is the layout's, min(--ep, experts / top-k), checked once the layout is
         * read: a value below 1 had been told "[1, 64]", a range no layout has (a review) */
        double v;
        if (!parse_double(arg, &v) || !(v >= 1)) /* NaN fails too */
            return cli_usage_error(c, "option '--ep-imbalance': '%s' is %s: it is the busiest expert rank's load over "
                                      "the mean, 1 to min(--ep, experts / top-k)", CLI_CLIP(arg),
                                   parse_double(arg, &v) && v < 1 ? "below 1" : "not a number");
        s->layout.ep_imbalance = v;
        return 0;
    }
    }
    return 1;
}

int cli_layout_check(struct cli *c, const struct cli_setup_opts *s)
{
    /* the imbalance skews the expert ranks' loads; under TP alone every GPU holds a slice of
     * every expert and sees every routed token, so there is no busiest rank to weight
     * (docs/model.md "Layouts"). ops_shard_layout refuses it too, but plan and sweep turn its
     * error into a note on each row: an option that applies to no row is a usage error. */
    if (s->layout.ep_imbalance > 0 && !(s->layout.ep > 1))
        return cli_usage_error(c, "option '--ep-imbalance' needs --ep greater than 1: it is the busiest expert-parallel "
                               "rank's load, and without EP every GPU holds a slice of every expert");
    /* the busiest of ep ranks carries at most every routed token: ep times the mean */
    if (s->layout.ep_imbalance > (double)s->layout.ep)
        return cli_usage_error(c, "option '--ep-imbalance': %.9g is above --ep %d (the busiest rank's load over the mean "
                               "is at most the number of expert-parallel ranks, when it takes every routed token)",
                               s->layout.ep_imbalance, s->layout.ep);
    /* --dp-attention replicates attention over the stage's GPUs / TP: at -t equal to --ep that is
     * one replica, plain TP attention. SGLang's "--tp 8 --dp 8 --enable-dp-attention" counts its
     * TP over the whole group and means eight replicas of TP 1, which a literal translation to
     * -t 8 --ep 8 --dp-attention does not (a reviewer's note: no word said so) */
    const int n = s->layout.dp_attn && s->tp > 0 ? ops_layout_stage_gpus(&s->layout, (int)s->tp) : 0;
    if (n > 1 && ops_layout_attn_dp(&s->layout, (int)s->tp) == 1) { /* one GPU is one replica whatever -t says */
        fprintf(c->errf, "llmroof: note: option '--dp-attention': %d GPUs at TP %ld make one attention replica, "
                         "i.e. tensor-parallel attention; for %d replicas of TP 1 (SGLang's --tp %d --dp %d "
                         "--enable-dp-attention) give -t 1\n",
                n, s->tp, n, n, n);
    }
    return 0;
}

void cli_note_static_mem(struct cli *c, const struct cli_setup_opts *s)
{
    if (s->mem.util_static && (s->have_reserve || s->mem.workspace_set))
        fprintf(c->errf, "llmroof: note: engine %s's fraction (mem_fraction_static) holds the weights and the KV cache "
                         "only; activations, CUDA graphs and buffers live outside it, so --reserve and --workspace "
                         "change nothing (--mem-util sets the fraction)\n",
                s->eff.engine ? s->eff.engine->id : "?");
}

void cli_engine_mem(struct cli_setup_opts *s, const struct llmroof_setup *setup, bool keep_mbt, bool keep_seqs)
{
    sim_engine_mem_opts(s->eff.engine, setup, s->have_mem_util, s->have_reserve, keep_mbt, keep_seqs, &s->mem);
}

int cli_engine_batch_check(struct cli *c, const struct llmroof_engine *en, const char *option, long seqs)
{
    if (!en || !(en->max_batch > 0) || seqs <= en->max_batch)
        return 0;
    return cli_usage_error(c, "option '--%s': %ld is above the %ld sequence%s engine '%s' runs at once (its profile's "
                              "\"max_batch\")", option, seqs, en->max_batch, en->max_batch == 1 ? "" : "s", en->id);
}

static bool engine_has_dp_attention(const struct llmroof_engine *e)
{
    return e->dp_attention;
}

static bool engine_has_expert_parallel(const struct llmroof_engine *e)
{
    return e->expert_parallel;
}

int cli_setup_resolve(struct cli *c, struct cli_setup_opts *s)
{
    int lrc = cli_layout_check(c, s);
    if (lrc)
        return lrc;
    if (s->have_weight && s->weight_bits > 0) {
        /* the effective bits of a stated format hold its values and their scales: at least the
         * dtype's width (q4_0 is int4 at 4.5), short of twice it (which is the next format) */
        /* the element's width: fp4's dtype size holds NVFP4's scales (4.5 bits), MXFP4 is 4.25 */
        const double bits = floor(dtype_bytes(s->weight) * 8.0);
        if (s->weight_bits < bits || s->weight_bits >= 2.0 * bits)
            return cli_usage_error(c, "options '--weight-dtype %s' and '--weight-bits %g' disagree: %s %g-bit format "
                                      "takes %g to under %g bits a weight with its scales (e.g. int4 with 4.5 for "
                                      "q4_0); give the dtype that holds them, or --weight-bits alone",
                                   dtype_name(s->weight), s->weight_bits, bits == 8 ? "an" : "a", bits, bits, 2.0 * bits);
    }
    if (!s->engine_name && s->eff.engine_use_ray)
        return cli_usage_error(c, "option '--engine-use-ray' needs --engine: the Ray call's cost is the engine "
                               "profile's tp_step_overhead_s");
    if (!s->engine_name) {
        /* the host speed scales only an engine profile's CPU costs (docs/model.md "Host CPU") */
        if (s->eff.host_cpu_speed > 0)
            fprintf(c->errf, "llmroof: warning: option '--host-cpu-speed' has no effect without --engine: no engine "
                             "CPU work is costed\n");
        return 0;
    }
    int rc = cli_catalog(c);
    if (rc)
        return rc;
    if (!(s->eff.engine = cli_engine(c, s->engine_name)))
        return 2;
    if ((s->layout.dp_attn && !s->eff.engine->dp_attention) || (s->layout.ep > 1 && !s->eff.engine->expert_parallel)) {
        /* name the engines that do: the catalog's, a user's file included (the id copied first:
         * listing them may reload the catalog the engine lives in) */
        const bool dp = s->layout.dp_attn && !s->eff.engine->dp_attention;
        char id[LLMROOF_ID_MAX], ok[512];
        snprintf(id, sizeof id, "%s", s->eff.engine->id);
        s->eff.engine = NULL;
        cli_engine_ids_with(c, dp ? engine_has_dp_attention : engine_has_expert_parallel, ok, sizeof ok);
        if (dp)
            return cli_usage_error(c, "option '--dp-attention': engine '%s' runs no data-parallel attention (its "
                                      "profile's \"dp_attention\"); %s%s%sor leave the option out",
                                   id, ok[0] ? "pick one that does (" : "", ok, ok[0] ? ") " : "");
        return cli_usage_error(c, "option '--ep': engine '%s' runs no expert parallelism (its profile's "
                                  "\"expert_parallel\"): its experts split by width over the TP group; %s%s%sor "
                                  "leave the option out",
                               id, ok[0] ? "pick one that does (" : "", ok, ok[0] ? ") " : "");
    }
    /* what the runtime cannot run at all (calm: one GPU, one sequence) is refused, not costed as a
     * layout or a batch it never forms (a review: calm at batch 8, TP 2, printed a throughput) */
    const struct llmroof_engine *en = s->eff.engine;
    const struct llmroof_layout lay = cli_layout(s);
    const long gpus = ops_layout_gpus(&lay, (int)s->tp);
    if (en->max_gpus > 0 && gpus > en->max_gpus)
        return cli_usage_error(c, "engine '%s' runs an instance on at most %ld GPU%s (its profile's \"max_gpus\"); "
                                  "this layout takes %ld: lower --tp%s",
                               en->id, en->max_gpus, en->max_gpus == 1 ? "" : "s", gpus,
                               lay.pp > 1 || lay.ep > 1 ? ", --pp or --ep" : "");
    if (!s->have_batch && en->max_batch > 0 && s->batch > en->max_batch) /* report's default 16 */
        return cli_usage_error(c, "option '--batch': its default of %ld is above the %ld sequence%s engine '%s' runs at "
                                  "once (its profile's \"max_batch\"): give -b %ld",
                               s->batch, en->max_batch, en->max_batch == 1 ? "" : "s", en->id, en->max_batch);
    if ((rc = cli_engine_batch_check(c, en, "batch", s->batch)))
        return rc;
    if (s->eff.engine_use_ray && !(s->eff.engine->tp_step_overhead_s > 0))
        fprintf(c->errf, "llmroof: warning: option '--engine-use-ray' has no effect with engine '%s': its profile "
                         "states no per-step remote call (tp_step_overhead_s 0)\n", s->eff.engine->id);
    else if (s->eff.engine_use_ray && s->eff.engine->ray_workers)
        fprintf(c->errf, "llmroof: warning: option '--engine-use-ray' has no effect with engine '%s': its profile "
                         "pays the Ray call every step already (ray_workers)\n", s->eff.engine->id);
    return 0;
}

static struct llmroof_dtypes model_dtypes(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *g,
                                          const struct cli_setup_opts *s, bool notes)
{
    struct llmroof_dtypes d = cli_dtypes(s);
    if (s->have_state && m && m->linear_kind == LLMROOF_LINEAR_NONE) {
        fprintf(c->errf, "llmroof: warning: option '--state-dtype' has no effect: model '%s' has no recurrent "
                         "(linear-attention or state-space) layers, so no state to store\n", m->id);
        d.state_set = false;
    }
    const struct llmroof_dtypes own = ckpt_dtypes(m, s->eff.engine, d, s->have_weight);
    /* a compute dtype narrower than the weights as stored: no engine runs 16-bit weights through
     * 8- or 4-bit GEMMs (an fp8 deployment of a 16-bit checkpoint quantizes the weights as it loads
     * them, vLLM --quantization fp8: --weight-dtype fp8). Taken as asked, a what-if, but said (a
     * review: W16A4 on a B200 passed without a word) */
    enum llmroof_dtype ck; /* a checkpoint that stores some GEMM weights narrower (NVFP4's MLPs beside
                              bf16 attention, gpt-oss's MXFP4 experts) or all at that width runs them so */
    const bool ck_narrow = m && !s->have_weight && m->ckpt_format[0] &&
                           (m->ckpt_per_op || m->ckpt_expert_bits > 0 ||
                            (ckpt_weight_dtype(m, &ck) && dtype_bytes(ck) <= dtype_bytes(own.act)));
    if (notes && s->have_act && !ck_narrow && !(own.weight_bits > 0) && dtype_bytes(own.act) < dtype_bytes(own.weight))
        fprintf(c->errf, "llmroof: note: option '--act-dtype': %s GEMMs over %s weights is a what-if no engine runs: "
                         "the weights are read at %s and multiplied at the %s rate (an %s deployment stores them so: "
                         "--weight-dtype %s)\n",
                dtype_name(own.act), dtype_name(own.weight), dtype_name(own.weight), dtype_name(own.act),
                dtype_name(own.act), dtype_name(own.act));
    if (g) {
        const struct llmroof_dtypes on = ckpt_gpu_dtypes(m, own, s->have_weight, s->have_act, g);
        if (notes)
            cli_note_fp8_compute(c, m, &g, 1, s, own);
        return on;
    }
    return own;
}

struct llmroof_dtypes cli_model_dtypes(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *g,
                                       const struct cli_setup_opts *s)
{
    return model_dtypes(c, m, g, s, true);
}

struct llmroof_dtypes cli_model_dtypes_quiet(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *g,
                                             const struct cli_setup_opts *s)
{
    return model_dtypes(c, m, g, s, false);
}

void cli_note_fp8_compute(struct cli *c, const struct llmroof_model *m, const struct llmroof_gpu *const *gpus, int n,
                          const struct cli_setup_opts *s, struct llmroof_dtypes dt)
{
    /* say which GPUs the default compute dtype followed the weights on, and which keep them
     * weight-only (a reviewer: plan and report said nothing, an A100 run nothing either) */
    const bool asked = s->have_weight && !s->have_act && dt.weight == LLMROOF_FP8 && !(dt.weight_bits > 0);
    enum llmroof_dtype ck;
    if (!asked || (m && ckpt_weight_dtype(m, &ck) && ck == LLMROOF_FP8))
        return; /* not the default's case: a stated compute dtype, or the checkpoint's own rule */
    char w8a8[256] = "", wonly[256] = "";
    for (int i = 0; i < n; i++) {
        const bool fp8 = ckpt_gpu_dtypes(m, dt, s->have_weight, s->have_act, gpus[i]).act != dt.act;
        char *buf = fp8 ? w8a8 : wonly;
        const size_t used = strlen(buf);
        snprintf(buf + used, 256 - used, "%s%s", used ? ", " : "", gpus[i]->id);
    }
    if (w8a8[0])
        fprintf(c->errf, "llmroof: note: fp8 weights on %s compute as W8A8 fp8 GEMMs, as vLLM, SGLang and TensorRT-LLM "
                         "run them on GPUs with fp8 tensor cores (attention stays 16-bit with a 16-bit KV cache); "
                         "--act-dtype %s for weight-only\n",
                w8a8, dtype_name(dt.act));
    if (wonly[0])
        fprintf(c->errf, "llmroof: note: fp8 weights on %s stay weight-only (W8A16, vLLM's FP8 Marlin kernels): no fp8 "
                         "tensor cores\n",
                wonly);
}

void cli_note_arch(struct cli *c, const struct llmroof_gpu *g, const struct llmroof_engine *en)
{
    /* an engine rule keyed by the GPU's architecture (docs/catalog.md "arch") cannot apply to a
     * GPU entry that states none, e.g. one written before the field existed: say so */
    if (en && g && !g->arch[0] && (en->n_varlen_fa2_archs > 0 || en->n_fa2_archs > 0))
        fprintf(c->errf, "llmroof: note: GPU '%s' states no arch, so the FlashAttention-2 rules of engine '%s' "
                         "(varlen_fa2_archs, fa2_archs) are not applied (docs/catalog.md \"arch\")\n",
                g->id, en->id);
}

struct llmroof_dtypes cli_dtypes(const struct cli_setup_opts *s)
{
    struct llmroof_dtypes d = { s->weight, s->kv, s->act, s->weight_bits, s->have_state, s->state, false, LLMROOF_ACT_QUANT_SEPARATE, false };
    return d;
}

struct llmroof_layout cli_layout(const struct cli_setup_opts *s)
{
    struct llmroof_layout l = s->layout;
    l.tp = (int)s->tp; /* the engine's rules on it: estimate_layout of the command's setup */
    return l;
}

int cli_jobs(struct cli *c, const char *arg, int *out)
{
    long v = 0;
    const int rc = cli_long(c, "jobs", arg, 1, PAR_MAX_THREADS, &v);
    *out = (int)v;
    return rc;
}

int cli_threads(const struct cli *c, int given)
{
    if (given > 0)
        return given;
    return c->flags & CLI_REQUEST ? 1 : par_cpus();
}
