/* cmd_plan.c - `llmroof plan`: GPUs, TP and nodes to serve N users under TTFT/TPOT SLOs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "cli/cli_spec.h"
#include "model/ckpt.h"
#include "base/parse.h"
#include "serve/plan.h"
#include "render/render_json.h"
#include "render/render_plan.h"

enum { OPT_GPUS = 1, OPT_TPS, OPT_USERS, OPT_TTFT, OPT_TPOT, OPT_PCT, OPT_WORKLOAD, OPT_THINK, OPT_GPN, OPT_PRICE,
       OPT_FAST, OPT_MBT, OPT_MAXSEQS, OPT_NOCHUNK, OPT_SEED, OPT_RATE, OPT_KVLINK, OPT_JOBS, OPT_EXHAUSTIVE };
enum { OPT_QUIET = 200 }; /* apart: other options append to the list above */

struct ctx {
    struct cli *c;
    struct cli_setup_opts s;
    const char *gpus, *tps, *price, *workload, *kvlink;
    struct plan_input in;
    bool bad;
    bool have_seed, have_users, have_think;
    bool quiet; /* --quiet: no progress line */
    struct cli_spec_opts sp; /* --spec and its family (cli_spec.h), as simulate's */
    /* the options simulate takes as plan took them, as shell words, for the rerun hints
     * (plan_input.rerun_args): the hint had said "with the plan's model, GPU and options", and a
     * rerun without --seed missed the SLO the plan's run met (a review) */
    char rerun[1536];
    size_t rerun_n;
    bool rerun_cut; /* past the buffer: the hints fall back to naming the options */
};

/* plan's options that are not simulate's, or that the hint states from the row itself (the
 * layout: its instances or pools, TP and parallelism) */
static bool plan_only(int id)
{
    switch (id) {
    case OPT_GPUS: case OPT_TPS: case OPT_USERS: case OPT_RATE: case OPT_TTFT: case OPT_TPOT: case OPT_PCT:
    case OPT_GPN: case OPT_PRICE: case OPT_FAST: case OPT_EXHAUSTIVE: case OPT_JOBS: case OPT_QUIET:
    case OPT_PP: case OPT_EP: case OPT_DPATTN: case OPT_MOETP:
    case OPT_KVLINK: /* the disaggregated rows' hint adds it (plan_rate_sim_command): simulate refuses
                      * it without pools, and an aggregated best row's rerun had failed so */
        return true;
    }
    return false;
}

/* Appends one shell word to the rerun buffer, single-quoted where the shell would read it
 * otherwise. */
static void rerun_word(struct ctx *x, const char *w)
{
    char q[600];
    size_t k = 0;
    bool plain = *w != '\0';
    for (const char *p = w; *p; p++)
        plain &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                 strchr("-_.,:/+=@%", *p) != NULL;
    if (plain) {
        k = (size_t)snprintf(q, sizeof q, "%s", w);
    } else {
        q[k++] = '\'';
        for (const char *p = w; *p && k + 5 < sizeof q; p++) {
            if (*p == '\'') {
                memcpy(q + k, "'\\''", 4);
                k += 4;
            } else {
                q[k++] = *p;
            }
        }
        q[k++] = '\'';
        q[k] = '\0';
    }
    if (k >= sizeof q - 6 || x->rerun_n + k + 2 >= sizeof x->rerun) {
        x->rerun_cut = true;
        return;
    }
    x->rerun_n += (size_t)snprintf(x->rerun + x->rerun_n, sizeof x->rerun - x->rerun_n, "%s%s", x->rerun_n ? " " : "", q);
}

