/* report.c - GPU x TP comparison and its observations (see llmroof/report.h). */
#include "render/report.h"
#include "model/ckpt.h"

#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const cat_names[REPORT_CAT_COUNT] = {
    "qkv_proj", "attention", "kv_write", "o_proj", "ffn", "router", "norm", "all_reduce", "all_to_all",
    "pp_send", "lm_head",
    "all_gather", "mlp_gather", "overhead"
};

const char *report_cat_name(enum report_cat c)
{
    return (c >= 0 && c < REPORT_CAT_COUNT) ? cat_names[c] : "?";
}

static enum report_cat cat_of(enum llmroof_opkind k)
{
    switch (k) {
    case LLMROOF_OP_NORM:
    case LLMROOF_OP_FINAL_NORM: return REPORT_NORM;
    case LLMROOF_OP_QKV_PROJ: return REPORT_QKV;
    case LLMROOF_OP_KV_WRITE: return REPORT_KV_WRITE;
    case LLMROOF_OP_ATTENTION:
    case LLMROOF_OP_ATTN_LOCAL:
    case LLMROOF_OP_MLA_KV_UP:
    case LLMROOF_OP_LINEAR_MIX:
    case LLMROOF_OP_DSA_INDEX: return REPORT_ATTENTION;
    case LLMROOF_OP_O_PROJ: return REPORT_O_PROJ;
    case LLMROOF_OP_ALL_REDUCE: return REPORT_ALL_REDUCE;
    case LLMROOF_OP_ALL_TO_ALL: return REPORT_ALL_TO_ALL; /* expert dispatch and combine */
    case LLMROOF_OP_PP_SEND: return REPORT_PP_SEND;
    case LLMROOF_OP_ROUTER: return REPORT_ROUTER;
    case LLMROOF_OP_FFN:
    case LLMROOF_OP_DENSE_FFN: return REPORT_FFN;
    case LLMROOF_OP_LM_HEAD: return REPORT_LM_HEAD;
    case LLMROOF_OP_ALL_GATHER: return REPORT_ALL_GATHER;
    case LLMROOF_OP_MLP_GATHER: return REPORT_MLP_GATHER; /* --moe-tp's gather and scatter */
    case LLMROOF_OP_COUNT: break;
    }
    return REPORT_OVERHEAD;
}

bool report_cat_shown(const struct llmroof_report *r, enum report_cat c)
{
    switch (c) {
    case REPORT_ROUTER: return r->moe;
    case REPORT_ALL_TO_ALL: return r->layout.ep > 1;
    case REPORT_PP_SEND: return r->layout.pp > 1;
    case REPORT_MLP_GATHER: return r->layout.moe_tp > 1;
    default: return c >= 0 && c < REPORT_CAT_COUNT;
    }
}

static void shares(const struct llmroof_phase *p, double *out)
{
    memset(out, 0, sizeof(double) * REPORT_CAT_COUNT);
    if (p->time_s <= 0)
        return;
    for (int k = 0; k < LLMROOF_OP_COUNT; k++)
        out[cat_of((enum llmroof_opkind)k)] += p->op[k].time_s / p->time_s;
    out[REPORT_OVERHEAD] += (p->overhead_s + p->cpu_wait_s) / p->time_s; /* the CPU launch wait too */
    /* two-batch overlap: the all-to-all the other micro-batch hides lengthens nothing (estimate's
     * all_to_all_hidden row), so the shares add to 1 (they had read 115% for a DeepSeek prefill) */
    if (p->a2a_overlap && p->hidden_s > 0)
        out[cat_of(LLMROOF_OP_ALL_TO_ALL)] -= p->hidden_s / p->time_s;
}

