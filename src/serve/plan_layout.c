/* plan_layout.c - the layouts a plan searches: their codes, an instance's setup, GPUs, nodes and
 * scheduler limits, the checks that rule a layout out, and its name (docs/planning.md). */
#include "serve/plan_internal.h"
#include "model/arch.h"
#include "model/ckpt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void plan_mean_lengths(const struct workload *w, uint64_t seed, double *p, double *o, double *held)
{
    struct llmroof_rng r;
    rng_seed(&r, seed ^ 0x5eedull);
    double sp = 0, so = 0, sh = 0;
    const int n = w->kind == WORKLOAD_FIXED ? 1 : 20000;
    for (int i = 0; i < n; i++) {
        long a, b;
        workload_sample(w, &r, &a, &b);
        sp += (double)a;
        so += (double)b;
        sh += (double)b * ((double)a + 0.5 * (double)b);
    }
    *p = sp / n;
    *o = so / n;
    if (held)
        *held = so > 0 ? sh / so : *p + 0.5 * *o;
}

double plan_output_cv(const struct workload *w, uint64_t seed, double *mean_out)
{
    if (mean_out)
        *mean_out = 0;
    if (!w)
        return 0.0;
    struct llmroof_rng r;
    rng_seed(&r, seed ^ 0x5eedull);
    double s = 0, s2 = 0;
    const int n = workload_one_length(w) ? 1 : 20000;
    for (int i = 0; i < n; i++) {
        long a, b;
        workload_sample(w, &r, &a, &b);
        s += (double)b;
        s2 += (double)b * (double)b;
    }
    const double mean = s / n, var = s2 / n - mean * mean;
    if (mean_out)
        *mean_out = mean;
    return n > 1 && mean > 0 && var > 0 ? sqrt(var) / mean : 0.0;
}

struct sim_config plan_sim_config(const struct plan_input *in, const struct llmroof_gpu *g)
{
    struct sim_config c = in->sim;
    c.setup.model = in->model; /* the engine's budget may follow the model's context */
    sim_config_engine(&c, in->eff.engine, g, in->keep_budget, in->keep_seqs);
    return c;
}

double plan_kv_link_Bps(const struct plan_input *in, const struct llmroof_setup *sp, long n_p,
                        const struct llmroof_setup *sd, long n_d)
{
    const long total = n_p * sim_setup_gpus(sp) + (n_d > 0 ? n_d : 1) * sim_setup_gpus(sd);
    return sim_kv_link_Bps(in->kv_link_kind, in->kv_link_rate_Bps, sp, total);
}

void plan_instance_limits(const struct plan_input *in, const struct llmroof_gpu *g, int attn_dp, long *max_seqs,
                          long *max_batched_tokens)
{
    const struct sim_config c = plan_sim_config(in, g);
    /* each attention rank schedules alone with its share (sim.c engine_init): the instance holds
     * the ranks' shares together */
    const long n = attn_dp > 1 ? attn_dp : 1;
    *max_seqs = sim_rank_share(&c, (int)n, c.max_seqs) * n;
    *max_batched_tokens = sim_rank_share(&c, (int)n, c.max_batched_tokens) * n;
}

/* The running-sequence limit of a whole instance of layout `code` on g: each attention rank's
 * share times the ranks (sim.c), the limit without data-parallel attention. */
long plan_instance_max_seqs(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    const struct llmroof_setup s = plan_setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    struct llmroof_shard sh;
    long seqs = 0, toks = 0;
    plan_instance_limits(in, g, ops_shard_layout(in->model, &lay, &sh, NULL) == 0 ? sh.attn_dp : 1, &seqs, &toks);
    return seqs;
}

/* Memory options of an instance on g (as sim.c sizes them): the workspace of the whole
 * instance's budget, which memory_eval_layout shares over its attention ranks. */