static const struct cli_opt plan_opts[] = {
    CLI_OPT_MODEL,
    { OPT_GPUS, "gpus", 0, "all|LIST", "GPU ids or aliases, or all of the catalog (default a30,a40,v100,a100)", false },
    { OPT_TPS, "tp", 't', "LIST", "TP values to try (default 1,2,4,8)", false },
    { OPT_USERS, "users", 'u', "N", "concurrent users to serve (default 10000); a user is a closed-loop client", false },
    { OPT_RATE, "rate", 'r', "QPS", "plan for an open-loop request rate instead; compares aggregated and disaggregated", false },
    { OPT_TTFT, "ttft-slo", 0, "T", "time-to-first-token SLO (default 3s)", false },
    { OPT_TPOT, "tpot-slo", 0, "T", "time-per-output-token SLO (default 100ms)", false },
    { OPT_PCT, "slo-percentile", 0, "pNN", "percentile the SLOs apply to: p50, p90, p95, p99 (default p90)", false },
    { OPT_WORKLOAD, "workload", 'w', "SPEC", "fixed:P:O, random:P:O[:R], chat, docqa, code, openorca, sharegpt[:P:O], lognormal:PM:P90:OM:O90[:MAX] or csv:FILE (default chat)", false },
    { OPT_THINK, "think", 0, "LO-HI", "users' pause between requests (default 1s-3s)", false },
    { OPT_KVLINK, "kv-link", 0, "LINK", "disaggregated layouts' prefill-to-decode KV link: nvlink or node (each GPU's own in-node link: NVLink, xGMI, PCIe) where both pools fit one node, net (its network), ib, pcie, or GB/s as reached (default: node where they fit, else net)", false },
    { OPT_GPN, "gpus-per-node", 0, "N", "GPUs in one node, for every GPU (default: each GPU's catalog gpus_per_node)", false },
    { OPT_PRICE, "price", 0, "LIST", "GPU=USD per GPU-hour, comma-separated, e.g. a100=1.8,a40=0.9", false },
    { OPT_FAST, "fast", 0, NULL, "with --users: analytic steady state instead of simulation (means, for sweeps)", false },
    { OPT_EXHAUSTIVE, "exhaustive", 0, NULL, "search every GPU's layouts to that GPU's own answer, none pruned against the best found (slower; for comparing GPUs)", false },
    { OPT_JOBS, "jobs", 'j', "N", "threads for the analytic solves and a one-GPU plan's simulations, 1-64 (default: the processors this process may run on; API requests 1); the plan is the same at any N", false },
    { OPT_MBT, "max-batched-tokens", 0, "N", "token budget of one iteration (default: the engine's for each GPU, else 2048)", false },
    { OPT_MAXSEQS, "max-seqs", 0, "N", "running sequences at most (default: the engine's for each GPU, else 256)", false },
    { OPT_NOCHUNK, "no-chunked-prefill", 0, NULL, "engine prefills prompts whole", false },
    { OPT_SEED, "seed", 0, "N", "random seed of the simulations, 0 to 2^53 - 1 (default 42)", false },
    { OPT_QUIET, "quiet", 'q', NULL, "no progress line (shown only on a terminal, after a second)", false },
    CLI_OPT_SPEC, CLI_OPT_LAYOUT, CLI_OPT_DTYPES, CLI_OPT_EFFS, CLI_OPT_MEM,
};

