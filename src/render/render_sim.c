/* render_sim.c - see llmroof/render_sim.h */
#include "render/render_sim.h"

#define PL(n) ((n) == 1 ? "" : "s") /* "1 request", "2 requests" */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/arch.h"
#include "model/ckpt.h"
#include "render/svg.h"

/* GPUs of one instance of setup s (EP or TP, times PP), and in desc its layout beyond TP as
 * estimate and memory name it (ops_layout_desc); the run has built the layout already. */
static int layout_gpus(const struct llmroof_setup *s, char *desc, size_t size)
{
    const struct llmroof_layout lay = estimate_layout(s);
    struct llmroof_shard sh;
    desc[0] = '\0';
    if (ops_shard_layout(s->model, &lay, &sh, NULL) != LLMROOF_OK)
        return s->tp;
    ops_layout_desc(&sh, desc, size);
    return sh.gpus;
}

/* The GPU-memory band of an engine's default (gpu_memory_tiers) as a reader sees it: "below 35
 * GiB", "from 160 GiB", "96-160 GiB" (the bands are whole GiB but for a 1 MiB edge). */
static void tier_band(const struct llmroof_mem_tier *t, char *buf, size_t n)
{
    if (t->from_MiB > 0 && t->below_MiB > 0)
        snprintf(buf, n, "%.0f-%.0f GiB", t->from_MiB / 1024, t->below_MiB / 1024);
    else if (t->below_MiB > 0)
        snprintf(buf, n, "below %.0f GiB", t->below_MiB / 1024);
    else
        snprintf(buf, n, "from %.0f GiB", t->from_MiB / 1024);
}

/* Why the prefix cache is on or off (sim.h pcache_source): a bare "off" reads the same for a flag,
 * an engine that never caches and a static batch, which the user acts on differently. */
static const char *pcache_reason(const struct sim_config *c, char *buf, size_t n)
{
    const char *en = c->pcache_engine ? c->pcache_engine->id : NULL;
    if (c->pcache_source == SIM_PCACHE_OPTION)
        return c->prefix_cache ? "on (--prefix-cache)" : "off (--no-prefix-cache)";
    if (c->pcache_source == SIM_PCACHE_STATIC && !c->prefix_cache)
        return "off (static batching keeps no cache)";
    if (c->pcache_source == SIM_PCACHE_BENCH && !c->prefix_cache)
        return "off (trtllm-bench turns block reuse off)";
    if (c->pcache_source == SIM_PCACHE_ENGINE && c->prefix_cache && en)
        snprintf(buf, n, "on (engine default: '%s' caches prefixes)", en);
    else if (!c->prefix_cache && en)
        snprintf(buf, n, "off (engine '%s' does not cache by default; --prefix-cache turns it on)", en);
    else /* a caller that set no reason (no engine profile) */
        snprintf(buf, n, "%s", c->prefix_cache ? "on" : "off (--prefix-cache turns it on)");
    return buf;
}