static void add_obs(struct llmroof_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_obs(struct llmroof_report *r, const char *fmt, ...)
{
    if (r->nobs >= REPORT_MAX_OBS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->obs[r->nobs++], sizeof r->obs[0], fmt, ap);
    va_end(ap);
}


/* Appends "name (x%)" items to buf, comma-separated. */
static void list_append(char *buf, size_t cap, const char *item)
{
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", item);
}

/* Two estimated rows of one GPU type (which then use the same GPU count: no scaling row). */
static bool same_gpus_pair(const struct llmroof_report *r)
{
    for (int i = 0; i < r->nrows; i++)
        for (int j = i + 1; j < r->nrows; j++)
            if (r->rows[i].has_est && r->rows[j].has_est && r->rows[i].gpu == r->rows[j].gpu)
                return true;
    return false;
}

static void observe(struct llmroof_report *r)
{
    const struct report_row *best_tpot = NULL, *best_ttft = NULL, *best_tput = NULL;
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        if (x->status != REPORT_OK)
            continue;
        if (!best_tpot || x->est.tpot_s < best_tpot->est.tpot_s)
            best_tpot = x;
        if (!best_ttft || x->est.ttft_s < best_ttft->est.ttft_s)
            best_ttft = x;
        if (!best_tput || x->est.decode_tok_s / x->gpus > best_tput->est.decode_tok_s / best_tput->gpus)
            best_tput = x;
    }
    /* a context past the model's is estimated as asked, and said (estimate warns; the rows had read
     * ok without a word: a review) */
    const long ctx = r->req.prompt + r->req.output;
    if (r->model->max_context > 0 && ctx > r->model->max_context)
        add_obs(r, "Prompt + output = %ld tokens exceeds %s's max context of %ld: every row is estimated past the "
                   "context the model serves (an engine refuses such a request unless its limit is raised).",
                ctx, r->model->id, r->model->max_context);
    if (!best_tpot) {
        /* each row's reason here too: table 1 shows the status alone (the reasons had been in the
         * JSON only, the per-row lines below left out: a review) */
        add_obs(r, "No configuration both fits and can be estimated; each row's reason follows.");
        for (int i = 0; i < r->nrows; i++)
            add_obs(r, "%s at TP %d is not a usable configuration: %s.", r->rows[i].gpu->id, r->rows[i].tp,
                    r->rows[i].reason);
        return;
    }
    add_obs(r, "Lowest TPOT: %s at TP %d, %.2f ms per token (%.0f tokens/s for the batch of %ld).",
            best_tpot->gpu->id, best_tpot->tp, best_tpot->est.tpot_s * 1e3, best_tpot->est.decode_tok_s, r->req.batch);
    add_obs(r, "Lowest TTFT: %s at TP %d, %.1f ms for %ld prompt%s of %ld tokens.", best_ttft->gpu->id, best_ttft->tp,
            best_ttft->est.ttft_s * 1e3, r->req.batch, r->req.batch == 1 ? "" : "s", r->req.prompt);
    add_obs(r, "Most decode throughput per GPU: %s at TP %d, %.0f tokens/s per GPU%s.", best_tput->gpu->id,
            best_tput->tp, best_tput->est.decode_tok_s / best_tput->gpus, r->has_layout ? " of the layout" : "");

    /* where adding GPUs stops paying: the table's TP scaling efficiency (TPOT x TP against the
     * smallest estimated TP of the same GPU), so every figure can be checked in table 1 */
    const struct report_row *worst = NULL;
    int poor = 0;
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        if (!x->has_est || !x->has_scaling)
            continue;
        if (!worst || x->tp_scaling_eff < worst->tp_scaling_eff)
            worst = x;
        if (x->tp_scaling_eff < REPORT_SCALING_POOR) {
            poor++;
            /* said as it is: TPOT that still falls is a gain per GPU that is poor, one that rises is
             * a loss ("stops paying" had covered a 31% faster TPOT and a slower one alike: a review) */
            if (x->est.tpot_s > x->scaling_ref_tpot_s)
                add_obs(r, "Adding GPUs slows decode on %s at TP %d: TPOT %.2f ms against %.2f ms at TP %d "
                           "(%.0f%% scaling efficiency).",
                        x->gpu->id, x->tp, x->est.tpot_s * 1e3, x->scaling_ref_tpot_s * 1e3, x->scaling_ref_tp,
                        100 * x->tp_scaling_eff);
            else
                /* the speed-up as a ratio: "51% faster" had said 51% less time per token, a 2.04x speed-up
                 * (a review) */
                add_obs(r, "Adding GPUs pays little per GPU on %s at TP %d: TPOT %.2f ms against %.2f ms at TP %d, "
                           "%.2fx the speed for %.0fx the GPUs, %.0f%% scaling efficiency (below %.0f%%).",
                        x->gpu->id, x->tp, x->est.tpot_s * 1e3, x->scaling_ref_tpot_s * 1e3, x->scaling_ref_tp,
                        x->scaling_ref_tpot_s / x->est.tpot_s,
                        x->tp_scaling_eff > 0 ? x->scaling_ref_tpot_s / x->est.tpot_s / x->tp_scaling_eff : 0.0,
                        100 * x->tp_scaling_eff, 100 * REPORT_SCALING_POOR);
        }
    }
    /* TTFT that rises with the GPUs (the prefill's all-reduces outgrowing the compute TP splits):
     * for a TTFT SLO the page's most actionable fact, which the TPOT observations had not said (a
     * review: an L40S's TTFT 2101 ms at TP 1, 2662 at TP 4). Per GPU, against its estimated row
     * with the fewest GPUs that fits, as the other observations take them: the row whose TTFT
     * rises most. A row that does not fit is no baseline (a review: Qwen3-Next's 149.6 GiB of
     * weights "at TP 1" of one L40S) */