struct llmroof_mem_opts plan_mem_opts(const struct plan_input *in, const struct llmroof_gpu *g, int attn_dp)
{
    long seqs, toks;
    plan_instance_limits(in, g, attn_dp, &seqs, &toks);
    /* with the engine's KV pool rule (its mem_util, kv_of_free_memory), as the simulated rows */
    struct llmroof_mem_opts mo = plan_sim_config(in, g).mem;
    mo.max_batched_tokens = (double)toks;
    mo.max_seqs = (double)seqs;
    /* a speculating instance as the simulator sizes a decoding one (sim.c engine_init): SGLang's
     * larger reserve beside a drafter, and a hybrid model's states per draft position */
    mo.speculative = in->sim.spec.kind != SIM_SPEC_NONE;
    mo.spec_states = sim_spec_state_copies(&in->sim.spec);
    return mo;
}

/* The memory of one instance of layout `code` on g at a context of ctx tokens, as the simulator
 * holds it: the plan's KV pool rule (plan_mem_opts) and, under speculative decoding, the drafter's
 * weights and cache out of the pool on every GPU (memory_drafter, a decoding instance's: an
 * aggregated one or the decode pool; a prefill pool holds no more). *drafter_bytes: the drafter's
 * weights per GPU, 0 without one. Returns memory_eval_layout's or memory_drafter's error. */
int plan_instance_memory(const struct plan_input *in, const struct llmroof_gpu *g, int code, long ctx,
                         struct llmroof_memory *mem, double *drafter_bytes, struct llmroof_err *err)
{
    *drafter_bytes = 0.0;
    const struct llmroof_setup s = plan_setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    struct llmroof_shard sh;
    int rc = ops_shard_layout(in->model, &lay, &sh, err);
    if (rc)
        return rc;
    struct llmroof_mem_opts mo = plan_mem_opts(in, g, sh.attn_dp);
    if ((rc = memory_eval_layout(in->model, g, &lay, &in->dt, ctx, &mo, mem, err)) ||
        in->sim.spec.kind == SIM_SPEC_NONE)
        return rc;
    /* the drafter beside the target, on every GPU of a decoding instance (the simulator's rule:
     * memory_drafter, as engine_init takes it out of the KV pool) */
    const struct llmroof_spec_decode sd = sim_spec_decode(&in->sim.spec, &in->sim.spec_head);
    if ((rc = memory_drafter(&s, &sh, mem, &mo, &sd, false, &mo.drafter_bytes, &mo.drafter_kv_bytes, err)))
        return rc;
    *drafter_bytes = mo.drafter_bytes;
    return memory_eval_layout(in->model, g, &lay, &in->dt, ctx, &mo, mem, err);
}

/* Mode 0 is the plan's own layout (--pp/--ep/--dp-attention applied with every TP, or TP only);
 * modes 1 to 4 are tried for MoE models only when no layout was given. */
struct llmroof_setup plan_setup_for(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    int n = lay_n(code), mode = lay_mode(code);
    struct llmroof_layout lay = in->layout;
    if (mode >= 1) {
        memset(&lay, 0, sizeof lay);
        lay.ep = mode == 3 || mode == 4 ? 1 : n;
        lay.dp_attn = mode == 2 || mode == 4;
        lay.moe_tp = mode == 4 ? n : 0;
        lay.pp = mode == 3 ? 2 : 1;
    }
    lay.tp = mode == 2 || mode == 4 ? 1 : n;
    /* the engine's graph limit on this GPU at this TP (SGLang's cuda_graph_max_bs by GPU memory),
     * as simulate sets up its instances */
    /* the compute dtype on this GPU: fp8 weights run W8A8 where it has fp8, as estimate and
     * simulate take them and the launch line's --quantization fp8 runs them (ckpt_gpu_dtypes) */
    const struct llmroof_dtypes dt = ckpt_gpu_dtypes(in->model, in->dt, in->weight_given, in->act_given, g);
    return (struct llmroof_setup){ in->model, g, lay.tp, dt, roofline_effs_tp(g, &in->eff, lay.tp), lay };
}

/* GPUs of one instance of layout `code`: for the plan's own layout (ep when ep > 1, else tp) x pp;
 * the searched expert-parallel layouts use n. */
