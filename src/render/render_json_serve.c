/* render_json_serve.c - simulate's and plan's JSON documents (see render_json.h). */
#include "render/render_json_internal.h"
#include "render/render_sim.h"
#include "model/ckpt.h"
#include "serve/launch.h"

#include <string.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

static void add_stats(cJSON *o, const char *key, const struct sim_stats *s)
{
    if (s->n == 0) { /* nothing measured (every request rejected): null, never 0 */
        rj_null(o, key);
        return;
    }
    cJSON *x = rj_obj(o, key);
    rj_num(x, "mean", s->mean);
    rj_num(x, "p50", s->p50);
    rj_num(x, "p90", s->p90);
    rj_num(x, "p95", s->p95);
    rj_num(x, "p99", s->p99);
    rj_num(x, "max", s->max);
    rj_num(x, "n", (double)s->n);
}

/* The speculative setting of a run or plan (simulate's and plan's "speculative", docs/json.md):
 * returns the object added to o. */
static cJSON *add_speculative(cJSON *o, const struct sim_config *c, const struct llmroof_dtypes *target)
{
    cJSON *x = rj_obj(o, "speculative");
    rj_str(x, "method", sim_spec_name(c->spec.kind));
    if (c->spec.draft && c->spec.kind == SIM_SPEC_DRAFT)
        rj_str(x, "draft", c->spec.draft->id);
    rj_num(x, "k", c->spec.k);
    if (c->spec.tokens > 0) /* a draft tree (--spec-tree TOPK:TOKENS), as estimate's */
        rj_num(x, "tree_topk", c->spec.topk);
    rj_num(x, "verify_tokens", (double)sim_spec_verify_tokens(&c->spec));
    if (c->spec.kind == SIM_SPEC_EAGLE3)
        rj_num(x, "draft_vocab", (double)c->spec.draft_vocab);
    rj_add_draft_layer(x, &c->spec_head);
    /* a drafter whose weights are not the target's dtype (target: the run's, or plan's), as the
     * header's note */
    const struct llmroof_dtypes ddt = sim_spec_drafter_dtypes(&c->spec, &c->spec_head, target);
    if (ckpt_drafter_apart(target, &ddt))
        rj_str(x, "drafter_weight_dtype", dtype_name(ddt.weight));
    rj_num(x, "acceptance", c->spec.alpha);
    /* a draft tree's expectation is the tree's (the chain formula understated a 4:16 tree's 4.0 as 2.9) */
    rj_num(x, "expected_tokens_per_step", sim_spec_expected_tokens(&c->spec));
    return x;
}