static int on_opt(struct cli *c, void *vctx, int id, const char *arg)
{
    struct ctx *x = vctx;
    long v;
    if (!plan_only(id)) {
        for (size_t i = 0; i < sizeof plan_opts / sizeof plan_opts[0]; i++)
            if (plan_opts[i].id == id) {
                char flag[64];
                snprintf(flag, sizeof flag, "--%s", plan_opts[i].name);
                rerun_word(x, flag);
                if (plan_opts[i].arg)
                    rerun_word(x, arg);
                break;
            }
    }
    int rc = cli_spec_opt(c, &x->sp, id, arg);
    if (rc != 1)
        return rc;
    switch (id) {
    case OPT_GPUS: x->gpus = arg; return 0;
    case OPT_TPS: x->tps = arg; return 0;
    case OPT_PRICE: x->price = arg; return 0;
    case OPT_KVLINK: x->kvlink = arg; return 0;
    case OPT_WORKLOAD:
        x->workload = arg; /* csv:- reads standard input (cli_workload): claimed now */
        return strncmp(arg, "csv:", 4) ? 0 : cli_check_stdin(c, "option '--workload'", arg + 4);
    case OPT_USERS: x->have_users = true; return cli_long(c, "users", arg, 1, 100000000, &x->in.users);
    case OPT_RATE: return cli_double(c, "rate", arg, SIM_MIN_RATE_QPS, 100000, false, &x->in.rate_qps);
    case OPT_TTFT: return cli_duration(c, "ttft-slo", arg, 3600, true, &x->in.ttft_slo_s);
    case OPT_TPOT: return cli_duration(c, "tpot-slo", arg, 60, true, &x->in.tpot_slo_s);
    case OPT_PCT: {
        const char *p = (arg[0] == 'p' || arg[0] == 'P') ? arg + 1 : arg;
        int64_t pv;
        if (!parse_int64(p, 1, 99, &pv) || (pv != 50 && pv != 90 && pv != 95 && pv != 99))
            return cli_usage_error(c, "option '--slo-percentile': '%s' is not one of p50, p90, p95, p99", CLI_CLIP(arg));
        x->in.percentile = (int)pv;
        return 0;
    }
    case OPT_THINK: x->have_think = true; return cli_think(c, arg, &x->in.sim.think_min_s, &x->in.sim.think_max_s);
    case OPT_GPN:
        rc = cli_long(c, "gpus-per-node", arg, 1, 1024, &v);
        x->in.gpus_per_node = (int)v;
        x->in.node_set = true;
        return rc;
    case OPT_FAST: x->in.fast = true; return 0;
    case OPT_EXHAUSTIVE: x->in.exhaustive = true; return 0;
    case OPT_JOBS: return cli_jobs(c, arg, &x->in.threads);
    case OPT_QUIET: x->quiet = true; return 0;
    case OPT_MBT:
        x->in.keep_budget = true;
        return cli_long(c, "max-batched-tokens", arg, 1, 10000000, &x->in.sim.max_batched_tokens);
    case OPT_MAXSEQS:
        x->in.keep_seqs = true;
        return cli_long(c, "max-seqs", arg, 1, 1000000, &x->in.sim.max_seqs);
    case OPT_BLOCK: /* the user's KV pool wins over the profile's (sim_config_engine) */
        x->in.sim.user_block = true;
        break;
    case OPT_MEMUTIL:
        x->in.sim.user_mem_util = true;
        break;
    case OPT_RESERVE:
        x->in.sim.user_reserve = true;
        break;
    case OPT_NOCHUNK: /* vLLM's scheduler without chunking: whole prompts, prompt-only iterations */
        x->in.sim.chunked_prefill = false;
        x->in.sim.prefill_first = true;
        return 0;
    case OPT_SEED: {
        int64_t sd;
        /* at most 2^53: JSON output carries the seed as a number, exact up to there (a larger
         * seed printed as 9.00719925474099e+15 would not reproduce its run) */
        if (!parse_int64(arg, 0, CLI_SEED_MAX, &sd))
            return cli_usage_error(c, "option '--seed': '%s' is not a whole number from 0 to 2^53 - 1 (%lld)", CLI_CLIP(arg),
                                   (long long)CLI_SEED_MAX);
        x->in.sim.seed = (uint64_t)sd;
        x->have_seed = true;
        return 0;
    }
    }
    return cli_setup_opt(c, &x->s, id, arg);
}

static bool add_price(const char *item, void *vctx)
{
    struct ctx *x = vctx;
    const char *eq = strchr(item, '=');
    double usd;
    char name[LLMROOF_ID_MAX];
    if (!eq || eq == item || (size_t)(eq - item) >= sizeof name || !parse_double(eq + 1, &usd) || usd < 0 || usd > 1e6) {
        cli_usage_error(x->c, "option '--price': '%s' is not GPU=USD_PER_GPU_HOUR (e.g. a100=1.8)", item);
        x->bad = true;
        return false;
    }
    memcpy(name, item, (size_t)(eq - item));
    name[eq - item] = '\0';
    const struct llmroof_gpu *g = cli_gpu(x->c, name);
    if (!g) {
        x->bad = true;
        return false;
    }
    for (int i = 0; i < x->in.ngpus; i++)
        if (x->in.gpus[i] == g) {
            if (x->in.has_price[i]) { /* a100=1,a100=2: which did the user mean? */
                cli_usage_error(x->c, "option '--price': GPU '%s' is priced more than once", name);
                x->bad = true;
                return false;
            }
            x->in.has_price[i] = true;
            x->in.price_per_gpu_hour[i] = usd;
            return true;
        }
    cli_usage_error(x->c, "option '--price': GPU '%s' is not among --gpus", name);
    x->bad = true;
    return false;
}

