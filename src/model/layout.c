/* layout.c - tensor, pipeline and expert parallelism of one model instance (see llmroof/ops.h
 * struct llmroof_layout and docs/model.md "Layouts").
 *
 *   GPUs per stage  = ep when ep > 1, else tp;   GPUs = GPUs per stage * pp
 *   stage layers    = ceil(L / pp) for the largest stage, floor(L / pp) for the smallest
 *                     (Megatron and vLLM split consecutive layers as evenly as they can)
 *   experts per rank = E / ep (whole experts; EP does not also split an expert's width)
 *   attention replicas = ep / tp with --dp-attention (each with its own sequences and KV) */
#include "model/ops.h"

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
    if (imb != 0.0 && !(imb >= 1.0 && imb <= 64.0))
        return llmroof_err_set(err, LLMROOF_EINPUT, "--ep-imbalance %g must be between 1 and 64", imb);
    if (ep > 1) {
        if (m->moe_experts <= 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "--ep %d needs a mixture-of-experts model; '%s' is dense", ep, m->id);
        if (m->moe_experts % ep != 0)
            return llmroof_err_set(err, LLMROOF_EINPUT, "--ep %d does not divide the %ld experts of model '%s'", ep,
                                   m->moe_experts, m->id);
    } else if (lay->dp_attn) {
        return llmroof_err_set(err, LLMROOF_EINPUT, "--dp-attention needs --ep greater than 1");
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
    out->attn_dp = lay->dp_attn ? ep / lay->tp : 1;
    out->gpus_per_stage = ep > 1 ? ep : lay->tp;
    out->gpus = out->gpus_per_stage * pp;
    out->stage_layers_max = (m->layers + pp - 1) / pp;
    out->stage_layers_min = m->layers / pp;
    out->ep_imbalance = imb;
    out->two_batch_overlap = lay->two_batch_overlap;
    return LLMROOF_OK;
}

void ops_layout_desc(const struct llmroof_shard *sh, char *buf, size_t size)
{
    if (size == 0)
        return;
    buf[0] = '\0';
    if (sh->pp > 1 || sh->ep > 1) /* estimate, memory and simulate name a layout beyond TP alike */
        snprintf(buf, size, ", PP %d, EP %d%s%s", sh->pp, sh->ep, sh->dp_attn ? ", data-parallel attention" : "",
                 sh->two_batch_overlap ? ", two-batch overlap" : "");
}