int plan_inst_gpus(const struct plan_input *in, int code)
{
    if (lay_mode(code) == 3)
        return 2 * lay_n(code);
    if (lay_mode(code) != 0)
        return lay_n(code);
    return ops_layout_gpus(&in->layout, lay_n(code));
}

/* GPUs in one node of GPU g: --gpus-per-node where given, else the catalog's usual server for that
 * GPU (8 for an HGX H100, 4 for an A10G instance, 1 for a GH200 superchip). */
int plan_node_gpus(const struct plan_input *in, const struct llmroof_gpu *g)
{
    return in->node_set || !g || g->gpus_per_node < 1 ? in->gpus_per_node : g->gpus_per_node;
}

int plan_shared_node_gpus(const struct plan_input *in)
{
    const int gpn = plan_node_gpus(in, in->ngpus > 0 ? in->gpus[0] : NULL);
    for (int gi = 1; gi < in->ngpus; gi++)
        if (plan_node_gpus(in, in->gpus[gi]) != gpn)
            return 0;
    return gpn;
}

/* Whole nodes one instance of `ig` GPUs takes: 1 when it fits in a node (several may share
 * it), else ceil(ig / node): an instance beyond a node owns its nodes, and the model layer
 * costs its collectives beyond the NVLink domain on the network (docs/model.md section 10). */
int plan_node_span(const struct plan_input *in, const struct llmroof_gpu *g, int ig)
{
    const int gpn = plan_node_gpus(in, g);
    return ig > gpn ? (ig + gpn - 1) / gpn : 1;
}

/* Nodes and GPUs of `inst` instances of layout `code`, added to *packed_gpus (instances within
 * a node, packed into shared nodes later) or *nodes and *gpus (instances spanning whole nodes). */
static void pool_size(const struct plan_input *in, const struct llmroof_gpu *g, long inst, int code, long *packed_gpus,
                      long *nodes, long *gpus)
{
    const int ig = plan_inst_gpus(in, code), span = plan_node_span(in, g, ig);
    if (span > 1) {
        *nodes += inst * span;
        *gpus += inst * span * plan_node_gpus(in, g);
    } else {
        *packed_gpus += inst * ig;
    }
}

/* GPUs of a pool of a instances of layout code_a plus b of code_b (b = 0: none): instances
 * within a node pack into shared nodes (counted by their GPUs), instances beyond a node take
 * whole ones. The count rate_fill reports, and the planner's pruning compares. */
long plan_pools_gpus(const struct plan_input *in, const struct llmroof_gpu *g, int code_a, long a, int code_b, long b,
                     long *nodes_out)
{
    long packed = 0, nodes = 0, gpus = 0;
    pool_size(in, g, a, code_a, &packed, &nodes, &gpus);
    if (b > 0)
        pool_size(in, g, b, code_b, &packed, &nodes, &gpus);
    const long gpn = plan_node_gpus(in, g);
    if (nodes_out)
        *nodes_out = nodes + (packed + gpn - 1) / gpn;
    return gpus + packed;
}

