/* layout.c - tensor, pipeline and expert parallelism of one model instance (see llmroof/ops.h
 * struct llmroof_layout and docs/model.md "Layouts").
 *
 *   GPUs per stage  = ep when ep > 1, moe_tp when moe_tp > 1, else tp;   GPUs = GPUs per stage * pp
 *   stage layers    = ceil(L / pp) for the largest stage, floor(L / pp) for the smallest
 *                     (Megatron and vLLM split consecutive layers as evenly as they can)
 *   experts per rank = E / ep (whole experts; EP does not also split an expert's width)
 *   attention replicas = ep / tp (or moe_tp / tp) with --dp-attention (each with its own
 *                     sequences and KV)
 *   expert width per rank = moe_intermediate / moe_tp under --moe-tp (every expert on every GPU,
 *                     as under TP alone, fed every replica's tokens) */
#include "model/ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/arch.h"

int ops_layout_check_model(const struct llmroof_model *m, const struct llmroof_layout *lay, struct llmroof_err *err)
{
    const int pp = lay->pp > 0 ? lay->pp : 1, ep = lay->ep > 0 ? lay->ep : 1;
    /* 0: not given, the busiest rank of uniform routing (ops_build) */
    const double imb = lay->ep_imbalance > 0 ? lay->ep_imbalance : 0.0;
    if (pp > 1024 || ep > 4096)
        return llmroof_err_set(err, LLMROOF_EINPUT, "--pp %d / --ep %d: at most 1024 stages and 4096 expert ranks", pp, ep);
    if (pp > m->layers)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--pp %d exceeds the %ld layers of model '%s': a pipeline stage needs at least one layer",
                               pp, m->layers, m->id);
    /* its upper bound is the layout's, min(ep, experts / top-k), below; a fixed 64 had been named
     * where EP 256 of DeepSeek-V3 allows 32 (a review) */
    if (imb != 0.0 && !(imb >= 1.0 && isfinite(imb)))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--ep-imbalance %g must be 1 or more (the busiest expert rank's "
                                                    "load over the mean)", imb);
    if (ep > 1) {
        if (m->moe_experts <= 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "--ep %d needs a mixture-of-experts model; '%s' is dense", ep, m->id);
        if (m->moe_experts % ep != 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "--ep %d does not divide the %ld experts of model '%s'", ep,
                                   m->moe_experts, m->id);
    } else if (lay->dp_attn && !(lay->moe_tp > 1) && m->moe_experts <= 0) {
        /* the replicas meet at the MoE layers (SGLang's DP attention); a dense model's replicas
         * would be independent instances (--instances), and naming --ep first hid the cause */
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--dp-attention needs a mixture-of-experts model; '%s' is dense (attention replicas "
                               "meet at the MoE layers; without those they are separate instances)", m->id);
    } else if (lay->dp_attn && !(lay->moe_tp > 1)) {
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--dp-attention needs --ep greater than 1 (experts split by expert) or --moe-tp greater "
                               "than 1 (every expert split by width)");
    }
    if (lay->moe_tp > 1) {
        if (lay->moe_tp > 4096)
            return llmroof_err_set(err, LLMROOF_EINPUT, "--moe-tp %d: at most 4096 GPUs", lay->moe_tp);
        if (ep > 1)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--moe-tp %d with --ep %d: the experts are split either by expert (--ep) or by width "
                                   "(--moe-tp), not both", lay->moe_tp, ep);
        if (!lay->dp_attn)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--moe-tp %d needs --dp-attention: without it the MLPs are already split over -t's GPUs",
                                   lay->moe_tp);
        if (m->moe_experts <= 0)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--moe-tp %d needs a mixture-of-experts model; '%s' is dense", lay->moe_tp, m->id);
        /* each rank holds an equal slice of every expert's width and of the dense MLP's (vLLM's
         * divide(), SGLang's intermediate_size_per_partition): a fraction of a column is no layout */
        if (m->moe_intermediate % lay->moe_tp != 0)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--moe-tp %d does not divide the %ld-wide experts of model '%s' (each GPU holds "
                                   "an equal slice of every expert's width)", lay->moe_tp, m->moe_intermediate, m->id);
        if (arch_dense_layers(m) > 0 && m->intermediate % lay->moe_tp != 0)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--moe-tp %d does not divide the %ld-wide dense MLP of model '%s' (its dense layers "
                                   "split by width over the same GPUs as the experts)", lay->moe_tp, m->intermediate,
                                   m->id);
    }
    /* under TP alone every GPU holds a slice of every expert: no rank is busier than another */
    if (imb > 1.0 && ep <= 1)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--ep-imbalance %g needs --ep greater than 1 (the busiest expert-parallel rank's load)", imb);
    if (ep > 1) {
        /* a token's k picks are distinct experts, and a rank holds E/ep of them: it receives at most
         * min(k, E/ep) of each token's k picks, so its load over the mean (k/ep per rank) is at most
         * ep x min(k, E/ep) / k = min(ep, E/k) (Mixtral at EP 8: 4; DeepSeek-V3 at EP 64: 32) */
        const double k = m->moe_top_k > 0 ? (double)m->moe_top_k : 1.0, e = (double)m->moe_experts;
        const double most = (double)ep < e / k ? (double)ep : e / k;
        if (imb > most)
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--ep-imbalance %.9g is above %.9g, the most the busiest of %d expert ranks can carry "
                                   "(min(ep, experts / top-k) = min(%d, %ld / %ld): every token's picks that one rank "
                                   "holds)",
                                   imb, most, ep, ep, m->moe_experts, m->moe_top_k);
    }
    if (lay->two_batch_overlap && !(ep > 1 && lay->dp_attn))
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--two-batch-overlap needs --ep greater than 1 with --dp-attention (an all-to-all to hide)");
    return LLMROOF_OK;
}