/* Overload, goodput, prefix cache, speculation, instances: present only where they apply. */
static void sim_json_serving(cJSON *o, const struct sim_config *c, const struct sim_result *r)
{
    if (r->open_loop) {
        cJSON *x = rj_obj(o, "load");
        rj_num(x, "window_s", r->window_s);
        /* arrivals at one instant (one request, a trace's burst), or every request rejected for
         * its length, leave no window: its rates are null, not 0 requests/s, and the run is not
         * judged (overloaded false) */
        const bool win = r->window_s > 0;
        const struct { const char *key; double v; } rates[] = {
            { "offered_rate_qps", r->offered_rate_qps },     { "completed_rate_qps", r->sustained_rate_qps },
            { "queue_growth_per_s", r->queue_growth_per_s }, { "window_lives", r->window_lives },
            { "window_busy_share", r->window_busy_share },
        };
        for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
            if (win)
                rj_num(x, rates[i].key, rates[i].v);
            else
                rj_null(x, rates[i].key);
        }
        rj_bool(x, "overloaded", r->overloaded);
        rj_num(x, "waiting_mean", r->window_waiting_mean);
        rj_num(x, "served_mean", r->window_served_mean);
        rj_bool(x, "at_capacity", r->at_capacity);
        /* the text's "overloaded, or still filling its batch" warning, for a reader of the JSON
         * (the web page had called such a point plainly overloaded) */
        rj_bool(x, "may_be_filling", r->overloaded && r->may_be_filling);
        if (r->overloaded && r->may_be_filling)
            rj_num(x, "requests_to_settle", (double)r->requests_to_settle);
    }
    if (r->has_slo) {
        cJSON *x = rj_obj(o, "slo");
        if (c->ttft_slo_s > 0)
            rj_num(x, "ttft_s", c->ttft_slo_s);
        if (c->tpot_slo_s > 0)
            rj_num(x, "tpot_s", c->tpot_slo_s);
        rj_num(x, "percentile", c->slo_percentile);
        rj_num(x, "within", (double)r->within_slo);
        rj_num(x, "within_share", r->within_slo_share);
        rj_num(x, "goodput_qps", r->goodput_qps);
        rj_bool(x, "met", r->slo_met);
        /* what was missed, as the table's note names it */
        static const char *const what[] = { "ttft", "tpot", "errors", "overloaded" };
        cJSON *ms = rj_arr(x, "missed");
        const unsigned miss = sim_slo_missed(c, r);
        for (int i = 0; i < 4; i++)
            if (miss >> i & 1u)
                rj_push(ms, cJSON_CreateString(what[i]));
    }
    if (c->prefix_tokens > 0) {
        cJSON *x = rj_obj(o, "prefix");
        rj_num(x, "tokens", (double)c->prefix_tokens);
        rj_num(x, "groups", (double)c->prefix_groups);
        rj_bool(x, "cache", c->prefix_cache);
        /* why (sim.h pcache_source), as the text header says it (docs/json.md) */
        rj_str(x, "cache_source", c->pcache_source == SIM_PCACHE_OPTION   ? "option"
                                                   : c->pcache_source == SIM_PCACHE_STATIC ? "static"
                                                   : c->pcache_source == SIM_PCACHE_BENCH  ? "bench"
                                                   : c->pcache_source == SIM_PCACHE_ENGINE && c->prefix_cache
                                                       ? "engine"
                                                       : "off-default");
        rj_num(x, "hit_rate", r->prefix_hit_rate);
    }
    if (c->spec.kind != SIM_SPEC_NONE) /* and the run's own mean */
        rj_num(add_speculative(o, c, &c->setup.dt), "tokens_per_step", r->spec_tokens_per_step);
    if (r->ninst > 1 || c->disaggregated) {
        rj_str(o, "router", sim_router_name(c->router));
        if (c->disaggregated) {
            rj_num(o, "kv_link_Bps", c->kv_link_Bps);
            add_stats(o, "kv_transfer_s", &r->kv_transfer);
            add_stats(o, "decode_queue_s", &r->decode_queue);
            /* the wait for decode blocks before the prefill, with pre-allocation only (SGLang) */
            if (r->has_prealloc_wait)
                add_stats(o, "prealloc_wait_s", &r->prealloc_wait);
        }
        cJSON *arr = rj_arr(o, "instances");
        for (int i = 0; i < r->ninst; i++) {
            const struct sim_instance *s = &r->inst[i];
            const struct llmroof_setup *su = sim_pool_setup(c, s->pool);
            cJSON *x = cJSON_CreateObject();
            rj_str(x, "pool", !c->disaggregated ? "aggregated" : s->pool == 0 ? "prefill" : "decode");
            rj_str(x, "gpu", su->gpu->id);
            rj_num(x, "tp", su->tp);
            /* the instance's GPUs and, beyond TP, its own layout (a pool's --prefill-pool
             * N:GPU:TP:ep8+dpa: 8 GPUs at TP 1, which tp alone had read as one) */
            rj_num(x, "gpus", sim_setup_gpus(su));
            {
                const struct llmroof_layout lay = estimate_layout(su);
                struct llmroof_shard sh;
                if (ops_shard_layout(su->model, &lay, &sh, NULL) == LLMROOF_OK)
                    rj_add_layout(x, &sh);
            }
            /* a pool of data-parallel attention ranks: each rank's own budget and limit (the
             * run-wide dp_rank_* are the command's layout's) */
            const int pr = sim_setup_attn_replicas(su);
            if (c->disaggregated && pr > 1 && c->max_batched_tokens > 0) {
                rj_num(x, "dp_rank_max_batched_tokens",
                                        (double)sim_rank_share(c, pr, sim_pool_budget(c, s->pool)));
                rj_num(x, "dp_rank_max_seqs", (double)sim_rank_share(c, pr, c->max_seqs));
            }
            rj_num(x, "requests", (double)s->requests);
            rj_num(x, "utilization", s->utilization);
            rj_num(x, "mean_batch", s->mean_batch);
            rj_num(x, "max_batch", (double)s->max_batch);
            rj_num(x, "kv_util_mean", s->kv_util_mean);
            rj_num(x, "preemptions", (double)s->preemptions);
            rj_num(x, "iterations", (double)s->iterations);
            rj_push(arr, x);
        }
    }
}