#define USABLE(x) ((x)->has_est && (x)->status == REPORT_OK)
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *ref = &r->rows[i];
        bool first = USABLE(ref);
        for (int j = 0; j < i && first; j++) /* ref: this GPU's usable row with the fewest GPUs */
            first = !(r->rows[j].gpu == ref->gpu && USABLE(&r->rows[j]));
        for (int j = i + 1; j < r->nrows && first; j++)
            first = !(r->rows[j].gpu == ref->gpu && USABLE(&r->rows[j]) && r->rows[j].gpus < ref->gpus);
        if (!first)
            continue;
        const struct report_row *up = NULL;
        for (int j = 0; j < r->nrows; j++) {
            const struct report_row *x = &r->rows[j];
            if (x->gpu == ref->gpu && USABLE(x) && x->gpus > ref->gpus && x->est.ttft_s > ref->est.ttft_s &&
                (!up || x->est.ttft_s > up->est.ttft_s))
                up = x;
        }
        if (up)
            add_obs(r, "TTFT rises with the GPUs on %s: %.1f ms at TP %d against %.1f ms at TP %d (the prefill's "
                       "communication %.0f%% of it): more TP does not serve a TTFT SLO here.",
                    ref->gpu->id, up->est.ttft_s * 1e3, up->tp, ref->est.ttft_s * 1e3, ref->tp,
                    100 * estimate_comm_share(&up->est.prefill));
    }