void render_sim_header(const struct sim_config *c, const char *wl, struct sbuf *out)
{
    const struct llmroof_setup *s = &c->setup;
    char lay_s[96];
    if (c->disaggregated) /* the pools, on the next line, are what ran: -g and -t set neither ("on 1 x h100 (TP 1)"
                           * had headed a 70B run of TP-2 and TP-4 pools that TP 1 cannot hold) */
        sbuf_printf(out, "%s on disaggregated prefill and decode pools: ", s->model->id);
    else
        sbuf_printf(out, "%s on %d x %s (TP %d%s): ", s->model->id, layout_gpus(s, lay_s, sizeof lay_s), s->gpu->id,
                    s->tp, lay_s);
    /* a sweep's header leaves its swept setting at 0 (cmd_simulate.c): the rows give it */
    char users[48], rate[48];
    if (c->concurrency > 0)
        snprintf(users, sizeof users, "%ld user%s", c->concurrency, PL(c->concurrency));
    else
        snprintf(users, sizeof users, "the swept users");
    if (c->rate_qps > 0)
        snprintf(rate, sizeof rate, "%g requests/s", c->rate_qps);
    else
        snprintf(rate, sizeof rate, "arrivals at the swept rates");
    char ramp[48] = "";
    if (c->mode == SIM_CLOSED && c->ramp_s > 0)
        snprintf(ramp, sizeof ramp, ", joining over %g s", c->ramp_s);
    if (c->mode == SIM_CLOSED && c->think_min_s == c->think_max_s)
        sbuf_printf(out, "closed loop, %s%s, %ld request%s, think %g s, workload %s", users, ramp, c->requests,
                    PL(c->requests), c->think_min_s, wl);
    else if (c->mode == SIM_CLOSED)
        sbuf_printf(out, "closed loop, %s%s, %ld request%s, think %g-%g s, workload %s", users, ramp, c->requests,
                    PL(c->requests), c->think_min_s, c->think_max_s, wl);
    else if (c->mode == SIM_RATE) {
        /* --fixed-span: the arrivals' span, requests / rate (a sweep's rates each have their own) */
        char span[64] = "";
        if (c->span_fixed && c->rate_qps > 0)
            snprintf(span, sizeof span, " over exactly %g s", (double)c->requests / c->rate_qps);
        else if (c->span_fixed)
            snprintf(span, sizeof span, " over exactly requests / rate");
        sbuf_printf(out, "open loop, Poisson %s%s, %ld request%s, workload %s", rate, span, c->requests,
                    PL(c->requests), wl);
    } else if (c->mode == SIM_OFFLINE)
        sbuf_printf(out, "offline, %ld request%s queued at t=0, workload %s", c->requests, PL(c->requests), wl);
    else
        sbuf_printf(out, "trace of %zu request%s", c->ntrace, c->ntrace == 1 ? "" : "s");
    if (c->static_batching) /* generate(): no token budget, the batch's size alone */
        sbuf_printf(out, "; batches of up to %ld request%s, no token budget", c->max_seqs, PL(c->max_seqs));
    else if (c->max_batched_tokens > 0) {
        /* a budget from the GPU's memory band (SGLang's chunked_prefill_size by memory) is named,
         * since the same engine on another GPU runs another budget */
        const struct llmroof_mem_tier *tier =
            c->pcache_engine && s->gpu ? catalog_engine_tier(c->pcache_engine, s->gpu->memory_bytes) : NULL;
        char band[64] = "", why[160] = ""; /* an engine id (64) and a band (64): gcc -O0 checks it */
        if (tier && tier->max_batched_tokens > 0 && tier->max_batched_tokens == c->max_batched_tokens) {
            tier_band(tier, band, sizeof band);
            snprintf(why, sizeof why, " (%s's default %s)", c->pcache_engine->id, band);
        }
        sbuf_printf(out, "; budget %ld tokens/iteration%s, %ld sequence%s", c->max_batched_tokens, why, c->max_seqs,
                    PL(c->max_seqs));
    }
    else
        sbuf_printf(out, "; the swept token budgets, %ld sequence%s", c->max_seqs, PL(c->max_seqs));
    /* data-parallel attention: every rank schedules alone (sim.c engine_init). An engine whose
     * profile states both limits per rank holds them per rank; any other divides the instance's
     * over its ranks (SGLang: chunked_prefill_size // dp_size), and the share is named */
    const long ranks = sim_setup_rank_factor(c);
    const int reps = sim_setup_attn_replicas(s);
    if (ranks > 1)
        sbuf_printf(out, " per DP rank (x%ld)", ranks);
    else if (reps > 1 && !c->static_batching && c->max_batched_tokens > 0)
        sbuf_printf(out, " (each of %d DP ranks %ld tokens, %ld sequence%s)", reps,
                    sim_rank_share(c, reps, c->max_batched_tokens), sim_rank_share(c, reps, c->max_seqs),
                    PL(sim_rank_share(c, reps, c->max_seqs)));
    /* pipeline parallelism: micro-batches of different requests in the stages at once (sim.h) */
    const int lanes = sim_pipeline_lanes(s, c->max_seqs, c->static_batching, c->disaggregated);
    if (lanes > 1) {
        const long most = sim_lane_seqs(c->max_seqs, lanes, 0);
        sbuf_printf(out, " in %d pipeline lanes (each its own token budget, %s%ld sequence%s and 1/%d of the KV blocks)",
                    lanes, c->max_seqs % lanes ? "up to " : "", most, PL(most), lanes);
    }
    /* TGI's router refuses a request beyond its permits (--max-concurrent-requests) */
    if (c->max_concurrent > 0)
        sbuf_printf(out, ", at most %ld request%s in flight (more refused, HTTP 429)", c->max_concurrent,
                    PL(c->max_concurrent));
    /* the CUDA-graph limit in force: a batch one past it runs eager, a step in TPOT the header
     * must explain (SGLang on an H100: 160 sequences replay, 161 do not) */
    char graphs[64] = "";
    if (s->eff.graphs && s->eff.graph_max > 0)
        snprintf(graphs, sizeof graphs, ", CUDA graphs up to %s%.0f%s", s->eff.graph_piecewise ? "" : "batch ",
                 s->eff.graph_max, s->eff.graph_piecewise ? " tokens" : "");
    sbuf_printf(out, ", %s%s; seed %llu",
                c->static_batching  ? "static batches (the next starts when the last request ends, prompts padded)"
                : c->chunked_prefill ? "chunked prefill"
                                     : "whole prefills",
                graphs, (unsigned long long)c->seed);
    if (c->max_model_len > 0)
        sbuf_printf(out, "; context limit %ld tokens", c->max_model_len);
    if (c->admit_no_evict || c->admit_reserve || c->admit_wait || c->waiting_served_ratio > 0 || c->cpu_seq_s > 0 || c->cpu_output_s > 0 || c->api_stream_s > 0 ||
        c->api_first_s > 0 || c->warmup_requests > 0 || c->sched_steps > 1 || c->recv_interval > 1) { /* the engine's scheduler, --warmup, --scheduler-steps, --recv-interval */
        sbuf_printf(out, "\nscheduler: %s admission, CPU %.3g us per sequence per iteration (%.0f%% overlapped)",
                    c->admit_no_evict  ? "guaranteed-no-evict"
                    : c->admit_reserve ? "new-token-ratio (SGLang)"
                    : c->admit_wait    ? "wait-and-flush (DeepSpeed-MII)"
                                       : "optimistic",
                    c->cpu_seq_s * 1e6,
                    /* as sim_sched.c runs it: an engine that schedules between steps while it
                     * speculates (spec_no_overlap: SGLang's overlap scheduler is off under EAGLE) */
                    100.0 * (c->spec_no_overlap && c->spec.kind != SIM_SPEC_NONE ? 0.0 : c->cpu_overlap));
        const int gpus = sim_ray_workers(c, sim_setup_gpus(s));
        if (c->worker_seq_s > 0 && gpus > 0) /* sim_cpu_step_s: pickled per Ray worker */
            sbuf_printf(out, " + %.3g us pickled for its %d Ray workers (%.3g each)", c->worker_seq_s * gpus * 1e6, gpus,
                        c->worker_seq_s * 1e6);
        if (c->cpu_output_s > 0) /* sim_cpu_step_s: output processing and the API server's streaming */
            sbuf_printf(out, ", output %.3g us (%.0f%%)", c->cpu_output_s * 1e6, 100.0 * c->cpu_output_overlap);
        if (c->api_stream_s > 0)
            sbuf_printf(out, ", API server %.3g us (%s)", c->api_stream_s * 1e6,
                        c->api_overlap >= 1 ? "own process" : c->api_overlap > 0 ? "partly overlapped" : "in the engine's process");
        else if (c->no_api_server)
            sbuf_printf(out, ", no API server (the engine's own API)");
        if (s->eff.ray_token_s > 0) /* sim_cpu_step_s: the Ray actor's outputs to the API server */
            sbuf_printf(out, ", Ray actor's outputs %.3g ns per context token", s->eff.ray_token_s * 1e9);
        /* the costs above are the reference host's (docs/model.md "Host CPU") */
        if (s->eff.cpu_scale > 0 && s->eff.cpu_scale != 1.0 && (c->cpu_seq_s > 0 || c->cpu_output_s > 0 || c->api_stream_s > 0))
            sbuf_printf(out, "; x%.2f on this host", s->eff.cpu_scale);
        /* its path to a first token, in every served TTFT (sim_arrival_delay_s): a review could not
         * see the 20 ms it adds at 4,096 tokens; not scaled by the host) */
        if (c->api_first_s > 0 || c->api_prompt_s > 0) {
            sbuf_printf(out, "; API server's path %.3g ms", c->api_first_s * 1e3);
            if (c->api_prompt_s > 0)
                sbuf_printf(out, " + %.3g us a prompt token", c->api_prompt_s * 1e6);
            sbuf_append(out, " before the engine");
        }
        if (c->waiting_served_ratio > 0) /* TGI's router gate (sim.h) */
            sbuf_printf(out, "; a new prefill batch joins running ones when waiting >= %g x running, or after %ld iteration%s",
                        c->waiting_served_ratio, c->max_waiting_steps, PL(c->max_waiting_steps));
        if (c->sched_steps > 1) /* sim_config_multi_step: the CPU figure above is already per iteration */
            sbuf_printf(out, "; multi-step: one scheduling pass per %d decode iterations", c->sched_steps);
        if (c->recv_interval > 1)
            sbuf_printf(out, "; new requests taken every %d decode iterations", c->recv_interval);
        if (c->warmup_requests > 0)
            sbuf_printf(out, "; latencies after the first %ld request%s", c->warmup_requests,
                        c->warmup_requests == 1 ? "" : "s");
    }
    if (c->disaggregated) {
        const struct llmroof_setup *p = c->prefill.setup.model ? &c->prefill.setup : s;
        const struct llmroof_setup *d = c->decode.setup.model ? &c->decode.setup : s;
        /* each pool with its own TP and layout (--prefill-pool N:GPU:TP:LAYOUT), and a pool of
         * data-parallel attention ranks with its ranks' limits (the run's line above gives the
         * command's layout's, which such a pool need not have) */
        char lay_d[96];
        const int gp = layout_gpus(p, lay_s, sizeof lay_s), gd = layout_gpus(d, lay_d, sizeof lay_d);
        for (int k = 0; k < 2; k++) {
            const struct llmroof_setup *ps = k == 0 ? p : d;
            char *ls = k == 0 ? lay_s : lay_d;
            const int pr = sim_setup_attn_replicas(ps);
            const size_t len = strlen(ls);
            if (pr > 1 && sim_rank_factor(c, pr) > 1)
                snprintf(ls + len, sizeof lay_s - len, "; limits per DP rank, x%d", pr);
            else if (pr > 1 && c->max_batched_tokens > 0)
                snprintf(ls + len, sizeof lay_s - len, "; each DP rank %ld tokens, %ld sequence%s",
                         sim_rank_share(c, pr, sim_pool_budget(c, k)), sim_rank_share(c, pr, c->max_seqs),
                         PL(sim_rank_share(c, pr, c->max_seqs)));
        }
        /* three significant figures below 100 GB/s (--kv-link 0.4, 12.5), whole GB/s above */
        const double link_GBps = c->kv_link_Bps / 1e9;
        char link[32];
        if (link_GBps < 99.95)
            snprintf(link, sizeof link, "%.3g", link_GBps);
        else
            snprintf(link, sizeof link, "%.0f", link_GBps);
        sbuf_printf(out, "\ndisaggregated: %d prefill instance%s of %d x %s (TP %d%s), %d decode instance%s of %d x %s "
                         "(TP %d%s), KV link %s GB/s per GPU pair, router %s",
                    c->prefill.instances, c->prefill.instances == 1 ? "" : "s", gp, p->gpu->id, p->tp, lay_s,
                    c->decode.instances, c->decode.instances == 1 ? "" : "s", gd, d->gpu->id, d->tp, lay_d,
                    link, sim_router_name(c->router));
        /* a pool whose GPU gives the engine another default budget (sim_pool_engine) says so */
        if (c->max_batched_tokens > 0 && (c->prefill.max_batched_tokens > 0 || c->decode.max_batched_tokens > 0))
            sbuf_printf(out, "; budget %ld tokens/iteration on the prefill pool, %ld on the decode pool",
                        sim_pool_budget(c, 0), sim_pool_budget(c, 1));
        if (c->pd_decode_prealloc)
            sbuf_append(out, "; decode KV taken on arrival, before the prefill");
    } else if (c->instances > 1) {
        /* the header's GPUs are one instance's: the cluster's total said here (a review read "on 2 x
         * b200" for a 4-GPU cluster) */
        const int per = sim_setup_gpus(&c->setup);
        sbuf_printf(out, "\ncluster: %d instances of %d GPU%s (%d GPUs), router %s", c->instances, per,
                    per == 1 ? "" : "s", c->instances * per, sim_router_name(c->router));
    }
    char pc[112];
    if (c->prefix_tokens > 0)
        sbuf_printf(out, "\nshared prefix: %ld tokens in %ld group%s, prefix cache %s", c->prefix_tokens, c->prefix_groups,
                    c->prefix_groups == 1 ? "" : "s", pcache_reason(c, pc, sizeof pc));
    else if (c->prefix_cache)
        sbuf_printf(out, "\nprefix cache %s; the workload shares no prefix", pcache_reason(c, pc, sizeof pc));
    if (c->spec.kind != SIM_SPEC_NONE) {
        char sp[640];
        render_spec_text(&c->spec, &c->spec_head, &c->setup.dt, sp, sizeof sp);
        sbuf_printf(out, "\nspeculative decoding: %s", sp);
    }
}