/* Why model on tp x g cannot serve at all ("" when it can). */
int plan_layout_check(const struct plan_input *in, const struct llmroof_gpu *g, int code, char *reason, size_t n,
                      struct llmroof_err *err)
{
    struct llmroof_err e2 = { 0 };
    struct llmroof_shard sh;
    reason[0] = '\0';
    const int tp = lay_n(code), ig = plan_inst_gpus(in, code);
    struct llmroof_setup s = plan_setup_for(in, g, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    /* the layout's own rules first (a TP that does not divide --moe-tp 3 had read as an instance
     * of 3 GPUs that does not divide a node: a review) */
    if (ops_shard_layout(in->model, &lay, &sh, &e2)) {
        snprintf(reason, n, "%s", e2.msg);
        return LLMROOF_OK;
    }
    /* an instance beyond a node takes whole nodes (plan_node_span); one within a node must divide it */
    const int gpn = plan_node_gpus(in, g);
    if (ig <= gpn && gpn % ig != 0) {
        if (ig != tp)
            snprintf(reason, n, "an instance of %d GPUs (layout beyond TP %d) does not divide the %d GPUs of a node",
                     ig, tp, gpn);
        else
            snprintf(reason, n, "TP %d does not divide the %d GPUs of a node", tp, gpn);
        return LLMROOF_OK;
    }
    if (estimate_check(&s, &e2)) {
        snprintf(reason, n, "%s", e2.msg);
        return LLMROOF_OK;
    }
    struct llmroof_mem_opts mo = plan_mem_opts(in, g, sh.attn_dp);
    struct llmroof_memory mem;
    int rc = memory_eval_layout(in->model, g, &lay, &in->dt, 1, &mo, &mem, err);
    if (rc)
        return rc;
    const double gib = 1073741824.0;
    if (mem.fit == LLMROOF_FIT_WEIGHTS || mem.kv_capacity_tokens < 1) {
        /* the sum the words name, as memory's "needs ... of weights + workspace + reserve": the
         * weights alone had read "15.0 GiB per GPU with workspace and reserve, 71.3 GiB usable"
         * under --reserve 100GiB */
        snprintf(reason, n, "the weights do not fit: %.1f GiB per GPU with workspace and reserve, %.1f GiB usable",
                 (mem.weights_bytes_per_gpu + mem.workspace_bytes_per_gpu + mem.reserve_bytes_per_gpu) / gib,
                 mem.usable_bytes / gib);
        return LLMROOF_OK;
    }
    if (in->sim.spec.kind == SIM_SPEC_NONE)
        return LLMROOF_OK;
    /* the engines run no drafter under pipeline parallelism: vLLM ("speculative decoding in vLLM is
     * not compatible with pipeline parallelism", docs/features/spec_decode.md, v0.10) and SGLang
     * ("Pipeline parallelism is not compatible with overlap schedule, speculative decoding",
     * server_args validation) refuse the pair; the simulator would cost it all the same */
    if (sh.pp > 1) {
        snprintf(reason, n, "speculative decoding under pipeline parallelism: vLLM and SGLang refuse the pair");
        return LLMROOF_OK;
    }
    /* speculative decoding: a verification pass of every running sequence's drafts must fit one
     * rank's token budget (the simulator refuses the run otherwise: sim.c engine_init), and the
     * drafter its memory beside the target (a head of its own shape that the TP does not split, a
     * draft model that does not fit) */
    long seqs = 0, toks = 0;
    plan_instance_limits(in, g, sh.attn_dp, &seqs, &toks);
    const long ranks = sh.attn_dp > 1 ? sh.attn_dp : 1, verify = sim_spec_verify_tokens(&in->sim.spec);
    if (toks / ranks < verify) {
        snprintf(reason, n, "a verification pass of %ld tokens does not fit the token budget of %ld%s", verify,
                 toks / ranks, ranks > 1 ? " per data-parallel attention replica" : "");
        return LLMROOF_OK;
    }
    struct llmroof_err e3 = { 0 };
    double drafter = 0;
    if ((rc = plan_instance_memory(in, g, code, 1, &mem, &drafter, &e3))) {
        if (rc != LLMROOF_EINPUT) {
            *err = e3;
            return rc;
        }
        snprintf(reason, n, "%s", e3.msg);
        return LLMROOF_OK;
    }
    if (mem.kv_capacity_tokens < 1)
        snprintf(reason, n, "the %s does not fit beside the weights: %.1f GiB per GPU with the drafter's %.2f GiB, "
                            "workspace and reserve, %.1f GiB usable",
                 in->sim.spec.kind == SIM_SPEC_DRAFT ? "draft model" : "draft head",
                 (mem.weights_bytes_per_gpu + drafter + mem.workspace_bytes_per_gpu + mem.reserve_bytes_per_gpu) / gib,
                 drafter / gib, mem.usable_bytes / gib);
    return LLMROOF_OK;
}

int plan_check_gpus(const struct plan_input *in, struct llmroof_err *err)
{
    /* the plain TP-1 row of each GPU, the layout flags aside: those are checked as flags */
    struct plan_input one = *in;
    memset(&one.layout, 0, sizeof one.layout);
    char first[sizeof err->msg] = "";
    for (int i = 0; i < in->ngpus; i++) {
        const struct llmroof_setup s = plan_setup_for(&one, in->gpus[i], LAY(1, 0));
        struct llmroof_err e = { 0 };
        if (!estimate_check(&s, &e)) {
            /* a reserve (--reserve, per GPU) past what the GPU's pool may use leaves nothing at
             * any TP: "the weights do not fit" on every row had exited 1 */
            const struct llmroof_layout lay = estimate_layout(&s);
            const struct llmroof_mem_opts mo = plan_mem_opts(&one, in->gpus[i], 1);
            struct llmroof_memory mem;
            if (!in->sim.user_reserve || memory_eval_layout(in->model, in->gpus[i], &lay, &in->dt, 1, &mo, &mem, &e) ||
                mem.reserve_bytes_per_gpu < mem.usable_bytes)
                return LLMROOF_OK; /* a default reserve past a small GPU: that GPU is too small (exit 1) */
            snprintf(e.msg, sizeof e.msg, "option '--reserve': %.1f GiB per GPU is not below the %.1f GiB that %s's "
                                          "pool may use at this memory utilization; nothing is left for weights at "
                                          "any TP",
                     mem.reserve_bytes_per_gpu / 1073741824.0, mem.usable_bytes / 1073741824.0, in->gpus[i]->id);
        }
        if (i == 0)
            snprintf(first, sizeof first, "%s", e.msg);
    }
    if (in->ngpus > 1)
        return llmroof_err_set(err, LLMROOF_EINPUT, "%s; and none of the other %d GPU%s given runs it either",
                               first, in->ngpus - 1, in->ngpus == 2 ? "" : "s");
    return llmroof_err_set(err, LLMROOF_EINPUT, "%s", first);
}

struct plan_option *plan_new_option(struct plan_result *out, const struct plan_input *in, int gi, int code)
{
    struct plan_option *o = &out->options[out->noptions++];
    memset(o, 0, sizeof *o);
    o->gpu = in->gpus[gi];
    o->gpu_index = gi;
    o->tp = lay_n(code);
    o->mode = lay_mode(code);
    o->binding = PLAN_BIND_NONE;
    const int ig = plan_inst_gpus(in, code);
    o->gpus_per_node = plan_node_gpus(in, o->gpu);
    o->nodes_per_instance = plan_node_span(in, o->gpu, ig);
    o->instances_per_node = ig <= o->gpus_per_node && o->gpus_per_node % ig == 0 ? o->gpus_per_node / ig : 0;
    plan_layout_label(in, o->tp, o->mode, o->layout, sizeof o->layout);
    return o;
}

/* Whether n GPUs split every expert's width, and the dense MLP's where the model has dense
 * layers, into equal slices: the layouts --moe-tp accepts. */
static bool moe_tp_divides(const struct llmroof_model *m, int n)
{
    return n > 1 && m->moe_intermediate > 0 && m->moe_intermediate % n == 0 &&
           (arch_dense_layers(m) == 0 || m->intermediate % n == 0);
}

static int plan_codes_all(const struct plan_input *in, int *codes);

/* The layouts a plan searches: every n of the TP list as given (mode 0); for an MoE model
 * without a layout of its own also TP+EP, DP-attention+EP and DP-attention with the experts
 * split by width over n ranks, and TP n x PP 2 where the layers split into two equal stages.
 * Returns the count. */
int plan_codes(const struct plan_input *in, int *codes)
{
    int ncodes = plan_codes_all(in, codes);
    /* an engine that runs an instance on few GPUs (calm: one) drops the layouts beyond them: TP n x
     * PP 2 at a TP it runs (cmd_plan keeps only those TPs) */
    const long max = in->eff.engine ? in->eff.engine->max_gpus : 0;
    int kept = 0;
    for (int i = 0; i < ncodes; i++)
        if (!(max > 0) || plan_inst_gpus(in, codes[i]) <= max)
            codes[kept++] = codes[i];
    return kept;
}

static int plan_codes_all(const struct plan_input *in, int *codes)
{
    int ncodes = 0;
    const bool own = in->layout.ep > 1 || in->layout.pp > 1 || in->layout.dp_attn || in->layout.moe_tp > 1;
    const bool search = in->model->moe_experts > 0 && !own;
    for (int ti = 0; ti < in->ntps; ti++) {
        codes[ncodes++] = LAY(in->tps[ti], 0);
        if (search && in->tps[ti] > 1) {
            /* expert parallelism (TP + EP, DPA + EP) only where the engine runs it (a review:
             * vLLM 0.6's plan picked TP-8+EP-8, a layout it could not launch) */
            const bool ep = !in->eff.engine || in->eff.engine->expert_parallel;
            if (ep)
                codes[ncodes++] = LAY(in->tps[ti], 1);
            /* data-parallel attention only where the engine runs it */
            if (!in->eff.engine || in->eff.engine->dp_attention) {
                if (ep)
                    codes[ncodes++] = LAY(in->tps[ti], 2);
                /* the experts split by width: only where n divides every MLP's width, as
                 * --moe-tp requires (ops_shard_layout) */
                if (moe_tp_divides(in->model, in->tps[ti]))
                    codes[ncodes++] = LAY(in->tps[ti], 4);
            }
        }
        if (search && in->model->layers % 2 == 0)
            codes[ncodes++] = LAY(in->tps[ti], 3);
    }
    return ncodes;
}

/* Weights and KV per GPU of a feasible option, and the communication share of a decode step at
 * a batch of the instance's users (batch; 0 for a rate plan: the instance's sequence limit),
 * capped at its KV-cache limit: the figures the observations give
 * for why one layout serves more per GPU than another. */
int plan_option_figures(const struct plan_input *in, int code, long batch, struct plan_option *o,
                        struct llmroof_err *err)
{
    struct llmroof_setup s = plan_setup_for(in, o->gpu, code);
    const struct llmroof_layout lay = estimate_layout(&s);
    struct llmroof_shard sh;
    int rc = ops_shard_layout(in->model, &lay, &sh, err);
    if (rc)
        return rc;
    struct llmroof_mem_opts mo = plan_mem_opts(in, o->gpu, sh.attn_dp);
    struct llmroof_memory mem;
    double P = in->mean_prompt, O = in->mean_output;
    if (!(P > 0 && O > 0))
        plan_mean_lengths(in->sim.workload, in->sim.seed, &P, &O, NULL);
    long ctx = (long)(P + O);
    double drafter = 0; /* a speculating instance's drafter: its weights come out of the KV cache */
    if ((rc = plan_instance_memory(in, o->gpu, code, ctx > 0 ? ctx : 1, &mem, &drafter, err)))
        return rc;
    const int ig = plan_inst_gpus(in, code);
    o->weights_bytes_per_gpu = mem.weights_bytes_per_gpu + drafter;
    o->kv_tokens_per_gpu = mem.kv_capacity_tokens / ig;
    long b = batch < 1 ? (long)mo.max_seqs : batch; /* 0: the instance's sequence limit */
    if (mem.max_batch >= 1 && (double)b > mem.max_batch)
        b = (long)mem.max_batch;
    struct llmroof_request req = { b, P > 1 ? (long)P : 1, O > 2 ? (long)O : 2 };
    struct llmroof_estimate e;
    /* the decode step the instance runs: with speculative decoding its verification pass (and the
     * drafter's), as estimate --spec costs it */
    const struct llmroof_spec_decode sd =
        in->sim.spec.kind != SIM_SPEC_NONE ? sim_spec_decode(&in->sim.spec, &in->sim.spec_head)
                                           : (struct llmroof_spec_decode){ 0 };
    if ((rc = estimate_run_spec(&s, &req, in->sim.spec.kind != SIM_SPEC_NONE ? &sd : NULL, &e, err)))
        return rc;
    o->decode_comm_share = estimate_comm_share(&e.decode);
    o->attn_dp = sh.attn_dp > 1;
    return LLMROOF_OK;
}

/* A floor on any request's TPOT on layout `code`: one sequence's decode step alone at a context
 * of one token (every decode step of a request costs at least that: more sequences and longer
 * contexts only add work; TPOT is the mean of a request's steps). Speculative decoding emits
 * several tokens per step: no floor (0). */
double plan_tpot_floor_s(const struct plan_input *in, const struct llmroof_gpu *g, int code)
{
    struct llmroof_setup s;
    struct llmroof_layout lay;
    struct llmroof_shard sh;
    struct llmroof_err e2 = { 0 };
    if (!plan_pool_shard(in, g, code, &s, &lay, &sh, &e2))
        return 0;
    struct llmroof_batch b = batch_decode(1, 1);
    return sim_step_time(&s, &sh, &b);
}

void plan_layout_name(int n, int mode, char *buf, size_t size)
{
    if (mode == 3)
        snprintf(buf, size, "TP-%d+PP-2", n);
    else if (mode == 1)
        snprintf(buf, size, "TP-%d+EP-%d", n, n);
    else if (mode == 2)
        snprintf(buf, size, "DPA-%d+EP-%d", n, n);
    else if (mode == 4)
        snprintf(buf, size, "DPA-%d+MoETP-%d", n, n);
    else
        snprintf(buf, size, "TP-%d", n);
}

/* A layout's name as the plan runs it: mode 0 is the plan's own layout, named from it
 * (`--ep 8 --dp-attention` is "DPA-8+EP-8", `--pp 2` with TP 4 "TP-4+PP-2", issue 22 item 3:
 * it was "TP-1" for an 8-GPU instance); the searched modes as plan_layout_name. */
void plan_layout_label(const struct plan_input *in, int n, int mode, char *buf, size_t size)
{
    const struct llmroof_layout *l = &in->layout;
    if (mode != 0 || !(l->ep > 1 || l->pp > 1 || l->dp_attn || l->moe_tp > 1)) {
        plan_layout_name(n, mode, buf, size);
        return;
    }
    char pp[16] = "";
    if (l->pp > 1)
        snprintf(pp, sizeof pp, "+PP-%d", l->pp);
    /* a TP that does not divide the group has no replica count (DPA-0 and DPA-1 of --moe-tp 3 had
     * named layouts that cannot exist: a review); its row says why */
    if (l->dp_attn && l->moe_tp > 1 && n > 0 && l->moe_tp % n != 0)
        snprintf(buf, size, "TP-%d+MoETP-%d%s", n, l->moe_tp, pp);
    else if (l->dp_attn && l->moe_tp > 1 && n > 0)
        snprintf(buf, size, "DPA-%d+MoETP-%d%s", l->moe_tp / n, l->moe_tp, pp);
    else if (l->dp_attn && l->ep > 1 && n > 0 && l->ep % n == 0) /* the replicas (vLLM's --data-parallel-size), then the experts' GPUs */
        snprintf(buf, size, "DPA-%d+EP-%d%s", l->ep / n, l->ep, pp);
    else if (l->dp_attn && !(l->ep > 1 && n > 0))
        snprintf(buf, size, "DPA-%d+EP-%d%s", n, n, pp);
    else if (l->ep > 1) /* without --dp-attention, or a TP that does not divide --ep */
        snprintf(buf, size, "TP-%d+EP-%d%s", n, l->ep, pp);
    else
        snprintf(buf, size, "TP-%d%s", n, pp);
}

void plan_describe(const struct plan_input *in, const struct plan_option *o, char *buf, size_t n)
{
    char a[32], b[32];
    plan_layout_label(in, o->prefill_tp, o->prefill_mode, a, sizeof a);
    plan_layout_label(in, o->tp, o->mode, b, sizeof b);
    if (o->disagg)
        snprintf(buf, n, "disaggregated %ld x %s prefill + %ld x %s decode on %s (%ld:%ld, %ld GPU%s)",
                 o->prefill_instances, a, o->decode_instances, b, o->gpu->id, o->prefill_instances, o->decode_instances,
                 o->gpus, o->gpus == 1 ? "" : "s");
    else
        snprintf(buf, n, "aggregated %ld x %s on %s (%ld GPU%s)", o->instances, b, o->gpu->id, o->gpus,
                 o->gpus == 1 ? "" : "s");
}