/* --spec against the model and every planned GPU's scheduler: the method resolved into the plan's
 * simulator configuration (cli_spec_resolve), one verification pass within each GPU's token budget
 * (the engine profile's, or --max-batched-tokens), and a static-batching engine's assisted
 * generation one request at a time, as simulate refuses them. Returns 0 or 2 after the message. */
static int plan_spec(struct cli *c, struct ctx *x)
{
    int rc = cli_spec_resolve(c, &x->sp, x->in.model, x->s.eff.engine);
    if (rc)
        return rc;
    /* every row would say so (plan_layout_check): the input's, not the hardware's failing */
    if (x->in.layout.pp > 1)
        return cli_usage_error(c, "options '--spec' and '--pp' conflict: vLLM and SGLang run no speculative decoding "
                                  "under pipeline parallelism; drop one");
    x->in.sim.spec = x->sp.spec;
    x->in.sim.spec_head = x->sp.head;
    for (int gi = 0; gi < x->in.ngpus; gi++) {
        const struct llmroof_gpu *g = x->in.gpus[gi];
        const struct sim_config sc = plan_sim_config(&x->in, g);
        char whose[sizeof x->s.eff.engine->id + sizeof g->id + 96];
        if (x->in.keep_budget)
            snprintf(whose, sizeof whose, "--max-batched-tokens");
        else if (x->s.eff.engine)
            snprintf(whose, sizeof whose, "the token budget of engine '%s' on %s (--max-batched-tokens sets it)",
                     x->s.eff.engine->id, g->id);
        else
            snprintf(whose, sizeof whose, "the default token budget (--max-batched-tokens sets it)");
        if ((rc = cli_spec_check_budget(c, &x->sp, sc.max_batched_tokens, whose)))
            return rc;
        if (sc.static_batching && sc.max_seqs > 1)
            return cli_usage_error(c, "option '--spec': engine '%s' (static batching, as HF generate()) runs "
                                      "speculative (assisted) generation one request at a time; its sequence limit "
                                      "on %s is %ld (give --max-seqs 1)",
                                   x->s.eff.engine ? x->s.eff.engine->id : "?", g->id, sc.max_seqs);
    }
    return 0;
}