void render_spec_text(const struct sim_spec *sp, const struct llmroof_draft_head *head,
                      const struct llmroof_dtypes *target, char *buf, size_t n)
{
    char tree[48] = ""; /* a draft tree's shape (--spec-tree TOPK:TOKENS) */
    if (sp->tokens > 0)
        snprintf(tree, sizeof tree, ", tree %d:%d", sp->topk, sp->tokens);
    if (sp->kind == SIM_SPEC_EAGLE3)
        snprintf(tree + strlen(tree), sizeof tree - strlen(tree), ", draft vocabulary %ld", sp->draft_vocab);
    char own[160] = ""; /* --spec-draft-config: the head's own layer */
    if (head->heads > 0)
        snprintf(own, sizeof own, ", draft layer %ld query / %ld KV heads of %ld, MLP %ld", head->heads,
                 head->kv_heads, head->head_dim, head->intermediate);
    if (target) {
        /* a drafter whose weights are not the target's dtype (a head apart, a draft model), as
         * estimate's note says it */
        const struct llmroof_dtypes ddt = sim_spec_drafter_dtypes(sp, head, target);
        ckpt_drafter_desc(target, &ddt, own + strlen(own), sizeof own - strlen(own));
    }
    const bool draft = sp->kind == SIM_SPEC_DRAFT && sp->draft;
    /* a tree's yield takes every candidate rank at the acceptance (docs/metrics.md "Draft trees"):
     * the same --spec-accept gave a 4:16 tree 3.603 tokens where the chain gives 2.533, a gain a
     * review found said nowhere to be an upper bound */
    snprintf(buf, n, "%s%s%s, k %d%s%s, acceptance %g: expected %.3f tokens per step%s", sim_spec_name(sp->kind),
             draft ? " " : "", draft ? sp->draft->id : "", sp->k, tree, own, sp->alpha, sim_spec_expected_tokens(sp),
             sp->topk > 1 ? " (the tree's upper bound: every candidate rank accepted at the acceptance; measured "
                            "acceptance falls with rank)" : "");
}

static void stat_row(struct table *t, const char *name, const struct sim_stats *s, double scale)
{
    table_row(t);
    table_str(t, name);
    if (s->n == 0) { /* no request completed (all rejected): no latency, not 0 */
        for (int i = 0; i < 6; i++)
            table_str(t, "n/a");
        return;
    }
    table_num(t, s->mean * scale);
    table_num(t, s->p50 * scale);
    table_num(t, s->p90 * scale);
    table_num(t, s->p95 * scale);
    table_num(t, s->p99 * scale);
    table_num(t, s->max * scale);
}

/* a quantity row; the value column holds text so counts print without decimals */
static void qf(struct table *t, const char *name, const char *fmt, double v, const char *unit)
{
    char buf[48];
    snprintf(buf, sizeof buf, fmt, v);
    table_row(t);
    table_str(t, name);
    table_str_num(t, buf, v); /* CSV: the value at full precision */
    table_str(t, unit);
}
#define q(t, name, v, unit) qf(t, name, "%.3f", v, unit)
#define qi(t, name, v, unit) qf(t, name, "%.0f", v, unit)

static void band_rows(struct table *t, const char *name, const struct sim_stats *s, double scale,
                      const struct llmroof_band *b)
{
    char n[48];
    if (!b || !b->present)
        return;
    snprintf(n, sizeof n, "%s low", name);
    stat_row(t, n, s, scale * b->low);
    snprintf(n, sizeof n, "%s high", name);
    stat_row(t, n, s, scale * b->high);
}

void render_sim(const struct sim_config *c, const struct sim_result *r, const char *wl, enum table_format f,
                struct table_sel *sel, struct sbuf *out)
{
    render_sim_bands(c, r, wl, NULL, f, sel, out);
}

/* The KV line's requests of the mean length at once (of one pool, or of every instance: pool -1),
 * floored as memory floors its max batch: whole requests per attention replica (a request's KV
 * lives in one replica's GPUs), times the replicas, summed over the instances, so that simulate
 * and memory --context (the mean length) print one figure for one capacity (review17b item 9: 558
 * against memory's 557). */
double render_sim_requests_at_mean_len(const struct sim_config *c, const struct sim_result *r, int pool)
{
    if (!(r->max_batch_at_mean_len > 0) || r->ninst < 1 || !r->inst)
        return 0;
    const double mean_len = r->kv_capacity_tokens / r->max_batch_at_mean_len; /* sim_stats.c's mean */
    /* a request holds whole blocks, as memory counts a sequence: ceil(128 + 4 = 132 / 16) = 9 blocks, so
     * 28,140 blocks hold 3,126 requests, not 28,140 x 16 / 132 = 3,410 (1e-9: a whole count stays whole) */
    const double kv_blocks = ceil(mean_len / (double)r->block_size - 1e-9);
    double n = 0;
    for (int i = 0; i < r->ninst; i++) {
        if (pool >= 0 && r->inst[i].pool != pool)
            continue;
        /* and its recurrent state's blocks beside them, as the simulator takes them (sim.c
         * state_blocks): Jamba at TP 2, 1,000 tokens: 63 + 33 blocks, about 1,870 requests where
         * the K/V alone gave 2,855 against memory's 1,869 */
        const double per_request = kv_blocks + (double)r->inst[i].state_blocks;
        const int reps = sim_setup_attn_replicas(sim_pool_setup(c, r->inst[i].pool));
        /* a replica's blocks, all its pipeline lanes' together: every stage holds its own layers'
         * K/V of every sequence in flight, as memory counts its max batch (the lanes' shares, each
         * floored, had read up to lanes - 1 fewer: Qwen3-Next at TP 2 x PP 2, 5,620 against
         * memory's 5,621) */
        const double replica_blocks = floor((double)r->inst[i].kv_blocks_total / (double)reps + 1e-9);
        n += floor(replica_blocks / per_request + 1e-9) * (double)reps;
    }
    return n;
}