#undef USABLE
    if (!worst && r->has_layout && same_gpus_pair(r))
        add_obs(r, "Every configuration of a GPU uses the same number of GPUs under this layout, so no row "
                   "shows what adding GPUs pays; compare layouts with more GPUs to see it.");
    if (!poor && worst)
        add_obs(r, "TP scaling efficiency stays at or above %.0f%% everywhere; the lowest is %s at TP %d, %.0f%% "
                   "(TPOT %.2f ms against %.2f ms at TP %d).",
                100 * REPORT_SCALING_POOR, worst->gpu->id, worst->tp, 100 * worst->tp_scaling_eff,
                worst->est.tpot_s * 1e3, worst->scaling_ref_tpot_s * 1e3, worst->scaling_ref_tp);

    /* communication-dominated configurations (a share just above the line is printed to the tenth
     * it passes it by: "(30%)" under "above 30%" had read as a contradiction, a review) */
    char dec[1024] = "", pre[1024] = "";
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        if (!x->has_est)
            continue;
        char item[96];
        const double sd = estimate_comm_share(&x->est.decode), sp = estimate_comm_share(&x->est.prefill);
        if (sd > REPORT_COMM_HEAVY) {
            snprintf(item, sizeof item, "%s TP %d (%.*f%%)", x->gpu->id, x->tp,
                     round(100 * sd) <= 100 * REPORT_COMM_HEAVY ? 1 : 0, 100 * sd);
            list_append(dec, sizeof dec, item);
        }
        if (sp > REPORT_COMM_HEAVY) {
            snprintf(item, sizeof item, "%s TP %d (%.*f%%)", x->gpu->id, x->tp,
                     round(100 * sp) <= 100 * REPORT_COMM_HEAVY ? 1 : 0, 100 * sp);
            list_append(pre, sizeof pre, item);
        }
    }
    if (dec[0])
        add_obs(r, "Communication-dominated decode (all-reduce%s above %.0f%% of TPOT): %s.",
                r->layout.moe_tp > 1                ? ", all-gather, the MLPs' gather and scatter"
                : r->layout.ep > 1 && r->layout.pp > 1 ? ", all-gather, all-to-all and pipeline sends"
                : r->layout.ep > 1                  ? ", all-gather and all-to-all"
                : r->layout.pp > 1                  ? ", all-gather and pipeline sends"
                                                    : " and all-gather",
                100 * REPORT_COMM_HEAVY, dec);
    else
        add_obs(r, "No configuration spends more than %.0f%% of a decode step communicating.", 100 * REPORT_COMM_HEAVY);
    if (pre[0])
        add_obs(r, "Communication-dominated prefill (above %.0f%% of TTFT): %s.", 100 * REPORT_COMM_HEAVY, pre);

    /* bounds per GPU, and the KV headroom */
    for (int g = 0; g < r->nrows; g++) {
        const struct report_row *first = &r->rows[g];
        bool seen = false;
        for (int j = 0; j < g; j++)
            if (r->rows[j].gpu == first->gpu)
                seen = true;
        if (seen)
            continue;
        char pb[256] = "", db[256] = "";
        int nb = 0, pre_same = 1, dec_same = 1;
        const char *pb0 = "compute", *db0 = "memory"; /* as estimate names a phase's bound: cpu too */
        double lo = -1, hi = -1;
        int lo_tp = 0, hi_tp = 0;
        for (int j = g; j < r->nrows; j++) {
            const struct report_row *x = &r->rows[j];
            if (x->gpu != first->gpu || !x->has_est)
                continue;
            char item[48];
            if (nb++ == 0) {
                pb0 = roofline_phase_bound_name(&x->est.prefill);
                db0 = roofline_phase_bound_name(&x->est.decode);
            }
            pre_same &= !strcmp(roofline_phase_bound_name(&x->est.prefill), pb0);
            dec_same &= !strcmp(roofline_phase_bound_name(&x->est.decode), db0);
            snprintf(item, sizeof item, "%s-bound at TP %d", roofline_phase_bound_name(&x->est.prefill), x->tp);
            list_append(pb, sizeof pb, item);
            snprintf(item, sizeof item, "%s-bound at TP %d", roofline_phase_bound_name(&x->est.decode), x->tp);
            list_append(db, sizeof db, item);
            if (x->status == REPORT_OK) {
                if (lo < 0 || x->mem.max_batch < lo) {
                    lo = x->mem.max_batch;
                    lo_tp = x->tp;
                }
                if (hi < 0 || x->mem.max_batch > hi) {
                    hi = x->mem.max_batch;
                    hi_tp = x->tp;
                }
            }
        }
        if (nb && pre_same)
            snprintf(pb, sizeof pb, "%s-bound at every TP", pb0);
        if (nb && dec_same)
            snprintf(db, sizeof db, "%s-bound at every TP", db0);
        if (nb)
            add_obs(r, "%s: prefill is %s; decode is %s.", first->gpu->id, pb, db);
        if (lo >= 0 && lo_tp == hi_tp)
            add_obs(r, "%s: the KV cache holds %.0f sequences of %ld tokens at TP %d, %.*fx the requested batch of %ld.",
                    first->gpu->id, lo, r->req.prompt + r->req.output, lo_tp, lo / (double)r->req.batch >= 100 ? 0 : 1,
                    lo / (double)r->req.batch, r->req.batch);
        else if (lo >= 0)
            add_obs(r, "%s: the KV cache holds %.0f (TP %d) to %.0f (TP %d) sequences of %ld tokens, %.*fx to %.*fx "
                       "the requested batch of %ld.", /* (whole from 100x: "23832.0x" said nothing more) */
                    first->gpu->id, lo, lo_tp, hi, hi_tp, r->req.prompt + r->req.output,
                    lo / (double)r->req.batch >= 100 ? 0 : 1, lo / (double)r->req.batch,
                    hi / (double)r->req.batch >= 100 ? 0 : 1, hi / (double)r->req.batch, r->req.batch);
    }
    for (int i = 0; i < r->nrows; i++) {
        const struct report_row *x = &r->rows[i];
        if (x->status != REPORT_OK)
            add_obs(r, "%s at TP %d is not a usable configuration: %s.", x->gpu->id, x->tp, x->reason);
    }
}