static int plan_main(struct cli *c, int argc, char **argv, struct ctx *x, struct plan_result *r)
{
    x->c = c;
    cli_setup_defaults(&x->s);
    sim_default_config(&x->in.sim);
    cli_spec_defaults(&x->sp);
    x->s.mem = x->in.sim.mem;
    x->in.users = 10000;
    x->in.ttft_slo_s = 3.0;
    x->in.tpot_slo_s = 0.1;
    x->in.percentile = 90;
    x->in.gpus_per_node = 8;
    char *pos[1];
    int npos = 0;
    static const char *const tables[] = { "options", "observations", "launch", NULL };
    c->tables = tables;
    c->usage = "llmroof plan -m MODEL [--gpus all|LIST] [--users N | --rate QPS] [--ttft-slo T] [--tpot-slo T] "
               "[--slo-percentile pNN] [--tp LIST] [--gpus-per-node N] [--price LIST] [--fast] [--exhaustive] [options]";
    int rc = cli_parse(c, argc, argv, plan_opts, (int)(sizeof plan_opts / sizeof plan_opts[0]), on_opt, x, pos, 0, &npos,
                       "With --users: for every GPU and every TP that divides a node (or, beyond a node, takes\n"
                       "whole nodes: ceil(GPUs / node) per instance), the most users one instance\n"
                       "serves with TTFT and TPOT at the percentile within the SLOs (simulated, bracketing search),\n"
                       "then instances = ceil(users / users per instance), GPUs = instances x TP, nodes =\n"
                       "ceil(GPUs / GPUs per node), and cost. A\n"
                       "user is a closed-loop client: it sends a request, waits for the whole answer, pauses 1-3 s\n"
                       "(--think; the pause the background studies measured) and sends the next.\n"
                       "With --rate: for every GPU, the fewest instances (aggregated, per TP) and the smallest prefill\n"
                       "and decode pools (disaggregated, per decode TP) that meet the SLOs at that Poisson rate.\n"
                       "The answer is the feasible layout with the fewest GPUs (or the lowest cost); every other row\n"
                       "says why not. Exit 1 when nothing is feasible. Method: docs/planning.md.");
    if (rc)
        return rc;
    if (!x->s.model)
        return cli_usage_error(c, "option '--model' is required");
    /* the rerun hints' words: the catalog files (global options), then plan's options as parsed */
    if (!x->rerun_cut) {
        char words[sizeof x->rerun];
        memcpy(words, x->rerun, x->rerun_n + 1);
        x->rerun_n = 0;
        x->rerun[0] = '\0';
        for (int i = 0; i < c->n_gpus_files; i++) {
            rerun_word(x, "--gpus-file");
            rerun_word(x, c->gpus_files[i]);
        }
        for (int i = 0; i < c->n_models_files; i++) {
            rerun_word(x, "--models-file");
            rerun_word(x, c->models_files[i]);
        }
        if (x->rerun_n + strlen(words) + 2 < sizeof x->rerun)
            snprintf(x->rerun + x->rerun_n, sizeof x->rerun - x->rerun_n, "%s%s", x->rerun_n && words[0] ? " " : "", words);
        else
            x->rerun_cut = true;
        x->in.rerun_args = x->rerun_cut ? NULL : x->rerun;
    }
    if (x->in.fast && x->have_seed)
        return cli_usage_error(c, "options '--fast' and '--seed' conflict: the analytic plan draws no random numbers");
    if (x->in.rate_qps > 0 && (x->have_users || x->have_think))
        return cli_usage_error(c, "option '--rate' plans for an open loop: drop --users and --think");
    if (x->in.rate_qps > 0 && x->in.fast)
        return cli_usage_error(c, "option '--fast' is the closed-loop analytic model: drop it with --rate");
    if ((rc = cli_spec_check(c, &x->sp)))
        return rc;
    /* the analytic steady state (plan_fast.c) has no verification pass and no drafter: its answer
     * would be a plan without speculation under a header with it. Modelling it means every
     * scheduler it solves (mixed steps, prefill-first chains, TGI's gated prompts, data-parallel
     * replicas) taking E tokens a step from a verification pass and the drafter's passes, and its
     * error against the simulation measured as docs/planning.md measures --fast's own; until
     * then the simulated plan, which runs the drafter and draws each step's acceptance, is the
     * one that answers */
    if (x->in.fast && x->sp.method)
        return cli_usage_error(c, "options '--fast' and '--spec' conflict: the analytic model has no speculative "
                                  "decoding (no verification pass, no drafter); drop --fast to simulate the plan");
    x->in.threads = cli_threads(c, x->in.threads); /* --jobs, else the processors (a request: 1) */
    if ((rc = cli_catalog(c)) || (rc = cli_setup_resolve(c, &x->s)) ||
        (x->in.keep_seqs && (rc = cli_engine_batch_check(c, x->s.eff.engine, "max-seqs", x->in.sim.max_seqs))))
        return rc;
    if (!(x->in.model = cli_model(c, x->s.model)))
        return 2;
    if ((rc = cli_gpu_list(c, x->gpus ? x->gpus : "a30,a40,v100,a100", x->in.gpus, PLAN_MAX_GPUS, &x->in.ngpus)))
        return rc;
    if ((rc = cli_tp_list(c, x->tps ? x->tps : "1,2,4,8", x->in.tps, PLAN_MAX_TPS, &x->in.ntps)))
        return rc;
    /* an engine that runs an instance on few GPUs (calm: one) plans with the TPs it runs; the
     * others are said to be left out, and a list of none of them is refused */
    const struct llmroof_engine *en = x->s.eff.engine;
    if (en && en->max_gpus > 0) {
        int kept = 0;
        char out[128] = "";
        for (int i = 0; i < x->in.ntps; i++) {
            if (ops_layout_gpus(&x->in.layout, x->in.tps[i]) <= en->max_gpus) {
                x->in.tps[kept++] = x->in.tps[i];
                continue;
            }
            const size_t n = strlen(out);
            snprintf(out + n, sizeof out - n, "%s%d", n ? ", " : "", x->in.tps[i]);
        }
        if (!kept)
            return cli_usage_error(c, "option '--tp': engine '%s' runs an instance on at most %ld GPU%s (its profile's "
                                      "\"max_gpus\"); no TP in the list (%s) does", en->id, en->max_gpus,
                                   en->max_gpus == 1 ? "" : "s", out);
        if (out[0])
            fprintf(c->errf, "llmroof: note: TP %s left out: engine '%s' runs an instance on at most %ld GPU%s\n", out,
                    en->id, en->max_gpus, en->max_gpus == 1 ? "" : "s");
        x->in.ntps = kept;
    }
    /* nodes smaller than a GPU's NVLink domain: the count follows --gpus-per-node, the costing the
     * catalog's domain (docs/planning.md), so an instance over several such nodes is costed on
     * NVLink. Right for a rack's trays (GB200 NVL72: 4 GPUs a tray, 72 a domain), not for servers
     * that NVLink does not join (a review read "8 nodes of one NVLink domain" of 1-GPU H100 nodes) */
    for (int gi = 0; x->in.node_set && gi < x->in.ngpus; gi++) {
        const struct llmroof_gpu *g = x->in.gpus[gi];
        if (x->in.gpus_per_node < g->domain_gpus && g->domain_gpus <= g->gpus_per_node)
            fprintf(c->errf, "llmroof: note: option '--gpus-per-node': %d is below %s's NVLink domain of %d GPUs (its "
                             "catalog server); the count follows the option, the costing the catalog, so an instance "
                             "over several nodes of up to %d GPUs is costed as if NVLink joined them (a --gpus-file "
                             "entry with gpus_per_node %d prices separate servers on its network)\n",
                    x->in.gpus_per_node, g->id, g->domain_gpus, g->domain_gpus, x->in.gpus_per_node);
    }
    /* a CUDA-only engine and only AMD GPUs: nothing to plan, which is the input's, not the
     * hardware's failing (exit 1 had said "no configuration meets the SLOs") */
    if ((rc = cli_engine_runs_on_any(c, x->s.eff.engine, x->in.gpus, x->in.ngpus)))
        return rc;
    if (x->kvlink && !(x->in.rate_qps > 0))
        return cli_usage_error(c, "option '--kv-link' sets the disaggregated layouts' link, which only --rate plans compare");
    if (x->kvlink && (rc = cli_kv_link(c, x->kvlink, x->in.gpus, x->in.ngpus, x->gpus == NULL, &x->in.kv_link_kind,
                                    &x->in.kv_link_rate_Bps)))
        return rc;
    x->in.kv_link = x->kvlink;
    if (x->kvlink && x->s.eff.engine && !x->s.eff.engine->disaggregation)
        fprintf(c->errf, "llmroof: warning: option '--kv-link' has no effect: engine '%s' serves no disaggregated prefill "
                         "and decode pools, so the plan compares none\n", x->s.eff.engine->id);
    if (x->price && !parse_list(x->price, add_price, x))
        return x->bad ? 2 : cli_usage_error(c, "option '--price': expected GPU=USD pairs separated by commas");
    struct workload wl = { 0 };
    if ((rc = cli_workload(c, x->workload ? x->workload : "chat", x->in.model, &wl)))
        return rc;
    x->in.sim.workload = &wl;
    x->in.workload_name = x->workload ? x->workload : "chat";
    /* docqa on GPT-J: most requests past its 2,048 tokens, which the plan had served unsaid */
    cli_warn_drawn_past_context(c, &wl, x->workload ? x->workload : "chat", x->in.model, true);
    /* an engine that refuses a prompt above its budget without chunked prefill (TensorRT-LLM:
     * prompt_within_budget) would reject every request of a fixed workload longer than it: every
     * row would fail, which reads as "no hardware is enough"; it is the workload that cannot run */
    if (en && en->prompt_within_budget && en->whole_prefill && wl.kind == WORKLOAD_FIXED) {
        const long budget = x->in.keep_budget ? x->in.sim.max_batched_tokens : en->max_batched_tokens;
        if (budget > 0 && wl.prompt > budget) {
            workload_free(&wl);
            return cli_usage_error(c, "option '--workload': engine '%s' refuses a prompt above its %ld-token budget "
                                      "without chunked prefill (its profile's \"prompt_within_budget\"), so every "
                                      "%ld-token prompt would be rejected; a --max-batched-tokens of at least %ld "
                                      "takes them",
                                   en->id, budget, wl.prompt, wl.prompt);
        }
    }
    x->in.sim.mem = x->s.mem;
    if (x->in.sim.mem.block_size <= 1)
        x->in.sim.mem.block_size = 16;
    x->in.dt = cli_model_dtypes(c, x->in.model, NULL, &x->s);
    x->in.weight_given = x->s.have_weight; /* each GPU's compute dtype: plan_setup_for */
    x->in.act_given = x->s.have_act;
    cli_note_fp8_compute(c, x->in.model, x->in.gpus, x->in.ngpus, &x->s, x->in.dt);
    x->in.layout = cli_layout(&x->s);
    x->in.eff = x->s.eff;
    if (x->sp.method && (rc = plan_spec(c, x))) {
        workload_free(&wl);
        return rc;
    }
    struct llmroof_err lerr = { 0 };
    /* a layout flag the model cannot take fails every row alike: bad input, not an infeasible plan */
    if (ops_layout_check_model(x->in.model, &x->in.layout, &lerr)) {
        workload_free(&wl);
        return cli_fail(c, &lerr);
    }
    /* so does a --tp list of which no TP suits the model (its heads, as report checks them): every
     * row said "TP 3 does not divide ..." and the plan exited 1, "no configuration", which a
     * script reads as "no hardware is enough". A list with one usable TP plans with it, the
     * others' rows say why not. */
    int usable = 0;
    char why[sizeof lerr.msg] = "";
    for (int i = 0; i < x->in.ntps; i++) {
        struct llmroof_shard sh;
        struct llmroof_layout lay = x->in.layout;
        lay.tp = x->in.tps[i];
        struct llmroof_err terr = { 0 };
        if (ops_shard_layout(x->in.model, &lay, &sh, &terr))
            snprintf(why, sizeof why, "%s", terr.msg);
        else
            usable++;
    }
    if (!usable) {
        workload_free(&wl);
        fprintf(c->errf, "llmroof: error: option '--tp': no TP in the list suits the model%s: %s\n",
                (x->in.layout.pp > 1 || x->in.layout.ep > 1 || x->in.layout.dp_attn || x->in.layout.moe_tp > 1) ? " and layout" : "", why);
        return 2;
    }

    if (c->flags & CLI_PARSE_ONLY) {
        workload_free(&wl);
        return 0;
    }
    struct llmroof_err err = { 0 };
    x->in.sim.stop = c->stop;
    struct cli_progress pr;
    if (cli_progress_start(c, &pr, "row searches", x->quiet)) {
        x->in.progress = cli_progress_report;
        x->in.progress_ctx = &pr;
    }
    /* fp8 on an A100, bf16 on a V100: every row would give the GPU's reason and the plan exit 1,
     * read as "no hardware is enough"; it is the input (exit 2, nothing on stdout) */
    if (plan_check_gpus(&x->in, &err)) {
        workload_free(&wl);
        return cli_fail(c, &err);
    }
    rc = plan_run(&x->in, r, &err);
    if (rc) {
        workload_free(&wl);
        return cli_fail(c, &err);
    }
    rc = 0;
    if (c->format == TABLE_JSON) {
        char *j = render_json_plan(&x->in, r);
        if (j)
            sbuf_append(&c->out, j);
        else
            rc = 1;
        free(j);
    } else {
        render_plan(&x->in, r, c->format, &c->sel, &c->out);
    }
    workload_free(&wl);
    if (!rc && r->best < 0) {
        /* issue 14: a plan without a feasible option is a failure, not an answer */
        c->out_on_failure = true;
        fprintf(c->errf, "llmroof: error: no configuration meets p%d TTFT <= %g ms and TPOT <= %g ms %s; every row "
                         "says why\n",
                x->in.percentile, x->in.ttft_slo_s * 1e3, x->in.tpot_slo_s * 1e3,
                x->in.rate_qps > 0 ? "at this rate" : "for these users");
        return 1;
    }
    return rc;
}

int cmd_plan(struct cli *c, int argc, char **argv)
{
    struct ctx *x = calloc(1, sizeof *x);
    struct plan_result *r = calloc(1, sizeof *r); /* large: every option */
    int rc = (x && r) ? plan_main(c, argc, argv, x, r) : 1;
    free(x);
    free(r);
    return rc;
}