void render_sim_bands(const struct sim_config *c, const struct sim_result *r, const char *wl,
                      const struct llmroof_uncertainty *u, enum table_format f, struct table_sel *sel,
                      struct sbuf *out)
{
    struct table t;
    if (f == TABLE_TEXT || f == TABLE_MD) {
        render_sim_header(c, wl, out);
        char given[96] = "";
        if (c->kv_blocks > 0 && r->kv_blocks_total == c->kv_blocks) /* stated, not sized: and what memory holds */
            snprintf(given, sizeof given, " (--kv-blocks; memory sizes %ld)", r->kv_blocks_memory);
        else if (c->kv_blocks > 0) /* several pools: replicas, instances or lanes */
            snprintf(given, sizeof given, " (--kv-blocks %ld a pool; memory sizes %ld)", c->kv_blocks,
                     r->kv_blocks_memory);
        /* a recurrent model's state dtype where it is set apart from the model's 16 bits, as the
         * headers of estimate and memory name it (ckpt_state_desc): its blocks come out of this pool */
        char sdesc[64] = "", st[48];
        ckpt_state_desc(c->setup.model, &c->setup.dt, st, sizeof st);
        if (st[0])
            snprintf(sdesc, sizeof sdesc, "; %s", st);
        /* a windowed model's blocks hold tokens of every layer, which its windowed layers keep
         * only within their window: memory's kv_capacity_tokens counts tokens of context instead,
         * more of them (a review read Gemma-3-27B's 40,976 here against memory's 153,978) */
        const char *win = arch_local_layers(c->setup.model) > 0 ? " of every layer's K/V (its windowed layers keep "
                                                                  "their window's)"
                                                                : "";
        if (c->kv_copy) /* TGI 0.8: one contiguous tensor, no pages; the simulator counts it in blocks all the same */
            sbuf_printf(out, "\nKV cache: one contiguous tensor of %.0f tokens (half the free memory: copied every step), "
                             "counted in %ld-token units%s; about %.0f request%s of the mean length at once%s\n\n",
                        r->kv_capacity_tokens, r->block_size, given, render_sim_requests_at_mean_len(c, r, -1),
                        PL(render_sim_requests_at_mean_len(c, r, -1)), sdesc);
        else if (c->disaggregated) {
            /* the decode pool holds the requests while they decode, so its capacity is the one a
             * reader compares with the batch; the prefill pool's holds a prompt only until its K/V
             * has moved (until session 39 the line added the two, 1,350,720 tokens for one prefill
             * and two decode H100s of which 900,480 hold the decodes) */
            long blocks[2] = { 0, 0 };
            for (int i = 0; i < r->ninst && r->inst; i++)
                blocks[r->inst[i].pool == 1] += r->inst[i].kv_blocks_total;
            sbuf_printf(out, "\nKV cache: decode pool %ld block%s of %ld tokens = %ld tokens%s, about %.0f request%s of the "
                             "mean length at once; prefill pool %ld block%s = %ld tokens%s\n\n",
                        blocks[1], PL(blocks[1]), r->block_size, blocks[1] * r->block_size, win,
                        render_sim_requests_at_mean_len(c, r, 1),
                        PL(render_sim_requests_at_mean_len(c, r, 1)), blocks[0], PL(blocks[0]), blocks[0] * r->block_size, sdesc);
        } else
            sbuf_printf(out, "\nKV cache: %ld block%s of %ld tokens%s = %.0f tokens%s, about %.0f request%s of the mean "
                             "length at once%s\n\n",
                        r->kv_blocks_total, PL(r->kv_blocks_total), r->block_size, given, r->kv_capacity_tokens, win,
                        render_sim_requests_at_mean_len(c, r, -1), PL(render_sim_requests_at_mean_len(c, r, -1)), sdesc);
    }
    table_init(&t, "");
    table_col(&t, "latency", 0);
    table_col(&t, "mean", 2);
    table_col(&t, "p50", 2);
    table_col(&t, "p90", 2);
    table_col(&t, "p95", 2);
    table_col(&t, "p99", 2);
    table_col(&t, "max", 2);
    stat_row(&t, "ttft_ms", &r->ttft, 1e3);
    band_rows(&t, "ttft_ms", &r->ttft, 1e3, u ? &u->ttft : NULL);
    stat_row(&t, "tpot_ms", &r->tpot, 1e3);
    band_rows(&t, "tpot_ms", &r->tpot, 1e3, u ? &u->tpot : NULL);
    stat_row(&t, "itl_ms", &r->itl, 1e3);
    stat_row(&t, "e2e_s", &r->e2e, 1.0);
    band_rows(&t, "e2e_s", &r->e2e, 1.0, u ? &u->e2e : NULL);
    if (table_sel_wants(sel, f, "latency"))
        table_render_fit(&t, f, 100, 1, out);
    table_free(&t);
    if (u && (f == TABLE_TEXT || f == TABLE_MD) && table_sel_wants(sel, f, "latency")) {
        /* what the low/high rows are: each metric's band, the serving rows' where the file has it
         * (cmd_simulate took those in place of the static ones) */
        const struct llmroof_band *b[3] = { &u->ttft, &u->tpot, &u->e2e };
        const bool srv[3] = { u->serving_ttft.present, u->serving_tpot.present, u->serving_e2e.present };
        const char *name[3] = { "TTFT", "TPOT", "e2e" };
        sbuf_append(out, "low / high: measured / predicted, 10th and 90th percentiles (data/uncertainty.json) of\n");
        for (int k = 0; k < 3; k++)
            if (b[k]->present)
                sbuf_printf(out, "%s%s %ld %s rows", k ? ", " : "", name[k], b[k]->n, srv[k] ? "serving" : "static");
        sbuf_append(out, b[2]->present ? " (e2e no narrower than its parts')\n" : "\n");
    }
    if (f != TABLE_CSV)
        sbuf_append(out, "\n");
    table_init(&t, "");
    table_col(&t, "quantity", 0);
    table_col(&t, "value", 0);
    table_col(&t, "unit", 0);
    qi(&t, "requests", (double)r->requests, "");
    qi(&t, "completed", (double)r->completed, "");
    qi(&t, "errors", (double)r->errors,
       r->refused_busy > 0 && r->refused_busy == r->errors ? "refused at the concurrency limit (below)"
       : r->refused_busy > 0 ? "rejected: prompt + output exceed the KV cache or the context limit, or refused (below)"
       : c->prompt_within_budget && !c->chunked_prefill
           ? "rejected: prompt + output exceed the KV cache, or the prompt exceeds the token budget (no chunked prefill)"
       : c->max_model_len > 0 ? "rejected: prompt + output exceed the KV cache, or the prompt exceeds the context limit"
                              : "rejected: prompt + output exceed the KV cache");
    if (r->refused_busy > 0) { /* TGI's 429s: the limit, not the request, refused them */
        char why[160];
        snprintf(why, sizeof why, "of the errors: refused at an instance holding %ld requests (--max-concurrent-requests, "
                                  "HTTP 429)", c->max_concurrent);
        qi(&t, "refused_busy", (double)r->refused_busy, why);
    }
    q(&t, "error_rate", r->error_rate, "");
    q(&t, "duration", r->duration_s, "s");
    /* an open loop's run begins with its fill and ends with its drain after the last arrival:
     * these are over the whole duration, below the offered rate the load window's completed_rate
     * shows (a review compared a plan's 50 requests/s with 35.9 here) */
    const bool whole = r->open_loop && r->window_s > 0;
    q(&t, "output_tok_s", r->output_tok_s, whole ? "tokens/s over the whole run, fill and drain included" : "tokens/s");
    q(&t, "request_per_s", r->request_per_s, whole ? "requests/s over the whole run, fill and drain included" : "requests/s");
    q(&t, "mean_batch", r->mean_batch, "sequences per iteration (time-weighted)");
    qi(&t, "max_batch", (double)r->max_batch, "sequences");
    q(&t, "kv_util_mean", r->kv_util_mean, "fraction of KV blocks (time-weighted)");
    qi(&t, "preemptions", (double)r->preemptions, "");
    if (r->kv_resets > 0) /* admission "wait" only: each flush also counts its sequences as preemptions */
        qi(&t, "kv_resets", (double)r->kv_resets, "steps that flushed every running sequence (admission wait)");
    if (r->preemptions > 0) { /* sim_result.recomputed_tokens, preempt_hit_tokens */
        qi(&t, "recomputed", (double)r->recomputed_tokens, "tokens preempted requests computed again");
        qi(&t, "preempt_hits", (double)r->preempt_hit_tokens, "tokens their re-admissions found still cached");
    }
    qi(&t, "iterations", (double)r->iterations, "");
    qi(&t, "seed", (double)r->seed, "");
    /* summed over the instances (and pools): it exceeds the duration where several compute at once */
    q(&t, "busy", r->busy_s, (c->instances > 1 || c->disaggregated) ? "s, summed over the instances" : "s");
    q(&t, "mean_in_system", r->mean_in_system, "requests (Little's L)");
    if (r->open_loop && !(r->window_s > 0)) {
        /* one request, or every arrival at one instant: no window to measure a rate over (it had
         * printed 0 requests/s offered and "the server keeps up") */
        table_row(&t);
        table_str(&t, "overloaded");
        table_str(&t, "n/a");
        table_str(&t, r->completed == 0 && r->errors > 0 ? "every request was rejected (see the warning): no service to judge"
                                                         : "the arrivals share one instant: no load window to judge");
    } else if (r->open_loop) {
        q(&t, "load_window", r->window_s, "s, the second half of the arrivals");
        q(&t, "offered_rate", r->offered_rate_qps, "requests/s arriving (second half of the arrivals)");
        q(&t, "completed_rate", r->sustained_rate_qps, "requests/s completed over the same window");
        q(&t, "queue_growth", r->queue_growth_per_s, "requests/s added to the system over that window");
        q(&t, "window_busy", r->window_busy_share, "share of that window the busiest pool computed");
        table_row(&t);
        /* a run within its arrivals' noise of the ceiling is neither keeping up nor shown overloaded:
         * say so rather than "keeps up" (sim_result.at_capacity) */
        char at_cap[200];
        snprintf(at_cap, sizeof at_cap,
                 "%.0f wait for admission: within %.1f%% of the ceiling, too close to call",
                 r->window_waiting_mean, 100.0 / (1.0 + r->window_waiting_mean));
        table_str(&t, "overloaded");
        table_str(&t, r->overloaded ? "yes" : r->at_capacity ? "at capacity" : "no");
        /* a window under 3 request lives has not reached the steady state (cmd_simulate.c's note):
         * "keeps up" would read as a verdict its own growth row contradicts (a review: 7.7 requests/s
         * of growth beside "the server keeps up" at 1.0 lives) */
        const bool short_window = r->window_lives > 0 && r->window_lives < 3;
        table_str(&t, !r->overloaded ? (r->at_capacity ? at_cap
                                        : short_window ? "too short to tell: the window spans under 3 request lives (see the note)"
                                                       : "the server keeps up")
                      /* (each reason within the table's 100 columns, so it stays beside its value) */
                      : r->overloaded_by_refusals    ? "requests refused at --max-concurrent-requests (HTTP 429)"
                      : r->overloaded_by_bound       ? "offered above the steady-state bound: a longer run's queue grows"
                      : r->may_be_filling            ? "overloaded or still filling (under 3 request lives; see the warning)"
                      : r->overloaded_by_completions ? "completions lag arrivals beyond their noise while the system grows"
                                                     : "admission queue grows: more wait in the second half than the first");
    }
    if (r->has_slo) {
        char unit[224]; /* "overloaded; " and three 64-byte parts: gcc -O0 checks the bound (format-truncation) */
        q(&t, "goodput", r->goodput_qps, whole ? "requests/s within every SLO, over the whole run" : "requests/s within every SLO");
        q(&t, "within_slo", r->within_slo_share, "share of requests within every SLO");
        const unsigned miss = sim_slo_missed(c, r);
        if (miss == SIM_MISS_OVERLOAD)
            snprintf(unit, sizeof unit, "the run is overloaded: its percentiles grow with its length");
        else if (miss) {
            /* name every limit missed: "TTFT and TPOT at p99 within the limits" beside "no" had
             * read as met (p99 TTFT 29.77 ms against --ttft-slo 10ms) */
            const int p = c->slo_percentile ? c->slo_percentile : 99;
            const double tt = sim_stats_at(&r->ttft, p), tp = sim_stats_at(&r->tpot, p);
            char a[64] = "", b[64] = "", e[64] = "";
            if (miss & SIM_MISS_TTFT)
                snprintf(a, sizeof a, "p%d TTFT %.4g ms > %.8g ms", p, tt * 1e3, c->ttft_slo_s * 1e3);
            if (miss & SIM_MISS_TPOT)
                snprintf(b, sizeof b, "%sp%d TPOT %.4g ms > %.8g ms", a[0] ? ", " : "", p, tp * 1e3,
                         c->tpot_slo_s * 1e3);
            if (miss & SIM_MISS_ERRORS)
                snprintf(e, sizeof e, "%s%ld request%s %s", a[0] || b[0] ? ", " : "", r->errors, PL(r->errors),
                         r->refused_busy == r->errors ? "refused (HTTP 429)" : "rejected");
            /* overloaded beside other misses: said first, the others after it (the overload alone had
             * been named, its TTFT, TPOT and refusals left out) */
            snprintf(unit, sizeof unit, "%s%s%s%s", miss & SIM_MISS_OVERLOAD ? "overloaded; " : "", a, b, e);
        } else if (c->tpot_slo_s > 0 && r->tpot.n == 0) {
            /* every output one token: no TPOT was measured, so its limit was not checked (the
             * line had said it was within) */
            if (c->ttft_slo_s > 0)
                snprintf(unit, sizeof unit, "TTFT at p%d within its limit, no errors; no TPOT (one-token outputs)",
                         c->slo_percentile);
            else
                snprintf(unit, sizeof unit, "no errors; no TPOT to judge (one-token outputs)");
        } else
            snprintf(unit, sizeof unit, "TTFT and TPOT at p%d within the limits, no errors", c->slo_percentile);
        table_row(&t);
        table_str(&t, "slo_met");
        table_str(&t, r->slo_met ? "yes" : "no");
        table_str(&t, unit);
    }
    if (c->prefix_tokens > 0)
        q(&t, "prefix_hit_rate", r->prefix_hit_rate, "prompt tokens served from the prefix cache");
    if (c->spec.kind != SIM_SPEC_NONE)
        q(&t, "spec_tokens_per_step", r->spec_tokens_per_step, "tokens emitted per sequence per decode step");
    if (c->disaggregated) {
        /* with pre-allocation the blocks were taken before the prefill (prealloc_wait below) */
        q(&t, "kv_transfer_mean", r->kv_transfer.mean * 1e3,
          /* (short enough that the quantity table keeps its units beside its values in 100
           * columns; a review found them split into a second part) */
          r->has_prealloc_wait ? "ms, prefill end to KV at the decode pool (link alone)"
                               : "ms, prefill end to KV at the decode pool (blocks, link)");
        q(&t, "kv_transfer_p99", r->kv_transfer.p99 * 1e3, "ms");
        q(&t, "decode_queue_mean", r->decode_queue.mean * 1e3, "ms from KV arrival to the first decode step");
        q(&t, "decode_queue_p99", r->decode_queue.p99 * 1e3, "ms");
        if (r->has_prealloc_wait) {
            q(&t, "prealloc_wait_mean", r->prealloc_wait.mean * 1e3,
              "ms from reaching the engine to decode blocks taken, before the prefill (in TTFT)");
            q(&t, "prealloc_wait_p90", r->prealloc_wait.p90 * 1e3, "ms");
            q(&t, "prealloc_wait_p99", r->prealloc_wait.p99 * 1e3, "ms");
        }
    }
    if (table_sel_wants(sel, f, "quantities"))
        table_render_fit(&t, f, 100, 1, out);
    table_free(&t);
    if (r->ninst > 1 || c->disaggregated) {
        if (f != TABLE_CSV)
            sbuf_append(out, "\n");
        table_init(&t, "");
        table_col(&t, "instance", 0);
        table_col(&t, "pool", 0);
        table_col(&t, "gpu", 0);
        table_col(&t, "tp", 0);
        table_col(&t, "gpus", 0); /* an ep8+dpa pool's 8 at TP 1 */
        table_col(&t, "requests", 0);
        table_col(&t, "utilization", 3);
        table_col(&t, "mean_batch", 1);
        table_col(&t, "max_batch", 0);
        table_col(&t, "kv_util_mean", 3);
        table_col(&t, "preemptions", 0);
        for (int i = 0; i < r->ninst; i++) {
            const struct sim_instance *s = &r->inst[i];
            const struct llmroof_setup *su = sim_pool_setup(c, s->pool);
            table_row(&t);
            table_num(&t, i);
            table_str(&t, !c->disaggregated ? "aggregated" : s->pool == 0 ? "prefill" : "decode");
            table_str(&t, su->gpu->id);
            table_num(&t, su->tp);
            table_num(&t, sim_setup_gpus(su));
            table_num(&t, (double)s->requests);
            table_num(&t, s->utilization);
            table_num(&t, s->mean_batch);
            table_num(&t, (double)s->max_batch);
            table_num(&t, s->kv_util_mean);
            table_num(&t, (double)s->preemptions);
        }
        if (table_sel_wants(sel, f, "instances"))
            table_render(&t, f, out);
        table_free(&t);
    }
}