int ops_shard_layout(const struct llmroof_model *m, const struct llmroof_layout *lay, struct llmroof_shard *out,
                     struct llmroof_err *err)
{
    int rc = ops_shard(m, lay->tp, out, err);
    if (rc)
        return rc;
    if ((rc = ops_layout_check_model(m, lay, err)))
        return rc;
    const int pp = lay->pp > 0 ? lay->pp : 1, ep = lay->ep > 0 ? lay->ep : 1;
    const double imb = lay->ep_imbalance > 0 ? lay->ep_imbalance : 0.0;
    /* what depends on TP: how the expert ranks meet the attention's */
    const int mtp = lay->moe_tp > 1 ? lay->moe_tp : 0;
    if (mtp > 0 && mtp % lay->tp != 0)
        return llmroof_err_set(err, LLMROOF_EINPUT,
                               "--dp-attention needs TP %d to divide --moe-tp %d (moe-tp/tp attention replicas)",
                               lay->tp, mtp);
    if (ep > 1) {
        if (lay->dp_attn) {
            if (ep % lay->tp != 0)
                return llmroof_err_set(err, LLMROOF_EINPUT,
                                       "--dp-attention needs TP %d to divide --ep %d (ep/tp attention replicas)",
                                       lay->tp, ep);
        } else if (ep != lay->tp) {
            return llmroof_err_set(err, LLMROOF_EINPUT,
                                   "--ep %d differs from TP %d: experts share the attention's TP ranks unless "
                                   "--dp-attention makes attention data-parallel", ep, lay->tp);
        }
    }
    out->pp = pp;
    out->ep = ep;
    out->dp_attn = lay->dp_attn;
    out->gpus_per_stage = ops_layout_stage_gpus(lay, lay->tp); /* ep or moe_tp, which tp divides, else tp */
    out->attn_dp = lay->dp_attn ? out->gpus_per_stage / lay->tp : 1;
    out->moe_tp = ep > 1 ? 1 : mtp > 0 ? mtp : lay->tp;
    out->mlp_gather = mtp > 0;
    out->mlp_shared_local = mtp > 0 && lay->shared_local;
    if (mtp > 0) { /* every routed expert split by width over the stage; the shared experts and the
                      dense MLPs too, or with shared_local over the replica's attention TP alone */
        out->moe_intermediate_per_rank = (double)m->moe_intermediate / mtp;
        if (!lay->shared_local) {
            out->intermediate_per_rank = (double)m->intermediate / mtp;
            out->shared_intermediate_per_rank = out->moe_intermediate_per_rank;
        }
    }
    /* SGLang's LM head under data-parallel attention (without --enable-dp-lm-head) is split over
     * every GPU of the stage: each replica's last hidden states all-gathered to it, the logits
     * all-gathered back (LogitsProcessor's dp_gather, then tensor_model_parallel_all_gather); a
     * tied head is the embedding, whole on each replica */
    if (lay->lm_head_split && out->attn_dp > 1 && !m->tied_embeddings) {
        out->lm_vocab_per_rank = (double)m->vocab / out->gpus_per_stage;
        out->lm_ranks = out->gpus_per_stage;
    }
    out->gpus = out->gpus_per_stage * pp;
    out->stage_layers_max = (m->layers + pp - 1) / pp;
    out->stage_layers_min = m->layers / pp;
    out->ep_imbalance = imb;
    out->two_batch_overlap = lay->two_batch_overlap;
    out->dsa_dense_prefill = lay->dsa_dense_prefill && m->dsa_top_k > 0;
    return LLMROOF_OK;
}

int ops_layout_gpus(const struct llmroof_layout *l, int tp)
{
    return ops_layout_stage_gpus(l, tp) * (l->pp > 1 ? l->pp : 1);
}

int ops_layout_stage_gpus(const struct llmroof_layout *l, int tp)
{
    const int g = l->ep > 1 ? l->ep : l->moe_tp > 1 ? l->moe_tp : 1;
    return g > tp ? g : tp;
}

int ops_layout_attn_dp(const struct llmroof_layout *l, int tp)
{
    return l->dp_attn && tp > 0 ? ops_layout_stage_gpus(l, tp) / tp : 1;
}

void ops_layout_desc(const struct llmroof_shard *sh, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    if (sh->mlp_gather) /* estimate, memory and simulate name a layout beyond TP alike */
        snprintf(buf, size, ", PP %d, MoE TP %d, data-parallel attention", sh->pp, sh->moe_tp);
    else if (sh->pp > 1 || sh->ep > 1)
        /* data-parallel attention over one replica (TP equal to EP) is tensor-parallel attention
         * whose tokens still reach the experts by all-to-all: the header said "data-parallel
         * attention" beside a note saying otherwise (a reviewer's) */
        snprintf(buf, size, ", PP %d, EP %d%s%s", sh->pp, sh->ep,
                 !sh->dp_attn         ? ""
                 : sh->attn_dp > 1 ? ", data-parallel attention"
                                   : ", one attention replica, experts by all-to-all",
                 sh->two_batch_overlap ? ", two-batch overlap" : "");
}