static cJSON *sim_json(const struct sim_config *c, const struct sim_result *r, const char *wl, const char *schema,
                       const char *swept)
{
    static const char *const modes[] = { "closed", "rate", "trace", "offline" };
    cJSON *o = rj_new_doc(schema);
    rj_str(o, "model", c->setup.model->id);
    if (c->disaggregated) { /* the pools' own GPUs and TPs are in instances[] */
        rj_null(o, "gpu");
        rj_null(o, "tp");
    } else {
        rj_str(o, "gpu", c->setup.gpu->id);
        rj_num(o, "tp", c->setup.tp);
    }
    if (!c->disaggregated) {
        /* the layout the run served (a disaggregated run's pools each have their own, in
         * instances[]: the command's --ep and --pp had been printed for pools that ran others) */
        const struct llmroof_layout lay = estimate_layout(&c->setup);
        struct llmroof_shard sh;
        if (ops_shard_layout(c->setup.model, &lay, &sh, NULL) == LLMROOF_OK)
            rj_add_layout(o, &sh);
    }
    rj_str(o, "mode", modes[c->mode]);
    /* the load, so that a saved result says which point it is (a review: the JSON had the mode
     * alone, where a benchmark's result file keeps its rate and concurrency); a sweep's points
     * carry the value they sweep under the sweep's name instead (swept: "rate", "concurrency") */
    if (!(swept && !strcmp(swept, "rate")) && c->mode == SIM_RATE && c->rate_qps > 0)
        rj_num(o, "rate_qps", c->rate_qps);
    if (c->mode == SIM_CLOSED) {
        if (!(swept && !strcmp(swept, "concurrency")) && c->concurrency > 0)
            rj_num(o, "users", (double)c->concurrency);
        cJSON *th = rj_arr(o, "think_s");
        if (th) {
            rj_push(th, cJSON_CreateNumber(c->think_min_s));
            rj_push(th, cJSON_CreateNumber(c->think_max_s));
        }
        if (c->ramp_s > 0) /* --ramp-up: absent when every user starts within its first pause */
            rj_num(o, "ramp_up_s", c->ramp_s);
    }
    if (c->warmup_requests > 0) /* --warmup: absent when every request counts */
        rj_num(o, "warmup_requests", (double)c->warmup_requests);
    if (c->span_fixed) /* --fixed-span: absent for a plain Poisson run */
        rj_bool(o, "fixed_span", true);
    rj_str(o, "workload", wl);
    rj_num(o, "max_batched_tokens", (double)c->max_batched_tokens);
    if (c->max_model_len > 0) /* --max-model-len: absent when there is no limit */
        rj_num(o, "max_model_len", (double)c->max_model_len);
    if (c->max_concurrent > 0) /* TGI's --max-concurrent-requests: absent when there is no limit */
        rj_num(o, "max_concurrent_requests", (double)c->max_concurrent);
    rj_num(o, "max_seqs", (double)c->max_seqs);
    /* the two limits above as the engine's own benchmark chose them (trtllm-bench, --no-api-server) */
    if (c->sized_kv_requests != 0) {
        cJSON *z = rj_obj(o, "sized_by");
        rj_str(z, "harness", "trtllm-bench");
        rj_bool(z, "tuned", c->sized_kv_requests > 0);
        if (c->sized_kv_requests > 0)
            rj_num(z, "kv_requests", c->sized_kv_requests);
    }
    /* the two limits above hold per attention DP rank for an engine whose ranks schedule apart */
    const long ranks = sim_setup_rank_factor(c);
    if (ranks > 1)
        rj_num(o, "limits_per_dp_rank", (double)ranks);
    /* data-parallel attention: each rank's own budget and limit, the share of the two above */
    const int reps = sim_setup_attn_replicas(&c->setup);
    if (reps > 1 && c->max_batched_tokens > 0) {
        rj_num(o, "dp_rank_max_batched_tokens", (double)sim_rank_share(c, reps, c->max_batched_tokens));
        rj_num(o, "dp_rank_max_seqs", (double)sim_rank_share(c, reps, c->max_seqs));
    }
    rj_bool(o, "chunked_prefill", c->chunked_prefill);
    if (c->static_batching) /* absent with continuous batching */
        rj_bool(o, "static_batching", true);
    if (c->sched_steps > 1) /* --scheduler-steps: absent without multi-step scheduling */
        rj_num(o, "scheduler_steps", c->sched_steps);
    if (c->recv_interval > 1) /* --recv-interval: decode iterations between takes of new requests */
        rj_num(o, "recv_interval", c->recv_interval);
    if (c->setup.eff.engine_id) { /* the engine profile, and the host speed its CPU costs took */
        rj_str(o, "engine", c->setup.eff.engine_id);
        rj_num(o, "host_cpu_speed", c->setup.eff.cpu_scale > 0 ? 1.0 / c->setup.eff.cpu_scale : 1.0);
        if (c->setup.eff.ray_engine)
            rj_bool(o, "engine_use_ray", true);
        if (c->setup.eff.ray_workers)
            rj_bool(o, "ray_workers", true);
        if (c->no_api_server) /* --no-api-server: the engine's own API, no server streaming */
            rj_bool(o, "no_api_server", true);
    }
    rj_num(o, "requests", (double)r->requests);
    rj_num(o, "completed", (double)r->completed);
    rj_num(o, "errors", (double)r->errors);
    rj_num(o, "refused_busy", (double)r->refused_busy);
    rj_num(o, "error_rate", r->error_rate);
    rj_num(o, "duration_s", r->duration_s);
    add_stats(o, "ttft_s", &r->ttft);
    add_stats(o, "tpot_s", &r->tpot);
    add_stats(o, "itl_s", &r->itl);
    add_stats(o, "e2e_s", &r->e2e);
    rj_num(o, "output_tok_s", r->output_tok_s);
    /* vLLM's and SGLang's benchmark clients print input and total token throughput beside it */
    rj_num(o, "input_tok_s", r->input_tok_s);
    rj_num(o, "total_tok_s", r->input_tok_s + r->output_tok_s);
    rj_num(o, "request_per_s", r->request_per_s);
    rj_num(o, "mean_batch", r->mean_batch);
    rj_num(o, "max_batch", (double)r->max_batch);
    rj_num(o, "kv_util_mean", r->kv_util_mean);
    rj_num(o, "preemptions", (double)r->preemptions);
    if (r->kv_resets > 0)
        rj_num(o, "kv_resets", (double)r->kv_resets);
    if (r->preemptions > 0) { /* what the preemptions cost, and what a caching engine kept of it */
        rj_num(o, "recomputed_tokens", (double)r->recomputed_tokens);
        rj_num(o, "preempt_hit_tokens", (double)r->preempt_hit_tokens);
    }
    rj_num(o, "iterations", (double)r->iterations);
    rj_num(o, "busy_s", r->busy_s); /* the table's busy line (a review) */
    rj_num(o, "mean_in_system", r->mean_in_system);
    rj_num(o, "kv_capacity_tokens", r->kv_capacity_tokens);
    /* the text header's KV line in full (a review: JSON had its tokens alone): the pool's blocks
     * and their size, and the requests of the completed ones' mean length it holds at once (a
     * disaggregated run's decode pool's, as the line says) */
    rj_num(o, "block_size", (double)r->block_size);
    rj_num(o, "kv_blocks_total", (double)r->kv_blocks_total);
    rj_num(o, "kv_requests_at_mean_length", render_sim_requests_at_mean_len(c, r, c->disaggregated ? 1 : -1));
    if (c->disaggregated) {
        /* each pool's own, as the text's KV line: the decode pool's is the one that holds the
         * decoding requests (kv_capacity_tokens adds the two) */
        long blocks[2] = { 0, 0 };
        for (int i = 0; i < r->ninst; i++)
            blocks[r->inst[i].pool == 1] += r->inst[i].kv_blocks_total;
        rj_num(o, "kv_capacity_tokens_decode", (double)blocks[1] * (double)r->block_size);
        rj_num(o, "kv_capacity_tokens_prefill", (double)blocks[0] * (double)r->block_size);
    }
    if (c->kv_blocks > 0) { /* --kv-blocks: the stated pool, beside what memory would have sized */
        rj_num(o, "kv_blocks", (double)c->kv_blocks);
        rj_num(o, "kv_blocks_memory", (double)r->kv_blocks_memory);
    }
    if (r->ninst > 0 && r->inst[0].lanes > 1) /* --pp: each lane holds its share (docs/metrics.md) */
        rj_num(o, "pipeline_lanes", r->inst[0].lanes);
    /* the seed as its digits: cJSON prints numbers with 15 significant digits where they compare
     * equal within its epsilon, so 9007199254740992 read "9.00719925474099e+15" */
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
    rj_raw(o, "seed", seed);
    sim_json_serving(o, c, r);
    return o;
}