void render_sim_requests_csv(const struct sim_result *r, struct sbuf *out)
{
    bool disaggregated = false;
    for (int i = 0; r->inst && i < r->ninst; i++)
        disaggregated |= r->inst[i].pool == 1;
    sbuf_append(out, "id,arrival_s,first_scheduled_s,first_token_s,finish_s,prompt_len,output_len,preemptions,status,"
                     "instance,prefill_instance,kv_ready_s\r\n");
    for (long i = 0; i < r->requests; i++) {
        const struct sim_request *q = &r->reqs[i];
        /* refused: turned away at an instance holding --max-concurrent-requests (HTTP 429), which the
         * summary counts apart (refused_busy); rejected: too long for the KV cache or the context */
        if (q->rejected) {
            sbuf_printf(out, "%ld,%.6f,,,%.6f,%ld,%ld,0,%s,,,\r\n", i, q->arrival_s, q->finish_s, q->prompt, q->output,
                        q->refused_busy ? "refused" : "rejected");
            continue;
        }
        sbuf_printf(out, "%ld,%.6f,%.6f,%.6f,%.6f,%ld,%ld,%d,completed,", i, q->arrival_s, q->first_sched_s,
                    q->first_token_s, q->finish_s, q->prompt, q->output, q->preemptions);
        /* which instance served it, as the instances table numbers them: aggregated, the one that
         * prefilled and decoded it; disaggregated, its decode instance, its prefill instance and
         * when its K/V arrived there */
        const int pre = disaggregated ? q->prefill_instance : q->instance;
        if (q->instance >= 0)
            sbuf_printf(out, "%d", q->instance);
        sbuf_append(out, ",");
        if (pre >= 0)
            sbuf_printf(out, "%d", pre);
        sbuf_append(out, ",");
        if (disaggregated && q->kv_ready_s >= 0)
            sbuf_printf(out, "%.6f", q->kv_ready_s);
        sbuf_append(out, "\r\n");
    }
}