int report_build(const struct report_input *in, struct llmroof_report *out, struct llmroof_err *err)
{
    memset(out, 0, sizeof *out);
    if (in->ngpus < 1 || in->ngpus > REPORT_MAX_GPUS || in->ntps < 1 || in->ntps > REPORT_MAX_TPS)
        return llmroof_err_set(err, LLMROOF_EINPUT, "a report needs 1-%d GPUs and 1-%d TP values", REPORT_MAX_GPUS,
                               REPORT_MAX_TPS);
    out->model = in->model;
    out->req = in->req;
    out->dt = in->dt;
    out->eff = in->eff;
    out->moe = in->model->moe_experts > 0;
    out->layout = in->layout;
    out->has_layout = in->layout.pp > 1 || in->layout.ep > 1 || in->layout.dp_attn || in->layout.ep_imbalance > 1 ||
                      in->layout.moe_tp > 1;
    const long ctx = in->req.prompt + in->req.output;
    for (int gi = 0; gi < in->ngpus; gi++) {
        for (int ti = 0; ti < in->ntps; ti++) {
            struct report_row *x = &out->rows[out->nrows++];
            x->gpu = in->gpus[gi];
            x->tp = in->tps[ti];
            /* this GPU's compute dtype (ckpt_gpu_dtypes), as plan_setup_for takes it */
            const struct llmroof_dtypes gdt = ckpt_gpu_dtypes(in->model, in->dt, in->weight_given, in->act_given, x->gpu);
            x->act = gdt.act;
            ckpt_compute_desc(in->model, x->gpu, &gdt, x->compute, sizeof x->compute);
            struct llmroof_setup s = { in->model, x->gpu, x->tp, gdt, roofline_effs_tp(x->gpu, &in->eff, x->tp), in->layout };
            /* the setup's layout: with the engine's rule for --moe-tp's shared experts and dense
             * layers (moe_tp_shared_local), as memory and estimate take it */
            struct llmroof_layout lay = estimate_layout(&s);
            struct llmroof_err e2 = { 0 };
            struct llmroof_shard sh;
            x->gpus = x->tp;
            if (ops_shard_layout(in->model, &lay, &sh, &e2) != LLMROOF_OK) {
                x->status = REPORT_BAD_TP;
                snprintf(x->reason, sizeof x->reason, "%s", e2.msg);
                continue;
            }
            x->gpus = sh.gpus; /* per-GPU figures divide by the layout's GPUs, as estimate's do */
            /* a CUDA-only engine on an AMD GPU: that row only (the whole report had stopped) */
            if (estimate_engine_runs(s.eff.engine_id, s.eff.cuda_only, x->gpu, &e2) != LLMROOF_OK) {
                x->status = REPORT_NO_ENGINE;
                snprintf(x->reason, sizeof x->reason, "%s", e2.msg);
                continue;
            }
            /* nor a layout beyond the runtime's GPUs (calm: one), as estimate refuses it */
            const struct llmroof_engine *en = in->eff.engine;
            const long ig = (long)sh.gpus * (lay.pp > 1 ? lay.pp : 1);
            if (en && en->max_gpus > 0 && ig > en->max_gpus) {
                x->status = REPORT_NO_ENGINE;
                snprintf(x->reason, sizeof x->reason, "engine '%s' runs an instance on at most %ld GPU%s (max_gpus)",
                         en->id, en->max_gpus, en->max_gpus == 1 ? "" : "s");
                continue;
            }
            int rc = memory_eval_layout(in->model, x->gpu, &lay, &in->dt, ctx, in->has_gpu_mem ? &in->gpu_mem[gi][ti] : &in->mem,
                                        &x->mem, &e2);
            if (rc)
                return llmroof_err_set(err, rc, "%s", e2.msg);
            x->has_mem = true;
            if (roofline_check(x->gpu, gdt.act, &e2) != LLMROOF_OK) {
                x->status = REPORT_BAD_DTYPE;
                snprintf(x->reason, sizeof x->reason, "%s", e2.msg);
                continue;
            }
            if ((rc = estimate_run(&s, &in->req, &x->est, &e2)))
                return llmroof_err_set(err, rc, "%s", e2.msg);
            x->has_est = true;
            shares(&x->est.prefill, x->prefill_share);
            shares(&x->est.decode, x->decode_share);
            if (!x->mem.fits) {
                x->status = REPORT_NO_FIT;
                if (x->mem.fit == LLMROOF_FIT_WEIGHTS)
                    snprintf(x->reason, sizeof x->reason,
                             "weights with workspace and reserve (%.1f GiB per GPU) exceed the %.1f GiB usable",
                             (x->mem.weights_bytes_per_gpu + x->mem.workspace_bytes_per_gpu +
                              x->mem.reserve_bytes_per_gpu) / 1073741824.0,
                             x->mem.usable_bytes / 1073741824.0);
                else
                    snprintf(x->reason, sizeof x->reason, "the KV cache cannot hold one %ld-token sequence", ctx);
            } else if ((double)in->req.batch > x->mem.max_batch) {
                x->status = REPORT_NO_FIT;
                snprintf(x->reason, sizeof x->reason, "the KV cache holds %.0f sequences of %ld tokens, fewer than the batch of %ld",
                         x->mem.max_batch, ctx, in->req.batch);
            }
        }
    }
    /* TP scaling efficiency against the estimated row of the same GPU with the fewest GPUs (the
     * smallest TP among them) that fits. Only rows with more GPUs than that reference get one: with EP 8
     * and --dp-attention every TP uses the same 8 GPUs, and comparing those rows would say
     * nothing about adding GPUs. */
    for (int i = 0; i < out->nrows; i++) {
        struct report_row *x = &out->rows[i];
        if (!x->has_est)
            continue;
        const struct report_row *ref = NULL;
        for (int j = 0; j < out->nrows; j++) {
            const struct report_row *y = &out->rows[j];
            /* a reference that does not fit is no deployment to scale from (a reviewer's: "the
             * lowest is b200 at TP 8, 81%" against a TP 4 marked no-fit) */
            if (y->gpu == x->gpu && y->has_est && y->status == REPORT_OK &&
                (!ref || y->gpus < ref->gpus || (y->gpus == ref->gpus && y->tp < ref->tp)))
                ref = y;
        }
        if (ref && ref->gpus < x->gpus && x->est.tpot_s > 0) {
            x->has_scaling = true;
            x->scaling_ref_tp = ref->tp;
            x->scaling_ref_tpot_s = ref->est.tpot_s;
            /* GPU-time per token: with a layout the GPUs are tp x pp (or ep x pp), not TP alone */
            x->tp_scaling_eff = (ref->est.tpot_s * ref->gpus) / (x->est.tpot_s * x->gpus);
        }
    }
    observe(out);
    return LLMROOF_OK;
}