char *render_json_sim(const struct sim_config *c, const struct sim_result *r, const char *wl)
{
    return rj_finish(sim_json(c, r, wl, "llmroof.simulate/1", NULL));
}

/* A latency statistic scaled by a band's factor (the --range rows of the table, low and high). */
static void add_stats_scaled(cJSON *o, const char *key, const struct sim_stats *s, double f)
{
    struct sim_stats x = *s;
    x.mean *= f, x.p50 *= f, x.p90 *= f, x.p95 *= f, x.p99 *= f, x.max *= f;
    add_stats(o, key, &x);
}

char *render_json_sim_range(const struct sim_config *c, const struct sim_result *r, const char *wl,
                            const struct llmroof_uncertainty *u)
{
    cJSON *o = sim_json(c, r, wl, "llmroof.simulate/1", NULL);
    /* --range: each latency's statistics times the validation residuals' low and high factors, as
     * the table's "low"/"high" rows (docs/validation.md); a metric without a band is left out */
    cJSON *rg = rj_obj(o, "range");
    /* each band's rows and whose they are: the serving rows' (latency under a load) where
     * data/uncertainty.json has them (cmd_simulate took those in place of the static ones) */
    const struct {
        const char *key;
        const struct sim_stats *s;
        const struct llmroof_band *b;
        bool serving;
    } m[] = { { "ttft_s", &r->ttft, &u->ttft, u->serving_ttft.present },
              { "tpot_s", &r->tpot, &u->tpot, u->serving_tpot.present },
              { "e2e_s", &r->e2e, &u->e2e, u->serving_e2e.present } };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        if (!m[i].b->present)
            continue;
        cJSON *x = rj_obj(rg, m[i].key);
        add_stats_scaled(x, "low", m[i].s, m[i].b->low);
        add_stats_scaled(x, "high", m[i].s, m[i].b->high);
        rj_num(x, "rows", (double)m[i].b->n);
        rj_str(x, "bands", m[i].serving ? "serving" : "static");
    }
    return rj_finish(o);
}