/* The name of track i (an instance, or under --pp one of its lanes) as the instances table numbers
 * it: "instance 2", "instance 1 lane 0", in a disaggregated run "instance 0 (prefill)" (the trace
 * had counted from 1 within each pool while the table counts from 0 over all: a review). */
static void track_name(const struct sim_result *r, int i, int lanes, bool disagg, char *buf, size_t n)
{
    const int inst = i / lanes;
    int w = snprintf(buf, n, "instance %d", inst);
    if (lanes > 1 && w > 0 && (size_t)w < n)
        w += snprintf(buf + w, n - (size_t)w, " lane %d", i % lanes);
    if (disagg && w > 0 && (size_t)w < n)
        snprintf(buf + w, n - (size_t)w, " (%s)", r->inst[inst].pool == 0 ? "prefill" : "decode");
}

/* One point of track k's batch counter (k < 0: the run's one track). */
static void batch_counter(struct sbuf *out, const struct sim_result *r, int k, int lanes, bool disagg, double t_s,
                          int seqs)
{
    if (k < 0) {
        sbuf_printf(out, ",\n{\"name\":\"batch\",\"ph\":\"C\",\"pid\":1,\"ts\":%.3f,\"args\":{\"sequences\":%d}}",
                    t_s * 1e6, seqs);
        return;
    }
    char name[64];
    track_name(r, k, lanes, disagg, name, sizeof name);
    sbuf_printf(out, ",\n{\"name\":\"batch: %s\",\"ph\":\"C\",\"pid\":1,\"ts\":%.3f,\"args\":{\"sequences\":%d}}",
                name, t_s * 1e6, seqs);
}

void render_sim_chrome_trace(const struct sim_result *r, struct sbuf *out)
{
    sbuf_append(out, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    sbuf_append(out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"llmroof engine\"}}");
    /* a track per instance (and per pipeline lane under --pp), each named, with a batch counter of
     * its own: one counter for all had jumped between the instances' batches, and unnamed tracks
     * had hidden which pool of a disaggregated run was which (a review) */
    const int lanes = r->ninst > 0 && r->inst ? r->inst[0].lanes : 1;
    const int tracks = r->inst && r->ninst > 0 && lanes > 0 ? r->ninst * lanes : 1;
    bool disagg = false;
    for (int i = 0; r->inst && i < r->ninst; i++)
        disagg |= r->inst[i].pool == 1;
    char name[64];
    for (int i = 0; tracks > 1 && i < tracks; i++) {
        track_name(r, i, lanes, disagg, name, sizeof name);
        sbuf_printf(out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    i + 1, name);
    }
    /* each track's batch counter falls to 0 where it idles (between a closed loop's requests, at
     * the run's end): it had held its last batch through the gap, and a viewer read an idle
     * server as a busy one (a review). last_end[k]: the end of track k's last iteration, 0
     * before its first (an iteration takes time, so none ends at 0); without the scratch the
     * counter only steps between iterations */
    double *last_end = calloc((size_t)tracks, sizeof *last_end);
    for (long i = 0; i < r->iterations && r->iters; i++) {
        const struct sim_iter *it = &r->iters[i];
        sbuf_printf(out, ",\n{\"name\":\"%s\",\"cat\":\"iteration\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,"
                         "\"dur\":%.3f,\"args\":{\"prefill_seqs\":%d,\"prefill_tokens\":%ld,\"decode_seqs\":%d,"
                         "\"kv_util\":%.4f}}",
                    it->prefill_seqs && it->decode_seqs ? "mixed" : it->prefill_seqs ? "prefill" : "decode",
                    it->instance + 1, it->start_s * 1e6, it->dur_s * 1e6, it->prefill_seqs, it->prefill_tokens, it->decode_seqs,
                    it->kv_util);
        const int k = it->instance >= 0 && it->instance < tracks ? it->instance : 0;
        const int name_k = tracks > 1 ? k : -1;
        /* a gap of a microsecond or more since the track's last iteration: it idled */
        if (last_end && last_end[k] > 0 && it->start_s > last_end[k] + 1e-6)
            batch_counter(out, r, name_k, lanes, disagg, last_end[k], 0);
        batch_counter(out, r, name_k, lanes, disagg, it->start_s, it->prefill_seqs + it->decode_seqs);
        if (last_end)
            last_end[k] = it->start_s + it->dur_s;
    }
    for (int k = 0; last_end && k < tracks; k++)
        if (last_end[k] > 0)
            batch_counter(out, r, tracks > 1 ? k : -1, lanes, disagg, last_end[k], 0);
    free(last_end);
    sbuf_append(out, "\n]}\n");
}

void render_sim_sweep(const char *param, const struct sim_point *pts, int n, const struct sim_config *c,
                      enum table_format f, struct sbuf *out)
{
    struct table t;
    bool whole = true, open = false;
    const bool slo = c->ttft_slo_s > 0 || c->tpot_slo_s > 0;
    for (int i = 0; i < n; i++) {
        whole &= pts[i].param == floor(pts[i].param);
        open |= pts[i].result.open_loop;
    }
    table_init(&t, "");
    table_col(&t, param, whole ? 0 : 3);
    table_col(&t, "output_tok_s", 1);
    table_col(&t, "request_per_s", 3);
    table_col(&t, "ttft_p50_ms", 1);
    table_col(&t, "ttft_p99_ms", 1);
    table_col(&t, "tpot_p50_ms", 2);
    table_col(&t, "tpot_p99_ms", 2);
    table_col(&t, "itl_p99_ms", 2);
    table_col(&t, "e2e_p50_s", 2);
    table_col(&t, "mean_batch", 1);
    table_col(&t, "preemptions", 0);
    table_col(&t, "errors", 0);
    if (open) /* what the run's warning says on stderr, kept with its row */
        table_col(&t, "overloaded", 0);
    if (slo) {
        table_col(&t, "goodput_rps", 3);
        table_col(&t, "slo_met", 0);
    }
    for (int i = 0; i < n; i++) {
        const struct sim_result *r = &pts[i].result;
        table_row(&t);
        table_num(&t, pts[i].param);
        table_num(&t, r->output_tok_s);
        table_num(&t, r->request_per_s);
        /* a point that completed nothing (every request rejected) has no latency, not 0 */
        const double lat[6] = { r->ttft.p50 * 1e3, r->ttft.p99 * 1e3, r->tpot.p50 * 1e3,
                                r->tpot.p99 * 1e3, r->itl.p99 * 1e3,  r->e2e.p50 };
        const long ns[6] = { r->ttft.n, r->ttft.n, r->tpot.n, r->tpot.n, r->itl.n, r->e2e.n };
        for (int k = 0; k < 6; k++) {
            if (ns[k] > 0)
                table_num(&t, lat[k]);
            else
                table_str(&t, "n/a");
        }
        table_num(&t, r->mean_batch);
        table_num(&t, (double)r->preemptions);
        table_num(&t, (double)r->errors);
        if (open)
            table_str(&t, r->overloaded ? "yes" : "no");
        if (slo) {
            table_num(&t, r->goodput_qps);
            table_str(&t, r->slo_met ? "yes" : "no");
        }
    }
    table_render_fit(&t, f, 100, 1, out);
    table_free(&t);
}

/* The statistic of s at percentile p (50, 90, 95 or 99). */
static double at_pct(const struct sim_stats *s, int p)
{
    return p <= 50 ? s->p50 : p <= 90 ? s->p90 : p <= 95 ? s->p95 : s->p99;
}

/* The swept setting's axis title with its unit. */
static const char *param_axis(const char *param)
{
    if (strcmp(param, "max_batched_tokens") == 0)
        return "max_batched_tokens: token budget per iteration (tokens)";
    if (strcmp(param, "rate") == 0)
        return "rate: Poisson arrivals (requests/s)";
    if (strcmp(param, "concurrency") == 0)
        return "concurrency: closed-loop users";
    return param;
}

void render_sim_curve(const char *title, const char *param, const struct sim_point *pts, int n,
                      const struct sim_config *c, struct sbuf *out)
{
    static const char *const colors[4] = { "#F5A06B", "#D55E00", "#7FB8DA", "#0072B2" };
    static const char *const dash[4] = { "5 3", "", "5 3", "" };
    const int W = 800, left = 78, right = 24, top = 44, lat_h = 260, gap = 74, thr_h = 150;
    /* the footnote's second line (below) takes 14 px more */
    const int pw = W - left - right, top2 = top + lat_h + gap, H = top2 + thr_h + 84 + 14;
    int pct = c->slo_percentile > 0 ? c->slo_percentile : 99;
    char names[4][32];
    snprintf(names[0], sizeof names[0], "TTFT p50");
    snprintf(names[1], sizeof names[1], "TTFT p%d", pct);
    snprintf(names[2], sizeof names[2], "TPOT p50");
    snprintf(names[3], sizeof names[3], "TPOT p%d", pct);
    /* x: the swept values, on a log axis when they span 8x or more */
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = 0, tmax = 0;
    for (int i = 0; i < n; i++) {
        const struct sim_result *r = &pts[i].result;
        double ys[4] = { r->ttft.p50, at_pct(&r->ttft, pct), r->tpot.p50, at_pct(&r->tpot, pct) };
        xmin = fmin(xmin, pts[i].param);
        xmax = fmax(xmax, pts[i].param);
        for (int k = 0; k < 4; k++)
            if (ys[k] > 0 && isfinite(ys[k])) {
                ymin = fmin(ymin, ys[k] * 1e3);
                ymax = fmax(ymax, ys[k] * 1e3);
            }
        if (isfinite(r->output_tok_s))
            tmax = fmax(tmax, r->output_tok_s);
    }
    double slo_ms[2] = { c->ttft_slo_s * 1e3, c->tpot_slo_s * 1e3 };
    for (int k = 0; k < 2; k++)
        if (slo_ms[k] > 0) {
            ymin = fmin(ymin, slo_ms[k]);
            ymax = fmax(ymax, slo_ms[k]);
        }
    const bool no_latency = !(ymax > 0) || !isfinite(ymin); /* no run completed a request */
    if (no_latency) {
        ymin = 1;
        ymax = 10;
    }
    bool xlog = xmin > 0 && xmax / xmin >= 8;
    struct svg_axis ax = xlog ? svg_axis_log(xmin, xmax) : svg_axis_linear(xmin, xmax, 6);
    struct svg_axis ay = svg_axis_log(ymin / 1.15, ymax * 1.15); /* no line on the frame */
    struct svg_axis at = svg_axis_linear(0, tmax > 0 ? tmax : 1, 5);
#define PX(v) (left + pw * svg_axis_frac(&ax, (v)))
#define PY(v) (top + lat_h * (1.0 - svg_axis_frac(&ay, (v))))
#define PT(v) (top2 + thr_h * (1.0 - svg_axis_frac(&at, (v))))
    sbuf_printf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
                     "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n<title>",
                W, H, W, H);
    svg_escape(out, title);
    sbuf_printf(out, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", W, H);
    sbuf_append(out, "<text x=\"10\" y=\"22\" font-size=\"14\" font-weight=\"bold\">");
    svg_escape(out, title);
    sbuf_append(out, "</text>\n");
    char buf[64];
    /* grids and ticks: x under both panels, y per panel */
    for (int panel = 0; panel < 2; panel++) {
        int y0 = panel ? top2 : top, h = panel ? thr_h : lat_h;
        for (int t = 0; t < ax.nticks; t++) {
            double x = PX(ax.tick[t]);
            sbuf_printf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e5e5e5\"/>\n", x, y0, x, y0 + h);
            sbuf_printf(out, "<text class=\"tick\" data-axis=\"x%d\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                        panel, x, y0 + h + 16, svg_axis_tick_text(&ax, t, buf, sizeof buf));
        }
        const struct svg_axis *a = panel ? &at : &ay;
        for (int t = 0; t < a->nticks; t++) {
            double y = panel ? PT(a->tick[t]) : PY(a->tick[t]);
            sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", left, y,
                        left + pw, y);
            sbuf_printf(out, "<text class=\"tick\" data-axis=\"y%d\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                        panel, left - 6, y + 4, svg_axis_tick_text(a, t, buf, sizeof buf));
        }
        sbuf_printf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333333\"/>\n",
                    left, y0, pw, h);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", left + pw / 2.0, y0 + h + 34);
        svg_escape(out, param_axis(param));
        sbuf_printf(out, "%s</text>\n", xlog ? ", log scale" : "");
        sbuf_printf(out, "<text x=\"18\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 18 %.1f)\">%s</text>\n",
                    y0 + h / 2.0, y0 + h / 2.0, panel ? "output tokens/s" : "latency (ms, log scale)");
    }
    /* overloaded runs shaded in both panels, half-way to their neighbours: their latencies grow with
     * the run's length, so a point under the SLO line there does not meet it (a review found such
     * points read as meeting the SLO, hollow markers alone telling them apart) */
    bool shaded = false;
    for (int i = 0; i < n; i++) {
        if (!pts[i].result.overloaded)
            continue;
        const double xa = i > 0 ? (PX(pts[i - 1].param) + PX(pts[i].param)) / 2 : left;
        const double xb = i + 1 < n ? (PX(pts[i].param) + PX(pts[i + 1].param)) / 2 : left + pw;
        for (int panel = 0; panel < 2; panel++)
            sbuf_printf(out, "<rect class=\"overload\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                             "fill=\"#fbe1e1\"/>\n", xa, panel ? top2 : top, xb > xa ? xb - xa : 0, panel ? thr_h : lat_h);
        if (!shaded)
            sbuf_printf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" fill=\"#b22222\">overloaded</text>\n",
                        xa + 4, top + 14);
        shaded = true;
    }
    if (no_latency)
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#b22222\">no run completed a "
                         "request (every one rejected: see the table's errors), so no latency to draw</text>\n",
                    left + pw / 2.0, top + lat_h / 2.0);
    /* SLO limits: dashed lines in their series' colour, labelled at the right end */
    struct svg_labeler labels = { .n = 0 };
    for (int k = 0; k < 2; k++) {
        if (!(slo_ms[k] > 0))
            continue;
        double y = PY(slo_ms[k]);
        sbuf_printf(out, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
                         "stroke-dasharray=\"8 4\"/>\n", left, y, left + pw, y, colors[2 * k + 1]);
        char lab[64];
        snprintf(lab, sizeof lab, "%s SLO %s ms (p%d)", k ? "TPOT" : "TTFT", svg_tick_text(slo_ms[k], buf, sizeof buf), pct);
        double w = svg_text_width(lab, 11), lx = left + pw - w - 4;
        double ly = svg_label_place(&labels, lx, y - 4, w);
        sbuf_printf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s</text>\n", lx, ly,
                    colors[2 * k + 1], lab);
    }
    /* latency series */
    for (int k = 0; k < 4; k++) {
        sbuf_printf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s%s%s points=\"", colors[k],
                    dash[k][0] ? " stroke-dasharray=\"" : "", dash[k], dash[k][0] ? "\"" : "");
        bool first = true;
        for (int i = 0; i < n; i++) {
            const struct sim_result *r = &pts[i].result;
            double y = k == 0 ? r->ttft.p50 : k == 1 ? at_pct(&r->ttft, pct) : k == 2 ? r->tpot.p50 : at_pct(&r->tpot, pct);
            if (y > 0 && isfinite(y)) {
                sbuf_printf(out, "%s%.1f,%.1f", first ? "" : " ", PX(pts[i].param), PY(y * 1e3));
                first = false;
            }
        }
        sbuf_append(out, "\"/>\n");
        for (int i = 0; i < n; i++) {
            const struct sim_result *r = &pts[i].result;
            double y = k == 0 ? r->ttft.p50 : k == 1 ? at_pct(&r->ttft, pct) : k == 2 ? r->tpot.p50 : at_pct(&r->tpot, pct);
            if (!(y > 0) || !isfinite(y))
                continue;
            /* an overloaded run's point is hollow: its latencies grow with the run's length, not a
             * point of the curve (a review found them drawn as healthy ones) */
            const bool over = r->overloaded;
            sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"%s\"><title>%s = %g: %s %.2f ms%s"
                             "</title></circle>\n", PX(pts[i].param), PY(y * 1e3), over ? "4" : "3", over ? "#ffffff" : colors[k],
                        colors[k], param, pts[i].param, names[k], y * 1e3, over ? " (overloaded)" : "");
        }
    }
    /* throughput */
    sbuf_append(out, "<polyline fill=\"none\" stroke=\"#009E73\" stroke-width=\"2\" points=\"");
    for (int i = 0; i < n; i++)
        sbuf_printf(out, "%s%.1f,%.1f", i ? " " : "", PX(pts[i].param), PT(pts[i].result.output_tok_s));
    sbuf_append(out, "\"/>\n");
    bool any_over = false;
    for (int i = 0; i < n; i++) {
        const bool over = pts[i].result.overloaded;
        any_over |= over;
        sbuf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%s\" fill=\"%s\" stroke=\"#009E73\"><title>%s = %g: %.0f "
                         "output tokens/s, %.3f requests/s%s</title></circle>\n", PX(pts[i].param),
                    PT(pts[i].result.output_tok_s), over ? "4" : "3", over ? "#ffffff" : "#009E73", param, pts[i].param,
                    pts[i].result.output_tok_s, pts[i].result.request_per_s, over ? " (overloaded)" : "");
    }
    /* legend under the latency panel's axis title */
    for (int k = 0; k < 4; k++) {
        int lx = left + k * 150, ly = top + lat_h + 56;
        sbuf_printf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s%s%s/>"
                         "<text x=\"%d\" y=\"%d\">%s</text>\n", lx, ly - 4, lx + 22, ly - 4, colors[k],
                    dash[k][0] ? " stroke-dasharray=\"" : "", dash[k], dash[k][0] ? "\"" : "", lx + 28, ly, names[k]);
    }
    /* on two lines: in one, "...; hollow points: overloaded runs" ran past the 800 px (a review) */
    sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555555\">latency percentiles over the completed "
                     "requests of each run%s</text>\n", left, H - 26,
                slo_ms[0] > 0 || slo_ms[1] > 0 ? "; long-dashed horizontal lines: the SLO limits" : "");
    if (any_over)
        sbuf_printf(out, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555555\">hollow points, shaded: overloaded "
                         "runs, whose latencies grow with the run's length (no SLO is met there)</text>\n", left, H - 12);
    sbuf_append(out, "</svg>\n");
#undef PX
#undef PY
#undef PT
}