char *render_json_sim_band(const struct sim_config *c, const struct sim_result *r, const char *wl, double band,
                           const struct sim_result *lo, const struct sim_result *hi)
{
    cJSON *o = sim_json(c, r, wl, "llmroof.simulate/1", NULL);
    cJSON *b = rj_obj(o, "capacity_band");
    rj_num(b, "band", band);
    const struct { const char *name; const struct sim_result *x; } side[] = { { "rate_lower", lo }, { "rate_higher", hi } };
    for (int i = 0; i < 2; i++) {
        cJSON *s = rj_obj(b, side[i].name);
        add_stats(s, "ttft_s", &side[i].x->ttft);
        add_stats(s, "tpot_s", &side[i].x->tpot);
        add_stats(s, "itl_s", &side[i].x->itl);
        rj_num(s, "output_tok_s", side[i].x->output_tok_s);
        rj_bool(s, "overloaded", side[i].x->overloaded);
    }
    return rj_finish(o);
}

char *render_json_sim_sweep(const char *param, const struct sim_point *pts, int n, const struct sim_config *c,
                            const char *wl)
{
    cJSON *o = rj_new_doc("llmroof.simulate-sweep/1");
    rj_str(o, "sweep", param);
    cJSON *arr = rj_arr(o, "points");
    for (int i = 0; i < n; i++) {
        cJSON *p = sim_json(c, &pts[i].result, wl, NULL, param);
        /* the swept value replaces the base run's under the same name: a budget sweep's points
         * had carried "max_batched_tokens" twice, the base's 2048 and the point's (a review) */
        if (cJSON_GetObjectItemCaseSensitive(p, param)) {
            cJSON *v = cJSON_CreateNumber(pts[i].param);
            if (!v || !cJSON_ReplaceItemInObjectCaseSensitive(p, param, v)) { /* the base's value would stay */
                cJSON_Delete(v);
                rj_mark(p, NULL);
            } else if (!v->string) { /* cJSON before 1.7.16 does not check the key's copy: "": 512 */
                rj_mark(p, NULL);
            }
        } else
            rj_num(p, param, pts[i].param);
        rj_push(arr, p);
    }
    return rj_finish(o);
}

/* A row's parallelism: the searched mode's name, or for mode 0 the plan's own layout as its flags
 * give it (--ep, --dp-attention, --pp): "tp" there hid an expert-parallel instance */
static const char *parallelism_name(const struct plan_input *in, int mode, char *buf, size_t n)
{
    static const char *const modes[PLAN_MODES] = { "tp", "tp+ep", "dp-attention+ep", "tp+pp", "dp-attention+moe-tp" };
    if (mode > 0 && mode < PLAN_MODES)
        return modes[mode];
    const struct llmroof_layout *l = &in->layout;
    snprintf(buf, n, "%s%s",
             l->dp_attn && l->moe_tp > 1 ? "dp-attention+moe-tp"
             : l->dp_attn                ? "dp-attention+ep"
             : l->ep > 1                 ? "tp+ep"
                                         : "tp",
             l->pp > 1 ? "+pp" : "");
    return buf;
}

static cJSON *plan_option_json(const struct plan_input *in, const struct plan_option *o, bool rate, bool fast)
{
    cJSON *x = cJSON_CreateObject();
    char pb[32], pb2[32];
    rj_str(x, "gpu", o->gpu->id);
    rj_num(x, "tp", o->tp);
    rj_num(x, "gpus_per_node", o->gpus_per_node);
    rj_num(x, "instances_per_node", o->instances_per_node);
    if (o->nodes_per_instance > 1) /* an instance beyond a node: the whole nodes it takes */
        rj_num(x, "nodes_per_instance", o->nodes_per_instance);
    /* users plans: the searched layouts beyond TP, and the plan's own --ep/--dp-attention/--pp */
    if (!rate && ((o->mode > 0 && o->mode < PLAN_MODES) ||
                  (o->mode == 0 && (in->layout.ep > 1 || in->layout.pp > 1 || in->layout.moe_tp > 1))))
        rj_str(x, "parallelism", parallelism_name(in, o->mode, pb, sizeof pb));
    if (rate) {
        rj_str(x, "layout", o->disagg ? "disaggregated" : "aggregated");
        rj_str(x, "parallelism", parallelism_name(in, o->mode, pb, sizeof pb));
        if (o->disagg) {
            rj_str(x, "prefill_parallelism", parallelism_name(in, o->prefill_mode, pb2, sizeof pb2));
            /* an infeasible row's pools were never sized: null, not 0 (a review) */
            if (o->prefill_tp > 0)
                rj_num(x, "prefill_tp", o->prefill_tp);
            else
                rj_null(x, "prefill_tp");
            if (o->feasible) {
                rj_num(x, "prefill_instances", (double)o->prefill_instances);
                rj_num(x, "decode_instances", (double)o->decode_instances);
            } else {
                rj_null(x, "prefill_instances");
                rj_null(x, "decode_instances");
            }
        }
    }
    rj_bool(x, "feasible", o->feasible);
    if (!o->feasible) {
        rj_str(x, "reason", o->reason);
        return x;
    }
    if (rate) {
        rj_num(x, "instances", (double)o->instances);
        rj_num(x, "goodput_qps", o->goodput_qps);
        rj_num(x, "goodput_per_gpu", o->goodput_per_gpu);
        rj_num(x, "preemptions_per_request", o->preempt_per_request);
    } else {
        if (o->nodes_per_instance > 1)
            rj_num(x, "instances", (double)o->instances);
        rj_num(x, "users_per_instance", (double)o->users_per_instance);
        rj_num(x, "users_per_node", (double)o->users_per_node);
        if (fast) /* the analytic model has no scheduler: not zero, unknown */
            rj_null(x, "preemptions_per_request");
        else
            rj_num(x, "preemptions_per_request", o->preempt_per_request);
        if (o->next_users > 0) { /* the load that fails, beside the answer */
            rj_num(x, "next_users", (double)o->next_users);
            rj_num(x, "next_ttft_s", o->next_ttft_s);
            rj_num(x, "next_tpot_s", o->next_tpot_s);
        }
    }
    rj_num(x, "nodes", (double)o->nodes);
    rj_num(x, "gpus", (double)o->gpus);
    rj_num(x, "ttft_s", o->ttft_s);
    rj_num(x, "tpot_s", o->tpot_s);
    rj_str(x, "binding", plan_binding_name(o->binding));
    if (o->has_cost)
        rj_num(x, "cost_per_hour", o->cost_per_hour);
    else
        rj_null(x, "cost_per_hour");
    rj_num(x, "evaluations", o->evaluations);
    if (o->feasible && o->sim_requests > 0) { /* rate plans: the run behind ttft_s and tpot_s */
        rj_num(x, "sim_requests", (double)o->sim_requests);
        rj_num(x, "sim_warmup_requests", (double)o->sim_warmup);
    }
    if (o->feasible && o->fewer_instances > 0) { /* rate plans: one instance fewer, what it missed */
        rj_num(x, "fewer_instances", (double)o->fewer_instances);
        if (!o->fewer_by_bound) { /* the run that missed, reproducible (an overloaded one's
                                     percentiles say little: its binding says overload) */
            rj_num(x, "fewer_sim_requests", (double)o->fewer_sim_requests);
            rj_num(x, "fewer_sim_warmup_requests", (double)o->fewer_sim_warmup);
            if (o->binding != PLAN_BIND_LOAD) {
                rj_num(x, "fewer_ttft_s", o->fewer_ttft_s);
                rj_num(x, "fewer_tpot_s", o->fewer_tpot_s);
            }
        }
    }
    return x;
}

/* A feasible row's engine commands (serve/launch.h): [{engine, role, instances,
 * gpus_per_instance, command, note}]. */
static void add_launch(cJSON *row, const struct plan_input *in, const struct plan_option *o)
{
    if (!row || !o->feasible)
        return;
    struct launch_set ls;
    launch_build(in, o, &ls);
    cJSON *arr = rj_arr(row, "launch");
    for (int i = 0; arr && i < ls.n; i++) {
        cJSON *c = cJSON_CreateObject();
        rj_str(c, "engine", ls.c[i].engine);
        rj_str(c, "role", ls.c[i].role);
        rj_num(c, "instances", (double)ls.c[i].instances);
        rj_num(c, "gpus_per_instance", ls.c[i].gpus_per_instance);
        rj_str(c, "command", ls.c[i].cmd);
        rj_str(c, "note", ls.c[i].note);
        rj_push(arr, c);
    }
}

static cJSON *plan_row_json(const struct plan_input *in, const struct plan_option *o)
{
    cJSON *row = plan_option_json(in, o, in->rate_qps > 0, in->fast);
    if (o->disagg && o->kv_link_Bps > 0)
        rj_num(row, "kv_link_Bps", o->kv_link_Bps);
    add_launch(row, in, o);
    return row;
}

char *render_json_plan(const struct plan_input *in, const struct plan_result *r)
{
    cJSON *o = rj_new_doc("llmroof.plan/1");
    rj_str(o, "model", in->model->id);
    if (in->rate_qps > 0)
        rj_num(o, "rate_qps", in->rate_qps);
    else
        rj_num(o, "users", (double)in->users);
    rj_num(o, "ttft_slo_s", in->ttft_slo_s);
    rj_num(o, "tpot_slo_s", in->tpot_slo_s);
    rj_num(o, "percentile", in->percentile);
    /* what the rows' ttft_s and tpot_s are: --fast's analytic means, else the percentile's (a
     * review read "percentile": 90 beside --fast's means) */
    if (in->fast) {
        rj_str(o, "statistic", "mean");
    } else {
        char st[8];
        snprintf(st, sizeof st, "p%d", in->percentile);
        rj_str(o, "statistic", st);
    }
    /* what the plan assumed, as simulate's JSON says it: the engine profile (null: the generic
     * scheduler), the workload and, for users, their pause */
    if (in->eff.engine)
        rj_str(o, "engine", in->eff.engine->id);
    else
        rj_null(o, "engine");
    if (in->workload_name)
        rj_str(o, "workload", in->workload_name);
    if (in->rate_qps <= 0) {
        cJSON *th = rj_arr(o, "think_s");
        if (th) {
            rj_push(th, cJSON_CreateNumber(in->sim.think_min_s));
            rj_push(th, cJSON_CreateNumber(in->sim.think_max_s));
        }
    }
    if (in->rate_qps > 0) /* disaggregated rows carry their link's bandwidth */
        rj_str(o, "kv_link", in->kv_link ? in->kv_link : "auto");
    /* the node size every row shares (--gpus-per-node, or the GPUs' common catalog value); each
     * option carries its own */
    const int gpn = plan_shared_node_gpus(in);
    if (gpn > 0)
        rj_num(o, "gpus_per_node", gpn);
    rj_bool(o, "fast", in->fast);
    if (in->sim.spec.kind != SIM_SPEC_NONE) /* --spec: every row's instances speculate (docs/planning.md) */
        add_speculative(o, &in->sim, &in->dt);
    char seed[24]; /* as simulate's: its digits */
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)in->sim.seed);
    rj_raw(o, "seed", seed);
    cJSON *arr = rj_arr(o, "options");
    for (int i = 0; i < r->noptions; i++)
        rj_push(arr, plan_row_json(in, &r->options[i]));
    if (r->best >= 0)
        rj_item(o, "best", plan_row_json(in, &r->options[r->best]));
    else
        rj_null(o, "best");
    rj_bool(o, "best_by_cost", r->by_cost);
    cJSON *bpg = rj_obj(o, "best_per_gpu");
    for (int g = 0; g < in->ngpus; g++) {
        if (r->best_per_gpu[g] >= 0)
            /* the same row as "best" and "options" give it: its link and launch commands too */
            rj_item(bpg, in->gpus[g]->id, plan_row_json(in, &r->options[r->best_per_gpu[g]]));
        else
            rj_null(bpg, in->gpus[g]->id);
    }
    cJSON *obs = rj_arr(o, "observations");
    for (int i = 0; i < r->nobs; i++)
        rj_push(obs, cJSON_CreateString(r->obs[i]));
    return rj_finish(o);
}
